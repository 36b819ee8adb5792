#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
void main() { double a = double(gl_LocalInvocationIndex) * 1.5LF; out_.v[0] = uint(a); }
