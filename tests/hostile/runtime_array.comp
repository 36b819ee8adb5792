#version 450

layout(local_size_x = 64) in;
#extension GL_EXT_nonuniform_qualifier : require
layout(set = 0, binding = 0) buffer B { uint x; } b[];
void main() { b[nonuniformEXT(gl_LocalInvocationIndex)].x = 1u; }
