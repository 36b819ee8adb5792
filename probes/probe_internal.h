/* Internal to probes/ (and the tests and benchmarks that drive a probe session directly). */
#ifndef VKOCC_PROBE_INTERNAL_H
#define VKOCC_PROBE_INTERNAL_H
#include "exec.h"

/* probes/probe.c: a session holds the buffers every probe shares; kernels are per point, so a sweep can
 * create all of them first (in parallel) and measure afterwards. */
/* What a probe dispatch asks of the shader: mode 0 sleep on the realtime clock for sleep_ticks, at most
 * max_rounds loop iterations; mode 1 the pointer chase; key a value the compiler cannot know. */
typedef struct probes_params { uint32_t mode, sleep_ticks, max_rounds, key; } probes_params;
typedef struct probes_session {
  vkocc_context *ctx;
  core_buffer rec, chase;
  uint32_t max_groups;
  /* Another pipeline than the built-in probe (probes/pipeline.c): each dispatch goes through this call with
   * the probe's parameters, records land in rec as usual. NULL for the built-in probe. */
  vkocc_status (*dispatch)(void *user, const probes_params *p, uint32_t groups, double *ns,
                           vkocc_tick_status *tick);
  void *user;
} probes_session;
vkocc_status probes_session_create(vkocc_context *ctx, probes_session *ps);
void probes_session_destroy(probes_session *ps);
/* The probe's kernel at one point: the one the context's prebuild pool has for it (probes/prebuild.c), else
 * built now (_now: built now, the pool not asked). */
vkocc_status probes_kernel_create(vkocc_context *ctx, uint32_t wg, uint32_t shared, core_kernel *k);
vkocc_status probes_kernel_create_now(vkocc_context *ctx, uint32_t wg, uint32_t shared, core_kernel *k);
/* probes/prebuild.c: the probe kernels of n points (wg[i], shared[i]) built on threads of their own from now
 * on, while the caller goes on (a GPU only: a CPU device compiles at first use, on the caller's cores);
 * _take hands one over (true, *st its status) or says the caller builds it (false); _finish waits for the
 * builds under way and destroys what nobody took. One pool per context; _finish before the context goes. */
bool probes_prebuild_pays(const vkocc_context *ctx); /* a GPU (VKOCC_TEST_PREBUILD=1: any device) */
void probes_prebuild_start(vkocc_context *ctx, const uint32_t *wg, const uint32_t *shared, uint32_t n);
bool probes_prebuilt_take(vkocc_context *ctx, uint32_t wg, uint32_t shared, core_kernel *k, vkocc_status *st);
void probes_prebuild_finish(vkocc_context *ctx);
/* The probe shader's records (8 words each: start lo/hi, end lo/hi, flags) as intervals in ns from the
 * first start; a clock whose high words are all 0 is read as 32-bit (lavapipe). Returns the number of
 * sleeps cut by the iteration bound (flag 2); cut_min_ns (may be NULL) gets the shortest of them, unchanged
 * without one. */
uint32_t probes_comb_read_records(const uint32_t *records, uint32_t n, double ns_per_tick, vkocc_interval *iv,
                                 double *cut_min_ns);
/* One one-workgroup dispatch: drivers that finish pipelines at first use do it here. */
vkocc_status probes_first_use(probes_session *ps, core_kernel *kernel);
vkocc_status probes_first_use_batch(probes_session *ps, core_kernel *kernels, uint32_t n); /* one submit */
vkocc_status probes_measure(probes_session *ps, core_kernel *kernel, const vkocc_calibration *cal,
                                 const vkocc_probe_options *opt, vkocc_probe_result *out);
/* Several points' combs in one command buffer: done[i] where out[i] is established; the rest
 * (no hint, not the comb alone, or not confirmed) go to probes_measure. kernels[i] stay bound elsewhere. */
vkocc_status probes_measure_batch(probes_session *ps, core_kernel *kernels, const vkocc_calibration *cal,
                                       const vkocc_probe_options *opts, uint32_t n, vkocc_probe_result *out, bool *done);
#endif
