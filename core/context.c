#include "internal.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static vkocc_status load_pipeline_cache(vkocc_context *ctx) {
  char dir[900], uuid[37];
  void *data = NULL;
  size_t len = 0;
  vkocc_format_uuid(ctx->info.uuid, uuid);
  if (vkocc_cache_dir(dir, sizeof dir) == VKOCC_OK) {
    /* per queue family too: what the driver compiles for may differ there (shared-memory carveout on NVIDIA) */
    snprintf(ctx->cache_path, sizeof ctx->cache_path, "%s/pipelines-%s-q%u.bin", dir, uuid,
             ctx->info.compute_queue_family);
    if (vkocc_read_cache_file(ctx->cache_path, &data, &len) != VKOCC_OK) { data = NULL; len = 0; }
  }
  vkocc_clear_error();
  /* The driver validates the header (vendor, device, pipelineCacheUUID) and ignores a foreign cache. */
  VkPipelineCacheCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                  .initialDataSize = len, .pInitialData = data};
  VkResult r = vkocc_fn.vkCreatePipelineCache(ctx->device, &ci, NULL, &ctx->cache);
  if (r != VK_SUCCESS && data) {
    ci.initialDataSize = 0;
    ci.pInitialData = NULL;
    r = vkocc_fn.vkCreatePipelineCache(ctx->device, &ci, NULL, &ctx->cache);
  }
  /* warm only when the driver kept pipelines from the file: a header alone (32 bytes), or data it refused,
   * leaves an empty cache */
  size_t held = 0;
  ctx->cache_was_loaded = r == VK_SUCCESS && ci.pInitialData != NULL &&
                          vkocc_fn.vkGetPipelineCacheData(ctx->device, ctx->cache, &held, NULL) == VK_SUCCESS &&
                          held > 32;
  free(data);
  return r == VK_SUCCESS ? VKOCC_OK : vkocc_vk_fail(r, "vkCreatePipelineCache");
}

static void save_pipeline_cache(vkocc_context *ctx) {
  if (!ctx->cache || !ctx->cache_path[0]) return;
  size_t len = 0;
  if (vkocc_fn.vkGetPipelineCacheData(ctx->device, ctx->cache, &len, NULL) != VK_SUCCESS || !len) return;
  void *data = vkocc_xmalloc(len);
  if (vkocc_fn.vkGetPipelineCacheData(ctx->device, ctx->cache, &len, data) == VK_SUCCESS)
    vkocc_write_file_atomic(ctx->cache_path, data, len); /* a cache that cannot be written is no error */
  free(data);
}

/* What every context makes on its device: command pool and buffer, fence, timestamp queries, pipeline cache.
 * On failure the caller destroys the context (which destroys what was made). */
static vkocc_status context_objects(vkocc_context *ctx) {
  VkResult r;
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                 .queueFamilyIndex = ctx->info.compute_queue_family};
  VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                     .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkQueryPoolCreateInfo qpci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
  if ((r = vkocc_fn.vkCreateCommandPool(ctx->device, &pci, NULL, &ctx->cmd_pool)) ||
      (cai.commandPool = ctx->cmd_pool, r = vkocc_fn.vkAllocateCommandBuffers(ctx->device, &cai, &ctx->cmd)) ||
      (r = vkocc_fn.vkCreateFence(ctx->device, &fci, NULL, &ctx->fence)) ||
      (r = vkocc_fn.vkCreateQueryPool(ctx->device, &qpci, NULL, &ctx->queries))) {
    return vkocc_vk_fail(r, "creating command pool, fence and query pool");
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
  vkocc_context *ctx = vkocc_xcalloc(1, sizeof *ctx);
  ctx->timeout_ns = (uint64_t)((opt->timeout_s > 0 ? opt->timeout_s : 10.0) * 1e9);
  vkocc_status s = vkocc_instance_create(&ctx->instance);
  if (s) { free(ctx); return s; }

  uint32_t n = 0;
  vkocc_fn.vkEnumeratePhysicalDevices(ctx->instance, &n, NULL);
  if (n == 0) {
    vkocc_context_destroy(ctx);
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "no Vulkan device: the loader found no physical device; install a "
                      "driver, e.g. mesa-vulkan-drivers for lavapipe");
  }
  VkPhysicalDevice *pds = vkocc_xcalloc(n, sizeof *pds);
  vkocc_device_info *infos = vkocc_xcalloc(n, sizeof *infos);
  vkocc_fn.vkEnumeratePhysicalDevices(ctx->instance, &n, pds);
  for (uint32_t i = 0; i < n; i++) vkocc_fill_device_info(pds[i], i, &infos[i]);
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
  vkocc_fn.vkGetPhysicalDeviceMemoryProperties(ctx->phys, &ctx->mem);

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
  if (vkocc_device_has_extension(ctx->phys, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &pep};
    vkocc_fn.vkGetPhysicalDeviceFeatures2(ctx->phys, &f2);
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
  vkocc_feature_chain features; /* the shader features a user's module may need, where supported */
  vkocc_shader_features_enable(ctx->phys, &dci, &features);
  VkResult r = vkocc_fn.vkCreateDevice(ctx->phys, &dci, NULL, &ctx->device);
  if (r != VK_SUCCESS) {
    char what[300];
    snprintf(what, sizeof what, "vkCreateDevice on %s", ctx->info.name);
    s = vkocc_vk_fail(r, what);
    vkocc_context_destroy(ctx);
    return s;
  }
  vkocc_load_device_functions(ctx->instance);
  vkocc_fn.vkGetDeviceQueue(ctx->device, ctx->info.compute_queue_family, 0, &ctx->queue);
  if ((s = context_objects(ctx))) { vkocc_context_destroy(ctx); return s; }
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
  vkocc_status s = vkocc_loader_use(ext->get_instance_proc_addr, instance);
  if (s) return s;
  /* the physical device must be one of the instance's: its index names it in documents as usual */
  uint32_t n = 0, idx = UINT32_MAX;
  vkocc_fn.vkEnumeratePhysicalDevices(instance, &n, NULL);
  VkPhysicalDevice *pds = vkocc_xcalloc(n ? n : 1, sizeof *pds);
  if (!pds) return vkocc_fail(VKOCC_ERROR_RUNTIME, "out of memory");
  vkocc_fn.vkEnumeratePhysicalDevices(instance, &n, pds);
  for (uint32_t i = 0; i < n; i++)
    if (pds[i] == (VkPhysicalDevice)ext->physical_device) idx = i;
  free(pds);
  if (idx == UINT32_MAX)
    return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_context_create_external: the physical device is not one of the "
                      "instance's %u", n);
  vkocc_context *ctx = vkocc_xcalloc(1, sizeof *ctx);
  if (!ctx) return vkocc_fail(VKOCC_ERROR_RUNTIME, "out of memory");
  ctx->external = true;
  ctx->timeout_ns = (uint64_t)((ext->timeout_s > 0 ? ext->timeout_s : 10.0) * 1e9);
  ctx->instance = instance;
  ctx->phys = (VkPhysicalDevice)ext->physical_device;
  ctx->device = (VkDevice)ext->device;
  vkocc_fill_device_info(ctx->phys, idx, &ctx->info);
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
  vkocc_fn.vkGetPhysicalDeviceMemoryProperties(ctx->phys, &ctx->mem);
  /* only what the application enabled (a feature it did not enable must not be used) */
  ctx->device_clock = ext->shader_device_clock && ctx->info.shader_device_clock;
  ctx->subgroup_clock = ext->shader_subgroup_clock && ctx->info.shader_subgroup_clock;
  vkocc_load_device_functions(ctx->instance);
  vkocc_fn.vkGetDeviceQueue(ctx->device, fam, ext->queue_index, &ctx->queue);
  if ((s = context_objects(ctx))) { vkocc_context_destroy(ctx); return s; }
  *out = ctx;
  return VKOCC_OK;
}

void vkocc_context_destroy(vkocc_context *ctx) {
  if (!ctx) return;
  if (ctx->device) {
    /* our submissions are all waited for; the application's device is not ours to wait on */
    if (!ctx->external) vkocc_fn.vkDeviceWaitIdle(ctx->device);
    save_pipeline_cache(ctx);
    if (ctx->cache) vkocc_fn.vkDestroyPipelineCache(ctx->device, ctx->cache, NULL);
    if (ctx->queries) vkocc_fn.vkDestroyQueryPool(ctx->device, ctx->queries, NULL);
    if (ctx->fence) vkocc_fn.vkDestroyFence(ctx->device, ctx->fence, NULL);
    if (ctx->cmd_pool) vkocc_fn.vkDestroyCommandPool(ctx->device, ctx->cmd_pool, NULL);
    if (!ctx->external) vkocc_fn.vkDestroyDevice(ctx->device, NULL);
  }
  if (ctx->instance && !ctx->external) vkocc_fn.vkDestroyInstance(ctx->instance, NULL);
  free(ctx);
}

const vkocc_device_info *vkocc_context_device(const vkocc_context *ctx) { return &ctx->info; }
bool vkocc_context_has_device_clock(const vkocc_context *ctx) { return ctx->device_clock; }
bool vkocc_context_has_subgroup_clock(const vkocc_context *ctx) { return ctx->subgroup_clock; }

static int32_t find_memory(const vkocc_context *ctx, uint32_t bits, VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < ctx->mem.memoryTypeCount; i++)
    if ((bits & (1u << i)) && (ctx->mem.memoryTypes[i].propertyFlags & want) == want) return (int32_t)i;
  return -1;
}

vkocc_status vkocc_buffer_create(vkocc_context *ctx, VkDeviceSize size, bool host_visible, vkocc_buffer *b) {
  memset(b, 0, sizeof *b);
  b->size = size;
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                     VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                     VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT}; /* + user shaders' dummies */
  VkResult r = vkocc_fn.vkCreateBuffer(ctx->device, &bci, NULL, &b->buffer);
  if (r) return vkocc_vk_fail(r, "vkCreateBuffer");
  VkMemoryRequirements req;
  vkocc_fn.vkGetBufferMemoryRequirements(ctx->device, b->buffer, &req);
  /* Host-visible buffers are read back by the host: prefer cached memory (reads from write-combined
   * memory are slow). */
  const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int32_t type = host_visible ? find_memory(ctx, req.memoryTypeBits, hv | VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
                              : find_memory(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (type < 0 && host_visible) type = find_memory(ctx, req.memoryTypeBits, hv);
  if (type < 0 && !host_visible) type = find_memory(ctx, req.memoryTypeBits, 0);
  if (type < 0) {
    vkocc_buffer_destroy(ctx, b);
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "no %s memory type for a %llu-byte buffer",
                      host_visible ? "host-visible coherent" : "device", (unsigned long long)size);
  }
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                              .memoryTypeIndex = (uint32_t)type};
  if ((r = vkocc_fn.vkAllocateMemory(ctx->device, &mai, NULL, &b->memory)) ||
      (r = vkocc_fn.vkBindBufferMemory(ctx->device, b->buffer, b->memory, 0)) ||
      (host_visible && (r = vkocc_fn.vkMapMemory(ctx->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map)))) {
    vkocc_buffer_destroy(ctx, b);
    return vkocc_vk_fail(r, "allocating buffer memory");
  }
  return VKOCC_OK;
}

void vkocc_buffer_destroy(vkocc_context *ctx, vkocc_buffer *b) {
  if (b->buffer) vkocc_fn.vkDestroyBuffer(ctx->device, b->buffer, NULL);
  if (b->memory) vkocc_fn.vkFreeMemory(ctx->device, b->memory, NULL);
  memset(b, 0, sizeof *b);
}

vkocc_status vkocc_submit_wait(vkocc_context *ctx, VkCommandBuffer cmd, uint64_t timeout_ns, const char *what) {
  if (!timeout_ns) timeout_ns = ctx->timeout_ns;
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
  VkResult r = vkocc_fn.vkQueueSubmit(ctx->queue, 1, &si, ctx->fence);
  if (r) return vkocc_vk_fail(r, what);
  r = vkocc_fn.vkWaitForFences(ctx->device, 1, &ctx->fence, VK_TRUE, timeout_ns);
  if (r == VK_TIMEOUT)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: the GPU did not finish within %.1f s (VK_TIMEOUT)", what,
                      (double)timeout_ns / 1e9);
  if (r) return vkocc_vk_fail(r, what);
  vkocc_fn.vkResetFences(ctx->device, 1, &ctx->fence);
  return VKOCC_OK;
}

static vkocc_status submit_and_wait(vkocc_context *ctx, const char *what) {
  return vkocc_submit_wait(ctx, ctx->cmd, 0, what);
}

vkocc_status vkocc_read_elapsed(vkocc_context *ctx, double *ns, vkocc_tick_status *tick) {
  uint64_t ts[2], d;
  VkResult r = vkocc_fn.vkGetQueryPoolResults(ctx->device, ctx->queries, 0, 2, sizeof ts, ts, sizeof ts[0],
                                               VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (r) return vkocc_vk_fail(r, "vkGetQueryPoolResults");
  vkocc_tick_status t = vkocc_tick_delta(ts[0], ts[1], ctx->info.timestamp_valid_bits, &d);
  if (tick) *tick = t;
  if (ns) *ns = (double)d * ctx->info.timestamp_period;
  return VKOCC_OK;
}

static void begin(vkocc_context *ctx) {
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  vkocc_fn.vkResetCommandBuffer(ctx->cmd, 0);
  vkocc_fn.vkBeginCommandBuffer(ctx->cmd, &bi);
}

vkocc_status vkocc_buffer_upload(vkocc_context *ctx, vkocc_buffer *dst, const void *data, VkDeviceSize size) {
  if (dst->map) { memcpy(dst->map, data, size); return VKOCC_OK; }
  vkocc_buffer staging;
  vkocc_status s = vkocc_buffer_create(ctx, size, true, &staging);
  if (s) return s;
  memcpy(staging.map, data, size);
  begin(ctx);
  VkBufferCopy region = {.size = size};
  vkocc_fn.vkCmdCopyBuffer(ctx->cmd, staging.buffer, dst->buffer, 1, &region);
  vkocc_fn.vkEndCommandBuffer(ctx->cmd);
  s = submit_and_wait(ctx, "uploading a buffer");
  vkocc_buffer_destroy(ctx, &staging);
  return s;
}

vkocc_status vkocc_kernel_create(vkocc_context *ctx, const uint32_t *spv, size_t spv_bytes, uint32_t bindings,
                                 uint32_t push_bytes, const uint32_t *spec, uint32_t spec_count, vkocc_kernel *k) {
  memset(k, 0, sizeof *k);
  k->bindings = bindings;
  k->push_bytes = push_bytes;
  VkDescriptorSetLayoutBinding b[4];
  for (uint32_t i = 0; i < bindings; i++)
    b[i] = (VkDescriptorSetLayoutBinding){.binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkShaderModuleCreateInfo smci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = spv_bytes,
                                   .pCode = spv};
  VkDescriptorSetLayoutCreateInfo dslci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           .bindingCount = bindings, .pBindings = b};
  VkPushConstantRange pcr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = push_bytes};
  VkSpecializationMapEntry entries[4];
  for (uint32_t i = 0; i < spec_count; i++)
    entries[i] = (VkSpecializationMapEntry){.constantID = i, .offset = 4 * i, .size = 4};
  VkSpecializationInfo si = {.mapEntryCount = spec_count, .pMapEntries = entries, .dataSize = 4 * spec_count,
                             .pData = spec};
  VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = bindings};
  VkDescriptorPoolCreateInfo dpci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                     .poolSizeCount = 1, .pPoolSizes = &ps};
  VkResult r;
  if ((r = vkocc_fn.vkCreateShaderModule(ctx->device, &smci, NULL, &k->module)) ||
      (r = vkocc_fn.vkCreateDescriptorSetLayout(ctx->device, &dslci, NULL, &k->set_layout)))
    goto fail;
  VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                     .pSetLayouts = &k->set_layout, .pushConstantRangeCount = push_bytes ? 1 : 0,
                                     .pPushConstantRanges = &pcr};
  if ((r = vkocc_fn.vkCreatePipelineLayout(ctx->device, &plci, NULL, &k->layout))) goto fail;
  VkComputePipelineCreateInfo cpci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = k->module, .pName = "main", .pSpecializationInfo = spec_count ? &si : NULL},
      .layout = k->layout};
  if ((r = vkocc_fn.vkCreateComputePipelines(ctx->device, ctx->cache, 1, &cpci, NULL, &k->pipeline)) ||
      (r = vkocc_fn.vkCreateDescriptorPool(ctx->device, &dpci, NULL, &k->pool)))
    goto fail;
  VkDescriptorSetAllocateInfo dsai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = k->pool, .descriptorSetCount = 1,
                                      .pSetLayouts = &k->set_layout};
  if ((r = vkocc_fn.vkAllocateDescriptorSets(ctx->device, &dsai, &k->set))) goto fail;
  return VKOCC_OK;
fail:
  vkocc_kernel_destroy(ctx, k);
  return vkocc_vk_fail(r, "creating a compute pipeline");
}

void vkocc_kernel_bind(vkocc_context *ctx, vkocc_kernel *k, vkocc_buffer *const *buffers) {
  VkDescriptorBufferInfo bi[4];
  VkWriteDescriptorSet w[4];
  for (uint32_t i = 0; i < k->bindings; i++) {
    bi[i] = (VkDescriptorBufferInfo){.buffer = buffers[i]->buffer, .range = VK_WHOLE_SIZE};
    w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = k->set, .dstBinding = i,
                                  .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &bi[i]};
  }
  vkocc_fn.vkUpdateDescriptorSets(ctx->device, k->bindings, w, 0, NULL);
}

void vkocc_kernel_destroy(vkocc_context *ctx, vkocc_kernel *k) {
  if (k->pool) vkocc_fn.vkDestroyDescriptorPool(ctx->device, k->pool, NULL);
  if (k->pipeline) vkocc_fn.vkDestroyPipeline(ctx->device, k->pipeline, NULL);
  if (k->layout) vkocc_fn.vkDestroyPipelineLayout(ctx->device, k->layout, NULL);
  if (k->set_layout) vkocc_fn.vkDestroyDescriptorSetLayout(ctx->device, k->set_layout, NULL);
  if (k->module) vkocc_fn.vkDestroyShaderModule(ctx->device, k->module, NULL);
  memset(k, 0, sizeof *k);
}

vkocc_status vkocc_dispatch_timed(vkocc_context *ctx, vkocc_kernel *k, const void *push, uint32_t groups,
                                  double *ns, vkocc_tick_status *tick) {
  if (groups == 0 || groups > ctx->info.max_wg_count_x)
    return vkocc_fail(VKOCC_ERROR_USAGE, "dispatch of %u workgroups is outside 1..maxComputeWorkGroupCount[0]=%u",
                      groups, ctx->info.max_wg_count_x);
  begin(ctx);
  vkocc_fn.vkCmdResetQueryPool(ctx->cmd, ctx->queries, 0, 2);
  vkocc_fn.vkCmdBindPipeline(ctx->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
  vkocc_fn.vkCmdBindDescriptorSets(ctx->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, 1, &k->set, 0, NULL);
  if (k->push_bytes) vkocc_fn.vkCmdPushConstants(ctx->cmd, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, k->push_bytes, push);
  vkocc_fn.vkCmdWriteTimestamp(ctx->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, ctx->queries, 0);
  vkocc_fn.vkCmdDispatch(ctx->cmd, groups, 1, 1);
  vkocc_fn.vkCmdWriteTimestamp(ctx->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ctx->queries, 1);
  vkocc_fn.vkEndCommandBuffer(ctx->cmd);
  vkocc_status s = submit_and_wait(ctx, "compute dispatch");
  return s ? s : vkocc_read_elapsed(ctx, ns, tick);
}
