/* Probe cost benchmark (figures, not pass/fail): for each point, per repetition, the wall time, the GPU
 * time (sum of timestamp intervals) and the floor (2 waves of each method's workload: the fewest that
 * can reveal P). Reports medians with min..max and the ratio to the floor measured in the same run.
 * usage: bench_probe [--device D] [--repeat K] [--json FILE] */
#include "io.h"
#include "vkocc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *device = NULL, *json_path = NULL;
  uint32_t repeat = 5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = (uint32_t)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
    else { fprintf(stderr, "usage: bench_probe [--device D] [--repeat K] [--json FILE]\n"); return 2; }
  }
  if (repeat < 1 || repeat > VKOCC_MAX_REPEAT) { fprintf(stderr, "bench_probe: --repeat 1..%d\n", VKOCC_MAX_REPEAT); return 2; }
  vkocc_context *ctx;
  vkocc_context_options o = {.device = device};
  if (vkocc_context_create(&o, &ctx)) { fprintf(stderr, "bench_probe: %s\n", vkocc_last_error()); return 3; }
  vkocc_calibration cal;
  if (vkocc_calibrate(ctx, NULL, &cal)) { fprintf(stderr, "bench_probe: %s\n", vkocc_last_error()); return 1; }
  const vkocc_device_info *d = vkocc_context_device(ctx);
  const uint32_t wgs[] = {32, 256, 1024}, shms[] = {0, 16384};
  json_t *rows = json_array();
  printf("device: %s\n%-6s %-7s %-5s %-22s %-22s %-10s %-16s %-16s\n", d->name, "wg", "shmem", "P", "wall ms med [min..max]",
         "gpu ms med [min..max]", "floor ms", "wall/floor", "gpu/floor");
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 2; b++) {
      uint32_t shm = shms[b] <= d->max_shared_bytes ? shms[b] : 0;
      vkocc_probe_options po = {.wg_size = wgs[a], .shared_bytes = shm, .repeat = repeat};
      vkocc_probe_result r;
      if (vkocc_probe(ctx, &cal, &po, &r)) { fprintf(stderr, "bench_probe: %s\n", vkocc_last_error()); continue; }
      double wall[VKOCC_MAX_REPEAT], gpu[VKOCC_MAX_REPEAT], rw[VKOCC_MAX_REPEAT], rg[VKOCC_MAX_REPEAT];
      for (uint32_t i = 0; i < repeat; i++) {
        wall[i] = r.reps[i].comb_wall_ns + r.reps[i].bisect_wall_ns;
        gpu[i] = r.reps[i].comb_gpu_ns + r.reps[i].bisect_gpu_ns;
        rw[i] = wall[i] / r.floor_ns;
        rg[i] = gpu[i] / r.floor_ns;
      }
      vkocc_summary sw, sg, srw, srg;
      vkocc_summarize(wall, repeat, &sw);
      vkocc_summarize(gpu, repeat, &sg);
      vkocc_summarize(rw, repeat, &srw);
      vkocc_summarize(rg, repeat, &srg);
      printf("%-6u %-7u %-5u %6.2f [%6.2f..%6.2f] %6.2f [%6.2f..%6.2f] %-10.3f %5.1f [%4.1f..%4.1f] %5.1f [%4.1f..%4.1f]\n",
             wgs[a], shm, r.P, sw.median / 1e6, sw.min / 1e6, sw.max / 1e6, sg.median / 1e6, sg.min / 1e6,
             sg.max / 1e6, r.floor_ns / 1e6, srw.median, srw.min, srw.max, srg.median, srg.min, srg.max);
      json_array_append_new(rows, json_pack("{s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "wg_size",
                                            (json_int_t)wgs[a], "shared_bytes", (json_int_t)shm, "P", (json_int_t)r.P,
                                            "wall_ns_median", sw.median, "wall_ns_min", sw.min, "wall_ns_max", sw.max,
                                            "gpu_ns_median", sg.median, "gpu_ns_min", sg.min, "gpu_ns_max", sg.max,
                                            "floor_ns", r.floor_ns, "wall_over_floor_median", srw.median,
                                            "gpu_over_floor_median", srg.median));
      vkocc_probe_result_free(&r);
    }
  if (json_path) {
    json_t *doc = json_pack("{s:s, s:o, s:I, s:o}", "schema", vkocc_doc_schema_string(VKOCC_DOC_BENCH_PROBE), "device", vkocc_device_info_json(d),
                            "repeat", (json_int_t)repeat, "rows", rows);
    util_json_write(doc, json_path);
    json_decref(doc);
  } else json_decref(rows);
  vkocc_context_destroy(ctx);
  return 0;
}
