/* Adaptive surface: the full grid's points from few measurements (include/vkocc.h, docs/surface-speed.md).
 * Pure algorithm behind a measurement callback, tested on synthetic surfaces (tests/test_adaptive.c). */
#include "array.h"
#include "internal.h"
#include <stdlib.h>
#include <string.h>

#define MAX_ROUNDS 16 /* refinement rounds, as the full grid (surface.c) */

typedef struct { uint32_t s; vkocc_surface_point pt; } meas;
typedef struct { meas *m; uint32_t n, cap; } row_t;
/* one row's point set: shared sizes, values (0: unknown), ladder or refinement */
typedef struct { uint32_t *s, *v; bool *refined; uint32_t n, cap; } list_t;

typedef struct {
  const uint32_t *wg, *lad;
  uint32_t nw, nl, step;
  bool refine;
  row_t *rows;
  bool *row_full;
  uint32_t *col_full, ncol_full, col_cap; /* shared sizes measured in every row that has them */
  vkocc_points_fn fn;
  void *user;
  vkocc_surface_point *want;
  uint32_t nwant, wcap;
  vkocc_adaptive_stats st;
} ad;

static meas *find(const row_t *r, uint32_t s) {
  uint32_t lo = 0, hi = r->n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (r->m[mid].s < s) lo = mid + 1;
    else hi = mid;
  }
  return lo < r->n && r->m[lo].s == s ? &r->m[lo] : NULL;
}

static void store(ad *a, uint32_t i, const vkocc_surface_point *p) {
  row_t *r = &a->rows[i];
  meas *m = find(r, p->shared_bytes);
  if (m) { m->pt = *p; return; }
  util_array_room(r->m, r->n, r->cap, 16);
  uint32_t k = r->n;
  while (k > 0 && r->m[k - 1].s > p->shared_bytes) { r->m[k] = r->m[k - 1]; k--; }
  r->m[k] = (meas){p->shared_bytes, *p};
  r->n++;
}

/* Monotone prediction along a row from its own measurements: equal measured neighbours bracket s. */
static uint32_t row_monotone(const row_t *r, uint32_t s) {
  const meas *m = find(r, s);
  if (m) return m->pt.P;
  uint32_t lo = 0, hi = r->n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (r->m[mid].s < s) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0 || lo == r->n) return 0;
  return r->m[lo - 1].pt.P == r->m[lo].pt.P ? r->m[lo].pt.P : 0;
}

/* A(i) = P(wg_i, s0): measured, or equal measured neighbours along the s0 column bracket it. */
static uint32_t axis_A(const ad *a, uint32_t i) {
  const meas *m = find(&a->rows[i], a->lad[0]);
  if (m) return m->pt.P;
  int lo = (int)i - 1, hi = (int)i + 1;
  const meas *l = NULL, *h = NULL;
  for (; lo >= 0 && !(l = find(&a->rows[lo], a->lad[0])); lo--) {}
  for (; hi < (int)a->nw && !(h = find(&a->rows[hi], a->lad[0])); hi++) {}
  return l && h && l->pt.P == h->pt.P ? l->pt.P : 0;
}

static bool col_is_full(const ad *a, uint32_t s) {
  for (uint32_t k = 0; k < a->ncol_full; k++)
    if (a->col_full[k] == s) return true;
  return false;
}

/* The value the surface has at (i, s) now: measured, else the model's min(A, B), else 0 (unknown).
 * Full rows and columns predict nothing: what they hold is measured. */
static uint32_t model(const ad *a, uint32_t i, uint32_t s) {
  uint32_t A = axis_A(a, i), B = row_monotone(&a->rows[0], s);
  if (!A || !B) return 0;
  return A < B ? A : B;
}

static uint32_t value(const ad *a, uint32_t i, uint32_t s, bool *measured) {
  const meas *m = find(&a->rows[i], s);
  *measured = m != NULL;
  if (m) return m->pt.P;
  if (a->row_full[i] || col_is_full(a, s)) return 0;
  return model(a, i, s);
}

static void list_put(list_t *l, uint32_t at, uint32_t s, uint32_t v, bool refined) {
  uint32_t cap_v = l->cap, cap_refined = l->cap; /* three arrays, one capacity */
  util_array_room(l->s, l->n, l->cap, 64);
  util_array_room(l->v, l->n, cap_v, 64);
  util_array_room(l->refined, l->n, cap_refined, 64);
  memmove(l->s + at + 1, l->s + at, (l->n - at) * sizeof *l->s);
  memmove(l->v + at + 1, l->v + at, (l->n - at) * sizeof *l->v);
  memmove(l->refined + at + 1, l->refined + at, (l->n - at) * sizeof *l->refined);
  l->s[at] = s, l->v[at] = v, l->refined[at] = refined;
  l->n++;
}

/* Row i's point set as the full grid would build it from the current values: the ladder, then rounds
 * adding the midpoint of every gap wider than step whose ends differ. A gap with an unknown end is left
 * (the caller measures that end first). */
static void build_row(const ad *a, uint32_t i, list_t *l) {
  l->n = 0;
  bool m;
  for (uint32_t j = 0; j < a->nl; j++) list_put(l, l->n, a->lad[j], value(a, i, a->lad[j], &m), false);
  for (int round = 0; a->refine && round < MAX_ROUNDS; round++) {
    uint32_t added = 0, n = l->n;
    /* midpoints from this round's list (the full grid computes a round's midpoints before adding them) */
    uint32_t *mids = util_xmalloc((n ? n : 1) * sizeof *mids), nm = 0;
    for (uint32_t k = 0; k + 1 < n; k++) {
      uint32_t ls = l->s[k], rs = l->s[k + 1];
      if (!l->v[k] || !l->v[k + 1] || l->v[k] == l->v[k + 1] || rs - ls <= a->step) continue;
      uint32_t mid = (ls + (rs - ls) / 2) / a->step * a->step;
      if (mid <= ls || mid >= rs) continue;
      mids[nm++] = mid;
    }
    for (uint32_t q = 0, k = 0; q < nm; q++) {
      while (k < l->n && l->s[k] < mids[q]) k++;
      list_put(l, k, mids[q], value(a, i, mids[q], &m), true);
      added++;
    }
    free(mids);
    if (!added) break;
  }
}

static bool wanted(const ad *a, uint32_t wg, uint32_t s) {
  for (uint32_t k = 0; k < a->nwant; k++)
    if (a->want[k].wg_size == wg && a->want[k].shared_bytes == s) return true;
  return false;
}

/* An upper bound of P(i, s): P never rises along either axis, so any measured point at a smaller or equal
 * workgroup and shared size bounds it (0: none). A hint at or above P lets one comb of hint + 1
 * workgroups establish P (the batched combs need a hint). */
static uint32_t bound(const ad *a, uint32_t i, uint32_t s) {
  uint32_t b = 0;
  for (uint32_t r = 0; r <= i; r++)
    for (uint32_t k = 0; k < a->rows[r].n && a->rows[r].m[k].s <= s; k++)
      if (!b || a->rows[r].m[k].pt.P < b) b = a->rows[r].m[k].pt.P;
  return b;
}

/* Queues (i, s) for the next batch (once), with the model's prediction (even in a full row or column:
 * it is checked there too) as the hint, else an upper bound. remeasure: even if measured. */
static void want(ad *a, uint32_t i, uint32_t s, bool remeasure) {
  const meas *m = find(&a->rows[i], s);
  if ((m && !remeasure) || wanted(a, a->wg[i], s)) return;
  uint32_t v = model(a, i, s);
  if (!v) v = bound(a, i, s);
  util_array_room(a->want, a->nwant, a->wcap, 64);
  a->want[a->nwant++] = (vkocc_surface_point){.wg_size = a->wg[i], .shared_bytes = s, .P = v};
}

static uint32_t row_of(const ad *a, uint32_t wg) {
  uint32_t lo = 0, hi = a->nw;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (a->wg[mid] < wg) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int cmp_want(const void *x, const void *y) {
  const vkocc_surface_point *p = x, *q = y;
  if (p->wg_size != q->wg_size) return p->wg_size < q->wg_size ? -1 : 1;
  return (p->shared_bytes > q->shared_bytes) - (p->shared_bytes < q->shared_bytes);
}

/* Measures the queued points; each one's prediction before the batch goes to pred (may be NULL). */
static vkocc_status run_batch(ad *a, uint32_t **pred) {
  if (!a->nwant) return VKOCC_OK;
  qsort(a->want, a->nwant, sizeof *a->want, cmp_want); /* rows in order: neighbours hint each other */
  if (pred) {
    *pred = util_xmalloc(a->nwant * sizeof **pred);
    /* the model's prediction (the hint may be only a bound) */
    for (uint32_t k = 0; k < a->nwant; k++)
      (*pred)[k] = model(a, row_of(a, a->want[k].wg_size), a->want[k].shared_bytes);
  }
  vkocc_status s = a->fn(a->user, a->want, a->nwant);
  if (s) return s;
  a->st.batches++;
  a->st.measurements += a->nwant;
  for (uint32_t k = 0; k < a->nwant; k++) {
    a->want[k].predicted = false;
    store(a, row_of(a, a->want[k].wg_size), &a->want[k]);
  }
  return VKOCC_OK;
}

/* Axes by bisection: both ends, and the middle of every stretch between measured points that differ. */
static void want_axes(ad *a, list_t *l) {
  build_row(a, 0, l);
  for (uint32_t k = 0; k < l->n; k++) /* unknown entries sit between measured ones that differ */
    if (!find(&a->rows[0], l->s[k]) && (k == 0 || k + 1 == l->n)) want(a, 0, l->s[k], false);
  for (uint32_t k = 0, prev = UINT32_MAX; k < l->n; k++) {
    if (!find(&a->rows[0], l->s[k])) continue;
    if (prev != UINT32_MAX && k > prev + 1 && find(&a->rows[0], l->s[prev])->pt.P != find(&a->rows[0], l->s[k])->pt.P)
      want(a, 0, l->s[(prev + k) / 2], false);
    prev = k;
  }
  want(a, a->nw - 1, a->lad[0], false);
  for (uint32_t i = 0, prev = UINT32_MAX; i < a->nw; i++) {
    const meas *m = find(&a->rows[i], a->lad[0]);
    if (!m) continue;
    if (prev != UINT32_MAX && i > prev + 1 && find(&a->rows[prev], a->lad[0])->pt.P != m->pt.P)
      want(a, (prev + i) / 2, a->lad[0], false);
    prev = i;
  }
}

static void mark_full_col(ad *a, uint32_t s) {
  if (col_is_full(a, s)) return;
  util_array_room(a->col_full, a->ncol_full, a->col_cap, 8);
  a->col_full[a->ncol_full++] = s;
  a->st.full_columns++;
}

/* Every unmeasured point of the current point sets that must be: unknown values, full rows and columns. */
static void want_unknown(ad *a, list_t *l) {
  for (uint32_t i = 0; i < a->nw; i++) {
    build_row(a, i, l);
    for (uint32_t k = 0; k < l->n; k++)
      if (!l->v[k]) want(a, i, l->s[k], false);
  }
}

/* Compares measured checks with their predictions; a disagreement is measured again with its axis
 * points, and one that stands makes its row and column full. Returns via *more whether anything changed. */
static vkocc_status settle(ad *a, const vkocc_surface_point *done, const uint32_t *pred, uint32_t n, bool *more) {
  util_array susa = VKOCC_ARRAY_INIT;
  /* a full row is measured whole already: its disagreements say nothing new */
  for (uint32_t k = 0; k < n; k++)
    if (pred[k] && done[k].P != pred[k] && !a->row_full[row_of(a, done[k].wg_size)])
      util_array_append(&susa, vkocc_surface_point, done[k]);
  uint32_t ns = (uint32_t)util_array_num(&susa, vkocc_surface_point);
  vkocc_surface_point *sus = util_array_steal(&susa);
  *more = false;
  if (!ns) { free(sus); return VKOCC_OK; }
  a->st.disagreements += ns;
  a->nwant = 0;
  for (uint32_t k = 0; k < ns; k++) {
    uint32_t i = row_of(a, sus[k].wg_size);
    want(a, i, sus[k].shared_bytes, true);
    want(a, i, a->lad[0], true);
    want(a, 0, sus[k].shared_bytes, true);
  }
  vkocc_status s = run_batch(a, NULL);
  a->nwant = 0;
  for (uint32_t k = 0; k < ns && !s; k++) {
    uint32_t i = row_of(a, sus[k].wg_size);
    /* the prediction now, from re-measured axes, against the point's second measurement */
    const meas *m = find(&a->rows[i], sus[k].shared_bytes);
    if (m && m->pt.P == model(a, i, sus[k].shared_bytes)) continue; /* the first measurement was noise */
    a->st.confirmed++;
    if (!a->row_full[i]) a->row_full[i] = true, a->st.full_rows++;
    mark_full_col(a, sus[k].shared_bytes);
  }
  *more = true;
  free(sus);
  return s;
}

vkocc_status vkocc_surface_adaptive(const vkocc_adaptive_options *o, vkocc_points_fn fn, void *user,
                                    vkocc_surface_point **points, uint32_t *count, vkocc_adaptive_stats *stats) {
  *points = NULL;
  *count = 0;
  if (!o->wg_count || !o->shared_count) return vkocc_fail(VKOCC_ERROR_USAGE, "the surface grid is empty");
  for (uint32_t i = 1; i < o->wg_count; i++)
    if (o->wg_sizes[i] <= o->wg_sizes[i - 1]) return vkocc_fail(VKOCC_ERROR_USAGE, "workgroup sizes not ascending");
  for (uint32_t i = 1; i < o->shared_count; i++)
    if (o->shared[i] <= o->shared[i - 1]) return vkocc_fail(VKOCC_ERROR_USAGE, "shared sizes not ascending");
  ad a = {.wg = o->wg_sizes, .lad = o->shared, .nw = o->wg_count, .nl = o->shared_count,
          .step = o->refine_bytes ? o->refine_bytes : 512, .refine = !o->no_refine, .fn = fn, .user = user};
  a.rows = util_xcalloc(a.nw, sizeof *a.rows);
  a.row_full = util_xcalloc(a.nw, sizeof *a.row_full);
  list_t l = {0};
  vkocc_status s = VKOCC_OK;
  bool everything = o->checks == UINT32_MAX;
  if (everything) for (uint32_t i = 0; i < a.nw; i++) a.row_full[i] = true;

  /* 1. the axes, by bisection (a round per level); the largest P first, alone: it bounds every other */
  if (!everything) {
    want(&a, 0, a.lad[0], false);
    s = run_batch(&a, NULL);
  }
  for (int guard = 0; !s && !everything && guard < 10000; guard++) {
    a.nwant = 0;
    want_axes(&a, &l);
    if (!a.nwant) break;
    s = run_batch(&a, NULL);
  }

  /* 2. checks: both sides of each row's first step below its s0 value, and a spread sample */
  if (!s && !everything) {
    a.nwant = 0;
    uint32_t groups = 1;
    for (uint32_t i = 1; i < a.nw; i++) groups += axis_A(&a, i) != axis_A(&a, i - 1);
    uint32_t budget = o->checks ? o->checks : groups + a.nl - 1, used = 0;
    for (uint32_t i = 1; i < a.nw; i++) {
      build_row(&a, i, &l);
      for (uint32_t k = 1; k < l.n; k++)
        if (l.v[k] && l.v[0] && l.v[k] < l.v[0]) { want(&a, i, l.s[k - 1], false); want(&a, i, l.s[k], false); break; }
    }
    /* the sample: rows with the same P at s0 are alike under the model, so each such group gets one check
     * (its middle row, at a column that moves from group to group), then every ladder column one */
    for (uint32_t i = 0, g = 0; i < a.nw && used < budget; g++) {
      uint32_t j = i, A = axis_A(&a, i);
      while (j + 1 < a.nw && axis_A(&a, j + 1) == A) j++;
      uint32_t r = (i + j) / 2;
      build_row(&a, r, &l);
      for (uint32_t t = 0; t < l.n; t++) {
        uint32_t k = (uint32_t)(((uint64_t)g * 7 + 1 + t) % l.n);
        bool m;
        value(&a, r, l.s[k], &m);
        if (!m && !wanted(&a, a.wg[r], l.s[k])) { want(&a, r, l.s[k], false); used++; break; }
      }
      i = j + 1;
    }
    for (uint32_t j = 1; j < a.nl && used < budget; j++) {
      for (uint32_t t = 0; t < a.nw; t++) {
        uint32_t i = (uint32_t)(((uint64_t)j * 40503u + t) % a.nw);
        bool m;
        value(&a, i, a.lad[j], &m);
        if (!m && !wanted(&a, a.wg[i], a.lad[j])) { want(&a, i, a.lad[j], false); used++; break; }
      }
    }
  }

  /* 3. measure what is queued and whatever must be (unknown values, full rows and columns), settle the
   * disagreements, until nothing changes */
  for (int guard = 0; !s && guard < 10000; guard++) {
    if (guard > 0 || everything) a.nwant = 0;
    want_unknown(&a, &l);
    for (uint32_t c = 0; c < a.ncol_full; c++)
      for (uint32_t i = 0; i < a.nw; i++) {
        build_row(&a, i, &l);
        for (uint32_t k = 0; k < l.n; k++)
          if (l.s[k] == a.col_full[c]) want(&a, i, l.s[k], false);
      }
    if (!a.nwant) break;
    uint32_t *pred = NULL, n = a.nwant;
    s = run_batch(&a, &pred);
    vkocc_surface_point *done = s ? NULL : util_xmalloc(n * sizeof *done);
    if (done) memcpy(done, a.want, n * sizeof *done);
    bool more = false;
    if (!s) s = settle(&a, done, pred, n, &more);
    free(done);
    free(pred);
  }

  /* 4. the result: every row's point set, measured or predicted */
  util_array outa = VKOCC_ARRAY_INIT;
  for (uint32_t i = 0; i < a.nw && !s; i++) {
    build_row(&a, i, &l);
    for (uint32_t k = 0; k < l.n; k++) {
      const meas *m = find(&a.rows[i], l.s[k]);
      vkocc_surface_point p = m ? m->pt
                                : (vkocc_surface_point){.wg_size = a.wg[i], .shared_bytes = l.s[k], .P = l.v[k],
                                                        .agree = true, .predicted = true};
      p.refined = l.refined[k];
      if (m) a.st.measured++;
      util_array_append(&outa, vkocc_surface_point, p);
      (*count)++;
    }
  }
  vkocc_surface_point *out = util_array_steal(&outa);
  a.st.points = *count;
  if (stats) *stats = a.st;
  for (uint32_t i = 0; i < a.nw; i++) free(a.rows[i].m);
  free(a.rows); free(a.row_full); free(a.col_full); free(a.want);
  free(l.s); free(l.v); free(l.refined);
  if (s) { free(out); *count = 0; return s; }
  *points = out;
  return VKOCC_OK;
}
