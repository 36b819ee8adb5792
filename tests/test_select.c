/* Device selection: default ranking, index, UUID, name substring, ambiguity and error messages. */
#include "check.h"
#include "vkocc.h"
#include <vulkan/vulkan.h>

static vkocc_device_info dev(const char *name, uint32_t type, uint8_t uuid0) {
  vkocc_device_info d = {0};
  snprintf(d.name, sizeof d.name, "%s", name);
  d.device_type = type;
  for (int i = 0; i < 16; i++) d.uuid[i] = (uint8_t)(uuid0 + i);
  return d;
}

int main(void) {
  vkocc_device_info d[4] = {dev("llvmpipe (LLVM 15.0.6, 256 bits)", VK_PHYSICAL_DEVICE_TYPE_CPU, 0x10),
                            dev("Intel(R) UHD Graphics 630", VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, 0x20),
                            dev("NVIDIA H100 80GB HBM3", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 0x30),
                            dev("NVIDIA H200", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 0x40)};
  uint32_t i = 99;
  CHECK(vkocc_select_device(d, 4, NULL, &i) == VKOCC_OK && i == 2, "default picks first discrete, got %u", i);
  CHECK(vkocc_select_device(d, 2, "", &i) == VKOCC_OK && i == 1, "integrated before cpu, got %u", i);
  CHECK(vkocc_select_device(d, 1, NULL, &i) == VKOCC_OK && i == 0, "cpu when alone, got %u", i);
  CHECK(vkocc_select_device(d, 4, "3", &i) == VKOCC_OK && i == 3, "index, got %u", i);
  CHECK(vkocc_select_device(d, 4, "llvm", &i) == VKOCC_OK && i == 0, "substring, got %u", i);
  CHECK(vkocc_select_device(d, 4, "LLVMPIPE", &i) == VKOCC_OK && i == 0, "case-insensitive, got %u", i);
  CHECK(vkocc_select_device(d, 4, "h200", &i) == VKOCC_OK && i == 3, "h200, got %u", i);
  char uuid[37];
  vkocc_format_uuid(d[2].uuid, uuid);
  CHECK(!strcmp(uuid, "30313233-3435-3637-3839-3a3b3c3d3e3f"), "uuid format %s", uuid);
  CHECK(vkocc_select_device(d, 4, uuid, &i) == VKOCC_OK && i == 2, "uuid with dashes, got %u", i);
  CHECK(vkocc_select_device(d, 4, "404142434445464748494A4B4C4D4E4F", &i) == VKOCC_OK && i == 3, "uuid plain, got %u", i);
  CHECK(vkocc_select_device(d, 4, "nosuchgpu", &i) == VKOCC_ERROR_USAGE, "no match must be usage error");
  CHECK_CONTAINS(vkocc_last_error(), "'nosuchgpu' matches no device");
  CHECK_CONTAINS(vkocc_last_error(), "0: llvmpipe");
  CHECK_CONTAINS(vkocc_last_error(), "3: NVIDIA H200");
  CHECK(vkocc_select_device(d, 4, "nvidia", &i) == VKOCC_ERROR_USAGE, "ambiguous must fail");
  CHECK_CONTAINS(vkocc_last_error(), "several devices");
  CHECK(vkocc_select_device(d, 4, "7", &i) == VKOCC_ERROR_USAGE, "index out of range");
  CHECK_CONTAINS(vkocc_last_error(), "not a device index");
  CHECK(vkocc_select_device(d, 4, "00000000-0000-0000-0000-000000000000", &i) == VKOCC_ERROR_USAGE, "unknown uuid");
  CHECK_CONTAINS(vkocc_last_error(), "UUID");
  char v[32];
  vkocc_format_driver_version(0x10de, (580u << 22) | (159u << 14) | (4u << 6), v);
  CHECK(!strcmp(v, "580.159.4.0"), "nvidia driver version %s", v);
  vkocc_format_api_version(VK_MAKE_API_VERSION(0, 1, 3, 230), v);
  CHECK(!strcmp(v, "1.3.230"), "api version %s", v);
  return check_report();
}
