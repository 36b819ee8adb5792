/* Restore by device copies (core/gpucheck.h): pristine device copies of the inputs a kernel writes, copied back
 * before each run on the device instead of uploaded again from the host; and which bindings a module writes. */
#include "gpucheck.h"
#include <spirv.h>
#include <stdlib.h>
#include <string.h>

vkocc_status core_restore_add(vkocc_context *ctx, core_restore *r, const core_buffer *target, const void *host_data,
                               VkDeviceSize bytes) {
  if (!target || bytes == 0 || bytes % 4 || bytes > target->size)
    return vkocc_fail(VKOCC_ERROR_USAGE, "restore: %llu bytes of a %llu-byte buffer; expected a multiple of 4 within it",
                      (unsigned long long)bytes, (unsigned long long)(target ? target->size : 0));
  core_restore_pair p = {.target = target, .bytes = bytes};
  vkocc_status s = core_buffer_create(ctx, bytes, false, &p.pristine);
  if (s) return s;
  if (host_data) s = core_buffer_upload(ctx, &p.pristine, host_data, bytes);
  else {
    core_batch *b = core_context_batch(ctx);
    if (!(s = core_batch_begin(b))) {
      core_batch_barrier(b, VKOCC_SYNC_ALL);
      core_batch_copy(b, target, &p.pristine, 0, 0, bytes);
      s = core_batch_run(b, 0, "keeping a pristine copy of an input");
    }
  }
  if (s) {
    core_buffer_destroy(ctx, &p.pristine);
    return s;
  }
  r->pairs = util_xrealloc(r->pairs, (r->n + 1) * sizeof *r->pairs);
  r->pairs[r->n++] = p;
  return VKOCC_OK;
}

void core_batch_restore(core_batch *b, const core_restore *r) {
  if (!r || !r->n) return;
  /* the last run's reads and writes of the targets (shaders, or a readback's copy) before the copies overwrite them */
  core_batch_barrier(b, VKOCC_SYNC_ALL);
  for (uint32_t i = 0; i < r->n; i++) core_batch_copy(b, &r->pairs[i].pristine, r->pairs[i].target, 0, 0, r->pairs[i].bytes);
  core_batch_barrier(b, VKOCC_SYNC_TRANSFER_TO_COMPUTE);
}

extern const uint32_t shaders_spv_copy[];
extern const size_t shaders_spv_copy_size;

vkocc_status core_copy_create(vkocc_context *ctx, const core_buffer *src, const core_buffer *dst, VkDeviceSize bytes,
                               core_copy *c) {
  memset(c, 0, sizeof *c);
  if (!src || !dst || bytes == 0 || bytes % 4 || bytes > src->size || bytes > dst->size || bytes >= (1ull << 36))
    return vkocc_fail(VKOCC_ERROR_USAGE, "compute copy: %llu bytes between buffers of %llu and %llu; expected a multiple of 4 "
                      "within both, under 2^36", (unsigned long long)bytes, (unsigned long long)(src ? src->size : 0),
                      (unsigned long long)(dst ? dst->size : 0));
  c->src = src, c->dst = dst, c->bytes = bytes;
  c->words = (uint32_t)(bytes / 16);
  uint64_t g = ((uint64_t)c->words + 255) / 256;
  c->groups = g > 8192 ? 8192 : (uint32_t)g; /* a few waves on any GPU; the grid-stride loop does the rest */
  if (!c->words) return VKOCC_OK;          /* under 16 bytes: the tail alone */
  vkocc_status s = core_kernel_create(ctx, shaders_spv_copy, shaders_spv_copy_size, 2, 4, NULL, 0, &c->k);
  if (s) return s;
  core_kernel_bind_range(ctx, &c->k, 0, 0, src, 0, (VkDeviceSize)c->words * 16);
  core_kernel_bind_range(ctx, &c->k, 0, 1, dst, 0, (VkDeviceSize)c->words * 16);
  return VKOCC_OK;
}

void core_copy_record(core_batch *b, const core_copy *c) {
  if (c->words) {
    core_batch_bind(b, &c->k);
    core_batch_push(b, &c->k, &c->words, 4);
    core_batch_dispatch(b, c->groups);
  }
  VkDeviceSize done = (VkDeviceSize)c->words * 16;
  if (done < c->bytes) core_batch_copy(b, c->src, c->dst, done, done, c->bytes - done);
}

void core_copy_destroy(vkocc_context *ctx, core_copy *c) {
  core_kernel_destroy(ctx, &c->k);
  memset(c, 0, sizeof *c);
}

void core_restore_free(vkocc_context *ctx, core_restore *r) {
  for (uint32_t i = 0; i < r->n; i++) core_buffer_destroy(ctx, &r->pairs[i].pristine);
  free(r->pairs);
  memset(r, 0, sizeof *r);
}

uint64_t core_spirv_written_bindings(const uint32_t *w, size_t words, uint32_t set) {
  if (!w || words < 5 || w[0] != SpvMagicNumber || w[3] > (1u << 22)) return ~0ull;
  uint32_t bound = w[3];
  /* per id: decorations, what a pointer points at, a struct's member count and NonWritable members */
  uint8_t *nonwritable = calloc(bound, 1), *has_set = calloc(bound, 1), *has_binding = calloc(bound, 1);
  uint32_t *dset = calloc(bound, 4), *dbinding = calloc(bound, 4), *pointee = calloc(bound, 4), *elem = calloc(bound, 4);
  uint32_t *members = calloc(bound, 4), *ro_members = calloc(bound, 4);
  uint32_t *vars = calloc(bound, 4), nvars = 0;
  uint64_t mask = 0;
  if (!nonwritable || !has_set || !has_binding || !dset || !dbinding || !pointee || !elem || !members || !ro_members || !vars) {
    mask = ~0ull;
    goto out;
  }
  for (size_t i = 5; i < words;) {
    uint32_t op = w[i] & 0xffff, len = w[i] >> 16;
    if (!len || i + len > words) { mask = ~0ull; goto out; }
    uint32_t id = len > 1 ? w[i + 1] : 0;
    if (op == SpvOpDecorate && len >= 3 && id < bound) {
      if (w[i + 2] == SpvDecorationNonWritable) nonwritable[id] = 1;
      if (w[i + 2] == SpvDecorationDescriptorSet && len >= 4) has_set[id] = 1, dset[id] = w[i + 3];
      if (w[i + 2] == SpvDecorationBinding && len >= 4) has_binding[id] = 1, dbinding[id] = w[i + 3];
    } else if (op == SpvOpMemberDecorate && len >= 4 && id < bound && w[i + 3] == SpvDecorationNonWritable) {
      ro_members[id]++; /* one decoration per member */
    } else if (op == SpvOpTypeStruct && id < bound) {
      members[id] = len - 2;
    } else if (op == SpvOpTypePointer && len >= 4 && id < bound && w[i + 3] < bound) {
      pointee[id] = w[i + 3];
    } else if ((op == SpvOpTypeArray || op == SpvOpTypeRuntimeArray) && len >= 3 && id < bound && w[i + 2] < bound) {
      elem[id] = w[i + 2];
    } else if (op == SpvOpVariable && len >= 4 && w[i + 2] < bound && (w[i + 3] == SpvStorageClassStorageBuffer ||
                                                                        w[i + 3] == SpvStorageClassUniform)) {
      /* w[i+1] is the type, w[i+2] the variable */
      if (w[i + 2] < bound) {
        pointee[w[i + 2]] = w[i + 1] < bound ? w[i + 1] : 0; /* the variable's pointer type */
        vars[nvars++] = w[i + 2];
      }
    }
    i += len;
  }
  for (uint32_t v = 0; v < nvars; v++) {
    uint32_t id = vars[v];
    if (!has_set[id] || dset[id] != set || !has_binding[id]) continue;
    uint32_t t = pointee[id] ? pointee[pointee[id]] : 0; /* variable -> pointer type -> pointee */
    for (int depth = 0; t && elem[t] && depth < 4; depth++) t = elem[t];
    bool ro = nonwritable[id] || (t && members[t] && ro_members[t] >= members[t]);
    if (!ro && dbinding[id] < 64) mask |= 1ull << dbinding[id];
  }
out:
  free(nonwritable), free(has_set), free(has_binding), free(dset), free(dbinding), free(pointee), free(elem);
  free(members), free(ro_members), free(vars);
  return mask;
}
