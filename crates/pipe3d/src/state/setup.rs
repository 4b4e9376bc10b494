//! The clipper's and the strips-and-fans unit's state (seed 004 ch.9-10), with the
//! viewport, drawing rectangle and scissor they apply.

use crate::assembly::ProvokingVertex;
use crate::clip::ClipTest;
use crate::coverage::SamplePattern;
use crate::raster::{DiamondRule, PointRule, SubpixelBits, Winding};
use crate::sf::{CullMode, DepthOffset, Viewport};

/// What the clipper does with objects (seed 004 §9.4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipMode {
    /// CLIPMODE_NORMAL: trivially accept, reject or clip by the clip test.
    Normal,
    /// CLIPMODE_REJECT_ALL.
    RejectAll,
    /// CLIPMODE_ACCEPT_ALL: everything but BAD objects passes.
    AcceptAll,
    /// A reserved encoding (the raw value): a hang when an object reaches the clipper.
    Reserved(u32),
}

/// The clipper (seed 004 ch.9).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipState {
    /// The clip stage is enabled (otherwise every object passes).
    pub enabled: bool,
    /// Force Zero RTA Index Enable: objects take Render Target Array Index 0 instead of
    /// their VUE header's (seed 004 §1.8.1 VUE header DWord 1).
    pub force_zero_rta_index: bool,
    /// CL_INVOCATION_COUNT counts objects entering the clipper.
    pub statistics: bool,
    /// The mode.
    pub mode: ClipMode,
    /// The clip test's controls and guard band.
    pub test: ClipTest,
    /// User Clip Distance Cull Test Enable Bitmask.
    pub cull_mask: u8,
    /// Perspective Divide Disable.
    pub perspective_divide_disable: bool,
    /// Maximum VPIndex: an object's Viewport Index past it is taken as 0 (seed 004
    /// 3DSTATE_CLIP, L6010-6017).
    pub max_vp_index: u32,
    /// Minimum and Maximum Point Width, in pixels (U8.3): "used to clamp read-back
    /// PointWidth values" (seed 004 3DSTATE_CLIP DW3 27:17 and 16:6; seed 003
    /// 3DSTATE_CLIP_BODY): a point width taken from the VUE header, not the state's.
    pub point_width_range: [f32; 2],
}

/// How a triangle face is filled (seed 004 §10.3.13, 3DSTATE_SF Front/Back Face Fill
/// Mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FillMode {
    /// SOLID.
    Solid,
    /// WIREFRAME: the triangle's edges, as lines.
    Wireframe,
    /// POINT: the triangle's vertices, as points.
    Point,
    /// A reserved encoding (the raw value): a state error when a triangle meets it.
    Reserved(u32),
}

/// The drawing rectangle (seed 004 §10.3.11): the clipped rectangle in pixels, inclusive,
/// and the origin added to every screen position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DrawingRectangle {
    /// X min, y min, x max, y max (inclusive).
    pub rect: [u32; 4],
    /// Drawing Rectangle Origin X, Y.
    pub origin: [i32; 2],
}

/// One entry of the viewport arrays past the first (seed 004 §10.3: "Up to 16
/// structures are supported"): what an object whose Viewport Index selects it maps and
/// clips with. Entry 0 is [`SetupState::viewport`], [`SetupState::scissor`] and
/// [`ClipTest::gb`](crate::clip::ClipTest).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewportSet {
    /// The viewport transform of its SF_CLIP_VIEWPORT entry, `None` when the transform
    /// is disabled.
    pub viewport: Option<Viewport>,
    /// Its scissor rectangle (SCISSOR_RECT entry), when scissoring is enabled.
    pub scissor: Option<[u32; 4]>,
    /// Its guard band in NDC (SF_CLIP_VIEWPORT entry): x min, x max, y min, y max.
    pub guardband: [f32; 4],
}

/// The strips-and-fans unit and the rasterizer (seed 004 ch.10, §11.3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetupState {
    /// Provoking vertex selects.
    pub provoking: ProvokingVertex,
    /// Last Pixel Enable.
    pub last_pixel: bool,
    /// CL_PRIMITIVES_COUNT counts objects leaving setup.
    pub statistics: bool,
    /// The viewport transform, `None` when disabled.
    pub viewport: Option<Viewport>,
    /// The drawing rectangle.
    pub drawing_rectangle: DrawingRectangle,
    /// The scissor rectangle (x min, y min, x max, y max; inclusive), when enabled.
    pub scissor: Option<[u32; 4]>,
    /// Global depth offset, when enabled for any fill mode.
    pub depth_offset: Option<DepthOffset>,
    /// Global Depth Offset Enable Solid, Wireframe and Point: which fill modes of
    /// triangles the offset applies to (seed 004 §11.5.1).
    pub depth_offset_modes: [bool; 3],
    /// The point width from state; `None`: from the VUE header.
    pub point_width: Option<f32>,
    /// Front- and back-face fill modes.
    pub fill: [FillMode; 2],
    /// The winding of front-facing triangles.
    pub front_winding: Winding,
    /// Face culling.
    pub cull: CullMode,
    /// Line width in pixels (0: the thinnest lines).
    pub line_width: f32,
    /// Line anti-aliasing.
    pub antialiasing: bool,
    /// Line Antialiasing Region Width and Line End Cap Antialiasing Region Width, in
    /// pixels (seed 004 §10.3.12.5).
    pub aa_regions: [f32; 2],
    /// Line stipple (3DSTATE_WM Line Stipple Enable with 3DSTATE_LINE_STIPPLE).
    pub line_stipple: Option<LineStipple>,
    /// Polygon stipple (3DSTATE_WM Polygon Stipple Enable with the pattern and offset).
    pub polygon_stipple: Option<PolygonStipple>,
    /// The diamond rule of zero-width lines.
    pub diamond: DiamondRule,
    /// The point rasterization rule.
    pub point_rule: PointRule,
    /// Subpixel precision of screen positions.
    pub subpixel: SubpixelBits,
}

/// 3DSTATE_LINE_STIPPLE (seed 004 §11.3.2.3-11.3.2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineStipple {
    /// Line Stipple Pattern (p): bit 0 first.
    pub pattern: u16,
    /// Line Stipple Repeat Count (r), 1 to 256.
    pub repeat: u32,
}

impl LineStipple {
    /// Whether the pixel a line produces with stipple counter `s` is rendered: bit
    /// floor(s / r) mod 16 of p (§11.3.2.3).
    pub fn keeps(&self, s: u32) -> bool {
        let b = (s / self.repeat.max(1)) % 16;
        self.pattern & (1 << b) != 0
    }
}

/// 3DSTATE_POLY_STIPPLE_PATTERN and 3DSTATE_POLY_STIPPLE_OFFSET (seed 004 §11.3.3.1-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolygonStipple {
    /// Rows 1 (top) to 32; bit 31 is the leftmost pixel.
    pub rows: [u32; 32],
    /// Polygon Stipple X and Y Offset: where the pattern's upper-left corner lies.
    pub offset: [u32; 2],
}

impl PolygonStipple {
    /// Whether pixel (x, y) is rendered: the pattern repeats every 32 pixels from its
    /// upper-left corner at the offset ("pixel offsets from the Color Buffer origin to
    /// the upper left corner of the stipple pattern").
    pub fn keeps(&self, x: u32, y: u32) -> bool {
        let col = x.wrapping_sub(self.offset[0]) % 32;
        let row = y.wrapping_sub(self.offset[1]) % 32;
        self.rows[row as usize] & (1 << (31 - col)) != 0
    }
}

/// Multisampling (seed 004 §11.4) and the pixel sampling position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Multisample {
    /// Samples per pixel (3DSTATE_MULTISAMPLE Number of Multisamples).
    pub samples: u32,
    /// Pixels are sampled at their centre (otherwise their upper-left corner).
    pub pixel_center: bool,
    /// The sample positions (§11.4.2).
    pub pattern: SamplePattern,
    /// Multisample Rasterization Mode: polygons and points are rasterized per sample
    /// (MSRASTMODE_*_PATTERN) rather than at the pixel location.
    pub pattern_polygons: bool,
    /// Multisample Rasterization Mode: lines are rasterized per sample (MSRASTMODE_ON_*).
    pub pattern_lines: bool,
    /// Multisample Dispatch Mode MSDISPMODE_PERSAMPLE: the pixel shader runs per sample
    /// (§11.10.2.2) rather than per pixel.
    pub per_sample: bool,
    /// 3DSTATE_SAMPLE_MASK, ANDed with every pixel's coverage (§11.2.5).
    pub sample_mask: crate::coverage::SampleMask,
}

impl Multisample {
    /// One sample per pixel at the given pixel location: what a draw without
    /// multisampling sees.
    pub fn single(pixel_center: bool) -> Multisample {
        Multisample {
            samples: 1,
            pixel_center,
            pattern: SamplePattern {
                count: 1,
                offsets: [[8, 8]; crate::coverage::MAX_SAMPLES],
            },
            pattern_polygons: false,
            pattern_lines: false,
            per_sample: false,
            sample_mask: 1,
        }
    }
}
