/* Internal to libvkocc: the policy store (docs/policy-store.md), one SQLite file that many `vkocc policy add`
 * processes fill and `policy select` reads. store.c opens it safely (no symlink, no FIFO, no network file system
 * for writing, no newer schema, no truncated WAL) and says who holds a lock; store_io.c moves documents in and
 * out (results, T4 results, policy databases in; today's policy database and the selection's view out). */
#ifndef VKOCC_POLICY_STORE_H
#define VKOCC_POLICY_STORE_H
#include "policy_docs.h"
#include <sqlite3.h>

/* The store's schema: PRAGMA user_version, and meta.schema = "vkocc.policy-store/1". */
#define PSTORE_SCHEMA_NAME "vkocc.policy-store"
#define PSTORE_SCHEMA_VERSION 1
#define PSTORE_WAIT_MS_DEFAULT 60000u

typedef struct pstore {
  sqlite3 *db;
  char path[1024];
  bool write;
  uint32_t wait_ms;
} pstore;

/* Opens the store at path: for reading (it must exist and be a store of a version this vkocc reads) or for
 * writing (created when absent; refused on a network file system unless opt->allow_network_fs). Before SQLite
 * sees the file: no symbolic link, no FIFO or other non-regular file, a SQLite header, a WAL that is a whole
 * number of frames. VKOCC_ERROR_USAGE naming the file and what is wrong; nothing is written on a refusal. */
vkocc_status pstore_open(const char *path, bool write, const vkocc_policy_store_options *opt, pstore *out);
void pstore_close(pstore *s);
/* BEGIN IMMEDIATE (the write lock at once, waiting up to the bound), COMMIT, ROLLBACK. */
vkocc_status pstore_begin(pstore *s);
vkocc_status pstore_commit(pstore *s);
void pstore_rollback(pstore *s);
/* Runs sql (no rows); errors through pstore_fail. */
vkocc_status pstore_exec(pstore *s, const char *sql);
/* The failure of a SQLite call as a vkocc error naming the store and what was done: a lock held past the
 * bound (VKOCC_ERROR_RUNTIME, with the processes that have the store open where /proc tells), a damaged or
 * foreign file (VKOCC_ERROR_USAGE), anything else VKOCC_ERROR_RUNTIME. */
vkocc_status pstore_fail(pstore *s, int rc, const char *what);
/* Whether a file system type (statfs f_type) is a network one whose locks SQLite cannot trust; *name its name. */
bool pstore_network_fs(long f_type, const char **name);
/* PIDs (at most max) of this host's processes whose open files include path, as far as /proc lets us see. */
uint32_t pstore_holders(const char *path, int *pids, uint32_t max);

/* store_io.c */
/* The tuning results of the store as documents, in the order they were first added (tune_doc_free each,
 * then free the array). kernel NULL: every kernel. */
vkocc_status pstore_docs(pstore *s, const char *kernel, tune_doc **docs, uint32_t *n);
void pstore_docs_free(tune_doc *docs, uint32_t n);
/* a text parameter, or NULL as SQL NULL */
void pstore_bind_text(sqlite3_stmt *q, int i, const char *t);
/* policy.c: a policy database from a document in memory (steals doc); label names it in messages. */
vkocc_status policy_db_from_doc(json_t *doc, const char *label, vkocc_policy_db **out);
/* header.c: the C header of a policy database document (label names it in messages). */
vkocc_status policy_header_doc(json_t *db, const char *label, char **text);
#endif
