# The bake cache through the CLI: 'sinew deform --method cor' computes the
# centers and writes MODEL.cor in --cache-dir, a second run loads them (same
# output file, byte for byte), a truncated cache file is refused with a warning
# and recomputed; the same for --auto-weights (MODEL.weights). Uses the script
# mode of assets.cmake (exit status + output regex).
if(TARGET sinew_cli AND EXISTS /usr/share/assimp/models/X/BCN_Epileptic.X)
  set(_cc_dir ${PROJECT_BINARY_DIR}/cli-cor-cache)
  set(_cc_cli $<TARGET_FILE:sinew_cli>)
  set(_cc_m /usr/share/assimp/models/X/BCN_Epileptic.X)
  set(_cc_run "${_cc_cli} deform ${_cc_m} --time 2 --method cor --cpu --auto-weights 2 --cache-dir ${_cc_dir}")
  set(_cc_script "rm -rf ${_cc_dir} && ${_cc_run} --out cli_cc1.obj && ${_cc_run} --out cli_cc2.obj && tail -n +2 cli_cc1.obj > cli_cc1.body && tail -n +2 cli_cc2.obj > cli_cc2.body && cmp cli_cc1.body cli_cc2.body && echo same-output && head -c 100 ${_cc_dir}/BCN_Epileptic.X.cor > ${_cc_dir}/t && mv ${_cc_dir}/t ${_cc_dir}/BCN_Epileptic.X.cor && ${_cc_run} --out cli_cc3.obj && tail -n +2 cli_cc3.obj > cli_cc3.body && cmp cli_cc1.body cli_cc3.body && ls ${_cc_dir}")
  add_test(NAME cli_deform_cor_cache
    COMMAND ${CMAKE_COMMAND} "-DCMD=sh|-c|${_cc_script}" "-DEXPECT_RC=0"
            "-DEXPECT_RE=rotation in [0-9]+ ms .computed.*rotation in [0-9]+ ms .loaded from the cache.*same-output.*rotation in [0-9]+ ms .computed.*BCN_Epileptic.X.cor.BCN_Epileptic.X.weights.*warning: cache: [^ ]*BCN_Epileptic.X.cor refused: truncated"
            -P ${CMAKE_CURRENT_SOURCE_DIR}/assets.cmake
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties(cli_deform_cor_cache PROPERTIES TIMEOUT 300 LABELS cli
    ENVIRONMENT "SINEW_VALIDATION=1;ASAN_OPTIONS=detect_leaks=0")
endif()
