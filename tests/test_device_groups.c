/* --device all's summary: devices grouped by cluster ID, failures kept apart (cli/device_groups.c). */
#include "check.h"
#include "cli.h" /* cli_device_summary */

static cli_device_result dev(uint32_t i, const char *name, const char *cluster, int rc) {
  cli_device_result r = {.index = i, .rc = rc, .wall_ms = 10.0 * (i + 1)};
  snprintf(r.name, sizeof r.name, "%s", name);
  snprintf(r.uuid, sizeof r.uuid, "uuid-%u", i);
  snprintf(r.cluster_id, sizeof r.cluster_id, "%s", cluster);
  if (rc) snprintf(r.error, sizeof r.error, "no clock");
  return r;
}

int main(void) {
  /* two identical GPUs: one cluster */
  cli_device_result two[2] = {dev(0, "H200", "c1-aaaaaaaaaaaa", 0), dev(1, "H200", "c1-aaaaaaaaaaaa", 0)};
  json_t *s = cli_device_summary("fingerprint", two, 2, 123.0);
  CHECK(json_is_true(json_object_get(s, "same_cluster")), "two identical: same cluster");
  json_t *cl = json_object_get(s, "clusters");
  CHECK_EQ_U(json_array_size(cl), 1);
  CHECK_EQ_U(json_array_size(json_object_get(json_array_get(cl, 0), "devices")), 2);
  CHECK_EQ_U(json_integer_value(json_object_get(s, "devices_measured")), 2);
  CHECK(!strcmp(json_string_value(json_object_get(s, "schema")), "vkocc.devices-summary/1"), "schema");
  json_decref(s);

  /* three devices, two clusters, one failure: the failure joins no cluster, same_cluster is false */
  cli_device_result three[4] = {dev(0, "A", "c1-000000000001", 0), dev(1, "B", "c1-000000000002", 0),
                                dev(2, "A2", "c1-000000000001", 0), dev(3, "C", "", 3)};
  s = cli_device_summary("surface", three, 4, 50.0);
  cl = json_object_get(s, "clusters");
  CHECK_EQ_U(json_array_size(cl), 2);
  json_t *g0 = json_object_get(json_array_get(cl, 0), "devices");
  CHECK(json_array_size(g0) == 2 && json_integer_value(json_array_get(g0, 0)) == 0 &&
        json_integer_value(json_array_get(g0, 1)) == 2, "first cluster holds devices 0 and 2");
  CHECK(!json_is_true(json_object_get(s, "same_cluster")), "two clusters");
  json_t *d3 = json_array_get(json_object_get(s, "devices"), 3);
  CHECK(json_is_null(json_object_get(d3, "cluster_id")) && json_integer_value(json_object_get(d3, "exit_code")) == 3,
        "failed device: no cluster, its exit code");
  CHECK(!strcmp(json_string_value(json_object_get(d3, "error")), "no clock"), "failed device: its error");
  CHECK_EQ_U(json_integer_value(json_object_get(s, "devices_measured")), 3);
  json_decref(s);

  /* one device (lavapipe): one cluster; a lone failure: none, not the same */
  cli_device_result one = dev(0, "llvmpipe", "c1-0123456789ab", 0);
  s = cli_device_summary("surface", &one, 1, 5.0);
  CHECK(json_is_true(json_object_get(s, "same_cluster")), "one device");
  json_decref(s);
  one = dev(0, "llvmpipe", "", 1);
  s = cli_device_summary("surface", &one, 1, 5.0);
  CHECK(!json_is_true(json_object_get(s, "same_cluster")) && json_array_size(json_object_get(s, "clusters")) == 0,
        "a failed device forms no cluster");
  json_decref(s);
  return check_report();
}
