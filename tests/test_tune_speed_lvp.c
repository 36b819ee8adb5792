/* The tuning harness's host side on lavapipe (tests/data/tune/speed_*.json, one kernel whose C reaches only the
 * launch and whose SCALE is a -D define): P is measured once per pipeline and the configurations that share it
 * say where theirs came from, all equal to LP_NUM_THREADS; the pool that builds the next configurations' pipelines
 * ahead changes nothing the search measures (the same sequence with 1 and 3 threads, brute force in enumeration
 * order), compiles each define set once, and the device waits for less than the building took where it was
 * built ahead; a CPU device compares the outputs on the host unless told otherwise. The pool starts the jobs of
 * the configuration needed next first, and builds the pipelines of those it compiled before the buffers existed
 * (VKOCC_TEST_POOL_TRACE: each job's start; VKOCC_TEST_POOL_WAIT=1: the measuring thread waits for the pool, so
 * which builds the pool makes does not depend on timing). */
#include "check_json.h"
#include "run.h"
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

static char dir[] = "/tmp/vkocc-tunespeed-XXXXXX";
static const char *bin, *data;

static json_t *tune(const char *env, const char *spec, const char *name, const char *args) {
  char *out;
  int rc = run_fmt(&out, "cd %s && %s %s tune %s/%s -o %s/%s.json --max-runs 3 %s 2>&1", dir, env, bin, data, spec, dir,
                   name, args);
  CHECK(rc == 0, "%s: exit %d: %s", name, rc, out);
  free(out);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.json", dir, name);
  json_t *d = check_load_json(path);
  return d;
}

static char *config_text(json_t *r) {
  return json_dumps(json_object_get(r, "config"), JSON_COMPACT | JSON_SORT_KEYS);
}

static const char *validation(json_t *d) {
  return json_string_value(json_object_get(json_object_get(d, "measurement"), "validation"));
}

/* C 1, 2, 4 of one pipeline: the first measured, the others from it */
static void test_P_once_per_pipeline(void) {
  json_t *d = tune("", "speed_p.json", "p", "--only SCALE=1 --only WG=32 --strategy brute_force");
  if (!d) return;
  long want = atol(getenv("LP_NUM_THREADS") ? getenv("LP_NUM_THREADS") : "0");
  CHECK(want > 0, "LP_NUM_THREADS is set by the test's environment");
  json_t *results = json_object_get(d, "results"), *r;
  CHECK_EQ_U(json_array_size(results), 3);
  uint32_t measured = 0, same = 0, from_first = 0;
  char *first = config_text(json_array_get(results, 0));
  size_t i;
  json_array_foreach(results, i, r) {
    const char *src = json_string_value(json_object_get(r, "P_source"));
    CHECK(json_integer_value(json_object_get(r, "P")) == want, "P %lld, LP_NUM_THREADS %ld",
          (long long)json_integer_value(json_object_get(r, "P")), want);
    measured += src && !strcmp(src, "measured");
    same += src && !strcmp(src, "same-pipeline");
    char *from = json_dumps(json_object_get(r, "P_from"), JSON_COMPACT | JSON_SORT_KEYS);
    from_first += from && first && !strcmp(from, first);
    free(from);
    /* the measurement's cost stays with the one measured */
    if (i) CHECK(json_number_value(json_object_get(json_object_get(r, "timing_ms"), "occupancy")) < 50, "P not measured again");
  }
  CHECK_EQ_U(measured, 1);
  CHECK_EQ_U(same, 2);
  CHECK_EQ_U(from_first, 2);
  /* a CPU device: the outputs read back and compared on the host */
  const char *v = validation(d);
  CHECK(v && !strcmp(v, "host"), "validation on lavapipe: %s", v ? v : "(none)");
  free(first);
  json_decref(d);
}

/* the configurations of a results document in evaluation order, one string */
static char *sequence(json_t *d) {
  size_t cap = 1 << 14, n = 0, i;
  char *s = calloc(cap, 1);
  json_t *r;
  json_array_foreach(json_object_get(d, "results"), i, r) {
    char *c = config_text(r);
    n += (size_t)snprintf(s + n, cap - n, "%s;", c ? c : "?");
    free(c);
  }
  return s;
}

static void test_ahead(void) {
  json_t *one = tune("", "speed_ahead.json", "r1", "--strategy random_sample --seed 3 --budget 9 --threads 1");
  json_t *three = tune("", "speed_ahead.json", "r3", "--strategy random_sample --seed 3 --budget 9 --threads 3");
  json_t *brute = tune("VKOCC_TEST_CPU_COMPARE=0", "speed_ahead.json", "b2", "--strategy brute_force --budget 7 --threads 2");
  if (!one || !three || !brute) return;
  char *s1 = sequence(one), *s3 = sequence(three), *sb = sequence(brute);
  CHECK(!strcmp(s1, s3), "the pool's size changed the sequence: %s against %s", s1, s3);
  /* enumeration order: the last parameter fastest */
  CHECK(!strncmp(sb, "{\"C\":1,\"SCALE\":1,\"WG\":32};{\"C\":2,\"SCALE\":1,\"WG\":32};{\"C\":4,\"SCALE\":1,\"WG\":32};"
                     "{\"C\":1,\"SCALE\":2,\"WG\":32};", 100), "brute force: %s", sb);
  json_t *docs[3] = {one, three, brute};
  for (int k = 0; k < 3; k++) {
    /* one compile per define set measured (a module compiled twice by two threads would count twice) */
    char seen[8] = {0};
    uint32_t sets = 0;
    uint32_t compiled = 0, ahead = 0;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(docs[k], "results"), i, r) {
      long scale = (long)json_integer_value(json_object_get(json_object_get(r, "config"), "SCALE"));
      if (scale >= 1 && scale <= 6 && !seen[scale]) seen[scale] = 1, sets++;
      json_t *tm = json_object_get(r, "timing_ms");
      CHECK(json_is_number(json_object_get(tm, "wait")), "timing_ms.wait");
      CHECK(json_string_value(json_object_get(r, "invalidity")) && !strcmp(json_string_value(json_object_get(r, "invalidity")), "correct"),
            "every configuration is right");
      /* built by the measuring thread, the wait holds the whole compile and pipeline; built ahead by the pool
       * while the device measured the one before, less than that */
      double compile = json_number_value(json_object_get(tm, "compile"));
      if (compile > 0) {
        compiled++;
        ahead += json_number_value(json_object_get(tm, "wait")) < compile + json_number_value(json_object_get(tm, "pipeline"));
      }
    }
    json_t *m = json_object_get(docs[k], "measurement");
    CHECK(json_integer_value(json_object_get(m, "compiles")) == sets, "run %d: %lld compiles for %u define sets", k,
          (long long)json_integer_value(json_object_get(m, "compiles")), sets);
    CHECK(compiled >= 3 && ahead >= 1, "run %d: %u of %u compiles made ahead", k, ahead, compiled);
  }
  const char *v = validation(brute);
  CHECK(v && !strcmp(v, "device"), "VKOCC_TEST_CPU_COMPARE=0: validation %s", v ? v : "(none)");
  free(s1), free(s3), free(sb);
  json_decref(one), json_decref(three), json_decref(brute);
}


/* a pool's trace: its lines' job ("compile", "pipeline", "take"), configuration and who ("pool", "measuring") */
typedef struct { char job[16], who[16]; unsigned c; } trace_line;

static uint32_t read_trace(const char *name, trace_line *t, uint32_t max) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "%s: the pool's trace", path);
  uint32_t n = 0;
  while (f && n < max && fscanf(f, "%15s %u %15s", t[n].job, &t[n].c, t[n].who) == 3) n++;
  if (f) fclose(f);
  return n;
}

/* the configurations of one kind of line, in the trace's order */
static uint32_t trace_of(const trace_line *t, uint32_t n, const char *job, unsigned *out, uint32_t max) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < n && k < max; i++)
    if (!strcmp(t[i].job, job)) out[k++] = t[i].c;
  return k;
}

static void test_pool_order(void) {
  /* 9 configurations of 6 define sets: every one after the first built by the pool, the measuring thread waiting
   * for it; 4 threads hand the first 9 to the pool before the first configuration made the buffers */
  char env[1200];
  snprintf(env, sizeof env, "VKOCC_TEST_POOL_WAIT=1 VKOCC_TEST_POOL_TRACE=%s/t4.trace", dir);
  json_t *d4 = tune(env, "speed_ahead.json", "t4", "--strategy random_sample --seed 5 --budget 9 --threads 4");
  snprintf(env, sizeof env, "VKOCC_TEST_POOL_WAIT=1 VKOCC_TEST_POOL_TRACE=%s/t1.trace", dir);
  json_t *d1 = tune(env, "speed_ahead.json", "t1", "--strategy random_sample --seed 5 --budget 9 --threads 1");
  if (!d4 || !d1) return;
  static trace_line t[512];
  unsigned take[64], comp[64], pipe[64];
  for (int k = 0; k < 2; k++) {
    uint32_t n = read_trace(k ? "t1.trace" : "t4.trace", t, 512);
    uint32_t ntake = trace_of(t, n, "take", take, 64);
    CHECK(ntake >= 9, "run %d: %u configurations taken", k, ntake);
    if (ntake < 9) return;
    /* the search's 9 (the sentinel's again after them): the first built by the measuring thread, the others by the
     * pool (before, the first window's pipelines were built by the measuring thread when measured) */
    uint32_t by_pool = 0, i;
    for (i = 0; i < n; i++)
      if (!strcmp(t[i].job, "take")) break;
    CHECK(!strcmp(t[i].who, "measuring"), "run %d: the first configuration, %u, is the measuring thread's", k, t[i].c);
    for (uint32_t j = 0, seen = 0; j < n && seen < 9; j++)
      if (!strcmp(t[j].job, "take") && seen++) by_pool += !strcmp(t[j].who, "pool");
    CHECK_EQ_U(by_pool, 8);
    /* every one after the first compiled and built once, by the pool */
    uint32_t ncomp = trace_of(t, n, "compile", comp, 64), npipe = trace_of(t, n, "pipeline", pipe, 64);
    for (uint32_t j = 1; j < 9; j++) {
      uint32_t nc = 0, np = 0;
      for (uint32_t q = 0; q < ncomp; q++) nc += comp[q] == take[j];
      for (uint32_t q = 0; q < npipe; q++) np += pipe[q] == take[j];
      CHECK(nc == 1 && np == 1, "run %d: configuration %u: %u compiles, %u pipelines by the pool", k, take[j], nc, np);
    }
    if (!k) continue;
    /* one thread: compiles and pipelines started in the order the configurations are needed */
    for (uint32_t j = 0; j < 8 && j < ncomp && j < npipe; j++) {
      CHECK(comp[j] == take[j + 1], "one thread: compile %u is of %u, needed %u-th is %u", j, comp[j], j + 2, take[j + 1]);
      CHECK(pipe[j] == take[j + 1], "one thread: pipeline %u is of %u, needed %u-th is %u", j, pipe[j], j + 2, take[j + 1]);
    }
    /* and once the buffers exist, the next one's pipeline before any compile further ahead: after the first
     * pipeline, a compile of the j-th needed never starts before the pipeline of the (j-1)-th */
    uint32_t first_pipe = n;
    for (i = 0; i < n; i++)
      if (!strcmp(t[i].job, "pipeline")) { first_pipe = i; break; }
    for (uint32_t j = 2; j < 9; j++) {
      uint32_t at_comp = n, at_prev_pipe = n;
      for (i = 0; i < n; i++) {
        if (!strcmp(t[i].job, "compile") && t[i].c == take[j] && at_comp == n) at_comp = i;
        if (!strcmp(t[i].job, "pipeline") && t[i].c == take[j - 1] && at_prev_pipe == n) at_prev_pipe = i;
      }
      if (at_comp > first_pipe)
        CHECK(at_prev_pipe < at_comp, "one thread: the compile of %u started before the pipeline of %u, needed first",
              take[j], take[j - 1]);
    }
  }
  /* lavapipe is a CPU device: while it times (warm-up, trials) the pool starts no job, and the timing waits for those
   * running (the trace is written under the pool's lock, in the order of the events). Each pool job made 40 ms
   * slower, so that jobs are still waiting when the device times: without the hold 8 of 16 started then. */
  snprintf(env, sizeof env, "VKOCC_TEST_POOL_WAIT=1 VKOCC_TEST_POOL_SLOW=40 VKOCC_TEST_POOL_TRACE=%s/ts.trace", dir);
  json_t *ds = tune(env, "speed_ahead.json", "ts", "--strategy random_sample --seed 5 --budget 9 --threads 1");
  uint32_t n = read_trace("ts.trace", t, 512), holds = 0, during = 0, pool_jobs = 0;
  for (uint32_t j = 0, held = 0; j < n; j++) {
    if (!strcmp(t[j].job, "hold")) held = 1, holds++;
    else if (!strcmp(t[j].job, "release")) held = 0;
    else if (strcmp(t[j].job, "take") && !strcmp(t[j].who, "pool")) pool_jobs++, during += held;
  }
  CHECK(ds && holds >= 18 && pool_jobs >= 16 && during == 0, "%u timed phases, %u pool jobs of which %u started during them",
        holds, pool_jobs, during);
  json_decref(ds);
  /* the pool changes nothing the search measures */
  char *s4 = sequence(d4), *s1 = sequence(d1);
  CHECK(!strcmp(s4, s1), "the pool's size changed the sequence: %s against %s", s4, s1);
  free(s4), free(s1);
  json_decref(d4), json_decref(d1);
}

/* Every define set must keep the Vectors' bindings: the first module checked sets them and the measuring thread reads
 * them while the pool's threads check the next modules, so a module that moves one is refused by name, not bound by
 * whichever module a thread checked last (SCALE 2 moves the output from binding 1 to 2). */
static void test_bindings_kept(void) {
  char *out;
  int rc = run_fmt(&out, "cd %s && sed 's/binding = 1)/binding = OUT_BINDING)/; s/^layout(local_size_x_id/#if SCALE == 1\\n#define "
                   "OUT_BINDING 1\\n#else\\n#define OUT_BINDING 2\\n#endif\\nlayout(local_size_x_id/' %s/speed_scale.comp > moved.comp && "
                   "sed 's/speed_scale.comp/moved.comp/; s/\\[1, 2, 3, 4, 5, 6\\]/[1, 2]/' %s/speed_ahead.json > moved.json && "
                   "%s tune moved.json -o moved-out.json --strategy brute_force --threads 2 --max-runs 3 2>&1",
                   dir, data, data, bin);
  CHECK(rc == 2, "a define set that moves a binding: exit %d, expected 2: %s", rc, out);
  CHECK_CONTAINS(out, "moved.json: $.KernelSpecification.Arguments[1]: ./moved.comp takes binding 2 in one configuration's module and 1 in another's");
  CHECK_CONTAINS(out, "every define set must keep the Vectors' bindings");
  free(out);
}

int main(int argc, char **argv) {
  if (argc < 3 || !mkdtemp(dir)) { fprintf(stderr, "usage: test_tune_speed_lvp VKOCC DATA_DIR\n"); return 2; }
  bin = argv[1], data = argv[2];
  test_P_once_per_pipeline();
  test_ahead();
  test_pool_order();
  test_bindings_kept();
  return check_report();
}
