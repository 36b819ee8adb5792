/* The checked allocator: every allocation of the library and the CLI goes through these (the plot library,
 * which links util/cache.c, gets its own copy). */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Allocation failure ends the process with one line, as git's xmalloc does: the library's allocations are
 * small bookkeeping (points, intervals, tables), and a NULL passed on would crash later, less clearly. */
static void *checked(void *p, size_t n) {
  if (!p && n) {
    fprintf(stderr, "vkocc: out of memory (allocating %zu bytes)\n", n);
    abort();
  }
  return p;
}
void *util_xmalloc(size_t n) { return checked(malloc(n ? n : 1), n ? n : 1); }
void *util_xcalloc(size_t n, size_t size) {
  if (!n || !size) n = size = 1;
  return checked(calloc(n, size), n * size);
}
void *util_xrealloc(void *p, size_t n) { return checked(realloc(p, n ? n : 1), n ? n : 1); }
char *util_xstrdup(const char *s) { return checked(strdup(s), strlen(s) + 1); }
char *util_xstrndup(const char *s, size_t n) { return checked(strndup(s, n), strnlen(s, n) + 1); }
