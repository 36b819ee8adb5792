/* The public tuning session (include/vkocc.h, "tuning"): one handle over the one harness (tune/harness/), for a
 * user's kernel from a T1 spec and for a shipped kernel through its built-in spec (tune/results/builtin.c), with what
 * `vkocc tune` does around it: --resume, --only, who measured, checkpoints, the results documents written whole,
 * and the queries the text summary reads. Every run writes the one results document; a shipped kernel's names its
 * element type and each configuration by the parameters of its variant (what policies read), and --only reads
 * those names. */
#include "builtin.h"
#include "user_results.h"
#include "search.h"
#include "io.h"
#include "jsonio.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

struct vkocc_tune_session {
  tu_run urun;               /* the spec (a T1 file's, or a shipped kernel's built-in one from prepare on) */
  /* a shipped kernel (k set): its built-in spec, and the document --resume continues */
  const tune_kernel_def *k;
  bool f32;
  uint64_t n;
  tu_builtin b;
  bool have_prev;
  tune_doc prev;             /* the resumed document, read by vkocc_tune_resume (tune_results_load), merged by prepare */
  char prev_path[1024];
  double prev_pipelines_ms, prev_measure_ms;
  char resume_path[1024];    /* a T1 session's, read by prepare once the device is known */
  bool prepared;
  bool spent;                /* a prepare that failed or a run tried: the state is partial, nothing runs again */
  uint32_t resumed;
  tune_device_id dev;
  bool have_fp;
  vkocc_fingerprint fp;
  json_t *fp_doc;
  json_t *final;             /* the results document written at the end of the run */
  const vkocc_tune_options *opt; /* during vkocc_tune_run: the caller's callbacks */
  double last_cp;
};


static vkocc_tune_session *session_new(void) {
  return util_xcalloc(1, sizeof(vkocc_tune_session));
}

vkocc_status vkocc_tune_open_spec(const char *spec_path, const char *name, vkocc_tune_session **out) {
  vkocc_clear_error();
  if (!spec_path || !out) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_open_spec: no spec file");
  vkocc_tune_session *s = session_new();
  vkocc_status st = tu_prepare(spec_path, name, &s->urun);
  if (st) {
    free(s);
    return st;
  }
  *out = s;
  return VKOCC_OK;
}

vkocc_status vkocc_tune_open_kernel(const char *kernel, const char *type, uint64_t n, vkocc_tune_session **out) {
  vkocc_clear_error();
  const tune_kernel_def *k = kernel ? kernels_find(kernel) : NULL;
  if (!k) return vkocc_fail(VKOCC_ERROR_USAGE, "unknown kernel '%s' (kernels: histogram, reduce)", kernel ? kernel : "");
  bool f32;
  vkocc_status st = tune_parse_type(k, type, &f32);
  if (st) return st;
  vkocc_tune_session *s = session_new();
  s->k = k, s->f32 = f32, s->n = n;
  *out = s;
  return VKOCC_OK;
}

void vkocc_tune_close(vkocc_tune_session *s) {
  if (!s) return;
  tu_run_free(&s->urun);
  if (s->have_prev) tune_doc_free(&s->prev);
  json_decref(s->fp_doc);
  json_decref(s->final);
  free(s);
}

char *vkocc_tune_kernels_text(void) {
  static const char *const names[] = {"histogram", "reduce"};
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    fputs("vkocc: out of memory (the kernels' text)\n", stderr);
    abort();
  }
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const tune_kernel_def *k = kernels_find(names[i]);
    if (!k) continue;
    uint32_t n = k->space(NULL);
    tune_config *all = util_xmalloc((n ? n : 1) * sizeof *all);
    k->space(all);
    fprintf(f, "  %s: %s%s\n  %s parameters:", k->name, k->what, k->has_f32 ? " (--type u32|f32)" : "", k->name);
    for (uint32_t p = 0; p < k->nparams; p++) {
      fprintf(f, " %s=", k->params[p].name);
      uint32_t shown = 0;
      for (uint32_t c = 0; c < n; c++) { /* distinct values in the order the space lists them */
        if (!(all[c].mask & (1u << p))) continue;
        uint32_t v = all[c].v[p];
        bool seen = false;
        for (uint32_t d = 0; d < c && !seen; d++) seen = (all[d].mask & (1u << p)) && all[d].v[p] == v;
        if (seen) continue;
        if (k->params[p].names && v < k->params[p].nnames) fprintf(f, "%s%s", shown ? "," : "", k->params[p].names[v]);
        else fprintf(f, "%s%u", shown ? "," : "", v);
        shown++;
      }
    }
    fputc('\n', f);
    free(all);
  }
  fclose(f);
  return text;
}

/* ---- who measures */

vkocc_status vkocc_tune_fingerprint(vkocc_tune_session *s, const vkocc_fingerprint *fp,
                                    const vkocc_fingerprint_details *details) {
  vkocc_clear_error();
  if (!s || !fp) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_fingerprint: no session or fingerprint");
  json_decref(s->fp_doc);
  s->fp_doc = details ? json_incref(vkocc_fingerprint_details_json(details)) : NULL;
  s->fp = *fp, s->have_fp = true;
  return VKOCC_OK;
}

vkocc_status vkocc_tune_fingerprint_file(vkocc_tune_session *s, const char *path) {
  vkocc_clear_error();
  if (!s || !path) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_fingerprint_file: no session or file");
  vkocc_fingerprint fp;
  vkocc_status st = vkocc_fingerprint_load(path, &fp);
  if (st) return st;
  json_error_t e;
  json_decref(s->fp_doc);
  s->fp_doc = json_load_file(path, 0, &e); /* the device details beside the surface; the file was checked above */
  s->fp = fp, s->have_fp = true;
  return VKOCC_OK;
}

/* ---- resume, prepare */

vkocc_status vkocc_tune_resume(vkocc_tune_session *s, const char *path) {
  vkocc_clear_error();
  if (!s || !path) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_resume: no session or file");
  if (s->prepared) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_resume: after vkocc_tune_prepare");
  if (access(path, F_OK) != 0) return VKOCC_OK; /* nothing to resume yet */
  if (!s->k) {
    snprintf(s->resume_path, sizeof s->resume_path, "%s", path);
    return VKOCC_OK;
  }
  /* a previous document is read before anything is measured; a bad one is left as it is */
  if (s->have_prev) tune_doc_free(&s->prev), s->have_prev = false;
  if (tune_results_load(path, NULL, &s->prev)) return vkocc_fail(VKOCC_ERROR_USAGE, "--resume: %s", vkocc_last_error());
  if (s->prev.k != s->k || s->prev.f32 != s->f32 || s->prev.n != s->n) {
    vkocc_status st = vkocc_fail(VKOCC_ERROR_USAGE, "--resume: %s holds %s %s at --size %llu, not %s %s at --size %llu",
                                 path, s->prev.k->name, s->prev.f32 ? "f32" : "u32", (unsigned long long)s->prev.n,
                                 s->k->name, s->f32 ? "f32" : "u32", (unsigned long long)s->n);
    tune_doc_free(&s->prev);
    return st;
  }
  s->have_prev = true;
  snprintf(s->prev_path, sizeof s->prev_path, "%s", path);
  return VKOCC_OK;
}

uint32_t vkocc_tune_resumed(const vkocc_tune_session *s) { return s ? s->resumed : 0; }

/* a shipped kernel: its built-in spec for this device, the resumed document's results taken */
static vkocc_status prepare_kernel(vkocc_tune_session *s, vkocc_context *ctx) {
  if (s->have_prev && strcmp(s->prev.dev.id.key, s->dev.id.key))
    return vkocc_fail(VKOCC_ERROR_USAGE, "--resume: %s was measured on '%s', not on this device ('%s')", s->prev_path,
                      s->prev.dev.id.key, s->dev.id.key);
  vkocc_status st = tu_builtin_open(&s->b, ctx, s->k, s->n, s->f32, &s->urun);
  if (st || !s->have_prev) return st;
  /* an older document (no kind) gives its medians; the results document its records whole, times and all */
  if (s->prev.imported) tu_builtin_resume(&s->b, &s->urun, &s->prev);
  else if ((st = tu_builtin_resume_file(&s->b, &s->urun, s->prev_path, s->dev.id.key))) {
    tune_doc_free(&s->prev);
    s->have_prev = false;
    return vkocc_fail(st, "--resume: %s", vkocc_last_error());
  }
  /* the resumed runs' times, said apart in the summary */
  s->urun.pipelines_ms = s->prev_pipelines_ms = s->prev.pipelines_ms > 0 ? s->prev.pipelines_ms : 0;
  s->urun.measure_ms = s->prev_measure_ms = s->prev.measure_ms > 0 ? s->prev.measure_ms : 0;
  tune_doc_free(&s->prev);
  s->have_prev = false;
  return VKOCC_OK;
}

vkocc_status vkocc_tune_prepare(vkocc_tune_session *s, vkocc_context *ctx, const vkocc_tune_options *options) {
  vkocc_clear_error();
  if (!s || !ctx) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_prepare: no session or context");
  if (s->prepared) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_prepare: the session is prepared already");
  if (s->spent) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_prepare: it failed before; close the session, open another");
  tune_device_id_fill(&s->dev, vkocc_context_device(ctx), s->fp_doc, s->have_fp ? &s->fp : NULL);
  const vkocc_tune_options *o = options;
  int64_t limits[TEXPR_NDEVICE];
  tu_device_limits(ctx, limits);
  vkocc_status st = s->k ? prepare_kernel(s, ctx) : tu_bind_device(&s->urun, limits);
  if (!st && !s->k && s->resume_path[0]) st = tu_results_resume(s->resume_path, &s->urun, s->dev.id.key);
  for (uint32_t i = 0; !st && o && i < o->nonly; i++)
    st = s->k ? tu_builtin_restrict(&s->b, &s->urun, o->only[i]) : tu_restrict(&s->urun, o->only[i]);
  s->resumed = s->urun.resumed;
  if (!st) s->prepared = true;
  else s->spent = true;
  return st;
}

/* ---- documents */

static json_t *results_json(const vkocc_tune_session *s) {
  char when[32];
  util_utc_now(when, sizeof when);
  return s->k ? tu_builtin_results_json(&s->b, &s->urun, &s->dev, when) : tu_results_json(&s->urun, &s->dev, when);
}

void vkocc_tune_t4_metadata_path(const char *t4, char *out, size_t len) {
  size_t l = strlen(t4);
  if (l > 5 && !strcmp(t4 + l - 5, ".json")) snprintf(out, len, "%.*s.metadata.json", (int)(l - 5), t4);
  else snprintf(out, len, "%s.metadata.json", t4);
}

static vkocc_status write_docs(vkocc_tune_session *s, json_t *doc, const char *output, const char *t4) {
  vkocc_status st = output ? util_json_write(doc, output) : VKOCC_OK;
  if (!st && t4) {
    char meta[1100];
    vkocc_tune_t4_metadata_path(t4, meta, sizeof meta);
    json_t *t = tu_t4_results(&s->urun), *m = tu_t4_metadata(&s->urun, &s->dev);
    st = util_json_write(t, t4);
    if (!st) st = util_json_write(m, meta);
    json_decref(t), json_decref(m);
  }
  return st;
}

vkocc_status vkocc_tune_write(vkocc_tune_session *s, const char *output, const char *t4) {
  vkocc_clear_error();
  if (!s) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_write: no session");
  json_t *doc = s->final ? json_incref(s->final) : results_json(s);
  vkocc_status st = write_docs(s, doc, output, t4);
  json_decref(doc);
  return st;
}

vkocc_status vkocc_tune_results_document(vkocc_tune_session *s, struct json_t **doc) {
  vkocc_clear_error();
  if (!s || !doc) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_results_document: no session");
  *doc = s->final ? json_incref(s->final) : results_json(s);
  return VKOCC_OK;
}

vkocc_status vkocc_tune_t4_documents(const vkocc_tune_session *s, struct json_t **results, struct json_t **metadata) {
  vkocc_clear_error();
  if (!s || !results || !metadata) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_t4_documents: no session");
  *results = tu_t4_results(&s->urun);
  *metadata = tu_t4_metadata(&s->urun, &s->dev);
  return VKOCC_OK;
}

/* ---- the run */

/* nothing is written until some configuration got past compiling: a kernel that compiles for none is bad
 * input, and the previous results file must then stay as it was */
static bool worth_writing(const tu_run *run) {
  for (uint32_t i = 0; i < run->space.count; i++)
    if (run->r[i].measured && run->r[i].inv != TU_COMPILE) return true;
  return false;
}

static vkocc_status checkpoint_doc(vkocc_tune_session *s) {
  json_t *doc = results_json(s);
  vkocc_status st = write_docs(s, doc, s->opt->output, s->opt->t4_output);
  json_decref(doc);
  return st;
}

static vkocc_status run_checkpoint(void *user, const tu_run *run) {
  return worth_writing(run) ? checkpoint_doc(user) : VKOCC_OK;
}

static void key_of(const vkocc_tune_session *s, uint32_t i, char *out, size_t len);

static void run_progress(void *user, uint32_t done, uint32_t total, double best_ns, double eta_s) {
  vkocc_tune_session *s = user;
  char key[512];
  int64_t b = tu_best(&s->urun);
  if (b >= 0) key_of(s, (uint32_t)b, key, sizeof key);
  vkocc_tune_progress p = {.phase = "tune", .done = done, .total = total, .best_ns = best_ns, .eta_s = eta_s,
                           .best_key = b >= 0 ? key : NULL};
  s->opt->progress(s->opt->user, &p);
}

static vkocc_status run_reopen(void *user, vkocc_context **ctx) {
  vkocc_tune_session *s = user;
  return s->opt->reopen(s->opt->user, ctx);
}

static vkocc_status run_search(vkocc_tune_session *s, vkocc_context **ctx, const vkocc_tune_options *o) {
  tu_options to;
  tu_options_from(&to, o);
  to.reopen = o->reopen ? run_reopen : NULL, to.progress = o->progress ? run_progress : NULL;
  to.checkpoint = o->output ? run_checkpoint : NULL, to.user = s, to.fp_doc = s->fp_doc;
  vkocc_status st = tu_tune(ctx, &s->urun, &to);
  if (!st || st == VKOCC_ERROR_USAGE || st == VKOCC_ERROR_UNSUPPORTED || !o->output)
    return st; /* usage, unsupported: nothing written, the spec does not fit */
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", vkocc_last_error());
  vkocc_status w = worth_writing(&s->urun) ? checkpoint_doc(s) : VKOCC_OK;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < s->urun.space.count; i++) kept += s->urun.r[i].measured;
  return vkocc_fail(st, "%s; %u configurations kept in %s%s", msg, kept, o->output,
                    w ? " (writing it failed too)" : " (--resume continues)");
}

vkocc_status vkocc_tune_run(vkocc_tune_session *s, vkocc_context **ctx, const vkocc_tune_options *options) {
  vkocc_clear_error();
  if (!s || !ctx || !*ctx) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_run: no session or context");
  if (!s->prepared) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_run: call vkocc_tune_prepare first");
  if (s->spent) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_run: the session has run already");
  if (options && options->t4_output && !options->output)
    return vkocc_fail(VKOCC_ERROR_USAGE, "T4 results: they go with the results document (options->output)");
  s->spent = true;
  vkocc_tune_options none = {0};
  const vkocc_tune_options *o = options ? options : &none;
  s->opt = o;
  vkocc_status st = run_search(s, ctx, o);
  if (!st) {
    s->final = results_json(s); /* what vkocc_tune_results_document returns from now on */
    if (o->output) st = write_docs(s, s->final, o->output, o->t4_output);
  }
  s->opt = NULL;
  return st;
}

/* ---- queries */

const char *vkocc_tune_validity_name(vkocc_tune_validity v) { return tu_invalidity_name((tu_invalidity)v); }

void vkocc_tune_summarize(const vkocc_tune_session *s, vkocc_tune_summary *out) {
  memset(out, 0, sizeof *out);
  const tu_run *r = &s->urun;
  out->spec = !s->k;
  out->device_key = s->dev.id.key, out->cluster_id = s->dev.cluster_id;
  out->resumed = s->resumed;
  out->kernel_file = out->entry = out->element_type = out->ruled_out_note = out->strategy = out->reference = "";
  out->kernel = r->name, out->kernel_file = r->spec.kernel_file, out->entry = r->spec.kernel_name;
  out->space_total = r->space.total, out->ruled_out = r->space.constrained, out->filtered = r->filtered;
  out->count = r->space.count, out->strategy = r->strategy, out->reference = r->reference;
  if (s->k) { /* as its results document counts: the kernel's space, what the device's limits rule out */
    out->kernel = s->k->name, out->element_type = s->f32 ? "f32" : "u32", out->problem_size = s->n;
    out->space_total = s->b.space_total, out->ruled_out = s->b.pruned, out->ruled_out_note = s->b.prune_note;
    out->resumed_pipelines_ms = s->prev_pipelines_ms, out->resumed_measure_ms = s->prev_measure_ms;
  }
  for (uint32_t i = 0; i < r->space.count; i++) {
    const tu_result *x = &r->r[i];
    if (!x->measured) continue;
    out->measured++, out->validity[x->inv]++;
    out->cost_ms[0] += x->compile_ms, out->cost_ms[1] += x->pipeline_ms, out->cost_ms[2] += x->occupancy_ms;
    out->cost_ms[3] += x->measure_ms, out->cost_ms[4] += x->other_ms;
  }
  out->valid = out->validity[VKOCC_TUNE_CORRECT], out->invalid = out->measured - out->valid;
  out->pipelines_ms = r->pipelines_ms, out->measure_ms = r->measure_ms;
  out->compiles = r->compiles, out->pipelines = r->pipelines, out->setup_ms = r->setup_ms;
}

static uint32_t count_of(const vkocc_tune_session *s) { return s->urun.space.count; }

static bool ranked(const vkocc_tune_session *s, uint32_t i) {
  const tu_result *r = &s->urun.r[i];
  return r->measured && r->inv == TU_CORRECT && r->runs;
}

static double rank_ns(const vkocc_tune_session *s, uint32_t i) { return tu_rank_ns(&s->urun.r[i]); }

/* configuration i's key: a shipped kernel's as its results document gives it, else the T1 one */
static void key_of(const vkocc_tune_session *s, uint32_t i, char *out, size_t len) {
  const tu_run *run = &s->urun;
  if (s->k) {
    tune_result d;
    tu_builtin_result(&s->b, run, i, &d);
    snprintf(out, len, "%s", d.key);
  } else t1_config_key(&run->spec, run->space.coord + (size_t)i * run->spec.nparams, out, len);
}

vkocc_status vkocc_tune_result_get(const vkocc_tune_session *s, uint32_t i, vkocc_tune_result *out) {
  vkocc_clear_error();
  if (!s || !out || i >= count_of(s))
    return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_result_get: configuration %u of %u", i, s ? count_of(s) : 0);
  memset(out, 0, sizeof *out);
  out->ranked = ranked(s, i);
  out->rank_ns = rank_ns(s, i);
  const tu_run *run = &s->urun;
  const tu_result *r = &run->r[i];
  key_of(s, i, out->key, sizeof out->key);
  out->measured = r->measured, out->validity = (vkocc_tune_validity)r->inv, out->error = r->error;
  out->median_ns = r->median_ns, out->spread = r->spread, out->min_ns = r->min_ns, out->max_ns = r->max_ns;
  out->runs = r->runs, out->final_ns = r->confirm_ns, out->final_runs = r->confirm_runs, out->P = r->P;
  out->stopped = r->stopped != 0;
  return VKOCC_OK;
}

uint32_t vkocc_tune_ranking(const vkocc_tune_session *s, uint32_t max, uint32_t *out) {
  uint32_t n = count_of(s), k = 0;
  bool *shown = util_xcalloc(n + 1, 1);
  for (; k < max; k++) {
    int64_t b = -1;
    for (uint32_t i = 0; i < n; i++)
      if (!shown[i] && ranked(s, i) && (b < 0 || rank_ns(s, i) < rank_ns(s, (uint32_t)b))) b = i;
    if (b < 0) break;
    shown[b] = true;
    out[k] = (uint32_t)b;
  }
  free(shown);
  return k;
}

int64_t vkocc_tune_best(const vkocc_tune_session *s) {
  uint32_t b;
  return s && vkocc_tune_ranking(s, 1, &b) ? (int64_t)b : -1;
}

bool vkocc_tune_sentinel_get(const vkocc_tune_session *s, vkocc_tune_sentinel *out) {
  if (!s) return memset(out, 0, sizeof *out), false;
  return tu_sentinel_of(&s->urun, out);
}

/* ---- strategies */

const char *vkocc_tune_strategy(uint32_t i, const char **summary) {
  uint32_t n;
  const tune_strategy_def *const *all = tune_strategies(&n);
  if (i >= n) return NULL;
  if (summary) *summary = all[i]->summary;
  return all[i]->name;
}

const char *vkocc_tune_strategy_find(const char *name) {
  const tune_strategy_def *d = name ? tune_strategy_find(name) : NULL;
  return d ? d->name : NULL;
}
