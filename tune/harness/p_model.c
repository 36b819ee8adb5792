/* P of a configuration's pipeline from the device's model instead of a measurement, where the model determines
 * it (tune/harness/user.h tu_P_model): the per-SM limits a fingerprint derived and the register file a register surface
 * fitted, under the pipeline's own statistics (registers, shared memory). */
#include "user.h"

/* A limit that binds must be pinned by the points: a value only bounded from below (lowest consistent value,
 * never seen binding) may be higher on the device, and P with it. A limit that does not bind is safe as a lower
 * bound: the device's is no lower. */
static bool pinned(const vkocc_derived *d, const vkocc_register_model *m, uint32_t binding) {
  if ((binding & VKOCC_LIMIT_SUBGROUPS) && d->subgroups_per_sm != d->subgroups_per_sm_max) return false;
  if ((binding & VKOCC_LIMIT_SHARED) && (!d->shared_bound_seen || d->shared_per_sm != d->shared_per_sm_max)) return false;
  if ((binding & VKOCC_LIMIT_REGISTERS) && (!m->bound_seen || m->regs_per_sm != m->regs_per_sm_max)) return false;
  return true;
}

bool tu_P_model(const vkocc_derived *d, const vkocc_register_model *m, uint32_t wg_size, uint32_t shared_bytes,
                uint32_t registers, uint32_t *P) {
  if (!d || !m || !d->sm_count || d->sm_count_ambiguous || !d->wg_per_sm || !d->subgroup_size) return false;
  if (!m->known || !registers || !wg_size) return false;
  uint32_t binding = 0, p = vkocc_model_P(d, m, wg_size, shared_bytes, registers, &binding);
  if (!p || !binding || !pinned(d, m, binding)) return false;
  /* An ambiguous register file (another allocation unit or partition count explained the points as well, as on
   * an H100 whose register counts are multiples of 8) keeps the coarser unit and more partitions, the smallest
   * register limit of the fits tied at its R: where even that does not bind, none of them does, and P is the
   * other limits'. Where registers bind (or tie), P must be measured. */
  if (m->ambiguous && (binding & VKOCC_LIMIT_REGISTERS)) return false;
  *P = p;
  return true;
}
