//! `tgsi bench mad`: a pure-ALU shader (`benches/data/mad_chain.tgsi`: 8
//! independent whole-register MAD chains per loop iteration) against the
//! host's own FMA peak, counted the same way: lane-FMAs (one MAD of one
//! lane counts as one) per second and thread.

use std::hint::black_box;
use std::time::Instant;

/// Lane-MADs one invocation of `mad_chain.tgsi` executes per iteration.
pub const MADS_PER_ITERATION: u64 = 8 * 4;

/// Lane-FMAs per second that one thread of this machine reaches: 8 rows of
/// 16 lanes, each lane an independent chain `x = x * m + c` with
/// `f32::mul_add` (one FMA instruction on the x86-64-v3 target), enough
/// independent chains to cover the FMA latency. The best of 5 runs of about
/// 50 ms.
pub fn fma_peak() -> f64 {
    const ROWS: usize = 8;
    const LANES: usize = 16;
    let (m, c) = (black_box(0.999f32), black_box(0.001f32));
    let iters = black_box(400_000u64);
    let mut best = f64::INFINITY;
    let mut acc = [[1.0f32; LANES]; ROWS];
    for _ in 0..5 {
        let start = Instant::now();
        for _ in 0..iters {
            for row in acc.iter_mut() {
                for x in row.iter_mut() {
                    *x = x.mul_add(m, c);
                }
            }
        }
        black_box(&mut acc);
        best = best.min(start.elapsed().as_secs_f64());
    }
    (iters * (ROWS * LANES) as u64) as f64 / best
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_peak_is_a_positive_rate() {
        let p = super::fma_peak();
        assert!(p.is_finite() && p > 1e8, "{p}");
    }
}
