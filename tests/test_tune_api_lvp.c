/* The public tuning API alone (vkocc.h and jansson, nothing internal): a small T1 spec from
 * examples/tune/transpose restricted to 4 configurations, tuned on lavapipe by brute force; the results, the
 * ranking, the documents written and returned, T4, a resumed session that measures nothing again, errors, the
 * strategies, and a replay over a committed results document; a condition naming a device limit; a shipped
 * kernel's session (its built-in spec through the same harness: T4 too). argv[1]: the source tree. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vkocc.h>

static int failures;
#define CHECK(c, ...)                                                                                        \
  do {                                                                                                       \
    if (!(c)) {                                                                                              \
      failures++;                                                                                            \
      fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);                                                  \
      fprintf(stderr, __VA_ARGS__);                                                                          \
      fprintf(stderr, " (%s)\n", vkocc_last_error());                                                        \
    }                                                                                                        \
  } while (0)

static char dir[] = "/tmp/vkocc-tune-api-XXXXXX";
static const char *src;

/* The transpose example at 96 x 80 elements, its kernel beside it. */
static void write_spec(char *spec, size_t len) {
  char from[1100], to[1100];
  snprintf(from, sizeof from, "%s/examples/tune/transpose/transpose.comp", src);
  snprintf(to, sizeof to, "%s/transpose.comp", dir);
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  CHECK(in && out, "copy %s", from);
  int ch;
  while (in && out && (ch = fgetc(in)) != EOF) fputc(ch, out);
  if (in) fclose(in);
  if (out) fclose(out);
  snprintf(from, sizeof from, "%s/examples/tune/transpose/transpose.json", src);
  json_error_t e;
  json_t *d = json_load_file(from, 0, &e);
  CHECK(d, "%s: %s", from, e.text);
  json_t *ks = json_object_get(d, "KernelSpecification");
  json_object_set_new(ks, "ProblemSize", json_pack("[i, i]", 96, 80));
  size_t i;
  json_t *a;
  json_array_foreach(json_object_get(ks, "Arguments"), i, a) {
    const char *n = json_string_value(json_object_get(a, "Name"));
    if (n && !strcmp(n, "W")) json_object_set_new(a, "FillValue", json_integer(96));
    if (n && !strcmp(n, "H")) json_object_set_new(a, "FillValue", json_integer(80));
  }
  snprintf(spec, len, "%s/transpose.json", dir);
  json_dump_file(d, spec, JSON_INDENT(1));
  json_decref(d);
}

static const char *const only[] = {"TILE_X=8,16", "TILE_Y=4,8", "ELEMS=1", "USE_SHARED=0", "PAD=0"};
static const char *const keys[4] = {
    "{\"ELEMS\":1,\"PAD\":0,\"TILE_X\":8,\"TILE_Y\":4,\"USE_SHARED\":0}",
    "{\"ELEMS\":1,\"PAD\":0,\"TILE_X\":8,\"TILE_Y\":8,\"USE_SHARED\":0}",
    "{\"ELEMS\":1,\"PAD\":0,\"TILE_X\":16,\"TILE_Y\":4,\"USE_SHARED\":0}",
    "{\"ELEMS\":1,\"PAD\":0,\"TILE_X\":16,\"TILE_Y\":8,\"USE_SHARED\":0}"};

static bool known_key(const char *k) {
  for (int i = 0; i < 4; i++)
    if (!strcmp(k, keys[i])) return true;
  return false;
}

/* vkocc_tune_options.note: the library's notes come here, never on stderr */
typedef struct notes { uint32_t n; char first[256]; } notes;
static void take_note(void *user, const char *line) {
  notes *nt = user;
  if (!nt->n++) snprintf(nt->first, sizeof nt->first, "%s", line);
}

static void test_session(vkocc_context **ctx, const char *spec, const char *fp) {
  char out[1100], t4[1100], meta[1200];
  snprintf(out, sizeof out, "%s/results.json", dir);
  snprintf(t4, sizeof t4, "%s/t4.json", dir);
  vkocc_tune_t4_metadata_path(t4, meta, sizeof meta);
  char want_meta[1200];
  snprintf(want_meta, sizeof want_meta, "%s/t4.metadata.json", dir);
  CHECK(!strcmp(meta, want_meta), "metadata path %s", meta);

  vkocc_tune_session *s = NULL;
  CHECK(vkocc_tune_open_spec(spec, "transpose_small", &s) == VKOCC_OK, "open %s", spec);
  if (!s) return;
  CHECK(vkocc_tune_fingerprint_file(s, fp) == VKOCC_OK, "fingerprint %s", fp);
  /* the full rule: every configuration 3 to 5 runs (racing would stop the slow ones after 2: test_race_lvp) */
  vkocc_tune_options o = {.only = only, .nonly = 5, .strategy = "brute_force", .max_runs = 5, .full_rule = true, .output = out,
                          .t4_output = t4, .warmup_ms = -1}; /* no warm-up: nothing here compares times */
  CHECK(vkocc_tune_prepare(s, *ctx, &o) == VKOCC_OK, "prepare");
  vkocc_tune_summary sum;
  vkocc_tune_summarize(s, &sum);
  CHECK(sum.spec && sum.count == 4, "4 configurations left (%u)", sum.count);
  CHECK(sum.space_total == 1024, "the whole space: %llu", (unsigned long long)sum.space_total);
  CHECK(sum.measured == 0 && sum.resumed == 0, "nothing measured yet");
  CHECK(!strcmp(sum.kernel, "transpose_small") && !strcmp(sum.entry, "main"), "names: %s %s", sum.kernel, sum.entry);
  CHECK(!strcmp(sum.cluster_id, "c1-dace7ddcd2e0"), "cluster of the fingerprint: %s", sum.cluster_id);

  CHECK(vkocc_tune_run(s, ctx, &o) == VKOCC_OK, "run");
  vkocc_tune_summarize(s, &sum);
  CHECK(sum.measured == 4 && sum.valid == 4 && sum.invalid == 0, "4 measured, 4 valid: %u %u", sum.measured, sum.valid);
  CHECK(sum.validity[VKOCC_TUNE_CORRECT] == 4, "validity counts");
  CHECK(!strcmp(sum.strategy, "brute_force"), "strategy %s", sum.strategy);
  CHECK(!strcmp(sum.reference, "ReferenceArguments"), "reference %s", sum.reference);
  CHECK(sum.pipelines >= 1 && sum.compiles >= 1, "pipelines %u compiles %u", sum.pipelines, sum.compiles);
  for (uint32_t i = 0; i < sum.count; i++) {
    vkocc_tune_result r;
    CHECK(vkocc_tune_result_get(s, i, &r) == VKOCC_OK, "result %u", i);
    CHECK(known_key(r.key), "key %s", r.key);
    CHECK(r.measured && r.ranked && r.validity == VKOCC_TUNE_CORRECT && !r.error[0], "configuration %u correct", i);
    CHECK(r.median_ns > 0 && r.rank_ns > 0 && r.runs >= 3 && r.runs <= 5, "times %u: %g ns, %u runs", i, r.median_ns, r.runs);
    CHECK(r.min_ns <= r.median_ns && r.median_ns <= r.max_ns, "min <= median <= max");
  }
  vkocc_tune_result r;
  CHECK(vkocc_tune_result_get(s, 4, &r) == VKOCC_ERROR_USAGE, "index out of range");
  /* the ranking: every configuration, fastest first, the best first */
  uint32_t top[8], n = vkocc_tune_ranking(s, 8, top);
  int64_t best = vkocc_tune_best(s);
  CHECK(n == 4 && best == (int64_t)top[0], "ranking of 4 (%u), best %lld", n, (long long)best);
  double last = 0;
  for (uint32_t i = 0; i < n; i++) {
    vkocc_tune_result_get(s, top[i], &r);
    CHECK(r.rank_ns >= last, "ranked by time");
    last = r.rank_ns;
  }
  vkocc_tune_result_get(s, (uint32_t)best, &r);
  CHECK(known_key(r.key), "the best is one of the 4: %s", r.key);

  /* the documents: the one written is the one returned; T4 holds the configurations */
  json_t *doc = NULL, *file = json_load_file(out, 0, NULL);
  CHECK(vkocc_tune_results_document(s, &doc) == VKOCC_OK && doc && file, "results document and %s", out);
  /* as vkocc writes documents: 10 significant digits */
  char *a = json_dumps(doc, JSON_SORT_KEYS | JSON_REAL_PRECISION(10)), *b = json_dumps(file, JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
  CHECK(a && b && !strcmp(a, b), "the document written equals the one returned");
  free(a), free(b);
  CHECK(!strcmp(json_string_value(json_object_get(doc, "schema")), "vkocc.tune-results/1"), "schema");
  CHECK(!strcmp(json_string_value(json_object_get(doc, "kind")), "user"), "kind user");
  CHECK(json_array_size(json_object_get(doc, "results")) == 4, "4 results in the document");
  json_decref(doc), json_decref(file);
  json_t *t4r = NULL, *t4m = NULL;
  CHECK(vkocc_tune_t4_documents(s, &t4r, &t4m) == VKOCC_OK, "T4");
  json_t *res = json_object_get(t4r, "results");
  CHECK(json_array_size(res) == 4, "T4 has the 4 configurations (%zu)", json_array_size(res));
  size_t i;
  json_t *e;
  json_array_foreach(res, i, e) {
    json_t *c = json_object_get(e, "configuration");
    json_int_t tx = json_integer_value(json_object_get(c, "TILE_X"));
    CHECK(tx == 8 || tx == 16, "T4 configuration TILE_X %lld", (long long)tx);
  }
  CHECK(json_is_object(t4m), "T4 metadata");
  json_decref(t4r), json_decref(t4m);
  json_t *t4file = json_load_file(t4, 0, NULL), *metafile = json_load_file(meta, 0, NULL);
  CHECK(json_array_size(json_object_get(t4file, "results")) == 4 && json_is_object(metafile), "T4 files written");
  json_decref(t4file), json_decref(metafile);
  CHECK(vkocc_tune_run(s, ctx, &o) == VKOCC_ERROR_USAGE, "a session runs once");
  vkocc_tune_close(s);

  /* resumed: every configuration from the file, nothing measured again */
  s = NULL;
  CHECK(vkocc_tune_open_spec(spec, "transpose_small", &s) == VKOCC_OK, "open again");
  if (!s) return;
  CHECK(vkocc_tune_fingerprint_file(s, fp) == VKOCC_OK, "fingerprint");
  CHECK(vkocc_tune_resume(s, out) == VKOCC_OK, "resume");
  notes nt = {0};
  vkocc_tune_options o2 = {.only = only, .nonly = 5, .strategy = "brute_force", .max_runs = 5, .warmup_ms = -1,
                           .note = take_note, .user = &nt};
  CHECK(vkocc_tune_prepare(s, *ctx, &o2) == VKOCC_OK, "prepare resumed");
  CHECK(vkocc_tune_resumed(s) == 4, "4 resumed (%u)", vkocc_tune_resumed(s));
  setenv("VKOCC_TRACE_SETUP", "1", 1); /* each argument's set-up costs, as notes */
  CHECK(vkocc_tune_run(s, ctx, &o2) == VKOCC_OK, "run resumed");
  unsetenv("VKOCC_TRACE_SETUP");
  CHECK(nt.n > 0 && !strncmp(nt.first, "vkocc tune: setup ", 18), "the set-up's notes through the callback: %u, '%s'",
        nt.n, nt.first);
  vkocc_tune_summarize(s, &sum);
  CHECK(sum.measured == 4 && sum.resumed == 4 && sum.valid == 4, "resumed: %u measured %u resumed", sum.measured, sum.resumed);
  vkocc_tune_close(s);

  /* a restriction naming no parameter of the spec */
  s = NULL;
  CHECK(vkocc_tune_open_spec(spec, NULL, &s) == VKOCC_OK, "open");
  const char *bad[] = {"NOPE=1"};
  vkocc_tune_options o3 = {.only = bad, .nonly = 1};
  CHECK(s && vkocc_tune_prepare(s, *ctx, &o3) == VKOCC_ERROR_USAGE && strstr(vkocc_last_error(), "NOPE"), "bad --only");
  /* a failed prepare leaves a partial state: neither prepared again nor run */
  CHECK(s && vkocc_tune_prepare(s, *ctx, NULL) == VKOCC_ERROR_USAGE && strstr(vkocc_last_error(), "failed before"),
        "prepare after a failed prepare: %s", vkocc_last_error());
  CHECK(s && vkocc_tune_run(s, ctx, NULL) == VKOCC_ERROR_USAGE, "run after a failed prepare");
  vkocc_tune_close(s);
  /* T4 results go with the results document */
  s = NULL;
  CHECK(vkocc_tune_open_spec(spec, NULL, &s) == VKOCC_OK, "open");
  char t4only[1100];
  snprintf(t4only, sizeof t4only, "%s/t4-only.json", dir);
  vkocc_tune_options o4 = {.only = only, .nonly = 5, .t4_output = t4only};
  CHECK(s && vkocc_tune_prepare(s, *ctx, &o4) == VKOCC_OK, "prepare for T4 alone");
  CHECK(s && vkocc_tune_run(s, ctx, &o4) == VKOCC_ERROR_USAGE && strstr(vkocc_last_error(), "options->output"),
        "T4 without the results document: %s", vkocc_last_error());
  CHECK(access(t4only, F_OK) != 0, "nothing written");
  vkocc_tune_close(s);
}

/* The spec with its first condition's bound the device's limit (lavapipe: 1024 invocations, as written) */
static void test_device_condition(vkocc_context **ctx, const char *spec) {
  char path[1100];
  snprintf(path, sizeof path, "%s/transpose-limits.json", dir);
  json_t *d = json_load_file(spec, 0, NULL);
  json_t *c = json_array_get(json_object_get(json_object_get(d, "ConfigurationSpace"), "Conditions"), 0);
  const char *e = json_string_value(json_object_get(c, "Expression"));
  CHECK(e && !strcmp(e, "32 <= TILE_X * TILE_Y <= 1024"), "the first condition: %s", e ? e : "none");
  json_object_set_new(c, "Expression", json_string("32 <= TILE_X * TILE_Y <= MaxComputeWorkGroupInvocations"));
  json_dump_file(d, path, JSON_INDENT(1));
  json_decref(d);
  vkocc_tune_options o = {.only = only, .nonly = 5, .budget_evals = 1, .max_runs = 3, .warmup_ms = -1};
  vkocc_tune_summary sum;
  vkocc_tune_session *s = NULL;
  CHECK(vkocc_tune_open_spec(spec, NULL, &s) == VKOCC_OK && vkocc_tune_prepare(s, *ctx, &o) == VKOCC_OK, "the spec");
  vkocc_tune_summarize(s, &sum);
  uint64_t written = sum.ruled_out; /* with the number written */
  vkocc_tune_close(s);
  s = NULL;
  CHECK(vkocc_tune_open_spec(path, NULL, &s) == VKOCC_OK, "open %s", path);
  if (!s) return;
  vkocc_tune_summarize(s, &sum);
  CHECK(sum.ruled_out < written, "no device yet: its condition left out (%llu ruled out)", (unsigned long long)sum.ruled_out);
  CHECK(vkocc_tune_prepare(s, *ctx, &o) == VKOCC_OK, "prepare");
  vkocc_tune_summarize(s, &sum);
  CHECK(sum.count == 4 && sum.ruled_out == written, "the device's condition applied: %u left, %llu ruled out", sum.count,
        (unsigned long long)sum.ruled_out);
  CHECK(vkocc_tune_run(s, ctx, &o) == VKOCC_OK, "run");
  vkocc_tune_close(s);
}

/* reduce at 5003 elements, wg 32, one element per thread: both variants, both access patterns */
static void test_kernel_session(vkocc_context **ctx) {
  char out[1100], t4[1100];
  snprintf(out, sizeof out, "%s/reduce.json", dir);
  snprintf(t4, sizeof t4, "%s/reduce-t4.json", dir);
  vkocc_tune_session *s = NULL;
  CHECK(vkocc_tune_open_kernel("reduce", "u32", 5003, &s) == VKOCC_OK, "open reduce");
  if (!s) return;
  const char *konly[] = {"wg_size=32", "elements_per_thread=1"};
  vkocc_tune_options o = {.only = konly, .nonly = 2, .max_runs = 3, .output = out, .t4_output = t4, .warmup_ms = -1};
  CHECK(vkocc_tune_prepare(s, *ctx, &o) == VKOCC_OK, "prepare reduce");
  CHECK(vkocc_tune_run(s, ctx, &o) == VKOCC_OK, "run reduce");
  vkocc_tune_summary sum;
  vkocc_tune_summarize(s, &sum);
  CHECK(!sum.spec && !strcmp(sum.kernel, "reduce") && sum.space_total == 168 && sum.count == 4 && sum.valid == 4,
        "reduce: %s, %llu, %u, %u valid", sum.kernel, (unsigned long long)sum.space_total, sum.count, sum.valid);
  vkocc_tune_result r;
  CHECK(vkocc_tune_result_get(s, 0, &r) == VKOCC_OK && strstr(r.key, "\"variant\"") && !strstr(r.key, "\"n\""),
        "the document's key: %s", r.key);
  json_t *doc = json_load_file(out, 0, NULL), *t = json_load_file(t4, 0, NULL);
  /* the results document every run writes, with the element type policies read */
  CHECK(doc && !strcmp(json_string_value(json_object_get(doc, "kind")), "user") &&
            !strcmp(json_string_value(json_object_get(doc, "kernel")), "reduce") &&
            !strcmp(json_string_value(json_object_get(doc, "element_type")), "u32") &&
            json_array_size(json_object_get(json_array_get(json_object_get(doc, "results"), 0), "times_ns")) > 0,
        "a shipped kernel's results document");
  CHECK(json_array_size(json_object_get(doc, "results")) == 4, "4 results");
  CHECK(t && json_array_size(json_object_get(t, "results")) == 4, "T4 results of a shipped kernel");
  json_decref(doc), json_decref(t);
  vkocc_tune_close(s);
}

static void test_no_device(void) {
  vkocc_tune_session *s = NULL;
  CHECK(vkocc_tune_open_kernel("nope", NULL, 1024, &s) == VKOCC_ERROR_USAGE && !s, "unknown kernel");
  CHECK(vkocc_tune_open_kernel("histogram", "f32", 1024, &s) == VKOCC_ERROR_USAGE && !s, "histogram has no f32");
  CHECK(vkocc_tune_open_kernel("reduce", "f32", 1024, &s) == VKOCC_OK && s, "reduce f32");
  vkocc_tune_close(s);
  char missing[1100];
  snprintf(missing, sizeof missing, "%s/missing.json", dir);
  s = NULL;
  CHECK(vkocc_tune_open_spec(missing, NULL, &s) == VKOCC_ERROR_USAGE && !s, "a missing spec");
  char *text = vkocc_tune_kernels_text();
  CHECK(text && strstr(text, "histogram parameters:") && strstr(text, "reduce parameters:"), "kernels text");
  free(text);
  CHECK(!strcmp(vkocc_tune_validity_name(VKOCC_TUNE_CORRECTNESS), "correctness"), "validity names");
  const char *summary = NULL;
  CHECK(!strcmp(vkocc_tune_strategy(0, &summary), "brute_force") && summary && *summary, "brute force first");
  uint32_t n = 0;
  while (vkocc_tune_strategy(n, NULL)) n++;
  CHECK(n >= 5, "strategies: %u", n);
  CHECK(vkocc_tune_strategy_find("Deterministic") && !strcmp(vkocc_tune_strategy_find("Deterministic"), "brute_force"),
        "KTT's Deterministic is brute force");
  CHECK(!vkocc_tune_strategy_find("nope"), "unknown strategy");

  /* replay over the committed H100 reduce results: the whole space finds the optimum */
  char res[1100];
  snprintf(res, sizeof res, "%s/docs/results/h100/tune/reduce-u32.json", src);
  const char *strat[] = {"random_sample"};
  vkocc_tune_replay_options ro = {.strategies = strat, .nstrategies = 1, .seeds = 3, .first_seed = 1};
  json_t *rep = NULL;
  uint32_t constrained = 99;
  CHECK(vkocc_tune_replay(res, &ro, &rep, &constrained) == VKOCC_OK && rep, "replay");
  CHECK(!strcmp(json_string_value(json_object_get(rep, "schema")), "vkocc.tune-replay/1"), "replay schema");
  CHECK(json_integer_value(json_object_get(rep, "configurations")) == 168, "168 configurations");
  CHECK(json_real_value(json_object_get(rep, "median_fraction")) == 1.0, "the whole space finds the optimum");
  CHECK(json_array_size(json_object_get(rep, "runs")) == 1 && constrained == 0, "one run, nothing constrained");
  /* the report read back for printing: the curve whole again, to the budget */
  vkocc_tune_replay_report rr;
  CHECK(vkocc_tune_replay_report_read(rep, &rr) == VKOCC_OK, "report: %s", vkocc_last_error());
  CHECK(rr.configurations == 168 && rr.nruns == 1 && rr.budget == 168 && rr.space && rr.optimum, "report's space");
  CHECK(!strcmp(rr.runs[0].strategy, "random_sample") && rr.runs[0].budget == 168, "report's run");
  CHECK(rr.runs[0].median[167] == 1.0 && rr.runs[0].q1[0] > 0 && rr.runs[0].q1[0] <= 1, "report's curve");
  CHECK(rr.runs[0].at_evaluations[0] >= 1 && rr.runs[0].seeds_finding_optimum == 3, "report's budgets");
  vkocc_tune_replay_report_free(&rr);
  CHECK(vkocc_tune_replay_report_read(json_object_get(rep, "runs"), &rr) == VKOCC_ERROR_USAGE, "not a report");
  json_decref(rep);
  const char *unknown[] = {"nope"};
  ro.strategies = unknown;
  rep = NULL;
  CHECK(vkocc_tune_replay(res, &ro, &rep, NULL) == VKOCC_ERROR_USAGE && !rep, "replay: unknown strategy");
}

int main(int argc, char **argv) {
  if (argc < 2 || !mkdtemp(dir)) {
    fprintf(stderr, "usage: test_tune_api_lvp SOURCE_DIR\n");
    return 2;
  }
  src = argv[1];
  test_no_device();
  char spec[1100], fp[1100];
  write_spec(spec, sizeof spec);
  snprintf(fp, sizeof fp, "%s/tests/data/fp-hopper-132.json", src);
  vkocc_context *ctx = NULL;
  if (vkocc_context_create(NULL, &ctx) != VKOCC_OK) {
    fprintf(stderr, "FAIL: no device: %s\n", vkocc_last_error());
    failures++;
  } else {
    test_session(&ctx, spec, fp);
    test_device_condition(&ctx, spec);
    test_kernel_session(&ctx);
    vkocc_context_destroy(ctx);
  }
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) failures++;
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("test_tune_api_lvp: ok\n");
  return failures ? 1 : 0;
}
