/* Shader clocks against queue timestamps: spin a dependent chain for several lengths, bracket each
 * dispatch with timestamps, and fit queue ns against in-shader ticks (slope: ns per tick; intercept:
 * dispatch overhead). Warm-ups are discarded; lengths are interleaved across repeats so drift (clock
 * ramp-up) spreads over all lengths instead of bending the line. */
#include "internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const uint32_t vkocc_spv_calibrate_full[], vkocc_spv_calibrate_dev[], vkocc_spv_calibrate_sg[],
    vkocc_spv_calibrate_none[];
extern const size_t vkocc_spv_calibrate_full_size, vkocc_spv_calibrate_dev_size, vkocc_spv_calibrate_sg_size,
    vkocc_spv_calibrate_none_size;

/* Spin rounds (64 dependent steps each). Below lavapipe's 65535-iteration loop cap; 2 ms to 100 ms on
 * the devices we know. */
#define MAX_ITERATIONS 65000u

typedef struct {
  vkocc_context *ctx;
  vkocc_kernel k;
  vkocc_buffer out;
  uint32_t wraps, backwards;
} spin;

typedef struct { double ns; uint64_t rt, cyc; bool rt_ok, cyc_ok; } spin_sample;

static vkocc_status run_spin(spin *sp, uint32_t iterations, spin_sample *smp) {
  uint32_t push[2] = {iterations, 0x9e3779b9u ^ iterations};
  memset(sp->out.map, 0, 64);
  vkocc_tick_status ts;
  vkocc_status s = vkocc_dispatch_timed(sp->ctx, &sp->k, push, 1, &smp->ns, &ts);
  if (s) return s;
  if (ts == VKOCC_TICKS_WRAPPED) sp->wraps++;
  if (ts == VKOCC_TICKS_BACKWARDS) { sp->backwards++; smp->ns = NAN; }
  const uint32_t *o = sp->out.map;
  uint64_t rt0 = o[0] | (uint64_t)o[1] << 32, rt1 = o[2] | (uint64_t)o[3] << 32;
  uint64_t c0 = o[4] | (uint64_t)o[5] << 32, c1 = o[6] | (uint64_t)o[7] << 32;
  vkocc_tick_status a = vkocc_tick_delta(rt0, rt1, 64, &smp->rt);
  vkocc_tick_status b = vkocc_tick_delta(c0, c1, 64, &smp->cyc);
  smp->rt_ok = sp->ctx->device_clock && a != VKOCC_TICKS_BACKWARDS;
  smp->cyc_ok = sp->ctx->subgroup_clock && b != VKOCC_TICKS_BACKWARDS;
  if (sp->ctx->device_clock && a == VKOCC_TICKS_BACKWARDS) sp->backwards++;
  if (sp->ctx->subgroup_clock && b == VKOCC_TICKS_BACKWARDS) sp->backwards++;
  return VKOCC_OK;
}

vkocc_status vkocc_calibrate(vkocc_context *ctx, const vkocc_calibrate_options *opt, vkocc_calibration *cal) {
  vkocc_calibrate_options o = opt ? *opt : (vkocc_calibrate_options){0};
  if (!o.lengths) o.lengths = 8;
  if (o.span <= 1) o.span = 20;
  if (!o.repeats) o.repeats = 5;
  if (!o.warmups) o.warmups = 3;
  if (o.longest_ns <= 0) o.longest_ns = 4e6;
  if (o.lengths < 2 || o.lengths * o.repeats > 4096)
    return vkocc_fail(VKOCC_ERROR_USAGE, "calibration needs 2..4096 samples (lengths x repeats)");
  memset(cal, 0, sizeof *cal);
  cal->has_device_clock = ctx->device_clock;
  cal->has_subgroup_clock = ctx->subgroup_clock;
  cal->timestamp_period = ctx->info.timestamp_period;
  cal->timestamp_valid_bits = ctx->info.timestamp_valid_bits;

  const uint32_t *spv = vkocc_spv_calibrate_none;
  size_t spv_size = vkocc_spv_calibrate_none_size;
  if (ctx->device_clock && ctx->subgroup_clock) spv = vkocc_spv_calibrate_full, spv_size = vkocc_spv_calibrate_full_size;
  else if (ctx->device_clock) spv = vkocc_spv_calibrate_dev, spv_size = vkocc_spv_calibrate_dev_size;
  else if (ctx->subgroup_clock) spv = vkocc_spv_calibrate_sg, spv_size = vkocc_spv_calibrate_sg_size;

  spin sp = {.ctx = ctx};
  vkocc_status s = vkocc_buffer_create(ctx, 64, true, &sp.out);
  if (!s) s = vkocc_kernel_create(ctx, spv, spv_size, 1, 8, NULL, 0, &sp.k);
  if (s) { vkocc_buffer_destroy(ctx, &sp.out); return s; }
  vkocc_buffer *bufs[] = {&sp.out};
  vkocc_kernel_bind(ctx, &sp.k, bufs);

  spin_sample smp;
  /* The first dispatches after pipeline creation are slow (compilation, page faults): discard them. */
  for (uint32_t w = 0; w < o.warmups; w++)
    if ((s = run_spin(&sp, 16, &smp))) goto out;
  /* Size the spin: double until the median of 3 dispatches takes an eighth of the target (this also
   * wakes the GPU from idle clocks), then scale to the target. */
  uint32_t it = 16;
  double med = 0;
  for (;;) {
    double t[3];
    for (int i = 0; i < 3; i++) {
      if ((s = run_spin(&sp, it, &smp))) goto out;
      t[i] = isfinite(smp.ns) ? smp.ns : 0;
    }
    med = vkocc_median(t, 3);
    if (med >= o.longest_ns / 8 || it >= MAX_ITERATIONS) break;
    it = it * 2 > MAX_ITERATIONS ? MAX_ITERATIONS : it * 2;
  }
  double longest_it = fmin((double)MAX_ITERATIONS, it * o.longest_ns / fmax(med, 1.0));
  for (uint32_t w = 0; w < o.warmups; w++)
    if ((s = run_spin(&sp, (uint32_t)longest_it, &smp))) goto out;

  uint32_t n = o.lengths * o.repeats, m_rt = 0, m_cyc = 0, m_it = 0;
  double *y = calloc(n, sizeof *y), *x_it = calloc(n, sizeof *x_it), *y_rt = calloc(n, sizeof *y_rt),
         *x_rt = calloc(n, sizeof *x_rt), *y_cyc = calloc(n, sizeof *y_cyc), *x_cyc = calloc(n, sizeof *x_cyc);
  sp.wraps = sp.backwards = 0;
  for (uint32_t r = 0; r < o.repeats && !s; r++)
    for (uint32_t l = 0; l < o.lengths && !s; l++) {
      /* geometric ladder from longest/span to longest; odd repeats walk it downwards */
      uint32_t li = (r % 2) ? o.lengths - 1 - l : l;
      double frac = pow(o.span, (double)li / (o.lengths - 1)) / o.span;
      uint32_t iters = (uint32_t)fmax(1.0, longest_it * frac);
      if ((s = run_spin(&sp, iters, &smp))) break;
      if (!isfinite(smp.ns)) continue;
      cal->longest_ns = fmax(cal->longest_ns, smp.ns);
      x_it[m_it] = iters; y[m_it++] = smp.ns;
      if (smp.rt_ok) { x_rt[m_rt] = (double)smp.rt; y_rt[m_rt++] = smp.ns; }
      if (smp.cyc_ok) { x_cyc[m_cyc] = (double)smp.cyc; y_cyc[m_cyc++] = smp.ns; }
    }
  cal->samples = m_it;
  cal->wraps = sp.wraps;
  cal->backwards = sp.backwards;
  if (!s) s = vkocc_linfit_compute(x_it, y, m_it, true, &cal->spin_fit);
  cal->overhead_ns = cal->spin_fit.intercept;
  if (!s && ctx->device_clock) {
    if ((s = vkocc_linfit_compute(x_rt, y_rt, m_rt, true, &cal->realtime_fit))) goto done;
    cal->ns_per_tick = cal->realtime_fit.slope;
    cal->overhead_ns = cal->realtime_fit.intercept;
    cal->tick_equals_period = fabs(cal->ns_per_tick - cal->timestamp_period) <= 0.02 * cal->timestamp_period;
  }
  if (!s && ctx->subgroup_clock) {
    if ((s = vkocc_linfit_compute(x_cyc, y_cyc, m_cyc, true, &cal->subgroup_fit))) goto done;
    cal->shader_clock_mhz = 1e3 / cal->subgroup_fit.slope;
  }
  if (!ctx->device_clock || !ctx->subgroup_clock) {
    const char *why = !ctx->info.has_shader_clock_ext ? "the device lacks VK_KHR_shader_clock"
                      : (ctx->info.shader_device_clock && ctx->info.shader_subgroup_clock) ? "disabled by request"
                                                                                           : "feature not supported";
    snprintf(cal->note, sizeof cal->note, "%s%s%s: %s; queue timestamps alone were measured for it",
             ctx->device_clock ? "" : "realtime clock (shaderDeviceClock)",
             (!ctx->device_clock && !ctx->subgroup_clock) ? " and " : "",
             ctx->subgroup_clock ? "" : "subgroup clock (shaderSubgroupClock)", why);
  }
done:
  free(y); free(x_it); free(y_rt); free(x_rt); free(y_cyc); free(x_cyc);
out:
  vkocc_kernel_destroy(ctx, &sp.k);
  vkocc_buffer_destroy(ctx, &sp.out);
  return s;
}
