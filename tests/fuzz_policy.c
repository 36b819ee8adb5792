/* Fuzz target for the policy database reader (vkocc_policy_db_load), then what `vkocc policy` runs on a
 * database it accepted: selection for each of its kernels (and an unknown one), with no fingerprint,
 * with reference fingerprints (exact and nearest matches), and with the variables its conditions name. */
#include "fuzz_util.h"
#include "model.h"
#include <jansson.h>

#define MAX_VARS 8

/* Values that make the database's own conditions hold (or reach their comparisons). */
static uint32_t collect_vars(json_t *doc, vkocc_policy_var *vars, char val[][64]) {
  uint32_t n = 0;
  const char *kname, *var;
  json_t *k, *cond;
  json_object_foreach(json_object_get(doc, "kernels"), kname, k) {
    json_t *entries = json_object_get(k, "entries");
    for (size_t i = 0; i < json_array_size(entries); i++) {
      json_object_foreach(json_object_get(json_array_get(entries, i), "when"), var, cond) {
        if (n == MAX_VARS) return n;
        json_t *v = json_is_object(cond) ? json_object_get(cond, "min") : cond;
        if (json_is_object(cond) && !v) v = json_array_get(json_object_get(cond, "in"), 0);
        if (json_is_string(v)) snprintf(val[n], 64, "%s", json_string_value(v));
        else if (json_is_number(v)) snprintf(val[n], 64, "%.17g", json_number_value(v));
        else if (json_is_boolean(v)) snprintf(val[n], 64, "%s", json_is_true(v) ? "true" : "false");
        else snprintf(val[n], 64, "1");
        vars[n] = (vkocc_policy_var){var, val[n]};
        n++;
      }
    }
  }
  return n;
}

/* the device's own cluster: its ID by the recipe it was measured with, by the other recipe, or (a database of
 * before the signature) by c1 */
static bool own_id(const vkocc_fingerprint *fp, const char *id) {
  char other[24], c1[24];
  fingerprint_cluster_id_other(fp, other);
  fingerprint_cluster_id_c1(fp, c1);
  return !strcmp(id, fp->cluster_id) || !strcmp(id, other) || !strcmp(id, c1);
}

static void check_select(const vkocc_policy_db *db, const char *kernel, const vkocc_fingerprint *fp,
                         const vkocc_policy_var *vars, uint32_t nvars, double threshold) {
  vkocc_policy_choice c;
  vkocc_status s = vkocc_policy_select(db, kernel, fp, vars, nvars, threshold, &c);
  fuzz_check_status(s, VKOCC_ERROR_RUNTIME); /* RUNTIME: nothing matches and no default */
  if (s) { FUZZ_CHECK(c.params_json == NULL); return; }
  FUZZ_CHECK(c.params_json && c.params_json[0] == '{');
  double t = threshold > 0 ? threshold : VKOCC_CLUSTER_THRESHOLD;
  switch (c.rule) {
  case VKOCC_POLICY_CLUSTER: FUZZ_CHECK(fp && own_id(fp, c.cluster_id) && c.entry >= 0); break;
  case VKOCC_POLICY_NEAREST: FUZZ_CHECK(fp && c.entry >= 0 && c.distance >= 0 && c.distance <= t); break;
  case VKOCC_POLICY_DEFAULT: FUZZ_CHECK(c.entry == -1); break;
  default: FUZZ_CHECK(!"unknown rule");
  }
  vkocc_policy_choice_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static vkocc_fingerprint ref[3];
  static bool have_ref;
  if (!have_ref) {
    fuzz_reference("fp-hopper-132.json", &ref[0]);
    fuzz_reference("fp-hopper-114.json", &ref[1]);
    fuzz_reference("fp-rdna-40.json", &ref[2]);
    have_ref = true;
  }
  vkocc_policy_db *db;
  vkocc_status s = vkocc_policy_db_load(fuzz_file(data, size), &db);
  fuzz_check_status(s, 0);
  if (s) { FUZZ_CHECK(db == NULL); return 0; }
  fuzz_accepted++;
  /* the kernels and condition variables, from the same bytes the database accepted */
  json_t *doc = json_loadb((const char *)data, size, 0, NULL);
  FUZZ_CHECK(doc);
  vkocc_policy_var vars[MAX_VARS];
  char val[MAX_VARS][64];
  uint32_t nvars = collect_vars(doc, vars, val);
  const char *kname;
  json_t *k;
  int nk = 0;
  json_object_foreach(json_object_get(doc, "kernels"), kname, k) {
    if (nk++ == 8) break;
    check_select(db, kname, NULL, NULL, 0, 0);
    for (int i = 0; i < 3; i++) {
      check_select(db, kname, &ref[i], NULL, 0, 0);
      check_select(db, kname, &ref[i], vars, nvars, 0);
      check_select(db, kname, &ref[i], vars, nvars, 0.5);
    }
  }
  vkocc_policy_choice c;
  FUZZ_CHECK(vkocc_policy_select(db, "no such kernel \x01", &ref[0], NULL, 0, 0, &c) == VKOCC_ERROR_USAGE);
  json_decref(doc);
  vkocc_policy_db_free(db);
  return 0;
}
