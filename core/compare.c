/* Validation on the device (core/gpucheck.h): shaders/compare.comp over the caller's two buffers, a device
 * result reset and read back through 64 host-visible bytes. */
#include "gpucheck.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const uint32_t shaders_spv_compare_exact[], shaders_spv_compare_f64[], shaders_spv_compare_sum[];
extern const size_t shaders_spv_compare_exact_size, shaders_spv_compare_f64_size, shaders_spv_compare_sum_size;

enum { WG = 256, MAX_GROUPS = 1024, HEADER_WORDS = 16, PUSH_BYTES = 28 };

uint32_t core_elem_bytes(core_elem t) {
  switch (t) {
  case VKOCC_ELEM_U8: case VKOCC_ELEM_I8: return 1;
  case VKOCC_ELEM_U16: case VKOCC_ELEM_I16: return 2;
  case VKOCC_ELEM_U64: case VKOCC_ELEM_I64: case VKOCC_ELEM_F64: return 8;
  default: return 4;
  }
}

double core_elem_value(const void *p, uint64_t i, core_elem t) {
  const uint8_t *b = p;
  switch (t) {
  case VKOCC_ELEM_BOOL32: { uint32_t x; memcpy(&x, b + 4 * i, 4); return x != 0; }
  case VKOCC_ELEM_I8: return (int8_t)b[i];
  case VKOCC_ELEM_U8: return b[i];
  case VKOCC_ELEM_I16: { int16_t x; memcpy(&x, b + 2 * i, 2); return x; }
  case VKOCC_ELEM_U16: { uint16_t x; memcpy(&x, b + 2 * i, 2); return x; }
  case VKOCC_ELEM_I32: { int32_t x; memcpy(&x, b + 4 * i, 4); return x; }
  case VKOCC_ELEM_U32: { uint32_t x; memcpy(&x, b + 4 * i, 4); return x; }
  case VKOCC_ELEM_I64: { int64_t x; memcpy(&x, b + 8 * i, 8); return (double)x; }
  case VKOCC_ELEM_U64: { uint64_t x; memcpy(&x, b + 8 * i, 8); return (double)x; }
  case VKOCC_ELEM_F32: { float x; memcpy(&x, b + 4 * i, 4); return x; }
  case VKOCC_ELEM_F64: { double x; memcpy(&x, b + 8 * i, 8); return x; }
  }
  return NAN;
}

/* shaderFloat64 and shaderInt64, known enabled on a context vkocc created (it enables every supported one) */
static bool has_f64(vkocc_context *ctx) {
  if (ctx->external) return false;
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  core_fn.vkGetPhysicalDeviceFeatures2(ctx->phys, &f);
  return f.features.shaderFloat64 && f.features.shaderInt64;
}

vkocc_status core_compare_create(vkocc_context *ctx, const core_compare_desc *d, core_compare *c) {
  memset(c, 0, sizeof *c);
  if (!d->actual || !d->expected || d->count == 0 || d->count >= (1ull << 32))
    return vkocc_fail(VKOCC_ERROR_USAGE, "device compare: %llu elements; expected 1 to 2^32-1 and two buffers",
                      (unsigned long long)d->count);
  if ((unsigned)d->elem > VKOCC_ELEM_BOOL32 || (unsigned)d->mode > VKOCC_CMP_SUM)
    return vkocc_fail(VKOCC_ERROR_USAGE, "device compare: element type %d or mode %d unknown", (int)d->elem, (int)d->mode);
  uint64_t bytes = d->count * core_elem_bytes(d->elem);
  if (bytes > d->actual->size || bytes > d->expected->size)
    return vkocc_fail(VKOCC_ERROR_USAGE, "device compare: %llu elements of %u bytes exceed the buffers (%llu and %llu bytes)",
                      (unsigned long long)d->count, core_elem_bytes(d->elem), (unsigned long long)d->actual->size,
                      (unsigned long long)d->expected->size);
  /* the shader reads whole 32-bit words: 1- and 2-byte elements need the word that holds the last one */
  if ((bytes + 3) / 4 * 4 > d->actual->size || (bytes + 3) / 4 * 4 > d->expected->size)
    return vkocc_fail(VKOCC_ERROR_USAGE, "device compare: buffers of %llu bytes must be whole 32-bit words",
                      (unsigned long long)bytes);
  bool exact = d->mode == VKOCC_CMP_EXACT;
  if (!exact && !has_f64(ctx))
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "device compare: %s lacks shaderFloat64 or shaderInt64 (a tolerance "
                      "compare runs in double)", ctx->info.name);
  c->d = *d;
  uint64_t groups = (d->count + WG - 1) / WG;
  c->groups = groups > MAX_GROUPS ? MAX_GROUPS : (uint32_t)groups;
  /* three modules: the summed one's barriers would slow the others (lavapipe runs barriers as coroutines) */
  const uint32_t *spv = exact ? shaders_spv_compare_exact : d->mode == VKOCC_CMP_SUM ? shaders_spv_compare_sum : shaders_spv_compare_f64;
  size_t spv_bytes = exact ? shaders_spv_compare_exact_size
                     : d->mode == VKOCC_CMP_SUM ? shaders_spv_compare_sum_size : shaders_spv_compare_f64_size;
  vkocc_status s = core_kernel_create(ctx, spv, spv_bytes, 3, PUSH_BYTES, NULL, 0, &c->k);
  if (!s) s = core_buffer_create(ctx, 4 * (HEADER_WORDS + 2 * MAX_GROUPS), false, &c->result);
  if (!s) s = core_buffer_create(ctx, 4 * HEADER_WORDS, true, &c->host);
  if (s) {
    core_compare_destroy(ctx, c);
    return s;
  }
  core_buffer *bufs[3] = {(core_buffer *)d->actual, (core_buffer *)d->expected, &c->result};
  core_kernel_bind(ctx, &c->k, bufs);
  return VKOCC_OK;
}

void core_compare_record(core_batch *b, core_compare *c) {
  uint64_t th;
  memcpy(&th, &c->d.threshold, 8);
  uint32_t push[7] = {(uint32_t)c->d.count, (uint32_t)c->d.elem, (uint32_t)c->d.mode, 0, (uint32_t)th,
                      (uint32_t)(th >> 32), c->groups};
  /* the writes of actual (and of the last compare's result) before the reset and the reads */
  core_batch_barrier(b, VKOCC_SYNC_ALL);
  core_batch_fill(b, &c->result, 0, 4 * HEADER_WORDS, 0);
  core_batch_fill(b, &c->result, 4, 4, 0xffffffffu);
  core_batch_barrier(b, VKOCC_SYNC_TRANSFER_TO_COMPUTE);
  core_batch_bind(b, &c->k);
  core_batch_push(b, &c->k, push, sizeof push);
  core_batch_dispatch(b, c->groups);
  core_batch_barrier(b, VKOCC_SYNC_COMPUTE_TO_COMPUTE);
  push[3] = 1;
  core_batch_push(b, &c->k, push, sizeof push);
  core_batch_dispatch(b, 1);
  core_batch_barrier(b, VKOCC_SYNC_COMPUTE_TO_TRANSFER);
  core_batch_copy(b, &c->result, &c->host, 0, 0, 4 * HEADER_WORDS);
  core_batch_barrier(b, VKOCC_SYNC_TRANSFER_TO_HOST);
}

void core_compare_read(const core_compare *c, core_compare_result *out) {
  const uint32_t *r = c->host.map;
  memset(out, 0, sizeof *out);
  out->mismatches = r[0];
  out->first = r[1] == 0xffffffffu ? UINT64_MAX : r[1];
  out->got = out->want = NAN;
  out->sum = NAN;
  if (out->first != UINT64_MAX) {
    out->got_bits = r[4] | (uint64_t)r[5] << 32;
    out->want_bits = r[6] | (uint64_t)r[7] << 32;
    /* the element's bits at index 0 of its type: the words keep it zero-extended, little-endian */
    out->got = core_elem_value(&out->got_bits, 0, c->d.elem);
    out->want = core_elem_value(&out->want_bits, 0, c->d.elem);
  }
  if (c->d.mode == VKOCC_CMP_SUM) {
    uint64_t sb = r[8] | (uint64_t)r[9] << 32;
    memcpy(&out->sum, &sb, 8);
    if (r[2]) out->sum = INFINITY;
    out->pass = out->sum <= c->d.threshold;
  } else {
    out->pass = out->mismatches == 0;
  }
}

void core_compare_destroy(vkocc_context *ctx, core_compare *c) {
  core_kernel_destroy(ctx, &c->k);
  core_buffer_destroy(ctx, &c->result);
  core_buffer_destroy(ctx, &c->host);
  memset(c, 0, sizeof *c);
}
