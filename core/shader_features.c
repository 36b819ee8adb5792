/* The shader features vkocc's device enables (every one of the list below the device supports, so a user's
 * module that needs 64-bit integers or 16-bit storage can be measured where the device has them), and the
 * limits and features the module contract (compile/contract.c) checks a user's module against. */
#include "compile.h"
#include "internal.h"
#include <string.h>

typedef core_feature_chain feature_chain;

static bool instance_12(void) {
  uint32_t v = VK_API_VERSION_1_0;
  if (core_fn.vkEnumerateInstanceVersion && core_fn.vkEnumerateInstanceVersion(&v) != VK_SUCCESS)
    v = VK_API_VERSION_1_0;
  return v >= VK_API_VERSION_1_2;
}

static void chain_init(feature_chain *c, VkPhysicalDevice pd) {
  memset(c, 0, sizeof *c);
  VkPhysicalDeviceProperties p;
  core_fn.vkGetPhysicalDeviceProperties(pd, &p);
  c->has12 = p.apiVersion >= VK_API_VERSION_1_2 && instance_12();
  c->f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  c->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  c->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  if (c->has12) c->f2.pNext = &c->v11, c->v11.pNext = &c->v12;
}

/* The feature bits of a queried chain. */
static uint64_t bits_of(const feature_chain *c) {
  const VkPhysicalDeviceFeatures *f = &c->f2.features;
  uint64_t b = 0;
#define B(cond, bit) if (cond) b |= 1ull << (bit);
  B(f->shaderInt64, VKOCC_FEAT_INT64) B(f->shaderInt16, VKOCC_FEAT_INT16) B(f->shaderFloat64, VKOCC_FEAT_FLOAT64)
  B(f->shaderImageGatherExtended, VKOCC_FEAT_IMAGE_GATHER_EXTENDED)
  B(f->shaderStorageImageMultisample, VKOCC_FEAT_STORAGE_IMAGE_MULTISAMPLE)
  B(f->shaderUniformBufferArrayDynamicIndexing, VKOCC_FEAT_UBO_ARRAY_DYNAMIC)
  B(f->shaderSampledImageArrayDynamicIndexing, VKOCC_FEAT_SAMPLED_ARRAY_DYNAMIC)
  B(f->shaderStorageBufferArrayDynamicIndexing, VKOCC_FEAT_SSBO_ARRAY_DYNAMIC)
  B(f->shaderStorageImageArrayDynamicIndexing, VKOCC_FEAT_STORAGE_IMAGE_ARRAY_DYNAMIC)
  B(f->imageCubeArray, VKOCC_FEAT_IMAGE_CUBE_ARRAY) B(f->shaderResourceResidency, VKOCC_FEAT_RESOURCE_RESIDENCY)
  B(f->shaderResourceMinLod, VKOCC_FEAT_RESOURCE_MIN_LOD)
  B(f->shaderStorageImageExtendedFormats, VKOCC_FEAT_STORAGE_IMAGE_EXTENDED_FORMATS)
  B(f->shaderStorageImageReadWithoutFormat, VKOCC_FEAT_STORAGE_IMAGE_READ_WITHOUT_FORMAT)
  B(f->shaderStorageImageWriteWithoutFormat, VKOCC_FEAT_STORAGE_IMAGE_WRITE_WITHOUT_FORMAT)
  if (c->has12) {
    const VkPhysicalDeviceVulkan11Features *a = &c->v11;
    const VkPhysicalDeviceVulkan12Features *v = &c->v12;
    B(a->storageBuffer16BitAccess, VKOCC_FEAT_STORAGE_BUFFER_16BIT)
    B(a->uniformAndStorageBuffer16BitAccess, VKOCC_FEAT_UNIFORM_STORAGE_BUFFER_16BIT)
    B(a->storagePushConstant16, VKOCC_FEAT_PUSH_CONSTANT_16BIT)
    B(a->variablePointersStorageBuffer, VKOCC_FEAT_VARIABLE_POINTERS_STORAGE_BUFFER)
    B(a->variablePointers, VKOCC_FEAT_VARIABLE_POINTERS)
    B(v->shaderFloat16, VKOCC_FEAT_FLOAT16) B(v->shaderInt8, VKOCC_FEAT_INT8)
    B(v->shaderBufferInt64Atomics, VKOCC_FEAT_BUFFER_INT64_ATOMICS)
    B(v->shaderSharedInt64Atomics, VKOCC_FEAT_SHARED_INT64_ATOMICS)
    B(v->storageBuffer8BitAccess, VKOCC_FEAT_STORAGE_BUFFER_8BIT)
    B(v->uniformAndStorageBuffer8BitAccess, VKOCC_FEAT_UNIFORM_STORAGE_BUFFER_8BIT)
    B(v->storagePushConstant8, VKOCC_FEAT_PUSH_CONSTANT_8BIT)
    B(v->vulkanMemoryModel, VKOCC_FEAT_VULKAN_MEMORY_MODEL)
    B(v->vulkanMemoryModelDeviceScope, VKOCC_FEAT_VULKAN_MEMORY_MODEL_DEVICE_SCOPE)
  }
#undef B
  return b;
}

/* Supported by the device: the shader features of the list (bufferDeviceAddress is never enabled: vkocc
 * binds no buffer by address). */
static uint64_t supported_of(VkPhysicalDevice pd, bool *has12) {
  feature_chain c;
  chain_init(&c, pd);
  core_fn.vkGetPhysicalDeviceFeatures2(pd, &c.f2);
  if (has12) *has12 = c.has12;
  return bits_of(&c);
}

/* Called by vkocc_context_create before vkCreateDevice: puts a VkPhysicalDeviceFeatures2 chain with every
 * supported feature of the list at the front of dci's pNext. storage must live until vkCreateDevice. */
void core_shader_features_enable(VkPhysicalDevice pd, VkDeviceCreateInfo *dci, core_feature_chain *e) {
  feature_chain q;
  chain_init(&q, pd);
  core_fn.vkGetPhysicalDeviceFeatures2(pd, &q.f2);
  chain_init(e, pd);
  const VkPhysicalDeviceFeatures *f = &q.f2.features;
  VkPhysicalDeviceFeatures *o = &e->f2.features;
  o->shaderInt64 = f->shaderInt64, o->shaderInt16 = f->shaderInt16, o->shaderFloat64 = f->shaderFloat64;
  o->shaderImageGatherExtended = f->shaderImageGatherExtended;
  o->shaderStorageImageMultisample = f->shaderStorageImageMultisample;
  o->shaderUniformBufferArrayDynamicIndexing = f->shaderUniformBufferArrayDynamicIndexing;
  o->shaderSampledImageArrayDynamicIndexing = f->shaderSampledImageArrayDynamicIndexing;
  o->shaderStorageBufferArrayDynamicIndexing = f->shaderStorageBufferArrayDynamicIndexing;
  o->shaderStorageImageArrayDynamicIndexing = f->shaderStorageImageArrayDynamicIndexing;
  o->imageCubeArray = f->imageCubeArray, o->shaderResourceResidency = f->shaderResourceResidency;
  o->shaderResourceMinLod = f->shaderResourceMinLod;
  o->shaderStorageImageExtendedFormats = f->shaderStorageImageExtendedFormats;
  o->shaderStorageImageReadWithoutFormat = f->shaderStorageImageReadWithoutFormat;
  o->shaderStorageImageWriteWithoutFormat = f->shaderStorageImageWriteWithoutFormat;
  if (e->has12) {
    e->v11.storageBuffer16BitAccess = q.v11.storageBuffer16BitAccess;
    e->v11.uniformAndStorageBuffer16BitAccess = q.v11.uniformAndStorageBuffer16BitAccess;
    e->v11.storagePushConstant16 = q.v11.storagePushConstant16;
    e->v11.variablePointersStorageBuffer = q.v11.variablePointersStorageBuffer;
    e->v11.variablePointers = q.v11.variablePointers && q.v11.variablePointersStorageBuffer;
    e->v12.shaderFloat16 = q.v12.shaderFloat16, e->v12.shaderInt8 = q.v12.shaderInt8;
    e->v12.shaderBufferInt64Atomics = q.v12.shaderBufferInt64Atomics;
    e->v12.shaderSharedInt64Atomics = q.v12.shaderSharedInt64Atomics;
    e->v12.storageBuffer8BitAccess = q.v12.storageBuffer8BitAccess;
    e->v12.uniformAndStorageBuffer8BitAccess = q.v12.uniformAndStorageBuffer8BitAccess;
    e->v12.storagePushConstant8 = q.v12.storagePushConstant8;
    e->v12.vulkanMemoryModel = q.v12.vulkanMemoryModel;
    e->v12.vulkanMemoryModelDeviceScope = q.v12.vulkanMemoryModel && q.v12.vulkanMemoryModelDeviceScope;
    e->v12.pNext = (void *)dci->pNext;
  } else {
    e->f2.pNext = (void *)dci->pNext;
  }
  dci->pNext = &e->f2;
}

void core_module_limits_of(vkocc_context *ctx, compile_module_limits *out) {
  memset(out, 0, sizeof *out);
  out->device = ctx->info.name;
  VkPhysicalDeviceSubgroupProperties sg = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sg};
  core_fn.vkGetPhysicalDeviceProperties2(ctx->phys, &p2);
  const VkPhysicalDeviceLimits *l = &p2.properties.limits;
  out->max_bound_sets = l->maxBoundDescriptorSets;
  out->max_push_bytes = l->maxPushConstantsSize;
  out->max_shared_bytes = l->maxComputeSharedMemorySize;
  out->max_invocations = l->maxComputeWorkGroupInvocations;
  for (int k = 0; k < 3; k++) out->max_wg_size[k] = l->maxComputeWorkGroupSize[k];
  out->per_stage_samplers = l->maxPerStageDescriptorSamplers;
  out->per_stage_uniform_buffers = l->maxPerStageDescriptorUniformBuffers;
  out->per_stage_storage_buffers = l->maxPerStageDescriptorStorageBuffers;
  out->per_stage_sampled_images = l->maxPerStageDescriptorSampledImages;
  out->per_stage_storage_images = l->maxPerStageDescriptorStorageImages;
  out->per_stage_resources = l->maxPerStageResources;
  out->max_uniform_range = l->maxUniformBufferRange;
  out->max_storage_range = l->maxStorageBufferRange;
  out->subgroup_ops = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ? sg.supportedOperations : 0;
  out->supported = supported_of(ctx->phys, NULL);
  if (ctx->info.shader_device_clock || ctx->info.shader_subgroup_clock) out->supported |= 1ull << VKOCC_FEAT_SHADER_DEVICE_CLOCK;
  /* vkocc's own device enables every supported feature of the list; an application's device
   * (vkocc_context_create_external) is not known to: there only what needs no feature passes */
  out->enabled = ctx->external ? 0 : out->supported & ~(1ull << VKOCC_FEAT_SHADER_DEVICE_CLOCK);
  if (ctx->device_clock || ctx->subgroup_clock) out->enabled |= 1ull << VKOCC_FEAT_SHADER_DEVICE_CLOCK;
}

vkocc_status core_module_contract_ctx(vkocc_context *ctx, const uint32_t *spv, size_t words, const char *name,
                                       const compile_spirv_info *info, const vkocc_shader_desc *sh) {
  compile_reflection refl;
  vkocc_status s = compile_reflect(spv, words, info->entry, &refl);
  if (s) return s;
  compile_module_limits lim;
  core_module_limits_of(ctx, &lim);
  s = compile_module_contract(spv, words, name, info, &refl, sh->spec, sh->nspec, !sh->unmodified, &lim);
  compile_reflection_free(&refl);
  return s;
}

void core_subgroup_size_range(vkocc_context *ctx, uint32_t *min, uint32_t *max) {
  *min = *max = ctx->info.subgroup_size;
  /* subgroupSizeControl (Vulkan 1.3, VK_EXT_subgroup_size_control): 32..64 on RDNA, one size on NVIDIA */
  if (ctx->info.api_version < VK_API_VERSION_1_3 &&
      !core_device_has_extension(ctx->phys, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME))
    return;
  VkPhysicalDeviceSubgroupSizeControlProperties sc = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sc};
  core_fn.vkGetPhysicalDeviceProperties2(ctx->phys, &p2);
  if (sc.minSubgroupSize && sc.maxSubgroupSize >= sc.minSubgroupSize) *min = sc.minSubgroupSize, *max = sc.maxSubgroupSize;
}
