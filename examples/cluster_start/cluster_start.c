/* cluster_start: what an application does at its start with vkocc and a policy header: ask for the device's
 * cluster ID alone (vkocc_cluster_id_only: from the cache in milliseconds, else measured in about a second on a
 * GPU and cached), then take the tuned parameters of its kernel from the header `vkocc policy header` wrote,
 * for its problem size; the header's default where the table has no entry for the cluster.
 *
 *   cluster_start [--problem-size N] [--cluster ID]
 *
 * The device and queue family are VKOCC_DEVICE's and VKOCC_QUEUE's (else vkocc's defaults). --cluster ID looks
 * that ID up instead of asking the device (a dry run of the lookup). The header (tuned.h) is generated at build
 * time from a policy database: `vkocc policy header policy-db.json -o tuned.h` (examples/cluster_start/README.md).
 * Output, one "name: value" a line: cluster_id, from_cache, id_ms, rule (table or default), wg_size,
 * elements_per_thread. Exit status: vkocc's (0 ok, 1 runtime, 2 bad usage, 3 the device lacks what is needed). */
#include "tuned.h"
#include <vkocc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first table entry of this cluster whose problem-size range holds n (-1: no bound); NULL where none does. */
static const vkocc_tuned_radix_sort *lookup(const char *cluster_id, long long n) {
  for (size_t i = 0; i < sizeof vkocc_tuned_radix_sort_table / sizeof vkocc_tuned_radix_sort_table[0]; i++) {
    const vkocc_tuned_radix_sort *e = &vkocc_tuned_radix_sort_table[i];
    if (strcmp(e->cluster_id, cluster_id)) continue;
    if ((e->problem_size_min < 0 || n >= e->problem_size_min) && (e->problem_size_max < 0 || n <= e->problem_size_max))
      return e;
  }
  return NULL;
}

int main(int argc, char **argv) {
  long long n = 1 << 20;
  const char *given = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: cluster_start [--problem-size N] [--cluster ID]\n");
      return 0;
    }
    if (i + 1 >= argc) return fprintf(stderr, "cluster_start: %s needs a value (--help)\n", argv[i]), 2;
    if (!strcmp(argv[i], "--problem-size")) {
      char *end;
      n = strtoll(argv[++i], &end, 10);
      if (*end || n < 0) return fprintf(stderr, "cluster_start: --problem-size '%s': expected a count\n", argv[i]), 2;
    } else if (!strcmp(argv[i], "--cluster")) {
      given = argv[++i];
    } else {
      return fprintf(stderr, "cluster_start: unknown option %s (--help)\n", argv[i]), 2;
    }
  }
  vkocc_cluster_id_answer a = {0};
  if (given) {
    snprintf(a.cluster_id, sizeof a.cluster_id, "%s", given);
  } else {
    vkocc_status st = vkocc_cluster_id_only(NULL, false, &a); /* the device of VKOCC_DEVICE / VKOCC_QUEUE */
    if (st) return fprintf(stderr, "cluster_start: %s\n", vkocc_last_error()), (int)st;
  }
  const vkocc_tuned_radix_sort *e = lookup(a.cluster_id, n);
  long long wg = e ? e->wg_size : RADIX_SORT_WG_SIZE; /* the header's default block where the table has none */
  long long ept = e ? e->elements_per_thread : RADIX_SORT_ELEMENTS_PER_THREAD;
  printf("cluster_id: %s\n", a.cluster_id);
  if (!given) printf("from_cache: %s\nid_ms: %.1f\n", a.from_cache ? "yes" : "no", a.elapsed_ms);
  printf("rule: %s\nwg_size: %lld\nelements_per_thread: %lld\n", e ? "table" : "default", wg, ept);
  return 0;
}
