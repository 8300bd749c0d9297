# sinew-bench --scene crowd (bench/bench_scene.c) on a small crowd: it must exit 0,
# print its per-stage table header and a row for the 100 characters, write its
# JSON, and draw no validation message (SINEW_VALIDATION=1). No timing is checked.
if(CMAKE_SCRIPT_MODE_FILE)
  execute_process(COMMAND ${BENCH} --scene crowd --sizes 100 --frames 10 --out ${OUT}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 280)
  message("${out}${err}exit: ${rc}")
  if(NOT "${rc}" STREQUAL "0")
    message(FATAL_ERROR "expected exit status 0, got ${rc}")
  endif()
  if(NOT "${out}" MATCHES "characters +visible +interpolated +skinned_vtx +logic_ms +cull_ms +prepare_ms +gpu_ms +frame_ms +frames/s")
    message(FATAL_ERROR "no table header")
  endif()
  if(NOT "${out}" MATCHES "\n +100  +[0-9]+ +[0-9]+ +[0-9]+ ")
    message(FATAL_ERROR "no row for 100 characters")
  endif()
  if("${out}${err}" MATCHES "Validation Error|VUID-")
    message(FATAL_ERROR "validation message")
  endif()
  if(NOT EXISTS "${OUT}/scene.json")
    message(FATAL_ERROR "no ${OUT}/scene.json")
  endif()
  file(READ "${OUT}/scene.json" js)
  if(NOT js MATCHES "\"characters\": 100, \"capped\": false")
    message(FATAL_ERROR "scene.json has no result for 100 characters")
  endif()
  return()
endif()

# sinew_bench is defined after tests/ (bench/ comes later): SINEW_BUILD_SAMPLES builds it.
if(NOT SINEW_BUILD_SAMPLES OR NOT TARGET sinew::asset OR NOT EXISTS /usr/share/assimp/models/X/Testwuson.X)
  return()
endif()
add_test(NAME bench_scene_crowd
  COMMAND ${CMAKE_COMMAND} "-DBENCH=$<TARGET_FILE:sinew_bench>" "-DOUT=${PROJECT_BINARY_DIR}/bench-scene-test"
          -P ${CMAKE_CURRENT_LIST_FILE}
  WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
# Under the sanitizers (make test-sanitize builds the samples): a small quarantine
# (the default 256 MiB on top of lavapipe's per-frame allocations passed the 4 GiB
# RSS cap; 16 MiB peaks at 1.3 GiB) and no leak check (a 128-byte allocation in
# the Vulkan driver, unloaded at sinew_gpu_destroy, cannot be attributed); its
# own LSAN_OPTIONS keep tests/CMakeLists.txt from replacing these.
set_tests_properties(bench_scene_crowd PROPERTIES LABELS gpu TIMEOUT 300
  ENVIRONMENT "SINEW_VALIDATION=1;ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:quarantine_size_mb=16:hard_rss_limit_mb=4096;LSAN_OPTIONS=print_suppressions=0")
