#!/usr/bin/env python3
"""Check a .pairs file of Mesa 22.3 disassembly against the column rules in
../../DISASM_SYNTAX.md (pad() semantics, fields at 16/32/48/64, UIP at 38,
immediate comments at 48, send second line). Usage: python3 check_columns.py all.pairs"""
import re, sys
def pad(s,n):
    s+=' '
    while len(s)<n: s+=' '
    return s
texts=[l.split(' | ',1)[1].rstrip('\n') for l in open(sys.argv[1]) if not l.startswith('#')]
bad=0
for t in texts:
    first=t.split('\\n')[0]
    if 'JIP:' in first:
        m=re.match(r'(\S+(?: \S+)?) +JIP:  (LABEL\d+)(?: +UIP:  (LABEL\d+))? +(\{.*)$',first)
        head,j,u,opt=m.groups()
        out=pad(head,16)+'JIP: '+' '+j
        if u: out=pad(out,38)+'UIP: '+' '+u
        out=pad(out,64)+opt
    elif first.startswith('send'):
        parts=first.split()
        out=pad(parts[0],16)+parts[1]; out=pad(out,32)+parts[2]; out=pad(out,48)+parts[3]
    else:
        body,opt=first.split(' {',1); opt='{'+opt; body=body.rstrip()
        m=re.search(r'(0x[0-9a-f]+F) +(/\* .* \*/)',body)
        mv=re.search(r'(0x[0-9a-f]+VF) +(/\* .* \*/)',body)
        toks=re.split(r' +',re.sub(r'(0x[0-9a-f]+V?F) +/\* .* \*/',r'\1',body))
        if toks[0].startswith('('): toks=[toks[0]+' '+toks[1]]+toks[2:]
        # `math` is followed by its function name and one space, as one opcode field.
        if toks[0].split()[-1].startswith('math') and len(toks)>1: toks=[toks[0]+' '+toks[1]]+toks[2:]
        out=toks[0]
        for k,tk in enumerate(toks[1:]):
            out=pad(out,[16,32,48,64][k])+tk
            if m and tk==m.group(1):
                out=pad(out,48)+' '+m.group(2)
            if mv and tk==mv.group(1):
                out=pad(out,48)+mv.group(2)
        out=pad(out,64)+opt
    if out!=first:
        bad+=1; print('MISMATCH\n '+repr(first)+'\n '+repr(out))
    if '\\n' in t:
        second=t.split('\\n')[1]
        body,opt=second.split(' {',1)
        o2=' '*28+body.strip()
        c=len(o2)-12; sp=1
        while c+sp<64: sp+=1
        o2=o2+' '*sp+'{'+opt
        if o2!=second: bad+=1; print('MISMATCH2',repr(second),repr(o2))
print(len(texts),'checked, bad',bad)
