#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
layout(push_constant) uniform P { uint a[32]; } pc;
void main() { out_.v[0] = pc.a[0] + pc.a[31]; }
