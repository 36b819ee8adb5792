/* The stamp every document carries: "schema" NAME/VERSION (readers reject other versions) and the
 * "tool_version" that wrote it (the fingerprint cache is reused only by the same version). */
#include "internal.h"
#include "io.h"
#include <stdio.h>

json_t *vkocc_doc_stamp(json_t *doc, const char *name) {
  char schema[96];
  snprintf(schema, sizeof schema, "%s/%d", name, VKOCC_SCHEMA_VERSION);
  /* first in the file, where a reader looks: the members are set again behind the stamp (same object) */
  json_t *rest = json_copy(doc); /* shallow: the values are shared, not copied */
  json_object_del(rest, "schema");
  json_object_del(rest, "tool_version");
  json_object_clear(doc);
  json_object_set_new(doc, "schema", json_string(schema));
  json_object_set_new(doc, "tool_version", json_string(vkocc_version()));
  json_object_update(doc, rest);
  json_decref(rest);
  return doc;
}

json_t *vkocc_doc_new(const char *name) { return vkocc_doc_stamp(json_object(), name); }
