/* Documents in and out of the policy store (docs/policy-store.md). In: tuning results through their one reader
 * (io/tune_results.c), T4 results with vkocc's metadata beside them, policy databases through the policy reader
 * (policy.c); each configuration once per run (kernel, element type, size, device, queue family), under a content
 * hash; the results as tune_docs again, for `policy build`, `transfer` and `header` to run their own code over
 * (store_export.c: today's JSON database and the selection's view). */
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

/* ------------------------------------------------------------------ statements */
enum {
  Q_KERNEL_INS, Q_KERNEL_SPEC, Q_DEVICE_INS, Q_DEVICE_ID, Q_CLUSTER_INS, Q_CLUSTER_ID, Q_RUN_INS, Q_RUN_ID, Q_RUN_SEQ,
  Q_CONFIG_INS, Q_CONFIG_ID, Q_RESULT_INS, Q_RUN_ROWS, Q_BATCH_INS, Q_ADDITION, Q_DOC_INS, Q_KHEAD_INS, Q_ENTRY_INS,
  Q_DEFAULT_INS, Q_SOURCE_INS, Q_COUNT
};
static const char *const sql_of[Q_COUNT] = {
    [Q_KERNEL_INS] = "INSERT OR IGNORE INTO kernels(name, spec_hash) VALUES(?1, ?2)",
    [Q_KERNEL_SPEC] = "SELECT spec_hash FROM kernels WHERE name = ?1",
    [Q_DEVICE_INS] = "INSERT OR IGNORE INTO devices(hash, device_key, uuid, driver, identity) VALUES(?1, ?2, ?3, ?4, ?5)",
    [Q_DEVICE_ID] = "SELECT id FROM devices WHERE hash = ?1",
    [Q_CLUSTER_INS] = "INSERT OR IGNORE INTO clusters(cluster_id, surface) VALUES(?1, ?2)",
    [Q_CLUSTER_ID] = "SELECT id FROM clusters WHERE cluster_id = ?1",
    [Q_RUN_INS] = "INSERT OR IGNORE INTO runs(kernel, element_type, problem_size, device, cluster_id, queue_kind,"
                  " shared_per_sm, fingerprint, spec_hash, file, host, added, vkocc_version)"
                  " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    [Q_RUN_ID] = "SELECT id, cluster_id, file FROM runs WHERE kernel = ?1 AND element_type = ?2 AND problem_size = ?3"
                 " AND device = ?4 AND queue_kind = ?5",
    [Q_RUN_SEQ] = "SELECT coalesce(max(seq) + 1, 0) FROM results WHERE run = ?1",
    [Q_CONFIG_INS] = "INSERT OR IGNORE INTO configs(key) VALUES(?1)",
    [Q_CONFIG_ID] = "SELECT id FROM configs WHERE key = ?1",
    [Q_RESULT_INS] = "INSERT INTO results(run, seq, config, valid, median_ns, spread, min_ns, max_ns, normalized_ns, runs,"
                     " error) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    [Q_RUN_ROWS] = "SELECT config, valid, median_ns, spread, min_ns, max_ns, normalized_ns, runs, error FROM results WHERE run = ?1",
    [Q_BATCH_INS] = "INSERT OR IGNORE INTO batches(run, hash, results) VALUES(?1, ?2, ?3)",
    [Q_ADDITION] = "INSERT INTO additions(file, kind, host, added, vkocc_version, spec_hash, added_results,"
                   " present_results) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [Q_DOC_INS] = "INSERT OR IGNORE INTO documents(hash, file, host, added, vkocc_version, head) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
    [Q_KHEAD_INS] = "INSERT OR IGNORE INTO kernel_heads(document, kernel, head) VALUES(?1, ?2, ?3)",
    [Q_ENTRY_INS] = "INSERT INTO entries(document, kernel, device_key, cluster_id, entry, hash) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
    [Q_DEFAULT_INS] = "INSERT OR REPLACE INTO defaults(document, kernel, value) VALUES(?1, ?2, ?3)",
    [Q_SOURCE_INS] = "INSERT INTO sources(document, source) VALUES(?1, ?2)",
};

typedef struct adder {
  pstore *s;
  sqlite3_stmt *q[Q_COUNT];
  json_t *config_ids;   /* configuration key -> id, this process's cache */
  json_t *touched;      /* kernels whose results changed: their policy is built again */
  char host[256], now[32];
  vkocc_policy_store_added *out;
} adder;

static vkocc_status prepare(adder *a) {
  for (int i = 0; i < Q_COUNT; i++) {
    int rc = sqlite3_prepare_v3(a->s->db, sql_of[i], -1, SQLITE_PREPARE_PERSISTENT, &a->q[i], NULL);
    if (rc) return pstore_fail(a->s, rc, "preparing a statement");
  }
  return VKOCC_OK;
}

/* Steps a statement to its end (or its first row: *row), then resets it; 0 or the SQLite code. */
static int step(sqlite3_stmt *q, bool *row) {
  int rc = sqlite3_step(q);
  if (row) *row = rc == SQLITE_ROW;
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_OK;
  return rc;
}

void pstore_bind_text(sqlite3_stmt *q, int i, const char *t) {
  if (t) sqlite3_bind_text(q, i, t, -1, SQLITE_TRANSIENT);
  else sqlite3_bind_null(q, i);
}

static void bind_real(sqlite3_stmt *q, int i, double v) {
  if (isfinite(v)) sqlite3_bind_double(q, i, v);
  else sqlite3_bind_null(q, i);
}

/* A time: an integer (a few bytes) where it is one, else a double, NULL for NaN (the columns have no affinity). */
static void bind_time(sqlite3_stmt *q, int i, double v) {
  if (isfinite(v) && v == floor(v) && fabs(v) < 9e15) sqlite3_bind_int64(q, i, (sqlite3_int64)v);
  else bind_real(q, i, v);
}

/* min or max: an integer distance from an integer median, else the value itself as a double */
static void bind_delta(sqlite3_stmt *q, int i, double v, double median) {
  if (isfinite(v) && isfinite(median) && v == floor(v) && median == floor(median) && fabs(v) < 9e15 && fabs(median) < 9e15)
    sqlite3_bind_int64(q, i, (sqlite3_int64)median - (sqlite3_int64)v);
  else if (isfinite(v)) sqlite3_bind_double(q, i, v);
  else sqlite3_bind_null(q, i);
}

static double col_real(sqlite3_stmt *q, int i) { return sqlite3_column_type(q, i) == SQLITE_NULL ? NAN : sqlite3_column_double(q, i); }

static double col_delta(sqlite3_stmt *q, int i, double median) {
  int t = sqlite3_column_type(q, i);
  return t == SQLITE_NULL ? NAN : t == SQLITE_INTEGER ? median - (double)sqlite3_column_int64(q, i) : sqlite3_column_double(q, i);
}

/* A stored result's values from columns first.. (valid, median, spread, min, max, normalized, runs, error). */
static void read_row(sqlite3_stmt *r, int first, tune_result *x) {
  memset(x, 0, sizeof *x);
  x->measured = true, x->valid = sqlite3_column_int(r, first);
  x->median_ns = col_real(r, first + 1), x->spread = col_real(r, first + 2);
  x->min_ns = col_delta(r, first + 3, x->median_ns), x->max_ns = col_delta(r, first + 4, x->median_ns);
  double nn = col_real(r, first + 5);
  x->normalized_ns = nn > 0 ? nn : 0;
  x->runs = (uint32_t)sqlite3_column_int64(r, first + 6);
  if (sqlite3_column_type(r, first + 7) != SQLITE_NULL)
    snprintf(x->error, sizeof x->error, "%s", (const char *)sqlite3_column_text(r, first + 7));
}

/* A result's measurement as a hash: equal measurements of one configuration are the same result. */
static uint64_t row_hash(const tune_result *r) {
  char m[200];
  snprintf(m, sizeof m, "|%d|%.17g|%.17g|%.17g|%.17g|%.17g|%u|", r->valid, r->median_ns, r->spread, r->min_ns, r->max_ns,
           r->normalized_ns > 0 ? r->normalized_ns : 0, r->runs);
  return util_fnv1a_str(util_fnv1a_str(VKOCC_FNV1A_OFFSET, m), r->error);
}

static char *compact(json_t *j) { return json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY); }

static uint64_t hash_text(const char *t) { return util_fnv1a_str(VKOCC_FNV1A_OFFSET, t); }

/* id of the row a unique key names after an INSERT OR IGNORE (ins bound and stepped by the caller) */
static vkocc_status id_of(adder *a, int qi, int64_t *id) {
  bool row;
  int rc = step(a->q[qi], &row);
  *id = row ? sqlite3_column_int64(a->q[qi], 0) : -1;
  sqlite3_reset(a->q[qi]);
  if (rc) return pstore_fail(a->s, rc, "reading an id");
  if (!row) return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: a row just written is missing", a->s->path);
  return VKOCC_OK;
}

static vkocc_status run_q(adder *a, int qi, const char *what) {
  int rc = step(a->q[qi], NULL);
  sqlite3_reset(a->q[qi]);
  return rc ? pstore_fail(a->s, rc, what) : VKOCC_OK;
}

static vkocc_status config_id(adder *a, const char *key, int64_t *id) {
  json_t *c = json_object_get(a->config_ids, key);
  if (c) { *id = json_integer_value(c); return VKOCC_OK; }
  pstore_bind_text(a->q[Q_CONFIG_INS], 1, key);
  vkocc_status s = run_q(a, Q_CONFIG_INS, "storing a configuration");
  sqlite3_clear_bindings(a->q[Q_CONFIG_INS]);
  if (s) return s;
  pstore_bind_text(a->q[Q_CONFIG_ID], 1, key);
  s = id_of(a, Q_CONFIG_ID, id);
  if (!s) json_object_set_new(a->config_ids, key, json_integer(*id));
  return s;
}

static vkocc_status addition(adder *a, const char *file, const char *kind, const char *spec, uint64_t added, uint64_t present) {
  sqlite3_stmt *q = a->q[Q_ADDITION];
  pstore_bind_text(q, 1, file), pstore_bind_text(q, 2, kind), pstore_bind_text(q, 3, a->host), pstore_bind_text(q, 4, a->now);
  pstore_bind_text(q, 5, vkocc_version()), pstore_bind_text(q, 6, spec);
  sqlite3_bind_int64(q, 7, (sqlite3_int64)added), sqlite3_bind_int64(q, 8, (sqlite3_int64)present);
  return run_q(a, Q_ADDITION, "recording the addition");
}

/* A cluster's normalized surface as a policy database's "clusters" holds it (policy/build.c writes the same). */
static json_t *surface_json(const tune_doc *d) {
  json_t *c = io_fingerprint_json(&d->dev.fp);
  json_object_del(c, "cluster_id");
  json_object_set_new(c, "name", json_string(d->dev.id.name));
  return c;
}

/* One run's results (a tuning results document, or T4 results made into one) into the store. */
static vkocc_status insert_doc(adder *a, const tune_doc *d, const char *spec, const char *kind) {
  vkocc_status s;
  int64_t dev_id, run_id, fp_id = -1;
  const char *etype = d->k->glsl ? (d->f32 ? "f32" : "u32") : "";
  if (isnan(tdb_best(d, NULL)))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: no valid configuration: nothing a policy could choose, refused", d->file);
  if (!d->dev.cluster_id[0]) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.cluster_id: empty", d->file);
  /* one kernel name, one spec */
  pstore_bind_text(a->q[Q_KERNEL_INS], 1, d->k->name), pstore_bind_text(a->q[Q_KERNEL_INS], 2, spec);
  if ((s = run_q(a, Q_KERNEL_INS, "storing the kernel"))) return s;
  bool row;
  pstore_bind_text(a->q[Q_KERNEL_SPEC], 1, d->k->name);
  int rc = step(a->q[Q_KERNEL_SPEC], &row);
  char have[128] = "";
  if (row) snprintf(have, sizeof have, "%s", (const char *)sqlite3_column_text(a->q[Q_KERNEL_SPEC], 0));
  sqlite3_reset(a->q[Q_KERNEL_SPEC]);
  if (rc) return pstore_fail(a->s, rc, "reading the kernel's spec");
  if (strcmp(have, spec))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.spec.hash: kernel '%s' is in the store tuned from spec %s, this file "
                      "from spec %s: another kernel under the same name (rename one, or use another store), refused",
                      d->file, d->k->name, have, spec);
  /* the device, once per identity */
  json_t *idj = io_device_identity_json(&d->dev.id);
  char *idt = json_dumps(idj, JSON_COMPACT | JSON_SORT_KEYS);
  json_decref(idj);
  char uuid[40] = "", driver[520];
  for (int i = 0; i < 16; i++) snprintf(uuid + 2 * i, 3, "%02x", d->dev.id.uuid[i]);
  snprintf(driver, sizeof driver, "%s %s", d->dev.id.driver_name, d->dev.id.driver_info);
  sqlite3_stmt *q = a->q[Q_DEVICE_INS];
  uint64_t dh = util_fnv1a_str(hash_text(idt), uuid); /* the short form has no UUID: the column keeps it apart */
  sqlite3_bind_int64(q, 1, (sqlite3_int64)dh), pstore_bind_text(q, 2, d->dev.id.key), pstore_bind_text(q, 3, uuid);
  pstore_bind_text(q, 4, driver), pstore_bind_text(q, 5, idt);
  free(idt);
  if ((s = run_q(a, Q_DEVICE_INS, "storing the device"))) return s;
  sqlite3_bind_int64(a->q[Q_DEVICE_ID], 1, (sqlite3_int64)dh);
  if ((s = id_of(a, Q_DEVICE_ID, &dev_id))) return s;
  if (d->dev.has_fp) {
    json_t *c = surface_json(d);
    char *ct = compact(c);
    json_decref(c);
    pstore_bind_text(a->q[Q_CLUSTER_INS], 1, d->dev.cluster_id), pstore_bind_text(a->q[Q_CLUSTER_INS], 2, ct);
    free(ct);
    if ((s = run_q(a, Q_CLUSTER_INS, "storing the cluster"))) return s;
    pstore_bind_text(a->q[Q_CLUSTER_ID], 1, d->dev.cluster_id);
    if ((s = id_of(a, Q_CLUSTER_ID, &fp_id))) return s;
  }
  /* the run: its first addition's provenance */
  q = a->q[Q_RUN_INS];
  pstore_bind_text(q, 1, d->k->name), pstore_bind_text(q, 2, etype), sqlite3_bind_int64(q, 3, (sqlite3_int64)d->n);
  sqlite3_bind_int64(q, 4, dev_id), pstore_bind_text(q, 5, d->dev.cluster_id), pstore_bind_text(q, 6, d->dev.queue_kind);
  sqlite3_bind_int64(q, 7, d->dev.shared_per_sm);
  if (fp_id >= 0) sqlite3_bind_int64(q, 8, fp_id);
  else sqlite3_bind_null(q, 8);
  pstore_bind_text(q, 9, spec), pstore_bind_text(q, 10, d->file), pstore_bind_text(q, 11, a->host), pstore_bind_text(q, 12, a->now);
  pstore_bind_text(q, 13, vkocc_version());
  if ((s = run_q(a, Q_RUN_INS, "storing the run"))) return s;
  bool fresh = sqlite3_changes(a->s->db) > 0;
  q = a->q[Q_RUN_ID];
  pstore_bind_text(q, 1, d->k->name), pstore_bind_text(q, 2, etype), sqlite3_bind_int64(q, 3, (sqlite3_int64)d->n);
  sqlite3_bind_int64(q, 4, dev_id), pstore_bind_text(q, 5, d->dev.queue_kind);
  rc = step(q, &row);
  char run_cluster[32] = "", run_file[1024] = "";
  if (row) {
    run_id = sqlite3_column_int64(q, 0);
    snprintf(run_cluster, sizeof run_cluster, "%s", (const char *)sqlite3_column_text(q, 1));
    snprintf(run_file, sizeof run_file, "%s", (const char *)sqlite3_column_text(q, 2));
  }
  sqlite3_reset(q);
  if (rc || !row) return rc ? pstore_fail(a->s, rc, "reading the run") : vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: run missing", a->s->path);
  if (strcmp(run_cluster, d->dev.cluster_id))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.cluster_id: %s, but the store holds this device's %s results at size %llu "
                      "under cluster %s (from %s): one device, two clusters, refused", d->file, d->dev.cluster_id,
                      d->k->name, (unsigned long long)d->n, run_cluster, run_file);
  /* the batch's content hash (the run's identity, then each configuration and its measurement): the same results
   * again are found by it at once */
  char ident[1400];
  snprintf(ident, sizeof ident, "%s|%s|%llu|%016llx|%s|", d->k->name, etype, (unsigned long long)d->n,
           (unsigned long long)dh, d->dev.queue_kind); /* the run's key: dh names the device's whole identity */
  uint64_t bh = hash_text(ident), added = 0, present = 0;
  for (uint32_t i = 0; i < d->count; i++) bh = util_fnv1a(util_fnv1a_str(bh, d->r[i].key), &(uint64_t){row_hash(&d->r[i])}, 8);
  q = a->q[Q_BATCH_INS];
  sqlite3_bind_int64(q, 1, run_id), sqlite3_bind_int64(q, 2, (sqlite3_int64)bh), sqlite3_bind_int64(q, 3, d->count);
  if ((s = run_q(a, Q_BATCH_INS, "storing the batch"))) return s;
  if (sqlite3_changes(a->s->db) == 0) { /* every result of this file is in the store already */
    if (a->out) a->out->results_present += d->count;
    return addition(a, d->file, kind, spec, 0, d->count);
  }
  /* a run that has results already: each configuration once, with one measurement */
  json_t *old = json_object();
  int64_t seq = 0;
  if (!fresh) {
    sqlite3_bind_int64(a->q[Q_RUN_SEQ], 1, run_id);
    if ((s = id_of(a, Q_RUN_SEQ, &seq))) { json_decref(old); return s; }
    sqlite3_stmt *o = a->q[Q_RUN_ROWS];
    sqlite3_bind_int64(o, 1, run_id);
    while ((rc = sqlite3_step(o)) == SQLITE_ROW) {
      tune_result x;
      char cid[32];
      read_row(o, 1, &x);
      snprintf(cid, sizeof cid, "%lld", (long long)sqlite3_column_int64(o, 0));
      json_object_set_new(old, cid, json_pack("[I, f, b]", (json_int_t)row_hash(&x), isfinite(x.median_ns) ? x.median_ns : -1.0, x.valid));
    }
    sqlite3_reset(o);
    if (rc != SQLITE_DONE) { json_decref(old); return pstore_fail(a->s, rc, "reading a run's results"); }
  }
  q = a->q[Q_RESULT_INS];
  for (uint32_t i = 0; i < d->count; i++) {
    const tune_result *r = &d->r[i];
    int64_t cid;
    if ((s = config_id(a, r->key, &cid))) break;
    if (!fresh) {
      char k[32];
      snprintf(k, sizeof k, "%lld", (long long)cid);
      json_t *o = json_object_get(old, k);
      if (o && (uint64_t)json_integer_value(json_array_get(o, 0)) == row_hash(r)) { present++; continue; }
      if (o) {
        s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%u]: %s on '%s' at size %llu is in the store already with "
                       "another measurement (%s, median %.0f ns there; %s, %.0f ns here; first added from %s): one "
                       "result per configuration and run, refused (tune again into a new store, or keep one)",
                       d->file, i, r->key, d->dev.id.key, (unsigned long long)d->n,
                       json_is_true(json_array_get(o, 2)) ? "valid" : "invalid", json_real_value(json_array_get(o, 1)),
                       r->valid ? "valid" : "invalid", r->median_ns, run_file);
        break;
      }
      json_object_set_new(old, k, json_pack("[I, f, b]", (json_int_t)row_hash(r), isfinite(r->median_ns) ? r->median_ns : -1.0, r->valid));
    }
    sqlite3_bind_int64(q, 1, run_id), sqlite3_bind_int64(q, 2, seq++), sqlite3_bind_int64(q, 3, cid);
    sqlite3_bind_int(q, 4, r->valid);
    bind_time(q, 5, r->median_ns), bind_real(q, 6, r->spread);
    /* min and max as their distance from an integer median where they are integers too (a few bytes, exact) */
    bind_delta(q, 7, r->min_ns, r->median_ns), bind_delta(q, 8, r->max_ns, r->median_ns);
    bind_time(q, 9, r->normalized_ns > 0 ? r->normalized_ns : NAN), sqlite3_bind_int64(q, 10, r->runs);
    pstore_bind_text(q, 11, r->error[0] ? r->error : NULL);
    if ((s = run_q(a, Q_RESULT_INS, "storing a result"))) break;
    added++;
  }
  json_decref(old);
  if (s) return s;
  if (added) json_object_set_new(a->touched, d->k->name, json_true());
  if (a->out) a->out->results_added += added, a->out->results_present += present;
  return addition(a, d->file, kind, spec, added, present);
}

/* ------------------------------------------------------------------ readers of each kind of file */
static vkocc_status add_results(adder *a, const char *file, json_t *raw) {
  tune_doc d;
  vkocc_status s = tune_results_load(file, NULL, &d);
  if (s) return s;
  /* a user kernel's spec is named by its hash; a shipped kernel's by vkocc's own (one spec per version) */
  const char *sh = json_string_value(json_object_get(json_object_get(raw, "spec"), "hash"));
  char spec[128];
  if (d.k->glsl || !sh) snprintf(spec, sizeof spec, "shipped:%s", d.k->name);
  else snprintf(spec, sizeof spec, "%s", sh);
  s = insert_doc(a, &d, spec, "tune-results");
  tune_doc_free(&d);
  return s;
}

/* T4 results (Kernel Tuner, KTT) with vkocc's metadata beside them ("R.metadata.json" for "R.json"): the device,
 * cluster, kernel and spec hash come from the metadata's device_query; T4 records no problem size (0 here). */
static vkocc_status add_t4(adder *a, const char *file, json_t *raw) {
  char meta[1100];
  size_t l = strlen(file);
  if (l > 5 && !strcmp(file + l - 5, ".json")) snprintf(meta, sizeof meta, "%.*s.metadata.json", (int)(l - 5), file);
  else snprintf(meta, sizeof meta, "%s.metadata.json", file);
  json_error_t je;
  json_t *md = json_load_file(meta, JSON_REJECT_DUPLICATES, &je);
  if (!md)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: T4 results need their metadata beside them for the device and cluster, "
                      "and %s: %s", file, meta, je.text);
  json_t *dq = json_object_get(json_object_get(json_object_get(md, "metadata"), "environment"), "device_query");
  tune_doc d;
  memset(&d, 0, sizeof d);
  snprintf(d.file, sizeof d.file, "%s", file);
  vkocc_status s = VKOCC_OK;
  const char *kname = json_string_value(json_object_get(dq, "kernel"));
  const char *spec = json_string_value(json_object_get(dq, "spec_hash"));
  const char *cid = json_string_value(json_object_get(dq, "cluster_id"));
  if (!json_is_object(dq) || !kname || !*kname || !spec || !cid) {
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.metadata.environment.device_query: expected vkocc's device query with kernel, "
                   "spec_hash and cluster_id (T4 results of another tuner name no device vkocc can key)", meta);
    goto out;
  }
  if (kernels_find(kname)) {
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: T4 results of the shipped kernel '%s' record no element type or size: add its "
                   "vkocc results document instead", file, kname);
    goto out;
  }
  if ((s = io_device_identity_from_json(dq, meta, "$.metadata.environment.device_query", false, &d.dev.id))) goto out;
  snprintf(d.dev.cluster_id, sizeof d.dev.cluster_id, "%s", cid);
  snprintf(d.dev.queue_kind, sizeof d.dev.queue_kind, "unknown");
  d.k = tune_user_kernel(kname);
  json_t *res = json_object_get(raw, "results");
  d.r = util_xcalloc(json_array_size(res) + 1, sizeof *d.r);
  json_t *seen = json_object();
  for (size_t i = 0; i < json_array_size(res) && !s; i++) {
    json_t *e = json_array_get(res, i), *cfg = json_object_get(e, "configuration");
    const char *inv = json_string_value(json_object_get(e, "invalidity"));
    if (!json_is_object(cfg) || !inv) {
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu]: expected a configuration object and an invalidity", file, i);
      break;
    }
    tune_result *r = &d.r[d.count];
    char *k = json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS);
    if (strlen(k) >= sizeof r->key)
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu].configuration: longer than 255 characters", file, i);
    else if (json_object_get(seen, k))
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu].configuration: %s appears twice", file, i, k);
    else snprintf(r->key, sizeof r->key, "%s", k), json_object_set_new(seen, k, json_true());
    free(k);
    if (s) break;
    r->valid = !strcmp(inv, "correct");
    r->median_ns = r->spread = r->min_ns = r->max_ns = NAN;
    json_t *m;
    size_t mi;
    json_array_foreach(json_object_get(e, "measurements"), mi, m) {
      const char *n = json_string_value(json_object_get(m, "name"));
      if (n && !strcmp(n, "time") && json_is_number(json_object_get(m, "value")))
        r->median_ns = json_number_value(json_object_get(m, "value")) * 1e9;
    }
    r->runs = (uint32_t)json_array_size(json_object_get(json_object_get(e, "times"), "runtimes"));
    if (!r->valid) snprintf(r->error, sizeof r->error, "%s", inv);
    if (r->valid && !(r->median_ns > 0)) {
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.results[%zu]: a correct configuration needs a positive time measurement", file, i);
      break;
    }
    r->measured = true;
    d.count++;
  }
  json_decref(seen);
  if (!s) s = insert_doc(a, &d, spec, "t4");
out:
  tune_doc_free(&d);
  json_decref(md);
  return s;
}

/* A policy database: checked by the reader select uses, then kept whole: its members in their order (head), each
 * kernel's members, entries, default, clusters and sources, so the store gives it back unchanged. */
static vkocc_status add_policy_db(adder *a, const char *file) {
  json_t *doc;
  vkocc_status s = io_doc_load(file, VKOCC_DOC_POLICY_DB, &doc);
  if (s) return s;
  vkocc_policy_db *check;
  json_incref(doc);
  if ((s = policy_db_from_doc(doc, file, &check))) { json_decref(doc); return s; }
  vkocc_policy_db_free(check);
  char *all = compact(doc);
  uint64_t h = hash_text(all);
  free(all);
  json_t *head = json_copy(doc);
  static const char *const big[] = {"clusters", "kernels", "sources"};
  for (int i = 0; i < 3; i++)
    if (json_object_get(head, big[i])) json_object_set_new(head, big[i], json_null());
  char *ht = compact(head);
  json_decref(head);
  sqlite3_stmt *q = a->q[Q_DOC_INS];
  sqlite3_bind_int64(q, 1, (sqlite3_int64)h), pstore_bind_text(q, 2, file), pstore_bind_text(q, 3, a->host), pstore_bind_text(q, 4, a->now);
  pstore_bind_text(q, 5, vkocc_version()), pstore_bind_text(q, 6, ht);
  free(ht);
  if ((s = run_q(a, Q_DOC_INS, "storing the database"))) goto out;
  if (sqlite3_changes(a->s->db) == 0) { /* the same database again */
    if (a->out) a->out->databases_present++;
    s = addition(a, file, "policy-db (present)", NULL, 0, 0);
    goto out;
  }
  int64_t did = sqlite3_last_insert_rowid(a->s->db);
  if (a->out) a->out->databases_added++;
  const char *key;
  json_t *v;
  json_object_foreach(json_object_get(doc, "clusters"), key, v) {
    char *t = compact(v);
    pstore_bind_text(a->q[Q_CLUSTER_INS], 1, key), pstore_bind_text(a->q[Q_CLUSTER_INS], 2, t);
    free(t);
    if ((s = run_q(a, Q_CLUSTER_INS, "storing a cluster"))) goto out;
  }
  uint32_t nentries = 0;
  json_object_foreach(json_object_get(doc, "kernels"), key, v) {
    json_t *kh = json_copy(v);
    if (json_object_get(kh, "entries")) json_object_set_new(kh, "entries", json_null());
    if (json_object_get(kh, "default")) json_object_set_new(kh, "default", json_null());
    char *t = compact(kh);
    json_decref(kh);
    q = a->q[Q_KHEAD_INS];
    sqlite3_bind_int64(q, 1, did), pstore_bind_text(q, 2, key), pstore_bind_text(q, 3, t);
    free(t);
    if ((s = run_q(a, Q_KHEAD_INS, "storing a kernel"))) goto out;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(v, "entries"), i, e) {
      char *et = compact(e);
      q = a->q[Q_ENTRY_INS];
      sqlite3_bind_int64(q, 1, did), pstore_bind_text(q, 2, key), pstore_bind_text(q, 3, json_string_value(json_object_get(e, "device")));
      pstore_bind_text(q, 4, json_string_value(json_object_get(e, "cluster"))), pstore_bind_text(q, 5, et);
      sqlite3_bind_int64(q, 6, (sqlite3_int64)hash_text(et));
      free(et);
      if ((s = run_q(a, Q_ENTRY_INS, "storing an entry"))) goto out;
      nentries++;
    }
    json_t *def = json_object_get(v, "default");
    if (def) {
      char *dt = compact(def);
      q = a->q[Q_DEFAULT_INS];
      sqlite3_bind_int64(q, 1, did), pstore_bind_text(q, 2, key), pstore_bind_text(q, 3, dt);
      free(dt);
      if ((s = run_q(a, Q_DEFAULT_INS, "storing a default"))) goto out;
    }
  }
  size_t i;
  json_array_foreach(json_object_get(doc, "sources"), i, v) {
    char *t = compact(v);
    sqlite3_bind_int64(a->q[Q_SOURCE_INS], 1, did), pstore_bind_text(a->q[Q_SOURCE_INS], 2, t);
    free(t);
    if ((s = run_q(a, Q_SOURCE_INS, "storing a source"))) goto out;
  }
  if (a->out) a->out->entries_added += nentries;
  s = addition(a, file, "policy-db", NULL, 0, 0);
out:
  json_decref(doc);
  return s;
}

static vkocc_status add_file(adder *a, const char *file) {
  struct stat st;
  if (stat(file, &st)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: cannot read: %s", file, strerror(errno));
  if (!S_ISREG(st.st_mode)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: not a regular file", file);
  json_error_t je;
  json_t *raw = json_load_file(file, JSON_REJECT_DUPLICATES, &je);
  if (!raw) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: line %d: %s", file, je.line, je.text);
  const char *schema = json_string_value(json_object_get(raw, "schema"));
  vkocc_status s;
  if (schema && !strncmp(schema, "vkocc.policy-db/", 16)) s = add_policy_db(a, file);
  else if (schema && !strncmp(schema, "vkocc.tune-results/", 19)) s = add_results(a, file, raw);
  else if (!schema && json_is_object(raw) && json_object_get(raw, "schema_version") && json_is_array(json_object_get(raw, "results")))
    s = add_t4(a, file, raw);
  else
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.schema: %s%s%s: neither tuning results (vkocc.tune-results), T4 results nor "
                   "a policy database (vkocc.policy-db)", file, schema ? "'" : "", schema ? schema : "absent", schema ? "'" : "");
  json_decref(raw);
  if (!s && a->out) a->out->files++;
  return s;
}

/* ------------------------------------------------------------------ the results as documents again */

vkocc_status pstore_docs(pstore *s, const char *kernel, tune_doc **docs, uint32_t *n) {
  *docs = NULL, *n = 0;
  sqlite3_stmt *q, *r;
  int rc = sqlite3_prepare_v2(s->db,
                              "SELECT r.id, r.kernel, r.element_type, r.problem_size, d.identity, r.cluster_id,"
                              " r.queue_kind, r.shared_per_sm, c.surface, r.file FROM runs r JOIN devices d ON d.id = r.device"
                              " LEFT JOIN clusters c ON c.id = r.fingerprint WHERE ?1 IS NULL OR r.kernel = ?1 ORDER BY r.id",
                              -1, &q, NULL);
  if (rc) return pstore_fail(s, rc, "reading the runs");
  rc = sqlite3_prepare_v2(s->db,
                          "SELECT c.key, x.valid, x.median_ns, x.spread, x.min_ns, x.max_ns, x.normalized_ns, x.runs, x.error"
                          " FROM results x JOIN configs c ON c.id = x.config WHERE x.run = ?1 ORDER BY x.seq",
                          -1, &r, NULL);
  if (rc) { sqlite3_finalize(q); return pstore_fail(s, rc, "reading the results"); }
  pstore_bind_text(q, 1, kernel);
  uint32_t cap = 0;
  vkocc_status st = VKOCC_OK;
  tune_doc *out = NULL;
  while (!st && (rc = sqlite3_step(q)) == SQLITE_ROW) {
    if (*n == cap) cap = cap ? 2 * cap : 16, out = util_xrealloc(out, cap * sizeof *out);
    tune_doc *d = &out[*n];
    memset(d, 0, sizeof *d);
    int64_t run = sqlite3_column_int64(q, 0);
    const char *kname = (const char *)sqlite3_column_text(q, 1), *etype = (const char *)sqlite3_column_text(q, 2);
    snprintf(d->file, sizeof d->file, "%s", (const char *)sqlite3_column_text(q, 9));
    d->k = etype[0] ? kernels_find(kname) : tune_user_kernel(kname);
    if (!d->k) { st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: kernel '%s' is unknown to this vkocc", s->path, kname); break; }
    d->f32 = !strcmp(etype, "f32");
    d->n = (uint64_t)sqlite3_column_int64(q, 3);
    json_error_t je;
    json_t *idj = json_loads((const char *)sqlite3_column_text(q, 4), 0, &je);
    char where[1200];
    snprintf(where, sizeof where, "%s (run %lld)", s->path, (long long)run);
    if (!idj || (st = io_device_identity_from_json(idj, where, "devices.identity", true, &d->dev.id))) {
      if (!st) st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: devices.identity: %s", where, je.text);
      json_decref(idj);
      break;
    }
    json_decref(idj);
    snprintf(d->dev.cluster_id, sizeof d->dev.cluster_id, "%s", (const char *)sqlite3_column_text(q, 5));
    snprintf(d->dev.queue_kind, sizeof d->dev.queue_kind, "%s", (const char *)sqlite3_column_text(q, 6));
    d->dev.shared_per_sm = (uint32_t)sqlite3_column_int64(q, 7);
    if (sqlite3_column_type(q, 8) != SQLITE_NULL) {
      json_t *c = json_loads((const char *)sqlite3_column_text(q, 8), 0, &je);
      if (!c) { st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: clusters.surface: %s", where, je.text); break; }
      json_object_del(c, "name");
      st = io_fingerprint_from_json(c, where, d->dev.cluster_id, &d->dev.fp);
      json_decref(c);
      if (st) break;
      d->dev.has_fp = true;
    }
    (*n)++;
    uint32_t rcap = 0;
    sqlite3_bind_int64(r, 1, run);
    while ((rc = sqlite3_step(r)) == SQLITE_ROW) {
      if (d->count == rcap) rcap = rcap ? 2 * rcap : 64, d->r = util_xrealloc(d->r, rcap * sizeof *d->r);
      tune_result *x = &d->r[d->count++];
      read_row(r, 1, x);
      snprintf(x->key, sizeof x->key, "%s", (const char *)sqlite3_column_text(r, 0));
    }
    sqlite3_reset(r);
    if (rc != SQLITE_DONE) st = pstore_fail(s, rc, "reading the results");
  }
  if (!st && rc != SQLITE_DONE) st = pstore_fail(s, rc, "reading the runs");
  sqlite3_finalize(q);
  sqlite3_finalize(r);
  if (st) {
    for (uint32_t i = 0; i < *n; i++) tune_doc_free(&out[i]);
    free(out);
    *n = 0;
    return st;
  }
  *docs = out;
  return VKOCC_OK;
}

void pstore_docs_free(tune_doc *docs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) tune_doc_free(&docs[i]);
  free(docs);
}

/* The built policy of one kernel again from every result of it in the store: entries without a document. */
static vkocc_status rebuild(adder *a, const char *kernel) {
  tune_doc *docs;
  uint32_t n;
  vkocc_status s = pstore_docs(a->s, kernel, &docs, &n);
  if (s) return s;
  for (uint32_t i = 0; i < n; i++) tdb_statistic(&docs[i], false);
  json_t *db = NULL;
  s = tdb_build(docs, n, &db);
  pstore_docs_free(docs, n);
  if (s) return s;
  sqlite3_stmt *del;
  int rc = sqlite3_prepare_v2(a->s->db, "DELETE FROM entries WHERE document IS NULL AND kernel = ?1;", -1, &del, NULL);
  if (!rc) { pstore_bind_text(del, 1, kernel); rc = step(del, NULL); sqlite3_finalize(del); }
  if (!rc) rc = sqlite3_prepare_v2(a->s->db, "DELETE FROM defaults WHERE document IS NULL AND kernel = ?1;", -1, &del, NULL);
  if (!rc) { pstore_bind_text(del, 1, kernel); rc = step(del, NULL); sqlite3_finalize(del); }
  if (rc) { json_decref(db); return pstore_fail(a->s, rc, "replacing the built entries"); }
  json_t *k = json_object_get(json_object_get(db, "kernels"), kernel), *e;
  size_t i;
  json_array_foreach(json_object_get(k, "entries"), i, e) {
    char *et = compact(e);
    sqlite3_stmt *q = a->q[Q_ENTRY_INS];
    sqlite3_bind_null(q, 1), pstore_bind_text(q, 2, kernel), pstore_bind_text(q, 3, json_string_value(json_object_get(e, "device")));
    pstore_bind_text(q, 4, json_string_value(json_object_get(e, "cluster"))), pstore_bind_text(q, 5, et);
    sqlite3_bind_int64(q, 6, (sqlite3_int64)hash_text(et));
    free(et);
    if ((s = run_q(a, Q_ENTRY_INS, "storing a built entry"))) break;
  }
  json_t *def = json_object_get(k, "default");
  if (!s && def) {
    char *dt = compact(def);
    sqlite3_stmt *q = a->q[Q_DEFAULT_INS];
    sqlite3_bind_null(q, 1), pstore_bind_text(q, 2, kernel), pstore_bind_text(q, 3, dt);
    free(dt);
    s = run_q(a, Q_DEFAULT_INS, "storing the built default");
  }
  json_decref(db);
  if (!s && a->out) a->out->kernels_rebuilt++;
  return s;
}

vkocc_status vkocc_policy_store_add(const char *path, const char *const *files, uint32_t n,
                                    const vkocc_policy_store_options *opt, vkocc_policy_store_added *out) {
  vkocc_clear_error();
  vkocc_policy_store_added local;
  if (!out) out = &local;
  memset(out, 0, sizeof *out);
  if (!n) return vkocc_fail(VKOCC_ERROR_USAGE, "nothing to add: give results, T4 results or policy databases");
  pstore s;
  vkocc_status st = pstore_open(path, true, opt, &s);
  if (st) return st;
  adder a = {.s = &s, .config_ids = json_object(), .touched = json_object(), .out = out};
  if (gethostname(a.host, sizeof a.host)) snprintf(a.host, sizeof a.host, "unknown");
  a.host[sizeof a.host - 1] = 0;
  util_utc_now(a.now, sizeof a.now);
  if (!(st = prepare(&a)) && !(st = pstore_begin(&s))) {
    for (uint32_t i = 0; i < n && !st; i++) st = add_file(&a, files[i]);
    const char *k;
    json_t *v;
    json_object_foreach(a.touched, k, v) {
      if (st) break;
      st = rebuild(&a, k);
    }
    if (!st) st = pstore_commit(&s);
    if (st) pstore_rollback(&s);
  }
  for (int i = 0; i < Q_COUNT; i++) sqlite3_finalize(a.q[i]);
  json_decref(a.config_ids), json_decref(a.touched);
  pstore_close(&s);
  if (st) {
    /* nothing of this addition is in the store: say so beside the reason */
    char why[1200];
    snprintf(why, sizeof why, "%s", vkocc_last_error());
    vkocc_fail(st, "%s (nothing was added to %s)", why, path);
  }
  return st;
}
