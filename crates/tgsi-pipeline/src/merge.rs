//! The output merger: the depth(-stencil) target, depth and stencil tests
//! and writes, and blending into colour targets.
//!
//! Rules (Direct3D 11's output merger, `shader_test.md`):
//! * d32f stores the float; d24s8 and d16 store round(d × (2^24 − 1)) and
//!   round(d × 65535) of the depth clamped to [0, 1]; the test compares the
//!   fragment's depth converted the same way with the stored value. Only
//!   d24s8 has stencil bits: on the other formats the stencil test passes
//!   and writes nothing.
//! * The fragment's depth is clamped to the viewport's depth range.
//! * Stencil: (ref & read) FUNC (stored & read) picks fail / depth_fail /
//!   pass op; the write keeps the bits outside the write mask. Back-facing
//!   triangles use the back face's state.
//! * Blending: S·SRC OP D·DST per channel (min/max ignore the factors);
//!   alpha with its own triple. UNORM (and sRGB, blended in linear space)
//!   targets clamp S, the factors and the result to [0, 1], SNORM to
//!   [−1, 1]; integer targets never blend. A channel outside the write mask
//!   keeps its value.

use super::state::{BlendFactor, BlendOp, BlendState, CompareFunc, DepthState, StencilState};
use tgsi_exec::texture::Format;
use tgsi_exec::texture::format::NumClass;

/// Formats of the depth target (names as in `[depth target]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DepthFormat {
    D32Float,
    D24S8,
    D16,
}

impl DepthFormat {
    pub const ALL: &'static [(DepthFormat, &'static str)] = &[
        (DepthFormat::D32Float, "d32f"),
        (DepthFormat::D24S8, "d24s8"),
        (DepthFormat::D16, "d16"),
    ];
    pub fn from_name(s: &str) -> Option<DepthFormat> {
        Self::ALL.iter().find(|(_, n)| *n == s).map(|(f, _)| *f)
    }
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map_or("", |(_, n)| n)
    }

    /// The largest stored value of a UNORM format (None for d32f).
    fn unorm_max(self) -> Option<f64> {
        match self {
            DepthFormat::D32Float => None,
            DepthFormat::D24S8 => Some(((1u32 << 24) - 1) as f64),
            DepthFormat::D16 => Some(65535.0),
        }
    }

    /// The stored form of a depth.
    #[inline]
    pub fn quantize(self, d: f32) -> u32 {
        match self.unorm_max() {
            None => d.to_bits(),
            Some(m) => {
                let d = if d.is_nan() { 0.0 } else { d.clamp(0.0, 1.0) };
                (d as f64 * m).round_ties_even() as u32
            }
        }
    }

    /// The depth a stored value stands for.
    pub fn dequantize(self, v: u32) -> f32 {
        match self.unorm_max() {
            None => f32::from_bits(v),
            Some(m) => (v as f64 / m) as f32,
        }
    }

    /// One step of the format at depth `d` (for probes).
    pub fn step(self) -> Option<f64> {
        self.unorm_max().map(|m| 1.0 / m)
    }

    pub fn has_stencil(self) -> bool {
        self == DepthFormat::D24S8
    }

    /// `a FUNC b` on stored values.
    #[inline]
    fn compare(self, func: CompareFunc, a: u32, b: u32) -> bool {
        match self {
            DepthFormat::D32Float => func.test(f32::from_bits(a), f32::from_bits(b)),
            _ => func.test(a, b),
        }
    }
}

/// A depth(-stencil) target: per pixel and sample the stored depth and stencil.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthTarget {
    pub format: DepthFormat,
    pub width: u32,
    pub height: u32,
    pub samples: u32,
    /// Stored depths, `(y * width + x) * samples + s`.
    pub depth: Vec<u32>,
    pub stencil: Vec<u8>,
}

impl DepthTarget {
    /// A target cleared to depth 1.0, stencil 0.
    pub fn new(
        format: DepthFormat,
        width: u32,
        height: u32,
        samples: u32,
    ) -> Result<DepthTarget, String> {
        let n = width as u64 * height as u64 * samples.max(1) as u64;
        if n == 0 || n > 1 << 26 {
            return Err(format!(
                "a depth target of {width}x{height} with {samples} samples is out of range"
            ));
        }
        let n = n as usize;
        Ok(DepthTarget {
            format,
            width,
            height,
            samples: samples.max(1),
            depth: vec![format.quantize(1.0); n],
            stencil: vec![0; n],
        })
    }

    pub fn clear(&mut self, depth: f32, stencil: Option<u8>) {
        self.clear_on(depth, stencil, 1);
    }

    /// [`Self::clear`] on up to `threads` threads (the same values); the
    /// stencil only of a format with stencil bits (the others' stay 0).
    pub fn clear_on(&mut self, depth: f32, stencil: Option<u8>, threads: usize) {
        let q = self.format.quantize(depth);
        fill_on(&mut self.depth, q, threads);
        if let Some(s) = stencil.filter(|_| self.format.has_stencil()) {
            fill_on(&mut self.stencil, s, threads);
        }
    }

    fn index(&self, x: u32, y: u32, s: u32) -> Option<usize> {
        (x < self.width && y < self.height && s < self.samples).then(|| {
            ((y as usize * self.width as usize + x as usize) * self.samples as usize) + s as usize
        })
    }

    /// The depth at a pixel's sample, as a float.
    pub fn depth_at(&self, x: u32, y: u32, s: u32) -> Option<f32> {
        self.index(x, y, s)
            .map(|i| self.format.dequantize(self.depth[i]))
    }

    pub fn stencil_at(&self, x: u32, y: u32, s: u32) -> Option<u8> {
        self.index(x, y, s).map(|i| self.stencil[i])
    }
}

/// Bytes a part of [`in_parts`] holds at least.
const BYTES_PER_PART: usize = 1 << 20;

/// Fills `cells` with `value` on up to `threads` threads ([`in_parts`]).
pub fn fill_on<T: Copy + Send + Sync>(cells: &mut [T], value: T, threads: usize) {
    in_parts(cells, 1, threads, |part| fill_by_doubling(part, &[value]));
}

/// Fills `cells` with `pattern` repeated (a value, or a texel's bytes): the
/// pattern once, then the filled part copied onto the rest, doubling. The
/// large copies are the C library's block moves, which write without
/// reading the destination first (a loop of stores reads every line it is
/// about to overwrite).
pub fn fill_by_doubling<T: Copy>(cells: &mut [T], pattern: &[T]) {
    let mut filled = pattern.len().min(cells.len());
    cells[..filled].copy_from_slice(&pattern[..filled]);
    if filled == 0 {
        return;
    }
    while filled < cells.len() {
        let k = filled.min(cells.len() - filled);
        cells.copy_within(..k, filled);
        filled += k;
    }
}

/// `f` over `cells` cut into as many contiguous parts as `threads` (at
/// most one per MiB), each a multiple of `unit` cells long (the last one
/// aside), one thread each; on the calling thread when there is one part.
pub fn in_parts<T: Send>(
    cells: &mut [T],
    unit: usize,
    threads: usize,
    f: impl Fn(&mut [T]) + Sync,
) {
    let unit = unit.max(1);
    let bytes = std::mem::size_of_val(cells);
    let threads = threads.clamp(1, bytes.div_ceil(BYTES_PER_PART).max(1));
    let per = (cells.len() / unit).div_ceil(threads).max(1) * unit;
    if threads == 1 {
        f(cells);
        return;
    }
    tgsi_exec::parallel::each(cells.chunks_mut(per).collect(), f);
}

/// The depth test of [`DepthStencilTest::test_tile_depth`] with its compare
/// `pass` (stored form against stored form): inlined for each compare.
#[inline(always)]
fn test_lanes(
    q: &[u32; 16],
    coverage: &mut [u32; 16],
    stored: &mut [u32],
    cells: &[usize; 16],
    write: bool,
    pass: impl Fn(u32, u32) -> bool,
) {
    for l in 0..16 {
        let Some(old) = stored.get_mut(cells[l]) else {
            continue;
        };
        let ok = coverage[l] != 0 && pass(q[l], *old);
        if ok && write {
            *old = q[l];
        }
        coverage[l] &= 0u32.wrapping_sub(u32::from(ok));
    }
}

/// The depth/stencil state of a draw, ready to test.
#[derive(Clone, Copy, Debug)]
pub struct DepthStencilTest {
    pub format: DepthFormat,
    pub depth: DepthState,
    pub stencil: StencilState,
    pub min_depth: f32,
    pub max_depth: f32,
}

impl DepthStencilTest {
    /// The test of a draw under `state` into a depth target of `format`,
    /// depths clamped to the viewport's depth range.
    pub(crate) fn of_draw(
        format: DepthFormat,
        state: &super::state::RenderState,
        viewport: &super::state::Viewport,
    ) -> DepthStencilTest {
        DepthStencilTest {
            format,
            depth: state.depth,
            stencil: state.stencil,
            min_depth: viewport.min_depth.min(viewport.max_depth),
            max_depth: viewport.min_depth.max(viewport.max_depth),
        }
    }

    /// A D32_FLOAT depth test without stencil under `func`, writing or
    /// not, depths clamped to 0..=`max_depth` (the tile kernels' tests).
    #[cfg(test)]
    pub(crate) fn d32_float(func: CompareFunc, write: bool, max_depth: f32) -> DepthStencilTest {
        DepthStencilTest {
            format: DepthFormat::D32Float,
            depth: DepthState {
                enabled: true,
                func,
                write,
            },
            stencil: StencilState::default(),
            min_depth: 0.0,
            max_depth,
        }
    }

    /// Tests one sample and applies the writes; true when it passes.
    /// `stored_depth` / `stored_stencil` are the sample's cells.
    #[inline(always)]
    pub fn test(
        &self,
        depth: f32,
        front: bool,
        stored_depth: &mut u32,
        stored_stencil: &mut u8,
    ) -> bool {
        if !(self.stencil.enabled && self.format.has_stencil()) {
            return self.test_depth(depth, stored_depth);
        }
        self.test_with_stencil(depth, front, stored_depth, stored_stencil)
    }

    /// [`Self::test`] for the 16 one-sample pixels of a 4×4 tile (lane `l`
    /// at cell `cells[l]` of `stored`) when no stencil test applies:
    /// the lanes whose `coverage` is not zero are tested (and written)
    /// side by side, and those that fail lose their coverage. False, with
    /// nothing done, when a stencil test applies.
    pub fn test_tile_depth(
        &self,
        depth: &[f32; 16],
        coverage: &mut [u32; 16],
        stored: &mut [u32],
        cells: &[usize; 16],
    ) -> bool {
        if self.stencil.enabled && self.format.has_stencil() {
            return false;
        }
        if !self.depth.enabled {
            return true;
        }
        let q = depth.map(|d| {
            self.format
                .quantize(d.clamp(self.min_depth, self.max_depth))
        });
        let float = self.format == DepthFormat::D32Float;
        let write = self.depth.write;
        // the compare chosen once; each lane's outcome a mask
        macro_rules! tile {
            ($pass:expr) => {
                test_lanes(&q, coverage, stored, cells, write, $pass)
            };
        }
        let f = f32::from_bits;
        use CompareFunc as C;
        match (self.depth.func, float) {
            (C::Less, true) => tile!(|a, b| f(a) < f(b)),
            (C::Less, false) => tile!(|a, b| a < b),
            (C::LessEqual, true) => tile!(|a, b| f(a) <= f(b)),
            (C::LessEqual, false) => tile!(|a, b| a <= b),
            (C::Greater, true) => tile!(|a, b| f(a) > f(b)),
            (C::Greater, false) => tile!(|a, b| a > b),
            (C::GreaterEqual, true) => tile!(|a, b| f(a) >= f(b)),
            (C::GreaterEqual, false) => tile!(|a, b| a >= b),
            (func, _) => {
                let format = self.format;
                tile!(|a, b| format.compare(func, a, b))
            }
        }
        true
    }

    /// The compare of [`tgsi_exec::tiles::depth_tile`] this test is, when
    /// the kernel takes it: a D32_FLOAT target without a stencil test, the
    /// depth test on with one of the four ordered compares.
    pub fn tile_compare(&self) -> Option<tgsi_exec::tiles::DepthCompare> {
        use tgsi_exec::tiles::DepthCompare as D;
        if self.format != DepthFormat::D32Float
            || (self.stencil.enabled && self.format.has_stencil())
            || !self.depth.enabled
        {
            return None;
        }
        match self.depth.func {
            CompareFunc::Less => Some(D::Less),
            CompareFunc::LessEqual => Some(D::LessEqual),
            CompareFunc::Greater => Some(D::Greater),
            CompareFunc::GreaterEqual => Some(D::GreaterEqual),
            _ => None,
        }
    }

    /// [`Self::test`] without a stencil test.
    #[inline(always)]
    fn test_depth(&self, depth: f32, stored_depth: &mut u32) -> bool {
        let q = self
            .format
            .quantize(depth.clamp(self.min_depth, self.max_depth));
        if !self.depth.enabled {
            return true;
        }
        let pass = self.format.compare(self.depth.func, q, *stored_depth);
        if pass && self.depth.write {
            *stored_depth = q;
        }
        pass
    }

    /// [`Self::test`] with the stencil test.
    fn test_with_stencil(
        &self,
        depth: f32,
        front: bool,
        stored_depth: &mut u32,
        stored_stencil: &mut u8,
    ) -> bool {
        let d = depth.clamp(self.min_depth, self.max_depth);
        let q = self.format.quantize(d);
        let depth_pass =
            !self.depth.enabled || self.format.compare(self.depth.func, q, *stored_depth);
        let st = &self.stencil;
        let face = if front { &st.front } else { &st.back };
        let stencil_pass = face
            .func
            .test(st.reference & st.read_mask, *stored_stencil & st.read_mask);
        let op = if !stencil_pass {
            face.fail
        } else if !depth_pass {
            face.depth_fail
        } else {
            face.pass
        };
        let new = op.apply(*stored_stencil, st.reference);
        *stored_stencil = (*stored_stencil & !st.write_mask) | (new & st.write_mask);
        if !stencil_pass || !depth_pass {
            return false;
        }
        if self.depth.enabled && self.depth.write {
            *stored_depth = q;
        }
        true
    }
}

/// How values of a colour target's format are blended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendClass {
    Float,
    Unorm,
    Snorm,
    Integer,
}

impl BlendClass {
    pub fn of(format: Format) -> BlendClass {
        match format.num_class() {
            NumClass::Float => BlendClass::Float,
            NumClass::Unorm => BlendClass::Unorm,
            NumClass::Snorm => BlendClass::Snorm,
            NumClass::Uint | NumClass::Sint => BlendClass::Integer,
        }
    }

    /// The class's range clamp of one value ([`Self::clamp_row`]).
    #[inline]
    fn clamp(self, v: f32) -> f32 {
        self.clamp_row([v])[0]
    }

    /// UNORM values clamped to [0, 1], SNORM ones to [-1, 1] (a NaN
    /// stays), others kept, over a row with the class looked at once.
    #[inline(always)]
    fn clamp_row<R: BlendRow>(self, row: R) -> R {
        match self {
            BlendClass::Unorm => row.clamp(0.0, 1.0),
            BlendClass::Snorm => row.clamp(-1.0, 1.0),
            _ => row,
        }
    }
}

/// A row of lanes blended side by side: the operations blending is made
/// of, each lane by lane and each one IEEE operation (no contraction), so
/// that every row type gives every lane the same bits. `[f32; N]` is the
/// portable row; `tgsi_exec::tiles::Row16` holds 16 lanes in an AVX-512
/// register.
pub trait BlendRow: Copy {
    /// `v` in every lane.
    fn splat(self, v: f32) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// Per lane `o` where it is below `self` or `self` is NaN, else `self`
    /// (the number where one is NaN; `self` where they are equal).
    fn min_num(self, o: Self) -> Self;
    /// Per lane `o` where it is above `self` or `self` is NaN, else `self`.
    fn max_num(self, o: Self) -> Self;
    /// `f32::clamp` per lane (a NaN stays).
    fn clamp(self, lo: f32, hi: f32) -> Self;
    /// Each NaN lane as the one quiet NaN 0x7FC00000 (which NaN an
    /// operation on two NaNs gives depends on its operands' order, which
    /// the compiler may swap).
    fn one_nan(self) -> Self;
}

impl<const N: usize> BlendRow for [f32; N] {
    #[inline(always)]
    fn splat(self, v: f32) -> Self {
        [v; N]
    }
    #[inline(always)]
    fn add(mut self, o: Self) -> Self {
        (0..N).for_each(|l| self[l] += o[l]);
        self
    }
    #[inline(always)]
    fn sub(mut self, o: Self) -> Self {
        (0..N).for_each(|l| self[l] -= o[l]);
        self
    }
    #[inline(always)]
    fn mul(mut self, o: Self) -> Self {
        (0..N).for_each(|l| self[l] *= o[l]);
        self
    }
    #[inline(always)]
    fn min_num(mut self, o: Self) -> Self {
        for (v, o) in self.iter_mut().zip(o) {
            if v.is_nan() || o < *v {
                *v = o;
            }
        }
        self
    }
    #[inline(always)]
    fn max_num(mut self, o: Self) -> Self {
        for (v, o) in self.iter_mut().zip(o) {
            if v.is_nan() || o > *v {
                *v = o;
            }
        }
        self
    }
    #[inline(always)]
    fn clamp(mut self, lo: f32, hi: f32) -> Self {
        self.iter_mut().for_each(|v| *v = v.clamp(lo, hi));
        self
    }
    #[inline(always)]
    fn one_nan(mut self) -> Self {
        for v in self.iter_mut().filter(|v| v.is_nan()) {
            *v = f32::from_bits(ONE_NAN);
        }
        self
    }
}

/// The NaN blending gives wherever a result is NaN (the one an
/// interpolated input that is NaN reads as).
const ONE_NAN: u32 = tgsi_exec::fragment::ONE_NAN;

#[cfg(target_arch = "x86_64")]
impl BlendRow for tgsi_exec::tiles::Row16 {
    #[inline(always)]
    fn splat(self, v: f32) -> Self {
        self.splat(v)
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self + o
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self - o
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        self * o
    }
    #[inline(always)]
    fn min_num(self, o: Self) -> Self {
        self.min_num(o)
    }
    #[inline(always)]
    fn max_num(self, o: Self) -> Self {
        self.max_num(o)
    }
    #[inline(always)]
    fn clamp(self, lo: f32, hi: f32) -> Self {
        self.clamp(lo, hi)
    }
    #[inline(always)]
    fn one_nan(self) -> Self {
        self.nan_as(f32::from_bits(ONE_NAN))
    }
}

/// Blend factor `f` for channel `c` of a row of lanes (`s` the clamped
/// source rows, `d` the destination rows, `k` the clamped blend constant),
/// clamped as the target's class requires.
#[inline(always)]
fn factor_row<R: BlendRow>(
    f: BlendFactor,
    c: usize,
    class: BlendClass,
    s: &[R; 4],
    d: &[R; 4],
    k: &[f32; 4],
) -> R {
    // no closures: one may stay out of line, outside the AVX-512 code a
    // register row's operations are inlined into
    let one = s[0].splat(1.0);
    let r = match f {
        BlendFactor::Zero => s[0].splat(0.0),
        BlendFactor::One => one,
        BlendFactor::SrcColor => s[c],
        BlendFactor::InvSrcColor => one.sub(s[c]),
        BlendFactor::SrcAlpha => s[3],
        BlendFactor::InvSrcAlpha => one.sub(s[3]),
        BlendFactor::DstColor => d[c],
        BlendFactor::InvDstColor => one.sub(d[c]),
        BlendFactor::DstAlpha => d[3],
        BlendFactor::InvDstAlpha => one.sub(d[3]),
        BlendFactor::SrcAlphaSat if c == 3 => one,
        BlendFactor::SrcAlphaSat => s[3].min_num(one.sub(d[3])),
        BlendFactor::BlendFactor => s[0].splat(k[c]),
        BlendFactor::InvBlendFactor => s[0].splat(1.0 - k[c]),
    };
    class.clamp_row(r)
}

/// Blends source `s` over destination `d` (floats, the target's decoded
/// values) for a target of class `class`.
#[inline]
pub fn blend(
    state: &BlendState,
    class: BlendClass,
    s: [f32; 4],
    d: [f32; 4],
    k: [f32; 4],
) -> [f32; 4] {
    let rows = blend_lanes(state, class, &s.map(|v| [v]), &d.map(|v| [v]), k);
    rows.map(|[v]| v)
}

/// [`blend`] of a row of lanes side by side: `s` and `d` hold a row per
/// channel. Each lane gets the bits [`blend`] gives it (it is this with
/// one lane); the factors and the operation are chosen once per channel.
/// A NaN result is the quiet NaN 0x7FC00000, whichever NaN led to it.
#[inline(always)]
pub fn blend_lanes<R: BlendRow>(
    state: &BlendState,
    class: BlendClass,
    s: &[R; 4],
    d: &[R; 4],
    k: [f32; 4],
) -> [R; 4] {
    blend_lanes_then::<R, true>(state, class, s, d, k)
}

/// [`blend_lanes`] into a UNORM target whose encode clamps to [0, 1] and
/// takes a NaN to 0 (RGBA8 and sRGB): the results' own clamp and NaN
/// choice are left to it, which makes the same bytes of them.
#[inline(always)]
pub fn blend_lanes_for_unorm_encode<R: BlendRow>(
    state: &BlendState,
    s: &[R; 4],
    d: &[R; 4],
    k: [f32; 4],
) -> [R; 4] {
    blend_lanes_then::<R, false>(state, BlendClass::Unorm, s, d, k)
}

/// [`blend_lanes`], each result clamped to its class and its NaNs made
/// one when `FINISH`.
#[inline(always)]
fn blend_lanes_then<R: BlendRow, const FINISH: bool>(
    state: &BlendState,
    class: BlendClass,
    s: &[R; 4],
    d: &[R; 4],
    k: [f32; 4],
) -> [R; 4] {
    // no `map`: its closure may stay out of line, outside the AVX-512
    // code a register row's operations are inlined into
    let s = [
        class.clamp_row(s[0]),
        class.clamp_row(s[1]),
        class.clamp_row(s[2]),
        class.clamp_row(s[3]),
    ];
    let k = k.map(|v| class.clamp(v));
    let mut out = s;
    for (c, row) in out.iter_mut().enumerate() {
        let (fs, fd, op) = if c == 3 {
            (
                state.src_alpha.for_alpha(),
                state.dst_alpha.for_alpha(),
                state.op_alpha,
            )
        } else {
            (state.src, state.dst, state.op)
        };
        let fa = factor_row(fs, c, class, &s, d, &k);
        let fb = factor_row(fd, c, class, &s, d, &k);
        let (sc, dc) = (s[c], d[c]);
        let v = match op {
            BlendOp::Add => sc.mul(fa).add(dc.mul(fb)),
            BlendOp::Subtract => sc.mul(fa).sub(dc.mul(fb)),
            BlendOp::RevSubtract => dc.mul(fb).sub(sc.mul(fa)),
            BlendOp::Min => sc.min_num(dc),
            BlendOp::Max => sc.max_num(dc),
        };
        *row = if FINISH {
            class.clamp_row(v).one_nan()
        } else {
            v
        };
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::state::{StencilFace, StencilOp};

    /// A blend state with every factor and operation drawn at random,
    /// all channels written.
    pub(crate) fn random_blend_state(rng: &mut tgsi_ir::rng::Rng) -> BlendState {
        let factor = |rng: &mut tgsi_ir::rng::Rng| {
            BlendFactor::ALL[rng.below(BlendFactor::ALL.len() as u64) as usize].0
        };
        let op = |rng: &mut tgsi_ir::rng::Rng| {
            BlendOp::ALL[rng.below(BlendOp::ALL.len() as u64) as usize].0
        };
        BlendState {
            enabled: true,
            src: factor(rng),
            dst: factor(rng),
            op: op(rng),
            src_alpha: factor(rng),
            dst_alpha: factor(rng),
            op_alpha: op(rng),
            write_mask: 0xF,
        }
    }

    fn blend_state(src: BlendFactor, dst: BlendFactor, op: BlendOp) -> BlendState {
        BlendState {
            enabled: true,
            src,
            dst,
            op,
            src_alpha: src,
            dst_alpha: dst,
            op_alpha: op,
            write_mask: 0xF,
        }
    }

    /// A clear sets the stencil of the one format with stencil bits; the
    /// others' stencil stays 0.
    #[test]
    fn only_d24s8_keeps_a_cleared_stencil() {
        for (format, want) in [
            (DepthFormat::D24S8, 3),
            (DepthFormat::D16, 0),
            (DepthFormat::D32Float, 0),
        ] {
            let mut t = DepthTarget::new(format, 2, 2, 1).unwrap();
            t.clear(0.0, Some(3));
            assert_eq!(t.stencil_at(1, 1, 0), Some(want), "{format:?}");
            assert_eq!(t.depth_at(1, 1, 0), Some(0.0), "{format:?}");
        }
    }

    #[test]
    fn blend_factors_and_ops_follow_direct3d() {
        let s = [0.5, 0.25, 1.0, 0.5];
        let d = [0.25, 0.5, 0.5, 0.75];
        let k = [1.0; 4];
        let r = blend(
            &blend_state(
                BlendFactor::SrcAlpha,
                BlendFactor::InvSrcAlpha,
                BlendOp::Add,
            ),
            BlendClass::Float,
            s,
            d,
            k,
        );
        assert_eq!(r, [0.375, 0.375, 0.75, 0.625]);
        // src_alpha_sat: min(As, 1 - Ad) = 0.25 for colour, 1 for alpha.
        let r = blend(
            &blend_state(BlendFactor::SrcAlphaSat, BlendFactor::Zero, BlendOp::Add),
            BlendClass::Float,
            s,
            d,
            k,
        );
        assert_eq!(r, [0.125, 0.0625, 0.25, 0.5]);
        let r = blend(
            &blend_state(BlendFactor::One, BlendFactor::One, BlendOp::RevSubtract),
            BlendClass::Float,
            s,
            d,
            k,
        );
        assert_eq!(r, [-0.25, 0.25, -0.5, 0.25]);
        // UNORM clamps the result.
        let r = blend(
            &blend_state(BlendFactor::One, BlendFactor::One, BlendOp::Add),
            BlendClass::Unorm,
            s,
            d,
            k,
        );
        assert_eq!(r, [0.75, 0.75, 1.0, 1.0]);
        let r = blend(
            &blend_state(BlendFactor::Zero, BlendFactor::Zero, BlendOp::Min),
            BlendClass::Float,
            s,
            d,
            k,
        );
        assert_eq!(r, [0.25, 0.25, 0.5, 0.5]);
    }

    #[test]
    fn depth_formats_round_and_stencil_ops_respect_masks() {
        assert_eq!(DepthFormat::D16.quantize(0.5), 32768);
        assert_eq!(DepthFormat::D24S8.quantize(2.0), (1 << 24) - 1);
        assert_eq!(DepthFormat::D32Float.quantize(0.3), 0.3f32.to_bits());
        let mut t = DepthStencilTest {
            format: DepthFormat::D24S8,
            depth: DepthState {
                enabled: true,
                func: CompareFunc::Less,
                write: true,
            },
            stencil: StencilState {
                enabled: true,
                reference: 0x5,
                read_mask: 0xff,
                write_mask: 0x0f,
                front: StencilFace {
                    func: CompareFunc::Equal,
                    fail: StencilOp::Invert,
                    depth_fail: StencilOp::Incr,
                    pass: StencilOp::Replace,
                },
                back: StencilFace::default(),
            },
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let (mut d, mut s) = (DepthFormat::D24S8.quantize(1.0), 0xf0u8);
        // Stencil fails (0x05 != 0xf0): invert under the write mask.
        assert!(!t.test(0.5, true, &mut d, &mut s));
        assert_eq!(s, 0xff);
        s = 0x05;
        assert!(t.test(0.5, true, &mut d, &mut s));
        assert_eq!(d, DepthFormat::D24S8.quantize(0.5));
        // Depth fails now (0.75 > 0.5): incr.
        assert!(!t.test(0.75, true, &mut d, &mut s));
        assert_eq!(s, 0x06);
        t.depth.write = false;
        s = 0x05;
        assert!(t.test(0.25, true, &mut d, &mut s));
        assert_eq!(d, DepthFormat::D24S8.quantize(0.5));
    }

    /// The tile depth test gives each lane the coverage and stored depth
    /// of the one-sample test, for every compare, format, write flag and
    /// range, over random depths (NaN, out-of-range and equal ones
    /// included) and partial coverage; with a stencil test it does nothing.
    #[test]
    fn tile_depth_test_is_the_per_lane_test() {
        let mut rng = tgsi_ir::rng::Rng(0xde97);
        let pick = |rng: &mut tgsi_ir::rng::Rng| -> f32 {
            match rng.below(6) {
                0 => f32::NAN,
                1 => 0.5,
                2 => rng.uniform(-0.5, 1.5) as f32,
                _ => rng.uniform(0.0, 1.0) as f32,
            }
        };
        for &(func, _) in CompareFunc::ALL {
            for format in [DepthFormat::D32Float, DepthFormat::D24S8, DepthFormat::D16] {
                for (write, enabled) in [(true, true), (false, true), (true, false)] {
                    let t = DepthStencilTest {
                        format,
                        depth: DepthState {
                            enabled,
                            func,
                            write,
                        },
                        stencil: StencilState::default(),
                        min_depth: 0.125,
                        max_depth: 0.875,
                    };
                    for _ in 0..50 {
                        let depth: [f32; 16] = std::array::from_fn(|_| pick(&mut rng));
                        let stored: Vec<u32> =
                            (0..40).map(|_| format.quantize(pick(&mut rng))).collect();
                        // lanes at distinct cells of a 4-wide pitch-8 tile
                        let cells = std::array::from_fn(|l| (l / 4) * 8 + l % 4 + 3);
                        let cov: [u32; 16] = std::array::from_fn(|_| (rng.below(3) != 0) as u32);
                        let (mut tile_cov, mut tile_z) = (cov, stored.clone());
                        assert!(t.test_tile_depth(&depth, &mut tile_cov, &mut tile_z, &cells));
                        let (mut one_cov, mut one_z) = (cov, stored.clone());
                        for l in 0..16 {
                            let mut st = 0u8;
                            if one_cov[l] != 0
                                && !t.test(depth[l], true, &mut one_z[cells[l]], &mut st)
                            {
                                one_cov[l] = 0;
                            }
                        }
                        assert_eq!(tile_cov, one_cov, "{func:?} {format:?} {depth:?}");
                        assert_eq!(tile_z, one_z, "{func:?} {format:?} {depth:?}");
                    }
                }
            }
        }
        let mut t = DepthStencilTest {
            format: DepthFormat::D24S8,
            depth: DepthState::default(),
            stencil: StencilState::default(),
            min_depth: 0.0,
            max_depth: 1.0,
        };
        t.stencil.enabled = true;
        let mut cov = [1u32; 16];
        let mut z = vec![0u32; 16];
        assert!(!t.test_tile_depth(&[0.5; 16], &mut cov, &mut z, &std::array::from_fn(|l| l)));
        assert_eq!(cov, [1; 16]);
    }

    /// A depth plane for the tile kernels' tests, by `round`: a constant
    /// one (equal to some stored depths), a NaN one, one whose terms cancel
    /// near a sample (at one of `offsets` in one of the tile's pixels from
    /// `origin`, where the evaluation's steps show in the bits) or any.
    fn random_plane(
        rng: &mut tgsi_ir::rng::Rng,
        round: usize,
        origin: [u32; 2],
        offsets: &[[f64; 2]],
    ) -> [f64; 3] {
        let (p1, p2) = (rng.uniform(-0.01, 0.01), rng.uniform(-0.01, 0.01));
        match round % 4 {
            0 => [0.5, 0.0, 0.0],
            1 => [f64::NAN, 0.0, 0.0],
            2 => {
                let [ox, oy] = offsets[rng.below(offsets.len() as u64) as usize];
                let x = (origin[0] + rng.below(4) as u32) as f64 + ox;
                let y = (origin[1] + rng.below(4) as u32) as f64 + oy;
                [1e-9 * rng.uniform(0.0, 1.0) - (p1 * x + p2 * y), p1, p2]
            }
            _ => [rng.uniform(-0.5, 1.5), p1, p2],
        }
    }

    /// `n` stored D32_FLOAT depths, a third of them the constant plane's 0.5.
    fn random_depths(rng: &mut tgsi_ir::rng::Rng, n: usize) -> Vec<u32> {
        (0..n)
            .map(|_| match rng.below(3) {
                0 => 0.5f32.to_bits(),
                _ => (rng.uniform(0.0, 1.0) as f32).to_bits(),
            })
            .collect()
    }

    /// The tile kernel's early depth test ([`tgsi_exec::tiles::depth_tile`])
    /// gives each lane the coverage and stored depth of the one-sample
    /// test at its pixel centre, for the four compares it takes, with and
    /// without writes, over random depth planes (constant ones equal to
    /// stored depths, NaN and out-of-range ones among them) and partial
    /// coverage; the other tests are not the kernel's.
    #[test]
    fn tile_kernel_depth_test_is_the_per_lane_test() {
        let mut rng = tgsi_ir::rng::Rng(0x7e57);
        let mut compared = 0;
        for &(func, _) in CompareFunc::ALL {
            for write in [true, false] {
                let t = DepthStencilTest::d32_float(func, write, 0.875);
                let Some(compare) = t.tile_compare() else {
                    assert!(!matches!(
                        func,
                        CompareFunc::Less
                            | CompareFunc::LessEqual
                            | CompareFunc::Greater
                            | CompareFunc::GreaterEqual
                    ));
                    continue;
                };
                for round in 0..200 {
                    let (x0, y0) = (4 * rng.below(50) as u32, 4 * rng.below(3) as u32);
                    let plane = random_plane(&mut rng, round, [x0, y0], &[[0.5, 0.5]]);
                    let pitch = 200usize;
                    let stored = random_depths(&mut rng, pitch * 12);
                    let covered = rng.next() as u16;
                    let first = y0 as usize * pitch + x0 as usize;
                    let tile = tgsi_exec::tiles::DepthTile {
                        plane,
                        offset: [0.5, 0.5],
                        range: [t.min_depth, t.max_depth],
                        compare,
                        write,
                    };
                    let mut kernel_z = stored.clone();
                    let Some(passed) = tgsi_exec::tiles::depth_tile(
                        &tile,
                        [x0, y0],
                        covered,
                        &mut kernel_z,
                        first,
                        pitch,
                    ) else {
                        // no AVX-512: the caller tests lane by lane
                        return;
                    };
                    let mut one_z = stored.clone();
                    let mut want = 0u16;
                    for l in 0..16 {
                        let (dx, dy) = tgsi_exec::fragment::lane_offset(l);
                        let (x, y) = ((x0 + dx) as f64 + 0.5, (y0 + dy) as f64 + 0.5);
                        let d = tgsi_exec::fragment::plane64(&plane, x, y) as f32;
                        let cell = first + dy as usize * pitch + dx as usize;
                        let mut st = 0u8;
                        if covered >> l & 1 == 1 && t.test(d, true, &mut one_z[cell], &mut st) {
                            want |= 1 << l;
                        }
                    }
                    assert_eq!(passed, want, "{func:?} write {write} plane {plane:?}");
                    assert_eq!(kernel_z, one_z, "{func:?} write {write} plane {plane:?}");
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 4 * 2 * 200);
    }

    /// The tile kernel with four samples per pixel
    /// ([`tgsi_exec::tiles::depth_tile_4x`]) gives each sample the outcome
    /// and stored depth of the scalar test at its position, for the four
    /// compares it takes, with and without writes, over the 4x pattern's
    /// offsets, random planes (NaN, constant and cancelling ones among
    /// them), stored depths equal to the plane's and partial coverage.
    #[test]
    fn four_sample_tile_kernel_is_the_per_sample_test() {
        let mut rng = tgsi_ir::rng::Rng(0x7e57_0004);
        let pattern = crate::raster::SamplePattern::new(4);
        let offsets: [[f64; 2]; 4] = std::array::from_fn(|s| {
            let (x, y) = pattern.position(0, 0, s);
            [x, y]
        });
        let compares = [
            (CompareFunc::Less, tgsi_exec::tiles::DepthCompare::Less),
            (
                CompareFunc::LessEqual,
                tgsi_exec::tiles::DepthCompare::LessEqual,
            ),
            (
                CompareFunc::Greater,
                tgsi_exec::tiles::DepthCompare::Greater,
            ),
            (
                CompareFunc::GreaterEqual,
                tgsi_exec::tiles::DepthCompare::GreaterEqual,
            ),
        ];
        for (func, compare) in compares {
            for write in [true, false] {
                let t = DepthStencilTest::d32_float(func, write, 0.875);
                assert_eq!(t.tile_compare(), Some(compare));
                for round in 0..200 {
                    let (x0, y0) = (4 * rng.below(40) as u32, 4 * rng.below(3) as u32);
                    let plane = random_plane(&mut rng, round, [x0, y0], &offsets);
                    let pitch = 4 * 180usize;
                    let stored = random_depths(&mut rng, pitch * 12);
                    let covered = rng.next();
                    let first = y0 as usize * pitch + 4 * x0 as usize;
                    let tile = tgsi_exec::tiles::DepthTile {
                        plane,
                        offset: [0.5, 0.5],
                        range: [t.min_depth, t.max_depth],
                        compare,
                        write,
                    };
                    let mut kernel_z = stored.clone();
                    let Some(passed) = tgsi_exec::tiles::depth_tile_4x(
                        &tile,
                        &offsets,
                        [x0, y0],
                        covered,
                        &mut kernel_z,
                        first,
                        pitch,
                    ) else {
                        // no AVX-512: the caller tests sample by sample
                        return;
                    };
                    let mut one_z = stored.clone();
                    let mut want = 0u64;
                    for bit in 0..64 {
                        let (dy, dx, s) = (bit / 16, bit % 16 / 4, bit % 4);
                        let (x, y) = pattern.position(x0 + dx as u32, y0 + dy as u32, s);
                        let d = tgsi_exec::fragment::plane64(&plane, x, y) as f32;
                        let cell = first + dy * pitch + 4 * dx + s;
                        let mut st = 0u8;
                        if covered >> bit & 1 == 1 && t.test(d, true, &mut one_z[cell], &mut st) {
                            want |= 1 << bit;
                        }
                    }
                    assert_eq!(passed, want, "{func:?} write {write} plane {plane:?}");
                    assert_eq!(kernel_z, one_z, "{func:?} write {write} plane {plane:?}");
                }
            }
        }
    }

    /// A clear on several threads writes every cell as one thread does,
    /// on targets large enough to be split (and one that is not).
    #[test]
    fn clears_on_several_threads_write_every_cell() {
        for (w, h) in [(1024, 768), (7, 5)] {
            let mut one = DepthTarget::new(DepthFormat::D24S8, w, h, 1).unwrap();
            one.depth.fill(7);
            one.stencil.fill(9);
            let mut three = one.clone();
            one.clear_on(0.25, Some(3), 1);
            three.clear_on(0.25, Some(3), 3);
            assert_eq!(one.depth, three.depth);
            assert_eq!(one.stencil, three.stencil);
            let q = DepthFormat::D24S8.quantize(0.25);
            assert!(three.depth.iter().all(|&d| d == q));
            assert!(three.stencil.iter().all(|&s| s == 3));
        }
    }

    /// Filling by doubling writes every cell, whatever the length.
    #[test]
    fn filling_by_doubling_reaches_every_cell() {
        for n in 0..70 {
            let mut cells = vec![1u32; n];
            fill_by_doubling(&mut cells, &[0x3F80_0000]);
            assert!(cells.iter().all(|&c| c == 0x3F80_0000), "{n} cells");
            let mut bytes = vec![0u8; n];
            fill_by_doubling(&mut bytes, &[1, 2, 3]);
            assert!(
                bytes
                    .iter()
                    .enumerate()
                    .all(|(i, &b)| b as usize == i % 3 + 1),
                "{n} bytes"
            );
        }
    }

    /// Sixteen lanes blended side by side (an array row, and a register
    /// row where the CPU has AVX-512) get the bits each lane gets alone,
    /// for every factor, operation and class, over random values (NaN,
    /// infinities, signed zeros and values outside [0, 1] among them).
    #[test]
    fn blending_lanes_side_by_side_is_blending_each_lane() {
        let mut rng = tgsi_ir::rng::Rng(0xb1e4d);
        let value = |rng: &mut tgsi_ir::rng::Rng| -> f32 {
            match rng.below(12) {
                0 => f32::NAN,
                1 => f32::INFINITY,
                2 => f32::NEG_INFINITY,
                3 => [0.0, -0.0, 1.0, -1.0][rng.below(4) as usize],
                4 | 5 => rng.uniform(-2.0, 2.0) as f32,
                _ => rng.uniform(0.0, 1.0) as f32,
            }
        };
        #[cfg(target_arch = "x86_64")]
        let cpu = tgsi_exec::tiles::Avx512::detect();
        for round in 0..3000 {
            let state = random_blend_state(&mut rng);
            let class = [BlendClass::Float, BlendClass::Unorm, BlendClass::Snorm][round % 3];
            let s: [[f32; 16]; 4] =
                std::array::from_fn(|_| std::array::from_fn(|_| value(&mut rng)));
            let d: [[f32; 16]; 4] =
                std::array::from_fn(|_| std::array::from_fn(|_| value(&mut rng)));
            let k = std::array::from_fn(|_| value(&mut rng));
            let rows = blend_lanes(&state, class, &s, &d, k);
            // and 16 lanes in a register, where the CPU has AVX-512
            #[cfg(target_arch = "x86_64")]
            if let Some(cpu) = cpu {
                use tgsi_exec::tiles::Row16;
                let wide = blend_lanes(
                    &state,
                    class,
                    &s.map(|r| Row16::load(cpu, &r)),
                    &d.map(|r| Row16::load(cpu, &r)),
                    k,
                );
                let bits = rows.map(|r| r.map(f32::to_bits));
                assert_eq!(wide.map(Row16::to_bits), bits, "{state:?} {class:?} Row16");
            }
            for l in 0..16 {
                let one = blend(&state, class, s.map(|r| r[l]), d.map(|r| r[l]), k);
                for c in 0..4 {
                    assert_eq!(
                        rows[c][l].to_bits(),
                        one[c].to_bits(),
                        "{state:?} {class:?} lane {l}"
                    );
                }
            }
        }
    }
}
