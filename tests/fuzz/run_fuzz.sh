#!/bin/sh
# Builds the import fuzzers with clang (libFuzzer + ASan + UBSan) and runs each
# for a bounded time:
#  - fuzz_import: the assimp import path, corpus seeded from small assimp test models;
#  - fuzz_gltf:   Sinew's own glTF 2.0 importer (json-c), corpus seeded from the
#                 glTF files of assimp-testmodels and tests/data/gltf.
# usage: run_fuzz.sh SOURCE_DIR WORK_DIR [SECONDS] [GLTF_SECONDS]
# Crashes are classified: a stack with a Sinew frame (engine/core or engine/asset) on top of the
# first Sinew-or-assimp frames fails the run; crashes entirely inside assimp
# (Debian 5.2.5) are counted and listed, not failed. Every crash of the glTF
# target fails the run (assimp is not involved there).
set -u
SRC=${1:?source dir}
WORK=${2:?work dir}
SECS=${3:-60}
GSECS=${4:-$SECS}
CC=${FUZZ_CC:-clang}
M=/usr/share/assimp/models
command -v "$CC" >/dev/null 2>&1 || { echo "fuzz: $CC not found, skipped"; exit 0; }
mkdir -p "$WORK/corpus" "$WORK/artifacts" "$WORK/gltf_corpus" "$WORK/gltf_artifacts"
CORE_SRC=$(ls "$SRC"/engine/core/src/*.c | grep -v '/version.c$')
ASSET_SRC=$(ls "$SRC"/engine/asset/src/*.c)
# the reference layer: the harnesses skin what they import with the float64 reference
REF_SRC=$(ls "$SRC"/engine/reference/src/*.c)
# the compressed-glTF decoders (gltf_meshopt.c, gltf_draco.cpp), when their Debian packages are there
CXX=${FUZZ_CXX:-$(echo "$CC" | sed 's/clang/clang++/')}
DEC_DEFS=""; DEC_LIBS=""; DEC_OBJ=""
[ -f /usr/include/meshoptimizer.h ] && { DEC_DEFS="$DEC_DEFS -DSINEW_HAVE_MESHOPT"; DEC_LIBS="$DEC_LIBS -lmeshoptimizer"; }
if [ -f /usr/include/draco/compression/decode.h ] && command -v "$CXX" >/dev/null 2>&1; then
  DEC_OBJ="$WORK/gltf_draco.o"
  $CXX -g -O1 -std=c++17 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined -DSINEW_HAVE_DRACO \
      -I"$SRC/engine/asset/src" -c "$SRC/engine/asset/src/gltf_draco.cpp" -o "$DEC_OBJ" || { echo "fuzz: build of gltf_draco.cpp failed"; exit 1; }
  DEC_DEFS="$DEC_DEFS -DSINEW_HAVE_DRACO"; DEC_LIBS="$DEC_LIBS -ldraco"
else
  DEC_OBJ="$WORK/gltf_draco.o"
  $CXX -g -O1 -std=c++17 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr -I"$SRC/engine/asset/src" \
      -c "$SRC/engine/asset/src/gltf_draco.cpp" -o "$DEC_OBJ" || { echo "fuzz: build of gltf_draco.cpp failed"; exit 1; }
fi
build() {
  echo "fuzz: building $WORK/$1"
  # shellcheck disable=SC2086
  $CC -g -O1 -std=c11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $DEC_DEFS \
      -I"$SRC/engine/core/include" -I"$SRC/engine/asset/include" -I"$SRC/engine/reference/include" -I"$SRC/engine/core/src" -I"$SRC/engine/asset/src" \
      -I"$SRC/shaders" $(pkg-config --cflags json-c) \
      "$SRC/tests/fuzz/$1.c" $ASSET_SRC $REF_SRC $CORE_SRC $DEC_OBJ \
      -lassimp $(pkg-config --libs json-c) $DEC_LIBS -lstdc++ -lm -o "$WORK/$1" || { echo "fuzz: build of $1 failed"; exit 1; }
}
build fuzz_import
build fuzz_gltf

# seed corpus: first byte = index of the hint in fuzz_import.c
seed() { f="$M/$2"; [ -f "$f" ] || return 0; out="$WORK/corpus/seed_$(basename "$2" | tr -c 'A-Za-z0-9._\n' '_')"
         printf "\\$(printf '%03o' "$1")" > "$out"; cat "$f" >> "$out"; }
seed 0 glTF2/simple_skin/simple_skin.gltf
seed 1 X/test_cube_text.x
seed 1 X/test_cube_binary.x
seed 2 FBX/huesitos.fbx
seed 3 SMD/triangle.smd
seed 4 Collada/box_nested_animation.dae
seed 5 MD5/SimpleCube.md5mesh
seed 6 OBJ/box.obj
seed 7 PLY/cube.ply
seed 8 "MDL/MDL (HL1)/man.mdl"
# glTF seeds: first byte 0 = .gltf, 1 = .glb; files up to 128 KiB
n=0
for f in $(find "$M/glTF2" "$SRC/tests/data/gltf" -type f \( -name '*.gltf' -o -name '*.glb' \) -size -128k 2>/dev/null); do
  n=$((n+1)); out="$WORK/gltf_corpus/seed_$n"
  case "$f" in *.glb) printf '\001' > "$out";; *) printf '\000' > "$out";; esac
  cat "$f" >> "$out"
done

# compressed glTF seeds (EXT_meshopt_compression, KHR_draco_mesh_compression): written by the
# test that encodes them, when the build next to the work dir has it
SEEDER="$WORK/../tests/test_asset_gltf_compressed"
if [ -x "$SEEDER" ] && "$SEEDER" --write-seeds "$WORK/compressed_seeds" >/dev/null 2>&1; then
  for f in "$WORK"/compressed_seeds/*.gltf; do
    n=$((n+1)); out="$WORK/gltf_corpus/seed_$n"; printf '\000' > "$out"; cat "$f" >> "$out"
  done
  echo "fuzz: glTF corpus: compressed seeds from $SEEDER"
fi

# run BIN CORPUS ARTIFACTS SECONDS LOG
run() {
  rm -f "$3"/*
  echo "fuzz: running $1 for $4 s"
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$WORK/$1" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$4" \
      -timeout=5 -rss_limit_mb=2048 -max_len=131072 -print_final_stats=1 \
      -artifact_prefix="$3/" "$2" > "$5" 2>&1
  tail -n 5 "$5"
}
run fuzz_import "$WORK/corpus" "$WORK/artifacts" "$SECS" "$WORK/fuzz.log"
run fuzz_gltf "$WORK/gltf_corpus" "$WORK/gltf_artifacts" "$GSECS" "$WORK/fuzz_gltf.log"

ours=0; theirs=0; hangs=0; unknown=0; unreproduced=0
for a in "$WORK"/artifacts/crash-* "$WORK"/artifacts/timeout-* "$WORK"/artifacts/oom-*; do
  [ -f "$a" ] || continue
  case "$(basename "$a")" in timeout-*|oom-*) hangs=$((hangs+1)); continue;; esac
  # replayed alone: a crash that does not reproduce is nobody's (reported, not blamed)
  if ASAN_OPTIONS=detect_leaks=0 "$WORK/fuzz_import" "$a" > "$a.trace" 2>&1; then
    unreproduced=$((unreproduced+1)); echo "fuzz: crash not reproduced alone: $a"; continue
  fi
  # the first frame that is Sinew's or assimp's decides; none (an empty stack) blames nobody
  first=$(grep -E '^ *#[0-9]+ ' "$a.trace" | grep -E 'engine/(core|asset|reference)/src|libassimp' | head -1)
  if echo "$first" | grep -qE "engine/(core|asset|reference)/src"; then ours=$((ours+1)); echo "fuzz: CRASH IN SINEW: $a"; head -30 "$a.trace"
  elif echo "$first" | grep -q libassimp; then theirs=$((theirs+1))
  else unknown=$((unknown+1)); echo "fuzz: CRASH, NO SINEW OR ASSIMP FRAME: $a"; head -30 "$a.trace"; fi
done
gcrash=0; ghangs=0
for a in "$WORK"/gltf_artifacts/crash-* "$WORK"/gltf_artifacts/timeout-* "$WORK"/gltf_artifacts/oom-*; do
  [ -f "$a" ] || continue
  case "$(basename "$a")" in
    timeout-*|oom-*)
      # a timeout on a loaded machine is not a hang: it counts only if a rerun
      # alone with 6x the time limit still does not finish
      if ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$WORK/fuzz_gltf" -timeout=30 -rss_limit_mb=2048 "$a" > "$a.trace" 2>&1; then
        echo "fuzz: glTF timeout/oom not reproduced alone: $a"
      else ghangs=$((ghangs+1)); echo "fuzz: glTF timeout/oom: $a"; tail -30 "$a.trace"; fi
      continue;;
  esac
  if ASAN_OPTIONS=detect_leaks=0 "$WORK/fuzz_gltf" "$a" > "$a.trace" 2>&1; then
    unreproduced=$((unreproduced+1)); echo "fuzz: glTF crash not reproduced alone: $a"; continue
  fi
  # a glTF 1.x file falls back to assimp: the first Sinew-or-assimp frame decides, as above
  first=$(grep -E '^ *#[0-9]+ ' "$a.trace" | grep -E 'engine/(core|asset|reference)/src|libassimp' | head -1)
  if echo "$first" | grep -q libassimp; then theirs=$((theirs+1)); continue; fi
  gcrash=$((gcrash+1)); echo "fuzz: CRASH IN THE glTF IMPORTER: $a"; head -30 "$a.trace"
done
stats() { echo "total runs $(grep -Eo '#[0-9]+' "$1" | tail -1 | tr -d '#'), last $(grep -Eo 'exec/s:? [0-9]+' "$1" | tail -1)"; }
echo "fuzz: assimp path: $(stats "$WORK/fuzz.log"), corpus $(ls "$WORK/corpus" | wc -l) files"
echo "fuzz: assimp path: crashes in Sinew code: $ours; crashes inside assimp (both targets): $theirs; with neither frame: $unknown; not reproduced alone (both targets): $unreproduced; timeouts/ooms: $hangs (artifacts in $WORK/artifacts)"
echo "fuzz: glTF importer: $(stats "$WORK/fuzz_gltf.log"), corpus $(ls "$WORK/gltf_corpus" | wc -l) files"
echo "fuzz: glTF importer: crashes: $gcrash; timeouts/ooms: $ghangs (artifacts in $WORK/gltf_artifacts)"
[ "$ours" -eq 0 ] && [ "$unknown" -eq 0 ] && [ "$gcrash" -eq 0 ] && [ "$ghangs" -eq 0 ]
