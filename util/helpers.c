/* Small Vulkan-free helpers every room shares (util/util.h): FNV-1a 64, qsort comparators, the UTC time stamp, the
 * largest workgroup a device takes (the pure models ask it too), identifiers in source text. */
#include "util.h"
#include <ctype.h>
#include <string.h>
#include <time.h>

uint64_t util_fnv1a(uint64_t h, const void *data, size_t n) {
  const uint8_t *b = data;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

uint64_t util_fnv1a_str(uint64_t h, const char *s) {
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
  return h;
}

int util_cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

int util_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

void util_utc_now(char *out, size_t len) {
  time_t now = time(NULL);
  struct tm tm;
  if (!gmtime_r(&now, &tm) || !strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm)) snprintf(out, len, "unknown");
}

uint32_t vkocc_device_max_wg_size(const vkocc_device_info *d) {
  return d->max_invocations < d->max_wg_size_x ? d->max_invocations : d->max_wg_size_x;
}

bool util_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

bool util_word_in(const char *t, size_t tlen, size_t from, size_t to, const char *w, size_t n) {
  if (to > tlen) to = tlen;
  for (size_t i = from; i < to && i + n <= tlen; i++)
    if (!memcmp(t + i, w, n) && !(i > 0 && util_ident_char(t[i - 1])) && !(i + n < tlen && util_ident_char(t[i + n])))
      return true;
  return false;
}
