/* Internal to libvkocc: the pure models' calls that other rooms use beyond include/vkocc.h (derive.c, normalize.c).
 * No Vulkan header: the models see points and limits only. */
#ifndef VKOCC_MODEL_H
#define VKOCC_MODEL_H
#include "vkocc.h"

/* derive.c: vkocc_derive with the SM count given (sms > 0), e.g. 1 for values that are already per SM. */
vkocc_status fingerprint_derive_fixed(const vkocc_surface_point *pt, uint32_t n, uint32_t sg, uint32_t sms,
                                vkocc_derived *out);

/* normalize.c: the cluster ID of recipe c1 (docs/fingerprint.md): fingerprints written before recipe c2 still read. */
void fingerprint_cluster_id_c1(const vkocc_fingerprint *fp, char out[24]);
/* The ID of fp's normalized surface under another recipe: c1 -> c2, c2 -> c1, c3 -> c2. */
void fingerprint_cluster_id_other(const vkocc_fingerprint *fp, char out[24]);
/* The canonical text recipe c2 hashes (the occupancy class; recipe c3 hashes it too); returns its length. */
#define VKOCC_OCCUPANCY_TEXT 512
size_t fingerprint_occupancy_text(const vkocc_fingerprint *fp, char *out, size_t len);
/* The normalized surfaces' distance alone (0..1; 1 for other subgroup sizes); vkocc_fingerprint_distance adds the
 * signature's. */
double fingerprint_surface_distance(const vkocc_fingerprint *a, const vkocc_fingerprint *b);
/* signature.c: the first signal entering the c3 ID whose repeats fall into different quantization steps (*qa < *qb
 * those steps), -1 when none: such a signature is measured again, then refused. */
int fingerprint_signature_unstable(const vkocc_signature *g, int32_t *qa, int32_t *qb);
#endif
