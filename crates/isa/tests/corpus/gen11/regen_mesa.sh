#!/bin/sh
# Regenerate the Gen11 (Ice Lake, iris) corpus: <program>.mesa.txt, <program>.pairs and
# all.pairs. Needs the built gtsim + test programs (target/debug) and Debian's Mesa
# 22.3.6 iris. The draws themselves hang (Gen11 draws are not modelled yet), but iris
# compiles and prints every kernel before submitting.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../../.." && pwd)
progs="clear triangle textured_quad depth blend shader_loops julia scene compute_ssbo image_store atomic_counters"
for p in $progs; do
    INTEL_DEBUG=vs,tcs,tes,gs,fs,cs,hex,blorp GTSIM_I915_QUIET=1 MESA_SHADER_CACHE_DISABLE=true \
        "$root/target/debug/gtsim" run --gen 11 -- "$root/target/debug/$p" --out "/tmp/$p.png" 2> "/tmp/$p.raw.txt" || true
    grep -vE "^(EGL display: |EGL [0-9.]+, vendor |EGL context: |GL_RENDERER: |GL_VERSION: |GL_SHADING_LANGUAGE_VERSION: |$p: wrote |gtsim-i915: )" \
        "/tmp/$p.raw.txt" > "$here/$p.mesa.txt"
done
cd "$here" && GEN=11 python3 ../mesa_pairs.py $progs
