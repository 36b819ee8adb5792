/* up a floor: the harness would know the fleet that drives it */
#include "fleet.h"
int wall_case(void) { return 0; }
