/* up a floor: the compiler into the device room */
#include "internal.h"
int wall_case(void) { return 0; }
