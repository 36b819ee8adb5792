/* Internal to libvkocc: the executor's services for a tuning harness that keeps its work on the device.
 *
 *   validation on the device (core/compare.c)   an output compared with its expected values by a compare
 *                                               dispatch; only a mismatch count, the first bad index and the
 *                                               two values there come back
 *   restore by device copies (core/restore.c)   pristine device copies of the inputs a kernel writes, copied
 *                                               back with vkCmdCopyBuffer before each timed dispatch
 *   clock evidence (core/clockprobe.c)          a one-invocation probe beside a timed batch reads the SM clock
 *                                               (clockARB ticks per clockRealtimeEXT tick); the rule that
 *                                               judges the readings is pure logic (tune/harness/clock_rule.h)
 *
 * Each records into an open core_batch (core/exec.h) and reads its answer after core_batch_wait; buffers
 * the caller passes stay the caller's and must outlive every batch that uses them.
 *
 *     core_compare cmp;                     once per output and run: its descriptor set points at the buffers
 *     core_compare_desc d = {.actual = &out, .expected = &want, .count = n, .elem = VKOCC_ELEM_F32,
 *                             .mode = VKOCC_CMP_ABS, .threshold = 1e-4};
 *     if ((s = core_compare_create(ctx, &d, &cmp))) return s;   UNSUPPORTED: keep the CPU compare
 *     core_batch_begin(b); core_batch_restore(b, &rs); ...dispatch...; core_compare_record(b, &cmp);
 *     core_batch_run(b, 0, "validation");
 *     core_compare_result res; core_compare_read(&cmp, &res);   res.pass, res.mismatches, res.first ... */
#ifndef VKOCC_GPUCHECK_H
#define VKOCC_GPUCHECK_H
#include "exec.h"

/* ------------------------------------------------------------------ validation on the device */

/* Element types, each one scalar component (a float4 output is 4 x F32). BOOL32: 4 bytes, its value x != 0. */
typedef enum { VKOCC_ELEM_U8, VKOCC_ELEM_I8, VKOCC_ELEM_U16, VKOCC_ELEM_I16, VKOCC_ELEM_U32, VKOCC_ELEM_I32,
               VKOCC_ELEM_U64, VKOCC_ELEM_I64, VKOCC_ELEM_F32, VKOCC_ELEM_F64, VKOCC_ELEM_BOOL32 } core_elem;
/* Bytes of one element of t. */
uint32_t core_elem_bytes(core_elem t);

typedef enum {
  VKOCC_CMP_EXACT, /* the elements' bits differ (integers, bools and custom types at threshold 0) */
  VKOCC_CMP_ABS,   /* per element: |x - y| <= threshold (T1 SideBySideComparison) */
  VKOCC_CMP_REL,   /* per element: |x - y| <= threshold * |y|, threshold where y == 0 (SideBySideRelativeComparison) */
  VKOCC_CMP_SUM,   /* the sum of |x - y| <= threshold (AbsoluteDifference) */
} core_cmp_mode;
/* Every mode but exact compares in double with the CPU harness's rule for NaN and infinity: d is infinite when
 * exactly one of x, y is NaN or either is infinite, 0 when both are NaN, else |x - y|; an element is bad when
 * !(d <= lim) (so REL with y NaN is bad even against NaN, as on the CPU). SUM adds the differences per
 * workgroup and the partials in workgroup order: its last bits may differ from a sequential sum. */

typedef struct core_compare_desc {
  const core_buffer *actual, *expected; /* device buffers of at least count elements (the caller's) */
  uint64_t count;                        /* elements; below 2^32 */
  core_elem elem;
  core_cmp_mode mode;
  double threshold;
} core_compare_desc;

typedef struct core_compare {
  core_compare_desc d;
  core_kernel k;
  core_buffer result;                   /* device-local: counters and per-workgroup sums */
  core_buffer host;                     /* host-visible: the 64 bytes that come back */
  uint32_t groups;
} core_compare;

/* Builds the compare pipeline for d (its descriptor set points at d's buffers). VKOCC_ERROR_USAGE for a count
 * of 0 or from 2^32 on, or buffers smaller than count elements; VKOCC_ERROR_UNSUPPORTED when a mode other than
 * exact needs shaderFloat64 and shaderInt64 and the device (or an external context) lacks them. */
vkocc_status core_compare_create(vkocc_context *ctx, const core_compare_desc *d, core_compare *c);
/* Records into an open batch, after the commands that wrote actual: a barrier, the result's reset, the compare
 * dispatch, a one-workgroup dispatch that reads the values at the first bad index, the copy to the host. Binds
 * its own pipeline: bind yours again before a later dispatch. */
void core_compare_record(core_batch *b, core_compare *c);

typedef struct core_compare_result {
  bool pass;
  uint64_t mismatches;       /* bad elements (SUM: elements whose difference is not 0) */
  uint64_t first;            /* the first of them; UINT64_MAX: none */
  double got, want;          /* their values there as doubles (BOOL32: x != 0); NAN when none */
  uint64_t got_bits, want_bits; /* the raw bits there */
  double sum;                /* SUM: the sum of the differences (INFINITY where one was infinite) */
} core_compare_result;
/* After the batch's wait. */
void core_compare_read(const core_compare *c, core_compare_result *out);
void core_compare_destroy(vkocc_context *ctx, core_compare *c);
/* The value of element i of raw data as a double, the way the CPU harness reads it (BOOL32: x != 0). */
double core_elem_value(const void *data, uint64_t i, core_elem t);

/* ------------------------------------------------------------------ restore by device copies */

typedef struct core_restore_pair {
  core_buffer pristine;         /* device-local, the restore's own */
  const core_buffer *target;    /* the caller's */
  VkDeviceSize bytes;
} core_restore_pair;
typedef struct core_restore {
  core_restore_pair *pairs;
  uint32_t n;
} core_restore;

/* Adds target to r: a device-local pristine copy of its first bytes, uploaded once from host_data (NULL: copied
 * on the device from target as it is now, one submission). VKOCC_ERROR_USAGE when bytes is 0, not a multiple of
 * 4 or beyond target; allocation errors as core_buffer_create. */
vkocc_status core_restore_add(vkocc_context *ctx, core_restore *r, const core_buffer *target, const void *host_data,
                               VkDeviceSize bytes);
/* Records: earlier reads and writes before the copies, one vkCmdCopyBuffer per pair, the copies before shader access.
 * Nothing when r holds no pair. */
void core_batch_restore(core_batch *b, const core_restore *r);
void core_restore_free(vkocc_context *ctx, core_restore *r);
/* The storage-buffer bindings of `set` that the module may write: bit b for binding b (< 64) whose variable, or
 * every member of whose block, is not NonWritable. All ones for a module that cannot be read. Only these need
 * restoring between runs. */
uint64_t core_spirv_written_bindings(const uint32_t *spv, size_t words, uint32_t set);

/* A copy of a buffer's first bytes into another's by a compute dispatch (shaders/copy.comp, 16 bytes per invocation
 * and step; a tail under 16 bytes by vkCmdCopyBuffer): on an H100 vkCmdCopyBuffer moved 256 MiB in 0.64 ms, about a
 * third of what a shader streams. Not the tuning harness's restore by default: a SAXPY timed after it ran 0.5%
 * slower than after vkCmdCopyBuffer (docs/results/h100/tune-speed/after3). The buffers are the caller's and must
 * outlive it. */
typedef struct core_copy {
  core_kernel k;
  const core_buffer *src, *dst;
  VkDeviceSize bytes;
  uint32_t words, groups;        /* 16-byte words by the dispatch, its workgroups */
} core_copy;
/* VKOCC_ERROR_USAGE when bytes is 0, not a multiple of 4, beyond either buffer, or 2^36 or more. */
vkocc_status core_copy_create(vkocc_context *ctx, const core_buffer *src, const core_buffer *dst, VkDeviceSize bytes,
                               core_copy *c);
/* Records the copy (no barriers: the caller's, as around core_batch_copy, with compute as well as transfer
 * stages: VKOCC_SYNC_ALL before and after). Binds its own pipeline: bind yours again before a later dispatch. */
void core_copy_record(core_batch *b, const core_copy *c);
void core_copy_destroy(vkocc_context *ctx, core_copy *c);

/* ------------------------------------------------------------------ clock evidence */

typedef struct core_clock_probe {
  core_kernel k;
  core_buffer out;              /* host-visible: 4 words per slot */
  uint32_t slots;
  uint32_t rounds;               /* the spin's length, rounds of 256 dependent steps */
  uint32_t *stamps, next_stamp;  /* per slot: the stamp of its last recorded probe (0: none) */
} core_clock_probe;
/* A probe with `slots` readings per batch. VKOCC_ERROR_UNSUPPORTED without both the device (realtime) and the
 * subgroup clock. */
vkocc_status core_clock_probe_create(vkocc_context *ctx, uint32_t slots, core_clock_probe *p);
/* Records one probe dispatch (one invocation: a short dependent spin read with both clocks) into slot, with the
 * barriers that keep it after what came before and before what follows. Binds its own pipeline. */
void core_clock_probe_record(core_batch *b, core_clock_probe *p, uint32_t slot);
/* After the wait: subgroup-clock ticks per realtime tick over the spin of the slot's last recorded probe (the SM
 * clock in GHz where the realtime clock ticks in ns, as on NVIDIA); 0 when that probe has not run (its batch was
 * not submitted or waited for), none was recorded, or a clock stood still. */
double core_clock_probe_read(const core_clock_probe *p, uint32_t slot);
void core_clock_probe_destroy(vkocc_context *ctx, core_clock_probe *p);

#endif
