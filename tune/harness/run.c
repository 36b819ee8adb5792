/* The harness for the user's own kernels (tune/harness/user.h, docs/tune.md): the run as a whole. Set-up (the
 * reference, the parameters' classes, the sizes), the search over the space, and each configuration measured as a
 * recipe of phases, each timed: prepare (compile, pipeline, P), validate (the first run, on poisoned outputs), warm,
 * trials (timed batches until the stopping rule holds), summary. The phases live a file each (harness.h).
 *
 * Written over core's helpers (buffers, util_read_file, the pipeline cache of the context) and the
 * occupancy C API (vkocc_pipeline_occupancy); its own small pipeline builder, since the user's layout
 * (set 0 storage buffers, a push-constant block, typed specialization constants) is not core's. */
#include "harness.h"
#include <stdarg.h>
#include <unistd.h>

static const char *const phase_names[] = {"prepare", "validate", "warm", "trials", "summary"};
const char *tu_phase_name(tu_phase p) { return phase_names[p]; }

static const char *const inv_names[] = {"correct", "compile", "runtime", "timeout", "correctness", "constraints"};
const char *tu_invalidity_name(tu_invalidity v) { return inv_names[v]; }
bool tu_invalidity_parse(const char *name, tu_invalidity *out) {
  for (int i = 0; i < 6; i++)
    if (!strcmp(name, inv_names[i])) { *out = (tu_invalidity)i; return true; }
  return false;
}

/* ------------------------------------------------------------------ the search */

/* the space's configurations by key, built on the first lookup (a lookup was a scan of the space, each
 * configuration's key written again) and dropped when the space changes (tu_restrict) */
json_t *tu_key_index(tu_run *run) {
  if (run->by_key) return run->by_key;
  run->by_key = json_object();
  for (uint32_t c = 0; c < run->space.count; c++) {
    char key[1024];
    t1_config_key(&run->spec, run->space.coord + (size_t)c * run->spec.nparams, key, sizeof key);
    json_object_set_new(run->by_key, key, json_integer(c));
  }
  return run->by_key;
}

int64_t tu_find(tu_run *run, const char *key) {
  json_t *c = json_object_get(tu_key_index(run), key);
  return c ? json_integer_value(c) : -1;
}

/* The most evaluations the budget's count and fraction allow. */
static uint64_t eval_limit(const tu_run *run) {
  uint64_t limit = run->space.count;
  if (run->budget.max_evals && run->budget.max_evals < limit) limit = run->budget.max_evals;
  if (run->budget.max_fraction > 0) {
    uint64_t f = (uint64_t)ceil(run->budget.max_fraction * run->space.count);
    if (f < limit) limit = f ? f : 1;
  }
  return limit;
}

/* A configuration measured to the full rule (valid, not stopped) joins the race's noise and may be the incumbent. */
static void race_note(harness *h, uint32_t c, const tu_result *r) {
  if (!r->measured || r->inv != TU_CORRECT || !r->runs || r->stopped) return;
  double early = r->times_ns && r->runs >= TU_RACE_MIN_RUNS ? fmin(r->times_ns[0], r->times_ns[1]) : 0;
  tu_race_note(&h->race, c, r->median_ns, r->spread, early);
}

static vkocc_status eval_cb(void *user, uint32_t c, tune_eval *e) {
  harness *h = user;
  tu_run *run = h->run;
  tu_result *r = &run->r[c];
  if (!r->measured) {
    if (h->o->stop && *h->o->stop) return vkocc_fail(VKOCC_ERROR_RUNTIME, "interrupted");
    h->racing_now = !h->o->full_rule;
    vkocc_status st = tu_measure_config(h, c, r);
    h->racing_now = false;
    if (st) return st;
    race_note(h, c, r);
    h->done++;
    int32_t every = tu_sentinel_every(h->o);
    if (every > 0) {
      h->since_sentinel++;
      if (h->sentinel < 0 && r->inv == TU_CORRECT && r->runs) h->sentinel = c, tu_sentinel_record(h, c, r);
      else if (h->sentinel >= 0 && h->since_sentinel >= (uint32_t)every && (st = tu_sentinel_again(h))) return st;
    }
  }
  run->order = util_xrealloc(run->order, (run->nevals + 1) * sizeof *run->order);
  run->order[run->nevals++] = c;
  e->valid = r->inv == TU_CORRECT && r->runs > 0;
  e->time_ns = e->valid ? r->median_ns : 0;
  if (h->o->progress) {
    uint64_t limit = eval_limit(run);
    double el = (vkocc_now_ms() - h->t0) / 1e3;
    double eta = h->done ? el / h->done * (double)(limit > run->nevals ? limit - run->nevals : 0) : NAN;
    if (run->budget.max_seconds > 0 && eta > run->budget.max_seconds - el) eta = run->budget.max_seconds - el;
    int64_t b = tu_best(run);
    h->o->progress(h->o->user, run->nevals, (uint32_t)limit, b >= 0 ? run->r[b].median_ns : NAN, eta);
  }
  if (h->o->checkpoint && vkocc_now_ms() - h->last_cp > (h->o->checkpoint_s > 0 ? h->o->checkpoint_s : 10) * 1e3) {
    h->last_cp = vkocc_now_ms();
    vkocc_status st = h->o->checkpoint(h->o->user, run);
    if (st) return st;
  }
  return VKOCC_OK;
}

/* the space of run->spec and its results, none measured */
static vkocc_status space_of(tu_run *run) {
  vkocc_status st = t1_enumerate(&run->spec, &run->space);
  if (st) return st;
  run->r = util_xcalloc(run->space.count + 1, sizeof *run->r);
  run->sentinel_config = -1;
  for (uint32_t i = 0; i < run->space.count; i++) run->r[i].P = -1;
  return VKOCC_OK;
}

vkocc_status tu_bind_device(tu_run *run, const int64_t device[TEXPR_NDEVICE]) {
  t1_spec *s = &run->spec;
  bool again = s->uses_device && !s->has_device;
  memcpy(s->device, device, sizeof s->device);
  s->has_device = true;
  if (!again) return VKOCC_OK;
  /* the conditions naming the device's limits were left out: the space again, before anything is taken into it */
  for (uint32_t i = 0; i < run->space.count; i++)
    if (run->r[i].measured) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: the device is given after results", s->file);
  free(run->r), run->r = NULL;
  json_decref(run->by_key), run->by_key = NULL;
  t1_space_free(&run->space);
  return space_of(run);
}

vkocc_status tu_begin(tu_run *run) {
  vkocc_status st = space_of(run);
  if (st) { t1_free(&run->spec); return st; }
  snprintf(run->strategy, sizeof run->strategy, "%s", run->spec.search);
  run->budget = run->spec.budget;
  return VKOCC_OK;
}

vkocc_status tu_prepare(const char *spec_path, const char *name, tu_run *run) {
  memset(run, 0, sizeof *run);
  vkocc_status st = t1_load(spec_path, &run->spec);
  if (st || (st = tu_begin(run))) return st;
  if (name && (!name[0] || strlen(name) >= sizeof run->name)) {
    tu_run_free(run);
    return vkocc_fail(VKOCC_ERROR_USAGE, "--name: %zu characters; expected 1 to %zu (a longer name was cut, and two "
                      "kernels then merged in a policy)", strlen(name), sizeof run->name - 1);
  }
  /* glslang's tables built while the caller opens the device and the arguments are filled */
  if (run->spec.lang == VKOCC_SHADER_GLSL || run->spec.lang == VKOCC_SHADER_HLSL) {
    void *text = NULL;
    size_t len = 0;
    if (run->spec.kernel_text) compile_shader_warm(run->spec.kernel_text, strlen(run->spec.kernel_text), run->spec.lang);
    else if (!util_read_file(run->spec.kernel_file, &text, &len)) compile_shader_warm(text, len, run->spec.lang);
    free(text);
  }
  if (name) snprintf(run->name, sizeof run->name, "%s", name);
  else {
    const char *b = strrchr(spec_path, '/');
    const char *stem = b ? b + 1 : spec_path, *dot = strrchr(stem, '.');
    size_t len = dot && dot != stem ? (size_t)(dot - stem) : strlen(stem);
    if (len >= sizeof run->name) {
      tu_run_free(run);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: the file's stem is longer than %zu characters: name the kernel with --name",
                        spec_path, sizeof run->name - 1);
    }
    snprintf(run->name, sizeof run->name, "%.*s", (int)len, stem);
  }
  return VKOCC_OK;
}

/* after tu_results_resume: configurations measured already stay (they cost nothing, and are not lost) */
vkocc_status tu_restrict(tu_run *run, const char *only) {
  t1_spec *s = &run->spec;
  const char *eq = strchr(only, '=');
  uint32_t p = 0;
  while (eq && p < s->nparams && (strlen(s->params[p].name) != (size_t)(eq - only) || strncmp(s->params[p].name, only, eq - only))) p++;
  if (!eq || p == s->nparams)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--only '%s': expected PARAM=V1,V2,... with PARAM a parameter of %s", only, s->file);
  bool keep_value[4096] = {0};
  if (s->params[p].nvalues > 4096) return vkocc_fail(VKOCC_ERROR_USAGE, "--only: '%s' has too many values", s->params[p].name);
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", eq + 1);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    bool found = false;
    for (uint32_t k = 0; k < s->params[p].nvalues; k++) {
      char v[80];
      texpr_value pv = s->params[p].values[k];
      if (s->params[p].type == T1_BOOL) snprintf(v, sizeof v, "%s", pv.i ? "True" : "False");
      else texpr_format(&pv, v, sizeof v);
      bool num = pv.kind != TEXPR_STR && *tok && strtod(tok, NULL) == (pv.kind == TEXPR_INT ? (double)pv.i : pv.f);
      if (!strcmp(v, tok) || num) keep_value[k] = found = true;
    }
    if (!found) return vkocc_fail(VKOCC_ERROR_USAGE, "--only: %s=%s is not one of its values", s->params[p].name, tok);
  }
  bool *keep = util_xcalloc(run->space.count + 1, sizeof *keep);
  for (uint32_t c = 0; c < run->space.count; c++) keep[c] = keep_value[run->space.coord[(size_t)c * s->nparams + p]];
  vkocc_status st = tu_keep(run, keep);
  free(keep);
  return st ? vkocc_fail(st, "--only %s: no allowed configuration is left", only) : VKOCC_OK;
}

vkocc_status tu_keep(tu_run *run, const bool *keep) {
  t1_spec *s = &run->spec;
  uint32_t n = 0;
  for (uint32_t c = 0; c < run->space.count; c++) {
    const uint32_t *coord = run->space.coord + (size_t)c * s->nparams;
    if (!keep[c] && !run->r[c].measured) continue; /* a resumed result is kept, whatever --only says */
    if (n != c) {
      memmove(run->space.coord + (size_t)n * s->nparams, coord, s->nparams * sizeof *coord);
      run->r[n] = run->r[c];
    }
    n++;
  }
  if (!n) return VKOCC_ERROR_USAGE;
  json_decref(run->by_key), run->by_key = NULL;
  run->filtered += run->space.count - n;
  run->space.count = n;
  return VKOCC_OK;
}

static vkocc_status parse_reference(harness *h, const char *text, int64_t *config) {
  t1_spec *s = h->s;
  uint32_t want[32];
  bool set[32] = {0};
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", text);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) return vkocc_fail(VKOCC_ERROR_USAGE, "--reference '%s': expected NAME=VALUE,...", text);
    *eq = 0;
    uint32_t p = 0;
    while (p < s->nparams && strcmp(s->params[p].name, tok)) p++;
    if (p == s->nparams) return vkocc_fail(VKOCC_ERROR_USAGE, "--reference: '%s' is not a parameter of %s", tok, s->file);
    uint32_t k = 0;
    for (; k < s->params[p].nvalues; k++) {
      char v[80];
      texpr_value pv = s->params[p].values[k];
      if (s->params[p].type == T1_BOOL) snprintf(v, sizeof v, "%s", pv.i ? "True" : "False");
      else texpr_format(&pv, v, sizeof v);
      if (!strcmp(v, eq + 1) || (s->params[p].type == T1_BOOL && !strcmp(eq + 1, pv.i ? "1" : "0"))) break;
      if (pv.kind != TEXPR_STR && strtod(eq + 1, NULL) == (pv.kind == TEXPR_INT ? (double)pv.i : pv.f) && eq[1]) break;
    }
    if (k == s->params[p].nvalues) return vkocc_fail(VKOCC_ERROR_USAGE, "--reference: %s=%s is not one of its values", tok, eq + 1);
    want[p] = k, set[p] = true;
  }
  for (uint32_t p = 0; p < s->nparams; p++) {
    if (set[p]) continue;
    if (s->params[p].def < 0)
      return vkocc_fail(VKOCC_ERROR_USAGE, "--reference: no value for '%s' (and it has no Default)", s->params[p].name);
    want[p] = (uint32_t)s->params[p].def;
  }
  for (uint32_t c = 0; c < h->run->space.count; c++)
    if (!memcmp(h->run->space.coord + (size_t)c * s->nparams, want, s->nparams * sizeof *want)) { *config = c; return VKOCC_OK; }
  return vkocc_fail(VKOCC_ERROR_USAGE, "--reference %s: that configuration is ruled out by the conditions", text);
}

/* The arguments' buffers against maxStorageBufferRange and, with their host copies (data, references,
 * readbacks), against the host's physical memory. USAGE naming the argument. */
static vkocc_status check_sizes(harness *h) {
  t1_spec *s = h->s;
  core_exec_limits lim;
  core_exec_limits_get(CTX(h), &lim);
  uint64_t host = 0;
  for (uint32_t i = 0; i < s->nargs; i++) {
    const t1_arg *a = &s->args[i];
    if (!a->vector) continue;
    uint64_t bytes = (a->bytes + 3) / 4 * 4;
    if (bytes > lim.max_storage_buffer_range)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.Size: %llu elements of %u bytes (%llu bytes) exceed maxStorageBufferRange "
                        "(%u) of %s", s->file, a->path, (unsigned long long)a->count, a->comps * a->comp_bytes,
                        (unsigned long long)bytes, lim.max_storage_buffer_range, CTX(h)->info.name);
    host += 3 * bytes; /* its data, a readback, a reference */
  }
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  uint64_t mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  if (mem && host > mem / 2)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.Arguments: the arguments need up to %.1f GiB of host "
                      "memory (data, readbacks, references), more than half of this host's %.1f GiB", s->file,
                      host / 1073741824.0, mem / 1073741824.0);
  return VKOCC_OK;
}

/* How each parameter reaches the kernel: a specialization constant declared as such (source) or named so
 * (SPIR-V), a -D define (named in the source), or only the launch sizes (LocalSize, GlobalSize). USAGE for a
 * parameter that reaches it no way. */
static vkocc_status classify_params(harness *h) {
  t1_spec *s = h->s;
  tu_run *run = h->run;
  bool launch[32] = {0};
  for (int d = 0; d < 3; d++) texpr_uses(s->local[d], launch), texpr_uses(s->global[d], launch);
  spv_consts sc = {0};
  if (s->lang == VKOCC_SHADER_SPIRV) {
    uint32_t *spv;
    size_t words;
    if (compile_shader_load_file(s->kernel_file, VKOCC_SHADER_SPIRV, s->kernel_name, NULL, 0, &spv, &words))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s", s->file, vkocc_last_error());
    tu_spv_walk(spv, words, &sc);
    free(spv);
  } else {
    void *text;
    size_t len;
    if (s->kernel_text) text = util_xstrdup(s->kernel_text);
    else if (util_read_file(s->kernel_file, &text, &len))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s", s->file, vkocc_last_error());
    tu_strip_comments(h->source = text);
  }
  for (uint32_t i = 0; i < s->nparams; i++) {
    const char *name = s->params[i].name;
    h->spec_id[i] = h->source ? tu_declared_spec(h->source, name) : -1;
    for (uint32_t k = 0; k < sc.n; k++)
      if (!strcmp(sc.c[k].name, name)) h->spec_id[i] = (int32_t)sc.c[k].spec_id;
    run->param_spec[i] = h->spec_id[i] >= 0;
    bool define = h->source && tu_word_in(h->source, name);
    /* not in the source: it may still shape the launch, then it is no define */
    run->param_launch[i] = !run->param_spec[i] && !define && launch[i];
    if (run->param_spec[i] || define || launch[i]) continue;
    if (!h->source)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.ConfigurationSpace.TuningParameters[%u]: '%s' is no specialization constant "
                        "of the SPIR-V kernel %s (a SPIR-V kernel takes no -D defines)", s->file, i, name, s->kernel_file);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.ConfigurationSpace.TuningParameters[%u]: '%s' reaches the kernel neither as "
                      "a specialization constant nor as a -D define (%s never names it) nor through LocalSize or "
                      "GlobalSize", s->file, i, name, s->kernel_file);
  }
  return VKOCC_OK;
}

/* The reference: ReferenceArguments, or the first configuration that runs (--reference: that one first), or
 * none without an Output argument. */
static vkocc_status setup_reference(harness *h) {
  t1_spec *s = h->s;
  tu_run *run = h->run;
  h->expect = util_xcalloc(s->nargs + 1, sizeof *h->expect);
  h->ref_of = util_xcalloc(s->nargs + 1, sizeof *h->ref_of);
  h->expect_borrowed = util_xcalloc(s->nargs + 1, sizeof *h->expect_borrowed);
  bool any_output = false;
  for (uint32_t i = 0; i < s->nargs; i++) any_output |= s->args[i].output;
  if (s->nrefs) {
    for (uint32_t k = 0; k < s->nrefs; k++) {
      const t1_ref *ref = &s->refs[k];
      const t1_arg *a = &s->args[ref->target];
      if (!h->expect_borrowed[ref->target]) free(h->expect[ref->target]);
      h->expect[ref->target] = NULL;
      h->ref_of[ref->target] = ref;
      double t0 = vkocc_now_ms();
      vkocc_status st = tu_fill_data(h, "ref", k, &ref->data, ref->path, a, a->bytes, &h->expect[ref->target],
                                  &h->expect_borrowed[ref->target]);
      if (st) return st;
      if (h->trace_setup)
        tu_note(h->o, "vkocc tune: setup the reference %s (%llu bytes): data %.1f ms", ref->name,
                (unsigned long long)a->bytes, vkocc_now_ms() - t0);
    }
    h->have_reference = true;
    snprintf(run->reference, sizeof run->reference, "ReferenceArguments");
    return VKOCC_OK;
  }
  if (any_output) {
    for (uint32_t i = 0; i < s->nargs; i++)
      if (s->args[i].output) h->expect[i] = (void *)1; /* placeholder until the reference run */
    return h->o->reference ? parse_reference(h, h->o->reference, &h->reference_config) : VKOCC_OK;
  }
  free(h->expect), h->expect = NULL;
  snprintf(run->reference, sizeof run->reference, "none (no Output argument)");
  return VKOCC_OK;
}

/* A resumed run answers from its records; the reference outputs of a resumed run without ReferenceArguments
 * come from running the reference configuration again (--reference: it runs first). */
static vkocc_status reference_first(harness *h) {
  tu_run *run = h->run;
  if (!h->expect || h->have_reference) return VKOCC_OK;
  int64_t rc = h->reference_config;
  if (rc < 0 && run->reference[0]) rc = tu_find(run, run->reference);
  if (rc < 0) return VKOCC_OK;
  tu_result tmp, keep = run->r[rc];
  vkocc_status st = tu_measure_config(h, (uint32_t)rc, &tmp);
  if (st) return st;
  if (keep.measured) free(tmp.times_ns), run->r[rc] = keep;
  else run->r[rc] = tmp, h->done++, race_note(h, (uint32_t)rc, &tmp);
  if (h->have_reference) return VKOCC_OK;
  return vkocc_fail(VKOCC_ERROR_USAGE, "--reference: configuration %s does not run: %s",
                    run->reference[0] ? run->reference : h->o->reference, tmp.error);
}

/* tune_search_run's loop, one configuration at a time, with what the strategy will propose next (where it can
 * say: tune_search_peek) handed to the pool before and after each measurement, so that their pipelines are
 * built while the device measures. Peeking changes nothing the strategy proposes. */
static vkocc_status search_ahead(harness *h, const tune_space *sp, const tune_strategy_def *def) {
  tu_run *run = h->run;
  tune_search *ts;
  vkocc_status st = tune_search_open(sp, def, run->seed, h->s->search_attrs, &run->budget, &ts);
  if (st) return st;
  uint32_t c, window = tu_prebuild_window(h), *next = util_xmalloc(window * sizeof *next);
  while (tune_search_ask(ts, 1, &c)) {
    tu_prebuild_queue(h, next, tune_search_peek(ts, window, next));
    tune_eval e = {0};
    if ((st = eval_cb(h, c, &e))) break;
    tune_search_tell(ts, c, e);
    tu_prebuild_queue(h, next, tune_search_peek(ts, window, next));
  }
  if (!st) st = tune_search_status(ts);
  tune_search_close(ts);
  free(next);
  return st;
}

static vkocc_status search(harness *h, const tune_strategy_def *def) {
  t1_spec *s = h->s;
  tu_run *run = h->run;
  tune_space sp = {.nparams = s->nparams, .nconfigs = run->space.count, .coord = run->space.coord};
  const char *names[32];
  uint32_t nvals[32];
  for (uint32_t i = 0; i < s->nparams; i++) names[i] = s->params[i].name, nvals[i] = s->params[i].nvalues;
  sp.param_names = names, sp.nvalues = nvals;
  /* the strategy's attributes first, so that a bad one is named in the spec (the strategy says which) */
  void *probe;
  vkocc_status st = def->create(&sp, run->seed, s->search_attrs, &probe);
  if (st == VKOCC_ERROR_USAGE) {
    char m[600];
    snprintf(m, sizeof m, "%s", vkocc_last_error());
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.Search.Attributes: %s", s->file, m);
  }
  if (st) return st;
  def->destroy(probe);
  /* a fleet's worker measures what its coordinator hands out (tu_options.drive) instead of searching */
  if (h->o->drive) {
    st = h->o->drive(h->o->drive_user, &sp, eval_cb, h);
  } else {
    st = search_ahead(h, &sp, def);
  }
  return st;
}

/* a kernel that compiles for no configuration is bad input */
static vkocc_status compiles_somewhere(const harness *h) {
  const tu_run *run = h->run;
  uint32_t measured = 0, compile = 0;
  const char *first = NULL;
  for (uint32_t i = 0; i < run->space.count; i++) {
    if (!run->r[i].measured) continue;
    measured++;
    if (run->r[i].inv == TU_COMPILE && !compile++) first = run->r[i].error;
  }
  if (!measured || compile < measured) return VKOCC_OK;
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s compiles for none of the %u configurations "
                    "tried; the first: %.400s", h->s->file, h->s->kernel_file, measured, first);
}

static void harness_free(harness *h) {
  for (uint32_t i = 0; i < h->nmods; i++) free(h->mods[i]->spv), compile_reflection_free(&h->mods[i]->refl), free(h->mods[i]);
  free(h->mods);
  json_decref(h->mod_index);
  json_decref(h->P_memo);
  for (uint32_t i = 0; h->cfg && i < h->run->space.count; i++) tu_config_free(h->cfg[i]);
  free(h->cfg);
  tu_free_buffers(h);
  for (uint32_t i = 0; h->expect && i < h->s->nargs; i++)
    if (h->expect[i] != (void *)1 && !h->expect_borrowed[i]) free(h->expect[i]);
  free(h->expect);
  free(h->expect_borrowed);
  free(h->ref_of);
  free(h->source);
}

/* The options that replace the spec's (strategy, budget), checked before anything is allocated. */
static vkocc_status take_options(tu_run *run, const tu_options *o, const tune_strategy_def **def) {
  if (o->strategy) snprintf(run->strategy, sizeof run->strategy, "%s", o->strategy);
  if (!(*def = tune_strategy_find(run->strategy)))
    return vkocc_fail(VKOCC_ERROR_USAGE, "unknown search strategy '%s'", run->strategy);
  run->seed = o->seed;
  /* a budget given here replaces the spec's Budget as a whole (--fraction 1 under a spec's ConfigurationCount 1
   * measured one configuration) */
  if (o->budget.max_evals || o->budget.max_fraction > 0 || o->budget.max_seconds > 0) run->budget = o->budget;
  if (o->reference && run->spec.nrefs)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--reference %s: %s has ReferenceArguments, which are the reference; leave out "
                      "one of the two", o->reference, run->spec.file);
  return VKOCC_OK;
}

vkocc_status tu_tune(vkocc_context **ctx, tu_run *run, const tu_options *o) {
  static const tu_options none = {0};
  if (!o) o = &none;
  harness h = {.ctxp = ctx, .run = run, .o = o, .s = &run->spec, .reference_config = -1, .idle_ms = -1, .sentinel = -1};
  tu_race_init(&h.race);
  h.pb = (prebuilder){.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
                      .done = PTHREAD_COND_INITIALIZER, .modules = PTHREAD_MUTEX_INITIALIZER,
                      .compiled = PTHREAD_COND_INITIALIZER, .nthreads = tu_prebuild_threads(o)};
  tu_pool_test_hooks(&h.pb);
  const char *ts = getenv("VKOCC_TRACE_SETUP");
  h.trace_setup = ts && !strcmp(ts, "1");
  h.t0 = h.last_cp = vkocc_now_ms();
  for (int d = 0; d < 3; d++) h.global_P |= (texpr_uses(run->spec.global[d], NULL) & TEXPR_USES_P) != 0;
  const char *lose = getenv("VKOCC_TEST_DEVICE_LOSS");
  if (lose) h.lose_at = (uint32_t)strtoul(lose, NULL, 10);
  const tune_strategy_def *def;
  if (run->spec.uses_device && !run->spec.has_device) /* a caller that did not tu_bind_device: never left out silently */
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: its conditions name the device's limits, which this way of tuning does "
                      "not give them (tune it on one device)", run->spec.file);
  /* every buffer against the device's limits and the host's memory before anything is allocated or filled (a
   * 64 GiB reference was allocated, an 8 GiB generator run element by element, before any check) */
  vkocc_status st = take_options(run, o, &def);
  if (!st) st = check_sizes(&h);
  if (!st) st = classify_params(&h);
  if (!st) st = setup_reference(&h);
  /* the arguments' data before the first module (glslang's tables meanwhile built by compile_shader_warm, started when
   * the spec was read): every pipeline can then be built as soon as its module is there */
  if (!st) {
    double t0 = vkocc_now_ms();
    st = tu_make_buffers(&h);
    run->setup_ms += vkocc_now_ms() - t0;
  }
  /* the tuning's own wall: the reference, the search, the sentinel and the final round, less the arguments' data */
  double t_tune = vkocc_now_ms(), setup0 = run->setup_ms, device0 = run->device_ms;
  for (uint32_t c = 0; !st && c < run->space.count; c++) race_note(&h, c, &run->r[c]); /* resumed results */
  if (!st) st = reference_first(&h);
  if (!st) st = search(&h, def);
  /* the search's alone (the configurations, the waits between them), the device's part of it */
  run->search_ms += vkocc_now_ms() - t_tune - (run->setup_ms - setup0), run->search_device_ms += run->device_ms - device0;
  if (!st && h.sentinel >= 0 && tu_sentinel_every(o) > 0) st = tu_sentinel_again(&h);
  if (!st && o->confirm >= 0 && tu_confirm_best(&h, o->confirm ? (uint32_t)o->confirm : 5))
    tu_note(o, "vkocc tune: note: %s; the best is ranked by the search's medians", vkocc_last_error());
  run->tuning_ms += vkocc_now_ms() - t_tune - (run->setup_ms - setup0);
  if (!st) st = compiles_somewhere(&h);
  run->elapsed_ms += vkocc_now_ms() - h.t0;
  tu_prebuild_stop(&h);
  harness_free(&h);
  tu_race_free(&h.race);
  return st;
}

void tu_run_free(tu_run *run) {
  if (run->r)
    for (uint32_t i = 0; i < run->space.count; i++) free(run->r[i].times_ns);
  free(run->r);
  free(run->order);
  free(run->sentinel);
  json_decref(run->by_key);
  t1_space_free(&run->space);
  t1_free(&run->spec);
  memset(run, 0, sizeof *run);
}
