/* Surface files: CSV and JSON readers accept good input and name the line or JSON path of bad input. */
#include "check.h"
#include "internal.h"
#include "io.h"
#include "vkocc.h"
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/vkocc-io-XXXXXX";
#define write_tmp(name, text) check_write_tmp(dir, name, text)

static void expect_error(const char *name, const char *text, const char *needle) {
  vkocc_surface s;
  const char *p = write_tmp(name, text);
  CHECK(vkocc_surface_load(p, &s) == VKOCC_ERROR_USAGE, "%s must be refused", name);
  CHECK_CONTAINS(vkocc_last_error(), needle);
  CHECK_CONTAINS(vkocc_last_error(), name);
}

int main(int argc, char **argv) {
  const char *data = argc > 1 ? argv[1] : NULL; /* tests/data */
  if (!mkdtemp(dir)) return 2;
  vkocc_surface s;
  const char *p = write_tmp("ok.csv", "# measured by hand\nwg_size, shared_bytes, P\n32,0,4224\r\n64,16384,792\n\n");
  CHECK(vkocc_surface_load(p, &s) == VKOCC_OK, "good csv: %s", vkocc_last_error());
  CHECK(s.count == 2 && s.points[1].wg_size == 64 && s.points[1].shared_bytes == 16384 && s.points[1].P == 792,
        "csv values");
  CHECK(!s.has_device && s.subgroup_size == 0, "csv has no device");
  /* round trip through JSON */
  char jp[300];
  snprintf(jp, sizeof jp, "%s/rt.json", dir);
  CHECK(vkocc_surface_save(&s, jp) == VKOCC_OK, "save: %s", vkocc_last_error());
  vkocc_surface t;
  CHECK(vkocc_surface_load(jp, &t) == VKOCC_OK, "reload: %s", vkocc_last_error());
  CHECK(t.count == 2 && t.points[0].P == 4224 && t.points[1].shared_bytes == 16384, "round trip");
  vkocc_surface_free(&s);
  vkocc_surface_free(&t);

  expect_error("header.csv", "wg,shm,P\n32,0,1\n", "header.csv:1: expected the header");
  expect_error("fields.csv", "wg_size,shared_bytes,P\n32,0\n", "fields.csv:2: '32,0': expected 3 comma-separated fields wg_size,shared_bytes,P, found 2");
  expect_error("number.csv", "wg_size,shared_bytes,P\n32,0,abc\n", "number.csv:2: P 'abc' is not a non-negative integer");
  expect_error("negative.csv", "wg_size,shared_bytes,P\n32,-5,7\n", "shared_bytes '-5'");
  expect_error("zero.csv", "wg_size,shared_bytes,P\n0,0,7\n", "wg_size must be positive");
  expect_error("empty.csv", "", "empty file");
  expect_error("norows.csv", "wg_size,shared_bytes,P\n", "no data rows");
  expect_error("schema.json", "{\"schema\": \"vkocc.surface/2\", \"points\": []}", "$.schema: version 2");
  expect_error("other.json", "{\"schema\": \"vkocc.calibration/1\"}", "$.schema: expected \"vkocc.surface/1\"");
  expect_error("type.json", "{\"schema\": \"vkocc.surface/1\", \"points\": [{\"wg_size\": 32, \"shared_bytes\": 0, \"P\": \"x\"}]}",
               "$.points[0].P: expected a non-negative 32-bit integer");
  expect_error("missing.json", "{\"schema\": \"vkocc.surface/1\", \"points\": [{\"wg_size\": 32, \"P\": 1}]}",
               "$.points[0].shared_bytes: missing");
  expect_error("emptysurf.json", "{\"schema\": \"vkocc.surface/1\", \"points\": []}", "the surface is empty");
  expect_error("broken.json", "{\"schema\": \"vkocc.surface/1\", ", "invalid JSON");
  CHECK(vkocc_surface_load("/nonexistent/x.csv", &s) == VKOCC_ERROR_USAGE, "missing file");
  CHECK_CONTAINS(vkocc_last_error(), "/nonexistent/x.csv");

  /* values beyond the documented ranges (vkocc.h) crashed calc, plot and view */
  expect_error("w.csv", "wg_size,shared_bytes,P\n4294967295,0,1\n", "w.csv:2: wg_size 4294967295 is out of range (at most 65536)");
  expect_error("n.csv", "wg_size,shared_bytes,P\n4294967168,0,1\n", "n.csv:2: wg_size 4294967168 is out of range");
  expect_error("f1.csv", "# measured by hand\r\n wg_size , shared_bytes , P \r\n64,0,128\r\n\r\n4294967295,8192,40\r\n",
               "f1.csv:5: wg_size 4294967295 is out of range"); /* fuzz finding F1 */
  expect_error("wg.csv", "wg_size,shared_bytes,P\n65537,0,1\n", "wg.csv:2: wg_size 65537 is out of range");
  expect_error("bigp.csv", "wg_size,shared_bytes,P\n32,0,4294967295\n", "bigp.csv:2: P 4294967295 is out of range (at most 2147483647)");
  expect_error("bigs.csv", "wg_size,shared_bytes,P\n32,2147483648,1\n", "bigs.csv:2: shared_bytes 2147483648 is out of range");
  expect_error("huge.csv", "wg_size,shared_bytes,P\n32,0,99999999999999999999999\n", "huge.csv:2: P 99999999999999999999999 is out of range");
  expect_error("wg.json", "{\"schema\": \"vkocc.surface/1\", \"points\": [{\"wg_size\": 4294967295, \"shared_bytes\": 0, \"P\": 1}]}",
               "$.points[0].wg_size: 4294967295 is out of range (at most 65536)");
  expect_error("p.json", "{\"schema\": \"vkocc.surface/1\", \"points\": [{\"wg_size\": 32, \"shared_bytes\": 0, \"P\": 1}, "
               "{\"wg_size\": 32, \"shared_bytes\": 4, \"P\": 3000000000}]}", "$.points[1].P: 3000000000 is out of range");
  expect_error("fpsurf.json", "{\"schema\": \"vkocc.fingerprint/1\", \"surface\": {\"points\": [{\"wg_size\": 32, "
               "\"shared_bytes\": 2147483648, \"P\": 1}]}}", "$.surface.points[0].shared_bytes: 2147483648 is out of range");
  /* leniency: duplicates that disagree, text after a NUL byte, empty fields, all-zero P */
  expect_error("dup.csv", "wg_size,shared_bytes,P\n32,0,4224\n64,0,4224\n32,0,4200\n",
               "dup.csv:4: wg_size 32, shared_bytes 0 again, with P 4200 (line 2 has P 4224)");
  expect_error("dup.json", "{\"schema\": \"vkocc.surface/1\", \"points\": [{\"wg_size\": 32, \"shared_bytes\": 0, \"P\": 5}, "
               "{\"wg_size\": 32, \"shared_bytes\": 0, \"P\": 6}]}", "$.points[1]: wg_size 32, shared_bytes 0 again, with P 6 ($.points[0] has P 5)");
  expect_error("lead.csv", "wg_size,shared_bytes,P\n,32,0,4224\n", "lead.csv:2: ',32,0,4224': expected 3 comma-separated fields wg_size,shared_bytes,P, found 4");
  expect_error("trail.csv", "wg_size,shared_bytes,P\n32,0,4224,\n", "trail.csv:2: '32,0,4224,': expected 3 comma-separated fields wg_size,shared_bytes,P, found 4");
  expect_error("mid.csv", "wg_size,shared_bytes,P\n32, ,4224\n", "mid.csv:2: shared_bytes is empty");
  expect_error("hdr.csv", "wg_size,shared_bytes,P,\n32,0,4224\n", "hdr.csv:1: expected the header");
  expect_error("zeros.csv", "wg_size,shared_bytes,P\n32,0,0\n64,0,0\n", "zeros.csv: every point has P = 0");
  expect_error("lines.csv", "wg_size,shared_bytes,P\n\n\n32,0,x\n", "lines.csv:4: P 'x'"); /* blank lines count */
  {
    static const char nul[] = "wg_size,shared_bytes,P\n32,0,4224\n\0" "64,0,1\n";
    char np[300];
    snprintf(np, sizeof np, "%s/nul.csv", dir);
    FILE *f = fopen(np, "wb");
    fwrite(nul, 1, sizeof nul - 1, f);
    fclose(f);
    CHECK(vkocc_surface_load(np, &s) == VKOCC_ERROR_USAGE, "a NUL byte must be refused");
    CHECK_CONTAINS(vkocc_last_error(), "nul.csv:3: a NUL byte");
  }
  /* the same point twice with the same P: kept once; a UTF-8 byte order mark is no header error */
  p = write_tmp("same.csv", "\xEF\xBB\xBFwg_size,shared_bytes,P\n32,0,4224\n64,0,4224\n32,0,4224\n");
  CHECK(vkocc_surface_load(p, &s) == VKOCC_OK, "BOM + duplicate with the same P: %s", vkocc_last_error());
  CHECK(s.count == 2 && s.points[0].wg_size == 32 && s.points[1].wg_size == 64, "kept once: %u points", s.count);
  vkocc_surface_free(&s);

  /* a fingerprint without its measured surface (the schema makes it optional): a clear error for what needs
   * the points; the limits for calc, from its "derived" when present, else from its normalized values */
  if (data) {
    char fpp[600];
    snprintf(fpp, sizeof fpp, "%s/fp-hopper-132.json", data);
    CHECK(vkocc_surface_load(fpp, &s) == VKOCC_ERROR_USAGE, "a fingerprint without surface has no points");
    CHECK_CONTAINS(vkocc_last_error(), "fp-hopper-132.json: $.surface: missing");
    vkocc_derived d;
    bool model_only = false;
    CHECK(vkocc_surface_load_model(fpp, &s, &d, &model_only) == VKOCC_OK, "model: %s", vkocc_last_error());
    CHECK(model_only && s.count == 0 && s.has_device && !strcmp(s.device.name, "hopper (132 SMs)"), "model only");
    CHECK(d.sm_count == 0 && d.wg_per_sm == 32 && d.subgroups_per_sm == 64 && d.subgroup_size == 32 &&
          d.shared_per_sm == 102400 && d.n_unexplained == 0, "per SM: %u SMs W %u S %u sg %u M %u", d.sm_count,
          d.wg_per_sm, d.subgroups_per_sm, d.subgroup_size, d.shared_per_sm);
    vkocc_surface_free(&s);
    /* with the derived limits of a full fingerprint: those are taken as they are */
    json_error_t je;
    json_t *doc = json_load_file(fpp, 0, &je);
    json_object_set_new(doc, "derived", json_pack("{s:i, s:i, s:i, s:i, s:i, s:b}", "sm_count", 132, "workgroups_per_sm",
                                                  32, "subgroups_per_sm", 64, "subgroup_size", 32,
                                                  "shared_bytes_per_sm", 102400, "shared_limit_seen", 1));
    char dp[300];
    snprintf(dp, sizeof dp, "%s/derived.json", dir);
    json_dump_file(doc, dp, 0);
    CHECK(vkocc_surface_load_model(dp, &s, &d, &model_only) == VKOCC_OK, "derived: %s", vkocc_last_error());
    CHECK(model_only && d.sm_count == 132 && d.threads_per_sm == 2048 && d.shared_per_sm == 102400, "derived: %u SMs",
          d.sm_count);
    vkocc_surface_free(&s);
    json_object_set_new(json_object_get(doc, "derived"), "sm_count", json_integer(0));
    json_dump_file(doc, dp, 0);
    CHECK(vkocc_surface_load_model(dp, &s, &d, &model_only) == VKOCC_ERROR_USAGE, "0 SMs must be refused");
    CHECK_CONTAINS(vkocc_last_error(), "$.derived.sm_count: 0 is out of range");
    json_decref(doc);
  }
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 2;
  return check_report();
}
