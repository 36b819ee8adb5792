// vkocc/persistent.glsl: persistent threads and grid-stride loops, the talk's way to drop tile-size
// parameters: dispatch P workgroups (measured for this pipeline) and let them take the work.
//
//   #include <vkocc/persistent.glsl>          // includes vkocc/device_barrier.glsl (the work counter lives
//                                             // in its state block; the host zeroes it)
//   for (uint t = vkocc_next_item(); t < tiles; t = vkocc_next_item()) { ... tile t ... }
//   VKOCC_GRID_STRIDE_LOOP(i, n) { ... element i ... }
//
// Neither waits for another workgroup, so neither needs the workgroups to be resident at once: they are
// correct with any workgroup count, and efficient from P workgroups up (fewer leave slots idle). Both are
// loops: on lavapipe their iterations count against its cap of 65535 per invocation, keep n / (groups x
// workgroup size) well below it there.
#ifndef VKOCC_PERSISTENT_GLSL
#define VKOCC_PERSISTENT_GLSL
#include <vkocc/device_barrier.glsl>

shared uint vkocc_item_;

// The next work item for the whole workgroup (the same value in every invocation), from the atomic
// counter in the state block; call from uniform control flow. Items come in order 0, 1, 2, ... over all
// workgroups, so the loop ends when the value reaches the item count.
uint vkocc_next_item() {
  barrier(); // everyone has read the previous item
  if (gl_LocalInvocationIndex == 0u) vkocc_item_ = atomicAdd(vkocc_bar.work, 1u);
  barrier();
  return vkocc_item_;
}

// Grid-stride loop over 0..n-1 along x: invocation i takes i, i + G, i + 2G, ... with G the invocations
// dispatched along x.
#define VKOCC_GRID_STRIDE_LOOP(i, n)                                                                       \
  for (uint i = gl_GlobalInvocationID.x; i < (n); i += gl_NumWorkGroups.x * gl_WorkGroupSize.x)

#endif
