/* Fuzz target for the register document reader (vkocc_register_doc_load: `calc --regs --from`, the register
 * cache that probe --shader reads), then the register derivation and the calculator over what it returns. */
#include "fuzz_util.h"
#include "registers_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vkocc_register_doc d;
  vkocc_status s = vkocc_register_doc_load(fuzz_file(data, size), &d);
  fuzz_check_status(s, 0);
  if (s) { FUZZ_CHECK(d.points == NULL && d.count == 0); return 0; }
  fuzz_accepted++;
  FUZZ_CHECK(d.count > 0 && d.points);
  vkocc_register_model m = d.model;
  if (d.has_base) {
    s = vkocc_derive_registers(d.points, d.count, &d.base, &m);
    FUZZ_CHECK(s == VKOCC_OK || s == VKOCC_ERROR_RUNTIME);
    if (s == VKOCC_OK) FUZZ_CHECK(m.known && m.explained <= m.total && m.total <= d.count && m.n_unexplained <= m.total);
    for (uint32_t i = 0; i < d.count && i < 8; i++) {
      vkocc_limits_per_sm l;
      vkocc_limits_per_sm_registers(&d.base, &m, d.points[i].wg_size, d.points[i].shared_bytes, d.points[i].registers, &l);
      FUZZ_CHECK(l.wg_per_sm <= l.workgroup_slots || l.workgroup_slots == 0);
      (void)vkocc_model_P(&d.base, &m, d.points[i].wg_size, d.points[i].shared_bytes, d.points[i].registers, NULL);
    }
  } else {
    vkocc_derived b;
    if (vkocc_register_base(d.points, d.count, 0, &b) == VKOCC_OK) (void)vkocc_derive_registers(d.points, d.count, &b, &m);
  }
  vkocc_register_doc_free(&d);
  return 0;
}
