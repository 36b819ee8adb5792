/* vkocc — portable GPU occupancy through Vulkan microbenchmarks.
 *
 * One public header, in the order the data flows: errors, devices, a context, the clock calibration, the
 * probes (P of one pipeline at one point: how many workgroups are resident at once), the surface of P over
 * workgroup size x shared memory, the per-SM limits derived from it (and the register file), the
 * fingerprint and its cluster, the user's own pipeline, persistent threads, tuned policies, and last the
 * documents as jansson objects. Plots are in <vkocc_plot.h> (libvkocc-plot, the only part that links cairo).
 *
 *   #include <stdio.h>
 *   #include <vkocc.h>
 *
 *   int main(void) {
 *     vkocc_context *ctx;
 *     vkocc_fingerprint fp;
 *     vkocc_fingerprint_details det;
 *     vkocc_occupancy occ;
 *     if (vkocc_context_create(NULL, &ctx))                  // the default device (VKOCC_DEVICE)
 *       return fprintf(stderr, "%s\n", vkocc_last_error()), 1;
 *     if (vkocc_fingerprint_measure(ctx, NULL, &fp, &det) == VKOCC_OK) {  // cached after the first run
 *       vkocc_occupancy_compute(&det.derived, 256, 16384, &occ);  // 256 threads, 16 KiB shared memory
 *       printf("%s: %u SMs, %u workgroups at once, cluster %s\n", det.device.name, det.derived.sm_count,
 *              occ.wgs, fp.cluster_id);
 *     } else {
 *       fprintf(stderr, "%s\n", vkocc_last_error());
 *     }
 *     vkocc_fingerprint_details_free(&det);
 *     vkocc_context_destroy(ctx);
 *   }
 *
 * Conventions. Every function that can fail returns a vkocc_status (the others are pure lookups,
 * formatters and free functions); on failure vkocc_last_error() holds one line naming what failed and with
 * what (device, flag, file and JSON path, VkResult name); every call that returns a status clears it first,
 * so after a success it is "". Results go through out-parameters. Out of memory ends the process with one
 * line on stderr (the allocations are small bookkeeping). Times are in nanoseconds unless a name says
 * otherwise. Not thread-safe per context. The header includes no Vulkan header: Vulkan values appear as
 * plain integers (VkPhysicalDeviceType, VkQueueFlags) and handles as void *.
 */
#ifndef VKOCC_H
#define VKOCC_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h> /* sig_atomic_t: the stop flag of a tuning run */
#include <stdint.h>
#include <stdio.h>  /* FILE: the calculator's emitter */

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ errors and status */

/* Status values double as the CLI's exit codes. */
typedef enum vkocc_status {
  VKOCC_OK = 0,
  VKOCC_ERROR_RUNTIME = 1,     /* measurement or runtime failure (device lost, timeout, inconsistent data) */
  VKOCC_ERROR_USAGE = 2,       /* bad input: flag, file, JSON, no such device */
  VKOCC_ERROR_UNSUPPORTED = 3, /* the device or system lacks what is needed (loader, driver, timestamps) */
} vkocc_status;

/* The message of the last failure on this thread (never NULL; "" when none or after a call that succeeded). */
const char *vkocc_last_error(void);
/* For callbacks that return a vkocc_status (vkocc_runtime_fn, vkocc_workload_fn) and for libraries built on
 * vkocc (libvkocc-plot reports through these): vkocc_fail records a failure the way the library does (the
 * printf-formatted message becomes vkocc_last_error() of this thread) and returns s; vkocc_clear_error
 * empties it, as every status call of the library does when it succeeds. */
vkocc_status vkocc_fail(vkocc_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void vkocc_clear_error(void);

/* Why the last failure on this thread failed, beside its message (the status says only how bad): callers decide
 * by this, never by the message's text. The reason of the first failure since the last vkocc_clear_error stays
 * when later failures wrap its message with context; one given explicitly (vkocc_fail_reason) replaces it. */
typedef enum vkocc_reason {
  VKOCC_REASON_NONE = 0,          /* no failure, or none more specific than the status */
  VKOCC_REASON_BAD_INPUT,         /* a file, JSON value, flag or argument (VKOCC_ERROR_USAGE by default) */
  VKOCC_REASON_UNSUPPORTED,       /* the device or system lacks it (VKOCC_ERROR_UNSUPPORTED by default) */
  VKOCC_REASON_NOISY,             /* a measurement too disturbed to answer (a poor fit, runtimes that disagree) */
  VKOCC_REASON_ITERATION_BOUND,   /* a shader's sleep ended at its loop's iteration bound before its time */
  VKOCC_REASON_TIMEOUT,           /* the GPU did not finish in time (VK_TIMEOUT) */
  VKOCC_REASON_DEVICE_LOST,       /* VK_ERROR_DEVICE_LOST: the device's results are void */
  VKOCC_REASON_WRITTEN_UNKNOWN,   /* P was measured on the augmented pipeline only: the written one's is unknown */
  VKOCC_REASON_IO,                /* a file could not be read or written */
  VKOCC_REASON_INTERRUPTED,       /* stopped on request */
} vkocc_reason;
vkocc_reason vkocc_last_reason(void);
const char *vkocc_reason_name(vkocc_reason r); /* "bad input", "iteration bound", ... ("" for none) */
/* vkocc_fail with the reason given: it replaces the thread's reason. */
vkocc_status vkocc_fail_reason(vkocc_status s, vkocc_reason reason, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

const char *vkocc_version(void);
/* Monotonic clock in milliseconds (for timing what callers do around the library). */
double vkocc_now_ms(void);

/* Files written whole, as every output of vkocc is: data goes to a temporary file in the same directory,
 * then a rename, so a reader never sees half a file and nothing is left behind on error. Replaces only a
 * regular file (a directory, device, FIFO or socket: VKOCC_ERROR_USAGE); a symbolic link is followed and
 * the file it names replaced (the link stays), a link to nothing refused. vkocc_output_check runs the same
 * checks without writing: call it before measuring, so a bad path costs no measurement. */
vkocc_status vkocc_write_file_atomic(const char *path, const void *data, size_t len);
vkocc_status vkocc_output_check(const char *path);
/* An exclusive lock on the output `out` while it is written, so that two vkocc writing one file never lose one's
 * results silently: the lock file OUT.lock beside it (its path in lock_path, len bytes; "" where none was taken),
 * opened through vkocc's door for the files it makes itself (a symbolic link, to a file or to nothing, a FIFO, a
 * device or a folder there is VKOCC_ERROR_USAGE naming it, never followed, never waited on) and locked with
 * flock(2). *fd: the descriptor that holds the lock until it is closed or the process ends (-1 where a folder
 * takes no lock file: then nothing is promised). VKOCC_ERROR_USAGE naming the holder's pid when another process
 * holds it. The caller removes lock_path when done. */
vkocc_status vkocc_output_lock(const char *out, char *lock_path, size_t len, int *fd);

/* ================================================================ devices and device identity */

/* What the driver itself says about the device's cores, through a vendor extension (optional: read from
 * properties2, no extension is enabled). vkocc never uses these to measure; they are shown next to what it
 * measured as a cross-check. source is "" when the device exposes none of the extensions. */
typedef struct vkocc_vendor_reported {
  char source[48];              /* "VK_NV_shader_sm_builtins", "VK_AMD_shader_core_properties(2)",
                                   "VK_ARM_shader_core_builtins" or "" */
  uint32_t cores;               /* SMs (NV), active compute units (AMD), shader cores (ARM); 0 unknown */
  uint32_t warps_per_core;      /* warps per SM (NV), wavefronts per CU (AMD: per SIMD x SIMDs per CU),
                                   warps per core (ARM); 0 unknown */
  /* AMD detail (0 elsewhere) */
  uint32_t amd_shader_engines, amd_arrays_per_engine, amd_cus_per_array, amd_simds_per_cu;
  uint32_t amd_wavefronts_per_simd, amd_wavefront_size;
  uint32_t amd_active_cus;      /* VK_AMD_shader_core_properties2; 0 without it */
} vkocc_vendor_reported;

#define VKOCC_MAX_QUEUE_FAMILIES 16

/* A device as the driver describes it, and the queue family measured on. Every document vkocc writes
 * records it (a measurement holds only for the device, driver and queue family it was made on). */
typedef struct vkocc_device_info {
  uint32_t index;               /* position in vkEnumeratePhysicalDevices */
  char name[256];
  uint32_t vendor_id, device_id;
  uint32_t device_type;         /* VkPhysicalDeviceType */
  char driver_name[256];        /* VkPhysicalDeviceDriverProperties (empty if unavailable) */
  char driver_info[256];
  uint32_t driver_version;      /* raw VkPhysicalDeviceProperties::driverVersion */
  uint32_t api_version;
  uint8_t uuid[16];             /* deviceUUID */
  uint32_t subgroup_size;
  uint32_t max_shared_bytes;    /* maxComputeSharedMemorySize */
  uint32_t max_invocations;     /* maxComputeWorkGroupInvocations */
  uint32_t max_wg_size_x;       /* maxComputeWorkGroupSize[0] */
  uint32_t max_wg_count_x;      /* maxComputeWorkGroupCount[0] */
  uint32_t compute_queue_family;/* the family measured on: from vkocc_enumerate_devices the default choice
                                   (--queue compute), from a context the one it opened; UINT32_MAX if none
                                   (or unknown, in a document written before vkocc recorded it) */
  uint32_t timestamp_valid_bits;/* of that family; 0 = no timestamps there */
  float timestamp_period;       /* ns per timestamp tick */
  bool timestamp_compute_and_graphics;
  bool has_shader_clock_ext;    /* VK_KHR_shader_clock */
  bool shader_subgroup_clock;   /* feature shaderSubgroupClock */
  bool shader_device_clock;     /* feature shaderDeviceClock */
  vkocc_vendor_reported vendor; /* vendor cross-check (source "" when none) */
  /* The queue family measured on matters: on NVIDIA (H100/H200, driver 580) a pipeline gets about 100 KiB of
   * shared memory per SM on the compute-only family and 48 KiB on the graphics+compute one
   * (docs/results/h100/carveout/README.md). */
  uint32_t compute_queue_flags; /* VkQueueFlags of compute_queue_family (0 unknown) */
  char queue_choice[16];        /* what chose it: "compute", "graphics", an index, or "" (unknown) */
  uint32_t queue_family_count;  /* every family of the device (at most VKOCC_MAX_QUEUE_FAMILIES kept) */
  struct {
    uint32_t flags;             /* VkQueueFlags */
    uint32_t queue_count;
    uint32_t timestamp_valid_bits;
  } queue_families[VKOCC_MAX_QUEUE_FAMILIES];
} vkocc_device_info;

/* Lists every physical device. *devices is malloc'd; free with free(). Fails with
 * VKOCC_ERROR_UNSUPPORTED when there is no loader, no driver or no device. */
vkocc_status vkocc_enumerate_devices(vkocc_device_info **devices, uint32_t *count);

/* Picks a device. spec: NULL/"" for the default (first discrete GPU, else integrated, else virtual, else
 * CPU, else other), a decimal index, a device UUID (32 hex digits, dashes allowed), or a case-insensitive
 * substring of the name. VKOCC_ERROR_USAGE with the list of devices in the message when nothing matches
 * or a substring is ambiguous. */
vkocc_status vkocc_select_device(const vkocc_device_info *devices, uint32_t count, const char *spec,
                                 uint32_t *index);
/* The same, with the messages naming where spec came from (source: "--device", "VKOCC_DEVICE"). */
vkocc_status vkocc_select_device_from(const vkocc_device_info *devices, uint32_t count, const char *spec,
                                      const char *source, uint32_t *index);

/* Picks the queue family to measure on. spec: NULL/"" or "compute" for a family with compute and
 * timestamps but no graphics where one exists, else one with graphics+compute (the default, *fell_back set
 * when there is no compute-only family); "graphics" for a family with graphics, compute and timestamps (what
 * most applications submit compute work on); or a decimal family index, which must have compute and
 * timestamps. source names the setting in messages ("--queue", "VKOCC_QUEUE"). VKOCC_ERROR_USAGE for a
 * value that is none of these or an index the device lacks, VKOCC_ERROR_UNSUPPORTED when the family asked
 * for lacks compute or timestamps or no family fits; the message lists the device's families. */
vkocc_status vkocc_select_queue_family(const vkocc_device_info *device, const char *spec, const char *source,
                                       uint32_t *family, bool *fell_back);
/* Records family (UINT32_MAX: none) as the one d is measured on, chosen by choice ("compute", "graphics", an
 * index): compute_queue_family, its flags and timestamp bits, queue_choice. A description from
 * vkocc_enumerate_devices then names the family as a context opened on it would (vkocc_fingerprint_from_cache). */
void vkocc_device_use_queue_family(vkocc_device_info *d, uint32_t family, const char *choice);

/* The largest workgroup size a 1-D dispatch of the device can use: min(maxComputeWorkGroupInvocations,
 * maxComputeWorkGroupSize[0]). */
uint32_t vkocc_device_max_wg_size(const vkocc_device_info *d);

/* The exact-device key of policy databases and tuning results: "VVVV:DDDD NAME | DRIVER_INFO | sm N", the SM
 * count as the fingerprint derived it (0 unknown); it tells apart devices that share a name (lavapipe with
 * another LP_NUM_THREADS, a cut-down part). */
void vkocc_device_key(const vkocc_device_info *d, uint32_t sm_count, char *out, size_t len);

/* Who measured: the identity every document carries in its "device" object, the whole vkocc_device_info
 * (measurements: surface, fingerprint, probe, calibration, calc, registers) or the short form of tuning
 * results (name, ids, driver, SM count, key). A measurement holds only for this device, driver and queue
 * family; tuning results and policies are matched by key. */
typedef struct vkocc_device_identity {
  char name[256];
  uint32_t vendor_id, device_id;
  uint32_t device_type;         /* VkPhysicalDeviceType (0, "other", where the document does not say) */
  char driver_name[256], driver_info[256];
  uint32_t driver_version;      /* raw VkPhysicalDeviceProperties::driverVersion */
  uint8_t uuid[16];             /* deviceUUID; zeros where the document does not record it */
  uint32_t queue_family;        /* the family measured on; UINT32_MAX unknown */
  uint32_t queue_flags;         /* its VkQueueFlags (vkocc_queue_kind_name); 0 unknown */
  uint32_t sm_count;            /* as the fingerprint derived it; 0 unknown */
  char key[600];                /* vkocc_device_key */
} vkocc_device_identity;
/* The identity of a device as the driver describes it, with the SM count a fingerprint derived (0 unknown). */
void vkocc_device_identity_of(const vkocc_device_info *d, uint32_t sm_count, vkocc_device_identity *out);
/* The identity of the device a document of vkocc was measured on: any document the schema table gives a
 * device (a fingerprint adds its derived SM count). VKOCC_ERROR_USAGE naming the file and JSON path for a
 * file that is no vkocc document, a document without a device ("$.device: this vkocc.clusters document names
 * no device") or a malformed device object. */
vkocc_status vkocc_document_device(const char *path, vkocc_device_identity *out);

/* Whether a document measured on id may be combined with a measurement on d: the same device (deviceUUID, where
 * the document records one) and the same driver (name, info and version). false, with both named in why, when
 * they differ: a measurement of one device and a document of another give no answer for either. */
bool vkocc_device_identity_same(const vkocc_device_identity *id, const vkocc_device_info *d, char *why, size_t len);

/* Names and formats for reports. */
const char *vkocc_device_type_name(uint32_t vk_device_type);
/* "MAJOR.MINOR.PATCH" of a Vulkan API version; driver versions are vendor-encoded (NVIDIA 10.8.8.6 bits). */
void vkocc_format_api_version(uint32_t v, char out[32]);
void vkocc_format_driver_version(uint32_t vendor_id, uint32_t v, char out[32]);
void vkocc_format_uuid(const uint8_t uuid[16], char out[37]);
/* "graphics+compute+transfer": the graphics, compute, transfer, sparse and protected bits joined by '+'
 * (other bits as 0x...), "none" for 0. */
void vkocc_format_queue_flags(uint32_t vk_queue_flags, char out[96]);
/* "compute-only" (compute without graphics), "graphics+compute", "other" (no compute) or "unknown" (flags 0). */
const char *vkocc_queue_kind_name(uint32_t vk_queue_flags);

/* ================================================================ context */

typedef struct vkocc_context vkocc_context;

/* A wait on another vkocc process: a measurement that needs the device to itself waits for the device lock
 * files (device-UUID.lock and .intent in the cache directory) that other processes hold. */
typedef struct vkocc_wait_info {
  const char *what;  /* who waits: "the clock calibration", "the occupancy probe", "a submission" */
  const char *lock;  /* "device lock" or "device intent" */
  const char *path;  /* the lock file */
  long holder_pid;   /* a process holding it (from /proc/locks), 0 where unknown */
  double waited_s;   /* how long this wait has lasted */
  double bound_s;    /* how long it lasts at most (then the call fails, reason VKOCC_REASON_TIMEOUT) */
  bool done;         /* the last call for this wait: the lock was taken, the bound passed or the wait stopped */
} vkocc_wait_info;

typedef struct vkocc_context_options {
  const char *device;           /* see vkocc_select_device; NULL: VKOCC_DEVICE from the environment */
  bool disable_shader_clock;    /* act as if the device had no VK_KHR_shader_clock (tests the fallbacks) */
  double timeout_s;             /* host wait limit for one submission; 0 = 10 s (60 s on a CPU device) */
  const char *queue;            /* queue family: "compute", "graphics" or an index (vkocc_select_queue_family);
                                   NULL: VKOCC_QUEUE from the environment, else "compute" */
  /* Told of waits on other vkocc processes (the library prints nothing): called once a wait has lasted one
   * second, then about every 10 ms while it lasts, and once more with w->done when it ends; from the thread
   * that waits. Return false to stop waiting: the call that waited fails with VKOCC_ERROR_RUNTIME, reason
   * VKOCC_REASON_INTERRUPTED, naming the lock. NULL: waits are silent. */
  bool (*wait)(void *user, const vkocc_wait_info *w);
  void *wait_user;
} vkocc_context_options;

/* Opens the device with one queue of the chosen family (options->queue). VKOCC_ERROR_USAGE for a bad queue
 * choice, VKOCC_ERROR_UNSUPPORTED if the family has no compute or no timestamps. vkocc_context_device()
 * then names the family in compute_queue_family, compute_queue_flags and queue_choice. */
vkocc_status vkocc_context_create(const vkocc_context_options *options, vkocc_context **ctx);

/* The application's own Vulkan objects, as plain handles so that this header needs no Vulkan header. The
 * instance must be of Vulkan 1.1 or later (vkocc reads properties2 and features2). */
typedef struct vkocc_external_device {
  void *instance;               /* VkInstance */
  void *physical_device;        /* VkPhysicalDevice the device was created on */
  void *device;                 /* VkDevice */
  uint32_t queue_family;        /* a family of `device` with compute and timestamps */
  uint32_t queue_index;         /* which queue of that family vkocc submits to (the app must not use it meanwhile) */
  /* the application's vkGetInstanceProcAddr as a generic function pointer (ISO C casts between function
   * pointer types, not to void *): (void (*)(void))vkGetInstanceProcAddr; NULL: the system loader's */
  void (*get_instance_proc_addr)(void);
  /* What the application enabled on `device` (Vulkan cannot be asked): VK_KHR_shader_clock with
   * shaderDeviceClock / shaderSubgroupClock. Without the device clock, P is measured by bisection only. */
  bool shader_device_clock, shader_subgroup_clock;
  double timeout_s;             /* host wait limit for one submission; 0 = 10 s (60 s on a CPU device) */
} vkocc_external_device;

/* A context on the application's device: no instance or device is created; vkocc makes its own command
 * pool, fence, query pool, pipelines and buffers on `device` and destroys only those (vkocc_context_destroy
 * never destroys the application's objects, nor waits for its other queues). VKOCC_ERROR_USAGE for a NULL
 * handle, a physical device not in the instance, a family index out of range; VKOCC_ERROR_UNSUPPORTED when
 * the family lacks compute or timestamps. Only one context's device functions are loaded at a time:
 * do not use two contexts at once. */
vkocc_status vkocc_context_create_external(const vkocc_external_device *ext, vkocc_context **ctx);

void vkocc_context_destroy(vkocc_context *ctx);
const vkocc_device_info *vkocc_context_device(const vkocc_context *ctx);
/* Whether the context enabled the realtime / subgroup clock (false when disabled by option). */
bool vkocc_context_has_device_clock(const vkocc_context *ctx);
bool vkocc_context_has_subgroup_clock(const vkocc_context *ctx);

/* ================================================================ numbers: ticks, fits, summaries (no device) */

typedef enum vkocc_tick_status {
  VKOCC_TICKS_OK = 0,
  VKOCC_TICKS_WRAPPED = 1,   /* end < start within valid_bits, explained by one wrap: delta is valid */
  VKOCC_TICKS_BACKWARDS = 2, /* the counter went backwards (or wrapped more than half its range): invalid */
} vkocc_tick_status;

/* Masks start and end to valid_bits (1..64) and returns their forward distance modulo 2^valid_bits.
 * A 64-bit counter never legitimately wraps, so end < start there is BACKWARDS. *delta is 0 on BACKWARDS. */
vkocc_tick_status vkocc_tick_delta(uint64_t start, uint64_t end, uint32_t valid_bits, uint64_t *delta);

typedef struct vkocc_linfit {
  double slope, intercept;
  double r2;                 /* coefficient of determination over the points kept */
  double max_rel_residual;   /* max |y - fit| / |fit| over the points kept */
  uint32_t n, n_used;        /* points given, points kept after outlier rejection */
} vkocc_linfit;

/* Least squares y = intercept + slope x. With reject_outliers, points whose residual exceeds
 * max(4 robust sigmas, 1e-9 |y|) are dropped and the line refitted (at most 3 rounds, at least half kept).
 * VKOCC_ERROR_RUNTIME when fewer than 2 points or all x equal. */
vkocc_status vkocc_linfit_compute(const double *x, const double *y, uint32_t n, bool reject_outliers,
                                  vkocc_linfit *out);

typedef struct vkocc_summary {
  double median, min, max, mad; /* mad: median absolute deviation */
  uint32_t n;
} vkocc_summary;
void vkocc_summarize(const double *v, uint32_t n, vkocc_summary *out);

/* ================================================================ calibration
 * The shader's clocks against the queue's timestamps: a spin of known length is timed both ways at several
 * lengths and a line fitted, so later measurements can read durations inside the shader. */

typedef struct vkocc_calibrate_options {
  uint32_t lengths;     /* spin lengths; 0 = 8 */
  double span;          /* longest / shortest; 0 = 20 */
  uint32_t repeats;     /* per length; 0 = 5 */
  uint32_t warmups;     /* discarded dispatches before measuring; 0 = 3 */
  double longest_ns;    /* target duration of the longest spin; 0 = 4 ms (16 ms on CPU devices) */
} vkocc_calibrate_options;

/* Named calibrations: FULL is vkocc_calibrate's defaults (all fields 0); QUICK (4 lengths, 3 repeats, the
 * longest spin 1 ms) is what a probe, a surface or calc runs when no calibration was given. */
typedef enum vkocc_calibration_preset {
  VKOCC_CALIBRATION_FULL = 0,
  VKOCC_CALIBRATION_QUICK = 1,
} vkocc_calibration_preset;
void vkocc_calibrate_preset(vkocc_calibration_preset preset, vkocc_calibrate_options *out);

typedef struct vkocc_calibration {
  bool has_device_clock, has_subgroup_clock;
  double ns_per_tick;        /* realtime clock: queue ns per clockRealtimeEXT tick (anchor_fit's slope, or where
                              * the starts disagree with the intervals by more than 10%, realtime_fit's; note says) */
  vkocc_linfit realtime_fit; /* each dispatch's queue ns against its realtime ticks (intercept: the overhead) */
  vkocc_linfit anchor_fit;   /* queue ns against realtime ticks at the dispatches' starts, over the whole run */
  double anchor_span_ns;     /* the queue time anchor_fit covers */
  bool from_starts;          /* ns_per_tick is anchor_fit's slope */
  double shader_clock_mhz;   /* subgroup clock: cycles per microsecond of queue time */
  vkocc_linfit subgroup_fit; /* queue ns against subgroup-clock cycles */
  vkocc_linfit spin_fit;     /* queue ns against spin iterations (always measured) */
  double overhead_ns;        /* dispatch overhead: intercept of the realtime fit, else of the spin fit */
  double timestamp_period;
  uint32_t timestamp_valid_bits;
  bool tick_equals_period;   /* ns_per_tick within 2% of timestampPeriod */
  uint32_t samples;          /* dispatches measured (warm-ups excluded) */
  uint32_t wraps;            /* deltas that needed a wrap correction */
  uint32_t backwards;        /* samples dropped because a clock went backwards */
  double longest_ns;         /* longest spin actually measured */
  uint32_t attempts;         /* measurements made: a poor fit (R^2 < 0.999) is measured again, 3 at most */
  bool poor_fit;             /* still poor after 3: the figures are not to be trusted */
  char note[256];            /* what could not be measured, if anything */
} vkocc_calibration;

/* Measures the clocks. A fit below R^2 0.999 (or not rising, or missing a length) is measured again with
 * spins 4 and 16 times longer; still poor after 3 attempts: VKOCC_ERROR_RUNTIME (reason VKOCC_REASON_NOISY)
 * with the fits' numbers in the message, and *out filled with poor_fit set (the evidence, never a clock to measure with). */
vkocc_status vkocc_calibrate(vkocc_context *ctx, const vkocc_calibrate_options *options,
                             vkocc_calibration *out);

/* The documents of a calibration and of a probe (what `vkocc calibrate -o`, `probe -o` and `probe --raw` write;
 * the calibration's here, the probe's two with the probes). Each is stamped with its schema and vkocc's version
 * and written whole (through a temporary file and a rename; "-": standard output). vkocc_calibration_save:
 * vkocc.calibration/1, the device and the calibration. vkocc_probe_save: vkocc.probe/1, the device and the
 * probe's result with every repetition. vkocc_raw_probe_save: vkocc.raw-probe/1 (vkocc_raw_probe_load reads it),
 * the last comb's intervals of a result probed with keep_raw. VKOCC_ERROR_USAGE for a missing argument (or a
 * result without repetitions); otherwise the errors of vkocc_write_file_atomic. */
vkocc_status vkocc_calibration_save(const vkocc_device_info *device, const vkocc_calibration *cal, const char *path);

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

/* ---------------------------------------------------------------- registers: the third axis of occupancy
 * (docs/model.md "Registers"). Vulkan reports no register file; vkocc measures it: a probe pipeline whose
 * register use is set by a specialization constant, its register count read back from
 * VK_KHR_pipeline_executable_properties, P measured over workgroup size x registers. The model fitted to
 * those points:
 *   registers of one subgroup   a = ceil(r x g / U) x U                       (U: allocation unit per subgroup)
 *   subgroups per SM            Q x floor(floor(R / Q) / a)                   (Q: register-file partitions)
 *   workgroups per SM           floor(subgroups per SM / ceil(wg / g))
 * CUDA's cuda_occupancy.h computes the same (regsPerMultiprocessor R, 256-register warp granularity U, 4
 * sub-partitions Q on current GPUs). */

typedef struct vkocc_register_model {
  bool known;                   /* false: no register statistic (lavapipe), or nothing measured: "unknown" */
  uint32_t subgroup_size;       /* g */
  uint32_t regs_per_sm;         /* R: the lowest value consistent with the points */
  uint32_t regs_per_sm_max;     /* the highest consistent value (UINT32_MAX: only a lower bound) */
  uint32_t alloc_unit;          /* U: registers per subgroup are allocated in units of this many */
  uint32_t alloc_unit_per_invocation; /* U / g */
  uint32_t partitions;          /* Q */
  uint32_t max_per_invocation;  /* the most registers one invocation was seen to get */
  bool max_capped;              /* the cap was reached: more live values gave no more registers, or a point at the
                                   most registers asked for more live values than registers */
  bool bound_seen;              /* some point was limited by registers; else R is only a lower bound */
  bool ambiguous;               /* another (U, Q) explained as many points (the coarser one is kept) */
  uint32_t explained, total;    /* points the model (with the device's other limits) reproduces exactly */
  uint32_t unexplained[VKOCC_MAX_UNEXPLAINED]; /* indices of the others (the first 64) */
  uint32_t n_unexplained;
} vkocc_register_model;

/* One point of a register surface: P at a workgroup size for a pipeline the driver gave `registers`
 * registers per invocation and `shared_bytes` of shared memory (its own statistics). */
typedef struct vkocc_register_point {
  uint32_t wg_size, registers, shared_bytes, P;
  uint32_t requested;           /* live values the probe asked for (0: unknown) */
} vkocc_register_point;

/* The register surface: P of the register probe (a pipeline keeping `live` values live, the driver's register
 * count read back) over workgroup sizes x live values, shared memory 0. */
typedef struct vkocc_register_surface_options {
  const uint32_t *wg_sizes;     /* NULL: 64, 128, 256, 512, 768, 1024 (those the device allows) */
  uint32_t wg_count;
  const uint32_t *live;         /* values kept live, 0..256; NULL: 0, 8, 16, ..., 248, 256 */
  uint32_t live_count;
  vkocc_method method;          /* 0: the comb (the register probe needs the realtime shader clock) */
  void (*progress)(void *user, const char *phase, uint32_t done, uint32_t total);
  void *user;
} vkocc_register_surface_options;
/* *points malloc'd (free()), one per (wg, live) in that order. VKOCC_ERROR_UNSUPPORTED, with "the register axis
 * is unknown" in the message, where the driver reports no register statistic (VK_KHR_pipeline_executable_properties
 * absent, or no register count among its statistics: lavapipe): nothing is then measured. */
vkocc_status vkocc_register_surface_measure(vkocc_context *ctx, const vkocc_calibration *cal,
                                            const vkocc_register_surface_options *options,
                                            vkocc_register_point **points, uint32_t *count);

/* Fits R, U and Q to register points, given the device's other limits (base: SM count, W, S, g, M; from
 * the device surface, or vkocc_derive over the register points with the fewest registers). Every (U per
 * invocation 1, 2, 4, 8, 16; Q 1, 2, 4) is tried, R voted as S is; the one that reproduces the most
 * points wins (ties to the coarser unit, then more partitions: the smaller prediction). Points the fit
 * does not reproduce are listed, never smoothed. VKOCC_ERROR_RUNTIME when no point carries a register
 * count (out->known false: the axis is unknown). */
vkocc_status vkocc_derive_registers(const vkocc_register_point *points, uint32_t n, const vkocc_derived *base,
                                    vkocc_register_model *out);
/* The device's other limits (SM count, workgroup and subgroup slots) from register points alone, for when no
 * surface of the device is at hand: the SM count from every point, the slots from the point with the fewest
 * registers at each workgroup size. Weaker than the device surface (shared memory stays unknown). */
vkocc_status vkocc_register_base(const vkocc_register_point *points, uint32_t n, uint32_t subgroup_size,
                                 vkocc_derived *out);
/* Workgroups per SM the register file allows at (wg_size, registers per invocation); VKOCC_NO_LIMIT when
 * the model is unknown or registers is 0. */
uint32_t vkocc_register_limit(const vkocc_register_model *m, uint32_t wg_size, uint32_t registers);
/* vkocc_limits_per_sm_compute with the register limit filled in (and taking part in wg_per_sm/binding). */
void vkocc_limits_per_sm_registers(const vkocc_derived *d, const vkocc_register_model *m, uint32_t wg_size,
                                   uint32_t shared_bytes, uint32_t registers, vkocc_limits_per_sm *out);
/* P on the whole device of a pipeline with these statistics under the model (SMs x the smallest limit);
 * *binding: vkocc_limit bits (VKOCC_LIMIT_REGISTERS included). Limits that are unknown do not take part. */
uint32_t vkocc_model_P(const vkocc_derived *d, const vkocc_register_model *m, uint32_t wg_size, uint32_t shared_bytes,
                       uint32_t registers, uint32_t *binding);

/* The register document (schema vkocc.registers/1, `vkocc surface --registers`): the points, the device's other
 * limits the model was fitted with (base), the model. */
typedef struct vkocc_register_doc {
  vkocc_device_info device;
  bool has_device;
  vkocc_register_point *points; /* malloc'd */
  uint32_t count;
  vkocc_derived base;
  bool has_base;
  vkocc_register_model model;   /* known false when absent or unknown */
} vkocc_register_doc;
/* Reads a register document: errors (VKOCC_ERROR_USAGE) name the file and JSON path, also for a point that
 * repeats (wg_size, registers, shared_bytes) with another P (conflicting points) and for a document without
 * points. Free with vkocc_register_doc_free (also after a failure). */
vkocc_status vkocc_register_doc_load(const char *path, vkocc_register_doc *out);
void vkocc_register_doc_free(vkocc_register_doc *d);
/* Where `vkocc surface --registers` and `vkocc fingerprint` keep a device's register document:
 * $XDG_CACHE_HOME/vkocc/registers-UUID-DRIVER.json ("" without a cache directory). The file is sealed: it is
 * used only when its checksum and key (device, driver name, info and version, the driver's environment, vkocc's
 * version) match; an edited or foreign file is a miss. Not the queue family: the register file is the same on every
 * family, so a model measured on one serves the others (the document's base limits are its own family's). */
void vkocc_register_cache_path(const vkocc_device_info *d, char *out, size_t len);
/* The cached register model of the device: true when a document with a known model is there. */
bool vkocc_register_model_from_cache(const vkocc_device_info *d, vkocc_register_model *m);
/* The device's cached register document, whole (vkocc_register_model_from_cache keeps only its model): true and
 * out filled (free with vkocc_register_doc_free) when the cache holds the entry sealed with this device's key (the
 * device, driver, queue family, driver environment and vkocc's version); false on a miss, an edited, foreign or
 * unsealed file among them. */
bool vkocc_register_doc_from_cache(const vkocc_device_info *d, vkocc_register_doc *out);

/* The register file as the vendor reports it, a cross-check for the measured model (never used to measure):
 * VK_AMD_shader_core_properties' VGPRs per SIMD (per lane), their allocation granularity and SIMDs per CU give
 * registers per CU = vgprs_per_simd x wavefront size x SIMDs, allocated per invocation in units of the granularity,
 * in SIMDs partitions. source "" where the device reports none (NVIDIA, Intel, lavapipe). */
typedef struct vkocc_vendor_registers {
  char source[48];
  uint32_t vgprs_per_simd, vgpr_granularity, min_vgprs, max_vgprs, sgprs_per_simd, simds_per_cu, wavefront_size;
  uint32_t regs_per_sm;         /* vgprs_per_simd x wavefront_size x simds_per_cu (0 unknown) */
} vkocc_vendor_registers;
void vkocc_vendor_registers_get(const vkocc_context *ctx, vkocc_vendor_registers *out);

/* ================================================================ the occupancy calculator (`vkocc calc`)
 * From a model (derived limits, the points they came from, optionally the register file): one point, a table
 * over workgroup sizes, or the workgroup size to use; then one emitter writes the answer as text, CSV or a
 * vkocc.calc/1 document. No device: a live surface or fingerprint gives the model as well as a file does.
 *     vkocc_calc_model m;
 *     if (vkocc_calc_model_load("fingerprint.json", 0, &m) == VKOCC_OK) {
 *       vkocc_calc_row r;
 *       vkocc_calc_point(&m, 256, 16384, &r);   // 256 threads, 16 KiB shared memory
 *       printf("%.2f%%%s\n", r.occupancy.occupancy_pct, r.bound == VKOCC_CALC_EXACT ? "" : " (at most)");
 *       vkocc_calc_model_free(&m);
 *     } */

/* Where a row's P comes from. */
typedef enum vkocc_calc_source {
  VKOCC_CALC_MODEL = 0,     /* the derived model: no point of the file is here */
  VKOCC_CALC_MEASURED = 1,  /* a measured point */
  VKOCC_CALC_PREDICTED = 2, /* a point an adaptive surface predicted and did not measure */
} vkocc_calc_source;
const char *vkocc_calc_source_name(vkocc_calc_source s); /* "model", "measured", "predicted" */

/* What a row's occupancy_pct is. The per-SM thread maximum is S x subgroup size, known exactly only when some
 * point was limited by subgroup slots (vkocc_derived.subgroups_bound_seen): else it is a lower bound and the
 * percentage an upper one. A point whose threads exceed the maximum (a point the model does not explain) shows
 * 100% "at most", never more. */
typedef enum vkocc_calc_bound {
  VKOCC_CALC_EXACT = 0,
  VKOCC_CALC_AT_MOST = 1,   /* an upper bound */
  VKOCC_CALC_ESTIMATE = 2,  /* neither bound: subgroup slots bind and S is only a lower bound */
} vkocc_calc_bound;
const char *vkocc_calc_bound_name(vkocc_calc_bound b); /* "exact", "at_most", "estimate" */

typedef struct vkocc_calc_row {
  uint32_t wg_size, shared_bytes;
  uint32_t registers;          /* per invocation; 0: registers take no part */
  vkocc_occupancy occupancy;   /* occupancy_pct never above 100; without registers wgs/subgroups/threads are
                                  the device totals (0 when the SM count is unknown) */
  vkocc_limits_per_sm limits;  /* workgroups per SM by each limit (registers: VKOCC_NO_LIMIT when 0) */
  vkocc_calc_source source;
  vkocc_calc_bound bound;
} vkocc_calc_row;

typedef struct vkocc_calc_model {
  vkocc_derived derived;       /* the limits; sm_count 0: values per SM only (the SM count is unknown) */
  vkocc_surface surface;       /* the points (none for a fingerprint without its surface) and the device */
  bool model_only;             /* derived read from the file ($.derived or its normalized surface), not fitted */
  vkocc_register_model registers; /* known: the register file (vkocc_calc_model_load_registers) */
  char source[1200];           /* where the limits came from (registers: a file or a cache entry) */
} vkocc_calc_model;

/* A model from a surface file (vkocc_surface_load_model: a surface, fingerprint, calc document or CSV).
 * subgroup_size 0: the file's (inferred for a CSV); another value overrides it, VKOCC_ERROR_USAGE for a file
 * holding derived limits only. Errors: vkocc_surface_load_model's and vkocc_derive's. */
vkocc_status vkocc_calc_model_load(const char *path, uint32_t subgroup_size, vkocc_calc_model *out);
/* A model from a measured surface (taken over: freed with the model). */
vkocc_status vkocc_calc_model_from_surface(vkocc_surface *surface, vkocc_calc_model *out);
/* A model with the register file from a vkocc.registers document or a fingerprint that carries one.
 * VKOCC_ERROR_USAGE naming the file for one without a register axis. */
vkocc_status vkocc_calc_model_load_registers(const char *path, vkocc_calc_model *out);
void vkocc_calc_model_free(vkocc_calc_model *m);
/* The largest workgroup the model's device allows (0: the file names no device). */
uint32_t vkocc_calc_max_wg(const vkocc_calc_model *m);

/* One point; registers 0 without the register file. */
void vkocc_calc_point(const vkocc_calc_model *m, uint32_t wg_size, uint32_t shared_bytes, uint32_t registers,
                      vkocc_calc_row *out);
/* Every multiple of the subgroup size up to the device's largest workgroup (without a device: the largest
 * point, 1024 without points) at shared_bytes; VKOCC_CALC_FILE_POINTS: the file's own points. *rows malloc'd. */
#define VKOCC_CALC_FILE_POINTS UINT32_MAX
vkocc_status vkocc_calc_table(const vkocc_calc_model *m, uint32_t shared_bytes, uint32_t registers,
                              vkocc_calc_row **rows, uint32_t *count);
/* vkocc_suggest_wg_size over the model (with registers when given), max_wg_size 0: the device's largest, 1024
 * when the file names no device; sizes whose shared bytes exceed the device's maximum are skipped. */
typedef struct vkocc_calc_suggestion {
  vkocc_calc_row row;          /* the chosen size */
  uint32_t candidates;         /* sizes considered */
  uint32_t shared_base, shared_per_thread; /* the rule: base + wg x per thread shared bytes */
} vkocc_calc_suggestion;
vkocc_status vkocc_calc_suggest(const vkocc_calc_model *m, uint32_t shared_base, uint32_t shared_per_thread,
                                uint32_t max_wg_size, uint32_t registers, vkocc_calc_suggestion *out);

/* The answer as one report, written by one emitter in each format. */
typedef enum vkocc_calc_format { VKOCC_CALC_TEXT = 0, VKOCC_CALC_CSV = 1, VKOCC_CALC_JSON = 2 } vkocc_calc_format;
typedef enum vkocc_calc_kind { VKOCC_CALC_POINT = 0, VKOCC_CALC_TABLE = 1, VKOCC_CALC_SUGGESTION = 2 } vkocc_calc_kind;
typedef struct vkocc_calc_report {
  const vkocc_calc_model *model;
  const char *from;            /* the file the model came from (NULL: measured live) */
  vkocc_calc_kind kind;
  const vkocc_calc_row *rows;  /* point and table */
  uint32_t count;
  const vkocc_calc_suggestion *suggestion;
  uint32_t registers;          /* per invocation; 0: without the register file */
} vkocc_calc_report;
/* Writes the report to out (CSV: point and table only; JSON: the vkocc.calc/1 document as vkocc writes every
 * document). VKOCC_ERROR_USAGE for CSV of a suggestion, VKOCC_ERROR_RUNTIME when out fails. */
vkocc_status vkocc_calc_write(const vkocc_calc_report *r, vkocc_calc_format format, FILE *out);
/* The vkocc.calc/1 document of the report (a new reference). */
struct json_t *vkocc_calc_document(const vkocc_calc_report *r);
/* The lines of text vkocc prints for derived limits and a register model (label first; from: the file they
 * were read from, NULL: fitted to points), shared by calc, surface and fingerprint. */
void vkocc_derived_write_text(FILE *out, const char *label, const vkocc_derived *d, const char *from);
void vkocc_register_model_write_text(FILE *out, const vkocc_register_model *m, const vkocc_register_point *points);

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

/* ================================================================ the user's own pipeline (docs/shader.md)
 * P of the user's pipeline, measured on the pipeline itself: vkocc augments the SPIR-V with an estimator
 * branch at the top of the entry point (a flag read from a buffer, so no compiler can fold it) and measures
 * with the comb/bisection while the user's code stays in the pipeline, keeping its registers and shared
 * memory, but never runs. Where the augmentation changes what the driver allocates, P of the pipeline as
 * written is decided from both pipelines' statistics and the per-SM model (docs/shader.md "The pipeline as
 * written"). */

typedef enum vkocc_shader_lang {
  VKOCC_SHADER_AUTO = 0,  /* from the file extension: .comp/.glsl GLSL, .hlsl HLSL, .spv SPIR-V */
  VKOCC_SHADER_GLSL = 1,
  VKOCC_SHADER_HLSL = 2,
  VKOCC_SHADER_SPIRV = 3,
} vkocc_shader_lang;

/* A specialization constant: converted to the constant's own type (int, uint, bool, float). */
typedef struct vkocc_spec_value { uint32_t id; double value; } vkocc_spec_value;

typedef struct vkocc_shader_desc {
  const char *path;              /* a shader file; or NULL and one of: */
  const char *source;            /* GLSL/HLSL text (lang must say which) */
  size_t source_len;
  const uint32_t *spirv;         /* a SPIR-V module */
  size_t spirv_words;
  const char *name;              /* names source or spirv in messages (NULL: "source.comp" / "module.spv") */
  vkocc_shader_lang lang;
  const char *entry;             /* entry point; NULL: "main", or the module's only compute entry point */
  const char *const *defines;    /* "NAME=VALUE" or "NAME", for source shaders */
  uint32_t ndefines;
  const vkocc_spec_value *spec;  /* specialization constants (IDs must exist in the module) */
  uint32_t nspec;
  /* Measure the pipeline as written (no augmentation, no shader clock) by dispatch bisection on its own
   * runtime: the user's code runs on zero-filled dummies and needs a regular workload of at least tens of
   * microseconds per workgroup (a grain constant); method must be 0 or VKOCC_METHOD_BISECT. */
  bool unmodified;
} vkocc_shader_desc;

/* The module of a shader description: path or source compiled (libshaderc; compile errors are
 * VKOCC_ERROR_USAGE with the compiler's "file:line: error" text), a SPIR-V file read, or spirv copied.
 * *spirv malloc'd (free()). */
vkocc_status vkocc_shader_spirv(const vkocc_shader_desc *shader, uint32_t **spirv, size_t *words);

/* What a compute module is under its specialization constants, before anything runs. */
typedef struct vkocc_shader_info {
  char entry[128];               /* the compute entry point chosen */
  uint32_t wg[3];                /* workgroup size, specialization applied */
  uint32_t wg_size;              /* wg[0] * wg[1] * wg[2] (0 when the product overflows 32 bits) */
  uint32_t shared_bytes;         /* its Workgroup variables, naturally aligned (a lower bound if !shared_exact) */
  bool shared_exact;
} vkocc_shader_info;
/* Inspects the shader (compiled as vkocc_shader_spirv does): entry point, workgroup size and shared bytes
 * under shader->spec, with no device when ctx is NULL. With ctx, also the contract vkocc_pipeline_occupancy
 * checks before creating anything: capabilities, descriptor sets and bindings, push constants, workgroup
 * size, shared bytes and constants against the context's device (VKOCC_ERROR_UNSUPPORTED naming the limit or
 * feature and both values; VKOCC_ERROR_USAGE for the workgroup and shared-memory limits and bad constants).
 * Errors otherwise as vkocc_pipeline_occupancy's for a module that is not (whole) SPIR-V, not compute, or
 * lacks the entry point or a specialization ID. */
vkocc_status vkocc_shader_inspect(vkocc_context *ctx, const vkocc_shader_desc *shader, vkocc_shader_info *out);

/* Which evidence gave P of the pipeline as written. */
typedef enum vkocc_written_evidence {
  VKOCC_WRITTEN_NONE = 0,          /* not established (the call failed) */
  VKOCC_WRITTEN_NO_STATISTICS = 1, /* the driver reports no statistics: the measured P (a difference cannot show) */
  VKOCC_WRITTEN_EQUAL = 2,         /* measured: statistics equal */
  VKOCC_WRITTEN_BOUNDED = 3,       /* measured: the augmented pipeline uses at least as much of every resource
                                      and already reaches the written pipeline's own limit */
  VKOCC_WRITTEN_PREDICTED = 4,     /* predicted from the written statistics by the per-SM model, which
                                      reproduces the augmented pipeline's measured P */
  VKOCC_WRITTEN_UNMODIFIED = 5,    /* --unmodified: measured on the pipeline as written */
  VKOCC_WRITTEN_CACHED = 6,        /* an earlier answer from the cache */
  VKOCC_WRITTEN_VARIANT = 7,       /* measured with an augmentation variant whose statistics equal the written ones */
} vkocc_written_evidence;
/* "measured: statistics equal", "predicted from written statistics by the per-SM model", "--unmodified", ... */
const char *vkocc_written_evidence_name(vkocc_written_evidence e);

typedef struct vkocc_written_answer {
  uint32_t P;                    /* P of the pipeline as written: the one to use */
  uint32_t augmented_P;          /* as measured on the augmented pipeline */
  uint32_t predicted_P;          /* the model's prediction from the written statistics (0: none) */
  uint32_t predicted_augmented_P;/* the model's prediction from the augmented statistics (0: none) */
  bool confirmed;                /* a measurement confirms P (equal statistics, the bound, or the model
                                    reproducing the augmented measurement) */
  vkocc_written_evidence evidence;
  uint32_t binding;              /* vkocc_limit bits of the written pipeline's binding limits (0: unknown) */
  uint32_t written_registers, augmented_registers; /* 0: no register statistic */
  uint32_t written_shared, augmented_shared;       /* the driver's, else the SPIR-V's */
  char differs[256];             /* the statistics that bound occupancy and differ: "Register Count 89 / 80; ..." */
  char reason[512];              /* the decision in words (also on failure: why it cannot be established) */
  char variant[24];              /* the augmentation variant that measured P (VKOCC_WRITTEN_VARIANT), else "" */
  char variants[512];            /* the variants tried where the statistics differed, with theirs: "unrolled: Register
                                    Count 80, Shared Memory Size 13568 (differs); small: ... (equal: measured)" */
} vkocc_written_answer;

typedef struct vkocc_pipeline_result {
  uint32_t P;                    /* workgroups of this pipeline resident at once on the whole device */
  uint32_t wg[3];                /* its workgroup size (specialization applied) */
  uint32_t wg_size;              /* wg[0] * wg[1] * wg[2] */
  uint32_t shared_bytes;         /* its Workgroup variables, naturally aligned (a lower bound if !shared_exact) */
  bool shared_exact;
  uint32_t aug_set;              /* the descriptor set index the estimator's buffer took */
  uint32_t descriptors;          /* user bindings given dummy resources */
  uint32_t push_bytes;           /* the user's push-constant block */
  char entry[128];
  bool from_cache;               /* read from $XDG_CACHE_HOME/vkocc; probe then holds only P */
  uint64_t key;                  /* cache key: hash of device UUID, driver, queue family, vkocc version, module, constants */
  vkocc_probe_result probe;      /* the evidence (comb teeth, bisection steps, timings) */
  /* VK_KHR_pipeline_executable_properties statistics where the driver offers them (else nstats 0): of the
   * user's pipeline as given and of the augmented one, so a difference the estimator makes shows */
  struct { char name[64]; double value; double augmented; } stats[24];
  uint32_t nstats;
  /* shader->unmodified: the evidence of the runtime staircase (best runs, ns); probe.bisect_wave_ns = wave */
  bool unmodified;
  struct {
    double empty_ns;      /* a dispatch of 0 workgroups (timestamps and dispatch overhead) */
    double noise_ns;      /* its median - fastest */
    double one_ns;        /* 1 workgroup */
    double wave_ns;       /* one_ns - empty_ns: a workgroup's runtime */
    double at_P_ns, at_P1_ns, at_2P_ns, at_2P1_ns; /* P, P + 1, 2P, 2P + 1 workgroups */
    uint32_t dispatches;
    double wall_ns;
  } unmod;
  /* P of the pipeline as written (P above is it): the evidence, the augmented P, the model's predictions */
  struct vkocc_written_answer *written; /* malloc'd; freed by vkocc_pipeline_result_free */
} vkocc_pipeline_result;

/* Compiles (GLSL/HLSL through libshaderc), inspects, augments and measures the user's compute pipeline.
 * opt: method, repeat, sleep as for vkocc_probe (wg_size and shared_bytes are taken from the shader);
 * NULL for defaults. cal may be NULL (a short calibration is run). use_cache: look the answer up in (and
 * store it to) $XDG_CACHE_HOME/vkocc. Errors: VKOCC_ERROR_USAGE for a shader that does not compile
 * (with file:line), is not compute, lacks the entry point, names an unknown specialization ID, is not
 * (whole) SPIR-V, or uses more shared memory than the device allows; VKOCC_ERROR_UNSUPPORTED when the
 * device lacks the realtime shader clock or the driver rejects the augmented pipeline (message names the
 * VkResult). shader->unmodified: VKOCC_ERROR_RUNTIME when the runtime shows no clear staircase (workgroups
 * too short for the dispatch noise, a ramp over the first wave, runs that disagree). */
vkocc_status vkocc_pipeline_occupancy(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_shader_desc *shader,
                                      const vkocc_probe_options *opt, bool use_cache, vkocc_pipeline_result *out);
/* vkocc_pipeline_occupancy with the per-SM model given (d, m may be NULL: then the device's cached
 * fingerprint and register model are used where the statistics differ). out->written holds the decision;
 * VKOCC_ERROR_RUNTIME when P of the pipeline as written cannot be established. */
vkocc_status vkocc_pipeline_occupancy_model(vkocc_context *ctx, const vkocc_calibration *cal,
                                            const vkocc_shader_desc *shader, const vkocc_probe_options *opt,
                                            const vkocc_derived *d, const vkocc_register_model *m, bool use_cache,
                                            vkocc_pipeline_result *out);
void vkocc_pipeline_result_free(vkocc_pipeline_result *r);

/* The decision behind vkocc_pipeline_occupancy_model, alone. */
typedef struct vkocc_written_input {
  uint32_t nstats;
  const char *const *names;      /* driver statistic names (VK_KHR_pipeline_executable_properties) */
  const double *written;         /* of the pipeline as written; NAN where it lacks the statistic */
  const double *augmented;       /* of the pipeline vkocc measured */
  uint32_t wg_size;
  uint32_t shared_bytes;         /* from the SPIR-V (used where the driver names no shared-memory statistic) */
  uint32_t augmented_P;          /* measured on the augmented pipeline */
  const vkocc_derived *derived;  /* the per-SM model of this device and queue family; NULL: unknown */
  const vkocc_register_model *registers; /* NULL or !known: the register file is unknown */
  bool unmodified;               /* augmented_P was measured on the pipeline as written */
  uint32_t variant_P;            /* P measured with an augmentation variant whose statistics that bound occupancy
                                    equal the written ones (vkocc_written_stats_equal); 0: none */
  const char *variant;           /* that variant's name */
} vkocc_written_input;

/* Decides P of the pipeline as written from the two pipelines' statistics, the measured augmented P and the
 * per-SM model. Pure: no device. VKOCC_ERROR_RUNTIME (with the reason) when it cannot be established: a
 * statistic that bounds occupancy differs and neither the bound nor a model that reproduces the
 * augmented measurement settles it. Never returns the augmented P where the statistics say it differs. */
vkocc_status vkocc_written_decide(const vkocc_written_input *in, vkocc_written_answer *out);

/* ---------------------------------------------------------------- augmentation variants (docs/shader.md)
 * The estimator vkocc adds to a user's pipeline can be written several ways; the driver may compile the user's
 * code differently beside each. vkocc_pipeline_occupancy measures with "compact" on GPUs and, where that changes a
 * statistic that bounds occupancy, tries the others and measures P with one that compiles to the written
 * statistics (evidence VKOCC_WRITTEN_VARIANT). */

/* The augmentation vkocc_pipeline_occupancy measures with first is vkocc_probe_options.augmentation: "auto" or
 * NULL (the default: "compact" on GPUs, "unrolled" on CPU devices), "compact" (32 ALU steps per clock read),
 * "unrolled" (128 steps: vkocc's earlier default, about twice the added code), "small" (8 steps), "clock-only" (no
 * work between clock reads), "rolled" (128 steps as an inner loop: the smallest, but lavapipe stops such a loop
 * early). This checks a name before anything is measured: VKOCC_ERROR_USAGE naming the choices for another. */
vkocc_status vkocc_augmentation_check(const char *name);

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

/* ================================================================ tuning (docs/tune.md)
 * A tuning session measures every configuration a search proposes of one kernel: a shipped one (histogram,
 * reduce at n elements, through its built-in T1 spec, each answer checked against a CPU reference; its results
 * are the vkocc.tune-results/1 document policies read) or the user's own from a T1 spec (Kernel
 * Tuner / KTT's format: parameters as specialization constants or -D defines, outputs validated on poisoned
 * buffers, T4 results). The order of the calls: open, optionally fingerprint and resume, then prepare on a
 * context (options.only restricts the space), run, and read the results or write their documents; close. The documents are
 * `struct json_t *` of jansson (include <jansson.h> to use them; json_decref each). Usage:
 *
 *   vkocc_tune_session *s = NULL;
 *   const char *only[] = {"TILE_X=8,16"};              // --only: two values of one parameter
 *   vkocc_tune_options o = {.only = only, .nonly = 1, .output = "results.json"};
 *   int64_t best;
 *   if (vkocc_tune_open_spec("examples/tune/transpose/transpose.json", NULL, &s) == VKOCC_OK &&
 *       vkocc_tune_prepare(s, ctx, &o) == VKOCC_OK && vkocc_tune_run(s, &ctx, &o) == VKOCC_OK &&
 *       (best = vkocc_tune_best(s)) >= 0) {               // -1: no configuration was correct
 *     vkocc_tune_result r;
 *     vkocc_tune_result_get(s, (uint32_t)best, &r);
 *     printf("best %s: %.1f us\n", r.key, r.rank_ns / 1e3);
 *   }
 *   vkocc_tune_close(s);                                  // NULL is fine
 */
struct json_t;
typedef struct vkocc_tune_session vkocc_tune_session;

/* A T1 spec: reads the file and enumerates its space less its conditions (no device). name: the kernel's name in
 * results and policies (NULL: the file's stem). VKOCC_ERROR_USAGE naming the file and JSON path for a spec
 * outside the subset vkocc reads (docs/tune.md). */
vkocc_status vkocc_tune_open_spec(const char *spec_path, const char *name, vkocc_tune_session **out);
/* A shipped kernel ("histogram", "reduce") of element type type ("u32", "f32"; NULL: u32) at n elements (checked
 * against the device by vkocc_tune_prepare). VKOCC_ERROR_USAGE for an unknown kernel or type. */
vkocc_status vkocc_tune_open_kernel(const char *kernel, const char *type, uint64_t n, vkocc_tune_session **out);
/* Frees the session and all it holds (NULL: nothing). */
void vkocc_tune_close(vkocc_tune_session *s);
/* The shipped kernels, what each computes and every value of each parameter (what options.only takes), as lines
 * of text ("  histogram: ...\n  histogram parameters: variant=... wg_size=...\n"); free() it. */
char *vkocc_tune_kernels_text(void);

/* Who measures, as the documents record it: the device's fingerprint (cluster ID and normalized surface, from
 * vkocc_fingerprint_measure; details may be NULL), or a fingerprint file. Without one the documents carry the
 * device alone. VKOCC_ERROR_USAGE naming the file and JSON path for a bad file. */
vkocc_status vkocc_tune_fingerprint(vkocc_tune_session *s, const vkocc_fingerprint *fp,
                                    const vkocc_fingerprint_details *details);
vkocc_status vkocc_tune_fingerprint_file(vkocc_tune_session *s, const char *path);
/* Before vkocc_tune_prepare: continues a results document written before (vkocc_tune_write, options.output): its
 * configurations are not measured again. A path that does not exist is nothing to resume. A shipped kernel's
 * file is read now (VKOCC_ERROR_USAGE for another kernel, type or size), a T1 session's by vkocc_tune_prepare
 * (another spec hash); both are refused by vkocc_tune_prepare when measured on another device. */
vkocc_status vkocc_tune_resume(vkocc_tune_session *s, const char *path);
/* The configurations taken from the resumed file (after vkocc_tune_prepare). */
uint32_t vkocc_tune_resumed(const vkocc_tune_session *s);

/* How a run searches and measures; zero fields take the defaults. */
typedef struct vkocc_tune_progress {
  const char *phase;         /* "tune" */
  uint32_t done, total;
  double best_ns;            /* the best valid configuration so far (INFINITY: none yet) */
  const char *best_key;      /* its key (NULL: not known to this phase) */
  double eta_s;              /* seconds left (NAN: unknown) */
} vkocc_tune_progress;
typedef struct vkocc_tune_options {
  const char *const *only;   /* "PARAM=V1,V2": keeps the configurations whose PARAM is one of the values (shipped
                                kernels: and those without PARAM; resumed results are kept whatever it says) */
  uint32_t nonly;
  const char *output;        /* the results document, written atomically every 10 s, when the run fails (what was
                                measured, for vkocc_tune_resume) and at the end; NULL: none */
  /* Every session, a shipped kernel's too (it runs through its built-in T1 spec): */
  const char *t4_output;     /* the T4 results, and their metadata at vkocc_tune_t4_metadata_path */
  const char *strategy;      /* the search strategy (vkocc_tune_strategy; NULL: the spec's Search.Name) */
  uint64_t seed;             /* the strategy's seed */
  uint64_t budget_evals;     /* at most this many configurations (0: the spec's Budget) */
  double budget_fraction;    /* at most this fraction of the space (0: the spec's) */
  double budget_seconds;     /* at most this long (0: the spec's) */
  const char *reference;     /* T1: "NAME=VALUE,...": the configuration whose output is the reference (a shipped
                                kernel's is its CPU reference) */
  bool always_occupancy;     /* P of every configuration's pipeline, not only where an expression names it */
  double target_spread;      /* stop repeating when the runs' MAD / median is below (0: 0.02) */
  uint32_t max_runs;         /* at most this many timed runs per configuration (0: 50) */
  /* every configuration timed to the full rule above (false: racing: a configuration whose fastest run so far is
     slower than the best's median by more than the noise measured allows stops after 2 runs, marked stopped) */
  bool full_rule;
  uint32_t threads;          /* host threads that compile and create the next configurations' pipelines while the
                                device measures (strategies that say what comes next); 0 = one per core less one, at most 16 */
  double timeout_s;          /* bound on one dispatch (0: 5 s) */
  double warmup_ms;          /* at most this much device time of untimed dispatches before each configuration
                                is timed (0: 500 ms; < 0: none) */
  double warmup_ratio;       /* the warm-up lasts this many times the GPU's idle time (0: 2; < 0: warmup_ms) */
  int32_t sentinel_every;    /* every N configurations one is timed again (0: 64; < 0: never) */
  int32_t confirm;           /* how many of the best are re-timed in 3 interleaved rounds at the end (0: none) */
  void (*progress)(void *user, const vkocc_tune_progress *p);
  /* reopens the context after a lost device or a timed-out dispatch (NULL: the run stops there) */
  vkocc_status (*reopen)(void *user, vkocc_context **ctx);
  void *user;
  volatile sig_atomic_t *stop; /* set (e.g. by SIGINT): the run ends after the configuration under way */
  /* a note for the user (a journal set aside, a device that left a fleet's search, the final round that did not
     run): one line as `vkocc tune` prints it on stderr, without its newline, called with user (from any of a fleet's
     threads); NULL: none is given. The library itself writes nothing to stdout or stderr. */
  void (*note)(void *user, const char *line);
} vkocc_tune_options;

/* The space on ctx's device: the device's identity, the resumed results (a file of another device:
 * VKOCC_ERROR_USAGE), options->only (VKOCC_ERROR_USAGE for a parameter or value the kernel lacks), for shipped
 * kernels the configurations the device's limits rule out and a size it cannot hold. options may be NULL. A session
 * prepares once: after a failure, close it and open another. */
vkocc_status vkocc_tune_prepare(vkocc_tune_session *s, vkocc_context *ctx, const vkocc_tune_options *options);
/* Measures what the search proposes and is not measured yet. *ctx may be replaced (options->reopen). Errors:
 * VKOCC_ERROR_USAGE or _UNSUPPORTED for a spec that does not fit the kernel (nothing written); otherwise what was
 * measured is kept (and written to options->output, the message saying so: "...; N configurations kept in
 * FILE (--resume continues)"), VKOCC_ERROR_RUNTIME "interrupted" when options->stop was set. A session runs once
 * (a second call, even after a failure: VKOCC_ERROR_USAGE); options->t4_output needs options->output. */
vkocc_status vkocc_tune_run(vkocc_tune_session *s, vkocc_context **ctx, const vkocc_tune_options *options);

/* The T4 validity of a configuration (T4's names: vkocc_tune_validity_name). */
typedef enum vkocc_tune_validity {
  VKOCC_TUNE_CORRECT, VKOCC_TUNE_COMPILE, VKOCC_TUNE_RUNTIME, VKOCC_TUNE_TIMEOUT, VKOCC_TUNE_CORRECTNESS,
  VKOCC_TUNE_CONSTRAINTS
} vkocc_tune_validity;
/* "correct", "compile", "runtime", "timeout", "correctness", "constraints" */
const char *vkocc_tune_validity_name(vkocc_tune_validity v);

/* What a session holds (after vkocc_tune_prepare; figures of the measured configurations after vkocc_tune_run). */
typedef struct vkocc_tune_summary {
  bool spec;                 /* a T1 session (else a shipped kernel) */
  const char *kernel;        /* the shipped kernel's name, or the T1 session's name */
  const char *kernel_file, *entry; /* T1: the spec's KernelFile and KernelName ("" for shipped kernels) */
  const char *element_type;  /* shipped: "u32" or "f32" ("" for T1) */
  uint64_t problem_size;     /* shipped: elements (0 for T1) */
  uint64_t space_total;      /* the cartesian product of the parameters */
  uint64_t ruled_out;        /* T1: by the conditions; shipped: by the device's limits */
  const char *ruled_out_note;/* shipped: how many per reason ("" none) */
  uint32_t filtered;         /* left out by options->only */
  uint32_t count;            /* configurations in the session: the indices of vkocc_tune_result_get */
  uint32_t measured, resumed, valid, invalid;
  uint32_t validity[6];      /* T1: measured configurations per vkocc_tune_validity */
  const char *strategy;      /* T1: the strategy that ran ("" shipped) */
  const char *reference;     /* T1: "ReferenceArguments" or the key of the reference configuration */
  const char *device_key, *cluster_id; /* who measured ("" before vkocc_tune_prepare / without a fingerprint) */
  double pipelines_ms, measure_ms; /* shipped: pipeline creation and measurement, resumed runs included */
  double resumed_pipelines_ms, resumed_measure_ms; /* shipped: of the resumed runs */
  double cost_ms[5];         /* T1: summed over the measured: compile, pipeline, occupancy, measurement, other */
  uint32_t compiles, pipelines;
  double setup_ms;           /* T1: the arguments' data generated and uploaded (once) */
} vkocc_tune_summary;
void vkocc_tune_summarize(const vkocc_tune_session *s, vkocc_tune_summary *out);

/* One configuration of the session, by index below vkocc_tune_summary.count. */
typedef struct vkocc_tune_result {
  char key[512];             /* the configuration as compact JSON with sorted keys: its identity */
  bool measured;
  vkocc_tune_validity validity; /* shipped kernels: correct or correctness (error says why) */
  bool ranked;               /* correct with timings: a candidate for the best */
  const char *error;         /* why it is invalid ("" none) */
  double median_ns, spread, min_ns, max_ns; /* spread: MAD / median of the runs */
  uint32_t runs;
  double rank_ns;            /* the time the ranking uses */
  double final_ns;           /* T1: the final round's median (options->confirm), with final_runs runs (0: none) */
  uint32_t final_runs;
  int64_t P;                 /* T1: occupancy of the configuration's pipeline (-1: not measured) */
  bool stopped;              /* the race stopped it, behind the best, after runs runs (options->full_rule: never) */
} vkocc_tune_result;
/* VKOCC_ERROR_USAGE for an index out of range. */
vkocc_status vkocc_tune_result_get(const vkocc_tune_session *s, uint32_t index, vkocc_tune_result *out);
/* The best ranked configuration (lowest rank_ns; the first of equals), -1 when none. */
int64_t vkocc_tune_best(const vkocc_tune_session *s);
/* The indices of the up to max best ranked configurations, best first, into out; returns how many. */
uint32_t vkocc_tune_ranking(const vkocc_tune_session *s, uint32_t max, uint32_t *out);
/* T1: the sentinel, one configuration timed again during the run: false without 2 of its medians. drifted:
 * the range (hi - lo) / lo above 5% and above 4 times its largest spread (the device drifted, not noise). */
typedef struct vkocc_tune_sentinel {
  char key[512];
  uint32_t times;            /* how often it was timed */
  double lo_ns, hi_ns, max_spread;
  bool drifted;
} vkocc_tune_sentinel;
bool vkocc_tune_sentinel_get(const vkocc_tune_session *s, vkocc_tune_sentinel *out);

/* The results document (vkocc.tune-results/1; after a finished run: the one written at its end). */
vkocc_status vkocc_tune_results_document(vkocc_tune_session *s, struct json_t **doc);
/* The T4 results ({"schema_version": "1.0.0", "results": [...]}) and their metadata document. */
vkocc_status vkocc_tune_t4_documents(const vkocc_tune_session *s, struct json_t **results, struct json_t **metadata);
/* Writes the results document to output and, with t4, the T4 results to t4 and their metadata at
 * vkocc_tune_t4_metadata_path(t4), each atomically. */
vkocc_status vkocc_tune_write(vkocc_tune_session *s, const char *output, const char *t4);
/* Where the T4 metadata goes beside t4: "RESULTS.metadata.json" for "RESULTS.json", else t4 + ".metadata.json". */
void vkocc_tune_t4_metadata_path(const char *t4, char *out, size_t len);

/* The search strategies: the i-th one's name (brute force first; NULL past the last) and its one-line summary. */
const char *vkocc_tune_strategy(uint32_t i, const char **summary);
/* The strategy name names (case-insensitive; "Deterministic" is brute force): its own name, NULL if unknown. */
const char *vkocc_tune_strategy_find(const char *name);

/* Replay: search strategies run over a complete recorded space, no device (`vkocc tune --replay`). */
typedef struct vkocc_tune_replay_options {
  const char *fingerprint;   /* occupancy features from this fingerprint (NULL: fingerprint.json beside results) */
  const char *const *strategies; /* by name; NULL: every strategy but brute_force */
  uint32_t nstrategies;
  bool ablation;             /* each strategy also without the occupancy features */
  bool no_occupancy;         /* each strategy only without them */
  const struct json_t *attributes; /* T1 Search.Attributes for the strategies (NULL: none) */
  uint32_t budget;           /* evaluations per run (0: the whole space) */
  uint32_t seeds;            /* runs per strategy (0: 50), with seeds first_seed, first_seed + 1, ... */
  uint64_t first_seed;
  void (*progress)(void *user, const char *label, uint32_t done, uint32_t total); /* before each strategy */
  void *user;
} vkocc_tune_replay_options;
/* Replays over results (a vkocc.tune-results/1 document or T4 results): *report the vkocc.tune-replay/1 document
 * (per strategy: the curve of the fraction of the optimum found after 1, 2, ... evaluations, median and quartiles
 * over the seeds; evaluations to 95%; fractions at budgets of 1, 2, 5, 10% of the space). constrained (may be
 * NULL): the file's records left out as constrained. VKOCC_ERROR_USAGE naming the file and JSON path for a bad
 * document or a space without a valid configuration, or for an unknown strategy or attribute. */
vkocc_status vkocc_tune_replay(const char *results, const vkocc_tune_replay_options *options, struct json_t **report,
                               uint32_t *constrained);

/* ================================================================ tuning on several devices and ranks (docs/fleet.md)
 * One T1 spec tuned on many devices at once. Members whose fingerprints share a cluster ID share one search:
 * the strategy proposes, whichever member is free measures (each on a thread of its own with its own harness),
 * results are told to the strategy in the order they arrive. Members of another cluster run their own search of
 * the same spec. One results document per cluster names every device that measured in it ($.devices) and each
 * result its device ($.results[].device, an index into $.devices); it is written every 10 s, each result is also
 * appended to a journal beside it (OUTPUT.journal), so a run killed and continued with resume loses at most the
 * configurations that were being measured. Under MPI (vkocc_mpi_launched) every rank measures on its members and
 * rank 0 coordinates: it refuses ranks whose vkocc version or spec hash differ from its own (naming both) before
 * anything is measured, searches, and writes the documents; the other ranks write nothing. */
typedef struct vkocc_tune_fleet_member {
  vkocc_context *ctx;        /* opened by the caller, one per member (two members may share a physical device only
                                for tests: VKOCC_TEST_SAME_DEVICE=1); closed by the caller after the call */
  const char *device;        /* its vkocc_context_options.device, to reopen it after a lost device */
  const char *queue;         /* its vkocc_context_options.queue */
  const vkocc_fingerprint *fp;              /* its fingerprint: the cluster ID (NULL: cluster "unknown") */
  const vkocc_fingerprint_details *details; /* the fingerprint's details (may be NULL) */
} vkocc_tune_fleet_member;

typedef struct vkocc_tune_fleet_cluster {
  char cluster_id[24];
  char output[1100];         /* its results document */
  uint32_t devices;          /* members of all ranks in it */
  uint32_t measured, valid, resumed;
  double best_ns;            /* INFINITY: no valid configuration */
  char best_key[1024];
  char stopped[700];         /* why its search ended before the budget ("" : it did not) */
  /* a search shared by several devices: each device's factor against the first (the common reference's time
   * on it over the first's) with its spread, and what the final round decided ("" : one device) */
  char normalization[1200];
  /* the same: per device, the reference timed most often again and how far its medians lie apart, the clocks'
   * drift check that a lone device's sentinel makes ("" : none timed twice); drifted as the sentinel's rule */
  char clocks[600];
  bool drifted;
  /* one device: its sentinel, as vkocc_tune_sentinel_get gives one device's (this rank's devices only) */
  bool has_sentinel;
  vkocc_tune_sentinel sentinel;
} vkocc_tune_fleet_cluster;

typedef struct vkocc_tune_fleet_report {
  uint32_t nclusters;
  vkocc_tune_fleet_cluster *clusters; /* malloc'd: vkocc_tune_fleet_report_free */
  uint32_t ranks, workers;   /* MPI ranks (1 without MPI) and members of all ranks */
  bool coordinator;          /* false on MPI ranks other than 0: they measured and wrote nothing */
  double wall_ms;
} vkocc_tune_fleet_report;
void vkocc_tune_fleet_report_free(vkocc_tune_fleet_report *r);

/* Tunes spec_path (name: as vkocc_tune_open_spec) on members[0..n). o as vkocc_tune_run (output required on the
 * coordinator; with several clusters each document is OUTPUT with "-CLUSTER" before ".json"; t4_output, confirm
 * and progress are not used). resume: continue the documents (and journals) at those paths. Errors: USAGE for a
 * spec that does not fit, a rank that disagrees (version, spec) or a device named twice; RUNTIME when every
 * member failed or on options->stop (what was measured is written). */
vkocc_status vkocc_tune_fleet(const char *spec_path, const char *name, const vkocc_tune_fleet_member *members, uint32_t n,
                              bool resume, const vkocc_tune_options *o, vkocc_tune_fleet_report *out);
/* Under an MPI launch (vkocc_mpi_launched), for a rank that cannot take part in vkocc_tune_fleet (its devices or
 * fingerprints failed before it was called): tells the coordinator why (rank 0: tells every other rank), so that
 * every rank stops at once and the coordinator's error names this rank and its reason. Returns once the job has
 * heard it (bounded by VKOCC_FLEET_SILENT_S, default 30 s); nothing without an MPI launch. */
void vkocc_tune_fleet_refuse(const char *why);
/* Whether this vkocc was built with MPI. */
bool vkocc_mpi_built(void);
/* Whether mpirun/mpiexec or srun started this process as one of several ranks (read from the environment, before
 * any MPI call); *rank, *local_rank (on this host) may be NULL. */
bool vkocc_mpi_launched(int *rank, int *local_rank);

/* ================================================================ tuned policies (docs/policy.md, docs/tune.md)
 * A policy database maps (kernel, device or cluster, variables such as the problem size) to tuned
 * parameters; selection takes the most specific entry that applies. */

typedef struct vkocc_policy_db vkocc_policy_db;

typedef enum vkocc_policy_rule {
  VKOCC_POLICY_CLUSTER = 1,  /* an entry for the device's own cluster ID */
  VKOCC_POLICY_NEAREST = 2,  /* an entry for the nearest known cluster within the threshold */
  VKOCC_POLICY_DEFAULT = 3,  /* the kernel's default */
  VKOCC_POLICY_DEVICE = 4,   /* an entry for the exact device (its device key; policy-db/2) */
  VKOCC_POLICY_EXACT = VKOCC_POLICY_CLUSTER, /* the earlier name of VKOCC_POLICY_CLUSTER */
} vkocc_policy_rule;
/* The rule's name: "device", "cluster", "nearest", "default". */
const char *vkocc_policy_rule_name(vkocc_policy_rule r);

typedef struct vkocc_policy_var { const char *name, *value; } vkocc_policy_var;

typedef struct vkocc_policy_choice {
  vkocc_policy_rule rule;
  char cluster_id[24];   /* the cluster whose entry was used ("" for the default) */
  double distance;       /* to that cluster (0 for exact) */
  int entry;             /* index in the kernel's entries; -1 for the default */
  char *params_json;     /* the tuned parameters as JSON text (malloc'd; free with vkocc_policy_choice_free) */
  char note[512];        /* what the rule assumed or why earlier rules found nothing ("" when nothing to say):
                          * a variable the entries name that was not given, with the values the database has
                          * ("no problem_size given (the database has 1M..128M): ..."), the nearest bucket */
  char queue_kind[24];   /* the kind of queue family the entry was tuned on ("compute-only", "graphics+compute";
                          * "unknown" for results that predate the record; "" for the default) */
} vkocc_policy_choice;
void vkocc_policy_choice_free(vkocc_policy_choice *c);

/* Loads a vkocc.policy-db/2 (or /1) document; errors name the file and JSON path. */
vkocc_status vkocc_policy_db_load(const char *path, vkocc_policy_db **db);
void vkocc_policy_db_free(vkocc_policy_db *db);

/* Exact cluster match, else the nearest cluster of the database within threshold (<= 0: the default
 * VKOCC_CLUSTER_THRESHOLD), else the kernel's default. An entry's conditions apply to the variables given:
 * a given value must meet them (a problem size outside every bucket takes the nearest bucket), a variable
 * not given rules nothing out (problem_size missing: the entry tuned at the largest size); out->note names
 * each such assumption. fp may be NULL (only the default can match). VKOCC_ERROR_USAGE for an unknown
 * kernel, VKOCC_ERROR_RUNTIME when nothing matches and the kernel has no default. */
vkocc_status vkocc_policy_select(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                 const vkocc_policy_var *vars, uint32_t nvars, double threshold,
                                 vkocc_policy_choice *out);
/* vkocc_policy_select with the exact device first: an entry whose "device" equals device_key (as
 * vkocc_device_key writes it; NULL or "": skipped), else the cluster, nearest and default rules. */
vkocc_status vkocc_policy_select_device(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                        const char *device_key, const vkocc_policy_var *vars, uint32_t nvars,
                                        double threshold, vkocc_policy_choice *out);
/* The same in one call from a fingerprint: the device key taken from details (vkocc_device_key of
 * details->device and details->derived.sm_count, as vkocc_fingerprint_measure's details and a whole
 * fingerprint file carry them) when details is not NULL and names a device; without it the cluster, nearest
 * and default rules. out->note says what was assumed (a variable not given) or why a rule found nothing. */
vkocc_status vkocc_policy_select_fingerprint(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                             const vkocc_fingerprint_details *details, const vkocc_policy_var *vars,
                                             uint32_t nvars, double threshold, vkocc_policy_choice *out);

/* Typed access to one parameter of a choice's params: VKOCC_ERROR_USAGE (message naming the parameter and
 * what the choice holds) when it is absent or of another type. An integer reads as a float as well. */
vkocc_status vkocc_policy_param_int(const vkocc_policy_choice *c, const char *name, int64_t *out);
vkocc_status vkocc_policy_param_float(const vkocc_policy_choice *c, const char *name, double *out);
vkocc_status vkocc_policy_param_string(const vkocc_policy_choice *c, const char *name, char *out, size_t len);

/* Policy documents from tuning results (`vkocc policy build` and `transfer`): results are vkocc.tune-results/1
 * files of `vkocc tune` (any kernels, any devices); each configuration stands for itself by its median time,
 * or with use_min by its fastest run (robust to other work on a loaded host, which only ever adds time). The
 * document goes to path (through a temporary file and a rename; "-": stdout; NULL: nowhere) and, where json
 * is not NULL, its text to *json (malloc'd; free()). Errors name the results file and JSON path
 * (VKOCC_ERROR_USAGE): an unreadable or malformed file, results without one valid configuration, one
 * device's results given twice.
 * vkocc_policy_build: a vkocc.policy-db/2 database (vkocc_policy_db_load reads it): an entry per device,
 * one per cluster, problem-size buckets and a default per kernel. */
vkocc_status vkocc_policy_build(const char *const *results, uint32_t n, bool use_min, const char *path, char **json);
/* vkocc_policy_transfer: the transfer report (vkocc.policy-transfer/1): for each result's device, what each
 * rule picks from the other devices' results and its efficiency there, with the performance-portability
 * metric; threshold: the nearest-cluster limit of the "policy" column (<= 0: VKOCC_CLUSTER_THRESHOLD). */
vkocc_status vkocc_policy_transfer(const char *const *results, uint32_t n, bool use_min, double threshold,
                                   const char *path, char **json);
/* vkocc_policy_header: the database at db_path (one vkocc_policy_db_load accepts) as a C header (*text, malloc'd;
 * free()): per kernel, #if blocks selected by VKOCC_CLUSTER_<cluster id with '-' as '_'> (else its default) and a
 * table of every cluster entry. Generated C that data cannot subvert: names become identifiers only when they
 * are ones (letters, digits, '_', '-' as '_'; 1 to 63 characters; no keyword, no reserved name, no table field,
 * no two mapping to one), strings are escaped, nothing from the data goes into a comment, and each parameter
 * has one C type and a value in every set; anything else is VKOCC_ERROR_USAGE naming the file and JSON path. */
vkocc_status vkocc_policy_header(const char *db_path, char **text);

/* ---------------------------------------------------------------- the policy store (docs/policy-store.md)
 * One SQLite file (WAL journal) that many `vkocc policy add` processes fill and every application reads: tuning
 * results (vkocc.tune-results/1, T4 results with vkocc's metadata beside them) and policy databases
 * (vkocc.policy-db/1 and /2), keyed by cluster ID, device and driver, kernel, element type and problem size, with
 * each result's provenance (host, date, vkocc version, spec hash). A result added twice is stored once; a result
 * that contradicts the store (another time for the same configuration, device and size; another spec under the
 * same kernel name) is refused with the reason.
 *
 *   vkocc_policy_store_options o = {0};
 *   const char *files[] = {"h100.json", "h200.json"};
 *   if (vkocc_policy_store_add("fleet.sqlite", files, 2, &o, NULL)) fprintf(stderr, "%s\n", vkocc_last_error());
 *   vkocc_policy_db *db;
 *   if (!vkocc_policy_store_load("fleet.sqlite", "/usr/share/vkocc/policy.sqlite", "reduce", NULL, &db)) { ... select ... }
 */
typedef struct vkocc_policy_store_options {
  uint32_t wait_ms;          /* how long to wait for another writer's lock (0: 60000 ms); past it, an error naming
                              * the store, the wait and the processes that have it open */
  bool allow_network_fs;     /* write a store on NFS, CIFS/SMB, AFS, Ceph, Lustre, 9p, ... (SQLite's locks may not
                              * hold there: docs/policy-store.md) */
} vkocc_policy_store_options;

typedef struct vkocc_policy_store_added {
  uint32_t files;            /* files read */
  uint64_t results_added;    /* configurations stored */
  uint64_t results_present;  /* configurations that were there already (the same result added again) */
  uint32_t databases_added;  /* policy databases stored */
  uint32_t databases_present;/* policy databases that were there already */
  uint32_t entries_added;    /* their entries */
  uint32_t kernels_rebuilt;  /* kernels whose policy was built again from the store's results */
} vkocc_policy_store_added;

/* Adds the files (tuning results, T4 results, policy databases) to the store at path (created when absent) in one
 * transaction: all of them or, on any refusal, none. A killed writer loses its own transaction only. out may be
 * NULL. VKOCC_ERROR_USAGE: a file or the store refused (symbolic link, FIFO, not a store, a newer schema, a
 * truncated WAL, a network file system without allow_network_fs), naming the file and the reason;
 * VKOCC_ERROR_RUNTIME: the store stayed locked past wait_ms, or SQLite failed. */
vkocc_status vkocc_policy_store_add(const char *path, const char *const *files, uint32_t n,
                                    const vkocc_policy_store_options *opt, vkocc_policy_store_added *out);
/* The policy database of kernel (NULL: every kernel) as vkocc_policy_select reads it, from the store at
 * user_path layered over the store at system_path (either may be NULL, not both; the system store is opened
 * read-only). The user store's entries for a device or cluster (and element type) replace the system store's;
 * the user's default replaces the system's. The choice's note names the store of a chosen entry. device_key (as
 * vkocc_device_key writes it; NULL or "": every device): only that device's entries beside every cluster entry, which
 * is all the rules read for that device (a choice's entry index then counts in that view). */
vkocc_status vkocc_policy_store_load(const char *user_path, const char *system_path, const char *kernel,
                                     const char *device_key, vkocc_policy_db **db);
/* Today's JSON policy database of the store (vkocc.policy-db/2; a store holding one imported database and no
 * results gives that database back byte for byte): to path ("-" stdout, NULL nowhere) and/or *json (malloc'd).
 * use_min: each configuration's fastest run stands for it. */
vkocc_status vkocc_policy_store_export(const char *store, bool use_min, const char *path, char **json);
/* The transfer report (vkocc_policy_transfer) over the store's tuning results. */
vkocc_status vkocc_policy_store_transfer(const char *store, bool use_min, double threshold, const char *path,
                                         char **json);
/* The C header (vkocc_policy_header) of the store's policy database. */
vkocc_status vkocc_policy_store_header(const char *store, char **text);
/* PRAGMA integrity_check and the store's counts as text (*report, malloc'd). VKOCC_ERROR_USAGE when the file is
 * damaged or no store (the report names what SQLite found). */
vkocc_status vkocc_policy_store_check(const char *store, char **report);
/* Whether path is a SQLite file (its first 16 bytes), so a tool can take a store where it took a JSON database. */
bool vkocc_policy_store_is(const char *path);

/* ---------------------------------------------------------------- policy selection by the kind of queue family
 * A policy tuned through a compute-only queue family and one tuned through a graphics+compute family of the same
 * GPU share the cluster ID (the architecture) but not the shared capacity per SM (on NVIDIA 100 KiB against
 * 48 KiB). Selection matches the architecture first (device, cluster, nearest cluster), then prefers among equally
 * matching entries one tuned on the caller's kind of family; out->queue_kind says which kind was used and
 * out->note says so where the kind decided or differs. */

/* vkocc_policy_select_device preferring entries tuned on queue_kind ("compute-only", "graphics+compute", as
 * vkocc_queue_kind_name writes it; NULL, "" or "unknown": no preference). vkocc_policy_select_fingerprint takes
 * the kind from details->device. */
vkocc_status vkocc_policy_select_queue(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                       const char *device_key, const char *queue_kind, const vkocc_policy_var *vars,
                                       uint32_t nvars, double threshold, vkocc_policy_choice *out);

/* ================================================================ documents (JSON through jansson)
 * Every document vkocc writes is a JSON object that starts with "schema": "NAME/VERSION" (the version from the
 * library's one schema table) and "tool_version". The load and save calls above read and write whole files;
 * the calls below hand out and read jansson objects, for a program that composes documents of its own from
 * vkocc's parts (as the vkocc command does) or reads them in memory. This header does not include
 * <jansson.h>: it declares `struct json_t` only, so a program that never touches documents needs no jansson
 * headers. One that does includes <jansson.h> (its json_t is this struct json_t) and links jansson
 * (pkg-config jansson). Returned objects are new references (json_decref them) unless a comment says borrowed;
 * a reader's errors are VKOCC_ERROR_USAGE with a message naming file and the JSON path (path: where o sits,
 * e.g. "$.derived"). */
struct json_t;

/* The names of the documents composed through these calls (each "schema" is NAME/VERSION). */
#define VKOCC_DOC_PROBE "vkocc.probe"                     /* P of one point or of the user's pipeline */
#define VKOCC_DOC_SHADER_SURFACE "vkocc.shader-surface"   /* P of the user's pipeline over varied constants */
#define VKOCC_DOC_CALC "vkocc.calc"                       /* occupancy computed from derived limits */
#define VKOCC_DOC_DEVICES "vkocc.devices"                 /* the device list */
#define VKOCC_DOC_DEVICES_SUMMARY "vkocc.devices-summary" /* one measurement per device, grouped by cluster */
#define VKOCC_DOC_CLUSTERS "vkocc.clusters"               /* fingerprints grouped into clusters */
#define VKOCC_DOC_BARRIER_TEST "vkocc.barrier-test"       /* the device-wide barrier's test */
#define VKOCC_DOC_POLICY_CHOICE "vkocc.policy-choice"     /* the entry a policy selection picked */
#define VKOCC_DOC_TUNE_REPLAY "vkocc.tune-replay"         /* a tuning strategy replayed over recorded results */

/* "NAME/VERSION" of document name, the version the library writes (a thread-local buffer). */
const char *vkocc_doc_schema_string(const char *name);
/* Puts "schema" (NAME/VERSION) and "tool_version" first in doc, its other members after them; returns doc. */
struct json_t *vkocc_doc_stamp(struct json_t *doc, const char *name);
/* A new document holding only its stamp. */
struct json_t *vkocc_doc_new(const char *name);

/* The "device" object of every measurement: identity, driver, limits, queue families, the vendor's report. */
struct json_t *vkocc_device_info_json(const vkocc_device_info *d);
/* The "derived" object: the per-SM limits; s (may be NULL) names each unexplained point with its model P. */
struct json_t *vkocc_derived_json(const vkocc_derived *d, const vkocc_surface *s);
/* Reads a "derived" object (unexplained points are not read back). */
vkocc_status vkocc_derived_from_json(struct json_t *o, const char *file, const char *path, vkocc_derived *d);
/* The "register_model" object; a model that is not known is written as {"known": false}. */
struct json_t *vkocc_register_model_json(const vkocc_register_model *m);
/* Reads a "register_model" object; one with "known": false reads as unknown (m->known false). */
vkocc_status vkocc_register_model_from_json(struct json_t *o, const char *file, const char *path,
                                            vkocc_register_model *m);
/* The "probe" object: the point, the method, P, agreement, the repetitions and the timing of each method. */
struct json_t *vkocc_probe_result_json(const vkocc_probe_result *r);

/* The whole vkocc.surface document `vkocc surface` writes: the surface with its start-up time (< 0: left out),
 * the calibration, and where derived limits exist (d not NULL) those and the vendor cross-check. */
struct json_t *vkocc_surface_document(const vkocc_surface *s, const vkocc_calibration *cal, const vkocc_derived *d,
                                      double startup_ms);
/* The whole fingerprint document behind details (borrowed: what vkocc_fingerprint_save writes, edits
 * included; NULL without one). */
struct json_t *vkocc_fingerprint_details_json(const vkocc_fingerprint_details *details);
/* The whole vkocc.registers document of a register surface (vkocc_register_doc_load reads it): the device
 * (NULL: left out), the points, the other limits the model was fitted with (base) and where they come from
 * (base_source), the register model (m); NULL members are left out. With vr (NULL: left out) and m: the
 * vendor's report of the device and its register figures beside the model's ("vendor_registers"). */
struct json_t *vkocc_register_document(const vkocc_device_info *dev, const vkocc_register_point *p, uint32_t n,
                                       const vkocc_derived *base, const char *base_source,
                                       const vkocc_register_model *m, const vkocc_vendor_registers *vr);
/* Stores a register document as the device's cache entry (where vkocc_register_doc_from_cache and
 * vkocc_register_model_from_cache find it), sealed with the device's key; VKOCC_ERROR_RUNTIME without a
 * cache directory, else the errors of vkocc_write_file_atomic. */
vkocc_status vkocc_register_cache_store(const vkocc_device_info *d, struct json_t *doc);

#ifdef __cplusplus
}
#endif
#endif
