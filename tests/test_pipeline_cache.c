/* The user-pipeline P cache cannot lie: a hit answers as the measurement did (P, agreement, method,
 * descriptors); another LP_NUM_THREADS is another key; an edited entry, another module's entry in its place,
 * or a FIFO in place of any cache file (the entry, the driver's pipeline cache, the fingerprint) is a miss
 * that never blocks; a repeated --spec ID is one constant with the last value. On lavapipe, through the CLI. */
#include "check.h"
#include "run.h"
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>

static const char *bin, *shaders;
static char dir[64];

/* calc --shader FILE ARGS --json, measured again when a loaded host made the runs disagree (exit 1) */
static json_t *calc(const char *env, const char *file, const char *args, int *rc) {
  char *out = NULL;
  for (int attempt = 0; attempt < 4; attempt++) {
    free(out);
    *rc = run_fmt(&out, "%s timeout -s KILL 60 %s calc --shader %s/%s %s --json 2>/dev/null", env, bin, shaders, file, args);
    if (*rc != 1) break;
  }
  json_error_t e;
  json_t *doc = *rc == 0 ? json_loads(out, 0, &e) : NULL;
  free(out);
  return doc;
}

/* equal, or both absent (a method's figures are left out where it did not run) */
static bool same(json_t *a, json_t *b) { return (!a && !b) || json_equal(a, b); }
static json_t *probe_of(json_t *d) { return json_object_get(d, "probe"); }
static json_t *shader_of(json_t *d) { return json_object_get(d, "shader"); }
static bool from_cache(json_t *d) { return json_is_true(json_object_get(shader_of(d), "from_cache")); }
static long long P_of(json_t *d) { return json_integer_value(json_object_get(probe_of(d), "P")); }

/* the one entry file pipeline-*.json in the cache (its path into out); false when not exactly one */
static bool entry_path(char *out, size_t n, const char *prefix, const char *suffix) {
  char cdir[128];
  snprintf(cdir, sizeof cdir, "%s/vkocc", dir);
  DIR *d = opendir(cdir);
  int found = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    if (!strncmp(e->d_name, prefix, strlen(prefix)) && strlen(e->d_name) > strlen(suffix) &&
        !strcmp(e->d_name + strlen(e->d_name) - strlen(suffix), suffix)) {
      snprintf(out, n, "%s/%s", cdir, e->d_name);
      found++;
    }
  if (d) closedir(d);
  return found == 1;
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s VKOCC SHADER_DIR\n", argv[0]), 2;
  bin = argv[1], shaders = argv[2];
  snprintf(dir, sizeof dir, "/tmp/vkocc-pcache-XXXXXX");
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  setenv("XDG_CACHE_HOME", dir, 1);
  setenv("LP_NUM_THREADS", "2", 1);
  int rc;
  /* measured, then the same answer from the cache */
  json_t *m = calc("", "reduction.comp", "", &rc);
  CHECK(m && rc == 0, "first calc --shader: exit %d", rc);
  json_t *h = calc("", "reduction.comp", "", &rc);
  CHECK(h && rc == 0, "second calc --shader: exit %d", rc);
  if (m && h) {
    CHECK(!from_cache(m) && from_cache(h), "measured, then cached (%d, %d)", from_cache(m), from_cache(h));
    const char *keys[] = {"P", "agree", "method", "wg_size", "shared_bytes", "sleep_ns", "bisect_wave_ns", "comb", "bisect"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
      CHECK(same(json_object_get(probe_of(m), keys[i]), json_object_get(probe_of(h), keys[i])),
            "probe.%s differs between the measurement and the cache hit: %s vs %s", keys[i],
            json_dumps(json_object_get(probe_of(m), keys[i]), JSON_ENCODE_ANY), json_dumps(json_object_get(probe_of(h), keys[i]), JSON_ENCODE_ANY));
    const char *sk[] = {"descriptors", "push_bytes", "workgroup", "entry", "augmentation_set"};
    for (size_t i = 0; i < sizeof sk / sizeof *sk; i++)
      CHECK(same(json_object_get(shader_of(m), sk[i]), json_object_get(shader_of(h), sk[i])),
            "shader.%s differs between the measurement and the cache hit", sk[i]);
    CHECK(json_integer_value(json_object_get(shader_of(h), "descriptors")) == 2, "descriptors on a hit: %lld",
          json_integer_value(json_object_get(shader_of(h), "descriptors")));
    CHECK(!strcmp(json_string_value(json_object_get(probe_of(h), "method")), "comb"), "method on a hit: %s",
          json_string_value(json_object_get(probe_of(h), "method")));
  }
  json_decref(h);
  /* another thread count: another key, so measured (P = 3 on lavapipe, never the cached 2 as "cached") */
  h = calc("LP_NUM_THREADS=3", "reduction.comp", "", &rc);
  CHECK(h && !from_cache(h) && P_of(h) >= 1 && P_of(h) <= 3, "LP_NUM_THREADS=3: exit %d, from_cache %d, P %lld", rc,
        h ? from_cache(h) : -1, h ? P_of(h) : -1);
  json_decref(h);
  /* an edited entry (P = 7): a miss, measured again */
  char *out;
  setenv("LP_NUM_THREADS", "2", 1);
  json_t *again = calc("", "reduction.comp", "", &rc); /* makes sure the LP=2 entry exists */
  json_decref(again);
  char entry[512] = "";
  /* the entry of LP=2 is the one whose value has P 1..2 and key not of LP=3: find both, edit each */
  run_fmt(&out, "grep -l '\"P\": [12],' %s/vkocc/pipeline-*.json | head -1", dir);
  sscanf(out, "%511s", entry);
  free(out);
  CHECK(entry[0], "no cache entry with P 1..2 in %s", dir);
  if (entry[0]) {
    run_fmt(&out, "sed -i 's/\"P\": [12],/\"P\": 7,/' %s && grep -c '\"P\": 7' %s", entry, entry);
    free(out);
    h = calc("", "reduction.comp", "", &rc);
    CHECK(h && !from_cache(h) && P_of(h) >= 1 && P_of(h) <= 2, "edited entry: exit %d, from_cache %d, P %lld", rc,
          h ? from_cache(h) : -1, h ? P_of(h) : -1);
    json_decref(h);
  }
  /* another module's entry in its place (a foreign file): a miss */
  json_t *u = calc("", "uniform_image.comp", "", &rc);
  CHECK(u && rc == 0, "uniform_image: exit %d", rc);
  run_fmt(&out, "ls -t %s/vkocc/pipeline-*.json | head -1", dir);
  char newest[512] = "";
  sscanf(out, "%511s", newest);
  free(out);
  if (entry[0] && newest[0] && strcmp(entry, newest)) {
    run_fmt(&out, "cp %s %s", newest, entry); /* uniform_image's entry where reduction's is looked up */
    free(out);
    h = calc("", "reduction.comp", "", &rc);
    CHECK(h && !from_cache(h), "a foreign entry was served: from_cache %d", h ? from_cache(h) : -1);
    if (h) CHECK(json_integer_value(json_object_get(shader_of(h), "descriptors")) == 2, "descriptors %lld",
                 json_integer_value(json_object_get(shader_of(h), "descriptors")));
    json_decref(h);
  }
  json_decref(u);
  /* FIFOs in place of every cache file calc --shader reads: the entry, the driver's pipeline cache, the
   * device's fingerprint (read for the per-SM figures) and its register model: no read blocks (each command
   * has 60 s), each a miss */
  char fp[512] = "", rg[512] = "", pc[512];
  bool have_pc = entry_path(pc, sizeof pc, "pipelines-", ".bin");
  CHECK(have_pc, "no driver pipeline cache file in %s", dir);
  run_fmt(&out, "%s devices --json 2>/dev/null", bin);
  json_error_t je;
  json_t *devs = json_loads(out, 0, &je), *d0 = json_array_get(json_object_get(devs, "devices"), 0);
  free(out);
  if (d0) /* the name vkocc_fingerprint_cache_path gives it (queue family 0, LP_NUM_THREADS=2) */
    snprintf(fp, sizeof fp, "%s/vkocc/fingerprint-%s-%08llx-q0-lp2.json", dir,
             json_string_value(json_object_get(d0, "uuid")),
             (unsigned long long)json_integer_value(json_object_get(d0, "driver_version_raw")));
  if (d0) /* the name vkocc_register_cache_path gives it */
    snprintf(rg, sizeof rg, "%s/vkocc/registers-%s-%08llx.json", dir, json_string_value(json_object_get(d0, "uuid")),
             (unsigned long long)json_integer_value(json_object_get(d0, "driver_version_raw")));
  json_decref(devs);
  CHECK(fp[0], "no device in devices --json");
  const char *fifos[] = {entry, have_pc ? pc : NULL, fp, rg};
  for (size_t i = 0; i < sizeof fifos / sizeof *fifos; i++)
    if (fifos[i] && fifos[i][0]) {
      unlink(fifos[i]);
      CHECK(mkfifo(fifos[i], 0644) == 0, "mkfifo %s", fifos[i]);
    }
  h = calc("", "reduction.comp", "", &rc);
  CHECK(h && rc == 0 && !from_cache(h), "with FIFOs in the cache: exit %d (137: blocked until killed)", rc);
  json_decref(h);
  /* a repeated --spec ID: one constant, the last value */
  h = calc("", "histogram.comp", "--spec 0=64 --spec 0=128 --spec 1=256", &rc);
  CHECK(h && rc == 0, "repeated --spec: exit %d", rc);
  if (h) {
    json_t *spec = json_object_get(shader_of(h), "spec");
    CHECK(json_object_size(spec) == 2, "spec holds %zu constants", json_object_size(spec));
    CHECK(json_number_value(json_object_get(spec, "0")) == 128, "spec 0 = %g", json_number_value(json_object_get(spec, "0")));
    CHECK(json_integer_value(json_object_get(shader_of(h), "wg_size")) == 128, "wg_size %lld",
          json_integer_value(json_object_get(shader_of(h), "wg_size")));
  }
  json_decref(h);
  json_decref(m);
  run_fmt(&out, "rm -rf %s", dir);
  free(out);
  return check_report();
}
