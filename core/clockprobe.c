/* Clock evidence beside a timed batch (core/gpucheck.h): shaders/clockprobe.comp into a host-visible slot. */
#include "gpucheck.h"
#include <stdlib.h>
#include <string.h>

extern const uint32_t shaders_spv_clockprobe[];
extern const size_t shaders_spv_clockprobe_size;

/* 32 rounds of 256 dependent steps: some 50 us at 2 GHz, long against the realtime clock's steps (1 us at
 * worst: 2%) and short against a 20 ms timed batch */
enum { ROUNDS = 32 };

vkocc_status core_clock_probe_create(vkocc_context *ctx, uint32_t slots, core_clock_probe *p) {
  memset(p, 0, sizeof *p);
  if (!ctx->device_clock || !ctx->subgroup_clock)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "clock probe: %s offers no %s (VK_KHR_shader_clock)", ctx->info.name,
                      ctx->device_clock ? "subgroup clock" : "device clock");
  if (!slots) return vkocc_fail(VKOCC_ERROR_USAGE, "clock probe: no slots");
  p->slots = slots;
  p->rounds = ROUNDS;
  vkocc_status s = core_kernel_create(ctx, shaders_spv_clockprobe, shaders_spv_clockprobe_size, 1, 12, NULL, 0, &p->k);
  p->stamps = util_xcalloc(slots, sizeof *p->stamps);
  if (!s) s = core_buffer_create(ctx, 16ull * slots, true, &p->out);
  if (s) {
    core_clock_probe_destroy(ctx, p);
    return s;
  }
  memset(p->out.map, 0, 16ull * slots);
  core_buffer *b = &p->out;
  core_kernel_bind(ctx, &p->k, &b);
  return VKOCC_OK;
}

void core_clock_probe_record(core_batch *b, core_clock_probe *p, uint32_t slot) {
  if (slot >= p->slots) return;
  if (++p->next_stamp == 0) p->next_stamp = 1; /* 0 is an empty slot's */
  p->stamps[slot] = p->next_stamp;
  uint32_t push[3] = {p->rounds, slot, p->next_stamp};
  /* after what came before (a timed dispatch's tail would share the SM), before what follows */
  core_batch_barrier(b, VKOCC_SYNC_ALL);
  core_batch_bind(b, &p->k);
  core_batch_push(b, &p->k, push, sizeof push);
  core_batch_dispatch(b, 1);
  core_batch_barrier(b, VKOCC_SYNC_ALL);
}

double core_clock_probe_read(const core_clock_probe *p, uint32_t slot) {
  if (slot >= p->slots || !p->out.map) return 0;
  const uint32_t *o = (const uint32_t *)p->out.map + 4 * slot;
  if (!p->stamps[slot] || o[3] != p->stamps[slot] || o[0] == 0 || o[1] == 0) return 0;
  return (double)o[1] / (double)o[0];
}

void core_clock_probe_destroy(vkocc_context *ctx, core_clock_probe *p) {
  core_kernel_destroy(ctx, &p->k);
  core_buffer_destroy(ctx, &p->out);
  free(p->stamps);
  memset(p, 0, sizeof *p);
}
