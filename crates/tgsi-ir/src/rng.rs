//! Reproducible test inputs shared by the randomized unit tests, the
//! differential fuzzer and the math benchmark: a deterministic xorshift64*
//! generator (no external crate) and the edge-case `f32` bit patterns every
//! input list starts from.

/// The `f32` bit patterns inputs are richest in: ±0, ±1, ±inf, ±quiet NaN,
/// a signalling NaN and one with a payload, ±the smallest denormal, the
/// largest denormal, the smallest normal and the largest finite value.
pub const EDGE_F32: [u32; 15] = [
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0x7fa0_1234,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
];

/// [`EDGE_F32`] followed by `more` (`N` must be 15 + `M`; checked when the
/// constant is evaluated).
pub const fn edge_f32_and<const M: usize, const N: usize>(more: [u32; M]) -> [u32; N] {
    assert!(N == EDGE_F32.len() + M);
    let mut out = [0u32; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < EDGE_F32.len() {
            EDGE_F32[i]
        } else {
            more[i - EDGE_F32.len()]
        };
        i += 1;
    }
    out
}

/// Deterministic xorshift64* generator; the seed must be nonzero.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits (an endless stream, so not an `Iterator`).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n` (n > 0; modulo bias is irrelevant for tests).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_output_of_seed_one() {
        // x = 1: x ^= x >> 12 -> 1; x ^= x << 25 -> 0x200_0001;
        // x ^= x >> 27 -> 0x200_0001 (shifted part is 0).
        let mut r = Rng(1);
        assert_eq!(r.next(), 0x200_0001u64.wrapping_mul(0x2545_f491_4f6c_dd1d));
        assert_eq!(r.0, 0x200_0001);
    }

    #[test]
    fn edge_list_keeps_the_order_and_appends() {
        const L: [u32; 17] = edge_f32_and([7, 9]);
        assert_eq!(L[..15], EDGE_F32);
        assert_eq!(L[15..], [7, 9]);
    }

    #[test]
    fn bounded_outputs_stay_in_range() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..1000 {
            assert!(r.below(7) < 7);
            let u = r.uniform(-2.0, 3.0);
            assert!((-2.0..3.0).contains(&u));
        }
    }
}
