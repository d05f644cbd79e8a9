# llmfs_gtest(TARGET [CHAPTER] PREFIX <prefix> LABEL <label> SOURCES <files...> [LIBRARIES <libs...>])
#
# One GoogleTest executable, the way every test executable of the project is built:
# linked with gtest_main and the project's warning flags, LLMFS_SOURCE_DIR defined, tests/
# on the include path, and its tests registered with ctest as <prefix><Suite>.<Test> with
# the one label <label> (gtest_discover_tests keeps only the first of several labels: a
# second one comes from the directory's LABELS property).
#
# Its sources are compiled in unity batches (see LLMFS_UNITY_BUILD in the top CMakeLists.txt).
#
# CHAPTER marks a chapter's tests (linked with its chNN_lib): built only with
# LLMFS_CHAPTER_TESTS (the default preset); the others are the library's tests, built only
# with LLMFS_UNIT_TESTS (the asan preset). Otherwise the call does nothing.
#
# ONE_PROCESS registers the whole executable as the one ctest <prefix>all instead of one
# ctest per test: for a chapter whose tests share one expensive run of its program (a
# function-local static), which one process per test would repeat. GoogleTest still prints
# every test's name and result, and --gtest_filter picks one.
if(NOT TARGET llmfs_test_options)
  add_library(llmfs_test_options INTERFACE)
  target_link_libraries(llmfs_test_options INTERFACE GTest::gtest_main llmfs_options)
  target_compile_definitions(llmfs_test_options INTERFACE LLMFS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_include_directories(llmfs_test_options INTERFACE ${PROJECT_SOURCE_DIR}/tests)
endif()

function(llmfs_gtest target)
  cmake_parse_arguments(arg "CHAPTER;ONE_PROCESS" "PREFIX;LABEL" "SOURCES;LIBRARIES" ${ARGN})
  if((arg_CHAPTER AND NOT LLMFS_CHAPTER_TESTS) OR (NOT arg_CHAPTER AND NOT LLMFS_UNIT_TESTS))
    return()
  endif()
  add_executable(${target} ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE ${arg_LIBRARIES} llmfs_test_options)
  # Discovery runs each executable with --gtest_list_tests after linking; generous, so a
  # busy machine (or a sanitized binary's start-up) never fails the build.
  if(arg_ONE_PROCESS)
    add_test(NAME ${arg_PREFIX}all COMMAND ${target})
    set_tests_properties(${arg_PREFIX}all PROPERTIES LABELS "${arg_LABEL}")
    return()
  endif()
  gtest_discover_tests(${target} TEST_PREFIX "${arg_PREFIX}" PROPERTIES LABELS "${arg_LABEL}"
                       DISCOVERY_TIMEOUT 300)
endfunction()
