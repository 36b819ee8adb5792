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
 * - The architecture signature (recipe c3): per-SM, per-clock throughputs from the CUDA C++ Programming Guide,
 *   "Arithmetic Instructions", table "Throughput of Native Arithmetic Instructions (Number of Results per Clock
 *   Cycle per Multiprocessor)": 32-bit FP add/multiply/multiply-add 64 (7.x, 8.0), 128 (8.6, 8.9, 9.0); 64-bit FP
 *   32 (7.0, 8.0), 2 (7.5, 8.6, 8.9), 64 (9.0); 16-bit FP (half2 counting two) 128 (7.x, 8.9), 256 (8.0, 8.6, 9.0);
 *   32-bit integer multiply/multiply-add 64 (7.x to 9.0). The FP32 rate is the lanes; the others enter as ratios
 *   to it, as vkocc measures them. Compute capabilities 8.7, 10.0, 11.0 and 12.0 (Orin, B200, Thor, RTX 5090) are
 *   not in the edition of that table cited here, and the dependent FMA and shared-load latencies (Jia et al.
 *   2018/2019, Luo et al. 2024) were not checked against the papers: those values stay out (unknown), never
 *   guessed. Vendor IDs are the PCI vendor IDs (0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel).
 * These figures are only what the tables say; vkocc measures its devices. */
#include "check.h"
#include "internal.h"
#include "vkocc.h"
#include "model.h" /* fingerprint_derive_fixed, the cluster recipes */
#include <math.h>
#include <stdlib.h>

typedef struct {
  const char *name;
  uint32_t sms, W, threads, sg, max_shared; /* max_shared: what one SM can grant at most */
  uint32_t regs, unit, parts;               /* register file per SM, per-subgroup allocation unit, partitions (0: none) */
  uint32_t max_regs;                        /* per invocation */
} arch;

/* The published part of each architecture's signature: vendor, then results per SM per clock (0: not published
 * in the sources above) of FP32, FP64, FP16 and INT32 multiply-add, in the order of archs[]. */
typedef struct { uint32_t vendor; double fp32, fp64, fp16, int32; } published_sig;
static const published_sig sigs[] = {
    {0x10de, 64, 32, 128, 64},   /* 7.0 */
    {0x10de, 64, 2, 128, 64},    /* 7.5 */
    {0x10de, 64, 32, 256, 64},   /* 8.0 */
    {0x10de, 128, 2, 256, 64},   /* 8.6 */
    {0x10de, 0, 0, 0, 0},        /* 8.7: not in the cited table */
    {0x10de, 128, 2, 128, 64},   /* 8.9 */
    {0x10de, 128, 64, 256, 64},  /* 9.0 */
    {0x10de, 0, 0, 0, 0},        /* 10.0 */
    {0x10de, 0, 0, 0, 0},        /* 11.0 */
    {0x10de, 0, 0, 0, 0},        /* 12.0 */
    {0x1002, 0, 0, 0, 0},        /* CDNA3 */
    {0x1002, 0, 0, 0, 0},        /* RDNA3 */
    {0x8086, 0, 0, 0, 0},        /* Xe-HPG */
};

/* The noise measured on an H200 (50 fresh processes, both queue families, quiet and beside CPU hogs and a GPU
 * neighbour: docs/results/h100/signature): the largest deviation of a run's median from the median of all runs. */
static const double noise[VKOCC_SIG_COUNT] = {0.0001, 0.0001, 0.0474, 0.0452, 0.0391, 0.0452};

static void sig_value(vkocc_signature *g, vkocc_sig_signal s, double v) {
  vkocc_sig_value *x = &g->v[s];
  x->state = v > 0 ? VKOCC_SIG_MEASURED : VKOCC_SIG_UNAVAILABLE;
  x->value = v > 0 ? v : NAN;
  x->repeats = v > 0;
  x->samples[0] = v;
}

/* The signature the published figures give, each value scaled by (1 + jitter * its measured noise). */
static void signature_of(size_t i, const arch *a, double jitter, vkocc_signature *g) {
  const published_sig *p = &sigs[i];
  memset(g, 0, sizeof *g);
  g->present = true;
  g->vendor_id = p->vendor;
  g->subgroup_min = g->subgroup_max = a->sg; /* the table's subgroup size (c2 holds it already) */
  g->float64 = g->int64 = g->float16 = true; /* feature support is not modelled: equal for all */
  sig_value(g, VKOCC_SIG_FMA_LATENCY, 0);
  sig_value(g, VKOCC_SIG_SHARED_LATENCY, 0);
  sig_value(g, VKOCC_SIG_FP32_RATE, p->fp32 * (1 + jitter * noise[VKOCC_SIG_FP32_RATE]));
  sig_value(g, VKOCC_SIG_INT32_RATIO, p->fp32 ? p->int32 / p->fp32 * (1 + jitter * noise[VKOCC_SIG_INT32_RATIO]) : 0);
  sig_value(g, VKOCC_SIG_FP64_RATIO, p->fp32 ? p->fp64 / p->fp32 * (1 + jitter * noise[VKOCC_SIG_FP64_RATIO]) : 0);
  sig_value(g, VKOCC_SIG_FP16_RATIO, p->fp32 ? p->fp16 / p->fp32 * (1 + jitter * noise[VKOCC_SIG_FP16_RATIO]) : 0);
}

/* Whether two architectures share a c3 ID on what is published for both (a value unknown for either is left out
 * of both); *known: the signals both have. */
static bool share_c3(const vkocc_fingerprint *x, const vkocc_fingerprint *y, uint32_t *known) {
  vkocc_fingerprint a = *x, b = *y;
  *known = 0;
  for (int s = 0; s < VKOCC_SIG_COUNT; s++) {
    if (a.signature.v[s].state != VKOCC_SIG_MEASURED || b.signature.v[s].state != VKOCC_SIG_MEASURED)
      a.signature.v[s].state = b.signature.v[s].state = VKOCC_SIG_UNAVAILABLE;
    else
      (*known)++;
  }
  vkocc_fingerprint_set_ids(&a);
  vkocc_fingerprint_set_ids(&b);
  return !strcmp(a.cluster_id, b.cluster_id);
}

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
      fingerprint_cluster_id_c1(&fps[i][0], a);
      fingerprint_cluster_id_c1(&fps[i][1], b);
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

  /* recipe c3: the published signature beside the occupancy class; stable under the noise measured on an H200 */
  static vkocc_fingerprint c3[NARCH];
  _Static_assert(sizeof sigs / sizeof *sigs == NARCH, "one signature row per architecture");
  for (size_t i = 0; i < NARCH; i++) {
    c3[i] = fps[i][0];
    signature_of(i, &archs[i], 0, &c3[i].signature);
    vkocc_fingerprint_set_ids(&c3[i]);
    for (int j = -1; j <= 1; j += 2) { /* every value at the measured noise's extremes: the same ID */
      vkocc_fingerprint n = fps[i][1];
      signature_of(i, &archs[i], j, &n.signature);
      vkocc_fingerprint_set_ids(&n);
      CHECK(!strcmp(n.cluster_id, c3[i].cluster_id), "%s: noise %+d gives %s, not %s", archs[i].name, j, n.cluster_id,
            c3[i].cluster_id);
    }
  }
  if (report) printf("\npairs with one c2 ID (before) and whether they share a c3 ID (after), on the signals published "
                     "for both:\n");
  uint32_t same3 = 0, unknown3 = 0;
  for (size_t i = 0; i < NARCH; i++)
    for (size_t j = i + 1; j < NARCH; j++) {
      if (strcmp(fps[i][0].cluster_id, fps[j][0].cluster_id)) continue;
      uint32_t known;
      bool one = share_c3(&c3[i], &c3[j], &known);
      bool vendor = sigs[i].vendor != sigs[j].vendor;
      same3 += one;
      unknown3 += one && !known;
      if (report)
        printf("  %-18s %-18s %s\n", archs[i].name, archs[j].name,
               !one ? (vendor ? "separated by the vendor" : "separated by the published throughputs")
               : known ? "same c3 ID on the published throughputs"
                       : "same c3 ID: no throughput published for one of them (cannot tell)");
    }
  if (report) {
    printf("\n%-18s %-17s %s\n", "architecture", "c3 ID", "signature text (published values; u: unknown)");
    for (size_t i = 0; i < NARCH; i++) {
      char t[512];
      vkocc_signature_text(&c3[i].signature, t, sizeof t);
      printf("%-18s %-17s %s\n", archs[i].name, c3[i].cluster_id, t);
    }
    printf("\n%u of %u pairs still share a c3 ID, %u of them only because a figure is unpublished\n", same3, same,
           unknown3);
  }
  /* what the published throughputs separate: V100 from A100 (FP16 2:1 vs 4:1), A100 from H100 (64 vs 128 FP32
   * lanes), T4 from RDNA3 (the vendor), GA10x from Ada (FP16 2:1 vs 1:1) */
  uint32_t k;
  CHECK(!share_c3(&c3[0], &c3[2], &k) && k == 4, "V100 and A100 separate");
  CHECK(!share_c3(&c3[2], &c3[6], &k), "A100 and H100 separate");
  CHECK(!share_c3(&c3[1], &c3[11], &k) && k == 0, "T4 and RDNA3 separate by the vendor alone");
  CHECK(!share_c3(&c3[3], &c3[5], &k), "GA10x and Ada separate");
  CHECK(share_c3(&c3[6], &c3[7], &k) && k == 0, "H100 and B200: nothing published for B200 here, cannot tell");
  return check_report();
}
