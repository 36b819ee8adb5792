/* Deciding (tune/harness/harness.h): the stopping rule of a configuration's timed runs and its defaults (in this
 * file alone), racing's verdict, the configuration's summary and the ranking. */
#include "harness.h"

/* The stopping rule and its defaults, here alone: at least 5 runs whose spread (MAD / median) is at most 0.02, or at
 * least 3 runs after 2 s of timing; at most 50 runs (the cap is the trials loop's). */
enum { MIN_RUNS = 5, MAX_RUNS = 50 };
#define TARGET_SPREAD 0.02
#define MAX_CONFIG_S 2.0

uint32_t tu_min_runs(const tu_options *o) { return o->min_runs ? o->min_runs : MIN_RUNS; }
uint32_t tu_max_runs(const tu_options *o) { return o->max_runs ? o->max_runs : MAX_RUNS; }

bool tu_enough_runs(const tu_options *o, const double *ns, uint32_t runs, double elapsed_ms) {
  double target = o->target_spread > 0 ? o->target_spread : TARGET_SPREAD;
  uint32_t min_runs = tu_min_runs(o);
  double max_s = o->max_config_s > 0 ? o->max_config_s : MAX_CONFIG_S;
  vkocc_summary sum;
  vkocc_summarize(ns, runs, &sum);
  if (runs >= min_runs && sum.median > 0 && sum.mad / sum.median <= target) return true;
  return runs >= 3 && elapsed_ms > max_s * 1e3;
}

/* Racing (tune/search/race.h): whether the runs so far put the configuration behind the best; if so it is marked stopped,
 * with the incumbent's median and the margin it was held against. */
bool tu_race_stops(harness *h, tu_result *r) {
  tu_race_verdict v = tu_race_judge(&h->race, !h->racing_now, r->times_ns, r->runs);
  if (!v.behind) return false;
  r->stopped = 1, r->race_best_ns = v.best_ns, r->race_margin = v.bias * (1 + v.margin) - 1; /* the whole margin */
  return true;
}

/* ---- summary: the runs' statistics and the configuration's costs */

void tu_phase_summary(harness *h, trial *t, double t_start) {
  tu_result *r = t->r;
  if (r->runs) {
    vkocc_summary sum;
    vkocc_summarize(r->times_ns, r->runs, &sum);
    r->median_ns = sum.median, r->min_ns = sum.min, r->max_ns = sum.max;
    r->spread = sum.median > 0 ? sum.mad / sum.median : 0;
  }
  if (r->inv != TU_CORRECT) r->median_ns = NAN;
  r->measure_ms = r->phase_ms[TU_PHASE_VALIDATE] + r->phase_ms[TU_PHASE_WARM] + r->phase_ms[TU_PHASE_TRIALS];
  h->run->measure_ms += r->measure_ms;
  r->total_ms = vkocc_now_ms() - t_start - t->late_setup_ms; /* the run's set-up, not this configuration's */
  r->other_ms = fmax(0, r->total_ms - r->compile_ms - r->pipeline_ms - r->occupancy_ms - r->measure_ms);
}

/* The search's median ranks; a final round (--confirm) validates the best again and reports its re-timing
 * beside the median, but does not rank: on an H100 it re-timed the best of long sweeps 1.9-3.4x slower than
 * their medians (docs/tune.md), a difference this harness cannot explain yet, so it decides nothing. */
double tu_rank_ns(const tu_result *r) { return r->median_ns; }

int64_t tu_best(const tu_run *run) {
  int64_t b = -1;
  for (uint32_t i = 0; i < run->space.count; i++) {
    const tu_result *r = &run->r[i];
    if (!r->measured || r->inv != TU_CORRECT || !r->runs) continue;
    if (b < 0 || tu_rank_ns(r) < tu_rank_ns(&run->r[b])) b = i;
  }
  return b;
}
