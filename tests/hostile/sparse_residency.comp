#version 450
#extension GL_ARB_sparse_texture2 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
layout(set = 0, binding = 1) uniform sampler2D s;
void main() { vec4 t; out_.v[0] = uint(sparseTextureARB(s, vec2(0), t)); }
