/* Generic JSON helpers (jansson): typed readers whose errors name the file and JSON path, a loader that
 * checks a document's schema, and the atomic writer. The documents themselves are read and written in io/. */
#include "jsonio.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *util_json_number(double v) { return isfinite(v) ? json_real(v) : json_null(); } /* NaN/inf are not JSON */

char *util_json_text(json_t *doc) {
  char *dump = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
  if (!dump) return NULL;
  size_t len = strlen(dump);
  char *text = util_xmalloc(len + 2);
  memcpy(text, dump, len);
  free(dump);
  text[len] = '\n';
  text[len + 1] = 0;
  return text;
}

vkocc_status util_json_write(json_t *doc, const char *path) {
  char *text = util_json_text(doc);
  if (!text) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot serialize JSON");
  size_t len = strlen(text);
  vkocc_status s = VKOCC_OK;
  if (strcmp(path, "-") == 0) {
    /* flushed here so a full disk or a closed pipe is reported now, not lost at exit */
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0 || ferror(stdout))
      s = vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot write to standard output: %s", strerror(errno));
  } else {
    s = vkocc_write_file_atomic(path, text, len);
  }
  free(text);
  return s;
}


vkocc_status util_json_u32(json_t *obj, const char *key, const char *file, const char *path, bool required,
                            uint32_t *out) {
  json_t *v = json_object_get(obj, key);
  if (!v || json_is_null(v)) {
    if (!required) return VKOCC_OK;
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: missing (expected a non-negative integer)", file, path, key);
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: expected a non-negative 32-bit integer", file, path, key);
  *out = (uint32_t)json_integer_value(v);
  return VKOCC_OK;
}

vkocc_status util_json_f64(json_t *obj, const char *key, const char *file, const char *path, bool required,
                            double *out) {
  json_t *v = json_object_get(obj, key);
  if (!v || json_is_null(v)) {
    if (!required) return VKOCC_OK;
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: missing (expected a number)", file, path, key);
  }
  if (!json_is_number(v)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: expected a number", file, path, key);
  *out = json_number_value(v);
  return VKOCC_OK;
}

vkocc_status util_json_str(json_t *obj, const char *key, const char *file, const char *path, bool required,
                            char *out, size_t len) {
  json_t *v = json_object_get(obj, key);
  if (!v || json_is_null(v)) {
    if (!required) return VKOCC_OK;
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: missing (expected a string)", file, path, key);
  }
  if (!json_is_string(v)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: expected a string", file, path, key);
  snprintf(out, len, "%s", json_string_value(v));
  return VKOCC_OK;
}

vkocc_status util_json_bool(json_t *obj, const char *key, const char *file, const char *path, bool required,
                             bool *out) {
  json_t *v = json_object_get(obj, key);
  if (!v || json_is_null(v)) {
    if (!required) return VKOCC_OK;
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: missing (expected true or false)", file, path, key);
  }
  if (!json_is_boolean(v)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: expected true or false", file, path, key);
  *out = json_is_true(v);
  return VKOCC_OK;
}

vkocc_status util_json_load_versions(const char *file, const char *name, int oldest, int newest, json_t **doc) {
  json_error_t e;
  void *text;
  size_t len;
  vkocc_status rs = util_read_file(file, &text, &len); /* names a directory or an unreadable file as such */
  if (rs) { *doc = NULL; return rs; }
  *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
  free(text);
  if (!*doc) {
    if (e.line <= 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s", file, e.text);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%d:%d: invalid JSON: %s", file, e.line, e.column, e.text);
  }
  if (!json_is_object(*doc)) {
    json_decref(*doc);
    *doc = NULL;
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $: expected a JSON object", file);
  }
  vkocc_status s = util_json_check_schema_versions(*doc, file, name, oldest, newest);
  if (s) { json_decref(*doc); *doc = NULL; }
  return s;
}

vkocc_status util_json_load(const char *file, const char *name, json_t **doc) {
  return util_json_load_versions(file, name, VKOCC_SCHEMA_VERSION, VKOCC_SCHEMA_VERSION, doc);
}

vkocc_status util_json_check_schema_versions(json_t *doc, const char *file, const char *name, int oldest, int newest) {
  const char *schema = json_string_value(json_object_get(doc, "schema"));
  size_t n = strlen(name);
  if (!schema || strncmp(schema, name, n) != 0 || schema[n] != '/')
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.schema: expected \"%s/%d\", found %s%s%s", file, name, newest,
                      schema ? "\"" : "", schema ? schema : "none", schema ? "\"" : "");
  for (int v = oldest; v <= newest; v++) {
    char want[16];
    snprintf(want, sizeof want, "%d", v);
    if (!strcmp(schema + n + 1, want)) return VKOCC_OK;
  }
  if (oldest == newest)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.schema: version %s of %s is not supported (this vkocc reads version "
                      "%d)", file, schema + n + 1, name, newest);
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.schema: version %s of %s is not supported (this vkocc reads versions "
                    "%d to %d)", file, schema + n + 1, name, oldest, newest);
}

vkocc_status util_json_check_schema(json_t *doc, const char *file, const char *name) {
  return util_json_check_schema_versions(doc, file, name, VKOCC_SCHEMA_VERSION, VKOCC_SCHEMA_VERSION);
}
