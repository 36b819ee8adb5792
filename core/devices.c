#include "internal.h"
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *vkocc_device_type_name(uint32_t t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
  default: return "other";
  }
}

void vkocc_format_api_version(uint32_t v, char out[32]) {
  snprintf(out, 32, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}

void vkocc_format_driver_version(uint32_t vendor, uint32_t v, char out[32]) {
  if (vendor == 0x10de) /* NVIDIA packs 10.8.8.6 bits */
    snprintf(out, 32, "%u.%u.%u.%u", v >> 22, (v >> 14) & 0xff, (v >> 6) & 0xff, v & 0x3f);
  else
    vkocc_format_api_version(v, out);
}

static bool has_extension(VkPhysicalDevice pd, const char *name) {
  uint32_t n = 0;
  /* a failed enumeration is no extension (VK_INCOMPLETE still lists the first n) */
  if (core_fn.vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) < 0) n = 0;
  VkExtensionProperties *e = util_xcalloc(n ? n : 1, sizeof *e);
  if (n && core_fn.vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e) < 0) n = 0;
  bool found = false;
  for (uint32_t i = 0; i < n && !found; i++) found = strcmp(e[i].extensionName, name) == 0;
  free(e);
  return found;
}

/* Vendor-reported core counts: properties2 chains only (nothing to enable), for a cross-check. */
static void fill_vendor_reported(VkPhysicalDevice pd, vkocc_vendor_reported *v) {
  memset(v, 0, sizeof *v);
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceShaderCorePropertiesAMD amd = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
  VkPhysicalDeviceShaderCoreProperties2AMD amd2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_2_AMD};
  VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM};
  bool has_nv = has_extension(pd, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  bool has_amd = has_extension(pd, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
  bool has_amd2 = has_amd && has_extension(pd, VK_AMD_SHADER_CORE_PROPERTIES_2_EXTENSION_NAME);
  bool has_arm = has_extension(pd, VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME);
  if (!has_nv && !has_amd && !has_arm) return;
  /* Chain only structs of extensions the device has: others are undefined behaviour to pass. */
  void *chain = NULL;
  if (has_nv) { nv.pNext = chain; chain = &nv; }
  if (has_amd) { amd.pNext = chain; chain = &amd; }
  if (has_amd2) { amd2.pNext = chain; chain = &amd2; }
  if (has_arm) { arm.pNext = chain; chain = &arm; }
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = chain};
  core_fn.vkGetPhysicalDeviceProperties2(pd, &p2);
  if (has_nv) {
    snprintf(v->source, sizeof v->source, "%s", VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    v->cores = nv.shaderSMCount;
    v->warps_per_core = nv.shaderWarpsPerSM;
  } else if (has_amd) {
    snprintf(v->source, sizeof v->source, "%s", has_amd2 ? "VK_AMD_shader_core_properties(2)"
                                                         : VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
    v->amd_shader_engines = amd.shaderEngineCount;
    v->amd_arrays_per_engine = amd.shaderArraysPerEngineCount;
    v->amd_cus_per_array = amd.computeUnitsPerShaderArray;
    v->amd_simds_per_cu = amd.simdPerComputeUnit;
    v->amd_wavefronts_per_simd = amd.wavefrontsPerSimd;
    v->amd_wavefront_size = amd.wavefrontSize;
    v->amd_active_cus = has_amd2 ? amd2.activeComputeUnitCount : 0;
    /* Harvested parts have fewer active CUs than engines x arrays x CUs per array: prefer the active count. */
    v->cores = v->amd_active_cus ? v->amd_active_cus
                                 : amd.shaderEngineCount * amd.shaderArraysPerEngineCount * amd.computeUnitsPerShaderArray;
    v->warps_per_core = amd.wavefrontsPerSimd * amd.simdPerComputeUnit;
  } else {
    snprintf(v->source, sizeof v->source, "%s", VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME);
    v->cores = arm.shaderCoreCount;
    v->warps_per_core = arm.shaderWarpsPerCore;
  }
}

void vkocc_vendor_check_compute(const vkocc_vendor_reported *v, const vkocc_derived *d, vkocc_vendor_check *out) {
  memset(out, 0, sizeof *out);
  out->available = v->source[0] != 0;
  if (!out->available) return;
  out->sm_reported = v->cores;
  out->sm_measured = d->sm_count;
  out->sm_agree = v->cores == d->sm_count;
  out->subgroups_reported = v->warps_per_core;
  out->subgroups_measured = d->subgroups_per_sm;
  out->subgroups_measured_is_lower_bound = !d->subgroups_bound_seen;
  out->subgroups_agree = v->warps_per_core && (d->subgroups_bound_seen ? d->subgroups_per_sm == v->warps_per_core
                                                                        : d->subgroups_per_sm <= v->warps_per_core);
}

void core_fill_device_info(VkPhysicalDevice pd, uint32_t index, vkocc_device_info *info) {
  memset(info, 0, sizeof *info);
  info->index = index;
  VkPhysicalDeviceProperties base;
  core_fn.vkGetPhysicalDeviceProperties(pd, &base);
  bool v12 = base.apiVersion >= VK_API_VERSION_1_2 || has_extension(pd, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  VkPhysicalDeviceDriverProperties drv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties sg = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES, .pNext = &sg};
  if (v12) sg.pNext = &drv;
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
  core_fn.vkGetPhysicalDeviceProperties2(pd, &p2);
  const VkPhysicalDeviceProperties *p = &p2.properties;
  snprintf(info->name, sizeof info->name, "%s", p->deviceName);
  info->vendor_id = p->vendorID;
  info->device_id = p->deviceID;
  info->device_type = p->deviceType;
  info->driver_version = p->driverVersion;
  info->api_version = p->apiVersion;
  if (v12) {
    snprintf(info->driver_name, sizeof info->driver_name, "%s", drv.driverName);
    snprintf(info->driver_info, sizeof info->driver_info, "%s", drv.driverInfo);
  }
  memcpy(info->uuid, id.deviceUUID, 16);
  info->subgroup_size = sg.subgroupSize;
  info->max_shared_bytes = p->limits.maxComputeSharedMemorySize;
  info->max_invocations = p->limits.maxComputeWorkGroupInvocations;
  info->max_wg_size_x = p->limits.maxComputeWorkGroupSize[0];
  info->max_wg_count_x = p->limits.maxComputeWorkGroupCount[0];
  info->timestamp_period = p->limits.timestampPeriod;
  info->timestamp_compute_and_graphics = p->limits.timestampComputeAndGraphics;

  uint32_t nq = 0;
  core_fn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
  VkQueueFamilyProperties *q = util_xcalloc(nq ? nq : 1, sizeof *q);
  core_fn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, q);
  info->queue_family_count = nq < VKOCC_MAX_QUEUE_FAMILIES ? nq : VKOCC_MAX_QUEUE_FAMILIES;
  for (uint32_t i = 0; i < info->queue_family_count; i++) {
    info->queue_families[i].flags = q[i].queueFlags;
    info->queue_families[i].queue_count = q[i].queueCount;
    info->queue_families[i].timestamp_valid_bits = q[i].timestampValidBits;
  }
  free(q);
  /* The default choice (--queue compute). Failing that, the first compute family, so the context can say
   * that it lacks timestamps. */
  uint32_t fam = UINT32_MAX;
  bool fell_back;
  if (vkocc_select_queue_family(info, NULL, "--queue", &fam, &fell_back) != VKOCC_OK) {
    vkocc_clear_error();
    for (uint32_t i = 0; i < info->queue_family_count && fam == UINT32_MAX; i++)
      if (info->queue_families[i].flags & VK_QUEUE_COMPUTE_BIT) fam = i;
  }
  vkocc_device_use_queue_family(info, fam, "compute");

  info->has_shader_clock_ext = has_extension(pd, VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  if (info->has_shader_clock_ext) {
    VkPhysicalDeviceShaderClockFeaturesKHR clk = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &clk};
    core_fn.vkGetPhysicalDeviceFeatures2(pd, &f2);
    info->shader_subgroup_clock = clk.shaderSubgroupClock;
    info->shader_device_clock = clk.shaderDeviceClock;
  }
  fill_vendor_reported(pd, &info->vendor);
}

void vkocc_format_queue_flags(uint32_t f, char out[96]) {
  static const struct { uint32_t bit; const char *name; } names[] = {
      {VK_QUEUE_GRAPHICS_BIT, "graphics"}, {VK_QUEUE_COMPUTE_BIT, "compute"}, {VK_QUEUE_TRANSFER_BIT, "transfer"},
      {VK_QUEUE_SPARSE_BINDING_BIT, "sparse"}, {VK_QUEUE_PROTECTED_BIT, "protected"}};
  size_t off = 0;
  out[0] = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (f & names[i].bit) {
      off += (size_t)snprintf(out + off, 96 - off, "%s%s", off ? "+" : "", names[i].name);
      f &= ~names[i].bit;
    }
  if (f) snprintf(out + off, 96 - off, "%s0x%x", off ? "+" : "", f); /* video and later bits */
  else if (!off) snprintf(out, 96, "none");
}

const char *vkocc_queue_kind_name(uint32_t f) {
  if (!f) return "unknown";
  if (!(f & VK_QUEUE_COMPUTE_BIT)) return "other";
  return f & VK_QUEUE_GRAPHICS_BIT ? "graphics+compute" : "compute-only";
}

void vkocc_device_use_queue_family(vkocc_device_info *d, uint32_t family, const char *choice) {
  d->compute_queue_family = family;
  bool known = family < d->queue_family_count;
  d->compute_queue_flags = known ? d->queue_families[family].flags : 0;
  d->timestamp_valid_bits = known ? d->queue_families[family].timestamp_valid_bits : 0;
  snprintf(d->queue_choice, sizeof d->queue_choice, "%s", choice);
}

/* "0 graphics+compute+transfer (64-bit timestamps); 1 transfer; ..." for error messages */
static void list_families(const vkocc_device_info *d, char *out, size_t len) {
  size_t off = 0;
  out[0] = 0;
  for (uint32_t i = 0; i < d->queue_family_count && off < len - 1; i++) {
    char fl[96], ts[40] = ", no timestamps";
    vkocc_format_queue_flags(d->queue_families[i].flags, fl);
    if (d->queue_families[i].timestamp_valid_bits)
      snprintf(ts, sizeof ts, ", %u-bit timestamps", d->queue_families[i].timestamp_valid_bits);
    off += (size_t)snprintf(out + off, len - off, "%s%u %s%s", i ? "; " : "", i, fl, ts);
  }
  if (!d->queue_family_count) snprintf(out, len, "none");
}

vkocc_status vkocc_select_queue_family(const vkocc_device_info *d, const char *spec, const char *source,
                                       uint32_t *family, bool *fell_back) {
  vkocc_clear_error(); /* vkocc.h: a call that succeeds leaves no message behind */
  char list[1200];
  *fell_back = false;
  if (!source) source = "--queue";
  bool want_gfx = spec && !strcasecmp(spec, "graphics");
  if (!spec || !*spec || !strcasecmp(spec, "compute") || want_gfx) {
    /* pass 0: compute-only (for "compute"); pass 1: graphics+compute. Both need timestamps. */
    for (int pass = want_gfx ? 1 : 0; pass < 2; pass++)
      for (uint32_t i = 0; i < d->queue_family_count; i++) {
        uint32_t f = d->queue_families[i].flags;
        bool gfx = f & VK_QUEUE_GRAPHICS_BIT;
        if ((f & VK_QUEUE_COMPUTE_BIT) && d->queue_families[i].timestamp_valid_bits && gfx == (pass == 1)) {
          *family = i;
          *fell_back = pass == 1 && !want_gfx;
          return VKOCC_OK;
        }
      }
    list_families(d, list, sizeof list);
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s %s: %s has no %s queue family with timestamps; families: %s",
                      source, want_gfx ? "graphics" : "compute", d->name, want_gfx ? "graphics+compute" : "compute",
                      list);
  }
  bool digits = isdigit((unsigned char)spec[0]);
  for (const char *c = spec; *c && digits; c++) digits = isdigit((unsigned char)*c);
  list_families(d, list, sizeof list);
  if (!digits)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s '%s': expected compute, graphics or a queue family index; %s "
                      "families: %s", source, spec, d->name, list);
  unsigned long v = strlen(spec) > 6 ? ULONG_MAX : strtoul(spec, NULL, 10);
  if (v >= d->queue_family_count)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s '%s': %s has no queue family %s; families: %s", source, spec, d->name,
                      spec, list);
  if (!(d->queue_families[v].flags & VK_QUEUE_COMPUTE_BIT))
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s %lu: queue family %lu of %s has no compute; families: %s",
                      source, v, v, d->name, list);
  if (!d->queue_families[v].timestamp_valid_bits)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s %lu: queue family %lu of %s has no timestamps "
                      "(timestampValidBits = 0), which vkocc needs; families: %s", source, v, v, d->name, list);
  *family = (uint32_t)v;
  return VKOCC_OK;
}

vkocc_status vkocc_enumerate_devices(vkocc_device_info **devices, uint32_t *count) {
  vkocc_clear_error();
  *devices = NULL;
  *count = 0;
  VkInstance inst;
  vkocc_status s = core_instance_create(&inst);
  if (s) return s;
  uint32_t n = 0;
  VkResult r = core_fn.vkEnumeratePhysicalDevices(inst, &n, NULL);
  if (r != VK_SUCCESS || n == 0) {
    core_fn.vkDestroyInstance(inst, NULL);
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "no Vulkan device: the loader found no physical device (%s); "
                      "install a driver, e.g. mesa-vulkan-drivers for lavapipe", core_vk_result_name(r));
  }
  VkPhysicalDevice *pds = util_xcalloc(n, sizeof *pds);
  if ((r = core_fn.vkEnumeratePhysicalDevices(inst, &n, pds)) < 0 || n == 0) {
    free(pds);
    core_fn.vkDestroyInstance(inst, NULL);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "vkEnumeratePhysicalDevices: %s", core_vk_result_name(r));
  }
  vkocc_device_info *infos = util_xcalloc(n, sizeof *infos);
  for (uint32_t i = 0; i < n; i++) core_fill_device_info(pds[i], i, &infos[i]);
  free(pds);
  core_fn.vkDestroyInstance(inst, NULL);
  *devices = infos;
  *count = n;
  return VKOCC_OK;
}

static int type_rank(uint32_t t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
  default: return 4;
  }
}

/* Parses 32 hex digits with optional dashes. */
static bool parse_uuid(const char *s, uint8_t out[16]) {
  int nib = 0;
  for (; *s; s++) {
    if (*s == '-') continue;
    if (!isxdigit((unsigned char)*s) || nib >= 32) return false;
    int v = isdigit((unsigned char)*s) ? *s - '0' : tolower((unsigned char)*s) - 'a' + 10;
    if (nib % 2 == 0) out[nib / 2] = (uint8_t)(v << 4);
    else out[nib / 2] |= (uint8_t)v;
    nib++;
  }
  return nib == 32;
}

static bool contains_ci(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (strncasecmp(hay, needle, n) == 0) return true;
  return n == 0;
}

static vkocc_status no_match(const vkocc_device_info *d, uint32_t n, const char *source, const char *spec,
                             const char *why) {
  char list[768] = "";
  size_t off = 0;
  for (uint32_t i = 0; i < n && off < sizeof list - 1; i++)
    off += (size_t)snprintf(list + off, sizeof list - off, "%s%u: %s", i ? "; " : "", i, d[i].name);
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s '%s' %s; devices: %s", source, spec, why, list);
}

vkocc_status vkocc_select_device(const vkocc_device_info *d, uint32_t n, const char *spec, uint32_t *index) {
  vkocc_clear_error();
  return vkocc_select_device_from(d, n, spec, "--device", index);
}

vkocc_status vkocc_select_device_from(const vkocc_device_info *d, uint32_t n, const char *spec, const char *source,
                                      uint32_t *index) {
  if (n == 0) return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "no Vulkan device");
  if (!spec || !*spec) {
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
      if (type_rank(d[i].device_type) < type_rank(d[best].device_type)) best = i;
    *index = best;
    return VKOCC_OK;
  }
  char *end;
  unsigned long v = strtoul(spec, &end, 10);
  if (*end == 0 && isdigit((unsigned char)spec[0])) {
    if (v >= n) return no_match(d, n, source, spec, "is not a device index");
    *index = (uint32_t)v;
    return VKOCC_OK;
  }
  uint8_t uuid[16];
  if (parse_uuid(spec, uuid)) {
    for (uint32_t i = 0; i < n; i++)
      if (memcmp(uuid, d[i].uuid, 16) == 0) { *index = i; return VKOCC_OK; }
    return no_match(d, n, source, spec, "matches no device UUID");
  }
  uint32_t found = UINT32_MAX, hits = 0;
  for (uint32_t i = 0; i < n; i++)
    if (contains_ci(d[i].name, spec)) { if (!hits) found = i; hits++; }
  if (hits == 0) return no_match(d, n, source, spec, "matches no device");
  if (hits > 1) return no_match(d, n, source, spec, "matches several devices (use the index or UUID)");
  *index = found;
  return VKOCC_OK;
}

bool core_device_has_extension(VkPhysicalDevice pd, const char *name) { return has_extension(pd, name); }
