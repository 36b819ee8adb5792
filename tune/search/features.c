/* Occupancy features of configurations from the device model (features.h). */
#include "features.h"
#include <math.h>

const char *const tune_occ_feature_names[TUNE_OCC_NFEATURES] = {"occupancy", "wg_per_sm", "limit", "P", "waves"};

void tune_occupancy_features(const vkocc_derived *d, uint32_t n, const uint32_t *wg, const uint32_t *shared,
                             const uint32_t *groups, double *features, double *weights) {
  for (uint32_t c = 0; c < n; c++) {
    double *f = features + (size_t)c * TUNE_OCC_NFEATURES;
    for (uint32_t j = 0; j < TUNE_OCC_NFEATURES; j++) f[j] = NAN;
    weights[c] = 1;
    if (!wg[c]) continue;
    vkocc_limits_per_sm lim;
    vkocc_limits_per_sm_compute(d, wg[c], shared ? shared[c] : 0, &lim);
    uint32_t r = lim.wg_per_sm == VKOCC_NO_LIMIT ? 0 : lim.wg_per_sm;
    /* threads per SM is known only where some point of the surface was limited by subgroup slots; else
     * (lavapipe: one workgroup per thread, whatever its size) occupancy as a share of threads is unknown */
    double occ = d->threads_per_sm && d->subgroups_bound_seen ? (double)r * wg[c] / d->threads_per_sm : NAN;
    double P = (double)r * (d->sm_count ? d->sm_count : 1);
    f[0] = occ, f[1] = r, f[2] = lim.binding, f[3] = P;
    f[4] = groups && groups[c] && P > 0 ? groups[c] / P : NAN;
    if (!isnan(occ)) weights[c] = occ * occ * occ * occ * (!isnan(f[4]) && f[4] < 0.5 ? 0.25 : 1);
  }
}
