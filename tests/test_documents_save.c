/* The public document writers of a calibration and of a probe (vkocc_calibration_save, vkocc_probe_save,
 * vkocc_raw_probe_save): no device. Each document read back: its schema, its device and the values given;
 * the raw probe through its public reader, vkocc_raw_probe_load; the errors for a missing argument, a result
 * without repetitions, and a path that is a directory. */
#include "check_json.h"
#include "vkocc.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static vkocc_device_info device(void) {
  vkocc_device_info d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "%s", "Test GPU");
  snprintf(d.driver_name, sizeof d.driver_name, "%s", "testdrv");
  snprintf(d.driver_info, sizeof d.driver_info, "%s", "1.2.3");
  d.vendor_id = 0x10de, d.device_id = 0x2330, d.driver_version = 0x12345678, d.subgroup_size = 32;
  d.max_shared_bytes = 49152;
  return d;
}

static json_t *load(const char *path) {
  json_t *doc = check_load_json(path);
  return doc;
}

static const char *str(json_t *o, const char *a, const char *b) {
  json_t *v = json_object_get(o, a);
  if (b) v = json_object_get(v, b);
  return json_string_value(v) ? json_string_value(v) : "";
}

int main(void) {
  char dir[] = "/tmp/vkocc-docsave-XXXXXX", path[256];
  if (!mkdtemp(dir)) return 1;
  vkocc_device_info d = device();

  /* calibration */
  vkocc_calibration cal;
  memset(&cal, 0, sizeof cal);
  cal.has_device_clock = true, cal.ns_per_tick = 1.0, cal.overhead_ns = 4321.5, cal.samples = 120, cal.attempts = 2;
  cal.poor_fit = true;
  snprintf(path, sizeof path, "%s/cal.json", dir);
  CHECK(vkocc_calibration_save(&d, &cal, path) == VKOCC_OK, "%s", vkocc_last_error());
  json_t *doc = load(path);
  CHECK(!strcmp(str(doc, "schema", NULL), "vkocc.calibration/1"), "schema %s", str(doc, "schema", NULL));
  CHECK(!strcmp(str(doc, "tool_version", NULL), vkocc_version()), "tool_version %s", str(doc, "tool_version", NULL));
  CHECK(!strcmp(str(doc, "device", "name"), "Test GPU"), "device %s", str(doc, "device", "name"));
  json_t *c = json_object_get(doc, "calibration");
  CHECK_NEAR(json_number_value(json_object_get(c, "dispatch_overhead_ns")), 4321.5, 1e-9);
  CHECK_EQ_U(json_integer_value(json_object_get(c, "samples")), 120);
  CHECK_EQ_U(json_integer_value(json_object_get(c, "attempts")), 2);
  CHECK(json_is_true(json_object_get(c, "poor_fit")), "poor_fit not recorded");
  CHECK(json_is_null(json_object_get(c, "shader_clock_mhz")), "a subgroup clock that was not measured is null");
  json_decref(doc);

  /* probe: P, methods and every repetition */
  vkocc_probe_result r;
  memset(&r, 0, sizeof r);
  r.wg_size = 256, r.shared_bytes = 8192, r.method = VKOCC_METHOD_BOTH, r.P = 1056, r.agree = true, r.repeat = 2;
  r.comb_median = r.comb_min = r.comb_max = 1056;
  r.bisect_median = r.bisect_min = r.bisect_max = 1056;
  r.sleep_ns = 2e5;
  r.reps[0].comb_P = 1055, r.reps[1].comb_P = 1056;
  vkocc_interval iv[3] = {{100.0, 250.5, true}, {0, 0, false}, {120.25, 260.0, true}};
  r.raw = iv, r.raw_count = 3;
  snprintf(path, sizeof path, "%s/probe.json", dir);
  CHECK(vkocc_probe_save(&d, &r, path) == VKOCC_OK, "%s", vkocc_last_error());
  doc = load(path);
  CHECK(!strcmp(str(doc, "schema", NULL), "vkocc.probe/1"), "schema %s", str(doc, "schema", NULL));
  json_t *p = json_object_get(doc, "probe");
  CHECK_EQ_U(json_integer_value(json_object_get(p, "P")), 1056);
  CHECK_EQ_U(json_integer_value(json_object_get(p, "wg_size")), 256);
  CHECK_EQ_U(json_integer_value(json_object_get(p, "shared_bytes")), 8192);
  CHECK(!strcmp(str(p, "method", NULL), "both"), "method %s", str(p, "method", NULL));
  CHECK_EQ_U(json_array_size(json_object_get(p, "repetitions")), 2);
  CHECK_EQ_U(json_integer_value(json_object_get(json_object_get(p, "comb"), "median")), 1056);
  json_decref(doc);

  /* raw probe: the last comb's intervals, read back by the public reader */
  snprintf(path, sizeof path, "%s/raw.json", dir);
  CHECK(vkocc_raw_probe_save(&d, &r, path) == VKOCC_OK, "%s", vkocc_last_error());
  doc = load(path);
  CHECK(!strcmp(str(doc, "schema", NULL), "vkocc.raw-probe/1"), "schema %s", str(doc, "schema", NULL));
  CHECK_EQ_U(json_integer_value(json_object_get(doc, "P")), 1056);
  CHECK_NEAR(json_number_value(json_object_get(doc, "sleep_ns")), 2e5, 1e-9);
  json_decref(doc);
  vkocc_interval *back = NULL;
  uint32_t n = 0;
  vkocc_device_info dev;
  CHECK(vkocc_raw_probe_load(path, &back, &n, &dev) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(n, 3);
  if (n == 3) {
    CHECK(back[0].valid && !back[1].valid && back[2].valid, "validity %d %d %d", back[0].valid, back[1].valid, back[2].valid);
    CHECK_NEAR(back[0].end, 250.5, 1e-9);
    CHECK_NEAR(back[2].start, 120.25, 1e-9);
  }
  CHECK(!strcmp(dev.name, "Test GPU") && dev.vendor_id == 0x10de, "device %s %x", dev.name, dev.vendor_id);
  free(back);

  /* errors */
  CHECK(vkocc_calibration_save(&d, &cal, NULL) == VKOCC_ERROR_USAGE, "no path");
  CHECK_CONTAINS(vkocc_last_error(), "vkocc_calibration_save");
  CHECK(vkocc_probe_save(NULL, &r, path) == VKOCC_ERROR_USAGE, "no device");
  vkocc_probe_result none;
  memset(&none, 0, sizeof none);
  CHECK(vkocc_raw_probe_save(&d, &none, path) == VKOCC_ERROR_USAGE, "no repetitions");
  CHECK_CONTAINS(vkocc_last_error(), "repetitions");
  CHECK(vkocc_probe_save(&d, &r, dir) == VKOCC_ERROR_USAGE, "a directory is not replaced");
  CHECK(vkocc_calibration_save(&d, &cal, "/nonexistent-dir/x/cal.json") != VKOCC_OK, "an unwritable path");

  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return check_report();
}
