/* Synthetic search spaces for the strategy tests (test_search, test_search_batch): every combination of np
 * parameters of nv values each, less those drop() removes, each with the time time_of() gives it. */
#ifndef VKOCC_TEST_SPACE_SYNTH_H
#define VKOCC_TEST_SPACE_SYNTH_H
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Fills *coord (n x np) and *t (n) and returns n, the configurations kept; the caller frees both. */
static uint32_t synth_space_fill(uint32_t np, uint32_t nv, bool (*drop)(const uint32_t *),
                                 double (*time_of)(const uint32_t *), uint32_t **coord, double **t) {
  uint64_t total = 1;
  for (uint32_t p = 0; p < np; p++) total *= nv;
  *coord = malloc(total * np * sizeof **coord);
  *t = malloc(total * sizeof **t);
  uint32_t n = 0, c[8];
  for (uint64_t i = 0; i < total; i++) {
    uint64_t r = i;
    for (uint32_t p = 0; p < np; p++) c[p] = (uint32_t)(r % nv), r /= nv;
    if (drop && drop(c)) continue;
    memcpy(*coord + (size_t)n * np, c, np * sizeof *c);
    (*t)[n++] = time_of(c);
  }
  return n;
}
#endif
