/* The architecture signature as JSON (fingerprint schema 3, docs/fingerprint.md): the API facts, then each
 * signal's state, median, spread and raw repeats, so a fleet database can quantize again later. The reader is
 * strict (types, ranges, known names) and names the JSON path of what it refuses. */
#include "internal.h"
#include "io.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

json_t *io_signature_json(const vkocc_signature *g) {
  json_t *sig = json_object();
  char vendor[16];
  snprintf(vendor, sizeof vendor, "0x%x", g->vendor_id);
  json_object_set_new(sig, "vendor_id", json_string(vendor));
  json_object_set_new(sig, "subgroup_size_range", json_pack("[I, I]", (json_int_t)g->subgroup_min, (json_int_t)g->subgroup_max));
  json_object_set_new(sig, "features", json_pack("{s:b, s:b, s:b}", "shaderFloat64", g->float64, "shaderInt64",
                                                 g->int64, "shaderFloat16", g->float16));
  json_object_set_new(sig, "workgroup_size", json_integer(g->workgroup_size));
  json_object_set_new(sig, "attempts", json_integer(g->attempts));
  json_object_set_new(sig, "elapsed_ms", util_json_number(round(g->elapsed_ms * 1000) / 1000));
  json_t *vals = json_object();
  for (int i = 0; i < VKOCC_SIG_COUNT; i++) {
    const vkocc_sig_value *v = &g->v[i];
    json_t *o = json_pack("{s:s}", "state", vkocc_sig_state_name(v->state));
    if (v->repeats) {
      json_t *smp = json_array();
      for (uint32_t r = 0; r < v->repeats; r++) json_array_append_new(smp, util_json_number(v->samples[r]));
      json_object_set_new(o, "value", util_json_number(v->value));
      json_object_set_new(o, "spread", util_json_number(v->spread));
      json_object_set_new(o, "samples", smp);
    }
    int32_t q = vkocc_sig_quantize((vkocc_sig_signal)i, v->value);
    if (v->state == VKOCC_SIG_MEASURED && q != INT32_MIN) json_object_set_new(o, "quantized", json_integer(q));
    if (v->reason[0]) json_object_set_new(o, "reason", json_string(v->reason));
    json_object_set_new(vals, vkocc_sig_signal_name((vkocc_sig_signal)i), o);
  }
  json_object_set_new(sig, "values", vals);
  return sig;
}

static vkocc_status bad(const char *name, const char *path, const char *what) {
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: %s", name, path, what);
}

vkocc_status io_signature_from_json(json_t *o, const char *name, vkocc_signature *g) {
  memset(g, 0, sizeof *g);
  if (!json_is_object(o)) return bad(name, "$.signature", "expected an object");
  const char *vendor = json_string_value(json_object_get(o, "vendor_id"));
  unsigned long vid;
  char end;
  if (!vendor || sscanf(vendor, "0x%lx%c", &vid, &end) != 1 || vid > UINT32_MAX)
    return bad(name, "$.signature.vendor_id", "expected a hexadecimal string such as \"0x10de\"");
  g->vendor_id = (uint32_t)vid;
  json_t *sg = json_object_get(o, "subgroup_size_range");
  if (!json_is_array(sg) || json_array_size(sg) != 2 || !json_is_integer(json_array_get(sg, 0)) ||
      !json_is_integer(json_array_get(sg, 1)) || json_integer_value(json_array_get(sg, 0)) < 1 ||
      json_integer_value(json_array_get(sg, 1)) < json_integer_value(json_array_get(sg, 0)) ||
      json_integer_value(json_array_get(sg, 1)) > 1024)
    return bad(name, "$.signature.subgroup_size_range", "expected [min, max] with 1 <= min <= max <= 1024");
  g->subgroup_min = (uint32_t)json_integer_value(json_array_get(sg, 0));
  g->subgroup_max = (uint32_t)json_integer_value(json_array_get(sg, 1));
  json_t *f = json_object_get(o, "features");
  if (!json_is_object(f)) return bad(name, "$.signature.features", "expected an object");
  vkocc_status s;
  if ((s = util_json_bool(f, "shaderFloat64", name, "$.signature.features", true, &g->float64)) ||
      (s = util_json_bool(f, "shaderInt64", name, "$.signature.features", true, &g->int64)) ||
      (s = util_json_bool(f, "shaderFloat16", name, "$.signature.features", true, &g->float16)) ||
      (s = util_json_u32(o, "workgroup_size", name, "$.signature", false, &g->workgroup_size)) ||
      (s = util_json_u32(o, "attempts", name, "$.signature", false, &g->attempts)) ||
      (s = util_json_f64(o, "elapsed_ms", name, "$.signature", false, &g->elapsed_ms)))
    return s;
  json_t *vals = json_object_get(o, "values");
  if (!json_is_object(vals)) return bad(name, "$.signature.values", "expected an object");
  for (int i = 0; i < VKOCC_SIG_COUNT; i++) {
    const char *sn = vkocc_sig_signal_name((vkocc_sig_signal)i);
    char path[96];
    snprintf(path, sizeof path, "$.signature.values.%s", sn);
    json_t *v = json_object_get(vals, sn);
    vkocc_sig_value *x = &g->v[i];
    x->value = NAN;
    if (!json_is_object(v)) return bad(name, path, "expected an object");
    const char *st = json_string_value(json_object_get(v, "state"));
    int k = 0;
    while (k < 4 && !(st && !strcmp(st, vkocc_sig_state_name((vkocc_sig_state)k)))) k++;
    if (k == 4) return bad(name, path, "state: expected \"measured\", \"unsupported\", \"unavailable\" or \"not-stable\"");
    x->state = (vkocc_sig_state)k;
    if ((s = util_json_str(v, "reason", name, path, false, x->reason, sizeof x->reason))) return s;
    json_t *smp = json_object_get(v, "samples");
    if (smp) {
      if (!json_is_array(smp) || json_array_size(smp) < 1 || json_array_size(smp) > VKOCC_SIG_MAX_REPEATS)
        return bad(name, path, "samples: expected 1 to 16 numbers");
      for (size_t r = 0; r < json_array_size(smp); r++) {
        json_t *e = json_array_get(smp, r);
        if (!json_is_number(e) || !(json_number_value(e) > 0) || json_number_value(e) > 1e9)
          return bad(name, path, "samples: expected positive numbers below 1e9");
        x->samples[r] = json_number_value(e);
      }
      x->repeats = (uint32_t)json_array_size(smp);
      if ((s = util_json_f64(v, "value", name, path, true, &x->value)) ||
          (s = util_json_f64(v, "spread", name, path, true, &x->spread)))
        return s;
      char why[160];
      if (!(x->value > 0) || x->value > 1e9) {
        snprintf(why, sizeof why, "value: %.17g is %s", x->value, x->value > 1e9 ? "out of range (a signal in SM cycles "
                 "or a ratio lies in (0, 1e9])" : "not positive (expected a value > 0)");
        return bad(name, path, why);
      }
      if (!(x->spread >= 0) || x->spread > 1e9) {
        snprintf(why, sizeof why, "spread: %.17g is %s", x->spread, x->spread > 1e9 ? "out of range (at most 1e9)"
                 : "negative (expected a spread >= 0)");
        return bad(name, path, why);
      }
    }
    if ((x->state == VKOCC_SIG_MEASURED || x->state == VKOCC_SIG_NOT_STABLE) && !x->repeats)
      return bad(name, path, "a measured value needs its samples");
  }
  g->present = true;
  return VKOCC_OK;
}
