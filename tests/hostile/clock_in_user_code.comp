#version 450
#extension GL_EXT_shader_realtime_clock : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
void main() { out_.v[0] = uint(clockRealtimeEXT()); }
