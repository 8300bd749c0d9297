# Automatic weights on real models: the CLI's --auto-weights option (exit codes,
# messages) and sinew-autoweights, which skins each model with the file's weights
# and with automatic weights over a clip and fails when the bind pose does not
# reproduce the same mesh with both (its self-check). Uses the script mode of
# assets.cmake (exit status + output regex).
if(TARGET sinew_cli)
  set(_aw_m /usr/share/assimp/models)
  function(sinew_aw_test name rc regex)
    string(REPLACE ";" "|" cmd "${ARGN}")
    add_test(NAME ${name}
      COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" "-DEXPECT_RC=${rc}" "-DEXPECT_RE=${regex}"
              -P ${CMAKE_CURRENT_SOURCE_DIR}/assets.cmake
      WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
    set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS cli
      ENVIRONMENT "SINEW_VALIDATION=1;ASAN_OPTIONS=detect_leaks=0;SINEW_CACHE_DIR=${PROJECT_BINARY_DIR}/bake-cache")
  endfunction()
  sinew_aw_test(cli_auto_weights_bad_alpha 2 "bad --auto-weights '0'"
                $<TARGET_FILE:sinew_cli> deform ${_aw_m}/FBX/huesitos.fbx --auto-weights 0 --out x.obj)
  sinew_aw_test(cli_auto_weights_nan 2 "bad --auto-weights 'nan'"
                $<TARGET_FILE:sinew_cli> info ${_aw_m}/FBX/huesitos.fbx --auto-weights nan)
  sinew_aw_test(cli_info_auto_weights 0
                "auto weights \\(alpha 2, 37 eligible joints\\): influences per vertex 1:0 2:0 3:0 4:11196.*same major joint on"
                $<TARGET_FILE:sinew_cli> info ${_aw_m}/X/Testwuson.X --auto-weights 2)
  sinew_aw_test(cli_deform_auto_weights_gpu 0 "wrote cli_aw.ply: 11196 vertices.*auto weights alpha 4"
                $<TARGET_FILE:sinew_cli> deform ${_aw_m}/X/Testwuson.X --time 0.5 --method dqs --bulge
                --auto-weights 4 --out cli_aw.ply)
  sinew_aw_test(cli_deform_auto_weights_cpu 0 "auto weights alpha 1.5, CPU float64 reference"
                $<TARGET_FILE:sinew_cli> deform ${_aw_m}/glTF2/simple_skin/simple_skin.gltf --auto-weights 1.5 --cpu
                --out cli_aw.obj)
endif()
if(SINEW_BUILD_SAMPLES AND TARGET sinew_asset AND TARGET sinew_cli)
  sinew_aw_test(autoweights_models 0 "huesitos.fbx +256 +8/12 +2.00 .*Testwuson.X +11196 +37/40 +8.00 "
                $<TARGET_FILE:sinew_autoweights> --frames 12 ${_aw_m}/FBX/huesitos.fbx ${_aw_m}/X/Testwuson.X)
  # the methods on a real model over its clip: bulge correction leaves no vertex farther
  # from its major bone than at rest (0.00 %), LBS and DQS do
  sinew_aw_test(autoweights_quality 0
                "Testwuson.X +11196 lbs +[1-9][0-9.]*% .*Testwuson.X +11196 dqs +[1-9][0-9.]*% .*Testwuson.X +11196 dqs \\+bulge +0.00% +0.00% "
                $<TARGET_FILE:sinew_autoweights> --quality --frames 20 ${_aw_m}/X/Testwuson.X)
  sinew_aw_test(autoweights_bad_alpha 2 "bad --alpha" $<TARGET_FILE:sinew_autoweights> --alpha 2,-1 x.fbx)
endif()
