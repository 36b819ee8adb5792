/* Internal to libvkocc and its CLI: the helpers every room shares that need no Vulkan (core/internal.h has
 * the Vulkan side): errors, checked allocation, files written whole, time and small statistics, and the
 * device choice from a device list. */
#ifndef VKOCC_UTIL_H
#define VKOCC_UTIL_H
#include "vkocc.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VKOCC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* error.c: sets the thread's message (vkocc_last_error) and returns s. */
vkocc_status vkocc_fail(vkocc_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* malloc, calloc, realloc that end the process with "vkocc: out of memory" instead of returning NULL. */
void *vkocc_xmalloc(size_t n);
void *vkocc_xcalloc(size_t n, size_t size);
void *vkocc_xrealloc(void *p, size_t n);

/* ticks.c, stats.c */
double vkocc_now_ns(void);
int vkocc_cmp_double(const void *a, const void *b);
double vkocc_median(double *v, uint32_t n); /* sorts v */

/* cache.c: $XDG_CACHE_HOME/vkocc (else ~/.cache/vkocc), created on demand. */
vkocc_status vkocc_cache_dir(char *out, size_t len);
/* cache.c: vkocc_write_file_atomic and vkocc_output_check (include/vkocc.h); the writer also removes our own
 * temporaries that a killed writer left in that directory. */
/* Reads a whole file (a directory or more than 256 MiB is refused); *data is NUL-terminated, malloc'd. */
vkocc_status vkocc_read_file(const char *path, void **data, size_t *len);
/* Caches: only a regular file is read (opened without blocking, so a FIFO in its place never hangs). */
vkocc_status vkocc_read_cache_file(const char *path, void **data, size_t *len);
bool vkocc_cache_file_regular(const char *path);
/* A cache entry {schema, key, checksum, value}: written atomically; read back only when the schema and key
 * are the ones asked for and the checksum over schema, key and value holds (an edited, foreign or torn file
 * is a miss: NULL). The value is a new reference. */
struct json_t;
vkocc_status vkocc_cache_entry_write(const char *path, const char *schema, const char *key, struct json_t *value);
struct json_t *vkocc_cache_entry_read(const char *path, const char *schema, const char *key);

#endif
