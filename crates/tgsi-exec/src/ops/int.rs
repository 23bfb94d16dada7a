//! 32-bit integer operations and the 32-bit conversions between integers
//! and floats.

use super::*;

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
