/* The caches made on a device cannot lie: the fingerprint and the register document are sealed with a checksum
 * over the device's key (device, driver, queue family, the driver's environment, vkocc's version) and the
 * document; an entry edited by hand, one sealed under another key (another LP_NUM_THREADS) or one without a seal
 * (as earlier versions wrote) is a miss: the command answers without it (the per-SM limits left out, the limits
 * taken from elsewhere, or refused), never with it. The driver's pipeline cache file carries vkocc's header and
 * checksum: garbage, a torn file or raw driver data in its place never reaches the driver and is rewritten.
 * On lavapipe, through the CLI. */
#include "check_json.h"
#include "run.h"
#include "cache_plant.h"
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *bin, *data;
static char dir[64], xdg[96];

/* the one file PREFIX*SUFFIX in the cache (its path into out); false when not exactly one */
static bool cache_file(char *out, size_t n, const char *prefix, const char *suffix) {
  char cdir[160];
  snprintf(cdir, sizeof cdir, "%s/vkocc", xdg);
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

/* calc --shader reduction.comp --json: whether the per-SM limits (from the cached fingerprint) are in it */
static int shader_limits(int *rc) {
  char *out;
  *rc = run_fmt(&out, "timeout -s KILL 120 %s calc --shader %s/../shaders/reduction.comp --json 2>/dev/null", bin, data);
  json_error_t e;
  json_t *doc = json_loads(out, 0, &e);
  free(out);
  int has = doc ? json_object_get(doc, "limits") != NULL : -1;
  json_decref(doc);
  return has;
}

/* an edit by hand: one number of the document changed, the file still valid JSON with its seal */
static void edit(const char *path, const char *object, const char *member, json_int_t delta) {
  json_error_t e;
  json_t *doc = json_load_file(path, 0, &e);
  json_t *o = object ? json_object_get(doc, object) : doc, *v = json_object_get(o, member);
  CHECK(doc && json_object_get(doc, "cache") && json_is_integer(v), "%s: no sealed %s.%s to edit", path,
        object ? object : "$", member);
  if (v) json_object_set_new(o, member, json_integer(json_integer_value(v) + delta));
  CHECK(doc && json_dump_file(doc, path, JSON_INDENT(2)) == 0, "cannot write %s", path);
  json_decref(doc);
}

static json_t *load(const char *fmt, const char *arg) {
  char path[1200];
  snprintf(path, sizeof path, fmt, arg);
  json_t *doc = check_load_json(path);
  return doc;
}

static void fingerprint_cache(void) {
  /* a whole H100 fingerprint, sealed under lavapipe's key: per-SM limits come from it */
  json_t *fp = load("%s/../../docs/results/h100/fingerprint/fingerprint-1.json", data);
  if (!fp) return;
  json_object_set_new(fp, "tool_version", json_string(vkocc_version()));
  CHECK(plant_fingerprint(fp, xdg, "2"), "cannot plant the fingerprint: %s", vkocc_last_error());
  char path[512] = "", *out;
  CHECK(cache_file(path, sizeof path, "fingerprint-", "-lp2.json"), "no fingerprint entry in %s", xdg);
  int rc;
  CHECK(shader_limits(&rc) == 1 && rc == 0, "a sealed fingerprint is a hit (limits in the answer): exit %d", rc);
  /* edited by hand (one SM more): a miss */
  edit(path, "derived", "sm_count", 1);
  CHECK(shader_limits(&rc) == 0 && rc == 0, "an edited fingerprint was served (exit %d)", rc);
  /* sealed under another key (LP_NUM_THREADS=3), copied in place of LP=2's: a miss */
  CHECK(plant_fingerprint(fp, xdg, "3"), "cannot plant the LP=3 fingerprint");
  char other[512];
  CHECK(cache_file(other, sizeof other, "fingerprint-", "-lp3.json"), "no LP=3 entry");
  run_fmt(&out, "cp %s %s", other, path);
  free(out);
  CHECK(shader_limits(&rc) == 0 && rc == 0, "a foreign fingerprint (another LP_NUM_THREADS) was served (exit %d)", rc);
  /* without a seal (as vkocc wrote before): a miss */
  CHECK(json_dump_file(fp, path, JSON_INDENT(2)) == 0, "cannot write %s", path);
  CHECK(shader_limits(&rc) == 0 && rc == 0, "an unsealed fingerprint was served (exit %d)", rc);
  /* the seal's checksum itself edited: a miss; sealed again: a hit (the test's edits are what missed) */
  CHECK(plant_fingerprint(fp, xdg, "2"), "cannot plant the fingerprint again");
  run_fmt(&out, "sed -i 's/\"checksum\": \"\\([0-9a-f]*\\)[0-9a-f]\"/\"checksum\": \"\\1x\"/' %s && grep -c '\"checksum\"' %s", path, path);
  free(out);
  CHECK(shader_limits(&rc) == 0 && rc == 0, "a fingerprint with an edited checksum was served (exit %d)", rc);
  CHECK(plant_fingerprint(fp, xdg, "2"), "cannot plant the fingerprint again");
  CHECK(shader_limits(&rc) == 1 && rc == 0, "the fingerprint sealed again is a hit: exit %d", rc);
  unlink(path);
  json_decref(fp);
}

/* calc --regs from the device's caches alone (no --from): the register model, the other limits */
static int calc_regs(char **out) {
  return run_fmt(out, "timeout -s KILL 120 %s calc --regs 89 --wg 256 --shmem 256 2>&1", bin);
}

static void register_cache(void) {
  /* the synthetic H100 register points with the model vkocc fits to them, as `surface --registers` keeps it */
  json_t *rd = load("%s/registers-synthetic-h100.json", data);
  if (!rd) return;
  char src[1200];
  snprintf(src, sizeof src, "%s/registers-synthetic-h100.json", data);
  vkocc_register_doc doc;
  vkocc_register_model m;
  CHECK(vkocc_register_doc_load(src, &doc) == VKOCC_OK && doc.has_base, "%s: %s", src, vkocc_last_error());
  CHECK(vkocc_derive_registers(doc.points, doc.count, &doc.base, &m) == VKOCC_OK && m.known, "no model: %s",
        vkocc_last_error());
  vkocc_register_doc_free(&doc);
  json_object_set_new(rd, "register_model", vkocc_register_model_json(&m));
  CHECK(plant_registers(rd, xdg, "2"), "cannot plant the register document: %s", vkocc_last_error());
  char path[512] = "", *out;
  CHECK(cache_file(path, sizeof path, "registers-", ".json"), "no register entry in %s", xdg);
  int rc = calc_regs(&out);
  CHECK(rc == 0 && strstr(out, "the cached register document"), "a sealed register document is a hit: exit %d: %s",
        rc, out);
  free(out);
  /* edited by hand: a miss. lavapipe has no register statistic, so the model cannot be measured: refused */
  edit(path, "register_model", "regs_per_sm", 1024);
  rc = calc_regs(&out);
  CHECK(rc == 3 && !strstr(out, "cached register document"), "an edited register document: exit %d: %s", rc, out);
  free(out);
  /* sealed under LP_NUM_THREADS=3 (the same file name: the key inside tells): a miss */
  CHECK(plant_registers(rd, xdg, "3"), "cannot plant the LP=3 register document");
  rc = calc_regs(&out);
  CHECK(rc == 3 && !strstr(out, "cached register document"), "a foreign register document: exit %d: %s", rc, out);
  free(out);
  /* unsealed: a miss */
  CHECK(json_dump_file(rd, path, JSON_INDENT(2)) == 0, "cannot write %s", path);
  rc = calc_regs(&out);
  CHECK(rc == 3 && !strstr(out, "cached register document"), "an unsealed register document: exit %d: %s", rc, out);
  free(out);
  unlink(path);
  json_decref(rd);
}

/* The driver's pipeline cache file: whatever is in its place, the command runs and leaves a sealed file. */
static void pipeline_cache_file(void) {
  char *out, path[512] = "";
  int rc = run_fmt(&out, "timeout -s KILL 120 %s surface --wg 64 --shmem 0 --no-refine 2>&1", bin);
  CHECK(rc == 0, "surface: exit %d: %s", rc, out);
  free(out);
  CHECK(cache_file(path, sizeof path, "pipelines-", ".bin"), "no pipeline cache file in %s", xdg);
  const char *garbage[] = {"head -c 4096 /dev/urandom", "printf vkoccPC1", "head -c 100 /dev/zero"};
  for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++) {
    run_fmt(&out, "%s > %s", garbage[i], path);
    free(out);
    rc = run_fmt(&out, "timeout -s KILL 120 %s surface --wg 64 --shmem 0 --no-refine 2>&1", bin);
    CHECK(rc == 0 && strstr(out, "with a cold cache"), "pipeline cache replaced by `%s`: exit %d: %s", garbage[i], rc, out);
    free(out);
    FILE *f = fopen(path, "rb");
    char head[8] = "";
    uint64_t size = 0;
    struct stat st;
    bool sealed = f && fread(head, 1, 8, f) == 8 && fread(&size, 8, 1, f) == 1 && !memcmp(head, "vkoccPC1", 8) &&
                  stat(path, &st) == 0 && (uint64_t)st.st_size == size + 24;
    if (f) fclose(f);
    CHECK(sealed, "after `%s`, %s was not rewritten with vkocc's header", garbage[i], path);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s VKOCC DATA_DIR\n", argv[0]), 2;
  bin = argv[1], data = argv[2];
  snprintf(dir, sizeof dir, "/tmp/vkocc-seal-XXXXXX");
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  snprintf(xdg, sizeof xdg, "%s/x", dir);
  setenv("XDG_CACHE_HOME", xdg, 1);
  setenv("LP_NUM_THREADS", "2", 1);
  fingerprint_cache();
  register_cache();
  pipeline_cache_file();
  char *out;
  run_fmt(&out, "rm -rf %s", dir);
  free(out);
  return check_report();
}
