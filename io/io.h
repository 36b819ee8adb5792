/* Every document vkocc reads or writes (docs/fingerprint.md, docs/fingerprint.schema.json): one layer above
 * fingerprint/ and probes/, so that core keeps only generic JSON helpers (core/jsonio.h) and nothing in core
 * calls upward. Internal to vkocc and its CLI. */
#ifndef VKOCC_IO_H
#define VKOCC_IO_H
#include "jsonio.h"
#include "vkocc.h"

/* Document names (the "schema" member is NAME/VKOCC_SCHEMA_VERSION). */
#define VKOCC_DOC_SURFACE "vkocc.surface"
#define VKOCC_DOC_FINGERPRINT "vkocc.fingerprint"
#define VKOCC_DOC_PROBE "vkocc.probe"
#define VKOCC_DOC_RAW_PROBE "vkocc.raw-probe"
#define VKOCC_DOC_CALIBRATION "vkocc.calibration"
#define VKOCC_DOC_CALC "vkocc.calc"
#define VKOCC_DOC_DEVICES "vkocc.devices"
#define VKOCC_DOC_CLUSTERS "vkocc.clusters"
#define VKOCC_DOC_SHADER_SURFACE "vkocc.shader-surface"

/* document.c: the one place a document gets its "schema" (NAME/VKOCC_SCHEMA_VERSION) and "tool_version";
 * vkocc_doc_new starts an empty one. Both return doc. */
json_t *vkocc_doc_stamp(json_t *doc, const char *name);
json_t *vkocc_doc_new(const char *name);

/* device_io.c: the device object and its vendor report */
json_t *vkocc_device_info_json(const vkocc_device_info *d);
vkocc_status vkocc_device_info_from_json(json_t *o, const char *file, const char *path, vkocc_device_info *d);
/* The device's "vendor_reported" object (written only when source is not empty) and its reader. */
json_t *vkocc_vendor_reported_json(const vkocc_vendor_reported *v);
vkocc_status vkocc_vendor_reported_from_json(json_t *o, const char *file, const char *path,
                                             vkocc_vendor_reported *v);

/* measure_io.c: calibration and probe results */
json_t *vkocc_linfit_json(const vkocc_linfit *f);
json_t *vkocc_calibration_json(const vkocc_calibration *c);
json_t *vkocc_probe_result_json(const vkocc_probe_result *r);
json_t *vkocc_intervals_json(const vkocc_interval *iv, uint32_t n);

/* surface_io.c: the surface object, derived limits (writer and reader) */
json_t *vkocc_surface_json(const vkocc_surface *s);
/* The whole vkocc.surface document `surface` writes: stamped, the surface with its start-up time (< 0: left
 * out), the calibration, and where derived limits exist (d non-NULL) those and the vendor cross-check. */
json_t *vkocc_surface_document(const vkocc_surface *s, const vkocc_calibration *cal, const vkocc_derived *d,
                               double startup_ms);
vkocc_status vkocc_surface_from_json(json_t *o, const char *file, const char *path, vkocc_surface *s);
json_t *vkocc_derived_json(const vkocc_derived *d, const vkocc_surface *s);
vkocc_status vkocc_derived_from_json(json_t *o, const char *file, const char *path, vkocc_derived *d);
/* vkocc_surface_load that also takes a fingerprint without its "surface": then *model_only is set, out has
 * no points (only the device, when the file names one) and d holds the file's "derived" limits, else those
 * derived from its normalized surface with d->sm_count 0 (unknown: values per SM). */
vkocc_status vkocc_surface_load_model(const char *path, vkocc_surface *out, vkocc_derived *d, bool *model_only);

/* fingerprint_io.c */
/* The "vendor_reported" object of surface and fingerprint documents: measured vs reported SM count and
 * subgroups per SM (NULL when the device reports nothing). Never part of the cluster ID. */
json_t *vkocc_vendor_check_json(const vkocc_vendor_check *c, const char *source);
/* The normalized part of a fingerprint document (canonical grid, values, sources, cluster ID). */
json_t *vkocc_fingerprint_json(const vkocc_fingerprint *fp);
/* The whole fingerprint document of a measurement, stamped. */
json_t *vkocc_fingerprint_document(const vkocc_fingerprint *fp, const vkocc_surface *s, const vkocc_calibration *cal,
                                   const vkocc_derived *d, double elapsed_ms);
/* fingerprint_cache.c: where vkocc_fingerprint_measure keeps a device's fingerprint ("" without a cache
 * directory): keyed by UUID, driver version, queue family and LP_NUM_THREADS. */
void vkocc_fingerprint_cache_path(const vkocc_device_info *d, char *out, size_t len);
/* The whole document behind details (borrowed; NULL without one). */
json_t *vkocc_fingerprint_details_json(const vkocc_fingerprint_details *details);
#endif
