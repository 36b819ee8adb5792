/* The reader of fingerprint documents (schema vkocc.fingerprint/1) and of the normalized part of a
 * fingerprint embedded in other documents (policy databases, tuning results): one reader over json_t, so
 * nothing dumps and parses again. */
#include "internal.h"
#include "io.h"
#include "model.h" /* fingerprint_derive_fixed, the cluster recipes */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vkocc_status io_fingerprint_from_json(json_t *doc, const char *name, const char *cluster_id, vkocc_fingerprint *fp) {
  memset(fp, 0, sizeof *fp);
  if (!json_is_object(doc)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: expected an object", name);
  vkocc_status s;
  char stored[64] = "";
  if (cluster_id) snprintf(stored, sizeof stored, "%s", cluster_id);
  else if ((s = util_json_str(doc, "cluster_id", name, "$", true, stored, sizeof stored))) return s;
  if ((s = util_json_u32(doc, "subgroup_size", name, "$", true, &fp->subgroup_size))) return s;
  json_t *dev = json_object_get(doc, "device");
  if (json_is_object(dev)) {
    if ((s = util_json_str(dev, "name", name, "$.device", false, fp->device_name, sizeof fp->device_name)) ||
        (s = util_json_str(dev, "driver_info", name, "$.device", false, fp->driver_info, sizeof fp->driver_info)))
      return s;
  }
  json_t *norm = json_object_get(doc, "normalized");
  if (!json_is_object(norm)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.normalized: expected an object", name);
  json_t *wg = json_object_get(norm, "wg_sizes"), *sh = json_object_get(norm, "shared_bytes");
  json_t *vals = json_object_get(norm, "workgroups_per_sm");
  /* the grid must be the canonical one of schema version 1 */
  if (!json_is_array(wg) || json_array_size(wg) != VKOCC_CANON_WG)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.normalized.wg_sizes: expected the %d canonical sizes", name, VKOCC_CANON_WG);
  if (!json_is_array(sh) || json_array_size(sh) != VKOCC_CANON_SHARED)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.normalized.shared_bytes: expected the %d canonical sizes", name,
                      VKOCC_CANON_SHARED);
  for (int a = 0; a < VKOCC_CANON_WG; a++)
    if (!json_is_integer(json_array_get(wg, a)) || json_integer_value(json_array_get(wg, a)) != vkocc_canonical_wg[a])
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.normalized.wg_sizes[%d]: expected %u", name, a, vkocc_canonical_wg[a]);
  for (int b = 0; b < VKOCC_CANON_SHARED; b++)
    if (!json_is_integer(json_array_get(sh, b)) || json_integer_value(json_array_get(sh, b)) != vkocc_canonical_shared[b])
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.normalized.shared_bytes[%d]: expected %u", name, b,
                        vkocc_canonical_shared[b]);
  if (!json_is_array(vals) || json_array_size(vals) != VKOCC_CANON_WG)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.normalized.workgroups_per_sm: expected %d rows", name, VKOCC_CANON_WG);
  for (int a = 0; a < VKOCC_CANON_WG; a++) {
    json_t *row = json_array_get(vals, a);
    if (!json_is_array(row) || json_array_size(row) != VKOCC_CANON_SHARED)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.normalized.workgroups_per_sm[%d]: expected %d values", name, a,
                        VKOCC_CANON_SHARED);
    for (int b = 0; b < VKOCC_CANON_SHARED; b++) {
      json_t *v = json_array_get(row, b);
      if (json_is_null(v)) { fp->normalized[a][b] = NAN; continue; }
      if (!json_is_number(v) || !(json_number_value(v) >= 0) || json_number_value(v) > 1e6)
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.normalized.workgroups_per_sm[%d][%d]: expected a number >= 0 "
                          "or null", name, a, b);
      fp->normalized[a][b] = json_number_value(v);
      fp->source[a][b] = VKOCC_CANON_MEASURED;
    }
  }
  json_t *sig = json_object_get(doc, "signature"); /* schema 3: recipe c3 */
  if (sig && (s = io_signature_from_json(sig, name, &fp->signature))) return s;
  vkocc_fingerprint_set_ids(fp);
  vkocc_cluster_recipe recipe = vkocc_cluster_id_recipe(stored);
  bool c3 = recipe == VKOCC_RECIPE_C3 || recipe == VKOCC_RECIPE_C3_PARTIAL;
  if (recipe == VKOCC_RECIPE_C1) fingerprint_cluster_id_c1(fp, fp->cluster_id); /* written before recipe c2 */
  else if (recipe == VKOCC_RECIPE_C2 && fp->signature.present) /* c2 with a signature beside it: the occupancy ID */
    snprintf(fp->cluster_id, sizeof fp->cluster_id, "%s", fp->occupancy_id);
  if (strcmp(stored, fp->cluster_id) != 0) {
    /* which part was edited: where the document's occupancy_id is its normalized surface's, the signature */
    const char *occ = json_string_value(json_object_get(doc, "occupancy_id"));
    if (fp->signature.present && c3 && occ && !strcmp(occ, fp->occupancy_id))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.signature: edited: the cluster ID \"%s\" does not match its "
                        "signature's values (they give %s; the normalized surface matches $.occupancy_id %s)", name,
                        stored, fp->cluster_id, occ);
    if (fp->signature.present && c3)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.cluster_id: \"%s\" does not match its normalized surface and "
                        "signature (%s; the surface alone gives %s%s%s)", name, stored, fp->cluster_id, fp->occupancy_id,
                        occ ? ", $.occupancy_id says " : "", occ ? occ : "");
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.cluster_id: \"%s\" does not match its normalized surface (%s)", name,
                      stored, fp->cluster_id);
  }
  return VKOCC_OK;
}

vkocc_status vkocc_fingerprint_parse(const char *text, size_t len, const char *name, vkocc_fingerprint *fp) {
  vkocc_clear_error();
  json_error_t e;
  json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
  if (!doc) return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%d:%d: invalid JSON: %s", name, e.line, e.column, e.text);
  vkocc_status s = VKOCC_OK;
  if (!json_is_object(doc)) s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $: expected a JSON object", name);
  else s = io_doc_check(doc, name, VKOCC_DOC_FINGERPRINT);
  if (!s) s = io_fingerprint_from_json(doc, name, NULL, fp);
  json_decref(doc);
  return s;
}

vkocc_status vkocc_fingerprint_load(const char *path, vkocc_fingerprint *fp) {
  vkocc_clear_error();
  void *data;
  size_t len;
  vkocc_status s = util_read_file(path, &data, &len);
  if (s) return s;
  s = vkocc_fingerprint_parse(data, len, path, fp);
  free(data);
  return s;
}

uint32_t io_fingerprint_doc_sm_count(json_t *doc) {
  json_t *sm = json_object_get(json_object_get(doc, "derived"), "sm_count");
  return json_is_integer(sm) && json_integer_value(sm) > 0 && json_integer_value(sm) <= UINT32_MAX
             ? (uint32_t)json_integer_value(sm) : 0;
}
