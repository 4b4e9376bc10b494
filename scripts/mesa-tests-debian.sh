#!/usr/bin/env bash
# Mesa's own assembler tests (src/intel/tools/tests/gen7 and gen11: .asm text with the
# .expected bytes), taken from Debian's source package of the Mesa the machine has,
# unpacked under DIR (default: a new temporary directory). Prints the directory that holds
# gen7/ and gen11/. Needs apt and root (or sudo): it adds a deb-src entry for Debian's
# archive and downloads the package's source (about 27 MB for Mesa 22.3.6).
#
#   dir=$(scripts/mesa-tests-debian.sh)
#   GTSIM_MESA_TESTS=$dir/gen7 GTSIM_MESA_TESTS_GEN11=$dir/gen11 \
#     cargo test -p gtsim-isa --test mesa_asm --test mesa_asm_gen11
set -euo pipefail
dir=${1:-$(mktemp -d "${TMPDIR:-/tmp}/mesa-tests.XXXXXX")}
sudo_() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
src=/etc/apt/sources.list.d/gtsim-deb-src.sources
if ! grep -rqs "^Types:.*deb-src" /etc/apt/sources.list.d/ && ! grep -qs "^deb-src" /etc/apt/sources.list; then
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    | sudo_ tee "$src" >/dev/null
  sudo_ apt-get update -qq >&2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The release's own Mesa (mesa/bookworm), not a newer one that a backports deb-src line
# would otherwise pick (and whose Debian files may be gone from the mirror).
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
(cd "$work" && { { [ -n "$codename" ] && apt-get source --download-only -qq "mesa/$codename" >&2 2>/dev/null; } ||
  apt-get source --download-only -qq mesa >&2 2>/dev/null; }) || {
  echo "mesa-tests-debian.sh: apt-get source mesa failed" >&2
  exit 1
}
tarball=$(ls "$work"/mesa_*.orig.tar.* | head -1)
tar xf "$tarball" -C "$work" --wildcards '*/src/intel/tools/tests/gen7/*' '*/src/intel/tools/tests/gen11/*'
mkdir -p "$dir"
cp -r "$work"/mesa-*/src/intel/tools/tests/gen7 "$work"/mesa-*/src/intel/tools/tests/gen11 "$dir"/
echo "$dir"
