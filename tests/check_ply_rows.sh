#!/bin/sh
# Usage: check_ply_rows.sh FILE.ply TOL_POS TOL_TAN "ROW" ...
# Compares the vertex rows of an ASCII PLY written by 'sinew deform' (x y z nx ny
# nz tx ty tz tw) with the expected rows, in order: position and normal fields
# within TOL_POS, tangent fields (7-10, the sign included) within TOL_TAN.
# Prints "rows match" and exits 0, or names each field that differs and exits 1.
f=$1 tp=$2 tt=$3
shift 3
exp=""
for r in "$@"; do exp="$exp$r,"; done
awk -v want="$exp" -v tp="$tp" -v tt="$tt" '
  BEGIN { n = split(want, rows, ",") - 1 }
  h && r < n {
    m = split(rows[r + 1], e, " ")
    if (NF != m) { print "row " r ": " NF " fields, expected " m; bad = 1 }
    for (i = 1; i <= m; i++) {
      d = $i - e[i]
      if (d < 0) d = -d
      if (d > (i >= 7 ? tt : tp)) { print "row " r " field " i ": " $i ", expected " e[i]; bad = 1 }
    }
    r++
  }
  /^end_header/ { h = 1 }
  END {
    if (r != n) { print "read " r " rows, expected " n; bad = 1 }
    print bad ? "rows differ" : "rows match"
    exit bad
  }' "$f"
