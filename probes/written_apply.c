/* The device side of the written-pipeline rule (probes/written.c is the pure decision): the statistics of
 * a vkocc_pipeline_result, the per-SM model given or else the device's cached fingerprint and register
 * model, and the answer stored in the result. Called by vkocc_pipeline_occupancy_model once P is measured. */
#include "internal.h"
#include "registers_io.h"
#include "written_internal.h"
#include <stdlib.h>
#include <string.h>

vkocc_status probes_written_apply(vkocc_context *ctx, const vkocc_derived *d, const vkocc_register_model *rm,
                                 const probes_written_variants *variants, bool raw, vkocc_pipeline_result *out) {
  static const probes_written_variants none;
  if (!variants) variants = &none;
  if (out->from_cache && out->written) return VKOCC_OK; /* the measurement's own decision, from its cache entry */
  vkocc_written_answer *a = util_xcalloc(1, sizeof *a);
  free(out->written);
  out->written = a;
  if (out->from_cache) { /* only answers whose statistics were equal (or absent) are cached */
    a->P = a->augmented_P = out->P;
    a->evidence = VKOCC_WRITTEN_CACHED;
    a->confirmed = true;
    snprintf(a->reason, sizeof a->reason, "from the cache of an earlier measurement (%s)", "statistics equal or absent");
    return VKOCC_OK;
  }
  const char *names[24];
  double w[24], g[24];
  uint32_t n = out->nstats < 24 ? out->nstats : 24;
  for (uint32_t i = 0; i < n; i++) names[i] = out->stats[i].name, w[i] = out->stats[i].value, g[i] = out->stats[i].augmented;
  vkocc_written_input in = {.nstats = n, .names = names, .written = w, .augmented = g, .wg_size = out->wg_size,
                            .shared_bytes = out->shared_bytes, .augmented_P = out->P, .derived = d, .registers = rm,
                            .unmodified = out->unmodified, .variant_P = variants->P,
                            .variant = variants->name};
  vkocc_status s = vkocc_written_decide(&in, a);
  if (s && (!d || !rm)) { /* the model was not given: the device's own, from the cache */
    vkocc_fingerprint fp;
    vkocc_fingerprint_details det;
    vkocc_register_model cached_rm;
    bool have_d = !d && vkocc_fingerprint_from_cache(&ctx->info, 0, &fp, &det);
    bool have_rm = !rm && vkocc_register_model_from_cache(&ctx->info, &cached_rm);
    vkocc_derived dd;
    if (have_d) dd = det.derived, vkocc_fingerprint_details_free(&det);
    if (have_d || have_rm) {
      in.derived = d ? d : have_d ? &dd : NULL;
      in.registers = rm ? rm : have_rm ? &cached_rm : NULL;
      s = vkocc_written_decide(&in, a);
    }
  }
  snprintf(a->variants, sizeof a->variants, "%s", variants->tried);
  if (s && raw) { /* the register probe: the augmented pipeline's own P */
    vkocc_clear_error();
    a->P = out->P;
    a->evidence = VKOCC_WRITTEN_NONE;
    return VKOCC_OK;
  }
  if (s) {
    /* the decision's own reason: the cache lookups between it and here clear the library's last error (the tuner
     * said "occupancy: ;" for every configuration of a run given --fingerprint without a register model) */
    const char *reason = a->reason[0] ? a->reason : vkocc_last_error();
    char why[1200];
    if (variants->tried[0]) snprintf(why, sizeof why, "%s; augmentation variants tried: %s", reason, variants->tried);
    else snprintf(why, sizeof why, "%s", reason);
    out->written_needs = a->needs;
    free(out->written);
    out->written = NULL;
    /* the decision's reason too: the cache lookups cleared it, and callers tell this refusal by it (a command
     * measures the per-SM model it lacks and asks again) */
    return vkocc_fail_reason(s, VKOCC_REASON_WRITTEN_UNKNOWN, "%s", why);
  }
  out->P = a->P;
  return VKOCC_OK;
}
