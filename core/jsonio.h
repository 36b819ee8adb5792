/* JSON at the edges: conversions of the library's structs (jansson). Internal to vkocc and its CLI. */
#ifndef VKOCC_JSONIO_H
#define VKOCC_JSONIO_H
#include "vkocc.h"
#include <jansson.h>

json_t *vkocc_device_info_json(const vkocc_device_info *d);
json_t *vkocc_linfit_json(const vkocc_linfit *f);
/* The device's "vendor_reported" object (written only when source is not empty) and its reader. */
json_t *vkocc_vendor_reported_json(const vkocc_vendor_reported *v);
vkocc_status vkocc_vendor_reported_from_json(json_t *o, const char *file, const char *path,
                                             vkocc_vendor_reported *v);
json_t *vkocc_calibration_json(const vkocc_calibration *c);
json_t *vkocc_probe_result_json(const vkocc_probe_result *r);
json_t *vkocc_intervals_json(const vkocc_interval *iv, uint32_t n);
/* Writes a JSON document through a temporary file and a rename (path "-" = stdout). */
vkocc_status vkocc_json_write(json_t *doc, const char *path);
#endif

/* Typed readers: on a missing (when required) or mistyped member they fail with
 * "FILE: PATH.KEY: expected ..." and VKOCC_ERROR_USAGE. Absent optional members leave *out as is. */
vkocc_status vkocc_json_u32(json_t *obj, const char *key, const char *file, const char *path, bool required,
                            uint32_t *out);
vkocc_status vkocc_json_f64(json_t *obj, const char *key, const char *file, const char *path, bool required,
                            double *out);
vkocc_status vkocc_json_str(json_t *obj, const char *key, const char *file, const char *path, bool required,
                            char *out, size_t len);
vkocc_status vkocc_json_bool(json_t *obj, const char *key, const char *file, const char *path, bool required,
                             bool *out);
/* Loads a JSON file, checking its "schema" is NAME/1. */
vkocc_status vkocc_json_load(const char *file, const char *name, json_t **doc);
/* Reads the device object written by vkocc_device_info_json. */
vkocc_status vkocc_device_info_from_json(json_t *o, const char *file, const char *path, vkocc_device_info *d);
json_t *vkocc_surface_json(const vkocc_surface *s);
vkocc_status vkocc_surface_from_json(json_t *o, const char *file, const char *path, vkocc_surface *s);
json_t *vkocc_derived_json(const vkocc_derived *d, const vkocc_surface *s);
/* The "vendor_reported" object of surface and fingerprint documents: measured vs reported SM count and
 * subgroups per SM (NULL when the device reports nothing). Never part of the cluster ID. */
json_t *vkocc_vendor_check_json(const vkocc_vendor_check *c, const char *source);
/* The normalized part of a fingerprint document (canonical grid, values, sources, cluster ID). */
json_t *vkocc_fingerprint_json(const vkocc_fingerprint *fp);
