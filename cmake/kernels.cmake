# Tunable kernels (kernels/<name>/): the GLSL text <name>.comp is embedded into libvkocc as
# `const char kernels_glsl_<name>[]` and compiled at run time (libshaderc), variants by #define and tuning
# parameters as specialization constants; its built-in T1 spec <name>.t1.json as `const char kernels_t1_<name>[]`
# (tune/results/builtin.c). In script mode (-DTEXT_IN=... -DOUT=... -DVAR=...) this file writes one generated C source.
if(DEFINED TEXT_IN)
  file(READ ${TEXT_IN} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
  get_filename_component(from ${TEXT_IN} NAME)
  file(WRITE ${OUT} "/* generated from ${from} by cmake/kernels.cmake */\nconst char ${VAR}[] = {${body}0};\n")
  return()
endif()
set(VKOCC_KERNEL_NAMES histogram reduce)
foreach(k IN LISTS VKOCC_KERNEL_NAMES)
  foreach(part IN ITEMS glsl t1)
    if(part STREQUAL "glsl")
      set(src ${CMAKE_CURRENT_SOURCE_DIR}/kernels/${k}/${k}.comp)
    else()
      set(src ${CMAKE_CURRENT_SOURCE_DIR}/kernels/${k}/${k}.t1.json)
    endif()
    set(csrc ${CMAKE_CURRENT_BINARY_DIR}/kernels/${part}_${k}.c)
    add_custom_command(
      OUTPUT ${csrc}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/kernels
      COMMAND ${CMAKE_COMMAND} -DTEXT_IN=${src} -DOUT=${csrc} -DVAR=kernels_${part}_${k} -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/kernels.cmake
      DEPENDS ${src} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/kernels.cmake
      COMMENT "embedding ${src}"
      VERBATIM)
    list(APPEND VKOCC_SHADER_SOURCES ${csrc}) # generated: kept apart from the existence check on sources
  endforeach()
  list(APPEND VKOCC_LIB_SOURCES kernels/${k}/${k}.c)
endforeach()
list(APPEND VKOCC_LIB_SOURCES io/tune_results.c policy/build.c policy/transfer.c policy/params.c)
list(APPEND VKOCC_LIB_SOURCES policy/documents.c) # results files in, policy documents out (public)
list(APPEND VKOCC_LIB_SOURCES policy/header.c) # a policy database as a C header that data cannot subvert
