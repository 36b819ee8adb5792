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

typedef struct tune_param_def {
  const char *name;
  const char *const *names; /* enumerated values by name (NULL: an integer) */
  uint32_t nnames;
} tune_param_def;

/* A shipped kernel: its built-in T1 spec (tune/results/builtin.c measures it through the one harness, tune/harness/), its
 * CPU reference, and the parameters as its results documents name them (vkocc.tune-results/1). */
typedef struct tune_kernel_def {
  const char *name, *what;
  const char *glsl;               /* the embedded GLSL text */
  /* The embedded T1 spec (kernels/<name>/<name>.t1.json), a template: tune/results/builtin.c sets ProblemSize, the Scalar
   * "n", the Type "T" of arguments (uint32 or float) and, for f32, -DTYPE_F32. Arguments and references whose
   * DataSource is "cpu:input" / "cpu:reference" are filled by input / reference below. */
  const char *t1;
  /* Per condition of t1: why it rules a configuration out (a device limit, a loop bound), stated in the results
   * document; NULL: the condition only shapes the space (the parameters a variant takes) */
  const char *const *reasons;
  uint32_t nreasons;
  bool has_f32;                   /* element types: u32 always, f32 when true */
  uint32_t nparams;               /* the parameters, in the order of t1's TuningParameters */
  tune_param_def params[TUNE_MAX_PARAMS];
  /* The configurations as results documents hold them, each with the parameters its variant takes (before the
   * device's constraints); out NULL counts. The same set as t1's space less its shaping conditions. */
  uint32_t (*space)(tune_config *out);
  /* The input (deterministic from seed) and the CPU reference of the answer (answer_words words). */
  void (*input)(uint32_t *data, uint64_t n, bool f32, uint64_t seed);
  void (*reference)(const uint32_t *in, uint64_t n, bool f32, uint32_t *ref);
  uint32_t answer_words;
  const char *tolerance;          /* stated in the results document */
  /* The shared memory configuration c declares (its GLSL's shared arrays), in bytes: a replay's occupancy features. */
  uint32_t (*shared_bytes)(const tune_config *c);
} tune_kernel_def;

extern const tune_kernel_def kernels_histogram, kernels_reduce;
/* NULL for an unknown name. */
const tune_kernel_def *kernels_find(const char *name);
/* splitmix64: the inputs' generator */
static inline uint64_t tune_splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
#endif
