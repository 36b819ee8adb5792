/* The register axis: the register file of one multiprocessor from P over workgroup size x registers per
 * invocation (the driver's own statistic of each measured pipeline). Nothing here knows a vendor: every
 * allocation unit U (per invocation 1, 2, 4, 8, 16 registers, i.e. U = that x the subgroup size per subgroup)
 * and every partition count Q (1, 2, 4) is tried, the register file R voted as the subgroup slots are in
 * derive.c, and the candidate that reproduces the most points wins. See docs/model.md "Registers". */
#include "util.h"
#include "model.h"
#include <stdlib.h>
#include <string.h>

static uint32_t ceil_div(uint32_t a, uint32_t b) { return a / b + (a % b != 0); }

/* registers one subgroup is allocated */
static uint64_t per_subgroup(uint32_t regs, uint32_t g, uint32_t U) {
  uint64_t need = (uint64_t)regs * g;
  return (need + U - 1) / U * U;
}

static uint32_t reg_limit(uint64_t R, uint32_t Q, uint32_t U, uint32_t g, uint32_t wg, uint32_t regs) {
  if (!regs) return VKOCC_NO_LIMIT;
  uint64_t a = per_subgroup(regs, g, U), k = ceil_div(wg, g);
  uint64_t sub = (uint64_t)Q * ((R / Q) / a);
  uint64_t w = sub / k;
  return w > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)w;
}

uint32_t vkocc_register_limit(const vkocc_register_model *m, uint32_t wg, uint32_t regs) {
  if (!m || !m->known || !regs || !m->alloc_unit || !m->subgroup_size) return VKOCC_NO_LIMIT;
  return reg_limit(m->regs_per_sm, m->partitions ? m->partitions : 1, m->alloc_unit, m->subgroup_size, wg ? wg : 1,
                   regs);
}

void vkocc_limits_per_sm_registers(const vkocc_derived *d, const vkocc_register_model *m, uint32_t wg, uint32_t shared,
                                   uint32_t regs, vkocc_limits_per_sm *out) {
  vkocc_limits_per_sm_compute(d, wg, shared, out);
  out->registers = vkocc_register_limit(m, wg, regs);
  if (out->registers < out->wg_per_sm) out->wg_per_sm = out->registers, out->binding = 0;
  if (out->registers == out->wg_per_sm) out->binding |= VKOCC_LIMIT_REGISTERS;
}

/* The other limits of the device at one point (workgroups per SM): workgroup slots, subgroup slots and,
 * where the shared memory was seen binding, shared memory. */
static uint32_t other_limit(const vkocc_derived *d, uint32_t wg, uint32_t shared, uint32_t *binding) {
  vkocc_limits_per_sm l;
  vkocc_limits_per_sm_compute(d, wg, shared, &l);
  if (binding) *binding = l.binding;
  return l.wg_per_sm;
}

uint32_t vkocc_model_P(const vkocc_derived *d, const vkocc_register_model *m, uint32_t wg, uint32_t shared,
                       uint32_t regs, uint32_t *binding) {
  vkocc_limits_per_sm l;
  vkocc_limits_per_sm_registers(d, m, wg, shared, regs, &l);
  if (binding) *binding = l.binding;
  uint64_t P = (uint64_t)l.wg_per_sm * (d->sm_count ? d->sm_count : 1);
  return P > UINT32_MAX ? UINT32_MAX : (uint32_t)P;
}

typedef struct { uint64_t lo, hi; } span;


/* The value covered by the most spans; [lo, hi] of the first (lowest) best region. O(n log n). */
static uint32_t vote(const span *iv, uint32_t n, uint64_t *lo, uint64_t *hi) {
  if (!n) return 0;
  uint64_t *st = util_xmalloc(n * sizeof *st), *en = util_xmalloc(n * sizeof *en), x = 0, h = UINT64_MAX;
  for (uint32_t i = 0; i < n; i++) st[i] = iv[i].lo, en[i] = iv[i].hi;
  qsort(st, n, sizeof *st, util_cmp_u64);
  qsort(en, n, sizeof *en, util_cmp_u64);
  uint32_t best = 0;
  for (uint32_t a = 0, ended = 0; a < n; a++) {
    while (ended < n && en[ended] < st[a]) ended++;
    if (a + 1 - ended > best) best = a + 1 - ended, x = st[a];
  }
  for (uint32_t i = 0; i < n; i++)
    if (iv[i].lo <= x && x <= iv[i].hi && iv[i].hi < h) h = iv[i].hi;
  free(st);
  free(en);
  *lo = x;
  *hi = h;
  return best;
}

typedef struct {
  uint32_t U, Q;
  uint64_t R, Rmax;
  bool bound_seen;
  uint32_t explained;
} reg_fit;

/* One (U, Q): the spans of R every usable point allows, the vote, and the points reproduced. */
static reg_fit fit_one(const vkocc_register_point *pt, uint32_t n, const vkocc_derived *d, uint32_t U, uint32_t Q) {
  reg_fit f = {.U = U, .Q = Q};
  uint32_t g = d->subgroup_size ? d->subgroup_size : 1, N = d->sm_count ? d->sm_count : 1;
  span *iv = util_xmalloc((n + 1) * sizeof *iv);
  uint32_t ni = 0, nexact = 0;
  uint64_t Rlow = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!pt[i].registers || !pt[i].P || pt[i].P % N) continue;
    uint64_t p = pt[i].P / N, k = ceil_div(pt[i].wg_size ? pt[i].wg_size : 1, g);
    uint64_t o = other_limit(d, pt[i].wg_size, pt[i].shared_bytes, NULL);
    if (p > o) continue; /* more than the other limits allow: no register file explains it */
    uint64_t qa = (uint64_t)Q * per_subgroup(pt[i].registers, g, U);
    uint64_t wlo = (p * k + Q - 1) / Q; /* floor(R / (Q a)) must reach this */
    if (p == o) {                       /* not limited by registers: only a lower bound */
      iv[ni++] = (span){qa * wlo, UINT64_MAX};
      if (qa * wlo > Rlow) Rlow = qa * wlo;
      continue;
    }
    uint64_t whi = ((p + 1) * k - 1) / Q;
    if (wlo > whi) continue; /* no count of subgroups per partition gives p */
    iv[ni++] = (span){qa * wlo, qa * (whi + 1) - 1};
    nexact++;
  }
  uint64_t lo = Rlow, hi = UINT64_MAX;
  if (ni) vote(iv, ni, &lo, &hi);
  free(iv);
  f.R = lo;
  f.Rmax = hi;
  f.bound_seen = nexact > 0;
  vkocc_register_model m = {.known = true, .subgroup_size = g, .regs_per_sm = lo > UINT32_MAX ? UINT32_MAX : (uint32_t)lo,
                            .alloc_unit = U, .partitions = Q};
  for (uint32_t i = 0; i < n; i++)
    if (pt[i].registers && pt[i].P && vkocc_model_P(d, &m, pt[i].wg_size, pt[i].shared_bytes, pt[i].registers, NULL) ==
                                          pt[i].P)
      f.explained++;
  return f;
}

vkocc_status vkocc_derive_registers(const vkocc_register_point *pt, uint32_t n, const vkocc_derived *d,
                                    vkocc_register_model *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  uint32_t with = 0;
  for (uint32_t i = 0; i < n; i++) with += pt[i].registers > 0 && pt[i].P > 0;
  if (!with)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "registers: no point carries a register count (the driver reports no "
                      "register statistic): the register axis is unknown");
  if (!d || !d->sm_count || !d->wg_per_sm || !d->subgroups_per_sm)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "registers: the device's other limits (SM count, workgroup and subgroup "
                      "slots) are needed to tell the register limit apart");
  static const uint32_t units[] = {16, 8, 4, 2, 1}, parts[] = {4, 2, 1}; /* coarse first: ties keep it */
  uint32_t g = d->subgroup_size ? d->subgroup_size : 1;
  if (g > 4096) return vkocc_fail(VKOCC_ERROR_RUNTIME, "registers: subgroup size %u is out of range", g);
  reg_fit best = {0};
  bool have = false, ambiguous = false;
  for (uint32_t a = 0; a < VKOCC_ARRAY_LEN(units); a++)
    for (uint32_t b = 0; b < VKOCC_ARRAY_LEN(parts); b++) {
      reg_fit f = fit_one(pt, n, d, units[a] * g, parts[b]);
      if (!have || f.explained > best.explained) best = f, have = true, ambiguous = false;
      else if (f.explained == best.explained && f.bound_seen) ambiguous = true;
    }
  out->known = true;
  out->subgroup_size = g;
  out->regs_per_sm = best.R > UINT32_MAX ? UINT32_MAX : (uint32_t)best.R;
  out->regs_per_sm_max = best.bound_seen && best.Rmax < UINT32_MAX ? (uint32_t)best.Rmax : UINT32_MAX;
  out->alloc_unit = best.U;
  out->alloc_unit_per_invocation = best.U / g;
  out->partitions = best.Q;
  out->bound_seen = best.bound_seen;
  out->ambiguous = ambiguous && best.bound_seen;
  /* the most registers seen; capped when asking for more live values at one workgroup size gave no more */
  for (uint32_t i = 0; i < n; i++)
    if (pt[i].registers > out->max_per_invocation) out->max_per_invocation = pt[i].registers;
  /* ... or when a point at the most registers asked for more live values than it got registers (each live value
   * needs one: the compiler spilled the rest) */
  for (uint32_t i = 0; i < n; i++)
    if (pt[i].registers == out->max_per_invocation && pt[i].requested > pt[i].registers) out->max_capped = true;
  for (uint32_t i = 0; i < n && !out->max_capped; i++)
    for (uint32_t j = 0; j < n; j++)
      if (pt[i].wg_size == pt[j].wg_size && pt[i].requested && pt[j].requested > pt[i].requested &&
          pt[i].registers == out->max_per_invocation && pt[j].registers == out->max_per_invocation) {
        out->max_capped = true;
        break;
      }
  for (uint32_t i = 0; i < n; i++) {
    if (!pt[i].registers || !pt[i].P) continue;
    out->total++;
    if (vkocc_model_P(d, out, pt[i].wg_size, pt[i].shared_bytes, pt[i].registers, NULL) == pt[i].P) out->explained++;
    else if (out->n_unexplained < VKOCC_MAX_UNEXPLAINED) out->unexplained[out->n_unexplained++] = i;
  }
  return VKOCC_OK;
}

vkocc_status vkocc_register_base(const vkocc_register_point *pt, uint32_t n, uint32_t sg, vkocc_derived *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  if (!n) return vkocc_fail(VKOCC_ERROR_RUNTIME, "registers: no points to derive the device's limits from");
  /* the SM count from every point (register-limited ones included: their P values rule out multiples of it),
   * the slots from the point with the fewest live values of each workgroup size (limited by slots, not registers) */
  vkocc_surface_point *all = util_xcalloc(n, sizeof *all), *low = util_xcalloc(n, sizeof *low);
  uint32_t nl = 0;
  for (uint32_t i = 0; i < n; i++) {
    all[i] = (vkocc_surface_point){.wg_size = pt[i].wg_size, .shared_bytes = pt[i].shared_bytes, .P = pt[i].P};
    bool lowest = true;
    for (uint32_t j = 0; j < n; j++)
      if (pt[j].wg_size == pt[i].wg_size && (pt[j].registers < pt[i].registers || (pt[j].registers == pt[i].registers && j < i)))
        lowest = false;
    if (lowest) low[nl++] = (vkocc_surface_point){.wg_size = pt[i].wg_size, .P = pt[i].P};
  }
  vkocc_derived first;
  vkocc_status s = vkocc_derive(all, n, sg, &first);
  if (!s) s = fingerprint_derive_fixed(low, nl, sg, first.sm_count, out);
  free(all);
  free(low);
  return s;
}
