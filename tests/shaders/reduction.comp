#version 450
// Tree reduction in shared memory with push constants of its own.
layout(local_size_x = 128) in;
layout(push_constant) uniform PC { uint n; float scale; } pc;
layout(std430, set = 0, binding = 0) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = 1) buffer Out { float sums[]; };
shared float partial[128];

void main() {
  uint lid = gl_LocalInvocationIndex, gid = gl_GlobalInvocationID.x;
  partial[lid] = gid < pc.n ? x[gid] * pc.scale : 0.0;
  barrier();
  for (uint s = 64u; s > 0u; s >>= 1) {
    if (lid < s) partial[lid] += partial[lid + s];
    barrier();
  }
  if (lid == 0u) sums[gl_WorkGroupID.x] = partial[0] + 1.0;
}
