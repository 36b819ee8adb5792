#include "jsonio.h"
#include "internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NaN/inf are not JSON: write null. */
static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

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
  SET("timestamp_period", json_real(d->timestamp_period));
  SET("timestamp_compute_and_graphics", json_boolean(d->timestamp_compute_and_graphics));
  SET("shader_clock", json_pack("{s:b, s:b, s:b}", "extension", d->has_shader_clock_ext, "subgroup",
                                d->shader_subgroup_clock, "device", d->shader_device_clock));
#undef SET
  return o;
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
  if (strcmp(path, "-") == 0) fputs(text, stdout);
  else s = vkocc_write_file_atomic(path, text, len);
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
