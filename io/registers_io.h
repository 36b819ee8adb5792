/* The register surface document (schema vkocc.registers/1): the points P over workgroup size x registers,
 * the device's other limits the register model was fitted with, and the register model; also where the
 * CLI and vkocc_pipeline_occupancy find a device's register model ($XDG_CACHE_HOME/vkocc). Internal. */
#ifndef VKOCC_REGISTERS_IO_H
#define VKOCC_REGISTERS_IO_H
#include "io.h"

/* VKOCC_DOC_REGISTERS: io.h */

json_t *vkocc_register_model_json(const vkocc_register_model *m);
/* Reads "register_model"; a model with "known": false reads as unknown (out->known false). */
vkocc_status vkocc_register_model_from_json(json_t *o, const char *file, const char *path, vkocc_register_model *m);
json_t *vkocc_register_points_json(const vkocc_register_point *p, uint32_t n);

/* A whole register document (NULL base/model: left out). */
json_t *vkocc_register_document(const vkocc_device_info *dev, const vkocc_register_point *p, uint32_t n,
                                const vkocc_derived *base, const vkocc_register_model *m);

typedef struct vkocc_register_doc {
  vkocc_device_info device;
  bool has_device;
  vkocc_register_point *points; /* malloc'd */
  uint32_t count;
  vkocc_derived base;
  bool has_base;
  vkocc_register_model model;   /* known false when absent or unknown */
} vkocc_register_doc;

/* Reads a register document: errors (VKOCC_ERROR_USAGE) name the file and JSON path, also for a point that
 * repeats (wg_size, registers, shared_bytes) with another P (conflicting points) and for a document without
 * points. */
vkocc_status vkocc_register_doc_load(const char *path, vkocc_register_doc *out);
void vkocc_register_doc_free(vkocc_register_doc *d);

/* $XDG_CACHE_HOME/vkocc/registers-UUID-DRIVER.json ("" without a cache directory); the register file is the
 * device's, not a queue family's. */
void vkocc_register_cache_path(const vkocc_device_info *d, char *out, size_t len);
/* The cached register model of the device: true when a document with a known model is there. */
bool vkocc_register_model_from_cache(const vkocc_device_info *d, vkocc_register_model *m);
/* The cache entry is sealed (core/cache.c's vkocc_cache_doc_write) with vkocc_cache_key(d, "registers"): the
 * device, driver, queue family, driver environment and vkocc's version; an edited, foreign or unsealed file
 * is a miss. vkocc_register_doc_from_cache: the whole cached document (free it), false on a miss. */
struct json_t;
vkocc_status vkocc_register_cache_store(const vkocc_device_info *d, struct json_t *doc);
bool vkocc_register_doc_from_cache(const vkocc_device_info *d, vkocc_register_doc *out);
#endif
