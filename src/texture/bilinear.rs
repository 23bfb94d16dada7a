//! Bilinear sampling of a batch of lanes at once, for the views the machine
//! samples most: 2D (array, RECT) views of RGBA8 UNORM, RGBA8 sRGB and
//! RGBA32F textures, one sample per texel, linear filtering. The coordinate
//! arithmetic, the wrap of in-range indices, the decode and the lerps run
//! over arrays of [`LANES`] values (vector instructions); only the texel
//! loads and the rare out-of-range wraps are per lane. Every operation is
//! the one [`Bound::sample`] performs for the same lane, in the same order,
//! so the results are the same bits (tests in `tests.rs` compare the two
//! over random and hostile coordinates).

use super::format::{UNORM8, srgb_to_linear_table};
use super::sample::{Bound, lerp, sanitize, wrap_index};
use super::{Dim, Filter, Format, LANES, MipFilter, Sampler, Wrap};

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

/// One axis of a batch's bilinear footprint: the two texel indices of every
/// lane (meaningful where `valid0`/`valid1` is set; elsewhere the tap reads
/// the border) and the weight of the second.
struct Axis {
    i0: [i32; LANES],
    i1: [i32; LANES],
    valid0: [bool; LANES],
    valid1: [bool; LANES],
    weight: [f32; LANES],
}

/// [`super::sample`]'s `axis_linear` after its coordinate set-up, over the
/// lanes: `c` the coordinate, `n` the level's size on this axis.
fn axis(mode: Wrap, c: &[f32; LANES], offset: &[i32; LANES], n: u32, unnorm: bool) -> Axis {
    let nf = n as i64 as f32;
    let mut i0 = [0i32; LANES];
    let mut weight = [0f32; LANES];
    let mut outside = false;
    for l in 0..LANES {
        let c = sanitize(c[l]);
        let t = if unnorm { c } else { c * nf };
        let u = sanitize(t + offset[l] as f32);
        let u = if mode == Wrap::MirrorClamp {
            u.abs().min(nf)
        } else {
            u
        };
        let x = u - 0.5;
        let f = x.floor();
        weight[l] = x - f;
        // |f| ≤ 2^24 + 1 after the sanitizing: exact in i32
        i0[l] = f as i32;
        outside |= i0[l] < 0 || i0[l] >= n as i32 - 1;
    }
    let mut i1 = [0i32; LANES];
    for l in 0..LANES {
        i1[l] = i0[l] + 1;
    }
    let mut a = Axis {
        i0,
        i1,
        valid0: [true; LANES],
        valid1: [true; LANES],
        weight,
    };
    if !outside {
        return a;
    }
    // some footprint leaves the level: the wrap rule (`wrap_index`), over
    // the lanes for the common modes, lane by lane for the others
    let last = n as i32 - 1;
    match mode {
        Wrap::Repeat if n.is_power_of_two() => {
            // rem_euclid by a power of two of a two's-complement index
            a.i0 = a.i0.map(|i| i & last);
            a.i1 = a.i1.map(|i| i & last);
        }
        Wrap::Clamp | Wrap::ClampToEdge => {
            a.i0 = a.i0.map(|i| i.clamp(0, last));
            a.i1 = a.i1.map(|i| i.clamp(0, last));
        }
        Wrap::ClampToBorder => {
            a.valid0 = a.i0.map(|i| (0..=last).contains(&i));
            a.valid1 = a.i1.map(|i| (0..=last).contains(&i));
        }
        _ => {
            for l in 0..LANES {
                for (i, v) in [
                    (&mut a.i0[l], &mut a.valid0[l]),
                    (&mut a.i1[l], &mut a.valid1[l]),
                ] {
                    match wrap_index(mode, *i as i64, n as i64) {
                        Some(w) => *i = w as i32,
                        None => *v = false,
                    }
                }
            }
        }
    }
    a
}

/// `lerp` of the sampling core over the lanes of one channel.
#[inline(always)]
fn lerp_lanes(x: &[f32; LANES], y: &[f32; LANES], a: &[f32; LANES]) -> [f32; LANES] {
    let mut v = [0f32; LANES];
    for l in 0..LANES {
        v[l] = lerp(x[l], y[l], a[l]);
    }
    v
}

/// The addressing inputs of a batch's lanes (what [`super::sample::Lookup`]
/// holds for one lane, for a 2D view).
pub(crate) struct BatchLookup {
    /// s and t (normalized or texel units)
    pub coord: [[f32; LANES]; 2],
    /// array layer coordinate (ignored for non-array views)
    pub layer: [f32; LANES],
    /// integer texel offsets on s and t
    pub offset: [[i32; LANES]; 2],
}

impl Bound<'_> {
    /// True when [`Self::bilinear_batch`] gives what [`Self::sample`] gives
    /// without a depth compare, at any LOD that selects level `rel`: a 2D
    /// view (array and RECT included) of an RGBA8 UNORM or sRGB or RGBA32F texture
    /// with one sample per texel, sampled with linear min and mag filters.
    pub(crate) fn batch_fits(&self, s: &Sampler) -> bool {
        self.shape.dim == Dim::D2
            && !self.shape.msaa
            && self.tex.samples == 1
            && Texels::of(self.fmt).is_some()
            && s.min == Filter::Linear
            && s.mag == Filter::Linear
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

    /// Bilinear lookups at view level `rel` for the lanes set in `mask` at
    /// `q`'s coordinates, layers and offsets, exactly as [`Self::sample`]
    /// computes them;
    /// writes each lane's raw (unswizzled) result to `out` (other lanes
    /// untouched). Only for views and samplers where [`Self::batch_fits`].
    pub(crate) fn bilinear_batch(
        &self,
        s: &Sampler,
        rel: u32,
        mask: u16,
        q: &BatchLookup,
        out: &mut [[u32; 4]; LANES],
    ) {
        let Some(texels) = Texels::of(self.fmt) else {
            return;
        };
        let level = self.first_level + rel;
        let (w, h, d) = self.tex.level_dims(level);
        let data: &[u8] = self.tex.levels.get(level as usize).map_or(&[], |v| v);
        let unnorm = !s.normalized || self.shape.rect;
        let x = axis(s.wrap[0], &q.coord[0], &q.offset[0], w, unnorm);
        let y = axis(s.wrap[1], &q.coord[1], &q.offset[1], h, unnorm);
        let border = self.border(s).map(f32::from_bits);
        let bpt = match texels {
            Texels::Rgba8Unorm | Texels::Rgba8Srgb => 4,
            Texels::Rgba32Float => 16,
        };
        let srgb = srgb_to_linear_table();
        // the values of the four taps, channel-major: tap[t][c][lane]
        // (t = 00, 10, 01, 11 as (x, y) index pairs)
        let mut tap = [[[0f32; LANES]; 4]; 4];
        for l in 0..LANES {
            if mask >> l & 1 == 0 {
                continue;
            }
            let z = self.layer_of(q.layer[l]);
            let pairs = [
                (x.i0[l], x.valid0[l], y.i0[l], y.valid0[l]),
                (x.i1[l], x.valid1[l], y.i0[l], y.valid0[l]),
                (x.i0[l], x.valid0[l], y.i1[l], y.valid1[l]),
                (x.i1[l], x.valid1[l], y.i1[l], y.valid1[l]),
            ];
            for (t, &(i, vi, j, vj)) in pairs.iter().enumerate() {
                let v = if !(vi && vj) {
                    border
                } else if i as u32 >= w || j as u32 >= h || z >= d {
                    [0.0; 4]
                } else {
                    let at =
                        ((z as usize * h as usize + j as usize) * w as usize + i as usize) * bpt;
                    match (data.get(at..at + bpt), texels) {
                        (Some(b), Texels::Rgba8Unorm) => {
                            [b[0], b[1], b[2], b[3]].map(|v| UNORM8[v as usize])
                        }
                        (Some(b), Texels::Rgba8Srgb) => [
                            srgb[b[0] as usize],
                            srgb[b[1] as usize],
                            srgb[b[2] as usize],
                            UNORM8[b[3] as usize],
                        ],
                        (Some(b), Texels::Rgba32Float) => [0, 4, 8, 12]
                            .map(|k| f32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]])),
                        (None, _) => [0.0; 4],
                    }
                };
                for c in 0..4 {
                    tap[t][c][l] = v[c];
                }
            }
        }
        for c in 0..4 {
            let r0 = lerp_lanes(&tap[0][c], &tap[1][c], &x.weight);
            let r1 = lerp_lanes(&tap[2][c], &tap[3][c], &x.weight);
            let v = lerp_lanes(&r0, &r1, &y.weight);
            for l in (0..LANES).filter(|&l| mask >> l & 1 == 1) {
                out[l][c] = v[l].to_bits();
            }
        }
    }
}
