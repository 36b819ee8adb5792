#version 450
#extension GL_GOOGLE_include_directive : require
// Tree reduction in shared memory with push constants of its own; WG can be set with --define.
#ifndef WG
#define WG 128
#endif
#include "reduce_op.glsl"
layout(local_size_x = WG) in;
layout(push_constant) uniform PC { uint n; float scale; } pc;
layout(std430, set = 0, binding = 0) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = 1) buffer Out { float sums[]; };
shared float partial[WG];

void main() {
  uint lid = gl_LocalInvocationIndex, gid = gl_GlobalInvocationID.x;
  partial[lid] = gid < pc.n ? x[gid] * pc.scale : 0.0;
  barrier();
  for (uint s = WG / 2u; s > 0u; s >>= 1) {
    if (lid < s) partial[lid] = reduce_op(partial[lid], partial[lid + s]);
    barrier();
  }
  if (lid == 0u) sums[gl_WorkGroupID.x] = partial[0] + 1.0;
}
