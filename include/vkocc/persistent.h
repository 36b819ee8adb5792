/* vkocc/persistent.h: persistent threads and the device-wide barrier; part of <vkocc.h>. */
#ifndef VKOCC_API_PERSISTENT_H
#define VKOCC_API_PERSISTENT_H

#include "common.h"
#include "device.h"
#include "calibrate.h"
#include "pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ persistent threads, the device-wide barrier
 * (docs/barrier.md). The GLSL side is <vkocc/device_barrier.glsl> and <vkocc/persistent.glsl>
 * (glsl/ in the source tree, installed under share/vkocc/glsl; the library's run-time compiler resolves
 * them itself). A barrier over workgroups is correct only when all of them are resident at once, so the
 * host dispatches P workgroups, P measured for that very pipeline; every wait in the shader is bounded by
 * time and iterations, and a bound that fires is reported as a timeout, never as a result. */

/* P of the application's pipeline, the workgroup count to dispatch for persistent threads and device
 * barriers: vkocc_pipeline_occupancy (augmentation, comb) with the answer cached in $XDG_CACHE_HOME/vkocc
 * when use_cache. Source shaders get the clock define of vkocc_barrier_bounds_get added. */
vkocc_status vkocc_persistent_groups(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_shader_desc *sh,
                                     bool use_cache, uint32_t *P, bool *from_cache);

#define VKOCC_BARRIER_STATE_WORDS 16u
/* Words of the state block (binding VKOCC_BARRIER_BINDING of the shader) */
enum {
  VKOCC_BARRIER_COUNT = 0, VKOCC_BARRIER_GEN = 1, VKOCC_BARRIER_ARRIVED = 2,
  VKOCC_BARRIER_ABORT = 3,       /* nonzero: a bound fired (1 time, 2 iterations, 4 the driver's loop cap) */
  VKOCC_BARRIER_BOUND_TICKS = 4, /* time bound of one wait in ticks of the shader's clock */
  VKOCC_BARRIER_MAX_ITERS = 5,   /* wait iterations one invocation may spend in the whole dispatch */
  VKOCC_BARRIER_WORK = 6,        /* the persistent work counter */
  VKOCC_BARRIER_MAX_WAIT = 7,    /* longest completed wait (ticks) */
  VKOCC_BARRIER_MAX_USED = 8,    /* most wait iterations of one invocation */
  VKOCC_BARRIER_FIRED_WAIT = 9,  /* ticks a waiter had waited when its bound fired */
  VKOCC_BARRIER_WAITS = 10,      /* episodes of the self-resetting barrier completed by workgroup 0 */
};
/* Iteration budget on CPU devices: lavapipe ends every loop of an invocation after 65535 iterations in
 * total; the waits keep 5535 of them for the kernel's own loops. */
#define VKOCC_BARRIER_CPU_MAX_ITERS 60000u
#define VKOCC_BARRIER_GPU_MAX_ITERS (1u << 24)

typedef struct vkocc_barrier_bounds {
  const char *clock;    /* "realtime" (GL_EXT_shader_realtime_clock), "subgroup" (GL_ARB_shader_clock) or
                           "none" (iteration bound only) */
  const char *define;   /* the define the shader needs for it ("VKOCC_CLOCK_REALTIME=1", ...; NULL: none) */
  double bound_ms;      /* time bound of one wait (after clamping) */
  uint32_t bound_ticks; /* the same in clock ticks (< 2^31) */
  uint32_t max_iters;
  double ns_per_tick;   /* 0 without a clock */
  double asked_ms;      /* the bound asked for */
  bool clamped;         /* asked_ms was outside 1..2^31 - 1 ticks: bound_ms is the nearest end of that range */
} vkocc_barrier_bounds;

/* The bounds on ctx's device: the realtime clock where enabled, else the subgroup clock, else none;
 * bound_ms (0: 1000) in ticks through cal (NULL: a short calibration is run); max_iters 0:
 * VKOCC_BARRIER_CPU_MAX_ITERS on a CPU device, else VKOCC_BARRIER_GPU_MAX_ITERS. A bound beyond 2^31 - 1
 * ticks (the shader compares 32-bit deltas) or below one tick is clamped to that range (clamped, asked_ms).
 * A failed calibration's error when cal is NULL. */
vkocc_status vkocc_barrier_bounds_get(vkocc_context *ctx, const vkocc_calibration *cal, double bound_ms,
                                      uint32_t max_iters, vkocc_barrier_bounds *out);
/* The state block for one dispatch: zeros and the bounds. Upload it before every dispatch (a dispatch that
 * timed out leaves it dirty). */
void vkocc_barrier_state_init(uint32_t state[VKOCC_BARRIER_STATE_WORDS], const vkocc_barrier_bounds *b);
/* After the dispatch: VKOCC_OK when no bound fired, else VKOCC_ERROR_RUNTIME with "barrier timed out:
 * fewer than P workgroups were resident (...)" naming the groups dispatched and the bound that fired. */
vkocc_status vkocc_barrier_state_check(const uint32_t state[VKOCC_BARRIER_STATE_WORDS], uint32_t groups,
                                       const vkocc_barrier_bounds *b);

/* The barrier test (`vkocc barrier-test`): the shipped or the user's barrier kernel against its CPU
 * reference, with P + extra workgroups. */
typedef struct vkocc_barrier_test_options {
  const char *shader;   /* NULL: the shipped kernels/barrier/barrier_test.comp; else a GLSL/SPIR-V file with
                           its interface (docs/barrier.md) */
  uint32_t extra;       /* K: dispatch P + K workgroups */
  uint32_t runs;        /* 0: 1 */
  double bound_ms;      /* 0: 1000 */
  uint32_t max_iters;   /* 0: automatic (vkocc_barrier_bounds_get) */
  uint32_t rounds;      /* device-barrier episodes per run; 0: 16 */
  uint32_t wg_size;     /* 0: 64 */
  uint32_t P;           /* 0: measured (vkocc_persistent_groups); else taken as given */
  bool use_cache;       /* cache of the P measurement */
  const vkocc_calibration *cal; /* NULL: measured */
} vkocc_barrier_test_options;

typedef struct vkocc_barrier_run {
  bool completed;        /* no bound fired */
  bool correct;          /* completed, and every value equals the CPU reference */
  uint32_t abort_bits;   /* VKOCC_BARRIER_ABORT word */
  uint32_t mismatches;   /* values that differ from the reference (completed runs) */
  double gpu_ms;         /* queue timestamps around the dispatch */
  double wall_ms;        /* host: submit to fence */
  double max_wait_ms;    /* longest completed wait (the margin to the bound) */
  double fired_wait_ms;  /* how long the waiter whose bound fired had waited */
  uint32_t max_used;     /* most wait iterations of one invocation */
} vkocc_barrier_run;

typedef struct vkocc_barrier_test_result {
  uint32_t P, groups, wg_size, rounds;
  bool P_from_cache, P_given;
  double measure_ms;     /* the P measurement (wall) */
  vkocc_barrier_bounds bounds;
  uint32_t runs, completed, correct, timed_out, wrong;
  vkocc_barrier_run *run; /* malloc'd, runs entries */
} vkocc_barrier_test_result;

/* Runs the barrier kernel with P + extra workgroups, runs times, each against the CPU reference. VKOCC_OK when
 * every run completed correctly; VKOCC_ERROR_RUNTIME with "barrier timed out: fewer than P workgroups were
 * resident ..." when a bound fired in any run, or "wrong result" when a run completed with wrong values (the
 * result is filled in both cases); other errors as usual (VK_ERROR_DEVICE_LOST, a fence timeout). */
vkocc_status vkocc_barrier_test(vkocc_context *ctx, const vkocc_barrier_test_options *o, vkocc_barrier_test_result *out);
void vkocc_barrier_test_result_free(vkocc_barrier_test_result *r);

#ifdef __cplusplus
}
#endif
#endif
