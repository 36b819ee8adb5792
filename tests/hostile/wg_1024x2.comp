#version 450

layout(local_size_x = 1024, local_size_y = 2) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
void main() { out_.v[0] = 1u; }
