#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc cluster FILE... [--threshold T] [--json] [-o FILE]\n"
    "Groups fingerprints into architecture clusters: identical cluster IDs first, then groups whose\n"
    "normalized surfaces are within distance T (default 0.02: the mean relative difference per canonical\n"
    "point, docs/fingerprint.md) join the nearest larger group. Prints each cluster with its members and\n"
    "their distances to the cluster's leader. -o FILE writes the JSON document (schema vkocc.clusters/1).\n";

int cmd_cluster(cli_run *run, int argc, char **argv) {
  cli_common c = {.run = run};
  double threshold = VKOCC_CLUSTER_THRESHOLD;
  static const struct option opts[] = {CLI_JSON_OPTION, CLI_OUTPUT_OPTION, {"threshold", required_argument, 0, 't'},
                                       {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
    switch (ch) {
    case 't':
      if (!cli_parse_double(optarg, 0, 1, &threshold))
        return cli_error("cluster", 2, "--threshold '%s': expected a number 0..1", optarg);
      break;
    case 'h': fputs(help, stdout); return 0;
    default: {
      int rc = cli_common_option("cluster", ch, optarg, &c);
      if (rc > 0) return rc;
      if (rc < 0) return cli_usage_error(help);
    }
    }
  }
  uint32_t n = (uint32_t)(argc - optind);
  if (n == 0) return cli_error("cluster", 2, "give at least one fingerprint file (see --help)");
  int rc = cli_check_output("cluster", "-o", c.output);
  if (rc) return rc;
  vkocc_fingerprint *fps = cli_xmalloc(n * sizeof *fps);
  uint32_t *of = cli_xmalloc(n * sizeof *of);
  double *dist = cli_xmalloc(n * sizeof *dist);
  if (!fps || !of || !dist) { free(fps); free(of); free(dist); return cli_error("cluster", 1, "out of memory"); }
  for (uint32_t i = 0; i < n; i++) {
    vkocc_status st = vkocc_fingerprint_load(argv[optind + i], &fps[i]);
    if (st) { free(fps); free(of); free(dist); return cli_fail("cluster", st); }
  }
  uint32_t nc;
  vkocc_cluster(fps, n, threshold, of, dist, &nc);
  json_t *arr = json_array();
  uint32_t k = 0;
  for (uint32_t l = 0; l < n; l++) {
    if (of[l] != l) continue; /* l leads a cluster */
    uint32_t members = 0;
    for (uint32_t i = 0; i < n; i++) members += of[i] == l;
    json_t *m = json_array();
    if (!c.json) printf("cluster %u: %s (%u member%s)\n", ++k, fps[l].cluster_id, members, members == 1 ? "" : "s");
    for (uint32_t i = 0; i < n; i++) {
      if (of[i] != l) continue;
      if (c.json)
        json_array_append_new(m, json_pack("{s:s, s:s, s:s, s:f}", "file", argv[optind + i], "device",
                                           fps[i].device_name, "cluster_id", fps[i].cluster_id, "distance", dist[i]));
      else
        printf("  %-40s %-34.34s %s  distance %.4f\n", argv[optind + i], fps[i].device_name, fps[i].cluster_id, dist[i]);
    }
    json_array_append_new(arr, json_pack("{s:s, s:I, s:o}", "leader", fps[l].cluster_id, "members_count",
                                         (json_int_t)members, "members", m));
  }
  free(fps); free(of); free(dist);
  json_t *doc = vkocc_doc_stamp(json_pack("{s:f, s:I, s:o}", "threshold", threshold, "clusters_count", (json_int_t)nc,
                                          "clusters", arr), VKOCC_DOC_CLUSTERS);
  vkocc_status st = c.output ? cli_json_write(doc, c.output) : VKOCC_OK;
  if (st) { json_decref(doc); return cli_fail("cluster", st); }
  if (c.json) return cli_emit_json("cluster", doc, NULL);
  json_decref(doc);
  printf("%u fingerprint%s in %u cluster%s (threshold %.3f)\n", n, n == 1 ? "" : "s", nc, nc == 1 ? "" : "s", threshold);
  return 0;
}
