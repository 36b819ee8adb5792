/* vkocc tune / policy build, select, transfer through the CLI on lavapipe at small sizes: every
 * kernel variant's answer is right, a second run resumes, a policy built from real results selects the
 * best configuration, and bad input is one line, exit 2, with the previous results file untouched. */
#include "check.h"
#include "run.h"
#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>

static char dir[] = "/tmp/vkocc-tunelvp-XXXXXX";
static const char *bin, *data;

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = calloc((size_t)n + 1, 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) s[0] = 0;
  fclose(f);
  return s;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* a bad command: exit 2, one line on stderr naming `needle`, the file `keep` (if any) byte for byte unchanged */
static void expect_usage(const char *keep, const char *needle, const char *args) {
  char *before = keep ? slurp(keep) : NULL, *out;
  int rc = run_fmt(&out, "%s %s 2>&1 >/dev/null", bin, args);
  CHECK(rc == 2, "%s: exit %d", args, rc);
  CHECK_CONTAINS(out, needle);
  CHECK(count(out, "\n") == 1, "one line, got: %s", out);
  if (keep) {
    char *after = slurp(keep);
    CHECK(before && after && !strcmp(before, after), "%s changed by a refused command", keep);
    free(after);
  }
  free(before);
  free(out);
}

int main(int argc, char **argv) {
  if (argc < 3 || !mkdtemp(dir)) { fprintf(stderr, "usage: test_tune_lvp VKOCC DATA_DIR\n"); return 2; }
  bin = argv[1], data = argv[2];
  char *out, fp[600], h[700], r[700], rf[700], db[700];
  /* the cluster ID from a given fingerprint: no half-minute measurement in the suite */
  snprintf(fp, sizeof fp, "%s/fp-hopper-132.json", data);
  snprintf(h, sizeof h, "%s/h.json", dir);
  snprintf(r, sizeof r, "%s/r.json", dir);
  snprintf(rf, sizeof rf, "%s/rf.json", dir);
  snprintf(db, sizeof db, "%s/db.json", dir);
  /* histogram: every variant at wg 64, grain 1 and 4 (3001 elements: a partial last tile) */
  int rc = run_fmt(&out, "%s tune histogram --size 3001 --only wg_size=64 --only grain=1,4 --only workgroups=128 "
                   "--max-runs 3 --fingerprint %s --allow-other-device -o %s --only variant=global_atomics,shared_bins 2>&1", bin, fp, h);
  CHECK(rc == 0, "tune histogram: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "10 measured (0 resumed), 10 valid, 0 invalid"); /* 2 global + 2x4 shared */
  free(out);
  /* validation runs: with the reference one off (a test switch) every configuration is a wrong answer, never valid */
  rc = run_fmt(&out, "VKOCC_TEST_WRONG_REFERENCE=1 %s tune histogram --size 3001 --only wg_size=64 --only grain=1,4 "
               "--only workgroups=128 --max-runs 3 --fingerprint %s --allow-other-device -o %s/wrong.json "
               "--only variant=global_atomics 2>&1",
               bin, fp, dir);
  CHECK(rc == 1, "tune with a wrong reference (no valid configuration): exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "2 measured (0 resumed), 0 valid, 2 invalid");
  free(out);
  /* resume: the persistent variant added, the 10 measured before kept */
  rc = run_fmt(&out, "%s tune histogram --size 3001 --only wg_size=64 --only grain=1,4 --only workgroups=128 "
               "--max-runs 3 --fingerprint %s --allow-other-device -o %s --resume 2>&1", bin, fp, h);
  CHECK(rc == 0, "resume: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "14 measured (10 resumed), 14 valid, 0 invalid"); /* + persistent: grain 1, 4 x copies 1, 4 */
  free(out);
  char *doc = slurp(h);
  /* 3001 elements at wg 64: 47 tiles at grain 1, 12 at grain 4, fewer than the 128 persistent workgroups:
   * those run one workgroup per tile */
  CHECK(count(doc, "\"valid\": true") == 14 && count(doc, "\"valid\": false") == 0, "14 valid results");
  CHECK_CONTAINS(doc, "\"schema\": \"vkocc.tune-results/1\"");
  CHECK_CONTAINS(doc, "\"cluster_id\": \"c1-"); /* the fingerprint given (a c1 document) */
  /* the one results document; a configuration named by the parameters of its variant (global atomics: no copies) */
  CHECK_CONTAINS(doc, "\"kind\": \"user\"");
  CHECK_CONTAINS(doc, "\"element_type\": \"u32\"");
  json_t *hd = json_loads(doc, 0, NULL);
  size_t i, named = 0, plain = 0;
  json_t *rec;
  json_array_foreach(json_object_get(hd, "results"), i, rec) {
    json_t *c = json_object_get(rec, "config");
    bool ga = !strcmp(json_string_value(json_object_get(c, "variant")), "global_atomics");
    named += !ga && json_object_get(c, "copies");
    plain += ga && !json_object_get(c, "copies") && !json_object_get(c, "workgroups") && json_object_get(c, "grain");
  }
  CHECK(named == 12 && plain == 2, "copies named by shared_bins and persistent only: %zu, %zu", named, plain);
  json_decref(hd);
  free(doc);
  rc = run_fmt(&out, "%s tune histogram --size 40000 --only wg_size=64 --only grain=1 --only variant=persistent --only workgroups=128,512 "
               "--max-runs 3 --fingerprint %s --allow-other-device -o %s/p.json 2>&1", bin, fp, dir);
  /* 625 tiles: 128 and 512 persistent workgroups, 1 and 4 copies */
  CHECK(rc == 0, "persistent: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "4 measured (0 resumed), 4 valid, 0 invalid");
  free(out);
  /* reduce u32 and f32: both variants, both access patterns, wg 32 and 256, 1 and 8 per thread */
  rc = run_fmt(&out, "%s tune reduce --size 5003 --only wg_size=32,256 --only elements_per_thread=1,8 --max-runs 3 "
               "--fingerprint %s --allow-other-device -o %s 2>&1", bin, fp, r);
  CHECK(rc == 0, "tune reduce: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "16 measured (0 resumed), 16 valid, 0 invalid");
  free(out);
  rc = run_fmt(&out, "%s tune reduce --type f32 --size 5003 --only wg_size=32,256 --only elements_per_thread=1,8 "
               "--max-runs 3 --fingerprint %s --allow-other-device -o %s 2>&1", bin, fp, rf);
  CHECK(rc == 0, "tune reduce f32: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "16 measured (0 resumed), 16 valid, 0 invalid");
  free(out);

  /* policy build from real results, then select: the fingerprint's cluster entry is the results' best */
  rc = run_fmt(&out, "%s policy build %s %s %s -o %s 2>&1", bin, h, r, rf, db);
  CHECK(rc == 0, "build: exit %d: %s", rc, out);
  free(out);
  rc = run_fmt(&out, "%s policy select --db %s --kernel reduce --fingerprint %s --var element_type=f32 "
               "--var problem_size=5003 --json", bin, db, fp);
  CHECK(rc == 0, "select: exit %d", rc);
  json_error_t e;
  json_t *choice = json_loads(out, 0, &e), *res = json_load_file(rf, 0, &e);
  char *want = json_dumps(json_object_get(json_object_get(res, "best"), "config"), JSON_COMPACT | JSON_SORT_KEYS);
  char *got = json_dumps(json_object_get(choice, "params"), JSON_COMPACT | JSON_SORT_KEYS);
  /* fp-hopper-132 carries an H100 device: not this lavapipe, so the cluster rule (the device key differs) */
  const char *rule = json_string_value(json_object_get(choice, "rule"));
  CHECK(rule && !strcmp(rule, "cluster"), "rule: %s", out);
  CHECK(want && got && !strcmp(want, got), "selected %s, best %s", got, want);
  free(want), free(got), free(out);
  json_decref(choice), json_decref(res);
  rc = run_fmt(&out, "%s policy transfer %s %s --json", bin, r, h);
  CHECK(rc == 0, "transfer: exit %d", rc);
  CHECK_CONTAINS(out, "\"vkocc.policy-transfer/1\"");
  free(out);

  /* bad input: one line, exit 2, nothing lost */
  expect_usage(NULL, "unknown kernel 'sort'", "tune sort --size 100 -o /tmp/never.json");
  expect_usage(h, "--size", "tune histogram --size 0 -o /dev/null");
  char args[2048];
  snprintf(args, sizeof args, "tune histogram --size 2147483647 --fingerprint %s --allow-other-device -o %s", fp, h);
  expect_usage(h, "exceed", args);
  snprintf(args, sizeof args, "tune histogram --type f32 --size 100 -o %s", h);
  expect_usage(h, "u32 only", args);
  snprintf(args, sizeof args, "tune reduce --size 5003 --fingerprint %s --allow-other-device -o %s --resume", fp, h);
  expect_usage(h, "holds histogram", args);
  snprintf(args, sizeof args, "tune histogram --size 3001 --fingerprint %s --allow-other-device -o %s --resume --only bogus=1", fp, h);
  expect_usage(h, "--only 'bogus=1'", args);
  char bad[700];
  snprintf(bad, sizeof bad, "%s/bad.json", dir);
  FILE *f = fopen(bad, "w");
  fputs("{\"schema\": \"vkocc.tune-results/1\", \"kernel\": \"histogram\", \"resu", f);
  fclose(f);
  snprintf(args, sizeof args, "tune histogram --size 3001 --fingerprint %s --allow-other-device -o %s --resume", fp, bad);
  expect_usage(bad, "invalid JSON", args);
  snprintf(args, sizeof args, "policy build %s %s -o %s/db2.json", h, fp, dir);
  expect_usage(NULL, "$.schema", args);
  snprintf(args, sizeof args, "policy transfer %s", bad);
  expect_usage(NULL, "invalid JSON", args);
  return check_report();
}
