/* vkocc/numbers.h: ticks, fits and summaries (no device); part of <vkocc.h>. */
#ifndef VKOCC_API_NUMBERS_H
#define VKOCC_API_NUMBERS_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ numbers: ticks, fits, summaries (no device) */

typedef enum vkocc_tick_status {
  VKOCC_TICKS_OK = 0,
  VKOCC_TICKS_WRAPPED = 1,   /* end < start within valid_bits, explained by one wrap: delta is valid */
  VKOCC_TICKS_BACKWARDS = 2, /* the counter went backwards (or wrapped more than half its range): invalid */
} vkocc_tick_status;

/* Masks start and end to valid_bits (1..64) and returns their forward distance modulo 2^valid_bits.
 * A 64-bit counter never legitimately wraps, so end < start there is BACKWARDS. *delta is 0 on BACKWARDS. */
vkocc_tick_status vkocc_tick_delta(uint64_t start, uint64_t end, uint32_t valid_bits, uint64_t *delta);

typedef struct vkocc_linfit {
  double slope, intercept;
  double r2;                 /* coefficient of determination over the points kept */
  double max_rel_residual;   /* max |y - fit| / |fit| over the points kept */
  uint32_t n, n_used;        /* points given, points kept after outlier rejection */
} vkocc_linfit;

/* Least squares y = intercept + slope x. With reject_outliers, points whose residual exceeds
 * max(4 robust sigmas, 1e-9 |y|) are dropped and the line refitted (at most 3 rounds, at least half kept).
 * VKOCC_ERROR_RUNTIME when fewer than 2 points or all x equal. */
vkocc_status vkocc_linfit_compute(const double *x, const double *y, uint32_t n, bool reject_outliers,
                                  vkocc_linfit *out);

typedef struct vkocc_summary {
  double median, min, max, mad; /* mad: median absolute deviation */
  uint32_t n;
} vkocc_summary;
void vkocc_summarize(const double *v, uint32_t n, vkocc_summary *out);

#ifdef __cplusplus
}
#endif
#endif
