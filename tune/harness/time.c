/* The warm and trials phases (tune/harness/harness.h): untimed dispatches that bring the clocks up, then timed
 * batches until the stopping rule (decide.c) holds or a cap is reached, then the last outputs validated again. */
#include "harness.h"

/* ---- warm: untimed dispatches before anything is timed */

/* How long to warm, in device time, so that clocks that dropped while the host worked come back up. A GPU's
 * clock governor follows its recent utilization: the GPU is kept busy for warmup_ratio times the host time it
 * was idle since the last batch (its duty cycle stays >= ratio / (1 + ratio)), at least 20 ms and at most
 * warmup_ms; a cold GPU (nothing run yet) gets warmup_ms. The sentinel (tu_tune) checks the result. A CPU device
 * gets the cold warm-up too (on lavapipe the configurations timed in the first second of a process took up to
 * 1.6x as long as the same ones re-timed at its end, docs/tune.md), then the least: the host's work between
 * configurations runs on the same CPU, which it leaves busy, not idle. */
static double warm_wanted_ms(const harness *h) {
  const tu_options *o = h->o;
  double cap_ms = o->warmup_ms < 0 ? 0 : o->warmup_ms > 0 ? o->warmup_ms : 500;
  double ratio = o->warmup_ratio < 0 ? 0 : o->warmup_ratio > 0 ? o->warmup_ratio : 2;
  if (ratio <= 0 || h->idle_ms < 0) return cap_ms;
  bool cpu = vkocc_context_device(*h->ctxp)->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  double ms = cpu ? 0 : ratio * h->idle_ms;
  return ms < 20 ? (cap_ms < 20 ? cap_ms : 20) : ms > cap_ms ? cap_ms : ms;
}

/* dispatches in a batch of about 20 ms of device time at per_ns each, at least lo, at most MAX_BATCH and left */
uint32_t tu_batch_size(double per_ns, uint32_t lo, uint32_t left) {
  double n = 20e6 / (per_ns > 1 ? per_ns : 1);
  uint32_t b = n > MAX_BATCH ? MAX_BATCH : n < lo ? lo : (uint32_t)n;
  return b > left ? left : b;
}

/* The first timed batch: the fewest runs the stopping rule can stop at (min_runs), more where they are cheap
 * (about 2 ms of device time at per_ns each, at most MAX_BATCH), at most left. A batch of 20 ms (batch_size) ran
 * 16 SAXPY runs of 0.28 ms, each after a 0.64 ms restore, where the rule held after 5 (spread 0.05%). */
static uint32_t first_batch_size(double per_ns, uint32_t min_runs, uint32_t left) {
  double n = 2e6 / (per_ns > 1 ? per_ns : 1);
  uint32_t lo = min_runs > MAX_BATCH ? MAX_BATCH : min_runs;
  uint32_t b = n > MAX_BATCH ? MAX_BATCH : n < lo ? lo : (uint32_t)n;
  return b > left ? left : b;
}

/* With the clock probe a warm-up runs only while the evidence asks for it (tune/harness/clock_rule.h): the clock read
 * after the last batch is below the steady clock, or no steady clock is known yet; in batches of about 10 ms, up
 * to warmup_ms (default 500). Without the probe (a device without both clocks), warm_wanted_ms's blind rule. */
tu_outcome tu_phase_warm(harness *h, trial *t) {
  bool evidence = h->probe_on && h->o->warmup_ms >= 0;
  double warm_ms = warm_wanted_ms(h);
  if (evidence) warm_ms = tu_clock_needs_warmup(&h->clk, NULL, h->clock_after) ? (h->o->warmup_ms > 0 ? h->o->warmup_ms : 500) : 0;
  h->idle_ms = 0;
  double busy = 0;
  while (busy < warm_ms * 1e6) {
    double wt[MAX_BATCH];
    double per = t->first_ns > 1 ? t->first_ns : 1, left = warm_ms * 1e6 - busy;
    uint32_t batch = (uint32_t)fmin((evidence ? fmin(10e6, left) : left) / per + 1, MAX_BATCH);
    tu_outcome out = tu_dispatch(h, t, batch, false, false, wt);
    if (out != TU_GO) return out;
    for (uint32_t i = 0; i < batch; i++) busy += wt[i] > 0 ? wt[i] : 1;
    if (evidence) {
      tu_clock_observe(&h->clk, h->clock_before), tu_clock_observe(&h->clk, h->clock_after);
      if (!tu_clock_needs_warmup(&h->clk, NULL, h->clock_after)) break;
    }
  }
  t->r->warmup_ms = evidence ? busy / 1e6 : warm_ms;
  return TU_GO;
}

/* ---- trials: timed batches until the stopping rule holds, then the last outputs validated again */

tu_outcome tu_phase_trials(harness *h, trial *t) {
  tu_result *r = t->r;
  uint32_t max_runs = tu_max_runs(h->o);
  uint32_t min_runs = tu_min_runs(h->o);
  r->times_ns = util_xmalloc((max_runs + 1) * sizeof *r->times_ns);
  double since = vkocc_now_ms();
  uint32_t retry = 0;
  /* racing with an incumbent: the first batch holds the fewest runs that may stop a configuration behind the best
   * (the validation run counts as the first where the device allows), and the race is judged after every batch;
   * a contender then goes on to the full rule, its next batch bringing it to min_runs at least */
  bool race = h->racing_now && h->race.best >= 0;
  uint32_t first = tu_race_first_runs(&h->race, !h->racing_now, t->first_counts, min_runs);
  if (race && t->first_counts) r->times_ns[r->runs++] = t->first_ns;
  /* each batch ends with the outputs' check (a compare dispatch, 64 Mi floats in 0.22 ms on an H100; or their copy
   * back to the host), so the last batch's outputs are there without a submission of their own */
  bool timed = false;
  while (r->runs < max_runs) {
    uint32_t left = max_runs - r->runs;
    /* a contender short of min_runs after the race's first batch gets what the full rule's first batch would
     * have given it (about 2 ms of runs), not a 20 ms batch: on an H100 that was 13-20 runs where 5 decide */
    uint32_t batch = !timed                ? first_batch_size(t->first_ns, first, left)
                     : r->runs < min_runs ? first_batch_size(t->first_ns, min_runs - r->runs, left)
                                          : tu_batch_size(t->first_ns, 1, left);
    tu_outcome out = tu_dispatch(h, t, batch, false, true, r->times_ns + r->runs);
    if (out != TU_GO) return out;
    if (h->probe_on) {
      /* clock-verified: a batch bracketed by a reading below the steady clock is measured again (bounded) */
      tu_clock_verdict v = tu_clock_judge(&h->clk, NULL, h->clock_before, h->clock_after, retry);
      tu_clock_observe(&h->clk, h->clock_before), tu_clock_observe(&h->clk, h->clock_after);
      double lo = fmin(h->clock_before, h->clock_after), hi = fmax(h->clock_before, h->clock_after);
      if (lo > 0 && (!(r->clock_min > 0) || lo < r->clock_min)) r->clock_min = lo;
      if (hi > r->clock_max) r->clock_max = hi;
      r->clock_steady = h->clk.steady;
      if (v == TU_CLOCK_AGAIN) {
        retry++, r->clock_again++;
        continue;
      }
      if (v == TU_CLOCK_KEPT) r->clock_kept++;
      retry = 0;
    }
    r->runs += batch, timed = true;
    if (race && tu_race_stops(h, r)) break;
    if (tu_enough_runs(h->o, r->times_ns, r->runs, vkocc_now_ms() - since)) break;
  }
  char why[400]; /* the outputs of the last run must still be right (a race shows here) */
  if (!tu_outputs_right(h, why, sizeof why)) return tu_invalid(t, TU_CORRECTNESS, "wrong output after %u runs: %s", r->runs, why);
  return TU_GO;
}
