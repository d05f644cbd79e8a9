# llmfs_gtest(TARGET PREFIX <prefix> LABEL <label> SOURCES <files...> [LIBRARIES <libs...>])
#
# One GoogleTest executable, the way every test executable of the project is built:
# linked with gtest_main and the project's warning flags, LLMFS_SOURCE_DIR defined, tests/
# on the include path, and its tests registered with ctest as <prefix><Suite>.<Test> with
# the one label <label> (gtest_discover_tests keeps only the first of several labels: a
# second one comes from the directory's LABELS property).
#
# Its sources are compiled in unity batches (see LLMFS_UNITY_BUILD in the top CMakeLists.txt).
#
# In RelWithDebInfo (the default preset) test code gets line-table debug info only (-g1):
# same code and numerics as -g (debug info never changes code generation), a third less
# compile time; backtraces still name file and line. Debugging a test is what the asan
# preset (Debug, full -g) is for.
if(NOT TARGET llmfs_test_options)
  add_library(llmfs_test_options INTERFACE)
  target_compile_options(llmfs_test_options INTERFACE $<$<CONFIG:RelWithDebInfo>:-g1>)
  target_link_libraries(llmfs_test_options INTERFACE GTest::gtest_main llmfs_options)
  target_compile_definitions(llmfs_test_options INTERFACE LLMFS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_include_directories(llmfs_test_options INTERFACE ${PROJECT_SOURCE_DIR}/tests)
endif()

function(llmfs_gtest target)
  cmake_parse_arguments(arg "" "PREFIX;LABEL" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${target} ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE ${arg_LIBRARIES} llmfs_test_options)
  # Discovery runs each executable with --gtest_list_tests after linking; generous, so a
  # busy machine (or a sanitized binary's start-up) never fails the build.
  gtest_discover_tests(${target} TEST_PREFIX "${arg_PREFIX}" PROPERTIES LABELS "${arg_LABEL}"
                       DISCOVERY_TIMEOUT 300)
endfunction()
