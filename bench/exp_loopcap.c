/* Experiment (figures, not pass/fail): how the probe's sleep loop ends on a device, lavapipe first.
 * For each case it dispatches the probe kernel and prints, per workgroup, the loop rounds it ran, the
 * realtime ticks it slept and whether the sleep reached its time.
 * usage: exp_loopcap [wg shmem groups sleep_ticks max_rounds dispatches]   (ticks are ns on lavapipe) */
#include "../probes/probe_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint32_t mode, sleep_ticks, max_rounds, chase_rounds, chase_mask, key; } push_t;

int main(int argc, char **argv) {
  uint32_t wg = argc > 1 ? atoi(argv[1]) : 128, shm = argc > 2 ? atoi(argv[2]) : 4096;
  uint32_t groups = argc > 3 ? atoi(argv[3]) : 1, ticks = argc > 4 ? (uint32_t)atof(argv[4]) : 2000000000u;
  uint32_t rounds = argc > 5 ? (uint32_t)atof(argv[5]) : 65000, disp = argc > 6 ? atoi(argv[6]) : 1;
  vkocc_context *ctx;
  vkocc_context_options o = {0};
  if (vkocc_context_create(&o, &ctx)) { fprintf(stderr, "%s\n", vkocc_last_error()); return 3; }
  probes_session ps;
  core_kernel k;
  if (probes_session_create(ctx, &ps) || probes_kernel_create(ctx, wg, shm, &k) ||
      probes_first_use(&ps, &k)) { fprintf(stderr, "%s\n", vkocc_last_error()); return 1; }
  push_t p = {0, ticks, rounds, 1, (1u << 20) - 1, 0xFFFFFFFFu};
  uint32_t cut = 0, total = 0;
  double min_rate = 1e30, max_rate = 0;
  for (uint32_t d = 0; d < disp; d++) {
    memset(ps.rec.map, 0, (size_t)groups * 32);
    double ns; vkocc_tick_status ts;
    if (core_dispatch_timed(ctx, &k, &p, groups, &ns, &ts)) { fprintf(stderr, "%s\n", vkocc_last_error()); return 1; }
    if (argc > 7) printf("dispatch %u: %.0f ns\n", d, ns);
    const uint32_t *w = ps.rec.map;
    for (uint32_t i = 0; i < groups; i++) {
      const uint32_t *x = w + 8 * i;
      uint64_t a = x[0] | (uint64_t)x[1] << 32, b = x[2] | (uint64_t)x[3] << 32;
      double el = (double)(b - a), rate = x[5] ? el / x[5] : 0;
      total++;
      if (x[4] & 2) cut++;
      if (x[5] && rate < min_rate) min_rate = rate;
      if (rate > max_rate) max_rate = rate;
      if ((x[4] & 2) || disp == 1 || b < a || el > 4.0 * ticks)
        printf("dispatch %u wg %u: flags %u rounds %u slept %.0f ns (%.1f ns/round) of %u ticks; start %08x:%08x end %08x:%08x\n", d, i, x[4], x[5], el,
               rate, ticks, x[1], x[0], x[3], x[2]);
    }
  }
  printf("summary: %u of %u sleeps cut; ns/round %.1f..%.1f\n", cut, total, min_rate, max_rate);
  core_kernel_destroy(ctx, &k);
  probes_session_destroy(&ps);
  vkocc_context_destroy(ctx);
  return 0;
}
