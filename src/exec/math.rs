//! The machine's transcendental functions: one deterministic implementation,
//! identical on every host, shared by every execution path and by constant
//! folding.
//!
//! SIN and COS are computed here in f64 without a library call (a
//! branch-free Cody–Waite reduction and Taylor kernels, so 16-lane loops
//! vectorize); huge arguments, ±inf and NaN take the pure-Rust `libm`
//! crate's f64 `sin`/`cos`. EX2, LG2 and POW come from `libm` (a port of
//! musl's libm). Never `std`, whose `sin`/`exp2`/… call the platform's C
//! library and so may differ between machines. The accuracy bounds measured by the tests below
//! are recorded in `docs/numerics.md`.

/// Below this magnitude SIN and COS take the branch-free path
/// ([`trig_fast`]); at or above it (and for ±inf and NaN) the exact f64
/// library path ([`trig_slow`]).
pub const TRIG_FAST_LIMIT: f32 = 1_048_576.0; // 2^20

// π/2 split for Cody–Waite reduction: PIO2_1 and PIO2_2 have 32 significant
// bits, so k·PIO2_1 and k·PIO2_2 are exact for |k| < 2^21; PIO2_3 is the rest.
const PIO2_1: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
const PIO2_2: f64 = f64::from_bits(0x3dd0_b461_1a60_0000);
const PIO2_3: f64 = f64::from_bits(0x3ba3_198a_2e03_7073);
const TWO_OVER_PI: f64 = std::f64::consts::FRAC_2_PI;
/// 1.5·2^52: adding and subtracting it rounds an f64 of magnitude < 2^51 to
/// the nearest integer (ties to even); the low bits of the sum are that integer.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// sin(x) for |x| ≤ π/4 + ε: Taylor to x^17 in f64 (truncation < 1e-19).
/// The definition [`sin_or_cos_kernel`] reproduces (tests).
#[cfg(test)]
fn sin_kernel(r: f64) -> f64 {
    const S: [f64; 8] = [
        -1.0 / 6.0,
        1.0 / 120.0,
        -1.0 / 5_040.0,
        1.0 / 362_880.0,
        -1.0 / 39_916_800.0,
        1.0 / 6_227_020_800.0,
        -1.0 / 1_307_674_368_000.0,
        1.0 / 355_687_428_096_000.0,
    ];
    let r2 = r * r;
    let p = S[7];
    let p = p * r2 + S[6];
    let p = p * r2 + S[5];
    let p = p * r2 + S[4];
    let p = p * r2 + S[3];
    let p = p * r2 + S[2];
    let p = p * r2 + S[1];
    let p = p * r2 + S[0];
    // r·(1 + r²·p) rather than r + r³·p keeps the sign of a zero r
    r * (1.0 + r2 * p)
}

/// cos(x) for |x| ≤ π/4 + ε: Taylor to x^16 in f64 (truncation < 1e-17).
#[cfg(test)]
fn cos_kernel(r: f64) -> f64 {
    const C: [f64; 8] = [
        -1.0 / 2.0,
        1.0 / 24.0,
        -1.0 / 720.0,
        1.0 / 40_320.0,
        -1.0 / 3_628_800.0,
        1.0 / 479_001_600.0,
        -1.0 / 87_178_291_200.0,
        1.0 / 20_922_789_888_000.0,
    ];
    let r2 = r * r;
    let p = C[7];
    let p = p * r2 + C[6];
    let p = p * r2 + C[5];
    let p = p * r2 + C[4];
    let p = p * r2 + C[3];
    let p = p * r2 + C[2];
    let p = p * r2 + C[1];
    let p = p * r2 + C[0];
    1.0 + r2 * p
}

/// [`cos_kernel`] (`cos` true) or [`sin_kernel`] of `r`, bit for bit, with
/// one Horner chain whose coefficients are chosen per lane: both kernels are
/// `(1 + r²·p(r²))` times `r` (sin) or 1 (cos, exact), so a vector of lanes
/// in mixed quadrants evaluates one polynomial instead of both.
#[inline(always)]
fn sin_or_cos_kernel(r: f64, cos: bool) -> f64 {
    const S: [f64; 8] = [
        -1.0 / 6.0,
        1.0 / 120.0,
        -1.0 / 5_040.0,
        1.0 / 362_880.0,
        -1.0 / 39_916_800.0,
        1.0 / 6_227_020_800.0,
        -1.0 / 1_307_674_368_000.0,
        1.0 / 355_687_428_096_000.0,
    ];
    const C: [f64; 8] = [
        -1.0 / 2.0,
        1.0 / 24.0,
        -1.0 / 720.0,
        1.0 / 40_320.0,
        -1.0 / 3_628_800.0,
        1.0 / 479_001_600.0,
        -1.0 / 87_178_291_200.0,
        1.0 / 20_922_789_888_000.0,
    ];
    let coef = |i: usize| if cos { C[i] } else { S[i] };
    let r2 = r * r;
    let mut p = coef(7);
    for i in (0..7).rev() {
        p = p * r2 + coef(i);
    }
    (1.0 + r2 * p) * if cos { 1.0 } else { r }
}

/// Branch-free sin (`phase` 0) or cos (`phase` 1) for |x| < [`TRIG_FAST_LIMIT`]:
/// k = round(x·2/π), r = x − k·π/2 (three-constant Cody–Waite in f64), then
/// the kernel of quadrant k + phase, rounded once to f32. Any other input
/// gives an unspecified finite or NaN value (never a trap); callers route
/// those lanes to [`trig_slow`]. Written so that LLVM vectorizes it.
#[inline(always)]
fn trig_fast(x: f32, phase: u32) -> f32 {
    let xd = x as f64;
    let shifted = xd * TWO_OVER_PI + ROUND_MAGIC;
    let k = shifted - ROUND_MAGIC;
    let quadrant = (shifted.to_bits() as u32).wrapping_add(phase);
    let r = ((xd - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    let v = sin_or_cos_kernel(r, quadrant & 1 != 0);
    let v = f64::from_bits(v.to_bits() ^ (((quadrant & 2) as u64) << 62));
    v as f32
}

/// The exact path for the lanes [`trig_fast`] does not cover: the f64
/// library function, rounded to f32 (±inf and NaN → NaN).
#[cold]
fn trig_slow(x: f32, phase: u32) -> f32 {
    if phase == 0 {
        libm::sin(x as f64) as f32
    } else {
        libm::cos(x as f64) as f32
    }
}

/// True when `x` takes the fast path (false for NaN).
#[inline(always)]
fn is_fast_trig(x: f32) -> bool {
    x.abs() < TRIG_FAST_LIMIT
}

#[inline(always)]
fn trig_f32(x: f32, phase: u32) -> f32 {
    if is_fast_trig(x) {
        trig_fast(x, phase)
    } else {
        trig_slow(x, phase)
    }
}

/// Applies sin (`phase` 0) or cos (`phase` 1) to a row of f32 bit patterns:
/// a vectorized pass over every lane, then the rare out-of-range lanes again
/// on the exact path. Same bits as [`trig_f32`] lane by lane.
#[inline(always)]
fn trig_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N], phase: u32) {
    let mut any_slow = false;
    for l in 0..N {
        let v = f32::from_bits(x[l]);
        out[l] = trig_fast(v, phase).to_bits();
        any_slow |= !is_fast_trig(v);
    }
    if any_slow {
        for l in 0..N {
            let v = f32::from_bits(x[l]);
            if !is_fast_trig(v) {
                out[l] = trig_slow(v, phase).to_bits();
            }
        }
    }
}

/// SIN: `sin(x)` in radians (±inf and NaN → NaN). The semantic definition;
/// [`sin_lanes`] gives the same bits.
#[inline]
pub fn sin_f32(x: f32) -> f32 {
    trig_f32(x, 0)
}

/// COS: `cos(x)` in radians (±inf and NaN → NaN); [`cos_lanes`] gives the same bits.
#[inline]
pub fn cos_f32(x: f32) -> f32 {
    trig_f32(x, 1)
}

/// [`sin_f32`] over a row of lanes (raw f32 bits), vectorized.
#[inline]
pub fn sin_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    trig_lanes(x, out, 0)
}

/// [`cos_f32`] over a row of lanes (raw f32 bits), vectorized.
#[inline]
pub fn cos_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    trig_lanes(x, out, 1)
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
        assert!(e_sin <= 0.501, "sin {e_sin} ulp at {at_sin}");
        assert!(e_cos <= 0.501, "cos {e_cos} ulp at {at_cos}");
    }

    #[test]
    fn trig_accuracy_over_the_fast_range_and_beyond() {
        let mut rng = Rng(0x7419_3311_0ddb_a11e);
        // log-uniform magnitudes from 2^-30 to 2^24: every binade of the fast
        // range, its edge, and the slow path above it
        let xs: Vec<f32> = (0..SAMPLES)
            .map(|_| {
                let m = rng.uniform(-30.0, 24.0).exp2();
                (if rng.next() & 1 == 0 { m } else { -m }) as f32
            })
            .collect();
        let (e_sin, at_sin) = max_error(xs.iter().copied(), sin_f32, f64::sin);
        let (e_cos, at_cos) = max_error(xs.iter().copied(), cos_f32, f64::cos);
        eprintln!("wide: sin max {e_sin:.4} ulp at {at_sin}; cos max {e_cos:.4} ulp at {at_cos}");
        assert!(e_sin <= 0.501, "sin {e_sin} ulp at {at_sin}");
        assert!(e_cos <= 0.501, "cos {e_cos} ulp at {at_cos}");
        // near multiples of π/2 (the hardest reductions): the f32 neighbours
        // of k·π/2 for k up to 2^20
        let mut near = Vec::new();
        for i in 0..200_000u64 {
            let k = (rng.next() % (1 << 20)) as f64 + (i % 4) as f64;
            let c = (k * std::f64::consts::FRAC_PI_2) as f32;
            for d in -2i32..=2 {
                near.push(f32::from_bits((c.to_bits() as i32 + d) as u32));
            }
        }
        let (e_sin, at_sin) = max_error(near.iter().copied(), sin_f32, f64::sin);
        let (e_cos, at_cos) = max_error(near.iter().copied(), cos_f32, f64::cos);
        eprintln!(
            "near kπ/2: sin max {e_sin:.4} ulp at {at_sin}; cos max {e_cos:.4} ulp at {at_cos}"
        );
        assert!(e_sin <= 0.501, "sin {e_sin} ulp at {at_sin}");
        assert!(e_cos <= 0.501, "cos {e_cos} ulp at {at_cos}");
    }

    #[test]
    fn the_shared_kernel_is_both_taylor_kernels_bit_for_bit() {
        let mut rng = Rng(0x5151_2323_7878_abab);
        for i in 0..2_000_000 {
            let r = if i % 2 == 0 {
                rng.uniform(-0.7854, 0.7854)
            } else {
                // tiny and zero arguments keep their sign through sin
                rng.uniform(-1e-6, 1e-6) * 2f64.powi(-(i % 200))
            };
            assert_eq!(
                sin_or_cos_kernel(r, false).to_bits(),
                sin_kernel(r).to_bits()
            );
            assert_eq!(
                sin_or_cos_kernel(r, true).to_bits(),
                cos_kernel(r).to_bits()
            );
        }
        assert_eq!(
            sin_or_cos_kernel(-0.0, false).to_bits(),
            (-0.0f64).to_bits()
        );
    }

    #[test]
    fn trig_lanes_match_the_scalar_definition_bit_for_bit() {
        let mut rng = Rng(0xfeed_beef_0123_4567);
        let (mut s, mut c) = ([0u32; 16], [0u32; 16]);
        for round in 0..250_000 {
            // raw patterns (every class: NaN, inf, subnormal, huge) and,
            // every other round, values of the fast range
            let x: [u32; 16] = std::array::from_fn(|_| {
                if round % 2 == 0 {
                    rng.next() as u32
                } else {
                    (rng.uniform(-2e6, 2e6) as f32).to_bits()
                }
            });
            sin_lanes(&x, &mut s);
            cos_lanes(&x, &mut c);
            for l in 0..16 {
                let v = f32::from_bits(x[l]);
                assert_eq!(s[l], sin_f32(v).to_bits(), "sin {v:e}");
                assert_eq!(c[l], cos_f32(v).to_bits(), "cos {v:e}");
            }
        }
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
