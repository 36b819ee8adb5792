/* Synthetic devices for tests: an architecture's per-SM rules at any SM count, as a surface on the
 * canonical grid, derived and fingerprinted through the library. */
#ifndef VKOCC_TEST_SYNTH_H
#define VKOCC_TEST_SYNTH_H
#include "vkocc.h"
#include <stdio.h>
#include <string.h>

typedef struct { const char *name; uint32_t W, S, sg, M, max_wg, max_shared; } synth_arch;

static uint32_t synth_P(const synth_arch *a, uint32_t sms, uint32_t wg, uint32_t s) {
  uint32_t k = (wg + a->sg - 1) / a->sg, p = a->W;
  if (a->S / k < p) p = a->S / k;
  if (s && a->M / s < p) p = a->M / s;
  return p * sms;
}

/* Fills fp; noise: number of points perturbed by +sms (deterministic positions). */
static vkocc_status synth_fingerprint(const synth_arch *a, uint32_t sms, uint32_t noise, vkocc_fingerprint *fp) {
  static vkocc_surface_point pts[VKOCC_CANON_WG * VKOCC_CANON_SHARED];
  uint32_t n = 0;
  for (int i = 0; i < VKOCC_CANON_WG; i++)
    for (int j = 0; j < VKOCC_CANON_SHARED; j++) {
      uint32_t wg = vkocc_canonical_wg[i], s = vkocc_canonical_shared[j];
      if (wg > a->max_wg || s > a->max_shared) continue;
      pts[n] = (vkocc_surface_point){.wg_size = wg, .shared_bytes = s, .P = synth_P(a, sms, wg, s), .agree = true};
      n++;
    }
  for (uint32_t k = 0; k < noise; k++) pts[(17 + 37 * k) % n].P += sms;
  vkocc_surface s = {.points = pts, .count = n, .subgroup_size = a->sg, .has_device = true};
  snprintf(s.device.name, sizeof s.device.name, "%s (%u SMs)", a->name, sms);
  s.device.max_invocations = s.device.max_wg_size_x = a->max_wg;
  s.device.max_shared_bytes = a->max_shared;
  s.device.subgroup_size = a->sg;
  vkocc_derived d;
  vkocc_status st = vkocc_derive(pts, n, a->sg, &d);
  if (st) return st;
  return vkocc_fingerprint_from_surface(&s, &d, fp);
}

static const synth_arch SYNTH_HOPPER = {"hopper", 32, 64, 32, 102400, 1024, 49152};
static const synth_arch SYNTH_AMPERE = {"ampere-ga102", 16, 48, 32, 102400, 1024, 49152};
static const synth_arch SYNTH_RDNA = {"rdna-wave32", 32, 32, 32, 65536, 1024, 65536};
static const synth_arch SYNTH_GCN = {"gcn-wave64", 40, 40, 64, 65536, 1024, 65536};
static const synth_arch SYNTH_XE = {"xe-simd16", 16, 64, 16, 131072, 1024, 65536};
#endif
