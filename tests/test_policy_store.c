/* The policy store (docs/policy-store.md), without a device: round trips JSON -> store -> JSON byte for byte, results
 * -> store -> the database `policy build` makes from the files, a result added twice stored once, a contradicting
 * result refused with nothing written, selection from the store as from JSON, a user store over a system store, and
 * the bad stores (symbolic link, FIFO, damaged file, newer schema, truncated WAL, a lock held past the bound, a
 * network file system by its f_type). With the CLI's path: 8 concurrent `vkocc policy add` writers, one killed
 * with SIGKILL, counted after. */
#include "check.h"
#include "synth.h"
#include "../policy/store.h"
#include "jsonio.h"
#include "older_results.h"
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/vkocc-policy-store-XXXXXX";
static char path_buf[8][700];

static const char *tmp(int slot, const char *name) {
  snprintf(path_buf[slot], sizeof path_buf[slot], "%s/%s", dir, name);
  return path_buf[slot];
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  size_t got = fread(b, 1, (size_t)n, f);
  fclose(f);
  b[got] = 0;
  if (len) *len = got;
  return b;
}

static bool same_file(const char *a, const char *b) {
  size_t la, lb;
  char *x = slurp(a, &la), *y = slurp(b, &lb);
  bool same = x && y && la == lb && !memcmp(x, y, la);
  free(x), free(y);
  return same;
}

/* A histogram results file (older document of a shipped kernel) of device `dev` with `count` configurations whose
 * times follow seed; fp: the device's fingerprint (NULL none). */
static void write_results(const char *path, int dev, uint64_t size, uint32_t count, uint32_t seed, const vkocc_fingerprint *fp,
                          const char *cluster) {
  tune_doc d;
  memset(&d, 0, sizeof d);
  d.k = &kernels_histogram, d.n = size;
  snprintf(d.dev.id.name, sizeof d.dev.id.name, "GPU %d", dev);
  snprintf(d.dev.id.driver_name, sizeof d.dev.id.driver_name, "drv");
  snprintf(d.dev.id.driver_info, sizeof d.dev.id.driver_info, "1.0");
  d.dev.id.vendor_id = 0x10de, d.dev.id.device_id = (uint32_t)dev, d.dev.id.sm_count = 132;
  d.dev.id.uuid[0] = (uint8_t)dev, d.dev.id.uuid[15] = 0x5a;
  snprintf(d.dev.id.key, sizeof d.dev.id.key, "10de:%04x GPU %d | drv 1.0 | sm 132", dev, dev);
  snprintf(d.dev.cluster_id, sizeof d.dev.cluster_id, "%s", fp ? fp->cluster_id : cluster);
  snprintf(d.dev.queue_kind, sizeof d.dev.queue_kind, "compute-only");
  d.dev.shared_per_sm = 102400;
  if (fp) d.dev.has_fp = true, d.dev.fp = *fp;
  d.r = calloc(count, sizeof *d.r);
  uint32_t state = seed * 2654435761u + 1;
  for (uint32_t w = 1, made = 0; made < count; w++)
    for (uint32_t g = 1; g < 200 && made < count; g++) {
      tune_result *r = &d.r[made++];
      r->cfg = (tune_config){{1, w, g, 1}, 0xf}; /* shared_bins: variant, wg_size, grain, copies */
      tune_config_key(d.k, &r->cfg, r->key, sizeof r->key);
      state = state * 1664525u + 1013904223u;
      r->measured = r->valid = true, r->runs = 3, r->median_ns = 1e5 + (state >> 8) % 1000000;
      r->min_ns = r->median_ns * 0.99, r->max_ns = r->median_ns * 1.02, r->spread = 0.01;
    }
  d.count = count;
  json_t *j = older_results_json(&d, count, 0);
  if (util_json_write(j, path)) fprintf(stderr, "write %s: %s\n", path, vkocc_last_error());
  json_decref(j);
  free(d.r);
}

static int64_t count_results(const char *store) {
  char *rep = NULL;
  if (vkocc_policy_store_check(store, &rep)) return -1;
  const char *p = strstr(rep, "\nresults: ");
  int64_t n = p ? strtoll(p + 10, NULL, 10) : -1;
  free(rep);
  return n;
}

static void test_roundtrip(const char *data) {
  char fixture[600];
  snprintf(fixture, sizeof fixture, "%s/policy-db.json", data);
  const char *store = tmp(0, "rt.sqlite"), *out = tmp(1, "rt.json");
  vkocc_policy_store_added a;
  CHECK(vkocc_policy_store_add(store, (const char *[]){fixture}, 1, NULL, &a) == VKOCC_OK, "add fixture: %s", vkocc_last_error());
  CHECK_EQ_U(a.databases_added, 1);
  CHECK_EQ_U(a.entries_added, 3);
  CHECK(vkocc_policy_store_export(store, false, out, NULL) == VKOCC_OK, "export: %s", vkocc_last_error());
  CHECK(same_file(fixture, out), "JSON -> store -> JSON is byte-identical for %s", fixture);
  /* the same database again: stored once */
  CHECK(vkocc_policy_store_add(store, (const char *[]){fixture}, 1, NULL, &a) == VKOCC_OK, "again: %s", vkocc_last_error());
  CHECK_EQ_U(a.databases_added, 0);
  CHECK_EQ_U(a.databases_present, 1);
  CHECK(vkocc_policy_store_export(store, false, out, NULL) == VKOCC_OK && same_file(fixture, out), "still identical");
  /* the header of the store equals the header of the file */
  char *h1 = NULL, *h2 = NULL;
  CHECK(vkocc_policy_store_header(store, &h1) == VKOCC_OK && vkocc_policy_header(fixture, &h2) == VKOCC_OK, "headers");
  CHECK(h1 && h2 && !strcmp(h1, h2), "policy header --db equals policy header of the JSON");
  free(h1), free(h2);
}

static void test_results(void) {
  vkocc_fingerprint hop, amp;
  synth_fingerprint(&SYNTH_HOPPER, 132, 0, &hop);
  synth_fingerprint(&SYNTH_AMPERE, 108, 0, &amp);
  const char *r1 = tmp(0, "r1.json"), *r2 = tmp(1, "r2.json"), *r3 = tmp(2, "r3.json");
  write_results(r1, 1, 1u << 20, 300, 1, &hop, NULL);
  write_results(r2, 2, 1u << 20, 300, 2, &hop, NULL);
  write_results(r3, 3, 1u << 24, 250, 3, &amp, NULL);
  const char *files[] = {r1, r2, r3};
  const char *built = tmp(3, "built.json"), *store = tmp(4, "res.sqlite"), *out = tmp(5, "res.json");
  CHECK(vkocc_policy_build(files, 3, false, built, NULL) == VKOCC_OK, "build: %s", vkocc_last_error());
  vkocc_policy_store_added a;
  CHECK(vkocc_policy_store_add(store, files, 3, NULL, &a) == VKOCC_OK, "add: %s", vkocc_last_error());
  CHECK_EQ_U(a.results_added, 850);
  CHECK_EQ_U(a.kernels_rebuilt, 1);
  CHECK(vkocc_policy_store_export(store, false, out, NULL) == VKOCC_OK, "export: %s", vkocc_last_error());
  CHECK(same_file(built, out), "results -> store -> JSON equals policy build of the files");
  /* the exported database round-trips as well (version 2, device entries, sources) */
  const char *store2 = tmp(6, "rt2.sqlite"), *out2 = tmp(7, "rt2.json");
  CHECK(vkocc_policy_store_add(store2, &built, 1, NULL, NULL) == VKOCC_OK, "add built: %s", vkocc_last_error());
  CHECK(vkocc_policy_store_export(store2, false, out2, NULL) == VKOCC_OK && same_file(built, out2),
        "a vkocc.policy-db/2 database round-trips byte for byte");
  /* the same results again: stored once */
  CHECK(vkocc_policy_store_add(store, files, 3, NULL, &a) == VKOCC_OK, "again: %s", vkocc_last_error());
  CHECK_EQ_U(a.results_added, 0);
  CHECK_EQ_U(a.results_present, 850);
  CHECK(count_results(store) == 850, "850 results stored once, %lld", (long long)count_results(store));
  /* selection from the store as from the JSON database, for the exact device, the cluster, a stranger */
  vkocc_policy_db *js, *st;
  CHECK(vkocc_policy_db_load(built, &js) == VKOCC_OK, "load json");
  CHECK(vkocc_policy_store_load(store, NULL, "histogram", NULL, &st) == VKOCC_OK, "load store: %s", vkocc_last_error());
  vkocc_fingerprint rdna;
  synth_fingerprint(&SYNTH_RDNA, 40, 0, &rdna);
  const char *keys[] = {"10de:0001 GPU 1 | drv 1.0 | sm 132", "", ""};
  const vkocc_fingerprint *fps[] = {&hop, &amp, &rdna};
  vkocc_policy_var v = {"problem_size", "1000000"};
  for (int i = 0; i < 3; i++) {
    vkocc_policy_choice c1, c2;
    CHECK(vkocc_policy_select_queue(js, "histogram", fps[i], keys[i], "compute-only", &v, 1, 0, &c1) == VKOCC_OK, "select json");
    CHECK(vkocc_policy_select_queue(st, "histogram", fps[i], keys[i], "compute-only", &v, 1, 0, &c2) == VKOCC_OK, "select store");
    CHECK(c1.rule == c2.rule && c1.entry == c2.entry && !strcmp(c1.params_json, c2.params_json) && !strcmp(c1.note, c2.note),
          "case %d: store %s %s (%s), JSON %s %s (%s)", i, vkocc_policy_rule_name(c2.rule), c2.params_json, c2.note,
          vkocc_policy_rule_name(c1.rule), c1.params_json, c1.note);
    CHECK(c2.rule == (i == 0 ? VKOCC_POLICY_DEVICE : i == 1 ? VKOCC_POLICY_CLUSTER : VKOCC_POLICY_DEFAULT), "case %d rule %s", i,
          vkocc_policy_rule_name(c2.rule));
    vkocc_policy_choice_free(&c1), vkocc_policy_choice_free(&c2);
  }
  vkocc_policy_db_free(js), vkocc_policy_db_free(st);

  /* transfer over the store equals transfer over the files */
  char *t1 = NULL, *t2 = NULL;
  CHECK(vkocc_policy_transfer(files, 3, false, 0, NULL, &t1) == VKOCC_OK &&
        vkocc_policy_store_transfer(store, false, 0, NULL, &t2) == VKOCC_OK, "transfer: %s", vkocc_last_error());
  CHECK(t1 && t2 && !strcmp(t1, t2), "transfer --db equals transfer of the files");
  free(t1), free(t2);
  /* another measurement of a stored configuration: refused, with the reason, and nothing of the file is added */
  const char *r4 = tmp(0, "r4.json"), *r5 = tmp(1, "r5.json");
  write_results(r4, 4, 1u << 20, 100, 4, &hop, NULL);
  write_results(r5, 1, 1u << 20, 300, 99, &hop, NULL); /* device 1 again, other times */
  CHECK(vkocc_policy_store_add(store, (const char *[]){r4, r5}, 2, NULL, &a) == VKOCC_ERROR_USAGE, "a contradiction is refused");
  CHECK_CONTAINS(vkocc_last_error(), "another measurement");
  CHECK_CONTAINS(vkocc_last_error(), "r5.json");
  CHECK_CONTAINS(vkocc_last_error(), "nothing was added");
  CHECK(count_results(store) == 850, "nothing of r4 was added either: %lld", (long long)count_results(store));
  /* another cluster for a stored device's run */
  const char *r6 = tmp(2, "r6.json");
  write_results(r6, 2, 1u << 20, 300, 2, &amp, NULL);
  CHECK(vkocc_policy_store_add(store, &r6, 1, NULL, NULL) == VKOCC_ERROR_USAGE, "one device, two clusters refused");
  CHECK_CONTAINS(vkocc_last_error(), "two clusters");
}

/* T4 results with vkocc's metadata beside them, a user kernel's; the same kernel name from another spec is refused. */
static void test_t4(void) {
  static const char *t4 =
      "{\"schema_version\": \"1.0.0\", \"results\": ["
      "{\"configuration\": {\"BLOCK\": 64}, \"invalidity\": \"correct\", \"times\": {\"runtimes\": [0.001, 0.002]},"
      " \"measurements\": [{\"name\": \"time\", \"value\": 0.0015, \"unit\": \"s\"}]},"
      "{\"configuration\": {\"BLOCK\": 128}, \"invalidity\": \"correct\", \"times\": {\"runtimes\": [0.001]},"
      " \"measurements\": [{\"name\": \"time\", \"value\": 0.001, \"unit\": \"s\"}]},"
      "{\"configuration\": {\"BLOCK\": 4096}, \"invalidity\": \"compile\", \"times\": {\"runtimes\": []}, \"measurements\": []}]}";
  static const char *meta =
      "{\"schema_version\": \"1.0.0\", \"metadata\": {\"environment\": {\"device_query\": {\"name\": \"GPU 20\","
      " \"vendor_id\": 4318, \"device_id\": 20, \"driver_name\": \"drv\", \"driver_info\": \"1.0\", \"driver_version\": 1,"
      " \"sm_count\": 132, \"key\": \"10de:0014 GPU 20 | drv 1.0 | sm 132\", \"cluster_id\": \"c3-0123456789ab\","
      " \"tool\": \"vkocc\", \"kernel\": \"saxpy\", \"spec_hash\": \"%s\"}}}}";
  char m[1200];
  check_write_tmp(dir, "t4.json", t4);
  snprintf(m, sizeof m, meta, "aaaa");
  check_write_tmp(dir, "t4.metadata.json", m);
  const char *store = tmp(0, "t4.sqlite"), *f = tmp(1, "t4.json");
  vkocc_policy_store_added a;
  CHECK(vkocc_policy_store_add(store, &f, 1, NULL, &a) == VKOCC_OK, "T4: %s", vkocc_last_error());
  CHECK_EQ_U(a.results_added, 3);
  vkocc_policy_db *db;
  vkocc_policy_choice c;
  CHECK(vkocc_policy_store_load(store, NULL, "saxpy", NULL, &db) == VKOCC_OK, "load: %s", vkocc_last_error());
  CHECK(vkocc_policy_select_device(db, "saxpy", NULL, "10de:0014 GPU 20 | drv 1.0 | sm 132", NULL, 0, 0, &c) == VKOCC_OK,
        "select: %s", vkocc_last_error());
  CHECK(c.rule == VKOCC_POLICY_DEVICE && !strcmp(c.params_json, "{\"BLOCK\":128}"), "the fastest valid one: %s %s",
        vkocc_policy_rule_name(c.rule), c.params_json);
  vkocc_policy_choice_free(&c);
  vkocc_policy_db_free(db);
  /* the same name from another spec */
  snprintf(m, sizeof m, meta, "bbbb");
  check_write_tmp(dir, "t4.metadata.json", m);
  CHECK(vkocc_policy_store_add(store, &f, 1, NULL, &a) == VKOCC_ERROR_USAGE, "another spec under one name is refused");
  CHECK_CONTAINS(vkocc_last_error(), "tuned from spec aaaa, this file from spec bbbb");
  /* without its metadata */
  f = check_write_tmp(dir, "lone.json", t4);
  CHECK(vkocc_policy_store_add(store, &f, 1, NULL, &a) == VKOCC_ERROR_USAGE, "T4 without metadata is refused");
  CHECK_CONTAINS(vkocc_last_error(), "lone.metadata.json");
}

/* A user store over a system store: the user's entry for a device replaces the system's; what the user store
 * lacks comes from the system store, and the note says which store answered. */
static void test_layers(void) {
  vkocc_fingerprint hop;
  synth_fingerprint(&SYNTH_HOPPER, 132, 0, &hop);
  const char *sys = tmp(0, "system.sqlite"), *user = tmp(1, "user.sqlite"), *a = tmp(2, "la.json"), *b = tmp(3, "lb.json");
  write_results(a, 7, 1u << 20, 200, 11, &hop, NULL);
  write_results(b, 7, 1u << 20, 200, 12, &hop, NULL); /* the same device tuned again: other times, another best */
  CHECK(vkocc_policy_store_add(sys, &a, 1, NULL, NULL) == VKOCC_OK, "system: %s", vkocc_last_error());
  CHECK(vkocc_policy_store_add(user, &b, 1, NULL, NULL) == VKOCC_OK, "user: %s", vkocc_last_error());
  chmod(sys, 0444);
  vkocc_policy_db *db, *only_sys, *only_user;
  const char *key = "10de:0007 GPU 7 | drv 1.0 | sm 132";
  CHECK(vkocc_policy_store_load(user, sys, "histogram", key, &db) == VKOCC_OK, "layered: %s", vkocc_last_error());
  CHECK(vkocc_policy_store_load(NULL, sys, "histogram", NULL, &only_sys) == VKOCC_OK, "system alone: %s", vkocc_last_error());
  CHECK(vkocc_policy_store_load(user, NULL, "histogram", NULL, &only_user) == VKOCC_OK, "user alone: %s", vkocc_last_error());
  vkocc_policy_choice c, cs, cu;
  CHECK(vkocc_policy_select_device(db, "histogram", &hop, key, NULL, 0, 0, &c) == VKOCC_OK, "select layered");
  CHECK(vkocc_policy_select_device(only_sys, "histogram", &hop, key, NULL, 0, 0, &cs) == VKOCC_OK, "select system");
  CHECK(vkocc_policy_select_device(only_user, "histogram", &hop, key, NULL, 0, 0, &cu) == VKOCC_OK, "select user");
  CHECK(c.rule == VKOCC_POLICY_DEVICE && !strcmp(c.params_json, cu.params_json), "the user's entry: %s (user %s)", c.params_json,
        cu.params_json);
  CHECK(strcmp(cs.params_json, cu.params_json), "the two stores disagree (%s vs %s), so the test tells them apart", cs.params_json,
        cu.params_json);
  CHECK_CONTAINS(c.note, "from the user store");
  vkocc_policy_choice_free(&c), vkocc_policy_choice_free(&cs), vkocc_policy_choice_free(&cu);
  vkocc_policy_db_free(db), vkocc_policy_db_free(only_sys), vkocc_policy_db_free(only_user);
  chmod(sys, 0644);
}

static void expect_refused(const char *store, const char *needle, const char *what) {
  struct stat before, after;
  bool had = !lstat(store, &before);
  vkocc_policy_store_added a;
  const char *f = tmp(7, "one.json");
  CHECK(vkocc_policy_store_add(store, &f, 1, NULL, &a) == VKOCC_ERROR_USAGE, "%s: add refused", what);
  CHECK_CONTAINS(vkocc_last_error(), needle);
  vkocc_policy_db *db;
  CHECK(vkocc_policy_store_load(store, NULL, NULL, NULL, &db) == VKOCC_ERROR_USAGE, "%s: load refused", what);
  CHECK_CONTAINS(vkocc_last_error(), needle);
  char *rep = NULL;
  CHECK(vkocc_policy_store_check(store, &rep) == VKOCC_ERROR_USAGE, "%s: check refused", what);
  free(rep);
  if (had) {
    CHECK(!lstat(store, &after) && after.st_size == before.st_size && after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
              after.st_mtim.tv_nsec == before.st_mtim.tv_nsec, "%s: nothing written", what);
  }
}

static void test_bad_stores(void) {
  vkocc_fingerprint hop;
  synth_fingerprint(&SYNTH_HOPPER, 132, 0, &hop);
  write_results(tmp(7, "one.json"), 9, 1u << 20, 50, 9, &hop, NULL);
  /* a symbolic link to a store elsewhere */
  const char *good = tmp(0, "good.sqlite");
  const char *f = tmp(7, "one.json");
  CHECK(vkocc_policy_store_add(good, &f, 1, NULL, NULL) == VKOCC_OK, "a good store: %s", vkocc_last_error());
  CHECK(symlink(good, tmp(1, "link.sqlite")) == 0, "symlink");
  expect_refused(tmp(1, "link.sqlite"), "symbolic link", "symlink");
  /* a FIFO */
  CHECK(mkfifo(tmp(2, "fifo.sqlite"), 0600) == 0, "mkfifo");
  expect_refused(tmp(2, "fifo.sqlite"), "a FIFO", "FIFO");
  /* a text file, and a SQLite header over garbage */
  check_write_tmp(dir, "text.sqlite", "{\"schema\": \"vkocc.policy-db/2\"}");
  expect_refused(tmp(3, "text.sqlite"), "does not begin with SQLite's header", "text");
  char junk[8192];
  memset(junk, 0xa5, sizeof junk);
  memcpy(junk, "SQLite format 3", 16);
  junk[16] = 0x10, junk[17] = 0x00; /* page size 4096 */
  FILE *o = fopen(tmp(3, "junk.sqlite"), "wb");
  fwrite(junk, 1, sizeof junk, o);
  fclose(o);
  expect_refused(tmp(3, "junk.sqlite"), "damaged or no SQLite database", "damaged");
  /* a store of a newer schema */
  const char *newer = tmp(4, "newer.sqlite");
  CHECK(vkocc_policy_store_add(newer, &f, 1, NULL, NULL) == VKOCC_OK, "store");
  sqlite3 *db;
  sqlite3_open(newer, &db);
  sqlite3_exec(db, "PRAGMA user_version = 2", NULL, NULL, NULL);
  sqlite3_close(db);
  expect_refused(newer, "schema version 2", "newer");
  /* a truncated WAL: a WAL left behind (no checkpoint at close), then cut in a frame */
  const char *walled = tmp(5, "wal.sqlite");
  CHECK(vkocc_policy_store_add(walled, &f, 1, NULL, NULL) == VKOCC_OK, "store");
  sqlite3_open(walled, &db);
  sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; INSERT INTO meta VALUES('note', 'x');", NULL, NULL, NULL);
  sqlite3_close(db);
  char wal[800];
  snprintf(wal, sizeof wal, "%s-wal", walled);
  struct stat ws;
  CHECK(!stat(wal, &ws) && ws.st_size > 100, "a WAL was left (%lld bytes)", (long long)ws.st_size);
  CHECK(truncate(wal, ws.st_size - 100) == 0, "truncate");
  expect_refused(walled, "WAL journal is truncated", "truncated WAL");
  CHECK(!stat(wal, &ws), "the WAL is left as it was");
  /* network file systems by f_type */
  const char *name = NULL;
  CHECK(pstore_network_fs(0x6969, &name) && !strcmp(name, "NFS"), "NFS");
  CHECK(pstore_network_fs((long)0xFF534D42u, &name) && !strcmp(name, "CIFS"), "CIFS");
  CHECK(pstore_network_fs(0xFE534D42u, &name) && !strcmp(name, "SMB2"), "SMB2");
  CHECK(!pstore_network_fs(0xEF53, &name), "ext4 is local");
  CHECK(!pstore_network_fs(0x01021994, &name), "tmpfs is local");
}

/* A lock held past the bound: said, with the store, the wait and the holder's pid. */
static void test_lock(void) {
  const char *store = tmp(0, "good.sqlite");
  int p[2];
  CHECK(pipe(p) == 0, "pipe");
  pid_t child = fork();
  if (child == 0) {
    sqlite3 *db;
    sqlite3_open(store, &db);
    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    char c = 'x';
    if (write(p[1], &c, 1) != 1) _exit(1);
    sleep(30);
    _exit(0);
  }
  char c;
  CHECK(read(p[0], &c, 1) == 1, "the holder has the lock");
  vkocc_policy_store_options o = {.wait_ms = 300};
  const char *f = tmp(7, "one.json");
  double t0 = vkocc_now_ms() / 1e3;
  vkocc_status s = vkocc_policy_store_add(store, &f, 1, &o, NULL);
  double took = vkocc_now_ms() / 1e3 - t0;
  CHECK(s == VKOCC_ERROR_RUNTIME, "a lock held past the bound fails (%d)", s);
  CHECK_CONTAINS(vkocc_last_error(), "locked by another writer for more than 0.3 s");
  char pid[32];
  snprintf(pid, sizeof pid, "%d", (int)child);
  CHECK_CONTAINS(vkocc_last_error(), pid);
  CHECK(took >= 0.25 && took < 10, "waited the bound: %.2f s", took);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  close(p[0]), close(p[1]);
  /* the holder's death released the lock: the store is whole */
  char *rep = NULL;
  CHECK(vkocc_policy_store_check(store, &rep) == VKOCC_OK, "intact after the holder's kill: %s", vkocc_last_error());
  free(rep);
}

/* 8 concurrent `vkocc policy add` writers of n results each, one killed with SIGKILL while it writes. */
static void test_writers(const char *cli, uint32_t n) {
  const char *store = tmp(0, "fleet.sqlite");
  vkocc_fingerprint hop;
  synth_fingerprint(&SYNTH_HOPPER, 132, 0, &hop);
  char files[8][700];
  for (int w = 0; w < 8; w++) {
    snprintf(files[w], sizeof files[w], "%s/w%d.json", dir, w);
    write_results(files[w], 100 + w, 1u << 20, n, 100u + (uint32_t)w, &hop, NULL);
  }
  pid_t pids[8];
  for (int w = 0; w < 8; w++) {
    pids[w] = fork();
    if (pids[w] == 0) {
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      execl(cli, cli, "policy", "add", "--db", store, "--wait", "120", files[w], (char *)NULL);
      _exit(127);
    }
  }
  /* kill the last writer once the first transaction is in (the others are then writing or waiting) */
  int victim = 7, status, exited = 0, ok = 0;
  for (int i = 0; i < 2000 && count_results(store) <= 0; i++) usleep(5000);
  kill(pids[victim], SIGKILL);
  for (int w = 0; w < 8; w++) {
    waitpid(pids[w], &status, 0);
    if (w == victim) { exited = WIFSIGNALED(status) ? WTERMSIG(status) : -WEXITSTATUS(status); continue; }
    ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  int64_t got = count_results(store);
  CHECK(ok == 7, "7 writers finished: %d", ok);
  CHECK(got == 7 * (int64_t)n || got == 8 * (int64_t)n, "%lld results after 8 writers of %u, one killed (signal %d): all or nothing "
        "of each", (long long)got, n, exited);
  fprintf(stderr, "8 writers x %u results, writer 8 killed by signal %d: %lld results stored (%s)\n", n, exited, (long long)got,
          got == 8 * (int64_t)n ? "its transaction had committed" : "its transaction was lost whole");
  char *rep = NULL;
  CHECK(vkocc_policy_store_check(store, &rep) == VKOCC_OK, "integrity after the kill: %s", vkocc_last_error());
  CHECK_CONTAINS(rep, "integrity: ok");
  free(rep);
  /* the killed writer's file added now: everything is there */
  vkocc_policy_store_added a;
  const char *f = files[victim];
  CHECK(vkocc_policy_store_add(store, &f, 1, NULL, &a) == VKOCC_OK, "re-add: %s", vkocc_last_error());
  CHECK(count_results(store) == 8 * (int64_t)n, "8 x %u after adding the killed writer's file again", n);
}

int main(int argc, char **argv) {
  if (argc < 2 || !mkdtemp(dir)) return 2;
  test_roundtrip(argv[1]);
  test_results();
  test_layers();
  test_t4();
  test_bad_stores();
  test_lock();
  if (argc >= 3) test_writers(argv[2], argc >= 4 ? (uint32_t)atoi(argv[3]) : 2000);
  char cmd[800];
  snprintf(cmd, sizeof cmd, "chmod -R u+w %s && rm -rf %s", dir, dir);
  if (system(cmd)) fprintf(stderr, "cleanup of %s failed\n", dir);
  return check_report();
}
