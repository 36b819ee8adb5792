/* vkocc_fingerprint_registers: the register axis of a fingerprint (docs/fingerprint.md), into its document. Not
 * part of the cluster ID: a fingerprint stands without it where the driver reports no register statistics. */
#include "characterize.h"
#include "internal.h"
#include "array.h"
#include "io.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool characterize_register_model_open(const vkocc_register_model *m) {
  if (!m->known || !m->bound_seen || m->explained < m->total) return true;
  uint64_t granule = (uint64_t)m->alloc_unit * (m->partitions ? m->partitions : 1);
  return m->regs_per_sm_max == UINT32_MAX || (uint64_t)(m->regs_per_sm_max - m->regs_per_sm) >= granule;
}

vkocc_status vkocc_register_model_measure(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_derived *derived,
                                          void (*progress)(void *user, const char *phase, uint32_t done, uint32_t total),
                                          void *user, vkocc_register_point **points, uint32_t *count,
                                          vkocc_register_model *m) {
  vkocc_clear_error();
  *points = NULL, *count = 0;
  memset(m, 0, sizeof *m);
  const vkocc_device_info *dev = vkocc_context_device(ctx);
  uint32_t wg[3], nwg = 0;
  const uint32_t want[] = {64, 256, 1024};
  for (int i = 0; i < 3; i++)
    if (want[i] <= dev->max_invocations && want[i] <= dev->max_wg_size_x) wg[nwg++] = want[i];
  if (!nwg) return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "no workgroup size of the register sweep fits the device");
  /* the comb, whatever method the surface took: the register probe needs the realtime clock */
  static const uint32_t core[] = {32, 96, 160, 256}, rest[] = {0, 64, 128, 192, 224};
  vkocc_register_surface_options so = {.wg_sizes = wg, .wg_count = nwg, .live = core, .live_count = 4,
                                       .progress = progress, .user = user};
  vkocc_register_point *p = NULL, *q = NULL;
  uint32_t n = 0, nq = 0;
  vkocc_status st = vkocc_register_surface_measure(ctx, cal, &so, &p, &n);
  if (!st && (vkocc_derive_registers(p, n, derived, m) || characterize_register_model_open(m))) {
    vkocc_clear_error(); /* the core left the model open: the whole grid */
    so.live = rest, so.live_count = 5;
    if (!(st = vkocc_register_surface_measure(ctx, cal, &so, &q, &nq))) {
      p = util_xrealloc(p, (n + nq) * sizeof *p);
      memcpy(p + n, q, nq * sizeof *q);
      n += nq;
      st = vkocc_derive_registers(p, n, derived, m);
    }
    free(q);
  }
  if (st) { free(p); memset(m, 0, sizeof *m); return st; }
  *points = p, *count = n;
  return VKOCC_OK;
}

/* The sweep (vkocc_register_model_measure) on the fingerprint's device, cached. false (why: the reason) where the
 * driver reports no register statistic or the sweep fails. */
static bool measure(vkocc_context *ctx, const vkocc_context_options *co, const vkocc_fingerprint_details *det,
                    const vkocc_fingerprint_register_options *o, vkocc_register_model *m, char *why, size_t len) {
  const vkocc_device_info *dev = &det->device;
  vkocc_context *own = NULL;
  if (!ctx && vkocc_context_create(co, &own)) {
    snprintf(why, len, "%s", vkocc_last_error());
    return false;
  }
  vkocc_register_point *p = NULL;
  uint32_t n = 0;
  vkocc_status st = vkocc_register_model_measure(ctx ? ctx : own, NULL, &det->derived, o ? o->progress : NULL,
                                                 o ? o->user : NULL, &p, &n, m);
  if (own) vkocc_context_destroy(own);
  if (st) {
    const char *e = vkocc_last_error();
    snprintf(why, len, "%s", strncmp(e, "registers: ", 11) ? e : e + 11);
    free(p);
    memset(m, 0, sizeof *m);
    return false;
  }
  json_t *doc = vkocc_register_document(dev, p, n, &det->derived, "the fingerprint measured with it", m, NULL);
  /* sealed, as every cache entry (a cache that cannot be written is no error) */
  vkocc_register_cache_store(dev, doc);
  json_decref(doc);
  free(p);
  return true;
}

vkocc_status vkocc_fingerprint_registers(vkocc_context *ctx, const vkocc_context_options *context_options,
                                         const vkocc_fingerprint_register_options *options,
                                         vkocc_fingerprint_details *details, bool *known) {
  vkocc_clear_error();
  if (known) *known = false;
  json_t *d = vkocc_fingerprint_details_json(details);
  if (!d) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_fingerprint_registers: the fingerprint has no document");
  vkocc_register_model m;
  char why[600] = "";
  bool ok = (!(options && options->fresh) && vkocc_register_model_from_cache(&details->device, &m)) ||
            measure(ctx, context_options, details, options, &m, why, sizeof why);
  if (ok) {
    json_object_set_new(d, "register_model", vkocc_register_model_json(&m));
    json_object_del(d, "register_axis");
  } else {
    json_object_del(d, "register_model");
    json_object_set_new(d, "register_axis", json_pack("{s:s, s:s}", "status", "unknown", "reason", why));
  }
  if (known) *known = ok;
  vkocc_clear_error();
  return VKOCC_OK;
}
