//! The per-opcode semantic functions of the machine: small pure scalar
//! functions on raw 32-bit (or 64-bit pair) bit patterns, applied lane by lane.
//!
//! Every function here is total (no panics, no allocation) and deterministic
//! on every host; the interpreter's per-lane and batched dispatch, the
//! compiled engine's handler calls and the texture engine share them. The numeric rules and every place where they differ
//! from Mesa's `tgsi_exec` are written down in `docs/numerics.md`.
//!
//! Naming: the lowercase opcode name (`add`, `imul_hi`, `u64shl`, …); `MOD`
//! is [`mod_signed`] because `mod` is a keyword.

use super::math;
use tgsi_ir::opcode::{Opcode, OperandType};

// ---------------------------------------------------------------------------
// bit helpers

#[inline(always)]
pub(super) fn fl(bits: u32) -> f32 {
    f32::from_bits(bits)
}

#[inline(always)]
pub(super) fn db(bits: u64) -> f64 {
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
pub(super) fn float_bool(c: bool) -> u32 {
    if c { F32_ONE } else { 0 }
}

/// Integer boolean: all ones or zero.
#[inline(always)]
pub(super) fn mask_bool(c: bool) -> u32 {
    if c { !0 } else { 0 }
}

/// IEEE minNum with a deterministic zero rule: one NaN → the other operand,
/// two NaNs → `y`; `min(-0, +0) = -0` in either order.
#[inline(always)]
pub(super) fn min_f32(x: f32, y: f32) -> f32 {
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
pub(super) fn max_f32(x: f32, y: f32) -> f32 {
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
pub(super) fn min_f64(x: f64, y: f64) -> f64 {
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
pub(super) fn max_f64(x: f64, y: f64) -> f64 {
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

/// Round to nearest, ties to even, without a library call (so lane loops
/// vectorize): below 2^23 every f32 has a fraction, and adding then
/// subtracting 2^23 rounds it away in the current (nearest-even) mode.
/// Larger values, infinities and NaN are already integral and pass through.
#[inline(always)]
pub(super) fn round_even_f32(x: f32) -> f32 {
    const BIG: f32 = 8_388_608.0; // 2^23
    let a = x.abs();
    if a < BIG {
        ((a + BIG) - BIG).copysign(x)
    } else {
        x
    }
}

/// Exact floor built on [`round_even_f32`]; the sign of a zero result is the
/// sign of `x` (floor(-0) = -0, floor(0.3) = +0).
#[inline(always)]
pub(super) fn floor_f32(x: f32) -> f32 {
    let r = round_even_f32(x);
    (if r > x { r - 1.0 } else { r }).copysign(x)
}

/// Exact ceil; ceil(-0.7) = -0.
#[inline(always)]
pub(super) fn ceil_f32(x: f32) -> f32 {
    let r = round_even_f32(x);
    (if r < x { r + 1.0 } else { r }).copysign(x)
}

/// Exact trunc.
#[inline(always)]
pub(super) fn trunc_f32(x: f32) -> f32 {
    floor_f32(x.abs()).copysign(x)
}

/// As [`round_even_f32`] for doubles (2^52).
#[inline(always)]
pub(super) fn round_even_f64(x: f64) -> f64 {
    const BIG: f64 = 4_503_599_627_370_496.0; // 2^52
    let a = x.abs();
    if a < BIG {
        ((a + BIG) - BIG).copysign(x)
    } else {
        x
    }
}

#[inline(always)]
pub(super) fn floor_f64(x: f64) -> f64 {
    let r = round_even_f64(x);
    (if r > x { r - 1.0 } else { r }).copysign(x)
}

#[inline(always)]
pub(super) fn ceil_f64(x: f64) -> f64 {
    let r = round_even_f64(x);
    (if r < x { r + 1.0 } else { r }).copysign(x)
}

#[inline(always)]
pub(super) fn trunc_f64(x: f64) -> f64 {
    floor_f64(x.abs()).copysign(x)
}

/// `x * 2^n` for f32 with a single rounding: the product is exact in f64
/// (an f32 times a power of two within ±300 stays a normal f64), and the one
/// rounding happens in the narrowing.
#[inline(always)]
pub(super) fn ldexp_f32(x: f32, n: i32) -> f32 {
    if x.is_nan() {
        return f32::from_bits(x.to_bits() | 0x0040_0000);
    }
    let n = n.clamp(-300, 300);
    let scale = f64::from_bits(((1023 + n) as u64) << 52);
    (x as f64 * scale) as f32
}

// ---------------------------------------------------------------------------
// NaN results
//
// Which NaN a float operation returns is one rule of the machine, x86's
// applied in operand order: the first NaN operand, made quiet (sign and
// payload kept), or the default NaN (0xFFC00000 / 0xFFF8000000000000) when
// the operation itself is invalid (inf - inf, 0 * inf, sqrt(-1), ...).
// Writing it out keeps every result bit independent of the compiler (which
// may swap the operands of a commutative operation, differently in debug
// and release builds) and of the host (other CPUs have other default NaNs).
// The transcendental kernels follow the same rule (`math.rs`).

pub use crate::ground::nan::{DEFAULT_NAN_F32, DEFAULT_NAN_F64, Host, NanRule, Ruled};

/// `a * b`, `a + b`, `a - b`, `a / b` under the NaN rule `R`.
#[inline(always)]
fn mul_f32<R: NanRule>(a: f32, b: f32) -> f32 {
    R::f32(a * b, [a, b])
}
#[inline(always)]
fn add_f32<R: NanRule>(a: f32, b: f32) -> f32 {
    R::f32(a + b, [a, b])
}
#[inline(always)]
fn sub_f32<R: NanRule>(a: f32, b: f32) -> f32 {
    R::f32(a - b, [a, b])
}
#[inline(always)]
fn div_f32<R: NanRule>(a: f32, b: f32) -> f32 {
    R::f32(a / b, [a, b])
}
#[inline(always)]
fn mul_f64<R: NanRule>(a: f64, b: f64) -> f64 {
    R::f64(a * b, [a, b])
}
#[inline(always)]
fn add_f64<R: NanRule>(a: f64, b: f64) -> f64 {
    R::f64(a + b, [a, b])
}
#[inline(always)]
fn div_f64<R: NanRule>(a: f64, b: f64) -> f64 {
    R::f64(a / b, [a, b])
}

/// Declares the public form of each float op that follows the NaN rule:
/// `name(...)` under [`Ruled`] and `name_with::<R>(...)` under any rule.
macro_rules! ruled_ops {
    ($($(#[$doc:meta])* $name:ident / $with:ident ($($x:ident: $t:ty),+) -> $r:ty $body:block)+) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name($($x: $t),+) -> $r {
            $with::<Ruled>($($x),+)
        }

        #[doc = concat!("[`", stringify!($name), "`] under the NaN rule `R`.")]
        #[inline(always)]
        pub fn $with<R: NanRule>($($x: $t),+) -> $r $body
    )+};
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

mod double;
mod float;
mod int;
mod int64;
pub mod legacy;
mod packing;
#[cfg(test)]
mod tests;

pub use double::*;
pub use float::*;
pub use int::*;
pub use int64::*;
pub use packing::*;
