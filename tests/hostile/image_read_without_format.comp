#version 450
#extension GL_EXT_shader_image_load_formatted : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
layout(set = 0, binding = 1) uniform readonly uimage2D im;
void main() { out_.v[0] = imageLoad(im, ivec2(0)).x; }
