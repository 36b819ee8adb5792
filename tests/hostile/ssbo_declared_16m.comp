#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint a[4194304]; } b;
void main() { b.a[gl_LocalInvocationIndex] = 1u; }
