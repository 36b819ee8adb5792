/* Per-SM limits from a surface alone. For each candidate SM count n (values that divide at least half
 * of the points), the per-SM values p = P / n are explained by
 *     p = min(W, floor(S / ceil(wg / sg)), floor(M / s))      (last term only for s > 0)
 * W is the most common largest value; S and M are the values consistent with the most points limited
 * by them (interval voting); the candidate that reproduces the most points exactly wins, ties going
 * to the larger SM count. Nothing here knows a vendor. See docs/model.md.
 * Cost: the candidates are the divisors of the P values (not every count up to the largest P), each fit
 * is O(n log n) (sorts, sweeps, a segment tree) and fits that cannot beat the best one are cut short, so
 * the time follows neither the size of the values nor the square of the number of points. */
#include "util.h"
#include "model.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint64_t lo, hi; } interval;



/* ceil(a / b) without the overflow of (a + b - 1) / b */
static uint32_t ceil_div(uint32_t a, uint32_t b) { return a / b + (a % b != 0); }

static uint32_t clamp32(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

/* Interval voting: the value covered by the most intervals, [lo, hi] of the first (lowest) best region.
 * The coverage is highest at some interval start, and at the first best start x every interval covering x
 * starts at or before it, so lo = x and hi = the smallest end among those intervals. The starts and the
 * ends sorted apart, then one sweep: O(n log n). */
static uint32_t vote(const interval *iv, uint32_t n, uint64_t *lo, uint64_t *hi) {
  if (!n) return 0;
  uint64_t *st = util_xmalloc(n * sizeof *st), *en = util_xmalloc(n * sizeof *en), x = 0, h = UINT64_MAX;
  for (uint32_t i = 0; i < n; i++) st[i] = iv[i].lo, en[i] = iv[i].hi;
  qsort(st, n, sizeof *st, util_cmp_u64);
  qsort(en, n, sizeof *en, util_cmp_u64);
  uint32_t best = 0;
  for (uint32_t a = 0, ended = 0; a < n; a++) { /* coverage at st[a]: starts <= it minus ends below it */
    while (ended < n && en[ended] < st[a]) ended++;
    if (a + 1 - ended > best) best = a + 1 - ended, x = st[a];
  }
  for (uint32_t i = 0; i < n; i++)
    if (iv[i].lo <= x && x <= iv[i].hi && iv[i].hi < h) h = iv[i].hi;
  free(st);
  free(en);
  *lo = x;
  *hi = h;
  return best;
}

static uint32_t model_p(uint32_t W, uint32_t S, uint64_t M, bool m_binds, uint32_t sg, uint32_t wg, uint32_t s,
                        uint32_t *binding) {
  uint32_t k = ceil_div(wg, sg ? sg : 1);
  uint64_t a = W, b = S / k, c = (s > 0 && m_binds) ? M / s : UINT64_MAX;
  uint64_t m = a < b ? a : b;
  if (c < m) m = c;
  if (binding) *binding = (a == m ? VKOCC_LIMIT_WORKGROUPS : 0) | (b == m ? VKOCC_LIMIT_SUBGROUPS : 0) |
                          (c == m ? VKOCC_LIMIT_SHARED : 0);
  return (uint32_t)m;
}

/* The per-point data of one fit (one SM count, one subgroup size). */
typedef struct {
  uint32_t W;
  /* M: points with shared memory below the other two limits are limited by it: M in [p s, (p + 1) s - 1].
   * "Below the subgroup limit" is p < floor(S / k), i.e. S >= (p + 1) k: the interval's key. */
  interval *miv;
  uint64_t *mkey;
  uint32_t nm;
  uint64_t Mlow;
  /* the usable points as bounds, so that a candidate is checked without a division:
   * floor(S / k) == p  <=>  p k <= S < (p + 1) k, and the same for M and s (ps1 0: no shared memory) */
  struct bounds { uint64_t pk, pk1, ps, ps1; uint32_t p; } *b;
  uint32_t nb;
} fitdata;

/* M votes for increasing S. The M intervals enter in order of key (once S >= key); a segment tree over
 * their distinct starts holds the coverage of each start (node value = its pending add + the larger
 * child); the vote is the leftmost start of highest coverage, as vote() finds it. O(log n) per interval
 * and per query instead of a sweep over all intervals for every S candidate. */
typedef struct {
  uint32_t nl, next;
  uint64_t *leaf;        /* distinct starts, ascending */
  int32_t *mx, *add;     /* 4 nl nodes */
  uint32_t *by_key, *l, *r;
} mtree;

static void st_add(mtree *t, uint32_t node, uint32_t nl, uint32_t nr, uint32_t l, uint32_t r) {
  if (r < nl || nr < l) return;
  if (l <= nl && nr <= r) { t->mx[node]++, t->add[node]++; return; }
  uint32_t mid = nl + (nr - nl) / 2;
  st_add(t, 2 * node, nl, mid, l, r);
  st_add(t, 2 * node + 1, mid + 1, nr, l, r);
  int32_t a = t->mx[2 * node], b = t->mx[2 * node + 1];
  t->mx[node] = t->add[node] + (a > b ? a : b);
}

static uint32_t lower_u64(const uint64_t *v, uint32_t n, uint64_t x) { /* first index with v >= x */
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void mtree_init(mtree *t, const fitdata *f) {
  memset(t, 0, sizeof *t);
  uint32_t m = f->nm;
  t->leaf = util_xmalloc((m + 1) * sizeof *t->leaf);
  for (uint32_t i = 0; i < m; i++) t->leaf[i] = f->miv[i].lo;
  qsort(t->leaf, m, sizeof *t->leaf, util_cmp_u64);
  for (uint32_t i = 0; i < m; i++)
    if (!t->nl || t->leaf[t->nl - 1] != t->leaf[i]) t->leaf[t->nl++] = t->leaf[i];
  t->mx = util_xcalloc(4 * (size_t)t->nl + 4, sizeof *t->mx);
  t->add = util_xcalloc(4 * (size_t)t->nl + 4, sizeof *t->add);
  t->l = util_xmalloc((m + 1) * sizeof *t->l);
  t->r = util_xmalloc((m + 1) * sizeof *t->r);
  for (uint32_t i = 0; i < m; i++) {
    t->l[i] = lower_u64(t->leaf, t->nl, f->miv[i].lo);
    uint32_t e = lower_u64(t->leaf, t->nl, f->miv[i].hi);
    t->r[i] = e < t->nl && t->leaf[e] == f->miv[i].hi ? e : e - 1; /* the last start <= hi */
  }
  /* intervals by key: (key, index) pairs */
  uint64_t *kp = util_xmalloc((m + 1) * sizeof *kp * 2);
  t->by_key = util_xmalloc((m + 1) * sizeof *t->by_key);
  for (uint32_t i = 0; i < m; i++) kp[2 * i] = f->mkey[i], kp[2 * i + 1] = i;
  qsort(kp, m, 2 * sizeof *kp, util_cmp_u64);
  for (uint32_t i = 0; i < m; i++) t->by_key[i] = (uint32_t)kp[2 * i + 1];
  free(kp);
}

static void mtree_free(mtree *t) {
  free(t->leaf), free(t->mx), free(t->add), free(t->by_key), free(t->l), free(t->r);
}

/* The M vote with every interval of key <= S: like vote(), lo = the first best start; hi is left to
 * min_hi(), needed only for the winner. */
static bool mtree_vote(mtree *t, const fitdata *f, uint64_t S, uint64_t *lo) {
  while (t->next < f->nm && f->mkey[t->by_key[t->next]] <= S) {
    uint32_t i = t->by_key[t->next++];
    st_add(t, 1, 0, t->nl - 1, t->l[i], t->r[i]);
  }
  *lo = f->Mlow;
  if (!t->nl || t->mx[1] <= 0) return false;
  uint32_t node = 1, nl = 0, nr = t->nl - 1;
  int32_t want = t->mx[1];
  while (nl < nr) {
    want -= t->add[node];
    uint32_t mid = nl + (nr - nl) / 2;
    if (t->mx[2 * node] == want) node = 2 * node, nr = mid;
    else node = 2 * node + 1, nl = mid + 1;
  }
  *lo = t->leaf[nl];
  return true;
}

/* The smallest end among the intervals of key <= S that contain x: the top of the voted range. */
static uint64_t min_hi(const fitdata *f, uint64_t S, uint64_t x) {
  uint64_t h = UINT64_MAX;
  for (uint32_t i = 0; i < f->nm; i++)
    if (f->mkey[i] <= S && f->miv[i].lo <= x && x <= f->miv[i].hi && f->miv[i].hi < h) h = f->miv[i].hi;
  return h;
}

/* The points for which model_p(W, S, M, m_binds) == p: min(W, floor(S / k), floor(M / s)) equals p when p
 * is at most each term and equal to one of them. */
/* Stops early once fewer than `need` can be reached: then the count returned is below need too. */
static uint32_t count_explained(const fitdata *f, uint32_t S, uint64_t M, bool m_binds, uint32_t need) {
  uint32_t c = 0;
  for (uint32_t i = 0; i < f->nb; i++) {
    const struct bounds *b = &f->b[i];
    bool m = m_binds && b->ps1;
    c += b->p <= f->W && b->pk <= S && (!m || b->ps <= M) &&
         (b->p == f->W || S < b->pk1 || (m && M < b->ps1));
    if (c + (f->nb - i - 1) < need) return c;
  }
  return c;
}

typedef struct { uint64_t v; uint32_t pos; } end_pos;
static int cmp_end(const void *a, const void *b) { return util_cmp_u64(&((const end_pos *)a)->v, &((const end_pos *)b)->v); }

/* The distinct P > 0 of the surface, decreasing, with how often each occurs. */
typedef struct { uint32_t P, times; } pval;

/* Fits W, S, M for one SM count and subgroup size; returns the number of points explained, or -1 when it is
 * below `need` (a fit that cannot win nor tie is not finished). */

static int64_t fit(const vkocc_surface_point *pt, uint32_t n, const pval *pv, uint32_t npv, uint32_t sms, uint32_t sg,
                   uint32_t need, vkocc_derived *d) {
  memset(d, 0, sizeof *d);
  d->sm_count = sms;
  d->subgroup_size = sg;
  uint32_t *p = util_xmalloc((n + 1) * sizeof *p), *k = util_xmalloc((n + 1) * sizeof *k);
  bool *ok = util_xmalloc((n + 1) * sizeof *ok);
  uint32_t nok = 0;
  for (uint32_t i = 0; i < n; i++) {
    ok[i] = pt[i].P > 0 && pt[i].P % sms == 0;
    p[i] = ok[i] ? pt[i].P / sms : 0;
    k[i] = ceil_div(pt[i].wg_size, sg);
    nok += ok[i];
  }
  /* W: the largest per-SM value that at least two points share (one point alone may be noise), else the
   * largest one */
  uint32_t W = 0, Wany = 0;
  for (uint32_t i = 0; i < npv && !W; i++)
    if (pv[i].P % sms == 0) {
      if (!Wany) Wany = pv[i].P / sms;
      if (pv[i].times >= 2) W = pv[i].P / sms;
    }
  if (!W) W = Wany;
  fitdata f = {.W = W};
  f.b = util_xmalloc((nok + 1) * sizeof *f.b);
  for (uint32_t i = 0; i < n; i++) {
    if (!ok[i]) continue;
    uint64_t s = pt[i].shared_bytes;
    f.b[f.nb++] = (struct bounds){(uint64_t)p[i] * k[i], ((uint64_t)p[i] + 1) * k[i], p[i] * s, ((uint64_t)p[i] + 1) * s, p[i]};
  }
  /* S: points without shared memory and below W are limited by subgroups: S in [p k, (p+1) k - 1] */
  interval *iv = util_xmalloc((n + 1) * sizeof *iv);
  uint32_t ni = 0;
  uint64_t Slow = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!ok[i]) continue;
    if (pt[i].shared_bytes == 0 && p[i] < W) iv[ni++] = (interval){(uint64_t)p[i] * k[i], ((uint64_t)p[i] + 1) * k[i] - 1};
    if ((uint64_t)p[i] * k[i] > Slow) Slow = (uint64_t)p[i] * k[i];
  }
  uint64_t Slo = Slow, Shi = UINT64_MAX;
  if (vote(iv, ni, &Slo, &Shi)) d->subgroups_bound_seen = true;
  if (Slo < Slow && !d->subgroups_bound_seen) Slo = Slow;
  /* Voting can be swung by one noisy interval on a small grid: also try each distinct interval end as S
   * (in order of first appearance, so the first best one wins as before) and keep the value whose whole
   * model (with M voted for it) reproduces the most points. */
  uint64_t *ends = util_xmalloc((2 * (size_t)ni + 1) * sizeof *ends);
  uint32_t ne = 0;
  for (uint32_t i = 0; i < ni; i++) {
    ends[ne++] = iv[i].lo;
    ends[ne++] = iv[i].hi;
  }
  /* distinct values, each at its first position: sort (value, position) pairs; the initial S joins them
   * (position ne) so that one sweep in increasing S answers every M vote */
  end_pos *e = util_xmalloc((ne + 2) * sizeof *e);
  for (uint32_t i = 0; i < ne; i++) e[i] = (end_pos){ends[i], i};
  free(ends);
  e[ne] = (end_pos){clamp32(Slo), ne};
  qsort(e, ne + 1, sizeof *e, cmp_end); /* by value; equal values in any order */
  uint32_t nd = 0;
  for (uint32_t i = 0; i <= ne; i++) {
    if (nd && e[nd - 1].v == e[i].v) { if (e[i].pos < e[nd - 1].pos) e[nd - 1].pos = e[i].pos; continue; }
    e[nd++] = e[i];
  }
  /* Whatever M is, a point is explained only if p <= W, p <= floor(S / k) and p equals W, floor(S / k) or
   * (with shared memory) possibly floor(M / s): when no S candidate reaches need by this bound, the fit
   * cannot matter and the M votes are not built. */
  bool reach = need == 0;
  for (uint32_t i = 0; i < nd && e[i].v <= UINT32_MAX && !reach; i++) {
    uint32_t c = 0, S = (uint32_t)e[i].v;
    for (uint32_t j = 0; j < f.nb && c + (f.nb - j) >= need; j++) {
      const struct bounds *b = &f.b[j];
      c += b->p <= W && b->pk <= S && (b->ps1 || b->p == W || S < b->pk1);
    }
    reach = c >= need;
  }
  if (!reach) {
    free(e), free(iv), free(f.b), free(p), free(k), free(ok);
    return -1;
  }
  f.miv = util_xmalloc((n + 1) * sizeof *f.miv);
  f.mkey = util_xmalloc((n + 1) * sizeof *f.mkey);
  for (uint32_t i = 0; i < n; i++) {
    if (!ok[i] || pt[i].shared_bytes == 0) continue;
    uint64_t s = pt[i].shared_bytes;
    if (p[i] < W) {
      f.miv[f.nm] = (interval){p[i] * s, ((uint64_t)p[i] + 1) * s - 1};
      f.mkey[f.nm++] = ((uint64_t)p[i] + 1) * k[i];
    }
    if (p[i] * s > f.Mlow) f.Mlow = p[i] * s;
  }
  /* Counts below the best so far (or below need) cannot matter: they are cut short and marked invalid. */
  struct res { uint64_t M; uint32_t c; bool binds, valid; } *res = util_xcalloc(ne + 1, sizeof *res), r0 = {0};
  uint32_t maxc = 0;
  /* a few S candidates (often only the voted one): a direct vote each is cheaper than the tree */
  bool direct = nd <= 4;
  mtree t;
  interval *sub = direct ? util_xmalloc((f.nm + 1) * sizeof *sub) : NULL;
  if (!direct) mtree_init(&t, &f);
  for (uint32_t i = 0; i < nd && e[i].v <= UINT32_MAX; i++) {
    struct res r = {0};
    uint32_t thr = maxc > need ? maxc : need;
    if (direct) {
      uint32_t ns = 0;
      for (uint32_t j = 0; j < f.nm; j++)
        if (f.mkey[j] <= e[i].v) sub[ns++] = f.miv[j];
      uint64_t hi;
      r.M = f.Mlow;
      r.binds = vote(sub, ns, &r.M, &hi) > 0;
    } else {
      r.binds = mtree_vote(&t, &f, e[i].v, &r.M);
    }
    r.c = count_explained(&f, (uint32_t)e[i].v, r.M, r.binds, thr);
    r.valid = r.c >= thr;
    if (r.valid && r.c > maxc) maxc = r.c;
    res[e[i].pos] = r;
    if (e[i].v == clamp32(Slo)) r0 = r; /* the initial S (it may share its value with a candidate) */
  }
  if (direct) free(sub);
  else mtree_free(&t);
  free(e);
  /* One by one in order of first appearance, the first candidate that explains more than the voted S would
   * win: the first with the highest count, if that is above the voted S's. */
  uint64_t Mlo = r0.M, Mhi;
  bool m_binds = r0.binds, improved = false;
  if (!r0.valid || r0.c < maxc) {
    for (uint32_t q = 0; q < ne && !improved; q++) {
      if (!res[q].valid || res[q].c != maxc) continue;
      Slo = q % 2 ? iv[q / 2].hi : iv[q / 2].lo, Mlo = res[q].M, m_binds = res[q].binds;
      improved = true;
    }
  }
  free(res);
  if (!improved && !r0.valid) { /* nothing reached need */
    free(iv), free(f.b), free(f.miv), free(f.mkey), free(p), free(k), free(ok);
    return -1;
  }
  Mhi = m_binds ? min_hi(&f, clamp32(Slo), Mlo) : UINT64_MAX;
  if (improved) { /* the consistent range of S: the intersection of the intervals that contain it */
    Shi = UINT64_MAX;
    for (uint32_t j = 0; j < ni; j++)
      if (iv[j].lo <= Slo && Slo <= iv[j].hi && iv[j].hi < Shi) Shi = iv[j].hi;
  }
  free(iv);
  uint32_t S = clamp32(Slo);
  d->wg_per_sm = W;
  d->subgroups_per_sm = S;
  d->subgroups_per_sm_max = d->subgroups_bound_seen ? clamp32(Shi) : UINT32_MAX;
  d->threads_per_sm = clamp32((uint64_t)S * sg);
  d->shared_bound_seen = m_binds;
  d->shared_per_sm = clamp32(Mlo);
  d->shared_per_sm_max = m_binds ? clamp32(Mhi) : UINT32_MAX;
  d->total = n;
  for (uint32_t i = 0; i < n; i++) {
    bool good = ok[i] && model_p(W, S, Mlo, m_binds, sg, pt[i].wg_size, pt[i].shared_bytes, NULL) == p[i];
    if (good) d->explained++;
    else if (d->n_unexplained < VKOCC_MAX_UNEXPLAINED) d->unexplained[d->n_unexplained++] = i;
  }
  free(f.b);
  free(f.miv);
  free(f.mkey);
  free(p);
  free(k);
  free(ok);
  return d->explained;
}

/* ---- SM count candidates: the divisors of the P values that divide at least half of the usable points */

typedef struct { uint32_t *key, *count; uint32_t cap, used; } counter; /* open addressing, key 0 = empty */

static void counter_add(counter *c, uint32_t key, uint32_t add);

static void counter_grow(counter *c) {
  counter old = *c;
  c->cap = old.cap ? old.cap * 2 : 1024;
  c->used = 0;
  c->key = util_xcalloc(c->cap, sizeof *c->key);
  c->count = util_xcalloc(c->cap, sizeof *c->count);
  for (uint32_t i = 0; i < old.cap; i++)
    if (old.key[i]) counter_add(c, old.key[i], old.count[i]);
  free(old.key);
  free(old.count);
}

static void counter_add(counter *c, uint32_t key, uint32_t add) {
  if (2 * (c->used + 1) > c->cap) counter_grow(c);
  uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (c->cap - 1);
  while (c->key[h] && c->key[h] != key) h = (h + 1) & (c->cap - 1);
  if (!c->key[h]) c->key[h] = key, c->used++;
  c->count[h] += add;
}

/* Every divisor of v (v >= 1) from its factorization by the primes up to sqrt(v): at most 1344 of them
 * for 32-bit values, and at most 6542 trial divisions, whatever v is. */
static uint32_t divisors(uint32_t v, const uint32_t *primes, uint32_t np, uint32_t *out) {
  uint32_t n = 1;
  out[0] = 1;
  for (uint32_t i = 0; i < np && (uint64_t)primes[i] * primes[i] <= v; i++) {
    uint32_t q = primes[i], e = 0;
    while (v % q == 0) v /= q, e++;
    for (uint32_t m = n, j = 0, pw = 1; j < e; j++) {
      pw *= q;
      for (uint32_t t = 0; t < m; t++) out[n++] = out[t] * pw;
    }
  }
  if (v > 1)
    for (uint32_t m = n, t = 0; t < m; t++) out[n++] = out[t] * v;
  return n;
}

/* Candidate SM counts in decreasing order (larger counts win ties), with the number of usable points each
 * divides (*divides): no fit for that count can explain more. */
typedef struct { uint32_t sms, divides; } sm_cand;
static int cmp_cand_desc(const void *a, const void *b) {
  uint32_t x = ((const sm_cand *)a)->sms, y = ((const sm_cand *)b)->sms;
  return (x < y) - (x > y);
}

#define MAX_SM_CANDIDATES 64
static int cmp_cand_divides(const void *a, const void *b) {
  const sm_cand *x = a, *y = b;
  if (x->divides != y->divides) return x->divides < y->divides ? 1 : -1;
  return (x->sms < y->sms) - (x->sms > y->sms);
}

static uint32_t sm_candidates(const vkocc_surface_point *pt, uint32_t n, uint32_t usable, sm_cand **out) {
  uint32_t *vals = util_xmalloc((usable + 1) * sizeof *vals), nv = 0, maxv = 0;
  for (uint32_t i = 0; i < n; i++)
    if (pt[i].P > 0) vals[nv++] = pt[i].P, maxv = pt[i].P > maxv ? pt[i].P : maxv;
  qsort(vals, nv, sizeof *vals, util_cmp_u32);
  /* primes up to sqrt(max P) <= 65535 */
  uint32_t lim = 1;
  while ((uint64_t)(lim + 1) * (lim + 1) <= maxv) lim++;
  uint8_t *comp = util_xcalloc(lim + 1, 1);
  uint32_t *primes = util_xmalloc((lim + 1) * sizeof *primes), np = 0;
  for (uint32_t q = 2; q <= lim; q++) {
    if (comp[q]) continue;
    primes[np++] = q;
    for (uint64_t m = (uint64_t)q * q; m <= lim; m += q) comp[m] = 1;
  }
  free(comp);
  counter c = {0};
  uint32_t div[2048];
  for (uint32_t i = 0, j; i < nv; i = j) {
    for (j = i; j < nv && vals[j] == vals[i]; j++) {}
    uint32_t nd = divisors(vals[i], primes, np, div);
    for (uint32_t t = 0; t < nd; t++) counter_add(&c, div[t], j - i);
  }
  free(primes);
  free(vals);
  uint32_t nc = 0;
  *out = util_xmalloc((c.used + 1) * sizeof **out);
  for (uint32_t i = 0; i < c.cap; i++)
    if (c.key[i] && 2 * (uint64_t)c.count[i] >= usable) (*out)[nc++] = (sm_cand){c.key[i], c.count[i]};
  free(c.key);
  free(c.count);
  /* Values rich in common divisors (not a GPU's P values: those are the SM count times small numbers)
   * give hundreds of candidates; the fits would then cost seconds. Keep the ones that divide the most
   * points (the true count divides every clean point, and so do its divisors), ties to the larger. */
  if (nc > MAX_SM_CANDIDATES) {
    qsort(*out, nc, sizeof **out, cmp_cand_divides);
    nc = MAX_SM_CANDIDATES;
  }
  qsort(*out, nc, sizeof **out, cmp_cand_desc);
  return nc;
}

/* evaluation order: most divided points first, so that a good fit early lets hopeless counts be skipped */
typedef struct { uint32_t divides, idx; } eval_order;
static int cmp_eval(const void *a, const void *b) {
  const eval_order *x = a, *y = b;
  if (x->divides != y->divides) return x->divides < y->divides ? 1 : -1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

vkocc_status fingerprint_derive_fixed(const vkocc_surface_point *pt, uint32_t n, uint32_t sg, uint32_t sms_fixed,
                                vkocc_derived *out) {
  memset(out, 0, sizeof *out);
  uint32_t usable = 0;
  for (uint32_t i = 0; i < n; i++) usable += pt[i].P > 0;
  if (usable == 0) return vkocc_fail(VKOCC_ERROR_RUNTIME, "derive: the surface has no point with P > 0");
  pval *pv = util_xmalloc((usable + 1) * sizeof *pv);
  uint32_t *vals = util_xmalloc((usable + 1) * sizeof *vals), nv = 0, npv = 0;
  for (uint32_t i = 0; i < n; i++)
    if (pt[i].P > 0) vals[nv++] = pt[i].P;
  qsort(vals, nv, sizeof *vals, util_cmp_u32);
  for (uint32_t i = nv; i-- > 0;) {
    if (npv && pv[npv - 1].P == vals[i]) pv[npv - 1].times++;
    else pv[npv++] = (pval){vals[i], 1};
  }
  free(vals);
  sm_cand *cand;
  uint32_t nc;
  if (sms_fixed) {
    cand = util_xmalloc(sizeof *cand);
    cand[0] = (sm_cand){sms_fixed, usable};
    nc = 1;
  } else {
    nc = sm_candidates(pt, n, usable, &cand);
  }
  /* Subgroup size unknown: the coarsest one that explains the most points (a finer one explains
   * workgroups made of whole coarse subgroups equally well). */
  static const uint32_t sgs[] = {128, 64, 32, 16, 8, 4};
  uint32_t nsg = sg ? 1 : VKOCC_ARRAY_LEN(sgs);
  /* The answer is the first (subgroup size, SM count) in the order above with the most points explained;
   * it is ambiguous when a later one with the same subgroup size explains as many. A count that divides
   * fewer points than the best fit so far explains fewer and is skipped: exact, and most of the work on
   * clean data. */
  eval_order *order = util_xmalloc((nc + 1) * sizeof *order);
  for (uint32_t i = 0; i < nc; i++) order[i] = (eval_order){cand[i].divides, i};
  qsort(order, nc, sizeof *order, cmp_eval);
  int64_t *e = util_xmalloc(((size_t)nc * nsg + 1) * sizeof *e);
  vkocc_derived *fits = util_xmalloc(((size_t)nc * nsg + 1) * sizeof *fits);
  uint32_t best = 0;
  for (uint32_t oi = 0; oi < nc; oi++)
    for (uint32_t si = 0; si < nsg; si++) {
      uint32_t ci = order[oi].idx;
      size_t at = (size_t)si * nc + ci;
      e[at] = -1;
      if (cand[ci].divides < best) continue;
      e[at] = fit(pt, n, pv, npv, cand[ci].sms, sg ? sg : sgs[si], best, &fits[at]);
      if (e[at] > best) best = (uint32_t)e[at];
    }
  size_t win = SIZE_MAX;
  for (size_t at = 0; at < (size_t)nc * nsg; at++) {
    if (e[at] != (int64_t)best) continue;
    if (win == SIZE_MAX) {
      win = at;
      *out = fits[at];
    } else if (at / nc == win / nc && cand[at % nc].sms != out->sm_count) {
      out->sm_count_ambiguous = true;
    }
  }
  free(fits);
  free(e);
  free(order);
  free(cand);
  free(pv);
  out->subgroup_size_inferred = sg == 0;
  return VKOCC_OK;
}

vkocc_status vkocc_derive(const vkocc_surface_point *pt, uint32_t n, uint32_t sg, vkocc_derived *out) {
  vkocc_clear_error();
  return fingerprint_derive_fixed(pt, n, sg, 0, out);
}

void vkocc_occupancy_from_P(const vkocc_derived *d, uint32_t wg, uint32_t s, uint32_t P, vkocc_occupancy *o) {
  memset(o, 0, sizeof *o);
  uint32_t k = ceil_div(wg, d->subgroup_size ? d->subgroup_size : 1);
  model_p(d->wg_per_sm, d->subgroups_per_sm, d->shared_per_sm, d->shared_bound_seen, d->subgroup_size, wg, s,
          &o->binding);
  /* 64-bit products, saturated: the fields are 32-bit and the inputs may come from any file */
  o->wgs = P;
  o->subgroups = clamp32((uint64_t)P * k);
  o->threads = clamp32((uint64_t)P * wg);
  uint32_t sms = d->sm_count ? d->sm_count : 1;
  o->wg_per_sm = P / sms;
  o->subgroups_per_sm = clamp32((uint64_t)o->wg_per_sm * k);
  o->threads_per_sm = clamp32((uint64_t)o->wg_per_sm * wg);
  o->occupancy_pct = d->threads_per_sm ? 100.0 * o->threads_per_sm / d->threads_per_sm : 0;
}

void vkocc_occupancy_compute(const vkocc_derived *d, uint32_t wg, uint32_t s, vkocc_occupancy *o) {
  uint32_t p = model_p(d->wg_per_sm, d->subgroups_per_sm, d->shared_per_sm, d->shared_bound_seen,
                       d->subgroup_size ? d->subgroup_size : 1, wg, s, NULL);
  vkocc_occupancy_from_P(d, wg, s, clamp32((uint64_t)p * d->sm_count), o);
}

const char *vkocc_limit_name(uint32_t b) {
  /* every combination of workgroup slots (1), subgroup slots (2), shared memory (4) and registers (8) */
  static const char *names[16] = {
      "none", "workgroup slots", "subgroup slots", "workgroup+subgroup slots", "shared memory",
      "workgroup slots+shared memory", "subgroup slots+shared memory", "all three", "registers",
      "workgroup slots+registers", "subgroup slots+registers", "workgroup+subgroup slots+registers",
      "shared memory+registers", "workgroup slots+shared memory+registers", "subgroup slots+shared memory+registers",
      "all four"};
  return b < 16 ? names[b] : "none";
}
