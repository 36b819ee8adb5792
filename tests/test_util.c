/* The Vulkan-free helpers (util/helpers.c) and the error model's reason codes (util/error.c). */
#include "check.h"
#include "util.h"
#include <stdlib.h>
#include <unistd.h>

int main(void) {
  /* FNV-1a 64: the published test vectors ("" and "a", "foobar") */
  CHECK_EQ_U(util_fnv1a(VKOCC_FNV1A_OFFSET, "", 0), 0xcbf29ce484222325ull);
  CHECK_EQ_U(util_fnv1a(VKOCC_FNV1A_OFFSET, "a", 1), 0xaf63dc4c8601ec8cull);
  CHECK_EQ_U(util_fnv1a_str(VKOCC_FNV1A_OFFSET, "foobar"), 0x85944171f73967e8ull);
  CHECK_EQ_U(util_fnv1a_str(util_fnv1a_str(VKOCC_FNV1A_OFFSET, "foo"), "bar"), 0x85944171f73967e8ull);

  /* the thread count every pool sizes itself by: the online cores less a reserve, within [1, cap] */
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  CHECK_EQ_U(util_cores(0, 1u << 20), (uint64_t)online);
  CHECK_EQ_U(util_cores(1, 1u << 20), (uint64_t)(online > 1 ? online - 1 : 1));
  CHECK_EQ_U(util_cores(1u << 20, 8), 1);
  CHECK_EQ_U(util_cores(0, 1), 1);
  CHECK_EQ_U(util_cores(0, 0), 1);

  uint32_t a[] = {7, 0, UINT32_MAX, 3, 3};
  qsort(a, 5, sizeof *a, util_cmp_u32);
  CHECK(a[0] == 0 && a[1] == 3 && a[2] == 3 && a[3] == 7 && a[4] == UINT32_MAX, "u32 sorted: %u %u %u %u %u", a[0],
        a[1], a[2], a[3], a[4]);
  uint64_t b[] = {UINT64_MAX, 1ull << 40, 2};
  qsort(b, 3, sizeof *b, util_cmp_u64);
  CHECK(b[0] == 2 && b[1] == 1ull << 40 && b[2] == UINT64_MAX, "u64 sorted");

  char when[32];
  util_utc_now(when, sizeof when);
  CHECK(strlen(when) == 20 && when[4] == '-' && when[10] == 'T' && when[19] == 'Z', "UTC stamp '%s'", when);

  /* reasons: from the status by default, kept when the message is wrapped, replaced when given, cleared */
  vkocc_clear_error();
  CHECK(vkocc_last_reason() == VKOCC_REASON_NONE && !vkocc_reason_name(VKOCC_REASON_NONE)[0], "cleared");
  vkocc_fail(VKOCC_ERROR_USAGE, "x.json: $.a: expected a number");
  CHECK(vkocc_last_reason() == VKOCC_REASON_BAD_INPUT, "usage is bad input: %d", vkocc_last_reason());
  vkocc_clear_error();
  vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_ITERATION_BOUND, "comb: sleeps ended early");
  vkocc_fail(VKOCC_ERROR_RUNTIME, "wg 64: %s", vkocc_last_error());
  CHECK(vkocc_last_reason() == VKOCC_REASON_ITERATION_BOUND, "a wrapped failure keeps its reason: %s",
        vkocc_reason_name(vkocc_last_reason()));
  CHECK(!strcmp(vkocc_last_error(), "wg 64: comb: sleeps ended early"), "%s", vkocc_last_error());
  vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_TIMEOUT, "a dispatch: VK_TIMEOUT");
  CHECK(vkocc_last_reason() == VKOCC_REASON_TIMEOUT && !strcmp(vkocc_reason_name(VKOCC_REASON_TIMEOUT), "timeout"),
        "a given reason replaces it");
  vkocc_clear_error();
  vkocc_fail(VKOCC_ERROR_RUNTIME, "inconsistent data");
  CHECK(vkocc_last_reason() == VKOCC_REASON_NONE, "runtime alone says nothing more");
  vkocc_clear_error();
  vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "no timestamps");
  CHECK(vkocc_last_reason() == VKOCC_REASON_UNSUPPORTED, "unsupported");
  return check_report();
}
