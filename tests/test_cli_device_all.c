/* --device all on lavapipe (N = 1; cli/multi_device.c): one document per device and a summary, the
 * adaptive surface's points marked, devices --device all, and the flag's misuse. */
#include "check_json.h"
#include "run.h"
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s VKOCC_BINARY\n", argv[0]); return 2; }
  const char *bin = argv[1];
  char dir[] = "/tmp/vkocc-devall-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  char *out;
  int rc = run_fmt(&out, "%s surface --device all --wg 64,128 --shmem 0,4K -o %s/s.json 2>&1", bin, dir);
  CHECK(rc == 0, "surface --device all exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "1 device measured at once");
  free(out);
  char path[512];
  snprintf(path, sizeof path, "%s/s-summary.json", dir);
  json_t *sum = check_load_json(path);
  CHECK(json_is_true(json_object_get(sum, "same_cluster")), "one device, one cluster");
  CHECK_EQ_U(json_integer_value(json_object_get(sum, "devices_measured")), 1);
  json_t *d0 = json_array_get(json_object_get(sum, "devices"), 0);
  const char *id = json_string_value(json_object_get(d0, "cluster_id"));
  CHECK(id && !strncmp(id, "c2-", 3), "cluster ID %s", id ? id : "(none)");
  snprintf(path, sizeof path, "%s/s-0.json", dir);
  json_t *doc = check_load_json(path);
  /* 4 points, P = LP_NUM_THREADS at each, measured ones carry the comb's P, predicted ones say so */
  json_t *pts = json_object_get(doc, "points");
  CHECK_EQ_U(json_array_size(pts), 4);
  const char *lp = getenv("LP_NUM_THREADS");
  uint32_t measured = 0;
  for (size_t i = 0; i < json_array_size(pts); i++) {
    json_t *p = json_array_get(pts, i);
    if (lp) CHECK(json_integer_value(json_object_get(p, "P")) == atoi(lp), "point %zu: P", i);
    bool pred = json_is_true(json_object_get(p, "predicted"));
    CHECK(pred == (json_object_get(p, "comb_P") == NULL), "point %zu: predicted XOR measured", i);
    measured += !pred;
  }
  CHECK(measured == json_integer_value(json_object_get(json_object_get(doc, "measured"), "points")),
        "measured points %u", measured);
  json_decref(doc);
  json_decref(sum);
  rc = run_fmt(&out, "%s devices --device all 2>&1", bin);
  CHECK(rc == 0 && strstr(out, "llvmpipe"), "devices --device all exit %d", rc);
  free(out);
  /* --device D lists only that device; one that matches nothing is a usage error naming the flag */
  rc = run_fmt(&out, "%s devices --device 0 2>&1", bin);
  CHECK(rc == 0 && strstr(out, "llvmpipe") && strstr(out, "queue family 0"), "devices --device 0 exit %d", rc);
  free(out);
  rc = run_fmt(&out, "%s devices --device 7 2>&1", bin);
  CHECK(rc == 2, "devices --device 7 exit %d", rc);
  CHECK_CONTAINS(out, "--device");
  free(out);
  rc = run_fmt(&out, "%s surface --device all --wg 64 --shmem 0 -o /nonexistent/dir/s 2>&1", bin);
  CHECK(rc == 2, "unwritable prefix exit %d", rc);
  free(out);
  rc = run_fmt(&out, "%s fingerprint --device all -o - 2>&1", bin);
  CHECK(rc == 2, "-o - exit %d", rc);
  CHECK_CONTAINS(out, "use --json");
  free(out);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 1;
  return check_report();
}
