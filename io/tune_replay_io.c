/* The replay's report read back from its vkocc.tune-replay/1 document (tune/replay.c writes it): what
 * `vkocc tune --replay` prints and plots, so that the CLI reads no document itself. */
#include "io.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A number of the report; INFINITY where it holds null (beyond the budget). */
static double num(json_t *v) { return json_is_number(v) ? json_number_value(v) : INFINITY; }
static uint32_t u32(json_t *o, const char *key) { return (uint32_t)json_integer_value(json_object_get(o, key)); }

/* The curve whole: the document ends it where every quartile has reached the optimum, the rest is 1. */
static double *curve(json_t *c, uint32_t budget) {
  double *v = util_xmalloc((budget ? budget : 1) * sizeof *v);
  for (uint32_t e = 0; e < budget; e++) v[e] = e < json_array_size(c) ? json_real_value(json_array_get(c, e)) : 1;
  return v;
}

vkocc_status vkocc_tune_replay_report_read(json_t *doc, vkocc_tune_replay_report *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  vkocc_status st = io_doc_check(doc, "the replay's report", VKOCC_DOC_TUNE_REPLAY);
  if (st) return st;
  out->doc = json_incref(doc);
  json_t *runs = json_object_get(doc, "runs");
  out->nfeatures = (uint32_t)json_array_size(json_object_get(doc, "features"));
  out->configurations = u32(doc, "configurations");
  out->valid = u32(doc, "valid");
  out->budget = u32(doc, "budget");
  out->optimum_ns = json_real_value(json_object_get(doc, "optimum_ns"));
  out->space = json_string_value(json_object_get(doc, "space"));
  out->optimum = json_string_value(json_object_get(doc, "optimum"));
  out->fingerprint = json_string_value(json_object_get(doc, "fingerprint"));
  out->feature_note = json_string_value(json_object_get(doc, "feature_note"));
  out->nruns = (uint32_t)json_array_size(runs);
  out->runs = util_xcalloc(out->nruns ? out->nruns : 1, sizeof *out->runs);
  for (uint32_t i = 0; i < out->nruns; i++) {
    vkocc_tune_replay_run *r = &out->runs[i];
    json_t *o = json_array_get(runs, i), *c = json_object_get(o, "curve");
    json_t *e95 = json_object_get(o, "evaluations_to_95"), *at = json_object_get(o, "at_budget");
    r->strategy = json_string_value(json_object_get(o, "strategy"));
    r->occupancy = json_is_true(json_object_get(o, "occupancy"));
    r->budget = u32(o, "budget");
    r->median = curve(json_object_get(c, "median"), r->budget);
    r->q1 = curve(json_object_get(c, "q1"), r->budget);
    r->q3 = curve(json_object_get(c, "q3"), r->budget);
    r->to95[0] = num(json_object_get(e95, "median"));
    r->to95[1] = num(json_object_get(e95, "q1"));
    r->to95[2] = num(json_object_get(e95, "q3"));
    for (uint32_t k = 0; k < VKOCC_TUNE_REPLAY_AT; k++) {
      r->at_evaluations[k] = u32(json_array_get(at, k), "evaluations");
      r->at_median[k] = num(json_object_get(json_array_get(at, k), "median"));
    }
    r->seeds_finding_optimum = u32(o, "seeds_finding_optimum");
  }
  return VKOCC_OK;
}

void vkocc_tune_replay_report_free(vkocc_tune_replay_report *r) {
  if (!r) return;
  for (uint32_t i = 0; i < r->nruns; i++) free(r->runs[i].median), free(r->runs[i].q1), free(r->runs[i].q3);
  free(r->runs);
  json_decref(r->doc);
  memset(r, 0, sizeof *r);
}
