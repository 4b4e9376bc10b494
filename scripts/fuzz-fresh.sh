#!/usr/bin/env bash
# The seeded harnesses again, with a fresh seed: `cargo test` replays each harness's
# fixed seed (the regression cases); CI runs this after it so that every run also tries
# inputs no run tried before. The seed is printed first: a failure replays with
#
#   GTSIM_FUZZ_SEED=<seed> scripts/fuzz-fresh.sh
#
# (or that variable on the one test that failed). docs/FUZZING.md lists the harnesses.
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${GTSIM_FUZZ_SEED:-$(od -An -N8 -tu8 /dev/urandom | tr -d ' \n')}
echo "fuzz-fresh: GTSIM_FUZZ_SEED=$seed"
export GTSIM_FUZZ_SEED=$seed
status=0
run() { if ! cargo test -q "$@" > /tmp/fuzz-fresh.$$ 2>&1; then cat /tmp/fuzz-fresh.$$; echo "fuzz-fresh: FAILED: cargo test $* with GTSIM_FUZZ_SEED=$seed"; status=1; fi; rm -f /tmp/fuzz-fresh.$$; }
run -p gtsim-isa --test fuzz --test fuzz_gen11
run -p gtsim-gpu --test fuzz_gen11 --test fuzz_replay --test gen11_compute
run -p gtsim-gpu --lib blt
run -p gtsim --test fuzz
run -p gtsim-inspect --test fuzz_inspect --test diff
run -p gtsim-gen7 --test raster_fuzz --test geometry_fuzz --test sampler_fuzz --test sampler_8x8 --test sampler_dndi --test sampler_message --test compute
run -p gtsim-gen7 --lib data_port
run -p gtsim-dataport --test alike --test depth_clear
run -p gtsim-mem --lib fill
run -p gtsim-mem --lib overlay
run -p gtsim-eu --test reset --test differential
run -p gtsim-eu --lib jit::cache
run -p gtsim-i915 --lib fuzz
# i915-stress fuzz under the preload library: the test finds the cdylib in deps/, where
# this same `cargo test` builds it (with the i915-stress binary), so no build comes first.
run -p gtsim-i915 --test preload fuzz
exit $status
