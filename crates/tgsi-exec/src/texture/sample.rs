//! The sampling core: a view resolved against its texture ([`Bound`]),
//! addressing (wrap modes, texel offsets, array layers, cube faces with
//! seamless edges), nearest/linear filtering, mip selection, LOD from
//! derivatives, depth compare, gather and texel fetch. Every result is the
//! texel after the view swizzle, as f32 bits (integer words for UINT/SINT).
//! All arithmetic is f32 in a fixed order, so results are the same bits on
//! every host.

use super::Wrap;
use super::format::NumClass;
use super::{CompareFunc, Dim, Filter, Format, MipFilter, Sampler, Shape, Swizzle, Texture, View};
use std::ops::Neg;
use tgsi_ir::enums::TextureTarget;

/// Coordinates beyond this magnitude (in texels) are clamped to it before
/// addressing (NaN coordinates address as 0).
pub(super) const COORD_LIMIT: f32 = 16_777_216.0;

/// A view resolved against the texture it names, plus the coordinate shape
/// the instruction uses.
#[derive(Clone, Copy, Debug)]
pub struct Bound<'a> {
    pub tex: &'a Texture,
    pub fmt: Format,
    pub first_level: u32,
    pub nlevels: u32,
    pub first_layer: u32,
    pub nlayers: u32,
    pub swizzle: [Swizzle; 4],
    pub(crate) shape: Shape,
    bpt: usize,
    /// `fmt.is_integer()`, looked up once.
    integer: bool,
}

/// A resolved view without its texture ([`Bound::parts`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoundParts {
    fmt: Format,
    first_level: u32,
    nlevels: u32,
    first_layer: u32,
    nlayers: u32,
    swizzle: [Swizzle; 4],
    shape: Shape,
    bpt: usize,
    integer: bool,
}

/// Family of a target for compatibility checks: buffer, 1D, 2D-like, 3D, cube.
fn family(t: TextureTarget) -> Option<Dim> {
    Shape::of(t).map(|s| s.dim)
}

impl<'a> Bound<'a> {
    /// Resolves `view` on `tex` for an instruction whose target is `target`
    /// (UNKNOWN = the texture's own target). Inlined: the batch path
    /// resolves once per instruction, and a `Bound` moved through the
    /// `Result` is copied in pieces that stall the loads after them.
    #[inline(always)]
    pub fn resolve(
        tex: &'a Texture,
        view: &View,
        target: TextureTarget,
    ) -> Result<Bound<'a>, String> {
        let target = if target == TextureTarget::Unknown {
            tex.target
        } else {
            target
        };
        let mut shape = Shape::of(target).ok_or("texture target UNKNOWN")?;
        // a RECT resource is always addressed in texels
        shape.rect |= matches!(tex.target, TextureTarget::Rect | TextureTarget::ShadowRect);
        let tfam = family(tex.target).ok_or("texture with target UNKNOWN")?;
        let fits = match shape.dim {
            Dim::Cube => {
                tfam == Dim::Cube
                    || (tfam == Dim::D2 && tex.layers.is_multiple_of(6) && tex.width == tex.height)
            }
            // a 2D (array) view of a cube sees its faces as layers (D3D)
            Dim::D2 => tfam == Dim::D2 || tfam == Dim::Cube,
            d => d == tfam,
        };
        if !fits {
            return Err(format!(
                "the instruction's target {target} does not fit the bound {} texture",
                tex.target
            ));
        }
        let fmt = view.format.unwrap_or(tex.format);
        if fmt != tex.format && fmt.bytes_per_texel() != tex.format.bytes_per_texel() {
            return Err(format!(
                "view format {fmt} has {} bytes per texel, the texture's {} has {}",
                fmt.bytes_per_texel(),
                tex.format,
                tex.format.bytes_per_texel()
            ));
        }
        let levels = tex.level_count();
        if view.first_level >= levels || view.last_level < view.first_level {
            return Err(format!(
                "view levels {}..={} outside the texture's {levels} levels",
                view.first_level, view.last_level
            ));
        }
        let nlevels = view.last_level.min(levels - 1) - view.first_level + 1;
        let (first_layer, nlayers) = if tex.is_3d() {
            (0, 1)
        } else {
            if view.first_layer >= tex.layers || view.last_layer < view.first_layer {
                return Err(format!(
                    "view layers {}..={} outside the texture's {} layers",
                    view.first_layer, view.last_layer, tex.layers
                ));
            }
            let n = view.last_layer.min(tex.layers - 1) - view.first_layer + 1;
            (view.first_layer, n)
        };
        if shape.dim == Dim::Cube && nlayers < 6 {
            return Err(format!(
                "cube view with {nlayers} layers (needs 6 per cube)"
            ));
        }
        Ok(Bound {
            tex,
            fmt,
            first_level: view.first_level,
            nlevels,
            first_layer,
            nlayers,
            swizzle: view.swizzle,
            shape,
            bpt: fmt.bytes_per_texel(),
            integer: fmt.is_integer(),
        })
    }

    /// Everything but the texture: what a [`Bound`] of the same view
    /// becomes again with [`Bound::with_parts`].
    pub(crate) fn parts(&self) -> BoundParts {
        BoundParts {
            fmt: self.fmt,
            first_level: self.first_level,
            nlevels: self.nlevels,
            first_layer: self.first_layer,
            nlayers: self.nlayers,
            swizzle: self.swizzle,
            shape: self.shape,
            bpt: self.bpt,
            integer: self.integer,
        }
    }

    /// The view [`Bound::parts`] took apart, on `tex` (the texture it was
    /// resolved on).
    pub(crate) fn with_parts(tex: &'a Texture, p: BoundParts) -> Bound<'a> {
        Bound {
            tex,
            fmt: p.fmt,
            first_level: p.first_level,
            nlevels: p.nlevels,
            first_layer: p.first_layer,
            nlayers: p.nlayers,
            swizzle: p.swizzle,
            shape: p.shape,
            bpt: p.bpt,
            integer: p.integer,
        }
    }

    /// (w, h, depth-or-layers) of view level `rel`.
    pub fn dims(&self, rel: u32) -> (u32, u32, u32) {
        self.tex.level_dims(self.first_level + rel)
    }

    /// Raw decoded texel of view level `rel` at absolute slice `z`.
    #[inline]
    pub fn fetch(&self, rel: u32, x: u32, y: u32, z: u32, sample: u32) -> [u32; 4] {
        let level = self.first_level + rel;
        let Some(data) = self.tex.levels.get(level as usize) else {
            return [0; 4];
        };
        let (w, h, d) = self.tex.level_dims(level);
        let samples = self.tex.samples;
        if x >= w || y >= h || z >= d || sample >= samples {
            return [0; 4];
        }
        let i = (((z as usize * h as usize + y as usize) * w as usize + x as usize)
            * samples as usize
            + sample as usize)
            * self.bpt;
        match data.get(i..i + self.bpt) {
            Some(b) => self.fmt.decode(b),
            None => [0; 4],
        }
    }

    /// Applies the view swizzle.
    pub fn swizzle(&self, v: [u32; 4]) -> [u32; 4] {
        let one = if self.integer { 1 } else { 1f32.to_bits() };
        self.swizzle.map(|s| match s.component() {
            Some(c) => v[c],
            None if s == Swizzle::One => one,
            None => 0,
        })
    }

    /// True when values are integer words (no filtering).
    pub fn integer(&self) -> bool {
        self.integer
    }

    /// True when the depth reference is clamped to [0, 1] before comparing.
    fn clamps_reference(&self) -> bool {
        self.fmt.num_class() == NumClass::Unorm
    }

    /// The sampler's border colour as this format's values (UNORM clamped
    /// to [0, 1], SNORM to [-1, 1], NaN to 0 for both; float and integer raw).
    pub fn border(&self, s: &Sampler) -> [u32; 4] {
        let cl = |lo: f32| {
            s.border.map(|b| {
                let f = f32::from_bits(b);
                if f.is_nan() { 0.0f32 } else { f.clamp(lo, 1.0) }.to_bits()
            })
        };
        match self.fmt.num_class() {
            NumClass::Unorm => cl(0.0),
            NumClass::Snorm => cl(-1.0),
            _ => s.border,
        }
    }

    /// Absolute slice of the array layer coordinate `c` (round to nearest
    /// even, clamped to the view's layers); cube arrays select a cube.
    pub fn layer_of(&self, c: f32) -> u32 {
        if !self.shape.array {
            return self.first_layer;
        }
        let per = if self.shape.dim == Dim::Cube { 6 } else { 1 };
        let count = (self.nlayers / per).max(1);
        let r = if c.is_nan() { 0.0 } else { c.round_ties_even() };
        let idx = r.clamp(0.0, (count - 1) as f32) as u32;
        self.first_layer + idx * per
    }
}

/// One lookup's addressing inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lookup {
    /// s, t, r (normalized or texel units); for cubes the direction.
    pub coord: [f32; 3],
    /// Array layer coordinate (ignored for non-array shapes).
    pub layer: f32,
    /// Integer texel offsets (not for cubes).
    pub offset: [i32; 3],
}

pub(super) fn sanitize(u: f32) -> f32 {
    if u.is_nan() {
        0.0
    } else {
        u.clamp(-COORD_LIMIT, COORD_LIMIT)
    }
}

/// Wraps integer texel index `i` on an axis of `n` texels (`None` = border).
#[inline]
pub fn wrap_index(mode: Wrap, i: i64, n: i64) -> Option<i64> {
    if (0..n).contains(&i) {
        // every mode keeps an index inside the level
        return Some(i);
    }
    match mode {
        Wrap::Repeat => Some(i.rem_euclid(n)),
        Wrap::Clamp | Wrap::ClampToEdge => Some(i.clamp(0, n - 1)),
        Wrap::ClampToBorder | Wrap::MirrorClamp => (0..n).contains(&i).then_some(i),
        Wrap::MirrorRepeat => {
            let k = i.rem_euclid(2 * n);
            Some(if k >= n { 2 * n - 1 - k } else { k })
        }
        Wrap::MirrorClampToEdge => {
            let j = if i < 0 { -1 - i } else { i };
            Some(j.min(n - 1))
        }
        Wrap::MirrorClampToBorder => {
            let j = if i < 0 { -1 - i } else { i };
            (j < n).then_some(j)
        }
    }
}

/// Nearest texel on one axis for texel-space coordinate `u`.
fn axis_nearest(mode: Wrap, u: f32, n: i64) -> Option<i64> {
    if mode == Wrap::MirrorClamp {
        let u = u.abs().min(n as f32);
        return Some((u.floor() as i64).min(n - 1));
    }
    wrap_index(mode, u.floor() as i64, n)
}

/// Linear footprint on one axis: (i0, i1, weight of i1).
fn axis_linear(mode: Wrap, u: f32, n: i64) -> (Option<i64>, Option<i64>, f32) {
    let u = if mode == Wrap::MirrorClamp {
        u.abs().min(n as f32)
    } else {
        u
    };
    let x = u - 0.5;
    let f = x.floor();
    let a = x - f;
    let i0 = f as i64;
    (wrap_index(mode, i0, n), wrap_index(mode, i0 + 1, n), a)
}

/// `x + a * (y - x)` (`x` itself at `a = 0`), each step under the machine's
/// NaN rule (`ground::nan::NanRule`), so that NaN texels give the same bits
/// in the per-lane and the batched paths whatever operand order the
/// compiler picks. A result that is not NaN had no NaN step (NaN
/// propagates), so the rule is applied only when the plain result is NaN.
#[inline(always)]
pub(super) fn lerp(x: f32, y: f32, a: f32) -> f32 {
    if a == 0.0 {
        return x;
    }
    let r = x + a * (y - x);
    if r.is_nan() {
        return lerp_ruled(x, y, a);
    }
    r
}

/// [`lerp`]'s steps each under the NaN rule.
#[cold]
#[inline(never)]
fn lerp_ruled(x: f32, y: f32, a: f32) -> f32 {
    use crate::ground::nan::{NanRule, Ruled};
    let d = Ruled::f32(y - x, [y, x]);
    let t = Ruled::f32(a * d, [a, d]);
    Ruled::f32(x + t, [x, t])
}

#[inline(always)]
fn lerp4(x: [f32; 4], y: [f32; 4], a: f32) -> [f32; 4] {
    [
        lerp(x[0], y[0], a),
        lerp(x[1], y[1], a),
        lerp(x[2], y[2], a),
        lerp(x[3], y[3], a),
    ]
}

fn to_f(v: [u32; 4]) -> [f32; 4] {
    v.map(f32::from_bits)
}

fn to_bits(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// The depth-compare state of a lookup.
#[derive(Clone, Copy, Debug)]
pub struct Compare {
    pub func: CompareFunc,
    pub reference: f32,
}

/// The major axis of direction `d` (D3D rules; ties pick x, then y, then z):
/// the face (+X -X +Y -Y +Z -Z = 0..5), the face's s and t axes, and the
/// magnitude along the major axis.
fn major_axis<T>(d: [T; 3], abs: fn(T) -> T) -> (u32, T, T, T)
where
    T: Copy + PartialOrd + Neg<Output = T> + Default,
{
    let [x, y, z] = d;
    let zero = T::default();
    let (ax, ay, az) = (abs(x), abs(y), abs(z));
    if ax >= ay && ax >= az {
        if x >= zero {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= zero {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= zero {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    }
}

/// Cube face and face coordinates in [0, 1] for a direction (D3D major-axis
/// rules; ties pick x, then y, then z). Faces: +X -X +Y -Y +Z -Z = 0..5.
pub fn cube_face(d: [f32; 3]) -> (u32, f32, f32) {
    let (face, sc, tc, ma) = major_axis(d.map(|v| if v.is_nan() { 0.0 } else { v }), f32::abs);
    if ma == 0.0 || ma.is_infinite() {
        return (face, 0.5, 0.5);
    }
    (face, (sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

/// Face coordinates of direction `d` projected on a given face (for derivatives).
fn cube_project(face: u32, d: [f32; 3]) -> (f32, f32) {
    let [x, y, z] = d;
    let (sc, tc, ma) = match face {
        0 => (-z, -y, x),
        1 => (z, -y, -x),
        2 => (x, z, y),
        3 => (x, -z, -y),
        4 => (x, -y, z),
        _ => (-x, -y, -z),
    };
    ((sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

/// Integer direction of texel (i, j) of `face` (face at distance n, texel
/// centres at odd offsets): the face basis of [`cube_face`].
pub(crate) fn cube_dir(face: u32, i: i64, j: i64, n: i64) -> [i64; 3] {
    let sc = 2 * i + 1 - n;
    let tc = 2 * j + 1 - n;
    match face {
        0 => [n, -tc, -sc],
        1 => [-n, -tc, sc],
        2 => [sc, n, tc],
        3 => [sc, -n, -tc],
        4 => [sc, -tc, n],
        _ => [-sc, -tc, -n],
    }
}

/// Where a cube tap at (face, i, j), i, j in [-1, n], reads: inside the face
/// (or not seamless) the face's clamped texel; just past one edge the
/// neighbouring face's texel; past a corner the face's own corner texel, with
/// the two edge neighbours that share the corner as the second value.
#[allow(clippy::type_complexity)]
fn cube_texels(
    seamless: bool,
    face: u32,
    i: i64,
    j: i64,
    n: i64,
) -> ((u32, i64, i64), Option<[(u32, i64, i64); 2]>) {
    let inside = |v: i64| (0..n).contains(&v);
    let (ci, cj) = (i.clamp(0, n - 1), j.clamp(0, n - 1));
    match (inside(i), inside(j)) {
        (true, true) => ((face, i, j), None),
        _ if !seamless => ((face, ci, cj), None),
        (false, false) => (
            (face, ci, cj),
            Some([cube_neighbor(face, i, cj, n), cube_neighbor(face, ci, j, n)]),
        ),
        _ => (cube_neighbor(face, i, j, n), None),
    }
}

/// The texel of the neighbouring face that a tap just past an edge of
/// `face` lands on (exactly one of i, j out of [0, n)).
pub(crate) fn cube_neighbor(face: u32, i: i64, j: i64, n: i64) -> (u32, i64, i64) {
    let (f, sc, tc, ma) = major_axis(cube_dir(face, i, j, n), i64::abs);
    let idx = |c: i64| ((n * (c + ma)) / (2 * ma)).clamp(0, n - 1);
    (f, idx(sc), idx(tc))
}

/// What a lookup returns before the view swizzle: a filtered value or a
/// gather of one component.
enum Footprint {
    Filter,
    Gather(usize),
}

impl Bound<'_> {
    /// Texel of the view level (relative) or the border, as raw bits (before
    /// the view swizzle); `xyz` with `None` = outside (border).
    fn tap(
        &self,
        s: &Sampler,
        rel: u32,
        x: Option<i64>,
        y: Option<i64>,
        z: Option<i64>,
    ) -> [u32; 4] {
        match (x, y, z) {
            (Some(x), Some(y), Some(z)) => self.fetch(rel, x as u32, y as u32, z as u32, 0),
            _ => self.border(s),
        }
    }

    fn compare_value(&self, c: &Compare, texel: [u32; 4]) -> f32 {
        let r = if self.clamps_reference() {
            if c.reference.is_nan() {
                c.reference
            } else {
                c.reference.clamp(0.0, 1.0)
            }
        } else {
            c.reference
        };
        if c.func.test(r, f32::from_bits(texel[0])) {
            1.0
        } else {
            0.0
        }
    }

    /// The value a tap contributes: the texel (or compare result as (c, c, c, 1)).
    fn tap_value(&self, t: [u32; 4], cmp: Option<&Compare>) -> [f32; 4] {
        match cmp {
            Some(c) => {
                let v = self.compare_value(c, t);
                [v, v, v, 1.0]
            }
            None => to_f(t),
        }
    }

    /// Samples view level `rel` with `filter`; returns raw (unswizzled) bits.
    fn sample_level(
        &self,
        s: &Sampler,
        q: &Lookup,
        rel: u32,
        filter: Filter,
        cmp: Option<&Compare>,
    ) -> [u32; 4] {
        if self.shape.dim == Dim::Cube {
            return self.sample_cube(s, q, rel, filter, cmp, Footprint::Filter);
        }
        if cmp.is_none() && self.shape.dim == Dim::D2 && !self.integer() {
            return self.sample_level_2d(s, q, rel, filter);
        }
        self.sample_level_general(s, q, rel, filter, cmp)
    }

    /// [`Self::sample_level`] for a 2D (array) view of a float/norm format
    /// without compare: the same f32 operations in the same order as
    /// [`Self::sample_level_general`], without its per-axis loops and
    /// optional-index plumbing (the level's data and row pitch are looked up
    /// once per lookup, not once per tap).
    #[inline]
    pub(super) fn sample_level_2d(
        &self,
        s: &Sampler,
        q: &Lookup,
        rel: u32,
        filter: Filter,
    ) -> [u32; 4] {
        let level = self.first_level + rel;
        let (w, h, d) = self.tex.level_dims(level);
        let unnorm = !s.normalized || self.shape.rect;
        let slice = self.layer_of(q.layer) as i64;
        let axis = |a: usize, n: u32| {
            let c = sanitize(q.coord[a]);
            let t = if unnorm { c } else { c * n as i64 as f32 };
            sanitize(t + q.offset[a] as f32)
        };
        let (u, v) = (axis(0, w), axis(1, h));
        let (wi, hi) = (w as i64, h as i64);
        let data = self.tex.levels.get(level as usize);
        let samples = self.tex.samples as usize;
        let bpt = self.bpt;
        // the raw texel at wrapped (x, y) of the slice, or the border
        let texel = |x: Option<i64>, y: Option<i64>| -> [u32; 4] {
            let (Some(x), Some(y)) = (x, y) else {
                return self.border(s);
            };
            let (x, y, z) = (x as u32, y as u32, slice as u32);
            let Some(data) = data else {
                return [0; 4];
            };
            if x >= w || y >= h || z >= d || samples == 0 {
                return [0; 4];
            }
            let i =
                ((z as usize * h as usize + y as usize) * w as usize + x as usize) * samples * bpt;
            match data.get(i..i + bpt) {
                Some(b) => self.fmt.decode(b),
                None => [0; 4],
            }
        };
        match filter {
            Filter::Nearest => texel(
                axis_nearest(s.wrap[0], u, wi),
                axis_nearest(s.wrap[1], v, hi),
            ),
            Filter::Linear => {
                let (i0, i1, ax) = axis_linear(s.wrap[0], u, wi);
                let (j0, j1, ay) = axis_linear(s.wrap[1], v, hi);
                let t00 = to_f(texel(i0, j0));
                let t10 = to_f(texel(i1, j0));
                let t01 = to_f(texel(i0, j1));
                let t11 = to_f(texel(i1, j1));
                let r0 = lerp4(t00, t10, ax);
                let r1 = lerp4(t01, t11, ax);
                to_bits(lerp4(r0, r1, ay))
            }
        }
    }

    /// The general [`Self::sample_level`] for every non-cube shape.
    pub(super) fn sample_level_general(
        &self,
        s: &Sampler,
        q: &Lookup,
        rel: u32,
        filter: Filter,
        cmp: Option<&Compare>,
    ) -> [u32; 4] {
        let (w, h, d) = self.dims(rel);
        let nd = self.shape.coords();
        let sizes = [w as i64, h as i64, d as i64];
        let unnorm = !s.normalized || self.shape.rect;
        let slice = self.layer_of(q.layer) as i64;
        let mut u = [0f32; 3];
        for a in 0..nd {
            let c = sanitize(q.coord[a]);
            let t = if unnorm { c } else { c * sizes[a] as f32 };
            u[a] = sanitize(t + q.offset[a] as f32);
        }
        let filter = if self.integer() && cmp.is_none() {
            Filter::Nearest
        } else {
            filter
        };
        // Absolute (x, y, z) of an index triple (missing axes at 0 / the layer).
        let place = |idx: [Option<i64>; 3]| -> (Option<i64>, Option<i64>, Option<i64>) {
            match nd {
                1 => (idx[0], Some(0), Some(slice)),
                2 => (idx[0], idx[1], Some(slice)),
                _ => (idx[0], idx[1], idx[2]),
            }
        };
        match filter {
            Filter::Nearest => {
                let mut idx = [Some(0i64); 3];
                for a in 0..nd {
                    idx[a] = axis_nearest(s.wrap[a], u[a], sizes[a]);
                }
                let (x, y, z) = place(idx);
                let t = self.tap(s, rel, x, y, z);
                match cmp {
                    Some(_) => to_bits(self.tap_value(t, cmp)),
                    None => t,
                }
            }
            Filter::Linear => {
                let mut fp = [(Some(0i64), Some(0i64), 0f32); 3];
                for a in 0..nd {
                    fp[a] = axis_linear(s.wrap[a], u[a], sizes[a]);
                }
                let corners = 1usize << nd;
                let mut vals = [[0f32; 4]; 8];
                for (m, v) in vals.iter_mut().enumerate().take(corners) {
                    let mut idx = [Some(0i64); 3];
                    for a in 0..nd {
                        idx[a] = if m >> a & 1 == 0 { fp[a].0 } else { fp[a].1 };
                    }
                    let (x, y, z) = place(idx);
                    *v = self.tap_value(self.tap(s, rel, x, y, z), cmp);
                }
                // collapse x, then y, then z
                let mut n = corners;
                for fa in fp.iter().take(nd) {
                    n /= 2;
                    for m in 0..n {
                        vals[m] = lerp4(vals[2 * m], vals[2 * m + 1], fa.2);
                    }
                }
                to_bits(vals[0])
            }
        }
    }

    /// A cube tap at (face, i, j) with i, j in [-1, n] (see [`cube_texels`]);
    /// a seamless corner averages its three texels when `average` (else takes
    /// the face's own corner texel).
    #[allow(clippy::too_many_arguments)]
    fn cube_tap(
        &self,
        s: &Sampler,
        rel: u32,
        base: u32,
        face: u32,
        i: i64,
        j: i64,
        n: i64,
        cmp: Option<&Compare>,
        average: bool,
    ) -> [f32; 4] {
        let get = |(f, x, y): (u32, i64, i64)| -> [f32; 4] {
            let t = self.fetch(rel, x as u32, y as u32, base + f, 0);
            self.tap_value(t, cmp)
        };
        let (own, corner) = cube_texels(s.seamless_cube, face, i, j, n);
        let own = get(own);
        match corner {
            Some([t1, t2]) if average => {
                let (a, b) = (get(t1), get(t2));
                let mut r = [0f32; 4];
                for c in 0..4 {
                    r[c] = (own[c] + a[c] + b[c]) / 3.0;
                }
                r
            }
            _ => own,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn sample_cube(
        &self,
        s: &Sampler,
        q: &Lookup,
        rel: u32,
        filter: Filter,
        cmp: Option<&Compare>,
        what: Footprint,
    ) -> [u32; 4] {
        let (w, _, _) = self.dims(rel);
        let n = w as i64;
        let base = self.layer_of(q.layer);
        let (face, fs, ft) = cube_face(q.coord);
        let (u, v) = (fs * n as f32, ft * n as f32);
        let integer = self.integer() && cmp.is_none();
        let filter = if integer { Filter::Nearest } else { filter };
        match what {
            Footprint::Gather(comp) => {
                let i0 = (u - 0.5).floor() as i64;
                let j0 = (v - 0.5).floor() as i64;
                let g = |i: i64, j: i64| -> u32 {
                    if cmp.is_some() {
                        self.cube_tap(s, rel, base, face, i, j, n, cmp, false)[0].to_bits()
                    } else {
                        let t = self.cube_tap_raw(s, rel, base, face, i, j, n);
                        self.swizzle(t)[comp]
                    }
                };
                [g(i0, j0 + 1), g(i0 + 1, j0 + 1), g(i0 + 1, j0), g(i0, j0)]
            }
            Footprint::Filter => match filter {
                Filter::Nearest => {
                    let i = (u.floor() as i64).clamp(0, n - 1);
                    let j = (v.floor() as i64).clamp(0, n - 1);
                    let t = self.fetch(rel, i as u32, j as u32, base + face, 0);
                    match cmp {
                        Some(_) => to_bits(self.tap_value(t, cmp)),
                        None => t,
                    }
                }
                Filter::Linear => {
                    let (x, y) = (u - 0.5, v - 0.5);
                    let (fx, fy) = (x.floor(), y.floor());
                    let (a, b) = (x - fx, y - fy);
                    let (i0, j0) = (fx as i64, fy as i64);
                    let t = |i, j| self.cube_tap(s, rel, base, face, i, j, n, cmp, true);
                    let r0 = lerp4(t(i0, j0), t(i0 + 1, j0), a);
                    let r1 = lerp4(t(i0, j0 + 1), t(i0 + 1, j0 + 1), a);
                    to_bits(lerp4(r0, r1, b))
                }
            },
        }
    }

    /// Raw bits of a cube tap (gather / integer formats: corners take the
    /// face's own corner texel).
    #[allow(clippy::too_many_arguments)]
    fn cube_tap_raw(
        &self,
        s: &Sampler,
        rel: u32,
        base: u32,
        face: u32,
        i: i64,
        j: i64,
        n: i64,
    ) -> [u32; 4] {
        let ((f, x, y), _) = cube_texels(s.seamless_cube, face, i, j, n);
        self.fetch(rel, x as u32, y as u32, base + f, 0)
    }

    /// A filtered lookup at the (already biased and clamped) LOD `lod`
    /// relative to the view's first level. Result after the view swizzle.
    pub fn sample(&self, s: &Sampler, q: &Lookup, lod: f32, cmp: Option<&Compare>) -> [u32; 4] {
        let mag = lod.is_nan() || lod <= 0.0;
        let filter = if mag { s.mag } else { s.min };
        let last = self.nlevels - 1;
        let integer = self.integer() && cmp.is_none();
        let mip = if integer && s.mip == MipFilter::Linear {
            MipFilter::Nearest
        } else {
            s.mip
        };
        let raw = match mip {
            _ if mag => self.sample_level(s, q, 0, filter, cmp),
            MipFilter::None => self.sample_level(s, q, 0, filter, cmp),
            MipFilter::Nearest => {
                let l = ((lod + 0.5).floor().min(last as f32)) as u32;
                self.sample_level(s, q, l, filter, cmp)
            }
            MipFilter::Linear => {
                let f0 = lod.floor();
                if f0 >= last as f32 {
                    self.sample_level(s, q, last, filter, cmp)
                } else {
                    let l0 = f0 as u32;
                    let frac = lod - f0;
                    let v0 = to_f(self.sample_level(s, q, l0, filter, cmp));
                    if frac == 0.0 {
                        to_bits(v0)
                    } else {
                        let v1 = to_f(self.sample_level(s, q, l0 + 1, filter, cmp));
                        to_bits(lerp4(v0, v1, frac))
                    }
                }
            }
        };
        self.swizzle(raw)
    }

    /// Gather: the 2x2 bilinear footprint of view level 0, component `comp`
    /// of the view-swizzled texels (or the compare results), in the order
    /// x = (i0, j1), y = (i1, j1), z = (i1, j0), w = (i0, j0).
    pub fn gather(
        &self,
        s: &Sampler,
        q: &Lookup,
        comp: usize,
        cmp: Option<&Compare>,
    ) -> Result<[u32; 4], String> {
        let comp = comp & 3;
        match self.shape.dim {
            Dim::Cube => {
                return Ok(self.sample_cube(s, q, 0, Filter::Linear, cmp, Footprint::Gather(comp)));
            }
            Dim::D2 => {}
            _ => return Err("gather needs a 2D, 2D array, cube or cube array target".into()),
        }
        let (w, h, _) = self.dims(0);
        let unnorm = !s.normalized || self.shape.rect;
        let slice = Some(self.layer_of(q.layer) as i64);
        let coord = |a: usize, n: u32| {
            let c = sanitize(q.coord[a]);
            let t = if unnorm { c } else { c * n as f32 };
            sanitize(t + q.offset[a] as f32)
        };
        let (i0, i1, _) = axis_linear(s.wrap[0], coord(0, w), w as i64);
        let (j0, j1, _) = axis_linear(s.wrap[1], coord(1, h), h as i64);
        let g = |i, j| -> u32 {
            let t = self.tap(s, 0, i, j, slice);
            match cmp {
                Some(c) => self.compare_value(c, t).to_bits(),
                None => self.swizzle(t)[comp],
            }
        };
        Ok([g(i0, j1), g(i1, j1), g(i1, j0), g(i0, j0)])
    }

    /// The LOD (log2 of the larger texel-space derivative length) from the
    /// derivatives of the coordinates, at the view's first level.
    pub fn lambda(&self, s: &Sampler, coord: [f32; 3], ddx: [f32; 3], ddy: [f32; 3]) -> f32 {
        let (w, h, d) = self.dims(0);
        let unnorm = !s.normalized || self.shape.rect;
        let len = |v: [f32; 3], n: usize| -> f32 {
            let mut acc = 0f32;
            for c in v.iter().take(n) {
                acc += c * c;
            }
            acc.sqrt()
        };
        let (gx, gy, n) = match self.shape.dim {
            Dim::Cube => {
                let (face, s0, t0) = cube_face(coord);
                let add = |a: [f32; 3], b: [f32; 3]| [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
                let (sx, tx) = cube_project(face, add(coord, ddx));
                let (sy, ty) = cube_project(face, add(coord, ddy));
                let f = w as f32;
                (
                    [(sx - s0) * f, (tx - t0) * f, 0.0],
                    [(sy - s0) * f, (ty - t0) * f, 0.0],
                    2,
                )
            }
            dim => {
                let sc = if unnorm {
                    [1.0; 3]
                } else {
                    [w as f32, h as f32, d as f32]
                };
                let n = match dim {
                    Dim::D3 => 3,
                    Dim::D2 => 2,
                    _ => 1,
                };
                (
                    [ddx[0] * sc[0], ddx[1] * sc[1], ddx[2] * sc[2]],
                    [ddy[0] * sc[0], ddy[1] * sc[1], ddy[2] * sc[2]],
                    n,
                )
            }
        };
        let rho = len(gx, n).max(len(gy, n));
        libm::log2f(rho)
    }

    /// [`Self::lambda`] of the four quads of a batch on a 2D (array, RECT)
    /// view, side by side: each quad's coordinates (x, y) of `c` at its
    /// top-left lane and its coarse derivatives towards the top-right and
    /// bottom-left lanes. The same bits as four calls; None for other
    /// views.
    pub fn quad_lambdas_2d(&self, s: &Sampler, c: &[[u32; 16]; 4]) -> Option<[f32; 4]> {
        let squares = self.quad_squared_lengths(s, c)?;
        // as `lambda`'s length: the square root of 0 + a² + b²
        let rho = squares.map(|[lx, ly]| lx.sqrt().max(ly.sqrt()));
        Some(log2f_lanes(rho))
    }

    /// True when each active quad's LOD from [`Self::quad_lambdas_2d`] is
    /// at most 0 under sampler `s` without computing it: the squared
    /// lengths of both derivatives are at most 1 (so rho is at most 1 and
    /// log2 of it at most 0: the square root is correctly rounded and
    /// monotonic, and `log2f` is below 0 under 1 and exactly 0 at 1), and
    /// neither the sampler's bias nor its minimum LOD raises it above 0.
    /// False (the caller computes the lambdas) otherwise, and for views
    /// that are not 2D.
    pub(crate) fn magnified_quads(&self, s: &Sampler, c: &[[u32; 16]; 4], active: u16) -> bool {
        if !(s.lod_bias <= 0.0 && s.min_lod <= 0.0) {
            return false;
        }
        let Some(squares) = self.quad_squared_lengths(s, c) else {
            return false;
        };
        // NaN fails both compares
        (0..4).all(|q| {
            let [lx, ly] = squares[q];
            active >> (4 * q) & 0xF == 0 || (lx <= 1.0) & (ly <= 1.0)
        })
    }

    /// Per quad of a batch on a 2D view, the squared lengths (`0 + a² +
    /// b²`, `lambda`'s order) of its coarse derivatives towards the
    /// top-right and bottom-left lanes, in texels; None for other views.
    #[inline(always)]
    fn quad_squared_lengths(&self, s: &Sampler, c: &[[u32; 16]; 4]) -> Option<[[f32; 2]; 4]> {
        if self.shape.dim != Dim::D2 {
            return None;
        }
        let (w, h, _) = self.dims(0);
        let unnorm = !s.normalized || self.shape.rect;
        let (sx, sy) = if unnorm {
            (1.0, 1.0)
        } else {
            (w as f32, h as f32)
        };
        let at = |a: usize, l: usize| f32::from_bits(c[a][l]);
        Some(std::array::from_fn(|q| {
            let (tl, tr, bl) = (4 * q, 4 * q + 1, 4 * q + 2);
            let gx = [(at(0, tr) - at(0, tl)) * sx, (at(1, tr) - at(1, tl)) * sy];
            let gy = [(at(0, bl) - at(0, tl)) * sx, (at(1, bl) - at(1, tl)) * sy];
            [
                0.0 + gx[0] * gx[0] + gx[1] * gx[1],
                0.0 + gy[0] * gy[0] + gy[1] * gy[1],
            ]
        }))
    }

    /// Texel fetch (TXF / SAMPLE_I): integer address, no filter, no wrap.
    /// `xyz` are the texel address (x, y, z-or-0), `layer` the array index,
    /// `level` relative to the view. `None` when any of them is out of range.
    pub fn load(&self, xyz: [u32; 3], layer: u32, level: u32, sample: u32) -> Option<[u32; 4]> {
        if level >= self.nlevels || sample >= self.tex.samples {
            return None;
        }
        let (w, h, d) = self.dims(level);
        let z = match (self.shape.dim, self.shape.array) {
            (Dim::D3, _) => xyz[2],
            (_, true) => {
                if layer >= self.nlayers {
                    return None;
                }
                self.first_layer + layer
            }
            _ => self.first_layer,
        };
        let (x, y) = match self.shape.dim {
            Dim::Buffer | Dim::D1 => (xyz[0], 0),
            _ => (xyz[0], xyz[1]),
        };
        if x >= w || y >= h || (self.shape.dim == Dim::D3 && z >= d) {
            return None;
        }
        Some(self.swizzle(self.fetch(level, x, y, z, sample)))
    }
}

/// Final LOD: `lambda + shader bias + sampler bias`, clamped to
/// [min_lod, max_lod] (NaN gives min_lod; a max below min wins).
pub fn clamp_lod(s: &Sampler, lod: f32) -> f32 {
    lod.max(s.min_lod).min(s.max_lod)
}

/// The level a (clamped) LOD reads for LOD queries: 0 for mip NONE, the
/// nearest level for NEAREST, the continuous value (clamped to the view's
/// levels) for LINEAR.
pub fn query_level(b: &Bound, s: &Sampler, lod: f32) -> f32 {
    let last = (b.nlevels - 1) as f32;
    let l = lod.max(0.0).min(last);
    match s.mip {
        MipFilter::None => 0.0,
        MipFilter::Nearest => (l + 0.5).floor().min(last),
        MipFilter::Linear => l,
    }
}

/// `libm::log2f`'s constants (by their bits), which `log2f_lanes` and
/// the compiled engine's LOD template use: 1/ln 2 split in a high part
/// (its low 12 bits zero) and the rest, the polynomial's coefficients
/// `[LG1, LG2, LG3, LG4]`, and the bits of √½, from which a value's
/// exponent is counted so that its mantissa lies in [√½, √2).
pub const LOG2F_IVLN2_HI: f32 = f32::from_bits(0x3fb8_b000);
/// See [`LOG2F_IVLN2_HI`].
pub const LOG2F_IVLN2_LO: f32 = f32::from_bits(0xb938_9ad4);
/// See [`LOG2F_IVLN2_HI`].
pub const LOG2F_LG: [f32; 4] = [
    f32::from_bits(0x3f2a_aaaa),
    f32::from_bits(0x3ecc_ce13),
    f32::from_bits(0x3e91_e9ee),
    f32::from_bits(0x3e78_9e26),
];
/// See [`LOG2F_IVLN2_HI`].
pub const LOG2F_SQRT_HALF_BITS: u32 = 0x3f35_04f3;

/// `libm::log2f` of four values side by side: its own steps for positive
/// normal values (the same f32 operations in the same order, so the same
/// bits), and `libm::log2f` itself for the lanes it treats apart (zero,
/// negative, subnormal, infinite or NaN values, and 1).
pub(crate) fn log2f_lanes(x: [f32; 4]) -> [f32; 4] {
    const IVLN2HI: f32 = LOG2F_IVLN2_HI;
    const IVLN2LO: f32 = LOG2F_IVLN2_LO;
    let [lg1, lg2, lg3, lg4] = LOG2F_LG;
    let mut out = [0f32; 4];
    let mut apart = 0u32;
    for l in 0..4 {
        let ix = x[l].to_bits();
        apart |= u32::from(!(0x0080_0000..0x7f80_0000).contains(&ix) || ix == 0x3f80_0000) << l;
        // reduce into [sqrt(2)/2, sqrt(2)]
        let ix = ix.wrapping_add(0x3f80_0000 - LOG2F_SQRT_HALF_BITS);
        let k = (ix >> 23) as i32 - 0x7f;
        let m = f32::from_bits((ix & 0x007f_ffff) + LOG2F_SQRT_HALF_BITS);
        let f = m - 1.0;
        let s = f / (2.0 + f);
        let z = s * s;
        let w = z * z;
        let t1 = w * (lg2 + w * lg4);
        let t2 = z * (lg1 + w * lg3);
        let r = t2 + t1;
        let hfsq = 0.5 * f * f;
        let hi = f32::from_bits((f - hfsq).to_bits() & 0xffff_f000);
        let lo = f - hi - hfsq + s * (hfsq + r);
        out[l] = (lo + hi) * IVLN2LO + lo * IVLN2HI + hi * IVLN2HI + k as f32;
    }
    for l in (0..4).filter(|l| apart >> l & 1 == 1) {
        out[l] = libm::log2f(x[l]);
    }
    out
}
