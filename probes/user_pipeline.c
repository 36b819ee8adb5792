/* The user's own pipeline as the probe measures it: the augmented module (compile/augment.c) built by the
 * executor (core/exec.h) with the user's sets, dummy resources of the reflected kinds and vkocc's set, and
 * dispatched through the probe session's hook with the probe's parameters written to the augmentation
 * buffer instead of push constants (the user's shader may have its own push constants). plain: the module
 * as written, measured by dispatch bisection on its own runtime (probes/unmodified.c). */
#include "user_pipeline.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_USER_GROUPS (1u << 18) /* records buffer: 8 MiB; P of any device we know is far below */

/* The driver's statistics of the augmented pipeline and of the module as the user wrote it (same layout;
 * vkocc's set unused there): augmentation must not change what the driver allocates. */
static void user_pipeline_stats(user_pipeline *u, const uint32_t *spv, size_t words) {
  u->nstats = core_kernel_statistics(u->ctx, &u->k, u->stat_name, u->stat_aug, VKOCC_USER_STATS);
  for (uint32_t i = 0; i < u->nstats; i++) u->stat_user[i] = NAN;
  if (!u->nstats) return;
  char nm[VKOCC_USER_STATS][64];
  double v[VKOCC_USER_STATS];
  uint32_t n = core_kernel_statistics_of(u->ctx, &u->k, spv, words, nm, v, VKOCC_USER_STATS);
  for (uint32_t i = 0; i < u->nstats; i++)
    for (uint32_t j = 0; j < n; j++) if (!strcmp(nm[j], u->stat_name[i])) u->stat_user[i] = v[j];
}

void user_pipeline_destroy(user_pipeline *u) {
  if (!u->ctx) return;
  core_kernel_destroy(u->ctx, &u->k);
  core_buffer_destroy(u->ctx, &u->aug);
  memset(u, 0, sizeof *u);
}

static vkocc_status create(vkocc_context *ctx, const uint32_t *spv, size_t words, const char *name,
                           const vkocc_shader_desc *sh, const compile_spirv_info *info, bool plain, uint32_t variant,
                           user_pipeline *u, compile_reflection *refl, uint32_t **aug, size_t *aug_words) {
  /* the module contract (compile/contract.c): before any Vulkan object is created for the user's module */
  vkocc_status cs = core_module_contract_ctx(ctx, spv, words, name, info, sh);
  if (cs) return cs;
  const vkocc_device_info *d = &ctx->info;
  uint32_t wg = info->wg[0] * info->wg[1] * info->wg[2];
  if (wg > d->max_invocations || info->wg[0] > d->max_wg_size_x)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: workgroup %ux%ux%u is above the limits of %s (%u invocations, x %u)",
                      name, info->wg[0], info->wg[1], info->wg[2], d->name, d->max_invocations, d->max_wg_size_x);
  if (info->shared_bytes > d->max_shared_bytes)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %u bytes of shared memory is above maxComputeSharedMemorySize = %u of %s",
                      name, info->shared_bytes, d->max_shared_bytes, d->name);
  if (!plain && !ctx->device_clock)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "measuring a user's shader needs the realtime shader clock "
                      "(VK_KHR_shader_clock shaderDeviceClock), which %s lacks%s", d->name,
                      d->shader_device_clock ? " here (disabled)" : "");
  vkocc_status s = compile_reflect(spv, words, info->entry, refl);
  if (s) return s;
  if (refl->push_bytes > sizeof u->push)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: push constants of %u bytes (vkocc binds up to %zu)", name,
                      refl->push_bytes, sizeof u->push);
  uint32_t aug_set = info->first_free_set;
  if (plain) {
    *aug = util_xmalloc(words * 4);
    memcpy(*aug, spv, words * 4);
    *aug_words = words;
  } else if ((s = compile_spirv_augment_variant(spv, words, name, info->entry, aug_set, variant, aug, aug_words))) {
    return s;
  }
  if (!plain && compile_spirv_validate(*aug, *aug_words, name, "the augmented module")) {
    /* vkocc's insertion, not the user's input, is at fault: the device path cannot be taken */
    char why[512];
    snprintf(why, sizeof why, "%s", vkocc_last_error());
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s", why);
  }
  u->max_groups = d->max_wg_count_x < MAX_USER_GROUPS ? d->max_wg_count_x : MAX_USER_GROUPS;
  if (!plain) { /* vkocc's buffer: parameters + records */
    VkDeviceSize aug_bytes = 4ull * (VKOCC_AUG_PARAM_WORDS + 8ull * u->max_groups);
    if ((s = core_buffer_create(ctx, aug_bytes, true, &u->aug))) return s;
    memset(u->aug.map, 0, aug_bytes);
  }
  /* the pipeline: the user's sets with dummies, ours at aug_set */
  core_kernel_resource res = {.set = aug_set, .binding = 0, .buffer = &u->aug};
  core_kernel_desc kd = {.spv = *aug, .words = *aug_words, .name = name, .role = plain ? "user's" : "augmented",
                          .reflect_spv = spv, .reflect_words = words, .info = info, .refl = refl,
                          .spec = sh->spec, .nspec = sh->nspec, .res = plain ? NULL : &res, .nres = plain ? 0 : 1,
                          .has_extra_set = !plain, .extra_set = aug_set, .statistics = true};
  if ((s = core_kernel_build(ctx, &kd, &u->k))) return s;
  if (ctx->exec_props && !plain) user_pipeline_stats(u, spv, words);
  const char *extra = getenv("VKOCC_TEST_AUGMENTED_SHARED_EXTRA");
  if (!plain && !u->nstats && extra && atoi(extra) > 0) {
    /* tests on a driver without statistics (lavapipe): one saying that the augmentation added shared memory, so
     * P of the pipeline as written needs the per-SM model */
    snprintf(u->stat_name[0], sizeof u->stat_name[0], "Shared Memory Size");
    u->stat_user[0] = info->shared_bytes;
    u->stat_aug[0] = info->shared_bytes + (double)atoi(extra);
    u->nstats = 1;
  }
  return VKOCC_OK;
}

vkocc_status user_pipeline_create(vkocc_context *ctx, const uint32_t *spv, size_t words, const char *name,
                                  const vkocc_shader_desc *sh, const compile_spirv_info *info, bool plain,
                                  uint32_t variant, user_pipeline *u) {
  return user_pipeline_create_variant(ctx, spv, words, name, sh, info, plain,
                                      compile_aug_resolve(variant, ctx->info.device_type), u);
}

vkocc_status user_pipeline_create_variant(vkocc_context *ctx, const uint32_t *spv, size_t words, const char *name,
                                          const vkocc_shader_desc *sh, const compile_spirv_info *info, bool plain,
                                          uint32_t variant, user_pipeline *u) {
  memset(u, 0, sizeof *u);
  u->ctx = ctx;
  u->plain = plain;
  compile_reflection refl = {0};
  uint32_t *aug = NULL;
  size_t aug_words = 0;
  vkocc_status s = create(ctx, spv, words, name, sh, info, plain, variant, u, &refl, &aug, &aug_words);
  u->aug_words = aug_words;
  u->variant = variant;
  free(aug);
  compile_reflection_free(&refl);
  if (s) user_pipeline_destroy(u);
  return s;
}

vkocc_status user_dispatch(user_pipeline *u, const uint32_t params[4], uint32_t groups, double *ns,
                           vkocc_tick_status *tick) {
  vkocc_context *ctx = u->ctx;
  if ((groups == 0 && !u->plain) || groups > u->max_groups) /* plain: 0 times the dispatch overhead */
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "dispatch of %u workgroups is outside 1..%u", groups, u->max_groups);
  if (params) memcpy(u->aug.map, params, 4 * 4);
  core_batch *b = core_context_batch(ctx);
  vkocc_status s = core_batch_begin(b);
  if (s) return s;
  core_batch_bind(b, &u->k);
  core_batch_push(b, &u->k, u->push, 0);
  uint32_t t = core_batch_dispatch_timed(b, groups);
  if ((s = core_batch_run(b, 0, "dispatch of the user's pipeline"))) return s;
  const core_batch_record *r = core_batch_record_of(b, t);
  if (ns) *ns = r->ns;
  if (tick) *tick = r->tick;
  return VKOCC_OK;
}

/* Its parameters become the augmentation buffer's (mode 1 there: estimate). */
vkocc_status user_pipeline_hook(void *user, const probes_params *p, uint32_t groups, double *ns,
                                vkocc_tick_status *tick) {
  if (p->mode != 0)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "the augmented shader sleeps on the realtime clock only (no pointer chase)");
  /* a variant's rounds are shorter than the unrolled one's: on a GPU its bound is scaled to bound the same time */
  user_pipeline *u = user;
  uint64_t rounds = (uint64_t)p->max_rounds * compile_aug_rounds_scale(u->variant, u->ctx->info.device_type);
  uint32_t params[4] = {1, p->sleep_ticks, rounds > UINT32_MAX ? UINT32_MAX : (uint32_t)rounds, p->key};
  return user_dispatch(user, params, groups, ns, tick);
}
