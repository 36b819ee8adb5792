/* Results of user kernels, for policies: the reader of a "kind": "user" tuning results document into a tune_doc
 * (io/tune_user_io.h); tune/results/user_results.c writes them. */
#include "tune_user_io.h"
#include "io.h"
#include "jsonio.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static vkocc_status bad(const char *file, const char *path, const char *what) {
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: %s", file, path, what);
}

static double f64(json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

/* ------------------------------------------------------------------ for policies */

const tune_kernel_def *tune_user_kernel(const char *name) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static tune_kernel_def defs[256];
  static uint32_t n;
  const tune_kernel_def *found = NULL;
  pthread_mutex_lock(&lock);
  for (uint32_t i = 0; i < n && !found; i++)
    if (!strcmp(defs[i].name, name)) found = &defs[i];
  if (!found && n < 256) {
    defs[n].name = util_xstrdup(name);
    defs[n].what = "a user kernel tuned from a T1 spec";
    found = &defs[n++];
  }
  pthread_mutex_unlock(&lock);
  return found;
}

/* The parameters' values as sets ({name: {value text: true}}): a result's configuration must give every
 * parameter one of its values and nothing else (hand-edited results served 0, -1, 1e308 and "16" through
 * policies). Hashed: linear in the results. */
static vkocc_status value_sets(json_t *doc, const char *path, json_t **sets) {
  *sets = NULL;
  json_t *params = json_object_get(doc, "parameters");
  if (!json_is_array(params) || !json_array_size(params))
    return bad(path, "$.parameters", "expected an array of the tuning parameters and their values");
  json_t *all = json_object();
  size_t i;
  json_t *p;
  json_array_foreach(params, i, p) {
    char where[64];
    snprintf(where, sizeof where, "$.parameters[%zu]", i);
    const char *name = json_string_value(json_object_get(p, "name"));
    json_t *vals = json_object_get(p, "values");
    if (!name || !name[0] || !json_is_array(vals) || !json_array_size(vals) || json_object_get(all, name)) {
      json_decref(all);
      return bad(path, where, "expected {name, values} with a name of its own and at least one value");
    }
    json_t *set = json_object();
    size_t k;
    json_t *v;
    json_array_foreach(vals, k, v) {
      if (!json_is_number(v) && !json_is_string(v) && !json_is_boolean(v)) {
        json_decref(set), json_decref(all);
        return bad(path, where, "a value that is not a number, string or boolean");
      }
      char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
      json_object_set_new(set, t, json_true());
      free(t);
    }
    json_object_set_new(all, name, set);
  }
  *sets = all;
  return VKOCC_OK;
}

static vkocc_status check_config(json_t *sets, json_t *cfg, const char *path, const char *where) {
  const char *name;
  json_t *v;
  json_object_foreach(cfg, name, v) {
    json_t *set = json_object_get(sets, name);
    char msg[400];
    if (!set) {
      snprintf(msg, sizeof msg, "'%.100s' is not one of the tuning parameters ($.parameters)", name);
      return bad(path, where, msg);
    }
    char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    bool ok = t && json_object_get(set, t);
    if (!ok) {
      snprintf(msg, sizeof msg, "%.100s = %.60s is not one of the parameter's values ($.parameters)", name, t ? t : "?");
      free(t);
      return bad(path, where, msg);
    }
    free(t);
  }
  if (json_object_size(cfg) != json_object_size(sets)) {
    json_object_foreach(sets, name, v)
      if (!json_object_get(cfg, name)) {
        char msg[200];
        snprintf(msg, sizeof msg, "no value for the parameter '%.100s'", name);
        return bad(path, where, msg);
      }
  }
  return VKOCC_OK;
}

static vkocc_status load_results(json_t *res, const char *path, json_t *sets, json_t *seen, tune_doc *out);

vkocc_status tune_results_load_user(json_t *doc, const char *path, tune_doc *out) {
  char kname[128];
  double n = 0;
  vkocc_status s;
  if ((s = util_json_str(doc, "kernel", path, "$", true, kname, sizeof kname)) ||
      (s = util_json_f64(doc, "problem_size", path, "$", true, &n)))
    return s;
  if (!kname[0]) return bad(path, "$.kernel", "empty");
  if (!(n >= 0 && n <= 9.2e18 && n == floor(n))) return bad(path, "$.problem_size", "expected a non-negative integer");
  out->k = tune_user_kernel(kname);
  if (!out->k) return bad(path, "$.kernel", "more than 256 user kernels");
  out->f32 = false, out->n = (uint64_t)n;
  json_t *res = json_object_get(doc, "results");
  if (!json_is_array(res)) return bad(path, "$.results", "expected an array");
  json_t *sets, *seen = json_object();
  if ((s = value_sets(doc, path, &sets))) { json_decref(seen); return s; }
  s = load_results(res, path, sets, seen, out);
  json_decref(sets), json_decref(seen);
  return s;
}

static vkocc_status load_results(json_t *res, const char *path, json_t *sets, json_t *seen, tune_doc *out) {
  vkocc_status s;
  out->r = util_xcalloc(json_array_size(res) + 1, sizeof *out->r);
  for (size_t i = 0; i < json_array_size(res); i++) {
    char p[64];
    snprintf(p, sizeof p, "$.results[%zu]", i);
    json_t *e = json_array_get(res, i);
    tune_result *r = &out->r[out->count];
    if (!json_is_object(e)) return bad(path, p, "expected an object");
    json_t *cfg = json_object_get(e, "config");
    if (!json_is_object(cfg)) return bad(path, p, "'config' must be an object");
    char cp[80];
    snprintf(cp, sizeof cp, "%s.config", p);
    if ((s = check_config(sets, cfg, path, cp))) return s;
    char *k = json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS);
    size_t kl = strlen(k);
    if (kl >= sizeof r->key) { free(k); return bad(path, p, "the configuration's text is longer than 255 characters"); }
    memcpy(r->key, k, kl + 1);
    free(k);
    if ((s = util_json_bool(e, "valid", path, p, true, &r->valid))) return s;
    json_t *m = json_object_get(e, "median_ns"), *fr = json_object_get(json_object_get(e, "final_round"), "median_ns");
    r->median_ns = json_is_number(m) ? json_number_value(m) : NAN;
    (void)fr; /* a final round's re-timing is reported, never ranked: the search's median is the time */
    r->spread = f64(e, "spread"), r->min_ns = f64(e, "min_ns"), r->max_ns = f64(e, "max_ns");
    json_t *nv = json_object_get(e, "normalized_ns");
    r->normalized_ns = json_is_number(nv) && json_number_value(nv) > 0 ? json_number_value(nv) : 0;
    json_t *runs = json_object_get(e, "runs");
    r->runs = json_is_integer(runs) && json_integer_value(runs) >= 0 ? (uint32_t)json_integer_value(runs) : 0;
    if (r->valid && !(r->median_ns > 0)) return bad(path, p, "a valid result needs a positive median_ns");
    const char *err = json_string_value(json_object_get(e, "error"));
    if (err) snprintf(r->error, sizeof r->error, "%s", err);
    if (json_object_get(seen, r->key)) return bad(path, p, "this configuration appears twice");
    json_object_set_new(seen, r->key, json_true());
    r->measured = true;
    out->count++;
  }
  return VKOCC_OK;
}
