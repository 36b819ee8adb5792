/* The transfer report: for each result (a target device) and each selection rule, the configuration the
 * rule would pick from the OTHER devices' results, and its efficiency on the target (target best time /
 * that configuration's time on the target, both from the target's own results: every result file holds
 * every configuration's time, so the evaluation needs no device). Rules:
 *   device   the target's own best (an exact-device entry; 1 by construction on the same measurements)
 *   cluster  the best geometric-mean configuration over other devices of the target's cluster
 *   nearest  that of the nearest other cluster by fingerprint distance (any distance; the distance shown)
 *   default  the best worst-case configuration over every other result of the kernel
 *   name     a lookup keyed by device name (what caches keyed by name do): other devices of the same name
 *   policy   what `policy select` would answer without the target's own entry: cluster, else nearest
 *            within the threshold, else default (the rule it used named)
 * Within each rule's set, the results tuned on the target's kind of queue family count alone where there are any,
 * as policy select prefers them.
 * The performance-portability metric of a rule is the harmonic mean of its efficiencies over the
 * targets, 0 when it has no answer (or an invalid one) on any target (Pennycook et al.). */
#include "tunedb.h"
#include "io.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const rules[] = {"device", "cluster", "nearest", "default", "name", "policy"};
#define NRULES 6

static json_t *params_of(const char *key) {
  json_error_t e;
  return json_loads(key, 0, &e);
}

static json_t *answer(const tune_doc *t, const char *key, const tune_doc *const *from, uint32_t n) {
  double e = tdb_efficiency(t, key), tt = tdb_time(t, key);
  json_t *f = json_array();
  for (uint32_t i = 0; i < n; i++) json_array_append_new(f, json_string(from[i]->dev.id.key));
  json_t *o = json_pack("{s:o, s:f, s:o, s:o}", "params", params_of(key), "efficiency", e, "time_ns",
                        isfinite(tt) ? json_real(tt) : json_null(), "from", f);
  if (!isfinite(tt)) json_object_set_new(o, "note", json_string("invalid or not runnable on the target"));
  return o;
}


/* The configuration a rule would take from the results in set (pick: how they are combined), as an answer on
 * the target t, with its efficiency there; NULL and 0 when the rule has nothing to offer. */
/* As policy select prefers, among equal matches, the entries tuned on the target's kind of queue family (on NVIDIA
 * the family sets the shared memory per SM): where the set holds results of that kind, only those count. */
static uint32_t same_kind_first(const tune_doc **set, uint32_t m, const tune_doc *t) {
  const char *k = t->dev.queue_kind;
  if (!k[0] || !strcmp(k, "unknown")) return m;
  uint32_t same = 0;
  for (uint32_t i = 0; i < m; i++) same += !strcmp(set[i]->dev.queue_kind, k);
  if (!same || same == m) return m;
  uint32_t j = 0;
  for (uint32_t i = 0; i < m; i++)
    if (!strcmp(set[i]->dev.queue_kind, k)) set[j++] = set[i];
  return j;
}

static json_t *rule_answer(const tune_doc *t, const tune_doc **set, uint32_t m, tdb_rule pick, double *eff) {
  char key[256];
  *eff = 0;
  m = same_kind_first(set, m, t);
  if (!m || !tdb_pick(set, m, pick, key, sizeof key, NULL, NULL)) return NULL;
  *eff = tdb_efficiency(t, key);
  return answer(t, key, set, m);
}

vkocc_status tdb_transfer(const tune_doc *docs, uint32_t n, double threshold, json_t **out) {
  if (threshold <= 0) threshold = VKOCC_CLUSTER_THRESHOLD;
  json_t *groups = json_array();
  const tune_doc **set = util_xcalloc(n + 1, sizeof *set), **by = util_xcalloc(n + 1, sizeof *by);
  bool *done = util_xcalloc(n + 1, sizeof *done);
  for (uint32_t g = 0; g < n; g++) {
    if (done[g]) continue;
    /* a group: one kernel and element type (sizes may differ: a policy applies a size's choice to others) */
    uint32_t *members = util_xcalloc(n, sizeof *members), nm = 0;
    for (uint32_t i = g; i < n; i++)
      if (!done[i] && docs[i].k == docs[g].k && docs[i].f32 == docs[g].f32) members[nm++] = i, done[i] = true;
    json_t *targets = json_array();
    double hsum[NRULES] = {0};
    bool zero[NRULES] = {0};
    for (uint32_t a = 0; a < nm; a++) {
      const tune_doc *t = &docs[members[a]];
      if (isnan(tdb_best(t, NULL))) {
        free(members), free(set), free(by), free(done);
        json_decref(targets); /* the fuzzer found it leaked here */
        json_decref(groups);
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: no valid configuration (no efficiency can be measured there)", t->file);
      }
      int bi;
      double best = tdb_best(t, &bi);
      json_t *rj = json_object();
      double eff[NRULES];
      /* device */
      by[0] = t;
      json_object_set_new(rj, "device", answer(t, t->r[bi].key, by, 1));
      eff[0] = 1;
      /* cluster: other devices of the target's cluster */
      uint32_t m = 0;
      for (uint32_t b = 0; b < nm; b++) {
        const tune_doc *o = &docs[members[b]];
        if (strcmp(o->dev.id.key, t->dev.id.key) && !strcmp(o->dev.cluster_id, t->dev.cluster_id)) set[m++] = o;
      }
      json_t *cl = rule_answer(t, set, m, TDB_GEOMEAN, &eff[1]);
      json_object_set_new(rj, "cluster", cl ? json_incref(cl) : json_null());
      /* nearest other cluster */
      double dmin = INFINITY;
      const char *near = NULL;
      for (uint32_t b = 0; b < nm; b++) {
        const tune_doc *o = &docs[members[b]];
        if (!strcmp(o->dev.cluster_id, t->dev.cluster_id) || !o->dev.has_fp || !t->dev.has_fp) continue;
        double d = vkocc_fingerprint_distance(&t->dev.fp, &o->dev.fp);
        if (d < dmin) dmin = d, near = o->dev.cluster_id;
      }
      m = 0;
      for (uint32_t b = 0; near && b < nm; b++)
        if (!strcmp(docs[members[b]].dev.cluster_id, near)) set[m++] = &docs[members[b]];
      json_t *nr = rule_answer(t, set, m, TDB_GEOMEAN, &eff[2]);
      if (nr) {
        json_object_set_new(nr, "cluster", json_string(near));
        json_object_set_new(nr, "distance", json_real(dmin));
      }
      json_object_set_new(rj, "nearest", nr ? json_incref(nr) : json_null());
      /* default over the others (every result of the kernel, any type, on other devices) */
      m = 0;
      for (uint32_t b = 0; b < n; b++)
        if (docs[b].k == t->k && strcmp(docs[b].dev.id.key, t->dev.id.key)) set[m++] = &docs[b];
      json_t *df = rule_answer(t, set, m, TDB_MAXMIN, &eff[3]);
      json_object_set_new(rj, "default", df ? json_incref(df) : json_null());
      /* name-keyed lookup */
      m = 0;
      for (uint32_t b = 0; b < nm; b++) {
        const tune_doc *o = &docs[members[b]];
        if (strcmp(o->dev.id.key, t->dev.id.key) && !strcmp(o->dev.id.name, t->dev.id.name)) set[m++] = o;
      }
      json_t *nm_answer = rule_answer(t, set, m, TDB_GEOMEAN, &eff[4]);
      json_object_set_new(rj, "name", nm_answer ? nm_answer : json_null()); /* NULL: no other device of that name was tuned */
      /* policy: cluster, else nearest within the threshold, else default */
      json_t *pol = cl ? cl : nr && dmin <= threshold ? nr : df;
      const char *prule = cl ? "cluster" : nr && dmin <= threshold ? "nearest" : df ? "default" : "none";
      eff[5] = cl ? eff[1] : nr && dmin <= threshold ? eff[2] : df ? eff[3] : 0;
      if (pol) {
        json_t *p = json_deep_copy(pol);
        json_object_set_new(p, "rule", json_string(prule));
        json_object_set_new(rj, "policy", p);
      } else {
        json_object_set_new(rj, "policy", json_null());
      }
      if (cl) json_decref(cl);
      if (nr) json_decref(nr);
      if (df) json_decref(df);
      for (int r = 0; r < NRULES; r++) {
        if (eff[r] > 0) hsum[r] += 1 / eff[r];
        else zero[r] = true;
      }
      json_array_append_new(targets, json_pack("{s:s, s:s, s:s, s:s, s:I, s:f, s:o, s:o}", "file", t->file, "device",
                                               t->dev.id.key, "cluster_id", t->dev.cluster_id, "queue_kind",
                                               t->dev.queue_kind[0] ? t->dev.queue_kind : "unknown", "problem_size",
                                               (json_int_t)t->n, "best_ns", best, "best", params_of(t->r[bi].key),
                                               "rules", rj));
    }
    json_t *pp = json_object();
    for (int r = 0; r < NRULES; r++) json_object_set_new(pp, rules[r], json_real(zero[r] ? 0 : nm / hsum[r]));
    json_array_append_new(groups, json_pack("{s:s, s:s, s:o, s:o}", "kernel", docs[g].k->name, "element_type",
                                            docs[g].f32 ? "f32" : "u32", "targets", targets, "portability", pp));
    free(members);
  }
  free(set), free(by), free(done);
  *out = json_pack("{s:s, s:s, s:f, s:s, s:o}", "schema", vkocc_doc_schema_string(VKOCC_DOC_POLICY_TRANSFER), "tool_version",
                   vkocc_version(), "threshold", threshold, "efficiency",
                   "target best time / the chosen configuration's time on the target (0: no answer or invalid there)",
                   "groups", groups);
  return VKOCC_OK;
}
