#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
layout(set = 0, binding = 1) uniform sampler2D s[33];
void main() { out_.v[0] = uint(texture(s[0], vec2(0)).x + texture(s[32], vec2(0)).x); }
