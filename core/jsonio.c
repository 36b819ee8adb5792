#include "jsonio.h"
#include "internal.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NaN/inf are not JSON: write null. */
static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* {"flags": {"graphics", "compute", "transfer"}, "vk_queue_flags"}: the object a queue family starts from */
static json_t *queue_flags_json(uint32_t f) {
  return json_pack("{s:{s:b, s:b, s:b}, s:I}", "flags", "graphics", (f & VK_QUEUE_GRAPHICS_BIT) != 0, "compute",
                   (f & VK_QUEUE_COMPUTE_BIT) != 0, "transfer", (f & VK_QUEUE_TRANSFER_BIT) != 0,
                   "vk_queue_flags", (json_int_t)f);
}

/* The flags of a queue-family object: vk_queue_flags if present, else the booleans. */
static vkocc_status queue_flags_from_json(json_t *q, const char *file, const char *path, uint32_t *flags) {
  vkocc_status s = vkocc_json_u32(q, "vk_queue_flags", file, path, false, flags);
  if (s || json_object_get(q, "vk_queue_flags")) return s;
  json_t *f = json_object_get(q, "flags");
  if (!f) return VKOCC_OK;
  char sub[300];
  snprintf(sub, sizeof sub, "%s.flags", path);
  if (!json_is_object(f)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, sub);
  bool g = false, c = false, t = false;
  if ((s = vkocc_json_bool(f, "graphics", file, sub, false, &g)) ||
      (s = vkocc_json_bool(f, "compute", file, sub, false, &c)) ||
      (s = vkocc_json_bool(f, "transfer", file, sub, false, &t)))
    return s;
  *flags = (g ? VK_QUEUE_GRAPHICS_BIT : 0) | (c ? VK_QUEUE_COMPUTE_BIT : 0) | (t ? VK_QUEUE_TRANSFER_BIT : 0);
  return VKOCC_OK;
}

/* Optional (documents before vkocc recorded queue families have none): queue_family, queue_families and
 * compute_queue_family. Without them the family is unknown (UINT32_MAX, flags 0). */
static vkocc_status queues_from_json(json_t *o, const char *file, const char *path, vkocc_device_info *d) {
  char sub[300];
  vkocc_status s;
  d->compute_queue_family = UINT32_MAX;
  if ((s = vkocc_json_u32(o, "compute_queue_family", file, path, false, &d->compute_queue_family))) return s;
  json_t *a = json_object_get(o, "queue_families");
  if (a && !json_is_null(a)) {
    snprintf(sub, sizeof sub, "%s.queue_families", path);
    if (!json_is_array(a)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an array", file, sub);
    if (json_array_size(a) > VKOCC_MAX_QUEUE_FAMILIES)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: more than %d queue families", file, sub, VKOCC_MAX_QUEUE_FAMILIES);
    d->queue_family_count = (uint32_t)json_array_size(a);
    for (uint32_t i = 0; i < d->queue_family_count; i++) {
      json_t *q = json_array_get(a, i);
      snprintf(sub, sizeof sub, "%s.queue_families[%u]", path, i);
      if (!json_is_object(q)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, sub);
      if ((s = queue_flags_from_json(q, file, sub, &d->queue_families[i].flags)) ||
          (s = vkocc_json_u32(q, "queue_count", file, sub, false, &d->queue_families[i].queue_count)) ||
          (s = vkocc_json_u32(q, "timestamp_valid_bits", file, sub, false, &d->queue_families[i].timestamp_valid_bits)))
        return s;
    }
  }
  json_t *q = json_object_get(o, "queue_family");
  if (q && !json_is_null(q)) {
    snprintf(sub, sizeof sub, "%s.queue_family", path);
    if (!json_is_object(q)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, sub);
    char kind[32] = "";
    if ((s = vkocc_json_u32(q, "index", file, sub, true, &d->compute_queue_family)) ||
        (s = queue_flags_from_json(q, file, sub, &d->compute_queue_flags)) ||
        (s = vkocc_json_str(q, "kind", file, sub, false, kind, sizeof kind)) ||
        (s = vkocc_json_str(q, "choice", file, sub, false, d->queue_choice, sizeof d->queue_choice)))
      return s;
    if (kind[0] && strcmp(kind, "compute-only") && strcmp(kind, "graphics+compute") && strcmp(kind, "other") &&
        strcmp(kind, "unknown"))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.kind: expected \"compute-only\" or \"graphics+compute\", found "
                        "\"%s\"", file, sub, kind);
    if (!d->compute_queue_flags && !strcmp(kind, "compute-only")) d->compute_queue_flags = VK_QUEUE_COMPUTE_BIT;
    if (!d->compute_queue_flags && !strcmp(kind, "graphics+compute"))
      d->compute_queue_flags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  } else if (d->compute_queue_family < d->queue_family_count) {
    d->compute_queue_flags = d->queue_families[d->compute_queue_family].flags;
  }
  return VKOCC_OK;
}

json_t *vkocc_device_info_json(const vkocc_device_info *d) {
  char api[32], drv[32], uuid[37];
  vkocc_format_api_version(d->api_version, api);
  vkocc_format_driver_version(d->vendor_id, d->driver_version, drv);
  vkocc_format_uuid(d->uuid, uuid);
  json_t *o = json_object();
#define SET(k, v) json_object_set_new(o, k, v)
  SET("index", json_integer(d->index));
  SET("name", json_string(d->name));
  SET("vendor_id", json_integer(d->vendor_id));
  SET("device_id", json_integer(d->device_id));
  SET("device_type", json_string(vkocc_device_type_name(d->device_type)));
  SET("driver_name", json_string(d->driver_name));
  SET("driver_info", json_string(d->driver_info));
  SET("driver_version", json_string(drv));
  SET("driver_version_raw", json_integer(d->driver_version));
  SET("api_version", json_string(api));
  SET("uuid", json_string(uuid));
  SET("subgroup_size", json_integer(d->subgroup_size));
  SET("max_compute_shared_memory_size", json_integer(d->max_shared_bytes));
  SET("max_compute_work_group_invocations", json_integer(d->max_invocations));
  SET("max_compute_work_group_count_x", json_integer(d->max_wg_count_x));
  SET("compute_queue_family",
      d->compute_queue_family == UINT32_MAX ? json_null() : json_integer(d->compute_queue_family));
  SET("timestamp_valid_bits", json_integer(d->timestamp_valid_bits));
  /* the family measured on, and every family: on NVIDIA the shared memory per SM depends on it */
  if (d->compute_queue_family != UINT32_MAX && d->compute_queue_flags) {
    json_t *q = queue_flags_json(d->compute_queue_flags);
    json_object_set_new(q, "index", json_integer(d->compute_queue_family));
    json_object_set_new(q, "kind", json_string(vkocc_queue_kind_name(d->compute_queue_flags)));
    json_object_set_new(q, "timestamp_valid_bits", json_integer(d->timestamp_valid_bits));
    if (d->queue_choice[0]) json_object_set_new(q, "choice", json_string(d->queue_choice));
    SET("queue_family", q);
  }
  if (d->queue_family_count) {
    json_t *a = json_array();
    for (uint32_t i = 0; i < d->queue_family_count; i++) {
      json_t *q = queue_flags_json(d->queue_families[i].flags);
      json_object_set_new(q, "index", json_integer(i));
      json_object_set_new(q, "queue_count", json_integer(d->queue_families[i].queue_count));
      json_object_set_new(q, "timestamp_valid_bits", json_integer(d->queue_families[i].timestamp_valid_bits));
      json_array_append_new(a, q);
    }
    SET("queue_families", a);
  }
  SET("timestamp_period", json_real(d->timestamp_period));
  SET("timestamp_compute_and_graphics", json_boolean(d->timestamp_compute_and_graphics));
  SET("shader_clock", json_pack("{s:b, s:b, s:b}", "extension", d->has_shader_clock_ext, "subgroup",
                                d->shader_subgroup_clock, "device", d->shader_device_clock));
  if (d->vendor.source[0]) SET("vendor_reported", vkocc_vendor_reported_json(&d->vendor));
#undef SET
  return o;
}

json_t *vkocc_vendor_reported_json(const vkocc_vendor_reported *v) {
  json_t *o = json_pack("{s:s, s:I, s:I}", "source", v->source, "cores", (json_int_t)v->cores, "warps_per_core",
                        (json_int_t)v->warps_per_core);
  if (v->amd_shader_engines)
    json_object_set_new(o, "amd", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "shader_engines",
                                            (json_int_t)v->amd_shader_engines, "arrays_per_engine",
                                            (json_int_t)v->amd_arrays_per_engine, "cus_per_array",
                                            (json_int_t)v->amd_cus_per_array, "simds_per_cu",
                                            (json_int_t)v->amd_simds_per_cu, "wavefronts_per_simd",
                                            (json_int_t)v->amd_wavefronts_per_simd, "wavefront_size",
                                            (json_int_t)v->amd_wavefront_size, "active_cus",
                                            (json_int_t)v->amd_active_cus));
  return o;
}

vkocc_status vkocc_vendor_reported_from_json(json_t *o, const char *file, const char *path, vkocc_vendor_reported *v) {
  memset(v, 0, sizeof *v);
  if (!json_is_object(o)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, path);
  vkocc_status s;
  if ((s = vkocc_json_str(o, "source", file, path, true, v->source, sizeof v->source)) ||
      (s = vkocc_json_u32(o, "cores", file, path, true, &v->cores)) ||
      (s = vkocc_json_u32(o, "warps_per_core", file, path, true, &v->warps_per_core)))
    return s;
  json_t *amd = json_object_get(o, "amd");
  if (amd) {
    char sub[300];
    snprintf(sub, sizeof sub, "%s.amd", path);
    if (!json_is_object(amd)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, sub);
    if ((s = vkocc_json_u32(amd, "shader_engines", file, sub, false, &v->amd_shader_engines)) ||
        (s = vkocc_json_u32(amd, "arrays_per_engine", file, sub, false, &v->amd_arrays_per_engine)) ||
        (s = vkocc_json_u32(amd, "cus_per_array", file, sub, false, &v->amd_cus_per_array)) ||
        (s = vkocc_json_u32(amd, "simds_per_cu", file, sub, false, &v->amd_simds_per_cu)) ||
        (s = vkocc_json_u32(amd, "wavefronts_per_simd", file, sub, false, &v->amd_wavefronts_per_simd)) ||
        (s = vkocc_json_u32(amd, "wavefront_size", file, sub, false, &v->amd_wavefront_size)) ||
        (s = vkocc_json_u32(amd, "active_cus", file, sub, false, &v->amd_active_cus)))
      return s;
  }
  return VKOCC_OK;
}

json_t *vkocc_linfit_json(const vkocc_linfit *f) {
  json_t *o = json_object();
  json_object_set_new(o, "slope", num(f->slope));
  json_object_set_new(o, "intercept", num(f->intercept));
  json_object_set_new(o, "r2", num(f->r2));
  json_object_set_new(o, "max_rel_residual", num(f->max_rel_residual));
  json_object_set_new(o, "points", json_integer(f->n));
  json_object_set_new(o, "points_used", json_integer(f->n_used));
  return o;
}

json_t *vkocc_calibration_json(const vkocc_calibration *c) {
  json_t *o = json_object();
  json_object_set_new(o, "has_device_clock", json_boolean(c->has_device_clock));
  json_object_set_new(o, "has_subgroup_clock", json_boolean(c->has_subgroup_clock));
  json_object_set_new(o, "ns_per_realtime_tick", c->has_device_clock ? num(c->ns_per_tick) : json_null());
  json_object_set_new(o, "realtime_fit", c->has_device_clock ? vkocc_linfit_json(&c->realtime_fit) : json_null());
  json_object_set_new(o, "shader_clock_mhz", c->has_subgroup_clock ? num(c->shader_clock_mhz) : json_null());
  json_object_set_new(o, "subgroup_fit", c->has_subgroup_clock ? vkocc_linfit_json(&c->subgroup_fit) : json_null());
  json_object_set_new(o, "spin_fit", vkocc_linfit_json(&c->spin_fit));
  json_object_set_new(o, "dispatch_overhead_ns", num(c->overhead_ns));
  json_object_set_new(o, "timestamp_period", num(c->timestamp_period));
  json_object_set_new(o, "timestamp_valid_bits", json_integer(c->timestamp_valid_bits));
  json_object_set_new(o, "realtime_tick_equals_timestamp_period",
                      c->has_device_clock ? json_boolean(c->tick_equals_period) : json_null());
  json_object_set_new(o, "samples", json_integer(c->samples));
  json_object_set_new(o, "wraps_corrected", json_integer(c->wraps));
  json_object_set_new(o, "backwards_dropped", json_integer(c->backwards));
  json_object_set_new(o, "longest_spin_ns", num(c->longest_ns));
  json_object_set_new(o, "attempts", json_integer(c->attempts));
  json_object_set_new(o, "poor_fit", json_boolean(c->poor_fit));
  json_object_set_new(o, "note", c->note[0] ? json_string(c->note) : json_null());
  return o;
}

json_t *vkocc_intervals_json(const vkocc_interval *iv, uint32_t n) {
  json_t *a = json_array();
  for (uint32_t i = 0; i < n; i++)
    json_array_append_new(a, iv[i].valid ? json_pack("[f,f]", iv[i].start, iv[i].end) : json_null());
  return a;
}

vkocc_status vkocc_json_write(json_t *doc, const char *path) {
  char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
  if (!text) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot serialize JSON");
  size_t len = strlen(text);
  text = realloc(text, len + 2);
  text[len++] = '\n';
  text[len] = 0;
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

static const char *method_name(vkocc_method m) {
  return m == VKOCC_METHOD_COMB ? "comb" : m == VKOCC_METHOD_BISECT ? "bisect" : "both";
}

json_t *vkocc_probe_result_json(const vkocc_probe_result *r) {
  json_t *o = json_object(), *reps = json_array();
  json_object_set_new(o, "wg_size", json_integer(r->wg_size));
  json_object_set_new(o, "shared_bytes", json_integer(r->shared_bytes));
  json_object_set_new(o, "method", json_string(method_name(r->method)));
  json_object_set_new(o, "P", json_integer(r->P));
  json_object_set_new(o, "agree", json_boolean(r->agree));
  json_object_set_new(o, "repeat", json_integer(r->repeat));
  json_object_set_new(o, "sleep_ns", num(r->sleep_ns));
  json_object_set_new(o, "bisect_wave_ns", num(r->bisect_wave_ns));
  json_object_set_new(o, "floor_ns", num(r->floor_ns));
  json_object_set_new(o, "bisect_workload", json_string(r->bisect_by_chase ? "pointer-chase" : "sleep"));
  if (r->method & VKOCC_METHOD_COMB)
    json_object_set_new(o, "comb", json_pack("{s:I, s:I, s:I}", "median", (json_int_t)r->comb_median, "min",
                                             (json_int_t)r->comb_min, "max", (json_int_t)r->comb_max));
  if (r->method & VKOCC_METHOD_BISECT)
    json_object_set_new(o, "bisect", json_pack("{s:I, s:I, s:I}", "median", (json_int_t)r->bisect_median, "min",
                                               (json_int_t)r->bisect_min, "max", (json_int_t)r->bisect_max));
  for (uint32_t i = 0; i < r->repeat; i++) {
    const vkocc_probe_rep *p = &r->reps[i];
    json_t *e = json_object();
    if (r->method & VKOCC_METHOD_COMB) {
      json_t *h = json_array();
      uint32_t nt = p->comb.teeth < VKOCC_MAX_TEETH ? p->comb.teeth : VKOCC_MAX_TEETH;
      for (uint32_t t = 0; t < nt; t++) json_array_append_new(h, json_integer(p->comb.tooth_heights[t]));
      json_t *c = json_object();
      json_object_set_new(c, "P", json_integer(p->comb_P));
      json_object_set_new(c, "groups", json_integer(p->comb_groups));
      json_object_set_new(c, "valid_records", json_integer(p->comb.n_valid));
      json_object_set_new(c, "missing_records", json_integer(p->comb.n_missing));
      json_object_set_new(c, "teeth", json_integer(p->comb.teeth));
      json_object_set_new(c, "tooth_heights", h);
      json_object_set_new(c, "first_tooth_spread_ns", num(p->comb.first_tooth_spread_ns));
      json_object_set_new(c, "median_sleep_ns", num(p->comb.median_sleep_ns));
      json_object_set_new(c, "dispatches", json_integer(p->comb_dispatches));
      json_object_set_new(c, "gpu_ns", num(p->comb_gpu_ns));
      json_object_set_new(c, "wall_ns", num(p->comb_wall_ns));
      json_object_set_new(e, "comb", c);
    }
    if (r->method & VKOCC_METHOD_BISECT) {
      json_t *b = json_object();
      json_object_set_new(b, "P", json_integer(p->bisect_P));
      json_object_set_new(b, "dispatches", json_integer(p->bisect.dispatches));
      json_object_set_new(b, "one_wave_ns", num(p->bisect.base_ns));
      json_object_set_new(b, "threshold_ns", num(p->bisect.threshold_ns));
      json_object_set_new(b, "gpu_ns", num(p->bisect_gpu_ns));
      json_object_set_new(b, "wall_ns", num(p->bisect_wall_ns));
      json_object_set_new(e, "bisect", b);
    }
    json_array_append_new(reps, e);
  }
  json_object_set_new(o, "repetitions", reps);
  return o;
}

vkocc_status vkocc_json_u32(json_t *obj, const char *key, const char *file, const char *path, bool required,
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

vkocc_status vkocc_json_f64(json_t *obj, const char *key, const char *file, const char *path, bool required,
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

vkocc_status vkocc_json_str(json_t *obj, const char *key, const char *file, const char *path, bool required,
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

vkocc_status vkocc_json_bool(json_t *obj, const char *key, const char *file, const char *path, bool required,
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

vkocc_status vkocc_json_load(const char *file, const char *name, json_t **doc) {
  json_error_t e;
  void *text;
  size_t len;
  vkocc_status rs = vkocc_read_file(file, &text, &len); /* names a directory or an unreadable file as such */
  if (rs) { *doc = NULL; return rs; }
  *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
  free(text);
  if (!*doc) {
    if (e.line <= 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s", file, e.text);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%d:%d: invalid JSON: %s", file, e.line, e.column, e.text);
  }
  if (!json_is_object(*doc)) {
    json_decref(*doc);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $: expected a JSON object", file);
  }
  const char *schema = json_string_value(json_object_get(*doc, "schema"));
  size_t n = strlen(name);
  if (!schema || strncmp(schema, name, n) != 0 || schema[n] != '/') {
    vkocc_status s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.schema: expected \"%s/1\", found %s%s%s", file, name,
                                schema ? "\"" : "", schema ? schema : "none", schema ? "\"" : "");
    json_decref(*doc);
    return s;
  }
  if (strcmp(schema + n + 1, "1") != 0) {
    vkocc_status s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.schema: version %s of %s is not supported (this vkocc "
                                "reads version 1)", file, schema + n + 1, name);
    json_decref(*doc);
    return s;
  }
  return VKOCC_OK;
}

vkocc_status vkocc_device_info_from_json(json_t *o, const char *file, const char *path, vkocc_device_info *d) {
  memset(d, 0, sizeof *d);
  if (!json_is_object(o)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, path);
  vkocc_status s;
  char uuid[64] = "";
  if ((s = vkocc_json_str(o, "name", file, path, true, d->name, sizeof d->name)) ||
      (s = vkocc_json_str(o, "driver_name", file, path, false, d->driver_name, sizeof d->driver_name)) ||
      (s = vkocc_json_str(o, "driver_info", file, path, false, d->driver_info, sizeof d->driver_info)) ||
      (s = vkocc_json_u32(o, "vendor_id", file, path, false, &d->vendor_id)) ||
      (s = vkocc_json_u32(o, "device_id", file, path, false, &d->device_id)) ||
      (s = vkocc_json_u32(o, "driver_version_raw", file, path, false, &d->driver_version)) ||
      (s = vkocc_json_u32(o, "subgroup_size", file, path, false, &d->subgroup_size)) ||
      (s = vkocc_json_u32(o, "max_compute_shared_memory_size", file, path, false, &d->max_shared_bytes)) ||
      (s = vkocc_json_u32(o, "max_compute_work_group_invocations", file, path, false, &d->max_invocations)) ||
      (s = vkocc_json_str(o, "uuid", file, path, false, uuid, sizeof uuid)))
    return s;
  if ((s = queues_from_json(o, file, path, d))) return s;
  json_t *vendor = json_object_get(o, "vendor_reported"); /* optional: only devices with a vendor extension */
  if (vendor) {
    char sub[300];
    snprintf(sub, sizeof sub, "%s.vendor_reported", path);
    if ((s = vkocc_vendor_reported_from_json(vendor, file, sub, &d->vendor))) return s;
  }
  d->max_wg_size_x = d->max_invocations;
  uint32_t nib = 0;
  for (const char *c = uuid; *c && nib < 32; c++) {
    if (*c == '-') continue;
    int v = (*c >= '0' && *c <= '9') ? *c - '0' : (*c >= 'a' && *c <= 'f') ? *c - 'a' + 10 : -1;
    if (v < 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.uuid: expected 32 hex digits", file, path);
    d->uuid[nib / 2] |= (uint8_t)(nib % 2 ? v : v << 4);
    nib++;
  }
  return VKOCC_OK;
}

json_t *vkocc_surface_json(const vkocc_surface *s) {
  json_t *o = json_object(), *pts = json_array();
  if (s->has_device) json_object_set_new(o, "device", vkocc_device_info_json(&s->device));
  json_object_set_new(o, "subgroup_size", s->subgroup_size ? json_integer(s->subgroup_size) : json_null());
  json_object_set_new(o, "method", json_string(s->method == VKOCC_METHOD_COMB ? "comb" : s->method == VKOCC_METHOD_BISECT
                                                                                         ? "bisect" : "both"));
  json_object_set_new(o, "repeat", json_integer(s->repeat));
  json_object_set_new(o, "timing", json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:I, s:f, s:b}", "pipelines",
                                             (json_int_t)s->pipelines, "pipelines_ms", s->pipelines_ms, "measure_ms",
                                             s->measure_ms, "warmup_ms", s->warmup_ms, "comb_ms", s->comb_ms,
                                             "comb_gpu_ms", s->comb_gpu_ms, "comb_dispatches",
                                             (json_int_t)s->comb_dispatches, "bisect_ms", s->bisect_ms,
                                             "pipeline_cache_warm", s->cache_warm));
  for (uint32_t i = 0; i < s->count; i++) {
    const vkocc_surface_point *p = &s->points[i];
    json_t *e = json_object();
    json_object_set_new(e, "wg_size", json_integer(p->wg_size));
    json_object_set_new(e, "shared_bytes", json_integer(p->shared_bytes));
    json_object_set_new(e, "P", json_integer(p->P));
    if (p->comb_P) json_object_set_new(e, "comb_P", json_integer(p->comb_P));
    if (p->bisect_P) json_object_set_new(e, "bisect_P", json_integer(p->bisect_P));
    json_object_set_new(e, "agree", json_boolean(p->agree));
    if (p->refined) json_object_set_new(e, "refined", json_true());
    if (p->predicted) json_object_set_new(e, "predicted", json_true()); /* adaptive surface: not measured */
    json_array_append_new(pts, e);
  }
  json_object_set_new(o, "points", pts);
  if (s->measured) /* how the points came about: measured (the rest predicted), measurements, rounds */
    json_object_set_new(o, "measured", json_pack("{s:I, s:I, s:I, s:I, s:f}", "points", (json_int_t)s->measured,
                                                 "measurements", (json_int_t)s->measurements, "batches",
                                                 (json_int_t)s->batches, "measured_alone", (json_int_t)s->remeasured,
                                                 "floor_ms", s->floor_ms));
  return o;
}

vkocc_status vkocc_surface_from_json(json_t *o, const char *file, const char *path, vkocc_surface *s) {
  memset(s, 0, sizeof *s);
  char sub[256];
  vkocc_status st;
  json_t *dev = json_object_get(o, "device");
  if (dev && !json_is_null(dev)) {
    snprintf(sub, sizeof sub, "%s.device", path);
    if ((st = vkocc_device_info_from_json(dev, file, sub, &s->device))) return st;
    s->has_device = true;
  }
  if ((st = vkocc_json_u32(o, "subgroup_size", file, path, false, &s->subgroup_size))) return st;
  if (!s->subgroup_size) s->subgroup_size = s->device.subgroup_size;
  if (s->subgroup_size > VKOCC_MAX_WG_SIZE)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.subgroup_size: %u is out of range (at most %u)", file, path,
                      s->subgroup_size, VKOCC_MAX_WG_SIZE);
  if ((st = vkocc_json_u32(o, "repeat", file, path, false, &s->repeat))) return st;
  json_t *pts = json_object_get(o, "points");
  if (!json_is_array(pts)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.points: expected an array", file, path);
  s->count = (uint32_t)json_array_size(pts);
  if (s->count == 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.points: the surface is empty", file, path);
  s->points = calloc(s->count, sizeof *s->points);
  for (uint32_t i = 0; i < s->count; i++) {
    json_t *e = json_array_get(pts, i);
    vkocc_surface_point *p = &s->points[i];
    snprintf(sub, sizeof sub, "%s.points[%u]", path, i);
    if (!json_is_object(e)) { st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, sub); break; }
    p->agree = true;
    if ((st = vkocc_json_u32(e, "wg_size", file, sub, true, &p->wg_size)) ||
        (st = vkocc_json_u32(e, "shared_bytes", file, sub, true, &p->shared_bytes)) ||
        (st = vkocc_json_u32(e, "P", file, sub, true, &p->P)) ||
        (st = vkocc_json_u32(e, "comb_P", file, sub, false, &p->comb_P)) ||
        (st = vkocc_json_u32(e, "bisect_P", file, sub, false, &p->bisect_P)) ||
        (st = vkocc_json_bool(e, "agree", file, sub, false, &p->agree)) ||
        (st = vkocc_json_bool(e, "refined", file, sub, false, &p->refined)) ||
        (st = vkocc_json_bool(e, "predicted", file, sub, false, &p->predicted)))
      break;
    if (p->wg_size == 0) { st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.wg_size: must be positive", file, sub); break; }
    /* bounded like a CSV's values (vkocc.h): nothing downstream has to fear overflow */
    const struct { const char *key; uint32_t v, max; } r[] = {{"wg_size", p->wg_size, VKOCC_MAX_WG_SIZE},
        {"shared_bytes", p->shared_bytes, VKOCC_MAX_SHARED_BYTES}, {"P", p->P, VKOCC_MAX_P},
        {"comb_P", p->comb_P, VKOCC_MAX_P}, {"bisect_P", p->bisect_P, VKOCC_MAX_P}};
    for (size_t k = 0; k < sizeof r / sizeof r[0] && !st; k++)
      if (r[k].v > r[k].max)
        st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: %u is out of range (at most %u)", file, sub, r[k].key, r[k].v, r[k].max);
    if (st) break;
  }
  if (st) vkocc_surface_free(s);
  return st;
}

json_t *vkocc_derived_json(const vkocc_derived *d, const vkocc_surface *s) {
  json_t *o = json_object(), *un = json_array();
  json_object_set_new(o, "sm_count", json_integer(d->sm_count));
  json_object_set_new(o, "sm_count_ambiguous", json_boolean(d->sm_count_ambiguous));
  json_object_set_new(o, "workgroups_per_sm", json_integer(d->wg_per_sm));
  json_object_set_new(o, "subgroups_per_sm", json_integer(d->subgroups_per_sm));
  json_object_set_new(o, "subgroups_per_sm_max",
                      d->subgroups_per_sm_max == UINT32_MAX ? json_null() : json_integer(d->subgroups_per_sm_max));
  json_object_set_new(o, "subgroup_limit_seen", json_boolean(d->subgroups_bound_seen));
  json_object_set_new(o, "subgroup_size", json_integer(d->subgroup_size));
  json_object_set_new(o, "subgroup_size_inferred", json_boolean(d->subgroup_size_inferred));
  json_object_set_new(o, "threads_per_sm", json_integer(d->threads_per_sm));
  json_object_set_new(o, "shared_bytes_per_sm", json_integer(d->shared_per_sm));
  json_object_set_new(o, "shared_bytes_per_sm_max",
                      d->shared_per_sm_max == UINT32_MAX ? json_null() : json_integer(d->shared_per_sm_max));
  json_object_set_new(o, "shared_limit_seen", json_boolean(d->shared_bound_seen));
  json_object_set_new(o, "points_explained", json_integer(d->explained));
  json_object_set_new(o, "points", json_integer(d->total));
  for (uint32_t i = 0; i < d->n_unexplained; i++) {
    const vkocc_surface_point *p = &s->points[d->unexplained[i]];
    vkocc_occupancy oc;
    vkocc_occupancy_compute(d, p->wg_size, p->shared_bytes, &oc);
    json_array_append_new(un, json_pack("{s:I, s:I, s:I, s:I}", "wg_size", (json_int_t)p->wg_size, "shared_bytes",
                                        (json_int_t)p->shared_bytes, "P", (json_int_t)p->P, "model_P",
                                        (json_int_t)oc.wgs));
  }
  json_object_set_new(o, "unexplained", un);
  return o;
}
