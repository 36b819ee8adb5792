#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
shared uint s[8193];
void main() { s[gl_LocalInvocationIndex] = 1u; barrier(); out_.v[0] = s[8192]; }
