/* Internal to libvkocc: the Vulkan function table, the context and the device set-up; the helpers without
 * Vulkan are util/util.h, the executor core/exec.h. */
#ifndef VKOCC_INTERNAL_H
#define VKOCC_INTERNAL_H

#include "util.h"
#include "vkocc.h"
#include <vulkan/vulkan.h>

/* loader.c */
const char *core_vk_result_name(VkResult r);
/* Maps a VkResult from `what` to a status with a message; VK_ERROR_DEVICE_LOST gets its own wording. */
vkocc_status core_vk_fail(VkResult r, const char *what);

/* loader.c: Vulkan entry points, loaded at run time (volk-style) so a missing loader is a clear error. Only
 * core/ calls them: device and context set-up here, everything else through the executor (core/exec.h).
 * vkGetPipelineExecutableStatisticsKHR (an extension) may be NULL. */
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
  X(vkCmdPipelineBarrier) X(vkCmdFillBuffer) X(vkDeviceWaitIdle) \
  X(vkCreateImage) X(vkDestroyImage) X(vkGetImageMemoryRequirements) X(vkBindImageMemory) \
  X(vkCreateImageView) X(vkDestroyImageView) X(vkCreateSampler) X(vkDestroySampler) X(vkCreateBufferView) \
  X(vkDestroyBufferView) X(vkGetPipelineExecutableStatisticsKHR)

typedef struct core_vk {
#define VKOCC_PFN(name) PFN_##name name;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
  VKOCC_VK_GLOBAL(VKOCC_PFN) VKOCC_VK_INSTANCE(VKOCC_PFN) VKOCC_VK_DEVICE(VKOCC_PFN)
#undef VKOCC_PFN
} core_vk;
extern core_vk core_fn;

vkocc_status core_loader_open(void);
vkocc_status core_instance_create(VkInstance *instance);
/* The application's loader entry (NULL: the system loader's) and the instance functions of its instance. */
vkocc_status core_loader_use(void (*get_instance_proc_addr)(void), VkInstance instance);
void core_load_device_functions(VkInstance instance);

/* devices.c */
void core_fill_device_info(VkPhysicalDevice pd, uint32_t index, vkocc_device_info *info);
bool core_device_has_extension(VkPhysicalDevice pd, const char *name);

/* context.c; the buffers, pipelines and batches made on a context are in core/exec.h */
struct vkocc_context {
  VkInstance instance;
  VkPhysicalDevice phys;
  VkDevice device;
  VkQueue queue;
  vkocc_device_info info;
  VkPhysicalDeviceMemoryProperties mem;
  VkCommandPool cmd_pool;     /* the batches' command buffers (core/exec.c) */
  struct core_batch *batch;  /* the context's own batch: core_context_batch */
  struct core_buffer *staging; /* core_buffer_upload_to's, kept for the context's life (NULL until the first) */
  VkPipelineCache cache;
  char cache_path[1024];
  bool cache_was_loaded;
  bool device_clock, subgroup_clock;
  bool exec_props; /* VK_KHR_pipeline_executable_properties enabled (statistics of a user's pipeline) */
  bool external;   /* instance and device belong to the application (vkocc_context_create_external) */
  bool lost;                  /* a wait saw VK_ERROR_DEVICE_LOST: nothing more is submitted or waited for */
  bool unfinished;            /* a submission outlived its bounded wait: its objects and the device are kept */
  uint64_t timeout_ns;
  /* the device between vkocc processes (core/devlock.c): lock_state 0 not opened yet, 1 open, 2 none,
   * 3 refused */
  int lock_state, lock_fd, intent_fd;
  char lock_error[1024]; /* lock_state 3: the door refused a lock file (what is in its place) */
  bool (*wait)(void *user, const vkocc_wait_info *w); /* vkocc_context_options.wait */
  void *wait_user;
  bool lock_stopped;     /* the wait hook stopped a submission's wait: the submission fails */
  uint32_t exclusive, shared; /* depth of exclusive sections; submissions in flight holding the shared lock */
  struct probes_pool *probe_pool; /* probe kernels built ahead (probes/prebuild.c), NULL when none */
  size_t cache_loaded_bytes; /* the pipeline cache's size as loaded: unchanged at the end, it is not written again */
};

/* shader_features.c: the shader features vkocc's device enables (all of its list that the device supports);
 * vkocc_context_create calls this before vkCreateDevice, chain living until then. */
typedef struct core_feature_chain {
  VkPhysicalDeviceFeatures2 f2;
  VkPhysicalDeviceVulkan11Features v11;
  VkPhysicalDeviceVulkan12Features v12;
  bool has12;
} core_feature_chain;
void core_shader_features_enable(VkPhysicalDevice pd, VkDeviceCreateInfo *dci, core_feature_chain *chain);
/* The subgroup-size range a compute pipeline can get (subgroupSizeControl), else subgroupSize twice. */
void core_subgroup_size_range(vkocc_context *ctx, uint32_t *min, uint32_t *max);
#endif
