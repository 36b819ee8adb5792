/* Results of the user's own kernels as tune/ writes them (docs/tune.md): the vkocc document
 * (vkocc.tune-results/1 with "kind": "user"), --resume from one, and the T4 form (Kernel Tuner / KTT's results
 * and metadata schemas). The reader that lets policies take these results is io/tune_user_io.c. */
#include "user_results.h"
#include "io.h"
#include "race.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *u3(const uint32_t v[3]) { return json_pack("[I, I, I]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]); }

/* timing_ms: the host time of each part of the configuration's measurement in ms (compile, pipeline and
 * occupancy are parts of prepare; measurement = validate + warm + trials), the device time of its dispatches
 * (gpu), of its batches as a whole with the restores, compares and probes around them (device) and of its warm-up
 * alone (warmup). */
static json_t *timing_json(const tu_result *r) {
  json_t *c = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "compile", r->compile_ms, "pipeline", r->pipeline_ms,
                        "occupancy", r->occupancy_ms, "measurement", r->measure_ms, "warmup", r->warmup_ms, "other",
                        r->other_ms, "total", r->total_ms, "gpu", r->gpu_ms);
  for (int p = 0; p < TU_NPHASES; p++) json_object_set_new(c, tu_phase_name((tu_phase)p), json_real(r->phase_ms[p]));
  json_object_set_new(c, "wait", json_real(r->wait_ms));
  json_object_set_new(c, "device", json_real(r->device_ms));
  json_object_set_new(c, "submissions", json_integer(r->submissions));
  return c;
}

/* The measured configurations as documents list them: in evaluation order, then those a resumed document held
 * that this search did not reach. */
static uint32_t *report_order(const tu_run *run, uint32_t *n) {
  uint8_t *done = util_xcalloc(run->space.count + 1, 1);
  uint32_t *out = util_xcalloc(run->space.count + 1, sizeof *out);
  *n = 0;
  for (uint32_t k = 0; k < run->nevals + run->space.count; k++) {
    uint32_t i = k < run->nevals ? run->order[k] : k - run->nevals;
    if (run->r[i].measured && !done[i]) done[i] = 1, out[(*n)++] = i;
  }
  free(done);
  return out;
}

static json_t *times_json(const tu_result *r, double scale) {
  json_t *a = json_array();
  for (uint32_t t = 0; r->times_ns && t < r->runs; t++) json_array_append_new(a, json_real(r->times_ns[t] * scale));
  return a;
}

static uint64_t problem_product(const t1_spec *s) {
  uint64_t p = 1;
  for (uint32_t i = 0; i < s->nproblem; i++) p *= (uint64_t)s->problem[i];
  return s->nproblem ? p : 0;
}

static json_t *params_json(const tu_run *run) {
  const t1_spec *s = &run->spec;
  json_t *params = json_array();
  for (uint32_t i = 0; i < s->nparams; i++) {
    json_t *vals = json_array();
    for (uint32_t k = 0; k < s->params[i].nvalues; k++) {
      const texpr_value *v = &s->params[i].values[k];
      json_array_append_new(vals, s->params[i].type == T1_BOOL ? json_boolean(v->i) : v->kind == TEXPR_INT ? json_integer(v->i)
                                  : v->kind == TEXPR_FLOAT ? json_real(v->f) : json_string(v->s));
    }
    static const char *const tn[] = {"int", "uint", "float", "bool", "string"};
    json_array_append_new(params, json_pack("{s:s, s:s, s:o, s:s}", "name", s->params[i].name, "type", tn[s->params[i].type],
                                            "values", vals, "reaches",
                                            run->param_spec[i] ? "specialization constant" : run->param_launch[i] ? "launch" : "define"));
  }
  return params;
}

static json_t *measurement_json(const tu_run *run, const char *date) {
  const t1_spec *s = &run->spec;
  json_t *m = json_pack("{s:s, s:I, s:f, s:I, s:f, s:f, s:f, s:f, s:I}", "date", date, "compiles", (json_int_t)run->compiles,
                        "compile_ms", run->compile_ms, "pipelines_created", (json_int_t)run->pipelines, "pipelines_ms",
                        run->pipelines_ms, "occupancy_ms", run->occupancy_ms, "measure_ms", run->measure_ms, "elapsed_ms",
                        run->elapsed_ms, "device_losses", (json_int_t)run->device_losses);
  json_object_set_new(m, "setup_ms", json_real(run->setup_ms));
  /* the device busy with the tuning's batches; over tuning_ms, the tuning's busy fraction */
  json_object_set_new(m, "device_ms", json_real(run->device_ms));
  json_object_set_new(m, "tuning_ms", json_real(run->tuning_ms));
  json_object_set_new(m, "search_ms", json_real(run->search_ms));
  json_object_set_new(m, "search_device_ms", json_real(run->search_device_ms));
  /* where the outputs were compared with the reference: on the device (only the verdict came back), or here */
  json_object_set_new(m, "validation", json_string(run->validated_on_device ? "device" : "host"));
  if (run->nsentinel) {
    json_t *pts = json_array();
    for (uint32_t i = 0; i < run->nsentinel; i++) {
      const struct tu_sentinel *q = &run->sentinel[i];
      json_array_append_new(pts, json_pack("{s:I, s:f, s:f}", "after", (json_int_t)q->after, "median_ns", q->median_ns, "spread", q->spread));
    }
    double lo, hi, sp;
    bool drifted;
    bool two = tu_sentinel_summary(run, &lo, &hi, &sp, &drifted);
    json_object_set_new(m, "sentinel", json_pack("{s:o, s:o, s:f, s:f}", "config",
                                                 t1_config_json(s, run->space.coord + (size_t)run->sentinel_config * s->nparams),
                                                 "points", pts, "range", two ? (hi - lo) / lo : 0.0, "ms", run->sentinel_ms));
  }
  const char *lp = getenv("LP_NUM_THREADS");
  if (lp) json_object_set_new(m, "LP_NUM_THREADS", json_string(lp));
  return m;
}

static json_t *result_json(const tu_run *run, uint32_t i) {
  const t1_spec *s = &run->spec;
  const tu_result *r = &run->r[i];
  json_t *times = times_json(r, 1);
  json_t *o = json_pack("{s:o, s:b, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o}", "config",
                        t1_config_json(s, run->space.coord + (size_t)i * s->nparams), "valid", r->inv == TU_CORRECT, "invalidity",
                        tu_invalidity_name(r->inv), "P", (json_int_t)r->P, "local_size", u3(r->local), "groups",
                        u3(r->groups), "median_ns", num(r->runs ? r->median_ns : NAN), "spread",
                        num(r->runs ? r->spread : NAN), "min_ns", num(r->runs ? r->min_ns : NAN), "max_ns",
                        num(r->runs ? r->max_ns : NAN), "runs", (json_int_t)r->runs, "times_ns", times);
  /* racing: stopped before the full rule, its runs behind the incumbent's median by more than the margin */
  if (r->stopped) {
    json_object_set_new(o, "stopped", json_string(TU_STOPPED_BEHIND));
    json_object_set_new(o, "race", json_pack("{s:o, s:o}", "best_median_ns", num(r->race_best_ns), "margin", num(r->race_margin)));
  }
  if (r->confirm_runs)
    json_object_set_new(o, "final_round", json_pack("{s:f, s:f, s:I}", "median_ns", r->confirm_ns, "spread",
                                                    r->confirm_spread, "runs", (json_int_t)r->confirm_runs));
  json_object_set_new(o, "timing_ms", timing_json(r));
  if (r->P >= 0) {
    /* from another configuration's measurement: P_from names it */
    static const char *const memo[] = {"measured", "same-pipeline", "same-resources"};
    json_object_set_new(o, "P_source", json_string(r->P_model ? "model" : memo[r->P_memo <= 2 ? r->P_memo : 0]));
    if (r->P_memo && r->P_from >= 0 && r->P_from < run->space.count)
      json_object_set_new(o, "P_from", t1_config_json(s, run->space.coord + (size_t)r->P_from * s->nparams));
  }
  /* the SM clock read beside its timed batches (ticks per realtime tick), where the device has the clocks */
  if (r->clock_max > 0)
    json_object_set_new(o, "clock", json_pack("{s:f, s:f, s:f, s:I, s:I}", "min", r->clock_min, "max", r->clock_max,
                                              "steady", r->clock_steady, "again", (json_int_t)r->clock_again, "kept",
                                              (json_int_t)r->clock_kept));
  json_object_set_new(o, "timestamp", json_string(r->when));
  if (r->error[0]) json_object_set_new(o, "error", json_string(r->error));
  return o;
}

json_t *tu_results_json(const tu_run *run, const tune_device_id *dev, const char *date) {
  const t1_spec *s = &run->spec;
  json_t *doc = vkocc_doc_new(VKOCC_DOC_TUNE_RESULTS);
  json_object_set_new(doc, "kind", json_string("user"));
  json_object_set_new(doc, "kernel", json_string(run->name));
  json_object_set_new(doc, "spec", json_pack("{s:s, s:s, s:s, s:s}", "file", s->file, "hash", s->hash, "kernel_file",
                                             s->kernel_file, "entry", s->kernel_name));
  json_t *ps = json_array();
  for (uint32_t i = 0; i < s->nproblem; i++) json_array_append_new(ps, json_integer(s->problem[i]));
  json_object_set_new(doc, "problem_sizes", ps);
  json_object_set_new(doc, "problem_size", json_integer((json_int_t)problem_product(s)));
  json_t *dj = io_device_identity_json(&dev->id);
  json_object_set_new(dj, "queue_family", tune_device_queue_json(dev)); /* the kind of family tuned on */
  json_object_set_new(doc, "device", dj);
  json_object_set_new(doc, "cluster_id", json_string(dev->cluster_id));
  if (dev->has_fp) json_object_set_new(doc, "fingerprint", io_fingerprint_json(&dev->fp));
  json_object_set_new(doc, "parameters", params_json(run));
  uint32_t measured = 0, valid = 0;
  for (uint32_t i = 0; i < run->space.count; i++) measured += run->r[i].measured, valid += run->r[i].measured && run->r[i].inv == TU_CORRECT;
  json_object_set_new(doc, "space", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "total", (json_int_t)run->space.total, "constrained",
                                              (json_int_t)run->space.constrained, "filtered_out", (json_int_t)run->filtered,
                                              "allowed", (json_int_t)run->space.count,
                                              "measured", (json_int_t)measured, "valid", (json_int_t)valid));
  json_object_set_new(doc, "search", json_pack("{s:s, s:I, s:{s:I, s:f, s:f}}", "strategy", run->strategy, "seed",
                                               (json_int_t)run->seed, "budget", "configurations",
                                               (json_int_t)run->budget.max_evals, "fraction", run->budget.max_fraction,
                                               "seconds", run->budget.max_seconds));
  json_object_set_new(doc, "reference", json_string(run->reference));
  json_object_set_new(doc, "measurement", measurement_json(run, date));
  int64_t b = tu_best(run);
  if (b >= 0)
    json_object_set_new(doc, "best", json_pack("{s:o, s:f, s:I, s:s}", "config",
                                               t1_config_json(s, run->space.coord + (size_t)b * s->nparams),
                                               "median_ns", tu_rank_ns(&run->r[b]), "P", (json_int_t)run->r[b].P, "ranked_by",
                                               "search"));
  json_t *res = json_array();
  uint32_t n, *shown = report_order(run, &n);
  for (uint32_t k = 0; k < n; k++) {
    json_array_append_new(res, result_json(run, shown[k]));
  }
  free(shown);
  json_object_set_new(doc, "results", res);
  return doc;
}

static vkocc_status bad(const char *file, const char *path, const char *what) {
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: %s", file, path, what);
}

static double f64(json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

/* a member of timing_ms; 0 where a document written before it lacks it (it is written again) */
static double ms(json_t *tm, const char *k) {
  double v = f64(tm, k);
  return isfinite(v) ? v : 0;
}

static void timing_read(json_t *tm, tu_result *r) {
  r->compile_ms = ms(tm, "compile"), r->pipeline_ms = ms(tm, "pipeline"), r->occupancy_ms = ms(tm, "occupancy");
  r->measure_ms = ms(tm, "measurement"), r->other_ms = ms(tm, "other"), r->total_ms = ms(tm, "total");
  r->warmup_ms = ms(tm, "warmup"), r->gpu_ms = ms(tm, "gpu"), r->device_ms = ms(tm, "device");
  r->submissions = (uint32_t)ms(tm, "submissions"), r->wait_ms = ms(tm, "wait");
  for (int p = 0; p < TU_NPHASES; p++) r->phase_ms[p] = ms(tm, tu_phase_name((tu_phase)p));
}


bool tu_record_check(const tu_record *r, int64_t *first, int64_t at, const char *seen_fmt, char *why, size_t len) {
  if (r->empty) return snprintf(why, len, "an empty configuration (it names no parameter)"), false;
  if (r->config < 0) return snprintf(why, len, "not a configuration of the spec's space"), false;
  if (first[r->config] >= 0) {
    char earlier[64];
    snprintf(earlier, sizeof earlier, seen_fmt, (long long)first[r->config]);
    return snprintf(why, len, "this configuration appears twice (first at %s)", earlier), false;
  }
  for (uint32_t i = 0; i < r->ntimes; i++)
    if (!(r->times[i] > 0 && isfinite(r->times[i])))
      return snprintf(why, len, "%s holds a time that is not a positive number (%g, the %u. of %u)", r->times_name,
                      r->times[i], i + 1, r->ntimes), false;
  if (r->valid) {
    double t = r->time;
    if (isnan(t) && r->ntimes) {
      vkocc_summary sum;
      vkocc_summarize(r->times, r->ntimes, &sum);
      t = sum.median;
    }
    if (!(t > 0 && isfinite(t)))
      return snprintf(why, len, "a valid result needs a positive %s (%g)", r->time_name, t), false;
    if (r->time_is_median && r->ntimes) {
      vkocc_summary sum;
      vkocc_summarize(r->times, r->ntimes, &sum);
      if (!(fabs(t - sum.median) <= 1e-9 * sum.median))
        return snprintf(why, len, "%s is not the median of %s (%.17g, their median %.17g)", r->time_name, r->times_name, t,
                        sum.median), false;
    }
  }
  first[r->config] = at;
  return true;
}

/* A recorded result's numbers (tu_record_check: the configuration new and of the space, times positive and finite,
 * its median theirs), sizes in range. */
static vkocc_status check_result(json_t *e, const char *path, const char *p, tu_invalidity inv, int64_t c, bool empty,
                                 int64_t *first, int64_t at) {
  json_t *times = json_object_get(e, "times_ns");
  if (times && !json_is_array(times)) return bad(path, p, "'times_ns' must be an array");
  size_t n = json_array_size(times);
  if (n > 100000) return bad(path, p, "more than 100000 times");
  double *t = util_xcalloc(n + 1, sizeof *t);
  for (size_t i = 0; i < n; i++) {
    json_t *v = json_array_get(times, i);
    t[i] = json_is_number(v) ? json_number_value(v) : NAN;
  }
  json_t *m = json_object_get(e, "median_ns");
  tu_record rec = {.config = c, .empty = empty, .valid = inv == TU_CORRECT, .times = t, .ntimes = (uint32_t)n,
                   .time = json_is_number(m) ? json_number_value(m) : NAN, .time_is_median = true,
                   .times_name = "'times_ns'", .time_name = "'median_ns'"};
  char why[300];
  bool ok = tu_record_check(&rec, first, at, "$.results[%lld]", why, sizeof why);
  free(t);
  if (!ok) return bad(path, p, why);
  const char *sz[] = {"local_size", "groups"};
  for (int k = 0; k < 2; k++) {
    json_t *a = json_object_get(e, sz[k]);
    if (!a) continue;
    bool ok = json_is_array(a) && json_array_size(a) == 3;
    for (size_t d = 0; ok && d < 3; d++) {
      json_t *v = json_array_get(a, d);
      ok = json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= (k ? UINT32_MAX : 65536);
    }
    if (!ok) {
      char m[80];
      snprintf(m, sizeof m, "'%s' must be 3 integers in range", sz[k]);
      return bad(path, p, m);
    }
  }
  return VKOCC_OK;
}

vkocc_status tu_results_resume(const char *path, tu_run *run, const char *device_key) {
  json_t *doc;
  vkocc_status s = io_doc_load(path, VKOCC_DOC_TUNE_RESULTS, &doc);
  if (s) return s;
  s = tu_results_resume_doc(doc, path, run, device_key);
  json_decref(doc);
  return s;
}

vkocc_status tu_results_resume_doc(json_t *doc, const char *path, tu_run *run, const char *device_key) {
  json_t *index = NULL;
  int64_t *first = NULL;
  bool shipped = tune_results_shipped(doc);
  vkocc_status s = VKOCC_OK;
  const char *kind = json_string_value(json_object_get(doc, "kind"));
  const char *hash = json_string_value(json_object_get(json_object_get(doc, "spec"), "hash"));
  char msg[1400];
  if (!kind || strcmp(kind, "user")) { s = bad(path, "$.kind", "not the results of a T1 spec (--resume continues those only)"); goto out; }
  if (!hash || strcmp(hash, run->spec.hash)) {
    snprintf(msg, sizeof msg, "%s, but %s is %s (the spec changed: start a new results file)", hash ? hash : "missing",
             run->spec.file, run->spec.hash);
    s = bad(path, "$.spec.hash", msg);
    goto out;
  }
  vkocc_device_identity who;
  bool has = false;
  if (io_doc_device(doc, path, &who, &has) || !has || strcmp(who.key, device_key)) {
    snprintf(msg, sizeof msg, "measured on '%s', not on this device ('%s')", has ? who.key : "?", device_key);
    s = bad(path, "$.device.key", msg);
    goto out;
  }
  const char *ref = json_string_value(json_object_get(doc, "reference"));
  if (ref) snprintf(run->reference, sizeof run->reference, "%s", ref);
  json_t *res = json_object_get(doc, "results");
  if (!json_is_array(res)) { s = bad(path, "$.results", "expected an array"); goto out; }
  index = json_incref(tu_key_index(run)); /* a lookup per result was a scan of the space: quadratic */
  first = util_xmalloc(((size_t)run->space.count + 1) * sizeof *first);
  for (uint32_t c = 0; c <= run->space.count; c++) first[c] = -1;
  size_t i;
  json_t *e;
  json_array_foreach(res, i, e) {
    char p[64];
    snprintf(p, sizeof p, "$.results[%zu]", i);
    json_t *cfg = json_object_get(e, "config");
    bool empty = json_is_object(cfg) && !json_object_size(cfg);
    char *k = json_is_object(cfg) ? json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_t *ci = k ? json_object_get(index, k) : NULL;
    free(k);
    int64_t c = ci ? json_integer_value(ci) : -1;
    tu_invalidity inv;
    const char *in = json_string_value(json_object_get(e, "invalidity"));
    if (!in || !tu_invalidity_parse(in, &inv)) { s = bad(path, p, "missing or unknown 'invalidity'"); goto out; }
    /* a result of another space, or one given twice (a second, fake 1 ns entry became the best), is refused */
    if ((s = check_result(e, path, p, inv, c, empty, first, (int64_t)i))) goto out;
    tu_result *r = &run->r[c];
    memset(r, 0, sizeof *r);
    r->measured = true, r->inv = inv;
    json_t *P = json_object_get(e, "P");
    r->P = json_is_integer(P) ? json_integer_value(P) : -1;
    const char *P_source = json_string_value(json_object_get(e, "P_source"));
    r->P_model = P_source && !strcmp(P_source, "model");
    r->P_memo = !P_source ? 0 : !strcmp(P_source, "same-pipeline") ? TU_P_SAME_PIPELINE
              : !strcmp(P_source, "same-resources") ? TU_P_SAME_RESOURCES : 0;
    r->P_from = -1;
    r->median_ns = f64(e, "median_ns"), r->spread = f64(e, "spread"), r->min_ns = f64(e, "min_ns"), r->max_ns = f64(e, "max_ns");
    json_t *times = json_object_get(e, "times_ns"), *runs = json_object_get(e, "runs");
    r->runs = (uint32_t)json_array_size(times);
    r->times_ns = r->runs ? util_xcalloc(r->runs + 1, sizeof *r->times_ns) : NULL;
    for (uint32_t t = 0; t < r->runs; t++) r->times_ns[t] = json_number_value(json_array_get(times, t));
    /* a shipped kernel's result resumed from an older document kept its median and count of runs, not its times */
    if (!r->runs && shipped && json_is_integer(runs) && json_integer_value(runs) > 0 && json_integer_value(runs) <= 100000)
      r->runs = (uint32_t)json_integer_value(runs);
    if (inv == TU_CORRECT && !(r->median_ns > 0 && r->runs)) { s = bad(path, p, "a valid result needs runs and a positive median_ns"); goto out; }
    for (int d = 0; d < 3; d++) {
      r->local[d] = (uint32_t)json_integer_value(json_array_get(json_object_get(e, "local_size"), d));
      r->groups[d] = (uint32_t)json_integer_value(json_array_get(json_object_get(e, "groups"), d));
    }
    timing_read(json_object_get(e, "timing_ms"), r);
    json_t *stopped = json_object_get(e, "stopped");
    if (stopped && !(json_is_string(stopped) && !strcmp(json_string_value(stopped), TU_STOPPED_BEHIND))) {
      s = bad(path, p, "'stopped' must be \"" TU_STOPPED_BEHIND "\"");
      goto out;
    }
    if (stopped) {
      json_t *race = json_object_get(e, "race");
      r->stopped = 1, r->race_best_ns = f64(race, "best_median_ns"), r->race_margin = f64(race, "margin");
    }
    snprintf(r->when, sizeof r->when, "%s", json_string_value(json_object_get(e, "timestamp")) ? json_string_value(json_object_get(e, "timestamp")) : "");
    snprintf(r->error, sizeof r->error, "%s", json_string_value(json_object_get(e, "error")) ? json_string_value(json_object_get(e, "error")) : "");
    run->resumed++;
  }
out:
  json_decref(index);
  free(first);
  return s;
}

json_t *tu_t4_results(const tu_run *run) {
  const t1_spec *s = &run->spec;
  json_t *res = json_array();
  uint32_t n, *shown = report_order(run, &n);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i = shown[k];
    const tu_result *r = &run->r[i];
    /* T4 times in seconds (Kernel Tuner's convention for compilation and framework time); runtimes too */
    json_t *rt = times_json(r, 1e-9);
    json_t *times = json_pack("{s:f, s:o, s:f, s:f, s:f}", "compilation_time", (r->compile_ms + r->pipeline_ms) * 1e-3,
                              "runtimes", rt, "framework", (r->occupancy_ms + r->other_ms) * 1e-3, "search_algorithm", 0.0,
                              "validation", 0.0);
    json_t *meas = json_array();
    if (r->inv == TU_CORRECT && r->runs)
      json_array_append_new(meas, json_pack("{s:s, s:f, s:s}", "name", "time", "value", tu_rank_ns(r) * 1e-9, "unit", "s"));
    if (r->P >= 0) json_array_append_new(meas, json_pack("{s:s, s:I, s:s}", "name", "P", "value", (json_int_t)r->P, "unit", "workgroups"));
    /* a configuration stopped by the race: its time is the median of the runs it had (times.runtimes), said here,
     * in a measurement of its own (T4's measurements take a name and a string value) */
    if (r->stopped)
      json_array_append_new(meas, json_pack("{s:s, s:s, s:s}", "name", "stopped", "value", TU_STOPPED_BEHIND, "unit", ""));
    json_t *o = json_pack("{s:s, s:o, s:[s], s:o, s:s, s:f, s:o}", "timestamp", r->when, "configuration",
                          t1_config_json(s, run->space.coord + (size_t)i * s->nparams), "objectives", "time", "times", times,
                          "invalidity", tu_invalidity_name(r->inv), "correctness", r->inv == TU_CORRECTNESS ? 0.0 : 1.0,
                          "measurements", meas);
    json_array_append_new(res, o);
  }
  free(shown);
  return json_pack("{s:s, s:o}", "schema_version", "1.0.0", "results", res);
}

json_t *tu_t4_metadata(const tu_run *run, const tune_device_id *dev) {
  struct utsname u;
  char os[400] = "unknown";
  if (!uname(&u)) snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
  json_t *dq = io_device_identity_json(&dev->id);
  json_object_set_new(dq, "cluster_id", json_string(dev->cluster_id));
  json_object_set_new(dq, "tool", json_string("vkocc"));
  json_object_set_new(dq, "tool_version", json_string(vkocc_version()));
  json_object_set_new(dq, "kernel", json_string(run->name));
  json_object_set_new(dq, "spec_hash", json_string(run->spec.hash));
  const char *lp = getenv("LP_NUM_THREADS");
  if (lp) json_object_set_new(dq, "LP_NUM_THREADS", json_string(lp));
  json_t *hw = json_pack("[{s:s, s:s, s:s}]", "class", "display", "product", dev->id.name, "vendor", dev->id.driver_name);
  char req[64];
  snprintf(req, sizeof req, "vkocc==%s", vkocc_version());
  return json_pack("{s:s, s:{s:{s:o, s:s}, s:{s:o, s:[s]}}}", "schema_version", "1.0.0", "metadata", "hardware",
                   "hardware_description", hw, "operating_system", os, "environment", "device_query", dq, "requirements", req);
}
