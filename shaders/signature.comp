#version 450
// The architecture signature's microbenchmarks: one workgroup, timed in the subgroup clock (clockARB: SM
// cycles on NVIDIA), so every value is per SM and per clock, independent of the SM count, the clock rate and
// the memory system. The host runs each mode at two lengths and takes the slope (fixed costs cancel).
//   mode 0  dependent FP32 FMA chain (invocation 0 alone): cycles per FMA = latency
//   mode 1  dependent shared-memory load chain (invocation 0 alone): cycles per load = latency
//   mode 2  FP32 FMA, 8 independent chains per invocation, the whole workgroup: throughput
//   mode 3  INT32 multiply-add, the same shape
//   mode 4  FP64 FMA (built with SIG_F64; needs shaderFloat64)
//   mode 5  FP16 FMA on f16vec2 (built with SIG_F16; needs shaderFloat16): two operations per lane
// Every invocation writes its own start and end (the clock of its subgroup); the host takes the median.
// Loops are bounded by the host-capped `rounds` (lavapipe ends a shader's loops after 65535 iterations).
#extension GL_ARB_shader_clock : require
#ifdef SIG_F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint MODE = 0u;

layout(push_constant) uniform PC {
  uint rounds;   // 64 operations per invocation per round
  uint stride;   // the chase's step through the shared array (odd: one cycle through all of it)
  float a, b;    // FMA operands the compiler cannot fold (the host passes 1.0000001 and 1e-7)
} pc;

// o[4*i .. 4*i+3]: start lo, start hi, end lo, end hi of invocation i; o[4*W]: a sink
layout(std430, binding = 0) buffer Out { uint o[]; };

shared uint chase[256];

void main() {
  uint i = gl_LocalInvocationIndex;
  uint W = gl_WorkGroupSize.x;
  uint rounds = min(pc.rounds, 60000u);
  uint sink = 0u;
  if (MODE == 1u && i == 0u) {
    for (uint k = 0u; k < 256u; ++k) chase[k] = (k + pc.stride) & 255u;
  }
  barrier();
  if (MODE <= 1u && i != 0u) return; // the latency modes run one invocation
  uvec2 c0 = clock2x32ARB();
  if (MODE == 0u) {
    float x = pc.b;
#define F x = fma(x, pc.a, pc.b);
#define F8 F F F F F F F F
    for (uint r = 0u; r < rounds; ++r) { F8 F8 F8 F8 F8 F8 F8 F8 }
    sink = floatBitsToUint(x);
  } else if (MODE == 1u) {
    uint j = pc.stride & 255u;
#define L j = chase[j];
#define L8 L L L L L L L L
    for (uint r = 0u; r < rounds; ++r) { L8 L8 L8 L8 L8 L8 L8 L8 }
    sink = j;
  } else if (MODE == 2u) {
    float x0 = float(i), x1 = x0 + 1.0, x2 = x0 + 2.0, x3 = x0 + 3.0, x4 = x0 + 4.0, x5 = x0 + 5.0,
          x6 = x0 + 6.0, x7 = x0 + 7.0;
#define T x0 = fma(x0, pc.a, pc.b); x1 = fma(x1, pc.a, pc.b); x2 = fma(x2, pc.a, pc.b); x3 = fma(x3, pc.a, pc.b); \
          x4 = fma(x4, pc.a, pc.b); x5 = fma(x5, pc.a, pc.b); x6 = fma(x6, pc.a, pc.b); x7 = fma(x7, pc.a, pc.b);
    for (uint r = 0u; r < rounds; ++r) { T T T T T T T T }
    sink = floatBitsToUint(x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7);
  } else if (MODE == 3u) {
    uint c = floatBitsToUint(pc.b) | 1u;
    uint x0 = i, x1 = i + 1u, x2 = i + 2u, x3 = i + 3u, x4 = i + 4u, x5 = i + 5u, x6 = i + 6u, x7 = i + 7u;
// x * x + c, not x * m + c: an affine chain could be collapsed (integer arithmetic reassociates)
#define I x0 = x0 * x0 + c; x1 = x1 * x1 + c; x2 = x2 * x2 + c; x3 = x3 * x3 + c; \
          x4 = x4 * x4 + c; x5 = x5 * x5 + c; x6 = x6 * x6 + c; x7 = x7 * x7 + c;
    for (uint r = 0u; r < rounds; ++r) { I I I I I I I I }
    sink = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7;
  }
#ifdef SIG_F64
  else if (MODE == 4u) {
    double a = double(pc.a), b = double(pc.b);
    double x0 = double(i), x1 = x0 + 1.0, x2 = x0 + 2.0, x3 = x0 + 3.0, x4 = x0 + 4.0, x5 = x0 + 5.0,
           x6 = x0 + 6.0, x7 = x0 + 7.0;
#define D x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b); \
          x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);
    for (uint r = 0u; r < rounds; ++r) { D D D D D D D D }
    sink = floatBitsToUint(float(x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7));
  }
#endif
#ifdef SIG_F16
  else if (MODE == 5u) {
    f16vec2 a = f16vec2(float16_t(pc.a)), b = f16vec2(float16_t(pc.b));
    f16vec2 x0 = f16vec2(float16_t(i & 7u)), x1 = x0 + a, x2 = x1 + a, x3 = x2 + a, x4 = x3 + a, x5 = x4 + a,
            x6 = x5 + a, x7 = x6 + a;
#define H x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b); \
          x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);
    for (uint r = 0u; r < rounds; ++r) { H H H H H H H H }
    f16vec2 s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
    sink = floatBitsToUint(float(s.x) + float(s.y));
  }
#endif
  uvec2 c1 = clock2x32ARB();
  o[4u * i] = c0.x; o[4u * i + 1u] = c0.y; o[4u * i + 2u] = c1.x; o[4u * i + 3u] = c1.y;
  if (sink == 0x9e3779b9u) o[4u * W] = sink; // keeps the chains alive
}
