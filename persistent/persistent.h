/* Internal to libvkocc (and bench/bench_barrier.c): building the barrier kernels and submitting them with
 * their state, inputs and read-back in one command buffer with a bounded host wait. */
#ifndef VKOCC_PERSISTENT_H
#define VKOCC_PERSISTENT_H
#include "exec.h"
#include <stddef.h>
#include <stdint.h>

/* Compiles a shipped kernel (embedded "kernels/barrier/NAME.comp") or a file (path) with the clock define
 * of b and extra defines. *name names the module in messages. */
vkocc_status persistent_pk_compile(const char *embedded, const char *path, const vkocc_barrier_bounds *b,
                              const char *const *defines, uint32_t ndefines, uint32_t **spv, size_t *words,
                              const char **name);
/* P of that module under the uint specialization constants spec[0..nspec) (ids 0..nspec-1). */
vkocc_status persistent_pk_measure(vkocc_context *ctx, const vkocc_calibration *cal, const uint32_t *spv, size_t words,
                              const char *name, const uint32_t *spec, uint32_t nspec, bool use_cache, uint32_t *P,
                              bool *from_cache);

typedef struct persistent_pk_copy { core_buffer *src, *dst; VkDeviceSize src_off, dst_off, size; } persistent_pk_copy;
typedef struct persistent_pk_dispatch { core_kernel *k; const void *push; uint32_t groups; } persistent_pk_dispatch;
/* One submission: the copies `pre` (inputs, state), the dispatches in order with a compute->compute barrier
 * between them, the copies `post` (read-back); queue timestamps around the dispatches (*gpu_ns). Waits for
 * the fence at most timeout_ns (VK_TIMEOUT and VK_ERROR_DEVICE_LOST are clear errors). */
vkocc_status persistent_pk_submit(vkocc_context *ctx, const persistent_pk_copy *pre, uint32_t npre, const persistent_pk_dispatch *d,
                             uint32_t nd, const persistent_pk_copy *post, uint32_t npost, uint64_t timeout_ns,
                             double *gpu_ns, double *wall_ns);
#endif
