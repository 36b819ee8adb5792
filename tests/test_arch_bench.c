/* Which architectures occupancy can tell apart. Synthetic surfaces built from published per-architecture limits,
 * measured as vkocc would (P on the canonical grid at the real SM count, shared capacity 48 KiB and 100 KiB as
 * Vulkan grants it, and a register surface), must give back every table value through the derivation (SM count,
 * workgroup and subgroup slots, shared capacity bracketed by the grid, register file, allocation unit); then the
 * report lists which architectures share a cluster ID (recipe c2, and c1 for comparison) or fall within the
 * nearest-cluster threshold. Run with an argument to print the report (docs/fingerprint.md quotes it).
 *
 * Sources:
 * - NVIDIA compute capabilities 7.0-12.0: CCCL libcudacxx/include/cuda/__device/arch_traits.h (NVIDIA/cccl,
 *   commit 004ad1986064aaa82892ed00d0dbda88b90fa6e6): max_blocks_per_multiprocessor, max_threads_per_multiprocessor,
 *   max_shared_memory_per_multiprocessor, 65536 registers per SM and per block, 255 per thread, warp 32. The register
 *   allocation rule (256 registers per warp, 4 sub-partitions) is cuda_occupancy.h's cudaOccMaxBlocksPerSMRegsLimit.
 *   SM counts: V100 80, T4 40, A100 108, RTX 3090 82, Orin 16, RTX 4090 128, H100 SXM 132, B200 148, Thor 20,
 *   RTX 5090 170 (vendor specifications).
 * - AMD CDNA3 (MI300X, 304 CUs, wave64, 4 SIMDs x 8 waves, 64 KiB LDS per CU, 512 VGPRs per lane) and RDNA3
 *   (wave32, 2 SIMDs x 16 waves per CU, 64 KiB LDS per CU): ROCm documentation (rocprofiler-compute, "AMD GPU
 *   programming primer" tables). The workgroup slots per CU (16 here, GCN's barrier limit) and the VGPR
 *   granularity are the least certain figures of this table.
 * - Intel Xe-HPG (Arc A770, 32 Xe-cores, SIMD16, 16 EUs x 8 threads, 64 KiB SLM per Xe-core): Intel's oneAPI GPU
 *   optimization guide. Its register file (GRF) is per hardware thread and not modelled here.
 * These figures are only what the tables say; vkocc measures its devices. */
#include "check.h"
#include "internal.h"
#include "vkocc.h"
#include "model.h" /* vkocc_derive_fixed, the cluster recipes */
#include <math.h>
#include <stdlib.h>

typedef struct {
  const char *name;
  uint32_t sms, W, threads, sg, max_shared; /* max_shared: what one SM can grant at most */
  uint32_t regs, unit, parts;               /* register file per SM, per-subgroup allocation unit, partitions (0: none) */
  uint32_t max_regs;                        /* per invocation */
} arch;

static const arch archs[] = {
    {"sm_70 V100", 80, 32, 2048, 32, 96 * 1024, 65536, 256, 4, 255},
    {"sm_75 T4", 40, 16, 1024, 32, 64 * 1024, 65536, 256, 4, 255},
    {"sm_80 A100", 108, 32, 2048, 32, 164 * 1024, 65536, 256, 4, 255},
    {"sm_86 RTX 3090", 82, 16, 1536, 32, 100 * 1024, 65536, 256, 4, 255},
    {"sm_87 Orin", 16, 16, 1536, 32, 164 * 1024, 65536, 256, 4, 255},
    {"sm_89 RTX 4090", 128, 24, 1536, 32, 100 * 1024, 65536, 256, 4, 255},
    {"sm_90 H100", 132, 32, 2048, 32, 228 * 1024, 65536, 256, 4, 255},
    {"sm_100 B200", 148, 32, 2048, 32, 228 * 1024, 65536, 256, 4, 255},
    {"sm_110 Thor", 20, 24, 1536, 32, 228 * 1024, 65536, 256, 4, 255},
    {"sm_120 RTX 5090", 170, 24, 1536, 32, 100 * 1024, 65536, 256, 4, 255},
    {"CDNA3 MI300X", 304, 16, 2048, 64, 64 * 1024, 4 * 512 * 64, 8 * 64, 4, 512},
    {"RDNA3 RX 7900", 96, 16, 1024, 32, 64 * 1024, 2 * 1536 * 32, 8 * 32, 2, 256},
    {"Xe-HPG A770", 32, 64, 2048, 16, 64 * 1024, 0, 0, 0, 0},
};
#define NARCH (sizeof archs / sizeof *archs)

static uint32_t shared_of(const arch *a, uint32_t cap) { return cap < a->max_shared ? cap : a->max_shared; }

/* P per SM at (wg, shared, registers) by the architecture's rules */
static uint32_t per_sm(const arch *a, uint32_t M, uint32_t wg, uint32_t s, uint32_t r) {
  uint32_t k = (wg + a->sg - 1) / a->sg, p = a->W;
  if ((a->threads / a->sg) / k < p) p = (a->threads / a->sg) / k;
  if (s && M / s < p) p = M / s;
  if (r && a->regs) {
    uint32_t al = (r * a->sg + a->unit - 1) / a->unit * a->unit;
    if ((uint64_t)al * k > a->regs) return 0; /* more than a workgroup may have */
    uint32_t w = a->parts * ((a->regs / a->parts) / al) / k;
    if (w < p) p = w;
  }
  return p;
}

/* as vkocc's default surface measures (probes/surface.c): every multiple of the subgroup size up to 1024, shared
 * 0, 1 KiB, 2 KiB and eighths of the maximum, plus the canonical shared sizes, and a refinement column of 512-byte
 * steps at the smallest workgroup (the surface bisects where P changes), so the shared capacity is bracketed */
static uint32_t surface(const arch *a, uint32_t M, vkocc_surface_point *pts) {
  uint32_t n = 0, maxs = M < 49152 ? M : 49152, sh[32], ns = 0;
  sh[ns++] = 0, sh[ns++] = 1024, sh[ns++] = 2048;
  for (uint32_t i = 1; i <= 8; i++) sh[ns++] = maxs * i / 8 / 256 * 256;
  for (int j = 1; j < VKOCC_CANON_SHARED; j++) sh[ns++] = vkocc_canonical_shared[j];
  for (uint32_t wg = a->sg; wg <= 1024; wg += a->sg)
    for (uint32_t j = 0; j < ns; j++) {
      bool dup = false;
      for (uint32_t k = 0; k < j; k++) dup |= sh[k] == sh[j];
      if (dup || sh[j] > maxs) continue;
      pts[n++] = (vkocc_surface_point){.wg_size = wg, .shared_bytes = sh[j], .P = per_sm(a, M, wg, sh[j], 0) * a->sms};
    }
  for (uint32_t s = 1024 + 512; s <= maxs; s += 1024)
    pts[n++] = (vkocc_surface_point){.wg_size = a->sg, .shared_bytes = s, .P = per_sm(a, M, a->sg, s, 0) * a->sms,
                                     .refined = true};
  return n;
}

static void fingerprint(const arch *a, uint32_t M, vkocc_fingerprint *fp, vkocc_derived *d, bool check) {
  static vkocc_surface_point pts[16384];
  uint32_t n = surface(a, M, pts);
  vkocc_surface s = {.points = pts, .count = n, .subgroup_size = a->sg, .has_device = true};
  snprintf(s.device.name, sizeof s.device.name, "%s", a->name);
  s.device.max_invocations = s.device.max_wg_size_x = 1024;
  s.device.max_shared_bytes = M < 49152 ? M : 49152;
  s.device.subgroup_size = a->sg;
  CHECK(vkocc_derive(pts, n, a->sg, d) == VKOCC_OK, "%s: derive", a->name);
  CHECK(vkocc_fingerprint_from_surface(&s, d, fp) == VKOCC_OK, "%s: fingerprint", a->name);
  if (!check) return;
  CHECK(d->sm_count == a->sms && d->wg_per_sm == a->W && d->subgroups_per_sm == a->threads / a->sg,
        "%s at %u: derived %u SMs, %u workgroups, %u subgroups; table %u, %u, %u", a->name, M, d->sm_count, d->wg_per_sm,
        d->subgroups_per_sm, a->sms, a->W, a->threads / a->sg);
  /* the shared capacity where some point shows it binding: bracketed by the grid */
  if (d->shared_bound_seen)
    CHECK(d->shared_per_sm <= M && M <= d->shared_per_sm_max, "%s: capacity %u not in [%u, %u]", a->name, M,
          d->shared_per_sm, d->shared_per_sm_max);
  else
    CHECK(d->shared_per_sm <= M, "%s: the lower bound %u exceeds %u", a->name, d->shared_per_sm, M);
  CHECK_EQ_U(d->explained, d->total);
}

static void registers(const arch *a, const vkocc_derived *d) {
  if (!a->regs) return;
  vkocc_register_point pts[1024];
  uint32_t n = 0;
  static const uint32_t wgs[] = {64, 128, 192, 256, 384, 512, 768, 1024};
  for (size_t i = 0; i < sizeof wgs / sizeof *wgs; i++)
    for (uint32_t r = 8; r <= a->max_regs; r += 7) {
      uint32_t p = per_sm(a, 65536, wgs[i], 0, r);
      if (!p) continue; /* the driver would spill instead */
      pts[n++] = (vkocc_register_point){.wg_size = wgs[i], .registers = r, .P = p * a->sms, .requested = r};
    }
  vkocc_register_model m;
  CHECK(vkocc_derive_registers(pts, n, d, &m) == VKOCC_OK, "%s: registers", a->name);
  CHECK(m.regs_per_sm <= a->regs && a->regs <= m.regs_per_sm_max, "%s: register file %u not in [%u, %u]", a->name,
        a->regs, m.regs_per_sm, m.regs_per_sm_max);
  CHECK(m.alloc_unit == a->unit, "%s: unit %u, table %u", a->name, m.alloc_unit, a->unit);
  CHECK(m.partitions == a->parts || m.ambiguous, "%s: partitions %u, table %u", a->name, m.partitions, a->parts);
  CHECK_EQ_U(m.explained, m.total);
}

int main(int argc, char **argv) {
  bool report = argc > 1;
  static vkocc_fingerprint fps[NARCH][2];
  vkocc_derived d;
  static const uint32_t caps[2] = {49152, 102400};
  for (size_t i = 0; i < NARCH; i++)
    for (int c = 0; c < 2; c++) {
      fingerprint(&archs[i], shared_of(&archs[i], caps[c]), &fps[i][c], &d, true);
      if (c == 1) registers(&archs[i], &d);
    }
  /* one GPU, one ID: an architecture's two capacities share the c2 ID */
  for (size_t i = 0; i < NARCH; i++)
    CHECK(!strcmp(fps[i][0].cluster_id, fps[i][1].cluster_id), "%s: %s vs %s", archs[i].name, fps[i][0].cluster_id,
          fps[i][1].cluster_id);
  if (report) {
    printf("%-18s %-16s %-16s %-16s\n", "architecture", "c2 ID", "c1 at 48 KiB", "c1 at 100 KiB");
    for (size_t i = 0; i < NARCH; i++) {
      char a[24], b[24];
      vkocc_cluster_id_c1(&fps[i][0], a);
      vkocc_cluster_id_c1(&fps[i][1], b);
      printf("%-18s %-16s %-16s %-16s\n", archs[i].name, fps[i][0].cluster_id, a, b);
    }
    printf("\npairs with one c2 ID, or within %.2f (distance at 48 KiB / at 100 KiB):\n", VKOCC_CLUSTER_THRESHOLD);
  }
  uint32_t same = 0, near = 0;
  for (size_t i = 0; i < NARCH; i++)
    for (size_t j = i + 1; j < NARCH; j++) {
      bool one = !strcmp(fps[i][0].cluster_id, fps[j][0].cluster_id);
      double d0 = vkocc_fingerprint_distance(&fps[i][0], &fps[j][0]), d1 = vkocc_fingerprint_distance(&fps[i][1], &fps[j][1]);
      same += one;
      near += !one && (d0 <= VKOCC_CLUSTER_THRESHOLD || d1 <= VKOCC_CLUSTER_THRESHOLD);
      if (report && (one || d0 <= VKOCC_CLUSTER_THRESHOLD || d1 <= VKOCC_CLUSTER_THRESHOLD))
        printf("  %-18s %-18s %s  %.4f / %.4f\n", archs[i].name, archs[j].name, one ? "same ID " : "near    ", d0, d1);
    }
  /* what the tables imply (docs/fingerprint.md): the 2048-thread, 32-block NVIDIA SMs (V100, A100, H100, B200)
   * share one ID, as do the 1536-thread, 24-block ones (Ada, Thor, consumer Blackwell); the H100 and the B200 at
   * 100 KiB cannot be told apart at all */
  CHECK(!strcmp(fps[6][0].cluster_id, fps[2][0].cluster_id), "A100 and H100 share an ID");
  CHECK(!strcmp(fps[5][0].cluster_id, fps[9][0].cluster_id), "Ada and consumer Blackwell share an ID");
  CHECK(strcmp(fps[3][0].cluster_id, fps[5][0].cluster_id) != 0, "Ampere GA10x (16 blocks) and Ada (24) differ");
  CHECK(vkocc_fingerprint_distance(&fps[6][1], &fps[7][1]) == 0, "H100 and B200 at 100 KiB: distance 0");
  if (report) printf("\n%u pairs share a c2 ID, %u more are within the threshold\n", same, near);
  return check_report();
}
