/* The architecture signature as data (no device): names, quantization, the text (recipe c3 hashes it, normalize.c), and the
 * distance the "nearest" policy rule adds to the surface's. The measurement is characterize/signature.c. */
#include "model.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *signal_names[VKOCC_SIG_COUNT] = {"fma_latency", "shared_latency", "fp32_rate",
                                                    "int32_ratio", "fp64_ratio",   "fp16_ratio"};
static const char *state_names[] = {"unavailable", "measured", "unsupported", "not-stable"};

const char *vkocc_sig_signal_name(vkocc_sig_signal s) {
  return (unsigned)s < VKOCC_SIG_COUNT ? signal_names[s] : "unknown";
}

const char *vkocc_sig_state_name(vkocc_sig_state s) { return (unsigned)s < 4 ? state_names[s] : "unknown"; }

/* Coarse on purpose: a step is a factor of 1.41 (latencies) or 2 (rates and ratios), while one GPU repeats
 * within 0.3% and the published figures of different generations differ by whole steps (docs/fingerprint.md).
 * Rates and ratios of real hardware are powers of two (lanes per SM), so they sit in the middle of a step. */
int32_t vkocc_sig_quantize(vkocc_sig_signal s, double value) {
  if (!(value > 0) || !isfinite(value)) return INT32_MIN;
  double l = log2(value);
  switch (s) {
  case VKOCC_SIG_FMA_LATENCY:
  case VKOCC_SIG_SHARED_LATENCY: return (int32_t)lround(2 * l);
  case VKOCC_SIG_FP32_RATE:
  case VKOCC_SIG_INT32_RATIO:
  case VKOCC_SIG_FP64_RATIO:
  case VKOCC_SIG_FP16_RATIO: return (int32_t)lround(l);
  default: return INT32_MIN;
  }
}

void vkocc_signature_text(const vkocc_signature *g, char *out, size_t len) {
  size_t n = (size_t)snprintf(out, len, "vendor=0x%x;sg=%u..%u;f64=%d;i64=%d;f16=%d;", g->vendor_id, g->subgroup_min,
                              g->subgroup_max, g->float64, g->int64, g->float16);
  for (int i = 0; i < VKOCC_SIG_COUNT && n < len; i++) {
    const vkocc_sig_value *v = &g->v[i];
    int32_t q = vkocc_sig_quantize((vkocc_sig_signal)i, v->value);
    if (v->state == VKOCC_SIG_MEASURED && q != INT32_MIN)
      n += (size_t)snprintf(out + n, len - n, "%s=%d;", signal_names[i], (int)q);
    else
      n += (size_t)snprintf(out + n, len - n, "%s=%s;", signal_names[i],
                            v->state == VKOCC_SIG_UNSUPPORTED ? "n" : v->state == VKOCC_SIG_NOT_STABLE ? "-" : "u");
  }
}



double vkocc_signature_distance(const vkocc_signature *a, const vkocc_signature *b, char *what, size_t what_len) {
  char buf[512] = "";
  size_t n = 0;
  double d = 0;
#define SAY(...) (n < sizeof buf ? (n += (size_t)snprintf(buf + n, sizeof buf - n, __VA_ARGS__)) : n)
  if (a->vendor_id != b->vendor_id) d = 1, SAY("vendor 0x%x vs 0x%x; ", a->vendor_id, b->vendor_id);
  if (a->subgroup_min != b->subgroup_min || a->subgroup_max != b->subgroup_max)
    d = 1, SAY("subgroup sizes %u..%u vs %u..%u; ", a->subgroup_min, a->subgroup_max, b->subgroup_min, b->subgroup_max);
  for (int i = 0; i < VKOCC_SIG_COUNT; i++) {
    const vkocc_sig_value *x = &a->v[i], *y = &b->v[i];
    bool ux = x->state == VKOCC_SIG_UNSUPPORTED, uy = y->state == VKOCC_SIG_UNSUPPORTED;
    if (ux != uy && (ux ? y->state == VKOCC_SIG_MEASURED : x->state == VKOCC_SIG_MEASURED)) {
      d += 0.5; /* one device lacks what the other runs */
      SAY("%s %s vs %s; ", signal_names[i], ux ? "unsupported" : "supported", uy ? "unsupported" : "supported");
      continue;
    }
    if (x->state != VKOCC_SIG_MEASURED || y->state != VKOCC_SIG_MEASURED) continue;
    int32_t qx = vkocc_sig_quantize((vkocc_sig_signal)i, x->value), qy = vkocc_sig_quantize((vkocc_sig_signal)i, y->value);
    if (qx == INT32_MIN || qy == INT32_MIN || qx == qy) continue;
    d += 0.05 * fabs((double)qx - qy);
    SAY("%s %.3g vs %.3g; ", signal_names[i], x->value, y->value);
  }
#undef SAY
  if (n >= 2 && n < sizeof buf) buf[n - 2] = 0;
  if (what && what_len) snprintf(what, what_len, "%s", buf);
  return d > 1 ? 1 : d;
}

int fingerprint_signature_unstable(const vkocc_signature *g, int32_t *qa, int32_t *qb) {
  for (int i = 0; i < VKOCC_SIG_COUNT; i++) {
    const vkocc_sig_value *v = &g->v[i];
    if (v->state != VKOCC_SIG_MEASURED || !v->repeats) continue;
    int32_t q0 = vkocc_sig_quantize((vkocc_sig_signal)i, v->samples[0]);
    for (uint32_t r = 1; r < v->repeats; r++) {
      int32_t q = vkocc_sig_quantize((vkocc_sig_signal)i, v->samples[r]);
      if (q != q0) {
        if (qa) *qa = q0 < q ? q0 : q;
        if (qb) *qb = q0 < q ? q : q0;
        return i;
      }
    }
  }
  return -1;
}
