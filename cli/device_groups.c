/* --device all: grouping the per-device results by cluster ID (tests/test_device_groups.c). */
#include "cli.h"
#include <string.h>

json_t *cli_device_summary(const char *command, const cli_device_result *r, uint32_t n, double wall_ms) {
  json_t *devs = json_array(), *clusters = json_array();
  uint32_t measured = 0;
  for (uint32_t i = 0; i < n; i++) {
    json_t *d = json_pack("{s:I, s:s, s:s, s:f, s:i}", "index", (json_int_t)r[i].index, "name", r[i].name, "uuid",
                          r[i].uuid, "wall_ms", r[i].wall_ms, "exit_code", r[i].rc);
    json_object_set_new(d, "cluster_id", r[i].cluster_id[0] ? json_string(r[i].cluster_id) : json_null());
    if (r[i].file) json_object_set_new(d, "file", json_string(r[i].file));
    if (r[i].rc) json_object_set_new(d, "error", json_string(r[i].error));
    json_array_append_new(devs, d);
    if (r[i].rc || !r[i].cluster_id[0]) continue;
    measured++;
    /* the device joins the group of its cluster ID, or opens one */
    json_t *g = NULL;
    size_t k;
    json_t *c;
    json_array_foreach(clusters, k, c)
      if (!strcmp(json_string_value(json_object_get(c, "cluster_id")), r[i].cluster_id)) g = c;
    if (!g) {
      g = json_pack("{s:s, s:[]}", "cluster_id", r[i].cluster_id, "devices");
      json_array_append_new(clusters, g);
    }
    json_array_append_new(json_object_get(g, "devices"), json_integer(r[i].index));
  }
  json_t *o = json_pack("{s:s, s:s, s:f, s:I, s:I, s:o, s:o}", "schema",
                        vkocc_doc_schema_string(VKOCC_DOC_DEVICES_SUMMARY), "command", command,
                        "wall_ms", wall_ms, "devices_total", (json_int_t)n, "devices_measured", (json_int_t)measured,
                        "devices", devs, "clusters", clusters);
  json_object_set_new(o, "same_cluster", json_boolean(measured > 0 && measured == n && json_array_size(clusters) == 1));
  return o;
}
