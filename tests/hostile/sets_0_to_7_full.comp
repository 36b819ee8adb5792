#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B0 { uint x; } b0;
layout(set = 1, binding = 0) buffer B1 { uint x; } b1;
layout(set = 2, binding = 0) buffer B2 { uint x; } b2;
layout(set = 3, binding = 0) buffer B3 { uint x; } b3;
layout(set = 4, binding = 0) buffer B4 { uint x; } b4;
layout(set = 5, binding = 0) buffer B5 { uint x; } b5;
layout(set = 6, binding = 0) buffer B6 { uint x; } b6;
layout(set = 7, binding = 0) buffer B7 { uint x; } b7;
void main() { b0.x = b0.x + b1.x + b2.x + b3.x + b4.x + b5.x + b6.x + b7.x; }
