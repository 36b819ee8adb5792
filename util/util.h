/* Internal to libvkocc and its CLI: the helpers every room shares that need no Vulkan (core/internal.h has
 * the Vulkan side): errors, checked allocation, files written whole, time and small statistics, and the
 * device choice from a device list. */
#ifndef VKOCC_UTIL_H
#define VKOCC_UTIL_H
#include "vkocc.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define VKOCC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* error.c: sets the thread's message (vkocc_last_error) and returns s. */
vkocc_status vkocc_fail(vkocc_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* malloc, calloc, realloc that end the process with "vkocc: out of memory" instead of returning NULL. */
void *util_xmalloc(size_t n);
void *util_xcalloc(size_t n, size_t size);
void *util_xrealloc(void *p, size_t n);
/* strdup, strndup, ended the same way */
char *util_xstrdup(const char *s);
char *util_xstrndup(const char *s, size_t n);

/* helpers.c: FNV-1a 64 from h (VKOCC_FNV1A_OFFSET to start) over n bytes, or over a string without its NUL;
 * ascending qsort comparators; now in UTC as "2026-01-31T12:00:00Z"; identifiers in source text. */
#define VKOCC_FNV1A_OFFSET 0xcbf29ce484222325ull
uint64_t util_fnv1a(uint64_t h, const void *data, size_t n);
uint64_t util_fnv1a_str(uint64_t h, const char *s);
int util_cmp_u32(const void *a, const void *b);
int util_cmp_u64(const void *a, const void *b);
void util_utc_now(char *out, size_t len);
/* A character of a C-like identifier (letter, digit, '_'), and whether identifier w (n bytes) occurs in t (tlen
 * bytes) as a whole word starting in [from, to) (its neighbours judged in the whole of t). */
bool util_ident_char(char c);
bool util_word_in(const char *t, size_t tlen, size_t from, size_t to, const char *w, size_t n);

/* door.c: the one door for every file vkocc opens or creates beside what the user named (device locks,
 * temporaries of atomic writes, caches, journals, output locks). flags: O_RDONLY, O_WRONLY or O_RDWR, with
 * O_CREAT (mode as open(2)'s), O_EXCL (create new: an existing file is refused with errno EEXIST, which a
 * caller may take as "try another name"), O_TRUNC, O_APPEND; other flags are ignored. Opens with
 * O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC|O_NOCTTY and accepts only a regular file (a file opened for writing also
 * only with one name, not a hard link), then clears O_NONBLOCK. A symbolic link (dangling too), FIFO, socket,
 * device or directory in its place is refused without blocking and without touching what a link names:
 * VKOCC_ERROR_USAGE with "PATH: a FIFO, not a regular file; vkocc makes this file itself and will not follow
 * or open it ..." (errno EINVAL). Other failures name the path and strerror (errno kept); a full disk, an I/O
 * error or no descriptors left are VKOCC_ERROR_RUNTIME. *fd is -1 on failure. util_door_openat: NAME in the
 * directory open as dfd (DIR its path, for messages). */
vkocc_status util_door_open(const char *path, int flags, mode_t mode, int *fd);
vkocc_status util_door_openat(int dfd, const char *dir, const char *name, int flags, mode_t mode, int *fd);

/* parallel.c: fn(user, i) for every i < n on `threads` threads (0: one per core, at most 8); fn locks what
 * it shares. */
void util_parallel_for(uint32_t n, uint32_t threads, void (*fn)(void *user, uint32_t i), void *user);
/* The online cores less `reserve`, at least 1 and at most `cap`: the one count every thread pool sizes itself by. */
uint32_t util_cores(uint32_t reserve, uint32_t cap);

/* ticks.c, stats.c */
double util_now_ns(void);
int util_cmp_double(const void *a, const void *b);
double util_median(double *v, uint32_t n); /* sorts v */

/* cache.c: $XDG_CACHE_HOME/vkocc (else ~/.cache/vkocc), created on demand. */
vkocc_status util_cache_dir(char *out, size_t len);
/* cache.c: vkocc_write_file_atomic and vkocc_output_check (include/vkocc.h); the writer also removes our own
 * temporaries that a killed writer left in that directory. */
/* vkocc_write_file_atomic for a file vkocc makes itself (a cache): what is at PATH must be a regular file or
 * nothing; a link (not followed), FIFO, socket, device or directory there is refused (the door's message). */
vkocc_status util_write_own_file_atomic(const char *path, const void *data, size_t len);
/* Reads a whole file (a directory or more than 256 MiB is refused); *data is NUL-terminated, malloc'd. */
vkocc_status util_read_file(const char *path, void **data, size_t *len);
/* Caches: only a regular file is read (opened without blocking, so a FIFO in its place never hangs). */
vkocc_status util_read_cache_file(const char *path, void **data, size_t *len);
/* A cache entry {schema, key, checksum, value}: written atomically; read back only when the schema and key
 * are the ones asked for and the checksum over schema, key and value holds (an edited, foreign or torn file
 * is a miss: NULL). The value is a new reference. */
struct json_t;
vkocc_status util_cache_entry_write(const char *path, const char *schema, const char *key, struct json_t *value);
struct json_t *util_cache_entry_read(const char *path, const char *schema, const char *key);
/* Caches made on a device (the fingerprint, the register model). The key: the device (UUID), its driver (name,
 * info, version), the queue family, the environment the driver and the loader read (util_driver_env_hash:
 * LP_NUM_THREADS, GALLIVM_*, MESA_*, VK_*, ...), vkocc's version and `what`. A sealed document is the
 * document plus "cache": {"key", "checksum"}, the checksum over the seal's schema string ("NAME/VERSION" from
 * io/'s table, VKOCC_DOC_CACHE_SEAL: the callers live above core), the key and the document (as
 * util_cache_entry_write's); it stays a document of its schema, readable as one. Reading it back (regular
 * files only, opened without blocking) gives NULL for an edited, foreign, torn or unsealed file, else the
 * document without its seal. util_cache_doc_fd puts a document where the path-based readers can open it:
 * /proc/self/fd/N of a memory file (close the fd returned; -1 on failure). */
uint64_t util_driver_env_hash(uint64_t h);
void util_cache_key(const vkocc_device_info *d, const char *what, char *out, size_t len);
/* The same key without the queue family: what holds on every family of the device (its register file). */
void util_cache_key_any_family(const vkocc_device_info *d, const char *what, char *out, size_t len);
vkocc_status util_cache_doc_write(const char *path, const char *seal_schema, struct json_t *doc, const char *key);
struct json_t *util_cache_doc_read(const char *path, const char *seal_schema, const char *key);
int util_cache_doc_fd(struct json_t *doc, char path[64]);

#endif
