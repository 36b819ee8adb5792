/* Internal to libvkocc: policy databases from tuning results (build.c) and the transfer report
 * (transfer.c), over vkocc.tune-results/1 documents (io/tune_results.h). */
#ifndef VKOCC_TUNEDB_H
#define VKOCC_TUNEDB_H
#include "tune_results.h"
#include "policy_docs.h"

/* The time of configuration `key` on d: its median when measured and valid, else NAN. */
double tdb_time(const tune_doc *d, const char *key);
/* The best valid time of d (NAN when none). */
double tdb_best(const tune_doc *d, int *index);
/* efficiency = best time / time of key (0 when key is invalid or unmeasured there) */
double tdb_efficiency(const tune_doc *d, const char *key);

typedef enum { TDB_GEOMEAN, TDB_MAXMIN } tdb_rule;
/* The configuration for a set of results (same kernel and type): GEOMEAN maximizes the geometric mean of
 * the efficiencies (one invalid on a result counts 1e-9 there, so it wins only when none is valid everywhere),
 * MAXMIN the worst efficiency, ties by the geometric mean. Copies the chosen configuration's key into out;
 * false when no configuration is valid anywhere. *worst, *geo: its efficiencies. */
bool tdb_pick(const tune_doc *const *docs, uint32_t n, tdb_rule rule, char *out, size_t len, double *worst, double *geo);

#endif
