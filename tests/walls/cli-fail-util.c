/* the CLI into an internal header */
#include "util.h"
int wall_case(void) { return 0; }
