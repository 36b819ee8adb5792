/* Internal to the calibration: the acceptance rule of a fit, apart so that it is tested on synthetic fits. */
#ifndef VKOCC_CALIBRATE_H
#define VKOCC_CALIBRATE_H
#include "vkocc.h"

/* A calibration to measure with: the clock's fit (the realtime clock's where there is one, else the spin's)
 * and the subgroup clock's where there is one run through every one of `lengths` spin lengths (a fit over
 * fewer points can have R^2 = 1 and any slope), rise, and explain the data (R^2 >= 0.999). */
bool vkocc_calibration_fit_good(const vkocc_calibration *cal, uint32_t lengths);
#endif
