# The device-wide barrier: the GLSL includes (glsl/vkocc/*.glsl) and the shipped barrier kernels, embedded as text so the
# library resolves `#include <vkocc/...>` at run time (compile/compile.c) and compiles the kernels with the
# device's clock defines; cmake/library.cmake installs the includes (share/vkocc/glsl) for applications that compile with their own glslc.
set(VKOCC_EMBEDDED_TEXT glsl/vkocc/device_barrier.glsl glsl/vkocc/persistent.glsl
    kernels/barrier/barrier_test.comp kernels/barrier/stencil.comp kernels/barrier/histogram.comp)
set(VKOCC_EMBEDDED_DEPS "")
foreach(f IN LISTS VKOCC_EMBEDDED_TEXT)
  list(APPEND VKOCC_EMBEDDED_DEPS ${CMAKE_CURRENT_SOURCE_DIR}/${f})
endforeach()
add_custom_command(
  OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/shaders/embedded_text.c
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/shaders
  COMMAND ${CMAKE_COMMAND} "-DFILES=${VKOCC_EMBEDDED_TEXT}" -DROOT=${CMAKE_CURRENT_SOURCE_DIR}
          -DOUT=${CMAKE_CURRENT_BINARY_DIR}/shaders/embedded_text.c -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed_text.cmake
  DEPENDS ${VKOCC_EMBEDDED_DEPS} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed_text.cmake
  COMMENT "embedding GLSL includes and barrier kernels" VERBATIM)
list(APPEND VKOCC_LIB_SOURCES persistent/barrier.c)
list(APPEND VKOCC_SHADER_SOURCES ${CMAKE_CURRENT_BINARY_DIR}/shaders/embedded_text.c) # generated: not filtered
