/* Per-SM limits from a surface alone. For each candidate SM count n (values that divide at least half
 * of the points), the per-SM values p = P / n are explained by
 *     p = min(W, floor(S / ceil(wg / sg)), floor(M / s))      (last term only for s > 0)
 * W is the most common largest value; S and M are the values consistent with the most points limited
 * by them (interval voting); the candidate that reproduces the most points exactly wins, ties going
 * to the larger SM count. Nothing here knows a vendor. See docs/model.md. */
#include "internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint64_t lo, hi; } interval;

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The value range covered by the most intervals: [lo, hi] of the first best region. */
static uint32_t vote(const interval *iv, uint32_t n, uint64_t *lo, uint64_t *hi) {
  if (n == 0) return 0;
  uint64_t *pts = malloc(2 * n * sizeof *pts);
  for (uint32_t i = 0; i < n; i++) pts[2 * i] = iv[i].lo, pts[2 * i + 1] = iv[i].hi;
  qsort(pts, 2 * n, sizeof *pts, cmp_u64);
  uint32_t best = 0;
  for (uint32_t c = 0; c < 2 * n; c++) {
    uint64_t x = pts[c];
    uint32_t cnt = 0;
    uint64_t l = 0, h = UINT64_MAX;
    for (uint32_t i = 0; i < n; i++)
      if (iv[i].lo <= x && x <= iv[i].hi) { cnt++; if (iv[i].lo > l) l = iv[i].lo; if (iv[i].hi < h) h = iv[i].hi; }
    if (cnt > best) { best = cnt; *lo = l; *hi = h; }
  }
  free(pts);
  return best;
}

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

static uint32_t model_p(uint32_t W, uint32_t S, uint64_t M, bool m_binds, uint32_t sg, uint32_t wg, uint32_t s,
                        uint32_t *binding) {
  uint32_t k = ceil_div(wg, sg);
  uint64_t a = W, b = S / k, c = (s > 0 && m_binds) ? M / s : UINT64_MAX;
  uint64_t m = a < b ? a : b;
  if (c < m) m = c;
  if (binding) *binding = (a == m ? VKOCC_LIMIT_WORKGROUPS : 0) | (b == m ? VKOCC_LIMIT_SUBGROUPS : 0) |
                          (c == m ? VKOCC_LIMIT_SHARED : 0);
  return (uint32_t)m;
}

/* M: points with shared memory below the other two limits are limited by it: M in [p s, (p + 1) s - 1]. */
static bool vote_M(const vkocc_surface_point *pt, uint32_t n, const bool *ok, const uint32_t *p, uint32_t W,
                   uint32_t S, uint32_t sg, uint64_t *lo, uint64_t *hi) {
  interval *iv = malloc((n + 1) * sizeof *iv);
  uint32_t ni = 0;
  uint64_t Mlow = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!ok[i] || pt[i].shared_bytes == 0) continue;
    uint32_t k = ceil_div(pt[i].wg_size, sg), other = W < S / k ? W : S / k;
    uint64_t s = pt[i].shared_bytes;
    if (p[i] < other) iv[ni++] = (interval){p[i] * s, (p[i] + 1) * s - 1};
    if (p[i] * s > Mlow) Mlow = p[i] * s;
  }
  *lo = Mlow;
  *hi = UINT64_MAX;
  bool binds = ni && vote(iv, ni, lo, hi);
  free(iv);
  return binds;
}

static uint32_t count_explained(const vkocc_surface_point *pt, uint32_t n, const bool *ok, const uint32_t *p,
                                uint32_t W, uint32_t S, uint64_t M, bool m_binds, uint32_t sg) {
  uint32_t c = 0;
  for (uint32_t i = 0; i < n; i++)
    c += ok[i] && model_p(W, S, M, m_binds, sg, pt[i].wg_size, pt[i].shared_bytes, NULL) == p[i];
  return c;
}

/* Fits W, S, M for one SM count and subgroup size; returns the number of points explained. */
static uint32_t fit(const vkocc_surface_point *pt, uint32_t n, uint32_t sms, uint32_t sg, vkocc_derived *d) {
  memset(d, 0, sizeof *d);
  d->sm_count = sms;
  d->subgroup_size = sg;
  uint32_t *p = malloc(n * sizeof *p);
  bool *ok = malloc(n * sizeof *ok);
  for (uint32_t i = 0; i < n; i++) {
    ok[i] = pt[i].P > 0 && pt[i].P % sms == 0;
    p[i] = ok[i] ? pt[i].P / sms : 0;
  }
  /* W: the largest per-SM value that at least two points share (one point alone may be noise) */
  uint32_t W = 0, Wany = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!ok[i]) continue;
    if (p[i] > Wany) Wany = p[i];
    if (p[i] <= W) continue;
    for (uint32_t j = 0; j < n; j++)
      if (j != i && ok[j] && p[j] == p[i]) { W = p[i]; break; }
  }
  if (W == 0) W = Wany;
  /* S: points without shared memory and below W are limited by subgroups: S in [p k, (p+1) k - 1] */
  interval *iv = malloc((n + 1) * sizeof *iv);
  uint32_t ni = 0;
  uint64_t Slow = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!ok[i]) continue;
    uint32_t k = ceil_div(pt[i].wg_size, sg);
    if (pt[i].shared_bytes == 0 && p[i] < W) iv[ni++] = (interval){(uint64_t)p[i] * k, (uint64_t)(p[i] + 1) * k - 1};
    if ((uint64_t)p[i] * k > Slow) Slow = (uint64_t)p[i] * k;
  }
  uint64_t Slo = Slow, Shi = UINT64_MAX;
  if (ni && vote(iv, ni, &Slo, &Shi)) d->subgroups_bound_seen = true;
  if (Slo < Slow && !d->subgroups_bound_seen) Slo = Slow;
  /* Voting can be swung by one noisy interval on a small grid: also try every interval end as S and keep
   * the value whose whole model (with M voted for it) reproduces the most points. */
  uint64_t Mlo = 0, Mhi = UINT64_MAX;
  bool m_binds = vote_M(pt, n, ok, p, W, (uint32_t)(Slo > UINT32_MAX ? UINT32_MAX : Slo), sg, &Mlo, &Mhi);
  uint32_t best = count_explained(pt, n, ok, p, W, (uint32_t)Slo, Mlo, m_binds, sg);
  for (uint32_t i = 0; i < ni; i++)
    for (int e = 0; e < 2; e++) {
      uint64_t cand = e ? iv[i].hi : iv[i].lo;
      if (cand == Slo || cand > UINT32_MAX) continue;
      uint64_t ml = 0, mh = UINT64_MAX;
      bool mb = vote_M(pt, n, ok, p, W, (uint32_t)cand, sg, &ml, &mh);
      uint32_t c = count_explained(pt, n, ok, p, W, (uint32_t)cand, ml, mb, sg);
      if (c > best) {
        best = c, Slo = cand, Mlo = ml, Mhi = mh, m_binds = mb;
        /* the consistent range of S: the intersection of the intervals that contain it */
        Shi = UINT64_MAX;
        for (uint32_t j = 0; j < ni; j++)
          if (iv[j].lo <= cand && cand <= iv[j].hi && iv[j].hi < Shi) Shi = iv[j].hi;
      }
    }
  free(iv);
  uint32_t S = (uint32_t)(Slo > UINT32_MAX ? UINT32_MAX : Slo);
  d->wg_per_sm = W;
  d->subgroups_per_sm = S;
  d->subgroups_per_sm_max = d->subgroups_bound_seen ? (uint32_t)(Shi > UINT32_MAX ? UINT32_MAX : Shi) : UINT32_MAX;
  d->threads_per_sm = S * sg;
  d->shared_bound_seen = m_binds;
  d->shared_per_sm = (uint32_t)(Mlo > UINT32_MAX ? UINT32_MAX : Mlo);
  d->shared_per_sm_max = m_binds ? (uint32_t)(Mhi > UINT32_MAX ? UINT32_MAX : Mhi) : UINT32_MAX;
  d->total = n;
  for (uint32_t i = 0; i < n; i++) {
    bool good = ok[i] && model_p(W, S, Mlo, m_binds, sg, pt[i].wg_size, pt[i].shared_bytes, NULL) == p[i];
    if (good) d->explained++;
    else if (d->n_unexplained < VKOCC_MAX_UNEXPLAINED) d->unexplained[d->n_unexplained++] = i;
  }
  free(p);
  free(ok);
  return d->explained;
}

vkocc_status vkocc_derive(const vkocc_surface_point *pt, uint32_t n, uint32_t sg, vkocc_derived *out) {
  memset(out, 0, sizeof *out);
  uint32_t maxP = 0, usable = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (pt[i].P > maxP) maxP = pt[i].P;
    usable += pt[i].P > 0;
  }
  if (usable == 0) return vkocc_fail(VKOCC_ERROR_RUNTIME, "derive: the surface has no point with P > 0");
  /* Subgroup size unknown: the coarsest one that explains the most points (a finer one explains
   * workgroups made of whole coarse subgroups equally well). */
  static const uint32_t sgs[] = {128, 64, 32, 16, 8, 4};
  uint32_t best = 0;
  bool have = false;
  for (uint32_t si = 0; si < (sg ? 1 : VKOCC_ARRAY_LEN(sgs)); si++) {
    uint32_t g = sg ? sg : sgs[si];
    for (uint32_t sms = maxP; sms >= 1; sms--) { /* larger counts first: they win ties */
      uint32_t div = 0;
      for (uint32_t i = 0; i < n; i++) div += pt[i].P > 0 && pt[i].P % sms == 0;
      if (2 * div < usable) continue;
      vkocc_derived d;
      uint32_t e = fit(pt, n, sms, g, &d);
      if (!have || e > best) {
        best = e;
        *out = d;
        have = true;
      } else if (e == best && g == out->subgroup_size && sms != out->sm_count) {
        out->sm_count_ambiguous = true;
      }
    }
  }
  out->subgroup_size_inferred = sg == 0;
  return VKOCC_OK;
}

void vkocc_occupancy_from_P(const vkocc_derived *d, uint32_t wg, uint32_t s, uint32_t P, vkocc_occupancy *o) {
  memset(o, 0, sizeof *o);
  uint32_t k = ceil_div(wg, d->subgroup_size ? d->subgroup_size : 1);
  model_p(d->wg_per_sm, d->subgroups_per_sm, d->shared_per_sm, d->shared_bound_seen, d->subgroup_size, wg, s,
          &o->binding);
  o->wgs = P;
  o->subgroups = P * k;
  o->threads = P * wg;
  uint32_t sms = d->sm_count ? d->sm_count : 1;
  o->wg_per_sm = P / sms;
  o->subgroups_per_sm = o->wg_per_sm * k;
  o->threads_per_sm = o->wg_per_sm * wg;
  o->occupancy_pct = d->threads_per_sm ? 100.0 * o->threads_per_sm / d->threads_per_sm : 0;
}

void vkocc_occupancy_compute(const vkocc_derived *d, uint32_t wg, uint32_t s, vkocc_occupancy *o) {
  uint32_t p = model_p(d->wg_per_sm, d->subgroups_per_sm, d->shared_per_sm, d->shared_bound_seen,
                       d->subgroup_size ? d->subgroup_size : 1, wg, s, NULL);
  vkocc_occupancy_from_P(d, wg, s, p * d->sm_count, o);
}

const char *vkocc_limit_name(uint32_t b) {
  switch (b) {
  case VKOCC_LIMIT_WORKGROUPS: return "workgroup slots";
  case VKOCC_LIMIT_SUBGROUPS: return "subgroup slots";
  case VKOCC_LIMIT_SHARED: return "shared memory";
  case VKOCC_LIMIT_WORKGROUPS | VKOCC_LIMIT_SUBGROUPS: return "workgroup+subgroup slots";
  case VKOCC_LIMIT_WORKGROUPS | VKOCC_LIMIT_SHARED: return "workgroup slots+shared memory";
  case VKOCC_LIMIT_SUBGROUPS | VKOCC_LIMIT_SHARED: return "subgroup slots+shared memory";
  case 7: return "all three";
  default: return "none";
  }
}
