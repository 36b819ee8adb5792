/* Dispatch bisection: one-wave runtimes stay flat up to P workgroups and step up by about one wave at P+1.
 * Double until the step shows, then bisect to its first size. A size counts as serialized only when all
 * `repeats` runs are slow. */
#include "internal.h"
#include <math.h>
#include <string.h>

typedef struct {
  vkocc_runtime_fn fn;
  void *user;
  uint32_t repeats;
  bool early_exit;
  vkocc_bisect_estimate *out;
} searcher;

/* Fixed-length workload (a sleep, early_exit): the fastest of up to `repeats` runs. Interference only
 * adds time and nothing makes two waves finish in the time of one, so a single run under the threshold
 * proves one wave and ends the measurement of that size.
 * Drifting workload (a pointer chase on a CPU, whose speed wanders by tens of percent within a second):
 * each run of `groups` is paired with a run of one workgroup just before it, and the median ratio,
 * scaled to the one-wave time, is the estimate; drift common to the pair cancels. */
static vkocc_status measure(searcher *s, uint32_t groups, double *ns) {
  double best = INFINITY, t, one, ratio[16];
  uint32_t nr = 0;
  bool paired = !s->early_exit && s->out->base_ns > 0 && groups > 1;
  for (uint32_t i = 0; i < s->repeats; i++) {
    vkocc_status st;
    if (paired) {
      if ((st = s->fn(s->user, 1, &one))) return st;
      s->out->dispatches++;
    }
    if ((st = s->fn(s->user, groups, &t))) return st;
    s->out->dispatches++;
    if (paired && one > 0) ratio[nr++] = t / one;
    if (t < best) best = t;
    if (s->early_exit && s->out->threshold_ns > 0 && best <= s->out->threshold_ns) break;
  }
  *ns = paired && nr ? s->out->base_ns * vkocc_median(ratio, nr) : best;
  return VKOCC_OK;
}

vkocc_status vkocc_bisect_search(vkocc_runtime_fn fn, void *user, uint32_t start, uint32_t max_groups,
                                 double wave_ns, uint32_t repeats, vkocc_bisect_estimate *out) {
  memset(out, 0, sizeof *out);
  bool early_exit = repeats & VKOCC_BISECT_EARLY_EXIT;
  repeats &= ~VKOCC_BISECT_EARLY_EXIT;
  if (repeats == 0) repeats = 1;
  if (repeats > 16) repeats = 16;
  if (!(wave_ns > 0)) return vkocc_fail(VKOCC_ERROR_RUNTIME, "bisect: the wave length must be positive");
  if (max_groups < 2) return vkocc_fail(VKOCC_ERROR_USAGE, "bisect: max_groups must be at least 2");
  searcher s = {fn, user, repeats, early_exit, out};
  vkocc_status st = measure(&s, 1, &out->base_ns);
  if (st) return st;
  out->threshold_ns = out->base_ns + 0.5 * wave_ns;
  uint32_t lo = 1, hi = 0; /* lo: largest size seen in one wave; hi: smallest seen serialized */
  double t;
  if (start < 1) start = 1;
  if (start > max_groups) start = max_groups;
  if (start > 1) {
    /* A hint: check it and the next size first; if the step sits right there we are done. */
    if ((st = measure(&s, start, &t))) return st;
    if (t > out->threshold_ns) hi = start;
    else {
      lo = start;
      if (start < max_groups) {
        if ((st = measure(&s, start + 1, &t))) return st;
        if (t > out->threshold_ns) hi = start + 1;
        else lo = start + 1;
      }
    }
  }
  while (!hi) { /* double from what is known */
    if (lo >= max_groups) { out->P = lo; out->certain = false; return VKOCC_OK; }
    uint32_t n = lo > max_groups / 2 ? max_groups : 2 * lo;
    if ((st = measure(&s, n, &t))) return st;
    if (t > out->threshold_ns) hi = n;
    else lo = n;
  }
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if ((st = measure(&s, mid, &t))) return st;
    if (t > out->threshold_ns) hi = mid;
    else lo = mid;
  }
  if (hi == 1) return vkocc_fail(VKOCC_ERROR_RUNTIME, "bisect: a single workgroup already looks serialized");
  out->P = lo;
  out->certain = true;
  return VKOCC_OK;
}
