/* The prepare phase (tune/harness/harness.h): everything before a configuration's first dispatch: its sizes, its
 * module and pipeline (taken from the pool where built ahead), P of its pipeline (from the device's model where it
 * determines it, else measured once per pipeline and per resources), its workgroup count. */
#include "harness.h"
#include "written_internal.h"

/* ---- prepare: everything before the configuration's first dispatch */

static tu_outcome prepare_sizes(harness *h, trial *t) {
  t1_spec *s = h->s;
  tu_result *r = t->r;
  config *x = t->x;
  if (!x->sized && (t->st = t1_sizes(s, x->coord, h->global_P ? 1 : -1, x->local, x->groups))) return TU_STOP;
  x->sized = true;
  memcpy(r->local, x->local, sizeof r->local);
  if (!h->global_P) memcpy(r->groups, x->groups, sizeof r->groups);
  uint64_t inv = (uint64_t)r->local[0] * r->local[1] * r->local[2];
  core_exec_limits lim;
  core_exec_limits_get(CTX(h), &lim);
  if (inv > lim.max_invocations || r->local[0] > lim.max_wg_size[0] || r->local[1] > lim.max_wg_size[1] ||
      r->local[2] > lim.max_wg_size[2])
    return tu_invalid(t, TU_CONSTRAINTS, "workgroup %ux%ux%u exceeds the device's limits (%u invocations, %ux%ux%u)",
                   r->local[0], r->local[1], r->local[2], lim.max_invocations, lim.max_wg_size[0], lim.max_wg_size[1],
                   lim.max_wg_size[2]);
  return TU_GO;
}

/* the module (compiled on the first use of its define set), its interface checked and the push constants filled on
 * the first module that fits, the specialization constants, and the workgroup size and shared memory of the specialized module */
tu_outcome tu_prepare_module(harness *h, trial *t) {
  t1_spec *s = h->s;
  char err[512];
  module *m = t->m = tu_get_module(h, t->x, &t->r->compile_ms);
  if (m->failed && strstr(m->error, "entry point")) /* every configuration would fail alike: the spec names no entry */
    return tu_stop(t, vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelName: '%.200s': %s", s->file,
                              s->kernel_name, m->error));
  if (m->failed) return tu_invalid(t, TU_COMPILE, "compile: %s", m->error);
  pthread_mutex_lock(&h->pb.modules); /* a module's interface is checked once, by whichever thread needs it first */
  if (t->ahead && !h->buffers_ready) { /* tu_tune makes the buffers before the pool starts; this guards a reopen */
    pthread_mutex_unlock(&h->pb.modules);
    return TU_STOP;
  }
  if (!m->checked && !(t->st = tu_check_interface(h, m))) m->checked = true;
  if (!t->st && !h->push_filled) t->st = tu_fill_push(h); /* whichever thread checks first: a prebuilt pipeline's too */
  pthread_mutex_unlock(&h->pb.modules);
  if (t->st) return TU_STOP;
  if (!tu_specs_of(h, m, t->coord, t->r->local, &t->sp, err, sizeof err)) return tu_invalid(t, TU_COMPILE, "%s", err);
  const uint32_t *l = t->r->local, *wg = t->info.wg;
  if (compile_spirv_inspect(m->spv, m->words, s->kernel_file, s->kernel_name, t->sp.v, t->sp.n, &t->info))
    return tu_invalid(t, TU_COMPILE, "%s", vkocc_last_error());
  if (wg[0] != l[0] || wg[1] != l[1] || wg[2] != l[2]) /* a literal size that disagrees with LocalSize: bad input */
    return tu_stop(t, vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.LocalSize: %ux%ux%u, but %s's workgroup size "
                              "is %ux%ux%u (a literal local_size; use local_size_x_id or LOCAL_SIZE_X)", s->file, l[0],
                              l[1], l[2], s->kernel_file, wg[0], wg[1], wg[2]));
  core_exec_limits lim;
  core_exec_limits_get(CTX(h), &lim);
  if (t->info.shared_bytes > lim.max_shared_bytes)
    return tu_invalid(t, TU_COMPILE, "%u bytes of shared memory exceed the device's %u", t->info.shared_bytes,
                   lim.max_shared_bytes);
  return TU_GO;
}

/* the pipeline: the caller's buffers at their set 0 bindings, the constants in their declared types */
tu_outcome tu_prepare_pipeline(harness *h, trial *t) {
  t1_spec *s = h->s;
  core_kernel_resource res[64];
  uint32_t nres = 0;
  for (uint32_t i = 0; i < s->nargs && nres < 64; i++)
    if (s->args[i].vector)
      res[nres++] = (core_kernel_resource){.set = 0, .binding = (uint32_t)s->args[i].binding, .buffer = &h->dev[i]};
  core_kernel_desc kd = {.spv = t->m->spv, .words = t->m->words, .name = s->kernel_file, .role = "user's",
                          .entry = s->kernel_name, .info = &t->info, .refl = &t->m->refl, .spec = t->sp.v,
                          .nspec = t->sp.n, .res = res, .nres = nres, .statistics = h->s->uses_P || h->o->always_P,
                          .uncached = t->ahead && h->pb.uncached};
  if (!core_kernel_build(CTX(h), &kd, &t->k)) return TU_GO;
  if (t->ahead) return TU_STOP; /* the main thread builds it again, and recovers from what failed */
  char why[600];
  snprintf(why, sizeof why, "pipeline creation: %s", vkocc_last_error());
  return tu_failed(h, t, TU_COMPILE, core_context_lost(CTX(h)), false, why);
}

bool tu_fingerprint_derived(const json_t *doc, const vkocc_device_info *dev, vkocc_derived *out) {
  json_t *d = json_object_get(doc, "device");
  char uuid[37];
  vkocc_format_uuid(dev->uuid, uuid);
  const char *u = json_string_value(json_object_get(d, "uuid"));
  json_t *drv = json_object_get(d, "driver_version_raw"), *q = json_object_get(d, "compute_queue_family");
  if (!u || strcmp(u, uuid) || !json_is_integer(drv) || json_integer_value(drv) != (json_int_t)dev->driver_version ||
      !json_is_integer(q) || json_integer_value(q) != (json_int_t)dev->compute_queue_family)
    return false;
  bool ok = !vkocc_derived_from_json(json_object_get(doc, "derived"), "the fingerprint", "$.derived", out);
  vkocc_clear_error();
  return ok;
}

/* The device's model, read once: its fingerprint's per-SM limits (the cache's, else the fingerprint given for this
 * device: a fresh cache and --fingerprint left P of the pipeline as written unestablished for every configuration
 * of SAXPY on an H100) and its register model (the cache's): what P_of_model and the written-pipeline rule need. */
static bool model_known(harness *h) {
  if (!h->model_read) {
    vkocc_fingerprint fp;
    vkocc_fingerprint_details det;
    h->model_read = true;
    if (vkocc_fingerprint_from_cache(&CTX(h)->info, 0, &fp, &det)) {
      h->derived = det.derived, h->have_derived = true;
      vkocc_fingerprint_details_free(&det);
    } else if (h->o->fp_doc && tu_fingerprint_derived(h->o->fp_doc, &CTX(h)->info, &h->derived)) {
      h->have_derived = true;
    }
    h->have_registers = vkocc_register_model_from_cache(&CTX(h)->info, &h->registers);
  }
  return h->have_derived && h->have_registers;
}

/* P from the model where it is exact (tu_P_model) under the pipeline's own statistics: a register count, the
 * shared memory, and no other statistic that could bound occupancy (an unknown one: measured). */
static bool P_of_model(harness *h, trial *t, uint32_t *P) {
  char names[24][64];
  double v[24];
  uint32_t n = model_known(h) ? core_kernel_statistics(CTX(h), &t->k, names, v, 24) : 0;
  uint32_t regs = 0, shared = t->info.shared_bytes;
  for (uint32_t i = 0; i < n; i++) {
    int kind = probes_stat_kind(names[i]);
    if (kind == VKOCC_STAT_REGISTERS) regs = v[i] > 0 ? (uint32_t)v[i] : 0;
    else if (kind == VKOCC_STAT_SHARED) shared = v[i] > 0 ? (uint32_t)v[i] : 0;
    else if (kind != VKOCC_STAT_NEUTRAL) return false;
  }
  return n && tu_P_model(&h->derived, &h->registers, t->info.wg[0] * t->info.wg[1] * t->info.wg[2], shared, regs, P);
}

/* P measured (the pipeline augmented, the comb alone, one dispatch per estimate, its first sized by the last P
 * measured; cached by the library on disk) */
static tu_outcome P_measured(harness *h, trial *t) {
  t1_spec *s = h->s;
  const tu_options *o = h->o;
  vkocc_context *ctx = CTX(h);
  if (!h->have_cal && !o->cal) {
    vkocc_calibrate_options co;
    vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
    if ((t->st = vkocc_calibrate(ctx, &co, &h->cal))) return TU_STOP;
    h->have_cal = true;
  }
  vkocc_shader_desc sd = {.spirv = t->m->spv, .spirv_words = t->m->words, .name = s->kernel_file,
                          .lang = VKOCC_SHADER_SPIRV, .entry = s->kernel_name, .spec = t->sp.v, .nspec = t->sp.n};
  vkocc_pipeline_result pr;
  vkocc_probe_options po = {.method = vkocc_context_has_device_clock(ctx) ? VKOCC_METHOD_COMB : 0,
                            .hint = h->last_P > 0 ? (uint32_t)h->last_P : 0};
  model_known(h);
  vkocc_status st = vkocc_pipeline_occupancy_model(ctx, o->cal ? o->cal : &h->cal, &sd, &po, h->have_derived ? &h->derived : NULL,
                                                   h->have_registers ? &h->registers : NULL, true, &pr);
  if (st == VKOCC_ERROR_UNSUPPORTED && s->uses_P) return tu_stop(t, st); /* no shader clock: P cannot be had */
  if (st) {
    char why[600];
    snprintf(why, sizeof why, "occupancy: %s", vkocc_last_error());
    return tu_failed(h, t, TU_RUNTIME, core_context_lost(ctx), false, why);
  }
  h->last_P = t->r->P = pr.P;
  vkocc_pipeline_result_free(&pr);
  return TU_GO;
}

/* The keys under which a measured P serves the rest of the run: the pipeline (its module, its specialization,
 * its workgroup size: the same pipeline has the same P), and where the driver gives a register count among the
 * pipeline's statistics, its resources (workgroup size, shared memory and every statistic that bounds
 * occupancy: what decides how many workgroups are resident; "" without). */
static void P_keys(harness *h, trial *t, char *pipe, size_t plen, char *res, size_t rlen) {
  const uint32_t *wg = t->info.wg;
  size_t n = (size_t)snprintf(pipe, plen, "pipeline %d wg %ux%ux%u", t->x->module, wg[0], wg[1], wg[2]);
  for (uint32_t i = 0; i < t->sp.n && n < plen; i++)
    n += (size_t)snprintf(pipe + n, plen - n, " %u=%.17g", t->sp.v[i].id, t->sp.v[i].value);
  res[0] = 0;
  char names[24][64];
  double v[24];
  uint32_t ns = core_kernel_statistics(CTX(h), &t->k, names, v, 24);
  bool regs = false;
  for (uint32_t i = 0; i < ns; i++) regs |= probes_stat_kind(names[i]) == VKOCC_STAT_REGISTERS;
  if (!regs) return;
  n = (size_t)snprintf(res, rlen, "resources wg %u shared %u", wg[0] * wg[1] * wg[2], t->info.shared_bytes);
  for (uint32_t i = 0; i < ns && n < rlen; i++)
    if (probes_stat_kind(names[i]) != VKOCC_STAT_NEUTRAL) n += (size_t)snprintf(res + n, rlen - n, " %s=%.17g", names[i], v[i]);
}

/* P of the pipeline, when a condition or size names it or --occupancy asks: from the model where it is exact,
 * else measured; then the conditions that name P, and the workgroup count where it names P */
static tu_outcome prepare_P(harness *h, trial *t) {
  t1_spec *s = h->s;
  if (!s->uses_P && !h->o->always_P) return TU_GO;
  uint32_t P;
  tu_outcome out = TU_GO;
  if (P_of_model(h, t, &P)) t->r->P = P, t->r->P_model = true;
  else { /* the memo's keys read the pipeline's statistics: only where the model does not give P */
    char pipe[1400], res[1400];
    json_t *hit = NULL;
    P_keys(h, t, pipe, sizeof pipe, res, sizeof res);
    if (!h->P_memo) h->P_memo = json_object();
    if ((hit = json_object_get(h->P_memo, pipe))) t->r->P_memo = TU_P_SAME_PIPELINE;
    else if (res[0] && (hit = json_object_get(h->P_memo, res))) t->r->P_memo = TU_P_SAME_RESOURCES;
    else if ((out = P_measured(h, t)) == TU_GO) {
      json_t *v = json_pack("[I, I]", (json_int_t)t->r->P, (json_int_t)t->c);
      json_object_set(h->P_memo, pipe, v);
      if (res[0]) json_object_set(h->P_memo, res, v);
      json_decref(v);
    }
    if (hit) t->r->P = json_integer_value(json_array_get(hit, 0)), t->r->P_from = json_integer_value(json_array_get(hit, 1));
  }
  if (out != TU_GO) return out;
  bool ok;
  char why[400];
  if ((t->st = t1_check_P(s, t->coord, t->r->P, &ok, why, sizeof why))) return TU_STOP;
  if (!ok) return tu_invalid(t, TU_CONSTRAINTS, "%s", why);
  if (h->global_P && (t->st = t1_sizes(s, t->coord, t->r->P, t->r->local, t->r->groups))) return TU_STOP;
  return TU_GO;
}

static tu_outcome prepare_groups(harness *h, trial *t) {
  const uint32_t *g = t->r->groups;
  core_exec_limits lim;
  core_exec_limits_get(CTX(h), &lim);
  if (g[0] > lim.max_wg_count[0] || g[1] > lim.max_wg_count[1] || g[2] > lim.max_wg_count[2])
    return tu_invalid(t, TU_CONSTRAINTS, "%ux%ux%u workgroups exceed maxComputeWorkGroupCount", g[0], g[1], g[2]);
  return TU_GO;
}

tu_outcome tu_phase_prepare(harness *h, trial *t) {
  tu_result *r = t->r;
  tu_run *run = h->run;
  tu_outcome out = prepare_sizes(h, t);
  double w0 = vkocc_now_ms();
  bool made = out == TU_GO && tu_prebuilt_take(h, t);
  if (out == TU_GO && !made) out = tu_prepare_module(h, t);
  if (t->compiled_ahead_ms > r->compile_ms) r->compile_ms = t->compiled_ahead_ms;
  if (out == TU_GO && !made) {
    double t0 = vkocc_now_ms();
    out = tu_prepare_pipeline(h, t);
    r->pipeline_ms = vkocc_now_ms() - t0;
  }
  /* what the device waited for: the module and pipeline, built here or by the pool */
  r->wait_ms = fmax(0, vkocc_now_ms() - w0);
  if (r->pipeline_ms > 0) run->pipelines++, run->pipelines_ms += r->pipeline_ms;
  if (out == TU_GO) {
    double t0 = vkocc_now_ms();
    out = prepare_P(h, t);
    r->occupancy_ms = vkocc_now_ms() - t0;
    run->occupancy_ms += r->occupancy_ms;
  }
  return out == TU_GO ? prepare_groups(h, t) : out;
}
