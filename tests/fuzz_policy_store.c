/* Fuzz target for the policy store's import path (policy/store_io.c: `vkocc policy add --db`): any file, as results,
 * T4 results or a policy database, into one store. Invariants: a refusal is a usage error with a message and
 * changes nothing (the store's count of results and databases stays); an accepted file, added again, adds nothing
 * (each result stored once); the store stays intact (PRAGMA integrity_check) and exports a database that the policy
 * reader accepts. The store is made anew every 200 inputs so that a long campaign keeps it small. */
#include "fuzz_util.h"
#include "store.h"

static char store[600], dir[] = "/tmp/vkocc-fuzz-store-XXXXXX";

static void cleanup(void) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) fprintf(stderr, "cleanup of %s failed\n", dir);
}

static void counts(int64_t *results, int64_t *dbs) {
  char *rep = NULL;
  vkocc_status s = vkocc_policy_store_check(store, &rep);
  FUZZ_CHECK(s == VKOCC_OK);
  FUZZ_CHECK(strstr(rep, "integrity: ok"));
  const char *r = strstr(rep, "\nresults: "), *d = strstr(rep, "\ndatabases: ");
  FUZZ_CHECK(r && d);
  *results = strtoll(r + 10, NULL, 10), *dbs = strtoll(d + 12, NULL, 10);
  free(rep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static unsigned inputs;
  if (!store[0]) {
    if (!mkdtemp(dir)) abort();
    atexit(cleanup);
    snprintf(store, sizeof store, "%s/store.sqlite", dir);
  }
  if (inputs++ % 200 == 0) {
    char p[700];
    unlink(store);
    snprintf(p, sizeof p, "%s-wal", store), unlink(p);
    snprintf(p, sizeof p, "%s-shm", store), unlink(p);
    /* a store with one database in it, so that the counts exist before the first input */
    char seed[1024];
    snprintf(seed, sizeof seed, "%s/policy-db.json", FUZZ_DATA_DIR);
    const char *f = seed;
    FUZZ_CHECK(vkocc_policy_store_add(store, &f, 1, NULL, NULL) == VKOCC_OK);
  }
  int64_t r0, d0, r1, d1;
  counts(&r0, &d0);
  const char *file = fuzz_file(data, size);
  vkocc_policy_store_added a;
  vkocc_status s = vkocc_policy_store_add(store, &file, 1, NULL, &a);
  fuzz_check_status(s, 0);
  counts(&r1, &d1);
  if (s) {
    FUZZ_CHECK(r1 == r0 && d1 == d0); /* a refusal writes nothing */
    vkocc_clear_error();
    return 0;
  }
  fuzz_accepted++;
  FUZZ_CHECK(r1 == r0 + (int64_t)a.results_added && d1 == d0 + a.databases_added);
  /* the same file again: every result and database there already */
  vkocc_policy_store_added b;
  FUZZ_CHECK(vkocc_policy_store_add(store, &file, 1, NULL, &b) == VKOCC_OK);
  FUZZ_CHECK(b.results_added == 0 && b.databases_added == 0);
  FUZZ_CHECK(b.results_present == a.results_added + a.results_present);
  /* the store's database reads back through the policy reader */
  char *json = NULL;
  s = vkocc_policy_store_export(store, false, NULL, &json);
  fuzz_check_status(s, 0);
  if (!s) {
    vkocc_policy_db *db;
    const char *ef = fuzz_file((const uint8_t *)json, strlen(json));
    FUZZ_CHECK(vkocc_policy_db_load(ef, &db) == VKOCC_OK);
    vkocc_policy_db_free(db);
  }
  free(json);
  vkocc_clear_error();
  return 0;
}
