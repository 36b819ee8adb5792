/* The register file as the vendor reports it (VK_AMD_shader_core_properties): properties2 only, nothing enabled;
 * a cross-check beside the measured register model (cli/registers.c), never an input of a measurement. */
#include "internal.h"
#include <stdio.h>
#include <string.h>

void vkocc_vendor_registers_get(const vkocc_context *ctx, vkocc_vendor_registers *out) {
  memset(out, 0, sizeof *out);
  if (!ctx || !core_device_has_extension(ctx->phys, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME)) return;
  VkPhysicalDeviceShaderCorePropertiesAMD amd = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &amd};
  core_fn.vkGetPhysicalDeviceProperties2(ctx->phys, &p2);
  snprintf(out->source, sizeof out->source, "%s", VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
  out->vgprs_per_simd = amd.vgprsPerSimd;
  out->vgpr_granularity = amd.vgprAllocationGranularity;
  out->min_vgprs = amd.minVgprAllocation;
  out->max_vgprs = amd.maxVgprAllocation;
  out->sgprs_per_simd = amd.sgprsPerSimd;
  out->simds_per_cu = amd.simdPerComputeUnit;
  out->wavefront_size = amd.wavefrontSize;
  uint64_t r = (uint64_t)amd.vgprsPerSimd * amd.wavefrontSize * amd.simdPerComputeUnit;
  out->regs_per_sm = r > UINT32_MAX ? 0 : (uint32_t)r;
}
