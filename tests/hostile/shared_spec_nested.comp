#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
layout(constant_id = 0) const uint N = 4;
shared uint s[N][N][N];
void main() { s[gl_LocalInvocationIndex % N][0][0] = 1u; barrier(); out_.v[0] = s[0][0][0]; }
