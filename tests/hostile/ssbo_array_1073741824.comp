#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint x; } b[1073741824];
void main() { b[0].x = 1u; b[1073741823].x = 2u; }
