/* Internal to libvkocc (and the CLI's tune --spec): the results of a user kernel's tuning run as documents
 * (tune/results/user_results.c): vkocc.tune-results/1 with "kind": "user" (docs/tune.md), --resume from one, and
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
/* One recorded result as a reader found it, whatever its source: an entry of a results document (--resume), a T4
 * record (--replay) or a record of a fleet's journal (--resume after a kill). Each reader takes a record only when
 * tu_record_check finds nothing wrong with it, so a forged number is refused the same way in all three. */
typedef struct tu_record {
  int64_t config;          /* its index in the space; -1: not a configuration of the space */
  bool empty;              /* the record names no parameter at all */
  bool valid;              /* a correct result, ranked by its time */
  const double *times;     /* its times, ntimes of them, in the unit of time */
  uint32_t ntimes;
  double time;             /* the time it is ranked by; NAN: none recorded (then the median of times) */
  bool time_is_median;     /* the time must be the median of times (vkocc's records; T4's objective may be a mean) */
  const char *times_name, *time_name; /* how the record names them, for the message ("'times_ns'") */
} tu_record;
/* true when the record may be taken; then first[config] = at. Else false and why (one phrase). first: one entry
 * per configuration of the space, -1 at first; seen_fmt names an earlier entry from its `at` ("$.results[%lld]"). */
bool tu_record_check(const tu_record *r, int64_t *first, int64_t at, const char *seen_fmt, char *why, size_t len);
/* T4: {"schema_version": "1.0.0", "results": [...]} and the metadata document. */
json_t *tu_t4_results(const tu_run *run);
json_t *tu_t4_metadata(const tu_run *run, const tune_device_id *dev);
#endif
