#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 100000) buffer B { uint x; } b;
void main() { b.x = 1u; }
