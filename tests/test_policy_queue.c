/* Policy selection by the kind of queue family, without a device: tuning results record the kind of family they
 * were tuned on (older documents read as "unknown"), policy build keeps one entry per kind, and selection matches
 * the architecture first, then prefers an entry tuned on the caller's kind, saying which kind it used. The two
 * kinds are synthetic (lavapipe has one family): one Hopper tuned through a compute-only family (best: A) and
 * through a graphics+compute family (best: B), an H200 of the same cluster from an older vkocc (kind unknown). */
#include "check.h"
#include "synth.h"
#include "../policy/tunedb.h"
#include "jsonio.h"
#include "older_results.h"
#include <stdlib.h>

static char dir[] = "/tmp/vkocc-policy-queue-XXXXXX";

/* reduce configurations A..D */
static const tune_config CFG[4] = {{{0, 256, 4, 0}, 0xf}, {{1, 256, 8, 0}, 0xf}, {{0, 64, 1, 1}, 0xf}, {{1, 1024, 64, 1}, 0xf}};

static void make_doc(tune_doc *d, const char *key, const char *kind, uint32_t shared, const vkocc_fingerprint *fp,
                     const double t[4]) {
  memset(d, 0, sizeof *d);
  snprintf(d->file, sizeof d->file, "%s-%s.json", key, kind);
  d->k = &kernels_reduce, d->n = 1u << 20;
  snprintf(d->dev.id.name, sizeof d->dev.id.name, "NVIDIA H100");
  snprintf(d->dev.id.key, sizeof d->dev.id.key, "%s", key);
  snprintf(d->dev.cluster_id, sizeof d->dev.cluster_id, "%s", fp->cluster_id);
  snprintf(d->dev.queue_kind, sizeof d->dev.queue_kind, "%s", kind);
  d->dev.shared_per_sm = shared;
  d->dev.has_fp = true, d->dev.fp = *fp;
  d->r = calloc(4, sizeof *d->r);
  for (int i = 0; i < 4; i++) {
    tune_result *r = &d->r[d->count++];
    r->cfg = CFG[i];
    tune_config_key(d->k, &CFG[i], r->key, sizeof r->key);
    r->measured = true, r->valid = true, r->median_ns = t[i], r->runs = 5;
  }
}

static void expect_bad(const char *name, const char *text, const char *needle) {
  tune_doc d;
  CHECK(tune_results_load(check_write_tmp(dir, name, text), NULL, &d) == VKOCC_ERROR_USAGE, "%s must be refused", name);
  CHECK_CONTAINS(vkocc_last_error(), needle);
  CHECK_CONTAINS(vkocc_last_error(), name);
}

int main(void) {
  if (!mkdtemp(dir)) return 2;
  vkocc_fingerprint hop;
  synth_fingerprint(&SYNTH_HOPPER, 132, 0, &hop);
  char A[256], B[256], C[256];
  tune_config_key(&kernels_reduce, &CFG[0], A, sizeof A);
  tune_config_key(&kernels_reduce, &CFG[1], B, sizeof B);
  tune_config_key(&kernels_reduce, &CFG[2], C, sizeof C);
  tune_doc docs[3];
  make_doc(&docs[0], "h100", "compute-only", 102400, &hop, (double[]){100, 130, 200, 300});   /* best A */
  make_doc(&docs[1], "h100", "graphics+compute", 49152, &hop, (double[]){150, 100, 200, 300}); /* best B */
  make_doc(&docs[2], "h200", "unknown", 0, &hop, (double[]){200, 210, 100, 300});               /* best C */

  /* a shipped kernel's older document records the kind and capacity; one without them reads as "unknown" */
  json_t *j = older_results_json(&docs[1], 168, 0);
  json_t *qf = json_object_get(json_object_get(j, "device"), "queue_family");
  CHECK(json_is_object(qf) && !strcmp(json_string_value(json_object_get(qf, "kind")), "graphics+compute") &&
            json_integer_value(json_object_get(qf, "shared_bytes_per_sm")) == 49152, "device.queue_family written");
  char path[600];
  snprintf(path, sizeof path, "%s/g.json", dir);
  CHECK(util_json_write(j, path) == VKOCC_OK, "write");
  tune_doc back;
  CHECK(tune_results_load(path, "reduce", &back) == VKOCC_OK, "read back: %s", vkocc_last_error());
  CHECK(!strcmp(back.dev.queue_kind, "graphics+compute") && back.dev.shared_per_sm == 49152, "round trip: %s %u",
        back.dev.queue_kind, back.dev.shared_per_sm);
  tune_doc_free(&back);
  json_object_del(json_object_get(j, "device"), "queue_family");
  CHECK(util_json_write(j, path) == VKOCC_OK, "write old");
  CHECK(tune_results_load(path, "reduce", &back) == VKOCC_OK, "an older document: %s", vkocc_last_error());
  CHECK(!strcmp(back.dev.queue_kind, "unknown") && back.dev.shared_per_sm == 0, "older document: kind %s", back.dev.queue_kind);
  tune_doc_free(&back);
  json_decref(j);
  const char *head = "{\"schema\":\"vkocc.tune-results/1\",\"kernel\":\"reduce\",\"element_type\":\"u32\",\"problem_size\":10,"
                     "\"cluster_id\":\"c1-x\",\"results\":[],\"device\":{\"name\":\"x\",\"key\":\"k\",\"queue_family\":";
  char text[600];
  snprintf(text, sizeof text, "%s%s}}", head, "{\"kind\":\"sideways\"}");
  expect_bad("kind.json", text, "$.device.queue_family.kind");
  snprintf(text, sizeof text, "%s%s}}", head, "\"compute\"");
  expect_bad("qf.json", text, "$.device.queue_family");
  snprintf(text, sizeof text, "%s%s}}", head, "{\"kind\":\"compute-only\",\"shared_bytes_per_sm\":-4}");
  expect_bad("shared.json", text, "shared_bytes_per_sm");

  /* build: one device and one cluster entry per kind of family; the same device on two kinds is no duplicate */
  json_t *db;
  CHECK(tdb_build(docs, 3, &db) == VKOCC_OK, "build: %s", vkocc_last_error());
  json_t *entries = json_object_get(json_object_get(json_object_get(db, "kernels"), "reduce"), "entries");
  CHECK_EQ_U(json_array_size(entries), 6);
  uint32_t kinds[3] = {0};
  for (size_t i = 0; i < json_array_size(entries); i++) {
    const char *k = json_string_value(json_object_get(json_object_get(json_array_get(entries, i), "queue_family"), "kind"));
    kinds[k && !strcmp(k, "compute-only") ? 0 : k && !strcmp(k, "graphics+compute") ? 1 : 2]++;
  }
  CHECK(kinds[0] == 2 && kinds[1] == 2 && kinds[2] == 2, "entries per kind %u %u %u", kinds[0], kinds[1], kinds[2]);
  snprintf(path, sizeof path, "%s/db.json", dir);
  CHECK(util_json_write(db, path) == VKOCC_OK, "write db");
  json_decref(db);
  tune_doc twice[2] = {docs[0], docs[0]};
  CHECK(tdb_build(twice, 2, &db) == VKOCC_ERROR_USAGE, "one device twice on one kind is refused");
  CHECK_CONTAINS(vkocc_last_error(), "compute-only queue family");

  vkocc_policy_db *pdb;
  CHECK(vkocc_policy_db_load(path, &pdb) == VKOCC_OK, "load: %s", vkocc_last_error());
  if (pdb) {
    vkocc_policy_var v[] = {{"problem_size", "1048576"}, {"element_type", "u32"}};
    vkocc_policy_choice c;
    /* the exact device on either kind gets what was tuned on that kind */
    CHECK(vkocc_policy_select_queue(pdb, "reduce", &hop, "h100", "graphics+compute", v, 2, 0, &c) == VKOCC_OK &&
              c.rule == VKOCC_POLICY_DEVICE && !strcmp(c.params_json, B) && !strcmp(c.queue_kind, "graphics+compute"),
          "h100 graphics: B, got %s %s", c.params_json, c.queue_kind);
    CHECK_CONTAINS(c.note, "as this one");
    vkocc_policy_choice_free(&c);
    CHECK(vkocc_policy_select_queue(pdb, "reduce", &hop, "h100", "compute-only", v, 2, 0, &c) == VKOCC_OK &&
              c.rule == VKOCC_POLICY_DEVICE && !strcmp(c.params_json, A) && !strcmp(c.queue_kind, "compute-only"),
          "h100 compute-only: A, got %s %s", c.params_json, c.queue_kind);
    vkocc_policy_choice_free(&c);
    /* another device of the cluster: the cluster entry of its kind (A alone on compute-only, B on graphics) */
    CHECK(vkocc_policy_select_queue(pdb, "reduce", &hop, "another", "graphics+compute", v, 2, 0, &c) == VKOCC_OK &&
              c.rule == VKOCC_POLICY_CLUSTER && !strcmp(c.params_json, B) && !strcmp(c.queue_kind, "graphics+compute"),
          "cluster graphics: B, got %s %s", c.params_json, c.queue_kind);
    vkocc_policy_choice_free(&c);
    CHECK(vkocc_policy_select_queue(pdb, "reduce", &hop, "another", "compute-only", v, 2, 0, &c) == VKOCC_OK &&
              c.rule == VKOCC_POLICY_CLUSTER && !strcmp(c.params_json, A) && !strcmp(c.queue_kind, "compute-only"),
          "cluster compute-only: A, got %s %s", c.params_json, c.queue_kind);
    vkocc_policy_choice_free(&c);
    /* the older H200 results: its own device entry, kind unknown */
    CHECK(vkocc_policy_select_queue(pdb, "reduce", &hop, "h200", "compute-only", v, 2, 0, &c) == VKOCC_OK &&
              c.rule == VKOCC_POLICY_DEVICE && !strcmp(c.params_json, C) && !strcmp(c.queue_kind, "unknown"),
          "h200: C (unknown kind), got %s %s", c.params_json, c.queue_kind);
    vkocc_policy_choice_free(&c);
    /* the caller's kind unknown: the first entry in the file, and the note says the kind was not known */
    CHECK(vkocc_policy_select_device(pdb, "reduce", &hop, "another", v, 2, 0, &c) == VKOCC_OK &&
              c.rule == VKOCC_POLICY_CLUSTER && !strcmp(c.params_json, A) && !strcmp(c.queue_kind, "compute-only"),
          "no kind: the first, got %s %s", c.params_json, c.queue_kind);
    CHECK_CONTAINS(c.note, "not known");
    vkocc_policy_choice_free(&c);
    vkocc_policy_db_free(pdb);
  }
  /* a database with only a compute-only entry: a graphics caller still gets it (the architecture first), and the
   * note says the kinds differ */
  const char *one = "{\"schema\":\"vkocc.policy-db/2\",\"kernels\":{\"k\":{\"entries\":[{\"cluster\":\"%s\","
                    "\"queue_family\":{\"kind\":\"compute-only\",\"shared_bytes_per_sm\":102400},\"params\":{\"x\":1}}],"
                    "\"default\":{\"params\":{\"x\":0}}}}}";
  snprintf(text, sizeof text, one, hop.cluster_id);
  CHECK(vkocc_policy_db_load(check_write_tmp(dir, "one.json", text), &pdb) == VKOCC_OK, "one: %s", vkocc_last_error());
  if (pdb) {
    vkocc_policy_choice c;
    CHECK(vkocc_policy_select_queue(pdb, "k", &hop, NULL, "graphics+compute", NULL, 0, 0, &c) == VKOCC_OK &&
              c.rule == VKOCC_POLICY_CLUSTER && !strcmp(c.params_json, "{\"x\":1}") && !strcmp(c.queue_kind, "compute-only"),
          "the other kind's entry: %s", c.params_json);
    CHECK_CONTAINS(c.note, "tuned on a compute-only queue family, this one is graphics+compute");
    vkocc_policy_choice_free(&c);
    CHECK(vkocc_policy_select_queue(pdb, "k", &hop, NULL, "compute-only", NULL, 0, 0, &c) == VKOCC_OK && !c.note[0],
          "same kind, no other: no note (%s)", c.note);
    vkocc_policy_choice_free(&c);
    vkocc_policy_db_free(pdb);
  }
  const char *bad = "{\"schema\":\"vkocc.policy-db/2\",\"kernels\":{\"k\":{\"entries\":[{\"cluster\":\"c2-x\","
                    "\"queue_family\":\"compute\",\"params\":{\"x\":1}}]}}}";
  CHECK(vkocc_policy_db_load(check_write_tmp(dir, "badq.json", bad), &pdb) == VKOCC_ERROR_USAGE, "bad queue_family refused");
  CHECK_CONTAINS(vkocc_last_error(), "$.kernels.k.entries[0].queue_family");
  for (int i = 0; i < 3; i++) tune_doc_free(&docs[i]);
  return check_report();
}
