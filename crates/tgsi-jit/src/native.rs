//! Every `unsafe` block of the compiled engine, behind a safe API: the
//! executable buffer (mapped writable, filled, then made executable and never
//! writable again: W^X), the call of the generated function, and the
//! `extern "C"` entry points the generated code calls (one instruction run by
//! the interpreter's handler, the transcendental row kernels).
//!
//! The ABI between Rust and the generated code is [`Ctx`] (`#[repr(C)]`,
//! offsets in [`off`]) and two functions, `extern "C" fn(*mut Ctx, u64) -> u32`.

use super::Compiled;
use std::cell::RefCell;
use std::panic::AssertUnwindSafe;
use std::ptr::NonNull;
use tgsi_exec::ExecError;
use tgsi_exec::decode::{Code, MAX_DEPTH};
use tgsi_exec::machine::{Batch, Env, Mask, Stop, mask_row};
use tgsi_exec::texture::exec::MAX_INLINE_LEVELS;

/// Most distinct direct constant words one program reads inline.
pub(super) const MAX_CONSTS: usize = 256;
/// Buffers LOAD/STORE reach inline (`BUFFER[0..MAX_BUFFERS]`).
pub(super) const MAX_BUFFERS: usize = 16;
/// Constant buffers an indirect slot reads inline (`CONST[0..MAX_CONST_BUFS]`).
pub(super) const MAX_CONST_BUFS: usize = 16;
/// Texture instructions one program samples inline ([`Ctx::tex`]).
pub(super) const MAX_TEX: usize = 8;
/// The entry of [`Ctx::buffers`] after the buffers: the work group's shared
/// memory (`MEMORY[n], SHARED`), which LOAD/STORE reach inline the same way.
pub(super) const SHARED_SLOT: u32 = MAX_BUFFERS as u32;

type Row = [u32; 16];

/// Index of each mask in [`Ctx::masks`].
pub(super) mod mask {
    pub const ALIVE: i32 = 0;
    pub const COND: i32 = 1;
    pub const LOOP: i32 = 2;
    pub const CONT: i32 = 3;
    pub const SWITCH: i32 = 4;
    pub const FUNC: i32 = 5;
    pub const EXEC: i32 = 6;
    /// Every mask, in [`super::Ctx::masks`] order.
    pub const ALL: [i32; 7] = [ALIVE, COND, LOOP, CONT, SWITCH, FUNC, EXEC];
}

/// Index of each word of [`Ctx::pool`] (constants the templates broadcast).
pub(super) mod pool {
    pub const ABS: i32 = 0;
    pub const SIGN: i32 = 1;
    pub const ONE: i32 = 2;
    pub const ZERO: i32 = 3;
    pub const MASK31: i32 = 4;
    pub const MASK63: i32 = 5;
    /// 64-bit constants start at even words.
    pub const D_ONE: i32 = 6;
    pub const D_ABS: i32 = 8;
    pub const D_SIGN: i32 = 10;
    pub const D_ZERO: i32 = 12;
    /// 64-bit masks keeping the high / low word of a lane.
    pub const KEEP_HIGH: i32 = 14;
    pub const KEEP_LOW: i32 = 16;
    /// 3, and the byte offsets of channels y, z, w.
    pub const MASK3: i32 = 18;
    pub const FOUR: i32 = 19;
    pub const EIGHT: i32 = 20;
    pub const TWELVE: i32 = 21;
    /// 1, 2, 3, 4 (word gaps).
    pub const INT1: i32 = 22;
    /// The constants of SIN/COS's inline template (`math::trig_near`), in
    /// the order of [`super::trig_pool`].
    pub const TRIG: i32 = 26;
    /// Offsets from [`TRIG`]: the magic number (COS: the next word), 2/π,
    /// P1, 2·D1, 2·D2, −0.5, 2, the sine and the cosine coefficients (three
    /// each, from t⁰ up), the path's limit.
    pub mod trig {
        pub const MAGIC: i32 = 0;
        pub const TWO_OVER_PI: i32 = 2;
        pub const P1: i32 = 3;
        pub const TWO_D1: i32 = 4;
        pub const TWO_D2: i32 = 5;
        pub const NEG_HALF: i32 = 6;
        pub const TWO: i32 = 7;
        pub const SIN_COEF: i32 = 8;
        pub const COS_COEF: i32 = 11;
        pub const LIMIT: i32 = 14;
        /// Words in all.
        pub const LEN: usize = 15;
    }
    /// The float32 exponent field (0x7f800000).
    pub const EXP: i32 = TRIG + trig::LEN as i32;
    /// -1.0f32, 2^31 as f32, the default NaN, the float32 quiet bit, 0xAAAA
    /// (the odd lanes' mask).
    pub const MINUS_ONE: i32 = EXP + 1;
    pub const TWO_31: i32 = EXP + 2;
    pub const DEFAULT_NAN: i32 = EXP + 3;
    pub const QUIET: i32 = EXP + 4;
    pub const ODD_LANES: i32 = EXP + 5;
    /// 2^31, -1 and 2^63 as doubles (D2I's, D2U's and D2I64's ranges).
    pub const D_TWO_31: i32 = (ODD_LANES + 2) & !1;
    pub const D_MINUS_ONE: i32 = D_TWO_31 + 2;
    pub const D_TWO_63: i32 = D_MINUS_ONE + 2;
    /// 2^63 as a float (F2I64's range).
    pub const TWO_63: i32 = D_TWO_63 + 2;
    /// POPC's and BREV's masks: 0x55555555, 0x33333333, 0x0F0F0F0F,
    /// 0x01010101, 0x00FF00FF.
    pub const BIT_MASKS: i32 = TWO_63 + 1;
    /// 32 (the bit-field extractions' shifts).
    pub const THIRTY_TWO: i32 = BIT_MASKS + 5;
    /// Two words of all ones (-1 as a word and as a 64-bit lane).
    pub const ALL_ONES: i32 = (THIRTY_TWO + 2) & !1;
    /// The constants of EX2's, LG2's and POW's inline templates
    /// (`math::ex2_plain`, `log2_normal`, `pow_plain`), in the order of
    /// [`super::exp_log_pool`]; 64-bit ones from [`exp_log::F64`] on.
    pub const EXP_LOG: i32 = ALL_ONES + 2;
    pub mod exp_log {
        /// f32: ln 2 (high, low), EX2's five coefficients, its short
        /// form's range (low, high), 2/ln 2 (high, low), LG2's three
        /// coefficients, √½'s bits, 0.5, -0.5, 1.5·2^23, LIT's range.
        pub const LN2_HI: i32 = 0;
        pub const LN2_LO: i32 = 1;
        pub const EX2_COEF: i32 = 2;
        pub const EX2_LOW: i32 = 7;
        pub const EX2_HIGH: i32 = 8;
        pub const TWO_OVER_LN2_HI: i32 = 9;
        pub const TWO_OVER_LN2_LO: i32 = 10;
        pub const LG2_COEF: i32 = 11;
        pub const SQRT_HALF: i32 = 14;
        pub const HALF: i32 = 15;
        pub const NEG_HALF: i32 = 16;
        pub const MAGIC: i32 = 17;
        /// LIT's exponent range: 128, −128.
        pub const LIT_HIGH: i32 = 18;
        pub const LIT_LOW: i32 = 19;
        /// POW's largest exponent taken by squaring (64).
        pub const SQUARING_MAX: i32 = 20;
        /// f64 (two words each): POW's exp2 coefficients (six) and log2
        /// coefficients (four), 2/ln 2, √½'s bits, −1000, 1000, −∞.
        pub const F64: i32 = 22;
        pub const D_EXP2_COEF: i32 = F64;
        pub const D_LOG2_COEF: i32 = F64 + 12;
        pub const D_TWO_OVER_LN2: i32 = F64 + 20;
        pub const D_SQRT_HALF: i32 = F64 + 22;
        pub const D_LOW: i32 = F64 + 24;
        pub const D_HIGH: i32 = F64 + 26;
        pub const D_NEG_INF: i32 = F64 + 28;
        /// Words in all.
        pub const LEN: usize = (F64 + 30) as usize;
    }
    /// The lane numbers 0..16, a whole row (indirect register operands).
    pub const LANE_NUMBERS: i32 = (EXP_LOG + exp_log::LEN as i32 + 15) & !15;
    /// Words in the pool.
    pub const LEN: usize = LANE_NUMBERS as usize + 16;
}

/// The words at [`pool::EXP_LOG`], in the order of [`pool::exp_log`]'s offsets.
pub(super) fn exp_log_pool() -> [u32; pool::exp_log::LEN] {
    use tgsi_exec::math as m;
    let mut words = [0u32; pool::exp_log::LEN];
    let f32s = [
        [m::LN2_HI, m::LN2_LO].as_slice(),
        &m::EX2_COEF,
        &[m::EX2_PLAIN_RANGE.0, m::EX2_PLAIN_RANGE.1],
        &[m::TWO_OVER_LN2_HI, m::TWO_OVER_LN2_LO],
        &m::LG2_COEF,
        &[f32::from_bits(m::SQRT_HALF_BITS), 0.5, -0.5, m::ROUND_MAGIC],
        &[
            tgsi_exec::ops::LIT_EXPONENT_LIMIT,
            -tgsi_exec::ops::LIT_EXPONENT_LIMIT,
        ],
        &[m::POW_SQUARING_MAX],
    ]
    .concat();
    for (w, v) in words.iter_mut().zip(&f32s) {
        *w = v.to_bits();
    }
    let f64s: Vec<u64> = [
        m::POW_EXP2_COEF.as_slice(),
        &m::POW_LOG2_COEF,
        &[m::TWO_OVER_LN2_F64],
    ]
    .concat()
    .into_iter()
    .map(f64::to_bits)
    .chain([m::SQRT_HALF_BITS_F64])
    .chain([-m::POW_EXP2_LIMIT, m::POW_EXP2_LIMIT, f64::NEG_INFINITY].map(f64::to_bits))
    .collect();
    for (k, v) in f64s.into_iter().enumerate() {
        let at = pool::exp_log::F64 as usize + 2 * k;
        words[at] = v as u32;
        words[at + 1] = (v >> 32) as u32;
    }
    words
}

/// The words at [`pool::TRIG`], in the order of [`pool::trig`]'s offsets.
pub(super) fn trig_pool() -> [u32; pool::trig::LEN] {
    use tgsi_exec::math as m;
    let [s0, s1, s2] = m::SIN_NEAR_COEF2;
    let [c0, c1, c2] = m::COS_NEAR_COEF_NEG2;
    [
        m::ROUND_MAGIC,
        m::ROUND_MAGIC + 1.0,
        m::TWO_OVER_PI,
        m::HALF_PI_DOWN,
        m::TWO_D1,
        m::TWO_D2,
        -0.5,
        2.0,
        s0,
        s1,
        s2,
        c0,
        c1,
        c2,
        m::TRIG_NEAR_LIMIT,
    ]
    .map(f32::to_bits)
}

/// What the generated code works on (one per thread, reused by every batch).
#[repr(C, align(64))]
pub(super) struct Ctx {
    /// Permutations: 32-bit rows → 64-bit lanes (low 8 lanes, high 8), and back (even, odd words).
    pub perm: [Row; 4],
    /// Rows passed to and from the row kernels.
    pub scratch: [Row; 3],
    /// A mipmapped sample's next level's weights, its first level's
    /// channels and its coordinates s and t (its blended lanes:
    /// [`Ctx::tex_blend`]), and a 2D array's layer of each lane.
    pub tex_rows: [Row; 8],
    /// An RGBA32F bilinear lookup's four taps' texel indices (in 64-bit
    /// words), read back lane by lane.
    pub tap_index: [Row; 4],
    /// SWITCH selector rows, by static nesting depth.
    pub selectors: [Row; MAX_DEPTH],
    /// The batch register file (`Batch::regs`).
    pub regs: *mut u32,
    pub executed: u64,
    pub max: u64,
    /// `const_vals` (the program's direct constant words for this run).
    pub consts: *const u32,
    /// The run's [`Host`].
    pub host: *mut std::ffi::c_void,
    /// Budget exhausted: the segment's first instruction and length.
    pub seg_start: u32,
    pub seg_len: u32,
    /// In: the instruction a batch stopped at a BARRIER resumes at (0: a
    /// fresh batch). Out, with status 3: where the stopped batch resumes.
    pub resume: u32,
    pub masks: [u32; 8],
    pub pool: [u32; pool::LEN],
    /// Per buffer, then for the shared memory ([`SHARED_SLOT`]): its words'
    /// address, then the last byte address a whole word may start at (low
    /// half) and 1 when inline access is allowed (high half).
    pub buffers: [[u64; 2]; MAX_BUFFERS + 1],
    /// Control-flow frames, by static nesting depth (4 words each).
    pub frames: [[u32; 4]; MAX_DEPTH],
    /// Per constant buffer read with an indirect slot: its words' address,
    /// then per channel c the slots whose word c is inside the buffer
    /// (filled by [`run`] only for programs that read so).
    pub const_bufs: [ConstBuf; MAX_CONST_BUFS],
    pub const_vals: [u32; MAX_CONSTS],
    /// Per texture instruction sampled inline, its level under this run's
    /// bindings (filled with the constants).
    pub tex: [TexEntry; MAX_TEX],
    /// The compilation and environment stamp `const_vals`, `const_bufs`
    /// and the buffer entries were filled for ((0, 0): none yet).
    filled: (u64, u64),
    /// The lanes of a mipmapped sample that blend two levels.
    pub tex_blend: u32,
}

#[cfg(test)]
thread_local! {
    /// How many instructions this thread's compiled code handed to the
    /// interpreter one at a time ([`step_callback`]): what the tests of
    /// the inline paths count.
    pub(super) static HANDLER_STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// An id no compilation had before (never 0).
pub(super) fn next_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A constant buffer as indirect slots read it ([`Ctx::const_bufs`]).
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct ConstBuf {
    pub words: *const u32,
    /// Slots s with `4 s + c` below the buffer's length, per channel c.
    pub slots: [u32; 4],
}

impl ConstBuf {
    const EMPTY: ConstBuf = ConstBuf {
        words: std::ptr::null(),
        slots: [0; 4],
    };

    fn of(words: &[u32]) -> ConstBuf {
        // below 2^29 slots every word index fits a gather's signed index
        let len = words.len().min(1 << 31) as u32;
        ConstBuf {
            words: words.as_ptr(),
            slots: std::array::from_fn(|c| len.saturating_sub(c as u32).div_ceil(4).min(1 << 29)),
        }
    }
}

/// A texture instruction sampled inline: the bilinear kernel's levels
/// ([`tgsi_exec::texture::exec::InlineBilinear`]) as the generated code
/// reads them, how a batch picks its level, and the constants its template
/// broadcasts. `levels[0].texels` 0: the instruction runs by the
/// interpreter's handler.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(super) struct TexEntry {
    /// The sRGB decode table (0: UNORM8 or RGBA32F).
    pub srgb: u64,
    /// 1: the texels are RGBA32F (16 bytes), else RGBA8.
    pub float: u32,
    /// 1: the min and mag filters are NEAREST (one texel), else LINEAR.
    pub nearest: u32,
    /// 1: an axis wraps by a mirror or a remainder ([`TexLevel::fold`],
    /// `mirror_top`, `modulus`).
    pub mirror: u32,
    /// 1: NEAREST filters, RGBA32F texels or a mirror or remainder: the levels are read
    /// by the template's general lookup, out of the common path.
    pub general: u32,
    /// `single_level` and `magnify` for the common path (0 for a
    /// `general` entry, whose batches all go to the cold code).
    pub plain_single: u32,
    pub plain_magnify: u32,
    /// 1: every LOD reads level 0 (no magnification test).
    pub single_level: u32,
    /// 1: a batch whose quads are all magnified reads level 0.
    pub magnify: u32,
    /// How other batches pick their levels: 0 by the handler, 1 mip
    /// LINEAR, 2 mip NEAREST ([`tgsi_exec::texture::exec::InlineLods`]).
    pub mip: u32,
    /// A 2D array's layer count (0: not an array) and its last layer (as
    /// f32).
    pub layers: u32,
    pub layer_top: f32,
    /// The last level (as f32), the sampler's bias and LOD range.
    pub last_level: f32,
    pub bias: f32,
    pub min_lod: f32,
    pub max_lod: f32,
    /// 2^24 and −2^24 (the coordinate clamp), 0.5, 1.0, 1/255, 255, 0xff.
    pub limit: [f32; 2],
    pub half: f32,
    pub one: f32,
    pub rcp255: f32,
    pub c255: f32,
    pub byte: u32,
    /// The words of `log2f` ([`log2f_words`]).
    pub log2f: [u32; LOG2F_WORDS],
    /// 1: the result channels are not the filtered r, g, b, a in order;
    /// then result channel c is the row at byte `select[c]` of the
    /// context's `tex_rows` (the filtered rows, then 0.0, then 1.0:
    /// `InlineBilinear::select` times 64).
    pub swizzled: u32,
    pub select: [u32; 4],
    pub levels: [TexLevel; MAX_INLINE_LEVELS],
}

/// One level of a [`TexEntry`] as the bilinear template reads it.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(super) struct TexLevel {
    /// The level's first texel.
    pub texels: u64,
    /// The last texel's index, the row pitch in texels, the slice's first
    /// row, the rows of a layer.
    pub top: u32,
    pub width: u32,
    pub slice_rows: u32,
    pub height: u32,
    /// The coordinates' scale on s and t.
    pub scale: [f32; 2],
    /// Per axis, how a texel index i wraps: `i & wrap_and`, then `i ^ (i
    /// >> 31)` where `fold` is all ones (MIRROR_CLAMP_TO_EDGE's mirror of a
    /// negative index), clamped to `[0, last]`, then the unsigned minimum of
    /// i and `mirror_top − i` (MIRROR_REPEAT's second half). REPEAT on a
    /// power of two: `n − 1`, 0, `n − 1`, all ones; CLAMP: all ones, 0,
    /// `n − 1`, all ones; MIRROR_REPEAT on a power of two: `2n − 1`, 0,
    /// `2n − 1`, `2n − 1`; MIRROR_CLAMP_TO_EDGE: all ones, all ones,
    /// `n − 1`, all ones. REPEAT and MIRROR_REPEAT on other sizes take the
    /// index's remainder (`rem_euclid`) of `modulus` first (n, or 2n for
    /// MIRROR_REPEAT; 0: none), then all ones, 0, `n − 1`, all ones and
    /// all ones, 0, `2n − 1`, `2n − 1`.
    pub wrap_and: [u32; 2],
    pub fold: [u32; 2],
    pub last: [u32; 2],
    pub mirror_top: [u32; 2],
    pub modulus: [u32; 2],
}

impl TexLevel {
    fn of(k: &tgsi_exec::texture::exec::InlineLevel<'_>) -> TexLevel {
        use tgsi_exec::texture::exec::{AxisWrap, InlineWrap};
        // per axis: the mask, the fold, the clamp's top, the mirror's top,
        // the modulus
        let axis = |a: usize| {
            let n = k.size[a];
            let (last, period) = (n - 1, 2 * n - 1);
            match k.wrap[a] {
                InlineWrap::Kernel(AxisWrap::RepeatPow2) => (last, 0, last, u32::MAX, 0),
                InlineWrap::Kernel(AxisWrap::Clamp) => (u32::MAX, 0, last, u32::MAX, 0),
                InlineWrap::MirrorRepeatPow2 => (period, 0, period, period, 0),
                InlineWrap::MirrorClampToEdge => (u32::MAX, u32::MAX, last, u32::MAX, 0),
                InlineWrap::RepeatAny => (u32::MAX, 0, last, u32::MAX, n),
                InlineWrap::MirrorRepeatAny => (u32::MAX, 0, period, period, 2 * n),
            }
        };
        let (x, y) = (axis(0), axis(1));
        TexLevel {
            texels: k.texels.as_ptr() as u64,
            top: (k.texels.len() / k.texel_bytes as usize - 1) as u32,
            width: k.size[0],
            slice_rows: k.slice_rows,
            height: k.size[1],
            scale: k.scale,
            wrap_and: [x.0, y.0],
            fold: [x.1, y.1],
            last: [x.2, y.2],
            mirror_top: [x.3, y.3],
            modulus: [x.4, y.4],
        }
    }

    /// Whether an axis wraps by a mirror or a remainder (the template's
    /// extra steps).
    fn mirrors(&self) -> bool {
        self.fold != [0; 2] || self.mirror_top != [u32::MAX; 2] || self.modulus != [0; 2]
    }
}

/// How many words [`log2f_words`] has.
pub(super) const LOG2F_WORDS: usize = 16;

/// What the LOD template broadcasts for `libm::log2f`'s steps (the
/// constants `tgsi_exec::texture::sample` defines for its own copy of
/// them), by index ([`log2f`]).
fn log2f_words() -> [u32; LOG2F_WORDS] {
    use tgsi_exec::texture::sample as s;
    let mut w = [0u32; LOG2F_WORDS];
    w[log2f::MIN_NORMAL] = 0x0080_0000;
    w[log2f::NORMAL_SPAN] = 0x7f80_0000 - 0x0080_0000;
    w[log2f::REDUCE] = 0x3f80_0000 - s::LOG2F_SQRT_HALF_BITS;
    w[log2f::BIAS] = 0x7f;
    w[log2f::MANTISSA] = 0x007f_ffff;
    w[log2f::SQRT_HALF] = s::LOG2F_SQRT_HALF_BITS;
    w[log2f::TWO] = 2.0f32.to_bits();
    w[log2f::HI_MASK] = 0xffff_f000;
    w[log2f::IVLN2_HI] = s::LOG2F_IVLN2_HI.to_bits();
    w[log2f::IVLN2_LO] = s::LOG2F_IVLN2_LO.to_bits();
    for (k, c) in s::LOG2F_LG.iter().enumerate() {
        w[log2f::LG + k] = c.to_bits();
    }
    w[log2f::NEG_INF] = f32::NEG_INFINITY.to_bits();
    w
}

/// Indices into [`TexEntry::log2f`].
pub(super) mod log2f {
    pub const MIN_NORMAL: usize = 0;
    pub const NORMAL_SPAN: usize = 1;
    pub const REDUCE: usize = 2;
    pub const BIAS: usize = 3;
    pub const MANTISSA: usize = 4;
    pub const SQRT_HALF: usize = 5;
    pub const TWO: usize = 6;
    pub const HI_MASK: usize = 7;
    pub const IVLN2_HI: usize = 8;
    pub const IVLN2_LO: usize = 9;
    /// LG1..LG4 at 10..14.
    pub const LG: usize = 10;
    pub const NEG_INF: usize = 14;
}

impl TexEntry {
    pub(super) fn of(b: Option<tgsi_exec::texture::exec::InlineBilinear<'_>>) -> TexEntry {
        let Some(b) = b else {
            return TexEntry::default();
        };
        let mut levels = [TexLevel::default(); MAX_INLINE_LEVELS];
        levels[0] = TexLevel::of(&b.first);
        let mut mirror = levels[0].mirrors();
        let (mut mip, mut last_level, mut bias, mut min_lod, mut max_lod) = (0, 0.0, 0.0, 0.0, 0.0);
        if let Some(l) = &b.lods {
            for (out, k) in levels.iter_mut().zip(&l.levels).take(l.count as usize) {
                *out = TexLevel::of(k);
            }
            mirror |= levels[..l.count as usize].iter().any(TexLevel::mirrors);
            mip = if l.nearest { 2 } else { 1 };
            last_level = (l.count - 1) as f32;
            (bias, min_lod, max_lod) = (l.bias, l.min_lod, l.max_lod);
        }
        let float = b.first.is_float();
        let general = b.nearest || float || mirror;
        TexEntry {
            srgb: b.srgb.map_or(0, |t| t.as_ptr() as u64),
            float: float as u32,
            nearest: b.nearest as u32,
            mirror: mirror as u32,
            general: general as u32,
            plain_single: (b.single_level && !general) as u32,
            plain_magnify: (b.may_magnify && !general) as u32,
            single_level: b.single_level as u32,
            magnify: b.may_magnify as u32,
            mip,
            layers: b.layers,
            layer_top: b.layers.saturating_sub(1) as f32,
            last_level,
            bias,
            min_lod,
            max_lod,
            limit: [16_777_216.0, -16_777_216.0],
            half: 0.5,
            one: 1.0,
            rcp255: 1.0 / 255.0,
            c255: 255.0,
            byte: 0xff,
            log2f: log2f_words(),
            swizzled: (b.select != [0, 1, 2, 3]) as u32,
            select: b.select.map(|k| 64 * k as u32),
            levels,
        }
    }
}

/// Byte offsets of the [`Ctx`] fields the generated code addresses.
pub(super) mod off {
    use super::Ctx;
    use std::mem::offset_of;
    pub const PERM: i32 = offset_of!(Ctx, perm) as i32;
    pub const SCRATCH: i32 = offset_of!(Ctx, scratch) as i32;
    pub const TEX_ROWS: i32 = offset_of!(Ctx, tex_rows) as i32;
    pub const TAP_INDEX: i32 = offset_of!(Ctx, tap_index) as i32;
    pub const TEX_BLEND: i32 = offset_of!(Ctx, tex_blend) as i32;
    pub const SELECTORS: i32 = offset_of!(Ctx, selectors) as i32;
    pub const REGS: i32 = offset_of!(Ctx, regs) as i32;
    pub const EXECUTED: i32 = offset_of!(Ctx, executed) as i32;
    pub const MAX: i32 = offset_of!(Ctx, max) as i32;
    pub const CONSTS: i32 = offset_of!(Ctx, consts) as i32;
    pub const SEG_START: i32 = offset_of!(Ctx, seg_start) as i32;
    pub const SEG_LEN: i32 = offset_of!(Ctx, seg_len) as i32;
    pub const RESUME: i32 = offset_of!(Ctx, resume) as i32;
    pub const MASKS: i32 = offset_of!(Ctx, masks) as i32;
    pub const POOL: i32 = offset_of!(Ctx, pool) as i32;
    pub const FRAMES: i32 = offset_of!(Ctx, frames) as i32;
    pub const BUFFERS: i32 = offset_of!(Ctx, buffers) as i32;
    pub const CONST_BUFS: i32 = offset_of!(Ctx, const_bufs) as i32;
    /// Bytes per [`super::ConstBuf`], and where its slot counts start.
    pub const CONST_BUF_SIZE: i32 = std::mem::size_of::<super::ConstBuf>() as i32;
    pub const CONST_BUF_SLOTS: i32 = std::mem::offset_of!(super::ConstBuf, slots) as i32;
    pub const TEX: i32 = offset_of!(Ctx, tex) as i32;
    /// Bytes per [`super::TexEntry`], and the offsets of its fields.
    pub const TEX_SIZE: i32 = std::mem::size_of::<super::TexEntry>() as i32;
    pub mod tex {
        use super::super::{TexEntry, TexLevel};
        use std::mem::offset_of;
        pub const SRGB: i32 = offset_of!(TexEntry, srgb) as i32;
        pub const FLOAT: i32 = offset_of!(TexEntry, float) as i32;
        pub const NEAREST: i32 = offset_of!(TexEntry, nearest) as i32;
        pub const MIRROR: i32 = offset_of!(TexEntry, mirror) as i32;
        pub const GENERAL: i32 = offset_of!(TexEntry, general) as i32;
        pub const PLAIN_SINGLE: i32 = offset_of!(TexEntry, plain_single) as i32;
        pub const PLAIN_MAGNIFY: i32 = offset_of!(TexEntry, plain_magnify) as i32;
        pub const SINGLE_LEVEL: i32 = offset_of!(TexEntry, single_level) as i32;
        pub const MAGNIFY: i32 = offset_of!(TexEntry, magnify) as i32;
        pub const MIP: i32 = offset_of!(TexEntry, mip) as i32;
        pub const LAYERS: i32 = offset_of!(TexEntry, layers) as i32;
        pub const LAYER_TOP: i32 = offset_of!(TexEntry, layer_top) as i32;
        pub const LAST_LEVEL: i32 = offset_of!(TexEntry, last_level) as i32;
        pub const BIAS: i32 = offset_of!(TexEntry, bias) as i32;
        pub const MIN_LOD: i32 = offset_of!(TexEntry, min_lod) as i32;
        pub const MAX_LOD: i32 = offset_of!(TexEntry, max_lod) as i32;
        pub const LIMIT: i32 = offset_of!(TexEntry, limit) as i32;
        pub const HALF: i32 = offset_of!(TexEntry, half) as i32;
        pub const ONE: i32 = offset_of!(TexEntry, one) as i32;
        pub const RCP255: i32 = offset_of!(TexEntry, rcp255) as i32;
        pub const C255: i32 = offset_of!(TexEntry, c255) as i32;
        pub const BYTE: i32 = offset_of!(TexEntry, byte) as i32;
        pub const LOG2F: i32 = offset_of!(TexEntry, log2f) as i32;
        pub const SWIZZLED: i32 = offset_of!(TexEntry, swizzled) as i32;
        pub const SELECT: i32 = offset_of!(TexEntry, select) as i32;
        pub const LEVELS: i32 = offset_of!(TexEntry, levels) as i32;
        /// Bytes per [`TexLevel`], and the offsets of its fields.
        pub const LEVEL_SIZE: i32 = std::mem::size_of::<TexLevel>() as i32;
        pub const TEXELS: i32 = offset_of!(TexLevel, texels) as i32;
        pub const TOP: i32 = offset_of!(TexLevel, top) as i32;
        pub const WIDTH: i32 = offset_of!(TexLevel, width) as i32;
        pub const SLICE_ROWS: i32 = offset_of!(TexLevel, slice_rows) as i32;
        pub const HEIGHT: i32 = offset_of!(TexLevel, height) as i32;
        pub const SCALE: i32 = offset_of!(TexLevel, scale) as i32;
        pub const WRAP_AND: i32 = offset_of!(TexLevel, wrap_and) as i32;
        pub const LAST: i32 = offset_of!(TexLevel, last) as i32;
        pub const FOLD: i32 = offset_of!(TexLevel, fold) as i32;
        pub const MIRROR_TOP: i32 = offset_of!(TexLevel, mirror_top) as i32;
        pub const MODULUS: i32 = offset_of!(TexLevel, modulus) as i32;
    }
}

impl Ctx {
    fn new_boxed() -> Box<Ctx> {
        let mut pool = [0u32; pool::LEN];
        let trig = trig_pool();
        pool[pool::TRIG as usize..][..trig.len()].copy_from_slice(&trig);
        for l in 0..16 {
            pool[pool::LANE_NUMBERS as usize + l] = l as u32;
        }
        let exp_log = exp_log_pool();
        pool[pool::EXP_LOG as usize..][..exp_log.len()].copy_from_slice(&exp_log);
        let mut put = |i: i32, v: u32| pool[i as usize] = v;
        put(pool::ABS, 0x7fff_ffff);
        put(pool::SIGN, 0x8000_0000);
        put(pool::EXP, 0x7f80_0000);
        put(pool::MINUS_ONE, (-1.0f32).to_bits());
        put(pool::TWO_31, 2147483648.0f32.to_bits());
        put(pool::DEFAULT_NAN, tgsi_exec::ops::DEFAULT_NAN_F32);
        put(pool::QUIET, 0x0040_0000);
        put(pool::ODD_LANES, 0xaaaa);
        put(pool::ONE, 1.0f32.to_bits());
        put(pool::ZERO, 0);
        put(pool::MASK31, 31);
        put(pool::MASK63, 63);
        put(pool::MASK3, 3);
        put(pool::FOUR, 4);
        put(pool::EIGHT, 8);
        put(pool::TWELVE, 12);
        for k in 0..4 {
            put(pool::INT1 + k, k as u32 + 1);
        }
        let mut put64 = |i: i32, v: u64| {
            pool[i as usize] = v as u32;
            pool[i as usize + 1] = (v >> 32) as u32;
        };
        put64(pool::D_ONE, 1.0f64.to_bits());
        put64(pool::D_ABS, 0x7fff_ffff_ffff_ffff);
        put64(pool::D_SIGN, 0x8000_0000_0000_0000);
        put64(pool::D_ZERO, 0);
        put64(pool::D_TWO_31, 2147483648.0f64.to_bits());
        put64(pool::D_MINUS_ONE, (-1.0f64).to_bits());
        put64(pool::D_TWO_63, 9223372036854775808.0f64.to_bits());
        put64(pool::KEEP_HIGH, 0xffff_ffff_0000_0000);
        put64(pool::KEEP_LOW, 0x0000_0000_ffff_ffff);
        pool[pool::TWO_63 as usize] = 9223372036854775808.0f32.to_bits();
        let masks = [
            0x5555_5555,
            0x3333_3333,
            0x0f0f_0f0f,
            0x0101_0101,
            0x00ff_00ff,
        ];
        for (k, m) in masks.into_iter().enumerate() {
            pool[pool::BIT_MASKS as usize + k] = m;
        }
        pool[pool::THIRTY_TWO as usize] = 32;
        pool[pool::ALL_ONES as usize] = u32::MAX;
        pool[pool::ALL_ONES as usize + 1] = u32::MAX;
        let perm = [
            std::array::from_fn(|i| (i / 2 + (i % 2) * 16) as u32),
            std::array::from_fn(|i| (8 + i / 2 + (i % 2) * 16) as u32),
            std::array::from_fn(|i| (2 * i) as u32),
            std::array::from_fn(|i| (2 * i + 1) as u32),
        ];
        Box::new(Ctx {
            perm,
            scratch: [[0; 16]; 3],
            tex_rows: [[0; 16]; 8],
            tap_index: [[0; 16]; 4],
            tex_blend: 0,
            selectors: [[0; 16]; MAX_DEPTH],
            regs: std::ptr::null_mut(),
            executed: 0,
            max: 0,
            consts: std::ptr::null(),
            host: std::ptr::null_mut(),
            seg_start: 0,
            seg_len: 0,
            resume: 0,
            masks: [0; 8],
            pool,
            buffers: [[0; 2]; MAX_BUFFERS + 1],
            frames: [[0; 4]; MAX_DEPTH],
            const_bufs: [ConstBuf::EMPTY; MAX_CONST_BUFS],
            const_vals: [0; MAX_CONSTS],
            tex: [TexEntry::default(); MAX_TEX],
            filled: (0, 0),
        })
    }
}

/// What the callbacks need besides the context: the batch and its run.
struct Host<'a, 'e> {
    batch: *mut Batch,
    code: &'a Code,
    env: &'a Env<'e>,
    shared: *mut u32,
    shared_len: usize,
    error: Option<ExecError>,
}

/// Machine code, executable and no longer writable.
pub(super) struct ExecBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is immutable after `new` (read + execute only) and
// owned by this value; sharing it between threads only runs it.
unsafe impl Send for ExecBuf {}
// SAFETY: as above, nothing mutates the buffer after construction.
unsafe impl Sync for ExecBuf {}

impl ExecBuf {
    /// Maps `bytes` as executable code (written while writable, then
    /// switched to read + execute).
    pub fn new(bytes: &[u8]) -> Result<ExecBuf, String> {
        let len = bytes.len().max(1).div_ceil(4096) * 4096;
        // SAFETY: a fresh anonymous private mapping; no existing memory is touched.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED || p.is_null() {
            return Err("mmap of the code buffer failed".into());
        }
        // SAFETY: `p` is a writable mapping of `len >= bytes.len()` bytes that
        // nothing else refers to.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p as *mut u8, bytes.len()) };
        // SAFETY: `p`/`len` are exactly the mapping made above.
        let r = unsafe { libc::mprotect(p, len, libc::PROT_READ | libc::PROT_EXEC) };
        if r != 0 {
            // SAFETY: unmapping the mapping made above, never used again.
            unsafe { libc::munmap(p, len) };
            return Err("mprotect of the code buffer failed".into());
        }
        Ok(ExecBuf {
            ptr: NonNull::new(p as *mut u8).ok_or("mmap returned null")?,
            len,
        })
    }

    fn call(&self, ctx: &mut Ctx) -> u32 {
        // SAFETY: the buffer holds one function emitted by `emit::emit` with
        // the SysV signature `extern "C" fn(*mut Ctx) -> u32`; it saves the
        // callee-saved registers it uses, keeps the stack aligned for its
        // calls, and touches only the context, the register file the context
        // points at (`num_regs` registers, indices checked by the decoder),
        // the stack, and the words of the buffers and shared memory that
        // `Ctx::buffers` lists, each access checked against the last word
        // address given there (`run` fills them from live slices: the
        // dispatch's buffers and the group's shared memory, which nothing
        // else touches during the call); it reads the texels and the sRGB
        // table of `Ctx::tex`'s entries, each texel index clamped to the
        // entry's last texel (`run` fills them from the run's bindings,
        // borrowed for the whole run, and the entries of a stamp are used
        // only while the environment of that stamp, unique to it, lives).
        let f: extern "C" fn(*mut Ctx) -> u32 = unsafe { std::mem::transmute(self.ptr.as_ptr()) };
        f(ctx)
    }
}

impl Drop for ExecBuf {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once here.
        unsafe { libc::munmap(self.ptr.as_ptr() as *mut std::ffi::c_void, self.len) };
    }
}

thread_local! {
    static CTX: RefCell<Option<Box<Ctx>>> = const { RefCell::new(None) };
}

/// Runs one batch with the compiled code (see [`Compiled::run`]).
pub(super) fn run(
    c: &Compiled,
    b: &mut Batch,
    code: &Code,
    env: &Env,
    shared: &mut [u32],
) -> Result<Stop, ExecError> {
    // The host is made here, from the arguments as they come: the closure
    // below reading the slice's two words as one from where it had just
    // stored them made that read wait for the stores. (Its batch pointer
    // is taken just before the call, after the last use of `b` there.)
    let mut host = Host {
        batch: std::ptr::null_mut(),
        code,
        env,
        shared: shared.as_mut_ptr(),
        shared_len: shared.len(),
        error: None,
    };
    CTX.with(|cell| {
        let mut slot = cell.borrow_mut();
        let ctx = slot.get_or_insert_with(Ctx::new_boxed);
        // inline: a whole word fits and every address is a non-negative
        // 32-bit gather index
        let entry = |ptr: *mut u32, bytes: usize| match bytes.checked_sub(4) {
            Some(last) if last <= 0x7fff_ffff => [ptr as u64, last as u64 | 1 << 32],
            _ => [0, 0],
        };
        // what the environment gives every batch, once per environment
        // (and compilation) on this thread
        if ctx.filled != (c.id, env.stamp) {
            for (v, r) in ctx.const_vals.iter_mut().zip(&c.consts) {
                *v = r.word(env);
            }
            if c.memory {
                for (k, slot) in ctx.buffers[..MAX_BUFFERS].iter_mut().enumerate() {
                    *slot = env
                        .buffers
                        .get(k)
                        .map_or([0, 0], |w| entry(w.as_ptr(), w.byte_len()));
                }
            }
            for (k, slot) in ctx.const_bufs[..c.const_bufs].iter_mut().enumerate() {
                *slot = env
                    .consts
                    .get(k)
                    .map_or(ConstBuf::EMPTY, |w| ConstBuf::of(w));
            }
            // the texture entries point into this environment's bindings:
            // used only while the stamp (unique to them) is the same
            for (slot, &i) in ctx.tex.iter_mut().zip(&c.tex) {
                *slot = TexEntry::of(tgsi_exec::inline_bilinear(code, &code.insts[i], env));
            }
            ctx.filled = (c.id, env.stamp);
        }
        if c.memory {
            // each group's own shared memory
            ctx.buffers[MAX_BUFFERS] = entry(host.shared, host.shared_len * 4);
        }
        // a batch stopped at a BARRIER resumes with its own frames
        ctx.resume = b.pc as u32;
        let depth = c.depth.min(MAX_DEPTH);
        if b.pc != 0 {
            let (frames, selectors) = b.compiled_frames();
            ctx.frames[..depth].copy_from_slice(&frames[..depth]);
            ctx.selectors[..depth].copy_from_slice(&selectors[..depth]);
        }
        ctx.regs = b.regs.as_mut_ptr() as *mut u32;
        ctx.executed = b.executed;
        ctx.max = env.max_instructions;
        ctx.consts = ctx.const_vals.as_ptr();
        let [cond, loop_mask, cont, switch, func] = b.flow_masks();
        ctx.masks = [
            b.alive as u32,
            cond as u32,
            loop_mask as u32,
            cont as u32,
            switch as u32,
            func as u32,
            b.exec as u32,
            0,
        ];
        host.batch = b as *mut Batch;
        ctx.host = &mut host as *mut Host as *mut std::ffi::c_void;
        let status = c.code.call(ctx);
        ctx.host = std::ptr::null_mut();
        b.executed = ctx.executed;
        b.alive = ctx.masks[mask::ALIVE as usize] as Mask;
        match status {
            0 => {
                b.ended = true;
                Ok(Stop::Ended)
            }
            3 => {
                let m = |k: i32| ctx.masks[k as usize] as Mask;
                let masks = mask::ALL.map(m);
                b.suspend_compiled(
                    ctx.resume as usize,
                    masks,
                    &ctx.frames[..depth],
                    &ctx.selectors[..depth],
                );
                Ok(Stop::Barrier)
            }
            2 => {
                let old = ctx.executed - ctx.seg_len as u64;
                let pc = ctx.seg_start as usize + (ctx.max.saturating_sub(old)) as usize;
                b.executed = ctx.max + 1;
                Err(b.budget_exhausted(code, env, pc))
            }
            _ => Err(host.error.take().unwrap_or_else(|| ExecError {
                instruction: None,
                message: "the compiled code stopped without an error".into(),
            })),
        }
    })
}

/// The context and host of a callback.
///
/// # Safety
/// `ctx` must be the context `run` passed to the generated code, during
/// that call (its `host` then points at `run`'s live [`Host`]).
unsafe fn parts<'c>(ctx: *mut Ctx) -> (&'c mut Ctx, &'c mut Host<'c, 'c>) {
    // SAFETY: the caller's contract: `ctx` is live and not otherwise borrowed
    // while the generated code waits for this callback.
    let ctx = unsafe { &mut *ctx };
    // SAFETY: `host` was set by `run` to its own `Host`, alive for the call.
    let host = unsafe { &mut *(ctx.host as *mut Host) };
    (ctx, host)
}

/// Runs instruction `pc` with the interpreter's handler. 0: go on, 1: error
/// (in the host), 2: the batch ended (every lane killed).
pub(super) extern "C" fn step_callback(ctx: *mut Ctx, pc: u64) -> u32 {
    #[cfg(test)]
    HANDLER_STEPS.with(|n| n.set(n.get() + 1));
    // SAFETY: only the generated code calls this, with its context.
    let (ctx, host) = unsafe { parts(ctx) };
    // SAFETY: `batch` is `run`'s `&mut Batch`, unused by `run` during the call;
    // the generated code does not touch the registers while it waits.
    let b = unsafe { &mut *host.batch };
    // SAFETY: `shared` is `run`'s `&mut [u32]`, unused by `run` during the call.
    let shared = unsafe { std::slice::from_raw_parts_mut(host.shared, host.shared_len) };
    let exec = ctx.masks[mask::EXEC as usize] as Mask;
    b.exec = exec;
    b.exec_row = mask_row(exec);
    b.executed = ctx.executed;
    b.alive = ctx.masks[mask::ALIVE as usize] as Mask;
    let (code, env) = (host.code, host.env);
    let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
        b.step_one(code, env, shared, pc as usize)
    }));
    ctx.masks[mask::ALIVE as usize] = b.alive as u32;
    ctx.regs = b.regs.as_mut_ptr() as *mut u32;
    match r {
        Ok(Ok(false)) => 0,
        Ok(Ok(true)) => 2,
        Ok(Err(e)) => {
            host.error = Some(e);
            1
        }
        Err(_) => {
            host.error = Some(ExecError {
                instruction: Some(pc as usize),
                message: format!("instruction {pc}: the interpreter's handler panicked"),
            });
            1
        }
    }
}

/// `scratch[2] = kernel(scratch[0], scratch[1])` for the row kernel `kind`
/// ([`super::emit::RowKernel`]); always 0.
pub(super) extern "C" fn row_callback(ctx: *mut Ctx, kind: u64) -> u32 {
    // SAFETY: only the generated code calls this, with its context.
    let (ctx, _) = unsafe { parts(ctx) };
    let [a, b, out] = &mut ctx.scratch;
    super::emit::RowKernel::apply(kind, a, b, out);
    0
}

/// `scratch[0]` = channel x of source 0 of instruction `pc` (IF, UIF,
/// SWITCH, CASE operands the compiled code does not read inline), read by
/// the interpreter's operand fetch; always 0.
pub(super) extern "C" fn fetch_callback(ctx: *mut Ctx, pc: u64) -> u32 {
    // SAFETY: only the generated code calls this, with its context.
    let (ctx, host) = unsafe { parts(ctx) };
    // SAFETY: `batch` is `run`'s `&mut Batch`, unused by `run` during the call.
    let b = unsafe { &*host.batch };
    if let Some(inst) = host.code.insts.get(pc as usize) {
        ctx.scratch[0] = b.fetch(&inst.src[0], 1, host.env)[0];
    }
    0
}
