/* A T1 output validated on the device as the CPU harness judges it (tune/harness/gpu_validate.h). */
#include "gpu_validate.h"
#include <stdio.h>
#include <string.h>

static core_elem elem_of(t1_etype t) {
  switch (t) {
  case T1E_BOOL: return VKOCC_ELEM_BOOL32;
  case T1E_I8: return VKOCC_ELEM_I8;
  case T1E_U8: return VKOCC_ELEM_U8;
  case T1E_I16: return VKOCC_ELEM_I16;
  case T1E_U16: return VKOCC_ELEM_U16;
  case T1E_I32: return VKOCC_ELEM_I32;
  case T1E_U32: return VKOCC_ELEM_U32;
  case T1E_I64: return VKOCC_ELEM_I64;
  case T1E_U64: return VKOCC_ELEM_U64;
  case T1E_F32: return VKOCC_ELEM_F32;
  case T1E_F64: return VKOCC_ELEM_F64;
  default: return VKOCC_ELEM_U8;
  }
}

void tu_gpu_compare_desc(const t1_arg *a, const t1_ref *ref, const core_buffer *actual, const core_buffer *expected,
                         core_compare_desc *d) {
  t1_validation m = ref ? ref->method : T1_SIDE_BY_SIDE;
  double th = ref ? ref->threshold : 0;
  *d = (core_compare_desc){.actual = actual, .expected = expected, .threshold = th};
  if (a->type == T1E_CUSTOM) {
    d->elem = VKOCC_ELEM_U8, d->count = a->bytes, d->mode = VKOCC_CMP_EXACT;
    return;
  }
  d->elem = elem_of(a->type);
  d->count = a->count * a->comps;
  if (a->type != T1E_F32 && a->type != T1E_F64 && th == 0 && m != T1_ABS_DIFF) d->mode = VKOCC_CMP_EXACT;
  else d->mode = m == T1_ABS_DIFF ? VKOCC_CMP_SUM : m == T1_SIDE_BY_SIDE_REL ? VKOCC_CMP_REL : VKOCC_CMP_ABS;
}

void tu_gpu_compare_why(const t1_arg *a, const t1_ref *ref, const core_compare_result *r, char *why, size_t len) {
  core_compare_desc d;
  tu_gpu_compare_desc(a, ref, NULL, NULL, &d);
  if (len) why[0] = 0;
  if (r->pass) return;
  if (d.mode == VKOCC_CMP_SUM) {
    snprintf(why, len, "%s: the absolute differences sum to %.9g, threshold %g", a->name, r->sum, d.threshold);
  } else if (r->first == UINT64_MAX) {
    snprintf(why, len, "%s differs from the reference", a->name);
  } else if (d.mode == VKOCC_CMP_EXACT) {
    snprintf(why, len, "%s[%llu] = %.17g, expected %.17g", a->name, (unsigned long long)r->first, r->got, r->want);
  } else {
    snprintf(why, len, "%s[%llu] = %.9g, expected %.9g (%s, threshold %g)", a->name, (unsigned long long)r->first, r->got,
             r->want, d.mode == VKOCC_CMP_REL ? "relative" : "side by side", d.threshold);
  }
}

bool tu_host_bytes_pass(const t1_arg *a, const t1_ref *ref, const void *out, const void *expect) {
  core_compare_desc d;
  tu_gpu_compare_desc(a, ref, NULL, NULL, &d);
  if (d.mode != VKOCC_CMP_EXACT && !(d.threshold >= 0)) return false;
  if (memcmp(out, expect, a->bytes)) return false;
  if (d.mode == VKOCC_CMP_EXACT) return true;
  uint64_t n = d.count;
  /* infinities found by their bits, a block at a time without a branch per element (the compiler vectorizes it) */
  const uint8_t *e = expect;
  for (uint64_t k0 = 0; k0 < n; k0 += 4096) {
    uint64_t k1 = n - k0 < 4096 ? n : k0 + 4096;
    uint32_t inf = 0;
    if (d.elem == VKOCC_ELEM_F32)
      for (uint64_t k = k0; k < k1; k++) {
        uint32_t w;
        memcpy(&w, e + 4 * k, 4);
        inf |= (w & 0x7fffffffu) == 0x7f800000u;
      }
    else if (d.elem == VKOCC_ELEM_F64)
      for (uint64_t k = k0; k < k1; k++) {
        uint64_t w;
        memcpy(&w, e + 8 * k, 8);
        inf |= (w & 0x7fffffffffffffffull) == 0x7ff0000000000000ull;
      }
    if (inf) return false;
  }
  return true;
}
