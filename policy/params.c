/* Typed access to a chosen policy's parameters and the rule names. */
#include "internal.h"
#include <jansson.h>
#include <stdio.h>
#include <string.h>

const char *vkocc_policy_rule_name(vkocc_policy_rule r) {
  switch (r) {
  case VKOCC_POLICY_DEVICE: return "device";
  case VKOCC_POLICY_EXACT: return "cluster";
  case VKOCC_POLICY_NEAREST: return "nearest";
  case VKOCC_POLICY_DEFAULT: return "default";
  }
  return "unknown";
}

static vkocc_status get(const vkocc_policy_choice *c, const char *name, json_t **doc, json_t **v) {
  json_error_t e;
  *doc = c && c->params_json ? json_loads(c->params_json, 0, &e) : NULL;
  *v = json_object_get(*doc, name);
  if (!*v) {
    vkocc_status s = vkocc_fail(VKOCC_ERROR_USAGE, "policy: parameter '%s' is not in the chosen params %s", name,
                                c && c->params_json ? c->params_json : "(none)");
    json_decref(*doc);
    return s;
  }
  return VKOCC_OK;
}

static const char *type_name(json_t *v) {
  return json_is_string(v) ? "a string" : json_is_integer(v) ? "an integer" : json_is_real(v) ? "a float"
         : json_is_boolean(v) ? "a boolean" : json_is_null(v) ? "null" : json_is_array(v) ? "an array" : "an object";
}

vkocc_status vkocc_policy_param_int(const vkocc_policy_choice *c, const char *name, int64_t *out) {
  json_t *doc, *v;
  vkocc_status s = get(c, name, &doc, &v);
  if (s) return s;
  if (json_is_integer(v)) *out = json_integer_value(v);
  else s = vkocc_fail(VKOCC_ERROR_USAGE, "policy: parameter '%s' is %s, not an integer", name, type_name(v));
  json_decref(doc);
  return s;
}

vkocc_status vkocc_policy_param_float(const vkocc_policy_choice *c, const char *name, double *out) {
  json_t *doc, *v;
  vkocc_status s = get(c, name, &doc, &v);
  if (s) return s;
  if (json_is_number(v)) *out = json_number_value(v);
  else s = vkocc_fail(VKOCC_ERROR_USAGE, "policy: parameter '%s' is %s, not a number", name, type_name(v));
  json_decref(doc);
  return s;
}

vkocc_status vkocc_policy_param_string(const vkocc_policy_choice *c, const char *name, char *out, size_t len) {
  json_t *doc, *v;
  vkocc_status s = get(c, name, &doc, &v);
  if (s) return s;
  if (!json_is_string(v)) s = vkocc_fail(VKOCC_ERROR_USAGE, "policy: parameter '%s' is %s, not a string", name, type_name(v));
  else if (strlen(json_string_value(v)) >= len)
    s = vkocc_fail(VKOCC_ERROR_USAGE, "policy: parameter '%s' (%zu characters) does not fit %zu bytes", name,
                   strlen(json_string_value(v)), len);
  else snprintf(out, len, "%s", json_string_value(v));
  json_decref(doc);
  return s;
}
