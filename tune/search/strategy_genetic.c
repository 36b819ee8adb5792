/* A genetic algorithm over value indices (strategy_util.h).
 *
 * The first generation is an initial design (the occupancy prior where the space has one). Each child takes
 * two parents by binary tournament, mixes their value indices (uniform crossover, probability 0.9) and
 * mutates each parameter with probability 1/nparams to a neighbouring value (one in five mutations: any
 * value of the parameter). A child the space does not hold (a constraint, a parameter that applies only to
 * some variants) or that is already known is replaced by the nearest configuration not yet seen. After a
 * generation the population is the best `population` of parents and children (mu + lambda); invalid
 * configurations rank last, so they leave the population at once. The population size follows the budget:
 * budget / 10 between 6 and 32 (attribute population).
 * A generation is proposed as one batch (several workers measure it at once); the next is bred once every
 * member's time is known.
 * Attributes: population, mutation (per-parameter probability, default 1/nparams). */
#include "strategy_util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ga {
  const tune_space *s;
  tune_nbr nb;
  tune_track t;
  tune_rng r;
  uint64_t budget;
  uint32_t popn, pop_attr, npop;
  double mutation;
  uint32_t *pop;       /* the population (configurations observed) */
  uint32_t *gen, ngen, next; /* the generation being evaluated */
  uint32_t *coord;     /* scratch: a child's indices */
  bool started;
} ga;

static const char *const known[] = {"population", "mutation", NULL};

static vkocc_status ga_create(const tune_space *s, uint64_t seed, const json_t *attrs, void **st) {
  double popn = 0, mutation = 0;
  vkocc_status rc;
  if ((rc = tune_attr_check("genetic_algorithm", attrs, known)) ||
      (rc = tune_attr_number("genetic_algorithm", attrs, "population", 2, 10000, &popn)) ||
      (rc = tune_attr_number("genetic_algorithm", attrs, "mutation", 0, 1, &mutation)))
    return rc;
  ga *a = util_xcalloc(1, sizeof *a);
  a->s = s, a->pop_attr = (uint32_t)popn;
  a->mutation = mutation > 0 ? mutation : 1.0 / (s->nparams ? s->nparams : 1);
  tune_nbr_init(&a->nb, s);
  tune_track_init(&a->t, s->nconfigs);
  tune_rng_seed(&a->r, seed);
  a->budget = s->nconfigs;
  a->coord = util_xmalloc(((size_t)s->nparams + 1) * sizeof *a->coord);
  *st = a;
  return VKOCC_OK;
}

static void ga_budget(void *st, uint64_t b) { ((ga *)st)->budget = b ? b : 1; }

static double fit(const ga *a, uint32_t c) { return isnan(a->t.y[c]) ? INFINITY : a->t.y[c]; }

static uint32_t tournament(ga *a) {
  uint32_t x = a->pop[tune_rng_below(&a->r, a->npop)], y = a->pop[tune_rng_below(&a->r, a->npop)];
  return fit(a, x) <= fit(a, y) ? x : y;
}

/* a configuration with its fitness, sorted without a context (fitness, then index: a total order) */
typedef struct fit_of { double f; uint32_t c; } fit_of;
static int cmp_fit(const void *x, const void *y) {
  const fit_of *a = x, *b = y;
  if (a->f < b->f) return -1;
  if (a->f > b->f) return 1;
  return a->c < b->c ? -1 : a->c > b->c;
}

/* mu + lambda: the best popn of population and generation, distinct */
static void select_next(ga *a) {
  uint32_t n = 0, *all = util_xmalloc(((size_t)a->npop + a->ngen + 1) * sizeof *all);
  for (uint32_t i = 0; i < a->npop; i++) all[n++] = a->pop[i];
  for (uint32_t i = 0; i < a->ngen; i++) {
    bool dup = false;
    for (uint32_t j = 0; j < n && !dup; j++) dup = all[j] == a->gen[i];
    if (!dup) all[n++] = a->gen[i];
  }
  fit_of *by = util_xmalloc(((size_t)n + 1) * sizeof *by);
  for (uint32_t i = 0; i < n; i++) by[i] = (fit_of){fit(a, all[i]), all[i]};
  qsort(by, n, sizeof *by, cmp_fit);
  for (uint32_t i = 0; i < n; i++) all[i] = by[i].c;
  free(by);
  a->npop = n < a->popn ? n : a->popn;
  memcpy(a->pop, all, a->npop * sizeof *all);
  free(all);
}

static int64_t make_child(ga *a) {
  const tune_space *s = a->s;
  uint32_t np = s->nparams;
  uint32_t p1 = tournament(a), p2 = tournament(a);
  const uint32_t *c1 = s->coord + (size_t)p1 * np, *c2 = s->coord + (size_t)p2 * np;
  bool cross = tune_rng_uniform(&a->r) < 0.9;
  for (uint32_t q = 0; q < np; q++) a->coord[q] = cross && tune_rng_uniform(&a->r) < 0.5 ? c2[q] : c1[q];
  int64_t c = tune_nbr_find(&a->nb, a->coord);
  bool mutated = false;
  for (uint32_t q = 0; q < np; q++) {
    if (tune_rng_uniform(&a->r) >= a->mutation || s->nvalues[q] < 2) continue;
    mutated = true;
    if (c < 0) c = tune_nbr_nearest(&a->nb, a->coord, NULL);
    if (c < 0) break;
    if (tune_rng_uniform(&a->r) < 0.2) {
      /* any value of q: the nearest configuration with it */
      uint32_t v = tune_rng_below(&a->r, s->nvalues[q]);
      memcpy(a->coord, s->coord + (size_t)c * np, np * sizeof *a->coord);
      a->coord[q] = v;
      int64_t m = tune_nbr_find(&a->nb, a->coord);
      if (m >= 0) c = m;
    } else {
      int64_t m = tune_nbr_step(&a->nb, (uint32_t)c, q, tune_rng_below(&a->r, 2) ? 1 : -1);
      if (m >= 0) c = m;
    }
    memcpy(a->coord, s->coord + (size_t)c * np, np * sizeof *a->coord);
  }
  (void)mutated;
  if (c < 0 || a->t.seen[c]) c = tune_nbr_nearest(&a->nb, a->coord, a->t.seen);
  return c;
}

static int64_t ga_propose(void *st) {
  ga *a = st;
  if (!a->started) {
    a->started = true;
    uint32_t p = a->pop_attr ? a->pop_attr : (uint32_t)(a->budget / 10);
    if (!a->pop_attr) p = p < 6 ? 6 : p > 32 ? 32 : p;
    a->popn = p;
    a->pop = util_xmalloc((size_t)p * sizeof *a->pop);
    a->gen = util_xmalloc((size_t)p * sizeof *a->gen);
    a->ngen = tune_design(a->s, &a->t, &a->r, p, a->gen);
    a->next = 0;
  }
  for (;;) {
    while (a->next < a->ngen) {
      uint32_t c = a->gen[a->next++];
      if (a->t.seen[c]) continue;
      tune_track_propose(&a->t, c);
      return c;
    }
    /* the generation is handed out: once it is known, select, then breed the next */
    if (a->t.nseen > a->t.nobs) return -1;
    select_next(a);
    a->ngen = 0, a->next = 0;
    if (!a->npop) {
      int64_t c = tune_random_unseen(&a->t, &a->r);
      if (c < 0) return -1;
      a->gen[a->ngen++] = (uint32_t)c;
      continue;
    }
    for (uint32_t i = 0; i < a->popn; i++) {
      int64_t c = make_child(a);
      if (c < 0) c = tune_random_unseen(&a->t, &a->r);
      if (c < 0) break;
      bool dup = false;
      for (uint32_t j = 0; j < a->ngen && !dup; j++) dup = a->gen[j] == (uint32_t)c;
      if (dup) c = tune_random_unseen(&a->t, &a->r);
      if (c < 0) break;
      a->gen[a->ngen++] = (uint32_t)c;
      a->t.seen[c] = 1, a->t.nseen++; /* reserved: later children avoid it */
    }
    for (uint32_t i = 0; i < a->ngen; i++) a->t.seen[a->gen[i]] = 0, a->t.nseen--;
    if (!a->ngen) return -1;
  }
}

static uint32_t ga_ask(void *st, uint32_t max, uint32_t *out) { return tune_ask_each(st, max, out, ga_propose); }

static void ga_observe(void *st, uint32_t c, tune_eval e) {
  ga *a = st;
  tune_track_observe(&a->t, c, e);
}

static void ga_destroy(void *st) {
  ga *a = st;
  tune_nbr_free(&a->nb);
  tune_track_free(&a->t);
  free(a->pop), free(a->gen), free(a->coord), free(a);
}

const tune_strategy_def tune_strategy_genetic = {
    "genetic_algorithm",
    "tournament selection, uniform crossover and neighbour mutation over value indices (mu + lambda)",
    ga_create, ga_ask, ga_observe, ga_destroy, ga_budget, NULL};
