#version 450

layout(local_size_x = 64) in;
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(set = 0, binding = 0) buffer B { uint64_t c; } b;
void main() { atomicAdd(b.c, 1ul); }
