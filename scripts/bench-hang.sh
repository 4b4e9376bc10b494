#!/usr/bin/env bash
# How long a runaway draw takes to be reported as a GPU hang (issue 46: within 10 s).
# Runs the `runaway` client (2^31 - 1 instances of a triangle, then glFinish) under
# `gtsim run` on each generation and prints the wall time of the whole process (client
# start-up included) and the hang line. The per-command clock (GTSIM_WATCHDOG_SECONDS,
# 8 by default) ends the draw; SECONDS overrides it for the run.
#
#   cargo build --release --workspace && scripts/bench-hang.sh [SECONDS]
#
# Needs Mesa (apt-get install -y libgl1-mesa-dri libegl-mesa0 libegl1 libgbm1).
set -euo pipefail
bin=target/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ $# -ge 1 ] && export GTSIM_WATCHDOG_SECONDS=$1
printf '%-6s %8s  %s\n' gen wall_s report
for gen in 7 11; do
  s=$(date +%s.%N)
  GTSIM_I915_QUIET=1 "$bin/gtsim" run --gen "$gen" -- "$bin/runaway" --out "$tmp/r.png" \
    >"$tmp/out" 2>&1 || true
  e=$(date +%s.%N)
  hang=$(grep -o 'GPU HANG: .*watchdog: [^(]*' "$tmp/out" | head -1 || true)
  printf '%-6s %8.2f  %s\n' "$gen" "$(echo "$e - $s" | bc)" "${hang:-no hang reported}"
done
