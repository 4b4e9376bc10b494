#!/usr/bin/env bash
# Frame time of each test client on gtsim (crocus over the model) against llvmpipe
# running the same program: median wall time of RUNS runs of the whole process (EGL
# set-up, shader compilation, the frame, read-back), and the device time alone (the
# client's captured trace replayed with `gtsim replay`).
#
#   cargo build --release --workspace && scripts/bench-clients.sh [RUNS]
#
# Needs Mesa (apt-get install -y libgl1-mesa-dri libegl-mesa0 libegl1 libgbm1).
set -euo pipefail
runs=${1:-5}
bin=target/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timeit() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
# The demo clients at their default 64x64, then the two benchmark frames: the
# shader-heavy julia at 320x240 and the instanced, lit scene at 640x480.
printf '%-22s %12s %12s %8s %14s\n' client llvmpipe_s gtsim_s ratio replay_s
for cs in clear triangle textured_quad depth blend shader_loops queries lines discard_depth \
  clipping points julia:320x240 scene:640x480; do
  c=${cs%%:*}
  size=64
  [ "$c" != "$cs" ] && size=${cs#*:}
  l=$(for _ in $(seq "$runs"); do
        timeit env LIBGL_ALWAYS_SOFTWARE=1 EGL_PLATFORM=surfaceless "$bin/$c" --size "$size" --out "$tmp/l.png"
      done | median)
  g=$(for _ in $(seq "$runs"); do
        timeit env GTSIM_I915_QUIET=1 "$bin/gtsim" run -- "$bin/$c" --size "$size" --out "$tmp/g.png"
      done | median)
  GTSIM_I915_QUIET=1 "$bin/gtsim" run --capture "$tmp/$c.aub" -- "$bin/$c" --size "$size" --out "$tmp/g.png" >/dev/null 2>&1
  r=$(for _ in $(seq "$runs"); do timeit "$bin/gtsim" replay "$tmp/$c.aub" -o "$tmp/rp"; done | median)
  printf '%-22s %12.3f %12.3f %8.2f %14.3f\n' "$c@$size" "$l" "$g" "$(echo "$g / $l" | bc -l)" "$r"
done
