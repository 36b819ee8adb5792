/* Surface cost benchmark (figures, not pass/fail): the default surface end to end, adaptive against the full
 * grid in the same run, each with a cold and then a warm pipeline cache: Vulkan start-up, calibration,
 * pipeline creation, measurement (warm-up, comb wall and GPU time, the floor of two sleeps per
 * measurement). Each run and mode gets a fresh cache directory for its cold pass. Medians with min..max over
 * the runs, ratios of the medians; with --save DIR the last run's warm surfaces are written and compared
 * point by point (the identical-surface check).
 * usage: bench_surface [--device D] [--runs N] [--modes adaptive,full] [--json FILE] [--save DIR] */
#include "io.h"
#include "vkocc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  double startup, calibrate, pipelines, measure, warmup, comb, comb_gpu, floor, total;
  uint32_t points, measured, pipes, dispatches, batches, alone;
  bool warm;
} pass;

static int run_pass(const char *device, bool full, pass *p, vkocc_surface *keep) {
  double t0 = vkocc_now_ms();
  vkocc_context *ctx;
  vkocc_context_options o = {.device = device};
  if (vkocc_context_create(&o, &ctx)) { fprintf(stderr, "bench_surface: %s\n", vkocc_last_error()); return 3; }
  p->startup = vkocc_now_ms() - t0;
  double t1 = vkocc_now_ms();
  vkocc_calibration cal;
  vkocc_calibrate_options co;
  vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
  if (vkocc_calibrate(ctx, &co, &cal)) { fprintf(stderr, "bench_surface: %s\n", vkocc_last_error()); return 1; }
  p->calibrate = vkocc_now_ms() - t1;
  vkocc_surface_options so = {.full = full};
  vkocc_surface s;
  if (vkocc_surface_measure(ctx, &cal, &so, &s)) { fprintf(stderr, "bench_surface: %s\n", vkocc_last_error()); return 1; }
  vkocc_context_destroy(ctx);
  p->total = vkocc_now_ms() - t0;
  p->pipelines = s.pipelines_ms;
  p->measure = s.measure_ms;
  p->warmup = s.warmup_ms;
  p->comb = s.comb_ms;
  p->comb_gpu = s.comb_gpu_ms;
  p->floor = s.floor_ms;
  p->dispatches = s.comb_dispatches;
  p->points = s.count;
  p->measured = s.measured;
  p->pipes = s.pipelines;
  p->batches = s.batches;
  p->alone = s.remeasured;
  p->warm = s.cache_warm;
  if (keep) { vkocc_surface_free(keep); *keep = s; }
  else vkocc_surface_free(&s);
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

/* point by point: the same (wg, shared) set and the same P everywhere */
static uint32_t compare(const vkocc_surface *a, const vkocc_surface *f) {
  uint32_t diff = a->count > f->count ? a->count - f->count : f->count - a->count;
  for (uint32_t i = 0; i < a->count && i < f->count; i++)
    if (a->points[i].wg_size != f->points[i].wg_size || a->points[i].shared_bytes != f->points[i].shared_bytes ||
        a->points[i].P != f->points[i].P) {
      if (diff < 10)
        printf("  differs: adaptive (%u, %u) P %u%s, full (%u, %u) P %u\n", a->points[i].wg_size,
               a->points[i].shared_bytes, a->points[i].P, a->points[i].predicted ? " predicted" : "",
               f->points[i].wg_size, f->points[i].shared_bytes, f->points[i].P);
      diff++;
    }
  return diff;
}

int main(int argc, char **argv) {
  const char *device = NULL, *json_path = NULL, *save = NULL, *modes = "adaptive,full";
  int runs = 3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
    else if (!strcmp(argv[i], "--save") && i + 1 < argc) save = argv[++i];
    else if (!strcmp(argv[i], "--modes") && i + 1 < argc) modes = argv[++i];
    else {
      fprintf(stderr, "usage: bench_surface [--device D] [--runs N] [--modes adaptive,full] [--json FILE] [--save DIR]\n");
      return 2;
    }
  }
  if (runs < 1 || runs > 20) { fprintf(stderr, "bench_surface: --runs 1..20\n"); return 2; }
  bool mode_on[2] = {strstr(modes, "adaptive") != NULL, strstr(modes, "full") != NULL};
  if (!mode_on[0] && !mode_on[1]) { fprintf(stderr, "bench_surface: --modes adaptive, full or both\n"); return 2; }
  static const char *mname[2] = {"adaptive", "full"};
  json_t *rows = json_array();
  pass all[2][2][20]; /* mode, cache (0 cold 1 warm), run */
  vkocc_surface kept[2];
  memset(kept, 0, sizeof kept);
  printf("%-4s %-9s %-5s %-7s %-9s %-6s %-8s %-6s %-10s %-9s %-9s %-8s %-10s %-9s %-9s %-9s %s\n", "run", "mode", "cache",
         "points", "measured", "pipes", "batches", "alone", "startup ms", "calib ms", "pipes ms", "warm-up", "measure ms",
         "comb ms", "GPU ms", "floor ms", "after start-up ms");
  for (int r = 0; r < runs; r++)
    for (int m = 0; m < 2; m++) {
      if (!mode_on[m]) continue;
      char dir[] = "/tmp/vkocc-bench-XXXXXX";
      if (!mkdtemp(dir)) return 1;
      setenv("XDG_CACHE_HOME", dir, 1);
      for (int k = 0; k < 2; k++) { /* cold, then warm from the cache the cold pass wrote */
        pass *p = &all[m][k][r];
        int rc = run_pass(device, m == 1, p, save && r == runs - 1 && k == 1 ? &kept[m] : NULL);
        if (rc) return rc;
        printf("%-4d %-9s %-5s %-7u %-9u %-6u %-8u %-6u %-10.1f %-9.1f %-9.1f %-8.1f %-10.1f %-9.1f %-9.1f %-9.1f %.1f\n",
               r + 1, mname[m], p->warm ? "warm" : "cold", p->points, p->measured, p->pipes, p->batches, p->alone, p->startup,
               p->calibrate, p->pipelines, p->warmup, p->measure, p->comb, p->comb_gpu, p->floor, p->total - p->startup);
        fflush(stdout);
        json_array_append_new(rows, json_pack("{s:i, s:s, s:b, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
                                              "s:I, s:f}", "run", r + 1, "mode", mname[m], "cache_warm", p->warm, "points",
                                              (json_int_t)p->points, "measured", (json_int_t)p->measured, "pipelines",
                                              (json_int_t)p->pipes, "batches", (json_int_t)p->batches, "startup_ms",
                                              p->startup, "calibrate_ms", p->calibrate, "pipelines_ms", p->pipelines,
                                              "measure_ms", p->measure, "warmup_ms", p->warmup, "comb_ms", p->comb,
                                              "comb_gpu_ms", p->comb_gpu, "floor_ms", p->floor, "comb_dispatches",
                                              (json_int_t)p->dispatches, "total_ms", p->total));
      }
      char cmd[128];
      snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
      if (system(cmd)) return 1;
    }
  /* medians over the runs, min..max, and the ratios adaptive / full of the medians */
  printf("\nmedians over %d run%s (min..max):\n", runs, runs == 1 ? "" : "s");
  double after[2][2] = {{0}}, gpu[2][2] = {{0}}, meas[2][2] = {{0}};
  json_t *sum = json_array();
  for (int m = 0; m < 2; m++)
    for (int k = 0; k < 2; k++) {
      if (!mode_on[m]) continue;
      double a[20], g[20], w[20], pl[20], fl[20], lo[5], hi[5];
      for (int r = 0; r < runs; r++) {
        pass *p = &all[m][k][r];
        a[r] = p->total - p->startup, g[r] = p->comb_gpu, w[r] = p->measure, pl[r] = p->pipelines, fl[r] = p->floor;
      }
      after[m][k] = med(a, runs, &lo[0], &hi[0]);
      gpu[m][k] = med(g, runs, &lo[1], &hi[1]);
      meas[m][k] = med(w, runs, &lo[2], &hi[2]);
      double pm = med(pl, runs, &lo[3], &hi[3]), fm = med(fl, runs, &lo[4], &hi[4]);
      pass *p0 = &all[m][k][0];
      printf("  %-8s %s: %u points, %u measured, %u pipelines; after start-up %.1f ms (%.1f..%.1f), pipelines %.1f ms "
             "(%.1f..%.1f), measurement %.1f ms (%.1f..%.1f), comb GPU %.1f ms (%.1f..%.1f), floor %.1f ms; "
             "GPU/floor %.2f, measurement wall/GPU %.2f\n", mname[m], k ? "warm" : "cold", p0->points, p0->measured,
             p0->pipes, after[m][k], lo[0], hi[0], pm, lo[3], hi[3], meas[m][k], lo[2], hi[2], gpu[m][k], lo[1], hi[1], fm,
             fm > 0 ? gpu[m][k] / fm : 0, gpu[m][k] > 0 ? meas[m][k] / gpu[m][k] : 0);
      json_array_append_new(sum, json_pack("{s:s, s:b, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "mode",
                                           mname[m], "cache_warm", k == 1, "points", (json_int_t)p0->points, "measured",
                                           (json_int_t)p0->measured, "pipelines", (json_int_t)p0->pipes,
                                           "after_startup_ms_median", after[m][k], "after_startup_ms_min", lo[0],
                                           "after_startup_ms_max", hi[0], "pipelines_ms_median", pm, "measure_ms_median",
                                           meas[m][k], "comb_gpu_ms_median", gpu[m][k], "floor_ms_median", fm,
                                           "gpu_over_floor", fm > 0 ? gpu[m][k] / fm : 0, "measure_wall_over_gpu",
                                           gpu[m][k] > 0 ? meas[m][k] / gpu[m][k] : 0));
    }
  json_t *ratios = json_object();
  if (mode_on[0] && mode_on[1])
    for (int k = 0; k < 2; k++) {
      printf("  adaptive / full, %s cache: after start-up %.3f, measurement %.3f, comb GPU %.3f\n", k ? "warm" : "cold",
             after[0][k] / after[1][k], meas[0][k] / meas[1][k], gpu[0][k] / gpu[1][k]);
      json_object_set_new(ratios, k ? "warm" : "cold", json_pack("{s:f, s:f, s:f}", "after_startup", after[0][k] / after[1][k],
                                                                 "measure", meas[0][k] / meas[1][k], "comb_gpu",
                                                                 gpu[0][k] / gpu[1][k]));
    }
  json_t *check = json_null();
  if (save) {
    char path[1024];
    for (int m = 0; m < 2; m++) {
      if (!mode_on[m]) continue;
      snprintf(path, sizeof path, "%s/surface-%s.json", save, mname[m]);
      if (vkocc_surface_save(&kept[m], path)) fprintf(stderr, "bench_surface: %s\n", vkocc_last_error());
    }
    if (mode_on[0] && mode_on[1]) {
      uint32_t d = compare(&kept[0], &kept[1]);
      printf("identical-surface check (last run, warm): adaptive %u points (%u measured), full %u points: %s (%u differ)\n",
             kept[0].count, kept[0].measured, kept[1].count, d ? "DIFFERENT" : "identical", d);
      check = json_pack("{s:I, s:I, s:I, s:I}", "adaptive_points", (json_int_t)kept[0].count, "adaptive_measured",
                        (json_int_t)kept[0].measured, "full_points", (json_int_t)kept[1].count, "differ", (json_int_t)d);
    }
  }
  vkocc_surface_free(&kept[0]);
  vkocc_surface_free(&kept[1]);
  if (json_path) {
    json_t *doc = json_pack("{s:s, s:o, s:o, s:o, s:o}", "schema", vkocc_doc_schema_string(VKOCC_DOC_BENCH_SURFACE), "runs", rows, "medians", sum,
                            "ratios", ratios, "identical_check", check);
    util_json_write(doc, json_path);
    json_decref(doc);
  } else {
    json_decref(rows); json_decref(sum); json_decref(ratios); json_decref(check);
  }
  return 0;
}
