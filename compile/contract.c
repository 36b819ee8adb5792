/* The contract of a user's module: before vkocc creates anything for it, every capability, descriptor set,
 * binding, descriptor array, push-constant block, buffer, workgroup size and shared size of the module is
 * checked against what the device promised (its limits and the features vkocc's device enables) and against
 * what vkocc itself binds. Nothing reaches the driver that the device did not promise to accept: a driver
 * that is handed more crashes or answers VK_ERROR_UNKNOWN, and a driver that silently accepts it measures
 * something else. Pure logic over plain data (tests/test_contract.c, tests/fuzz_spirv.c). */
#include "compile.h"
#include "util.h"
#include <vulkan/vulkan.h> /* the types of the module contract and reflection: no device here */
#include <math.h>
#include <spirv.h>
#include <stdio.h>
#include <string.h>

/* What vkocc's pipeline builder binds (probes/pipeline.c): its fixed tables, refused beyond. */
#define VKOCC_BIND_MAX_SETS 32u
#define VKOCC_BIND_MAX_PER_SET 64u
#define VKOCC_BIND_MAX_BINDING 4095u
#define VKOCC_BIND_MAX_PUSH 256u
#define VKOCC_BIND_MAX_SPEC 64u
#define VKOCC_BIND_MAX_BUFFER (256u << 20) /* a zero-filled dummy of the declared size */

static const char *const feature_names[VKOCC_FEAT_COUNT] = {
    [VKOCC_FEAT_INT64] = "shaderInt64",
    [VKOCC_FEAT_INT16] = "shaderInt16",
    [VKOCC_FEAT_FLOAT64] = "shaderFloat64",
    [VKOCC_FEAT_FLOAT16] = "shaderFloat16",
    [VKOCC_FEAT_INT8] = "shaderInt8",
    [VKOCC_FEAT_BUFFER_INT64_ATOMICS] = "shaderBufferInt64Atomics",
    [VKOCC_FEAT_SHARED_INT64_ATOMICS] = "shaderSharedInt64Atomics",
    [VKOCC_FEAT_IMAGE_GATHER_EXTENDED] = "shaderImageGatherExtended",
    [VKOCC_FEAT_STORAGE_IMAGE_MULTISAMPLE] = "shaderStorageImageMultisample",
    [VKOCC_FEAT_UBO_ARRAY_DYNAMIC] = "shaderUniformBufferArrayDynamicIndexing",
    [VKOCC_FEAT_SAMPLED_ARRAY_DYNAMIC] = "shaderSampledImageArrayDynamicIndexing",
    [VKOCC_FEAT_SSBO_ARRAY_DYNAMIC] = "shaderStorageBufferArrayDynamicIndexing",
    [VKOCC_FEAT_STORAGE_IMAGE_ARRAY_DYNAMIC] = "shaderStorageImageArrayDynamicIndexing",
    [VKOCC_FEAT_IMAGE_CUBE_ARRAY] = "imageCubeArray",
    [VKOCC_FEAT_RESOURCE_RESIDENCY] = "shaderResourceResidency",
    [VKOCC_FEAT_RESOURCE_MIN_LOD] = "shaderResourceMinLod",
    [VKOCC_FEAT_STORAGE_IMAGE_EXTENDED_FORMATS] = "shaderStorageImageExtendedFormats",
    [VKOCC_FEAT_STORAGE_IMAGE_READ_WITHOUT_FORMAT] = "shaderStorageImageReadWithoutFormat",
    [VKOCC_FEAT_STORAGE_IMAGE_WRITE_WITHOUT_FORMAT] = "shaderStorageImageWriteWithoutFormat",
    [VKOCC_FEAT_STORAGE_BUFFER_16BIT] = "storageBuffer16BitAccess",
    [VKOCC_FEAT_UNIFORM_STORAGE_BUFFER_16BIT] = "uniformAndStorageBuffer16BitAccess",
    [VKOCC_FEAT_PUSH_CONSTANT_16BIT] = "storagePushConstant16",
    [VKOCC_FEAT_STORAGE_BUFFER_8BIT] = "storageBuffer8BitAccess",
    [VKOCC_FEAT_UNIFORM_STORAGE_BUFFER_8BIT] = "uniformAndStorageBuffer8BitAccess",
    [VKOCC_FEAT_PUSH_CONSTANT_8BIT] = "storagePushConstant8",
    [VKOCC_FEAT_VARIABLE_POINTERS_STORAGE_BUFFER] = "variablePointersStorageBuffer",
    [VKOCC_FEAT_VARIABLE_POINTERS] = "variablePointers",
    [VKOCC_FEAT_VULKAN_MEMORY_MODEL] = "vulkanMemoryModel",
    [VKOCC_FEAT_VULKAN_MEMORY_MODEL_DEVICE_SCOPE] = "vulkanMemoryModelDeviceScope",
    [VKOCC_FEAT_BUFFER_DEVICE_ADDRESS] = "bufferDeviceAddress",
    [VKOCC_FEAT_SHADER_DEVICE_CLOCK] = "shaderDeviceClock or shaderSubgroupClock",
};

const char *compile_feature_name(unsigned feat) {
  return feat < VKOCC_FEAT_COUNT && feature_names[feat] ? feature_names[feat] : "(unknown feature)";
}

/* Capabilities a compute module may declare, and what each needs: nothing (FREE), a feature (one of two
 * for Int64Atomics), or subgroup operations of the compute stage. Everything not listed is refused: vkocc
 * cannot tell whether the device accepts it (extensions it does not enable: float atomics, 64-bit image
 * atomics, subgroup ballot/vote of the KHR extensions, float controls it does not query, ...). */
enum { FREE = 0x100, SUBGROUP = 0x200, FEAT2 = 0x400, REFUSED = 0x800 };
static const struct cap {
  uint32_t cap;
  const char *name;
  uint32_t need;  /* FREE, SUBGROUP | VkSubgroupFeatureFlagBits, a VKOCC_FEAT_*, or FEAT2 | (a << 5 | b) */
} caps[] = {
    {SpvCapabilityMatrix, "Matrix", FREE},
    {SpvCapabilityShader, "Shader", FREE},
    {SpvCapabilitySampled1D, "Sampled1D", FREE},
    {SpvCapabilityImage1D, "Image1D", FREE},
    {SpvCapabilitySampledBuffer, "SampledBuffer", FREE},
    {SpvCapabilityImageBuffer, "ImageBuffer", FREE},
    {SpvCapabilityImageQuery, "ImageQuery", FREE},
    {SpvCapabilityDerivativeControl, "DerivativeControl", FREE},
    {SpvCapabilityStorageBuffer16BitAccess, "StorageBuffer16BitAccess", VKOCC_FEAT_STORAGE_BUFFER_16BIT},
    {SpvCapabilityUniformAndStorageBuffer16BitAccess, "UniformAndStorageBuffer16BitAccess",
     VKOCC_FEAT_UNIFORM_STORAGE_BUFFER_16BIT},
    {SpvCapabilityStoragePushConstant16, "StoragePushConstant16", VKOCC_FEAT_PUSH_CONSTANT_16BIT},
    {SpvCapabilityStorageBuffer8BitAccess, "StorageBuffer8BitAccess", VKOCC_FEAT_STORAGE_BUFFER_8BIT},
    {SpvCapabilityUniformAndStorageBuffer8BitAccess, "UniformAndStorageBuffer8BitAccess",
     VKOCC_FEAT_UNIFORM_STORAGE_BUFFER_8BIT},
    {SpvCapabilityStoragePushConstant8, "StoragePushConstant8", VKOCC_FEAT_PUSH_CONSTANT_8BIT},
    {SpvCapabilityFloat64, "Float64", VKOCC_FEAT_FLOAT64},
    {SpvCapabilityInt64, "Int64", VKOCC_FEAT_INT64},
    {SpvCapabilityInt64Atomics, "Int64Atomics",
     FEAT2 | VKOCC_FEAT_BUFFER_INT64_ATOMICS << 5 | VKOCC_FEAT_SHARED_INT64_ATOMICS},
    {SpvCapabilityInt16, "Int16", VKOCC_FEAT_INT16},
    {SpvCapabilityInt8, "Int8", VKOCC_FEAT_INT8},
    {SpvCapabilityFloat16, "Float16", VKOCC_FEAT_FLOAT16},
    {SpvCapabilityImageGatherExtended, "ImageGatherExtended", VKOCC_FEAT_IMAGE_GATHER_EXTENDED},
    {SpvCapabilityStorageImageMultisample, "StorageImageMultisample", VKOCC_FEAT_STORAGE_IMAGE_MULTISAMPLE},
    {SpvCapabilityImageMSArray, "ImageMSArray", VKOCC_FEAT_STORAGE_IMAGE_MULTISAMPLE},
    {SpvCapabilityUniformBufferArrayDynamicIndexing, "UniformBufferArrayDynamicIndexing", VKOCC_FEAT_UBO_ARRAY_DYNAMIC},
    {SpvCapabilitySampledImageArrayDynamicIndexing, "SampledImageArrayDynamicIndexing",
     VKOCC_FEAT_SAMPLED_ARRAY_DYNAMIC},
    {SpvCapabilityStorageBufferArrayDynamicIndexing, "StorageBufferArrayDynamicIndexing",
     VKOCC_FEAT_SSBO_ARRAY_DYNAMIC},
    {SpvCapabilityStorageImageArrayDynamicIndexing, "StorageImageArrayDynamicIndexing",
     VKOCC_FEAT_STORAGE_IMAGE_ARRAY_DYNAMIC},
    {SpvCapabilityImageCubeArray, "ImageCubeArray", VKOCC_FEAT_IMAGE_CUBE_ARRAY},
    {SpvCapabilitySampledCubeArray, "SampledCubeArray", VKOCC_FEAT_IMAGE_CUBE_ARRAY},
    {SpvCapabilitySparseResidency, "SparseResidency", VKOCC_FEAT_RESOURCE_RESIDENCY},
    {SpvCapabilityMinLod, "MinLod", VKOCC_FEAT_RESOURCE_MIN_LOD},
    {SpvCapabilityStorageImageExtendedFormats, "StorageImageExtendedFormats",
     VKOCC_FEAT_STORAGE_IMAGE_EXTENDED_FORMATS},
    {SpvCapabilityStorageImageReadWithoutFormat, "StorageImageReadWithoutFormat",
     VKOCC_FEAT_STORAGE_IMAGE_READ_WITHOUT_FORMAT},
    {SpvCapabilityStorageImageWriteWithoutFormat, "StorageImageWriteWithoutFormat",
     VKOCC_FEAT_STORAGE_IMAGE_WRITE_WITHOUT_FORMAT},
    {SpvCapabilityVariablePointersStorageBuffer, "VariablePointersStorageBuffer",
     VKOCC_FEAT_VARIABLE_POINTERS_STORAGE_BUFFER},
    {SpvCapabilityVariablePointers, "VariablePointers", VKOCC_FEAT_VARIABLE_POINTERS},
    {SpvCapabilityVulkanMemoryModel, "VulkanMemoryModel", VKOCC_FEAT_VULKAN_MEMORY_MODEL},
    {SpvCapabilityVulkanMemoryModelDeviceScope, "VulkanMemoryModelDeviceScope",
     VKOCC_FEAT_VULKAN_MEMORY_MODEL_DEVICE_SCOPE},
    {SpvCapabilityPhysicalStorageBufferAddresses, "PhysicalStorageBufferAddresses", VKOCC_FEAT_BUFFER_DEVICE_ADDRESS},
    {SpvCapabilityShaderClockKHR, "ShaderClockKHR", VKOCC_FEAT_SHADER_DEVICE_CLOCK},
    {SpvCapabilityGroupNonUniform, "GroupNonUniform", SUBGROUP | 0x1},
    {SpvCapabilityGroupNonUniformVote, "GroupNonUniformVote", SUBGROUP | 0x2},
    {SpvCapabilityGroupNonUniformArithmetic, "GroupNonUniformArithmetic", SUBGROUP | 0x4},
    {SpvCapabilityGroupNonUniformBallot, "GroupNonUniformBallot", SUBGROUP | 0x8},
    {SpvCapabilityGroupNonUniformShuffle, "GroupNonUniformShuffle", SUBGROUP | 0x10},
    {SpvCapabilityGroupNonUniformShuffleRelative, "GroupNonUniformShuffleRelative", SUBGROUP | 0x20},
    {SpvCapabilityGroupNonUniformClustered, "GroupNonUniformClustered", SUBGROUP | 0x40},
    {SpvCapabilityGroupNonUniformQuad, "GroupNonUniformQuad", SUBGROUP | 0x80},
    /* named for the message only: features of extensions vkocc's device does not enable, properties it
     * does not query */
    {SpvCapabilityAtomicFloat32AddEXT, "AtomicFloat32AddEXT", REFUSED},
    {SpvCapabilityAtomicFloat64AddEXT, "AtomicFloat64AddEXT", REFUSED},
    {SpvCapabilityAtomicFloat16AddEXT, "AtomicFloat16AddEXT", REFUSED},
    {SpvCapabilityAtomicFloat16MinMaxEXT, "AtomicFloat16MinMaxEXT", REFUSED},
    {SpvCapabilityAtomicFloat32MinMaxEXT, "AtomicFloat32MinMaxEXT", REFUSED},
    {SpvCapabilityAtomicFloat64MinMaxEXT, "AtomicFloat64MinMaxEXT", REFUSED},
    {SpvCapabilityInt64ImageEXT, "Int64ImageEXT", REFUSED},
    {SpvCapabilityDenormPreserve, "DenormPreserve", REFUSED},
    {SpvCapabilityDenormFlushToZero, "DenormFlushToZero", REFUSED},
    {SpvCapabilitySignedZeroInfNanPreserve, "SignedZeroInfNanPreserve", REFUSED},
    {SpvCapabilityRoundingModeRTE, "RoundingModeRTE", REFUSED},
    {SpvCapabilityRoundingModeRTZ, "RoundingModeRTZ", REFUSED},
    {SpvCapabilityShaderNonUniform, "ShaderNonUniform", REFUSED},
    {SpvCapabilityRuntimeDescriptorArray, "RuntimeDescriptorArray", REFUSED},
    {SpvCapabilityRayQueryKHR, "RayQueryKHR", REFUSED},
    {SpvCapabilitySubgroupBallotKHR, "SubgroupBallotKHR", REFUSED},
    {SpvCapabilitySubgroupVoteKHR, "SubgroupVoteKHR", REFUSED},
};

static const char *cap_name(uint32_t c, char buf[24]) {
  for (size_t i = 0; i < VKOCC_ARRAY_LEN(caps); i++)
    if (caps[i].cap == c) return caps[i].name;
  snprintf(buf, 24, "%u", c);
  return buf;
}

static const char *yes_no(bool b) { return b ? "yes" : "no"; }

static vkocc_status feature_missing(const char *name, const compile_module_limits *lim, const char *cap, unsigned f) {
  bool sup = lim->supported >> f & 1;
  return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: capability %s needs the feature %s, which vkocc's device on %s "
                    "does not enable (needed: yes, enabled: no, supported by the device: %s)", name, cap,
                    compile_feature_name(f), lim->device, yes_no(sup));
}

static vkocc_status check_capabilities(const uint32_t *w, size_t n, const char *name, const compile_module_limits *lim,
                                       bool augmented) {
  for (size_t i = 5; i < n && (w[i] >> 16); i += w[i] >> 16) {
    if ((w[i] & 0xFFFFu) != SpvOpCapability || (w[i] >> 16) < 2 || i + 1 >= n) continue;
    uint32_t c = w[i + 1];
    const struct cap *k = NULL;
    for (size_t j = 0; j < VKOCC_ARRAY_LEN(caps) && !k; j++)
      if (caps[j].cap == c) k = &caps[j];
    char buf[24];
    if (!k || k->need == REFUSED)
      return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: capability %s is not one vkocc can check against %s (it "
                        "enables no extension feature beyond the shader clock): refused rather than handed to the "
                        "driver", name, cap_name(c, buf), lim->device);
    if (k->need == FREE) continue;
    if (k->need & SUBGROUP) {
      uint32_t bit = k->need & 0xFF;
      if (!(lim->subgroup_ops & bit))
        return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: capability %s needs subgroup operations 0x%x in the compute "
                          "stage; %s offers 0x%x (VkPhysicalDeviceSubgroupProperties::supportedOperations)", name,
                          k->name, bit, lim->device, lim->subgroup_ops);
      continue;
    }
    if (k->need & FEAT2) {
      unsigned a = (k->need >> 5) & 31, b = k->need & 31;
      if (!(lim->enabled >> a & 1) && !(lim->enabled >> b & 1)) return feature_missing(name, lim, k->name, a);
      continue;
    }
    /* vkocc adds the clock when it augments, and checks the device clock itself then */
    if (c == SpvCapabilityShaderClockKHR && augmented) continue;
    if (!(lim->enabled >> k->need & 1)) return feature_missing(name, lim, k->name, k->need);
  }
  return VKOCC_OK;
}

/* The highest DescriptorSet decoration of the module, whatever its value (a value the walker's bit set does
 * not hold is still a set the layout would need). */
static uint64_t max_set_plus1(const uint32_t *w, size_t n) {
  uint64_t m = 0;
  for (size_t i = 5; i < n && (w[i] >> 16); i += w[i] >> 16)
    if ((w[i] & 0xFFFFu) == SpvOpDecorate && (w[i] >> 16) >= 4 && i + 3 < n && w[i + 2] == SpvDecorationDescriptorSet &&
        (uint64_t)w[i + 3] + 1 > m)
      m = (uint64_t)w[i + 3] + 1;
  return m;
}

static const char *type_name(uint32_t t) {
  switch (t) {
  case VK_DESCRIPTOR_TYPE_SAMPLER: return "sampler";
  case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER: return "combined image sampler";
  case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE: return "sampled image";
  case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE: return "storage image";
  case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER: return "uniform texel buffer";
  case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: return "storage texel buffer";
  case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER: return "uniform buffer";
  case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER: return "storage buffer";
  default: return "descriptor";
  }
}

static vkocc_status over(const char *name, const char *what, uint64_t have, const char *limit, uint32_t max,
                         const char *device) {
  return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: %s: %llu, above %s = %u of %s", name, what,
                    (unsigned long long)have, limit, max, device);
}

vkocc_status compile_module_contract(const uint32_t *spv, size_t words, const char *name, const compile_spirv_info *info,
                                   const compile_reflection *refl, const vkocc_spec_value *spec, uint32_t nspec,
                                   bool augmented, const compile_module_limits *lim) {
  const char *dev = lim->device ? lim->device : "the device";
  /* specialization constants: at most what vkocc maps, each ID once (two map entries with one ID are
   * invalid Vulkan) */
  if (nspec > VKOCC_BIND_MAX_SPEC)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %u specialization constants given; vkocc maps at most %u", name, nspec,
                      VKOCC_BIND_MAX_SPEC);
  for (uint32_t i = 0; i < nspec; i++)
    for (uint32_t j = 0; j < i; j++)
      if (spec[i].id == spec[j].id)
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: specialization constant %u given twice (values %g and %g)", name,
                          spec[i].id, spec[j].value, spec[i].value);
  /* each value representable in its constant's type (an integer constant takes a whole number) */
  for (uint32_t i = 0; i < nspec; i++) {
    const compile_reflect_spec *c = NULL;
    for (uint32_t k = 0; k < refl->nspecs && !c; k++)
      if (refl->specs[k].id == spec[i].id) c = &refl->specs[k];
    double v = spec[i].value;
    if (!c || c->is_bool || c->is_float) {
      if (c && c->is_float && c->bytes == 4 && !(v >= -3.4028234663852886e38 && v <= 3.4028234663852886e38))
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: specialization constant %u = %g does not fit a 32-bit float", name,
                          spec[i].id, v);
      continue;
    }
    double lo = c->is_signed ? (c->bytes == 8 ? -9223372036854775808.0 : -2147483648.0) : 0;
    double hi = c->is_signed ? (c->bytes == 8 ? 9223372036854775807.0 : 2147483647.0)
                             : (c->bytes == 8 ? 9223372036854775807.0 : 4294967295.0);
    if (!(v >= lo && v <= hi && v == floor(v)))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: specialization constant %u = %g is not %s %u-bit integer (%.0f..%.0f)",
                        name, spec[i].id, v, c->is_signed ? "a signed" : "an unsigned", c->bytes * 8, lo, hi);
  }
  /* the workgroup: each dimension and the 64-bit product (a 32-bit product wraps: 65536 x 65536 x 1 = 0) */
  uint64_t inv = (uint64_t)info->wg[0] * info->wg[1] * info->wg[2];
  for (int k = 0; k < 3; k++)
    if (lim->max_wg_size[k] && info->wg[k] > lim->max_wg_size[k])
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: workgroup %ux%ux%u: dimension %c = %u is above "
                        "maxComputeWorkGroupSize[%d] = %u of %s", name, info->wg[0], info->wg[1], info->wg[2],
                        "xyz"[k], info->wg[k], k, lim->max_wg_size[k], dev);
  if (inv > lim->max_invocations)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: workgroup %ux%ux%u = %llu invocations is above "
                      "maxComputeWorkGroupInvocations = %u of %s", name, info->wg[0], info->wg[1], info->wg[2],
                      (unsigned long long)inv, lim->max_invocations, dev);
  if (info->shared_bytes > lim->max_shared_bytes)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s%u bytes of shared memory is above maxComputeSharedMemorySize = %u of "
                      "%s", name, info->shared_bytes == UINT32_MAX ? "at least " : "", info->shared_bytes,
                      lim->max_shared_bytes, dev);
  vkocc_status s = check_capabilities(spv, words, name, lim, augmented);
  if (s) return s;
  /* sets: every DescriptorSet decoration, plus vkocc's set */
  uint64_t sets = max_set_plus1(spv, words);
  if (augmented && (uint64_t)info->first_free_set + 1 > sets) sets = (uint64_t)info->first_free_set + 1;
  for (uint32_t i = 0; i < refl->nbindings; i++)
    if ((uint64_t)refl->bindings[i].set + 1 > sets) sets = (uint64_t)refl->bindings[i].set + 1;
  if (sets > lim->max_bound_sets)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: the pipeline layout needs %llu descriptor sets (set indices 0..%llu%s), "
                      "above maxBoundDescriptorSets = %u of %s", name, (unsigned long long)sets,
                      (unsigned long long)sets - 1, augmented ? ", vkocc's set included" : "", lim->max_bound_sets, dev);
  if (sets > VKOCC_BIND_MAX_SETS)
    return over(name, "descriptor sets", sets, "the sets vkocc binds", VKOCC_BIND_MAX_SETS, dev);
  /* bindings: per set (vkocc's fixed layout table), binding numbers, array sizes; per-stage totals */
  uint64_t samplers = 0, ubo = 0, ssbo = augmented ? 1 : 0, sampled = 0, storage_img = 0, total = augmented ? 1 : 0;
  for (uint32_t i = 0; i < refl->nbindings; i++) {
    const compile_reflect_binding *b = &refl->bindings[i];
    if (b->binding > VKOCC_BIND_MAX_BINDING)
      return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: set %u binding %u: binding numbers above %u are not bound by "
                        "vkocc", name, b->set, b->binding, VKOCC_BIND_MAX_BINDING);
    uint32_t in_set = (augmented && b->set == info->first_free_set) ? 1 : 0;
    for (uint32_t j = 0; j < refl->nbindings; j++) in_set += refl->bindings[j].set == b->set;
    if (in_set > VKOCC_BIND_MAX_PER_SET)
      return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: set %u has %u bindings; vkocc binds at most %u per set", name,
                        b->set, in_set, VKOCC_BIND_MAX_PER_SET);
    for (uint32_t j = 0; j < i; j++)
      if (refl->bindings[j].set == b->set && refl->bindings[j].binding == b->binding)
        return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: set %u binding %u is declared twice (as %s and %s): vkocc binds "
                          "one descriptor per binding", name, b->set, b->binding, type_name(refl->bindings[j].type),
                          type_name(b->type));
    uint64_t c = b->count;
    total += c;
    switch (b->type) {
    case VK_DESCRIPTOR_TYPE_SAMPLER: samplers += c; break;
    case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER: samplers += c, sampled += c; break;
    case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE: case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER: sampled += c; break;
    case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE: case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: storage_img += c; break;
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER: ubo += c; break;
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER: ssbo += c; break;
    default: break;
    }
    if (b->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER && b->size > lim->max_uniform_range) {
      char what[96];
      snprintf(what, sizeof what, "uniform buffer at set %u binding %u, bytes declared", b->set, b->binding);
      return over(name, what, b->size, "maxUniformBufferRange", lim->max_uniform_range, dev);
    }
    if (b->type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER && b->size > lim->max_storage_range) {
      char what[96];
      snprintf(what, sizeof what, "storage buffer at set %u binding %u, bytes declared", b->set, b->binding);
      return over(name, what, b->size, "maxStorageBufferRange", lim->max_storage_range, dev);
    }
    if (b->type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER && b->size > VKOCC_BIND_MAX_BUFFER)
      return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: storage buffer at set %u binding %u declares %u bytes; vkocc "
                        "binds zero-filled dummies of up to %u bytes", name, b->set, b->binding, b->size,
                        VKOCC_BIND_MAX_BUFFER);
  }
  const struct { uint64_t have; uint32_t max; const char *what, *limit; } per_stage[] = {
      {samplers, lim->per_stage_samplers, "samplers (incl. combined image samplers)", "maxPerStageDescriptorSamplers"},
      {ubo, lim->per_stage_uniform_buffers, "uniform buffers", "maxPerStageDescriptorUniformBuffers"},
      {ssbo, lim->per_stage_storage_buffers, augmented ? "storage buffers (vkocc's one included)" : "storage buffers",
       "maxPerStageDescriptorStorageBuffers"},
      {sampled, lim->per_stage_sampled_images, "sampled images (incl. combined samplers, uniform texel buffers)",
       "maxPerStageDescriptorSampledImages"},
      {storage_img, lim->per_stage_storage_images, "storage images (incl. storage texel buffers)",
       "maxPerStageDescriptorStorageImages"},
      {total, lim->per_stage_resources, "descriptors in all", "maxPerStageResources"},
  };
  for (size_t k = 0; k < VKOCC_ARRAY_LEN(per_stage); k++)
    if (per_stage[k].have > per_stage[k].max)
      return over(name, per_stage[k].what, per_stage[k].have, per_stage[k].limit, per_stage[k].max, dev);
  if (refl->push_bytes > lim->max_push_bytes)
    return over(name, "push-constant bytes", refl->push_bytes, "maxPushConstantsSize", lim->max_push_bytes, dev);
  if (refl->push_bytes > VKOCC_BIND_MAX_PUSH)
    return over(name, "push-constant bytes", refl->push_bytes, "the push constants vkocc binds", VKOCC_BIND_MAX_PUSH,
                dev);
  return VKOCC_OK;
}
