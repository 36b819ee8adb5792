/* Internal to libvkocc: the user's shader from file to an augmented, reflected SPIR-V module.
 *   compile.c  GLSL/HLSL -> SPIR-V with libshaderc (run time), or a .spv file read and checked
 *   augment.c  a small SPIR-V walker: entry point, workgroup size and shared bytes under given
 *              specialization constants, and the augmentation (estimator branch at the top of the entry)
 *   reflect.c  descriptors, push constants and specialization constants through SPIRV-Cross */
#ifndef VKOCC_COMPILE_H
#define VKOCC_COMPILE_H
#include "vkocc.h"
#include <stddef.h>
#include <stdint.h>

/* Words of the augmentation buffer (set = first unused set index, binding 0): parameters first, then
 * 8 words of record per workgroup, the layout of shaders/probe.comp's records. */
#define VKOCC_AUG_PARAM_WORDS 8u
enum { VKOCC_AUG_MODE = 0, VKOCC_AUG_SLEEP_TICKS = 1, VKOCC_AUG_MAX_ROUNDS = 2, VKOCC_AUG_KEY = 3 };

/* The largest SPIR-V id bound vkocc handles (its tables are sized by the bound). */
#define VKOCC_SPIRV_MAX_BOUND (1u << 22)

vkocc_shader_lang compile_shader_lang_of(const char *path);
/* Text files embedded in the library (cmake/barrier.cmake): "vkocc/device_barrier.glsl",
 * "vkocc/persistent.glsl", "kernels/barrier/NAME.comp". NULL when unknown; NUL-terminated. */
extern const struct compile_embedded_text_entry { const char *name; const char *text; size_t len; } compile_embedded_texts[];
extern const unsigned compile_embedded_text_count;
const char *compile_embedded_text(const char *name, size_t *len);
/* compile.c: loads FILE (language from lang, or from the extension when VKOCC_SHADER_AUTO) into SPIR-V
 * (malloc'd words). Compile errors are VKOCC_ERROR_USAGE with the compiler's "file:line: error" text. */
vkocc_status compile_shader_load_file(const char *path, vkocc_shader_lang lang, const char *entry,
                                    const char *const *defines, uint32_t ndefines, uint32_t **spv, size_t *words);
vkocc_status compile_shader_compile(const char *text, size_t len, const char *name, vkocc_shader_lang lang,
                                  const char *entry, const char *const *defines, uint32_t ndefines,
                                  uint32_t **spv, size_t *words);
/* Whether preprocessed HLSL text t (tlen bytes, not NUL-terminated) has a [numthreads(...)] argument that is a lone
 * identifier (parenthesized or not) the text names nowhere else: glslang crashes on one instead of failing. *name
 * (len bytes) gets it. Pure; a scan, not a parser. */
bool compile_hlsl_numthreads_unknown(const char *t, size_t tlen, char *name, size_t len);

/* Builds glslang's built-in tables for kernels like text (its language; for GLSL its #version line) on a thread of
 * its own, by compiling a trivial shader, and returns at once. glslang builds them on a process's first compile of
 * a shader kind (120-160 ms of KTT's vadd on lavapipe's 2-core host): a tuning that calls this as soon as it has
 * read its kernel has them built while it opens the device and fills its arguments. Once per process. */
void compile_shader_warm(const char *text, size_t len, vkocc_shader_lang lang);
/* Waits for the warm-up to end, if one runs (at exit, and for its test). */
void compile_shader_warm_wait(void);

/* SPIRV-Tools validation (Vulkan environment from the module's version); VKOCC_ERROR_USAGE with the
 * validator's message, `what` naming the module ("the module", "the augmented module"). */
vkocc_status compile_spirv_validate(const uint32_t *spv, size_t words, const char *name, const char *what);

/* augment.c */
typedef struct compile_spirv_info {
  uint32_t version;          /* header word 1 */
  char entry[128];           /* the compute entry point chosen */
  uint32_t wg[3];            /* workgroup size with the given specialization constants */
  uint32_t shared_bytes;     /* sum of Workgroup-storage variables (natural alignment), with the constants */
  bool shared_exact;         /* false when a size could not be evaluated (then shared_bytes is a lower bound) */
  uint32_t first_free_set;   /* the lowest descriptor set index no variable uses */
  uint32_t max_set_plus1;    /* 1 + highest set used (0 when none) */
} compile_spirv_info;

/* Checks the header and the instruction stream (VKOCC_ERROR_USAGE naming `name` when truncated or not
 * SPIR-V), finds the compute entry point (entry NULL/"": the only one, or "main"), and evaluates the
 * workgroup size and shared bytes under the specialization constants given (IDs must exist). */
vkocc_status compile_spirv_inspect(const uint32_t *spv, size_t words, const char *name, const char *entry,
                                 const vkocc_spec_value *spec, uint32_t nspec, compile_spirv_info *info);
/* Adds the estimator: a storage buffer at (info->first_free_set, 0), OpReadClockKHR, and a branch at the top
 * of the entry point on params[VKOCC_AUG_MODE] (a buffer value, so no compiler can fold it): nonzero
 * sleeps invocation 0 and writes the record of gl_WorkGroupID.x, then every invocation returns; zero runs
 * the user's code, which therefore stays in the pipeline with its registers and shared memory. */
vkocc_status compile_spirv_augment(const uint32_t *spv, size_t words, const char *name, const char *entry,
                                 uint32_t set, uint32_t **out, size_t *out_words);
/* Variants of the augmentation: the same estimator (record, barrier, bounds on time and rounds), its sleeping
 * loop written otherwise. Where the driver compiles the user's code differently beside the default, another
 * variant may leave the written pipeline's statistics intact and so measure its P directly. */
enum { VKOCC_AUG_COMPACT = 0,   /* the default: 32 ALU steps per clock read, written out */
       VKOCC_AUG_UNROLLED = 1,  /* the 128 steps written out (the earlier default; about twice the binary) */
       VKOCC_AUG_SMALL = 2,     /* 8 steps per clock read */
       VKOCC_AUG_CLOCK_ONLY = 3, /* the clock alone: no work and no value carried between reads */
       VKOCC_AUG_ROLLED = 4,    /* 128 steps as an inner loop of a constant count: the smallest binary, but
                                   lavapipe stops an inner loop after 65535 iterations in all, so sleeps end early */
       VKOCC_AUG_VARIANTS = 5,
       VKOCC_AUG_AUTO = 255 };  /* compact on GPUs, unrolled on CPU devices (compile_aug_resolve) */
const char *compile_aug_variant_name(uint32_t variant);
/* The variant named (vkocc_probe_options.augmentation: NULL or "auto" is VKOCC_AUG_AUTO); VKOCC_ERROR_USAGE
 * naming the choices for another name. */
vkocc_status compile_aug_parse(const char *name, uint32_t *variant);
/* The variant to build for a device of this VkPhysicalDeviceType: variant itself, or for VKOCC_AUG_AUTO unrolled
 * on a CPU device, whose loops end after 65535 iterations so each round must take the time it did, and which
 * reports no statistics to keep; compact elsewhere. */
uint32_t compile_aug_resolve(uint32_t variant, uint32_t device_type);
/* How many rounds of this variant take the time of one unrolled round (its iteration bound is multiplied by it
 * on GPUs, so every variant bounds the same time; 1 on a CPU device, whose loop limit the bound respects). */
uint32_t compile_aug_rounds_scale(uint32_t variant, uint32_t device_type);
vkocc_status compile_spirv_augment_variant(const uint32_t *spv, size_t words, const char *name, const char *entry,
                                         uint32_t set, uint32_t variant, uint32_t **out, size_t *out_words);

/* reflect.c */
typedef struct compile_reflect_binding {
  uint32_t set, binding, count;
  uint32_t type;             /* VkDescriptorType */
  uint32_t image_dim;        /* SpvDim for images */
  uint32_t image_format;     /* SpvImageFormat for storage images */
  bool arrayed, multisampled;
  uint32_t sampled_type;     /* 0 float, 1 int, 2 uint (image component type) */
  uint32_t size;             /* buffers: declared size in bytes (runtime arrays counted as one element) */
} compile_reflect_binding;

typedef struct compile_reflect_spec {
  uint32_t id;
  uint32_t bytes;            /* 4 or 8 */
  uint64_t default_value;    /* bits */
  bool is_float, is_signed, is_bool;
} compile_reflect_spec;

typedef struct compile_reflection {
  compile_reflect_binding *bindings;
  uint32_t nbindings;
  uint32_t push_bytes;
  compile_reflect_spec *specs;
  uint32_t nspecs;
} compile_reflection;

vkocc_status compile_reflect(const uint32_t *spv, size_t words, const char *entry, compile_reflection *out);
void compile_reflection_free(compile_reflection *r);
/* probes/pipeline.c, for tests: builds the augmented pipeline of sh, dispatches `groups` workgroups once with
 * params[MODE] = mode (0: the user's code, else the estimator), and counts the nonzero words left in the
 * user's (zero-filled) buffers and the records written. */
vkocc_status probes_user_pipeline_test(vkocc_context *ctx, const vkocc_shader_desc *sh, uint32_t mode,
                                      uint32_t groups, uint32_t *written, uint32_t *records_flagged);
/* ---------------------------------------------------------------- the module contract (contract.c)
 * What the device promised to accept, as the contract checks a user's module against it before anything is
 * created. Filled from a context by core_module_limits_of (core/shader_features.c); plain data, so the
 * contract is tested and fuzzed without a device. */
enum {
  VKOCC_FEAT_INT64, VKOCC_FEAT_INT16, VKOCC_FEAT_FLOAT64, VKOCC_FEAT_FLOAT16, VKOCC_FEAT_INT8,
  VKOCC_FEAT_BUFFER_INT64_ATOMICS, VKOCC_FEAT_SHARED_INT64_ATOMICS, VKOCC_FEAT_IMAGE_GATHER_EXTENDED,
  VKOCC_FEAT_STORAGE_IMAGE_MULTISAMPLE, VKOCC_FEAT_UBO_ARRAY_DYNAMIC, VKOCC_FEAT_SAMPLED_ARRAY_DYNAMIC,
  VKOCC_FEAT_SSBO_ARRAY_DYNAMIC, VKOCC_FEAT_STORAGE_IMAGE_ARRAY_DYNAMIC, VKOCC_FEAT_IMAGE_CUBE_ARRAY,
  VKOCC_FEAT_RESOURCE_RESIDENCY, VKOCC_FEAT_RESOURCE_MIN_LOD, VKOCC_FEAT_STORAGE_IMAGE_EXTENDED_FORMATS,
  VKOCC_FEAT_STORAGE_IMAGE_READ_WITHOUT_FORMAT, VKOCC_FEAT_STORAGE_IMAGE_WRITE_WITHOUT_FORMAT,
  VKOCC_FEAT_STORAGE_BUFFER_16BIT, VKOCC_FEAT_UNIFORM_STORAGE_BUFFER_16BIT, VKOCC_FEAT_PUSH_CONSTANT_16BIT,
  VKOCC_FEAT_STORAGE_BUFFER_8BIT, VKOCC_FEAT_UNIFORM_STORAGE_BUFFER_8BIT, VKOCC_FEAT_PUSH_CONSTANT_8BIT,
  VKOCC_FEAT_VARIABLE_POINTERS_STORAGE_BUFFER, VKOCC_FEAT_VARIABLE_POINTERS, VKOCC_FEAT_VULKAN_MEMORY_MODEL,
  VKOCC_FEAT_VULKAN_MEMORY_MODEL_DEVICE_SCOPE, VKOCC_FEAT_BUFFER_DEVICE_ADDRESS, VKOCC_FEAT_SHADER_DEVICE_CLOCK,
  VKOCC_FEAT_COUNT
};
/* "shaderInt64", ... (the Vulkan feature's member name) */
const char *compile_feature_name(unsigned feat);

typedef struct compile_module_limits {
  const char *device;                 /* the device's name, for messages */
  uint32_t max_bound_sets;            /* maxBoundDescriptorSets */
  uint32_t max_push_bytes;            /* maxPushConstantsSize */
  uint32_t max_shared_bytes;          /* maxComputeSharedMemorySize */
  uint32_t max_invocations;           /* maxComputeWorkGroupInvocations */
  uint32_t max_wg_size[3];            /* maxComputeWorkGroupSize */
  uint32_t per_stage_samplers, per_stage_uniform_buffers, per_stage_storage_buffers, per_stage_sampled_images,
      per_stage_storage_images, per_stage_resources; /* maxPerStageDescriptor*, maxPerStageResources */
  uint32_t max_uniform_range, max_storage_range;    /* maxUniformBufferRange, maxStorageBufferRange */
  uint32_t subgroup_ops;              /* VkSubgroupFeatureFlags where the compute stage has them (else 0) */
  uint64_t supported, enabled;        /* bit VKOCC_FEAT_*: the device supports it / vkocc's device enables it */
} compile_module_limits;

/* Checks the module (already through compile_spirv_inspect) and its reflection against the limits: the
 * capabilities it declares against the enabled features, descriptor sets (every DescriptorSet decoration,
 * whatever its value), bindings and arrays against the per-stage limits and what vkocc binds, push
 * constants, buffer sizes, workgroup size (64-bit product) and shared bytes, the specialization constants
 * given (at most 64, each ID once). augmented: vkocc's storage buffer and set count too.
 * VKOCC_ERROR_UNSUPPORTED naming the limit or feature with both values (exit 3); VKOCC_ERROR_USAGE for the
 * workgroup and shared-memory limits (as before) and for bad constants. */
vkocc_status compile_module_contract(const uint32_t *spv, size_t words, const char *name, const compile_spirv_info *info,
                                   const compile_reflection *refl, const vkocc_spec_value *spec, uint32_t nspec,
                                   bool augmented, const compile_module_limits *lim);
/* core/shader_features.c: the limits and features of ctx's device, as its device was created. */
void core_module_limits_of(vkocc_context *ctx, compile_module_limits *out);
/* The whole contract on a context: reflects the module and checks it (the hook the pipeline builder calls
 * before anything is created). */
vkocc_status core_module_contract_ctx(vkocc_context *ctx, const uint32_t *spv, size_t words, const char *name,
                                       const compile_spirv_info *info, const vkocc_shader_desc *sh);
#endif
