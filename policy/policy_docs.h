/* Internal to libvkocc and its CLI: the policy documents made from tuning results (documents in, documents
 * out; policy/tunedb.h has the arithmetic behind them). */
#ifndef VKOCC_POLICY_DOCS_H
#define VKOCC_POLICY_DOCS_H
#include "tune_results.h"

/* build.c: a vkocc.policy-db document from results (any kernels). */
vkocc_status tdb_build(const tune_doc *docs, uint32_t n, json_t **db);
/* transfer.c: the transfer report (vkocc.policy-transfer) over results; threshold: the nearest-cluster
 * limit that the "policy" column applies (0 = VKOCC_CLUSTER_THRESHOLD). */
vkocc_status tdb_transfer(const tune_doc *docs, uint32_t n, double threshold, json_t **report);
/* documents.c: the time that stands for each configuration of d: a fleet's normalized time where it has one, and
 * with use_min the fastest run instead of the median. */
void tdb_statistic(tune_doc *d, bool use_min);
/* A document made (s OK) to path (NULL: nowhere) and its text to *text (NULL: not wanted); doc is released. */
vkocc_status policy_doc_out(vkocc_status s, json_t *doc, const char *path, char **text);
#endif
