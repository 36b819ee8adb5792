#version 450
#extension GL_EXT_buffer_reference : require
layout(buffer_reference) buffer R { uint x; };
layout(push_constant) uniform PC { R r; } pc;
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
void main() { pc.r.x = 1u; out_.v[0] = 1u; }
