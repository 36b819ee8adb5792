/* Racing on lavapipe (tests/data/tune/race.json: WORK 1, 6 and 16 rounds of work per element, WG 32 and 64): tuned
 * by brute force with the race and with --full-rule. The race stops every WORK 16 configuration (6-7x slower than
 * WORK 1 here) after 2 runs, fewer than the full rule gave the same configuration, recorded as stopped with the
 * incumbent's median and the margin, its statistics those of the runs it had (the median of times_ns), its fastest run
 * beyond the margin as recorded; both runs choose a WORK 1 configuration; --full-rule stops nothing; the T4 file says
 * which stopped (a measurement named "stopped") and validates against the schemas; --resume keeps what stopped. */
#include "check_json.h"
#include "run.h"
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char dir[] = "/tmp/vkocc-race-XXXXXX";
static const char *bin, *data, *schemas, *fp;

static json_t *tune(const char *name, const char *args) {
  char *out;
  int rc = run_fmt(&out, "cd %s && %s tune %s/race.json -o %s/%s.json --t4 %s/%s-t4.json --strategy brute_force --sentinel 0 "
                   "--fingerprint %s --allow-other-device %s 2>&1", dir, bin, data, dir, name, dir, name, fp, args);
  CHECK(rc == 0, "%s: exit %d: %s", name, rc, out);
  free(out);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.json", dir, name);
  return check_load_json(path);
}

static long param(json_t *r, const char *p) { return (long)json_integer_value(json_object_get(json_object_get(r, "config"), p)); }

static json_t *find(json_t *d, long wg, long work) {
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(d, "results"), i, r) if (param(r, "WG") == wg && param(r, "WORK") == work) return r;
  return NULL;
}

static void check_t4(const char *name, uint32_t want_stopped) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s-t4.json", dir, name);
  json_t *t4 = check_load_json(path);
  if (!t4) return;
  uint32_t stopped = 0;
  size_t i, m;
  json_t *r, *me;
  json_array_foreach(json_object_get(t4, "results"), i, r) json_array_foreach(json_object_get(r, "measurements"), m, me) {
    const char *n = json_string_value(json_object_get(me, "name")), *v = json_string_value(json_object_get(me, "value"));
    if (!n || strcmp(n, "stopped")) continue;
    stopped++;
    CHECK(v && !strcmp(v, "behind the best"), "T4 stopped: '%s'", v ? v : "?");
  }
  CHECK(stopped == want_stopped, "%s: T4 says %u stopped, the results %u", name, stopped, want_stopped);
  json_decref(t4);
  char *out;
  if (run_fmt(&out, "python3 -c 'import jsonschema' 2>&1")) {
    printf("SKIP: T4 schema validation: python3-jsonschema is not installed (scripts/install-deps.sh installs it)\n");
    free(out);
    return;
  }
  free(out);
  int rc = run_fmt(&out,
                   "python3 -c 'import json,sys,jsonschema\n"
                   "s=json.load(open(sys.argv[2])); jsonschema.validators.validator_for(s)(s).validate(json.load(open(sys.argv[1])))\n"
                   "print(\"valid\")' %s %s/T4-results-schema.json 2>&1", path, schemas);
  CHECK(rc == 0 && strstr(out, "valid"), "%s: T4 schema validation failed: %s", name, out);
  free(out);
}

static uint32_t count_stopped(json_t *d) {
  uint32_t n = 0;
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(d, "results"), i, r) n += json_object_get(r, "stopped") != NULL;
  return n;
}

int main(int argc, char **argv) {
  if (argc < 5) return fprintf(stderr, "usage: test_race_lvp VKOCC DATA_DIR SCHEMA_DIR FINGERPRINT\n"), 2;
  bin = argv[1], data = argv[2], schemas = argv[3], fp = argv[4];
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  json_t *race = tune("race", ""), *full = tune("full", "--full-rule");
  if (!race || !full) return check_report();
  CHECK_EQ_U(json_array_size(json_object_get(race, "results")), 6);
  CHECK_EQ_U(json_array_size(json_object_get(full, "results")), 6);
  /* the same best, a WORK 1 configuration, in both */
  json_t *rb = json_object_get(race, "best"), *fb = json_object_get(full, "best");
  CHECK(param(rb, "WORK") == 1 && param(fb, "WORK") == 1, "the best: WORK %ld (race), %ld (full rule)", param(rb, "WORK"),
        param(fb, "WORK"));
  uint64_t runs_race = 0, runs_full = 0;
  for (long wg = 32; wg <= 64; wg *= 2)
    for (int k = 0; k < 3; k++) {
      long work = k == 0 ? 1 : k == 1 ? 6 : 16;
      json_t *r = find(race, wg, work), *f = find(full, wg, work);
      if (!r || !f) { CHECK(0, "WG %ld WORK %ld missing", wg, work); continue; }
      long rr = (long)json_integer_value(json_object_get(r, "runs")), fr = (long)json_integer_value(json_object_get(f, "runs"));
      runs_race += (uint64_t)rr, runs_full += (uint64_t)fr;
      CHECK(!json_object_get(f, "stopped") && !json_object_get(f, "race") && fr >= 3,
            "--full-rule: WG %ld WORK %ld runs to the rule (%ld runs), nothing stopped", wg, work, fr);
      const char *st = json_string_value(json_object_get(r, "stopped"));
      if (work == 16)
        CHECK(st && rr == 2 && rr < fr, "WG %ld WORK 16 stopped after 2 runs (%s, %ld runs; full rule %ld)", wg, st ? st : "not stopped",
              rr, fr);
      if (!st) continue;
      CHECK(!strcmp(st, "behind the best"), "stopped: '%s'", st);
      /* honest statistics: the median of the runs it had, and the rule as recorded */
      json_t *t = json_object_get(r, "times_ns");
      double lo = INFINITY, v[64];
      size_t n = json_array_size(t);
      for (size_t k = 0; k < n && k < 64; k++) v[k] = json_number_value(json_array_get(t, k)), lo = fmin(lo, v[k]);
      CHECK((long)n == rr, "times_ns holds its %ld runs (%zu)", rr, n);
      double med = n == 2 ? (v[0] + v[1]) / 2 : NAN;
      if (n == 2) CHECK_NEAR(json_number_value(json_object_get(r, "median_ns")), med, 1e-6 * med);
      json_t *rc = json_object_get(r, "race");
      double best = json_number_value(json_object_get(rc, "best_median_ns")), margin = json_number_value(json_object_get(rc, "margin"));
      CHECK(best > 0 && margin >= 0.05 && lo > best * (1 + margin), "its fastest run %.0f beyond %.0f x (1 + %.3f)", lo, best, margin);
    }
  /* the totals are printed, not compared: the contenders' run counts follow the host's noise in each process */
  printf("timed runs: %llu raced (%u stopped), %llu by the full rule\n", (unsigned long long)runs_race, count_stopped(race),
         (unsigned long long)runs_full);
  check_t4("race", count_stopped(race));
  check_t4("full", 0);
  /* --resume: nothing measured again, what stopped stays stopped */
  char *out;
  int rc = run_fmt(&out, "cd %s && %s tune %s/race.json -o %s/race.json --strategy brute_force --sentinel 0 --resume "
                   "--fingerprint %s --allow-other-device 2>&1", dir, bin, data, dir, fp);
  CHECK(rc == 0, "--resume: exit %d: %s", rc, out);
  free(out);
  char path[1024];
  snprintf(path, sizeof path, "%s/race.json", dir);
  json_t *again = check_load_json(path);
  if (again) CHECK(count_stopped(again) == count_stopped(race), "--resume keeps %u stopped (%u)", count_stopped(race), count_stopped(again));
  json_decref(again), json_decref(race), json_decref(full);
  run_fmt(&out, "rm -rf %s", dir);
  free(out);
  return check_report();
}
