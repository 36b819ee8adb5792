/* a Vulkan-free room into a room that is not */
#include "compile.h"
int wall_case(void) { return 0; }
