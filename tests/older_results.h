/* The older results document of a shipped kernel (vkocc.tune-results/1 without a kind), as vkocc wrote it before
 * the shipped kernels wrote the results document of any T1 spec: the tests' way to make one for the importer
 * (io/tune_results.c reads it into the same tune_doc). Nothing in vkocc writes it any more. */
#ifndef VKOCC_TEST_OLDER_RESULTS_H
#define VKOCC_TEST_OLDER_RESULTS_H
#include "tune_results.h"
#include "io.h"
#include <math.h>

static json_t *older_num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* d's results (measured ones) as the older document, with its space's total and what the device pruned */
static json_t *older_results_json(const tune_doc *d, uint32_t space_total, uint32_t pruned) {
  json_t *doc = vkocc_doc_new(VKOCC_DOC_TUNE_RESULTS);
  json_object_set_new(doc, "kernel", json_string(d->k->name));
  json_object_set_new(doc, "element_type", json_string(d->f32 ? "f32" : "u32"));
  json_object_set_new(doc, "problem_size", json_integer((json_int_t)d->n));
  json_object_set_new(doc, "tolerance", json_string(d->k->tolerance));
  json_t *dev = io_device_identity_json(&d->dev.id);
  json_object_set_new(dev, "queue_family", tune_device_queue_json(&d->dev));
  json_object_set_new(doc, "device", dev);
  json_object_set_new(doc, "cluster_id", json_string(d->dev.cluster_id));
  if (d->dev.has_fp) json_object_set_new(doc, "fingerprint", io_fingerprint_json(&d->dev.fp));
  json_object_set_new(doc, "space", json_pack("{s:I, s:I, s:I, s:s, s:I}", "total", (json_int_t)space_total, "filtered_out",
                                              (json_int_t)0, "pruned", (json_int_t)pruned, "pruned_by", "",
                                              "runnable", (json_int_t)d->count));
  json_object_set_new(doc, "measurement", json_pack("{s:s, s:f, s:f}", "date", "2026-01-01T00:00:00Z", "pipelines_ms", 1.0,
                                                    "measure_ms", 1.0));
  json_t *res = json_array();
  for (uint32_t i = 0; i < d->count; i++) {
    const tune_result *r = &d->r[i];
    if (!r->measured) continue;
    json_t *o = json_pack("{s:o, s:b, s:o, s:o, s:o, s:o, s:I}", "config", tune_config_json(d->k, &r->cfg), "valid", r->valid,
                          "median_ns", older_num(r->runs ? r->median_ns : NAN), "spread", older_num(r->runs ? r->spread : NAN),
                          "min_ns", older_num(r->runs ? r->min_ns : NAN), "max_ns", older_num(r->runs ? r->max_ns : NAN),
                          "runs", (json_int_t)r->runs);
    if (r->error[0]) json_object_set_new(o, "error", json_string(r->error));
    json_array_append_new(res, o);
  }
  json_object_set_new(doc, "results", res);
  return doc;
}
#endif
