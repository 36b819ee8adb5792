/* vkocc/pipeline.h: the user's own pipeline and its augmentation; part of <vkocc.h>. */
#ifndef VKOCC_API_PIPELINE_H
#define VKOCC_API_PIPELINE_H

#include "common.h"
#include "device.h"
#include "calibrate.h"
#include "probe.h"
#include "surface.h"
#include "registers.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ the user's own pipeline (docs/shader.md)
 * P of the user's pipeline, measured on the pipeline itself: vkocc augments the SPIR-V with an estimator
 * branch at the top of the entry point (a flag read from a buffer, so no compiler can fold it) and measures
 * with the comb/bisection while the user's code stays in the pipeline, keeping its registers and shared
 * memory, but never runs. Where the augmentation changes what the driver allocates, P of the pipeline as
 * written is decided from both pipelines' statistics and the per-SM model (docs/shader.md "The pipeline as
 * written"). */

typedef enum vkocc_shader_lang {
  VKOCC_SHADER_AUTO = 0,  /* from the file extension: .comp/.glsl GLSL, .hlsl HLSL, .spv SPIR-V */
  VKOCC_SHADER_GLSL = 1,
  VKOCC_SHADER_HLSL = 2,
  VKOCC_SHADER_SPIRV = 3,
} vkocc_shader_lang;

/* A specialization constant: converted to the constant's own type (int, uint, bool, float). */
typedef struct vkocc_spec_value { uint32_t id; double value; } vkocc_spec_value;

typedef struct vkocc_shader_desc {
  const char *path;              /* a shader file; or NULL and one of: */
  const char *source;            /* GLSL/HLSL text (lang must say which) */
  size_t source_len;
  const uint32_t *spirv;         /* a SPIR-V module */
  size_t spirv_words;
  const char *name;              /* names source or spirv in messages (NULL: "source.comp" / "module.spv") */
  vkocc_shader_lang lang;
  const char *entry;             /* entry point; NULL: "main", or the module's only compute entry point */
  const char *const *defines;    /* "NAME=VALUE" or "NAME", for source shaders */
  uint32_t ndefines;
  const vkocc_spec_value *spec;  /* specialization constants (IDs must exist in the module) */
  uint32_t nspec;
  /* Measure the pipeline as written (no augmentation, no shader clock) by dispatch bisection on its own
   * runtime: the user's code runs on zero-filled dummies and needs a regular workload of at least tens of
   * microseconds per workgroup (a grain constant); method must be 0 or VKOCC_METHOD_BISECT. */
  bool unmodified;
} vkocc_shader_desc;

/* The module of a shader description: path or source compiled (libshaderc; compile errors are
 * VKOCC_ERROR_USAGE with the compiler's "file:line: error" text), a SPIR-V file read, or spirv copied.
 * *spirv malloc'd (free()). */
vkocc_status vkocc_shader_spirv(const vkocc_shader_desc *shader, uint32_t **spirv, size_t *words);

/* What a compute module is under its specialization constants, before anything runs. */
typedef struct vkocc_shader_info {
  char entry[128];               /* the compute entry point chosen */
  uint32_t wg[3];                /* workgroup size, specialization applied */
  uint32_t wg_size;              /* wg[0] * wg[1] * wg[2] (0 when the product overflows 32 bits) */
  uint32_t shared_bytes;         /* its Workgroup variables, naturally aligned (a lower bound if !shared_exact) */
  bool shared_exact;
} vkocc_shader_info;
/* Inspects the shader (compiled as vkocc_shader_spirv does): entry point, workgroup size and shared bytes
 * under shader->spec, with no device when ctx is NULL. With ctx, also the contract vkocc_pipeline_occupancy
 * checks before creating anything: capabilities, descriptor sets and bindings, push constants, workgroup
 * size, shared bytes and constants against the context's device (VKOCC_ERROR_UNSUPPORTED naming the limit or
 * feature and both values; VKOCC_ERROR_USAGE for the workgroup and shared-memory limits and bad constants).
 * Errors otherwise as vkocc_pipeline_occupancy's for a module that is not (whole) SPIR-V, not compute, or
 * lacks the entry point or a specialization ID. */
vkocc_status vkocc_shader_inspect(vkocc_context *ctx, const vkocc_shader_desc *shader, vkocc_shader_info *out);

/* Which evidence gave P of the pipeline as written. */
typedef enum vkocc_written_evidence {
  VKOCC_WRITTEN_NONE = 0,          /* not established (the call failed) */
  VKOCC_WRITTEN_NO_STATISTICS = 1, /* the driver reports no statistics: the measured P (a difference cannot show) */
  VKOCC_WRITTEN_EQUAL = 2,         /* measured: statistics equal */
  VKOCC_WRITTEN_BOUNDED = 3,       /* measured: the augmented pipeline uses at least as much of every resource
                                      and already reaches the written pipeline's own limit */
  VKOCC_WRITTEN_PREDICTED = 4,     /* predicted from the written statistics by the per-SM model, which
                                      reproduces the augmented pipeline's measured P */
  VKOCC_WRITTEN_UNMODIFIED = 5,    /* --unmodified: measured on the pipeline as written */
  VKOCC_WRITTEN_CACHED = 6,        /* an earlier answer from the cache */
  VKOCC_WRITTEN_VARIANT = 7,       /* measured with an augmentation variant whose statistics equal the written ones */
} vkocc_written_evidence;
/* "measured: statistics equal", "predicted from written statistics by the per-SM model", "--unmodified", ... */
const char *vkocc_written_evidence_name(vkocc_written_evidence e);

typedef struct vkocc_written_answer {
  uint32_t P;                    /* P of the pipeline as written: the one to use */
  uint32_t augmented_P;          /* as measured on the augmented pipeline */
  uint32_t predicted_P;          /* the model's prediction from the written statistics (0: none) */
  uint32_t predicted_augmented_P;/* the model's prediction from the augmented statistics (0: none) */
  bool confirmed;                /* a measurement confirms P (equal statistics, the bound, or the model
                                    reproducing the augmented measurement) */
  vkocc_written_evidence evidence;
  uint32_t binding;              /* vkocc_limit bits of the written pipeline's binding limits (0: unknown) */
  uint32_t written_registers, augmented_registers; /* 0: no register statistic */
  uint32_t written_shared, augmented_shared;       /* the driver's, else the SPIR-V's */
  char differs[256];             /* the statistics that bound occupancy and differ: "Register Count 89 / 80; ..." */
  char reason[512];              /* the decision in words (also on failure: why it cannot be established) */
  char variant[24];              /* the augmentation variant that measured P (VKOCC_WRITTEN_VARIANT), else "" */
  char variants[512];            /* the variants tried where the statistics differed, with theirs: "unrolled: Register
                                    Count 80, Shared Memory Size 13568 (differs); small: ... (equal: measured)" */
  uint32_t needs;                /* not established: what the device could give to decide (VKOCC_WRITTEN_NEEDS_) */
} vkocc_written_answer;
#define VKOCC_WRITTEN_NEEDS_MODEL 1u     /* the per-SM model of the device and queue family (vkocc fingerprint) */
#define VKOCC_WRITTEN_NEEDS_REGISTERS 2u /* its register file (vkocc surface --registers) */

typedef struct vkocc_pipeline_result {
  uint32_t P;                    /* workgroups of this pipeline resident at once on the whole device */
  uint32_t wg[3];                /* its workgroup size (specialization applied) */
  uint32_t wg_size;              /* wg[0] * wg[1] * wg[2] */
  uint32_t shared_bytes;         /* its Workgroup variables, naturally aligned (a lower bound if !shared_exact) */
  bool shared_exact;
  uint32_t aug_set;              /* the descriptor set index the estimator's buffer took */
  uint32_t descriptors;          /* user bindings given dummy resources */
  uint32_t push_bytes;           /* the user's push-constant block */
  char entry[128];
  bool from_cache;               /* read from $XDG_CACHE_HOME/vkocc; probe then holds only P */
  uint64_t key;                  /* cache key: hash of device UUID, driver, queue family, vkocc version, module, constants */
  vkocc_probe_result probe;      /* the evidence (comb teeth, bisection steps, timings) */
  /* VK_KHR_pipeline_executable_properties statistics where the driver offers them (else nstats 0): of the
   * user's pipeline as given and of the augmented one, so a difference the estimator makes shows */
  struct { char name[64]; double value; double augmented; } stats[24];
  uint32_t nstats;
  /* shader->unmodified: the evidence of the runtime staircase (best runs, ns); probe.bisect_wave_ns = wave */
  bool unmodified;
  struct {
    double empty_ns;      /* a dispatch of 0 workgroups (timestamps and dispatch overhead) */
    double noise_ns;      /* its median - fastest */
    double one_ns;        /* 1 workgroup */
    double wave_ns;       /* one_ns - empty_ns: a workgroup's runtime */
    double at_P_ns, at_P1_ns, at_2P_ns, at_2P1_ns; /* P, P + 1, 2P, 2P + 1 workgroups */
    uint32_t dispatches;
    double wall_ns;
  } unmod;
  /* P of the pipeline as written (P above is it): the evidence, the augmented P, the model's predictions */
  struct vkocc_written_answer *written; /* malloc'd; freed by vkocc_pipeline_result_free */
  /* refused (VKOCC_REASON_WRITTEN_UNKNOWN) for want of what the device can give: VKOCC_WRITTEN_NEEDS_ bits, so a
   * caller measures it and asks again (0: nothing a measurement of the device would add) */
  uint32_t written_needs;
} vkocc_pipeline_result;

/* Compiles (GLSL/HLSL through libshaderc), inspects, augments and measures the user's compute pipeline.
 * opt: method, repeat, sleep as for vkocc_probe (wg_size and shared_bytes are taken from the shader);
 * NULL for defaults. cal may be NULL (a short calibration is run). use_cache: look the answer up in (and
 * store it to) $XDG_CACHE_HOME/vkocc. Errors: VKOCC_ERROR_USAGE for a shader that does not compile
 * (with file:line), is not compute, lacks the entry point, names an unknown specialization ID, is not
 * (whole) SPIR-V, or uses more shared memory than the device allows; VKOCC_ERROR_UNSUPPORTED when the
 * device lacks the realtime shader clock or the driver rejects the augmented pipeline (message names the
 * VkResult). shader->unmodified: VKOCC_ERROR_RUNTIME when the runtime shows no clear staircase (workgroups
 * too short for the dispatch noise, a ramp over the first wave, runs that disagree). */
vkocc_status vkocc_pipeline_occupancy(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_shader_desc *shader,
                                      const vkocc_probe_options *opt, bool use_cache, vkocc_pipeline_result *out);
/* vkocc_pipeline_occupancy with the per-SM model given (d, m may be NULL: then the device's cached
 * fingerprint and register model are used where the statistics differ). out->written holds the decision;
 * VKOCC_ERROR_RUNTIME when P of the pipeline as written cannot be established. */
vkocc_status vkocc_pipeline_occupancy_model(vkocc_context *ctx, const vkocc_calibration *cal,
                                            const vkocc_shader_desc *shader, const vkocc_probe_options *opt,
                                            const vkocc_derived *d, const vkocc_register_model *m, bool use_cache,
                                            vkocc_pipeline_result *out);
void vkocc_pipeline_result_free(vkocc_pipeline_result *r);

/* The pipeline's measured P against a device model (derived limits; rm, the register file, may be unknown): the
 * workgroups per SM each limit allows (as Nsight Compute's occupancy section lists them), the model's P and the
 * limit that binds, in words, with what the measured P says beyond the model. */
typedef struct vkocc_pipeline_limits {
  double occupancy_pct; /* of threads_per_sm, from the measured P */
  double per_sm;        /* measured workgroups per SM (0: no SM count) */
  uint32_t sm_count, threads_per_sm, shared_per_sm;
  uint32_t by_workgroup_slots, by_subgroup_slots, subgroups_per_workgroup;
  uint32_t by_shared_memory; /* UINT32_MAX: the pipeline uses no shared memory */
  uint32_t by_registers;     /* VKOCC_NO_LIMIT: the register file is unknown */
  uint32_t registers;        /* per invocation, as written (0: unknown) */
  uint32_t surface_P;        /* P the model predicts */
  char binding[256];
} vkocc_pipeline_limits;
void vkocc_pipeline_limits_compute(const vkocc_derived *d, const vkocc_register_model *rm,
                                   const vkocc_pipeline_result *r, vkocc_pipeline_limits *out);

/* The decision behind vkocc_pipeline_occupancy_model, alone. */
typedef struct vkocc_written_input {
  uint32_t nstats;
  const char *const *names;      /* driver statistic names (VK_KHR_pipeline_executable_properties) */
  const double *written;         /* of the pipeline as written; NAN where it lacks the statistic */
  const double *augmented;       /* of the pipeline vkocc measured */
  uint32_t wg_size;
  uint32_t shared_bytes;         /* from the SPIR-V (used where the driver names no shared-memory statistic) */
  uint32_t augmented_P;          /* measured on the augmented pipeline */
  const vkocc_derived *derived;  /* the per-SM model of this device and queue family; NULL: unknown */
  const vkocc_register_model *registers; /* NULL or !known: the register file is unknown */
  bool unmodified;               /* augmented_P was measured on the pipeline as written */
  uint32_t variant_P;            /* P measured with an augmentation variant whose statistics that bound occupancy
                                    equal the written ones (probes_written_stats_equal); 0: none */
  const char *variant;           /* that variant's name */
} vkocc_written_input;

/* Decides P of the pipeline as written from the two pipelines' statistics, the measured augmented P and the
 * per-SM model. Pure: no device. VKOCC_ERROR_RUNTIME (with the reason) when it cannot be established: a
 * statistic that bounds occupancy differs and neither the bound nor a model that reproduces the
 * augmented measurement settles it. Never returns the augmented P where the statistics say it differs. */
vkocc_status vkocc_written_decide(const vkocc_written_input *in, vkocc_written_answer *out);

/* ---------------------------------------------------------------- augmentation variants (docs/shader.md)
 * The estimator vkocc adds to a user's pipeline can be written several ways; the driver may compile the user's
 * code differently beside each. vkocc_pipeline_occupancy measures with "compact" on GPUs and, where that changes a
 * statistic that bounds occupancy, tries the others and measures P with one that compiles to the written
 * statistics (evidence VKOCC_WRITTEN_VARIANT). */

/* The augmentation vkocc_pipeline_occupancy measures with first is vkocc_probe_options.augmentation: "auto" or
 * NULL (the default: "compact" on GPUs, "unrolled" on CPU devices), "compact" (32 ALU steps per clock read),
 * "unrolled" (128 steps: vkocc's earlier default, about twice the added code), "small" (8 steps), "clock-only" (no
 * work between clock reads), "rolled" (128 steps as an inner loop: the smallest, but lavapipe stops such a loop
 * early). This checks a name before anything is measured: VKOCC_ERROR_USAGE naming the choices for another. */
vkocc_status vkocc_augmentation_check(const char *name);

#ifdef __cplusplus
}
#endif
#endif
