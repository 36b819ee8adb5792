/* Clustering: identical cluster IDs form groups (a sort), then groups are clustered by leader
 * clustering, largest group first: a group joins the first leader within the threshold, else it leads a
 * new cluster. O(groups x clusters x grid), so 10,000 fingerprints take well under a second. */
#include "util.h"
#include <stdlib.h>
#include <string.h>

/* A fingerprint's place with its ID beside it, so that the sort needs no context (reentrant). */
typedef struct {
  const char *id;
  uint32_t i;
} keyed;
static int cmp_id(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  int c = strcmp(x->id, y->id);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

typedef struct { uint32_t first, count; } group;
static int cmp_group(const void *a, const void *b) {
  const group *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return (x->first > y->first) - (x->first < y->first);
}

vkocc_status vkocc_cluster(const vkocc_fingerprint *fps, uint32_t n, double threshold, uint32_t *cluster_of,
                           double *distance, uint32_t *clusters) {
  vkocc_clear_error();
  *clusters = 0;
  if (n == 0) return VKOCC_OK;
  if (threshold < 0) threshold = VKOCC_CLUSTER_THRESHOLD;
  keyed *by_id = util_xmalloc(n * sizeof *by_id);
  for (uint32_t i = 0; i < n; i++) by_id[i] = (keyed){fps[i].cluster_id, i};
  qsort(by_id, n, sizeof *by_id, cmp_id);
  uint32_t *order = util_xmalloc(n * sizeof *order);
  for (uint32_t i = 0; i < n; i++) order[i] = by_id[i].i;
  free(by_id);
  group *g = util_xmalloc(n * sizeof *g);
  uint32_t ng = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (i && !strcmp(fps[order[i]].cluster_id, fps[order[i - 1]].cluster_id)) { g[ng - 1].count++; continue; }
    g[ng++] = (group){i, 1};
  }
  qsort(g, ng, sizeof *g, cmp_group);
  uint32_t *leaders = util_xmalloc(ng * sizeof *leaders), nl = 0;
  for (uint32_t k = 0; k < ng; k++) {
    uint32_t rep = order[g[k].first], leader = rep;
    double best = 0;
    bool joined = false;
    for (uint32_t l = 0; l < nl; l++) {
      double d = vkocc_fingerprint_distance(&fps[rep], &fps[leaders[l]]);
      if (d <= threshold && (!joined || d < best)) { best = d; leader = leaders[l]; joined = true; }
    }
    if (!joined) leaders[nl++] = rep;
    for (uint32_t m = 0; m < g[k].count; m++) {
      uint32_t i = order[g[k].first + m];
      cluster_of[i] = leader;
      distance[i] = joined ? best : 0; /* same ID: same normalized surface as its group's representative */
    }
  }
  *clusters = nl;
  free(order); free(g); free(leaders);
  return VKOCC_OK;
}
