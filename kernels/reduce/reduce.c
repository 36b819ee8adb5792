/* reduce: parameter space, constraints and CPU reference (the GLSL is reduce.comp). */
#include "kernels.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

extern const char vkocc_glsl_reduce[];
enum { P_VARIANT, P_WG, P_EPT, P_ACCESS };
enum { V_TREE, V_SUBGROUP };
static const char *const variants[] = {"shared_tree", "subgroup"};
static const char *const accesses[] = {"strided", "contiguous"};
static const uint32_t wgs[] = {32, 64, 128, 256, 512, 1024};
static const uint32_t epts[] = {1, 2, 4, 8, 16, 32, 64};
#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))
/* f32: |sum - exact| <= REL_TOL * exact (inputs in [0, 1), exact sum in double on the host) */
#define REL_TOL 1e-3

static uint32_t space(tune_config *out) {
  uint32_t n = 0;
  for (uint32_t v = 0; v < 2; v++)
    for (uint32_t w = 0; w < N(wgs); w++)
      for (uint32_t e = 0; e < N(epts); e++)
        for (uint32_t a = 0; a < 2; a++) {
          if (out) out[n] = (tune_config){{v, wgs[w], epts[e], a}, 0xf};
          n++;
        }
  return n;
}

static uint32_t groups(const tune_config *c, uint64_t n) {
  uint64_t per = (uint64_t)c->v[P_WG] * c->v[P_EPT], g = (n + per - 1) / per;
  return g > UINT32_MAX ? UINT32_MAX : (uint32_t)g;
}

static const char *check(const tune_config *c, const tune_device *d, uint64_t n) {
  if (c->v[P_WG] > d->max_invocations || c->v[P_WG] > d->max_wg_size_x) return "workgroup size above the device limit";
  if (4u * c->v[P_WG] + 4 > d->max_shared_bytes) return "shared memory above maxComputeSharedMemorySize";
  if (c->v[P_VARIANT] == V_SUBGROUP && !d->subgroup_arithmetic) return "no subgroup arithmetic in compute shaders";
  uint32_t g = groups(c, n);
  if (g > d->max_wg_count_x) return "workgroup count above maxComputeWorkGroupCount[0]";
  if (g / c->v[P_WG] + 1 > TUNE_MAX_LOOP) return "too many partials per invocation in the last workgroup";
  return NULL;
}

static uint32_t defines(const tune_config *c, bool f32, const char **defs) {
  uint32_t k = 0;
  defs[k++] = c->v[P_VARIANT] == V_SUBGROUP ? "VARIANT_SUBGROUP" : "VARIANT_TREE";
  if (c->v[P_ACCESS]) defs[k++] = "CONTIGUOUS";
  if (f32) defs[k++] = "TYPE_F32";
  return k;
}

static uint32_t spec(const tune_config *c, uint32_t s[4]) {
  s[0] = c->v[P_WG], s[1] = c->v[P_EPT];
  return 2;
}

/* ticket, result, one partial per workgroup */
static uint64_t output_bytes(const tune_config *c, uint64_t n) { return 8 + 4 * (uint64_t)groups(c, n); }

static void input(uint32_t *data, uint64_t n, bool f32, uint64_t seed) {
  for (uint64_t i = 0; i < n; i++) {
    uint32_t r = (uint32_t)tune_splitmix(&seed);
    if (f32) {
      float f = (float)(r >> 8) / 16777216.0f; /* [0, 1), exact in float */
      memcpy(&data[i], &f, 4);
    } else {
      data[i] = r;
    }
  }
}

static void reference(const uint32_t *in, uint64_t n, bool f32, uint32_t *ref) {
  if (f32) {
    double s = 0;
    for (uint64_t i = 0; i < n; i++) {
      float f;
      memcpy(&f, &in[i], 4);
      s += f;
    }
    float r = (float)s;
    memcpy(ref, &r, 4);
  } else {
    uint32_t s = 0;
    for (uint64_t i = 0; i < n; i++) s += in[i]; /* modulo 2^32, as the GPU adds */
    ref[0] = s;
  }
}

static bool validate(const uint32_t *got, const uint32_t *ref, bool f32, uint64_t n, char *why, size_t len) {
  (void)n;
  if (!f32) {
    if (got[0] != ref[0]) snprintf(why, len, "sum %u, expected %u", got[0], ref[0]);
    return got[0] == ref[0];
  }
  float g, r;
  memcpy(&g, got, 4), memcpy(&r, ref, 4);
  double err = fabs((double)g - (double)r);
  bool ok = isfinite(g) && err <= REL_TOL * fabs((double)r);
  if (!ok) snprintf(why, len, "sum %.9g, expected %.9g (relative error %.3g above %.0e)", g, r, err / fabs((double)r), REL_TOL);
  return ok;
}

const tune_kernel_def vkocc_kernel_reduce = {
    .name = "reduce",
    .what = "sum of u32 (exact, modulo 2^32) or f32 values (inputs in [0, 1))",
    .glsl = vkocc_glsl_reduce,
    .has_f32 = true,
    .nparams = 4,
    .params = {{"variant", variants, 2}, {"wg_size"}, {"elements_per_thread"}, {"access", accesses, 2}},
    .space = space, .check = check, .defines = defines, .spec = spec, .groups = groups,
    .output_bytes = output_bytes, .input = input, .reference = reference,
    .answer_offset_words = 1, .answer_words = 1, .validate = validate,
    .tolerance = "u32: exact (modulo 2^32); f32: relative error at most 1e-3 against the sum in double",
};

const tune_kernel_def *vkocc_kernel_find(const char *name) {
  if (!strcmp(name, "histogram")) return &vkocc_kernel_histogram;
  if (!strcmp(name, "reduce")) return &vkocc_kernel_reduce;
  return NULL;
}
