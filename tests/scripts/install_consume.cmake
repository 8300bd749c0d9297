# Installs the build into a fresh prefix and uses it as an engine would:
#  1. every installed library defines only sinew_* global symbols (nm);
#  2. tests/consumer builds with find_package(sinew) and runs;
#  3. the same main.c builds with `pkg-config --cflags --libs sinew` and runs.
# Inputs: -DBUILD_DIR= -DSOURCE_DIR= -DWORK_DIR= -DCC= -DNM=
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(RUN_OUT "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(PREFIX ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})

# 1. symbol hygiene of every installed library
file(GLOB_RECURSE libs ${PREFIX}/*.a ${PREFIX}/*.so)
list(LENGTH libs nlibs)
# core, bake, reference, gpu, render, and asset unless built with SINEW_WITH_ASSIMP=OFF
set(min_libs 6)
file(GLOB_RECURSE asset_targets ${PREFIX}/sinewTargets-asset.cmake)
if(asset_targets)
  set(min_libs 7)
endif()
if(nlibs LESS min_libs)
  message(FATAL_ERROR "expected at least ${min_libs} installed libraries, found: ${libs}")
endif()
foreach(lib ${libs})
  run(${NM} -g --defined-only ${lib})
  string(REPLACE "\n" ";" lines "${RUN_OUT}")
  set(count 0)
  foreach(line ${lines})
    if(line MATCHES "^[0-9a-fA-F]+ [A-Za-z] (.+)$")
      set(sym ${CMAKE_MATCH_1})
      if(NOT sym MATCHES "^sinew_")
        message(FATAL_ERROR "${lib} exports a symbol outside the sinew_ prefix: ${sym}")
      endif()
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
  if(count EQUAL 0)
    message(FATAL_ERROR "${lib} exports nothing")
  endif()
  message(STATUS "${lib}: ${count} global symbols, all sinew_*")
endforeach()

# 2. find_package consumer
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${WORK_DIR}/cmake-build
    -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=${CC})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-build)
run(${WORK_DIR}/cmake-build/sinew_consumer)
message(STATUS "find_package consumer: ${RUN_OUT}")

# 3. pkg-config consumer
set(ENV{PKG_CONFIG_PATH} "")
file(GLOB_RECURSE pcs ${PREFIX}/sinew.pc)
get_filename_component(pcdir "${pcs}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pcdir})
run(pkg-config --cflags --libs sinew)
string(STRIP "${RUN_OUT}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CC} -std=c11 -O1 ${SOURCE_DIR}/tests/consumer/main.c -o ${WORK_DIR}/pc_consumer ${flags})
run(${WORK_DIR}/pc_consumer)
message(STATUS "pkg-config consumer: ${RUN_OUT}")
