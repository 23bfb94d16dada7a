//! The draw's vertices projected to the window sixteen at a time
//! (`Setup::window_vertices`): each lane's clip position read from the
//! vertex stream, then the division by w, the viewport transform, the
//! snap to sub-pixels and the view-volume test over all lanes at once
//! (vector code on AVX-512 CPUs through [`tgsi_exec::tiles::wide`]), by
//! the same functions setup uses for one vertex (`setup::window_parts`,
//! `setup::inside_volume`), so the bits are those of a vertex projected
//! alone.

#![allow(clippy::needless_range_loop)] // steps over several arrays of lanes in lockstep

use super::input::VertexStream;
use super::setup::{ProjectedVertex, inside, inside_volume, window_parts};
use super::state::Viewport;

/// Vertices projected side by side.
const LANES: usize = 16;

/// A run of the stream's vertices to project.
pub(crate) struct Project<'a> {
    pub(crate) stream: &'a VertexStream,
    /// The OUT register of the position.
    pub(crate) position: usize,
    /// (OUT register, component) of each clip distance.
    pub(crate) clip: &'a [(usize, usize)],
    pub(crate) viewport: &'a Viewport,
    /// The stream vertex of `part[0]`.
    pub(crate) first: usize,
    pub(crate) part: &'a mut [ProjectedVertex],
}

/// 1.5 · 2^52: a whole number of magnitude below 2^51 plus this is exact,
/// with the number in the low bits.
const MAGIC: f64 = 6_755_399_441_055_744.0;

/// Lanes holding whole numbers (or NaN or infinities) as i64, what `as
/// i64` gives (NaN 0, saturated past i64's range): through [`MAGIC`]'s
/// bits where every lane is below 2^51 in magnitude (a vector add; the
/// compiler makes a saturating conversion lane by lane), else lane by
/// lane.
#[inline(always)]
fn whole_lanes(v: &[f64; LANES]) -> [i64; LANES] {
    const NEAR: f64 = (1u64 << 51) as f64;
    let mut out = [0i64; LANES];
    let mut far = false;
    for l in 0..LANES {
        // (NaN is not near)
        let near = v[l].abs() < NEAR;
        far |= !near;
        out[l] = ((v[l] + MAGIC).to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
    }
    if far {
        for l in 0..LANES {
            out[l] = v[l] as i64;
        }
    }
    out
}

/// Word `(r, c)` of vertex `v` of `stream` (0 past its outputs).
#[inline(always)]
fn word(stream: &VertexStream, v: usize, (r, c): (usize, usize)) -> u32 {
    stream.vertex(v as u32).get(r).map_or(0, |p| p[c])
}

impl tgsi_exec::tiles::Kernel for Project<'_> {
    type Out = ();

    #[inline(always)]
    fn run(self) {
        let Project {
            stream,
            position,
            clip,
            viewport: vp,
            first,
            part,
        } = self;
        for (k, slots) in part.chunks_mut(LANES).enumerate() {
            let first = first + k * LANES;
            // (the vertices a block ahead on their way to the cache)
            if let Some(ahead) = stream.vertex((first + 2 * LANES) as u32).get(position) {
                tgsi_exec::tiles::prefetch(ahead);
            }
            let mut pos = [[0f64; 4]; LANES];
            for l in 0..slots.len() {
                for c in 0..4 {
                    let word = word(stream, first + l, (position, c));
                    pos[l][c] = f32::from_bits(word) as f64;
                }
            }
            let mut xs = [0f64; LANES];
            let mut ys = [0f64; LANES];
            let mut depths = [0f64; LANES];
            let mut volume = [false; LANES];
            for l in 0..LANES {
                (xs[l], ys[l], depths[l]) = window_parts(vp, pos[l]);
                volume[l] = inside_volume(pos[l]);
            }
            let (xs, ys) = (whole_lanes(&xs), whole_lanes(&ys));
            for (l, slot) in slots.iter_mut().enumerate() {
                let distances = || {
                    let distance = |cd| f32::from_bits(word(stream, first + l, cd)) as f64;
                    clip.iter().all(|&cd| inside(distance(cd)))
                };
                *slot = ProjectedVertex {
                    window: ([xs[l], ys[l]], depths[l]),
                    w: pos[l][3],
                    inside: volume[l] && distances(),
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lanes near and far, alone and mixed in one block, give `as i64`.
    #[test]
    fn whole_lanes_are_the_saturating_conversion() {
        let near = (1u64 << 51) as f64;
        let edges = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            near - 1.0,
            -(near - 1.0),
            near,
            -near,
            2.0 * near,
            near + 2.0,
            -(1.5 * near),
            9.3e18,
            -9.3e18,
            9_223_372_036_854_775_808.0, // 2^63
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            123_456_789.0,
        ];
        let mut rng = tgsi_ir::rng::Rng(0x0123_4567_89ab);
        for round in 0..2000 {
            let v: [f64; LANES] = std::array::from_fn(|_| match (round % 3, rng.below(4)) {
                (0, _) | (_, 0) => edges[rng.below(edges.len() as u64) as usize],
                _ => (rng.uniform(-1.0, 1.0) * near).round(),
            });
            let want: [i64; LANES] = v.map(|x| x as i64);
            assert_eq!(whole_lanes(&v), want, "{v:?}");
        }
    }
}
