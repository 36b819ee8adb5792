/* vkocc tune SPEC.json on lavapipe at small sizes: both examples of examples/tune/ tuned with a small budget
 * (results and T4 checked, T4 against the schemas with a JSON-schema validator), a deliberately wrong
 * specialization-constant value detected and never chosen, P of each pipeline measured and used as the
 * persistent launch, --resume, a policy from the results, and every bad input of docs/tune.md: one line naming
 * the file and JSON path, exit 2, the previous results file byte for byte unchanged. */
#include "check_json.h"
#include "run.h"
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

static char dir[] = "/tmp/vkocc-tunespec-XXXXXX";
static const char *bin, *src, *fp, *schemas;

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

static void copy(const char *from, const char *to) {
  char *t = slurp(from);
  FILE *f = fopen(to, "wb");
  if (f && t) fputs(t, f);
  if (f) fclose(f);
  free(t);
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* a spec from an example: its kernel copied beside it, ProblemSize and the Scalars that carry it replaced */
static void small_spec(const char *example, const char *kernel, const char *name, const json_int_t *ps, int nps,
                       const char *const *scalars) {
  char from[1024], to[1024];
  snprintf(from, sizeof from, "%s/examples/tune/%s/%s", src, example, kernel);
  snprintf(to, sizeof to, "%s/%s", dir, kernel);
  copy(from, to);
  snprintf(from, sizeof from, "%s/examples/tune/%s/%s.json", src, example, name);
  json_t *d = check_load_json(from);
  if (!d) return;
  json_t *ks = json_object_get(d, "KernelSpecification"), *p = json_array();
  for (int i = 0; i < nps; i++) json_array_append_new(p, json_integer(ps[i]));
  json_object_set_new(ks, "ProblemSize", p);
  size_t i;
  json_t *a;
  json_array_foreach(json_object_get(ks, "Arguments"), i, a)
    for (int k = 0; k < nps; k++)
      if (scalars[k] && !strcmp(json_string_value(json_object_get(a, "Name")), scalars[k]))
        json_object_set_new(a, "FillValue", json_integer(ps[k]));
  snprintf(to, sizeof to, "%s/%s.json", dir, name);
  json_dump_file(d, to, JSON_INDENT(1));
  json_decref(d);
}

/* T4 results and metadata against the schemas (python3-jsonschema); skipped, saying so, when it is absent */
static void check_t4(const char *t4, const char *meta) {
  char *out;
  int rc = run_fmt(&out, "python3 -c 'import jsonschema' 2>&1");
  free(out);
  if (rc != 0) {
    printf("SKIP: T4 schema validation: python3-jsonschema is not installed (scripts/install-deps.sh installs it)\n");
    return;
  }
  rc = run_fmt(&out,
               "python3 -c 'import json,sys,jsonschema\n"
               "for doc,sch in ((sys.argv[1],\"T4-results-schema.json\"),(sys.argv[2],\"T4-metadata-schema.json\")):\n"
               "  s=json.load(open(sys.argv[3]+\"/\"+sch)); jsonschema.validators.validator_for(s)(s).validate(json.load(open(doc)))\n"
               "print(\"valid\")' %s %s %s 2>&1", t4, meta, schemas);
  CHECK(rc == 0 && strstr(out, "valid"), "T4 schema validation failed: %s", out);
  free(out);
}

static void test_transpose(void) {
  static const json_int_t ps[2] = {96, 80};
  static const char *const sc[2] = {"W", "H"};
  small_spec("transpose", "transpose.comp", "transpose", ps, 2, sc);
  char *out;
  int rc = run_fmt(&out, "%s tune %s/transpose.json -o %s/tr.json --t4 %s/tr-t4.json --budget 8 --seed 3 --full-rule --fingerprint %s --allow-other-device 2>&1",
                   bin, dir, dir, dir, fp);
  CHECK(rc == 0, "transpose: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "1024 configurations");
  CHECK_CONTAINS(out, "8 measured");
  free(out);
  char p[1024];
  snprintf(p, sizeof p, "%s/tr.json", dir);
  json_t *d = check_load_json(p);
  if (!d) return;
  CHECK(!strcmp(json_string_value(json_object_get(d, "kind")), "user"), "kind");
  CHECK(json_integer_value(json_object_get(json_object_get(d, "space"), "total")) == 1024, "space total");
  CHECK(json_array_size(json_object_get(d, "results")) == 8, "8 results");
  CHECK(!strcmp(json_string_value(json_object_get(d, "reference")), "ReferenceArguments"), "reference");
  /* TILE_X, TILE_Y, ELEMS are specialization constants, USE_SHARED and PAD defines: at most 3 compiles */
  json_t *m = json_object_get(d, "measurement");
  CHECK(json_integer_value(json_object_get(m, "compiles")) <= 3, "compiles %lld",
        (long long)json_integer_value(json_object_get(m, "compiles")));
  size_t i;
  json_t *r;
  uint32_t valid = 0;
  json_array_foreach(json_object_get(d, "results"), i, r) {
    if (!json_is_true(json_object_get(r, "valid"))) continue;
    valid++;
    json_t *cfg = json_object_get(r, "config"), *ls = json_object_get(r, "local_size"), *g = json_object_get(r, "groups");
    json_int_t tx = json_integer_value(json_object_get(cfg, "TILE_X")), ty = json_integer_value(json_object_get(cfg, "TILE_Y")),
               el = json_integer_value(json_object_get(cfg, "ELEMS"));
    CHECK(json_integer_value(json_array_get(ls, 0)) == tx && json_integer_value(json_array_get(ls, 1)) == ty, "local size");
    CHECK(json_integer_value(json_array_get(g, 0)) == (96 + tx - 1) / tx &&
          json_integer_value(json_array_get(g, 1)) == (80 + ty * el - 1) / (ty * el), "groups");
    CHECK(json_number_value(json_object_get(r, "median_ns")) > 0 && json_integer_value(json_object_get(r, "runs")) >= 3, "times");
    /* the stopping rule as the results record it: the spread target met after at least 5 runs, or the cap of 50
     * runs, or at least 3 runs after the 2 s a configuration may take */
    double spread = json_number_value(json_object_get(r, "spread"));
    json_int_t runs = json_integer_value(json_object_get(r, "runs"));
    double trials_ms = json_number_value(json_object_get(json_object_get(r, "timing_ms"), "trials"));
    CHECK((runs >= 5 && spread <= 0.02) || runs == 50 || (runs >= 3 && trials_ms > 2000),
          "stopping rule: %lld runs, spread %.4f, %.0f ms of trials", (long long)runs, spread, trials_ms);
  }
  CHECK(valid == 8, "every transpose configuration is right (%u of 8)", valid);
  json_decref(d);
  char t4[1024], meta[1024];
  snprintf(t4, sizeof t4, "%s/tr-t4.json", dir);
  snprintf(meta, sizeof meta, "%s/tr-t4.metadata.json", dir);
  check_t4(t4, meta);
  /* a bound on the first run that no dispatch meets: every configuration is a timeout, none is chosen, and a
   * tune without a valid configuration has no answer (exit 1), its results written */
  rc = run_fmt(&out, "%s tune %s/transpose.json -o %s/to.json --budget 2 --timeout 0.000001 --fingerprint %s --allow-other-device 2>&1", bin, dir, dir, fp);
  CHECK(rc == 1, "timeout: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "no valid configuration among the 2 measured");
  CHECK_CONTAINS(out, "2 timeout");
  free(out);
  snprintf(p, sizeof p, "%s/to.json", dir);
  d = check_load_json(p);
  CHECK(d && !json_object_get(d, "best"), "a best among timeouts");
  json_decref(d);
  /* --resume with a larger budget keeps the 8 and adds 4 (the seeded order retraces the same path) */
  rc = run_fmt(&out, "%s tune %s/transpose.json -o %s/tr.json --budget 12 --seed 3 --resume --fingerprint %s --allow-other-device 2>&1", bin, dir, dir, fp);
  CHECK(rc == 0, "resume: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "12 measured (8 resumed)");
  free(out);
}

static void test_persistent(void) {
  static const json_int_t ps[1] = {65536};
  static const char *const sc[1] = {"n"};
  small_spec("persistent_reduce", "reduce.comp", "reduce", ps, 1, sc);
  char *out;
  int rc = run_fmt(&out, "%s tune %s/reduce.json -o %s/re.json --budget 5 --fingerprint %s --allow-other-device 2>&1", bin, dir, dir, fp);
  CHECK(rc == 0, "reduce: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "5 correct");
  free(out);
  char p[1024];
  snprintf(p, sizeof p, "%s/re.json", dir);
  json_t *d = check_load_json(p);
  if (!d) return;
  const char *lp = getenv("LP_NUM_THREADS");
  json_int_t want = lp ? atoi(lp) : 0;
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(d, "results"), i, r) {
    json_int_t P = json_integer_value(json_object_get(r, "P"));
    json_int_t k = json_integer_value(json_object_get(json_object_get(r, "config"), "BLOCKS_PER_P"));
    CHECK(P == want, "P %lld, expected LP_NUM_THREADS %lld", (long long)P, (long long)want);
    CHECK(json_integer_value(json_array_get(json_object_get(r, "groups"), 0)) == P * k, "launch P * BLOCKS_PER_P");
    CHECK(json_is_true(json_object_get(r, "valid")), "the reduction is right");
  }
  json_decref(d);
  /* a device lost in the middle (simulated: the third batch): recorded as runtime, the context reopened, the
   * search goes on with the rest */
  rc = run_fmt(&out, "VKOCC_TEST_DEVICE_LOSS=3 %s tune %s/reduce.json -o %s/loss.json --budget 4 --fingerprint %s --allow-other-device 2>&1", bin, dir,
               dir, fp);
  CHECK(rc == 0, "device loss: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "3 correct, 0 compile, 1 runtime");
  free(out);
  snprintf(p, sizeof p, "%s/loss.json", dir);
  json_t *l = check_load_json(p);
  CHECK(json_integer_value(json_object_get(json_object_get(l, "measurement"), "device_losses")) == 1, "one device loss");
  json_decref(l);
  /* a policy from user-kernel results: select by cluster picks the results' best */
  rc = run_fmt(&out, "%s policy build %s/re.json -o %s/db.json 2>&1 && %s policy select --db %s/db.json --kernel reduce "
               "--fingerprint %s --size 65536 --json 2>&1", bin, dir, dir, bin, dir, fp);
  CHECK(rc == 0, "policy: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "\"rule\": \"cluster\"");
  CHECK_CONTAINS(out, "BLOCKS_PER_P");
  free(out);
  rc = run_fmt(&out, "%s policy transfer %s/re.json --json 2>&1", bin, dir);
  CHECK(rc == 0, "policy transfer: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "\"kernel\": \"reduce\"");
  free(out);
  rc = run_fmt(&out, "%s policy header %s/db.json -o %s/tuned.h 2>&1", bin, dir, dir);
  CHECK(rc == 0, "policy header: exit %d: %s", rc, out);
  free(out);
  snprintf(p, sizeof p, "%s/tuned.h", dir);
  char *h = slurp(p);
  CHECK_CONTAINS(h, "REDUCE");
  CHECK_CONTAINS(h, "BLOCKS_PER_P");
  free(h);
}

/* One wrong element is a wrong output, wherever it lies (the first, the middle, the last), by exactly the spec's
 * threshold: twice the threshold is invalid, half of it valid, under each validation method, compared on the host
 * (this CPU device's default) and on the device (a GPU's). */
static void test_edge_error(void) {
  static const struct { const char *method; double th; int relative; } m[] = {
      {"SideBySideRelativeComparison", 1e-3, 1}, {"SideBySideComparison", 0.01, 0}, {"AbsoluteDifference", 0.01, 0}};
  char from[1024], to[1024], *out;
  snprintf(from, sizeof from, "%s/tests/data/tune/edge_error.comp", src);
  snprintf(to, sizeof to, "%s/edge_error.comp", dir);
  copy(from, to);
  for (size_t k = 0; k < sizeof m / sizeof m[0]; k++)
    for (int where = 0; where < 2; where++) {
      snprintf(to, sizeof to, "%s/edge_%zu.json", dir, k);
      FILE *f = fopen(to, "w");
      CHECK(f != NULL, "cannot write %s", to);
      if (!f) return;
      fprintf(f, "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"WG\", \"Type\": \"uint\", \"Values\": \"[64]\"},"
                 " {\"Name\": \"POS\", \"Type\": \"uint\", \"Values\": \"[0, 1, 2]\"},"
                 " {\"Name\": \"DEV\", \"Type\": \"uint\", \"Values\": \"[0, 1, 2]\"}]},"
                 " \"KernelSpecification\": {\"Language\": \"Vulkan\", \"KernelName\": \"main\", \"KernelFile\": \"edge_error.comp\","
                 " \"ProblemSize\": [4096], \"LocalSize\": {\"X\": \"WG\"}, \"GlobalSizeType\": \"OpenCL\","
                 " \"GlobalSize\": {\"X\": \"ProblemSize[0]\"}, \"Arguments\": ["
                 " {\"Name\": \"out\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": \"WriteOnly\", \"Output\": 1,"
                 " \"Size\": \"ProblemSize[0]\"},"
                 " {\"Name\": \"n\", \"Type\": \"uint32\", \"MemoryType\": \"Scalar\", \"FillType\": \"Constant\", \"FillValue\": 4096},"
                 " {\"Name\": \"th\", \"Type\": \"float\", \"MemoryType\": \"Scalar\", \"FillType\": \"Constant\", \"FillValue\": %g},"
                 " {\"Name\": \"relative\", \"Type\": \"uint32\", \"MemoryType\": \"Scalar\", \"FillType\": \"Constant\", \"FillValue\": %d}],"
                 " \"ReferenceArguments\": [{\"Name\": \"want\", \"TargetName\": \"out\", \"FillType\": \"Generator\","
                 " \"DataSource\": \"(i + 1) * 0.5\", \"ValidationMethod\": \"%s\", \"ValidationThreshold\": %g}]}}\n",
              m[k].th, m[k].relative, m[k].method, m[k].th);
      fclose(f);
      const char *env = where ? "VKOCC_TEST_CPU_COMPARE=0" : "";
      int rc = run_fmt(&out, "%s %s tune %s -o %s/edge.json --spread 1 --fingerprint %s --allow-other-device 2>&1",
                       env, bin, to, dir, fp);
      CHECK(rc == 0, "%s (%s): exit %d: %s", m[k].method, where ? "device" : "host", rc, out);
      CHECK_CONTAINS(out, "6 correct");
      CHECK_CONTAINS(out, "3 correctness");
      free(out);
      snprintf(to, sizeof to, "%s/edge.json", dir);
      json_t *d = check_load_json(to);
      if (!d) return;
      const char *v = json_string_value(json_object_get(json_object_get(d, "measurement"), "validation"));
      CHECK(v && !strcmp(v, where ? "device" : "host"), "%s: validated on the %s", m[k].method, v ? v : "(none)");
      size_t i;
      json_t *r;
      json_array_foreach(json_object_get(d, "results"), i, r) {
        json_int_t pos = json_integer_value(json_object_get(json_object_get(r, "config"), "POS"));
        json_int_t dev = json_integer_value(json_object_get(json_object_get(r, "config"), "DEV"));
        const char *inv = json_string_value(json_object_get(r, "invalidity"));
        CHECK(inv && !strcmp(inv, dev == 2 ? "correctness" : "correct"), "%s on the %s, POS %lld DEV %lld: %s",
              m[k].method, where ? "device" : "host", (long long)pos, (long long)dev, inv ? inv : "(none)");
      }
      json_decref(d);
    }
}

static void test_wrong(void) {
  char from[1024], to[1024];
  snprintf(from, sizeof from, "%s/tests/data/tune/scale_wrong.comp", src);
  snprintf(to, sizeof to, "%s/scale_wrong.comp", dir);
  copy(from, to);
  snprintf(from, sizeof from, "%s/tests/data/tune/scale_wrong.json", src);
  snprintf(to, sizeof to, "%s/scale_wrong.json", dir);
  copy(from, to);
  char *out;
  /* the device's compare kept on this CPU device (which compares on the host by default) */
  int rc = run_fmt(&out, "VKOCC_TEST_CPU_COMPARE=0 %s tune %s/scale_wrong.json -o %s/w.json --reference WG=64,ITEMS=1 --fingerprint %s --allow-other-device 2>&1", bin, dir,
                   dir, fp);
  CHECK(rc == 0, "wrong: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "9 correct");
  CHECK_CONTAINS(out, "3 correctness");
  free(out);
  char p[1024];
  snprintf(p, sizeof p, "%s/w.json", dir);
  json_t *d = check_load_json(p);
  if (!d) return;
  CHECK(json_integer_value(json_object_get(json_object_get(json_object_get(d, "best"), "config"), "ITEMS")) != 8, "ITEMS 8 chosen");
  /* the outputs were compared on the device: only the compare's verdict came back, with the same message */
  const char *where = json_string_value(json_object_get(json_object_get(d, "measurement"), "validation"));
  CHECK(where && !strcmp(where, "device"), "validation: %s", where ? where : "(none)");
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(d, "results"), i, r) {
    bool eight = json_integer_value(json_object_get(json_object_get(r, "config"), "ITEMS")) == 8;
    const char *inv = json_string_value(json_object_get(r, "invalidity"));
    CHECK(!strcmp(inv, eight ? "correctness" : "correct"), "ITEMS %s: %s", eight ? "8" : "!8", inv);
    const char *e = json_string_value(json_object_get(r, "error"));
    if (eight) CHECK(e && strstr(e, "wrong output: ") && strstr(e, "] = ") && strstr(e, ", expected "),
                     "ITEMS 8: %s", e ? e : "(no error)");
  }
  json_decref(d);
}

/* the result of config key in a results document (NULL: none) */
static json_t *result_of(json_t *doc, const char *key) {
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(doc, "results"), i, r) {
    char *k = json_dumps(json_object_get(r, "config"), JSON_COMPACT | JSON_SORT_KEYS);
    bool same = k && !strcmp(k, key);
    free(k);
    if (same) return r;
  }
  return NULL;
}

/* The final round of a resumed run (every result recorded, nothing built before it) runs what the search
 * measured: the same candidates as the first run's final round, at the same launch, their outputs validated
 * there; and a resumed result that claims a wrong configuration is right is caught by the final round's
 * validation (correctness), replaced by the next by median, never chosen. */
static void test_final_round_resume(void) {
  char *out, p1[1024], p2[1024], p3[1024];
  snprintf(p1, sizeof p1, "%s/fr1.json", dir);
  snprintf(p2, sizeof p2, "%s/fr2.json", dir);
  snprintf(p3, sizeof p3, "%s/fr3.json", dir);
  int rc = run_fmt(&out, "%s tune %s/scale_wrong.json -o %s --confirm 5 --reference WG=64,ITEMS=1 --fingerprint %s --allow-other-device 2>&1", bin, dir, p1, fp);
  CHECK(rc == 0, "final round: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "9 correct");
  free(out);
  copy(p1, p2);
  rc = run_fmt(&out, "%s tune %s/scale_wrong.json -o %s --resume --confirm 5 --reference WG=64,ITEMS=1 --fingerprint %s --allow-other-device 2>&1", bin, dir, p2, fp);
  CHECK(rc == 0, "final round after --resume: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "12 measured (12 resumed)");
  CHECK_CONTAINS(out, "9 correct, 0 compile, 0 runtime, 0 timeout, 3 correctness");
  free(out);
  json_t *d1 = check_load_json(p1), *d2 = check_load_json(p2);
  if (!d1 || !d2) { json_decref(d1), json_decref(d2); return; }
  size_t i;
  json_t *r1;
  int final1 = 0, final2 = 0;
  json_array_foreach(json_object_get(d1, "results"), i, r1) {
    char *k = json_dumps(json_object_get(r1, "config"), JSON_COMPACT | JSON_SORT_KEYS);
    json_t *r2 = result_of(d2, k);
    CHECK(r2 != NULL, "%s: not in the resumed results", k);
    if (r2) {
      bool f1 = json_object_get(r1, "final_round") != NULL, f2 = json_object_get(r2, "final_round") != NULL;
      final1 += f1, final2 += f2;
      CHECK(f1 == f2, "%s: in the final round %s, but %s after --resume", k, f1 ? "first" : "not first", f2 ? "so" : "not");
      CHECK(json_equal(json_object_get(r1, "groups"), json_object_get(r2, "groups")) &&
            json_equal(json_object_get(r1, "local_size"), json_object_get(r2, "local_size")), "%s: another launch after --resume", k);
      CHECK(json_equal(json_object_get(r1, "invalidity"), json_object_get(r2, "invalidity")), "%s: %s, then %s after --resume", k,
            json_string_value(json_object_get(r1, "invalidity")), json_string_value(json_object_get(r2, "invalidity")));
      json_t *fr = json_object_get(r2, "final_round");
      if (fr) { /* 3 rounds of one batch of about 20 ms by the search's median (3 to 16 dispatches; a loaded
                 * machine's longer medians give smaller batches), times of real dispatches */
        double med = json_number_value(json_object_get(r2, "median_ns"));
        long long batch = med > 1 ? (long long)(20e6 / med) : 16;
        batch = batch < 3 ? 3 : batch > 16 ? 16 : batch;
        CHECK(json_integer_value(json_object_get(fr, "runs")) == 3 * batch, "%s: %lld final-round runs, expected 3 x %lld (median %.0f ns)",
              k, (long long)json_integer_value(json_object_get(fr, "runs")), batch, med);
        CHECK(json_number_value(json_object_get(fr, "median_ns")) > 0, "%s: final-round median", k);
        CHECK(json_integer_value(json_object_get(json_object_get(r2, "config"), "ITEMS")) != 8, "%s: a wrong one re-timed", k);
      }
    }
    free(k);
  }
  CHECK(final1 == 5 && final2 == 5, "5 in each final round: %d, %d", final1, final2);
  const char *ranked = json_string_value(json_object_get(json_object_get(d2, "best"), "ranked_by"));
  /* the final round reports and validates; the search's medians rank */
  CHECK(ranked && !strcmp(ranked, "search"), "best ranked by %s", ranked ? ranked : "(none)");
  /* a resumed record that says the wrong configurations (ITEMS 8) are right and the fastest */
  json_array_foreach(json_object_get(d1, "results"), i, r1)
    if (json_integer_value(json_object_get(json_object_get(r1, "config"), "ITEMS")) == 8) {
      json_object_set_new(r1, "valid", json_true());
      json_object_set_new(r1, "invalidity", json_string("correct"));
      json_object_set_new(r1, "median_ns", json_real(1.0));
      json_object_set_new(r1, "times_ns", json_pack("[f, f, f]", 1.0, 1.0, 1.0));
      json_object_set_new(r1, "runs", json_integer(3));
      json_object_del(r1, "error");
    }
  json_dump_file(d1, p3, JSON_INDENT(1));
  rc = run_fmt(&out, "%s tune %s/scale_wrong.json -o %s --resume --confirm 5 --reference WG=64,ITEMS=1 --fingerprint %s --allow-other-device 2>&1", bin, dir, p3, fp);
  CHECK(rc == 0, "wrong records resumed: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "9 correct, 0 compile, 0 runtime, 0 timeout, 3 correctness");
  free(out);
  json_t *d3 = check_load_json(p3);
  if (d3) {
    int final3 = 0;
    json_t *r;
    json_array_foreach(json_object_get(d3, "results"), i, r) {
      bool eight = json_integer_value(json_object_get(json_object_get(r, "config"), "ITEMS")) == 8;
      final3 += json_object_get(r, "final_round") != NULL;
      if (!eight) continue;
      CHECK(!strcmp(json_string_value(json_object_get(r, "invalidity")), "correctness"), "ITEMS 8 resumed as right: %s",
            json_string_value(json_object_get(r, "invalidity")));
      const char *e = json_string_value(json_object_get(r, "error"));
      CHECK(e && strstr(e, "wrong output in the final round"), "ITEMS 8: %s", e ? e : "(no error)");
      CHECK(!json_object_get(r, "final_round"), "ITEMS 8 ranked by the final round");
    }
    CHECK(final3 == 5, "the next by median take the wrong ones' places: %d in the final round", final3);
    CHECK(json_integer_value(json_object_get(json_object_get(json_object_get(d3, "best"), "config"), "ITEMS")) != 8,
          "ITEMS 8 chosen after --resume");
  }
  json_decref(d1), json_decref(d2), json_decref(d3);
}

/* the same kernel as SPIR-V (parameters named like its constants) and as KTT writes it (a literal
 * local_size_x = LOCAL_SIZE_X, every other parameter a -D define: one compile per configuration) */
static void test_spirv_and_ktt(const char *glslc) {
  char *out;
  int rc = run_fmt(&out, "cd %s && %s -fshader-stage=compute scale_wrong.comp -o scale.spv 2>&1 && "
               "sed 's/scale_wrong.comp/scale.spv/' scale_wrong.json > spv.json && "
               "sed -e 's/layout(local_size_x_id = 0) in;/layout(local_size_x = LOCAL_SIZE_X) in;/' "
               "-e '/constant_id/d' scale_wrong.comp > ktt.comp && sed 's/scale_wrong.comp/ktt.comp/' scale_wrong.json > ktt.json",
               dir, glslc);
  CHECK(rc == 0, "preparing: %s", out);
  free(out);
  rc = run_fmt(&out, "%s tune %s/spv.json -o %s/spv-r.json --strategy random_sample --budget 3 --reference WG=64,ITEMS=1 "
               "--fingerprint %s --allow-other-device 2>&1", bin, dir, dir, fp);
  CHECK(rc == 0, "spir-v: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "(1 compiles for");
  free(out);
  rc = run_fmt(&out, "%s tune %s/ktt.json -o %s/ktt-r.json --budget 3 --reference WG=64,ITEMS=1 --fingerprint %s --allow-other-device 2>&1", bin,
               dir, dir, fp);
  CHECK(rc == 0, "ktt: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "(4 compiles for 4 pipelines;");
  free(out);
  /* HLSL: numthreads from KTT's LOCAL_SIZE_X, ITEMS a [[vk::constant_id]] constant */
  char hp[1024];
  snprintf(hp, sizeof hp, "%s/scale.hlsl", dir);
  FILE *f = fopen(hp, "w");
  fputs("[[vk::constant_id(1)]] const uint ITEMS = 1;\n[[vk::binding(0, 0)]] StructuredBuffer<uint> a;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> b;\nstruct Push { uint n; };\n"
        "[[vk::push_constant]] ConstantBuffer<Push> pc;\n[numthreads(LOCAL_SIZE_X, 1, 1)]\n"
        "void main(uint3 gid : SV_DispatchThreadID) {\n  uint first = gid.x * ITEMS;\n"
        "  for (uint k = 0; k < ITEMS; k++)\n    if (first + k < pc.n) b[first + k] = 2 * a[first + k];\n}\n", f);
  fclose(f);
  rc = run_fmt(&out, "cd %s && sed 's/scale_wrong.comp/scale.hlsl/' scale_wrong.json > hlsl.json && %s tune hlsl.json -o hlsl-r.json "
               "--only WG=64 --reference WG=64,ITEMS=1 --fingerprint %s --allow-other-device 2>&1", dir, bin, fp);
  CHECK(rc == 0, "hlsl: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "4 correct, 0 compile");
  CHECK_CONTAINS(out, "(1 compiles for 4 pipelines;");
  free(out);
  char p[1024];
  snprintf(p, sizeof p, "%s/ktt-r.json", dir);
  json_t *d = check_load_json(p);
  json_t *ps = json_object_get(d, "parameters");
  CHECK(!strcmp(json_string_value(json_object_get(json_array_get(ps, 0), "reaches")), "launch") &&
        !strcmp(json_string_value(json_object_get(json_array_get(ps, 1), "reaches")), "define"), "WG launch, ITEMS define");
  json_decref(d);
}

/* one bad spec: exit 2, one line naming the file and `path`, the results file unchanged */
static void expect_bad(const char *name, const char *from, const char *to, const char *path) {
  char spec[1024], res[1024];
  snprintf(spec, sizeof spec, "%s/%s.json", dir, name);
  snprintf(res, sizeof res, "%s/w.json", dir);
  char *text = slurp(spec), *keep = slurp(res), *out;
  char *at = text ? strstr(text, from) : NULL;
  CHECK(at != NULL, "'%s' not in %s", from, spec);
  if (!at) { free(text), free(keep); return; }
  char bad[1024];
  snprintf(bad, sizeof bad, "%s/bad.json", dir);
  FILE *f = fopen(bad, "w");
  fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  fclose(f);
  int rc = run_fmt(&out, "%s tune %s -o %s --fingerprint %s --allow-other-device 2>&1 >/dev/null", bin, bad, res, fp);
  CHECK(rc == 2, "%s -> %s: exit %d: %s", from, to, rc, out);
  CHECK(count(out, "\n") == 1, "one line, got: %s", out);
  CHECK_CONTAINS(out, bad);
  CHECK_CONTAINS(out, path);
  char *after = slurp(res);
  CHECK(keep && after && !strcmp(keep, after), "%s changed by a refused run", res);
  free(after), free(keep), free(text), free(out);
}

static void test_bad(void) {
  expect_bad("scale_wrong", "\"TuningParameters\": [", "\"TuningParameters\": 7, \"Parameters\": [", "$.ConfigurationSpace");
  expect_bad("scale_wrong", "\"Vulkan\"", "\"OpenCL\"", "$.KernelSpecification.Language");
  expect_bad("scale_wrong", "\"[1, 2, 4, 8]\"", "\"8\"", "$.ConfigurationSpace.TuningParameters[1].Values");
  expect_bad("scale_wrong", "{\"Name\": \"WG\", \"Type\": \"uint\", \"Values\": \"[32, 64, 128]\"}",
             "{\"Name\": \"WG\", \"Type\": \"uint\", \"Values\": \"[32, 64, 128]\"}], \"Conditions\": [{\"Expression\": \"WG < TILE\"}",
             "$.ConfigurationSpace.Conditions[0].Expression");
  expect_bad("scale_wrong", "ProblemSize[0] // ITEMS", "ProblemSize[0] // (ITEMS - 4)", "$.KernelSpecification.GlobalSize.X");
  expect_bad("scale_wrong", "\"Size\": \"ProblemSize[0]\",\n       \"FillType\"", "\"Size\": \"2**70\",\n       \"FillType\"",
             "$.KernelSpecification.Arguments[0].Size");
  expect_bad("scale_wrong", "scale_wrong.comp", "no_such_kernel.comp", "$.KernelSpecification.KernelFile");
  expect_bad("scale_wrong", "\"FillType\": \"Random\", \"RandomSeed\": 7", "\"FillType\": \"BinaryRaw\"",
             "$.KernelSpecification.Arguments[0]");
  /* a reference whose size differs from its target */
  char raw[1024];
  snprintf(raw, sizeof raw, "%s/ref.bin", dir);
  FILE *f = fopen(raw, "wb");
  for (int i = 0; i < 100; i++) fputc(i, f);
  fclose(f);
  expect_bad("scale_wrong", "\"Arguments\": [",
             "\"ReferenceArguments\": [{\"Name\": \"r\", \"TargetName\": \"out\", \"FillType\": \"BinaryRaw\", \"DataSource\": \"ref.bin\"}],"
             " \"Arguments\": [",
             "$.KernelSpecification.ReferenceArguments[0]");
  /* a kernel that compiles for no configuration */
  char k[1024];
  snprintf(k, sizeof k, "%s/broken.comp", dir);
  f = fopen(k, "w");
  fputs("#version 450\nlayout(local_size_x_id = 0) in;\nlayout(constant_id = 0) const uint WG = 64;\n"
        "layout(constant_id = 1) const uint ITEMS = 1;\nvoid main() { this is not glsl; }\n", f);
  fclose(f);
  expect_bad("scale_wrong", "scale_wrong.comp", "broken.comp", "$.KernelSpecification.KernelFile");
}

/* the warm-up follows the GPU's idle time (cold: the whole --warmup-ms; after that ratio x idle, clamped to 20 ms
 * and --warmup-ms) and the sentinel re-times the first correct configuration every N configurations */
static void test_warmup_sentinel(void) {
  char *out;
  /* a cache of its own, empty: the steady clock is seeded from this device's cached fingerprint when there is
   * one (tune/harness/clock_rule.h), so only an empty cache makes the first configuration cold whatever ran before */
  int rc = run_fmt(&out, "XDG_CACHE_HOME=%s/cold1 %s tune %s/transpose.json -o %s/ws.json --budget 7 --seed 3 --warmup-ms 30 "
                   "--sentinel 3 --fingerprint %s --allow-other-device 2>&1", dir, bin, dir, dir, fp);
  CHECK(rc == 0, "warm-up and sentinel: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "clocks:   sentinel");
  CHECK_CONTAINS(out, "timed 3 times");
  free(out);
  char p[1024];
  snprintf(p, sizeof p, "%s/ws.json", dir);
  json_t *d = check_load_json(p);
  if (!d) return;
  json_t *sen = json_object_get(json_object_get(d, "measurement"), "sentinel"), *pts = json_object_get(sen, "points");
  CHECK(json_array_size(pts) == 3, "3 sentinel points (after 1, 4 and 7 configurations), got %zu", json_array_size(pts));
  static const json_int_t after[3] = {1, 4, 7};
  for (size_t i = 0; i < json_array_size(pts) && i < 3; i++) {
    json_t *q = json_array_get(pts, i);
    CHECK(json_integer_value(json_object_get(q, "after")) == after[i], "sentinel point %zu after %lld", i,
          (long long)json_integer_value(json_object_get(q, "after")));
    CHECK(json_number_value(json_object_get(q, "median_ns")) > 0, "sentinel median");
  }
  CHECK(json_object_get(sen, "config") && json_number_value(json_object_get(sen, "range")) >= 0, "sentinel config and range");
  /* lavapipe has both clocks: a warm-up runs only on the probe's evidence (tune/harness/clock_rule.h). The cold first
   * configuration warms (no steady clock known yet), within the 30 ms cap and one batch of about 10 ms; most of
   * the others need none (a reading disturbed by the load here may ask for some, never past the cap) */
  size_t i;
  json_t *r;
  uint32_t cold = 0;
  json_array_foreach(json_object_get(d, "results"), i, r) {
    double w = json_number_value(json_object_get(json_object_get(r, "timing_ms"), "warmup"));
    CHECK(json_number_value(json_object_get(json_object_get(r, "clock"), "max")) > 0, "configuration %zu: clock readings", i);
    if (i == 0) CHECK(w > 0 && w <= 40, "the cold first configuration warms up (0, 40] ms, got %g", w);
    else CHECK(w >= 0 && w <= 40, "configuration %zu: warm-up %g ms outside [0, 40]", i, w);
    cold += i > 0 && w == 0;
  }
  CHECK(2 * cold >= json_array_size(json_object_get(d, "results")) - 1, "%u of the later configurations needed no warm-up", cold);
  json_decref(d);
  /* --sentinel 0: none; the default cap of the warm-up (500 ms) */
  rc = run_fmt(&out, "XDG_CACHE_HOME=%s/cold2 %s tune %s/transpose.json -o %s/ws0.json --budget 2 --seed 3 --sentinel 0 "
               "--fingerprint %s --allow-other-device 2>&1", dir, bin, dir, dir, fp);
  CHECK(rc == 0 && !strstr(out, "clocks:"), "--sentinel 0: exit %d: %s", rc, out);
  free(out);
  snprintf(p, sizeof p, "%s/ws0.json", dir);
  if ((d = check_load_json(p))) {
    CHECK(!json_object_get(json_object_get(d, "measurement"), "sentinel"), "--sentinel 0 records none");
    json_array_foreach(json_object_get(d, "results"), i, r) {
      double w = json_number_value(json_object_get(json_object_get(r, "timing_ms"), "warmup"));
      if (i == 0) CHECK(w > 0 && w <= 510, "the cold first configuration warms up until the clock is steady (at most the "
                        "default 500 ms), got %g", w);
      else CHECK(w >= 0 && w <= 510, "configuration %zu: warm-up %g ms outside [0, 510]", i, w);
    }
    json_decref(d);
  }
  static const char *const bad[] = {"--warmup-ratio -1", "--warmup-ratio x", "--sentinel -2", "--sentinel 1e3x"};
  for (int k = 0; k < 4; k++) {
    rc = run_fmt(&out, "%s tune %s/transpose.json -o %s/wsbad.json %s 2>&1", bin, dir, dir, bad[k]);
    CHECK(rc == 2 && count(out, "\n") == 1, "%s: exit %d, one line expected: %s", bad[k], rc, out);
    free(out);
  }
}

/* The device's side of a configuration (bench/tune/saxpy's small spec: y = a x + y restored before every run):
 * restored by a compute copy (VKOCC_TEST_COMPUTE_RESTORE=1; a GPU's default), every configuration right after
 * its last batch; under a rule that holds at once (--spread 1) the first timed batch is the fewest runs the rule
 * stops at (5, more where they take under 2 ms) and the outputs' check rides in it, a compare dispatch or a copy
 * back to the host alike: 2 submissions (validation, trials) where no warm-up or clock retry ran; the device's
 * whole time is recorded beside the timed runs'. */
static void check_device_side(const char *env, const char *validation) {
  char *out, from[1100], to[1100];
  static const char *const files[] = {"saxpy_small.json", "saxpy.comp"};
  for (int f = 0; f < 2; f++) {
    snprintf(from, sizeof from, "%s/bench/tune/saxpy/%s", src, files[f]);
    snprintf(to, sizeof to, "%s/%s", dir, files[f]);
    copy(from, to);
  }
  int rc = run_fmt(&out, "VKOCC_TEST_COMPUTE_RESTORE=1 %s %s tune %s/saxpy_small.json -o %s/ds.json --budget 4 --seed 1 "
                   "--spread 1 --full-rule --fingerprint %s --allow-other-device 2>&1", env, bin, dir, dir, fp);
  CHECK(rc == 0, "device side (%s): exit %d: %s", env, rc, out);
  CHECK_CONTAINS(out, "4 correct");
  free(out);
  char p[1024];
  snprintf(p, sizeof p, "%s/ds.json", dir);
  json_t *d = check_load_json(p);
  if (!d) return;
  const char *v = json_string_value(json_object_get(json_object_get(d, "measurement"), "validation"));
  CHECK(v && !strcmp(v, validation), "%s: compared on the %s, expected %s", env, v ? v : "(none)", validation);
  size_t i;
  json_t *r;
  double device_sum = 0;
  uint32_t two = 0;
  json_array_foreach(json_object_get(d, "results"), i, r) {
    json_t *tm = json_object_get(r, "timing_ms");
    double gpu = json_number_value(json_object_get(tm, "gpu")), dev = json_number_value(json_object_get(tm, "device"));
    double min_ns = json_number_value(json_object_get(r, "min_ns")), w = json_number_value(json_object_get(tm, "warmup"));
    json_int_t runs = json_integer_value(json_object_get(r, "runs")), sub = json_integer_value(json_object_get(tm, "submissions"));
    json_int_t again = json_integer_value(json_object_get(json_object_get(r, "clock"), "again"));
    CHECK(gpu > 0 && dev >= gpu, "configuration %zu: device %g ms, its timed dispatches %g ms", i, dev, gpu);
    device_sum += dev;
    /* the first batch ran 2 ms / the first run's time, at least 5; the first run is no faster than the fastest */
    long long most = min_ns > 0 ? (long long)(2e6 / min_ns) + 1 : 16;
    most = most < 5 ? 5 : most > 16 ? 16 : most;
    CHECK(runs >= 5 && runs <= most, "configuration %zu: %lld runs, expected 5..%lld (fastest %.0f ns)", i, (long long)runs,
          most, min_ns);
    if (w == 0 && again == 0) {
      CHECK(sub == 2, "configuration %zu: %lld submissions, expected 2 (validation, trials with the compares)", i, (long long)sub);
      two++;
    } else CHECK(sub > 2, "configuration %zu: %lld submissions with a warm-up or a retry", i, (long long)sub);
  }
  CHECK(two >= 1, "some configuration ran without a warm-up or retry");
  double run_dev = json_number_value(json_object_get(json_object_get(d, "measurement"), "device_ms"));
  CHECK(run_dev >= device_sum && device_sum > 0, "the run's device time %g ms holds its configurations' %g", run_dev, device_sum);
  json_t *m = json_object_get(d, "measurement");
  double tuning = json_number_value(json_object_get(m, "tuning_ms")), search = json_number_value(json_object_get(m, "search_ms"));
  double search_dev = json_number_value(json_object_get(m, "search_device_ms"));
  /* the search holds every configuration's device time and lies within the tuning (its final round on top) */
  CHECK(search_dev >= device_sum - 1e-6 && search_dev <= run_dev + 1e-6, "search's device %g ms: configurations' %g, run's %g",
        search_dev, device_sum, run_dev);
  CHECK(search >= search_dev && search <= tuning && tuning <= json_number_value(json_object_get(m, "elapsed_ms")),
        "search %g ms within the tuning's %g", search, tuning);
  json_decref(d);
}

static void test_device_side(void) {
  check_device_side("VKOCC_TEST_CPU_COMPARE=0", "device");
  check_device_side("VKOCC_TEST_CPU_COMPARE=1", "host");
}

int main(int argc, char **argv) {
  if (argc < 5 || !mkdtemp(dir)) { fprintf(stderr, "usage: test_tune_spec_lvp VKOCC SOURCE_DIR SCHEMA_DIR GLSLC\n"); return 2; }
  bin = argv[1], src = argv[2], schemas = argv[3];
  static char fpb[1024];
  snprintf(fpb, sizeof fpb, "%s/tests/data/fp-hopper-132.json", src);
  fp = fpb;
  test_device_side();
  test_transpose();
  test_warmup_sentinel();
  test_persistent();
  test_wrong();
  test_edge_error();
  test_final_round_resume();
  test_spirv_and_ktt(argv[4]);
  test_bad();
  char *out;
  run_fmt(&out, "rm -rf %s", dir);
  free(out);
  return check_report();
}
