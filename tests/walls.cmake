# test_walls (cmake -P): every tests/walls/ROOM-ok|fail-WHAT.c compiled (-fsyntax-only) inside ROOM's walls
# (cmake/rooms.cmake). An "ok" file must compile; a "fail" file must not, and for the wall's reason: its header not
# found on the room's path, or the Vulkan-free rooms' <vulkan/...>. CASES: the generated list of cases (tests/CMakeLists.txt).
include(${CASES})
set(bad 0)
foreach(c IN LISTS WALL_CASES)
  execute_process(COMMAND ${CC} -std=c11 -D_GNU_SOURCE -DVK_NO_PROTOTYPES -fsyntax-only ${WALL_FLAGS_${c}} ${WALL_FILE_${c}}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(WALL_EXPECT_${c} STREQUAL "ok" AND NOT rc EQUAL 0)
    message("FAIL ${c}: should compile inside its room's walls:\n${out}")
    math(EXPR bad "${bad} + 1")
  elseif(WALL_EXPECT_${c} STREQUAL "fail" AND rc EQUAL 0)
    message("FAIL ${c}: compiled, but the walls should stop it")
    math(EXPR bad "${bad} + 1")
  elseif(WALL_EXPECT_${c} STREQUAL "fail" AND NOT out MATCHES "No such file or directory|Vulkan-free room")
    message("FAIL ${c}: did not compile, but not for the wall's reason:\n${out}")
    math(EXPR bad "${bad} + 1")
  else()
    message("ok   ${c} (${WALL_EXPECT_${c}})")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "${bad} wall case(s) wrong")
endif()
