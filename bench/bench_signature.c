/* The architecture signature of one device, measured `--runs` times in this process: each run's values,
 * spreads and c3 text as one JSON line (docs/fingerprint.md's noise figures come from fresh processes of this).
 * Run: build/bench/bench_signature [--device D] [--queue compute|graphics] [--runs N] [--repeats R]
 *      [--no-shader-clock] */
#include "internal.h"
#include "io.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  vkocc_context_options co = {0};
  vkocc_signature_options so = {0};
  unsigned runs = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--device") && i + 1 < argc) co.device = argv[++i];
    else if (!strcmp(argv[i], "--queue") && i + 1 < argc) co.queue = argv[++i];
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) so.repeats = (uint32_t)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-shader-clock")) co.disable_shader_clock = true;
    else { fprintf(stderr, "usage: bench_signature [--device D] [--queue Q] [--runs N] [--repeats R] [--no-shader-clock]\n"); return 2; }
  }
  double t0 = vkocc_now_ms();
  vkocc_context *ctx;
  if (vkocc_context_create(&co, &ctx)) { fprintf(stderr, "bench_signature: %s\n", vkocc_last_error()); return 1; }
  double t1 = vkocc_now_ms();
  int rc = 0;
  for (unsigned r = 0; r < runs; r++) {
    vkocc_signature g;
    vkocc_status s = vkocc_signature_measure(ctx, &so, &g);
    if (s) { fprintf(stderr, "bench_signature: %s\n", vkocc_last_error()); rc = 1; }
    char text[512];
    vkocc_signature_text(&g, text, sizeof text);
    json_t *o = json_pack("{s:s, s:I, s:s, s:f, s:s, s:o}", "device", ctx->info.name, "queue_family",
                          (json_int_t)ctx->info.compute_queue_family, "kind",
                          vkocc_queue_kind_name(ctx->info.compute_queue_flags), "context_ms", t1 - t0, "text", text,
                          "signature", io_signature_json(&g));
    char *line = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6));
    printf("%s\n", line);
    free(line);
    json_decref(o);
  }
  vkocc_context_destroy(ctx);
  return rc;
}
