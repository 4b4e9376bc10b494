#!/bin/sh
# Checks gtsim's assembler and disassembler against Mesa's own Gen7 assembler tests
# (src/intel/tools/tests/gen7/*.asm and *.expected in Mesa's source).
#
# usage: scripts/mesa-asm-check.sh MESA_GIT_DIR [REV]
#   MESA_GIT_DIR  a Mesa git directory (a clone's .git, or a bare repository)
#   REV           the revision to take the files from (default HEAD)
#
# The files are extracted into a temporary directory (never into this repository) and
# crates/isa/tests/mesa_asm.rs runs on them (GTSIM_MESA_TESTS). Set CARGO_TARGET_DIR as
# usual to share a build directory.
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 MESA_GIT_DIR [REV]" >&2
    exit 2
fi
git_dir=$1
rev=${2:-HEAD}
tests=src/intel/tools/tests/gen7
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mesa-gen7.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
files=$(git --git-dir="$git_dir" ls-tree --name-only "$rev" "$tests/") || {
    echo "$0: cannot list $tests in $git_dir at $rev" >&2
    exit 2
}
for f in $files; do
    case $f in
    *.asm | *.expected) git --git-dir="$git_dir" show "$rev:$f" >"$tmp/$(basename "$f")" ;;
    esac
done
echo "extracted $(ls "$tmp" | grep -c '\.asm$') .asm files from $git_dir ($rev) into $tmp"
cd "$(dirname "$0")/.."
GTSIM_MESA_TESTS=$tmp cargo test -p gtsim-isa --test mesa_asm -- --nocapture
