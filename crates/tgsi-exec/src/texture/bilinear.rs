//! Bilinear sampling of a batch of lanes at once, for the views the machine
//! samples most: 2D (array, RECT) views of RGBA8 UNORM, RGBA8 sRGB and
//! RGBA32F textures, one sample per texel, linear filtering.
//!
//! Everything is structure-of-arrays over the [`LANES`] lanes, in loops the
//! compiler turns into vector instructions: the coordinate arithmetic, the
//! wrap of the texel indices (every wrap mode; only REPEAT and
//! MIRROR_REPEAT on sizes that are not powers of two wrap lane by lane),
//! the texel addresses, the RGBA8 decode (integer ops and a corrected
//! reciprocal multiply that gives the exact quotient), the border
//! selection and the lerps. The texel loads are per lane, one per tap,
//! clamped to the level (a texel past the end of the level's bytes reads as
//! zeros, as in the general path); RGBA32F texels are filtered lane by lane
//! with their four channels in one vector. Loops run over the lanes only:
//! the taps and channels are separate calls, because a loop over them
//! would be vectorized across them instead.
//!
//! Every value is the one [`Bound::sample`] computes for the same lane, by
//! the same f32 operations in the same order, so the results are the same
//! bits; the lerps leave out the NaN rule, and the lanes whose result is
//! NaN are sampled again on the general path (differential tests in
//! `tests/fast_paths.rs` compare the two over random and hostile
//! coordinates, every wrap mode, offsets, arrays, swizzles and mip
//! filters).

use super::format::srgb_to_linear_table;
use super::sample::{Bound, COORD_LIMIT, Lookup, wrap_index};
use super::{Dim, Filter, Format, LANES, MipFilter, Reg, Sampler, Swizzle, Wrap};
use crate::math::simd;

/// One f32 per lane.
pub(crate) type Row = [f32; LANES];

/// The four channels (r, g, b, a) of a batch's results, one row each.
pub(crate) type Rows = [Row; 4];

/// One level of a view as a batch's bilinear taps read it
/// (`Bound::inline_level`): what the compiled engine's inline sampling
/// needs besides the decode.
#[derive(Clone, Copy)]
pub struct InlineLevel<'a> {
    /// The level's texels (complete), `texel_bytes` each: 4 (RGBA8) or 16
    /// (RGBA32F, four little-endian f32).
    pub texels: &'a [u8],
    pub texel_bytes: u32,
    /// Width and height (each at most 2^24).
    pub size: [u32; 2],
    /// The slice's first texel row, `slice * height` (wrapping).
    pub slice_rows: u32,
    /// The coordinates' scale: the size (normalized) or 1.
    pub scale: [f32; 2],
    pub wrap: [InlineWrap; 2],
}

impl InlineLevel<'_> {
    /// The texels are RGBA32F (else RGBA8).
    pub fn is_float(&self) -> bool {
        self.texel_bytes == 16
    }
}

/// How an axis of an [`InlineLevel`] wraps its texel indices: as the
/// bilinear kernel does, or as `wrap_index` does MIRROR_REPEAT on a
/// power-of-two size, MIRROR_CLAMP_TO_EDGE, and REPEAT and MIRROR_REPEAT
/// on any other size (by the index's remainder, `rem_euclid`, of the
/// size or twice the size).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InlineWrap {
    Kernel(simd::AxisWrap),
    MirrorRepeatPow2,
    MirrorClampToEdge,
    RepeatAny,
    MirrorRepeatAny,
}

/// How the compiled code wraps an axis of `n` texels by `mode`, when it
/// can (every mode that never reads the border).
fn inline_wrap(mode: Wrap, n: u32) -> Option<InlineWrap> {
    match mode {
        Wrap::Repeat if n.is_power_of_two() => Some(InlineWrap::Kernel(simd::AxisWrap::RepeatPow2)),
        Wrap::Clamp | Wrap::ClampToEdge => Some(InlineWrap::Kernel(simd::AxisWrap::Clamp)),
        Wrap::MirrorRepeat if n.is_power_of_two() => Some(InlineWrap::MirrorRepeatPow2),
        Wrap::MirrorClampToEdge => Some(InlineWrap::MirrorClampToEdge),
        Wrap::Repeat => Some(InlineWrap::RepeatAny),
        Wrap::MirrorRepeat => Some(InlineWrap::MirrorRepeatAny),
        _ => None,
    }
}

/// The texel layouts the batch path decodes itself.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Texels {
    /// 4 bytes, r g b a, each `byte / 255` (the UNORM8 rule).
    Rgba8Unorm,
    /// 4 bytes, r g b through the sRGB decode table, a as UNORM8.
    Rgba8Srgb,
    /// 16 bytes, four little-endian f32 bit patterns.
    Rgba32Float,
}

impl Texels {
    fn of(fmt: Format) -> Option<Texels> {
        match fmt {
            Format::Rgba8Unorm => Some(Texels::Rgba8Unorm),
            Format::Rgba8Srgb => Some(Texels::Rgba8Srgb),
            Format::Rgba32Float => Some(Texels::Rgba32Float),
            _ => None,
        }
    }
}

/// `byte / 255` rounded once, as the UNORM8 decode table holds it: the
/// quotient's reciprocal estimate `q = v * (1/255)` corrected by one
/// Newton step on the exact residual `v - 255 q` (two fused multiply-adds).
/// Exact for every byte (`unorm8_by_reciprocal_is_exact` in the tests); a
/// multiply and two FMAs instead of a division.
#[inline(always)]
pub(super) fn unorm8(v: f32) -> f32 {
    const R: f32 = 1.0 / 255.0;
    let q = v * R;
    let e = (-q).mul_add(255.0, v);
    e.mul_add(R, q)
}

/// All ones in the lanes where `cond` holds.
#[inline(always)]
fn lane_mask(cond: bool) -> u32 {
    (cond as u32).wrapping_neg()
}

/// `a` where `mask` is all ones, `b` where it is zero (bitwise, no branch).
#[inline(always)]
fn select(mask: u32, a: f32, b: f32) -> f32 {
    f32::from_bits(a.to_bits() & mask | b.to_bits() & !mask)
}

/// The sample core's `sanitize` without a branch: NaN gives +0, the rest
/// is clamped to ±`COORD_LIMIT` by the same compares as `f32::clamp`.
#[inline(always)]
fn sanitize_lane(u: f32) -> f32 {
    let u = f32::from_bits(u.to_bits() & lane_mask(!u.is_nan()));
    let u = if u < -COORD_LIMIT { -COORD_LIMIT } else { u };
    if u > COORD_LIMIT { COORD_LIMIT } else { u }
}

/// The widest and highest level the batch path samples: 2^24 texels, the
/// coordinate limit, so that every index and the mirror period fit in i32.
const MAX_SIDE: u32 = 1 << 24;

/// 1.5 * 2^23: an integer-valued f32 of magnitude below 2^22 plus this
/// is exact, with the integer in the low bits.
const MAGIC: f32 = 12_582_912.0;

/// A per-lane quantity that is one value for every lane (`u32`) or one per
/// lane (`[u32; LANES]`): the level a lane reads and its sizes. With `u32`
/// the lane loops see one scalar, as before levels could differ.
trait PerLane: Copy {
    /// True for the per-lane form.
    const PER_LANE: bool;
    /// The value of lane `l`.
    fn at(&self, l: usize) -> u32;
    /// `f` of each value.
    fn map(&self, f: impl Fn(u32) -> u32) -> Self;
}

impl PerLane for u32 {
    const PER_LANE: bool = false;
    #[inline(always)]
    fn at(&self, _: usize) -> u32 {
        *self
    }
    #[inline(always)]
    fn map(&self, f: impl Fn(u32) -> u32) -> u32 {
        f(*self)
    }
}

impl PerLane for [u32; LANES] {
    const PER_LANE: bool = true;
    #[inline(always)]
    fn at(&self, l: usize) -> u32 {
        self[l]
    }
    #[inline(always)]
    fn map(&self, f: impl Fn(u32) -> u32) -> [u32; LANES] {
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(self[l]);
        }
        r
    }
}

/// One axis of a batch's bilinear footprint: the two texel indices of every
/// lane (meaningful where the lane's `border` mask is clear; elsewhere the
/// tap reads the border colour) and the weight of the second.
struct Axis {
    i0: [i32; LANES],
    i1: [i32; LANES],
    /// all ones where the index reads the border
    border0: [u32; LANES],
    border1: [u32; LANES],
    weight: Row,
}

/// Where a batch's bilinear taps read, at the level(s) of its lanes.
struct Footprint<N> {
    /// the absolute level each lane reads
    level: N,
    /// the texels of the first lane's level (all lanes' with one level)
    texels_in_level: u64,
    /// texel index of each tap (t = 00, 10, 01, 11 as (x, y) index pairs)
    index: [[u32; LANES]; 4],
    /// all ones where the tap reads the border
    border_at: [[u32; LANES]; 4],
    /// some tap of some lane reads the border (`border_at` is not all zero)
    any_border: bool,
    /// the border colour, r g b a
    border: [f32; 4],
    /// the weights of the second tap on x and on y
    wx: Row,
    wy: Row,
}

impl<N> Footprint<N> {
    /// `border_at`, when some tap reads the border.
    #[inline(always)]
    fn border_taps(&self) -> Option<&[[u32; LANES]; 4]> {
        self.any_border.then_some(&self.border_at)
    }
}

/// The texel index of each tap in u32, from the axes `x` and `y` and the
/// slices `z` on levels of `w` by `h` texels: below w * h * d ≤ 2^32 where
/// the tap reads a texel (batch_layout_fits); border taps may wrap around, they
/// are replaced. And where each tap reads the border, and whether any does.
#[inline(always)]
fn tap_indices<N: PerLane>(
    x: &Axis,
    y: &Axis,
    z: &[u32; LANES],
    w: &N,
    h: &N,
) -> ([[u32; LANES]; 4], [[u32; LANES]; 4], bool) {
    let mut index = [[0u32; LANES]; 4];
    let mut border_at = [[0u32; LANES]; 4];
    let mut any_border = 0u32;
    for l in 0..LANES {
        let row0 = z[l]
            .wrapping_mul(h.at(l))
            .wrapping_add(y.i0[l] as u32)
            .wrapping_mul(w.at(l));
        let row1 = z[l]
            .wrapping_mul(h.at(l))
            .wrapping_add(y.i1[l] as u32)
            .wrapping_mul(w.at(l));
        index[0][l] = row0.wrapping_add(x.i0[l] as u32);
        index[1][l] = row0.wrapping_add(x.i1[l] as u32);
        index[2][l] = row1.wrapping_add(x.i0[l] as u32);
        index[3][l] = row1.wrapping_add(x.i1[l] as u32);
        border_at[0][l] = x.border0[l] | y.border0[l];
        border_at[1][l] = x.border1[l] | y.border0[l];
        border_at[2][l] = x.border0[l] | y.border1[l];
        border_at[3][l] = x.border1[l] | y.border1[l];
        any_border |= y.border0[l] | y.border1[l] | x.border0[l] | x.border1[l];
    }
    (index, border_at, any_border != 0)
}

/// The sample core's `axis_linear` after its coordinate set-up, over the
/// lanes: `c` the coordinate, `n` the size on this axis of the level each
/// lane reads (`pow2`: all of them powers of two).
#[inline(always)]
fn axis<N: PerLane>(
    mode: Wrap,
    c: &[u32; LANES],
    offset: &[u32; LANES],
    n: &N,
    pow2: bool,
    unnorm: bool,
) -> Axis {
    let mirror_clamp = lane_mask(mode == Wrap::MirrorClamp);
    let mut a = Axis {
        i0: [0; LANES],
        i1: [0; LANES],
        border0: [0; LANES],
        border1: [0; LANES],
        weight: [0.0; LANES],
    };
    let mut floor = [0f32; LANES];
    let mut big = 0u32;
    for l in 0..LANES {
        // n ≤ 2^24 (batch_layout_fits): exact in f32, as the sample core's
        // `n as i64 as f32`
        let nf = n.at(l) as i32 as f32;
        // the scale (1 in texel units) is exact and never changes a value
        // (x * 1 = x, NaN aside, and NaN is gone)
        let scale = if unnorm { 1.0 } else { nf };
        let t = sanitize_lane(f32::from_bits(c[l])) * scale;
        let u = sanitize_lane(t + offset[l] as i32 as f32);
        // MIRROR_CLAMP: |u| clamped to n (`f32::min` of non-NaN values)
        let m = u.abs();
        let m = if nf < m { nf } else { m };
        let u = select(mirror_clamp, m, u);
        let x = u - 0.5;
        let f = x.floor();
        a.weight[l] = x - f;
        floor[l] = f;
        // the integer f, for |f| < 2^22: f + 1.5 * 2^23 is exact and its
        // bits are those of 1.5 * 2^23 plus f (for larger f, see below)
        a.i0[l] = ((f + MAGIC).to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
        big |= lane_mask(f.abs() >= 4_194_304.0);
    }
    if big != 0 {
        // some |f| in [2^22, 2^24] (the sanitizing bounds it): exact in i32
        for l in 0..LANES {
            a.i0[l] = floor[l] as i32;
        }
    }
    let mut outside = 0u32;
    for l in 0..LANES {
        a.i1[l] = a.i0[l] + 1;
        // both indices in [0, n) unless i0 is outside [0, n - 1)
        outside |= lane_mask(a.i0[l] as u32 >= n.at(l) - 1);
    }
    if outside != 0 {
        wrap_row(mode, &mut a.i0, &mut a.border0, n, pow2);
        wrap_row(mode, &mut a.i1, &mut a.border1, n, pow2);
    }
    a
}

/// [`wrap_index`] over a row of indices on axes of `n` texels (per lane;
/// `pow2`: all of them powers of two): wraps them in place and sets
/// `border` (all ones where the index reads the border; the index is then
/// left as is).
#[inline(always)]
fn wrap_row<N: PerLane>(
    mode: Wrap,
    i: &mut [i32; LANES],
    border: &mut [u32; LANES],
    n: &N,
    pow2: bool,
) {
    // n ≤ 2^24 (batch_layout_fits): the last index and the mirror period fit in i32
    let last = |l: usize| n.at(l) as i32 - 1;
    // the mirror image -1 - i of a negative index is !i = i ^ (i >> 31)
    let mirror = |v: i32| v ^ (v >> 31);
    match mode {
        Wrap::Repeat if pow2 => {
            // rem_euclid by a power of two of a two's-complement index
            for l in 0..LANES {
                i[l] &= last(l);
            }
        }
        Wrap::MirrorRepeat if pow2 => {
            // k = i mod 2n, then mirrored in the second half
            for l in 0..LANES {
                let period = 2 * last(l) + 1;
                let k = i[l] & period;
                i[l] = if k > last(l) { period - k } else { k };
            }
        }
        Wrap::Clamp | Wrap::ClampToEdge => {
            for l in 0..LANES {
                i[l] = i[l].max(0).min(last(l));
            }
        }
        Wrap::ClampToBorder | Wrap::MirrorClamp => {
            for l in 0..LANES {
                border[l] = lane_mask(i[l] as u32 > last(l) as u32);
            }
        }
        Wrap::MirrorClampToEdge => {
            for l in 0..LANES {
                i[l] = mirror(i[l]).min(last(l));
            }
        }
        Wrap::MirrorClampToBorder => {
            for l in 0..LANES {
                let j = mirror(i[l]);
                border[l] = lane_mask(j > last(l));
                i[l] = j;
            }
        }
        Wrap::Repeat | Wrap::MirrorRepeat => {
            for l in 0..LANES {
                if let Some(w) = wrap_index(mode, i[l] as i64, n.at(l) as i64) {
                    i[l] = w as i32;
                }
            }
        }
    }
}

/// The sample core's `lerp` over the lanes without its NaN rule: the plain
/// steps `x + a * (y - x)` (`x` where `a = 0`), which vectorize. Their
/// result is NaN exactly when one of the steps is (NaN propagates) and is
/// `lerp`'s otherwise.
#[inline(always)]
fn lerp_row(x: &Row, y: &Row, a: &Row) -> Row {
    let mut v = [0f32; LANES];
    for l in 0..LANES {
        let r = x[l] + a[l] * (y[l] - x[l]);
        v[l] = select(lane_mask(a[l] == 0.0), x[l], r);
    }
    v
}

/// [`lerp_row`] for the four channels of one lane's texels.
#[inline(always)]
fn lerp_texel(x: [f32; 4], y: [f32; 4], a: f32) -> [f32; 4] {
    let keep = lane_mask(a == 0.0);
    let f = |c: usize| select(keep, x[c], x[c] + a * (y[c] - x[c]));
    [f(0), f(1), f(2), f(3)]
}

/// The addressing inputs of a batch's lanes (what the sample core's
/// `Lookup` holds for one lane, for a 2D view), as register rows.
pub(crate) struct BatchLookup<'a> {
    /// s, t (normalized or texel units) and the array layer (ignored for
    /// non-array views) in x, y and z, f32 bits. (One reference per
    /// register: the kernels' loads of them then wait on no partial store.)
    coords: &'a Reg,
    /// integer texel offsets on s and t in x and y
    offsets: &'a Reg,
}

impl<'a> BatchLookup<'a> {
    /// s, t and the layer from x, y and z of `coords`; the offsets from x
    /// and y of `offsets`.
    pub fn of(coords: &'a Reg, offsets: &'a Reg) -> BatchLookup<'a> {
        BatchLookup { coords, offsets }
    }

    /// s (`a` 0) or t (1).
    #[inline(always)]
    fn coord(&self, a: usize) -> &'a [u32; LANES] {
        &self.coords[a]
    }

    /// The texel offset on s (`a` 0) or t (1).
    #[inline(always)]
    fn offset(&self, a: usize) -> &'a [u32; LANES] {
        &self.offsets[a]
    }

    /// The array layer coordinate.
    #[inline(always)]
    fn layer(&self) -> &'a [u32; LANES] {
        &self.coords[2]
    }
}

/// The sampler and format conditions of the batch path (with
/// [`Bound::batch_layout_fits`]) (linear min
/// and mag filters, a texel layout the batch path decodes), to be tested
/// before a view is resolved.
pub(crate) fn batch_may_fit(s: &Sampler, fmt: Format) -> bool {
    s.min == Filter::Linear && s.mag == Filter::Linear && Texels::of(fmt).is_some()
}

/// The arguments of [`Bound::lookups`], run by [`simd::wide`].
struct Lookups<'a, 'b, N> {
    bound: &'a Bound<'b>,
    s: &'a Sampler,
    rel: N,
    q: &'a BatchLookup<'a>,
}

impl<N: PerLane> simd::Kernel for Lookups<'_, '_, N> {
    type Out = Rows;
    #[inline(always)]
    fn run(self) -> Rows {
        self.bound.lookups(self.s, self.rel, self.q)
    }
}

impl<'a> Bound<'a> {
    /// True when [`Self::bilinear_batch`] gives what [`Self::sample`] gives
    /// without a depth compare, at any LOD that selects a level, for a
    /// sampler and format of [`batch_may_fit`] (linear min and mag filters,
    /// an RGBA8 UNORM or sRGB or RGBA32F texture): a 2D view (array and
    /// RECT included) of a texture with one sample per texel, at most
    /// [`MAX_SIDE`] texels wide and high, whose texel indices fit in 32
    /// bits.
    pub(crate) fn batch_layout_fits(&self) -> bool {
        let (w, h, d) = self.tex.level_dims(self.first_level);
        self.shape.dim == Dim::D2
            && !self.shape.msaa
            && self.tex.samples == 1
            && w <= MAX_SIDE
            && h <= MAX_SIDE
            && w as u64 * h as u64 * d as u64 <= u32::MAX as u64
    }

    /// True when every LOD selects the view's first level (no mipmapping,
    /// or a view of one level), so one [`Self::bilinear_batch`] call serves
    /// all lanes whatever their LOD.
    pub(crate) fn batch_single_level(&self, s: &Sampler) -> bool {
        s.mip == MipFilter::None || self.nlevels == 1
    }

    /// The view level (relative) [`Self::sample`] reads at `lod` with mip
    /// filter NEAREST and equal min/mag filters.
    pub(crate) fn nearest_level(&self, lod: f32) -> u32 {
        if lod.is_nan() || lod <= 0.0 {
            0
        } else {
            ((lod + 0.5).floor().min((self.nlevels - 1) as f32)) as u32
        }
    }

    /// [`Self::layer_of`] over the lanes: each lane's absolute slice.
    fn slices(&self, layer: &[u32; LANES]) -> [u32; LANES] {
        if !self.shape.array {
            return [self.first_layer; LANES];
        }
        let top = (self.nlayers.max(1) - 1) as f32;
        let mut z = [0u32; LANES];
        for l in 0..LANES {
            let c = f32::from_bits(layer[l]);
            let r = if c.is_nan() { 0.0 } else { c.round_ties_even() };
            z[l] = self.first_layer + r.clamp(0.0, top) as u32;
        }
        z
    }

    /// Bilinear lookups at view level `rel` for every lane at `q`'s
    /// coordinates, layers and offsets, exactly as [`Self::sample`]
    /// computes them at that level: each lane's raw (unswizzled) result.
    /// Only for views and samplers where [`Self::batch_layout_fits`] and
    /// [`batch_may_fit`].
    pub(crate) fn bilinear_batch(&self, s: &Sampler, rel: u32, q: &BatchLookup) -> Rows {
        if let Some(out) = self.rgba8_one_level(s, rel, q) {
            return out;
        }
        simd::wide(Lookups {
            bound: self,
            s,
            rel,
            q,
        })
    }

    /// [`Self::bilinear_batch`] with each lane at its own view level
    /// `rel[l]` (the levels of mipmapped lookups).
    pub(crate) fn bilinear_levels(&self, s: &Sampler, rel: &[u32; LANES], q: &BatchLookup) -> Rows {
        simd::wide(Lookups {
            bound: self,
            s,
            rel: *rel,
            q,
        })
    }

    /// The lookups of [`Self::bilinear_batch`] (`rel` one level) and
    /// [`Self::bilinear_levels`] (a level per lane).
    #[inline(always)]
    fn lookups<N: PerLane>(&self, s: &Sampler, rel: N, q: &BatchLookup) -> Rows {
        let out = [[0f32; LANES]; 4];
        let Some(texels) = Texels::of(self.fmt) else {
            return out;
        };
        let fp = self.footprint(s, rel, q);
        match texels {
            Texels::Rgba8Unorm | Texels::Rgba8Srgb => self.rgba8_rows(texels, &fp),
            Texels::Rgba32Float => {
                let mut out = self.rgba32f_rows(&fp);
                // a result that is not NaN had NaN-free steps (NaN
                // propagates, and a lerp by 0 keeps its first operand):
                // the general path gives the same bits. NaN lanes (NaN or
                // infinite texels, a NaN border colour) again on the
                // general path, whose lerp follows the NaN rule
                let mut nan = [0u32; LANES];
                for l in 0..LANES {
                    nan[l] = lane_mask(
                        out[0][l].is_nan()
                            | out[1][l].is_nan()
                            | out[2][l].is_nan()
                            | out[3][l].is_nan(),
                    );
                }
                if nan.iter().fold(0, |a, &m| a | m) != 0 {
                    let rel = std::array::from_fn(|l| rel.at(l));
                    self.redo_lanes(s, &rel, q, &nan, &mut out);
                }
                out
            }
        }
    }

    /// The RGBA8 lookups of one level by [`simd::rgba8_bilinear`] (the same
    /// steps in AVX-512 registers), when [`Self::rgba8_kernel`] describes
    /// the level; None (the caller takes the steps below) otherwise or
    /// without AVX-512.
    #[inline(always)]
    fn rgba8_one_level(&self, s: &Sampler, rel: u32, q: &BatchLookup) -> Option<Rows> {
        let k = self.rgba8_kernel(s, rel)?;
        let mut out = [[0f32; LANES]; 4];
        simd::rgba8_bilinear(
            &k,
            [q.coord(0), q.coord(1)],
            [q.offset(0), q.offset(1)],
            &mut out,
        )
        .then_some(out)
    }

    /// Level `rel` of an RGBA8 (UNORM or sRGB) view that is not an array,
    /// when the level is complete and the sampler's wraps never read the
    /// border (REPEAT on a power-of-two size, CLAMP, CLAMP_TO_EDGE), as the
    /// bilinear kernels take it ([`simd::rgba8_bilinear_fits`]); None
    /// otherwise.
    #[inline(always)]
    pub(crate) fn rgba8_kernel(&self, s: &Sampler, rel: u32) -> Option<simd::Rgba8Bilinear<'a>> {
        // (one slice for all lanes: not an array's)
        if self.shape.array {
            return None;
        }
        let k = self.inline_level(s, rel, None)?;
        if k.texel_bytes != 4 {
            return None;
        }
        let (px, _) = k.texels.as_chunks::<4>();
        let kernel = |w: InlineWrap| match w {
            InlineWrap::Kernel(w) => Some(w),
            _ => None,
        };
        let k = simd::Rgba8Bilinear {
            texels: px,
            size: k.size,
            slice_rows: k.slice_rows,
            scale: k.scale,
            wrap: [kernel(k.wrap[0])?, kernel(k.wrap[1])?],
            srgb: self.srgb_decode(),
        };
        simd::rgba8_bilinear_fits(&k).then_some(k)
    }

    /// The sRGB decode table of an sRGB view's colour channels (None for
    /// other formats).
    #[inline(always)]
    pub(crate) fn srgb_decode(&self) -> Option<&'static [f32; 256]> {
        (Texels::of(self.fmt) == Some(Texels::Rgba8Srgb)).then(srgb_to_linear_table)
    }

    /// Level `rel` of an RGBA8 (UNORM or sRGB) or RGBA32F view that is 2D
    /// or a 2D array (`slice_rows` then the first layer's), when the level
    /// is complete, the sampler's wraps never
    /// read the border (REPEAT, MIRROR_REPEAT, CLAMP, CLAMP_TO_EDGE,
    /// MIRROR_CLAMP_TO_EDGE) and every texel's last
    /// word has an index below 2^31:
    /// where a batch's bilinear taps read and how they are weighted, the
    /// same for both formats ([`Self::rgba8_kernel`] for RGBA8); None
    /// otherwise. With `copy` (an sRGB view's texture decoded, by absolute
    /// level: [`super::linear::LinearCopies`]), the level's texels are the
    /// copy's RGBA32F ones.
    #[inline(always)]
    pub(crate) fn inline_level(
        &self,
        s: &Sampler,
        rel: u32,
        copy: Option<&'a [Vec<u8>]>,
    ) -> Option<InlineLevel<'a>> {
        // (a 2D array's layers: the compiled code adds each lane's layer)
        if self.shape.array && self.shape.dim != Dim::D2 {
            return None;
        }
        let level = self.first_level + rel;
        let (w, h, d) = self.tex.level_dims(level);
        // a copy's levels hold RGBA32F texels; without one, the formats
        // the compiled code decodes
        let (texel_bytes, bytes) = match (copy, Texels::of(self.fmt)) {
            (Some(levels), _) => (16, levels.get(level as usize).map_or(&[][..], |v| v)),
            (None, Some(Texels::Rgba32Float)) => (16, self.level_bytes(level)),
            (None, Some(_)) => (4, self.level_bytes(level)),
            (None, None) => return None,
        };
        let count = bytes.len() / texel_bytes;
        complete(count, w as u64 * h as u64 * d as u64)?;
        let wrap = inline_wrap;
        let unnorm = !s.normalized || self.shape.rect;
        let words = count as u64 * texel_bytes as u64 / 4;
        let sides = [w, h].iter().all(|&n| (1..=1 << 24).contains(&n));
        (words <= 1 << 31 && sides).then_some(())?;
        Some(InlineLevel {
            texels: &bytes[..count * texel_bytes],
            texel_bytes: texel_bytes as u32,
            size: [w, h],
            slice_rows: self.first_layer.wrapping_mul(h),
            scale: if unnorm {
                [1.0, 1.0]
            } else {
                [w as i32 as f32, h as i32 as f32]
            },
            wrap: [wrap(s.wrap[0], w)?, wrap(s.wrap[1], h)?],
        })
    }

    /// Whether a copy of this view's texture could be sampled inline
    /// ([`Self::inline_level`] with a copy) where its own texels cannot: a
    /// 2D or 2D array view whose sampler's wraps on s and t never read the
    /// border, of a format whose values are filtered and which the
    /// compiled code does not decode itself.
    pub(crate) fn copy_may_inline(&self, s: &Sampler) -> bool {
        let shape = !self.shape.array || self.shape.dim == Dim::D2;
        let wraps = (0..2).all(|a| inline_wrap(s.wrap[a], 1).is_some());
        shape && wraps && !self.fmt.is_integer() && Texels::of(self.fmt).is_none()
    }

    /// The bytes of absolute level `k` (none past the last level).
    #[inline(always)]
    fn level_bytes(&self, k: u32) -> &'a [u8] {
        self.tex.levels.get(k as usize).map_or(&[], |v| v)
    }

    /// Where the lanes' bilinear taps at view level(s) `rel` read: each
    /// lane's level and its size, the two axes and the four taps' texel
    /// indices and border masks, and the border colour.
    #[inline(always)]
    fn footprint<N: PerLane>(&self, s: &Sampler, rel: N, q: &BatchLookup) -> Footprint<N> {
        // each lane's level, its size and bytes
        let level = rel.map(|r| self.first_level + r);
        let (w0, h0, d) = self.tex.level_dims(level.at(0));
        let w = level.map(|k| self.tex.level_dims(k).0);
        let h = level.map(|k| self.tex.level_dims(k).1);
        let mut pow2 = true;
        for l in 0..LANES {
            pow2 &= w.at(l).is_power_of_two() & h.at(l).is_power_of_two();
        }
        let (pow2_x, pow2_y) = if N::PER_LANE {
            (pow2, pow2)
        } else {
            (w0.is_power_of_two(), h0.is_power_of_two())
        };
        // one level: its bytes hold every texel? (else a texel past their
        // end reads as zeros, as in the general path)
        let texels_in_level = w0 as u64 * h0 as u64 * d as u64;
        let unnorm = !s.normalized || self.shape.rect;
        let x = axis(s.wrap[0], q.coord(0), q.offset(0), &w, pow2_x, unnorm);
        let y = axis(s.wrap[1], q.coord(1), q.offset(1), &h, pow2_y, unnorm);
        let z = self.slices(q.layer());
        let (index, border_at, any_border) = tap_indices(&x, &y, &z, &w, &h);
        let [r, g, b, a] = self.border(s);
        let border = [
            f32::from_bits(r),
            f32::from_bits(g),
            f32::from_bits(b),
            f32::from_bits(a),
        ];
        Footprint {
            level,
            texels_in_level,
            index,
            border_at,
            any_border,
            border,
            wx: x.weight,
            wy: y.weight,
        }
    }

    /// The filtered RGBA8 (UNORM or sRGB) rows of a batch's footprint.
    #[inline(always)]
    fn rgba8_rows<N: PerLane>(&self, texels: Texels, fp: &Footprint<N>) -> Rows {
        let data = |l: usize| -> &[u8] { self.level_bytes(fp.level.at(l)) };
        let index = &fp.index;
        let word = if N::PER_LANE {
            let mut px: [&[[u8; 4]]; LANES] = [&[]; LANES];
            for l in 0..LANES {
                px[l] = data(l).as_chunks::<4>().0;
            }
            [
                gather_words_per_lane(&px, &index[0]),
                gather_words_per_lane(&px, &index[1]),
                gather_words_per_lane(&px, &index[2]),
                gather_words_per_lane(&px, &index[3]),
            ]
        } else {
            let (px, _) = data(0).as_chunks::<4>();
            let top = complete(px.len(), fp.texels_in_level);
            [
                gather_words(px, &index[0], top),
                gather_words(px, &index[1], top),
                gather_words(px, &index[2], top),
                gather_words(px, &index[3], top),
            ]
        };
        let srgb = (texels == Texels::Rgba8Srgb).then(srgb_to_linear_table);
        let border_taps = fp.border_taps();
        let (border, wx, wy) = (&fp.border, &fp.wx, &fp.wy);
        // finite texels and weights: never NaN
        [
            rgba8_channel::<0>(&word, srgb, border_taps, border[0], wx, wy),
            rgba8_channel::<8>(&word, srgb, border_taps, border[1], wx, wy),
            rgba8_channel::<16>(&word, srgb, border_taps, border[2], wx, wy),
            // alpha is UNORM8 in both
            rgba8_channel::<24>(&word, None, border_taps, border[3], wx, wy),
        ]
    }

    /// The filtered RGBA32F rows of a batch's footprint (NaN where the
    /// steps give NaN: see [`Self::lookups`]).
    #[inline(always)]
    fn rgba32f_rows<N: PerLane>(&self, fp: &Footprint<N>) -> Rows {
        let mut out = [[0f32; LANES]; 4];
        let data = |l: usize| -> &[u8] { self.level_bytes(fp.level.at(l)) };
        let border_taps = fp.border_taps();
        let (index, border, wx, wy) = (&fp.index, fp.border, &fp.wx, &fp.wy);
        let (px0, _) = data(0).as_chunks::<16>();
        let top = if N::PER_LANE {
            None
        } else {
            complete(px0.len(), fp.texels_in_level)
        };
        // lane by lane, the four channels of a texel in one vector
        let mut texel = [[0f32; 4]; LANES];
        for l in 0..LANES {
            let px = if N::PER_LANE {
                data(l).as_chunks::<16>().0
            } else {
                px0
            };
            let tap = |t: usize| -> [f32; 4] {
                if border_taps.is_some_and(|b| b[t][l] != 0) {
                    return border;
                }
                let i = index[t][l] as usize;
                // as for RGBA8
                let b = match top {
                    Some(top) => &px[i.min(top)],
                    None => px.get(i).unwrap_or(&[0; 16]),
                };
                let f = |k: usize| f32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]);
                [f(0), f(4), f(8), f(12)]
            };
            let r0 = lerp_texel(tap(0), tap(1), wx[l]);
            let r1 = lerp_texel(tap(2), tap(3), wx[l]);
            texel[l] = lerp_texel(r0, r1, wy[l]);
        }
        for l in 0..LANES {
            out[0][l] = texel[l][0];
        }
        for l in 0..LANES {
            out[1][l] = texel[l][1];
        }
        for l in 0..LANES {
            out[2][l] = texel[l][2];
        }
        for l in 0..LANES {
            out[3][l] = texel[l][3];
        }
        out
    }

    /// The lanes set in `redo` of [`Self::bilinear_batch`]'s `out`, on the
    /// general path.
    #[cold]
    #[inline(never)]
    fn redo_lanes(
        &self,
        s: &Sampler,
        rel: &[u32; LANES],
        q: &BatchLookup,
        redo: &[u32; LANES],
        out: &mut Rows,
    ) {
        for l in (0..LANES).filter(|&l| redo[l] != 0) {
            let one = Lookup {
                coord: [
                    f32::from_bits(q.coord(0)[l]),
                    f32::from_bits(q.coord(1)[l]),
                    0.0,
                ],
                layer: f32::from_bits(q.layer()[l]),
                offset: [q.offset(0)[l] as i32, q.offset(1)[l] as i32, 0],
            };
            let v = self.sample_level_2d(s, &one, rel[l], Filter::Linear);
            for c in 0..4 {
                out[c][l] = f32::from_bits(v[c]);
            }
        }
    }

    /// Writes the view-swizzled `rows` (raw results of
    /// [`Self::bilinear_batch`]) to the lanes of `out` set in `active`,
    /// through `order` (the SVIEW operand's swizzle, or the identity):
    /// channel c of `out` is component `order[c]` of the view-swizzled
    /// texel, as [`Self::swizzle`] gives it lane by lane.
    pub(crate) fn write_rows(&self, rows: &Rows, order: [usize; 4], active: u16, out: &mut Reg) {
        // one call per row (a loop over the rows would vectorize across them)
        let [x, y, z, w] = out;
        self.write_row(rows, order[0], active, x);
        self.write_row(rows, order[1], active, y);
        self.write_row(rows, order[2], active, z);
        self.write_row(rows, order[3], active, w);
    }

    /// One row of [`Self::write_rows`]: component `k` of the view-swizzled texels.
    #[inline(always)]
    fn write_row(&self, rows: &Rows, k: usize, active: u16, dst: &mut [u32; LANES]) {
        let s = self.swizzle[k & 3];
        let row = s.component().map(|c| &rows[c]);
        // these formats are never integer
        let constant = if s == Swizzle::One { 1f32.to_bits() } else { 0 };
        let mut src = [constant; LANES];
        if let Some(row) = row {
            for l in 0..LANES {
                src[l] = row[l].to_bits();
            }
        }
        for l in 0..LANES {
            dst[l] = if active >> l & 1 == 1 { src[l] } else { dst[l] };
        }
    }
}

/// The last texel index of a level's bytes when they hold all its
/// `texels` (`len` texels' worth of them).
#[inline(always)]
fn complete(len: usize, texels: u64) -> Option<usize> {
    (texels > 0 && len as u64 >= texels).then(|| len - 1)
}

/// One tap's RGBA8 words for every lane: the texel at each index, clamped
/// to `top` when the level's bytes hold every texel (an index past them
/// is a border tap's), else zero past the bytes' end.
#[inline(always)]
fn gather_words(px: &[[u8; 4]], index: &[u32; LANES], top: Option<usize>) -> [u32; LANES] {
    let mut w = [0u32; LANES];
    match top {
        Some(top) => {
            for l in 0..LANES {
                w[l] = u32::from_le_bytes(px[(index[l] as usize).min(top)]);
            }
        }
        None => {
            for l in 0..LANES {
                w[l] = px
                    .get(index[l] as usize)
                    .map_or(0, |b| u32::from_le_bytes(*b));
            }
        }
    }
    w
}

/// [`gather_words`] with each lane reading its own level's texels `px[l]`
/// (zero past their end).
#[inline(always)]
fn gather_words_per_lane(px: &[&[[u8; 4]]; LANES], index: &[u32; LANES]) -> [u32; LANES] {
    let mut w = [0u32; LANES];
    for l in 0..LANES {
        w[l] = px[l]
            .get(index[l] as usize)
            .map_or(0, |b| u32::from_le_bytes(*b));
    }
    w
}

/// The byte at `SHIFT` of each word, through the sRGB table or as UNORM8.
#[inline(always)]
fn decode_row<const SHIFT: u32>(word: &[u32; LANES], srgb: Option<&[f32; 256]>) -> Row {
    let mut r = [0f32; LANES];
    match srgb {
        Some(table) => {
            for l in 0..LANES {
                r[l] = table[(word[l] >> SHIFT & 0xff) as usize];
            }
        }
        None => {
            for l in 0..LANES {
                r[l] = unorm8((word[l] >> SHIFT & 0xff) as i32 as f32);
            }
        }
    }
    r
}

/// One channel (the byte at `SHIFT`) of an RGBA8 batch: the four taps
/// decoded, the border colour `value` where `border_at` says, filtered.
/// (Calls per tap, not loops over them: a loop over the taps would be
/// vectorized across them, four lanes of it, instead of across the lanes.)
#[inline(always)]
fn rgba8_channel<const SHIFT: u32>(
    word: &[[u32; LANES]; 4],
    srgb: Option<&[f32; 256]>,
    border_at: Option<&[[u32; LANES]; 4]>,
    value: f32,
    wx: &Row,
    wy: &Row,
) -> Row {
    let mut taps = [
        decode_row::<SHIFT>(&word[0], srgb),
        decode_row::<SHIFT>(&word[1], srgb),
        decode_row::<SHIFT>(&word[2], srgb),
        decode_row::<SHIFT>(&word[3], srgb),
    ];
    if let Some(at) = border_at {
        with_border(&mut taps[0], &at[0], value);
        with_border(&mut taps[1], &at[1], value);
        with_border(&mut taps[2], &at[2], value);
        with_border(&mut taps[3], &at[3], value);
    }
    let r0 = lerp_row(&taps[0], &taps[1], wx);
    let r1 = lerp_row(&taps[2], &taps[3], wx);
    lerp_row(&r0, &r1, wy)
}

/// Puts the border colour `value` into the lanes of `tap` where `mask` is set.
#[inline(always)]
fn with_border(tap: &mut Row, mask: &[u32; LANES], value: f32) {
    for l in 0..LANES {
        tap[l] = select(mask[l], value, tap[l]);
    }
}
