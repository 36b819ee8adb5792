/* Surface files: the JSON vkocc writes (a surface, or a fingerprint holding one) and a plain CSV
 * "wg_size,shared_bytes,P" that anyone can produce. */
#include "internal.h"
#include "jsonio.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool parse_field(char *s, uint32_t *out) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
  if (!*s || !isdigit((unsigned char)*s)) return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno || v > UINT32_MAX) return false;
  *out = (uint32_t)v;
  return true;
}

static vkocc_status load_csv(const char *path, char *text, vkocc_surface *out) {
  uint32_t cap = 64, line = 0;
  out->points = malloc(cap * sizeof *out->points);
  bool header = false;
  static const char *names[3] = {"wg_size", "shared_bytes", "P"};
  for (char *save = NULL, *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
    line++;
    size_t len = strlen(ln);
    if (len && ln[len - 1] == '\r') ln[--len] = 0;
    char *t = ln;
    while (isspace((unsigned char)*t)) t++;
    if (!*t || *t == '#') continue;
    char *f[4] = {0};
    int nf = 0;
    for (char *s2 = NULL, *tok = strtok_r(t, ",", &s2); tok && nf < 4; tok = strtok_r(NULL, ",", &s2)) f[nf++] = tok;
    if (!header) {
      /* the header names the columns; whitespace around names is allowed */
      bool ok = nf == 3;
      for (int i = 0; ok && i < 3; i++) {
        char *a = f[i];
        while (isspace((unsigned char)*a)) a++;
        size_t l = strlen(a);
        while (l && isspace((unsigned char)a[l - 1])) l--;
        ok = l == strlen(names[i]) && strncmp(a, names[i], l) == 0;
      }
      if (!ok) return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: expected the header 'wg_size,shared_bytes,P'", path, line);
      header = true;
      continue;
    }
    if (nf != 3)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: expected 3 comma-separated fields, found %d", path, line, nf);
    vkocc_surface_point p = {.agree = true};
    uint32_t *dst[3] = {&p.wg_size, &p.shared_bytes, &p.P};
    for (int i = 0; i < 3; i++)
      if (!parse_field(f[i], dst[i]))
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: %s '%s' is not a non-negative integer", path, line, names[i], f[i]);
    if (p.wg_size == 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: wg_size must be positive", path, line);
    if (out->count == cap) out->points = realloc(out->points, (cap *= 2) * sizeof *out->points);
    out->points[out->count++] = p;
  }
  if (!header) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: empty file (expected the header 'wg_size,shared_bytes,P')", path);
  if (out->count == 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: no data rows after the header", path);
  return VKOCC_OK;
}

vkocc_status vkocc_surface_load(const char *path, vkocc_surface *out) {
  memset(out, 0, sizeof *out);
  void *data;
  size_t len;
  vkocc_status s = vkocc_read_file(path, &data, &len);
  if (s) return s;
  char *t = data;
  while (isspace((unsigned char)*t)) t++;
  if (*t != '{') {
    s = load_csv(path, data, out);
    free(data);
    if (s) vkocc_surface_free(out);
    return s;
  }
  free(data);
  json_t *doc;
  json_error_t e;
  doc = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
  if (!doc) return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%d:%d: invalid JSON: %s", path, e.line, e.column, e.text);
  const char *schema = json_string_value(json_object_get(doc, "schema"));
  bool fp = schema && !strncmp(schema, "vkocc.fingerprint/", 18);
  json_decref(doc);
  if ((s = vkocc_json_load(path, fp ? "vkocc.fingerprint" : "vkocc.surface", &doc))) return s;
  json_t *obj = fp ? json_object_get(doc, "surface") : doc;
  if (fp && !json_is_object(obj)) s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.surface: expected an object", path);
  else s = vkocc_surface_from_json(obj, path, fp ? "$.surface" : "$", out);
  if (!s && fp && !out->has_device) {
    json_t *dev = json_object_get(doc, "device");
    if (dev && (s = vkocc_device_info_from_json(dev, path, "$.device", &out->device)) == VKOCC_OK) {
      out->has_device = true;
      if (!out->subgroup_size) out->subgroup_size = out->device.subgroup_size;
    }
  }
  json_decref(doc);
  return s;
}

vkocc_status vkocc_surface_save(const vkocc_surface *s, const char *path) {
  json_t *doc = vkocc_surface_json(s);
  json_object_set_new(doc, "schema", json_string("vkocc.surface/1"));
  json_object_set_new(doc, "tool_version", json_string(vkocc_version()));
  vkocc_status st = vkocc_json_write(doc, path);
  json_decref(doc);
  return st;
}

vkocc_status vkocc_raw_probe_load(const char *path, vkocc_interval **iv, uint32_t *n, vkocc_device_info *dev) {
  *iv = NULL;
  *n = 0;
  json_t *doc;
  vkocc_status s = vkocc_json_load(path, "vkocc.raw-probe", &doc);
  if (s) return s;
  memset(dev, 0, sizeof *dev);
  json_t *d = json_object_get(doc, "device");
  if (d && (s = vkocc_device_info_from_json(d, path, "$.device", dev))) { json_decref(doc); return s; }
  json_t *a = json_object_get(doc, "intervals_ns");
  if (!json_is_array(a) || json_array_size(a) == 0) {
    json_decref(doc);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.intervals_ns: expected a non-empty array", path);
  }
  *n = (uint32_t)json_array_size(a);
  *iv = calloc(*n, sizeof **iv);
  for (uint32_t i = 0; i < *n; i++) {
    json_t *e = json_array_get(a, i);
    if (json_is_null(e)) continue; /* a record the device never wrote */
    if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_number(json_array_get(e, 0)) ||
        !json_is_number(json_array_get(e, 1))) {
      free(*iv);
      *iv = NULL;
      json_decref(doc);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.intervals_ns[%u]: expected [start, end] or null", path, i);
    }
    (*iv)[i] = (vkocc_interval){json_number_value(json_array_get(e, 0)), json_number_value(json_array_get(e, 1)), true};
  }
  json_decref(doc);
  return VKOCC_OK;
}
