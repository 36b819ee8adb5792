#version 450
#extension GL_GOOGLE_include_directive : require
#include <vkocc/no_such.glsl>
layout(local_size_x = 64) in;
void main() {}
