# llmfs_chapter(NN SLUG)  -- called from snippets/chNN-SLUG/CMakeLists.txt
#
# Builds, for chapter NN:
#   chNN_lib    the chapter program's code (evidence, report, trace, exercises): the target
#               a chapter's CMakeLists.txt adds definitions and dependencies to. With
#               chapter tests (LLMFS_CHAPTER_TESTS, the default preset) a static library of
#               the folder's *.cpp except main.cpp, which the demo and chNN_tests link;
#               without them an object library of every *.cpp including main.cpp (the whole
#               program one unity batch), not built at all when there are no demos either
#               (the asan preset).
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
  if(LLMFS_CHAPTER_TESTS)
    add_library(ch${number}_lib STATIC ${sources})
    set(demo_sources ${main})
  elseif(LLMFS_BUILD_DEMOS)
    add_library(ch${number}_lib OBJECT ${sources} ${main})
    set(demo_sources "")
  else()
    add_library(ch${number}_lib OBJECT EXCLUDE_FROM_ALL ${sources})
  endif()
  target_include_directories(ch${number}_lib PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(ch${number}_lib PUBLIC llmfs PRIVATE llmfs_options)
  if(NOT LLMFS_BUILD_DEMOS)
    return()
  endif()
  add_executable(${name} ${demo_sources})
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
