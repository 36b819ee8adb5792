/* Racing on synthetic timings (tune/search/race.h): a clear loser stops after 2 runs, a near-tie within the noise never
 * does, a noisy contender is not stopped by one slow run (its fastest run decides), the incumbent changes during the
 * search, the margin follows the noise measured, and the full rule (--full-rule) stops nothing. The trials loop of
 * tune/harness/time.c is replayed here over a run of times: the first batch of tu_race_first_runs, the race judged after each
 * run, the full rule (spread <= 2% with 5 runs, or 50) for whatever is not stopped. */
#include "check.h"
#include "race.h"
#include <vkocc.h>
#include <math.h>
#include <stdlib.h>

/* runs of one configuration as the harness takes them: returns how many it timed, *stopped whether the race ended it */
static uint32_t trial(const tu_race *r, bool full_rule, const double *times, uint32_t ntimes, bool *stopped) {
  double ns[64];
  uint32_t n = 0, first = tu_race_first_runs(r, full_rule, false, 5);
  *stopped = false;
  while (n < ntimes && n < 50) {
    ns[n] = times[n], n++;
    if (n < first) continue;
    if (tu_race_judge(r, full_rule, ns, n).behind) return *stopped = true, n;
    vkocc_summary sum;
    vkocc_summarize(ns, n, &sum);
    if (n >= 5 && sum.mad / sum.median <= 0.02) break;
  }
  return n;
}

/* a configuration's times: base x (1 + noise x a deterministic wobble in [-1, 1]) */
static void series(double base, double noise, uint32_t seed, double *out, uint32_t n) {
  uint64_t x = 0x9e3779b97f4a7c15ull * (seed + 1);
  for (uint32_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    out[i] = base * (1 + noise * (2.0 * (double)(x % 10001) / 10000 - 1));
  }
}

static void incumbent(tu_race *r, double median, double spread) {
  tu_race_init(r);
  tu_race_note(r, 0, median, spread, 0);
}

static void test_clear_loser(void) {
  tu_race r;
  incumbent(&r, 100e3, 0.005);
  double t[50];
  bool stopped;
  series(135e3, 0.01, 1, t, 50); /* 1.35x: the nearest of the losers */
  uint32_t n = trial(&r, false, t, 50, &stopped);
  CHECK(stopped && n == 2, "a 1.35x loser stops after 2 runs (got %u, stopped %d)", n, stopped);
  series(350e3, 0.2, 2, t, 50); /* 3.5x and noisy */
  n = trial(&r, false, t, 50, &stopped);
  CHECK(stopped && n == 2, "a noisy 3.5x loser stops after 2 runs (got %u)", n);
  CHECK(!tu_race_judge(&r, false, t, 1).behind, "one run never stops a configuration");
  series(350e3, 0.01, 2, t, 50);
  tu_race_verdict v = tu_race_judge(&r, false, t, 2);
  CHECK(v.behind && v.best_ns == 100e3 && v.margin == TU_RACE_FLOOR && v.fastest_ns == fmin(t[0], t[1]),
        "the verdict names the incumbent's median (%g), the margin (%g) and the fastest run", v.best_ns, v.margin);
  /* the full rule: the same loser is timed until its spread is small (it is: 5 runs) or 50 */
  series(135e3, 0.01, 1, t, 50);
  n = trial(&r, true, t, 50, &stopped);
  CHECK(!stopped && n >= 5, "--full-rule: the loser runs to the rule (%u runs)", n);
  series(240e3, 0.2, 3, t, 50); /* the 2.15-2.39x losers whose spread kept the rule at its cap */
  n = trial(&r, true, t, 50, &stopped);
  uint32_t raced = trial(&r, false, t, 50, &stopped);
  CHECK(n == 50 && raced == 2 && stopped, "a noisy 2.4x loser: 50 runs by the full rule, 2 raced (%u, %u)", n, raced);
  tu_race_free(&r);
}

static void test_near_tie(void) {
  tu_race r;
  incumbent(&r, 100e3, 0.01);
  double t[50];
  bool stopped;
  /* within the noise: 1% to 4% slower, runs with a 1% wobble */
  for (int k = 0; k < 4; k++) {
    series(100e3 * (1.01 + 0.01 * k), 0.01, 10 + k, t, 50);
    uint32_t n = trial(&r, false, t, 50, &stopped);
    CHECK(!stopped && n >= 5, "a near-tie %.0f%% behind runs to the full rule (%u runs, stopped %d)", 1.0 + k, n, stopped);
  }
  /* faster than the incumbent: never stopped */
  series(90e3, 0.01, 20, t, 50);
  trial(&r, false, t, 50, &stopped);
  CHECK(!stopped, "a faster configuration is not stopped");
  /* just inside and just outside the margin (5% with this noise) */
  double in[2] = {104.9e3, 105.0e3}, out[2] = {105.1e3, 106e3};
  CHECK(!tu_race_judge(&r, false, in, 2).behind, "fastest run 5%% behind: not beyond the margin");
  CHECK(tu_race_judge(&r, false, out, 2).behind, "fastest run 5.1%% behind: beyond it");
  tu_race_free(&r);
}

static void test_noisy_contender(void) {
  tu_race r;
  incumbent(&r, 100e3, 0.01);
  bool stopped;
  /* as fast as the incumbent, one run hit by a 2x episode of the host, first or second */
  double a[50], b[50];
  series(100e3, 0.01, 30, a, 50);
  series(100e3, 0.01, 31, b, 50);
  a[0] = 200e3, b[1] = 250e3;
  uint32_t n = trial(&r, false, a, 50, &stopped);
  CHECK(!stopped && n >= 5, "a slow first run does not stop a contender (%u runs)", n);
  trial(&r, false, b, 50, &stopped);
  CHECK(!stopped, "a slow second run does not stop a contender");
  /* slow runs everywhere but one: the fast one keeps it in */
  double c[6] = {300e3, 280e3, 99e3, 310e3, 290e3, 305e3};
  CHECK(!tu_race_judge(&r, false, c, 6).behind, "one run at the incumbent's speed keeps it a contender");
  /* two runs far apart (a load episode under one of them): their own spread widens the margin */
  double d[2] = {130e3, 180e3}, e[2] = {200e3, 210e3};
  tu_race_verdict v = tu_race_judge(&r, false, d, 2);
  CHECK(!v.behind && v.noise > 0.16 && v.noise < 0.17, "130 and 180 us: their spread (%.3f) keeps the 1.3x run in", v.noise);
  v = tu_race_judge(&r, false, e, 2);
  CHECK(v.behind && v.noise < 0.03, "200 and 210 us: a 2x loser whose runs agree stops (noise %.3f)", v.noise);
  tu_race_free(&r);
}

static void test_incumbent_changes(void) {
  tu_race r;
  tu_race_init(&r);
  double c[2] = {104e3, 104.5e3};
  CHECK(!tu_race_judge(&r, false, c, 2).behind, "no incumbent yet: nothing stops");
  CHECK(tu_race_first_runs(&r, false, false, 5) == 5, "no incumbent: the first batch is the full rule's");
  tu_race_note(&r, 7, 100e3, 0.01, 0);
  CHECK(r.best == 7 && tu_race_first_runs(&r, false, false, 5) == 2 && tu_race_first_runs(&r, false, true, 5) == 1,
        "an incumbent: 2 runs first, 1 where the validation run counted");
  CHECK(!tu_race_judge(&r, false, c, 2).behind, "4%% behind the first incumbent: a contender");
  tu_race_note(&r, 9, 120e3, 0.01, 0); /* slower: not the incumbent */
  CHECK(r.best == 7 && r.best_ns == 100e3, "a slower configuration does not replace the incumbent");
  tu_race_note(&r, 3, 80e3, 0.01, 0); /* faster: the new incumbent */
  CHECK(r.best == 3 && r.best_ns == 80e3, "a faster configuration becomes the incumbent (%lld)", (long long)r.best);
  tu_race_verdict v = tu_race_judge(&r, false, c, 2);
  CHECK(v.behind && v.best_ns == 80e3, "the same runs are behind the new incumbent (30%% slower)");
  tu_race_note(&r, 4, NAN, 0.01, 0), tu_race_note(&r, 5, -1, 0.01, 0), tu_race_note(&r, 6, 0, 0.01, 0);
  CHECK(r.best == 3 && r.nspreads == 3, "medians that are not positive and finite are ignored");
  tu_race_free(&r);
}

static void test_margin_follows_noise(void) {
  CHECK_NEAR(tu_race_margin(0), TU_RACE_FLOOR, 1e-12);
  CHECK_NEAR(tu_race_margin(0.005), TU_RACE_FLOOR, 1e-12);
  CHECK_NEAR(tu_race_margin(0.03), 4.5 * 0.03, 1e-12);
  tu_race r;
  incumbent(&r, 100e3, 0.001);
  /* the others' spreads set the noise where the incumbent's is smaller than theirs: median of 0.001, 0.04, 0.05 */
  tu_race_note(&r, 1, 150e3, 0.04, 0), tu_race_note(&r, 2, 160e3, 0.05, 0);
  CHECK_NEAR(tu_race_noise(&r), 0.04, 1e-12);
  double t[2] = {115e3, 116e3}; /* 15% behind: within 4.5 x 4% = 18% */
  CHECK(!tu_race_judge(&r, false, t, 2).behind, "15%% behind under 4%% noise: a contender");
  double u[2] = {119e3, 125e3};
  CHECK(tu_race_judge(&r, false, u, 2).behind, "19%% behind under 4%% noise: stopped");
  /* a noisy incumbent widens the margin by its own spread */
  tu_race q;
  incumbent(&q, 100e3, 0.06);
  CHECK_NEAR(tu_race_noise(&q), 0.06, 1e-12);
  CHECK(!tu_race_judge(&q, false, u, 2).behind, "19%% behind a 6%%-spread incumbent: a contender (margin 27%%)");
  tu_race_free(&r), tu_race_free(&q);
}

/* lavapipe: a configuration's first runs slower than its median (the first two 1.14-1.56x in the recorded runs) */
static void test_early_bias(void) {
  tu_race r;
  tu_race_init(&r);
  tu_race_note(&r, 0, 224e3, 0.067, 255e3); /* first runs 257 and 255 us, median 224 */
  CHECK_NEAR(r.early_bias, 255.0 / 224, 1e-12);
  tu_race_note(&r, 1, 211e3, 0.034, 329e3); /* 329, 396 -> median 211: the new incumbent, the bias 1.56 */
  CHECK(r.best == 1, "the faster median is the incumbent");
  CHECK_NEAR(r.early_bias, 329.0 / 211, 1e-12);
  tu_race_note(&r, 2, 300e3, 0.03, 290e3); /* early faster than the median: no bias below 1 kept */
  CHECK_NEAR(r.early_bias, 329.0 / 211, 1e-12);
  /* a configuration as fast as the incumbent, whose first runs carry the same bias: a contender */
  double t[2] = {330e3, 340e3};
  tu_race_verdict v = tu_race_judge(&r, false, t, 2);
  CHECK(!v.behind && v.bias > 1.55, "first runs 1.56x the incumbent's median, as its own were: a contender (bias %.3f)", v.bias);
  /* a clear loser still stops: 4x */
  double u[2] = {850e3, 860e3};
  CHECK(tu_race_judge(&r, false, u, 2).behind, "a 4x loser stops beyond the bias");
  tu_race_free(&r);
}

static void test_full_rule(void) {
  tu_race r;
  incumbent(&r, 100e3, 0.001);
  double t[4] = {900e3, 950e3, 990e3, 1000e3};
  CHECK(tu_race_judge(&r, false, t, 4).behind, "a 9x loser is behind when racing");
  CHECK(!tu_race_judge(&r, true, t, 4).behind, "--full-rule: nothing stops");
  CHECK(tu_race_first_runs(&r, true, true, 5) == 5, "--full-rule: the first batch is the rule's 5");
  tu_race_free(&r);
}

static void test_validation_counts(void) {
  CHECK(!tu_race_validation_counts(true, true), "a CPU device JITs in the first dispatch: it does not count");
  CHECK(!tu_race_validation_counts(false, false), "a GPU below its steady clock: it does not count");
  CHECK(tu_race_validation_counts(false, true), "a GPU at its steady clock: it counts");
}

int main(void) {
  test_clear_loser();
  test_near_tie();
  test_noisy_contender();
  test_incumbent_changes();
  test_margin_follows_noise();
  test_early_bias();
  test_full_rule();
  test_validation_counts();
  return check_report();
}
