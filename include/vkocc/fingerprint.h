/* vkocc/fingerprint.h: the architecture signature, the fingerprint and its cluster; part of <vkocc.h>. */
#ifndef VKOCC_API_FINGERPRINT_H
#define VKOCC_API_FINGERPRINT_H

#include "common.h"
#include "device.h"
#include "calibrate.h"
#include "probe.h"
#include "surface.h"
#include "registers.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ fingerprint and cluster (docs/fingerprint.md)
 * P per SM resampled onto one canonical grid every device shares; its hash is the cluster ID, which groups
 * GPUs of one architecture (tuned parameters transfer between them). */

/* ---------------------------------------------------------------- the architecture signature
 * Per-SM, per-clock facts of the microarchitecture that occupancy cannot see (docs/fingerprint.md): a few
 * one-workgroup microbenchmarks timed with the subgroup clock (clockARB), so no value depends on the SM count,
 * the clock rate or the memory system, plus what the API says (vendor, subgroup-size range, 64-bit and 16-bit
 * support). Each timed value is the median of several repeats, each the slope between two chain lengths
 * (fixed costs cancel), with its spread. Recipe c3 hashes the quantized signature with the occupancy class. */
typedef enum vkocc_sig_signal {
  VKOCC_SIG_FMA_LATENCY = 0,    /* cycles per dependent FP32 FMA */
  VKOCC_SIG_SHARED_LATENCY = 1, /* cycles per dependent shared-memory load (a pointer chase) */
  VKOCC_SIG_FP32_RATE = 2,      /* FP32 FMAs per cycle of one workgroup of 8 independent chains a lane */
  VKOCC_SIG_INT32_RATIO = 3,    /* INT32 multiply-adds per cycle / FP32 FMAs per cycle */
  VKOCC_SIG_FP64_RATIO = 4,     /* FP64 FMAs per cycle / FP32 (shaderFloat64) */
  VKOCC_SIG_FP16_RATIO = 5,     /* FP16 FMAs (f16vec2: two per lane) per cycle / FP32 (shaderFloat16) */
  VKOCC_SIG_COUNT = 6
} vkocc_sig_signal;
/* "fma_latency", "shared_latency", "fp32_rate", "int32_ratio", "fp64_ratio", "fp16_ratio" */
const char *vkocc_sig_signal_name(vkocc_sig_signal s);

typedef enum vkocc_sig_state {
  VKOCC_SIG_UNAVAILABLE = 0, /* the probe could not run (no subgroup clock, a pipeline failed): reason says why */
  VKOCC_SIG_MEASURED = 1,    /* measured and stable: part of the ID */
  VKOCC_SIG_UNSUPPORTED = 2, /* the device lacks the feature (shaderFloat64, shaderFloat16): that fact is in the ID */
  VKOCC_SIG_NOT_STABLE = 3,  /* measured but kept out of the ID: a CPU device's clock is not a cycle counter */
} vkocc_sig_state;
/* "unavailable", "measured", "unsupported", "not-stable" */
const char *vkocc_sig_state_name(vkocc_sig_state s);

#define VKOCC_SIG_MAX_REPEATS 16
typedef struct vkocc_sig_value {
  vkocc_sig_state state;
  double value;                 /* the median of the repeats (NAN unless measured) */
  double spread;                /* (max - min) / median of the repeats */
  uint32_t repeats;
  double samples[VKOCC_SIG_MAX_REPEATS];
  char reason[128];             /* why unavailable or not stable ("" otherwise) */
} vkocc_sig_value;

typedef struct vkocc_signature {
  bool present;                 /* false: no signature (a fingerprint of schema 1 or 2) */
  uint32_t vendor_id;
  uint32_t subgroup_min, subgroup_max; /* subgroupSizeControl's range; both subgroupSize without it */
  bool float64, int64, float16; /* shaderFloat64, shaderInt64, shaderFloat16 */
  uint32_t workgroup_size;      /* of the throughput benchmarks */
  uint32_t attempts;            /* measurements made (re-measured while a value straddled a quantization step) */
  double elapsed_ms;
  vkocc_sig_value v[VKOCC_SIG_COUNT];
} vkocc_signature;

typedef struct vkocc_signature_options {
  uint32_t repeats;             /* per value; 0: 5 */
  uint32_t max_attempts;        /* measurements before refusing an unstable signature; 0: 3 */
} vkocc_signature_options;

/* Measures the signature of the context's device. A value the device cannot measure is marked (unavailable,
 * unsupported, not-stable) rather than guessed. VKOCC_ERROR_RUNTIME, naming the value, its repeats and the
 * quantization step they straddle, when a value that enters the ID stays unstable after max_attempts
 * measurements (exit 1 in the CLI); a failed submission's error otherwise. options NULL: the defaults. */
vkocc_status vkocc_signature_measure(vkocc_context *ctx, const vkocc_signature_options *options, vkocc_signature *out);
/* The quantized value of signal s as the c3 ID hashes it (INT32_MIN when it does not enter the ID):
 * latencies in half octaves (round(2 log2 cycles)), the FP32 rate and the ratios in octaves (round(log2)). */
int32_t vkocc_sig_quantize(vkocc_sig_signal s, double value);
/* The text recipe c3 hashes after the occupancy text: "vendor=0x10de;sg=32..32;f64=1;i64=1;f16=1;fma_latency=4;..."
 * (an unavailable value "u", unsupported "n", not stable "-"). */
void vkocc_signature_text(const vkocc_signature *sig, char *out, size_t len);
/* Distance between two signatures: 1 for another vendor or subgroup range, else 0.05 per quantization step
 * of each signal both measured (so one differing step exceeds the cluster threshold), capped at 1. what: the
 * signals that differ ("fp32_rate 6 vs 7; ..."; "" when none), may be NULL. */
double vkocc_signature_distance(const vkocc_signature *a, const vkocc_signature *b, char *what, size_t what_len);

#define VKOCC_CANON_WG 16
#define VKOCC_CANON_SHARED 9
extern const uint32_t vkocc_canonical_wg[VKOCC_CANON_WG];         /* 32 .. 1024 */
extern const uint32_t vkocc_canonical_shared[VKOCC_CANON_SHARED]; /* 0 .. 48 KiB */

typedef enum vkocc_canon_source {
  VKOCC_CANON_UNRUNNABLE = 0, /* the device cannot run this point (above its limits) */
  VKOCC_CANON_MEASURED = 1,   /* P measured at exactly this point */
  VKOCC_CANON_MODEL = 2,      /* filled from the derived model (the surface did not hold the point) */
  VKOCC_CANON_MODEL_NOISY = 3, /* measured, but an isolated point the model does not explain: model value */
} vkocc_canon_source;

typedef struct vkocc_fingerprint {
  char cluster_id[24];                    /* "c3-" (or "c3p-": a partial signature) + 12 hex digits; c2/c1 in
                                           * documents without a signature */
  uint32_t subgroup_size;
  double normalized[VKOCC_CANON_WG][VKOCC_CANON_SHARED]; /* P / SMs; NAN where unrunnable */
  uint8_t source[VKOCC_CANON_WG][VKOCC_CANON_SHARED];    /* vkocc_canon_source */
  char device_name[256];
  char driver_info[256];
  char occupancy_id[24];                  /* the c2 ID of the normalized surface (the occupancy class) */
  vkocc_signature signature;              /* present: recipe c3 (schema 3) */
} vkocc_fingerprint;

/* Normalizes a surface by its derived SM count onto the canonical grid and computes the cluster ID. */
vkocc_status vkocc_fingerprint_from_surface(const vkocc_surface *s, const vkocc_derived *d, vkocc_fingerprint *fp);
/* The cluster ID of a normalized surface (FNV-1a 64 over its canonical text, see docs/fingerprint.md): recipe
 * c2, the occupancy class. */
void vkocc_cluster_id(const vkocc_fingerprint *fp, char out[24]);
/* Recipe c3: the occupancy text of c2 and vkocc_signature_text hashed together ("c3-" + 12 hex digits; "c3p-"
 * when a signal is unavailable or not stable, so a partial ID says so). Needs fp->signature.present. */
void vkocc_cluster_id_c3(const vkocc_fingerprint *fp, char out[24]);
/* The recipe a cluster ID was made by, read from its prefix: "c1-", "c2-", "c3-", "c3p-" (a partial signature);
 * VKOCC_RECIPE_NONE for anything else. The one place that knows the prefixes (the IDs are written by it too). */
typedef enum vkocc_cluster_recipe {
  VKOCC_RECIPE_NONE = 0,
  VKOCC_RECIPE_C1,
  VKOCC_RECIPE_C2,
  VKOCC_RECIPE_C3,
  VKOCC_RECIPE_C3_PARTIAL
} vkocc_cluster_recipe;
vkocc_cluster_recipe vkocc_cluster_id_recipe(const char *id);
/* The recipe's name as documents record it: "c1", "c2", "c3" (also for a partial c3); NULL for NONE. */
const char *vkocc_cluster_recipe_name(vkocc_cluster_recipe r);
/* Sets fp->occupancy_id and fp->cluster_id (c3 when fp->signature.present, else c2) from fp's content. */
void vkocc_fingerprint_set_ids(vkocc_fingerprint *fp);

typedef struct vkocc_fingerprint_options {
  bool fresh;                 /* measure even when the cache holds a fingerprint of this device */
  bool no_cache;              /* neither read nor write the cache */
  vkocc_method method;        /* 0: comb where the device clock exists, else bisect */
  vkocc_calibration_preset calibration; /* FULL (default) or QUICK */
  void (*progress)(void *user, const char *phase, uint32_t done, uint32_t total); /* NULL: silent */
  void *user;
} vkocc_fingerprint_options;

/* What vkocc_fingerprint_measure knows beyond the normalized surface; free with vkocc_fingerprint_details_free. */
typedef struct vkocc_fingerprint_details {
  vkocc_device_info device;   /* the device (from the cache: as recorded there) */
  vkocc_derived derived;      /* its SM count and per-SM limits */
  bool from_cache;            /* reused from the cache: nothing was measured */
  char cache_path[1024];      /* the cache file: $XDG_CACHE_HOME/vkocc/fingerprint-UUID-DRIVER-qFAMILY.json ("" none) */
  vkocc_method method;        /* the method the surface was measured with */
  double elapsed_ms;          /* calibration + surface (0 from the cache) */
  void *document;             /* internal: the whole vkocc.fingerprint/1 document */
} vkocc_fingerprint_details;
void vkocc_fingerprint_details_free(vkocc_fingerprint_details *d);

/* Fingerprints the context's device as `vkocc fingerprint` does: calibration, the surface on the canonical
 * grid clipped to the device's limits, derived limits, normalization, cluster ID. A cached fingerprint is
 * reused unless options->fresh when its seal matches: a checksum of its content and a key of the device, driver
 * name, info and version, queue family, the driver's environment (LP_NUM_THREADS and the rest) and vkocc's
 * version (an edited or foreign file is a miss); a fresh one is stored there (a cache that cannot be written is no
 * error). A context without the device clock the device has (disable_shader_clock) neither reads nor writes
 * the cache. options NULL: the defaults. details may be NULL (else free it with
 * vkocc_fingerprint_details_free, also after a failure). Errors: VKOCC_ERROR_USAGE for an unknown method or
 * preset; VKOCC_ERROR_UNSUPPORTED for the comb without the device clock; those of vkocc_calibrate,
 * vkocc_surface_measure and vkocc_derive. */
vkocc_status vkocc_fingerprint_measure(vkocc_context *ctx, const vkocc_fingerprint_options *options,
                                       vkocc_fingerprint *out, vkocc_fingerprint_details *details);
/* The register axis of a measured fingerprint (docs/fingerprint.md), recorded in its document (details): the
 * device's cached register model unless options->fresh, else a register sweep (workgroups 64, 256, 1024 that fit
 * x 0..256 values kept live in steps of 32) fitted with the fingerprint's own per-SM limits and cached for
 * `probe --shader` and `calc`. ctx: the fingerprint's device, or NULL to open one from context_options when a
 * sweep is needed. Where the driver reports no register statistics (lavapipe) or the sweep fails, the document
 * records the axis as unknown with the reason and *known is false: the fingerprint stands without it (the axis
 * is never part of the cluster ID), so that is VKOCC_OK too. */
typedef struct vkocc_fingerprint_register_options {
  bool fresh;                 /* sweep even where a cached model exists */
  void (*progress)(void *user, const char *phase, uint32_t done, uint32_t total);
  void *user;
} vkocc_fingerprint_register_options;
vkocc_status vkocc_fingerprint_registers(vkocc_context *ctx, const vkocc_context_options *context_options,
                                         const vkocc_fingerprint_register_options *options,
                                         vkocc_fingerprint_details *details, bool *known);
/* The cluster ID alone, for an application at its start (examples/cluster_start.c): the fingerprint's ID, without
 * the register axis (which is never part of it). From the fingerprint cache where it holds this device, driver
 * and queue family (no device is opened: milliseconds), else measured as vkocc_fingerprint_measure measures it
 * (calibration, the canonical surface, the architecture signature: about a second on a GPU) and cached for the
 * next start. options: the device and queue family (NULL: the defaults, VKOCC_DEVICE and VKOCC_QUEUE); fresh:
 * measure even where the cache holds it. The library prints nothing. Errors: those of vkocc_context_create and
 * vkocc_fingerprint_measure. */
typedef struct vkocc_cluster_id_answer {
  char cluster_id[24];        /* "c3-..." (or c3p-, c2-, c1- where the signature is partial or absent) */
  char occupancy_id[24];      /* the occupancy class alone (recipe c2) */
  bool from_cache;            /* the cache answered: nothing was measured */
  double elapsed_ms;          /* the whole call, wall clock */
  char device_name[256];      /* the device, as measured or recorded */
  uint32_t queue_family;      /* the queue family it stands for */
} vkocc_cluster_id_answer;
vkocc_status vkocc_cluster_id_only(const vkocc_context_options *options, bool fresh, vkocc_cluster_id_answer *out);
/* The fingerprint's register sweep and its fit (what vkocc_fingerprint_registers measures where nothing is cached),
 * designed for its cost: workgroups 64, 256 and 1024 (those that fit) x 32, 96, 160 and 256 values kept live first
 * (12 points; their pipelines built side by side), the model fitted with the device's other limits (derived); only
 * where that leaves the model open (the fit fails, a point is unexplained, no point was limited by registers, or R
 * spans a whole allocation granule U x Q or more) the rest of the grid 0..256 in steps of 32 (27 points) is measured
 * and the model fitted to all. On an H100 and an H200 (both queue families) the 12 points gave the model of the 27.
 * cal NULL: a quick calibration of its own (where the driver has register statistics). *points (malloc'd, free()) and *count: every point measured. Errors:
 * those of vkocc_register_surface_measure and vkocc_derive_registers. */
vkocc_status vkocc_register_model_measure(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_derived *derived,
                                          void (*progress)(void *user, const char *phase, uint32_t done, uint32_t total),
                                          void *user, vkocc_register_point **points, uint32_t *count,
                                          vkocc_register_model *model);
/* The cache lookup of vkocc_fingerprint_measure alone, from a device's description (vkocc_enumerate_devices,
 * with vkocc_select_queue_family's family in compute_queue_family): no device is opened. true on a hit
 * (details as from vkocc_fingerprint_measure, from_cache set); false when the cache holds no whole entry of
 * this vkocc version with that method (0: any). */
bool vkocc_fingerprint_from_cache(const vkocc_device_info *device, vkocc_method method, vkocc_fingerprint *out,
                                  vkocc_fingerprint_details *details);
/* Where vkocc_fingerprint_measure keeps a device's fingerprint ("" without a cache directory):
 * $XDG_CACHE_HOME/vkocc/fingerprint-UUID-DRIVER-qFAMILY[-lpN].json (the name; the seal inside holds the whole
 * key, see vkocc_fingerprint_measure). */
void vkocc_fingerprint_cache_path(const vkocc_device_info *d, char *out, size_t len);

/* Writes a vkocc.fingerprint/1 document (vkocc_fingerprint_load reads it back) through a temporary file and
 * a rename: nothing half-written on error. With details: the whole document (device, calibration, surface,
 * derived limits), else the normalized part with the device name and driver. path "-": stdout.
 * VKOCC_ERROR_USAGE when path cannot be written (a directory, a missing directory). */
vkocc_status vkocc_fingerprint_save(const vkocc_fingerprint *fp, const vkocc_fingerprint_details *details,
                                    const char *path);
/* Reads the fingerprint part of a vkocc.fingerprint/1 document; errors name the file and JSON path.
 * The cluster ID stored in the file must match the one recomputed from its normalized surface. */
vkocc_status vkocc_fingerprint_load(const char *path, vkocc_fingerprint *fp);
vkocc_status vkocc_fingerprint_parse(const char *text, size_t len, const char *name, vkocc_fingerprint *fp);
/* Reads a vkocc.fingerprint/1 file as vkocc_fingerprint_load does and, where the file has them, its device
 * (details->device) and derived limits (details->derived; sm_count 0 when absent). *has_device: the file
 * names the device (else details->device is zeroed). details->document holds the file; free with
 * vkocc_fingerprint_details_free (also after a failure). Errors: those of vkocc_fingerprint_load, and
 * VKOCC_ERROR_USAGE naming the JSON path of a malformed device or derived object. */
vkocc_status vkocc_fingerprint_load_details(const char *path, vkocc_fingerprint *fp, vkocc_fingerprint_details *details,
                                            bool *has_device);

/* Distance in [0, 1] between two fingerprints: over their normalized surfaces the mean over canonical points of
 * |a - b| / max(a, b), a point runnable on one device only counting 1 (different subgroup sizes: 1); where both
 * carry an architecture signature, plus vkocc_signature_distance (capped at 1). */
double vkocc_fingerprint_distance(const vkocc_fingerprint *a, const vkocc_fingerprint *b);
/* The same, and what it consists of in what ("surface 0.0093; signature 0.0500: fp64_ratio 0.5 vs 0.0156", or
 * "...; signature not compared (one fingerprint predates it)"). */
double vkocc_fingerprint_distance_explain(const vkocc_fingerprint *a, const vkocc_fingerprint *b, char *what,
                                          size_t what_len);

#define VKOCC_CLUSTER_THRESHOLD 0.02
/* Groups fingerprints: exact cluster-ID matches first, then leader clustering of the groups (largest
 * first) by distance <= threshold. cluster_of[i]: index of the leader fingerprint; distance[i]: to it. */
vkocc_status vkocc_cluster(const vkocc_fingerprint *fps, uint32_t n, double threshold, uint32_t *cluster_of,
                           double *distance, uint32_t *clusters);

#ifdef __cplusplus
}
#endif
#endif
