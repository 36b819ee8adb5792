/* Internal to libvkocc: tuning results of the user's own kernels (vkocc.tune-results/1 with "kind": "user",
 * docs/tune.md), their T4 form (Kernel Tuner / KTT's results and metadata schemas), and the reader that
 * lets policy build/transfer take them next to the shipped kernels' results. */
#ifndef VKOCC_TUNE_USER_IO_H
#define VKOCC_TUNE_USER_IO_H
#include "../tune/user.h"
#include "tune_results.h"

json_t *tu_results_json(const tu_run *run, const tune_device_id *dev, const char *date);
/* --resume: the measured configurations of path (same spec hash, same device key) copied into run. USAGE
 * naming the file and JSON path when it is not a results document of this spec or device. */
vkocc_status tu_results_resume(const char *path, tu_run *run, const char *device_key);
/* T4: {"schema_version": "1.0.0", "results": [...]} and the metadata document. */
json_t *tu_t4_results(const tu_run *run);
json_t *tu_t4_metadata(const tu_run *run, const tune_device_id *dev);
/* For tune_results_load: a "kind": "user" document into a tune_doc (kernel = the results' kernel name). */
vkocc_status tune_results_load_user(json_t *doc, const char *path, tune_doc *out);
/* The kernel definition standing for user kernel `name` in tune_doc (interned: one pointer per name). */
const tune_kernel_def *tune_user_kernel(const char *name);
#endif
