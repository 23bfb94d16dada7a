//! From assembled primitives to what the rasterizer walks: cull distances,
//! clipping in homogeneous space, perspective division, the viewport,
//! snapping to the 1/256-pixel grid, facing and culling, and the screen
//! planes the fragment inputs are interpolated from ([`RasterPrim`]).
//!
//! Rules:
//! * Clip volume 0 ≤ z ≤ w and every clip distance ≥ 0 (NaN is outside),
//!   clipped exactly (Sutherland–Hodgman on polygons, parametric on lines;
//!   new vertices carry their barycentric weights of the original
//!   vertices). x and y are clipped against a guard band of ±32 w only, so
//!   that edges keep their exact snapped positions; the viewport
//!   rectangle bounds the pixels instead (a pixel is inside when its
//!   centre is). A point is dropped when its vertex is outside.
//! * A primitive whose vertices all have a negative value in one cull
//!   distance is dropped.
//! * Window x = X + (x/w + 1) W/2, y = Y + (1 − y/w) H/2, snapped to
//!   1/256 pixel (round half to even); depth = MIN + z/w (MAX − MIN).
//! * Interpolation: with σ the screen barycentrics of the (clipped,
//!   snapped) primitive, b its vertices' weights of the original vertices,
//!   1/w = Σ σ_j / w_j; a perspective input is Σ_k A_k Q_k / (1/w) with
//!   Q_k = Σ_j σ_j b_jk / w_j; a linear (noperspective) input is
//!   Σ_k A_k S_k with S_k = Σ_j σ_j b_jk w_k / w_j; a flat input is the
//!   leading (first) vertex's words.

#![allow(clippy::needless_range_loop)] // planes of several arrays in lockstep

use super::input::{PrimitiveKind, VertexStream};
use super::raster::triangle_covers;
use super::state::{CullMode, FrontFace, RenderState, Viewport};
use tgsi_exec::{InputSource, Program};
use tgsi_ir::enums::{InterpMode, SemanticName};

/// Sub-pixel bits of the snapped grid.
pub const SUBPIXEL_BITS: u32 = 8;
const ONE: f64 = (1 << SUBPIXEL_BITS) as f64;
/// The guard band: x and y are clipped at ±GUARD × w.
pub const GUARD: f64 = 32.0;
/// Whether the edge of a clockwise triangle going (dx, dy) (1/256 pixels)
/// is a top or left edge, whose samples on it the triangle covers (the
/// fill rule).
#[inline(always)]
pub(crate) fn top_left_edge(dx: i64, dy: i64) -> bool {
    ((dy == 0) & (dx > 0)) | (dy < 0)
}

/// On one axis, the first pixel whose last sample (at `last`, 1/256
/// pixels into it) reaches `low`, and the last whose first sample (at
/// `first`) stays within `high` (1/256 pixels): the pixels with a sample
/// inside the extent `low..=high`.
#[inline(always)]
pub(crate) fn pixel_span(low: i64, high: i64, [first, last]: [i64; 2]) -> [i64; 2] {
    [
        -((last - low) >> SUBPIXEL_BITS),
        (high - first) >> SUBPIXEL_BITS,
    ]
}

/// Most clip and cull distances.
pub const MAX_DISTANCES: usize = 8;

/// Where the last stage before the rasterizer keeps what the rasterizer reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutputLayout {
    /// The OUT register of POSITION.
    pub position: Option<usize>,
    /// (OUT register, component) of each clip distance.
    pub clip: Vec<(usize, usize)>,
    /// (OUT register, component) of each cull distance.
    pub cull: Vec<(usize, usize)>,
    /// Every output with a semantic: (OUT register, name, index).
    pub semantics: Vec<(usize, SemanticName, u32)>,
}

impl OutputLayout {
    /// The layout of a vertex (or geometry / tess-eval) program: CLIPDIST
    /// components in order are clip distances, the first
    /// NUM_CLIPDIST_ENABLED of them (all, without the property), then
    /// NUM_CULLDIST_ENABLED cull distances.
    pub fn of(program: &Program) -> OutputLayout {
        let mut semantics: Vec<(usize, SemanticName, u32)> = program
            .outputs()
            .into_iter()
            .map(|(r, s, i)| (r as usize, s, i))
            .collect();
        semantics.sort_by_key(|s| (s.1 != SemanticName::ClipDist, s.2));
        let position = semantics
            .iter()
            .find(|s| s.1 == SemanticName::Position)
            .map(|s| s.0);
        let mut distances = Vec::new();
        for (reg, name, _) in &semantics {
            if *name == SemanticName::ClipDist {
                for c in 0..4 {
                    distances.push((*reg, c));
                }
            }
        }
        distances.truncate(MAX_DISTANCES);
        let (clip_n, cull_n) = program.distance_counts();
        let clip_n = clip_n.map_or(
            distances.len().saturating_sub(cull_n.unwrap_or(0) as usize),
            |n| n as usize,
        );
        let clip_n = clip_n.min(distances.len());
        let cull_n = (cull_n.unwrap_or(0) as usize).min(distances.len() - clip_n);
        OutputLayout {
            position,
            clip: distances[..clip_n].to_vec(),
            cull: distances[clip_n..clip_n + cull_n].to_vec(),
            semantics,
        }
    }
}

/// How one fragment input is fed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFeed {
    Zero,
    /// Window position (POSITION).
    Position,
    Face,
    /// PRIMID: the primitive's id in all four channels.
    PrimitiveId,
    /// An output register of the vertices, interpolated so.
    Vertex {
        reg: usize,
        mode: Interpolation,
    },
}

/// Interpolation of a fed input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Perspective,
    Linear,
    Flat,
}

/// Which vertex output feeds each fragment input, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Linkage {
    /// By the fragment shader's IN register.
    pub inputs: Vec<InputFeed>,
    /// SV_Position's w is the clip w (Direct3D) rather than 1/w (TGSI).
    pub clip_w: bool,
}

impl Linkage {
    /// Links by semantic name and index (what TGSI does): an input
    /// declared without a mode is flat, except COLOR (perspective).
    pub fn by_semantics(layout: &OutputLayout, fs: &Program) -> Linkage {
        let mut inputs = vec![
            InputFeed::Zero;
            fs.fragment_inputs()
                .iter()
                .map(|f| f.index as usize + 1)
                .max()
                .unwrap_or(0)
        ];
        for fi in fs.fragment_inputs() {
            let feed = match fi.semantic {
                None => InputFeed::Zero,
                Some((SemanticName::Position, _)) => InputFeed::Position,
                Some((SemanticName::Face, _)) => InputFeed::Face,
                Some((SemanticName::PrimId, _)) => InputFeed::PrimitiveId,
                Some((name, index)) => {
                    let mode = if !fi.mode_declared {
                        if name.flat_when_undeclared() {
                            Interpolation::Flat
                        } else {
                            Interpolation::Perspective
                        }
                    } else {
                        match fi.mode {
                            InterpMode::Constant => Interpolation::Flat,
                            InterpMode::Linear => Interpolation::Linear,
                            _ => Interpolation::Perspective,
                        }
                    };
                    layout
                        .semantics
                        .iter()
                        .find(|s| s.1 == name && s.2 == index)
                        .map_or(InputFeed::Zero, |s| InputFeed::Vertex { reg: s.0, mode })
                }
            };
            inputs[fi.index as usize] = feed;
        }
        Linkage {
            inputs,
            clip_w: fs.is_direct3d(),
        }
    }
}

/// A screen plane `p[0] + p[1] x + p[2] y`.
pub type Plane = [f64; 3];

fn plane_add(acc: &mut Plane, p: &Plane, k: f64) {
    for i in 0..3 {
        acc[i] += p[i] * k;
    }
}

/// What the rasterizer covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// Vertices on the 1/256 grid, area > 0 (clockwise on screen); per
    /// edge (v\[i\] → v\[i+1\]) whether it is a top or left edge.
    Triangle {
        v: [[i64; 2]; 3],
        top_left: [bool; 3],
    },
    /// The 1×1 square: x0 ≤ x < x1, y0 ≤ y < y1 (1/256 units).
    Point { x0: i64, y0: i64, x1: i64, y1: i64 },
    /// A line from p0 to p1 (1/256 units).
    Line { p0: [i64; 2], p1: [i64; 2] },
}

/// One primitive ready for rasterization.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterPrim {
    pub shape: Shape,
    /// Pixels that may be covered: x0..=x1, y0..=y1 (inside the raster rectangle).
    pub bbox: [i64; 4],
    pub front: bool,
    /// The original vertices (stream numbers) and how many.
    pub verts: [u32; 3],
    pub count: u8,
    pub id: u32,
    /// Depth (after the viewport) and 1/w planes.
    pub depth: Plane,
    pub inv_w: Plane,
    /// Q_k and S_k planes of the original vertices (see the module docs).
    pub persp: [Plane; 3],
    pub linear: [Plane; 3],
}

/// The pixel rectangle a draw may touch: target ∩ viewport ∩ scissor, as
/// x0..x1, y0..y1 (exclusive ends).
pub fn raster_rect(state: &RenderState, width: u32, height: u32) -> [i64; 4] {
    let vp = viewport_of(state, width, height);
    let lo = |v: f32| (v as f64 - 0.5).ceil() as i64;
    let mut r = [
        lo(vp.x).max(0),
        lo(vp.y).max(0),
        lo(vp.x + vp.width).min(width as i64),
        lo(vp.y + vp.height).min(height as i64),
    ];
    if let Some(s) = state.scissor {
        r[0] = r[0].max(s.x);
        r[1] = r[1].max(s.y);
        r[2] = r[2].min(s.x.saturating_add(s.width));
        r[3] = r[3].min(s.y.saturating_add(s.height));
    }
    // (an empty rectangle stays empty within the target's bounds, so that
    // its ends plus or minus a pixel cannot overflow)
    [
        r[0].min(width as i64),
        r[1].min(height as i64),
        r[2].max(0),
        r[3].max(0),
    ]
}

pub fn viewport_of(state: &RenderState, width: u32, height: u32) -> Viewport {
    state.viewport.unwrap_or(Viewport::full(width, height))
}

/// A vertex during clipping.
#[derive(Clone, Copy, Debug)]
struct ClipVertex {
    pos: [f64; 4],
    bary: [f64; 3],
    dist: [f64; MAX_DISTANCES],
}

impl ClipVertex {
    fn lerp(&self, o: &ClipVertex, t: f64) -> ClipVertex {
        let mut r = *self;
        for i in 0..4 {
            r.pos[i] = self.pos[i] + (o.pos[i] - self.pos[i]) * t;
        }
        for i in 0..3 {
            r.bary[i] = self.bary[i] + (o.bary[i] - self.bary[i]) * t;
        }
        for i in 0..MAX_DISTANCES {
            r.dist[i] = self.dist[i] + (o.dist[i] - self.dist[i]) * t;
        }
        r
    }
}

/// Projects clip position `p` to the window: snapped x, y and depth.
fn to_window(vp: &Viewport, p: &[f64; 4]) -> WindowVertex {
    let (x, y, depth) = window_parts(vp, *p);
    ([x as i64, y as i64], depth)
}

/// [`to_window`] as three values, x and y snapped to sub-pixels but not
/// yet converted to integers (what the projection of many vertices side by
/// side computes per lane, `crate::project`).
#[inline(always)]
pub(crate) fn window_parts(vp: &Viewport, [x, y, z, w]: [f64; 4]) -> (f64, f64, f64) {
    let (x, y, z) = (x / w, y / w, z / w);
    let wx = vp.x as f64 + (x + 1.0) * vp.width as f64 * 0.5;
    let wy = vp.y as f64 + (1.0 - y) * vp.height as f64 * 0.5;
    let depth = vp.min_depth as f64 + z * (vp.max_depth as f64 - vp.min_depth as f64);
    (
        (wx * ONE).round_ties_even(),
        (wy * ONE).round_ties_even(),
        depth,
    )
}

/// Whether clip position `p` has w > 0 and is inside the view volume's z
/// planes and the guard band ([`plane_value`]'s first six planes, in
/// straight code).
#[inline(always)]
pub(crate) fn inside_volume([x, y, z, w]: [f64; 4]) -> bool {
    let g = GUARD * w;
    let volume = [z, w - z, x + g, g - x, y + g, g - y];
    w > 0.0 && volume.iter().all(|&d| inside(d))
}

/// The clip planes: the view volume's z planes, the guard band and the
/// clip distances; `plane(v, k)` ≥ 0 inside.
fn plane_value(v: &ClipVertex, k: usize) -> f64 {
    let [x, y, z, w] = v.pos;
    match k {
        0 => z,
        1 => w - z,
        2 => x + GUARD * w,
        3 => GUARD * w - x,
        4 => y + GUARD * w,
        5 => GUARD * w - y,
        k => v.dist[k - 6],
    }
}

pub(crate) fn inside(d: f64) -> bool {
    d >= 0.0
}

/// Clips a convex polygon (in place through two buffers).
fn clip_polygon(poly: &mut Vec<ClipVertex>, tmp: &mut Vec<ClipVertex>, planes: usize) {
    for k in 0..planes {
        if poly.is_empty() {
            return;
        }
        if poly.iter().all(|v| inside(plane_value(v, k))) {
            continue;
        }
        tmp.clear();
        for i in 0..poly.len() {
            let a = poly[i];
            let b = poly[(i + 1) % poly.len()];
            let (da, db) = (plane_value(&a, k), plane_value(&b, k));
            if inside(da) {
                tmp.push(a);
            }
            if inside(da) != inside(db) && !da.is_nan() && !db.is_nan() {
                // Always interpolate from the inside vertex, so both
                // polygons sharing an edge get the same point.
                let (p, q, dp, dq) = if inside(da) {
                    (a, b, da, db)
                } else {
                    (b, a, db, da)
                };
                tmp.push(p.lerp(&q, dp / (dp - dq)));
            }
        }
        std::mem::swap(poly, tmp);
    }
}

/// Reused buffers of the polygon clipper.
#[derive(Default)]
pub struct ClipScratch {
    poly: Vec<ClipVertex>,
    tmp: Vec<ClipVertex>,
}

/// Per-draw constants of setup.
pub struct Setup<'a> {
    pub stream: &'a VertexStream,
    pub layout: &'a OutputLayout,
    pub state: &'a RenderState,
    pub viewport: Viewport,
    pub rect: [i64; 4],
    /// Each stream vertex projected ([`Setup::window_vertices`]), or
    /// empty: computed per primitive.
    pub windows: &'a [ProjectedVertex],
    /// The least and greatest sample offsets inside a pixel on x and on y
    /// (1/256 units: [`crate::raster::SamplePattern::span`]): a
    /// primitive's box holds the pixels with a sample inside its extent.
    pub sample_span: [[i64; 2]; 2],
}

/// The input primitive a clipped piece comes from: its stream vertices and
/// their count, its id, its vertices' clip w.
#[derive(Clone, Copy)]
struct Source {
    verts: [u32; 3],
    count: usize,
    id: u32,
    orig_w: [f64; 3],
}

/// A vertex's window position: x, y snapped to the subpixel grid, and depth.
pub type WindowVertex = ([i64; 2], f64);

/// A stream vertex projected once per draw: its window position, its clip
/// w, and whether it is inside every clip plane with w > 0 (a triangle of
/// three such vertices needs no clipping).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProjectedVertex {
    pub window: WindowVertex,
    pub w: f64,
    pub inside: bool,
}

/// One corner of a piece to set up: its window position, clip w and
/// weights of the original vertices.
#[derive(Clone, Copy)]
struct Corner {
    window: WindowVertex,
    w: f64,
    bary: [f64; 3],
}

/// Stream vertices below which [`Setup::window_vertices`] stays on one thread.
const PROJECT_PER_THREAD: usize = 8192;

impl Setup<'_> {
    fn position(&self, v: u32) -> [f64; 4] {
        let Some(r) = self.layout.position else {
            return [0.0; 4];
        };
        self.stream
            .vertex(v)
            .get(r)
            .map_or([0.0; 4], |p| p.map(|w| f32::from_bits(w) as f64))
    }

    fn distance(&self, v: u32, (r, c): (usize, usize)) -> f64 {
        self.stream
            .vertex(v)
            .get(r)
            .map_or(0.0, |p| f32::from_bits(p[c]) as f64)
    }

    /// Every vertex of `stream` projected into `out` (what
    /// [`Setup::windows`] takes), on up to `threads` threads: each vertex
    /// is projected once, however many primitives share it.
    pub fn window_vertices(
        stream: &VertexStream,
        layout: &OutputLayout,
        viewport: &Viewport,
        threads: usize,
        out: &mut Vec<ProjectedVertex>,
    ) {
        let Some(r) = layout.position else {
            out.clear();
            return;
        };
        let count = stream.outputs.len() / stream.stride.max(1);
        // every vertex is written below: only a longer list needs filling
        out.truncate(count);
        out.resize(count, ProjectedVertex::default());
        let project = |first: usize, part: &mut [ProjectedVertex]| {
            tgsi_exec::tiles::wide(crate::project::Project {
                stream,
                position: r,
                clip: &layout.clip,
                viewport,
                first,
                part,
            });
        };
        let threads = threads.clamp(1, (count / PROJECT_PER_THREAD).max(1));
        if threads <= 1 {
            project(0, out);
            return;
        }
        let per = count.div_ceil(threads);
        let shares = out.chunks_mut(per).enumerate();
        tgsi_exec::parallel::each(shares.collect(), |(t, part)| project(t * per, part));
    }

    /// The window position of clip vertex `cv`, of stream vertex `v` when
    /// it is that vertex unclipped.
    fn window_of(&self, cv: &ClipVertex, v: Option<u32>) -> WindowVertex {
        match v.and_then(|v| self.windows.get(v as usize)) {
            Some(p) => p.window,
            None => to_window(&self.viewport, &cv.pos),
        }
    }

    /// The corners of clipped or unclipped vertices `cv` (`unclipped`:
    /// they are the source's vertices in order).
    fn corners<const N: usize>(
        &self,
        cv: [&ClipVertex; N],
        unclipped: bool,
        from: &Source,
    ) -> [Corner; N] {
        std::array::from_fn(|j| Corner {
            window: self.window_of(cv[j], unclipped.then_some(from.verts[j])),
            w: cv[j].pos[3],
            bary: cv[j].bary,
        })
    }

    /// Appends the rasterizable pieces of primitive `index` to `out`.
    pub fn primitive(&self, index: usize, scratch: &mut ClipScratch, out: &mut Vec<RasterPrim>) {
        self.primitive_shown(index, false, scratch, out);
    }

    /// [`Setup::primitive`]; `shown` says that the primitive is a triangle
    /// known to cover a sample when its vertices are projected inside
    /// every clip plane (`Setup::blank_triangles` found it so), whose
    /// pixel centres then go untested.
    pub fn primitive_shown(
        &self,
        index: usize,
        shown: bool,
        scratch: &mut ClipScratch,
        out: &mut Vec<RasterPrim>,
    ) {
        let Some(p) = self.stream.primitives.get(index) else {
            return;
        };
        let verts = self.stream.primitive_vertices(&p);
        let n = match p.kind {
            PrimitiveKind::Point => 1,
            PrimitiveKind::Line => 2,
            PrimitiveKind::Triangle => 3,
            // Stages that consume these have run before setup.
            _ => return,
        };
        if verts.len() < n {
            return;
        }
        // (value by value: a copy of n words would call the C library and
        // its stores would stall the reads of the whole array below)
        let vs: [u32; 3] =
            std::array::from_fn(|k| verts.get(k).copied().filter(|_| k < n).unwrap_or(0));
        // Cull distances.
        for &cd in &self.layout.cull {
            if vs[..n].iter().all(|&v| self.distance(v, cd) < 0.0) {
                return;
            }
        }
        // A triangle of projected vertices inside every plane: straight to
        // setup, without clip vertices.
        if n == 3 && self.emit_inside_triangle(vs[0], vs[1], vs[2], (p.id, shown), out) {
            return;
        }
        let mut cv = [ClipVertex {
            pos: [0.0; 4],
            bary: [0.0; 3],
            dist: [0.0; MAX_DISTANCES],
        }; 3];
        for k in 0..n {
            cv[k].pos = self.position(vs[k]);
            cv[k].bary[k] = 1.0;
            for (i, &cd) in self.layout.clip.iter().enumerate() {
                cv[k].dist[i] = self.distance(vs[k], cd);
            }
        }
        let planes = 6 + self.layout.clip.len();
        let from = Source {
            verts: vs,
            count: n,
            id: p.id,
            orig_w: [cv[0].pos[3], cv[1].pos[3], cv[2].pos[3]],
        };
        match n {
            1 => {
                if (0..planes).all(|k| inside(plane_value(&cv[0], k))) && cv[0].pos[3] > 0.0 {
                    self.emit(&self.corners([&cv[0]], true, &from), &from, out);
                }
            }
            2 => {
                let (mut t0, mut t1) = (0.0f64, 1.0f64);
                for k in 0..planes {
                    let (d0, d1) = (plane_value(&cv[0], k), plane_value(&cv[1], k));
                    match (inside(d0), inside(d1)) {
                        (true, true) => {}
                        (false, false) => return,
                        (true, false) => t1 = t1.min(d0 / (d0 - d1)),
                        (false, true) => t0 = t0.max(d0 / (d0 - d1)),
                    }
                }
                if t0 > t1 {
                    return;
                }
                let a = if t0 > 0.0 {
                    cv[0].lerp(&cv[1], t0)
                } else {
                    cv[0]
                };
                let b = if t1 < 1.0 {
                    cv[0].lerp(&cv[1], t1)
                } else {
                    cv[1]
                };
                if a.pos[3] > 0.0 && b.pos[3] > 0.0 {
                    let unclipped = t0 <= 0.0 && t1 >= 1.0;
                    self.emit(&self.corners([&a, &b], unclipped, &from), &from, out);
                }
            }
            _ => {
                let all_in = (0..planes).all(|k| cv.iter().all(|v| inside(plane_value(v, k))));
                if all_in {
                    if cv.iter().all(|v| v.pos[3] > 0.0) {
                        let [a, b, c] = &cv;
                        self.emit(&self.corners([a, b, c], true, &from), &from, out);
                    }
                    return;
                }
                let ClipScratch { poly, tmp } = scratch;
                poly.clear();
                poly.extend_from_slice(&cv);
                clip_polygon(poly, tmp, planes);
                if poly.len() < 3 || poly.iter().any(|v| v.pos[3].is_nan() || v.pos[3] <= 0.0) {
                    return;
                }
                for i in 1..poly.len() - 1 {
                    let piece = [&poly[0], &poly[i], &poly[i + 1]];
                    self.emit(&self.corners(piece, false, &from), &from, out);
                }
            }
        }
    }

    /// Sets up the triangle of stream vertices `v0`, `v1`, `v2` when all
    /// three are projected inside every clip plane (no clip vertices
    /// needed) and says whether it did. (The numbers come as values, not
    /// as an array: the array's word stores read back as one wider load
    /// stalled every primitive.)
    #[inline(never)]
    fn emit_inside_triangle(
        &self,
        v0: u32,
        v1: u32,
        v2: u32,
        (id, shown): (u32, bool),
        out: &mut Vec<RasterPrim>,
    ) -> bool {
        let projected = |v: u32| self.windows.get(v as usize).filter(|p| p.inside);
        let (Some(a), Some(b), Some(c)) = (projected(v0), projected(v1), projected(v2)) else {
            return false;
        };
        // (culled and empty triangles leave before their corners are made)
        let Some(outline) = self.outline(&[a.window.0, b.window.0, c.window.0], !shown) else {
            return true;
        };
        let from = Source {
            verts: [v0, v1, v2],
            count: 3,
            id,
            orig_w: [a.w, b.w, c.w],
        };
        let corner = |p: &ProjectedVertex, k: usize| Corner {
            window: p.window,
            w: p.w,
            bary: std::array::from_fn(|i| if i == k { 1.0 } else { 0.0 }),
        };
        let corners = [corner(a, 0), corner(b, 1), corner(c, 2)];
        self.emit_outlined(&corners, &from, &outline, out);
        // (the vertices' outputs on their way to the cache for the inputs'
        // planes, which the bands make after the chunk's setup)
        for v in [v0, v1, v2] {
            tgsi_exec::tiles::prefetch_lines(self.stream.vertex(v));
        }
        true
    }

    /// True for a triangle whose box is at most four pixels and which
    /// covers none of their centres, with one sample per pixel at the
    /// centre (a tiny triangle between the centres, dropped before it is
    /// binned); false otherwise. (Inlined into the outline, so that the
    /// shape is not given a place in memory for this call.)
    #[inline(always)]
    fn covers_no_centre(&self, shape: &Shape, bbox: [i64; 4]) -> bool {
        let [[x0, x1], [y0, y1]] = self.sample_span;
        let Shape::Triangle { v, top_left } = shape else {
            return false;
        };
        let pixels = (bbox[2] - bbox[0] + 1) * (bbox[3] - bbox[1] + 1);
        if x0 != x1 || y0 != y1 || pixels > 4 {
            return false;
        }
        let centre = |px: i64, py: i64| [px * ONE as i64 + x0, py * ONE as i64 + y0];
        !(bbox[1]..=bbox[3])
            .any(|py| (bbox[0]..=bbox[2]).any(|px| triangle_covers(v, top_left, centre(px, py))))
    }

    /// Sets up one clipped point, line or triangle from its projected corners.
    fn emit(&self, cv: &[Corner], from: &Source, out: &mut Vec<RasterPrim>) {
        let m = cv.len().min(3);
        let mut win = [[0i64; 2]; 3];
        for j in 0..m {
            win[j] = cv[j].window.0;
        }
        if let Some(outline) = self.outline(&win[..m], true) {
            self.emit_outlined(cv, from, &outline, out);
        }
    }

    /// Where the point, line or triangle of window positions `win` lands
    /// (its shape, facing and pixel box), or None when it draws nothing:
    /// no area or length, culled, no pixel of the raster rectangle, or a
    /// tiny triangle between the pixel centres (tested when `centres`).
    /// (Inlined: a returned outline read back from memory waited for its
    /// stores.)
    #[inline(always)]
    fn outline(&self, win: &[[i64; 2]], centres: bool) -> Option<Outline> {
        let mut area = None;
        let mut front = true;
        let shape;
        let half = (ONE / 2.0) as i64;
        let (bx0, by0, bx1, by1);
        match *win {
            [[x, y]] => {
                shape = Shape::Point {
                    x0: x - half,
                    y0: y - half,
                    x1: x + half,
                    y1: y + half,
                };
                (bx0, by0, bx1, by1) = (x - half, y - half, x + half, y + half);
            }
            [p0, p1] => {
                if p0 == p1 {
                    return None;
                }
                shape = Shape::Line { p0, p1 };
                bx0 = p0[0].min(p1[0]) - half;
                by0 = p0[1].min(p1[1]) - half;
                bx1 = p0[0].max(p1[0]) + half;
                by1 = p0[1].max(p1[1]) + half;
            }
            [a, b, c] => {
                let doubled = doubled_area(a, b, c);
                if doubled == 0.0 {
                    return None;
                }
                let clockwise = doubled > 0.0;
                front = clockwise == (self.state.front == FrontFace::Clockwise);
                match self.state.cull {
                    CullMode::Front if front => return None,
                    CullMode::Back if !front => return None,
                    _ => {}
                }
                area = Some(doubled);
                // Orient clockwise (area > 0) for the edge tests.
                let v = if clockwise { [a, b, c] } else { [a, c, b] };
                let mut top_left = [false; 3];
                for i in 0..3 {
                    let (p, q) = (v[i], v[(i + 1) % 3]);
                    top_left[i] = top_left_edge(q[0] - p[0], q[1] - p[1]);
                }
                shape = Shape::Triangle { v, top_left };
                bx0 = a[0].min(b[0]).min(c[0]);
                by0 = a[1].min(b[1]).min(c[1]);
                bx1 = a[0].max(b[0]).max(c[0]);
                by1 = a[1].max(b[1]).max(c[1]);
            }
            _ => return None,
        }
        // The pixels with a sample inside the extent: on each axis, from
        // the first whose last sample reaches the low end to the last
        // whose first sample stays within the high end (for one sample,
        // the pixels whose centre lies in it).
        let [xs, ys] = [
            pixel_span(bx0, bx1, self.sample_span[0]),
            pixel_span(by0, by1, self.sample_span[1]),
        ];
        let r = &self.rect;
        let bbox = [
            xs[0].max(r[0]),
            ys[0].max(r[1]),
            xs[1].min(r[2] - 1),
            ys[1].min(r[3] - 1),
        ];
        if bbox[0] > bbox[2] || bbox[1] > bbox[3] || centres && self.covers_no_centre(&shape, bbox)
        {
            return None;
        }
        Some(Outline {
            shape,
            bbox,
            front,
            area,
        })
    }

    /// Sets up the primitive of `outline` from its projected corners: the
    /// screen barycentric planes of its corners, and through them its
    /// depth, 1/w and interpolation planes.
    #[inline(always)]
    fn emit_outlined(
        &self,
        cv: &[Corner],
        from: &Source,
        outline: &Outline,
        out: &mut Vec<RasterPrim>,
    ) {
        let Source {
            verts,
            count,
            id,
            orig_w,
        } = *from;
        let m = cv.len().min(3);
        let f = |p: [i64; 2]| [p[0] as f64 / ONE, p[1] as f64 / ONE];
        // Screen barycentric planes σ_j of the snapped primitive.
        let mut sigma = [[0.0f64; 3]; 3];
        match m {
            1 => sigma[0] = [1.0, 0.0, 0.0],
            2 => {
                let (p0, p1) = (f(cv[0].window.0), f(cv[1].window.0));
                let d = [p1[0] - p0[0], p1[1] - p0[1]];
                let len2 = d[0] * d[0] + d[1] * d[1];
                let t = [
                    -(p0[0] * d[0] + p0[1] * d[1]) / len2,
                    d[0] / len2,
                    d[1] / len2,
                ];
                sigma[1] = t;
                sigma[0] = [1.0 - t[0], -t[1], -t[2]];
            }
            _ => {
                // Edge planes: σ_j = E(opposite edge)(p) / area.
                let area = outline.area.unwrap_or(1.0);
                let pf: [[f64; 2]; 3] = std::array::from_fn(|j| f(cv[j].window.0));
                let area_f = area / (ONE * ONE);
                for j in 0..3 {
                    let (u, v) = (pf[(j + 1) % 3], pf[(j + 2) % 3]);
                    // E_uv(p) = (vx-ux)(py-uy) - (vy-uy)(px-ux)
                    let (ex, ey) = (v[0] - u[0], v[1] - u[1]);
                    sigma[j] = [(-ex * u[1] + ey * u[0]) / area_f, -ey / area_f, ex / area_f];
                }
            }
        }
        let mut prim = RasterPrim {
            // (a triangle's corners copied as the words they were stored
            // as: the whole enum's copy read them back wider and waited)
            shape: match outline.shape {
                Shape::Triangle { v, top_left } => Shape::Triangle {
                    v: v.map(|[x, y]| [x, y]),
                    top_left,
                },
                other => other,
            },
            bbox: outline.bbox,
            front: outline.front,
            verts,
            count: count as u8,
            id,
            depth: [0.0; 3],
            inv_w: [0.0; 3],
            persp: [[0.0; 3]; 3],
            linear: [[0.0; 3]; 3],
        };
        for j in 0..m {
            let w = cv[j].w;
            plane_add(&mut prim.depth, &sigma[j], cv[j].window.1);
            plane_add(&mut prim.inv_w, &sigma[j], 1.0 / w);
            for k in 0..count {
                let b = cv[j].bary[k];
                if b != 0.0 {
                    plane_add(&mut prim.persp[k], &sigma[j], b / w);
                    plane_add(&mut prim.linear[k], &sigma[j], b * orig_w[k] / w);
                }
            }
        }
        out.push(prim);
    }
}

/// Where a primitive lands ([`Setup::outline`]).
struct Outline {
    shape: Shape,
    bbox: [i64; 4],
    front: bool,
    /// A triangle's doubled signed area (1/256² units, rounded once to
    /// f64: [`doubled_area`]).
    area: Option<f64>,
}

/// Twice the signed area of the triangle a, b, c (on the 1/256 grid, in
/// 1/256² units), rounded once to f64: never 0 unless the area is, with
/// its sign. In i64 when the products and their difference fit (the
/// conversion of an i128 is a library call), else in i128.
#[inline(always)]
fn doubled_area(a: [i64; 2], b: [i64; 2], c: [i64; 2]) -> f64 {
    let (ux, uy, vx, vy) = (b[0] - a[0], b[1] - a[1], c[0] - a[0], c[1] - a[1]);
    if let (Some(p), Some(q)) = (ux.checked_mul(vy), uy.checked_mul(vx))
        && let Some(d) = p.checked_sub(q)
    {
        return d as f64;
    }
    (ux as i128 * vy as i128 - uy as i128 * vx as i128) as f64
}

impl RasterPrim {
    /// The fragment inputs of this primitive into `inputs` (by IN register);
    /// `reads[r]` (missing: all four) names the channels of IN register r
    /// the shader reads: the planes of the others are left at zero.
    pub fn fill_inputs(
        &self,
        stream: &VertexStream,
        linkage: &Linkage,
        reads: &[u8],
        inputs: &mut [InputSource],
    ) {
        let n = self.count as usize;
        // the primitive's vertices' outputs, looked up once
        let outputs: [&[[u32; 4]]; 3] = std::array::from_fn(|k| {
            if k < n {
                stream.vertex(self.verts[k])
            } else {
                &[]
            }
        });
        let value =
            |k: usize, reg: usize| -> [u32; 4] { outputs[k].get(reg).copied().unwrap_or([0; 4]) };
        for (r, (slot, feed)) in inputs.iter_mut().zip(&linkage.inputs).enumerate() {
            let read = reads.get(r).copied().unwrap_or(0xF);
            *slot = match *feed {
                InputFeed::Zero => InputSource::Zero,
                InputFeed::Position => self.position(linkage),
                InputFeed::Face => InputSource::Face(if self.front { 1.0 } else { -1.0 }),
                InputFeed::PrimitiveId => InputSource::Flat([self.id; 4]),
                InputFeed::Vertex { reg, mode } => match mode {
                    Interpolation::Flat => InputSource::Flat(value(0, reg)),
                    Interpolation::Linear | Interpolation::Perspective => {
                        let basis = if mode == Interpolation::Linear {
                            &self.linear
                        } else {
                            &self.persp
                        };
                        // channel by channel, the vertices in order from
                        // 0.0 (the sums of `plane_add`, without branches)
                        let a: [[f64; 4]; 3] = std::array::from_fn(|k| {
                            value(k, reg).map(|w| f32::from_bits(w) as f64)
                        });
                        let plane: [Plane; 4] = std::array::from_fn(|c| {
                            let mut p = [0.0f64; 3];
                            if read & (1 << c) != 0 {
                                for k in 0..n {
                                    plane_add(&mut p, &basis[k], a[k][c]);
                                }
                            }
                            p
                        });
                        if mode == Interpolation::Linear {
                            InputSource::Linear(plane)
                        } else {
                            InputSource::Perspective {
                                plane,
                                inv_w: self.inv_w,
                            }
                        }
                    }
                },
            };
        }
        for slot in inputs.iter_mut().skip(linkage.inputs.len()) {
            *slot = InputSource::Zero;
        }
    }

    /// The POSITION input of this primitive.
    pub fn position(&self, linkage: &Linkage) -> InputSource {
        InputSource::Window {
            z: self.depth,
            inv_w: self.inv_w,
            clip_w: linkage.clip_w,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The doubled area is the exact i128 value rounded once, with its
    /// sign and zero only for a zero area, through the i64 path and past
    /// it (products and differences that overflow i64).
    #[test]
    fn doubled_area_is_the_exact_area_rounded_once() {
        let mut rng = tgsi_ir::rng::Rng(0xa4ea_0000_0000_0001);
        let big = [
            0i64,
            1,
            -1,
            3,
            1 << 31,
            3 << 30,
            (1 << 32) - 1,
            1 << 40,
            i64::MAX / 4,
        ];
        for round in 0..20_000 {
            let coord = |rng: &mut tgsi_ir::rng::Rng| -> i64 {
                let v = match round % 3 {
                    0 => big[rng.below(big.len() as u64) as usize],
                    1 => rng.below(1 << 20) as i64,
                    // (at most 2^61 in magnitude: the differences fit i64,
                    // as the guard band keeps real coordinates far inside)
                    _ => rng.next() as i64 >> (2 + rng.below(40)),
                };
                if rng.below(2) == 0 { v } else { -v }
            };
            let p: [[i64; 2]; 3] = std::array::from_fn(|_| [coord(&mut rng), coord(&mut rng)]);
            let [a, b, c] = p;
            let exact = (b[0] - a[0]) as i128 * (c[1] - a[1]) as i128
                - (b[1] - a[1]) as i128 * (c[0] - a[0]) as i128;
            let got = doubled_area(a, b, c);
            assert_eq!(got.to_bits(), (exact as f64).to_bits(), "{p:?}");
            assert_eq!(got == 0.0, exact == 0, "{p:?}");
            assert_eq!(got > 0.0, exact > 0, "{p:?}");
        }
    }

    fn vtx(x: f64, y: f64, z: f64, w: f64) -> ClipVertex {
        ClipVertex {
            pos: [x, y, z, w],
            bary: [0.0; 3],
            dist: [0.0; MAX_DISTANCES],
        }
    }

    /// Each projected vertex is inside exactly when w > 0 and every clip
    /// plane of `plane_value` (the view volume, the guard band, the clip
    /// distances) is at least 0, and its window position is `to_window`'s:
    /// for positions and distances of every class (NaN, infinities, ±0,
    /// subnormals, values on the planes), on one thread and on three.
    #[test]
    fn projected_vertices_follow_the_clip_planes() {
        let mut rng = tgsi_ir::rng::Rng(0x5e70_0000_0000_0001);
        let edges = tgsi_ir::rng::EDGE_F32;
        let mut word = |k: usize| -> u32 {
            match k % 4 {
                0 => edges[rng.below(edges.len() as u64) as usize],
                1 => ((rng.below(2001) as f32 - 1000.0) / 250.0).to_bits(),
                2 => (rng.below(64) as f32 - 8.0).to_bits(),
                _ => rng.next() as u32,
            }
        };
        // OUT[0] a clip distance pair, OUT[1] the position, OUT[2] more
        // distances; some vertices on a plane (x = ±32 w, z = w, z = 0, the
        // origin with w = 0)
        let count = 4099; // (a last block of three)
        let mut outputs = Vec::new();
        for v in 0..count {
            let mut regs: [[u32; 4]; 3] =
                std::array::from_fn(|r| std::array::from_fn(|c| word(v * 12 + r * 4 + c + v / 7)));
            let w = f32::from_bits(regs[1][3]);
            match v % 9 {
                0 => regs[1][0] = (32.0 * w).to_bits(),
                1 => regs[1][1] = (-32.0 * w).to_bits(),
                2 => regs[1][2] = regs[1][3],
                3 => regs[1][2] = 0f32.to_bits(),
                // on every plane of the volume, but w is not above 0
                4 => regs[1] = [0, (-0f32).to_bits(), 0, 0],
                _ => {}
            }
            outputs.extend(regs);
        }
        let stream = VertexStream {
            outputs,
            stride: 3,
            ..VertexStream::default()
        };
        let layout = OutputLayout {
            position: Some(1),
            clip: vec![(0, 1), (2, 3), (0, 2)],
            ..OutputLayout::default()
        };
        let viewport = Viewport {
            x: 3.0,
            y: -2.0,
            width: 640.0,
            height: 480.0,
            min_depth: 0.25,
            max_depth: 1.0,
        };
        let mut one = Vec::new();
        Setup::window_vertices(&stream, &layout, &viewport, 1, &mut one);
        let mut three = Vec::new();
        Setup::window_vertices(&stream, &layout, &viewport, 3, &mut three);
        let bits =
            |p: &ProjectedVertex| (p.window.0, p.window.1.to_bits(), p.w.to_bits(), p.inside);
        assert!(
            one.iter().map(bits).eq(three.iter().map(bits)),
            "the projection depends on the threads"
        );
        let (mut ins, mut outs) = (0, 0);
        for (v, got) in one.iter().enumerate() {
            let regs = stream.vertex(v as u32);
            let f = |r: usize, c: usize| f32::from_bits(regs[r][c]) as f64;
            let mut cv = vtx(f(1, 0), f(1, 1), f(1, 2), f(1, 3));
            for (i, &(r, c)) in layout.clip.iter().enumerate() {
                cv.dist[i] = f(r, c);
            }
            let inside_all = cv.pos[3] > 0.0 && (0..9).all(|k| inside(plane_value(&cv, k)));
            assert_eq!(got.inside, inside_all, "vertex {v}: {:?}", regs);
            let window = to_window(&viewport, &cv.pos);
            assert_eq!(got.window.0, window.0, "vertex {v}");
            assert_eq!(got.window.1.to_bits(), window.1.to_bits(), "vertex {v}");
            assert_eq!(got.w.to_bits(), cv.pos[3].to_bits());
            if got.inside { ins += 1 } else { outs += 1 }
        }
        assert!(ins > 100 && outs > 100, "{ins} inside, {outs} outside");
    }

    #[test]
    fn clipping_at_z_zero_keeps_the_inside_part() {
        // A triangle crossing z = 0: one vertex at z = -1 (outside).
        let mut poly = vec![
            vtx(0.0, 0.0, -1.0, 1.0),
            vtx(1.0, 0.0, 1.0, 1.0),
            vtx(0.0, 1.0, 1.0, 1.0),
        ];
        let mut tmp = Vec::new();
        clip_polygon(&mut poly, &mut tmp, 6);
        assert_eq!(poly.len(), 4);
        assert!(poly.iter().all(|v| v.pos[2] >= 0.0));
        // The new vertices sit at z = 0, halfway along the cut edges.
        let at_zero: Vec<_> = poly.iter().filter(|v| v.pos[2] == 0.0).collect();
        assert_eq!(at_zero.len(), 2);
        assert!(at_zero.iter().any(|v| v.pos[0] == 0.5 && v.pos[1] == 0.0));
        // Entirely behind the eye (w < 0 with z = w): nothing survives.
        let mut behind = vec![
            vtx(0.0, 0.0, -1.0, -1.0),
            vtx(1.0, 0.0, -1.0, -1.0),
            vtx(0.0, 1.0, -1.0, -1.0),
        ];
        clip_polygon(&mut behind, &mut tmp, 6);
        assert!(behind.is_empty());
    }

    #[test]
    fn clip_distances_cut_where_the_distance_is_zero() {
        let mut a = vtx(0.0, 0.0, 0.5, 1.0);
        a.dist[0] = -1.0;
        let mut b = vtx(1.0, 0.0, 0.5, 1.0);
        b.dist[0] = 3.0;
        let mut poly = vec![a, b, b];
        let mut tmp = Vec::new();
        clip_polygon(&mut poly, &mut tmp, 7);
        let xs: Vec<f64> = poly.iter().map(|v| v.pos[0]).collect();
        assert!(xs.contains(&0.25), "{xs:?}");
        assert!(!xs.contains(&0.0));
    }
}
