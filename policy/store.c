/* The policy store on SQLite: opening it safely, its schema, its locks (docs/policy-store.md).
 * Before SQLite sees a file: lstat and open(O_NOFOLLOW | O_NONBLOCK) refuse a symbolic link, a FIFO or any
 * other non-regular file; the first 16 bytes must be SQLite's; a WAL beside it must be a whole number of frames
 * (SQLite itself would silently drop a cut frame and the transactions after it). A writer refuses a network file
 * system, whose locks SQLite's own documents say may not hold. Then SQLITE_OPEN_NOFOLLOW, a busy timeout with a
 * bound, and the schema's version (PRAGMA user_version; a newer one is refused, never changed). */
#include "store.h"
#include "util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

static const char schema_sql[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
    /* devices as the results describe them (the identity's JSON short form), once each */
    "CREATE TABLE devices(id INTEGER PRIMARY KEY, hash INTEGER NOT NULL UNIQUE, device_key TEXT NOT NULL,"
    " uuid TEXT NOT NULL, driver TEXT NOT NULL, identity TEXT NOT NULL);"
    /* the known clusters' normalized surfaces, as a policy database's "clusters" holds them */
    "CREATE TABLE clusters(id INTEGER PRIMARY KEY, cluster_id TEXT NOT NULL UNIQUE, surface TEXT NOT NULL);"
    /* one kernel name, one spec */
    "CREATE TABLE kernels(name TEXT PRIMARY KEY, spec_hash TEXT NOT NULL) WITHOUT ROWID;"
    /* one tuning run: kernel, element type, size, device and queue family; provenance of its first addition */
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, kernel TEXT NOT NULL, element_type TEXT NOT NULL,"
    " problem_size INTEGER NOT NULL, device INTEGER NOT NULL REFERENCES devices(id), cluster_id TEXT NOT NULL,"
    " queue_kind TEXT NOT NULL, shared_per_sm INTEGER NOT NULL, fingerprint INTEGER REFERENCES clusters(id),"
    " spec_hash TEXT NOT NULL, file TEXT NOT NULL, host TEXT NOT NULL, added TEXT NOT NULL, vkocc_version TEXT NOT NULL,"
    " UNIQUE(kernel, element_type, problem_size, device, queue_kind));"
    "CREATE INDEX runs_cluster ON runs(cluster_id, kernel, element_type, problem_size);"
    "CREATE TABLE configs(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);"
    /* one measured configuration of a run, in the order of its file; times without affinity: integers where they are
     * (min and max as their distance from the median), doubles where not */
    "CREATE TABLE results(run INTEGER NOT NULL, seq INTEGER NOT NULL, config INTEGER NOT NULL, valid INTEGER NOT NULL,"
    " median_ns, spread, min_ns, max_ns, normalized_ns, runs INTEGER NOT NULL, error TEXT, PRIMARY KEY(run, seq)) WITHOUT ROWID;"
    /* the results of one file for one run under their content hash: the same results added again are stored once */
    "CREATE TABLE batches(id INTEGER PRIMARY KEY, run INTEGER NOT NULL, hash INTEGER NOT NULL UNIQUE, results INTEGER NOT NULL);"
    /* every addition: what, from where, by whom */
    "CREATE TABLE additions(id INTEGER PRIMARY KEY, file TEXT NOT NULL, kind TEXT NOT NULL, host TEXT NOT NULL,"
    " added TEXT NOT NULL, vkocc_version TEXT NOT NULL, spec_hash TEXT, added_results INTEGER NOT NULL,"
    " present_results INTEGER NOT NULL);"
    /* imported policy databases: the document's other members (head: clusters, kernels and sources as null, in
     * their places), its kernels' other members, entries, defaults and sources */
    "CREATE TABLE documents(id INTEGER PRIMARY KEY, hash INTEGER NOT NULL UNIQUE, file TEXT NOT NULL, host TEXT NOT NULL,"
    " added TEXT NOT NULL, vkocc_version TEXT NOT NULL, head TEXT NOT NULL);"
    "CREATE TABLE kernel_heads(id INTEGER PRIMARY KEY, document INTEGER NOT NULL, kernel TEXT NOT NULL, head TEXT NOT NULL,"
    " UNIQUE(kernel, document));"
    /* policy entries: imported (document set) or built from the results (document NULL, rebuilt per kernel) */
    "CREATE TABLE entries(id INTEGER PRIMARY KEY, document INTEGER, kernel TEXT NOT NULL, device_key TEXT,"
    " cluster_id TEXT NOT NULL, entry TEXT NOT NULL, hash INTEGER NOT NULL);"
    "CREATE INDEX entries_lookup ON entries(kernel, device_key, cluster_id);"
    "CREATE UNIQUE INDEX entries_once ON entries(kernel, hash, coalesce(document, 0));"
    "CREATE TABLE defaults(id INTEGER PRIMARY KEY, document INTEGER, kernel TEXT NOT NULL, value TEXT NOT NULL,"
    " UNIQUE(kernel, document));"
    "CREATE TABLE sources(id INTEGER PRIMARY KEY, document INTEGER NOT NULL, source TEXT NOT NULL);";

bool pstore_network_fs(long f_type, const char **name) {
  static const struct { unsigned long magic; const char *name; } fs[] = {
      {0x6969, "NFS"},           {0xFF534D42, "CIFS"},   {0xFE534D42, "SMB2"},    {0x517B, "SMB"},
      {0x5346414F, "AFS"},       {0x6B414653, "kAFS"},   {0x73757245, "Coda"},    {0x00C36400, "Ceph"},
      {0x0BD00BD0, "Lustre"},    {0x01021997, "9p"},     {0x01161970, "GFS2"},    {0x7461636F, "OCFS2"},
      {0x47504653, "GPFS"},      {0x013111A8, "IBRIX"},  {0x65735546, "FUSE"},    {0xAAD7AAEA, "PanFS"},
      {0x19830326, "fhgfs/BeeGFS"}, {0x564C, "NCP"},
  };
  for (size_t i = 0; i < VKOCC_ARRAY_LEN(fs); i++)
    if ((unsigned long)(unsigned int)f_type == fs[i].magic) {
      if (name) *name = fs[i].name;
      return true;
    }
  return false;
}

uint32_t pstore_holders(const char *path, int *pids, uint32_t max) {
  char real[PATH_MAX];
  if (!realpath(path, real)) return 0;
  DIR *proc = opendir("/proc");
  if (!proc) return 0;
  uint32_t n = 0;
  struct dirent *p;
  while (n < max && (p = readdir(proc))) {
    char *end;
    long pid = strtol(p->d_name, &end, 10);
    if (*end || pid <= 0 || pid == getpid()) continue;
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%ld/fd", pid);
    DIR *fds = opendir(dir); /* another user's: not readable, not counted */
    if (!fds) continue;
    struct dirent *f;
    while ((f = readdir(fds))) {
      char link[384], target[PATH_MAX];
      snprintf(link, sizeof link, "%s/%s", dir, f->d_name);
      ssize_t l = readlink(link, target, sizeof target - 1);
      if (l <= 0) continue;
      target[l] = 0;
      if (!strcmp(target, real)) { pids[n++] = (int)pid; break; }
    }
    closedir(fds);
  }
  closedir(proc);
  return n;
}

static const char *kind_of(mode_t m) {
  return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : "not a regular file";
}

/* The file at path before SQLite opens it: absent (*exists false), or a regular file with SQLite's header (or
 * empty); the header's page size into *page (0 when empty). */
static vkocc_status check_file(const char *path, const char *what, bool *exists, uint32_t *page) {
  struct stat st;
  *exists = false;
  if (page) *page = 0;
  if (lstat(path, &st)) {
    if (errno == ENOENT) return VKOCC_OK;
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s", path, strerror(errno));
  }
  if (S_ISLNK(st.st_mode)) {
    char target[PATH_MAX];
    ssize_t l = readlink(path, target, sizeof target - 1);
    target[l > 0 ? l : 0] = 0;
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s is a symbolic link (to '%s'); a policy store is opened by its own "
                      "name only, so a link planted in a shared directory cannot redirect the writes: give the file "
                      "itself", path, what, target);
  }
  if (!S_ISREG(st.st_mode))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s is %s, not a policy store", path, what, kind_of(st.st_mode));
  /* opened without following a link and without blocking on a FIFO swapped in since the lstat */
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: cannot open the %s: %s", path, what, strerror(errno));
  struct stat fst;
  unsigned char head[100];
  ssize_t got = 0;
  vkocc_status s = VKOCC_OK;
  if (fstat(fd, &fst) || !S_ISREG(fst.st_mode) || fst.st_ino != st.st_ino)
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: the %s changed while it was opened (now %s)", path, what, kind_of(fst.st_mode));
  else if (page && fst.st_size > 0) {
    got = read(fd, head, sizeof head);
    if (got < 16 || memcmp(head, "SQLite format 3", 16))
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: not a policy store: the file does not begin with SQLite's header (%lld "
                     "bytes; a JSON policy database is added with vkocc policy add --db STORE FILE)", path,
                     (long long)fst.st_size);
    else if (got >= 18) {
      uint32_t ps = (uint32_t)head[16] << 8 | head[17];
      *page = ps == 1 ? 65536 : ps;
    }
  }
  close(fd);
  if (!s) *exists = true;
  return s;
}

/* A WAL beside the store: a header and whole frames (24 bytes + a page each). A size that stays cut is a WAL
 * truncated by a copy or a full disk; a live writer's frame in flight changes the size, so it is looked at again. */
static vkocc_status check_wal(const char *path, uint32_t page) {
  char wal[1100];
  snprintf(wal, sizeof wal, "%s-wal", path);
  bool exists;
  vkocc_status s = check_file(wal, "WAL journal", &exists, NULL);
  if (s || !exists) return s;
  for (int look = 0; look < 20; look++) {
    struct stat st;
    if (stat(wal, &st)) return VKOCC_OK; /* checkpointed and removed meanwhile */
    if (st.st_size == 0) return VKOCC_OK;
    uint32_t ps = page;
    int fd = open(wal, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    unsigned char h[32];
    if (fd >= 0) {
      if (read(fd, h, sizeof h) == (ssize_t)sizeof h && (h[0] == 0x37 && h[1] == 0x7f && h[2] == 0x06 && (h[3] & 0xfe) == 0x82))
        ps = (uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11];
      close(fd);
    }
    if (!ps) ps = 4096;
    if (st.st_size >= 32 && (st.st_size - 32) % (ps + 24) == 0) return VKOCC_OK;
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    struct stat again;
    if (stat(wal, &again) || again.st_size != st.st_size || again.st_mtim.tv_nsec != st.st_mtim.tv_nsec) continue;
    if (look < 19) continue;
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: the WAL journal is truncated (%lld bytes is not a 32-byte header and whole "
                      "frames of %u + 24 bytes): its last transaction was cut, and SQLite would drop it and every one "
                      "after it without a word; restore the -wal file, or move it aside to open the store as of its "
                      "last complete checkpoint", wal, (long long)st.st_size, ps);
  }
  return VKOCC_OK;
}

static vkocc_status check_fs(const char *path, bool allow) {
  char dir[1100];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *(slash == dir ? slash + 1 : slash) = 0;
  else snprintf(dir, sizeof dir, ".");
  struct statfs fs;
  if (statfs(dir, &fs)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: cannot look at its file system: %s", dir, strerror(errno));
  const char *name = NULL;
  if (!pstore_network_fs((long)fs.f_type, &name) || allow) return VKOCC_OK;
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s: the store is on a network file system (%s, f_type 0x%lx), whose file locks "
                    "SQLite cannot rely on (two writers may corrupt it): keep the store on a local disk and let each "
                    "machine write its results file for one `vkocc policy add` to gather, or pass --allow-network-fs "
                    "(docs/policy-store.md)", path, name, (unsigned long)fs.f_type);
}

vkocc_status pstore_fail(pstore *s, int rc, const char *what) {
  int base = rc & 0xff;
  const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
  if (base == SQLITE_BUSY || base == SQLITE_LOCKED) {
    int pids[16];
    uint32_t n = pstore_holders(s->path, pids, 16);
    char who[200] = "";
    for (uint32_t i = 0; i < n; i++)
      snprintf(who + strlen(who), sizeof who - strlen(who), "%s%d", i ? ", " : "", pids[i]);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: %s: the store stayed locked by another writer for more than %.1f s "
                      "(SQLite's locks do not name their holder; processes of this host that have it open: %s): try "
                      "again, or wait longer with --wait SECONDS", s->path, what, s->wait_ms / 1000.0,
                      n ? who : "none visible to this user");
  }
  if (base == SQLITE_NOTADB || base == SQLITE_CORRUPT)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: the store is damaged or no SQLite database (SQLite: %s); vkocc policy "
                      "check --db %s says more", s->path, what, msg, s->path);
  if (base == SQLITE_CANTOPEN)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: cannot open the store (SQLite: %s)", s->path, what, msg);
  if (base == SQLITE_READONLY)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: the store is read-only here (SQLite: %s)", s->path, what, msg);
  return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: %s: SQLite: %s", s->path, what, msg);
}

vkocc_status pstore_exec(pstore *s, const char *sql) {
  char *err = NULL;
  int rc = sqlite3_exec(s->db, sql, NULL, NULL, &err);
  sqlite3_free(err);
  return rc == SQLITE_OK ? VKOCC_OK : pstore_fail(s, rc, "running SQL");
}

vkocc_status pstore_begin(pstore *s) {
  int rc = sqlite3_exec(s->db, s->write ? "BEGIN IMMEDIATE" : "BEGIN", NULL, NULL, NULL);
  return rc == SQLITE_OK ? VKOCC_OK : pstore_fail(s, rc, "taking the store's lock");
}

vkocc_status pstore_commit(pstore *s) {
  int rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
  return rc == SQLITE_OK ? VKOCC_OK : pstore_fail(s, rc, "committing");
}

void pstore_rollback(pstore *s) {
  if (!sqlite3_get_autocommit(s->db)) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

static int int_of(pstore *s, const char *sql, int *rc) {
  sqlite3_stmt *st;
  int v = 0;
  *rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
  if (*rc) return 0;
  *rc = sqlite3_step(st);
  if (*rc == SQLITE_ROW) v = sqlite3_column_int(st, 0), *rc = SQLITE_OK;
  else if (*rc == SQLITE_DONE) *rc = SQLITE_OK;
  sqlite3_finalize(st);
  return v;
}

/* The schema: a new store's made, an existing one's version checked (newer: refused, never touched). */
static vkocc_status check_schema(pstore *s) {
  /* the version and the tables in one statement, so one snapshot: read one after the other, another writer's
   * creation of the store could commit between them (version 0, then its tables), which looked like a database of
   * something else (8 concurrent writers, one refused so, in a run beside three CPU hogs) */
  int rc, version = 0, tables = 0;
  sqlite3_stmt *q;
  rc = sqlite3_prepare_v2(s->db,
                          "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema)",
                          -1, &q, NULL);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) version = sqlite3_column_int(q, 0), tables = sqlite3_column_int(q, 1), rc = SQLITE_OK;
    sqlite3_finalize(q);
  }
  if (rc) return pstore_fail(s, rc, "reading the schema version");
  if (version > PSTORE_SCHEMA_VERSION)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: a policy store of schema version %d; this vkocc (%s) reads version %d "
                      "and older: use a newer vkocc (the store is left as it is)", s->path, version, vkocc_version(),
                      PSTORE_SCHEMA_VERSION);
  if (version == 0 && tables > 0)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: a SQLite database, but no vkocc policy store (user_version 0, %d tables "
                      "of something else)", s->path, tables);
  if (version == 0) {
    if (!s->write) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: an empty file, no policy store yet (vkocc policy add --db)", s->path);
    vkocc_status st = pstore_begin(s);
    if (st) return st;
    /* another writer may have made it while this one waited for the lock */
    version = int_of(s, "PRAGMA user_version", &rc);
    if (!rc && version == 0) {
      char sql[sizeof schema_sql + 300];
      snprintf(sql, sizeof sql, "%sINSERT INTO meta VALUES('schema', '%s/%d'), ('created_by', 'vkocc %s');"
               "PRAGMA user_version = %d;", schema_sql, PSTORE_SCHEMA_NAME, PSTORE_SCHEMA_VERSION, vkocc_version(),
               PSTORE_SCHEMA_VERSION);
      if ((st = pstore_exec(s, sql))) { pstore_rollback(s); return st; }
    }
    return pstore_commit(s);
  }
  char name[128] = "";
  if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = 'schema'", -1, &q, NULL) == SQLITE_OK) {
    if (sqlite3_step(q) == SQLITE_ROW) snprintf(name, sizeof name, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
  }
  char want[64];
  snprintf(want, sizeof want, "%s/", PSTORE_SCHEMA_NAME);
  if (strncmp(name, want, strlen(want)))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: a SQLite database of user_version %d, but no vkocc policy store (meta.schema "
                      "is '%s')", s->path, version, name);
  return VKOCC_OK;
}

vkocc_status pstore_open(const char *path, bool write, const vkocc_policy_store_options *opt, pstore *out) {
  memset(out, 0, sizeof *out);
  if (!path || !*path) return vkocc_fail(VKOCC_ERROR_USAGE, "no policy store given (--db FILE)");
  if (strlen(path) >= sizeof out->path) return vkocc_fail(VKOCC_ERROR_USAGE, "%.80s...: path too long", path);
  snprintf(out->path, sizeof out->path, "%s", path);
  out->write = write;
  out->wait_ms = opt && opt->wait_ms ? opt->wait_ms : PSTORE_WAIT_MS_DEFAULT;
  bool exists;
  uint32_t page;
  vkocc_status s = check_file(path, "policy store", &exists, &page);
  if (s) return s;
  if (!exists && !write) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: no such policy store", path);
  if (exists && (s = check_wal(path, page))) return s;
  if (write && (s = check_fs(path, opt && opt->allow_network_fs))) return s;
  int flags = (write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
#ifdef SQLITE_OPEN_NOFOLLOW
  flags |= SQLITE_OPEN_NOFOLLOW;
#endif
  int rc = sqlite3_open_v2(path, &out->db, flags, NULL);
  if (rc) {
    s = pstore_fail(out, rc, "opening");
    pstore_close(out);
    return s;
  }
  sqlite3_extended_result_codes(out->db, 1);
  sqlite3_busy_timeout(out->db, (int)out->wait_ms);
  if (write) {
    /* WAL: readers never wait for a writer; NORMAL: a killed process loses at most its open transaction */
    if ((s = pstore_exec(out, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON"))) {
      pstore_close(out);
      return s;
    }
  }
  if ((s = check_schema(out))) pstore_close(out);
  return s;
}

void pstore_close(pstore *s) {
  if (s->db) sqlite3_close_v2(s->db);
  s->db = NULL;
}

bool vkocc_policy_store_is(const char *path) {
  /* a link to a store counts as a store, so that opening it is refused with its reason */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  char h[16];
  bool is = !fstat(fd, &st) && S_ISREG(st.st_mode) && read(fd, h, 16) == 16 && !memcmp(h, "SQLite format 3", 16);
  close(fd);
  return is;
}

vkocc_status vkocc_policy_store_can_add(const char *path, const vkocc_policy_store_options *opt) {
  vkocc_clear_error();
  if (!path || !*path) return vkocc_fail(VKOCC_ERROR_USAGE, "no policy store given (--db FILE)");
  bool exists;
  uint32_t page;
  vkocc_status s = check_file(path, "policy store", &exists, &page);
  if (!s) s = check_fs(path, opt && opt->allow_network_fs);
  if (s || !exists || !page) return s; /* absent or empty: the add creates it */
  /* read-only: the WAL, the schema; nothing written, nothing created */
  pstore st;
  if ((s = pstore_open(path, false, opt, &st))) return s;
  pstore_close(&st);
  return VKOCC_OK;
}

vkocc_status vkocc_policy_store_check(const char *path, char **report) {
  vkocc_clear_error();
  if (report) *report = NULL;
  pstore s;
  vkocc_status st = pstore_open(path, false, NULL, &s);
  if (st) return st;
  sqlite3_stmt *q;
  char *text = util_xstrdup("");
  size_t len = 0;
  int rc = sqlite3_prepare_v2(s.db, "PRAGMA integrity_check", -1, &q, NULL);
  bool ok = false;
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    if ((rc = sqlite3_step(q)) != SQLITE_ROW) break;
    const char *line = (const char *)sqlite3_column_text(q, 0);
    if (!strcmp(line, "ok")) ok = true;
    size_t l = strlen(line);
    text = util_xrealloc(text, len + l + 32);
    len += (size_t)sprintf(text + len, "integrity: %s\n", line);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(q);
  if (rc) { free(text); st = pstore_fail(&s, rc, "PRAGMA integrity_check"); pstore_close(&s); return st; }
  static const char *const counts[][2] = {{"results", "SELECT count(*) FROM results"}, {"runs", "SELECT count(*) FROM runs"},
                                          {"devices", "SELECT count(*) FROM devices"}, {"clusters", "SELECT count(*) FROM clusters"},
                                          {"entries", "SELECT count(*) FROM entries"}, {"databases", "SELECT count(*) FROM documents"},
                                          {"additions", "SELECT count(*) FROM additions"}};
  for (size_t i = 0; ok && i < VKOCC_ARRAY_LEN(counts); i++) {
    int v = int_of(&s, counts[i][1], &rc);
    if (rc) { ok = false; break; }
    text = util_xrealloc(text, len + 64);
    len += (size_t)sprintf(text + len, "%s: %d\n", counts[i][0], v);
  }
  pstore_close(&s);
  if (!ok) {
    st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: PRAGMA integrity_check found damage: %s", path, text);
    free(text);
    return st;
  }
  if (report) *report = text;
  else free(text);
  return VKOCC_OK;
}
