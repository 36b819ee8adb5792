#version 450
// Persistent histogram (the device-wide barrier's second demonstration): BINS bins of uint keys, one shared-memory histogram per
// workgroup, tiles of TILE = workgroup size x GRAIN keys taken from the atomic work counter until none is
// left, then one flush of the shared bins into the global ones. The workgroup count is the only
// parameter left to choose: the host dispatches P of this pipeline, or any other count to compare.
// binding 0: state (work counter), binding 1: keys, binding 2: bins; constant_id 0: workgroup size,
// constant_id 1: bins, constant_id 2: grain; push { n }.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BINS = 256u;
layout(constant_id = 2) const uint GRAIN = 16u;
#include <vkocc/persistent.glsl>

layout(std430, binding = 1) readonly buffer Keys { uint key[]; };
layout(std430, binding = 2) buffer Bins { uint bins[]; };
layout(push_constant) uniform PC { uint n; } pc;
shared uint sh[BINS];

void main() {
  uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
  for (uint b = lid; b < BINS; b += wg) sh[b] = 0u;
  uint tile = wg * GRAIN, tiles = (pc.n + tile - 1u) / tile;
  for (uint t = vkocc_next_item(); t < tiles; t = vkocc_next_item()) {
    uint base = t * tile;
    for (uint k = 0u; k < GRAIN; ++k) {
      uint i = base + k * wg + lid;
      if (i < pc.n) atomicAdd(sh[key[i] % BINS], 1u);
    }
  }
  barrier();
  for (uint b = lid; b < BINS; b += wg)
    if (sh[b] != 0u) atomicAdd(bins[b], sh[b]);
}
