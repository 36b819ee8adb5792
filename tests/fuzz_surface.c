/* Fuzz target for the surface reader (vkocc_surface_load), then what `calc --from`, `plot` and
 * `fingerprint` run on the result: derivation, occupancy of every point and of the `calc --table` rows,
 * normalization to a fingerprint, and the JSON writer (round trip). One source, two targets:
 * FUZZ_CSV keeps the inputs on the CSV path (wg_size,shared_bytes,P), otherwise on the JSON path. */
#include "fuzz_util.h"
#include "io.h"
#include <ctype.h>

static void check_occupancy(const vkocc_derived *d, const vkocc_occupancy *oc) {
  FUZZ_CHECK(oc->wg_per_sm <= d->wg_per_sm || d->wg_per_sm == 0);
  FUZZ_CHECK(oc->occupancy_pct >= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t i = 0;
  while (i < size && isspace(data[i])) i++;
  bool json = i < size && data[i] == '{';
#ifdef FUZZ_CSV
  if (json) return 0; /* the JSON target covers these */
#else
  if (!json) return 0;
#endif
  vkocc_surface s;
  vkocc_status st = vkocc_surface_load(fuzz_file(data, size), &s);
  fuzz_check_status(st, 0);
  if (st) return 0;
  FUZZ_CHECK(s.count > 0 && s.points);
  fuzz_accepted++;

  /* the writer's document reads back to the same points */
  json_t *doc = io_surface_json(&s);
  vkocc_surface back;
  st = io_surface_from_json(doc, "round trip", "$", &back);
  json_decref(doc);
  if (st) fprintf(stderr, "round trip: %s\n", vkocc_last_error());
  FUZZ_CHECK(st == VKOCC_OK && back.count == s.count);
  for (uint32_t k = 0; k < s.count; k++)
    FUZZ_CHECK(back.points[k].wg_size == s.points[k].wg_size && back.points[k].shared_bytes == s.points[k].shared_bytes &&
               back.points[k].P == s.points[k].P);
  vkocc_surface_free(&back);

  vkocc_derived d;
  st = vkocc_derive(s.points, s.count, s.subgroup_size, &d);
  fuzz_check_status(st, VKOCC_ERROR_RUNTIME); /* RUNTIME: no usable point */
  if (st == VKOCC_OK) {
    FUZZ_CHECK(d.sm_count > 0 && d.subgroup_size > 0 && d.explained <= d.total);
    vkocc_occupancy oc;
    for (uint32_t k = 0; k < s.count && k < 256; k++) {
      const vkocc_surface_point *p = &s.points[k];
      vkocc_occupancy_compute(&d, p->wg_size, p->shared_bytes, &oc);
      check_occupancy(&d, &oc);
      vkocc_occupancy_from_P(&d, p->wg_size, p->shared_bytes, p->P, &oc);
      (void)vkocc_limit_name(oc.binding);
    }
    /* the rows of `calc --table`: every multiple of the subgroup size up to the largest size */
    uint32_t maxwg = 0;
    for (uint32_t k = 0; k < s.count; k++) if (s.points[k].wg_size > maxwg) maxwg = s.points[k].wg_size;
    if (s.has_device && s.device.max_invocations) maxwg = s.device.max_invocations;
    uint32_t rows = 0;
    for (uint64_t w = d.subgroup_size; w <= maxwg && rows < 4096; w += d.subgroup_size, rows++) {
      vkocc_occupancy_compute(&d, (uint32_t)w, 0, &oc);
      check_occupancy(&d, &oc);
    }
    vkocc_fingerprint fp;
    FUZZ_CHECK(vkocc_fingerprint_from_surface(&s, &d, &fp) == VKOCC_OK);
    FUZZ_CHECK(strncmp(fp.cluster_id, "c2-", 3) == 0 && vkocc_fingerprint_distance(&fp, &fp) == 0);
    json_decref(vkocc_derived_json(&d, &s));
  }
  vkocc_surface_free(&s);
  return 0;
}
