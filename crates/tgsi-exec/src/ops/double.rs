//! 64-bit float operations on channel pairs, and the conversions between
//! doubles and 32-bit values.

use super::*;

// ---------------------------------------------------------------------------
// doubles

ruled_ops! {
    /// DADD.
    dadd / dadd_with(a: u64, b: u64) -> u64 {
        add_f64::<R>(db(a), db(b)).to_bits()
    }
    /// DMUL.
    dmul / dmul_with(a: u64, b: u64) -> u64 {
        mul_f64::<R>(db(a), db(b)).to_bits()
    }
    /// DDIV.
    ddiv / ddiv_with(a: u64, b: u64) -> u64 {
        div_f64::<R>(db(a), db(b)).to_bits()
    }
}

/// As [`max`]: NaN loses, `max(-0, +0) = +0`.
#[inline]
pub fn dmax(a: u64, b: u64) -> u64 {
    max_f64(db(a), db(b)).to_bits()
}

/// As [`min`]: NaN loses, `min(-0, +0) = -0`.
#[inline]
pub fn dmin(a: u64, b: u64) -> u64 {
    min_f64(db(a), db(b)).to_bits()
}

ruled_ops! {
    /// DMAD: `a*b + c` with two roundings.
    dmad / dmad_with(a: u64, b: u64, c: u64) -> u64 {
        add_f64::<R>(mul_f64::<R>(db(a), db(b)), db(c)).to_bits()
    }
    /// DFMA: fused, one rounding.
    dfma / dfma_with(a: u64, b: u64, c: u64) -> u64 {
        let (a, b, c) = (db(a), db(b), db(c));
        R::f64(a.mul_add(b, c), [a, b, c]).to_bits()
    }
}

/// DABS: clears the sign bit (-0 → +0, NaN keeps its payload).
#[inline]
pub fn dabs(a: u64) -> u64 {
    a & !(1 << 63)
}

/// DNEG: flips the sign bit.
#[inline]
pub fn dneg(a: u64) -> u64 {
    a ^ (1 << 63)
}

ruled_ops! {
    /// DRCP: `1/x`.
    drcp / drcp_with(a: u64) -> u64 {
        div_f64::<R>(1.0, db(a)).to_bits()
    }
    /// DSQRT.
    dsqrt / dsqrt_with(a: u64) -> u64 {
        let x = db(a);
        R::f64(x.sqrt(), [x]).to_bits()
    }
    /// DRSQ: `1/sqrt(x)`: +0 → +inf, -0 → -inf, negative → NaN.
    drsq / drsq_with(a: u64) -> u64 {
        let x = db(a);
        div_f64::<R>(1.0, R::f64(x.sqrt(), [x])).to_bits()
    }
    /// DFRAC: `x - floor(x)`.
    dfrac / dfrac_with(a: u64) -> u64 {
        let x = db(a);
        R::f64(x - floor_f64(x), [x]).to_bits()
    }
}

#[inline]
pub fn dflr(a: u64) -> u64 {
    floor_f64(db(a)).to_bits()
}

#[inline]
pub fn dtrunc(a: u64) -> u64 {
    trunc_f64(db(a)).to_bits()
}

#[inline]
pub fn dceil(a: u64) -> u64 {
    ceil_f64(db(a)).to_bits()
}

/// DROUND: nearest, ties to even.
#[inline]
pub fn dround(a: u64) -> u64 {
    round_even_f64(db(a)).to_bits()
}

/// DSSG: 1.0, -1.0 or 0.0 (+0.0 for ±0 and NaN).
#[inline]
pub fn dssg(a: u64) -> u64 {
    let x = db(a);
    if x > 0.0 {
        F64_ONE
    } else if x < 0.0 {
        F64_MINUS_ONE
    } else {
        0
    }
}

#[inline]
pub fn dslt(a: u64, b: u64) -> u32 {
    mask_bool(db(a) < db(b))
}

#[inline]
pub fn dsge(a: u64, b: u64) -> u32 {
    mask_bool(db(a) >= db(b))
}

#[inline]
pub fn dseq(a: u64, b: u64) -> u32 {
    mask_bool(db(a) == db(b))
}

/// Unordered: true with a NaN operand.
#[inline]
pub fn dsne(a: u64, b: u64) -> u32 {
    mask_bool(db(a) != db(b))
}

/// DLDEXP: `a * 2^exp` (exp a signed integer), correctly rounded.
#[inline]
pub fn dldexp(a: u64, exp: u32) -> u64 {
    if db(a).is_nan() {
        return a | 0x0008_0000_0000_0000;
    }
    libm::scalbn(db(a), exp as i32).to_bits()
}

/// DFRACEXP: `(significand, exponent)` with the significand in [0.5, 1) carrying
/// the input's sign and `sig * 2^exp == x`; ±0 → (±0, 0); inf/NaN → (same, 0).
#[inline]
pub fn dfracexp(a: u64) -> (u64, u32) {
    let x = db(a);
    if x == 0.0 || !x.is_finite() {
        return (a, 0);
    }
    let (sig, exp) = libm::frexp(x);
    (sig.to_bits(), exp as u32)
}

/// F2D: exact; a NaN keeps its sign and payload and becomes quiet.
#[inline]
pub fn f2d(a: u32) -> u64 {
    if fl(a).is_nan() {
        // quiet, sign and payload kept (the payload's top bits stay on top)
        return ((a & 0x8000_0000) as u64) << 32
            | 0x7ff8_0000_0000_0000
            | ((a & 0x007f_ffff) as u64) << 29;
    }
    (fl(a) as f64).to_bits()
}

/// I2D: exact.
#[inline]
pub fn i2d(a: u32) -> u64 {
    (a as i32 as f64).to_bits()
}

/// U2D: exact.
#[inline]
pub fn u2d(a: u32) -> u64 {
    (a as f64).to_bits()
}

/// D2F: round to nearest even; overflow → ±inf; a NaN keeps its sign and
/// the top of its payload and becomes quiet.
#[inline]
pub fn d2f(a: u64) -> u32 {
    if db(a).is_nan() {
        // quiet, sign and the payload's top 22 bits kept
        return ((a >> 32) as u32 & 0x8000_0000) | 0x7fc0_0000 | ((a >> 29) as u32 & 0x003f_ffff);
    }
    (db(a) as f32).to_bits()
}

/// D2I: truncate, NaN → 0, saturating.
#[inline]
pub fn d2i(a: u64) -> u32 {
    db(a) as i32 as u32
}

/// D2U: truncate, NaN → 0, saturating (negative → 0).
#[inline]
pub fn d2u(a: u64) -> u32 {
    db(a) as u32
}
