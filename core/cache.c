#include "internal.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

vkocc_status vkocc_cache_dir(char *out, size_t len) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (xdg && xdg[0] == '/') n = snprintf(out, len, "%s/vkocc", xdg);
  else if (home && *home) n = snprintf(out, len, "%s/.cache/vkocc", home);
  else return vkocc_fail(VKOCC_ERROR_RUNTIME, "no cache directory: neither XDG_CACHE_HOME nor HOME is set");
  if (n < 0 || (size_t)n >= len) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cache directory path too long");
  if (mkdir_p(out)) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot create cache directory %s: %s", out, strerror(errno));
  return VKOCC_OK;
}

vkocc_status vkocc_write_file_atomic(const char *path, const void *data, size_t len) {
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) return vkocc_fail(VKOCC_ERROR_USAGE, "cannot write %s: %s", path, strerror(errno));
  bool ok = fwrite(data, 1, len, f) == len;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return vkocc_fail(VKOCC_ERROR_USAGE, "cannot write %s: %s", path, strerror(e));
  }
  return VKOCC_OK;
}

vkocc_status vkocc_read_file(const char *path, void **data, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return vkocc_fail(VKOCC_ERROR_USAGE, "cannot open %s: %s", path, strerror(errno));
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) { cap *= 2; buf = realloc(buf, cap + 1); }
  }
  bool err = ferror(f);
  fclose(f);
  if (err) { free(buf); return vkocc_fail(VKOCC_ERROR_USAGE, "cannot read %s", path); }
  buf[n] = 0;
  *data = buf;
  *len = n;
  return VKOCC_OK;
}
