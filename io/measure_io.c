/* Calibration and probe results as JSON (the calibrate, probe and raw-probe documents and parts of others). */
#include "io.h"
#include "internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define num util_json_number

json_t *io_linfit_json(const vkocc_linfit *f) {
  json_t *o = json_object();
  json_object_set_new(o, "slope", num(f->slope));
  json_object_set_new(o, "intercept", num(f->intercept));
  json_object_set_new(o, "r2", num(f->r2));
  json_object_set_new(o, "max_rel_residual", num(f->max_rel_residual));
  json_object_set_new(o, "points", json_integer(f->n));
  json_object_set_new(o, "points_used", json_integer(f->n_used));
  return o;
}

json_t *io_calibration_json(const vkocc_calibration *c) {
  json_t *o = json_object();
  json_object_set_new(o, "has_device_clock", json_boolean(c->has_device_clock));
  json_object_set_new(o, "has_subgroup_clock", json_boolean(c->has_subgroup_clock));
  json_object_set_new(o, "ns_per_realtime_tick", c->has_device_clock ? num(c->ns_per_tick) : json_null());
  json_object_set_new(o, "realtime_fit", c->has_device_clock ? io_linfit_json(&c->realtime_fit) : json_null());
  json_object_set_new(o, "ns_per_realtime_tick_from",
                      c->has_device_clock ? json_string(c->from_starts ? "dispatch starts" : "dispatch intervals") : json_null());
  json_t *af = c->has_device_clock ? io_linfit_json(&c->anchor_fit) : json_null();
  if (c->has_device_clock) json_object_set_new(af, "span_ns", num(c->anchor_span_ns));
  json_object_set_new(o, "realtime_start_fit", af);
  json_object_set_new(o, "shader_clock_mhz", c->has_subgroup_clock ? num(c->shader_clock_mhz) : json_null());
  json_object_set_new(o, "subgroup_fit", c->has_subgroup_clock ? io_linfit_json(&c->subgroup_fit) : json_null());
  json_object_set_new(o, "spin_fit", io_linfit_json(&c->spin_fit));
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

json_t *io_intervals_json(const vkocc_interval *iv, uint32_t n) {
  json_t *a = json_array();
  for (uint32_t i = 0; i < n; i++)
    json_array_append_new(a, iv[i].valid ? json_pack("[f,f]", iv[i].start, iv[i].end) : json_null());
  return a;
}


json_t *vkocc_probe_result_json(const vkocc_probe_result *r) {
  json_t *o = json_object(), *reps = json_array();
  json_object_set_new(o, "wg_size", json_integer(r->wg_size));
  json_object_set_new(o, "shared_bytes", json_integer(r->shared_bytes));
  json_object_set_new(o, "method", json_string(vkocc_method_name(r->method)));
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


/* The whole documents, stamped, written whole ("-": standard output) */

static vkocc_status save(json_t *doc, const char *name, const char *path) {
  vkocc_status s = util_json_write(vkocc_doc_stamp(doc, name), path);
  json_decref(doc);
  return s;
}

vkocc_status vkocc_calibration_save(const vkocc_device_info *device, const vkocc_calibration *cal, const char *path) {
  vkocc_clear_error();
  if (!device || !cal || !path || !*path)
    return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_calibration_save: no device, calibration or path");
  return save(json_pack("{s:o, s:o}", "device", vkocc_device_info_json(device), "calibration", io_calibration_json(cal)),
              VKOCC_DOC_CALIBRATION, path);
}

vkocc_status vkocc_probe_save(const vkocc_device_info *device, const vkocc_probe_result *r, const char *path) {
  vkocc_clear_error();
  if (!device || !r || !path || !*path) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_probe_save: no device, result or path");
  return save(json_pack("{s:o, s:o}", "device", vkocc_device_info_json(device), "probe", vkocc_probe_result_json(r)),
              VKOCC_DOC_PROBE, path);
}

vkocc_status vkocc_raw_probe_save(const vkocc_device_info *device, const vkocc_probe_result *r, const char *path) {
  vkocc_clear_error();
  if (!device || !r || !path || !*path) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_raw_probe_save: no device, result or path");
  if (!r->repeat || r->repeat > VKOCC_MAX_REPEAT)
    return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_raw_probe_save: the result holds %u repetitions", r->repeat);
  return save(json_pack("{s:o, s:I, s:I, s:f, s:I, s:o}", "device", vkocc_device_info_json(device), "wg_size",
                        (json_int_t)r->wg_size, "shared_bytes", (json_int_t)r->shared_bytes, "sleep_ns", r->sleep_ns, "P",
                        (json_int_t)r->reps[r->repeat - 1].comb_P, "intervals_ns", io_intervals_json(r->raw, r->raw_count)),
              VKOCC_DOC_RAW_PROBE, path);
}
