#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
layout(set = 0, binding = 1) uniform U0 { uint x; } u0;
layout(set = 0, binding = 2) uniform U1 { uint x; } u1;
layout(set = 0, binding = 3) uniform U2 { uint x; } u2;
layout(set = 0, binding = 4) uniform U3 { uint x; } u3;
layout(set = 0, binding = 5) uniform U4 { uint x; } u4;
layout(set = 0, binding = 6) uniform U5 { uint x; } u5;
layout(set = 0, binding = 7) uniform U6 { uint x; } u6;
layout(set = 0, binding = 8) uniform U7 { uint x; } u7;
layout(set = 0, binding = 9) uniform U8 { uint x; } u8;
layout(set = 0, binding = 10) uniform U9 { uint x; } u9;
layout(set = 0, binding = 11) uniform U10 { uint x; } u10;
layout(set = 0, binding = 12) uniform U11 { uint x; } u11;
layout(set = 0, binding = 13) uniform U12 { uint x; } u12;
layout(set = 0, binding = 14) uniform U13 { uint x; } u13;
layout(set = 0, binding = 15) uniform U14 { uint x; } u14;
layout(set = 0, binding = 16) uniform U15 { uint x; } u15;
void main() { out_.v[0] = u0.x + u1.x + u2.x + u3.x + u4.x + u5.x + u6.x + u7.x + u8.x + u9.x + u10.x + u11.x + u12.x + u13.x + u14.x + u15.x; }
