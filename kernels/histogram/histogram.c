/* histogram: parameter space, constraints and CPU reference (the GLSL is histogram.comp). */
#include "kernels.h"
#include <stdio.h>
#include <string.h>

extern const char vkocc_glsl_histogram[];
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

static uint64_t tiles(const tune_config *c, uint64_t n) {
  uint64_t per = (uint64_t)c->v[P_WG] * c->v[P_GRAIN];
  return (n + per - 1) / per;
}

static uint32_t groups(const tune_config *c, uint64_t n) {
  uint64_t t = tiles(c, n);
  if (c->v[P_VARIANT] == V_PERSISTENT && t > c->v[P_WORKGROUPS]) t = c->v[P_WORKGROUPS];
  return t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

static const char *check(const tune_config *c, const tune_device *d, uint64_t n) {
  if (c->v[P_WG] > d->max_invocations || c->v[P_WG] > d->max_wg_size_x) return "workgroup size above the device limit";
  if (c->v[P_VARIANT] != V_GMEM && 1024u * c->v[P_COPIES] > d->max_shared_bytes)
    return "shared bins above maxComputeSharedMemorySize";
  if (groups(c, n) > d->max_wg_count_x) return "workgroup count above maxComputeWorkGroupCount[0]";
  /* persistent with more workgroups than tiles runs one workgroup per tile (groups() clamps): kept, so a
   * configuration tuned at a larger size still runs (and is timed) at a smaller one */
  if (c->v[P_VARIANT] == V_PERSISTENT &&
      (tiles(c, n) + c->v[P_WORKGROUPS] - 1) / c->v[P_WORKGROUPS] * c->v[P_GRAIN] > TUNE_MAX_LOOP)
    return "too many loop iterations per invocation";
  return NULL;
}

static uint32_t defines(const tune_config *c, bool f32, const char **defs) {
  (void)f32;
  static const char *const d[] = {"VARIANT_GMEM", "VARIANT_SHMEM", "VARIANT_PERSISTENT"};
  defs[0] = d[c->v[P_VARIANT]];
  return 1;
}

static uint32_t spec(const tune_config *c, uint32_t s[4]) {
  s[0] = c->v[P_WG], s[1] = c->v[P_GRAIN], s[2] = c->v[P_VARIANT] == V_GMEM ? 1 : c->v[P_COPIES];
  return 3;
}

static uint64_t output_bytes(const tune_config *c, uint64_t n) { (void)c, (void)n; return 256 * 4; }

static void input(uint32_t *data, uint64_t n, bool f32, uint64_t seed) {
  (void)f32;
  for (uint64_t i = 0; i < n; i++) data[i] = (uint32_t)tune_splitmix(&seed);
}

static void reference(const uint32_t *in, uint64_t n, bool f32, uint32_t *ref) {
  (void)f32;
  memset(ref, 0, 256 * 4);
  for (uint64_t i = 0; i < n; i++) ref[in[i] >> 24]++;
}

static bool validate(const uint32_t *got, const uint32_t *ref, bool f32, uint64_t n, char *why, size_t len) {
  (void)f32, (void)n;
  uint32_t bad = 0, first = 0;
  for (uint32_t b = 0; b < 256; b++)
    if (got[b] != ref[b] && bad++ == 0) first = b;
  if (bad) snprintf(why, len, "%u of 256 bins differ (bin %u: %u, expected %u)", bad, first, got[first], ref[first]);
  return bad == 0;
}

const tune_kernel_def vkocc_kernel_histogram = {
    .name = "histogram",
    .what = "256-bin histogram of u32 values (bin = value >> 24)",
    .glsl = vkocc_glsl_histogram,
    .nparams = 5,
    .params = {{"variant", variants, 3}, {"wg_size"}, {"grain"}, {"copies"}, {"workgroups"}},
    .space = space, .check = check, .defines = defines, .spec = spec, .groups = groups,
    .output_bytes = output_bytes, .input = input, .reference = reference,
    .answer_offset_words = 0, .answer_words = 256, .validate = validate,
    .tolerance = "exact (every bin equal)",
};
