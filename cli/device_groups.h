/* --device all: the summary of one measurement per device, grouped by cluster ID (no device needed). */
#ifndef VKOCC_CLI_DEVICE_GROUPS_H
#define VKOCC_CLI_DEVICE_GROUPS_H
#include <jansson.h>
#include <stdint.h>

typedef struct cli_device_result {
  uint32_t index;          /* vkocc_enumerate_devices index */
  char name[256], uuid[37];
  char cluster_id[24];     /* "" when none was derived */
  const char *file;        /* the device's document, or NULL */
  int rc;                  /* the measurement's exit code (0 ok) */
  char error[512];
  double wall_ms;          /* the device's thread, context opening included */
} cli_device_result;

/* {"schema": "vkocc.devices-summary/1", "command", "wall_ms", "devices": [...], "clusters": [{"cluster_id",
 * "devices": [index...]}...] (first seen first), "same_cluster": every measured device in one cluster}. */
json_t *cli_device_summary(const char *command, const cli_device_result *r, uint32_t n, double wall_ms);
#endif
