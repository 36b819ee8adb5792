/* Clock-verified samples (tune/harness/clock_rule.h): pure logic over the probe's readings, tested on synthetic clocks. */
#include "clock_rule.h"
#include <math.h>
#include <string.h>

static double low_fraction(const tu_clock_rule *r) { return r && r->low_fraction > 0 ? r->low_fraction : 0.85; }
static uint32_t max_retries(const tu_clock_rule *r) { return r && r->max_retries ? r->max_retries : 3; }

static double median3(double a, double b, double c) {
  if (a > b) { double t = a; a = b; b = t; }
  if (b > c) b = c;
  return a > b ? a : b;
}

void tu_clock_seed(tu_clock_state *s, double steady) {
  if (steady > 0 && isfinite(steady) && steady > s->steady) s->steady = steady;
}

void tu_clock_observe(tu_clock_state *s, double x) {
  if (!(x > 0) || !isfinite(x)) return;
  if (s->nrecent == TU_CLOCK_RECENT) {
    memmove(s->recent, s->recent + 1, (TU_CLOCK_RECENT - 1) * sizeof *s->recent);
    s->nrecent--;
  }
  s->recent[s->nrecent++] = x;
  s->readings++;
  if (s->nrecent >= 3) {
    double m = median3(s->recent[s->nrecent - 3], s->recent[s->nrecent - 2], s->recent[s->nrecent - 1]);
    if (m > s->steady) s->steady = m;
  }
}

tu_clock_verdict tu_clock_judge(const tu_clock_state *s, const tu_clock_rule *r, double before, double after,
                                uint32_t retry) {
  if (!(s->steady > 0) || !(before > 0) || !(after > 0)) return TU_CLOCK_UNKNOWN;
  double lim = low_fraction(r) * s->steady;
  if (before >= lim && after >= lim) return TU_CLOCK_OK;
  return retry < max_retries(r) ? TU_CLOCK_AGAIN : TU_CLOCK_KEPT;
}

bool tu_clock_needs_warmup(const tu_clock_state *s, const tu_clock_rule *r, double last) {
  if (!(s->steady > 0)) return true;
  /* still coming up: the estimate itself may be low */
  if (s->nrecent >= 2 && s->recent[s->nrecent - 1] > 1.02 * s->recent[s->nrecent - 2]) return true;
  return !(last >= low_fraction(r) * s->steady);
}

const char *tu_clock_verdict_name(tu_clock_verdict v) {
  static const char *const n[] = {"ok", "again", "kept", "unknown"};
  return (unsigned)v < 4 ? n[v] : "?";
}
