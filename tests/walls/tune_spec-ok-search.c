/* the spec on the search below it (its budget) */
#include "search.h"
int wall_case(void) { return 0; }
