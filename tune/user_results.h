/* Internal to libvkocc (and the CLI's tune --spec): the results of a user kernel's tuning run as documents
 * (tune/user_results.c): vkocc.tune-results/1 with "kind": "user" (docs/tune.md), --resume from one, and
 * the T4 form (Kernel Tuner / KTT's results and metadata schemas). */
#ifndef VKOCC_TUNE_USER_RESULTS_H
#define VKOCC_TUNE_USER_RESULTS_H
#include "user.h"
#include "tune_results.h"

json_t *tu_results_json(const tu_run *run, const tune_device_id *dev, const char *date);
/* --resume: the measured configurations of path (same spec hash, same device key) copied into run. USAGE
 * naming the file and JSON path when it is not a results document of this spec or device. */
vkocc_status tu_results_resume(const char *path, tu_run *run, const char *device_key);
/* The same from a document read already (a shipped kernel's, its configurations put back in the spec's form). */
vkocc_status tu_results_resume_doc(json_t *doc, const char *path, tu_run *run, const char *device_key);
/* T4: {"schema_version": "1.0.0", "results": [...]} and the metadata document. */
json_t *tu_t4_results(const tu_run *run);
json_t *tu_t4_metadata(const tu_run *run, const tune_device_id *dev);
#endif
