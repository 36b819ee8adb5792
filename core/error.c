#include "internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_error[1024];

const char *vkocc_last_error(void) { return last_error; }
void vkocc_clear_error(void) { last_error[0] = 0; }
const char *vkocc_version(void) { return VKOCC_VERSION; }

vkocc_status vkocc_fail(vkocc_status s, const char *fmt, ...) {
  /* through a copy: callers may pass vkocc_last_error() itself as an argument, to add context */
  char buf[sizeof last_error];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  memcpy(last_error, buf, sizeof buf);
  return s;
}

const char *vkocc_vk_result_name(VkResult r) {
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

vkocc_status vkocc_vk_fail(VkResult r, const char *what) {
  if (r == VK_ERROR_DEVICE_LOST)
    return vkocc_fail(VKOCC_ERROR_RUNTIME,
                      "%s: VK_ERROR_DEVICE_LOST (the GPU reset or the driver killed the work; results are void)",
                      what);
  if (r == VK_TIMEOUT)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: VK_TIMEOUT (the GPU did not finish in time)", what);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: VK_ERROR_INCOMPATIBLE_DRIVER (no usable Vulkan driver)", what);
  return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: %s", what, vkocc_vk_result_name(r));
}

