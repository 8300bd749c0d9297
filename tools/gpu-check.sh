#!/usr/bin/env bash
# tools/gpu-check.sh [--quick] [--no-ctest] [--out DIR] [BUILD_DIR]
#
# One pass over an existing build on whatever Vulkan device is there (a lent
# GPU, or lavapipe here): device + driver, the whole ctest suite, the kernel
# A/B (sinew-bench --kernels-only; again at 1024 characters in full mode), a
# crowd of 10,000 characters x 10,000 vertices skinned with DQS with scale +
# bulge correction, the morph pass at 512 characters (full mode), and the copy
# roofline (with the copy by size). Each step runs under `timeout` (the whole script stays under
# 10 minutes; about 40 s on an H200) and its output, exit status and seconds go to ONE file,
# gpu-check-results.txt, in the results folder:
#   --out DIR, else $OUT/gpu-check when $OUT is set (the device machine), else
#   BUILD_DIR/gpu-check. The crowd run's bench.csv / bench.json sit beside it
#   in crowd/.
# Nothing is built: BUILD_DIR (default: build, relative to the repository root)
# must hold a finished build (make build BUILD=...). No display is needed.
# Exit status: 0 when every step passed, 1 otherwise, 2 on bad usage / no build.
#
#   --quick     small sizes for a CPU device (lavapipe): a 2,000-vertex tube x 100
#               characters, 3 kernel cases x 2 rounds (also SINEW_GPU_CHECK_QUICK=1)
#   --no-ctest  skip the ctest step
#   CTEST_ARGS  extra ctest arguments, e.g. CTEST_ARGS='-E viewer'. The tests
#               labelled toolchain (they compile code against this machine's
#               -dev packages) are always left out here.
#   SINEW_COMMIT  the commit to report where the tree has no .git (the device machine)
#
# Vulkan driver: the loader's default ICD search, unless VK_DRIVER_FILES (or the
# older VK_ICD_FILENAMES) is set in the environment; when neither is set and
# the NVIDIA ICD of the device machine exists (/usr/local/nvidia/share/vulkan/
# icd.d/nvidia_icd.json), that one is used. The ICD used is printed.
#
# On the lent GPU machine (/work/.library/device/README.md): it has CMake but
# no Debian Vulkan loader, so the loader travels as .deb files, and the build
# folder travels too (the script never rebuilds). Build for it here without
# assimp, so that the binaries need no library the machine lacks:
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSINEW_WITH_ASSIMP=OFF
#   cmake --build build-gpu -j2 && rm -rf build-gpu/install-* build-gpu/subproject-test
# Once, in the repository root: the loader debs into .gl/ (README of the device:
# `echo /.gl/ >>.git/info/exclude; ... apt-get $o download libvulkan1 ...`;
# add vulkan-validationlayers there to run the tests with validation). Then one
# device call, carrying .gl and the build folder (64 MiB in all):
#   run(carry=[".gl", "build-gpu"], timeout_s=560,
#       command="SINEW_COMMIT=<hash> CTEST_ARGS='-E viewer' bash tools/gpu-check.sh build-gpu")
# (-E viewer: the viewer needs GLFW and ImGui libraries that machine lacks, and
# viewer_lab fails in any SINEW_WITH_ASSIMP=OFF build: its panel script loads a model.)
# .gl needs libglvnd0 and the other GL debs the device README lists as well as
# libvulkan1: the NVIDIA ICD (libGLX_nvidia.so.0) does not load without them
# (vkCreateInstance fails with -9, seen on an H200).
# The script unpacks .gl/*.deb itself when no libvulkan.so.1 is installed and it
# runs as root, and links the build's original absolute paths (CTest files hold
# them) to where the tree is now when those paths do not exist (and the cmake
# the build was configured with to the cmake on PATH).
set -u

usage() { sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; }

QUICK=${SINEW_GPU_CHECK_QUICK:-0}
RUN_CTEST=1
OUT_DIR=""
BUILD_ARG=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --no-ctest) RUN_CTEST=0 ;;
    --out) shift; OUT_DIR=${1:-} ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "gpu-check: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) BUILD_ARG=$1 ;;
  esac
  shift
done

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_ARG=${BUILD_ARG:-build}
case "$BUILD_ARG" in
  /*) BUILD=$BUILD_ARG ;;
  *) if [ -d "$BUILD_ARG" ]; then BUILD=$(cd "$BUILD_ARG" && pwd); else BUILD=$ROOT/$BUILD_ARG; fi ;;
esac
BENCH=$BUILD/bin/sinew-bench
if [ ! -f "$BUILD/CMakeCache.txt" ] || [ ! -x "$BENCH" ]; then
  echo "gpu-check: no finished build in $BUILD (need CMakeCache.txt and bin/sinew-bench)." >&2
  echo "gpu-check: build it first (make build BUILD=$BUILD_ARG); this script never builds." >&2
  exit 2
fi

if [ -n "$OUT_DIR" ]; then RESULTS=$OUT_DIR
elif [ -n "${OUT:-}" ]; then RESULTS=$OUT/gpu-check
else RESULTS=$BUILD/gpu-check
fi
mkdir -p "$RESULTS" || { echo "gpu-check: cannot create $RESULTS" >&2; exit 2; }
RESULTS=$(cd "$RESULTS" && pwd)
RES=$RESULTS/gpu-check-results.txt
: >"$RES"
T_BEGIN=$(date +%s)

say() { printf '%s\n' "$*" | tee -a "$RES"; }
cache_get() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt" | head -n 1; }

# --- environment: loader, ICD, the build's absolute paths --------------------
PREP=()
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1'; then
  if ls "$ROOT"/.gl/*.deb >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    for f in "$ROOT"/.gl/*.deb; do dpkg -x "$f" / && PREP+=("unpacked $(basename "$f")"); done
    ldconfig
  else
    PREP+=("no libvulkan.so.1 installed and no .gl/*.deb to unpack (or not root): Vulkan steps will fail")
  fi
fi
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -z "${VK_ICD_FILENAMES:-}" ] &&
   [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  PREP+=("VK_DRIVER_FILES was unset: using the NVIDIA ICD found at $VK_DRIVER_FILES")
fi
ORIG_SRC=$(cache_get CMAKE_HOME_DIRECTORY)
ORIG_BUILD=$(cache_get CMAKE_CACHEFILE_DIR)
link_path() { # link_path <original absolute path> <where it is now>
  if [ -n "$1" ] && [ "$1" != "$2" ] && [ ! -e "$1" ]; then
    if mkdir -p "$(dirname "$1")" 2>/dev/null && ln -s "$2" "$1" 2>/dev/null; then
      PREP+=("linked $1 -> $2 (the build's CTest files name the original path)")
    else
      PREP+=("$1 (the build's original path) does not exist and cannot be linked: ctest will fail")
    fi
  fi
}
link_path "$ORIG_SRC" "$ROOT"
link_path "$ORIG_BUILD" "$BUILD"
# The script tests run the cmake the build was configured with, by its path.
ORIG_CMAKE=$(cache_get CMAKE_COMMAND)
if [ -n "$ORIG_CMAKE" ] && [ ! -e "$ORIG_CMAKE" ] && command -v cmake >/dev/null 2>&1; then
  link_path "$ORIG_CMAKE" "$(command -v cmake)"
fi

if [ -n "${SINEW_COMMIT:-}" ]; then COMMIT=$SINEW_COMMIT
elif COMMIT=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null); then
  git -C "$ROOT" diff --quiet HEAD 2>/dev/null || COMMIT="$COMMIT (with uncommitted changes)"
  COMMIT="$COMMIT $(git -C "$ROOT" log -1 --format=%s 2>/dev/null | cut -c1-80)"
else COMMIT="unknown (no .git here; pass SINEW_COMMIT=<hash>)"
fi

icd_desc() {
  local files=${VK_DRIVER_FILES:-${VK_ICD_FILENAMES:-}}
  if [ -z "$files" ]; then
    echo "loader default search (VK_DRIVER_FILES unset); ICD files present:" \
      "$(ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json /usr/local/share/vulkan/icd.d/*.json 2>/dev/null | tr '\n' ' ')"
    return
  fi
  local f lib
  for f in ${files//:/ }; do
    lib=$(sed -n 's/.*"library_path" *: *"\([^"]*\)".*/\1/p' "$f" 2>/dev/null | head -n 1)
    echo "$f (library_path ${lib:-?})"
  done
}

say "# Sinew gpu-check"
say "date:        $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "host:        $(uname -n) $(uname -m), $(nproc) CPU threads"
say "commit:      $COMMIT"
say "build:       $BUILD ($(cache_get CMAKE_BUILD_TYPE), SINEW_WITH_ASSIMP=$(cache_get SINEW_WITH_ASSIMP))"
say "mode:        $([ "$QUICK" = 1 ] && echo 'quick (reduced sizes)' || echo full)"
say "ICD:         VK_DRIVER_FILES=${VK_DRIVER_FILES:-} VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-}"
say "             $(icd_desc)"
if command -v nvidia-smi >/dev/null 2>&1; then
  say "nvidia-smi:  $(timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 4 | tr '\n' ';')"
fi
for p in "${PREP[@]}"; do say "setup:       $p"; done
missing=$(for f in "$BUILD"/bin/* "$BUILD"/tests/test_*; do
            [ -x "$f" ] && [ -f "$f" ] && ldd "$f" 2>/dev/null | grep 'not found' | sed "s|^|$(basename "$f"): |"
          done | sort -u | head -n 20)
[ -n "$missing" ] && say "missing shared libraries (those programs' steps will fail):" && say "$missing"
say "results:     $RES"

# --- steps ----------------------------------------------------------------------
STEPS=()
step() { # step <name> <timeout seconds> <command...>
  local name=$1 limit=$2; shift 2
  local t0 t1 rc log=$RESULTS/.step.log
  say ""
  say "=== step $name (timeout ${limit} s): $*"
  t0=$(date +%s.%N)
  timeout -k 10 "$limit" "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  t1=$(date +%s.%N)
  cat "$log" >>"$RES"
  rm -f "$log"
  local secs status
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  if [ "$rc" -eq 0 ]; then status=ok
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then status="TIMEOUT after ${limit} s"
  else status="FAILED"
  fi
  say "=== step $name: exit status $rc, $secs s, $status"
  STEPS+=("$(printf '%-10s %-22s %8s s   exit %s' "$name" "$status" "$secs" "$rc")")
  LAST_RC=$rc
}

if [ "$QUICK" = 1 ]; then
  KERNEL_ARGS=(--kernel-rounds 2 --kernel-cases dqs,dqs-scale,dqs-scale+bulge)
  CROWD_ARGS=(--tube-vertices 2000 --sizes 100 --seconds 0.3)
else
  KERNEL_ARGS=(--kernel-rounds 5)
  CROWD_ARGS=(--tube-vertices 10000 --sizes 10000 --seconds 2 --full)
  # A GPU's L2 (60 MB on an H200) holds the default 1M-vertex A/B and its 30 us
  # dispatches are latency: the A/B again at 1024 characters (16.7 M vertices), and
  # the morph pass at 512 characters.
  KERNEL_BIG_ARGS=(--kernel-rounds 5 --kernel-chars 1024)
  MORPH_ARGS=(7 512)
fi
NJ=$(nproc); [ "$NJ" -gt 8 ] && NJ=8
# Time limits (seconds): device 20 + ctest 240 + kernels 45 (+ kernels-1024 60) +
# crowd 60 (+ packed crowd 60) (+ morph 60) + roofline 30 + nvidia-smi 20 = 595 at
# most; about 40 s in all on an H200 (2026-11-27).

# SINEW_VALIDATION off for the benchmarks (ctest sets it per test).
unset SINEW_VALIDATION
step device 20 "$BENCH" --device-info
if [ "$RUN_CTEST" = 1 ]; then
  # shellcheck disable=SC2086
  # -LE toolchain: the tests that compile code with this machine's compiler and
  # -dev packages (header closure, install and subproject consumers) belong to the
  # build machine; the lent GPU machine has no Vulkan headers (seen 2026-11-27).
  step ctest 240 bash -c "cd '$BUILD' && exec ctest -j $NJ --timeout 150 --output-on-failure -LE toolchain ${CTEST_ARGS:-}"
fi
step kernels 45 "$BENCH" --kernels-only "${KERNEL_ARGS[@]}" --out "$RESULTS/kernels"
rmdir "$RESULTS/kernels" 2>/dev/null
if [ "$QUICK" != 1 ]; then
  step kernels-1024 60 "$BENCH" --kernels-only "${KERNEL_BIG_ARGS[@]}" --out "$RESULTS/kernels"
  rmdir "$RESULTS/kernels" 2>/dev/null
fi
step crowd 60 "$BENCH" --model none --methods dqs-scale+bulge --kernel-rounds 0 --no-variants \
  "${CROWD_ARGS[@]}" --out "$RESULTS/crowd"
# A device whose buffer limits capped the crowd (row marked *): again with the
# 16-byte packed output, which fits 1.5x more vertices in one buffer.
if [ "$LAST_RC" -eq 0 ] && grep -Eq '^tube .* dqs-scale\+bulge +[0-9]+\*' "$RES"; then
  step crowd-packed 60 "$BENCH" --model none --methods dqs-scale+bulge --kernel-rounds 0 --no-variants \
    "${CROWD_ARGS[@]}" --format packed --out "$RESULTS/crowd-packed"
fi
rm -f "$RESULTS"/crowd*/bench.gp
if [ "$QUICK" != 1 ] && [ -x "$BUILD/bin/sinew-bench-morph" ]; then
  step morph 60 "$BUILD/bin/sinew-bench-morph" "${MORPH_ARGS[@]}"
fi
step roofline 30 "$BENCH" --roofline-only

# --- summary --------------------------------------------------------------------
say ""
say "=== summary ($(( $(date +%s) - T_BEGIN )) s in all)"
fail=0
for s in "${STEPS[@]}"; do
  say "$s"
  case "$s" in *" ok "*) ;; *) fail=1 ;; esac
done
say "results: $RES"
exit $fail
