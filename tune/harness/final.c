/* What the search leaves to check (tune/harness/harness.h): the final round that re-times the best configurations
 * in interleaved rounds, and the sentinel, one configuration timed again through the run to watch the clocks. */
#include "harness.h"

typedef struct ranked { double ns; uint32_t i; } ranked;

static int by_median(const void *x, const void *y) {
  const ranked *a = x, *b = y;
  return a->ns < b->ns ? -1 : a->ns > b->ns ? 1 : (a->i > b->i) - (a->i < b->i);
}

/* The pipeline of configuration c, as measure_config's prepare phase builds it. */
static vkocc_status build_again(harness *h, uint32_t c, core_kernel *k) {
  tu_result scratch = h->run->r[c];
  config *x = tu_config_of(h, c);
  trial t = {.x = x, .coord = x->coord, .r = &scratch};
  tu_prebuild_drop(h, x);
  if (!x->sized) memcpy(x->local, scratch.local, sizeof x->local); /* resumed: sized by its record */
  tu_outcome out = tu_prepare_module(h, &t);
  if (out == TU_GO) out = tu_prepare_pipeline(h, &t);
  if (out == TU_STOP || t.st) return t.st;
  if (out != TU_GO) return vkocc_fail(VKOCC_ERROR_RUNTIME, "the final round: configuration %u no longer builds: %s", c,
                                      scratch.error);
  *k = t.k;
  return VKOCC_OK;
}

/* The final round: the k best configurations by median, their pipelines rebuilt, each run once first as in
 * the search (poisoned outputs, a bounded wait, the outputs validated; this also warms the device, which in a
 * resumed run has run nothing yet), then one untimed warm-up round and 3 timed rounds of one batch each, in
 * turn, so that whatever else runs on the host falls on all of them alike; the outputs of each candidate's
 * last batch are validated again. A candidate with a wrong output becomes invalid (correctness, never chosen;
 * after a wrong first run the next by median takes its place). The best is then the lowest median of these
 * interleaved runs among the candidates whose outputs stayed right. */
enum { FINAL_ROUNDS = 3 };

/* The final round's candidates: their pipelines, their interleaved times, whether they turned out wrong. */
typedef struct final_round {
  uint32_t *cand, n;
  core_kernel *kern;
  double **t;
  uint32_t *nt;
  bool *wrong;
} final_round;

/* The valid configurations by median, each built again and run once as in the search (poisoned outputs,
 * restored inputs, a bounded wait, the outputs validated): the first k that are right are the candidates (a
 * wrong one: invalid, the next by median takes its place). */
static vkocc_status final_candidates(harness *h, const ranked *order, uint32_t norder, uint32_t k, final_round *f) {
  double timeout_s = h->o->timeout_s > 0 ? h->o->timeout_s : 5;
  vkocc_status st = VKOCC_OK;
  for (uint32_t o = 0; o < norder && f->n < k && !st; o++) {
    tu_result *r = &h->run->r[order[o].i];
    core_kernel *kk = &f->kern[f->n];
    double first;
    bool lost, timed_out;
    char why[400];
    if ((st = build_again(h, order[o].i, kk))) break;
    st = tu_run_batch(h, kk, r->groups, 1, true, true, timeout_s, &first, &lost, &timed_out);
    bool right = !st && tu_outputs_right(h, why, sizeof why);
    if (!st && !right) tu_final_wrong(r, "first run", why);
    if (!right) {
      core_kernel_destroy(CTX(h), kk);
      continue;
    }
    f->cand[f->n] = order[o].i;
    f->t[f->n++] = util_xmalloc(FINAL_ROUNDS * MAX_BATCH * sizeof **f->t);
  }
  return st;
}

/* Untimed warm-up rounds (one; 0.2 s at least on a cold device), then the timed rounds, the candidates in turn;
 * the last batch of each validated again. */
static vkocc_status final_rounds(harness *h, final_round *f, bool cold) {
  double timeout_s = h->o->timeout_s > 0 ? h->o->timeout_s : 5;
  uint32_t warmup = 1;
  double tw = vkocc_now_ms();
  vkocc_status st = VKOCC_OK;
  for (uint32_t round = 0; round < warmup + FINAL_ROUNDS && !st && f->n >= 2; round++) {
    for (uint32_t c = 0; c < f->n && !st; c++) {
      if (f->wrong[c]) continue;
      tu_result *r = &h->run->r[f->cand[c]];
      uint32_t batch = tu_batch_size(r->median_ns, 3, MAX_BATCH);
      bool warm = round < warmup, last = round == warmup + FINAL_ROUNDS - 1, lost, timed_out;
      double scratch[MAX_BATCH];
      char why[400];
      st = tu_run_batch(h, &f->kern[c], r->groups, batch, false, last, timeout_s * batch, warm ? scratch : f->t[c] + f->nt[c],
                     &lost, &timed_out);
      if (!st && !warm) f->nt[c] += batch;
      if (!st && last && !tu_outputs_right(h, why, sizeof why)) f->wrong[c] = true, tu_final_wrong(r, "last batch", why);
    }
    if (round + 1 == warmup && cold && vkocc_now_ms() - tw < 200 && warmup < 1000) warmup++;
  }
  return st;
}

/* The interleaved medians recorded; a failed final round, or one left with fewer than 2 right candidates, leaves
 * the ranking by medians (of the configurations not found wrong). */
static void final_record(harness *h, final_round *f, vkocc_status st) {
  uint32_t confirmed = 0;
  for (uint32_t c = 0; c < f->n; c++) {
    tu_result *r = &h->run->r[f->cand[c]];
    if (!st && f->nt[c] && !f->wrong[c]) {
      vkocc_summary sum;
      vkocc_summarize(f->t[c], f->nt[c], &sum);
      r->confirm_ns = sum.median, r->confirm_spread = sum.median > 0 ? sum.mad / sum.median : 0, r->confirm_runs = f->nt[c];
    }
    confirmed += r->confirm_runs > 0;
    core_kernel_destroy(CTX(h), &f->kern[c]);
    free(f->t[c]);
  }
  for (uint32_t c = 0; (st || confirmed < 2) && c < f->n; c++) h->run->r[f->cand[c]].confirm_runs = 0;
}

vkocc_status tu_confirm_best(harness *h, uint32_t k) {
  tu_run *run = h->run;
  /* when this run measured no configuration (every result resumed) the device has been idle, its clocks
   * low: the untimed warm-up rounds then last 0.2 s at least, as a search would have kept it busy */
  bool cold = h->done == 0;
  ranked *order = util_xcalloc(run->space.count + 1, sizeof *order);
  uint32_t norder = 0;
  for (uint32_t i = 0; i < run->space.count; i++) {
    tu_result *r = &run->r[i];
    r->confirm_runs = 0;
    if (r->measured && r->inv == TU_CORRECT && r->runs) order[norder++] = (ranked){r->median_ns, i};
  }
  qsort(order, norder, sizeof *order, by_median);
  vkocc_status st = VKOCC_OK;
  final_round f = {.cand = util_xcalloc(k + 1, sizeof *f.cand), .kern = util_xcalloc(k + 1, sizeof *f.kern),
                   .t = util_xcalloc(k + 1, sizeof *f.t), .nt = util_xcalloc(k + 1, sizeof *f.nt),
                   .wrong = util_xcalloc(k + 1, sizeof *f.wrong)};
  if (norder >= 2) {
    st = final_candidates(h, order, norder, k, &f);
    if (!st) st = final_rounds(h, &f, cold);
    final_record(h, &f, st);
  }
  free(f.kern), free(f.t), free(f.nt), free(f.cand), free(f.wrong), free(order);
  return st;
}

/* The sentinel: the first correct configuration, timed again every sentinel_every configurations and at the
 * end. A warm-up too short for the clocks shows as its medians drifting apart. Its costs are kept out of the
 * per-configuration figures. */
int32_t tu_sentinel_every(const tu_options *o) { return o->sentinel_every ? o->sentinel_every : 64; }

bool tu_sentinel_summary(const tu_run *run, double *lo, double *hi, double *max_spread, bool *drifted) {
  *lo = INFINITY, *hi = 0, *max_spread = 0, *drifted = false;
  for (uint32_t i = 0; i < run->nsentinel; i++) {
    if (run->sentinel[i].median_ns < *lo) *lo = run->sentinel[i].median_ns;
    if (run->sentinel[i].median_ns > *hi) *hi = run->sentinel[i].median_ns;
    if (run->sentinel[i].spread > *max_spread) *max_spread = run->sentinel[i].spread;
  }
  if (run->nsentinel < 2 || !(*lo > 0)) return false;
  *drifted = tu_drifted((*hi - *lo) / *lo, *max_spread);
  return true;
}

bool tu_drifted(double range, double max_spread) { return range > 0.05 && range > 4 * max_spread; }

bool tu_sentinel_of(const tu_run *run, vkocc_tune_sentinel *out) {
  memset(out, 0, sizeof *out);
  if (run->sentinel_config < 0 || !tu_sentinel_summary(run, &out->lo_ns, &out->hi_ns, &out->max_spread, &out->drifted))
    return false;
  t1_config_key(&run->spec, run->space.coord + (size_t)run->sentinel_config * run->spec.nparams, out->key, sizeof out->key);
  out->times = run->nsentinel;
  return true;
}

vkocc_status tu_sentinel_record(harness *h, uint32_t c, const tu_result *r) {
  tu_run *run = h->run;
  run->sentinel = util_xrealloc(run->sentinel, (run->nsentinel + 1) * sizeof *run->sentinel);
  run->sentinel[run->nsentinel++] = (struct tu_sentinel){.after = h->done, .median_ns = r->median_ns, .spread = r->spread};
  run->sentinel_config = c;
  h->since_sentinel = 0;
  return VKOCC_OK;
}

vkocc_status tu_sentinel_again(harness *h) {
  tu_run *run = h->run;
  if (h->sentinel < 0 || !h->since_sentinel) return VKOCC_OK;
  tu_run keep = *run;
  double t0 = vkocc_now_ms();
  tu_result tmp;
  vkocc_status st = tu_measure_config(h, (uint32_t)h->sentinel, &tmp);
  /* the costs stay the sentinel's */
  run->compiles = keep.compiles, run->pipelines = keep.pipelines, run->compile_ms = keep.compile_ms;
  run->pipelines_ms = keep.pipelines_ms, run->occupancy_ms = keep.occupancy_ms, run->measure_ms = keep.measure_ms;
  run->sentinel_ms += vkocc_now_ms() - t0;
  if (!st && tmp.inv == TU_CORRECT && tmp.runs) tu_sentinel_record(h, (uint32_t)h->sentinel, &tmp);
  else if (!st) h->since_sentinel = 0; /* it failed this time: recorded as no point, the run goes on */
  free(tmp.times_ns);
  return st;
}
