# vkocc_shader(NAME SOURCE [glslc defines...]): compiles SOURCE to SPIR-V and embeds it as
# `const uint32_t shaders_spv_NAME[]` / `shaders_spv_NAME_size` (bytes) in the generated shaders/NAME.c.
set(VKOCC_SHADER_SOURCES "")
function(vkocc_shader name src)
  set(spv ${CMAKE_CURRENT_BINARY_DIR}/shaders/${name}.spv)
  set(csrc ${CMAKE_CURRENT_BINARY_DIR}/shaders/${name}.c)
  add_custom_command(
    OUTPUT ${csrc}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/shaders
    COMMAND ${GLSLC} --target-env=vulkan1.1 -O -Werror ${ARGN} -o ${spv} ${CMAKE_CURRENT_SOURCE_DIR}/${src}
    COMMAND ${CMAKE_COMMAND} -DSPV=${spv} -DOUT=${csrc} -DNAME=${name} -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed_spirv.cmake
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${src} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed_spirv.cmake
    COMMENT "glslc ${src} -> ${name}"
    VERBATIM)
  set(VKOCC_SHADER_SOURCES ${VKOCC_SHADER_SOURCES} ${csrc} PARENT_SCOPE)
endfunction()
