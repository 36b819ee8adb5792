/* up a floor: a pure model into the documents */
#include "io.h"
int wall_case(void) { return 0; }
