/* The calibration regression: exact lines, noisy lines, outliers, degenerate input; the summary. */
#include "check.h"
#include "calibrate.h"
#include "vkocc.h"

int main(void) {
  double x[64], y[64];
  vkocc_linfit f;
  /* exact line */
  for (int i = 0; i < 8; i++) { x[i] = 1000.0 * (i + 1); y[i] = 25000 + 1.25 * x[i]; }
  CHECK(vkocc_linfit_compute(x, y, 8, false, &f) == VKOCC_OK, "exact fit failed");
  CHECK_NEAR(f.slope, 1.25, 1e-12);
  CHECK_NEAR(f.intercept, 25000, 1e-6);
  CHECK_NEAR(f.r2, 1.0, 1e-12);
  CHECK_NEAR(f.max_rel_residual, 0, 1e-12);
  CHECK_EQ_U(f.n_used, 8);
  /* noisy line: 1% gaussian noise on y; slope within 1%, R^2 high but below 1 */
  for (int i = 0; i < 40; i++) {
    x[i] = 200000.0 * (1 + i % 8);
    y[i] = (3000 + 0.98 * x[i]) * (1 + 0.01 * check_gauss());
  }
  CHECK(vkocc_linfit_compute(x, y, 40, true, &f) == VKOCC_OK, "noisy fit failed");
  CHECK_NEAR(f.slope, 0.98, 0.0098);
  CHECK(f.r2 > 0.99 && f.r2 < 1.0, "r2 = %g", f.r2);
  CHECK(f.max_rel_residual > 0.001 && f.max_rel_residual < 0.05, "max rel residual %g", f.max_rel_residual);
  /* outliers: 3 of 40 points 5x too slow (a preempted dispatch); rejection must drop exactly them */
  for (int i = 0; i < 40; i++) { x[i] = 1e5 * (1 + i % 8); y[i] = 2000 + 1.0 * x[i] * (1 + 1e-4 * check_gauss()); }
  y[3] *= 5; y[17] *= 5; y[30] *= 5;
  CHECK(vkocc_linfit_compute(x, y, 40, false, &f) == VKOCC_OK, "plain fit failed");
  CHECK(fabs(f.slope - 1.0) > 0.05, "outliers should bend a plain fit, slope %g", f.slope);
  CHECK(vkocc_linfit_compute(x, y, 40, true, &f) == VKOCC_OK, "robust fit failed");
  CHECK_NEAR(f.slope, 1.0, 1e-3);
  CHECK_NEAR(f.intercept, 2000, 200);
  CHECK_EQ_U(f.n_used, 37);
  CHECK(f.r2 > 0.9999, "r2 = %g", f.r2);
  /* degenerate */
  CHECK(vkocc_linfit_compute(x, y, 1, false, &f) == VKOCC_ERROR_RUNTIME, "one point must fail");
  for (int i = 0; i < 4; i++) x[i] = 7;
  CHECK(vkocc_linfit_compute(x, y, 4, false, &f) == VKOCC_ERROR_RUNTIME, "equal x must fail");
  CHECK_CONTAINS(vkocc_last_error(), "degenerate");
  /* summary: median, min, max, MAD */
  double v[] = {5, 1, 3, 100, 4};
  vkocc_summary s;
  vkocc_summarize(v, 5, &s);
  CHECK_NEAR(s.median, 4, 0);
  CHECK_NEAR(s.min, 1, 0);
  CHECK_NEAR(s.max, 100, 0);
  CHECK_NEAR(s.mad, 1, 0);
  /* the calibration's acceptance rule on synthetic fits: a good line passes; each way of being bad fails */
  {
    vkocc_calibration c = {.has_device_clock = true, .has_subgroup_clock = true};
    c.realtime_fit = (vkocc_linfit){.n = 8, .slope = 1.0, .r2 = 0.9999};
    c.subgroup_fit = (vkocc_linfit){.n = 8, .slope = 0.5, .r2 = 0.9995};
    CHECK(vkocc_calibration_fit_good(&c, 8), "a good fit refused");
    vkocc_calibration b = c;
    b.realtime_fit.r2 = 0.037; /* seen under load, with -1.136 ns per tick */
    CHECK(!vkocc_calibration_fit_good(&b, 8), "R^2 0.037 accepted");
    b = c, b.realtime_fit.r2 = 0.998;
    CHECK(!vkocc_calibration_fit_good(&b, 8), "R^2 0.998 accepted");
    b = c, b.realtime_fit.slope = -1.136;
    CHECK(!vkocc_calibration_fit_good(&b, 8), "a negative tick period accepted");
    b = c, b.realtime_fit.n = 2, b.realtime_fit.r2 = 1;
    CHECK(!vkocc_calibration_fit_good(&b, 8), "a 2-point fit accepted");
    b = c, b.subgroup_fit.r2 = 0.9;
    CHECK(!vkocc_calibration_fit_good(&b, 8), "a poor subgroup-clock fit accepted");
    b = c, b.subgroup_fit.slope = 0;
    CHECK(!vkocc_calibration_fit_good(&b, 8), "a flat subgroup-clock fit accepted");
    b = c, b.has_device_clock = false, b.has_subgroup_clock = false, b.spin_fit = c.realtime_fit;
    CHECK(vkocc_calibration_fit_good(&b, 8), "a good spin-only fit refused");
    b.spin_fit.r2 = 0.99;
    CHECK(!vkocc_calibration_fit_good(&b, 8), "a poor spin-only fit accepted");
  }
  return check_report();
}
