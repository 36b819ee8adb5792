/* Documents out of the policy store (docs/policy-store.md): today's JSON database (export, transfer, header over the
 * results as tune_docs again, store_io.c) and the selection's view of one kernel, layered (a user store over a
 * system store). */
#include "store.h"
#include "tunedb.h"
#include "jsonio.h"
#include "io.h"
#include "tune_user_io.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ out: today's JSON database */
static json_t *parse(const char *t) {
  json_error_t je;
  return json_loads(t, JSON_DECODE_ANY, &je);
}

/* rows of sql (bound ?1 = a text, ?2 an integer when given) as the parsed JSON of column col, appended to arr */
static int rows_json(pstore *s, const char *sql, const char *t1, const int64_t *i2, int col, json_t *arr) {
  sqlite3_stmt *q;
  int rc = sqlite3_prepare_v2(s->db, sql, -1, &q, NULL);
  if (rc) return rc;
  if (t1) pstore_bind_text(q, 1, t1);
  if (i2) sqlite3_bind_int64(q, 2, *i2);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    json_t *v = parse((const char *)sqlite3_column_text(q, col));
    json_array_append_new(arr, v ? v : json_null());
  }
  sqlite3_finalize(q);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* rows_json with two texts (?1, ?2; the second may be NULL) and the first column */
static int rows_json2(pstore *s, const char *sql, const char *t1, const char *t2, json_t *arr) {
  sqlite3_stmt *q;
  int rc = sqlite3_prepare_v2(s->db, sql, -1, &q, NULL);
  if (rc) return rc;
  pstore_bind_text(q, 1, t1), pstore_bind_text(q, 2, t2);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    json_t *v = parse((const char *)sqlite3_column_text(q, 0));
    json_array_append_new(arr, v ? v : json_null());
  }
  sqlite3_finalize(q);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int count_of(pstore *s, const char *sql, int64_t *n) {
  sqlite3_stmt *q;
  int rc = sqlite3_prepare_v2(s->db, sql, -1, &q, NULL);
  if (rc) return rc;
  rc = sqlite3_step(q);
  *n = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
  sqlite3_finalize(q);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Imported kernels into kernels (those not there), in the order first imported: the first database's members,
 * every imported entry in order, the first default. only: one kernel (NULL every). */
static int imported_kernels(pstore *s, json_t *kernels, const char *only, const char *device) {
  sqlite3_stmt *q;
  int rc = sqlite3_prepare_v2(s->db, "SELECT kernel, head, min(id) FROM kernel_heads WHERE ?1 IS NULL OR kernel = ?1"
                              " GROUP BY kernel ORDER BY min(id)", -1, &q, NULL);
  if (rc) return rc;
  pstore_bind_text(q, 1, only);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(q, 0);
    if (json_object_get(kernels, name)) continue;
    json_t *k = parse((const char *)sqlite3_column_text(q, 1)), *entries = json_array(), *def = json_array();
    if (!json_is_object(k)) { json_decref(k); k = json_object(); }
    int r2 = rows_json2(s, "SELECT entry FROM entries WHERE kernel = ?1 AND document IS NOT NULL AND (?2 IS NULL OR device_key IS"
                        " NULL OR device_key = ?2) ORDER BY id", name, device, entries);
    if (!r2) r2 = rows_json(s, "SELECT value FROM defaults WHERE kernel = ?1 AND document IS NOT NULL ORDER BY document LIMIT 1",
                            name, NULL, 0, def);
    if (r2) { json_decref(k), json_decref(entries), json_decref(def); rc = r2; break; }
    if (json_object_get(k, "entries") || json_array_size(entries)) json_object_set(k, "entries", entries);
    if (json_array_size(def)) json_object_set(k, "default", json_array_get(def, 0));
    else json_object_del(k, "default");
    json_decref(entries), json_decref(def);
    json_object_set_new(kernels, name, k);
  }
  sqlite3_finalize(q);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The clusters table into clusters (those not there), in order. */
static int all_clusters(pstore *s, json_t *clusters) {
  sqlite3_stmt *q;
  int rc = sqlite3_prepare_v2(s->db, "SELECT cluster_id, surface FROM clusters ORDER BY id", -1, &q, NULL);
  if (rc) return rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    const char *id = (const char *)sqlite3_column_text(q, 0);
    if (!json_object_get(clusters, id)) {
      json_t *c = parse((const char *)sqlite3_column_text(q, 1));
      json_object_set_new(clusters, id, c ? c : json_object());
    }
  }
  sqlite3_finalize(q);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static vkocc_status export_doc(pstore *s, bool use_min, json_t **out) {
  *out = NULL;
  int64_t runs, ndocs;
  int rc = count_of(s, "SELECT count(*) FROM runs", &runs);
  if (!rc) rc = count_of(s, "SELECT count(*) FROM documents", &ndocs);
  if (rc) return pstore_fail(s, rc, "counting");
  if (!runs && !ndocs) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: the store is empty: nothing to export", s->path);
  json_t *doc = NULL;
  vkocc_status st = VKOCC_OK;
  if (runs) {
    tune_doc *docs;
    uint32_t n;
    if ((st = pstore_docs(s, NULL, &docs, &n))) return st;
    for (uint32_t i = 0; i < n; i++) tdb_statistic(&docs[i], use_min);
    st = tdb_build(docs, n, &doc);
    pstore_docs_free(docs, n);
    if (st) return st;
  } else {
    json_t *heads = json_array();
    rc = rows_json(s, "SELECT head FROM documents ORDER BY id LIMIT 1", NULL, NULL, 0, heads);
    doc = json_incref(json_array_get(heads, 0));
    json_decref(heads);
    if (rc || !json_is_object(doc)) { json_decref(doc); return rc ? pstore_fail(s, rc, "reading a database") : vkocc_fail(VKOCC_ERROR_USAGE, "%s: documents.head: not an object", s->path); }
    /* several databases merged: the current version's stamp and every member; one: its members in their places */
    if (ndocs > 1) vkocc_doc_stamp(doc, VKOCC_DOC_POLICY_DB);
    static const char *const big[] = {"clusters", "kernels", "sources"};
    for (int i = 0; i < 3; i++)
      if (ndocs > 1 || json_object_get(doc, big[i])) json_object_set_new(doc, big[i], i == 2 ? json_array() : json_object());
  }
  json_t *clusters = json_object_get(doc, "clusters"), *kernels = json_object_get(doc, "kernels");
  json_t *sources = json_object_get(doc, "sources");
  rc = clusters ? all_clusters(s, clusters) : SQLITE_OK;
  if (!rc && kernels) rc = imported_kernels(s, kernels, NULL, NULL);
  if (!rc && sources) rc = rows_json(s, "SELECT source FROM sources ORDER BY id", NULL, NULL, 0, sources);
  if (rc) { json_decref(doc); return pstore_fail(s, rc, "reading the databases"); }
  *out = doc;
  return st;
}

vkocc_status vkocc_policy_store_export(const char *store, bool use_min, const char *path, char **json) {
  vkocc_clear_error();
  if (json) *json = NULL;
  pstore s;
  vkocc_status st = pstore_open(store, false, NULL, &s);
  if (st) return st;
  json_t *doc = NULL;
  st = export_doc(&s, use_min, &doc);
  pstore_close(&s);
  return policy_doc_out(st, doc, path, json);
}

vkocc_status vkocc_policy_store_transfer(const char *store, bool use_min, double threshold, const char *path, char **json) {
  vkocc_clear_error();
  if (json) *json = NULL;
  pstore s;
  vkocc_status st = pstore_open(store, false, NULL, &s);
  if (st) return st;
  tune_doc *docs;
  uint32_t n;
  st = pstore_docs(&s, NULL, &docs, &n);
  pstore_close(&s);
  if (st) return st;
  if (!n) { free(docs); return vkocc_fail(VKOCC_ERROR_USAGE, "%s: the store holds no tuning results", store); }
  for (uint32_t i = 0; i < n; i++) tdb_statistic(&docs[i], use_min);
  json_t *doc = NULL;
  st = tdb_transfer(docs, n, threshold, &doc);
  pstore_docs_free(docs, n);
  return policy_doc_out(st, doc, path, json);
}

vkocc_status vkocc_policy_store_header(const char *store, char **text) {
  vkocc_clear_error();
  *text = NULL;
  char *json;
  vkocc_status st = vkocc_policy_store_export(store, false, NULL, &json);
  if (st) return st;
  json_t *doc = parse(json);
  free(json);
  vkocc_policy_db *check;
  json_incref(doc);
  if ((st = policy_db_from_doc(doc, store, &check))) { json_decref(doc); return st; }
  vkocc_policy_db_free(check);
  st = policy_header_doc(doc, store, text);
  json_decref(doc);
  return st;
}

/* ------------------------------------------------------------------ the selection's view */
/* One store's view of kernel (NULL every): its built entries where it has results of the kernel, else its
 * imported ones; the clusters. */
static vkocc_status view(pstore *s, const char *kernel, const char *device, json_t **out) {
  json_t *doc = vkocc_doc_new(VKOCC_DOC_POLICY_DB), *clusters = json_object(), *kernels = json_object();
  json_object_set_new(doc, "clusters", clusters);
  json_object_set_new(doc, "kernels", kernels);
  int rc = all_clusters(s, clusters);
  sqlite3_stmt *q = NULL;
  if (!rc) rc = sqlite3_prepare_v2(s->db, "SELECT DISTINCT kernel FROM entries WHERE document IS NULL AND (?1 IS NULL OR kernel = ?1)",
                                   -1, &q, NULL);
  if (!rc) {
    pstore_bind_text(q, 1, kernel);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
      const char *name = (const char *)sqlite3_column_text(q, 0);
      json_t *k = json_object(), *entries = json_array(), *def = json_array();
      int r2 = rows_json2(s, "SELECT entry FROM entries WHERE kernel = ?1 AND document IS NULL AND (?2 IS NULL OR device_key IS NULL"
                          " OR device_key = ?2) ORDER BY id", name, device, entries);
      if (!r2) r2 = rows_json(s, "SELECT value FROM defaults WHERE kernel = ?1 AND document IS NULL", name, NULL, 0, def);
      json_object_set_new(k, "entries", entries);
      if (json_array_size(def)) json_object_set(k, "default", json_array_get(def, 0));
      json_decref(def);
      json_object_set_new(kernels, name, k);
      if (r2) { rc = r2; break; }
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    sqlite3_finalize(q);
  }
  if (!rc) rc = imported_kernels(s, kernels, kernel, device);
  if (rc) { json_decref(doc); return pstore_fail(s, rc, "reading the policy"); }
  *out = doc;
  return VKOCC_OK;
}

/* The group an entry answers for: its device or cluster, element type and kind of queue family. */
static void group_of(json_t *e, char *out, size_t len) {
  json_t *et = json_object_get(json_object_get(e, "when"), "element_type");
  char *t = et ? json_dumps(et, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  snprintf(out, len, "%s|%s|%s|%s", json_string_value(json_object_get(e, "device")) ? json_string_value(json_object_get(e, "device")) : "",
           json_string_value(json_object_get(e, "cluster")), t ? t : "",
           json_string_value(json_object_get(json_object_get(e, "queue_family"), "kind")) ? json_string_value(json_object_get(json_object_get(e, "queue_family"), "kind")) : "");
  free(t);
}

static void mark(json_t *k, const char *label) {
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(k, "entries"), i, e) json_object_set_new(e, "store", json_string(label));
  if (json_object_get(k, "default")) json_object_set_new(json_object_get(k, "default"), "store", json_string(label));
}

vkocc_status vkocc_policy_store_load(const char *user_path, const char *system_path, const char *kernel,
                                     const char *device_key, vkocc_policy_db **db) {
  vkocc_clear_error();
  *db = NULL;
  if (!user_path && !system_path) return vkocc_fail(VKOCC_ERROR_USAGE, "no policy store given");
  json_t *views[2] = {NULL, NULL};
  const char *paths[2] = {user_path, system_path};
  vkocc_status st = VKOCC_OK;
  for (int i = 0; i < 2 && !st; i++) {
    if (!paths[i]) continue;
    pstore s;
    if ((st = pstore_open(paths[i], false, NULL, &s))) break;
    if (!(st = pstore_begin(&s))) { /* one snapshot of the store */
      st = view(&s, kernel, device_key && *device_key ? device_key : NULL, &views[i]);
      pstore_rollback(&s);
    }
    pstore_close(&s);
  }
  if (st) { json_decref(views[0]), json_decref(views[1]); return st; }
  json_t *doc;
  char label[1200];
  if (views[0] && views[1]) {
    /* the user store over the system store: the user's entries for a device or cluster replace the system's */
    doc = views[0];
    char ul[1100], sl[1100];
    snprintf(ul, sizeof ul, "user store %s", user_path), snprintf(sl, sizeof sl, "system store %s", system_path);
    json_t *uk = json_object_get(doc, "kernels"), *sk = json_object_get(views[1], "kernels");
    const char *name;
    json_t *k;
    json_object_foreach(uk, name, k) mark(k, ul);
    json_object_foreach(sk, name, k) {
      mark(k, sl);
      json_t *mine = json_object_get(uk, name);
      if (!mine) { json_object_set(uk, name, k); continue; }
      json_t *groups = json_object(), *e, *entries = json_object_get(mine, "entries");
      if (!entries) json_object_set_new(mine, "entries", entries = json_array());
      size_t i;
      char g[1400];
      json_array_foreach(entries, i, e) group_of(e, g, sizeof g), json_object_set_new(groups, g, json_true());
      json_array_foreach(json_object_get(k, "entries"), i, e) {
        group_of(e, g, sizeof g);
        if (!json_object_get(groups, g)) json_array_append(entries, e);
      }
      json_decref(groups);
      if (!json_object_get(mine, "default") && json_object_get(k, "default"))
        json_object_set(mine, "default", json_object_get(k, "default"));
    }
    const char *cid;
    json_t *c;
    json_object_foreach(json_object_get(views[1], "clusters"), cid, c)
      if (!json_object_get(json_object_get(doc, "clusters"), cid)) json_object_set(json_object_get(doc, "clusters"), cid, c);
    json_decref(views[1]);
    snprintf(label, sizeof label, "%s over %s", user_path, system_path);
  } else {
    doc = views[0] ? views[0] : views[1];
    snprintf(label, sizeof label, "%s", views[0] ? user_path : system_path);
  }
  if (kernel && !json_object_get(json_object_get(doc, "kernels"), kernel)) {
    json_decref(doc);
    return vkocc_fail(VKOCC_ERROR_USAGE, "no kernel '%s' in the policy store %s", kernel, label);
  }
  return policy_db_from_doc(doc, label, db);
}
