#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int util_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double util_median(double *v, uint32_t n) {
  if (n == 0) return NAN;
  qsort(v, n, sizeof *v, util_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void vkocc_summarize(const double *v, uint32_t n, vkocc_summary *out) {
  memset(out, 0, sizeof *out);
  out->n = n;
  if (n == 0) { out->median = out->min = out->max = out->mad = NAN; return; }
  double *t = util_xmalloc(n * sizeof *t);
  memcpy(t, v, n * sizeof *t);
  out->median = util_median(t, n);
  out->min = t[0];
  out->max = t[n - 1];
  for (uint32_t i = 0; i < n; i++) t[i] = fabs(v[i] - out->median);
  out->mad = util_median(t, n);
  free(t);
}
