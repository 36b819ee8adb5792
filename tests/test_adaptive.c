/* Adaptive surface on synthetic devices: the result must equal the full grid (every point measured, the
 * same refinement) wherever the model holds, find a region that breaks it, and shrug off noise that a
 * second measurement does not repeat. */
#include "check.h"
#include "vkocc.h"
#include <stdlib.h>

typedef struct {
  uint32_t N, W, S, g, M;   /* the model of docs/model.md; N = 0: constant C (lavapipe) */
  uint32_t C;
  uint32_t broken_wg;       /* this row's shared-limited points are one step lower (0: none) */
  uint32_t noisy_wg, noisy_s; /* the first measurement of this point is off by N (0: none) */
  uint32_t noisy_calls;
  uint32_t calls, measured_twice;
  uint32_t unhinted, hint_low; /* points measured without a hint; with a hint below P */
  uint32_t seen[4096][2];   /* (wg, s) measured, to count repeats */
  uint32_t nseen;
} synth;

static uint32_t truth(const synth *y, uint32_t wg, uint32_t s) {
  if (!y->N) return y->C;
  uint32_t k = (wg + y->g - 1) / y->g, p = y->W;
  if (y->S / k < p) p = y->S / k;
  uint32_t M = y->M;
  if (wg == y->broken_wg && s) M -= s; /* one workgroup's worth less: a per-row reservation */
  if (s && M / s < p) p = M / s;
  return p * y->N;
}

static vkocc_status measure(void *user, vkocc_surface_point *pts, uint32_t n) {
  synth *y = user;
  y->calls++;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t wg = pts[i].wg_size, s = pts[i].shared_bytes;
    bool again = false;
    for (uint32_t k = 0; k < y->nseen; k++)
      if (y->seen[k][0] == wg && y->seen[k][1] == s) again = true;
    if (again) y->measured_twice++;
    else if (y->nseen < 4096) y->seen[y->nseen][0] = wg, y->seen[y->nseen++][1] = s;
    if (!pts[i].P) y->unhinted++;
    else if (pts[i].P < truth(y, wg, s)) y->hint_low++;
    pts[i].P = truth(y, wg, s);
    if (wg == y->noisy_wg && s == y->noisy_s && !again) pts[i].P += y->N ? y->N : 1, y->noisy_calls++;
    pts[i].comb_P = pts[i].P;
    pts[i].agree = true;
  }
  return VKOCC_OK;
}

static int cmp_pt(const void *a, const void *b) {
  const vkocc_surface_point *x = a, *y = b;
  if (x->wg_size != y->wg_size) return x->wg_size < y->wg_size ? -1 : 1;
  return (x->shared_bytes > y->shared_bytes) - (x->shared_bytes < y->shared_bytes);
}

/* The full grid: the same plan with every point measured (checks = UINT32_MAX), from the true surface. */
static void full_grid(synth y, const vkocc_adaptive_options *o, vkocc_surface_point **pts, uint32_t *n) {
  vkocc_adaptive_options f = *o;
  f.checks = UINT32_MAX;
  y.noisy_wg = 0;
  y.nseen = 0;
  vkocc_adaptive_stats st;
  CHECK(vkocc_surface_adaptive(&f, measure, &y, pts, n, &st) == VKOCC_OK, "full grid");
  CHECK_EQ_U(st.measured, *n);
}

/* Compares with the full grid; returns the points measured. */
static uint32_t compare(const char *name, synth *y, const vkocc_adaptive_options *o, uint32_t expect_points) {
  vkocc_surface_point *a, *f;
  uint32_t na, nf;
  vkocc_adaptive_stats st;
  full_grid(*y, o, &f, &nf);
  CHECK(vkocc_surface_adaptive(o, measure, y, &a, &na, &st) == VKOCC_OK, "%s: adaptive", name);
  if (expect_points) CHECK(nf == expect_points, "%s: full grid has %u points, expected %u", name, nf, expect_points);
  CHECK(na == nf, "%s: %u points, the full grid %u", name, na, nf);
  uint32_t diff = 0, measured = 0, predicted = 0;
  for (uint32_t i = 0; i < na && i < nf; i++) {
    if (i && cmp_pt(&a[i - 1], &a[i]) >= 0) diff++; /* sorted, no duplicates */
    if (a[i].wg_size != f[i].wg_size || a[i].shared_bytes != f[i].shared_bytes || a[i].P != f[i].P ||
        a[i].refined != f[i].refined) {
      if (diff++ < 5)
        fprintf(stderr, "%s: point %u: (%u, %u) P %u%s, full grid (%u, %u) P %u\n", name, i, a[i].wg_size,
                a[i].shared_bytes, a[i].P, a[i].predicted ? " (predicted)" : "", f[i].wg_size, f[i].shared_bytes, f[i].P);
    }
    measured += !a[i].predicted;
    predicted += a[i].predicted;
    if (a[i].predicted) CHECK(a[i].comb_P == 0 && a[i].bisect_P == 0, "%s: a predicted point carries a measurement", name);
  }
  CHECK(diff == 0, "%s: %u points differ from the full grid", name, diff);
  CHECK_EQ_U(st.measured, measured);
  CHECK_EQ_U(st.points, na);
  printf("%s: %u points, %u measured (%u measurements, %u batches), %u predicted; %u disagreements, %u confirmed, "
         "%u full rows, %u full columns\n", name, na, measured, st.measurements, st.batches, predicted,
         st.disagreements, st.confirmed, st.full_rows, st.full_columns);
  free(a);
  free(f);
  return measured;
}

int main(void) {
  /* H100's default grid: wg 32..1024 step 32, ladder of eighths of 48 KiB; N 132, W 32, S 64, M 100 KiB */
  uint32_t wg[1024], lad[16], nw = 0, nl = 0;
  for (uint32_t w = 32; w <= 1024; w += 32) wg[nw++] = w;
  uint32_t maxs = 49152;
  lad[nl++] = 0, lad[nl++] = 1024, lad[nl++] = 2048;
  for (uint32_t i = 1; i <= 8; i++) {
    uint32_t v = (uint32_t)((uint64_t)maxs * i / 8) & ~255u;
    if (v > lad[nl - 1]) lad[nl++] = v;
  }
  vkocc_adaptive_options o = {.wg_sizes = wg, .wg_count = nw, .shared = lad, .shared_count = nl};
  synth h100 = {.N = 132, .W = 32, .S = 64, .g = 32, .M = 102400};
  /* 679 points: the H100 default surface measured in full (docs/results/h100/surface/surface.json) */
  uint32_t m = compare("H100 model", &h100, &o, 679);
  CHECK(m < 679 / 2, "H100 model: %u of 679 points measured", m);
  CHECK_EQ_U(h100.measured_twice, 0);
  /* every point but the first comes with a hint at or above its P (one comb of hint + 1 establishes it) */
  CHECK_EQ_U(h100.unhinted, 1);
  CHECK_EQ_U(h100.hint_low, 0);

  /* lavapipe: P is the thread count everywhere; wg 8..1024 step 8 (its subgroup size) */
  uint32_t wl[128], nwl = 0;
  for (uint32_t w = 8; w <= 1024; w += 8) wl[nwl++] = w;
  uint32_t ll[16], nll = 0;
  ll[nll++] = 0, ll[nll++] = 1024, ll[nll++] = 2048;
  for (uint32_t i = 1; i <= 8; i++) ll[nll++] = 4096 * i;
  vkocc_adaptive_options ol = {.wg_sizes = wl, .wg_count = nwl, .shared = ll, .shared_count = nll};
  synth lvp = {.C = 2};
  m = compare("lavapipe", &lvp, &ol, 128 * 11);
  CHECK(m <= 4 + 1 + nll - 1, "lavapipe: %u points measured (axes 4 + checks: 1 group of rows, %u columns)", m, nll - 1);

  /* an AMD-like device: 64-wide subgroups, 16 workgroups and 40 subgroups per CU, 64 KiB, 96 CUs */
  synth amd = {.N = 96, .W = 16, .S = 40, .g = 64, .M = 65536};
  uint32_t wa[16], nwa = 0;
  for (uint32_t w = 64; w <= 1024; w += 64) wa[nwa++] = w;
  vkocc_adaptive_options oa = {.wg_sizes = wa, .wg_count = nwa, .shared = lad, .shared_count = nl};
  compare("AMD-like", &amd, &oa, 0);

  /* the canonical grid without refinement (what fingerprint measures) */
  vkocc_adaptive_options oc = {.wg_sizes = vkocc_canonical_wg, .wg_count = VKOCC_CANON_WG,
                               .shared = vkocc_canonical_shared, .shared_count = VKOCC_CANON_SHARED, .no_refine = true};
  synth h100c = h100;
  h100c.nseen = 0;
  m = compare("H100 canonical", &h100c, &oc, VKOCC_CANON_WG * VKOCC_CANON_SHARED);
  CHECK(m < VKOCC_CANON_WG * VKOCC_CANON_SHARED, "canonical: %u measured", m);

  /* a row that breaks the model: wg 96 keeps one workgroup's shared memory less; its step check finds it */
  synth br = h100;
  br.nseen = 0;
  br.broken_wg = 96;
  vkocc_adaptive_stats st;
  compare("H100 broken row", &br, &o, 0);
  vkocc_surface_point *pts;
  uint32_t n;
  br.nseen = 0;
  CHECK(vkocc_surface_adaptive(&o, measure, &br, &pts, &n, &st) == VKOCC_OK, "broken row");
  CHECK(st.confirmed >= 1 && st.full_rows >= 1, "broken row: %u confirmed, %u full rows", st.confirmed, st.full_rows);
  for (uint32_t i = 0; i < n; i++)
    if (pts[i].wg_size == 96) CHECK(!pts[i].predicted, "broken row: (96, %u) predicted", pts[i].shared_bytes);
  free(pts);

  /* noise: the first measurement of an axis point is off; a check disagrees, the second measurement
   * of the point and its axes settles it without making a row full */
  synth nz = h100;
  nz.nseen = 0;
  nz.noisy_wg = 320, nz.noisy_s = 0; /* on the s = 0 axis: the prediction of row 320 is wrong */
  compare("H100 noisy axis", &nz, &o, 679);
  CHECK_EQ_U(nz.noisy_calls, 1);
  nz.nseen = 0, nz.noisy_calls = 0;
  CHECK(vkocc_surface_adaptive(&o, measure, &nz, &pts, &n, &st) == VKOCC_OK, "noisy");
  CHECK(st.disagreements >= 1 && st.confirmed == 0, "noisy: %u disagreements, %u confirmed", st.disagreements, st.confirmed);
  free(pts);

  /* degenerate grids: one row, one column, one point */
  synth one = h100;
  one.nseen = 0;
  vkocc_adaptive_options o1 = {.wg_sizes = wg + 5, .wg_count = 1, .shared = lad, .shared_count = nl};
  compare("one row", &one, &o1, 0);
  one.nseen = 0;
  vkocc_adaptive_options o2 = {.wg_sizes = wg, .wg_count = nw, .shared = lad + 4, .shared_count = 1};
  compare("one column", &one, &o2, nw);
  one.nseen = 0;
  vkocc_adaptive_options o3 = {.wg_sizes = wg, .wg_count = 1, .shared = lad, .shared_count = 1};
  CHECK(compare("one point", &one, &o3, 1) == 1, "one point measured");

  /* bad grids */
  uint32_t down[2] = {64, 32};
  vkocc_adaptive_options ob = {.wg_sizes = down, .wg_count = 2, .shared = lad, .shared_count = nl};
  CHECK(vkocc_surface_adaptive(&ob, measure, &h100, &pts, &n, &st) == VKOCC_ERROR_USAGE, "unsorted grid");
  ob.wg_count = 0;
  CHECK(vkocc_surface_adaptive(&ob, measure, &h100, &pts, &n, &st) == VKOCC_ERROR_USAGE, "empty grid");
  return check_report();
}
