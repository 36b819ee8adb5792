/* Fingerprint documents (schema vkocc.fingerprint/1, docs/fingerprint.schema.json): the writers of the
 * normalized part and of the whole document of a measurement; the reader is io/fingerprint_read.c. */
#include "internal.h"
#include "io.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *source_name[] = {"unrunnable", "measured", "model", "model-replaced-noisy"};

json_t *io_fingerprint_json(const vkocc_fingerprint *fp) {
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
  json_t *o = json_pack("{s:s, s:I, s:{s:o, s:o, s:o, s:o}}", "cluster_id", fp->cluster_id, "subgroup_size",
                        (json_int_t)fp->subgroup_size, "normalized", "wg_sizes", wg, "shared_bytes", sh,
                        "workgroups_per_sm", vals, "source", src);
  if (fp->signature.present) { /* recipe c3: the occupancy class's own ID beside it, and what was hashed with it */
    char occ[24];
    vkocc_cluster_id(fp, occ);
    json_object_set_new(o, "occupancy_id", json_string(occ));
    json_object_set_new(o, "signature", io_signature_json(&fp->signature));
  }
  return o;
}

void io_fingerprint_v2(json_t *doc, const vkocc_fingerprint *fp, const vkocc_surface *s, const vkocc_derived *d);

json_t *io_fingerprint_document(const vkocc_fingerprint *fp, const vkocc_surface *s, const vkocc_calibration *cal,
                                   const vkocc_derived *d, double elapsed_ms) {
  char when[32];
  util_utc_now(when, sizeof when);
  json_t *doc = vkocc_doc_stamp(io_fingerprint_json(fp), VKOCC_DOC_FINGERPRINT);
  json_object_set_new(doc, "device", vkocc_device_info_json(&s->device));
  json_object_set_new(doc, "calibration", io_calibration_json(cal));
  json_object_set_new(doc, "derived", vkocc_derived_json(d, s));
  vkocc_vendor_check vc;
  vkocc_vendor_check_compute(&s->device.vendor, d, &vc);
  json_t *vcj = io_vendor_check_json(&vc, s->device.vendor.source); /* a cross-check, not in the cluster ID */
  if (vcj) json_object_set_new(doc, "vendor_reported", vcj);
  json_t *surf = io_surface_json(s);
  json_object_del(surf, "device");
  json_object_set_new(doc, "surface", surf);
  json_object_set_new(doc, "measurement", json_pack("{s:s, s:s, s:I, s:s, s:f}", "date", when, "method",
                                                    vkocc_method_name(s->method), "repeat", (json_int_t)s->repeat,
                                                    "grid", "canonical", "elapsed_ms", elapsed_ms));
  io_fingerprint_v2(doc, fp, s, d); /* io/fingerprint_v2.c: the shared capacity, the register axis */
  return doc;
}

vkocc_status vkocc_fingerprint_save(const vkocc_fingerprint *fp, const vkocc_fingerprint_details *details,
                                    const char *path) {
  vkocc_clear_error();
  if (!fp || !path || !*path) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_fingerprint_save: no fingerprint or no path");
  json_t *doc = vkocc_fingerprint_details_json(details);
  if (doc) {
    json_incref(doc);
  } else { /* the normalized part, with what names the device */
    doc = vkocc_doc_stamp(io_fingerprint_json(fp), VKOCC_DOC_FINGERPRINT);
    json_object_set_new(doc, "device", json_pack("{s:s, s:s}", "name", fp->device_name, "driver_info", fp->driver_info));
    io_fingerprint_v2(doc, fp, NULL, NULL);
  }
  vkocc_status s = util_json_write(doc, path);
  json_decref(doc);
  return s;
}
