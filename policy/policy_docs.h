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
#endif
