#!/usr/bin/env bash
# Wall time of one client on gtsim against llvmpipe, run alternately so that both see the
# same machine (a shared VM's speed drifts by tens of percent within minutes): the median
# of each series and the median of the per-pair ratios gtsim/llvmpipe.
#
#   cargo build --release --workspace && scripts/bench-pairs.sh julia 320x240 15
#
# With A=... and B=... (environment assignments, e.g. A=GTSIM_JIT_CACHE=0 B=), it compares
# two gtsim configurations instead: the ratio is B/A.
#
# Both drivers run with their disk caches as they are: llvmpipe with Mesa's shader cache,
# gtsim with Mesa's (crocus) and its own JIT cache (`GTSIM_JIT_CACHE`); run once before
# measuring to fill them.
set -euo pipefail
client=${1:?client}
size=${2:-64x64}
n=${3:-11}
bin=target/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
first() {
  if [ -n "${A+x}" ]; then
    env $A GTSIM_I915_QUIET=1 "$bin/gtsim" run ${GEN:+--gen $GEN} -- "$bin/$client" --size "$size" --out "$tmp/a.png"
  else
    env LIBGL_ALWAYS_SOFTWARE=1 EGL_PLATFORM=surfaceless "$bin/$client" --size "$size" --out "$tmp/a.png"
  fi
}
second() {
  env ${B-} GTSIM_I915_QUIET=1 "$bin/gtsim" run ${GEN:+--gen $GEN} -- "$bin/$client" --size "$size" --out "$tmp/b.png"
}
: > "$tmp/a"; : > "$tmp/b"; : > "$tmp/r"
for _ in $(seq "$n"); do
  s=$(now); first >/dev/null 2>&1; e=$(now); a=$(( (e - s) / 1000 ))
  s=$(now); second >/dev/null 2>&1; e=$(now); b=$(( (e - s) / 1000 ))
  echo "$a" >> "$tmp/a"; echo "$b" >> "$tmp/b"; echo "scale=3; $b / $a" | bc >> "$tmp/r"
done
if [ -n "${A+x}" ]; then names="A ($A) / B (${B-})"; else names="llvmpipe / gtsim"; fi
echo "$client@$size $names: $(median < "$tmp/a") us / $(median < "$tmp/b") us," \
  "median ratio $(median < "$tmp/r") (min $(sort -n "$tmp/r" | head -1), max $(sort -n "$tmp/r" | tail -1))"
