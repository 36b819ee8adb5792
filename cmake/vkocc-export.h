/* Force-included (-include) into every source of the vkocc libraries, which are compiled with
 * -fvisibility=hidden: whatever include/vkocc.h and include/vkocc_plot.h declare gets default visibility,
 * so a function or variable added to a public header is exported with no annotation, and nothing else is. The linker version
 * script generated from the same headers (cmake/symbols.cmake) says the same thing a second way. */
#pragma GCC visibility push(default)
#include "vkocc_plot.h"
#pragma GCC visibility pop
