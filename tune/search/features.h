/* Internal to libvkocc: what the device model says about a configuration before it runs, as search features
 * and as the prior of initial designs (tune_space.features, tune_space.prior_weight; docs/tune.md,
 * "Occupancy as search information"). For the tuning harness and for replay alike. */
#ifndef VKOCC_TUNE_FEATURES_H
#define VKOCC_TUNE_FEATURES_H
#include "internal.h"

#define TUNE_OCC_NFEATURES 5
/* "occupancy", "wg_per_sm", "limit", "P", "waves" */
extern const char *const tune_occ_feature_names[TUNE_OCC_NFEATURES];

/* For n configurations of workgroup size wg[i] (0: unknown), shared bytes shared[i] and groups[i] workgroups
 * launched (groups NULL or 0: unknown), from the derived per-SM limits d (vkocc_limits_per_sm_compute):
 * features[i * 5 + j] = occupancy (resident threads / threads per SM; NAN where the fingerprint never saw the
 * subgroup limit bind, so threads per SM is unknown), resident workgroups per SM, the limiting resource
 * (vkocc_limit bits), P (resident workgroups x SMs), waves (groups / P); NAN where unknown. weights[i]:
 * occupancy^4, a quarter of that where waves < 0.5 (more than half the device idle), 1 where occupancy is
 * unknown. */
void tune_occupancy_features(const vkocc_derived *d, uint32_t n, const uint32_t *wg, const uint32_t *shared,
                             const uint32_t *groups, double *features, double *weights);
#endif
