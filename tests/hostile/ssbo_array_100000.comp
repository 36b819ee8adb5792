#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint x; } b[100000];
void main() { b[0].x = 1u; b[99999].x = 2u; }
