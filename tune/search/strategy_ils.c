/* Greedy iterated local search (basin hopping) over the neighbourhood of value indices (strategy_util.h).
 *
 * Starts at the best of a small initial design (the occupancy prior where the space has one). Local search
 * is first-improvement: the current configuration's neighbours are tried in a random order, and the first
 * one that is faster becomes the current one. When every neighbour is known and none is faster (a local
 * optimum), the search hops: from the best configuration found so far it takes `kick` random neighbour
 * steps (2 to 3 by default, more after hops that found nothing better) to a configuration not yet seen and
 * descends from there. Invalid configurations are recorded as infinitely slow, so no descent moves to them.
 * Asked for several at once (several workers), the descent proposes several unknown neighbours of the
 * current configuration and waits when every neighbour is known or in flight; it starts only once the whole
 * design is known, as it does one at a time.
 * Attributes: kick (default 2), design (initial configurations, default budget / 50 between 6 and 16, at most the budget). */
#include "strategy_util.h"
#include <math.h>
#include <stdlib.h>

typedef struct ils {
  const tune_space *s;
  tune_nbr nb;
  tune_track t;
  tune_rng r;
  uint64_t budget;
  uint32_t *design, ndesign, next_design, design_attr, kick, fails;
  int64_t cur;         /* -2: a hop in flight */
  uint8_t *hop;        /* per configuration: proposed as a hop (its landing becomes current when told) */
  bool walking;
  uint32_t *nbuf;
} ils;

static const char *const known[] = {"kick", "design", NULL};

static vkocc_status ils_create(const tune_space *s, uint64_t seed, const json_t *attrs, void **st) {
  double kick = 2, design = 0;
  vkocc_status rc;
  if ((rc = tune_attr_check("iterated_local_search", attrs, known)) ||
      (rc = tune_attr_number("iterated_local_search", attrs, "kick", 1, 64, &kick)) ||
      (rc = tune_attr_number("iterated_local_search", attrs, "design", 1, 1e6, &design)))
    return rc;
  ils *a = util_xcalloc(1, sizeof *a);
  a->s = s, a->kick = (uint32_t)kick, a->design_attr = (uint32_t)design;
  tune_nbr_init(&a->nb, s);
  tune_track_init(&a->t, s->nconfigs);
  tune_rng_seed(&a->r, seed);
  a->budget = s->nconfigs, a->cur = -1;
  a->hop = util_xcalloc(s->nconfigs ? s->nconfigs : 1, 1);
  a->nbuf = util_xmalloc((2 * (size_t)s->nparams + 1) * sizeof *a->nbuf);
  *st = a;
  return VKOCC_OK;
}

static void ils_budget(void *st, uint64_t b) { ((ils *)st)->budget = b ? b : 1; }

static int64_t ils_propose(void *st) {
  ils *a = st;
  int64_t d = tune_design_next(a->s, &a->t, &a->r, a->budget, a->design_attr, &a->design, &a->ndesign, &a->next_design);
  if (d >= 0) {
    return d;
  }
  if (!a->walking && a->t.nseen > a->t.nobs) return -1; /* the descent starts at the best of the whole design */
  a->walking = true;
  if (a->cur < 0) a->cur = a->t.best;
  for (int guard = 0; a->cur >= 0 && guard < 1000; guard++) {
    /* descend: a faster known neighbour is taken at once; else the first unknown one in a random order */
    uint32_t k = tune_nbr_list(&a->nb, (uint32_t)a->cur, a->nbuf);
    int64_t better = -1;
    for (uint32_t i = 0; i < k; i++)
      if (!isnan(a->t.y[a->nbuf[i]]) && a->t.y[a->nbuf[i]] < a->t.y[a->cur] &&
          (better < 0 || a->t.y[a->nbuf[i]] < a->t.y[better]))
        better = a->nbuf[i];
    if (better >= 0) { a->cur = better; continue; }
    for (uint32_t i = k; i > 1; i--) {
      uint32_t j = tune_rng_below(&a->r, i), tmp = a->nbuf[i - 1];
      a->nbuf[i - 1] = a->nbuf[j], a->nbuf[j] = tmp;
    }
    bool flying = false;
    for (uint32_t i = 0; i < k; i++) {
      if (!a->t.seen[a->nbuf[i]]) {
        tune_track_propose(&a->t, a->nbuf[i]);
        return a->nbuf[i];
      }
      flying |= isnan(a->t.y[a->nbuf[i]]);
    }
    if (flying) return -1; /* a neighbour's time is on its way: no local optimum yet */
    /* a local optimum: hop from the best found, further after hops that did not pay */
    if (a->t.best < 0) break;
    uint32_t steps = a->kick + tune_rng_below(&a->r, 2) + a->fails / 4;
    int64_t c = a->t.best;
    for (uint32_t i = 0; i < steps || (c >= 0 && a->t.seen[c] && i < steps + 16); i++) {
      uint32_t kk = tune_nbr_list(&a->nb, (uint32_t)c, a->nbuf);
      if (!kk) break;
      c = a->nbuf[tune_rng_below(&a->r, kk)];
    }
    a->fails++;
    if (c < 0 || a->t.seen[c]) c = tune_random_unseen(&a->t, &a->r);
    if (c >= 0) tune_track_propose(&a->t, (uint32_t)c), a->hop[c] = 1;
    a->cur = -2; /* the hop's landing becomes current when observed */
    return c;
  }
  int64_t c = tune_random_unseen(&a->t, &a->r);
  if (c >= 0) tune_track_propose(&a->t, (uint32_t)c), a->cur = -2, a->hop[c] = 1;
  return c;
}

static uint32_t ils_ask(void *st, uint32_t max, uint32_t *out) { return tune_ask_each(st, max, out, ils_propose); }

static void ils_observe(void *st, uint32_t c, tune_eval e) {
  ils *a = st;
  double before = a->t.best_y;
  tune_track_observe(&a->t, c, e);
  double y = a->t.y[c];
  if (a->t.best_y < before) a->fails = 0;
  if (a->hop[c]) a->cur = isfinite(y) ? (int64_t)c : a->t.best;
  else if (a->cur >= 0 && y < a->t.y[a->cur] && a->next_design >= a->ndesign) a->cur = c;
}

static void ils_destroy(void *st) {
  ils *a = st;
  tune_nbr_free(&a->nb);
  tune_track_free(&a->t);
  free(a->design), free(a->nbuf), free(a->hop), free(a);
}

const tune_strategy_def tune_strategy_ils = {
    "iterated_local_search",
    "first-improvement descent over neighbouring values, hopping from the best found at each local optimum",
    ils_create, ils_ask, ils_observe, ils_destroy, ils_budget, NULL};
