//! [`execute`]: the adapter between the machine and the sampling core. It
//! reads each opcode's operand layout (Mesa's `tgsi.rst`), computes implicit LOD
//! from quad derivatives in the fragment stage, applies biases and clamps,
//! and writes the result of every active lane (inactive lanes are untouched).

use super::bilinear::{BatchLookup, Rows, batch_may_fit};
pub use super::bilinear::{InlineLevel, InlineWrap};
use super::sample::{Bound, BoundParts, Compare, Lookup, clamp_lod, lerp, query_level};
use super::{Bindings, Dim, Filter, LANES, MipFilter, Reg, Sampler, Shape, Swizzle, TexOp, View};
pub use crate::math::simd::{AxisWrap, Rgba8Bilinear};
use tgsi_ir::enums::TextureTarget;
use tgsi_ir::opcode::Opcode;

pub use tgsi_ir::samples::sample_position;

fn f(v: u32) -> f32 {
    f32::from_bits(v)
}

fn src<'a>(op: &TexOp, srcs: &'a [Reg], i: usize) -> Result<&'a Reg, String> {
    srcs.get(i).ok_or_else(|| {
        format!(
            "{} needs source operand {} (got {})",
            op.opcode,
            i,
            srcs.len()
        )
    })
}

/// Per-lane binding lookup with a one-entry cache.
struct Binder<'a, 'b> {
    b: &'b Bindings<'a>,
    target: TextureTarget,
    last: Option<(u32, Option<Bound<'a>>)>,
}

impl<'a> Binder<'a, '_> {
    fn get(&mut self, idx: u32) -> Result<Option<Bound<'a>>, String> {
        if let Some((i, bd)) = self.last
            && i == idx
        {
            return Ok(bd);
        }
        let bd = bind(self.b, self.target, idx)?;
        self.last = Some((idx, bd));
        Ok(bd)
    }
}

/// Texture `idx` of `b` resolved for `target` with its view (`None` when
/// unbound).
#[inline(always)]
fn bind<'a>(
    b: &Bindings<'a>,
    target: TextureTarget,
    idx: u32,
) -> Result<Option<Bound<'a>>, String> {
    match b.textures.get(idx as usize) {
        Some(Some(tex)) => {
            let default = View::default();
            let view = b.views.get(idx as usize).unwrap_or(&default);
            Bound::resolve(tex, view, target)
                .map(Some)
                .map_err(|e| format!("texture {idx}: {e}"))
        }
        _ => Ok(None),
    }
}

fn sampler_of(b: &Bindings, idx: u32) -> Sampler {
    b.samplers.get(idx as usize).copied().unwrap_or_default()
}

/// The target the lanes use: the instruction's, or (UNKNOWN) the first
/// active lane's texture's.
fn effective_target(b: &Bindings, op: &TexOp, sview: &[u32; LANES], active: u16) -> TextureTarget {
    if op.target != TextureTarget::Unknown {
        return op.target;
    }
    (0..LANES)
        .find(|&l| active >> l & 1 == 1)
        .and_then(|l| b.textures.get(sview[l] as usize))
        .and_then(|t| t.as_ref())
        .map_or(TextureTarget::Tex2D, |t| t.target)
}

fn is_sview_op(op: Opcode) -> bool {
    op.reads_sampler_view()
}

/// Writes `v` to lane `l` of `out`, through the SVIEW operand's swizzle for
/// SVIEW opcodes.
fn put(op: &TexOp, out: &mut Reg, l: usize, v: [u32; 4]) {
    let sw = is_sview_op(op.opcode);
    for c in 0..4 {
        out[c][l] = if sw {
            v[(op.resource_swizzle[c] & 3) as usize]
        } else {
            v[c]
        };
    }
}

/// The per-lane operands of one texture instruction.
#[derive(Clone, Copy)]
pub struct TexInputs<'a> {
    /// The non-resource source registers, in operand order.
    pub srcs: &'a [Reg],
    /// SVIEW (or resource) index of each lane.
    pub sview: &'a [u32; LANES],
    /// SAMP index of each lane.
    pub sampler: &'a [u32; LANES],
    /// Texel offsets (x, y, z rows).
    pub offsets: &'a Reg,
    /// Lanes that execute.
    pub active: u16,
}

/// The texture unit executes one texture/sampling opcode over the lanes.
pub fn execute(b: &Bindings, op: &TexOp, inp: &TexInputs, out: &mut Reg) -> Result<(), String> {
    execute_with(b, op, inp, out, true)
}

/// [`execute`] with every lookup on the per-lane general path
/// ([`Bound::sample`] for each lane): the reference the batched bilinear
/// path is tested against, and the baseline `benches/texture.rs` measures
/// it against. Same results, bit for bit, as [`execute`].
pub fn execute_per_lane(
    b: &Bindings,
    op: &TexOp,
    inp: &TexInputs,
    out: &mut Reg,
) -> Result<(), String> {
    execute_with(b, op, inp, out, false)
}

/// [`execute`]; `allow_batch` false keeps every lookup on the per-lane
/// general path (the reference the batch path is tested against).
pub(crate) fn execute_with(
    b: &Bindings,
    op: &TexOp,
    inp: &TexInputs,
    out: &mut Reg,
    allow_batch: bool,
) -> Result<(), String> {
    use Opcode as O;
    let TexInputs {
        srcs,
        sview,
        active,
        ..
    } = *inp;
    let target = effective_target(b, op, sview, active);
    let shape = Shape::of(target).ok_or("texture target UNKNOWN")?;
    let mut binder = Binder {
        b,
        target,
        last: None,
    };
    match op.opcode {
        O::TEX
        | O::TXP
        | O::TXB
        | O::TXL
        | O::TEX_LZ
        | O::TXD
        | O::TEX2
        | O::TXB2
        | O::TXL2
        | O::SAMPLE
        | O::SAMPLE_B
        | O::SAMPLE_C
        | O::SAMPLE_C_LZ
        | O::SAMPLE_D
        | O::SAMPLE_L
        | O::TG4
        | O::GATHER4
        | O::LODQ
        | O::LOD => sample_op(&mut binder, op, shape, inp, out, allow_batch),
        O::TXF | O::TXF_LZ | O::SAMPLE_I | O::SAMPLE_I_MS => {
            fetch_op(&mut binder, op, shape, inp, out)
        }
        O::TXQ | O::SVIEWINFO => size_op(&mut binder, op, shape, inp, out),
        O::TXQS | O::SAMPLE_INFO => {
            for l in (0..LANES).filter(|&l| active >> l & 1 == 1) {
                let n = binder.get(sview[l])?.map_or(0, |bd| bd.tex.samples);
                // both integers (tgsi.rst: SAMPLE_INFO is (samples, 0, 0, 0) as int4)
                for (c, v) in [n, 0, 0, 0].into_iter().enumerate() {
                    out[c][l] = v;
                }
            }
            Ok(())
        }
        O::SAMPLE_POS => {
            let idx = srcs
                .last()
                .ok_or("SAMPLE_POS needs a sample index operand")?;
            for l in (0..LANES).filter(|&l| active >> l & 1 == 1) {
                let n = binder.get(sview[l])?.map_or(1, |bd| bd.tex.samples);
                let (x, y) = sample_position(n, idx[0][l]).unwrap_or((0.0, 0.0));
                put(op, out, l, [x.to_bits(), y.to_bits(), 0, 0]);
            }
            Ok(())
        }
        other => Err(format!("{other} is not a texture opcode")),
    }
}

/// A fragment TEX or SAMPLE with a direct view and sampler, no offset,
/// resolved once for a set of bindings: what [`execute`]'s batch path
/// decides for it before it looks at the lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlannedSample {
    view: u32,
    sampler: Sampler,
    parts: BoundParts,
    order: [usize; 4],
    /// Every LOD reads the first level.
    single_level: bool,
    /// The min and mag filters are NEAREST (`plan_inline`'s plans only:
    /// `run_planned` does not take them).
    nearest: bool,
    /// A TXL or SAMPLE_L: the LOD is the instruction's operand plus the
    /// bias (`plan_inline`'s plans only: `run_planned` does not take them).
    explicit: bool,
}

/// The plan of `op` (a fragment TEX or SAMPLE of one source and no
/// offset) on view `view` and sampler `sampler` of `b`, when [`execute`]
/// takes its batch path for it: every check it makes on the instruction,
/// view and sampler passed. None: the instruction runs through [`execute`].
pub(crate) fn plan_sample(
    b: &Bindings,
    op: &TexOp,
    view: u32,
    sampler: u32,
) -> Option<PlannedSample> {
    plan_with(b, op, view, sampler, batch_may_fit)
}

/// What compiled code may sample inline for `op` (see `plan_sample`):
/// `plan_sample`'s plan, or the same checks passed by a sampler whose
/// min and mag filters are both NEAREST (which [`execute`] runs lane by
/// lane: `PlannedSample::nearest`); and the same for a TXL or SAMPLE_L of
/// any stage (its LOD operand in place of the derivatives').
pub(crate) fn plan_inline(
    b: &Bindings,
    op: &TexOp,
    view: u32,
    sampler: u32,
) -> Option<PlannedSample> {
    plan_sample(b, op, view, sampler)
        .or_else(|| plan_with(b, op, view, sampler, nearest_may_fit))
        .or_else(|| plan_with(b, op, view, sampler, copy_may_fit))
}

/// A sampler of equal min and mag filters on a format the batch path
/// does not decode but a draw's copy can ([`super::linear`]): filtered
/// values.
fn copy_may_fit(s: &Sampler, fmt: super::Format) -> bool {
    s.min == s.mag && !fmt.is_integer()
}

/// Whether `op` is one the plans take: a fragment TEX or SAMPLE, or a TXL
/// or SAMPLE_L of any stage (explicit: true), or a TEX or SAMPLE of
/// another stage (explicit too: its LOD, 0 plus the bias, is the explicit
/// rule's at a LOD operand of 0, the same bits).
fn plannable_op(op: &TexOp) -> Option<bool> {
    match op.opcode {
        Opcode::TEX | Opcode::SAMPLE => Some(!op.fragment),
        Opcode::TXL | Opcode::SAMPLE_L => Some(true),
        _ => None,
    }
}

/// A sampler of NEAREST min and mag filters on a format the batch path
/// decodes.
fn nearest_may_fit(s: &Sampler, fmt: super::Format) -> bool {
    s.min == Filter::Nearest && s.mag == Filter::Nearest && batch_may_fit(&linear(s), fmt)
}

/// `s` with LINEAR min and mag filters.
fn linear(s: &Sampler) -> Sampler {
    Sampler {
        min: Filter::Linear,
        mag: Filter::Linear,
        ..*s
    }
}

/// `plan_sample` with `filters` the test of the sampler and format.
fn plan_with(
    b: &Bindings,
    op: &TexOp,
    view: u32,
    sampler: u32,
    filters: fn(&Sampler, super::Format) -> bool,
) -> Option<PlannedSample> {
    let explicit = plannable_op(op)?;
    let (sview, samp) = ([view; LANES], [sampler; LANES]);
    let target = effective_target(b, op, &sview, 1);
    let shape = Shape::of(target)?;
    check_samplable(op, shape).ok()?;
    check_legacy_layout(op, shape).ok()?;
    let sources = if op.opcode == Opcode::SAMPLE_L { 2 } else { 1 };
    if !batch_covers(op.opcode, shape, sources, 1) {
        return None;
    }
    let (bd, s) = view_for(b, target, &sview, &samp, 1, filters).ok()??;
    Some(PlannedSample {
        view,
        sampler: *s,
        parts: bd.parts(),
        order: result_order(op),
        single_level: bd.batch_single_level(s),
        nearest: s.min == Filter::Nearest,
        explicit,
    })
}

/// [`execute`] of a planned instruction at coordinates `c0` for the
/// `active` lanes (some), when its batch path reads the first level for
/// every lane (one level, or magnified quads): the same bits into `out`.
/// False, with nothing written, otherwise: then [`execute`] runs it.
pub(crate) fn run_planned(
    b: &Bindings,
    p: &PlannedSample,
    c0: &Reg,
    active: u16,
    out: &mut Reg,
) -> bool {
    let Some(Some(tex)) = b.textures.get(p.view as usize) else {
        return false;
    };
    let bd = Bound::with_parts(tex, p.parts);
    let s = &p.sampler;
    if p.nearest
        || p.explicit
        || active == 0
        || !(p.single_level || bd.magnified_quads(s, c0, active))
    {
        return false;
    }
    let q = BatchLookup::of(c0, &[[0; LANES]; 4]);
    bd.write_rows(&bd.bilinear_batch(s, 0, &q), p.order, active, out);
    true
}

/// What compiled code needs to sample a planned instruction
/// (`plan_inline`) itself with [`execute`]'s bits: the levels of an RGBA8
/// or RGBA32F view as the batch path reads them (for RGBA8 bilinear the
/// AVX-512 kernel of `math::simd`, which the compiled code follows step for
/// step; NEAREST filters as the per-lane path reads one texel), and how
/// the filtered channels become the result ([`Self::select`]).
pub struct InlineBilinear<'a> {
    /// The first level: its texels, size, scale and wraps.
    pub first: InlineLevel<'a>,
    /// The sRGB decode table of the colour channels (None: UNORM8 or
    /// RGBA32F, [`InlineLevel::is_float`]).
    pub srgb: Option<&'a [f32; 256]>,
    /// The min and mag filters are NEAREST: each level is read at one
    /// texel per lane, the one at ⌊u⌋, ⌊v⌋ (`Bound::sample_level_2d`),
    /// decoded; else bilinearly.
    pub nearest: bool,
    /// A 2D array view's layer count (0: not an array): each lane reads
    /// layer `clamp(round_ties_even(r), 0, layers − 1)` (r its third
    /// coordinate, NaN as 0: `Bound::slices`) past the view's first, its
    /// rows `layer · height` past each level's `slice_rows`.
    pub layers: u32,
    /// A TXL or SAMPLE_L, or a TEX or SAMPLE outside the fragment stage:
    /// each lane's LOD is its operand (0 for TEX and SAMPLE) plus the bias,
    /// clamped to the sampler's range (`LodMode::Explicit`, and
    /// `LodMode::Implicit` without derivatives), and a batch not
    /// [`Self::single_level`] takes its levels by `lods` (no magnification
    /// test: `may_magnify` is false).
    pub explicit: bool,
    /// Every LOD reads the first level. Otherwise a batch takes the kernel
    /// only when every quad with an active lane is magnified: the squared
    /// lengths `a·a + b·b` (products rounded, then their sum) of its coarse
    /// derivatives towards the top-right and the bottom-left lanes, in
    /// texels (the coordinates times the kernel's scale), are at most 1 (a
    /// NaN is not); other batches take their levels by `lods`, or run
    /// [`execute`] without it.
    pub single_level: bool,
    /// False when the magnification test above cannot pass (the sampler's
    /// bias or minimum LOD is above 0 or NaN).
    pub may_magnify: bool,
    /// How a batch that is not magnified picks its levels, when the
    /// compiled code may do it itself (None: such batches run
    /// [`execute`]).
    pub lods: Option<InlineLods<'a>>,
    /// Result channel c, in the destination's order: the filtered r, g, b
    /// or a (0-3), 0.0 (4) or 1.0 (5): the view's swizzle of the SVIEW
    /// operand's component c (`BatchLookup::write_rows`).
    pub select: [u8; 4],
}

/// The most view levels [`InlineLods`] takes (sides up to 2^15 texels).
pub const MAX_INLINE_LEVELS: usize = 16;

/// What compiled code needs to sample a batch whose quads are not all
/// magnified as [`execute`] does (`quad_lods`, then `batch_at_lods`):
/// per quad, the LOD from its coarse derivatives (the squared lengths of
/// the magnification test, their square roots, the larger one's `log2f`),
/// plus the bias, clamped to the sampler's LOD range; per lane, the level
/// (and for mip LINEAR the next level's weight) `mip_levels` gives. The
/// compiled code runs the bilinear kernel of `levels[k]` when every active
/// lane reads level k (and of `levels[k + 1]` for the lanes that blend),
/// and hands other batches to [`execute`].
#[derive(Clone, Copy)]
pub struct InlineLods<'a> {
    /// Mip NEAREST (else LINEAR).
    pub nearest: bool,
    /// The sampler's bias and LOD range (never NaN; the bias finite).
    pub bias: f32,
    pub min_lod: f32,
    pub max_lod: f32,
    /// The view's levels (2 to [`MAX_INLINE_LEVELS`]), each as the batch
    /// path reads it; `levels[0]` is [`InlineBilinear::first`].
    pub count: u32,
    pub levels: [InlineLevel<'a>; MAX_INLINE_LEVELS],
}

/// The plan `p` (`plan_inline`) as [`InlineBilinear`], when the compiled
/// code reads the view's first level (`Bound::inline_level`); None
/// otherwise.
pub(crate) fn inline_bilinear<'a>(
    b: &Bindings<'a>,
    p: &PlannedSample,
) -> Option<InlineBilinear<'a>> {
    let Some(Some(tex)) = b.textures.get(p.view as usize) else {
        return None;
    };
    let bd = Bound::with_parts(tex, p.parts);
    let select = p.order.map(|k| match bd.swizzle[k & 3] {
        Swizzle::One => 5,
        s => s.component().map_or(4, |c| c as u8),
    });
    let s = &p.sampler;
    // the magnification test's rule (`Bound::magnified_quads`; none for
    // an explicit LOD)
    let may_magnify =
        !p.explicit && s.lod_bias <= 0.0 && s.min_lod <= 0.0 && bd.shape.dim == Dim::D2;
    let levels = |copy| {
        let first = bd.inline_level(s, 0, copy)?;
        let lods = if p.single_level {
            None
        } else {
            inline_lods(&bd, s, first, copy)
        };
        (p.single_level || may_magnify || lods.is_some()).then_some((first, lods))
    };
    // the formats the compiled code decodes itself; an sRGB view's taps,
    // and another format's, from the texture's decoded copy, when it has
    // one (asked for only now: a copy is made for a sample that can use
    // it)
    let native = levels(None);
    let srgb = bd.srgb_decode();
    let wants_copy = match native {
        Some(_) => srgb.is_some(),
        None => bd.copy_may_inline(s),
    };
    let copied = b
        .linear
        .filter(|_| wants_copy)
        .and_then(|l| l.levels(p.view as usize, tex, bd.fmt))
        .and_then(|copy| levels(Some(copy)));
    let ((first, lods), srgb) = match (copied, native) {
        (Some(levels), _) => (levels, None),
        (None, Some(levels)) => (levels, srgb),
        (None, None) => return None,
    };
    Some(InlineBilinear {
        first,
        srgb,
        nearest: p.nearest,
        layers: if bd.shape.array { bd.nlayers.max(1) } else { 0 },
        explicit: p.explicit,
        single_level: p.single_level,
        may_magnify,
        lods,
        select,
    })
}

/// [`InlineLods`] of a mipmapped 2D view whose every level the bilinear
/// kernel takes (`first` its first), under a sampler whose bias and LOD
/// range are numbers; None otherwise.
fn inline_lods<'a>(
    bd: &Bound<'a>,
    s: &Sampler,
    first: InlineLevel<'a>,
    copy: Option<&'a [Vec<u8>]>,
) -> Option<InlineLods<'a>> {
    let count = bd.nlevels as usize;
    let numbers = s.lod_bias.is_finite() && !s.min_lod.is_nan() && !s.max_lod.is_nan();
    if !numbers || !(2..=MAX_INLINE_LEVELS).contains(&count) || bd.shape.dim != Dim::D2 {
        return None;
    }
    let nearest = match s.mip {
        MipFilter::Linear => false,
        MipFilter::Nearest => true,
        MipFilter::None => return None,
    };
    let mut levels = [first; MAX_INLINE_LEVELS];
    for (rel, level) in levels.iter_mut().enumerate().take(count).skip(1) {
        *level = bd.inline_level(s, rel as u32, copy)?;
    }
    Some(InlineLods {
        nearest,
        bias: s.lod_bias,
        min_lod: s.min_lod,
        max_lod: s.max_lod,
        count: count as u32,
        levels,
    })
}

/// How an instruction gets its LOD.
#[derive(Clone, Copy, PartialEq)]
enum LodMode {
    /// derivatives of the coordinates (fragment) or 0, plus a shader bias
    Implicit,
    /// an explicit LOD (TXL, SAMPLE_L): plus the sampler bias
    Explicit,
    /// level 0 exactly (TEX_LZ, SAMPLE_C_LZ): no bias
    Zero,
    /// explicit derivatives (TXD, SAMPLE_D)
    Grad,
}

impl LodMode {
    /// Where the LOD of `opcode` comes from.
    fn of(opcode: Opcode) -> LodMode {
        use Opcode as O;
        match opcode {
            O::TXL | O::TXL2 | O::SAMPLE_L => LodMode::Explicit,
            O::TEX_LZ | O::SAMPLE_C_LZ => LodMode::Zero,
            O::TXD | O::SAMPLE_D => LodMode::Grad,
            O::TG4 | O::GATHER4 => LodMode::Zero,
            _ => LodMode::Implicit,
        }
    }
}

/// Per-lane inputs of a sampling instruction.
#[derive(Clone, Copy, Default)]
struct LaneIn {
    coord: [f32; 3],
    layer: f32,
    reference: f32,
    /// bias or explicit LOD
    lod: f32,
}

/// Everything a lane's LOD depends on besides its view and sampler: the
/// lanes' inputs and the derivatives of their coordinates.
struct Lods {
    opcode: Opcode,
    mode: LodMode,
    lanes: [LaneIn; LANES],
    ddx: [[f32; 3]; LANES],
    ddy: [[f32; 3]; LANES],
    /// false when there are no derivatives (the LOD then has no lambda)
    derivs: bool,
}

impl Lods {
    /// The LOD inputs of `lanes`: the derivatives of their coordinates,
    /// explicit (TXD, SAMPLE_D: source operands 1 and 2) or per quad
    /// (coarse, implicit LOD in the fragment stage).
    fn new(op: &TexOp, srcs: &[Reg], lanes: [LaneIn; LANES]) -> Result<Lods, String> {
        let mode = LodMode::of(op.opcode);
        let mut ddx = [[0f32; 3]; LANES];
        let mut ddy = [[0f32; 3]; LANES];
        let derivs = match mode {
            LodMode::Grad => {
                let (gx, gy) = (src(op, srcs, 1)?, src(op, srcs, 2)?);
                for l in 0..LANES {
                    for a in 0..3 {
                        ddx[l][a] = f(gx[a][l]);
                        ddy[l][a] = f(gy[a][l]);
                    }
                }
                true
            }
            LodMode::Implicit if op.fragment => {
                for q in 0..LANES / 4 {
                    let (tl, tr, bl) = (4 * q, 4 * q + 1, 4 * q + 2);
                    for l in 4 * q..4 * q + 4 {
                        for a in 0..3 {
                            ddx[l][a] = lanes[tr].coord[a] - lanes[tl].coord[a];
                            ddy[l][a] = lanes[bl].coord[a] - lanes[tl].coord[a];
                        }
                    }
                }
                true
            }
            _ => false,
        };
        Ok(Lods {
            opcode: op.opcode,
            mode,
            lanes,
            ddx,
            ddy,
            derivs,
        })
    }

    /// Lane `l`'s lambda (the derivative LOD, 0 without derivatives) and
    /// its clamped LOD with view `bd` and sampler `s`.
    fn of(&self, bd: &Bound, s: &Sampler, l: usize) -> (f32, f32) {
        let li = &self.lanes[l];
        // The LOD picks only the filter (min or mag) and the level(s): with one
        // filter for both and no mipmapping every LOD reads the same texels,
        // so the derivative LOD (a log2 per lane) is left out.
        let lod_free = s.mip == MipFilter::None
            && s.min == s.mag
            && !matches!(self.opcode, Opcode::LODQ | Opcode::LOD);
        let lambda = if self.derivs && !lod_free {
            bd.lambda(s, li.coord, self.ddx[l], self.ddy[l])
        } else {
            0.0
        };
        let lod = match self.mode {
            LodMode::Implicit => clamp_lod(s, lambda + li.lod + s.lod_bias),
            LodMode::Grad => clamp_lod(s, lambda + s.lod_bias),
            LodMode::Explicit => clamp_lod(s, li.lod + s.lod_bias),
            LodMode::Zero => clamp_lod(s, 0.0),
        };
        (lambda, lod)
    }

    /// True when lanes `p` and `l` have the same bits of derivatives and
    /// LOD input (all the lambda of a 2D view reads).
    fn same_inputs(&self, p: usize, l: usize) -> bool {
        let bits = |v: &[f32; 3]| v.map(f32::to_bits);
        bits(&self.ddx[p]) == bits(&self.ddx[l])
            && bits(&self.ddy[p]) == bits(&self.ddy[l])
            && self.lanes[p].lod.to_bits() == self.lanes[l].lod.to_bits()
    }
}

fn sample_op(
    binder: &mut Binder,
    op: &TexOp,
    shape: Shape,
    inp: &TexInputs,
    out: &mut Reg,
    allow_batch: bool,
) -> Result<(), String> {
    let TexInputs {
        srcs,
        sview,
        sampler,
        active,
        ..
    } = *inp;
    check_samplable(op, shape)?;
    let c0 = src(op, srcs, 0)?;
    check_legacy_layout(op, shape)?;
    let batch_ok = allow_batch && batch_covers(op.opcode, shape, srcs.len(), active);
    let order = result_order(op);
    let batch = if batch_ok {
        view_for(
            binder.b,
            binder.target,
            sview,
            sampler,
            active,
            batch_may_fit,
        )?
    } else {
        None
    };
    if let Some((bd, s)) = &batch {
        let projected;
        let coords = if op.opcode == Opcode::TXP {
            projected = project(c0);
            &projected
        } else {
            c0
        };
        let q = BatchLookup::of(coords, inp.offsets);
        // one level serves every LOD (no mipmapping, or a view of one level)
        if bd.batch_single_level(s) {
            bd.write_rows(&bd.bilinear_batch(s, 0, &q), order, active, out);
            return Ok(());
        }
        let implicit = op.fragment && matches!(op.opcode, Opcode::TEX | Opcode::SAMPLE);
        if implicit && bd.magnified_quads(s, c0, active) {
            // every LOD at most 0: the first level for every lane, which is
            // what the levels of those LODs give
            bd.write_rows(&bd.bilinear_batch(s, 0, &q), order, active, out);
            return Ok(());
        }
        let lod = if implicit {
            // implicit LOD from the quads' coarse derivatives, no bias operand
            quad_lods(bd, s, c0, active)
        } else {
            let lods = Lods::new(op, srcs, lane_inputs(op, shape, srcs, c0)?)?;
            batch_lods(bd, s, &lods, active)
        };
        batch_at_lods(bd, s, &lod, &q, active, order, out);
        return Ok(());
    }
    let lanes = lane_inputs(op, shape, srcs, c0)?;
    let lods = Lods::new(op, srcs, lanes)?;
    let comp_tg4 = if op.opcode == Opcode::TG4 {
        Some(src(op, srcs, 1)?)
    } else {
        None
    };
    sample_lanes(binder, op, shape, inp, &lods, comp_tg4, out)
}

/// Refuses the targets no sampling opcode reads (multisampled and buffer
/// targets are fetched).
fn check_samplable(op: &TexOp, shape: Shape) -> Result<(), String> {
    if shape.msaa || shape.dim == Dim::Buffer {
        return Err(format!(
            "{} cannot sample a {} target (use TXF/SAMPLE_I)",
            op.opcode.name(),
            op.target
        ));
    }
    Ok(())
}

/// Refuses TXB and TXL where their bias or LOD (in .w) collides with the
/// shadow reference or the legacy cube array's layer: the `2` forms take it.
fn check_legacy_layout(op: &TexOp, shape: Shape) -> Result<(), String> {
    use Opcode as O;
    let opc = op.opcode;
    let name = opc.name();
    let legacy_cube_array = shape.dim == Dim::Cube && shape.array;
    if matches!(opc, O::TXB | O::TXL) && shape.shadow && shape.coords() + shape.array as usize >= 3
    {
        return Err(format!(
            "{name} on {}: the reference and the {} share .w; use {}2",
            op.target,
            if opc == O::TXB { "bias" } else { "lod" },
            name
        ));
    }
    if matches!(opc, O::TXB | O::TXL) && legacy_cube_array {
        return Err(format!(
            "{name} on {}: the layer is in .w; use {name}2",
            op.target
        ));
    }
    Ok(())
}

/// True when the batch path may take the instruction (its view and
/// sampler aside): plain filtered lookups (no compare, gather or query) of
/// a 2D view, some lane active, with every operand the opcode reads
/// present (else the general path reports the missing one).
fn batch_covers(opc: Opcode, shape: Shape, nsrcs: usize, active: u16) -> bool {
    use Opcode as O;
    let plain = !shape.shadow
        && !matches!(
            opc,
            O::SAMPLE_C | O::SAMPLE_C_LZ | O::TG4 | O::GATHER4 | O::LODQ | O::LOD
        );
    let operands = match opc {
        O::SAMPLE_B | O::TXB2 | O::TXL2 | O::SAMPLE_L => 2,
        O::TXD | O::SAMPLE_D => 3,
        _ => 1,
    };
    plain && shape.dim == Dim::D2 && active != 0 && nsrcs >= operands
}

/// The component of the result each channel of the destination takes: the
/// SVIEW operand's swizzle for SVIEW opcodes, else the identity.
fn result_order(op: &TexOp) -> [usize; 4] {
    if is_sview_op(op.opcode) {
        let [x, y, z, w] = op.resource_swizzle;
        [
            x as usize & 3,
            y as usize & 3,
            z as usize & 3,
            w as usize & 3,
        ]
    } else {
        [0, 1, 2, 3]
    }
}

/// Each lane's coordinates, layer, shadow reference and bias or explicit
/// LOD, from `c0` (projected for TXP) and the opcode's other operands.
fn lane_inputs(
    op: &TexOp,
    shape: Shape,
    srcs: &[Reg],
    c0: &Reg,
) -> Result<[LaneIn; LANES], String> {
    use Opcode as O;
    let opc = op.opcode;
    let mut lanes = [LaneIn::default(); LANES];
    for (l, li) in lanes.iter_mut().enumerate() {
        let mut v = [f(c0[0][l]), f(c0[1][l]), f(c0[2][l]), f(c0[3][l])];
        if opc == O::TXP {
            let w = v[3];
            for c in v.iter_mut().take(3) {
                *c /= w;
            }
        }
        let n = shape.coords();
        li.coord[..n].copy_from_slice(&v[..n]);
        if shape.array {
            li.layer = v[n];
        }
        // Shadow reference of the legacy opcodes (as Mesa's tgsi_exec.c reads it).
        if !is_sview_op(opc) && shape.shadow && opc != O::LODQ {
            li.reference = legacy_reference(op, shape, srcs, &v, l)?;
        }
        li.lod = match opc {
            O::TXB | O::TXL => v[3],
            // D3D clamps sample_b's bias to [-16, 15.99]
            O::SAMPLE_B => f(src(op, srcs, 1)?[0][l]).clamp(-16.0, 15.99),
            O::TXB2 | O::TXL2 | O::SAMPLE_L => f(src(op, srcs, 1)?[0][l]),
            _ => 0.0,
        };
        if matches!(opc, O::SAMPLE_C | O::SAMPLE_C_LZ) {
            li.reference = f(src(op, srcs, 1)?[0][l]);
        }
    }
    Ok(lanes)
}

/// The shadow reference of lane `l` for a legacy (non-SVIEW) opcode on a
/// shadow target: a channel of the coordinates `v`, or of source operand 1
/// on a shadow cube array.
fn legacy_reference(
    op: &TexOp,
    shape: Shape,
    srcs: &[Reg],
    v: &[f32; 4],
    l: usize,
) -> Result<f32, String> {
    use Opcode as O;
    Ok(match (shape.dim, shape.array) {
        (Dim::Cube, true) => match op.opcode {
            O::TEX2 | O::TG4 => f(src(op, srcs, 1)?[0][l]),
            O::TXB2 | O::TXL2 => f(src(op, srcs, 1)?[1][l]),
            _ => {
                return Err(format!(
                    "{} on SHADOWCUBEARRAY has no reference operand; use TEX2/TXB2/TXL2",
                    op.opcode.name()
                ));
            }
        },
        (Dim::D2, true) | (Dim::Cube, false) => v[3],
        _ => v[2],
    })
}

/// The levels mipmapped lookups of a batch read.
struct MipLevels {
    /// the level each lane reads first
    level: [u32; LANES],
    /// for mip LINEAR, the weight of the next level
    frac: [f32; LANES],
    /// the lanes that blend with the next level by `frac`
    blended: u16,
}

/// The lanes' implicit LODs (TEX, SAMPLE in the fragment stage: no bias
/// operand) from their quads' coarse derivatives: one lambda per quad, the
/// LOD [`Lods::of`] gives each of its lanes (they have the same derivatives).
fn quad_lods(bd: &Bound, s: &Sampler, c0: &Reg, active: u16) -> [f32; LANES] {
    let lod_free = s.mip == MipFilter::None && s.min == s.mag;
    let mut lod = [0f32; LANES];
    if !lod_free && let Some(lambda) = bd.quad_lambdas_2d(s, c0) {
        for l in 0..LANES {
            if active >> l & 1 == 1 {
                // the implicit LOD input of TEX and SAMPLE is 0
                lod[l] = clamp_lod(s, lambda[l / 4] + 0.0 + s.lod_bias);
            }
        }
        return lod;
    }
    for q in 0..LANES / 4 {
        let lanes = (active >> (4 * q)) & 0xF;
        if lanes == 0 {
            continue;
        }
        let (tl, tr, bl) = (4 * q, 4 * q + 1, 4 * q + 2);
        let c = |l: usize, a: usize| f(c0[a][l]);
        // a 2D view's coordinates are x and y (lane_inputs leaves z at 0)
        let lambda = if lod_free {
            0.0
        } else {
            let coord = [c(tl, 0), c(tl, 1), 0.0];
            let ddx = [c(tr, 0) - c(tl, 0), c(tr, 1) - c(tl, 1), 0.0];
            let ddy = [c(bl, 0) - c(tl, 0), c(bl, 1) - c(tl, 1), 0.0];
            bd.lambda(s, coord, ddx, ddy)
        };
        // the implicit LOD input of TEX and SAMPLE is 0
        let v = clamp_lod(s, lambda + 0.0 + s.lod_bias);
        for i in (0..4).filter(|i| lanes >> i & 1 == 1) {
            lod[4 * q + i] = v;
        }
    }
    lod
}

/// The batch lookups of a mipmapped view at the lanes' LODs `lod`: one pass
/// at each lane's level, one more at the next level for the blended lanes
/// (one level for all: the single-level lookups), written through `order`.
fn batch_at_lods(
    bd: &Bound,
    s: &Sampler,
    lod: &[f32; LANES],
    q: &BatchLookup,
    active: u16,
    order: [usize; 4],
    out: &mut Reg,
) {
    let MipLevels {
        mut level,
        frac,
        blended,
    } = mip_levels(bd, s, lod, active);
    level_of_first(active, &mut level);
    let mut raw = rows_at(bd, s, &level, q);
    if blended != 0 {
        let mut up = level;
        for l in 0..LANES {
            up[l] += 1;
        }
        level_of_first(blended, &mut up);
        let next = rows_at(bd, s, &up, q);
        for l in (0..LANES).filter(|&l| blended >> l & 1 == 1) {
            for c in 0..4 {
                raw[c][l] = lerp(raw[c][l], next[c][l], frac[l]);
            }
        }
    }
    bd.write_rows(&raw, order, active, out);
}

/// Each active lane's LOD; a lane with the bits of the previous active
/// lane's derivatives and LOD input reuses its LOD (the lambda of a 2D
/// view reads only those).
fn batch_lods(bd: &Bound, s: &Sampler, lods: &Lods, active: u16) -> [f32; LANES] {
    let mut lod = [0f32; LANES];
    let mut prev: Option<usize> = None;
    for l in (0..LANES).filter(|&l| active >> l & 1 == 1) {
        lod[l] = match prev {
            Some(p) if lods.same_inputs(p, l) => lod[p],
            _ => lods.of(bd, s, l).1,
        };
        prev = Some(l);
    }
    lod
}

/// The level each active lane reads first at its LOD, and for mip LINEAR
/// the lanes that blend with the next level by `frac` ([`Bound::sample`]'s
/// choices).
fn mip_levels(bd: &Bound, s: &Sampler, lod: &[f32; LANES], active: u16) -> MipLevels {
    let last = bd.nlevels - 1;
    let mut level = [0u32; LANES];
    let mut frac = [0f32; LANES];
    let mut blended: u16 = 0;
    for l in (0..LANES).filter(|&l| active >> l & 1 == 1) {
        let lod = lod[l];
        if s.mip == MipFilter::Nearest {
            level[l] = bd.nearest_level(lod);
        } else if !(lod.is_nan() || lod <= 0.0) {
            let f0 = lod.floor();
            if f0 >= last as f32 {
                level[l] = last;
            } else {
                level[l] = f0 as u32;
                frac[l] = lod - f0;
                if frac[l] != 0.0 {
                    blended |= 1 << l;
                }
            }
        }
    }
    MipLevels {
        level,
        frac,
        blended,
    }
}

/// The batch's raw rows with each lane at `level` (one lookup for all
/// when they share one level).
fn rows_at(bd: &Bound, s: &Sampler, level: &[u32; LANES], q: &BatchLookup) -> Rows {
    if level.iter().all(|&l| l == level[0]) {
        bd.bilinear_batch(s, level[0], q)
    } else {
        bd.bilinear_levels(s, level, q)
    }
}

/// Gives the lanes outside `mask` (their result is not used) the level of
/// the first lane in it, so that one level for all is found more often.
fn level_of_first(mask: u16, level: &mut [u32; LANES]) {
    let first = level[mask.trailing_zeros() as usize];
    for l in (0..LANES).filter(|&l| mask >> l & 1 == 0) {
        level[l] = first;
    }
}

/// True when every active lane names the same view and sampler.
fn one_binding(sview: &[u32; LANES], sampler: &[u32; LANES], active: u16) -> bool {
    let first = active.trailing_zeros() as usize;
    let mut differ = 0u32;
    for l in 0..LANES {
        let other = (sview[l] != sview[first]) | (sampler[l] != sampler[first]);
        differ |= (other as u32) & (active >> l & 1) as u32;
    }
    differ == 0
}

/// The sampler of `b` at `idx` (the default one past the bound ones).
fn sampler_ref<'a>(b: &Bindings<'a>, idx: u32) -> &'a Sampler {
    b.samplers.get(idx as usize).unwrap_or(&Sampler::DEFAULT)
}

/// The view and sampler every active lane uses, when they are one and the
/// batch path covers them under `filters`, the test of the sampler and
/// format (the batch path's own: [`batch_may_fit`]). The sampler and format are tested first, so a
/// view the batch path cannot take is resolved once, by the per-lane path.
#[inline(always)]
fn view_for<'a>(
    b: &Bindings<'a>,
    target: TextureTarget,
    sview: &[u32; LANES],
    sampler: &[u32; LANES],
    active: u16,
    filters: fn(&Sampler, super::Format) -> bool,
) -> Result<Option<(Bound<'a>, &'a Sampler)>, String> {
    if !one_binding(sview, sampler, active) {
        return Ok(None);
    }
    let first = active.trailing_zeros() as usize;
    let s = sampler_ref(b, sampler[first]);
    let idx = sview[first] as usize;
    let Some(Some(tex)) = b.textures.get(idx) else {
        return Ok(None);
    };
    let format = b
        .views
        .get(idx)
        .and_then(|v| v.format)
        .unwrap_or(tex.format);
    if !filters(s, format) {
        return Ok(None);
    }
    // no Option combinators: each is a call that moves the Bound
    let Some(bd) = bind(b, target, sview[first])? else {
        return Ok(None);
    };
    if !(bd.batch_layout_fits() && filters(s, bd.fmt)) {
        return Ok(None);
    }
    Ok(Some((bd, s)))
}

/// TXP's coordinates: x, y and z of `c0` divided by its w, as bits (w
/// as is).
fn project(c0: &Reg) -> Reg {
    let mut p = *c0;
    for c in 0..3 {
        for l in 0..LANES {
            p[c][l] = (f(c0[c][l]) / f(c0[3][l])).to_bits();
        }
    }
    p
}

/// The general per-lane loop of [`sample_op`].
fn sample_lanes(
    binder: &mut Binder,
    op: &TexOp,
    shape: Shape,
    inp: &TexInputs,
    lods: &Lods,
    comp_tg4: Option<&Reg>,
    out: &mut Reg,
) -> Result<(), String> {
    use Opcode as O;
    let TexInputs {
        sview,
        sampler,
        offsets,
        active,
        ..
    } = *inp;
    let opc = op.opcode;
    for l in (0..LANES).filter(|&l| active >> l & 1 == 1) {
        let Some(bd) = binder.get(sview[l])? else {
            put(op, out, l, [0; 4]);
            continue;
        };
        let s = sampler_of(binder.b, sampler[l]);
        let li = &lods.lanes[l];
        let (lambda, lod) = lods.of(&bd, &s, l);
        if matches!(opc, O::LODQ | O::LOD) {
            let unclamped = lambda + s.lod_bias;
            let x = query_level(&bd, &s, lod);
            put(op, out, l, [x.to_bits(), unclamped.to_bits(), 0, 0]);
            continue;
        }
        let cmp = lane_compare(op, shape, &s, sampler[l], li.reference)?;
        if cmp.is_some() && bd.integer() {
            return Err(format!(
                "{}: depth compare on the integer format {}",
                opc.name(),
                bd.fmt
            ));
        }
        let q = Lookup {
            coord: li.coord,
            layer: li.layer,
            offset: if shape.dim == Dim::Cube {
                [0; 3]
            } else {
                [
                    offsets[0][l] as i32,
                    offsets[1][l] as i32,
                    offsets[2][l] as i32,
                ]
            },
        };
        let v = match opc {
            O::TG4 | O::GATHER4 => {
                let comp = gather_component(op, comp_tg4, l);
                bd.gather(&s, &q, comp, cmp.as_ref())?
            }
            _ => bd.sample(&s, &q, lod, cmp.as_ref()),
        };
        put(op, out, l, v);
    }
    Ok(())
}

/// The depth compare of a lane with sampler `s` (index `sampler_idx`) and
/// shadow reference `reference`: SAMPLE_C and SAMPLE_C_LZ need the
/// sampler's compare function, the legacy opcodes on shadow targets use it
/// when there is one.
fn lane_compare(
    op: &TexOp,
    shape: Shape,
    s: &Sampler,
    sampler_idx: u32,
    reference: f32,
) -> Result<Option<Compare>, String> {
    use Opcode as O;
    Ok(match op.opcode {
        O::SAMPLE_C | O::SAMPLE_C_LZ => {
            let func = s.compare.ok_or_else(|| {
                format!(
                    "{} needs a sampler with a compare function (sampler {})",
                    op.opcode.name(),
                    sampler_idx
                )
            })?;
            Some(Compare { func, reference })
        }
        _ if !is_sview_op(op.opcode) && shape.shadow => {
            s.compare.map(|func| Compare { func, reference })
        }
        _ => None,
    })
}

/// The component lane `l` gathers: TG4's source operand 1 (an integer
/// below 4, else a float), or the instruction's own.
fn gather_component(op: &TexOp, comp_tg4: Option<&Reg>, l: usize) -> usize {
    match comp_tg4 {
        Some(r) => {
            let bits = r[0][l];
            if bits < 4 {
                bits as usize
            } else {
                (f(bits) as i32 & 3) as usize
            }
        }
        None => (op.gather_component & 3) as usize,
    }
}

fn fetch_op(
    binder: &mut Binder,
    op: &TexOp,
    shape: Shape,
    inp: &TexInputs,
    out: &mut Reg,
) -> Result<(), String> {
    let TexInputs {
        srcs,
        sview,
        offsets,
        active,
        ..
    } = *inp;
    use Opcode as O;
    let name = op.opcode.name();
    if shape.dim == Dim::Cube {
        return Err(format!("{name} cannot fetch from a {} target", op.target));
    }
    let c0 = src(op, srcs, 0)?;
    let ms_index = if op.opcode == O::SAMPLE_I_MS {
        Some(src(op, srcs, 1)?)
    } else {
        None
    };
    let n = shape.coords();
    for l in (0..LANES).filter(|&l| active >> l & 1 == 1) {
        let Some(bd) = binder.get(sview[l])? else {
            put(op, out, l, [0; 4]);
            continue;
        };
        let v = [c0[0][l], c0[1][l], c0[2][l], c0[3][l]];
        let mut xyz = [0u32; 3];
        for a in 0..n {
            // offsets apply in texel space, not to the array axis
            xyz[a] = v[a].wrapping_add(offsets[a][l]);
        }
        let layer = if shape.array { v[n] } else { 0 };
        let (level, sample) = if shape.msaa {
            let s = match ms_index {
                Some(r) => r[0][l],
                None => v[3],
            };
            (0, s)
        } else if shape.dim == Dim::Buffer || op.opcode == O::TXF_LZ || ms_index.is_some() {
            (0, 0)
        } else {
            (v[3], 0)
        };
        let t = bd.load(xyz, layer, level, sample).unwrap_or([0; 4]);
        put(op, out, l, t);
    }
    Ok(())
}

fn size_op(
    binder: &mut Binder,
    op: &TexOp,
    shape: Shape,
    inp: &TexInputs,
    out: &mut Reg,
) -> Result<(), String> {
    let TexInputs {
        srcs,
        sview,
        active,
        ..
    } = *inp;
    let c0 = src(op, srcs, 0)?;
    for l in (0..LANES).filter(|&l| active >> l & 1 == 1) {
        let Some(bd) = binder.get(sview[l])? else {
            for row in out.iter_mut() {
                row[l] = 0;
            }
            continue;
        };
        let level = c0[0][l];
        let levels = bd.nlevels;
        let v = if level >= levels {
            [0, 0, 0, levels]
        } else {
            let (w, h, d) = bd.dims(level);
            let layers = bd.nlayers;
            match (shape.dim, shape.array) {
                (Dim::Buffer, _) => [w, 0, 0, 1],
                (Dim::D1, false) => [w, 0, 0, levels],
                (Dim::D1, true) => [w, layers, 0, levels],
                (Dim::D2 | Dim::Cube, false) => [w, h, 0, levels],
                (Dim::D2, true) => [w, h, layers, levels],
                (Dim::Cube, true) => [w, h, layers / 6, levels],
                (Dim::D3, _) => [w, h, d, levels],
            }
        };
        // TXQ/SVIEWINFO return integers; the SVIEW swizzle is ignored (tgsi.rst).
        for c in 0..4 {
            out[c][l] = v[c];
        }
    }
    Ok(())
}
