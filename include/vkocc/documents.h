/* vkocc/documents.h: documents as jansson objects; part of <vkocc.h>. */
#ifndef VKOCC_API_DOCUMENTS_H
#define VKOCC_API_DOCUMENTS_H

#include "common.h"
#include "device.h"
#include "calibrate.h"
#include "probe.h"
#include "surface.h"
#include "registers.h"
#include "fingerprint.h"
#include "pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ documents (JSON through jansson)
 * Every document vkocc writes is a JSON object that starts with "schema": "NAME/VERSION" (the version from the
 * library's one schema table) and "tool_version". The load and save calls above read and write whole files;
 * the calls below hand out and read jansson objects, for a program that composes documents of its own from
 * vkocc's parts (as the vkocc command does) or reads them in memory. This header does not include
 * <jansson.h>: it declares `struct json_t` only, so a program that never touches documents needs no jansson
 * headers. One that does includes <jansson.h> (its json_t is this struct json_t) and links jansson
 * (pkg-config jansson). Returned objects are new references (json_decref them) unless a comment says borrowed;
 * a reader's errors are VKOCC_ERROR_USAGE with a message naming file and the JSON path (path: where o sits,
 * e.g. "$.derived"). */
struct json_t;

/* The names of the documents composed through these calls (each "schema" is NAME/VERSION). */
#define VKOCC_DOC_PROBE "vkocc.probe"                     /* P of one point or of the user's pipeline */
#define VKOCC_DOC_SHADER_SURFACE "vkocc.shader-surface"   /* P of the user's pipeline over varied constants */
#define VKOCC_DOC_CALC "vkocc.calc"                       /* occupancy computed from derived limits */
#define VKOCC_DOC_DEVICES "vkocc.devices"                 /* the device list */
#define VKOCC_DOC_DEVICES_SUMMARY "vkocc.devices-summary" /* one measurement per device, grouped by cluster */
#define VKOCC_DOC_CLUSTERS "vkocc.clusters"               /* fingerprints grouped into clusters */
#define VKOCC_DOC_BARRIER_TEST "vkocc.barrier-test"       /* the device-wide barrier's test */
#define VKOCC_DOC_POLICY_CHOICE "vkocc.policy-choice"     /* the entry a policy selection picked */
#define VKOCC_DOC_TUNE_REPLAY "vkocc.tune-replay"         /* a tuning strategy replayed over recorded results */

/* "NAME/VERSION" of document name, the version the library writes (a thread-local buffer). */
const char *vkocc_doc_schema_string(const char *name);
/* Puts "schema" (NAME/VERSION) and "tool_version" first in doc, its other members after them; returns doc. */
struct json_t *vkocc_doc_stamp(struct json_t *doc, const char *name);
/* A new document holding only its stamp. */
struct json_t *vkocc_doc_new(const char *name);

/* The "device" object of every measurement: identity, driver, limits, queue families, the vendor's report. */
struct json_t *vkocc_device_info_json(const vkocc_device_info *d);
/* The "derived" object: the per-SM limits; s (may be NULL) names each unexplained point with its model P. */
struct json_t *vkocc_derived_json(const vkocc_derived *d, const vkocc_surface *s);
/* Reads a "derived" object (unexplained points are not read back). */
vkocc_status vkocc_derived_from_json(struct json_t *o, const char *file, const char *path, vkocc_derived *d);
/* The "register_model" object; a model that is not known is written as {"known": false}. */
struct json_t *vkocc_register_model_json(const vkocc_register_model *m);
/* Reads a "register_model" object; one with "known": false reads as unknown (m->known false). */
vkocc_status vkocc_register_model_from_json(struct json_t *o, const char *file, const char *path,
                                            vkocc_register_model *m);
/* The "probe" object: the point, the method, P, agreement, the repetitions and the timing of each method. */
struct json_t *vkocc_probe_result_json(const vkocc_probe_result *r);
/* The vkocc.probe document of the user's pipeline (what `vkocc probe --shader --json` prints): the device, the
 * shader (path, entry, workgroup, the constants shader gave), the probe with P as written, the limits against d
 * (NULL: left out), model (how the model was had, e.g. {"derived": "measured"}; NULL or empty: left out), P as
 * written (vkocc_written_json), the register model rm (NULL: unknown) and the driver's statistics. With error
 * (the measurement stood but P as written could not be established): the evidence instead, "P" null and the
 * error, the derived limits d weighed. */
struct json_t *vkocc_pipeline_document(const vkocc_device_info *dev, const vkocc_shader_desc *shader,
                                       const vkocc_pipeline_result *r, const vkocc_derived *d,
                                       const vkocc_register_model *rm, struct json_t *model, const char *error);
/* The decision on P of the pipeline as written (vkocc_pipeline_result.written) as JSON. */
struct json_t *vkocc_written_json(const vkocc_written_answer *w);

/* The whole vkocc.surface document `vkocc surface` writes: the surface with its start-up time (< 0: left out),
 * the calibration, and where derived limits exist (d not NULL) those and the vendor cross-check. */
struct json_t *vkocc_surface_document(const vkocc_surface *s, const vkocc_calibration *cal, const vkocc_derived *d,
                                      double startup_ms);
/* The whole fingerprint document behind details (borrowed: what vkocc_fingerprint_save writes, edits
 * included; NULL without one). */
struct json_t *vkocc_fingerprint_details_json(const vkocc_fingerprint_details *details);
/* The whole vkocc.registers document of a register surface (vkocc_register_doc_load reads it): the device
 * (NULL: left out), the points, the other limits the model was fitted with (base) and where they come from
 * (base_source), the register model (m); NULL members are left out. With vr (NULL: left out) and m: the
 * vendor's report of the device and its register figures beside the model's ("vendor_registers"). */
struct json_t *vkocc_register_document(const vkocc_device_info *dev, const vkocc_register_point *p, uint32_t n,
                                       const vkocc_derived *base, const char *base_source,
                                       const vkocc_register_model *m, const vkocc_vendor_registers *vr);
/* Stores a register document as the device's cache entry (where vkocc_register_doc_from_cache and
 * vkocc_register_model_from_cache find it), sealed with the device's key; VKOCC_ERROR_RUNTIME without a
 * cache directory, else the errors of vkocc_write_file_atomic. */
vkocc_status vkocc_register_cache_store(const vkocc_device_info *d, struct json_t *doc);

#ifdef __cplusplus
}
#endif
#endif
