#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
void main() { uint16_t a = uint16_t(gl_LocalInvocationIndex); out_.v[0] = uint(a * a); }
