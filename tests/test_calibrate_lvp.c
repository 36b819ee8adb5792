/* Calibration on lavapipe: its realtime clock and its timestamps are both host nanoseconds, so the
 * fit must give 1.0 ns per tick (within 2%) with R^2 above 0.99; without the shader clock the spin
 * alone is measured and the missing clocks are named. */
#include "check.h"
#include "vkocc.h"

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
  vkocc_context *ctx;
  vkocc_context_options o = {.device = "llvmpipe"};
  vkocc_status s = vkocc_context_create(&o, &ctx);
  CHECK(s == VKOCC_OK, "context: %s", vkocc_last_error());
  if (s) return check_report();
  CHECK(vkocc_context_has_device_clock(ctx), "lavapipe has shaderDeviceClock");
  vkocc_calibration cal;
  s = calibrate_retry(ctx, &cal);
  CHECK(s == VKOCC_OK, "calibrate: %s", vkocc_last_error());
  CHECK_NEAR(cal.ns_per_tick, 1.0, 0.02);
  CHECK(cal.realtime_fit.r2 > 0.99, "realtime R^2 %g", cal.realtime_fit.r2);
  CHECK(cal.subgroup_fit.r2 > 0.99, "subgroup R^2 %g", cal.subgroup_fit.r2);
  CHECK(cal.tick_equals_period, "tick %g vs period %g", cal.ns_per_tick, cal.timestamp_period);
  CHECK(cal.shader_clock_mhz > 0, "shader clock %g MHz", cal.shader_clock_mhz);
  CHECK(cal.overhead_ns > -5e4 && cal.overhead_ns < 5e6, "overhead %g ns", cal.overhead_ns);
  CHECK_EQ_U(cal.samples, 40);
  CHECK(cal.realtime_fit.n == 8, "fit over the fastest sample of each of the 8 lengths, got %u points", cal.realtime_fit.n);
  CHECK(!cal.poor_fit && cal.attempts >= 1 && cal.attempts <= 3, "attempts %u, poor %d", cal.attempts, cal.poor_fit);
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
  CHECK(cal.spin_fit.r2 > 0.99, "spin R^2 %g", cal.spin_fit.r2);
  CHECK(cal.spin_fit.slope > 0, "spin slope %g", cal.spin_fit.slope);
  CHECK_CONTAINS(cal.note, "realtime clock (shaderDeviceClock)");
  CHECK_CONTAINS(cal.note, "subgroup clock (shaderSubgroupClock)");
  vkocc_context_destroy(ctx);
  return check_report();
}
