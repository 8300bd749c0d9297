# cmake -DVIEWER=... -DLABCHECK=... -DXVFB=xvfb-run -DSCRIPT=... -DOUT=dir -P viewer_lab.cmake
# The viewer with its control panel under Xvfb, driven by a script of panel
# settings; every screenshot is then checked by sinew-labcheck.
file(REMOVE_RECURSE ${OUT}/lab)
file(MAKE_DIRECTORY ${OUT}/lab)
execute_process(COMMAND ${XVFB} -a -s "-screen 0 1280x800x24"
                        ${VIEWER} --script ${SCRIPT} --shot-dir ${OUT}/lab
                RESULT_VARIABLE rc TIMEOUT 240)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sinew-viewer --script under xvfb-run failed: ${rc}")
endif()
execute_process(COMMAND ${LABCHECK} ${OUT}/lab RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the panel's pictures did not change as the settings say")
endif()
