/* The ask/tell search: one worker retraces the sequential search of every strategy exactly (the orders are
 * pinned by hashes taken before strategies became ask/tell); several workers, told results in a shuffled
 * order, evaluate distinct configurations of the space, honour the budget, cover a space without one, find
 * the optimum of a smooth space, and keep the workers busy; a configuration put back after a lost worker is
 * handed out again. */
#include "check.h"
#include "space_synth.h"
#include "../tune/search/search.h"
#include <stdlib.h>

static double g_bowl(const uint32_t *c) {
  double a = (double)c[0] - 6, b = (double)c[1] - 3, d = (double)c[2] - 7;
  return 1000 * (1 + a * a + b * b + d * d);
}
static bool g_over(const uint32_t *c) { return c[0] + c[1] > 12; }
static bool g_over_small(const uint32_t *c) { return c[0] + c[1] > 7; }
static double g_holes(const uint32_t *c) {
  uint32_t h = (c[0] * 73856093u) ^ (c[1] * 19349663u) ^ (c[2] * 83492791u);
  if (h % 3 == 0 && !(c[0] == 6 && c[1] == 3 && c[2] == 7)) return -1;
  return g_bowl(c);
}
static double g_rugged(const uint32_t *c) {
  double v = 0;
  const double o[4] = {5, 2, 4, 1};
  for (int p = 0; p < 4; p++) v += fabs((double)c[p] - o[p]) + 3 * ((c[p] * 7u + (uint32_t)p) % 3 == 0);
  return 1000 + 100 * (v + 1);
}

typedef struct sy { tune_space s; uint32_t *coord, nv[8]; const char *names[8]; double *t, *w; } sy;
static void mk(sy *y, uint32_t np, uint32_t nv, bool (*drop)(const uint32_t *), double (*f)(const uint32_t *)) {
  memset(y, 0, sizeof *y);
  for (uint32_t p = 0; p < np; p++) y->nv[p] = nv, y->names[p] = "p";
  uint32_t n = synth_space_fill(np, nv, drop, f, &y->coord, &y->t);
  y->s = (tune_space){.nparams = np, .nconfigs = n, .param_names = y->names, .nvalues = y->nv, .coord = y->coord};
}
static void sy_free(sy *y) { free(y->coord), free(y->t), free(y->w); }
static vkocc_status ev(void *u, uint32_t c, tune_eval *e) {
  sy *y = u;
  e->valid = y->t[c] > 0, e->time_ns = y->t[c];
  return VKOCC_OK;
}
static int64_t argmin(const sy *y) {
  int64_t b = -1;
  for (uint32_t i = 0; i < y->s.nconfigs; i++)
    if (y->t[i] > 0 && (b < 0 || y->t[i] < y->t[b])) b = i;
  return b;
}

/* strategy (table order), space (bowl, constrained bowl, bowl with invalid holes, rugged 4 x 6, bowl with a
 * prior), seed, budget, evaluations, FNV-1a of the order and the best: taken from the sequential loop before
 * the strategies became ask/tell (the forest at the small budget only: its refits are slow under sanitizers) */
static const struct golden { uint32_t k; int space; uint64_t seed, budget; uint32_t evals; uint64_t hash; } golden[] = {
  {0, 0, 1, 60, 60, 0xa92ce1beebfc04f6ull},
  {0, 0, 1, 250, 250, 0x03e2a5cfb367bddfull},
  {0, 0, 2, 60, 60, 0xa92ce1beebfc04f6ull},
  {0, 0, 2, 250, 250, 0x03e2a5cfb367bddfull},
  {0, 1, 1, 60, 60, 0xa92ce1beebfc04f6ull},
  {0, 1, 1, 250, 250, 0x03e28bcfb36791b1ull},
  {0, 1, 2, 60, 60, 0xa92ce1beebfc04f6ull},
  {0, 1, 2, 250, 250, 0x03e28bcfb36791b1ull},
  {0, 2, 1, 60, 60, 0xa92ce1beebfc04f6ull},
  {0, 2, 1, 250, 250, 0x03e2a5cfb367bddfull},
  {0, 2, 2, 60, 60, 0xa92ce1beebfc04f6ull},
  {0, 2, 2, 250, 250, 0x03e2a5cfb367bddfull},
  {0, 3, 1, 60, 60, 0xa92ccabeebfbdde1ull},
  {0, 3, 1, 250, 250, 0x03e2accfb367c9c4ull},
  {0, 3, 2, 60, 60, 0xa92ccabeebfbdde1ull},
  {0, 3, 2, 250, 250, 0x03e2accfb367c9c4ull},
  {0, 4, 1, 60, 60, 0xa92ce1beebfc04f6ull},
  {0, 4, 1, 250, 250, 0x03e2a5cfb367bddfull},
  {0, 4, 2, 60, 60, 0xa92ce1beebfc04f6ull},
  {0, 4, 2, 250, 250, 0x03e2a5cfb367bddfull},
  {1, 0, 1, 60, 60, 0xe980a0ad857a5db1ull},
  {1, 0, 1, 250, 250, 0x26f48230f159ff18ull},
  {1, 0, 2, 60, 60, 0x7f1e90029d942f19ull},
  {1, 0, 2, 250, 250, 0xcf201ed0f4d0eb61ull},
  {1, 1, 1, 60, 60, 0x9ccfefeebcbb74e3ull},
  {1, 1, 1, 250, 250, 0x1ebde502ec05ccbaull},
  {1, 1, 2, 60, 60, 0x6c0dd005548afbbfull},
  {1, 1, 2, 250, 250, 0xf1c80059166c549dull},
  {1, 2, 1, 60, 60, 0xe980a0ad857a5db1ull},
  {1, 2, 1, 250, 250, 0x26f48230f159ff18ull},
  {1, 2, 2, 60, 60, 0x7f1e90029d942f19ull},
  {1, 2, 2, 250, 250, 0xcf201ed0f4d0eb61ull},
  {1, 3, 1, 60, 60, 0xb1e1a80ae41a0611ull},
  {1, 3, 1, 250, 250, 0xa12d38eb45d9f07full},
  {1, 3, 2, 60, 60, 0xdc5fa5de034f0d6cull},
  {1, 3, 2, 250, 250, 0xc3645b23057d8bd2ull},
  {1, 4, 1, 60, 60, 0xe980a0ad857a5db1ull},
  {1, 4, 1, 250, 250, 0x26f48230f159ff18ull},
  {1, 4, 2, 60, 60, 0x7f1e90029d942f19ull},
  {1, 4, 2, 250, 250, 0xcf201ed0f4d0eb61ull},
  {2, 0, 1, 60, 60, 0xb13aa49eb7f4714bull},
  {2, 0, 1, 250, 250, 0xa4e4c4d640067390ull},
  {2, 0, 2, 60, 60, 0x352db7f81b715009ull},
  {2, 0, 2, 250, 250, 0xd521ff1b0dc066b0ull},
  {2, 1, 1, 60, 60, 0x9d865e86a338db1bull},
  {2, 1, 1, 250, 250, 0xb366c5092cbd4c53ull},
  {2, 1, 2, 60, 60, 0x8203ed3bae009cffull},
  {2, 1, 2, 250, 250, 0x034a57e0c5d4e131ull},
  {2, 2, 1, 60, 60, 0x50425982ba71b844ull},
  {2, 2, 1, 250, 250, 0x3ba3d3842bf4f523ull},
  {2, 2, 2, 60, 60, 0x05ff7f4a5555b655ull},
  {2, 2, 2, 250, 250, 0x593d4142cc970717ull},
  {2, 3, 1, 60, 60, 0xeb6986a9f6212655ull},
  {2, 3, 1, 250, 250, 0xc5772802dafe3a6dull},
  {2, 3, 2, 60, 60, 0xd1c2eebf90c27064ull},
  {2, 3, 2, 250, 250, 0x91c84409bc66caafull},
  {2, 4, 1, 60, 60, 0x59b0c0b1e57b4e5cull},
  {2, 4, 1, 250, 250, 0x701a7f3c6a631952ull},
  {2, 4, 2, 60, 60, 0xc55b12728f0cfc29ull},
  {2, 4, 2, 250, 250, 0x7da3d80e6b3f0965ull},
  {3, 0, 1, 60, 60, 0x1e4ae6909699ce09ull},
  {3, 0, 1, 250, 250, 0x6d3908635109506bull},
  {3, 0, 2, 60, 60, 0x2d9d5226384e1be7ull},
  {3, 0, 2, 250, 250, 0x4f2f449666c42d4dull},
  {3, 1, 1, 60, 60, 0x84dbffe3d6c00109ull},
  {3, 1, 1, 250, 250, 0x2bb0b1d2c21b06c8ull},
  {3, 1, 2, 60, 60, 0xd5e74ffb94c09e07ull},
  {3, 1, 2, 250, 250, 0xff7f2a378328ac90ull},
  {3, 2, 1, 60, 60, 0xdc42bb0863677df2ull},
  {3, 2, 1, 250, 250, 0x4086f24aa7a5defeull},
  {3, 2, 2, 60, 60, 0x09cf35163cb81a4bull},
  {3, 2, 2, 250, 250, 0x05f77d5f85c0dfc1ull},
  {3, 3, 1, 60, 60, 0xadd068cb842d065cull},
  {3, 3, 1, 250, 250, 0xdc9f1ef69b6e6cd6ull},
  {3, 3, 2, 60, 60, 0x7a6a7a6331e6f55eull},
  {3, 3, 2, 250, 250, 0x9069c80c4d88ce2dull},
  {3, 4, 1, 60, 60, 0xc1502e5ba079ecd4ull},
  {3, 4, 1, 250, 250, 0x7d61caea75dc0bb7ull},
  {3, 4, 2, 60, 60, 0x749ecf6f1833d717ull},
  {3, 4, 2, 250, 250, 0x01e4ceff035315a9ull},
  {4, 0, 1, 60, 60, 0xe992bcb3ee07c136ull},
  {4, 0, 1, 250, 250, 0x91334c5687f0cfbdull},
  {4, 0, 2, 60, 60, 0x82f8b64df580640dull},
  {4, 0, 2, 250, 250, 0x0ccc81d62e7628c0ull},
  {4, 1, 1, 60, 60, 0x5de7871aec89d7d9ull},
  {4, 1, 1, 250, 250, 0xde1415cf2a5ea14eull},
  {4, 1, 2, 60, 60, 0x3f51a1fc928c16c6ull},
  {4, 1, 2, 250, 250, 0x6c6e692b5fffc91dull},
  {4, 2, 1, 60, 60, 0x01f2b616e7b02555ull},
  {4, 2, 1, 250, 250, 0xeb2c6f90b26a27ceull},
  {4, 2, 2, 60, 60, 0x25e0fbe6519e24baull},
  {4, 2, 2, 250, 250, 0xe27a5acb86bfc200ull},
  {4, 3, 1, 60, 60, 0x776753830239b4f7ull},
  {4, 3, 1, 250, 250, 0x19527a5e34df0599ull},
  {4, 3, 2, 60, 60, 0xa5e77bb161460056ull},
  {4, 3, 2, 250, 250, 0x42980a0f3da6b0e5ull},
  {4, 4, 1, 60, 60, 0x6afff61add398b63ull},
  {4, 4, 1, 250, 250, 0x37695a872ca75100ull},
  {4, 4, 2, 60, 60, 0x496b908ff6dae8e2ull},
  {4, 4, 2, 250, 250, 0x06719afe5af61e6eull},
  {5, 0, 1, 60, 60, 0xcfcfd6db20557135ull},
  {5, 0, 2, 60, 60, 0x9d5f1adb47e20380ull},
  {5, 1, 1, 60, 60, 0x75702acfbb0bbc98ull},
  {5, 1, 2, 60, 60, 0x57f91e922bf740b9ull},
  {5, 2, 1, 60, 60, 0x719e0c07cee1b703ull},
  {5, 2, 2, 60, 60, 0x0eec535287b920b1ull},
  {5, 3, 1, 60, 60, 0xbb92b6b271bee59aull},
  {5, 3, 2, 60, 60, 0x67a1d64781ad78a0ull},
  {5, 4, 1, 60, 60, 0x92bf8f6f12b319f3ull},
  {5, 4, 2, 60, 60, 0x7beb35302af591e4ull},
};

static void spaces(sy sp[7]) {
  mk(&sp[0], 3, 10, NULL, g_bowl), mk(&sp[1], 3, 10, g_over, g_bowl), mk(&sp[2], 3, 10, NULL, g_holes);
  mk(&sp[3], 4, 6, NULL, g_rugged), mk(&sp[4], 3, 10, NULL, g_bowl);
  sp[4].w = malloc(1000 * sizeof *sp[4].w);
  for (uint32_t c = 0; c < 1000; c++) sp[4].w[c] = sp[4].coord[c * 3] < 3 ? 0 : 1 + sp[4].coord[c * 3 + 1];
  sp[4].s.prior_weight = sp[4].w;
  mk(&sp[5], 3, 6, g_over_small, g_bowl), mk(&sp[6], 4, 4, NULL, g_rugged); /* small: covered whole */
}

static void test_one_worker_retraces(sy sp[7]) {
  uint32_t ns;
  const tune_strategy_def *const *all = tune_strategies(&ns);
  uint32_t mismatched = 0;
  for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
    const struct golden *g = &golden[i];
    tune_budget b = {.max_evals = g->budget};
    tune_search_result r;
    CHECK(!tune_search_run(&sp[g->space].s, all[g->k], g->seed, NULL, &b, ev, &sp[g->space], &r), "%s", all[g->k]->name);
    uint64_t h = 1469598103934665603ull;
    for (uint32_t j = 0; j < r.evals; j++) h = (h ^ r.order[j]) * 1099511628211ull;
    h = (h ^ (uint64_t)(r.best + 1)) * 1099511628211ull;
    if (r.evals != g->evals || h != g->hash) {
      mismatched++;
      fprintf(stderr, "%s, space %d, seed %llu, budget %llu: %u evaluations, order hash %016llx, expected %u, %016llx\n",
              all[g->k]->name, g->space, (unsigned long long)g->seed, (unsigned long long)g->budget, r.evals,
              (unsigned long long)h, g->evals, (unsigned long long)g->hash);
    }
    tune_search_result_free(&r);
  }
  CHECK_EQ_U(mismatched, 0);
}

/* W simulated workers: each takes what ask hands out while it is free; results come back in a shuffled order.
 * lose_at: after that many results, one worker is lost and its configuration put back. Returns the result;
 * *busy: the share of worker-steps spent measuring. */
static void simulate(sy *y, const tune_strategy_def *d, uint64_t seed, const tune_budget *b, uint32_t W, uint32_t lose_at,
                     tune_search_result *out, double *busy, uint32_t *bad) {
  tune_search *ts;
  CHECK(!tune_search_open(&y->s, d, seed, NULL, b, &ts), "%s", d->name);
  int64_t slot[16];
  for (uint32_t w = 0; w < W; w++) slot[w] = -1;
  uint64_t rng = seed * 2654435761u + 1, steps = 0, working = 0, told = 0;
  uint8_t *got = calloc(y->s.nconfigs, 1);
  *bad = 0;
  for (;;) {
    for (uint32_t w = 0; w < W; w++) {
      if (slot[w] >= 0) continue;
      uint32_t c;
      if (!tune_search_ask(ts, 1, &c)) break;
      if (c >= y->s.nconfigs || got[c]) (*bad)++;
      else got[c] = 1;
      slot[w] = c;
    }
    uint32_t nbusy = 0;
    for (uint32_t w = 0; w < W; w++) nbusy += slot[w] >= 0;
    if (!nbusy) break;
    steps++, working += nbusy;
    /* one of the busy workers finishes, chosen at random */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    uint32_t pick = (uint32_t)(rng % nbusy), w = 0;
    for (;; w++)
      if (slot[w] >= 0 && pick-- == 0) break;
    uint32_t c = (uint32_t)slot[w];
    slot[w] = -1;
    if (lose_at && told == lose_at) { /* this worker is lost: its configuration goes to another */
      tune_search_requeue(ts, c);
      got[c] = 0;
      lose_at = 0;
      continue;
    }
    tune_eval e;
    ev(y, c, &e);
    CHECK(!tune_search_tell(ts, c, e), "%s: tell %u", d->name, c);
    told++;
  }
  CHECK(!tune_search_status(ts) && !tune_search_inflight(ts), "%s", d->name);
  tune_search_result_get(ts, out);
  tune_search_close(ts);
  *busy = steps ? (double)working / ((double)steps * W) : 0;
  free(got);
}

static void test_workers(sy sp[7]) {
  uint32_t ns;
  const tune_strategy_def *const *all = tune_strategies(&ns);
  for (uint32_t k = 0; k < ns; k++) {
    const tune_strategy_def *d = all[k];
    tune_search_result r, r1;
    double busy;
    uint32_t bad;
    /* a budget: exactly that many distinct configurations, whatever the order results come back in */
    tune_budget b = {.max_evals = 100};
    simulate(&sp[0], d, 3, &b, 4, 0, &r, &busy, &bad);
    CHECK(r.evals == 100 && !bad, "%s: %u evaluations of 100, %u repeated or outside", d->name, r.evals, bad);
    printf("%-22s 4 workers, budget 100: busy %.0f%%, best %.0f\n", d->name, 100 * busy, r.best_ns);
    /* the walks wait for their last step now and then; batches keep every worker busy */
    CHECK(busy >= (k < 2 ? 0.97 : 0.5), "%s: workers busy %.0f%%", d->name, 100 * busy);
    if (k == 0) { /* brute force: the same configurations as one worker */
      CHECK(!tune_search_run(&sp[0].s, d, 3, NULL, &b, ev, &sp[0], &r1), "brute");
      uint8_t m[1000] = {0};
      uint32_t same = 0;
      for (uint32_t i = 0; i < r1.evals; i++) m[r1.order[i]] = 1;
      for (uint32_t i = 0; i < r.evals; i++) same += m[r.order[i]];
      CHECK_EQ_U(same, 100);
      tune_search_result_free(&r1);
    }
    tune_search_result_free(&r);
    /* no budget: the whole constrained space, once each, and its optimum */
    tune_budget none = {0};
    simulate(&sp[5], d, 5, &none, 3, 0, &r, &busy, &bad);
    CHECK(r.evals == sp[5].s.nconfigs && !bad && r.best == argmin(&sp[5]), "%s: %u of %u, %u bad", d->name, r.evals,
          sp[5].s.nconfigs, bad);
    tune_search_result_free(&r);
    /* a worker lost mid-run: its configuration is measured elsewhere, the space still covered once */
    simulate(&sp[6], d, 2, &none, 4, 37, &r, &busy, &bad);
    CHECK(r.evals == sp[6].s.nconfigs && !bad, "%s, a lost worker: %u of %u, %u bad", d->name, r.evals, sp[6].s.nconfigs, bad);
    tune_search_result_free(&r);
    /* the smooth bowl: the model and walk strategies still find its optimum with 4 workers */
    if (k >= 2) {
      uint32_t found = 0;
      for (uint64_t seed = 1; seed <= 6; seed++) {
        simulate(&sp[0], d, seed, &b, 4, 0, &r, &busy, &bad);
        found += r.best == argmin(&sp[0]);
        tune_search_result_free(&r);
      }
      CHECK(found >= 5, "%s with 4 workers: the bowl's optimum in %u of 6 seeds within 100 of 1000", d->name, found);
    }
  }
  /* a result for a configuration not in flight is refused */
  tune_search *ts;
  CHECK(!tune_search_open(&sp[0].s, all[0], 1, NULL, NULL, &ts), "open");
  CHECK(tune_search_tell(ts, 5, (tune_eval){true, 1}) == VKOCC_ERROR_RUNTIME, "tell of a configuration never handed out");
  uint32_t c[3];
  CHECK_EQ_U(tune_search_ask(ts, 3, c), 3);
  tune_search_stop(ts);
  CHECK_EQ_U(tune_search_ask(ts, 3, c), 0);
  CHECK_EQ_U(tune_search_inflight(ts), 3);
  tune_search_close(ts);
}

/* Peek: a non-adaptive strategy says at every step exactly what its next asks hand out (the harness builds their
 * pipelines ahead on that word), within the budget's count; peeking changes nothing the search does (the
 * sequence is the same as without); an adaptive one says nothing. */
static void test_peek(sy sp[7]) {
  uint32_t ns;
  const tune_strategy_def *const *all = tune_strategies(&ns);
  for (uint32_t k = 0; k < 2; k++) { /* brute force, random sampling */
    CHECK(all[k]->peek != NULL, "%s can say what comes next", all[k]->name);
    for (uint32_t W = 1; W <= 9; W += 4) {
      tune_budget b = {.max_evals = 37};
      tune_search *ts;
      CHECK(!tune_search_open(&sp[1].s, all[k], 7, NULL, &b, &ts), "open");
      static uint32_t said[40][16], nsaid[40];
      uint32_t seq[40], n = 0, c, wrong_count = 0, mismatched = 0;
      while (n < 40 && tune_search_ask(ts, 1, &c)) {
        seq[n++] = c;
        nsaid[n] = tune_search_peek(ts, W, said[n]); /* after n handed out: the next ones */
        if (nsaid[n] != (37 - n < W ? 37 - n : W)) wrong_count++;
        tune_eval e = {0};
        ev(&sp[1], c, &e);
        tune_search_tell(ts, c, e);
      }
      tune_search_close(ts);
      CHECK_EQ_U(n, 37);
      for (uint32_t j = 1; j <= n; j++)
        for (uint32_t i = 0; i < nsaid[j]; i++)
          if (j + i >= n || said[j][i] != seq[j + i]) mismatched++;
      CHECK(wrong_count == 0, "%s, window %u: %u peeks not min(window, budget left) long", all[k]->name, W, wrong_count);
      CHECK(mismatched == 0, "%s, window %u: %u peeked configurations not asked next", all[k]->name, W, mismatched);
      /* the same sequence as a search that never peeked */
      tune_search_result r;
      CHECK(!tune_search_run(&sp[1].s, all[k], 7, NULL, &b, ev, &sp[1], &r), "run");
      CHECK(r.evals == n && !memcmp(r.order, seq, n * sizeof *seq), "%s: peeking changed the sequence", all[k]->name);
      tune_search_result_free(&r);
    }
  }
  for (uint32_t k = 2; k < ns; k++) CHECK(all[k]->peek == NULL, "%s adapts: no peek", all[k]->name);
}

int main(void) {
  sy sp[7];
  spaces(sp);
  test_one_worker_retraces(sp);
  test_peek(sp);
  test_workers(sp);
  for (int i = 0; i < 7; i++) sy_free(&sp[i]);
  return check_report();
}
