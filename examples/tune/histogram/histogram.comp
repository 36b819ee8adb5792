#version 450
#extension GL_EXT_control_flow_attributes : enable
// 256-bin histogram of N uint32 values (bin = value >> 24), persistent: the T1 file launches P * BLOCKS_PER_P
// workgroups (P measured by vkocc on this very pipeline), each looping over the input with a grid stride.
// Each workgroup counts into COPIES privatized copies of the bins in shared memory (invocation i uses copy
// i % COPIES) by shared atomics, then adds the copies' sums into the 256 output words by global atomics.
// Every tuning parameter is a specialization constant (one SPIR-V module, no recompile per configuration):
//   WG      invocations per workgroup (local_size_x_id)
//   ITEMS   loads per invocation per tile (a tile is WG x ITEMS loads, consecutive invocations on consecutive loads)
//   VEC     words per load: 1, 2 or 4 (the input is read through a uvec4 view)
//   UNROLL  loads issued before their atomics (ITEMS is a multiple of it)
//   COPIES  privatized copies of the 256 bins (1 KiB each)
//   LAYOUT  0: copy-major (bins[copy * 256 + bin]), 1: interleaved (bins[bin * COPIES + copy])
// BLOCKS_PER_P reaches the kernel through the launch only.
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 256;
layout(constant_id = 1) const uint ITEMS = 4;
layout(constant_id = 2) const uint VEC = 1;
layout(constant_id = 3) const uint UNROLL = 1;
layout(constant_id = 4) const uint COPIES = 1;
layout(constant_id = 5) const uint LAYOUT = 0;

layout(std430, set = 0, binding = 0) readonly buffer In { uvec4 a[]; };
layout(std430, set = 0, binding = 1) buffer Hist { uint hist[]; };
layout(push_constant) uniform Push { uint n; };   // uint32 elements (a multiple of 4)

shared uint bins[256 * COPIES];

uint slot(uint bin, uint copy) { return LAYOUT == 0 ? copy * 256u + bin : bin * COPIES + copy; }

// load i of the input seen as n / VEC vectors of VEC words (the unused components are not counted)
uvec4 load(uint i) {
  if (VEC == 4) return a[i];
  if (VEC == 2) {
    uint q = i >> 1, h = (i & 1u) * 2u;
    return uvec4(a[q][h], a[q][h + 1u], 0u, 0u);
  }
  return uvec4(a[i >> 2][i & 3u], 0u, 0u, 0u);
}

void main() {
  uint lid = gl_LocalInvocationID.x, copy = lid % COPIES;
  for (uint j = lid; j < 256u * COPIES; j += WG) bins[j] = 0u;
  barrier();
  uint nv = n / VEC, tile = WG * ITEMS, stride = gl_NumWorkGroups.x * tile;
  for (uint base = gl_WorkGroupID.x * tile; base < nv; base += stride) {
    for (uint k = 0u; k < ITEMS; k += UNROLL) {
      uvec4 v[4];
      [[unroll]] for (uint u = 0u; u < UNROLL; u++) {
        uint i = base + (k + u) * WG + lid;
        v[u] = i < nv ? load(i) : uvec4(0u);
      }
      [[unroll]] for (uint u = 0u; u < UNROLL; u++) {
        if (base + (k + u) * WG + lid < nv)
          [[unroll]] for (uint c = 0u; c < VEC; c++) atomicAdd(bins[slot(v[u][c] >> 24, copy)], 1u);
      }
    }
  }
  barrier();
  for (uint b = lid; b < 256u; b += WG) {
    uint s = 0u;
    for (uint c = 0u; c < COPIES; c++) s += bins[slot(b, c)];
    if (s != 0u) atomicAdd(hist[b], s);
  }
}
