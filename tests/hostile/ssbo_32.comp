#version 450

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B0 { uint x; } b0;
layout(set = 0, binding = 1) buffer B1 { uint x; } b1;
layout(set = 0, binding = 2) buffer B2 { uint x; } b2;
layout(set = 0, binding = 3) buffer B3 { uint x; } b3;
layout(set = 0, binding = 4) buffer B4 { uint x; } b4;
layout(set = 0, binding = 5) buffer B5 { uint x; } b5;
layout(set = 0, binding = 6) buffer B6 { uint x; } b6;
layout(set = 0, binding = 7) buffer B7 { uint x; } b7;
layout(set = 0, binding = 8) buffer B8 { uint x; } b8;
layout(set = 0, binding = 9) buffer B9 { uint x; } b9;
layout(set = 0, binding = 10) buffer B10 { uint x; } b10;
layout(set = 0, binding = 11) buffer B11 { uint x; } b11;
layout(set = 0, binding = 12) buffer B12 { uint x; } b12;
layout(set = 0, binding = 13) buffer B13 { uint x; } b13;
layout(set = 0, binding = 14) buffer B14 { uint x; } b14;
layout(set = 0, binding = 15) buffer B15 { uint x; } b15;
layout(set = 0, binding = 16) buffer B16 { uint x; } b16;
layout(set = 0, binding = 17) buffer B17 { uint x; } b17;
layout(set = 0, binding = 18) buffer B18 { uint x; } b18;
layout(set = 0, binding = 19) buffer B19 { uint x; } b19;
layout(set = 0, binding = 20) buffer B20 { uint x; } b20;
layout(set = 0, binding = 21) buffer B21 { uint x; } b21;
layout(set = 0, binding = 22) buffer B22 { uint x; } b22;
layout(set = 0, binding = 23) buffer B23 { uint x; } b23;
layout(set = 0, binding = 24) buffer B24 { uint x; } b24;
layout(set = 0, binding = 25) buffer B25 { uint x; } b25;
layout(set = 0, binding = 26) buffer B26 { uint x; } b26;
layout(set = 0, binding = 27) buffer B27 { uint x; } b27;
layout(set = 0, binding = 28) buffer B28 { uint x; } b28;
layout(set = 0, binding = 29) buffer B29 { uint x; } b29;
layout(set = 0, binding = 30) buffer B30 { uint x; } b30;
layout(set = 0, binding = 31) buffer B31 { uint x; } b31;
void main() { b0.x = b0.x + b1.x + b2.x + b3.x + b4.x + b5.x + b6.x + b7.x + b8.x + b9.x + b10.x + b11.x + b12.x + b13.x + b14.x + b15.x + b16.x + b17.x + b18.x + b19.x + b20.x + b21.x + b22.x + b23.x + b24.x + b25.x + b26.x + b27.x + b28.x + b29.x + b30.x + b31.x; }
