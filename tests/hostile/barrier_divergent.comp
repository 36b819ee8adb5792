#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
void main() { if (gl_LocalInvocationIndex < 7u) { barrier(); } out_.v[0] = 1u; }
