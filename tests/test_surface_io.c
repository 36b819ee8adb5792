/* Surface files: CSV and JSON readers accept good input and name the line or JSON path of bad input. */
#include "check.h"
#include "vkocc.h"
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

int main(void) {
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
  expect_error("fields.csv", "wg_size,shared_bytes,P\n32,0\n", "fields.csv:2: expected 3 comma-separated fields");
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
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 2;
  return check_report();
}
