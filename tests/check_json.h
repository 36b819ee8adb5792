/* JSON in tests: a document read from a file, its absence counted as a failure with jansson's reason. */
#ifndef VKOCC_CHECK_JSON_H
#define VKOCC_CHECK_JSON_H
#include "check.h"
#include <jansson.h>

static inline json_t *check_load_json(const char *path) {
  json_error_t e;
  json_t *d = json_load_file(path, 0, &e);
  CHECK(d != NULL, "%s: %s (line %d)", path, e.text, e.line);
  return d;
}

#endif
