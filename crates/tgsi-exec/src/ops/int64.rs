//! 64-bit integer operations on channel pairs, and the conversions between
//! 64-bit integers and floats.

use super::*;

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
