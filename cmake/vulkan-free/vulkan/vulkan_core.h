/* First on the include path of the Vulkan-free rooms (cmake/rooms.cmake): a Vulkan header reached from one of them,
 * directly or through another room's header, stops the build here. */
#error "a Vulkan-free room (util/, kernels/, fingerprint/, viewer/) reached a Vulkan header"
