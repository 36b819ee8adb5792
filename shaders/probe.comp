#version 450
// Occupancy probe. Workgroup size and shared-memory words come from specialization constants.
// Invocation 0 of each workgroup either sleeps on the realtime clock (mode 0, needs VK_KHR_shader_clock
// with shaderDeviceClock) or walks a dependent chain of memory loads (mode 1, queue timestamps only);
// the rest of the workgroup waits at a barrier. Every wait is bounded by time and by iteration count.
#ifdef HAS_DEVICE_CLOCK
#extension GL_EXT_shader_realtime_clock : require
#endif
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint SHMEM_WORDS = 1u;
// lavapipe (gallivm) silently ends the loops of a shader after 65535 iterations in total, so each
// iteration does a fixed amount of work (unrolled) and the host keeps the counts below that cap;
// a sleep that ends without reaching its time is flagged, never taken for a full one.
#define STEP x = x * 1664525u + 1013904223u; x ^= x >> 13;
#define STEP8 STEP STEP STEP STEP STEP STEP STEP STEP
#define HOP idx = next[idx];
#define HOP8 HOP HOP HOP HOP HOP HOP HOP HOP

layout(push_constant) uniform PC {
  uint mode;         // 0 sleep on the clock, 1 pointer chase
  uint sleep_ticks;  // sleep length in realtime ticks (< 2^31)
  uint max_rounds;   // iteration bound of the sleep loop (one clock read and 128 ALU steps a round)
  uint chase_rounds; // mode 1: rounds of 16 dependent loads
  uint chase_mask;   // chase table size - 1 (power of two)
  uint key;          // a value the compiler cannot know; never equal to what the shared array holds
} pc;

// 8 words per workgroup: start lo/hi, end lo/hi, flags (1 written, 2 sleep cut by the iteration bound),
// loop iterations, sink, unused.
layout(std430, binding = 0) buffer Records { uint rec[]; };
layout(std430, binding = 1) readonly buffer Chase { uint next[]; };

#ifndef NO_SHMEM
shared uint sdata[SHMEM_WORDS];
#endif

void main() {
  uint wg = gl_WorkGroupID.x;
  uint lid = gl_LocalInvocationIndex;
#ifndef NO_SHMEM
  // Write the whole array and read it back through a run-time index so it stays allocated at full size.
  for (uint i = lid; i < SHMEM_WORDS; i += gl_WorkGroupSize.x) sdata[i] = i + 1u;
  barrier();
#endif
  if (lid == 0u) {
    uint flags = 1u, iters = 0u, sink = 0u;
#ifdef HAS_DEVICE_CLOCK
    uvec2 t0 = clockRealtime2x32EXT();
    uvec2 t1 = t0;
    if (pc.mode == 0u) {
      // 32-bit difference of the low words is exact across a wrap of the low word for sleeps < 2^32 ticks.
      bool done = false;
      uint x = pc.key;
      for (uint r = 0u; r < pc.max_rounds; ++r) {
        t1 = clockRealtime2x32EXT();
        ++iters;
        if ((t1.x - t0.x) >= pc.sleep_ticks) { done = true; break; }
        STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8
        STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8
      }
      sink = x;
      if (!done) flags |= 2u;
    }
#else
    uvec2 t0 = uvec2(0u), t1 = uvec2(0u);
#endif
    if (pc.mode == 1u) {
      uint idx = wg & pc.chase_mask;
      for (uint r = 0u; r < pc.chase_rounds; ++r) { HOP8 HOP8 }
      iters = pc.chase_rounds;
      sink = idx;
#ifdef HAS_DEVICE_CLOCK
      t1 = clockRealtime2x32EXT();
#endif
    }
    uint b = wg * 8u;
    rec[b + 0u] = t0.x; rec[b + 1u] = t0.y; rec[b + 2u] = t1.x; rec[b + 3u] = t1.y;
    rec[b + 5u] = iters; rec[b + 6u] = sink; rec[b + 4u] = flags;
  }
  barrier();
#ifndef NO_SHMEM
  uint v = sdata[(lid * 2654435761u + pc.key) % SHMEM_WORDS];
  if (v == pc.key) rec[wg * 8u + 7u] = v;  // key is chosen so this never happens
#endif
}
