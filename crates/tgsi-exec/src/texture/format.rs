//! Texel formats: the layouts the texture engine can read and write, their
//! names (shader_test short names and Gallium `PIPE_FORMAT_*` names), and the
//! Direct3D 11 conversion rules between stored bytes and shader values.
//!
//! Shader values are `[u32; 4]`: f32 bits for float, UNORM, SNORM and sRGB
//! formats, integer words for UINT/SINT formats. Channels a format lacks read
//! as (0, 0, 0, 1) (1.0 for non-integer formats, integer 1 otherwise).

use crate::math::simd::{self, STEP_TOPS};
use std::sync::LazyLock;
use tgsi_ir::enums::PipeFormat;

/// How one plain channel is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Unorm,
    Snorm,
    Uint,
    Sint,
    Float,
    /// 8-bit UNORM with the sRGB transfer curve on r, g, b (alpha linear).
    Srgb,
}

/// The storage layout of a format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `n` channels of `bits` bits each, in r, g, b, a order (b, g, r, a when `bgra`).
    Plain {
        kind: Kind,
        bits: u8,
        n: u8,
        bgra: bool,
    },
    /// 10-10-10-2 bits in one little-endian word, r in the low bits.
    Rgb10a2 { int: bool },
    /// Unsigned 11-11-10-bit floats in one word, r in the low bits.
    Rg11b10f,
    /// 32-bit float depth (reads as (d, 0, 0, 1)).
    Z32f,
    /// 16-bit UNORM depth (reads as (d, 0, 0, 1)).
    Z16,
}

/// How the values of a format are interpreted (for border colours and compares).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumClass {
    Float,
    Unorm,
    Snorm,
    Uint,
    Sint,
}

const fn plain(kind: Kind, bits: u8, n: u8, bgra: bool) -> Layout {
    Layout::Plain {
        kind,
        bits,
        n,
        bgra,
    }
}

macro_rules! formats {
    ($($v:ident $short:literal $pipe:literal $layout:expr;)*) => {
        /// A texel format.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Format {
            $($v,)*
        }

        impl Format {
            /// Every format, in table order.
            pub const ALL: &'static [Format] = &[$(Format::$v,)*];

            /// The short name (shader_test spelling, GL-like: `rgba8`, `r32f`, `rgba16_snorm`...).
            pub fn short_name(self) -> &'static str {
                match self {
                    $(Format::$v => $short,)*
                }
            }
            /// The Gallium `PIPE_FORMAT_*` name.
            pub fn pipe_name(self) -> &'static str {
                match self {
                    $(Format::$v => $pipe,)*
                }
            }
            /// The storage layout.
            pub fn layout(self) -> Layout {
                match self {
                    $(Format::$v => $layout,)*
                }
            }
        }
    };
}

formats! {
    R8Unorm "r8" "PIPE_FORMAT_R8_UNORM" plain(Kind::Unorm, 8, 1, false);
    Rg8Unorm "rg8" "PIPE_FORMAT_R8G8_UNORM" plain(Kind::Unorm, 8, 2, false);
    Rgb8Unorm "rgb8" "PIPE_FORMAT_R8G8B8_UNORM" plain(Kind::Unorm, 8, 3, false);
    Rgba8Unorm "rgba8" "PIPE_FORMAT_R8G8B8A8_UNORM" plain(Kind::Unorm, 8, 4, false);
    R8Snorm "r8_snorm" "PIPE_FORMAT_R8_SNORM" plain(Kind::Snorm, 8, 1, false);
    Rg8Snorm "rg8_snorm" "PIPE_FORMAT_R8G8_SNORM" plain(Kind::Snorm, 8, 2, false);
    Rgb8Snorm "rgb8_snorm" "PIPE_FORMAT_R8G8B8_SNORM" plain(Kind::Snorm, 8, 3, false);
    Rgba8Snorm "rgba8_snorm" "PIPE_FORMAT_R8G8B8A8_SNORM" plain(Kind::Snorm, 8, 4, false);
    R8Uint "r8ui" "PIPE_FORMAT_R8_UINT" plain(Kind::Uint, 8, 1, false);
    Rg8Uint "rg8ui" "PIPE_FORMAT_R8G8_UINT" plain(Kind::Uint, 8, 2, false);
    Rgb8Uint "rgb8ui" "PIPE_FORMAT_R8G8B8_UINT" plain(Kind::Uint, 8, 3, false);
    Rgba8Uint "rgba8ui" "PIPE_FORMAT_R8G8B8A8_UINT" plain(Kind::Uint, 8, 4, false);
    R8Sint "r8i" "PIPE_FORMAT_R8_SINT" plain(Kind::Sint, 8, 1, false);
    Rg8Sint "rg8i" "PIPE_FORMAT_R8G8_SINT" plain(Kind::Sint, 8, 2, false);
    Rgb8Sint "rgb8i" "PIPE_FORMAT_R8G8B8_SINT" plain(Kind::Sint, 8, 3, false);
    Rgba8Sint "rgba8i" "PIPE_FORMAT_R8G8B8A8_SINT" plain(Kind::Sint, 8, 4, false);
    R16Unorm "r16" "PIPE_FORMAT_R16_UNORM" plain(Kind::Unorm, 16, 1, false);
    Rg16Unorm "rg16" "PIPE_FORMAT_R16G16_UNORM" plain(Kind::Unorm, 16, 2, false);
    Rgb16Unorm "rgb16" "PIPE_FORMAT_R16G16B16_UNORM" plain(Kind::Unorm, 16, 3, false);
    Rgba16Unorm "rgba16" "PIPE_FORMAT_R16G16B16A16_UNORM" plain(Kind::Unorm, 16, 4, false);
    R16Snorm "r16_snorm" "PIPE_FORMAT_R16_SNORM" plain(Kind::Snorm, 16, 1, false);
    Rg16Snorm "rg16_snorm" "PIPE_FORMAT_R16G16_SNORM" plain(Kind::Snorm, 16, 2, false);
    Rgb16Snorm "rgb16_snorm" "PIPE_FORMAT_R16G16B16_SNORM" plain(Kind::Snorm, 16, 3, false);
    Rgba16Snorm "rgba16_snorm" "PIPE_FORMAT_R16G16B16A16_SNORM" plain(Kind::Snorm, 16, 4, false);
    R16Uint "r16ui" "PIPE_FORMAT_R16_UINT" plain(Kind::Uint, 16, 1, false);
    Rg16Uint "rg16ui" "PIPE_FORMAT_R16G16_UINT" plain(Kind::Uint, 16, 2, false);
    Rgb16Uint "rgb16ui" "PIPE_FORMAT_R16G16B16_UINT" plain(Kind::Uint, 16, 3, false);
    Rgba16Uint "rgba16ui" "PIPE_FORMAT_R16G16B16A16_UINT" plain(Kind::Uint, 16, 4, false);
    R16Sint "r16i" "PIPE_FORMAT_R16_SINT" plain(Kind::Sint, 16, 1, false);
    Rg16Sint "rg16i" "PIPE_FORMAT_R16G16_SINT" plain(Kind::Sint, 16, 2, false);
    Rgb16Sint "rgb16i" "PIPE_FORMAT_R16G16B16_SINT" plain(Kind::Sint, 16, 3, false);
    Rgba16Sint "rgba16i" "PIPE_FORMAT_R16G16B16A16_SINT" plain(Kind::Sint, 16, 4, false);
    R16Float "r16f" "PIPE_FORMAT_R16_FLOAT" plain(Kind::Float, 16, 1, false);
    Rg16Float "rg16f" "PIPE_FORMAT_R16G16_FLOAT" plain(Kind::Float, 16, 2, false);
    Rgb16Float "rgb16f" "PIPE_FORMAT_R16G16B16_FLOAT" plain(Kind::Float, 16, 3, false);
    Rgba16Float "rgba16f" "PIPE_FORMAT_R16G16B16A16_FLOAT" plain(Kind::Float, 16, 4, false);
    R32Unorm "r32_unorm" "PIPE_FORMAT_R32_UNORM" plain(Kind::Unorm, 32, 1, false);
    Rg32Unorm "rg32_unorm" "PIPE_FORMAT_R32G32_UNORM" plain(Kind::Unorm, 32, 2, false);
    Rgb32Unorm "rgb32_unorm" "PIPE_FORMAT_R32G32B32_UNORM" plain(Kind::Unorm, 32, 3, false);
    Rgba32Unorm "rgba32_unorm" "PIPE_FORMAT_R32G32B32A32_UNORM" plain(Kind::Unorm, 32, 4, false);
    R32Snorm "r32_snorm" "PIPE_FORMAT_R32_SNORM" plain(Kind::Snorm, 32, 1, false);
    Rg32Snorm "rg32_snorm" "PIPE_FORMAT_R32G32_SNORM" plain(Kind::Snorm, 32, 2, false);
    Rgb32Snorm "rgb32_snorm" "PIPE_FORMAT_R32G32B32_SNORM" plain(Kind::Snorm, 32, 3, false);
    Rgba32Snorm "rgba32_snorm" "PIPE_FORMAT_R32G32B32A32_SNORM" plain(Kind::Snorm, 32, 4, false);
    R32Uint "r32ui" "PIPE_FORMAT_R32_UINT" plain(Kind::Uint, 32, 1, false);
    Rg32Uint "rg32ui" "PIPE_FORMAT_R32G32_UINT" plain(Kind::Uint, 32, 2, false);
    Rgb32Uint "rgb32ui" "PIPE_FORMAT_R32G32B32_UINT" plain(Kind::Uint, 32, 3, false);
    Rgba32Uint "rgba32ui" "PIPE_FORMAT_R32G32B32A32_UINT" plain(Kind::Uint, 32, 4, false);
    R32Sint "r32i" "PIPE_FORMAT_R32_SINT" plain(Kind::Sint, 32, 1, false);
    Rg32Sint "rg32i" "PIPE_FORMAT_R32G32_SINT" plain(Kind::Sint, 32, 2, false);
    Rgb32Sint "rgb32i" "PIPE_FORMAT_R32G32B32_SINT" plain(Kind::Sint, 32, 3, false);
    Rgba32Sint "rgba32i" "PIPE_FORMAT_R32G32B32A32_SINT" plain(Kind::Sint, 32, 4, false);
    R32Float "r32f" "PIPE_FORMAT_R32_FLOAT" plain(Kind::Float, 32, 1, false);
    Rg32Float "rg32f" "PIPE_FORMAT_R32G32_FLOAT" plain(Kind::Float, 32, 2, false);
    Rgb32Float "rgb32f" "PIPE_FORMAT_R32G32B32_FLOAT" plain(Kind::Float, 32, 3, false);
    Rgba32Float "rgba32f" "PIPE_FORMAT_R32G32B32A32_FLOAT" plain(Kind::Float, 32, 4, false);
    Rgba8Srgb "rgba8_srgb" "PIPE_FORMAT_R8G8B8A8_SRGB" plain(Kind::Srgb, 8, 4, false);
    Rgb8Srgb "rgb8_srgb" "PIPE_FORMAT_R8G8B8_SRGB" plain(Kind::Srgb, 8, 3, false);
    Rg8Srgb "rg8_srgb" "PIPE_FORMAT_R8G8_SRGB" plain(Kind::Srgb, 8, 2, false);
    R8Srgb "r8_srgb" "PIPE_FORMAT_R8_SRGB" plain(Kind::Srgb, 8, 1, false);
    Bgra8Unorm "bgra8" "PIPE_FORMAT_B8G8R8A8_UNORM" plain(Kind::Unorm, 8, 4, true);
    Bgra8Srgb "bgra8_srgb" "PIPE_FORMAT_B8G8R8A8_SRGB" plain(Kind::Srgb, 8, 4, true);
    Rgb10a2Unorm "rgb10a2" "PIPE_FORMAT_R10G10B10A2_UNORM" Layout::Rgb10a2 { int: false };
    Rgb10a2Uint "rgb10a2ui" "PIPE_FORMAT_R10G10B10A2_UINT" Layout::Rgb10a2 { int: true };
    Rg11b10Float "r11g11b10f" "PIPE_FORMAT_R11G11B10_FLOAT" Layout::Rg11b10f;
    Z32Float "z32f" "PIPE_FORMAT_Z32_FLOAT" Layout::Z32f;
    Z16Unorm "z16" "PIPE_FORMAT_Z16_UNORM" Layout::Z16;
}

/// Round-to-nearest-even of a finite f64 into u64 range handling (callers clamp first).
fn rne(x: f64) -> f64 {
    x.round_ties_even()
}

/// sRGB -> linear for each 8-bit code, computed in f64 with the exact curve
/// and rounded once to f32.
static SRGB_TO_LINEAR: LazyLock<[f32; 256]> = LazyLock::new(|| {
    let mut t = [0f32; 256];
    for (i, v) in t.iter_mut().enumerate() {
        let c = i as f64 / 255.0;
        let l = if c <= 0.04045 {
            c / 12.92
        } else {
            libm::pow((c + 0.055) / 1.055, 2.4)
        };
        *v = l as f32;
    }
    t
});

/// The sRGB decode of an 8-bit code (exact curve, f64, rounded to f32).
pub fn srgb_to_linear(code: u8) -> f32 {
    SRGB_TO_LINEAR[code as usize]
}

/// The table behind [`srgb_to_linear`], for loops over many texels.
pub(super) fn srgb_to_linear_table() -> &'static [f32; 256] {
    &SRGB_TO_LINEAR
}

/// Linear -> 8-bit sRGB code: clamp to [0, 1] (NaN -> 0), exact curve in
/// f64, times 255, round to nearest even. Looked up in `SRGB_STEPS`: the
/// code of `f` is the number of steps at or below it (the same code as
/// [`linear_to_srgb_curve`], which never decreases as `f` grows), counted
/// from the code of the first float sharing `f`'s top 16 bits.
pub fn linear_to_srgb(f: f32) -> u8 {
    step_code(&SRGB_STEPS, f)
}

/// The code of `f` in a step table: 0 for NaN and f ≤ 0, `f` taken as at
/// most 1.
#[inline]
fn step_code(table: &CodeSteps, f: f32) -> u8 {
    if f.is_nan() || f <= 0.0 {
        return 0;
    }
    let bits = f.min(1.0).to_bits();
    let mut code = table.starts[(bits >> 16) as usize];
    // a fixed count of steps with no branch on the data (step 255 is never
    // passed); the tables made here have at most one step in a value of the
    // top bits
    if table.most == 1 {
        return code + u8::from(table.steps[code as usize] <= bits);
    }
    for _ in 0..table.most {
        code += u8::from(table.steps[code as usize] <= bits);
    }
    code
}

/// [`linear_to_srgb`] computed with the curve (what `SRGB_STEPS` is made from).
pub fn linear_to_srgb_curve(f: f32) -> u8 {
    let l = if f.is_nan() {
        0.0
    } else {
        f.clamp(0.0, 1.0) as f64
    };
    let c = if l <= 0.0031308 {
        l * 12.92
    } else {
        1.055 * libm::pow(l, 1.0 / 2.4) - 0.055
    };
    rne((c * 255.0).clamp(0.0, 255.0)) as u8
}

/// The 8-bit codes of a non-decreasing conversion of [0, 1] (NaN and
/// f ≤ 0: code 0), as steps: step k - 1 holds the bits of the least f32 in
/// (0, 1] whose code is at least k, for k = 1..=255 (bisection over the bit
/// patterns, which order non-negative floats); and for each value of a
/// float's top 16 bits up to 1.0's, the code of the first float with them.
/// The code of f is then found from its top bits in a fixed count of steps,
/// and is the conversion's by construction.
struct CodeSteps {
    /// Steps 0..255, then `u32::MAX` (no float in [0, 1] passes it).
    steps: [u32; 256],
    /// The code of the first float of each value of the top 16 bits.
    starts: Box<[u8; STEP_TOPS]>,
    /// The most steps inside one value of the top 16 bits.
    most: u8,
    /// Where `most` is 1, per value of the top 16 bits what the 16-lane
    /// kernels read in one lookup (`simd::step_codes`): its code in bits
    /// 0-7, whether a step lies inside it (above its first float) in bit
    /// 8, and that step's low 16 bits in bits 16-31.
    entries: Box<[u32; STEP_TOPS]>,
}

/// The bits of the least non-negative float at most `hi` (bits) whose
/// code under the non-decreasing conversion `code` is at least `k`
/// (bisection over the bit patterns, which order non-negative floats);
/// `hi` when none below it is.
pub(crate) fn least_with_code(code: impl Fn(f32) -> u8, k: u8, hi: u32) -> u32 {
    let (mut lo, mut hi) = (0u32, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if code(f32::from_bits(mid)) >= k {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

impl CodeSteps {
    fn of(code: impl Fn(f32) -> u8) -> CodeSteps {
        let mut steps = [u32::MAX; 256];
        for (i, step) in steps.iter_mut().take(255).enumerate() {
            *step = least_with_code(&code, i as u8 + 1, 1.0f32.to_bits());
        }
        let tops = STEP_TOPS;
        let mut starts = Box::new([0u8; STEP_TOPS]);
        for (top, start) in starts.iter_mut().enumerate() {
            *start = steps.partition_point(|&s| s <= (top as u32) << 16) as u8;
        }
        let most = (0..tops)
            .map(|top| {
                let end = if top + 1 < tops { starts[top + 1] } else { 255 };
                end - starts[top]
            })
            .max()
            .unwrap_or(0);
        let mut entries = Box::new([0u32; STEP_TOPS]);
        for (top, entry) in entries.iter_mut().enumerate() {
            let code = starts[top];
            let next = steps[code as usize];
            let inside = next >> 16 == top as u32;
            *entry = u32::from(code) | u32::from(inside) << 8 | (next & 0xffff) << 16;
        }
        CodeSteps {
            steps,
            starts,
            most,
            entries,
        }
    }
}

/// The sRGB encode ([`linear_to_srgb_curve`]) as steps.
static SRGB_STEPS: LazyLock<CodeSteps> = LazyLock::new(|| CodeSteps::of(linear_to_srgb_curve));

/// [`float_to_unorm`] of 8 bits in a form that vectorizes over lanes:
/// max and min with a NaN give the other operand (0), and adding 1.5·2^52
/// rounds the exact product (24 by 8 bits) to the nearest integer, ties to
/// even, into the low bits.
#[inline(always)]
fn unorm8_code(bits: u32) -> u32 {
    #[allow(clippy::manual_clamp)] // clamp keeps a NaN
    let f = f32::from_bits(bits).max(0.0).min(1.0);
    (f as f64 * 255.0 + crate::math::ROUND_MAGIC_F64).to_bits() as u32
}

/// The conversion of an RGBA8 render target's texels, chosen once per
/// target (the bytes of [`Format::encode_into`], and of
/// [`Format::encode_direct3d_into`], which agrees on these formats).
#[derive(Clone, Copy)]
pub struct Rgba8Encoder {
    /// The step table of sRGB targets (colour channels); None for UNORM
    /// (every channel of UNORM targets and alpha of sRGB ones by
    /// [`unorm8_code`]).
    srgb: Option<&'static CodeSteps>,
}

impl Rgba8Encoder {
    /// The encoder of `format`, when it is RGBA8 UNORM or sRGB.
    pub fn of(format: Format) -> Option<Rgba8Encoder> {
        match format {
            Format::Rgba8Unorm => Some(Rgba8Encoder { srgb: None }),
            Format::Rgba8Srgb => Some(Rgba8Encoder {
                srgb: Some(&SRGB_STEPS),
            }),
            _ => None,
        }
    }

    /// The texel of the float channels `v` (raw words).
    #[inline]
    pub fn encode(&self, v: [u32; 4]) -> [u8; 4] {
        let unorm = |w: u32| unorm8_code(w) as u8;
        match self.srgb {
            None => v.map(unorm),
            Some(t) => {
                let srgb = |w: u32| step_code(t, f32::from_bits(w));
                [srgb(v[0]), srgb(v[1]), srgb(v[2]), unorm(v[3])]
            }
        }
    }

    /// [`Self::encode`] of each of 16 lanes (`rows[c][l]`: channel c of lane
    /// l, raw words), channel by channel: the UNORM channels by
    /// `unorm8_code` over the lanes, the sRGB ones through the step table,
    /// then packed; where the CPU has AVX-512, the four rows in one call
    /// (`simd::srgb8_texels`: one table lookup per colour channel;
    /// `simd::unorm8_texels`).
    pub fn encode_lanes(&self, rows: &[[u32; 16]; 4]) -> [[u8; 4]; 16] {
        let mut words = [0u32; 16];
        let packed = match self.srgb {
            Some(t) => t.most == 1 && simd::srgb8_texels(rows, &t.entries, &mut words),
            None => simd::unorm8_texels(rows, &mut words),
        };
        if packed {
            return words.map(u32::to_le_bytes);
        }
        let mut codes = [[0u32; 16]; 4];
        for (c, (row, code)) in rows.iter().zip(&mut codes).enumerate() {
            match self.srgb {
                Some(t) if c < 3 => {
                    let gathered = t.most == 1 && simd::step_codes(row, &t.entries, code);
                    if !gathered {
                        for l in 0..16 {
                            code[l] = step_code(t, f32::from_bits(row[l])).into();
                        }
                    }
                }
                _ => {
                    for l in 0..16 {
                        code[l] = unorm8_code(row[l]);
                    }
                }
            }
        }
        std::array::from_fn(|l| {
            (codes[0][l] | codes[1][l] << 8 | codes[2][l] << 16 | codes[3][l] << 24).to_le_bytes()
        })
    }
}

/// An RGBA8 target's conversions on [`crate::tiles::Row16`] rows, for
/// code run through [`crate::tiles::wide`]: the bits of
/// [`Rgba8Encoder::decode_pairs`] and [`Rgba8Encoder::encode_lanes`].
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub struct Rgba8Rows {
    cpu: crate::tiles::Avx512,
    /// The sRGB decode table of the colour channels (None: UNORM).
    decode: Option<&'static [f32; 256]>,
    /// The sRGB step entries of the colour channels (None: UNORM).
    steps: Option<&'static [u32; STEP_TOPS]>,
}

#[cfg(target_arch = "x86_64")]
impl Rgba8Rows {
    /// The proof of AVX-512 the rows are made with.
    #[inline(always)]
    pub fn cpu(self) -> crate::tiles::Avx512 {
        self.cpu
    }

    /// [`Rgba8Encoder::decode_pairs`] into rows.
    #[inline(always)]
    pub fn decode_pairs(self, pairs: [&[u8; 8]; 8]) -> [crate::tiles::Row16; 4] {
        crate::tiles::Row16::rgba8_decode_pairs(self.cpu, pairs, self.decode)
    }

    /// [`Rgba8Encoder::encode_lanes`] of rows.
    #[inline(always)]
    pub fn encode(self, rows: [crate::tiles::Row16; 4]) -> crate::tiles::Texels16 {
        crate::tiles::Row16::rgba8_texels(rows, self.steps)
    }
}

impl Rgba8Encoder {
    /// This encoder's conversions on rows in registers, where the CPU has
    /// AVX-512 and (sRGB) its step table has at most one step in a value
    /// of the top bits (the one-lookup form); None otherwise.
    #[cfg(target_arch = "x86_64")]
    pub fn rows(&self) -> Option<Rgba8Rows> {
        let cpu = crate::tiles::Avx512::detect()?;
        let steps = match self.srgb {
            None => None,
            Some(t) if t.most == 1 => Some(&*t.entries),
            Some(_) => return None,
        };
        Some(Rgba8Rows {
            cpu,
            decode: self.srgb.map(|_| srgb_to_linear_table()),
            steps,
        })
    }
}

impl Rgba8Encoder {
    /// What [`Format::decode`] gives for each of 16 texels (`texels[l]`:
    /// the texel's 4 bytes as a little-endian word), as channel rows of
    /// floats: UNORM channels by a division over the lanes (the bits of the
    /// `UNORM8` table, made the same way), sRGB colour channels through
    /// [`srgb_to_linear`]'s table (by AVX-512 gathers where the CPU has
    /// them: `simd::rgba8_decode`).
    pub fn decode_lanes(&self, texels: &[u32; 16]) -> [[f32; 16]; 4] {
        let mut rows = [[0f32; 16]; 4];
        let table = self.srgb.map(|_| srgb_to_linear_table());
        if simd::rgba8_decode(texels, table, &mut rows) {
            return rows;
        }
        for (c, row) in rows.iter_mut().enumerate() {
            let byte = |l: usize| (texels[l] >> (8 * c)) & 0xff;
            if self.srgb.is_some() && c < 3 {
                let table = srgb_to_linear_table();
                for l in 0..16 {
                    row[l] = table[byte(l) as usize];
                }
            } else {
                for l in 0..16 {
                    row[l] = byte(l) as f32 / 255.0;
                }
            }
        }
        rows
    }

    /// [`Self::decode_lanes`] of four 2x2 quads' texels given as their rows
    /// of two texels (`pairs[2q]`: lanes 4q and 4q + 1, `pairs[2q + 1]`:
    /// lanes 4q + 2 and 4q + 3), read straight from the target's rows.
    pub fn decode_pairs(&self, pairs: [&[u8; 8]; 8]) -> [[f32; 16]; 4] {
        let mut rows = [[0f32; 16]; 4];
        let table = self.srgb.map(|_| srgb_to_linear_table());
        if simd::rgba8_decode_pairs(pairs, table, &mut rows) {
            return rows;
        }
        let texels: [u32; 16] = std::array::from_fn(|l| {
            let pair = pairs[l / 2];
            u32::from_le_bytes(std::array::from_fn(|i| pair[4 * (l & 1) + i]))
        });
        self.decode_lanes(&texels)
    }
}

/// What [`Format::encode_into`] writes for an RGBA16F texel (half floats,
/// round to nearest even, TGSI's rule), for each of 16 lanes at once
/// (`rows[c][l]`: channel c of lane l, raw words): the lanes' 64 values
/// converted as one slice (F16C where the CPU has it: the same bits).
pub fn rgba16f_encode_lanes(rows: &[[u32; 16]; 4]) -> [[u8; 8]; 16] {
    use half::slice::HalfFloatSliceExt;
    let mut texels = [[0u8; 8]; 16];
    if simd::rgba16f_encode(rows, &mut texels) {
        return texels;
    }
    let floats: [f32; 64] = std::array::from_fn(|i| f32::from_bits(rows[i % 4][i / 4]));
    let mut halves = [half::f16::ZERO; 64];
    halves.convert_from_f32_slice(&floats);
    std::array::from_fn(|l| {
        let h = |c: usize| halves[4 * l + c].to_bits().to_le_bytes();
        let [a, b, c, d] = [h(0), h(1), h(2), h(3)];
        [a[0], a[1], b[0], b[1], c[0], c[1], d[0], d[1]]
    })
}

/// What [`Format::decode`] gives for each of 16 RGBA16F texels, as channel
/// rows of floats (exact: every half is an f32).
pub fn rgba16f_decode_lanes(texels: &[[u8; 8]; 16]) -> [[f32; 16]; 4] {
    use half::slice::HalfFloatSliceExt;
    let mut rows = [[0f32; 16]; 4];
    if simd::rgba16f_decode(texels, &mut rows) {
        return rows;
    }
    let halves: [half::f16; 64] = std::array::from_fn(|i| {
        let t = &texels[i / 4];
        half::f16::from_bits(u16::from_le_bytes([t[2 * (i % 4)], t[2 * (i % 4) + 1]]))
    });
    let mut floats = [0f32; 64];
    halves.convert_to_f32_slice(&mut floats);
    std::array::from_fn(|c| std::array::from_fn(|l| floats[4 * l + c]))
}

/// [`rgba16f_decode_lanes`] of four 2x2 quads' texels given as their rows
/// of two texels (`pairs[2q]`: lanes 4q and 4q + 1, `pairs[2q + 1]`: lanes
/// 4q + 2 and 4q + 3), read straight from the target's rows.
pub fn rgba16f_decode_pairs(pairs: [&[u8; 16]; 8]) -> [[f32; 16]; 4] {
    let mut rows = [[0f32; 16]; 4];
    if simd::rgba16f_decode_pairs(pairs, &mut rows) {
        return rows;
    }
    let texels: [[u8; 8]; 16] =
        std::array::from_fn(|l| std::array::from_fn(|i| pairs[l / 2][8 * (l & 1) + i]));
    rgba16f_decode_lanes(&texels)
}

/// Float -> UNORM code of `bits` bits (D3D: NaN -> 0, clamp, scale, round to nearest even).
#[inline]
pub fn float_to_unorm(f: f32, bits: u32) -> u32 {
    let max = ((1u64 << bits) - 1) as f64;
    let f = if f.is_nan() {
        0.0
    } else {
        f.clamp(0.0, 1.0) as f64
    };
    rne(f * max) as u32
}

/// UNORM code -> float (exact quotient, rounded once to f32).
pub fn unorm_to_float(v: u32, bits: u32) -> f32 {
    let max = (1u64 << bits) - 1;
    if bits <= 16 {
        v as f32 / max as f32
    } else {
        (v as f64 / max as f64) as f32
    }
}

/// Float -> SNORM code of `bits` bits (two's complement in the low bits).
pub fn float_to_snorm(f: f32, bits: u32) -> u32 {
    let max = ((1u64 << (bits - 1)) - 1) as f64;
    let f = if f.is_nan() {
        0.0
    } else {
        f.clamp(-1.0, 1.0) as f64
    };
    let v = rne(f * max) as i64;
    (v as u64 & ((1u64 << bits) - 1)) as u32
}

/// SNORM code (low `bits` bits) -> float, clamped to -1 (D3D: the most negative code reads -1).
pub fn snorm_to_float(v: u32, bits: u32) -> f32 {
    let sh = 32 - bits;
    let s = ((v << sh) as i32) >> sh;
    let max = (1u64 << (bits - 1)) - 1;
    let f = if bits <= 16 {
        s as f32 / max as f32
    } else {
        (s as f64 / max as f64) as f32
    };
    f.max(-1.0)
}

/// Unsigned small float (5-bit exponent, `m` mantissa bits) -> f32.
pub fn small_float_to_f32(v: u32, m: u32) -> f32 {
    let e = (v >> m) & 31;
    let mant = v & ((1 << m) - 1);
    match e {
        0 => mant as f32 * f32::from_bits((127 - 14 - m) << 23),
        31 if mant == 0 => f32::INFINITY,
        31 => f32::NAN,
        _ => f32::from_bits(((e + 127 - 15) << 23) | (mant << (23 - m))),
    }
}

/// f32 -> unsigned small float (5-bit exponent, `m` mantissa bits): round
/// to nearest even; negative values and -0 give 0, NaN stays NaN, values
/// beyond the range round to infinity.
pub fn f32_to_small_float(f: f32, m: u32) -> u32 {
    small_float(f, m, false)
}

/// f32 -> unsigned small float under Direct3D's "Data conversion rules"
/// (a conversion to a narrower float format rounds toward zero; finite
/// values beyond the range become the largest finite value, 65024 for 6
/// mantissa bits, 64512 for 5); negative values and -0 give 0, NaN stays
/// NaN, +inf stays +inf.
pub fn f32_to_small_float_toward_zero(f: f32, m: u32) -> u32 {
    small_float(f, m, true)
}

fn small_float(f: f32, m: u32, toward_zero: bool) -> u32 {
    if f.is_nan() {
        return (31 << m) | (1 << (m - 1));
    }
    if f <= 0.0 {
        return 0;
    }
    if f.is_infinite() {
        return 31 << m;
    }
    if f < f32::from_bits((127 - 14) << 23) {
        // below the smallest normal: code = f * 2^(14+m) (exact in f64), rounded
        let scaled = f as f64 * (1u64 << (14 + m)) as f64;
        return if toward_zero {
            scaled.floor()
        } else {
            rne(scaled)
        } as u32;
    }
    let b = f.to_bits();
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let largest = (30 << m) | ((1 << m) - 1);
    if e >= 31 {
        return if toward_zero { largest } else { 31 << m };
    }
    let shift = 23 - m;
    let mant = b & 0x7f_ffff;
    let keep = mant >> shift;
    let code = ((e as u32) << m) + keep;
    if toward_zero {
        return code;
    }
    let rem = mant & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if rem > half || (rem == half && keep & 1 == 1) {
        code + 1
    } else {
        code
    }
}

/// UNORM8 code -> float: the exact quotient rounded once (as [`unorm_to_float`]).
pub(super) static UNORM8: [f32; 256] = {
    let mut t = [0f32; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i as f32 / 255.0;
        i += 1;
    }
    t
};

fn read_bits(bytes: &[u8], off: usize, nbytes: usize) -> u32 {
    match nbytes {
        1 => {
            if let Some(&b) = bytes.get(off) {
                return b as u32;
            }
        }
        2 => {
            if let Some(b) = bytes.get(off..off + 2) {
                return u16::from_le_bytes([b[0], b[1]]) as u32;
            }
        }
        4 => {
            if let Some(b) = bytes.get(off..off + 4) {
                return u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
        _ => {}
    }
    read_bits_slow(bytes, off, nbytes)
}

fn read_bits_slow(bytes: &[u8], off: usize, nbytes: usize) -> u32 {
    let mut w = [0u8; 4];
    for (i, b) in w.iter_mut().enumerate().take(nbytes) {
        *b = bytes.get(off + i).copied().unwrap_or(0);
    }
    u32::from_le_bytes(w)
}

fn write_bits(out: &mut [u8], off: usize, nbytes: usize, v: u32) {
    let w = v.to_le_bytes();
    for (i, b) in w.iter().enumerate().take(nbytes) {
        if let Some(o) = out.get_mut(off + i) {
            *o = *b;
        }
    }
}

const ONE_F: u32 = 0x3f80_0000;

impl Format {
    /// Looks a format up by short name (`rgba8`, `r32f`, ... also `d32f`/`d16`
    /// for the depth formats) or by its `PIPE_FORMAT_*` name (with or
    /// without the prefix), case-insensitively.
    pub fn from_short_name(s: &str) -> Option<Format> {
        let s = s.trim();
        let alias = match s.to_ascii_lowercase().as_str() {
            "d32f" | "d32_float" => Some(Format::Z32Float),
            "d16" | "d16_unorm" => Some(Format::Z16Unorm),
            "rgba8_unorm" => Some(Format::Rgba8Unorm),
            "bgra8_unorm" => Some(Format::Bgra8Unorm),
            _ => None,
        };
        if alias.is_some() {
            return alias;
        }
        Format::ALL.iter().copied().find(|f| {
            f.short_name().eq_ignore_ascii_case(s)
                || f.pipe_name().eq_ignore_ascii_case(s)
                || f.pipe_name()
                    .strip_prefix("PIPE_FORMAT_")
                    .is_some_and(|n| n.eq_ignore_ascii_case(s))
        })
    }

    /// The format of a Gallium `pipe_format` number, if the engine supports it.
    pub fn from_pipe(p: PipeFormat) -> Option<Format> {
        let name = p.name()?;
        Format::ALL.iter().copied().find(|f| f.pipe_name() == name)
    }

    /// The Gallium `pipe_format` number of this format.
    pub fn to_pipe(self) -> PipeFormat {
        PipeFormat::from_name(self.pipe_name()).unwrap_or(PipeFormat::NONE)
    }

    /// Bytes per texel.
    pub fn bytes_per_texel(self) -> usize {
        match self.layout() {
            Layout::Plain { bits, n, .. } => bits as usize / 8 * n as usize,
            Layout::Rgb10a2 { .. } | Layout::Rg11b10f | Layout::Z32f => 4,
            Layout::Z16 => 2,
        }
    }

    /// Number of channels stored.
    pub fn channels(self) -> usize {
        match self.layout() {
            Layout::Plain { n, .. } => n as usize,
            Layout::Rgb10a2 { .. } => 4,
            Layout::Rg11b10f => 3,
            Layout::Z32f | Layout::Z16 => 1,
        }
    }

    /// How the shader sees the values.
    pub fn num_class(self) -> NumClass {
        match self.layout() {
            Layout::Plain { kind, .. } => match kind {
                Kind::Unorm | Kind::Srgb => NumClass::Unorm,
                Kind::Snorm => NumClass::Snorm,
                Kind::Uint => NumClass::Uint,
                Kind::Sint => NumClass::Sint,
                Kind::Float => NumClass::Float,
            },
            Layout::Rgb10a2 { int: false } | Layout::Z16 => NumClass::Unorm,
            Layout::Rgb10a2 { int: true } => NumClass::Uint,
            Layout::Rg11b10f | Layout::Z32f => NumClass::Float,
        }
    }

    /// True for UINT/SINT formats (values are integer words, never filtered).
    pub fn is_integer(self) -> bool {
        matches!(self.num_class(), NumClass::Uint | NumClass::Sint)
    }

    /// True for the depth formats.
    pub fn is_depth(self) -> bool {
        matches!(self.layout(), Layout::Z32f | Layout::Z16)
    }

    /// True for the sRGB formats.
    pub fn is_srgb(self) -> bool {
        matches!(
            self.layout(),
            Layout::Plain {
                kind: Kind::Srgb,
                ..
            }
        )
    }

    /// The value of a missing channel `c` (0, 0, 0, 1).
    fn missing(self, c: usize) -> u32 {
        match (c, self.is_integer()) {
            (3, true) => 1,
            (3, false) => ONE_F,
            _ => 0,
        }
    }

    /// Decodes one texel (`bytes` shorter than a texel read as zero bytes).
    #[inline]
    pub fn decode(self, bytes: &[u8]) -> [u32; 4] {
        // fast paths for the most common layouts (same results as the general code)
        match self {
            Format::Rgba8Unorm => {
                if let Some(b) = bytes.get(..4) {
                    return [b[0], b[1], b[2], b[3]].map(|v| UNORM8[v as usize].to_bits());
                }
            }
            Format::Rgba8Srgb => {
                if let Some(b) = bytes.get(..4) {
                    let linear = |v: u8| srgb_to_linear(v).to_bits();
                    return [
                        linear(b[0]),
                        linear(b[1]),
                        linear(b[2]),
                        UNORM8[b[3] as usize].to_bits(),
                    ];
                }
            }
            Format::Rgba32Float | Format::Rgba32Uint | Format::Rgba32Sint => {
                if let Some(b) = bytes.get(..16) {
                    let w = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
                    return [w(0), w(4), w(8), w(12)];
                }
            }
            Format::Rgba16Float => {
                if let Some(b) = bytes.get(..8) {
                    let h = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
                    return [h(0), h(2), h(4), h(6)]
                        .map(|v| half::f16::from_bits(v).to_f32().to_bits());
                }
            }
            _ => {}
        }
        self.decode_general(bytes)
    }

    /// [`Self::decode`] without its fast paths (every layout).
    pub(super) fn decode_general(self, bytes: &[u8]) -> [u32; 4] {
        let mut out = [0, 0, 0, self.missing(3)];
        match self.layout() {
            Layout::Plain {
                kind,
                bits,
                n,
                bgra,
            } => {
                let nb = bits as usize / 8;
                for c in 0..n as usize {
                    let mem = if bgra && c < 3 { 2 - c } else { c };
                    let raw = read_bits(bytes, mem * nb, nb);
                    let b = bits as u32;
                    out[c] = match kind {
                        Kind::Unorm if b == 8 => UNORM8[raw as usize & 255].to_bits(),
                        Kind::Unorm => unorm_to_float(raw, b).to_bits(),
                        Kind::Srgb if c < 3 => srgb_to_linear(raw as u8).to_bits(),
                        Kind::Srgb => UNORM8[raw as usize & 255].to_bits(),
                        Kind::Snorm => snorm_to_float(raw, b).to_bits(),
                        Kind::Uint => raw,
                        Kind::Sint => {
                            let sh = 32 - b;
                            (((raw << sh) as i32) >> sh) as u32
                        }
                        Kind::Float if b == 16 => {
                            half::f16::from_bits(raw as u16).to_f32().to_bits()
                        }
                        Kind::Float => raw,
                    };
                }
            }
            Layout::Rgb10a2 { int } => {
                let w = read_bits(bytes, 0, 4);
                for (c, o) in out.iter_mut().enumerate() {
                    let (sh, b) = if c < 3 { (10 * c as u32, 10) } else { (30, 2) };
                    let raw = (w >> sh) & ((1 << b) - 1);
                    *o = if int {
                        raw
                    } else {
                        unorm_to_float(raw, b).to_bits()
                    };
                }
            }
            Layout::Rg11b10f => {
                let w = read_bits(bytes, 0, 4);
                out[0] = small_float_to_f32(w & 0x7ff, 6).to_bits();
                out[1] = small_float_to_f32((w >> 11) & 0x7ff, 6).to_bits();
                out[2] = small_float_to_f32(w >> 22, 5).to_bits();
            }
            Layout::Z32f => out[0] = read_bits(bytes, 0, 4),
            Layout::Z16 => out[0] = unorm_to_float(read_bits(bytes, 0, 2), 16).to_bits(),
        }
        out
    }

    /// Encodes one texel into `out` (at most `bytes_per_texel` bytes written;
    /// a shorter `out` is filled as far as it goes). Floats for float/norm
    /// formats, integers (saturated to the channel range) for integer formats.
    pub fn encode_into(self, v: [u32; 4], out: &mut [u8]) {
        // fast paths for the common render-target layouts (same bytes as the
        // general code below)
        match self {
            Format::Rgba8Unorm | Format::Rgba8Srgb => {
                if let (Some(e), Some(o)) = (Rgba8Encoder::of(self), out.get_mut(..4)) {
                    o.copy_from_slice(&e.encode(v));
                    return;
                }
            }
            Format::Rgba32Float | Format::Rgba32Uint | Format::Rgba32Sint => {
                if let Some(o) = out.get_mut(..16) {
                    for (c, w) in o.chunks_exact_mut(4).enumerate() {
                        w.copy_from_slice(&v[c].to_le_bytes());
                    }
                    return;
                }
            }
            Format::Rgba16Float => {
                if let Some(o) = out.get_mut(..8) {
                    for (c, h) in o.chunks_exact_mut(2).enumerate() {
                        let f = f32::from_bits(v[c]);
                        h.copy_from_slice(&half::f16::from_f32(f).to_bits().to_le_bytes());
                    }
                    return;
                }
            }
            _ => {}
        }
        self.encode_into_general(v, out);
    }

    /// [`Self::encode_into`] without its fast paths (every layout).
    pub(super) fn encode_into_general(self, v: [u32; 4], out: &mut [u8]) {
        let fl = |c: usize| f32::from_bits(v[c]);
        match self.layout() {
            Layout::Plain {
                kind,
                bits,
                n,
                bgra,
            } => {
                let nb = bits as usize / 8;
                let b = bits as u32;
                for c in 0..n as usize {
                    let mem = if bgra && c < 3 { 2 - c } else { c };
                    let raw = match kind {
                        Kind::Unorm => float_to_unorm(fl(c), b),
                        Kind::Srgb if c < 3 => linear_to_srgb(fl(c)) as u32,
                        Kind::Srgb => float_to_unorm(fl(c), 8),
                        Kind::Snorm => float_to_snorm(fl(c), b),
                        Kind::Uint if b < 32 => v[c].min((1 << b) - 1),
                        Kind::Uint => v[c],
                        Kind::Sint if b < 32 => {
                            let lim = 1i32 << (b - 1);
                            ((v[c] as i32).clamp(-lim, lim - 1) as u32) & ((1 << b) - 1)
                        }
                        Kind::Sint => v[c],
                        Kind::Float if b == 16 => half::f16::from_f32(fl(c)).to_bits() as u32,
                        Kind::Float => v[c],
                    };
                    write_bits(out, mem * nb, nb, raw);
                }
            }
            Layout::Rgb10a2 { int } => {
                let mut w = 0u32;
                for c in 0..4 {
                    let (sh, b) = if c < 3 { (10 * c as u32, 10) } else { (30, 2) };
                    let raw = if int {
                        v[c].min((1 << b) - 1)
                    } else {
                        float_to_unorm(fl(c), b)
                    };
                    w |= raw << sh;
                }
                write_bits(out, 0, 4, w);
            }
            Layout::Rg11b10f => {
                let w = f32_to_small_float(fl(0), 6)
                    | (f32_to_small_float(fl(1), 6) << 11)
                    | (f32_to_small_float(fl(2), 5) << 22);
                write_bits(out, 0, 4, w);
            }
            Layout::Z32f => write_bits(out, 0, 4, v[0]),
            Layout::Z16 => write_bits(out, 0, 2, float_to_unorm(fl(0), 16)),
        }
    }

    /// [`Format::encode_into`] under Direct3D's conversion rules where they
    /// differ from rounding to nearest: 16-bit float channels and the 11-
    /// and 10-bit floats of r11g11b10f round toward zero and saturate at
    /// their largest finite value ("Data conversion rules").
    pub fn encode_direct3d_into(self, v: [u32; 4], out: &mut [u8]) {
        match self.layout() {
            Layout::Plain {
                kind: Kind::Float,
                bits: 16,
                ..
            } => self.encode_into(
                v.map(crate::ground::half::f32_to_half_value_toward_zero),
                out,
            ),
            Layout::Rg11b10f => {
                let fl = |c: usize| f32::from_bits(v[c]);
                let w = f32_to_small_float_toward_zero(fl(0), 6)
                    | (f32_to_small_float_toward_zero(fl(1), 6) << 11)
                    | (f32_to_small_float_toward_zero(fl(2), 5) << 22);
                write_bits(out, 0, 4, w);
            }
            _ => self.encode_into(v, out),
        }
    }

    /// Encodes one texel into a new vector of `bytes_per_texel` bytes.    /// Encodes one texel into a new vector of `bytes_per_texel` bytes.
    pub fn encode(self, v: [u32; 4]) -> Vec<u8> {
        let mut out = vec![0u8; self.bytes_per_texel()];
        self.encode_into(v, &mut out);
        out
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.short_name())
    }
}
