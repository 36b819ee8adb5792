/* Shared-memory carveout experiment: P of sleeping-comb variants at one workgroup size
 * over several shared sizes, plus the driver's pipeline-executable statistics for each pipeline.
 *
 *   carveout MANIFEST OUT.json [--wg 64] [--sizes 2048,4096,...] [--groups N] [--sleep-ticks T] [--reps R]
 *            [--bindings 2|3] [--no-int64] [--no-execprops] [--cache] [--rec-cached] [--warm-short] [--ramp]
 *
 * Host switches (each moves one host-side habit towards what `vkocc probe` does):
 *   --bindings 2   descriptor set layout of 2 buffers (vkocc's) instead of 3 (the NO_PUSH variant needs 3)
 *   --no-int64     do not enable shaderInt64 (vkocc does not; CLK64 variants then cannot run)
 *   --no-execprops do not enable VK_KHR_pipeline_executable_properties (no statistics then)
 *   --cache        create pipelines through a VkPipelineCache (vkocc persists one)
 *   --rec-cached   32 MiB host-cached record buffer (vkocc's) instead of a small host-coherent one
 *   --warm-short   warm-up dispatch of 256 workgroups that sleep 1 tick (vkocc's) instead of one 1-tick wave
 *   --ramp         before measuring, dispatch 2, 4, 8, ... workgroups with the sleep, up to --groups (vkocc's
 *                  comb grows its dispatch that way)
 *   --queue-family N  submit on queue family N (default: the first with compute, on NVIDIA the graphics
 *                  family 0; vkocc prefers a compute-only family)
 *   --pre SPV:BYTES before every dispatch, in the same command buffer, one 1-tick wave of another pipeline
 *                  (SPV with BYTES of shared memory): does what ran just before change what the next gets?
 *
 * MANIFEST: one variant a line, "NAME SPV [capture]": SPV may hold "%u" for the shared bytes (a variant whose
 * array length is a literal); "capture" measures the pipeline created with the statistics-capture flags
 * (to see that the flags do not change what the driver grants). Every variant gets the same pipeline layout
 * (3 storage buffers, 24 bytes of push constants), so only the shader differs. The shader writes 8 words per
 * workgroup: realtime clock start lo/hi, end lo/hi, flags (1 written, 2 sleep cut by the iteration bound).
 * P = the largest number of sleeps that overlap for at least 2% of the median sleep.
 * Standalone on purpose: links only the Vulkan loader and jansson. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define CHECK(x)                                                                                              \
  do {                                                                                                        \
    VkResult r_ = (x);                                                                                        \
    if (r_ != VK_SUCCESS) { fprintf(stderr, "carveout: %s failed: VkResult %d (line %d)\n", #x, r_, __LINE__); exit(1); } \
  } while (0)

static VkDevice dev;
static VkPhysicalDevice phys;
static VkQueue queue;
static uint32_t qfam;
static VkPhysicalDeviceMemoryProperties memprops;
static bool have_exec_props;
static PFN_vkGetPipelineExecutablePropertiesKHR getExecProps;
static PFN_vkGetPipelineExecutableStatisticsKHR getExecStats;
static PFN_vkGetPipelineExecutableInternalRepresentationsKHR getExecIR;

typedef struct { VkBuffer b; VkDeviceMemory m; void *map; } buf;

static bool prefer_cached;
static buf make_buf(VkDeviceSize size, bool cached) {
  buf r = {0};
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
  CHECK(vkCreateBuffer(dev, &bci, NULL, &r.b));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, r.b, &req);
  VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; cached && i < memprops.memoryTypeCount && type == UINT32_MAX; i++)
    if ((req.memoryTypeBits & (1u << i)) &&
        (memprops.memoryTypes[i].propertyFlags & (want | VK_MEMORY_PROPERTY_HOST_CACHED_BIT)) ==
            (want | VK_MEMORY_PROPERTY_HOST_CACHED_BIT))
      type = i;
  for (uint32_t i = 0; i < memprops.memoryTypeCount && type == UINT32_MAX; i++)
    if ((req.memoryTypeBits & (1u << i)) && (memprops.memoryTypes[i].propertyFlags & want) == want) type = i;
  if (type == UINT32_MAX) { fprintf(stderr, "carveout: no host-visible memory\n"); exit(1); }
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                              .memoryTypeIndex = type};
  CHECK(vkAllocateMemory(dev, &mai, NULL, &r.m));
  CHECK(vkBindBufferMemory(dev, r.b, r.m, 0));
  CHECK(vkMapMemory(dev, r.m, 0, VK_WHOLE_SIZE, 0, &r.map));
  return r;
}

static void *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "carveout: cannot open %s\n", path); exit(2); }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *d = malloc((size_t)n + 1);
  if (fread(d, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "carveout: cannot read %s\n", path); exit(2); }
  fclose(f);
  *len = (size_t)n;
  return d;
}

typedef struct { double t; int d; } event;
static int cmp_ev(const void *a, const void *b) {
  const event *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->d - y->d; /* ends before starts at equal times */
}
static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct {
  uint32_t P, valid, cut_short, first_wave;
  double median_sleep_ticks, span_ticks, queue_ms;
} comb_result;

/* Max overlap held for >= 2% of the median sleep (as vkocc's comb), plus the count of starts within half a
 * median sleep of the first start (the first wave). */
static comb_result analyse(const uint32_t *rec, uint32_t n) {
  comb_result out = {0};
  event *ev = malloc(2 * n * sizeof *ev);
  double *len = malloc(n * sizeof *len), *st = malloc(n * sizeof *st);
  uint64_t t0 = UINT64_MAX, tmax = 0;
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t *x = rec + 8 * i;
    uint64_t a = x[0] | (uint64_t)x[1] << 32;
    if ((x[4] & 1) && a < t0) t0 = a;
  }
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t *x = rec + 8 * i;
    if (x[4] & 2) out.cut_short++;
    uint64_t a = x[0] | (uint64_t)x[1] << 32, b = x[2] | (uint64_t)x[3] << 32;
    if (!(x[4] & 1) || b < a) continue;
    ev[2 * m] = (event){(double)(a - t0), +1};
    ev[2 * m + 1] = (event){(double)(b - t0), -1};
    len[m] = (double)(b - a);
    st[m] = (double)(a - t0);
    if (b > tmax) tmax = b;
    m++;
  }
  out.valid = m;
  if (!m) goto done;
  out.span_ticks = (double)(tmax - t0);
  qsort(len, m, sizeof *len, cmp_dbl);
  out.median_sleep_ticks = len[m / 2];
  qsort(st, m, sizeof *st, cmp_dbl);
  for (uint32_t i = 0; i < m && st[i] - st[0] <= 0.5 * out.median_sleep_ticks; i++) out.first_wave++;
  qsort(ev, 2 * m, sizeof *ev, cmp_ev);
  double *dwell = calloc(m + 1, sizeof *dwell);
  int level = 0;
  for (uint32_t i = 0; i + 1 < 2 * m; i++) {
    level += ev[i].d;
    if (level > 0) dwell[level] += ev[i + 1].t - ev[i].t;
  }
  double at_least = 0, min_dwell = 0.02 * out.median_sleep_ticks;
  for (uint32_t l = m; l >= 1; l--) {
    at_least += dwell[l];
    if (at_least >= min_dwell) { out.P = l; break; }
  }
  free(dwell);
done:
  free(ev); free(len); free(st);
  return out;
}

static json_t *exec_stats(VkPipeline p) {
  json_t *arr = json_array();
  VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = p};
  uint32_t ne = 0;
  if (getExecProps(dev, &pi, &ne, NULL) != VK_SUCCESS) return arr;
  VkPipelineExecutablePropertiesKHR *ep = calloc(ne ? ne : 1, sizeof *ep);
  for (uint32_t i = 0; i < ne; i++) ep[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
  getExecProps(dev, &pi, &ne, ep);
  for (uint32_t e = 0; e < ne; e++) {
    json_t *o = json_pack("{s:s, s:s, s:I}", "name", ep[e].name, "description", ep[e].description, "subgroup_size",
                          (json_int_t)ep[e].subgroupSize);
    VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = p,
                                      .executableIndex = e};
    uint32_t ns = 0;
    getExecStats(dev, &ei, &ns, NULL);
    VkPipelineExecutableStatisticKHR *s = calloc(ns ? ns : 1, sizeof *s);
    for (uint32_t i = 0; i < ns; i++) s[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
    getExecStats(dev, &ei, &ns, s);
    json_t *stats = json_object();
    for (uint32_t i = 0; i < ns; i++) {
      json_t *v;
      switch (s[i].format) {
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: v = json_boolean(s[i].value.b32); break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: v = json_integer(s[i].value.i64); break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: v = json_integer((json_int_t)s[i].value.u64); break;
      default: v = json_real(s[i].value.f64); break;
      }
      json_object_set_new(stats, s[i].name, v);
    }
    json_object_set_new(o, "statistics", stats);
    free(s);
    /* Internal representations: names and the first 2000 characters of text ones. */
    uint32_t nr = 0;
    json_t *irs = json_array();
    if (getExecIR(dev, &ei, &nr, NULL) == VK_SUCCESS && nr) {
      VkPipelineExecutableInternalRepresentationKHR *ir = calloc(nr, sizeof *ir);
      for (uint32_t i = 0; i < nr; i++) ir[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR;
      getExecIR(dev, &ei, &nr, ir);
      for (uint32_t i = 0; i < nr; i++) {
        ir[i].pData = calloc(ir[i].dataSize + 1, 1);
      }
      VkResult r = getExecIR(dev, &ei, &nr, ir);
      for (uint32_t i = 0; i < nr; i++) {
        json_t *x = json_pack("{s:s, s:s, s:b, s:I}", "name", ir[i].name, "description", ir[i].description, "text",
                              ir[i].isText, "bytes", (json_int_t)ir[i].dataSize);
        if ((r == VK_SUCCESS || r == VK_INCOMPLETE) && ir[i].isText && ir[i].pData) {
          char *t = ir[i].pData;
          t[ir[i].dataSize] = 0;
          json_object_set_new(x, "text_head", json_stringn(t, strnlen(t, 2000)));
        }
        json_array_append_new(irs, x);
        free(ir[i].pData);
      }
      free(ir);
    }
    json_object_set_new(o, "internal_representations", irs);
    json_array_append_new(arr, o);
  }
  free(ep);
  return arr;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: carveout MANIFEST OUT.json [--wg N] [--sizes a,b,..] [--groups N] [--sleep-ticks T] [--reps R]\n"); return 2; }
  uint32_t wg = 64, groups = 0, sleep_ticks = 1000000, reps = 2, nbind = 3;
  bool int64 = true, want_execprops = true, use_cache = false, warm_short = false, ramp = false;
  const char *pre_arg = NULL;
  int want_family = -1;
  uint32_t sizes[32] = {2048, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152}, nsizes = 9;
  for (int i = 3; i < argc; i += 2) {
    if (!strcmp(argv[i], "--no-int64")) { int64 = false; i--; continue; }
    if (!strcmp(argv[i], "--no-execprops")) { want_execprops = false; i--; continue; }
    if (!strcmp(argv[i], "--cache")) { use_cache = true; i--; continue; }
    if (!strcmp(argv[i], "--rec-cached")) { prefer_cached = true; i--; continue; }
    if (!strcmp(argv[i], "--warm-short")) { warm_short = true; i--; continue; }
    if (!strcmp(argv[i], "--ramp")) { ramp = true; i--; continue; }
    if (i + 1 >= argc) { fprintf(stderr, "carveout: %s needs a value\n", argv[i]); return 2; }
    if (!strcmp(argv[i], "--pre")) pre_arg = argv[i + 1];
    else if (!strcmp(argv[i], "--queue-family")) want_family = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--bindings")) nbind = (uint32_t)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--wg")) wg = (uint32_t)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--groups")) groups = (uint32_t)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--sleep-ticks")) sleep_ticks = (uint32_t)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--reps")) reps = (uint32_t)atoi(argv[i + 1]) < 8 ? (uint32_t)atoi(argv[i + 1]) : 7;
    else if (!strcmp(argv[i], "--sizes")) {
      nsizes = 0;
      for (char *t = strtok(argv[i + 1], ","); t && nsizes < 32; t = strtok(NULL, ",")) sizes[nsizes++] = (uint32_t)atoi(t);
    } else { fprintf(stderr, "carveout: unknown option %s\n", argv[i]); return 2; }
  }

  VkApplicationInfo ai = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_2};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &ai};
  VkInstance inst;
  CHECK(vkCreateInstance(&ici, NULL, &inst));
  uint32_t npd = 8;
  VkPhysicalDevice pds[8];
  CHECK(vkEnumeratePhysicalDevices(inst, &npd, pds));
  const char *want = getenv("VKOCC_DEVICE");
  VkPhysicalDeviceProperties props;
  phys = VK_NULL_HANDLE;
  for (uint32_t i = 0; i < npd && !phys; i++) {
    vkGetPhysicalDeviceProperties(pds[i], &props);
    if (want ? strcasestr(props.deviceName, want) != NULL : props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)
      phys = pds[i];
  }
  if (!phys) { phys = pds[0]; vkGetPhysicalDeviceProperties(phys, &props); }
  vkGetPhysicalDeviceMemoryProperties(phys, &memprops);
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  uint32_t next = 0;
  vkEnumerateDeviceExtensionProperties(phys, NULL, &next, NULL);
  VkExtensionProperties *exts = calloc(next, sizeof *exts);
  vkEnumerateDeviceExtensionProperties(phys, NULL, &next, exts);
  bool has_nv = false;
  for (uint32_t i = 0; i < next; i++) {
    if (!strcmp(exts[i].extensionName, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) has_nv = true;
    if (!strcmp(exts[i].extensionName, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) have_exec_props = true;
  }
  have_exec_props &= want_execprops;
  if (nbind < 2 || nbind > 3) { fprintf(stderr, "carveout: --bindings is 2 or 3\n"); return 2; }
  if (has_nv) p2.pNext = &nv;
  vkGetPhysicalDeviceProperties2(phys, &p2);
  uint32_t sms = has_nv ? nv.shaderSMCount : 0;
  fprintf(stderr, "device %s, SMs %u (NV), pipeline executable properties %s\n", props.deviceName, sms,
          have_exec_props ? "yes" : "no");
  fflush(stderr);

  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, NULL);
  VkQueueFamilyProperties qf[16];
  if (nq > 16) nq = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qf);
  qfam = UINT32_MAX;
  for (uint32_t i = 0; i < nq && qfam == UINT32_MAX; i++)
    if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) qfam = i;
  if (want_family >= 0) {
    if ((uint32_t)want_family >= nq || !(qf[want_family].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
      fprintf(stderr, "carveout: queue family %d has no compute\n", want_family);
      return 2;
    }
    qfam = (uint32_t)want_family;
  }
  json_t *families = json_array();
  for (uint32_t i = 0; i < nq; i++)
    json_array_append_new(families, json_pack("{s:I, s:b, s:b, s:b, s:I}", "index", (json_int_t)i, "graphics",
                                              (qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0, "compute",
                                              (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0, "transfer",
                                              (qf[i].queueFlags & VK_QUEUE_TRANSFER_BIT) != 0, "queues",
                                              (json_int_t)qf[i].queueCount));

  VkPhysicalDeviceShaderClockFeaturesKHR clk = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR,
                                                .shaderDeviceClock = VK_TRUE, .shaderSubgroupClock = VK_TRUE};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pef = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
      .pipelineExecutableInfo = VK_TRUE, .pNext = &clk};
  VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                  .pNext = have_exec_props ? (void *)&pef : (void *)&clk,
                                  .features = {.shaderInt64 = int64}};
  const char *dext[] = {VK_KHR_SHADER_CLOCK_EXTENSION_NAME, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME};
  float prio = 1;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = qfam,
                                 .queueCount = 1, .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f2, .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qci, .enabledExtensionCount = have_exec_props ? 2 : 1,
                            .ppEnabledExtensionNames = dext};
  CHECK(vkCreateDevice(phys, &dci, NULL, &dev));
  vkGetDeviceQueue(dev, qfam, 0, &queue);
  if (have_exec_props) {
    getExecProps = (PFN_vkGetPipelineExecutablePropertiesKHR)vkGetDeviceProcAddr(dev, "vkGetPipelineExecutablePropertiesKHR");
    getExecStats = (PFN_vkGetPipelineExecutableStatisticsKHR)vkGetDeviceProcAddr(dev, "vkGetPipelineExecutableStatisticsKHR");
    getExecIR = (PFN_vkGetPipelineExecutableInternalRepresentationsKHR)vkGetDeviceProcAddr(
        dev, "vkGetPipelineExecutableInternalRepresentationsKHR");
    have_exec_props = getExecProps && getExecStats && getExecIR;
  }

  /* Enough workgroups for any per-SM count up to 40 (the hardware caps wg 64 at 32 per SM). */
  if (!groups) groups = (sms ? sms : 128) * 40;
  VkDeviceSize rec_bytes = prefer_cached ? (32u << 20) : (VkDeviceSize)groups * 32;
  buf rec = make_buf(rec_bytes, prefer_cached), chase = make_buf(1 << 16, false), params = make_buf(64, false);
  VkPipelineCache cache = VK_NULL_HANDLE;
  if (use_cache) {
    VkPipelineCacheCreateInfo pcci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    CHECK(vkCreatePipelineCache(dev, &pcci, NULL, &cache));
  }
  uint32_t *cm = chase.map;
  for (uint32_t i = 0; i < (1 << 14); i++) cm[i] = (i * 7919u + 1u) & ((1 << 14) - 1);
  uint32_t push[6] = {0, sleep_ticks, 2000000u, 0, (1 << 14) - 1, 0x9e3779b9u};
  memcpy(params.map, push, sizeof push);

  VkDescriptorSetLayoutBinding b[3];
  for (uint32_t i = 0; i < 3; i++)
    b[i] = (VkDescriptorSetLayoutBinding){.binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkDescriptorSetLayoutCreateInfo dslci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           .bindingCount = nbind, .pBindings = b};
  VkDescriptorSetLayout dsl;
  CHECK(vkCreateDescriptorSetLayout(dev, &dslci, NULL, &dsl));
  VkPushConstantRange pcr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = sizeof push};
  VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                     .pSetLayouts = &dsl, .pushConstantRangeCount = 1, .pPushConstantRanges = &pcr};
  VkPipelineLayout layout;
  CHECK(vkCreatePipelineLayout(dev, &plci, NULL, &layout));
  VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = nbind};
  VkDescriptorPoolCreateInfo dpci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                     .poolSizeCount = 1, .pPoolSizes = &ps};
  VkDescriptorPool pool;
  CHECK(vkCreateDescriptorPool(dev, &dpci, NULL, &pool));
  VkDescriptorSetAllocateInfo dsai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = pool,
                                      .descriptorSetCount = 1, .pSetLayouts = &dsl};
  VkDescriptorSet set;
  CHECK(vkAllocateDescriptorSets(dev, &dsai, &set));
  VkDescriptorBufferInfo bi[3] = {{rec.b, 0, VK_WHOLE_SIZE}, {chase.b, 0, VK_WHOLE_SIZE}, {params.b, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet w[3];
  for (uint32_t i = 0; i < 3; i++)
    w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = i,
                                  .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &bi[i]};
  vkUpdateDescriptorSets(dev, nbind, w, 0, NULL);

  VkCommandPoolCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = qfam};
  VkCommandPool cpool;
  CHECK(vkCreateCommandPool(dev, &cpci, NULL, &cpool));
  VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = cpool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  VkCommandBuffer cmd;
  CHECK(vkAllocateCommandBuffers(dev, &cbai, &cmd));
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  CHECK(vkCreateFence(dev, &fci, NULL, &fence));
  VkQueryPoolCreateInfo qpci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                .queryCount = 2};
  VkQueryPool qp;
  CHECK(vkCreateQueryPool(dev, &qpci, NULL, &qp));

  json_t *doc = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:b}", "schema", "vkocc.carveout/1", "device",
                          props.deviceName, "driver_version_raw", (json_int_t)props.driverVersion, "sm_count_nv",
                          (json_int_t)sms, "wg_size", (json_int_t)wg, "groups", (json_int_t)groups, "sleep_ticks",
                          (json_int_t)sleep_ticks, "executable_properties", have_exec_props);
  json_object_set_new(doc, "host", json_pack("{s:I, s:b, s:b, s:b, s:b, s:b, s:b, s:I}", "bindings", (json_int_t)nbind,
                                             "shader_int64", int64, "execprops_enabled", have_exec_props,
                                             "pipeline_cache", use_cache, "rec_cached", prefer_cached, "warm_short",
                                             warm_short, "ramp", ramp, "reps", (json_int_t)reps));
  json_object_set_new(json_object_get(doc, "host"), "queue_family", json_integer(qfam));
  json_object_set_new(doc, "queue_families", families);
  json_object_set_new(json_object_get(doc, "host"), "pre", pre_arg ? json_string(pre_arg) : json_null());
  VkPipeline pre = VK_NULL_HANDLE;
  if (pre_arg) {
    char pre_path[512];
    uint32_t pre_bytes = 0;
    const char *colon = strrchr(pre_arg, ':');
    if (!colon) { fprintf(stderr, "carveout: --pre SPV:BYTES\n"); return 2; }
    snprintf(pre_path, sizeof pre_path, "%.*s", (int)(colon - pre_arg), pre_arg);
    pre_bytes = (uint32_t)atoi(colon + 1);
    size_t pl;
    uint32_t *pspv = read_all(pre_path, &pl);
    VkShaderModuleCreateInfo psm = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = pl, .pCode = pspv};
    VkShaderModule pmod;
    CHECK(vkCreateShaderModule(dev, &psm, NULL, &pmod));
    uint32_t pspec[2] = {wg, pre_bytes / 4 ? pre_bytes / 4 : 1};
    VkSpecializationMapEntry pme[2] = {{0, 0, 4}, {1, 4, 4}};
    VkSpecializationInfo pspi = {.mapEntryCount = 2, .pMapEntries = pme, .dataSize = 8, .pData = pspec};
    VkComputePipelineCreateInfo pcpi = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = pmod, .pName = "main", .pSpecializationInfo = &pspi},
        .layout = layout};
    CHECK(vkCreateComputePipelines(dev, cache, 1, &pcpi, NULL, &pre));
    free(pspv);
  }
  json_t *variants = json_array();
  json_object_set_new(doc, "variants", variants);

  size_t mlen;
  char *manifest = read_all(argv[1], &mlen);
  manifest[mlen] = 0;
  printf("%-22s", "variant \\ shared B");
  for (uint32_t s = 0; s < nsizes; s++) printf(" %7u", sizes[s]);
  printf("   (P per SM; ! = runs disagree, c = sleeps cut short)\n");
  char *save = NULL;
  for (char *line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char name[128], pattern[512], flag[32] = "";
    if (line[0] == '#' || sscanf(line, "%127s %511s %31s", name, pattern, flag) < 2) continue;
    bool capture = !strcmp(flag, "capture");
    json_t *v = json_pack("{s:s, s:s, s:b}", "name", name, "spv", pattern, "measured_with_capture_flags", capture);
    json_t *pts = json_array();
    json_object_set_new(v, "points", pts);
    json_array_append_new(variants, v);
    printf("%-22s", name);
    fflush(stdout);
    for (uint32_t si = 0; si < nsizes; si++) {
      uint32_t S = sizes[si];
      char path[600];
      snprintf(path, sizeof path, pattern, S);
      size_t spv_len;
      uint32_t *spv = read_all(path, &spv_len);
      VkShaderModuleCreateInfo smci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = spv_len,
                                       .pCode = spv};
      VkShaderModule mod;
      CHECK(vkCreateShaderModule(dev, &smci, NULL, &mod));
      uint32_t spec[2] = {wg, S / 4 ? S / 4 : 1};
      VkSpecializationMapEntry me[2] = {{0, 0, 4}, {1, 4, 4}};
      VkSpecializationInfo spi = {.mapEntryCount = 2, .pMapEntries = me, .dataSize = 8, .pData = spec};
      VkComputePipelineCreateInfo cpi = {
          .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
          .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                    .module = mod, .pName = "main", .pSpecializationInfo = &spi},
          .layout = layout};
      const VkPipelineCreateFlags capflags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
                                             VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
      VkPipeline pipe, statpipe = VK_NULL_HANDLE;
      cpi.flags = capture && have_exec_props ? capflags : 0;
      CHECK(vkCreateComputePipelines(dev, cache, 1, &cpi, NULL, &pipe));
      json_t *pt = json_pack("{s:I, s:s}", "shared_bytes", (json_int_t)S, "spv", path);
      if (have_exec_props) {
        /* statistics from a separate pipeline with the capture flags, so the measured one is the plain one */
        cpi.flags = capflags;
        if (capture) statpipe = pipe;
        else CHECK(vkCreateComputePipelines(dev, cache, 1, &cpi, NULL, &statpipe));
        json_object_set_new(pt, "executables", exec_stats(statpipe));
        if (statpipe != pipe) vkDestroyPipeline(dev, statpipe, NULL);
      }
      json_t *runs = json_array();
      json_object_set_new(pt, "runs", runs);
      uint32_t Ps[8] = {0}, cut = 0;
      /* dispatch list: warm-up (discarded), optional ramp (discarded), then the measured repetitions */
      uint32_t plan_n[64], plan_ticks[64], nplan = 0, first_measured;
      plan_n[nplan] = warm_short ? 256 : (sms ? sms : 128);
      plan_ticks[nplan++] = 1;
      for (uint32_t g = 2; ramp && g < groups && nplan < 40; g *= 2) { plan_n[nplan] = g; plan_ticks[nplan++] = sleep_ticks; }
      first_measured = nplan;
      for (uint32_t r = 0; r < reps; r++) { plan_n[nplan] = groups; plan_ticks[nplan++] = sleep_ticks; }
      json_t *ramp_P = json_array();
      json_object_set_new(pt, "ramp_P", ramp_P);
      for (uint32_t r = 0; r < nplan; r++) {
        uint32_t n = plan_n[r];
        push[1] = plan_ticks[r];
        memcpy(params.map, push, sizeof push);
        memset(rec.map, 0, (size_t)groups * 32);
        VkCommandBufferBeginInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        CHECK(vkBeginCommandBuffer(cmd, &cbi));
        vkCmdResetQueryPool(cmd, qp, 0, 2);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
        if (pre) { /* its records are overwritten by the dispatch after the barrier */
          uint32_t pp[6];
          memcpy(pp, push, sizeof pp);
          pp[1] = 1;
          vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pre);
          vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pp, pp);
          vkCmdDispatch(cmd, sms ? sms : 128, 1, 1);
          VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                                .dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT};
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                               &mb, 0, NULL, 0, NULL);
        }
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
        vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, 0);
        vkCmdDispatch(cmd, n, 1, 1);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 1);
        CHECK(vkEndCommandBuffer(cmd));
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
        CHECK(vkQueueSubmit(queue, 1, &si, fence));
        CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, 10000000000ull)); /* 10 s host bound */
        CHECK(vkResetFences(dev, 1, &fence));
        uint64_t ts[2];
        CHECK(vkGetQueryPoolResults(dev, qp, 0, 2, sizeof ts, ts, 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        if (r == 0) continue;
        comb_result c = analyse(rec.map, n);
        if (r < first_measured) { json_array_append_new(ramp_P, json_integer(c.P)); continue; }
        c.queue_ms = (double)(ts[1] - ts[0]) * props.limits.timestampPeriod / 1e6;
        Ps[r - first_measured] = c.P;
        cut += c.cut_short;
        json_array_append_new(runs, json_pack("{s:I, s:I, s:I, s:I, s:f, s:f, s:f}", "P", (json_int_t)c.P, "valid",
                                              (json_int_t)c.valid, "cut_short", (json_int_t)c.cut_short, "first_wave",
                                              (json_int_t)c.first_wave, "median_sleep_ticks", c.median_sleep_ticks,
                                              "span_ticks", c.span_ticks, "queue_ms", c.queue_ms));
      }
      bool agree = true;
      /* overlap can only undercount residency: the largest of the repetitions counts */
      for (uint32_t r = 1; r < reps; r++) {
        agree &= Ps[r] == Ps[0];
        if (Ps[r] > Ps[0]) Ps[0] = Ps[r];
      }
      json_object_set_new(pt, "P", json_integer(Ps[0]));
      json_object_set_new(pt, "agree", json_boolean(agree));
      if (sms) {
        uint32_t W = Ps[0] / sms;
        json_object_set_new(pt, "per_sm", json_real((double)Ps[0] / sms));
        /* W workgroups of S bytes fit and W+1 do not: capacity in [W*S, (W+1)*S) (no per-workgroup reserve) */
        json_object_set_new(pt, "capacity_window", json_pack("[I, I]", (json_int_t)W * S, (json_int_t)(W + 1) * S));
      }
      json_array_append_new(pts, pt);
      printf(" %6.2f%s", sms ? (double)Ps[0] / sms : (double)Ps[0], !agree ? "!" : cut ? "c" : " ");
      fflush(stdout);
      vkDestroyPipeline(dev, pipe, NULL);
      vkDestroyShaderModule(dev, mod, NULL);
      free(spv);
    }
    printf("\n");
  }
  if (json_dump_file(doc, argv[2], JSON_INDENT(1) | JSON_SORT_KEYS)) { fprintf(stderr, "carveout: cannot write %s\n", argv[2]); return 1; }
  json_decref(doc);
  free(manifest);
  vkDeviceWaitIdle(dev);
  vkDestroyDevice(dev, NULL);
  vkDestroyInstance(inst, NULL);
  return 0;
}
