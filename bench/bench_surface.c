/* Surface cost benchmark (figures, not pass/fail): the default surface end to end, split into Vulkan
 * start-up, calibration, pipeline creation with a cold and with a warm pipeline cache, and measurement.
 * Each run gets a fresh process-local cache directory for the cold pass.
 * usage: bench_surface [--device D] [--runs N] [--json FILE] */
#include "io.h"
#include "vkocc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { double startup, calibrate, pipelines, measure, warmup, comb, comb_gpu, total; uint32_t points, dispatches; bool warm; } pass;

static int run_pass(const char *device, pass *p) {
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
  vkocc_surface_options so = {0};
  vkocc_surface s;
  if (vkocc_surface_measure(ctx, &cal, &so, &s)) { fprintf(stderr, "bench_surface: %s\n", vkocc_last_error()); return 1; }
  vkocc_context_destroy(ctx);
  p->total = vkocc_now_ms() - t0;
  p->pipelines = s.pipelines_ms;
  p->measure = s.measure_ms;
  p->warmup = s.warmup_ms;
  p->comb = s.comb_ms;
  p->comb_gpu = s.comb_gpu_ms;
  p->dispatches = s.comb_dispatches;
  p->points = s.count;
  p->warm = s.cache_warm;
  vkocc_surface_free(&s);
  return 0;
}

int main(int argc, char **argv) {
  const char *device = NULL, *json_path = NULL;
  int runs = 3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
    else { fprintf(stderr, "usage: bench_surface [--device D] [--runs N] [--json FILE]\n"); return 2; }
  }
  if (runs < 1 || runs > 20) { fprintf(stderr, "bench_surface: --runs 1..20\n"); return 2; }
  json_t *rows = json_array();
  printf("%-4s %-5s %-7s %-11s %-11s %-13s %-12s %-11s %-10s %-12s %s\n", "run", "cache", "points", "startup ms",
         "calib ms", "pipelines ms", "measure ms", "(warm-up", "comb)", "total ms", "after start-up ms");
  for (int r = 0; r < runs; r++) {
    char dir[] = "/tmp/vkocc-bench-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    for (int k = 0; k < 2; k++) { /* cold, then warm from the cache the cold pass wrote */
      pass p;
      int rc = run_pass(device, &p);
      if (rc) return rc;
      double after = p.total - p.startup;
      printf("%-4d %-5s %-7u %-11.1f %-11.1f %-13.1f %-12.1f %-11.1f %-10.1f %-12.1f %.1f\n", r + 1,
             p.warm ? "warm" : "cold", p.points, p.startup, p.calibrate, p.pipelines, p.measure, p.warmup, p.comb,
             p.total, after);
      json_array_append_new(rows, json_pack("{s:i, s:b, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:f}", "run",
                                            r + 1, "cache_warm", p.warm, "points", (json_int_t)p.points, "startup_ms",
                                            p.startup, "calibrate_ms", p.calibrate, "pipelines_ms", p.pipelines,
                                            "measure_ms", p.measure, "warmup_ms", p.warmup, "comb_ms", p.comb,
                                            "comb_gpu_ms", p.comb_gpu, "comb_dispatches", (json_int_t)p.dispatches,
                                            "total_ms", p.total));
      if (r == runs - 1 && k == 1)
        printf("last warm run: comb %.1f ms wall, %.1f ms GPU, %u comb dispatches for %u points\n", p.comb,
               p.comb_gpu, p.dispatches, p.points);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) return 1;
  }
  if (json_path) {
    json_t *doc = json_pack("{s:s, s:o}", "schema", "vkocc.bench-surface/1", "runs", rows);
    vkocc_json_write(doc, json_path);
    json_decref(doc);
  } else json_decref(rows);
  return 0;
}
