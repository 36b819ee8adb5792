/* histogram: the results' parameter space and the CPU reference (the GLSL is histogram.comp, the built-in spec
 * with the constraints histogram.t1.json). */
#include "kernels.h"
#include <string.h>

extern const char kernels_glsl_histogram[], kernels_t1_histogram[];
enum { P_VARIANT, P_WG, P_GRAIN, P_COPIES, P_WORKGROUPS };
enum { V_GMEM, V_SHMEM, V_PERSISTENT };
static const char *const variants[] = {"global_atomics", "shared_bins", "persistent"};
static const uint32_t wgs[] = {64, 128, 256, 512, 1024};
static const uint32_t grains[] = {1, 2, 4, 8, 16, 32};
static const uint32_t copies[] = {1, 2, 4, 8};
static const uint32_t p_grains[] = {1, 4, 16};
static const uint32_t p_copies[] = {1, 4};
static const uint32_t p_counts[] = {128, 512, 2048, 8192};
#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

static uint32_t space(tune_config *out) {
  uint32_t n = 0;
#define PUT(...) do { if (out) out[n] = (tune_config){__VA_ARGS__}; n++; } while (0)
  for (uint32_t w = 0; w < N(wgs); w++)
    for (uint32_t g = 0; g < N(grains); g++) PUT({V_GMEM, wgs[w], grains[g]}, 0x7);
  for (uint32_t w = 0; w < N(wgs); w++)
    for (uint32_t g = 0; g < N(grains); g++)
      for (uint32_t c = 0; c < N(copies); c++) PUT({V_SHMEM, wgs[w], grains[g], copies[c]}, 0xf);
  for (uint32_t w = 0; w < N(wgs); w++)
    for (uint32_t g = 0; g < N(p_grains); g++)
      for (uint32_t c = 0; c < N(p_copies); c++)
        for (uint32_t k = 0; k < N(p_counts); k++) PUT({V_PERSISTENT, wgs[w], p_grains[g], p_copies[c], p_counts[k]}, 0x1f);
#undef PUT
  return n;
}

/* the conditions of histogram.t1.json: three shape the variants' parameters, four are the device's limits */
static const char *const reasons[] = {NULL, NULL, NULL, "workgroup size above the device limit",
                                      "shared bins above maxComputeSharedMemorySize",
                                      "workgroup count above maxComputeWorkGroupCount[0]",
                                      "too many loop iterations per invocation"};

static void input(uint32_t *data, uint64_t n, bool f32, uint64_t seed) {
  (void)f32;
  for (uint64_t i = 0; i < n; i++) data[i] = (uint32_t)tune_splitmix(&seed);
}

static void reference(const uint32_t *in, uint64_t n, bool f32, uint32_t *ref) {
  (void)f32;
  memset(ref, 0, 256 * 4);
  for (uint64_t i = 0; i < n; i++) ref[in[i] >> 24]++;
}

/* 256 u32 bins per privatized copy (s_hist) in the shared and persistent variants, none with global atomics */
static uint32_t shared_bytes(const tune_config *c) { return c->v[0] == 0 ? 0 : 1024u * c->v[3]; }

const tune_kernel_def kernels_histogram = {
    .name = "histogram",
    .what = "256-bin histogram of u32 values (bin = value >> 24)",
    .glsl = kernels_glsl_histogram,
    .t1 = kernels_t1_histogram,
    .reasons = reasons, .nreasons = N(reasons),
    .nparams = 5,
    .params = {{"variant", variants, 3}, {"wg_size"}, {"grain"}, {"copies"}, {"workgroups"}},
    .space = space, .input = input, .reference = reference, .answer_words = 256,
    .tolerance = "exact (every bin equal)",
    .shared_bytes = shared_bytes,
};
