#version 450
// histogram: 256 bins of u32 input, bin = value >> 24 (the full u32 range in 256 equal bins).
// Variants (-Dvariant=NAME, the tuning parameter; or one VARIANT_* define): global_atomics (VARIANT_GMEM)
// global-memory atomics; shared_bins shared-memory bins with `copies` privatized copies, merged into the global
// bins at the end; persistent (VARIANT_PERSISTENT) the shared variant over a grid-stride loop, the workgroup
// count chosen by the host (a tuning parameter that reaches the kernel through the launch only).
// Tuning parameters are specialization constants named as in the built-in spec (histogram.t1.json): 0 the
// workgroup size, 1 grain (items per thread per tile), 2 copies. Self-contained on purpose (no #include):
// embedded into libvkocc as text.
#define global_atomics 0
#define shared_bins 1
#define persistent 2
#ifdef variant
#if variant == global_atomics
#define VARIANT_GMEM
#elif variant == persistent
#define VARIANT_PERSISTENT
#endif
#endif
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint grain = 1;
layout(constant_id = 2) const uint copies = 1;
layout(std430, binding = 0) readonly buffer Input { uint data[]; } inp;
layout(std430, binding = 1) buffer Bins { uint bins[256]; } hist;
layout(push_constant) uniform Push { uint n; } pc;
const uint NUM_BINS = 256u;

#ifdef VARIANT_GMEM
void main() {
  uint wg = gl_WorkGroupSize.x;
  uint base = gl_WorkGroupID.x * wg * grain + gl_LocalInvocationID.x;
  for (uint i = 0u; i < grain; i++) {
    uint idx = base + i * wg;  // consecutive invocations read consecutive words
    if (idx < pc.n) atomicAdd(hist.bins[inp.data[idx] >> 24], 1u);
  }
}
#else
shared uint s_hist[NUM_BINS * copies];
void main() {
  uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  for (uint i = lid; i < NUM_BINS * copies; i += wg) s_hist[i] = 0u;
  barrier();
  uint off = (lid % copies) * NUM_BINS;  // invocations spread over the copies: fewer collisions per bin
#ifdef VARIANT_PERSISTENT
  uint stride = gl_NumWorkGroups.x * wg * grain;
  for (uint tile = gl_WorkGroupID.x * wg * grain; tile < pc.n; tile += stride) {
#else
  {
    uint tile = gl_WorkGroupID.x * wg * grain;
#endif
    for (uint i = 0u; i < grain; i++) {
      uint idx = tile + i * wg + lid;
      if (idx < pc.n) atomicAdd(s_hist[off + (inp.data[idx] >> 24)], 1u);
    }
  }
  barrier();
  for (uint b = lid; b < NUM_BINS; b += wg) {
    uint sum = 0u;
    for (uint c = 0u; c < copies; c++) sum += s_hist[c * NUM_BINS + b];
    if (sum != 0u) atomicAdd(hist.bins[b], sum);
  }
}
#endif
