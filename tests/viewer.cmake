# The viewer in the test suite: headless PNGs (tube comparison + crowd), and the
# windowed viewer under xvfb-run with lavapipe taking a screenshot of its own
# swapchain image after a few frames, and driven through its control panel's
# settings by a script (viewer_lab, pictures checked by sinew-labcheck); every PNG is checked for content by
# sinew-pngcheck, and the viewer fails on any validation message.
if(SINEW_BUILD_SAMPLES)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(SINEW_TEST_GLFW QUIET glfw3)
  endif()
  if(SINEW_TEST_GLFW_FOUND)
    set(_viewer_out ${PROJECT_BINARY_DIR}/viewer-test)
    add_test(NAME viewer_headless
      COMMAND ${CMAKE_COMMAND} -DVIEWER=$<TARGET_FILE:sinew_viewer> -DCHECK=$<TARGET_FILE:sinew_pngcheck>
              -DOUT=${_viewer_out} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/viewer_headless.cmake)
    set_tests_properties(viewer_headless PROPERTIES LABELS gpu TIMEOUT 300
      ENVIRONMENT "ASAN_OPTIONS=quarantine_size_mb=16;SINEW_CACHE_DIR=${PROJECT_BINARY_DIR}/bake-cache;SINEW_VALIDATION=1")
    find_program(SINEW_XVFB_RUN xvfb-run)
    # the crowd scene (sinew-viewer --scene crowd, headless): counts, stage figures,
    # a PNG with characters, and the same crowd state as sinew-bench --scene crowd;
    # with xvfb-run also the window (its panel) for a screenshot
    if(TARGET sinew::asset AND EXISTS /usr/share/assimp/models/X/Testwuson.X)
      add_test(NAME viewer_crowd_scene
        COMMAND ${CMAKE_COMMAND} -DVIEWER=$<TARGET_FILE:sinew_viewer> -DBENCH=$<TARGET_FILE:sinew_bench>
                -DCHECK=$<TARGET_FILE:sinew_pngcheck> -DOUT=${_viewer_out} -DXVFB=${SINEW_XVFB_RUN}
                -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/viewer_crowd_scene.cmake)
      set_tests_properties(viewer_crowd_scene PROPERTIES LABELS gpu TIMEOUT 300
        ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:quarantine_size_mb=16:hard_rss_limit_mb=4096;LSAN_OPTIONS=print_suppressions=0;SINEW_VALIDATION=1")
    endif()
    if(SINEW_XVFB_RUN)
      add_test(NAME viewer_window
        COMMAND ${CMAKE_COMMAND} -DVIEWER=$<TARGET_FILE:sinew_viewer> -DCHECK=$<TARGET_FILE:sinew_pngcheck>
                -DXVFB=${SINEW_XVFB_RUN} -DOUT=${_viewer_out} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/viewer_window.cmake)
      set_tests_properties(viewer_window PROPERTIES LABELS gpu TIMEOUT 300
        ENVIRONMENT "ASAN_OPTIONS=quarantine_size_mb=16;SINEW_CACHE_DIR=${PROJECT_BINARY_DIR}/bake-cache;SINEW_VALIDATION=1;VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
      # the title's GPU skin time (timestamps) within 4x of the wall time of skin-only submissions
      add_test(NAME viewer_gpu_time
        COMMAND ${CMAKE_COMMAND} -DVIEWER=$<TARGET_FILE:sinew_viewer> -DXVFB=${SINEW_XVFB_RUN} -DOUT=${_viewer_out}
                -DSANITIZE=${SINEW_SANITIZE} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/viewer_gpu_time.cmake)
      set_tests_properties(viewer_gpu_time PROPERTIES LABELS gpu TIMEOUT 300
        ENVIRONMENT "ASAN_OPTIONS=quarantine_size_mb=16;SINEW_CACHE_DIR=${PROJECT_BINARY_DIR}/bake-cache;SINEW_VALIDATION=1;VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
      add_test(NAME viewer_lab
        COMMAND ${CMAKE_COMMAND} -DVIEWER=$<TARGET_FILE:sinew_viewer> -DLABCHECK=$<TARGET_FILE:sinew_labcheck>
                -DXVFB=${SINEW_XVFB_RUN} -DSCRIPT=${CMAKE_CURRENT_SOURCE_DIR}/scripts/viewer_lab.txt
                -DOUT=${_viewer_out} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/viewer_lab.cmake)
      set_tests_properties(viewer_lab PROPERTIES LABELS gpu TIMEOUT 300
        ENVIRONMENT "ASAN_OPTIONS=quarantine_size_mb=16;SINEW_CACHE_DIR=${PROJECT_BINARY_DIR}/bake-cache;SINEW_VALIDATION=1;VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
      # the corrected tube: corrective driver on/off, morph weights by hand (sinew-labcheck --psd)
      add_test(NAME viewer_psd
        COMMAND ${CMAKE_COMMAND} -DVIEWER=$<TARGET_FILE:sinew_viewer> -DLABCHECK=$<TARGET_FILE:sinew_labcheck>
                -DXVFB=${SINEW_XVFB_RUN} -DSCRIPT=${CMAKE_CURRENT_SOURCE_DIR}/scripts/viewer_psd.txt
                -DOUT=${_viewer_out} -DSUB=psd -DMODE=--psd -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/viewer_lab.cmake)
      set_tests_properties(viewer_psd PROPERTIES LABELS gpu TIMEOUT 300
        ENVIRONMENT "ASAN_OPTIONS=quarantine_size_mb=16;SINEW_CACHE_DIR=${PROJECT_BINARY_DIR}/bake-cache;SINEW_VALIDATION=1;VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
    endif()
  endif()
endif()

# The integration example: a host-created device wrapped by Sinew, skinning
# recorded into the host's command buffer before its own draw; it checks the
# skinned vertices against the float64 reference and the pixels itself.
if(SINEW_BUILD_SAMPLES)
  add_test(NAME integration_external_device COMMAND $<TARGET_FILE:sinew_integration>)
  set_tests_properties(integration_external_device PROPERTIES LABELS gpu TIMEOUT 300
    ENVIRONMENT "ASAN_OPTIONS=quarantine_size_mb=16;SINEW_CACHE_DIR=${PROJECT_BINARY_DIR}/bake-cache;SINEW_VALIDATION=1")
endif()
