# The README's "first frame" example (its first ```c block) is compiled and run,
# so that the front page stays correct for the current API. Extracted at
# configure time; editing README.md re-runs CMake.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/README.md)
file(READ ${PROJECT_SOURCE_DIR}/README.md _sinew_readme)
string(FIND "${_sinew_readme}" "```c\n" _sinew_readme_begin)
if(_sinew_readme_begin GREATER -1)
  math(EXPR _sinew_readme_begin "${_sinew_readme_begin} + 5")
  string(SUBSTRING "${_sinew_readme}" ${_sinew_readme_begin} -1 _sinew_readme_rest)
  string(FIND "${_sinew_readme_rest}" "```" _sinew_readme_end)
  string(SUBSTRING "${_sinew_readme_rest}" 0 ${_sinew_readme_end} _sinew_readme_code)
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/readme_example/main.c CONTENT "${_sinew_readme_code}" @ONLY)
  add_executable(test_readme_example ${PROJECT_BINARY_DIR}/readme_example/main.c)
  set_target_properties(test_readme_example PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  target_link_libraries(test_readme_example PRIVATE sinew::sinew)
  add_test(NAME readme_example COMMAND test_readme_example WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties(readme_example PROPERTIES LABELS gpu TIMEOUT 300 ENVIRONMENT "SINEW_VALIDATION=1;${SINEW_TEST_SANITIZER_ENV}")
endif()
