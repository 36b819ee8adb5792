/* Every document vkocc reads or writes (docs/fingerprint.md, docs/fingerprint.schema.json): one layer above
 * fingerprint/ and probes/, so that core keeps only generic JSON helpers (util/jsonio.h) and nothing in core
 * calls upward. Internal to vkocc and its CLI. */
#ifndef VKOCC_IO_H
#define VKOCC_IO_H
#include "jsonio.h"
#include "vkocc.h"

/* Document names (the "schema" member is NAME/VERSION, the version from the table in document.c); those of the
 * documents a client composes itself (VKOCC_DOC_PROBE, _CALC, ...) are public: include/vkocc.h, "documents". */
#define VKOCC_DOC_SURFACE "vkocc.surface"
#define VKOCC_DOC_FINGERPRINT "vkocc.fingerprint"
#define VKOCC_DOC_RAW_PROBE "vkocc.raw-probe"
#define VKOCC_DOC_CALIBRATION "vkocc.calibration"
#define VKOCC_DOC_TUNE_RESULTS "vkocc.tune-results"
#define VKOCC_DOC_POLICY_DB "vkocc.policy-db"
#define VKOCC_DOC_POLICY_TRANSFER "vkocc.policy-transfer"
#define VKOCC_DOC_PIPELINE_CACHE "vkocc.pipeline-cache"
#define VKOCC_DOC_BENCH_PROBE "vkocc.bench-probe"
#define VKOCC_DOC_BENCH_SURFACE "vkocc.bench-surface"
#define VKOCC_DOC_BENCH_BARRIER "vkocc.bench-barrier"
#define VKOCC_DOC_REGISTERS "vkocc.registers" /* the register surface and model (io/registers_io.h) */
/* the seal of a cached document (util/cache.c's util_cache_doc_write / _read): salts its checksum */
#define VKOCC_DOC_CACHE_SEAL "vkocc.cache-seal"

/* document.c: the schema table, one row per document. */
typedef struct io_doc_schema {
  const char *name;   /* VKOCC_DOC_... */
  int version;        /* the version written */
  int oldest;         /* the oldest version read */
  const char *reader; /* what reads it back (NULL: an output for people and scripts) */
  const char *device; /* the member holding the device identity ("device"; NULL: the document names no one device) */
} io_doc_schema;
const io_doc_schema *io_doc_schema_of(const char *name); /* NULL: not in the table */
const io_doc_schema *io_doc_schemas(size_t *n);
/* vkocc_doc_schema_string ("NAME/VERSION" for writers that put "schema" in place themselves), vkocc_doc_stamp
 * and vkocc_doc_new: include/vkocc.h, "documents". */
/* Loads a file / checks a document whose "schema" is NAME with a version the table reads; VKOCC_ERROR_USAGE
 * naming the file and "$.schema" otherwise. */
vkocc_status io_doc_load(const char *file, const char *name, json_t **doc);
vkocc_status io_doc_check(json_t *doc, const char *file, const char *name);

/* device_io.c: the device object (its writer vkocc_device_info_json: include/vkocc.h) and its vendor report */
vkocc_status io_device_info_from_json(json_t *o, const char *file, const char *path, vkocc_device_info *d);
/* The device identity (vkocc_device_identity): the one writer of its short form (tuning results) and the one
 * reader of a document's "device" object in either form (the whole device of a measurement, or the short
 * form, whose "key" is required with need_key and else computed). The SM count changes the key with it. */
json_t *io_device_identity_json(const vkocc_device_identity *id);
vkocc_status io_device_identity_from_json(json_t *o, const char *file, const char *path, bool need_key,
                                             vkocc_device_identity *id);
void io_device_identity_set_sm_count(vkocc_device_identity *id, uint32_t sm_count);
/* device_io.c: the device identity of a stamped document, where the schema table says it lives (a
 * fingerprint's derived SM count included). *has false for a document that names no device (a list of
 * devices, a policy database); VKOCC_ERROR_USAGE for a document the table does not know. */
vkocc_status io_doc_device(json_t *doc, const char *file, vkocc_device_identity *id, bool *has);
/* The device's "vendor_reported" object (written only when source is not empty) and its reader. */
json_t *io_vendor_reported_json(const vkocc_vendor_reported *v);
vkocc_status io_vendor_reported_from_json(json_t *o, const char *file, const char *path,
                                             vkocc_vendor_reported *v);

/* measure_io.c: calibration and probe results (vkocc_probe_result_json: include/vkocc.h) */
json_t *io_linfit_json(const vkocc_linfit *f);
json_t *io_calibration_json(const vkocc_calibration *c);
json_t *io_intervals_json(const vkocc_interval *iv, uint32_t n);

/* surface_io.c: the surface object (the whole document, vkocc_surface_document, and the derived limits'
 * writer and reader, vkocc_derived_json / _from_json: include/vkocc.h, "documents") */
json_t *io_surface_json(const vkocc_surface *s);
vkocc_status io_surface_from_json(json_t *o, const char *file, const char *path, vkocc_surface *s);
/* vkocc_surface_load_model: include/vkocc.h */

/* device_io.c: the "vendor_reported" object of surface and fingerprint documents: measured vs reported SM
 * count and subgroups per SM (NULL when the device reports nothing). Never part of the cluster ID. */
json_t *io_vendor_check_json(const vkocc_vendor_check *c, const char *source);

/* fingerprint_read.c: the normalized part of a fingerprint from an object, a whole document or one embedded
 * in another (a policy database's clusters, tuning results): "cluster_id" (or the one given, as a policy
 * database keys its entries by it), "subgroup_size", "device" (optional), "normalized" on the canonical
 * grid; the cluster ID must match the surface. VKOCC_ERROR_USAGE with messages that start with name
 * ("FILE" or "FILE: $.clusters.ID") and name the JSON path. */
vkocc_status io_fingerprint_from_json(json_t *o, const char *name, const char *cluster_id, vkocc_fingerprint *fp);
/* The derived SM count a fingerprint document holds ($.derived.sm_count), 0 when it holds none. */
uint32_t io_fingerprint_doc_sm_count(json_t *doc);

/* signature_io.c: the architecture signature of fingerprint schema 3 ("signature") and its reader
 * (VKOCC_ERROR_USAGE naming name and the JSON path under $.signature). */
json_t *io_signature_json(const vkocc_signature *g);
vkocc_status io_signature_from_json(json_t *o, const char *name, vkocc_signature *g);

/* fingerprint_io.c */
/* The normalized part of a fingerprint document (canonical grid, values, sources, cluster ID). */
json_t *io_fingerprint_json(const vkocc_fingerprint *fp);
/* The whole fingerprint document of a measurement, stamped. */
json_t *io_fingerprint_document(const vkocc_fingerprint *fp, const vkocc_surface *s, const vkocc_calibration *cal,
                                   const vkocc_derived *d, double elapsed_ms);

/* fingerprint_cache.c (the entry's name, vkocc_fingerprint_from_cache, and the document behind details,
 * vkocc_fingerprint_details_json: include/vkocc.h) */
/* The key a device's entry is sealed with (util/cache.c's util_cache_key, "fingerprint"). */
void io_fingerprint_cache_key(const vkocc_device_info *d, char *out, size_t len);
/* The cache entry at path, when sealed with d's key, whole, and measured with the method asked for (0: any):
 * fp and det filled (det->document: the document), false otherwise. */
bool io_fingerprint_cache_read(const vkocc_device_info *d, const char *path, vkocc_method method,
                                  vkocc_fingerprint *fp, vkocc_fingerprint_details *det);
#endif
