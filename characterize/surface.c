/* Surface: P over a grid of (workgroup size, shared bytes). Each round creates all of its pipelines
 * first, in parallel through the persisted pipeline cache, then measures them one after the other
 * (measurement never waits on compilation). Refinement rounds bisect the shared-memory gaps between
 * neighbouring points whose P differs, down to refine_bytes, so every step of the surface is located. */
#include "array.h"
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
  core_kernel *kernels;
  uint32_t n;
  pthread_mutex_t lock;
  vkocc_status status;
  char error[1024];
  const vkocc_surface_options *o;
  uint32_t done;
} builder;

static void build_one(void *user, uint32_t i) {
  builder *b = user;
  pthread_mutex_lock(&b->lock);
  bool stop = b->status != VKOCC_OK; /* one failure ends the sweep: build no more */
  pthread_mutex_unlock(&b->lock);
  if (stop) return;
  vkocc_status s = probes_kernel_create(b->ctx, b->pts[i].wg_size, b->pts[i].shared_bytes, &b->kernels[i]);
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

static vkocc_status build_kernels(vkocc_context *ctx, const vkocc_surface_options *o, vkocc_surface_point *pts,
                                  uint32_t n, core_kernel *kernels) {
  builder b = {.ctx = ctx, .pts = pts, .kernels = kernels, .n = n, .o = o};
  pthread_mutex_init(&b.lock, NULL);
  util_parallel_for(n, o->threads, build_one, &b);
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
  *wg = util_xmalloc((maxwg / sg + 1) * sizeof **wg);
  for (uint32_t w = sg; w <= maxwg; w += sg) (*wg)[(*nwg)++] = w;
  /* 0, 1 KiB, 2 KiB, then steps of an eighth of the maximum (refinement finds the exact steps) */
  uint32_t maxs = d->max_shared_bytes;
  *shared = util_xmalloc(16 * sizeof **shared);
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
 * a row starts (hint_each: at every point that has one); otherwise the previous point's P is the hint. */
static vkocc_status measure_round(vkocc_context *ctx, probes_session *ps, const vkocc_calibration *cal,
                                  const vkocc_surface_options *o, vkocc_method method, uint32_t repeat,
                                  vkocc_surface_point *pts, const uint32_t *hints, bool hint_each, uint32_t n,
                                  vkocc_surface *out) {
  core_kernel *kernels = util_xcalloc(n ? n : 1, sizeof *kernels);
  double t0 = util_now_ns();
  vkocc_status s = build_kernels(ctx, o, pts, n, kernels);
  /* Drivers may finish a pipeline at its first dispatch (lavapipe compiles there): one tiny dispatch of
   * each belongs to pipeline creation, not to measurement. */
  if (!s) s = probes_first_use_batch(ps, kernels, n);
  out->pipelines_ms += (util_now_ns() - t0) / 1e6;
  out->pipelines += n;
  t0 = util_now_ns();
  uint32_t hint = 0, row_hint = 0;
  double sleep = 0, learned = 0;
  /* Batches: the combs of a chunk of points go to the device in one command buffer, each hinted
   * by its prediction (hint_each) or by the point of the same shared size in an earlier row, with that
   * point's sleep; the points a batch does not establish are measured one by one below. */
  bool batch = method == VKOCC_METHOD_COMB && repeat == 1;
  double *sleeps = util_xcalloc(n ? n : 1, sizeof *sleeps);
  for (uint32_t c0 = 0; c0 < n && !s;) {
    uint32_t c1 = c0 + 1;
    while (c1 < n && c1 - c0 < 32 && (hint_each || pts[c1].wg_size == pts[c0].wg_size)) c1++;
    uint32_t len = c1 - c0;
    bool *done = util_xcalloc(len, sizeof *done);
    vkocc_probe_result *res = util_xcalloc(len, sizeof *res);
    vkocc_probe_options *bo = util_xcalloc(len, sizeof *bo);
    if (batch) {
      for (uint32_t i = c0; i < c1; i++) {
        uint32_t h = hint_each && hints ? hints[i] : 0;
        double sl = learned;
        for (uint32_t j = c0; j-- > 0;)
          if (pts[j].shared_bytes == pts[i].shared_bytes && pts[j].P) {
            if (!h) h = pts[j].P;
            sl = sleeps[j];
            break;
          }
        bo[i - c0] = (vkocc_probe_options){.wg_size = pts[i].wg_size, .shared_bytes = pts[i].shared_bytes,
                                           .method = method, .repeat = 1, .hint = h, .sleep_start_ns = sl};
      }
      s = probes_measure_batch(ps, kernels + c0, cal, bo, len, res, done);
      if (s) s = vkocc_fail(s, "batched combs from wg %u, %u shared bytes: %s", pts[c0].wg_size, pts[c0].shared_bytes,
                            vkocc_last_error());
    }
    for (uint32_t i = c0; i < c1 && !s; i++) {
      /* Along a row P only falls, and with it the launch spread: the row's hint and grown sleep carry on.
       * A new row starts from the previous row's first P (P changes gradually with the workgroup size; a
       * wrong hint costs a doubling step, never a wrong answer). */
      if (i == 0 || pts[i].wg_size != pts[i - 1].wg_size) {
        hint = hints && hints[i] ? hints[i] : row_hint;
        sleep = 0;
        row_hint = 0;
      } else if (hint_each && hints && hints[i]) hint = hints[i];
      vkocc_probe_result r;
      if (done[i - c0]) r = res[i - c0];
      else {
        vkocc_probe_options po = {.wg_size = pts[i].wg_size, .shared_bytes = pts[i].shared_bytes, .method = method,
                                  .repeat = repeat, .hint = bo[i - c0].hint ? bo[i - c0].hint : hint,
                                  .sleep_start_ns = sleep > bo[i - c0].sleep_start_ns ? sleep : bo[i - c0].sleep_start_ns};
        if ((s = probes_measure(ps, &kernels[i], cal, &po, &r))) {
          s = vkocc_fail(s, "wg %u, %u shared bytes: %s", pts[i].wg_size, pts[i].shared_bytes, vkocc_last_error());
          break;
        }
        out->remeasured++;
      }
      point_from_result(&pts[i], &r);
      sleeps[i] = sleep = r.sleep_ns;
      if (r.sleep_ns > learned) learned = r.sleep_ns;
      if (!row_hint) row_hint = r.P;
      out->warmup_ms += r.warmup_wall_ns / 1e6;
      out->floor_ms += r.floor_ns * r.repeat / 1e6;
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
    free(done); free(res); free(bo);
    c0 = c1;
  }
  free(sleeps);
  out->measure_ms += (util_now_ns() - t0) / 1e6;
  for (uint32_t i = 0; i < n; i++) core_kernel_destroy(ctx, &kernels[i]);
  free(kernels);
  return s;
}

typedef struct {
  vkocc_context *ctx;
  probes_session *ps;
  const vkocc_calibration *cal;
  const vkocc_surface_options *o;
  vkocc_method method;
  uint32_t repeat;
  vkocc_surface *out;
} adaptive_run;

/* The adaptive plan's measurement callback: one batch = one round (its pipelines built together), each
 * point hinted with the model's prediction. */
static vkocc_status measure_batch(void *user, vkocc_surface_point *pts, uint32_t n) {
  adaptive_run *r = user;
  uint32_t *hints = util_xmalloc((n ? n : 1) * sizeof *hints);
  for (uint32_t i = 0; i < n; i++) hints[i] = pts[i].P;
  vkocc_status s = measure_round(r->ctx, r->ps, r->cal, r->o, r->method, r->repeat, pts, hints, true, n, r->out);
  free(hints);
  return s;
}


/* sorted copy without duplicates */
static uint32_t *sorted_unique(const uint32_t *v, uint32_t n, uint32_t *m) {
  uint32_t *c = util_xmalloc((n ? n : 1) * sizeof *c);
  memcpy(c, v, n * sizeof *c);
  qsort(c, n, sizeof *c, util_cmp_u32);
  *m = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!*m || c[*m - 1] != c[i]) c[(*m)++] = c[i];
  return c;
}

static vkocc_status adaptive(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_surface_options *o,
                             vkocc_method method, uint32_t repeat, const uint32_t *wg, uint32_t nwg, const uint32_t *sh,
                             uint32_t nsh, vkocc_surface *out) {
  probes_session ps;
  vkocc_status s = probes_session_create(ctx, &ps);
  if (s) return s;
  uint32_t nw, ns;
  uint32_t *w = sorted_unique(wg, nwg, &nw), *h = sorted_unique(sh, nsh, &ns);
  adaptive_run r = {ctx, &ps, cal, o, method, repeat, out};
  vkocc_adaptive_options ao = {.wg_sizes = w, .wg_count = nw, .shared = h, .shared_count = ns,
                               .no_refine = o->no_refine, .refine_bytes = o->refine_bytes, .checks = o->checks};
  vkocc_adaptive_stats st;
  s = vkocc_surface_adaptive(&ao, measure_batch, &r, &out->points, &out->count, &st);
  probes_session_destroy(&ps);
  free(w); free(h);
  if (s) { vkocc_surface_free(out); return s; }
  out->measured = st.measured;
  out->measurements = st.measurements;
  out->batches = st.batches;
  return VKOCC_OK;
}

static void append(vkocc_surface *out, uint32_t *cap, const vkocc_surface_point *p) {
  util_array_room(out->points, out->count, *cap, 256);
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
  if (!o.full) {
    s = adaptive(ctx, cal, &o, method, repeat, wg, nwg, sh, nsh, out);
    free(dwg); free(dsh);
    return s;
  }
  uint32_t cap = 0;
  for (uint32_t a = 0; a < nwg; a++)
    for (uint32_t b = 0; b < nsh; b++) {
      vkocc_surface_point p = {.wg_size = wg[a], .shared_bytes = sh[b]};
      append(out, &cap, &p);
    }
  free(dwg); free(dsh);
  qsort(out->points, out->count, sizeof *out->points, cmp_point);

  probes_session ps;
  if ((s = probes_session_create(ctx, &ps))) { vkocc_surface_free(out); return s; }
  s = measure_round(ctx, &ps, cal, &o, method, repeat, out->points, NULL, false, out->count, out);
  uint32_t batches = 1;
  uint32_t step = o.refine_bytes ? o.refine_bytes : 512;
  for (int round = 0; !s && !o.no_refine && round < 16; round++) {
    /* midpoints of shared-memory gaps wider than `step` whose ends differ */
    util_array mida = VKOCC_ARRAY_INIT, hintsa = VKOCC_ARRAY_INIT;
    for (uint32_t i = 0; i + 1 < out->count; i++) {
      vkocc_surface_point *l = &out->points[i], *r = &out->points[i + 1];
      if (l->wg_size != r->wg_size || l->P == r->P || r->shared_bytes - l->shared_bytes <= step) continue;
      uint32_t m = (l->shared_bytes + (r->shared_bytes - l->shared_bytes) / 2) / step * step;
      if (m <= l->shared_bytes || m >= r->shared_bytes) continue;
      util_array_append(&hintsa, uint32_t, l->P); /* P only falls with more shared memory: the left neighbour bounds it */
      util_array_append(&mida, vkocc_surface_point,
                         ((vkocc_surface_point){.wg_size = l->wg_size, .shared_bytes = m, .refined = true}));
    }
    uint32_t nmid = (uint32_t)util_array_num(&mida, vkocc_surface_point);
    vkocc_surface_point *mid = util_array_steal(&mida);
    uint32_t *hints = util_array_steal(&hintsa);
    if (nmid == 0) { free(mid); free(hints); break; }
    s = measure_round(ctx, &ps, cal, &o, method, repeat, mid, hints, false, nmid, out);
    batches++;
    for (uint32_t i = 0; i < nmid && !s; i++) append(out, &cap, &mid[i]);
    free(mid);
    free(hints);
    qsort(out->points, out->count, sizeof *out->points, cmp_point);
  }
  probes_session_destroy(&ps);
  if (s) vkocc_surface_free(out);
  else out->measured = out->measurements = out->count, out->batches = batches;
  return s;
}
