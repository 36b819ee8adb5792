/* A small surface on lavapipe: P is LP_NUM_THREADS everywhere, the derived SM count times the
 * workgroups per SM is LP_NUM_THREADS, and every point is explained. lavapipe's pipeline cache holds no
 * pipelines, so no run counts as warm. */
#include "check.h"
#include "vkocc.h"
#include <stdlib.h>

int main(void) {
  const char *env = getenv("LP_NUM_THREADS");
  uint32_t expect = env ? (uint32_t)atoi(env) : 0;
  if (!expect) { fprintf(stderr, "set LP_NUM_THREADS\n"); return 2; }
  for (int run = 0; run < 2; run++) {
    vkocc_context *ctx;
    vkocc_context_options o = {.device = "llvmpipe"};
    CHECK(vkocc_context_create(&o, &ctx) == VKOCC_OK, "context: %s", vkocc_last_error());
    if (!ctx) return check_report();
    vkocc_calibration cal;
    vkocc_calibrate_options co;
    vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
    CHECK(vkocc_calibrate(ctx, &co, &cal) == VKOCC_OK, "calibrate: %s", vkocc_last_error());
    const uint32_t wg[] = {8, 64, 256, 1024}, sh[] = {0, 16384, 32768};
    vkocc_surface_options so = {.wg_sizes = wg, .wg_count = 4, .shared = sh, .shared_count = 3};
    vkocc_surface s;
    vkocc_status st = vkocc_surface_measure(ctx, &cal, &so, &s);
    CHECK(st == VKOCC_OK, "surface: %s", vkocc_last_error());
    vkocc_context_destroy(ctx);
    if (st) continue;
    CHECK_EQ_U(s.count, 12);
    CHECK_EQ_U(s.pipelines, 12);
    CHECK(s.pipelines_ms > 0 && s.measure_ms > 0, "timings");
    /* Mesa 22.3's lavapipe keeps no pipelines in its VkPipelineCache: the file it leaves is the 32-byte header
     * alone, so the second run is no warmer than the first (surface printed "with a warm cache" here) */
    CHECK(!s.cache_warm, "run %d: lavapipe's pipeline cache holds only its header, yet it counted as warm", run);
    for (uint32_t i = 0; i < s.count; i++)
      CHECK(s.points[i].P == expect, "P at wg %u, %u bytes: %u, expected %u", s.points[i].wg_size,
            s.points[i].shared_bytes, s.points[i].P, expect);
    vkocc_derived d;
    CHECK(vkocc_derive(s.points, s.count, s.subgroup_size, &d) == VKOCC_OK, "derive: %s", vkocc_last_error());
    CHECK(d.sm_count * d.wg_per_sm == expect, "SMs %u x workgroups %u != %u", d.sm_count, d.wg_per_sm, expect);
    CHECK(d.sm_count == expect && d.wg_per_sm == 1, "one workgroup per worker thread: %u x %u", d.sm_count, d.wg_per_sm);
    CHECK(d.explained == s.count, "explained %u of %u", d.explained, s.count);
    CHECK(!d.subgroups_bound_seen && !d.shared_bound_seen, "no subgroup or shared limit binds on lavapipe");
    vkocc_surface_free(&s);
  }
  return check_report();
}
