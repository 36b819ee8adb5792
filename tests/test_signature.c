/* The architecture signature without a device: quantization of the values an H200 gave (docs/results/h100/
 * signature), recipe c3 (what enters the ID, what a partial signature's ID says), the stability rule that
 * refuses a signature straddling a step, schema 3 round trips and a tampered document, and selection (a c2/c1
 * database matched by the occupancy class with a note; another generation is no cluster and too far to be
 * "nearest"; the nearest rule says how far and on what). */
#include "check.h"
#include "internal.h"
#include "model.h"
#include "io.h"
#include "synth.h"
#include <math.h>
#include <stdlib.h>

#define CHECK_EQ_I(a, b) CHECK((a) == (b), "%s = %lld, expected %lld", #a, (long long)(a), (long long)(b))

static char dir[] = "/tmp/vkocc-signature-XXXXXX";

/* A measured signal: samples spread evenly over [lo, hi] (the extremes measured), median in the middle. */
static void set(vkocc_signature *g, vkocc_sig_signal s, double lo, double hi) {
  vkocc_sig_value *v = &g->v[s];
  v->state = VKOCC_SIG_MEASURED;
  v->repeats = 5;
  for (uint32_t r = 0; r < 5; r++) v->samples[r] = lo + (hi - lo) * r / 4;
  v->value = (lo + hi) / 2;
  v->spread = (hi - lo) / v->value;
}

/* The H200's signature at the extremes of 50 runs on both queue families, quiet and loaded (lo) or (hi). */
static void h200(vkocc_signature *g, bool hi) {
  memset(g, 0, sizeof *g);
  g->present = true;
  g->vendor_id = 0x10de;
  g->subgroup_min = g->subgroup_max = 32;
  g->float64 = g->int64 = g->float16 = true;
  g->workgroup_size = 1024;
  set(g, VKOCC_SIG_FMA_LATENCY, hi ? 4.1101 : 4.1089, hi ? 4.1101 : 4.1089);
  set(g, VKOCC_SIG_SHARED_LATENCY, 29.0, 29.0);
  set(g, VKOCC_SIG_FP32_RATE, hi ? 134.769 : 126.461, hi ? 134.769 : 126.461);
  set(g, VKOCC_SIG_INT32_RATIO, hi ? 0.5064 : 0.4752, hi ? 0.5064 : 0.4752);
  set(g, VKOCC_SIG_FP64_RATIO, hi ? 0.4690 : 0.4402, hi ? 0.4690 : 0.4402);
  set(g, VKOCC_SIG_FP16_RATIO, hi ? 1.0150 : 0.9526, hi ? 1.0150 : 0.9526);
}

int main(int argc, char **argv) {
  if (argc < 2 || !mkdtemp(dir)) { fprintf(stderr, "usage: test_signature DATA_DIR\n"); return 2; }
  /* quantization: latencies in half octaves, rates and ratios in octaves */
  CHECK_EQ_I(vkocc_sig_quantize(VKOCC_SIG_FMA_LATENCY, 4.11), 4);
  CHECK_EQ_I(vkocc_sig_quantize(VKOCC_SIG_SHARED_LATENCY, 29.0), 10);
  CHECK_EQ_I(vkocc_sig_quantize(VKOCC_SIG_SHARED_LATENCY, 19.0), 8);
  CHECK_EQ_I(vkocc_sig_quantize(VKOCC_SIG_FP32_RATE, 128), 7);
  CHECK_EQ_I(vkocc_sig_quantize(VKOCC_SIG_FP32_RATE, 64), 6);
  CHECK_EQ_I(vkocc_sig_quantize(VKOCC_SIG_FP64_RATIO, 0.45), -1);
  CHECK_EQ_I(vkocc_sig_quantize(VKOCC_SIG_FP64_RATIO, 1.0 / 64), -6);
  CHECK_EQ_I(vkocc_sig_quantize(VKOCC_SIG_FP16_RATIO, 1.0), 0);
  CHECK(vkocc_sig_quantize(VKOCC_SIG_FP32_RATE, 0) == INT32_MIN && vkocc_sig_quantize(VKOCC_SIG_FP32_RATE, NAN) == INT32_MIN,
        "no value, no step");

  /* one ID across the measured extremes of one GPU; any value one step away is another ID */
  vkocc_fingerprint fp, fq;
  synth_fingerprint(&SYNTH_HOPPER, 132, 0, &fp);
  char c2[24];
  snprintf(c2, sizeof c2, "%s", fp.cluster_id);
  CHECK(!strncmp(c2, "c2-", 3), "without a signature: c2 (%s)", c2);
  fq = fp;
  h200(&fp.signature, false);
  h200(&fq.signature, true);
  vkocc_fingerprint_set_ids(&fp);
  vkocc_fingerprint_set_ids(&fq);
  CHECK(!strncmp(fp.cluster_id, "c3-", 3) && !strcmp(fp.occupancy_id, c2), "c3 %s, occupancy %s", fp.cluster_id, fp.occupancy_id);
  CHECK(!strcmp(fp.cluster_id, fq.cluster_id), "the H200's extremes: %s vs %s", fp.cluster_id, fq.cluster_id);
  CHECK(fingerprint_signature_unstable(&fp.signature, NULL, NULL) < 0, "the H200's spread is stable");
  char text[512];
  vkocc_signature_text(&fp.signature, text, sizeof text);
  CHECK(!strcmp(text, "vendor=0x10de;sg=32..32;f64=1;i64=1;f16=1;fma_latency=4;shared_latency=10;fp32_rate=7;"
                      "int32_ratio=-1;fp64_ratio=-1;fp16_ratio=0;"), "text %s", text);
  /* another generation's FP32 lanes (A100: 64 per SM per clock), FP64 rate (consumer: 1/64), vendor, subgroup range */
  vkocc_fingerprint fo = fp;
  set(&fo.signature, VKOCC_SIG_FP32_RATE, 64, 64);
  vkocc_fingerprint_set_ids(&fo);
  CHECK(strcmp(fo.cluster_id, fp.cluster_id) && !strcmp(fo.occupancy_id, fp.occupancy_id), "FP32 lanes split c3, not c2");
  char whatbuf[512], *what = whatbuf;
  double d = vkocc_fingerprint_distance_explain(&fp, &fo, whatbuf, sizeof whatbuf);
  CHECK(fabs(d - 0.05) < 1e-9, "one step: distance %g", d);
  CHECK_CONTAINS(what, "fp32_rate");
  CHECK_CONTAINS(what, "surface 0.0000");
  fo = fp;
  fo.signature.vendor_id = 0x1002;
  vkocc_fingerprint_set_ids(&fo);
  CHECK(strcmp(fo.cluster_id, fp.cluster_id) != 0, "another vendor, another ID");
  CHECK(vkocc_fingerprint_distance(&fp, &fo) == 1, "another vendor: distance 1");
  fo = fp;
  fo.signature.subgroup_max = 64;
  vkocc_fingerprint_set_ids(&fo);
  CHECK(strcmp(fo.cluster_id, fp.cluster_id) != 0, "another subgroup range, another ID");
  /* every signal of the recipe is in the ID: each one alone, one step away, gives another c3 ID and keeps the
   * occupancy class; a value moved within its step keeps the ID (what a device repeats must not split it) */
  for (int i = 0; i < VKOCC_SIG_COUNT; i++) {
    const char *name = vkocc_sig_signal_name((vkocc_sig_signal)i);
    double v = fp.signature.v[i].value;
    fo = fp;
    set(&fo.signature, (vkocc_sig_signal)i, 2 * v, 2 * v); /* a whole octave: one step or two */
    vkocc_fingerprint_set_ids(&fo);
    CHECK(strcmp(fo.cluster_id, fp.cluster_id) && !strcmp(fo.occupancy_id, fp.occupancy_id), "%s doubled: c3 %s vs %s",
          name, fo.cluster_id, fp.cluster_id);
    fo = fp;
    set(&fo.signature, (vkocc_sig_signal)i, 1.01 * v, 1.01 * v);
    vkocc_fingerprint_set_ids(&fo);
    CHECK(!strcmp(fo.cluster_id, fp.cluster_id), "%s moved 1%%: the ID stays (%s vs %s)", name, fo.cluster_id,
          fp.cluster_id);
    fo = fp;
    fo.signature.v[i].state = VKOCC_SIG_UNSUPPORTED; /* the signal's absence alone, the feature flags unchanged */
    vkocc_fingerprint_set_ids(&fo);
    CHECK(strcmp(fo.cluster_id, fp.cluster_id) != 0, "%s unsupported: another ID", name);
  }
  for (int f = 0; f < 3; f++) {
    fo = fp;
    bool *flag = f == 0 ? &fo.signature.float64 : f == 1 ? &fo.signature.int64 : &fo.signature.float16;
    *flag = !*flag;
    vkocc_fingerprint_set_ids(&fo);
    CHECK(strcmp(fo.cluster_id, fp.cluster_id) != 0, "feature flag %d (f64, i64, f16) changed: another ID", f);
  }
  fo = fp;
  fo.signature.subgroup_min = 16;
  vkocc_fingerprint_set_ids(&fo);
  CHECK(strcmp(fo.cluster_id, fp.cluster_id) != 0, "another subgroup minimum, another ID");
  /* the occupancy class is in both IDs: each canonical workgroup size's resident workgroups per SM */
  for (int a = 0; a < VKOCC_CANON_WG; a++) {
    if (isnan(fp.normalized[a][0])) continue;
    fo = fp;
    fo.normalized[a][0] = fp.normalized[a][0] + 1;
    vkocc_fingerprint_set_ids(&fo);
    CHECK(strcmp(fo.cluster_id, fp.cluster_id) && strcmp(fo.occupancy_id, fp.occupancy_id),
          "workgroup size %u's occupancy changed: c3 %s, c2 %s", vkocc_canonical_wg[a], fo.cluster_id, fo.occupancy_id);
  }
  /* a device without FP64 says so (and it is a fact: "c3-"), one whose probe could not run says it does not know */
  fo = fp;
  fo.signature.v[VKOCC_SIG_FP64_RATIO].state = VKOCC_SIG_UNSUPPORTED;
  fo.signature.float64 = false;
  vkocc_fingerprint_set_ids(&fo);
  CHECK(!strncmp(fo.cluster_id, "c3-", 3) && strcmp(fo.cluster_id, fp.cluster_id), "unsupported FP64: %s", fo.cluster_id);
  CHECK(vkocc_fingerprint_distance(&fp, &fo) >= 0.5, "FP64 on one side only is far");
  fo = fp;
  fo.signature.v[VKOCC_SIG_SHARED_LATENCY].state = VKOCC_SIG_UNAVAILABLE;
  vkocc_fingerprint_set_ids(&fo);
  CHECK(!strncmp(fo.cluster_id, "c3p-", 4), "an unavailable value makes a partial ID: %s", fo.cluster_id);
  fo = fp;
  for (int i = 0; i < VKOCC_SIG_COUNT; i++) fo.signature.v[i].state = VKOCC_SIG_NOT_STABLE;
  vkocc_fingerprint_set_ids(&fo);
  CHECK(!strncmp(fo.cluster_id, "c3p-", 4), "timing kept out (a CPU device): partial ID %s", fo.cluster_id);
  vkocc_fingerprint fo2 = fo; /* and then the timing values do not matter */
  set(&fo2.signature, VKOCC_SIG_FP32_RATE, 9, 20);
  fo2.signature.v[VKOCC_SIG_FP32_RATE].state = VKOCC_SIG_NOT_STABLE;
  vkocc_fingerprint_set_ids(&fo2);
  CHECK(!strcmp(fo.cluster_id, fo2.cluster_id), "not-stable values stay out of the ID");

  /* the stability rule: repeats on both sides of a step are refused (the measurement re-measures, then fails) */
  vkocc_signature u = fp.signature;
  set(&u, VKOCC_SIG_FP64_RATIO, 0.30, 0.40); /* the octave step at 0.354 */
  int32_t qa = 0, qb = 0;
  CHECK(fingerprint_signature_unstable(&u, &qa, &qb) == VKOCC_SIG_FP64_RATIO && qa == -2 && qb == -1, "straddle: %d %d", qa, qb);
  u.v[VKOCC_SIG_FP64_RATIO].state = VKOCC_SIG_NOT_STABLE;
  CHECK(fingerprint_signature_unstable(&u, NULL, NULL) < 0, "values out of the ID never refuse");

  /* schema 3: the signature round-trips, the stored c3 ID is checked against it */
  json_t *doc = vkocc_doc_stamp(io_fingerprint_json(&fp), VKOCC_DOC_FINGERPRINT);
  char *t = json_dumps(doc, 0);
  vkocc_fingerprint back;
  CHECK(vkocc_fingerprint_parse(t, strlen(t), "mem.json", &back) == VKOCC_OK, "schema 3: %s", vkocc_last_error());
  CHECK(!strcmp(back.cluster_id, fp.cluster_id) && !strcmp(back.occupancy_id, c2) && back.signature.present,
        "read back %s / %s", back.cluster_id, back.occupancy_id);
  CHECK(back.signature.v[VKOCC_SIG_FP32_RATE].repeats == 5 &&
            fabs(back.signature.v[VKOCC_SIG_FP32_RATE].samples[4] - 126.461) < 1e-6,
        "raw repeats kept for re-clustering");
  free(t);
  json_t *vals = json_object_get(json_object_get(doc, "signature"), "values");
  json_object_set_new(json_object_get(vals, "fp32_rate"), "value", json_real(64)); /* another step, same ID: refused */
  t = json_dumps(doc, 0);
  CHECK(vkocc_fingerprint_parse(t, strlen(t), "mem.json", &back) == VKOCC_ERROR_USAGE, "tampered signature");
  CHECK_CONTAINS(vkocc_last_error(), "$.signature: edited: the cluster ID \"");
  CHECK_CONTAINS(vkocc_last_error(), "does not match its signature's values");
  free(t);
  json_object_set_new(json_object_get(vals, "fp32_rate"), "state", json_string("guessed"));
  t = json_dumps(doc, 0);
  CHECK(vkocc_fingerprint_parse(t, strlen(t), "mem.json", &back) == VKOCC_ERROR_USAGE, "unknown state");
  CHECK_CONTAINS(vkocc_last_error(), "$.signature.values.fp32_rate");
  free(t);
  json_decref(doc);

  /* selection: the c1/c2 database matches by the occupancy class, with a note that the generation was not checked */
  char path[512];
  snprintf(path, sizeof path, "%s/policy-db.json", argv[1]);
  vkocc_policy_db *db;
  CHECK(vkocc_policy_db_load(path, &db) == VKOCC_OK, "load: %s", vkocc_last_error());
  vkocc_policy_var small_u32[] = {{"problem_size", "1000"}, {"element_type", "u32"}};
  vkocc_policy_choice c;
  CHECK(vkocc_policy_select(db, "radix_sort", &fp, small_u32, 2, 0, &c) == VKOCC_OK, "c3 vs c1 db: %s", vkocc_last_error());
  CHECK(c.rule == VKOCC_POLICY_CLUSTER && c.entry == 0, "by the occupancy class: rule %d entry %d", c.rule, c.entry);
  CHECK_CONTAINS(c.note, "generation and vendor were not checked");
  vkocc_policy_choice_free(&c);
  vkocc_policy_db_free(db);
  /* a c3 database: the H200's cluster, and a device one FP32 step away (same occupancy) is neither cluster nor nearest */
  json_error_t e;
  json_t *pdb = json_load_file(path, 0, &e);
  json_t *cl = json_object();
  json_t *fj = io_fingerprint_json(&fp);
  json_object_set_new(cl, fp.cluster_id, fj);
  json_object_set_new(pdb, "clusters", cl);
  json_t *entries = json_object_get(json_object_get(json_object_get(pdb, "kernels"), "radix_sort"), "entries");
  for (size_t i = 0; i < json_array_size(entries); i++)
    json_object_set_new(json_array_get(entries, i), "cluster", json_string(fp.cluster_id));
  char dbp[600];
  snprintf(dbp, sizeof dbp, "%s/c3-db.json", dir);
  CHECK(json_dump_file(pdb, dbp, 0) == 0, "write %s", dbp);
  json_decref(pdb);
  CHECK(vkocc_policy_db_load(dbp, &db) == VKOCC_OK, "c3 db: %s", vkocc_last_error());
  if (db) {
    CHECK(vkocc_policy_select(db, "radix_sort", &fq, small_u32, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_CLUSTER,
          "the H200's other extreme: cluster, rule %d", c.rule);
    CHECK(!c.note[0], "an equal c3 ID needs no note: %s", c.note);
    vkocc_policy_choice_free(&c);
    fo = fp;
    set(&fo.signature, VKOCC_SIG_FP32_RATE, 64, 64);
    vkocc_fingerprint_set_ids(&fo);
    CHECK(vkocc_policy_select(db, "radix_sort", &fo, small_u32, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_DEFAULT,
          "one FP32 step away: default, rule %d", c.rule);
    CHECK_CONTAINS(c.note, "no cluster within 0.020");
    vkocc_policy_choice_free(&c);
    /* with a wider threshold it is the nearest, and the note says how far and on what */
    CHECK(vkocc_policy_select(db, "radix_sort", &fo, small_u32, 2, 0.1, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_NEAREST,
          "nearest at 0.1: rule %d", c.rule);
    CHECK(fabs(c.distance - 0.05) < 1e-9, "distance %g", c.distance);
    CHECK_CONTAINS(c.note, "signature 0.0500: fp32_rate 64 vs 126");
    vkocc_policy_choice_free(&c);
    vkocc_policy_db_free(db);
  }
  char rm[128];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  if (system(rm)) fprintf(stderr, "could not remove %s\n", dir);
  return check_report();
}
