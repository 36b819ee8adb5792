/* Internal to libvkocc: a T1 output validated on the device (core/gpucheck.h) exactly as the CPU harness's
 * compare() judges it: the same choice of exact or tolerance compare, the same rule, the same message. */
#ifndef VKOCC_TUNE_GPU_VALIDATE_H
#define VKOCC_TUNE_GPU_VALIDATE_H
#include "gpucheck.h"
#include "t1.h"

/* The compare of argument a (ref: its ReferenceArguments entry, NULL: exact for integers, side by side at 0 for
 * floats): exact (bitwise) for custom types and for integers and bools at threshold 0 outside AbsoluteDifference,
 * else ABS / REL / SUM in double. Custom types compare byte by byte (count = bytes). */
void tu_gpu_compare_desc(const t1_arg *a, const t1_ref *ref, const core_buffer *actual, const core_buffer *expected,
                         core_compare_desc *d);
/* compare()'s message for a failed result: "NAME[K] = X, expected Y" (exact), "NAME[K] = X, expected Y (relative
 * | side by side, threshold T)", "NAME: the absolute differences sum to S, threshold T". Empty when r passed. */
void tu_gpu_compare_why(const t1_arg *a, const t1_ref *ref, const core_compare_result *r, char *why, size_t len);
/* True when an output whose bytes equal the expected ones passes a's compare without looking at its elements: every
 * compare passes equal bytes (a NaN beside the same NaN included) but where an expected element is infinite (inf - inf
 * is NaN, judged a difference) or the threshold is negative or NaN. The host's shortcut past the element-by-element
 * loop (16 Mi equal floats: 22-27 ms against its 130-134 ms); false sends the caller to that loop, whose verdict
 * stands. */
bool tu_host_bytes_pass(const t1_arg *a, const t1_ref *ref, const void *out, const void *expect);
#endif
