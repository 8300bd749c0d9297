# cmake -DVIEWER=... -DBENCH=... -DCHECK=... -DOUT=dir -P viewer_crowd_scene.cmake
# sinew-viewer --scene crowd headless (the scene of sinew-bench --scene crowd,
# samples/common/crowd_scene.c) for 10 frames of 100 characters:
#  - exit 0 (the viewer itself fails on: visible + culled != characters, hidden
#    != culled, instances drawn != visible, a hidden character not skipped by the
#    crowd, a stage figure not finite or < 0, the root motion check, a validation
#    message); no validation message in the output;
#  - every frame line: visible > 0 and visible + culled = 100, all 8 stage figures
#    (sample/blend FK palette bounds upload morph skin render) present and >= 0;
#    some frame culls characters (the path camera is inside the plaza);
#  - the medians line and a passing root motion check;
#  - the PNG has characters in it (sinew-pngcheck, 2 % strongly colored pixels);
#  - the crowd's state after frame 9 (every character's world transform, %.17g)
#    is the same, byte for byte, as sinew-bench --scene crowd's after its 10
#    frames (2 warm-up + 8) of the same 100 characters (--scene-state);
#  - with XVFB (xvfb-run found): the windowed crowd scene with its panel (free
#    camera: the path camera's culling seen from outside) takes a
#    screenshot after 6 frames (exit 0: no validation message, root motion
#    check ok) with characters in it.
# No timing is checked.
file(REMOVE_RECURSE ${OUT}/crowd-scene)
file(MAKE_DIRECTORY ${OUT}/crowd-scene)
set(d ${OUT}/crowd-scene)
execute_process(COMMAND ${VIEWER} --scene crowd --headless ${d} --frames 10 --count 100 --screenshot ${d}/crowd-scene.png
                        --scene-state ${d}/viewer-state.txt
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
message("${out}${err}exit: ${rc}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sinew-viewer --scene crowd --headless failed: ${rc}")
endif()
if("${out}${err}" MATCHES "Validation Error|VUID-")
  message(FATAL_ERROR "validation message")
endif()
if(NOT out MATCHES "frame +visible +culled +drawn +near +mid +far +interp +skinned_vtx \\| sample/blend +FK +palette +bounds +upload +morph +skin +render")
  message(FATAL_ERROR "no per-frame table header with the stages")
endif()
set(num "[0-9]+\\.[0-9]+")
string(REGEX MATCHALL "\n +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ \\|[^\n]*" rows "${out}")
list(LENGTH rows nrows)
if(NOT nrows EQUAL 10)
  message(FATAL_ERROR "expected 10 frame lines, got ${nrows}")
endif()
set(culled_any 0)
foreach(row ${rows})
  if(NOT row MATCHES "^\n +([0-9]+) +([0-9]+) +([0-9]+) ")
    message(FATAL_ERROR "bad frame line: ${row}")
  endif()
  set(f ${CMAKE_MATCH_1})
  set(vis ${CMAKE_MATCH_2})
  set(cul ${CMAKE_MATCH_3})
  math(EXPR sum "${vis} + ${cul}")
  if(vis LESS 1 OR NOT sum EQUAL 100)
    message(FATAL_ERROR "frame ${f}: visible ${vis}, culled ${cul} (100 characters)")
  endif()
  if(cul GREATER 0)
    set(culled_any 1)
  endif()
  if(NOT row MATCHES "\\| +${num} +${num} +${num} +${num} +${num} +${num} +${num} +${num} \\| +${num} +${num} +${num}$")
    message(FATAL_ERROR "frame ${f}: the 8 stage figures (and prepare, gpu, frame) are not all present and >= 0: ${row}")
  endif()
endforeach()
if(NOT culled_any)
  message(FATAL_ERROR "no frame culled a character")
endif()
if(NOT out MATCHES "medians of 8 frame\\(s\\) after 2 warm-up frames, ms: sample/blend ${num} FK ${num} palette ${num} bounds ${num} upload ${num} morph ${num} skin ${num} render ${num}")
  message(FATAL_ERROR "no medians line with the 8 stages")
endif()
if(NOT out MATCHES "root motion check: [1-9][0-9]* moved by the crowd[^\n]*: ok\n")
  message(FATAL_ERROR "no passing root motion check")
endif()
execute_process(COMMAND ${CHECK} ${d}/crowd-scene.png 0.02 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "crowd-scene.png: no characters (or missing)")
endif()
# the same scene in the bench (no render stage: it does not change the crowd)
execute_process(COMMAND ${BENCH} --scene crowd --sizes 100 --frames 8 --no-render --out ${d}
                        --scene-state ${d}/bench-state.txt
                RESULT_VARIABLE rc OUTPUT_VARIABLE bout ERROR_VARIABLE berr TIMEOUT 240)
if(NOT rc EQUAL 0)
  message("${bout}${berr}")
  message(FATAL_ERROR "sinew-bench --scene crowd failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${d}/viewer-state.txt ${d}/bench-state.txt RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the viewer's crowd after frame 9 differs from the bench's (${d}/viewer-state.txt, bench-state.txt)")
endif()
message("viewer and bench: the same world transform for each of the 100 characters after frame 9")
if(XVFB)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
                          ${XVFB} -a -s "-screen 0 1280x800x24"
                          ${VIEWER} --scene crowd --count 100 --free-camera --screenshot ${d}/crowd-window.png --frames 6
                  RESULT_VARIABLE rc OUTPUT_VARIABLE wout ERROR_VARIABLE werr TIMEOUT 240)
  message("${wout}${werr}exit: ${rc}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sinew-viewer --scene crowd (window) failed: ${rc}")
  endif()
  if(NOT wout MATCHES "crowd scene: [0-9]+ frames, root motion check: [1-9][0-9]* moved by the crowd[^\n]*: ok")
    message(FATAL_ERROR "window: no passing root motion check")
  endif()
  execute_process(COMMAND ${CHECK} ${d}/crowd-window.png 0.02 RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "crowd-window.png: no characters (or missing)")
  endif()
endif()
