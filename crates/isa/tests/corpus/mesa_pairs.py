#!/usr/bin/env python3
"""Turn Mesa's INTEL_DEBUG=...,hex shader dumps into normalized .pairs files.

Usage (from this directory, after regen_mesa.sh has written <program>.mesa.txt):
    python3 mesa_pairs.py clear triangle textured_quad depth blend shader_loops

Writes <program>.pairs for each program and all.pairs (shaders deduplicated).
See the header this script writes into each .pairs file for the line format.
"""
import re
import sys

HEX_FULL = re.compile(r'^((?:[0-9a-f]{2} ){16})(\S.*)$')
HEX_CMPT = re.compile(r'^((?:[0-9a-f]{2} ){8}) {24}(\S.*)$')
CONT = re.compile(r'^ {28}\S')          # send/sendc message-descriptor line
LABEL = re.compile(r'^LABEL\d+:$')
NATIVE = re.compile(r'^Native code for (.*)$')

import os
# GEN=11 in the environment: the Ice Lake corpus (iris), in the gen11/ folder.
GEN = os.environ.get('GEN', '7')
RUN = 'run --gen 11' if GEN == '11' else 'run'
DEVICE = ('iris on gtsim (ICL GT2, Gen11)' if GEN == '11'
          else 'crocus on gtsim (IVB GT2, Gen7)')
CMD = ("INTEL_DEBUG=vs,tcs,tes,gs,fs,cs,hex,blorp GTSIM_I915_QUIET=1 "
       "MESA_SHADER_CACHE_DISABLE=true target/debug/gtsim " + RUN + " -- "
       "target/debug/{p} --out /tmp/{p}.png 2> {p}.mesa.txt")

HEADER = """\
# Format: one instruction per line:  HEX | TEXT
#   HEX  = the instruction's bytes as Mesa printed them (memory order), regrouped
#          as 32-bit little-endian words, lowest address first, 8 hex digits each,
#          separated by one space.  2 words (8 bytes) = COMPACTED instruction,
#          4 words (16 bytes) = full (uncompacted) instruction.
#   TEXT = Mesa's disassembly exactly as printed after the hex column (column 48),
#          no trailing spaces.  send/sendc print a second line (28 spaces then
#          "<sfid> MsgDesc: ... { options };"); it is joined to the first with the
#          two characters backslash-n ("\\n"), leading spaces kept.
#   Separator is exactly " | " (the first occurrence on the line).
# Comment lines start with '#':
#   '# shader: ...'  starts a new kernel (Mesa's "Native code for ..." header and
#                    its statistics line); instruction offsets restart at 0.
#   '# LABELn:'      Mesa printed label line "LABELn:" before the next instruction
#                    (branch JIP/UIP text refers to these labels).
"""


def parse(path):
    """Return list of shaders: dict(title, stats, items) where items are
    ('label', text) or ('inst', words, text)."""
    lines = open(path, encoding='utf-8').read().split('\n')
    shaders = []
    cur = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = NATIVE.match(line)
        if m:
            cur = {'title': m.group(1), 'stats': lines[i + 1], 'items': []}
            shaders.append(cur)
            i += 2
            continue
        if cur is not None:
            mf = HEX_FULL.match(line)
            mc = None if mf else HEX_CMPT.match(line)
            mm = mf or mc
            if mm:
                bs = bytes(int(b, 16) for b in mm.group(1).split())
                words = ' '.join('%08x' % int.from_bytes(bs[k:k + 4], 'little')
                                 for k in range(0, len(bs), 4))
                text = mm.group(2)
                if i + 1 < len(lines) and CONT.match(lines[i + 1]):
                    text += '\\n' + lines[i + 1]
                    i += 1
                assert not text.endswith(' '), (path, i, text)
                assert ('compacted' in text.split('{')[-1]) == (len(bs) == 8), (path, i)
                cur['items'].append(('inst', words, text))
            elif LABEL.match(line):
                cur['items'].append(('label', line))
            elif (line.strip() == '' and cur['items'] and
                  not (i + 1 < len(lines) and LABEL.match(lines[i + 1]))):
                # Mesa prints "\nLABELn:\n", so a blank line followed by a
                # label line is inside the kernel; any other blank line ends it.
                cur = None
        i += 1
    for sh in shaders:
        m = re.search(r'(\d+) instructions\.', sh['stats'])
        n = sum(1 for it in sh['items'] if it[0] == 'inst')
        assert m and int(m.group(1)) == n, (path, sh['title'], sh['stats'], n)
    return shaders


def render(sh):
    out = ['# shader: %s' % sh['title'], '# %s' % sh['stats']]
    for it in sh['items']:
        if it[0] == 'label':
            out.append('# ' + it[1])
        else:
            out.append('%s | %s' % (it[1], it[2]))
    return out


def main(progs):
    seen = {}
    order = []
    for p in progs:
        shaders = parse('%s.mesa.txt' % p)
        n = sum(1 for s in shaders for it in s['items'] if it[0] == 'inst')
        nc = sum(1 for s in shaders for it in s['items']
                 if it[0] == 'inst' and len(it[1]) == 17)
        body = []
        for sh in shaders:
            body += render(sh)
            key = tuple(it[1:] for it in sh['items'])
            if key not in seen:
                seen[key] = (sh, [])
                order.append(key)
            if p not in seen[key][1]:
                seen[key][1].append(p)
        with open('%s.pairs' % p, 'w') as f:
            f.write('# Mesa 22.3.6 (Debian 22.3.6-1+deb12u1) %s\n' % DEVICE)
            f.write('# program: %s; %d shaders printed, %d instructions (%d compacted)\n'
                    % (p, len(shaders), n, nc))
            f.write('# produced by: ' + CMD.format(p=p) + '\n')
            f.write('#   then: python3 mesa_pairs.py (this directory)\n')
            f.write(HEADER)
            f.write('\n'.join(body) + '\n')
        print('%s: %d shaders, %d instructions (%d compacted)' % (p, len(shaders), n, nc))
    insts = [it for k in order for it in seen[k][0]['items'] if it[0] == 'inst']
    n = len(insts)
    nc = sum(1 for it in insts if len(it[1]) == 17)
    with open('all.pairs', 'w') as f:
        f.write('# Mesa 22.3.6 (Debian 22.3.6-1+deb12u1) %s:\n' % DEVICE)
        f.write('# every distinct kernel Mesa compiled and printed for the gtsim test programs\n')
        f.write('# %s, including internal BLORP kernels.\n' % ', '.join(progs))
        f.write('# %d distinct shaders (identical instruction sequences merged), %d instructions (%d compacted)\n'
                % (len(order), n, nc))
        f.write('# produced by, for each program P (from /work/main, Mesa prints to stderr):\n')
        f.write('#   ' + CMD.format(p='P') + '\n')
        f.write('#   (the program\'s own EGL/GL_* banner lines and its final "wrote" line are\n')
        f.write('#   stripped from P.mesa.txt), then: python3 mesa_pairs.py ' + ' '.join(progs) + '\n')
        f.write(HEADER)
        for k in order:
            sh, ps = seen[k]
            f.write('# in: %s\n' % ', '.join(ps))
            f.write('\n'.join(render(sh)) + '\n')
    print('all: %d shaders, %d instructions (%d compacted)' % (len(order), n, nc))


if __name__ == '__main__':
    main(sys.argv[1:])
