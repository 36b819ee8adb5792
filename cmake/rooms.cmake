# The rooms of the house (docs/architecture.md), one object library each. A room's include path is include/, its own
# folder and the folders of the rooms on lower floors: an #include that runs up a floor or sideways does not compile.
# A Vulkan-free room sees only the Vulkan-free rooms below it, and cmake/vulkan-free/ first, whose <vulkan/...>
# stops the build. The CLI (cli/) sees include/ and cli/ alone (cmake/library.cmake). scripts/structure.py reads the
# floors from this table; tests and benches keep the rooms' folders (vkocc_internal, cmake/library.cmake). A room may be
# a folder's folder (tune/harness): its target is named with "_" for "/" (vkocc_room_tune_harness).
#
#   room         floor  Vulkan-free
set(VKOCC_ROOMS
    util         0      VULKAN_FREE
    compile      1      -
    core         2      -
    kernels      2      VULKAN_FREE
    fingerprint  2      VULKAN_FREE
    io           3      -
    calibrate    3      -
    probes       4      -
    characterize 5      -
    persistent   5      -
    tune/search  5      -
    tune/spec    6      -
    tune/harness 7      -
    tune/results 8      -
    tune/fleet   9      -
    tune/session 9      -
    policy       10     -
    viewer       10     VULKAN_FREE
    cli          11     -)

set(VKOCC_ROOM_NAMES "")
list(LENGTH VKOCC_ROOMS _n)
math(EXPR _last "${_n} - 1")
foreach(_i RANGE 0 ${_last} 3)
  math(EXPR _f "${_i} + 1")
  math(EXPR _v "${_i} + 2")
  list(GET VKOCC_ROOMS ${_i} _room)
  list(GET VKOCC_ROOMS ${_f} VKOCC_ROOM_FLOOR_${_room})
  list(GET VKOCC_ROOMS ${_v} _free)
  set(VKOCC_ROOM_VULKAN_FREE_${_room} OFF)
  if(_free STREQUAL "VULKAN_FREE")
    set(VKOCC_ROOM_VULKAN_FREE_${_room} ON)
  endif()
  list(APPEND VKOCC_ROOM_NAMES ${_room})
endforeach()

# vkocc_room_flags(ROOM OUT): the compiler flags of the room's walls: include/, the room and the rooms on lower floors
# (only the Vulkan-free ones for a Vulkan-free room, after cmake/vulkan-free/); the CLI: cli/ and include/. The rooms'
# folders are quote-only (-iquote): their headers are included as "name.h", and a room's file named like a system
# header (tune/search/features.h) must not stand in for it.
function(vkocc_room_flags room out)
  if(room STREQUAL "cli")
    set(${out} -I${PROJECT_SOURCE_DIR}/cli -I${PROJECT_SOURCE_DIR}/include PARENT_SCOPE)
    return()
  endif()
  set(flags "")
  if(VKOCC_ROOM_VULKAN_FREE_${room})
    list(APPEND flags -I${PROJECT_SOURCE_DIR}/cmake/vulkan-free)
  endif()
  list(APPEND flags -I${PROJECT_SOURCE_DIR}/include -iquote${PROJECT_SOURCE_DIR}/${room})
  foreach(r IN LISTS VKOCC_ROOM_NAMES)
    if(VKOCC_ROOM_FLOOR_${r} LESS VKOCC_ROOM_FLOOR_${room} AND NOT r STREQUAL "cli"
       AND (NOT VKOCC_ROOM_VULKAN_FREE_${room} OR VKOCC_ROOM_VULKAN_FREE_${r}))
      list(APPEND flags -iquote${PROJECT_SOURCE_DIR}/${r})
    endif()
  endforeach()
  set(${out} ${flags} PARENT_SCOPE)
endfunction()
# vkocc_room_walls(TARGET ROOM): TARGET compiles inside ROOM's walls
function(vkocc_room_walls target room)
  vkocc_room_flags(${room} flags)
  target_compile_options(${target} BEFORE PRIVATE ${flags})
endfunction()

# vkocc_room_target(ROOM OUT): the object library's name of ROOM (tune/harness: vkocc_room_tune_harness)
function(vkocc_room_target room out)
  string(REPLACE "/" "_" n "vkocc_room_${room}")
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# vkocc_room_sources(ROOM SOURCES OUT): the sources of SOURCES in the room's folder
function(vkocc_room_sources room sources out)
  set(s ${sources})
  list(FILTER s INCLUDE REGEX "^${room}/")
  set(${out} ${s} PARENT_SCOPE)
endfunction()
