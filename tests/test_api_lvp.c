/* The library API on lavapipe (LP_NUM_THREADS=2):
 * - vkocc_fingerprint_measure reuses the cache the CLI uses (an entry made from committed data under the
 *   live device's key: a hit measures nothing), reports it in the details, and the whole document saves and
 *   loads back as a surface; a context without the device clock bypasses it. (A fresh measurement, the
 *   `fresh` option, runs in test_cli_fingerprint, whose `vkocc fingerprint --fresh` is this function.)
 * - vkocc_context_create_external: the test creates its own VkInstance and VkDevice through the loader,
 *   hands them over, measures P at one point (2 = LP_NUM_THREADS), destroys vkocc's context and checks that
 *   its device still works; bad handles are refused. */
#ifndef VK_NO_PROTOTYPES /* every entry point through the loader, as an application without prototypes */
#define VK_NO_PROTOTYPES
#endif
#include "check.h"
#include "characterize.h"
#include "io.h"
#include "vkocc.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

static char dir[] = "/tmp/vkocc-api-lvp-XXXXXX";

static void test_cache(const char *data) {
  vkocc_context *ctx;
  vkocc_context_options o = {.device = "llvmpipe"};
  CHECK(vkocc_context_create(&o, &ctx) == VKOCC_OK, "context: %s", vkocc_last_error());
  if (!ctx) return;
  const vkocc_device_info *dev = vkocc_context_device(ctx);
  /* the entry: hopper's normalized surface and the H100 surface and limits, under lavapipe's key */
  char path[512], cpath[1024];
  snprintf(path, sizeof path, "%s/fp-hopper-132.json", data);
  json_error_t e;
  json_t *fp = json_load_file(path, 0, &e);
  snprintf(path, sizeof path, "%s/surface-h100.json", data);
  json_t *surf = json_load_file(path, 0, &e);
  CHECK(fp && surf, "committed data unreadable");
  if (!fp || !surf) { vkocc_context_destroy(ctx); return; }
  json_object_set_new(fp, "device", vkocc_device_info_json(dev));
  json_object_set_new(fp, "tool_version", json_string(vkocc_version()));
  json_object_set(fp, "derived", json_object_get(surf, "derived"));
  const char *strip[] = {"device", "calibration", "derived", "schema", "tool_version"};
  for (int i = 0; i < 5; i++) json_object_del(surf, strip[i]);
  json_object_set(fp, "surface", surf);
  vkocc_fingerprint_cache_path(dev, cpath, sizeof cpath);
  CHECK(strstr(cpath, dir) == cpath && strstr(cpath, "-lp2.json"), "cache path %s (under %s, keyed by LP_NUM_THREADS)",
        cpath, dir);
  char mk[600];
  snprintf(mk, sizeof mk, "mkdir -p %s/vkocc", dir);
  CHECK(system(mk) == 0, "mkdir");
  /* sealed under the device's key, as vkocc_fingerprint_measure stores it (an unsealed file is a miss) */
  CHECK(characterize_fingerprint_cache_store(dev, fp) == VKOCC_OK, "cache entry: %s", vkocc_last_error());
  json_decref(fp);
  json_decref(surf);

  vkocc_fingerprint f;
  vkocc_fingerprint_details det;
  /* the lookup alone, from the device's description (what the CLI does before opening a device) */
  CHECK(vkocc_fingerprint_from_cache(dev, 0, &f, &det) && det.from_cache && det.derived.sm_count == 132,
        "lookup without a context");
  vkocc_fingerprint_details_free(&det);
  CHECK(!vkocc_fingerprint_from_cache(dev, VKOCC_METHOD_COMB, &f, NULL), "an entry that names no method is no comb");
  vkocc_device_info other = *dev;
  other.driver_version++;
  CHECK(!vkocc_fingerprint_from_cache(&other, 0, &f, NULL), "another driver version has no entry");
  double t0 = vkocc_now_ms();
  CHECK(vkocc_fingerprint_measure(ctx, NULL, &f, &det) == VKOCC_OK, "measure: %s", vkocc_last_error());
  double dt = vkocc_now_ms() - t0;
  CHECK(det.from_cache && !strcmp(det.cache_path, cpath), "from the cache (%d) at %s", det.from_cache, det.cache_path);
  CHECK(!strcmp(f.cluster_id, "c1-dace7ddcd2e0"), "hopper's cluster ID from the cache: %s", f.cluster_id);
  CHECK_EQ_U(det.derived.sm_count, 132);
  CHECK_EQ_U(det.derived.wg_per_sm, 32);
  CHECK(strstr(det.device.name, "llvmpipe") != NULL, "device from the cache entry: %s", det.device.name);
  CHECK(det.elapsed_ms == 0 && dt < 5000, "a hit measures nothing (%.0f ms)", dt);
  CHECK(vkocc_last_error()[0] == 0, "no message after a success: %s", vkocc_last_error());
  /* the whole document saved: a fingerprint and a surface with its device */
  snprintf(path, sizeof path, "%s/saved.json", dir);
  CHECK(vkocc_fingerprint_save(&f, &det, path) == VKOCC_OK, "save: %s", vkocc_last_error());
  vkocc_surface s;
  CHECK(vkocc_surface_load(path, &s) == VKOCC_OK, "saved document as a surface: %s", vkocc_last_error());
  if (!vkocc_last_error()[0]) {
    CHECK(s.has_device && strstr(s.device.name, "llvmpipe") && s.count > 100, "saved surface: %u points", s.count);
    vkocc_surface_free(&s);
  }
  vkocc_fingerprint_details_free(&det);
  vkocc_fingerprint_details_free(&det); /* twice is harmless */
  /* details NULL: the same answer */
  vkocc_fingerprint g;
  CHECK(vkocc_fingerprint_measure(ctx, NULL, &g, NULL) == VKOCC_OK && !strcmp(g.cluster_id, f.cluster_id), "no details");
  vkocc_context_destroy(ctx);

  /* fresh, or a context without the device clock: the cache is not used (the comb then fails at once,
   * before any measurement, instead of returning the cached answer) */
  vkocc_context_options nc = {.device = "llvmpipe", .disable_shader_clock = true};
  CHECK(vkocc_context_create(&nc, &ctx) == VKOCC_OK, "context: %s", vkocc_last_error());
  if (!ctx) return;
  vkocc_fingerprint_options fo = {.method = VKOCC_METHOD_COMB};
  CHECK(vkocc_fingerprint_measure(ctx, &fo, &g, &det) == VKOCC_ERROR_UNSUPPORTED, "no clock: %s", vkocc_last_error());
  CHECK_CONTAINS(vkocc_last_error(), "needs the realtime shader clock");
  CHECK(!det.from_cache && det.cache_path[0] == 0 && !det.document, "no cache without the clock");
  vkocc_context_destroy(ctx);
  CHECK(vkocc_context_create(&o, &ctx) == VKOCC_OK, "context: %s", vkocc_last_error());
  if (!ctx) return;
  fo.method = (vkocc_method)8; /* not a method: refused before the cache is even looked at */
  CHECK(vkocc_fingerprint_measure(ctx, &fo, &g, &det) == VKOCC_ERROR_USAGE && !det.from_cache, "method 8");
  CHECK_CONTAINS(vkocc_last_error(), "method 8");
  vkocc_context_destroy(ctx);
}

#define VK_FN(name) PFN_##name name = (PFN_##name)gipa(instance, #name)
static void test_external(void) {
  void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  CHECK(lib != NULL, "libvulkan.so.1: %s", dlerror());
  if (!lib) return;
  PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
  VkInstance instance = NULL;
  VK_FN(vkCreateInstance);
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
  CHECK(vkCreateInstance(&ici, NULL, &instance) == VK_SUCCESS, "vkCreateInstance");
  if (!instance) return;
  VK_FN(vkDestroyInstance);
  VK_FN(vkEnumeratePhysicalDevices);
  VK_FN(vkGetPhysicalDeviceProperties);
  VK_FN(vkCreateDevice);
  VK_FN(vkGetDeviceProcAddr);
  uint32_t n = 8;
  VkPhysicalDevice pds[8], pd = NULL;
  vkEnumeratePhysicalDevices(instance, &n, pds);
  for (uint32_t i = 0; i < n; i++) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pds[i], &p);
    if (strstr(p.deviceName, "llvmpipe")) pd = pds[i];
  }
  CHECK(pd != NULL, "no llvmpipe device");
  /* the application's device: queue family 0, the shader clock enabled (lavapipe has it) */
  VkPhysicalDeviceShaderClockFeaturesKHR clk = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR,
                                                .shaderSubgroupClock = VK_TRUE, .shaderDeviceClock = VK_TRUE};
  const char *ext[] = {VK_KHR_SHADER_CLOCK_EXTENSION_NAME};
  float prio = 1;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = 0,
                                 .queueCount = 1, .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &clk, .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qci, .enabledExtensionCount = 1, .ppEnabledExtensionNames = ext};
  VkDevice device = NULL;
  CHECK(pd && vkCreateDevice(pd, &dci, NULL, &device) == VK_SUCCESS, "vkCreateDevice");
  if (!device) { vkDestroyInstance(instance, NULL); return; }

  vkocc_external_device xd = {.instance = instance, .physical_device = pd, .device = device, .queue_family = 0,
                              .get_instance_proc_addr = (void (*)(void))gipa, .shader_device_clock = true,
                              .shader_subgroup_clock = true};
  vkocc_context *ctx = NULL;
  /* refused: missing handles, a family or queue the device lacks, a physical device of another instance */
  vkocc_external_device bad = xd;
  bad.device = NULL;
  CHECK(vkocc_context_create_external(&bad, &ctx) == VKOCC_ERROR_USAGE && !ctx, "no device handle");
  bad = xd, bad.queue_family = 7;
  CHECK(vkocc_context_create_external(&bad, &ctx) == VKOCC_ERROR_USAGE && !ctx, "family 7");
  CHECK_CONTAINS(vkocc_last_error(), "queue family 7");
  bad = xd, bad.queue_index = 1;
  CHECK(vkocc_context_create_external(&bad, &ctx) == VKOCC_ERROR_USAGE && !ctx, "queue 1 of a 1-queue family");
  bad = xd, bad.physical_device = (void *)&bad;
  CHECK(vkocc_context_create_external(&bad, &ctx) == VKOCC_ERROR_USAGE && !ctx, "foreign physical device");

  CHECK(vkocc_context_create_external(&xd, &ctx) == VKOCC_OK, "external: %s", vkocc_last_error());
  if (ctx) {
    const vkocc_device_info *d = vkocc_context_device(ctx);
    CHECK(strstr(d->name, "llvmpipe") && d->compute_queue_family == 0, "%s, family %u", d->name, d->compute_queue_family);
    CHECK(vkocc_context_has_device_clock(ctx), "the clock the application enabled");
    vkocc_calibrate_options co;
    vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
    vkocc_calibration cal;
    CHECK(vkocc_calibrate(ctx, &co, &cal) == VKOCC_OK, "calibrate: %s", vkocc_last_error());
    vkocc_probe_options po = {.wg_size = 64, .shared_bytes = 0, .method = VKOCC_METHOD_COMB};
    vkocc_probe_result r;
    vkocc_status st = vkocc_probe(ctx, &cal, &po, &r);
    CHECK(st == VKOCC_OK && r.P == 2, "P at (64, 0) on the application's device: %u (%s)", st ? 0 : r.P,
          vkocc_last_error());
    if (!st) vkocc_probe_result_free(&r);
    /* the signature on the application's device: FP64 is supported, but whether the application enabled it is
     * unknown, so that probe does not run and says why (never "unsupported", never a guess) */
    vkocc_signature g;
    CHECK(vkocc_signature_measure(ctx, NULL, &g) == VKOCC_OK, "signature: %s", vkocc_last_error());
    CHECK(g.float64 && g.v[VKOCC_SIG_FP64_RATIO].state == VKOCC_SIG_UNAVAILABLE, "FP64 on the application's device: %s",
          vkocc_sig_state_name(g.v[VKOCC_SIG_FP64_RATIO].state));
    CHECK_CONTAINS(g.v[VKOCC_SIG_FP64_RATIO].reason, "not enabled");
    CHECK(g.v[VKOCC_SIG_FP32_RATE].state == VKOCC_SIG_NOT_STABLE && g.v[VKOCC_SIG_FP32_RATE].repeats == 5,
          "the FP32 rate is measured there (lavapipe: not stable)");
    vkocc_context_destroy(ctx);
  }
  /* the application's device survives vkocc: a submission on its queue completes */
  PFN_vkGetDeviceProcAddr gdpa = vkGetDeviceProcAddr;
  PFN_vkGetDeviceQueue getq = (PFN_vkGetDeviceQueue)gdpa(device, "vkGetDeviceQueue");
  PFN_vkCreateFence mkf = (PFN_vkCreateFence)gdpa(device, "vkCreateFence");
  PFN_vkDestroyFence rmf = (PFN_vkDestroyFence)gdpa(device, "vkDestroyFence");
  PFN_vkQueueSubmit submit = (PFN_vkQueueSubmit)gdpa(device, "vkQueueSubmit");
  PFN_vkWaitForFences wait = (PFN_vkWaitForFences)gdpa(device, "vkWaitForFences");
  PFN_vkDeviceWaitIdle idle = (PFN_vkDeviceWaitIdle)gdpa(device, "vkDeviceWaitIdle");
  PFN_vkDestroyDevice rmd = (PFN_vkDestroyDevice)gdpa(device, "vkDestroyDevice");
  VkQueue q;
  getq(device, 0, 0, &q);
  VkFence fence = VK_NULL_HANDLE;
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  CHECK(mkf(device, &fci, NULL, &fence) == VK_SUCCESS, "fence on the application's device after vkocc");
  CHECK(submit(q, 0, NULL, fence) == VK_SUCCESS, "submit after vkocc");
  CHECK(wait(device, 1, &fence, VK_TRUE, 5000000000ull) == VK_SUCCESS, "the submission completes");
  CHECK(idle(device) == VK_SUCCESS, "vkDeviceWaitIdle after vkocc");
  rmf(device, fence, NULL);
  rmd(device, NULL);
  vkDestroyInstance(instance, NULL);
  dlclose(lib);
}

int main(int argc, char **argv) {
  if (argc < 2 || !mkdtemp(dir)) { fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]); return 2; }
  setenv("XDG_CACHE_HOME", dir, 1); /* its own cache: the suite's is shared with test_cli_fingerprint */
  test_cache(argv[1]);
  test_external();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) fprintf(stderr, "cannot remove %s\n", dir);
  return check_report();
}
