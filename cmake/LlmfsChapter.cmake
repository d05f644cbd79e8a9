# llmfs_chapter(NN SLUG)  -- called from snippets/chNN-SLUG/CMakeLists.txt
#
# Builds, for chapter NN:
#   chNN_lib    a static library of the folder's *.cpp except main.cpp (evidence, report,
#               trace, exercises), which the demo and chNN_tests link; the target a
#               chapter's CMakeLists.txt adds definitions and dependencies to. Not built
#               when a preset has neither demos nor chapter tests (asan).
#   chNN-SLUG   the demo executable (LLMFS_BUILD_DEMOS): report on stdout, trace records
#               with --trace (part of the target `demos`)
# and registers two golden tests, labelled chNN and golden (LLMFS_BUILD_DEMOS):
#   chNN.golden.report        stdout      == snippets/chNN-SLUG/expected.txt (byte for byte)
#   chNN.golden.trace         --trace     == snippets/chNN-SLUG/trace.txt
function(llmfs_chapter number slug)
  set(name ch${number}-${slug})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  set(main ${CMAKE_CURRENT_SOURCE_DIR}/main.cpp)
  list(FILTER sources EXCLUDE REGEX "/main\\.cpp$")
  if(LLMFS_CHAPTER_TESTS OR LLMFS_BUILD_DEMOS)
    add_library(ch${number}_lib STATIC ${sources})
  else()
    add_library(ch${number}_lib STATIC EXCLUDE_FROM_ALL ${sources})
  endif()
  target_include_directories(ch${number}_lib PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(ch${number}_lib PUBLIC llmfs PRIVATE llmfs_options)
  if(NOT LLMFS_BUILD_DEMOS)
    return()
  endif()
  add_executable(${name} ${main})
  target_link_libraries(${name} PRIVATE ch${number}_lib llmfs_options)
  add_dependencies(demos ${name})
  foreach(kind report trace)
    if(kind STREQUAL "report")
      set(golden ${CMAKE_CURRENT_SOURCE_DIR}/expected.txt)
      set(flag "")
    else()
      set(golden ${CMAKE_CURRENT_SOURCE_DIR}/trace.txt)
      set(flag --trace)
    endif()
    add_test(NAME ch${number}.golden.${kind}
             COMMAND ${PROJECT_SOURCE_DIR}/tools/check-golden.sh ${golden} $<TARGET_FILE:${name}> ${flag})
    set_tests_properties(ch${number}.golden.${kind} PROPERTIES LABELS "ch${number};golden")
  endforeach()
endfunction()
