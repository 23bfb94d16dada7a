//! Packing four channels into one word (PK2H, PK2US, PK4B, PK4UB) and
//! unpacking one word into four (UP2H, UP2US, UP4B, UP4UB).

use super::*;

/// f32 → IEEE binary16 bits, round to nearest even, overflow → ±inf, NaN stays NaN.
#[inline(always)]
pub(super) fn f32_to_half(bits: u32) -> u32 {
    half::f16::from_f32(fl(bits)).to_bits() as u32
}

/// f32 → unorm with `max` = 2^n - 1: NaN → 0, clamp to [0, 1], scale, round
/// to nearest even (the product is exact in f64, so there is one rounding).
#[inline(always)]
pub(super) fn f32_to_unorm(bits: u32, max: f64) -> u32 {
    let x = fl(bits) as f64;
    if x.is_nan() {
        return 0;
    }
    round_even_f64(x.clamp(0.0, 1.0) * max) as u32
}

/// f32 → snorm8 byte: NaN → 0, clamp to [-1, 1], `* 127`, round to nearest even.
#[inline(always)]
pub(super) fn f32_to_snorm8(bits: u32) -> u32 {
    let x = fl(bits) as f64;
    if x.is_nan() {
        return 0;
    }
    (round_even_f64(x.clamp(-1.0, 1.0) * 127.0) as i32 as u32) & 0xff
}

/// PK2H: `half(x) | half(y) << 16`.
#[inline]
pub fn pk2h(a: [u32; 4]) -> u32 {
    f32_to_half(a[0]) | f32_to_half(a[1]) << 16
}

/// PK2H under Direct3D's conversion rules: each half by
/// [`f32_to_half_toward_zero`].
#[inline]
pub fn pk2h_toward_zero(a: [u32; 4]) -> u32 {
    f32_to_half_toward_zero(a[0]) | f32_to_half_toward_zero(a[1]) << 16
}

pub use crate::ground::half::{f32_to_half_toward_zero, f32_to_half_value_toward_zero};

/// A float32 denormal as the zero of its sign; other values unchanged.
#[inline(always)]
pub fn flush_denormal(bits: u32) -> u32 {
    if bits & 0x7f80_0000 == 0 {
        bits & 0x8000_0000
    } else {
        bits
    }
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
