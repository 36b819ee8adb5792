/* The one reader of tuning results (docs/tune.md): the results document, an older document of a shipped kernel
 * imported into the same tune_doc; a user kernel's records are checked by io/tune_user_io.c. */
#include "tune_results.h"
#include "tune_user_io.h"
#include "jsonio.h"
#include "io.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *tune_config_json(const tune_kernel_def *k, const tune_config *c) {
  json_t *o = json_object();
  for (uint32_t i = 0; i < k->nparams; i++) {
    if (!(c->mask & (1u << i))) continue;
    const tune_param_def *p = &k->params[i];
    json_object_set_new(o, p->name, p->names ? json_string(p->names[c->v[i]]) : json_integer(c->v[i]));
  }
  return o;
}

/* plain text that JSON writes as it is (no escape): the parameters' names and enumerated values are identifiers */
static bool plain(const char *t) {
  for (; *t; t++)
    if (*t == '"' || *t == '\\' || (unsigned char)*t < 0x20) return false;
  return true;
}

/* The key as jansson writes tune_config_json with JSON_COMPACT | JSON_SORT_KEYS, byte for byte, without building
 * the object: 100,000 results spent a quarter of `policy build`'s own time building and dumping them. */
static bool fast_key(const tune_kernel_def *k, const tune_config *c, char *out, size_t len) {
  uint32_t ord[32], n = 0;
  if (k->nparams > 32) return false;
  for (uint32_t i = 0; i < k->nparams; i++) {
    if (!(c->mask & (1u << i))) continue;
    uint32_t j = n++;
    while (j && strcmp(k->params[ord[j - 1]].name, k->params[i].name) > 0) ord[j] = ord[j - 1], j--;
    ord[j] = i;
  }
  char buf[2048];
  size_t at = 0;
  buf[at++] = '{';
  for (uint32_t q = 0; q < n; q++) {
    const tune_param_def *p = &k->params[ord[q]];
    if (p->names && c->v[ord[q]] >= p->nnames) return false;
    const char *name = p->names ? p->names[c->v[ord[q]]] : NULL;
    if (!plain(p->name) || (name && !plain(name))) return false;
    int w = name ? snprintf(buf + at, sizeof buf - at, "%s\"%s\":\"%s\"", q ? "," : "", p->name, name)
                 : snprintf(buf + at, sizeof buf - at, "%s\"%s\":%u", q ? "," : "", p->name, c->v[ord[q]]);
    if (w < 0 || (size_t)w >= sizeof buf - at - 1) return false;
    at += (size_t)w;
  }
  buf[at++] = '}', buf[at] = 0;
  snprintf(out, len, "%s", buf);
  return true;
}

void tune_config_key(const tune_kernel_def *k, const tune_config *c, char *out, size_t len) {
  if (fast_key(k, c, out, len)) return;
  json_t *o = tune_config_json(k, c);
  char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
  snprintf(out, len, "%s", s ? s : "");
  free(s);
  json_decref(o);
}

vkocc_status tune_config_from_json(const tune_kernel_def *k, json_t *o, const char *file, const char *path,
                                   tune_config *c) {
  memset(c, 0, sizeof *c);
  if (!json_is_object(o)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object of parameters", file, path);
  const char *name;
  json_t *v;
  json_object_foreach(o, name, v) {
    uint32_t i = 0;
    while (i < k->nparams && strcmp(k->params[i].name, name)) i++;
    if (i == k->nparams)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: kernel %s has no such parameter", file, path, name, k->name);
    const tune_param_def *p = &k->params[i];
    if (p->names) {
      uint32_t j = 0;
      while (j < p->nnames && !(json_is_string(v) && !strcmp(p->names[j], json_string_value(v)))) j++;
      if (j == p->nnames) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: not a %s of kernel %s", file, path, name, name, k->name);
      c->v[i] = j;
    } else {
      if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: expected an unsigned integer", file, path, name);
      c->v[i] = (uint32_t)json_integer_value(v);
    }
    c->mask |= 1u << i;
  }
  if (!(c->mask & 1)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.variant: missing", file, path);
  return VKOCC_OK;
}

vkocc_status tune_parse_type(const tune_kernel_def *k, const char *type, bool *f32) {
  if (!type || !strcmp(type, "u32")) { *f32 = false; return VKOCC_OK; }
  if (!strcmp(type, "f32") && k->has_f32) { *f32 = true; return VKOCC_OK; }
  return vkocc_fail(VKOCC_ERROR_USAGE, "element type '%s': kernel %s takes %s", type, k->name,
                    k->has_f32 ? "u32 or f32" : "u32 only");
}

void tune_device_id_fill(tune_device_id *id, const vkocc_device_info *d, json_t *fp_doc, const vkocc_fingerprint *fp) {
  memset(id, 0, sizeof *id);
  vkocc_device_identity_of(d, io_fingerprint_doc_sm_count(fp_doc), &id->id);
  if (fp) {
    id->has_fp = true;
    id->fp = *fp;
    snprintf(id->cluster_id, sizeof id->cluster_id, "%s", fp->cluster_id);
  }
  snprintf(id->queue_kind, sizeof id->queue_kind, "%s", vkocc_queue_kind_name(d->compute_queue_flags));
  /* the capacity the fingerprint recorded for this kind of family (it may be of another family: --fingerprint) */
  json_t *cap = json_array_get(json_object_get(fp_doc, "shared_capacity"), 0);
  const char *ck = json_string_value(json_object_get(cap, "kind"));
  json_t *sh = json_object_get(cap, "shared_bytes_per_sm");
  if (ck && !strcmp(ck, id->queue_kind) && json_is_integer(sh) && json_integer_value(sh) > 0 &&
      json_integer_value(sh) <= UINT32_MAX)
    id->shared_per_sm = (uint32_t)json_integer_value(sh);
}

json_t *tune_device_queue_json(const tune_device_id *id) {
  return json_pack("{s:s, s:o}", "kind", id->queue_kind[0] ? id->queue_kind : "unknown", "shared_bytes_per_sm",
                   id->shared_per_sm ? json_integer(id->shared_per_sm) : json_null());
}

/* The parameters of a configuration in range: those its variant takes, no others (as the kernel's space
 * has them), and every integer parameter a positive count: a workgroup of 0 threads, a grain of 0 elements
 * is no configuration to serve. masks[v]: the parameters variant v takes (0 when v has none). */
#define TUNE_MAX_VALUE (1u << 24)
static vkocc_status check_config(const tune_kernel_def *k, const uint32_t *masks, uint32_t nmasks, const tune_config *c,
                                 const char *file, const char *path) {
  uint32_t v = c->v[0];
  const char *vname = k->params[0].names && v < k->params[0].nnames ? k->params[0].names[v] : "?";
  uint32_t want = v < nmasks ? masks[v] : 0;
  if (!want)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.variant: '%s' has no configurations in kernel %s", file, path, vname,
                      k->name);
  for (uint32_t i = 1; i < k->nparams; i++) {
    bool has = c->mask >> i & 1, takes = want >> i & 1;
    if (has != takes)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: %s variant %s of kernel %s", file, path, k->params[i].name,
                        takes ? "missing: needed by" : "does not apply to", vname, k->name);
    if (!has || k->params[i].names) continue;
    uint32_t max = !strcmp(k->params[i].name, "wg_size") ? VKOCC_MAX_WG_SIZE : TUNE_MAX_VALUE;
    if (c->v[i] < 1 || c->v[i] > max)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: %u is out of range (1..%u)", file, path, k->params[i].name,
                        c->v[i], max);
  }
  return VKOCC_OK;
}

typedef struct { const char *key; uint32_t i; } keyref;
static int cmp_keyref(const void *a, const void *b) {
  const keyref *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

static vkocc_status opt_f64(json_t *o, const char *key, const char *file, const char *path, double *out) {
  json_t *v = json_object_get(o, key);
  if (!v || json_is_null(v)) { *out = NAN; return VKOCC_OK; }
  return util_json_f64(o, key, file, path, true, out);
}

/* A document of a shipped kernel's run: the results document every T1 spec writes ("kind": "user") with its
 * element type, its configurations as the kernel takes them (only the parameters of their variant). */
bool tune_results_shipped(json_t *doc) {
  const char *kind = json_string_value(json_object_get(doc, "kind"));
  const char *kname = json_string_value(json_object_get(doc, "kernel"));
  return kind && !strcmp(kind, "user") && json_object_get(doc, "element_type") && kname && kernels_find(kname);
}

/* The kernel, element type and size of a shipped kernel's document: the same members in the results document and
 * in an older document of vkocc.tune-results/1 without a kind (written before the shipped kernels were T1 specs). */
static vkocc_status shipped_header(json_t *doc, const char *path, const char *kernel, tune_doc *out) {
  char kname[64], type[8];
  double n = 0;
  vkocc_status s;
  if ((s = util_json_str(doc, "kernel", path, "$", true, kname, sizeof kname)) ||
      (s = util_json_str(doc, "element_type", path, "$", true, type, sizeof type)) ||
      (s = util_json_f64(doc, "problem_size", path, "$", true, &n)))
    return s;
  if (!(out->k = kernels_find(kname)))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.kernel: unknown kernel '%s' (histogram, reduce)", path, kname);
  if (kernel && strcmp(kernel, kname))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.kernel: results of kernel '%s', not '%s'", path, kname, kernel);
  if ((s = tune_parse_type(out->k, type, &out->f32))) return vkocc_fail(s, "%s: $.element_type: %s", path, vkocc_last_error());
  if (!(n >= 1 && n <= 0x7fffffff && n == floor(n)))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.problem_size: expected 1 to 2^31-1 elements", path);
  out->n = (uint64_t)n;
  return VKOCC_OK;
}

vkocc_status tune_results_load(const char *path, const char *kernel, tune_doc *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->file, sizeof out->file, "%s", path);
  json_t *doc;
  vkocc_status s = io_doc_load(path, VKOCC_DOC_TUNE_RESULTS, &doc);
  if (s) return s;
  /* results of a user kernel tuned from a T1 spec (io/tune_user_io.c): kernel, size and results there; a
   * shipped kernel's in the same document, read by its kernel's parameters; no kind: an older shipped kernel's */
  const char *kind = json_string_value(json_object_get(doc, "kind"));
  bool user = kind && !strcmp(kind, "user");
  out->imported = !json_object_get(doc, "kind");
  if (!user && !out->imported) {
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.kind: expected \"user\" (or no kind: a shipped kernel's older document)", path);
    goto done;
  }
  if (user && !tune_results_shipped(doc)) {
    if ((s = tune_results_load_user(doc, path, out))) goto done;
    if (kernel && strcmp(kernel, out->k->name)) {
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.kernel: results of kernel '%s', not '%s'", path, out->k->name, kernel);
      goto done;
    }
  } else {
    user = false;
    if ((s = shipped_header(doc, path, kernel, out))) goto done;
  }
  tune_device_id *id = &out->dev;
  bool has_device = false;
  if ((s = io_doc_device(doc, path, &id->id, &has_device))) goto done;
  if (!has_device) { s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.device: expected an object", path); goto done; }
  if ((s = util_json_str(doc, "cluster_id", path, "$", true, id->cluster_id, sizeof id->cluster_id))) goto done;
  json_t *d = json_object_get(doc, "device");
  snprintf(id->queue_kind, sizeof id->queue_kind, "unknown"); /* older documents do not record the family */
  json_t *qf = json_object_get(d, "queue_family");
  if (qf) {
    const char *allowed[] = {"compute-only", "graphics+compute", "other", "unknown"};
    char kind[24] = "";
    bool ok = json_is_object(qf);
    if (ok && (s = util_json_str(qf, "kind", path, "$.device.queue_family", true, kind, sizeof kind))) goto done;
    bool known = false;
    for (size_t q = 0; ok && q < sizeof allowed / sizeof allowed[0]; q++) known |= !strcmp(kind, allowed[q]);
    if (!ok || !known) {
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.device.queue_family%s: expected %s", path, ok ? ".kind" : "",
                     ok ? "compute-only, graphics+compute, other or unknown" : "an object with kind and shared_bytes_per_sm");
      goto done;
    }
    snprintf(id->queue_kind, sizeof id->queue_kind, "%s", kind);
    json_t *sh = json_object_get(qf, "shared_bytes_per_sm");
    if (sh && !json_is_null(sh) &&
        (s = util_json_u32(qf, "shared_bytes_per_sm", path, "$.device.queue_family", false, &id->shared_per_sm)))
      goto done;
  }
  json_t *fp = json_object_get(doc, "fingerprint");
  if (fp) {
    /* the normalized part of a fingerprint (its reader also checks the cluster ID) */
    char where[1100];
    snprintf(where, sizeof where, "%s: $.fingerprint", path);
    if (!json_is_object(fp)) { s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: expected an object", where); goto done; }
    if ((s = io_fingerprint_from_json(fp, where, NULL, &id->fp))) goto done;
    if (strcmp(id->fp.cluster_id, id->cluster_id)) {
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.cluster_id: %s, but the fingerprint's is %s", path, id->cluster_id, id->fp.cluster_id);
      goto done;
    }
    id->has_fp = true;
  }
  json_t *params = json_object_get(doc, "parameters"); /* the space's values, which a policy's choices must be of */
  if (json_is_array(params)) out->parameters = json_incref(params);
  json_t *m = json_object_get(doc, "measurement");
  if (json_is_object(m)) {
    opt_f64(m, "pipelines_ms", path, "$.measurement", &out->pipelines_ms);
    opt_f64(m, "measure_ms", path, "$.measurement", &out->measure_ms);
  }
  if (user) goto done;
  json_t *res = json_object_get(doc, "results");
  if (!json_is_array(res)) { s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results: expected an array", path); goto done; }
  out->r = util_xcalloc(json_array_size(res) + 1, sizeof *out->r);
  /* the parameters each variant takes, from the kernel's space */
  uint32_t nspace = out->k->space(NULL), masks[16] = {0};
  tune_config *sp = util_xcalloc(nspace + 1, sizeof *sp);
  out->k->space(sp);
  for (uint32_t i = 0; i < nspace; i++)
    if (sp[i].v[0] < 16) masks[sp[i].v[0]] |= sp[i].mask;
  free(sp);
  for (size_t i = 0; i < json_array_size(res); i++) {
    char p[64];
    snprintf(p, sizeof p, "$.results[%zu]", i);
    json_t *e = json_array_get(res, i);
    tune_result *r = &out->r[out->count];
    if (!json_is_object(e)) { s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", path, p); goto done; }
    char cp[80];
    snprintf(cp, sizeof cp, "%s.config", p);
    if ((s = tune_config_from_json(out->k, json_object_get(e, "config"), path, cp, &r->cfg)) ||
        (s = util_json_bool(e, "valid", path, p, true, &r->valid)) ||
        (s = opt_f64(e, "median_ns", path, p, &r->median_ns)) || (s = opt_f64(e, "spread", path, p, &r->spread)) ||
        (s = opt_f64(e, "min_ns", path, p, &r->min_ns)) || (s = opt_f64(e, "max_ns", path, p, &r->max_ns)) ||
        (s = util_json_u32(e, "runs", path, p, true, &r->runs)) ||
        (s = util_json_str(e, "error", path, p, false, r->error, sizeof r->error)) ||
        (s = check_config(out->k, masks, 16, &r->cfg, path, cp)))
      goto done;
    if (!(r->median_ns >= 0 || isnan(r->median_ns)) || !(r->min_ns >= 0 || isnan(r->min_ns)) ||
        !(r->max_ns >= 0 || isnan(r->max_ns)) || !(r->spread >= 0 || isnan(r->spread))) {
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: times and spread must not be negative", path, p);
      goto done;
    }
    if (r->valid && !(r->median_ns > 0)) {
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.median_ns: a valid result needs a positive time", path, p);
      goto done;
    }
    tune_config_key(out->k, &r->cfg, r->key, sizeof r->key);
    r->measured = true;
    out->count++;
  }
  /* each configuration once: sorted by key, the duplicates are neighbours (O(n log n)) */
  keyref *refs = util_xcalloc(out->count + 1, sizeof *refs);
  for (uint32_t i = 0; i < out->count; i++) refs[i] = (keyref){out->r[i].key, i};
  qsort(refs, out->count, sizeof *refs, cmp_keyref);
  for (uint32_t i = 1; i < out->count && !s; i++)
    if (!strcmp(refs[i].key, refs[i - 1].key))
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%u].config: %s appears twice (also $.results[%u])", path,
                     refs[i].i, refs[i].key, refs[i - 1].i);
  free(refs);
done:
  json_decref(doc);
  if (s) tune_doc_free(out);
  return s;
}

void tune_doc_free(tune_doc *d) {
  json_decref(d->parameters);
  d->parameters = NULL;
  free(d->r);
  d->r = NULL;
  d->count = 0;
}
