#version 450
// Carveout variants: shaders/probe.comp (mode 0, device clock) with each feature behind a
// switch, so one feature at a time can be taken away. Built with no switch it is the probe's sleep path.
//   CLK64       one 64-bit clockRealtimeEXT() read instead of clockRealtime2x32EXT()
//   NO_ALU      no 128-step ALU block in the sleep loop (the loop only reads the clock)
//   NO_CHASE    no second buffer (binding 1) and no pointer-chase path
//   NO_MODE     no branch on pc.mode (always sleep)
//   NO_FILL     no loop that fills the shared array (the barrier after it stays)
//   NO_BAR1     no barrier after the fill
//   NO_BAR2     no barrier before the final shared read
//   READ_LID    the final read indexes sdata[lid % N] (no hash with the push-constant key)
//   NO_READ     no final read of the shared array
//   NO_PUSH     parameters from a storage buffer (binding 2) instead of push constants
//   LIT_WORDS=n shared array length as a literal instead of specialization constant 1
// Every wait is bounded by time and by iteration count (max_rounds).
#extension GL_EXT_shader_realtime_clock : require
#ifdef CLK64
#extension GL_ARB_gpu_shader_int64 : require
#endif
layout(local_size_x_id = 0) in;
#ifdef LIT_WORDS
const uint SHMEM_WORDS = LIT_WORDS;
#else
layout(constant_id = 1) const uint SHMEM_WORDS = 1u;
#endif
#define STEP x = x * 1664525u + 1013904223u; x ^= x >> 13;
#define STEP8 STEP STEP STEP STEP STEP STEP STEP STEP
#define HOP idx = next[idx];
#define HOP8 HOP HOP HOP HOP HOP HOP HOP HOP

struct Params { uint mode, sleep_ticks, max_rounds, chase_rounds, chase_mask, key; };
#ifdef NO_PUSH
layout(std430, binding = 2) readonly buffer ParamBuf { Params pc; };
#else
layout(push_constant) uniform PC { Params pc; };
#endif

layout(std430, binding = 0) buffer Records { uint rec[]; };
#ifndef NO_CHASE
layout(std430, binding = 1) readonly buffer Chase { uint next[]; };
#endif

shared uint sdata[SHMEM_WORDS];

void main() {
  uint wg = gl_WorkGroupID.x;
  uint lid = gl_LocalInvocationIndex;
#ifndef NO_FILL
  for (uint i = lid; i < SHMEM_WORDS; i += gl_WorkGroupSize.x) sdata[i] = i + 1u;
#endif
#ifndef NO_BAR1
  barrier();
#endif
  if (lid == 0u) {
    uint flags = 1u, iters = 0u, sink = 0u;
#ifdef CLK64
    uint64_t c0 = clockRealtimeEXT(), c1 = c0;
#define T0 uvec2(uint(c0), uint(c0 >> 32))
#define T1 uvec2(uint(c1), uint(c1 >> 32))
#else
    uvec2 t0 = clockRealtime2x32EXT();
    uvec2 t1 = t0;
#define T0 t0
#define T1 t1
#endif
#ifndef NO_MODE
    if (pc.mode == 0u)
#endif
    {
      bool done = false;
      uint x = pc.key;
      for (uint r = 0u; r < pc.max_rounds; ++r) {
        ++iters;
#ifdef CLK64
        c1 = clockRealtimeEXT();
        if ((c1 - c0) >= uint64_t(pc.sleep_ticks)) { done = true; break; }
#else
        t1 = clockRealtime2x32EXT();
        if ((t1.x - t0.x) >= pc.sleep_ticks) { done = true; break; }
#endif
#ifndef NO_ALU
        STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8
        STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8
#endif
      }
      sink = x;
      if (!done) flags |= 2u;
    }
#if !defined(NO_CHASE) && !defined(NO_MODE)
    if (pc.mode == 1u) {
      uint idx = wg & pc.chase_mask;
      for (uint r = 0u; r < pc.chase_rounds; ++r) { HOP8 HOP8 }
      iters = pc.chase_rounds;
      sink = idx;
    }
#endif
    uint b = wg * 8u;
    rec[b + 0u] = T0.x; rec[b + 1u] = T0.y; rec[b + 2u] = T1.x; rec[b + 3u] = T1.y;
    rec[b + 5u] = iters; rec[b + 6u] = sink; rec[b + 4u] = flags;
  }
#ifndef NO_BAR2
  barrier();
#endif
#ifndef NO_READ
#ifdef READ_LID
  uint v = sdata[lid % SHMEM_WORDS];
#else
  uint v = sdata[(lid * 2654435761u + pc.key) % SHMEM_WORDS];
#endif
  if (v == pc.key) rec[wg * 8u + 7u] = v;  // key is chosen so this never happens
#endif
}
