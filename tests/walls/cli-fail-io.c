/* the CLI into the documents' internal header */
#include "io.h"
int wall_case(void) { return 0; }
