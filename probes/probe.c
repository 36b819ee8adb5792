/* One occupancy probe: P at one (workgroup size, shared bytes) point, by the comb and/or by bisection.
 * Dispatch sizes grow from what is known (a hint, then the previous repetition), never from a fixed
 * large count; the sleep comes from the calibrated dispatch overhead and grows while the launch spread
 * of the first tooth is too large a part of it. */
#include "array.h"
#include "probe_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const uint32_t shaders_spv_probe_clock_shm[], shaders_spv_probe_clock[], shaders_spv_probe_chase_shm[],
    shaders_spv_probe_chase[];
extern const size_t shaders_spv_probe_clock_shm_size, shaders_spv_probe_clock_size, shaders_spv_probe_chase_shm_size,
    shaders_spv_probe_chase_size;

#define MAX_ROUNDS 65000u      /* sleep/chase loop bound: under lavapipe's 65535 loop-iteration cap */
#define CHASE_ENTRIES (1u << 20) /* 4 MiB: past a CPU's L2, so lavapipe's chasers do not contend */
#define RECORD_WORDS 8u
#define CPU_CONFIRM_NS 50e6 /* a CPU device's confirming combs last this long at least (see run_comb's caller) */
#define MAX_SLEEP_NS 8e6 /* adaptive growth stops here: under the loop bound on every device we know */
/* A confirming comb holds (waves - 1) (P + 1) workgroups. On a GPU two waves prove P, the fewest that can:
 * P sleeps at once and one more that waits for a slot (overlap never overcounts). A CPU device's workers
 * are OS threads that may sit out a dispatch: four waves there. */
#define GPU_WAVES 2u
#define CPU_WAVES 4u
#define CPU_MAX_BISECT_NS 24e6 /* CPU bisection's longest sleep, where the loops' iteration bound covers it (65000
                                  rounds lasted 15 ms on a loaded 2-core VM: the sleeps it cuts lower the cap) */

typedef struct {
  uint32_t mode, sleep_ticks, max_rounds, chase_rounds, chase_mask, key;
} probe_push;

typedef struct {
  vkocc_context *ctx;
  core_kernel k;            /* borrowed from the caller */
  core_buffer rec, chase;   /* borrowed from the session */
  uint32_t max_groups;
  probe_push push;
  vkocc_status (*hook)(void *user, const probes_params *p, uint32_t groups, double *ns, vkocc_tick_status *tick);
  void *hook_user; /* the session's dispatch hook (a user's pipeline), or NULL */
  double gpu_ns;       /* sum of timestamp intervals of the dispatches made */
  uint32_t dispatches;
  uint32_t cut_short;  /* workgroups whose sleep ended at the iteration bound */
  double cut_min_ns;   /* the shortest of those sleeps: what the bound covers (INFINITY: none) */
  const vkocc_calibration *cal;
  double chase_ns_per_round; /* bisection without a clock: the chase's speed, from chase_wave */
  uint32_t max_overlap;      /* bisection with a clock: most sleeps seen overlapping in its dispatches */
  util_array iv;             /* bisection with a clock: the intervals of its last dispatch */
} probe_run;

/* A sleep in realtime ticks, kept inside what the shader takes (1 .. 2e9 ticks). */
static uint32_t sleep_ticks(const vkocc_calibration *cal, double ns) {
  double t = ns / cal->ns_per_tick;
  return t < 1 ? 1u : t > 2e9 ? 2000000000u : (uint32_t)t;
}

vkocc_status vkocc_probe_check_point(const vkocc_device_info *d, uint32_t wg, uint32_t shared) {
  vkocc_clear_error();
  uint32_t max_wg = vkocc_device_max_wg_size(d);
  if (wg == 0 || wg > max_wg)
    return vkocc_fail(VKOCC_ERROR_USAGE, "workgroup size %u is outside 1..%u (maxComputeWorkGroupInvocations and "
                      "maxComputeWorkGroupSize[0] of %s)", wg, max_wg, d->name);
  if (shared > d->max_shared_bytes)
    return vkocc_fail(VKOCC_ERROR_USAGE, "shared memory %u bytes is above maxComputeSharedMemorySize = %u of %s",
                      shared, d->max_shared_bytes, d->name);
  return VKOCC_OK;
}

static vkocc_status dispatch(probe_run *r, uint32_t groups, double *ns) {
  vkocc_tick_status ts;
  probes_params p = {r->push.mode, r->push.sleep_ticks, r->push.max_rounds, r->push.key};
  vkocc_status s = r->hook ? r->hook(r->hook_user, &p, groups, ns, &ts)
                          : core_dispatch_timed(r->ctx, &r->k, &r->push, groups, ns, &ts);
  if (s) return s;
  if (ts == VKOCC_TICKS_BACKWARDS)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "queue timestamps went backwards around a probe dispatch");
  r->gpu_ns += *ns;
  r->dispatches++;
  return VKOCC_OK;
}

static vkocc_status comb_once(probe_run *r, double ns_per_tick, uint32_t n, vkocc_interval *iv, double *ns);

/* Bisection's workload: wave_ns of sleep (or of pointer chase without a clock); 0: an empty workgroup. */
static vkocc_status workload_fn(void *user, uint32_t groups, double wave_ns, double *ns) {
  probe_run *r = user;
  if (r->ctx->device_clock) {
    r->push.mode = 0;
    r->push.sleep_ticks = wave_ns > 0 ? sleep_ticks(r->cal, wave_ns) : 1;
    if (wave_ns > 0) {
      /* The sleeps record when they ran: more of them overlapping than the P a search ends at proves
       * that P too small (on a busy CPU a worker thread that wakes late leaves its share to the others,
       * and the runtimes then step exactly as for fewer workers). */
      util_array_clear(&r->iv);
      vkocc_interval *iv = util_array_grow(&r->iv, vkocc_interval, groups);
      vkocc_status s = comb_once(r, r->cal->ns_per_tick, groups, iv, ns);
      vkocc_comb_estimate e;
      if (!s && vkocc_comb_estimate_P(iv, groups, 0, &e) == VKOCC_OK && e.P > r->max_overlap) r->max_overlap = e.P;
      return s;
    }
  } else {
    r->push.mode = 1;
    r->push.chase_rounds = wave_ns > 0 ? (uint32_t)fmin(MAX_ROUNDS, fmax(1, wave_ns / r->chase_ns_per_round)) : 0;
  }
  return dispatch(r, groups, ns);
}

/* Runs one comb of n workgroups and reads the records into intervals (ns from the first start). */
static vkocc_status comb_once(probe_run *r, double ns_per_tick, uint32_t n, vkocc_interval *iv, double *ns) {
  memset(r->rec.map, 0, (size_t)n * RECORD_WORDS * 4);
  vkocc_status s = dispatch(r, n, ns);
  if (s) return s;
  r->cut_short += probes_comb_read_records(r->rec.map, n, ns_per_tick, iv, &r->cut_min_ns);
  return VKOCC_OK;
}

uint32_t probes_comb_read_records(const uint32_t *w, uint32_t n, double ns_per_tick, vkocc_interval *iv,
                                 double *cut_min_ns) {
  /* Mesa 22.3 (lavapipe) returns 0 in the clock's high word, so its clock wraps every 2^32 ticks (4.3 s
   * of ns) and a dispatch now and then straddles a wrap. Where every high word is 0 the times are read
   * as 32-bit, relative to one record's start (a dispatch lasts far less than 2^31 ticks). */
  bool narrow = true;
  uint32_t ref = 0, cut = 0;
  bool have_ref = false;
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t *x = w + i * RECORD_WORDS;
    if (!(x[4] & 1)) continue;
    if (x[1] | x[3]) narrow = false;
    if (!have_ref) ref = x[0], have_ref = true;
  }
  int64_t t0 = INT64_MAX;
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t *x = w + i * RECORD_WORDS;
    int64_t a = narrow ? (int32_t)(x[0] - ref) : (int64_t)(x[0] | (uint64_t)x[1] << 32);
    if ((x[4] & 1) && a < t0) t0 = a;
  }
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t *x = w + i * RECORD_WORDS;
    uint64_t a = x[0] | (uint64_t)x[1] << 32, b = x[2] | (uint64_t)x[3] << 32, d;
    int64_t rel = narrow ? (int32_t)(x[0] - ref) : (int64_t)a;
    iv[i].valid = (x[4] & 1) && vkocc_tick_delta(a, b, narrow ? 32 : 64, &d) != VKOCC_TICKS_BACKWARDS;
    iv[i].start = iv[i].valid ? (double)(rel - t0) * ns_per_tick : 0;
    iv[i].end = iv[i].valid ? iv[i].start + (double)d * ns_per_tick : 0;
    if (x[4] & 2) {
      cut++;
      if (cut_min_ns && iv[i].valid) *cut_min_ns = fmin(*cut_min_ns, iv[i].end - iv[i].start);
    }
  }
  return cut;
}

vkocc_status probes_kernel_create_now(vkocc_context *ctx, uint32_t wg, uint32_t shared, core_kernel *k) {
  uint32_t words = (shared + 3) / 4;
  uint32_t spec[2] = {wg, words ? words : 1};
  bool clock = ctx->device_clock;
  const uint32_t *spv;
  size_t size;
  if (clock) spv = words ? shaders_spv_probe_clock_shm : shaders_spv_probe_clock,
             size = words ? shaders_spv_probe_clock_shm_size : shaders_spv_probe_clock_size;
  else spv = words ? shaders_spv_probe_chase_shm : shaders_spv_probe_chase,
       size = words ? shaders_spv_probe_chase_shm_size : shaders_spv_probe_chase_size;
  return core_kernel_create(ctx, spv, size, 2, sizeof(probe_push), spec, 2, k);
}

vkocc_status probes_first_use(probes_session *ps, core_kernel *kernel) {
  core_buffer *bufs[] = {&ps->rec, &ps->chase};
  core_kernel_bind(ps->ctx, kernel, bufs);
  probe_push push = {.mode = ps->ctx->device_clock ? 0 : 1, .sleep_ticks = 1, .max_rounds = MAX_ROUNDS,
                     .chase_rounds = 1, .chase_mask = CHASE_ENTRIES - 1, .key = 0xFFFFFFFFu};
  double ns;
  vkocc_tick_status ts;
  return core_dispatch_timed(ps->ctx, kernel, &push, 1, &ns, &ts);
}

/* The host's wait for a submission of n short dispatches. On a CPU device they run on this machine's cores
 * (lavapipe also compiles a pipeline at its first dispatch), so a loaded machine may need n times the
 * context's limit; a GPU finishes them in milliseconds, and n times the limit would turn one stuck
 * submission into minutes of waiting (a 420 s run on two H200s never returned). */
static uint64_t batch_timeout(const vkocc_context *ctx, uint32_t n) {
  return ctx->info.device_type == VK_PHYSICAL_DEVICE_TYPE_CPU ? ctx->timeout_ns * n : ctx->timeout_ns;
}

/* probes_first_use of n kernels, 32 to a command buffer (a barrier between: one after the other).
 * lavapipe compiles a pipeline at its first dispatch, on its queue thread, one after the other (0.2-0.5 s
 * each on 2 busy cores): each submission waits the context's limit for each of its dispatches. */
vkocc_status probes_first_use_batch(probes_session *ps, core_kernel *kernels, uint32_t n) {
  enum { CHUNK = 32 };
  if (n > CHUNK) {
    for (uint32_t i = 0; i < n; i += CHUNK) {
      vkocc_status s = probes_first_use_batch(ps, kernels + i, n - i < CHUNK ? n - i : CHUNK);
      if (s) return s;
    }
    return VKOCC_OK;
  }
  vkocc_context *ctx = ps->ctx;
  if (ps->dispatch || n <= 1) {
    for (uint32_t i = 0; i < n; i++) {
      vkocc_status s = probes_first_use(ps, &kernels[i]);
      if (s) return s;
    }
    return VKOCC_OK;
  }
  core_buffer *bufs[] = {&ps->rec, &ps->chase};
  probe_push push = {.mode = ctx->device_clock ? 0 : 1, .sleep_ticks = 1, .max_rounds = MAX_ROUNDS,
                     .chase_rounds = 1, .chase_mask = CHASE_ENTRIES - 1, .key = 0xFFFFFFFFu};
  core_batch *b = core_context_batch(ctx);
  vkocc_status s = core_batch_begin(b);
  if (s) return s;
  for (uint32_t i = 0; i < n; i++) {
    core_kernel *k = &kernels[i];
    core_kernel_bind(ctx, k, bufs);
    core_batch_bind(b, k);
    core_batch_push(b, k, &push, sizeof push);
    core_batch_dispatch(b, 1);
    core_batch_barrier(b, VKOCC_SYNC_ALL);
  }
  return core_batch_run(b, batch_timeout(ctx, n), "first dispatches");
}

vkocc_status probes_session_create(vkocc_context *ctx, probes_session *ps) {
  memset(ps, 0, sizeof *ps);
  ps->ctx = ctx;
  ps->max_groups = ctx->info.max_wg_count_x < (1u << 20) ? ctx->info.max_wg_count_x : (1u << 20);
  vkocc_status s = core_buffer_create(ctx, (VkDeviceSize)ps->max_groups * RECORD_WORDS * 4, true, &ps->rec);
  if (!s) s = core_buffer_create(ctx, CHASE_ENTRIES * 4, false, &ps->chase);
  if (!s) {
    /* one random cycle through the table (Sattolo), so every load depends on the previous one */
    uint32_t *next = util_xmalloc(CHASE_ENTRIES * 4), *perm = util_xmalloc(CHASE_ENTRIES * 4);
    uint64_t rng = 0x2545F4914F6CDD1Dull;
    for (uint32_t i = 0; i < CHASE_ENTRIES; i++) perm[i] = i;
    for (uint32_t i = CHASE_ENTRIES - 1; i > 0; i--) {
      rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
      uint32_t j = (uint32_t)(rng % i), t = perm[i];
      perm[i] = perm[j]; perm[j] = t;
    }
    for (uint32_t i = 0; i < CHASE_ENTRIES; i++) next[perm[i]] = perm[(i + 1) % CHASE_ENTRIES];
    s = core_buffer_upload(ctx, &ps->chase, next, CHASE_ENTRIES * 4);
    free(next);
    free(perm);
  }
  if (s) probes_session_destroy(ps);
  return s;
}

void probes_session_destroy(probes_session *ps) {
  if (!ps->ctx) return;
  core_buffer_destroy(ps->ctx, &ps->rec);
  core_buffer_destroy(ps->ctx, &ps->chase);
  ps->ctx = NULL;
}

static uint32_t median_u32(const uint32_t *v, uint32_t n, uint32_t *mn, uint32_t *mx) {
  double t[VKOCC_MAX_REPEAT];
  *mn = UINT32_MAX; *mx = 0;
  for (uint32_t i = 0; i < n; i++) {
    t[i] = v[i];
    if (v[i] < *mn) *mn = v[i];
    if (v[i] > *mx) *mx = v[i];
  }
  return (uint32_t)floor(util_median(t, n));
}

/* Comb with adaptive size and sleep. hint: expected P or 0.
 * Overlap can only undercount residency (a late launch or a worker that sits out looks like a refill),
 * never overcount, so the estimate is the largest overlap seen, accepted once `confirmations` dispatches
 * in a row of `waves` waves of it ((waves - 1) (P + 1) workgroups) reproduce it. */
static vkocc_status run_comb(probe_run *r, const vkocc_calibration *cal, double *sleep_ns, bool sleep_fixed,
                             uint32_t hint, uint32_t waves, double long_ns, uint32_t confirmations,
                             vkocc_probe_rep *rep, vkocc_interval **raw, uint32_t *raw_n) {
  /* `waves` confirm the hint (or more); anything else (no hint, or less than it) is confirmed over at
   * least `waves` waves lasting long_ns in all (the sleep may grow on the way) */
  const uint32_t m = waves - 1;
#define M_FOR(p) ((hint && (p) >= hint) ? m : (uint32_t)fmax(m, ceil(long_ns / *sleep_ns)))
  double cap = MAX_SLEEP_NS;
  int cuts = 0;
  uint32_t confirmed = 0;
  double t0 = util_now_ns(), gpu0 = r->gpu_ns;
  uint32_t d0 = r->dispatches;
  uint32_t n = hint ? m * hint + m : 2, best = 0;
  vkocc_interval *iv = NULL;
  vkocc_status s = VKOCC_OK;
  bool done = false;
  for (int attempt = 0; attempt < 40 && !done; attempt++) {
    if (n > r->max_groups) n = r->max_groups;
    r->push.mode = 0;
    r->push.sleep_ticks = sleep_ticks(cal, *sleep_ns);
    iv = util_xrealloc(iv, n * sizeof *iv);
    r->cut_short = 0;
    double ns;
    if ((s = comb_once(r, cal->ns_per_tick, n, iv, &ns))) break;
    if (r->cut_short) {
      /* A sleep ended at the loop's iteration bound, not at its time: the dispatch proves nothing. On
       * lavapipe a round takes 0.65-0.8 us alone (slower when threads share a core), so 65000 rounds
       * cover 42 ms or more against sleeps of at most 8 ms; the cuts seen under load came from a
       * calibration that gave a negative ns per tick (see calibrate.c), now refused before this.
       * Retry twice, then halve the sleep and cap it there. */
      best = 0;
      if (++cuts <= 2) continue;
      if (!sleep_fixed && *sleep_ns > 250e3) {
        cap = *sleep_ns = *sleep_ns / 2;
        cuts = 0;
        continue;
      }
      s = vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_ITERATION_BOUND, "comb: %u sleeps of %.0f us (%u ticks "
                     "at %.4g ns per tick) ended at the iteration bound (%u rounds) before their time%s", r->cut_short, *sleep_ns / 1e3,
                     r->push.sleep_ticks, cal->ns_per_tick, r->push.max_rounds, sleep_fixed ? "; use a shorter --sleep-us" : "");
      break;
    }
    if ((s = vkocc_comb_estimate_P(iv, n, 0, &rep->comb))) break;
    /* Launch spread too large a part of the sleep: the overlap may be underestimated. Sleep longer. */
    if (!sleep_fixed && rep->comb.first_tooth_spread_ns > 0.25 * *sleep_ns && *sleep_ns < cap) {
      *sleep_ns = fmin(cap, fmax(2 * *sleep_ns, 5 * rep->comb.first_tooth_spread_ns));
      best = 0;
      /* longer sleeps need fewer waves for the same confirmation time */
      uint32_t want = M_FOR(rep->comb.P) * (rep->comb.P + 1);
      if (!rep->comb.lower_bound && want < n) n = want;
      continue;
    }
    if (!rep->comb.lower_bound && rep->comb.P >= best && n >= M_FOR(rep->comb.P) * (rep->comb.P + 1)) {
      if (++confirmed >= confirmations) { done = true; break; }
      best = rep->comb.P;
      continue; /* confirm again at the same size */
    }
    confirmed = 0;
    if (!rep->comb.lower_bound && rep->comb.P > best) best = rep->comb.P;
    if (n >= r->max_groups) {
      s = vkocc_fail(VKOCC_ERROR_RUNTIME, "comb: no stable P up to the largest dispatch (%u workgroups)", n);
      break;
    }
    /* grow: double while everything is resident, else to `waves` waves of the best seen */
    uint32_t want = rep->comb.lower_bound ? 2 * n : M_FOR(best) * (best + 1);
    n = want > n ? want : n + 1;
  }
#undef M_FOR
  if (!s && !done) s = vkocc_fail(VKOCC_ERROR_RUNTIME, "comb: no stable P after 40 dispatches");
  if (!s) {
    rep->comb_P = rep->comb.P;
    rep->comb_groups = n;
    if (raw) { free(*raw); *raw = iv; *raw_n = n; iv = NULL; }
  }
  free(iv);
  rep->comb_gpu_ns = r->gpu_ns - gpu0;
  rep->comb_wall_ns = util_now_ns() - t0;
  rep->comb_dispatches = r->dispatches - d0;
  return s;
}

/* The fastest of reps (at most 8) dispatches of `groups` workgroups: interference only adds time. */
static vkocc_status min_runtime(probe_run *r, uint32_t groups, int reps, double *ns) {
  double t[8];
  vkocc_status s;
  for (int i = 0; i < reps; i++) if ((s = dispatch(r, groups, &t[i]))) return s;
  vkocc_summary sum;
  vkocc_summarize(t, (uint32_t)reps, &sum);
  *ns = sum.min;
  return VKOCC_OK;
}

/* Length of one wave for bisection without a clock: the extra time of one chasing workgroup over an
 * empty dispatch (fastest of 5), with the chase doubled until it lasts about target_ns (fastest of 3). */
static vkocc_status chase_wave(probe_run *r, double target_ns, double *wave_ns) {
  double empty, one;
  vkocc_status s;
  r->push.mode = 1;
  r->push.chase_rounds = 0;
  if ((s = min_runtime(r, 1, 5, &empty))) return s;
  uint32_t rounds = 8;
  for (;;) {
    r->push.chase_rounds = rounds;
    if ((s = min_runtime(r, 1, 3, &one))) return s;
    one -= empty;
    if (one >= target_ns / 4 || rounds >= MAX_ROUNDS / 2) break;
    rounds *= 2;
  }
  r->push.chase_rounds = (uint32_t)fmin(MAX_ROUNDS, fmax(1, rounds * target_ns / fmax(one, 1)));
  if ((s = min_runtime(r, 2, 2, &one))) return s; /* warm the table for two chasers before timing */
  if ((s = min_runtime(r, 1, 5, &one))) return s;
  *wave_ns = one - empty;
  if (!(*wave_ns > 0)) return vkocc_fail(VKOCC_ERROR_RUNTIME, "bisect: a chasing workgroup takes no measurable time");
  r->chase_ns_per_round = *wave_ns / r->push.chase_rounds;
  return VKOCC_OK;
}

static vkocc_status probe_measure(probes_session *ps, core_kernel *kernel, const vkocc_calibration *cal,
                                  const vkocc_probe_options *opt, vkocc_probe_result *out);

/* with the device to itself: another vkocc process's work holds workgroup slots (a GPU) or the worker threads
 * (lavapipe), and every repetition of a crowded probe may agree on a P that is too small */
vkocc_status probes_measure(probes_session *ps, core_kernel *kernel, const vkocc_calibration *cal,
                                 const vkocc_probe_options *opt, vkocc_probe_result *out) {
  memset(out, 0, sizeof *out);
  vkocc_status s = core_device_exclusive_begin(ps->ctx, "the occupancy probe");
  if (s) return s;
  s = probe_measure(ps, kernel, cal, opt, out);
  core_device_exclusive_end(ps->ctx);
  return s;
}

static vkocc_status probe_measure(probes_session *ps, core_kernel *kernel, const vkocc_calibration *cal,
                                  const vkocc_probe_options *opt, vkocc_probe_result *out) {
  vkocc_context *ctx = ps->ctx;
  memset(out, 0, sizeof *out);
  vkocc_status s = vkocc_probe_check_point(&ctx->info, opt->wg_size, opt->shared_bytes);
  if (s) return s;
  vkocc_method method = opt->method ? opt->method : (ctx->device_clock ? VKOCC_METHOD_BOTH : VKOCC_METHOD_BISECT);
  if ((method & VKOCC_METHOD_COMB) && !ctx->device_clock)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "the comb needs the realtime shader clock (VK_KHR_shader_clock "
                      "shaderDeviceClock), which %s lacks%s; use --method bisect", ctx->info.name,
                      ctx->info.shader_device_clock ? " here (disabled)" : "");
  if (ctx->device_clock && !(cal->ns_per_tick > 0 && isfinite(cal->ns_per_tick)))
    return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_NOISY, "the clock calibration gave %g ns per realtime "
                      "tick (R^2 %.3f), which is no clock: measure again on a less busy machine", cal->ns_per_tick, cal->realtime_fit.r2);
  uint32_t repeat = opt->repeat ? opt->repeat : 1;
  if (repeat > VKOCC_MAX_REPEAT)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--repeat %u is above %u", repeat, VKOCC_MAX_REPEAT);
  out->wg_size = opt->wg_size;
  out->shared_bytes = opt->shared_bytes;
  out->method = method;
  out->repeat = repeat;
  out->bisect_by_chase = !ctx->device_clock;
  /* The sleep must dwarf launch jitter. On a GPU that is a few dispatch overheads; on a CPU device the
   * workers are OS threads whose wake-up and scheduling delays reach milliseconds. */
  bool cpu = ctx->info.device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  double floor_sleep = cpu ? 2e6 : 20e3;
  double sleep = opt->sleep_ns > 0 ? opt->sleep_ns : fmin(4e6, fmax(floor_sleep, 20 * fabs(cal->overhead_ns)));
  if (!(opt->sleep_ns > 0) && opt->sleep_start_ns > sleep) sleep = fmin(MAX_SLEEP_NS, opt->sleep_start_ns);

  probe_run r = {.ctx = ctx, .k = *kernel, .rec = ps->rec, .chase = ps->chase, .max_groups = ps->max_groups,
                 .hook = ps->dispatch, .hook_user = ps->user, .cal = cal, .cut_min_ns = INFINITY};
  r.push = (probe_push){.max_rounds = MAX_ROUNDS, .chase_mask = CHASE_ENTRIES - 1, .key = 0xFFFFFFFFu};
  /* the test suite lowers the loops' iteration bound, so that sleeps end at it before their time */
  const char *test_rounds = getenv("VKOCC_TEST_MAX_ROUNDS");
  int tr = test_rounds ? atoi(test_rounds) : 0;
  if (tr > 0 && (uint32_t)tr < MAX_ROUNDS) r.push.max_rounds = (uint32_t)tr;
  core_buffer *bufs[] = {&ps->rec, &ps->chase};
  core_kernel_bind(ctx, kernel, bufs);
  /* The first dispatch after pipeline creation is slow; it is not part of any estimate. Short
   * workgroups, enough that every worker (SM, CPU thread) runs the new pipeline: twice the expected P,
   * or 256 when nothing is known. */
  double ignore;
  r.push.mode = ctx->device_clock ? 0 : 1;
  r.push.sleep_ticks = 1;
  r.push.chase_rounds = 1;
  uint32_t warm = opt->hint ? 2 * opt->hint + 2 : 256;
  double tw = util_now_ns();
  s = dispatch(&r, warm < r.max_groups ? warm : r.max_groups, &ignore);
  out->warmup_wall_ns = util_now_ns() - tw;
  r.gpu_ns = 0;
  r.dispatches = 0;

  uint32_t hint = opt->hint;
  uint32_t comb_v[VKOCC_MAX_REPEAT], bis_v[VKOCC_MAX_REPEAT];
  double bound_cap = INFINITY; /* the longest wave the loops' iteration bound covers, learned from sleeps it cut */
  for (uint32_t i = 0; i < repeat && !s; i++) {
    vkocc_probe_rep *rep = &out->reps[i];
    if (method & VKOCC_METHOD_COMB) {
      /* CPU workers are OS threads that may sit out a whole dispatch: on a busy machine (load 7.8 on 2
       * cores) a worker that woke late left 3 dispatches of 6 sleeps of 2 ms to the other one, and the
       * comb confirmed P = 1 on 2 threads. So on a CPU device a P below the hint (or without one) is
       * confirmed twice over dispatches of at least 50 ms; the hint itself (overlap never overcounts)
       * twice over 4 waves. */
      s = run_comb(&r, cal, &sleep, opt->sleep_ns > 0, hint, cpu ? CPU_WAVES : GPU_WAVES, cpu ? CPU_CONFIRM_NS : 0, cpu ? 2 : 1, rep,
                   opt->keep_raw ? &out->raw : NULL, &out->raw_count);
      if (s) break;
      comb_v[i] = rep->comb_P;
      hint = rep->comb_P;
    }
    if (method & VKOCC_METHOD_BISECT) {
      double t0 = util_now_ns(), g0 = r.gpu_ns, wave;
      /* Bisection sees no launch times, only totals: on a CPU device, whose workers wake with OS
       * latencies of a millisecond or two, its wave must be several times that. */
      double bisect_wave = cpu ? fmax(sleep, 8e6) : sleep, max_wave;
      if (ctx->device_clock) {
        wave = bisect_wave;
        max_wave = fmax(wave, cpu ? CPU_MAX_BISECT_NS : MAX_SLEEP_NS);
      } else {
        if ((s = chase_wave(&r, bisect_wave, &wave))) break;
        max_wave = fmax(wave, MAX_ROUNDS * r.chase_ns_per_round);
      }
      max_wave = fmin(max_wave, bound_cap), wave = fmin(wave, max_wave);
      uint32_t reps = ctx->device_clock ? (5 | VKOCC_BISECT_EARLY_EXIT) : 5;
      /* A P that fails the whole-wave check was read from noise: measure again, twice at most. */
      bool overlap_ok = true, too_short = false;
      uint32_t start = hint ? hint : 1, cut = 0, cut_retries = 0;
      char failed[600] = ""; /* a search that failed while sleeps were cut short: its message */
      for (int attempt = 0; attempt < 3;) {
        r.max_overlap = 0;
        r.cut_short = 0, r.cut_min_ns = INFINITY;
        /* each attempt doubles the wave: a worker that wakes late (a busy CPU) must wake within half a
         * wave for its workgroup to overlap, so a longer wave gives it more time */
        double w = fmin(max_wave, wave * (1 << attempt));
        s = vkocc_bisect_search_sized(workload_fn, &r, start, r.max_groups, w, max_wave, reps, &rep->bisect);
        overlap_ok = r.max_overlap <= rep->bisect.P;
        /* A sleep that ended at the loops' iteration bound shortened its wave: the runtimes prove nothing, and a
         * search that failed may have failed for it. The bound covered cut_min_ns: the same attempt again with
         * waves of at most 80% of that (for the later repetitions too), while that still dwarfs the launch
         * jitter (half the first wave); 3 such retries at most, apart from the noise retries. */
        cut = r.cut_short;
        if (cut) {
          snprintf(failed, sizeof failed, "%s", s ? vkocc_last_error() : "");
          double cover = 0.8 * r.cut_min_ns;
          if (!(cover >= bisect_wave * 0.5)) { too_short = true; break; }
          if (++cut_retries > 3) break;
          bound_cap = fmin(bound_cap, cover);
          max_wave = fmin(max_wave, cover), wave = fmin(wave, max_wave);
          continue;
        }
        if (s || !rep->bisect.certain || (rep->bisect.consistent && overlap_ok)) break;
        /* more sleeps seen at once than the search found: search again from there (a hint only; the
         * runtimes must still show one wave there and the step after it) */
        if (!overlap_ok) start = r.max_overlap;
        attempt++;
      }
      if (cut) { /* still cut short: what the search said (if it failed), and why it proves nothing */
        char why[200];
        snprintf(why, sizeof why, "%u sleeps ended at the iteration bound (%u rounds) after %.0f us, before their time",
                 cut, r.push.max_rounds, r.cut_min_ns / 1e3);
        if (failed[0]) s = vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_ITERATION_BOUND, "%s (and %s)", failed, why);
        else s = vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_ITERATION_BOUND, "bisect: %s, %s", why,
                            !too_short ? "in 4 searches with ever shorter waves"
                            : opt->sleep_ns > 0 ? "and shorter waves would not dwarf the launch jitter; use a shorter --sleep-us"
                                                : "and shorter waves would not dwarf the launch jitter");
        break;
      }
      if (s) break;
      if (!rep->bisect.certain) {
        s = vkocc_fail(VKOCC_ERROR_RUNTIME, "bisect: no serialization up to %u workgroups", r.max_groups);
        break;
      }
      if (!overlap_ok) {
        s = vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_NOISY, "bisect: could not establish P: 3 searches "
                       "ended at P = %u, but %u of its sleeps ran at once (a worker that started late, on a busy machine?)", rep->bisect.P,
                       r.max_overlap);
        break;
      }
      if (!rep->bisect.consistent) {
        s = vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_NOISY, "bisect: could not establish P: 3 searches "
                       "ended at P = %u, but %u workgroups ran in %.2f extra waves, %u in %.2f and %u in %.2f (steps 1:2:3 "
                       "expected); the runtimes are too noisy (a busy machine?)", rep->bisect.P, 2 * rep->bisect.P,
                       rep->bisect.waves_2P, 2 * rep->bisect.P + 1, rep->bisect.waves_2P1, 3 * rep->bisect.P + 1,
                       rep->bisect.waves_3P1);
        break;
      }
      wave = rep->bisect.wave_ns;
      rep->bisect_P = rep->bisect.P;
      rep->bisect_gpu_ns = r.gpu_ns - g0;
      rep->bisect_wall_ns = util_now_ns() - t0;
      bis_v[i] = rep->bisect_P;
      if (!(method & VKOCC_METHOD_COMB)) hint = rep->bisect_P;
      out->bisect_wave_ns = wave;
    }
  }
  util_array_fini(&r.iv);
  if (s) { vkocc_probe_result_free(out); return s; }
  out->sleep_ns = sleep;
  /* floor: the fewest waves that reveal P (2) of each method's wave, per repetition */
  out->floor_ns = ((method & VKOCC_METHOD_COMB) ? 2 * sleep : 0) + ((method & VKOCC_METHOD_BISECT) ? 2 * out->bisect_wave_ns : 0);
  out->agree = true;
  if (method & VKOCC_METHOD_COMB) {
    out->comb_median = median_u32(comb_v, repeat, &out->comb_min, &out->comb_max);
    out->agree &= out->comb_min == out->comb_max;
  }
  if (method & VKOCC_METHOD_BISECT) {
    out->bisect_median = median_u32(bis_v, repeat, &out->bisect_min, &out->bisect_max);
    out->agree &= out->bisect_min == out->bisect_max;
  }
  if (method == VKOCC_METHOD_BOTH) out->agree &= out->comb_min == out->bisect_min;
  out->P = (method & VKOCC_METHOD_COMB) ? out->comb_median : out->bisect_median;
  return VKOCC_OK;
}

vkocc_status vkocc_probe(vkocc_context *ctx, const vkocc_calibration *cal_in, const vkocc_probe_options *opt,
                         vkocc_probe_result *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  vkocc_status s = vkocc_probe_check_point(&ctx->info, opt->wg_size, opt->shared_bytes);
  if (s) return s;
  vkocc_calibration cal_local;
  const vkocc_calibration *cal = cal_in;
  if (!cal) {
    vkocc_calibrate_options co;
    vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
    if ((s = vkocc_calibrate(ctx, &co, &cal_local))) return s;
    cal = &cal_local;
  }
  probes_session ps;
  core_kernel k;
  if ((s = probes_session_create(ctx, &ps))) return s;
  if (!(s = probes_kernel_create_now(ctx, opt->wg_size, opt->shared_bytes, &k))) {
    /* One point, one answer: where repetitions or methods disagree, measure again (twice at most), then
     * give up rather than pick one. With more lavapipe threads than cores the comb (residency) and the
     * bisection (throughput) may keep disagreeing: ask for one method then. */
    for (int attempt = 1; attempt <= 3; attempt++) {
      if ((s = probes_measure(&ps, &k, cal, opt, out)) || out->agree) break;
      if (attempt == 3) {
        char b[64] = "";
        if (out->method & VKOCC_METHOD_BISECT) snprintf(b, sizeof b, "; bisect %u..%u", out->bisect_min, out->bisect_max);
        s = vkocc_fail(VKOCC_ERROR_RUNTIME, "could not establish P: 3 measurements disagree (comb %u..%u%s)%s",
                       out->comb_min, out->comb_max, b,
                       out->method == VKOCC_METHOD_BOTH ? "; --method comb measures residency alone" : "");
        if (!(out->method & VKOCC_METHOD_COMB))
          s = vkocc_fail(VKOCC_ERROR_RUNTIME, "could not establish P: 3 measurements disagree (bisect %u..%u)",
                         out->bisect_min, out->bisect_max);
      }
      vkocc_probe_result_free(out);
    }
    core_kernel_destroy(ctx, &k);
  }
  probes_session_destroy(&ps);
  return s;
}

void vkocc_probe_result_free(vkocc_probe_result *r) {
  free(r->raw);
  r->raw = NULL;
  r->raw_count = 0;
}

/* ------------------------------------------------------------------ batched combs
 * The first comb of several points in one command buffer: for each point its warm-up dispatch, a fill
 * that clears its records, and its comb between two timestamps, with barriers so that the dispatches run
 * one after the other. Each point's records go to its own range of one buffer (its kernel's descriptor
 * set is pointed there). A point whose comb confirms P the way run_comb would accept it (every
 * confirmation, one submission each, the same P) is done; the others go to probes_measure, hinted. */
typedef struct {
  bool on;              /* still being confirmed */
  uint32_t groups, warm, P;
  VkDeviceSize off, bytes;
  double sleep, gpu_ns;
  uint32_t dispatches;
  vkocc_comb_estimate e;
} batch_point;

vkocc_status probes_measure_batch(probes_session *ps, core_kernel *kernels, const vkocc_calibration *cal,
                                       const vkocc_probe_options *opts, uint32_t n, vkocc_probe_result *out, bool *done) {
  vkocc_context *ctx = ps->ctx;
  for (uint32_t i = 0; i < n; i++) done[i] = false;
  if (!ctx->device_clock || ps->dispatch || !n || !(cal->ns_per_tick > 0 && isfinite(cal->ns_per_tick))) return VKOCC_OK;
  bool cpu = ctx->info.device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const uint32_t m = (cpu ? CPU_WAVES : GPU_WAVES) - 1, confirmations = cpu ? 2 : 1;
  const double long_ns = cpu ? CPU_CONFIRM_NS : 0, floor_sleep = cpu ? 2e6 : 20e3;
  batch_point *b = util_xcalloc(n, sizeof *b);
  VkDeviceSize total = 0;
  uint32_t pending = 0, max_groups = 0;
  for (uint32_t i = 0; i < n; i++) {
    const vkocc_probe_options *o = &opts[i];
    if (o->method != VKOCC_METHOD_COMB || o->repeat > 1 || o->keep_raw || !o->hint || o->sleep_ns > 0) continue;
    if (vkocc_probe_check_point(&ctx->info, o->wg_size, o->shared_bytes)) { vkocc_clear_error(); continue; }
    b[i].sleep = fmin(4e6, fmax(floor_sleep, 20 * fabs(cal->overhead_ns)));
    if (o->sleep_start_ns > b[i].sleep) b[i].sleep = fmin(MAX_SLEEP_NS, o->sleep_start_ns);
    uint64_t g = (uint64_t)m * o->hint + m, w = 2ull * o->hint + 2;
    if (g > ps->max_groups || w > ps->max_groups) continue;
    b[i].groups = (uint32_t)g, b[i].warm = (uint32_t)w;
    b[i].bytes = (VkDeviceSize)(w > g ? w : g) * RECORD_WORDS * 4;
    b[i].off = total;
    total += (b[i].bytes + 255) & ~(VkDeviceSize)255; /* minStorageBufferOffsetAlignment is at most 256 */
    if (b[i].groups > max_groups) max_groups = b[i].groups;
    b[i].on = true;
    pending++;
  }
  if (!pending) { free(b); return VKOCC_OK; }
  core_buffer buf;
  vkocc_status s = core_buffer_create(ctx, total, true, &buf);
  if (s) { free(b); return s; }
  for (uint32_t i = 0; i < n; i++) {
    if (!b[i].on) continue;
    core_kernel_bind_range(ctx, &kernels[i], 0, 0, &buf, b[i].off, b[i].bytes);
    core_kernel_bind_range(ctx, &kernels[i], 0, 1, &ps->chase, 0, 0);
  }
  vkocc_interval *iv = util_xmalloc((size_t)(max_groups ? max_groups : 1) * sizeof *iv);
  /* Sub-batches of SUB points on two batches: the device runs one while the host reads the records of
   * the other (queue order keeps the dispatches one after the other). */
  enum { SUB = 8 };
  core_batch bt[2];
  memset(bt, 0, sizeof bt);
  for (int k = 0; k < 2 && !s; k++) s = core_batch_create(ctx, SUB, &bt[k]);
  uint32_t *idx = util_xmalloc(n * sizeof *idx);
  double t0 = util_now_ns();
  for (uint32_t round = 0; round < confirmations && pending && !s; round++) {
    uint32_t np = 0;
    for (uint32_t i = 0; i < n; i++)
      if (b[i].on) idx[np++] = i;
    uint32_t nsub = (np + SUB - 1) / SUB;
    for (uint32_t j = 0; j <= nsub && !s; j++) {
      /* submit sub-batch j (if any), then finish sub-batch j - 1 */
      if (j < nsub) {
        core_batch *cb = &bt[j % 2];
        if ((s = core_batch_begin(cb))) break;
        for (uint32_t q = j * SUB; q < np && q < (j + 1) * SUB; q++) {
          uint32_t i = idx[q];
          core_kernel *k = &kernels[i];
          core_batch_bind(cb, k);
          probe_push push = {.mode = 0, .sleep_ticks = 1, .max_rounds = MAX_ROUNDS, .chase_rounds = 1,
                             .chase_mask = CHASE_ENTRIES - 1, .key = 0xFFFFFFFFu};
          if (round == 0) { /* the first dispatch after pipeline creation is slow: short sleeps on every worker */
            core_batch_push(cb, k, &push, sizeof push);
            core_batch_dispatch(cb, b[i].warm);
            core_batch_barrier(cb, VKOCC_SYNC_ALL);
          }
          core_batch_fill(cb, &buf, b[i].off, b[i].bytes, 0);
          core_batch_barrier(cb, VKOCC_SYNC_ALL);
          push.sleep_ticks = sleep_ticks(cal, b[i].sleep);
          core_batch_push(cb, k, &push, sizeof push);
          core_batch_dispatch_timed(cb, b[i].groups); /* record q - j * SUB */
          core_batch_barrier(cb, VKOCC_SYNC_ALL);
        }
        if ((s = core_batch_submit(cb, "batched combs"))) break;
      }
      if (j == 0) continue;
      core_batch *done_b = &bt[(j - 1) % 2];
      /* a sub-batch lasts its dispatches: the context's timeout for each point, at least one */
      if ((s = core_batch_wait(done_b, batch_timeout(ctx, SUB)))) break;
      for (uint32_t q = (j - 1) * SUB; q < np && q < j * SUB; q++) {
        uint32_t i = idx[q];
        const core_batch_record *rec = core_batch_record_of(done_b, q - (j - 1) * SUB);
        bool ok = rec->tick != VKOCC_TICKS_BACKWARDS;
        b[i].gpu_ns += rec->ns;
        b[i].dispatches++;
        uint32_t cut = probes_comb_read_records((const uint32_t *)((const char *)buf.map + b[i].off), b[i].groups,
                                               cal->ns_per_tick, iv, NULL);
        vkocc_comb_estimate e;
        ok = ok && !cut && vkocc_comb_estimate_P(iv, b[i].groups, 0, &e) == VKOCC_OK;
        if (!ok) vkocc_clear_error();
        /* run_comb's acceptance: a sleep long against the launch spread, not everything resident, enough
         * waves of the P seen, and every confirmation the same P */
        uint32_t hint = opts[i].hint;
        ok = ok && !(e.first_tooth_spread_ns > 0.25 * b[i].sleep && b[i].sleep < MAX_SLEEP_NS) && !e.lower_bound;
        if (ok) {
          uint32_t mm = (e.P >= hint) ? m : (uint32_t)fmax(m, ceil(long_ns / b[i].sleep));
          ok = (uint64_t)b[i].groups >= (uint64_t)mm * (e.P + 1) && (round == 0 || e.P == b[i].P);
        }
        if (!ok) { b[i].on = false; pending--; continue; }
        b[i].P = e.P;
        b[i].e = e;
      }
    }
  }
  /* an error leaves a sub-batch on the device: let it finish before its resources go */
  for (int k = 0; k < 2; k++) {
    if (bt[k].in_flight && core_batch_wait(&bt[k], batch_timeout(ctx, SUB)) && !s) vkocc_clear_error();
    core_batch_destroy(&bt[k]);
  }
  free(idx);
  double wall = util_now_ns() - t0;
  uint32_t ndone = 0;
  for (uint32_t i = 0; i < n && !s; i++) ndone += b[i].on;
  for (uint32_t i = 0; i < n && !s; i++) {
    if (!b[i].on) continue;
    vkocc_probe_result *r = &out[i];
    memset(r, 0, sizeof *r);
    r->wg_size = opts[i].wg_size, r->shared_bytes = opts[i].shared_bytes;
    r->method = VKOCC_METHOD_COMB, r->repeat = 1;
    r->reps[0].comb = b[i].e;
    r->reps[0].comb_P = b[i].P;
    r->reps[0].comb_groups = b[i].groups;
    r->reps[0].comb_gpu_ns = b[i].gpu_ns;
    r->reps[0].comb_wall_ns = wall / ndone; /* the batch's wall time, shared out */
    r->reps[0].comb_dispatches = b[i].dispatches;
    r->comb_median = r->comb_min = r->comb_max = r->P = b[i].P;
    r->agree = true;
    r->sleep_ns = b[i].sleep;
    r->floor_ns = 2 * b[i].sleep;
    done[i] = true;
  }
  free(iv);
  core_buffer_destroy(ctx, &buf);
  free(b);
  return s;
}
