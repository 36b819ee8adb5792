/* the CLI on the public header */
#include "vkocc.h"
int wall_case(void) { return 0; }
