/* Files in and out: the cache directory, whole-file reads, and atomic writes that refuse to replace
 * anything but a regular file. */
#include "util.h"
#include <jansson.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int mkdir_p(char *path) {
  for (char *p = path + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(path, 0755) && errno != EEXIST) { *p = '/'; return -1; }
      *p = '/';
    }
  return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

vkocc_status util_cache_dir(char *out, size_t len) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (xdg && xdg[0] == '/') n = snprintf(out, len, "%s/vkocc", xdg);
  else if (home && *home) n = snprintf(out, len, "%s/.cache/vkocc", home);
  else return vkocc_fail(VKOCC_ERROR_RUNTIME, "no cache directory: neither XDG_CACHE_HOME nor HOME is set");
  if (n < 0 || (size_t)n >= len) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cache directory path too long");
  if (mkdir_p(out)) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot create cache directory %s: %s", out, strerror(errno));
  return VKOCC_OK;
}

static const char *kind_name(mode_t m) {
  return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
       : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISLNK(m) ? "a symbolic link" : "not a regular file";
}

/* Errors the user can fix by naming another place are usage errors (exit 2); a full disk or an I/O error
 * is a runtime failure (exit 1). */
static vkocc_status errno_status(int e) {
  return e == ENOSPC || e == EIO || e == EDQUOT || e == ENOMEM ? VKOCC_ERROR_RUNTIME : VKOCC_ERROR_USAGE;
}

/* Where a write to PATH lands: the directory and the name in it. A symbolic link is followed to the
 * file it names, which is then replaced (the link stays); a link to nothing is refused. */
typedef struct {
  char *dir, *base; /* malloc'd */
  bool exists;
  mode_t mode;
} out_target;

static void target_free(out_target *t) {
  free(t->dir);
  free(t->base);
  t->dir = t->base = NULL;
}

/* Paths in messages: a long one shown by its start and its end, so the message stays readable. */
#define SHOWN 160
static const char *show(const char *p, char out[SHOWN]) {
  size_t n = strlen(p);
  if (n < SHOWN) return p;
  snprintf(out, SHOWN, "%.60s...%s", p, p + n - 90);
  return out;
}

/* own: a file vkocc makes itself (a cache): nothing but a regular file or nothing is at its path (the door,
 * util/door.c, says what else is there), and a link is refused, not followed. */
static vkocc_status resolve_target(const char *full, out_target *t, bool own) {
  memset(t, 0, sizeof *t);
  struct stat own_st;
  if (own && full && *full && lstat(full, &own_st) == 0) {
    int fd;
    vkocc_status s = util_door_open(full, O_RDONLY, 0, &fd);
    if (s) return s;
    close(fd);
  }
  if (!full || !*full) return vkocc_fail(VKOCC_ERROR_USAGE, "empty output path");
  char shown[SHOWN], shown_dir[SHOWN];
  const char *path = show(full, shown);
  size_t n = strlen(full);
  if (n >= PATH_MAX)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: path too long (%zu bytes; this system allows %d)", path, n, PATH_MAX - 1);
  if (full[n - 1] == '/') return vkocc_fail(VKOCC_ERROR_USAGE, "%s: names a directory (expected a file path)", path);
  const char *name = strrchr(full, '/') ? strrchr(full, '/') + 1 : full;
  if (strlen(name) > NAME_MAX)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: file name too long (%zu bytes; this system allows %d)", path, strlen(name),
                      NAME_MAX);
  char *real = NULL;
  struct stat st;
  if (lstat(full, &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      real = realpath(full, NULL);
      if (!real || stat(real, &st) != 0) {
        int e = errno;
        free(real);
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: a symbolic link to a missing or unreachable file (%s); vkocc "
                          "replaces the file a link names, so the link must name one", path, strerror(e));
      }
    }
    if (!S_ISREG(st.st_mode)) {
      free(real);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s is %s: refusing to replace it (give the path of a regular file)", path,
                        kind_name(st.st_mode));
    }
    t->exists = true;
    t->mode = st.st_mode;
  } else if (errno != ENOENT) {
    return vkocc_fail(errno_status(errno), "cannot write %s: %s", path, strerror(errno));
  }
  const char *p = real ? real : full, *slash = strrchr(p, '/');
  if (!slash) t->dir = util_xstrdup("."), t->base = util_xstrdup(p);
  else if (slash == p) t->dir = util_xstrdup("/"), t->base = util_xstrdup(slash + 1);
  else t->dir = util_xstrndup(p, (size_t)(slash - p)), t->base = util_xstrdup(slash + 1);
  free(real);
  vkocc_status s = VKOCC_OK;
  const char *dir = show(t->dir, shown_dir);
  if (stat(t->dir, &st) != 0) {
    int e = errno;
    s = e == ENOENT ? vkocc_fail(VKOCC_ERROR_USAGE, "cannot write %s: directory %s does not exist", path, dir)
                    : vkocc_fail(errno_status(e), "cannot write %s: directory %s: %s", path, dir, strerror(e));
  }
  else if (!S_ISDIR(st.st_mode))
    s = vkocc_fail(VKOCC_ERROR_USAGE, "cannot write %s: %s is not a directory", path, dir);
  else if (access(t->dir, W_OK | X_OK) != 0)
    s = vkocc_fail(errno_status(errno), "cannot write %s: directory %s is not writable (%s)", path, dir,
                   strerror(errno));
  if (s) target_free(t);
  return s;
}

vkocc_status vkocc_output_check(const char *path) {
  out_target t;
  vkocc_status s = resolve_target(path, &t, false);
  target_free(&t);
  return s;
}

/* Our temporaries: ".<up to 24 bytes of the name>.vkocc-tmp.<pid>.<counter>", in the target's directory.
 * Short whatever the target's length, so they never collide with it or overflow NAME_MAX. */
#define TMP_TAG ".vkocc-tmp."

static bool parse_tmp_name(const char *name, long *pid) {
  const char *tag = name[0] == '.' ? strstr(name + 1, TMP_TAG) : NULL;
  if (!tag) return false;
  for (const char *next; (next = strstr(tag + 1, TMP_TAG));) tag = next;
  char *end;
  const char *digits = tag + strlen(TMP_TAG);
  if (*digits < '0' || *digits > '9') return false;
  *pid = strtol(digits, &end, 10);
  if (*end != '.' || end[1] < '0' || end[1] > '9') return false;
  strtoul(end + 1, &end, 10);
  return *end == 0 && *pid > 0;
}

/* The temporaries earlier vkocc builds named after this target: "<name>.tmp.<pid>", plots "<name>.tmp.<pid><ext>". */
static bool parse_old_tmp_name(const char *name, const char *base, long *pid) {
  size_t n = strlen(base);
  if (strncmp(name, base, n) || strncmp(name + n, ".tmp.", 5)) return false;
  char *end;
  const char *digits = name + n + 5, *ext = strrchr(base, '.');
  if (*digits < '0' || *digits > '9') return false;
  *pid = strtol(digits, &end, 10);
  return *pid > 0 && (!*end || (ext && !strcmp(end, ext)));
}

static bool pid_of_tmp(const char *name, const char *base, long *pid) {
  return parse_tmp_name(name, pid) || parse_old_tmp_name(name, base, pid);
}

/* Removes temporaries left by writers that died (killed between create and rename): ours by name, owned
 * by this user, their process gone, and untouched for a minute (a writer in another PID namespace sharing
 * the directory is still alive then). */
static void clean_stale(int dfd, const char *base) {
  int dup_fd = dup(dfd);
  DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
  if (!d) { if (dup_fd >= 0) close(dup_fd); return; }
  time_t now = time(NULL);
  for (struct dirent *e; (e = readdir(d));) {
    long pid;
    struct stat st;
    if (!strcmp(e->d_name, base) || !pid_of_tmp(e->d_name, base, &pid) || pid == (long)getpid()) continue;
    if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        now - st.st_mtime < 60)
      continue;
    if (pid <= INT_MAX && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
    unlinkat(dfd, e->d_name, 0);
  }
  closedir(d);
}

static vkocc_status write_atomic(const char *path, const void *data, size_t len, bool own) {
  static atomic_uint counter;
  out_target t;
  vkocc_status s = resolve_target(path, &t, own);
  if (s) return s;
  char shown[SHOWN], shown_dir[SHOWN];
  const char *dir = show(t.dir, shown_dir);
  path = show(path, shown);
  int dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1;
  char tmp[NAME_MAX + 1] = "";
  if (dfd < 0) {
    s = vkocc_fail(errno_status(errno), "cannot write %s: directory %s: %s", path, dir, strerror(errno));
    goto out;
  }
  clean_stale(dfd, t.base);
  for (int tries = 0; tries < 1000 && fd < 0; tries++) {
    snprintf(tmp, sizeof tmp, ".%.24s" TMP_TAG "%ld.%u", t.base, (long)getpid(), atomic_fetch_add(&counter, 1));
    if (!strcmp(tmp, t.base)) continue; /* a target named like one of our temporaries */
    /* through the door: created new, and a link, FIFO or anything else put at the temporary's name refused */
    s = util_door_openat(dfd, t.dir, tmp, O_WRONLY | O_CREAT | O_EXCL, 0666, &fd);
    if (s && errno != EEXIST) break;
  }
  if (fd < 0) {
    if (!s) s = vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot write %s: no free temporary name in %s", path, dir);
    else s = vkocc_fail(s, "cannot write %s: %s", path, vkocc_last_error());
    goto out;
  }
  s = VKOCC_OK;
  if (t.exists) (void)fchmod(fd, t.mode & 07777); /* the replacement keeps the permissions of the replaced file */
  int err = 0;
  for (const char *p = data; len > 0 && !err;) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) err = w < 0 ? errno : EIO;
    else p += w, len -= (size_t)w;
  }
  if (!err && fsync(fd) != 0 && errno != EINVAL) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  if (!err && renameat(dfd, tmp, dfd, t.base) != 0) err = errno;
  if (err) {
    unlinkat(dfd, tmp, 0);
    s = vkocc_fail(errno_status(err), "cannot write %s: %s", path, strerror(err));
  }
out:
  if (dfd >= 0) close(dfd);
  target_free(&t);
  return s;
}

vkocc_status vkocc_write_file_atomic(const char *path, const void *data, size_t len) {
  return write_atomic(path, data, len, false);
}

vkocc_status util_write_own_file_atomic(const char *path, const void *data, size_t len) {
  return write_atomic(path, data, len, true);
}

/* Inputs are read whole; a cap keeps `--from /dev/zero` from eating the memory. */
#define READ_LIMIT ((size_t)256 << 20)

/* regular_only (caches): opened without blocking (a FIFO put in place of a cache file never blocks the
 * open) and refused unless it is a regular file. Otherwise (the user's inputs) a FIFO or /dev/stdin is read
 * as the user asked. */
static vkocc_status read_file(const char *path, bool regular_only, void **data, size_t *len) {
  int fd;
  if (regular_only) { /* through the door: a link, FIFO, socket or device in a cache file's place is refused */
    vkocc_status s = util_door_open(path, O_RDONLY, 0, &fd);
    if (s) return s;
  } else if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
    return vkocc_fail(VKOCC_ERROR_USAGE, "cannot open %s: %s", path, strerror(errno));
  struct stat st = {0};
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s is a directory (expected a file)", path);
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot read %s: %s", path, strerror(errno));
  }
  size_t cap = 4096, n = 0;
  char *buf = util_xmalloc(cap + 1);
  if (!buf) { fclose(f); return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: out of memory", path); }
  size_t got;
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      if (cap >= READ_LIMIT) {
        free(buf);
        fclose(f);
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: larger than %zu MiB (not a vkocc input file)", path, READ_LIMIT >> 20);
      }
      cap *= 2;
      char *more = util_xrealloc(buf, cap + 1);
      if (!more) {
        free(buf);
        fclose(f);
        return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: out of memory reading %zu bytes", path, cap);
      }
      buf = more;
    }
  }
  bool err = ferror(f);
  int e = errno;
  fclose(f);
  if (err) { free(buf); return vkocc_fail(VKOCC_ERROR_USAGE, "cannot read %s: %s", path, strerror(e)); }
  buf[n] = 0;
  *data = buf;
  *len = n;
  return VKOCC_OK;
}

vkocc_status util_read_file(const char *path, void **data, size_t *len) { return read_file(path, false, data, len); }

vkocc_status util_read_cache_file(const char *path, void **data, size_t *len) { return read_file(path, true, data, len); }

/* (public, include/vkocc.h; here with the helpers, as the cache keys name devices by it) */
void vkocc_format_uuid(const uint8_t u[16], char out[37]) {
  char *p = out;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
    p += sprintf(p, "%02x", u[i]);
  }
  *p = 0;
}

/* ---------------------------------------------------------------- checksummed cache entries */

/* The checksum of an entry: FNV-1a 64 over the schema, the key and the canonical (sorted, compact) value. */
static void entry_checksum(const char *schema, const char *key, json_t *value, char out[17]) {
  char *text = json_dumps(value, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
  uint64_t h = util_fnv1a_str(util_fnv1a_str(util_fnv1a_str(VKOCC_FNV1A_OFFSET, schema), "\n"), key);
  h = util_fnv1a_str(util_fnv1a_str(h, "\n"), text ? text : "");
  free(text);
  snprintf(out, 17, "%016llx", (unsigned long long)h);
}

vkocc_status util_cache_entry_write(const char *path, const char *schema, const char *key, json_t *value) {
  char sum[17];
  entry_checksum(schema, key, value, sum);
  json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:O}", "schema", schema, "tool_version", vkocc_version(), "key", key,
                          "checksum", sum, "value", value);
  if (!doc) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot build the cache entry %s", path);
  char *text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
  json_decref(doc);
  if (!text) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot serialize the cache entry %s", path);
  vkocc_status s = util_write_own_file_atomic(path, text, strlen(text));
  free(text);
  return s;
}

json_t *util_cache_entry_read(const char *path, const char *schema, const char *key) {
  void *data;
  size_t len;
  if (util_read_cache_file(path, &data, &len)) { vkocc_clear_error(); return NULL; }
  json_error_t e;
  json_t *doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &e);
  free(data);
  if (!doc) return NULL;
  const char *sc = json_string_value(json_object_get(doc, "schema"));
  const char *k = json_string_value(json_object_get(doc, "key"));
  const char *sum = json_string_value(json_object_get(doc, "checksum"));
  json_t *value = json_object_get(doc, "value");
  char want[17];
  bool ok = sc && k && sum && value && !strcmp(sc, schema) && !strcmp(k, key);
  if (ok) entry_checksum(schema, key, value, want);
  if (!ok || strcmp(sum, want)) { json_decref(doc); return NULL; } /* edited, foreign or torn: a miss */
  json_incref(value);
  json_decref(doc);
  return value;
}

/* ---------------------------------------------------------------- caches made on a device */

extern char **environ;

/* Environment a Vulkan driver or the loader reads: Mesa (lavapipe's LP_NUM_THREADS, GALLIVM_, MESA_,
 * RADV_, ...), NVIDIA (__GL_), the loader (VK_). Sorted, so the order of the environment does not matter. */
static bool driver_env(const char *e) {
  static const char *const prefixes[] = {"LP_", "GALLIVM_", "MESA_", "RADV_", "ANV_", "NVK_", "TU_", "V3D_",
                                         "__GL_", "VK_", "AMD_", "DXVK_"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (!strncmp(e, prefixes[i], strlen(prefixes[i]))) return true;
  return false;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

uint64_t util_driver_env_hash(uint64_t h) {
  size_t n = 0, k = 0;
  for (char **e = environ; e && *e; e++) n += driver_env(*e);
  const char **list = util_xcalloc(n + 1, sizeof *list);
  for (char **e = environ; e && *e && k < n; e++)
    if (driver_env(*e)) list[k++] = *e;
  qsort(list, k, sizeof *list, cmp_str);
  for (size_t i = 0; i < k; i++) /* FNV-1a over each "NAME=value" and its terminating NUL */
    h = util_fnv1a(h, list[i], strlen(list[i]) + 1);
  free(list);
  return h;
}

static void cache_key(const vkocc_device_info *d, const char *what, bool family, char *out, size_t len) {
  char uuid[37], fam[32] = "every queue family";
  vkocc_format_uuid(d->uuid, uuid);
  if (family) snprintf(fam, sizeof fam, "queue family %u", d->compute_queue_family);
  snprintf(out, len, "%s; device %s; driver %s (%s) %08x; %s; driver environment %016llx; vkocc %s",
           what, uuid, d->driver_name, d->driver_info, d->driver_version, fam,
           (unsigned long long)util_driver_env_hash(VKOCC_FNV1A_OFFSET), vkocc_version());
}

void util_cache_key(const vkocc_device_info *d, const char *what, char *out, size_t len) {
  cache_key(d, what, true, out, len);
}

void util_cache_key_any_family(const vkocc_device_info *d, const char *what, char *out, size_t len) {
  cache_key(d, what, false, out, len);
}

vkocc_status util_cache_doc_write(const char *path, const char *seal_schema, json_t *doc, const char *key) {
  json_t *copy = json_copy(doc); /* shallow: the caller's document keeps no seal */
  if (!copy) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot build the cache entry %s", path);
  json_object_del(copy, "cache");
  char sum[17];
  entry_checksum(seal_schema, key, copy, sum);
  json_object_set_new(copy, "cache", json_pack("{s:s, s:s}", "key", key, "checksum", sum));
  char *text = json_dumps(copy, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
  json_decref(copy);
  if (!text) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot serialize the cache entry %s", path);
  vkocc_status s = util_write_own_file_atomic(path, text, strlen(text));
  free(text);
  return s;
}

json_t *util_cache_doc_read(const char *path, const char *seal_schema, const char *key) {
  void *data;
  size_t len;
  if (util_read_cache_file(path, &data, &len)) { vkocc_clear_error(); return NULL; }
  json_error_t e;
  json_t *doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &e);
  free(data);
  json_t *seal = json_object_get(doc, "cache");
  const char *k = json_string_value(json_object_get(seal, "key"));
  const char *sum = json_string_value(json_object_get(seal, "checksum"));
  char want[17] = "";
  bool ok = k && sum && !strcmp(k, key);
  if (ok) {
    json_incref(seal);
    json_object_del(doc, "cache");
    entry_checksum(seal_schema, key, doc, want);
    ok = !strcmp(sum, want);
    json_decref(seal);
  }
  if (!ok) { json_decref(doc); return NULL; } /* edited, foreign, torn or unsealed: a miss */
  return doc;
}

int util_cache_doc_fd(json_t *doc, char path[64]) {
  int fd = memfd_create("vkocc-cache", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (json_dumpfd(doc, fd, JSON_COMPACT | JSON_REAL_PRECISION(17)) != 0) { close(fd); return -1; }
  snprintf(path, 64, "/proc/self/fd/%d", fd);
  return fd;
}
