/* Internal to probes/: the user's pipeline as the probe measures it (probes/user_pipeline.c), the
 * unmodified measurement (probes/unmodified.c) and the result cache (probes/pipeline_cache.c) behind the
 * public vkocc_pipeline_occupancy (probes/pipeline.c). */
#ifndef VKOCC_USER_PIPELINE_H
#define VKOCC_USER_PIPELINE_H
#include "compile.h"
#include "probe_internal.h"

#define VKOCC_USER_STATS 24 /* executable statistics kept per pipeline */

typedef struct user_pipeline {
  vkocc_context *ctx;
  core_kernel k;          /* the pipeline (core/exec.h): reflection, dummies, sets */
  core_buffer aug;        /* parameters + records (augmented only) */
  uint32_t max_groups;
  uint8_t push[256];       /* the user's push constants: zeros */
  char stat_name[VKOCC_USER_STATS][64]; /* executable statistics (VK_KHR_pipeline_executable_properties) */
  double stat_user[VKOCC_USER_STATS], stat_aug[VKOCC_USER_STATS];
  uint32_t nstats;
  bool plain;              /* the user's module as written: no augmentation, no vkocc set (--unmodified) */
  size_t aug_words;        /* SPIR-V words of the module built (augmented, or as written when plain) */
  uint32_t variant;        /* the augmentation variant built (compile.h VKOCC_AUG_*) */
} user_pipeline;

/* Builds the augmented pipeline of spv (the user's module; plain: the module as written) with the
 * inspection the caller made of it (info), augmented with variant (VKOCC_AUG_AUTO: the device's default). On
 * failure u is destroyed. */
vkocc_status user_pipeline_create(vkocc_context *ctx, const uint32_t *spv, size_t words, const char *name,
                                  const vkocc_shader_desc *sh, const compile_spirv_info *info, bool plain,
                                  uint32_t variant, user_pipeline *u);
/* The same with another augmentation variant (compile.h VKOCC_AUG_*). */
vkocc_status user_pipeline_create_variant(vkocc_context *ctx, const uint32_t *spv, size_t words, const char *name,
                                          const vkocc_shader_desc *sh, const compile_spirv_info *info, bool plain,
                                          uint32_t variant, user_pipeline *u);
void user_pipeline_destroy(user_pipeline *u);
/* One timed dispatch of the user's pipeline with the estimator's parameters (params NULL: as they are). */
vkocc_status user_dispatch(user_pipeline *u, const uint32_t params[4], uint32_t groups, double *ns,
                           vkocc_tick_status *tick);
/* The probe session's dispatch hook over a user_pipeline. */
vkocc_status user_pipeline_hook(void *user, const probes_params *p, uint32_t groups, double *ns,
                                vkocc_tick_status *tick);

/* unmodified.c: P of the pipeline as written from its runtime steps (dispatch bisection). */
vkocc_status measure_unmodified(user_pipeline *u, const vkocc_probe_options *opt, vkocc_pipeline_result *out);

/* pipeline_cache.c: the P cache (key over device, driver, queue family, the driver's environment, vkocc
 * version, module, entry, constants, method, unmodified and the written-pipeline rule; checksummed entries
 * read only from regular files; a hit restores the measurement's whole summary, out->written included). */
uint64_t pipeline_cache_key(const vkocc_device_info *d, const uint32_t *spv, size_t words, const vkocc_shader_desc *sh,
                            const vkocc_probe_options *o, uint32_t variant);
bool pipeline_cache_read(uint64_t key, vkocc_pipeline_result *out);
void pipeline_cache_write(uint64_t key, const vkocc_pipeline_result *r);
#endif
