#version 450
#extension GL_GOOGLE_include_directive : require
#include "include_self.glsl"
layout(local_size_x = 64) in;
void main() {}
