#version 450
// A user kernel for vkocc barrier-test --shader: the interface of kernels/barrier/barrier_test.comp,
// compiled from a file; <vkocc/device_barrier.glsl> resolves from the copy embedded in the library.
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
    v[dst + i] = v[src + i] * 3u + v[src + j] + r;
    if (!vkocc_device_barrier()) return;
  }
}
