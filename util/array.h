/* Internal to libvkocc: one growable array (Mesa's util_dynarray style), instead of hand-grown
 * realloc/capacity pairs. The array holds bytes; the macros give typed access:
 *
 *     vkocc_array a = VKOCC_ARRAY_INIT;
 *     vkocc_array_append(&a, uint32_t, 7);                 append one element
 *     uint32_t *more = vkocc_array_grow(&a, uint32_t, 4);   room for 4 more, returned uninitialized
 *     for (size_t i = 0; i < vkocc_array_num(&a, uint32_t); i++) use(*vkocc_array_at(&a, uint32_t, i));
 *     uint32_t *owned = vkocc_array_steal(&a);              the caller frees it; a is empty again
 *     vkocc_array_fini(&a);                                 frees what a holds
 *
 * An array others read as a pointer and a count (a public struct's) grows with vkocc_array_room instead (below).
 *
 * Growth doubles the capacity (at least 64 bytes), so appending n elements costs O(n). Allocation goes
 * through vkocc_xrealloc (a failure ends the process with a message); a size that would overflow size_t
 * ends it the same way, so no caller sees a truncated array. */
#ifndef VKOCC_ARRAY_H
#define VKOCC_ARRAY_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void *vkocc_xrealloc(void *p, size_t n); /* util/xalloc.c */

typedef struct vkocc_array {
  void *data;
  size_t size;     /* bytes in use */
  size_t capacity; /* bytes allocated */
} vkocc_array;

#define VKOCC_ARRAY_INIT {NULL, 0, 0}

/* Makes room for `bytes` more bytes at the end and returns where they start (size grows by bytes). */
static inline void *vkocc_array_grow_bytes(vkocc_array *a, size_t bytes) {
  if (bytes > SIZE_MAX - a->size) {
    fprintf(stderr, "vkocc: array of %zu bytes cannot grow by %zu\n", a->size, bytes);
    abort();
  }
  size_t need = a->size + bytes;
  if (need > a->capacity) {
    size_t cap = a->capacity ? a->capacity : 64;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : 2 * cap;
    a->data = vkocc_xrealloc(a->data, cap);
    a->capacity = cap;
  }
  void *p = (char *)a->data + a->size;
  a->size = need;
  return p;
}

/* Capacity for at least `bytes` bytes in all, without changing the size. */
static inline void vkocc_array_reserve(vkocc_array *a, size_t bytes) {
  if (bytes <= a->capacity) return;
  size_t size = a->size;
  vkocc_array_grow_bytes(a, bytes - size);
  a->size = size;
}

static inline void vkocc_array_clear(vkocc_array *a) { a->size = 0; }

static inline void vkocc_array_fini(vkocc_array *a) {
  free(a->data);
  a->data = NULL;
  a->size = a->capacity = 0;
}

/* The data, now the caller's to free (NULL when empty); a is empty again. */
static inline void *vkocc_array_steal(vkocc_array *a) {
  void *p = a->data;
  a->data = NULL;
  a->size = a->capacity = 0;
  return p;
}

/* For an array kept as a pointer, a count and a capacity (members of a struct that others read as plain C, such
 * as vkocc_surface's points): room for element n (the capacity doubled, at least min, when n reaches it).
 *     if the count is n:  vkocc_array_room(p, n, cap, 64); p[n++] = v;
 * The capacity's own type keeps it: one that would not fit there, or a size that would overflow, ends the process
 * with a message like any failed allocation. */
static inline void *vkocc_array_room_bytes(void *p, size_t elem, size_t n, size_t *cap, size_t min) {
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
  return vkocc_xrealloc(p, c * elem);
}
#define vkocc_array_room(p, n, cap, min)                                                                             \
  do {                                                                                                               \
    size_t cap_ = (cap);                                                                                             \
    (p) = vkocc_array_room_bytes((p), sizeof *(p), (n), &cap_, (min));                                               \
    (cap) = cap_;                                                                                                    \
    if ((size_t)(cap) != cap_) {                                                                                     \
      fprintf(stderr, "vkocc: array capacity %zu does not fit its counter\n", cap_);                                 \
      abort();                                                                                                       \
    }                                                                                                                \
  } while (0)

#define vkocc_array_grow(a, type, n) ((type *)vkocc_array_grow_bytes((a), sizeof(type) * (n)))
#define vkocc_array_append(a, type, v) (*vkocc_array_grow((a), type, 1) = (v))
#define vkocc_array_num(a, type) ((a)->size / sizeof(type))
#define vkocc_array_at(a, type, i) ((type *)(a)->data + (i))
#define vkocc_array_begin(a, type) ((type *)(a)->data)

#endif
