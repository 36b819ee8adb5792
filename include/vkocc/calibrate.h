/* vkocc/calibrate.h: the clock calibration; part of <vkocc.h>. */
#ifndef VKOCC_API_CALIBRATE_H
#define VKOCC_API_CALIBRATE_H

#include "common.h"
#include "device.h"
#include "numbers.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ calibration
 * The shader's clocks against the queue's timestamps: a spin of known length is timed both ways at several
 * lengths and a line fitted, so later measurements can read durations inside the shader. */

typedef struct vkocc_calibrate_options {
  uint32_t lengths;     /* spin lengths; 0 = 8 */
  double span;          /* longest / shortest; 0 = 20 */
  uint32_t repeats;     /* per length; 0 = 5 */
  uint32_t warmups;     /* discarded dispatches before measuring; 0 = 3 */
  double longest_ns;    /* target duration of the longest spin; 0 = 4 ms (16 ms on CPU devices) */
} vkocc_calibrate_options;

/* Named calibrations: FULL is vkocc_calibrate's defaults (all fields 0); QUICK (4 lengths, 3 repeats, the
 * longest spin 1 ms) is what a probe, a surface or calc runs when no calibration was given. */
typedef enum vkocc_calibration_preset {
  VKOCC_CALIBRATION_FULL = 0,
  VKOCC_CALIBRATION_QUICK = 1,
} vkocc_calibration_preset;
void vkocc_calibrate_preset(vkocc_calibration_preset preset, vkocc_calibrate_options *out);

typedef struct vkocc_calibration {
  bool has_device_clock, has_subgroup_clock;
  double ns_per_tick;        /* realtime clock: queue ns per clockRealtimeEXT tick (anchor_fit's slope, or where
                              * the starts disagree with the intervals by more than 10%, realtime_fit's; note says) */
  vkocc_linfit realtime_fit; /* each dispatch's queue ns against its realtime ticks (intercept: the overhead) */
  vkocc_linfit anchor_fit;   /* queue ns against realtime ticks at the dispatches' starts, over the whole run */
  double anchor_span_ns;     /* the queue time anchor_fit covers */
  bool from_starts;          /* ns_per_tick is anchor_fit's slope */
  double shader_clock_mhz;   /* subgroup clock: cycles per microsecond of queue time */
  vkocc_linfit subgroup_fit; /* queue ns against subgroup-clock cycles */
  vkocc_linfit spin_fit;     /* queue ns against spin iterations (always measured) */
  double overhead_ns;        /* dispatch overhead: intercept of the realtime fit, else of the spin fit */
  double timestamp_period;
  uint32_t timestamp_valid_bits;
  bool tick_equals_period;   /* ns_per_tick within 2% of timestampPeriod */
  uint32_t samples;          /* dispatches measured (warm-ups excluded) */
  uint32_t wraps;            /* deltas that needed a wrap correction */
  uint32_t backwards;        /* samples dropped because a clock went backwards */
  double longest_ns;         /* longest spin actually measured */
  uint32_t attempts;         /* measurements made: a poor fit (R^2 < 0.999) is measured again, 3 at most */
  bool poor_fit;             /* still poor after 3: the figures are not to be trusted */
  char note[256];            /* what could not be measured, if anything */
} vkocc_calibration;

/* Measures the clocks. A fit below R^2 0.999 (or not rising, or missing a length) is measured again with
 * spins 4 and 16 times longer; still poor after 3 attempts: VKOCC_ERROR_RUNTIME (reason VKOCC_REASON_NOISY)
 * with the fits' numbers in the message, and *out filled with poor_fit set (the evidence, never a clock to measure with). */
vkocc_status vkocc_calibrate(vkocc_context *ctx, const vkocc_calibrate_options *options,
                             vkocc_calibration *out);

/* The documents of a calibration and of a probe (what `vkocc calibrate -o`, `probe -o` and `probe --raw` write;
 * the calibration's here, the probe's two with the probes). Each is stamped with its schema and vkocc's version
 * and written whole (through a temporary file and a rename; "-": standard output). vkocc_calibration_save:
 * vkocc.calibration/1, the device and the calibration. vkocc_probe_save: vkocc.probe/1, the device and the
 * probe's result with every repetition. vkocc_raw_probe_save: vkocc.raw-probe/1 (vkocc_raw_probe_load reads it),
 * the last comb's intervals of a result probed with keep_raw. VKOCC_ERROR_USAGE for a missing argument (or a
 * result without repetitions); otherwise the errors of vkocc_write_file_atomic. */
vkocc_status vkocc_calibration_save(const vkocc_device_info *device, const vkocc_calibration *cal, const char *path);

#ifdef __cplusplus
}
#endif
#endif
