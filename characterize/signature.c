/* vkocc_signature_measure: the architecture signature's microbenchmarks (shaders/signature.comp) over the
 * executor. One workgroup per dispatch, each mode at two chain lengths; the slope between them in subgroup-clock
 * cycles is the value (launch, clock reads and the loop's entry cancel). Repeats interleave the modes so that a
 * clock ramp or a neighbour's load touches all of them alike; ratios are taken within one repeat. */
#include "exec.h"
#include "model.h"
#include "probe_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const uint32_t shaders_spv_signature[], shaders_spv_signature_f64[], shaders_spv_signature_f16[];
extern const size_t shaders_spv_signature_size, shaders_spv_signature_f64_size, shaders_spv_signature_f16_size;

enum { MODE_FMA_LAT, MODE_SHM_LAT, MODE_FP32, MODE_INT32, MODE_FP64, MODE_FP16, NMODES };
/* chain lengths in rounds of 64 operations: short enough for lavapipe's 65535-iteration loop cap and a few
 * hundred microseconds on a GPU, long enough that the slope dwarfs a clock read */
#define ROUNDS_SHORT 32u
#define ROUNDS_LONG 160u

typedef struct {
  vkocc_context *ctx;
  core_kernel k[NMODES];
  vkocc_status st[NMODES];
  char err[NMODES][100];
  bool want[NMODES];
  uint32_t wg;
} kernels;

static void create_one(void *user, uint32_t m) {
  kernels *ks = user;
  if (!ks->want[m]) return;
  const uint32_t *spv = shaders_spv_signature;
  size_t size = shaders_spv_signature_size;
  if (m == MODE_FP64) spv = shaders_spv_signature_f64, size = shaders_spv_signature_f64_size;
  if (m == MODE_FP16) spv = shaders_spv_signature_f16, size = shaders_spv_signature_f16_size;
  uint32_t spec[2] = {ks->wg, m};
  ks->st[m] = core_kernel_create(ks->ctx, spv, size, 1, 16, spec, 2, &ks->k[m]);
  if (ks->st[m]) snprintf(ks->err[m], sizeof ks->err[m], "%s", vkocc_last_error());
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, uint32_t n) {
  if (!n) return NAN;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Cycles of one dispatch: invocation 0's (latency modes) or the median of every invocation's. */
static vkocc_status run_mode(kernels *ks, core_buffer *out, uint32_t m, uint32_t rounds, double *cycles) {
  struct { uint32_t rounds, stride; float a, b; } push = {rounds, 37u, 1.0000001f, 1e-7f};
  uint32_t n = m <= MODE_SHM_LAT ? 1 : ks->wg;
  memset(out->map, 0, (size_t)(4 * ks->wg + 1) * 4);
  vkocc_status s = core_dispatch_timed(ks->ctx, &ks->k[m], &push, 1, NULL, NULL);
  if (s) return s;
  const uint32_t *o = out->map;
  double *d = util_xmalloc(n * sizeof *d);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t *r = o + 4 * i;
    uint64_t delta;
    /* Mesa 22.3 returns 0 in the clock's high word: such a pair is a 32-bit counter (calibrate/calibrate.c) */
    vkocc_tick_status t = vkocc_tick_delta(r[0] | (uint64_t)r[1] << 32, r[2] | (uint64_t)r[3] << 32,
                                           (r[1] | r[3]) ? 64 : 32, &delta);
    if (t != VKOCC_TICKS_BACKWARDS && (r[0] | r[1] | r[2] | r[3])) d[k++] = (double)delta;
  }
  *cycles = median(d, k);
  free(d);
  return VKOCC_OK;
}

static void set_stats(vkocc_sig_value *v, const double *x, uint32_t n) {
  double tmp[VKOCC_SIG_MAX_REPEATS];
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    if (isfinite(x[i]) && x[i] > 0) v->samples[k] = x[i], tmp[k++] = x[i];
  v->repeats = k;
  if (!k) {
    v->state = VKOCC_SIG_UNAVAILABLE;
    v->value = NAN;
    snprintf(v->reason, sizeof v->reason, "no repeat gave a positive slope");
    return;
  }
  v->value = median(tmp, k);
  v->spread = (tmp[k - 1] - tmp[0]) / v->value;
}

/* One measurement of every wanted mode, `repeats` times. */
static vkocc_status measure(kernels *ks, core_buffer *out, uint32_t repeats, vkocc_signature *g) {
  double val[NMODES][VKOCC_SIG_MAX_REPEATS];
  for (uint32_t r = 0; r < repeats; r++)
    for (uint32_t m = 0; m < NMODES; m++) {
      val[m][r] = NAN;
      if (!ks->want[m] || ks->st[m]) continue;
      double c0, c1;
      vkocc_status s;
      if ((s = run_mode(ks, out, m, ROUNDS_SHORT, &c0)) || (s = run_mode(ks, out, m, ROUNDS_LONG, &c1))) return s;
      double per_round = (c1 - c0) / (ROUNDS_LONG - ROUNDS_SHORT);
      if (m <= MODE_SHM_LAT) val[m][r] = per_round / 64; /* cycles per dependent operation */
      else val[m][r] = (double)ks->wg * 64 * (m == MODE_FP16 ? 2 : 1) / per_round; /* operations per cycle */
    }
  static const int sig_of_mode[NMODES] = {VKOCC_SIG_FMA_LATENCY, VKOCC_SIG_SHARED_LATENCY, VKOCC_SIG_FP32_RATE,
                                          VKOCC_SIG_INT32_RATIO, VKOCC_SIG_FP64_RATIO, VKOCC_SIG_FP16_RATIO};
  for (uint32_t m = 0; m < NMODES; m++) {
    vkocc_sig_value *v = &g->v[sig_of_mode[m]];
    if (v->state != VKOCC_SIG_MEASURED && v->state != VKOCC_SIG_NOT_STABLE) continue;
    double x[VKOCC_SIG_MAX_REPEATS];
    for (uint32_t r = 0; r < repeats; r++)
      x[r] = m >= MODE_INT32 ? val[m][r] / val[MODE_FP32][r] : val[m][r]; /* ratios within one repeat */
    set_stats(v, x, repeats);
  }
  return VKOCC_OK;
}

/* The signature's pipelines made once and dropped: the context's pipeline cache then holds them, so that
 * vkocc_signature_measure, later, makes them in a fraction of the time. For a thread of its own while the
 * device measures something else; the same workgroup size as the measurement, the modes the device enables. */
void characterize_signature_warm_pipelines(vkocc_context *ctx) {
  const vkocc_device_info *d = &ctx->info;
  if (!ctx->subgroup_clock || !probes_prebuild_pays(ctx)) return;
  compile_module_limits lim;
  core_module_limits_of(ctx, &lim);
  uint32_t maxwg = d->max_invocations < d->max_wg_size_x ? d->max_invocations : d->max_wg_size_x;
  kernels ks = {.ctx = ctx, .wg = maxwg < 1024 ? maxwg : 1024};
  for (int m = 0; m < NMODES; m++) ks.want[m] = true;
  ks.want[MODE_FP64] = lim.enabled >> VKOCC_FEAT_FLOAT64 & 1;
  ks.want[MODE_FP16] = lim.enabled >> VKOCC_FEAT_FLOAT16 & 1;
  util_parallel_for(NMODES, NMODES, create_one, &ks);
  for (int m = 0; m < NMODES; m++)
    if (ks.want[m] && !ks.st[m]) core_kernel_destroy(ctx, &ks.k[m]);
  vkocc_clear_error(); /* a pipeline that fails here fails again, with its message, in the measurement */
}

vkocc_status vkocc_signature_measure(vkocc_context *ctx, const vkocc_signature_options *options, vkocc_signature *g) {
  vkocc_clear_error();
  if (!ctx || !g) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_signature_measure: no context or no output");
  memset(g, 0, sizeof *g);
  uint32_t repeats = options && options->repeats ? options->repeats : 5;
  uint32_t attempts = options && options->max_attempts ? options->max_attempts : 3;
  if (repeats > VKOCC_SIG_MAX_REPEATS || attempts > 20)
    return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_signature_measure: %u repeats (at most %d) or %u attempts (at most 20)",
                      repeats, VKOCC_SIG_MAX_REPEATS, attempts);
  double t0 = vkocc_now_ms();
  const vkocc_device_info *d = &ctx->info;
  g->present = true;
  g->vendor_id = d->vendor_id;
  core_subgroup_size_range(ctx, &g->subgroup_min, &g->subgroup_max);
  compile_module_limits lim;
  core_module_limits_of(ctx, &lim);
  /* what the device supports is the fact; what this context enabled decides whether the probe may run (an
   * application's device, vkocc_context_create_external, enables what vkocc cannot know) */
  g->float64 = lim.supported >> VKOCC_FEAT_FLOAT64 & 1;
  g->int64 = lim.supported >> VKOCC_FEAT_INT64 & 1;
  g->float16 = lim.supported >> VKOCC_FEAT_FLOAT16 & 1;
  bool run64 = lim.enabled >> VKOCC_FEAT_FLOAT64 & 1, run16 = lim.enabled >> VKOCC_FEAT_FLOAT16 & 1;
  bool cpu = d->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  /* a CPU device runs a workgroup's invocations one subgroup after another: a small workgroup costs less and
   * its values stay out of the ID anyway */
  uint32_t maxwg = d->max_invocations < d->max_wg_size_x ? d->max_invocations : d->max_wg_size_x;
  g->workgroup_size = cpu ? (maxwg < 64 ? maxwg : 64) : (maxwg < 1024 ? maxwg : 1024);
  for (int i = 0; i < VKOCC_SIG_COUNT; i++) {
    vkocc_sig_value *v = &g->v[i];
    v->value = NAN;
    v->state = cpu ? VKOCC_SIG_NOT_STABLE : VKOCC_SIG_MEASURED;
    if (cpu)
      snprintf(v->reason, sizeof v->reason, "a CPU device: its clockARB is no cycle counter of a fixed pipeline");
  }
  if (!g->float64) g->v[VKOCC_SIG_FP64_RATIO].state = VKOCC_SIG_UNSUPPORTED, g->v[VKOCC_SIG_FP64_RATIO].reason[0] = 0;
  if (!g->float16) g->v[VKOCC_SIG_FP16_RATIO].state = VKOCC_SIG_UNSUPPORTED, g->v[VKOCC_SIG_FP16_RATIO].reason[0] = 0;
  for (int k = 0; k < 2; k++) {
    vkocc_sig_value *v = &g->v[k ? VKOCC_SIG_FP16_RATIO : VKOCC_SIG_FP64_RATIO];
    if (v->state != VKOCC_SIG_UNSUPPORTED && !(k ? run16 : run64)) {
      v->state = VKOCC_SIG_UNAVAILABLE;
      snprintf(v->reason, sizeof v->reason, "%s is supported but not enabled on this context's device",
               k ? "shaderFloat16" : "shaderFloat64");
    }
  }
  if (!ctx->subgroup_clock) {
    for (int i = 0; i < VKOCC_SIG_COUNT; i++)
      if (g->v[i].state != VKOCC_SIG_UNSUPPORTED) {
        g->v[i].state = VKOCC_SIG_UNAVAILABLE;
        snprintf(g->v[i].reason, sizeof g->v[i].reason, "%s", ctx->info.shader_subgroup_clock
                     ? "the subgroup clock is disabled in this context" : "the device lacks shaderSubgroupClock");
      }
    g->elapsed_ms = vkocc_now_ms() - t0;
    return VKOCC_OK;
  }
  kernels ks = {.ctx = ctx, .wg = g->workgroup_size};
  static const int sig_of_mode[NMODES] = {VKOCC_SIG_FMA_LATENCY, VKOCC_SIG_SHARED_LATENCY, VKOCC_SIG_FP32_RATE,
                                          VKOCC_SIG_INT32_RATIO, VKOCC_SIG_FP64_RATIO, VKOCC_SIG_FP16_RATIO};
  for (int m = 0; m < NMODES; m++)
    ks.want[m] = g->v[sig_of_mode[m]].state == VKOCC_SIG_MEASURED || g->v[sig_of_mode[m]].state == VKOCC_SIG_NOT_STABLE;
  core_buffer out;
  vkocc_status s = core_buffer_create(ctx, (VkDeviceSize)(4 * ks.wg + 1) * 4, true, &out);
  if (s) return s;
  util_parallel_for(NMODES, 0, create_one, &ks);
  for (int m = 0; m < NMODES; m++) {
    if (!ks.want[m]) continue;
    if (ks.st[m]) {
      vkocc_sig_value *v = &g->v[sig_of_mode[m]];
      v->state = VKOCC_SIG_UNAVAILABLE;
      snprintf(v->reason, sizeof v->reason, "the pipeline failed: %s", ks.err[m]);
      continue;
    }
    core_buffer *b[] = {&out};
    core_kernel_bind(ctx, &ks.k[m], b);
  }
  /* the ratios need the FP32 rate */
  if (ks.st[MODE_FP32] || !ks.want[MODE_FP32])
    for (int m = MODE_INT32; m < NMODES; m++)
      if (g->v[sig_of_mode[m]].state == VKOCC_SIG_MEASURED || g->v[sig_of_mode[m]].state == VKOCC_SIG_NOT_STABLE) {
        g->v[sig_of_mode[m]].state = VKOCC_SIG_UNAVAILABLE;
        snprintf(g->v[sig_of_mode[m]].reason, sizeof g->v[sig_of_mode[m]].reason, "no FP32 rate to divide by");
        ks.want[m] = false;
      }
  /* warm-up: the first dispatches after pipeline creation are slow, and a GPU leaves its idle clock */
  for (int m = 0; m < NMODES && !s; m++) {
    double c;
    if (ks.want[m] && !ks.st[m]) s = run_mode(&ks, &out, (uint32_t)m, ROUNDS_SHORT, &c);
  }
  int bad = -1;
  int32_t qa = 0, qb = 0;
  for (uint32_t a = 0; a < attempts && !s; a++) {
    g->attempts = a + 1;
    if ((s = measure(&ks, &out, repeats, g))) break;
    if ((bad = fingerprint_signature_unstable(g, &qa, &qb)) < 0) break;
  }
  for (int m = 0; m < NMODES; m++) core_kernel_destroy(ctx, &ks.k[m]);
  core_buffer_destroy(ctx, &out);
  g->elapsed_ms = vkocc_now_ms() - t0;
  if (s) return s;
  if (bad >= 0) {
    const vkocc_sig_value *v = &g->v[bad];
    char list[VKOCC_SIG_MAX_REPEATS * 16] = "";
    size_t n = 0;
    for (uint32_t r = 0; r < v->repeats && n < sizeof list; r++)
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%.4g", r ? ", " : "", v->samples[r]);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "architecture signature of %s: %s is not stable after %u measurements: "
                      "repeats %s (median %.4g, spread %.1f%%) straddle quantization steps %d and %d",
                      d->name, vkocc_sig_signal_name((vkocc_sig_signal)bad), g->attempts, list, v->value,
                      100 * v->spread, (int)qa, (int)qb);
  }
  return VKOCC_OK;
}
