/* vkocc_fingerprint_measure: the characterization of a device (calibrate -> surface on the canonical grid
 * -> derive -> normalize -> fingerprint), measured or reused from the cache the CLI uses
 * ($XDG_CACHE_HOME/vkocc), as `vkocc fingerprint` does. The cache's names and its reader are io/'s
 * (io/fingerprint_cache.c), which the probes below this room read as well. */
#include "characterize.h"
#include "internal.h"
#include "io.h"
#include "probe_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <unistd.h>
#include <dirent.h>
#include <pthread.h>

vkocc_status characterize_fingerprint_cache_store(const vkocc_device_info *d, json_t *doc) {
  char path[1024], key[1024];
  vkocc_fingerprint_cache_path(d, path, sizeof path);
  if (!path[0]) return vkocc_fail(VKOCC_ERROR_RUNTIME, "no cache directory");
  io_fingerprint_cache_key(d, key, sizeof key);
  return util_cache_doc_write(path, vkocc_doc_schema_string(VKOCC_DOC_CACHE_SEAL), doc, key);
}

/* The adaptive surface measures the axes first (the first row and the first column, bisected a round per
 * level, each round waiting for its pipelines): their pipelines are built ahead, during the calibration. The
 * first point leads: it is measured alone, first. */
static void prebuild_axes(vkocc_context *ctx, const uint32_t *wg, uint32_t nw, const uint32_t *sh, uint32_t ns) {
  uint32_t pw[VKOCC_CANON_WG + VKOCC_CANON_SHARED], ps[VKOCC_CANON_WG + VKOCC_CANON_SHARED], n = 0;
  for (uint32_t j = 0; j < ns; j++) pw[n] = wg[0], ps[n++] = sh[j];
  for (uint32_t i = 1; i < nw; i++) pw[n] = wg[i], ps[n++] = sh[0];
  probes_prebuild_start(ctx, pw, ps, n);
}

static void *warm_signature(void *ctx) {
  characterize_signature_warm_pipelines(ctx);
  return NULL;
}

void characterize_fingerprint_ahead_start(vkocc_context *ctx, characterize_fingerprint_ahead *a) {
  const vkocc_device_info *d = vkocc_context_device(ctx);
  uint32_t wg[VKOCC_CANON_WG], sh[VKOCC_CANON_SHARED], nw = 0, ns = 0, maxwg = vkocc_device_max_wg_size(d);
  for (int i = 0; i < VKOCC_CANON_WG; i++)
    if (vkocc_canonical_wg[i] <= maxwg) wg[nw++] = vkocc_canonical_wg[i];
  for (int i = 0; i < VKOCC_CANON_SHARED; i++)
    if (vkocc_canonical_shared[i] <= d->max_shared_bytes) sh[ns++] = vkocc_canonical_shared[i];
  if (nw && ns) prebuild_axes(ctx, wg, nw, sh, ns);
  /* the signature's pipelines too, on a thread of their own, into the pipeline cache */
  a->warming = ctx->subgroup_clock && probes_prebuild_pays(ctx) && pthread_create(&a->warm, NULL, warm_signature, ctx) == 0;
}

void characterize_fingerprint_ahead_finish(vkocc_context *ctx, characterize_fingerprint_ahead *a) {
  probes_prebuild_finish(ctx);
  if (a->warming) pthread_join(a->warm, NULL);
  a->warming = false;
}

vkocc_status vkocc_fingerprint_measure(vkocc_context *ctx, const vkocc_fingerprint_options *options,
                                       vkocc_fingerprint *out, vkocc_fingerprint_details *details) {
  vkocc_fingerprint_options defaults = {0};
  const vkocc_fingerprint_options *o = options ? options : &defaults;
  vkocc_fingerprint_details local, *det = details ? details : &local;
  memset(det, 0, sizeof *det);
  vkocc_clear_error();
  if (!ctx || !out) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_fingerprint_measure: no context or no output");
  if ((unsigned)o->method > VKOCC_METHOD_BOTH || (unsigned)o->calibration > VKOCC_CALIBRATION_QUICK)
    return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_fingerprint_measure: method %u or calibration preset %u is unknown",
                      (unsigned)o->method, (unsigned)o->calibration);
  const vkocc_device_info *d = vkocc_context_device(ctx);
  /* without the device clock the device had, the measurement differs: it neither reuses nor replaces the cache */
  bool use_cache = !o->no_cache && !(d->shader_device_clock && !vkocc_context_has_device_clock(ctx));
  if (use_cache) vkocc_fingerprint_cache_path(d, det->cache_path, sizeof det->cache_path);
  if (use_cache && !o->fresh && det->cache_path[0] && io_fingerprint_cache_read(d, det->cache_path, o->method, out, det)) {
    vkocc_clear_error();
    if (!details) vkocc_fingerprint_details_free(det);
    return VKOCC_OK;
  }
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  if ((o->method & VKOCC_METHOD_COMB) && !vkocc_context_has_device_clock(ctx))
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "method %s needs the realtime shader clock, which %s lacks here",
                      vkocc_method_name(o->method), d->name);
  double t0 = vkocc_now_ms();
  /* the canonical grid, clipped to what the device can run */
  uint32_t wg[VKOCC_CANON_WG], sh[VKOCC_CANON_SHARED], nw = 0, ns = 0, maxwg = vkocc_device_max_wg_size(d);
  for (int i = 0; i < VKOCC_CANON_WG; i++)
    if (vkocc_canonical_wg[i] <= maxwg) wg[nw++] = vkocc_canonical_wg[i];
  for (int i = 0; i < VKOCC_CANON_SHARED; i++)
    if (vkocc_canonical_shared[i] <= d->max_shared_bytes) sh[ns++] = vkocc_canonical_shared[i];
  vkocc_status st = VKOCC_OK;
  characterize_fingerprint_ahead ahead;
  characterize_fingerprint_ahead_start(ctx, &ahead);
  vkocc_calibrate_options co;
  vkocc_calibrate_preset(o->calibration, &co);
  vkocc_calibration cal;
  if ((st = vkocc_calibrate(ctx, &co, &cal))) { characterize_fingerprint_ahead_finish(ctx, &ahead); return st; }
  vkocc_surface_options so = {.wg_sizes = wg, .wg_count = nw, .shared = sh, .shared_count = ns, .no_refine = true,
                              .method = o->method, .progress = o->progress, .user = o->user};
  vkocc_surface s;
  st = vkocc_surface_measure(ctx, &cal, &so, &s);
  characterize_fingerprint_ahead_finish(ctx, &ahead);
  if (st) return st;
  if ((st = vkocc_derive(s.points, s.count, s.subgroup_size, &det->derived)) ||
      (st = vkocc_fingerprint_from_surface(&s, &det->derived, out))) {
    vkocc_surface_free(&s);
    return st;
  }
  /* the architecture signature: what occupancy cannot tell apart (recipe c3); an unstable one is refused */
  if ((st = vkocc_signature_measure(ctx, NULL, &out->signature))) {
    vkocc_surface_free(&s);
    return st;
  }
  vkocc_fingerprint_set_ids(out);
  det->elapsed_ms = vkocc_now_ms() - t0;
  det->device = s.device;
  det->method = s.method;
  json_t *doc = io_fingerprint_document(out, &s, &cal, &det->derived, det->elapsed_ms);
  vkocc_surface_free(&s);
  if (use_cache && det->cache_path[0] && characterize_fingerprint_cache_store(d, doc))
    vkocc_clear_error(); /* a cache that cannot be written is no error */
  det->document = doc;
  if (!details) vkocc_fingerprint_details_free(det);
  return VKOCC_OK;
}

/* The cache entry of the device and queue family the options name, from the device list alone (an instance, no
 * device opened); false where it misses or the choice does not resolve (measuring then reports it). */
static bool any_fingerprint_cached(void) {
  char dir[900];
  if (util_cache_dir(dir, sizeof dir)) { vkocc_clear_error(); return false; }
  DIR *dh = opendir(dir);
  if (!dh) return false;
  bool any = false;
  for (struct dirent *e; !any && (e = readdir(dh));) any = !strncmp(e->d_name, "fingerprint-", 12);
  closedir(dh);
  return any;
}

static bool cluster_id_cached(const vkocc_context_options *o, vkocc_fingerprint *fp, vkocc_fingerprint_details *det) {
  vkocc_device_info *d;
  uint32_t n, idx, fam;
  bool fell_back, hit = false;
  /* the device list is an instance of its own (tens of milliseconds on a GPU's driver): not for an empty cache */
  if (!any_fingerprint_cached()) return false;
  if (vkocc_enumerate_devices(&d, &n)) { vkocc_clear_error(); return false; }
  const char *spec = o && o->device ? o->device : getenv("VKOCC_DEVICE");
  const char *q = o && o->queue ? o->queue : getenv("VKOCC_QUEUE");
  if (!vkocc_select_device_from(d, n, spec, "device", &idx) &&
      !vkocc_select_queue_family(&d[idx], q, "queue", &fam, &fell_back)) {
    char choice[16] = "compute";
    if (q && *q) snprintf(choice, sizeof choice, "%s", q);
    for (char *p = choice; *p; p++) *p = (char)tolower((unsigned char)*p);
    vkocc_device_use_queue_family(&d[idx], fam, choice);
    hit = vkocc_fingerprint_from_cache(&d[idx], 0, fp, det);
  }
  vkocc_clear_error();
  free(d);
  return hit;
}

vkocc_status vkocc_cluster_id_only(const vkocc_context_options *options, bool fresh, vkocc_cluster_id_answer *out) {
  vkocc_clear_error();
  if (!out) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_cluster_id_only: no output");
  memset(out, 0, sizeof *out);
  double t0 = vkocc_now_ms();
  vkocc_fingerprint fp;
  vkocc_fingerprint_details det;
  vkocc_status st = VKOCC_OK;
  bool disabled_clock = options && options->disable_shader_clock; /* such a measurement is never cached */
  if (fresh || disabled_clock || !cluster_id_cached(options, &fp, &det)) {
    vkocc_context *ctx;
    if ((st = vkocc_context_create(options, &ctx))) return st;
    vkocc_fingerprint_options fo = {.fresh = fresh};
    st = vkocc_fingerprint_measure(ctx, &fo, &fp, &det);
    vkocc_context_destroy(ctx);
    if (st) { vkocc_fingerprint_details_free(&det); return st; }
  }
  snprintf(out->cluster_id, sizeof out->cluster_id, "%s", fp.cluster_id);
  snprintf(out->occupancy_id, sizeof out->occupancy_id, "%s", fp.occupancy_id);
  snprintf(out->device_name, sizeof out->device_name, "%s", det.device.name);
  out->queue_family = det.device.compute_queue_family;
  out->from_cache = det.from_cache;
  vkocc_fingerprint_details_free(&det);
  out->elapsed_ms = vkocc_now_ms() - t0;
  return VKOCC_OK;
}
