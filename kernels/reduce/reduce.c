/* reduce: the results' parameter space and the CPU reference (the GLSL is reduce.comp, the built-in spec with the
 * constraints reduce.t1.json). */
#include "kernels.h"
#include <string.h>

extern const char kernels_glsl_reduce[], kernels_t1_reduce[];
enum { P_VARIANT, P_WG, P_EPT, P_ACCESS };
enum { V_TREE, V_SUBGROUP };
static const char *const variants[] = {"shared_tree", "subgroup"};
static const char *const accesses[] = {"strided", "contiguous"};
static const uint32_t wgs[] = {32, 64, 128, 256, 512, 1024};
static const uint32_t epts[] = {1, 2, 4, 8, 16, 32, 64};
#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

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

/* the conditions of reduce.t1.json, each a limit of the device or a loop bound */
static const char *const reasons[] = {"workgroup size above the device limit", "shared memory above maxComputeSharedMemorySize",
                                      "no subgroup arithmetic in compute shaders",
                                      "workgroup count above maxComputeWorkGroupCount[0]",
                                      "too many partials per invocation in the last workgroup"};

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

/* one T (4 bytes) per invocation (red) and a bool (is_last, 4 bytes) */
static uint32_t shared_bytes(const tune_config *c) { return 4u * c->v[1] + 4u; }

const tune_kernel_def kernels_reduce = {
    .name = "reduce",
    .what = "sum of u32 (exact, modulo 2^32) or f32 values (inputs in [0, 1))",
    .glsl = kernels_glsl_reduce,
    .t1 = kernels_t1_reduce,
    .reasons = reasons, .nreasons = N(reasons),
    .has_f32 = true,
    .nparams = 4,
    .params = {{"variant", variants, 2}, {"wg_size"}, {"elements_per_thread"}, {"access", accesses, 2}},
    .space = space, .input = input, .reference = reference, .answer_words = 1,
    .tolerance = "u32: exact (modulo 2^32); f32: relative error at most 1e-3 against the sum in double",
    .shared_bytes = shared_bytes,
};

const tune_kernel_def *kernels_find(const char *name) {
  if (!strcmp(name, "histogram")) return &kernels_histogram;
  if (!strcmp(name, "reduce")) return &kernels_reduce;
  return NULL;
}
