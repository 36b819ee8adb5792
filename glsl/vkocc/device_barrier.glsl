// vkocc/device_barrier.glsl: device-wide barriers over the dispatched workgroups that cannot hang.
//
// A barrier across workgroups is correct only when every workgroup of the dispatch is resident at once:
// Vulkan promises no forward progress between workgroups, so a workgroup that waits for one that has not
// started waits forever. Dispatch exactly P workgroups, P measured for this very pipeline (vkocc's
// vkocc_pipeline_occupancy / vkocc_persistent_groups, docs/barrier.md). Every wait here is bounded by time
// and by iterations; when a bound fires the waiter sets abort_bits in the state buffer, every other waiter
// sees it in its own wait loop and stops too, the barrier returns false and the shader must return. The
// host reads abort_bits and reports "barrier timed out" instead of a hang or a wrong result.
//
// Use (binding of the state block: VKOCC_BARRIER_SET / VKOCC_BARRIER_BINDING, default set 0 binding 0):
//   #define VKOCC_CLOCK_REALTIME 1   // device has shaderDeviceClock (GL_EXT_shader_realtime_clock), or
//   #define VKOCC_CLOCK_SUBGROUP 1   // only shaderSubgroupClock (cycles); neither: iteration bound only
//   #include <vkocc/device_barrier.glsl>
//   ... if (!vkocc_device_barrier()) return;   // from uniform control flow, every invocation
//
// The host fills the state before each dispatch (vkocc_barrier_state_init): zeros, the time bound in clock
// ticks and the iteration budget. The state is left dirty by a dispatch that timed out: reset it.
//
// Memory model: data written before a barrier and read after it by another workgroup must live in
// `coherent` buffers. The chain is: every invocation's writes -> controlBarrier (workgroup execution,
// device memory scope, acquire-release on buffer and shared storage) -> invocation 0's release atomic at
// device scope on the counter -> the other workgroup's invocation 0 acquire-loads it -> its controlBarrier
// (same scopes) -> its invocations read. Each link is a synchronizes-with at the scope of the two parties,
// so the writes happen-before the reads; `coherent` makes the accesses themselves device-coherent (the
// GLSL450 memory model has no availability operations; on NVIDIA they bypass the non-coherent L1).
#ifndef VKOCC_DEVICE_BARRIER_GLSL
#define VKOCC_DEVICE_BARRIER_GLSL

#extension GL_KHR_memory_scope_semantics : require
#if defined(VKOCC_CLOCK_REALTIME)
#extension GL_EXT_shader_realtime_clock : require
#elif defined(VKOCC_CLOCK_SUBGROUP)
#extension GL_ARB_shader_clock : require
#endif

#ifndef VKOCC_BARRIER_SET
#define VKOCC_BARRIER_SET 0
#endif
#ifndef VKOCC_BARRIER_BINDING
#define VKOCC_BARRIER_BINDING 0
#endif

// 16 words; vkocc.h names them VKOCC_BARRIER_* (the host side reads and writes them).
layout(std430, set = VKOCC_BARRIER_SET, binding = VKOCC_BARRIER_BINDING) coherent buffer VkoccBarrierState {
  uint count;       // 0: arrivals in the current episode of the self-resetting barrier (back to 0 each time)
  uint gen;         // 1: episodes completed (the generation the waiters watch)
  uint arrived;     // 2: arrivals at the single-use barrier
  uint abort_bits;  // 3: nonzero once a bound fired: 1 time, 2 iterations, 4 the loop ended otherwise
  uint bound_ticks; // 4: time bound of one wait, in ticks of the clock used (< 2^31) (host)
  uint max_iters;   // 5: iteration budget of one invocation, summed over all its waits (host)
  uint work;        // 6: the persistent work counter (vkocc/persistent.glsl)
  uint max_wait;    // 7: longest wait that completed, ticks (diagnostic: the margin to the bound)
  uint max_used;    // 8: most wait iterations one invocation spent, up to a completed or fired wait (diagnostic)
  uint fired_wait;  // 9: ticks waited by a waiter whose bound fired
  uint waits;       // 10: barrier episodes completed by workgroup 0 (diagnostic)
  uint sink;        // 11: never written in practice (keeps the back-off arithmetic alive)
  uint pad[4];
} vkocc_bar;

uint vkocc_used_ = 0u;          // wait iterations this invocation has spent (all waits of the dispatch)
shared uint vkocc_arg_, vkocc_gen_; // invocation 0's arrival, read by the whole workgroup

uint vkocc_clock_() {
#if defined(VKOCC_CLOCK_REALTIME)
  return clockRealtime2x32EXT().x; // 32-bit deltas: Mesa 22.3 returns 0 in the high word
#elif defined(VKOCC_CLOCK_SUBGROUP)
  return clock2x32ARB().x;
#else
  return 0u;
#endif
}

// Back-off between polls without a loop (lavapipe counts loop iterations against a cap of 65535 per
// invocation): fast polls first (barrier latency), then longer pauses so that the iteration budget covers
// the time bound. Each step is a dependent integer division by a value the compiler cannot know (slow on
// every device, short in code); x is kept alive through vkocc_bar.sink.
#define VKOCC_STEP_ x = x / d + (x << 1u) + 1u;
#define VKOCC_STEP8_ VKOCC_STEP_ VKOCC_STEP_ VKOCC_STEP_ VKOCC_STEP_ VKOCC_STEP_ VKOCC_STEP_ VKOCC_STEP_ VKOCC_STEP_
#define VKOCC_STEP32_ VKOCC_STEP8_ VKOCC_STEP8_ VKOCC_STEP8_ VKOCC_STEP8_
uint vkocc_backoff_(uint i, uint x, uint d) {
  if (i >= 64u) { VKOCC_STEP8_ }
  if (i >= 256u) { VKOCC_STEP8_ }
  if (i >= 1024u) { VKOCC_STEP32_ VKOCC_STEP8_ VKOCC_STEP8_ }
  return x;
}

// The whole workgroup, from uniform control flow: invocation 0 polls, decides and publishes its verdict
// in shared memory; every invocation leaves the loop together. kind 0: until arrived >= target; kind 1:
// until gen != target. False when a bound fired here (abort_bits set) or another waiter's did. (A loop that
// only invocation 0 runs would be lighter, but lavapipe (Mesa 22.3) loses an invocation that leaves such a
// loop after iterating while the rest of its workgroup waits at a barrier; measured, docs/barrier.md.)
shared uint vkocc_how_[2];
bool vkocc_wait_(uint kind, uint target) {
  bool lead = gl_LocalInvocationIndex == 0u;
  uint bound = vkocc_bar.bound_ticks, budget = vkocc_bar.max_iters;
  uint t0 = lead ? vkocc_clock_() : 0u, x = t0 ^ target, el = 0u, d = (bound >> 24u) | 3u;
  uint how = 4u; // 0 done, 8 another waiter's bound fired, else the bits of the bound that fired here
  for (uint i = 0u; i < 0x7fffffffu; ++i) {
    if (lead) {
      // atomic loads, not read-modify-writes: P pollers doing RMWs on one word serialize at the memory
      // (measured on the H100: 4x slower barriers); the barrier() below keeps every poll in the loop
      uint v = kind == 0u ? atomicLoad(vkocc_bar.arrived, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire)
                          : atomicLoad(vkocc_bar.gen, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
      el = vkocc_clock_() - t0;
      uint h = 0xffffffffu;
      if (kind == 0u ? v >= target : v != target) {
        h = 0u;
      } else if (atomicLoad(vkocc_bar.abort_bits, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed) != 0u) {
        h = 8u;
      } else {
        uint fired = 0u;
#if defined(VKOCC_CLOCK_REALTIME) || defined(VKOCC_CLOCK_SUBGROUP)
        if (el >= bound) fired |= 1u;
#endif
        if (++vkocc_used_ >= budget) fired |= 2u;
        if (fired != 0u) h = fired;
        else x = vkocc_backoff_(i, x, d);
      }
      vkocc_how_[i & 1u] = h; // two slots: the lead cannot overwrite one before everyone has read it
    }
    barrier();
    uint h = vkocc_how_[i & 1u];
    if (h != 0xffffffffu) { how = h; break; }
  }
  // how == 4 after the loop: only a driver's own loop cap ends it (lavapipe: 65535 iterations per invocation)
  if (lead) {
    if (how == 0u) {
      atomicMax(vkocc_bar.max_wait, el);
      atomicMax(vkocc_bar.max_used, vkocc_used_);
      if (x == bound + 0x5bd1e995u) vkocc_bar.sink = x;
    } else if (how != 8u) {
      atomicOr(vkocc_bar.abort_bits, how);
      atomicMax(vkocc_bar.fired_wait, el);
      atomicMax(vkocc_bar.max_used, vkocc_used_);
    }
  }
  return how == 0u;
}

uint vkocc_groups_() { return gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z; }

void vkocc_sync_() {
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                 gl_SemanticsAcquireRelease);
}

// Single use (the talk's first barrier): counts arrivals up to the number of workgroups; once per dispatch.
// Every invocation calls it from uniform control flow; false: a bound fired, return from the shader.
bool vkocc_device_barrier_once() {
  vkocc_sync_();
  if (gl_LocalInvocationIndex == 0u) {
    bool ok = atomicLoad(vkocc_bar.abort_bits, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed) == 0u;
    if (ok) atomicAdd(vkocc_bar.arrived, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
    vkocc_arg_ = ok ? 1u : 0u;
  }
  vkocc_sync_();
  bool ok = vkocc_arg_ != 0u && vkocc_wait_(0u, vkocc_groups_());
  vkocc_sync_();
  return ok;
}

// Self-resetting (generation) barrier, any number of times per dispatch: the last arrival of an episode
// puts the count back to 0 and then advances the generation with a release; the others wait for the
// generation they read before arriving to change. The acquire-release add orders that read before the
// arrival, and the waiters' acquire of the new generation makes the reset (and every workgroup's writes)
// visible before anyone can arrive at the next episode.
bool vkocc_device_barrier() {
  vkocc_sync_();
  if (gl_LocalInvocationIndex == 0u) {
    uint arg = 0u; // 0 aborted, 1 passed (last arrival), 2 + generation to wait on
    if (atomicLoad(vkocc_bar.abort_bits, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed) == 0u) {
      uint g = atomicLoad(vkocc_bar.gen, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
      uint old = atomicAdd(vkocc_bar.count, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
      if (old == vkocc_groups_() - 1u) {
        atomicExchange(vkocc_bar.count, 0u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        atomicAdd(vkocc_bar.gen, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
        arg = 1u;
      } else {
        vkocc_gen_ = g;
        arg = 2u;
      }
    }
    vkocc_arg_ = arg;
  }
  vkocc_sync_();
  uint arg = vkocc_arg_;
  bool ok = arg == 1u || (arg == 2u && vkocc_wait_(1u, vkocc_gen_));
  if (ok && gl_LocalInvocationIndex == 0u && gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z == 0u)
    vkocc_bar.waits += 1u;
  vkocc_sync_();
  return ok;
}

#endif
