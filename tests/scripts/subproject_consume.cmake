# Builds tests/subproject (Sinew added with add_subdirectory) and runs its consumer.
# Inputs: -DSOURCE_DIR= -DWORK_DIR= -DCC=
file(REMOVE_RECURSE ${WORK_DIR})
foreach(step configure build run)
  if(step STREQUAL "configure")
    set(cmd ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/subproject -B ${WORK_DIR} -DCMAKE_BUILD_TYPE=Release
            -DCMAKE_C_COMPILER=${CC} -DSINEW_SOURCE_DIR=${SOURCE_DIR} -DSINEW_WITH_ASSIMP=OFF)
  elseif(step STREQUAL "build")
    set(cmd ${CMAKE_COMMAND} --build ${WORK_DIR} -j 2)
  else()
    set(cmd ${WORK_DIR}/sinew_consumer)
  endif()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "subproject ${step} failed (${rc}):\n${out}\n${err}")
  endif()
endforeach()
message(STATUS "subproject consumer: ${out}")
