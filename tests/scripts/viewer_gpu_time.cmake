# cmake -DVIEWER=... -DXVFB=xvfb-run -DOUT=dir -P viewer_gpu_time.cmake
# The title's "GPU skin" time against an independent measurement of the same
# dispatch: sinew-viewer --gpu-time-check skins the last frame's crowd alone,
# back to back on the skinner's own queue path, and compares the wall time per
# submission with the median of the per-frame figures the title averaged (only
# the ratio, within 4x either way; before the fix it was 0.004). 1024 tubes =
# 395,264 vertices, so that the skinning (~10 ms on lavapipe) dwarfs the submit
# latency the wall time includes.
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${XVFB} -a -s "-screen 0 1280x800x24"
                        ${VIEWER} --model none --count 1024 --screenshot ${OUT}/viewer-gpu-time.png --frames 12
                        --gpu-time-check
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
message("${out}${err}")
# Sanitizer builds: the check's wall-time reference includes Sinew's host code, which
# ASan/UBSan slow several-fold (seen: ratio 0.225 against 0.25), so there the path runs
# under the sanitizers and the ratio is reported, not enforced; the normal build enforces it.
if(SANITIZE AND rc EQUAL 1 AND out MATCHES "GPU skin check: [^\n]*FAILED")
  message("sanitizer build: the ratio above is not enforced")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sinew-viewer --gpu-time-check failed: ${rc}")
endif()
if(NOT out MATCHES "GPU skin check: [^\n]*: ok")
  message(FATAL_ERROR "no 'GPU skin check: ... ok' line in the viewer's output")
endif()
