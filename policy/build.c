/* Policy databases from tuning results (docs/policy.md, schema vkocc.policy-db/2).
 * For each kernel and element type: one entry per device (the device's own best, keyed by its exact
 * device key and cluster), one per cluster (the configuration with the best geometric-mean efficiency over
 * the cluster's devices), problem-size buckets split at the geometric midpoints between the sizes tuned,
 * and a default per kernel: the configuration with the best worst-case efficiency over every result
 * (ties: geometric mean). Efficiency = a result's best time / the configuration's time there. */
#include "tunedb.h"
#include "jsonio.h"
#include "io.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double tdb_time(const tune_doc *d, const char *key) {
  for (uint32_t i = 0; i < d->count; i++)
    if (!strcmp(d->r[i].key, key)) return d->r[i].valid && d->r[i].median_ns > 0 ? d->r[i].median_ns : NAN;
  return NAN;
}

double tdb_best(const tune_doc *d, int *index) {
  int b = -1;
  for (uint32_t i = 0; i < d->count; i++)
    if (d->r[i].valid && d->r[i].median_ns > 0 && (b < 0 || d->r[i].median_ns < d->r[b].median_ns)) b = (int)i;
  if (index) *index = b;
  return b < 0 ? NAN : d->r[b].median_ns;
}

double tdb_efficiency(const tune_doc *d, const char *key) {
  double t = tdb_time(d, key), b = tdb_best(d, NULL);
  return isfinite(t) && isfinite(b) ? b / t : 0;
}

/* A result by its key and where it is */
typedef struct { const char *key; uint32_t doc, i; } keyref;

/* Hashed lookups of a result by (document, key): tdb_pick is O(N) in the results of its set (a linear search per
 * key per document was quadratic; sorting every key by strcmp, three times per build, was most of what remained). */
typedef struct { uint64_t h; uint32_t doc, i; } keyslot;
static uint64_t key_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}
static uint64_t in_doc(uint64_t h, uint32_t doc) { return h ^ ((uint64_t)(doc + 1) * 0x9E3779B97F4A7C15ull); }

/* The time of key (hash h) in document j: as tdb_time */
static double time_in(const tune_doc *const *docs, const keyslot *tab, size_t mask, uint32_t j, const char *key, uint64_t h) {
  uint64_t hj = in_doc(h, j);
  for (size_t b = (size_t)hj & mask; tab[b].i != UINT32_MAX; b = (b + 1) & mask)
    if (tab[b].h == hj && tab[b].doc == j && !strcmp(docs[j]->r[tab[b].i].key, key)) {
      const tune_result *r = &docs[j]->r[tab[b].i];
      return r->valid && r->median_ns > 0 ? r->median_ns : NAN;
    }
  return NAN;
}

bool tdb_pick(const tune_doc *const *docs, uint32_t n, tdb_rule rule, char *out, size_t len, double *worst, double *geo) {
  bool found = false;
  double bw = -1, bg = -1;
  size_t total = 0;
  for (uint32_t a = 0; a < n; a++) total += docs[a]->count;
  size_t cap = 16;
  while (cap < 2 * total + 2) cap *= 2;
  keyslot *tab = util_xmalloc(cap * sizeof *tab), *seen = util_xmalloc(cap * sizeof *seen);
  for (size_t b = 0; b < cap; b++) tab[b].i = seen[b].i = UINT32_MAX;
  keyref *cand = util_xcalloc(total + 1, sizeof *cand);
  uint64_t *hc = util_xcalloc(total + 1, sizeof *hc);
  double *best = util_xcalloc(n + 1, sizeof *best);
  size_t nc = 0, mask = cap - 1;
  /* per document: every result by key, and its best time; the candidates: each key valid somewhere, once, at its
   * first document (document order, then result order, as the linear scan met them) */
  for (uint32_t a = 0; a < n; a++) {
    best[a] = tdb_best(docs[a], NULL);
    for (uint32_t i = 0; i < docs[a]->count; i++) {
      const char *key = docs[a]->r[i].key;
      uint64_t h = key_hash(key), ha = in_doc(h, a);
      size_t b = (size_t)ha & mask;
      bool dup = false;
      for (; tab[b].i != UINT32_MAX && !dup; b = (b + 1) & mask)
        dup = tab[b].h == ha && tab[b].doc == a && !strcmp(docs[a]->r[tab[b].i].key, key);
      if (!dup) tab[b] = (keyslot){ha, a, i}; /* (one document holds a key once: the first is kept, as before) */
      if (!docs[a]->r[i].valid) continue;
      bool known = false;
      for (b = (size_t)h & mask; seen[b].i != UINT32_MAX && !known; b = (b + 1) & mask)
        known = seen[b].h == h && !strcmp(docs[seen[b].doc]->r[seen[b].i].key, key);
      if (known) continue;
      seen[b] = (keyslot){h, a, i};
      hc[nc] = h, cand[nc++] = (keyref){key, a, i};
    }
  }
  for (size_t c = 0; c < nc; c++) {
    const char *key = cand[c].key;
    double w = 1, lg = 0;
    for (uint32_t j = 0; j < n; j++) {
      double t = time_in(docs, tab, mask, j, key, hc[c]);
      double e = isfinite(t) && isfinite(best[j]) ? best[j] / t : 0;
      if (e < w) w = e;
      lg += log(e > 0 ? e : 1e-9); /* invalid somewhere: heavily penalized, still ranked */
    }
    double g = exp(lg / n);
    bool better = rule == TDB_MAXMIN ? (w > bw + 1e-12 || (fabs(w - bw) <= 1e-12 && g > bg)) : g > bg;
    if (!found || better) {
      found = true, bw = w, bg = g;
      snprintf(out, len, "%s", key);
    }
  }
  free(tab), free(seen), free(cand), free(hc), free(best);
  if (worst) *worst = bw;
  if (geo) *geo = bg;
  return found;
}

/* Documents by (kernel, type, size, device), for the duplicate check in O(n log n). */
static int cmp_doc(const void *a, const void *b) {
  const tune_doc *x = *(const tune_doc *const *)a, *y = *(const tune_doc *const *)b;
  int c = strcmp(x->k->name, y->k->name);
  if (!c) c = (x->f32 > y->f32) - (x->f32 < y->f32);
  if (!c) c = (x->n > y->n) - (x->n < y->n);
  if (!c) c = strcmp(x->dev.id.key, y->dev.id.key);
  if (!c) c = strcmp(x->dev.queue_kind, y->dev.queue_kind);
  if (!c) c = (x > y) - (x < y); /* file order */
  return c;
}


/* {"min": .., "max": ..} for size s among the sorted distinct sizes v[0..n) */
static json_t *bucket(const uint64_t *v, uint32_t n, uint64_t s) {
  uint32_t i = 0;
  while (i < n && v[i] != s) i++;
  json_t *o = json_object();
  json_object_set_new(o, "min", json_integer(i == 0 ? 0 : (json_int_t)floor(sqrt((double)v[i - 1] * (double)v[i])) + 1));
  if (i + 1 < n) json_object_set_new(o, "max", json_integer((json_int_t)floor(sqrt((double)v[i] * (double)v[i + 1]))));
  return o;
}

static json_t *params_of(const char *key) {
  json_error_t e;
  return json_loads(key, 0, &e);
}

/* The kernel's parameters and their values over its documents ($.parameters of each: the space tuned), so that
 * whoever reads the database can refuse a choice outside them (policy/policy.c) */
static void merge_parameters(json_t *k, json_t *params) {
  size_t i, j;
  json_t *p, *v;
  json_array_foreach(params, i, p) {
    const char *name = json_string_value(json_object_get(p, "name"));
    json_t *vals = json_object_get(p, "values");
    if (!name || !json_is_array(vals)) continue;
    json_t *all = json_object_get(k, "parameters");
    if (!all) json_object_set_new(k, "parameters", all = json_object());
    json_t *have = json_object_get(all, name);
    if (!have) json_object_set_new(all, name, have = json_array());
    json_array_foreach(vals, j, v) {
      bool known = false;
      for (size_t q = 0; q < json_array_size(have) && !known; q++) known = json_equal(json_array_get(have, q), v);
      if (!known) json_array_append(have, v);
    }
  }
}

vkocc_status tdb_build(const tune_doc *docs, uint32_t n, json_t **out) {
  *out = NULL;
  for (uint32_t i = 0; i < n; i++) {
    if (isnan(tdb_best(&docs[i], NULL)))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: no valid configuration (nothing to choose)", docs[i].file);
    if (!docs[i].dev.cluster_id[0])
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.cluster_id: empty", docs[i].file);
  }
  /* one result per kernel, type, size and device: sorted, so neighbours are the duplicates */
  const tune_doc **ord = util_xcalloc(n + 1, sizeof *ord);
  for (uint32_t i = 0; i < n; i++) ord[i] = &docs[i];
  qsort(ord, n, sizeof *ord, cmp_doc);
  for (uint32_t q = 1; q < n; q++) {
    const tune_doc *x = ord[q - 1], *y = ord[q];
    if (x->k == y->k && x->f32 == y->f32 && x->n == y->n && !strcmp(x->dev.id.key, y->dev.id.key) &&
        !strcmp(x->dev.queue_kind, y->dev.queue_kind)) {
      vkocc_status st = vkocc_fail(VKOCC_ERROR_USAGE, "%s and %s: both hold %s %s at size %llu on '%s', %s queue "
                                   "family (give one)", x->file, y->file, y->k->name, y->f32 ? "f32" : "u32",
                                   (unsigned long long)y->n, y->dev.id.key, y->dev.queue_kind);
      free(ord);
      return st;
    }
  }
  free(ord);
  json_t *db = json_object(), *clusters = json_object(), *kernels = json_object(), *sources = json_array();
  vkocc_doc_stamp(db, VKOCC_DOC_POLICY_DB);
  json_object_set_new(db, "rules", json_string(
      "entries with a device key: that device's best; entries without: per cluster, the configuration with the "
      "best geometric-mean efficiency over the cluster's devices; problem_size buckets split at the geometric "
      "midpoints between the sizes tuned; default: the best worst-case efficiency over every result of the "
      "kernel (ties: geometric mean); efficiency = best time / the configuration's time on that result"));
  const tune_doc **set = util_xcalloc(n + 1, sizeof *set);
  uint64_t *sizes = util_xcalloc(n + 1, sizeof *sizes);
  for (uint32_t i = 0; i < n; i++) {
    const tune_doc *d = &docs[i];
    int b;
    double best = tdb_best(d, &b);
    json_array_append_new(sources, json_pack("{s:s, s:s, s:s, s:I, s:s, s:s, s:f, s:o, s:s}", "file", d->file, "kernel",
                                             d->k->name, "element_type", d->f32 ? "f32" : "u32", "problem_size",
                                             (json_int_t)d->n, "device", d->dev.id.key, "cluster", d->dev.cluster_id,
                                             "best_ns", best, "best", params_of(d->r[b].key), "queue_kind",
                                             d->dev.queue_kind[0] ? d->dev.queue_kind : "unknown"));
    if (d->dev.has_fp && !json_object_get(clusters, d->dev.cluster_id)) {
      json_t *c = io_fingerprint_json(&d->dev.fp);
      json_object_del(c, "cluster_id");
      json_object_set_new(c, "name", json_string(d->dev.id.name));
      json_object_set_new(clusters, d->dev.cluster_id, c);
    }
    json_t *k = json_object_get(kernels, d->k->name);
    if (!k) {
      k = json_object();
      json_object_set_new(k, "entries", json_array());
      json_object_set_new(kernels, d->k->name, k);
    }
    merge_parameters(k, d->parameters);
  }
  /* per kernel: device entries, then cluster entries, then the default */
  const char *kname;
  json_t *k;
  json_object_foreach(kernels, kname, k) {
    json_t *entries = json_object_get(k, "entries");
    for (int pass = 0; pass < 2; pass++)
      for (uint32_t i = 0; i < n; i++) {
        const tune_doc *d = &docs[i];
        if (strcmp(d->k->name, kname)) continue;
        /* the group: same type, and same device (pass 0) or same cluster (pass 1); handled at its first member */
        uint32_t ns = 0, first = i;
        for (uint32_t j = 0; j < n; j++) {
          const tune_doc *e = &docs[j];
          bool same = e->k == d->k && e->f32 == d->f32 && !strcmp(e->dev.queue_kind, d->dev.queue_kind) &&
                      (pass == 0 ? !strcmp(e->dev.id.key, d->dev.id.key) : !strcmp(e->dev.cluster_id, d->dev.cluster_id));
          if (!same) continue;
          if (j < first) first = j;
          uint32_t q = 0;
          while (q < ns && sizes[q] != e->n) q++;
          if (q == ns) sizes[ns++] = e->n;
        }
        if (first != i) continue;
        qsort(sizes, ns, sizeof *sizes, util_cmp_u64);
        for (uint32_t q = 0; q < ns; q++) {
          uint32_t m = 0;
          for (uint32_t j = 0; j < n; j++) {
            const tune_doc *e = &docs[j];
            if (e->k == d->k && e->f32 == d->f32 && e->n == sizes[q] && !strcmp(e->dev.queue_kind, d->dev.queue_kind) &&
                (pass == 0 ? !strcmp(e->dev.id.key, d->dev.id.key) : !strcmp(e->dev.cluster_id, d->dev.cluster_id)))
              set[m++] = e;
          }
          char key[256];
          double worst, geo;
          if (!tdb_pick(set, m, TDB_GEOMEAN, key, sizeof key, &worst, &geo)) continue;
          /* a user kernel (no embedded GLSL) has no element type: only the size decides */
          json_t *when = d->k->glsl ? json_pack("{s:s, s:o}", "element_type", d->f32 ? "f32" : "u32", "problem_size", bucket(sizes, ns, sizes[q]))
                                    : json_pack("{s:o}", "problem_size", bucket(sizes, ns, sizes[q]));
          json_t *e = json_pack("{s:s, s:o, s:o}", "cluster", d->dev.cluster_id, "when", when, "params", params_of(key));
          if (pass == 0) json_object_set_new(e, "device", json_string(d->dev.id.key));
          /* the kind of queue family tuned on: selection prefers the caller's kind (a result of an older vkocc:
           * "unknown"); the capacity where every result of the entry agrees on it */
          uint32_t cap = set[0]->dev.shared_per_sm;
          for (uint32_t j = 1; j < m; j++)
            if (set[j]->dev.shared_per_sm != cap) cap = 0;
          json_object_set_new(e, "queue_family", json_pack("{s:s, s:o}", "kind", d->dev.queue_kind[0] ? d->dev.queue_kind : "unknown",
                                                           "shared_bytes_per_sm", cap ? json_integer(cap) : json_null()));
          json_t *from = json_array();
          for (uint32_t j = 0; j < m; j++) json_array_append_new(from, json_string(set[j]->dev.id.key));
          json_object_set_new(e, "tuned", json_pack("{s:I, s:o, s:f, s:f}", "problem_size", (json_int_t)sizes[q], "devices", from,
                                                    "worst_efficiency", worst, "geomean_efficiency", geo));
          json_array_append_new(entries, e);
        }
      }
    uint32_t m = 0;
    for (uint32_t j = 0; j < n; j++)
      if (!strcmp(docs[j].k->name, kname)) set[m++] = &docs[j];
    char key[256];
    double worst, geo;
    if (tdb_pick(set, m, TDB_MAXMIN, key, sizeof key, &worst, &geo))
      json_object_set_new(k, "default", json_pack("{s:o, s:s, s:I, s:f, s:f}", "params", params_of(key), "rule",
                                                  "best worst-case efficiency over every result (ties: geometric mean)",
                                                  "results", (json_int_t)m, "worst_efficiency", worst,
                                                  "geomean_efficiency", geo));
  }
  free(set);
  free(sizes);
  json_object_set_new(db, "clusters", clusters);
  json_object_set_new(db, "kernels", kernels);
  json_object_set_new(db, "sources", sources);
  *out = db;
  return VKOCC_OK;
}
