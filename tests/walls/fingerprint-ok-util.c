/* a pure model on the ground floor's helpers */
#include "util.h"
int wall_case(void) { return 0; }
