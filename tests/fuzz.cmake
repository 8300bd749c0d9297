# Bounded libFuzzer run of the import path (tests/fuzz/run_fuzz.sh builds the
# target with clang -fsanitize=fuzzer,address,undefined and fuzzes for
# SINEW_FUZZ_SECONDS, 60 by default). Registered only with -DSINEW_FUZZ=ON, so
# the default suite stays short; the script can also be run by hand:
#   tests/fuzz/run_fuzz.sh <source dir> <work dir> [seconds]
if(SINEW_FUZZ AND SINEW_WITH_ASSIMP)
  find_program(SINEW_CLANG NAMES clang clang-14 clang-15 clang-16)
  if(SINEW_CLANG)
    if(NOT DEFINED SINEW_FUZZ_SECONDS)
      set(SINEW_FUZZ_SECONDS 60)
    endif()
    add_test(NAME fuzz_import
      COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/fuzz/run_fuzz.sh ${PROJECT_SOURCE_DIR}
              ${PROJECT_BINARY_DIR}/fuzz ${SINEW_FUZZ_SECONDS})
    set_tests_properties(fuzz_import PROPERTIES LABELS fuzz TIMEOUT 900
      ENVIRONMENT "FUZZ_CC=${SINEW_CLANG}")
  else()
    message(STATUS "SINEW_FUZZ: clang not found, fuzz_import not registered")
  endif()
endif()
