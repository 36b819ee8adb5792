/* vkocc_fingerprint_registers: the register axis of a fingerprint (docs/fingerprint.md), into its document. Not
 * part of the cluster ID: a fingerprint stands without it where the driver reports no register statistics. */
#include "characterize.h"
#include "internal.h"
#include "io.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sweep is the cheapest design found to determine the model: workgroups 64, 256 and 1024 x 0..256 live values
 * in steps of 32 (on the H100 its 27 points gave the register file, unit and partitions of the 102-point
 * surface). false (why: the reason) where the driver reports no register statistic or the sweep fails. */
static bool measure(vkocc_context *ctx, const vkocc_context_options *co, const vkocc_fingerprint_details *det,
                    const vkocc_fingerprint_register_options *o, vkocc_register_model *m, char *why, size_t len) {
  const vkocc_device_info *dev = &det->device;
  vkocc_context *own = NULL;
  if (!ctx && vkocc_context_create(co, &own)) {
    snprintf(why, len, "%s", vkocc_last_error());
    return false;
  }
  uint32_t wg[3], nwg = 0, live[9];
  const uint32_t want[] = {64, 256, 1024};
  for (int i = 0; i < 3; i++)
    if (want[i] <= dev->max_invocations && want[i] <= dev->max_wg_size_x) wg[nwg++] = want[i];
  for (uint32_t i = 0; i < 9; i++) live[i] = 32 * i;
  /* the comb, whatever method the surface took: the register probe needs the realtime clock */
  vkocc_register_surface_options so = {.wg_sizes = wg, .wg_count = nwg, .live = live, .live_count = 9,
                                       .progress = o ? o->progress : NULL, .user = o ? o->user : NULL};
  vkocc_register_point *p = NULL;
  uint32_t n = 0;
  vkocc_status st = nwg ? vkocc_register_surface_measure(ctx ? ctx : own, NULL, &so, &p, &n)
                        : vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "no workgroup size of the sweep fits the device");
  if (own) vkocc_context_destroy(own);
  if (!st) st = vkocc_derive_registers(p, n, &det->derived, m);
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
