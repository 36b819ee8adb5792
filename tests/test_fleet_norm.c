/* The arithmetic of a shared search's normalization (tune/fleet/normalize.c): a device's time of one reference from its points
 * (fleet_reference_of) and its factor against the base device from the references both measured (fleet_factor_of),
 * with the spreads that decide whether a final round is needed. Values from the two H200s of
 * docs/results/h100x2/fleet/run4: the boards' ratio depends on the configuration (0.994 for one reference, 1.029 for
 * another), which a single reference would hide and the factor's spread must show; a device's drift from its
 * points (fleet_drift_of). Then policy build on a fleet's
 * document: it ranks normalized times. No device. argv: tests/data. */
#include "check.h"
#include "../tune/fleet/fleet.h"
#include "vkocc.h"
#include <jansson.h>

/* A fleet's document ranks in policy build as its search ranked it: by the times normalized to its base device.
 * tests/data/tune/fleet_normalized.json is test_fleet_lvp's shared search of two devices whose second is twice as
 * fast (VKOCC_TEST_FLEET_SLOW=1:50) with known times (VKOCC_TEST_FLEET_SYNTH=5): by raw medians the best is
 * {"ITEMS":4,"WG":64} (52.5 us on device 1, factor 0.5 applied: 105 us), by normalized times {"ITEMS":2,"WG":64}
 * (100 us on device 0), which the document's best names too. */
static void policy_ranks_normalized(const char *data) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tune/fleet_normalized.json", data);
  const char *files[] = {path};
  char *text = NULL;
  vkocc_status st = vkocc_policy_build(files, 1, false, NULL, &text);
  CHECK(st == VKOCC_OK, "policy build %s: %s", path, vkocc_last_error());
  json_error_t e;
  json_t *db = text ? json_loads(text, 0, &e) : NULL;
  free(text);
  json_t *k = json_object_get(json_object_get(db, "kernels"), "s");
  json_t *entries = json_object_get(k, "entries");
  CHECK(json_array_size(entries) == 2, "%zu entries", json_array_size(entries));
  size_t i;
  json_t *en;
  json_array_foreach(entries, i, en) {
    json_t *p = json_object_get(en, "params");
    CHECK(json_integer_value(json_object_get(p, "WG")) == 64 && json_integer_value(json_object_get(p, "ITEMS")) == 2,
          "entry %zu: WG %lld ITEMS %lld, expected the normalized best WG 64 ITEMS 2", i,
          (long long)json_integer_value(json_object_get(p, "WG")), (long long)json_integer_value(json_object_get(p, "ITEMS")));
  }
  json_t *p = json_object_get(json_object_get(k, "default"), "params");
  CHECK(json_integer_value(json_object_get(p, "ITEMS")) == 2, "the default: ITEMS %lld, expected 2",
        (long long)json_integer_value(json_object_get(p, "ITEMS")));
  json_decref(db);
}

int main(int argc, char **argv) {
  double t, u, fa;
  /* one point: its own spread, not an exact time */
  fleet_point one = {.median_ns = 132144, .spread = 0.0029};
  CHECK(fleet_reference_of(&one, 1, &t, &u), "one point");
  CHECK_NEAR(t, 132144, 1e-9);
  CHECK_NEAR(u, 0.0029, 1e-12);
  /* five points: the median; the medians' MAD over it (0.0012) above the points' median spread / sqrt(5) (0.0012) */
  fleet_point five[] = {{.median_ns = 131984, .spread = 0.0027}, {.median_ns = 131904, .spread = 0.0025},
                        {.median_ns = 132288, .spread = 0.0034}, {.median_ns = 132320, .spread = 0.0022},
                        {.median_ns = 132144, .spread = 0.0029}};
  CHECK(fleet_reference_of(five, 5, &t, &u), "five points");
  CHECK_NEAR(t, 132144, 1e-9);
  CHECK_NEAR(u, 160.0 / 132144, 1e-9); /* |deviations| 160 240 144 176 0: median 160 */
  /* two equal points do not claim an exact time: their spread over sqrt(2) */
  fleet_point two[] = {{.median_ns = 1000, .spread = 0.004}, {.median_ns = 1000, .spread = 0.004}};
  CHECK(fleet_reference_of(two, 2, &t, &u), "two points");
  CHECK_NEAR(u, 0.004 / sqrt(2), 1e-12);
  CHECK(!fleet_reference_of(NULL, 0, &t, &u), "no point");
  fleet_point bad = {.median_ns = 0, .spread = 0.01};
  CHECK(!fleet_reference_of(&bad, 1, &t, &u), "a zero time");
  /* one ratio: its noise is the spread */
  double r1[] = {0.9946}, n1[] = {0.002};
  CHECK(fleet_factor_of(r1, n1, 1, &fa, &u), "one ratio");
  CHECK_NEAR(fa, 0.9946, 1e-12);
  CHECK_NEAR(u, 0.002, 1e-12);
  /* four references whose ratios differ by configuration (run 4: 0.9938, 1.0287, 0.9745, 1.0039): the factor is their
   * median, the spread their MAD over it, well above the ratios' noise */
  double r4[] = {0.9938, 1.0287, 0.9745, 1.0039}, n4[] = {0.002, 0.002, 0.003, 0.002};
  CHECK(fleet_factor_of(r4, n4, 4, &fa, &u), "four ratios");
  CHECK_NEAR(fa, (0.9938 + 1.0039) / 2, 1e-12);
  /* |ratio - factor|: 0.00505 0.02985 0.02435 0.00505, median (0.00505 + 0.02435) / 2 */
  CHECK_NEAR(u, (0.00505 + 0.02435) / 2 / fa, 1e-9);
  CHECK(u > 0.014 && u < 0.015, "the configuration-dependence %.4f", u);
  /* identical ratios: the noise */
  double r3[] = {0.5, 0.5, 0.5}, n3[] = {0.001, 0.002, 0.003};
  CHECK(fleet_factor_of(r3, n3, 3, &fa, &u), "equal ratios");
  CHECK_NEAR(fa, 0.5, 1e-12);
  CHECK_NEAR(u, 0.002, 1e-12);
  CHECK(!fleet_factor_of(r3, n3, 0, &fa, &u), "no ratio");
  /* applied only beyond its spread: the H200s' 1.0079 +- 1.03% is not, a board at half the time is */
  CHECK(!fleet_factor_applies(true, 1.0079, 0.0103), "1.0079 +- 1.03%% applied");
  CHECK(!fleet_factor_applies(true, 0.9991, 0.0072), "0.9991 +- 0.72%% applied");
  CHECK(fleet_factor_applies(true, 0.5, 0.002), "0.5 +- 0.2%% not applied");
  CHECK(fleet_factor_applies(true, 1.03, 0.01), "1.03 +- 1%% not applied");
  CHECK(!fleet_factor_applies(false, 0.5, 0), "an unknown factor applied");
  /* the drift: of the references with two points or more, the widest range (run 11's matmul 8192 on two H200s:
   * reference 0 at 43960672 and 44140704 ns, 0.41%); a single point, or a reference alone in its points, is none */
  fleet_point pts[] = {{.ref = 0, .after = 3, .median_ns = 43960672, .spread = 0.0033},
                       {.ref = 1, .after = 7, .median_ns = 48541312, .spread = 0.0001},
                       {.ref = 3, .after = 13, .median_ns = 29228672, .spread = 0.0002},
                       {.ref = 0, .after = 21, .median_ns = 44140704, .spread = 0.0004},
                       {.ref = 3, .after = 22, .median_ns = 29240000, .spread = 0.0003}};
  uint32_t ref, np;
  double range;
  CHECK(fleet_drift_of(pts, 5, &ref, &np, &range, &u), "a drift from two references timed twice");
  CHECK_EQ_U(ref, 0);
  CHECK_EQ_U(np, 2);
  CHECK_NEAR(range, (44140704.0 - 43960672.0) / 43960672.0, 1e-12);
  CHECK_NEAR(u, 0.0033, 1e-12);
  CHECK(!tu_drifted(range, u), "0.41%% with spreads of 0.33%% is a drift");
  CHECK(!fleet_drift_of(pts, 3, &ref, &np, &range, &u), "no reference timed twice, yet a drift");
  /* a clock that fell by a third between a device's start and its end: reference 1 at 30 ms, then 45 ms */
  fleet_point fell[] = {{.ref = 1, .after = 0, .median_ns = 30e6, .spread = 0.001}, {.ref = 0, .after = 2, .median_ns = 20e6},
                        {.ref = 1, .after = 40, .median_ns = 45e6, .spread = 0.002}, {.ref = 1, .after = 41, .median_ns = 44e6}};
  CHECK(fleet_drift_of(fell, 4, &ref, &np, &range, &u), "the fallen clock");
  CHECK_EQ_U(ref, 1);
  CHECK_EQ_U(np, 3);
  CHECK_NEAR(range, 0.5, 1e-12);
  CHECK(tu_drifted(range, u), "a 50%% range with spreads of 0.2%% is no drift");
  /* the rule is the sentinel's: above 5% and above 4 spreads */
  CHECK(!tu_drifted(0.049, 0.001) && !tu_drifted(0.08, 0.021) && tu_drifted(0.08, 0.019), "the drift rule");
  if (argc > 1) policy_ranks_normalized(argv[1]);
  else CHECK(false, "usage: test_fleet_norm DATA_DIR");
  return check_report();
}
