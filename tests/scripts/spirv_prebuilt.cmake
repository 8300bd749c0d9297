# The prebuilt SPIR-V (used when glslc is absent) must be glslc's output for the
# committed shader sources. Refresh: cmake --build <dir> --target sinew_update_prebuilt_spirv
# Inputs: -DSPV_DIR= -DPREBUILT_DIR= -DSHADERS=a.comp|b.vert
string(REPLACE "|" ";" SHADERS "${SHADERS}")
foreach(s ${SHADERS})
  if(NOT EXISTS ${PREBUILT_DIR}/${s}.spv)
    message(FATAL_ERROR "missing prebuilt ${PREBUILT_DIR}/${s}.spv")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${SPV_DIR}/${s}.spv ${PREBUILT_DIR}/${s}.spv
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "shaders/prebuilt/${s}.spv is stale: rebuild it with the target sinew_update_prebuilt_spirv")
  endif()
endforeach()
