#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D im[64];
layout(set = 0, binding = 1) uniform texture2D t[64];
layout(set = 0, binding = 2) uniform sampler smp;
void main() { imageStore(im[0], ivec2(0), uvec4(texture(sampler2D(t[0], smp), vec2(0)).x)); imageStore(im[63], ivec2(0), uvec4(texture(sampler2D(t[63], smp), vec2(0)).x)); }
