/* sideways: the search strategies into the characterization (floor 5 both) */
#include "characterize.h"
int wall_case(void) { return 0; }
