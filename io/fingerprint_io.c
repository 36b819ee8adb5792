/* Fingerprint documents (schema vkocc.fingerprint/1, docs/fingerprint.schema.json): the normalized part,
 * the whole document of a measurement, and the reader of the normalized part. */
#include "internal.h"
#include "io.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *source_name[] = {"unrunnable", "measured", "model", "model-replaced-noisy"};

json_t *vkocc_fingerprint_json(const vkocc_fingerprint *fp) {
  json_t *wg = json_array(), *sh = json_array(), *vals = json_array(), *src = json_array();
  for (int b = 0; b < VKOCC_CANON_SHARED; b++) json_array_append_new(sh, json_integer(vkocc_canonical_shared[b]));
  for (int a = 0; a < VKOCC_CANON_WG; a++) {
    json_array_append_new(wg, json_integer(vkocc_canonical_wg[a]));
    json_t *row = json_array(), *srow = json_array();
    for (int b = 0; b < VKOCC_CANON_SHARED; b++) {
      double v = fp->normalized[a][b];
      json_array_append_new(row, isnan(v) ? json_null() : json_real(round(v * 1000) / 1000));
      json_array_append_new(srow, json_string(source_name[fp->source[a][b] < 4 ? fp->source[a][b] : 0]));
    }
    json_array_append_new(vals, row);
    json_array_append_new(src, srow);
  }
  return json_pack("{s:s, s:I, s:{s:o, s:o, s:o, s:o}}", "cluster_id", fp->cluster_id, "subgroup_size",
                   (json_int_t)fp->subgroup_size, "normalized", "wg_sizes", wg, "shared_bytes", sh,
                   "workgroups_per_sm", vals, "source", src);
}

json_t *vkocc_vendor_check_json(const vkocc_vendor_check *c, const char *source) {
  if (!c->available) return NULL;
  return json_pack("{s:s, s:{s:I, s:I, s:b}, s:{s:I, s:I, s:b, s:b}}", "source", source, "sm_count", "reported",
                   (json_int_t)c->sm_reported, "measured", (json_int_t)c->sm_measured, "agree", c->sm_agree,
                   "subgroups_per_sm", "reported", (json_int_t)c->subgroups_reported, "measured",
                   (json_int_t)c->subgroups_measured, "measured_is_lower_bound", c->subgroups_measured_is_lower_bound,
                   "agree", c->subgroups_agree);
}

static vkocc_status parse_doc(json_t *doc, const char *name, vkocc_fingerprint *fp) {
  memset(fp, 0, sizeof *fp);
  vkocc_status s;
  char stored[64] = "";
  if ((s = vkocc_json_str(doc, "cluster_id", name, "$", true, stored, sizeof stored)) ||
      (s = vkocc_json_u32(doc, "subgroup_size", name, "$", true, &fp->subgroup_size)))
    return s;
  json_t *dev = json_object_get(doc, "device");
  if (json_is_object(dev)) {
    if ((s = vkocc_json_str(dev, "name", name, "$.device", false, fp->device_name, sizeof fp->device_name)) ||
        (s = vkocc_json_str(dev, "driver_info", name, "$.device", false, fp->driver_info, sizeof fp->driver_info)))
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
  if (!strncmp(stored, "c1-", 3)) vkocc_cluster_id_c1(fp, fp->cluster_id); /* written before recipe c2 */
  else vkocc_cluster_id(fp, fp->cluster_id);
  if (strcmp(stored, fp->cluster_id) != 0)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.cluster_id: \"%s\" does not match its normalized surface (%s)", name,
                      stored, fp->cluster_id);
  return VKOCC_OK;
}

vkocc_status vkocc_fingerprint_parse(const char *text, size_t len, const char *name, vkocc_fingerprint *fp) {
  vkocc_clear_error();
  json_error_t e;
  json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
  if (!doc) return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%d:%d: invalid JSON: %s", name, e.line, e.column, e.text);
  vkocc_status s = VKOCC_OK;
  if (!json_is_object(doc)) s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $: expected a JSON object", name);
  else s = vkocc_json_check_schema(doc, name, VKOCC_DOC_FINGERPRINT);
  if (!s) s = parse_doc(doc, name, fp);
  json_decref(doc);
  return s;
}

vkocc_status vkocc_fingerprint_load(const char *path, vkocc_fingerprint *fp) {
  vkocc_clear_error();
  void *data;
  size_t len;
  vkocc_status s = vkocc_read_file(path, &data, &len);
  if (s) return s;
  s = vkocc_fingerprint_parse(data, len, path, fp);
  free(data);
  return s;
}

void vkocc_fingerprint_v2(json_t *doc, const vkocc_fingerprint *fp, const vkocc_surface *s, const vkocc_derived *d);

json_t *vkocc_fingerprint_document(const vkocc_fingerprint *fp, const vkocc_surface *s, const vkocc_calibration *cal,
                                   const vkocc_derived *d, double elapsed_ms) {
  char when[32];
  time_t now = time(NULL);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  json_t *doc = vkocc_doc_stamp(vkocc_fingerprint_json(fp), VKOCC_DOC_FINGERPRINT);
  json_object_set_new(doc, "device", vkocc_device_info_json(&s->device));
  json_object_set_new(doc, "calibration", vkocc_calibration_json(cal));
  json_object_set_new(doc, "derived", vkocc_derived_json(d, s));
  vkocc_vendor_check vc;
  vkocc_vendor_check_compute(&s->device.vendor, d, &vc);
  json_t *vcj = vkocc_vendor_check_json(&vc, s->device.vendor.source); /* a cross-check, not in the cluster ID */
  if (vcj) json_object_set_new(doc, "vendor_reported", vcj);
  json_t *surf = vkocc_surface_json(s);
  json_object_del(surf, "device");
  json_object_set_new(doc, "surface", surf);
  json_object_set_new(doc, "measurement", json_pack("{s:s, s:s, s:I, s:s, s:f}", "date", when, "method",
                                                    vkocc_method_name(s->method), "repeat", (json_int_t)s->repeat,
                                                    "grid", "canonical", "elapsed_ms", elapsed_ms));
  vkocc_fingerprint_v2(doc, fp, s, d); /* io/fingerprint_v2.c: schema 2, the shared capacity, registers */
  return doc;
}

json_t *vkocc_fingerprint_details_json(const vkocc_fingerprint_details *details) {
  return details ? (json_t *)details->document : NULL;
}

void vkocc_fingerprint_details_free(vkocc_fingerprint_details *d) {
  if (!d) return;
  json_decref((json_t *)d->document);
  d->document = NULL;
}

vkocc_status vkocc_fingerprint_save(const vkocc_fingerprint *fp, const vkocc_fingerprint_details *details,
                                    const char *path) {
  vkocc_clear_error();
  if (!fp || !path || !*path) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_fingerprint_save: no fingerprint or no path");
  json_t *doc = vkocc_fingerprint_details_json(details);
  if (doc) {
    json_incref(doc);
  } else { /* the normalized part, with what names the device */
    doc = vkocc_doc_stamp(vkocc_fingerprint_json(fp), VKOCC_DOC_FINGERPRINT);
    json_object_set_new(doc, "device", json_pack("{s:s, s:s}", "name", fp->device_name, "driver_info", fp->driver_info));
    vkocc_fingerprint_v2(doc, fp, NULL, NULL);
  }
  vkocc_status s = vkocc_json_write(doc, path);
  json_decref(doc);
  return s;
}
