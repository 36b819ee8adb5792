/* Calibration on lavapipe: its realtime clock and its timestamps are both host nanoseconds, so ns per tick
 * (from the dispatches' starts) must be 1.0 within 1%, and the intervals' fit must have R^2 above 0.999; without the shader clock the spin alone is
 * measured and the missing clocks are named. One bar on a quiet and a busy machine: the test runs through
 * tests/timed.sh (its own session at a raised priority), and a calibration that stays disturbed is refused
 * by vkocc_calibrate itself (VKOCC_ERROR_RUNTIME with the fit's numbers, poor_fit set) — the only other
 * outcome accepted, and then checked for its content. A refusal here still fails the test unless a second
 * calibration of the same context succeeds: the suite may see a disturbance, not a broken estimator. */
#include "check.h"
#include "vkocc.h"
#include <unistd.h>

/* Calibrates; a refusal must carry its numbers, and is measured once more (the refusal itself is correct
 * behaviour, but a test that passed on refusals alone could not catch an estimator that always refuses). */
static vkocc_status calibrate_checked(vkocc_context *ctx, vkocc_calibration *cal) {
  vkocc_status s = VKOCC_OK;
  for (int i = 0; i < 2; i++) {
    s = vkocc_calibrate(ctx, NULL, cal);
    if (s != VKOCC_ERROR_RUNTIME) break;
    CHECK(cal->poor_fit, "a refused calibration has poor_fit set: %s", vkocc_last_error());
    CHECK(vkocc_last_reason() == VKOCC_REASON_NOISY, "reason %s", vkocc_reason_name(vkocc_last_reason()));
    /* a poor fit, or a line the timestamps do not allow: either refusal carries its numbers */
    const char *e = vkocc_last_error();
    bool poor = strstr(e, "calibration disturbed: poor fit after 3 attempts") != NULL;
    CHECK(poor || strstr(e, "calibration implausible after 3 attempts"), "refusal: %s", e);
    CHECK_CONTAINS(e, poor ? "R^2 0." : "ns per tick");
    CHECK_CONTAINS(cal->note, poor ? "poor fit after 3 attempts" : "implausible after 3 attempts");
    fprintf(stderr, "refused (correctly, with its numbers): %s; measuring again\n", vkocc_last_error());
  }
  return s;
}

int main(void) {
  machine_busy(); /* logged only: the bar is the same */
  const double tick_tol = 0.01, r2_min = 0.999;
  vkocc_context *ctx;
  vkocc_context_options o = {.device = "llvmpipe"};
  vkocc_status s = vkocc_context_create(&o, &ctx);
  CHECK(s == VKOCC_OK, "context: %s", vkocc_last_error());
  if (s) return check_report();
  CHECK(vkocc_context_has_device_clock(ctx), "lavapipe has shaderDeviceClock");
  vkocc_calibration cal;
  /* The intervals' fit sits 1-4% high on lavapipe (what follows the spin grows with it: CI once failed on
   * 1.0235, 1.0207 and 1.0223 in a row); the starts measured 0.9999-1.0000 here, beside two CPU hogs too. Up to
   * 3 calibrations all the same, each held to 1%: an estimator off by a constant factor fails all three. */
  for (int attempt = 0; attempt < 3; attempt++) {
    s = calibrate_checked(ctx, &cal);
    if (s || fabs(cal.ns_per_tick - 1.0) <= tick_tol) break;
    fprintf(stderr, "%.4f ns per tick (R^2 %.5f), outside 1 +- %.2f: measuring again\n", cal.ns_per_tick,
            cal.realtime_fit.r2, tick_tol);
  }
  CHECK(s == VKOCC_OK, "calibrate: %s", vkocc_last_error());
  CHECK_NEAR(cal.ns_per_tick, 1.0, tick_tol);
  CHECK(cal.from_starts, "ns per tick from the dispatch starts (note: %s)", cal.note);
  /* every sample's start but those a clock reading backwards dropped (the test allows 2 such samples below) */
  CHECK(cal.anchor_fit.n + 4 >= cal.samples && cal.anchor_fit.n_used >= 8, "starts fit over %u of %u samples, %u kept",
        cal.anchor_fit.n, cal.samples, cal.anchor_fit.n_used);
  CHECK(cal.anchor_span_ns > 0.5 * cal.samples * 1e6, "starts fit spans %g ns", cal.anchor_span_ns);
  CHECK(fabs(cal.realtime_fit.slope - 1.0) <= 0.10, "intervals fit %g ns per tick", cal.realtime_fit.slope);
  if (fabs(cal.realtime_fit.slope / cal.ns_per_tick - 1) > 0.02) CHECK_CONTAINS(cal.note, "the dispatch intervals give");
  CHECK(cal.realtime_fit.r2 > r2_min, "realtime R^2 %g", cal.realtime_fit.r2);
  CHECK(cal.subgroup_fit.r2 > r2_min, "subgroup R^2 %g", cal.subgroup_fit.r2);
  CHECK(cal.tick_equals_period, "tick %g vs period %g", cal.ns_per_tick, cal.timestamp_period);
  CHECK(cal.shader_clock_mhz > 0, "shader clock %g MHz", cal.shader_clock_mhz);
  CHECK(cal.overhead_ns > -5e4 && cal.overhead_ns < 5e6, "overhead %g ns", cal.overhead_ns);
  CHECK_EQ_U(cal.samples, cal.attempts > 1 ? 80 : 40); /* a second attempt doubles the repeats */
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
  s = calibrate_checked(ctx, &cal);
  CHECK(s == VKOCC_OK, "calibrate without clock: %s", vkocc_last_error());
  CHECK(!cal.has_device_clock && !cal.has_subgroup_clock, "clocks must be off");
  CHECK(cal.spin_fit.r2 >= r2_min && !cal.poor_fit, "spin R^2 %g", cal.spin_fit.r2);
  CHECK(cal.spin_fit.slope > 0, "spin slope %g", cal.spin_fit.slope);
  CHECK_CONTAINS(cal.note, "realtime clock (shaderDeviceClock)");
  CHECK_CONTAINS(cal.note, "subgroup clock (shaderSubgroupClock)");
  vkocc_context_destroy(ctx);
  return check_report();
}
