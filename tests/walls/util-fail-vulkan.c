/* the Vulkan-free ground floor reaching Vulkan */
#include <vulkan/vulkan.h>
int wall_case(void) { return 0; }
