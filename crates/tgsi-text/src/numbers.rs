//! Conversion of number text to immediate words, the way Mesa's assembler
//! reads each immediate type, but with overflow reported instead of wrapped.
//!
//! Every function takes the whole value text including an optional leading
//! sign (`-2.5`, `+0x10`) and returns the words or a message saying what is
//! wrong. 64-bit results are returned as (low word, high word).

/// FLT32: `0x` + 1..8 hex digits are raw IEEE bits; otherwise a decimal
/// `[+-] digits [. digits] [e [+-] digits]`, rounded to double then to float
/// exactly like Mesa's `(float) atof(...)`.
pub fn parse_flt32(text: &str) -> Result<u32, String> {
    let (negative, body) = split_sign(text);
    if let Some(hex) = strip_hex_prefix(body) {
        if negative || text.starts_with('+') {
            return Err("a raw-bits float `0x...` cannot carry a sign".into());
        }
        if hex.is_empty() || hex.len() > 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!(
                "`{text}` is not a raw float: expected `0x` and 1 to 8 hex digits"
            ));
        }
        return u32::from_str_radix(hex, 16).map_err(|e| e.to_string());
    }
    if !is_decimal_float(body) {
        return Err(format!("`{text}` is not a decimal number"));
    }
    let value: f64 = body
        .parse()
        .map_err(|_| format!("`{text}` is not a decimal number"))?;
    let value = if negative { -value } else { value };
    Ok((value as f32).to_bits())
}

/// UINT32: unsigned decimal digits.
pub fn parse_uint32(text: &str) -> Result<u32, String> {
    parse_decimal_u64(text).and_then(|v| {
        u32::try_from(v).map_err(|_| format!("`{text}` does not fit in 32 bits (max 4294967295)"))
    })
}

/// INT32: optionally signed decimal digits.
pub fn parse_int32(text: &str) -> Result<u32, String> {
    let (negative, body) = split_sign(text);
    let magnitude = parse_decimal_u64(body)? as i128;
    let value = if negative { -magnitude } else { magnitude };
    i32::try_from(value)
        .map(|v| v as u32)
        .map_err(|_| format!("`{text}` does not fit in a signed 32-bit integer"))
}

/// FLT64: like C `strtod`: decimal, hex float (`0x1.8p3`), `inf`, `nan`.
pub fn parse_flt64(text: &str) -> Result<(u32, u32), String> {
    let (negative, body) = split_sign(text);
    let value = if body.eq_ignore_ascii_case("inf") || body.eq_ignore_ascii_case("infinity") {
        f64::INFINITY
    } else if body.eq_ignore_ascii_case("nan") {
        f64::NAN
    } else if let Some(hex) = strip_hex_prefix(body) {
        parse_hex_float(hex).ok_or_else(|| format!("`{text}` is not a hex float"))?
    } else if is_decimal_float(body) {
        body.parse()
            .map_err(|_| format!("`{text}` is not a number"))?
    } else {
        return Err(format!("`{text}` is not a number"));
    };
    let value = if negative { -value } else { value };
    Ok(split64(value.to_bits()))
}

/// INT64: like `strtoll` with base 0 (`0x` hex or decimal), range-checked.
/// A leading-zero octal literal is refused: Mesa would silently read `010` as 8.
pub fn parse_int64(text: &str) -> Result<(u32, u32), String> {
    let (negative, body) = split_sign(text);
    let magnitude = parse_base0(text, body)? as i128;
    let value = if negative { -magnitude } else { magnitude };
    i64::try_from(value)
        .map(|v| split64(v as u64))
        .map_err(|_| format!("`{text}` does not fit in a signed 64-bit integer"))
}

/// UINT64: like `strtoull` with base 0, but negative values are refused.
pub fn parse_uint64(text: &str) -> Result<(u32, u32), String> {
    let (negative, body) = split_sign(text);
    if negative {
        return Err(format!(
            "`{text}` is negative, but UINT64 values are unsigned"
        ));
    }
    parse_base0(text, body).map(split64)
}

fn split64(v: u64) -> (u32, u32) {
    (v as u32, (v >> 32) as u32)
}

fn split_sign(text: &str) -> (bool, &str) {
    if let Some(rest) = text.strip_prefix('-') {
        (true, rest)
    } else if let Some(rest) = text.strip_prefix('+') {
        (false, rest)
    } else {
        (false, text)
    }
}

fn strip_hex_prefix(body: &str) -> Option<&str> {
    body.strip_prefix("0x").or_else(|| body.strip_prefix("0X"))
}

fn parse_decimal_u64(text: &str) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{text}` is not an unsigned decimal integer"));
    }
    text.parse::<u64>()
        .map_err(|_| format!("`{text}` is too large"))
}

fn parse_base0(text: &str, body: &str) -> Result<u64, String> {
    if let Some(hex) = strip_hex_prefix(body) {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("`{text}` is not a hexadecimal integer"));
        }
        return u64::from_str_radix(hex, 16)
            .map_err(|_| format!("`{text}` does not fit in 64 bits"));
    }
    if body.len() > 1 && body.starts_with('0') && body.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{text}` has a leading zero, which C's strtoll (and so Mesa) reads as octal; \
             write it without the leading zero, or in hex with `0x`"
        ));
    }
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{text}` is not an integer"));
    }
    body.parse::<u64>()
        .map_err(|_| format!("`{text}` does not fit in 64 bits"))
}

/// `digits [. digits] [e [+-] digits]` or `. digits ...`, at least one digit
/// before or after the dot (Mesa's float grammar, without the sign).
fn is_decimal_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i > int_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits |= i > frac_start;
    }
    if !digits {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == b.len()
}

/// `hexdigits [. hexdigits] [p [+-] digits]` (after `0x`), as C's strtod reads it.
fn parse_hex_float(s: &str) -> Option<f64> {
    let (mantissa, exponent) = match s.find(['p', 'P']) {
        Some(p) => (&s[..p], Some(&s[p + 1..])),
        None => (s, None),
    };
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(d) => (&mantissa[..d], &mantissa[d + 1..]),
        None => (mantissa, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut value = 0f64;
    for c in int_part.chars() {
        value = value * 16.0 + f64::from(c.to_digit(16)?);
    }
    let mut scale = 1.0 / 16.0;
    for c in frac_part.chars() {
        value += f64::from(c.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    let exp: i32 = match exponent {
        Some(e) => {
            let (neg, digits) = split_sign(e);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let magnitude = digits.parse::<i32>().unwrap_or(i32::MAX).min(100_000);
            if neg { -magnitude } else { magnitude }
        }
        None => 0,
    };
    Some(value * 2f64.powi(exp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flt32_forms() {
        assert_eq!(parse_flt32("1.0"), Ok(0x3f80_0000));
        assert_eq!(parse_flt32("-2.5e1"), Ok((-25.0f32).to_bits()));
        assert_eq!(parse_flt32("5."), Ok(5.0f32.to_bits()));
        assert_eq!(parse_flt32(".5"), Ok(0.5f32.to_bits()));
        assert_eq!(parse_flt32("0x3f800000"), Ok(0x3f80_0000));
        assert!(parse_flt32("0x123456789").is_err());
        assert!(parse_flt32("1.5f").is_err());
        assert!(parse_flt32("1e").is_err());
    }

    #[test]
    fn integers_are_range_checked() {
        assert_eq!(parse_uint32("4294967295"), Ok(u32::MAX));
        assert!(parse_uint32("4294967296").is_err());
        assert_eq!(parse_int32("-2147483648"), Ok(0x8000_0000));
        assert!(parse_int32("2147483648").is_err());
        assert!(parse_uint32("99999999999999999999999").is_err());
    }

    #[test]
    fn sixty_four_bit_forms() {
        assert_eq!(parse_int64("-1"), Ok((u32::MAX, u32::MAX)));
        assert_eq!(parse_int64("0x100000000"), Ok((0, 1)));
        assert_eq!(parse_int64("0"), Ok((0, 0)));
        assert!(parse_int64("010").unwrap_err().contains("octal"));
        assert!(parse_uint64("-1").is_err());
        assert_eq!(
            parse_uint64("18446744073709551615"),
            Ok((u32::MAX, u32::MAX))
        );
        assert_eq!(parse_flt64("1.5"), Ok(split64(1.5f64.to_bits())));
        assert_eq!(parse_flt64("0x1.8p1"), Ok(split64(3.0f64.to_bits())));
        assert_eq!(
            parse_flt64("-inf"),
            Ok(split64(f64::NEG_INFINITY.to_bits()))
        );
    }
}
