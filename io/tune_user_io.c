/* Results of user kernels, for policies: the reader of a "kind": "user" tuning results document into a tune_doc
 * (io/tune_user_io.h); tune/user_results.c writes them. */
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
    defs[n].name = vkocc_xstrdup(name);
    defs[n].what = "a user kernel tuned from a T1 spec";
    found = &defs[n++];
  }
  pthread_mutex_unlock(&lock);
  return found;
}

vkocc_status tune_results_load_user(json_t *doc, const char *path, tune_doc *out) {
  char kname[128];
  double n = 0;
  vkocc_status s;
  if ((s = vkocc_json_str(doc, "kernel", path, "$", true, kname, sizeof kname)) ||
      (s = vkocc_json_f64(doc, "problem_size", path, "$", true, &n)))
    return s;
  if (!kname[0]) return bad(path, "$.kernel", "empty");
  if (!(n >= 0 && n <= 9.2e18 && n == floor(n))) return bad(path, "$.problem_size", "expected a non-negative integer");
  out->k = tune_user_kernel(kname);
  if (!out->k) return bad(path, "$.kernel", "more than 256 user kernels");
  out->f32 = false, out->n = (uint64_t)n;
  json_t *res = json_object_get(doc, "results");
  if (!json_is_array(res)) return bad(path, "$.results", "expected an array");
  out->r = vkocc_xcalloc(json_array_size(res) + 1, sizeof *out->r);
  for (size_t i = 0; i < json_array_size(res); i++) {
    char p[64];
    snprintf(p, sizeof p, "$.results[%zu]", i);
    json_t *e = json_array_get(res, i);
    tune_result *r = &out->r[out->count];
    if (!json_is_object(e)) return bad(path, p, "expected an object");
    json_t *cfg = json_object_get(e, "config");
    if (!json_is_object(cfg)) return bad(path, p, "'config' must be an object");
    char *k = json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS);
    size_t kl = strlen(k);
    if (kl >= sizeof r->key) { free(k); return bad(path, p, "the configuration's text is longer than 255 characters"); }
    memcpy(r->key, k, kl + 1);
    free(k);
    if ((s = vkocc_json_bool(e, "valid", path, p, true, &r->valid))) return s;
    json_t *m = json_object_get(e, "median_ns"), *fr = json_object_get(json_object_get(e, "final_round"), "median_ns");
    r->median_ns = json_is_number(m) ? json_number_value(m) : NAN;
    (void)fr; /* a final round's re-timing is reported, never ranked: the search's median is the time */
    r->spread = f64(e, "spread"), r->min_ns = f64(e, "min_ns"), r->max_ns = f64(e, "max_ns");
    json_t *runs = json_object_get(e, "runs");
    r->runs = json_is_integer(runs) && json_integer_value(runs) >= 0 ? (uint32_t)json_integer_value(runs) : 0;
    if (r->valid && !(r->median_ns > 0)) return bad(path, p, "a valid result needs a positive median_ns");
    const char *err = json_string_value(json_object_get(e, "error"));
    if (err) snprintf(r->error, sizeof r->error, "%s", err);
    for (uint32_t j = 0; j < out->count; j++)
      if (!strcmp(out->r[j].key, r->key)) return bad(path, p, "this configuration appears twice");
    r->measured = true;
    out->count++;
  }
  return VKOCC_OK;
}
