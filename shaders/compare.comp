#version 450
// Validation on the device (core/compare.c): the actual output against the expected one, element by element,
// leaving only a mismatch count, the first bad index and (phase 1) the two values there. The rule is the CPU
// harness's, decided on flags read from the bits so that no NaN or infinity takes part in arithmetic (the
// driver's float controls need not preserve them):
//   exact: the elements' bits differ
//   per element (ABS, REL): d = inf when exactly one is NaN or either is infinite, 0 when both are NaN, else
//   |x - y| in double; lim = th (ABS; REL where y == 0), th * |y| (REL); bad = !(d <= lim) in IEEE terms
//   SUM: the sum of d (per workgroup, in double; phase 1 adds the partials in workgroup order), inf flagged apart
// HAS_F64 (shaderFloat64 and shaderInt64) is needed for every mode but exact; WITH_SUM (with HAS_F64) adds the
// summed mode, apart because its barriers cost even where they do not run (lavapipe: 5x for the exact mode).
#ifdef HAS_F64
#extension GL_ARB_gpu_shader_int64 : require
#endif
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Actual { uint a[]; };
layout(std430, binding = 1) readonly buffer Expected { uint e[]; };
// r[0] mismatches, r[1] first bad index (0xffffffff: none), r[2] an element was infinite (SUM), r[4..5] the
// actual bits at the first bad index, r[6..7] the expected ones, r[8..9] the sum (double bits), r[16 + 2g ..]
// workgroup g's partial sum
layout(std430, binding = 2) buffer Result { uint r[]; };

layout(push_constant) uniform PC {
  uint n;        // elements
  uint elem;     // core/compare.h: core_elem
  uint mode;     // 0 exact, 1 abs, 2 rel, 3 sum
  uint phase;    // 0 compare, 1 fetch the values at the first bad index (and add the partial sums)
  uint th_lo, th_hi; // the threshold's double bits
  uint groups;   // workgroups of phase 0
} pc;

// core_elem: U8 I8 U16 I16 U32 I32 U64 I64 F32 F64 BOOL32
uint elem_bytes(uint t) { return t <= 1u ? 1u : t <= 3u ? 2u : (t == 6u || t == 7u || t == 9u) ? 8u : 4u; }

// the raw bits of element k (low word; hi for 8-byte elements), zero-extended
uvec2 load(bool actual, uint k, uint sz) {
  if (sz == 8u) return actual ? uvec2(a[2u * k], a[2u * k + 1u]) : uvec2(e[2u * k], e[2u * k + 1u]);
  if (sz == 4u) return uvec2(actual ? a[k] : e[k], 0u);
  uint per = 4u / sz, w = actual ? a[k / per] : e[k / per];
  uint sh = (k % per) * 8u * sz;
  return uvec2((w >> sh) & (sz == 1u ? 0xffu : 0xffffu), 0u);
}

#ifdef WITH_SUM
shared double s_sum[256];
#endif
#ifdef HAS_F64

// value, NaN, infinity and sign of an element
struct val { double v; bool nan, inf, neg; };

double pow2(int e) { return packDouble2x32(uvec2(0u, uint(e + 1023) << 20)); }

val decode(uvec2 b, uint t) {
  val o;
  o.nan = false, o.inf = false, o.neg = false;
  if (t == 8u) { // float32, converted exactly (denormals included) from its bits
    uint w = b.x, ex = (w >> 23) & 0xffu, m = w & 0x7fffffu;
    o.neg = (w >> 31) != 0u;
    if (ex == 255u) { o.nan = m != 0u; o.inf = m == 0u; o.v = 0.0; return o; }
    double mag = ex == 0u ? double(m) * pow2(-149)
                          : packDouble2x32(uvec2(m << 29, ((ex + 896u) << 20) | (m >> 3)));
    o.v = o.neg ? -mag : mag;
    return o;
  }
  if (t == 9u) {
    uint hi = b.y & 0x7fffffffu;
    o.neg = (b.y >> 31) != 0u;
    if (hi >= 0x7ff00000u) { o.nan = hi > 0x7ff00000u || b.x != 0u; o.inf = !o.nan; o.v = 0.0; return o; }
    o.v = packDouble2x32(b);
    return o;
  }
  if (t == 0u || t == 2u || t == 4u) o.v = double(b.x);
  else if (t == 1u) o.v = double(int(b.x << 24) >> 24);
  else if (t == 3u) o.v = double(int(b.x << 16) >> 16);
  else if (t == 5u) o.v = double(int(b.x));
  else if (t == 6u) o.v = double(packUint2x32(b));
  else if (t == 7u) o.v = double(int64_t(packUint2x32(b)));
  else o.v = b.x != 0u ? 1.0 : 0.0; // bool: x != 0
  o.neg = o.v < 0.0;
  return o;
}

// not NaN or infinite (integers always)
bool finite_bits(uvec2 b, uint t) {
  if (t == 8u) return (b.x & 0x7f800000u) != 0x7f800000u;
  if (t == 9u) return (b.y & 0x7ff00000u) != 0x7ff00000u;
  return true;
}

bool is_inf(double x) { uvec2 b = unpackDouble2x32(x); return (b.y & 0x7fffffffu) == 0x7ff00000u && b.x == 0u; }

// *d / *dinf: the difference; returns whether the element is bad in mode
bool judge(val x, val y, uint mode, double th, out double d, out bool dinf) {
  d = 0.0;
  dinf = false;
  if (x.nan != y.nan) dinf = true;
  else if (x.nan) d = 0.0;
  else if (x.inf || y.inf) dinf = true;
  else {
    d = abs(x.v - y.v);
    dinf = is_inf(d);
  }
  if (mode == 3u) return dinf || d > 0.0;
  // lim: finite, +inf, or NaN / -inf (never satisfied)
  bool lim_pos_inf = false, lim_never = false;
  double lim = th;
  if (mode == 2u && !(!y.nan && !y.inf && y.v == 0.0)) {
    if (y.nan) lim_never = true;
    else if (y.inf) { if (th > 0.0) lim_pos_inf = true; else lim_never = true; }
    else {
      lim = th * abs(y.v);
      if (is_inf(lim)) lim_pos_inf = true;
    }
  }
  if (lim_never) return true;
  if (dinf) return !lim_pos_inf;
  if (lim_pos_inf) return false;
  return !(d <= lim);
}
#endif

void main() {
  uint sz = elem_bytes(pc.elem);
  if (pc.phase == 1u) {
    if (gl_LocalInvocationID.x != 0u) return;
    uint k = r[1];
    if (k != 0xffffffffu) {
      uvec2 x = load(true, k, sz), y = load(false, k, sz);
      r[4] = x.x, r[5] = x.y, r[6] = y.x, r[7] = y.y;
    }
#ifdef HAS_F64
    if (pc.mode == 3u) {
      double s = 0.0;
      for (uint g = 0u; g < pc.groups; ++g) s += packDouble2x32(uvec2(r[16u + 2u * g], r[17u + 2u * g]));
      uvec2 b = unpackDouble2x32(s);
      r[8] = b.x, r[9] = b.y;
    }
#endif
    return;
  }
  uint lid = gl_LocalInvocationID.x;
  uint count = 0u, first = 0xffffffffu;
  bool any_inf = false;
#ifdef HAS_F64
  double th = packDouble2x32(uvec2(pc.th_lo, pc.th_hi)), sum = 0.0;
#endif
  uint stride = gl_NumWorkGroups.x * 256u;
  // bounded: n / stride steps (the host keeps the grid large enough for lavapipe's loop cap)
  for (uint k = gl_WorkGroupID.x * 256u + lid; k < pc.n; k += stride) {
    uvec2 x = load(true, k, sz), y = load(false, k, sz);
    bool bad;
    if (pc.mode == 0u) bad = x != y;
#ifdef HAS_F64
    else if (x == y && pc.mode != 3u && finite_bits(y, pc.elem) && th >= 0.0) bad = false; // equal: d = 0 <= lim
#endif
    else {
#ifdef HAS_F64
      double d;
      bool dinf;
      bad = judge(decode(x, pc.elem), decode(y, pc.elem), pc.mode, th, d, dinf);
      if (pc.mode == 3u) {
        if (dinf) any_inf = true;
        else sum += d;
      }
#else
      bad = x != y;
#endif
    }
    if (bad) {
      count++;
      if (first == 0xffffffffu) first = k;
    }
  }
  // a mismatch is rare where it matters (a right output has none): global atomics only from the invocations
  // that saw one, and no barrier outside SUM (each costs a coroutine switch per invocation on lavapipe)
  if (count != 0u) {
    atomicAdd(r[0], count);
    atomicMin(r[1], first);
  }
  if (any_inf) atomicOr(r[2], 1u);
#ifdef WITH_SUM
  if (pc.mode == 3u) { // uniform: the barriers are in uniform control flow
    s_sum[lid] = sum;
    barrier();
    for (uint h = 128u; h > 0u; h >>= 1) {
      if (lid < h) s_sum[lid] += s_sum[lid + h];
      barrier();
    }
    if (lid == 0u) {
      uvec2 b = unpackDouble2x32(s_sum[0]);
      r[16u + 2u * gl_WorkGroupID.x] = b.x;
      r[17u + 2u * gl_WorkGroupID.x] = b.y;
    }
  }
#endif
}
