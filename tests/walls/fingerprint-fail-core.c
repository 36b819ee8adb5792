/* sideways: a pure model into the device room (floor 2 both) */
#include "internal.h"
int wall_case(void) { return 0; }
