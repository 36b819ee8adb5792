/* Internal to libvkocc: the benchmark harness behind `vkocc tune` (docs/tune.md); the results it fills are
 * the tuning-results document's data (io/tune_results.h). */
#ifndef VKOCC_TUNE_H
#define VKOCC_TUNE_H
#include "tune_results.h"
#include "vkocc.h"

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


/* The device's limits as the kernels' constraints need them. */
void tune_device_of(vkocc_context *ctx, tune_device *d);
/* The space of kernel k on d at n elements, filtered by opt->only and pruned by the constraints.
 * VKOCC_ERROR_USAGE for a bad --only or a size the device cannot hold (the message says which limit). */
vkocc_status tune_prepare(vkocc_context *ctx, const tune_kernel_def *k, uint64_t n, bool f32, const tune_options *opt,
                          tune_run *run);
/* Measures every configuration of run not yet measured. */
vkocc_status tune_measure(vkocc_context *ctx, tune_run *run, const tune_options *opt);
#endif
