/* Racing replayed over recorded tunings (tune/search/race.h): each configuration's recorded runs (times_ns, in the order they
 * were timed, every one measured to the full rule) are handed to the race one run at a time, from the 2nd on; a
 * configuration that the race stops keeps the runs it had; the others keep all theirs and join the race's noise and
 * incumbent. Orders: the recorded evaluation order and 10 seeded shuffles (a random search's). Per order: the best the
 * race chooses (the lowest median among those it did not stop; a stopped one's median of its first runs never beats
 * it) against the full rule's best (the lowest recorded median), its recorded median over the best's (1 = the same
 * time), the timed runs with and without the race. The race is judged after every run here, more often than the
 * harness (after its batches): at least as many stops as in a live run.
 *   bench_race_replay RESULTS.json...   (vkocc.tune-results/1 documents with times_ns) */
#include "race.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vkocc.h>

typedef struct cfg { double *t; uint32_t n; double median, spread; } cfg;

static double median_of(const double *t, uint32_t n, double *spread) {
  vkocc_summary s;
  vkocc_summarize(t, n, &s);
  if (spread) *spread = s.median > 0 ? s.mad / s.median : 0;
  return s.median;
}

static uint64_t rng(uint64_t *x) {
  *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
  return *x;
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: bench_race_replay RESULTS.json...\n"), 2;
  printf("| document | configurations | order | the race's best / the full rule's | same | within 1%% | stopped | timed runs race / full |\n");
  printf("|---|---|---|---|---|---|---|---|\n");
  for (int a = 1; a < argc; a++) {
    json_error_t e;
    json_t *d = json_load_file(argv[a], 0, &e);
    if (!d) { fprintf(stderr, "%s: %s\n", argv[a], e.text); continue; }
    json_t *res = json_object_get(d, "results"), *r;
    size_t i;
    cfg *c = calloc(json_array_size(res) + 1, sizeof *c);
    uint32_t n = 0;
    json_array_foreach(res, i, r) {
      json_t *t = json_object_get(r, "times_ns");
      if (!json_is_true(json_object_get(r, "valid")) || json_array_size(t) < 1) continue;
      c[n].n = (uint32_t)json_array_size(t);
      c[n].t = malloc(c[n].n * sizeof(double));
      for (uint32_t k = 0; k < c[n].n; k++) c[n].t[k] = json_number_value(json_array_get(t, k));
      c[n].median = median_of(c[n].t, c[n].n, &c[n].spread);
      n++;
    }
    uint32_t full_best = 0;
    uint64_t full_runs = 0;
    for (uint32_t k = 0; k < n; k++) {
      full_runs += c[k].n;
      if (c[k].median < c[full_best].median) full_best = k;
    }
    uint32_t *order = malloc((n + 1) * sizeof *order);
    for (int seed = 0; seed <= 10; seed++) {
      for (uint32_t k = 0; k < n; k++) order[k] = k;
      uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(seed + 1);
      for (uint32_t k = n; seed && k > 1; k--) { /* seed 0: the recorded order */
        uint32_t j = (uint32_t)(rng(&x) % k), tmp = order[k - 1];
        order[k - 1] = order[j], order[j] = tmp;
      }
      tu_race race;
      tu_race_init(&race);
      uint64_t runs = 0;
      uint32_t stopped = 0;
      int64_t best = -1;
      for (uint32_t q = 0; q < n; q++) {
        cfg *k = &c[order[q]];
        uint32_t used = k->n;
        bool stop = false;
        for (uint32_t m = TU_RACE_MIN_RUNS; m <= k->n && race.best >= 0 && !stop; m++)
          if (tu_race_judge(&race, false, k->t, m).behind) stop = true, used = m;
        runs += used;
        if (stop) { stopped++; continue; }
        tu_race_note(&race, order[q], k->median, k->spread, k->n >= 2 ? fmin(k->t[0], k->t[1]) : 0);
        if (best < 0 || k->median < c[best].median) best = order[q];
      }
      double ratio = c[best].median / c[full_best].median;
      printf("| %s | %u | %s%d | %.4f | %s | %s | %u | %llu / %llu (%.2fx) |\n", argv[a], n, seed ? "seed " : "recorded",
             seed ? seed : 0, ratio, best == (int64_t)full_best ? "yes" : "no", ratio <= 1.01 ? "yes" : "no", stopped,
             (unsigned long long)runs, (unsigned long long)full_runs, (double)full_runs / (double)runs);
      tu_race_free(&race);
    }
    for (uint32_t k = 0; k < n; k++) free(c[k].t);
    free(c), free(order);
    json_decref(d);
  }
  return 0;
}
