/* Policy database (schema vkocc.policy-db/2, and /1 read as well; docs/policy.md) and selection: an entry
 * for the exact device (its device key), else for its cluster, else for the nearest known cluster within
 * the threshold, else the kernel's default; entries also need their conditions on the decision variables
 * to hold. The database is validated on load, so selection cannot meet bad data. */
#include "internal.h"
#include "io.h"
#include "jsonio.h"
#include "model.h"
#include "store.h" /* policy_db_from_doc */ /* fingerprint_derive_fixed, the cluster recipes */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vkocc_policy_db {
  json_t *doc;
  vkocc_fingerprint *clusters; /* the known clusters' normalized surfaces */
  uint32_t nclusters;
};

static vkocc_status check_condition(json_t *c, const char *file, const char *path) {
  if (json_is_string(c) || json_is_number(c) || json_is_boolean(c)) return VKOCC_OK;
  if (!json_is_object(c))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected a value or an object with min/max/in", file, path);
  const char *k;
  json_t *v;
  json_object_foreach(c, k, v) {
    if ((!strcmp(k, "min") || !strcmp(k, "max")) && json_is_number(v)) continue;
    if (!strcmp(k, "in") && json_is_array(v)) {
      /* members are compared with the variable's value: an object or array would compare as 0 */
      for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *m = json_array_get(v, i);
        if (!json_is_string(m) && !json_is_number(m) && !json_is_boolean(m))
          return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.in[%zu]: expected a string, number or boolean", file, path, i);
      }
      continue;
    }
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: expected min/max numbers or an \"in\" array", file, path, k);
  }
  json_t *mn = json_object_get(c, "min"), *mx = json_object_get(c, "max");
  if (mn && mx && json_number_value(mn) > json_number_value(mx))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: min %g is above max %g (the condition could never hold)", file, path,
                      json_number_value(mn), json_number_value(mx));
  return VKOCC_OK;
}

/* A choice the database would serve (its default's or an entry's params) against the kernel's parameters and their
 * values as it records them ($.kernels.K.parameters, from the tuned documents' spaces): every parameter one of them
 * and each value one of its values (a hand-edited default of {"TILE_X": 0} was served). Older databases record
 * none: nothing to check against. */
static vkocc_status params_in_space(json_t *chosen, json_t *params, const char *file, const char *kpath, const char *rel) {
  if (!json_is_object(params) || !json_is_object(chosen)) return VKOCC_OK;
  const char *name;
  json_t *v;
  json_object_foreach(chosen, name, v) {
    json_t *vals = json_object_get(params, name);
    if (!json_is_array(vals))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s.%s: not one of the kernel's parameters (%s.parameters): refused, never "
                        "served", file, kpath, rel, name, kpath);
    bool known = false;
    for (size_t i = 0; i < json_array_size(vals) && !known; i++) {
      json_t *w = json_array_get(vals, i);
      known = json_equal(w, v) || (json_is_number(w) && json_is_number(v) && json_number_value(w) == json_number_value(v));
    }
    if (!known) {
      char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT), *all = json_dumps(vals, JSON_COMPACT);
      vkocc_status s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s.%s: %.60s is not one of the parameter's values (%.300s, the "
                                  "space tuned): refused, never served", file, kpath, rel, name, t ? t : "?", all ? all : "?");
      free(t), free(all);
      return s;
    }
  }
  return VKOCC_OK;
}

static vkocc_status check_db(json_t *doc, const char *file, vkocc_policy_db *db) {
  char path[256];
  json_t *kernels = json_object_get(doc, "kernels");
  if (!json_is_object(kernels) || json_object_size(kernels) == 0)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.kernels: expected an object with at least one kernel", file);
  const char *kname;
  json_t *k;
  json_object_foreach(kernels, kname, k) {
    snprintf(path, sizeof path, "$.kernels.%s", kname);
    if (!json_is_object(k)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, path);
    json_t *def = json_object_get(k, "default");
    if (def && !(json_is_object(def) && json_is_object(json_object_get(def, "params"))))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.default.params: expected an object", file, path);
    json_t *params = json_object_get(k, "parameters");
    if (params && !json_is_object(params))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.parameters: expected an object of each parameter's values", file, path);
    vkocc_status ps = def ? params_in_space(json_object_get(def, "params"), params, file, path, "default.params") : VKOCC_OK;
    if (ps) return ps;
    json_t *entries = json_object_get(k, "entries");
    if (entries && !json_is_array(entries))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.entries: expected an array", file, path);
    for (size_t i = 0; i < json_array_size(entries); i++) {
      json_t *e = json_array_get(entries, i);
      char ep[300];
      snprintf(ep, sizeof ep, "%s.entries[%zu]", path, i);
      if (!json_is_object(e)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, ep);
      if (!json_is_string(json_object_get(e, "cluster")))
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.cluster: expected a cluster ID string", file, ep);
      json_t *dev = json_object_get(e, "device"); /* version 2: an exact-device entry */
      if (dev && !json_is_string(dev))
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.device: expected a device key string", file, ep);
      if (!json_is_object(json_object_get(e, "params")))
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.params: expected an object", file, ep);
      char rel[64];
      snprintf(rel, sizeof rel, "entries[%zu].params", i);
      if ((ps = params_in_space(json_object_get(e, "params"), params, file, path, rel))) return ps;
      json_t *qf = json_object_get(e, "queue_family"); /* absent in older databases: the kind is unknown */
      if (qf && !(json_is_object(qf) && json_is_string(json_object_get(qf, "kind"))))
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.queue_family: expected an object with a kind string", file, ep);
      json_t *when = json_object_get(e, "when");
      if (when && !json_is_object(when))
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.when: expected an object of conditions", file, ep);
      const char *var;
      json_t *cond;
      json_object_foreach(when, var, cond) {
        char cp[400];
        snprintf(cp, sizeof cp, "%s.when.%s", ep, var);
        vkocc_status s = check_condition(cond, file, cp);
        if (s) return s;
      }
    }
  }
  /* known clusters: their normalized surfaces, for the nearest match */
  json_t *clusters = json_object_get(doc, "clusters");
  if (clusters && !json_is_object(clusters))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.clusters: expected an object keyed by cluster ID", file);
  db->clusters = util_xcalloc(json_object_size(clusters) + 1, sizeof *db->clusters);
  const char *cid;
  json_t *c;
  json_object_foreach(clusters, cid, c) {
    snprintf(path, sizeof path, "%s: $.clusters.%s", file, cid);
    /* a cluster entry holds the normalized part of a fingerprint, keyed by its cluster ID */
    vkocc_status s = io_fingerprint_from_json(c, path, cid, &db->clusters[db->nclusters]);
    if (s) return s;
    db->nclusters++;
  }
  return VKOCC_OK;
}

vkocc_status vkocc_policy_db_load(const char *path, vkocc_policy_db **out) {
  *out = NULL;
  json_t *doc;
  /* version 1 (cluster entries only) reads as version 2 without device entries (io/document.c) */
  vkocc_status s = io_doc_load(path, VKOCC_DOC_POLICY_DB, &doc);
  if (s) return s;
  return policy_db_from_doc(doc, path, out);
}

vkocc_status policy_db_from_doc(json_t *doc, const char *label, vkocc_policy_db **out) {
  *out = NULL;
  vkocc_policy_db *db = util_xcalloc(1, sizeof *db);
  db->doc = doc;
  vkocc_status s = check_db(doc, label, db);
  if (s) { vkocc_policy_db_free(db); return s; }
  *out = db;
  return VKOCC_OK;
}

void vkocc_policy_db_free(vkocc_policy_db *db) {
  if (!db) return;
  json_decref(db->doc);
  free(db->clusters);
  free(db);
}

static const char *var_value(const vkocc_policy_var *vars, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(vars[i].name, name)) return vars[i].value;
  return NULL;
}

static bool value_equals(json_t *want, const char *have) {
  if (json_is_string(want)) return !strcmp(json_string_value(want), have);
  if (json_is_boolean(want)) return !strcmp(have, json_is_true(want) ? "true" : "false");
  char *end;
  errno = 0;
  double v = strtod(have, &end);
  return *have && !*end && !errno && v == json_number_value(want);
}

/* How an entry's conditions meet the variables given: a condition on a variable that is not given does not
 * rule the entry out (the rules apply to whatever is given; the choice's note names what was missing); a
 * given value outside a min/max range (a problem-size bucket) leaves the entry a candidate at its distance
 * (log ratio for positive values) to the range, so the nearest bucket wins when none holds the value. */
typedef struct {
  bool ok;        /* no given value contradicts a condition */
  double dist;    /* 0: every given value inside its range */
  int missing;    /* conditions on variables not given */
  double tuned;   /* the problem size the entry was tuned at (0 unknown) */
} match;

static double range_dist(double v, double lo, double hi) {
  double b = v < lo ? lo : v > hi ? hi : v;
  if (b == v) return 0;
  return v > 0 && b > 0 ? fabs(log(v / b)) : fabs(v - b);
}

static match entry_match(json_t *e, const vkocc_policy_var *vars, uint32_t n) {
  match m = {.ok = true};
  m.tuned = json_number_value(json_object_get(json_object_get(e, "tuned"), "problem_size"));
  if (m.tuned <= 0) /* a hand-written entry: its bucket's lower end stands for the size */
    m.tuned = json_number_value(json_object_get(json_object_get(json_object_get(e, "when"), "problem_size"), "min"));
  const char *var;
  json_t *cond;
  json_object_foreach(json_object_get(e, "when"), var, cond) {
    const char *have = var_value(vars, n, var);
    if (!have) { m.missing++; continue; }
    if (!json_is_object(cond)) { if (!value_equals(cond, have)) m.ok = false; continue; }
    json_t *in = json_object_get(cond, "in"), *mn = json_object_get(cond, "min"), *mx = json_object_get(cond, "max");
    if (in) {
      bool any = false;
      for (size_t i = 0; i < json_array_size(in) && !any; i++) any = value_equals(json_array_get(in, i), have);
      if (!any) m.ok = false;
    }
    if (mn || mx) {
      char *end;
      errno = 0;
      double v = strtod(have, &end);
      if (!*have || *end || errno) { m.ok = false; continue; }
      m.dist += range_dist(v, mn ? json_number_value(mn) : -INFINITY, mx ? json_number_value(mx) : INFINITY);
    }
  }
  return m;
}

/* An entry of the exact device key (device given) or of the cluster without a device key. */
static bool key_matches(json_t *e, const char *cluster, const char *device) {
  const char *dk = json_string_value(json_object_get(e, "device"));
  return device ? dk && !strcmp(dk, device) : !dk && !strcmp(json_string_value(json_object_get(e, "cluster")), cluster);
}

/* The kind of queue family an entry was tuned on ("unknown" in databases that predate the record). */
static const char *entry_queue_kind(json_t *e) {
  const char *k = json_string_value(json_object_get(json_object_get(e, "queue_family"), "kind"));
  return k && *k ? k : "unknown";
}

/* Whether entry e was tuned on the caller's kind of queue family (kind NULL: not known). */
static bool same_kind(json_t *e, const char *kind) { return kind && !strcmp(entry_queue_kind(e), kind); }

/* The best entry for `cluster` (device NULL: entries without a device key) or for the exact device key
 * (device given: cluster ignored): no given value contradicting it, the nearest range, then one tuned on the
 * caller's kind of queue family (kind; NULL: not known), then (a variable not given) the largest problem size
 * tuned, then the first in the file; -1 when none. *m: its match. */
static int best_entry(json_t *entries, const char *cluster, const char *device, const vkocc_policy_var *vars,
                      uint32_t n, const char *kind, match *m) {
  int best = -1;
  bool best_same = false;
  for (size_t i = 0; i < json_array_size(entries); i++) {
    json_t *e = json_array_get(entries, i);
    if (!key_matches(e, cluster, device)) continue;
    match x = entry_match(e, vars, n);
    if (!x.ok) continue;
    bool same = same_kind(e, kind), tie = best >= 0 && fabs(x.dist - m->dist) <= 1e-12;
    if (best < 0 || x.dist < m->dist - 1e-12 || (tie && same && !best_same) ||
        (tie && same == best_same && x.missing && x.tuned > m->tuned))
      best = (int)i, *m = x, best_same = same;
  }
  return best;
}

/* Another entry of the same key and as good a match, tuned on another kind of queue family than entry `chosen`. */
static bool other_kind_available(json_t *entries, int chosen, const char *cluster, const char *device,
                                 const vkocc_policy_var *vars, uint32_t n, const match *m) {
  const char *ck = entry_queue_kind(json_array_get(entries, (size_t)chosen));
  for (size_t i = 0; i < json_array_size(entries); i++) {
    json_t *e = json_array_get(entries, i);
    if ((int)i == chosen || !key_matches(e, cluster, device) || !strcmp(entry_queue_kind(e), ck)) continue;
    match x = entry_match(e, vars, n);
    if (x.ok && fabs(x.dist - m->dist) <= 1e-12) return true;
  }
  return false;
}

/* 1048576 -> "1M", 3001 -> "3001" */
static void size_text(double v, char *out, size_t len) {
  const char *suf[] = {"", "K", "M", "G", "T"};
  int k = 0;
  while (k < 4 && v >= 1024 && fmod(v, 1024) == 0) v /= 1024, k++;
  snprintf(out, len, "%.0f%s", v, suf[k]);
}

/* Appends to the note (separated by "; "). */
static void note(vkocc_policy_choice *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(vkocc_policy_choice *out, const char *fmt, ...) {
  size_t n = strlen(out->note);
  if (n && n + 2 < sizeof out->note) strcpy(out->note + n, "; "), n += 2;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->note + n, sizeof out->note - n, fmt, ap);
  va_end(ap);
}

/* A condition as text: "u32", "u32, f32" (an "in" list), "1M..2M" / "1025.." (a range). */
static void cond_text(json_t *c, char *out, size_t len) {
  out[0] = 0;
  if (json_is_object(c) && !json_object_get(c, "in")) {
    json_t *mn = json_object_get(c, "min"), *mx = json_object_get(c, "max");
    char a[32] = "", b[32] = "";
    if (mn) size_text(json_number_value(mn), a, sizeof a);
    if (mx) size_text(json_number_value(mx), b, sizeof b);
    snprintf(out, len, "%s..%s", mn ? a : "0", b);
    return;
  }
  json_t *vals = json_is_object(c) ? json_object_get(c, "in") : NULL;
  for (size_t k = 0; k < (vals ? json_array_size(vals) : 1); k++) {
    json_t *v = vals ? json_array_get(vals, k) : c;
    size_t n = strlen(out);
    if (json_is_string(v)) snprintf(out + n, len - n, "%s%s", k ? ", " : "", json_string_value(v));
    else if (json_is_number(v)) snprintf(out + n, len - n, "%s%g", k ? ", " : "", json_number_value(v));
    else snprintf(out + n, len - n, "%s%s", k ? ", " : "", json_is_true(v) ? "true" : "false");
  }
}

/* Appends item to the ", "-separated list unless it is there already. */
static void add_item(char *out, size_t len, const char *item) {
  size_t il = strlen(item);
  for (const char *p = out; *p;) {
    size_t l = strcspn(p, ",");
    if (l == il && !strncmp(p, item, il)) return;
    p += l;
    while (*p == ',' || *p == ' ') p++;
  }
  size_t n = strlen(out);
  if (n + il + 3 < len) snprintf(out + n, len - n, "%s%s", n ? ", " : "", item);
}

/* What the kernel's entries have for `var` (all of them, any key): for problem_size with the sizes tuned
 * "1M..128M", else each value or bucket once. */
static void values_of(json_t *entries, const char *var, char *out, size_t len) {
  double lo = INFINITY, hi = -INFINITY;
  out[0] = 0;
  for (size_t i = 0; i < json_array_size(entries); i++) {
    json_t *e = json_array_get(entries, i), *c = json_object_get(json_object_get(e, "when"), var);
    if (!c) continue;
    double t = json_number_value(json_object_get(json_object_get(e, "tuned"), "problem_size"));
    if (!strcmp(var, "problem_size") && t > 0) { lo = fmin(lo, t), hi = fmax(hi, t); continue; }
    char v[128], one[128];
    cond_text(c, v, sizeof v);
    /* an "in" list adds each member */
    for (const char *p = v; *p;) {
      size_t l = strcspn(p, ",");
      snprintf(one, sizeof one, "%.*s", (int)l, p);
      add_item(out, len, one);
      p += l;
      while (*p == ',' || *p == ' ') p++;
    }
  }
  if (lo <= hi) {
    char a[32], b[32], r[80];
    size_text(lo, a, sizeof a), size_text(hi, b, sizeof b);
    snprintf(r, sizeof r, lo < hi ? "%s..%s (tuned)" : "%s (tuned)", a, b);
    add_item(out, len, r);
  }
}

/* The variables an entry's conditions name that were not given, with what the database has for each. */
static void note_missing(vkocc_policy_choice *out, json_t *entries, json_t *e, const vkocc_policy_var *vars,
                         uint32_t n) {
  const char *var;
  json_t *cond;
  json_object_foreach(json_object_get(e, "when"), var, cond) {
    if (var_value(vars, n, var)) continue;
    char have[200], c[128];
    values_of(entries, var, have, sizeof have);
    double t = json_number_value(json_object_get(json_object_get(e, "tuned"), "problem_size"));
    if (!strcmp(var, "problem_size") && t > 0) {
      size_text(t, c, sizeof c);
      note(out, "no %s given (the database has %s): the entry tuned at %s, the largest; give --var %s=N", var, have,
           c, var);
    } else {
      cond_text(cond, c, sizeof c);
      note(out, "no %s given (the database has %s): the entry for %s%s; give --var %s=VALUE", var, have, c,
           !strcmp(var, "problem_size") ? ", the largest bucket" : "", var);
    }
  }
}

/* Why a rule found no entry though the key has entries: the first given value that none of the key's entries
 * accepts, with what the database has; else the combination. */
static void note_rejected(vkocc_policy_choice *out, json_t *entries, const char *cluster, const char *device,
                          const char *what, const vkocc_policy_var *vars, uint32_t n) {
  for (uint32_t v = 0; v < n; v++) {
    bool named = false, accepted = false;
    for (size_t i = 0; i < json_array_size(entries) && !accepted; i++) {
      json_t *e = json_array_get(entries, i);
      if (!key_matches(e, cluster, device) || !json_object_get(json_object_get(e, "when"), vars[v].name)) continue;
      named = true;
      accepted = entry_match(e, &vars[v], 1).ok;
    }
    if (named && !accepted) {
      char have[200];
      values_of(entries, vars[v].name, have, sizeof have);
      note(out, "no entry for %s=%s%s (the database has %s)", vars[v].name, vars[v].value, what, have);
      return;
    }
  }
  note(out, "no entry%s takes the values given together", what);
}

static bool has_entries(json_t *entries, const char *cluster, const char *device) {
  for (size_t i = 0; i < json_array_size(entries); i++)
    if (key_matches(json_array_get(entries, i), cluster, device)) return true;
  return false;
}

vkocc_status vkocc_policy_select(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                 const vkocc_policy_var *vars, uint32_t nvars, double threshold,
                                 vkocc_policy_choice *out) {
  return vkocc_policy_select_device(db, kernel, fp, NULL, vars, nvars, threshold, out);
}

vkocc_status vkocc_policy_select_device(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                        const char *device_key, const vkocc_policy_var *vars, uint32_t nvars,
                                        double threshold, vkocc_policy_choice *out) {
  return vkocc_policy_select_queue(db, kernel, fp, device_key, NULL, vars, nvars, threshold, out);
}

static vkocc_status select_queue(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                 const char *device_key, const char *kind, const vkocc_policy_var *vars,
                                 uint32_t nvars, double threshold, vkocc_policy_choice *out);

vkocc_status vkocc_policy_select_queue(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                       const char *device_key, const char *queue_kind, const vkocc_policy_var *vars,
                                       uint32_t nvars, double threshold, vkocc_policy_choice *out) {
  const char *kind = queue_kind && *queue_kind && strcmp(queue_kind, "unknown") ? queue_kind : NULL;
  return select_queue(db, kernel, fp, device_key, kind, vars, nvars, threshold, out);
}

static vkocc_status select_queue(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                 const char *device_key, const char *kind, const vkocc_policy_var *vars,
                                 uint32_t nvars, double threshold, vkocc_policy_choice *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  out->entry = -1;
  if (threshold <= 0) threshold = VKOCC_CLUSTER_THRESHOLD;
  json_t *k = json_object_get(json_object_get(db->doc, "kernels"), kernel);
  if (!k) return vkocc_fail(VKOCC_ERROR_USAGE, "no kernel '%s' in the policy database", kernel);
  json_t *entries = json_object_get(k, "entries");
  match m = {0};
  bool dev = device_key && *device_key;
  int de = dev ? best_entry(entries, "", device_key, vars, nvars, kind, &m) : -1;
  char why[600] = ""; /* the rules that found nothing, for the note */
  if (de >= 0) {
    out->rule = VKOCC_POLICY_DEVICE;
    snprintf(out->cluster_id, sizeof out->cluster_id, "%s",
             json_string_value(json_object_get(json_array_get(entries, (size_t)de), "cluster")));
    out->entry = de;
  } else if (fp) {
    char id[24]; /* the fingerprint's ID, else the same surface's ID under the other recipe (c1 databases) */
    snprintf(id, sizeof id, "%s", fp->cluster_id);
    if (dev && has_entries(entries, "", device_key))
      note_rejected(out, entries, "", device_key, " for this device", vars, nvars);
    int e = best_entry(entries, id, NULL, vars, nvars, kind, &m);
    if (e < 0 && (fingerprint_cluster_id_other(fp, id), 1)) e = best_entry(entries, id, NULL, vars, nvars, kind, &m);
    if (e < 0 && fp->signature.present && (fingerprint_cluster_id_c1(fp, id), 1))
      e = best_entry(entries, id, NULL, vars, nvars, kind, &m);
    if (e >= 0) {
      out->rule = VKOCC_POLICY_CLUSTER;
      snprintf(out->cluster_id, sizeof out->cluster_id, "%s", id);
      out->entry = e;
      /* a database keyed by the occupancy class alone (c2, c1) cannot tell generations or vendors apart */
      if (fp->signature.present && strcmp(id, fp->cluster_id))
        note(out, "matched by the occupancy class %s alone (this device is %s): the database predates the architecture "
             "signature, so the GPU generation and vendor were not checked", id, fp->cluster_id);
    } else {
      /* the note names the ID the database knows this device's cluster by (either recipe), else the fingerprint's */
      const char *own = has_entries(entries, fp->cluster_id, NULL) ? fp->cluster_id
                        : has_entries(entries, id, NULL)           ? id
                                                                   : fp->cluster_id;
      snprintf(why, sizeof why, " for cluster %s", own);
      if (has_entries(entries, own, NULL)) note_rejected(out, entries, own, NULL, why, vars, nvars);
      else note(out, "no entry for cluster %s", fp->cluster_id);
      /* known clusters by distance, nearest first, within the threshold */
      double *d = util_xmalloc((db->nclusters + 1) * sizeof *d), nearest = INFINITY;
      bool *tried = util_xcalloc(db->nclusters + 1, sizeof *tried);
      const char *nearest_id = NULL;
      for (uint32_t i = 0; i < db->nclusters; i++) {
        d[i] = vkocc_fingerprint_distance(fp, &db->clusters[i]);
        if (strcmp(db->clusters[i].cluster_id, fp->cluster_id) && strcmp(db->clusters[i].cluster_id, own) &&
            d[i] < nearest)
          nearest = d[i], nearest_id = db->clusters[i].cluster_id;
      }
      for (;;) {
        int best = -1;
        for (uint32_t i = 0; i < db->nclusters; i++)
          if (!tried[i] && d[i] <= threshold && (best < 0 || d[i] < d[best])) best = (int)i;
        if (best < 0) break;
        tried[best] = true;
        int en = best_entry(entries, db->clusters[best].cluster_id, NULL, vars, nvars, kind, &m);
        if (en >= 0) {
          out->rule = VKOCC_POLICY_NEAREST;
          snprintf(out->cluster_id, sizeof out->cluster_id, "%s", db->clusters[best].cluster_id);
          out->distance = d[best];
          out->entry = en;
          char what[400]; /* how far, and on what */
          vkocc_fingerprint_distance_explain(fp, &db->clusters[best], what, sizeof what);
          note(out, "nearest cluster %s at %.4f (%s)", out->cluster_id, d[best], what);
          break;
        }
      }
      if (out->entry < 0) {
        if (nearest_id) note(out, "no cluster within %.3f (the nearest, %s, is at %.3f)", threshold, nearest_id, nearest);
        else note(out, "no other cluster in the database");
      }
      free(d);
      free(tried);
    }
  } else {
    note(out, "no fingerprint: only the default can apply");
  }
  json_t *params;
  if (out->entry >= 0) {
    json_t *e = json_array_get(entries, (size_t)out->entry);
    params = json_object_get(e, "params");
    const char *ek = entry_queue_kind(e);
    snprintf(out->queue_kind, sizeof out->queue_kind, "%s", ek);
    /* which kind of queue family the entry was tuned on, where it matters: another kind than the caller's, or
     * an entry of another kind matched as well */
    bool dev_rule = out->rule == VKOCC_POLICY_DEVICE;
    bool others = other_kind_available(entries, out->entry, dev_rule ? "" : out->cluster_id, dev_rule ? device_key : NULL,
                                       vars, nvars, &m);
    if (kind && strcmp(ek, "unknown") && strcmp(ek, kind))
      note(out, "the entry was tuned on a %s queue family, this one is %s (no entry of that kind%s): its shared "
           "capacity per SM may differ", ek, kind, dev_rule ? " for this device" : " for the cluster");
    else if (kind && !strcmp(ek, kind) && others)
      note(out, "the entry tuned on a %s queue family, as this one (the database has another kind too)", ek);
    else if (!kind && others)
      note(out, "the queue family's kind is not known: the entry tuned on a %s one (the database has another kind "
           "too)", ek);
    const char *from = json_string_value(json_object_get(e, "store"));
    if (from) note(out, "the entry is from the %s", from);
    if (m.dist > 0) {
      char have[200];
      values_of(entries, "problem_size", have, sizeof have);
      note(out, "no bucket holds the given problem_size (the database has %s): the nearest", have);
    }
    note_missing(out, entries, e, vars, nvars);
  } else {
    json_t *def = json_object_get(k, "default");
    if (!def)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "nothing matches for kernel '%s' (%s), and the kernel has no default",
                        kernel, out->note);
    out->rule = VKOCC_POLICY_DEFAULT;
    params = json_object_get(def, "params");
    const char *from = json_string_value(json_object_get(def, "store"));
    if (from) note(out, "the default is from the %s", from);
  }
  out->params_json = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
  return VKOCC_OK;
}

void vkocc_policy_choice_free(vkocc_policy_choice *c) {
  free(c->params_json);
  c->params_json = NULL;
}

vkocc_status vkocc_policy_select_fingerprint(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                             const vkocc_fingerprint_details *details, const vkocc_policy_var *vars,
                                             uint32_t nvars, double threshold, vkocc_policy_choice *out) {
  char key[640] = "";
  if (details && details->device.name[0]) vkocc_device_key(&details->device, details->derived.sm_count, key, sizeof key);
  const char *kind = details && details->device.name[0] ? vkocc_queue_kind_name(details->device.compute_queue_flags) : NULL;
  return vkocc_policy_select_queue(db, kernel, fp, key, kind, vars, nvars, threshold, out);
}
