/* Host side of the device-wide barrier and persistent threads (docs/barrier.md): the bounds of
 * the shader's waits, P of the application's pipeline through the augmentation path (cached), and the
 * barrier test, which dispatches P + K workgroups of the barrier kernel and checks the result against the
 * CPU, reporting a bound that fired as "barrier timed out", never as a result. */
#include "persistent.h"
#include "compile.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vkocc_status vkocc_barrier_bounds_get(vkocc_context *ctx, const vkocc_calibration *cal, double bound_ms,
                                      uint32_t max_iters, vkocc_barrier_bounds *out) {
  memset(out, 0, sizeof *out);
  out->bound_ms = out->asked_ms = bound_ms > 0 ? bound_ms : 1000;
  const vkocc_device_info *d = &ctx->info;
  out->max_iters = max_iters ? max_iters
                   : d->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU ? VKOCC_BARRIER_CPU_MAX_ITERS
                                                                   : VKOCC_BARRIER_GPU_MAX_ITERS;
  if (!ctx->device_clock && !ctx->subgroup_clock) {
    out->clock = "none";
    return VKOCC_OK;
  }
  vkocc_calibration local;
  if (!cal) {
    vkocc_calibrate_options co;
    vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
    vkocc_status s = vkocc_calibrate(ctx, &co, &local);
    if (s) return s;
    cal = &local;
  }
  double ticks;
  if (ctx->device_clock && cal->has_device_clock && cal->ns_per_tick > 0) {
    out->clock = "realtime";
    out->define = "VKOCC_CLOCK_REALTIME=1";
    out->ns_per_tick = cal->ns_per_tick;
  } else if (ctx->subgroup_clock && cal->has_subgroup_clock && cal->shader_clock_mhz > 0) {
    out->clock = "subgroup";
    out->define = "VKOCC_CLOCK_SUBGROUP=1";
    out->ns_per_tick = 1e3 / cal->shader_clock_mhz;
  } else {
    out->clock = "none";
    return VKOCC_OK;
  }
  /* The shader compares 32-bit tick differences: a bound beyond 2^31 - 1 ticks (2.1 s of ns, 1 s of a 2 GHz
   * cycle counter) is clamped and says so. The limit comes from a calibration, so refusing there would make
   * the same flag valid in one process and an error in the next. */
  ticks = out->bound_ms * 1e6 / out->ns_per_tick;
  if (!(ticks <= 2147483647.0)) ticks = 2147483647.0, out->clamped = true;
  if (ticks < 1) ticks = 1, out->clamped = true;
  if (out->clamped) out->bound_ms = ticks * out->ns_per_tick / 1e6;
  out->bound_ticks = (uint32_t)ticks;
  return VKOCC_OK;
}

void vkocc_barrier_state_init(uint32_t state[VKOCC_BARRIER_STATE_WORDS], const vkocc_barrier_bounds *b) {
  memset(state, 0, VKOCC_BARRIER_STATE_WORDS * 4);
  /* without a clock the time test is compiled out; a huge bound keeps any clock-less reading harmless */
  state[VKOCC_BARRIER_BOUND_TICKS] = b->bound_ticks ? b->bound_ticks : 0x7fffffffu;
  state[VKOCC_BARRIER_MAX_ITERS] = b->max_iters;
}

static const char *fired_name(uint32_t bits) {
  return (bits & 1) && (bits & 2) ? "time and iteration bounds"
         : bits & 1 ? "time bound" : bits & 2 ? "iteration bound" : "the driver's loop cap";
}

vkocc_status vkocc_barrier_state_check(const uint32_t state[VKOCC_BARRIER_STATE_WORDS], uint32_t groups,
                                       const vkocc_barrier_bounds *b) {
  uint32_t bits = state[VKOCC_BARRIER_ABORT];
  if (!bits) return VKOCC_OK;
  char waited[64] = "";
  if (b->ns_per_tick > 0)
    snprintf(waited, sizeof waited, " after %.1f ms", state[VKOCC_BARRIER_FIRED_WAIT] * b->ns_per_tick / 1e6);
  char bounds[96];
  if (b->bound_ticks) snprintf(bounds, sizeof bounds, "bounds %.0f ms, %u iterations", b->bound_ms, b->max_iters);
  else snprintf(bounds, sizeof bounds, "bound %u iterations, no shader clock", b->max_iters);
  return vkocc_fail(VKOCC_ERROR_RUNTIME, "barrier timed out: fewer than P workgroups were resident (%u dispatched; "
                    "a wait reached its %s%s; %s)", groups, fired_name(bits), waited, bounds);
}

/* ---------------------------------------------------------------- building and submitting */

vkocc_status persistent_pk_compile(const char *embedded, const char *path, const vkocc_barrier_bounds *b,
                              const char *const *defines, uint32_t ndefines, uint32_t **spv, size_t *words,
                              const char **name) {
  const char **defs = util_xcalloc(ndefines + 1, sizeof *defs); /* the clock's define, then the caller's */
  uint32_t nd = 0;
  if (b && b->define) defs[nd++] = b->define;
  for (uint32_t i = 0; i < ndefines; i++) defs[nd++] = defines[i];
  vkocc_status s;
  if (path) {
    *name = path;
    s = compile_shader_load_file(path, VKOCC_SHADER_AUTO, "main", defs, nd, spv, words);
  } else {
    size_t len;
    const char *text = compile_embedded_text(embedded, &len);
    *name = embedded;
    s = text ? compile_shader_compile(text, len, embedded, VKOCC_SHADER_GLSL, "main", defs, nd, spv, words)
             : vkocc_fail(VKOCC_ERROR_RUNTIME, "%s is not embedded in this build", embedded);
  }
  free(defs);
  return s;
}

vkocc_status persistent_pk_measure(vkocc_context *ctx, const vkocc_calibration *cal, const uint32_t *spv, size_t words,
                              const char *name, const uint32_t *spec, uint32_t nspec, bool use_cache, uint32_t *P,
                              bool *from_cache) {
  vkocc_spec_value *sv = util_xcalloc(nspec, sizeof *sv);
  for (uint32_t i = 0; i < nspec; i++) sv[i] = (vkocc_spec_value){i, spec[i]};
  vkocc_shader_desc sh = {.spirv = spv, .spirv_words = words, .name = name, .spec = sv, .nspec = nspec};
  vkocc_pipeline_result r;
  /* the comb only: it never overcounts (a loaded CPU device can make it undercount, which is safe here) */
  vkocc_probe_options po = {.method = VKOCC_METHOD_COMB};
  vkocc_status s = vkocc_pipeline_occupancy(ctx, cal, &sh, &po, use_cache, &r);
  if (!s) {
    *P = r.P;
    if (from_cache) *from_cache = r.from_cache;
  }
  vkocc_pipeline_result_free(&r);
  free(sv);
  return s;
}

vkocc_status persistent_pk_submit(vkocc_context *ctx, const persistent_pk_copy *pre, uint32_t npre, const persistent_pk_dispatch *d,
                             uint32_t nd, const persistent_pk_copy *post, uint32_t npost, uint64_t timeout_ns,
                             double *gpu_ns, double *wall_ns) {
  for (uint32_t i = 0; i < nd; i++)
    if (d[i].groups == 0 || d[i].groups > ctx->info.max_wg_count_x)
      return vkocc_fail(VKOCC_ERROR_USAGE, "dispatch of %u workgroups is outside 1..maxComputeWorkGroupCount[0]=%u",
                        d[i].groups, ctx->info.max_wg_count_x);
  core_batch *b = core_context_batch(ctx);
  vkocc_status s = core_batch_begin(b);
  if (s) return s;
  for (uint32_t i = 0; i < npre; i++)
    core_batch_copy(b, pre[i].src, pre[i].dst, pre[i].src_off, pre[i].dst_off, pre[i].size);
  core_batch_barrier(b, VKOCC_SYNC_TRANSFER_TO_COMPUTE);
  uint32_t t = core_batch_timer_start(b);
  for (uint32_t i = 0; i < nd; i++) {
    core_batch_bind(b, d[i].k);
    core_batch_push(b, d[i].k, d[i].push, 0);
    if (i) /* one step's writes before the next step's reads: what k dispatches cost besides the launch */
      core_batch_barrier(b, VKOCC_SYNC_COMPUTE_TO_COMPUTE);
    core_batch_dispatch(b, d[i].groups);
  }
  core_batch_timer_stop(b, t);
  core_batch_barrier(b, VKOCC_SYNC_COMPUTE_TO_TRANSFER);
  for (uint32_t i = 0; i < npost; i++)
    core_batch_copy(b, post[i].src, post[i].dst, post[i].src_off, post[i].dst_off, post[i].size);
  core_batch_barrier(b, VKOCC_SYNC_TRANSFER_TO_HOST);
  double t0 = vkocc_now_ms();
  /* every wait in the kernel is bounded: a timeout here means the device was held by other work */
  s = core_batch_run(b, timeout_ns, "the barrier kernel (every wait in it is bounded)");
  if (wall_ns) *wall_ns = (vkocc_now_ms() - t0) * 1e6;
  if (s) return s;
  if (gpu_ns) *gpu_ns = core_batch_record_of(b, t)->ns;
  return VKOCC_OK;
}

/* ---------------------------------------------------------------- public */

vkocc_status vkocc_persistent_groups(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_shader_desc *sh,
                                     bool use_cache, uint32_t *P, bool *from_cache) {
  vkocc_barrier_bounds b;
  vkocc_status s = vkocc_barrier_bounds_get(ctx, cal, 0, 0, &b);
  if (s) return s;
  vkocc_shader_desc d = *sh;
  const char **defs = util_xcalloc(sh->ndefines + 1, sizeof *defs); /* the clock's define, then the caller's */
  uint32_t nd = 0;
  if (b.define) defs[nd++] = b.define;
  for (uint32_t i = 0; i < sh->ndefines; i++) defs[nd++] = sh->defines[i];
  d.defines = defs;
  d.ndefines = nd;
  vkocc_pipeline_result r;
  vkocc_probe_options po = {.method = VKOCC_METHOD_COMB};
  if ((s = vkocc_pipeline_occupancy(ctx, cal, &d, &po, use_cache, &r)) == VKOCC_OK) {
    *P = r.P;
    if (from_cache) *from_cache = r.from_cache;
  }
  vkocc_pipeline_result_free(&r);
  free(defs);
  return s;
}

void vkocc_barrier_test_result_free(vkocc_barrier_test_result *r) {
  free(r->run);
  r->run = NULL;
}

/* The recurrence of kernels/barrier/barrier_test.comp; returns the values after the last round. */
static uint32_t *reference(uint32_t n, uint32_t wg, uint32_t rounds) {
  uint32_t *a = util_xmalloc(4ull * n), *b = util_xmalloc(4ull * n);
  for (uint32_t i = 0; i < n; i++) a[i] = i * 2654435761u + 12345u;
  for (uint32_t r = 1; r <= rounds; r++) {
    for (uint32_t i = 0; i < n; i++) b[i] = a[i] * 3u + a[(uint32_t)(((uint64_t)i + (uint64_t)r * wg + 1) % n)] + r;
    uint32_t *t = a; a = b; b = t;
  }
  free(b);
  return a;
}

vkocc_status vkocc_barrier_test(vkocc_context *ctx, const vkocc_barrier_test_options *o, vkocc_barrier_test_result *out) {
  memset(out, 0, sizeof *out);
  uint32_t runs = o->runs ? o->runs : 1, rounds = o->rounds ? o->rounds : 16, wg = o->wg_size ? o->wg_size : 64;
  out->wg_size = wg;
  out->rounds = rounds;
  if (wg > ctx->info.max_invocations || wg > ctx->info.max_wg_size_x)
    return vkocc_fail(VKOCC_ERROR_USAGE, "workgroup size %u is above the limits of %s", wg, ctx->info.name);
  vkocc_calibration cal_local;
  const vkocc_calibration *cal = o->cal;
  vkocc_status s;
  if (!cal && (ctx->device_clock || ctx->subgroup_clock)) {
    vkocc_calibrate_options co;
    vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
    if ((s = vkocc_calibrate(ctx, &co, &cal_local))) return s;
    cal = &cal_local;
  }
  if ((s = vkocc_barrier_bounds_get(ctx, cal, o->bound_ms, o->max_iters, &out->bounds))) return s;
  uint32_t *spv = NULL;
  size_t words = 0;
  const char *name;
  if ((s = persistent_pk_compile("kernels/barrier/barrier_test.comp", o->shader, &out->bounds, NULL, 0, &spv, &words, &name)))
    return s;
  uint32_t spec[1] = {wg};
  double t0 = vkocc_now_ms();
  if (o->P) {
    out->P = o->P;
    out->P_given = true;
  } else if ((s = persistent_pk_measure(ctx, cal, spv, words, name, spec, 1, o->use_cache, &out->P, &out->P_from_cache))) {
    free(spv);
    return s;
  }
  out->measure_ms = vkocc_now_ms() - t0;
  uint64_t groups = (uint64_t)out->P + o->extra;
  if (groups > ctx->info.max_wg_count_x || groups * wg > (1u << 26)) {
    free(spv);
    return vkocc_fail(VKOCC_ERROR_USAGE, "P %u + --extra %u workgroups is too many (at most %u, and 2^26 invocations)",
                      out->P, o->extra, ctx->info.max_wg_count_x);
  }
  out->groups = (uint32_t)groups;
  uint32_t n = out->groups * wg;
  core_kernel k;
  s = core_kernel_create(ctx, spv, words * 4, 2, 4, spec, 1, &k);
  free(spv);
  if (s) {
    char why[512];
    snprintf(why, sizeof why, "%s", vkocc_last_error());
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: %s", name, why);
  }
  core_buffer state = {0}, data = {0}, host = {0};
  VkDeviceSize sbytes = VKOCC_BARRIER_STATE_WORDS * 4, dbytes = 8ull * n;
  uint32_t *ref = NULL;
  if ((s = core_buffer_create(ctx, sbytes, false, &state)) || (s = core_buffer_create(ctx, dbytes, false, &data)) ||
      (s = core_buffer_create(ctx, sbytes + dbytes, true, &host)))
    goto done;
  core_buffer *bufs[2] = {&state, &data};
  core_kernel_bind(ctx, &k, bufs);
  ref = reference(n, wg, rounds);
  out->run = util_xcalloc(runs, sizeof *out->run);
  /* every completed wait is under the bound, so a run lasts at most (rounds + 1) bounds plus its work */
  uint64_t timeout_ns = (uint64_t)(10e9 + (rounds + 1.0) * out->bounds.bound_ms * 1e6);
  for (uint32_t i = 0; i < runs; i++) {
    vkocc_barrier_run *rr = &out->run[i];
    uint32_t *hs = host.map;
    vkocc_barrier_state_init(hs, &out->bounds);
    memset(hs + VKOCC_BARRIER_STATE_WORDS, 0, dbytes);
    persistent_pk_copy pre[2] = {{&host, &state, 0, 0, sbytes}, {&host, &data, sbytes, 0, dbytes}};
    persistent_pk_copy post[2] = {{&state, &host, 0, 0, sbytes}, {&data, &host, 0, sbytes, dbytes}};
    uint32_t push = rounds;
    persistent_pk_dispatch dd = {&k, &push, out->groups};
    double gpu = 0, wall = 0;
    if ((s = persistent_pk_submit(ctx, pre, 2, &dd, 1, post, 2, timeout_ns, &gpu, &wall))) goto done;
    out->runs++;
    rr->gpu_ms = gpu / 1e6;
    rr->wall_ms = wall / 1e6;
    rr->abort_bits = hs[VKOCC_BARRIER_ABORT];
    rr->max_used = hs[VKOCC_BARRIER_MAX_USED];
    rr->max_wait_ms = hs[VKOCC_BARRIER_MAX_WAIT] * out->bounds.ns_per_tick / 1e6;
    rr->fired_wait_ms = hs[VKOCC_BARRIER_FIRED_WAIT] * out->bounds.ns_per_tick / 1e6;
    rr->completed = rr->abort_bits == 0;
    if (rr->completed) {
      const uint32_t *v = hs + VKOCC_BARRIER_STATE_WORDS + (size_t)(rounds & 1) * n;
      for (uint32_t j = 0; j < n; j++) rr->mismatches += v[j] != ref[j];
      /* workgroup 0 counts the episodes it completed: one per round */
      if (hs[VKOCC_BARRIER_WAITS] != rounds) rr->mismatches++;
      rr->correct = rr->mismatches == 0;
      out->completed++;
      if (rr->correct) out->correct++;
      else out->wrong++;
    } else {
      out->timed_out++;
    }
  }
  if (out->timed_out) {
    const vkocc_barrier_run *f = NULL;
    for (uint32_t i = 0; i < out->runs && !f; i++) if (!out->run[i].completed) f = &out->run[i];
    uint32_t st[VKOCC_BARRIER_STATE_WORDS] = {0};
    st[VKOCC_BARRIER_ABORT] = f->abort_bits;
    st[VKOCC_BARRIER_FIRED_WAIT] = out->bounds.ns_per_tick > 0 ? (uint32_t)(f->fired_wait_ms * 1e6 / out->bounds.ns_per_tick) : 0;
    s = vkocc_barrier_state_check(st, out->groups, &out->bounds);
    char why[512];
    snprintf(why, sizeof why, "%s", vkocc_last_error());
    s = vkocc_fail(VKOCC_ERROR_RUNTIME, "%s; %u of %u runs (P = %u%s)", why, out->timed_out, out->runs, out->P,
                   out->P_given ? ", given" : out->P_from_cache ? ", cached" : ", measured");
  } else if (out->wrong) {
    s = vkocc_fail(VKOCC_ERROR_RUNTIME, "wrong result: %u of %u runs completed with values that differ from the CPU "
                   "reference (%u workgroups)", out->wrong, out->runs, out->groups);
  }
done:
  free(ref);
  core_buffer_destroy(ctx, &host);
  core_buffer_destroy(ctx, &data);
  core_buffer_destroy(ctx, &state);
  core_kernel_destroy(ctx, &k);
  return s;
}
