/* The comb estimator on synthetic timelines: each case asserts the exact P. */
#include "check.h"
#include "../probes/probe_internal.h"
#include <stdlib.h>

/* Simulates a device with P slots: workgroups start in order, each as soon as a slot is free (plus a
 * launch delay and jitter), and sleep `sleep` ns (plus jitter). */
static uint32_t simulate(uint32_t P, uint32_t n, double sleep, double launch_step, double jitter, double sleep_jitter,
                         vkocc_interval *iv) {
  double *slot_free = calloc(P, sizeof *slot_free);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t s = 0;
    for (uint32_t k = 1; k < P; k++) if (slot_free[k] < slot_free[s]) s = k;
    double start = slot_free[s] + (i < P ? i * launch_step : 0) + fabs(jitter * check_gauss()) + 1.0;
    double len = sleep + fabs(sleep_jitter * check_gauss());
    iv[i] = (vkocc_interval){start, start + len, true};
    slot_free[s] = start + len + 0.5; /* the slot is free only after its sleeper ended */
  }
  free(slot_free);
  return n;
}

int main(void) {
  static vkocc_interval iv[8192];
  vkocc_comb_estimate e;
  /* clean comb: 3 full waves of 132 */
  simulate(132, 396, 100e3, 0, 0, 0, iv);
  CHECK(vkocc_comb_estimate_P(iv, 396, 0, &e) == VKOCC_OK, "clean");
  CHECK_EQ_U(e.P, 132);
  CHECK(!e.lower_bound, "clean is not a lower bound");
  CHECK_EQ_U(e.teeth, 3);
  CHECK_EQ_U(e.tooth_heights[0], 132);
  CHECK_EQ_U(e.tooth_heights[2], 132);
  CHECK(e.first_tooth_spread_ns < 1, "clean spread %g", e.first_tooth_spread_ns);
  /* unequal teeth: P is the first (full) tooth's height, never a later tooth's; the evidence gives each tooth's
   * height, the last one the remainder of the dispatch */
  simulate(132, 2 * 132 + 40, 100e3, 0, 0, 0, iv);
  CHECK(vkocc_comb_estimate_P(iv, 2 * 132 + 40, 0, &e) == VKOCC_OK, "two and a bit waves");
  CHECK_EQ_U(e.P, 132);
  CHECK_EQ_U(e.teeth, 3);
  CHECK_EQ_U(e.tooth_heights[0], 132);
  CHECK_EQ_U(e.tooth_heights[1], 132);
  CHECK_EQ_U(e.tooth_heights[2], 40);
  simulate(64, 64 + 20, 100e3, 0, 300, 0, iv);
  CHECK(vkocc_comb_estimate_P(iv, 64 + 20, 0, &e) == VKOCC_OK, "a wave and a short one");
  CHECK_EQ_U(e.P, 64);
  CHECK_EQ_U(e.teeth, 2);
  CHECK_EQ_U(e.tooth_heights[0], 64);
  CHECK_EQ_U(e.tooth_heights[1], 20);
  CHECK(!e.lower_bound, "a second tooth reveals P");
  /* jitter: 2 us launch jitter and 1 us sleep jitter on a 50 us sleep, P = 4224 (32 x 132) */
  simulate(4224, 4224 + 1000, 50e3, 0, 2e3, 1e3, iv);
  CHECK(vkocc_comb_estimate_P(iv, 5224, 0, &e) == VKOCC_OK, "jitter");
  CHECK_EQ_U(e.P, 4224);
  CHECK_EQ_U(e.n_valid, 5224);
  /* staggered launches: the 1000th workgroup of the first wave starts 40 us after the first, on a
   * 100 us sleep. A window of half a sleep around the first start would count about 1250 of 2000. */
  simulate(2000, 3000, 100e3, 40.0, 0, 0, iv);
  CHECK(vkocc_comb_estimate_P(iv, 3000, 0, &e) == VKOCC_OK, "staggered");
  CHECK_EQ_U(e.P, 2000);
  CHECK(e.first_tooth_spread_ns > 70e3, "staggered spread %g", e.first_tooth_spread_ns);
  /* stragglers: some sleeps are 3x longer (preempted); their slots stay busy, P stays */
  simulate(64, 200, 100e3, 0, 500, 0, iv);
  for (uint32_t i = 0; i < 200; i += 17) iv[i].end = iv[i].start + 300e3;
  /* a straggler's slot cannot be refilled while it sleeps: re-simulate that consistently */
  {
    double slot_free[64] = {0};
    for (uint32_t i = 0; i < 200; i++) {
      uint32_t s = 0;
      for (uint32_t k = 1; k < 64; k++) if (slot_free[k] < slot_free[s]) s = k;
      double len = (i % 17 == 0) ? 300e3 : 100e3;
      iv[i] = (vkocc_interval){slot_free[s] + 1, slot_free[s] + 1 + len, true};
      slot_free[s] = iv[i].end + 0.5;
    }
  }
  CHECK(vkocc_comb_estimate_P(iv, 200, 0, &e) == VKOCC_OK, "stragglers");
  CHECK_EQ_U(e.P, 64);
  /* missing records: 5 of 300 never written (valid = false); P still exact, counted as missing */
  simulate(128, 300, 80e3, 0, 300, 200, iv);
  for (int i = 0; i < 5; i++) iv[10 + 20 * i].valid = false; /* all in the first wave; later waves are whole */
  CHECK(vkocc_comb_estimate_P(iv, 300, 0, &e) == VKOCC_OK, "missing");
  CHECK_EQ_U(e.P, 128);
  CHECK_EQ_U(e.n_missing, 5);
  /* one wave only: everything overlapped, so P is only a lower bound and the caller must dispatch more */
  simulate(256, 100, 50e3, 0, 100, 0, iv);
  CHECK(vkocc_comb_estimate_P(iv, 100, 0, &e) == VKOCC_OK, "one wave");
  CHECK_EQ_U(e.P, 100);
  CHECK(e.lower_bound, "one wave must be a lower bound");
  CHECK_EQ_U(e.teeth, 1);
  /* one wave plus one: the smallest dispatch that reveals P */
  simulate(7, 8, 50e3, 0, 100, 0, iv);
  CHECK(vkocc_comb_estimate_P(iv, 8, 0, &e) == VKOCC_OK, "P+1");
  CHECK_EQ_U(e.P, 7);
  CHECK(!e.lower_bound, "P+1 reveals P");
  /* a coincidence shorter than min_dwell (a refill recorded 3 ns before its predecessor's end, e.g.
   * clock skew) must not raise P */
  simulate(16, 32, 50e3, 0, 0, 0, iv);
  iv[16].start = iv[0].end - 3;
  CHECK(vkocc_comb_estimate_P(iv, 32, 0, &e) == VKOCC_OK, "coincidence");
  CHECK_EQ_U(e.P, 16);
  /* no valid record at all: an error */
  for (int i = 0; i < 4; i++) iv[i].valid = false;
  CHECK(vkocc_comb_estimate_P(iv, 4, 0, &e) == VKOCC_ERROR_RUNTIME, "no records must fail");
  CHECK_CONTAINS(vkocc_last_error(), "none of the 4");

  /* Probe records with lavapipe's clock (Mesa 22.3: the high word is always 0, so the clock wraps every
   * 2^32 ns): 6 sleeps of 2 ms on 2 workers, the low word wrapping in the second wave. Read as 64-bit,
   * the sleeps across the wrap went backwards and the later ones sat 4.3 s away. */
  for (int wide = 0; wide < 2; wide++) {
    uint32_t rec[6 * 8] = {0};
    uint64_t base = wide ? 0x123456789ull << 8 : 0xFFF00000u; /* 1 ms before the wrap (narrow) */
    for (uint32_t i = 0; i < 6; i++) {
      uint64_t a = base + (i / 2) * 2100000ull + (i % 2) * 1000, b = a + 2000000;
      uint32_t *x = rec + 8 * i;
      x[0] = (uint32_t)a, x[1] = wide ? (uint32_t)(a >> 32) : 0, x[2] = (uint32_t)b, x[3] = wide ? (uint32_t)(b >> 32) : 0;
      x[4] = 1;
    }
    rec[8 * 5 + 4] |= 2; /* one sleep cut by the iteration bound */
    vkocc_interval r[6];
    double cut_min = INFINITY;
    CHECK_EQ_U(probes_comb_read_records(rec, 6, 1.0, r, &cut_min), 1);
    CHECK_NEAR(cut_min, 2e6, 0.5); /* the one cut sleep's length */
    for (uint32_t i = 0; i < 6; i++) {
      CHECK(r[i].valid, "record %u valid (wide %d)", i, wide);
      CHECK_NEAR(r[i].start, (i / 2) * 2100000.0 + (i % 2) * 1000.0, 0.5);
      CHECK_NEAR(r[i].end - r[i].start, 2e6, 0.5);
    }
    CHECK(vkocc_comb_estimate_P(r, 6, 0, &e) == VKOCC_OK && e.P == 2 && e.teeth == 3, "records: P %u, %u teeth", e.P,
          e.teeth);
  }
  return check_report();
}
