/* Dispatch bisection: one-wave runtimes stay flat up to P workgroups and step up by about one wave at P+1.
 * Double until the step shows, then bisect to its first size. A size counts as serialized only when all
 * `repeats` runs are slow. The answer is then checked against the whole-wave structure it implies
 * (2P in two waves, 2P+1 in three, 3P+1 in four, on a common scale): a P read from noise fails that
 * check instead of being returned.
 * The sized search also keeps the launch ramp (the time to start n workgroups) small against the wave. */
#include "internal.h"
#include <math.h>
#include <string.h>

typedef struct {
  vkocc_workload_fn fn;
  void *user;
  uint32_t repeats;
  bool early_exit;
  vkocc_bisect_estimate *out;
  double wave;       /* one wave of the workload (ns) */
  double asked;      /* the wave asked of the workload (sized: s->wave may be the measured one) */
  /* sized search only: */
  bool sized;
  double empty_ns;   /* one empty workgroup */
  uint32_t ramp_n;   /* the size whose launch ramp asked for a longer wave */
  double want_wave;  /* > 0: the ramp of some size needs this longer wave; the search restarts */
} searcher;

typedef struct { vkocc_runtime_fn fn; void *user; } plain;

static vkocc_status plain_fn(void *user, uint32_t groups, double wave_ns, double *ns) {
  (void)wave_ns;
  plain *p = user;
  return p->fn(p->user, groups, ns);
}

static vkocc_status fastest(searcher *s, uint32_t groups, double wave, int runs, double *ns) {
  *ns = INFINITY;
  for (int i = 0; i < runs; i++) {
    double t;
    vkocc_status st = s->fn(s->user, groups, wave, &t);
    if (st) return st;
    s->out->dispatches++;
    if (t < *ns) *ns = t;
  }
  return VKOCC_OK;
}

/* A size judged serialized (runtime t over the threshold): time as many empty workgroups against one
 * (the fastest of 3 each). Where that ramp is over an eighth of the wave and t less the ramp would have
 * been one wave, the launch ramp made the verdict: ask for a wave 8x the ramp. (Where it would not, the size really took more waves; its "ramp"
 * then includes the empty workgroups' own waves, as on lavapipe, and needs no longer wave.) */
static vkocc_status check_ramp(searcher *s, uint32_t groups, double t) {
  if (!s->sized || groups < 2) return VKOCC_OK;
  vkocc_status st;
  double empty;
  if ((st = fastest(s, groups, 0, 3, &empty))) return st;
  double ramp = empty - s->empty_ns;
  s->out->ramp_ns = fmax(s->out->ramp_ns, ramp);
  if (ramp > s->asked / 8 && t - ramp <= s->out->threshold_ns) {
    s->ramp_n = groups;
    s->want_wave = 8 * ramp;
    return VKOCC_ERROR_RUNTIME; /* not an error: the caller restarts with a longer wave */
  }
  return VKOCC_OK;
}

/* Fixed-length workload (a sleep, early_exit): the fastest of up to `repeats` runs. Interference only
 * adds time and nothing makes two waves finish in the time of one, so a single run at or under
 * `stop_below` settles the size.
 * Drifting workload (a pointer chase on a CPU, whose speed wanders by tens of percent within a second):
 * each run of `groups` is paired with a run of one workgroup just before it, and the median ratio,
 * scaled to the one-wave time, is the estimate; drift common to the pair cancels. */
static vkocc_status measure_below(searcher *s, uint32_t groups, double stop_below, double *ns) {
  vkocc_status st;
  double best = INFINITY, t, one, ratio[16];
  uint32_t nr = 0;
  bool paired = !s->early_exit && s->out->base_ns > 0 && groups > 1;
  for (uint32_t i = 0; i < s->repeats; i++) {
    if (paired) {
      if ((st = s->fn(s->user, 1, s->asked, &one))) return st;
      s->out->dispatches++;
    }
    if ((st = s->fn(s->user, groups, s->asked, &t))) return st;
    s->out->dispatches++;
    if (paired && one > 0) ratio[nr++] = t / one;
    if (t < best) best = t;
    if (s->early_exit && stop_below > 0 && best <= stop_below) break;
  }
  *ns = paired && nr ? s->out->base_ns * util_median(ratio, nr) : best;
  return VKOCC_OK;
}

static vkocc_status measure(searcher *s, uint32_t groups, double *ns) {
  vkocc_status st = measure_below(s, groups, s->out->threshold_ns, ns);
  if (!st && s->out->threshold_ns > 0 && *ns > s->out->threshold_ns) st = check_ramp(s, groups, *ns);
  return st;
}

/* The whole-wave check. On a busy CPU every wave runs late by a part of itself (each sleep ends when its
 * thread next gets a core: with 1 worker thread, 3 and 4 workgroups took 3.5 and 4.5 waves), so the
 * runtimes are read in units of the wave they show, w_eff = (t(3P+1) - t(1)) / 3, which must lie within
 * 0.75..3 waves (2.07 seen at a load of 8 on 2 cores); 2P and 2P+1 must then take 1 and 2 of those
 * within 0.4. A P read too small breaks the
 * common scale whatever the delay: e.g. P' = 1 on 2 workers puts 3 and 4 workgroups in the same wave. */
#define WAVES_LONG 0.75
static bool whole_waves(const vkocc_bisect_estimate *e) {
  double we = e->waves_3P1 / 3;
  return we > 0.75 && we < 3 && fabs(e->waves_2P / we - 1) < 0.4 && fabs(e->waves_2P1 / we - 2) < 0.4;
}

/* Runtime of `groups` in waves beyond the first, for the structure check. */
static vkocc_status extra_waves(searcher *s, uint32_t groups, double expect, double *waves) {
  double t;
  vkocc_status st = measure_below(s, groups, s->out->base_ns + (expect + WAVES_LONG) * s->wave, &t);
  if (st) return st;
  *waves = (t - s->out->base_ns) / s->wave;
  return VKOCC_OK;
}

static vkocc_status search(searcher *s, uint32_t start, uint32_t max_groups) {
  vkocc_bisect_estimate *out = s->out;
  uint32_t dispatches = out->dispatches;
  double ramp = out->ramp_ns;
  memset(out, 0, sizeof *out);
  out->dispatches = dispatches;
  out->ramp_ns = ramp;
  s->wave = s->asked;
  vkocc_status st;
  if (s->sized && s->empty_ns <= 0 && (st = fastest(s, 1, 0, 3, &s->empty_ns))) return st;
  st = measure(s, 1, &out->base_ns);
  if (st) return st;
  /* Sized: the wave is what one workgroup takes over an empty one, not what was asked for (a clock
   * calibrated wrongly would otherwise move the threshold). */
  if (s->sized && s->empty_ns > 0 && out->base_ns - s->empty_ns > 0.25 * s->asked) s->wave = out->base_ns - s->empty_ns;
  /* a fixed-length workload (a sleep) cannot take much longer than asked: a longer reading is a delayed
   * base, which would raise the threshold */
  if (s->early_exit && s->wave > 1.25 * s->asked) s->wave = 1.25 * s->asked;
  out->wave_ns = s->wave;
  out->threshold_ns = out->base_ns + 0.5 * s->wave;
  uint32_t lo = 1, hi = 0; /* lo: largest size seen in one wave; hi: smallest seen serialized */
  double t;
  if (start < 1) start = 1;
  if (start > max_groups) start = max_groups;
  if (start > 1) {
    /* A hint: check it and the next size first; if the step sits right there we are done. */
    if ((st = measure(s, start, &t))) return st;
    if (t > out->threshold_ns) hi = start;
    else {
      lo = start;
      if (start < max_groups) {
        if ((st = measure(s, start + 1, &t))) return st;
        if (t > out->threshold_ns) hi = start + 1;
        else lo = start + 1;
      }
    }
  }
  while (!hi) { /* double from what is known */
    if (lo >= max_groups) { out->P = lo; out->certain = false; return VKOCC_OK; }
    uint32_t n = lo > max_groups / 2 ? max_groups : 2 * lo;
    if ((st = measure(s, n, &t))) return st;
    if (t > out->threshold_ns) hi = n;
    else lo = n;
  }
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if ((st = measure(s, mid, &t))) return st;
    if (t > out->threshold_ns) hi = mid;
    else lo = mid;
  }
  if (hi == 1) return vkocc_fail(VKOCC_ERROR_RUNTIME, "bisect: a single workgroup already looks serialized");
  out->P = lo;
  out->certain = true;
  /* Whole waves: 2P runs in two waves, 2P+1 in three, 3P+1 in four. A step read from noise (a busy CPU
   * delays every run of more than one workgroup by about a wave) ends at some P' < P; then 2P'+1 and
   * 2P' share a wave of the true P unless 2P' = P, and then 2P'+1 and 3P'+1 do; either way the
   * runtimes cannot step by whole waves as P' predicts, whatever the delay. */
  if ((uint64_t)3 * lo + 1 <= max_groups) {
    if ((st = extra_waves(s, 2 * lo, 1, &out->waves_2P)) || (st = extra_waves(s, 2 * lo + 1, 2, &out->waves_2P1)) ||
        (st = extra_waves(s, 3 * lo + 1, 3, &out->waves_3P1)))
      return st;
    out->consistent = whole_waves(out);
  } else out->consistent = true; /* nothing larger can be dispatched to check against */
  return VKOCC_OK;
}

static vkocc_status check_args(uint32_t max_groups, double wave_ns) {
  if (!(wave_ns > 0)) return vkocc_fail(VKOCC_ERROR_RUNTIME, "bisect: the wave length must be positive");
  if (max_groups < 2) return vkocc_fail(VKOCC_ERROR_USAGE, "bisect: max_groups must be at least 2");
  return VKOCC_OK;
}

static searcher make_searcher(vkocc_workload_fn fn, void *user, uint32_t repeats, double wave,
                              vkocc_bisect_estimate *out) {
  searcher s = {.fn = fn, .user = user, .early_exit = repeats & VKOCC_BISECT_EARLY_EXIT, .out = out, .wave = wave};
  s.asked = wave;
  s.repeats = repeats & ~VKOCC_BISECT_EARLY_EXIT;
  if (s.repeats == 0) s.repeats = 1;
  if (s.repeats > 16) s.repeats = 16;
  return s;
}

vkocc_status vkocc_bisect_search(vkocc_runtime_fn fn, void *user, uint32_t start, uint32_t max_groups,
                                 double wave_ns, uint32_t repeats, vkocc_bisect_estimate *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  vkocc_status st = check_args(max_groups, wave_ns);
  if (st) return st;
  plain p = {fn, user};
  searcher s = make_searcher(plain_fn, &p, repeats, wave_ns, out);
  return search(&s, start, max_groups);
}

vkocc_status vkocc_bisect_search_sized(vkocc_workload_fn fn, void *user, uint32_t start, uint32_t max_groups,
                                       double wave_ns, double max_wave_ns, uint32_t repeats,
                                       vkocc_bisect_estimate *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  vkocc_status st = check_args(max_groups, wave_ns);
  if (st) return st;
  searcher s = make_searcher(fn, user, repeats, wave_ns, out);
  s.sized = true;
  for (;;) {
    s.want_wave = 0;
    st = search(&s, start, max_groups);
    if (!st || !(s.want_wave > 0)) return st;
    if (s.asked >= max_wave_ns)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "bisect: launching %u workgroups takes %.0f us, too long against "
                        "the longest wave the workload allows (%.0f us)", s.ramp_n, out->ramp_ns / 1e3,
                        max_wave_ns / 1e3);
    s.asked = fmin(max_wave_ns, fmax(s.want_wave, 2 * s.asked));
  }
}
