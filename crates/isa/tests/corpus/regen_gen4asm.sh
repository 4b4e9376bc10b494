#!/bin/sh
# Regenerate gen4asm.out, gen4asm.bin, gen4asm.disasm.txt and gen4asm.pairs.
# Needs Debian's intel-gpu-tools (apt-get install -y intel-gpu-tools).
set -e
cd "$(dirname "$0")"
intel-gen4asm -a -g 7 -o gen4asm.out gen4asm.asm
intel-gen4disasm -g 7 gen4asm.out > gen4asm.disasm.txt
python3 gen4asm_pairs.py
