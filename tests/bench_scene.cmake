# sinew-bench --scene crowd (bench/bench_scene.c) on a small crowd: it must exit 0,
# print its per-stage table header and a row for the 100 characters, write its
# JSON, and draw no validation message (SINEW_VALIDATION=1). Root motion: the
# characters of the generated root-motion model are moved by the crowd
# (apply_root_motion); the bench compares every such W, every frame, with
# W_last x delta recomputed in float64 from sinew_root_motion_delta (tolerance
# 1e-9 x (1 + |t|), exit 1 beyond), and one of them walks out of the plaza and
# wraps: its "root motion check" line must say ok, with a speed > 0 and a wrap.
# The distance LOD bands (update_every + joint_lod) must be printed. No timing is checked.
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
  if(NOT "${out}" MATCHES "sample/blend +FK +palette +bounds +upload +morph +skin +render")
    message(FATAL_ERROR "no per-stage columns")
  endif()
  if(NOT "${out}" MATCHES "distance LOD bands[^\n]*update_every 1, joint_lod 0[^\n]*update_every 2[^\n]*update_every 4")
    message(FATAL_ERROR "no distance LOD bands")
  endif()
  if(NOT "${out}" MATCHES "Testwuson.X[^\n]*joint_lod near 0 \\(40 joints\\), middle [0-9]+ \\([0-9]+ kept\\), far [0-9]+ \\([0-9]+ kept\\)")
    message(FATAL_ERROR "no joint_lod bands for Testwuson.X")
  endif()
  if(NOT "${out}" MATCHES "its characters are moved by the crowd")
    message(FATAL_ERROR "no model moved by the crowd (apply_root_motion)")
  endif()
  if(NOT "${out}" MATCHES "root motion check \\(100 characters\\): ([1-9][0-9]*) moved by the crowd[^\n]*max error [^\n]*mean speed ([0-9.]+) units/s[^\n]* ([1-9][0-9]*) plaza wraps[^\n]*: ok\n")
    message(FATAL_ERROR "no passing root motion check with crowd-moved characters and a wrap")
  endif()
  if(NOT CMAKE_MATCH_2 GREATER 0.5)
    message(FATAL_ERROR "crowd-moved characters did not move (mean speed ${CMAKE_MATCH_2} units/s)")
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
  if(NOT js MATCHES "\"root_motion_check\": {\"crowd_moved\": [1-9]")
    message(FATAL_ERROR "scene.json has no root motion check")
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
