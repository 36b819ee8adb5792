/* Policy selection: exact, nearest, default and no-match; bad databases get clear errors. */
#include "check.h"
#include "synth.h"
#include <stdlib.h>

static char dir[] = "/tmp/vkocc-policy-XXXXXX";
#define write_tmp(name, text) check_write_tmp(dir, name, text)

static void expect_bad(const char *name, const char *text, const char *needle) {
  vkocc_policy_db *db;
  CHECK(vkocc_policy_db_load(write_tmp(name, text), &db) == VKOCC_ERROR_USAGE, "%s must be refused", name);
  CHECK_CONTAINS(vkocc_last_error(), needle);
  CHECK_CONTAINS(vkocc_last_error(), name);
}

int main(int argc, char **argv) {
  if (argc < 2 || !mkdtemp(dir)) { fprintf(stderr, "usage: test_policy DATA_DIR\n"); return 2; }
  char path[512];
  snprintf(path, sizeof path, "%s/policy-db.json", argv[1]);
  vkocc_policy_db *db;
  CHECK(vkocc_policy_db_load(path, &db) == VKOCC_OK, "load: %s", vkocc_last_error());
  if (!db) return check_report();
  vkocc_fingerprint h114, hnoisy, amp, rdna;
  synth_fingerprint(&SYNTH_HOPPER, 114, 0, &h114);   /* same cluster as the DB's Hopper (132 SMs) */
  synth_fingerprint(&SYNTH_HOPPER, 114, 0, &hnoisy); /* then one value changed: another ID, within the threshold */
  hnoisy.normalized[3][1] += 1;
  vkocc_cluster_id(&hnoisy, hnoisy.cluster_id);
  synth_fingerprint(&SYNTH_AMPERE, 28, 0, &amp);
  synth_fingerprint(&SYNTH_RDNA, 40, 0, &rdna);      /* unknown to the DB */
  vkocc_policy_var small_u32[] = {{"problem_size", "1000"}, {"element_type", "u32"}};
  vkocc_policy_var big_f32[] = {{"problem_size", "134217728"}, {"element_type", "f32"}};
  vkocc_policy_var big_u64[] = {{"problem_size", "134217728"}, {"element_type", "u64"}};
  vkocc_policy_choice c;
  /* exact */
  CHECK(vkocc_policy_select(db, "radix_sort", &h114, small_u32, 2, 0, &c) == VKOCC_OK, "exact: %s", vkocc_last_error());
  CHECK(c.rule == VKOCC_POLICY_EXACT && c.entry == 0 && !strcmp(c.params_json, "{\"elements_per_thread\":14,\"wg_size\":512}"),
        "exact small: rule %d entry %d %s", c.rule, c.entry, c.params_json);
  vkocc_policy_choice_free(&c);
  CHECK(vkocc_policy_select(db, "radix_sort", &h114, big_f32, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_EXACT &&
            c.entry == 1, "exact big f32: entry %d", c.entry);
  vkocc_policy_choice_free(&c);
  /* conditions fail for the exact cluster (u64) and no other cluster is near: default */
  CHECK(vkocc_policy_select(db, "radix_sort", &h114, big_u64, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_DEFAULT,
        "u64 -> default, rule %d", c.rule);
  CHECK(!strcmp(c.params_json, "{\"elements_per_thread\":8,\"wg_size\":256}"), "default params %s", c.params_json);
  vkocc_policy_choice_free(&c);
  /* nearest: a noisy Hopper has another ID but is within the threshold of the DB's Hopper */
  CHECK(vkocc_policy_select(db, "radix_sort", &hnoisy, small_u32, 2, 0, &c) == VKOCC_OK, "nearest");
  CHECK(c.rule == VKOCC_POLICY_NEAREST && c.entry == 0 && c.distance > 0 && c.distance <= VKOCC_CLUSTER_THRESHOLD,
        "nearest: rule %d entry %d distance %g", c.rule, c.entry, c.distance);
  vkocc_policy_choice_free(&c);
  /* a tiny threshold excludes it: default */
  CHECK(vkocc_policy_select(db, "radix_sort", &hnoisy, small_u32, 2, 1e-6, &c) == VKOCC_OK &&
            c.rule == VKOCC_POLICY_DEFAULT, "tight threshold -> default");
  vkocc_policy_choice_free(&c);
  /* Ampere at another SM count: exact */
  CHECK(vkocc_policy_select(db, "radix_sort", &amp, small_u32, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_EXACT &&
            c.entry == 2, "ampere exact entry %d", c.entry);
  vkocc_policy_choice_free(&c);
  /* unknown architecture: default; a missing variable fails a condition */
  CHECK(vkocc_policy_select(db, "radix_sort", &rdna, small_u32, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_DEFAULT,
        "rdna -> default");
  vkocc_policy_choice_free(&c);
  CHECK(vkocc_policy_select(db, "radix_sort", &h114, NULL, 0, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_DEFAULT,
        "no variables -> default");
  vkocc_policy_choice_free(&c);
  /* unknown kernel */
  CHECK(vkocc_policy_select(db, "fft", &h114, NULL, 0, 0, &c) == VKOCC_ERROR_USAGE, "unknown kernel");
  CHECK_CONTAINS(vkocc_last_error(), "no kernel 'fft'");
  vkocc_policy_db_free(db);
  /* no match and no default */
  const char *nodef = write_tmp("nodef.json", "{\"schema\": \"vkocc.policy-db/1\", \"kernels\": {\"k\": {\"entries\": "
                                              "[{\"cluster\": \"c1-000000000000\", \"params\": {\"x\": 1}}]}}}");
  CHECK(vkocc_policy_db_load(nodef, &db) == VKOCC_OK, "nodef load: %s", vkocc_last_error());
  CHECK(vkocc_policy_select(db, "k", &h114, NULL, 0, 0, &c) == VKOCC_ERROR_RUNTIME, "no match must fail");
  CHECK_CONTAINS(vkocc_last_error(), "nothing matches for kernel 'k'");
  vkocc_policy_db_free(db);
  /* bad databases */
  /* version 2 (device entries) is read too; a version after it is refused */
  expect_bad("v3.json", "{\"schema\": \"vkocc.policy-db/3\", \"kernels\": {}}", "$.schema: version 3");
  expect_bad("nokernels.json", "{\"schema\": \"vkocc.policy-db/1\"}", "$.kernels: expected an object");
  expect_bad("entry.json", "{\"schema\": \"vkocc.policy-db/1\", \"kernels\": {\"k\": {\"entries\": [{\"params\": {}}]}}}",
             "$.kernels.k.entries[0].cluster: expected a cluster ID string");
  expect_bad("cond.json", "{\"schema\": \"vkocc.policy-db/1\", \"kernels\": {\"k\": {\"entries\": [{\"cluster\": \"c1-0\", "
                          "\"params\": {}, \"when\": {\"n\": {\"min\": \"big\"}}}]}}}",
             "$.kernels.k.entries[0].when.n.min: expected min/max numbers");
  expect_bad("in-object.json", "{\"schema\": \"vkocc.policy-db/1\", \"kernels\": {\"k\": {\"entries\": [{\"cluster\": "
             "\"c1-0\", \"params\": {}, \"when\": {\"n\": {\"in\": [1, {}]}}}]}}}", ".when.n.in[1]: expected a string");
  expect_bad("min-max.json", "{\"schema\": \"vkocc.policy-db/1\", \"kernels\": {\"k\": {\"entries\": [{\"cluster\": "
             "\"c1-0\", \"params\": {}, \"when\": {\"n\": {\"min\": 5, \"max\": 4}}}]}}}", ".when.n: min 5 is above max 4");
  expect_bad("default.json", "{\"schema\": \"vkocc.policy-db/1\", \"kernels\": {\"k\": {\"default\": {\"params\": 3}}}}",
             "$.kernels.k.default.params: expected an object");
  expect_bad("cluster.json", "{\"schema\": \"vkocc.policy-db/1\", \"kernels\": {\"k\": {}}, \"clusters\": {\"c1-0\": "
                             "{\"subgroup_size\": 32}}}", "$.clusters.c1-0: $.normalized: expected an object");
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 2;
  return check_report();
}
