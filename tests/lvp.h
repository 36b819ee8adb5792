/* Device tests on lavapipe: the P they expect (LP_NUM_THREADS) and a context with a quick calibration. */
#ifndef VKOCC_TEST_LVP_H
#define VKOCC_TEST_LVP_H
#include "check.h"
#include "vkocc.h"
#include <stdlib.h>

/* LP_NUM_THREADS, or 0 after saying that it must be set. */
static inline uint32_t lvp_expected_p(void) {
  const char *env = getenv("LP_NUM_THREADS");
  uint32_t p = env ? (uint32_t)atoi(env) : 0;
  if (!p) fprintf(stderr, "set LP_NUM_THREADS\n");
  return p;
}

/* A context on lavapipe, calibrated with the quick preset; false (a failed check) when that fails. */
static inline bool lvp_open(vkocc_context **ctx, vkocc_calibration *cal) {
  vkocc_context_options o = {.device = "llvmpipe"};
  *ctx = NULL;
  CHECK(vkocc_context_create(&o, ctx) == VKOCC_OK, "context: %s", vkocc_last_error());
  if (!*ctx) return false;
  vkocc_calibrate_options co;
  vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
  vkocc_status s = vkocc_calibrate(*ctx, &co, cal);
  CHECK(s == VKOCC_OK, "calibrate: %s", vkocc_last_error());
  return true;
}
#endif
