#!/bin/sh
# Regenerate <program>.mesa.txt, <program>.pairs and all.pairs.
# Needs the built gtsim + test programs (target/debug) and Debian's Mesa 22.3.6 crocus.
# Run from anywhere; writes into this directory.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
progs="clear triangle textured_quad depth blend shader_loops julia scene"
for p in $progs; do
    INTEL_DEBUG=vs,tcs,tes,gs,fs,cs,hex,blorp GTSIM_I915_QUIET=1 MESA_SHADER_CACHE_DISABLE=true \
        "$root/target/debug/gtsim" run -- "$root/target/debug/$p" --out "/tmp/$p.png" 2> "/tmp/$p.raw.txt"
    # Drop the test program's own banner (EGL/GL_* lines) and its final "<prog>: wrote" line.
    grep -vE "^(EGL display: |EGL [0-9.]+, vendor |EGL context: |GL_RENDERER: |GL_VERSION: |GL_SHADING_LANGUAGE_VERSION: |$p: wrote )" \
        "/tmp/$p.raw.txt" > "$here/$p.mesa.txt"
done
cd "$here" && python3 mesa_pairs.py $progs
