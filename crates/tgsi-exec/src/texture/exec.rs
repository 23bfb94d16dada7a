//! [`execute`]: the adapter between the machine and the sampling core. It
//! reads each opcode's operand layout (Mesa's `tgsi.rst`), computes implicit LOD
//! from quad derivatives in the fragment stage, applies biases and clamps,
//! and writes the result of every active lane (inactive lanes are untouched).

use super::bilinear::{BatchLookup, Rows, batch_may_fit};
use super::sample::{Bound, Compare, Lookup, clamp_lod, lerp, query_level};
use super::{Bindings, Dim, LANES, MipFilter, Reg, Sampler, Shape, TexOp, View};
use tgsi_ir::enums::TextureTarget;
use tgsi_ir::opcode::Opcode;

/// D3D standard sample positions in 1/16 pixel units from the pixel centre
/// (D3D11_STANDARD_MULTISAMPLE_PATTERN) for 1, 2, 4, 8 and 16 samples.
pub const SAMPLE_POSITIONS_1: [(i8, i8); 1] = [(0, 0)];
pub const SAMPLE_POSITIONS_2: [(i8, i8); 2] = [(4, 4), (-4, -4)];
pub const SAMPLE_POSITIONS_4: [(i8, i8); 4] = [(-2, -6), (6, -2), (-6, 2), (2, 6)];
pub const SAMPLE_POSITIONS_8: [(i8, i8); 8] = [
    (1, -3),
    (-1, 3),
    (5, 1),
    (-3, -5),
    (-5, 5),
    (-7, -1),
    (3, 7),
    (7, -7),
];
pub const SAMPLE_POSITIONS_16: [(i8, i8); 16] = [
    (1, 1),
    (-1, -3),
    (-3, 2),
    (4, -1),
    (-5, -2),
    (2, 5),
    (5, 3),
    (3, -5),
    (-2, 6),
    (0, -7),
    (-4, -6),
    (-6, 4),
    (-8, 0),
    (7, -4),
    (6, 7),
    (-7, -8),
];

/// Position of sample `i` of a `count`-sample pixel, in [0, 1] pixel units
/// from the pixel's top-left corner (D3D's centre-relative position + 0.5);
/// `None` for an unknown count or an index out of range.
pub fn sample_position(count: u32, i: u32) -> Option<(f32, f32)> {
    let table: &[(i8, i8)] = match count {
        1 => &SAMPLE_POSITIONS_1,
        2 => &SAMPLE_POSITIONS_2,
        4 => &SAMPLE_POSITIONS_4,
        8 => &SAMPLE_POSITIONS_8,
        16 => &SAMPLE_POSITIONS_16,
        _ => return None,
    };
    let &(x, y) = table.get(i as usize)?;
    Some((x as f32 / 16.0 + 0.5, y as f32 / 16.0 + 0.5))
}

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
    use Opcode as O;
    matches!(
        op,
        O::SAMPLE
            | O::SAMPLE_B
            | O::SAMPLE_C
            | O::SAMPLE_C_LZ
            | O::SAMPLE_D
            | O::SAMPLE_L
            | O::SAMPLE_I
            | O::SAMPLE_I_MS
            | O::GATHER4
            | O::LOD
    )
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

/// Per-lane inputs of a sampling instruction.
#[derive(Clone, Copy, Default)]
struct LaneIn {
    coord: [f32; 3],
    layer: f32,
    reference: f32,
    /// bias or explicit LOD
    lod: f32,
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
        offsets,
        active,
    } = *inp;
    use Opcode as O;
    let opc = op.opcode;
    let name = opc.name();
    if shape.msaa || shape.dim == Dim::Buffer {
        return Err(format!(
            "{name} cannot sample a {} target (use TXF/SAMPLE_I)",
            op.target
        ));
    }
    let c0 = src(op, srcs, 0)?;
    let sview_family = is_sview_op(opc);
    let legacy_cube_array = shape.dim == Dim::Cube && shape.array;
    // Where the reference, layer and LOD come from.
    let mode = match opc {
        O::TXL | O::TXL2 | O::SAMPLE_L => LodMode::Explicit,
        O::TEX_LZ | O::SAMPLE_C_LZ => LodMode::Zero,
        O::TXD | O::SAMPLE_D => LodMode::Grad,
        O::TG4 | O::GATHER4 => LodMode::Zero,
        _ => LodMode::Implicit,
    };
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
    // Plain filtered lookups (no compare, gather or query) of one view with
    // one sampler that the batch path covers: all lanes at once. With
    // every operand the opcode reads present (else the general path
    // reports the missing one).
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
    let batch_ok =
        allow_batch && plain && shape.dim == Dim::D2 && active != 0 && srcs.len() >= operands;
    let order = if sview_family {
        let [x, y, z, w] = op.resource_swizzle;
        [
            x as usize & 3,
            y as usize & 3,
            z as usize & 3,
            w as usize & 3,
        ]
    } else {
        [0, 1, 2, 3]
    };
    if batch_ok && batch_one_level(binder.b, binder.target, opc, c0, inp, order, out)? {
        return Ok(());
    }
    // the batch path with mipmaps (after the lanes' LODs): a view it
    // takes here has several levels (else batch_one_level took it)
    let batch = if batch_ok {
        batch_view(binder.b, binder.target, sview, sampler, active)?
    } else {
        None
    };
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
        if !sview_family && shape.shadow && opc != O::LODQ {
            li.reference = match (shape.dim, shape.array) {
                (Dim::Cube, true) => match opc {
                    O::TEX2 | O::TG4 => f(src(op, srcs, 1)?[0][l]),
                    O::TXB2 | O::TXL2 => f(src(op, srcs, 1)?[1][l]),
                    _ => {
                        return Err(format!(
                            "{name} on SHADOWCUBEARRAY has no reference operand; use TEX2/TXB2/TXL2"
                        ));
                    }
                },
                (Dim::D2, true) | (Dim::Cube, false) => v[3],
                _ => v[2],
            };
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
    // Derivatives of the coordinates: explicit, or per quad (coarse).
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
    let comp_tg4 = if opc == O::TG4 {
        Some(src(op, srcs, 1)?)
    } else {
        None
    };
    let lod_of = |bd: &Bound, s: &Sampler, l: usize| -> (f32, f32) {
        let li = &lanes[l];
        // The LOD picks only the filter (min or mag) and the level(s): with one
        // filter for both and no mipmapping every LOD reads the same texels,
        // so the derivative LOD (a log2 per lane) is left out.
        let lod_free =
            s.mip == MipFilter::None && s.min == s.mag && !matches!(opc, O::LODQ | O::LOD);
        let lambda = if derivs && !lod_free {
            bd.lambda(s, li.coord, ddx[l], ddy[l])
        } else {
            0.0
        };
        let lod = match mode {
            LodMode::Implicit => clamp_lod(s, lambda + li.lod + s.lod_bias),
            LodMode::Grad => clamp_lod(s, lambda + s.lod_bias),
            LodMode::Explicit => clamp_lod(s, li.lod + s.lod_bias),
            LodMode::Zero => clamp_lod(s, 0.0),
        };
        (lambda, lod)
    };
    if let Some((bd, s)) = batch {
        // mipmapped: the levels' lookups over the lanes that read them
        let projected;
        let q = if opc == O::TXP {
            projected = project(c0);
            BatchLookup::of(&projected, offsets)
        } else {
            BatchLookup::of(c0, offsets)
        };
        // Each lane's LOD; a lane with the bits of the previous active
        // lane's derivatives and LOD input reuses its LOD (the lambda of a
        // 2D view reads only those).
        let mut lod = [0f32; LANES];
        let mut prev: Option<usize> = None;
        for l in (0..LANES).filter(|&l| active >> l & 1 == 1) {
            let same = |p: usize| {
                let bits = |v: &[f32; 3]| v.map(f32::to_bits);
                bits(&ddx[p]) == bits(&ddx[l])
                    && bits(&ddy[p]) == bits(&ddy[l])
                    && lanes[p].lod.to_bits() == lanes[l].lod.to_bits()
            };
            lod[l] = match prev {
                Some(p) if same(p) => lod[p],
                _ => lod_of(&bd, s, l).1,
            };
            prev = Some(l);
        }
        // The level each lane reads first, and for mip LINEAR the lanes
        // that blend with the next level by `frac` ([`Bound::sample`]'s
        // choices).
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
        // one pass at each lane's level, one more at the next level for
        // the blended lanes (one level for all: the single-level lookups)
        let lookups = |level: &[u32; LANES]| -> Rows {
            if level.iter().all(|&l| l == level[0]) {
                bd.bilinear_batch(s, level[0], &q)
            } else {
                bd.bilinear_levels(s, level, &q)
            }
        };
        // lanes whose result is not used read the level of the first lane
        // that is (so that one level for all is found more often)
        let same_as = |mask: u16, level: &mut [u32; LANES]| {
            let first = level[mask.trailing_zeros() as usize];
            for l in (0..LANES).filter(|&l| mask >> l & 1 == 0) {
                level[l] = first;
            }
        };
        same_as(active, &mut level);
        let mut raw = lookups(&level);
        if blended != 0 {
            let mut up = level;
            for l in 0..LANES {
                up[l] += 1;
            }
            same_as(blended, &mut up);
            let next = lookups(&up);
            for l in (0..LANES).filter(|&l| blended >> l & 1 == 1) {
                for c in 0..4 {
                    raw[c][l] = lerp(raw[c][l], next[c][l], frac[l]);
                }
            }
        }
        bd.write_rows(&raw, order, active, out);
        return Ok(());
    }
    sample_lanes(binder, op, shape, inp, &lanes, &lod_of, comp_tg4, out)
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
/// batch path covers them. The sampler and format are tested first, so a
/// view the batch path cannot take is resolved once, by the per-lane path.
#[inline(always)]
fn batch_view<'a>(
    b: &Bindings<'a>,
    target: TextureTarget,
    sview: &[u32; LANES],
    sampler: &[u32; LANES],
    active: u16,
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
    if !batch_may_fit(s, format) {
        return Ok(None);
    }
    // no Option combinators: each is a call that moves the Bound
    let Some(bd) = bind(b, target, sview[first])? else {
        return Ok(None);
    };
    if !bd.batch_fits(s) {
        return Ok(None);
    }
    Ok(Some((bd, s)))
}

/// The batch path when one level serves every LOD (no mipmapping, or a
/// view of one level): the lanes' results written through `order` (see
/// [`Bound::write_rows`]) without any LOD. `Ok(false)` when the lanes'
/// view and sampler are not one that the batch path covers so.
fn batch_one_level(
    b: &Bindings,
    target: TextureTarget,
    opcode: Opcode,
    c0: &Reg,
    inp: &TexInputs,
    order: [usize; 4],
    out: &mut Reg,
) -> Result<bool, String> {
    let TexInputs {
        sview,
        sampler,
        offsets,
        active,
        ..
    } = *inp;
    let Some((bd, s)) = batch_view(b, target, sview, sampler, active)? else {
        return Ok(false);
    };
    if !bd.batch_single_level(s) {
        return Ok(false);
    }
    let rows = if opcode == Opcode::TXP {
        bd.bilinear_batch(s, 0, &BatchLookup::of(&project(c0), offsets))
    } else {
        bd.bilinear_batch(s, 0, &BatchLookup::of(c0, offsets))
    };
    bd.write_rows(&rows, order, active, out);
    Ok(true)
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
#[allow(clippy::too_many_arguments)]
fn sample_lanes(
    binder: &mut Binder,
    op: &TexOp,
    shape: Shape,
    inp: &TexInputs,
    lanes: &[LaneIn; LANES],
    lod_of: &dyn Fn(&Bound, &Sampler, usize) -> (f32, f32),
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
    let name = opc.name();
    let sview_family = is_sview_op(opc);
    for l in (0..LANES).filter(|&l| active >> l & 1 == 1) {
        let Some(bd) = binder.get(sview[l])? else {
            put(op, out, l, [0; 4]);
            continue;
        };
        let s = sampler_of(binder.b, sampler[l]);
        let li = &lanes[l];
        let (lambda, lod) = lod_of(&bd, &s, l);
        if matches!(opc, O::LODQ | O::LOD) {
            let unclamped = lambda + s.lod_bias;
            let x = query_level(&bd, &s, lod);
            put(op, out, l, [x.to_bits(), unclamped.to_bits(), 0, 0]);
            continue;
        }
        let cmp = match opc {
            O::SAMPLE_C | O::SAMPLE_C_LZ => {
                let func = s.compare.ok_or_else(|| {
                    format!(
                        "{name} needs a sampler with a compare function (sampler {})",
                        sampler[l]
                    )
                })?;
                Some(Compare {
                    func,
                    reference: li.reference,
                })
            }
            _ if !sview_family && shape.shadow => s.compare.map(|func| Compare {
                func,
                reference: li.reference,
            }),
            _ => None,
        };
        if cmp.is_some() && bd.integer() {
            return Err(format!(
                "{name}: depth compare on the integer format {}",
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
                let comp = match comp_tg4 {
                    Some(r) => {
                        let bits = r[0][l];
                        if bits < 4 {
                            bits as usize
                        } else {
                            (f(bits) as i32 & 3) as usize
                        }
                    }
                    None => (op.gather_component & 3) as usize,
                };
                bd.gather(&s, &q, comp, cmp.as_ref())?
            }
            _ => bd.sample(&s, &q, lod, cmp.as_ref()),
        };
        put(op, out, l, v);
    }
    Ok(())
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
