/* Calibration on lavapipe: its realtime clock and its timestamps are both host nanoseconds, so the
 * fit must give 1.0 ns per tick (within 2%; 10% on a busy machine) with R^2 above 0.99 (0.95); without the shader clock the spin
 * alone is measured and the missing clocks are named. */
#include "check.h"
#include "vkocc.h"
#include <unistd.h>

/* Busy: a 1-minute load above the core count. Then lavapipe's spin shares its core: beside two CPU hogs
 * on 2 cores (after the 3x3 attempts below) the spin-only fit reached R^2 0.969-0.986 and the realtime
 * fit 1.09 ns per tick in 3 of 5 runs. The probe only sizes its sleeps from these figures, so on a busy
 * machine the test holds the clock fits to what that needs (10%, R^2 0.95) and a poor spin-only fit to
 * being flagged. */
/* vkocc_calibrate measures up to 3 times itself; on a busy machine (lavapipe's threads share the cores
 * with other work) the fit may still come out poor, and then the whole calibration is measured again,
 * up to 3 times. The assertions below are the same on every attempt. */
static vkocc_status calibrate_retry(vkocc_context *ctx, vkocc_calibration *cal) {
  vkocc_status s = VKOCC_OK;
  for (int i = 0; i < 3; i++) {
    if ((s = vkocc_calibrate(ctx, NULL, cal)) || !cal->poor_fit) break;
    fprintf(stderr, "poor fit (%s), measuring again\n", cal->note);
  }
  return s;
}

int main(void) {
  bool busy = machine_busy();
  double tick_tol = busy ? 0.10 : 0.02, r2_min = busy ? 0.95 : 0.99;
  vkocc_context *ctx;
  vkocc_context_options o = {.device = "llvmpipe"};
  vkocc_status s = vkocc_context_create(&o, &ctx);
  CHECK(s == VKOCC_OK, "context: %s", vkocc_last_error());
  if (s) return check_report();
  CHECK(vkocc_context_has_device_clock(ctx), "lavapipe has shaderDeviceClock");
  vkocc_calibration cal;
  s = calibrate_retry(ctx, &cal);
  CHECK(s == VKOCC_OK, "calibrate: %s", vkocc_last_error());
  CHECK_NEAR(cal.ns_per_tick, 1.0, tick_tol);
  CHECK(cal.realtime_fit.r2 > r2_min, "realtime R^2 %g", cal.realtime_fit.r2);
  CHECK(cal.subgroup_fit.r2 > r2_min, "subgroup R^2 %g", cal.subgroup_fit.r2);
  CHECK(busy || cal.tick_equals_period, "tick %g vs period %g", cal.ns_per_tick, cal.timestamp_period);
  CHECK(cal.shader_clock_mhz > 0, "shader clock %g MHz", cal.shader_clock_mhz);
  CHECK(cal.overhead_ns > -5e4 && cal.overhead_ns < 5e6, "overhead %g ns", cal.overhead_ns);
  CHECK_EQ_U(cal.samples, 40);
  CHECK(cal.realtime_fit.n == 8, "fit over the fastest sample of each of the 8 lengths, got %u points", cal.realtime_fit.n);
  CHECK((busy || !cal.poor_fit) && cal.attempts >= 1 && cal.attempts <= 3, "attempts %u, poor %d", cal.attempts,
        cal.poor_fit);
  /* a fit is only good with every length of the ladder in it (a 2-point fit has R^2 = 1 and any slope) */
  CHECK(cal.subgroup_fit.n == 8 && cal.realtime_fit.slope > 0, "subgroup fit over %u points", cal.subgroup_fit.n);
  CHECK(cal.backwards <= 2, "backwards samples %u (detected and dropped; more would mean a broken clock)", cal.backwards);
  CHECK(cal.longest_ns > 1e6, "longest spin %g ns: the spin must not be cut short", cal.longest_ns);
  vkocc_context_destroy(ctx);

  o.disable_shader_clock = true;
  s = vkocc_context_create(&o, &ctx);
  CHECK(s == VKOCC_OK, "context without clock: %s", vkocc_last_error());
  if (s) return check_report();
  s = calibrate_retry(ctx, &cal);
  CHECK(s == VKOCC_OK, "calibrate without clock: %s", vkocc_last_error());
  CHECK(!cal.has_device_clock && !cal.has_subgroup_clock, "clocks must be off");
  /* The spin alone is compute, and a core shared with CPU hogs runs it at a varying speed (R^2 0.92 seen
   * after 9 attempts): on a busy machine a poor fit must then be flagged and named, never passed off. */
  if (busy && cal.spin_fit.r2 <= 0.99) {
    CHECK(cal.poor_fit, "spin R^2 %g not flagged as poor", cal.spin_fit.r2);
    CHECK_CONTAINS(cal.note, "poor fit after 3 attempts");
  } else CHECK(cal.spin_fit.r2 > 0.99, "spin R^2 %g", cal.spin_fit.r2);
  CHECK(cal.spin_fit.slope > 0, "spin slope %g", cal.spin_fit.slope);
  CHECK_CONTAINS(cal.note, "realtime clock (shaderDeviceClock)");
  CHECK_CONTAINS(cal.note, "subgroup clock (shaderSubgroupClock)");
  vkocc_context_destroy(ctx);
  return check_report();
}
