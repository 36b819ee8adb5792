/* Buffers, and the dummy resources a built kernel gets for the bindings the caller gave no buffer for
 * (core/exec.h): zero-filled host-visible buffers sized from the reflection, small images in GENERAL
 * layout, texel buffer views, one sampler. */
#include "exec.h"
#include <spirv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t find_memory(const vkocc_context *ctx, uint32_t bits, VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < ctx->mem.memoryTypeCount; i++)
    if ((bits & (1u << i)) && (ctx->mem.memoryTypes[i].propertyFlags & want) == want) return (int32_t)i;
  return -1;
}

vkocc_status core_buffer_create(vkocc_context *ctx, VkDeviceSize size, bool host_visible, core_buffer *b) {
  memset(b, 0, sizeof *b);
  b->size = size;
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                     VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                     VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT}; /* + user shaders' dummies */
  VkResult r = core_fn.vkCreateBuffer(ctx->device, &bci, NULL, &b->buffer);
  if (r) {
    memset(b, 0, sizeof *b);
    return core_vk_fail(r, "vkCreateBuffer");
  }
  VkMemoryRequirements req;
  core_fn.vkGetBufferMemoryRequirements(ctx->device, b->buffer, &req);
  /* Host-visible buffers are read back by the host: prefer cached memory (reads from write-combined
   * memory are slow). */
  const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int32_t type = host_visible ? find_memory(ctx, req.memoryTypeBits, hv | VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
                              : find_memory(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (type < 0 && host_visible) type = find_memory(ctx, req.memoryTypeBits, hv);
  if (type < 0 && !host_visible) type = find_memory(ctx, req.memoryTypeBits, 0);
  if (type < 0) {
    core_buffer_destroy(ctx, b);
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "no %s memory type for a %llu-byte buffer",
                      host_visible ? "host-visible coherent" : "device", (unsigned long long)size);
  }
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                              .memoryTypeIndex = (uint32_t)type};
  if ((r = core_fn.vkAllocateMemory(ctx->device, &mai, NULL, &b->memory)) ||
      (r = core_fn.vkBindBufferMemory(ctx->device, b->buffer, b->memory, 0)) ||
      (host_visible && (r = core_fn.vkMapMemory(ctx->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map)))) {
    core_buffer_destroy(ctx, b);
    return core_vk_fail(r, "allocating buffer memory");
  }
  return VKOCC_OK;
}

void core_buffer_destroy(vkocc_context *ctx, core_buffer *b) {
  if (b->buffer) core_fn.vkDestroyBuffer(ctx->device, b->buffer, NULL);
  if (b->memory) core_fn.vkFreeMemory(ctx->device, b->memory, NULL);
  memset(b, 0, sizeof *b);
}

/* Uploads go through one staging buffer of at most this size, kept by the context: a staging buffer made per upload
 * cost 160-220 ms per 256 MiB on the H100 (the driver's allocation of that much host-visible memory, most of the
 * upload), where the copies themselves take a few ms. */
#define STAGING_MAX (64ull << 20)

vkocc_status core_buffer_upload_to(vkocc_context *ctx, core_buffer *const *dst, uint32_t n, const void *data,
                                    VkDeviceSize size) {
  uint32_t staged = 0;
  for (uint32_t k = 0; k < n; k++)
    if (dst[k]->map) memcpy(dst[k]->map, data, size);
    else staged++;
  if (!staged || !size) return VKOCC_OK;
  VkDeviceSize chunk = size < STAGING_MAX ? size : STAGING_MAX;
  vkocc_status s;
  if (!ctx->staging || ctx->staging->size < chunk) {
    if (!ctx->staging) ctx->staging = util_xcalloc(1, sizeof *ctx->staging);
    core_buffer_destroy(ctx, ctx->staging);
    if ((s = core_buffer_create(ctx, chunk, true, ctx->staging))) return s;
  }
  core_batch *b = core_context_batch(ctx);
  for (VkDeviceSize off = 0; off < size; off += chunk) {
    VkDeviceSize len = size - off < chunk ? size - off : chunk;
    memcpy(ctx->staging->map, (const uint8_t *)data + off, len);
    if ((s = core_batch_begin(b))) return s;
    for (uint32_t k = 0; k < n; k++)
      if (!dst[k]->map) core_batch_copy(b, ctx->staging, dst[k], 0, off, len);
    if ((s = core_batch_run(b, 0, "uploading a buffer"))) return s;
  }
  return VKOCC_OK;
}

vkocc_status core_buffer_upload(vkocc_context *ctx, core_buffer *dst, const void *data, VkDeviceSize size) {
  return core_buffer_upload_to(ctx, &dst, 1, data, size);
}

/* ------------------------------------------------------------------ dummies */

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

static vkocc_status make_image(vkocc_context *ctx, const compile_reflect_binding *b, core_dummy *d) {
  VkDevice dev = ctx->device;
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
  VkResult r = core_fn.vkCreateImage(dev, &ici, NULL, &d->image);
  if (r) return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "dummy image for set %u binding %u (format %d): vkCreateImage "
                           "gave %s", b->set, b->binding, fmt, core_vk_result_name(r));
  VkMemoryRequirements req;
  core_fn.vkGetImageMemoryRequirements(dev, d->image, &req);
  int32_t mt = find_memory(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (mt < 0) mt = find_memory(ctx, req.memoryTypeBits, 0);
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                              .memoryTypeIndex = (uint32_t)mt};
  if (mt < 0 || (r = core_fn.vkAllocateMemory(dev, &mai, NULL, &d->image_mem)) ||
      (r = core_fn.vkBindImageMemory(dev, d->image, d->image_mem, 0)))
    return core_vk_fail(r ? r : VK_ERROR_OUT_OF_DEVICE_MEMORY, "dummy image memory");
  VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = d->image, .viewType = vt,
                               .format = fmt,
                               .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers}};
  if ((r = core_fn.vkCreateImageView(dev, &vci, NULL, &d->view))) return core_vk_fail(r, "dummy image view");
  /* UNDEFINED -> GENERAL once, so the descriptor's layout is the image's */
  core_batch *bt = core_context_batch(ctx);
  vkocc_status s = core_batch_begin(bt);
  if (s) return s;
  core_batch_image_general(bt, d->image, layers);
  return core_batch_run(bt, 0, "dummy image layout transition");
}

/* Dummies for k->refl's bindings that no caller resource covers (covered[i]). */
vkocc_status core_dummies_make(vkocc_context *ctx, core_kernel *k, const bool *covered) {
  VkDevice dev = ctx->device;
  k->dummies = util_xcalloc(k->refl.nbindings ? k->refl.nbindings : 1, sizeof *k->dummies);
  VkSamplerCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, .magFilter = VK_FILTER_NEAREST,
                             .minFilter = VK_FILTER_NEAREST};
  VkResult r = core_fn.vkCreateSampler(dev, &sci, NULL, &k->sampler);
  if (r) return core_vk_fail(r, "dummy sampler");
  for (uint32_t i = 0; i < k->refl.nbindings; i++) {
    if (covered && covered[i]) continue;
    const compile_reflect_binding *b = &k->refl.bindings[i];
    core_dummy *d = &k->dummies[i];
    vkocc_status s = VKOCC_OK;
    switch (b->type) {
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER: {
      /* zero-filled and host-visible: tests check that the user's code never wrote to it */
      VkDeviceSize size = b->size < 256 ? 256 : (b->size + 255) / 256 * 256;
      if (b->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER && size > 65536) size = 65536;
      /* A runtime array reflects as its header alone, but code on a path never taken still indexes it (the
       * register personality reads v[0..255]), and lavapipe's JIT once read past a 256-byte dummy into an
       * unmapped page (SEGV on a worker thread, 1 run in many under ASan): storage dummies get 64 KiB. */
      if (b->type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER && size < 65536) size = 65536;
      if (!(s = core_buffer_create(ctx, size, true, &d->buf))) memset(d->buf.map, 0, size);
      break;
    }
    case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: {
      if ((s = core_buffer_create(ctx, 4096, true, &d->buf))) break;
      memset(d->buf.map, 0, 4096);
      VkFormat fmt = b->type == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER ? storage_format(b->image_format, b->sampled_type)
                     : b->sampled_type == 1 ? VK_FORMAT_R32_SINT : b->sampled_type == 2 ? VK_FORMAT_R32_UINT
                                                                                       : VK_FORMAT_R32_SFLOAT;
      VkBufferViewCreateInfo bvci = {.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO, .buffer = d->buf.buffer,
                                     .format = fmt, .range = VK_WHOLE_SIZE};
      if ((r = core_fn.vkCreateBufferView(dev, &bvci, NULL, &d->texel_view)))
        s = vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "dummy texel buffer for set %u binding %u (format %d): %s", b->set,
                       b->binding, fmt, core_vk_result_name(r));
      break;
    }
    case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
    case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
    case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER: s = make_image(ctx, b, d); break;
    default: break; /* samplers share k->sampler */
    }
    if (s) return s;
  }
  return VKOCC_OK;
}

void core_dummies_destroy(vkocc_context *ctx, core_kernel *k) {
  VkDevice dev = ctx->device;
  for (uint32_t i = 0; k->dummies && i < k->refl.nbindings; i++) {
    core_dummy *d = &k->dummies[i];
    if (d->texel_view) core_fn.vkDestroyBufferView(dev, d->texel_view, NULL);
    if (d->view) core_fn.vkDestroyImageView(dev, d->view, NULL);
    if (d->image) core_fn.vkDestroyImage(dev, d->image, NULL);
    if (d->image_mem) core_fn.vkFreeMemory(dev, d->image_mem, NULL);
    core_buffer_destroy(ctx, &d->buf);
  }
  free(k->dummies);
  k->dummies = NULL;
  if (k->sampler) core_fn.vkDestroySampler(dev, k->sampler, NULL);
  k->sampler = VK_NULL_HANDLE;
}
