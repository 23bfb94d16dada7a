//! The machine's transcendental functions: one deterministic implementation,
//! identical on every host, shared by every execution path and by constant
//! folding.
//!
//! SIN and COS of |x| < 1024 run all in f32: a reduction by π/2 kept as an
//! exact pair of floats, a sine and a cosine polynomial, one rounding at the
//! end; larger arguments up to 2^20 reduce by π in f32 and finish in f64.
//! EX2 and LG2 are computed in f32 (eight lanes
//! per AVX2 vector) with the few extra-precise steps that keep them within
//! one ulp: the leading terms of each polynomial with their rounding errors
//! recovered by fused multiply-adds, the rest short minimax polynomials.
//! POW is 2^(y·log2|x|) in f64 (its logarithm needs more bits than f32
//! pairs give cheaply). All of it is branch-free (special values are chosen
//! by selects), so 16-lane loops vectorize; the row functions (`*_lanes`)
//! run a shorter form where no lane of the row is special (the same bits)
//! and redo the row (SIN/COS: the special lanes) by the definition
//! otherwise, one test per row. 16-lane rows run the same source built for
//! AVX-512 where the CPU has it (`simd`, chosen at run time, the same bits);
//! the `*_lanes_portable` functions are the build for the crate's base
//! target. Only SIN/COS of huge arguments, ±inf and NaN take the pure-Rust
//! `libm` crate's f64 `sin`/`cos`. Never `std`, whose `sin`/`exp2`/… call
//! the platform's C library and so may differ between machines. The fused
//! steps are `f32::mul_add`/`f64::mul_add`, correctly rounded on every host.
//! NaN inputs come back quiet. The accuracy is recorded in
//! `docs/numerics.md` (measured over every f32 input by `tgsi bench ulp`);
//! the tests below assert it on samples.

#[path = "simd.rs"]
pub(crate) mod simd;

/// Below this magnitude SIN and COS take the all-f32 path (`trig_near`).
pub const TRIG_NEAR_LIMIT: f32 = 1024.0;

/// Below this magnitude (and at or above [`TRIG_NEAR_LIMIT`]) SIN and COS
/// take the f32 + f64 path (`trig_mid`); at or above it (and for ±inf and
/// NaN) the exact f64 library path (`trig_slow`).
pub const TRIG_FAST_LIMIT: f32 = 1_048_576.0; // 2^20

/// 1.5·2^23: adding it to an f32 of magnitude < 2^22 rounds to the nearest
/// integer (ties to even); the low bits of the sum are that integer.
pub const ROUND_MAGIC: f32 = 12_582_912.0;

/// 1.5·2^52, the f64 rounding constant: `x + ROUND_MAGIC_F64` rounds
/// |x| < 2^51 to an integer (ties to even), held in the low bits.
pub const ROUND_MAGIC_F64: f64 = 6_755_399_441_055_744.0;

// The all-f32 path (`trig_near`), for |x| < 1024.

/// 2/π rounded to f32.
pub const TWO_OVER_PI: f32 = f32::from_bits(0x3f22_f983);
/// π/2 rounded *down* to f32 (so D = π/2 − P1 > 0: see `trig_near` on −0).
pub const HALF_PI_DOWN: f32 = f32::from_bits(0x3fc9_0fda);
/// 2·D1, D1 = π/2 − HALF_PI_DOWN rounded to a multiple of 2^-37 (13
/// significant bits, so q·D1 is exact for |q| < 2^11).
pub const TWO_D1: f32 = f32::from_bits(0x3422_2000);
/// 2·D2, D2 = π/2 − HALF_PI_DOWN − D1 rounded to f32 (what is left of π/2
/// is below 2^-63).
pub const TWO_D2: f32 = f32::from_bits(0x2cb4_611a);
/// sin(t) ≈ t + t³·p(t²) on |t| ≤ 0.7855 (π/4 and what f32 2/π can add
/// below 1024): 2·p's coefficients from t⁰ up, a minimax fit of relative
/// error 2^-27.2 (before rounding them to f32).
pub const SIN_NEAR_COEF2: [f32; 3] = [
    f32::from_bits(0xbeaa_aaa3),
    f32::from_bits(0x3c88_835d),
    f32::from_bits(0xb9cc_8352),
];
/// cos(t) ≈ 1 − t²/2 + t⁴·c(t²) on the same range: −2·c's coefficients from
/// t⁰ up, a minimax fit of relative error 2^-31.8.
pub const COS_NEAR_COEF_NEG2: [f32; 3] = [
    f32::from_bits(0xbdaa_aaa7),
    f32::from_bits(0x3b36_073c),
    f32::from_bits(0xb84d_3781),
];

/// Branch-free sin (`phase` 0) or cos (`phase` 1) for |x| <
/// [`TRIG_NEAR_LIMIT`], all in f32 (so a 512-bit vector holds 16 lanes),
/// on signed x: x = q·π/2 + t with q = round(x·2/π) from the low bits of a
/// magic sum (COS: the sum carries q + 1, which is all COS changes), and t
/// as an exact pair hi + lo:
///
/// * r1 = x − q·P1 is exact in one fused step (a multiple of 2^-24 below
///   1 when q ≠ 0); w = q·D1 is exact (13 + 11 bits); hi = r1 − w rounded,
///   and its error lo by Fast2Sum, exact both when |r1| has w's exponent
///   or more (Dekker's condition) and when it has less (then |r1 − w| <
///   2^-13 is a multiple of 2^-37, so hi is exact and lo = 0): this is
///   what bounds the path to |x| < 1024 (|q| ≤ 652 < 1400);
/// * lo gains −q·D2. The f32 closest to a multiple of π/2 below 2048 is
///   2^-27.8 away from it (found by exhaustive search), and the
///   reduction's error stays below 2^-53;
/// * sin(t) = hi + (lo + hi³·p(hi²)) and cos(t) = 1 − (hi² + 2·hi·lo −
///   2·hi⁴·c(hi²))/2, each rounded once at the end by a fused step (the
///   terms carry a factor 2 so that only exact scalings appear); the
///   quadrant (q mod 4) picks one and its sign.
///
/// Signs of zero: P1 < π/2 makes D > 0, so for q = +0 every correction
/// term is −0 and sin(±0) = ±0. Outside its range it gives unspecified
/// values (never a trap); callers route those lanes elsewhere.
#[inline(always)]
fn trig_near(x: f32, phase: u32) -> f32 {
    let magic = ROUND_MAGIC + phase as f32;
    let t = x.mul_add(TWO_OVER_PI, magic);
    let q = t - magic;
    let r1 = (-q).mul_add(HALF_PI_DOWN, x);
    let w2 = q * TWO_D1;
    let hi = w2.mul_add(-0.5, r1);
    // Fast2Sum: lo2 = −2·lo, exact
    let lo2 = (hi - r1).mul_add(2.0, w2);
    let lo2 = q.mul_add(TWO_D2, lo2);
    let z = hi * hi;
    let [s0, s1, s2] = SIN_NEAR_COEF2;
    let p2 = z.mul_add(s2, s1).mul_add(z, s0);
    let sin_tail2 = (-(hi * z)).mul_add(p2, lo2);
    let sin = sin_tail2.mul_add(-0.5, hi);
    let [c0, c1, c2] = COS_NEAR_COEF_NEG2;
    let c_neg2 = z.mul_add(c2, c1).mul_add(z, c0);
    let cos_tail2 = (-hi).mul_add(lo2, (z * z) * c_neg2);
    let cos = hi.mul_add(hi, cos_tail2).mul_add(-0.5, 1.0);
    let quadrant = t.to_bits();
    let v = if quadrant & 1 != 0 { cos } else { sin };
    f32::from_bits(v.to_bits() ^ ((quadrant << 30) & 0x8000_0000))
}

/// True when `x` takes [`trig_near`] (false for NaN).
#[inline(always)]
fn is_near_trig(x: f32) -> bool {
    x.abs() < TRIG_NEAR_LIMIT
}

// The f32 + f64 path (`trig_mid`), for 1024 ≤ |x| < 2^20.

/// 1/π rounded to f32.
const INV_PI: f32 = f32::from_bits(0x3ea2_f983);
/// π rounded to f32.
const PI_HI: f32 = f32::from_bits(0x4049_0fdb);
/// PI_HI / 2, exact.
const HALF_PI_HI: f32 = f32::from_bits(0x3fc9_0fdb);
/// π − PI_HI rounded to f64 (its own error, 5.3e-24, times m < 2^19 stays
/// below 2^-58, against |r| ≥ 2^-27.8 at the f32 closest to a multiple of
/// π/2 below 2^20).
const PI_DELTA: f64 = -8.742_278_000_372_485e-8;

/// sin(r) ≈ r + r³·p(r²) on |r| ≤ 1.663 (π/2 widened by what f32 1/π and
/// the rounding of the quotient can add near 2^20): p's coefficients from
/// r⁰ up, a minimax fit of relative error (f64): relative error < 2^-25.6.
const SIN_COEF: [f64; 4] = [
    -0.166_666_579_047_662_1,
    0.008_332_984_259_190_51,
    -0.000_198_020_930_208_683_2,
    2.587_499_654_648_91e-6,
];

/// sin(r) in f64 for |r| ≤ 1.663 by [`SIN_COEF`], Estrin's scheme (the
/// fewest dependent steps): r + (r·r²)·((c0 + c1·z) + z²·(c2 + c3·z)).
#[inline(always)]
fn sin_poly(r: f64) -> f64 {
    let z = r * r;
    let z2 = z * z;
    let low = SIN_COEF[1].mul_add(z, SIN_COEF[0]);
    let high = SIN_COEF[3].mul_add(z, SIN_COEF[2]);
    (r * z).mul_add(high.mul_add(z2, low), r)
}

/// Branch-free sin (`phase` 0) or cos (`phase` 1) for |x| <
/// [`TRIG_FAST_LIMIT`], on a = |x|: one polynomial serves both functions,
/// sin(x) = ±sin(a − k·π) with k an integer (k = round(a/π)) and cos(x) =
/// ±sin(a − k·π) with k a half-integer (n + ½, n = round(a/π − ½)), |a −
/// k·π| ≤ 1.663. The integer m (k or n) comes from a·(1/π) (COS: a·(1/π) −
/// ½ in one fused step) rounded to f32, then to an integer; r1 = a −
/// m·PI_HI is exact in one fused step; then in f64 r = r1 (− PI_HI/2 for
/// COS, exact) − (k or n + ½)·PI_DELTA in one fused step (relative error <
/// 2^-30 even at the f32 closest to a multiple of π/2), [`sin_poly`]
/// rounded once to f32, and the sign: the parity of k for SIN, of n + 1
/// for COS, and x's sign for SIN, which is odd.
#[inline(always)]
fn trig_mid(x: f32, phase: u32) -> f32 {
    let sign = x.to_bits() & 0x8000_0000;
    let a = f32::from_bits(x.to_bits() ^ sign);
    let (r1, m, sign) = if phase == 0 {
        let k = (a * INV_PI).round_ties_even();
        let r1 = (-k).mul_add(PI_HI, a) as f64;
        // the parity of k: the low bit of k + 1.5·2^23 (exact)
        (r1, k, ((k + ROUND_MAGIC).to_bits() << 31) ^ sign)
    } else {
        let n = a.mul_add(INV_PI, -0.5).round_ties_even();
        let r1 = (-n).mul_add(PI_HI, a) as f64 - HALF_PI_HI as f64;
        (r1, n + 0.5, !(n + ROUND_MAGIC).to_bits() << 31)
    };
    let v = sin_poly((-(m as f64)).mul_add(PI_DELTA, r1)) as f32;
    f32::from_bits(v.to_bits() ^ sign)
}

/// The exact path for the lanes the other paths do not cover: the f64
/// library function, rounded to f32 (±inf and NaN → NaN).
#[cold]
fn trig_slow(x: f32, phase: u32) -> f32 {
    if phase == 0 {
        libm::sin(x as f64) as f32
    } else {
        libm::cos(x as f64) as f32
    }
}

/// True when `x` takes [`trig_mid`] or [`trig_near`] (false for NaN).
#[inline(always)]
fn is_fast_trig(x: f32) -> bool {
    x.abs() < TRIG_FAST_LIMIT
}

/// The lanes beyond [`trig_near`] of one function: [`trig_mid`] or
/// [`trig_slow`].
#[inline(never)]
#[cold]
fn trig_far(x: f32, phase: u32) -> f32 {
    if is_fast_trig(x) {
        trig_mid(x, phase)
    } else {
        trig_slow(x, phase)
    }
}

#[inline(always)]
fn trig_f32(x: f32, phase: u32) -> f32 {
    if is_near_trig(x) {
        trig_near(x, phase)
    } else {
        trig_far(x, phase)
    }
}

/// Applies sin (`phase` 0) or cos (`phase` 1) to a row of f32 bit patterns:
/// [`trig_near`] on every lane (the loop vectorizes to one straight run of
/// f32 vector operations), then the rare lanes beyond it again. Same bits
/// as [`trig_f32`] lane by lane.
#[inline(always)]
fn trig_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N], phase: u32) {
    let mut any_far = false;
    for l in 0..N {
        let v = f32::from_bits(x[l]);
        out[l] = trig_near(v, phase).to_bits();
        any_far |= !is_near_trig(v);
    }
    if any_far {
        trig_lanes_far(x, out, phase);
    }
}

/// The second pass of [`trig_lanes`], out of line: the lanes beyond
/// [`trig_near`].
#[inline(never)]
#[cold]
fn trig_lanes_far<const N: usize>(x: &[u32; N], out: &mut [u32; N], phase: u32) {
    // trig_mid on every lane (vectorized), kept where it applies
    let mut mid = [0u32; N];
    for l in 0..N {
        mid[l] = trig_mid(f32::from_bits(x[l]), phase).to_bits();
    }
    for l in 0..N {
        let v = f32::from_bits(x[l]);
        if !is_near_trig(v) {
            out[l] = if is_fast_trig(v) {
                mid[l]
            } else {
                trig_slow(v, phase).to_bits()
            };
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

/// The row as a 16-lane row when `N` is 16 (what the AVX-512 builds of
/// [`simd`] take).
#[inline(always)]
fn row16<const N: usize>(x: &[u32; N]) -> Option<&[u32; 16]> {
    x.as_slice().try_into().ok()
}

/// [`row16`] for the output row.
#[inline(always)]
fn row16_mut<const N: usize>(x: &mut [u32; N]) -> Option<&mut [u32; 16]> {
    x.as_mut_slice().try_into().ok()
}

/// [`sin_f32`] over a row of lanes (raw f32 bits), vectorized: 16-lane
/// rows run the AVX-512 build (`exec/simd.rs`) where the CPU has it, others
/// [`sin_lanes_portable`]; the same bits either way.
#[inline]
pub fn sin_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    if let (Some(a), Some(o)) = (row16(x), row16_mut(out))
        && simd::sin(a, o)
    {
        return;
    }
    sin_lanes_portable(x, out)
}

/// [`sin_lanes`] as built for the crate's base target (x86-64-v3: AVX2).
#[inline(always)]
pub fn sin_lanes_portable<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    trig_lanes(x, out, 0)
}

/// [`cos_f32`] over a row of lanes (raw f32 bits), vectorized, AVX-512 as
/// [`sin_lanes`].
#[inline]
pub fn cos_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    if let (Some(a), Some(o)) = (row16(x), row16_mut(out))
        && simd::cos(a, o)
    {
        return;
    }
    cos_lanes_portable(x, out)
}

/// [`cos_lanes`] as built for the crate's base target.
#[inline(always)]
pub fn cos_lanes_portable<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    trig_lanes(x, out, 1)
}

/// [`sin_lanes`] over many 16-lane rows in one call (as many as the
/// shorter slice holds): the AVX-512 build runs its loop inside (no call
/// per row) where the CPU has it. The same bits.
pub fn sin_rows(x: &[[u32; 16]], out: &mut [[u32; 16]]) {
    if !simd::sin_rows(x, out) {
        trig_rows_portable(x, out, 0);
    }
}

/// [`cos_lanes`] over many rows in one call, as [`sin_rows`].
pub fn cos_rows(x: &[[u32; 16]], out: &mut [[u32; 16]]) {
    if !simd::cos_rows(x, out) {
        trig_rows_portable(x, out, 1);
    }
}

/// The portable build of [`sin_rows`] (`phase` 0) and [`cos_rows`] (1).
fn trig_rows_portable(x: &[[u32; 16]], out: &mut [[u32; 16]], phase: u32) {
    for (a, o) in x.iter().zip(out) {
        trig_lanes(a, o, phase);
    }
}

/// Whether 16-lane rows run the AVX-512 builds of the row functions on this
/// CPU (same bits as the portable builds).
pub fn wide_kernels() -> bool {
    simd::available()
}

/// The error of `got` against the exact value `want` in units of the last
/// place of `want`'s float32 binade (subnormals count in units of the
/// smallest subnormal); an infinity counts as ±2^128, the value after
/// ±f32::MAX, and is 0 ulp off when it is the correctly rounded result; a
/// NaN is infinitely far. What `tgsi bench ulp` and the accuracy tests
/// measure.
pub fn ulp_error(got: f32, want: f64) -> f64 {
    if got.is_nan() {
        return f64::INFINITY;
    }
    if got.is_infinite() && got == want as f32 {
        return 0.0;
    }
    let got = if got.is_infinite() {
        2f64.powi(128).copysign(got as f64)
    } else {
        got as f64
    };
    let exp = (want.abs().log2().floor() as i32).clamp(-126, 127);
    (got - want).abs() / 2f64.powi(exp - 23)
}

/// The NaN that invalid operations give (x86's default NaN, which the
/// `libm` functions these replace produced on the machines we run on).
const INVALID_NAN: u32 = 0xffc0_0000;

/// A NaN input made quiet (payload and sign kept), as IEEE 754 requires.
#[inline(always)]
fn quiet(x: f32) -> f32 {
    f32::from_bits(x.to_bits() | 0x0040_0000)
}

// ln 2 = LN2_HI + LN2_LO + O(1e-17).
pub const LN2_HI: f32 = f32::from_bits(0x3f31_7218);
pub const LN2_LO: f32 = f32::from_bits(0xb102_e308);

/// 2^f ≈ 1 + f·ln 2 + f²·p(f) on |f| ≤ 1/2: the coefficients of p from f⁰
/// up, a minimax fit of relative error, rounded to f32 one by one with the
/// higher ones refitted: relative error < 2^-27.8.
pub const EX2_COEF: [f32; 5] = [
    f32::from_bits(0x3e75_fdee),
    f32::from_bits(0x3d63_57c6),
    f32::from_bits(0x3c1d_96e5),
    f32::from_bits(0x3aaf_822f),
    f32::from_bits(0x3920_dc0a),
];

/// 2^f for |f| ≤ 1/2 (f = x − round(x), exact), in [√½, √2]:
/// hi + (lo + f²·p(f)) where hi = 1 + f·ln 2 rounded and lo its rounding
/// error (recovered by a fused step, with f times the low part of ln 2).
#[inline(always)]
fn exp2_reduced(f: f32) -> f32 {
    let hi = f.mul_add(LN2_HI, 1.0);
    let lo = f.mul_add(LN2_LO, f.mul_add(LN2_HI, 1.0 - hi));
    let p = EX2_COEF[4]
        .mul_add(f, EX2_COEF[3])
        .mul_add(f, EX2_COEF[2])
        .mul_add(f, EX2_COEF[1])
        .mul_add(f, EX2_COEF[0]);
    hi + (f * f).mul_add(p, lo)
}

/// EX2: `2^x` in f32: k = round(x) (x clamped to ±160 first, beyond f32's
/// range either way), f = x − k exact, 2^f by `exp2_reduced`, then scaled
/// by 2^k in two multiplications by 2^⌊k/2⌋ and 2^⌈k/2⌉ (the first exact,
/// the second rounds once), so subnormal results and overflow round as IEEE
/// says. -inf → 0, +inf → +inf, exact for integer x whose power of two is
/// representable, NaN → the input made quiet. Branch-free; the definition
/// [`ex2_lanes`] reproduces.
#[inline]
pub fn ex2_f32(x: f32) -> f32 {
    let xc = if x > -160.0 { x } else { -160.0 };
    let xc = if xc < 160.0 { xc } else { 160.0 };
    let t = xc + ROUND_MAGIC;
    let k = t - ROUND_MAGIC;
    let v = exp2_reduced(xc - k);
    let ki = t.to_bits().wrapping_sub(ROUND_MAGIC.to_bits()) as i32;
    let k1 = ki >> 1;
    let k2 = ki - k1;
    let s1 = f32::from_bits(((k1 + 127) as u32) << 23);
    let s2 = f32::from_bits(((k2 + 127) as u32) << 23);
    let v = v * s1 * s2;
    if x.is_nan() { quiet(x) } else { v }
}

/// True when [`ex2_f32`] of `x` is a normal number scaled exactly by
/// adding k to the exponent field: round(x) in [-125, 127] (false for NaN).
#[inline(always)]
fn ex2_is_plain(x: f32) -> bool {
    x > EX2_PLAIN_RANGE.0 && x < EX2_PLAIN_RANGE.1
}

/// [`ex2_f32`] for [`ex2_is_plain`] inputs (others: unspecified, no trap):
/// the scaling by 2^k is an integer add to the exponent field, exact here.
#[inline(always)]
fn ex2_plain(x: f32) -> f32 {
    let t = x + ROUND_MAGIC;
    let k = t - ROUND_MAGIC;
    let v = exp2_reduced(x - k);
    let ki = t.to_bits().wrapping_sub(ROUND_MAGIC.to_bits());
    f32::from_bits(v.to_bits().wrapping_add(ki << 23))
}

/// The bits of √½ rounded down to f32 and to f64: LG2 and POW count the
/// exponent from there, so that the mantissa lands in [√½, √2).
pub const SQRT_HALF_BITS: u32 = 0x3f35_04f3;
pub const SQRT_HALF_BITS_F64: u64 = 0x3fe6_a09e_667f_3bcd;
/// 2/ln 2 in f64 (POW's logarithm).
pub const TWO_OVER_LN2_F64: f64 = 2.0 * std::f64::consts::LOG2_E;
/// POW's exponent is clamped to ±this before 2^t (beyond f32's range).
pub const POW_EXP2_LIMIT: f64 = 1000.0;
/// EX2's short form covers x in (−this.0, this.1) (round(x) in [-125, 127]).
pub const EX2_PLAIN_RANGE: (f32, f32) = (-125.5, 127.5);

// 2/ln 2 = TWO_OVER_LN2_HI + TWO_OVER_LN2_LO + O(1e-16).
pub const TWO_OVER_LN2_HI: f32 = f32::from_bits(0x4038_aa3b);
pub const TWO_OVER_LN2_LO: f32 = f32::from_bits(0x3325_7060);
/// log2(m) ≈ (2/ln 2)·s + s³·q(s²) for s = (m − 1)/(m + 1), |s| ≤ 0.1716:
/// the coefficients of q, a minimax fit of relative error rounded to f32
/// (refitted): relative error < 2^-30.1.
pub const LG2_COEF: [f32; 3] = [
    f32::from_bits(0x3f76_386a),
    f32::from_bits(0x3f13_a5d8),
    f32::from_bits(0x3edc_b8a3),
];

/// log2(x·2^-bias) for x positive, normal and finite (anything else: an
/// unspecified value, never a trap), rounded once. x = 2^e·m with m in
/// [√½, √2) from the bits; s = (m − 1)/(m + 1) by one division plus its
/// rounding error s_lo (the exact remainder from fused steps, m + 1 as an
/// exact pair, times 1/(m + 1) = (1 − s)/2); then
/// (e − bias) + (2/ln 2)·(s + s_lo) + s³·q(s²) with the product by 2/ln 2
/// and the sum with e − bias carried as pairs. Exact for powers of two.
#[inline(always)]
fn log2_normal(x: f32, bias: f32) -> f32 {
    let bits = x.to_bits();
    // exponent counted from √½, so m lands in [√½, √2)
    let e = (bits.wrapping_sub(SQRT_HALF_BITS) as i32) >> 23;
    let m = f32::from_bits(bits.wrapping_sub((e as u32) << 23));
    let ef = e as f32 - bias;
    let f = m - 1.0;
    let d = m + 1.0;
    let d_lo = m - (d - 1.0);
    let s = f / d;
    let rem = (-s).mul_add(d_lo, (-s).mul_add(d, f));
    let s_lo = rem * (-0.5f32).mul_add(s, 0.5);
    let z = s * s;
    let q = LG2_COEF[2].mul_add(z, LG2_COEF[1]).mul_add(z, LG2_COEF[0]);
    let p = TWO_OVER_LN2_HI * s;
    let p_lo = TWO_OVER_LN2_HI.mul_add(s, -p);
    let p_lo = TWO_OVER_LN2_LO.mul_add(s, TWO_OVER_LN2_HI.mul_add(s_lo, p_lo));
    let low = (s * z).mul_add(q, p_lo);
    let hi = ef + p;
    let lo = (ef - hi) + p;
    hi + (lo + low)
}

/// True when `x` is positive, normal and finite: [`log2_normal`] alone
/// gives [`lg2_f32`] (false for NaN).
#[inline(always)]
fn lg2_is_plain(x: f32) -> bool {
    (f32::MIN_POSITIVE..f32::INFINITY).contains(&x)
}

/// LG2: `log2(x)` in f32 by `log2_normal` (a subnormal x scaled by 2^23
/// first, the 23 taken off inside before the one rounding): ±0 → -inf,
/// negative → NaN, +inf → +inf, NaN → the input made quiet; exact for
/// powers of two. Branch-free; the definition [`lg2_lanes`] reproduces.
#[inline]
pub fn lg2_f32(x: f32) -> f32 {
    let tiny = x < f32::MIN_POSITIVE;
    let xs = if tiny { x * 8_388_608.0 } else { x };
    let bias = if tiny { 23.0 } else { 0.0 };
    let v = log2_normal(xs, bias);
    let v = if x == f32::INFINITY { x } else { v };
    let v = if x < 0.0 {
        f32::from_bits(INVALID_NAN)
    } else {
        v
    };
    let v = if x == 0.0 { f32::NEG_INFINITY } else { v };
    if x.is_nan() { quiet(x) } else { v }
}

/// 2^r ≈ 1 + r·p(r) on |r| ≤ 1/2, for POW: a minimax fit of relative
/// error < 2^-27.9 (f64 coefficients).
pub const POW_EXP2_COEF: [f64; 6] = [
    0.6931472253950111,
    0.24022651084117294,
    0.05550297314199325,
    0.009618030782505154,
    0.0013410000966100157,
    0.00015469731977475548,
];

/// 2^t in f64 for any t (NaN → NaN), relative error < 2^-27.8: t clamped
/// to ±1000 (beyond f32's range either way), k = round(t), r = t − k exact,
/// 1 + r·p(r), scaled by 2^k built from its bits. Branch-free.
#[inline(always)]
fn exp2_f64(t: f64) -> f64 {
    const MAGIC: f64 = ROUND_MAGIC_F64;
    let t = t.clamp(-POW_EXP2_LIMIT, POW_EXP2_LIMIT);
    let shifted = t + MAGIC;
    let k = shifted - MAGIC;
    let r = t - k;
    let mut p = POW_EXP2_COEF[5];
    for i in (0..5).rev() {
        p = p.mul_add(r, POW_EXP2_COEF[i]);
    }
    let v = r.mul_add(p, 1.0);
    // k as an integer: the low bits of `shifted` (same binade as MAGIC)
    let ki = shifted.to_bits().wrapping_sub(MAGIC.to_bits());
    v * f64::from_bits(ki.wrapping_add(1023) << 52)
}

/// log2(m) ≈ (2/ln 2)·s + s³·q(s²) for POW: q's coefficients, a minimax fit
/// of relative error < 2^-36.8 (f64).
pub const POW_LOG2_COEF: [f64; 4] = [
    0.9617966808152651,
    0.5770829044052804,
    0.4116883138002932,
    0.3407251983335025,
];

/// log2(a) in f64 for a positive, finite, nonzero f64 (anything else: an
/// unspecified value, never a trap), relative error < 2^-36: a = 2^e·m with
/// m in [√½, √2), s = (m − 1)/(m + 1), e + (2/ln 2)·s + s³·q(s²). Exact (e)
/// for powers of two. Branch-free.
#[inline(always)]
fn log2_f64(a: f64) -> f64 {
    let bits = a.to_bits();
    // exponent counted from √½ (bits 0x3fe6a09e667f3bcd), so m is in [√½, √2)
    // (a logical shift of the biased difference: AVX2 has no 64-bit
    // arithmetic shift)
    let e = (bits.wrapping_sub(SQRT_HALF_BITS_F64).wrapping_add(1 << 62) >> 52) as i64 - 1024;
    let m = f64::from_bits(bits.wrapping_sub((e as u64) << 52));
    // e as f64 without an integer conversion (AVX2 has none for 64 bits):
    // 1.5·2^52 + e has e in its low bits
    const MAGIC: f64 = ROUND_MAGIC_F64;
    let ef = f64::from_bits(MAGIC.to_bits().wrapping_add(e as u64)) - MAGIC;
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut q = POW_LOG2_COEF[3];
    for i in (0..3).rev() {
        q = q.mul_add(z, POW_LOG2_COEF[i]);
    }
    ef + TWO_OVER_LN2_F64.mul_add(s, s * z * q)
}

/// POW's exponents taken by repeated squaring ([`pow_by_squaring`]):
/// integers of magnitude up to this.
pub const POW_SQUARING_MAX: f32 = 64.0;

/// True when y is an integer with |y| ≤ [`POW_SQUARING_MAX`] (±0
/// included, NaN not): POW's magnitude is then [`pow_by_squaring`].
#[inline(always)]
pub fn pow_squares(y: f32) -> bool {
    let ay = y.abs();
    ay <= POW_SQUARING_MAX && ay.trunc() == ay
}

/// |x|^y for a [`pow_squares`] exponent y, in f64: the powers
/// a, a², a⁴ … a⁶⁴ of a = |x| by six squarings, the product of those
/// y's bits name from the lowest up (1 for y = ±0), and for y < 0 its
/// reciprocal; at most 14 roundings of 2^-53 each, so the relative error
/// is below 2^-49 before the one rounding to f32 (within 0.5001 ulp, where
/// the logarithm's path is within 0.57). Every step, in this order, is
/// what the compiled engine's template does too.
#[inline(always)]
pub fn pow_by_squaring(x: f32, y: f32) -> f64 {
    let n = y.abs() as u32;
    let mut power = (x as f64).abs();
    let mut product = 1.0f64;
    for bit in 0..7 {
        if bit > 0 {
            power *= power;
        }
        if n >> bit & 1 != 0 {
            product *= power;
        }
    }
    if y < 0.0 { 1.0 / product } else { product }
}

/// True when x is +0 or positive and finite, y finite, and not both zero:
/// [`pow_plain`] alone gives [`pow_f32`] (false for NaNs and for −0).
#[inline(always)]
fn pow_is_plain(x: f32, y: f32) -> bool {
    x.to_bits() < f32::INFINITY.to_bits() && y.abs() < f32::INFINITY && (x != 0.0 || y != 0.0)
}

/// [`pow_f32`] for [`pow_is_plain`] operands (others: unspecified, no
/// trap): [`pow_by_squaring`] for a [`pow_squares`] exponent, else
/// 2^(y·log2 x); no special case applies (x = 1 and y = ±0 give
/// 2^±0 = 1 by themselves; x = +0 has log2 −∞, so y > 0 gives +0 and
/// y < 0 gives +∞ through `exp2_f64`'s clamp, as the definition does).
#[inline(always)]
fn pow_plain(x: f32, y: f32) -> f32 {
    if pow_squares(y) {
        pow_by_squaring(x, y) as f32
    } else {
        pow_plain_by_logarithm(x, y)
    }
}

/// [`pow_plain`] for an exponent that is not [`pow_squares`].
#[inline(always)]
fn pow_plain_by_logarithm(x: f32, y: f32) -> f32 {
    exp2_f64(y as f64 * pow_log2(x)) as f32
}

/// log2 |x| for POW: [`log2_f64`], and −∞ at ±0 (finite x).
#[inline(always)]
fn pow_log2(ax: f32) -> f64 {
    let lg = log2_f64(ax as f64);
    if ax == 0.0 { f64::NEG_INFINITY } else { lg }
}

/// POW: `x^y` = 2^(y·log2|x|) in f64 (relative error < 2^-27 before the
/// one rounding to f32), or by squaring in f64 for an integer y with
/// |y| ≤ 64 ([`pow_by_squaring`], relative error < 2^-49), with the C99 special cases (`pow(x, ±0) = 1` even
/// for NaN x, `pow(1, y) = 1` even for NaN y, `pow(-1, ±inf) = 1`, negative
/// finite x with finite non-integer y → NaN, `pow(±0, y<0) = +inf` (−inf
/// for odd y), odd integer y keeps the sign of x); a NaN operand otherwise
/// gives x (or else y) made quiet. Branch-free.
#[inline]
pub fn pow_f32(x: f32, y: f32) -> f32 {
    let ax = x.abs();
    let lg = pow_log2(ax);
    let lg = if ax == f32::INFINITY {
        f64::INFINITY
    } else {
        lg
    };
    let mag = if pow_squares(y) {
        pow_by_squaring(ax, y) as f32
    } else {
        exp2_f64(y as f64 * lg) as f32
    };
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

/// [`ex2_f32`] over a row of lanes (raw f32 bits), vectorized: the short
/// form (`ex2_plain`) on every lane, and only if some lane needs more
/// (a subnormal or infinite result, NaN) the whole row again by the
/// definition. Same bits as [`ex2_f32`] lane by lane; 16-lane rows run the
/// AVX-512 build where the CPU has it (as [`sin_lanes`]).
#[inline]
pub fn ex2_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    if let (Some(a), Some(o)) = (row16(x), row16_mut(out))
        && simd::ex2(a, o)
    {
        return;
    }
    ex2_lanes_portable(x, out)
}

/// [`ex2_lanes`] as built for the crate's base target (x86-64-v3: AVX2).
#[inline(always)]
pub fn ex2_lanes_portable<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    let mut plain = true;
    for l in 0..N {
        let v = f32::from_bits(x[l]);
        out[l] = ex2_plain(v).to_bits();
        plain &= ex2_is_plain(v);
    }
    if !plain {
        for l in 0..N {
            out[l] = ex2_f32(f32::from_bits(x[l])).to_bits();
        }
    }
}

/// [`lg2_f32`] over a row of lanes (raw f32 bits), vectorized: the short
/// form on every lane, the whole row again by the definition only if some
/// lane is not positive, normal and finite. Same bits as [`lg2_f32`];
/// AVX-512 as [`sin_lanes`].
#[inline]
pub fn lg2_lanes<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    if let (Some(a), Some(o)) = (row16(x), row16_mut(out))
        && simd::lg2(a, o)
    {
        return;
    }
    lg2_lanes_portable(x, out)
}

/// [`lg2_lanes`] as built for the crate's base target (x86-64-v3: AVX2).
#[inline(always)]
pub fn lg2_lanes_portable<const N: usize>(x: &[u32; N], out: &mut [u32; N]) {
    let mut plain = true;
    for l in 0..N {
        let v = f32::from_bits(x[l]);
        out[l] = log2_normal(v, 0.0).to_bits();
        plain &= lg2_is_plain(v);
    }
    if !plain {
        for l in 0..N {
            out[l] = lg2_f32(f32::from_bits(x[l])).to_bits();
        }
    }
}

/// [`pow_f32`] over rows of lanes (raw f32 bits), vectorized: the short
/// form on every lane, the whole row again by the definition only if some
/// lane has x < 0, x = −0, 0^0, an infinity or a NaN (`pow_is_plain`).
/// Same bits as [`pow_f32`];
/// AVX-512 as [`sin_lanes`].
#[inline]
pub fn pow_lanes<const N: usize>(x: &[u32; N], y: &[u32; N], out: &mut [u32; N]) {
    if let (Some(a), Some(b), Some(o)) = (row16(x), row16(y), row16_mut(out))
        && simd::pow(a, b, o)
    {
        return;
    }
    pow_lanes_portable(x, y, out)
}

/// [`pow_lanes`] as built for the crate's base target (x86-64-v3: AVX2).
#[inline(always)]
pub fn pow_lanes_portable<const N: usize>(x: &[u32; N], y: &[u32; N], out: &mut [u32; N]) {
    let mut plain = true;
    // (a row whose exponents all take one of `pow_plain`'s two ways runs
    // that way alone)
    let squares = y
        .iter()
        .filter(|&&b| pow_squares(f32::from_bits(b)))
        .count();
    for l in 0..N {
        let (a, b) = (f32::from_bits(x[l]), f32::from_bits(y[l]));
        out[l] = if squares == N {
            pow_by_squaring(a, b) as f32
        } else if squares == 0 {
            pow_plain_by_logarithm(a, b)
        } else {
            pow_plain(a, b)
        }
        .to_bits();
        plain &= pow_is_plain(a, b);
    }
    if !plain {
        for l in 0..N {
            out[l] = pow_f32(f32::from_bits(x[l]), f32::from_bits(y[l])).to_bits();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tgsi_ir::rng::Rng;

    /// The accuracy every kernel is held to: the largest error, in ulps of
    /// the exact result, that `docs/numerics.md` states.
    const BOUND: f64 = 1.0;

    /// Error of `got` against the exact value `want` (finite, nonzero), in
    /// units of the f32 ulp at `want` (the ulp of the f32 binade containing
    /// `want`; subnormal ulp below 2^-126); an infinity counts as ±2^128,
    /// the value after ±f32::MAX.
    /// The documented result where it is not a finite nonzero number: a NaN
    /// input made quiet, 0xffc00000 for an invalid operation, otherwise the
    /// exact infinity or zero of the reference.
    fn special(nan_input: Option<f32>, want: f64) -> Option<u32> {
        match nan_input {
            Some(n) => Some(quiet(n).to_bits()),
            None if want.is_nan() => Some(INVALID_NAN),
            None if want.is_infinite() || want == 0.0 => Some((want as f32).to_bits()),
            None => None,
        }
    }

    /// Checks `f` against the f64 `reference` on every input: the exact bits
    /// for special results, at most [`BOUND`] ulps otherwise. Returns the
    /// largest error and where it occurs.
    fn check(
        name: &str,
        inputs: impl Iterator<Item = f32>,
        f: impl Fn(f32) -> f32,
        reference: impl Fn(f64) -> f64,
    ) -> (f64, f32) {
        let mut worst = (0.0, 0.0);
        for x in inputs {
            let (got, want) = (f(x), reference(x as f64));
            if let Some(bits) = special(x.is_nan().then_some(x), want) {
                assert_eq!(got.to_bits(), bits, "{name}({x:e} [{:#x}])", x.to_bits());
                continue;
            }
            let e = ulp_error(got, want);
            assert!(
                e <= BOUND,
                "{name}({x:e} [{:#x}]) = {got:e}, exact {want:e}: {e} ulp",
                x.to_bits()
            );
            if e > worst.0 {
                worst = (e, x);
            }
        }
        eprintln!("{name}: max {:.4} ulp at {:e}", worst.0, worst.1);
        worst
    }

    /// 2^20 inputs spread over every f32 bit pattern (both signs, every
    /// binade, subnormals, ±inf, NaNs): one at a pseudo-random offset in
    /// each run of 4096 consecutive patterns, plus the special values.
    fn spread() -> impl Iterator<Item = f32> {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        (0u32..1 << 20)
            .map(move |i| f32::from_bits((i << 12) | (rng.next() as u32 & 0xfff)))
            .chain(SPECIALS.iter().map(|&b| f32::from_bits(b)))
    }

    /// The special-value inputs every check includes.
    const SPECIALS: [u32; 22] = tgsi_ir::rng::edge_f32_and([
        0xff80_0001,
        0x4300_0000,
        0xc315_0000,
        0x3f00_0000,
        0x4000_0000,
        0x4040_0000,
        0x4b80_0001,
    ]);

    #[test]
    fn sin_and_cos_within_the_bound_over_the_whole_domain() {
        check("sin", spread(), sin_f32, libm::sin);
        check("cos", spread(), cos_f32, libm::cos);
        // dense where shaders live: |x| ≤ 8 and |x| ≤ 10^4
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let xs: Vec<f32> = (0..1 << 18)
            .map(|i| {
                let r = if i % 2 == 0 { 8.0 } else { 1e4 };
                rng.uniform(-r, r) as f32
            })
            .collect();
        check("sin (|x| ≤ 10^4)", xs.iter().copied(), sin_f32, libm::sin);
        check("cos (|x| ≤ 10^4)", xs.iter().copied(), cos_f32, libm::cos);
    }

    #[test]
    fn trig_near_multiples_of_half_pi() {
        // the hardest reductions: the f32 neighbours of k·π/2 for k up to
        // 2^20 + 4 (both paths), and the inputs known to come closest
        let mut rng = Rng(0x7419_3311_0ddb_a11e);
        let mut near = Vec::new();
        for i in 0..50_000u64 {
            let k = (rng.next() % (1 << 20)) as f64 + (i % 4) as f64;
            let c = (k * std::f64::consts::FRAC_PI_2) as f32;
            for d in -2i32..=2 {
                near.push(f32::from_bits((c.to_bits() as i32 + d) as u32));
            }
        }
        // every multiple below the all-f32 path's limit, 8 ulps either
        // side (its reduction's two regimes, exact either way)
        for k in 1..700u32 {
            let c = (k as f64 * std::f64::consts::FRAC_PI_2) as f32;
            for d in -8i32..=8 {
                near.push(f32::from_bits((c.to_bits() as i32 + d) as u32));
            }
        }
        near.extend([
            252.898_21f32,
            5.2516434e4,
            1.0503287e5,
            5.341179e5,
            4.712389,
        ]);
        check("sin near kπ/2", near.iter().copied(), sin_f32, libm::sin);
        check("cos near kπ/2", near.iter().copied(), cos_f32, libm::cos);
    }

    #[test]
    fn trig_symmetry_and_the_exact_path_beyond_the_limit() {
        let mut rng = Rng(0x2222_3333_4444_5555);
        for _ in 0..100_000 {
            let x = f32::from_bits(rng.next() as u32 & 0x7fff_ffff);
            // sin is odd and cos even, bit for bit (NaNs keep their sign)
            if !x.is_nan() {
                assert_eq!(sin_f32(-x).to_bits(), (-sin_f32(x)).to_bits(), "{x:e}");
                assert_eq!(cos_f32(-x).to_bits(), cos_f32(x).to_bits(), "{x:e}");
            }
            // at and beyond 2^20, ±inf and NaN: the f64 library, rounded
            if !is_fast_trig(x) {
                assert_eq!(sin_f32(x).to_bits(), (libm::sin(x as f64) as f32).to_bits());
                assert_eq!(cos_f32(x).to_bits(), (libm::cos(x as f64) as f32).to_bits());
            }
        }
    }

    #[test]
    fn trig_lanes_match_the_scalar_definition_bit_for_bit() {
        let mut rng = Rng(0xfeed_beef_0123_4567);
        let (mut s, mut c) = ([0u32; 16], [0u32; 16]);
        for round in 0..20_000 {
            // raw patterns (every class: NaN, inf, subnormal, huge), values
            // of the fast range and beyond, and rows of close arguments (all
            // lanes in one quadrant, so one kernel serves the row), some with
            // a special lane
            let base = rng.uniform(-1e4, 1e4);
            let mut x: [u32; 16] = std::array::from_fn(|l| match round % 3 {
                0 => rng.next() as u32,
                1 => (rng.uniform(-2e6, 2e6) as f32).to_bits(),
                _ => ((base + l as f64 * 1e-3) as f32).to_bits(),
            });
            if round % 7 == 2 {
                x[round % 16] = SPECIALS[round % SPECIALS.len()];
            }
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
    fn ex2_within_the_bound_over_the_whole_domain() {
        check("ex2", spread(), ex2_f32, libm::exp2);
        // dense over the finite results, subnormal ones included
        let mut rng = Rng(0x0bad_cafe_f00d_1234);
        let xs = (0..1 << 18).map(|_| rng.uniform(-151.0, 129.0) as f32);
        check("ex2 [-151, 129]", xs, ex2_f32, libm::exp2);
    }

    #[test]
    fn lg2_within_the_bound_over_the_whole_domain() {
        check("lg2", spread(), lg2_f32, libm::log2);
        // dense around 1.0 where the result is tiny
        let xs = (0..1 << 17).map(|i| f32::from_bits(0x3f80_0000 - (1 << 16) + i));
        check("lg2 near 1", xs, lg2_f32, libm::log2);
    }

    /// `pow_f32(x, y)`'s error in ulp against the `libm` crate's f64 pow,
    /// asserted at most `bound` (0 where the exact result is a special
    /// value, whose bits are asserted instead).
    fn pow_error_within(x: f32, y: f32, bound: f64) -> f64 {
        let (want, got) = (libm::pow(x as f64, y as f64), pow_f32(x, y));
        if let Some(bits) = special(None, want) {
            assert_eq!(got.to_bits(), bits, "pow({x:e}, {y:e})");
            return 0.0;
        }
        let e = ulp_error(got, want);
        assert!(
            e <= bound,
            "pow({x:e}, {y:e}) = {got:e}, exact {want:e}: {e} ulp"
        );
        e
    }

    #[test]
    fn pow_within_the_bound() {
        let mut rng = Rng(0x9999_aaaa_bbbb_cccc);
        let mut pairs = Vec::new();
        // a grid: x in (0, 50], y in [-16, 16)
        for i in 0..256 {
            for j in 0..256 {
                pairs.push((1e-3 + i as f32 * 0.2, -16.0 + j as f32 * 0.125));
            }
        }
        for _ in 0..1 << 18 {
            // any positive x, y with y·log2(x) over the whole result range
            let x = f32::from_bits((rng.next() as u32) % 0x7f80_0000 + 1);
            let t = rng.uniform(-160.0, 140.0);
            let lg = (x as f64).log2();
            pairs.push((x, if lg == 0.0 { t } else { t / lg } as f32));
            // x within 2^16 ulps of 1 and huge |y|
            let d = (rng.next() % (1 << 17)) as i32 - (1 << 16);
            let x = f32::from_bits((0x3f80_0000 + d) as u32);
            let y = rng.uniform(-1.0, 1.0) * 2f64.powf(rng.uniform(0.0, 24.0));
            pairs.push((x, y as f32));
            // negative x, integer y
            let x = -(rng.uniform(0.0, 8.0) as f32);
            pairs.push((x, (rng.uniform(-40.0, 40.0) as f32).round()));
        }
        let mut worst = (0.0f64, 0.0f32, 0.0f32);
        for (x, y) in pairs {
            let e = pow_error_within(x, y, BOUND);
            if e > worst.0 {
                worst = (e, x, y);
            }
        }
        eprintln!(
            "pow max {:.4} ulp at ({:e}, {:e})",
            worst.0, worst.1, worst.2
        );
    }

    /// An integer exponent up to 64 (`pow_by_squaring`) gives the
    /// correctly rounded power but where the exact value lies within 2^-49
    /// of a midpoint: within 0.5001 ulp, for bases over every binade, both
    /// signs, results down to the subnormals and up to the overflow; the
    /// row function gives the same bits in rows of squared, other and
    /// mixed exponents.
    #[test]
    fn pow_of_an_integer_exponent_is_within_half_an_ulp() {
        let mut rng = Rng(0x5eed_0000_0064_0001);
        let mut worst = 0.0f64;
        for n in -64i32..=64 {
            for _ in 0..2048 {
                let x = f32::from_bits(rng.next() as u32 & 0xff7f_ffff);
                worst = worst.max(pow_error_within(x, n as f32, 0.5001));
            }
        }
        assert!(worst > 0.45, "the sample reaches the rounding's bound");
        for row in 0..64 {
            let x: [u32; 16] = std::array::from_fn(|_| rng.next() as u32);
            let y: [u32; 16] = std::array::from_fn(|l| {
                match row % 3 {
                    0 => (rng.next() % 129) as f32 - 64.0,
                    1 => rng.uniform(-70.0, 70.0) as f32,
                    _ if l % 2 == 0 => (rng.next() % 9) as f32,
                    _ => rng.uniform(0.0, 3.0) as f32,
                }
                .to_bits()
            });
            let mut out = [0u32; 16];
            pow_lanes(&x, &y, &mut out);
            for l in 0..16 {
                let want = pow_f32(f32::from_bits(x[l]), f32::from_bits(y[l])).to_bits();
                assert_eq!(out[l], want, "row {row} lane {l}");
            }
        }
    }

    #[test]
    fn special_values() {
        assert_eq!(sin_f32(0.0).to_bits(), 0);
        assert_eq!(sin_f32(-0.0).to_bits(), 0x8000_0000);
        assert_eq!(sin_f32(f32::INFINITY).to_bits(), INVALID_NAN);
        assert_eq!(cos_f32(f32::NEG_INFINITY).to_bits(), INVALID_NAN);
        assert_eq!(sin_f32(f32::from_bits(0x7f80_0001)).to_bits(), 0x7fc0_0001);
        assert_eq!(cos_f32(f32::from_bits(0xffa0_0000)).to_bits(), 0xffe0_0000);
        assert_eq!(cos_f32(0.0), 1.0);
        assert_eq!(cos_f32(-0.0), 1.0);
        // tiny and subnormal arguments: sin(x) = x, cos(x) = 1
        for b in [1u32, 0x0000_0100, 0x007f_ffff, 0x0080_0000, 0x3000_0000] {
            let x = f32::from_bits(b);
            assert_eq!(sin_f32(x), x);
            assert_eq!(sin_f32(-x), -x);
            assert_eq!(cos_f32(x), 1.0);
        }
        assert_eq!(ex2_f32(f32::NEG_INFINITY).to_bits(), 0);
        assert_eq!(ex2_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(ex2_f32(128.0), f32::INFINITY);
        assert_eq!(ex2_f32(-0.0), 1.0);
        assert_eq!(ex2_f32(-150.0).to_bits(), 0);
        assert_eq!(ex2_f32(f32::from_bits(0x8000_0001)), 1.0);
        assert_eq!(lg2_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(lg2_f32(-0.0), f32::NEG_INFINITY);
        assert_eq!(lg2_f32(-1.0).to_bits(), INVALID_NAN);
        assert_eq!(lg2_f32(f32::NEG_INFINITY).to_bits(), INVALID_NAN);
        assert_eq!(lg2_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(lg2_f32(1.0).to_bits(), 0);
        assert_eq!(lg2_f32(f32::from_bits(1)), -149.0);
        assert_eq!(lg2_f32(f32::MAX), 128.0);
        assert_eq!(pow_f32(f32::NAN, 0.0), 1.0);
        assert_eq!(pow_f32(1.0, f32::NAN), 1.0);
        assert_eq!(pow_f32(-8.0, 1.0 / 3.0).to_bits(), INVALID_NAN);
        assert_eq!(pow_f32(-2.0, 3.0), -8.0);
        assert_eq!(pow_f32(0.0, -1.0), f32::INFINITY);
        assert_eq!(pow_f32(0.0, 0.0), 1.0);
        assert_eq!(pow_f32(2.0, 0.5), std::f32::consts::SQRT_2);
    }

    /// `ours` against the f64 `libm` function: for every pair whose result
    /// is NaN, infinite or zero, exactly the bits `libm`'s f32 function
    /// gives (a signalling NaN input comes back quiet); otherwise within
    /// [`BOUND`] ulps of the f64 value.
    fn agrees_with_libm(
        x: &[f32],
        y: &[f32],
        ours: &dyn Fn(f32, f32) -> f32,
        theirs: &dyn Fn(f32, f32) -> f32,
        exact: &dyn Fn(f64, f64) -> f64,
    ) {
        for &a in x {
            for &b in y {
                let (o, t) = (ours(a, b), theirs(a, b));
                let want = exact(a as f64, b as f64);
                if t.is_nan() || t.is_infinite() || t == 0.0 || !want.is_finite() || want == 0.0 {
                    let quieted = if t.is_nan() {
                        t.to_bits() | 0x0040_0000
                    } else {
                        t.to_bits()
                    };
                    assert_eq!(
                        o.to_bits(),
                        quieted,
                        "({a:e} [{:#x}], {b:e}): ours {o:e}, libm {t:e}",
                        a.to_bits()
                    );
                } else {
                    let e = ulp_error(o, want);
                    assert!(
                        e <= BOUND,
                        "({a:e}, {b:e}): ours {o:e}, exact {want:e}: {e} ulp"
                    );
                }
            }
        }
    }

    #[test]
    fn ex2_lg2_pow_agree_with_libm_on_special_and_random_inputs() {
        let mut rng = Rng(0xabcd_ef01_2345_6789);
        let mut xs: Vec<f32> = SPECIALS.iter().map(|&b| f32::from_bits(b)).collect();
        xs.extend((0..50_000).map(|_| f32::from_bits(rng.next() as u32)));
        xs.extend((0..50_000).map(|_| rng.uniform(-160.0, 160.0) as f32));
        agrees_with_libm(
            &xs,
            &[0.0],
            &|x, _| ex2_f32(x),
            &|x, _| libm::exp2f(x),
            &|x, _| libm::exp2(x),
        );
        agrees_with_libm(
            &xs,
            &[0.0],
            &|x, _| lg2_f32(x),
            &|x, _| libm::log2f(x),
            &|x, _| libm::log2(x),
        );
        // pow over every pair of specials and small integers, and random pairs
        let mut ps: Vec<f32> = SPECIALS.iter().map(|&b| f32::from_bits(b)).collect();
        ps.extend([
            -3.0,
            -2.0,
            -1.5,
            -0.5,
            0.5,
            1.5,
            2.5,
            3.0,
            16_777_217.0,
            -8_388_609.0,
        ]);
        agrees_with_libm(&ps, &ps, &pow_f32, &libm::powf, &libm::pow);
        let xs: Vec<f32> = (0..300)
            .map(|_| f32::from_bits(rng.next() as u32))
            .collect();
        let ys: Vec<f32> = (0..300)
            .map(|i| {
                if i % 2 == 0 {
                    f32::from_bits(rng.next() as u32)
                } else {
                    (rng.uniform(-40.0, 40.0) as f32).round() * if i % 4 == 1 { 1.0 } else { 0.5 }
                }
            })
            .collect();
        agrees_with_libm(&xs, &ys, &pow_f32, &libm::powf, &libm::pow);
    }

    #[test]
    fn transcendentals_quiet_signalling_nans() {
        for f in [ex2_f32, lg2_f32, sin_f32, cos_f32] {
            assert_eq!(f(f32::from_bits(0x7f80_0001)).to_bits(), 0x7fc0_0001);
            assert_eq!(f(f32::from_bits(0xffa0_0000)).to_bits(), 0xffe0_0000);
            assert_eq!(f(f32::from_bits(0x7fc0_0000)).to_bits(), 0x7fc0_0000);
        }
        assert_eq!(
            pow_f32(f32::from_bits(0x7f80_0001), 2.0).to_bits(),
            0x7fc0_0001
        );
        assert_eq!(
            pow_f32(2.0, f32::from_bits(0x7f80_0002)).to_bits(),
            0x7fc0_0002
        );
        // the exceptions to NaN propagation
        assert_eq!(pow_f32(f32::from_bits(0x7f80_0001), 0.0), 1.0);
        assert_eq!(pow_f32(1.0, f32::from_bits(0x7f80_0001)), 1.0);
        assert_eq!(pow_f32(-1.0, f32::NEG_INFINITY), 1.0);
        assert!(pow_f32(-1.0, 0.5).is_nan());
        assert_eq!(pow_f32(-0.0, 3.0).to_bits(), 0x8000_0000);
        assert_eq!(pow_f32(-0.0, -3.0), f32::NEG_INFINITY);
        assert_eq!(pow_f32(-0.0, 0.5).to_bits(), 0);
        assert_eq!(pow_f32(f32::NEG_INFINITY, 3.0), f32::NEG_INFINITY);
        assert_eq!(pow_f32(f32::NEG_INFINITY, 0.5), f32::INFINITY);
        assert_eq!(pow_f32(f32::NEG_INFINITY, -3.0).to_bits(), 0x8000_0000);
    }

    #[test]
    fn exact_powers_and_logs_of_two() {
        for n in -149..=127 {
            let p = 2f64.powi(n) as f32;
            assert_eq!(ex2_f32(n as f32), p, "2^{n}");
            assert_eq!(lg2_f32(p), n as f32, "log2(2^{n})");
        }
    }

    #[test]
    fn many_rows_in_one_call_match_the_row_functions() {
        let mut rng = Rng(0x2718_2818_2845_9045);
        let rows: Vec<[u32; 16]> = (0..257)
            .map(|i| {
                std::array::from_fn(|_| match i % 3 {
                    0 => rng.next() as u32,
                    1 => (rng.uniform(-1100.0, 1100.0) as f32).to_bits(),
                    _ => (rng.uniform(-8.0, 8.0) as f32).to_bits(),
                })
            })
            .collect();
        let (mut s, mut c) = (vec![[0u32; 16]; 257], vec![[0u32; 16]; 257]);
        sin_rows(&rows, &mut s);
        cos_rows(&rows, &mut c);
        let mut one = [0u32; 16];
        for (i, x) in rows.iter().enumerate() {
            sin_lanes(x, &mut one);
            assert_eq!(s[i], one, "sin row {i}");
            cos_lanes(x, &mut one);
            assert_eq!(c[i], one, "cos row {i}");
        }
    }

    #[test]
    fn row_functions_match_the_scalar_definitions() {
        let mut rng = Rng(0x3141_5926_5358_9793);
        let (mut e, mut l, mut p) = ([0u32; 16], [0u32; 16], [0u32; 16]);
        for round in 0..20_000 {
            // rounds of raw bit patterns (every special class, so the rows
            // are redone by the definitions) and rounds of ordinary operands
            // (the short forms alone), a few of them with one special lane
            let raw = round % 2 == 0;
            let mut x: [u32; 16] = std::array::from_fn(|_| {
                if raw {
                    rng.next() as u32
                } else {
                    let m = 2f64.powf(rng.uniform(-126.0, 127.0));
                    ((rng.uniform(0.5, 1.0) * m) as f32).to_bits()
                }
            });
            let y: [u32; 16] = std::array::from_fn(|_| {
                if raw {
                    rng.next() as u32
                } else {
                    (rng.uniform(-30.0, 30.0) as f32).to_bits()
                }
            });
            // EX2's ordinary operands: round(x) in [-125, 127]
            let mut xe: [u32; 16] =
                std::array::from_fn(|_| (rng.uniform(-125.4, 127.4) as f32).to_bits());
            if raw {
                xe = x;
            }
            if round % 7 == 1 {
                x[round % 16] = SPECIALS[round % SPECIALS.len()];
                xe[round % 16] = (-126.0f32).to_bits();
            }
            ex2_lanes(&xe, &mut e);
            lg2_lanes(&x, &mut l);
            pow_lanes(&x, &y, &mut p);
            for i in 0..16 {
                let (a, b) = (f32::from_bits(x[i]), f32::from_bits(y[i]));
                let ae = f32::from_bits(xe[i]);
                assert_eq!(e[i], ex2_f32(ae).to_bits(), "ex2 {ae:e}");
                assert_eq!(l[i], lg2_f32(a).to_bits(), "lg2 {a:e}");
                assert_eq!(p[i], pow_f32(a, b).to_bits(), "pow {a:e} {b:e}");
            }
        }
    }

    /// Rows whose zero bases stay on POW's short form (+0 with y ≠ 0, as a
    /// clamped `max(N·H, 0)` gives) and rows that leave it (−0, or 0^0),
    /// lane by lane against the definition.
    #[test]
    fn pow_rows_with_zero_bases() {
        let ys = [2.0f32, 0.5, -3.0, 1e-30, -1e30, 127.0, 0.0, -0.0];
        for (k, zero) in [0.0f32, -0.0].into_iter().enumerate() {
            for (j, &y0) in ys.iter().enumerate() {
                let x: [u32; 16] = std::array::from_fn(|i| {
                    if i % 3 == j % 3 {
                        zero
                    } else {
                        0.25 + i as f32
                    }
                    .to_bits()
                });
                let y: [u32; 16] =
                    std::array::from_fn(|i| if i % 2 == k { y0 } else { ys[i % 6] }.to_bits());
                let mut p = [0u32; 16];
                pow_lanes(&x, &y, &mut p);
                for i in 0..16 {
                    let (a, b) = (f32::from_bits(x[i]), f32::from_bits(y[i]));
                    assert_eq!(p[i], pow_f32(a, b).to_bits(), "pow {a:e} {b:e}");
                }
            }
        }
    }
}
