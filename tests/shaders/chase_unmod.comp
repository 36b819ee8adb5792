#version 450
// A latency-bound workload for `probe --shader --unmodified` (P from the pipeline's own runtime):
// invocation 0 of each workgroup walks a dependent chain of ROUNDS loads through global and shared memory,
// the rest of the workgroup waits at a barrier, so a workgroup's runtime is the same whether it runs alone
// or beside P - 1 others, and steps up only when a wave more is needed. With vkocc's zero-filled dummy
// buffers the chain stays at index 0 (cached), which keeps it latency-bound.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint WORDS = 1024u;   // shared array length (4 bytes each)
layout(constant_id = 2) const uint ROUNDS = 16384u; // dependent loads per workgroup
layout(std430, binding = 0) readonly buffer Next { uint next[]; };
layout(std430, binding = 1) buffer Out { uint result[]; };
shared uint s[WORDS];

void main() {
  uint lid = gl_LocalInvocationIndex;
  for (uint i = lid; i < WORDS; i += gl_WorkGroupSize.x) s[i] = 0u;
  barrier();
  if (lid == 0u) {
    uint n = max(uint(next.length()), 1u), idx = 0u;
    for (uint r = 0u; r < ROUNDS; ++r) idx = next[idx % n] + s[idx % WORDS];
    result[gl_WorkGroupID.x % max(uint(result.length()), 1u)] = idx;
  }
  barrier();
}
