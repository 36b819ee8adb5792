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
  /* a choice outside the space the database records ($.kernels.K.parameters): refused at load, never served */
#define SPACE "\"parameters\": {\"TILE_X\": [8, 16], \"wg_size\": [64, 128]}"
  expect_bad("zero-default.json", "{\"schema\": \"vkocc.policy-db/2\", \"kernels\": {\"k\": {" SPACE ", \"entries\": [], "
             "\"default\": {\"params\": {\"TILE_X\": 0, \"wg_size\": 0}}}}}",
             "$.kernels.k.default.params.TILE_X: 0 is not one of the parameter's values ([8,16], the space tuned)");
  expect_bad("other-param.json", "{\"schema\": \"vkocc.policy-db/2\", \"kernels\": {\"k\": {" SPACE ", \"entries\": [], "
             "\"default\": {\"params\": {\"TILE_Y\": 8}}}}}", "$.kernels.k.default.params.TILE_Y: not one of the kernel's parameters");
  expect_bad("entry.json", "{\"schema\": \"vkocc.policy-db/2\", \"kernels\": {\"k\": {" SPACE ", \"entries\": [{\"cluster\": "
             "\"c1-x\", \"params\": {\"TILE_X\": 16, \"wg_size\": 96}}], \"default\": {\"params\": {\"TILE_X\": 8, "
             "\"wg_size\": 64}}}}}", "$.kernels.k.entries[0].params.wg_size: 96 is not one of");
  CHECK(vkocc_policy_db_load(write_tmp("in-space.json", "{\"schema\": \"vkocc.policy-db/2\", \"kernels\": {\"k\": {" SPACE
                                       ", \"entries\": [], \"default\": {\"params\": {\"TILE_X\": 16.0, \"wg_size\": 64}}}}}"),
                                &db) == VKOCC_OK, "a default in the space: %s", vkocc_last_error());
  vkocc_policy_db_free(db);
#undef SPACE
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
  CHECK(c.rule == VKOCC_POLICY_CLUSTER && c.entry == 0 && !strcmp(c.params_json, "{\"elements_per_thread\":14,\"wg_size\":512}"),
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
  CHECK(vkocc_policy_select(db, "radix_sort", &amp, small_u32, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_CLUSTER &&
            c.entry == 2, "ampere exact entry %d", c.entry);
  vkocc_policy_choice_free(&c);
  /* unknown architecture: default; a missing variable fails a condition */
  CHECK(vkocc_policy_select(db, "radix_sort", &rdna, small_u32, 2, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_DEFAULT,
        "rdna -> default");
  vkocc_policy_choice_free(&c);
  CHECK_CONTAINS(c.note, "no entry for cluster");
  CHECK_CONTAINS(c.note, "no cluster within 0.020");
  vkocc_policy_choice_free(&c);
  /* no variables: the cluster rule still applies, the largest bucket, and the note names both variables with
   * what the database has */
  CHECK(vkocc_policy_select(db, "radix_sort", &h114, NULL, 0, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_CLUSTER &&
            c.entry == 1, "no variables -> cluster entry 1: rule %d entry %d", c.rule, c.entry);
  CHECK_CONTAINS(c.note, "no problem_size given (the database has 0..1M, 1048577..): the entry for 1048577.., the largest bucket");
  CHECK_CONTAINS(c.note, "no element_type given (the database has u32, f32)");
  vkocc_policy_choice_free(&c);
  /* only the element type: the cluster rule, the largest bucket */
  vkocc_policy_var only_u32[] = {{"element_type", "u32"}};
  CHECK(vkocc_policy_select(db, "radix_sort", &h114, only_u32, 1, 0, &c) == VKOCC_OK && c.rule == VKOCC_POLICY_CLUSTER &&
            c.entry == 1, "element_type only -> cluster entry 1: rule %d entry %d", c.rule, c.entry);
  CHECK(strstr(c.note, "element_type given") == NULL, "a given variable is not named as missing: %s", c.note);
  vkocc_policy_choice_free(&c);
  /* a given value that no entry of the cluster takes is named with what the database has */
  CHECK(vkocc_policy_select(db, "radix_sort", &h114, big_u64, 2, 0, &c) == VKOCC_OK, "u64");
  CHECK_CONTAINS(c.note, "no entry for element_type=u64 for cluster c1-dace7ddcd2e0 (the database has u32, f32)");
  vkocc_policy_choice_free(&c);
  /* the old name of the cluster rule still compiles and means the same */
  CHECK(VKOCC_POLICY_EXACT == VKOCC_POLICY_CLUSTER && !strcmp(vkocc_policy_rule_name(VKOCC_POLICY_CLUSTER), "cluster"),
        "VKOCC_POLICY_EXACT is VKOCC_POLICY_CLUSTER");
  /* one call from a fingerprint: without details no device rule */
  CHECK(vkocc_policy_select_fingerprint(db, "radix_sort", &h114, NULL, small_u32, 2, 0, &c) == VKOCC_OK &&
            c.rule == VKOCC_POLICY_CLUSTER && c.entry == 0, "select_fingerprint without details: rule %d", c.rule);
  vkocc_policy_choice_free(&c);
  /* unknown kernel */
  CHECK(vkocc_policy_select(db, "fft", &h114, NULL, 0, 0, &c) == VKOCC_ERROR_USAGE, "unknown kernel");
  CHECK_CONTAINS(vkocc_last_error(), "no kernel 'fft'");
  vkocc_policy_db_free(db);
  /* buckets with gaps: a size outside every bucket takes the nearest; a device entry applies with only some
   * variables given, through vkocc_policy_select_fingerprint and the details of a fingerprint file */
  vkocc_fingerprint_details det;
  vkocc_fingerprint fpf;
  bool has_dev;
  snprintf(path, sizeof path, "%s/fp-hopper-132.json", argv[1]);
  CHECK(vkocc_fingerprint_load_details(path, &fpf, &det, &has_dev) == VKOCC_OK && has_dev, "load details: %s",
        vkocc_last_error());
  CHECK(!strcmp(det.device.name, "hopper (132 SMs)") && det.derived.sm_count == 0, "details: '%s', %u SMs",
        det.device.name, det.derived.sm_count);
  char key[640], text[4096];
  vkocc_device_key(&det.device, det.derived.sm_count, key, sizeof key);
  snprintf(text, sizeof text, "{\"schema\": \"vkocc.policy-db/2\", \"kernels\": {\"k\": {\"default\": {\"params\": "
           "{\"x\": 0}}, \"entries\": ["
           "{\"cluster\": \"%s\", \"device\": \"%s\", \"when\": {\"problem_size\": {\"min\": 1000, \"max\": 2000}, "
           "\"element_type\": \"u32\"}, \"params\": {\"x\": 1}},"
           "{\"cluster\": \"%s\", \"device\": \"%s\", \"when\": {\"problem_size\": {\"min\": 1000000, \"max\": 2000000}, "
           "\"element_type\": \"u32\"}, \"params\": {\"x\": 2}}]}}}", fpf.cluster_id, key, fpf.cluster_id, key);
  CHECK(vkocc_policy_db_load(write_tmp("gaps.json", text), &db) == VKOCC_OK, "gaps load: %s", vkocc_last_error());
  vkocc_policy_var far[] = {{"problem_size", "1000000000"}}, near_small[] = {{"problem_size", "3000"}};
  if (db) {
    CHECK(vkocc_policy_select_fingerprint(db, "k", &fpf, &det, far, 1, 0, &c) == VKOCC_OK &&
              c.rule == VKOCC_POLICY_DEVICE && !strcmp(c.params_json, "{\"x\":2}"),
          "1e9 -> the device's largest bucket: rule %d %s", c.rule, c.params_json);
    CHECK_CONTAINS(c.note, "no bucket holds the given problem_size");
    CHECK_CONTAINS(c.note, "no element_type given (the database has u32)");
    vkocc_policy_choice_free(&c);
    CHECK(vkocc_policy_select_fingerprint(db, "k", &fpf, &det, near_small, 1, 0, &c) == VKOCC_OK &&
              c.rule == VKOCC_POLICY_DEVICE && !strcmp(c.params_json, "{\"x\":1}"),
          "3000 -> the nearer bucket 1000..2000: rule %d %s", c.rule, c.params_json);
    vkocc_policy_choice_free(&c);
    /* without the details: no device rule, and the note says why the default */
    CHECK(vkocc_policy_select_fingerprint(db, "k", &fpf, NULL, far, 1, 0, &c) == VKOCC_OK &&
              c.rule == VKOCC_POLICY_DEFAULT, "no details -> default: rule %d", c.rule);
    CHECK_CONTAINS(c.note, "no entry for cluster");
    vkocc_policy_choice_free(&c);
    vkocc_policy_db_free(db);
  }
  vkocc_fingerprint_details_free(&det);
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
