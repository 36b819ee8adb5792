/* Fingerprint documents of schema version 2: cluster recipe c2 (docs/fingerprint.md), the shared capacity per SM
 * of the queue family measured on as a recorded attribute (not part of the ID), and the device's register model
 * where `vkocc surface --registers` measured it (the register axis; absent where unknown). Version 1 documents
 * (recipe c1) are still read. */
#include "internal.h"
#include "registers_io.h"
#include <string.h>

void vkocc_fingerprint_v2(json_t *doc, const vkocc_fingerprint *fp, const vkocc_surface *s, const vkocc_derived *d);

void vkocc_fingerprint_v2(json_t *doc, const vkocc_fingerprint *fp, const vkocc_surface *s, const vkocc_derived *d) {
  /* the schema (version 2) is the table's (io/document.c); a c1 fingerprint read back keeps its c1 ID */
  json_object_set_new(doc, "cluster_recipe", json_string(strncmp(fp->cluster_id, "c1-", 3) ? "c2" : "c1"));
  if (s && d && s->has_device) {
    const vkocc_device_info *dev = &s->device;
    json_t *fam = json_pack("{s:o, s:s, s:I, s:o, s:b}", "queue_family",
                            dev->compute_queue_family == UINT32_MAX ? json_null() : json_integer(dev->compute_queue_family),
                            "kind", vkocc_queue_kind_name(dev->compute_queue_flags), "shared_bytes_per_sm",
                            (json_int_t)d->shared_per_sm, "shared_bytes_per_sm_max",
                            d->shared_per_sm_max == UINT32_MAX ? json_null() : json_integer(d->shared_per_sm_max),
                            "shared_limit_seen", d->shared_bound_seen);
    json_object_set_new(doc, "shared_capacity", json_pack("[o]", fam));
    vkocc_register_model m;
    if (vkocc_register_model_from_cache(dev, &m)) json_object_set_new(doc, "register_model", vkocc_register_model_json(&m));
  }
}
