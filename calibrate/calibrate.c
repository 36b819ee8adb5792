/* Shader clocks against queue timestamps: spin a dependent chain for several lengths, bracket each
 * dispatch with timestamps, and fit queue ns against in-shader ticks (slope: ns per tick; intercept:
 * dispatch overhead). Warm-ups are discarded; lengths are interleaved across repeats so drift (clock
 * ramp-up) spreads over all lengths instead of bending the line. The realtime clock's ns per tick comes
 * from the dispatches' starts instead (calibrate_anchor_fit), the intervals' fit kept beside it. */
#include "calibrate.h"
#include "exec.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const uint32_t shaders_spv_calibrate_full[], shaders_spv_calibrate_dev[], shaders_spv_calibrate_sg[],
    shaders_spv_calibrate_none[];
extern const size_t shaders_spv_calibrate_full_size, shaders_spv_calibrate_dev_size, shaders_spv_calibrate_sg_size,
    shaders_spv_calibrate_none_size;

/* Spin rounds (256 dependent steps each). Below lavapipe's 65535-iteration loop cap; 8 ms to 400 ms on
 * the devices we know. */
#define MAX_ITERATIONS 65000u

typedef struct {
  vkocc_context *ctx;
  core_kernel k;
  core_buffer out;
  uint32_t wraps, backwards;
} spin;

typedef struct {
  double ns;
  uint64_t rt, cyc;
  bool rt_ok, cyc_ok;
  calibrate_clock_anchor start; /* the queue's first timestamp and the realtime clock at the spin's start */
  bool rt64;                /* the realtime clock gave a high word */
} spin_sample;

static vkocc_status run_spin(spin *sp, uint32_t iterations, spin_sample *smp) {
  uint32_t push[2] = {iterations, 0x9e3779b9u ^ iterations};
  memset(sp->out.map, 0, 64);
  core_batch_record rec;
  vkocc_status s = core_dispatch_timed_record(sp->ctx, &sp->k, push, 1, &rec);
  if (s) return s;
  vkocc_tick_status ts = rec.tick;
  smp->ns = rec.ns;
  if (ts == VKOCC_TICKS_WRAPPED) sp->wraps++;
  if (ts == VKOCC_TICKS_BACKWARDS) { sp->backwards++; smp->ns = NAN; }
  const uint32_t *o = sp->out.map;
  uint64_t rt0 = o[0] | (uint64_t)o[1] << 32, rt1 = o[2] | (uint64_t)o[3] << 32;
  uint64_t c0 = o[4] | (uint64_t)o[5] << 32, c1 = o[6] | (uint64_t)o[7] << 32;
  /* Mesa 22.3's gallivm returns 0 in the high word of both clocks (the 64-bit value is shifted left, not
   * right, before truncation: measured, every record has hi = 0), so they wrap every 2^32 ticks (4.3 s
   * of ns). Two zero high words with end < start can only be such a wrap; read them as 32-bit. */
  vkocc_tick_status a = vkocc_tick_delta(rt0, rt1, (o[1] | o[3]) ? 64 : 32, &smp->rt);
  vkocc_tick_status b = vkocc_tick_delta(c0, c1, (o[5] | o[7]) ? 64 : 32, &smp->cyc);
  smp->rt_ok = sp->ctx->device_clock && a != VKOCC_TICKS_BACKWARDS;
  smp->start = (calibrate_clock_anchor){rec.start, rt0};
  smp->rt64 = (o[1] | o[3]) != 0;
  smp->cyc_ok = sp->ctx->subgroup_clock && b != VKOCC_TICKS_BACKWARDS;
  if (a == VKOCC_TICKS_WRAPPED || b == VKOCC_TICKS_WRAPPED) sp->wraps++;
  if (sp->ctx->device_clock && a == VKOCC_TICKS_BACKWARDS) sp->backwards++;
  if (sp->ctx->subgroup_clock && b == VKOCC_TICKS_BACKWARDS) sp->backwards++;
  return VKOCC_OK;
}

vkocc_status calibrate_anchor_fit(const calibrate_clock_anchor *a, uint32_t n, uint32_t ts_bits, double period,
                                          uint32_t rt_bits, double interval_ns_per_tick, vkocc_linfit *fit,
                                          double *span_ns) {
  memset(fit, 0, sizeof *fit);
  *span_ns = 0;
  if (!n) return vkocc_fail(VKOCC_ERROR_RUNTIME, "no dispatch starts to fit the realtime clock against");
  double *x = util_xcalloc(n, sizeof *x), *y = util_xcalloc(n, sizeof *y);
  const double range = rt_bits >= 64 ? 0 : ldexp(1.0, (int)rt_bits);
  const uint64_t mask = rt_bits >= 64 ? ~0ull : (1ull << rt_bits) - 1;
  calibrate_clock_anchor prev = a[0];
  uint32_t m = 1;
  for (uint32_t i = 1; i < n; i++) {
    uint64_t dts;
    if (vkocc_tick_delta(prev.ts, a[i].ts, ts_bits, &dts) == VKOCC_TICKS_BACKWARDS) continue;
    double dy = (double)dts * period, dx;
    if (rt_bits >= 64) {
      if (a[i].rt < prev.rt) continue;
      dx = (double)(a[i].rt - prev.rt);
    } else {
      /* A narrow clock wraps between dispatches (lavapipe's every 4.3 s); the queue time between the two
       * starts says how many times (an error of a few percent in the estimate is far from half a wrap). */
      dx = (double)((a[i].rt - prev.rt) & mask);
      if (interval_ns_per_tick > 0) dx += range * round((dy / interval_ns_per_tick - dx) / range);
      if (dx < 0) continue;
    }
    x[m] = x[m - 1] + dx, y[m] = y[m - 1] + dy;
    prev = a[i], m++;
  }
  vkocc_status s = vkocc_linfit_compute(x, y, m, true, fit);
  if (!s) *span_ns = y[m - 1];
  free(x);
  free(y);
  return s;
}

/* Replaces the samples of each spin length (equal key) by the fastest one (least y, queue ns), skipping
 * samples whose `ok` is false; x comes from the same sample. Returns the number of points left.
 * The fastest, not the median: whatever else runs only adds to a queue interval (on a CPU device the OS
 * delays the driver's threads by milliseconds), and the fastest sample's clock reading covers the same
 * interval as its timestamps. With the median of 5, a loaded machine once left R^2 at 0.9897. */
static uint32_t fastest_by_length(const double *key, const bool *ok, const double *x, const double *y, uint32_t n,
                                  double *mx, double *my) {
  uint32_t out = 0;
  bool *done = util_xcalloc(n, sizeof *done);
  for (uint32_t i = 0; i < n; i++) {
    if (done[i]) continue;
    int64_t best = -1;
    for (uint32_t j = i; j < n; j++)
      if (!done[j] && key[j] == key[i]) {
        done[j] = true;
        if (ok[j] && (best < 0 || y[j] < y[best])) best = j;
      }
    if (best >= 0) mx[out] = x[best], my[out++] = y[best];
  }
  free(done);
  return out;
}

/* A CPU device's timestamps include OS wake-ups that grow with the wait (deeper idle states): longer
 * spins make that excess a smaller part of each interval. */
static double default_longest_ns(const vkocc_context *ctx) {
  return ctx->info.device_type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 16e6 : 4e6;
}

/* Why the starts: a dispatch's interval also holds what follows the spin, and on lavapipe that grows with
 * the spin (measured on a 2-core VM: 60-150 us after a 1 ms spin, 220-330 us after a 15 ms one, from the
 * clock read at the spin's end to the queue's end timestamp), which tilted the intervals' line to 1.01-1.04
 * ns per tick where both clocks are the same host nanoseconds. The time from the queue's start timestamp to
 * the spin's first clock read stayed at 30-80 us, and over the run's 200-400 ms the starts gave
 * 0.99990-1.00002 (beside two CPU hogs; 1.0000 on the quiet machine). */
void calibrate_choose_tick(vkocc_calibration *cal, const calibrate_clock_anchor *starts, uint32_t n, uint32_t rt_bits,
                                   uint32_t lengths, char *note, size_t note_size) {
  const double interval = cal->realtime_fit.slope;
  if (note_size) note[0] = 0; /* "" when there is nothing to say */
  vkocc_status s = calibrate_anchor_fit(starts, n, cal->timestamp_valid_bits, cal->timestamp_period, rt_bits,
                                                interval, &cal->anchor_fit, &cal->anchor_span_ns);
  const double a = cal->anchor_fit.slope;
  cal->ns_per_tick = interval;
  cal->from_starts = false;
  if (!s && a > 0 && isfinite(a) && cal->anchor_fit.n_used >= lengths && fabs(a / interval - 1) <= 0.10) {
    cal->ns_per_tick = a;
    cal->from_starts = true;
    if (fabs(interval / a - 1) > 0.02)
      snprintf(note, note_size, "the dispatch intervals give %.4f ns per realtime tick, %+.1f%% from the starts' %.4f "
               "(work after the spin grows with it): the starts' figure is used", interval, 100 * (interval / a - 1), a);
  } else if (s) {
    vkocc_clear_error(); /* not the calibration's failure: the intervals' fit stands */
    snprintf(note, note_size, "too few dispatch starts to fit the realtime clock against (%u): the intervals' %.4g ns per "
             "tick is used", n, interval);
  } else if (cal->anchor_fit.n_used < lengths) {
    snprintf(note, note_size, "the starts' fit kept %u of %u starts, fewer than the %u lengths: the intervals' %.4g ns per "
             "tick is used (the starts gave %.4g)", cal->anchor_fit.n_used, n, lengths, interval, a);
  } else {
    snprintf(note, note_size, "the realtime clock at the dispatches' starts does not follow the queue timestamps (%.4g "
             "ns per tick over %u of %u starts): the intervals' %.4g is used", a, cal->anchor_fit.n_used, n, interval);
  }
  cal->tick_equals_period = fabs(cal->ns_per_tick - cal->timestamp_period) <= 0.02 * cal->timestamp_period;
}

bool calibrate_plausible(double npt, const char *clock, const double *ticks, const double *ns, uint32_t n,
                                 double period, char *why, size_t len) {
  if (!(npt > 0) || !isfinite(npt)) {
    snprintf(why, len, "%s: %.4g ns per tick is no clock period", clock, npt);
    return false;
  }
  if (!n) {
    snprintf(why, len, "%s: no spins to judge the clock by", clock);
    return false;
  }
  double lo_ns = INFINITY, hi_ns = 0, lo_ticks = INFINITY;
  uint32_t worst = UINT32_MAX;
  double worst_ratio = 0;
  for (uint32_t i = 0; i < n; i++) {
    lo_ns = fmin(lo_ns, ns[i]), hi_ns = fmax(hi_ns, ns[i]), lo_ticks = fmin(lo_ticks, ticks[i]);
    double inside = ticks[i] * npt, allowed = ns[i] * 1.01 + 4 * period;
    if (inside > allowed && inside / allowed > worst_ratio) worst = i, worst_ratio = inside / allowed;
  }
  if (worst != UINT32_MAX) {
    snprintf(why, len, "%s: %.4g ns per tick would make a spin of %.0f ticks last %.1f us, longer than its whole dispatch "
             "(%.1f us between the queue timestamps)", clock, npt, ticks[worst], ticks[worst] * npt / 1e3, ns[worst] / 1e3);
    return false;
  }
  if (lo_ticks < 100) {
    snprintf(why, len, "%s: spins too short to judge: the shortest read %.0f ticks (at least 100 are needed)", clock,
             lo_ticks);
    return false;
  }
  if (hi_ns - lo_ns < 1000 * period) {
    snprintf(why, len, "%s: spins too short to judge: they span %.2f us of queue time, less than 1000 timestamp ticks "
             "(%.2f us)", clock, (hi_ns - lo_ns) / 1e3, 1000 * period / 1e3);
    return false;
  }
  return true;
}

/* *no_line: the samples did not make a line (fewer than 2 distinct lengths); measuring again may help.
 * implausible (256 bytes): why the figures are not what the timestamps allow ("" when they are). */
static vkocc_status measure_once(vkocc_context *ctx, const vkocc_calibrate_options *opt, vkocc_calibration *cal,
                                 bool *no_line, char *implausible) {
  *no_line = false;
  implausible[0] = 0;
  vkocc_calibrate_options o = opt ? *opt : (vkocc_calibrate_options){0};
  if (!o.lengths) o.lengths = 8;
  if (o.span <= 1) o.span = 20;
  if (!o.repeats) o.repeats = 5;
  if (!o.warmups) o.warmups = 3;
  if (o.longest_ns <= 0) o.longest_ns = default_longest_ns(ctx);
  if (o.lengths < VKOCC_CALIBRATION_MIN_LENGTHS)
    return vkocc_fail(VKOCC_ERROR_USAGE, "calibration needs at least %u spin lengths, got %u (2 or 3 points fit a line "
                      "with R^2 near 1 whatever they measured)", VKOCC_CALIBRATION_MIN_LENGTHS, o.lengths);
  if (o.lengths * o.repeats > 4096)
    return vkocc_fail(VKOCC_ERROR_USAGE, "calibration needs at most 4096 samples (lengths x repeats), got %u",
                      o.lengths * o.repeats);
  memset(cal, 0, sizeof *cal);
  cal->has_device_clock = ctx->device_clock;
  cal->has_subgroup_clock = ctx->subgroup_clock;
  cal->timestamp_period = ctx->info.timestamp_period;
  cal->timestamp_valid_bits = ctx->info.timestamp_valid_bits;

  const uint32_t *spv = shaders_spv_calibrate_none;
  size_t spv_size = shaders_spv_calibrate_none_size;
  if (ctx->device_clock && ctx->subgroup_clock) spv = shaders_spv_calibrate_full, spv_size = shaders_spv_calibrate_full_size;
  else if (ctx->device_clock) spv = shaders_spv_calibrate_dev, spv_size = shaders_spv_calibrate_dev_size;
  else if (ctx->subgroup_clock) spv = shaders_spv_calibrate_sg, spv_size = shaders_spv_calibrate_sg_size;

  spin sp = {.ctx = ctx};
  vkocc_status s = core_buffer_create(ctx, 64, true, &sp.out);
  if (!s) s = core_kernel_create(ctx, spv, spv_size, 1, 8, NULL, 0, &sp.k);
  if (s) { core_buffer_destroy(ctx, &sp.out); return s; }
  core_buffer *bufs[] = {&sp.out};
  core_kernel_bind(ctx, &sp.k, bufs);

  spin_sample smp;
  /* The first dispatches after pipeline creation are slow (compilation, page faults): discard them. */
  for (uint32_t w = 0; w < o.warmups; w++)
    if ((s = run_spin(&sp, 16, &smp))) goto out;
  /* Size the spin: double until the fastest of 3 dispatches takes an eighth of the target (this also
   * wakes the GPU from idle clocks), then scale to the target and check that length the same way.
   * The fastest, not the median: on a loaded CPU device a queue interval includes the OS scheduling the
   * driver's threads, and one spin of 1 round read 16 ms twice out of 3 (measured beside two CPU hogs).
   * With the median that stopped the doubling at 1 round, the ladder collapsed to 1-4 rounds (a few us)
   * and the fit over it gave -2.4 or -43 ns per tick; the probe then asked for a sleep of ~2^32 ticks
   * and every sleep ended at the iteration bound ("sleeps cut at the iteration bound"). */
  uint32_t it = 16;
  double fastest = 0, longest_it = 16;
  for (int check = 0; check < 4; check++) {
    for (;;) {
      fastest = INFINITY;
      for (int i = 0; i < 3; i++) {
        if ((s = run_spin(&sp, it, &smp))) goto out;
        if (isfinite(smp.ns) && smp.ns < fastest) fastest = smp.ns;
      }
      if (!isfinite(fastest)) fastest = 0;
      if (fastest >= o.longest_ns / 8 || it >= MAX_ITERATIONS) break;
      it = it * 2 > MAX_ITERATIONS ? MAX_ITERATIONS : it * 2;
    }
    longest_it = fmin((double)MAX_ITERATIONS, it * o.longest_ns / fmax(fastest, 1.0));
    if (longest_it >= MAX_ITERATIONS) break;
    /* the scaled length must take at least half the target (its fastest of 3), else size again from it */
    double t = INFINITY;
    for (int i = 0; i < 3; i++) {
      if ((s = run_spin(&sp, (uint32_t)longest_it, &smp))) goto out;
      if (isfinite(smp.ns) && smp.ns < t) t = smp.ns;
    }
    if (t >= o.longest_ns / 2) break;
    it = (uint32_t)longest_it;
  }
  for (uint32_t w = 0; w < o.warmups; w++)
    if ((s = run_spin(&sp, (uint32_t)longest_it, &smp))) goto out;

  uint32_t n = o.lengths * o.repeats, m = 0;
  double *it_s = util_xcalloc(n, sizeof *it_s), *ns_s = util_xcalloc(n, sizeof *ns_s), *rt_s = util_xcalloc(n, sizeof *rt_s),
         *cyc_s = util_xcalloc(n, sizeof *cyc_s), *fx = util_xcalloc(n, sizeof *fx), *fy = util_xcalloc(n, sizeof *fy);
  bool *all = util_xcalloc(n, sizeof *all), *rt_ok = util_xcalloc(n, sizeof *rt_ok), *cyc_ok = util_xcalloc(n, sizeof *cyc_ok);
  calibrate_clock_anchor *starts = util_xcalloc(n, sizeof *starts);
  uint32_t nstarts = 0;
  bool rt64 = false;
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
      it_s[m] = iters, ns_s[m] = smp.ns, rt_s[m] = (double)smp.rt, cyc_s[m] = (double)smp.cyc;
      all[m] = true, rt_ok[m] = smp.rt_ok, cyc_ok[m] = smp.cyc_ok;
      if (smp.rt_ok) starts[nstarts++] = smp.start, rt64 |= smp.rt64;
      m++;
    }
  cal->samples = m;
  cal->wraps = sp.wraps;
  cal->backwards = sp.backwards;
  /* Each fit runs over the fastest sample of each length: a dispatch delayed by the OS or the driver
   * moves one sample, not the line (on a loaded 2-core machine a fit over all samples wandered by 3%). */
  uint32_t k;
  char anchor_note[160] = "";
  if (!s) {
    k = fastest_by_length(it_s, all, it_s, ns_s, m, fx, fy);
    s = vkocc_linfit_compute(fx, fy, k, true, &cal->spin_fit);
    if (s) { *no_line = true; goto done; }
  }
  cal->overhead_ns = cal->spin_fit.intercept;
  if (!s && ctx->device_clock) {
    k = fastest_by_length(it_s, rt_ok, rt_s, ns_s, m, fx, fy);
    if ((s = vkocc_linfit_compute(fx, fy, k, true, &cal->realtime_fit))) { *no_line = true; goto done; }
    cal->overhead_ns = cal->realtime_fit.intercept;
    calibrate_choose_tick(cal, starts, nstarts, rt64 ? 64 : 32, o.lengths, anchor_note, sizeof anchor_note);
    calibrate_plausible(cal->ns_per_tick, "realtime clock", fx, fy, k, cal->timestamp_period, implausible, 256);
  }
  if (!s && ctx->subgroup_clock) {
    k = fastest_by_length(it_s, cyc_ok, cyc_s, ns_s, m, fx, fy);
    if ((s = vkocc_linfit_compute(fx, fy, k, true, &cal->subgroup_fit))) { *no_line = true; goto done; }
    cal->shader_clock_mhz = 1e3 / cal->subgroup_fit.slope;
    if (!implausible[0])
      calibrate_plausible(cal->subgroup_fit.slope, "subgroup clock", fx, fy, k, cal->timestamp_period,
                                  implausible, 256);
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
  if (anchor_note[0]) {
    size_t len = strlen(cal->note);
    snprintf(cal->note + len, sizeof cal->note - len, "%s%s", len ? "; " : "", anchor_note);
  }
done:
  free(it_s); free(ns_s); free(rt_s); free(cyc_s); free(fx); free(fy); free(all); free(rt_ok); free(cyc_ok);
  free(starts);
out:
  core_kernel_destroy(ctx, &sp.k);
  core_buffer_destroy(ctx, &sp.out);
  return s;
}

bool calibrate_fit_good(const vkocc_calibration *cal, uint32_t lengths) {
  const vkocc_linfit *f = cal->has_device_clock ? &cal->realtime_fit : &cal->spin_fit;
  bool line = lengths >= VKOCC_CALIBRATION_MIN_LENGTHS && f->n == lengths && f->slope > 0 && isfinite(f->slope) &&
              (!cal->has_subgroup_clock || (cal->subgroup_fit.n == lengths && cal->subgroup_fit.slope > 0 &&
                                            isfinite(cal->subgroup_fit.slope)));
  return line && f->r2 >= 0.999 && (!cal->has_subgroup_clock || cal->subgroup_fit.r2 >= 0.999);
}

/* A fit that explains the data poorly means the samples did not measure the spin (seen on a loaded
 * 2-core machine under lavapipe: spins cut short, ticks no longer tracking queue time; once R^2 0.037 and
 * -1.136 ns per tick). It is measured again with spins 4 and 16 times longer and twice the repeats (what
 * delays a dispatch adds to its interval; a longer spin makes that a smaller part of it), at most three
 * times in all, and a poor
 * final fit is refused with its numbers (poor_fit set, the figures kept for `vkocc calibrate` to print),
 * never passed on to a probe as a clock period. */
static vkocc_status calibrate(vkocc_context *ctx, const vkocc_calibrate_options *opt, vkocc_calibration *cal);

/* with the device to itself: another vkocc process's work beside the spins would bend the line */
vkocc_status vkocc_calibrate(vkocc_context *ctx, const vkocc_calibrate_options *opt, vkocc_calibration *cal) {
  vkocc_clear_error();
  vkocc_status s = core_device_exclusive_begin(ctx, "the clock calibration");
  if (s) return s;
  s = calibrate(ctx, opt, cal);
  core_device_exclusive_end(ctx);
  return s;
}

static vkocc_status calibrate(vkocc_context *ctx, const vkocc_calibrate_options *opt, vkocc_calibration *cal) {
  vkocc_status s = VKOCC_OK;
  vkocc_calibrate_options o = opt ? *opt : (vkocc_calibrate_options){0};
  double longest = o.longest_ns > 0 ? o.longest_ns : default_longest_ns(ctx);
  uint32_t repeats = o.repeats ? o.repeats : 5, lengths = o.lengths ? o.lengths : 8;
  char implausible[256] = "";
  for (uint32_t attempt = 1; attempt <= 3; attempt++) {
    bool no_line;
    o.longest_ns = longest * (attempt == 1 ? 1 : attempt == 2 ? 4 : 16);
    /* and twice the repeats: the fastest of more samples per length is less likely to be a delayed one */
    if (attempt > 1 && 2 * repeats * lengths <= 4096) o.repeats = 2 * repeats;
    s = measure_once(ctx, &o, cal, &no_line, implausible);
    cal->attempts = attempt;
    if (s && no_line && attempt < 3) continue;
    if (s) return s;
    /* a line that fits but that the timestamps do not allow (or spins too short to judge) is measured again
     * with longer spins, as a poor fit is */
    if (calibrate_fit_good(cal, lengths) && !implausible[0]) return VKOCC_OK;
  }
  if (implausible[0] && calibrate_fit_good(cal, lengths)) {
    size_t len = strlen(cal->note);
    snprintf(cal->note + len, sizeof cal->note - len, "%simplausible after 3 attempts: the clock figures are refused",
             len ? "; " : "");
    cal->poor_fit = true;
    return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_NOISY, "calibration implausible after 3 attempts, spins "
                             "up to %.3g ms: %s; measure again with longer spins (--longest-ms) or on a quieter device",
                             cal->longest_ns / 1e6, implausible);
  }
  const vkocc_linfit *f = cal->has_device_clock ? &cal->realtime_fit : &cal->spin_fit;
  size_t len = strlen(cal->note);
  snprintf(cal->note + len, sizeof cal->note - len, "%spoor fit after 3 attempts (R^2 %.4f): the clock figures are "
           "unreliable", len ? "; " : "", f->r2);
  cal->poor_fit = true;
  char sub[96] = "";
  if (cal->has_subgroup_clock)
    snprintf(sub, sizeof sub, "; subgroup clock R^2 %.4f, %.4g ns per tick", cal->subgroup_fit.r2, cal->subgroup_fit.slope);
  return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_NOISY, "calibration disturbed: poor fit after 3 attempts, spins up to %.3g ms (%s R^2 "
                    "%.4f over %u of %u lengths, %.4g ns per %s, needs R^2 >= 0.999 and a rising line%s): measure again "
                    "on a quieter device", cal->longest_ns / 1e6, cal->has_device_clock ? "realtime clock" : "spin",
                    f->r2, f->n, lengths, f->slope, cal->has_device_clock ? "tick" : "iteration", sub);
}
