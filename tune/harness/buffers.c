/* The device side of the harness (tune/harness/harness.h): the arguments' buffers, their pristine copies and
 * read-backs, the push constants, the clock probe, one batch of dispatches run and waited for within its bound, and
 * the recovery after a dispatch that timed out or lost the device. */
#include "harness.h"

/* ------------------------------------------------------------------ buffers and submissions */

bool tu_validated(const harness *h, uint32_t i) { return h->expect && h->expect[i]; }
static bool restored(const t1_arg *a) { return a->vector && a->data.fill != T1_FILL_NONE && (a->access != T1_RO || a->output); }

/* the device compares freed, or abandoned with the buffers of a device whose work may still run */
static void gpu_check_free(harness *h, bool abandon) {
  for (uint32_t i = 0; h->cmp && !abandon && i < h->s->nargs; i++) {
    core_compare_destroy(CTX(h), &h->cmp[i]);
    core_buffer_destroy(CTX(h), &h->want[i]);
  }
  free(h->cmp), free(h->want);
  h->cmp = NULL, h->want = NULL, h->gpu_check = 0;
}

static vkocc_status gpu_check_add(harness *h, uint32_t i) {
  const t1_arg *a = &h->s->args[i];
  vkocc_status st = core_buffer_create(CTX(h), h->dev[i].size, false, &h->want[i]);
  uint8_t *data = util_xcalloc(1, h->dev[i].size);
  memcpy(data, h->expect[i], a->bytes);
  if (!st) st = core_buffer_upload(CTX(h), &h->want[i], data, h->dev[i].size);
  free(data);
  core_compare_desc d;
  tu_gpu_compare_desc(a, h->ref_of[i], &h->dev[i], &h->want[i], &d);
  return st ? st : core_compare_create(CTX(h), &d, &h->cmp[i]);
}

/* Once the reference is known: the expected outputs uploaded, a compare per validated output; where any cannot
 * be had, every output is compared on the host as before. */
static void gpu_check_setup(harness *h) {
  if (h->gpu_check || !h->expect || !h->have_reference) return;
  const char *cpu = getenv("VKOCC_TEST_CPU_COMPARE");
  h->gpu_check = -1;
  if (cpu && !strcmp(cpu, "1")) return;
  /* a CPU device compares slower than the host (lavapipe, 4 Mi floats: 172 ms against 51 ms read back and
   * compared here); VKOCC_TEST_CPU_COMPARE=0 keeps the device's compare there (its tests) */
  bool device_is_cpu = vkocc_context_device(CTX(h))->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (device_is_cpu && !(cpu && !strcmp(cpu, "0"))) return;
  h->want = util_xcalloc(h->s->nargs + 1, sizeof *h->want);
  h->cmp = util_xcalloc(h->s->nargs + 1, sizeof *h->cmp);
  vkocc_status st = VKOCC_OK;
  for (uint32_t i = 0; i < h->s->nargs && !st; i++)
    if (tu_validated(h, i)) st = gpu_check_add(h, i);
  if (st) gpu_check_free(h, false), vkocc_clear_error();
  h->gpu_check = st ? -1 : 1;
}

/* The probe, and the steady clock the device's cached fingerprint measured under load (its calibration: SM cycles
 * per realtime tick) as the rule's start: without it, a run that never left an intermediate clock state (an H100
 * at 0.64 GHz of 1.98) took that state for steady. */
static void clock_setup(harness *h) {
  if (h->probe_tried) return;
  h->probe_tried = true;
  if (!(h->probe_on = !core_clock_probe_create(CTX(h), 2, &h->probe))) return;
  vkocc_fingerprint fp;
  vkocc_fingerprint_details det;
  if (!vkocc_fingerprint_from_cache(&CTX(h)->info, 0, &fp, &det)) return;
  json_t *cal = json_object_get((json_t *)det.document, "calibration");
  double mhz = json_number_value(json_object_get(cal, "shader_clock_mhz"));
  double tick = json_number_value(json_object_get(cal, "ns_per_realtime_tick"));
  if (mhz > 0 && tick > 0) tu_clock_seed(&h->clk, mhz / 1e3 * tick);
  vkocc_fingerprint_details_free(&det);
}

void tu_free_buffers(harness *h) {
  vkocc_context *ctx = CTX(h);
  gpu_check_free(h, false);
  core_clock_probe_destroy(ctx, &h->probe);
  h->probe_on = h->probe_tried = false;
  if (!h->dev) return;
  for (uint32_t i = 0; i < h->s->nargs; i++) {
    if (h->restore) core_copy_destroy(ctx, &h->restore[i]);
    core_buffer_destroy(ctx, &h->dev[i]);
    core_buffer_destroy(ctx, &h->pristine[i]);
    core_buffer_destroy(ctx, &h->readback[i]);
  }
  free(h->dev), free(h->pristine), free(h->readback), free(h->restore);
  h->dev = h->pristine = h->readback = NULL, h->restore = NULL;
  h->buffers_ready = h->readback_made = false;
}

/* The host's copies of the outputs (and of what is validated), made when a batch first reads back to the host: a
 * device that compares on itself never needs them (256 MiB of host-visible memory took 67-111 ms to allocate on
 * the H100). */
static vkocc_status make_readback(harness *h) {
  vkocc_status st = VKOCC_OK;
  double t0 = vkocc_now_ms();
  for (uint32_t i = 0; i < h->s->nargs && !st; i++) {
    const t1_arg *a = &h->s->args[i];
    if (a->vector && !h->readback[i].buffer && (a->output || tu_validated(h, i)))
      st = core_buffer_create(CTX(h), (a->bytes + 3) / 4 * 4, true, &h->readback[i]);
  }
  h->readback_made = !st;
  if (h->trace_setup) tu_note(h->o, "vkocc tune: setup the read-back buffers: %.1f ms", vkocc_now_ms() - t0);
  return st;
}

/* Device buffers for every Vector (inputs uploaded; a pristine copy of what a run may change); the read-back
 * buffers come later (make_readback), the push constants with the first module (fill_push). USAGE for a size
 * beyond the device's limits. */
vkocc_status tu_make_buffers(harness *h) {
  vkocc_context *ctx = CTX(h);
  t1_spec *s = h->s;
  core_exec_limits lim;
  core_exec_limits_get(ctx, &lim);
  h->dev = util_xcalloc(s->nargs + 1, sizeof *h->dev);
  h->pristine = util_xcalloc(s->nargs + 1, sizeof *h->pristine);
  h->readback = util_xcalloc(s->nargs + 1, sizeof *h->readback);
  h->readback_made = false;
  /* inputs restored by vkCmdCopyBuffer. A compute copy (core_copy) restored 256 MiB in 0.19 ms on an H100
   * against 0.64, but every SAXPY it restored for timed 0.5% slower than after vkCmdCopyBuffer (the same binary,
   * board and call: best 280.22 against 278.69 us, the old harness 278.46): what a restore leaves behind must not
   * move the time. VKOCC_TEST_COMPUTE_RESTORE=1 takes the compute copy (its tests; the benchmark's comparison). */
  const char *cr = getenv("VKOCC_TEST_COMPUTE_RESTORE");
  if (cr && !strcmp(cr, "1")) h->restore = util_xcalloc(s->nargs + 1, sizeof *h->restore);
  vkocc_status st = VKOCC_OK;
  for (uint32_t i = 0; i < s->nargs && !st; i++) {
    t1_arg *a = &s->args[i];
    uint64_t bytes = (a->bytes + 3) / 4 * 4;
    if (!a->vector) continue; /* the Scalars: fill_push, once a module has placed them */
    if (bytes > lim.max_storage_buffer_range) {
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.Size: %llu bytes exceed maxStorageBufferRange (%u) of %s", s->file, a->path,
                      (unsigned long long)bytes, lim.max_storage_buffer_range, ctx->info.name);
      break;
    }
    double t[5] = {vkocc_now_ms()};
    if ((st = core_buffer_create(ctx, bytes, false, &h->dev[i]))) break;
    t[1] = t[2] = t[3] = t[4] = vkocc_now_ms();
    if (a->data.fill != T1_FILL_NONE) {
      void *host;
      bool shared;
      st = tu_fill_data(h, "arg", i, &a->data, a->path, a, bytes, &host, &shared);
      t[2] = vkocc_now_ms();
      /* the pristine copy of what a run changes, from the same staging buffer in the same submission */
      if (!st && restored(a)) st = core_buffer_create(ctx, bytes, false, &h->pristine[i]);
      t[3] = vkocc_now_ms();
      core_buffer *to[2] = {&h->dev[i], &h->pristine[i]};
      if (!st) st = core_buffer_upload_to(ctx, to, restored(a) ? 2 : 1, host, bytes);
      if (!st && restored(a) && h->restore) st = core_copy_create(ctx, &h->pristine[i], &h->dev[i], bytes, &h->restore[i]);
      t[4] = vkocc_now_ms();
      if (!shared) free(host);
    }
    if (h->trace_setup)
      tu_note(h->o, "vkocc tune: setup %s (%llu bytes): buffer %.1f ms, data %.1f, pristine buffer %.1f, upload %.1f",
              a->name, (unsigned long long)bytes, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3]);
  }
  if (st) tu_free_buffers(h);
  pthread_mutex_lock(&h->pb.modules); /* the pool reads it there (prepare_module) */
  h->buffers_ready = !st;
  pthread_mutex_unlock(&h->pb.modules);
  pthread_mutex_lock(&h->pb.lock); /* the compiled configurations' pipelines can be built now */
  h->pb.pipelines_ok = !st;
  pthread_cond_broadcast(&h->pb.wake);
  pthread_mutex_unlock(&h->pb.lock);
  return st;
}

/* The Scalars' push constants, at the offsets the first module's check gave them (host memory: kept through a
 * device reopened). */
vkocc_status tu_fill_push(harness *h) {
  t1_spec *s = h->s;
  memset(h->push, 0, sizeof h->push);
  for (uint32_t i = 0; i < s->nargs; i++) {
    t1_arg *a = &s->args[i];
    if (a->vector) continue;
    uint8_t tmp[64];
    vkocc_status st = t1_fill_data(s, &a->data, a->path, a, tmp);
    if (st) return st;
    memcpy(h->push + a->push_offset, tmp, a->bytes);
  }
  h->push_filled = true;
  return VKOCC_OK;
}

/* restore what a run changes (RW inputs, outputs with initial data), poison the outputs without any */
static void record_reset(harness *h, core_batch *b, bool poison) {
  t1_spec *s = h->s;
  pthread_mutex_lock(&h->pb.modules); /* the pool's threads add the bindings of modules they check */
  const uint64_t written = h->written;
  pthread_mutex_unlock(&h->pb.modules);
  for (uint32_t i = 0; i < s->nargs; i++) {
    t1_arg *a = &s->args[i];
    if (!a->vector) continue;
    /* a buffer no module writes (NonWritable, whatever its T1 access says) keeps its data: no copy */
    bool may_write = a->binding < 0 || a->binding >= 64 || (written >> a->binding & 1);
    if (restored(a) && may_write) {
      if (h->restore) core_copy_record(b, &h->restore[i]);
      else core_batch_copy(b, &h->pristine[i], &h->dev[i], 0, 0, h->dev[i].size);
    }
    else if (poison && a->data.fill == T1_FILL_NONE)
      core_batch_fill(b, &h->dev[i], 0, h->dev[i].size, h->poison ? h->poison : POISON);
  }
  core_batch_barrier(b, VKOCC_SYNC_ALL);
}

/* count dispatches, timed one by one; readback copies the outputs after the last. *lost / *timed_out say
 * why a failed wait failed (the device is gone, or it did not finish within timeout_s). */
vkocc_status tu_run_batch(harness *h, core_kernel *k, const uint32_t groups[3], uint32_t count, bool poison,
                              bool readback, double timeout_s, double *ns, bool *lost, bool *timed_out) {
  vkocc_context *ctx = CTX(h);
  core_batch *b = core_context_batch(ctx);
  *lost = *timed_out = false;
  /* the run's own setup, once: uploads before the batch is begun; counted as setup (the arguments' data), not as
   * the configuration's (the first one's validation took 450 ms on an H100 with 256 MiB of expected outputs) */
  if ((readback && !h->gpu_check && h->expect && h->have_reference) || !h->probe_tried) {
    double s0 = vkocc_now_ms();
    if (readback) gpu_check_setup(h);
    clock_setup(h);
    double s = vkocc_now_ms() - s0;
    h->run->setup_ms += s, h->late_setup_ms += s;
  }
  if (readback && h->gpu_check != 1 && !h->readback_made) {
    double s0 = vkocc_now_ms();
    vkocc_status rs = make_readback(h);
    double s = vkocc_now_ms() - s0;
    h->run->setup_ms += s, h->late_setup_ms += s;
    if (rs) return rs;
  }
  vkocc_status st = core_batch_begin(b);
  if (st) { *lost = core_context_lost(ctx); return st; }
  uint32_t first = 0;
  if (h->probe_on) core_clock_probe_record(b, &h->probe, 0);
  for (uint32_t i = 0; i < count; i++) {
    record_reset(h, b, poison && i == 0);
    core_batch_bind(b, k);
    if (h->push_bytes) core_batch_push(b, k, h->push, h->push_bytes);
    uint32_t t = core_batch_timer_start_after(b); /* after the restoring copies, not during their tail */
    if (!i) first = t;
    core_batch_dispatch3(b, groups[0], groups[1], groups[2]);
    core_batch_timer_stop(b, t);
    core_batch_barrier(b, VKOCC_SYNC_ALL);
  }
  if (h->probe_on) core_clock_probe_record(b, &h->probe, 1);
  if (readback && h->gpu_check == 1) {
    for (uint32_t i = 0; i < h->s->nargs; i++)
      if (tu_validated(h, i)) core_compare_record(b, &h->cmp[i]);
  } else if (readback) {
    for (uint32_t i = 0; i < h->s->nargs; i++)
      if (h->readback[i].buffer) core_batch_copy(b, &h->dev[i], &h->readback[i], 0, 0, h->dev[i].size);
    core_batch_barrier(b, VKOCC_SYNC_TRANSFER_TO_HOST);
  }
  if (h->gpu_end_ms > 0 && h->idle_ms >= 0) h->idle_ms += vkocc_now_ms() - h->gpu_end_ms;
  uint64_t t = (uint64_t)(timeout_s * 1e9);
  st = core_batch_run(b, t ? t : 1, "a tuning dispatch");
  if (st) {
    *lost = core_context_lost(ctx);
    *timed_out = !*lost && vkocc_last_reason() == VKOCC_REASON_TIMEOUT;
    return st;
  }
  /* VKOCC_TEST_DEVICE_LOSS=N: the Nth batch of the run acts as if the device were lost (tests the reopening;
   * a real loss cannot be provoked on lavapipe) */
  if (h->lose_at && ++h->batches == h->lose_at) {
    ctx->lost = true;
    *lost = true;
    return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_DEVICE_LOST, "a tuning dispatch: VK_ERROR_DEVICE_LOST "
                             "(simulated: VKOCC_TEST_DEVICE_LOSS)");
  }
  h->gpu_end_ms = vkocc_now_ms();
  /* the device busy with this batch, restores, compares and probes included: the tuning's device time */
  h->last_span_ms = b->span_ns * 1e-6;
  h->run->device_ms += h->last_span_ms;
  if (h->probe_on) h->clock_before = core_clock_probe_read(&h->probe, 0), h->clock_after = core_clock_probe_read(&h->probe, 1);
  for (uint32_t i = 0; i < count; i++) {
    const core_batch_record *r = core_batch_record_of(b, first + i);
    if (r->tick == VKOCC_TICKS_BACKWARDS)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "queue timestamps went backwards around a tuning dispatch");
    ns[i] = r->ns;
  }
  return VKOCC_OK;
}

/* After a dispatch that timed out or lost the device. A timed-out dispatch that ends within the context's
 * limit leaves the device usable: nothing is reopened. Otherwise the context is reopened; what was made on
 * a device whose work may still run is abandoned (its memory leaks) rather than freed under it. */
vkocc_status tu_recover(harness *h, tu_result *r, tu_invalidity inv, const char *why, core_kernel *k) {
  vkocc_context *ctx = CTX(h);
  r->inv = inv;
  snprintf(r->error, sizeof r->error, "%s", why);
  bool lost = core_context_lost(ctx);
  if (!lost && core_batch_wait(core_context_batch(ctx), 0) == VKOCC_OK) {
    core_kernel_destroy(ctx, k);
    return VKOCC_OK; /* it finished late: recorded as timeout, the device goes on */
  }
  if (!h->o->reopen) return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s (no way to reopen the device)", why);
  tu_prebuild_drain(h); /* nothing made on this device survives it */
  lost = core_context_lost(ctx);
  if (lost) {
    /* a lost device runs nothing more: its objects can be destroyed */
    core_kernel_destroy(ctx, k);
    tu_free_buffers(h);
  } else {
    /* still running: keep its objects alive, and the device too (never destroyed under running work) */
    memset(k, 0, sizeof *k);
    gpu_check_free(h, true);
    memset(&h->probe, 0, sizeof h->probe), h->probe_on = h->probe_tried = false; /* abandoned with the device */
    free(h->dev), free(h->pristine), free(h->readback), free(h->restore);
    h->dev = h->pristine = h->readback = NULL, h->restore = NULL;
    h->buffers_ready = h->readback_made = false;
    *h->ctxp = NULL;
  }
  vkocc_status st = h->o->reopen(h->o->user, h->ctxp);
  h->run->device_losses++;
  if (!st) st = tu_make_buffers(h);
  return st;
}

tu_outcome tu_invalid(trial *t, tu_invalidity inv, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->r->error, sizeof t->r->error, fmt, ap);
  va_end(ap);
  t->r->inv = inv;
  return TU_INVALID;
}

tu_outcome tu_stop(trial *t, vkocc_status st) {
  t->st = st;
  return TU_STOP;
}

/* A pipeline, P or dispatch that failed: a lost device or a dispatch past its bound is recovered from (the
 * configuration is recorded; the run goes on when the device does); any other failure is the configuration's. */
tu_outcome tu_failed(harness *h, trial *t, tu_invalidity inv, bool lost, bool timed_out, const char *why) {
  if (!lost && !timed_out) return tu_invalid(t, inv, "%s", why);
  t->st = tu_recover(h, t->r, timed_out ? TU_TIMEOUT : TU_RUNTIME, why, &t->k);
  return TU_INVALID;
}

/* count dispatches of the trial's pipeline (run_batch), each bounded by timeout_s */
tu_outcome tu_dispatch(harness *h, trial *t, uint32_t count, bool poison, bool readback, double *ns) {
  bool lost, timed_out;
  if (!tu_run_batch(h, &t->k, t->r->groups, count, poison, readback, t->timeout_s * count, ns, &lost, &timed_out)) {
    for (uint32_t i = 0; i < count; i++) t->r->gpu_ms += ns[i] * 1e-6;
    t->r->device_ms += h->last_span_ms;
    t->r->submissions++;
    t->late_setup_ms += h->late_setup_ms, h->late_setup_ms = 0;
    return TU_GO;
  }
  char why[600];
  if (timed_out) snprintf(why, sizeof why, "%u dispatches did not end within the bound of %.3g s each (--timeout)", count,
                          t->timeout_s);
  else snprintf(why, sizeof why, "%s", vkocc_last_error());
  return tu_failed(h, t, TU_RUNTIME, lost, timed_out, why);
}
