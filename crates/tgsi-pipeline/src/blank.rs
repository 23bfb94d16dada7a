//! Triangles of a list draw that set up nothing, found sixteen at a time.
//!
//! A draw of many small triangles drops most of them in setup: back faces
//! culled, and tiny front faces that hold no pixel centre (about 80 % of
//! the tiny-triangle workload's million). Deciding that triangle by
//! triangle cost a call, three vertex look-ups and branches that mispredict
//! as often as they go either way. [`Setup::blank_triangles`] decides it
//! for sixteen triangles side by side without a branch per triangle (on
//! AVX-512 CPUs the lanes are compiled into vector code through
//! [`tgsi_exec::tiles::wide`]), and setup then runs only the others.
//!
//! The test is the unclipped triangle's outline (`Setup::outline`) made
//! exact in i64 and kept only where it is exact: a lane is blank when its
//! three vertices are projected inside every clip plane, its coordinates
//! are at most 2^30 (1/256 pixels) in magnitude, and its triangle has no
//! area, is culled, has an empty pixel box, or (one sample per pixel, at
//! the centre) has a box of at most four pixels and covers none of their
//! centres; such a lane that is not blank is a triangle setup keeps, and
//! setup leaves its centre test out. Every other lane is left to setup,
//! which decides it in full; the tests check each decided lane against
//! setup, and that within the exact range every triangle is decided.

#![allow(clippy::needless_range_loop)] // steps over several arrays of lanes in lockstep

use super::setup::{ProjectedVertex, SUBPIXEL_BITS, Setup, pixel_span, top_left_edge};
use super::state::{CullMode, FrontFace};

/// Triangles per test.
pub const BLOCK: usize = 16;

/// Coordinates (1/256 pixels) beyond this magnitude leave a lane to
/// setup: up to it, every product of two differences and every edge value
/// fits an i64. (A vertex projected inside the guard band, 32 viewports
/// wide, is far inside it for any real viewport.)
const EXACT: i64 = 1 << 30;

/// One block's triangles, lane by lane, and the draw's constants.
struct Block<'a> {
    /// The triangles' vertex numbers (three per lane; lanes past the end
    /// hold no triangle).
    indices: &'a [u32],
    /// The draw's projected vertices.
    windows: &'a [ProjectedVertex],
    front_clockwise: bool,
    cull_front: bool,
    cull_back: bool,
    /// The raster rectangle (pixels: x0, y0, x1, y1, the ends excluded).
    rect: [i64; 4],
    /// [`Setup::sample_span`].
    span: [[i64; 2]; 2],
}

/// A value per lane.
type Lanes = [i64; BLOCK];

/// `f` of each lane (a loop the compiler turns into vector code).
#[inline(always)]
fn each(f: impl Fn(usize) -> i64) -> Lanes {
    let mut out = [0; BLOCK];
    for l in 0..BLOCK {
        out[l] = f(l);
    }
    out
}

/// Edge `i` (from corner i to the next) of clockwise `corners`: its
/// direction and whether it is a top or left edge.
#[inline(always)]
fn edge(corners: [(&Lanes, &Lanes); 3], i: usize) -> (Lanes, Lanes, Lanes) {
    let ((px, py), (qx, qy)) = (corners[i], corners[(i + 1) % 3]);
    let dx = each(|l| qx[l] - px[l]);
    let dy = each(|l| qy[l] - py[l]);
    let top_left = each(|l| i64::from(top_left_edge(dx[l], dy[l])));
    (dx, dy, top_left)
}

impl tgsi_exec::tiles::Kernel for Block<'_> {
    type Out = Found;

    /// The blank lanes (see the module docs), each step over all the
    /// lanes at once, with no branch on their values; truths are 0 or 1.
    #[inline(always)]
    fn run(self) -> Found {
        // each corner's projected vertex (the default, outside, past the end)
        let corner = |l: usize, k: usize| {
            let v = self
                .indices
                .get(3 * l + k)
                .map_or(usize::MAX, |&v| v as usize);
            self.windows.get(v).copied().unwrap_or_default()
        };
        let mut x = [[0; BLOCK]; 3];
        let mut y = [[0; BLOCK]; 3];
        let mut inside = [1; BLOCK];
        for l in 0..BLOCK {
            for k in 0..3 {
                let p = corner(l, k);
                [x[k][l], y[k][l]] = p.window.0;
                inside[l] &= i64::from(p.inside);
            }
        }
        let near = |v: i64| i64::from(v.wrapping_add(EXACT) as u64 <= 2 * EXACT as u64);
        let exact = each(|l| (0..3).fold(inside[l], |a, k| a & near(x[k][l]) & near(y[k][l])));
        // (a lane out of range computes on zeros, and is not blank)
        let at = |v: &[Lanes; 3], k: usize| each(|l| v[k][l] & -exact[l]);
        let [ax, bx, cx] = [at(&x, 0), at(&x, 1), at(&x, 2)];
        let [ay, by, cy] = [at(&y, 0), at(&y, 1), at(&y, 2)];
        let area = each(|l| (bx[l] - ax[l]) * (cy[l] - ay[l]) - (by[l] - ay[l]) * (cx[l] - ax[l]));
        let clockwise = each(|l| i64::from(area[l] > 0));
        let culled = each(|l| {
            let front = i64::from((clockwise[l] != 0) == self.front_clockwise);
            (i64::from(self.cull_front) & front) | (i64::from(self.cull_back) & (front ^ 1))
        });
        // the corners clockwise: a, then p and q
        let pick =
            |cw: &Lanes, ccw: &Lanes| each(|l| if clockwise[l] != 0 { cw[l] } else { ccw[l] });
        let (px, py, qx, qy) = (
            pick(&bx, &cx),
            pick(&by, &cy),
            pick(&cx, &bx),
            pick(&cy, &by),
        );
        // the pixels with a sample inside the box (`Setup::outline`'s)
        let [[sx0, sx1], [sy0, sy1]] = self.span;
        let r = self.rect;
        let xs = |l: usize| {
            let (low, high) = (ax[l].min(bx[l]).min(cx[l]), ax[l].max(bx[l]).max(cx[l]));
            pixel_span(low, high, [sx0, sx1])
        };
        let ys = |l: usize| {
            let (low, high) = (ay[l].min(by[l]).min(cy[l]), ay[l].max(by[l]).max(cy[l]));
            pixel_span(low, high, [sy0, sy1])
        };
        let x0 = each(|l| xs(l)[0].max(r[0]));
        let y0 = each(|l| ys(l)[0].max(r[1]));
        // (from here on, the lanes of a rectangle at the ends of i64 are
        // empty, so blank whatever their other values: the steps wrap
        // rather than overflow)
        let last = |end: i64| end.wrapping_sub(1);
        let x1 = each(|l| xs(l)[1].min(last(r[2])));
        let y1 = each(|l| ys(l)[1].min(last(r[3])));
        let empty = each(|l| i64::from(x0[l] > x1[l]) | i64::from(y0[l] > y1[l]));
        // at most four pixels, one sample each at the centre: none covered
        let w = each(|l| x1[l].wrapping_sub(x0[l]).wrapping_add(1));
        let h = each(|l| y1[l].wrapping_sub(y0[l]).wrapping_add(1));
        let centre = i64::from(sx0 == sx1 && sy0 == sy1);
        let few = each(|l| {
            let area = w[l].wrapping_mul(h[l]);
            centre & i64::from(w[l] <= 4) & i64::from(h[l] <= 4) & i64::from(area <= 4)
        });
        let drop = each(|l| i64::from(area[l] == 0) | culled[l] | empty[l]);
        // the lanes whose pixel centres decide nothing: left to setup, or
        // dropped already, or of more than four pixels (a block of back
        // faces, of large triangles or past the end skips the test); a
        // plain loop, as a fold was left out of line without AVX-512
        let mut settled = 1;
        for l in 0..BLOCK {
            settled &= (exact[l] ^ 1) | drop[l] | (few[l] ^ 1);
        }
        let mut covered = [1i64; BLOCK];
        if settled == 0 {
            covered = centres_covered(
                [(&ax, &ay), (&px, &py), (&qx, &qy)],
                [&x0, &y0, &w, &h],
                [sx0, sy0],
            );
        }
        let mut found = Found::default();
        for l in 0..BLOCK {
            let none = few[l] & (covered[l] ^ 1);
            let drop = drop[l] | none;
            found.blank |= u16::from(exact[l] & drop != 0) << l;
            found.shown |= u16::from(exact[l] & (drop ^ 1) != 0) << l;
        }
        found
    }
}

/// Per lane, 1 when the triangle of clockwise `corners` covers the sample
/// at `[sx0, sy0]` (1/256 pixels) in one of the first four pixels, in row
/// order, of its pixel box `pixels` (x0, y0, width, height); else 0.
#[inline(always)]
fn centres_covered(
    corners: [(&Lanes, &Lanes); 3],
    pixels: [&Lanes; 4],
    [sx0, sy0]: [i64; 2],
) -> Lanes {
    let [x0, y0, w, h] = pixels;
    let edges = [edge(corners, 0), edge(corners, 1), edge(corners, 2)];
    let mut covered = [0i64; BLOCK];
    for k in 0..4i64 {
        // pixel k of the box in row order (w is 1, 2, 3 or 4 here)
        let row = each(|l| i64::from(w[l] == 1) * k + i64::from(w[l] == 2) * (k >> 1));
        let col = |l: usize| k.wrapping_sub(row[l].wrapping_mul(w[l]));
        let sx = each(|l| (x0[l].wrapping_add(col(l)) << SUBPIXEL_BITS).wrapping_add(sx0));
        let sy = each(|l| (y0[l].wrapping_add(row[l]) << SUBPIXEL_BITS).wrapping_add(sy0));
        let mut inside = each(|l| i64::from(k < w[l].wrapping_mul(h[l])));
        for ((cx, cy), (dx, dy, top_left)) in corners.iter().zip(&edges) {
            for l in 0..BLOCK {
                let (ux, uy) = (sx[l].wrapping_sub(cx[l]), sy[l].wrapping_sub(cy[l]));
                let e = dx[l].wrapping_mul(uy).wrapping_sub(dy[l].wrapping_mul(ux));
                inside[l] &= i64::from(e > 0) | (i64::from(e == 0) & top_left[l]);
            }
        }
        for l in 0..BLOCK {
            covered[l] |= inside[l];
        }
    }
    covered
}

/// What the test found of a block's triangles (bit l: the block's
/// triangle l).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Those [`Setup::primitive`] makes nothing of.
    pub blank: u16,
    /// Those of projected vertices inside every clip plane that it makes
    /// a primitive of without testing their pixel centres again
    /// ([`Setup::primitive_shown`]).
    pub shown: u16,
}

impl Setup<'_> {
    /// What the test finds of the `count` (at most 16) triangles of a
    /// triangle list draw from primitive `first` on; nothing when the
    /// draw's primitives are not a list of triangles.
    pub fn blank_triangles(&self, first: usize, count: usize) -> Found {
        if !self.stream.primitives.is_triangle_list() || self.windows.is_empty() {
            return Found::default();
        }
        let indices = &self.stream.indices;
        let from = (3 * first).min(indices.len());
        let block = Block {
            indices: &indices[from..(3 * (first + count.min(BLOCK))).min(indices.len())],
            windows: self.windows,
            front_clockwise: self.state.front == FrontFace::Clockwise,
            cull_front: self.state.cull == CullMode::Front,
            cull_back: self.state.cull == CullMode::Back,
            rect: self.rect,
            span: self.sample_span,
        };
        tgsi_exec::tiles::wide(block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{PrimitiveKind, VertexStream};
    use crate::setup::{ClipScratch, OutputLayout};
    use crate::state::{RenderState, Viewport};
    use tgsi_ir::rng::Rng;

    /// A random window coordinate (1/256 pixels): mostly within a few
    /// pixels of the raster rectangle's corner, often on a pixel centre or
    /// edge, sometimes at either end of the exact range.
    fn coordinate(rng: &mut Rng, base: i64) -> i64 {
        match rng.below(20) {
            // around the exact range's ends (beyond them, setup's own edge
            // functions would leave i64: no projected vertex gets there)
            0 => {
                let end = match rng.below(3) {
                    0 => EXACT - 1,
                    1 => EXACT,
                    _ => EXACT + rng.below(1 << 12) as i64 - (1 << 11),
                };
                if rng.below(2) == 0 { end } else { -end }
            }
            // pixel centres and edges: edges through centres
            1..=7 => base + (rng.below(12) as i64 - 2) * 128,
            _ => base + rng.below(6 << 8) as i64 - (1 << 8),
        }
    }

    /// Every lane the test calls blank is a triangle setup makes nothing
    /// of, and every triangle of three projected vertices inside the clip
    /// volume and the exact range that setup makes nothing of is blank:
    /// random tiny and degenerate triangles, on and off the pixel centres
    /// and the rectangle's edges, under each cull mode, facing and sample
    /// span.
    #[test]
    fn blank_lanes_are_the_triangles_setup_drops() {
        let mut rng = Rng(0xb1a2_0000_0000_0017);
        let layout = OutputLayout {
            position: Some(0),
            ..OutputLayout::default()
        };
        let (mut blank_seen, mut kept_seen) = (0, 0);
        for round in 0..400 {
            let base = ((round % 7) as i64 - 1) << 8;
            let windows: Vec<ProjectedVertex> = (0..48)
                .map(|_| ProjectedVertex {
                    window: (
                        [coordinate(&mut rng, base), coordinate(&mut rng, base)],
                        0.5,
                    ),
                    w: 1.0,
                    inside: rng.below(16) != 0,
                })
                .collect();
            let triangles = 16 + rng.below(40) as usize;
            let mut stream = VertexStream {
                indices: (0..3 * triangles)
                    .map(|_| rng.below(windows.len() as u64 + 1) as u32)
                    .collect(),
                ..VertexStream::default()
            };
            // (the last index may name no vertex)
            stream
                .primitives
                .set_list(PrimitiveKind::Triangle, triangles, 1);
            let state = RenderState {
                cull: [CullMode::None, CullMode::Front, CullMode::Back][round % 3],
                front: [FrontFace::Clockwise, FrontFace::CounterClockwise][round % 2],
                ..RenderState::default()
            };
            let spans = [
                [[128, 128], [128, 128]],
                [[64, 192], [32, 224]],
                [[0, 0], [255, 255]],
            ];
            let setup = Setup {
                stream: &stream,
                layout: &layout,
                state: &state,
                viewport: Viewport::full(4, 4),
                rect: [0, 0, 1 + (round % 5) as i64, 1 + (round % 4) as i64],
                windows: &windows,
                sample_span: spans[(round / 3) % 3],
            };
            let mut scratch = ClipScratch::default();
            for first in (0..triangles).step_by(BLOCK) {
                let count = (triangles - first).min(BLOCK);
                let Found { blank, shown } = setup.blank_triangles(first, count);
                assert_eq!(blank & shown, 0);
                if count < BLOCK {
                    assert_eq!((blank | shown) >> count, 0, "lanes past the end");
                }
                for l in 0..count {
                    let i = first + l;
                    let corners: Vec<Option<&ProjectedVertex>> = stream.indices[3 * i..3 * i + 3]
                        .iter()
                        .map(|&v| windows.get(v as usize))
                        .collect();
                    let all_inside = corners.iter().all(|c| c.is_some_and(|p| p.inside));
                    let exact = corners
                        .iter()
                        .flatten()
                        .all(|p| p.window.0.iter().all(|c| c.abs() <= EXACT));
                    let is_blank = blank >> l & 1 == 1;
                    let is_shown = shown >> l & 1 == 1;
                    if !all_inside {
                        assert!(
                            !is_blank && !is_shown,
                            "round {round}, triangle {i}: outside"
                        );
                        continue;
                    }
                    let mut out = Vec::new();
                    setup.primitive(i, &mut scratch, &mut out);
                    if is_shown {
                        let mut again = Vec::new();
                        setup.primitive_shown(i, true, &mut scratch, &mut again);
                        assert!(
                            !out.is_empty() && out == again,
                            "round {round}, triangle {i}"
                        );
                    }
                    assert_eq!(is_blank || is_shown, exact, "round {round}, triangle {i}");
                    if is_blank {
                        assert!(
                            out.is_empty(),
                            "round {round}, triangle {i}: blank, yet set up"
                        );
                        blank_seen += 1;
                    } else if exact {
                        assert!(
                            !out.is_empty(),
                            "round {round}, triangle {i}: dropped, not blank"
                        );
                        kept_seen += 1;
                    }
                }
            }
        }
        assert!(
            blank_seen > 2000 && kept_seen > 1000,
            "{blank_seen} blank, {kept_seen} kept"
        );
    }

    /// Viewports and scissors far outside the target (the ends of i64,
    /// widths below zero) give an empty raster rectangle within the
    /// target's bounds, and the block test calls every triangle under it,
    /// or under an empty rectangle at the ends of i64, blank without
    /// overflowing (overflow checks are on in debug builds).
    #[test]
    fn hostile_rectangles_are_empty_and_every_triangle_is_blank() {
        use crate::setup::raster_rect;
        use crate::state::Rect;
        let rect = |x, y, width, height| {
            Some(Rect {
                x,
                y,
                width,
                height,
            })
        };
        let far = |x: f32| {
            Some(Viewport {
                x,
                y: x,
                ..Viewport::full(4, 4)
            })
        };
        let states = [
            (rect(i64::MAX, i64::MAX, 10, 10), None),
            (rect(i64::MIN, i64::MIN, i64::MIN, i64::MIN), None),
            (rect(5, 5, -100, -100), None),
            (rect(i64::MAX - 1, 0, i64::MAX, 1), None),
            (None, far(1e30)),
            (None, far(-1e30)),
        ];
        let layout = OutputLayout::default();
        let windows: Vec<ProjectedVertex> = [[0, 0], [1024, 0], [0, 1024], [512, 512]]
            .map(|xy| ProjectedVertex {
                window: (xy, 0.5),
                w: 1.0,
                inside: true,
            })
            .to_vec();
        let mut stream = VertexStream {
            indices: vec![0, 1, 2, 0, 2, 1, 3, 1, 2],
            ..VertexStream::default()
        };
        stream.primitives.set_list(PrimitiveKind::Triangle, 3, 1);
        for (scissor, viewport) in states {
            let state = RenderState {
                scissor,
                viewport,
                ..RenderState::default()
            };
            let r = raster_rect(&state, 4, 4);
            assert!(r[0] >= r[2] || r[1] >= r[3], "{r:?} not empty");
            assert!(r.iter().all(|v| (-1..=4).contains(v)), "{r:?}");
            let setup = Setup {
                rect: r,
                ..setup_of(&stream, &layout, &state, &windows)
            };
            assert_eq!(setup.blank_triangles(0, 3).blank, 0b111, "{r:?}");
        }
        // a setup's own rectangle at the ends of i64, empty either way
        let state = RenderState::default();
        for rect in [[i64::MAX, 0, i64::MIN, 4], [0, i64::MAX, 4, i64::MIN]] {
            let setup = Setup {
                rect,
                ..setup_of(&stream, &layout, &state, &windows)
            };
            assert_eq!(setup.blank_triangles(0, 3).blank, 0b111, "{rect:?}");
        }
    }

    /// A one-pixel-centre setup of `stream` over `windows`.
    fn setup_of<'a>(
        stream: &'a VertexStream,
        layout: &'a OutputLayout,
        state: &'a RenderState,
        windows: &'a [ProjectedVertex],
    ) -> Setup<'a> {
        Setup {
            stream,
            layout,
            state,
            viewport: Viewport::full(4, 4),
            rect: [0, 0, 4, 4],
            windows,
            sample_span: [[128, 128], [128, 128]],
        }
    }

    /// Draws that are not triangle lists, or have no projected vertices,
    /// leave every triangle to setup.
    #[test]
    fn other_draws_have_no_blank_lanes() {
        let (layout, state) = (OutputLayout::default(), RenderState::default());
        let inside = vec![
            ProjectedVertex {
                inside: true,
                ..ProjectedVertex::default()
            };
            3
        ];
        let mut stream = VertexStream {
            indices: vec![0, 0, 0, 1, 1, 1],
            ..VertexStream::default()
        };
        stream.primitives.set_list(PrimitiveKind::Line, 3, 1);
        assert_eq!(
            setup_of(&stream, &layout, &state, &inside).blank_triangles(0, 3),
            Found::default()
        );
        stream.primitives.set_list(PrimitiveKind::Triangle, 2, 1);
        assert_eq!(
            setup_of(&stream, &layout, &state, &[]).blank_triangles(0, 2),
            Found::default()
        );
        // (the same two zero-area triangles of projected vertices: blank)
        assert_eq!(
            setup_of(&stream, &layout, &state, &inside).blank_triangles(0, 2),
            Found {
                blank: 0b11,
                shown: 0
            }
        );
    }
}
