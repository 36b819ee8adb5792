/* Internal to libvkocc: the Vulkan function table, the context and the helpers stages share. */
#ifndef VKOCC_INTERNAL_H
#define VKOCC_INTERNAL_H

#include "vkocc.h"
#include <vulkan/vulkan.h>

#define VKOCC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* error.c */
vkocc_status vkocc_fail(vkocc_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *vkocc_vk_result_name(VkResult r);
/* Maps a VkResult from `what` to a status with a message; VK_ERROR_DEVICE_LOST gets its own wording. */
vkocc_status vkocc_vk_fail(VkResult r, const char *what);
void vkocc_clear_error(void);

/* loader.c: Vulkan entry points, loaded at run time (volk-style) so a missing loader is a clear error. */
#define VKOCC_VK_GLOBAL(X) X(vkCreateInstance) X(vkEnumerateInstanceVersion)
#define VKOCC_VK_INSTANCE(X) \
  X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties) \
  X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceFeatures2) \
  X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties) \
  X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice) X(vkGetDeviceProcAddr)
#define VKOCC_VK_DEVICE(X) \
  X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkCreateCommandPool) X(vkDestroyCommandPool) \
  X(vkAllocateCommandBuffers) X(vkFreeCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkResetCommandBuffer) \
  X(vkCreateFence) X(vkDestroyFence) X(vkWaitForFences) X(vkResetFences) X(vkQueueSubmit) \
  X(vkCreateQueryPool) X(vkDestroyQueryPool) X(vkGetQueryPoolResults) X(vkCmdResetQueryPool) \
  X(vkCmdWriteTimestamp) X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) \
  X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory) \
  X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreateDescriptorSetLayout) \
  X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout) \
  X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreatePipelineCache) X(vkDestroyPipelineCache) \
  X(vkGetPipelineCacheData) X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) \
  X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets) X(vkCmdBindPipeline) \
  X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdCopyBuffer) \
  X(vkCmdPipelineBarrier) X(vkCmdFillBuffer) X(vkDeviceWaitIdle)

typedef struct vkocc_vk {
#define VKOCC_PFN(name) PFN_##name name;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
  VKOCC_VK_GLOBAL(VKOCC_PFN) VKOCC_VK_INSTANCE(VKOCC_PFN) VKOCC_VK_DEVICE(VKOCC_PFN)
#undef VKOCC_PFN
} vkocc_vk;
extern vkocc_vk vkocc_fn;

vkocc_status vkocc_loader_open(void);
vkocc_status vkocc_instance_create(VkInstance *instance);
void vkocc_load_device_functions(VkInstance instance);
/* devices.c: makes family (UINT32_MAX: none) the one d names as measured on, chosen by choice. */
void vkocc_device_use_queue_family(vkocc_device_info *d, uint32_t family, const char *choice);

/* devices.c */
void vkocc_fill_device_info(VkPhysicalDevice pd, uint32_t index, vkocc_device_info *info);
bool vkocc_device_has_extension(VkPhysicalDevice pd, const char *name);

/* context.c */
typedef struct vkocc_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  VkDeviceSize size;
  void *map; /* NULL for device-local memory */
} vkocc_buffer;

typedef struct vkocc_kernel {
  VkShaderModule module;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  VkDescriptorPool pool;
  VkDescriptorSet set;
  uint32_t bindings, push_bytes;
} vkocc_kernel;

struct vkocc_context {
  VkInstance instance;
  VkPhysicalDevice phys;
  VkDevice device;
  VkQueue queue;
  vkocc_device_info info;
  VkPhysicalDeviceMemoryProperties mem;
  VkCommandPool cmd_pool;
  VkCommandBuffer cmd;
  VkFence fence;
  VkQueryPool queries;
  VkPipelineCache cache;
  char cache_path[1024];
  bool cache_was_loaded;
  bool device_clock, subgroup_clock;
  bool exec_props; /* VK_KHR_pipeline_executable_properties enabled (statistics of a user's pipeline) */
  uint64_t timeout_ns;
};

vkocc_status vkocc_buffer_create(vkocc_context *ctx, VkDeviceSize size, bool host_visible, vkocc_buffer *b);
void vkocc_buffer_destroy(vkocc_context *ctx, vkocc_buffer *b);
/* Copies host data into a (device-local) buffer through a staging buffer. */
vkocc_status vkocc_buffer_upload(vkocc_context *ctx, vkocc_buffer *dst, const void *data, VkDeviceSize size);

/* Compute pipeline from embedded SPIR-V with `bindings` storage buffers (bindings 0..n-1), push constants
 * and up to 4 uint32 specialization constants (ids 0..n-1). */
vkocc_status vkocc_kernel_create(vkocc_context *ctx, const uint32_t *spv, size_t spv_bytes, uint32_t bindings,
                                 uint32_t push_bytes, const uint32_t *spec, uint32_t spec_count,
                                 vkocc_kernel *k);
void vkocc_kernel_bind(vkocc_context *ctx, vkocc_kernel *k, vkocc_buffer *const *buffers);
void vkocc_kernel_destroy(vkocc_context *ctx, vkocc_kernel *k);

/* One dispatch between two queue timestamps; waits with the context timeout. *ns: the timestamp interval
 * (masked to timestampValidBits, converted with timestampPeriod). *tick: how the delta was read. */
vkocc_status vkocc_dispatch_timed(vkocc_context *ctx, vkocc_kernel *k, const void *push, uint32_t groups,
                                  double *ns, vkocc_tick_status *tick);

/* probes/probe.c: a session holds the buffers every probe shares; kernels are per point, so a sweep can
 * create all of them first (in parallel) and measure afterwards. */
/* What a probe dispatch asks of the shader: mode 0 sleep on the realtime clock for sleep_ticks, at most
 * max_rounds loop iterations; mode 1 the pointer chase; key a value the compiler cannot know. */
typedef struct vkocc_probe_params { uint32_t mode, sleep_ticks, max_rounds, key; } vkocc_probe_params;
typedef struct vkocc_probe_session {
  vkocc_context *ctx;
  vkocc_buffer rec, chase;
  uint32_t max_groups;
  /* Another pipeline than the built-in probe (probes/pipeline.c): each dispatch goes through this call with
   * the probe's parameters, records land in rec as usual. NULL for the built-in probe. */
  vkocc_status (*dispatch)(void *user, const vkocc_probe_params *p, uint32_t groups, double *ns,
                           vkocc_tick_status *tick);
  void *user;
} vkocc_probe_session;
vkocc_status vkocc_probe_session_create(vkocc_context *ctx, vkocc_probe_session *ps);
void vkocc_probe_session_destroy(vkocc_probe_session *ps);
vkocc_status vkocc_probe_kernel_create(vkocc_context *ctx, uint32_t wg, uint32_t shared, vkocc_kernel *k);
/* The probe shader's records (8 words each: start lo/hi, end lo/hi, flags) as intervals in ns from the
 * first start; a clock whose high words are all 0 is read as 32-bit (lavapipe). Returns the number of
 * sleeps cut by the iteration bound (flag 2). */
uint32_t vkocc_comb_read_records(const uint32_t *records, uint32_t n, double ns_per_tick, vkocc_interval *iv);
/* One one-workgroup dispatch: drivers that finish pipelines at first use do it here. */
vkocc_status vkocc_probe_first_use(vkocc_probe_session *ps, vkocc_kernel *kernel);
vkocc_status vkocc_probe_first_use_batch(vkocc_probe_session *ps, vkocc_kernel *kernels, uint32_t n); /* one submit */
vkocc_status vkocc_probe_measure(vkocc_probe_session *ps, vkocc_kernel *kernel, const vkocc_calibration *cal,
                                 const vkocc_probe_options *opt, vkocc_probe_result *out);
/* Several points' combs in one command buffer (issue 13): done[i] where out[i] is established; the rest
 * (no hint, not the comb alone, or not confirmed) go to vkocc_probe_measure. kernels[i] stay bound elsewhere. */
vkocc_status vkocc_probe_measure_batch(vkocc_probe_session *ps, vkocc_kernel *kernels, const vkocc_calibration *cal,
                                       const vkocc_probe_options *opts, uint32_t n, vkocc_probe_result *out, bool *done);

/* devices.c: vkocc_select_device, with the messages naming where spec came from ("--device", "VKOCC_DEVICE"). */
vkocc_status vkocc_select_device_from(const vkocc_device_info *d, uint32_t n, const char *spec, const char *source,
                                      uint32_t *index);

/* cache.c: $XDG_CACHE_HOME/vkocc (else ~/.cache/vkocc), created on demand. */
vkocc_status vkocc_cache_dir(char *out, size_t len);
/* Writes data to path through a temporary file in the same directory and a rename. Replaces only a
 * regular file: a directory, device, FIFO or socket is refused (VKOCC_ERROR_USAGE); a symbolic link is
 * followed and the file it names replaced (the link stays), a link to nothing refused. Removes our own
 * temporaries that a killed writer left in that directory. */
vkocc_status vkocc_write_file_atomic(const char *path, const void *data, size_t len);
/* The checks of vkocc_write_file_atomic without writing: run them before measuring. */
vkocc_status vkocc_output_check(const char *path);
/* Reads a whole file (a directory or more than 256 MiB is refused); *data is NUL-terminated, malloc'd. */
vkocc_status vkocc_read_file(const char *path, void **data, size_t *len);

/* derive.c: vkocc_derive with the SM count given (sms > 0), e.g. 1 for values that are already per SM. */
vkocc_status vkocc_derive_fixed(const vkocc_surface_point *pt, uint32_t n, uint32_t sg, uint32_t sms,
                                vkocc_derived *out);
/* surface_io.c: vkocc_surface_load that also takes a fingerprint without its "surface": then *model_only
 * is set, out has no points (only the device, when the file names one) and d holds the file's "derived"
 * limits, else those derived from its normalized surface with d->sm_count 0 (unknown: values per SM). */
vkocc_status vkocc_surface_load_model(const char *path, vkocc_surface *out, vkocc_derived *d, bool *model_only);

double vkocc_now_ns(void);
int vkocc_cmp_double(const void *a, const void *b);
double vkocc_median(double *v, uint32_t n); /* sorts v */

#endif
