# The installed package's components (cmake/sinewConfig.cmake.in), with assimp
# and json-c made unfindable (CMAKE_DISABLE_FIND_PACKAGE_*) in every consumer:
#   MODE=gpu:    tests/consumer_gpu (find_package(sinew REQUIRED COMPONENTS core gpu),
#                sinew::core + sinew::gpu) configures, builds and runs;
#   MODE=errors: tests/consumer_components: an unknown component and the asset
#                component without its dependencies fail with the config's
#                message; OPTIONAL_COMPONENTS and the default set still load.
# Inputs: -DBUILD_DIR= -DSOURCE_DIR= -DWORK_DIR= -DCC= -DMODE=gpu|errors
file(REMOVE_RECURSE ${WORK_DIR})
set(PREFIX ${WORK_DIR}/prefix)
set(NO_ASSIMP -DCMAKE_DISABLE_FIND_PACKAGE_assimp=ON -DCMAKE_DISABLE_FIND_PACKAGE_json-c=ON)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(RUN_OUT "${out}" PARENT_SCOPE)
endfunction()

# consume(<name> <expect: ok|fail> <regex> <cmake -D args...>): configures
# tests/consumer_components; its output must match regex.
function(consume name expect regex)
  set(dir ${WORK_DIR}/${name})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer_components -B ${dir}
                          -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_C_COMPILER=${CC} ${NO_ASSIMP} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}\n${err}")
  if(expect STREQUAL "ok" AND NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: configure failed (${rc}), expected it to succeed:\n${all}")
  elseif(expect STREQUAL "fail" AND rc EQUAL 0)
    message(FATAL_ERROR "${name}: configure succeeded, expected it to fail:\n${all}")
  endif()
  if(NOT all MATCHES "${regex}")
    message(FATAL_ERROR "${name}: output does not match '${regex}':\n${all}")
  endif()
  string(REGEX MATCH "component '[^\n]*|sinew components: [^\n]*" line "${all}")
  message(STATUS "${name}: ${expect} as expected: ${line}")
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
set(has_asset OFF)
file(GLOB_RECURSE asset_targets ${PREFIX}/sinewTargets-asset.cmake)
if(asset_targets)
  set(has_asset ON)
endif()

if(MODE STREQUAL "gpu")
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer_gpu -B ${WORK_DIR}/gpu-build -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_C_COMPILER=${CC} ${NO_ASSIMP})
  string(REPLACE "${WORK_DIR}" "<work>" cfg_out "${RUN_OUT}") # a build folder may be named build-noassimp
  if(cfg_out MATCHES "assimp|json-c")
    message(FATAL_ERROR "the core + gpu consumer's configure mentions assimp or json-c:\n${cfg_out}")
  endif()
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/gpu-build)
  run(${WORK_DIR}/gpu-build/sinew_consumer_gpu)
  message(STATUS "core + gpu consumer: ${RUN_OUT}")
elseif(MODE STREQUAL "errors")
  # A component that does not exist: not found, and the message names it.
  consume(unknown fail "required components missing:.*component 'nonexistent': no such component \\(Sinew's components: core, bake, reference, gpu, debug, render, asset"
          "-DREQ=core\\;nonexistent")
  # The same as an optional component: found, sinew_nonexistent_FOUND false.
  consume(unknown_optional ok "sinew components: core=TRUE;gpu=;render=;asset=;nonexistent=FALSE"
          -DREQ=core -DOPT=nonexistent)
  # asset without assimp: the message names the component and the dependency.
  if(has_asset)
    # With assimp and json-c findable again (the later -D wins): core + asset.
    consume(asset ok "sinew targets: sinew::core;sinew::asset\n" -DREQ=asset
            -DCMAKE_DISABLE_FIND_PACKAGE_assimp=OFF -DCMAKE_DISABLE_FIND_PACKAGE_json-c=OFF)
    consume(asset_no_assimp fail "component 'asset': needs assimp \\(find_package\\(assimp CONFIG\\) failed" -DREQ=asset)
  else()
    consume(asset_not_built fail "component 'asset': not installed: this Sinew was built with SINEW_WITH_ASSIMP=OFF"
            -DREQ=asset)
  endif()
  # No components: core, gpu, render and sinew::sinew; asset left out quietly.
  consume(default ok "sinew targets: sinew::core;sinew::gpu;sinew::render;sinew::sinew\n")
  consume(render ok "sinew components: core=TRUE;gpu=TRUE;render=TRUE;asset=\n" -DREQ=render)
else()
  message(FATAL_ERROR "MODE must be gpu or errors, not '${MODE}'")
endif()
