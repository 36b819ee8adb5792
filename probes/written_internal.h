/* Internal to probes/: the statistic classes of probes/written.c, what the augmentation variants measured, and the
 * raw mode of the written-pipeline rule (the register probe wants the augmented pipeline's own P and statistics,
 * whatever the written ones). */
#ifndef VKOCC_WRITTEN_INTERNAL_H
#define VKOCC_WRITTEN_INTERNAL_H
#include "vkocc.h"

enum { VKOCC_STAT_OTHER, VKOCC_STAT_REGISTERS, VKOCC_STAT_SHARED, VKOCC_STAT_BOUNDS, VKOCC_STAT_BOUNDS_INVERSE,
       VKOCC_STAT_NEUTRAL };
/* What a driver statistic is to occupancy, from its name (NVIDIA, RADV and ANV names). */
int probes_stat_kind(const char *name);
/* What vkocc_pipeline_occupancy_model's augmentation variants gave: P measured with one whose statistics equal
 * the written ones (0: none), its name, and what each variant tried compiled to. */
typedef struct probes_written_variants {
  uint32_t P;
  char name[24];
  char tried[512];
} probes_written_variants;
/* The written-pipeline rule on a measured result. variants: NULL when none were tried. raw: keep the measured P
 * where the rule cannot establish the written one (written->evidence VKOCC_WRITTEN_NONE): the register probe. */
vkocc_status probes_written_apply(vkocc_context *ctx, const vkocc_derived *d, const vkocc_register_model *rm,
                                 const probes_written_variants *variants, bool raw, vkocc_pipeline_result *out);
/* Builds the pipelines vkocc_pipeline_occupancy would build for sh (the augmented one and the one as written, for
 * their statistics) and destroys them again: the context's pipeline cache then holds them, and the measurement's
 * own creation is a hit. Safe on several threads of one context for shaders whose resources are buffers (the
 * register probe's); the pipelines of a sweep are built side by side this way before it is measured in order. */
vkocc_status probes_pipeline_warm(vkocc_context *ctx, const vkocc_shader_desc *sh);
/* vkocc_pipeline_occupancy_model with the rule's raw mode (the register probe). */
vkocc_status probes_pipeline_occupancy_raw(vkocc_context *ctx, const vkocc_calibration *cal, const vkocc_shader_desc *sh,
                                          const vkocc_probe_options *opt, vkocc_pipeline_result *out);
/* Every statistic that bounds occupancy (all but the neutral ones: spills, code size, ...) equal in a and b
 * (absent in both counts as equal). Pure. */
bool probes_written_stats_equal(uint32_t n, const char *const *names, const double *a, const double *b);
/* The first variant (index into variant_stats; NULL entries skipped) whose statistics equal the written ones
 * by probes_written_stats_equal; -1 when none. Pure. */
int probes_written_pick_variant(uint32_t n, const char *const *names, const double *written,
                               const double *const *variant_stats, uint32_t nvariants);
#endif
