//! The command streamer: one loop and one executor of the MI commands, PIPE_CONTROL,
//! MI_PREDICATE, MI_MATH and MI_ATOMIC for every generation. Commands are identified
//! through the generation's tables (its [`DeviceInfo`]) and their
//! fields read by name (`fields.rs`); what differs between generations is data: the
//! address width, whether a batch start can call a second-level batch, which fields a
//! command has. Everything else goes to the generation's [`Front`].

/// The render command streamer's MMIO base (Linux i915_reg.h RENDER_RING_BASE).
const RENDER_RING_BASE: u32 = 0x2000;

use super::fields::Fields;
use super::front::Front;
use super::{Context, DeviceLimits, Hang, Ring, SubmitReport, fetch};
use gtsim_mem::Memory;
use gtsim_pipe3d::draw::Watchdog;
use gtsim_spec::DeviceInfo;
use gtsim_spec::table::Def;

/// One submission's run.
pub struct CommandStreamer<'a, F: Front> {
    /// The device clock (TIMESTAMP ticks).
    pub device_clock: &'a mut u64,
    /// The context the batch runs in.
    pub ctx: &'a mut Context<F>,
    /// Graphics memory.
    pub mem: &'a mut dyn Memory,
    /// The device's limits.
    pub limits: DeviceLimits,
    /// The work done by this submission's draws (the hangcheck).
    pub watchdog: Watchdog,
    /// The ring the batch runs on.
    pub ring: Ring,
    /// Who watches the run (`gtsim inspect`).
    pub observer: Option<&'a mut dyn super::observe::Observer>,
}

/// Where the command streamer goes after a command.
enum Flow {
    Next,
    Jump(u64),
    /// A second-level batch: jump, and return after its MI_BATCH_BUFFER_END.
    Call(u64),
    End,
}

/// A [`Hang::Unsupported`].
pub(super) fn unsupported(
    command: &'static str,
    addr: u64,
    what: impl Into<std::borrow::Cow<'static, str>>,
    reference: &'static str,
) -> Hang {
    Hang::Unsupported {
        command,
        addr,
        unsupported: gtsim_spec::Unsupported::new(what, reference),
    }
}

/// The public reference for MI commands of `info`'s generation.
fn mi_reference(info: &DeviceInfo) -> &'static str {
    if info.generation >= 8 {
        "Gen11 PRM Vol 2a (MI commands)"
    } else {
        "IVB PRM Vol1 Part3 (MI commands)"
    }
}

impl<'a, F: Front> CommandStreamer<'a, F> {
    /// The device clock.
    pub fn clock(&self) -> u64 {
        *self.device_clock
    }

    pub(super) fn info(&self) -> &'static DeviceInfo {
        F::INFO
    }

    /// The generation's command and structure tables.
    pub(super) fn generation(&self) -> &'static gtsim_spec::table::Generation {
        F::INFO.tables
    }

    /// A register's MMIO offset by its spec name (the command streamer's own registers,
    /// which every generation's tables name).
    fn register(&self, name: &'static str) -> u32 {
        // The names below are all in both register tables (gtsim_spec::device tests).
        self.info().register(name).unwrap_or(0)
    }

    /// Whether MI_PREDICATE_RESULT is clear (a predicated command is skipped).
    pub fn predicated_off(&self) -> bool {
        self.ctx
            .registers
            .read(self.register("MI_PREDICATE_RESULT"), 0)
            & 1
            == 0
    }

    fn fault(command: &'static str, at: u64) -> impl Fn(gtsim_mem::Fault) -> Hang {
        move |fault| Hang::Fault {
            command,
            addr: at,
            fault,
        }
    }

    /// Reads the dword at graphics address `addr` for `cmd` (at `at`).
    pub fn read_u32(&self, cmd: &'static str, at: u64, addr: u64) -> Result<u32, Hang> {
        let addr = addr & self.info().address_mask();
        self.mem.read_u32(addr).map_err(Self::fault(cmd, at))
    }

    /// Writes a dword.
    pub fn write_u32(&mut self, cmd: &'static str, at: u64, addr: u64, v: u32) -> Result<(), Hang> {
        let addr = addr & self.info().address_mask();
        self.mem.write_u32(addr, v).map_err(Self::fault(cmd, at))
    }

    /// Writes a qword.
    pub fn write_u64(&mut self, cmd: &'static str, at: u64, addr: u64, v: u64) -> Result<(), Hang> {
        let addr = addr & self.info().address_mask();
        self.mem.write_u64(addr, v).map_err(Self::fault(cmd, at))
    }

    /// Runs from `start` until the first-level MI_BATCH_BUFFER_END (or a conditional
    /// end).
    pub fn run(mut self, start: u64) -> Result<SubmitReport, Hang> {
        let mut report = SubmitReport::default();
        let mask = self.info().address_mask();
        let mut p = start & mask;
        // Gen8+ has one level of nesting: a second-level batch returns to the command
        // after its MI_BATCH_BUFFER_START (Gen11 PRM Vol 2a MI_BATCH_BUFFER_START).
        let mut ret: Option<u64> = None;
        loop {
            if report.commands >= self.limits.max_commands {
                return Err(Hang::Runaway {
                    start,
                    limit: self.limits.max_commands,
                });
            }
            let (def, dw) = fetch(self.info().tables, self.mem, p)?;
            // The hangcheck's clock runs per command (`Watchdog::begin_command`).
            self.watchdog.begin_command();
            report.commands += 1;
            *self.device_clock += 1;
            // The threads the command dispatches read it (`gtsim_pipe3d::draw::clock`).
            gtsim_pipe3d::draw::clock::set(*self.device_clock);
            let next = p + dw.len() as u64 * 4;
            if let Some(o) = self.observer.as_deref_mut() {
                o.command(p, def, &dw);
            }
            match self.execute(def, p, &dw, &mut report)? {
                Flow::Next => p = next,
                Flow::Jump(to) => p = to & mask,
                Flow::Call(to) => {
                    if ret.is_some() {
                        return Err(unsupported(
                            def.name,
                            p,
                            "a second-level batch started from a second-level batch",
                            "Gen11 PRM Vol 2a MI_BATCH_BUFFER_START (one level of nesting)",
                        ));
                    }
                    ret = Some(next);
                    p = to & mask;
                }
                Flow::End => match ret.take() {
                    Some(back) => p = back,
                    None => {
                        report.work = [
                            self.watchdog.eu_instructions,
                            self.watchdog.vertices,
                            self.watchdog.pixels,
                        ];
                        return Ok(report);
                    }
                },
            }
        }
    }

    fn execute(
        &mut self,
        def: &'static Def,
        at: u64,
        dw: &[u32],
        report: &mut SubmitReport,
    ) -> Result<Flow, Hang> {
        let name = def.name;
        if self.ring == Ring::Blitter && dw[0] >> 29 == 3 {
            return Err(unsupported(
                name,
                at,
                "3D, media and GPGPU commands on the blitter ring",
                "IVB PRM Vol1 Part4 (Blitter Engine)",
            ));
        }
        // The video enhancement ring runs the MI commands and the VEBOX's and SFC's
        // (`vebox`); those are for no other ring.
        let vebox = super::vebox::is_vebox_command(name);
        if self.ring == Ring::VideoEnhance && dw[0] >> 29 != 0 {
            if !vebox {
                return Err(unsupported(
                    name,
                    at,
                    "render, media and GPGPU commands on the video enhancement ring",
                    "media-driver mhw_vebox_g11_X.cpp (a VEBOX batch holds MI, VEBOX and SFC commands)",
                ));
            }
            super::vebox::execute(self, def, at, dw)?;
            return Ok(Flow::Next);
        }
        if vebox {
            return Err(unsupported(
                name,
                at,
                "VEBOX and SFC commands outside the video enhancement ring",
                "media-driver mhw_vebox_g11_X.cpp (they go to I915_EXEC_VEBOX)",
            ));
        }
        // Only MI commands (command type 0) are the executor's; the rest is the front's.
        if dw[0] >> 29 != 0 && name != "PIPE_CONTROL" {
            F::execute(self, def, at, dw, report)?;
            return Ok(Flow::Next);
        }
        let c = Fields::of(self.info().tables, def, dw, at)?;
        match name {
            "MI_NOOP" => {}
            "MI_BATCH_BUFFER_END" => return Ok(Flow::End),
            "MI_BATCH_BUFFER_START" => {
                if c.flag("Predication Enable") && self.predicated_off() {
                    return Ok(Flow::Next);
                }
                let to = c.address("Batch Buffer Start Address");
                // Gen7 has no second-level batches (no such field): the command chains.
                return Ok(if c.flag("Second Level Batch Buffer") {
                    Flow::Call(to)
                } else {
                    Flow::Jump(to)
                });
            }
            "MI_CONDITIONAL_BATCH_BUFFER_END" => {
                // Ends the batch when the dword at Compare Address is <= Compare Data
                // (IVB PRM Vol1 Part3, Gen11 PRM Vol 2a); without Compare Semaphore,
                // always.
                if !c.flag("Compare Semaphore") {
                    return Ok(Flow::End);
                }
                if c.flag("Compare Mask Mode") {
                    return Err(unsupported(
                        name,
                        at,
                        "Compare Mask Mode (the compare data's mask dword)",
                        "Gen11 PRM Vol 2a MI_CONDITIONAL_BATCH_BUFFER_END",
                    ));
                }
                let v = self.read_u32(name, at, c.address("Compare Address"))?;
                if u64::from(v) <= c.u("Compare Data Dword") {
                    return Ok(Flow::End);
                }
            }
            "MI_LOAD_REGISTER_IMM" => {
                let base = self.mmio_base(&c, "Add CS MMIO Start Offset");
                if c.u("Byte Write Disables") != 0 {
                    return Err(unsupported(
                        name,
                        at,
                        "Byte Write Disables",
                        mi_reference(self.info()),
                    ));
                }
                for r in c.array("Registers") {
                    self.ctx.registers.write(
                        base.wrapping_add(r.address("Register Offset") as u32),
                        r.u("Data DWord") as u32,
                    );
                }
            }
            "MI_LOAD_REGISTER_MEM" => {
                let base = self.mmio_base(&c, "Add CS MMIO Start Offset");
                if c.flag("Add Loop Variable") {
                    return Err(unsupported(
                        name,
                        at,
                        "Add Loop Variable",
                        mi_reference(self.info()),
                    ));
                }
                let v = self.read_u32(name, at, c.address("Memory Address"))?;
                self.ctx
                    .registers
                    .write(base.wrapping_add(c.address("Register Address") as u32), v);
            }
            "MI_LOAD_REGISTER_REG" => {
                let src = self.mmio_base(&c, "Add CS MMIO Start Offset Source");
                let dst = self.mmio_base(&c, "Add CS MMIO Start Offset Destination");
                let v = self.ctx.registers.read(
                    src.wrapping_add(c.address("Source Register Address") as u32),
                    self.clock(),
                );
                self.ctx.registers.write(
                    dst.wrapping_add(c.address("Destination Register Address") as u32),
                    v,
                );
            }
            "MI_STORE_REGISTER_MEM" => {
                let base = self.mmio_base(&c, "Add CS MMIO Start Offset");
                if c.flag("Predicate Enable") && self.predicated_off() {
                    return Ok(Flow::Next);
                }
                let v = self.ctx.registers.read(
                    base.wrapping_add(c.address("Register Address") as u32),
                    self.clock(),
                );
                self.write_u32(name, at, c.address("Memory Address"), v)?;
            }
            "MI_STORE_DATA_IMM" => {
                // DWord Length 2 stores one dword, 3 a qword; a longer command stores
                // each of its data dwords in turn (Gen8+: anv writes a whole clear colour,
                // six dwords, with one; Mesa genX_cmd_buffer.c).
                let addr = c.address("Address");
                self.write_u32(name, at, addr, c.u("Data DWord 0") as u32)?;
                for (i, d) in c.array("Data DWord 1").iter().enumerate() {
                    let to = addr + 4 * (i as u64 + 1);
                    self.write_u32(name, at, to, d.u("Data DWord") as u32)?;
                }
            }
            "MI_STORE_DATA_INDEX" => {
                // The data goes to the hardware status page (HWS_PGA) at Offset.
                if c.flag("Use Per-Process Hardware Status Page") {
                    return Err(unsupported(
                        name,
                        at,
                        "stores into the per-process hardware status page",
                        "Gen11 PRM Vol 2a MI_STORE_DATA_INDEX",
                    ));
                }
                let hws = self.status_page(name, at)?;
                let addr = hws + c.address("Offset");
                self.write_u32(name, at, addr, c.u("Data DWord 0") as u32)?;
                if let Some(hi) = c.array("Data DWord 1").first() {
                    self.write_u32(name, at, addr + 4, hi.u("Data DWord") as u32)?;
                }
            }
            "MI_COPY_MEM_MEM" => {
                let v = self.read_u32(name, at, c.address("Source Memory Address"))?;
                self.write_u32(name, at, c.address("Destination Memory Address"), v)?;
            }
            "MI_MATH" => {
                let alu: Vec<(u32, u32, u32)> = c
                    .array("Instruction")
                    .iter()
                    .map(|i| {
                        (
                            i.u("ALU Opcode") as u32,
                            i.u("Operand 1") as u32,
                            i.u("Operand 2") as u32,
                        )
                    })
                    .collect();
                super::alu::run(&mut self.ctx.registers, &alu).map_err(|why| {
                    unsupported(name, at, why.to_string(), "Gen11 PRM Vol 2a MI_MATH (ALU)")
                })?;
            }
            "MI_PREDICATE" => {
                super::predicate::apply(
                    &mut self.ctx.registers,
                    c.u("Compare Operation") as u32,
                    c.u("Load Operation") as u32,
                    c.u("Combine Operation") as u32,
                )
                .map_err(|why| unsupported(name, at, why.to_string(), "MI_PREDICATE"))?;
            }
            "MI_ATOMIC" => super::atomic::execute(self, &c, at)?,
            "MI_SEMAPHORE_WAIT" => self.semaphore_wait(&c, at)?,
            "PIPE_CONTROL" => super::pipe_control::execute(self, &c, at)?,
            "MI_FLUSH_DW" if matches!(self.ring, Ring::Blitter | Ring::VideoEnhance) => {
                super::blt::flush_dw(self, &c, at)?
            }

            // No display engine: scan-line windows never hold the ring back. Flushes,
            // arbitration, interrupts, clock wake-up and topology filtering have no effect
            // on memory in a model that executes in order and synchronously.
            "MI_LOAD_SCAN_LINES_INCL"
            | "MI_LOAD_SCAN_LINES_EXCL"
            | "MI_CLFLUSH"
            | "MI_FLUSH"
            | "MI_ARB_ON_OFF"
            | "MI_ARB_CHECK"
            | "MI_USER_INTERRUPT"
            | "MI_SUSPEND_FLUSH"
            | "MI_TOPOLOGY_FILTER"
            | "MI_URB_CLEAR"
            | "MI_WAIT_FOR_EVENT"
            | "MI_FORCE_WAKEUP" => {}
            _ => {
                let what = match name {
                    "MI_DISPLAY_FLIP" => "display flips (there is no display engine)",
                    "MI_REPORT_HEAD" => "ring head reports (the ring is not modelled)",
                    "MI_SEMAPHORE_MBOX" | "MI_SEMAPHORE_SIGNAL" => {
                        "semaphores between engines (only one engine runs at a time)"
                    }
                    "MI_SET_CONTEXT" => {
                        "hardware context switches by the kernel driver (contexts are switched per submission)"
                    }
                    "MI_UPDATE_GTT" => "GTT updates from a batch (the GTT is the i915 emulation's)",
                    "MI_FLUSH_DW" => {
                        "MI_FLUSH_DW, a blitter and video ring command, on the render ring"
                    }
                    "MI_REPORT_PERF_COUNT" => "performance counter reports",
                    _ => "this command",
                };
                return Err(unsupported(name, at, what, mi_reference(self.info())));
            }
        }
        Ok(Flow::Next)
    }

    /// What Gen11's "Add CS MMIO Start Offset" adds to a register offset: with the flag
    /// set the offset is relative to the engine's MMIO base, the render command
    /// streamer's 0x2000 (Linux i915_reg.h RENDER_RING_BASE; Mesa's mi_builder writes
    /// GPR offsets 0x600.. this way); 0 without it (or on Gen7, whose commands lack
    /// the field).
    fn mmio_base(&self, c: &Fields, field: &'static str) -> u32 {
        if c.flag(field) { RENDER_RING_BASE } else { 0 }
    }

    /// The hardware status page (HWS_PGA, Linux i915_reg.h; bits 31:12).
    pub fn status_page(&self, cmd: &'static str, at: u64) -> Result<u64, Hang> {
        let pga = (self.ctx.registers.read(self.register("HWS_PGA"), 0) & 0xffff_f000) as u64;
        if pga == 0 {
            return Err(unsupported(
                cmd,
                at,
                "a store into the hardware status page before HWS_PGA is set",
                "IVB PRM Vol1 Part3, Gen11 PRM Vol 2a (HWS_PGA)",
            ));
        }
        Ok(pga)
    }

    /// MI_SEMAPHORE_WAIT (Gen11 PRM Vol 2a): compares the dword at Semaphore Address
    /// (SAD) with Semaphore Data (SDD). Satisfied, the batch goes on. Otherwise only
    /// another engine or the CPU could change the dword, and none runs while this batch
    /// does: a wait in polling or signal mode would never end, so it ends the batch as a
    /// hang, as the kernel's hangcheck would.
    fn semaphore_wait(&mut self, c: &Fields, at: u64) -> Result<(), Hang> {
        let name = c.def.name;
        if c.flag("Register Poll Mode") {
            return Err(unsupported(
                name,
                at,
                "Register Poll Mode",
                "Gen11 PRM Vol 2a MI_SEMAPHORE_WAIT",
            ));
        }
        let sad = self.read_u32(name, at, c.address("Semaphore Address"))?;
        let sdd = c.u("Semaphore Data Dword") as u32;
        let satisfied = match c.u("Compare Operation") {
            0 => sad > sdd,
            1 => sad >= sdd,
            2 => sad < sdd,
            3 => sad <= sdd,
            4 => sad == sdd,
            5 => sad != sdd,
            op => {
                return Err(unsupported(
                    name,
                    at,
                    format!("Compare Operation {op}, a reserved value"),
                    "Gen11 PRM Vol 2a MI_SEMAPHORE_WAIT",
                ));
            }
        };
        if satisfied {
            return Ok(());
        }
        Err(Hang::Semaphore {
            addr: at,
            semaphore: c.address("Semaphore Address"),
            value: sad,
            data: sdd,
        })
    }
}
