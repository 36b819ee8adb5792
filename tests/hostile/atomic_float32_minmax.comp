#version 450

layout(local_size_x = 64) in;
#extension GL_EXT_shader_atomic_float2 : require
layout(set = 0, binding = 0) buffer B { float f; } b;
void main() { atomicMax(b.f, 1.0); }
