#version 450
// Test control for vkocc barrier-test: the shipped kernel with one value off by one per round, which
// the CPU check must report as a wrong result (exit 1), never as a pass.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include <vkocc/device_barrier.glsl>

layout(std430, binding = 1) coherent buffer Data { uint v[]; };
layout(push_constant) uniform PC { uint rounds; } pc;

void main() {
  uint wg = gl_WorkGroupSize.x, n = gl_NumWorkGroups.x * wg, i = gl_GlobalInvocationID.x;
  v[i] = i * 2654435761u + 12345u;
  if (!vkocc_device_barrier_once()) return;
  for (uint r = 1u; r <= pc.rounds; ++r) {
    uint src = ((r - 1u) & 1u) * n, dst = (r & 1u) * n;
    uint j = (i + r * wg + 1u) % n; // another workgroup's value (for n > wg)
    v[dst + i] = v[src + i] * 3u + v[src + j] + r + (i == 5u ? 1u : 0u); // one value off: the check must see it
    if (!vkocc_device_barrier()) return;
  }
}
