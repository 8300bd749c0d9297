# CLI tests for the `sinew` tool: exit codes and messages. Each test runs this
# same file in script mode (cmake -P) which checks the exit status and that the
# combined output matches a regular expression.
if(CMAKE_SCRIPT_MODE_FILE)
  string(REPLACE "|" ";" cmd "${CMD}")
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  message("$ ${CMD}\n${out}${err}exit: ${rc}")
  if(NOT "${rc}" STREQUAL "${EXPECT_RC}")
    message(FATAL_ERROR "expected exit status ${EXPECT_RC}, got ${rc}")
  endif()
  if(NOT "${out}${err}" MATCHES "${EXPECT_RE}")
    message(FATAL_ERROR "output does not match '${EXPECT_RE}'")
  endif()
  return()
endif()

if(NOT TARGET sinew_cli)
  return()
endif()

set(_m /usr/share/assimp/models)
set(_cli_tests)
function(sinew_cli_test name rc regex)
  string(REPLACE ";" "|" cmd "$<TARGET_FILE:sinew_cli>;${ARGN}")
  add_test(NAME cli_${name}
    COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" "-DEXPECT_RC=${rc}" "-DEXPECT_RE=${regex}"
            -P ${CMAKE_CURRENT_LIST_FILE}
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties(cli_${name} PROPERTIES TIMEOUT 300 LABELS cli
    ENVIRONMENT "SINEW_VALIDATION=1;ASAN_OPTIONS=detect_leaks=0;SINEW_CACHE_DIR=${PROJECT_BINARY_DIR}/bake-cache")
endfunction()

sinew_cli_test(help 0 "usage: sinew <command>" --help)
sinew_cli_test(info_help 0 "usage: sinew info.*Exit status 1 also when the file is described but .sinew deform. would refuse" info --help)
sinew_cli_test(deform_help 0 "--time T.*T = the duration gives the last key.*--loop .*--method M.*--morph NAME=W.*\\|W\\| <= 1e6" deform --help)
sinew_cli_test(no_args 2 "usage" )
sinew_cli_test(unknown_command 2 "unknown command 'frobnicate'" frobnicate)
sinew_cli_test(unknown_option 2 "unknown option '--bogus'" info ${_m}/X/BCN_Epileptic.X --bogus)
sinew_cli_test(bad_method 2 "unknown method 'dq'" deform ${_m}/X/BCN_Epileptic.X --method dq --out x.obj)
sinew_cli_test(bad_extension 2 "must be .obj or .ply" deform ${_m}/X/BCN_Epileptic.X --out x.stl)
sinew_cli_test(missing_out 2 "missing --out" deform ${_m}/X/BCN_Epileptic.X)
sinew_cli_test(bad_time 2 "bad --time" deform ${_m}/X/BCN_Epileptic.X --time nan --out x.obj)
sinew_cli_test(missing_file 1 "cannot open" info /nonexistent/model.gltf)
sinew_cli_test(not_a_model 1 "assimp could not import" info ${_m}/invalid/readme.txt)
sinew_cli_test(info_bcn 0 "joints: 58.*influences per vertex: 1:8378 2:6088 3:912.*clip 0 'Epileptisch': 3.3 s.*device: "
               info ${_m}/X/BCN_Epileptic.X)
sinew_cli_test(info_fbx_pruned 0 "max influences: 6.*pruned to 4: 2883 vertices.*skins them with up to 8 \\(all of them\\)"
               info ${_m}/FBX/animation_with_skeleton.fbx)
# more than 4 influences: deform packs the model with 8 (numbers: test_asset_models, test_gpu_skin8)
sinew_cli_test(deform_fbx_8_gpu 0 "wrote cli_fbx8.obj: 4224 vertices.*method dqs, 8 influences"
               deform ${_m}/FBX/animation_with_skeleton.fbx --time 0.5 --method dqs --out cli_fbx8.obj)
sinew_cli_test(deform_fbx_8_cpu 0 "wrote cli_fbx8c.obj: 4224 vertices.*lbs \\+ bulge, 8 influences, CPU float64 reference"
               deform ${_m}/FBX/animation_with_skeleton.fbx --time 0.5 --bulge --cpu --out cli_fbx8c.obj)
# a model whose weights name missing bones is still described, the problem a warning, exit 1
sinew_cli_test(info_missing_bones 1 "joints: 4.*warning: 2 bones name no node.*bone 'joint3' names no node.*deform' fails without --allow-missing-bones"
               info ${_m}/X/anim_test.x)
sinew_cli_test(info_missing_bones_allowed 0 "2 bones name no node"
               info ${_m}/X/anim_test.x --allow-missing-bones)
sinew_cli_test(deform_gpu_ply 0 "wrote cli_wuson.ply: 11196 vertices, 3732 triangles.*dqs-scale \\+ bulge"
               deform ${_m}/X/Testwuson.X --clip Wuson_Walk --time 1.1 --method dqs-scale --bulge --out cli_wuson.ply)
# the inner push (SINEW_SKIN_BULGE_INNER), GPU and CPU
sinew_cli_test(deform_bulge_inner_gpu 0 "wrote cli_wuson_in.obj: 11196 vertices.*dqs-scale \\+ bulge \\+ inner"
               deform ${_m}/X/Testwuson.X --clip Wuson_Walk --time 1.1 --method dqs-scale --bulge-inner --out cli_wuson_in.obj)
sinew_cli_test(deform_bulge_inner_cpu 0 "wrote cli_bcn_in.obj: 15378 vertices.*lbs \\+ bulge \\+ inner, .*CPU float64 reference"
               deform ${_m}/X/BCN_Epileptic.X --time 2 --bulge-inner --cpu --out cli_bcn_in.obj)
sinew_cli_test(deform_gpu_obj 0 "wrote cli_bcn.obj: 15378 vertices"
               deform ${_m}/X/BCN_Epileptic.X --time 2 --method dqs-scale-local --out cli_bcn.obj)
sinew_cli_test(deform_cpu 0 "CPU float64 reference"
               deform ${_m}/FBX/huesitos.fbx --clip 0 --time 0.5 --method dqs --cpu --out cli_huesitos.obj)
sinew_cli_test(deform_bind 0 "bind pose"
               deform ${_m}/glTF2/simple_skin/simple_skin.gltf --bind --cpu --out cli_simple.obj)
sinew_cli_test(deform_dqs_not_rigid 1 "plain DQS cannot represent; use --method dqs-scale"
               deform ${_m}/ASE/MotionCaptureROM.ase --method dqs --cpu --out cli_ase.obj)
# CoR: centers computed by the CLI, GPU and CPU paths, 8 influences with scale + bulge, rigid-only refusal
sinew_cli_test(deform_cor_gpu 0 "wrote cli_cor.obj: 15378 vertices.*method cor, .*centers of rotation in [0-9]+ ms"
               deform ${_m}/X/BCN_Epileptic.X --time 2 --method cor --out cli_cor.obj)
sinew_cli_test(deform_cor_cpu 0 "method cor, CPU float64 reference, centers of rotation"
               deform ${_m}/X/BCN_Epileptic.X --time 2 --method cor --cpu --cor-sigma 0.2 --out cli_corc.obj)
sinew_cli_test(deform_cor_scale_8 0 "wrote cli_cor8.obj: 4224 vertices.*method cor-scale \\+ bulge, 8 influences"
               deform ${_m}/FBX/animation_with_skeleton.fbx --time 0.5 --method cor-scale --bulge --out cli_cor8.obj)
sinew_cli_test(deform_cor_scale_local 0 "wrote cli_corl.obj: 4224 vertices.*method cor-scale-local, 8 influences"
               deform ${_m}/FBX/animation_with_skeleton.fbx --time 0.5 --method cor-scale-local --out cli_corl.obj)
sinew_cli_test(deform_cor_scale_mixed_cpu 0 "method cor-scale-mixed \\+ bulge, CPU float64 reference, centers of rotation"
               deform ${_m}/ASE/MotionCaptureROM.ase --method cor-scale-mixed --bulge --cpu --out cli_corm.obj)
sinew_cli_test(deform_cor_not_rigid 1 "plain CoR cannot represent; use --method cor-scale"
               deform ${_m}/ASE/MotionCaptureROM.ase --method cor --cpu --out cli_ase.obj)
sinew_cli_test(deform_cor_bad_sigma 2 "bad --cor-sigma '0'"
               deform ${_m}/X/BCN_Epileptic.X --method cor --cor-sigma 0 --out x.obj)
sinew_cli_test(deform_no_clip 1 "no clip 'run'" deform ${_m}/X/BCN_Epileptic.X --clip run --out x.obj)
sinew_cli_test(deform_no_clips 1 "has no animation clips" deform ${_m}/MD5/SimpleCube.md5mesh --time 1 --out x.obj)
sinew_cli_test(deform_unwritable 1 "cannot write"
               deform ${_m}/glTF2/simple_skin/simple_skin.gltf --cpu --out /nonexistent/dir/x.obj)
sinew_cli_test(deform_no_device 1 "no Vulkan device matching"
               deform ${_m}/glTF2/simple_skin/simple_skin.gltf --device no-such-gpu-xyz --out x.obj)
if(NOT SINEW_SANITIZE)
  # assimp tries to allocate hundreds of GB for this file; the CLI's import
  # memory limit turns that into an error (not under ASan, see sinew.c)
  sinew_cli_test(out_of_memory_file 1 "out of memory: the import needed more than the limit of 4096 MiB.*bad_alloc"
                 info ${_m}/invalid/OutOfMemory.off)
endif()

# worker robustness: range-checked limits (4294967296 s used to overflow alarm();
# 1e30 MiB the rlimit arithmetic), --out equal to the input refused
sinew_cli_test(timeout_too_big 2 "bad --timeout '4294967296'" info ${_m}/X/BCN_Epileptic.X --timeout 4294967296)
sinew_cli_test(timeout_zero 2 "bad --timeout '0'" info ${_m}/X/BCN_Epileptic.X --timeout 0)
sinew_cli_test(max_memory_too_big 2 "bad --max-memory '1e30'" info ${_m}/X/BCN_Epileptic.X --max-memory 1e30)
sinew_cli_test(out_is_input 2 "is the input model: refusing to overwrite it" deform ${_m}/OBJ/box.obj --out ${_m}/OBJ/box.obj)
sinew_cli_test(out_is_input_other_path 2 "is the input model" deform ${_m}/OBJ/box.obj --out ${_m}/OBJ/../OBJ/box.obj)

# glTF through Sinew's own importer; hostile references and out-of-range transforms
set(_g ${PROJECT_SOURCE_DIR}/tests/data/gltf)
sinew_cli_test(gltf_info 0 "joints: 1 \\(bones 1 in 1 skinned meshes.*importer: Sinew glTF 2.0 \\(1 skins, 1 skinned mesh instances" info ${_g}/ok_skinned.gltf)
sinew_cli_test(gltf_info_tangents 0 "tangents: read from file \\(1 of 1 meshes" info ${_g}/tangents.gltf)
# 'sinew deform' skins the file's tangents into the PLY (tx ty tz tw), GPU and CPU, LBS and
# DQS with scale: tests/data/gltf/tangents_pose.gltf, rest pose: root rotated 90 deg about z
# with scale (2,1,1), a child 'arm', a child 'mirror' with scale (-1,1,1); one vertex per
# joint, weight 1. Hand-computed: vertex 0 tangent (1,1,0)/sqrt2 -> R S t = (-1,2,0)/sqrt5,
# sign +1; vertex 1 (0,0,1), sign -1 kept; vertex 2 (0,1,0) -> (-1,0,0), sign +1 flipped by
# the mirror (det < 0). Tolerances: tangents 1e-4 (the rest tangent is stored octahedral
# snorm16: ~3e-5), positions and normals 1e-5. The OBJ says the tangents are left out.
foreach(_tm lbs dqs-scale)
  foreach(_dev gpu cpu)
    if(_dev STREQUAL "cpu")
      set(_flag --cpu)
    else()
      set(_flag "")
    endif()
    set(_tn cli_deform_tangents_${_tm}_${_dev})
    add_test(NAME ${_tn}
      COMMAND ${CMAKE_COMMAND} "-DCMD=sh|-c|$<TARGET_FILE:sinew_cli> deform ${_g}/tangents_pose.gltf --rest --method ${_tm} ${_flag} --out ${_tn}.ply && sh ${PROJECT_SOURCE_DIR}/tests/check_ply_rows.sh ${_tn}.ply 1e-5 1e-4 '0 0 0 0 0 1 -0.4472135955 0.894427191 0 1' '0 2 0 0 0 1 0 0 1 -1' '-1 0 0 0 0 1 -1 0 0 -1'"
              "-DEXPECT_RC=0" "-DEXPECT_RE=skinned tangents \\(tx ty tz tw\\).*rows match"
              -P ${CMAKE_CURRENT_LIST_FILE}
      WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
    set_tests_properties(${_tn} PROPERTIES TIMEOUT 300 LABELS cli
      ENVIRONMENT "SINEW_VALIDATION=1;ASAN_OPTIONS=detect_leaks=0;SINEW_CACHE_DIR=${PROJECT_BINARY_DIR}/bake-cache")
  endforeach()
endforeach()
sinew_cli_test(deform_tangents_obj 0 "1 triangles \\(.*\\); tangents left out \\(OBJ has no tangent field\\)" deform ${_g}/tangents_pose.gltf --rest --out cli_tangents.obj)
sinew_cli_test(gltf_uri_absolute 1 "refused to open '/etc/passwd': it is an absolute path" info ${_g}/uri_etc_passwd.gltf)
sinew_cli_test(gltf_uri_dotdot 1 "refused to open '../../../../../../../etc/passwd': it climbs out of the model's folder"
               deform ${_g}/uri_dotdot.gltf --cpu --out cli_dotdot.obj)
sinew_cli_test(gltf_huge_scale 1 "joint 0 'hip' \\(node 1\\): rest skinning transform beyond float32 range" info ${_g}/huge_scale.gltf)
sinew_cli_test(gltf_near_float_max 1 "node 1 'hip': transform beyond float32 range" info ${_g}/near_float_max.gltf)
sinew_cli_test(gltf_posed_huge 1 "joint 0 'hip': its skinning transform at this pose is beyond float32 range"
               deform ${_g}/grows_huge.gltf --time 1 --clamp --out cli_huge.obj)
sinew_cli_test(gltf_posed_huge_cpu 1 "joint 0 'hip': its skinning transform at this pose is beyond float32 range"
               deform ${_g}/grows_huge.gltf --time 0.5 --clamp --cpu --out cli_huge.obj)
sinew_cli_test(gltf_posed_ok 0 "wrote cli_grow.obj: 3 vertices" deform ${_g}/grows_huge.gltf --time 0 --out cli_grow.obj)

# compressed clips (sinew/clip_compress.h): per-clip ratio and measured error, deform on the compressed clip
sinew_cli_test(info_compress_clips 0 "clip 0 'Epileptisch'.*compressed \\(tolerance 0.002, shell [0-9.e-]+\\): ratio [0-9.]+, [0-9]+ -> [0-9]+ bytes, max error [0-9.e-]+"
               info ${_m}/X/BCN_Epileptic.X --compress-clips 0.002)
sinew_cli_test(deform_compress_clips 0 "wrote cli_bcn_cmp.obj.*clip 0 compressed: ratio [0-9.]+ .*max error [0-9.e-]+ \\(tolerance 0.002\\)"
               deform ${_m}/X/BCN_Epileptic.X --compress-clips 0.002 --time 0.5 --cpu --out cli_bcn_cmp.obj)
sinew_cli_test(bad_compress_clips 2 "bad --compress-clips '-1'" info ${_m}/X/BCN_Epileptic.X --compress-clips -1)
# Control characters in names never reach written or printed output: the file is
# written by test_asset_names (control_names.gltf: mesh, node, clip and morph target
# names with a newline, CR and ESC). The OBJ must keep 3 'v' lines and 1 face, the
# PLY its header (rows parsed), and no ESC byte anywhere in the files or the output.
if(TARGET test_asset_names)
  set_tests_properties(test_asset_names PROPERTIES FIXTURES_SETUP control_names)
  foreach(_ext obj ply)
    if(_ext STREQUAL "obj")
      set(_chk "awk '/^v /{v++} /^vn /{n++} /^f /{f++} END{print \"obj lines: v=\" v \" vn=\" n \" f=\" f}' cli_control_names.obj")
    else()
      set(_chk "sh ${PROJECT_SOURCE_DIR}/tests/check_ply_rows.sh cli_control_names.ply 1e-6 1 '0 0 0 0 0 1' '1 0 0 0 0 1' '0 1 0 0 0 1'")
    endif()
    add_test(NAME cli_deform_control_names_${_ext}
      COMMAND ${CMAKE_COMMAND} "-DCMD=sh|-c|$<TARGET_FILE:sinew_cli> deform control_names.gltf --clip 0 --time 0.5 --cpu --out cli_control_names.${_ext} && $<TARGET_FILE:sinew_cli> info control_names.gltf && ${_chk} && tr -dc '\\033\\007\\015' < cli_control_names.${_ext} > cli_control_names_${_ext}.esc && echo esc bytes: $(wc -c < cli_control_names_${_ext}.esc)"
              "-DEXPECT_RC=0" "-DEXPECT_RE=clip 0 'walk[?]v 1 2 3[?]f 1 2 3[?].0.pwned[?]' at 0.5 s.*mesh 0 'mesh[?].2J[?]'.*(obj lines: v=3 vn=3 f=1|rows match).*esc bytes: 0[^0-9]"
              -P ${CMAKE_CURRENT_LIST_FILE}
      WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
    set_tests_properties(cli_deform_control_names_${_ext} PROPERTIES TIMEOUT 300 LABELS cli FIXTURES_REQUIRED control_names
      ENVIRONMENT "SINEW_VALIDATION=1;ASAN_OPTIONS=detect_leaks=0")
  endforeach()
endif()
# --out naming the glTF's own external buffer (out_is_buffer/ written by test_asset_names):
# refused, the buffer unchanged (before: overwritten with the OBJ).
if(TARGET test_asset_names)
  add_test(NAME cli_deform_out_is_input
    COMMAND ${CMAKE_COMMAND} "-DCMD=sh|-c|! $<TARGET_FILE:sinew_cli> deform out_is_buffer/model.gltf --rest --out out_is_buffer/mesh.obj && cmp out_is_buffer/mesh.obj out_is_buffer/mesh.orig && echo buffer unchanged"
            "-DEXPECT_RC=0" "-DEXPECT_RE=buffer unchanged.*--out 'out_is_buffer/mesh.obj' is a file the import read"
            -P ${CMAKE_CURRENT_LIST_FILE}
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties(cli_deform_out_is_input PROPERTIES TIMEOUT 300 LABELS cli FIXTURES_REQUIRED control_names
    ENVIRONMENT "SINEW_VALIDATION=1;ASAN_OPTIONS=detect_leaks=0")
endif()
# --max-memory exhausted while json-c parses a glTF: said as such, not as "JSON error ... success"
# (big_nodes.gltf written by test_asset_names; the sanitizer build sets no limit: the node limit then)
if(TARGET test_asset_names)
  sinew_cli_test(info_json_out_of_memory 1
                 "out of memory: the import needed more than the limit of 64 MiB \\(glTF: out of memory while parsing the JSON|2000000 nodes \\(limit 1048576\\)"
                 info big_nodes.gltf --max-memory 64)
  set_tests_properties(cli_info_json_out_of_memory PROPERTIES FIXTURES_REQUIRED control_names)
endif()
