#version 450

layout(local_size_x = 64) in;
layout(set = 32, binding = 0) buffer B { uint x; } b;
void main() { b.x = 1u; }
