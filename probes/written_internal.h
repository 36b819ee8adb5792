/* Internal to probes/: the statistic classes of probes/written.c and the raw mode of the written-pipeline
 * rule (the register probe wants the augmented pipeline's own P and statistics, whatever the written ones). */
#ifndef VKOCC_WRITTEN_INTERNAL_H
#define VKOCC_WRITTEN_INTERNAL_H
#include "vkocc.h"

enum { VKOCC_STAT_OTHER, VKOCC_STAT_REGISTERS, VKOCC_STAT_SHARED, VKOCC_STAT_BOUNDS, VKOCC_STAT_BOUNDS_INVERSE,
       VKOCC_STAT_NEUTRAL };
/* What a driver statistic is to occupancy, from its name (NVIDIA, RADV and ANV names). */
int vkocc_stat_kind(const char *name);
/* While set on this thread, vkocc_written_apply keeps the measured P where the rule cannot establish the
 * written one (written->evidence VKOCC_WRITTEN_NONE): for the register probe only. */
extern _Thread_local bool vkocc_written_raw;
vkocc_status vkocc_written_apply(vkocc_context *ctx, const vkocc_derived *d, const vkocc_register_model *rm,
                                 vkocc_pipeline_result *out);
#endif
