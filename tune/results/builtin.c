/* The shipped kernels as built-in T1 specs (tune/results/builtin.h): the kernel's embedded spec made concrete (size,
 * element type), its input and CPU reference as data hooks, and the mapping between a T1 configuration and the
 * configuration its results document names (only the parameters its variant takes). */
#include "builtin.h"
#include "user_results.h"
#include "io.h"
#include "exec.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INPUT_SEED 0x766b6f6363ull /* the inputs every results document of the shipped kernels was measured on */
#define F32_REL_TOL 1e-3           /* f32 answers: relative error against the sum in double on the host */

void tu_device_limits(vkocc_context *ctx, int64_t out[TEXPR_NDEVICE]) {
  core_exec_limits lim;
  core_exec_limits_get(ctx, &lim);
  out[0] = lim.max_invocations, out[1] = lim.max_wg_size[0], out[2] = lim.max_shared_bytes;
  out[3] = lim.max_wg_count[0], out[4] = lim.subgroup_arithmetic;
}

/* ---- the data hooks: the input and the reference answer, as the kernel's C code computes them */

static vkocc_status input_hook(const t1_spec *s, const t1_arg *shape, void *dst, const void *user) {
  (void)s;
  const tu_builtin *b = user;
  if (shape->bytes != b->n * 4) return vkocc_fail(VKOCC_ERROR_RUNTIME, "built-in %s: the input is not n words", b->k->name);
  b->k->input(dst, b->n, b->f32, INPUT_SEED);
  return VKOCC_OK;
}

static vkocc_status reference_hook(const t1_spec *s, const t1_arg *shape, void *dst, const void *user) {
  (void)s;
  const tu_builtin *b = user;
  if (shape->bytes != (uint64_t)b->k->answer_words * 4)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "built-in %s: the reference is not %u words", b->k->name, b->k->answer_words);
  uint32_t *in = malloc(b->n * 4 + 4);
  if (!in) return vkocc_fail(VKOCC_ERROR_RUNTIME, "out of host memory for the input of %s", b->k->name);
  b->k->input(in, b->n, b->f32, INPUT_SEED);
  b->k->reference(in, b->n, b->f32, dst);
  free(in);
  /* VKOCC_TEST_WRONG_REFERENCE=1: the reference one off, so every answer must fail validation (the suite's proof
   * that validation runs) */
  const char *wrong = getenv("VKOCC_TEST_WRONG_REFERENCE");
  if (wrong && !strcmp(wrong, "1")) ((uint32_t *)dst)[0] ^= 1u;
  return VKOCC_OK;
}

static bool hooked(const t1_data *d, const char *name) {
  size_t l = d->source ? strlen(d->source) : 0, m = strlen(name);
  return d->fill == T1_FILL_BINARY && l >= m && !strcmp(d->source + l - m, name);
}

/* ---- the spec */

/* The embedded template made concrete: ProblemSize, the Scalar n, the element type T, f32's define and tolerance. */
static char *concrete_text(const tu_builtin *b) {
  json_error_t e;
  json_t *doc = json_loads(b->k->t1, 0, &e);
  if (!doc) return NULL;
  json_t *ks = json_object_get(doc, "KernelSpecification");
  json_object_set_new(ks, "ProblemSize", json_pack("[I]", (json_int_t)b->n));
  size_t i;
  json_t *a;
  json_array_foreach(json_object_get(ks, "Arguments"), i, a) {
    const char *type = json_string_value(json_object_get(a, "Type")), *name = json_string_value(json_object_get(a, "Name"));
    if (type && !strcmp(type, "T")) json_object_set_new(a, "Type", json_string(b->f32 ? "float" : "uint32"));
    if (name && !strcmp(name, "n")) json_object_set_new(a, "FillValue", json_integer((json_int_t)b->n));
  }
  if (b->f32) {
    json_t *co = json_object_get(ks, "CompilerOptions");
    if (!co) json_object_set_new(ks, "CompilerOptions", co = json_array());
    json_array_append_new(co, json_string("-DTYPE_F32"));
    json_array_foreach(json_object_get(ks, "ReferenceArguments"), i, a) {
      json_object_set_new(a, "ValidationMethod", json_string("SideBySideRelativeComparison"));
      json_object_set_new(a, "ValidationThreshold", json_real(F32_REL_TOL));
    }
  }
  char *text = json_dumps(doc, JSON_COMPACT);
  json_decref(doc);
  return text;
}

/* The configuration c of the space as the document names it; false when the kernel's parameters and the spec's
 * disagree (a value that is not one of the kernel's names) */
static bool doc_config(const tu_builtin *b, const t1_spec *s, const uint32_t *coord, tune_config *c) {
  memset(c, 0, sizeof *c);
  for (uint32_t i = 0; i < s->nparams; i++) {
    const texpr_value *v = &s->params[i].values[coord[i]];
    const tune_param_def *p = &b->k->params[i];
    if (p->names) {
      uint32_t j = 0;
      while (j < p->nnames && !(v->kind == TEXPR_STR && !strcmp(p->names[j], v->s))) j++;
      if (j == p->nnames) return false;
      c->v[i] = j;
    } else {
      if (v->kind != TEXPR_INT || v->i < 0 || v->i > UINT32_MAX) return false;
      c->v[i] = (uint32_t)v->i;
    }
  }
  c->mask = c->v[0] < 16 ? b->masks[c->v[0]] : 0;
  for (uint32_t i = 0; i < s->nparams; i++)
    if (!(c->mask >> i & 1)) c->v[i] = 0;
  return c->mask & 1;
}

vkocc_status tu_builtin_prepare(tu_builtin *b, const tune_kernel_def *k, uint64_t n, bool f32,
                                const int64_t device[TEXPR_NDEVICE], const char *device_name, tu_run *run) {
  memset(b, 0, sizeof *b);
  memset(run, 0, sizeof *run);
  b->k = k, b->f32 = f32, b->n = n;
  b->space_total = k->space(NULL);
  tune_config *all = util_xcalloc(b->space_total + 1, sizeof *all);
  k->space(all);
  for (uint32_t i = 0; i < b->space_total; i++)
    if (all[i].v[0] < 16) b->masks[all[i].v[0]] |= all[i].mask;
  free(all);
  char file[128];
  snprintf(file, sizeof file, "kernels/%s/%s.t1.json (built in)", k->name, k->name);
  char *text = concrete_text(b);
  if (!text) return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: the embedded spec is no JSON object", file);
  vkocc_status st = t1_parse(text, strlen(text), file, "", false, &run->spec);
  free(text);
  if (st) return st;
  t1_spec *s = &run->spec;
  s->kernel_text = k->glsl;
  s->has_device = true;
  memcpy(s->device, device, sizeof s->device);
  for (uint32_t i = 0; i < s->nargs; i++)
    if (hooked(&s->args[i].data, "cpu:input")) s->args[i].data.fill = T1_FILL_HOOK, s->args[i].data.hook = input_hook;
  for (uint32_t i = 0; i < s->nrefs; i++)
    if (hooked(&s->refs[i].data, "cpu:reference")) s->refs[i].data.fill = T1_FILL_HOOK, s->refs[i].data.hook = reference_hook;
  for (uint32_t i = 0; i < s->nargs; i++) s->args[i].data.hook_user = b;
  for (uint32_t i = 0; i < s->nrefs; i++) s->refs[i].data.hook_user = b;
  bool same = s->nparams == k->nparams && s->nconds == k->nreasons;
  for (uint32_t i = 0; same && i < s->nparams; i++) same = !strcmp(s->params[i].name, k->params[i].name);
  if (!same) {
    t1_free(s);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: its parameters or conditions are not the kernel's", file);
  }
  snprintf(run->name, sizeof run->name, "%s", k->name);
  if ((st = tu_begin(run))) {
    if (st != VKOCC_ERROR_USAGE || !run->space.none) return st;
    return vkocc_fail(st, "kernel %s at --size %llu: no configuration can run on %s", k->name, (unsigned long long)n,
                      device_name);
  }
  /* the constraints that pruned, each with its count; the other conditions only shape the space */
  for (uint32_t c = 0; c < s->nconds; c++) {
    if (!k->reasons[c] || !run->space.by_cond[c]) continue;
    size_t l = strlen(b->prune_note);
    b->pruned += (uint32_t)run->space.by_cond[c];
    snprintf(b->prune_note + l, sizeof b->prune_note - l, "%s%llu: %s", l ? "; " : "",
             (unsigned long long)run->space.by_cond[c], k->reasons[c]);
  }
  for (uint32_t c = 0; c < run->space.count; c++) {
    tune_config cfg;
    if (!doc_config(b, s, run->space.coord + (size_t)c * s->nparams, &cfg)) {
      tu_run_free(run);
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: configuration %u is none of kernel %s", file, c, k->name);
    }
  }
  return VKOCC_OK;
}

vkocc_status tu_builtin_open(tu_builtin *b, vkocc_context *ctx, const tune_kernel_def *k, uint64_t n, bool f32,
                             tu_run *run) {
  core_exec_limits lim;
  core_exec_limits_get(ctx, &lim);
  const char *dev = vkocc_context_device(ctx)->name;
  uint64_t bytes = 4 * n, heap = lim.device_local_heap_bytes;
  if (n == 0 || n > 0x7fffffffull)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--size %llu: expected 1 to 2^31-1 elements", (unsigned long long)n);
  if (bytes > lim.max_storage_buffer_range)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--size %llu: %llu bytes of input exceed maxStorageBufferRange (%u bytes) of %s",
                      (unsigned long long)n, (unsigned long long)bytes, lim.max_storage_buffer_range, dev);
  if (bytes > heap / 4)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--size %llu: %llu bytes of input exceed a quarter of the device memory heap "
                      "(%llu bytes) of %s", (unsigned long long)n, (unsigned long long)bytes, (unsigned long long)heap, dev);
  int64_t limits[TEXPR_NDEVICE];
  tu_device_limits(ctx, limits);
  return tu_builtin_prepare(b, k, n, f32, limits, dev, run);
}

vkocc_status tu_builtin_restrict(const tu_builtin *b, tu_run *run, const char *only) {
  const tune_kernel_def *k = b->k;
  const char *eq = strchr(only, '=');
  uint32_t p = 0;
  while (eq && p < k->nparams && (strlen(k->params[p].name) != (size_t)(eq - only) ||
                                  strncmp(k->params[p].name, only, (size_t)(eq - only))))
    p++;
  if (!eq || p == k->nparams || !eq[1])
    return vkocc_fail(VKOCC_ERROR_USAGE, "--only '%s': expected PARAM=V1[,V2...] with a parameter of %s", only, k->name);
  const t1_spec *s = &run->spec;
  bool *keep = util_xcalloc(run->space.count + 1, sizeof *keep);
  for (uint32_t c = 0; c < run->space.count; c++) {
    tune_config cfg;
    doc_config(b, s, run->space.coord + (size_t)c * s->nparams, &cfg);
    keep[c] = !(cfg.mask >> p & 1); /* a configuration without that parameter stays */
    char want[64];
    if (k->params[p].names) snprintf(want, sizeof want, "%s", k->params[p].names[cfg.v[p]]);
    else snprintf(want, sizeof want, "%u", cfg.v[p]);
    for (const char *q = eq + 1; *q && !keep[c];) {
      size_t l = strcspn(q, ",");
      keep[c] = l == strlen(want) && !strncmp(q, want, l);
      q += l + (q[l] == ',');
    }
  }
  vkocc_status st = tu_keep(run, keep);
  free(keep);
  if (st)
    return vkocc_fail(st, "kernel %s at --size %llu: no configuration is left (--only %s left none)", k->name,
                      (unsigned long long)b->n, only);
  return VKOCC_OK;
}

void tu_builtin_result(const tu_builtin *b, const tu_run *run, uint32_t i, tune_result *out) {
  const tu_result *r = &run->r[i];
  memset(out, 0, sizeof *out);
  doc_config(b, &run->spec, run->space.coord + (size_t)i * run->spec.nparams, &out->cfg);
  tune_config_key(b->k, &out->cfg, out->key, sizeof out->key);
  out->measured = r->measured, out->valid = r->inv == TU_CORRECT;
  out->median_ns = r->median_ns, out->spread = r->spread, out->min_ns = r->min_ns, out->max_ns = r->max_ns;
  out->runs = r->runs;
  snprintf(out->error, sizeof out->error, "%s", r->error);
}

static json_t *key_index(const tu_builtin *b, const tu_run *run);

uint32_t tu_builtin_resume(const tu_builtin *b, tu_run *run, const tune_doc *prev) {
  json_t *index = key_index(b, run);
  uint32_t taken = 0;
  for (uint32_t i = 0; i < prev->count; i++) {
    const tune_result *p = &prev->r[i];
    json_t *at = json_object_get(index, p->key);
    if (!at) continue; /* ruled out on this device now */
    tu_result *r = &run->r[json_integer_value(at)];
    free(r->times_ns);
    memset(r, 0, sizeof *r);
    r->measured = true, r->P = -1;
    /* a pipeline that failed was said so; any other invalid answer was a wrong one */
    r->inv = p->valid ? TU_CORRECT : !strncmp(p->error, "pipeline", 8) ? TU_COMPILE : TU_CORRECTNESS;
    r->median_ns = p->median_ns, r->spread = p->spread, r->min_ns = p->min_ns, r->max_ns = p->max_ns;
    r->runs = p->runs;
    snprintf(r->error, sizeof r->error, "%s", p->error);
    taken++;
  }
  json_decref(index);
  run->resumed = taken;
  return taken;
}

/* the document's key of each configuration of run -> its index */
static json_t *key_index(const tu_builtin *b, const tu_run *run) {
  json_t *index = json_object();
  for (uint32_t c = 0; c < run->space.count; c++) {
    tune_result x;
    tu_builtin_result(b, run, c, &x);
    json_object_set_new(index, x.key, json_integer(c));
  }
  return index;
}

void tu_builtin_groups(const tune_kernel_def *k, bool f32, uint64_t n, const tune_config *cfg, uint32_t count,
                       uint32_t *groups) {
  memset(groups, 0, count * sizeof *groups);
  const int64_t any[TEXPR_NDEVICE] = {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, 1}; /* nothing ruled out */
  tu_builtin b;
  tu_run run;
  if (tu_builtin_prepare(&b, k, n, f32, any, "any device", &run)) { vkocc_clear_error(); return; }
  json_t *index = key_index(&b, &run);
  for (uint32_t i = 0; i < count; i++) {
    char key[256];
    tune_config_key(k, &cfg[i], key, sizeof key);
    json_t *at = json_object_get(index, key);
    uint32_t l[3], g[3];
    if (at && !t1_sizes(&run.spec, run.space.coord + (size_t)json_integer_value(at) * run.spec.nparams, -1, l, g))
      groups[i] = g[0];
    vkocc_clear_error();
  }
  json_decref(index);
  tu_run_free(&run);
}

/* A configuration of the spec (every parameter) as the kernel takes it: the parameters of its variant only, the
 * form policies, --only and the older documents name it by. */
static json_t *kernel_form(const tu_builtin *b, json_t *cfg) {
  const tune_kernel_def *k = b->k;
  const char *v = json_string_value(json_object_get(cfg, k->params[0].name));
  uint32_t j = 0;
  while (v && j < k->params[0].nnames && strcmp(k->params[0].names[j], v)) j++;
  uint32_t mask = v && j < k->params[0].nnames && j < 16 ? b->masks[j] : ~0u;
  json_t *o = json_object();
  for (uint32_t i = 0; i < k->nparams; i++) {
    json_t *x = json_object_get(cfg, k->params[i].name);
    if (x && mask >> i & 1) json_object_set(o, k->params[i].name, x);
  }
  return o;
}

json_t *tu_builtin_results_json(const tu_builtin *b, const tu_run *run, const tune_device_id *dev, const char *date) {
  json_t *doc = tu_results_json(run, dev, date);
  json_object_set_new(doc, "element_type", json_string(b->f32 ? "f32" : "u32"));
  json_object_set_new(doc, "tolerance", json_string(b->k->tolerance));
  /* what the device's limits ruled out of the kernel's own space, by reason */
  json_t *sp = json_object_get(doc, "space");
  json_object_set_new(sp, "kernel_total", json_integer((json_int_t)b->space_total));
  json_object_set_new(sp, "pruned", json_integer((json_int_t)b->pruned));
  json_object_set_new(sp, "pruned_by", json_string(b->prune_note));
  json_t *best = json_object_get(doc, "best"), *sentinel = json_object_get(json_object_get(doc, "measurement"), "sentinel");
  if (best) json_object_set_new(best, "config", kernel_form(b, json_object_get(best, "config")));
  if (sentinel) json_object_set_new(sentinel, "config", kernel_form(b, json_object_get(sentinel, "config")));
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(doc, "results"), i, e) json_object_set_new(e, "config", kernel_form(b, json_object_get(e, "config")));
  return doc;
}

vkocc_status tu_builtin_resume_file(const tu_builtin *b, tu_run *run, const char *path, const char *device_key) {
  json_t *doc;
  vkocc_status st = io_doc_load(path, VKOCC_DOC_TUNE_RESULTS, &doc);
  if (st) return st;
  /* each configuration back in the spec's form (every parameter); one the device rules out now is left */
  json_t *index = key_index(b, run), *keep = json_array();
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(doc, "results"), i, e) {
    json_t *cfg = json_object_get(e, "config");
    char *k = json_is_object(cfg) ? json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_t *at = k ? json_object_get(index, k) : NULL;
    free(k);
    if (!at) continue;
    json_t *x = json_deep_copy(e);
    json_object_set_new(x, "config", t1_config_json(&run->spec, run->space.coord + (size_t)json_integer_value(at) * run->spec.nparams));
    json_array_append_new(keep, x);
  }
  json_decref(index);
  json_object_set_new(doc, "results", keep);
  st = tu_results_resume_doc(doc, path, run, device_key);
  json_decref(doc);
  return st;
}
