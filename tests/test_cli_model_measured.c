/* Where a command needs the per-SM model and the cache has none, it measures it instead of refusing; the cluster ID
 * alone (fingerprint --id-only, vkocc_cluster_id_only) and the example application that picks its parameters by it
 * (examples/cluster_start). On lavapipe (LP_NUM_THREADS=2: P = 2), which reports no pipeline statistics: a test
 * hook (VKOCC_TEST_AUGMENTED_SHARED_EXTRA) says that the augmentation added shared memory, so P of the pipeline as
 * written needs the model. Each case starts from an empty cache of its own. */
#include "check.h"
#include "run.h"
#include <stdlib.h>

static char root[] = "/tmp/vkocc-model-XXXXXX";

/* An empty cache directory of its own, as XDG_CACHE_HOME. */
static void fresh_cache(const char *name) {
  char dir[300], cmd[400];
  snprintf(dir, sizeof dir, "%s/%s", root, name);
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  if (system(cmd)) {}
  setenv("XDG_CACHE_HOME", dir, 1);
}

/* The first line of out starting with key ("cluster_id: "), its value into v. */
static void value_of(const char *out, const char *key, char *v, size_t len) {
  v[0] = 0;
  const char *p = strstr(out, key);
  if (!p) return;
  p += strlen(key);
  size_t n = strcspn(p, "\n");
  snprintf(v, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: %s VKOCC CLUSTER_START SHADER_DIR\n", argv[0]); return 2; }
  const char *bin = argv[1], *app = argv[2], *shaders = argv[3];
  if (!mkdtemp(root)) return 1;
  const char *bounded = "\"evidence\": \"measured: the augmented pipeline uses no less of any resource and reaches the "
                        "written pipeline's limit\"";
  char *out;
  /* probe --shader: no cached fingerprint, so the model is measured (recorded in the document), then the same P
   * from the cached one, and without the hook the same P again */
  fresh_cache("probe");
  setenv("VKOCC_TEST_AUGMENTED_SHARED_EXTRA", "16", 1);
  int rc = run_fmt(&out, "%s probe --shader %s/reduction.comp --method comb --json", bin, shaders);
  CHECK(rc == 0, "probe --shader without a cached fingerprint: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "\"model\": {\n    \"derived\": \"measured\"\n  }");
  CHECK_CONTAINS(out, bounded);
  CHECK_CONTAINS(out, "\"P\": 2,");
  free(out);
  rc = run_fmt(&out, "%s probe --shader %s/reduction.comp --method comb --json", bin, shaders);
  CHECK(rc == 0, "probe --shader with the cached fingerprint: exit %d: %s", rc, out);
  CHECK(!strstr(out, "\"model\""), "nothing measured for the command the second time");
  CHECK_CONTAINS(out, bounded);
  CHECK_CONTAINS(out, "\"P\": 2,");
  free(out);
  /* --from stays for offline use: a file that is no surface is refused, nothing measured */
  rc = run_fmt(&out, "%s probe --shader %s/reduction.comp --from %s/histogram.comp 2>&1", bin, shaders, shaders);
  CHECK(rc == 2, "--from a shader: exit %d: %s", rc, out);
  free(out);
  /* surface --shader: the same */
  fresh_cache("surface");
  rc = run_fmt(&out, "%s surface --shader %s/histogram.comp --vary 0=32,64 --vary 1=64 --method comb --json", bin, shaders);
  CHECK(rc == 0, "surface --shader without a cached fingerprint: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "\"model\": {\n    \"derived\": \"measured\"\n  }");
  CHECK(strstr(out, "\"P\": 2,") && strstr(strstr(out, "\"P\": 2,") + 1, "\"P\": 2,"), "P = 2 at both points: %s", out);
  free(out);
  rc = run_fmt(&out, "%s surface --shader %s/histogram.comp --vary 0=32,64 --vary 1=64 --method comb", bin, shaders);
  CHECK(rc == 0, "surface --shader with the cached fingerprint: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "32         64         32       256          2      yes");
  CHECK_CONTAINS(out, "64         64         64       256          2      yes");
  free(out);
  unsetenv("VKOCC_TEST_AUGMENTED_SHARED_EXTRA");
  fresh_cache("plain");
  rc = run_fmt(&out, "%s probe --shader %s/reduction.comp --method comb", bin, shaders);
  CHECK(rc == 0, "probe --shader, no statistics: exit %d", rc);
  CHECK_CONTAINS(out, "P = 2 (the pipeline as written: measured: the driver reports no statistics to compare)");
  free(out);
  /* the cluster ID alone: measured once, then from the cache; the example application picks by it */
  fresh_cache("id");
  char id[64], id2[64], v[64];
  rc = run_fmt(&out, "%s fingerprint --id-only", bin);
  CHECK(rc == 0, "fingerprint --id-only: exit %d: %s", rc, out);
  value_of(out, "", id, sizeof id);
  CHECK(!strncmp(id, "c3", 2) && strlen(id) >= 15, "an ID of recipe c3: '%s'", id);
  free(out);
  rc = run_fmt(&out, "%s fingerprint --id-only --json", bin);
  CHECK(rc == 0, "fingerprint --id-only --json: exit %d", rc);
  CHECK_CONTAINS(out, "\"from_cache\": true");
  CHECK_CONTAINS(out, id);
  free(out);
  rc = run_fmt(&out, "%s fingerprint --json --no-registers", bin); /* the whole fingerprint names the same ID */
  CHECK(rc == 0, "fingerprint: exit %d", rc);
  CHECK_CONTAINS(out, id);
  free(out);
  /* the pipelines of the axes built ahead, during the calibration (a GPU's path): the same ID, measured */
  fresh_cache("id-prebuilt");
  setenv("VKOCC_TEST_PREBUILD", "1", 1);
  rc = run_fmt(&out, "%s fingerprint --id-only --json", bin);
  unsetenv("VKOCC_TEST_PREBUILD");
  CHECK(rc == 0, "fingerprint --id-only, pipelines built ahead: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "\"from_cache\": false");
  CHECK_CONTAINS(out, id);
  free(out);
  fresh_cache("id");
  rc = run_fmt(&out, "%s --problem-size 1000", app);
  CHECK(rc == 0, "cluster_start: exit %d: %s", rc, out);
  value_of(out, "cluster_id: ", id2, sizeof id2);
  CHECK(!strcmp(id, id2), "the example's ID %s, the command's %s", id2, id);
  CHECK_CONTAINS(out, "from_cache: yes");
  CHECK_CONTAINS(out, "rule: default\nwg_size: 256\nelements_per_thread: 8");
  free(out);
  rc = run_fmt(&out, "%s --cluster c1-dace7ddcd2e0 --problem-size 1000", app);
  CHECK(rc == 0, "cluster_start --cluster: exit %d", rc);
  CHECK_CONTAINS(out, "rule: table\nwg_size: 512\nelements_per_thread: 14");
  free(out);
  rc = run_fmt(&out, "%s --cluster c1-dace7ddcd2e0 --problem-size 2000000", app);
  CHECK_CONTAINS(out, "rule: table\nwg_size: 256\nelements_per_thread: 15");
  free(out);
  rc = run_fmt(&out, "%s fingerprint --id-only -o x.json 2>&1", bin);
  CHECK(rc == 2, "--id-only -o: exit %d", rc);
  free(out);
  /* a fresh process in an empty cache: the example measures the ID itself, the same */
  fresh_cache("app");
  rc = run_fmt(&out, "%s", app);
  CHECK(rc == 0, "cluster_start in an empty cache: exit %d: %s", rc, out);
  value_of(out, "cluster_id: ", v, sizeof v);
  CHECK(!strcmp(v, id), "measured by the example: %s, by the command: %s", v, id);
  CHECK_CONTAINS(out, "from_cache: no");
  free(out);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", root);
  if (system(cmd)) {}
  return check_report();
}
