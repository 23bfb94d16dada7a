//! Coverage: which samples of which pixels a [`RasterPrim`] covers, with
//! exact integer edge functions on the 1/256-pixel grid.
//!
//! * Triangles (oriented clockwise, area > 0): a sample is covered when
//!   every edge function is > 0, or = 0 on a top or left edge (the
//!   top-left rule: a top edge is horizontal with the triangle below it, a
//!   left edge is not horizontal with the triangle to its right).
//! * Points: the 1×1 square x0 ≤ x < x1, y0 ≤ y < y1 (the same rule).
//! * Lines: Direct3D's aliased diamond-exit rule. The diamond of a pixel is
//!   |dx| + |dy| < 1/2 around its centre plus its bottom-left and
//!   bottom-right edges and bottom corner (and, for y-major lines, its
//!   right corner); a pixel is drawn when the segment meets its diamond and
//!   does not end inside it (so the last pixel is not drawn). A covered
//!   line pixel covers all its samples.
//! * Sample positions are Direct3D's standard ones (1/16-pixel grid).

use super::setup::{RasterPrim, SUBPIXEL_BITS, Shape};
use tgsi_exec::LANES;
use tgsi_exec::fragment::lane_offset;
use tgsi_exec::tiles::tile_step;

const ONE: i64 = 1 << SUBPIXEL_BITS;
const HALF: i64 = ONE / 2;

/// Sample offsets from the pixel's top-left corner, in 1/256 pixel.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplePattern {
    pub offsets: Vec<[i64; 2]>,
    /// `offsets` in pixels.
    fractions: Vec<[f64; 2]>,
}

impl SamplePattern {
    /// The least and greatest sample offsets on x and on y (1/256 units;
    /// the centre's for a pattern without samples).
    pub fn span(&self) -> [[i64; 2]; 2] {
        let axis = |a: usize| {
            let values = self.offsets.iter().map(|o| o[a]);
            let least = values.clone().min().unwrap_or(HALF);
            [least, values.max().unwrap_or(HALF)]
        };
        [axis(0), axis(1)]
    }

    pub fn new(samples: u32) -> SamplePattern {
        let offsets = (0..samples)
            .map(|i| {
                let (x, y) =
                    tgsi_exec::texture::exec::sample_position(samples, i).unwrap_or((0.5, 0.5));
                [
                    (x as f64 * ONE as f64).round() as i64,
                    (y as f64 * ONE as f64).round() as i64,
                ]
            })
            .collect::<Vec<[i64; 2]>>();
        let fractions = offsets
            .iter()
            .map(|o| o.map(|v| v as f64 / ONE as f64))
            .collect();
        SamplePattern { offsets, fractions }
    }

    /// Window position of sample `s` of pixel (x, y), in pixels.
    pub fn position(&self, x: u32, y: u32, s: usize) -> (f64, f64) {
        let o = self.fractions.get(s).copied().unwrap_or([0.5, 0.5]);
        (x as f64 + o[0], y as f64 + o[1])
    }
}

/// `E_ab(p)` = (b − a) × (p − a): > 0 on the inside of a clockwise triangle.
#[inline]
pub fn edge(a: [i64; 2], b: [i64; 2], p: [i64; 2]) -> i64 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

/// True when sample point `p` (1/256 units) is inside a triangle
/// (clockwise, with its top-left edges).
#[inline]
pub fn triangle_covers(v: &[[i64; 2]; 3], top_left: &[bool; 3], p: [i64; 2]) -> bool {
    (0..3).all(|i| {
        let e = edge(v[i], v[(i + 1) % 3], p);
        e > 0 || (e == 0 && top_left[i])
    })
}

/// True when `p` is in the line-test diamond of the pixel centred on `c`.
fn in_diamond(p: [f64; 2], c: [f64; 2], y_major: bool) -> bool {
    let (u, v) = (p[0] - c[0], p[1] - c[1]);
    let s = u.abs() + v.abs();
    let h = HALF as f64;
    if s < h - 1e-9 {
        return true;
    }
    if s > h + 1e-9 {
        return false;
    }
    // On the boundary: the bottom edges and bottom corner; the right corner for y-major lines.
    v > 1e-9 || (y_major && v.abs() <= 1e-9 && u > 0.0)
}

/// The diamond-exit test of one pixel (centre `c`, 1/256 units).
pub fn line_covers(p0: [i64; 2], p1: [i64; 2], c: [i64; 2]) -> bool {
    let f = |p: [i64; 2]| [p[0] as f64, p[1] as f64];
    let (a, b, c) = (f(p0), f(p1), f(c));
    let d = [b[0] - a[0], b[1] - a[1]];
    let y_major = d[1].abs() > d[0].abs();
    if in_diamond(b, c, y_major) {
        return false;
    }
    // The part of the segment inside the closed diamond: |u| + |v| ≤ 1/2,
    // four half-planes ±u ± v ≤ 1/2 over t in [0, 1].
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    let h = HALF as f64;
    for (su, sv) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
        let start = su * (a[0] - c[0]) + sv * (a[1] - c[1]);
        let slope = su * d[0] + sv * d[1];
        if slope == 0.0 {
            if start > h {
                return false;
            }
        } else {
            let t = (h - start) / slope;
            if slope > 0.0 {
                t1 = t1.min(t);
            } else {
                t0 = t0.max(t);
            }
        }
    }
    if t0 > t1 + 1e-12 {
        return false;
    }
    let at = |t: f64| [a[0] + d[0] * t, a[1] + d[1] * t];
    [(t0 + t1) * 0.5, t0, t1]
        .iter()
        .any(|&t| in_diamond(at(t), c, y_major))
}

impl RasterPrim {
    /// The samples each lane of the 4x4 tile at (x0, y0) covers; pixels
    /// outside `bbox` (which lies inside the raster rectangle) cover none.
    pub fn tile_coverage(&self, x0: u32, y0: u32, pattern: &SamplePattern) -> [u32; LANES] {
        let mut cov = [0u32; LANES];
        let all = if pattern.offsets.len() >= 32 {
            u32::MAX
        } else {
            (1u32 << pattern.offsets.len()) - 1
        };
        if let Some(edges) = self.tile_edges() {
            return edges.coverage(self, x0, y0, pattern);
        }
        for (l, c) in cov.iter_mut().enumerate() {
            let (dx, dy) = lane_offset(l);
            let (px, py) = ((x0 + dx) as i64, (y0 + dy) as i64);
            if px < self.bbox[0] || px > self.bbox[2] || py < self.bbox[1] || py > self.bbox[3] {
                continue;
            }
            let (bx, by) = (px * ONE, py * ONE);
            match &self.shape {
                // stepped edge functions above
                Shape::Triangle { .. } => {}
                Shape::Point { x0, y0, x1, y1 } => {
                    for (s, o) in pattern.offsets.iter().enumerate() {
                        let (sx, sy) = (bx + o[0], by + o[1]);
                        if *x0 <= sx && sx < *x1 && *y0 <= sy && sy < *y1 {
                            *c |= 1 << s;
                        }
                    }
                }
                Shape::Line { p0, p1 } => {
                    if line_covers(*p0, *p1, [bx + HALF, by + HALF]) {
                        *c = all;
                    }
                }
            }
        }
        cov
    }
}

/// A triangle's edges ready for tiles (made once per primitive): each edge
/// function is evaluated exactly (integers) at the tile's first sample and
/// stepped to every lane, E(p + (dx, dy)) = E(p) − ey·dx + ex·dy; a lane
/// passes an edge when E ≥ its bias (0 on a top-left edge, else 1: the
/// same as E > 0, or E = 0 on a top-left edge).
#[derive(Clone, Debug)]
pub struct TileEdges {
    /// Per edge: its first vertex and direction (ex, ey).
    edges: [([i64; 2], [i64; 2]); 3],
    bias: [i64; 3],
    /// Per edge: the step of one pixel right and of one down (sx, sy:
    /// lane l's step from lane 0 is dx·sx + dy·sy, [`tile_step`]), and
    /// the least and greatest step.
    slopes: [[i64; 2]; 3],
    least: [i64; 3],
    most: [i64; 3],
}

impl RasterPrim {
    /// The edge table of a triangle (None for points and lines). (Not
    /// inlined: inlined, its table was built aside and copied, the copy's
    /// loads waiting for the stores.)
    #[inline(never)]
    pub fn tile_edges(&self) -> Option<TileEdges> {
        let Shape::Triangle { v, top_left } = &self.shape else {
            return None;
        };
        let edges: [([i64; 2], [i64; 2]); 3] = std::array::from_fn(|i| {
            let (a, b) = (v[i], v[(i + 1) % 3]);
            (a, [b[0] - a[0], b[1] - a[1]])
        });
        let slopes = edges.map(|(_, [ex, ey])| [-ey * ONE, ex * ONE]);
        let least = slopes.map(|[sx, sy]| 3 * sx.min(0) + 3 * sy.min(0));
        let most = slopes.map(|[sx, sy]| 3 * sx.max(0) + 3 * sy.max(0));
        Some(TileEdges {
            edges,
            bias: top_left.map(|tl| i64::from(!tl)),
            slopes,
            least,
            most,
        })
    }
}

impl TileEdges {
    /// [`RasterPrim::tile_coverage`] of the triangle `prim` these edges
    /// are of: whole tiles are taken or left per edge before any lane test.
    pub fn coverage(
        &self,
        prim: &RasterPrim,
        x0: u32,
        y0: u32,
        pattern: &SamplePattern,
    ) -> [u32; LANES] {
        let mut cov = [0u32; LANES];
        let b = prim.bbox;
        let (x0, y0) = (x0 as i64, y0 as i64);
        // lanes inside the box (all of them when the tile is); lane masks
        // as bytes so that the lane loops vectorize
        let mut inside = [true; LANES];
        if !(x0 >= b[0] && x0 + 3 <= b[2] && y0 >= b[1] && y0 + 3 <= b[3]) {
            for (l, lane) in inside.iter_mut().enumerate() {
                let (dx, dy) = lane_offset(l);
                let (px, py) = (x0 + i64::from(dx), y0 + i64::from(dy));
                *lane = px >= b[0] && px <= b[2] && py >= b[1] && py <= b[3];
            }
        }
        'samples: for (s, o) in pattern.offsets.iter().enumerate() {
            let p = [x0 * ONE + o[0], y0 * ONE + o[1]];
            let mut hit = inside;
            for k in 0..3 {
                let (a, [ex, ey]) = self.edges[k];
                let e0 = edge(a, [a[0] + ex, a[1] + ey], p) - self.bias[k];
                if e0 + self.most[k] < 0 {
                    continue 'samples;
                }
                if e0 + self.least[k] >= 0 {
                    continue;
                }
                // a lane passes when its step reaches -e0
                let t = -e0;
                for (l, h) in hit.iter_mut().enumerate() {
                    *h &= tile_step(self.slopes[k], l) >= t;
                }
            }
            for (c, h) in cov.iter_mut().zip(hit) {
                *c |= u32::from(h) << s;
            }
        }
        cov
    }
}

impl TileEdges {
    /// [`Self::coverage`] of one sample per pixel as a lane mask (bit `l`
    /// for lane `l`): the lanes inside the box that pass the three edges
    /// at the pattern's one sample, by [`tgsi_exec::tiles::tile_cover`].
    pub fn cover_one(&self, prim: &RasterPrim, x0: u32, y0: u32, pattern: &SamplePattern) -> u16 {
        let (x0, y0) = (x0 as i64, y0 as i64);
        let o = pattern.offsets.first().copied().unwrap_or([HALF, HALF]);
        // lane l passes edge k when its step reaches bias - E(p)
        let t = self.thresholds([x0 * ONE + o[0], y0 * ONE + o[1]]);
        // a tile wholly outside an edge, or wholly inside the box and every
        // edge, needs no lane test (the common cases of small and large
        // triangles)
        if (0..3).any(|k| t[k] > self.most[k]) {
            return 0;
        }
        let b = prim.bbox;
        let in_box = x0 >= b[0] && x0 + 3 <= b[2] && y0 >= b[1] && y0 + 3 <= b[3];
        if in_box && (0..3).all(|k| t[k] <= self.least[k]) {
            return u16::MAX;
        }
        tgsi_exec::tiles::tile_cover(self.slopes, t, [x0, y0], b)
    }

    /// Per edge, `bias - E(p)` at sample point `p` (1/256 units): the step
    /// a lane's offset from `p` must reach to pass the edge.
    #[inline(always)]
    fn thresholds(&self, p: [i64; 2]) -> [i64; 3] {
        std::array::from_fn(|k| {
            let (a, [ex, ey]) = self.edges[k];
            self.bias[k] - edge(a, [a[0] + ex, a[1] + ey], p)
        })
    }

    /// Of the `count` (at most 64) tiles from pixel (x0, y0) rightwards,
    /// those that no edge leaves wholly outside (bit i: the tile at x0 +
    /// 4i), by [`Self::cover_one`]'s first test; each edge's threshold is
    /// stepped exactly from tile to tile, and the mask is made without a
    /// branch per tile (a row's rejected tiles cost no mispredicted jump).
    pub fn row_candidates(&self, x0: i64, y0: i64, count: usize, pattern: &SamplePattern) -> u64 {
        let o = pattern.offsets.first().copied().unwrap_or([HALF, HALF]);
        let t = self.thresholds([x0 * ONE + o[0], y0 * ONE + o[1]]);
        // E(p + (4, 0) pixels) = E(p) - ey·4·ONE
        let step: [i64; 3] = std::array::from_fn(|k| self.edges[k].1[1] * 4 * ONE);
        let n = count.min(64);
        // four tiles side by side (one 256-bit compare per edge), only as
        // many groups as the row needs: tile 4g + j's thresholds
        let mut at: [[i64; 4]; 3] =
            std::array::from_fn(|k| std::array::from_fn(|j| t[k] + j as i64 * step[k]));
        let mut mask = 0u64;
        for g in 0..n.div_ceil(4) {
            let inside = (0..4).fold(0u64, |m, j| {
                let out = (at[0][j] > self.most[0])
                    | (at[1][j] > self.most[1])
                    | (at[2][j] > self.most[2]);
                m | u64::from(!out) << j
            });
            mask |= inside << (4 * g);
            for (row, s) in at.iter_mut().zip(step) {
                for v in row {
                    *v += 4 * s;
                }
            }
        }
        if n < 64 { mask & ((1 << n) - 1) } else { mask }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn px(x: i64, y: i64) -> [i64; 2] {
        [x * ONE + HALF, y * ONE + HALF]
    }

    #[test]
    fn shared_diagonal_pixels_belong_to_exactly_one_triangle() {
        // The square (0,0)-(4,4) split along its diagonal, both clockwise.
        let s = |x: i64, y: i64| [x * ONE, y * ONE];
        let tl = |v: &[[i64; 2]; 3]| {
            let mut t = [false; 3];
            for i in 0..3 {
                let (p, q) = (v[i], v[(i + 1) % 3]);
                t[i] = (q[1] == p[1] && q[0] > p[0]) || q[1] < p[1];
            }
            t
        };
        let upper = [s(0, 0), s(4, 0), s(4, 4)];
        let lower = [s(0, 0), s(4, 4), s(0, 4)];
        assert!(edge(upper[0], upper[1], upper[2]) > 0);
        assert!(edge(lower[0], lower[1], lower[2]) > 0);
        // A triangle through pixel centres: (0.5,0.5)-(3.5,0.5)-(3.5,3.5) etc.
        let c = |x: i64, y: i64| [x * ONE + HALF, y * ONE + HALF];
        let a = [c(0, 0), c(3, 0), c(3, 3)];
        let b = [c(0, 0), c(3, 3), c(0, 3)];
        for y in 0..5 {
            for x in 0..5 {
                let p = px(x, y);
                let n = [upper, lower]
                    .iter()
                    .filter(|t| triangle_covers(t, &tl(t), p))
                    .count();
                assert_eq!(n, usize::from(x < 4 && y < 4), "square pixel ({x}, {y})");
                let m = [a, b]
                    .iter()
                    .filter(|t| triangle_covers(t, &tl(t), p))
                    .count();
                assert!(m <= 1, "pixel ({x}, {y}) drawn twice");
            }
        }
        // The top edge (0.5,0.5)-(3.5,0.5) of `a` is a top edge: its
        // centres are in; the right edge x = 3.5 is not a left edge.
        assert!(triangle_covers(&a, &tl(&a), px(1, 0)));
        assert!(!triangle_covers(&a, &tl(&a), px(3, 1)));
        // The left edge x = 0.5 of `b` is in; its bottom edge y = 3.5 is out.
        assert!(triangle_covers(&b, &tl(&b), px(0, 2)));
        assert!(!triangle_covers(&b, &tl(&b), px(1, 3)));
    }

    /// [`TileEdges::row_candidates`] over rows starting 0 to 55 tiles left
    /// of the box (the inside tiles at every bit of the mask), against each
    /// tile's first-sample test; and any count of tiles (groups of four cut
    /// anywhere) as the first `count` bits of the whole row's.
    fn check_whole_row(edges: &TileEdges, y0: i64, pattern: &SamplePattern, round: usize) {
        let o = pattern.offsets[0];
        let first = -4 * (round as i64 * 7 % 56);
        let all = edges.row_candidates(first, y0, 64, pattern);
        for i in 0..64 {
            let p = [(first + 4 * i) * ONE + o[0], y0 * ONE + o[1]];
            let out = (0..3).any(|k| {
                let (a, [ex, ey]) = edges.edges[k];
                edges.bias[k] - edge(a, [a[0] + ex, a[1] + ey], p) > edges.most[k]
            });
            assert_eq!(all >> i & 1 == 0, out, "tile {i} of row {y0} from {first}");
        }
        for count in [0, 1, 3, 4, 5, 17, 63, 64, 65, 200] {
            let part = edges.row_candidates(first, y0, count, pattern);
            let keep = match count {
                0 => 0,
                64.. => u64::MAX,
                n => (1 << n) - 1,
            };
            assert_eq!(part, all & keep, "{count} tiles of row {y0} from {first}");
        }
    }

    /// The stepped edge functions of a tile give what `triangle_covers`
    /// gives at every lane and sample: random small and large triangles of
    /// both orientations' top-left edges, 1 and 4 samples, tiles around them.
    #[test]
    fn stepped_tile_coverage_matches_per_sample_tests() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: i64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as i64
        };
        let mut covered = 0;
        for round in 0..400 {
            let span = if round % 2 == 0 { 6 * ONE } else { 40 * ONE };
            let mut v = [[0i64; 2]; 3];
            for p in v.iter_mut() {
                *p = [next(span) + 3 * ONE, next(span) + 3 * ONE];
                if round % 5 == 0 {
                    // on the pixel grid: edges through sample points
                    *p = [p[0] & !(ONE - 1), p[1] & !(HALF - 1)];
                }
            }
            if round % 11 == 0 {
                // large, with axis-aligned edges through sample points: whole
                // tiles inside, and lanes exactly on a top-left edge or not
                let k = (round / 11) as i64 % 4;
                let c = |x: i64, y: i64| [x * ONE + HALF, y * ONE + HALF];
                v = [c(4 + k, 2 + k), c(40, 2 + k), c(4 + k, 38)];
                if round % 22 == 0 {
                    v = [c(40, 38 - k), c(4, 38 - k), c(40 - k, 2)];
                }
            }
            if edge(v[0], v[1], v[2]) == 0 {
                continue;
            }
            if edge(v[0], v[1], v[2]) < 0 {
                v.swap(1, 2);
            }
            let mut top_left = [false; 3];
            for i in 0..3 {
                let (p, q) = (v[i], v[(i + 1) % 3]);
                top_left[i] = crate::setup::top_left_edge(q[0] - p[0], q[1] - p[1]);
            }
            let lo = |c: i64| (c - HALF).div_euclid(ONE);
            let mut bbox = [
                lo(v.iter().map(|p| p[0]).min().unwrap()),
                lo(v.iter().map(|p| p[1]).min().unwrap()),
                lo(v.iter().map(|p| p[0]).max().unwrap()) + 1,
                lo(v.iter().map(|p| p[1]).max().unwrap()) + 1,
            ];
            if round % 7 == 3 || round % 11 == 0 {
                // a scissor rectangle inside the box
                let third = (bbox[2] - bbox[0]).min(bbox[3] - bbox[1]) / 3;
                for (k, side) in bbox.iter_mut().enumerate() {
                    let d = next(third + 1);
                    *side += if k < 2 { d } else { -d };
                }
            }
            let prim = RasterPrim {
                shape: Shape::Triangle { v, top_left },
                bbox,
                front: true,
                verts: [0, 1, 2],
                count: 3,
                id: 0,
                depth: [0.0; 3],
                inv_w: [0.0; 3],
                persp: [[0.0; 3]; 3],
                linear: [[0.0; 3]; 3],
            };
            let pattern = SamplePattern::new(if round % 3 == 0 { 4 } else { 1 });
            for ty in 0..12u32 {
                for tx in 0..12u32 {
                    let (x0, y0) = (tx * 4, ty * 4);
                    let cov = prim.tile_coverage(x0, y0, &pattern);
                    if pattern.offsets.len() == 1 {
                        let edges = prim.tile_edges().expect("a triangle");
                        let mask = edges.cover_one(&prim, x0, y0, &pattern);
                        let want = (0..LANES).fold(0, |m, l| m | u16::from(cov[l] != 0) << l);
                        assert_eq!(mask, want, "triangle {v:?}, tile ({x0}, {y0})");
                        // the row's candidates: the tiles no edge leaves
                        // wholly outside at their first sample
                        let row = edges.row_candidates(0, y0 as i64, 12, &pattern);
                        let o = pattern.offsets[0];
                        let p = [x0 as i64 * ONE + o[0], y0 as i64 * ONE + o[1]];
                        let outside = (0..3).any(|k| {
                            let (a, [ex, ey]) = edges.edges[k];
                            edges.bias[k] - edge(a, [a[0] + ex, a[1] + ey], p) > edges.most[k]
                        });
                        assert_eq!(
                            row >> tx & 1 == 0,
                            outside,
                            "triangle {v:?}, tile ({x0}, {y0})"
                        );
                        assert!(!outside || mask == 0);
                        if tx == 0 {
                            check_whole_row(&edges, y0 as i64, &pattern, round);
                        }
                    }
                    for (l, c) in cov.iter().enumerate() {
                        let (dx, dy) = lane_offset(l);
                        let (px, py) = ((x0 + dx) as i64, (y0 + dy) as i64);
                        let inside =
                            px >= bbox[0] && px <= bbox[2] && py >= bbox[1] && py <= bbox[3];
                        let mut want = 0u32;
                        for (s, o) in pattern.offsets.iter().enumerate() {
                            let p = [px * ONE + o[0], py * ONE + o[1]];
                            if inside && triangle_covers(&v, &top_left, p) {
                                want |= 1 << s;
                            }
                        }
                        assert_eq!(*c, want, "triangle {v:?}, pixel ({px}, {py})");
                        covered += want.count_ones();
                    }
                }
            }
        }
        assert!(covered > 10_000, "{covered}");
    }

    #[test]
    fn lines_exit_diamonds_and_skip_their_last_pixel() {
        // Horizontal, centre to centre: pixels 0..3 drawn, not 4.
        let (a, b) = (px(0, 0), px(4, 0));
        let drawn: Vec<i64> = (0..6).filter(|&x| line_covers(a, b, px(x, 0))).collect();
        assert_eq!(drawn, vec![0, 1, 2, 3]);
        // Backwards: pixels 4..1 drawn, not 0.
        let drawn: Vec<i64> = (0..6).filter(|&x| line_covers(b, a, px(x, 0))).collect();
        assert_eq!(drawn, vec![1, 2, 3, 4]);
        // A diagonal from corner (0,0) to corner (3,3) passes through the
        // centres; each diamond it crosses is exited: pixels 0, 1, 2.
        let (a, b) = ([0, 0], [3 * ONE, 3 * ONE]);
        for k in 0..4 {
            assert_eq!(line_covers(a, b, px(k, k)), k < 3, "pixel {k}");
            assert!(!line_covers(a, b, px(k + 1, k)));
        }
    }
}
