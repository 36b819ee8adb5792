/* Policy database (schema vkocc.policy-db/2, and /1 read as well; docs/policy.md) and selection: an entry
 * for the exact device (its device key), else for its cluster, else for the nearest known cluster within
 * the threshold, else the kernel's default; entries also need their conditions on the decision variables
 * to hold. The database is validated on load, so selection cannot meet bad data. */
#include "internal.h"
#include "io.h"
#include "jsonio.h"
#include <errno.h>
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
  db->clusters = calloc(json_object_size(clusters) + 1, sizeof *db->clusters);
  const char *cid;
  json_t *c;
  json_object_foreach(clusters, cid, c) {
    snprintf(path, sizeof path, "%s: $.clusters.%s", file, cid);
    /* a cluster entry holds the normalized part of a fingerprint, keyed by its cluster ID */
    vkocc_status s = vkocc_fingerprint_from_json(c, path, cid, &db->clusters[db->nclusters]);
    if (s) return s;
    db->nclusters++;
  }
  return VKOCC_OK;
}

vkocc_status vkocc_policy_db_load(const char *path, vkocc_policy_db **out) {
  *out = NULL;
  json_t *doc;
  /* version 1 (cluster entries only) reads as version 2 without device entries (io/document.c) */
  vkocc_status s = vkocc_doc_load(path, VKOCC_DOC_POLICY_DB, &doc);
  if (s) return s;
  vkocc_policy_db *db = calloc(1, sizeof *db);
  db->doc = doc;
  if ((s = check_db(doc, path, db))) { vkocc_policy_db_free(db); return s; }
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

static bool conditions_hold(json_t *when, const vkocc_policy_var *vars, uint32_t n) {
  const char *var;
  json_t *cond;
  json_object_foreach(when, var, cond) {
    const char *have = var_value(vars, n, var);
    if (!have) return false; /* a condition on a variable not given does not hold */
    if (!json_is_object(cond)) { if (!value_equals(cond, have)) return false; continue; }
    json_t *in = json_object_get(cond, "in"), *mn = json_object_get(cond, "min"), *mx = json_object_get(cond, "max");
    if (in) {
      bool any = false;
      for (size_t i = 0; i < json_array_size(in) && !any; i++) any = value_equals(json_array_get(in, i), have);
      if (!any) return false;
    }
    if (mn || mx) {
      char *end;
      errno = 0;
      double v = strtod(have, &end);
      if (!*have || *end || errno) return false;
      if (mn && v < json_number_value(mn)) return false;
      if (mx && v > json_number_value(mx)) return false;
    }
  }
  return true;
}

/* The first entry for `cluster` (device NULL: entries without a device key) or for the exact device key
 * (device given: cluster ignored) whose conditions hold; -1 when none. */
static int first_entry(json_t *entries, const char *cluster, const char *device, const vkocc_policy_var *vars,
                       uint32_t n) {
  for (size_t i = 0; i < json_array_size(entries); i++) {
    json_t *e = json_array_get(entries, i);
    const char *dk = json_string_value(json_object_get(e, "device"));
    if (device ? !dk || strcmp(dk, device) : dk || strcmp(json_string_value(json_object_get(e, "cluster")), cluster))
      continue;
    json_t *when = json_object_get(e, "when");
    if (!when || conditions_hold(when, vars, n)) return (int)i;
  }
  return -1;
}

vkocc_status vkocc_policy_select(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                 const vkocc_policy_var *vars, uint32_t nvars, double threshold,
                                 vkocc_policy_choice *out) {
  return vkocc_policy_select_device(db, kernel, fp, NULL, vars, nvars, threshold, out);
}

vkocc_status vkocc_policy_select_device(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                                        const char *device_key, const vkocc_policy_var *vars, uint32_t nvars,
                                        double threshold, vkocc_policy_choice *out) {
  memset(out, 0, sizeof *out);
  out->entry = -1;
  if (threshold <= 0) threshold = VKOCC_CLUSTER_THRESHOLD;
  json_t *k = json_object_get(json_object_get(db->doc, "kernels"), kernel);
  if (!k) return vkocc_fail(VKOCC_ERROR_USAGE, "no kernel '%s' in the policy database", kernel);
  json_t *entries = json_object_get(k, "entries");
  int de = device_key && *device_key ? first_entry(entries, "", device_key, vars, nvars) : -1;
  if (de >= 0) {
    out->rule = VKOCC_POLICY_DEVICE;
    snprintf(out->cluster_id, sizeof out->cluster_id, "%s",
             json_string_value(json_object_get(json_array_get(entries, (size_t)de), "cluster")));
    out->entry = de;
  } else if (fp) {
    int e = first_entry(entries, fp->cluster_id, NULL, vars, nvars);
    if (e >= 0) {
      out->rule = VKOCC_POLICY_EXACT;
      snprintf(out->cluster_id, sizeof out->cluster_id, "%s", fp->cluster_id);
      out->entry = e;
    } else {
      /* known clusters by distance, nearest first, within the threshold */
      double *d = malloc((db->nclusters + 1) * sizeof *d);
      bool *tried = calloc(db->nclusters + 1, sizeof *tried);
      for (uint32_t i = 0; i < db->nclusters; i++) d[i] = vkocc_fingerprint_distance(fp, &db->clusters[i]);
      for (;;) {
        int best = -1;
        for (uint32_t i = 0; i < db->nclusters; i++)
          if (!tried[i] && d[i] <= threshold && (best < 0 || d[i] < d[best])) best = (int)i;
        if (best < 0) break;
        tried[best] = true;
        int en = first_entry(entries, db->clusters[best].cluster_id, NULL, vars, nvars);
        if (en >= 0) {
          out->rule = VKOCC_POLICY_NEAREST;
          snprintf(out->cluster_id, sizeof out->cluster_id, "%s", db->clusters[best].cluster_id);
          out->distance = d[best];
          out->entry = en;
          break;
        }
      }
      free(d);
      free(tried);
    }
  }
  json_t *params;
  if (out->entry >= 0) params = json_object_get(json_array_get(entries, (size_t)out->entry), "params");
  else {
    json_t *def = json_object_get(k, "default");
    if (!def)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "nothing matches for kernel '%s' (no entry for cluster %s or a "
                        "cluster within %.3f, and no default)", kernel, fp ? fp->cluster_id : "(none)", threshold);
    out->rule = VKOCC_POLICY_DEFAULT;
    params = json_object_get(def, "params");
  }
  out->params_json = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
  return VKOCC_OK;
}

void vkocc_policy_choice_free(vkocc_policy_choice *c) {
  free(c->params_json);
  c->params_json = NULL;
}
