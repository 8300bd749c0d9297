# cmake -DVIEWER=... -DCHECK=... -DOUT=dir -P viewer_headless.cmake
file(REMOVE_RECURSE ${OUT}/headless)
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${VIEWER} --headless ${OUT}/headless --count 49 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sinew-viewer --headless failed: ${rc}")
endif()
# the tube and bar comparisons: 8 tubes (bars) on a light background; the corrected tube: 6 tubes;
# the crowd: characters over the ground
foreach(pair "tube-methods.png;0.02" "bar-methods.png;0.02" "tube-psd.png;0.02" "crowd.png;0.02")
  list(GET pair 0 f)
  list(GET pair 1 frac)
  execute_process(COMMAND ${CHECK} ${OUT}/headless/${f} ${frac} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${f}: no content (or missing)")
  endif()
endforeach()
