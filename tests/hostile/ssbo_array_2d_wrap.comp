#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint x; } b[65536][65536];
void main() { b[0][0].x = 1u; b[65535][65535].x = 2u; }
