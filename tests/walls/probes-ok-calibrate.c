/* a floor down: the probes on the calibration */
#include "calibrate.h"
int wall_case(void) { return 0; }
