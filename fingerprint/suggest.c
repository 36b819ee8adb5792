/* Per-limit counts at one point and the workgroup-size suggestion (the counterpart of
 * cudaOccupancyMaxPotentialBlockSize), both from derived limits: no device needed. */
#include "util.h"
#include <string.h>

void vkocc_limits_per_sm_compute(const vkocc_derived *d, uint32_t wg, uint32_t shared, vkocc_limits_per_sm *out) {
  memset(out, 0, sizeof *out);
  if (wg == 0) wg = 1;
  uint32_t sg = d->subgroup_size ? d->subgroup_size : 1;
  uint32_t k = wg / sg + (wg % sg != 0); /* subgroups per workgroup */
  out->workgroup_slots = d->wg_per_sm;
  out->subgroup_slots = d->subgroups_per_sm / k;
  out->threads = d->threads_per_sm / wg;
  /* as the model (vkocc_occupancy_compute): shared memory limits only once some point showed it binding;
   * before that M is only a lower bound */
  out->shared_memory = shared > 0 && d->shared_bound_seen && d->shared_per_sm ? d->shared_per_sm / shared
                       : shared > 0 && d->shared_bound_seen ? 0 : VKOCC_NO_LIMIT;
  out->registers = VKOCC_NO_LIMIT; /* Vulkan does not report a pipeline's registers portably */
  uint32_t m = out->workgroup_slots;
  if (out->subgroup_slots < m) m = out->subgroup_slots;
  if (out->threads < m) m = out->threads;
  if (out->shared_memory < m) m = out->shared_memory;
  out->wg_per_sm = m;
  out->binding = (out->workgroup_slots == m ? VKOCC_LIMIT_WORKGROUPS : 0) |
                 (out->subgroup_slots == m ? VKOCC_LIMIT_SUBGROUPS : 0) |
                 (out->shared_memory == m ? VKOCC_LIMIT_SHARED : 0);
}

vkocc_status vkocc_suggest_wg_size(const vkocc_derived *d, vkocc_shared_fn shared, void *user, uint32_t max_wg_size,
                                   uint32_t max_shared_bytes, vkocc_wg_suggestion *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  if (!d || !d->wg_per_sm || !d->subgroups_per_sm)
    return vkocc_fail(VKOCC_ERROR_USAGE, "workgroup-size suggestion: no derived limits (workgroups and subgroups "
                      "per SM must be known)");
  vkocc_derived dd = *d;
  if (!dd.sm_count) dd.sm_count = 1; /* values per SM only: the suggestion does not depend on the SM count */
  uint32_t sg = d->subgroup_size ? d->subgroup_size : 1;
  uint64_t maxwg = max_wg_size ? max_wg_size : d->threads_per_sm;
  if (maxwg > VKOCC_MAX_WG_SIZE) maxwg = VKOCC_MAX_WG_SIZE;
  bool found = false;
  for (uint64_t w = sg; w <= maxwg; w += sg) {
    uint32_t sh = shared ? shared(user, (uint32_t)w) : 0;
    if (sh == VKOCC_NO_LIMIT || (max_shared_bytes && sh > max_shared_bytes)) continue;
    out->candidates++;
    vkocc_occupancy oc;
    vkocc_occupancy_compute(&dd, (uint32_t)w, sh, &oc);
    if (oc.wg_per_sm == 0) continue; /* cannot run at all */
    /* highest occupancy (threads per SM); ties to the larger size (ascending order, >=) */
    if (!found || oc.threads_per_sm >= out->occupancy.threads_per_sm) {
      found = true;
      out->wg_size = (uint32_t)w;
      out->shared_bytes = sh;
      out->occupancy = oc;
    }
  }
  if (!found)
    return vkocc_fail(VKOCC_ERROR_USAGE, "workgroup-size suggestion: none of %u candidate sizes (multiples of %u up "
                      "to %llu) fits the limits with its shared memory", out->candidates, sg, (unsigned long long)maxwg);
  vkocc_limits_per_sm_compute(&dd, out->wg_size, out->shared_bytes, &out->limits);
  if (!d->sm_count) out->occupancy.wgs = out->occupancy.subgroups = out->occupancy.threads = 0; /* unknown */
  return VKOCC_OK;
}
