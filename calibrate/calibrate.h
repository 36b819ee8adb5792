/* Internal to the calibration: the acceptance rule of a fit and the fit over the dispatches' starts, apart so that
 * they are tested on synthetic data. */
#ifndef VKOCC_CALIBRATE_H
#define VKOCC_CALIBRATE_H
#include "vkocc.h"

/* A calibration to measure with: the clock's fit (the realtime clock's where there is one, else the spin's)
 * and the subgroup clock's where there is one run through every one of `lengths` spin lengths (a fit over
 * fewer points can have R^2 = 1 and any slope), rise, and explain the data (R^2 >= 0.999). */
bool calibrate_fit_good(const vkocc_calibration *cal, uint32_t lengths);
/* The fewest spin lengths a calibration judges a line from: 2 or 3 points fit a line with R^2 (near) 1 whatever
 * they measured. */
#define VKOCC_CALIBRATION_MIN_LENGTHS 4u

/* Whether the clock figures are ones the timestamps allow, from each fitted spin: its clock ticks (realtime
 * ticks or subgroup cycles) and its queue interval in ns, n of them. A spin's clock reads lie inside its
 * dispatch, so ticks x ns_per_tick may not exceed the interval (beyond 1% and 4 timestamp ticks); and the
 * spins must be long enough to judge: the shortest at least 100 ticks of its clock, the ladder spanning at
 * least 1000 timestamp ticks of queue time. false, with the numbers in why, otherwise. */
bool calibrate_plausible(double ns_per_tick, const char *clock, const double *ticks, const double *ns, uint32_t n,
                                 double timestamp_period, char *why, size_t len);

/* One dispatch's start: the queue's timestamp before it (in ticks) and the realtime clock at its spin's start. */
typedef struct calibrate_clock_anchor { uint64_t ts, rt; } calibrate_clock_anchor;

/* ns per realtime tick from the starts of a run's dispatches, in order: queue ns since the first start
 * against realtime ticks since the first, fitted (outliers dropped) over the whole run, so what a dispatch
 * does after its spin does not enter and the time to its start only as jitter around a constant. Timestamps
 * are read within ts_bits and times period; a realtime clock of rt_bits < 64 is unwrapped with
 * interval_ns_per_tick (the intervals' estimate). Starts where a clock went backwards are skipped. *span_ns:
 * the queue time the fit covers. VKOCC_ERROR_RUNTIME with fewer than 2 usable starts. */
vkocc_status calibrate_anchor_fit(const calibrate_clock_anchor *a, uint32_t n, uint32_t ts_bits, double period,
                                          uint32_t rt_bits, double interval_ns_per_tick, vkocc_linfit *fit,
                                          double *span_ns);

/* Sets cal->ns_per_tick, from_starts, anchor_fit, anchor_span_ns and tick_equals_period from the starts and
 * cal->realtime_fit: the starts' slope where it agrees with the intervals' within 10% (and keeps at least
 * `lengths` starts), else the intervals'. Where the two differ by more than 2%, note (or else "") says which
 * was used and both figures. */
void calibrate_choose_tick(vkocc_calibration *cal, const calibrate_clock_anchor *starts, uint32_t n, uint32_t rt_bits,
                                   uint32_t lengths, char *note, size_t note_size);
#endif
