/* util/array.h: growth keeps every element, steal hands the data over, reserve keeps the size; a pointer, count and
 * capacity grow in place (util_array_room). */
#include "array.h"
#include "check.h"
#include <stdint.h>

typedef struct { uint32_t a; double b; } pair;

int main(void) {
  util_array a = VKOCC_ARRAY_INIT;
  CHECK_EQ_U(util_array_num(&a, uint32_t), 0);
  for (uint32_t i = 0; i < 10000; i++) util_array_append(&a, uint32_t, i * 3u);
  CHECK_EQ_U(util_array_num(&a, uint32_t), 10000);
  CHECK_EQ_U(a.size, 40000);
  CHECK(a.capacity >= a.size && a.capacity <= 2 * a.size, "capacity %zu for %zu bytes", a.capacity, a.size);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < 10000; i++) bad += *util_array_at(&a, uint32_t, i) != i * 3u;
  CHECK_EQ_U(bad, 0);

  uint32_t *more = util_array_grow(&a, uint32_t, 5);
  for (int i = 0; i < 5; i++) more[i] = 7;
  CHECK_EQ_U(util_array_num(&a, uint32_t), 10005);
  CHECK_EQ_U(*util_array_at(&a, uint32_t, 10004), 7);
  CHECK_EQ_U(*util_array_at(&a, uint32_t, 9999), 29997);

  uint32_t *owned = util_array_steal(&a);
  CHECK(owned != NULL, "steal gives the data");
  CHECK_EQ_U(owned[10001], 7);
  CHECK(a.data == NULL && a.size == 0 && a.capacity == 0, "steal empties the array");
  free(owned);

  util_array p = VKOCC_ARRAY_INIT;
  util_array_reserve(&p, 10 * sizeof(pair));
  CHECK_EQ_U(p.size, 0);
  CHECK(p.capacity >= 10 * sizeof(pair), "reserve gives room for 10, capacity %zu", p.capacity);
  void *before = p.data;
  for (uint32_t i = 0; i < 10; i++) util_array_append(&p, pair, ((pair){i, i / 2.0}));
  CHECK(p.data == before, "appending within the reserve does not move the data");
  CHECK_EQ_U(util_array_begin(&p, pair)[9].a, 9);
  CHECK_NEAR(util_array_begin(&p, pair)[9].b, 4.5, 0);
  util_array_clear(&p);
  CHECK_EQ_U(util_array_num(&p, pair), 0);
  CHECK(p.capacity >= 10 * sizeof(pair), "clear keeps the capacity");
  util_array_fini(&p);
  CHECK(p.data == NULL && p.capacity == 0, "fini frees");
  util_array_fini(&p); /* twice is fine */

  /* a pointer, a count and a uint32_t capacity, as a struct's members: room on demand, doubling from min */
  /* the promise is the capacity's doubling (so n appends cost O(n) copies), not where realloc puts the
   * block: glibc grows in place where it can, ASan's allocator always moves */
  uint32_t *w = NULL, n = 0, cap = 0, grows = 0;
  for (uint32_t i = 0; i < 1000; i++) {
    uint32_t was = cap;
    util_array_room(w, n, cap, 16);
    if (cap != was) {
      CHECK(cap == (was ? 2 * was : 16), "capacity %u after %u: doubles from 16", cap, was);
      grows++;
    }
    w[n++] = i * 7u;
  }
  CHECK_EQ_U(n, 1000);
  CHECK_EQ_U(cap, 1024); /* 16, 32, ..., 1024 */
  CHECK_EQ_U(grows, 7);
  bad = 0;
  for (uint32_t i = 0; i < 1000; i++) bad += w[i] != i * 7u;
  CHECK_EQ_U(bad, 0);
  uint32_t *same = w;
  util_array_room(w, 999, cap, 16); /* within the capacity: nothing moves */
  CHECK(w == same && cap == 1024, "room within the capacity keeps the array");
  free(w);
  return check_report();
}
