# tools/gpu-check.sh in quick mode, without its ctest step (that would run this
# suite again): device info, kernel A/B, the crowd run and the roofline finish,
# and the results file holds every step's status.
find_program(SINEW_BASH bash)
find_program(SINEW_TIMEOUT timeout)
if(SINEW_BASH AND SINEW_TIMEOUT AND SINEW_BUILD_SAMPLES AND NOT SINEW_SANITIZE)
  add_test(NAME gpu_check_quick
    COMMAND ${SINEW_BASH} ${PROJECT_SOURCE_DIR}/tools/gpu-check.sh --quick --no-ctest
            --out ${PROJECT_BINARY_DIR}/gpu-check-test ${PROJECT_BINARY_DIR})
  set_tests_properties(gpu_check_quick PROPERTIES LABELS gpu TIMEOUT 300
    PASS_REGULAR_EXPRESSION "=== summary.*device +ok.*kernels +ok.*crowd +ok.*roofline +ok"
    FAIL_REGULAR_EXPRESSION "FAILED|TIMEOUT")
endif()
