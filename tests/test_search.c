/* The search strategies on synthetic spaces whose optima are known by construction: determinism per seed,
 * every budget honoured (count, fraction, time), only indices of the (already constrained) space proposed,
 * invalid configurations survived and never chosen, each strategy finding the optimum of an easy smooth
 * space within a small budget, the neighbourhood over spaces with absent parameters, the occupancy prior,
 * replay over a recorded results document and a T4 file (argv[1]: the source tree's tests/data), and the
 * CLI's --list-strategies and --replay (argv[2]: the vkocc executable). */
#include "check.h"
#include "run.h"
#include "space_synth.h"
#include "../tune/session/replay.h"
#include "../tune/search/strategy_util.h"
#include <stdlib.h>
#include <time.h>

/* A grid of np parameters with nv values each, optionally less the configurations `drop` rejects. */
typedef struct synth {
  tune_space s;
  uint32_t *coord, nvalues[8];
  const char *names[8];
  double *t;      /* time per configuration; <= 0 invalid */
  double *feat;
  uint32_t *cls;
  uint32_t proposed_bad; /* indices >= nconfigs the evaluator saw */
  double sleep_s;
} synth;

static void synth_make(synth *y, uint32_t np, uint32_t nv, bool (*drop)(const uint32_t *), double (*time_of)(const uint32_t *)) {
  memset(y, 0, sizeof *y);
  for (uint32_t p = 0; p < np; p++) y->nvalues[p] = nv, y->names[p] = "p";
  uint32_t n = synth_space_fill(np, nv, drop, time_of, &y->coord, &y->t);
  y->s = (tune_space){.nparams = np, .nconfigs = n, .param_names = y->names, .nvalues = y->nvalues, .coord = y->coord};
}
static void synth_free(synth *y) { free(y->coord), free(y->t), free(y->feat), free(y->cls); }

static vkocc_status synth_eval(void *user, uint32_t c, tune_eval *e) {
  synth *y = user;
  if (c >= y->s.nconfigs) { y->proposed_bad++; return vkocc_fail(VKOCC_ERROR_RUNTIME, "index %u out of range", c); }
  if (y->sleep_s > 0) {
    struct timespec ts = {0, (long)(y->sleep_s * 1e9)};
    nanosleep(&ts, NULL);
  }
  e->valid = y->t[c] > 0;
  e->time_ns = y->t[c];
  return VKOCC_OK;
}

static int64_t argmin(const synth *y) {
  int64_t b = -1;
  for (uint32_t i = 0; i < y->s.nconfigs; i++)
    if (y->t[i] > 0 && (b < 0 || y->t[i] < y->t[b])) b = i;
  return b;
}

/* smooth bowl in 3 x 10 values: optimum at (6, 3, 7), unique */
static double bowl(const uint32_t *c) {
  double a = (double)c[0] - 6, b = (double)c[1] - 3, d = (double)c[2] - 7;
  return 1000 * (1 + a * a + b * b + d * d);
}
/* a constraint: c0 + c1 <= 12 */
static bool over(const uint32_t *c) { return c[0] + c[1] > 12; }
/* about a third invalid (deterministic hash), the bowl otherwise, the optimum's own neighbours included */
static double holes(const uint32_t *c) {
  uint32_t h = (c[0] * 73856093u) ^ (c[1] * 19349663u) ^ (c[2] * 83492791u);
  bool is_opt = c[0] == 6 && c[1] == 3 && c[2] == 7;
  if (!is_opt && (h % 3 == 0 || (c[0] == 5 && c[1] == 3 && c[2] == 7))) return -1;
  return bowl(c);
}
/* 4 x 6 rugged: many local minima, one global at (5, 2, 4, 1) */
static double rugged(const uint32_t *c) {
  double v = 0;
  const double o[4] = {5, 2, 4, 1};
  for (int p = 0; p < 4; p++) v += fabs((double)c[p] - o[p]) + 3 * ((c[p] * 7u + (uint32_t)p) % 3 == 0);
  if (c[0] == 5 && c[1] == 2 && c[2] == 4 && c[3] == 1) v = -1;
  return 1000 + 100 * (v + 1);
}
static double all_invalid(const uint32_t *c) { (void)c; return -1; }

static void test_strategies_basic(void) {
  uint32_t ns;
  const tune_strategy_def *const *all = tune_strategies(&ns);
  CHECK(ns >= 6, "%u strategies", ns);
  CHECK(!strcmp(all[0]->name, "brute_force") && !strcmp(all[1]->name, "random_sample"), "order");
  CHECK(tune_strategy_find("SIMULATED_ANNEALING") == tune_strategy_find("simulated_annealing"), "case");
  CHECK(tune_strategy_find("basin_hopping") && !strcmp(tune_strategy_find("basin_hopping")->name, "iterated_local_search"), "alias");
  CHECK(tune_strategy_find("no_such") == NULL, "unknown");

  synth bowl_s, cons, hol, rug, none, one;
  synth_make(&bowl_s, 3, 10, NULL, bowl);
  synth_make(&cons, 3, 10, over, bowl);
  synth_make(&hol, 3, 10, NULL, holes);
  synth_make(&rug, 4, 6, NULL, rugged);
  synth_make(&none, 2, 5, NULL, all_invalid);
  synth_make(&one, 1, 1, NULL, bowl);
  CHECK_EQ_U(bowl_s.s.nconfigs, 1000);
  CHECK(cons.s.nconfigs < 1000, "constrained %u", cons.s.nconfigs);
  for (uint32_t k = 0; k < ns; k++) {
    const tune_strategy_def *d = all[k];
    tune_budget b = {.max_evals = 100};
    /* determinism: the same seed, the same order; another seed, another (except brute force) */
    tune_search_result r1, r2, r3;
    CHECK(!tune_search_run(&bowl_s.s, d, 7, NULL, &b, synth_eval, &bowl_s, &r1), "%s", d->name);
    CHECK(!tune_search_run(&bowl_s.s, d, 7, NULL, &b, synth_eval, &bowl_s, &r2), "%s", d->name);
    CHECK(!tune_search_run(&bowl_s.s, d, 8, NULL, &b, synth_eval, &bowl_s, &r3), "%s", d->name);
    CHECK(r1.evals == 100 && r2.evals == 100, "%s: %u evaluations of 100", d->name, r1.evals);
    CHECK(!memcmp(r1.order, r2.order, r1.evals * sizeof *r1.order), "%s: not deterministic per seed", d->name);
    if (k > 0) CHECK(memcmp(r1.order, r3.order, r1.evals * sizeof *r1.order), "%s: seeds 7 and 8 agree", d->name);
    /* distinct configurations */
    uint8_t seen[1000] = {0};
    uint32_t dups = 0;
    for (uint32_t i = 0; i < r1.evals; i++) dups += seen[r1.order[i]]++ > 0;
    CHECK_EQ_U(dups, 0);
    /* the easy smooth space: every strategy but brute force and random finds the optimum in 10% */
    if (k >= 2) {
      uint32_t found = 0;
      for (uint64_t seed = 1; seed <= 10; seed++) {
        tune_search_result r;
        tune_search_run(&bowl_s.s, d, seed, NULL, &b, synth_eval, &bowl_s, &r);
        found += r.best == argmin(&bowl_s);
        tune_search_result_free(&r);
      }
      CHECK(found == 10, "%s: found the bowl's optimum in %u of 10 seeds within 100 of 1000", d->name, found);
      CHECK_EQ_U(r1.best, argmin(&bowl_s));
      CHECK_NEAR(r1.best_ns, 1000, 0);
    }
    /* best_after never rises */
    for (uint32_t i = 1; i < r1.evals; i++) CHECK(r1.best_after[i] <= r1.best_after[i - 1], "%s", d->name);
    tune_search_result_free(&r1), tune_search_result_free(&r2), tune_search_result_free(&r3);

    /* a target: the search stops at the first configuration at least that fast */
    tune_budget btar = {.target_ns = 1000};
    CHECK(!tune_search_run(&bowl_s.s, d, 3, NULL, &btar, synth_eval, &bowl_s, &r1), "%s", d->name);
    CHECK(r1.evals >= 1 && r1.best == argmin(&bowl_s) && r1.order[r1.evals - 1] == (uint32_t)r1.best, "%s: target", d->name);
    tune_search_result_free(&r1);
    /* budgets: fraction (ceil), count, time */
    tune_budget bf = {.max_fraction = 0.0125};
    CHECK(!tune_search_run(&bowl_s.s, d, 3, NULL, &bf, synth_eval, &bowl_s, &r1), "%s", d->name);
    CHECK_EQ_U(r1.evals, 13);
    tune_search_result_free(&r1);
    tune_budget both = {.max_evals = 5, .max_fraction = 0.5};
    CHECK(!tune_search_run(&bowl_s.s, d, 3, NULL, &both, synth_eval, &bowl_s, &r1), "%s", d->name);
    CHECK_EQ_U(r1.evals, 5);
    tune_search_result_free(&r1);
    tune_budget bt = {.max_seconds = 0.05};
    rug.sleep_s = 0.002; /* 1296 configurations x 2 ms = 2.6 s: the time budget ends it long before */
    CHECK(!tune_search_run(&rug.s, d, 3, NULL, &bt, synth_eval, &rug, &r1), "%s", d->name);
    CHECK(r1.evals >= 1 && r1.evals < rug.s.nconfigs / 2, "%s: %u evaluations in a 0.05 s budget", d->name, r1.evals);
    rug.sleep_s = 0;
    tune_search_result_free(&r1);

    /* constraints: the whole constrained space, nothing outside it */
    tune_budget ball = {0};
    cons.proposed_bad = 0;
    CHECK(!tune_search_run(&cons.s, d, 5, NULL, &ball, synth_eval, &cons, &r1), "%s: %s", d->name, vkocc_last_error());
    CHECK_EQ_U(cons.proposed_bad, 0);
    CHECK(r1.evals == cons.s.nconfigs, "%s: %u of %u evaluated without a budget", d->name, r1.evals, cons.s.nconfigs);
    CHECK_EQ_U(r1.best, argmin(&cons));
    tune_search_result_free(&r1);

    /* invalid configurations: survived, never best; the optimum still found */
    uint32_t found = 0;
    for (uint64_t seed = 1; seed <= 5; seed++) {
      tune_budget bh = {.max_evals = 300};
      CHECK(!tune_search_run(&hol.s, d, seed, NULL, &bh, synth_eval, &hol, &r1), "%s", d->name);
      CHECK(r1.best < 0 || hol.t[r1.best] > 0, "%s: an invalid configuration chosen", d->name);
      found += r1.best == argmin(&hol);
      tune_search_result_free(&r1);
    }
    if (k >= 2) CHECK(found >= 4, "%s: the optimum among invalid ones in %u of 5 seeds (300 of 1000)", d->name, found);
    /* everything invalid: the search ends, having tried all, with no best */
    CHECK(!tune_search_run(&none.s, d, 1, NULL, &ball, synth_eval, &none, &r1), "%s", d->name);
    CHECK(r1.best == -1 && r1.evals == none.s.nconfigs, "%s: best %lld after %u", d->name, (long long)r1.best, r1.evals);
    tune_search_result_free(&r1);
    /* a space of one configuration */
    CHECK(!tune_search_run(&one.s, d, 1, NULL, &ball, synth_eval, &one, &r1), "%s", d->name);
    CHECK(r1.evals == 1 && r1.best == 0, "%s", d->name);
    tune_search_result_free(&r1);
    /* a rugged space: the whole space is still searched to the end without a budget */
    CHECK(!tune_search_run(&rug.s, d, 2, NULL, &ball, synth_eval, &rug, &r1), "%s", d->name);
    CHECK(r1.evals == rug.s.nconfigs && r1.best == argmin(&rug), "%s: %u of %u", d->name, r1.evals, rug.s.nconfigs);
    tune_search_result_free(&r1);
  }
  /* a bad attribute is a usage error naming it */
  json_t *a = json_pack("{s:i}", "nonsense", 1);
  void *st = NULL;
  CHECK(tune_strategy_find("random_forest")->create(&bowl_s.s, 1, a, &st) == VKOCC_ERROR_USAGE, "attribute");
  CHECK_CONTAINS(vkocc_last_error(), "nonsense");
  json_decref(a);
  a = json_pack("{s:f}", "T0", -1.0);
  CHECK(tune_strategy_find("simulated_annealing")->create(&bowl_s.s, 1, a, &st) == VKOCC_ERROR_USAGE, "T0");
  json_decref(a);
  synth_free(&bowl_s), synth_free(&cons), synth_free(&hol), synth_free(&rug), synth_free(&none), synth_free(&one);
}

/* Neighbours over a space whose second parameter applies only to variant 1 (index 3 = absent, as replay
 * codes it): variant 0 -> 1 keeps the first parameter and lands on the nearest present value. */
static void test_neighbours(void) {
  static const uint32_t coord[] = {0, 3, 0,  0, 3, 1,  1, 0, 0,  1, 1, 0,  1, 2, 0,  1, 0, 1,  1, 1, 1,  1, 2, 1};
  static const uint32_t nv[] = {2, 4, 2};
  static const char *const names[] = {"variant", "copies", "wg"};
  tune_space s = {.nparams = 3, .nconfigs = 8, .param_names = names, .nvalues = nv, .coord = coord};
  tune_nbr nb;
  tune_nbr_init(&nb, &s);
  CHECK_EQ_U(tune_nbr_find(&nb, (const uint32_t[]){1, 2, 1}), 7);
  CHECK(tune_nbr_find(&nb, (const uint32_t[]){0, 0, 0}) == -1, "absent");
  CHECK_EQ_U(tune_nbr_step(&nb, 0, 2, 1), 1);          /* wg 0 -> 1 */
  CHECK(tune_nbr_step(&nb, 0, 2, -1) == -1, "below 0");
  CHECK_EQ_U(tune_nbr_step(&nb, 1, 0, 1), 7);          /* variant 1, wg 1, copies nearest to "absent" (3): 2 */
  CHECK_EQ_U(tune_nbr_step(&nb, 3, 1, 1), 4);          /* copies 1 -> 2 */
  CHECK_EQ_U(tune_nbr_step(&nb, 4, 1, 1), 0);          /* copies 2 -> 3 (absent) only in variant 0: nearest with it */
  uint32_t out[6];
  uint32_t k = tune_nbr_list(&nb, 3, out);
  CHECK_EQ_U(k, 4); /* variant 0 (nearest: config 0), copies 0 and 2, wg 1 */
  tune_nbr_free(&nb);
}

/* The prior: the design draws in proportion to the weight; weight 0 only once nothing else is left. */
static void test_prior(void) {
  synth y;
  synth_make(&y, 2, 10, NULL, bowl);
  double *w = malloc(y.s.nconfigs * sizeof *w);
  for (uint32_t c = 0; c < y.s.nconfigs; c++) w[c] = y.coord[c * 2] < 5 ? 0 : y.coord[c * 2] == 9 ? 100 : 1;
  y.s.prior_weight = w;
  tune_track t;
  tune_track_init(&t, y.s.nconfigs);
  tune_rng r;
  tune_rng_seed(&r, 1);
  uint32_t d[60], heavy = 0, zero = 0;
  CHECK_EQ_U(tune_design(&y.s, &t, &r, 60, d), 60);
  for (uint32_t i = 0; i < 10; i++) heavy += y.coord[d[i] * 2] == 9;
  for (uint32_t i = 0; i < 50; i++) zero += y.coord[d[i] * 2] < 5;
  CHECK(heavy >= 8, "%u of the first 10 from the heavy column (weight 100 against 40 x 1)", heavy);
  CHECK_EQ_U(zero, 0); /* 50 of weight > 0 exist: none of weight 0 among the first 50 */
  for (uint32_t i = 50; i < 60; i++) CHECK(y.coord[d[i] * 2] < 5, "then weight 0");
  tune_track_free(&t);
  free(w);
  synth_free(&y);
}

/* Features reach the forest: time depends on a feature that is a nonlinear mix of the parameters. */
static double by_feature(const uint32_t *c) {
  uint32_t f = (c[0] * 7 + c[1] * 3) % 23;
  return 1000 * (1 + fabs((double)f - 11)); /* smooth in f, not in the parameters */
}
static void test_features(void) {
  synth y;
  synth_make(&y, 2, 20, NULL, by_feature);
  y.feat = malloc(y.s.nconfigs * sizeof *y.feat);
  for (uint32_t c = 0; c < y.s.nconfigs; c++) y.feat[c] = (y.coord[c * 2] * 7 + y.coord[c * 2 + 1] * 3) % 23;
  static const char *const fn[] = {"f"};
  y.s.nfeatures = 1, y.s.feature_names = fn, y.s.features = y.feat;
  /* 17 of 400 share the optimum time (f = 11): within 25 evaluations random sampling finds one with
   * probability 1 - (383/400)^25 = 0.66; the forest, which can split on f, in nearly every seed */
  uint32_t found = 0, found_random = 0;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    tune_budget b = {.max_evals = 25};
    tune_search_result r;
    CHECK(!tune_search_run(&y.s, tune_strategy_find("random_forest"), seed, NULL, &b, synth_eval, &y, &r), "forest");
    found += r.best_ns == 1000;
    tune_search_result_free(&r);
    CHECK(!tune_search_run(&y.s, tune_strategy_find("random_sample"), seed, NULL, &b, synth_eval, &y, &r), "random");
    found_random += r.best_ns == 1000;
    tune_search_result_free(&r);
  }
  CHECK(found >= 18 && found > found_random, "forest with the feature: optimum in %u of 20 seeds (random: %u)", found,
        found_random);
  synth_free(&y);
}

/* Replay over the committed H100 histogram results and a small T4 file. */
static void test_replay(const char *root) {
  char path[1024], fp[1024];
  snprintf(path, sizeof path, "%s/../../docs/results/h100/tune/histogram-u32.json", root);
  snprintf(fp, sizeof fp, "%s/../../docs/results/h100/tune/fingerprint.json", root);
  tune_replay_space sp;
  vkocc_status st = tune_replay_load(path, NULL, &sp);
  CHECK(!st, "%s", vkocc_last_error());
  if (st) return;
  CHECK_EQ_U(sp.s.nconfigs, 266);
  CHECK_NEAR(sp.optimum_ns, 66528, 0);
  CHECK_EQ_U(sp.s.nparams, 5);
  CHECK(sp.s.nfeatures >= 4 && sp.s.prior_weight, "features from the fingerprint beside the results: %u", sp.s.nfeatures);
  /* the best: persistent, wg 512, copies 1 (shared 1 KiB): 4 workgroups of 512 per SM on the H100 (2048 threads) */
  uint32_t occ = UINT32_MAX;
  for (uint32_t j = 0; j < sp.s.nfeatures; j++)
    if (!strcmp(sp.s.feature_names[j], "wg_per_sm")) occ = j;
  CHECK(occ != UINT32_MAX, "wg_per_sm feature");
  if (occ != UINT32_MAX) CHECK_NEAR(sp.s.features[(size_t)sp.optimum * sp.s.nfeatures + occ], 4, 0);
  tune_replay_stats rs;
  CHECK(!tune_replay_run(&sp, tune_strategy_find("random_sample"), NULL, true, 0, 4, 1, &rs), "run");
  CHECK_EQ_U(rs.budget, 266);
  CHECK_NEAR(rs.median[265], 1.0, 0); /* the whole space: the optimum, every seed */
  CHECK(rs.median[0] > 0 && rs.median[0] <= 1, "first %g", rs.median[0]);
  tune_replay_stats_free(&rs);
  tune_replay_space_free(&sp);
  /* a user kernel's results: the parameters coded from each record's config (6 of the persistent reduction),
   * the optimum named by them, features from local_size and the P-based launch scaled to the model's P */
  snprintf(path, sizeof path, "%s/../../docs/results/h200/tune-examples/reduce.json", root);
  st = tune_replay_load(path, NULL, &sp);
  CHECK(!st, "%s", vkocc_last_error());
  if (!st) {
    CHECK_EQ_U(sp.s.nconfigs, 864);
    CHECK_EQ_U(sp.s.nparams, 6);
    CHECK_EQ_U(sp.nvalid, 800);
    char text[512];
    tune_replay_config_text(&sp, (uint32_t)sp.optimum, text, sizeof text);
    CHECK(!strcmp(text, "WG=512 ITEMS=8 UNROLL=4 VEC=2 TREE=0 BLOCKS_PER_P=2"), "optimum '%s'", text);
    /* value indices differ between configurations (they were all 0 when the parameters were not read) */
    uint32_t differ = 0;
    for (uint32_t c = 1; c < sp.s.nconfigs; c++) differ += memcmp(sp.coord, sp.coord + (size_t)c * 6, 6 * sizeof *sp.coord) != 0;
    CHECK_EQ_U(differ, 863);
    uint32_t waves = UINT32_MAX;
    for (uint32_t j = 0; j < sp.s.nfeatures; j++)
      if (!strcmp(sp.s.feature_names[j], "waves")) waves = j;
    CHECK(waves != UINT32_MAX, "waves feature");
    /* BLOCKS_PER_P = 2 launches two waves of the model's P */
    if (waves != UINT32_MAX) CHECK_NEAR(sp.s.features[(size_t)sp.optimum * sp.s.nfeatures + waves], 2, 0.01);
    tune_replay_space_free(&sp);
  }
  /* T4: two valid, one wrong answer, one constrained out (not part of the space) */
  char dir[] = "/tmp/vkocc-search-XXXXXX";
  if (!mkdtemp(dir)) return;
  const char *t4 = check_write_tmp(dir, "t4.json",
      "{\"schema_version\":\"1.0.0\",\"results\":["
      "{\"configuration\":{\"block_size_x\":32,\"tile\":1},\"times\":{},\"invalidity\":\"correct\",\"correctness\":1,"
      "\"objectives\":[\"time\"],\"measurements\":[{\"name\":\"time\",\"value\":2.0,\"unit\":\"ms\"}]},"
      "{\"configuration\":{\"block_size_x\":64,\"tile\":1},\"times\":{},\"invalidity\":\"correct\",\"correctness\":1,"
      "\"objectives\":[\"time\"],\"measurements\":[{\"name\":\"time\",\"value\":1500,\"unit\":\"us\"}]},"
      "{\"configuration\":{\"block_size_x\":64,\"tile\":2},\"times\":{},\"invalidity\":\"correctness\",\"correctness\":0,"
      "\"measurements\":[]},"
      "{\"configuration\":{\"block_size_x\":32,\"tile\":2},\"times\":{},\"invalidity\":\"constraints\",\"correctness\":0,"
      "\"measurements\":[]}]}");
  CHECK(!tune_replay_load(t4, fp, &sp), "%s", vkocc_last_error());
  CHECK_EQ_U(sp.s.nconfigs, 3);
  CHECK_NEAR(sp.optimum_ns, 1.5e6, 1e-3);
  CHECK(!sp.truth[sp.s.nconfigs - 1].valid, "the wrong answer is invalid");
  CHECK(sp.s.nfeatures >= 1, "block_size_x gives the occupancy");
  tune_replay_space_free(&sp);
  const char *bad = check_write_tmp(dir, "bad.json", "{\"schema_version\":\"1.0.0\",\"results\":[{\"configuration\":5}]}");
  CHECK(tune_replay_load(bad, NULL, &sp) == VKOCC_ERROR_USAGE, "bad T4");
  CHECK_CONTAINS(vkocc_last_error(), "$.results[0].configuration");
  unlink(t4), unlink(bad), rmdir(dir);
}

/* vkocc tune --list-strategies / --replay: outputs and exit codes */
static void test_cli(const char *cli, const char *data) {
  char *out;
  CHECK_EQ_U(run_fmt(&out, "%s tune --list-strategies", cli), 0);
  CHECK(!strncmp(out, "brute_force\nrandom_sample\n", 26), "%s", out);
  CHECK_CONTAINS(out, "random_forest\n");
  free(out);
  char res[1024];
  snprintf(res, sizeof res, "%s/../../docs/results/h100/tune/reduce-u32.json", data);
  CHECK_EQ_U(run_fmt(&out, "%s tune --replay %s --strategy iterated_local_search --seeds 3 --json 2>&1", cli, res), 0);
  CHECK_CONTAINS(out, "\"median_fraction\": 1.0");    /* the whole space: the optimum */
  CHECK_CONTAINS(out, "\"schema\": \"vkocc.tune-replay/1\"");
  CHECK_CONTAINS(out, "\"configurations\": 168");
  free(out);
  CHECK_EQ_U(run_fmt(&out, "%s tune --replay %s --strategy random,forest --seeds 2 --budget 10 --ablation", cli, res), 0);
  CHECK_CONTAINS(out, "random_forest (no occupancy)");
  CHECK_CONTAINS(out, "optimum:   51.8 us: variant=subgroup wg_size=1024 elements_per_thread=64 access=strided");
  free(out);
  /* the convergence plot: PNG and SVG (with its text), or exit 3 without cairo (fontconfig's one-time
   * allocations would read as leaks under LeakSanitizer: not checked in these children) */
  char dir[] = "/tmp/vkocc-replay-XXXXXX";
  if (mkdtemp(dir)) {
    int rc = run_fmt(&out, "ASAN_OPTIONS=detect_leaks=0 %s tune --replay %s --strategy random,annealing --seeds 3 --plot %s/c.svg 2>&1", cli, res, dir);
    CHECK(rc == 0 || rc == 3, "plot: exit %d", rc);
    free(out);
    if (rc == 0) {
      char path[1100];
      snprintf(path, sizeof path, "%s/c.svg", dir);
      FILE *f = fopen(path, "r");
      char buf[4096] = {0};
      if (f) { if (fread(buf, 1, sizeof buf - 1, f)) {} fclose(f); }
      const char *svg = buf;
      CHECK_CONTAINS(svg, "<title>search convergence: reduce u32");
      CHECK_CONTAINS(svg, "simulated_annealing: 1.000 after 168 evaluations");
      unlink(path);
      CHECK_EQ_U(run_fmt(&out, "ASAN_OPTIONS=detect_leaks=0 %s tune --replay %s --strategy random --seeds 2 --plot %s/c.png 2>&1", cli, res, dir), 0);
      free(out);
      snprintf(path, sizeof path, "%s/c.png", dir);
      CHECK(access(path, R_OK) == 0, "%s", path);
      unlink(path);
      CHECK_EQ_U(run_fmt(&out, "%s tune --replay %s --seeds 2 --plot %s/c.bmp 2>&1", cli, res, dir), 2);
      free(out);
    }
    rmdir(dir);
  }
  CHECK_EQ_U(run_fmt(&out, "%s tune --replay %s --strategy nonesuch 2>&1", cli, res), 2);
  CHECK_CONTAINS(out, "nonesuch");
  free(out);
  CHECK_EQ_U(run_fmt(&out, "%s tune --replay /nonexistent/r.json 2>&1", cli), 2);
  free(out);
  CHECK_EQ_U(run_fmt(&out, "%s tune --replay %s --strategy all --attributes '{\"kick\":3}' 2>&1", cli, res), 2);
  CHECK_CONTAINS(out, "--attributes");
  free(out);
  CHECK_EQ_U(run_fmt(&out, "%s tune --replay %s --strategy ils --attributes '{\"nope\":3}' 2>&1", cli, res), 2);
  CHECK_CONTAINS(out, "Search.Attributes.nope");
  free(out);
}

int main(int argc, char **argv) {
  test_strategies_basic();
  test_neighbours();
  test_prior();
  test_features();
  test_replay(argc > 1 ? argv[1] : "tests/data");
  if (argc > 2) test_cli(argv[2], argv[1]);
  return check_report();
}
