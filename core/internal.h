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
/* malloc, calloc, realloc that end the process with "vkocc: out of memory" instead of returning NULL. */
void *vkocc_xmalloc(size_t n);
void *vkocc_xcalloc(size_t n, size_t size);
void *vkocc_xrealloc(void *p, size_t n);

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
/* The application's loader entry (NULL: the system loader's) and the instance functions of its instance. */
vkocc_status vkocc_loader_use(void *get_instance_proc_addr, VkInstance instance);
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
  bool external;   /* instance and device belong to the application (vkocc_context_create_external) */
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
/* Submits cmd, waits on the context's fence (timeout_ns 0: the context's limit; VK_TIMEOUT becomes a
 * clear error naming `what`) and resets the fence. */
/* parallel.c: fn(user, i) for every i < n on `threads` threads (0: one per core, at most 8); fn locks what
 * it shares. */
void vkocc_parallel_for(uint32_t n, uint32_t threads, void (*fn)(void *user, uint32_t i), void *user);
vkocc_status vkocc_submit_wait(vkocc_context *ctx, VkCommandBuffer cmd, uint64_t timeout_ns, const char *what);
/* The time between the context's timestamp queries 0 and 1 of the last submission (either out may be NULL). */
vkocc_status vkocc_read_elapsed(vkocc_context *ctx, double *ns, vkocc_tick_status *tick);
vkocc_status vkocc_dispatch_timed(vkocc_context *ctx, vkocc_kernel *k, const void *push, uint32_t groups,
                                  double *ns, vkocc_tick_status *tick);

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
/* Caches: only a regular file is read (opened without blocking, so a FIFO in its place never hangs). */
vkocc_status vkocc_read_cache_file(const char *path, void **data, size_t *len);
bool vkocc_cache_file_regular(const char *path);
/* A cache entry {schema, key, checksum, value}: written atomically; read back only when the schema and key
 * are the ones asked for and the checksum over schema, key and value holds (an edited, foreign or torn file
 * is a miss: NULL). The value is a new reference. */
struct json_t;
vkocc_status vkocc_cache_entry_write(const char *path, const char *schema, const char *key, struct json_t *value);
struct json_t *vkocc_cache_entry_read(const char *path, const char *schema, const char *key);

/* derive.c: vkocc_derive with the SM count given (sms > 0), e.g. 1 for values that are already per SM. */
vkocc_status vkocc_derive_fixed(const vkocc_surface_point *pt, uint32_t n, uint32_t sg, uint32_t sms,
                                vkocc_derived *out);
double vkocc_now_ns(void);
int vkocc_cmp_double(const void *a, const void *b);
double vkocc_median(double *v, uint32_t n); /* sorts v */

/* shader_features.c: the shader features vkocc's device enables (all of its list that the device supports);
 * vkocc_context_create calls this before vkCreateDevice, chain living until then. */
typedef struct vkocc_feature_chain {
  VkPhysicalDeviceFeatures2 f2;
  VkPhysicalDeviceVulkan11Features v11;
  VkPhysicalDeviceVulkan12Features v12;
  bool has12;
} vkocc_feature_chain;
void vkocc_shader_features_enable(VkPhysicalDevice pd, VkDeviceCreateInfo *dci, vkocc_feature_chain *chain);
#endif
