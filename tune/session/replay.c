/* Replaying search strategies over recorded spaces (replay.h): the loaders (vkocc tune-results, T4), the
 * occupancy features from a fingerprint's device model, and the statistics over seeds. */
#include "replay.h"
#include "builtin.h"
#include "features.h"
#include "io.h"
/* kernels.h's input generator tune_rng() and search.h's generator type tune_rng share a name: renamed here
 * for this file only (nothing here uses the generator) */
#define tune_rng tune_kernel_input_rng
#include "tune_results.h"
#undef tune_rng
#include "jsonio.h"
#include "user_results.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ occupancy features */

/* The occupancy features (tune/search/features.c) of every configuration, and the prior. */
static void occupancy_features(tune_replay_space *sp, const vkocc_derived *d, const uint32_t *wg,
                               const uint32_t *shared, const uint32_t *groups) {
  uint32_t n = sp->s.nconfigs;
  for (uint32_t j = 0; j < TUNE_OCC_NFEATURES; j++) sp->feature_names[j] = tune_occ_feature_names[j];
  sp->features = util_xmalloc((size_t)(n ? n : 1) * TUNE_OCC_NFEATURES * sizeof *sp->features);
  sp->weights = util_xmalloc((size_t)(n ? n : 1) * sizeof *sp->weights);
  tune_occupancy_features(d, n, wg, shared, groups, sp->features, sp->weights);
  sp->s.nfeatures = TUNE_OCC_NFEATURES, sp->s.feature_names = sp->feature_names, sp->s.features = sp->features;
  sp->s.prior_weight = sp->weights;
}

/* The fingerprint's derived limits: the given file, else fingerprint.json beside the results. */
static bool load_model(tune_replay_space *sp, const char *path, const char *fingerprint, uint32_t sm_hint,
                       vkocc_derived *d, vkocc_status *err) {
  char beside[1024];
  *err = VKOCC_OK;
  if (!fingerprint) {
    const char *slash = strrchr(path, '/');
    int len = slash ? (int)(slash - path) : 1;
    snprintf(beside, sizeof beside, "%.*s/fingerprint.json", len, slash ? path : ".");
    if (access(beside, R_OK)) {
      snprintf(sp->feature_note, sizeof sp->feature_note, "no fingerprint.json beside the results and no --fingerprint");
      return false;
    }
    fingerprint = beside;
  }
  /* its "derived" limits; a fingerprint without them: those of its normalized surface */
  json_error_t je;
  json_t *doc = json_load_file(fingerprint, 0, &je), *der = json_object_get(doc, "derived");
  vkocc_status s;
  if (!doc) s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: line %d: %s", fingerprint, je.line, je.text);
  else if (json_is_object(der)) s = vkocc_derived_from_json(der, fingerprint, "$.derived", d);
  else {
    vkocc_surface surf;
    bool model_only = false;
    s = vkocc_surface_load_model(fingerprint, &surf, d, &model_only);
    if (!s) vkocc_surface_free(&surf);
    if (!s && !model_only) s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.derived: no derived limits", fingerprint);
  }
  json_decref(doc);
  if (s) { *err = s; return false; }
  if (!d->sm_count) d->sm_count = sm_hint;
  if (!d->threads_per_sm) d->threads_per_sm = d->subgroups_per_sm * d->subgroup_size;
  snprintf(sp->fingerprint, sizeof sp->fingerprint, "%s", fingerprint);
  return true;
}

/* ------------------------------------------------------------------ the coded space */

/* Distinct values of one parameter, as JSON, sorted: numbers ascending, then strings, then the rest. */
typedef struct values { json_t **v; uint32_t n, cap; bool absent; json_t *idx; } values;

/* a value's text for the hash of its parameter's values: numbers by their double (1 and 1.0 are one value) */
static char *value_text(const json_t *v) {
  if (json_is_number(v)) {
    char b[40];
    snprintf(b, sizeof b, "n%.17g", json_number_value(v));
    return util_xstrdup(b);
  }
  return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
}

static int rank_of(const json_t *a) { return json_is_number(a) ? 0 : json_is_boolean(a) ? 1 : json_is_string(a) ? 2 : 3; }
static int cmp_json(const void *x, const void *y) {
  const json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
  int ra = rank_of(a), rb = rank_of(b);
  if (ra != rb) return ra - rb;
  if (ra == 0) {
    double u = json_number_value(a), v = json_number_value(b);
    return u < v ? -1 : u > v;
  }
  if (ra == 1) return (int)json_is_true(a) - (int)json_is_true(b);
  if (ra == 2) return strcmp(json_string_value(a), json_string_value(b));
  return 0;
}
/* hashed: a scan of the values per configuration was quadratic in a space of many distinct values */
static uint32_t value_add(values *vs, json_t *v) {
  if (!vs->idx) vs->idx = json_object();
  char *t = value_text(v);
  json_t *have = t ? json_object_get(vs->idx, t) : NULL;
  if (have) { free(t); return (uint32_t)json_integer_value(have); }
  if (t) json_object_set_new(vs->idx, t, json_integer(vs->n));
  free(t);
  if (vs->n == vs->cap) vs->cap = vs->cap ? 2 * vs->cap : 16, vs->v = util_xrealloc(vs->v, vs->cap * sizeof *vs->v);
  vs->v[vs->n] = json_incref(v);
  return vs->n++;
}
static uint32_t value_index(const values *vs, const json_t *v) {
  if (!v) return vs->n; /* absent: after every value */
  char *t = value_text(v);
  json_t *have = t && vs->idx ? json_object_get(vs->idx, t) : NULL;
  free(t);
  return have ? (uint32_t)json_integer_value(have) : vs->n;
}

/* Codes configs[0..n) (JSON objects over the parameters names[0..np)) into sp: value indices, labels. */
static void code_space(tune_replay_space *sp, json_t **configs, uint32_t n, char **names, uint32_t np) {
  values *vs = util_xcalloc(np ? np : 1, sizeof *vs);
  for (uint32_t c = 0; c < n; c++)
    for (uint32_t p = 0; p < np; p++) {
      json_t *v = json_object_get(configs[c], names[p]);
      if (v) value_add(&vs[p], v);
      else vs[p].absent = true;
    }
  sp->param_names = names;
  sp->nvalues = util_xmalloc((np ? np : 1) * sizeof *sp->nvalues);
  sp->labels = util_xcalloc(np ? np : 1, sizeof *sp->labels);
  for (uint32_t p = 0; p < np; p++) {
    if (vs[p].n) qsort(vs[p].v, vs[p].n, sizeof *vs[p].v, cmp_json); /* none when every result lacks it */
    /* the index again, in the sorted order */
    json_object_clear(vs[p].idx);
    for (uint32_t i = 0; i < vs[p].n; i++) {
      char *t = value_text(vs[p].v[i]);
      if (t) json_object_set_new(vs[p].idx, t, json_integer(i));
      free(t);
    }
    sp->nvalues[p] = vs[p].n + vs[p].absent;
    sp->labels[p] = util_xcalloc(sp->nvalues[p] + 1, sizeof *sp->labels[p]);
    for (uint32_t i = 0; i < vs[p].n; i++) {
      json_t *v = vs[p].v[i];
      sp->labels[p][i] = json_is_string(v) ? util_xstrdup(json_string_value(v)) : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
      if (!sp->labels[p][i]) sp->labels[p][i] = util_xstrdup("?");
    }
    if (vs[p].absent) sp->labels[p][vs[p].n] = util_xstrdup("-");
  }
  sp->coord = util_xmalloc((size_t)(n ? n : 1) * (np ? np : 1) * sizeof *sp->coord);
  for (uint32_t c = 0; c < n; c++)
    for (uint32_t p = 0; p < np; p++) sp->coord[(size_t)c * np + p] = value_index(&vs[p], json_object_get(configs[c], names[p]));
  for (uint32_t p = 0; p < np; p++) {
    for (uint32_t i = 0; i < vs[p].n; i++) json_decref(vs[p].v[i]);
    free(vs[p].v);
    json_decref(vs[p].idx);
  }
  free(vs);
  sp->s.nparams = np, sp->s.nconfigs = n, sp->s.param_names = (const char *const *)names;
  sp->s.nvalues = sp->nvalues, sp->s.coord = sp->coord;
}

static void find_optimum(tune_replay_space *sp) {
  sp->optimum = -1, sp->optimum_ns = INFINITY, sp->nvalid = 0;
  for (uint32_t c = 0; c < sp->s.nconfigs; c++)
    if (sp->truth[c].valid) {
      sp->nvalid++;
      if (sp->truth[c].time_ns < sp->optimum_ns) sp->optimum_ns = sp->truth[c].time_ns, sp->optimum = c;
    }
}

/* ------------------------------------------------------------------ vkocc.tune-results */

static uint64_t product3(json_t *a) {
  uint64_t p = 1;
  for (size_t i = 0; i < 3; i++) {
    json_t *v = json_array_get(a, i);
    json_int_t x = json_is_integer(v) ? json_integer_value(v) : i ? 1 : 0;
    p = x >= 1 && x <= (1 << 30) && p <= (1ull << 32) ? p * (uint64_t)x : 0;
  }
  return p;
}

/* A user kernel's results (`"kind": "user"`): the parameters are the keys of each record's `config` (in the
 * order of `parameters[]`), records with invalidity `constraints` (a condition naming P ruled them out) leave the
 * space as in T4. Features: the workgroup size is the record's local_size (LocalSize, known before running),
 * shared memory unknown (0); the workgroup count is the record's when the launch does not depend on P, else
 * (P recorded) the model's P times the launch's multiple of the measured P (GlobalSize "P * K"). */
static vkocc_status load_user_results(const char *path, json_t *raw, const char *fingerprint, tune_doc *doc,
                                      tune_replay_space *sp) {
  json_t *res = json_object_get(raw, "results"), *params = json_object_get(raw, "parameters");
  uint32_t total = doc->count, n = 0, np = 0;
  json_t **configs = util_xmalloc((size_t)(total ? total : 1) * sizeof *configs), **recs = util_xmalloc((size_t)(total ? total : 1) * sizeof *recs);
  tune_eval *truth = util_xmalloc((size_t)(total ? total : 1) * sizeof *truth);
  for (uint32_t c = 0; c < total; c++) {
    json_t *r = json_array_get(res, c);
    const char *inv = json_string_value(json_object_get(r, "invalidity"));
    if (inv && !strcmp(inv, "constraints")) { sp->constrained++; continue; }
    configs[n] = json_object_get(r, "config"), recs[n] = r;
    truth[n++] = (tune_eval){doc->r[c].valid && doc->r[c].median_ns > 0, doc->r[c].median_ns};
  }
  /* the parameter names: parameters[].name where the document lists them, then any other key of a config */
  char **names = NULL;
  uint32_t cap = 0;
  size_t i;
  json_t *pe;
  json_array_foreach(params, i, pe) {
    const char *nm = json_string_value(json_object_get(pe, "name"));
    if (!nm || np >= 64) continue;
    if (np == cap) cap = cap ? 2 * cap : 8, names = util_xrealloc(names, cap * sizeof *names);
    names[np++] = util_xstrdup(nm);
  }
  for (uint32_t c = 0; c < n; c++) {
    const char *key;
    json_t *v;
    json_object_foreach(configs[c], key, v) {
      bool have = false;
      for (uint32_t p = 0; p < np && !have; p++) have = !strcmp(names[p], key);
      if (have || np >= 64) continue;
      if (np == cap) cap = cap ? 2 * cap : 8, names = util_xrealloc(names, cap * sizeof *names);
      names[np++] = util_xstrdup(key);
    }
  }
  if (!n) {
    for (uint32_t p = 0; p < np; p++) free(names[p]);
    free(names), free(configs), free(recs), free(truth);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results: no configuration that the constraints allow", path);
  }
  if (!names) names = util_xmalloc(sizeof *names);
  code_space(sp, configs, n, names, np);
  sp->truth = truth;
  json_t *space = json_object_get(raw, "space");
  json_int_t allowed = json_integer_value(json_object_get(space, "allowed"));
  snprintf(sp->what, sizeof sp->what, "%s at %llu on %s%s", doc->k->name, (unsigned long long)doc->n, doc->dev.id.name,
           allowed > (json_int_t)total ? " (partial: not every allowed configuration measured)" : "");
  vkocc_derived d;
  vkocc_status s = VKOCC_OK;
  if (load_model(sp, path, fingerprint, doc->dev.id.sm_count, &d, &s)) {
    uint32_t *wg = util_xcalloc(n, sizeof *wg), *sh = util_xcalloc(n, sizeof *sh), *gr = util_xcalloc(n, sizeof *gr);
    double *f = util_xmalloc((size_t)n * TUNE_OCC_NFEATURES * sizeof *f), *w = util_xmalloc((size_t)n * sizeof *w);
    bool any = false;
    for (uint32_t c = 0; c < n; c++) {
      uint64_t x = product3(json_object_get(recs[c], "local_size"));
      wg[c] = x <= 65536 ? (uint32_t)x : 0;
      any |= wg[c] > 0;
      json_t *P = json_object_get(recs[c], "P");
      uint64_t g = product3(json_object_get(recs[c], "groups"));
      if (!(json_is_integer(P) && json_integer_value(P) > 0)) gr[c] = g <= UINT32_MAX ? (uint32_t)g : 0;
    }
    /* the model's P, then the P-based launches scaled to it */
    tune_occupancy_features(&d, n, wg, sh, NULL, f, w);
    for (uint32_t c = 0; c < n; c++) {
      json_t *P = json_object_get(recs[c], "P");
      double pm = f[(size_t)c * TUNE_OCC_NFEATURES + 3];
      uint64_t g = product3(json_object_get(recs[c], "groups"));
      if (json_is_integer(P) && json_integer_value(P) > 0 && g && isfinite(pm) && pm > 0) {
        double k = (double)g / (double)json_integer_value(P), x = k * pm;
        gr[c] = x >= 1 && x <= 4e9 ? (uint32_t)llround(x) : 0;
      }
    }
    free(f), free(w);
    if (any) {
      occupancy_features(sp, &d, wg, sh, gr);
      snprintf(sp->feature_note, sizeof sp->feature_note,
               "workgroup size from local_size, shared memory unknown (0), workgroup count from groups (P-based launches: the multiple of the model's P)");
    } else snprintf(sp->feature_note, sizeof sp->feature_note, "no local_size in the results");
    free(wg), free(sh), free(gr);
  }
  free(configs), free(recs);
  return s;
}

static vkocc_status load_tune_results(const char *path, json_t *raw, const char *fingerprint, tune_replay_space *sp) {
  tune_doc doc;
  vkocc_status s = tune_results_load(path, NULL, &doc);
  if (s) return s;
  /* a user kernel's results; a shipped kernel's (either form) are read by its kernel's parameters */
  if (!doc.imported && !tune_results_shipped(raw)) {
    s = load_user_results(path, raw, fingerprint, &doc, sp);
    tune_doc_free(&doc);
    return s;
  }
  const tune_kernel_def *k = doc.k;
  uint32_t n = doc.count, np = k->nparams;
  json_t **configs = util_xmalloc((size_t)(n ? n : 1) * sizeof *configs);
  for (uint32_t c = 0; c < n; c++) configs[c] = tune_config_json(k, &doc.r[c].cfg);
  char **names = util_xmalloc(np * sizeof *names);
  for (uint32_t p = 0; p < np; p++) names[p] = util_xstrdup(k->params[p].name);
  code_space(sp, configs, n, names, np);
  sp->truth = util_xmalloc((size_t)(n ? n : 1) * sizeof *sp->truth);
  for (uint32_t c = 0; c < n; c++)
    sp->truth[c] = (tune_eval){doc.r[c].measured && doc.r[c].valid && doc.r[c].median_ns > 0, doc.r[c].median_ns};
  json_t *space = json_object_get(raw, "space");
  json_t *ran = json_object_get(space, doc.imported ? "runnable" : "allowed");
  json_int_t runnable = json_integer_value(ran);
  snprintf(sp->what, sizeof sp->what, "%s %s at %llu on %s%s", k->name, doc.f32 ? "f32" : "u32",
           (unsigned long long)doc.n, doc.dev.id.name, runnable > (json_int_t)n ? " (partial: not every runnable configuration measured)" : "");
  /* features: the workgroup size is the wg_size parameter; shared memory and groups from the kernel */
  vkocc_derived d;
  if (load_model(sp, path, fingerprint, doc.dev.id.sm_count, &d, &s)) {
    uint32_t *wg = util_xcalloc(n ? n : 1, sizeof *wg), *sh = util_xcalloc(n ? n : 1, sizeof *sh),
             *gr = util_xcalloc(n ? n : 1, sizeof *gr);
    int wgp = -1;
    for (uint32_t p = 0; p < np; p++)
      if (!strcmp(k->params[p].name, "wg_size")) wgp = (int)p;
    tune_config *cfg = util_xcalloc(n ? n : 1, sizeof *cfg);
    for (uint32_t c = 0; c < n; c++) cfg[c] = doc.r[c].cfg;
    tu_builtin_groups(k, doc.f32, doc.n, cfg, n, gr);
    free(cfg);
    for (uint32_t c = 0; c < n && wgp >= 0; c++) {
      wg[c] = doc.r[c].cfg.v[wgp];
      sh[c] = k->shared_bytes ? k->shared_bytes(&doc.r[c].cfg) : 0; /* as the kernel's GLSL declares it */
    }
    if (wgp >= 0) {
      occupancy_features(sp, &d, wg, sh, gr);
      snprintf(sp->feature_note, sizeof sp->feature_note,
               "workgroup size from wg_size, shared memory and workgroup count from the %s kernel", k->name);
    }
    free(wg), free(sh), free(gr);
  }
  for (uint32_t c = 0; c < n; c++) json_decref(configs[c]);
  free(configs);
  tune_doc_free(&doc);
  return s;
}

/* ------------------------------------------------------------------ T4 */

static double unit_ns(const char *u) {
  if (!u || !strcmp(u, "ms")) return 1e6; /* Kernel Tuner's unit */
  if (!strcmp(u, "s")) return 1e9;
  if (!strcmp(u, "us") || !strcmp(u, "\xc2\xb5s")) return 1e3;
  if (!strcmp(u, "ns")) return 1;
  return 0;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median_of(json_t *arr, bool *ok) {
  size_t n = json_array_size(arr);
  *ok = n > 0;
  if (!n) return NAN;
  double *v = util_xmalloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++) {
    json_t *e = json_array_get(arr, i);
    if (!json_is_number(e)) { *ok = false; free(v); return NAN; }
    v[i] = json_number_value(e);
  }
  qsort(v, n, sizeof *v, cmp_dbl);
  double m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  free(v);
  return m;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct t4_rec { size_t at; json_t *times; double scale; bool from_value; } t4_rec;

/* A correct record's time: its objective's measurement (a number, or the median of an array, in its unit), else
 * the median of times.runtimes (ms) */
static vkocc_status t4_time(const char *path, size_t i, json_t *r, t4_rec *rec, tune_eval *e) {
  json_t *obj = json_object_get(r, "objectives");
  const char *want = json_is_array(obj) && json_is_string(json_array_get(obj, 0)) ? json_string_value(json_array_get(obj, 0)) : "time";
  json_t *ms = json_object_get(r, "measurements");
  bool got = false;
  for (size_t m = 0; m < json_array_size(ms) && !got; m++) {
    json_t *me = json_array_get(ms, m), *val = json_object_get(me, "value");
    if (!json_is_string(json_object_get(me, "name")) || strcmp(json_string_value(json_object_get(me, "name")), want)) continue;
    double scale = unit_ns(json_string_value(json_object_get(me, "unit")));
    bool ok = json_is_number(val);
    double t = ok ? json_number_value(val) : json_is_array(val) ? median_of(val, &ok) : NAN;
    if (!ok || !scale)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu].measurements[%zu]: expected a number (or an array of numbers) in s, ms, us or ns", path, i, m);
    e->time_ns = t * scale, got = true;
    if (json_is_array(val)) rec->times = val, rec->scale = scale, rec->from_value = true;
  }
  if (!got) {
    bool ok = false;
    double t = median_of(json_object_get(json_object_get(r, "times"), "runtimes"), &ok);
    if (ok) e->time_ns = t * 1e6, got = true;
  }
  if (!got)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu].measurements: no '%s' measurement and no times.runtimes", path, i, want);
  e->valid = true; /* its time is checked below: a correct record without a positive time is refused */
  return VKOCC_OK;
}

/* The occupancy features of a T4 space: the workgroup size is the product of the parameters that name it, when there
 * are such (the fingerprint's model then gives the rest) */
static vkocc_status t4_features(tune_replay_space *sp, const char *path, const char *fingerprint, char **names, uint32_t np,
                                json_t **configs, uint32_t m) {
  vkocc_status s = VKOCC_OK;
  static const char *const wgnames[] = {"block_size_x", "block_size_y", "block_size_z", "local_size_x", "local_size_y",
                                        "local_size_z", "wg_size", "workgroup_size", "LOCAL_SIZE_X", "LOCAL_SIZE_Y",
                                        "LOCAL_SIZE_Z"};
  bool any = false;
  for (uint32_t p = 0; p < np; p++)
    for (size_t w = 0; w < VKOCC_ARRAY_LEN(wgnames); w++) any |= !strcmp(names[p], wgnames[w]);
  vkocc_derived d;
  if (!any) {
    snprintf(sp->feature_note, sizeof sp->feature_note, "no parameter names the workgroup size (block_size_x, local_size_x, wg_size...)");
  } else if (load_model(sp, path, fingerprint, 0, &d, &s)) {
    uint32_t *wg = util_xcalloc(m ? m : 1, sizeof *wg), *sh = util_xcalloc(m ? m : 1, sizeof *sh);
    for (uint32_t c = 0; c < m; c++) {
      uint64_t w = 1;
      for (uint32_t p = 0; p < np; p++)
        for (size_t k = 0; k < VKOCC_ARRAY_LEN(wgnames); k++)
          if (!strcmp(names[p], wgnames[k])) {
            json_t *v = json_object_get(configs[c], names[p]);
            double x = json_is_number(v) ? json_number_value(v) : 0;
            w = x >= 1 && x <= 65536 ? w * (uint64_t)x : 0;
          }
      wg[c] = w <= 65536 ? (uint32_t)w : 0;
    }
    occupancy_features(sp, &d, wg, sh, NULL);
    snprintf(sp->feature_note, sizeof sp->feature_note, "workgroup size from the block/local size parameters; shared memory unknown (0)");
    free(wg), free(sh);
  }
  return s;
}

static vkocc_status load_t4(const char *path, json_t *doc, const char *fingerprint, tune_replay_space *sp) {
  json_t *results = json_object_get(doc, "results");
  if (!json_is_array(results)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results: expected an array", path);
  size_t total = json_array_size(results);
  if (total > 50u * 1000 * 1000) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results: more than 50 million results", path);
  json_t **configs = util_xmalloc((total ? total : 1) * sizeof *configs);
  tune_eval *truth = util_xmalloc((total ? total : 1) * sizeof *truth);
  /* per record kept: its index in $.results, the times it gives (the measurement's array, else times.runtimes) and
   * their unit, and the time it is ranked by where the measurement gives one number (NAN: the median of the times) */
  t4_rec *rec = util_xmalloc((total ? total : 1) * sizeof *rec);
  uint32_t n = 0, np = 0, cap_names = 0;
  char **names = NULL;
  vkocc_status s = VKOCC_OK;
  for (size_t i = 0; i < total && !s; i++) {
    json_t *r = json_array_get(results, i), *cfg = json_object_get(r, "configuration");
    json_t *inv = json_object_get(r, "invalidity");
    if (!json_is_object(r)) { s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu]: expected an object", path, i); break; }
    if (!json_is_object(cfg)) { s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu].configuration: expected an object", path, i); break; }
    rec[n] = (t4_rec){.at = i, .times = json_object_get(json_object_get(r, "times"), "runtimes"), .scale = 1e6};
    if (!json_is_string(inv)) { s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu].invalidity: expected a string", path, i); break; }
    const char *iv = json_string_value(inv);
    static const char *const kinds[] = {"timeout", "compile", "runtime", "correctness", "constraints", "correct"};
    bool known = false;
    for (size_t k = 0; k < VKOCC_ARRAY_LEN(kinds) && !known; k++) known = !strcmp(iv, kinds[k]);
    if (!known) { s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu].invalidity: unknown value '%s'", path, i, iv); break; }
    if (!strcmp(iv, "constraints")) { sp->constrained++; continue; }
    const char *key;
    json_t *v;
    json_object_foreach(cfg, key, v) {
      if (!json_is_number(v) && !json_is_string(v) && !json_is_boolean(v)) {
        s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu].configuration.%s: expected a number, string or bool", path, i, key);
        break;
      }
      bool have = false;
      for (uint32_t p = 0; p < np && !have; p++) have = !strcmp(names[p], key);
      if (have) continue;
      if (np == 64) { s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu].configuration: more than 64 parameters", path, i); break; }
      if (np == cap_names) cap_names = cap_names ? 2 * cap_names : 8, names = util_xrealloc(names, cap_names * sizeof *names);
      names[np++] = util_xstrdup(key);
    }
    if (s) break;
    tune_eval e = {false, 0};
    if (!strcmp(iv, "correct") && (s = t4_time(path, i, r, &rec[n], &e))) break;
    configs[n] = cfg, truth[n] = e, n++;
  }
  if (!s && !n) s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results: no configuration that the constraints allow", path);
  if (s) {
    for (uint32_t p = 0; p < np; p++) free(names[p]);
    free(names), free(configs), free(truth), free(rec);
    return s;
  }
  qsort(names, np, sizeof *names, cmp_str);
  code_space(sp, configs, n, names, np);
  /* each record through the one check of a recorded result (tune/results/user_results.h): a configuration recorded twice
   * (which of the two times is the truth?) or empty, a time that is not positive, is refused naming the entry */
  uint32_t m = 0;
  {
    uint32_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    uint32_t *tab = util_xmalloc(cap * sizeof *tab);
    int64_t *first = util_xmalloc((size_t)(n ? n : 1) * sizeof *first);
    memset(tab, 0xff, cap * sizeof *tab);
    for (uint32_t c = 0; c < n && !s; c++) {
      const uint32_t *cc = sp->coord + (size_t)c * np;
      uint64_t h = 1469598103934665603ull;
      for (uint32_t p = 0; p < np; p++) h = (h ^ cc[p]) * 1099511628211ull;
      uint32_t b = (uint32_t)(h ^ (h >> 29)) & (cap - 1);
      int64_t at = -1;
      for (; tab[b] != UINT32_MAX && at < 0; b = (b + 1) & (cap - 1))
        if (!memcmp(sp->coord + (size_t)tab[b] * np, cc, np * sizeof *cc)) at = tab[b];
      if (at < 0) first[m] = -1;
      size_t nt = json_array_size(rec[c].times);
      double *t = util_xmalloc((nt + 1) * sizeof *t);
      for (size_t k = 0; k < nt; k++) {
        json_t *v = json_array_get(rec[c].times, k);
        t[k] = json_is_number(v) ? json_number_value(v) * rec[c].scale : NAN;
      }
      tu_record rv = {.config = at >= 0 ? at : m, .empty = !json_object_size(configs[c]), .valid = truth[c].valid,
                      .times = t, .ntimes = (uint32_t)nt, .time = truth[c].valid ? truth[c].time_ns : NAN,
                      .times_name = rec[c].from_value ? "the measurement's values" : "times.runtimes",
                      .time_name = "time measurement"};
      char why[300];
      if (!tu_record_check(&rv, first, (int64_t)rec[c].at, "$.results[%lld]", why, sizeof why))
        s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu].configuration: %s", path, rec[c].at, why);
      free(t);
      if (s) break;
      tab[b] = m;
      memmove(sp->coord + (size_t)m * np, cc, np * sizeof *cc);
      truth[m] = truth[c], configs[m] = configs[c], m++;
    }
    free(tab), free(first);
  }
  free(rec);
  if (s) {
    free(configs), free(truth);
    return s;
  }
  sp->s.nconfigs = m;
  sp->truth = truth;
  snprintf(sp->what, sizeof sp->what, "T4 results, %u parameters", np);
  s = t4_features(sp, path, fingerprint, names, np, configs, m);
  free(configs);
  return s;
}

/* ------------------------------------------------------------------ loading */

vkocc_status tune_replay_load(const char *path, const char *fingerprint, tune_replay_space *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->file, sizeof out->file, "%s", path);
  json_error_t je;
  json_t *doc = json_load_file(path, 0, &je);
  if (!doc) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: line %d: %s", path, je.line, je.text);
  vkocc_status s;
  json_t *schema = json_object_get(doc, "schema");
  if (json_is_string(schema) && !strncmp(json_string_value(schema), "vkocc.tune-results", 18)) s = load_tune_results(path, doc, fingerprint, out);
  else if (json_is_object(doc) && json_object_get(doc, "results")) s = load_t4(path, doc, fingerprint, out);
  else s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $: neither a vkocc.tune-results document nor T4 results (no \"results\")", path);
  json_decref(doc);
  if (!s) {
    find_optimum(out);
    if (out->optimum < 0) s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results: no valid configuration to replay against", path);
  }
  if (s) tune_replay_space_free(out);
  return s;
}

void tune_replay_space_free(tune_replay_space *sp) {
  for (uint32_t p = 0; p < sp->s.nparams; p++) {
    if (sp->labels && sp->labels[p]) {
      for (uint32_t v = 0; v < sp->nvalues[p]; v++) free(sp->labels[p][v]);
      free(sp->labels[p]);
    }
    if (sp->param_names) free(sp->param_names[p]);
  }
  free(sp->labels), free(sp->param_names), free(sp->nvalues), free(sp->coord), free(sp->features), free(sp->weights);
  free(sp->truth);
  memset(sp, 0, sizeof *sp);
}

void tune_replay_config_text(const tune_replay_space *sp, uint32_t c, char *out, size_t len) {
  size_t k = 0;
  out[0] = 0;
  for (uint32_t p = 0; p < sp->s.nparams && k < len; p++) {
    uint32_t v = sp->coord[(size_t)c * sp->s.nparams + p];
    const char *l = sp->labels[p][v];
    if (!strcmp(l, "-")) continue;
    int w = snprintf(out + k, len - k, "%s%s=%s", k ? " " : "", sp->param_names[p], l);
    if (w < 0) break;
    k += (size_t)w;
  }
}

/* ------------------------------------------------------------------ running */

typedef struct lookup { const tune_replay_space *sp; } lookup;
static vkocc_status eval_recorded(void *user, uint32_t c, tune_eval *e) {
  *e = ((lookup *)user)->sp->truth[c];
  return VKOCC_OK;
}

/* linear interpolation between order statistics (numpy's default) */
static double quantile(double *v, uint32_t n, double q) {
  qsort(v, n, sizeof *v, cmp_dbl);
  double pos = q * (n - 1);
  uint32_t lo = (uint32_t)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The seeds at one budget: frac[e * seeds + k], the fraction of the optimum after e + 1 evaluations. */
static vkocc_status run_seeds(const tune_replay_space *sp, const tune_space *s, const tune_strategy_def *def,
                              const json_t *attrs, uint32_t budget, uint32_t seeds, uint64_t seed0, double *frac,
                              uint32_t *to95, uint32_t *found) {
  lookup lk = {sp};
  tune_budget b = {.max_evals = budget, .target_ns = sp->optimum_ns}; /* after the optimum the curve stays at 1 */
  for (uint32_t k = 0; k < seeds; k++) {
    tune_search_result r;
    vkocc_status st = tune_search_run(s, def, seed0 + k, attrs, &b, eval_recorded, &lk, &r);
    if (st) { tune_search_result_free(&r); return st; }
    if (to95) to95[k] = budget + 1;
    double last = INFINITY;
    for (uint32_t e = 0; e < budget; e++) {
      if (e < r.evals) last = r.best_after[e];
      double f = isfinite(last) ? sp->optimum_ns / last : 0;
      frac[(size_t)e * seeds + k] = f;
      if (to95 && f >= 0.95 - 1e-12 && to95[k] > budget) to95[k] = e + 1;
    }
    if (found && r.best >= 0 && r.best_ns <= sp->optimum_ns) (*found)++;
    tune_search_result_free(&r);
  }
  return VKOCC_OK;
}

vkocc_status tune_replay_run(const tune_replay_space *sp, const tune_strategy_def *def, const json_t *attrs,
                             bool occupancy, uint32_t budget, uint32_t seeds, uint64_t seed0, tune_replay_stats *out) {
  memset(out, 0, sizeof *out);
  uint32_t n = sp->s.nconfigs;
  if (!budget || budget > n) budget = n;
  if (!seeds) seeds = 1;
  out->budget = budget, out->seeds = seeds;
  tune_space s = sp->s;
  if (!occupancy) s.nfeatures = 0, s.features = NULL, s.feature_names = NULL, s.prior_weight = NULL;
  double *frac = util_xmalloc((size_t)budget * seeds * sizeof *frac); /* [e][seed] */
  out->to95 = util_xmalloc(seeds * sizeof *out->to95);
  double t0 = now_s();
  vkocc_status st = run_seeds(sp, &s, def, attrs, budget, seeds, seed0, frac, out->to95, &out->found_optimum);
  static const double pct[4] = {1, 2, 5, 10};
  for (int i = 0; i < 4 && !st; i++) {
    uint32_t e = tune_replay_at_percent(sp, pct[i]);
    out->at_evals[i] = e;
    out->at_median[i] = out->at_q1[i] = out->at_q3[i] = NAN;
    if (e > budget) continue;
    double *f = e == budget ? frac : util_xmalloc((size_t)e * seeds * sizeof *f);
    if (f != frac) st = run_seeds(sp, &s, def, attrs, e, seeds, seed0, f, NULL, NULL);
    if (!st) {
      double *v = util_xmalloc(seeds * sizeof *v);
      memcpy(v, f + (size_t)(e - 1) * seeds, seeds * sizeof *v);
      out->at_q1[i] = quantile(v, seeds, 0.25), out->at_median[i] = quantile(v, seeds, 0.5);
      out->at_q3[i] = quantile(v, seeds, 0.75);
      free(v);
    }
    if (f != frac) free(f);
  }
  out->wall_s = now_s() - t0;
  if (st) { free(frac), free(out->to95); memset(out, 0, sizeof *out); return st; }
  out->median = util_xmalloc(budget * sizeof *out->median);
  out->q1 = util_xmalloc(budget * sizeof *out->q1);
  out->q3 = util_xmalloc(budget * sizeof *out->q3);
  for (uint32_t e = 0; e < budget; e++) {
    double *v = frac + (size_t)e * seeds;
    out->q1[e] = quantile(v, seeds, 0.25), out->median[e] = quantile(v, seeds, 0.5), out->q3[e] = quantile(v, seeds, 0.75);
  }
  double *t = util_xmalloc(seeds * sizeof *t);
  for (uint32_t k = 0; k < seeds; k++) t[k] = out->to95[k];
  double q[3] = {quantile(t, seeds, 0.25), quantile(t, seeds, 0.5), quantile(t, seeds, 0.75)};
  for (int i = 0; i < 3; i++)
    if (q[i] > budget) q[i] = INFINITY;
  out->to95_q1 = q[0], out->to95_median = q[1], out->to95_q3 = q[2];
  free(t), free(frac);
  return VKOCC_OK;
}

void tune_replay_stats_free(tune_replay_stats *st) {
  free(st->median), free(st->q1), free(st->q3), free(st->to95);
  memset(st, 0, sizeof *st);
}

uint32_t tune_replay_at_percent(const tune_replay_space *sp, double percent) {
  double e = ceil(percent / 100 * sp->s.nconfigs - 1e-9);
  return e < 1 ? 1 : (uint32_t)e;
}

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *tune_replay_stats_json(const tune_replay_space *sp, const char *strategy, bool occupancy,
                               const tune_replay_stats *st) {
  json_t *o = json_object(), *per = json_array(), *at = json_array(), *med = json_array(), *q1 = json_array(),
         *q3 = json_array();
  json_object_set_new(o, "strategy", json_string(strategy));
  json_object_set_new(o, "occupancy", json_boolean(occupancy && sp->s.nfeatures > 0));
  json_object_set_new(o, "seeds", json_integer(st->seeds));
  json_object_set_new(o, "budget", json_integer(st->budget));
  json_object_set_new(o, "median_fraction", json_real(st->median[st->budget - 1]));
  json_object_set_new(o, "q1_fraction", json_real(st->q1[st->budget - 1]));
  json_object_set_new(o, "q3_fraction", json_real(st->q3[st->budget - 1]));
  json_object_set_new(o, "seeds_finding_optimum", json_integer(st->found_optimum));
  json_t *e95 = json_object();
  json_object_set_new(e95, "median", num_or_null(st->to95_median));
  json_object_set_new(e95, "q1", num_or_null(st->to95_q1));
  json_object_set_new(e95, "q3", num_or_null(st->to95_q3));
  for (uint32_t k = 0; k < st->seeds; k++)
    json_array_append_new(per, st->to95[k] <= st->budget ? json_integer(st->to95[k]) : json_null());
  json_object_set_new(e95, "per_seed", per);
  json_object_set_new(o, "evaluations_to_95", e95);
  static const double pct[] = {1, 2, 5, 10};
  for (size_t i = 0; i < VKOCC_ARRAY_LEN(pct); i++) {
    json_t *a = json_object();
    json_object_set_new(a, "percent", json_real(pct[i]));
    json_object_set_new(a, "evaluations", json_integer(st->at_evals[i]));
    json_object_set_new(a, "median", num_or_null(st->at_median[i]));
    json_object_set_new(a, "q1", num_or_null(st->at_q1[i]));
    json_object_set_new(a, "q3", num_or_null(st->at_q3[i]));
    json_array_append_new(at, a);
  }
  json_object_set_new(o, "at_budget", at);
  /* the curve ends where every quartile has reached the optimum: what follows is all 1 */
  uint32_t len = st->budget;
  while (len > 1 && st->q1[len - 1] >= 1 && st->q1[len - 2] >= 1) len--;
  for (uint32_t e = 0; e < len; e++) {
    json_array_append_new(med, json_real(st->median[e]));
    json_array_append_new(q1, json_real(st->q1[e]));
    json_array_append_new(q3, json_real(st->q3[e]));
  }
  json_t *curve = json_object();
  json_object_set_new(curve, "note", json_string("after 1, 2, ... evaluations; entries after the last are 1"));
  json_object_set_new(curve, "median", med);
  json_object_set_new(curve, "q1", q1);
  json_object_set_new(curve, "q3", q3);
  json_object_set_new(o, "curve", curve);
  json_object_set_new(o, "wall_s", json_real(st->wall_s));
  return o;
}
