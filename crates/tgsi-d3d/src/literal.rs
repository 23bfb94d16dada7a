//! The immediate spellings of SM4/SM5 listings and the bits each one
//! encodes to: the spelling alone decides.
//!
//! * a decimal with `.`, an exponent (`1.00000000e+00`) or an MSVC special
//!   (`1.#INF00`, `-1.#IND00`, `1.#QNAN0`, `1.#SNAN0`) is a float;
//! * `0x…` is the raw bits;
//! * any other decimal is an integer in two's complement;
//! * vkd3d's `inf` and `nan` words are floats too.
//!
//! Inside `d(…)` a trailing `l` is allowed and floats are doubles; a hex
//! value is the raw 64-bit pattern and a plain decimal the double's value.
//!
//! MSVC prints every NaN as one of three spellings, so a NaN's payload is
//! not in the text: `1.#QNAN0` reads as the quiet NaN 0x7fc00000,
//! `-1.#IND00` as the x86 "indefinite" 0xffc00000 and `-1.#QNAN0` (any other
//! negative NaN) as 0xffffffff, the pattern shaders most often hold.

/// A literal word: the sign that preceded it and its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Literal<'a> {
    pub negative: bool,
    pub text: &'a str,
}

/// How a literal is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    Float,
    Hex,
    Decimal,
}

/// The spelling class of a literal's text (without its sign).
pub fn spelling(text: &str) -> Spelling {
    let t = text.strip_suffix(['l', 'L']).unwrap_or(text);
    if t.starts_with("0x") || t.starts_with("0X") {
        Spelling::Hex
    } else if t.contains(['.', '#', 'e', 'E']) || is_special_word(t) {
        Spelling::Float
    } else {
        Spelling::Decimal
    }
}

fn is_special_word(t: &str) -> bool {
    matches!(t, "inf" | "nan" | "INF" | "NAN")
}

/// An MSVC / C special-value spelling: (is NaN, NaN kind).
enum Special {
    Infinity,
    QuietNan,
    Indefinite,
    SignalingNan,
}

fn special(text: &str) -> Option<Special> {
    let lower = text.to_ascii_lowercase();
    if lower == "inf" {
        return Some(Special::Infinity);
    }
    if lower == "nan" {
        return Some(Special::QuietNan);
    }
    let rest = lower.strip_prefix("1.#")?;
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    let digits = &rest[word.len()..];
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match word.as_str() {
        "inf" => Some(Special::Infinity),
        "qnan" => Some(Special::QuietNan),
        "ind" => Some(Special::Indefinite),
        "snan" => Some(Special::SignalingNan),
        _ => None,
    }
}

fn parse_hex(text: &str, max_digits: usize) -> Result<u64, String> {
    let digits = &text[2..];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`{text}` is not a hexadecimal number"));
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > max_digits {
        return Err(format!("`{text}` does not fit {} bits", max_digits * 4));
    }
    u64::from_str_radix(
        if significant.is_empty() {
            "0"
        } else {
            significant
        },
        16,
    )
    .map_err(|_| format!("`{text}` is not a hexadecimal number"))
}

/// The bits of a 32-bit immediate (`l(…)` values, `dcl_immediateConstantBuffer`
/// entries, `dcl_hs_max_tessfactor`).
pub fn imm32(lit: Literal) -> Result<u32, String> {
    let text = lit.text;
    match spelling(text) {
        Spelling::Hex => {
            let v = parse_hex(text, 8)? as u32;
            Ok(if lit.negative { v.wrapping_neg() } else { v })
        }
        Spelling::Decimal => {
            if !text.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("`{text}` is not a number"));
            }
            let v: u64 = text
                .parse()
                .map_err(|_| format!("`{text}` does not fit 32 bits"))?;
            if lit.negative {
                if v > 1 << 31 {
                    return Err(format!("`-{text}` does not fit a 32-bit integer"));
                }
                Ok((v as u32).wrapping_neg())
            } else if v > u32::MAX as u64 {
                Err(format!("`{text}` does not fit 32 bits"))
            } else {
                Ok(v as u32)
            }
        }
        Spelling::Float => {
            let sign = if lit.negative { 0x8000_0000 } else { 0 };
            if let Some(s) = special(text) {
                return Ok(match (s, lit.negative) {
                    (Special::Infinity, _) => 0x7F80_0000 | sign,
                    (Special::QuietNan, false) => 0x7FC0_0000,
                    (Special::QuietNan, true) => 0xFFFF_FFFF,
                    (Special::Indefinite, _) => 0x7FC0_0000 | sign,
                    (Special::SignalingNan, _) => 0x7F80_0001 | sign,
                });
            }
            if text.contains('#') {
                return Err(format!(
                    "`{text}` is not a float (specials are 1.#INF00, 1.#QNAN0, 1.#IND00, 1.#SNAN0)"
                ));
            }
            let v: f32 = text
                .parse()
                .map_err(|_| format!("`{text}` is not a float"))?;
            if v.is_infinite() {
                return Err(format!("`{text}` is too large for a 32-bit float"));
            }
            Ok(v.to_bits() | sign)
        }
    }
}

/// The bits of a 64-bit immediate (`d(…)` values): doubles, a trailing `l`
/// allowed.
pub fn imm64(lit: Literal) -> Result<u64, String> {
    let text = lit.text.strip_suffix(['l', 'L']).unwrap_or(lit.text);
    let sign = if lit.negative { 1u64 << 63 } else { 0 };
    match spelling(text) {
        Spelling::Hex => {
            let v = parse_hex(text, 16)?;
            Ok(if lit.negative { v.wrapping_neg() } else { v })
        }
        Spelling::Decimal | Spelling::Float => {
            if let Some(s) = special(text) {
                return Ok(match (s, lit.negative) {
                    (Special::Infinity, _) => 0x7FF0_0000_0000_0000 | sign,
                    (Special::QuietNan, false) => 0x7FF8_0000_0000_0000,
                    (Special::QuietNan, true) => u64::MAX,
                    (Special::Indefinite, _) => 0x7FF8_0000_0000_0000 | sign,
                    (Special::SignalingNan, _) => 0x7FF0_0000_0000_0001 | sign,
                });
            }
            if text.contains('#') || !text.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
                return Err(format!("`{}` is not a double", lit.text));
            }
            let v: f64 = text
                .parse()
                .map_err(|_| format!("`{}` is not a double", lit.text))?;
            if v.is_infinite() {
                return Err(format!("`{}` is too large for a double", lit.text));
            }
            Ok(v.to_bits() | sign)
        }
    }
}

/// [`imm32`] of a word that may start with `-`.
pub fn imm32_text(text: &str) -> Result<u32, String> {
    let (negative, text) = text.strip_prefix('-').map_or((false, text), |t| (true, t));
    imm32(Literal { negative, text })
}

/// [`imm64`] of a word that may start with `-`.
pub fn imm64_text(text: &str) -> Result<u64, String> {
    let (negative, text) = text.strip_prefix('-').map_or((false, text), |t| (true, t));
    imm64(Literal { negative, text })
}

/// An unsigned count, index or size written in decimal or hex.
pub fn unsigned(text: &str) -> Result<u32, String> {
    match spelling(text) {
        Spelling::Hex => parse_hex(text, 8).map(|v| v as u32),
        Spelling::Decimal if text.bytes().all(|b| b.is_ascii_digit()) => text
            .parse()
            .map_err(|_| format!("`{text}` does not fit 32 bits")),
        _ => Err(format!("`{text}` is not an unsigned integer")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(text: &str) -> Result<u32, String> {
        imm32_text(text)
    }

    #[test]
    fn spelling_decides_the_bits() {
        assert_eq!(l("1.000000"), Ok(0x3f80_0000));
        assert_eq!(l("-0.000000"), Ok(0x8000_0000));
        assert_eq!(l("1.00000000e+00"), Ok(0x3f80_0000));
        assert_eq!(l("0x3f800000"), Ok(0x3f80_0000));
        assert_eq!(l("1"), Ok(1));
        assert_eq!(l("-1"), Ok(0xFFFF_FFFF));
        assert_eq!(l("-2147483648"), Ok(0x8000_0000));
        assert_eq!(l("4294967295"), Ok(0xFFFF_FFFF));
        assert_eq!(l("0.072100"), Ok(0x3d93_a92a));
        assert_eq!(
            l("-649211347377382870840004092887040.000000"),
            Ok((-6.4921135e32f32).to_bits())
        );
        assert!(l("4294967296").unwrap_err().contains("32 bits"));
        assert!(l("-2147483649").is_err());
        assert!(l("0x123456789").is_err());
        assert!(l("1e40").unwrap_err().contains("too large"));
        assert!(l("12ab").is_err());
    }

    #[test]
    fn msvc_specials() {
        assert_eq!(l("1.#INF00"), Ok(0x7f80_0000));
        assert_eq!(l("-1.#INF00"), Ok(0xff80_0000));
        assert_eq!(l("-1.#IND00"), Ok(0xffc0_0000));
        assert_eq!(l("1.#QNAN0"), Ok(0x7fc0_0000));
        assert_eq!(l("-1.#QNAN0"), Ok(0xffff_ffff));
        assert_eq!(l("1.#SNAN0"), Ok(0x7f80_0001));
        assert_eq!(l("inf"), Ok(0x7f80_0000));
        assert!(l("1.#FOO0").is_err());
    }

    #[test]
    fn doubles() {
        let d = |negative, text| imm64(Literal { negative, text });
        assert_eq!(d(false, "4.500000l"), Ok(0x4012_0000_0000_0000));
        assert_eq!(
            d(true, "1.0000000000000000e+00l"),
            Ok(0xbff0_0000_0000_0000)
        );
        assert_eq!(d(false, "1"), Ok(0x3ff0_0000_0000_0000));
        assert_eq!(d(false, "0x3ff0000000000000"), Ok(0x3ff0_0000_0000_0000));
        assert_eq!(d(true, "1.#IND00l"), Ok(0xfff8_0000_0000_0000));
        assert!(d(false, "1e400").is_err());
        assert_eq!(unsigned("0x10"), Ok(16));
        assert!(unsigned("-1").is_err());
    }
}
