#version 450

layout(local_size_x = 64) in;
#extension GL_EXT_shader_image_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(set = 0, binding = 0, r64ui) uniform u64image2D im;
void main() { imageAtomicAdd(im, ivec2(0), 1ul); }
