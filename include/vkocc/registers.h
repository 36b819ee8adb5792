/* vkocc/registers.h: the register file, the third axis of occupancy; part of <vkocc.h>. */
#ifndef VKOCC_API_REGISTERS_H
#define VKOCC_API_REGISTERS_H

#include "common.h"
#include "device.h"
#include "calibrate.h"
#include "probe.h"
#include "surface.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- registers: the third axis of occupancy
 * (docs/model.md "Registers"). Vulkan reports no register file; vkocc measures it: a probe pipeline whose
 * register use is set by a specialization constant, its register count read back from
 * VK_KHR_pipeline_executable_properties, P measured over workgroup size x registers. The model fitted to
 * those points:
 *   registers of one subgroup   a = ceil(r x g / U) x U                       (U: allocation unit per subgroup)
 *   subgroups per SM            Q x floor(floor(R / Q) / a)                   (Q: register-file partitions)
 *   workgroups per SM           floor(subgroups per SM / ceil(wg / g))
 * CUDA's cuda_occupancy.h computes the same (regsPerMultiprocessor R, 256-register warp granularity U, 4
 * sub-partitions Q on current GPUs). */

typedef struct vkocc_register_model {
  bool known;                   /* false: no register statistic (lavapipe), or nothing measured: "unknown" */
  uint32_t subgroup_size;       /* g */
  uint32_t regs_per_sm;         /* R: the lowest value consistent with the points */
  uint32_t regs_per_sm_max;     /* the highest consistent value (UINT32_MAX: only a lower bound) */
  uint32_t alloc_unit;          /* U: registers per subgroup are allocated in units of this many */
  uint32_t alloc_unit_per_invocation; /* U / g */
  uint32_t partitions;          /* Q */
  uint32_t max_per_invocation;  /* the most registers one invocation was seen to get */
  bool max_capped;              /* the cap was reached: more live values gave no more registers, or a point at the
                                   most registers asked for more live values than registers */
  bool bound_seen;              /* some point was limited by registers; else R is only a lower bound */
  bool ambiguous;               /* another (U, Q) explained as many points (the coarser one is kept) */
  uint32_t explained, total;    /* points the model (with the device's other limits) reproduces exactly */
  uint32_t unexplained[VKOCC_MAX_UNEXPLAINED]; /* indices of the others (the first 64) */
  uint32_t n_unexplained;
} vkocc_register_model;

/* One point of a register surface: P at a workgroup size for a pipeline the driver gave `registers`
 * registers per invocation and `shared_bytes` of shared memory (its own statistics). */
typedef struct vkocc_register_point {
  uint32_t wg_size, registers, shared_bytes, P;
  uint32_t requested;           /* live values the probe asked for (0: unknown) */
} vkocc_register_point;

/* The register surface: P of the register probe (a pipeline keeping `live` values live, the driver's register
 * count read back) over workgroup sizes x live values, shared memory 0. */
typedef struct vkocc_register_surface_options {
  const uint32_t *wg_sizes;     /* NULL: 64, 128, 256, 512, 768, 1024 (those the device allows) */
  uint32_t wg_count;
  const uint32_t *live;         /* values kept live, 0..256; NULL: 0, 8, 16, ..., 248, 256 */
  uint32_t live_count;
  vkocc_method method;          /* 0: the comb (the register probe needs the realtime shader clock) */
  void (*progress)(void *user, const char *phase, uint32_t done, uint32_t total);
  void *user;
} vkocc_register_surface_options;
/* *points malloc'd (free()), one per (wg, live) in that order. VKOCC_ERROR_UNSUPPORTED, with "the register axis
 * is unknown" in the message, where the driver reports no register statistic (VK_KHR_pipeline_executable_properties
 * absent, or no register count among its statistics: lavapipe): nothing is then measured. */
vkocc_status vkocc_register_surface_measure(vkocc_context *ctx, const vkocc_calibration *cal,
                                            const vkocc_register_surface_options *options,
                                            vkocc_register_point **points, uint32_t *count);

/* Fits R, U and Q to register points, given the device's other limits (base: SM count, W, S, g, M; from
 * the device surface, or vkocc_derive over the register points with the fewest registers). Every (U per
 * invocation 1, 2, 4, 8, 16; Q 1, 2, 4) is tried, R voted as S is; the one that reproduces the most
 * points wins (ties to the coarser unit, then more partitions: the smaller prediction). Points the fit
 * does not reproduce are listed, never smoothed. VKOCC_ERROR_RUNTIME when no point carries a register
 * count (out->known false: the axis is unknown). */
vkocc_status vkocc_derive_registers(const vkocc_register_point *points, uint32_t n, const vkocc_derived *base,
                                    vkocc_register_model *out);
/* The device's other limits (SM count, workgroup and subgroup slots) from register points alone, for when no
 * surface of the device is at hand: the SM count from every point, the slots from the point with the fewest
 * registers at each workgroup size. Weaker than the device surface (shared memory stays unknown). */
vkocc_status vkocc_register_base(const vkocc_register_point *points, uint32_t n, uint32_t subgroup_size,
                                 vkocc_derived *out);
/* Workgroups per SM the register file allows at (wg_size, registers per invocation); VKOCC_NO_LIMIT when
 * the model is unknown or registers is 0. */
uint32_t vkocc_register_limit(const vkocc_register_model *m, uint32_t wg_size, uint32_t registers);
/* vkocc_limits_per_sm_compute with the register limit filled in (and taking part in wg_per_sm/binding). */
void vkocc_limits_per_sm_registers(const vkocc_derived *d, const vkocc_register_model *m, uint32_t wg_size,
                                   uint32_t shared_bytes, uint32_t registers, vkocc_limits_per_sm *out);
/* P on the whole device of a pipeline with these statistics under the model (SMs x the smallest limit);
 * *binding: vkocc_limit bits (VKOCC_LIMIT_REGISTERS included). Limits that are unknown do not take part. */
uint32_t vkocc_model_P(const vkocc_derived *d, const vkocc_register_model *m, uint32_t wg_size, uint32_t shared_bytes,
                       uint32_t registers, uint32_t *binding);

/* The register document (schema vkocc.registers/1, `vkocc surface --registers`): the points, the device's other
 * limits the model was fitted with (base), the model. */
typedef struct vkocc_register_doc {
  vkocc_device_info device;
  bool has_device;
  vkocc_register_point *points; /* malloc'd */
  uint32_t count;
  vkocc_derived base;
  bool has_base;
  vkocc_register_model model;   /* known false when absent or unknown */
} vkocc_register_doc;
/* Reads a register document: errors (VKOCC_ERROR_USAGE) name the file and JSON path, also for a point that
 * repeats (wg_size, registers, shared_bytes) with another P (conflicting points) and for a document without
 * points. Free with vkocc_register_doc_free (also after a failure). */
vkocc_status vkocc_register_doc_load(const char *path, vkocc_register_doc *out);
void vkocc_register_doc_free(vkocc_register_doc *d);
/* Where `vkocc surface --registers` and `vkocc fingerprint` keep a device's register document:
 * $XDG_CACHE_HOME/vkocc/registers-UUID-DRIVER.json ("" without a cache directory). The file is sealed: it is
 * used only when its checksum and key (device, driver name, info and version, the driver's environment, vkocc's
 * version) match; an edited or foreign file is a miss. Not the queue family: the register file is the same on every
 * family, so a model measured on one serves the others (the document's base limits are its own family's). */
void vkocc_register_cache_path(const vkocc_device_info *d, char *out, size_t len);
/* The cached register model of the device: true when a document with a known model is there. */
bool vkocc_register_model_from_cache(const vkocc_device_info *d, vkocc_register_model *m);
/* The device's cached register document, whole (vkocc_register_model_from_cache keeps only its model): true and
 * out filled (free with vkocc_register_doc_free) when the cache holds the entry sealed with this device's key (the
 * device, driver, queue family, driver environment and vkocc's version); false on a miss, an edited, foreign or
 * unsealed file among them. */
bool vkocc_register_doc_from_cache(const vkocc_device_info *d, vkocc_register_doc *out);

/* The register file as the vendor reports it, a cross-check for the measured model (never used to measure):
 * VK_AMD_shader_core_properties' VGPRs per SIMD (per lane), their allocation granularity and SIMDs per CU give
 * registers per CU = vgprs_per_simd x wavefront size x SIMDs, allocated per invocation in units of the granularity,
 * in SIMDs partitions. source "" where the device reports none (NVIDIA, Intel, lavapipe). */
typedef struct vkocc_vendor_registers {
  char source[48];
  uint32_t vgprs_per_simd, vgpr_granularity, min_vgprs, max_vgprs, sgprs_per_simd, simds_per_cu, wavefront_size;
  uint32_t regs_per_sm;         /* vgprs_per_simd x wavefront_size x simds_per_cu (0 unknown) */
} vkocc_vendor_registers;
void vkocc_vendor_registers_get(const vkocc_context *ctx, vkocc_vendor_registers *out);

#ifdef __cplusplus
}
#endif
#endif
