#!/usr/bin/env python3
"""Build gen4asm.bin and gen4asm.pairs from intel-gen4asm / intel-gen4disasm output.

Run regen_gen4asm.sh (it calls this script).  Inputs in this directory:
  gen4asm.asm         the source (one instruction per ';'-terminated non-label line)
  gen4asm.out         intel-gen4asm's output: one '{ 0xw0, 0xw1, 0xw2, 0xw3 },' line per instruction
  gen4asm.disasm.txt  intel-gen4disasm's output for gen4asm.out
Outputs: gen4asm.bin (raw little-endian instruction bytes), gen4asm.pairs.
"""
import re
import struct

words = [[int(x, 16) for x in re.findall(r'0x([0-9a-fA-F]{8})', line)]
         for line in open('gen4asm.out') if '0x' in line]
assert all(len(w) == 4 for w in words)
with open('gen4asm.bin', 'wb') as f:
    for w in words:
        f.write(struct.pack('<4I', *w))

# Disassembly: a line starting with white space continues the previous instruction
# (send/sendc print their message description on a second line).
texts = []
for line in open('gen4asm.disasm.txt').read().split('\n'):
    if not line:
        continue
    if line[0].isspace():
        texts[-1] += '\\n' + line
    else:
        texts.append(line)

# Source statements, in order.
src = re.sub(r'/\*.*?\*/', '', open('gen4asm.asm').read(), flags=re.S)
stmts = []
for line in src.split('\n'):
    line = re.sub(r'//.*', '', line).strip()
    if not line or re.fullmatch(r'[A-Za-z_]\w*:', line):
        continue
    assert line.endswith(';'), line
    stmts.append(line)

assert len(words) == len(texts) == len(stmts), (len(words), len(texts), len(stmts))

with open('gen4asm.pairs', 'w') as f:
    f.write("""\
# intel-gen4asm / intel-gen4disasm (Debian intel-gpu-tools 1.27.1-1) oracle for Gen7.
# produced by (in this directory):
#   intel-gen4asm -a -g 7 -o gen4asm.out gen4asm.asm
#   intel-gen4disasm -g 7 gen4asm.out > gen4asm.disasm.txt
#   python3 gen4asm_pairs.py
# %d instructions, none compacted (gen4asm never compacts).
# Format: one instruction per line:  HEX | TEXT
#   HEX  = the instruction's 16 bytes as four 32-bit little-endian words (the words
#          gen4asm prints; gen4asm.bin holds the same bytes), separated by one space.
#   TEXT = intel-gen4disasm's line for it, exactly, trailing spaces kept; a send/sendc
#          second line is joined with the two characters backslash-n ("\\n").
#   Separator is exactly " | " (the first occurrence on the line).
# '# src: ...' comment lines give the gen4asm.asm statement that produced the next line.
# NOTE: gen4disasm is an old Gen4-6 era disassembler: it prints Gen7-only opcodes
# (bfrev bfe bfi1 bfi2 fbh fbl cbit addc subb lrp brd) as "*** invalid opcode value N",
# prints brc/call/ret with their Gen4/5 names (iff/msave/mrest), and its send message
# decoding and option block ("WE_normal") differ from Mesa's: use it for the bytes and
# for the operand syntax, not as the Mesa 22.3 text oracle.
""" % len(words))
    for w, t, s in zip(words, texts, stmts):
        f.write('# src: %s\n' % s)
        f.write('%s | %s\n' % (' '.join('%08x' % x for x in w), t))
print('%d instructions' % len(words))
