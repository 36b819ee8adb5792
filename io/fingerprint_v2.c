/* Fingerprint documents of schema version 2: cluster recipe c2 (docs/fingerprint.md), the shared capacity per SM
 * of the queue family measured on as a recorded attribute (not part of the ID), and the device's register model
 * where `vkocc surface --registers` measured it (the register axis; absent where unknown). Version 1 documents
 * (recipe c1) are still read. */
#include "internal.h"
#include "registers_io.h"
#include <string.h>

void io_fingerprint_v2(json_t *doc, const vkocc_fingerprint *fp, const vkocc_surface *s, const vkocc_derived *d);

void io_fingerprint_v2(json_t *doc, const vkocc_fingerprint *fp, const vkocc_surface *s, const vkocc_derived *d) {
  /* the schema (version 2) is the table's (io/document.c); a c1 fingerprint read back keeps its c1 ID */
  json_object_set_new(doc, "cluster_recipe",
                      json_string(vkocc_cluster_recipe_name(fp->signature.present ? VKOCC_RECIPE_C3
                                                            : vkocc_cluster_id_recipe(fp->cluster_id) == VKOCC_RECIPE_C1
                                                                ? VKOCC_RECIPE_C1
                                                                : VKOCC_RECIPE_C2)));
  if (s && d && s->has_device) {
    const vkocc_device_info *dev = &s->device;
    json_t *fam = json_pack("{s:o, s:s, s:I, s:o, s:b}", "queue_family",
                            dev->compute_queue_family == UINT32_MAX ? json_null() : json_integer(dev->compute_queue_family),
                            "kind", vkocc_queue_kind_name(dev->compute_queue_flags), "shared_bytes_per_sm",
                            (json_int_t)d->shared_per_sm, "shared_bytes_per_sm_max",
                            d->shared_per_sm_max == UINT32_MAX ? json_null() : json_integer(d->shared_per_sm_max),
                            "shared_limit_seen", d->shared_bound_seen);
    json_t *caps = json_pack("[o]", fam);
    /* the other families of the device with compute, where the cache holds their fingerprint (measured with
     * --queue): on NVIDIA they grant other capacities (100 KiB compute-only, 48 KiB graphics+compute) */
    for (uint32_t q = 0; q < dev->queue_family_count && q < VKOCC_MAX_QUEUE_FAMILIES; q++) {
      if (q == dev->compute_queue_family || !(dev->queue_families[q].flags & 2u /* VK_QUEUE_COMPUTE_BIT */)) continue;
      vkocc_device_info other = *dev;
      other.compute_queue_family = q;
      other.compute_queue_flags = dev->queue_families[q].flags;
      vkocc_fingerprint ofp;
      vkocc_fingerprint_details det;
      if (!vkocc_fingerprint_from_cache(&other, 0, &ofp, &det)) continue;
      const vkocc_derived *od = &det.derived;
      json_array_append_new(caps, json_pack("{s:I, s:s, s:I, s:o, s:b, s:s}", "queue_family", (json_int_t)q, "kind",
                                            vkocc_queue_kind_name(other.compute_queue_flags), "shared_bytes_per_sm",
                                            (json_int_t)od->shared_per_sm, "shared_bytes_per_sm_max",
                                            od->shared_per_sm_max == UINT32_MAX ? json_null()
                                                                                : json_integer(od->shared_per_sm_max),
                                            "shared_limit_seen", od->shared_bound_seen, "from", "cache"));
      vkocc_fingerprint_details_free(&det);
    }
    json_object_set_new(doc, "shared_capacity", caps);
    vkocc_register_model m;
    if (vkocc_register_model_from_cache(dev, &m)) json_object_set_new(doc, "register_model", vkocc_register_model_json(&m));
  }
}
