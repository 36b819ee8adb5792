/* Fresh-fingerprint cost benchmark (figures, not pass/fail): each phase's share of a fresh `vkocc fingerprint`
 * with its register axis, the same steps vkocc_fingerprint_measure and vkocc_fingerprint_registers take, each run
 * in a cache directory of its own (nothing cached: the driver's pipeline cache cold too):
 *   start-up     vkocc_context_create (instance, device, the pipeline cache file)
 *   calibration  vkocc_calibrate, the fingerprint's preset (FULL); on a GPU the surface's first pipelines and the
 *                signature's are built meanwhile, on threads of their own (characterize_fingerprint_ahead_start)
 *   pipelines    the surface's pipeline creation, waiting for those built ahead (vkocc_surface.pipelines_ms)
 *   surface      the rest of vkocc_surface_measure on the canonical grid (measurement), derive and normalize
 *   signature    vkocc_signature_measure (its pipelines included)
 *   registers    vkocc_register_model_measure: the register sweep (its own quick calibration and pipelines) and its
 *                fit; "unknown" where the driver reports no register statistic
 * Medians with min..max over the runs, and each phase's share of the median total.
 * usage: bench_fingerprint [--device D] [--queue Q] [--runs N] [--no-registers] [--json FILE] */
#include "vkocc.h"
#include "characterize.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { STARTUP, CALIBRATION, PIPELINES, SURFACE, SIGNATURE, REGISTERS, TOTAL, NPHASE };
static const char *phase_name[NPHASE] = {"start-up", "calibration", "pipelines", "surface", "signature", "registers",
                                         "total"};

static int fail(const char *what) {
  fprintf(stderr, "bench_fingerprint: %s: %s\n", what, vkocc_last_error());
  return 1;
}

/* The register sweep's progress: when each point was done (ms since the sweep started). */
typedef struct { double t0, at[256]; uint32_t n; } sweep_clock;
static void sweep_progress(void *user, const char *phase, uint32_t done, uint32_t total) {
  sweep_clock *c = user;
  (void)phase, (void)done, (void)total; /* the stages of a sweep count from 1 each: every call is a point */
  if (c->n < 256) c->at[c->n++] = vkocc_now_ms() - c->t0;
}
static sweep_clock last_sweep;

/* One fresh fingerprint, its phases in ms; *id its cluster ID, *regs the register model's summary. */
static int run_once(const vkocc_context_options *co, bool registers, double *t, char *id, size_t idlen, char *regs,
                    size_t rlen) {
  double t0 = vkocc_now_ms();
  vkocc_context *ctx;
  if (vkocc_context_create(co, &ctx)) return fail("device"), 3;
  t[STARTUP] = vkocc_now_ms() - t0;
  double t1 = vkocc_now_ms();
  characterize_fingerprint_ahead ahead; /* as vkocc_fingerprint_measure: pipelines built during the calibration */
  characterize_fingerprint_ahead_start(ctx, &ahead);
  vkocc_calibrate_options cpo;
  vkocc_calibrate_preset(VKOCC_CALIBRATION_FULL, &cpo);
  vkocc_calibration cal;
  if (vkocc_calibrate(ctx, &cpo, &cal))
    return characterize_fingerprint_ahead_finish(ctx, &ahead), vkocc_context_destroy(ctx), fail("calibration");
  t[CALIBRATION] = vkocc_now_ms() - t1;
  const vkocc_device_info *d = vkocc_context_device(ctx);
  uint32_t wg[VKOCC_CANON_WG], sh[VKOCC_CANON_SHARED], nw = 0, ns = 0, maxwg = vkocc_device_max_wg_size(d);
  for (int i = 0; i < VKOCC_CANON_WG; i++)
    if (vkocc_canonical_wg[i] <= maxwg) wg[nw++] = vkocc_canonical_wg[i];
  for (int i = 0; i < VKOCC_CANON_SHARED; i++)
    if (vkocc_canonical_shared[i] <= d->max_shared_bytes) sh[ns++] = vkocc_canonical_shared[i];
  vkocc_surface_options so = {.wg_sizes = wg, .wg_count = nw, .shared = sh, .shared_count = ns, .no_refine = true};
  double t2 = vkocc_now_ms();
  vkocc_surface s;
  vkocc_status sst = vkocc_surface_measure(ctx, &cal, &so, &s);
  characterize_fingerprint_ahead_finish(ctx, &ahead);
  if (sst) return vkocc_context_destroy(ctx), fail("surface");
  vkocc_derived der;
  vkocc_fingerprint fp;
  if (vkocc_derive(s.points, s.count, s.subgroup_size, &der) || vkocc_fingerprint_from_surface(&s, &der, &fp)) {
    vkocc_surface_free(&s);
    vkocc_context_destroy(ctx);
    return fail("derive");
  }
  t[PIPELINES] = s.pipelines_ms;
  t[SURFACE] = vkocc_now_ms() - t2 - s.pipelines_ms;
  vkocc_surface_free(&s);
  double t3 = vkocc_now_ms();
  if (vkocc_signature_measure(ctx, NULL, &fp.signature)) return vkocc_context_destroy(ctx), fail("signature");
  vkocc_fingerprint_set_ids(&fp);
  t[SIGNATURE] = vkocc_now_ms() - t3;
  snprintf(id, idlen, "%s", fp.cluster_id);
  t[REGISTERS] = 0;
  snprintf(regs, rlen, "not measured");
  if (registers) {
    double t4 = vkocc_now_ms();
    memset(&last_sweep, 0, sizeof last_sweep);
    last_sweep.t0 = t4;
    vkocc_register_point *p = NULL;
    uint32_t n = 0;
    vkocc_register_model m;
    if (vkocc_register_model_measure(ctx, NULL, &der, sweep_progress, &last_sweep, &p, &n, &m)) {
      snprintf(regs, rlen, "unknown: %.200s", vkocc_last_error());
      vkocc_clear_error();
    } else {
      snprintf(regs, rlen, "R %u..%u, unit %u per invocation, %u partitions, %u/%u points explained", m.regs_per_sm,
               m.regs_per_sm_max, m.alloc_unit_per_invocation, m.partitions, m.explained, m.total);
    }
    free(p);
    t[REGISTERS] = vkocc_now_ms() - t4;
  }
  vkocc_context_destroy(ctx);
  t[TOTAL] = vkocc_now_ms() - t0;
  return 0;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double med(double *v, int n, double *lo, double *hi) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  *lo = v[0], *hi = v[n - 1];
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  vkocc_context_options co = {0};
  int runs = 3;
  bool registers = true;
  const char *json = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--device") && i + 1 < argc) co.device = argv[++i];
    else if (!strcmp(argv[i], "--queue") && i + 1 < argc) co.queue = argv[++i];
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else if (!strcmp(argv[i], "--no-registers")) registers = false;
    else {
      fprintf(stderr, "usage: bench_fingerprint [--device D] [--queue Q] [--runs N] [--no-registers] [--json FILE]\n");
      return 2;
    }
  }
  if (runs < 1 || runs > 100) return fprintf(stderr, "bench_fingerprint: --runs 1..100\n"), 2;
  double (*t)[NPHASE] = calloc((size_t)runs, sizeof *t);
  char id[64] = "", first_id[64] = "", regs[300] = "", first_regs[300] = "";
  bool same = true;
  for (int r = 0; r < runs; r++) {
    char dir[] = "/tmp/bench_fingerprint.XXXXXX"; /* an empty cache: a fresh fingerprint, a cold pipeline cache */
    if (!mkdtemp(dir)) return fprintf(stderr, "bench_fingerprint: no temporary directory\n"), 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    int rc = run_once(&co, registers, t[r], id, sizeof id, regs, sizeof regs);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) { /* a leftover temporary directory is no failure of the figures */ }
    if (rc) return free(t), rc;
    if (!r) snprintf(first_id, sizeof first_id, "%s", id), snprintf(first_regs, sizeof first_regs, "%s", regs);
    else same = same && !strcmp(id, first_id) && !strcmp(regs, first_regs);
    printf("run %d:", r + 1);
    for (int k = 0; k < NPHASE; k++) printf(" %s %.0f", phase_name[k], t[r][k]);
    printf(" ms; %s; registers %s\n", id, regs);
    if (last_sweep.n) { /* where the sweep's time goes: up to its first point (calibration, pipelines), then each */
      printf("  register sweep: first point done at %.0f ms, then per point:", last_sweep.at[0]);
      for (uint32_t i = 1; i < last_sweep.n; i++) printf(" %.0f", last_sweep.at[i] - last_sweep.at[i - 1]);
      printf(" ms\n");
    }
  }
  double m[NPHASE], lo[NPHASE], hi[NPHASE], col[100];
  for (int k = 0; k < NPHASE; k++) {
    for (int r = 0; r < runs; r++) col[r] = t[r][k];
    m[k] = med(col, runs, &lo[k], &hi[k]);
  }
  printf("%-12s %10s %20s %7s\n", "phase", "median ms", "range ms", "share");
  for (int k = 0; k < NPHASE; k++)
    printf("%-12s %10.1f %9.1f..%-10.1f %6.1f%%\n", phase_name[k], m[k], lo[k], hi[k], 100 * m[k] / m[TOTAL]);
  printf("cluster ID %s, registers %s; %s over %d runs\n", first_id, first_regs,
         same ? "the same" : "NOT the same", runs);
  if (json) {
    FILE *f = fopen(json, "w");
    if (!f) return free(t), fprintf(stderr, "bench_fingerprint: cannot write %s\n", json), 1;
    fprintf(f, "{\"runs\": %d, \"cluster_id\": \"%s\", \"registers\": \"%s\", \"same_every_run\": %s, \"phases\": [",
            runs, first_id, first_regs, same ? "true" : "false");
    for (int k = 0; k < NPHASE; k++)
      fprintf(f, "%s{\"phase\": \"%s\", \"median_ms\": %.2f, \"min_ms\": %.2f, \"max_ms\": %.2f, \"share\": %.4f}",
              k ? ", " : "", phase_name[k], m[k], lo[k], hi[k], m[k] / m[TOTAL]);
    fprintf(f, "]}\n");
    fclose(f);
  }
  free(t);
  return same ? 0 : 1;
}
