#version 450
#extension GL_EXT_control_flow_attributes : enable
// Persistent sum of N uint32 values (mod 2^32): exactly as many workgroups as the device holds at once
// (the T1 file launches P * BLOCKS_PER_P of them, P measured by vkocc on this very pipeline), each looping
// over the input with a grid stride, then one atomic add per workgroup into the single output word.
// There is no workgroup-count parameter: the launch is defined from P.
// WG, ITEMS and UNROLL are specialization constants; VEC (loads of 1, 2 or 4 words) and TREE (shared-memory
// tree or shared atomics for the workgroup's partial sums) are -D defines.
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 256;
layout(constant_id = 1) const uint ITEMS = 4;
layout(constant_id = 2) const uint UNROLL = 1;

#if VEC == 4
#define VT uvec4
#define VSUM(v) (v.x + v.y + v.z + v.w)
#elif VEC == 2
#define VT uvec2
#define VSUM(v) (v.x + v.y)
#else
#define VT uint
#define VSUM(v) (v)
#endif

layout(std430, set = 0, binding = 0) readonly buffer In { VT a[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint total; };
layout(push_constant) uniform Push { uint n; };   // uint32 elements (a multiple of 4)

#if TREE
shared uint part[WG];
#else
shared uint acc;
#endif

void main() {
  uint lid = gl_LocalInvocationID.x, nv = n / VEC;
  uint stride = gl_NumWorkGroups.x * WG * ITEMS;
  uint sum = 0;
  for (uint base = gl_WorkGroupID.x * WG * ITEMS; base < nv; base += stride) {
    [[unroll]] for (uint u = 0; u < UNROLL; u++)
      for (uint k = u; k < ITEMS; k += UNROLL) {
        uint i = base + k * WG + lid;
        if (i < nv) sum += VSUM(a[i]);
      }
  }
#if TREE
  part[lid] = sum;
  barrier();
  for (uint s = WG / 2; s > 0; s >>= 1) {
    if (lid < s) part[lid] += part[lid + s];
    barrier();
  }
  if (lid == 0) atomicAdd(total, part[0]);
#else
  if (lid == 0) acc = 0;
  barrier();
  atomicAdd(acc, sum);
  barrier();
  if (lid == 0) atomicAdd(total, acc);
#endif
}
