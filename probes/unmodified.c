/* P of the user's pipeline as written (--unmodified): the talk's timestamp method on the user's own code.
 * n workgroups of the unaugmented pipeline run in one wave while n <= P, and take one workgroup's time
 * longer at P + 1. That holds only for a regular workload that is long against the dispatch noise and whose
 * one-wave runtime stays flat; the staircase is checked (flat up to P, a step at P + 1, flat to 2P, a step
 * at 2P + 1, one P over all repeats) before P is given. */
#include "user_pipeline.h"
#include <stdio.h>
#include <string.h>

typedef struct {
  user_pipeline *u;
  uint32_t dispatches;
  double gpu_ns;
} unmod_run;

/* vkocc_runtime_fn: every dispatch starts from the same zero-filled buffers, so its work is the same */
static vkocc_status unmod_runtime(void *user, uint32_t groups, double *ns) {
  unmod_run *r = user;
  user_pipeline *u = r->u;
  for (uint32_t i = 0; i < u->k.refl.nbindings; i++)
    if (u->k.dummies[i].buf.map) memset(u->k.dummies[i].buf.map, 0, u->k.dummies[i].buf.size);
  vkocc_tick_status tick = VKOCC_TICKS_OK;
  vkocc_status s = VKOCC_OK;
  for (int k = 0; k < 3; k++) { /* a timestamp pair that went backwards is measured again */
    if ((s = user_dispatch(u, NULL, groups, ns, &tick))) return s;
    r->dispatches++;
    if (tick != VKOCC_TICKS_BACKWARDS) break;
  }
  if (tick == VKOCC_TICKS_BACKWARDS)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "queue timestamps went backwards three times in a row");
  r->gpu_ns += *ns;
  return VKOCC_OK;
}

/* The fastest and the median of k runs of one size (k <= 16). */
static vkocc_status unmod_best(unmod_run *r, uint32_t groups, uint32_t k, double *best, double *median) {
  double t[16];
  for (uint32_t i = 0; i < k; i++) {
    vkocc_status s = unmod_runtime(r, groups, &t[i]);
    if (s) return s;
  }
  double b = t[0];
  for (uint32_t i = 1; i < k; i++) if (t[i] < b) b = t[i];
  *best = b;
  if (median) *median = util_median(t, k);
  return VKOCC_OK;
}

#define UNMOD_FAIL "could not establish P from the unmodified pipeline's runtime: "

vkocc_status measure_unmodified(user_pipeline *u, const vkocc_probe_options *opt, vkocc_pipeline_result *out) {
  double t0 = vkocc_now_ms();
  unmod_run run = {.u = u};
  vkocc_probe_result *pr = &out->probe;
  const uint32_t K = 12; /* runs per size: the fastest counts (interference only adds time) */
  double med, scratch;
  vkocc_status s;
  /* warm-up: the first dispatches of a pipeline are slow */
  if ((s = unmod_best(&run, 1, 2, &scratch, NULL))) return s;
  if ((s = unmod_best(&run, 0, K, &out->unmod.empty_ns, &med))) return s;
  /* dispatch noise: the spread of empty dispatches, at least a few timestamp ticks and 1 us */
  double tick_ns = u->ctx->info.timestamp_period;
  out->unmod.noise_ns = med - out->unmod.empty_ns;
  if (out->unmod.noise_ns < 4 * tick_ns) out->unmod.noise_ns = 4 * tick_ns;
  if (out->unmod.noise_ns < 1000) out->unmod.noise_ns = 1000;
  if ((s = unmod_best(&run, 1, K, &out->unmod.one_ns, NULL))) return s;
  double W = out->unmod.wave_ns = out->unmod.one_ns - out->unmod.empty_ns;
  pr->bisect_wave_ns = W;
  out->unmod.dispatches = run.dispatches;
  out->unmod.wall_ns = (vkocc_now_ms() - t0) * 1e6;
  /* a workgroup well above the noise and above twice an empty dispatch: launch costs stay a small part */
  double need = 10 * out->unmod.noise_ns > 2 * out->unmod.empty_ns ? 10 * out->unmod.noise_ns : 2 * out->unmod.empty_ns;
  if (!(W >= need))
    return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "its workgroups take %.1f us, too short (an empty dispatch "
                      "takes %.1f us, noise %.1f us: give each workgroup at least %.0f us of regular work, e.g. "
                      "through a grain constant)", W / 1e3, out->unmod.empty_ns / 1e3, out->unmod.noise_ns / 1e3,
                      need / 1e3);
  uint32_t repeat = opt->repeat ? opt->repeat : 3;
  if (repeat > VKOCC_MAX_REPEAT) repeat = VKOCC_MAX_REPEAT;
  uint32_t P = 0, start = opt->hint;
  pr->repeat = repeat;
  pr->bisect_min = UINT32_MAX;
  for (uint32_t i = 0; i < repeat; i++) {
    vkocc_probe_rep *rep = &pr->reps[i];
    double w0 = vkocc_now_ms(), g0 = run.gpu_ns;
    s = vkocc_bisect_search(unmod_runtime, &run, start, u->max_groups, W, 16 | VKOCC_BISECT_EARLY_EXIT, &rep->bisect);
    if (s) return s;
    rep->bisect_wall_ns = (vkocc_now_ms() - w0) * 1e6;
    rep->bisect_gpu_ns = run.gpu_ns - g0;
    if (!rep->bisect.certain)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "no step up to %u workgroups (the runtime stayed within half "
                        "of a workgroup's %.1f us of one workgroup's)", rep->bisect.P, W / 1e3);
    rep->bisect_P = rep->bisect.P;
    if (rep->bisect_P < pr->bisect_min) pr->bisect_min = rep->bisect_P;
    if (rep->bisect_P > pr->bisect_max) pr->bisect_max = rep->bisect_P;
    start = rep->bisect_P;
  }
  out->unmod.dispatches = run.dispatches;
  out->unmod.wall_ns = (vkocc_now_ms() - t0) * 1e6;
  if (pr->bisect_min != pr->bisect_max) {
    char v[256];
    int off = 0;
    for (uint32_t i = 0; i < repeat && off < (int)sizeof v - 12; i++)
      off += snprintf(v + off, sizeof v - off, "%s%u", i ? ", " : "", pr->reps[i].bisect_P);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "the steps moved between runs (P = %s; workgroups of %.1f us)",
                      v, W / 1e3);
  }
  P = pr->bisect_min;
  /* a workgroup's time from every 1-workgroup run so far (each repeat's base is the fastest of 16): runs
   * that interference slowed all alike would make the steps look higher than they are */
  for (uint32_t i = 0; i < repeat; i++)
    if (pr->reps[i].bisect.base_ns < out->unmod.one_ns) out->unmod.one_ns = pr->reps[i].bisect.base_ns;
  W = out->unmod.wave_ns = pr->bisect_wave_ns = out->unmod.one_ns - out->unmod.empty_ns;
  /* the staircase at P and 2P: flat within a wave, one workgroup's time per step */
  if ((s = unmod_best(&run, P, K, &out->unmod.at_P_ns, NULL)) || (s = unmod_best(&run, P + 1, K, &out->unmod.at_P1_ns, NULL)) ||
      (s = unmod_best(&run, 2 * P, K, &out->unmod.at_2P_ns, NULL)) ||
      (s = unmod_best(&run, 2 * P + 1, K, &out->unmod.at_2P1_ns, NULL)))
    return s;
  out->unmod.dispatches = run.dispatches;
  out->unmod.wall_ns = (vkocc_now_ms() - t0) * 1e6;
  double ramp = out->unmod.at_P_ns - out->unmod.one_ns, step1 = out->unmod.at_P1_ns - out->unmod.at_P_ns;
  double flat2 = out->unmod.at_2P_ns - out->unmod.at_P1_ns, step2 = out->unmod.at_2P1_ns - out->unmod.at_2P_ns;
  if (ramp > 0.25 * W && P == 1)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "the fastest runs of one workgroup differ by %.1f us, more "
                      "than a quarter of its %.1f us (interference from other work)", ramp / 1e3, W / 1e3);
  if (ramp > 0.25 * W)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "the runtime grows by %.1f us from 1 to %u workgroups, more than "
                      "a quarter of a workgroup's %.1f us (a launch ramp, or workgroups that slow each other down: give "
                      "each a longer, latency-bound workload)", ramp / 1e3, P, W / 1e3);
  if (step1 < 0.5 * W || step2 < 0.5 * W || flat2 > 0.25 * W)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, UNMOD_FAIL "no staircase at multiples of %u: %u..%u workgroups step by "
                      "%.1f us, %u..%u grow by %.1f us, %u..%u step by %.1f us, against a workgroup's %.1f us", P, P,
                      P + 1, step1 / 1e3, P + 1, 2 * P, flat2 / 1e3, 2 * P, 2 * P + 1, step2 / 1e3, W / 1e3);
  pr->bisect_median = P;
  pr->P = P;
  pr->agree = true;
  return VKOCC_OK;
}

