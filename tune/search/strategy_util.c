/* What the search strategies share (strategy_util.h). */
#include "strategy_util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_coord(const uint32_t *c, uint32_t np) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (uint32_t i = 0; i < np; i++) {
    h ^= c[i] + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  return h ^ (h >> 33);
}

void tune_nbr_init(tune_nbr *nb, const tune_space *s) {
  memset(nb, 0, sizeof *nb);
  nb->s = s;
  uint32_t np = s->nparams, cap = 16;
  while (cap < 2u * s->nconfigs + 16) cap *= 2;
  nb->mask = cap - 1;
  nb->table = util_xmalloc((size_t)cap * sizeof *nb->table);
  memset(nb->table, 0xff, (size_t)cap * sizeof *nb->table);
  for (uint32_t c = 0; c < s->nconfigs; c++) {
    uint32_t h = (uint32_t)hash_coord(s->coord + (size_t)c * np, np) & nb->mask;
    while (nb->table[h] != UINT32_MAX) h = (h + 1) & nb->mask;
    nb->table[h] = c;
  }
  nb->start = util_xcalloc(np ? np : 1, sizeof *nb->start);
  nb->member = util_xcalloc(np ? np : 1, sizeof *nb->member);
  for (uint32_t p = 0; p < np; p++) {
    uint32_t nv = s->nvalues[p];
    uint32_t *st = util_xcalloc((size_t)nv + 2, sizeof *st), *m = util_xmalloc((size_t)(s->nconfigs ? s->nconfigs : 1) * sizeof *m);
    for (uint32_t c = 0; c < s->nconfigs; c++) {
      uint32_t v = s->coord[(size_t)c * np + p];
      st[(v < nv ? v : nv) + 1]++;
    }
    for (uint32_t v = 0; v <= nv; v++) st[v + 1] += st[v];
    uint32_t *fill = util_xmalloc(((size_t)nv + 1) * sizeof *fill);
    memcpy(fill, st, ((size_t)nv + 1) * sizeof *fill);
    for (uint32_t c = 0; c < s->nconfigs; c++) {
      uint32_t v = s->coord[(size_t)c * np + p];
      m[fill[v < nv ? v : nv]++] = c;
    }
    free(fill);
    nb->start[p] = st, nb->member[p] = m;
  }
}

void tune_nbr_free(tune_nbr *nb) {
  if (nb->s)
    for (uint32_t p = 0; p < nb->s->nparams; p++) free(nb->start[p]), free(nb->member[p]);
  free(nb->start), free(nb->member), free(nb->table);
  memset(nb, 0, sizeof *nb);
}

int64_t tune_nbr_find(const tune_nbr *nb, const uint32_t *coord) {
  const tune_space *s = nb->s;
  uint32_t np = s->nparams, h = (uint32_t)hash_coord(coord, np) & nb->mask;
  for (; nb->table[h] != UINT32_MAX; h = (h + 1) & nb->mask)
    if (!memcmp(s->coord + (size_t)nb->table[h] * np, coord, np * sizeof *coord)) return nb->table[h];
  return -1;
}

/* distance over every parameter but `except` (UINT32_MAX: none) */
static double dist(const tune_space *s, const uint32_t *a, const uint32_t *b, uint32_t except) {
  double d = 0;
  for (uint32_t q = 0; q < s->nparams; q++)
    if (q != except && a[q] != b[q])
      d += fabs((double)a[q] - (double)b[q]) / (double)(s->nvalues[q] > 1 ? s->nvalues[q] - 1 : 1);
  return d;
}

#define SCAN_MAX 8192u /* members looked at by one fallback or nearest search (a stride beyond that) */

int64_t tune_nbr_step(const tune_nbr *nb, uint32_t c, uint32_t p, int dir) {
  const tune_space *s = nb->s;
  uint32_t np = s->nparams, nv = s->nvalues[p];
  const uint32_t *cc = s->coord + (size_t)c * np;
  uint32_t buf[64], *coord = np <= 64 ? buf : util_xmalloc(np * sizeof *coord);
  memcpy(coord, cc, np * sizeof *coord);
  int64_t found = -1;
  for (int64_t w = (int64_t)cc[p] + dir; w >= 0 && w < (int64_t)nv; w += dir) {
    const uint32_t *st = nb->start[p];
    uint32_t lo = st[w], hi = st[w + 1];
    if (lo == hi) continue;
    coord[p] = (uint32_t)w;
    if ((found = tune_nbr_find(nb, coord)) >= 0) break;
    uint32_t cnt = hi - lo, stride = cnt > SCAN_MAX ? cnt / SCAN_MAX : 1;
    double bd = INFINITY;
    for (uint32_t i = lo; i < hi; i += stride) {
      uint32_t m = nb->member[p][i];
      double d = dist(s, s->coord + (size_t)m * np, cc, p);
      if (d < bd || (d == bd && m < found)) bd = d, found = m;
    }
    break;
  }
  if (coord != buf) free(coord);
  return found;
}

uint32_t tune_nbr_list(const tune_nbr *nb, uint32_t c, uint32_t *out) {
  uint32_t k = 0;
  for (uint32_t p = 0; p < nb->s->nparams; p++)
    for (int dir = -1; dir <= 1; dir += 2) {
      int64_t m = tune_nbr_step(nb, c, p, dir);
      if (m < 0 || (uint32_t)m == c) continue;
      bool dup = false;
      for (uint32_t i = 0; i < k && !dup; i++) dup = out[i] == (uint32_t)m;
      if (!dup) out[k++] = (uint32_t)m;
    }
  return k;
}

int64_t tune_nbr_nearest(const tune_nbr *nb, const uint32_t *coord, const uint8_t *skip) {
  const tune_space *s = nb->s;
  uint32_t n = s->nconfigs, stride = n > 8 * SCAN_MAX ? n / (8 * SCAN_MAX) : 1;
  int64_t best = -1;
  double bd = INFINITY;
  for (uint32_t c = 0; c < n; c += stride) {
    if (skip && skip[c]) continue;
    double d = dist(s, s->coord + (size_t)c * s->nparams, coord, UINT32_MAX);
    if (d < bd) bd = d, best = c;
  }
  return best;
}

void tune_track_init(tune_track *t, uint32_t n) {
  memset(t, 0, sizeof *t);
  t->n = n;
  t->seen = util_xcalloc(n ? n : 1, 1);
  t->y = util_xmalloc((size_t)(n ? n : 1) * sizeof *t->y);
  for (uint32_t i = 0; i < n; i++) t->y[i] = NAN;
  t->best = -1, t->best_y = INFINITY;
}
void tune_track_free(tune_track *t) {
  free(t->seen), free(t->y);
  memset(t, 0, sizeof *t);
}
void tune_track_propose(tune_track *t, uint32_t c) {
  if (c < t->n && !t->seen[c]) t->seen[c] = 1, t->nseen++;
}
void tune_track_observe(tune_track *t, uint32_t c, tune_eval e) {
  if (c >= t->n) return;
  if (!t->seen[c]) t->seen[c] = 1, t->nseen++;
  if (isnan(t->y[c])) t->nobs++;
  t->y[c] = e.valid && e.time_ns > 0 && isfinite(e.time_ns) ? log(e.time_ns) : INFINITY;
  if (t->y[c] < t->best_y) t->best_y = t->y[c], t->best = c;
}

int64_t tune_random_unseen(const tune_track *t, tune_rng *r) {
  if (t->nseen >= t->n) return -1;
  for (int i = 0; i < 64; i++) {
    uint32_t c = tune_rng_below(r, t->n);
    if (!t->seen[c]) return c;
  }
  uint32_t start = tune_rng_below(r, t->n);
  for (uint32_t i = 0; i < t->n; i++) {
    uint32_t c = (start + i) % t->n;
    if (!t->seen[c]) return c;
  }
  return -1;
}

uint32_t tune_design(const tune_space *s, const tune_track *t, tune_rng *r, uint32_t k, uint32_t *out) {
  uint32_t n = s->nconfigs, got = 0;
  if (!n || !k) return 0;
  tune_track tmp; /* seen, plus what the design has taken */
  tmp.n = n, tmp.nseen = t->nseen;
  tmp.seen = util_xmalloc(n);
  memcpy(tmp.seen, t->seen, n);
  if (s->prior_weight) {
    while (got < k) {
      double total = 0;
      for (uint32_t c = 0; c < n; c++)
        if (!tmp.seen[c] && s->prior_weight[c] > 0) total += s->prior_weight[c];
      int64_t pick = -1;
      if (total > 0) {
        double u = tune_rng_uniform(r) * total, acc = 0;
        for (uint32_t c = 0; c < n && pick < 0; c++)
          if (!tmp.seen[c] && s->prior_weight[c] > 0 && (acc += s->prior_weight[c]) > u) pick = c;
        if (pick < 0) /* rounding: the last one with weight */
          for (uint32_t c = n; c-- > 0 && pick < 0;)
            if (!tmp.seen[c] && s->prior_weight[c] > 0) pick = c;
      } else {
        pick = tune_random_unseen(&tmp, r);
      }
      if (pick < 0) break;
      tmp.seen[pick] = 1, tmp.nseen++, out[got++] = (uint32_t)pick;
    }
  } else {
    while (got < k) {
      int64_t c = tune_random_unseen(&tmp, r);
      if (c < 0) break;
      tmp.seen[c] = 1, tmp.nseen++, out[got++] = (uint32_t)c;
    }
  }
  free(tmp.seen);
  return got;
}

int64_t tune_design_next(const tune_space *s, tune_track *t, tune_rng *r, uint64_t budget, uint32_t size,
                         uint32_t **design, uint32_t *ndesign, uint32_t *next) {
  if (!*design) {
    uint64_t k64 = budget / 50 < 6 ? 6 : budget / 50 > 16 ? 16 : budget / 50;
    uint32_t k = size ? size : (uint32_t)(k64 < budget ? k64 : budget);
    *design = util_xmalloc((size_t)(k ? k : 1) * sizeof **design);
    *ndesign = tune_design(s, t, r, k, *design);
  }
  while (*next < *ndesign) {
    uint32_t c = (*design)[(*next)++];
    if (t->seen[c]) continue;
    tune_track_propose(t, c);
    return c;
  }
  return -1;
}

uint32_t tune_ask_each(void *st, uint32_t max, uint32_t *out, int64_t (*one)(void *st)) {
  uint32_t k = 0;
  for (int64_t c; k < max && (c = one(st)) >= 0;) out[k++] = (uint32_t)c;
  return k;
}
