#!/bin/sh
# Builds the import fuzzer with clang (libFuzzer + ASan + UBSan) and runs it
# for a bounded time on a corpus seeded from small assimp test models.
# usage: run_fuzz.sh SOURCE_DIR WORK_DIR [SECONDS]
# Crashes are classified: a stack with a Sinew frame (engine/core or engine/asset) on top of the
# first Sinew-or-assimp frames fails the run; crashes entirely inside assimp
# (Debian 5.2.5) are counted and listed, not failed.
set -u
SRC=${1:?source dir}
WORK=${2:?work dir}
SECS=${3:-60}
CC=${FUZZ_CC:-clang}
M=/usr/share/assimp/models
command -v "$CC" >/dev/null 2>&1 || { echo "fuzz: $CC not found, skipped"; exit 0; }
mkdir -p "$WORK/corpus" "$WORK/artifacts"
BIN="$WORK/fuzz_import"
echo "fuzz: building $BIN"
CORE_SRC=$(ls "$SRC"/engine/core/src/*.c | grep -v '/version.c$')
ASSET_SRC=$(ls "$SRC"/engine/asset/src/*.c)
# shellcheck disable=SC2086
$CC -g -O1 -std=c11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$SRC/engine/core/include" -I"$SRC/engine/asset/include" -I"$SRC/engine/core/src" -I"$SRC/engine/asset/src" -I"$SRC/shaders" $(pkg-config --cflags json-c) \
    "$SRC/tests/fuzz/fuzz_import.c" $ASSET_SRC $CORE_SRC \
    -lassimp $(pkg-config --libs json-c) -lstdc++ -lm -o "$BIN" || { echo "fuzz: build failed"; exit 1; }

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

rm -f "$WORK"/artifacts/*
echo "fuzz: running for $SECS s"
ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
  "$BIN" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$SECS" \
    -timeout=5 -rss_limit_mb=2048 -max_len=131072 -print_final_stats=1 \
    -artifact_prefix="$WORK/artifacts/" "$WORK/corpus" > "$WORK/fuzz.log" 2>&1
tail -n 5 "$WORK/fuzz.log"
EXECS=$(grep -o 'exec/s: [0-9]*' "$WORK/fuzz.log" | tail -1)
RUNS=$(grep -Eo '#[0-9]+' "$WORK/fuzz.log" | tail -1)

ours=0; theirs=0; hangs=0
for a in "$WORK"/artifacts/crash-* "$WORK"/artifacts/timeout-* "$WORK"/artifacts/oom-*; do
  [ -f "$a" ] || continue
  case "$(basename "$a")" in timeout-*|oom-*) hangs=$((hangs+1)); continue;; esac
  ASAN_OPTIONS=detect_leaks=0 "$BIN" "$a" > "$a.trace" 2>&1
  # the first frame that is Sinew's or assimp's decides
  first=$(grep -E '^ *#[0-9]+ ' "$a.trace" | grep -E 'engine/(core|asset)/src|libassimp' | head -1)
  if echo "$first" | grep -qE "engine/(core|asset)/src"; then ours=$((ours+1)); echo "fuzz: CRASH IN SINEW: $a"; head -30 "$a.trace"
  else theirs=$((theirs+1)); fi
done
echo "fuzz: total runs ${RUNS:-?}, last ${EXECS:-?}, corpus $(ls "$WORK/corpus" | wc -l) files"
echo "fuzz: crashes in Sinew code: $ours; crashes inside assimp: $theirs; timeouts/ooms: $hangs (artifacts in $WORK/artifacts)"
[ "$ours" -eq 0 ]
