/* vkocc/probe.h: occupancy probes: P of one pipeline at one point; part of <vkocc.h>. */
#ifndef VKOCC_API_PROBE_H
#define VKOCC_API_PROBE_H

#include "common.h"
#include "device.h"
#include "calibrate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ occupancy probes
 * P of one pipeline at one point (workgroup size, shared bytes): how many of its workgroups are resident at
 * once on the whole device. Two methods: the comb (sleeping workgroups timed by the device clock; the
 * largest number that overlap) and dispatch bisection (queue timestamps only; the largest dispatch that
 * still runs in one wave). Both are pure logic over callbacks (vkocc_comb_estimate_P, vkocc_bisect_search)
 * beneath vkocc_probe, which runs them on the device. */

typedef enum vkocc_method {
  VKOCC_METHOD_COMB = 1,   /* sleeping-workgroup comb, needs the device clock */
  VKOCC_METHOD_BISECT = 2, /* dispatch bisection, queue timestamps only */
  VKOCC_METHOD_BOTH = 3,
} vkocc_method;

/* "comb", "bisect", "both" (VKOCC_METHOD_BOTH) and "auto" (0: comb where the device clock exists, else
 * bisect); VKOCC_ERROR_USAGE naming `source` (e.g. "--method") for anything else. */
vkocc_status vkocc_method_parse(const char *text, const char *source, vkocc_method *out);
/* "comb", "bisect", "both" or "auto" (0). */
const char *vkocc_method_name(vkocc_method m);

/* One workgroup's sleep, in ns on a common time base. valid = false for a record the device never wrote. */
typedef struct vkocc_interval {
  double start, end;
  bool valid;
} vkocc_interval;

#define VKOCC_MAX_TEETH 64
typedef struct vkocc_comb_estimate {
  uint32_t P;                /* maximum number of sleeps that overlap for at least min_dwell */
  bool lower_bound;          /* every valid workgroup overlapped: P >= this, dispatch more */
  uint32_t n_valid, n_missing;
  uint32_t teeth;            /* groups of start times separated by gaps > half the median sleep */
  uint32_t tooth_heights[VKOCC_MAX_TEETH]; /* the first min(teeth, VKOCC_MAX_TEETH) */
  double first_tooth_spread_ns;            /* last start - first start within the first tooth */
  double median_sleep_ns;
} vkocc_comb_estimate;

/* Estimates P from the sleep intervals of one dispatch (any order). min_dwell_ns: how long a level of
 * overlap must hold to count (0 = 2% of the median sleep), which ignores coincidences of a few ns.
 * VKOCC_ERROR_RUNTIME when no record is valid. */
vkocc_status vkocc_comb_estimate_P(const vkocc_interval *intervals, uint32_t n, double min_dwell_ns,
                                   vkocc_comb_estimate *out);

/* Measures the runtime (ns) of one dispatch of `groups` workgroups. */
typedef vkocc_status (*vkocc_runtime_fn)(void *user, uint32_t groups, double *ns);

typedef struct vkocc_bisect_estimate {
  uint32_t P;           /* largest dispatch that still ran in one wave */
  bool certain;         /* the step was found (false: max_groups reached without serialization) */
  uint32_t dispatches;  /* runtime measurements made */
  double base_ns;       /* runtime of one wave */
  double threshold_ns;  /* runtimes above this are serialized */
  /* The check of P against the whole-wave structure it implies (2P workgroups in two waves, 2P+1 in
   * three, 3P+1 in four): extra waves over the first measured there (in waves of wave_ns), and whether
   * they step as 1:2:3 on a common scale (a busy CPU stretches every wave). A P that fails it was read
   * from noise; the caller measures again or gives up. */
  double waves_2P, waves_2P1, waves_3P1;
  bool consistent;
  double wave_ns;       /* the wave the answer was judged with (sized: measured, one workgroup over none) */
  double ramp_ns;       /* sized search: the longest launch ramp measured (empty workgroups, n over 1) */
} vkocc_bisect_estimate;

/* Doubles the dispatch from `start` until the runtime steps up by more than half of wave_ns over the
 * one-wave runtime, then bisects to the first serialized size, which is P + 1. With
 * VKOCC_BISECT_EARLY_EXIT or'ed into repeats (a fixed-length workload: a sleep) each size is timed up to
 * `repeats` times, stops at its first run under the threshold, and the fastest run counts. Without it
 * (a workload whose speed drifts) each run is paired with a one-workgroup run just before it and the
 * median ratio counts. */
#define VKOCC_BISECT_EARLY_EXIT 0x80000000u
vkocc_status vkocc_bisect_search(vkocc_runtime_fn fn, void *user, uint32_t start, uint32_t max_groups,
                                 double wave_ns, uint32_t repeats, vkocc_bisect_estimate *out);

/* Runtime (ns) of one dispatch of `groups` workgroups whose workload lasts about wave_ns each; wave_ns 0:
 * empty workgroups (only their launch). */
typedef vkocc_status (*vkocc_workload_fn)(void *user, uint32_t groups, double wave_ns, double *ns);

/* vkocc_bisect_search with the wave sized from the launch ramp: a size judged serialized is timed again
 * with empty workgroups against one; where the runtime less that ramp would have been one wave (the ramp
 * read as serialization: 3300 workgroups took 63 us to launch on an H100, against a 78 us sleep) the
 * wave grows to 8x the ramp, up to max_wave_ns, and the search starts again. Fails when even
 * max_wave_ns is too short. The threshold uses the measured wave (one workgroup over an empty one);
 * out->wave_ns is that wave, out->ramp_ns the longest ramp timed. */
vkocc_status vkocc_bisect_search_sized(vkocc_workload_fn fn, void *user, uint32_t start, uint32_t max_groups,
                                       double wave_ns, double max_wave_ns, uint32_t repeats,
                                       vkocc_bisect_estimate *out);

typedef struct vkocc_probe_options {
  uint32_t wg_size;        /* threads per workgroup, 1..maxComputeWorkGroupInvocations */
  uint32_t shared_bytes;   /* 0..maxComputeSharedMemorySize (rounded up to 4-byte words) */
  vkocc_method method;     /* 0 = both where the clock exists, else bisect */
  uint32_t repeat;         /* repetitions; 0 = 1 */
  double sleep_ns;         /* 0 = chosen from the calibration and the launch jitter */
  uint32_t hint;           /* expected P (0 = unknown); only sizes the first dispatch */
  double sleep_start_ns;   /* 0, or a comb sleep to start from (it may still grow), e.g. a neighbour's */
  bool keep_raw;           /* keep the intervals of the last comb for plotting */
  const char *augmentation; /* the user's pipeline (vkocc_pipeline_occupancy): the augmentation measured with first,
                               NULL or "auto" (the default: "compact" on GPUs, "unrolled" on CPU devices), "compact",
                               "unrolled", "small", "clock-only", "rolled" (docs/shader.md) */
} vkocc_probe_options;

typedef struct vkocc_probe_rep {
  uint32_t comb_P, bisect_P;      /* 0 where not measured */
  vkocc_comb_estimate comb;
  vkocc_bisect_estimate bisect;
  double comb_gpu_ns, bisect_gpu_ns;   /* sum of queue-timestamp intervals of its dispatches */
  double comb_wall_ns, bisect_wall_ns;
  uint32_t comb_dispatches, comb_groups; /* dispatches made; groups in the deciding dispatch */
} vkocc_probe_rep;

#define VKOCC_MAX_REPEAT 64
typedef struct vkocc_probe_result {
  uint32_t wg_size, shared_bytes;
  vkocc_method method;
  bool bisect_by_chase;     /* bisection used the pointer chase (no device clock) */
  double sleep_ns;          /* the comb's sleep */
  double bisect_wave_ns;    /* bisection's one-wave workload (sleep or chase) */
  uint32_t repeat;
  vkocc_probe_rep reps[VKOCC_MAX_REPEAT];
  uint32_t comb_median, bisect_median;         /* medians over the repetitions (0: not measured) */
  uint32_t comb_min, comb_max, bisect_min, bisect_max;
  bool agree;               /* every repetition of both methods gave one value */
  uint32_t P;               /* the answer: comb median if measured, else bisect median */
  double floor_ns;          /* per repetition: fewest waves that can reveal P (2) times each method's wave */
  double warmup_wall_ns;    /* the discarded first dispatch of the pipeline (wall time) */
  vkocc_interval *raw;      /* last comb's intervals (keep_raw), malloc'd; free with vkocc_probe_result_free */
  uint32_t raw_count;
} vkocc_probe_result;

/* Validates the point (VKOCC_ERROR_USAGE before anything is dispatched), then measures. cal may be NULL
 * (a short calibration is run). */
vkocc_status vkocc_probe(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_probe_options *options,
                         vkocc_probe_result *out);
void vkocc_probe_result_free(vkocc_probe_result *r);
vkocc_status vkocc_probe_check_point(const vkocc_device_info *dev, uint32_t wg_size, uint32_t shared_bytes);
/* The intervals of a raw probe file (schema vkocc.raw-probe/1, `vkocc probe --raw`), malloc'd. */
vkocc_status vkocc_raw_probe_load(const char *path, vkocc_interval **iv, uint32_t *n, vkocc_device_info *dev);
/* vkocc.probe/1 and vkocc.raw-probe/1: see vkocc_calibration_save. */
vkocc_status vkocc_probe_save(const vkocc_device_info *device, const vkocc_probe_result *r, const char *path);
vkocc_status vkocc_raw_probe_save(const vkocc_device_info *device, const vkocc_probe_result *r, const char *path);

#ifdef __cplusplus
}
#endif
#endif
