/* Fuzz target for tuning results (io/tune_results.c: `vkocc policy build|transfer`, `tune --resume`), then
 * what policy build runs on an accepted document: the database (one document, and the same one twice,
 * which must be refused), both picking rules, and the transfer report. Invariants: a refusal is a usage error
 * with a message; an accepted document holds each configuration once, in range, with positive times where
 * valid. */
#include "fuzz_util.h"
#include "tunedb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tune_doc d;
  vkocc_status s = tune_results_load(fuzz_file(data, size), NULL, &d);
  fuzz_check_status(s, 0);
  if (s) return 0;
  fuzz_accepted++;
  FUZZ_CHECK(d.k && d.n >= 1);
  for (uint32_t i = 0; i < d.count; i++) {
    const tune_result *r = &d.r[i];
    FUZZ_CHECK(r->measured && r->key[0]);
    if (r->valid) FUZZ_CHECK(r->median_ns > 0);
    for (uint32_t p = 1; p < d.k->nparams; p++)
      if ((r->cfg.mask >> p & 1) && !d.k->params[p].names) FUZZ_CHECK(r->cfg.v[p] >= 1);
  }
  for (uint32_t i = 1; i < d.count && i < 64; i++)
    for (uint32_t j = 0; j < i; j++) FUZZ_CHECK(strcmp(d.r[i].key, d.r[j].key));
  json_t *db = NULL;
  s = tdb_build(&d, 1, &db);
  fuzz_check_status(s, 0);
  if (!s) {
    FUZZ_CHECK(json_is_object(json_object_get(json_object_get(db, "kernels"), d.k->name)));
    json_decref(db);
    /* the same results twice: one device, one size, given twice */
    tune_doc two[2] = {d, d};
    db = NULL;
    FUZZ_CHECK(tdb_build(two, 2, &db) == VKOCC_ERROR_USAGE && !db);
  }
  const tune_doc *set[1] = {&d};
  char key[256];
  double worst, geo;
  if (tdb_pick(set, 1, TDB_MAXMIN, key, sizeof key, &worst, &geo)) FUZZ_CHECK(worst > 0 && worst <= 1 + 1e-9);
  if (tdb_pick(set, 1, TDB_GEOMEAN, key, sizeof key, &worst, &geo)) FUZZ_CHECK(geo > 0 && geo <= 1 + 1e-9);
  json_t *rep = NULL;
  if (tdb_transfer(&d, 1, 0, &rep) == VKOCC_OK) json_decref(rep);
  vkocc_clear_error();
  tune_doc_free(&d);
  return 0;
}
