#version 450
// Shared-memory histogram with a regular workload per workgroup for dispatch bisection on the pipeline's
// own runtime (vkocc probe --shader --unmodified): every thread bins GRAIN elements. Indices stay inside
// the buffers whatever their size (.length()), since vkocc's dummy buffers are small.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BINS = 256u;
layout(constant_id = 2) const uint GRAIN = 1u;   // elements per thread: sets a workgroup's runtime
layout(std430, set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(std430, set = 0, binding = 1) buffer Hist { uint marker; uint hist[]; };
shared uint local_hist[BINS];

void main() {
  uint lid = gl_LocalInvocationIndex;
  for (uint i = lid; i < BINS; i += gl_WorkGroupSize.x) local_hist[i] = 0u;
  barrier();
  uint mask = (1u << findMSB(max(uint(data.length()), 1u))) - 1u; // a power of two minus 1, below the length
  uint idx = gl_GlobalInvocationID.x;
  uint v = 0u;
  for (uint i = 0u; i < GRAIN; i++) {
    // the next element depends on the last one read: a chain of loads (latency), no division in the loop
    v = data[(idx + i + v) & mask];
    atomicAdd(local_hist[(v + i * 7u + lid) % BINS], 1u);
  }
  barrier();
  uint m = uint(hist.length());
  for (uint i = lid; i < BINS; i += gl_WorkGroupSize.x) atomicAdd(hist[i % m], local_hist[i]);
  if (lid == 0u) marker = 0xC0FFEEu;
}
