#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
layout(set = 0, binding = 1) uniform texture2D t[129];
layout(set = 0, binding = 2) uniform sampler smp;
void main() { out_.v[0] = uint(texture(sampler2D(t[0], smp), vec2(0)).x + texture(sampler2D(t[128], smp), vec2(0)).x); }
