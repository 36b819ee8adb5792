/* Internal to libvkocc: the benchmark harness behind `vkocc tune` (docs/tune.md). */
#ifndef VKOCC_TUNE_H
#define VKOCC_TUNE_H
#include "../kernels/kernels.h"
#include "exec.h"
#include <jansson.h>

typedef struct tune_result {
  tune_config cfg;
  char key[256];             /* the configuration as compact JSON with sorted keys: its identity */
  bool measured, valid;
  double median_ns, spread;  /* spread: median absolute deviation / median over the runs */
  double min_ns, max_ns;
  uint32_t runs;
  char error[600];           /* why it is invalid (wrong answer, pipeline failed) */
} tune_result;

typedef struct tune_run {
  const tune_kernel_def *k;
  bool f32;
  uint64_t n;
  tune_result *r;            /* the configurations that can run on the device (after --only) */
  uint32_t count;
  uint32_t space_total;      /* the cartesian product */
  uint32_t filtered;         /* left out by --only */
  uint32_t pruned;           /* left out by the device's constraints */
  char prune_note[512];      /* how many per reason */
  double pipelines_ms, measure_ms;
  uint32_t pipelines;
} tune_run;

typedef struct tune_options {
  uint32_t threads;          /* pipeline-creation threads; 0 = up to 8 */
  double target_spread;      /* stop repeating when MAD / median is below; 0 = 0.02 */
  uint32_t min_runs, max_runs; /* 0 = 5, 50 */
  double max_config_s;       /* per configuration, 0 = 2 s (then at least min_runs... or 3) */
  const char *const *only;   /* "NAME=V1,V2": keep configurations whose NAME is one of the values (or that have no NAME) */
  uint32_t nonly;
  void (*progress)(void *user, const char *phase, uint32_t done, uint32_t total);
  void *user;
  /* called every checkpoint_s (0 = 10 s) with the results so far, so an interrupted run can resume */
  vkocc_status (*checkpoint)(void *user, const tune_run *run);
  double checkpoint_s;
} tune_options;

/* JSON of a configuration (names for enumerated values, absent parameters left out) and back. */
json_t *tune_config_json(const tune_kernel_def *k, const tune_config *c);
vkocc_status tune_config_from_json(const tune_kernel_def *k, json_t *o, const char *file, const char *path,
                                   tune_config *c);
void tune_config_key(const tune_kernel_def *k, const tune_config *c, char *out, size_t len);
/* "u32"/"f32" */
vkocc_status tune_parse_type(const tune_kernel_def *k, const char *type, bool *f32);

/* The device's limits as the kernels' constraints need them. */
void tune_device_of(vkocc_context *ctx, tune_device *d);
/* The space of kernel k on d at n elements, filtered by opt->only and pruned by the constraints.
 * VKOCC_ERROR_USAGE for a bad --only or a size the device cannot hold (the message says which limit). */
vkocc_status tune_prepare(vkocc_context *ctx, const tune_kernel_def *k, uint64_t n, bool f32, const tune_options *opt,
                          tune_run *run);
/* Measures every configuration of run not yet measured. */
vkocc_status tune_measure(vkocc_context *ctx, tune_run *run, const tune_options *opt);
void tune_run_free(tune_run *run);
/* Index of the best valid configuration (lowest median), -1 when none. */
int tune_best(const tune_run *run);
#endif
