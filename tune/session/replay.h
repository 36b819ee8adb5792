/* Internal to libvkocc: replaying search strategies over a recorded space, with no device (docs/tune.md,
 * "Search strategies and replay"). The space comes from a vkocc.tune-results/1 document or a T4 results file
 * (Kernel Tuner, KTT); each configuration's occupancy features come from the device model of a fingerprint. */
#ifndef VKOCC_TUNE_REPLAY_H
#define VKOCC_TUNE_REPLAY_H
#include "search.h"

#define TUNE_REPLAY_MAX_FEATURES 5

typedef struct tune_replay_space {
  tune_space s;              /* with features and the occupancy prior where a fingerprint was found */
  char file[1024];
  char what[512];            /* "histogram u32 at 33554432 on NVIDIA H100 80GB HBM3" or "T4 results" */
  char fingerprint[1024];    /* the fingerprint the features come from ("" none) */
  char feature_note[256];    /* why there are no features, or how wg size and shared memory were found */
  char **param_names;
  uint32_t *nvalues, *coord;
  char ***labels;            /* labels[p][v]: a value as text ("-" absent) */
  const char *feature_names[TUNE_REPLAY_MAX_FEATURES];
  double *features;
  double *weights;           /* the occupancy prior (tune_space.prior_weight) */
  tune_eval *truth;          /* per configuration, as recorded */
  int64_t optimum;           /* the fastest valid configuration */
  double optimum_ns;
  uint32_t nvalid, constrained; /* valid ones; records left out as constrained (T4 "constraints") */
} tune_replay_space;

/* Reads a complete recorded space. fingerprint: a vkocc.fingerprint/1 file for the features (NULL: the
 * fingerprint.json beside the results file, when there is one). VKOCC_ERROR_USAGE naming the file and JSON
 * path for a bad document, or for a space without one valid configuration. */
vkocc_status tune_replay_load(const char *path, const char *fingerprint, tune_replay_space *out);
void tune_replay_space_free(tune_replay_space *sp);
/* "variant=persistent wg_size=512 ..." of configuration c into out */
void tune_replay_config_text(const tune_replay_space *sp, uint32_t c, char *out, size_t len);

typedef struct tune_replay_stats {
  uint32_t budget, seeds;
  double *median, *q1, *q3;  /* budget entries: fraction of the optimum (optimum time / best found time) after
                                1, 2, ... evaluations, over the seeds */
  uint32_t *to95;            /* per seed: evaluations until >= 95% of the optimum (budget + 1: not within budget) */
  double to95_median, to95_q1, to95_q3; /* INFINITY where beyond the budget */
  uint32_t found_optimum;    /* seeds whose best is the optimum's time */
  /* runs of their own with budgets of 1%, 2%, 5% and 10% of the space (strategies size their designs by the
   * budget, so these differ from the curve at the same count): evaluations, and the fraction of the optimum
   * at the end, median and quartiles over the seeds (NAN where the budget exceeds this run's) */
  uint32_t at_evals[4];
  double at_median[4], at_q1[4], at_q3[4];
  double wall_s;
} tune_replay_stats;

/* Runs def with seeds seed0, seed0 + 1, ... over sp; occupancy false: without the features and the prior
 * (the ablation). attrs: T1 Search.Attributes for the strategy (NULL none). budget 0: the whole space. */
vkocc_status tune_replay_run(const tune_replay_space *sp, const tune_strategy_def *def, const json_t *attrs,
                             bool occupancy, uint32_t budget, uint32_t seeds, uint64_t seed0, tune_replay_stats *out);
void tune_replay_stats_free(tune_replay_stats *st);
/* Evaluations at `percent` of the space (at least 1). */
uint32_t tune_replay_at_percent(const tune_replay_space *sp, double percent);
json_t *tune_replay_stats_json(const tune_replay_space *sp, const char *strategy, bool occupancy,
                               const tune_replay_stats *st);
#endif
