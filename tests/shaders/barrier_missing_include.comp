#version 450
// Test input: an include vkocc does not ship (barrier-test must refuse it with exit 2).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include <vkocc/no_such.glsl>
void main() {}
