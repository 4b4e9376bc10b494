/*
 * Gen7 (Ivy Bridge) coverage source for intel-gen4asm (intel-gpu-tools 1.27.1, Debian 12).
 * Assemble:     intel-gen4asm -a -g 7 -o gen4asm.out gen4asm.asm
 * Disassemble:  intel-gen4disasm -g 7 gen4asm.out
 * -a ("advanced") makes sub-register numbers count elements of the operand type (as Mesa
 * prints them) instead of bytes, and makes jmpi WE_all.
 * One instruction per line (every line ending in ';' that is not a label is exactly one
 * 16-byte instruction; gen4asm never compacts).  Syntax notes:
 *   - types are upper case, glued to the operand or after ':' (g2<8,8,1>F, 4:D); a hex
 *     immediate followed by D must use ':D' because D is a hex digit.
 *   - align16 destination write mask goes after the region: g10<1>.xyF; source
 *     swizzle after the region, before the type: g2<4,4,1>.zwxyF.
 *   - predicate in parentheses before the opcode: (-f0.1.any4h); conditional
 *     modifier (optionally with its flag) after the opcode: cmp.l.f0.1 (8) ...
 *   - the execution size follows the opcode and its modifiers: add.sat (8) ...
 *   - options in braces; lower-case keywords: align1 align16 sechalf switch atomic
 *     noddchk noddclr nomask (= mask_disable, WE_all) breakpoint accwrctrl EOT.
 */

// ---------------------------------------------------------------- unary, align1
mov (8) g10<1>UD g2<8,8,1>UD {align1};
frc (8) g10<1>F g2<8,8,1>F {align1};
rndu (8) g10<1>F g2<8,8,1>F {align1};
rndd (8) g10<1>F g2<8,8,1>F {align1};
rnde (8) g10<1>F g2<8,8,1>F {align1};
rndz (8) g10<1>F g2<8,8,1>F {align1};
not (8) g10<1>UD g2<8,8,1>UD {align1};
lzd (8) g10<1>UD g2<8,8,1>UD {align1};
bfrev (8) g10<1>UD g2<8,8,1>UD {align1};
cbit (8) g10<1>UD g2<8,8,1>UD {align1};
f16to32 (8) g10<1>F g2<8,8,1>UW {align1};
f32to16 (8) g10<1>UW g2<8,8,1>F {align1};
fbh (8) g10<1>UD g2<8,8,1>D {align1};
fbl (8) g10<1>UD g2<8,8,1>UD {align1};

// ---------------------------------------------------------------- binary, align1
mul (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
mul (8) acc0<1>D g2<8,8,1>D g3<8,8,1>UW {align1};
mac (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
mach (8) g10<1>D g2<8,8,1>D g3<8,8,1>D {align1 accwrctrl};
line (8) g10<1>F g2<0,1,0>F g3<8,8,1>F {align1};
sad2 (8) g10<1>UW g2<8,8,1>UB g3<8,8,1>UB {align1};
sada2 (8) g10<1>UW g2<8,8,1>UB g3<8,8,1>UB {align1};
pln (8) g10<1>F g2<0,1,0>F g4<8,8,1>F {align1};
pln (16) g10<1>F g2.4<0,1,0>F g4<8,8,1>F {align1};
bfi1 (8) g10<1>UD g2<8,8,1>UD g3<8,8,1>UD {align1};
avg (8) g10<1>W g2<8,8,1>W g3<8,8,1>W {align1};
add (8) g10<1>F g2<8,8,1>F 1.0F {align1};
add (8) g10<1>F acc0<8,8,1>F g2<8,8,1>F {align1};
sel.ge (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
(f0.0) sel (8) g10<1>UD g2<8,8,1>UD 0x0UD {align1};
and (8) g10<1>UD g2<8,8,1>UD 0xffUD {align1};
or (8) g10<1>UD g2<8,8,1>UD g3<8,8,1>UD {align1};
xor (8) g10<1>UD g2<8,8,1>UD g3<8,8,1>UD {align1};
shr (8) g10<1>UD g2<8,8,1>UD 4UD {align1};
shl (8) g10<1>UD g2<8,8,1>UD 4UD {align1};
asr (8) g10<1>D g2<8,8,1>D 4:D {align1};
cmp.l.f0.0 (8) null<1>F g2<8,8,1>F g3<8,8,1>F {align1};
cmp.ge.f1.1 (16) null<1>D g2<8,8,1>D 0:D {align1};
cmpn.g.f0.1 (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
addc (8) g10<1>UD g2<8,8,1>UD g3<8,8,1>UD {align1 accwrctrl};
subb (8) g10<1>UD g2<8,8,1>UD g3<8,8,1>UD {align1 accwrctrl};

// ---------------------------------------------------------------- align16
dp4 (8) g10<1>F g2<4,4,1>.xyzwF g3<4,4,1>.xyzwF {align16};
dph (8) g10<1>F g2<4,4,1>.xyzwF g3<4,4,1>.xyzwF {align16};
dp3 (8) g10<1>.xF g2<4,4,1>.xyzwF g3<4,4,1>.xyzwF {align16};
dp2 (8) g10<1>.yF g2<4,4,1>.xyxyF g3<4,4,1>.zwzwF {align16};
mov (8) g10<1>.xyzF g2<4,4,1>.yzwxF {align16};
mov (8) g10<1>.wUD 0x3f800000UD {align16};
mul (8) g10<1>.xyF g2<4,4,1>.zwxyF g3.4<4,4,1>.wF {align16};
add (8) g10<1>.xzwF -g2<4,4,1>.xxxxF (abs)g3<4,4,1>.yyyyF {align16};
mov (4) g10<1>.zwD g2<0,4,1>.xD {align16};

// ---------------------------------------------------------------- three-source (align16 only)
mad (8) g10<1>F g2<4,4,1>.xyzwF g3<4,4,1>.xyzwF g4<4,4,1>.xyzwF {align16};
mad.sat (8) g10<1>F -g2<4,4,1>.xF (abs)g3<4,4,1>.yF g4<4,4,1>.zF {align16};
mad (16) g10<1>F g2.1<4,4,1>.xF g4<4,4,1>.xyzwF -(abs)g6<4,4,1>.xyzwF {align16 nomask};
lrp (8) g10<1>F g2<4,4,1>.xyzwF g3<4,4,1>.xyzwF g4<4,4,1>.xyzwF {align16};
bfe (8) g10<1>UD g2<4,4,1>.xyzwUD g3<4,4,1>.xyzwUD g4<4,4,1>.xyzwUD {align16};
bfi2 (8) g10<1>UD g2<4,4,1>.xyzwUD g3<4,4,1>.xyzwUD g4<4,4,1>.xyzwUD {align16};

// ---------------------------------------------------------------- math (Gen6+ math opcode)
math (8) g10<1>F g2<8,8,1>F null inv {align1};
math (8) g10<1>F g2<8,8,1>F null log {align1};
math (8) g10<1>F g2<8,8,1>F null exp {align1};
math (8) g10<1>F g2<8,8,1>F null sqrt {align1};
math (8) g10<1>F g2<8,8,1>F null rsq {align1};
math (8) g10<1>F g2<8,8,1>F null sin {align1};
math (16) g10<1>F g2<8,8,1>F null cos {align1};
math (8) g10<1>F g2<8,8,1>F null sincos {align1};
math (8) g10<1>F g2<8,8,1>F g3<8,8,1>F pow {align1};
math (8) g10<1>D g2<8,8,1>D g3<8,8,1>D intdiv {align1};
math (8) g10<1>D g2<8,8,1>D g3<8,8,1>D intmod {align1};
math (8) g10<1>D g2<8,8,1>D g3<8,8,1>D intdivmod {align1};

// ---------------------------------------------------------------- predication
(f0.0) mov (8) g10<1>F g2<8,8,1>F {align1};
(-f0.1) mov (8) g10<1>F g2<8,8,1>F {align1};
(+f1.0.anyv) mov (8) g10<1>F g2<8,8,1>F {align1};
(f1.1.allv) mov (8) g10<1>F g2<8,8,1>F {align1};
(f0.0.any2h) mov (8) g10<1>F g2<8,8,1>F {align1};
(f0.0.all2h) mov (8) g10<1>F g2<8,8,1>F {align1};
(f0.0.any4h) mov (8) g10<1>F g2<8,8,1>F {align1};
(f0.0.all4h) mov (8) g10<1>F g2<8,8,1>F {align1};
(f0.0.any8h) mov (8) g10<1>F g2<8,8,1>F {align1};
(f0.0.all8h) mov (8) g10<1>F g2<8,8,1>F {align1};
(f0.0.any16h) mov (16) g10<1>F g2<8,8,1>F {align1};
(-f0.0.all16h) mov (16) g10<1>F g2<8,8,1>F {align1};
(f0.0.x) mov (8) g10<1>F g2<4,4,1>F {align16};
(f0.0.y) mov (8) g10<1>F g2<4,4,1>F {align16};
(-f0.0.w) mov (8) g10<1>F g2<4,4,1>F {align16};

// ---------------------------------------------------------------- conditional modifiers, saturate, negate/abs
add.z.f0.0 (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
add.e (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
add.nz (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
add.ne.f1.1 (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
add.g (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
add.ge (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
add.l (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
add.le (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
add.r (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
add.o (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
add.u (8) g10<1>F g2<8,8,1>F g3<8,8,1>F {align1};
add.sat (8) g10<1>F -g2<8,8,1>F (abs)g3<8,8,1>F {align1};
add.l.sat (8) g10<1>F -(abs)g2<8,8,1>F g3<8,8,1>F {align1};
mov.sat (16) g10<1>F -g2<8,8,1>F {align1};
not (8) g10<1>D -g2<8,8,1>D {align1};

// ---------------------------------------------------------------- exec sizes, regions, register types
mov (1) g10.3<1>UD g2.5<0,1,0>UD {align1 nomask};
mov (2) g10<1>W g2<2,2,1>W {align1};
mov (4) g10<2>UW g2<4,4,1>UW {align1};
mov (16) g10<1>B g2<16,16,1>B {align1};
mov (16) g10<2>UB g2<16,16,1>UB {align1};
mov (32) g10<1>UW g2<16,16,1>UW {align1};
mov (8) g10<4>UB g2<32,8,4>UB {align1};
mov (8) g10<1>F g2.1<4,2,2>F {align1};
mov (8) g10<1>D g2<1,1,0>D {align1};
mov (8) g10<1>F g5<8,4,1>UW {align1};
mov (4) g114<1>UD g2.3<8,2,4>UD {align1 nomask};
mov (8) g10<1>UD g2.7<0,1,0>UD {align1};

// ---------------------------------------------------------------- immediates
mov (8) g10<1>UW 0x76543210V {align1};
mov (8) g10<1>F 0x3800F050VF {align1};
mov (8) g10<1>W -3W {align1};
mov (8) g10<1>UW 0x1234UW {align1};
mov (8) g10<1>D -1D {align1};
mov (8) g10<1>UD 0xffffffffUD {align1};
mov (8) g10<1>F -0.5F {align1};
mov (8) g10<1>F 0x3f000000UD {align1};
add (16) g5<1>UW g1.4<1,4,0>UW 0x11001010V {align1 nomask};

// ---------------------------------------------------------------- instruction options
mov (8) g10<1>UD g2<8,8,1>UD {align1 sechalf};
mov (16) g10<1>F g2<8,8,1>F {align1 sechalf};
mov (8) g10<1>UD g2<8,8,1>UD {align1 noddclr};
mov (8) g10<1>UD g2<8,8,1>UD {align1 noddchk};
mov (8) g10<1>UD g2<8,8,1>UD {align1 noddclr, noddchk};
mov (8) g10<1>UD g2<8,8,1>UD {align1 switch};
mov (8) g10<1>UD g2<8,8,1>UD {align1 atomic};
mov (8) g10<1>UD g2<8,8,1>UD {align1 breakpoint};
mov (8) g10<1>UD g2<8,8,1>UD {align1 mask_disable};
mov (8) g10<1>UD g2<8,8,1>UD {align1 nomask accwrctrl};
mov (8) g10<1>UD g2<8,8,1>UD {align16 nomask noddclr};

// ---------------------------------------------------------------- indirect addressing (align1)
mov (8) g10<1>F g[a0.0,32]<8,8,1>F {align1};
mov (8) g10<1>F g[a0.1]<4,1>F {align1};
mov (8) g[a0.0,64]<1>F g2<8,8,1>F {align1};
mov (8) g10<1>F -g[a0.2,-16]<8,8,1>F {align1};

// ---------------------------------------------------------------- architecture registers
mov (1) a0.0<1>UW 0x40UW {align1};
mov (8) acc0<1>F g2<8,8,1>F {align1};
mov (8) acc1<1>F g2<8,8,1>F {align1};
mov (1) f0.1<1>UW g2<0,1,0>UW {align1};
mov (1) f1.0<1>UW 0xffffUW {align1};
mov (1) g10<1>UW f0.0<0,1,0>UW {align1};
mov (1) g10<1>UD sr0.0<0,1,0>UD {align1};
mov (1) g10<1>UD cr0.0 {align1};
mov (1) cr0.0 g2<0,1,0>UD {align1};
mov (8) g10<1>UD ip {align1};
mov (8) null<1>F g2<8,8,1>F {align1};
mov (1) g10<1>UW mask0.0<0,1,0>UW {align1};
mov (1) g10<1>UD n0.0UD {align1};
mov (1) g10<1>UD a0.0<0,1,0>UD {align1};

// ---------------------------------------------------------------- send / sendc
// Gen6+ form: send (N) dst gREG <extended descriptor: SFID | 0x20 for EOT> <descriptor>UD
// (the braces options are ignored by gen4asm for send: always align1, no WE_all...)
send (8) g12<1>UW g2 2 0x04410001UD {align1};
send (16) g12<1>UW g2 2 0x0a8a0001UD {align1};
send (8) null<1>F g113 0x26 0x8a08c000UD {align1};
sendc (8) null<1>UW g124 0x25 0x88031400UD {align1};
sendc (16) null<1>UW g120 0x25 0x90031000UD {align1};
send (8) g12<1>UD g2 0xa 0x02106000UD {align1};
send (8) g12<1>UD g2 0x4 0x02480001UD {align1};
// Old message-target form: send (N) <SFID reg index> dst null <target(...)> mlen M rlen R
send (16) 2 g12<1>UW null sampler (1,0,F) mlen 5 rlen 8 {align1};
send (8) 2 g12<1>UW null read (1, 0, 2, 1) mlen 1 rlen 1 {align1};
send (8) 2 null<1>UW null write (0, 12, 12, 0) mlen 4 rlen 0 {align1 EOT};
send (8) 2 null<1>F null urb 0 interleave complete mlen 5 rlen 0 {align1 EOT};
send (8) 2 g12<1>UD null data_port(10, 0, 0, 1, 0, 1) mlen 1 rlen 1 {align1};
send (8) 2 null<1>UD null gateway mlen 1 rlen 0 {align1};
send (8) 2 null<1>UD null thread_spawner(0, 0, 1) mlen 1 rlen 0 {align1 EOT};
send (8) 2 g12<1>UD null null mlen 1 rlen 0 {align1};

// ---------------------------------------------------------------- flow control (JIP/UIP)
(f0.0) if (8) L_else L_endif;
mov (8) g10<1>F 1.0F {align1};
else (8) L_endif {align1};
L_else:
mov (8) g10<1>F 2.0F {align1};
L_endif:
endif (8) 2 {align1};
L_loop:
(-f0.1) break (8) L_out L_out {align1};
(f0.0) cont (8) L_loop L_loop {align1};
(f0.0) while (8) L_loop {align1};
L_out:
(f0.0) halt (8) L_out L_out {align1};
halt (16) 2 2 {align1};
brd (1) 2 {align1};
brc (1) 2 4 {align1};
call (1) g20<1>D L_sub {align1};
jmpi (1) L_sub;
(f0.0) jmpi (1) 4;
L_sub:
ret (1) null g20<2,2,1>D {align1};
wait n0.0UD;
nop;
// 'do' is accepted but emits the Gen4/5 DO opcode (0x26), which has no meaning on Gen7.
do;
