/* Internal to libvkocc: the narrow interface between the tuning harness and its search strategies.
 *
 * The harness enumerates the space first (every configuration that satisfies the constraints), so a
 * strategy only ever proposes indices of allowed configurations: it can never propose a constrained-out one.
 * A configuration is a vector of value indices, one per parameter (coord), so strategies can take
 * neighbours and crossovers without knowing what the parameters mean. Optional per-configuration features
 * (e.g. occupancy from the device model, the limiting resource, P) are known before anything runs.
 *
 * Strategies are ask/tell: asked for a batch of configurations, told their results in any order, so that
 * several workers (the GPUs of a cluster, MPI ranks) can measure at once. A strategy asked for one
 * configuration at a time with nothing in flight proposes exactly the sequence it always did, so one worker
 * retraces the sequential search for a seed. The search (tune_search_open .. tune_search_close) owns the
 * budget: it hands out configurations not yet evaluated, answers a configuration proposed again from its
 * known result without spending budget (up to a bound on repeats), and records the order results arrived
 * in. tune_search_run is the one-worker loop over it. Strategies are deterministic for a given seed. */
#ifndef VKOCC_TUNE_SEARCH_H
#define VKOCC_TUNE_SEARCH_H
#include "internal.h"
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct tune_space {
  uint32_t nparams;
  uint32_t nconfigs;         /* allowed configurations (after constraints) */
  const char *const *param_names;  /* nparams */
  const uint32_t *nvalues;   /* nparams: how many values each parameter has in the full space */
  const uint32_t *coord;     /* nconfigs * nparams: value index of each parameter, row-major per config */
  uint32_t nfeatures;        /* 0 = none */
  const char *const *feature_names; /* nfeatures */
  const double *features;    /* nconfigs * nfeatures, known without measuring (NaN = unknown) */
  /* Optional prior (NULL = none): a weight >= 0 per configuration, known before measuring (e.g. from the
   * occupancy the device model predicts, tune_replay's occupancy features). Initial designs draw
   * configurations with probability proportional to it (without replacement) instead of uniformly. */
  const double *prior_weight;
} tune_space;

/* The result of one evaluation: time_ns > 0 for a valid configuration, otherwise invalid. */
typedef struct tune_eval {
  bool valid;
  double time_ns;
} tune_eval;

typedef struct tune_strategy_def {
  const char *name;          /* as on the command line and in T1 Search.Name (case-insensitive) */
  const char *summary;       /* one line for --list-strategies --verbose */
  /* attrs: T1 Search.Attributes as a JSON object (may be NULL). VKOCC_ERROR_USAGE for an unknown or bad
   * attribute, naming it. */
  vkocc_status (*create)(const tune_space *s, uint64_t seed, const json_t *attrs, void **state);
  /* Up to max (>= 1) configuration indices to evaluate next, into out; the count. 0 while results are in
   * flight: the strategy waits for one (a walk that needs its last step's time); 0 with nothing in flight:
   * it has nothing more to propose. */
  uint32_t (*ask)(void *state, uint32_t max, uint32_t *out);
  /* The result of a configuration it proposed, in any order (or proposed again once known: told at once). */
  void (*tell)(void *state, uint32_t config, tune_eval e);
  void (*destroy)(void *state);
  /* Optional (NULL = not used): the most evaluations the search will allow (from the count and fraction
   * budgets; nconfigs under a time budget alone), told once after create, before the first ask. */
  void (*set_budget)(void *state, uint64_t max_evals);
  /* Optional (NULL: the strategy adapts to what it is told, so what comes next is not known before): up to max
   * of the configurations its next asks will propose, in order, without proposing them (its state unchanged);
   * the count. A non-adaptive strategy (brute force, random sampling) can say, so the harness builds their
   * pipelines ahead while the device measures. */
  uint32_t (*peek)(const void *state, uint32_t max, uint32_t *out);
} tune_strategy_def;

/* Every strategy, brute force first; *n gets the count. */
const tune_strategy_def *const *tune_strategies(uint32_t *n);
/* By name (case-insensitive; KTT's "Deterministic" = brute force), NULL if unknown. */
const tune_strategy_def *tune_strategy_find(const char *name);

typedef struct tune_budget {
  uint64_t max_evals;        /* 0 = no limit (ConfigurationCount, --budget) */
  double max_fraction;       /* 0 = no limit (ConfigurationFraction: of nconfigs) */
  double max_seconds;        /* 0 = no limit (TuningDuration, --time): wall time of the whole search */
  double target_ns;          /* 0 = none: stop once a valid configuration this fast is found (replay stops at
                                the known optimum: nothing after it can change the best) */
} tune_budget;

/* Evaluates configuration `config`; VKOCC_OK with e filled, or an error that stops the search. */
typedef vkocc_status (*tune_eval_fn)(void *user, uint32_t config, tune_eval *e);

typedef struct tune_search_result {
  uint32_t evals;            /* distinct configurations evaluated */
  int64_t best;              /* index of the best valid configuration, -1 when none */
  double best_ns;
  uint32_t *order;           /* evals entries: the configurations in the order evaluated */
  double *best_after;        /* evals entries: best time after each evaluation (INFINITY before a valid one) */
} tune_search_result;

/* Runs strategy def over s within budget, one evaluation at a time. A resumed run answers eval from its
 * recorded results, so the strategy retraces the same path (determinism per seed) and the budget counts them
 * as in the first run. */
vkocc_status tune_search_run(const tune_space *s, const tune_strategy_def *def, uint64_t seed, const json_t *attrs,
                             const tune_budget *budget, tune_eval_fn eval, void *user, tune_search_result *out);

/* A search that several workers feed: ask hands out configurations, tell takes their results in any order.
 * s must outlive it. */
typedef struct tune_search tune_search;
vkocc_status tune_search_open(const tune_space *s, const tune_strategy_def *def, uint64_t seed, const json_t *attrs,
                              const tune_budget *budget, tune_search **out);
/* Up to max configurations to measure next (none already evaluated or in flight), into out; the count. 0 while
 * some are in flight: wait for a result and ask again; 0 with none in flight: the search is over
 * (tune_search_status says whether it failed). Configurations put back (tune_search_requeue) come first. */
uint32_t tune_search_ask(tune_search *ts, uint32_t max, uint32_t *out);
/* Up to max of the configurations the next asks will hand out, in order, without handing them out: those put
 * back first, then what the strategy's peek says, less those known or in flight, within the budget's count
 * (the time budget and a target may still end the search before them). 0 for a strategy without peek. */
uint32_t tune_search_peek(const tune_search *ts, uint32_t max, uint32_t *out);
/* The result of a configuration handed out by ask. VKOCC_ERROR_RUNTIME for one not in flight. */
vkocc_status tune_search_tell(tune_search *ts, uint32_t config, tune_eval e);
/* A configuration handed out that will not be measured where it went (a worker lost): the next ask hands it
 * out again, before anything new. */
void tune_search_requeue(tune_search *ts, uint32_t config);
/* Stops handing out anything new (an interruption); results in flight are still taken. */
void tune_search_stop(tune_search *ts);
uint32_t tune_search_inflight(const tune_search *ts);
/* VKOCC_OK, or the error that ended the search (a strategy that proposed outside the space). */
vkocc_status tune_search_status(const tune_search *ts);
/* What it evaluated so far, in the order results arrived (a copy; free with tune_search_result_free). */
void tune_search_result_get(const tune_search *ts, tune_search_result *out);
void tune_search_close(tune_search *ts);
void tune_search_result_free(tune_search_result *r);

/* Seeded, platform-independent random numbers for strategies (splitmix64 + xoshiro256**). */
typedef struct tune_rng { uint64_t s[4]; } tune_rng;
void tune_rng_seed(tune_rng *r, uint64_t seed);
uint64_t tune_rng_next(tune_rng *r);
double tune_rng_uniform(tune_rng *r);              /* [0, 1) */
uint32_t tune_rng_below(tune_rng *r, uint32_t n);  /* [0, n), n > 0 */
/* Search.Attributes of strategy `strategy`: only the names in `known` (NULL-terminated); a number in [lo, hi]
 * where given (*v untouched where absent). VKOCC_ERROR_USAGE naming the attribute. */
vkocc_status tune_attr_check(const char *strategy, const json_t *attrs, const char *const *known);
vkocc_status tune_attr_number(const char *strategy, const json_t *attrs, const char *name, double lo, double hi,
                              double *v);
#endif
