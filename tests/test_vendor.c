/* Vendor-reported core counts: the device object's "vendor_reported" survives a JSON round
 * trip and is omitted when the device reports nothing; measured vs reported agrees, differs and treats a
 * lower bound as such; a fingerprint that carries the cross-check parses to the same cluster ID. */
#include "check.h"
#include "io.h"
#include <stdlib.h>

static void roundtrip(const vkocc_device_info *in, vkocc_device_info *out, bool *has_key) {
  json_t *o = vkocc_device_info_json(in);
  *has_key = json_object_get(o, "vendor_reported") != NULL;
  char *text = json_dumps(o, 0);
  json_decref(o);
  json_error_t e;
  json_t *back = json_loads(text, 0, &e);
  free(text);
  vkocc_status s = io_device_info_from_json(back, "t.json", "$.device", out);
  CHECK(s == VKOCC_OK, "device round trip: %s", vkocc_last_error());
  json_decref(back);
}

int main(void) {
  /* NVIDIA: SMs and warps per SM */
  vkocc_device_info nv = {.vendor_id = 0x10de, .subgroup_size = 32};
  snprintf(nv.name, sizeof nv.name, "NVIDIA H100 80GB HBM3");
  snprintf(nv.vendor.source, sizeof nv.vendor.source, "VK_NV_shader_sm_builtins");
  nv.vendor.cores = 132;
  nv.vendor.warps_per_core = 64;
  vkocc_device_info back;
  bool has_key;
  roundtrip(&nv, &back, &has_key);
  CHECK(has_key, "vendor_reported written for a device that reports");
  CHECK(!strcmp(back.vendor.source, "VK_NV_shader_sm_builtins"), "source %s", back.vendor.source);
  CHECK_EQ_U(back.vendor.cores, 132);
  CHECK_EQ_U(back.vendor.warps_per_core, 64);
  CHECK_EQ_U(back.vendor.amd_shader_engines, 0);

  /* AMD: the detail comes back too */
  vkocc_device_info amd = {.vendor_id = 0x1002, .subgroup_size = 64};
  snprintf(amd.name, sizeof amd.name, "AMD Radeon");
  amd.vendor = (vkocc_vendor_reported){.cores = 60, .warps_per_core = 32, .amd_shader_engines = 4,
                                       .amd_arrays_per_engine = 2, .amd_cus_per_array = 8, .amd_simds_per_cu = 2,
                                       .amd_wavefronts_per_simd = 16, .amd_wavefront_size = 32, .amd_active_cus = 60};
  snprintf(amd.vendor.source, sizeof amd.vendor.source, "VK_AMD_shader_core_properties(2)");
  roundtrip(&amd, &back, &has_key);
  CHECK(has_key, "AMD vendor_reported written");
  CHECK_EQ_U(back.vendor.cores, 60);
  CHECK_EQ_U(back.vendor.amd_shader_engines, 4);
  CHECK_EQ_U(back.vendor.amd_cus_per_array, 8);
  CHECK_EQ_U(back.vendor.amd_wavefronts_per_simd, 16);
  CHECK_EQ_U(back.vendor.amd_active_cus, 60);

  /* a device without a vendor extension (lavapipe): no key, and reading gives an empty source */
  vkocc_device_info lvp = {.subgroup_size = 8};
  snprintf(lvp.name, sizeof lvp.name, "llvmpipe");
  roundtrip(&lvp, &back, &has_key);
  CHECK(!has_key, "vendor_reported omitted when the device reports nothing");
  CHECK(back.vendor.source[0] == 0, "no source read back");

  /* a malformed vendor_reported fails naming its JSON path */
  json_error_t e;
  json_t *bad = json_loads("{\"name\": \"x\", \"vendor_reported\": {\"source\": \"VK_NV_shader_sm_builtins\", "
                           "\"cores\": \"many\", \"warps_per_core\": 64}}", 0, &e);
  CHECK(io_device_info_from_json(bad, "bad.json", "$.device", &back) == VKOCC_ERROR_USAGE, "bad cores accepted");
  CHECK_CONTAINS(vkocc_last_error(), "bad.json: $.device.vendor_reported");
  CHECK_CONTAINS(vkocc_last_error(), "cores");
  json_decref(bad);

  /* measured vs reported */
  vkocc_derived d = {.sm_count = 132, .subgroups_per_sm = 64, .subgroups_bound_seen = true};
  vkocc_vendor_check c;
  vkocc_vendor_check_compute(&nv.vendor, &d, &c);
  CHECK(c.available && c.sm_agree && c.subgroups_agree && !c.subgroups_measured_is_lower_bound, "H100 agrees");
  CHECK_EQ_U(c.sm_measured, 132);
  CHECK_EQ_U(c.subgroups_reported, 64);
  d.sm_count = 114;
  vkocc_vendor_check_compute(&nv.vendor, &d, &c);
  CHECK(!c.sm_agree, "114 measured vs 132 reported must differ");
  d.sm_count = 132;
  d.subgroups_bound_seen = false; /* only a lower bound was measured: 48 <= 64 is consistent, 80 is not */
  d.subgroups_per_sm = 48;
  vkocc_vendor_check_compute(&nv.vendor, &d, &c);
  CHECK(c.subgroups_agree && c.subgroups_measured_is_lower_bound, "lower bound 48 under 64 is consistent");
  d.subgroups_per_sm = 80;
  vkocc_vendor_check_compute(&nv.vendor, &d, &c);
  CHECK(!c.subgroups_agree, "lower bound 80 above 64 reported must differ");
  vkocc_vendor_check_compute(&lvp.vendor, &d, &c);
  CHECK(!c.available, "lavapipe has no vendor check");
  CHECK(io_vendor_check_json(&c, lvp.vendor.source) == NULL, "no JSON object without a report");

  /* the fingerprint: vendor_reported is accepted and does not enter the cluster ID */
  vkocc_fingerprint fp = {.subgroup_size = 32};
  for (int a = 0; a < VKOCC_CANON_WG; a++)
    for (int b = 0; b < VKOCC_CANON_SHARED; b++) {
      fp.normalized[a][b] = b == 0 ? 2048.0 / vkocc_canonical_wg[a] : 1.0;
      fp.source[a][b] = VKOCC_CANON_MEASURED;
    }
  vkocc_cluster_id(&fp, fp.cluster_id);
  d = (vkocc_derived){.sm_count = 132, .subgroups_per_sm = 64, .subgroups_bound_seen = true};
  vkocc_vendor_check_compute(&nv.vendor, &d, &c);
  json_t *doc = io_fingerprint_json(&fp);
  json_object_set_new(doc, "schema", json_string("vkocc.fingerprint/1"));
  json_object_set_new(doc, "device", vkocc_device_info_json(&nv));
  json_t *vc = io_vendor_check_json(&c, nv.vendor.source);
  CHECK(vc != NULL, "vendor check JSON");
  CHECK(json_integer_value(json_object_get(json_object_get(vc, "sm_count"), "reported")) == 132, "sm reported");
  CHECK(json_is_true(json_object_get(json_object_get(vc, "subgroups_per_sm"), "agree")), "subgroups agree");
  json_object_set_new(doc, "vendor_reported", vc);
  char *text = json_dumps(doc, 0);
  json_decref(doc);
  vkocc_fingerprint parsed;
  CHECK(vkocc_fingerprint_parse(text, strlen(text), "fp.json", &parsed) == VKOCC_OK, "fingerprint with "
        "vendor_reported: %s", vkocc_last_error());
  CHECK(!strcmp(parsed.cluster_id, fp.cluster_id), "cluster ID %s vs %s", parsed.cluster_id, fp.cluster_id);
  free(text);
  return check_report();
}
