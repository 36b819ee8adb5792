#version 450
// Multi-phase demonstration: STEPS steps of a 3-point stencil on a ring of n uints,
//   v'[i] = 3 v[i-1] + 5 v[i] + 7 v[i+1] + step   (mod 2^32: exact, any stale read changes the result),
// ping-ponging between the halves of v[2 n]. FUSED (define): all steps in one dispatch of P workgroups with
// a device-wide barrier between steps (grid-stride loop over the ring); otherwise one step per dispatch
// (the host records STEPS dispatches with pipeline barriers between them).
// binding 0: barrier state, binding 1: v; constant_id 0: workgroup size; push { n, steps, first }.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include <vkocc/persistent.glsl>

#ifdef FUSED
layout(std430, binding = 1) coherent buffer Data { uint v[]; };
#else
layout(std430, binding = 1) buffer Data { uint v[]; };
#endif
layout(push_constant) uniform PC { uint n; uint steps; uint first; } pc;

void step_(uint s) {
  uint n = pc.n, src = (s & 1u) * n, dst = ((s + 1u) & 1u) * n;
  VKOCC_GRID_STRIDE_LOOP(i, n) {
    uint l = i == 0u ? n - 1u : i - 1u, r = i + 1u == n ? 0u : i + 1u;
    v[dst + i] = 3u * v[src + l] + 5u * v[src + i] + 7u * v[src + r] + s;
  }
}

void main() {
#ifdef FUSED
  for (uint s = 0u; s < pc.steps; ++s) {
    step_(pc.first + s);
    if (s + 1u < pc.steps && !vkocc_device_barrier()) return;
  }
#else
  step_(pc.first);
#endif
}
