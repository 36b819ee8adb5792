/* the fleet on the harness and the results below it */
#include "user_results.h"
int wall_case(void) { return 0; }
