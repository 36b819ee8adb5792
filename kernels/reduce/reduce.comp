#version 450
// reduce: the sum of n u32 (exact, modulo 2^32) or f32 values (TYPE_F32) in one dispatch.
// Each workgroup sums its wg * elements_per_thread elements (access strided: element i of an invocation at
// i * wg + lid, so a workgroup's loads are consecutive; contiguous: elements_per_thread consecutive elements per
// invocation), reduces them in shared memory (variant shared_tree) or with subgroupAdd (variant subgroup), and
// writes a partial; the last workgroup to finish (an atomic ticket) sums the partials into result.
// -Dvariant=NAME and -Daccess=NAME are tuning parameters (the built-in spec reduce.t1.json); specialization
// constants: 0 workgroup size (a power of two), 1 elements_per_thread. Bindings: 0 the input, 1 the sum, 2 the
// ticket and partials (zero before each run). Self-contained (no #include).
#define shared_tree 0
#define subgroup 1
#define strided 0
#define contiguous 1
#if defined(variant) && variant == subgroup
#define VARIANT_SUBGROUP
#endif
#if defined(access) && access == contiguous
#define CONTIGUOUS
#endif
#ifdef VARIANT_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint elements_per_thread = 1;
#ifdef TYPE_F32
#define T float
#define ZERO 0.0
#else
#define T uint
#define ZERO 0u
#endif
layout(std430, binding = 0) readonly buffer Input { T data[]; } inp;
layout(std430, binding = 1) writeonly buffer Sum { T result; } sum_out;
layout(std430, binding = 2) coherent buffer Scratch { uint ticket; T partials[]; } res;
layout(push_constant) uniform Push { uint n; } pc;
shared T red[gl_WorkGroupSize.x];
shared bool is_last;

// The workgroup's sum, valid in invocation 0.
T workgroup_sum(T v) {
  uint lid = gl_LocalInvocationID.x;
#ifdef VARIANT_SUBGROUP
  T s = subgroupAdd(v);
  if (subgroupElect()) red[gl_SubgroupID] = s;
  barrier();
  T t = ZERO;
  if (gl_SubgroupID == 0u) {
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) t += red[i];
    t = subgroupAdd(t);
  }
  barrier();  // red is reused by the next call
  return t;
#else
  red[lid] = v;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2u; s > 0u; s >>= 1u) {
    if (lid < s) red[lid] += red[lid + s];
    barrier();
  }
  T t = red[0];
  barrier();
  return t;
#endif
}

void main() {
  uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  uint base = gl_WorkGroupID.x * wg * elements_per_thread;
  T acc = ZERO;
  for (uint i = 0u; i < elements_per_thread; i++) {
#ifdef CONTIGUOUS
    uint idx = base + lid * elements_per_thread + i;
#else
    uint idx = base + i * wg + lid;
#endif
    if (idx < pc.n) acc += inp.data[idx];
  }
  T total = workgroup_sum(acc);
  if (lid == 0u) {
    res.partials[gl_WorkGroupID.x] = total;
    memoryBarrierBuffer();  // the partial is visible before the ticket says so
    is_last = atomicAdd(res.ticket, 1u) == gl_NumWorkGroups.x - 1u;
  }
  barrier();
  if (!is_last) return;
  memoryBarrierBuffer();
  T a = ZERO;
  for (uint i = lid; i < gl_NumWorkGroups.x; i += wg) a += res.partials[i];
  T sum = workgroup_sum(a);
  if (lid == 0u) sum_out.result = sum;
}
