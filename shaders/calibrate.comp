#version 450
// Clock calibration: one invocation spins a dependent integer chain for a requested number of iterations
// and reads the realtime (device) clock and the subgroup clock before and after. The host brackets the
// dispatch with queue timestamps and fits in-shader ticks against queue nanoseconds.
// The 2x32 clock forms are used so the shader needs no shaderInt64.
#ifdef HAS_DEVICE_CLOCK
#extension GL_EXT_shader_realtime_clock : require
#endif
#ifdef HAS_SUBGROUP_CLOCK
#extension GL_ARB_shader_clock : require
#endif
layout(local_size_x = 1) in;

layout(push_constant) uniform PC {
  uint rounds;       // spin length in rounds of 256 dependent steps; host-capped below 65535
  uint seed;
} pc;

// out[0..1] realtime start, [2..3] realtime end, [4..5] subgroup clock start, [6..7] end, [8] sink
layout(std430, binding = 0) buffer Out { uint o[]; };

void main() {
#ifdef HAS_DEVICE_CLOCK
  uvec2 rt0 = clockRealtime2x32EXT();
#endif
#ifdef HAS_SUBGROUP_CLOCK
  uvec2 c0 = clock2x32ARB();
#endif
  uint x = pc.seed;
  // One loop with an unrolled body: lavapipe (gallivm) ends the loops of a shader after 65535
  // iterations in total, so the work per iteration must be large.
#define STEP x = x * 1664525u + 1013904223u; x ^= x >> 13;
#define STEP8 STEP STEP STEP STEP STEP STEP STEP STEP
#define STEP64 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8
  for (uint j = 0u; j < pc.rounds; ++j) {      // bounded: rounds is host-capped
    STEP64 STEP64 STEP64 STEP64
  }
#ifdef HAS_SUBGROUP_CLOCK
  uvec2 c1 = clock2x32ARB();
#endif
#ifdef HAS_DEVICE_CLOCK
  uvec2 rt1 = clockRealtime2x32EXT();
  o[0] = rt0.x; o[1] = rt0.y; o[2] = rt1.x; o[3] = rt1.y;
#endif
#ifdef HAS_SUBGROUP_CLOCK
  o[4] = c0.x; o[5] = c0.y; o[6] = c1.x; o[7] = c1.y;
#endif
  o[8] = x;
}
