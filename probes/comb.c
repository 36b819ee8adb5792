/* Sleeping-workgroup comb: P is the largest number of sleeps that overlap, held for at least min_dwell.
 * Counting starts within a window of the first one undercounts when launches are staggered; the
 * overlap count does not, because a slot is only refilled after its sleeper has ended. */
#include "internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct { double t; int delta; } event;

static int cmp_event(const void *a, const void *b) {
  const event *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->delta - y->delta; /* ends (-1) before starts (+1) at equal times: a refill does not overlap */
}

vkocc_status vkocc_comb_estimate_P(const vkocc_interval *iv, uint32_t n, double min_dwell, vkocc_comb_estimate *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++)
    if (iv[i].valid && isfinite(iv[i].start) && isfinite(iv[i].end) && iv[i].end >= iv[i].start) m++;
  out->n_valid = m;
  out->n_missing = n - m;
  if (m == 0) return vkocc_fail(VKOCC_ERROR_RUNTIME, "comb: none of the %u workgroup records is valid", n);

  event *ev = malloc(2 * m * sizeof *ev);
  double *starts = malloc(m * sizeof *starts), *len = malloc(m * sizeof *len);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!(iv[i].valid && isfinite(iv[i].start) && isfinite(iv[i].end) && iv[i].end >= iv[i].start)) continue;
    ev[2 * k] = (event){iv[i].start, +1};
    ev[2 * k + 1] = (event){iv[i].end, -1};
    starts[k] = iv[i].start;
    len[k++] = iv[i].end - iv[i].start;
  }
  out->median_sleep_ns = vkocc_median(len, m);
  if (min_dwell <= 0) min_dwell = 0.02 * out->median_sleep_ns;

  /* dwell[l]: total time spent at overlap level exactly l */
  qsort(ev, 2 * m, sizeof *ev, cmp_event);
  double *dwell = calloc(m + 1, sizeof *dwell);
  int level = 0;
  for (uint32_t i = 0; i + 1 < 2 * m; i++) {
    level += ev[i].delta;
    if (level > 0) dwell[level] += ev[i + 1].t - ev[i].t;
  }
  double at_least = 0;
  for (uint32_t l = m; l >= 1; l--) {
    at_least += dwell[l];
    if (at_least >= min_dwell) { out->P = l; break; }
  }
  if (out->P == 0) out->P = 1; /* every sleep shorter than min_dwell: still one at a time at least */
  out->lower_bound = out->P >= m;

  /* Evidence: teeth are runs of start times without a gap above half the median sleep. */
  qsort(starts, m, sizeof *starts, vkocc_cmp_double);
  uint32_t height = 1;
  out->teeth = 1;
  for (uint32_t i = 1; i <= m; i++) {
    if (i < m && starts[i] - starts[i - 1] <= 0.5 * out->median_sleep_ns) { height++; continue; }
    if (out->teeth == 1) out->first_tooth_spread_ns = starts[i - 1] - starts[0];
    if (out->teeth <= VKOCC_MAX_TEETH) out->tooth_heights[out->teeth - 1] = height;
    if (i < m) { out->teeth++; height = 1; }
  }
  free(ev); free(starts); free(len); free(dwell);
  return VKOCC_OK;
}
