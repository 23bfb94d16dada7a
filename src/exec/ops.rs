//! The per-opcode semantic functions of the machine: small pure scalar
//! functions on raw 32-bit (or 64-bit pair) bit patterns, applied lane by lane.
//!
//! Every function here is total (no panics, no allocation) and deterministic
//! on every host; the machine, constant folding in the validator and any later
//! wide kernel share them. The numeric rules and every place where they differ
//! from Mesa's `tgsi_exec` are written down in `docs/numerics.md`.
//!
//! Naming: the lowercase opcode name (`add`, `imul_hi`, `u64shl`, …); `MOD`
//! is [`mod_signed`] because `mod` is a keyword.

use super::math;
use crate::opcode::{Opcode, OperandType};

// ---------------------------------------------------------------------------
// bit helpers

#[inline(always)]
fn fl(bits: u32) -> f32 {
    f32::from_bits(bits)
}

#[inline(always)]
fn db(bits: u64) -> f64 {
    f64::from_bits(bits)
}

/// 1.0 as f32 bits.
const F32_ONE: u32 = 0x3f80_0000;
/// -1.0 as f32 bits.
const F32_MINUS_ONE: u32 = 0xbf80_0000;
/// 1.0 as f64 bits.
const F64_ONE: u64 = 0x3ff0_0000_0000_0000;
/// -1.0 as f64 bits.
const F64_MINUS_ONE: u64 = 0xbff0_0000_0000_0000;

/// Float boolean of the SLT family: 1.0 or 0.0.
#[inline(always)]
fn float_bool(c: bool) -> u32 {
    if c { F32_ONE } else { 0 }
}

/// Integer boolean: all ones or zero.
#[inline(always)]
fn mask_bool(c: bool) -> u32 {
    if c { !0 } else { 0 }
}

/// IEEE minNum with a deterministic zero rule: one NaN → the other operand,
/// two NaNs → `y`; `min(-0, +0) = -0` in either order.
#[inline(always)]
fn min_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else if x == y {
        // equal non-zero values have equal bits; for ±0 OR keeps the minus sign
        f32::from_bits(x.to_bits() | y.to_bits())
    } else if x < y {
        x
    } else {
        y
    }
}

/// IEEE maxNum; `max(-0, +0) = +0` in either order (see [`min_f32`]).
#[inline(always)]
fn max_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else if x == y {
        f32::from_bits(x.to_bits() & y.to_bits())
    } else if x > y {
        x
    } else {
        y
    }
}

#[inline(always)]
fn min_f64(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else if x == y {
        f64::from_bits(x.to_bits() | y.to_bits())
    } else if x < y {
        x
    } else {
        y
    }
}

#[inline(always)]
fn max_f64(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else if x == y {
        f64::from_bits(x.to_bits() & y.to_bits())
    } else if x > y {
        x
    } else {
        y
    }
}

/// `x * 2^n` for f32 with a single rounding: the product is exact in f64
/// (an f32 times a power of two within ±300 stays a normal f64), and the one
/// rounding happens in the narrowing.
#[inline(always)]
fn ldexp_f32(x: f32, n: i32) -> f32 {
    let n = n.clamp(-300, 300);
    let scale = f64::from_bits(((1023 + n) as u64) << 52);
    (x as f64 * scale) as f32
}

// ---------------------------------------------------------------------------
// 32-bit float ALU (component-wise)

/// ARL: `(int)floor(x)`, saturating to `i32`, NaN → 0.
#[inline]
pub fn arl(a: u32) -> u32 {
    fl(a).floor() as i32 as u32
}

/// ARR: `(int)floor(x + 0.5)` with the addition rounded in f32 (as Mesa),
/// saturating to `i32`, NaN → 0.
#[inline]
pub fn arr(a: u32) -> u32 {
    (fl(a) + 0.5).floor() as i32 as u32
}

/// UARL: the unsigned integer is copied unchanged into the address register.
#[inline]
pub fn uarl(a: u32) -> u32 {
    a
}

#[inline]
pub fn mul(a: u32, b: u32) -> u32 {
    (fl(a) * fl(b)).to_bits()
}

#[inline]
pub fn add(a: u32, b: u32) -> u32 {
    (fl(a) + fl(b)).to_bits()
}

/// IEEE division: x/0 → ±inf, 0/0 → NaN.
#[inline]
pub fn div(a: u32, b: u32) -> u32 {
    (fl(a) / fl(b)).to_bits()
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

/// MAD: `a*b + c` with two roundings (never fused).
#[inline]
pub fn mad(a: u32, b: u32, c: u32) -> u32 {
    (fl(a) * fl(b) + fl(c)).to_bits()
}

/// LRP with the spec's formula `s0*s1 + (1 - s0)*s2`, every step rounded.
#[inline]
pub fn lrp(a: u32, b: u32, c: u32) -> u32 {
    let s0 = fl(a);
    (s0 * fl(b) + (1.0 - s0) * fl(c)).to_bits()
}

/// FMA: fused multiply-add, one rounding.
#[inline]
pub fn fma(a: u32, b: u32, c: u32) -> u32 {
    fl(a).mul_add(fl(b), fl(c)).to_bits()
}

/// FRC: `x - floor(x)`; ±inf → NaN; a tiny negative x gives 1.0.
#[inline]
pub fn frc(a: u32) -> u32 {
    let x = fl(a);
    (x - x.floor()).to_bits()
}

#[inline]
pub fn flr(a: u32) -> u32 {
    fl(a).floor().to_bits()
}

/// ROUND: to nearest, ties to even.
#[inline]
pub fn round(a: u32) -> u32 {
    fl(a).round_ties_even().to_bits()
}

#[inline]
pub fn trunc(a: u32) -> u32 {
    fl(a).trunc().to_bits()
}

#[inline]
pub fn ceil(a: u32) -> u32 {
    fl(a).ceil().to_bits()
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
// conversions 32 ↔ 32

/// I2F: signed integer to float, round to nearest even.
#[inline]
pub fn i2f(a: u32) -> u32 {
    (a as i32 as f32).to_bits()
}

/// U2F: unsigned integer to float, round to nearest even.
#[inline]
pub fn u2f(a: u32) -> u32 {
    (a as f32).to_bits()
}

/// F2I: truncate; NaN → 0; out of range clamps to `i32::MIN`/`i32::MAX`.
#[inline]
pub fn f2i(a: u32) -> u32 {
    fl(a) as i32 as u32
}

/// F2U: truncate; NaN → 0; negative → 0; too large → `u32::MAX`.
#[inline]
pub fn f2u(a: u32) -> u32 {
    fl(a) as u32
}

// ---------------------------------------------------------------------------
// 32-bit integer ALU

#[inline]
pub fn not(a: u32) -> u32 {
    !a
}

#[inline]
pub fn and(a: u32, b: u32) -> u32 {
    a & b
}

#[inline]
pub fn or(a: u32, b: u32) -> u32 {
    a | b
}

#[inline]
pub fn xor(a: u32, b: u32) -> u32 {
    a ^ b
}

/// SHL: count masked with 0x1f.
#[inline]
pub fn shl(a: u32, b: u32) -> u32 {
    a << (b & 31)
}

/// ISHR: arithmetic, count masked with 0x1f.
#[inline]
pub fn ishr(a: u32, b: u32) -> u32 {
    ((a as i32) >> (b & 31)) as u32
}

/// USHR: logical, count masked with 0x1f.
#[inline]
pub fn ushr(a: u32, b: u32) -> u32 {
    a >> (b & 31)
}

#[inline]
pub fn uadd(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

#[inline]
pub fn umul(a: u32, b: u32) -> u32 {
    a.wrapping_mul(b)
}

/// UMAD: `low32(a*b) + c`, wrapping.
#[inline]
pub fn umad(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_mul(b).wrapping_add(c)
}

/// High 32 bits of the signed 64-bit product.
#[inline]
pub fn imul_hi(a: u32, b: u32) -> u32 {
    ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
}

/// High 32 bits of the unsigned 64-bit product.
#[inline]
pub fn umul_hi(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}

/// IDIV: truncating; by 0 → 0; `i32::MIN / -1 = i32::MIN`.
#[inline]
pub fn idiv(a: u32, b: u32) -> u32 {
    if b == 0 {
        0
    } else {
        (a as i32).wrapping_div(b as i32) as u32
    }
}

/// UDIV: by 0 → 0xFFFFFFFF.
#[inline]
pub fn udiv(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}

/// UMOD: by 0 → 0xFFFFFFFF.
#[inline]
pub fn umod(a: u32, b: u32) -> u32 {
    a.checked_rem(b).unwrap_or(u32::MAX)
}

/// MOD (signed remainder, sign of the dividend): by 0 → 0xFFFFFFFF (-1);
/// `i32::MIN % -1 = 0`.
#[inline]
pub fn mod_signed(a: u32, b: u32) -> u32 {
    if b == 0 {
        u32::MAX
    } else {
        (a as i32).wrapping_rem(b as i32) as u32
    }
}

#[inline]
pub fn imax(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}

#[inline]
pub fn imin(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}

#[inline]
pub fn umax(a: u32, b: u32) -> u32 {
    a.max(b)
}

#[inline]
pub fn umin(a: u32, b: u32) -> u32 {
    a.min(b)
}

#[inline]
pub fn isge(a: u32, b: u32) -> u32 {
    mask_bool(a as i32 >= b as i32)
}

#[inline]
pub fn islt(a: u32, b: u32) -> u32 {
    mask_bool((a as i32) < b as i32)
}

#[inline]
pub fn useq(a: u32, b: u32) -> u32 {
    mask_bool(a == b)
}

#[inline]
pub fn usge(a: u32, b: u32) -> u32 {
    mask_bool(a >= b)
}

#[inline]
pub fn uslt(a: u32, b: u32) -> u32 {
    mask_bool(a < b)
}

#[inline]
pub fn usne(a: u32, b: u32) -> u32 {
    mask_bool(a != b)
}

/// INEG: wrapping two's-complement negation.
#[inline]
pub fn ineg(a: u32) -> u32 {
    a.wrapping_neg()
}

/// IABS: `i32::MIN` stays `i32::MIN`.
#[inline]
pub fn iabs(a: u32) -> u32 {
    (a as i32).wrapping_abs() as u32
}

/// ISSG: -1, 0 or 1.
#[inline]
pub fn issg(a: u32) -> u32 {
    (a as i32).signum() as u32
}

/// UCMP: `a != 0 ? b : c` (bit copies).
#[inline]
pub fn ucmp(a: u32, b: u32, c: u32) -> u32 {
    if a != 0 { b } else { c }
}

/// IBFE(value, offset, bits): `offset & 31`; `bits == 32 && offset == 0` →
/// value; otherwise `bits & 31`, 0 bits → 0; a field running past bit 31 is
/// `value >> offset` (arithmetic).
#[inline]
pub fn ibfe(a: u32, b: u32, c: u32) -> u32 {
    let offset = b & 31;
    if c == 32 && offset == 0 {
        return a;
    }
    let bits = c & 31;
    if bits == 0 {
        0
    } else if bits + offset < 32 {
        (((a << (32 - bits - offset)) as i32) >> (32 - bits)) as u32
    } else {
        ((a as i32) >> offset) as u32
    }
}

/// UBFE: as [`ibfe`] with logical shifts.
#[inline]
pub fn ubfe(a: u32, b: u32, c: u32) -> u32 {
    let offset = b & 31;
    if c == 32 && offset == 0 {
        return a;
    }
    let bits = c & 31;
    if bits == 0 {
        0
    } else if bits + offset < 32 {
        (a << (32 - bits - offset)) >> (32 - bits)
    } else {
        a >> offset
    }
}

/// BFI(base, insert, offset, bits): `bits == 32` → insert (any offset, as
/// Mesa); otherwise offset and bits are masked with 31 and
/// `mask = ((1 << bits) - 1) << offset` (bits shifted out at the top are lost).
#[inline]
pub fn bfi(a: u32, b: u32, c: u32, d: u32) -> u32 {
    if d == 32 {
        return b;
    }
    let offset = c & 31;
    let bits = d & 31;
    let mask = ((1u32 << bits) - 1) << offset;
    ((b << offset) & mask) | (a & !mask)
}

#[inline]
pub fn brev(a: u32) -> u32 {
    a.reverse_bits()
}

#[inline]
pub fn popc(a: u32) -> u32 {
    a.count_ones()
}

/// Index of the lowest set bit; 0 → 0xFFFFFFFF.
#[inline]
pub fn lsb(a: u32) -> u32 {
    if a == 0 { u32::MAX } else { a.trailing_zeros() }
}

/// Index of the highest bit that differs from the sign bit; 0 and -1 →
/// 0xFFFFFFFF.
#[inline]
pub fn imsb(a: u32) -> u32 {
    let v = if (a as i32) < 0 { !a } else { a };
    umsb(v)
}

/// Index of the highest set bit; 0 → 0xFFFFFFFF.
#[inline]
pub fn umsb(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        31 - a.leading_zeros()
    }
}

// ---------------------------------------------------------------------------
// scalar (replicated) ops

/// RCP: `1/x` (±0 → ±inf).
#[inline]
pub fn rcp(a: u32) -> u32 {
    (1.0 / fl(a)).to_bits()
}

/// RSQ: `1/sqrt(x)`, two roundings, no abs: negative → NaN, ±0 → ±inf.
#[inline]
pub fn rsq(a: u32) -> u32 {
    (1.0 / fl(a).sqrt()).to_bits()
}

/// SQRT: correctly rounded; negative → NaN, -0 → -0.
#[inline]
pub fn sqrt(a: u32) -> u32 {
    fl(a).sqrt().to_bits()
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
    (fl(a[0]) * fl(b[0]) + fl(a[1]) * fl(b[1])).to_bits()
}

/// DP3: as [`dp2`] in order x, y, z.
#[inline]
pub fn dp3(a: [u32; 4], b: [u32; 4]) -> u32 {
    let mut s = fl(a[0]) * fl(b[0]);
    s += fl(a[1]) * fl(b[1]);
    s += fl(a[2]) * fl(b[2]);
    s.to_bits()
}

/// DP4: as [`dp2`] in order x, y, z, w.
#[inline]
pub fn dp4(a: [u32; 4], b: [u32; 4]) -> u32 {
    let mut s = fl(a[0]) * fl(b[0]);
    s += fl(a[1]) * fl(b[1]);
    s += fl(a[2]) * fl(b[2]);
    s += fl(a[3]) * fl(b[3]);
    s.to_bits()
}

/// f32 → IEEE binary16 bits, round to nearest even, overflow → ±inf, NaN stays NaN.
#[inline(always)]
fn f32_to_half(bits: u32) -> u32 {
    half::f16::from_f32(fl(bits)).to_bits() as u32
}

/// f32 → unorm with `max` = 2^n - 1: NaN → 0, clamp to [0, 1], scale, round
/// to nearest even (the product is exact in f64, so there is one rounding).
#[inline(always)]
fn f32_to_unorm(bits: u32, max: f64) -> u32 {
    let x = fl(bits) as f64;
    if x.is_nan() {
        return 0;
    }
    (x.clamp(0.0, 1.0) * max).round_ties_even() as u32
}

/// f32 → snorm8 byte: NaN → 0, clamp to [-1, 1], `* 127`, round to nearest even.
#[inline(always)]
fn f32_to_snorm8(bits: u32) -> u32 {
    let x = fl(bits) as f64;
    if x.is_nan() {
        return 0;
    }
    ((x.clamp(-1.0, 1.0) * 127.0).round_ties_even() as i32 as u32) & 0xff
}

/// PK2H: `half(x) | half(y) << 16`.
#[inline]
pub fn pk2h(a: [u32; 4]) -> u32 {
    f32_to_half(a[0]) | f32_to_half(a[1]) << 16
}

/// PK2US: `unorm16(x) | unorm16(y) << 16`.
#[inline]
pub fn pk2us(a: [u32; 4]) -> u32 {
    f32_to_unorm(a[0], 65535.0) | f32_to_unorm(a[1], 65535.0) << 16
}

/// PK4B: four snorm8 bytes, x in the low byte.
#[inline]
pub fn pk4b(a: [u32; 4]) -> u32 {
    f32_to_snorm8(a[0])
        | f32_to_snorm8(a[1]) << 8
        | f32_to_snorm8(a[2]) << 16
        | f32_to_snorm8(a[3]) << 24
}

/// PK4UB: four unorm8 bytes, x in the low byte.
#[inline]
pub fn pk4ub(a: [u32; 4]) -> u32 {
    f32_to_unorm(a[0], 255.0)
        | f32_to_unorm(a[1], 255.0) << 8
        | f32_to_unorm(a[2], 255.0) << 16
        | f32_to_unorm(a[3], 255.0) << 24
}

// ---------------------------------------------------------------------------
// per-channel specials

/// LIT: x = 1; y = max(s.x, 0); z = s.x > 0 ? pow(max(s.y, 0), clamp(s.w, -128, 128)) : 0; w = 1.
/// `max`/`clamp` use the MIN/MAX NaN rule (a NaN s.y counts as 0, a NaN s.w as -128).
#[inline]
pub fn lit(a: [u32; 4]) -> [u32; 4] {
    let x = fl(a[0]);
    let y = max_f32(x, 0.0);
    let z = if x > 0.0 {
        let base = max_f32(fl(a[1]), 0.0);
        let exponent = min_f32(max_f32(fl(a[3]), -128.0), 128.0);
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
    let f = s.floor();
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
    let x = z.floor();
    let y = t / math::ex2_f32(x);
    [x.to_bits(), y.to_bits(), z.to_bits(), F32_ONE]
}

/// DST: x = 1; y = s0.y * s1.y; z = s0.z; w = s1.w.
#[inline]
pub fn dst(a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
    [F32_ONE, (fl(a[1]) * fl(b[1])).to_bits(), a[2], b[3]]
}

/// UP2H: x, z = half→float(low 16 bits); y, w = from the high 16 bits.
#[inline]
pub fn up2h(a: u32) -> [u32; 4] {
    let lo = half::f16::from_bits(a as u16).to_f32().to_bits();
    let hi = half::f16::from_bits((a >> 16) as u16).to_f32().to_bits();
    [lo, hi, lo, hi]
}

/// UP2US: x, z = unorm16(low half) / 65535; y, w = from the high half.
#[inline]
pub fn up2us(a: u32) -> [u32; 4] {
    let lo = ((a & 0xffff) as f32 / 65535.0).to_bits();
    let hi = ((a >> 16) as f32 / 65535.0).to_bits();
    [lo, hi, lo, hi]
}

/// UP4B: byte i (x = low byte) as snorm8: `max(v / 127, -1)` (so -128 → -1.0).
#[inline]
pub fn up4b(a: u32) -> [u32; 4] {
    let chan = |i: u32| {
        let v = (a >> (8 * i)) as u8 as i8;
        (v as f32 / 127.0).max(-1.0).to_bits()
    };
    [chan(0), chan(1), chan(2), chan(3)]
}

/// UP4UB: byte i (x = low byte) as unorm8: `v / 255`.
#[inline]
pub fn up4ub(a: u32) -> [u32; 4] {
    let chan = |i: u32| (((a >> (8 * i)) & 0xff) as f32 / 255.0).to_bits();
    [chan(0), chan(1), chan(2), chan(3)]
}

// ---------------------------------------------------------------------------
// doubles

#[inline]
pub fn dadd(a: u64, b: u64) -> u64 {
    (db(a) + db(b)).to_bits()
}

#[inline]
pub fn dmul(a: u64, b: u64) -> u64 {
    (db(a) * db(b)).to_bits()
}

#[inline]
pub fn ddiv(a: u64, b: u64) -> u64 {
    (db(a) / db(b)).to_bits()
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

/// DMAD: `a*b + c` with two roundings.
#[inline]
pub fn dmad(a: u64, b: u64, c: u64) -> u64 {
    (db(a) * db(b) + db(c)).to_bits()
}

/// DFMA: fused, one rounding.
#[inline]
pub fn dfma(a: u64, b: u64, c: u64) -> u64 {
    db(a).mul_add(db(b), db(c)).to_bits()
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

#[inline]
pub fn drcp(a: u64) -> u64 {
    (1.0 / db(a)).to_bits()
}

#[inline]
pub fn dsqrt(a: u64) -> u64 {
    db(a).sqrt().to_bits()
}

/// DRSQ: `1/sqrt(x)`: +0 → +inf, -0 → -inf, negative → NaN.
#[inline]
pub fn drsq(a: u64) -> u64 {
    (1.0 / db(a).sqrt()).to_bits()
}

/// DFRAC: `x - floor(x)`.
#[inline]
pub fn dfrac(a: u64) -> u64 {
    let x = db(a);
    (x - x.floor()).to_bits()
}

#[inline]
pub fn dflr(a: u64) -> u64 {
    db(a).floor().to_bits()
}

#[inline]
pub fn dtrunc(a: u64) -> u64 {
    db(a).trunc().to_bits()
}

#[inline]
pub fn dceil(a: u64) -> u64 {
    db(a).ceil().to_bits()
}

/// DROUND: nearest, ties to even.
#[inline]
pub fn dround(a: u64) -> u64 {
    db(a).round_ties_even().to_bits()
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

/// F2D: exact.
#[inline]
pub fn f2d(a: u32) -> u64 {
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

/// D2F: round to nearest even; overflow → ±inf.
#[inline]
pub fn d2f(a: u64) -> u32 {
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

// ---------------------------------------------------------------------------
// 64-bit integers

/// `i64::MIN` stays `i64::MIN`.
#[inline]
pub fn i64abs(a: u64) -> u64 {
    (a as i64).wrapping_abs() as u64
}

#[inline]
pub fn i64neg(a: u64) -> u64 {
    a.wrapping_neg()
}

#[inline]
pub fn i64ssg(a: u64) -> u64 {
    (a as i64).signum() as u64
}

#[inline]
pub fn u64add(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}

#[inline]
pub fn u64mul(a: u64, b: u64) -> u64 {
    a.wrapping_mul(b)
}

/// By 0 → all ones.
#[inline]
pub fn u64div(a: u64, b: u64) -> u64 {
    a.checked_div(b).unwrap_or(u64::MAX)
}

/// By 0 → 0; `i64::MIN / -1 = i64::MIN`.
#[inline]
pub fn i64div(a: u64, b: u64) -> u64 {
    if b == 0 {
        0
    } else {
        (a as i64).wrapping_div(b as i64) as u64
    }
}

/// By 0 → all ones.
#[inline]
pub fn u64mod(a: u64, b: u64) -> u64 {
    a.checked_rem(b).unwrap_or(u64::MAX)
}

/// Sign of the dividend; by 0 → all ones (-1); `i64::MIN % -1 = 0`.
#[inline]
pub fn i64mod(a: u64, b: u64) -> u64 {
    if b == 0 {
        u64::MAX
    } else {
        (a as i64).wrapping_rem(b as i64) as u64
    }
}

#[inline]
pub fn i64min(a: u64, b: u64) -> u64 {
    (a as i64).min(b as i64) as u64
}

#[inline]
pub fn u64min(a: u64, b: u64) -> u64 {
    a.min(b)
}

#[inline]
pub fn i64max(a: u64, b: u64) -> u64 {
    (a as i64).max(b as i64) as u64
}

#[inline]
pub fn u64max(a: u64, b: u64) -> u64 {
    a.max(b)
}

#[inline]
pub fn u64seq(a: u64, b: u64) -> u32 {
    mask_bool(a == b)
}

#[inline]
pub fn u64sne(a: u64, b: u64) -> u32 {
    mask_bool(a != b)
}

#[inline]
pub fn u64slt(a: u64, b: u64) -> u32 {
    mask_bool(a < b)
}

#[inline]
pub fn u64sge(a: u64, b: u64) -> u32 {
    mask_bool(a >= b)
}

#[inline]
pub fn i64slt(a: u64, b: u64) -> u32 {
    mask_bool((a as i64) < b as i64)
}

#[inline]
pub fn i64sge(a: u64, b: u64) -> u32 {
    mask_bool(a as i64 >= b as i64)
}

/// Count masked with 0x3f.
#[inline]
pub fn u64shl(a: u64, count: u32) -> u64 {
    a << (count & 63)
}

/// Arithmetic; count masked with 0x3f.
#[inline]
pub fn i64shr(a: u64, count: u32) -> u64 {
    ((a as i64) >> (count & 63)) as u64
}

/// Logical; count masked with 0x3f.
#[inline]
pub fn u64shr(a: u64, count: u32) -> u64 {
    a >> (count & 63)
}

/// F2U64: truncate, NaN → 0, saturating (negative → 0, ≥ 2^64 → all ones).
#[inline]
pub fn f2u64(a: u32) -> u64 {
    fl(a) as u64
}

/// F2I64: truncate, NaN → 0, saturating.
#[inline]
pub fn f2i64(a: u32) -> u64 {
    fl(a) as i64 as u64
}

/// U2I64: zero extension.
#[inline]
pub fn u2i64(a: u32) -> u64 {
    a as u64
}

/// I2I64: sign extension.
#[inline]
pub fn i2i64(a: u32) -> u64 {
    a as i32 as i64 as u64
}

/// D2U64: truncate, NaN → 0, saturating.
#[inline]
pub fn d2u64(a: u64) -> u64 {
    db(a) as u64
}

/// D2I64: truncate, NaN → 0, saturating.
#[inline]
pub fn d2i64(a: u64) -> u64 {
    db(a) as i64 as u64
}

/// U642D: round to nearest even.
#[inline]
pub fn u642d(a: u64) -> u64 {
    (a as f64).to_bits()
}

/// I642D: round to nearest even.
#[inline]
pub fn i642d(a: u64) -> u64 {
    (a as i64 as f64).to_bits()
}

/// U642F: round to nearest even (one rounding).
#[inline]
pub fn u642f(a: u64) -> u32 {
    (a as f32).to_bits()
}

/// I642F: round to nearest even (one rounding).
#[inline]
pub fn i642f(a: u64) -> u32 {
    (a as i64 as f32).to_bits()
}

// ---------------------------------------------------------------------------
// source modifiers and saturate

/// Applies the 32-bit source modifiers for an operand of type `ty`: abs first,
/// then negate. Float and untyped: sign-bit operations (NaN payloads kept).
/// Int/Uint: integer abs (wrapping, `i32::MIN` stays) and two's-complement
/// negation. 64-bit types are returned unchanged (see [`modify64`]).
#[inline]
pub fn modify(bits: u32, ty: OperandType, absolute: bool, negate: bool) -> u32 {
    match ty {
        OperandType::Float | OperandType::Untyped => {
            let v = if absolute { bits & 0x7fff_ffff } else { bits };
            if negate { v ^ 0x8000_0000 } else { v }
        }
        OperandType::Int | OperandType::Uint => {
            let v = if absolute { iabs(bits) } else { bits };
            if negate { v.wrapping_neg() } else { v }
        }
        OperandType::Double | OperandType::Int64 | OperandType::Uint64 => bits,
    }
}

/// Modifiers on a whole 64-bit value: Double → sign-bit operations on bit 63;
/// Int64/Uint64 → wrapping integer abs and negation. 32-bit types are
/// returned unchanged.
#[inline]
pub fn modify64(v: u64, ty: OperandType, absolute: bool, negate: bool) -> u64 {
    match ty {
        OperandType::Double => {
            let v = if absolute { dabs(v) } else { v };
            if negate { dneg(v) } else { v }
        }
        OperandType::Int64 | OperandType::Uint64 => {
            let v = if absolute { i64abs(v) } else { v };
            if negate { v.wrapping_neg() } else { v }
        }
        _ => v,
    }
}

/// `_SAT` on a 32-bit float: clamp to [0, 1]; NaN and -0.0 → +0.0.
#[inline]
pub fn saturate_f32(bits: u32) -> u32 {
    let x = fl(bits);
    if x > 0.0 {
        if x < 1.0 { bits } else { F32_ONE }
    } else {
        0
    }
}

/// `_SAT` on a double: clamp to [0, 1]; NaN and -0.0 → +0.0.
#[inline]
pub fn saturate_f64(bits: u64) -> u64 {
    let x = db(bits);
    if x > 0.0 {
        if x < 1.0 { bits } else { F64_ONE }
    } else {
        0
    }
}

// ---------------------------------------------------------------------------
// atomics

/// The value an atomic stores, given the `old` memory word.
///
/// Operands as the machine passes them: `value` is the instruction's src2
/// (the operand; for ATOMCAS the *compare* value), `compare_or_unused` is
/// src3 — only ATOMCAS has one, and there it is the *new* value:
/// ATOMCAS stores `old == value ? compare_or_unused : old`.
///
/// ATOMUADD wraps; ATOMFADD is an f32 add on the bits; ATOMU/I MIN/MAX compare
/// unsigned/signed; ATOMINC_WRAP stores `old + 1` if that is `<= value`
/// (wrapping add, so 0xFFFFFFFF → 0) else 0; ATOMDEC_WRAP stores `old - 1` if
/// `0 < old < value` else 0 (the spec's formulas). A non-atomic opcode stores
/// `old` unchanged.
#[inline]
pub fn atomic_new_value(op: Opcode, old: u32, value: u32, compare_or_unused: u32) -> u32 {
    match op {
        Opcode::ATOMUADD => old.wrapping_add(value),
        Opcode::ATOMXCHG => value,
        Opcode::ATOMCAS => {
            if old == value {
                compare_or_unused
            } else {
                old
            }
        }
        Opcode::ATOMAND => old & value,
        Opcode::ATOMOR => old | value,
        Opcode::ATOMXOR => old ^ value,
        Opcode::ATOMUMIN => old.min(value),
        Opcode::ATOMUMAX => old.max(value),
        Opcode::ATOMIMIN => imin(old, value),
        Opcode::ATOMIMAX => imax(old, value),
        Opcode::ATOMFADD => add(old, value),
        Opcode::ATOMINC_WRAP => {
            let n = old.wrapping_add(1);
            if n <= value { n } else { 0 }
        }
        Opcode::ATOMDEC_WRAP => {
            if old > 0 && old < value {
                old - 1
            } else {
                0
            }
        }
        _ => old,
    }
}
