/* P of the user's own pipeline (vkocc_pipeline_occupancy): the module loaded or compiled, inspected once,
 * looked up in the result cache (probes/pipeline_cache.c), else built (probes/user_pipeline.c) and measured
 * by the probe's comb/bisection through the session's dispatch hook, or as written by dispatch bisection
 * on its own runtime (probes/unmodified.c). */
#include "user_pipeline.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static vkocc_status load_module(const vkocc_shader_desc *sh, uint32_t **spv, size_t *words, const char **name) {
  if (sh->path) {
    *name = sh->path;
    return compile_shader_load_file(sh->path, sh->lang, sh->entry, sh->defines, sh->ndefines, spv, words);
  }
  if (sh->source) {
    *name = sh->name ? sh->name : sh->lang == VKOCC_SHADER_HLSL ? "source.hlsl" : "source.comp";
    return compile_shader_compile(sh->source, sh->source_len, *name, sh->lang, sh->entry, sh->defines, sh->ndefines,
                                spv, words);
  }
  if (sh->spirv) {
    *name = sh->name ? sh->name : "module.spv";
    *spv = util_xmalloc(sh->spirv_words * 4 + 4);
    memcpy(*spv, sh->spirv, sh->spirv_words * 4);
    *words = sh->spirv_words;
    return VKOCC_OK;
  }
  return vkocc_fail(VKOCC_ERROR_USAGE, "no shader given (path, source or SPIR-V)");
}

vkocc_status vkocc_shader_spirv(const vkocc_shader_desc *sh, uint32_t **spirv, size_t *words) {
  vkocc_clear_error();
  const char *name;
  *spirv = NULL, *words = 0;
  return load_module(sh, spirv, words, &name);
}

vkocc_status vkocc_shader_inspect(vkocc_context *ctx, const vkocc_shader_desc *sh, vkocc_shader_info *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  uint32_t *spv;
  size_t words;
  const char *name = NULL;
  vkocc_status s = load_module(sh, &spv, &words, &name);
  if (s) return s;
  compile_spirv_info info;
  s = compile_spirv_inspect(spv, words, name, sh->entry, sh->spec, sh->nspec, &info);
  if (!s && ctx) s = core_module_contract_ctx(ctx, spv, words, name, &info, sh);
  free(spv);
  if (s) return s;
  snprintf(out->entry, sizeof out->entry, "%s", info.entry);
  memcpy(out->wg, info.wg, sizeof out->wg);
  uint64_t n = (uint64_t)info.wg[0] * info.wg[1] * info.wg[2];
  out->wg_size = n > UINT32_MAX ? 0 : (uint32_t)n;
  out->shared_bytes = info.shared_bytes, out->shared_exact = info.shared_exact;
  return VKOCC_OK;
}

/* Internal (tests): builds the pipeline and hands it out, for dispatching either path by hand. */
vkocc_status probes_user_pipeline_test(vkocc_context *ctx, const vkocc_shader_desc *sh, uint32_t mode,
                                      uint32_t groups, uint32_t *written, uint32_t *records_flagged) {
  uint32_t *spv;
  size_t words;
  const char *name;
  vkocc_status s = load_module(sh, &spv, &words, &name);
  if (s) return s;
  compile_spirv_info info;
  user_pipeline u = {0};
  s = compile_spirv_inspect(spv, words, name, sh->entry, sh->spec, sh->nspec, &info);
  if (!s) s = user_pipeline_create(ctx, spv, words, name, sh, &info, false, VKOCC_AUG_AUTO, &u);
  free(spv);
  if (!s) {
    uint32_t params[4] = {mode, 1000, 64, 12345};
    double ns;
    vkocc_tick_status ts;
    s = user_dispatch(&u, params, groups, &ns, &ts);
    /* nonzero words in the user's buffers; records with the written flag */
    *written = 0;
    *records_flagged = 0;
    for (uint32_t i = 0; !s && i < u.k.refl.nbindings; i++)
      if (u.k.dummies[i].buf.map)
        for (VkDeviceSize k = 0; k < u.k.dummies[i].buf.size / 4; k++) *written += ((uint32_t *)u.k.dummies[i].buf.map)[k] != 0;
    const uint32_t *rec = (const uint32_t *)u.aug.map + VKOCC_AUG_PARAM_WORDS;
    for (uint32_t g = 0; !s && g < groups; g++) *records_flagged += rec[8 * g + 4] & 1;
  }
  user_pipeline_destroy(&u);
  return s;
}

#include "written_internal.h" /* probes_written_apply: P of the pipeline as written */
#include <math.h>
#include <stdarg.h>

/* Appends to the variants summary. */
static void variants_add(probes_written_variants *wv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void variants_add(probes_written_variants *wv, const char *fmt, ...) {
  size_t n = strlen(wv->tried);
  if (n + 1 >= sizeof wv->tried) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(wv->tried + n, sizeof wv->tried - n, fmt, ap);
  va_end(ap);
}

/* The statistics of one pipeline that bound occupancy, "Register Count 80, Shared Memory Size 13568". */
static void stats_text(const user_pipeline *v, char *out, size_t len) {
  out[0] = 0;
  for (uint32_t i = 0; i < v->nstats; i++) {
    if (probes_stat_kind(v->stat_name[i]) == VKOCC_STAT_NEUTRAL) continue;
    size_t n = strlen(out);
    snprintf(out + n, len - n, "%s%s %g", n ? ", " : "", v->stat_name[i], v->stat_aug[i]);
  }
}

/* Where the default augmentation's statistics differ from the written ones: builds each other variant, reads its
 * statistics, and measures P with the first whose statistics equal the written ones (wv->P).
 * A variant the driver refuses, or whose measurement fails, is skipped (named in the summary); never fails. */
static vkocc_status try_variants(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_shader_desc *sh,
                                 const vkocc_probe_options *opt, const uint32_t *spv, size_t words, const char *name,
                                 const compile_spirv_info *info, uint32_t measured, const vkocc_pipeline_result *out,
                                 probes_written_variants *wv) {
  const char *names[VKOCC_USER_STATS];
  double w[VKOCC_USER_STATS], g[VKOCC_USER_STATS];
  uint32_t n = out->nstats < VKOCC_USER_STATS ? out->nstats : VKOCC_USER_STATS;
  for (uint32_t i = 0; i < n; i++) names[i] = out->stats[i].name, w[i] = out->stats[i].value, g[i] = out->stats[i].augmented;
  if (probes_written_stats_equal(n, names, w, g)) return VKOCC_OK;
  for (uint32_t v = 0; v < VKOCC_AUG_VARIANTS; v++) {
    if (v == measured) continue; /* the one just measured */
    user_pipeline u;
    vkocc_status s = user_pipeline_create_variant(ctx, spv, words, name, sh, info, false, v, &u);
    if (s) {
      variants_add(wv, "%s%s: not built (%.120s)", wv->tried[0] ? "; " : "", compile_aug_variant_name(v),
                   vkocc_last_error());
      vkocc_clear_error();
      continue;
    }
    /* the variant's statistics in the order of the written ones */
    double vs[VKOCC_USER_STATS];
    for (uint32_t i = 0; i < n; i++) {
      vs[i] = NAN;
      for (uint32_t j = 0; j < u.nstats; j++)
        if (!strcmp(u.stat_name[j], names[i])) vs[i] = u.stat_aug[j];
    }
    const double *one[1] = {vs};
    bool equal = probes_written_pick_variant(n, names, w, one, 1) == 0;
    char st[300];
    stats_text(&u, st, sizeof st);
    variants_add(wv, "%s%s: %s (%s)", wv->tried[0] ? "; " : "", compile_aug_variant_name(v), st,
                 equal ? "equal: measured" : "differs");
    if (!equal) { user_pipeline_destroy(&u); continue; }
    probes_session ps = {.ctx = ctx, .max_groups = u.max_groups, .dispatch = user_pipeline_hook, .user = &u};
    ps.rec = u.aug;
    ps.rec.map = (uint32_t *)u.aug.map + VKOCC_AUG_PARAM_WORDS;
    core_kernel none = {0};
    vkocc_probe_result pr;
    s = probes_measure(&ps, &none, cal, opt, &pr);
    user_pipeline_destroy(&u);
    if (s) { /* this variant could not be measured (its sleeps cut short?): the next one may */
      variants_add(wv, ", its measurement failed (%.120s)", vkocc_last_error());
      vkocc_clear_error();
      vkocc_probe_result_free(&pr);
      continue;
    }
    wv->P = pr.P;
    snprintf(wv->name, sizeof wv->name, "%s", compile_aug_variant_name(v));
    vkocc_probe_result_free(&pr);
    return VKOCC_OK;
  }
  return VKOCC_OK;
}

vkocc_status probes_pipeline_warm(vkocc_context *ctx, const vkocc_shader_desc *sh) {
  uint32_t *spv;
  size_t words;
  const char *name;
  vkocc_status s = load_module(sh, &spv, &words, &name);
  if (s) return s;
  compile_spirv_info info;
  user_pipeline u;
  s = compile_spirv_inspect(spv, words, name, sh->entry, sh->spec, sh->nspec, &info);
  if (!s) s = user_pipeline_create(ctx, spv, words, name, sh, &info, false, VKOCC_AUG_AUTO, &u);
  if (!s) user_pipeline_destroy(&u);
  free(spv);
  return s;
}

vkocc_status vkocc_pipeline_occupancy(vkocc_context *ctx, const vkocc_calibration *cal_in, const vkocc_shader_desc *sh,
                                      const vkocc_probe_options *opt_in, bool use_cache, vkocc_pipeline_result *out) {
  return vkocc_pipeline_occupancy_model(ctx, cal_in, sh, opt_in, NULL, NULL, use_cache, out);
}

/* How one measurement runs beyond the caller's options: the augmentation variant (VKOCC_AUG_AUTO resolved by
 * the device) and the written-pipeline rule's raw mode (the register probe). */
typedef struct { uint32_t variant; bool raw; } run_mode;

static vkocc_status occupancy(vkocc_context *ctx, const vkocc_calibration *cal_in, const vkocc_shader_desc *sh,
                              const vkocc_probe_options *opt_in, const vkocc_derived *model_d,
                              const vkocc_register_model *model_r, bool use_cache, run_mode mode,
                              vkocc_pipeline_result *out);

vkocc_status vkocc_pipeline_occupancy_model(vkocc_context *ctx, const vkocc_calibration *cal_in,
                                            const vkocc_shader_desc *sh, const vkocc_probe_options *opt_in,
                                            const vkocc_derived *model_d, const vkocc_register_model *model_r,
                                            bool use_cache, vkocc_pipeline_result *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  run_mode mode = {VKOCC_AUG_AUTO, false};
  vkocc_status s = compile_aug_parse(opt_in ? opt_in->augmentation : NULL, &mode.variant);
  return s ? s : occupancy(ctx, cal_in, sh, opt_in, model_d, model_r, use_cache, mode, out);
}

vkocc_status probes_pipeline_occupancy_raw(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_shader_desc *sh,
                                          const vkocc_probe_options *opt, vkocc_pipeline_result *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  run_mode mode = {VKOCC_AUG_AUTO, true};
  vkocc_status s = compile_aug_parse(opt ? opt->augmentation : NULL, &mode.variant);
  return s ? s : occupancy(ctx, cal, sh, opt, NULL, NULL, false, mode, out);
}

static vkocc_status occupancy(vkocc_context *ctx, const vkocc_calibration *cal_in, const vkocc_shader_desc *sh,
                              const vkocc_probe_options *opt_in, const vkocc_derived *model_d,
                              const vkocc_register_model *model_r, bool use_cache, run_mode mode,
                              vkocc_pipeline_result *out) {
  vkocc_probe_options opt = opt_in ? *opt_in : (vkocc_probe_options){0};
  if (sh->unmodified && opt.method && opt.method != VKOCC_METHOD_BISECT)
    return vkocc_fail(VKOCC_ERROR_USAGE, "the unmodified pipeline is measured by dispatch bisection only (method "
                      "%s)", vkocc_method_name(opt.method));
  if (sh->unmodified) opt.method = VKOCC_METHOD_BISECT;
  out->unmodified = sh->unmodified;
  uint32_t *spv;
  size_t words;
  const char *name;
  vkocc_status s = load_module(sh, &spv, &words, &name);
  if (s) return s;
  /* The cheap checks and the cache first: a hit builds no pipeline. The module contract (compile/contract.c)
   * before either: no cached answer for a module the device would refuse. */
  compile_spirv_info info;
  s = compile_spirv_inspect(spv, words, name, sh->entry, sh->spec, sh->nspec, &info);
  if (!s) s = core_module_contract_ctx(ctx, spv, words, name, &info, sh);
  if (s) { free(spv); return s; }
  memcpy(out->wg, info.wg, sizeof out->wg);
  out->wg_size = info.wg[0] * info.wg[1] * info.wg[2];
  out->shared_bytes = info.shared_bytes;
  out->shared_exact = info.shared_exact;
  out->aug_set = info.first_free_set;
  snprintf(out->entry, sizeof out->entry, "%s", info.entry);
  out->key = pipeline_cache_key(&ctx->info, spv, words, sh, &opt, mode.variant);
  if (use_cache && info.shared_bytes <= ctx->info.max_shared_bytes && pipeline_cache_read(out->key, out)) {
    free(spv);
    out->probe.wg_size = out->wg_size;
    out->probe.shared_bytes = out->shared_bytes;
    /* the method, agreement, statistics and the decision on the pipeline as written as the measurement gave them */
    return probes_written_apply(ctx, model_d, model_r, NULL, mode.raw, out);
  }
  user_pipeline u;
  s = user_pipeline_create(ctx, spv, words, name, sh, &info, sh->unmodified, mode.variant, &u);
  if (s || sh->unmodified) free(spv);
  if (s) return s;
  out->descriptors = u.k.refl.nbindings;
  out->push_bytes = u.k.refl.push_bytes;
  out->nstats = u.nstats;
  for (uint32_t i = 0; i < u.nstats; i++) {
    snprintf(out->stats[i].name, sizeof out->stats[i].name, "%s", u.stat_name[i]);
    out->stats[i].value = u.stat_user[i];
    out->stats[i].augmented = u.stat_aug[i];
  }
  if (sh->unmodified) { /* no clock and no calibration: queue timestamps around the user's own dispatches */
    out->probe.wg_size = out->wg_size;
    out->probe.shared_bytes = out->shared_bytes;
    out->probe.method = VKOCC_METHOD_BISECT;
    if (!(s = core_device_exclusive_begin(ctx, "the occupancy bisection"))) {
      s = measure_unmodified(&u, &opt, out);
      core_device_exclusive_end(ctx);
    }
    user_pipeline_destroy(&u);
    if (s) return s;
    out->P = out->probe.P;
    if ((s = probes_written_apply(ctx, model_d, model_r, NULL, mode.raw, out))) return s;
    if (use_cache) pipeline_cache_write(out->key, out);
    return VKOCC_OK;
  }
  vkocc_calibration cal_local;
  const vkocc_calibration *cal = cal_in;
  if (!cal) {
    vkocc_calibrate_options co;
    vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
    if ((s = vkocc_calibrate(ctx, &co, &cal_local))) { user_pipeline_destroy(&u); free(spv); return s; }
    cal = &cal_local;
  }
  /* The probe's measurement, on this pipeline: records come back in the augmentation buffer. */
  probes_session ps = {.ctx = ctx, .max_groups = u.max_groups, .dispatch = user_pipeline_hook, .user = &u};
  ps.rec = u.aug;
  ps.rec.map = (uint32_t *)u.aug.map + VKOCC_AUG_PARAM_WORDS;
  core_kernel none = {0};
  /* vkocc_probe_check_point: the workgroup size is the shader's; its shared bytes are checked above */
  opt.wg_size = out->wg_size;
  opt.shared_bytes = out->shared_bytes;
  if (!opt.method) opt.method = VKOCC_METHOD_BOTH;
  s = probes_measure(&ps, &none, cal, &opt, &out->probe);
  uint32_t measured = u.variant;
  user_pipeline_destroy(&u);
  if (s && measured == VKOCC_AUG_COMPACT && mode.variant == VKOCC_AUG_AUTO &&
      vkocc_last_reason() == VKOCC_REASON_ITERATION_BOUND) {
    /* the compact loop's rounds are shorter than the unrolled one's: where its iteration bound still cuts the
     * sleep, the earlier augmentation measures instead */
    free(spv);
    vkocc_pipeline_result_free(out);
    memset(out, 0, sizeof *out);
    vkocc_clear_error();
    return occupancy(ctx, cal_in, sh, opt_in, model_d, model_r, use_cache, (run_mode){VKOCC_AUG_UNROLLED, mode.raw},
                     out);
  }
  if (s) { free(spv); return s; }
  out->P = out->probe.P;
  /* Where the default augmentation changed a statistic that bounds occupancy, the variants: one that compiles to
   * the written statistics measures the written pipeline's P directly. */
  probes_written_variants wv = {0};
  if (!mode.raw && out->nstats) s = try_variants(ctx, cal, sh, &opt, spv, words, name, &info, measured, out, &wv);
  free(spv);
  if (s) return s;
  /* P of the pipeline as written: the measured one only where the statistics allow (probes/written.c) */
  s = probes_written_apply(ctx, model_d, model_r, &wv, mode.raw, out);
  if (s) return s;
  if (use_cache && out->probe.agree && out->P == out->probe.P &&
      (out->written->evidence == VKOCC_WRITTEN_EQUAL || out->written->evidence == VKOCC_WRITTEN_NO_STATISTICS))
    pipeline_cache_write(out->key, out);
  return VKOCC_OK;
}

void vkocc_pipeline_result_free(vkocc_pipeline_result *r) {
  vkocc_probe_result_free(&r->probe);
  free(r->written);
  r->written = NULL;
}
