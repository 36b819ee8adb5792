/* P of the user's own pipeline: the augmented module (compile/augment.c) is built into a compute pipeline
 * whose layout holds the user's sets with dummy resources of the reflected kinds plus vkocc's set, and is
 * measured by the probe's comb/bisection through the session's dispatch hook, with the probe's
 * parameters written to the augmentation buffer instead of push constants (the user's shader may have its
 * own push constants). With shader->unmodified the module is built as written and measured by dispatch
 * bisection on its own runtime (measure_unmodified). */
#include "compile.h"
#include "probe_internal.h"
#include "jsonio.h"
#include <math.h>
#include <spirv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_USER_GROUPS (1u << 18) /* records buffer: 8 MiB; P of any device we know is far below */
#define MAX_SETS 32

/* Image entry points: loaded here, so core's function table stays what the built-in probes need. */
static struct {
  PFN_vkCreateImage vkCreateImage;
  PFN_vkDestroyImage vkDestroyImage;
  PFN_vkGetImageMemoryRequirements vkGetImageMemoryRequirements;
  PFN_vkBindImageMemory vkBindImageMemory;
  PFN_vkCreateImageView vkCreateImageView;
  PFN_vkDestroyImageView vkDestroyImageView;
  PFN_vkCreateSampler vkCreateSampler;
  PFN_vkDestroySampler vkDestroySampler;
  PFN_vkCreateBufferView vkCreateBufferView;
  PFN_vkDestroyBufferView vkDestroyBufferView;
  PFN_vkGetPipelineExecutableStatisticsKHR vkGetPipelineExecutableStatisticsKHR;
} img_fn;

static void load_image_fns(VkDevice d) {
#define L(n) img_fn.n = (PFN_##n)vkocc_fn.vkGetDeviceProcAddr(d, #n);
  L(vkCreateImage) L(vkDestroyImage) L(vkGetImageMemoryRequirements) L(vkBindImageMemory) L(vkCreateImageView)
  L(vkDestroyImageView) L(vkCreateSampler) L(vkDestroySampler) L(vkCreateBufferView) L(vkDestroyBufferView)
  L(vkGetPipelineExecutableStatisticsKHR)
#undef L
}

typedef struct {
  vkocc_buffer buf;
  VkImage image;
  VkDeviceMemory image_mem;
  VkImageView view;
  VkBufferView texel_view;
} dummy;

typedef struct user_pipeline {
  vkocc_context *ctx;
  vkocc_spirv_info info;
  vkocc_reflection refl;
  VkShaderModule module;
  VkDescriptorSetLayout set_layouts[MAX_SETS];
  uint32_t nsets;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  VkDescriptorPool pool;
  VkDescriptorSet sets[MAX_SETS];
  VkSampler sampler;
  dummy *dummies;          /* one per reflected binding */
  vkocc_buffer aug;        /* parameters + records */
  uint32_t max_groups;
  uint8_t push[256];
  char stat_name[24][64];  /* executable statistics (VK_KHR_pipeline_executable_properties) */
  double stat_user[24], stat_aug[24];
  uint32_t nstats;
  bool plain;              /* the user's module as written: no augmentation, no vkocc set (--unmodified) */
} user_pipeline;

/* Statistics of executable 0 of a pipeline created with CAPTURE_STATISTICS: names and values. */
static uint32_t read_stats(VkDevice dev, VkPipeline p, char (*names)[64], double *vals, uint32_t max) {
  if (!img_fn.vkGetPipelineExecutableStatisticsKHR) return 0;
  VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = p};
  uint32_t n = 0;
  if (img_fn.vkGetPipelineExecutableStatisticsKHR(dev, &ei, &n, NULL) != VK_SUCCESS || !n) return 0;
  VkPipelineExecutableStatisticKHR *st = calloc(n, sizeof *st);
  for (uint32_t i = 0; i < n; i++) st[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
  if (img_fn.vkGetPipelineExecutableStatisticsKHR(dev, &ei, &n, st) < 0) n = 0;
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

static int32_t memory_type(const vkocc_context *ctx, uint32_t bits, VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < ctx->mem.memoryTypeCount; i++)
    if ((bits >> i & 1) && (ctx->mem.memoryTypes[i].propertyFlags & want) == want) return (int32_t)i;
  return -1;
}

static VkFormat storage_format(uint32_t spv_format, uint32_t sampled_type) {
  switch (spv_format) {
  case SpvImageFormatRgba32f: return VK_FORMAT_R32G32B32A32_SFLOAT;
  case SpvImageFormatRgba16f: return VK_FORMAT_R16G16B16A16_SFLOAT;
  case SpvImageFormatR32f: return VK_FORMAT_R32_SFLOAT;
  case SpvImageFormatRgba8: return VK_FORMAT_R8G8B8A8_UNORM;
  case SpvImageFormatRgba8Snorm: return VK_FORMAT_R8G8B8A8_SNORM;
  case SpvImageFormatRg32f: return VK_FORMAT_R32G32_SFLOAT;
  case SpvImageFormatRg16f: return VK_FORMAT_R16G16_SFLOAT;
  case SpvImageFormatR16f: return VK_FORMAT_R16_SFLOAT;
  case SpvImageFormatRgba32i: return VK_FORMAT_R32G32B32A32_SINT;
  case SpvImageFormatRgba16i: return VK_FORMAT_R16G16B16A16_SINT;
  case SpvImageFormatRgba8i: return VK_FORMAT_R8G8B8A8_SINT;
  case SpvImageFormatR32i: return VK_FORMAT_R32_SINT;
  case SpvImageFormatRg32i: return VK_FORMAT_R32G32_SINT;
  case SpvImageFormatRgba32ui: return VK_FORMAT_R32G32B32A32_UINT;
  case SpvImageFormatRgba16ui: return VK_FORMAT_R16G16B16A16_UINT;
  case SpvImageFormatRgba8ui: return VK_FORMAT_R8G8B8A8_UINT;
  case SpvImageFormatR32ui: return VK_FORMAT_R32_UINT;
  case SpvImageFormatRg32ui: return VK_FORMAT_R32G32_UINT;
  default: break;
  }
  return sampled_type == 1 ? VK_FORMAT_R32G32B32A32_SINT
         : sampled_type == 2 ? VK_FORMAT_R32G32B32A32_UINT : VK_FORMAT_R32G32B32A32_SFLOAT;
}

static vkocc_status make_image(user_pipeline *u, const vkocc_reflect_binding *b, dummy *d) {
  VkDevice dev = u->ctx->device;
  bool storage = b->type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
  VkFormat fmt = storage ? storage_format(b->image_format, b->sampled_type)
                         : b->sampled_type == 1 ? VK_FORMAT_R32G32B32A32_SINT
                         : b->sampled_type == 2 ? VK_FORMAT_R32G32B32A32_UINT : VK_FORMAT_R8G8B8A8_UNORM;
  VkImageType it = b->image_dim == SpvDim1D ? VK_IMAGE_TYPE_1D : b->image_dim == SpvDim3D ? VK_IMAGE_TYPE_3D
                                                                                         : VK_IMAGE_TYPE_2D;
  bool cube = b->image_dim == SpvDimCube;
  uint32_t layers = cube ? (b->arrayed ? 12 : 6) : b->arrayed ? 2 : 1;
  VkImageViewType vt = cube ? (b->arrayed ? VK_IMAGE_VIEW_TYPE_CUBE_ARRAY : VK_IMAGE_VIEW_TYPE_CUBE)
                       : it == VK_IMAGE_TYPE_1D ? (b->arrayed ? VK_IMAGE_VIEW_TYPE_1D_ARRAY : VK_IMAGE_VIEW_TYPE_1D)
                       : it == VK_IMAGE_TYPE_3D ? VK_IMAGE_VIEW_TYPE_3D
                       : b->arrayed ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D;
  VkImageCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .flags = cube ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0,
                           .imageType = it, .format = fmt,
                           .extent = {4, it == VK_IMAGE_TYPE_1D ? 1 : 4, it == VK_IMAGE_TYPE_3D ? 4 : 1},
                           .mipLevels = 1, .arrayLayers = layers,
                           .samples = b->multisampled ? VK_SAMPLE_COUNT_4_BIT : VK_SAMPLE_COUNT_1_BIT,
                           .tiling = VK_IMAGE_TILING_OPTIMAL,
                           .usage = storage ? VK_IMAGE_USAGE_STORAGE_BIT : VK_IMAGE_USAGE_SAMPLED_BIT,
                           .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
  VkResult r = img_fn.vkCreateImage(dev, &ici, NULL, &d->image);
  if (r) return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "dummy image for set %u binding %u (format %d): vkCreateImage "
                           "gave %s", b->set, b->binding, fmt, vkocc_vk_result_name(r));
  VkMemoryRequirements req;
  img_fn.vkGetImageMemoryRequirements(dev, d->image, &req);
  int32_t mt = memory_type(u->ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (mt < 0) mt = memory_type(u->ctx, req.memoryTypeBits, 0);
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                              .memoryTypeIndex = (uint32_t)mt};
  if (mt < 0 || (r = vkocc_fn.vkAllocateMemory(dev, &mai, NULL, &d->image_mem)) ||
      (r = img_fn.vkBindImageMemory(dev, d->image, d->image_mem, 0)))
    return vkocc_vk_fail(r ? r : VK_ERROR_OUT_OF_DEVICE_MEMORY, "dummy image memory");
  VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = d->image, .viewType = vt,
                               .format = fmt,
                               .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers}};
  if ((r = img_fn.vkCreateImageView(dev, &vci, NULL, &d->view))) return vkocc_vk_fail(r, "dummy image view");
  /* UNDEFINED -> GENERAL once, so the descriptor's layout is the image's */
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  vkocc_fn.vkResetCommandBuffer(u->ctx->cmd, 0);
  vkocc_fn.vkBeginCommandBuffer(u->ctx->cmd, &bi);
  VkImageMemoryBarrier imb = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .dstAccessMask = VK_ACCESS_SHADER_READ_BIT,
                              .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED, .newLayout = VK_IMAGE_LAYOUT_GENERAL,
                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .image = d->image, .subresourceRange = vci.subresourceRange};
  vkocc_fn.vkCmdPipelineBarrier(u->ctx->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                0, 0, NULL, 0, NULL, 1, &imb);
  vkocc_fn.vkEndCommandBuffer(u->ctx->cmd);
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &u->ctx->cmd};
  if ((r = vkocc_fn.vkQueueSubmit(u->ctx->queue, 1, &si, u->ctx->fence)) ||
      (r = vkocc_fn.vkWaitForFences(dev, 1, &u->ctx->fence, VK_TRUE, u->ctx->timeout_ns)))
    return vkocc_vk_fail(r, "dummy image layout transition");
  vkocc_fn.vkResetFences(dev, 1, &u->ctx->fence);
  return VKOCC_OK;
}

static vkocc_status make_dummies(user_pipeline *u) {
  VkDevice dev = u->ctx->device;
  u->dummies = calloc(u->refl.nbindings ? u->refl.nbindings : 1, sizeof *u->dummies);
  VkSamplerCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, .magFilter = VK_FILTER_NEAREST,
                             .minFilter = VK_FILTER_NEAREST};
  VkResult r = img_fn.vkCreateSampler(dev, &sci, NULL, &u->sampler);
  if (r) return vkocc_vk_fail(r, "dummy sampler");
  for (uint32_t i = 0; i < u->refl.nbindings; i++) {
    const vkocc_reflect_binding *b = &u->refl.bindings[i];
    dummy *d = &u->dummies[i];
    vkocc_status s = VKOCC_OK;
    switch (b->type) {
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER: {
      /* zero-filled and host-visible: tests check that the user's code never wrote to it */
      VkDeviceSize size = b->size < 256 ? 256 : (b->size + 255) / 256 * 256;
      if (b->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER && size > 65536) size = 65536;
      if (!(s = vkocc_buffer_create(u->ctx, size, true, &d->buf))) memset(d->buf.map, 0, size);
      break;
    }
    case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: {
      if ((s = vkocc_buffer_create(u->ctx, 4096, true, &d->buf))) break;
      memset(d->buf.map, 0, 4096);
      VkFormat fmt = b->type == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER ? storage_format(b->image_format, b->sampled_type)
                     : b->sampled_type == 1 ? VK_FORMAT_R32_SINT : b->sampled_type == 2 ? VK_FORMAT_R32_UINT
                                                                                       : VK_FORMAT_R32_SFLOAT;
      VkBufferViewCreateInfo bvci = {.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO, .buffer = d->buf.buffer,
                                     .format = fmt, .range = VK_WHOLE_SIZE};
      if ((r = img_fn.vkCreateBufferView(dev, &bvci, NULL, &d->texel_view)))
        s = vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "dummy texel buffer for set %u binding %u (format %d): %s", b->set,
                       b->binding, fmt, vkocc_vk_result_name(r));
      break;
    }
    case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
    case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
    case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER: s = make_image(u, b, d); break;
    default: break; /* samplers share u->sampler */
    }
    if (s) return s;
  }
  return VKOCC_OK;
}

static void user_pipeline_destroy(user_pipeline *u) {
  if (!u->ctx) return;
  VkDevice dev = u->ctx->device;
  for (uint32_t i = 0; u->dummies && i < u->refl.nbindings; i++) {
    dummy *d = &u->dummies[i];
    if (d->texel_view) img_fn.vkDestroyBufferView(dev, d->texel_view, NULL);
    if (d->view) img_fn.vkDestroyImageView(dev, d->view, NULL);
    if (d->image) img_fn.vkDestroyImage(dev, d->image, NULL);
    if (d->image_mem) vkocc_fn.vkFreeMemory(dev, d->image_mem, NULL);
    vkocc_buffer_destroy(u->ctx, &d->buf);
  }
  free(u->dummies);
  if (u->sampler) img_fn.vkDestroySampler(dev, u->sampler, NULL);
  vkocc_buffer_destroy(u->ctx, &u->aug);
  if (u->pool) vkocc_fn.vkDestroyDescriptorPool(dev, u->pool, NULL);
  if (u->pipeline) vkocc_fn.vkDestroyPipeline(dev, u->pipeline, NULL);
  if (u->layout) vkocc_fn.vkDestroyPipelineLayout(dev, u->layout, NULL);
  for (uint32_t i = 0; i < u->nsets; i++)
    if (u->set_layouts[i]) vkocc_fn.vkDestroyDescriptorSetLayout(dev, u->set_layouts[i], NULL);
  if (u->module) vkocc_fn.vkDestroyShaderModule(dev, u->module, NULL);
  vkocc_reflection_free(&u->refl);
  memset(u, 0, sizeof *u);
}

/* Specialization data in the constants' own types; IDs were checked by vkocc_spirv_inspect. */
static void spec_data(const vkocc_reflection *rf, const vkocc_spec_value *spec, uint32_t nspec,
                      VkSpecializationMapEntry *entries, uint8_t *data, uint32_t *nentries, uint32_t *bytes) {
  uint32_t off = 0, n = 0;
  for (uint32_t i = 0; i < nspec; i++) {
    const vkocc_reflect_spec *c = NULL;
    for (uint32_t k = 0; k < rf->nspecs; k++) if (rf->specs[k].id == spec[i].id) c = &rf->specs[k];
    if (!c || n >= 64) continue;
    uint64_t bits;
    if (c->is_float && c->bytes == 4) { float f = (float)spec[i].value; uint32_t b; memcpy(&b, &f, 4); bits = b; }
    else if (c->is_float) memcpy(&bits, &spec[i].value, 8);
    else if (c->is_bool) bits = spec[i].value != 0;
    else bits = (uint64_t)(int64_t)spec[i].value;
    if (c->bytes == 4) { uint32_t b = (uint32_t)bits; memcpy(data + off, &b, 4); }
    else memcpy(data + off, &bits, 8);
    entries[n++] = (VkSpecializationMapEntry){.constantID = c->id, .offset = off, .size = c->bytes};
    off += c->bytes;
  }
  *nentries = n;
  *bytes = off;
}

/* Builds the augmented pipeline (plain: the module as written). spv is the user's (unaugmented) module. */
static vkocc_status user_pipeline_create(vkocc_context *ctx, const uint32_t *spv, size_t words, const char *name,
                                         const vkocc_shader_desc *sh, bool plain, user_pipeline *u) {
  memset(u, 0, sizeof *u);
  u->ctx = ctx;
  u->plain = plain;
  load_image_fns(ctx->device);
  vkocc_status s = vkocc_spirv_inspect(spv, words, name, sh->entry, sh->spec, sh->nspec, &u->info);
  if (!s) s = vkocc_module_contract_ctx(ctx, spv, words, name, &u->info, sh); /* before anything is created */
  if (s) return s;
  const vkocc_device_info *d = &ctx->info;
  uint32_t wg = u->info.wg[0] * u->info.wg[1] * u->info.wg[2];
  if (wg > d->max_invocations || u->info.wg[0] > d->max_wg_size_x)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: workgroup %ux%ux%u is above the limits of %s (%u invocations, x %u)",
                      name, u->info.wg[0], u->info.wg[1], u->info.wg[2], d->name, d->max_invocations,
                      d->max_wg_size_x);
  if (u->info.shared_bytes > d->max_shared_bytes)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %u bytes of shared memory is above maxComputeSharedMemorySize = %u of %s",
                      name, u->info.shared_bytes, d->max_shared_bytes, d->name);
  if (!plain && !ctx->device_clock)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "measuring a user's shader needs the realtime shader clock "
                      "(VK_KHR_shader_clock shaderDeviceClock), which %s lacks%s", d->name,
                      d->shader_device_clock ? " here (disabled)" : "");
  if ((s = vkocc_reflect(spv, words, u->info.entry, &u->refl))) return s;
  if (u->refl.push_bytes > sizeof u->push)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: push constants of %u bytes (vkocc binds up to %zu)", name,
                      u->refl.push_bytes, sizeof u->push);
  uint32_t aug_set = u->info.first_free_set;
  u->nsets = (u->info.max_set_plus1 > aug_set + 1 ? u->info.max_set_plus1 : aug_set + 1);
  if (plain) u->nsets = u->info.max_set_plus1; /* the user's sets only (maybe none) */
  if (u->nsets > MAX_SETS) return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: descriptor sets above %u", name, MAX_SETS);

  uint32_t *aug = NULL;
  size_t aug_words = 0;
  if (plain) {
    aug = malloc(words * 4);
    memcpy(aug, spv, words * 4);
    aug_words = words;
  } else if ((s = vkocc_spirv_augment(spv, words, name, u->info.entry, aug_set, &aug, &aug_words))) return s;
  if (!plain && vkocc_spirv_validate(aug, aug_words, name, "the augmented module")) {
    /* vkocc's insertion, not the user's input, is at fault: the device path cannot be taken */
    char why[512];
    snprintf(why, sizeof why, "%s", vkocc_last_error());
    free(aug);
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s", why);
  }
  VkShaderModuleCreateInfo smci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = aug_words * 4,
                                   .pCode = aug};
  VkResult r = vkocc_fn.vkCreateShaderModule(ctx->device, &smci, NULL, &u->module);
  free(aug);
  if (r) return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: the driver rejects the %s module: vkCreateShaderModule "
                           "gave %s", name, plain ? "user's" : "augmented", vkocc_vk_result_name(r));
  /* set layouts: the user's bindings, ours at aug_set, empty ones in the gaps */
  VkDescriptorPoolSize sizes[16];
  uint32_t nsizes = 0;
  for (uint32_t set = 0; set < u->nsets; set++) {
    VkDescriptorSetLayoutBinding lb[64];
    uint32_t n = 0;
    if (set == aug_set && !plain)
      lb[n++] = (VkDescriptorSetLayoutBinding){.binding = 0, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                               .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    for (uint32_t i = 0; i < u->refl.nbindings && n < 64; i++) {
      const vkocc_reflect_binding *b = &u->refl.bindings[i];
      if (b->set != set) continue;
      lb[n++] = (VkDescriptorSetLayoutBinding){.binding = b->binding, .descriptorType = b->type,
                                               .descriptorCount = b->count, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    }
    for (uint32_t i = 0; i < n; i++) {
      uint32_t k = 0;
      while (k < nsizes && sizes[k].type != lb[i].descriptorType) k++;
      if (k == nsizes && nsizes < 16) sizes[nsizes++] = (VkDescriptorPoolSize){lb[i].descriptorType, 0};
      if (k < 16) sizes[k].descriptorCount += lb[i].descriptorCount;
    }
    VkDescriptorSetLayoutCreateInfo dslci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                             .bindingCount = n, .pBindings = lb};
    if ((r = vkocc_fn.vkCreateDescriptorSetLayout(ctx->device, &dslci, NULL, &u->set_layouts[set])))
      return vkocc_vk_fail(r, "descriptor set layout for the user's shader");
  }
  VkPushConstantRange pcr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = u->refl.push_bytes};
  VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = u->nsets,
                                     .pSetLayouts = u->set_layouts, .pushConstantRangeCount = u->refl.push_bytes ? 1 : 0,
                                     .pPushConstantRanges = &pcr};
  if ((r = vkocc_fn.vkCreatePipelineLayout(ctx->device, &plci, NULL, &u->layout)))
    return vkocc_vk_fail(r, "pipeline layout for the user's shader");
  VkSpecializationMapEntry entries[64];
  uint8_t data[512];
  uint32_t nentries, bytes;
  spec_data(&u->refl, sh->spec, sh->nspec, entries, data, &nentries, &bytes);
  VkSpecializationInfo si = {.mapEntryCount = nentries, .pMapEntries = entries, .dataSize = bytes, .pData = data};
  VkComputePipelineCreateInfo cpci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = u->module, .pName = u->info.entry, .pSpecializationInfo = nentries ? &si : NULL},
      .layout = u->layout};
  if (ctx->exec_props) cpci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  if ((r = vkocc_fn.vkCreateComputePipelines(ctx->device, ctx->cache, 1, &cpci, NULL, &u->pipeline)))
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: the driver rejects the %s pipeline: "
                      "vkCreateComputePipelines gave %s", name, plain ? "user's" : "augmented", vkocc_vk_result_name(r));
  if (ctx->exec_props && !plain) {
    /* the same statistics of the pipeline as the user wrote it (same layout; vkocc's set unused there) */
    u->nstats = read_stats(ctx->device, u->pipeline, u->stat_name, u->stat_aug, 24);
    for (uint32_t i = 0; i < u->nstats; i++) u->stat_user[i] = NAN;
    VkShaderModule plain = VK_NULL_HANDLE;
    VkPipeline pp = VK_NULL_HANDLE;
    smci.codeSize = words * 4;
    smci.pCode = spv;
    if (u->nstats && !vkocc_fn.vkCreateShaderModule(ctx->device, &smci, NULL, &plain)) {
      cpci.stage.module = plain;
      if (!vkocc_fn.vkCreateComputePipelines(ctx->device, ctx->cache, 1, &cpci, NULL, &pp)) {
        char nm[24][64];
        double v[24];
        uint32_t n = read_stats(ctx->device, pp, nm, v, 24);
        for (uint32_t i = 0; i < u->nstats; i++) {
          u->stat_user[i] = NAN;
          for (uint32_t j = 0; j < n; j++) if (!strcmp(nm[j], u->stat_name[i])) u->stat_user[i] = v[j];
        }
        vkocc_fn.vkDestroyPipeline(ctx->device, pp, NULL);
      }
      vkocc_fn.vkDestroyShaderModule(ctx->device, plain, NULL);
    }
  }
  VkDescriptorPoolCreateInfo dpci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = u->nsets,
                                     .poolSizeCount = nsizes, .pPoolSizes = sizes};
  if (u->nsets && nsizes && (r = vkocc_fn.vkCreateDescriptorPool(ctx->device, &dpci, NULL, &u->pool)))
    return vkocc_vk_fail(r, "descriptor pool for the user's shader");
  VkDescriptorSetAllocateInfo dsai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = u->pool,
                                      .descriptorSetCount = u->nsets, .pSetLayouts = u->set_layouts};
  if (u->pool && (r = vkocc_fn.vkAllocateDescriptorSets(ctx->device, &dsai, u->sets)))
    return vkocc_vk_fail(r, "descriptor sets for the user's shader");
  if ((s = make_dummies(u))) return s;
  u->max_groups = d->max_wg_count_x < MAX_USER_GROUPS ? d->max_wg_count_x : MAX_USER_GROUPS;
  if (!plain) { /* vkocc's buffer: parameters + records */
    VkDeviceSize aug_bytes = 4ull * (VKOCC_AUG_PARAM_WORDS + 8ull * u->max_groups);
    if ((s = vkocc_buffer_create(ctx, aug_bytes, true, &u->aug))) return s;
    memset(u->aug.map, 0, aug_bytes);
    /* descriptor writes: ours, then one per dummy (array elements all the same resource) */
    VkDescriptorBufferInfo abi = {.buffer = u->aug.buffer, .range = VK_WHOLE_SIZE};
    VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = u->sets[aug_set], .dstBinding = 0,
                              .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &abi};
    vkocc_fn.vkUpdateDescriptorSets(ctx->device, 1, &w, 0, NULL);
  }
  for (uint32_t i = 0; i < u->refl.nbindings; i++) {
    const vkocc_reflect_binding *b = &u->refl.bindings[i];
    const dummy *dm = &u->dummies[i];
    for (uint32_t e = 0; e < b->count; e++) {
      VkDescriptorBufferInfo bi = {.buffer = dm->buf.buffer, .range = VK_WHOLE_SIZE};
      VkDescriptorImageInfo ii = {.sampler = u->sampler, .imageView = dm->view, .imageLayout = VK_IMAGE_LAYOUT_GENERAL};
      VkWriteDescriptorSet x = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = u->sets[b->set],
                                .dstBinding = b->binding, .dstArrayElement = e, .descriptorCount = 1,
                                .descriptorType = b->type, .pBufferInfo = &bi, .pImageInfo = &ii,
                                .pTexelBufferView = &dm->texel_view};
      vkocc_fn.vkUpdateDescriptorSets(ctx->device, 1, &x, 0, NULL);
    }
  }
  return VKOCC_OK;
}

/* One timed dispatch of the user's pipeline with the estimator's parameters (mode != 0: estimate). */
static vkocc_status user_dispatch(user_pipeline *u, const uint32_t params[4], uint32_t groups, double *ns,
                                  vkocc_tick_status *tick) {
  vkocc_context *ctx = u->ctx;
  if ((groups == 0 && !u->plain) || groups > u->max_groups) /* plain: 0 times the dispatch overhead */
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "dispatch of %u workgroups is outside 1..%u", groups, u->max_groups);
  if (params) memcpy(u->aug.map, params, 4 * 4);
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  vkocc_fn.vkResetCommandBuffer(ctx->cmd, 0);
  vkocc_fn.vkBeginCommandBuffer(ctx->cmd, &bi);
  vkocc_fn.vkCmdResetQueryPool(ctx->cmd, ctx->queries, 0, 2);
  vkocc_fn.vkCmdBindPipeline(ctx->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, u->pipeline);
  if (u->nsets)
    vkocc_fn.vkCmdBindDescriptorSets(ctx->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, u->layout, 0, u->nsets, u->sets, 0, NULL);
  if (u->refl.push_bytes)
    vkocc_fn.vkCmdPushConstants(ctx->cmd, u->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, u->refl.push_bytes, u->push);
  vkocc_fn.vkCmdWriteTimestamp(ctx->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, ctx->queries, 0);
  vkocc_fn.vkCmdDispatch(ctx->cmd, groups, 1, 1);
  vkocc_fn.vkCmdWriteTimestamp(ctx->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ctx->queries, 1);
  vkocc_fn.vkEndCommandBuffer(ctx->cmd);
  vkocc_status s = vkocc_submit_wait(ctx, ctx->cmd, 0, "dispatch of the user's pipeline");
  return s ? s : vkocc_read_elapsed(ctx, ns, tick);
}

/* The probe's hook: its parameters become the augmentation buffer's (mode 1 there: estimate). */
static vkocc_status hook(void *user, const vkocc_probe_params *p, uint32_t groups, double *ns, vkocc_tick_status *tick) {
  if (p->mode != 0)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "the augmented shader sleeps on the realtime clock only (no pointer chase)");
  uint32_t params[4] = {1, p->sleep_ticks, p->max_rounds, p->key};
  return user_dispatch(user, params, groups, ns, tick);
}

/* ---------------------------------------------------------------- the pipeline as written (--unmodified)
 * The talk's timestamp method on the user's own code: n workgroups of the unaugmented pipeline run in one
 * wave while n <= P, and take one workgroup's time longer at P + 1. That holds only for a regular workload
 * that is long against the dispatch noise and whose one-wave runtime stays flat; the staircase is checked
 * (flat up to P, a step at P + 1, flat to 2P, a step at 2P + 1, one P over all repeats) before P is given. */

typedef struct {
  user_pipeline *u;
  uint32_t dispatches;
  double gpu_ns;
} unmod_run;

/* vkocc_runtime_fn: every dispatch starts from the same zero-filled buffers, so its work is the same */
static vkocc_status unmod_runtime(void *user, uint32_t groups, double *ns) {
  unmod_run *r = user;
  user_pipeline *u = r->u;
  for (uint32_t i = 0; i < u->refl.nbindings; i++)
    if (u->dummies[i].buf.map) memset(u->dummies[i].buf.map, 0, u->dummies[i].buf.size);
  vkocc_tick_status tick = VKOCC_TICKS_OK;
  vkocc_status s = VKOCC_OK;
  for (int k = 0; k < 3; k++) { /* a timestamp pair that went backwards is measured again */
    if ((s = user_dispatch(u, NULL, groups, ns, &tick))) return s;
    r->dispatches++;
    if (tick != VKOCC_TICKS_BACKWARDS) break;
  }
  if (tick == VKOCC_TICKS_BACKWARDS)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "queue timestamps went backwards three times in a row");
  r->gpu_ns += *ns;
  return VKOCC_OK;
}

/* The fastest and the median of k runs of one size (k <= 16). */
static vkocc_status unmod_best(unmod_run *r, uint32_t groups, uint32_t k, double *best, double *median) {
  double t[16];
  for (uint32_t i = 0; i < k; i++) {
    vkocc_status s = unmod_runtime(r, groups, &t[i]);
    if (s) return s;
  }
  double b = t[0];
  for (uint32_t i = 1; i < k; i++) if (t[i] < b) b = t[i];
  *best = b;
  if (median) *median = vkocc_median(t, k);
  return VKOCC_OK;
}

#define UNMOD_FAIL "could not establish P from the unmodified pipeline's runtime: "

static vkocc_status measure_unmodified(user_pipeline *u, const vkocc_probe_options *opt, vkocc_pipeline_result *out) {
  double t0 = vkocc_now_ms();
  unmod_run run = {.u = u};
  vkocc_probe_result *pr = &out->probe;
  const uint32_t K = 12; /* runs per size: the fastest counts (interference only adds time) */
  double med, scratch;
  vkocc_status s;
  /* warm-up: the first dispatches of a pipeline are slow */
  if ((s = unmod_best(&run, 1, 2, &scratch, NULL))) return s;
  if ((s = unmod_best(&run, 0, K, &out->unmod.empty_ns, &med))) return s;
  /* dispatch noise: the spread of empty dispatches, at least a few timestamp ticks and 1 us */
  double tick_ns = u->ctx->info.timestamp_period;
  out->unmod.noise_ns = med - out->unmod.empty_ns;
  if (out->unmod.noise_ns < 4 * tick_ns) out->unmod.noise_ns = 4 * tick_ns;
  if (out->unmod.noise_ns < 1000) out->unmod.noise_ns = 1000;
  if ((s = unmod_best(&run, 1, K, &out->unmod.one_ns, NULL))) return s;
  double W = out->unmod.wave_ns = out->unmod.one_ns - out->unmod.empty_ns;
  pr->bisect_wave_ns = W;
  out->unmod.dispatches = run.dispatches;
  out->unmod.wall_ns = (vkocc_now_ms() - t0) * 1e6;
  /* a workgroup well above the noise and above twice an empty dispatch: launch costs stay a small part */
  double need = 10 * out->unmod.noise_ns > 2 * out->unmod.empty_ns ? 10 * out->unmod.noise_ns : 2 * out->unmod.empty_ns;
  if (!(W >= need))
    return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "its workgroups take %.1f us, too short (an empty dispatch "
                      "takes %.1f us, noise %.1f us: give each workgroup at least %.0f us of regular work, e.g. "
                      "through a grain constant)", W / 1e3, out->unmod.empty_ns / 1e3, out->unmod.noise_ns / 1e3,
                      need / 1e3);
  uint32_t repeat = opt->repeat ? opt->repeat : 3;
  if (repeat > VKOCC_MAX_REPEAT) repeat = VKOCC_MAX_REPEAT;
  uint32_t P = 0, start = opt->hint;
  pr->repeat = repeat;
  pr->bisect_min = UINT32_MAX;
  for (uint32_t i = 0; i < repeat; i++) {
    vkocc_probe_rep *rep = &pr->reps[i];
    double w0 = vkocc_now_ms(), g0 = run.gpu_ns;
    s = vkocc_bisect_search(unmod_runtime, &run, start, u->max_groups, W, 16 | VKOCC_BISECT_EARLY_EXIT, &rep->bisect);
    if (s) return s;
    rep->bisect_wall_ns = (vkocc_now_ms() - w0) * 1e6;
    rep->bisect_gpu_ns = run.gpu_ns - g0;
    if (!rep->bisect.certain)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "no step up to %u workgroups (the runtime stayed within half "
                        "of a workgroup's %.1f us of one workgroup's)", rep->bisect.P, W / 1e3);
    rep->bisect_P = rep->bisect.P;
    if (rep->bisect_P < pr->bisect_min) pr->bisect_min = rep->bisect_P;
    if (rep->bisect_P > pr->bisect_max) pr->bisect_max = rep->bisect_P;
    start = rep->bisect_P;
  }
  out->unmod.dispatches = run.dispatches;
  out->unmod.wall_ns = (vkocc_now_ms() - t0) * 1e6;
  if (pr->bisect_min != pr->bisect_max) {
    char v[256];
    int off = 0;
    for (uint32_t i = 0; i < repeat && off < (int)sizeof v - 12; i++)
      off += snprintf(v + off, sizeof v - off, "%s%u", i ? ", " : "", pr->reps[i].bisect_P);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "the steps moved between runs (P = %s; workgroups of %.1f us)",
                      v, W / 1e3);
  }
  P = pr->bisect_min;
  /* a workgroup's time from every 1-workgroup run so far (each repeat's base is the fastest of 16): runs
   * that interference slowed all alike would make the steps look higher than they are */
  for (uint32_t i = 0; i < repeat; i++)
    if (pr->reps[i].bisect.base_ns < out->unmod.one_ns) out->unmod.one_ns = pr->reps[i].bisect.base_ns;
  W = out->unmod.wave_ns = pr->bisect_wave_ns = out->unmod.one_ns - out->unmod.empty_ns;
  /* the staircase at P and 2P: flat within a wave, one workgroup's time per step */
  if ((s = unmod_best(&run, P, K, &out->unmod.at_P_ns, NULL)) || (s = unmod_best(&run, P + 1, K, &out->unmod.at_P1_ns, NULL)) ||
      (s = unmod_best(&run, 2 * P, K, &out->unmod.at_2P_ns, NULL)) ||
      (s = unmod_best(&run, 2 * P + 1, K, &out->unmod.at_2P1_ns, NULL)))
    return s;
  out->unmod.dispatches = run.dispatches;
  out->unmod.wall_ns = (vkocc_now_ms() - t0) * 1e6;
  double ramp = out->unmod.at_P_ns - out->unmod.one_ns, step1 = out->unmod.at_P1_ns - out->unmod.at_P_ns;
  double flat2 = out->unmod.at_2P_ns - out->unmod.at_P1_ns, step2 = out->unmod.at_2P1_ns - out->unmod.at_2P_ns;
  if (ramp > 0.25 * W && P == 1)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "the fastest runs of one workgroup differ by %.1f us, more "
                      "than a quarter of its %.1f us (interference from other work)", ramp / 1e3, W / 1e3);
  if (ramp > 0.25 * W)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "the runtime grows by %.1f us from 1 to %u workgroups, more than "
                      "a quarter of a workgroup's %.1f us (a launch ramp, or workgroups that slow each other down: give "
                      "each a longer, latency-bound workload)", ramp / 1e3, P, W / 1e3);
  if (step1 < 0.5 * W || step2 < 0.5 * W || flat2 > 0.25 * W)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "no staircase at multiples of %u: %u..%u workgroups step by "
                      "%.1f us, %u..%u grow by %.1f us, %u..%u step by %.1f us, against a workgroup's %.1f us", P, P,
                      P + 1, step1 / 1e3, P + 1, 2 * P, flat2 / 1e3, 2 * P, 2 * P + 1, step2 / 1e3, W / 1e3);
  pr->bisect_median = P;
  pr->P = P;
  pr->agree = true;
  return VKOCC_OK;
}

/* ---------------------------------------------------------------- cache (probes/pipeline_cache.c) */

#define cache_key pipeline_cache_key
#define cache_read pipeline_cache_read
#define cache_write pipeline_cache_write

/* ---------------------------------------------------------------- public */

static vkocc_status load_module(const vkocc_shader_desc *sh, uint32_t **spv, size_t *words, const char **name) {
  if (sh->path) {
    *name = sh->path;
    return vkocc_shader_load_file(sh->path, sh->lang, sh->entry, sh->defines, sh->ndefines, spv, words);
  }
  if (sh->source) {
    *name = sh->name ? sh->name : sh->lang == VKOCC_SHADER_HLSL ? "source.hlsl" : "source.comp";
    return vkocc_shader_compile(sh->source, sh->source_len, *name, sh->lang, sh->entry, sh->defines, sh->ndefines,
                                spv, words);
  }
  if (sh->spirv) {
    *name = sh->name ? sh->name : "module.spv";
    *spv = malloc(sh->spirv_words * 4 + 4);
    memcpy(*spv, sh->spirv, sh->spirv_words * 4);
    *words = sh->spirv_words;
    return VKOCC_OK;
  }
  return vkocc_fail(VKOCC_ERROR_USAGE, "no shader given (path, source or SPIR-V)");
}

/* Internal (tests): builds the pipeline and hands it out, for dispatching either path by hand. */
vkocc_status vkocc_user_pipeline_test(vkocc_context *ctx, const vkocc_shader_desc *sh, uint32_t mode,
                                      uint32_t groups, uint32_t *written, uint32_t *records_flagged) {
  uint32_t *spv;
  size_t words;
  const char *name;
  vkocc_status s = load_module(sh, &spv, &words, &name);
  if (s) return s;
  user_pipeline u;
  s = user_pipeline_create(ctx, spv, words, name, sh, false, &u);
  free(spv);
  if (!s) {
    uint32_t params[4] = {mode, 1000, 64, 12345};
    double ns;
    vkocc_tick_status ts;
    s = user_dispatch(&u, params, groups, &ns, &ts);
    /* nonzero words in the user's buffers; records with the written flag */
    *written = 0;
    *records_flagged = 0;
    for (uint32_t i = 0; !s && i < u.refl.nbindings; i++)
      if (u.dummies[i].buf.map)
        for (VkDeviceSize k = 0; k < u.dummies[i].buf.size / 4; k++) *written += ((uint32_t *)u.dummies[i].buf.map)[k] != 0;
    const uint32_t *rec = (const uint32_t *)u.aug.map + VKOCC_AUG_PARAM_WORDS;
    for (uint32_t g = 0; !s && g < groups; g++) *records_flagged += rec[8 * g + 4] & 1;
  }
  user_pipeline_destroy(&u);
  return s;
}

vkocc_status vkocc_pipeline_occupancy(vkocc_context *ctx, const vkocc_calibration *cal_in, const vkocc_shader_desc *sh,
                                      const vkocc_probe_options *opt_in, bool use_cache, vkocc_pipeline_result *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  vkocc_probe_options opt = opt_in ? *opt_in : (vkocc_probe_options){0};
  if (sh->unmodified && opt.method && opt.method != VKOCC_METHOD_BISECT)
    return vkocc_fail(VKOCC_ERROR_USAGE, "the unmodified pipeline is measured by dispatch bisection only (method "
                      "%s)", vkocc_method_name(opt.method));
  if (sh->unmodified) opt.method = VKOCC_METHOD_BISECT;
  out->unmodified = sh->unmodified;
  uint32_t *spv;
  size_t words;
  const char *name;
  vkocc_status s = load_module(sh, &spv, &words, &name);
  if (s) return s;
  /* The cheap checks and the cache first: a hit builds no pipeline. */
  vkocc_spirv_info info;
  s = vkocc_spirv_inspect(spv, words, name, sh->entry, sh->spec, sh->nspec, &info);
  if (!s) s = vkocc_module_contract_ctx(ctx, spv, words, name, &info, sh); /* a cached answer too: none without it */
  if (s) { free(spv); return s; }
  memcpy(out->wg, info.wg, sizeof out->wg);
  out->wg_size = info.wg[0] * info.wg[1] * info.wg[2];
  out->shared_bytes = info.shared_bytes;
  out->shared_exact = info.shared_exact;
  out->aug_set = info.first_free_set;
  snprintf(out->entry, sizeof out->entry, "%s", info.entry);
  out->key = cache_key(&ctx->info, spv, words, sh, &opt);
  if (use_cache && info.shared_bytes <= ctx->info.max_shared_bytes && cache_read(out->key, out)) {
    free(spv);
    out->probe.wg_size = out->wg_size;
    out->probe.shared_bytes = out->shared_bytes;
    return VKOCC_OK; /* the method, agreement and the rest as the measurement gave them */
  }
  user_pipeline u;
  s = user_pipeline_create(ctx, spv, words, name, sh, sh->unmodified, &u);
  free(spv);
  if (s) { user_pipeline_destroy(&u); return s; }
  out->descriptors = u.refl.nbindings;
  out->push_bytes = u.refl.push_bytes;
  out->nstats = u.nstats;
  for (uint32_t i = 0; i < u.nstats; i++) {
    snprintf(out->stats[i].name, sizeof out->stats[i].name, "%s", u.stat_name[i]);
    out->stats[i].value = u.stat_user[i];
    out->stats[i].augmented = u.stat_aug[i];
  }
  if (sh->unmodified) { /* no clock and no calibration: queue timestamps around the user's own dispatches */
    out->probe.wg_size = out->wg_size;
    out->probe.shared_bytes = out->shared_bytes;
    out->probe.method = VKOCC_METHOD_BISECT;
    s = measure_unmodified(&u, &opt, out);
    user_pipeline_destroy(&u);
    if (s) return s;
    out->P = out->probe.P;
    if (use_cache) cache_write(out->key, out);
    return VKOCC_OK;
  }
  vkocc_calibration cal_local;
  const vkocc_calibration *cal = cal_in;
  if (!cal) {
    vkocc_calibrate_options co;
    vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
    if ((s = vkocc_calibrate(ctx, &co, &cal_local))) { user_pipeline_destroy(&u); return s; }
    cal = &cal_local;
  }
  /* The probe's measurement, on this pipeline: records come back in the augmentation buffer. */
  vkocc_probe_session ps = {.ctx = ctx, .max_groups = u.max_groups, .dispatch = hook, .user = &u};
  ps.rec = u.aug;
  ps.rec.map = (uint32_t *)u.aug.map + VKOCC_AUG_PARAM_WORDS;
  vkocc_kernel none = {0};
  /* vkocc_probe_check_point: the workgroup size is the shader's; its shared bytes are checked above */
  opt.wg_size = out->wg_size;
  opt.shared_bytes = out->shared_bytes;
  if (!opt.method) opt.method = VKOCC_METHOD_BOTH;
  s = vkocc_probe_measure(&ps, &none, cal, &opt, &out->probe);
  user_pipeline_destroy(&u);
  if (s) return s;
  out->P = out->probe.P;
  if (use_cache && out->probe.agree) cache_write(out->key, out);
  return VKOCC_OK;
}

void vkocc_pipeline_result_free(vkocc_pipeline_result *r) { vkocc_probe_result_free(&r->probe); }
