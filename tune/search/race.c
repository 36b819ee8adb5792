/* Racing: which configurations stop before the full rule (tune/search/race.h). Pure. */
#include "race.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void tu_race_init(tu_race *r) {
  memset(r, 0, sizeof *r);
  r->best = -1;
}

void tu_race_free(tu_race *r) {
  free(r->spreads);
  tu_race_init(r);
}

void tu_race_note(tu_race *r, int64_t config, double median_ns, double spread, double early_ns) {
  if (!(median_ns > 0 && isfinite(median_ns))) return;
  if (early_ns > 0 && isfinite(early_ns) && early_ns / median_ns > r->early_bias) r->early_bias = early_ns / median_ns;
  if (!(spread >= 0 && isfinite(spread))) spread = 0;
  if (r->nspreads == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 64;
    r->spreads = util_xrealloc(r->spreads, r->cap * sizeof *r->spreads);
  }
  r->spreads[r->nspreads++] = spread;
  if (r->best < 0 || median_ns < r->best_ns) r->best = config, r->best_ns = median_ns, r->best_spread = spread;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double tu_race_noise(const tu_race *r) {
  if (!r->nspreads) return 0;
  double *s = util_xmalloc(r->nspreads * sizeof *s);
  memcpy(s, r->spreads, r->nspreads * sizeof *s);
  qsort(s, r->nspreads, sizeof *s, by_value);
  uint32_t n = r->nspreads;
  double med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  free(s);
  return med > r->best_spread ? med : r->best_spread;
}

double tu_race_margin(double noise) {
  double m = TU_RACE_K * (noise > 0 && isfinite(noise) ? noise : 0);
  return m > TU_RACE_FLOOR ? m : TU_RACE_FLOOR;
}

tu_race_verdict tu_race_judge(const tu_race *r, bool full_rule, const double *ns, uint32_t n) {
  tu_race_verdict v = {.fastest_ns = INFINITY};
  for (uint32_t i = 0; i < n; i++)
    if (ns[i] < v.fastest_ns) v.fastest_ns = ns[i];
  if (full_rule || r->best < 0) return v;
  v.best_ns = r->best_ns;
  v.noise = tu_race_noise(r);
  /* and the candidate's own: two runs far apart say the host moved under them (lavapipe on a loaded 2-core host:
   * WG 64 and 32 of one kernel measured 1.5x apart one way in one process and the other way in the next) */
  if (n >= 2) {
    vkocc_summary sum;
    vkocc_summarize(ns, n, &sum);
    double own = sum.median > 0 ? sum.mad / sum.median : 0;
    if (own > v.noise) v.noise = own;
  }
  v.margin = tu_race_margin(v.noise);
  v.bias = r->early_bias > 1 ? r->early_bias : 1;
  v.behind = n >= TU_RACE_MIN_RUNS && isfinite(v.fastest_ns) && v.fastest_ns > r->best_ns * v.bias * (1 + v.margin);
  return v;
}

uint32_t tu_race_first_runs(const tu_race *r, bool full_rule, bool first_counts, uint32_t min_runs) {
  if (full_rule || r->best < 0) return min_runs;
  uint32_t have = first_counts ? 1 : 0;
  return TU_RACE_MIN_RUNS > have ? TU_RACE_MIN_RUNS - have : 1;
}

bool tu_race_validation_counts(bool cpu_device, bool clock_steady) { return !cpu_device && clock_steady; }
