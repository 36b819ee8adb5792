/* vkocc/device.h: devices, their identity, the context; part of <vkocc.h>. */
#ifndef VKOCC_API_DEVICE_H
#define VKOCC_API_DEVICE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
