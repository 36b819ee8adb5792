#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
layout(set = 0, binding = 1, r32ui) uniform uimage2D im[65];
void main() { imageStore(im[0], ivec2(0), uvec4(1)); imageStore(im[64], ivec2(0), uvec4(1)); }
