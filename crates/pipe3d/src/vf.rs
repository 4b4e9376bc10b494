//! Vertex element assembly (seed 004 §2.4, VERTEX_ELEMENT_STATE and
//! 3D_VertexComponentControl L2290-2338): one source element, converted by its
//! SURFACE_FORMAT, becomes up to four dwords of the destination vertex, each chosen by
//! its component control.

use gtsim_mem::format::texel::{self, FormatError, Texel};
use gtsim_spec::shared::{SurfaceFormat, ThreeDVertexComponentControl as C};
use thiserror::Error;

/// A vertex element the VF cannot assemble.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VfError {
    /// Component control rules the seed states as "must" (L2312-2318).
    #[error("VERTEX_ELEMENT_STATE Component {component} Control: {why} (seed 004 §2.4.2)")]
    ComponentControl {
        /// Component 0..3.
        component: usize,
        /// The broken rule.
        why: &'static str,
    },
    /// The source element format.
    #[error("VERTEX_ELEMENT_STATE Source Element Format: {0}")]
    Format(#[from] FormatError),
}

/// The IDs the VF can store (VFCOMP_STORE_VID/IID/PID).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VertexIds {
    /// Vertex ID.
    pub vertex: u32,
    /// Instance ID.
    pub instance: u32,
    /// Primitive ID.
    pub primitive: u32,
}

/// Assembles one element: returns the dwords stored (1 to 4; trailing NOSTORE
/// components are not stored).
pub fn assemble_element(
    format: SurfaceFormat,
    source: &[u8],
    controls: [C; 4],
    ids: VertexIds,
) -> Result<Vec<u32>, VfError> {
    check_controls(&controls)?;
    let needs_source = controls.contains(&C::VFCOMP_STORE_SRC);
    let src: [u32; 4] = if needs_source {
        match texel::decode(format, source)? {
            Texel::Float(f) => f.map(f32::to_bits),
            Texel::Uint(u) => u,
            Texel::Sint(i) => i.map(|v| v as u32),
        }
    } else {
        [0; 4]
    };
    let mut out = vec![];
    for (i, c) in controls.iter().enumerate() {
        out.push(match *c {
            C::VFCOMP_NOSTORE => break,
            C::VFCOMP_STORE_SRC => src[i],
            C::VFCOMP_STORE_0 => 0,
            C::VFCOMP_STORE_1_FP => 1.0f32.to_bits(),
            C::VFCOMP_STORE_1_INT => 1,
            C::VFCOMP_STORE_VID => ids.vertex,
            C::VFCOMP_STORE_IID => ids.instance,
            _ => ids.primitive,
        });
    }
    Ok(out)
}

/// The "no holes" rules: component 0 is stored; after a NOSTORE everything is NOSTORE;
/// after a non-SRC control no SRC follows.
fn check_controls(controls: &[C; 4]) -> Result<(), VfError> {
    if controls[0] == C::VFCOMP_NOSTORE {
        return Err(VfError::ComponentControl {
            component: 0,
            why: "VFCOMP_NOSTORE is not valid for component 0",
        });
    }
    for i in 1..4 {
        let prev = controls[i - 1];
        if prev == C::VFCOMP_NOSTORE && controls[i] != C::VFCOMP_NOSTORE {
            return Err(VfError::ComponentControl {
                component: i,
                why: "components after a VFCOMP_NOSTORE must also be VFCOMP_NOSTORE",
            });
        }
        if prev != C::VFCOMP_STORE_SRC && controls[i] == C::VFCOMP_STORE_SRC {
            return Err(VfError::ComponentControl {
                component: i,
                why: "VFCOMP_STORE_SRC may not follow another control",
            });
        }
    }
    Ok(())
}

/// A vertex buffer (VERTEX_BUFFER_STATE, seed 004 §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexBuffer {
    /// Buffer Starting Address.
    pub start: u64,
    /// Buffer Pitch in bytes.
    pub pitch: u32,
    /// End Address: the last valid byte (Gen7's form of the seed's Max Index bound).
    pub end: u64,
    /// INSTANCEDATA with its Instance Data Step Rate; `None` for VERTEXDATA.
    pub instance_step_rate: Option<u32>,
    /// Bits of a graphics address in the generation (32 on Gen7, whose addresses are
    /// GraphicsAddress[31:0]): the structure address is computed modulo 2^bits, so
    /// a Buffer Starting Address below the buffer (Mesa uploads the used range of a
    /// client array and points the start `Start Vertex Location` structures before it,
    /// wrapping below 0) reaches its data as the hardware does.
    pub address_bits: u32,
}

/// VertexIndexGeneration (seed 004 §2.5.6, L2502-2525): the VertexIndex for vertex
/// `number` of a draw. SEQUENTIAL: `start + number`. RANDOM: the index buffer value
/// `ib` (already fetched at `start + number`) plus Base Vertex Location; `None` for a
/// cut.
pub fn vertex_index(
    start: u32,
    number: u32,
    ib: Option<Option<u32>>,
    base_vertex: i32,
) -> Option<i64> {
    match ib {
        None => Some(start as i64 + number as i64),
        Some(None) => None,
        Some(Some(v)) => Some(v as i64 + base_vertex as i64),
    }
}

/// The structure index into a VB (seed 004 §2.5.10, L2570-2581): VertexIndex for
/// VERTEXDATA; for INSTANCEDATA, Start Instance Location plus InstanceID divided by the
/// step rate (a step rate of 0 keeps every instance on the start structure).
pub fn vb_index(
    vb: &VertexBuffer,
    vertex_index: i64,
    instance_id: u32,
    start_instance: u32,
) -> i64 {
    match vb.instance_step_rate {
        None => vertex_index,
        Some(0) => start_instance as i64,
        Some(rate) => start_instance as i64 + (instance_id / rate) as i64,
    }
}

/// SourceElementFetch (seed 004 §2.5.10, L2583-2591): `size` bytes at
/// `start + index·pitch + offset` (modulo the address width); an index below 0 or data
/// past the End Address reads as zeros.
pub fn fetch_source(
    mem: &dyn gtsim_mem::Memory,
    vb: &VertexBuffer,
    index: i64,
    offset: u32,
    size: usize,
) -> Result<Vec<u8>, gtsim_mem::Fault> {
    let mut out = vec![0u8; size];
    if index < 0 {
        return Ok(out);
    }
    let mask = if vb.address_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << vb.address_bits) - 1
    };
    let at = vb
        .start
        .wrapping_add((index as u64).wrapping_mul(vb.pitch as u64))
        .wrapping_add(offset as u64)
        & mask;
    if at.saturating_add(size as u64).saturating_sub(1) > vb.end & mask {
        return Ok(out);
    }
    mem.read(at, &mut out)?;
    Ok(out)
}

/// PrimitiveInfoGeneration (seed 004 §2.5.13): the PrimitiveID of each vertex as it
/// leaves the VF. PrimitiveID is reset per instance ([`PrimitiveIds::new`]), not per
/// cut; the skip and repeat counters restart with every run ([`PrimitiveIds::start_run`]).
#[derive(Debug, Clone)]
pub struct PrimitiveIds {
    s: u32,
    r: u32,
    counter_s: u32,
    counter_r: u32,
    pid: u32,
}

impl PrimitiveIds {
    /// The generator for topology `t` from PrimitiveID `start`; `None` for topologies
    /// the seed's table does not list.
    pub fn new(t: gtsim_spec::shared::ThreeDPrimTopoType, start: u32) -> Option<PrimitiveIds> {
        use gtsim_spec::shared::ThreeDPrimTopoType as T;
        let (s, r): (u32, u32) = match t {
            T::_3DPRIM_POINTLIST | T::_3DPRIM_POINTLIST_BF => (1, 0),
            T::_3DPRIM_LINELIST => (1, 1),
            T::_3DPRIM_LINELIST_ADJ => (1, 3),
            T::_3DPRIM_LINESTRIP
            | T::_3DPRIM_LINESTRIP_BF
            | T::_3DPRIM_LINESTRIP_CONT
            | T::_3DPRIM_LINESTRIP_CONT_BF
            | T::_3DPRIM_LINELOOP => (2, 0),
            T::_3DPRIM_LINESTRIP_ADJ => (3, 0),
            T::_3DPRIM_TRILIST | T::_3DPRIM_RECTLIST => (1, 2),
            T::_3DPRIM_TRILIST_ADJ => (1, 5),
            T::_3DPRIM_TRISTRIP | T::_3DPRIM_TRISTRIP_REVERSE => (3, 0),
            T::_3DPRIM_TRISTRIP_ADJ => (5, 1),
            T::_3DPRIM_TRIFAN | T::_3DPRIM_TRIFAN_NOSTIPPLE | T::_3DPRIM_POLYGON => (3, 0),
            T::_3DPRIM_QUADLIST => (1, 3),
            T::_3DPRIM_QUADSTRIP => (3, 1),
            other if (0x20..=0x3f).contains(&other.0) => (1, other.0 - 0x20),
            _ => return None,
        };
        Some(PrimitiveIds {
            s,
            r,
            counter_s: 0,
            counter_r: 0,
            pid: start,
        })
    }

    /// A cut: the counters restart, PrimitiveID goes on from where it is (the next run's
    /// first object repeats it, as the seed's loop has it).
    pub fn start_run(&mut self) {
        self.counter_s = 0;
        self.counter_r = 0;
    }

    /// The PrimitiveID of the next vertex.
    pub fn next_id(&mut self) -> u32 {
        if self.counter_s < self.s {
            self.counter_s += 1;
        } else if self.counter_r < self.r {
            self.counter_r += 1;
        } else {
            self.pid = self.pid.wrapping_add(1);
            self.counter_r = 0;
        }
        self.pid
    }
}

/// The PrimitiveIDs of `count` vertices of one cut-free run of topology `t`, continuing
/// from `start` ([`PrimitiveIds`]); returns the IDs and the value the next run continues
/// from. `None` for topologies the table does not list.
pub fn primitive_ids(
    t: gtsim_spec::shared::ThreeDPrimTopoType,
    count: usize,
    start: u32,
) -> Option<(Vec<u32>, u32)> {
    let mut g = PrimitiveIds::new(t, start)?;
    let ids: Vec<u32> = (0..count).map(|_| g.next_id()).collect();
    Some((ids, g.pid))
}
