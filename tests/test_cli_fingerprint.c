/* fingerprint, cluster and policy through the CLI: lavapipe with 1 and 2 worker threads gives one cluster
 * ID; the cache is reused; bad input fails cleanly and writes nothing. */
#include "check.h"
#include "run.h"
#include <glob.h>
#include <jansson.h>
#include <unistd.h>

static char *field(const char *json_text, const char *key) {
  json_error_t e;
  json_t *doc = json_loads(json_text, 0, &e);
  const char *v = doc ? json_string_value(json_object_get(doc, key)) : NULL;
  char *r = strdup(v ? v : "");
  json_decref(doc);
  return r;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s VKOCC DATA_DIR\n", argv[0]); return 2; }
  const char *bin = argv[1], *data = argv[2];
  char *out, *id1, *id2;
  int rc = run_fmt(&out, "LP_NUM_THREADS=1 %s fingerprint --fresh -o /tmp/vkocc-fp1.json --json 2>/dev/null", bin);
  CHECK(rc == 0, "fingerprint LP=1 exit %d", rc);
  id1 = field(out, "cluster_id");
  CHECK_CONTAINS(out, "\"schema\": \"vkocc.fingerprint/3\""); /* recipe c2, the shared capacity as an attribute */
  CHECK_CONTAINS(out, "\"cluster_recipe\": \"c3\"");
  /* lavapipe's clock is no cycle counter: its timing signals are recorded but kept out of the ID, which says so */
  CHECK(!strncmp(id1, "c3p-", 4), "a partial signature's ID: %s", id1);
  CHECK_CONTAINS(out, "\"state\": \"not-stable\"");
  CHECK_CONTAINS(out, "\"occupancy_id\": \"c2-");
  CHECK_CONTAINS(out, "\"shared_capacity\": [");
  CHECK(!strstr(out, "\"register_model\""), "lavapipe has no register axis: none recorded");
  CHECK_CONTAINS(out, "\"sm_count\": 1,");
  CHECK(!strstr(out, "vendor_reported"), "lavapipe fingerprint has vendor_reported"); /* no vendor extension */
  free(out);
  /* a cached file stripped of device, derived limits and surface whose ID still matches is no
   * cache hit (it printed "0 SMs" with exit 0). The 1-thread file, stripped, becomes the 2-thread cache
   * (same device and cluster ID): the 2-thread run must measure, not reuse it. */
  glob_t g;
  char pat[1100], cached2[1100] = "";
  snprintf(pat, sizeof pat, "%s/vkocc/fingerprint-*-q*-lp1.json", getenv("XDG_CACHE_HOME") ? getenv("XDG_CACHE_HOME") : "/nonexistent");
  CHECK(glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1, "one cached lavapipe-1 fingerprint in %s", pat);
  if (g.gl_pathc == 1) {
    snprintf(cached2, sizeof cached2, "%s", g.gl_pathv[0]);
    memcpy(cached2 + strlen(cached2) - strlen("1.json"), "2.json", 6);
    json_error_t je;
    json_t *doc = json_load_file(g.gl_pathv[0], 0, &je);
    json_object_del(doc, "device"), json_object_del(doc, "derived"), json_object_del(doc, "surface");
    CHECK(json_dump_file(doc, cached2, JSON_INDENT(2)) == 0, "cannot write %s", cached2);
    json_decref(doc);
  }
  globfree(&g);
  rc = run_fmt(&out, "LP_NUM_THREADS=2 %s fingerprint -o /tmp/vkocc-fp2.json --json 2>/tmp/vkocc-fp2.err", bin);
  CHECK(rc == 0, "fingerprint LP=2 exit %d", rc);
  id2 = field(out, "cluster_id");
  CHECK_CONTAINS(out, "\"sm_count\": 2,");
  free(out);
  run_cmd("cat /tmp/vkocc-fp2.err", &out);
  CHECK(!strstr(out, "using the cached fingerprint"), "the stripped cache %s was reused: %s", cached2, out);
  free(out);
  CHECK(id1[0] && !strcmp(id1, id2), "lavapipe 1 and 2 threads: %s vs %s", id1, id2);
  /* the second run of the same configuration comes from the cache: the very document of the -o run, with
   * its measurement time (the note saying so goes to a terminal only) */
  rc = run_fmt(&out, "LP_NUM_THREADS=2 %s fingerprint --json 2>/dev/null", bin);
  json_error_t e;
  json_t *cached = json_loads(out, 0, &e), *written = json_load_file("/tmp/vkocc-fp2.json", 0, &e);
  json_t *m1 = json_object_get(json_object_get(cached, "measurement"), "elapsed_ms");
  json_t *m2 = json_object_get(json_object_get(written, "measurement"), "elapsed_ms");
  CHECK(rc == 0 && m1 && m2 && json_number_value(m1) == json_number_value(m2), "cached fingerprint not reused (exit %d)", rc);
  json_decref(cached);
  json_decref(written);
  free(out);
  rc = run_fmt(&out, "LP_NUM_THREADS=2 %s fingerprint 2>&1", bin);
  CHECK(rc == 0, "cached fingerprint exit %d", rc);
  CHECK(!strstr(out, "using the cached fingerprint"), "the cache note went to a stderr that is no terminal");
  CHECK_CONTAINS(out, id2);
  CHECK_CONTAINS(out, "derived:     2 SMs");
  CHECK(!strstr(out, "vendor:"), "vendor line printed for lavapipe");
  free(out);
  /* both lavapipe fingerprints form one cluster; the synthetic ones form three */
  rc = run_fmt(&out, "%s cluster /tmp/vkocc-fp1.json /tmp/vkocc-fp2.json", bin);
  CHECK(rc == 0 && strstr(out, "2 fingerprints in 1 cluster"), "lavapipe cluster: %s", out);
  free(out);
  rc = run_fmt(&out, "%s cluster --json %s/fp-hopper-132.json %s/fp-hopper-114.json %s/fp-hopper-noisy.json "
               "%s/fp-ampere-82.json %s/fp-rdna-40.json", bin, data, data, data, data, data);
  CHECK(rc == 0, "cluster exit %d", rc);
  CHECK_CONTAINS(out, "\"clusters_count\": 3");
  free(out);
  /* policy select from files */
  rc = run_fmt(&out, "%s policy select --db %s/policy-db.json --kernel radix_sort --fingerprint %s/fp-hopper-114.json "
               "--var problem_size=1000 --var element_type=u32", bin, data, data);
  CHECK(rc == 0, "policy exit %d", rc);
  CHECK_CONTAINS(out, "rule:    cluster");
  CHECK_CONTAINS(out, "{\"elements_per_thread\":14,\"wg_size\":512}");
  free(out);
  rc = run_fmt(&out, "%s policy select --db %s/policy-db.json --kernel radix_sort --fingerprint %s/fp-rdna-40.json --json",
               bin, data, data);
  CHECK(rc == 0, "policy default exit %d", rc);
  CHECK_CONTAINS(out, "\"rule\": \"default\"");
  free(out);
  /* live: lavapipe is unknown to the database -> default, from the cached fingerprint */
  rc = run_fmt(&out, "LP_NUM_THREADS=2 %s policy select --db %s/policy-db.json --kernel radix_sort 2>&1", bin, data);
  CHECK(rc == 0 && strstr(out, "rule:    default"), "live policy: %s", out);
  free(out);
  /* bad input */
  rc = run_fmt(&out, "%s policy select --db %s/h100-grid.csv --kernel radix_sort --fingerprint %s/fp-rdna-40.json 2>&1",
               bin, data, data);
  CHECK(rc == 2, "csv as db exit %d", rc);
  CHECK_CONTAINS(out, "h100-grid.csv");
  free(out);
  rc = run_fmt(&out, "%s cluster %s/policy-db.json 2>&1", bin, data);
  CHECK(rc == 2, "db as fingerprint exit %d", rc);
  CHECK_CONTAINS(out, "$.schema: expected \"vkocc.fingerprint/3\"");
  free(out);
  unlink("/tmp/vkocc-nodir-check");
  rc = run_fmt(&out, "LP_NUM_THREADS=2 %s fingerprint -o /nonexistent/dir/fp.json 2>&1", bin);
  CHECK(rc == 2, "unwritable output exit %d", rc);
  CHECK_CONTAINS(out, "/nonexistent/dir/fp.json");
  free(out);
  rc = run_fmt(&out, "%s cluster 2>&1", bin);
  CHECK(rc == 2, "cluster without files exit %d", rc);
  free(out);
  const char *cmds[] = {"fingerprint", "cluster", "policy select"};
  for (int i = 0; i < 3; i++) {
    rc = run_fmt(&out, "%s %s --help", bin, cmds[i]);
    CHECK(rc == 0 && strstr(out, "usage: vkocc"), "%s --help", cmds[i]);
    free(out);
  }
  free(id1);
  free(id2);
  return check_report();
}
