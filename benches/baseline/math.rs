//! FROZEN BASELINE, not used by the machine: the transcendental row kernels
//! as they were before the present ones (`src/exec/math.rs` at commit
//! 6248a72, all in f64), the code kept verbatim (tests and test-only kernels
//! left out, doc links made plain), so that `tgsi bench math` (which
//! includes this file; it is not a bench target of its own) can time them
//! beside the machine's kernels in the same run and print the speed-up. Do
//! not change it: it is the yardstick.
#![allow(dead_code, clippy::all)]

/// Below this magnitude SIN and COS take the branch-free path
/// (`trig_fast`); at or above it (and for ±inf and NaN) the exact f64
/// library path (`trig_slow`).
const TRIG_FAST_LIMIT: f32 = 1_048_576.0; // 2^20

// π/2 split for Cody–Waite reduction: PIO2_1 and PIO2_2 have 32 significant
// bits, so k·PIO2_1 and k·PIO2_2 are exact for |k| < 2^21; PIO2_3 is the rest.
const PIO2_1: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
const PIO2_2: f64 = f64::from_bits(0x3dd0_b461_1a60_0000);
const PIO2_3: f64 = f64::from_bits(0x3ba3_198a_2e03_7073);
const TWO_OVER_PI: f64 = std::f64::consts::FRAC_2_PI;
/// 1.5·2^52: adding and subtracting it rounds an f64 of magnitude < 2^51 to
/// the nearest integer (ties to even); the low bits of the sum are that integer.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// sin(r)/r − 1 ≈ r²·p(r²) on |r| ≤ π/4 + 10^-4: coefficients of p (from
/// r⁰ up) of a Chebyshev fit (near-minimax; `mpmath.chebyfit` at 50
/// digits, rounded to f64). Relative error of 1 + r²·p: < 2e-14.
const SIN_COEF: [f64; TRIG_TERMS] = [
    -0.16666666666663882,
    0.00833333333107693,
    -0.00019841266914756464,
    2.7555990255070505e-06,
    -2.480557377350488e-08,
];
/// cos(r) − 1 ≈ r²·p(r²) on the same range, fitted the same way: relative
/// error of 1 + r²·p < 4e-13.
const COS_COEF: [f64; TRIG_TERMS] = [
    -0.49999999999963846,
    0.04166666663736631,
    -0.0013888885088504997,
    2.4799861314579434e-05,
    -2.7237059328519316e-07,
];
/// Coefficients of the kernels (degree 10 in r for cos, 11 for sin): the
/// errors above are far below the 2^-24 that could move a correctly rounded
/// f32 result by more than a hair past half an ulp.
const TRIG_TERMS: usize = 5;

/// sin(r) for |r| ≤ π/4 + ε: r·(1 + r²·p(r²)) by Horner in f64 with fused
/// multiply-adds (`f64::mul_add`: one rounding each, on every host; the form
/// keeps the sign of a zero r). The definition `sin_or_cos_kernel`
/// reproduces (tests).

/// cos(r) for |r| ≤ π/4 + ε: 1 + r²·p(r²) by fused Horner steps in f64.

/// `cos_kernel` (`cos` true) or `sin_kernel` of `r`, bit for bit, with
/// one Horner chain whose coefficients are chosen per lane: both kernels are
/// `(1 + r²·p(r²))` times `r` (sin) or 1 (cos, exact), so a vector of lanes
/// in mixed quadrants evaluates one polynomial instead of both.
#[inline(always)]
fn sin_or_cos_kernel(r: f64, cos: bool) -> f64 {
    let coef = |i: usize| if cos { COS_COEF[i] } else { SIN_COEF[i] };
    let r2 = r * r;
    let mut p = coef(TRIG_TERMS - 1);
    for i in (0..TRIG_TERMS - 1).rev() {
        p = p.mul_add(r2, coef(i));
    }
    r2.mul_add(p, 1.0) * if cos { 1.0 } else { r }
}

/// Branch-free sin (`phase` 0) or cos (`phase` 1) for |x| < `TRIG_FAST_LIMIT`:
/// k = round(x·2/π), r = x − k·π/2 (three-constant Cody–Waite in f64), then
/// the kernel of quadrant k + phase, rounded once to f32. Any other input
/// gives an unspecified finite or NaN value (never a trap); callers route
/// those lanes to `trig_slow`. Written so that LLVM vectorizes it.
#[inline(always)]
fn trig_fast(x: f32, phase: u32) -> f32 {
    let xd = x as f64;
    let shifted = xd * TWO_OVER_PI + ROUND_MAGIC;
    let k = shifted - ROUND_MAGIC;
    let quadrant = (shifted.to_bits() as u32).wrapping_add(phase);
    let r = (-k).mul_add(PIO2_3, (-k).mul_add(PIO2_2, (-k).mul_add(PIO2_1, xd)));
    let v = sin_or_cos_kernel(r, quadrant & 1 != 0);
    let v = f64::from_bits(v.to_bits() ^ (((quadrant & 2) as u64) << 62));
    v as f32
}

/// The exact path for the lanes `trig_fast` does not cover: the f64
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
/// on the exact path. Same bits as `trig_f32` lane by lane.
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
/// `sin_lanes` gives the same bits.
#[inline]
pub fn sin_f32(x: f32) -> f32 {
    trig_f32(x, 0)
}

/// COS: `cos(x)` in radians (±inf and NaN → NaN); `cos_lanes` gives the same bits.
#[inline]
pub fn cos_f32(x: f32) -> f32 {
    trig_f32(x, 1)
}

/// `sin_f32` over a row of lanes (raw f32 bits), vectorized.
#[inline]
pub fn sin_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    trig_lanes(x, out, 0)
}

/// `cos_f32` over a row of lanes (raw f32 bits), vectorized.
#[inline]
pub fn cos_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    trig_lanes(x, out, 1)
}

/// The NaN that invalid operations give (x86's default NaN, which the
/// `libm` functions these replace produced on the machines we run on).
const INVALID_NAN: u32 = 0xffc0_0000;

/// A NaN input made quiet (payload and sign kept), as IEEE 754 requires.
#[inline(always)]
fn quiet(x: f32) -> f32 {
    f32::from_bits(x.to_bits() | 0x0040_0000)
}

/// ln(2)^i / i!: the Taylor coefficients of 2^r = e^(r·ln 2).
const EXP2_COEF: [f64; 12] = {
    let mut c = [1.0f64; 12];
    let mut i = 1;
    while i < 12 {
        c[i] = c[i - 1] * std::f64::consts::LN_2 / i as f64;
        i += 1;
    }
    c
};

/// 2^t in f64 for any t (NaN → NaN): t clamped to ±1000 (beyond f32's
/// range either way), k = round(t), r = t − k exact with |r| ≤ 1/2, 2^r by
/// Taylor to r^11 (truncation < 1e-14 relative), scaled by 2^k built from
/// its bits. Branch-free, so lane loops vectorize.
#[inline(always)]
fn exp2_f64(t: f64) -> f64 {
    let t = t.clamp(-1000.0, 1000.0);
    let shifted = t + ROUND_MAGIC;
    let k = shifted - ROUND_MAGIC;
    let r = t - k;
    let mut p = EXP2_COEF[11];
    for i in (0..11).rev() {
        p = p * r + EXP2_COEF[i];
    }
    // k as an integer: the low bits of `shifted` (same binade as ROUND_MAGIC)
    let ki = shifted.to_bits().wrapping_sub(ROUND_MAGIC.to_bits());
    let scale = f64::from_bits(ki.wrapping_add(1023) << 52);
    p * scale
}

/// 1/(2k+1) for k = 1..=9: the series log(m) = 2s·(1 + s²/3 + s⁴/5 + …).
const LOG_COEF: [f64; 9] = {
    let mut c = [0.0f64; 9];
    let mut k = 0;
    while k < 9 {
        c[k] = 1.0 / (2 * k + 3) as f64;
        k += 1;
    }
    c
};

/// log2(a) in f64 for a positive, finite, nonzero f64 (anything else:
/// an unspecified value, never a trap): a = 2^e·m with m in [√½, √2),
/// s = (m − 1)/(m + 1) (|s| ≤ 0.172), the atanh series to s^19
/// (truncation < 1e-16 relative), times 2/ln 2, plus e. Exact (e) for
/// powers of two. Branch-free.
#[inline(always)]
fn log2_f64(a: f64) -> f64 {
    const SQRT2: f64 = std::f64::consts::SQRT_2;
    const MANT: u64 = (1 << 52) - 1;
    let bits = a.to_bits();
    // the biased exponent as a float, exactly: 2^52 + field − (2^52 + 1023)
    let field = f64::from_bits((bits >> 52) | 0x4330_0000_0000_0000);
    let e = field - (4_503_599_627_370_496.0 + 1023.0);
    let m = f64::from_bits((bits & MANT) | 0x3ff0_0000_0000_0000);
    let big = m > SQRT2;
    let m = if big { m * 0.5 } else { m };
    let e = if big { e + 1.0 } else { e };
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut p = LOG_COEF[8];
    for i in (0..8).rev() {
        p = p * s2 + LOG_COEF[i];
    }
    const TWO_OVER_LN2: f64 = 2.0 * std::f64::consts::LOG2_E;
    e + TWO_OVER_LN2 * (s + s * (s2 * p))
}

/// EX2: `2^x` computed in f64 (`exp2_f64`) and rounded once to f32:
/// -inf → 0, +inf and overflow → +inf, exact for integer x whose power of
/// two is representable, NaN → the input made quiet. Branch-free, so the
/// 16-lane loops vectorize.
#[inline]
pub fn ex2_f32(x: f32) -> f32 {
    let v = exp2_f64(x as f64) as f32;
    if x.is_nan() { quiet(x) } else { v }
}

/// LG2: `log2(x)` computed in f64 (`log2_f64`, subnormal inputs exact)
/// and rounded once: ±0 → -inf, negative → NaN, +inf → +inf, NaN → the
/// input made quiet. Branch-free.
#[inline]
pub fn lg2_f32(x: f32) -> f32 {
    let v = log2_f64(x as f64) as f32;
    let v = if x == f32::INFINITY { x } else { v };
    let v = if x < 0.0 {
        f32::from_bits(INVALID_NAN)
    } else {
        v
    };
    let v = if x == 0.0 { f32::NEG_INFINITY } else { v };
    if x.is_nan() { quiet(x) } else { v }
}

/// POW: `x^y` = 2^(y·log2|x|) in f64, rounded once, with the C99 special
/// cases (`pow(x, ±0) = 1` even for NaN x, `pow(1, y) = 1` even for NaN y,
/// `pow(-1, ±inf) = 1`, negative finite x with finite non-integer y → NaN,
/// `pow(±0, y<0) = +inf` (−inf for odd y), odd integer y keeps the sign of
/// x); a NaN operand otherwise gives x (or else y) made quiet. Branch-free.
#[inline]
pub fn pow_f32(x: f32, y: f32) -> f32 {
    let ax = x.abs();
    let lg = log2_f64(ax as f64);
    let lg = if ax == 0.0 { f64::NEG_INFINITY } else { lg };
    let lg = if ax == f32::INFINITY {
        f64::INFINITY
    } else {
        lg
    };
    let mag = exp2_f64(y as f64 * lg) as f32;
    // y an integer (|y| ≥ 2^23 always is) and odd (only below 2^24)
    let ay = y.abs();
    let integer = ay >= 8_388_608.0 || ay.trunc() == ay;
    let half = ay * 0.5;
    let odd = ay < 16_777_216.0 && integer && half.trunc() != half;
    let v = if x.is_sign_negative() && odd {
        -mag
    } else {
        mag
    };
    let invalid = x < 0.0 && ax != f32::INFINITY && !integer && ay != f32::INFINITY;
    let v = if invalid {
        f32::from_bits(INVALID_NAN)
    } else {
        v
    };
    let v = if y.is_nan() { quiet(y) } else { v };
    let v = if x.is_nan() { quiet(x) } else { v };
    let one = y == 0.0 || x == 1.0 || (x == -1.0 && ay == f32::INFINITY);
    if one { 1.0 } else { v }
}

/// `ex2_f32` over a row of lanes (raw f32 bits), vectorized.
#[inline]
pub fn ex2_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    for l in 0..N {
        out[l] = ex2_f32(f32::from_bits(x[l])).to_bits();
    }
}

/// `lg2_f32` over a row of lanes (raw f32 bits), vectorized.
#[inline]
pub fn lg2_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    for l in 0..N {
        out[l] = lg2_f32(f32::from_bits(x[l])).to_bits();
    }
}

/// `pow_f32` over rows of lanes (raw f32 bits), vectorized.
#[inline]
pub fn pow_lanes<const N: usize>(x: &[u32; N], y: &[u32; N], out: &mut [u32; N]) {
    for l in 0..N {
        out[l] = pow_f32(f32::from_bits(x[l]), f32::from_bits(y[l])).to_bits();
    }
}
