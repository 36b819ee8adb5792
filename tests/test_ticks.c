/* Timestamp masking and wrap handling. */
#include "check.h"
#include "vkocc.h"

int main(void) {
  uint64_t d;
  CHECK(vkocc_tick_delta(100, 250, 64, &d) == VKOCC_TICKS_OK && d == 150, "plain delta %llu", (unsigned long long)d);
  /* bits above timestampValidBits are garbage and must be ignored */
  CHECK(vkocc_tick_delta(0xABCD000000000100ull, 0x1234000000000300ull, 36, &d) == VKOCC_TICKS_OK && d == 0x200,
        "masked delta %llu", (unsigned long long)d);
  /* a 36-bit counter wrapping: start near the top, end just past zero */
  uint64_t top = (1ull << 36) - 50;
  CHECK(vkocc_tick_delta(top, 30, 36, &d) == VKOCC_TICKS_WRAPPED, "wrap not detected");
  CHECK_EQ_U(d, 80);
  /* going backwards by a little on a narrow counter is more than half a period forward: refused */
  CHECK(vkocc_tick_delta(1000, 990, 36, &d) == VKOCC_TICKS_BACKWARDS, "backwards not detected");
  CHECK_EQ_U(d, 0);
  /* a 64-bit counter never wraps: end < start is backwards */
  CHECK(vkocc_tick_delta(~0ull - 5, 3, 64, &d) == VKOCC_TICKS_BACKWARDS, "64-bit backwards");
  CHECK_EQ_U(d, 0);
  /* valid_bits 0 means 64 */
  CHECK(vkocc_tick_delta(5, 7, 0, &d) == VKOCC_TICKS_OK && d == 2, "bits 0");
  /* 32-bit counter, exact half period is refused */
  CHECK(vkocc_tick_delta(0x80000000ull, 0, 32, &d) == VKOCC_TICKS_BACKWARDS, "half period");
  CHECK(vkocc_tick_delta(0xFFFFFFFFull, 0x7FFFFFFEull, 32, &d) == VKOCC_TICKS_WRAPPED && d == 0x7FFFFFFFull, "just under half");
  return check_report();
}
