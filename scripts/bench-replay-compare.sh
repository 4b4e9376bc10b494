#!/usr/bin/env bash
# Device time of two gtsim builds on the same captured frames: captures each test client
# once (with the second build) and replays the trace with both, printing the median of
# RUNS replays and the ratio. Also checks that both builds write identical images.
#
#   scripts/bench-replay-compare.sh OLD_GTSIM NEW_GTSIM [RUNS]
#
# Needs the release clients beside NEW_GTSIM (cargo build --release -p gtsim-clients
# -p gtsim-i915 -p gtsim) and Mesa (apt-get install -y libgl1-mesa-dri libegl-mesa0
# libegl1 libgbm1).
set -euo pipefail
old=$1
new=$2
runs=${3:-15}
bin=$(dirname "$new")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timeit() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
printf '%-14s %10s %10s %8s %s\n' client old_s new_s new/old images
for c in clear triangle textured_quad depth blend shader_loops queries lines discard_depth clipping points; do
  a=$tmp/$c.aub
  GTSIM_I915_QUIET=1 "$new" run --capture "$a" -- "$bin/$c" --out "$tmp/$c.png" >/dev/null 2>&1
  o=$(for _ in $(seq "$runs"); do timeit "$old" replay "$a" -o "$tmp/o"; done | median)
  n=$(for _ in $(seq "$runs"); do timeit "$new" replay "$a" -o "$tmp/n"; done | median)
  same=$(diff -rq "$tmp/o" "$tmp/n" >/dev/null && echo identical || echo DIFFER)
  printf '%-14s %10.4f %10.4f %8.2f %s\n' "$c" "$o" "$n" "$(echo "$n / $o" | bc -l)" "$same"
  rm -rf "$tmp/o" "$tmp/n"
done
