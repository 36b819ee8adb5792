/* The search loop and the two baseline strategies (brute force, seeded random sampling). Further
 * strategies register in the table at the end. */
#include "search.h"
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
  brute *b = vkocc_xcalloc(1, sizeof *b);
  b->n = s->nconfigs, *st = b;
  return VKOCC_OK;
}
static int64_t brute_propose(void *st) {
  brute *b = st;
  return b->next < b->n ? (int64_t)b->next++ : -1;
}
static void brute_observe(void *st, uint32_t c, tune_eval e) { (void)st, (void)c, (void)e; }
static const tune_strategy_def brute_force = {"brute_force", "every configuration in enumeration order",
                                              brute_create, brute_propose, brute_observe, free, NULL};

/* --- random sampling without replacement: a seeded Fisher-Yates permutation --- */
typedef struct rnd { uint32_t *perm, next, n; } rnd;
static vkocc_status random_create(const tune_space *s, uint64_t seed, const json_t *attrs, void **st) {
  static const char *const none[] = {NULL};
  vkocc_status rc = tune_attr_check("random_sample", attrs, none);
  if (rc) return rc;
  rnd *r = vkocc_xcalloc(1, sizeof *r);
  r->n = s->nconfigs;
  r->perm = vkocc_xmalloc((size_t)(r->n ? r->n : 1) * sizeof *r->perm);
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
static int64_t random_propose(void *st) {
  rnd *r = st;
  return r->next < r->n ? (int64_t)r->perm[r->next++] : -1;
}
static void random_destroy(void *st) {
  rnd *r = st;
  free(r->perm), free(r);
}
static const tune_strategy_def random_sample = {"random_sample", "configurations in a seeded random order",
                                                random_create, random_propose, brute_observe, random_destroy, NULL};

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

/* --- the loop --- */
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

vkocc_status tune_search_run(const tune_space *s, const tune_strategy_def *def, uint64_t seed, const json_t *attrs,
                             const tune_budget *budget, tune_eval_fn eval, void *user, tune_search_result *out) {
  memset(out, 0, sizeof *out);
  out->best = -1, out->best_ns = INFINITY;
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
  out->order = vkocc_xmalloc((size_t)(limit ? limit : 1) * sizeof *out->order);
  out->best_after = vkocc_xmalloc((size_t)(limit ? limit : 1) * sizeof *out->best_after);
  uint8_t *seen = vkocc_xcalloc(s->nconfigs ? s->nconfigs : 1, 1);
  tune_eval *known = vkocc_xcalloc(s->nconfigs ? s->nconfigs : 1, sizeof *known);
  double t0 = now_s();
  /* a strategy that keeps proposing what it has seen still ends: repeats are bounded */
  uint64_t repeats = 0, max_repeats = 1000 + 10 * (uint64_t)s->nconfigs;
  while (out->evals < limit) {
    if (budget && budget->max_seconds > 0 && now_s() - t0 >= budget->max_seconds) break;
    int64_t c = def->propose(st);
    if (c < 0) break;
    if ((uint64_t)c >= s->nconfigs) {
      rc = vkocc_fail(VKOCC_ERROR_RUNTIME, "search strategy %s proposed configuration %lld of %u", def->name,
                      (long long)c, s->nconfigs);
      break;
    }
    if (seen[c]) {
      if (++repeats > max_repeats) break;
      def->observe(st, (uint32_t)c, known[c]);
      continue;
    }
    tune_eval e = {0};
    if ((rc = eval(user, (uint32_t)c, &e))) break;
    if (e.valid && !(e.time_ns > 0 && isfinite(e.time_ns))) e.valid = false;
    seen[c] = 1, known[c] = e;
    if (e.valid && e.time_ns < out->best_ns) out->best_ns = e.time_ns, out->best = c;
    out->order[out->evals] = (uint32_t)c;
    out->best_after[out->evals] = out->best_ns;
    out->evals++;
    def->observe(st, (uint32_t)c, e);
    if (budget && budget->target_ns > 0 && out->best_ns <= budget->target_ns) break;
  }
  def->destroy(st);
  free(seen), free(known);
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
