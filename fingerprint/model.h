/* Internal to libvkocc: the pure models' calls that other rooms use beyond include/vkocc.h (derive.c, normalize.c).
 * No Vulkan header: the models see points and limits only. */
#ifndef VKOCC_MODEL_H
#define VKOCC_MODEL_H
#include "vkocc.h"

/* derive.c: vkocc_derive with the SM count given (sms > 0), e.g. 1 for values that are already per SM. */
vkocc_status vkocc_derive_fixed(const vkocc_surface_point *pt, uint32_t n, uint32_t sg, uint32_t sms,
                                vkocc_derived *out);

/* normalize.c: the cluster ID of recipe c1 (docs/fingerprint.md): fingerprints written before recipe c2 still read. */
void vkocc_cluster_id_c1(const vkocc_fingerprint *fp, char out[24]);
/* The ID of fp's normalized surface under the recipe its cluster_id does not use (c1 <-> c2). */
void vkocc_cluster_id_other(const vkocc_fingerprint *fp, char out[24]);
#endif
