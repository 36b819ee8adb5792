# The libraries, the CLI, its manual pages and completion, install rules, pkg-config and the CMake package
# (docs/library.md; the Debian package is built from debian/ by dpkg-buildpackage). Included by the
# top-level CMakeLists.txt once VKOCC_LIB_SOURCES is complete.
#
#   libvkocc.so / libvkocc.a            everything but plotting; exports exactly what include/vkocc.h (and its parts,
#                                       include/vkocc/*.h) declares
#   libvkocc-plot.so / libvkocc-plot.a  vkocc_plot_* (viewer/, include/vkocc_plot.h), the only part that links cairo
#   vkocc                               the CLI: links both static libraries, compiled against include/ and cli/ alone
#
# The libraries are made of one object library per room (cmake/rooms.cmake: each compiles against the rooms below it).
# In this build tree the target `vkocc` is the static library (tests and benches link it, as before),
# `vkocc_shared` the shared one; installed, they are vkocc::vkocc_static and vkocc::vkocc.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# GLSL includes: <prefix>/share/vkocc/glsl/vkocc/*.glsl, so `glslc -I <prefix>/share/vkocc/glsl` resolves
# `#include <vkocc/device_barrier.glsl>` as the library's own run-time compiler does
set(VKOCC_INSTALL_GLSLDIR ${CMAKE_INSTALL_DATADIR}/vkocc/glsl)
set(VKOCC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/vkocc)
# 0.x: every minor version may change the ABI, so the SONAME carries it (libvkocc.so.0.1)
set(VKOCC_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
if(VKOCC_SANITIZE)
  set(VKOCC_SANITIZE_LINK -fsanitize=address,undefined)
endif()
# A shared library must resolve every symbol at its own link (a missing definition is an error there, not
# in the application); not under sanitizers: clang leaves their runtime to the executable.
if(NOT VKOCC_SANITIZE AND NOT VKOCC_FUZZ)
  set(VKOCC_NO_UNDEFINED LINKER:--no-undefined)
endif()

# viewer/ (cairo) becomes its own library: an application that does not plot links no cairo
set(VKOCC_PLOT_SOURCES ${VKOCC_LIB_SOURCES})
list(FILTER VKOCC_PLOT_SOURCES INCLUDE REGEX "^viewer/")
list(FILTER VKOCC_LIB_SOURCES EXCLUDE REGEX "^viewer/")

# ---------------------------------------------------------------- exported symbols, from the public headers
# (include/vkocc_plot.h includes vkocc.h and vkocc.h its parts, include/vkocc/*.h, so preprocessing it reads them all)
file(GLOB VKOCC_PUBLIC_PARTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/vkocc/*.h)
set(VKOCC_SYMBOLS_DIR ${CMAKE_CURRENT_BINARY_DIR}/symbols)
set(VKOCC_SYMBOL_FILES ${VKOCC_SYMBOLS_DIR}/vkocc.map ${VKOCC_SYMBOLS_DIR}/vkocc-plot.map
                       ${VKOCC_SYMBOLS_DIR}/vkocc.symbols ${VKOCC_SYMBOLS_DIR}/vkocc-plot.symbols)
add_custom_command(
  OUTPUT ${VKOCC_SYMBOLS_DIR}/stamp
  BYPRODUCTS ${VKOCC_SYMBOL_FILES}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${VKOCC_SYMBOLS_DIR}
  COMMAND ${CMAKE_C_COMPILER} -E -P -x c -o ${VKOCC_SYMBOLS_DIR}/vkocc.i ${CMAKE_CURRENT_SOURCE_DIR}/include/vkocc_plot.h
  COMMAND ${CMAKE_COMMAND} -DIN=${VKOCC_SYMBOLS_DIR}/vkocc.i -DOUT_DIR=${VKOCC_SYMBOLS_DIR}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/symbols.cmake
  COMMAND ${CMAKE_COMMAND} -E touch ${VKOCC_SYMBOLS_DIR}/stamp
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/vkocc.h ${VKOCC_PUBLIC_PARTS} ${CMAKE_CURRENT_SOURCE_DIR}/include/vkocc_plot.h
          ${CMAKE_CURRENT_SOURCE_DIR}/cmake/symbols.cmake
  COMMENT "exported symbols from include/vkocc.h and include/vkocc_plot.h"
  VERBATIM)
add_custom_target(vkocc_symbols DEPENDS ${VKOCC_SYMBOLS_DIR}/stamp)

# ---------------------------------------------------------------- what the library's own sources need
# One object library per room (cmake/rooms.cmake), each compiled against include/, its own folder and the rooms below
# it; Vulkan headers with VK_NO_PROTOTYPES and jansson. Tests and benches keep the rooms' folders: vkocc_internal,
# which the in-tree `vkocc` target hands them; never exported.
include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/rooms.cmake)
add_library(vkocc_internal INTERFACE)
target_include_directories(vkocc_internal INTERFACE
  ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/util ${CMAKE_CURRENT_SOURCE_DIR}/core
  ${CMAKE_CURRENT_SOURCE_DIR}/fingerprint ${CMAKE_CURRENT_SOURCE_DIR}/compile ${CMAKE_CURRENT_SOURCE_DIR}/io
  ${CMAKE_CURRENT_SOURCE_DIR}/probes ${CMAKE_CURRENT_SOURCE_DIR}/characterize ${CMAKE_CURRENT_SOURCE_DIR}/kernels
  ${CMAKE_CURRENT_SOURCE_DIR}/calibrate ${CMAKE_CURRENT_SOURCE_DIR}/persistent ${CMAKE_CURRENT_SOURCE_DIR}/policy)
# The tuner's rooms only quote-only: tune/search/features.h would stand in for the C library's <features.h>
foreach(r IN LISTS VKOCC_ROOM_NAMES)
  if(r MATCHES "^tune/")
    target_compile_options(vkocc_internal INTERFACE -iquote${CMAKE_CURRENT_SOURCE_DIR}/${r})
  endif()
endforeach()
target_link_libraries(vkocc_internal INTERFACE Vulkan::Headers PkgConfig::JANSSON)
target_compile_definitions(vkocc_internal INTERFACE VK_NO_PROTOTYPES)

# Compiled once, position-independent, for both libraries. -fvisibility=hidden, and the public headers forced in
# first under default visibility (cmake/vkocc-export.h): what the header declares is exported, nothing else.
# ROOM: the include path of that room alone.
function(vkocc_library_objects target room)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
  target_compile_options(${target} PRIVATE "SHELL:-include ${PROJECT_SOURCE_DIR}/cmake/vkocc-export.h")
  vkocc_room_walls(${target} ${room})
  target_link_libraries(${target} PRIVATE Vulkan::Headers PkgConfig::JANSSON)
  target_compile_definitions(${target} PRIVATE VK_NO_PROTOTYPES)
endfunction()

# Every source in a room; the generated ones (embedded SPIR-V and GLSL) in one object library of their own
set(VKOCC_ROOM_OBJECTS "")
set(_vkocc_left ${VKOCC_LIB_SOURCES})
foreach(r IN LISTS VKOCC_ROOM_NAMES)
  vkocc_room_sources(${r} "${VKOCC_LIB_SOURCES}" srcs)
  if(srcs)
    vkocc_room_target(${r} tgt)
    add_library(${tgt} OBJECT ${srcs})
    vkocc_library_objects(${tgt} ${r})
    list(APPEND VKOCC_ROOM_OBJECTS $<TARGET_OBJECTS:${tgt}>)
    list(REMOVE_ITEM _vkocc_left ${srcs})
  endif()
endforeach()
if(_vkocc_left)
  message(FATAL_ERROR "library sources in no room of cmake/rooms.cmake: ${_vkocc_left}")
endif()
# The search strategies' model fitting (the random forest) is the suite's longest pure computation: at -O0 under the
# sanitizers test_search took 21-46 s; -O1 is what AddressSanitizer's own documents advise for speed
if(VKOCC_SANITIZE)
  target_compile_options(vkocc_room_tune_search PRIVATE -O1)
endif()
target_link_libraries(vkocc_room_compile PRIVATE PkgConfig::SPVC)
target_link_libraries(vkocc_room_core PRIVATE PkgConfig::SPVC)  # <spirv.h>: the reflection's types
target_link_libraries(vkocc_room_tune_harness PRIVATE PkgConfig::SPVC) # <spirv.h>: the kernels' constants
target_link_libraries(vkocc_room_policy PRIVATE SQLite::SQLite3)
target_compile_definitions(vkocc_room_util PRIVATE VKOCC_VERSION="${PROJECT_VERSION}")
add_library(vkocc_generated OBJECT ${VKOCC_SHADER_SOURCES})
vkocc_library_objects(vkocc_generated util)
list(APPEND VKOCC_ROOM_OBJECTS $<TARGET_OBJECTS:vkocc_generated>)
if(VKOCC_WITH_MPI AND MPI_C_FOUND)
  # tune/fleet/fleet_mpi.c: ranks across machines (Open MPI, found like GLFW)
  target_compile_definitions(vkocc_room_tune_fleet PRIVATE VKOCC_HAVE_MPI=1)
  target_link_libraries(vkocc_room_tune_fleet PRIVATE MPI::MPI_C)
endif()

# Link-time dependencies of the library: jansson, the statically linked compiler (shaderc + glslang +
# SPIRV-Tools, C++: a group the linker rescans), SPIRV-Cross; the Vulkan loader is opened at run time (dl).
set(VKOCC_LINK_DEPS PkgConfig::JANSSON SQLite::SQLite3 Threads::Threads ${CMAKE_DL_LIBS} m
  "$<LINK_GROUP:RESCAN,${VKOCC_SHADERC_GROUP}>" stdc++ m PkgConfig::SPVC) # m again: glslang needs it after
if(VKOCC_WITH_MPI AND MPI_C_FOUND)
  list(APPEND VKOCC_LINK_DEPS MPI::MPI_C)
endif()

set(VKOCC_PUBLIC_INCLUDE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                         $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

# static: `vkocc` here, vkocc::vkocc_static installed
add_library(vkocc STATIC ${VKOCC_ROOM_OBJECTS})
set_target_properties(vkocc PROPERTIES OUTPUT_NAME vkocc EXPORT_NAME vkocc_static)
target_include_directories(vkocc PUBLIC ${VKOCC_PUBLIC_INCLUDE})
target_link_libraries(vkocc PUBLIC $<BUILD_INTERFACE:vkocc_internal> PRIVATE ${VKOCC_LINK_DEPS})

# shared: vkocc::vkocc
add_library(vkocc_shared SHARED ${VKOCC_ROOM_OBJECTS})
set_target_properties(vkocc_shared PROPERTIES OUTPUT_NAME vkocc EXPORT_NAME vkocc
  VERSION ${PROJECT_VERSION} SOVERSION ${VKOCC_SOVERSION} LINK_DEPENDS ${VKOCC_SYMBOLS_DIR}/vkocc.map)
add_dependencies(vkocc_shared vkocc_symbols)
target_include_directories(vkocc_shared PUBLIC ${VKOCC_PUBLIC_INCLUDE})
target_link_libraries(vkocc_shared PRIVATE ${VKOCC_LINK_DEPS})
target_link_options(vkocc_shared PRIVATE LINKER:--version-script=${VKOCC_SYMBOLS_DIR}/vkocc.map
  LINKER:--as-needed ${VKOCC_NO_UNDEFINED})
if(VKOCC_SANITIZE)
  # an instrumented library needs the sanitizer runtimes in the program that loads it
  target_link_options(vkocc_shared INTERFACE ${VKOCC_SANITIZE_LINK})
endif()

# ---------------------------------------------------------------- plots (cairo)
if(VKOCC_WITH_VIEWER AND VKOCC_PLOT_SOURCES)
  add_library(vkocc_plot_objects OBJECT ${VKOCC_PLOT_SOURCES})
  vkocc_library_objects(vkocc_plot_objects viewer)
  target_link_libraries(vkocc_plot_objects PRIVATE PkgConfig::CAIRO)

  add_library(vkocc_plot STATIC $<TARGET_OBJECTS:vkocc_plot_objects>)
  set_target_properties(vkocc_plot PROPERTIES OUTPUT_NAME vkocc-plot EXPORT_NAME plot_static)
  target_link_libraries(vkocc_plot PUBLIC vkocc PRIVATE PkgConfig::CAIRO m)

  # The shared one reaches libvkocc.so only through the public API: vkocc_fail reports its errors there,
  # vkocc_write_file_atomic writes its files.
  add_library(vkocc_plot_shared SHARED $<TARGET_OBJECTS:vkocc_plot_objects>)
  vkocc_library_objects(vkocc_plot_shared viewer)
  set_target_properties(vkocc_plot_shared PROPERTIES OUTPUT_NAME vkocc-plot EXPORT_NAME plot
    VERSION ${PROJECT_VERSION} SOVERSION ${VKOCC_SOVERSION} LINK_DEPENDS ${VKOCC_SYMBOLS_DIR}/vkocc-plot.map)
  add_dependencies(vkocc_plot_shared vkocc_symbols)
  target_link_libraries(vkocc_plot_shared PUBLIC vkocc_shared PRIVATE PkgConfig::CAIRO m)
  target_link_options(vkocc_plot_shared PRIVATE LINKER:--version-script=${VKOCC_SYMBOLS_DIR}/vkocc-plot.map
    LINKER:--as-needed ${VKOCC_NO_UNDEFINED})
  set(VKOCC_PLOT_TARGETS vkocc_plot_shared)
  set(VKOCC_PLOT_STATIC_TARGETS vkocc_plot)
  set(VKOCC_HAS_PLOT ON)
else()
  set(VKOCC_HAS_PLOT OFF)
endif()

# ---------------------------------------------------------------- the CLI
file(GLOB VKOCC_CLI_SOURCES CONFIGURE_DEPENDS cli/*.c)
add_executable(vkocc-cli ${VKOCC_CLI_SOURCES})
set_target_properties(vkocc-cli PROPERTIES OUTPUT_NAME vkocc)
# The CLI sees what an application sees: include/ and its own cli/ alone on its path. It links the static
# libraries by file, so the internal headers that the in-tree `vkocc` target hands tests and benches stay off its
# path (a wall, not a habit: an internal #include in cli/ does not compile, test_walls; test_layering checks the rest).
vkocc_room_walls(vkocc-cli cli)
add_dependencies(vkocc-cli vkocc)
if(TARGET vkocc_plot)
  add_dependencies(vkocc-cli vkocc_plot)
  target_link_libraries(vkocc-cli PRIVATE $<TARGET_FILE:vkocc_plot> PkgConfig::CAIRO m)
  target_compile_definitions(vkocc-cli PRIVATE VKOCC_HAVE_CAIRO=1)
endif()
target_link_libraries(vkocc-cli PRIVATE $<TARGET_FILE:vkocc> ${VKOCC_LINK_DEPS})
if(VKOCC_WITH_GLFW AND GLFW_FOUND AND VKOCC_WITH_VIEWER)
  find_package(OpenGL REQUIRED)
  target_link_libraries(vkocc-cli PRIVATE PkgConfig::GLFW OpenGL::GL)
  target_compile_definitions(vkocc-cli PRIVATE VKOCC_HAVE_GLFW=1)
endif()

# ---------------------------------------------------------------- examples/cluster_start, built in the tree
# An application's start: the cluster ID alone (vkocc_cluster_id_only), the parameters from a policy header that
# the CLI generates here from tests/data/policy-db.json (test_cluster_start runs it on lavapipe).
set(VKOCC_CLUSTER_START_DIR ${CMAKE_CURRENT_BINARY_DIR}/examples/cluster_start)
add_custom_command(OUTPUT ${VKOCC_CLUSTER_START_DIR}/tuned.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${VKOCC_CLUSTER_START_DIR}
  COMMAND $<TARGET_FILE:vkocc-cli> policy header ${CMAKE_CURRENT_SOURCE_DIR}/tests/data/policy-db.json
          -o ${VKOCC_CLUSTER_START_DIR}/tuned.h
  DEPENDS vkocc-cli ${CMAKE_CURRENT_SOURCE_DIR}/tests/data/policy-db.json
  COMMENT "examples/cluster_start: tuned.h from vkocc policy header" VERBATIM)
add_executable(cluster_start examples/cluster_start/cluster_start.c ${VKOCC_CLUSTER_START_DIR}/tuned.h)
target_include_directories(cluster_start PRIVATE ${VKOCC_CLUSTER_START_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/include)
add_dependencies(cluster_start vkocc)
target_link_libraries(cluster_start PRIVATE $<TARGET_FILE:vkocc> ${VKOCC_LINK_DEPS})

# ---------------------------------------------------------------- manual pages and shell completion
# One page per command from the CLI's own --help (cmake/manpages.sh): vkocc.1 and vkocc-COMMAND.1
set(VKOCC_MAN_DIR ${CMAKE_CURRENT_BINARY_DIR}/man)
add_custom_command(OUTPUT ${VKOCC_MAN_DIR}/vkocc.1
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cmake/manpages.sh $<TARGET_FILE:vkocc-cli> ${VKOCC_MAN_DIR} ${PROJECT_VERSION}
  DEPENDS vkocc-cli ${CMAKE_CURRENT_SOURCE_DIR}/cmake/manpages.sh
  COMMENT "manual pages from vkocc --help" VERBATIM)
add_custom_target(vkocc_man ALL DEPENDS ${VKOCC_MAN_DIR}/vkocc.1)

# ---------------------------------------------------------------- install
install(TARGETS vkocc-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${VKOCC_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1")
install(FILES completions/vkocc.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME vkocc)
install(FILES completions/_vkocc DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(TARGETS vkocc_shared ${VKOCC_PLOT_TARGETS} EXPORT vkocc-targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS vkocc ${VKOCC_PLOT_STATIC_TARGETS} EXPORT vkocc-static-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/vkocc.h include/vkocc_plot.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${VKOCC_PUBLIC_PARTS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/vkocc)
# GLSL includes for applications' own shaders, once the folder exists
# (checked when installing, so no new configure is needed when glsl/ appears)
install(DIRECTORY glsl/ DESTINATION ${VKOCC_INSTALL_GLSLDIR} OPTIONAL)
file(GLOB VKOCC_DOCS CONFIGURE_DEPENDS docs/*.md docs/*.json)
install(FILES README.md ${VKOCC_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples OPTIONAL)

# CMake package: vkocc-config.cmake, its version file, the exported targets
configure_package_config_file(cmake/vkocc-config.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/vkocc-config.cmake
  INSTALL_DESTINATION ${VKOCC_INSTALL_CMAKEDIR} PATH_VARS CMAKE_INSTALL_INCLUDEDIR VKOCC_INSTALL_GLSLDIR)
# 0.x: only the same minor version is compatible
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/vkocc-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/vkocc-config.cmake ${CMAKE_CURRENT_BINARY_DIR}/vkocc-config-version.cmake
  DESTINATION ${VKOCC_INSTALL_CMAKEDIR})
install(EXPORT vkocc-targets NAMESPACE vkocc:: DESTINATION ${VKOCC_INSTALL_CMAKEDIR})
install(EXPORT vkocc-static-targets NAMESPACE vkocc:: DESTINATION ${VKOCC_INSTALL_CMAKEDIR})

# pkg-config: written at install time with the prefix the install goes to (`cmake --install --prefix P`,
# or CMAKE_INSTALL_PREFIX), so the paths are canonical (prefix=/usr, libdir=${prefix}/lib/<multiarch>) and
# pkg-config drops the system ones; DESTDIR (packaging) is not part of the prefix.
set(VKOCC_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
set(VKOCC_PC_SANITIZE "")
if(VKOCC_SANITIZE)
  set(VKOCC_PC_SANITIZE " ${VKOCC_SANITIZE_LINK}")
endif()
set(libs "")
foreach(l IN LISTS VKOCC_SHADERC_LIBS)
  get_filename_component(f ${l} NAME)
  list(APPEND libs "-l:${f}")
endforeach()
list(JOIN libs " " libs)
set(VKOCC_PC_LIBS_PRIVATE "-Wl,--start-group ${libs} -Wl,--end-group -lsqlite3 -lstdc++ -lm -ldl -lpthread")
set(VKOCC_PC_NAMES vkocc vkocc-static)
if(TARGET vkocc_plot)
  list(APPEND VKOCC_PC_NAMES vkocc-plot)
endif()
set(VKOCC_PC_STAGE ${CMAKE_CURRENT_BINARY_DIR}/pkgconfig)
foreach(pc IN LISTS VKOCC_PC_NAMES)
  # @VKOCC_PC_PREFIX@ is left for install time; everything else is filled now
  set(VKOCC_PC_PREFIX "@VKOCC_PC_PREFIX@")
  set(VKOCC_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(VKOCC_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
  set(VKOCC_PC_GLSLDIR "\${prefix}/${VKOCC_INSTALL_GLSLDIR}")
  configure_file(cmake/${pc}.pc.in ${VKOCC_PC_STAGE}/${pc}.pc.in @ONLY)
  install(CODE "set(VKOCC_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    configure_file(\"${VKOCC_PC_STAGE}/${pc}.pc.in\" \"${VKOCC_PC_STAGE}/install/${pc}.pc\" @ONLY)")
  install(FILES ${VKOCC_PC_STAGE}/install/${pc}.pc DESTINATION ${VKOCC_PC_DIR})
endforeach()

