/* Generic JSON helpers (jansson), internal to vkocc and its CLI. Documents (surface, fingerprint, probe,
 * calibration, ...) are read and written in io/ (io.h); nothing here knows a vkocc struct. */
#ifndef VKOCC_JSONIO_H
#define VKOCC_JSONIO_H
#include "vkocc.h"
#include <jansson.h>

/* A JSON number, or null for NaN and infinities (which JSON lacks). */
json_t *util_json_number(double v);
/* The text of a document as every writer writes it (indent 2, 10 significant digits, a final newline),
 * malloc'd; NULL when it cannot be serialized. */
char *util_json_text(json_t *doc);
/* Writes a JSON document through a temporary file and a rename (path "-" = stdout). */
vkocc_status util_json_write(json_t *doc, const char *path);

/* Typed readers: on a missing (when required) or mistyped member they fail with
 * "FILE: PATH.KEY: expected ..." and VKOCC_ERROR_USAGE. Absent optional members leave *out as is. */
vkocc_status util_json_u32(json_t *obj, const char *key, const char *file, const char *path, bool required,
                            uint32_t *out);
vkocc_status util_json_f64(json_t *obj, const char *key, const char *file, const char *path, bool required,
                            double *out);
vkocc_status util_json_str(json_t *obj, const char *key, const char *file, const char *path, bool required,
                            char *out, size_t len);
vkocc_status util_json_bool(json_t *obj, const char *key, const char *file, const char *path, bool required,
                             bool *out);

/* Every document's "schema" is "NAME/VERSION". Which version each document has is io/document.c's table
 * (io_doc_load, io_doc_check); these generic checks take the versions, or VKOCC_SCHEMA_VERSION. */
#define VKOCC_SCHEMA_VERSION 1
/* Loads a JSON file whose "schema" is NAME/V with oldest <= V <= newest (messages name newest). */
vkocc_status util_json_load_versions(const char *file, const char *name, int oldest, int newest, json_t **doc);
vkocc_status util_json_load(const char *file, const char *name, json_t **doc); /* V = VKOCC_SCHEMA_VERSION */
/* Checks a document's schema member (file names it in messages). */
vkocc_status util_json_check_schema_versions(json_t *doc, const char *file, const char *name, int oldest, int newest);
vkocc_status util_json_check_schema(json_t *doc, const char *file, const char *name); /* V = VKOCC_SCHEMA_VERSION */
#endif
