#!/usr/bin/env bash
# Runs piglit's compute-shader shader_runner tests of the compute families
# (arb_compute_shader, arb_shader_storage_buffer_object, arb_shader_atomic_counters,
# arb_shader_image_load_store, variable-indexing) on iris over `gtsim run --gen 11` and on
# llvmpipe, and prints each test's two results and the totals.
#
#   apt-get install -y piglit waffle-utils libgl1-mesa-dri
#   cargo build --release -p gtsim -p gtsim-i915
#   scripts/piglit-compute-gen11.sh [target/release/gtsim] [LIST]
#
# LIST, a file of shader_test paths, replaces the compute families (e.g. a random sample
# of every piglit test with a compute shader).
set -euo pipefail
GTSIM=$(realpath "${1:-target/release/gtsim}")
P=/usr/lib/x86_64-linux-gnu/piglit
export PIGLIT_PLATFORM=surfaceless_egl
if [ -n "${2:-}" ]; then
  list=$(cat "$2")
else
  list=$(grep -l '^\[compute shader\]' -r "$P/tests/spec" "$P/generated_tests/spec" \
      --include='*.shader_test' 2>/dev/null |
      grep -i 'compute_shader\|storage_buffer\|atomic_counter\|image_load_store\|variable-index' | sort)
fi
result() { grep -o '"result": "[a-z]*"' | tail -1 | cut -d'"' -f4; }
pass_llvm=0 pass_both=0 total=0
cd "$(mktemp -d)"
for t in $list; do
  total=$((total + 1))
  l=$(LIBGL_ALWAYS_SOFTWARE=1 timeout 120 "$P/bin/shader_runner" "$t" -auto -fbo 2>&1 | result || true)
  g=$(timeout 300 "$GTSIM" run --gen 11 -- "$P/bin/shader_runner" "$t" -auto -fbo 2>&1 | result || true)
  printf '%-60s llvmpipe %-5s gtsim %s\n' "$(basename "$t")" "${l:-none}" "${g:-none}"
  if [ "$l" = pass ]; then
    pass_llvm=$((pass_llvm + 1))
    [ "$g" = pass ] && pass_both=$((pass_both + 1))
  fi
done
echo "$total tests; llvmpipe passes $pass_llvm; iris on gtsim --gen 11 passes $pass_both of those"
