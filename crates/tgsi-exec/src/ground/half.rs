//! Float32 to half conversions by Direct3D's data conversion rules (the
//! texture formats and the packing opcodes share them).

/// Float32 bits to half bits by Direct3D's "Data conversion rules": round
/// toward zero; finite values beyond the half range give the largest finite
/// half (of their sign); infinities stay infinite, NaN stays NaN; float32
/// denormals are flushed first (they are far below the half range anyway).
pub fn f32_to_half_toward_zero(bits: u32) -> u32 {
    let sign = (bits >> 16) & 0x8000;
    let exp = (bits >> 23) & 0xff;
    let man = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | if man != 0 { 0x7e00 } else { 0x7c00 };
    }
    if exp == 0 {
        return sign;
    }
    // The half exponent field is exp - 127 + 15.
    if exp >= 127 + 16 {
        return sign | 0x7bff;
    }
    if exp > 127 - 15 {
        return sign | (exp + 15 - 127) << 10 | man >> 13;
    }
    // A half denormal counts units of 2^-24: the 24-bit significand
    // (value = significand * 2^(exp - 150)) shifted right by 126 - exp.
    let shift = 126 - exp;
    if shift >= 32 {
        return sign;
    }
    sign | (man | 0x80_0000) >> shift
}

/// Float32 bits cut to the nearest half toward zero (saturating at
/// ±65504; infinities and NaN stay), as float32 bits.
pub fn f32_to_half_value_toward_zero(bits: u32) -> u32 {
    let h = f32_to_half_toward_zero(bits) as u16;
    half::f16::from_bits(h).to_f32().to_bits()
}
