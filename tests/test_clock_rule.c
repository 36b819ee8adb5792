/* Clock-verified samples on synthetic clocks (tune/harness/clock_rule.h): an H100-like cold start (345 MHz idle, 1980 MHz
 * under load), a constant clock with noise (lavapipe), an outlier, a drop in the middle of a run, no evidence. */
#include "check.h"
#include "clock_rule.h"
#include <math.h>

static void test_cold_start(void) {
  tu_clock_state s = {0};
  tu_clock_rule r = {0};
  CHECK(tu_clock_needs_warmup(&s, &r, 0.345), "no estimate yet: warm");
  CHECK(tu_clock_judge(&s, &r, 0.345, 0.345, 0) == TU_CLOCK_UNKNOWN, "no estimate: no verdict");
  const double ramp[] = {0.345, 0.9, 1.5, 1.98, 1.97, 1.98};
  for (int i = 0; i < 6; i++) {
    tu_clock_observe(&s, ramp[i]);
    if (i < 4) CHECK(tu_clock_needs_warmup(&s, &r, ramp[i]), "reading %d (%g) of the ramp: still warming", i, ramp[i]);
    else CHECK(!tu_clock_needs_warmup(&s, &r, ramp[i]), "reading %d (%g): settled", i, ramp[i]);
  }
  CHECK_NEAR(s.steady, 1.98, 1e-12);
  CHECK(!tu_clock_needs_warmup(&s, &r, 1.98), "settled at 1.98: no warm-up");
  CHECK(tu_clock_needs_warmup(&s, &r, 0.345), "idle again: warm");
  CHECK(tu_clock_judge(&s, &r, 1.97, 1.98, 0) == TU_CLOCK_OK, "at the steady clock");
  CHECK(tu_clock_judge(&s, &r, 1.69, 1.98, 0) == TU_CLOCK_OK, "just above 85%% of it");
  CHECK(tu_clock_judge(&s, &r, 1.68, 1.98, 0) == TU_CLOCK_AGAIN, "just below 85%% of it (1.683)");
  CHECK(tu_clock_judge(&s, &r, 0.644, 0.644, 0) == TU_CLOCK_AGAIN, "the H100's intermediate state");
  CHECK(tu_clock_judge(&s, &r, 1.98, 0.345, 0) == TU_CLOCK_AGAIN, "dropped during the batch");
  CHECK(tu_clock_judge(&s, &r, 0.345, 1.98, 2) == TU_CLOCK_AGAIN, "third try");
  CHECK(tu_clock_judge(&s, &r, 0.345, 1.98, 3) == TU_CLOCK_KEPT, "retries spent: kept, flagged");
  tu_clock_rule strict = {.low_fraction = 0.99, .max_retries = 1};
  CHECK(tu_clock_judge(&s, &r, 1.95, 1.98, 0) == TU_CLOCK_OK && tu_clock_judge(&s, &strict, 1.95, 1.98, 0) == TU_CLOCK_AGAIN,
        "the rule's fraction");
  CHECK(tu_clock_judge(&s, &strict, 1.95, 1.98, 1) == TU_CLOCK_KEPT, "the rule's retries");
  CHECK(tu_clock_judge(&s, &r, 0, 1.98, 0) == TU_CLOCK_UNKNOWN, "a missing reading: no evidence");
  CHECK(tu_clock_judge(&s, &r, NAN, 1.98, 0) == TU_CLOCK_UNKNOWN, "a NaN reading: no evidence");
}

/* lavapipe: one clock, 1% noise; nothing is ever measured again and no warm-up asked once 3 readings are in */
static void test_constant(void) {
  tu_clock_state s = {0};
  uint32_t again = 0, warm = 0;
  for (int i = 0; i < 1000; i++) {
    double before = 1.0 + 0.01 * check_gauss(), after = 1.0 + 0.01 * check_gauss();
    tu_clock_observe(&s, before);
    tu_clock_observe(&s, after);
    if (i >= 2) {
      again += tu_clock_judge(&s, NULL, before, after, 0) != TU_CLOCK_OK;
      warm += tu_clock_needs_warmup(&s, NULL, after) && s.recent[s.nrecent - 1] <= 1.02 * s.recent[s.nrecent - 2];
    }
  }
  CHECK_EQ_U(again, 0);
  CHECK_EQ_U(warm, 0);
  CHECK(s.steady > 1.0 && s.steady < 1.05, "steady %g", s.steady);
  CHECK_EQ_U(s.readings, 2000);
}

/* one high reading does not raise the estimate; a clock that settles higher does; ignored readings */
static void test_outlier(void) {
  tu_clock_state s = {0};
  const double x[] = {1.5, 1.5, 1.5, 3.0, 1.5, 1.5};
  for (int i = 0; i < 6; i++) tu_clock_observe(&s, x[i]);
  CHECK_NEAR(s.steady, 1.5, 1e-12);
  tu_clock_observe(&s, 1.7), tu_clock_observe(&s, 1.7), tu_clock_observe(&s, 1.7);
  CHECK_NEAR(s.steady, 1.7, 1e-12);
  tu_clock_observe(&s, 0), tu_clock_observe(&s, -1), tu_clock_observe(&s, INFINITY), tu_clock_observe(&s, NAN);
  CHECK_EQ_U(s.readings, 9);
  for (int i = 0; i < 20; i++) tu_clock_observe(&s, 1.6);
  CHECK_EQ_U(s.nrecent, TU_CLOCK_RECENT);
  CHECK_NEAR(s.steady, 1.7, 1e-12);
  CHECK(tu_clock_judge(&s, NULL, 1.6, 1.6, 0) == TU_CLOCK_OK, "1.6 is within 85%% of 1.7");
  CHECK(tu_clock_judge(&s, NULL, 1.4, 1.6, 0) == TU_CLOCK_AGAIN, "1.4 is not");
  CHECK(!strcmp(tu_clock_verdict_name(TU_CLOCK_KEPT), "kept"), "names");
}

/* An H100 seen on the device: a run that starts in the 0.644 GHz state and stays there (the host keeps the
 * device idle between configurations) took it for steady and timed SAXPY at 1.8x its time; seeded with the
 * fingerprint's 1.98 it asks for a warm-up and measures such batches again. */
static void test_seed(void) {
  tu_clock_state s = {0};
  for (int i = 0; i < 6; i++) tu_clock_observe(&s, 0.644);
  CHECK(tu_clock_judge(&s, NULL, 0.644, 0.644, 0) == TU_CLOCK_OK && !tu_clock_needs_warmup(&s, NULL, 0.644),
        "unseeded: the low state passes for steady (%g)", s.steady);
  tu_clock_state t = {0};
  tu_clock_seed(&t, 1.98);
  tu_clock_seed(&t, 0.5); /* a lower seed does not lower it */
  for (int i = 0; i < 6; i++) tu_clock_observe(&t, 0.644);
  CHECK_NEAR(t.steady, 1.98, 1e-12);
  CHECK(tu_clock_needs_warmup(&t, NULL, 0.644), "seeded: warm");
  CHECK(tu_clock_judge(&t, NULL, 0.644, 0.644, 0) == TU_CLOCK_AGAIN, "seeded: measured again");
  CHECK(!tu_clock_needs_warmup(&t, NULL, 1.977), "seeded, at 1.977: no warm-up");
  tu_clock_seed(&t, NAN), tu_clock_seed(&t, -1);
  CHECK_NEAR(t.steady, 1.98, 1e-12);
}

int main(void) {
  test_seed();
  test_cold_start();
  test_constant();
  test_outlier();
  return check_report();
}
