/* up a floor: the search would know the T1 reader above it */
#include "t1.h"
int wall_case(void) { return 0; }
