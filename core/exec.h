/* Internal to libvkocc: the executor, the one seam between measurement and Vulkan.
 *
 * Outside device and context set-up (core/loader.c, core/devices.c, core/context.c) this is the only code
 * that calls core_fn.vk*. It offers two services, and the rooms above it (calibrate/, probes/, tune/,
 * persistent/, characterize/) keep only measurement logic over them:
 *
 *   pipeline builder (core/pipeline.c, core/resources.c)
 *     core_kernel_create   embedded SPIR-V with n storage buffers at set 0 (the built-in probes, the
 *                           calibration kernel, shipped kernels); thread-safe, for creation in parallel
 *     core_kernel_build    any compute module from its reflection (compile/): every set and binding it
 *                           declares, the caller's buffers where given and dummies sized from the
 *                           reflection elsewhere, specialization constants by ID in their declared types,
 *                           push constants, executable statistics; inspection and reflection run once
 *   timed-batch recorder (core/exec.c)
 *     vkocc_batch_*         record binds, push constants, dispatches (timed ones between two queue
 *                           timestamps), fills, copies and barriers; submit; wait with a bound; read the
 *                           host-side records (one per timed span: workgroups, ns, how the ticks read)
 *
 * A typical timed batch:
 *     core_batch *b = core_context_batch(ctx);            (or core_batch_create for one of your own)
 *     if ((s = core_batch_begin(b))) return s;
 *     core_batch_bind(b, &k);
 *     core_batch_push(b, &k, &push, sizeof push);
 *     core_batch_fill(b, &out, 0, bytes, 0);
 *     core_batch_barrier(b, VKOCC_SYNC_TRANSFER_TO_COMPUTE);
 *     uint32_t t = core_batch_dispatch_timed(b, groups);
 *     if ((s = core_batch_run(b, 0, "my dispatches"))) return s;
 *     double ns = core_batch_record_of(b, t)->ns;
 *
 * Errors: every call that can fail returns a vkocc_status with the message set (vkocc_fail), naming what
 * was being done. VK_TIMEOUT of a wait is VKOCC_ERROR_RUNTIME "<what>: the GPU did not finish within X s
 * (VK_TIMEOUT)"; VK_ERROR_DEVICE_LOST is VKOCC_ERROR_RUNTIME "<what>: VK_ERROR_DEVICE_LOST (...)" and marks
 * the context lost (core_context_lost), after which nothing is submitted and destruction waits for nothing.
 * Recording calls (core_batch_bind ... core_batch_barrier) return nothing: a misuse found while recording
 * (too many timed spans, a dispatch count outside the device's range) is kept and returned by
 * core_batch_submit, so a batch is checked in one place. Units: bytes for sizes and offsets, workgroups for
 * dispatch sizes, nanoseconds for times (queue timestamps converted with timestampPeriod, masked to
 * timestampValidBits). */
#ifndef VKOCC_EXEC_H
#define VKOCC_EXEC_H
#include "compile.h"
#include "internal.h"

/* ------------------------------------------------------------------ buffers (core/resources.c) */

typedef struct core_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  VkDeviceSize size;
  void *map; /* NULL for device-local memory */
} core_buffer;

/* A buffer of `size` bytes usable as storage, uniform, texel and transfer source/destination.
 * host_visible: host-visible coherent memory, mapped at b->map (cached memory preferred: the host reads it
 * back); else device-local. VKOCC_ERROR_UNSUPPORTED when the device has no such memory type,
 * VKOCC_ERROR_RUNTIME when allocation fails. On failure *b is zeroed. */
vkocc_status core_buffer_create(vkocc_context *ctx, VkDeviceSize size, bool host_visible, core_buffer *b);
/* Destroys b (a zeroed or already destroyed b is fine) and zeroes it. */
void core_buffer_destroy(vkocc_context *ctx, core_buffer *b);
/* Copies size bytes of host data into dst: directly when dst is mapped, else through the context's staging
 * buffer (kept between uploads, at most 64 MiB: larger uploads go in chunks), one submission per chunk on the
 * context's batch (each bounded by the context's limit). */
vkocc_status core_buffer_upload(vkocc_context *ctx, core_buffer *dst, const void *data, VkDeviceSize size);
/* The same data into n buffers: each chunk copied once into the staging buffer and from there into every buffer
 * not mapped, in one submission (a tuning's input and its pristine copy: the copy pays no host copy of its own). */
vkocc_status core_buffer_upload_to(vkocc_context *ctx, core_buffer *const *dst, uint32_t n, const void *data,
                                    VkDeviceSize size);

/* ------------------------------------------------------------------ pipelines (core/pipeline.c) */

/* A resource made for a reflected binding the caller gave no buffer for (core/resources.c): zero-filled,
 * host-visible buffers (so tests can check that nothing wrote to them), 4x4 images in GENERAL layout,
 * texel buffer views. */
typedef struct core_dummy {
  core_buffer buf; /* buffers and texel buffers; zeroed for images */
  VkImage image;
  VkDeviceMemory image_mem;
  VkImageView view;
  VkBufferView texel_view;
} core_dummy;

/* A compute pipeline with its layout, descriptor sets and resources. The fields are the executor's; rooms
 * above read only refl, info, push_bytes and dummies[i].buf (the zero-filled buffers of a built kernel). */
typedef struct core_kernel {
  VkShaderModule module;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  VkDescriptorPool pool;
  uint32_t nsets;                  /* sets 0..nsets-1 are bound together (empty layouts in the gaps) */
  VkDescriptorSetLayout *set_layouts;
  VkDescriptorSet *sets;
  uint32_t bindings;               /* core_kernel_create: storage buffers at set 0, bindings 0..n-1 */
  uint32_t push_bytes;             /* bytes of push constants (0: none) */
  /* core_kernel_build only: */
  compile_spirv_info info;           /* entry point, workgroup size, shared bytes, set numbers */
  compile_reflection refl;           /* the reflected module's bindings, push constants, specialization */
  core_dummy *dummies;            /* one per refl.bindings[i]; all zero where the caller gave the buffer */
  VkSampler sampler;               /* shared by every sampler and combined image-sampler dummy */
  VkSpecializationMapEntry *spec_entries; /* one per constant ID, for core_kernel_statistics_of */
  uint8_t *spec_data;
  uint32_t nspec_entries, spec_bytes;
} core_kernel;

/* A compute pipeline from SPIR-V (spv_bytes bytes, entry "main") with `bindings` storage buffers at set 0,
 * bindings 0..bindings-1, push_bytes of push constants, and spec_count uint32 specialization constants
 * with IDs 0..spec_count-1 (spec[i] is ID i). Through the context's pipeline cache. Safe to call from
 * several threads on one context (util_parallel_for). VKOCC_ERROR_RUNTIME naming the failed call. */
vkocc_status core_kernel_create(vkocc_context *ctx, const uint32_t *spv, size_t spv_bytes, uint32_t bindings,
                                 uint32_t push_bytes, const uint32_t *spec, uint32_t spec_count, core_kernel *k);
/* Points bindings 0..k->bindings-1 of set 0 at the whole of buffers[0..bindings-1]. */
void core_kernel_bind(vkocc_context *ctx, core_kernel *k, core_buffer *const *buffers);
/* Points one storage-buffer binding at `range` bytes of b from `offset` (range 0: to the end). offset must
 * be a multiple of minStorageBufferOffsetAlignment (256 always is). */
void core_kernel_bind_range(vkocc_context *ctx, core_kernel *k, uint32_t set, uint32_t binding,
                             const core_buffer *b, VkDeviceSize offset, VkDeviceSize range);
/* Destroys k and whatever core_kernel_build made for it (dummies, sampler); a zeroed k is fine. */
void core_kernel_destroy(vkocc_context *ctx, core_kernel *k);

/* A caller's buffer for one binding of a built kernel (every array element gets the same buffer). */
typedef struct core_kernel_resource {
  uint32_t set, binding;
  const core_buffer *buffer;
  VkDeviceSize offset, range; /* range 0: to the end of the buffer */
} core_kernel_resource;

typedef struct core_kernel_desc {
  const uint32_t *spv;             /* the module the pipeline is made of (SPIR-V words) */
  size_t words;
  const char *name;                /* names the module in messages (a file name, "kernels/x/x.comp") */
  const char *role;                /* what messages call the module ("augmented", "user's"); NULL: nothing */
  const char *entry;               /* NULL or "": the only compute entry point, or "main" */
  /* The module whose reflection gives the layout and the dummies, when it is another one (the user's
   * module under its augmented version); NULL: spv. */
  const uint32_t *reflect_spv;
  size_t reflect_words;
  /* What the caller already has, so nothing runs twice: compile_spirv_inspect of the reflected module under
   * spec, and compile_reflect of it (copied into k). NULL: run here. */
  const compile_spirv_info *info;
  const compile_reflection *refl;
  /* Specialization constants by ID, converted to each constant's declared type (32/64-bit int, float,
   * bool) from the reflection. One map entry per ID: a value given twice counts once, the last one (as
   * compile_spirv_inspect reads it); an ID the module lacks is left out. */
  const vkocc_spec_value *spec;
  uint32_t nspec;
  /* The caller's buffers; every other reflected binding gets a dummy. A resource at (extra_set, 0) binds
   * the extra set's buffer. */
  const core_kernel_resource *res;
  uint32_t nres;
  /* One more set with a storage buffer at binding 0 that the reflected module lacks (the augmentation's
   * parameters and records): has_extra_set, at extra_set. */
  bool has_extra_set;
  uint32_t extra_set;
  /* Capture executable statistics where the context offers VK_KHR_pipeline_executable_properties. */
  bool statistics;
  /* Create the pipeline without the context's pipeline cache (one object every thread's creation goes through;
   * bench_pipeline_build compares the two). */
  bool uncached;
} core_kernel_desc;

/* Builds a compute pipeline as desc says. Errors name desc->name: VKOCC_ERROR_USAGE for a module that is
 * not SPIR-V, lacks the entry point or names a specialization ID it lacks (from the inspection);
 * VKOCC_ERROR_UNSUPPORTED when the driver rejects the module or pipeline or a dummy's format, or the module
 * uses more than 32 descriptor sets; VKOCC_ERROR_RUNTIME for other Vulkan failures. On failure k is destroyed. */
vkocc_status core_kernel_build(vkocc_context *ctx, const core_kernel_desc *desc, core_kernel *k);

/* The driver's statistics of executable 0 of k (built with .statistics): up to max names (63 characters
 * and a NUL) and values (booleans 0/1, integers and floats as double). 0 when the context lacks the
 * extension or the driver reports none. */
uint32_t core_kernel_statistics(vkocc_context *ctx, const core_kernel *k, char (*names)[64], double *values,
                                 uint32_t max);
/* The same statistics of another module (words of SPIR-V) built with k's layout, entry point and
 * specialization: the module as the user wrote it beside its augmented version. 0 when it cannot be built. */
uint32_t core_kernel_statistics_of(vkocc_context *ctx, const core_kernel *k, const uint32_t *spv, size_t words,
                                    char (*names)[64], double *values, uint32_t max);

/* Limits a pipeline's inputs must respect, beyond vkocc_device_info. */
typedef struct core_exec_limits {
  uint32_t max_storage_buffer_range;  /* bytes */
  uint64_t device_local_heap_bytes;   /* the largest device-local heap (the first heap where none is) */
  bool subgroup_arithmetic;           /* compute shaders have subgroup arithmetic */
  /* maxComputeWorkGroupSize, maxComputeWorkGroupCount (all three dimensions) and maxComputeSharedMemorySize */
  uint32_t max_wg_size[3], max_wg_count[3], max_invocations, max_shared_bytes;
} core_exec_limits;
void core_exec_limits_get(vkocc_context *ctx, core_exec_limits *out);

/* ------------------------------------------------------------------ timed batches (core/exec.c) */

/* Memory dependencies between recorded commands (each a superset of what its callers need). */
typedef enum core_sync {
  VKOCC_SYNC_ALL,                  /* every compute/transfer write before every compute/transfer/host access */
  VKOCC_SYNC_TRANSFER_TO_COMPUTE,  /* fills, copies (and earlier host writes) before shader reads/writes */
  VKOCC_SYNC_COMPUTE_TO_COMPUTE,   /* one dispatch's writes before the next one's reads/writes */
  VKOCC_SYNC_COMPUTE_TO_TRANSFER,  /* shader writes before fills and copies */
  VKOCC_SYNC_TRANSFER_TO_HOST,     /* copies and fills before the host reads mapped memory */
} core_sync;

/* What the host keeps of one timed span (core_batch_dispatch_timed, core_batch_timer_start/stop). */
typedef struct core_batch_record {
  uint32_t groups;                 /* workgroups dispatched inside the span */
  double ns;                       /* the span's length, after core_batch_wait */
  vkocc_tick_status tick;          /* how the timestamp delta read (VKOCC_TICKS_BACKWARDS: ns is 0) */
  uint64_t start;                  /* the span's first timestamp, in ticks (within timestamp_valid_bits) */
} core_batch_record;

/* A command buffer, its fence and a timestamp pool for max_timed spans. One thread records and submits a
 * batch at a time; several batches may be in flight on one context (the queue keeps their order). */
typedef struct core_batch {
  vkocc_context *ctx;
  VkCommandBuffer cmd;
  VkFence fence;
  VkQueryPool queries;
  uint32_t max_timed;
  core_batch_record *rec;         /* rec[0..nrec) of the batch being recorded or last waited for */
  uint32_t nrec;
  bool recording, in_flight;
  bool shared_lock;                /* holds the device's shared lock while in flight (core/devlock.c) */
  const char *what;                /* names the submission in messages */
  vkocc_status error;              /* first misuse found while recording, returned by core_batch_submit */
  char error_msg[256];
  const core_kernel *bound;
  uint32_t open_timer;             /* the span started and not yet stopped, UINT32_MAX: none */
  /* the device time of the last submission waited for, from its first command to its last (two timestamps of
   * their own around everything recorded: the time the device was busy with it, timed or not); 0 when the ticks
   * read backwards */
  double span_ns;
} core_batch;

/* The device between vkocc processes (core/devlock.c). A measurement that needs the device to itself
 * (a calibration, an occupancy probe) runs between core_device_exclusive_begin and _end: begin waits (at
 * most 600 s, then VKOCC_ERROR_RUNTIME, reason VKOCC_REASON_TIMEOUT) until no other vkocc process has work in
 * flight on this device, and other processes' submissions wait until it ends. Sections nest. Begin it with
 * none of this process's own work in flight: two processes doing that would wait for each other until the
 * bound. Every batch submission holds the shared lock while in flight (core_batch_submit .. _wait). */
vkocc_status core_device_exclusive_begin(vkocc_context *ctx, const char *what);
void core_device_exclusive_end(vkocc_context *ctx);
bool core_device_shared_take(vkocc_context *ctx);
void core_device_shared_release(vkocc_context *ctx);
void core_device_locks_close(vkocc_context *ctx);

/* A batch of its own on ctx (its command buffer from the context's pool): for double buffering, or more
 * timed spans than the context's batch holds. VKOCC_ERROR_RUNTIME naming the failed call. */
vkocc_status core_batch_create(vkocc_context *ctx, uint32_t max_timed, core_batch *b);
/* Waits (bounded by the context's limit) for a submission in flight, then destroys b; zeroed b is fine. */
void core_batch_destroy(core_batch *b);
/* The context's own batch (VKOCC_CONTEXT_TIMED spans), used by one thread at a time. */
#define VKOCC_CONTEXT_TIMED 16u
core_batch *core_context_batch(vkocc_context *ctx);

/* Resets the command buffer and the records and begins recording. VKOCC_ERROR_RUNTIME when a submission
 * is still in flight (wait first), the context is lost, or vkResetCommandBuffer / vkBeginCommandBuffer fail. */
vkocc_status core_batch_begin(core_batch *b);
/* Binds k's pipeline and all its descriptor sets (skipped when k is bound already). */
void core_batch_bind(core_batch *b, const core_kernel *k);
/* bytes of push constants for k (bytes 0: k->push_bytes; nothing when that is 0). */
void core_batch_push(core_batch *b, const core_kernel *k, const void *data, uint32_t bytes);
/* groups workgroups (x only) of the bound kernel: up to maxComputeWorkGroupCount[0], else an error at submit;
 * 0 records an empty dispatch (its launch overhead alone). */
void core_batch_dispatch(core_batch *b, uint32_t groups);
/* groups x * y * z workgroups of the bound kernel (each up to maxComputeWorkGroupCount of its dimension, else
 * an error at submit), for kernels that use gl_WorkGroupID.y/z (the user's kernels of vkocc tune SPEC.json). */
void core_batch_dispatch3(core_batch *b, uint32_t x, uint32_t y, uint32_t z);
/* A dispatch between two queue timestamps (top of pipe, bottom of pipe); returns its record's index. */
uint32_t core_batch_dispatch_timed(core_batch *b, uint32_t groups);
/* A timed span around several commands: start writes the top-of-pipe timestamp and returns the record's
 * index, stop the bottom-of-pipe one; the record counts the workgroups dispatched in between. */
uint32_t core_batch_timer_start(core_batch *b);
/* core_batch_timer_start written once everything recorded before has finished (BOTTOM_OF_PIPE): a TOP_OF_PIPE
 * timestamp is not ordered by a preceding barrier, so a span after a large copy (the tuning harness restores
 * in-place inputs before each timed dispatch) would include the copy's tail. */
uint32_t core_batch_timer_start_after(core_batch *b);
void core_batch_timer_stop(core_batch *b, uint32_t record);
void core_batch_barrier(core_batch *b, core_sync sync);
/* Fills size bytes of buf from offset (multiples of 4) with the 32-bit value. */
void core_batch_fill(core_batch *b, const core_buffer *buf, VkDeviceSize offset, VkDeviceSize size, uint32_t value);
void core_batch_copy(core_batch *b, const core_buffer *src, const core_buffer *dst, VkDeviceSize src_offset,
                      VkDeviceSize dst_offset, VkDeviceSize size);
/* An image's layout from UNDEFINED to GENERAL, for a shader's reads (dummies; core/resources.c). */
void core_batch_image_general(core_batch *b, VkImage image, uint32_t layers);

/* Ends recording and submits; `what` names the submission in later messages (a string that outlives the
 * wait). Returns a misuse kept while recording, or VKOCC_ERROR_RUNTIME when vkEndCommandBuffer or
 * vkQueueSubmit fail (device lost: see the top of this file). */
vkocc_status core_batch_submit(core_batch *b, const char *what);
/* Waits for the submission at most timeout_ns (0: the context's limit), resets the fence and reads every
 * record's timestamps. VK_TIMEOUT and VK_ERROR_DEVICE_LOST: see the top of this file. */
vkocc_status core_batch_wait(core_batch *b, uint64_t timeout_ns);
/* core_batch_submit, then core_batch_wait. */
vkocc_status core_batch_run(core_batch *b, uint64_t timeout_ns, const char *what);
/* Record i (< b->nrec) of the last batch waited for. Its whole span on the device: b->span_ns. */
const core_batch_record *core_batch_record_of(const core_batch *b, uint32_t i);

/* One timed dispatch of k with push constants on the context's batch (the calibration and probe kernels):
 * *ns the timestamp interval, *tick how its delta read (either may be NULL). groups outside
 * 1..maxComputeWorkGroupCount[0] is VKOCC_ERROR_USAGE. */
vkocc_status core_dispatch_timed(vkocc_context *ctx, core_kernel *k, const void *push, uint32_t groups,
                                  double *ns, vkocc_tick_status *tick);
/* The same, its whole record (the calibration also reads the interval's first timestamp, rec->start). */
vkocc_status core_dispatch_timed_record(vkocc_context *ctx, core_kernel *k, const void *push, uint32_t groups,
                                         core_batch_record *rec);

/* True once a wait or submission saw VK_ERROR_DEVICE_LOST on ctx. */
bool core_context_lost(const vkocc_context *ctx);

#endif
