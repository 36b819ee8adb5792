/* Simulated annealing over the neighbourhood of value indices (strategy_util.h).
 *
 * A walk starts at the best of a small initial design (the occupancy prior where the space has one). Each
 * step takes a random neighbour of the current configuration; one already evaluated costs nothing and is
 * judged on its known time, a new one is proposed. A worse neighbour is accepted with probability
 * exp(-(log t' - log t) / T): moves are judged on relative time, so the schedule is the same for every kernel.
 * T falls geometrically from T0 to T1 over the evaluation budget. An invalid configuration is never moved
 * to (its time is infinite) and never proposed again. When the walk finds no new neighbour in many steps it
 * restarts at a configuration not yet seen, which keeps the search budget-aware on small spaces.
 * Asked for several at once (several workers), the walk proposes several new neighbours of the current
 * configuration, each judged against the current one when its time arrives; the walk starts only once the
 * whole design is known, as it does one at a time.
 * Attributes: T0 (default 0.5), T1 (0.005), design (initial configurations, default budget / 50 between 6 and 16, at most the budget). */
#include "strategy_util.h"
#include <math.h>
#include <stdlib.h>

typedef struct sa {
  const tune_space *s;
  tune_nbr nb;
  tune_track t;
  tune_rng r;
  double t0, t1, design_frac;
  uint64_t budget;
  uint32_t *design, ndesign, next_design, design_attr;
  int64_t cur;         /* -1: none yet */
  uint8_t *kind;       /* per configuration, how it was proposed: K_DESIGN, K_MOVE (from cur), K_RESTART */
  bool walking;
  uint32_t *nbuf;
} sa;

enum { K_DESIGN, K_MOVE, K_RESTART };
static const char *const known[] = {"T0", "T1", "design", NULL};

static vkocc_status sa_create(const tune_space *s, uint64_t seed, const json_t *attrs, void **st) {
  double t0 = 0.5, t1 = 0.005, design = 0;
  vkocc_status rc;
  if ((rc = tune_attr_check("simulated_annealing", attrs, known)) ||
      (rc = tune_attr_number("simulated_annealing", attrs, "T0", 1e-6, 100, &t0)) ||
      (rc = tune_attr_number("simulated_annealing", attrs, "T1", 1e-9, 100, &t1)) ||
      (rc = tune_attr_number("simulated_annealing", attrs, "design", 1, 1e6, &design)))
    return rc;
  sa *a = util_xcalloc(1, sizeof *a);
  a->s = s, a->t0 = t0, a->t1 = t1 < t0 ? t1 : t0, a->design_attr = (uint32_t)design;
  tune_nbr_init(&a->nb, s);
  tune_track_init(&a->t, s->nconfigs);
  tune_rng_seed(&a->r, seed);
  a->budget = s->nconfigs, a->cur = -1;
  a->kind = util_xcalloc(s->nconfigs ? s->nconfigs : 1, 1);
  a->nbuf = util_xmalloc((2 * (size_t)s->nparams + 1) * sizeof *a->nbuf);
  *st = a;
  return VKOCC_OK;
}

static void sa_budget(void *st, uint64_t b) { ((sa *)st)->budget = b ? b : 1; }

static double temperature(const sa *a) {
  double f = a->budget > 1 ? (double)a->t.nobs / (double)(a->budget - 1) : 1;
  if (f > 1) f = 1;
  return a->t0 * pow(a->t1 / a->t0, f);
}

static bool accept(sa *a, double y_new) {
  if (!isfinite(y_new)) return false;
  if (a->cur < 0 || !isfinite(a->t.y[a->cur]) || y_new <= a->t.y[a->cur]) return true;
  return tune_rng_uniform(&a->r) < exp(-(y_new - a->t.y[a->cur]) / temperature(a));
}

static int64_t sa_propose(void *st) {
  sa *a = st;
  int64_t d = tune_design_next(a->s, &a->t, &a->r, a->budget, a->design_attr, &a->design, &a->ndesign, &a->next_design);
  if (d >= 0) {
    a->kind[d] = K_DESIGN;
    return d;
  }
  if (!a->walking && a->t.nseen > a->t.nobs) return -1; /* the walk starts at the best of the whole design */
  a->walking = true;
  if (a->cur < 0 && a->t.best >= 0) a->cur = a->t.best;
  /* walk: up to 8 * neighbours steps over known configurations looking for a new one */
  for (int step = 0; a->cur >= 0 && step < 64; step++) {
    uint32_t k = tune_nbr_list(&a->nb, (uint32_t)a->cur, a->nbuf);
    if (!k) break;
    uint32_t m = a->nbuf[tune_rng_below(&a->r, k)];
    if (!a->t.seen[m]) {
      tune_track_propose(&a->t, m);
      a->kind[m] = K_MOVE;
      return m;
    }
    if (!isnan(a->t.y[m]) && accept(a, a->t.y[m])) a->cur = m;
  }
  /* restart somewhere new */
  int64_t c = tune_random_unseen(&a->t, &a->r);
  if (c >= 0) tune_track_propose(&a->t, (uint32_t)c), a->kind[c] = K_RESTART; /* current when valid */
  return c;
}

static uint32_t sa_ask(void *st, uint32_t max, uint32_t *out) { return tune_ask_each(st, max, out, sa_propose); }

static void sa_observe(void *st, uint32_t c, tune_eval e) {
  sa *a = st;
  tune_track_observe(&a->t, c, e);
  double y = a->t.y[c];
  if (a->kind[c] == K_MOVE) {
    if (accept(a, y)) a->cur = c;
  } else if (a->kind[c] == K_RESTART) {
    if (isfinite(y)) a->cur = c;
  } else if (a->cur < 0 && isfinite(y)) {
    a->cur = c;
  } else if (a->cur >= 0 && y < a->t.y[a->cur] && a->next_design >= a->ndesign) {
    a->cur = c;
  }
  /* after the design, the walk starts at its best */
  if (a->next_design == a->ndesign && a->ndesign && a->t.best >= 0 && a->cur != a->t.best &&
      a->t.nobs == a->ndesign)
    a->cur = a->t.best;
}

static void sa_destroy(void *st) {
  sa *a = st;
  tune_nbr_free(&a->nb);
  tune_track_free(&a->t);
  free(a->design), free(a->nbuf), free(a->kind), free(a);
}

const tune_strategy_def tune_strategy_annealing = {
    "simulated_annealing",
    "a random walk over neighbouring values that accepts worse configurations less and less often",
    sa_create, sa_ask, sa_observe, sa_destroy, sa_budget, NULL};
