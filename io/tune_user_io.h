/* Internal to libvkocc: the reader of the user's own kernels' tuning results (vkocc.tune-results/1 with
 * "kind": "user", docs/tune.md) that lets policy build/transfer take them next to the shipped kernels'
 * results. Their writers (the document, --resume, T4) are tune/'s: tune/results/user_results.h. */
#ifndef VKOCC_TUNE_USER_IO_H
#define VKOCC_TUNE_USER_IO_H
#include "tune_results.h"

/* For tune_results_load: a "kind": "user" document into a tune_doc (kernel = the results' kernel name). */
vkocc_status tune_results_load_user(json_t *doc, const char *path, tune_doc *out);
/* The kernel definition standing for user kernel `name` in tune_doc (interned: one pointer per name). */
const tune_kernel_def *tune_user_kernel(const char *name);
#endif
