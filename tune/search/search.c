/* The search (ask/tell over a strategy, the budget, the record) and the two baseline strategies (brute force,
 * seeded random sampling). Further strategies register in the table. */
#include "search.h"
#include "strategy_util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* --- random numbers: splitmix64 seeds xoshiro256** (public-domain reference algorithms) --- */
static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
void tune_rng_seed(tune_rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) r->s[i] = splitmix(&seed);
}
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
uint64_t tune_rng_next(tune_rng *r) {
  uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
  return out;
}
double tune_rng_uniform(tune_rng *r) { return (double)(tune_rng_next(r) >> 11) * 0x1.0p-53; }
uint32_t tune_rng_below(tune_rng *r, uint32_t n) {
  /* rejection sampling: no modulo bias */
  uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;
  do x = tune_rng_next(r);
  while (x >= lim);
  return (uint32_t)(x % n);
}

/* --- brute force: every configuration in enumeration order --- */
typedef struct brute { uint32_t next, n; } brute;
static vkocc_status brute_create(const tune_space *s, uint64_t seed, const json_t *attrs, void **st) {
  (void)seed;
  static const char *const none[] = {NULL}; /* takes no attributes: an unknown one is refused, not ignored */
  vkocc_status rc = tune_attr_check("brute_force", attrs, none);
  if (rc) return rc;
  brute *b = util_xcalloc(1, sizeof *b);
  b->n = s->nconfigs, *st = b;
  return VKOCC_OK;
}
static uint32_t brute_ask(void *st, uint32_t max, uint32_t *out) {
  brute *b = st;
  uint32_t k = 0;
  while (k < max && b->next < b->n) out[k++] = b->next++;
  return k;
}
static void brute_tell(void *st, uint32_t c, tune_eval e) { (void)st, (void)c, (void)e; }
static uint32_t brute_peek(const void *st, uint32_t max, uint32_t *out) {
  const brute *b = st;
  uint32_t k = 0;
  for (uint32_t next = b->next; k < max && next < b->n;) out[k++] = next++;
  return k;
}
static const tune_strategy_def brute_force = {"brute_force", "every configuration in enumeration order",
                                              brute_create, brute_ask, brute_tell, free, NULL, brute_peek};

/* --- random sampling without replacement: a seeded Fisher-Yates permutation --- */
typedef struct rnd { uint32_t *perm, next, n; } rnd;
static vkocc_status random_create(const tune_space *s, uint64_t seed, const json_t *attrs, void **st) {
  static const char *const none[] = {NULL};
  vkocc_status rc = tune_attr_check("random_sample", attrs, none);
  if (rc) return rc;
  rnd *r = util_xcalloc(1, sizeof *r);
  r->n = s->nconfigs;
  r->perm = util_xmalloc((size_t)(r->n ? r->n : 1) * sizeof *r->perm);
  tune_rng g;
  tune_rng_seed(&g, seed);
  for (uint32_t i = 0; i < r->n; i++) r->perm[i] = i;
  for (uint32_t i = r->n; i > 1; i--) {
    uint32_t j = tune_rng_below(&g, i), t = r->perm[i - 1];
    r->perm[i - 1] = r->perm[j], r->perm[j] = t;
  }
  *st = r;
  return VKOCC_OK;
}
static uint32_t random_ask(void *st, uint32_t max, uint32_t *out) {
  rnd *r = st;
  uint32_t k = 0;
  while (k < max && r->next < r->n) out[k++] = r->perm[r->next++];
  return k;
}
static uint32_t random_peek(const void *st, uint32_t max, uint32_t *out) {
  const rnd *r = st;
  uint32_t k = 0;
  for (uint32_t next = r->next; k < max && next < r->n;) out[k++] = r->perm[next++];
  return k;
}
static void random_destroy(void *st) {
  rnd *r = st;
  free(r->perm), free(r);
}
static const tune_strategy_def random_sample = {"random_sample", "configurations in a seeded random order",
                                                random_create, random_ask, brute_tell, random_destroy, NULL,
                                                random_peek};

/* --- the table --- */
extern const tune_strategy_def tune_strategy_annealing, tune_strategy_genetic, tune_strategy_ils, tune_strategy_forest;
static const tune_strategy_def *const all[] = {&brute_force,          &random_sample,       &tune_strategy_annealing,
                                               &tune_strategy_genetic, &tune_strategy_ils,   &tune_strategy_forest};

const tune_strategy_def *const *tune_strategies(uint32_t *n) {
  *n = VKOCC_ARRAY_LEN(all);
  return all;
}

const tune_strategy_def *tune_strategy_find(const char *name) {
  if (!name) return NULL;
  if (!strcasecmp(name, "deterministic") || !strcasecmp(name, "brute") || !strcasecmp(name, "bruteforce"))
    return &brute_force;
  if (!strcasecmp(name, "random")) return &random_sample;
  /* Kernel Tuner's names for the same algorithms */
  if (!strcasecmp(name, "simulated_annealing") || !strcasecmp(name, "annealing")) return &tune_strategy_annealing;
  if (!strcasecmp(name, "genetic")) return &tune_strategy_genetic;
  if (!strcasecmp(name, "basin_hopping") || !strcasecmp(name, "greedy_ils") || !strcasecmp(name, "ils"))
    return &tune_strategy_ils;
  if (!strcasecmp(name, "forest")) return &tune_strategy_forest;
  for (size_t i = 0; i < VKOCC_ARRAY_LEN(all); i++)
    if (!strcasecmp(all[i]->name, name)) return all[i];
  return NULL;
}

/* --- the search --- */
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { C_NEW, C_INFLIGHT, C_KNOWN };
struct tune_search {
  const tune_space *s;
  const tune_strategy_def *def;
  void *st;
  tune_budget budget;
  uint64_t limit, repeats, max_repeats;
  double t0;
  vkocc_status rc;
  bool over;                 /* nothing new is handed out: budget, target, a failure, stop */
  uint8_t *state;            /* per configuration: C_NEW, C_INFLIGHT, C_KNOWN */
  uint32_t *dups;            /* per configuration: proposals again while in flight, told when it arrives */
  tune_eval *known;
  uint32_t inflight;
  uint32_t *requeue, nrequeue;
  uint32_t *buf;             /* the strategy's batch */
  tune_search_result r;
};

vkocc_status tune_search_open(const tune_space *s, const tune_strategy_def *def, uint64_t seed, const json_t *attrs,
                              const tune_budget *budget, tune_search **out) {
  *out = NULL;
  uint64_t limit = s->nconfigs;
  if (budget && budget->max_evals && budget->max_evals < limit) limit = budget->max_evals;
  if (budget && budget->max_fraction > 0) {
    uint64_t f = (uint64_t)ceil(budget->max_fraction * s->nconfigs);
    if (f < 1) f = 1;
    if (f < limit) limit = f;
  }
  void *st = NULL;
  vkocc_status rc = def->create(s, seed, attrs, &st);
  if (rc) return rc;
  if (def->set_budget) def->set_budget(st, limit);
  tune_search *ts = util_xcalloc(1, sizeof *ts);
  size_t n = s->nconfigs ? s->nconfigs : 1;
  ts->s = s, ts->def = def, ts->st = st, ts->limit = limit, ts->t0 = now_s();
  if (budget) ts->budget = *budget;
  /* a strategy that keeps proposing what it has seen still ends: repeats are bounded */
  ts->max_repeats = 1000 + 10 * (uint64_t)s->nconfigs;
  ts->state = util_xcalloc(n, 1);
  ts->dups = util_xcalloc(n, sizeof *ts->dups);
  ts->known = util_xcalloc(n, sizeof *ts->known);
  ts->requeue = util_xmalloc(n * sizeof *ts->requeue);
  ts->buf = util_xmalloc(n * sizeof *ts->buf);
  ts->r.best = -1, ts->r.best_ns = INFINITY;
  ts->r.order = util_xmalloc((size_t)(limit ? limit : 1) * sizeof *ts->r.order);
  ts->r.best_after = util_xmalloc((size_t)(limit ? limit : 1) * sizeof *ts->r.best_after);
  *out = ts;
  return VKOCC_OK;
}

uint32_t tune_search_ask(tune_search *ts, uint32_t max, uint32_t *out) {
  uint32_t got = 0;
  while (got < max && ts->nrequeue) {
    uint32_t c = ts->requeue[--ts->nrequeue];
    ts->state[c] = C_INFLIGHT, ts->inflight++, out[got++] = c;
  }
  while (got < max && !ts->over) {
    if (ts->r.evals + ts->inflight >= ts->limit) {
      if (ts->r.evals >= ts->limit) ts->over = true;
      break;
    }
    uint64_t room = ts->limit - ts->r.evals - ts->inflight;
    if (ts->budget.max_seconds > 0 && now_s() - ts->t0 >= ts->budget.max_seconds) { ts->over = true; break; }
    uint32_t want = max - got < room ? max - got : (uint32_t)room;
    uint32_t k = ts->def->ask(ts->st, want, ts->buf);
    if (!k) {
      if (!ts->inflight) ts->over = true; /* nothing in flight and nothing to propose: done */
      break;
    }
    for (uint32_t i = 0; i < k && !ts->over; i++) {
      uint32_t c = ts->buf[i];
      if (c >= ts->s->nconfigs) {
        ts->rc = vkocc_fail(VKOCC_ERROR_RUNTIME, "search strategy %s proposed configuration %u of %u", ts->def->name, c,
                            ts->s->nconfigs);
        ts->over = true;
      } else if (ts->state[c] == C_KNOWN) {
        if (++ts->repeats > ts->max_repeats) ts->over = true;
        else ts->def->tell(ts->st, c, ts->known[c]);
      } else if (ts->state[c] == C_INFLIGHT) {
        ts->dups[c]++;
      } else {
        ts->state[c] = C_INFLIGHT, ts->inflight++, out[got++] = c;
      }
    }
  }
  return got;
}

uint32_t tune_search_peek(const tune_search *ts, uint32_t max, uint32_t *out) {
  uint32_t got = 0;
  for (uint32_t i = ts->nrequeue; got < max && i > 0; i--) out[got++] = ts->requeue[i - 1];
  if (ts->over || !ts->def->peek || !max) return got;
  uint64_t room = ts->limit > ts->r.evals + ts->inflight ? ts->limit - ts->r.evals - ts->inflight : 0;
  room = room > ts->nrequeue ? room - ts->nrequeue : 0;
  /* what the strategy will propose, less what the search answers without handing out (known, in flight); a
   * few more than max, as some of them may be skipped so */
  uint32_t want = max - got, n = ts->s->nconfigs, ask = want < n ? want : n;
  ask = ask + 16 < n ? ask + 16 : n;
  uint32_t *buf = util_xmalloc((size_t)(ask ? ask : 1) * sizeof *buf);
  uint32_t k = ts->def->peek(ts->st, ask, buf);
  for (uint32_t i = 0; i < k && got < max && room; i++) {
    uint32_t c = buf[i];
    if (c >= n || ts->state[c] != C_NEW) continue;
    out[got++] = c, room--;
  }
  free(buf);
  return got;
}

vkocc_status tune_search_tell(tune_search *ts, uint32_t c, tune_eval e) {
  if (c >= ts->s->nconfigs || ts->state[c] != C_INFLIGHT)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "search: a result for configuration %u, which is not in flight", c);
  if (e.valid && !(e.time_ns > 0 && isfinite(e.time_ns))) e.valid = false;
  ts->state[c] = C_KNOWN, ts->known[c] = e, ts->inflight--;
  tune_search_result *r = &ts->r;
  if (e.valid && e.time_ns < r->best_ns) r->best_ns = e.time_ns, r->best = c;
  if (r->evals < ts->limit) { /* a requeued configuration measured twice is recorded once */
    r->order[r->evals] = c;
    r->best_after[r->evals] = r->best_ns;
    r->evals++;
  }
  ts->def->tell(ts->st, c, e);
  for (; ts->dups[c]; ts->dups[c]--) ts->def->tell(ts->st, c, e);
  if (ts->budget.target_ns > 0 && r->best_ns <= ts->budget.target_ns) ts->over = true;
  return VKOCC_OK;
}

void tune_search_requeue(tune_search *ts, uint32_t c) {
  if (c >= ts->s->nconfigs || ts->state[c] != C_INFLIGHT) return;
  ts->state[c] = C_NEW, ts->inflight--;
  ts->requeue[ts->nrequeue++] = c;
}

void tune_search_stop(tune_search *ts) { ts->over = true, ts->nrequeue = 0; }
uint32_t tune_search_inflight(const tune_search *ts) { return ts->inflight; }
vkocc_status tune_search_status(const tune_search *ts) { return ts->rc; }

void tune_search_result_get(const tune_search *ts, tune_search_result *out) {
  *out = ts->r;
  size_t n = ts->r.evals ? ts->r.evals : 1;
  out->order = util_xmalloc(n * sizeof *out->order);
  out->best_after = util_xmalloc(n * sizeof *out->best_after);
  memcpy(out->order, ts->r.order, ts->r.evals * sizeof *out->order);
  memcpy(out->best_after, ts->r.best_after, ts->r.evals * sizeof *out->best_after);
}

void tune_search_close(tune_search *ts) {
  if (!ts) return;
  ts->def->destroy(ts->st);
  free(ts->state), free(ts->dups), free(ts->known), free(ts->requeue), free(ts->buf);
  tune_search_result_free(&ts->r);
  free(ts);
}

vkocc_status tune_search_run(const tune_space *s, const tune_strategy_def *def, uint64_t seed, const json_t *attrs,
                             const tune_budget *budget, tune_eval_fn eval, void *user, tune_search_result *out) {
  memset(out, 0, sizeof *out);
  out->best = -1, out->best_ns = INFINITY;
  tune_search *ts;
  vkocc_status rc = tune_search_open(s, def, seed, attrs, budget, &ts);
  if (rc) return rc;
  uint32_t c;
  while (tune_search_ask(ts, 1, &c)) {
    tune_eval e = {0};
    if ((rc = eval(user, c, &e))) break;
    tune_search_tell(ts, c, e);
  }
  if (!rc) rc = ts->rc;
  /* what was evaluated is kept also when the search failed */
  *out = ts->r;
  ts->r.order = NULL, ts->r.best_after = NULL;
  tune_search_close(ts);
  return rc;
}

void tune_search_result_free(tune_search_result *r) {
  free(r->order), free(r->best_after);
  memset(r, 0, sizeof *r);
}

/* The strategies' Search.Attributes: known names only, numbers in range (declared in search.h). */
vkocc_status tune_attr_check(const char *strategy, const json_t *attrs, const char *const *known) {
  if (!attrs) return VKOCC_OK;
  if (!json_is_object(attrs))
    return vkocc_fail(VKOCC_ERROR_USAGE, "search %s: Search.Attributes: expected an object", strategy);
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)attrs, key, v) {
    bool ok = false;
    for (const char *const *k = known; *k && !ok; k++) ok = !strcmp(*k, key);
    if (!ok) return vkocc_fail(VKOCC_ERROR_USAGE, "search %s: Search.Attributes.%s: unknown attribute", strategy, key);
  }
  return VKOCC_OK;
}

vkocc_status tune_attr_number(const char *strategy, const json_t *attrs, const char *name, double lo, double hi,
                              double *v) {
  json_t *a = attrs ? json_object_get(attrs, name) : NULL;
  if (!a) return VKOCC_OK;
  if (!json_is_number(a) || !(json_number_value(a) >= lo && json_number_value(a) <= hi))
    return vkocc_fail(VKOCC_ERROR_USAGE, "search %s: Search.Attributes.%s: expected a number in [%g, %g]", strategy,
                      name, lo, hi);
  *v = json_number_value(a);
  return VKOCC_OK;
}
