/* The benchmark harness behind `vkocc tune`: the kernel's space pruned by the device's limits, every
 * pipeline created up front in parallel through the context's VkPipelineCache, then each configuration
 * timed with queue timestamps around each dispatch (warm-ups discarded), repeated in batches until the
 * relative spread of the runs is small or a cap is reached, and its answer checked against the CPU
 * reference after every batch. An invalid configuration keeps its times but is never chosen. */
#include "tune.h"
#include "exec.h"
#include "compile.h"
#include "model.h" /* vkocc_derive_fixed, the cluster recipes */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_BATCH 16
#define WARMUPS 2

void tune_device_of(vkocc_context *ctx, tune_device *d) {
  const vkocc_device_info *i = &ctx->info;
  d->max_invocations = i->max_invocations, d->max_wg_size_x = i->max_wg_size_x;
  d->max_shared_bytes = i->max_shared_bytes, d->max_wg_count_x = i->max_wg_count_x;
  vkocc_exec_limits lim;
  vkocc_exec_limits_get(ctx, &lim);
  d->subgroup_arithmetic = lim.subgroup_arithmetic;
}

/* --only NAME=V1,V2 */
static vkocc_status only_match(const tune_kernel_def *k, const char *spec, const tune_config *c, bool *keep) {
  const char *eq = strchr(spec, '=');
  uint32_t i = 0;
  while (eq && i < k->nparams && (strlen(k->params[i].name) != (size_t)(eq - spec) ||
                                  strncmp(k->params[i].name, spec, (size_t)(eq - spec))))
    i++;
  if (!eq || i == k->nparams || !eq[1])
    return vkocc_fail(VKOCC_ERROR_USAGE, "--only '%s': expected PARAM=V1[,V2...] with a parameter of %s", spec, k->name);
  *keep = true;
  if (!(c->mask & (1u << i))) return VKOCC_OK; /* a configuration without that parameter stays */
  *keep = false;
  char want[64];
  if (k->params[i].names) snprintf(want, sizeof want, "%s", k->params[i].names[c->v[i]]);
  else snprintf(want, sizeof want, "%u", c->v[i]);
  for (const char *p = eq + 1; *p;) {
    size_t l = strcspn(p, ",");
    if (l == strlen(want) && !strncmp(p, want, l)) *keep = true;
    p += l + (p[l] == ',');
  }
  return VKOCC_OK;
}

vkocc_status tune_prepare(vkocc_context *ctx, const tune_kernel_def *k, uint64_t n, bool f32, const tune_options *opt,
                          tune_run *run) {
  memset(run, 0, sizeof *run);
  run->k = k, run->f32 = f32, run->n = n;
  vkocc_exec_limits lim;
  vkocc_exec_limits_get(ctx, &lim);
  uint64_t heap = lim.device_local_heap_bytes;
  uint64_t bytes = 4 * n;
  if (n == 0 || n > 0x7fffffffull)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--size %llu: expected 1 to 2^31-1 elements", (unsigned long long)n);
  if (bytes > lim.max_storage_buffer_range)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--size %llu: %llu bytes of input exceed maxStorageBufferRange (%u bytes) of %s",
                      (unsigned long long)n, (unsigned long long)bytes, lim.max_storage_buffer_range, ctx->info.name);
  if (bytes > heap / 4)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--size %llu: %llu bytes of input exceed a quarter of the device memory heap "
                      "(%llu bytes) of %s", (unsigned long long)n, (unsigned long long)bytes, (unsigned long long)heap,
                      ctx->info.name);
  tune_device d;
  tune_device_of(ctx, &d);
  run->space_total = k->space(NULL);
  tune_config *all = vkocc_xcalloc(run->space_total, sizeof *all);
  k->space(all);
  run->r = vkocc_xcalloc(run->space_total, sizeof *run->r);
  /* the constraints that pruned, each with its count (at most one per configuration) */
  const char **reasons = vkocc_xcalloc(run->space_total, sizeof *reasons);
  uint32_t *counts = vkocc_xcalloc(run->space_total, sizeof *counts), nreasons = 0;
  for (uint32_t i = 0; i < run->space_total; i++) {
    bool keep = true;
    for (uint32_t f = 0; f < (opt ? opt->nonly : 0) && keep; f++) {
      vkocc_status s = only_match(k, opt->only[f], &all[i], &keep);
      if (s) { free(all); free(reasons); free(counts); tune_run_free(run); return s; }
    }
    if (!keep) { run->filtered++; continue; }
    const char *why = k->check(&all[i], &d, n);
    if (why) {
      run->pruned++;
      uint32_t j = 0;
      while (j < nreasons && reasons[j] != why) j++;
      if (j == nreasons) reasons[nreasons++] = why;
      counts[j]++;
      continue;
    }
    tune_result *r = &run->r[run->count++];
    r->cfg = all[i];
    tune_config_key(k, &all[i], r->key, sizeof r->key);
  }
  free(all);
  for (uint32_t j = 0; j < nreasons; j++) {
    size_t l = strlen(run->prune_note);
    snprintf(run->prune_note + l, sizeof run->prune_note - l, "%s%u: %s", j ? "; " : "", counts[j], reasons[j]);
  }
  free(reasons);
  free(counts);
  if (run->count == 0) {
    vkocc_status s = vkocc_fail(VKOCC_ERROR_USAGE, "kernel %s at --size %llu: no configuration can run on %s (%s%s)",
                                k->name, (unsigned long long)n, ctx->info.name,
                                run->filtered ? "--only left none; " : "", run->prune_note);
    tune_run_free(run);
    return s;
  }
  return VKOCC_OK;
}

/* ------------------------------------------------------------------ pipelines */

typedef struct module {
  char defs_key[128];
  uint32_t *spv;
  size_t words;
  char error[512];
} module;

typedef struct builder {
  vkocc_context *ctx;
  tune_run *run;
  uint32_t *todo, ntodo, done;
  vkocc_kernel *kernels;
  bool *built;
  module *mods;
  uint32_t *mod_of;
  pthread_mutex_t lock;
  const tune_options *opt;
} builder;

static void build_one(void *user, uint32_t t) {
  builder *b = user;
  uint32_t i = b->todo[t];
  tune_result *r = &b->run->r[i];
  module *m = &b->mods[b->mod_of[i]];
  vkocc_status s = VKOCC_ERROR_RUNTIME;
  if (m->spv) {
    uint32_t spec[4], nspec = b->run->k->spec(&r->cfg, spec);
    s = vkocc_kernel_create(b->ctx, m->spv, m->words * 4, 2, 4, spec, nspec, &b->kernels[i]);
  }
  pthread_mutex_lock(&b->lock);
  /* a configuration whose pipeline fails is reported invalid, never chosen; the others go on */
  if (s) snprintf(r->error, sizeof r->error, "pipeline: %s", m->spv ? vkocc_last_error() : m->error);
  b->built[i] = s == VKOCC_OK;
  b->done++;
  if (b->opt && b->opt->progress) b->opt->progress(b->opt->user, "pipelines", b->done, b->ntodo);
  pthread_mutex_unlock(&b->lock);
}

/* ------------------------------------------------------------------ measurement */

typedef struct bench {
  vkocc_context *ctx;
  vkocc_batch batch;         /* MAX_BATCH timed dispatches */
  vkocc_buffer in, out, readback;
  uint32_t clear_bytes;
  uint32_t *ref;
} bench;

/* `count` dispatches of kernel kk, each on freshly cleared answer words, timed one by one; the last
 * dispatch's answer is copied to the readback buffer. */
static vkocc_status run_batch(bench *b, vkocc_kernel *kk, uint32_t n, uint32_t groups, uint32_t count, double *ns) {
  vkocc_batch *bt = &b->batch;
  vkocc_status s = vkocc_batch_begin(bt);
  if (s) return s;
  vkocc_batch_bind(bt, kk);
  vkocc_batch_push(bt, kk, &n, 4);
  for (uint32_t i = 0; i < count; i++) {
    vkocc_batch_fill(bt, &b->out, 0, b->clear_bytes, 0);
    vkocc_batch_barrier(bt, VKOCC_SYNC_TRANSFER_TO_COMPUTE);
    vkocc_batch_dispatch_timed(bt, groups); /* record i */
    vkocc_batch_barrier(bt, VKOCC_SYNC_COMPUTE_TO_TRANSFER);
  }
  vkocc_batch_copy(bt, &b->out, &b->readback, 0, 0, b->clear_bytes);
  vkocc_batch_barrier(bt, VKOCC_SYNC_TRANSFER_TO_HOST);
  if ((s = vkocc_batch_run(bt, 0, "tuning dispatches"))) return s;
  for (uint32_t i = 0; i < count; i++) {
    const vkocc_batch_record *r = vkocc_batch_record_of(bt, i);
    if (r->tick == VKOCC_TICKS_BACKWARDS)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "queue timestamps went backwards around a tuning dispatch");
    ns[i] = r->ns;
  }
  return VKOCC_OK;
}

static vkocc_status measure_one(bench *b, tune_run *run, tune_result *r, vkocc_kernel *kk, const tune_options *opt) {
  const tune_kernel_def *k = run->k;
  uint32_t groups = k->groups(&r->cfg, run->n), n = (uint32_t)run->n;
  double target = opt && opt->target_spread > 0 ? opt->target_spread : 0.02;
  uint32_t min_runs = opt && opt->min_runs ? opt->min_runs : 5, max_runs = opt && opt->max_runs ? opt->max_runs : 50;
  double max_s = opt && opt->max_config_s > 0 ? opt->max_config_s : 2.0;
  if (max_runs > 1000) max_runs = 1000;
  double *t = vkocc_xmalloc(max_runs * sizeof *t), w[WARMUPS] = {0};
  /* warm-ups: the first dispatches of a new pipeline are slow on some drivers; discarded */
  vkocc_status s = run_batch(b, kk, n, groups, WARMUPS, w);
  uint32_t runs = 0;
  double t0 = vkocc_now_ms();
  r->valid = true;
  char why[200];
  if (!s && !k->validate((uint32_t *)b->readback.map + k->answer_offset_words, b->ref, run->f32, run->n, why, sizeof why)) {
    r->valid = false;
    snprintf(r->error, sizeof r->error, "wrong answer: %s", why);
  }
  while (!s && r->valid && runs < max_runs) {
    double per = w[WARMUPS - 1] > 1 ? w[WARMUPS - 1] : 1;
    uint32_t batch = (uint32_t)(20e6 / per); /* about 20 ms of GPU time per submission */
    if (batch < 3) batch = 3;
    if (batch > MAX_BATCH) batch = MAX_BATCH;
    if (batch > max_runs - runs) batch = max_runs - runs;
    s = run_batch(b, kk, n, groups, batch, t + runs);
    if (s) break;
    runs += batch;
    if (!k->validate((uint32_t *)b->readback.map + k->answer_offset_words, b->ref, run->f32, run->n, why, sizeof why)) {
      r->valid = false;
      snprintf(r->error, sizeof r->error, "wrong answer: %s", why);
    }
    vkocc_summary sum;
    vkocc_summarize(t, runs, &sum);
    if (runs >= min_runs && sum.median > 0 && sum.mad / sum.median <= target) break;
    if (runs >= 3 && vkocc_now_ms() - t0 > max_s * 1e3) break; /* a slow or noisy configuration: enough */
  }
  if (!s && runs) {
    vkocc_summary sum;
    vkocc_summarize(t, runs, &sum);
    r->median_ns = sum.median, r->min_ns = sum.min, r->max_ns = sum.max;
    r->spread = sum.median > 0 ? sum.mad / sum.median : 0;
  }
  r->runs = runs;
  r->measured = s == VKOCC_OK;
  free(t);
  return s;
}

vkocc_status tune_measure(vkocc_context *ctx, tune_run *run, const tune_options *opt) {
  const tune_kernel_def *k = run->k;
  uint32_t *todo = vkocc_xmalloc(run->count * sizeof *todo), ntodo = 0;
  for (uint32_t i = 0; i < run->count; i++)
    if (!run->r[i].measured) todo[ntodo++] = i;
  if (!ntodo) { free(todo); return VKOCC_OK; }
  /* one SPIR-V module per variant (its #defines), compiled once; specialization gives the rest */
  module *mods = vkocc_xcalloc(run->count, sizeof *mods);
  uint32_t *mod_of = vkocc_xcalloc(run->count, sizeof *mod_of), nmods = 0;
  char name[64];
  snprintf(name, sizeof name, "kernels/%s/%s.comp", k->name, k->name);
  for (uint32_t t = 0; t < ntodo; t++) {
    uint32_t i = todo[t];
    const char *defs[4];
    uint32_t nd = k->defines(&run->r[i].cfg, run->f32, defs);
    char key[128] = "";
    for (uint32_t d = 0; d < nd; d++) snprintf(key + strlen(key), sizeof key - strlen(key), "%s;", defs[d]);
    uint32_t m = 0;
    while (m < nmods && strcmp(mods[m].defs_key, key)) m++;
    if (m == nmods) {
      snprintf(mods[m].defs_key, sizeof mods[m].defs_key, "%s", key);
      if (vkocc_shader_compile(k->glsl, strlen(k->glsl), name, VKOCC_SHADER_GLSL, "main", defs, nd, &mods[m].spv,
                               &mods[m].words))
        snprintf(mods[m].error, sizeof mods[m].error, "%s", vkocc_last_error());
      nmods++;
    }
    mod_of[i] = m;
  }
  vkocc_kernel *kernels = vkocc_xcalloc(run->count, sizeof *kernels);
  bool *built = vkocc_xcalloc(run->count, sizeof *built);
  builder bd = {.ctx = ctx, .run = run, .todo = todo, .ntodo = ntodo, .kernels = kernels, .built = built,
                .mods = mods, .mod_of = mod_of, .opt = opt};
  pthread_mutex_init(&bd.lock, NULL);
  double t0 = vkocc_now_ms();
  vkocc_parallel_for(ntodo, opt ? opt->threads : 0, build_one, &bd);
  pthread_mutex_destroy(&bd.lock);
  run->pipelines_ms += vkocc_now_ms() - t0;
  run->pipelines += ntodo;
  for (uint32_t m = 0; m < nmods; m++) free(mods[m].spv);
  free(mods);
  free(mod_of);

  /* buffers: the input (device-local), the answer + partials (device-local), a host readback */
  bench b = {.ctx = ctx};
  uint64_t out_bytes = 16;
  for (uint32_t t = 0; t < ntodo; t++) {
    uint64_t o = k->output_bytes(&run->r[todo[t]].cfg, run->n);
    if (o > out_bytes) out_bytes = o;
  }
  b.clear_bytes = (k->answer_offset_words + k->answer_words) * 4;
  uint32_t *data = vkocc_xmalloc(run->n * 4);
  b.ref = vkocc_xcalloc(k->answer_words, 4);
  vkocc_status s = data && b.ref ? VKOCC_OK : vkocc_fail(VKOCC_ERROR_RUNTIME, "out of host memory for the input");
  if (!s) {
    k->input(data, run->n, run->f32, 0x766b6f6363ull);
    k->reference(data, run->n, run->f32, b.ref);
    /* VKOCC_TEST_WRONG_REFERENCE=1: the reference one off, so every answer must fail validation (the suite's
     * proof that validation runs) */
    const char *wrong = getenv("VKOCC_TEST_WRONG_REFERENCE");
    if (wrong && !strcmp(wrong, "1")) b.ref[0] ^= 1u;
    s = vkocc_buffer_create(ctx, run->n * 4, false, &b.in);
  }
  if (!s) s = vkocc_buffer_upload(ctx, &b.in, data, run->n * 4);
  free(data);
  if (!s) s = vkocc_buffer_create(ctx, out_bytes, false, &b.out);
  if (!s) s = vkocc_buffer_create(ctx, b.clear_bytes, true, &b.readback);
  if (!s) s = vkocc_batch_create(ctx, MAX_BATCH, &b.batch);
  double last_cp = vkocc_now_ms(), cp_ms = (opt && opt->checkpoint_s > 0 ? opt->checkpoint_s : 10) * 1e3;
  t0 = vkocc_now_ms();
  for (uint32_t t = 0; t < ntodo && !s; t++) {
    uint32_t i = todo[t];
    tune_result *r = &run->r[i];
    if (built[i]) {
      vkocc_buffer *bufs[2] = {&b.in, &b.out};
      vkocc_kernel_bind(ctx, &kernels[i], bufs);
      s = measure_one(&b, run, r, &kernels[i], opt);
      if (s) s = vkocc_fail(s, "%s %s: %s", k->name, r->key, vkocc_last_error());
    } else {
      r->measured = true, r->valid = false; /* its pipeline failed: reported, never chosen */
    }
    vkocc_kernel_destroy(ctx, &kernels[i]);
    if (opt && opt->progress) opt->progress(opt->user, "configurations", t + 1, ntodo);
    if (!s && opt && opt->checkpoint && vkocc_now_ms() - last_cp > cp_ms) {
      s = opt->checkpoint(opt->user, run);
      last_cp = vkocc_now_ms();
    }
  }
  run->measure_ms += vkocc_now_ms() - t0;
  for (uint32_t t = 0; t < ntodo; t++) vkocc_kernel_destroy(ctx, &kernels[todo[t]]);
  vkocc_batch_destroy(&b.batch);
  vkocc_buffer_destroy(ctx, &b.in);
  vkocc_buffer_destroy(ctx, &b.out);
  vkocc_buffer_destroy(ctx, &b.readback);
  free(b.ref);
  free(kernels);
  free(built);
  free(todo);
  return s;
}
