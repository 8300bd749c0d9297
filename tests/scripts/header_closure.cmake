# Every public header compiles on its own (C11 and C++), and no header of the
# core layer reaches a Vulkan header through its includes.
# Inputs: -DSOURCE_DIR= -DGENERATED_INCLUDE= -DCC= -DCXX=
set(incs -I${SOURCE_DIR}/engine/core/include -I${GENERATED_INCLUDE} -I${SOURCE_DIR}/engine/gpu/include
         -I${SOURCE_DIR}/engine/render/include -I${SOURCE_DIR}/engine/asset/include -I${SOURCE_DIR}/engine/include
         -I${SOURCE_DIR}/engine/bake/include -I${SOURCE_DIR}/engine/reference/include)
file(GLOB headers ${SOURCE_DIR}/engine/*/include/sinew/*.h ${SOURCE_DIR}/engine/include/sinew/*.h)
foreach(h ${headers})
  execute_process(COMMAND ${CC} -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c ${incs} ${h}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${h} does not compile on its own as C11:\n${err}")
  endif()
  if(CXX)
    execute_process(COMMAND ${CXX} -std=c++11 -Wall -Werror -fsyntax-only -x c++ ${incs} ${h}
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${h} does not compile on its own as C++:\n${err}")
    endif()
  endif()
endforeach()
file(GLOB core_headers ${SOURCE_DIR}/engine/core/include/sinew/*.h)
foreach(h ${core_headers})
  # Only the core include folder: a Vulkan include would have to come from elsewhere.
  execute_process(COMMAND ${CC} -std=c11 -E -H -x c -I${SOURCE_DIR}/engine/core/include -I${GENERATED_INCLUDE} ${h}
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE tree)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${h}: the core layer's headers alone do not suffice:\n${tree}")
  endif()
  if(tree MATCHES "vulkan|volk")
    message(FATAL_ERROR "${h} reaches a Vulkan header:\n${tree}")
  endif()
endforeach()
list(LENGTH headers n)
message(STATUS "${n} public headers compile on their own; the core layer's include closure has no Vulkan")
