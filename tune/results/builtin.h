/* Internal to libvkocc: the shipped kernels (kernels/) as built-in T1 specs, measured by the one harness
 * (tune/harness/) like any user's kernel, their results written as the results document of any T1 spec
 * (tune/results/user_results.h) with the element type, each configuration named by the parameters its variant takes (as
 * `vkocc policy` reads them, io/tune_results.h) and the constraints the device's limits impose counted by reason. */
#ifndef VKOCC_TUNE_BUILTIN_H
#define VKOCC_TUNE_BUILTIN_H
#include "user.h"
#include "tune_results.h"

typedef struct tu_builtin {
  const tune_kernel_def *k;
  bool f32;
  uint64_t n;
  uint32_t masks[16];        /* per variant: the parameters it takes (from k->space) */
  uint32_t space_total;      /* the configurations of k (its space, before the device's constraints) */
  uint32_t pruned;           /* left out by the device's constraints */
  char prune_note[512];      /* how many per reason */
} tu_builtin;

/* The device's limits as built-in specs' conditions name them (texpr_device_names' order). */
void tu_device_limits(vkocc_context *ctx, int64_t out[TEXPR_NDEVICE]);
/* run: k's built-in spec at n elements (f32 or u32) for a device of these limits, its space enumerated (tu_begin).
 * b is filled and must outlive run (the spec's data hooks read it). USAGE when no configuration can run. */
vkocc_status tu_builtin_prepare(tu_builtin *b, const tune_kernel_def *k, uint64_t n, bool f32,
                                const int64_t device[TEXPR_NDEVICE], const char *device_name, tu_run *run);
/* The same on ctx's device, after checking that n elements fit its buffers and memory (USAGE naming the limit). */
vkocc_status tu_builtin_open(tu_builtin *b, vkocc_context *ctx, const tune_kernel_def *k, uint64_t n, bool f32,
                             tu_run *run);
/* --only NAME=V1,V2 as the shipped kernels take it: a configuration whose variant does not take NAME stays. */
vkocc_status tu_builtin_restrict(const tu_builtin *b, tu_run *run, const char *only);
/* Configuration i of run (an index of its space) as a results document holds it. */
void tu_builtin_result(const tu_builtin *b, const tu_run *run, uint32_t i, tune_result *out);
/* The results of prev (an older document of k's, at b's type and size, prev->imported) taken into run as measured;
 * how many. They carry no times_ns: their medians stand. */
uint32_t tu_builtin_resume(const tu_builtin *b, tu_run *run, const tune_doc *prev);
/* --resume from k's results document at path (tune_results_load read it): its configurations in the spec's form,
 * then tu_results_resume's checks (the same spec: type and size; the same device). */
vkocc_status tu_builtin_resume_file(const tu_builtin *b, tu_run *run, const char *path, const char *device_key);
/* The workgroup count of each configuration of k at n elements (0 for one the built-in spec does not hold), from
 * its GlobalSize: for a replay's features, no device needed. */
void tu_builtin_groups(const tune_kernel_def *k, bool f32, uint64_t n, const tune_config *cfg, uint32_t count,
                       uint32_t *groups);
/* The results document of run (tu_results_json's, with element_type, tolerance, what the device ruled out, and
 * each configuration named by the parameters of its variant). */
json_t *tu_builtin_results_json(const tu_builtin *b, const tu_run *run, const tune_device_id *dev, const char *date);
#endif
