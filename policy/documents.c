/* Tuning results into policy documents through the public API: results files in, a policy database or a
 * transfer report out (written where asked, and as text), each configuration standing for itself by its
 * median or its fastest run (a fleet's: normalized to its base device). */
#include "policy_docs.h"
#include "jsonio.h"
#include <stdlib.h>
#include <string.h>

typedef vkocc_status (*doc_fn)(const tune_doc *docs, uint32_t n, double threshold, json_t **out);

static vkocc_status build_fn(const tune_doc *docs, uint32_t n, double threshold, json_t **out) {
  (void)threshold;
  return tdb_build(docs, n, out);
}

static vkocc_status from_results(const char *const *results, uint32_t n, bool use_min, double threshold, doc_fn fn,
                                 const char *path, char **text) {
  vkocc_clear_error();
  if (text) *text = NULL;
  if (!n) return vkocc_fail(VKOCC_ERROR_USAGE, "no tuning results given (vkocc tune -o)");
  tune_doc *docs = util_xcalloc(n, sizeof *docs);
  uint32_t loaded = 0;
  vkocc_status s = VKOCC_OK;
  for (; loaded < n && !s; loaded++) {
    if ((s = tune_results_load(results[loaded], NULL, &docs[loaded]))) break;
    tdb_statistic(&docs[loaded], use_min);
  }
  json_t *doc = NULL;
  if (!s) s = fn(docs, n, threshold, &doc);
  for (uint32_t j = 0; j < loaded; j++) tune_doc_free(&docs[j]);
  free(docs);
  return policy_doc_out(s, doc, path, text);
}

void tdb_statistic(tune_doc *d, bool use_min) {
  /* A fleet's shared search timed configurations on boards of other speeds: its document stands for its base
   * device, so each result counts by its time in that device's speed, as the search ranked it (raw where no
   * factor applied: there normalized_ns is the median) */
  for (uint32_t j = 0; j < d->count; j++) {
    tune_result *r = &d->r[j];
    if (!(r->normalized_ns > 0 && r->median_ns > 0)) continue;
    double scale = r->normalized_ns / r->median_ns;
    r->median_ns = r->normalized_ns, r->min_ns *= scale, r->max_ns *= scale;
  }
  if (use_min) /* the fastest run: robust to other work on a loaded host, which only ever adds time */
    for (uint32_t j = 0; j < d->count; j++)
      if (d->r[j].min_ns > 0) d->r[j].median_ns = d->r[j].min_ns;
}

vkocc_status policy_doc_out(vkocc_status s, json_t *doc, const char *path, char **text) {
  if (!s && path) s = util_json_write(doc, path);
  if (!s && text) *text = util_json_text(doc);
  json_decref(doc);
  return s;
}

vkocc_status vkocc_policy_build(const char *const *results, uint32_t n, bool use_min, const char *path, char **json) {
  return from_results(results, n, use_min, 0, build_fn, path, json);
}

vkocc_status vkocc_policy_transfer(const char *const *results, uint32_t n, bool use_min, double threshold,
                                   const char *path, char **json) {
  return from_results(results, n, use_min, threshold, tdb_transfer, path, json);
}
