# cmake -DVIEWER=... -DLABCHECK=... -DXVFB=xvfb-run -DSCRIPT=... -DOUT=dir [-DSUB=name -DMODE=--psd] -P viewer_lab.cmake
# The viewer with its control panel under Xvfb, driven by a script of panel
# settings; every screenshot is then checked by sinew-labcheck (MODE: its check set).
if(NOT DEFINED SUB)
  set(SUB lab)
endif()
file(REMOVE_RECURSE ${OUT}/${SUB})
file(MAKE_DIRECTORY ${OUT}/${SUB})
execute_process(COMMAND ${XVFB} -a -s "-screen 0 1280x800x24"
                        ${VIEWER} --script ${SCRIPT} --shot-dir ${OUT}/${SUB}
                RESULT_VARIABLE rc TIMEOUT 240)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sinew-viewer --script under xvfb-run failed: ${rc}")
endif()
execute_process(COMMAND ${LABCHECK} ${MODE} ${OUT}/${SUB} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the panel's pictures did not change as the settings say")
endif()
