#version 450

layout(local_size_x = 64) in;
#extension GL_EXT_shader_atomic_float2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(set = 0, binding = 0) buffer B { float16_t f; } b;
void main() { atomicAdd(b.f, float16_t(1.0)); }
