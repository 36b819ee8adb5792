/* the device room is where Vulkan lives */
#include <vulkan/vulkan.h>
int wall_case(void) { return 0; }
