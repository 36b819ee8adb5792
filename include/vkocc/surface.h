/* vkocc/surface.h: the surface of P and the per-SM limits derived from it; part of <vkocc.h>. */
#ifndef VKOCC_API_SURFACE_H
#define VKOCC_API_SURFACE_H

#include "common.h"
#include "device.h"
#include "calibrate.h"
#include "probe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ surface
 * P over workgroup size x shared memory: a ladder of shared sizes, refined where P changes. */

typedef struct vkocc_surface_point {
  uint32_t wg_size, shared_bytes;
  uint32_t P;             /* the answer: comb median where measured, else the bisection's */
  uint32_t comb_P, bisect_P; /* medians of the repetitions; 0 = not measured */
  bool agree;             /* every repetition of every method gave one value */
  bool refined;           /* added by refinement between ladder points */
  bool predicted;         /* adaptive surface: P is the model's prediction, not a measurement */
} vkocc_surface_point;

typedef struct vkocc_surface {
  vkocc_device_info device;  /* zeroed when read from a CSV */
  bool has_device;
  uint32_t subgroup_size;    /* 0 when unknown (CSV) */
  vkocc_method method;
  uint32_t repeat;
  vkocc_surface_point *points;
  uint32_t count;
  uint32_t pipelines;        /* pipelines created */
  double pipelines_ms;       /* pipeline creation, all points, in parallel */
  double measure_ms;         /* measurement only */
  double warmup_ms;          /* of measure_ms: first dispatches of each pipeline (discarded) */
  double comb_ms, bisect_ms; /* of measure_ms: the methods' wall time */
  double comb_gpu_ms;        /* of comb_ms: timestamp intervals of the comb dispatches */
  uint32_t comb_dispatches;
  bool cache_warm;           /* the pipeline cache file existed when the context opened */
  uint32_t measured;         /* points measured (count - measured were predicted; adaptive only) */
  uint32_t measurements;     /* point measurements made, re-measurements included */
  uint32_t batches;          /* measurement rounds (each creates its pipelines in parallel first) */
  double floor_ms;           /* the fewest waves that reveal P at each measurement (2 sleeps each), summed */
  uint32_t remeasured;       /* measurements a batched comb did not establish (measured alone, from its hint) */
} vkocc_surface;

typedef struct vkocc_surface_options {
  const uint32_t *wg_sizes;  /* NULL: subgroup size .. maxComputeWorkGroupInvocations, step subgroup size */
  uint32_t wg_count;
  const uint32_t *shared;    /* NULL: a ladder 0 .. maxComputeSharedMemorySize, refined where P changes */
  uint32_t shared_count;
  vkocc_method method;       /* 0: comb where the device clock exists, else bisect */
  uint32_t repeat;           /* 0 = 1 */
  bool no_refine;            /* keep the given grid */
  uint32_t refine_bytes;     /* refinement stops at this spacing; 0 = 512 */
  uint32_t threads;          /* pipeline-creation threads; 0 = up to 8 */
  void (*progress)(void *user, const char *phase, uint32_t done, uint32_t total);
  void *user;
  bool full;                 /* measure every point; else the adaptive surface (vkocc_surface_adaptive) */
  uint32_t checks;           /* adaptive: sample size; 0 = one per group of alike rows + one per ladder column */
} vkocc_surface_options;

/* Measures P at every grid point. Pipelines for a round are all created (in parallel, through the
 * context's persisted VkPipelineCache) before any is measured. Points are sorted by (wg, shared). */
vkocc_status vkocc_surface_measure(vkocc_context *ctx, const vkocc_calibration *cal,
                                   const vkocc_surface_options *options, vkocc_surface *out);
void vkocc_surface_free(vkocc_surface *s);
/* The default grid of a device (malloc'd arrays). */
void vkocc_surface_default_grid(const vkocc_device_info *d, uint32_t **wg, uint32_t *nwg, uint32_t **shared,
                                uint32_t *nshared);

/* Surface files: JSON (schema vkocc.surface/1, or a fingerprint's "surface") or a CSV with the header
 * wg_size,shared_bytes,P (a UTF-8 BOM, blank lines and '#' comment lines allowed). Errors name the file
 * and the line or JSON path, with VKOCC_ERROR_USAGE: a value out of the ranges below, a NUL byte, an empty
 * field, the same (wg_size, shared_bytes) twice with different P (twice with the same P: kept once), no
 * point with P > 0, a fingerprint without its measured "surface". */
#define VKOCC_MAX_WG_SIZE 65536u             /* wg_size 1 .. this (every device's limit is far below) */
#define VKOCC_MAX_SHARED_BYTES 2147483647u   /* shared_bytes 0 .. 2^31 - 1 */
#define VKOCC_MAX_P 2147483647u              /* P 0 .. 2^31 - 1 */
vkocc_status vkocc_surface_load(const char *path, vkocc_surface *out);
vkocc_status vkocc_surface_save(const vkocc_surface *s, const char *path);

/* The adaptive surface: the surface from few points (docs/surface-speed.md). Under the model of
 * docs/model.md, with wg0 the smallest workgroup size and s0 the smallest shared size of the grid,
 * P(wg, s) = min(P(wg, s0), P(wg0, s)), and P never rises along either axis. So: both axes are measured by
 * bisection (a run of equal ends is predicted equal inside), the wg0 column including every refinement
 * point the full grid would add; then in every row both sides of the step where the binding limit changes,
 * and a sample of check points (one per group of rows with the same P(wg, s0) and one per ladder column by
 * default). A check that disagrees with its prediction is measured again together with its two axis
 * points; a disagreement that stands makes its whole row and column measured, and so on until every check
 * agrees. The point set equals the full grid's (ladder plus the refinement rounds bisecting every shared
 * gap whose ends differ down to refine_bytes, 16 rounds at most). */
typedef struct vkocc_adaptive_options {
  const uint32_t *wg_sizes;  /* ascending, distinct */
  uint32_t wg_count;
  const uint32_t *shared;    /* ascending, distinct (the ladder) */
  uint32_t shared_count;
  bool no_refine;            /* the ladder alone */
  uint32_t refine_bytes;     /* 0 = 512 */
  uint32_t checks;           /* 0 = one per group of rows with the same P at s0, plus shared_count - 1;
                                UINT32_MAX: every point (the full grid) */
} vkocc_adaptive_options;

/* Measures points[0..n): each comes with wg_size, shared_bytes and P = the prediction (0: none), a hint;
 * fills P, comb_P, bisect_P, agree. One call is one batch (its pipelines can be created together). */
typedef vkocc_status (*vkocc_points_fn)(void *user, vkocc_surface_point *points, uint32_t n);

typedef struct vkocc_adaptive_stats {
  uint32_t points, measured;  /* result points; of them measured (the rest predicted) */
  uint32_t measurements;      /* callback points in all (re-measurements included) */
  uint32_t batches;           /* callback calls */
  uint32_t disagreements;     /* checks whose first measurement disagreed with the prediction */
  uint32_t confirmed;         /* of them, disagreements that a second measurement confirmed */
  uint32_t full_rows, full_columns;
} vkocc_adaptive_stats;

/* *points (malloc'd, sorted by wg, shared): every point of the grid and its refinement, measured or
 * marked predicted. Errors: the callback's, or VKOCC_ERROR_USAGE for an empty or unsorted grid. */
vkocc_status vkocc_surface_adaptive(const vkocc_adaptive_options *o, vkocc_points_fn measure, void *user,
                                    vkocc_surface_point **points, uint32_t *count, vkocc_adaptive_stats *stats);

/* ================================================================ derived limits
 * The model (docs/model.md): P(wg, s) = SMs x min(W, floor(S / ceil(wg / sg)), floor(M / s)) with W the
 * workgroup slots, S the subgroup slots and M the shared bytes of one multiprocessor (the last term only
 * for s > 0). Derived from the points alone, vendor-neutral; the register file is a fourth limit, below. */

typedef enum vkocc_limit {
  VKOCC_LIMIT_WORKGROUPS = 1,
  VKOCC_LIMIT_SUBGROUPS = 2,
  VKOCC_LIMIT_SHARED = 4,
} vkocc_limit;
#define VKOCC_LIMIT_REGISTERS 8u /* a vkocc_limit bit beside workgroups (1), subgroups (2), shared memory (4) */
const char *vkocc_limit_name(uint32_t binding); /* "workgroup slots", "subgroup slots", "shared memory", ... */

#define VKOCC_MAX_UNEXPLAINED 64
typedef struct vkocc_derived {
  uint32_t sm_count;
  uint32_t wg_per_sm;            /* W */
  uint32_t subgroups_per_sm;     /* S (lowest value consistent with the points) */
  uint32_t subgroups_per_sm_max; /* highest consistent value (== S when pinned) */
  bool subgroups_bound_seen;     /* some point was limited by subgroups; else S is only a lower bound */
  uint32_t subgroup_size;        /* given, or inferred when 0 was given */
  bool subgroup_size_inferred;
  uint32_t threads_per_sm;       /* S x subgroup size */
  uint32_t shared_per_sm;        /* M (lowest consistent value) */
  uint32_t shared_per_sm_max;    /* highest consistent value */
  bool shared_bound_seen;        /* some point was limited by shared memory; else M is a lower bound */
  uint32_t explained, total;     /* points the model reproduces exactly */
  uint32_t unexplained[VKOCC_MAX_UNEXPLAINED]; /* indices of the others (the first 64) */
  uint32_t n_unexplained;
  bool sm_count_ambiguous;       /* another SM count explained as many points */
} vkocc_derived;

/* Finds the SM count and per-SM limits that explain the most points exactly (vendor-neutral: only the
 * points). subgroup_size 0 = infer. VKOCC_ERROR_RUNTIME when no point is usable. */
vkocc_status vkocc_derive(const vkocc_surface_point *points, uint32_t n, uint32_t subgroup_size, vkocc_derived *out);
/* A surface file with its model: vkocc_surface_load that also takes a fingerprint without its "surface":
 * then *model_only is set, out has no points (only the device, when the file names one) and d holds the
 * file's "derived" limits, else those derived from its normalized surface with d->sm_count 0 (unknown:
 * values per SM); d is filled only then (a file with points: vkocc_derive over them). */
vkocc_status vkocc_surface_load_model(const char *path, vkocc_surface *out, vkocc_derived *d, bool *model_only);

typedef struct vkocc_occupancy {
  uint32_t wg_per_sm, subgroups_per_sm, threads_per_sm; /* resident on one SM */
  uint32_t wgs, subgroups, threads;                     /* on the whole device */
  double occupancy_pct;  /* threads per SM over the per-SM thread maximum */
  uint32_t binding;      /* vkocc_limit bits of the limits that bind (ties: several) */
} vkocc_occupancy;

/* Occupancy of (wg, shared) under the derived model. */
void vkocc_occupancy_compute(const vkocc_derived *d, uint32_t wg_size, uint32_t shared_bytes, vkocc_occupancy *out);
/* Same, but with a measured P (the device total) in place of the model's; binding from the model. */
void vkocc_occupancy_from_P(const vkocc_derived *d, uint32_t wg_size, uint32_t shared_bytes, uint32_t P,
                            vkocc_occupancy *out);

/* Workgroups per SM under each limit at one point (as Nsight Compute's "Block Limit" rows), from derived
 * limits. VKOCC_NO_LIMIT where a limit does not apply (shared memory at 0 bytes, or while no point showed
 * the shared memory binding: M is then only a lower bound, as in vkocc_occupancy_compute) or is unknown
 * (registers: Vulkan does not report them portably). wg_per_sm and binding equal vkocc_occupancy_compute's. */
#define VKOCC_NO_LIMIT UINT32_MAX
typedef struct vkocc_limits_per_sm {
  uint32_t workgroup_slots;     /* W */
  uint32_t subgroup_slots;      /* floor(S / ceil(wg / subgroup size)) (Nsight: warps) */
  uint32_t threads;             /* floor(threads per SM / wg) */
  uint32_t shared_memory;       /* floor(M / shared bytes) */
  uint32_t registers;           /* VKOCC_NO_LIMIT (unknown) */
  uint32_t wg_per_sm;           /* the smallest of them: resident workgroups per SM */
  uint32_t binding;             /* vkocc_limit bits of the limits equal to wg_per_sm */
} vkocc_limits_per_sm;
void vkocc_limits_per_sm_compute(const vkocc_derived *d, uint32_t wg_size, uint32_t shared_bytes,
                                 vkocc_limits_per_sm *out);

/* Shared bytes a workgroup of wg_size threads needs; VKOCC_NO_LIMIT: this size cannot be used. */
typedef uint32_t (*vkocc_shared_fn)(void *user, uint32_t wg_size);

typedef struct vkocc_wg_suggestion {
  uint32_t wg_size, shared_bytes;  /* the chosen size and its shared memory */
  vkocc_occupancy occupancy;       /* there */
  vkocc_limits_per_sm limits;      /* there */
  uint32_t candidates;             /* sizes considered */
} vkocc_wg_suggestion;

/* The counterpart of cudaOccupancyMaxPotentialBlockSize: of the multiples of the subgroup size up to
 * max_wg_size (0: the derived threads per SM), the workgroup size with the highest occupancy (threads per
 * SM), ties to the larger size. shared may be NULL (no shared memory); sizes whose shared bytes exceed
 * max_shared_bytes (0: no limit) are skipped. VKOCC_ERROR_USAGE when no size fits. */
vkocc_status vkocc_suggest_wg_size(const vkocc_derived *d, vkocc_shared_fn shared, void *user, uint32_t max_wg_size,
                                   uint32_t max_shared_bytes, vkocc_wg_suggestion *out);

/* Measured vs vendor-reported: the derived SM count and subgroup slots per SM next to what the driver
 * reports through a vendor extension (vkocc_vendor_reported). A cross-check only; the cluster ID never
 * depends on it. */
typedef struct vkocc_vendor_check {
  bool available;                 /* the device reports its cores (vendor.source not empty) */
  uint32_t sm_reported, sm_measured;
  bool sm_agree;
  uint32_t subgroups_reported, subgroups_measured; /* warps per SM; 0 reported = unknown */
  bool subgroups_measured_is_lower_bound;           /* no point was limited by subgroup slots */
  bool subgroups_agree;           /* equal, or (lower bound) measured <= reported */
} vkocc_vendor_check;
void vkocc_vendor_check_compute(const vkocc_vendor_reported *v, const vkocc_derived *d, vkocc_vendor_check *out);

#ifdef __cplusplus
}
#endif
#endif
