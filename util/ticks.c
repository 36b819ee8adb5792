#include "util.h"
#include <time.h>

vkocc_tick_status vkocc_tick_delta(uint64_t start, uint64_t end, uint32_t valid_bits, uint64_t *delta) {
  if (valid_bits == 0 || valid_bits > 64) valid_bits = 64;
  uint64_t mask = valid_bits == 64 ? ~0ull : ((1ull << valid_bits) - 1);
  start &= mask;
  end &= mask;
  if (end >= start) { *delta = end - start; return VKOCC_TICKS_OK; }
  /* A 64-bit counter does not wrap in practice: end < start means it went backwards. A narrower one
   * wrapped once if the forward distance is under half its range; more than that we cannot tell from
   * going backwards, so the sample is refused. */
  uint64_t fwd = (end - start) & mask;
  if (valid_bits < 64 && fwd < (1ull << (valid_bits - 1))) { *delta = fwd; return VKOCC_TICKS_WRAPPED; }
  *delta = 0;
  return VKOCC_TICKS_BACKWARDS;
}

double util_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double vkocc_now_ms(void) { return util_now_ns() / 1e6; }
