#!/usr/bin/env bash
# piglit on gtsim at scale, through deqp-runner's piglit-runner (Mesa CI's runner):
# parallel jobs, per-test timeouts, expected-failure baselines, flake detection, and
# shards (`--fraction N --fraction-start K`: N machines each run one Nth).
#
#   scripts/conformance.sh run --gen 7 --profile gpu --jobs 2 --out results/g7
#   scripts/conformance.sh run --gen 11 --tests LIST --fraction 4 --fraction-start 2 --out s2
#   scripts/conformance.sh run --gen 7 --reference --tests LIST --out results/llvmpipe
#   scripts/conformance.sh merge --out merged s1 s2 s3 s4
#   scripts/conformance.sh compare results/llvmpipe results/g7
#   scripts/conformance.sh baseline --reference results/llvmpipe --results results/g7 \
#       --reasons docs/conformance/gen7-reasons.tsv --out docs/conformance/gen7-baseline.csv
#
# `run` (the default command) runs crocus (`--gen 7`) or iris (`--gen 11`) on gtsim, or
# with `--reference` llvmpipe capped to what that driver exposes, and leaves
# piglit-runner's results.csv, failures.csv and the logs of each failure in the output
# directory. Its exit status is piglit-runner's: non-zero when a test regressed against
# `--baseline` (a result not listed there, or a listed failure that now passes).
# `merge` combines shards' results.csv (refusing overlapping shards) and exits non-zero
# when any shard regressed. `baseline` writes the expected-failure baseline of a run: every
# test gtsim does not pass, with its status and the reason the first matching line of
# REASONS (tab-separated: a Python regular expression on the test name, then the reason)
# gives, or, where the reference fails too, that. `compare` prints the totals of a reference run and a gtsim
# run and every test the reference passes that gtsim does not. docs/CONFORMANCE.md has
# the method and the figures.
#
# GTSIM=PATH runs another gtsim build (its preload library beside it). gtsim runs with a
# 60 s hangcheck clock per command unless GTSIM_WATCHDOG_SECONDS says otherwise.
# It finds piglit-runner on PATH or in ~/.cargo/bin, else installs the pinned version
# with cargo; it installs Debian's piglit if missing (as root, or with sudo).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
RUNNER_VERSION=0.24.0
PIGLIT_DIR=${PIGLIT_DIR:-/usr/lib/x86_64-linux-gnu/piglit}

# What crocus exposes on Ivy Bridge, for the capped llvmpipe reference: GL 4.2 compat
# and core, GLSL 4.20, GLES 3.0, and none of the extensions llvmpipe has and crocus
# lacks on Gen7 (Gen8's int64 and ballot, Haswell's query buffer objects and robust
# access, min/max filtering, coherent framebuffer fetch, ASTC, stencil texturing, ...).
# An always-on extension must not be named here: Mesa 22.3 then drops 37 others.
GEN7_CAP=(
  MESA_GL_VERSION_OVERRIDE=4.2
  MESA_GLSL_VERSION_OVERRIDE=420
  MESA_GLES_VERSION_OVERRIDE=3.0
  "MESA_EXTENSION_OVERRIDE=-GL_ARB_gpu_shader_int64 -GL_AMD_gpu_shader_int64 -GL_ARB_shader_ballot -GL_ARB_query_buffer_object -GL_AMD_query_buffer_object -GL_ARB_robust_buffer_access_behavior -GL_KHR_robust_buffer_access_behavior -GL_ARB_ES3_1_compatibility -GL_ARB_ES3_2_compatibility -GL_ARB_post_depth_coverage -GL_INTEL_shader_atomic_float_minmax -GL_NV_shader_atomic_float -GL_ARB_shader_atomic_counter_ops -GL_ARB_texture_filter_minmax -GL_EXT_texture_filter_minmax -GL_ARM_shader_framebuffer_fetch_depth_stencil -GL_EXT_shader_framebuffer_fetch -GL_KHR_blend_equation_advanced -GL_KHR_blend_equation_advanced_coherent -GL_KHR_texture_compression_astc_ldr -GL_KHR_texture_compression_astc_sliced_3d -GL_EXT_texture_sRGB_R8 -GL_EXT_texture_sRGB_RG8 -GL_ARB_shader_stencil_export -GL_AMD_shader_stencil_export -GL_EXT_texture_mirror_clamp -GL_ATI_texture_mirror_once -GL_EXT_texture_compression_latc -GL_ATI_texture_compression_3dc -GL_ARB_stencil_texturing -GL_ARB_texture_stencil8"
)

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit "${1:-2}"
}
die() { echo "conformance.sh: $*" >&2; exit 2; }

sudo_() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

find_runner() {
  if command -v piglit-runner >/dev/null 2>&1; then command -v piglit-runner; return; fi
  if [ -x "$HOME/.cargo/bin/piglit-runner" ]; then echo "$HOME/.cargo/bin/piglit-runner"; return; fi
  echo "conformance.sh: installing piglit-runner (deqp-runner $RUNNER_VERSION) with cargo" >&2
  cargo install --quiet --locked deqp-runner --version "$RUNNER_VERSION" >&2
  echo "$HOME/.cargo/bin/piglit-runner"
}

find_piglit() {
  if [ ! -d "$PIGLIT_DIR/tests" ]; then
    echo "conformance.sh: installing piglit (Debian's package, about 2 GB)" >&2
    sudo_ apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive sudo_ apt-get install -y -qq piglit waffle-utils >&2
  fi
  [ -d "$PIGLIT_DIR/tests" ] || die "no piglit at $PIGLIT_DIR (set PIGLIT_DIR)"
}

# A piglit folder whose profile `gtsim_list` holds just the tests of LIST (one name per
# line, as `piglit print-cmd` and results.csv spell them) taken from PROFILE, in the
# profile's order; everything else is the real folder, linked.
list_folder() {
  local list=$1 profile=$2 dir=$3
  mkdir -p "$dir/tests"
  for e in "$PIGLIT_DIR"/*; do
    [ "$(basename "$e")" = tests ] || ln -sfn "$e" "$dir/$(basename "$e")"
  done
  for e in "$PIGLIT_DIR"/tests/*; do ln -sfn "$e" "$dir/tests/$(basename "$e")"; done
  python3 - "$PIGLIT_DIR/tests" "$profile" "$list" "$dir/tests/gtsim_list.xml" <<'EOF'
import gzip, os, sys, xml.etree.ElementTree as ET
tests, profile, listfile, out = sys.argv[1:]
wanted = {l.strip() for l in open(listfile) if l.strip() and not l.startswith('#')}
def load(name):
    meta = os.path.join(tests, name + '.meta.xml')
    if os.path.exists(meta):
        return [t for p in ET.parse(meta).getroot().iter('Profile') for t in load(p.text)]
    for path, opener in ((name + '.xml.gz', gzip.open), (name + '.xml', open)):
        full = os.path.join(tests, path)
        if os.path.exists(full):
            with opener(full, 'rb') as f:
                return list(ET.parse(f).getroot().iter('Test'))
    sys.exit(f'conformance.sh: no piglit profile {name!r} in {tests}')
kept = [t for t in load(profile) if t.get('name') in wanted]
missing = wanted - {t.get('name') for t in kept}
if missing:
    sys.exit(f'conformance.sh: {len(missing)} tests of the list are not in profile '
             f'{profile!r}, e.g. {sorted(missing)[0]!r}')
root = ET.Element('PiglitTestList', count=str(len(kept)), name='gtsim_list')
root.extend(kept)
ET.ElementTree(root).write(out, encoding='utf-8', xml_declaration=True)
EOF
}

cmd_run() {
  local gen=7 tests="" profile="" fraction=1 start=1 baseline="" jobs=0 out="" reference=0
  local timeout="" flakes=""
  while [ $# -gt 0 ]; do
    case $1 in
      --gen) gen=$2; shift 2 ;;
      --tests) tests=$2; shift 2 ;;
      --profile) profile=$2; shift 2 ;;
      --fraction) fraction=$2; shift 2 ;;
      --fraction-start) start=$2; shift 2 ;;
      --baseline) baseline=$2; shift 2 ;;
      --flakes) flakes=$2; shift 2 ;;
      --jobs) jobs=$2; shift 2 ;;
      --timeout) timeout=$2; shift 2 ;;
      --out) out=$2; shift 2 ;;
      --reference) reference=1; shift ;;
      -h|--help) usage 0 ;;
      *) die "unknown option $1 (see --help)" ;;
    esac
  done
  case $gen in 7|11) ;; *) die "--gen takes 7 or 11" ;; esac
  [ -n "$out" ] || die "--out DIR is required"
  [ -n "$tests" ] || [ -n "$profile" ] || die "give --tests LIST or --profile NAME"
  [[ $fraction =~ ^[1-9][0-9]*$ && $start =~ ^[1-9][0-9]*$ ]] || die "--fraction and --fraction-start are counts from 1"
  [ "$start" -le "$fraction" ] || die "--fraction-start $start is past --fraction $fraction"
  find_piglit
  local runner; runner=$(find_runner)
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  local folder=$PIGLIT_DIR prof=${profile:-gpu}
  if [ -n "$tests" ]; then
    [ -f "$tests" ] || die "no test list $tests"
    list_folder "$tests" "$prof" "$work/piglit"
    folder=$work/piglit prof=gtsim_list
  fi
  # A baseline's third column is the reason for the expected result: piglit-runner
  # reads only the test and its status.
  local base_args=()
  if [ -n "$baseline" ]; then
    python3 - "$baseline" "$work/baseline.csv" <<'EOF'
import csv, sys
src, dst = sys.argv[1:]
import re
with open(src, newline='') as f, open(dst, 'w', newline='') as o, \
        open(dst + '.skips', 'w') as skips:
    w = csv.writer(o)
    for row in csv.reader(f):
        if row and not row[0].startswith('#'):
            w.writerow(row[:2])
            # piglit-runner reports a Missing result (no binary to run: GLX, dma-buf
            # tests Debian's piglit does not build) as a regression whatever the
            # baseline says; the baseline's Missing tests are not run instead.
            if len(row) > 1 and row[1] == 'Missing':
                skips.write('^' + re.escape(row[0]) + '$\n')
EOF
    base_args=(--baseline "$work/baseline.csv")
    [ -s "$work/baseline.csv.skips" ] && base_args+=(--skips "$work/baseline.csv.skips")
  fi
  local flake_args=()
  [ -z "$flakes" ] || flake_args=(--flakes "$flakes")
  mkdir -p "$out"
  # Tests that piglit marks non-concurrent draw to a window, which surfaceless EGL does
  # not have: they abort on llvmpipe and gtsim alike (docs/CONFORMANCE.md).
  local args=(run --piglit-folder "$folder" --profile "$prof" --process-isolation
    --output "$out" --jobs "$jobs" --fraction "$fraction" --fraction-start "$start"
    --env PIGLIT_PLATFORM=surfaceless_egl "${base_args[@]}" "${flake_args[@]}")
  local status=0
  if [ "$reference" = 1 ]; then
    local env=(LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe)
    [ "$gen" = 11 ] || env+=("${GEN7_CAP[@]}")
    env "${env[@]}" "$runner" "${args[@]}" --timeout "${timeout:-60}" || status=$?
  else
    # GTSIM names another build (a copy keeps a long run apart from rebuilds: the
    # preload library is the one beside the binary).
    local gtsim=${GTSIM:-$root/target/release/gtsim}
    if [ -z "${GTSIM:-}" ] && { [ ! -x "$gtsim" ] || [ ! -f "$root/target/release/libgtsim_i915.so" ]; }; then
      (cd "$root" && cargo build --release -q -p gtsim -p gtsim-i915) >&2
    fi
    # A simulator is slower than the hardware: a longer per-test timeout, and a longer
    # hangcheck clock than the default 8 s of one command (GTSIM_WATCHDOG_SECONDS): at 8 s
    # a draw that takes 5-15 s on the model passes or hangs with the machine's load
    # (`gs-max-output` went Flake, then Fail, in two runs of one build), which a baseline
    # cannot hold. The run measures what the model computes; the per-test timeout still
    # ends a runaway, and what the default clock ends is listed in docs/CONFORMANCE.md.
    GTSIM_WATCHDOG_SECONDS=${GTSIM_WATCHDOG_SECONDS:-60} \
      "$gtsim" run --gen "$gen" -- "$runner" "${args[@]}" --timeout "${timeout:-300}" || status=$?
  fi
  echo "conformance.sh: $(summary "$out/results.csv") in $out" >&2
  return "$status"
}

summary() {
  python3 - "$1" <<'EOF'
import collections, csv, sys
c = collections.Counter(row[1] for row in csv.reader(open(sys.argv[1])) if len(row) > 1)
print(f"{sum(c.values())} tests: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
EOF
}

# Statuses that fail a run: a result not in the baseline, or a baseline failure that
# now passes (deqp-runner's own rule).
REGRESSIONS="Fail Crash Timeout Missing UnexpectedPass"

cmd_merge() {
  local out=""
  [ "${1:-}" = --out ] || die "merge --out DIR SHARD..."
  out=$2; shift 2
  [ $# -ge 1 ] || die "merge needs at least one shard directory"
  mkdir -p "$out"
  python3 - "$out" "$REGRESSIONS" "$@" <<'EOF'
import collections, csv, os, sys
out, regress, shards = sys.argv[1], set(sys.argv[2].split()), sys.argv[3:]
rows, seen = [], {}
for s in shards:
    path = os.path.join(s, 'results.csv')
    if not os.path.exists(path):
        sys.exit(f'conformance.sh merge: {path} is missing (did that shard run?)')
    for row in csv.reader(open(path, newline='')):
        if len(row) < 2:
            continue
        if row[0] in seen:
            sys.exit(f'conformance.sh merge: {row[0]!r} is in both {seen[row[0]]} and {s}: '
                     'the shards overlap')
        seen[row[0]] = s
        rows.append(row)
rows.sort(key=lambda r: r[0])
with open(os.path.join(out, 'results.csv'), 'w', newline='') as f:
    csv.writer(f, lineterminator='\n').writerows(rows)
bad = [r for r in rows if r[1] in regress]
with open(os.path.join(out, 'failures.csv'), 'w', newline='') as f:
    csv.writer(f).writerows(r[:2] for r in bad)
c = collections.Counter(r[1] for r in rows)
print(f'{len(shards)} shards, {len(rows)} tests: ' + ', '.join(f'{k} {v}' for k, v in sorted(c.items())))
for r in bad:
    print(f'  {r[1]}: {r[0]}')
sys.exit(1 if bad else 0)
EOF
}

cmd_compare() {
  [ $# = 2 ] || die "compare REFERENCE_DIR GTSIM_DIR"
  python3 - "$1/results.csv" "$2/results.csv" <<'EOF'
import csv, sys
def load(p):
    return {r[0]: r[1] for r in csv.reader(open(p, newline='')) if len(r) > 1}
ref, got = load(sys.argv[1]), load(sys.argv[2])
common = sorted(set(ref) & set(got))
passes = [t for t in common if ref[t] in ('Pass', 'Flake')]
print(f'tests in both runs: {len(common)} (reference only {len(set(ref) - set(got))}, '
      f'gtsim only {len(set(got) - set(ref))})')
print(f'reference passes {len(passes)}; gtsim passes {sum(got[t] in ("Pass", "Flake") for t in passes)} of those'
      + (f' ({100 * sum(got[t] in ("Pass", "Flake") for t in passes) / len(passes):.1f}%)' if passes else ''))
print(f'gtsim passes {sum(v in ("Pass", "Flake") for v in got.values())} in all')
for t in passes:
    if got[t] not in ('Pass', 'Flake'):
        print(f'  {got[t]}: {t}')
EOF
}

cmd_baseline() {
  local ref="" res="" reasons="" out=""
  while [ $# -gt 0 ]; do
    case $1 in
      --reference) ref=$2; shift 2 ;;
      --results) res=$2; shift 2 ;;
      --reasons) reasons=$2; shift 2 ;;
      --out) out=$2; shift 2 ;;
      *) die "baseline: unknown option $1" ;;
    esac
  done
  [ -n "$ref" ] && [ -n "$res" ] && [ -n "$out" ] || die "baseline --reference DIR --results DIR [--reasons TSV] --out FILE"
  python3 - "$ref/results.csv" "$res/results.csv" "${reasons:-}" "$out" <<'EOF'
import csv, re, sys
refp, resp, reasonsp, out = sys.argv[1:]
load = lambda p: {r[0]: r[1] for r in csv.reader(open(p, newline='')) if len(r) > 1}
ref, got = load(refp), load(resp)
rules = []
if reasonsp:
    for line in open(reasonsp):
        if line.strip() and not line.startswith('#'):
            pat, why = line.rstrip('\n').split('\t', 1)
            rules.append((re.compile(pat), why))
good = ('Pass', 'Flake', 'Skip', 'ExpectedFail', 'Warn')
rows = []
for t in sorted(got):
    status = got[t]
    if status in good:
        continue
    why = next((w for p, w in rules if p.search(t)), None)
    if why is None:
        if t not in ref:
            why = 'the reference (capped llvmpipe) has no result for it (its test skipped or stopped before it); not triaged yet'
        elif ref[t] not in ('Pass', 'Flake'):
            why = f'the reference (capped llvmpipe) does not pass it either ({ref[t]})'
        else:
            why = 'not triaged yet (issue 45)'
    rows.append((t, status, why))
with open(out, 'w', newline='') as f:
    f.write('# test,status,reason: the expected non-passes of gtsim on the whole run '
            '(scripts/conformance.sh baseline); docs/CONFORMANCE.md\n')
    csv.writer(f, lineterminator='\n').writerows(rows)
untriaged = sum(1 for r in rows if 'not triaged' in r[2])
print(f'{len(rows)} expected non-passes written to {out}; {untriaged} not triaged yet')
EOF
}

case ${1:-} in
  baseline) shift; cmd_baseline "$@" ;;
  run) shift; cmd_run "$@" ;;
  merge) shift; cmd_merge "$@" ;;
  compare) shift; cmd_compare "$@" ;;
  -h|--help|"") usage 0 ;;
  *) cmd_run "$@" ;;
esac
