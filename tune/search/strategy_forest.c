/* Model-based search: a random forest surrogate (bagged regression trees) with expected improvement.
 *
 * The model's inputs are each parameter's value index and, where the space has them, the features known
 * before measuring (occupancy from the device model, the limiting resource, P, waves): a tree can split on
 * "resident workgroups per SM" as easily as on a parameter, which is how the occupancy model reaches the
 * search. The target is log(time); an invalid configuration counts as e times slower than the slowest valid
 * one, so the model learns where invalid configurations lie and steers away from their neighbourhood.
 * After an initial design (the occupancy prior where there is one), each step fits the forest to every
 * observation and proposes the unseen candidates of highest expected improvement over the best (mean and
 * spread over the trees' predictions), a few at a time as observations grow (1 + observations / 100), and
 * now and then (5%) a random one so that a confident but wrong model cannot trap the search.
 *
 * Asked for several at once (several workers), it hands out the queue's next candidates; the first model is
 * fitted once the whole design is known, as one at a time.
 *
 * Written here rather than taken from a library: GSL (the maintained C library in reach) has linear algebra
 * for a Gaussian process but no trees, and a GP on discrete, categorical, partly absent parameters with
 * invalid points needs kernel choices and hyperparameter fits that a forest does not (the comparison of
 * Schoonhoven et al. finds no surrogate dominant on such spaces). The forest is ~150 lines of C and
 * deterministic per seed.
 * Attributes: trees (default 24), design (initial configurations, default budget / 40 between 6 and 20),
 * explore (the random share, default 0.05). */
#include "strategy_util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
  int32_t feat;          /* -1: a leaf */
  int32_t left, right;
  double thr, value;
} node;
typedef struct tree { node *n; uint32_t nn, cap; } tree;
typedef struct pair { double x, y; } pair;

typedef struct forest {
  const tune_space *s;
  tune_nbr nb;
  tune_track t;
  tune_rng r;
  uint64_t budget;
  uint32_t ntrees, design_attr, nx;
  double explore;
  double *x;             /* nconfigs * nx: the model's inputs */
  uint32_t *obs, nobs;   /* observed configurations in order */
  tree *trees;
  uint32_t *design, ndesign, next_design;
  uint32_t *queue, nqueue, next_queue;
  uint32_t *cand;        /* scratch */
  double *score;
  uint32_t *nbuf;
  pair *pairs, *ptmp;
  uint32_t *idx, *tmp;
  double *yv;            /* observed targets (invalid replaced) */
  bool started, modeling;
} forest;

static const char *const known[] = {"trees", "design", "explore", NULL};

static vkocc_status forest_create(const tune_space *s, uint64_t seed, const json_t *attrs, void **st) {
  double trees = 24, design = 0, explore = 0.05;
  vkocc_status rc;
  if ((rc = tune_attr_check("random_forest", attrs, known)) ||
      (rc = tune_attr_number("random_forest", attrs, "trees", 1, 1000, &trees)) ||
      (rc = tune_attr_number("random_forest", attrs, "design", 1, 1e6, &design)) ||
      (rc = tune_attr_number("random_forest", attrs, "explore", 0, 1, &explore)))
    return rc;
  forest *f = util_xcalloc(1, sizeof *f);
  f->s = s, f->ntrees = (uint32_t)trees, f->design_attr = (uint32_t)design, f->explore = explore;
  tune_nbr_init(&f->nb, s);
  tune_track_init(&f->t, s->nconfigs);
  tune_rng_seed(&f->r, seed);
  f->budget = s->nconfigs;
  /* inputs: value indices, then the features that vary (NaN: below every known value) */
  uint32_t n = s->nconfigs, np = s->nparams, nf = s->nfeatures;
  f->nx = np + nf;
  f->x = util_xmalloc((size_t)(n ? n : 1) * (f->nx ? f->nx : 1) * sizeof *f->x);
  for (uint32_t c = 0; c < n; c++) {
    double *row = f->x + (size_t)c * f->nx;
    for (uint32_t p = 0; p < np; p++) row[p] = s->coord[(size_t)c * np + p];
    for (uint32_t j = 0; j < nf; j++) {
      double v = s->features[(size_t)c * nf + j];
      row[np + j] = isnan(v) ? -1e300 : v;
    }
  }
  f->trees = util_xcalloc(f->ntrees, sizeof *f->trees);
  f->obs = util_xmalloc((size_t)(n ? n : 1) * sizeof *f->obs);
  f->cand = util_xmalloc((size_t)(n ? n : 1) * sizeof *f->cand);
  f->score = util_xmalloc((size_t)(n ? n : 1) * sizeof *f->score);
  f->queue = util_xmalloc((size_t)(n ? n : 1) * sizeof *f->queue);
  f->nbuf = util_xmalloc((2 * (size_t)np + 1) * sizeof *f->nbuf);
  f->pairs = util_xmalloc((size_t)(n ? n : 1) * sizeof *f->pairs);
  f->ptmp = util_xmalloc((size_t)(n ? n : 1) * sizeof *f->ptmp);
  f->idx = util_xmalloc((size_t)(n ? n : 1) * sizeof *f->idx);
  f->tmp = util_xmalloc((size_t)(n ? n : 1) * sizeof *f->tmp);
  f->yv = util_xmalloc((size_t)(n ? n : 1) * sizeof *f->yv);
  *st = f;
  return VKOCC_OK;
}

static void forest_budget(void *st, uint64_t b) { ((forest *)st)->budget = b ? b : 1; }

/* A stable sort by x: ties keep their order, so the running sums of the split search and the trees are the same
 * on every C library (glibc's qsort was a merge sort up to 2.36 and is an unstable introsort since 2.37). Inline
 * and without a comparator call: half of a forest's fit was qsort. Insertion-sorted runs of 16, then merged. */
static void sort_pairs(pair *a, pair *tmp, uint32_t m) {
  for (uint32_t lo = 0; lo < m; lo += 16) {
    uint32_t hi = lo + 16 < m ? lo + 16 : m;
    for (uint32_t i = lo + 1; i < hi; i++) {
      pair v = a[i];
      uint32_t j = i;
      for (; j > lo && a[j - 1].x > v.x; j--) a[j] = a[j - 1];
      a[j] = v;
    }
  }
  pair *src = a, *dst = tmp;
  for (uint32_t w = 16; w < m; w *= 2) {
    for (uint32_t lo = 0; lo < m; lo += 2 * w) {
      uint32_t mid = lo + w < m ? lo + w : m, hi = lo + 2 * w < m ? lo + 2 * w : m, i = lo, j = mid, k = lo;
      while (i < mid && j < hi) dst[k++] = src[j].x < src[i].x ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    pair *t = src;
    src = dst, dst = t;
  }
  if (src != a) memcpy(a, src, (size_t)m * sizeof *a);
}

static uint32_t new_node(tree *t) {
  if (t->nn == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 64;
    t->n = util_xrealloc(t->n, t->cap * sizeof *t->n);
  }
  t->n[t->nn] = (node){.feat = -1};
  return t->nn++;
}

/* idx[0..m): rows of f->obs (by position) with targets f->yv */
static uint32_t build(forest *f, tree *t, uint32_t *idx, uint32_t m, int depth) {
  uint32_t id = new_node(t);
  double sum = 0, sq = 0;
  for (uint32_t i = 0; i < m; i++) sum += f->yv[idx[i]], sq += f->yv[idx[i]] * f->yv[idx[i]];
  double mean = sum / m, sse = sq - sum * mean;
  t->n[id].value = mean;
  if (m < 4 || depth > 24 || sse <= 1e-12 * (1 + fabs(sq))) return id;
  /* mtry: half of the inputs, at least one */
  uint32_t nx = f->nx, mtry = (nx + 1) / 2, order[256];
  uint32_t nord = nx < 256 ? nx : 256;
  for (uint32_t j = 0; j < nord; j++) order[j] = j;
  double best_gain = 0, best_thr = 0;
  int32_t best_feat = -1;
  for (uint32_t k = 0; k < mtry && k < nord; k++) {
    uint32_t j = k + tune_rng_below(&f->r, nord - k), tmp = order[k];
    order[k] = order[j], order[j] = tmp;
    uint32_t feat = order[k];
    for (uint32_t i = 0; i < m; i++) f->pairs[i] = (pair){f->x[(size_t)f->obs[idx[i]] * nx + feat], f->yv[idx[i]]};
    sort_pairs(f->pairs, f->ptmp, m);
    double ls = 0, lq = 0;
    for (uint32_t i = 0; i + 1 < m; i++) {
      ls += f->pairs[i].y, lq += f->pairs[i].y * f->pairs[i].y;
      if (f->pairs[i].x == f->pairs[i + 1].x) continue;
      double nl = i + 1, nr = m - nl, rs = sum - ls, rq = sq - lq;
      double child = (lq - ls * ls / nl) + (rq - rs * rs / nr), gain = sse - child;
      if (gain > best_gain + 1e-12) {
        best_gain = gain, best_feat = (int32_t)feat;
        double a = f->pairs[i].x, b = f->pairs[i + 1].x;
        best_thr = a < -1e299 ? b - 0.5 : a + (b - a) / 2;
      }
    }
  }
  if (best_feat < 0) return id;
  uint32_t nl = 0, nr = 0;
  for (uint32_t i = 0; i < m; i++) {
    if (f->x[(size_t)f->obs[idx[i]] * nx + (uint32_t)best_feat] <= best_thr) idx[nl++] = idx[i];
    else f->tmp[nr++] = idx[i];
  }
  memcpy(idx + nl, f->tmp, nr * sizeof *idx);
  if (!nl || !nr) return id;
  t->n[id].feat = best_feat, t->n[id].thr = best_thr;
  uint32_t l = build(f, t, idx, nl, depth + 1);
  uint32_t r = build(f, t, idx + nl, nr, depth + 1);
  t->n[id].left = (int32_t)l, t->n[id].right = (int32_t)r; /* t->n may have moved: index after the calls */
  return id;
}

static double predict_tree(const forest *f, const tree *t, uint32_t c) {
  const double *row = f->x + (size_t)c * f->nx;
  uint32_t i = 0;
  while (t->n[i].feat >= 0) i = (uint32_t)(row[t->n[i].feat] <= t->n[i].thr ? t->n[i].left : t->n[i].right);
  return t->n[i].value;
}

/* Fits the forest; false when nothing valid is known yet. */
static bool fit(forest *f) {
  double worst = -INFINITY;
  for (uint32_t i = 0; i < f->nobs; i++)
    if (isfinite(f->t.y[f->obs[i]]) && f->t.y[f->obs[i]] > worst) worst = f->t.y[f->obs[i]];
  if (!isfinite(worst)) return false;
  for (uint32_t i = 0; i < f->nobs; i++) f->yv[i] = isfinite(f->t.y[f->obs[i]]) ? f->t.y[f->obs[i]] : worst + 1;
  for (uint32_t k = 0; k < f->ntrees; k++) {
    tree *t = &f->trees[k];
    t->nn = 0;
    for (uint32_t i = 0; i < f->nobs; i++) f->idx[i] = tune_rng_below(&f->r, f->nobs);
    build(f, t, f->idx, f->nobs, 0);
  }
  return true;
}

static double normal_cdf(double z) { return 0.5 * erfc(-z / sqrt(2)); }
static double normal_pdf(double z) { return exp(-0.5 * z * z) / 2.5066282746310002 /* sqrt(2 pi) */; }

static void refill(forest *f) {
  f->nqueue = f->next_queue = 0;
  if (!fit(f)) return;
  const tune_space *s = f->s;
  uint32_t n = s->nconfigs, nc = 0;
  if (n - f->t.nseen <= 8192) {
    for (uint32_t c = 0; c < n; c++)
      if (!f->t.seen[c]) f->cand[nc++] = c;
  } else {
    /* large spaces: random unseen configurations and the unseen neighbours of the best observed */
    uint8_t *mark = util_xcalloc(n, 1);
    for (uint32_t i = 0; i < 4096; i++) {
      int64_t c = tune_random_unseen(&f->t, &f->r);
      if (c >= 0 && !mark[c]) mark[c] = 1, f->cand[nc++] = (uint32_t)c;
    }
    for (uint32_t i = 0; i < f->nobs; i++) f->idx[i] = f->obs[i];
    for (uint32_t b = 0; b < 8 && b < f->nobs; b++) {
      uint32_t bi = b;
      for (uint32_t i = b + 1; i < f->nobs; i++)
        if (f->t.y[f->idx[i]] < f->t.y[f->idx[bi]]) bi = i;
      uint32_t tmp = f->idx[b];
      f->idx[b] = f->idx[bi], f->idx[bi] = tmp;
      uint32_t k = tune_nbr_list(&f->nb, f->idx[b], f->nbuf);
      for (uint32_t i = 0; i < k; i++)
        if (!f->t.seen[f->nbuf[i]] && !mark[f->nbuf[i]]) mark[f->nbuf[i]] = 1, f->cand[nc++] = f->nbuf[i];
    }
    free(mark);
  }
  double best = f->t.best_y;
  for (uint32_t i = 0; i < nc; i++) {
    double sum = 0, sq = 0;
    for (uint32_t k = 0; k < f->ntrees; k++) {
      double v = predict_tree(f, &f->trees[k], f->cand[i]);
      sum += v, sq += v * v;
    }
    double mu = sum / f->ntrees, var = sq / f->ntrees - mu * mu, sd = var > 0 ? sqrt(var) : 0;
    double ei = best - mu;
    if (sd > 1e-12) {
      double z = (best - mu) / sd;
      ei = (best - mu) * normal_cdf(z) + sd * normal_pdf(z);
    } else if (ei < 0) {
      ei = 0;
    }
    /* ties (often 0 far from the data): the lower predicted time first */
    f->score[i] = ei - 1e-9 * mu;
  }
  uint32_t want = 1 + f->nobs / 100;
  for (uint32_t q = 0; q < want && q < nc; q++) {
    uint32_t bi = q;
    for (uint32_t i = q + 1; i < nc; i++)
      if (f->score[i] > f->score[bi] || (f->score[i] == f->score[bi] && f->cand[i] < f->cand[bi])) bi = i;
    uint32_t tc = f->cand[q];
    double ts = f->score[q];
    f->cand[q] = f->cand[bi], f->score[q] = f->score[bi];
    f->cand[bi] = tc, f->score[bi] = ts;
    f->queue[f->nqueue++] = f->cand[q];
  }
}

static int64_t forest_propose(void *st) {
  forest *f = st;
  if (!f->started) {
    f->started = true;
    uint32_t k = f->design_attr ? f->design_attr : (uint32_t)(f->budget / 40);
    if (!f->design_attr) k = k < 6 ? 6 : k > 20 ? 20 : k;
    f->design = util_xmalloc((size_t)k * sizeof *f->design);
    f->ndesign = tune_design(f->s, &f->t, &f->r, k, f->design);
  }
  while (f->next_design < f->ndesign) {
    uint32_t c = f->design[f->next_design++];
    if (f->t.seen[c]) continue;
    tune_track_propose(&f->t, c);
    return c;
  }
  if (!f->modeling && f->t.nseen > f->t.nobs) return -1; /* the first model sees the whole design */
  f->modeling = true;
  int64_t c = -1;
  if (tune_rng_uniform(&f->r) >= f->explore) {
    while (f->next_queue < f->nqueue && f->t.seen[f->queue[f->next_queue]]) f->next_queue++;
    if (f->next_queue >= f->nqueue) refill(f);
    if (f->next_queue < f->nqueue) c = f->queue[f->next_queue++];
  }
  if (c < 0) c = tune_random_unseen(&f->t, &f->r);
  if (c >= 0) tune_track_propose(&f->t, (uint32_t)c);
  return c;
}

static uint32_t forest_ask(void *st, uint32_t max, uint32_t *out) { return tune_ask_each(st, max, out, forest_propose); }

static void forest_observe(void *st, uint32_t c, tune_eval e) {
  forest *f = st;
  bool fresh = c < f->s->nconfigs && isnan(f->t.y[c]);
  tune_track_observe(&f->t, c, e);
  if (fresh) f->obs[f->nobs++] = c;
}

static void forest_destroy(void *st) {
  forest *f = st;
  tune_nbr_free(&f->nb);
  tune_track_free(&f->t);
  for (uint32_t k = 0; k < f->ntrees; k++) free(f->trees[k].n);
  free(f->trees), free(f->x), free(f->obs), free(f->cand), free(f->score), free(f->queue), free(f->nbuf);
  free(f->pairs), free(f->ptmp), free(f->idx), free(f->tmp), free(f->yv), free(f->design), free(f);
}

const tune_strategy_def tune_strategy_forest = {
    "random_forest",
    "a surrogate of bagged regression trees over parameters and occupancy features, expected improvement",
    forest_create, forest_ask, forest_observe, forest_destroy, forest_budget, NULL};
