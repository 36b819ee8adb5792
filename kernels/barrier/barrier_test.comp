#version 450
// The barrier test kernel (`vkocc barrier-test`): ROUNDS exchanges of values between workgroups, each
// behind a device-wide barrier, so a barrier that let a workgroup through early gives a wrong result.
// A shader given with --shader must keep this interface and compute the same values:
//   binding 0: the barrier state (vkocc/device_barrier.glsl), binding 1: uint v[2 n] (n = groups x wg),
//   constant_id 0: workgroup size, push constant { uint rounds; }.
// Result: round r (1..rounds) writes v[(r & 1) n + i] = v'[i] * 3 + v'[(i + r * wg + 1) % n] + r from
// round r-1's values v' (round 0: i * 2654435761 + 12345, written by the kernel before a single-use
// barrier); the host compares with the same recurrence on the CPU.
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
