/* The register surface document (schema vkocc.registers/1): the points P over workgroup size x registers,
 * the device's other limits the register model was fitted with, and the register model. Internal: the points'
 * JSON; the document's writer and reader, the model's, and the cache are public (include/vkocc.h). */
#ifndef VKOCC_REGISTERS_IO_H
#define VKOCC_REGISTERS_IO_H
#include "io.h"

/* VKOCC_DOC_REGISTERS: io.h */

/* vkocc_register_model_json / _from_json and the whole document, vkocc_register_document: include/vkocc.h */
json_t *io_register_points_json(const vkocc_register_point *p, uint32_t n);

/* vkocc_register_doc, its reader, the cache path, the cached model and document and vkocc_register_cache_store:
 * include/vkocc.h. The cache entry is sealed (util/cache.c's util_cache_doc_write) with util_cache_key_any_family(d,
 * "registers"): the device, driver, driver environment and vkocc's version, not the queue family (the register file
 * is the same on every family; its document's base limits are the measuring family's); an edited, foreign or
 * unsealed file is a miss. */
#endif
