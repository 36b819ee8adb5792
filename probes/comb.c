/* Sleeping-workgroup comb: P is the largest number of sleeps that overlap, held for at least min_dwell.
 * Counting starts within a window of the first one undercounts when launches are staggered; the
 * overlap count does not, because a slot is only refilled after its sleeper has ended. */
#include "internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sorting is most of the estimate's cost (a comb of 4225 workgroups took 2.7 ms with qsort, as long as
 * its dispatch): an LSD radix sort of the doubles' bit patterns, made monotone (finite values). */
static uint64_t key_of(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return (u >> 63) ? ~u : u | (1ull << 63);
}
static double of_key(uint64_t k) {
  uint64_t u = (k >> 63) ? k & ~(1ull << 63) : ~k;
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}
static void sort_doubles(double *v, uint32_t n) {
  if (n < 64) { qsort(v, n, sizeof *v, util_cmp_double); return; }
  uint64_t *a = util_xmalloc(n * sizeof *a), *b = util_xmalloc(n * sizeof *b);
  for (uint32_t i = 0; i < n; i++) a[i] = key_of(v[i]);
  enum { BITS = 11, BUCKETS = 1 << BITS };
  uint32_t *count = util_xmalloc(BUCKETS * sizeof *count);
  for (int shift = 0; shift < 64; shift += BITS) {
    memset(count, 0, BUCKETS * sizeof *count);
    for (uint32_t i = 0; i < n; i++) count[(a[i] >> shift) & (BUCKETS - 1)]++;
    uint32_t sum = 0;
    for (uint32_t k = 0; k < BUCKETS; k++) { uint32_t c = count[k]; count[k] = sum; sum += c; }
    for (uint32_t i = 0; i < n; i++) b[count[(a[i] >> shift) & (BUCKETS - 1)]++] = a[i];
    uint64_t *t = a; a = b; b = t;
  }
  for (uint32_t i = 0; i < n; i++) v[i] = of_key(a[i]);
  free(a); free(b); free(count);
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

  double *starts = util_xmalloc(m * sizeof *starts), *ends = util_xmalloc(m * sizeof *ends), *len = util_xmalloc(m * sizeof *len);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!(iv[i].valid && isfinite(iv[i].start) && isfinite(iv[i].end) && iv[i].end >= iv[i].start)) continue;
    starts[k] = iv[i].start;
    ends[k] = iv[i].end;
    len[k++] = iv[i].end - iv[i].start;
  }
  sort_doubles(len, m);
  out->median_sleep_ns = m % 2 ? len[m / 2] : 0.5 * (len[m / 2 - 1] + len[m / 2]);
  if (min_dwell <= 0) min_dwell = 0.02 * out->median_sleep_ns;

  /* dwell[l]: total time spent at overlap level exactly l; starts and ends merged in time order, ends
   * first at equal times (a refill does not overlap) */
  sort_doubles(starts, m);
  sort_doubles(ends, m);
  double *dwell = util_xcalloc(m + 1, sizeof *dwell);
  int level = 0;
  uint32_t si = 0, ei = 0;
  double t = 0;
  while (si < m || ei < m) {
    bool end_first = ei < m && (si == m || ends[ei] <= starts[si]);
    double tn = end_first ? ends[ei] : starts[si];
    if (level > 0) dwell[level] += tn - t;
    t = tn;
    if (end_first) level--, ei++;
    else level++, si++;
  }
  double at_least = 0;
  for (uint32_t l = m; l >= 1; l--) {
    at_least += dwell[l];
    if (at_least >= min_dwell) { out->P = l; break; }
  }
  if (out->P == 0) out->P = 1; /* every sleep shorter than min_dwell: still one at a time at least */
  out->lower_bound = out->P >= m;

  /* Evidence: teeth are runs of start times without a gap above half the median sleep (starts sorted). */
  uint32_t height = 1;
  out->teeth = 1;
  for (uint32_t i = 1; i <= m; i++) {
    if (i < m && starts[i] - starts[i - 1] <= 0.5 * out->median_sleep_ns) { height++; continue; }
    if (out->teeth == 1) out->first_tooth_spread_ns = starts[i - 1] - starts[0];
    if (out->teeth <= VKOCC_MAX_TEETH) out->tooth_heights[out->teeth - 1] = height;
    if (i < m) { out->teeth++; height = 1; }
  }
  free(starts); free(ends); free(len); free(dwell);
  return VKOCC_OK;
}
