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
    CHECK(calibrate_fit_good(&c, 8), "a good fit refused");
    vkocc_calibration b = c;
    b.realtime_fit.r2 = 0.037; /* seen under load, with -1.136 ns per tick */
    CHECK(!calibrate_fit_good(&b, 8), "R^2 0.037 accepted");
    b = c, b.realtime_fit.r2 = 0.998;
    CHECK(!calibrate_fit_good(&b, 8), "R^2 0.998 accepted");
    b = c, b.realtime_fit.slope = -1.136;
    CHECK(!calibrate_fit_good(&b, 8), "a negative tick period accepted");
    b = c, b.realtime_fit.n = 2, b.realtime_fit.r2 = 1;
    CHECK(!calibrate_fit_good(&b, 8), "a 2-point fit accepted");
    b = c, b.subgroup_fit.r2 = 0.9;
    CHECK(!calibrate_fit_good(&b, 8), "a poor subgroup-clock fit accepted");
    b = c, b.subgroup_fit.slope = 0;
    CHECK(!calibrate_fit_good(&b, 8), "a flat subgroup-clock fit accepted");
    b = c, b.has_device_clock = false, b.has_subgroup_clock = false, b.spin_fit = c.realtime_fit;
    CHECK(calibrate_fit_good(&b, 8), "a good spin-only fit refused");
    b.spin_fit.r2 = 0.99;
    CHECK(!calibrate_fit_good(&b, 8), "a poor spin-only fit accepted");
    /* two or three lengths: a perfect line whatever was measured */
    b = c, b.realtime_fit.n = 2, b.realtime_fit.r2 = 1, b.subgroup_fit.n = 2, b.subgroup_fit.r2 = 1;
    CHECK(!calibrate_fit_good(&b, 2), "a fit over 2 lengths accepted");
    b.realtime_fit.n = b.subgroup_fit.n = 3;
    CHECK(!calibrate_fit_good(&b, 3), "a fit over 3 lengths accepted");
    b.realtime_fit.n = b.subgroup_fit.n = 4;
    CHECK(calibrate_fit_good(&b, 4), "a good fit over 4 lengths refused");
  }
  /* what the timestamps allow: a spin's ticks at the fitted period may not outlast its dispatch; spins long
   * enough to judge. Synthetic lavapipe: 1 ns ticks, each dispatch 40 us longer than its spin. */
  {
    double ticks[8], ns[8];
    char why_text[256], *why = why_text;
    for (int i = 0; i < 8; i++) ticks[i] = 8e5 * (i + 1), ns[i] = ticks[i] * 1.0 + 40e3;
    CHECK(calibrate_plausible(1.0, "realtime clock", ticks, ns, 8, 1.0, why, sizeof why_text), "truth refused: %s", why);
    CHECK(calibrate_plausible(0.9999, "realtime clock", ticks, ns, 8, 1.0, why, sizeof why_text), "0.9999 refused");
    /* seen with --lengths 2 beside CPU hogs: 28.9 and 0.062 ns per tick (the truth 1.000) */
    CHECK(!calibrate_plausible(28.9, "realtime clock", ticks, ns, 8, 1.0, why, sizeof why_text), "28.9 accepted");
    CHECK_CONTAINS(why, "28.9 ns per tick would make a spin of");
    CHECK_CONTAINS(why, "longer than its whole dispatch");
    CHECK(!calibrate_plausible(1.05, "realtime clock", ticks, ns, 8, 1.0, why, sizeof why_text), "1.05 accepted");
    CHECK(!calibrate_plausible(-1.136, "realtime clock", ticks, ns, 8, 1.0, why, sizeof why_text), "negative accepted");
    CHECK(!calibrate_plausible(NAN, "realtime clock", ticks, ns, 8, 1.0, why, sizeof why_text), "NaN accepted");
    /* --longest-ms 0.01: spins of 0.5-10 us, 25-500 ticks of a 20 ns clock over 1 ns timestamps: the span holds
     * but 25 ticks are too few to read a period from */
    for (int i = 0; i < 8; i++) ticks[i] = 25 * (i + 1) * 2.5, ns[i] = ticks[i] * 20 + 40e3;
    CHECK(!calibrate_plausible(20, "realtime clock", ticks, ns, 8, 1.0, why, sizeof why_text), "25 ticks accepted");
    CHECK_CONTAINS(why, "spins too short to judge: the shortest read");
    /* and spins within 1000 timestamp ticks of each other (a coarse 80 ns timestamp) */
    for (int i = 0; i < 8; i++) ticks[i] = 1000 + 100 * i, ns[i] = ticks[i] + 40e3;
    CHECK(!calibrate_plausible(1.0, "realtime clock", ticks, ns, 8, 80.0, why, sizeof why_text), "a narrow ladder accepted");
    CHECK_CONTAINS(why, "less than 1000 timestamp ticks");
  }
  /* ns per realtime tick from the dispatches' starts: a clock of 1.024 GHz (0.9765625 ns per tick) read by a
   * 32-bit realtime counter that wraps during the run, 40 starts 2-20 ms apart (one 5 s: past a whole wrap), each 40 us after its queue
   * timestamp with 10 us of jitter, 3 of them 5 ms late (the OS delayed the spin); one start whose timestamp
   * reads backwards is skipped. The slope must come out within 1e-5 however wrong the intervals' estimate
   * (only used to count wraps), the late starts dropped. */
  {
    const double ns_per_tick = 0.9765625;
    calibrate_clock_anchor a[41], b[41];
    double t = 0;
    for (int i = 0; i < 41; i++) {
      t += 2e6 + 18e6 * check_uniform() + (i == 20 ? 5e9 : 0); /* and one pause longer than the wrap */
      double gap = 40e3 + 10e3 * check_uniform() + (i == 5 || i == 19 || i == 33 ? 5e6 : 0);
      a[i].ts = (uint64_t)(1e12 + t);
      a[i].rt = (uint64_t)(4294967296.0 - 2e8 + (t + gap) / ns_per_tick) & 0xffffffffu;
      b[i] = (calibrate_clock_anchor){a[i].ts, (uint64_t)((double)(1ull << 40) + (t + gap) / ns_per_tick)};
    }
    a[27].ts = a[26].ts - 1000; /* backwards */
    vkocc_linfit af;
    double span;
    for (int k = 0; k < 2; k++) {
      double interval = k ? 1.05 * ns_per_tick : ns_per_tick;
      CHECK(calibrate_anchor_fit(a, 41, 64, 1.0, 32, interval, &af, &span) == VKOCC_OK, "starts fit: %s",
            vkocc_last_error());
      CHECK_NEAR(af.slope, ns_per_tick, 1e-5);
      CHECK_EQ_U(af.n, 40);
      CHECK_EQ_U(af.n_used, 37);
      CHECK_NEAR(span, (double)(a[40].ts - a[0].ts), 1);
    }
    /* a 64-bit realtime clock that reads backwards at one start: that start is skipped too */
    b[27].ts = a[27].ts, b[12].rt = b[11].rt - 1;
    CHECK(calibrate_anchor_fit(b, 41, 64, 1.0, 64, ns_per_tick, &af, &span) == VKOCC_OK, "64-bit fit");
    CHECK_EQ_U(af.n, 39);
    CHECK_NEAR(af.slope, ns_per_tick, 1e-5);
    /* timestamps of 10 ns ticks in 36 valid bits, wrapping during the run */
    calibrate_clock_anchor c[41];
    for (int i = 0; i < 41; i++) c[i] = a[i], c[i].ts = ((a[i].ts - a[0].ts) / 10 + (1ull << 36) - 20000000) & ((1ull << 36) - 1);
    c[27].ts = c[26].ts - 100;
    CHECK(calibrate_anchor_fit(c, 41, 36, 10.0, 32, ns_per_tick, &af, &span) == VKOCC_OK, "36-bit fit");
    CHECK_NEAR(af.slope, ns_per_tick, 2e-5);
    CHECK(calibrate_anchor_fit(a, 1, 64, 1.0, 32, ns_per_tick, &af, &span) == VKOCC_ERROR_RUNTIME,
          "one start must fail");

    /* the choice: the starts where they agree with the intervals within 10%, a note beyond 2% */
    vkocc_calibration cal = {.has_device_clock = true, .timestamp_period = 1.0, .timestamp_valid_bits = 64};
    char note[160];
    memset(note, 'x', sizeof note); /* the call must write the note whatever it held */
    const char *said = note; /* CHECK_CONTAINS takes a pointer */
    cal.realtime_fit.slope = ns_per_tick;
    calibrate_choose_tick(&cal, a, 41, 32, 8, note, sizeof note);
    CHECK(cal.from_starts && strlen(note) == 0, "agreeing fits: from starts %d, note '%s'", cal.from_starts, note);
    CHECK_NEAR(cal.ns_per_tick, ns_per_tick, 1e-5);
    CHECK(!cal.tick_equals_period, "0.977 ns per tick is not the 1 ns period");
    cal.realtime_fit.slope = 1.03 * ns_per_tick; /* lavapipe's tilted intervals */
    calibrate_choose_tick(&cal, a, 41, 32, 8, note, sizeof note);
    CHECK(cal.from_starts, "3%% apart: the starts");
    CHECK_NEAR(cal.ns_per_tick, ns_per_tick, 1e-5);
    CHECK_CONTAINS(said, "the dispatch intervals give 1.0059 ns per realtime tick, +3.0% from the starts' 0.9766");
    cal.realtime_fit.slope = 1.2 * ns_per_tick; /* the starts do not follow: the intervals, said */
    calibrate_choose_tick(&cal, a, 41, 32, 8, note, sizeof note);
    CHECK(!cal.from_starts, "20%% apart: the intervals");
    CHECK_NEAR(cal.ns_per_tick, 1.2 * ns_per_tick, 1e-12);
    CHECK_CONTAINS(said, "does not follow the queue timestamps (0.9766 ns per tick over 37 of 41 starts): the intervals' 1.172");
    cal.realtime_fit.slope = ns_per_tick;
    calibrate_choose_tick(&cal, a, 41, 32, 40, note, sizeof note);
    CHECK(!cal.from_starts, "fewer starts kept (37) than lengths (40): the intervals");
    CHECK_CONTAINS(said, "the starts' fit kept 37 of 41 starts, fewer than the 40 lengths");
    calibrate_choose_tick(&cal, a, 1, 32, 8, note, sizeof note);
    CHECK(!cal.from_starts && cal.ns_per_tick == ns_per_tick, "one start: the intervals");
    CHECK_CONTAINS(said, "too few dispatch starts to fit the realtime clock against (1)");
    CHECK(!vkocc_last_error()[0], "no error left behind: '%s'", vkocc_last_error());
  }
  return check_report();
}
