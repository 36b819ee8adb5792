/* Internal to libvkocc: the tunable kernels behind `vkocc tune` (kernels/<name>/: GLSL, space, CPU reference).
 * A configuration is a vector of parameter values; parameter 0 is always the variant. Parameters that do
 * not apply to a variant are absent (bit clear in mask) and left out of the JSON. */
#ifndef VKOCC_KERNELS_H
#define VKOCC_KERNELS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TUNE_MAX_PARAMS 6

typedef struct tune_config {
  uint32_t v[TUNE_MAX_PARAMS];
  uint32_t mask; /* bit i: parameter i applies */
} tune_config;

/* What the constraints need of the device. */
typedef struct tune_device {
  uint32_t max_invocations, max_wg_size_x, max_shared_bytes, max_wg_count_x;
  bool subgroup_arithmetic; /* compute stage has VK_SUBGROUP_FEATURE_ARITHMETIC_BIT */
} tune_device;

typedef struct tune_param_def {
  const char *name;
  const char *const *names; /* enumerated values by name (NULL: an integer) */
  uint32_t nnames;
} tune_param_def;

/* Loops in one invocation stay below this (lavapipe ends any loop silently at 65535 iterations in total). */
#define TUNE_MAX_LOOP 60000u

typedef struct tune_kernel_def {
  const char *name, *what;
  const char *glsl;               /* the embedded GLSL text */
  bool has_f32;                   /* element types: u32 always, f32 when true */
  uint32_t nparams;
  tune_param_def params[TUNE_MAX_PARAMS];
  /* The cartesian product of the parameters (before constraints); out NULL counts. */
  uint32_t (*space)(tune_config *out);
  /* NULL when c can run on d at n elements, else why not (a static string). */
  const char *(*check)(const tune_config *c, const tune_device *d, uint64_t n);
  /* #defines of c's shader variant (at most 4), specialization constants (ids 0.., at most 4). */
  uint32_t (*defines)(const tune_config *c, bool f32, const char **defs);
  uint32_t (*spec)(const tune_config *c, uint32_t spec[4]);
  uint32_t (*groups)(const tune_config *c, uint64_t n);
  uint64_t (*output_bytes)(const tune_config *c, uint64_t n);
  /* The input (deterministic from seed) and the CPU reference of the answer (answer_words words). */
  void (*input)(uint32_t *data, uint64_t n, bool f32, uint64_t seed);
  void (*reference)(const uint32_t *in, uint64_t n, bool f32, uint32_t *ref);
  uint32_t answer_offset_words, answer_words;
  /* Whether the answer read back is right; why says what differs. */
  bool (*validate)(const uint32_t *got, const uint32_t *ref, bool f32, uint64_t n, char *why, size_t len);
  const char *tolerance; /* stated in the results document */
} tune_kernel_def;

extern const tune_kernel_def vkocc_kernel_histogram, vkocc_kernel_reduce;
/* NULL for an unknown name. */
const tune_kernel_def *vkocc_kernel_find(const char *name);
/* splitmix64: the inputs' generator */
static inline uint64_t tune_splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
#endif
