#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
void main() { uint64_t a = uint64_t(gl_LocalInvocationIndex) << 40; out_.v[0] = uint(a >> 40); }
