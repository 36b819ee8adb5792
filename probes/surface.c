/* Surface: P over a grid of (workgroup size, shared bytes). Each round creates all of its pipelines
 * first, in parallel through the persisted pipeline cache, then measures them one after the other
 * (measurement never waits on compilation). Refinement rounds bisect the shared-memory gaps between
 * neighbouring points whose P differs, down to refine_bytes, so every step of the surface is located. */
#include "probe_internal.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  vkocc_context *ctx;
  vkocc_surface_point *pts;
  vkocc_kernel *kernels;
  uint32_t n, next;
  pthread_mutex_t lock;
  vkocc_status status;
  char error[1024];
  const vkocc_surface_options *o;
  uint32_t done;
} builder;

static void *build_worker(void *arg) {
  builder *b = arg;
  for (;;) {
    pthread_mutex_lock(&b->lock);
    uint32_t i = b->next++;
    bool stop = b->status != VKOCC_OK;
    pthread_mutex_unlock(&b->lock);
    if (i >= b->n || stop) break;
    vkocc_status s = vkocc_probe_kernel_create(b->ctx, b->pts[i].wg_size, b->pts[i].shared_bytes, &b->kernels[i]);
    pthread_mutex_lock(&b->lock);
    if (s && b->status == VKOCC_OK) {
      b->status = s;
      snprintf(b->error, sizeof b->error, "pipeline for wg %u, %u shared bytes: %s", b->pts[i].wg_size,
               b->pts[i].shared_bytes, vkocc_last_error());
    }
    b->done++;
    if (b->o->progress && !s) b->o->progress(b->o->user, "pipelines", b->done, b->n);
    pthread_mutex_unlock(&b->lock);
  }
  return NULL;
}

static vkocc_status build_kernels(vkocc_context *ctx, const vkocc_surface_options *o, vkocc_surface_point *pts,
                                  uint32_t n, vkocc_kernel *kernels) {
  builder b = {.ctx = ctx, .pts = pts, .kernels = kernels, .n = n, .o = o};
  pthread_mutex_init(&b.lock, NULL);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  uint32_t threads = o->threads ? o->threads : (uint32_t)(cpus > 8 ? 8 : cpus > 0 ? cpus : 1);
  if (threads > n) threads = n ? n : 1;
  pthread_t tid[64];
  if (threads > 64) threads = 64;
  uint32_t started = 0;
  for (uint32_t t = 0; t < threads; t++)
    if (pthread_create(&tid[t], NULL, build_worker, &b) == 0) started++;
  if (started == 0) build_worker(&b);
  for (uint32_t t = 0; t < started; t++) pthread_join(tid[t], NULL);
  pthread_mutex_destroy(&b.lock);
  if (b.status) return vkocc_fail(b.status, "%s", b.error);
  return VKOCC_OK;
}

static int cmp_point(const void *a, const void *b) {
  const vkocc_surface_point *x = a, *y = b;
  if (x->wg_size != y->wg_size) return x->wg_size < y->wg_size ? -1 : 1;
  return (x->shared_bytes > y->shared_bytes) - (x->shared_bytes < y->shared_bytes);
}

void vkocc_surface_default_grid(const vkocc_device_info *d, uint32_t **wg, uint32_t *nwg, uint32_t **shared,
                                uint32_t *nshared) {
  uint32_t sg = d->subgroup_size ? d->subgroup_size : 32;
  uint32_t maxwg = vkocc_device_max_wg_size(d);
  *nwg = 0;
  *wg = vkocc_xmalloc((maxwg / sg + 1) * sizeof **wg);
  for (uint32_t w = sg; w <= maxwg; w += sg) (*wg)[(*nwg)++] = w;
  /* 0, 1 KiB, 2 KiB, then steps of an eighth of the maximum (refinement finds the exact steps) */
  uint32_t maxs = d->max_shared_bytes;
  *shared = vkocc_xmalloc(16 * sizeof **shared);
  *nshared = 0;
  (*shared)[(*nshared)++] = 0;
  if (maxs >= 1024) (*shared)[(*nshared)++] = 1024;
  if (maxs >= 2048) (*shared)[(*nshared)++] = 2048;
  for (uint32_t i = 1; i <= 8; i++) {
    uint32_t v = (uint32_t)((uint64_t)maxs * i / 8) & ~255u;
    if (v > (*shared)[*nshared - 1]) (*shared)[(*nshared)++] = v;
  }
  if ((*shared)[*nshared - 1] != maxs) (*shared)[(*nshared)++] = maxs;
}

static void point_from_result(vkocc_surface_point *p, const vkocc_probe_result *r) {
  p->P = r->P;
  p->comb_P = (r->method & VKOCC_METHOD_COMB) ? r->comb_median : 0;
  p->bisect_P = (r->method & VKOCC_METHOD_BISECT) ? r->bisect_median : 0;
  p->agree = r->agree;
}

/* Measures pts[0..n) (kernels built first). hints: an expected P for each point (NULL: none), used where
 * a row starts; within a row the previous point's P is the hint. */
static vkocc_status measure_round(vkocc_context *ctx, vkocc_probe_session *ps, const vkocc_calibration *cal,
                                  const vkocc_surface_options *o, vkocc_method method, uint32_t repeat,
                                  vkocc_surface_point *pts, const uint32_t *hints, uint32_t n, vkocc_surface *out) {
  vkocc_kernel *kernels = vkocc_xcalloc(n ? n : 1, sizeof *kernels);
  double t0 = vkocc_now_ns();
  vkocc_status s = build_kernels(ctx, o, pts, n, kernels);
  /* Drivers may finish a pipeline at its first dispatch (lavapipe compiles there): one tiny dispatch of
   * each belongs to pipeline creation, not to measurement. */
  for (uint32_t i = 0; i < n && !s; i++) s = vkocc_probe_first_use(ps, &kernels[i]);
  out->pipelines_ms += (vkocc_now_ns() - t0) / 1e6;
  out->pipelines += n;
  t0 = vkocc_now_ns();
  uint32_t hint = 0, row_hint = 0;
  double sleep = 0;
  for (uint32_t i = 0; i < n && !s; i++) {
    /* Along a row P only falls, and with it the launch spread: the row's hint and grown sleep carry on.
     * A new row starts from the previous row's first P (P changes gradually with the workgroup size; a
     * wrong hint costs a doubling step, never a wrong answer). */
    if (i == 0 || pts[i].wg_size != pts[i - 1].wg_size) {
      hint = hints && hints[i] ? hints[i] : row_hint;
      sleep = 0;
      row_hint = 0;
    }
    vkocc_probe_options po = {.wg_size = pts[i].wg_size, .shared_bytes = pts[i].shared_bytes, .method = method,
                              .repeat = repeat, .hint = hint, .sleep_start_ns = sleep};
    vkocc_probe_result r;
    if ((s = vkocc_probe_measure(ps, &kernels[i], cal, &po, &r))) {
      s = vkocc_fail(s, "wg %u, %u shared bytes: %s", pts[i].wg_size, pts[i].shared_bytes, vkocc_last_error());
      break;
    }
    point_from_result(&pts[i], &r);
    sleep = r.sleep_ns;
    if (!row_hint) row_hint = r.P;
    out->warmup_ms += r.warmup_wall_ns / 1e6;
    for (uint32_t k = 0; k < r.repeat; k++) {
      out->comb_gpu_ms += r.reps[k].comb_gpu_ns / 1e6;
      out->comb_dispatches += r.reps[k].comb_dispatches;
      out->comb_ms += r.reps[k].comb_wall_ns / 1e6;
      out->bisect_ms += r.reps[k].bisect_wall_ns / 1e6;
    }
    hint = r.P;
    vkocc_probe_result_free(&r);
    if (o->progress) o->progress(o->user, "measure", i + 1, n);
  }
  out->measure_ms += (vkocc_now_ns() - t0) / 1e6;
  for (uint32_t i = 0; i < n; i++) vkocc_kernel_destroy(ctx, &kernels[i]);
  free(kernels);
  return s;
}

static void append(vkocc_surface *out, uint32_t *cap, const vkocc_surface_point *p) {
  if (out->count == *cap) out->points = vkocc_xrealloc(out->points, (*cap = *cap ? 2 * *cap : 256) * sizeof *out->points);
  out->points[out->count++] = *p;
}

vkocc_status vkocc_surface_measure(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_surface_options *opt,
                                   vkocc_surface *out) {
  vkocc_clear_error();
  vkocc_surface_options o = *opt;
  memset(out, 0, sizeof *out);
  out->device = ctx->info;
  out->has_device = true;
  out->subgroup_size = ctx->info.subgroup_size;
  out->cache_warm = ctx->cache_was_loaded;
  vkocc_method method = o.method ? o.method : (ctx->device_clock ? VKOCC_METHOD_COMB : VKOCC_METHOD_BISECT);
  if ((method & VKOCC_METHOD_COMB) && !ctx->device_clock)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "the comb needs the realtime shader clock, which %s lacks here; "
                      "use --method bisect", ctx->info.name);
  uint32_t repeat = o.repeat ? o.repeat : 1;
  out->method = method;
  out->repeat = repeat;
  uint32_t *wg = (uint32_t *)o.wg_sizes, *sh = (uint32_t *)o.shared, nwg = o.wg_count, nsh = o.shared_count;
  uint32_t *dwg = NULL, *dsh = NULL, ndwg, ndsh;
  vkocc_surface_default_grid(&ctx->info, &dwg, &ndwg, &dsh, &ndsh);
  if (!wg) wg = dwg, nwg = ndwg;
  if (!sh) sh = dsh, nsh = ndsh;
  vkocc_status s = VKOCC_OK;
  for (uint32_t i = 0; i < nwg && !s; i++) s = vkocc_probe_check_point(&ctx->info, wg[i], 0);
  for (uint32_t i = 0; i < nsh && !s; i++) s = vkocc_probe_check_point(&ctx->info, wg[0], sh[i]);
  if (s || nwg == 0 || nsh == 0) {
    free(dwg); free(dsh);
    return s ? s : vkocc_fail(VKOCC_ERROR_USAGE, "the surface grid is empty");
  }
  uint32_t cap = 0;
  for (uint32_t a = 0; a < nwg; a++)
    for (uint32_t b = 0; b < nsh; b++) {
      vkocc_surface_point p = {.wg_size = wg[a], .shared_bytes = sh[b]};
      append(out, &cap, &p);
    }
  free(dwg); free(dsh);
  qsort(out->points, out->count, sizeof *out->points, cmp_point);

  vkocc_probe_session ps;
  if ((s = vkocc_probe_session_create(ctx, &ps))) { vkocc_surface_free(out); return s; }
  s = measure_round(ctx, &ps, cal, &o, method, repeat, out->points, NULL, out->count, out);
  uint32_t step = o.refine_bytes ? o.refine_bytes : 512;
  for (int round = 0; !s && !o.no_refine && round < 16; round++) {
    /* midpoints of shared-memory gaps wider than `step` whose ends differ */
    vkocc_surface_point *mid = NULL;
    uint32_t nmid = 0, mcap = 0, *hints = NULL;
    for (uint32_t i = 0; i + 1 < out->count; i++) {
      vkocc_surface_point *l = &out->points[i], *r = &out->points[i + 1];
      if (l->wg_size != r->wg_size || l->P == r->P || r->shared_bytes - l->shared_bytes <= step) continue;
      uint32_t m = (l->shared_bytes + (r->shared_bytes - l->shared_bytes) / 2) / step * step;
      if (m <= l->shared_bytes || m >= r->shared_bytes) continue;
      if (nmid == mcap) {
        mcap = mcap ? 2 * mcap : 64;
        mid = vkocc_xrealloc(mid, mcap * sizeof *mid);
        hints = vkocc_xrealloc(hints, mcap * sizeof *hints);
      }
      hints[nmid] = l->P; /* P only falls with more shared memory: the left neighbour bounds it */
      mid[nmid++] = (vkocc_surface_point){.wg_size = l->wg_size, .shared_bytes = m, .refined = true};
    }
    if (nmid == 0) { free(mid); break; }
    s = measure_round(ctx, &ps, cal, &o, method, repeat, mid, hints, nmid, out);
    for (uint32_t i = 0; i < nmid && !s; i++) append(out, &cap, &mid[i]);
    free(mid);
    free(hints);
    qsort(out->points, out->count, sizeof *out->points, cmp_point);
  }
  vkocc_probe_session_destroy(&ps);
  if (s) vkocc_surface_free(out);
  return s;
}

void vkocc_surface_free(vkocc_surface *s) {
  free(s->points);
  s->points = NULL;
  s->count = 0;
}
