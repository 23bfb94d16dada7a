//! 32-bit float operations: per component, replicated scalars (RCP,
//! RSQ, SQRT, the transcendentals, dot products) and the per-channel
//! specials LIT, EXP, LOG and DST.

use super::*;

// ---------------------------------------------------------------------------
// 32-bit float ALU (component-wise)

/// ARL: `(int)floor(x)`, saturating to `i32`, NaN → 0.
#[inline]
pub fn arl(a: u32) -> u32 {
    floor_f32(fl(a)) as i32 as u32
}

/// ARR: `(int)floor(x + 0.5)` with the addition rounded in f32 (as Mesa),
/// saturating to `i32`, NaN → 0.
#[inline]
pub fn arr(a: u32) -> u32 {
    floor_f32(fl(a) + 0.5) as i32 as u32
}

/// UARL: the unsigned integer is copied unchanged into the address register.
#[inline]
pub fn uarl(a: u32) -> u32 {
    a
}

ruled_ops! {
    /// MUL.
    mul / mul_with(a: u32, b: u32) -> u32 {
        mul_f32::<R>(fl(a), fl(b)).to_bits()
    }
    /// ADD.
    add / add_with(a: u32, b: u32) -> u32 {
        add_f32::<R>(fl(a), fl(b)).to_bits()
    }
    /// IEEE division: x/0 → ±inf, 0/0 → NaN.
    div / div_with(a: u32, b: u32) -> u32 {
        div_f32::<R>(fl(a), fl(b)).to_bits()
    }
}

/// minNum: a NaN operand yields the other operand; `min(-0, +0) = -0`.
#[inline]
pub fn min(a: u32, b: u32) -> u32 {
    min_f32(fl(a), fl(b)).to_bits()
}

/// maxNum: a NaN operand yields the other operand; `max(-0, +0) = +0`.
#[inline]
pub fn max(a: u32, b: u32) -> u32 {
    max_f32(fl(a), fl(b)).to_bits()
}

#[inline]
pub fn slt(a: u32, b: u32) -> u32 {
    float_bool(fl(a) < fl(b))
}

#[inline]
pub fn sge(a: u32, b: u32) -> u32 {
    float_bool(fl(a) >= fl(b))
}

#[inline]
pub fn seq(a: u32, b: u32) -> u32 {
    float_bool(fl(a) == fl(b))
}

#[inline]
pub fn sgt(a: u32, b: u32) -> u32 {
    float_bool(fl(a) > fl(b))
}

#[inline]
pub fn sle(a: u32, b: u32) -> u32 {
    float_bool(fl(a) <= fl(b))
}

/// Unordered: 1.0 when either operand is NaN.
#[inline]
pub fn sne(a: u32, b: u32) -> u32 {
    float_bool(fl(a) != fl(b))
}

ruled_ops! {
    /// MAD: `a*b + c` with two roundings (never fused).
    mad / mad_with(a: u32, b: u32, c: u32) -> u32 {
        add_f32::<R>(mul_f32::<R>(fl(a), fl(b)), fl(c)).to_bits()
    }
    /// LRP with the spec's formula `s0*s1 + (1 - s0)*s2`, every step rounded.
    lrp / lrp_with(a: u32, b: u32, c: u32) -> u32 {
        let s0 = fl(a);
        add_f32::<R>(mul_f32::<R>(s0, fl(b)), mul_f32::<R>(sub_f32::<R>(1.0, s0), fl(c))).to_bits()
    }
    /// FMA: fused multiply-add, one rounding.
    fma / fma_with(a: u32, b: u32, c: u32) -> u32 {
        let (a, b, c) = (fl(a), fl(b), fl(c));
        R::f32(a.mul_add(b, c), [a, b, c]).to_bits()
    }
    /// FRC: `x - floor(x)`; ±inf → NaN; a tiny negative x gives 1.0.
    frc / frc_with(a: u32) -> u32 {
        let x = fl(a);
        R::f32(x - floor_f32(x), [x]).to_bits()
    }
}

#[inline]
pub fn flr(a: u32) -> u32 {
    floor_f32(fl(a)).to_bits()
}

/// ROUND: to nearest, ties to even.
#[inline]
pub fn round(a: u32) -> u32 {
    round_even_f32(fl(a)).to_bits()
}

#[inline]
pub fn trunc(a: u32) -> u32 {
    trunc_f32(fl(a)).to_bits()
}

#[inline]
pub fn ceil(a: u32) -> u32 {
    ceil_f32(fl(a)).to_bits()
}

/// CMP: `a < 0.0 ? b : c` (bit copies; NaN and -0.0 select `c`).
#[inline]
pub fn cmp(a: u32, b: u32, c: u32) -> u32 {
    if fl(a) < 0.0 { b } else { c }
}

/// SSG: 1.0, -1.0 or 0.0 (+0.0 for ±0 and NaN).
#[inline]
pub fn ssg(a: u32) -> u32 {
    let x = fl(a);
    if x > 0.0 {
        F32_ONE
    } else if x < 0.0 {
        F32_MINUS_ONE
    } else {
        0
    }
}

/// LDEXP: `a * 2^b` with `b` a signed integer, correctly rounded (one rounding
/// even when the result is subnormal).
#[inline]
pub fn ldexp(a: u32, b: u32) -> u32 {
    ldexp_f32(fl(a), b as i32).to_bits()
}

#[inline]
pub fn fseq(a: u32, b: u32) -> u32 {
    mask_bool(fl(a) == fl(b))
}

#[inline]
pub fn fsge(a: u32, b: u32) -> u32 {
    mask_bool(fl(a) >= fl(b))
}

#[inline]
pub fn fslt(a: u32, b: u32) -> u32 {
    mask_bool(fl(a) < fl(b))
}

/// Unordered: true when either operand is NaN.
#[inline]
pub fn fsne(a: u32, b: u32) -> u32 {
    mask_bool(fl(a) != fl(b))
}

// ---------------------------------------------------------------------------
// scalar (replicated) ops

ruled_ops! {
    /// RCP: `1/x` (±0 → ±inf).
    rcp / rcp_with(a: u32) -> u32 {
        div_f32::<R>(1.0, fl(a)).to_bits()
    }
    /// RSQ: `1/sqrt(x)`, two roundings, no abs: negative → NaN, ±0 → ±inf.
    rsq / rsq_with(a: u32) -> u32 {
        let x = fl(a);
        div_f32::<R>(1.0, R::f32(x.sqrt(), [x])).to_bits()
    }
    /// SQRT: correctly rounded; negative → NaN, -0 → -0.
    sqrt / sqrt_with(a: u32) -> u32 {
        let x = fl(a);
        R::f32(x.sqrt(), [x]).to_bits()
    }
}

/// EX2: `2^x` ([`math::ex2_f32`]).
#[inline]
pub fn ex2(a: u32) -> u32 {
    math::ex2_f32(fl(a)).to_bits()
}

/// LG2: `log2(x)` ([`math::lg2_f32`]).
#[inline]
pub fn lg2(a: u32) -> u32 {
    math::lg2_f32(fl(a)).to_bits()
}

#[inline]
pub fn sin(a: u32) -> u32 {
    math::sin_f32(fl(a)).to_bits()
}

#[inline]
pub fn cos(a: u32) -> u32 {
    math::cos_f32(fl(a)).to_bits()
}

/// POW: `a^b` with C99 `pow` special cases ([`math::pow_f32`]).
#[inline]
pub fn pow(a: u32, b: u32) -> u32 {
    math::pow_f32(fl(a), fl(b)).to_bits()
}

/// DP2: `x0*x1`, then `+ y0*y1`; every product and sum rounded (unfused).
#[inline]
pub fn dp2(a: [u32; 4], b: [u32; 4]) -> u32 {
    add_f32::<Ruled>(
        mul_f32::<Ruled>(fl(a[0]), fl(b[0])),
        mul_f32::<Ruled>(fl(a[1]), fl(b[1])),
    )
    .to_bits()
}

/// DP3: as [`dp2`] in order x, y, z.
#[inline]
pub fn dp3(a: [u32; 4], b: [u32; 4]) -> u32 {
    let mut s = mul_f32::<Ruled>(fl(a[0]), fl(b[0]));
    s = add_f32::<Ruled>(s, mul_f32::<Ruled>(fl(a[1]), fl(b[1])));
    s = add_f32::<Ruled>(s, mul_f32::<Ruled>(fl(a[2]), fl(b[2])));
    s.to_bits()
}

/// DP4: as [`dp2`] in order x, y, z, w.
#[inline]
pub fn dp4(a: [u32; 4], b: [u32; 4]) -> u32 {
    let mut s = mul_f32::<Ruled>(fl(a[0]), fl(b[0]));
    s = add_f32::<Ruled>(s, mul_f32::<Ruled>(fl(a[1]), fl(b[1])));
    s = add_f32::<Ruled>(s, mul_f32::<Ruled>(fl(a[2]), fl(b[2])));
    s = add_f32::<Ruled>(s, mul_f32::<Ruled>(fl(a[3]), fl(b[3])));
    s.to_bits()
}

// ---------------------------------------------------------------------------
// per-channel specials

/// LIT clamps its exponent (s.w) to ±this.
pub const LIT_EXPONENT_LIMIT: f32 = 128.0;

/// LIT: x = 1; y = max(s.x, 0); z = s.x > 0 ? pow(max(s.y, 0), clamp(s.w, -128, 128)) : 0; w = 1.
/// `max`/`clamp` use the MIN/MAX NaN rule, clamping with `min` first as Mesa does
/// (a NaN s.y counts as 0, a NaN s.w as 128).
#[inline]
pub fn lit(a: [u32; 4]) -> [u32; 4] {
    let x = fl(a[0]);
    let y = max_f32(x, 0.0);
    let z = if x > 0.0 {
        let base = max_f32(fl(a[1]), 0.0);
        let exponent = max_f32(min_f32(fl(a[3]), LIT_EXPONENT_LIMIT), -LIT_EXPONENT_LIMIT);
        math::pow_f32(base, exponent)
    } else {
        0.0
    };
    [F32_ONE, y.to_bits(), z.to_bits(), F32_ONE]
}

/// EXP: x = 2^floor(s.x); y = s.x - floor(s.x); z = 2^s.x; w = 1.
#[inline]
pub fn exp(a: [u32; 4]) -> [u32; 4] {
    let s = fl(a[0]);
    let f = floor_f32(s);
    [
        math::ex2_f32(f).to_bits(),
        (s - f).to_bits(),
        math::ex2_f32(s).to_bits(),
        F32_ONE,
    ]
}

/// LOG: t = |s.x|; z = log2(t); x = floor(z); y = t / 2^x; w = 1.
#[inline]
pub fn log(a: [u32; 4]) -> [u32; 4] {
    let t = fl(a[0]).abs();
    let z = math::lg2_f32(t);
    let x = floor_f32(z);
    let y = div_f32::<Ruled>(t, math::ex2_f32(x));
    [x.to_bits(), y.to_bits(), z.to_bits(), F32_ONE]
}

/// DST: x = 1; y = s0.y * s1.y; z = s0.z; w = s1.w.
#[inline]
pub fn dst(a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
    [
        F32_ONE,
        mul_f32::<Ruled>(fl(a[1]), fl(b[1])).to_bits(),
        a[2],
        b[3],
    ]
}
