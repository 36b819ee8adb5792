/* The timed-batch recorder (core/exec.h): command buffers, fences and timestamp queries, recorded and
 * submitted in one place, every wait bounded, device loss remembered on the context. */
#include "exec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool core_context_lost(const vkocc_context *ctx) { return ctx->lost; }

core_batch *core_context_batch(vkocc_context *ctx) { return ctx->batch; }

/* A failed wait or submission: device loss is remembered, so that nothing waits on the device again. */
static vkocc_status vk_fail(core_batch *b, VkResult r, const char *what) {
  if (r == VK_ERROR_DEVICE_LOST) b->ctx->lost = true;
  return core_vk_fail(r, what);
}

static void unlock(core_batch *b) {
  if (b->shared_lock) core_device_shared_release(b->ctx);
  b->shared_lock = false;
}

/* the first of the two queries after the timed spans' that bracket the whole batch (core_batch.span_ns) */
static uint32_t span_query(uint32_t max_timed) { return 2 * (max_timed ? max_timed : 1); }

vkocc_status core_batch_create(vkocc_context *ctx, uint32_t max_timed, core_batch *b) {
  memset(b, 0, sizeof *b);
  b->ctx = ctx;
  b->max_timed = max_timed;
  b->open_timer = UINT32_MAX;
  VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                     .commandPool = ctx->cmd_pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                     .commandBufferCount = 1};
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkQueryPoolCreateInfo qpci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = span_query(max_timed) + 2};
  VkResult r;
  if ((r = core_fn.vkAllocateCommandBuffers(ctx->device, &cai, &b->cmd))) {
    b->cmd = VK_NULL_HANDLE;
    core_batch_destroy(b);
    return core_vk_fail(r, "vkAllocateCommandBuffers");
  }
  if ((r = core_fn.vkCreateFence(ctx->device, &fci, NULL, &b->fence)) ||
      (r = core_fn.vkCreateQueryPool(ctx->device, &qpci, NULL, &b->queries))) {
    core_batch_destroy(b);
    return core_vk_fail(r, "creating a fence and timestamp queries");
  }
  b->rec = util_xcalloc(max_timed ? max_timed : 1, sizeof *b->rec);
  return VKOCC_OK;
}

void core_batch_destroy(core_batch *b) {
  vkocc_context *ctx = b->ctx;
  if (!ctx) return;
  /* a submission still in flight (an error left it there) finishes before its resources go, within the
   * context's bound; one that does not (VK_TIMEOUT) keeps its command buffer, fence and queries (destroying
   * what the GPU still uses is undefined), and the context is marked unfinished (vkocc_context_destroy) */
  bool busy = false;
  if (b->in_flight && !ctx->lost) {
    VkResult r = core_fn.vkWaitForFences(ctx->device, 1, &b->fence, VK_TRUE, ctx->timeout_ns);
    if (r == VK_ERROR_DEVICE_LOST) ctx->lost = true; /* objects of a lost device may be destroyed */
    else if (r != VK_SUCCESS) busy = ctx->unfinished = true;
  }
  if (!busy) unlock(b); /* work still running on the device keeps other processes' measurements out */
  if (!busy) {
    if (b->queries) core_fn.vkDestroyQueryPool(ctx->device, b->queries, NULL);
    if (b->fence) core_fn.vkDestroyFence(ctx->device, b->fence, NULL);
    if (b->cmd) core_fn.vkFreeCommandBuffers(ctx->device, ctx->cmd_pool, 1, &b->cmd);
  }
  free(b->rec);
  memset(b, 0, sizeof *b);
}

/* A misuse found while recording: the first one is returned by core_batch_submit. */
static void misuse(core_batch *b, vkocc_status s, const char *msg) {
  if (b->error) return;
  b->error = s;
  snprintf(b->error_msg, sizeof b->error_msg, "%s", msg);
}

vkocc_status core_batch_begin(core_batch *b) {
  vkocc_context *ctx = b->ctx;
  if (ctx->lost)
    return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_DEVICE_LOST, "the device was lost earlier "
                             "(VK_ERROR_DEVICE_LOST): nothing more is submitted to it");
  if (b->in_flight) return vkocc_fail(VKOCC_ERROR_RUNTIME, "a batch was begun while its last submission was in flight");
  b->nrec = 0;
  b->span_ns = 0;
  b->error = VKOCC_OK;
  b->error_msg[0] = 0;
  b->bound = NULL;
  b->open_timer = UINT32_MAX;
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VkResult r = core_fn.vkResetCommandBuffer(b->cmd, 0);
  if (r) return core_vk_fail(r, "vkResetCommandBuffer");
  if ((r = core_fn.vkBeginCommandBuffer(b->cmd, &bi))) return core_vk_fail(r, "vkBeginCommandBuffer");
  b->recording = true;
  uint32_t sq = span_query(b->max_timed);
  core_fn.vkCmdResetQueryPool(b->cmd, b->queries, 0, sq + 2);
  core_fn.vkCmdWriteTimestamp(b->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, b->queries, sq);
  return VKOCC_OK;
}

void core_batch_bind(core_batch *b, const core_kernel *k) {
  if (b->bound == k) return;
  core_fn.vkCmdBindPipeline(b->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
  if (k->nsets)
    core_fn.vkCmdBindDescriptorSets(b->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, k->nsets, k->sets, 0, NULL);
  b->bound = k;
}

void core_batch_push(core_batch *b, const core_kernel *k, const void *data, uint32_t bytes) {
  if (!bytes) bytes = k->push_bytes;
  if (!bytes) return;
  if (bytes > k->push_bytes) {
    misuse(b, VKOCC_ERROR_USAGE, "push constants of more bytes than the pipeline's layout has");
    return;
  }
  core_fn.vkCmdPushConstants(b->cmd, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, bytes, data);
}

static bool check_groups(core_batch *b, uint32_t groups) {
  uint32_t max = b->ctx->info.max_wg_count_x;
  if (groups <= max) return true;
  char m[160];
  snprintf(m, sizeof m, "dispatch of %u workgroups is outside 1..maxComputeWorkGroupCount[0]=%u", groups, max);
  misuse(b, VKOCC_ERROR_USAGE, m);
  return false;
}

void core_batch_dispatch(core_batch *b, uint32_t groups) {
  if (!check_groups(b, groups)) return;
  if (b->open_timer != UINT32_MAX) b->rec[b->open_timer].groups += groups;
  core_fn.vkCmdDispatch(b->cmd, groups, 1, 1);
}

void core_batch_dispatch3(core_batch *b, uint32_t x, uint32_t y, uint32_t z) {
  VkPhysicalDeviceProperties p;
  core_fn.vkGetPhysicalDeviceProperties(b->ctx->phys, &p);
  const uint32_t *max = p.limits.maxComputeWorkGroupCount;
  if (x > max[0] || y > max[1] || z > max[2]) {
    char m[200];
    snprintf(m, sizeof m, "dispatch of %ux%ux%u workgroups exceeds maxComputeWorkGroupCount %ux%ux%u", x, y, z, max[0],
             max[1], max[2]);
    misuse(b, VKOCC_ERROR_USAGE, m);
    return;
  }
  if (b->open_timer != UINT32_MAX) b->rec[b->open_timer].groups += x * y * z;
  core_fn.vkCmdDispatch(b->cmd, x, y, z);
}

static uint32_t timer_start(core_batch *b, VkPipelineStageFlagBits stage) {
  if (b->nrec >= b->max_timed) {
    misuse(b, VKOCC_ERROR_RUNTIME, "more timed spans than the batch's timestamp queries");
    return 0;
  }
  uint32_t i = b->nrec++;
  b->rec[i] = (core_batch_record){0};
  core_fn.vkCmdWriteTimestamp(b->cmd, stage, b->queries, 2 * i);
  b->open_timer = i;
  return i;
}

uint32_t core_batch_timer_start(core_batch *b) { return timer_start(b, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT); }

uint32_t core_batch_timer_start_after(core_batch *b) { return timer_start(b, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT); }

void core_batch_timer_stop(core_batch *b, uint32_t i) {
  if (i >= b->nrec) return; /* the start's misuse is kept already */
  core_fn.vkCmdWriteTimestamp(b->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b->queries, 2 * i + 1);
  if (b->open_timer == i) b->open_timer = UINT32_MAX;
}

uint32_t core_batch_dispatch_timed(core_batch *b, uint32_t groups) {
  uint32_t i = core_batch_timer_start(b);
  core_batch_dispatch(b, groups);
  core_batch_timer_stop(b, i);
  return i;
}

void core_batch_barrier(core_batch *b, core_sync sync) {
  VkPipelineStageFlags src, dst;
  VkAccessFlags sa, da;
  const VkPipelineStageFlags C = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, T = VK_PIPELINE_STAGE_TRANSFER_BIT,
                             H = VK_PIPELINE_STAGE_HOST_BIT;
  switch (sync) {
  case VKOCC_SYNC_TRANSFER_TO_COMPUTE:
    src = T | H, sa = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT;
    dst = C, da = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    break;
  case VKOCC_SYNC_COMPUTE_TO_COMPUTE:
    src = C, sa = VK_ACCESS_SHADER_WRITE_BIT;
    dst = C, da = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    break;
  case VKOCC_SYNC_COMPUTE_TO_TRANSFER:
    src = C, sa = VK_ACCESS_SHADER_WRITE_BIT;
    dst = T, da = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    break;
  case VKOCC_SYNC_TRANSFER_TO_HOST:
    src = T, sa = VK_ACCESS_TRANSFER_WRITE_BIT;
    dst = H, da = VK_ACCESS_HOST_READ_BIT;
    break;
  case VKOCC_SYNC_ALL:
  default:
    src = C | T, sa = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    dst = C | T | H, da = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                          VK_ACCESS_HOST_READ_BIT;
    break;
  }
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = sa, .dstAccessMask = da};
  core_fn.vkCmdPipelineBarrier(b->cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

void core_batch_fill(core_batch *b, const core_buffer *buf, VkDeviceSize offset, VkDeviceSize size, uint32_t value) {
  core_fn.vkCmdFillBuffer(b->cmd, buf->buffer, offset, size, value);
}

void core_batch_copy(core_batch *b, const core_buffer *src, const core_buffer *dst, VkDeviceSize src_offset,
                      VkDeviceSize dst_offset, VkDeviceSize size) {
  VkBufferCopy bc = {.srcOffset = src_offset, .dstOffset = dst_offset, .size = size};
  core_fn.vkCmdCopyBuffer(b->cmd, src->buffer, dst->buffer, 1, &bc);
}

void core_batch_image_general(core_batch *b, VkImage image, uint32_t layers) {
  VkImageMemoryBarrier imb = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .dstAccessMask = VK_ACCESS_SHADER_READ_BIT,
                              .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED, .newLayout = VK_IMAGE_LAYOUT_GENERAL,
                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
                              .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers}};
  core_fn.vkCmdPipelineBarrier(b->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                                NULL, 0, NULL, 1, &imb);
}

vkocc_status core_batch_submit(core_batch *b, const char *what) {
  b->what = what;
  if (!b->recording) return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: submitted without core_batch_begin", what);
  b->recording = false;
  core_fn.vkCmdWriteTimestamp(b->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b->queries, span_query(b->max_timed) + 1);
  VkResult r = core_fn.vkEndCommandBuffer(b->cmd);
  if (b->error) return vkocc_fail(b->error, "%s", b->error_msg);
  if (r) return core_vk_fail(r, "vkEndCommandBuffer");
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &b->cmd};
  if (!b->shared_lock) b->shared_lock = core_device_shared_take(b->ctx);
  if (b->ctx->lock_state == 3) { /* the door refused a lock file: say what is in its place */
    unlock(b);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s", what, b->ctx->lock_error);
  }
  if (b->ctx->lock_stopped) { /* the wait hook stopped the wait for the lock */
    unlock(b);
    b->ctx->lock_stopped = false;
    return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_INTERRUPTED, "%s: %s", what, vkocc_last_error());
  }
  if ((r = core_fn.vkQueueSubmit(b->ctx->queue, 1, &si, b->fence))) {
    unlock(b);
    return vk_fail(b, r, what);
  }
  b->in_flight = true;
  return VKOCC_OK;
}

vkocc_status core_batch_wait(core_batch *b, uint64_t timeout_ns) {
  vkocc_context *ctx = b->ctx;
  const char *what = b->what ? b->what : "a submission";
  if (!b->in_flight) return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: waited for without a submission", what);
  if (!timeout_ns) timeout_ns = ctx->timeout_ns;
  VkResult r = core_fn.vkWaitForFences(ctx->device, 1, &b->fence, VK_TRUE, timeout_ns);
  if (r == VK_TIMEOUT)
    return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_TIMEOUT, "%s: the GPU did not finish within %.1f s "
                             "(VK_TIMEOUT)", what, (double)timeout_ns / 1e9);
  unlock(b); /* done, or lost */
  if (r) return vk_fail(b, r, what);
  b->in_flight = false;
  if ((r = core_fn.vkResetFences(ctx->device, 1, &b->fence))) return vk_fail(b, r, "vkResetFences");
  uint64_t span[2], d;
  r = core_fn.vkGetQueryPoolResults(ctx->device, b->queries, span_query(b->max_timed), 2, sizeof span, span, sizeof *span,
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (r) return vk_fail(b, r, "vkGetQueryPoolResults");
  b->span_ns = vkocc_tick_delta(span[0], span[1], ctx->info.timestamp_valid_bits, &d) == VKOCC_TICKS_BACKWARDS
                   ? 0 : (double)d * ctx->info.timestamp_period;
  if (!b->nrec) return VKOCC_OK;
  uint64_t *ts = util_xmalloc(2 * b->nrec * sizeof *ts);
  r = core_fn.vkGetQueryPoolResults(ctx->device, b->queries, 0, 2 * b->nrec, 2 * b->nrec * sizeof *ts, ts,
                                     sizeof *ts, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (r) {
    free(ts);
    return vk_fail(b, r, "vkGetQueryPoolResults");
  }
  for (uint32_t i = 0; i < b->nrec; i++) {
    uint64_t d;
    b->rec[i].tick = vkocc_tick_delta(ts[2 * i], ts[2 * i + 1], ctx->info.timestamp_valid_bits, &d);
    b->rec[i].ns = (double)d * ctx->info.timestamp_period;
    b->rec[i].start = ts[2 * i];
  }
  free(ts);
  return VKOCC_OK;
}

vkocc_status core_batch_run(core_batch *b, uint64_t timeout_ns, const char *what) {
  vkocc_status s = core_batch_submit(b, what);
  return s ? s : core_batch_wait(b, timeout_ns);
}

const core_batch_record *core_batch_record_of(const core_batch *b, uint32_t i) {
  static const core_batch_record none = {0, 0, VKOCC_TICKS_BACKWARDS, 0};
  return i < b->nrec ? &b->rec[i] : &none;
}

vkocc_status core_dispatch_timed_record(vkocc_context *ctx, core_kernel *k, const void *push, uint32_t groups,
                                         core_batch_record *rec) {
  if (groups == 0 || groups > ctx->info.max_wg_count_x)
    return vkocc_fail(VKOCC_ERROR_USAGE, "dispatch of %u workgroups is outside 1..maxComputeWorkGroupCount[0]=%u",
                      groups, ctx->info.max_wg_count_x);
  core_batch *b = ctx->batch;
  vkocc_status s = core_batch_begin(b);
  if (s) return s;
  core_batch_bind(b, k);
  core_batch_push(b, k, push, 0);
  uint32_t t = core_batch_dispatch_timed(b, groups);
  if ((s = core_batch_run(b, 0, "compute dispatch"))) return s;
  *rec = b->rec[t];
  return VKOCC_OK;
}

vkocc_status core_dispatch_timed(vkocc_context *ctx, core_kernel *k, const void *push, uint32_t groups,
                                  double *ns, vkocc_tick_status *tick) {
  core_batch_record rec;
  vkocc_status s = core_dispatch_timed_record(ctx, k, push, groups, &rec);
  if (s) return s;
  if (ns) *ns = rec.ns;
  if (tick) *tick = rec.tick;
  return VKOCC_OK;
}
