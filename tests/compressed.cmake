# Compressed glTF (tests/compressed): EXT_meshopt_compression and
# KHR_draco_mesh_compression decoded and compared with the uncompressed file.
# The test encodes its own files, so it links the encoders: meshoptimizer's C
# API and draco's C++ encoder (tests/compressed/draco_encode.cpp).
get_property(_sinew_decoders GLOBAL PROPERTY SINEW_ASSET_DECODERS)
if(TARGET sinew_asset AND "SINEW_HAVE_MESHOPT" IN_LIST _sinew_decoders AND "SINEW_HAVE_DRACO" IN_LIST _sinew_decoders)
  find_package(meshoptimizer CONFIG REQUIRED)
  find_package(draco CONFIG REQUIRED)
  add_executable(test_asset_gltf_compressed ${CMAKE_CURRENT_SOURCE_DIR}/compressed/test_asset_gltf_compressed.c
                 ${CMAKE_CURRENT_SOURCE_DIR}/compressed/draco_encode.cpp)
  set_target_properties(test_asset_gltf_compressed PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  target_link_libraries(test_asset_gltf_compressed PRIVATE sinew_testutil sinew::sinew sinew::asset
                        meshoptimizer::meshoptimizer draco::draco)
  add_test(NAME test_asset_gltf_compressed COMMAND test_asset_gltf_compressed WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  list(APPEND _sinew_unit_tests test_asset_gltf_compressed)
  set_tests_properties(test_asset_gltf_compressed PROPERTIES TIMEOUT 300
    ENVIRONMENT "SINEW_VALIDATION=1;SINEW_SOURCE_DIR=${PROJECT_SOURCE_DIR};${SINEW_TEST_SANITIZER_ENV}")
endif()
