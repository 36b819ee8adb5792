/* The fingerprint's register sweep design (vkocc_register_model_measure), without a device: on the register surfaces
 * an H100 (both queue families) and an H200 recorded (docs/results/.../registers), the 12 core points (workgroups 64,
 * 256, 1024 x 32, 96, 160, 256 live values) give the model of the 27-point grid (0..256 in steps of 32) and leave it
 * closed, so the sweep stops there; designs that leave R open (0, 96, 160, 256) or a surface whose points are not all
 * explained are open, and the whole grid is measured. */
#include "characterize.h"
#include "check.h"
#include "vkocc.h"
#include <stdlib.h>

static bool in(uint32_t v, const uint32_t *a, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (a[i] == v) return true;
  return false;
}

/* The model of the points of d at the workgroups 64, 256, 1024 and these live values. */
static vkocc_status model_of(const vkocc_register_doc *d, const uint32_t *live, uint32_t nlive, vkocc_register_model *m,
                             uint32_t *n) {
  static const uint32_t wg[] = {64, 256, 1024};
  vkocc_register_point *p = calloc(d->count + 1, sizeof *p);
  *n = 0;
  for (uint32_t i = 0; i < d->count; i++)
    if (in(d->points[i].wg_size, wg, 3) && in(d->points[i].requested, live, nlive)) p[(*n)++] = d->points[i];
  vkocc_status s = vkocc_derive_registers(p, *n, &d->base, m);
  free(p);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s DOCS_RESULTS\n", argv[0]); return 2; }
  static const uint32_t grid[] = {0, 32, 64, 96, 128, 160, 192, 224, 256}, core[] = {32, 96, 160, 256},
                        loose[] = {0, 96, 160, 256};
  const char *docs[] = {"h100/registers/registers-compute.json", "h100/registers/registers-graphics.json",
                        "h200/registers/registers-compute.json"};
  for (int k = 0; k < 3; k++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", argv[1], docs[k]);
    vkocc_register_doc d;
    CHECK(vkocc_register_doc_load(path, &d) == VKOCC_OK, "%s: %s", path, vkocc_last_error());
    vkocc_register_model all, few, open;
    uint32_t n_all, n_few, n_open;
    CHECK(model_of(&d, grid, 9, &all, &n_all) == VKOCC_OK, "%s: 27 points: %s", docs[k], vkocc_last_error());
    CHECK(model_of(&d, core, 4, &few, &n_few) == VKOCC_OK, "%s: 12 points: %s", docs[k], vkocc_last_error());
    CHECK_EQ_U(n_all, 27);
    CHECK_EQ_U(n_few, 12);
    /* the recorded GPUs' register file: 65536 per SM, 256 per subgroup (8 per invocation), 4 partitions */
    CHECK_EQ_U(all.regs_per_sm, 65536);
    CHECK_EQ_U(all.alloc_unit, 256);
    CHECK_EQ_U(all.partitions, 4);
    CHECK_EQ_U(few.regs_per_sm, all.regs_per_sm);
    CHECK_EQ_U(few.regs_per_sm_max, all.regs_per_sm_max);
    CHECK_EQ_U(few.alloc_unit, all.alloc_unit);
    CHECK_EQ_U(few.alloc_unit_per_invocation, all.alloc_unit_per_invocation);
    CHECK_EQ_U(few.partitions, all.partitions);
    CHECK_EQ_U(few.max_per_invocation, all.max_per_invocation);
    CHECK(few.bound_seen && few.max_capped == all.max_capped, "%s: bound and cap as the 27", docs[k]);
    CHECK(!characterize_register_model_open(&few), "%s: the 12 points close the model", docs[k]);
    CHECK(!characterize_register_model_open(&all), "%s: the 27 points close the model", docs[k]);
    /* another 12 that leave R open by more than a granule (67584..71679): the whole grid is measured */
    CHECK(model_of(&d, loose, 4, &open, &n_open) == VKOCC_OK, "%s: %s", docs[k], vkocc_last_error());
    CHECK(characterize_register_model_open(&open), "%s: R %u..%u with U %u x Q %u is open", docs[k], open.regs_per_sm,
          open.regs_per_sm_max, open.alloc_unit, open.partitions);
    vkocc_register_doc_free(&d);
  }
  /* a surface whose points the model does not all explain (a tuning run's register document on the H200) */
  char path[1024];
  snprintf(path, sizeof path, "%s/h200/tune-examples/adaptive/registers.json", argv[1]);
  vkocc_register_doc d;
  CHECK(vkocc_register_doc_load(path, &d) == VKOCC_OK, "%s: %s", path, vkocc_last_error());
  vkocc_register_model few;
  uint32_t n;
  if (model_of(&d, core, 4, &few, &n) == VKOCC_OK) CHECK(characterize_register_model_open(&few), "unexplained points: open");
  vkocc_register_doc_free(&d);
  /* nothing known is open */
  vkocc_register_model none = {0};
  CHECK(characterize_register_model_open(&none), "an unknown model is open");
  return check_report();
}
