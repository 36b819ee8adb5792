#include "internal.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

core_vk core_fn;
static void *loader_handle;
/* --device all opens contexts on several threads: the table is filled once, under this lock, with the
 * loader's trampolines (valid for every instance and device of every driver). */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static bool instance_loaded, device_loaded;

static vkocc_status loader_open_locked(void);
vkocc_status core_loader_open(void) {
  pthread_mutex_lock(&table_lock);
  vkocc_status s = loader_open_locked();
  pthread_mutex_unlock(&table_lock);
  return s;
}

static vkocc_status loader_open_locked(void) {
  if (core_fn.vkGetInstanceProcAddr) return VKOCC_OK;
  /* VKOCC_VULKAN_LIBRARY lets tests (and odd installs) name the loader. */
  const char *name = getenv("VKOCC_VULKAN_LIBRARY");
  if (!name || !*name) name = "libvulkan.so.1";
  loader_handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!loader_handle)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED,
                      "no Vulkan loader: cannot open %s (install libvulkan1, e.g. scripts/install-deps.sh)", name);
  core_fn.vkGetInstanceProcAddr = (PFN_vkGetInstanceProcAddr)dlsym(loader_handle, "vkGetInstanceProcAddr");
  if (!core_fn.vkGetInstanceProcAddr)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s is not a Vulkan loader (no vkGetInstanceProcAddr)", name);
#define LOAD(n) core_fn.n = (PFN_##n)core_fn.vkGetInstanceProcAddr(NULL, #n);
  VKOCC_VK_GLOBAL(LOAD)
#undef LOAD
  if (!core_fn.vkCreateInstance)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s does not provide vkCreateInstance", name);
  return VKOCC_OK;
}

vkocc_status core_instance_create(VkInstance *instance) {
  vkocc_status s = core_loader_open();
  if (s) return s;
  uint32_t api = VK_API_VERSION_1_0;
  if (core_fn.vkEnumerateInstanceVersion && core_fn.vkEnumerateInstanceVersion(&api) != VK_SUCCESS)
    api = VK_API_VERSION_1_0; /* cannot fail in the specification; a loader that says otherwise gets 1.0 */
  VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "vkocc",
      .applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0),
      .pEngineName = "vkocc",
      .apiVersion = api >= VK_API_VERSION_1_2 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_1,
  };
  VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
  VkResult r = core_fn.vkCreateInstance(&ci, NULL, instance);
  if (r != VK_SUCCESS) {
    /* The loader reports a broken driver manifest in odd ways (a garbage VK_DRIVER_FILES gives
     * VK_ERROR_OUT_OF_HOST_MEMORY): without an instance the system lacks a usable driver, whatever the code. */
    const char *files = getenv("VK_DRIVER_FILES"), *var = "VK_DRIVER_FILES";
    if (!files || !*files) files = getenv("VK_ICD_FILENAMES"), var = "VK_ICD_FILENAMES";
    char hint[600] = "install a driver, e.g. mesa-vulkan-drivers for lavapipe";
    if (files && *files) snprintf(hint, sizeof hint, "check the driver manifests in %s=%s", var, files);
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "no usable Vulkan driver: instance creation failed (vkCreateInstance "
                      "returned %s); %s", core_vk_result_name(r), hint);
  }
  pthread_mutex_lock(&table_lock);
  if (!instance_loaded) {
#define LOAD(n) core_fn.n = (PFN_##n)core_fn.vkGetInstanceProcAddr(*instance, #n);
    VKOCC_VK_INSTANCE(LOAD)
#undef LOAD
    instance_loaded = true;
  }
  pthread_mutex_unlock(&table_lock);
  if (!core_fn.vkGetPhysicalDeviceProperties2)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "the Vulkan loader lacks Vulkan 1.1 (vkGetPhysicalDeviceProperties2)");
  return VKOCC_OK;
}

void core_load_device_functions(VkInstance instance) {
  /* vkGetInstanceProcAddr gives the loader's trampolines, which dispatch on the device handle: one table
   * serves devices of different drivers at once (vkGetDeviceProcAddr's pointers are one driver's) */
  pthread_mutex_lock(&table_lock);
  if (!device_loaded) {
#define LOAD(n) core_fn.n = (PFN_##n)core_fn.vkGetInstanceProcAddr(instance, #n);
    VKOCC_VK_DEVICE(LOAD)
#undef LOAD
    device_loaded = true;
  }
  pthread_mutex_unlock(&table_lock);
}

vkocc_status core_loader_use(void (*gipa)(void), VkInstance instance) {
  /* the table is written under its lock, as everywhere: another thread may be opening a context */
  pthread_mutex_lock(&table_lock);
  vkocc_status s = VKOCC_OK;
  if (gipa) {
    core_fn.vkGetInstanceProcAddr = (PFN_vkGetInstanceProcAddr)gipa;
#define LOAD(n) core_fn.n = (PFN_##n)core_fn.vkGetInstanceProcAddr(NULL, #n);
    VKOCC_VK_GLOBAL(LOAD)
#undef LOAD
  } else {
    s = loader_open_locked();
  }
  if (!s) {
#define LOAD(n) core_fn.n = (PFN_##n)core_fn.vkGetInstanceProcAddr(instance, #n);
    VKOCC_VK_INSTANCE(LOAD)
#undef LOAD
    if (!core_fn.vkGetPhysicalDeviceProperties2 || !core_fn.vkGetDeviceProcAddr)
      s = vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "the instance lacks Vulkan 1.1 (vkGetPhysicalDeviceProperties2)");
  }
  if (!s) {
    /* the application's loader may not be the one the table was filled from: its device trampolines next */
    instance_loaded = true;
    device_loaded = false;
  }
  pthread_mutex_unlock(&table_lock);
  return s;
}

/* ---------------------------------------------------------------- VkResult as errors */

const char *core_vk_result_name(VkResult r) {
  switch (r) {
#define C(x) case x: return #x;
    C(VK_SUCCESS) C(VK_NOT_READY) C(VK_TIMEOUT) C(VK_INCOMPLETE) C(VK_ERROR_OUT_OF_HOST_MEMORY)
    C(VK_ERROR_OUT_OF_DEVICE_MEMORY) C(VK_ERROR_INITIALIZATION_FAILED) C(VK_ERROR_DEVICE_LOST)
    C(VK_ERROR_MEMORY_MAP_FAILED) C(VK_ERROR_LAYER_NOT_PRESENT) C(VK_ERROR_EXTENSION_NOT_PRESENT)
    C(VK_ERROR_FEATURE_NOT_PRESENT) C(VK_ERROR_INCOMPATIBLE_DRIVER) C(VK_ERROR_TOO_MANY_OBJECTS)
    C(VK_ERROR_FORMAT_NOT_SUPPORTED) C(VK_ERROR_UNKNOWN) C(VK_ERROR_OUT_OF_POOL_MEMORY)
    C(VK_ERROR_INVALID_SHADER_NV)
#undef C
  default: return "VkResult(unknown)";
  }
}

vkocc_status core_vk_fail(VkResult r, const char *what) {
  if (r == VK_ERROR_DEVICE_LOST)
    return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_DEVICE_LOST,
                             "%s: VK_ERROR_DEVICE_LOST (the GPU reset or the driver killed the work; results are "
                             "void)", what);
  if (r == VK_TIMEOUT)
    return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_TIMEOUT, "%s: VK_TIMEOUT (the GPU did not finish in "
                             "time)", what);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: VK_ERROR_INCOMPATIBLE_DRIVER (no usable Vulkan driver)", what);
  return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: %s", what, core_vk_result_name(r));
}

