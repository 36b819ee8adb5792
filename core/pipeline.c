/* The pipeline builder (core/exec.h): fixed-layout kernels from embedded SPIR-V, and any compute module
 * built from its reflection with the caller's buffers and dummies. */
#include "exec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* resources.c */
vkocc_status core_dummies_make(vkocc_context *ctx, core_kernel *k, const bool *covered);
void core_dummies_destroy(vkocc_context *ctx, core_kernel *k);

vkocc_status core_kernel_create(vkocc_context *ctx, const uint32_t *spv, size_t spv_bytes, uint32_t bindings,
                                 uint32_t push_bytes, const uint32_t *spec, uint32_t spec_count, core_kernel *k) {
  memset(k, 0, sizeof *k);
  k->bindings = bindings;
  k->push_bytes = push_bytes;
  k->nsets = 1;
  k->set_layouts = util_xcalloc(1, sizeof *k->set_layouts);
  k->sets = util_xcalloc(1, sizeof *k->sets);
  VkDescriptorSetLayoutBinding *b = util_xcalloc(bindings, sizeof *b);
  for (uint32_t i = 0; i < bindings; i++)
    b[i] = (VkDescriptorSetLayoutBinding){.binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkShaderModuleCreateInfo smci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = spv_bytes,
                                   .pCode = spv};
  VkDescriptorSetLayoutCreateInfo dslci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           .bindingCount = bindings, .pBindings = b};
  VkPushConstantRange pcr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = push_bytes};
  VkSpecializationMapEntry *entries = util_xcalloc(spec_count, sizeof *entries);
  for (uint32_t i = 0; i < spec_count; i++)
    entries[i] = (VkSpecializationMapEntry){.constantID = i, .offset = 4 * i, .size = 4};
  VkSpecializationInfo si = {.mapEntryCount = spec_count, .pMapEntries = entries, .dataSize = 4 * spec_count,
                             .pData = spec};
  VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = bindings};
  VkDescriptorPoolCreateInfo dpci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                     .poolSizeCount = 1, .pPoolSizes = &ps};
  VkResult r;
  if ((r = core_fn.vkCreateShaderModule(ctx->device, &smci, NULL, &k->module)) ||
      (r = core_fn.vkCreateDescriptorSetLayout(ctx->device, &dslci, NULL, &k->set_layouts[0])))
    goto fail;
  VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                     .pSetLayouts = k->set_layouts, .pushConstantRangeCount = push_bytes ? 1 : 0,
                                     .pPushConstantRanges = &pcr};
  if ((r = core_fn.vkCreatePipelineLayout(ctx->device, &plci, NULL, &k->layout))) goto fail;
  VkComputePipelineCreateInfo cpci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = k->module, .pName = "main", .pSpecializationInfo = spec_count ? &si : NULL},
      .layout = k->layout};
  if ((r = core_fn.vkCreateComputePipelines(ctx->device, ctx->cache, 1, &cpci, NULL, &k->pipeline)) ||
      (r = core_fn.vkCreateDescriptorPool(ctx->device, &dpci, NULL, &k->pool)))
    goto fail;
  VkDescriptorSetAllocateInfo dsai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = k->pool, .descriptorSetCount = 1,
                                      .pSetLayouts = k->set_layouts};
  if ((r = core_fn.vkAllocateDescriptorSets(ctx->device, &dsai, k->sets))) goto fail;
  free(b);
  free(entries);
  return VKOCC_OK;
fail:
  free(b);
  free(entries);
  core_kernel_destroy(ctx, k);
  return core_vk_fail(r, "creating a compute pipeline");
}

void core_kernel_bind_range(vkocc_context *ctx, core_kernel *k, uint32_t set, uint32_t binding,
                             const core_buffer *b, VkDeviceSize offset, VkDeviceSize range) {
  if (set >= k->nsets) return;
  VkDescriptorBufferInfo bi = {.buffer = b->buffer, .offset = offset, .range = range ? range : VK_WHOLE_SIZE};
  VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = k->sets[set],
                            .dstBinding = binding, .descriptorCount = 1,
                            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &bi};
  core_fn.vkUpdateDescriptorSets(ctx->device, 1, &w, 0, NULL);
}

void core_kernel_bind(vkocc_context *ctx, core_kernel *k, core_buffer *const *buffers) {
  if (!k->bindings || !k->nsets) return;
  VkDescriptorBufferInfo *bi = util_xcalloc(k->bindings, sizeof *bi);
  VkWriteDescriptorSet *w = util_xcalloc(k->bindings, sizeof *w);
  for (uint32_t i = 0; i < k->bindings; i++) {
    bi[i] = (VkDescriptorBufferInfo){.buffer = buffers[i]->buffer, .range = VK_WHOLE_SIZE};
    w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = k->sets[0], .dstBinding = i,
                                  .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &bi[i]};
  }
  core_fn.vkUpdateDescriptorSets(ctx->device, k->bindings, w, 0, NULL);
  free(bi);
  free(w);
}

void core_kernel_destroy(vkocc_context *ctx, core_kernel *k) {
  VkDevice dev = ctx->device;
  core_dummies_destroy(ctx, k);
  if (k->pool) core_fn.vkDestroyDescriptorPool(dev, k->pool, NULL);
  if (k->pipeline) core_fn.vkDestroyPipeline(dev, k->pipeline, NULL);
  if (k->layout) core_fn.vkDestroyPipelineLayout(dev, k->layout, NULL);
  for (uint32_t i = 0; k->set_layouts && i < k->nsets; i++)
    if (k->set_layouts[i]) core_fn.vkDestroyDescriptorSetLayout(dev, k->set_layouts[i], NULL);
  if (k->module) core_fn.vkDestroyShaderModule(dev, k->module, NULL);
  free(k->set_layouts);
  free(k->sets);
  free(k->spec_entries);
  free(k->spec_data);
  compile_reflection_free(&k->refl);
  memset(k, 0, sizeof *k);
}

/* ------------------------------------------------------------------ built from the reflection */

static void reflection_copy(const compile_reflection *from, compile_reflection *to) {
  *to = *from;
  to->bindings = util_xcalloc(from->nbindings, sizeof *to->bindings);
  if (from->nbindings) memcpy(to->bindings, from->bindings, from->nbindings * sizeof *to->bindings);
  to->specs = util_xcalloc(from->nspecs, sizeof *to->specs);
  if (from->nspecs) memcpy(to->specs, from->specs, from->nspecs * sizeof *to->specs);
}

/* Specialization data in the constants' own types, one map entry per ID (the last value given for it). */
static void spec_data(core_kernel *k, const vkocc_spec_value *spec, uint32_t nspec) {
  const compile_reflection *rf = &k->refl;
  k->spec_entries = util_xcalloc(nspec, sizeof *k->spec_entries);
  k->spec_data = util_xcalloc(nspec, 8);
  uint32_t off = 0, n = 0;
  for (uint32_t i = 0; i < nspec; i++) {
    const compile_reflect_spec *c = NULL;
    for (uint32_t j = 0; j < rf->nspecs; j++) if (rf->specs[j].id == spec[i].id) c = &rf->specs[j];
    if (!c) continue;
    bool later = false; /* the same ID again further on: that value counts */
    for (uint32_t j = i + 1; j < nspec && !later; j++) later = spec[j].id == spec[i].id;
    if (later) continue;
    uint64_t bits;
    if (c->is_float && c->bytes == 4) { float f = (float)spec[i].value; uint32_t b; memcpy(&b, &f, 4); bits = b; }
    else if (c->is_float) memcpy(&bits, &spec[i].value, 8);
    else if (c->is_bool) bits = spec[i].value != 0;
    else bits = (uint64_t)(int64_t)spec[i].value;
    if (c->bytes == 4) { uint32_t b = (uint32_t)bits; memcpy(k->spec_data + off, &b, 4); }
    else memcpy(k->spec_data + off, &bits, 8);
    k->spec_entries[n++] = (VkSpecializationMapEntry){.constantID = c->id, .offset = off, .size = c->bytes};
    off += c->bytes;
  }
  k->nspec_entries = n;
  k->spec_bytes = off;
}

static const core_kernel_resource *resource_at(const core_kernel_desc *d, uint32_t set, uint32_t binding) {
  for (uint32_t i = 0; i < d->nres; i++)
    if (d->res[i].set == set && d->res[i].binding == binding && d->res[i].buffer) return &d->res[i];
  return NULL;
}

#define MAX_SETS 32 /* more than any device's maxBoundDescriptorSets we know */

/* Set layouts (the reflected bindings, the extra set's buffer, empty ones in the gaps), the pipeline layout
 * and the descriptor pool sizes. */
static vkocc_status layouts(vkocc_context *ctx, const core_kernel_desc *d, core_kernel *k,
                            VkDescriptorPoolSize *sizes, uint32_t *nsizes) {
  VkResult r;
  VkDescriptorSetLayoutBinding *lb = util_xcalloc(k->refl.nbindings + 1, sizeof *lb);
  for (uint32_t set = 0; set < k->nsets; set++) {
    uint32_t n = 0;
    if (d->has_extra_set && set == d->extra_set)
      lb[n++] = (VkDescriptorSetLayoutBinding){.binding = 0, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                               .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    for (uint32_t i = 0; i < k->refl.nbindings; i++) {
      const compile_reflect_binding *b = &k->refl.bindings[i];
      if (b->set != set) continue;
      lb[n++] = (VkDescriptorSetLayoutBinding){.binding = b->binding, .descriptorType = b->type,
                                               .descriptorCount = b->count, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    }
    for (uint32_t i = 0; i < n; i++) { /* one pool size per descriptor type */
      uint32_t j = 0;
      while (j < *nsizes && sizes[j].type != lb[i].descriptorType) j++;
      if (j == *nsizes) sizes[(*nsizes)++] = (VkDescriptorPoolSize){lb[i].descriptorType, 0};
      sizes[j].descriptorCount += lb[i].descriptorCount;
    }
    VkDescriptorSetLayoutCreateInfo dslci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                             .bindingCount = n, .pBindings = lb};
    if ((r = core_fn.vkCreateDescriptorSetLayout(ctx->device, &dslci, NULL, &k->set_layouts[set]))) {
      free(lb);
      return core_vk_fail(r, "descriptor set layout for the user's shader");
    }
  }
  free(lb);
  VkPushConstantRange pcr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = k->push_bytes};
  VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = k->nsets,
                                     .pSetLayouts = k->set_layouts, .pushConstantRangeCount = k->push_bytes ? 1 : 0,
                                     .pPushConstantRanges = &pcr};
  if ((r = core_fn.vkCreatePipelineLayout(ctx->device, &plci, NULL, &k->layout)))
    return core_vk_fail(r, "pipeline layout for the user's shader");
  return VKOCC_OK;
}

/* The descriptor writes: the extra set's buffer, then every reflected binding (each array element the same
 * resource: the caller's buffer or the dummy). */
static void write_sets(vkocc_context *ctx, const core_kernel_desc *d, core_kernel *k) {
  if (d->has_extra_set) {
    const core_kernel_resource *x = resource_at(d, d->extra_set, 0);
    if (x) core_kernel_bind_range(ctx, k, d->extra_set, 0, x->buffer, x->offset, x->range);
  }
  for (uint32_t i = 0; i < k->refl.nbindings; i++) {
    const compile_reflect_binding *b = &k->refl.bindings[i];
    const core_dummy *dm = &k->dummies[i];
    const core_kernel_resource *x = resource_at(d, b->set, b->binding);
    for (uint32_t e = 0; e < b->count; e++) {
      VkDescriptorBufferInfo bi = {.buffer = x ? x->buffer->buffer : dm->buf.buffer, .offset = x ? x->offset : 0,
                                   .range = x && x->range ? x->range : VK_WHOLE_SIZE};
      VkDescriptorImageInfo ii = {.sampler = k->sampler, .imageView = dm->view, .imageLayout = VK_IMAGE_LAYOUT_GENERAL};
      VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = k->sets[b->set],
                                .dstBinding = b->binding, .dstArrayElement = e, .descriptorCount = 1,
                                .descriptorType = b->type, .pBufferInfo = &bi, .pImageInfo = &ii,
                                .pTexelBufferView = &dm->texel_view};
      core_fn.vkUpdateDescriptorSets(ctx->device, 1, &w, 0, NULL);
    }
  }
}

static vkocc_status build(vkocc_context *ctx, const core_kernel_desc *d, core_kernel *k) {
  const char *name = d->name ? d->name : "module";
  const uint32_t *rspv = d->reflect_spv ? d->reflect_spv : d->spv;
  size_t rwords = d->reflect_spv ? d->reflect_words : d->words;
  vkocc_status s;
  if (d->info) k->info = *d->info;
  else if ((s = compile_spirv_inspect(rspv, rwords, name, d->entry, d->spec, d->nspec, &k->info))) return s;
  if (d->refl) reflection_copy(d->refl, &k->refl);
  else if ((s = compile_reflect(rspv, rwords, k->info.entry, &k->refl))) return s;
  k->push_bytes = k->refl.push_bytes;
  k->nsets = k->info.max_set_plus1;
  if (d->has_extra_set && d->extra_set + 1 > k->nsets) k->nsets = d->extra_set + 1;
  if (k->nsets > MAX_SETS) return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: descriptor sets above %u", name, MAX_SETS);
  k->set_layouts = util_xcalloc(k->nsets, sizeof *k->set_layouts);
  k->sets = util_xcalloc(k->nsets, sizeof *k->sets);
  const char *role = d->role ? d->role : "";
  VkShaderModuleCreateInfo smci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = d->words * 4,
                                   .pCode = d->spv};
  VkResult r = core_fn.vkCreateShaderModule(ctx->device, &smci, NULL, &k->module);
  if (r) return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: the driver rejects the %s%smodule: vkCreateShaderModule "
                           "gave %s", name, role, *role ? " " : "", core_vk_result_name(r));
  VkDescriptorPoolSize *sizes = util_xcalloc(k->refl.nbindings + 1, sizeof *sizes);
  uint32_t nsizes = 0;
  if ((s = layouts(ctx, d, k, sizes, &nsizes))) { free(sizes); return s; }
  spec_data(k, d->spec, d->nspec);
  VkSpecializationInfo si = {.mapEntryCount = k->nspec_entries, .pMapEntries = k->spec_entries,
                             .dataSize = k->spec_bytes, .pData = k->spec_data};
  VkComputePipelineCreateInfo cpci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = k->module, .pName = k->info.entry, .pSpecializationInfo = k->nspec_entries ? &si : NULL},
      .layout = k->layout};
  if (d->statistics && ctx->exec_props) cpci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  if ((r = core_fn.vkCreateComputePipelines(ctx->device, d->uncached ? VK_NULL_HANDLE : ctx->cache, 1, &cpci, NULL,
                                              &k->pipeline))) {
    free(sizes);
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: the driver rejects the %s%spipeline: vkCreateComputePipelines "
                      "gave %s", name, role, *role ? " " : "", core_vk_result_name(r));
  }
  VkDescriptorPoolCreateInfo dpci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = k->nsets,
                                     .poolSizeCount = nsizes, .pPoolSizes = sizes};
  if (k->nsets && nsizes && (r = core_fn.vkCreateDescriptorPool(ctx->device, &dpci, NULL, &k->pool))) {
    free(sizes);
    return core_vk_fail(r, "descriptor pool for the user's shader");
  }
  free(sizes);
  VkDescriptorSetAllocateInfo dsai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = k->pool,
                                      .descriptorSetCount = k->nsets, .pSetLayouts = k->set_layouts};
  if (k->pool && (r = core_fn.vkAllocateDescriptorSets(ctx->device, &dsai, k->sets)))
    return core_vk_fail(r, "descriptor sets for the user's shader");
  bool *covered = util_xcalloc(k->refl.nbindings, sizeof *covered);
  for (uint32_t i = 0; i < k->refl.nbindings; i++)
    covered[i] = resource_at(d, k->refl.bindings[i].set, k->refl.bindings[i].binding) != NULL;
  s = core_dummies_make(ctx, k, covered);
  free(covered);
  if (s) return s;
  if (k->pool) write_sets(ctx, d, k);
  return VKOCC_OK;
}

vkocc_status core_kernel_build(vkocc_context *ctx, const core_kernel_desc *desc, core_kernel *k) {
  memset(k, 0, sizeof *k);
  vkocc_status s = build(ctx, desc, k);
  if (s) core_kernel_destroy(ctx, k);
  return s;
}

/* ------------------------------------------------------------------ statistics */

static uint32_t read_stats(VkDevice dev, VkPipeline p, char (*names)[64], double *vals, uint32_t max) {
  /* the loader's trampoline from the table, else the driver's own entry (a loader that lacks the extension) */
  PFN_vkGetPipelineExecutableStatisticsKHR stats = core_fn.vkGetPipelineExecutableStatisticsKHR;
  if (!stats)
    stats = (PFN_vkGetPipelineExecutableStatisticsKHR)core_fn.vkGetDeviceProcAddr(dev,
                                                                                    "vkGetPipelineExecutableStatisticsKHR");
  if (!stats) return 0;
  VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = p};
  uint32_t n = 0;
  if (stats(dev, &ei, &n, NULL) != VK_SUCCESS || !n) return 0;
  VkPipelineExecutableStatisticKHR *st = util_xcalloc(n, sizeof *st);
  for (uint32_t i = 0; i < n; i++) st[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
  if (stats(dev, &ei, &n, st) < 0) n = 0;
  uint32_t k = 0;
  for (uint32_t i = 0; i < n && k < max; i++, k++) {
    if (names) snprintf(names[k], 64, "%.63s", st[i].name);
    switch (st[i].format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: vals[k] = st[i].value.b32; break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: vals[k] = (double)st[i].value.i64; break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: vals[k] = (double)st[i].value.u64; break;
    default: vals[k] = st[i].value.f64; break;
    }
  }
  free(st);
  return k;
}

uint32_t core_kernel_statistics(vkocc_context *ctx, const core_kernel *k, char (*names)[64], double *values,
                                 uint32_t max) {
  if (!ctx->exec_props || !k->pipeline) return 0;
  return read_stats(ctx->device, k->pipeline, names, values, max);
}

uint32_t core_kernel_statistics_of(vkocc_context *ctx, const core_kernel *k, const uint32_t *spv, size_t words,
                                    char (*names)[64], double *values, uint32_t max) {
  if (!ctx->exec_props || !k->layout) return 0;
  VkShaderModuleCreateInfo smci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = words * 4,
                                   .pCode = spv};
  VkSpecializationInfo si = {.mapEntryCount = k->nspec_entries, .pMapEntries = k->spec_entries,
                             .dataSize = k->spec_bytes, .pData = k->spec_data};
  VkComputePipelineCreateInfo cpci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, .flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .pName = k->info.entry, .pSpecializationInfo = k->nspec_entries ? &si : NULL},
      .layout = k->layout};
  VkShaderModule m = VK_NULL_HANDLE;
  VkPipeline p = VK_NULL_HANDLE;
  uint32_t n = 0;
  if (core_fn.vkCreateShaderModule(ctx->device, &smci, NULL, &m)) return 0;
  cpci.stage.module = m;
  if (!core_fn.vkCreateComputePipelines(ctx->device, ctx->cache, 1, &cpci, NULL, &p)) {
    n = read_stats(ctx->device, p, names, values, max);
    core_fn.vkDestroyPipeline(ctx->device, p, NULL);
  }
  core_fn.vkDestroyShaderModule(ctx->device, m, NULL);
  return n;
}

/* ------------------------------------------------------------------ limits */

void core_exec_limits_get(vkocc_context *ctx, core_exec_limits *out) {
  memset(out, 0, sizeof *out);
  VkPhysicalDeviceSubgroupProperties sg = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sg};
  core_fn.vkGetPhysicalDeviceProperties2(ctx->phys, &p2);
  out->max_storage_buffer_range = p2.properties.limits.maxStorageBufferRange;
  for (int d = 0; d < 3; d++)
    out->max_wg_size[d] = p2.properties.limits.maxComputeWorkGroupSize[d],
    out->max_wg_count[d] = p2.properties.limits.maxComputeWorkGroupCount[d];
  out->max_invocations = p2.properties.limits.maxComputeWorkGroupInvocations;
  out->max_shared_bytes = p2.properties.limits.maxComputeSharedMemorySize;
  out->subgroup_arithmetic = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                             (sg.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  for (uint32_t i = 0; i < ctx->mem.memoryHeapCount; i++)
    if ((ctx->mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
        ctx->mem.memoryHeaps[i].size > out->device_local_heap_bytes)
      out->device_local_heap_bytes = ctx->mem.memoryHeaps[i].size;
  if (!out->device_local_heap_bytes) out->device_local_heap_bytes = ctx->mem.memoryHeaps[0].size;
}
