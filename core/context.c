#include "exec.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The driver's pipeline cache on disk: vkocc's header, then the driver's data. The header holds a checksum
 * (FNV-1a 64) over the key (util_cache_key: device, driver, queue family, driver environment, vkocc's
 * version) and the data, so an edited, torn or foreign file never reaches the driver (the driver checks only
 * its own header, not the data behind it). */
#define PC_MAGIC "vkoccPC1"
typedef struct {
  char magic[8];
  uint64_t size, checksum;
} pc_header;

static uint64_t pc_checksum(const vkocc_context *ctx, const void *data, size_t size) {
  char key[1024];
  util_cache_key(&ctx->info, "pipelines", key, sizeof key);
  return util_fnv1a(util_fnv1a_str(VKOCC_FNV1A_OFFSET, key), data, size);
}

/* The driver's data of a file, or NULL (a miss) when the header or its checksum does not match. */
static const void *pc_unwrap(const vkocc_context *ctx, const void *file, size_t len, size_t *size) {
  pc_header h;
  if (!file || len < sizeof h) return NULL;
  memcpy(&h, file, sizeof h);
  if (memcmp(h.magic, PC_MAGIC, 8) || h.size != len - sizeof h) return NULL;
  const char *data = (const char *)file + sizeof h;
  if (h.checksum != pc_checksum(ctx, data, h.size)) return NULL;
  *size = h.size;
  return data;
}

static vkocc_status load_pipeline_cache(vkocc_context *ctx) {
  char dir[900], uuid[37];
  void *data = NULL;
  size_t len = 0;
  vkocc_format_uuid(ctx->info.uuid, uuid);
  if (util_cache_dir(dir, sizeof dir) == VKOCC_OK) {
    /* per queue family too: what the driver compiles for may differ there (shared-memory carveout on NVIDIA) */
    snprintf(ctx->cache_path, sizeof ctx->cache_path, "%s/pipelines-%s-q%u.bin", dir, uuid,
             ctx->info.compute_queue_family);
    if (util_read_cache_file(ctx->cache_path, &data, &len) != VKOCC_OK) { data = NULL; len = 0; }
  }
  vkocc_clear_error();
  size_t size = 0;
  const void *init = pc_unwrap(ctx, data, len, &size);
  /* The driver validates its header (vendor, device, pipelineCacheUUID) and ignores a foreign cache. */
  VkPipelineCacheCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                  .initialDataSize = init ? size : 0, .pInitialData = init};
  VkResult r = core_fn.vkCreatePipelineCache(ctx->device, &ci, NULL, &ctx->cache);
  if (r != VK_SUCCESS && init) {
    ci.initialDataSize = 0;
    ci.pInitialData = NULL;
    r = core_fn.vkCreatePipelineCache(ctx->device, &ci, NULL, &ctx->cache);
  }
  /* warm only when the driver kept pipelines from the file: a header alone (32 bytes), or data it refused,
   * leaves an empty cache */
  size_t held = 0;
  ctx->cache_was_loaded = r == VK_SUCCESS && ci.pInitialData != NULL &&
                          core_fn.vkGetPipelineCacheData(ctx->device, ctx->cache, &held, NULL) == VK_SUCCESS &&
                          held > 32;
  if (ctx->cache_was_loaded) ctx->cache_loaded_bytes = held;
  free(data);
  return r == VK_SUCCESS ? VKOCC_OK : core_vk_fail(r, "vkCreatePipelineCache");
}

static void save_pipeline_cache(vkocc_context *ctx) {
  if (!ctx->cache || !ctx->cache_path[0]) return;
  size_t len = 0;
  if (core_fn.vkGetPipelineCacheData(ctx->device, ctx->cache, &len, NULL) != VK_SUCCESS || !len) return;
  /* nothing new since it was loaded (a warm run): rewriting it (an fsync) costs the run and adds nothing */
  if (ctx->cache_loaded_bytes && len == ctx->cache_loaded_bytes) return;
  char *file = util_xmalloc(sizeof(pc_header) + len);
  if (core_fn.vkGetPipelineCacheData(ctx->device, ctx->cache, &len, file + sizeof(pc_header)) == VK_SUCCESS) {
    pc_header h = {.size = len, .checksum = pc_checksum(ctx, file + sizeof(pc_header), len)};
    memcpy(h.magic, PC_MAGIC, 8);
    memcpy(file, &h, sizeof h);
    if (util_write_own_file_atomic(ctx->cache_path, file, sizeof h + len))
      vkocc_clear_error(); /* a cache that cannot be written is no error */
  }
  free(file);
}

/* What every context makes on its device: the command pool, its own batch (command buffer, fence,
 * timestamp queries; core/exec.c), the pipeline cache. On failure the caller destroys the context (which
 * destroys what was made). */
static vkocc_status context_objects(vkocc_context *ctx) {
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                 .queueFamilyIndex = ctx->info.compute_queue_family};
  VkResult r = core_fn.vkCreateCommandPool(ctx->device, &pci, NULL, &ctx->cmd_pool);
  if (r) return core_vk_fail(r, "creating command pool, fence and query pool");
  ctx->batch = util_xcalloc(1, sizeof *ctx->batch);
  vkocc_status s = core_batch_create(ctx, VKOCC_CONTEXT_TIMED, ctx->batch);
  if (s) {
    free(ctx->batch);
    ctx->batch = NULL;
    return s;
  }
  return load_pipeline_cache(ctx);
}

vkocc_status vkocc_context_create(const vkocc_context_options *opt, vkocc_context **out) {
  vkocc_clear_error();
  vkocc_context_options defaults = {0};
  if (!opt) opt = &defaults;
  *out = NULL;
  /* the queue choice's spelling is checked before any device is opened; the family itself below */
  const char *qspec = opt->queue ? opt->queue : getenv("VKOCC_QUEUE");
  const char *qsrc = opt->queue ? "--queue" : qspec && *qspec ? "VKOCC_QUEUE" : "default queue";
  if (opt->queue && !*opt->queue)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--queue '': expected compute, graphics or a queue family index");
  if (qspec && *qspec && strcasecmp(qspec, "compute") && strcasecmp(qspec, "graphics") &&
      strspn(qspec, "0123456789") != strlen(qspec))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s '%s': expected compute, graphics or a queue family index "
                      "(vkocc devices lists the families)", qsrc, qspec);
  vkocc_context *ctx = util_xcalloc(1, sizeof *ctx);
  ctx->timeout_ns = (uint64_t)((opt->timeout_s > 0 ? opt->timeout_s : 10.0) * 1e9);
  ctx->wait = opt->wait, ctx->wait_user = opt->wait_user;
  vkocc_status s = core_instance_create(&ctx->instance);
  if (s) { free(ctx); return s; }

  uint32_t n = 0;
  VkResult er = core_fn.vkEnumeratePhysicalDevices(ctx->instance, &n, NULL);
  if (er < 0 || n == 0) {
    vkocc_context_destroy(ctx);
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "no Vulkan device: the loader found no physical device (%s); install "
                      "a driver, e.g. mesa-vulkan-drivers for lavapipe", core_vk_result_name(er));
  }
  VkPhysicalDevice *pds = util_xcalloc(n, sizeof *pds);
  if ((er = core_fn.vkEnumeratePhysicalDevices(ctx->instance, &n, pds)) < 0 || n == 0) {
    free(pds);
    vkocc_context_destroy(ctx);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "vkEnumeratePhysicalDevices: %s", core_vk_result_name(er));
  }
  vkocc_device_info *infos = util_xcalloc(n, sizeof *infos);
  for (uint32_t i = 0; i < n; i++) core_fill_device_info(pds[i], i, &infos[i]);
  const char *spec = opt->device ? opt->device : getenv("VKOCC_DEVICE");
  uint32_t idx = 0;
  s = vkocc_select_device_from(infos, n, spec, opt->device ? "--device" : "VKOCC_DEVICE", &idx);
  if (!s) { ctx->phys = pds[idx]; ctx->info = infos[idx]; }
  free(pds);
  free(infos);
  if (s) { vkocc_context_destroy(ctx); return s; }

  /* The queue family decides more than contention: on NVIDIA the shared memory a pipeline gets per SM
   * (docs/results/h100/carveout/README.md). Errors list the device's families. */
  uint32_t fam;
  bool fell_back;
  if ((s = vkocc_select_queue_family(&ctx->info, qspec, qsrc, &fam, &fell_back))) {
    vkocc_context_destroy(ctx);
    return s;
  }
  char choice[16] = "compute";
  if (qspec && *qspec) {
    snprintf(choice, sizeof choice, "%s", qspec);
    for (char *c = choice; *c; c++) *c = (char)tolower((unsigned char)*c);
  }
  vkocc_device_use_queue_family(&ctx->info, fam, choice);
  core_fn.vkGetPhysicalDeviceMemoryProperties(ctx->phys, &ctx->mem);

  ctx->device_clock = ctx->info.shader_device_clock && !opt->disable_shader_clock;
  ctx->subgroup_clock = ctx->info.shader_subgroup_clock && !opt->disable_shader_clock;
  VkPhysicalDeviceShaderClockFeaturesKHR clk = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR,
                                                .shaderSubgroupClock = ctx->subgroup_clock,
                                                .shaderDeviceClock = ctx->device_clock};
  const char *ext[] = {VK_KHR_SHADER_CLOCK_EXTENSION_NAME};
  bool use_clock = ctx->device_clock || ctx->subgroup_clock;
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = ctx->info.compute_queue_family,
                                 .queueCount = 1, .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = use_clock ? &clk : NULL,
                            .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                            .enabledExtensionCount = use_clock ? 1 : 0, .ppEnabledExtensionNames = ext};
  /* The driver's statistics of a user's pipeline (registers, shared memory; probes/pipeline.c), where offered */
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pep = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  const char *ext_pep[2];
  if (core_device_has_extension(ctx->phys, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &pep};
    core_fn.vkGetPhysicalDeviceFeatures2(ctx->phys, &f2);
    if ((ctx->exec_props = pep.pipelineExecutableInfo)) {
      uint32_t k = 0;
      if (use_clock) ext_pep[k++] = ext[0];
      ext_pep[k++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
      dci.enabledExtensionCount = k;
      dci.ppEnabledExtensionNames = ext_pep;
      pep.pNext = (void *)dci.pNext;
      dci.pNext = &pep;
    }
  }
  core_feature_chain features; /* the shader features a user's module may need, where supported */
  core_shader_features_enable(ctx->phys, &dci, &features);
  VkResult r = core_fn.vkCreateDevice(ctx->phys, &dci, NULL, &ctx->device);
  if (r != VK_SUCCESS) {
    char what[300];
    snprintf(what, sizeof what, "vkCreateDevice on %s", ctx->info.name);
    s = core_vk_fail(r, what);
    vkocc_context_destroy(ctx);
    return s;
  }
  core_load_device_functions(ctx->instance);
  core_fn.vkGetDeviceQueue(ctx->device, ctx->info.compute_queue_family, 0, &ctx->queue);
  if ((s = context_objects(ctx))) { vkocc_context_destroy(ctx); return s; }
  /* A CPU device compiles a pipeline at its first dispatch (lavapipe: LLVM, seconds for a large module on a
   * busy host: a 10 s wait timed out there) and cannot hang like a GPU: its default wait is longer. */
  if (!(opt->timeout_s > 0) && ctx->info.device_type == VK_PHYSICAL_DEVICE_TYPE_CPU) ctx->timeout_ns = 60000000000ull;
  *out = ctx;
  return VKOCC_OK;
}

vkocc_status vkocc_context_create_external(const vkocc_external_device *ext, vkocc_context **out) {
  vkocc_clear_error();
  if (!out) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_context_create_external: no output");
  *out = NULL;
  if (!ext || !ext->instance || !ext->physical_device || !ext->device)
    return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_context_create_external: the instance, physical device and device "
                      "handles are required");
  VkInstance instance = (VkInstance)ext->instance;
  vkocc_status s = core_loader_use(ext->get_instance_proc_addr, instance);
  if (s) return s;
  /* the physical device must be one of the instance's: its index names it in documents as usual */
  uint32_t n = 0, idx = UINT32_MAX;
  VkResult er = core_fn.vkEnumeratePhysicalDevices(instance, &n, NULL);
  VkPhysicalDevice *pds = util_xcalloc(n ? n : 1, sizeof *pds);
  if (er >= 0 && n) er = core_fn.vkEnumeratePhysicalDevices(instance, &n, pds);
  if (er < 0) {
    free(pds);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "vkocc_context_create_external: vkEnumeratePhysicalDevices: %s",
                      core_vk_result_name(er));
  }
  for (uint32_t i = 0; i < n; i++)
    if (pds[i] == (VkPhysicalDevice)ext->physical_device) idx = i;
  free(pds);
  if (idx == UINT32_MAX)
    return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_context_create_external: the physical device is not one of the "
                      "instance's %u", n);
  vkocc_context *ctx = util_xcalloc(1, sizeof *ctx);
  ctx->external = true;
  ctx->timeout_ns = (uint64_t)((ext->timeout_s > 0 ? ext->timeout_s : 10.0) * 1e9);
  ctx->instance = instance;
  ctx->phys = (VkPhysicalDevice)ext->physical_device;
  ctx->device = (VkDevice)ext->device;
  core_fill_device_info(ctx->phys, idx, &ctx->info);
  uint32_t fam = ext->queue_family;
  if (fam >= ctx->info.queue_family_count) {
    s = vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_context_create_external: queue family %u: %s has %u families", fam,
                   ctx->info.name, ctx->info.queue_family_count);
  } else if (!(ctx->info.queue_families[fam].flags & VK_QUEUE_COMPUTE_BIT) ||
             !ctx->info.queue_families[fam].timestamp_valid_bits) {
    s = vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "vkocc_context_create_external: queue family %u of %s lacks %s", fam,
                   ctx->info.name, (ctx->info.queue_families[fam].flags & VK_QUEUE_COMPUTE_BIT) ? "timestamps" : "compute");
  } else if (ext->queue_index >= ctx->info.queue_families[fam].queue_count) {
    s = vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_context_create_external: queue %u of family %u: the family has %u",
                   ext->queue_index, fam, ctx->info.queue_families[fam].queue_count);
  }
  if (s) { ctx->device = NULL; vkocc_context_destroy(ctx); return s; }
  char choice[16];
  snprintf(choice, sizeof choice, "%u", fam);
  vkocc_device_use_queue_family(&ctx->info, fam, choice);
  core_fn.vkGetPhysicalDeviceMemoryProperties(ctx->phys, &ctx->mem);
  /* only what the application enabled (a feature it did not enable must not be used) */
  ctx->device_clock = ext->shader_device_clock && ctx->info.shader_device_clock;
  ctx->subgroup_clock = ext->shader_subgroup_clock && ctx->info.shader_subgroup_clock;
  core_load_device_functions(ctx->instance);
  core_fn.vkGetDeviceQueue(ctx->device, fam, ext->queue_index, &ctx->queue);
  if ((s = context_objects(ctx))) { vkocc_context_destroy(ctx); return s; }
  /* A CPU device compiles a pipeline at its first dispatch (lavapipe: LLVM, seconds for a large module on a
   * busy host: a 10 s wait timed out there) and cannot hang like a GPU: its default wait is longer. */
  if (!(ext->timeout_s > 0) && ctx->info.device_type == VK_PHYSICAL_DEVICE_TYPE_CPU) ctx->timeout_ns = 60000000000ull;
  *out = ctx;
  return VKOCC_OK;
}

void vkocc_context_destroy(vkocc_context *ctx) {
  if (!ctx) return;
  if (ctx->device) {
    /* Every submission of vkocc is fenced (core/exec.c is its one vkQueueSubmit) and every batch waits for
     * its fence within the context's limit before it goes; the context's own batch is waited for here. When
     * all have signalled the device runs nothing of ours, so no unbounded vkDeviceWaitIdle is needed. A
     * submission that outlived its wait (VK_TIMEOUT, not lost) may still run: nothing it uses is destroyed
     * then, neither the device nor the instance (destroying them under running work is undefined); the
     * process's exit reclaims them. A lost device is waited for no more; its objects are destroyed. */
    if (!ctx->lost && !ctx->unfinished && ctx->batch && ctx->batch->in_flight) {
      VkResult r = core_fn.vkWaitForFences(ctx->device, 1, &ctx->batch->fence, VK_TRUE, ctx->timeout_ns);
      if (r == VK_ERROR_DEVICE_LOST) ctx->lost = true;
      else if (r != VK_SUCCESS) ctx->unfinished = true;
      else ctx->batch->in_flight = false;
    }
    if (ctx->unfinished && !ctx->lost) {
      if (ctx->batch) free(ctx->batch->rec);
      free(ctx->batch);
      free(ctx);
      return;
    }
    if (!ctx->lost) save_pipeline_cache(ctx);
    if (ctx->cache) core_fn.vkDestroyPipelineCache(ctx->device, ctx->cache, NULL);
    if (ctx->batch) {
      ctx->batch->in_flight = false; /* signalled, or the device is lost */
      core_batch_destroy(ctx->batch);
      free(ctx->batch);
    }
    if (ctx->staging) core_buffer_destroy(ctx, ctx->staging);
    free(ctx->staging);
    if (ctx->cmd_pool) core_fn.vkDestroyCommandPool(ctx->device, ctx->cmd_pool, NULL);
    if (!ctx->external) core_fn.vkDestroyDevice(ctx->device, NULL);
  }
  if (ctx->instance && !ctx->external) core_fn.vkDestroyInstance(ctx->instance, NULL);
  core_device_locks_close(ctx);
  free(ctx);
}

const vkocc_device_info *vkocc_context_device(const vkocc_context *ctx) { return &ctx->info; }
bool vkocc_context_has_device_clock(const vkocc_context *ctx) { return ctx->device_clock; }
bool vkocc_context_has_subgroup_clock(const vkocc_context *ctx) { return ctx->subgroup_clock; }
