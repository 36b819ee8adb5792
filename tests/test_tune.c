/* Tuned policies without a device: the results document round trip and its bad inputs, the
 * kernels' CPU references, their built-in T1 specs (space, the device's constraints, the data hooks), policy build (device, cluster, default entries), selection by
 * device key / cluster / nearest / default with typed parameters, and the transfer report's efficiencies
 * and portability metric, all on synthetic results whose answers are worked out by hand below. */
#include "check.h"
#include "synth.h"
#include "../policy/tunedb.h"
#include "jsonio.h"
#include "../tune/results/builtin.h"
#include "older_results.h"
#include <stdlib.h>

static char dir[] = "/tmp/vkocc-tune-XXXXXX";

/* reduce configurations A..D */
static const tune_config CFG[4] = {{{0, 256, 4, 0}, 0xf}, {{1, 256, 8, 0}, 0xf}, {{0, 64, 1, 1}, 0xf}, {{1, 1024, 64, 1}, 0xf}};

static void make_doc(tune_doc *d, const char *name, const char *key, const vkocc_fingerprint *fp, const double t[4]) {
  memset(d, 0, sizeof *d);
  snprintf(d->file, sizeof d->file, "%s.json", key);
  d->k = &kernels_reduce, d->n = 1u << 20;
  snprintf(d->dev.id.name, sizeof d->dev.id.name, "%s", name);
  snprintf(d->dev.id.key, sizeof d->dev.id.key, "%s", key);
  snprintf(d->dev.cluster_id, sizeof d->dev.cluster_id, "%s", fp->cluster_id);
  d->dev.has_fp = true, d->dev.fp = *fp;
  d->r = calloc(4, sizeof *d->r);
  for (int i = 0; i < 4; i++) {
    tune_result *r = &d->r[d->count++];
    r->cfg = CFG[i];
    tune_config_key(d->k, &CFG[i], r->key, sizeof r->key);
    r->measured = true, r->valid = t[i] > 0, r->median_ns = t[i] > 0 ? t[i] : 50, r->runs = 5;
    if (!r->valid) snprintf(r->error, sizeof r->error, "wrong answer: sum 1, expected 2");
  }
}

/* An older document (path: reduce u32 at 2^20, no kind) imported, resumed into the built-in spec, written as the
 * results document every run writes, and read back by the one reader: the same keys, medians and validity, and
 * a second --resume takes the written document whole. */
static void test_import(const char *path, const tune_doc *want) {
  tune_doc old, back;
  CHECK(tune_results_load(path, "reduce", &old) == VKOCC_OK && old.imported, "the older document is imported");
  const int64_t any[TEXPR_NDEVICE] = {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, 1};
  tu_builtin b;
  tu_run run;
  CHECK(tu_builtin_prepare(&b, &kernels_reduce, 1 << 20, false, any, "any", &run) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(tu_builtin_resume(&b, &run, &old), want->count);
  json_t *j = tu_builtin_results_json(&b, &run, &old.dev, "2026-01-01T00:00:00Z");
  CHECK(j && tune_results_shipped(j), "a shipped kernel's results document");
  CHECK(!strcmp(json_string_value(json_object_get(j, "kind")), "user") &&
        !strcmp(json_string_value(json_object_get(j, "element_type")), "u32"), "kind user, element type u32");
  char out[700];
  snprintf(out, sizeof out, "%s/amp-new.json", dir);
  CHECK(util_json_write(j, out) == VKOCC_OK, "write the results document");
  json_decref(j);
  CHECK(tune_results_load(out, "reduce", &back) == VKOCC_OK && !back.imported, "read back: %s", vkocc_last_error());
  CHECK(back.count == want->count && back.k == want->k && back.n == want->n && !back.f32 &&
        !strcmp(back.dev.id.key, want->dev.id.key) && !strcmp(back.dev.cluster_id, want->dev.cluster_id), "the same run");
  for (uint32_t i = 0; i < want->count; i++) {
    CHECK(tdb_time(&back, want->r[i].key) == tdb_time(want, want->r[i].key), "%s: %g, want %g", want->r[i].key,
          tdb_time(&back, want->r[i].key), tdb_time(want, want->r[i].key));
  }
  tune_doc_free(&back);
  tune_doc_free(&old);
  tu_run_free(&run);
  /* --resume from the written document: every record back, its median and count of runs */
  CHECK(tu_builtin_prepare(&b, &kernels_reduce, 1 << 20, false, any, "any", &run) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(tu_builtin_resume_file(&b, &run, out, want->dev.id.key) == VKOCC_OK, "resume: %s", vkocc_last_error());
  CHECK_EQ_U(run.resumed, want->count);
  uint32_t ranked = 0;
  for (uint32_t c = 0; c < run.space.count; c++) ranked += run.r[c].measured && run.r[c].runs == 5 && run.r[c].median_ns > 0;
  CHECK_EQ_U(ranked, want->count);
  CHECK(tu_builtin_resume_file(&b, &run, out, "another") == VKOCC_ERROR_USAGE, "another device's results");
  tu_run_free(&run);
  /* only a shipped kernel's records may lack their times (imported medians): any other's must give them */
  json_t *w = json_load_file(out, 0, NULL);
  json_object_del(w, "element_type");
  CHECK(util_json_write(w, out) == VKOCC_OK, "rewrite");
  json_decref(w);
  CHECK(tu_builtin_prepare(&b, &kernels_reduce, 1 << 20, false, any, "any", &run) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(tu_builtin_resume_file(&b, &run, out, want->dev.id.key) == VKOCC_ERROR_USAGE, "records without times refused");
  CHECK_CONTAINS(vkocc_last_error(), "needs runs");
  tu_run_free(&run);
}

static double eff(json_t *target, const char *rule) {
  json_t *a = json_object_get(json_object_get(target, "rules"), rule);
  return json_is_object(a) ? json_number_value(json_object_get(a, "efficiency")) : -1;
}

static void expect_bad_results(const char *name, const char *text, const char *kernel, const char *needle) {
  tune_doc d;
  CHECK(tune_results_load(check_write_tmp(dir, name, text), kernel, &d) == VKOCC_ERROR_USAGE, "%s must be refused", name);
  CHECK_CONTAINS(vkocc_last_error(), needle);
  CHECK_CONTAINS(vkocc_last_error(), name);
}

/* P from the device model (tu_P_model) on an H100-like model: 132 SMs, 32 workgroup slots, 64 subgroups of 32,
 * 228 KiB of shared memory, 64 Ki registers in 4 partitions allocated 256 per subgroup; exact only where every
 * limit that binds was seen binding. */
static void test_P_model(void) {
  vkocc_derived d = {.sm_count = 132, .wg_per_sm = 32, .subgroups_per_sm = 64, .subgroups_per_sm_max = 64,
                     .subgroup_size = 32, .threads_per_sm = 2048, .shared_per_sm = 233472,
                     .shared_per_sm_max = 233472, .shared_bound_seen = true};
  vkocc_register_model m = {.known = true, .subgroup_size = 32, .regs_per_sm = 65536, .regs_per_sm_max = 65536,
                            .alloc_unit = 256, .alloc_unit_per_invocation = 8, .partitions = 4, .bound_seen = true};
  uint32_t P = 0;
  /* 256 invocations, 32 registers: 8 subgroups of 1024 registers; 64 subgroups per SM fit, 8 workgroups */
  CHECK(tu_P_model(&d, &m, 256, 0, 32, &P), "subgroups and registers bind, both pinned");
  CHECK_EQ_U(P, 8 * 132);
  /* 128 invocations, 128 registers: 4096 per subgroup, 4 per partition, 16 per SM: 4 workgroups */
  CHECK(tu_P_model(&d, &m, 128, 0, 128, &P), "registers bind, pinned");
  CHECK_EQ_U(P, 4 * 132);
  /* 64 KiB of shared memory: 3 workgroups per SM */
  CHECK(tu_P_model(&d, &m, 128, 65536, 32, &P), "shared memory binds, seen binding");
  CHECK_EQ_U(P, 3 * 132);
  P = 7;
  m.bound_seen = false; /* the register file only a lower bound: where registers bind, P must be measured */
  CHECK(!tu_P_model(&d, &m, 128, 0, 128, &P), "registers bind but were never seen binding");
  CHECK(tu_P_model(&d, &m, 128, 65536, 32, &P), "a lower bound that does not bind is safe");
  CHECK_EQ_U(P, 3 * 132);
  d.shared_bound_seen = false;
  CHECK(!tu_P_model(&d, &m, 128, 65536, 32, &P), "shared memory binds but was never seen binding");
  m.bound_seen = true, d.shared_bound_seen = true;
  CHECK(!tu_P_model(&d, &m, 256, 0, 0, &P), "no register statistic: measured");
  d.sm_count_ambiguous = true;
  CHECK(!tu_P_model(&d, &m, 256, 0, 32, &P), "an ambiguous SM count: measured");
  d.sm_count_ambiguous = false;
  /* an ambiguous register file (H100: units of 4 and 8 per invocation explain the same points): P from the model
   * where registers do not bind under the kept (coarser) fit, measured where they bind or tie */
  m.ambiguous = true;
  P = 7;
  CHECK(tu_P_model(&d, &m, 256, 0, 16, &P), "ambiguous registers that do not bind: subgroups bind");
  CHECK_EQ_U(P, 8 * 132);
  CHECK(tu_P_model(&d, &m, 1024, 0, 16, &P), "ambiguous registers that do not bind at 1024 invocations");
  CHECK_EQ_U(P, 2 * 132);
  CHECK(!tu_P_model(&d, &m, 256, 0, 32, &P), "ambiguous registers that tie with the subgroups: measured");
  CHECK(!tu_P_model(&d, &m, 128, 0, 128, &P), "ambiguous registers that bind: measured");
  CHECK(tu_P_model(&d, &m, 128, 65536, 32, &P), "ambiguous registers, shared memory binds");
  CHECK_EQ_U(P, 3 * 132);
  m.ambiguous = false, m.known = false;
  CHECK(!tu_P_model(&d, &m, 256, 0, 32, &P), "no register model: measured");
}

/* A fingerprint given to the tuning serves P with its per-SM limits only where it is this device's: the same UUID,
 * driver and queue family (an H100's document, synthetic device info) */
static void test_fingerprint_derived(void) {
  const char *text = "{\"device\": {\"uuid\": \"5b87659b-142b-4eb5-1460-8540d4087102\", \"driver_version_raw\": 2435301632, "
                     "\"compute_queue_family\": 2}, \"derived\": {\"sm_count\": 132, \"sm_count_ambiguous\": false, "
                     "\"workgroups_per_sm\": 32, \"subgroups_per_sm\": 64, \"subgroups_per_sm_max\": 64, \"subgroup_limit_seen\": true, "
                     "\"subgroup_size\": 32, \"subgroup_size_inferred\": false, \"threads_per_sm\": 2048, \"shared_bytes_per_sm\": 102400, "
                     "\"shared_bytes_per_sm_max\": 106495, \"shared_limit_seen\": true, \"points_explained\": 144, \"points\": 144, "
                     "\"unexplained\": []}}";
  json_error_t e;
  json_t *doc = json_loads(text, 0, &e);
  CHECK(doc != NULL, "the document: %s", e.text);
  vkocc_device_info dev = {.driver_version = 2435301632u, .compute_queue_family = 2};
  const uint8_t uuid[16] = {0x5b, 0x87, 0x65, 0x9b, 0x14, 0x2b, 0x4e, 0xb5, 0x14, 0x60, 0x85, 0x40, 0xd4, 0x08, 0x71, 0x02};
  memcpy(dev.uuid, uuid, 16);
  vkocc_derived d;
  memset(&d, 0, sizeof d);
  CHECK(tu_fingerprint_derived(doc, &dev, &d), "this device's fingerprint: %s", vkocc_last_error());
  CHECK_EQ_U(d.sm_count, 132);
  CHECK_EQ_U(d.threads_per_sm, 2048);
  CHECK_EQ_U(d.shared_per_sm, 102400);
  dev.uuid[15] ^= 1;
  CHECK(!tu_fingerprint_derived(doc, &dev, &d), "another device's fingerprint taken for P");
  dev.uuid[15] ^= 1, dev.compute_queue_family = 0;
  CHECK(!tu_fingerprint_derived(doc, &dev, &d), "another queue family's fingerprint taken for P");
  dev.compute_queue_family = 2, dev.driver_version++;
  CHECK(!tu_fingerprint_derived(doc, &dev, &d), "another driver's fingerprint taken for P");
  dev.driver_version--;
  json_object_del(doc, "derived");
  CHECK(!tu_fingerprint_derived(doc, &dev, &d), "a fingerprint without derived limits");
  CHECK(!tu_fingerprint_derived(NULL, &dev, &d), "no document");
  json_decref(doc);
}

/* Every configuration of k's space once in its built-in spec on a device that rules nothing out */
static void expect_same_space(const tune_kernel_def *k) {
  const int64_t big[TEXPR_NDEVICE] = {1024, 1024, 49152, 65535, 1};
  tu_builtin b;
  tu_run run;
  CHECK(tu_builtin_prepare(&b, k, 1 << 20, false, big, "big", &run) == VKOCC_OK, "%s: %s", k->name, vkocc_last_error());
  uint32_t n = k->space(NULL);
  CHECK_EQ_U(run.space.count, n);
  CHECK_EQ_U(b.space_total, n);
  CHECK_EQ_U(b.pruned, 0);
  tune_config *all = calloc(n, sizeof *all);
  k->space(all);
  bool *seen = calloc(n, 1);
  for (uint32_t c = 0; c < run.space.count; c++) {
    tune_result r;
    tu_builtin_result(&b, &run, c, &r);
    uint32_t j = 0;
    while (j < n && (all[j].mask != r.cfg.mask || memcmp(all[j].v, r.cfg.v, sizeof r.cfg.v))) j++;
    CHECK(j < n && !seen[j], "%s: configuration %s is in the kernel's space once", k->name, r.key);
    if (j < n) seen[j] = true;
  }
  free(all), free(seen);
  tu_run_free(&run);
}

/* The shipped kernels as built-in T1 specs: the same space as their documents, the device's limits as conditions
 * (counted by reason), the input and the reference from the kernel's C code, f32's tolerance */
static void test_builtin_specs(void) {
  expect_same_space(&kernels_histogram);
  expect_same_space(&kernels_reduce);
  /* a device without subgroup arithmetic, 256 invocations at most, 4 KiB of shared memory */
  const int64_t small[TEXPR_NDEVICE] = {256, 256, 4096, 65535, 0};
  tu_builtin b;
  tu_run run;
  CHECK(tu_builtin_prepare(&b, &kernels_reduce, 1 << 20, false, small, "small", &run) == VKOCC_OK, "%s",
        vkocc_last_error());
  CHECK_EQ_U(run.space.count, 56); /* shared_tree at wg 32..256 */
  CHECK_EQ_U(b.pruned, 112);
  CHECK(!strcmp(b.prune_note, "56: workgroup size above the device limit; 56: no subgroup arithmetic in compute shaders"),
        "note: %s", b.prune_note);
  /* the reference hook computes what the kernel's C reference does on the kernel's input */
  const t1_spec *s = &run.spec;
  CHECK(s->nrefs == 1 && s->refs[0].data.fill == T1_FILL_HOOK && s->args[0].data.fill == T1_FILL_HOOK, "hooks");
  uint32_t *data = calloc(1 << 20, 4), want, got = 0;
  kernels_reduce.input(data, 1 << 20, false, 0x766b6f6363ull);
  kernels_reduce.reference(data, 1 << 20, false, &want);
  CHECK(t1_fill_data(s, &s->refs[0].data, s->refs[0].path, &s->args[s->refs[0].target], &got) == VKOCC_OK, "reference");
  CHECK_EQ_U(got, want);
  uint32_t *hooked = calloc(1 << 20, 4);
  CHECK(t1_fill_data(s, &s->args[0].data, s->args[0].path, &s->args[0], hooked) == VKOCC_OK, "input");
  CHECK(!memcmp(hooked, data, 4u << 20), "the input hook gives the kernel's input");
  free(data), free(hooked);
  tu_run_free(&run);
  /* histogram: 8 copies of 1 KiB bins do not fit 4 KiB; the workgroup count limit at 2^24 elements */
  CHECK(tu_builtin_prepare(&b, &kernels_histogram, 1 << 24, false, small, "small", &run) == VKOCC_OK, "%s",
        vkocc_last_error());
  CHECK(strstr(b.prune_note, "shared bins above maxComputeSharedMemorySize") &&
        strstr(b.prune_note, "workgroup count above maxComputeWorkGroupCount[0]"), "note: %s", b.prune_note);
  for (uint32_t c = 0; c < run.space.count; c++) {
    tune_result r;
    tu_builtin_result(&b, &run, c, &r);
    CHECK(r.cfg.v[1] <= 256 && (r.cfg.v[0] == 0 || r.cfg.v[3] <= 4), "%s runs on the small device", r.key);
  }
  tu_run_free(&run);
  /* f32: the float sum checked relative to 1e-3, the kernel built with TYPE_F32 */
  CHECK(tu_builtin_prepare(&b, &kernels_reduce, 5003, true, small, "small", &run) == VKOCC_OK, "%s", vkocc_last_error());
  s = &run.spec;
  CHECK(s->refs[0].method == T1_SIDE_BY_SIDE_REL && s->refs[0].threshold == 1e-3, "f32 tolerance");
  CHECK(s->args[s->refs[0].target].type == T1E_F32, "the sum is a float");
  CHECK(s->ndefines == 1 && !strcmp(s->defines[0], "TYPE_F32"), "TYPE_F32");
  tu_run_free(&run);
  /* the workgroup counts a replay's features use, from the spec's GlobalSize */
  tune_config pers = {{2, 64, 1, 1, 128}, 0x1f}, gmem = {{0, 64, 4}, 0x7}, none = {{1, 64, 3, 1}, 0xf};
  uint32_t g[3];
  tu_builtin_groups(&kernels_histogram, false, 40000, (tune_config[]){pers, gmem, none}, 3, g);
  CHECK(g[0] == 128 && g[1] == 157 && g[2] == 0, "groups %u %u %u", g[0], g[1], g[2]);
}

int main(void) {
  if (!mkdtemp(dir)) return 2;
  test_P_model();
  test_fingerprint_derived();
  /* kernels: the CPU references */
  uint32_t in[1000], ref[256];
  kernels_histogram.input(in, 1000, false, 1);
  kernels_histogram.reference(in, 1000, false, ref);
  uint32_t total = 0;
  for (int b = 0; b < 256; b++) total += ref[b];
  CHECK_EQ_U(total, 1000);
  kernels_reduce.input(in, 1000, true, 1);
  kernels_reduce.reference(in, 1000, true, ref);
  float sum;
  memcpy(&sum, ref, 4);
  CHECK(sum > 400 && sum < 600, "f32 sum of 1000 values in [0,1): %g", sum);
  CHECK_EQ_U(kernels_histogram.space(NULL), 270);
  CHECK_EQ_U(kernels_reduce.space(NULL), 168);
  test_builtin_specs();
  /* the shared memory each kernel's GLSL declares: histogram's bins per copy (none with global atomics), reduce's
   * one word per invocation and a flag */
  CHECK_EQ_U(kernels_histogram.shared_bytes(&(tune_config){{0, 256, 4, 0, 0}, 0x7}), 0);
  CHECK_EQ_U(kernels_histogram.shared_bytes(&(tune_config){{1, 256, 4, 4, 0}, 0xf}), 4096);
  CHECK_EQ_U(kernels_histogram.shared_bytes(&(tune_config){{2, 64, 1, 8, 512}, 0x1f}), 8192);
  CHECK_EQ_U(kernels_reduce.shared_bytes(&CFG[0]), 1028);
  /* three devices: H1, H2 one cluster (Hopper, 132 and 114 SMs), AMP another; D invalid on H1 */
  vkocc_fingerprint h132, h114, amp, rdna;
  synth_fingerprint(&SYNTH_HOPPER, 132, 0, &h132);
  synth_fingerprint(&SYNTH_HOPPER, 114, 0, &h114);
  synth_fingerprint(&SYNTH_AMPERE, 28, 0, &amp);
  synth_fingerprint(&SYNTH_RDNA, 40, 0, &rdna);
  CHECK(!strcmp(h132.cluster_id, h114.cluster_id) && strcmp(h132.cluster_id, amp.cluster_id), "synthetic clusters");
  tune_doc docs[3];
  make_doc(&docs[0], "GPU H1", "h1", &h132, (double[]){100, 110, 200, 0});
  make_doc(&docs[1], "GPU H2", "h2", &h114, (double[]){120, 100, 300, 105});
  make_doc(&docs[2], "GPU AMP", "amp", &amp, (double[]){300, 150, 100, 90});
  char A[256], B[256], C[256], D[256], key[256];
  strcpy(A, docs[0].r[0].key), strcpy(B, docs[0].r[1].key), strcpy(C, docs[0].r[2].key), strcpy(D, docs[0].r[3].key);
  (void)C;
  CHECK_NEAR(tdb_efficiency(&docs[1], A), 100.0 / 120, 1e-12);
  CHECK_NEAR(tdb_efficiency(&docs[0], D), 0, 0);
  const tune_doc *hop[2] = {&docs[0], &docs[1]};
  double worst, geo;
  CHECK(tdb_pick(hop, 2, TDB_GEOMEAN, key, sizeof key, &worst, &geo) && !strcmp(key, B), "Hopper geomean picks B: %s", key);
  CHECK_NEAR(geo, sqrt(100.0 / 110), 1e-12);

  /* an older document of a shipped kernel: imported equal */
  json_t *j = older_results_json(&docs[2], 168, 164);
  char path[600];
  snprintf(path, sizeof path, "%s/amp.json", dir);
  CHECK(util_json_write(j, path) == VKOCC_OK, "write");
  json_decref(j);
  tune_doc back;
  CHECK(tune_results_load(path, "reduce", &back) == VKOCC_OK, "read back: %s", vkocc_last_error());
  CHECK(back.count == 4 && back.r[3].median_ns == 90 && !strcmp(back.r[3].key, D) && !strcmp(back.dev.cluster_id, amp.cluster_id) &&
            back.dev.has_fp, "round trip: %u results", back.count);
  tune_doc_free(&back);
  test_import(path, &docs[2]);
  CHECK(tune_results_load(path, "histogram", &back) == VKOCC_ERROR_USAGE, "another kernel's results");
  CHECK_CONTAINS(vkocc_last_error(), "not 'histogram'");
  /* bad documents */
  char *text;
  size_t len;
  util_read_file(path, (void **)&text, &len);
  expect_bad_results("trunc.json", (text[len / 2] = 0, text), NULL, "invalid JSON");
  free(text);
  expect_bad_results("v2.json", "{\"schema\":\"vkocc.tune-results/2\"}", NULL, "version 2");
  expect_bad_results("other.json", "{\"schema\":\"vkocc.fingerprint/1\"}", NULL, "$.schema");
  expect_bad_results("param.json", "{\"schema\":\"vkocc.tune-results/1\",\"kernel\":\"reduce\",\"element_type\":\"u32\","
                     "\"problem_size\":10,\"cluster_id\":\"c1-x\",\"device\":{\"name\":\"x\",\"key\":\"k\"},\"results\":"
                     "[{\"config\":{\"variant\":\"shared_tree\",\"grain\":4},\"valid\":true,\"median_ns\":5,\"runs\":3}]}",
                     NULL, "$.results[0].config.grain");
  expect_bad_results("dup.json", "{\"schema\":\"vkocc.tune-results/1\",\"kernel\":\"reduce\",\"element_type\":\"u32\","
                     "\"problem_size\":10,\"cluster_id\":\"c1-x\",\"device\":{\"name\":\"x\",\"key\":\"k\"},\"results\":"
                     "[{\"config\":{\"variant\":\"subgroup\",\"wg_size\":64,\"elements_per_thread\":2,\"access\":\"strided\"},\"valid\":true,\"median_ns\":5,\"runs\":3},"
                     "{\"config\":{\"variant\":\"subgroup\",\"wg_size\":64,\"elements_per_thread\":2,\"access\":\"strided\"},\"valid\":true,\"median_ns\":6,\"runs\":3}]}",
                     NULL, "appears twice");
  expect_bad_results("type.json", "{\"schema\":\"vkocc.tune-results/1\",\"kernel\":\"histogram\",\"element_type\":\"f32\","
                     "\"problem_size\":10,\"cluster_id\":\"c1-x\",\"device\":{\"name\":\"x\",\"key\":\"k\"},\"results\":[]}",
                     NULL, "$.element_type");

  /* build: device entries (each device's best), a cluster entry per cluster, the max-min default */
  json_t *db;
  CHECK(tdb_build(docs, 3, &db) == VKOCC_OK, "build: %s", vkocc_last_error());
  json_t *k = json_object_get(json_object_get(db, "kernels"), "reduce"), *entries = json_object_get(k, "entries");
  CHECK_EQ_U(json_array_size(entries), 5);
  char *dp = json_dumps(json_object_get(json_object_get(k, "default"), "params"), JSON_COMPACT | JSON_SORT_KEYS);
  CHECK(dp && !strcmp(dp, B), "default B (worst efficiency 0.6): %s", dp);
  free(dp);
  CHECK_NEAR(json_number_value(json_object_get(json_object_get(k, "default"), "worst_efficiency")), 0.6, 1e-9);
  snprintf(path, sizeof path, "%s/db.json", dir);
  CHECK(util_json_write(db, path) == VKOCC_OK, "write db");
  json_decref(db);
  CHECK(tdb_build((tune_doc[]){docs[0], docs[0]}, 2, &db) == VKOCC_ERROR_USAGE, "the same device twice is refused");
  vkocc_policy_db *pdb;
  CHECK(vkocc_policy_db_load(path, &pdb) == VKOCC_OK, "load db/2: %s", vkocc_last_error());
  if (pdb) {
    vkocc_policy_var v[] = {{"problem_size", "1048576"}, {"element_type", "u32"}};
    vkocc_policy_choice c;
    CHECK(vkocc_policy_select_device(pdb, "reduce", &h114, "h2", v, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_DEVICE &&
              !strcmp(c.params_json, B), "H2 by its device key: B, rule %s %s", vkocc_policy_rule_name(c.rule), c.params_json);
    vkocc_policy_choice_free(&c);
    CHECK(vkocc_policy_select_device(pdb, "reduce", &h114, "another", v, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_CLUSTER &&
              !strcmp(c.params_json, B), "an untuned Hopper: the cluster's B, rule %s", vkocc_policy_rule_name(c.rule));
    int64_t wg = 0;
    double f = 0;
    char var[32] = "";
    CHECK(vkocc_policy_param_int(&c, "wg_size", &wg) == VKOCC_OK && wg == 256, "wg_size %lld", (long long)wg);
    CHECK(vkocc_policy_param_float(&c, "elements_per_thread", &f) == VKOCC_OK && f == 8, "ept %g", f);
    CHECK(vkocc_policy_param_string(&c, "variant", var, sizeof var) == VKOCC_OK && !strcmp(var, "subgroup"), "variant %s", var);
    CHECK(vkocc_policy_param_int(&c, "variant", &wg) == VKOCC_ERROR_USAGE, "a string is not an integer");
    CHECK_CONTAINS(vkocc_last_error(), "'variant' is a string");
    CHECK(vkocc_policy_param_int(&c, "grain", &wg) == VKOCC_ERROR_USAGE, "absent parameter");
    CHECK_CONTAINS(vkocc_last_error(), "'grain' is not in the chosen params");
    CHECK(vkocc_policy_param_string(&c, "variant", var, 4) == VKOCC_ERROR_USAGE, "too small a buffer");
    vkocc_policy_choice_free(&c);
    CHECK(vkocc_policy_select_device(pdb, "reduce", &rdna, "rdna", v, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_DEFAULT &&
              !strcmp(c.params_json, B), "an unknown cluster: the default B, rule %s", vkocc_policy_rule_name(c.rule));
    vkocc_policy_choice_free(&c);
    vkocc_policy_var f32v[] = {{"problem_size", "1048576"}, {"element_type", "f32"}};
    CHECK(vkocc_policy_select_device(pdb, "reduce", &amp, "amp", f32v, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_DEFAULT,
          "tuned for u32 only: f32 falls to the default, rule %s", vkocc_policy_rule_name(c.rule));
    vkocc_policy_choice_free(&c);
    vkocc_policy_db_free(pdb);
  }

  /* transfer: worked out by hand (efficiency = target best / chosen time on the target) */
  json_t *rep;
  CHECK(tdb_transfer(docs, 3, 0, &rep) == VKOCC_OK, "transfer: %s", vkocc_last_error());
  json_t *g = json_array_get(json_object_get(rep, "groups"), 0), *t = json_object_get(g, "targets");
  json_t *t1 = json_array_get(t, 0), *t2 = json_array_get(t, 1), *t3 = json_array_get(t, 2);
  CHECK_NEAR(eff(t1, "device"), 1, 0);
  CHECK_NEAR(eff(t1, "cluster"), 100.0 / 110, 1e-9); /* H2's best B on H1 */
  CHECK_NEAR(eff(t2, "cluster"), 100.0 / 120, 1e-9); /* H1's best A on H2 */
  CHECK_NEAR(eff(t3, "cluster"), -1, 0);              /* no other device in AMP's cluster */
  CHECK_NEAR(eff(t3, "nearest"), 90.0 / 150, 1e-9);   /* the Hopper cluster's B */
  CHECK_NEAR(eff(t1, "nearest"), 0, 0);               /* AMP's best D is invalid on H1 */
  CHECK_NEAR(eff(t1, "default"), 0, 0);               /* max-min over H2 and AMP is D: invalid on H1 */
  CHECK_NEAR(eff(t2, "default"), 1, 1e-12);           /* max-min over H1 and AMP is B */
  CHECK_NEAR(eff(t3, "default"), 0.6, 1e-9);
  CHECK_NEAR(eff(t1, "name"), -1, 0);                 /* no other device of that name: a miss */
  json_t *pol = json_object_get(json_object_get(t3, "rules"), "policy");
  CHECK(!strcmp(json_string_value(json_object_get(pol, "rule")), "default"), "AMP's policy falls to the default");
  json_t *pp = json_object_get(g, "portability");
  CHECK_NEAR(json_number_value(json_object_get(pp, "device")), 1, 1e-12);
  CHECK_NEAR(json_number_value(json_object_get(pp, "cluster")), 0, 0);
  CHECK_NEAR(json_number_value(json_object_get(pp, "policy")), 3 / (1.1 + 1.2 + 1 / 0.6), 1e-9);
  json_decref(rep);
  /* two devices of one name: the name-keyed lookup hits */
  snprintf(docs[1].dev.id.name, sizeof docs[1].dev.id.name, "GPU H1");
  CHECK(tdb_transfer(docs, 3, 0, &rep) == VKOCC_OK, "transfer 2");
  t1 = json_array_get(json_object_get(json_array_get(json_object_get(rep, "groups"), 0), "targets"), 0);
  CHECK_NEAR(eff(t1, "name"), 100.0 / 110, 1e-9);
  json_decref(rep);
  for (int i = 0; i < 3; i++) tune_doc_free(&docs[i]);
  return check_report();
}
