/* Clustering benchmark (figures, not pass/fail): N synthetic fingerprints (5 architectures x many SM counts,
 * a quarter of them with 1-3 noisy points) clustered in memory, and the same written to files and read
 * back through the reader. usage: bench_cluster [N] [--files DIR] */
#include "io.h"
#include "util.h"
#include "../tests/synth.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 10000;
  const char *dir = (argc > 3 && !strcmp(argv[2], "--files")) ? argv[3] : NULL;
  const synth_arch *archs[] = {&SYNTH_HOPPER, &SYNTH_AMPERE, &SYNTH_RDNA, &SYNTH_GCN, &SYNTH_XE};
  vkocc_fingerprint *fps = util_xmalloc(n * sizeof *fps);
  for (uint32_t i = 0; i < n; i++)
    if (synth_fingerprint(archs[i % 5], 8 + (i / 5) % 150, i % 4 == 0 ? 1 + i % 3 : 0, &fps[i])) return 1;
  uint32_t *of = util_xmalloc(n * sizeof *of), nc;
  double *dist = util_xmalloc(n * sizeof *dist), t[5];
  for (int r = 0; r < 5; r++) {
    double t0 = vkocc_now_ms();
    vkocc_cluster(fps, n, VKOCC_CLUSTER_THRESHOLD, of, dist, &nc);
    t[r] = vkocc_now_ms() - t0;
  }
  vkocc_summary s;
  vkocc_summarize(t, 5, &s);
  printf("in memory: %u fingerprints -> %u clusters: median %.1f ms [%.1f..%.1f] over 5 runs\n", n, nc, s.median, s.min, s.max);
  if (dir) {
    for (uint32_t i = 0; i < n; i++) {
      char path[600];
      snprintf(path, sizeof path, "%s/fp-%05u.json", dir, i);
      json_t *doc = io_fingerprint_json(&fps[i]);
      json_object_set_new(doc, "schema", json_string(vkocc_doc_schema_string(VKOCC_DOC_FINGERPRINT)));
      util_json_write(doc, path);
      json_decref(doc);
    }
    double t0 = vkocc_now_ms();
    for (uint32_t i = 0; i < n; i++) {
      char path[600];
      snprintf(path, sizeof path, "%s/fp-%05u.json", dir, i);
      if (vkocc_fingerprint_load(path, &fps[i])) { fprintf(stderr, "%s\n", vkocc_last_error()); return 1; }
    }
    double t1 = vkocc_now_ms();
    vkocc_cluster(fps, n, VKOCC_CLUSTER_THRESHOLD, of, dist, &nc);
    printf("from files: read %u in %.0f ms, clustered in %.1f ms (%u clusters)\n", n, t1 - t0, vkocc_now_ms() - t1, nc);
  }
  free(fps); free(of); free(dist);
  return 0;
}
