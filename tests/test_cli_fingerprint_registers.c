/* vkocc fingerprint and the register axis, on lavapipe: the driver reports no register statistic, so the axis is
 * "unknown", said once, and the fingerprint still succeeds (exit 0) with the same document otherwise (cluster ID,
 * surface) as with --no-registers, which records nothing about registers. A register model in the device's cache
 * is reused (no sweep) and recorded, for one device and for --device all. argv: the vkocc binary, tests/data. */
#include "check_json.h"
#include "run.h"
#include "cache_plant.h"
#include <jansson.h>
#include <unistd.h>

static json_t *parse(const char *text) {
  json_error_t e;
  json_t *doc = json_loads(text, 0, &e);
  CHECK(doc != NULL, "not JSON: %.200s", text);
  return doc;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s VKOCC DATA_DIR\n", argv[0]); return 2; }
  const char *bin = argv[1], *data = argv[2];
  char cache[] = "/tmp/vkocc-fpreg-XXXXXX";
  if (!mkdtemp(cache)) return 2;
  setenv("XDG_CACHE_HOME", cache, 1);
  setenv("LP_NUM_THREADS", "2", 1);
  char *out;
  /* the unknown path: exit 0, the reason recorded, no model */
  int rc = run_fmt(&out, "%s fingerprint --fresh --json 2>/dev/null", bin);
  CHECK(rc == 0, "fingerprint exit %d", rc);
  json_t *with = parse(out);
  free(out);
  json_t *axis = json_object_get(with, "register_axis");
  CHECK(json_is_object(axis) && !strcmp(json_string_value(json_object_get(axis, "status")), "unknown"),
        "register_axis.status unknown");
  CHECK_CONTAINS(json_string_value(json_object_get(axis, "reason")) ? json_string_value(json_object_get(axis, "reason")) : "",
                 "the register axis is unknown");
  CHECK(!json_object_get(with, "register_model"), "no register model on lavapipe");
  /* said once: one line on the terminal text (stdout and stderr together) */
  rc = run_fmt(&out, "%s fingerprint 2>&1", bin);
  CHECK(rc == 0, "text exit %d", rc);
  CHECK(count(out, "register axis is unknown") == 1, "said once, not %d times: %s", count(out, "register axis is unknown"), out);
  CHECK_CONTAINS(out, "registers:   unknown: ");
  free(out);
  /* --no-registers: nothing about registers; everything else the same document (the cached fingerprint) */
  rc = run_fmt(&out, "%s fingerprint --no-registers --json 2>&1", bin);
  CHECK(rc == 0, "--no-registers exit %d", rc);
  json_t *without = parse(out);
  CHECK(!strstr(out, "register axis") && !strstr(out, "register_axis") && !strstr(out, "register_model"),
        "--no-registers says nothing about registers");
  free(out);
  if (with && without) {
    json_object_del(with, "register_axis");
    CHECK(json_equal(with, without), "the fingerprint is the same with and without the register axis");
    CHECK(!strcmp(json_string_value(json_object_get(with, "cluster_id")), json_string_value(json_object_get(without, "cluster_id"))),
          "one cluster ID");
  }
  json_decref(with);
  json_decref(without);
  /* a register model in the device's cache is reused and recorded (the H100's measured register document,
   * placed where this device's would be: a test of the reuse only), and the text says so */
  /* planted sealed under this device's key, as vkocc stores it (an unsealed file would be a miss) */
  char reg[1300];
  snprintf(reg, sizeof reg, "%s/../../docs/results/h100/registers/registers-graphics.json", data);
  json_error_t e;
  json_t *regdoc = check_load_json(reg);
  bool planted = regdoc && plant_registers(regdoc, cache, "2");
  CHECK(planted, "the register document planted in %s", cache);
  json_decref(regdoc);
  if (planted) {
    rc = run_fmt(&out, "%s fingerprint --json 2>/dev/null", bin);
    CHECK(rc == 0, "with a cached model: exit %d", rc);
    json_t *doc = parse(out);
    free(out);
    json_t *m = json_object_get(doc, "register_model");
    CHECK(json_is_object(m) && json_integer_value(json_object_get(m, "regs_per_sm")) == 65536 &&
              !json_object_get(doc, "register_axis"), "the cached model recorded (%s)", reg);
    json_decref(doc);
    rc = run_fmt(&out, "%s fingerprint 2>&1", bin);
    CHECK_CONTAINS(out, "registers:   65536 per SM");
    free(out);
    /* --device all: each device's document gets the axis as one device's does (the cached model here), and
     * --no-registers leaves it out */
    for (int no = 0; no < 2; no++) {
      rc = run_fmt(&out, "%s fingerprint --device all%s -o %s/all.json 2>&1", bin, no ? " --no-registers" : "", cache);
      CHECK(rc == 0, "--device all%s: exit %d: %s", no ? " --no-registers" : "", rc, out);
      free(out);
      char p0[1200];
      snprintf(p0, sizeof p0, "%s/all-0.json", cache);
      json_t *d0 = json_load_file(p0, 0, &e);
      CHECK(d0 != NULL, "%s: %s", p0, d0 ? "" : e.text);
      json_t *m0 = json_object_get(d0, "register_model");
      if (no) CHECK(!m0 && !json_object_get(d0, "register_axis"), "--device all --no-registers: nothing about registers");
      else CHECK(json_integer_value(json_object_get(m0, "regs_per_sm")) == 65536, "--device all: the cached model recorded");
      json_decref(d0);
    }
  }
  run_fmt(&out, "rm -rf '%s'", cache);
  free(out);
  return check_report();
}
