/* Benchmark (figures, not pass/fail), the device barrier's demonstrations:
 *  stencil:   STEPS steps of a 3-point stencil in ONE dispatch of P workgroups with the device-wide barrier
 *             between steps (kernels/barrier/stencil.comp -DFUSED), against the same steps as STEPS dispatches
 *             with pipeline barriers between them; both checked against the CPU, timed in the same run
 *             (queue timestamps around the dispatches, reps interleaved), medians with min..max.
 *  histogram: the persistent histogram (kernels/barrier/histogram.comp) with its workgroup count set to P of
 *             its own pipeline, against a sweep of counts (the best of it = the tuned count) and a fixed one.
 * usage: bench_barrier [--device D] [--n N] [--steps K] [--wg W] [--reps R] [--keys N] [--fixed G]
 *                      [--bound-ms MS] [--fused-div D] [--only stencil|histogram] [--json FILE] [--no-cache]
 *                      [--tune-hist kernels/histogram/histogram.comp [--tune-config WG,GRAIN,COPIES]] (helper tune's kernel)                                         */
#include "persistent.h"
#include "io.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t n_elems = 0, steps = 100, wg = 256, reps = 15, nkeys = 0, fixed_groups = 1024, bins = 256, grain = 16;
static double bound_ms = 1000;
static uint32_t fused_div = 1; /* fused stencil with P / fused_div workgroups (fewer waiters, still all resident) */
static bool use_cache = true;

static uint32_t rng_state = 2463534242u;
static uint32_t rng(void) { rng_state ^= rng_state << 13; rng_state ^= rng_state >> 17; rng_state ^= rng_state << 5; return rng_state; }

static int fail(const char *what) {
  fprintf(stderr, "bench_barrier: %s: %s\n", what, vkocc_last_error());
  return 1;
}

static void summarize(double *v, uint32_t n, vkocc_summary *s) { vkocc_summarize(v, n, s); }
static json_t *sum_json(const vkocc_summary *s) {
  return json_pack("{s:f, s:f, s:f, s:f, s:i}", "median_ms", s->median, "min_ms", s->min, "max_ms", s->max, "mad_ms",
                   s->mad, "n", (json_int_t)s->n);
}

static void stencil_ref(uint32_t *v, uint32_t n, uint32_t k) {
  uint32_t *a = v, *b = v + n;
  for (uint32_t s = 0; s < k; s++) {
    for (uint32_t i = 0; i < n; i++) {
      uint32_t l = i ? i - 1 : n - 1, r = i + 1 == n ? 0 : i + 1;
      b[i] = 3u * a[l] + 5u * a[i] + 7u * a[r] + s;
    }
    uint32_t *t = a; a = b; b = t;
  }
  if (a != v) memcpy(v, a, 4ull * n);
}

static int bench_stencil(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_barrier_bounds *b, json_t *doc) {
  const char *fdef[] = {"FUSED=1"};
  uint32_t *spv_f, *spv_m;
  size_t wf, wm;
  const char *name;
  if (persistent_pk_compile("kernels/barrier/stencil.comp", NULL, b, fdef, 1, &spv_f, &wf, &name) ||
      persistent_pk_compile("kernels/barrier/stencil.comp", NULL, b, NULL, 0, &spv_m, &wm, &name))
    return fail("compiling the stencil");
  uint32_t spec[1] = {wg}, P;
  bool cached;
  double t0 = vkocc_now_ms();
  if (persistent_pk_measure(ctx, cal, spv_f, wf, "stencil.comp (FUSED)", spec, 1, use_cache, &P, &cached))
    return fail("P of the fused stencil");
  double pms = vkocc_now_ms() - t0;
  uint32_t G = P / fused_div ? P / fused_div : 1;
  core_kernel kf, km;
  if (core_kernel_create(ctx, spv_f, wf * 4, 2, 12, spec, 1, &kf) || core_kernel_create(ctx, spv_m, wm * 4, 2, 12, spec, 1, &km))
    return fail("stencil pipelines");
  free(spv_f);
  free(spv_m);
  uint32_t n = n_elems;
  VkDeviceSize sb = VKOCC_BARRIER_STATE_WORDS * 4, db = 8ull * n;
  core_buffer state, data, host;
  if (core_buffer_create(ctx, sb, false, &state) || core_buffer_create(ctx, db, false, &data) ||
      core_buffer_create(ctx, sb + 2 * db, true, &host))
    return fail("stencil buffers");
  core_buffer *bufs[2] = {&state, &data};
  core_kernel_bind(ctx, &kf, bufs);
  core_kernel_bind(ctx, &km, bufs);
  /* host: [state][initial v (2n)][read-back v (2n)] */
  uint32_t *hs = host.map, *init = hs + VKOCC_BARRIER_STATE_WORDS, *back = init + 2 * n;
  for (uint32_t i = 0; i < n; i++) init[i] = rng();
  memset(init + n, 0, 4ull * n);
  uint32_t *ref = util_xmalloc(8ull * n);
  memcpy(ref, init, 8ull * n);
  stencil_ref(ref, n, steps);
  uint32_t half = steps & 1;
  typedef struct { uint32_t n, steps, first; } push_t;
  push_t pf = {n, steps, 0};
  push_t *pm = util_xmalloc(steps * sizeof *pm);
  persistent_pk_dispatch *dm = util_xmalloc(steps * sizeof *dm);
  uint32_t mgroups = (n + wg - 1) / wg;
  if (mgroups > ctx->info.max_wg_count_x) mgroups = ctx->info.max_wg_count_x;
  for (uint32_t s = 0; s < steps; s++) {
    pm[s] = (push_t){n, 1, s};
    dm[s] = (persistent_pk_dispatch){&km, &pm[s], mgroups};
  }
  double *tf = util_xmalloc((reps + 1) * sizeof *tf), *tm = util_xmalloc((reps + 1) * sizeof *tm);
  uint32_t bad_f = 0, bad_m = 0, timeouts = 0, max_wait_ticks = 0;
  uint64_t timeout_ns = (uint64_t)(10e9 + steps * bound_ms * 1e6);
  for (uint32_t r = 0; r <= reps; r++) { /* rep 0: warm-up (first dispatch of each pipeline), not counted */
    for (int which = 0; which < 2; which++) {
      vkocc_barrier_state_init(hs, b);
      persistent_pk_copy pre[2] = {{&host, &state, 0, 0, sb}, {&host, &data, sb, 0, db}};
      persistent_pk_copy post[1] = {{&data, &host, 0, sb + db, db}};
      persistent_pk_copy post_state = {&state, &host, 0, 0, sb};
      persistent_pk_copy posts[2] = {post[0], post_state};
      persistent_pk_dispatch df = {&kf, &pf, G};
      double gpu;
      vkocc_status s = which == 0 ? persistent_pk_submit(ctx, pre, 2, &df, 1, posts, 2, timeout_ns, &gpu, NULL)
                                  : persistent_pk_submit(ctx, pre, 2, dm, steps, posts, 2, timeout_ns, &gpu, NULL);
      if (s) return fail(which == 0 ? "fused stencil" : "stencil dispatches");
      bool ok = !memcmp(back + (size_t)half * n, ref, 4ull * n);
      if (which == 0) {
        if (hs[VKOCC_BARRIER_ABORT]) timeouts++;
        if (hs[VKOCC_BARRIER_MAX_WAIT] > max_wait_ticks) max_wait_ticks = hs[VKOCC_BARRIER_MAX_WAIT];
        bad_f += !ok;
        if (r) tf[r - 1] = gpu / 1e6;
      } else {
        bad_m += !ok;
        if (r) tm[r - 1] = gpu / 1e6;
      }
    }
  }
  vkocc_summary sf, sm;
  summarize(tf, reps, &sf);
  summarize(tm, reps, &sm);
  double speedup = sm.median / sf.median;
  printf("stencil: n %u, %u steps, wg %u; fused: %u workgroups (P = %u, %s, %.0f ms), device barrier between steps; "
         "separate: %u dispatches of %u workgroups\n", n, steps, wg, G, P, cached ? "cache" : "measured", pms, steps, mgroups);
  printf("  fused    %.3f ms median (%.3f..%.3f, MAD %.3f), %u of %u runs wrong, %u timed out, longest wait %.3f ms\n",
         sf.median, sf.min, sf.max, sf.mad, bad_f, reps + 1, timeouts, max_wait_ticks * b->ns_per_tick / 1e6);
  printf("  separate %.3f ms median (%.3f..%.3f, MAD %.3f), %u of %u runs wrong\n", sm.median, sm.min, sm.max, sm.mad,
         bad_m, reps + 1);
  printf("  speedup of one dispatch with the device barrier: %.2fx (median over median; fastest over fastest %.2fx)\n",
         speedup, sm.min / sf.min);
  json_object_set_new(doc, "stencil", json_pack("{s:i, s:i, s:i, s:i, s:b, s:i, s:f, s:i, s:o, s:o, s:i, s:i, s:i, s:i, s:f, s:f, s:f}",
      "n", (json_int_t)n, "steps", (json_int_t)steps, "wg", (json_int_t)wg, "P", (json_int_t)P, "P_cached", cached,
      "fused_groups", (json_int_t)G,
      "P_measure_ms", pms, "separate_groups", (json_int_t)mgroups, "fused", sum_json(&sf), "separate", sum_json(&sm),
      "fused_wrong", (json_int_t)bad_f, "separate_wrong", (json_int_t)bad_m, "fused_timed_out", (json_int_t)timeouts,
      "runs_each", (json_int_t)(reps + 1), "speedup_median", speedup, "speedup_fastest", sm.min / sf.min,
      "longest_wait_ms", max_wait_ticks * b->ns_per_tick / 1e6));
  free(tf); free(tm); free(pm); free(dm); free(ref);
  core_buffer_destroy(ctx, &host); core_buffer_destroy(ctx, &data); core_buffer_destroy(ctx, &state);
  core_kernel_destroy(ctx, &kf); core_kernel_destroy(ctx, &km);
  return (bad_f || bad_m || timeouts) ? 1 : 0;
}

static int cmp_u32(const void *a, const void *b) { uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b; return x < y ? -1 : x > y; }

/* tune_path: helper "tune"'s kernels/histogram/histogram.comp (VARIANT_PERSISTENT: bindings 0 keys, 1 bins,
 * bin = key >> 24, spec wg, grain, copies; a grid-stride loop), else ours (bindings 0 state, 1 keys, 2 bins,
 * bin = key % bins, spec wg, bins, grain; the atomic work counter). */
static const char *tune_path;
static uint32_t tune_wg = 512, tune_grain = 16, tune_copies = 1;
static const uint32_t tune_grid[] = {128, 512, 2048, 8192};

static int bench_histogram(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_barrier_bounds *b, json_t *doc) {
  uint32_t *spv;
  size_t words;
  const char *name;
  const char *tdef[] = {"VARIANT_PERSISTENT=1"};
  bool tune = tune_path != NULL;
  if (tune) { wg = tune_wg; grain = tune_grain; bins = 256; }
  if (persistent_pk_compile("kernels/barrier/histogram.comp", tune_path, b, tdef, tune ? 1 : 0, &spv, &words, &name))
    return fail("compiling the histogram");
  uint32_t spec[3] = {wg, bins, grain}, P;
  if (tune) spec[1] = tune_grain, spec[2] = tune_copies;
  bool cached;
  double t0 = vkocc_now_ms();
  if (persistent_pk_measure(ctx, cal, spv, words, "histogram.comp", spec, 3, use_cache, &P, &cached)) return fail("P of the histogram");
  double pms = vkocc_now_ms() - t0;
  core_kernel k;
  if (core_kernel_create(ctx, spv, words * 4, tune ? 2 : 3, 4, spec, 3, &k)) return fail("histogram pipeline");
  free(spv);
  uint32_t n = nkeys;
  VkDeviceSize sb = VKOCC_BARRIER_STATE_WORDS * 4, kb = 4ull * n, bb = 4ull * bins;
  core_buffer state, keys, hbins, host;
  if (core_buffer_create(ctx, sb, false, &state) || core_buffer_create(ctx, kb, false, &keys) ||
      core_buffer_create(ctx, bb, false, &hbins) || core_buffer_create(ctx, sb + 2 * bb, true, &host))
    return fail("histogram buffers");
  uint32_t *kh = util_xmalloc(kb), *ref = util_xcalloc(bins, 4);
  for (uint32_t i = 0; i < n; i++) { kh[i] = rng(); ref[tune ? kh[i] >> 24 : kh[i] % bins]++; }
  if (core_buffer_upload(ctx, &keys, kh, kb)) return fail("uploading keys");
  free(kh);
  core_buffer *bufs[3] = {&state, &keys, &hbins}, *tbufs[2] = {&keys, &hbins};
  core_kernel_bind(ctx, &k, tune ? tbufs : bufs);
  uint32_t *hs = host.map, *zero = hs + VKOCC_BARRIER_STATE_WORDS, *back = zero + bins;
  memset(zero, 0, bb);
  /* the counts: P, a sweep around it (its best is the tuned count), the fixed count */
  uint32_t cand[32], nc = 0;
  const double mult[] = {0.125, 0.25, 0.5, 1, 2, 4, 8, 16};
  for (uint32_t i = 0; i < 8; i++) {
    double g = P * mult[i];
    uint32_t gi = g < 1 ? 1 : (uint32_t)g;
    if (gi > ctx->info.max_wg_count_x) continue;
    bool dup = false;
    for (uint32_t j = 0; j < nc; j++) dup |= cand[j] == gi;
    if (!dup) cand[nc++] = gi;
  }
  uint32_t extra[5] = {fixed_groups, 0, 0, 0, 0}, ne = 1;
  if (tune) for (uint32_t i = 0; i < 4; i++) extra[ne++] = tune_grid[i];
  for (uint32_t e = 0; e < ne; e++) {
    bool dupf = false;
    for (uint32_t j = 0; j < nc; j++) dupf |= cand[j] == extra[e];
    if (!dupf && extra[e] <= ctx->info.max_wg_count_x) cand[nc++] = extra[e];
  }
  qsort(cand, nc, sizeof cand[0], cmp_u32);
  double *t = util_xmalloc((size_t)nc * reps * sizeof *t);
  uint32_t wrong = 0;
  uint32_t push = n;
  for (uint32_t r = 0; r <= reps; r++) /* interleaved; rep 0 warms up */
    for (uint32_t c = 0; c < nc; c++) {
      vkocc_barrier_state_init(hs, b);
      persistent_pk_copy pre[2] = {{&host, &hbins, sb, 0, bb}, {&host, &state, 0, 0, sb}};
      persistent_pk_copy post[1] = {{&hbins, &host, 0, sb + bb, bb}};
      persistent_pk_dispatch d = {&k, &push, cand[c]};
      double gpu;
      if (persistent_pk_submit(ctx, pre, tune ? 1 : 2, &d, 1, post, 1, 60000000000ull, &gpu, NULL)) return fail("histogram");
      wrong += memcmp(back, ref, bb) != 0;
      if (r) t[c * reps + r - 1] = gpu / 1e6;
    }
  printf("histogram (%s): %u keys, %u bins, wg %u, grain %u (tiles of %u keys)%s; P = %u (%s, %.0f ms)\n",
         tune ? tune_path : "kernels/barrier/histogram.comp", n, bins, wg, grain, wg * grain,
         tune ? ", VARIANT_PERSISTENT, grid-stride" : ", atomic work counter", P, cached ? "cache" : "measured", pms);
  json_t *pts = json_array();
  double best = 1e30, atP = 0, atFixed = 0;
  uint32_t bestG = 0;
  for (uint32_t c = 0; c < nc; c++) {
    vkocc_summary s;
    summarize(t + c * reps, reps, &s);
    bool in_grid = false;
    for (uint32_t i = 0; tune && i < 4; i++) in_grid |= cand[c] == tune_grid[i];
    printf("  %7u workgroups%s%s%s: %.4f ms median (%.4f..%.4f)\n", cand[c], cand[c] == P ? " (= P)" : "",
           cand[c] == fixed_groups ? " (fixed)" : "", in_grid ? " (tune's grid)" : "", s.median, s.min, s.max);
    json_t *o = sum_json(&s);
    json_object_set_new(o, "groups", json_integer(cand[c]));
    json_array_append_new(pts, o);
    if (s.median < best) { best = s.median; bestG = cand[c]; }
    if (cand[c] == P) atP = s.median;
    if (cand[c] == fixed_groups) atFixed = s.median;
  }
  printf("  P alone: %.3f ms, %.1f%% above the best count (%u: %.3f ms); fixed %u: %.3f ms (%.2fx of P's time); %u wrong "
         "histograms of %u\n", atP, 100 * (atP / best - 1), bestG, best, fixed_groups, atFixed, atFixed / atP, wrong,
         nc * (reps + 1));
  json_object_set_new(doc, tune ? "histogram_tune" : "histogram", json_pack("{s:i, s:i, s:i, s:i, s:i, s:b, s:f, s:i, s:o, s:i, s:f, s:f, s:f, s:f, s:i, s:i}",
      "keys", (json_int_t)n, "bins", (json_int_t)bins, "wg", (json_int_t)wg, "grain", (json_int_t)grain, "P", (json_int_t)P,
      "P_cached", cached, "P_measure_ms", pms, "fixed_groups", (json_int_t)fixed_groups, "counts", pts,
      "best_groups", (json_int_t)bestG, "best_ms", best, "at_P_ms", atP, "at_fixed_ms", atFixed,
      "P_over_best", atP / best, "wrong", (json_int_t)wrong, "runs_each", (json_int_t)(reps + 1)));
  free(t); free(ref);
  core_buffer_destroy(ctx, &host); core_buffer_destroy(ctx, &hbins); core_buffer_destroy(ctx, &keys);
  core_buffer_destroy(ctx, &state);
  core_kernel_destroy(ctx, &k);
  return wrong ? 1 : 0;
}

int main(int argc, char **argv) {
  const char *device = NULL, *json_path = NULL, *only = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--no-cache")) { use_cache = false; continue; }
    if (!v) { fprintf(stderr, "bench_barrier: %s needs a value\n", a); return 2; }
    i++;
    if (!strcmp(a, "--device")) device = v;
    else if (!strcmp(a, "--json")) json_path = v;
    else if (!strcmp(a, "--only")) only = v;
    else if (!strcmp(a, "--n")) n_elems = (uint32_t)atof(v);
    else if (!strcmp(a, "--steps")) steps = (uint32_t)atof(v);
    else if (!strcmp(a, "--wg")) wg = (uint32_t)atof(v);
    else if (!strcmp(a, "--reps")) reps = (uint32_t)atof(v);
    else if (!strcmp(a, "--keys")) nkeys = (uint32_t)atof(v);
    else if (!strcmp(a, "--fixed")) fixed_groups = (uint32_t)atof(v);
    else if (!strcmp(a, "--grain")) grain = (uint32_t)atof(v);
    else if (!strcmp(a, "--bound-ms")) bound_ms = atof(v);
    else if (!strcmp(a, "--fused-div")) fused_div = (uint32_t)atof(v);
    else if (!strcmp(a, "--tune-hist")) tune_path = v;
    else if (!strcmp(a, "--tune-config")) {
      if (sscanf(v, "%u,%u,%u", &tune_wg, &tune_grain, &tune_copies) != 3) { fprintf(stderr, "bench_barrier: --tune-config WG,GRAIN,COPIES\n"); return 2; }
    }
    else { fprintf(stderr, "bench_barrier: unknown option %s\n", a); return 2; }
  }
  if (!steps || !wg || !reps || reps > 1000 || !fused_div) { fprintf(stderr, "bench_barrier: bad --steps/--wg/--reps\n"); return 2; }
  vkocc_context *ctx;
  vkocc_context_options co = {.device = device};
  if (vkocc_context_create(&co, &ctx)) return fail("device");
  bool cpu = ctx->info.device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  /* lavapipe counts every loop iteration of an invocation against 65535: keep the kernels' own loops small */
  if (!n_elems) n_elems = cpu ? 8192 : 1u << 20;
  if (!nkeys) nkeys = cpu ? 1u << 20 : 1u << 26;
  vkocc_calibration cal;
  vkocc_calibrate_options cop;
  vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &cop);
  if (vkocc_calibrate(ctx, &cop, &cal)) return fail("calibration");
  vkocc_barrier_bounds b;
  if (vkocc_barrier_bounds_get(ctx, &cal, bound_ms, 0, &b)) return fail("bounds");
  const vkocc_device_info *d = &ctx->info;
  printf("device: %s (%s %s); clock %s, bound %.0f ms, %u wait iterations\n", d->name, d->driver_name, d->driver_info,
         b.clock, b.bound_ms, b.max_iters);
  json_t *doc = json_pack("{s:s, s:s, s:o, s:{s:s, s:f, s:i}}", "schema", vkocc_doc_schema_string(VKOCC_DOC_BENCH_BARRIER), "tool_version",
                          vkocc_version(), "device", vkocc_device_info_json(d), "bounds", "clock", b.clock, "bound_ms",
                          b.bound_ms, "max_iterations", (json_int_t)b.max_iters);
  int rc = 0;
  if (!only || !strcmp(only, "stencil")) rc |= bench_stencil(ctx, &cal, &b, doc);
  if (!only || !strcmp(only, "histogram")) rc |= bench_histogram(ctx, &cal, &b, doc);
  if (json_path && util_json_write(doc, json_path)) rc |= fail("writing JSON");
  json_decref(doc);
  vkocc_context_destroy(ctx);
  return rc;
}
