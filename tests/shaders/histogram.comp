#version 450
// Shared-memory histogram: workgroup size and bin count through specialization constants.
// Its real path writes to both buffers (hist and marker), so a run of the user's code is visible.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BINS = 256u;
layout(std430, set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(std430, set = 0, binding = 1) buffer Hist { uint marker; uint hist[]; };
shared uint local_hist[BINS];

void main() {
  uint lid = gl_LocalInvocationIndex;
  for (uint i = lid; i < BINS; i += gl_WorkGroupSize.x) local_hist[i] = 0u;
  barrier();
  uint v = data[gl_GlobalInvocationID.x];
  atomicAdd(local_hist[v % BINS], 1u);
  barrier();
  for (uint i = lid; i < BINS; i += gl_WorkGroupSize.x) atomicAdd(hist[i], local_hist[i] + 1u);
  if (lid == 0u) marker = 0xC0FFEEu;
}
