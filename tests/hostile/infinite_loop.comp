#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
void main() { uint i = 0u; while (out_.v[1] == 0u) { i++; } out_.v[0] = i; }
