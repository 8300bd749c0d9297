# Packaging and linking tests (see tests/scripts/install_consume.cmake and
# tests/link/link_libvulkan.c). Label `toolchain`: the test compiles code with
# this machine's compiler and -dev packages (tools/gpu-check.sh leaves those to
# the build machine: the lent GPU machine runs a build made elsewhere).
find_program(SINEW_NM nm)
find_program(SINEW_PKG_CONFIG pkg-config)
# Not in sanitizer builds: the installed archives would need the sanitizer runtime.
if(SINEW_NM AND SINEW_PKG_CONFIG AND NOT SINEW_SANITIZE)
  add_test(NAME install_consume
    COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
            -DWORK_DIR=${PROJECT_BINARY_DIR}/install-test -DCC=${CMAKE_C_COMPILER} -DNM=${SINEW_NM}
            -P ${CMAKE_CURRENT_LIST_DIR}/scripts/install_consume.cmake)
  set_tests_properties(install_consume PROPERTIES LABELS "gpu;install;toolchain" TIMEOUT 600
    ENVIRONMENT "SINEW_VALIDATION=1")

  # Sinew as a subproject (add_subdirectory): tests/samples off, sinew::sinew usable.
  add_test(NAME subproject_consume
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DWORK_DIR=${PROJECT_BINARY_DIR}/subproject-test
            -DCC=${CMAKE_C_COMPILER} -P ${CMAKE_CURRENT_LIST_DIR}/scripts/subproject_consume.cmake)
  set_tests_properties(subproject_consume PROPERTIES LABELS "gpu;install;toolchain" TIMEOUT 900
    ENVIRONMENT "SINEW_VALIDATION=1")

  # The package's components (cmake/sinewConfig.cmake.in) with assimp and json-c
  # unfindable: a core + gpu consumer builds and runs; missing components fail
  # with a message that names them.
  foreach(_mode gpu errors)
    add_test(NAME install_components_${_mode}
      COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
              -DWORK_DIR=${PROJECT_BINARY_DIR}/install-components-${_mode} -DCC=${CMAKE_C_COMPILER} -DMODE=${_mode}
              -P ${CMAKE_CURRENT_LIST_DIR}/scripts/install_components.cmake)
    set_tests_properties(install_components_${_mode} PROPERTIES LABELS "install;toolchain" TIMEOUT 600
      ENVIRONMENT "SINEW_VALIDATION=1")
  endforeach()
  set_property(TEST install_components_gpu APPEND PROPERTY LABELS gpu)
  # `cmake --install` of one build writes the build's install_manifest.txt: one at a time.
  set_tests_properties(install_consume install_components_gpu install_components_errors PROPERTIES
    RESOURCE_LOCK sinew_install_manifest)
endif()

# A host that links the Vulkan loader itself (prototypes, libvulkan.so) beside
# Sinew's static archives: no duplicate or interposed vk* symbol.
find_package(Vulkan)
if(Vulkan_FOUND)
  add_executable(test_link_libvulkan ${CMAKE_CURRENT_LIST_DIR}/link/link_libvulkan.c)
  set_target_properties(test_link_libvulkan PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  target_link_libraries(test_link_libvulkan PRIVATE sinew::sinew Vulkan::Vulkan m)
  add_test(NAME test_link_libvulkan COMMAND test_link_libvulkan)
  get_test_property(test_math ENVIRONMENT _sinew_test_env)
  set_tests_properties(test_link_libvulkan PROPERTIES LABELS gpu ENVIRONMENT "${_sinew_test_env}")
endif()

# Public headers are self-contained; the core layer includes no Vulkan header.
add_test(NAME header_closure
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DGENERATED_INCLUDE=${PROJECT_BINARY_DIR}/engine/include
          -DCC=${CMAKE_C_COMPILER} -DCXX=${CMAKE_CXX_COMPILER}
          -P ${CMAKE_CURRENT_LIST_DIR}/scripts/header_closure.cmake)
set_tests_properties(header_closure PROPERTIES LABELS toolchain)

# The prebuilt SPIR-V matches glslc's output (only when glslc compiled them).
if(SINEW_SPV_COMPILED)
  string(REPLACE ";" "|" _shaders "${SINEW_ALL_SHADERS}")
  add_test(NAME spirv_prebuilt_current
    COMMAND ${CMAKE_COMMAND} -DSPV_DIR=${SINEW_SPV_DIR} -DPREBUILT_DIR=${PROJECT_SOURCE_DIR}/shaders/prebuilt
            -DSHADERS=${_shaders} -P ${CMAKE_CURRENT_LIST_DIR}/scripts/spirv_prebuilt.cmake)
endif()
