# cmake -DVIEWER=... -DCHECK=... -DXVFB=xvfb-run -DOUT=dir -P viewer_window.cmake
file(MAKE_DIRECTORY ${OUT})
file(REMOVE ${OUT}/viewer-window.png)
execute_process(COMMAND ${XVFB} -a -s "-screen 0 1280x800x24"
                        ${VIEWER} --count 36 --screenshot ${OUT}/viewer-window.png --frames 6
                RESULT_VARIABLE rc TIMEOUT 240)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sinew-viewer under xvfb-run failed: ${rc}")
endif()
execute_process(COMMAND ${CHECK} ${OUT}/viewer-window.png 0.01 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "viewer screenshot is empty (or missing)")
endif()
