/* Internal to libvkocc: one growable array (Mesa's util_dynarray style), instead of hand-grown
 * realloc/capacity pairs. The array holds bytes; the macros give typed access:
 *
 *     util_array a = VKOCC_ARRAY_INIT;
 *     util_array_append(&a, uint32_t, 7);                 append one element
 *     uint32_t *more = util_array_grow(&a, uint32_t, 4);   room for 4 more, returned uninitialized
 *     for (size_t i = 0; i < util_array_num(&a, uint32_t); i++) use(*util_array_at(&a, uint32_t, i));
 *     uint32_t *owned = util_array_steal(&a);              the caller frees it; a is empty again
 *     util_array_fini(&a);                                 frees what a holds
 *
 * An array others read as a pointer and a count (a public struct's) grows with util_array_room instead (below).
 *
 * Growth doubles the capacity (at least 64 bytes), so appending n elements costs O(n). Allocation goes
 * through util_xrealloc (a failure ends the process with a message); a size that would overflow size_t
 * ends it the same way, so no caller sees a truncated array. */
#ifndef VKOCC_ARRAY_H
#define VKOCC_ARRAY_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void *util_xrealloc(void *p, size_t n); /* util/xalloc.c */

typedef struct util_array {
  void *data;
  size_t size;     /* bytes in use */
  size_t capacity; /* bytes allocated */
} util_array;

#define VKOCC_ARRAY_INIT {NULL, 0, 0}

/* Makes room for `bytes` more bytes at the end and returns where they start (size grows by bytes). */
static inline void *util_array_grow_bytes(util_array *a, size_t bytes) {
  if (bytes > SIZE_MAX - a->size) {
    fprintf(stderr, "vkocc: array of %zu bytes cannot grow by %zu\n", a->size, bytes);
    abort();
  }
  size_t need = a->size + bytes;
  if (need > a->capacity) {
    size_t cap = a->capacity ? a->capacity : 64;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : 2 * cap;
    a->data = util_xrealloc(a->data, cap);
    a->capacity = cap;
  }
  void *p = (char *)a->data + a->size;
  a->size = need;
  return p;
}

/* Capacity for at least `bytes` bytes in all, without changing the size. */
static inline void util_array_reserve(util_array *a, size_t bytes) {
  if (bytes <= a->capacity) return;
  size_t size = a->size;
  util_array_grow_bytes(a, bytes - size);
  a->size = size;
}

static inline void util_array_clear(util_array *a) { a->size = 0; }

static inline void util_array_fini(util_array *a) {
  free(a->data);
  a->data = NULL;
  a->size = a->capacity = 0;
}

/* The data, now the caller's to free (NULL when empty); a is empty again. */
static inline void *util_array_steal(util_array *a) {
  void *p = a->data;
  a->data = NULL;
  a->size = a->capacity = 0;
  return p;
}

/* For an array kept as a pointer, a count and a capacity (members of a struct that others read as plain C, such
 * as vkocc_surface's points): room for element n (the capacity doubled, at least min, when n reaches it).
 *     if the count is n:  util_array_room(p, n, cap, 64); p[n++] = v;
 * The capacity's own type keeps it: one that would not fit there, or a size that would overflow, ends the process
 * with a message like any failed allocation. */
static inline void *util_array_room_bytes(void *p, size_t elem, size_t n, size_t *cap, size_t min) {
  if (n < *cap) return p;
  size_t c = *cap ? *cap : (min ? min : 1);
  while (c <= n) {
    if (c > SIZE_MAX / 2 / elem) {
      fprintf(stderr, "vkocc: array of %zu elements of %zu bytes cannot grow\n", n, elem);
      abort();
    }
    c *= 2;
  }
  *cap = c;
  return util_xrealloc(p, c * elem);
}
#define util_array_room(p, n, cap, min)                                                                             \
  do {                                                                                                               \
    size_t cap_ = (cap);                                                                                             \
    (p) = util_array_room_bytes((p), sizeof *(p), (n), &cap_, (min));                                               \
    (cap) = cap_;                                                                                                    \
    if ((size_t)(cap) != cap_) {                                                                                     \
      fprintf(stderr, "vkocc: array capacity %zu does not fit its counter\n", cap_);                                 \
      abort();                                                                                                       \
    }                                                                                                                \
  } while (0)

#define util_array_grow(a, type, n) ((type *)util_array_grow_bytes((a), sizeof(type) * (n)))
#define util_array_append(a, type, v) (*util_array_grow((a), type, 1) = (v))
#define util_array_num(a, type) ((a)->size / sizeof(type))
#define util_array_at(a, type, i) ((type *)(a)->data + (i))
#define util_array_begin(a, type) ((type *)(a)->data)

#endif
