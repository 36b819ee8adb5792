#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
layout(set = 0, binding = 1) uniform U { uint a[20000]; } u;
void main() { out_.v[0] = u.a[gl_LocalInvocationIndex]; }
