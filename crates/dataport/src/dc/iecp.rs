//! The image enhancement colour processing pipe (IECP) of the render cache pixel
//! backend, run on the data of a Media Block Write whose header sets Color Processing
//! Enable (seed 000 §3.6.1, §3.9.6.2 M0.3).
//!
//! The model: the message's write data is cut into pixels by the header's Message
//! Format (§3.9.6.3 table: YUV 4:2:2 or 4:4:4, 8 or 16 bits per channel); the
//! **unpacker** widens every channel to the pipe's 12 bits and, for 4:2:2 data, gives
//! both pixels of a pair their shared U and V ("In case of 422 inputs the UV are the
//! same for the two pixels in the pair", §3.6.1.1); each pixel runs through the stages
//! the state enables, in the pipe's order; the **repacker** narrows back to the
//! message's layout ("either 8 bit/pixel component (while taking only the 8 MSB) or
//! 16 bits/pixel component (while adding 0000 at the LSB)") and, for 4:2:2 output,
//! gives the pair "the average of two adjacent pixels" as its U and V. The data port
//! then writes the bytes as it writes any media block: no format conversion.
//!
//! Modelled stages: ProcAmp (§3.6.1.5) and the colour space converter (§3.6.1.6), the
//! 4:2:2/4:4:4 operation modes of the unpacker (§3.6.1.1: the auto UV detection and the
//! three Forced flags) and the repacker's alpha (§3.6.1.6 "Notes about Repacker"). The
//! front refuses a state that enables what is not modelled (skin tone detection and
//! enhancement, ACE, TCC, gamut compression) before this pipe runs.
//!
//! Where the seed leaves arithmetic open, the choices are stated on the functions:
//! fixed-point products round to nearest (ties up), averages round up, every stage's
//! result is clamped to the pipe's 12 bits.

use gtsim_message::MessageError;

/// The largest value of the pipe's 12-bit components.
const MAX: i32 = 4095;

/// The header's Message Format (seed 000 §3.9.6.2 M0.3 3:2) and its pixel layout
/// (§3.9.6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageFormat {
    /// YUV 4:2:2, 8 bits per channel: a dword of V, Y1, U, Y0 (bits 31:24 to 7:0).
    Yuv422x8,
    /// YUV 4:4:4, 8 bits per channel: a dword of A, Y, U, V.
    Yuv444x8,
    /// YUV 4:2:2, 16 bits per channel: a qword of V, Y1, U, Y0.
    Yuv422x16,
    /// YUV 4:4:4, 16 bits per channel: a qword of A, V, Y, U.
    Yuv444x16,
}

impl MessageFormat {
    /// The format of M0.3 3:2.
    pub fn from_raw(v: u32) -> MessageFormat {
        match v & 3 {
            0 => MessageFormat::Yuv422x8,
            1 => MessageFormat::Yuv444x8,
            2 => MessageFormat::Yuv422x16,
            _ => MessageFormat::Yuv444x16,
        }
    }

    /// Bytes of one message pixel (a pair of pixels for 4:2:2).
    pub fn bytes(self) -> usize {
        match self {
            MessageFormat::Yuv422x8 | MessageFormat::Yuv444x8 => 4,
            MessageFormat::Yuv422x16 | MessageFormat::Yuv444x16 => 8,
        }
    }

    fn is_422(self) -> bool {
        matches!(self, MessageFormat::Yuv422x8 | MessageFormat::Yuv422x16)
    }

    fn wide(self) -> bool {
        matches!(self, MessageFormat::Yuv422x16 | MessageFormat::Yuv444x16)
    }

    /// The name the seed gives the format.
    pub fn name(self) -> &'static str {
        match self {
            MessageFormat::Yuv422x8 => "YUV 4:2:2, 8 bits per channel",
            MessageFormat::Yuv444x8 => "YUV 4:4:4, 8 bits per channel",
            MessageFormat::Yuv422x16 => "YUV 4:2:2, 16 bits per channel",
            MessageFormat::Yuv444x16 => "YUV 4:4:4, 16 bits per channel",
        }
    }
}

/// ProcAmp's parameters (seed 000 §3.6.1.5, COLOR_PROCESSING_STATE DW53-54), as raw
/// fixed-point integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcAmp {
    /// Contrast, U4.7 (128 is 1.0).
    pub contrast: i32,
    /// Brightness, S7.4: in 8-bit luma steps with four fraction bits, which is one step
    /// of the 12-bit pipe.
    pub brightness: i32,
    /// Cos(H)·C·S, S7.8 (256 is 1.0).
    pub cos_c_s: i32,
    /// Sin(H)·C·S, S7.8.
    pub sin_c_s: i32,
}

/// The colour space converter's parameters (seed 000 §3.6.1.6, COLOR_PROCESSING_STATE
/// DW55-62), as raw fixed-point integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Csc {
    /// C0 to C8, the 3x3 matrix row by row, S2.10 (1024 is 1.0).
    pub coefficients: [i32; 9],
    /// Offset In 1-3 (S9) when YUV_IN ("CSC input offset enable") is set.
    pub offset_in: Option<[i32; 3]>,
    /// Offset Out 1-3 (S9) when YUV_OUT ("CSC output offset enable") is set.
    pub offset_out: Option<[i32; 3]>,
}

/// Where the repacker's alpha comes from (seed 000 §3.6.1.6 "Notes about Repacker",
/// COLOR_PROCESSING_STATE DW63).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlphaSource {
    /// The message's own alpha.
    Message,
    /// Color Pipe Alpha (U16).
    State(u16),
}

/// How the unpacker runs (seed 000 §3.6.1.1 and COLOR_PROCESSING_STATE DW66 30:28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChromaMode {
    /// None of the Forced flags: 4:2:2 input runs as 4:2:2; 4:4:4 input as 4:2:2 where
    /// the auto UV detection finds it is.
    #[default]
    Auto,
    /// Forced 444 for 444: 4:4:4 input always runs as 4:4:4.
    Forced444For444,
    /// Forced 422 for 444: 4:4:4 input always runs as 4:2:2 (U and V averaged across
    /// each horizontal pair).
    Forced422For444,
    /// Forced 444 for 422: 4:2:2 input runs as 4:4:4 (U and V replicated).
    Forced444For422,
}

/// A COLOR_PROCESSING_STATE as the modelled pipe uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColorProcessing {
    /// ProcAmp, when PROCAMP Enable is set.
    pub procamp: Option<ProcAmp>,
    /// The colour space converter, when Transform Enable is set.
    pub csc: Option<Csc>,
    /// The repacker's alpha.
    pub alpha: AlphaSource,
    /// The unpacker's mode.
    pub chroma: ChromaMode,
}

/// `v · f / 2^shift` rounded to nearest, ties up.
fn scale(v: i64, shift: u32) -> i64 {
    (v + (1 << (shift - 1))) >> shift
}

impl ProcAmp {
    /// Seed 000 §3.6.1.5 on one 12-bit pixel:
    /// Y' = ((Y − 256) × C) + B + 256;
    /// U' = ((U − 2048) × Cos_c_s + (V − 2048) × Sin_c_s) + 2048;
    /// V' = ((V − 2048) × Cos_c_s − (U − 2048) × Sin_c_s) + 2048,
    /// each clamped to 12 bits.
    pub fn apply(&self, [y, u, v]: [i32; 3]) -> [i32; 3] {
        let (y, u, v) = (i64::from(y), i64::from(u) - 2048, i64::from(v) - 2048);
        let (c, s) = (i64::from(self.cos_c_s), i64::from(self.sin_c_s));
        let y = scale((y - 256) * i64::from(self.contrast), 7) + i64::from(self.brightness) + 256;
        let u2 = scale(u * c + v * s, 8) + 2048;
        let v2 = scale(v * c - u * s, 8) + 2048;
        [y, u2, v2].map(|x| x.clamp(0, i64::from(MAX)) as i32)
    }
}

impl Csc {
    /// Seed 000 §3.6.1.6: vout = A · (vin + v0) + u0, clipped. The offsets count steps
    /// of a 10-bit component, four steps of the 12-bit pipe: the seed gives S9 fields
    /// without their unit, and a YUV to RGB input offset of −128 · 4 = −512 is exactly
    /// the field's range (Intel's VA driver programs the successor state so: −16·4 and
    /// −128·4 in `gen75_vpp_vebox.c` for Haswell's CSC).
    pub fn apply(&self, vin: [i32; 3]) -> [i32; 3] {
        let v0 = self.offset_in.unwrap_or([0; 3]);
        let u0 = self.offset_out.unwrap_or([0; 3]);
        let shifted: [i64; 3] = std::array::from_fn(|i| i64::from(vin[i] + 4 * v0[i]));
        std::array::from_fn(|row| {
            let sum: i64 = (0..3)
                .map(|col| i64::from(self.coefficients[3 * row + col]) * shifted[col])
                .sum();
            (scale(sum, 10) + 4 * i64::from(u0[row])).clamp(0, i64::from(MAX)) as i32
        })
    }
}

/// One pixel in the pipe: Y (or R), U (or G), V (or B), A, 12 bits each.
type Pixel = [i32; 4];

/// `(a + b + 1) / 2`: the average the 4:2:2 conversions take.
fn average(a: i32, b: i32) -> i32 {
    (a + b + 1) >> 1
}

impl ColorProcessing {
    /// Runs the pipe over a block of write data: `rows` rows of `width` bytes, row `r`
    /// at `data[r * pitch..]`, in message format `format`. The data is changed in place.
    pub fn process(
        &self,
        format: MessageFormat,
        data: &mut [u8],
        width: usize,
        pitch: usize,
    ) -> Result<(), MessageError> {
        let unit = format.bytes();
        if !width.is_multiple_of(unit) {
            return Err(gtsim_message::invalid(format!(
                "a colour-processed media block write {width} bytes wide: Message Format \
                 {} takes whole {unit}-byte pixels (seed 000 §3.9.6.3)",
                format.name()
            )));
        }
        let rows = data.len() / pitch;
        // Every row unpacked: 4:2:2 message pixels become their two pixels.
        let mut block: Vec<Vec<Pixel>> = (0..rows)
            .map(|r| {
                data[r * pitch..r * pitch + width]
                    .chunks_exact(unit)
                    .flat_map(|m| unpack(format, m))
                    .collect()
            })
            .collect();
        if !format.is_422() {
            self.average_chroma_where_due(&mut block);
        }
        for row in &mut block {
            for p in row.iter_mut() {
                let mut yuv = [p[0], p[1], p[2]];
                if let Some(pa) = &self.procamp {
                    yuv = pa.apply(yuv);
                }
                if let Some(csc) = &self.csc {
                    yuv = csc.apply(yuv);
                }
                p[..3].copy_from_slice(&yuv);
            }
        }
        for (r, row) in block.iter().enumerate() {
            let out = &mut data[r * pitch..r * pitch + width];
            let per = if format.is_422() { 2 } else { 1 };
            for (m, pixels) in out.chunks_exact_mut(unit).zip(row.chunks_exact(per)) {
                self.repack(format, pixels, m);
            }
        }
        Ok(())
    }

    /// Seed 000 §3.6.1.1: 4:4:4 input runs as 4:2:2 when Forced 422 for 444 is set, or
    /// when neither Forced flag is and the auto UV detection finds each 2x2 quad's
    /// horizontal pairs equal in the 8 MSBs of U and of V; then "the average of the U, V
    /// values in horizontal direction is used as the U, V output to the remaining pipe".
    fn average_chroma_where_due(&self, block: &mut [Vec<Pixel>]) {
        let msb = |v: i32| v >> 4;
        for quad_rows in block.chunks_mut(2) {
            let columns = quad_rows[0].len();
            for x in (0..columns.saturating_sub(1)).step_by(2) {
                let due = match self.chroma {
                    ChromaMode::Forced422For444 => true,
                    ChromaMode::Forced444For444 => false,
                    ChromaMode::Auto | ChromaMode::Forced444For422 => quad_rows.iter().all(|row| {
                        msb(row[x][1]) == msb(row[x + 1][1]) && msb(row[x][2]) == msb(row[x + 1][2])
                    }),
                };
                if due {
                    for row in quad_rows.iter_mut() {
                        let (left, right) = row.split_at_mut(x + 1);
                        let (a, b) = (&mut left[x], &mut right[0]);
                        for (l, r) in a[1..3].iter_mut().zip(&mut b[1..3]) {
                            let avg = average(*l, *r);
                            (*l, *r) = (avg, avg);
                        }
                    }
                }
            }
        }
    }

    /// The repacker: 8-bit channels keep the 12-bit value's 8 MSBs, 16-bit channels
    /// are the 12 bits with 0000 below; a 4:2:2 pair takes the average of its two
    /// pixels' U and V; alpha is the message's (its 12 bits) or Color Pipe Alpha, a 16-bit
    /// value entering the 12-bit pipe as its 12 MSBs.
    fn repack(&self, format: MessageFormat, pixels: &[Pixel], out: &mut [u8]) {
        let alpha = |p: &Pixel| match self.alpha {
            AlphaSource::Message => p[3],
            AlphaSource::State(a) => i32::from(a >> 4),
        };
        let channels: Vec<i32> = match format {
            MessageFormat::Yuv422x8 | MessageFormat::Yuv422x16 => {
                let (a, b) = (pixels[0], pixels[1]);
                vec![a[0], average(a[1], b[1]), b[0], average(a[2], b[2])]
            }
            // A, Y, U, V from bit 31 down.
            MessageFormat::Yuv444x8 => {
                let p = pixels[0];
                vec![p[2], p[1], p[0], alpha(&p)]
            }
            // A, V, Y, U from bit 63 down.
            MessageFormat::Yuv444x16 => {
                let p = pixels[0];
                vec![p[1], p[0], p[2], alpha(&p)]
            }
        };
        for (i, c) in channels.into_iter().enumerate() {
            if format.wide() {
                out[2 * i..2 * i + 2].copy_from_slice(&((c as u16) << 4).to_le_bytes());
            } else {
                out[i] = (c >> 4) as u8;
            }
        }
    }
}

/// The unpacker: one message pixel's channels at 12 bits (8-bit channels shifted up,
/// 16-bit channels keeping their 12 MSBs); a 4:2:2 pair gives two pixels sharing U, V.
fn unpack(format: MessageFormat, m: &[u8]) -> Vec<Pixel> {
    let ch: Vec<i32> = if format.wide() {
        m.chunks_exact(2)
            .map(|w| i32::from(u16::from_le_bytes([w[0], w[1]]) >> 4))
            .collect()
    } else {
        m.iter().map(|&b| i32::from(b) << 4).collect()
    };
    match format {
        // Y0, U, Y1, V from bit 0 up.
        MessageFormat::Yuv422x8 | MessageFormat::Yuv422x16 => {
            vec![[ch[0], ch[1], ch[3], 0], [ch[2], ch[1], ch[3], 0]]
        }
        // V, U, Y, A from bit 0 up.
        MessageFormat::Yuv444x8 => vec![[ch[2], ch[1], ch[0], ch[3]]],
        // U, Y, V, A from bit 0 up.
        MessageFormat::Yuv444x16 => vec![[ch[1], ch[0], ch[2], ch[3]]],
    }
}
