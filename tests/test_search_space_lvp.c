/* The search comparison's large space (examples/tune/histogram/histogram.json) on lavapipe at a tiny size: its
 * conditions leave the 10,800 allowed configurations the GPU recording counts on, every configuration of a
 * random sample is right (the exact histogram of the generated input), every parameter reaches the kernel
 * without a recompile (one compile for the whole sample), and each launch is P * BLOCKS_PER_P workgroups with
 * P of the configuration's own pipeline. */
#include "check_json.h"
#include "run.h"
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

static char dir[] = "/tmp/vkocc-searchspace-XXXXXX";

static void copy(const char *from, const char *to) {
  FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
  CHECK(f && g, "copy %s to %s", from, to);
  char buf[4096];
  size_t n;
  while (f && g && (n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, g);
  if (f) fclose(f);
  if (g) fclose(g);
}

int main(int argc, char **argv) {
  if (argc < 2 || !mkdtemp(dir)) { fprintf(stderr, "usage: test_search_space_lvp VKOCC SOURCE_DIR\n"); return 2; }
  const char *bin = argv[1], *src = argv[2];
  char from[1024], to[1024], fp[1024];
  snprintf(fp, sizeof fp, "%s/tests/data/fp-hopper-132.json", src);
  snprintf(from, sizeof from, "%s/examples/tune/histogram/histogram.comp", src);
  snprintf(to, sizeof to, "%s/histogram.comp", dir);
  copy(from, to);
  /* the spec at 8192 words (ProblemSize and the Scalar n that carries it) */
  const json_int_t N = 8192;
  snprintf(from, sizeof from, "%s/examples/tune/histogram/histogram.json", src);
  json_t *d = check_load_json(from);
  if (!d) return check_report();
  json_t *ks = json_object_get(d, "KernelSpecification");
  json_object_set_new(ks, "ProblemSize", json_pack("[I]", N));
  size_t i;
  json_t *a;
  json_array_foreach(json_object_get(ks, "Arguments"), i, a)
    if (!strcmp(json_string_value(json_object_get(a, "Name")), "n")) json_object_set_new(a, "FillValue", json_integer(N));
  snprintf(to, sizeof to, "%s/histogram.json", dir);
  json_dump_file(d, to, JSON_INDENT(1));
  json_decref(d);

  char *out;
  int rc = run_fmt(&out, "%s tune %s/histogram.json -o %s/r.json --strategy random_sample --budget 8 --seed 5 "
                   "--max-runs 3 --spread 0.5 --fingerprint %s --allow-other-device 2>&1", bin, dir, dir, fp);
  CHECK(rc == 0, "tune: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "13500 configurations, 2700 ruled out by the conditions");
  CHECK_CONTAINS(out, "10800 allowed; 8 measured");
  CHECK_CONTAINS(out, "8 correct, 0 compile, 0 runtime, 0 timeout, 0 correctness, 0 constraints");
  free(out);
  snprintf(to, sizeof to, "%s/r.json", dir);
  d = check_load_json(to);
  if (d) {
    json_t *sp = json_object_get(d, "space");
    CHECK(json_integer_value(json_object_get(sp, "allowed")) == 10800, "allowed %lld",
          (long long)json_integer_value(json_object_get(sp, "allowed")));
    CHECK(json_integer_value(json_object_get(json_object_get(d, "measurement"), "compiles")) == 1,
          "every parameter a specialization constant or the launch: one compile");
    const char *lp = getenv("LP_NUM_THREADS");
    json_int_t want = lp ? atoi(lp) : 0;
    json_t *r;
    uint32_t n = 0;
    json_array_foreach(json_object_get(d, "results"), i, r) {
      n++;
      json_t *cfg = json_object_get(r, "config");
      json_int_t P = json_integer_value(json_object_get(r, "P"));
      CHECK(json_is_true(json_object_get(r, "valid")), "configuration %zu is right", i);
      CHECK(want <= 0 || P == want, "P %lld, expected LP_NUM_THREADS %lld", (long long)P, (long long)want);
      CHECK(json_integer_value(json_array_get(json_object_get(r, "groups"), 0)) ==
                P * json_integer_value(json_object_get(cfg, "BLOCKS_PER_P")), "launch P * BLOCKS_PER_P");
      CHECK(json_integer_value(json_array_get(json_object_get(r, "local_size"), 0)) ==
                json_integer_value(json_object_get(cfg, "WG")), "local size WG");
      CHECK(json_integer_value(json_object_get(cfg, "UNROLL")) <= json_integer_value(json_object_get(cfg, "ITEMS")),
            "the condition holds");
    }
    CHECK(n == 8, "8 results, got %u", n);
    json_decref(d);
  }
  run_fmt(&out, "rm -rf %s", dir);
  free(out);
  return check_report();
}
