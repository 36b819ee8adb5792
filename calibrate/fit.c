/* Least-squares line with optional outlier rejection (robust sigma from the median absolute residual). */
#include "internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool fit_subset(const double *x, const double *y, const bool *use, uint32_t n, vkocc_linfit *f) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++)
    if (use[i]) { sx += x[i]; sy += y[i]; m++; }
  if (m < 2) return false;
  double mx = sx / m, my = sy / m;
  for (uint32_t i = 0; i < n; i++)
    if (use[i]) { sxx += (x[i] - mx) * (x[i] - mx); sxy += (x[i] - mx) * (y[i] - my); }
  if (sxx <= 0) return false;
  f->slope = sxy / sxx;
  f->intercept = my - f->slope * mx;
  double ss_res = 0, ss_tot = 0, maxrel = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!use[i]) continue;
    double fit = f->intercept + f->slope * x[i], r = y[i] - fit;
    ss_res += r * r;
    ss_tot += (y[i] - my) * (y[i] - my);
    if (fit != 0 && fabs(r / fit) > maxrel) maxrel = fabs(r / fit);
  }
  f->r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  f->max_rel_residual = maxrel;
  f->n_used = m;
  return true;
}

vkocc_status vkocc_linfit_compute(const double *x, const double *y, uint32_t n, bool reject, vkocc_linfit *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  out->n = n;
  if (n < 2) return vkocc_fail(VKOCC_ERROR_RUNTIME, "line fit needs at least 2 points, got %u", n);
  bool *use = util_xmalloc(n * sizeof *use);
  double *res = util_xmalloc(n * sizeof *res);
  for (uint32_t i = 0; i < n; i++) use[i] = isfinite(x[i]) && isfinite(y[i]);
  bool ok = fit_subset(x, y, use, n, out);
  for (int round = 0; ok && reject && round < 3; round++) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
      if (use[i]) res[m++] = fabs(y[i] - (out->intercept + out->slope * x[i]));
    double sigma = 1.4826 * util_median(res, m);
    uint32_t keep = 0, dropped = 0;
    bool *next = util_xmalloc(n * sizeof *next);
    for (uint32_t i = 0; i < n; i++) {
      double r = fabs(y[i] - (out->intercept + out->slope * x[i]));
      double lim = fmax(4 * sigma, 1e-9 * fabs(y[i]));
      next[i] = use[i] && r <= lim;
      keep += next[i];
      dropped += use[i] && !next[i];
    }
    if (dropped == 0 || keep < (m + 1) / 2 || keep < 2) { free(next); break; }
    memcpy(use, next, n * sizeof *use);
    free(next);
    ok = fit_subset(x, y, use, n, out);
  }
  free(use);
  free(res);
  if (!ok) return vkocc_fail(VKOCC_ERROR_RUNTIME, "line fit is degenerate (fewer than 2 finite points or all x equal)");
  return VKOCC_OK;
}
