//! The machine's transcendental functions: one deterministic implementation,
//! identical on every host, shared by every execution path and by constant
//! folding.
//!
//! They come from the pure-Rust `libm` crate (a port of musl's libm), never
//! from `std`, whose `sin`/`exp2`/… call the platform's C library and so may
//! differ between machines. The accuracy bounds measured by the tests below
//! are recorded in `docs/numerics.md`.

/// SIN: `sin(x)` in radians (musl `sinf`; ±inf and NaN → NaN).
#[inline]
pub fn sin_f32(x: f32) -> f32 {
    libm::sinf(x)
}

/// COS: `cos(x)` in radians (musl `cosf`; ±inf and NaN → NaN).
#[inline]
pub fn cos_f32(x: f32) -> f32 {
    libm::cosf(x)
}

/// EX2: `2^x` (musl `exp2f`; -inf → 0, +inf → +inf, overflow → +inf,
/// exact for integer x whose power of two is representable).
#[inline]
pub fn ex2_f32(x: f32) -> f32 {
    libm::exp2f(x)
}

/// LG2: `log2(x)` (musl `log2f`; ±0 → -inf, negative → NaN, +inf → +inf;
/// subnormal inputs handled exactly).
#[inline]
pub fn lg2_f32(x: f32) -> f32 {
    libm::log2f(x)
}

/// POW: `x^y` with the C99 special cases (`pow(x, ±0) = 1` even for NaN x,
/// `pow(1, y) = 1`, negative x with non-integer y → NaN, `pow(±0, y<0) = inf`).
#[inline]
pub fn pow_f32(x: f32, y: f32) -> f32 {
    libm::powf(x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic xorshift64* generator for reproducible samples.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        /// Uniform in [lo, hi).
        fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
            let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
            lo + (hi - lo) * u
        }
    }

    /// Error of `got` against the exact value `want`, in units of the f32 ulp
    /// at `want` (the ulp of the f32 binade containing `want`; subnormal ulp
    /// below 2^-126).
    fn ulp_error(got: f32, want: f64) -> f64 {
        if want.is_nan() {
            return if got.is_nan() { 0.0 } else { f64::INFINITY };
        }
        // beyond f32::MAX the exact value rounds to ±inf
        let rounded = want as f32;
        if rounded.is_infinite() || got.is_infinite() {
            return if got == rounded { 0.0 } else { f64::INFINITY };
        }
        let exp = if want == 0.0 {
            -126
        } else {
            (want.abs().log2().floor() as i32).max(-126)
        };
        let ulp = 2f64.powi(exp - 23);
        (got as f64 - want).abs() / ulp
    }

    /// Max ulp error of `f` against `reference` over the given inputs.
    fn max_error(
        inputs: impl Iterator<Item = f32>,
        f: impl Fn(f32) -> f32,
        reference: impl Fn(f64) -> f64,
    ) -> (f64, f32) {
        let mut worst = (0.0, 0.0);
        for x in inputs {
            let e = ulp_error(f(x), reference(x as f64));
            if e > worst.0 {
                worst = (e, x);
            }
        }
        worst
    }

    const SAMPLES: usize = 1_000_000;

    #[test]
    fn sin_and_cos_accuracy() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let xs: Vec<f32> = (0..SAMPLES)
            .map(|i| {
                // half of the samples near the origin, half over |x| <= 1e4
                let r = if i % 2 == 0 { 8.0 } else { 1e4 };
                rng.uniform(-r, r) as f32
            })
            .collect();
        let (e_sin, at_sin) = max_error(xs.iter().copied(), sin_f32, f64::sin);
        let (e_cos, at_cos) = max_error(xs.iter().copied(), cos_f32, f64::cos);
        eprintln!("sin max {e_sin:.3} ulp at {at_sin}; cos max {e_cos:.3} ulp at {at_cos}");
        assert!(e_sin <= 0.51, "sin {e_sin} ulp at {at_sin}");
        assert!(e_cos <= 0.51, "cos {e_cos} ulp at {at_cos}");
    }

    #[test]
    fn ex2_accuracy() {
        let mut rng = Rng(0x0bad_cafe_f00d_1234);
        let xs = (0..SAMPLES).map(|_| rng.uniform(-126.0, 128.0) as f32);
        let (e, at) = max_error(xs, ex2_f32, f64::exp2);
        eprintln!("ex2 max {e:.3} ulp at {at}");
        assert!(e <= 0.51, "ex2 {e} ulp at {at}");
        // the subnormal result range: error in absolute subnormal ulps
        let mut rng = Rng(77);
        let xs = (0..100_000).map(|_| rng.uniform(-149.0, -126.0) as f32);
        let (e, at) = max_error(xs, ex2_f32, f64::exp2);
        eprintln!("ex2 (subnormal results) max {e:.3} ulp at {at}");
        assert!(e <= 0.51, "ex2 subnormal {e} ulp at {at}");
    }

    #[test]
    fn lg2_accuracy() {
        let mut rng = Rng(0x5eed_5eed_5eed_5eed);
        // random positive finite bit patterns: every binade, subnormals included
        let xs = (0..SAMPLES).map(|_| f32::from_bits((rng.next() as u32) % 0x7f80_0000 + 1));
        let (e, at) = max_error(xs, lg2_f32, f64::log2);
        eprintln!("lg2 max {e:.3} ulp at {at}");
        assert!(e <= 0.8, "lg2 {e} ulp at {at}");
        // dense around 1.0 where the result is tiny
        let xs = (0..100_000).map(|i| 0.99 + 0.02 * i as f32 / 100_000.0);
        let (e, at) = max_error(xs, lg2_f32, f64::log2);
        eprintln!("lg2 near 1 max {e:.3} ulp at {at}");
        assert!(e <= 0.51, "lg2 near 1: {e} ulp at {at}");
    }

    #[test]
    fn pow_accuracy() {
        let mut worst = (0.0f64, 0.0f32, 0.0f32);
        for i in 0..1000 {
            let x = 1e-3 + i as f32 * 0.05; // (0, 50]
            for j in 0..1000 {
                let y = -16.0 + j as f32 * 0.032; // [-16, 16)
                let want = (x as f64).powf(y as f64);
                let e = ulp_error(pow_f32(x, y), want);
                if e > worst.0 {
                    worst = (e, x, y);
                }
            }
        }
        eprintln!("pow max {:.3} ulp at ({}, {})", worst.0, worst.1, worst.2);
        assert!(worst.0 <= 0.85, "pow {worst:?}");
    }

    #[test]
    fn special_values() {
        assert_eq!(sin_f32(0.0).to_bits(), 0);
        assert_eq!(sin_f32(-0.0).to_bits(), 0x8000_0000);
        assert!(sin_f32(f32::INFINITY).is_nan());
        assert!(cos_f32(f32::NEG_INFINITY).is_nan());
        assert!(sin_f32(f32::NAN).is_nan());
        assert_eq!(cos_f32(0.0), 1.0);
        assert_eq!(ex2_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(ex2_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(ex2_f32(128.0), f32::INFINITY);
        assert!(ex2_f32(f32::NAN).is_nan());
        assert_eq!(lg2_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(lg2_f32(-0.0), f32::NEG_INFINITY);
        assert!(lg2_f32(-1.0).is_nan());
        assert_eq!(lg2_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(lg2_f32(1.0).to_bits(), 0);
        assert_eq!(lg2_f32(f32::from_bits(1)), -149.0);
        assert_eq!(pow_f32(f32::NAN, 0.0), 1.0);
        assert_eq!(pow_f32(1.0, f32::NAN), 1.0);
        assert!(pow_f32(-8.0, 1.0 / 3.0).is_nan());
        assert_eq!(pow_f32(-2.0, 3.0), -8.0);
        assert_eq!(pow_f32(0.0, -1.0), f32::INFINITY);
        assert_eq!(pow_f32(0.0, 0.0), 1.0);
        assert_eq!(pow_f32(2.0, 0.5), std::f32::consts::SQRT_2);
    }

    #[test]
    fn exact_powers_and_logs_of_two() {
        for n in -149..=127 {
            let p = 2f64.powi(n) as f32;
            assert_eq!(ex2_f32(n as f32), p, "2^{n}");
            assert_eq!(lg2_f32(p), n as f32, "log2(2^{n})");
        }
    }
}
