#version 450

layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
void main() { out_.v[gl_LocalInvocationIndex] = 1u; }
