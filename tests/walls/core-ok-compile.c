/* the device room on the compiler */
#include "compile.h"
int wall_case(void) { return 0; }
