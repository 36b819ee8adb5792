/* The occupancy calculator over a model (include/vkocc.h "the occupancy calculator"): rows at points, a table
 * over workgroup sizes, the workgroup size to use, with or without the register file. Pure: no device, no
 * file; io/calc_io.c reads the models and writes the answers. Every row says where its P comes from (measured,
 * predicted by an adaptive surface, or the model) and whether its occupancy is exact or a bound. */
#include "util.h"
#include <stdlib.h>
#include <string.h>

const char *vkocc_calc_source_name(vkocc_calc_source s) {
  return s == VKOCC_CALC_MEASURED ? "measured" : s == VKOCC_CALC_PREDICTED ? "predicted" : "model";
}

const char *vkocc_calc_bound_name(vkocc_calc_bound b) {
  return b == VKOCC_CALC_AT_MOST ? "at_most" : b == VKOCC_CALC_ESTIMATE ? "estimate" : "exact";
}

uint32_t vkocc_calc_max_wg(const vkocc_calc_model *m) {
  return m->surface.has_device && m->surface.device.max_invocations ? vkocc_device_max_wg_size(&m->surface.device)
                                                                    : 0;
}

static int cmp_point(const void *a, const void *b) {
  const vkocc_surface_point *x = a, *y = b;
  if (x->wg_size != y->wg_size) return x->wg_size < y->wg_size ? -1 : 1;
  return (x->shared_bytes > y->shared_bytes) - (x->shared_bytes < y->shared_bytes);
}

/* The bound of a row's occupancy (threads per SM over S x subgroup size). A measured or predicted P is the
 * resident count itself; the model's is exact only where the limits that bind are: subgroup slots once some
 * point was limited by them, registers once some point was limited by registers; shared memory that no point
 * showed binding is left out, so the model may overstate residency there. */
static vkocc_calc_bound bound_of(const vkocc_derived *d, const vkocc_register_model *rm, const vkocc_calc_row *r) {
  bool max_low = !d->subgroups_bound_seen; /* the per-SM thread maximum is a lower bound */
  if (r->source != VKOCC_CALC_MODEL) return max_low ? VKOCC_CALC_AT_MOST : VKOCC_CALC_EXACT;
  uint32_t b = r->occupancy.binding;
  bool exact_binds = (b & VKOCC_LIMIT_WORKGROUPS) || (b & VKOCC_LIMIT_SHARED) ||
                     ((b & VKOCC_LIMIT_SUBGROUPS) && d->subgroups_bound_seen) ||
                     ((b & VKOCC_LIMIT_REGISTERS) && rm && rm->bound_seen);
  if (b && !exact_binds) return VKOCC_CALC_ESTIMATE; /* residency itself only a lower bound */
  bool resident_high = r->shared_bytes > 0 && !d->shared_bound_seen;
  return max_low || resident_high ? VKOCC_CALC_AT_MOST : VKOCC_CALC_EXACT;
}

/* never above 100%: threads beyond the maximum mean the maximum is larger than derived, so 100% is an upper
 * bound */
static void cap(vkocc_calc_row *r) {
  if (r->occupancy.occupancy_pct > 100.0) {
    r->occupancy.occupancy_pct = 100.0;
    r->bound = VKOCC_CALC_AT_MOST;
  }
}

static void row_registers(const vkocc_calc_model *m, uint32_t wg, uint32_t sh, uint32_t regs, vkocc_calc_row *r) {
  const vkocc_derived *d = &m->derived;
  vkocc_limits_per_sm_registers(d, &m->registers, wg, sh, regs, &r->limits);
  uint32_t w = r->limits.wg_per_sm;
  uint64_t k = wg / (d->subgroup_size ? d->subgroup_size : 1) + (d->subgroup_size && wg % d->subgroup_size != 0);
  r->occupancy.wg_per_sm = w;
  r->occupancy.subgroups_per_sm = (uint32_t)(w * k);
  r->occupancy.threads_per_sm = w * wg;
  r->occupancy.wgs = (uint32_t)((uint64_t)w * d->sm_count);
  r->occupancy.subgroups = (uint32_t)((uint64_t)r->occupancy.wgs * k);
  r->occupancy.threads = (uint32_t)((uint64_t)r->occupancy.wgs * wg);
  r->occupancy.occupancy_pct = d->threads_per_sm ? 100.0 * w * wg / d->threads_per_sm : 0;
  r->occupancy.binding = r->limits.binding;
}

/* points sorted by cmp_point (NULL: none) */
static void row_at(const vkocc_calc_model *m, const vkocc_surface_point *sorted, uint32_t wg, uint32_t sh,
                   uint32_t regs, vkocc_calc_row *r) {
  memset(r, 0, sizeof *r);
  r->wg_size = wg, r->shared_bytes = sh, r->registers = regs;
  if (regs) {
    row_registers(m, wg, sh, regs, r);
  } else {
    vkocc_derived d = m->derived;
    if (!d.sm_count) d.sm_count = 1; /* values per SM: device totals are per-SM ones, cleared below */
    vkocc_surface_point key = {.wg_size = wg, .shared_bytes = sh};
    const vkocc_surface_point *p =
        sorted ? bsearch(&key, sorted, m->surface.count, sizeof *sorted, cmp_point) : NULL;
    if (p) {
      vkocc_occupancy_from_P(&d, wg, sh, p->P, &r->occupancy);
      r->source = p->predicted ? VKOCC_CALC_PREDICTED : VKOCC_CALC_MEASURED;
    } else {
      vkocc_occupancy_compute(&d, wg, sh, &r->occupancy);
    }
    vkocc_limits_per_sm_compute(&d, wg, sh, &r->limits);
    if (!m->derived.sm_count) r->occupancy.wgs = r->occupancy.subgroups = r->occupancy.threads = 0;
  }
  r->bound = bound_of(&m->derived, regs ? &m->registers : NULL, r);
  cap(r);
}

/* the points sorted for binary search (a table over a large file stays O(n log n)); NULL when none */
static vkocc_surface_point *sorted_points(const vkocc_calc_model *m) {
  if (!m->surface.count) return NULL;
  vkocc_surface_point *s = util_xmalloc(m->surface.count * sizeof *s);
  memcpy(s, m->surface.points, m->surface.count * sizeof *s);
  qsort(s, m->surface.count, sizeof *s, cmp_point);
  return s;
}

void vkocc_calc_point(const vkocc_calc_model *m, uint32_t wg, uint32_t sh, uint32_t regs, vkocc_calc_row *out) {
  vkocc_surface_point *sorted = regs ? NULL : sorted_points(m);
  row_at(m, sorted, wg, sh, regs, out);
  free(sorted);
}

vkocc_status vkocc_calc_table(const vkocc_calc_model *m, uint32_t sh, uint32_t regs, vkocc_calc_row **rows,
                              uint32_t *count) {
  vkocc_clear_error();
  *rows = NULL, *count = 0;
  const vkocc_surface *s = &m->surface;
  uint32_t dev_max = vkocc_calc_max_wg(m), n = 0;
  vkocc_calc_row *r;
  if (regs) { /* every multiple of the subgroup size up to the device's largest workgroup (1024 unknown) */
    uint32_t sg = m->derived.subgroup_size ? m->derived.subgroup_size : 1, maxwg = dev_max ? dev_max : 1024;
    if (sh == VKOCC_CALC_FILE_POINTS) sh = 0;
    r = util_xmalloc(((size_t)maxwg / sg + 1) * sizeof *r);
    for (uint32_t w = sg; w <= maxwg; w += sg) row_at(m, NULL, w, sh, regs, &r[n++]);
  } else if (sh == VKOCC_CALC_FILE_POINTS && s->count) {
    vkocc_surface_point *sorted = sorted_points(m);
    r = util_xmalloc(s->count * sizeof *r);
    for (uint32_t i = 0; i < s->count; i++) row_at(m, sorted, s->points[i].wg_size, s->points[i].shared_bytes, 0, &r[n++]);
    free(sorted);
  } else {
    if (sh == VKOCC_CALC_FILE_POINTS) sh = 0;
    /* sizes in 64 bits and capped: a device limit read from a file may be any 32-bit value */
    uint64_t maxwg = s->count ? 0 : 1024, step = m->derived.subgroup_size ? m->derived.subgroup_size : 1;
    for (uint32_t i = 0; i < s->count; i++) if (s->points[i].wg_size > maxwg) maxwg = s->points[i].wg_size;
    if (dev_max) maxwg = dev_max;
    if (maxwg > VKOCC_MAX_WG_SIZE) maxwg = VKOCC_MAX_WG_SIZE;
    vkocc_surface_point *sorted = sorted_points(m);
    r = util_xmalloc((maxwg / step + 1) * sizeof *r);
    for (uint64_t w = step; w <= maxwg; w += step) row_at(m, sorted, (uint32_t)w, sh, 0, &r[n++]);
    free(sorted);
  }
  *rows = r, *count = n;
  return VKOCC_OK;
}

typedef struct { uint32_t base, per_thread; } shared_rule;
static uint32_t shared_of(void *user, uint32_t wg) {
  const shared_rule *r = user;
  uint64_t b = r->base + (uint64_t)r->per_thread * wg;
  return b > VKOCC_MAX_SHARED_BYTES ? VKOCC_NO_LIMIT : (uint32_t)b;
}

vkocc_status vkocc_calc_suggest(const vkocc_calc_model *m, uint32_t base, uint32_t per_thread, uint32_t max_wg,
                                uint32_t regs, vkocc_calc_suggestion *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  out->shared_base = base, out->shared_per_thread = per_thread;
  uint32_t dev_max = vkocc_calc_max_wg(m);
  /* a file without the device: 1024, the largest workgroup most devices allow */
  uint32_t limit = max_wg ? max_wg : dev_max ? dev_max : 1024;
  uint32_t max_shared = m->surface.has_device ? m->surface.device.max_shared_bytes : 0;
  shared_rule rule = {base, per_thread};
  if (!regs) {
    vkocc_wg_suggestion w;
    vkocc_status st = vkocc_suggest_wg_size(&m->derived, shared_of, &rule, limit, max_shared, &w);
    if (st) return st;
    out->candidates = w.candidates;
    row_at(m, NULL, w.wg_size, w.shared_bytes, 0, &out->row);
    out->row.occupancy = w.occupancy; /* as the suggestion judged it */
    out->row.limits = w.limits;
    out->row.bound = bound_of(&m->derived, NULL, &out->row);
    cap(&out->row);
    return VKOCC_OK;
  }
  uint32_t sg = m->derived.subgroup_size ? m->derived.subgroup_size : 1, best_wg = 0, best_thr = 0, best_sh = 0;
  for (uint32_t w = sg; w <= limit; w += sg) {
    uint32_t sh = shared_of(&rule, w);
    if (sh == VKOCC_NO_LIMIT || (max_shared && sh > max_shared)) continue;
    out->candidates++;
    vkocc_limits_per_sm l;
    vkocc_limits_per_sm_registers(&m->derived, &m->registers, w, sh, regs, &l);
    /* the most threads per SM; ties to the larger size */
    if (l.wg_per_sm && l.wg_per_sm * w >= best_thr) best_thr = l.wg_per_sm * w, best_wg = w, best_sh = sh;
  }
  if (!best_wg)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--suggest-wg: none of %u sizes fits with %u registers per invocation",
                      out->candidates, regs);
  row_at(m, NULL, best_wg, best_sh, regs, &out->row);
  return VKOCC_OK;
}
