/* The register surface (docs/model.md "Registers"): the register probe personality (shaders/registers.comp,
 * `live` values kept live by specialization constant 1 at the workgroup size of constant 0) measured as a
 * user's pipeline is (augmentation, comb), its register count read from the driver's statistics of the very
 * pipeline measured. */
#include "internal.h"
#include "written_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const uint32_t shaders_spv_registers[];
extern const size_t shaders_spv_registers_size;

#define REG_MAX_LIVE 256u

static uint32_t stat_of(const vkocc_pipeline_result *r, int kind) {
  for (uint32_t i = 0; i < r->nstats; i++)
    if (probes_stat_kind(r->stats[i].name) == kind && r->stats[i].augmented > 0)
      return r->stats[i].augmented >= UINT32_MAX ? UINT32_MAX : (uint32_t)r->stats[i].augmented;
  return 0;
}

static vkocc_status one(vkocc_context *ctx, const vkocc_calibration *cal, vkocc_method method, uint32_t wg, uint32_t live,
                        uint32_t hint, vkocc_pipeline_result *r) {
  vkocc_spec_value spec[2] = {{0, wg}, {1, live}};
  vkocc_shader_desc sh = {.spirv = shaders_spv_registers, .spirv_words = shaders_spv_registers_size / 4,
                          .name = "registers.comp (vkocc's register probe)", .spec = spec, .nspec = 2};
  vkocc_probe_options po = {.method = method ? method : VKOCC_METHOD_COMB, .hint = hint};
  /* the augmented pipeline's own P: its statistics are the ones recorded */
  return probes_pipeline_occupancy_raw(ctx, cal, &sh, &po, r);
}

/* The sweep's pipelines built side by side before it is measured point after point (pipeline creation, not the
 * measurement, was most of a fresh sweep: 27 pipelines compiled one after the other). A point that fails here
 * fails again, with its reason, where it is measured. */
typedef struct {
  vkocc_context *ctx;
  const uint32_t *wg, *live;
  uint32_t nlive;
} warm_job;

static void warm_one(void *user, uint32_t i) {
  warm_job *j = user;
  vkocc_spec_value spec[2] = {{0, j->wg[i / j->nlive]}, {1, j->live[i % j->nlive]}};
  vkocc_shader_desc sh = {.spirv = shaders_spv_registers, .spirv_words = shaders_spv_registers_size / 4,
                          .name = "registers.comp (vkocc's register probe)", .spec = spec, .nspec = 2};
  if (probes_pipeline_warm(j->ctx, &sh)) vkocc_clear_error();
}

vkocc_status vkocc_register_surface_measure(vkocc_context *ctx, const vkocc_calibration *cal,
                                            const vkocc_register_surface_options *o, vkocc_register_point **points,
                                            uint32_t *count) {
  vkocc_clear_error();
  *points = NULL;
  *count = 0;
  const vkocc_device_info *d = &ctx->info;
  if (!ctx->exec_props)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "registers: %s offers no pipeline statistics "
                      "(VK_KHR_pipeline_executable_properties): the register axis is unknown", d->name);
  static const uint32_t def_wg[] = {64, 128, 256, 512, 768, 1024};
  uint32_t maxwg = vkocc_device_max_wg_size(d), nwg = 0, nlive = 0;
  uint32_t *wg = util_xmalloc((VKOCC_ARRAY_LEN(def_wg) + (o && o->wg_sizes ? o->wg_count : 0) + 1) * sizeof *wg);
  uint32_t *live = util_xmalloc(((o && o->live ? o->live_count : 0) + 40) * sizeof *live);
  if (o && o->wg_sizes) {
    for (uint32_t i = 0; i < o->wg_count; i++) {
      if (o->wg_sizes[i] == 0 || o->wg_sizes[i] > maxwg) {
        free(wg), free(live);
        return vkocc_fail(VKOCC_ERROR_USAGE, "registers: workgroup size %u is outside 1..%u of %s", o->wg_sizes[i],
                          maxwg, d->name);
      }
      wg[nwg++] = o->wg_sizes[i];
    }
  } else {
    for (uint32_t i = 0; i < VKOCC_ARRAY_LEN(def_wg); i++)
      if (def_wg[i] <= maxwg) wg[nwg++] = def_wg[i];
  }
  if (o && o->live) {
    for (uint32_t i = 0; i < o->live_count; i++) {
      if (o->live[i] > REG_MAX_LIVE) {
        free(wg), free(live);
        return vkocc_fail(VKOCC_ERROR_USAGE, "registers: %u live values asked for; the register probe keeps 0..%u",
                          o->live[i], REG_MAX_LIVE);
      }
      live[nlive++] = o->live[i];
    }
  } else {
    for (uint32_t v = 0; v <= REG_MAX_LIVE; v += 8) live[nlive++] = v;
  }
  vkocc_calibration cal_local;
  if (!cal) {
    vkocc_calibrate_options co;
    vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
    vkocc_status s = vkocc_calibrate(ctx, &co, &cal_local);
    if (s) { free(wg), free(live); return s; }
    cal = &cal_local;
  }
  uint32_t total = nwg * nlive, n = 0;
  warm_job job = {.ctx = ctx, .wg = wg, .live = live, .nlive = nlive};
  util_parallel_for(total, 0, warm_one, &job);
  vkocc_register_point *pts = util_xcalloc(total + 1, sizeof *pts);
  vkocc_status s = VKOCC_OK;
  for (uint32_t a = 0; a < nwg && !s; a++) {
    uint32_t hint = 0;
    for (uint32_t b = 0; b < nlive && !s; b++) {
      vkocc_pipeline_result r;
      s = one(ctx, cal, o ? o->method : 0, wg[a], live[b], hint, &r);
      if (s) {
        s = vkocc_fail(s, "registers: wg %u, %u live values: %s", wg[a], live[b], vkocc_last_error());
        break;
      }
      uint32_t regs = stat_of(&r, VKOCC_STAT_REGISTERS);
      if (!regs) {
        char names[256] = "";
        for (uint32_t i = 0; i < r.nstats; i++)
          snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", r.stats[i].name);
        vkocc_pipeline_result_free(&r);
        s = vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "registers: %s reports no register count among its pipeline statistics "
                       "(%s): the register axis is unknown", d->name, names[0] ? names : "none");
        break;
      }
      pts[n++] = (vkocc_register_point){.wg_size = wg[a], .registers = regs,
                                        .shared_bytes = stat_of(&r, VKOCC_STAT_SHARED), .P = r.probe.P, .requested = live[b]};
      hint = r.probe.P;
      vkocc_pipeline_result_free(&r);
      if (o && o->progress) o->progress(o->user, "registers", n, total);
    }
  }
  free(wg), free(live);
  if (s) { free(pts); return s; }
  *points = pts;
  *count = n;
  return VKOCC_OK;
}

