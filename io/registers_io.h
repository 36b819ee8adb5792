/* The register surface document (schema vkocc.registers/1): the points P over workgroup size x registers,
 * the device's other limits the register model was fitted with, and the register model. Internal: the JSON
 * side; the document's reader and the cache are public (include/vkocc.h). */
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

/* vkocc_register_doc, its reader, the cache path and the cached model: include/vkocc.h (registers). */
/* The cache entry is sealed (core/cache.c's vkocc_cache_doc_write) with vkocc_cache_key(d, "registers"): the
 * device, driver, queue family, driver environment and vkocc's version; an edited, foreign or unsealed file
 * is a miss. vkocc_register_doc_from_cache (the whole cached document): include/vkocc.h. */
struct json_t;
vkocc_status vkocc_register_cache_store(const vkocc_device_info *d, struct json_t *doc);
#endif
