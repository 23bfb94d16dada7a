//! Typed values of `.shader_test` files: parsing value words into 32-bit
//! words, and comparing probed words with expected ones (exact, or within a
//! number of units in the last place).
//!
//! Number forms accepted:
//! * `float`: anything Rust's `f32::from_str` takes (`1`, `-2.5e-3`, `inf`,
//!   `-inf`, `nan`, `infinity`), or `0x` + up to 8 hex digits = the raw bits;
//! * `double`: likewise, `0x` + up to 16 hex digits = the raw bits;
//! * `uint`, `int`, `uint64`, `int64`: decimal (a sign for the signed types)
//!   or `0x` hex giving the bits (`int 0xffffffff` is -1);
//! * `hex`: hex digits with or without `0x`.

use std::fmt::Write as _;

/// The type of a value line, a probe or a vertex attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    Float,
    Uint,
    Int,
    Double,
    Uint64,
    Int64,
    Hex,
}

impl ValueType {
    /// Looks up a type word. `float4`, `uint4`, `int4`, `double2`,
    /// `uint64_t2`, `int64_t2` (vkd3d's vector spellings, 16 bytes each) map
    /// to their scalar types; the second element says a vector form was used.
    pub fn from_word(word: &str) -> Option<(ValueType, bool)> {
        Some(match word {
            "float" => (ValueType::Float, false),
            "uint" => (ValueType::Uint, false),
            "int" => (ValueType::Int, false),
            "double" => (ValueType::Double, false),
            "uint64" => (ValueType::Uint64, false),
            "int64" => (ValueType::Int64, false),
            "hex" => (ValueType::Hex, false),
            "float4" => (ValueType::Float, true),
            "uint4" => (ValueType::Uint, true),
            "int4" => (ValueType::Int, true),
            "double2" => (ValueType::Double, true),
            "uint64_t2" => (ValueType::Uint64, true),
            "int64_t2" => (ValueType::Int64, true),
            _ => return None,
        })
    }

    /// The type word as written in files.
    pub fn word(self) -> &'static str {
        match self {
            ValueType::Float => "float",
            ValueType::Uint => "uint",
            ValueType::Int => "int",
            ValueType::Double => "double",
            ValueType::Uint64 => "uint64",
            ValueType::Int64 => "int64",
            ValueType::Hex => "hex",
        }
    }

    /// 32-bit words per value (1 or 2).
    pub fn words_per_value(self) -> usize {
        if self.is_64bit() { 2 } else { 1 }
    }

    pub fn is_64bit(self) -> bool {
        matches!(
            self,
            ValueType::Double | ValueType::Uint64 | ValueType::Int64
        )
    }

    /// True for the types compared as floating point (with `ulp`).
    pub fn is_float(self) -> bool {
        matches!(self, ValueType::Float | ValueType::Double)
    }
}

/// The list of words in a value list: split on whitespace and commas.
pub fn split_values(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
}

fn hex_digits(word: &str) -> Option<&str> {
    word.strip_prefix("0x").or_else(|| word.strip_prefix("0X"))
}

fn parse_hex_u64(digits: &str, max_digits: usize, word: &str) -> Result<u64, String> {
    if digits.is_empty() || digits.len() > max_digits {
        return Err(format!(
            "`{word}` is not a hex value of 1 to {max_digits} digits"
        ));
    }
    u64::from_str_radix(digits, 16).map_err(|_| format!("`{word}` is not a hex value"))
}

/// Parses one value word of type `ty` into its 64-bit pattern (32-bit types in the low half).
pub fn parse_value(ty: ValueType, word: &str) -> Result<u64, String> {
    match ty {
        ValueType::Float => {
            if let Some(d) = hex_digits(word) {
                return parse_hex_u64(d, 8, word);
            }
            word.parse::<f32>()
                .map(|f| f.to_bits() as u64)
                .map_err(|_| format!("`{word}` is not a float"))
        }
        ValueType::Double => {
            if let Some(d) = hex_digits(word) {
                return parse_hex_u64(d, 16, word);
            }
            word.parse::<f64>()
                .map(f64::to_bits)
                .map_err(|_| format!("`{word}` is not a double"))
        }
        ValueType::Uint => {
            if let Some(d) = hex_digits(word) {
                return parse_hex_u64(d, 8, word);
            }
            word.parse::<u32>()
                .map(u64::from)
                .map_err(|_| format!("`{word}` is not a 32-bit unsigned integer"))
        }
        ValueType::Int => {
            if let Some(d) = hex_digits(word) {
                return parse_hex_u64(d, 8, word);
            }
            word.parse::<i32>()
                .map(|v| v as u32 as u64)
                .map_err(|_| format!("`{word}` is not a 32-bit signed integer"))
        }
        ValueType::Uint64 => {
            if let Some(d) = hex_digits(word) {
                return parse_hex_u64(d, 16, word);
            }
            word.parse::<u64>()
                .map_err(|_| format!("`{word}` is not a 64-bit unsigned integer"))
        }
        ValueType::Int64 => {
            if let Some(d) = hex_digits(word) {
                return parse_hex_u64(d, 16, word);
            }
            word.parse::<i64>()
                .map(|v| v as u64)
                .map_err(|_| format!("`{word}` is not a 64-bit signed integer"))
        }
        ValueType::Hex => parse_hex_u64(hex_digits(word).unwrap_or(word), 8, word),
    }
}

/// Parses value words and appends their 32-bit words (64-bit values low word first).
pub fn push_words(ty: ValueType, words: &[&str], out: &mut Vec<u32>) -> Result<(), String> {
    for w in words {
        let v = parse_value(ty, w)?;
        out.push(v as u32);
        if ty.is_64bit() {
            out.push((v >> 32) as u32);
        }
    }
    Ok(())
}

/// Parses a typed value line body (`TYPE v v v ...`, the type already split off).
pub fn parse_words(ty: ValueType, text: &str) -> Result<Vec<u32>, String> {
    let words: Vec<&str> = split_values(text).collect();
    let mut out = Vec::with_capacity(words.len() * 2);
    push_words(ty, &words, &mut out)?;
    Ok(out)
}

/// Maps float bits onto a line where adjacent floats are adjacent integers
/// (-0.0 and +0.0 both map to 0).
fn ordered32(bits: u32) -> i64 {
    if bits & 0x8000_0000 != 0 {
        -((bits & 0x7fff_ffff) as i64)
    } else {
        bits as i64
    }
}

fn ordered64(bits: u64) -> i128 {
    if bits >> 63 != 0 {
        -((bits & 0x7fff_ffff_ffff_ffff) as i128)
    } else {
        bits as i128
    }
}

/// Compares one value: integers exactly; floats bit for bit except that
/// -0.0 == 0.0 and any NaN == any NaN, or within `ulp` units in the last place.
pub fn values_match(ty: ValueType, expected: u64, got: u64, ulp: u64) -> bool {
    match ty {
        ValueType::Float => {
            let (e, g) = (expected as u32, got as u32);
            let (ef, gf) = (f32::from_bits(e), f32::from_bits(g));
            if ef.is_nan() || gf.is_nan() {
                return ef.is_nan() && gf.is_nan();
            }
            (ordered32(e) - ordered32(g)).unsigned_abs() <= ulp
        }
        ValueType::Double => {
            let (ef, gf) = (f64::from_bits(expected), f64::from_bits(got));
            if ef.is_nan() || gf.is_nan() {
                return ef.is_nan() && gf.is_nan();
            }
            (ordered64(expected) - ordered64(got)).unsigned_abs() <= ulp as u128
        }
        ValueType::Uint64 | ValueType::Int64 => expected == got,
        ValueType::Uint | ValueType::Int | ValueType::Hex => expected as u32 == got as u32,
    }
}

/// Formats one value of type `ty` for a failure message.
pub fn format_value(ty: ValueType, v: u64) -> String {
    match ty {
        ValueType::Float => {
            let f = f32::from_bits(v as u32);
            if f.is_nan() {
                format!("nan (0x{:08x})", v as u32)
            } else {
                format!("{f:?}")
            }
        }
        ValueType::Double => {
            let f = f64::from_bits(v);
            if f.is_nan() {
                format!("nan (0x{v:016x})")
            } else {
                format!("{f:?}")
            }
        }
        ValueType::Uint => format!("{}", v as u32),
        ValueType::Int => format!("{}", v as u32 as i32),
        ValueType::Uint64 => format!("{v}"),
        ValueType::Int64 => format!("{}", v as i64),
        ValueType::Hex => format!("0x{:08x}", v as u32),
    }
}

/// Formats a list of values as `(a, b, c)`.
pub fn format_list(ty: ValueType, values: &[u64]) -> String {
    let mut s = String::from("(");
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{}", format_value(ty, *v));
    }
    s.push(')');
    s
}

/// Joins 32-bit words into values of `ty` (64-bit values from low, high word pairs).
pub fn words_to_values(ty: ValueType, words: &[u32]) -> Vec<u64> {
    if ty.is_64bit() {
        words
            .chunks(2)
            .map(|c| c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32)
            .collect()
    } else {
        words.iter().map(|w| *w as u64).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_type() {
        assert_eq!(
            parse_words(ValueType::Float, "1.0 -2 0x3f800000").unwrap(),
            vec![0x3f80_0000, 0xc000_0000, 0x3f80_0000]
        );
        assert_eq!(
            parse_words(ValueType::Float, "inf -inf").unwrap(),
            vec![0x7f80_0000, 0xff80_0000]
        );
        assert!(f32::from_bits(parse_words(ValueType::Float, "nan").unwrap()[0]).is_nan());
        assert_eq!(
            parse_words(ValueType::Uint, "7, 0xffffffff").unwrap(),
            vec![7, u32::MAX]
        );
        assert_eq!(
            parse_words(ValueType::Int, "-1 -2147483648").unwrap(),
            vec![u32::MAX, 0x8000_0000]
        );
        // 1.5 = 0x3ff8000000000000 → low word 0, high word 0x3ff80000
        assert_eq!(
            parse_words(ValueType::Double, "1.5").unwrap(),
            vec![0, 0x3ff8_0000]
        );
        assert_eq!(
            parse_words(ValueType::Uint64, "0x100000002").unwrap(),
            vec![2, 1]
        );
        assert_eq!(
            parse_words(ValueType::Int64, "-2").unwrap(),
            vec![0xffff_fffe, 0xffff_ffff]
        );
        assert_eq!(
            parse_words(ValueType::Hex, "deadbeef 0x1").unwrap(),
            vec![0xdead_beef, 1]
        );
    }

    #[test]
    fn rejects_bad_values() {
        assert!(parse_words(ValueType::Uint, "-1").is_err());
        assert!(parse_words(ValueType::Uint, "4294967296").is_err());
        assert!(parse_words(ValueType::Int, "2147483648").is_err());
        assert!(parse_words(ValueType::Float, "one").is_err());
        assert!(parse_words(ValueType::Hex, "0x123456789").is_err());
        assert!(parse_words(ValueType::Float, "0x").is_err());
    }

    #[test]
    fn float_comparison_rules() {
        let f = |x: f32| x.to_bits() as u64;
        assert!(values_match(ValueType::Float, f(0.0), f(-0.0), 0));
        assert!(values_match(ValueType::Float, f(f32::NAN), 0xffc0_0001, 0));
        assert!(!values_match(ValueType::Float, f(f32::NAN), f(1.0), 1000));
        assert!(!values_match(
            ValueType::Float,
            f(1.0),
            f32::from_bits(0x3f80_0001).to_bits() as u64,
            0
        ));
        assert!(values_match(ValueType::Float, f(1.0), 0x3f80_0001, 1));
        assert!(values_match(ValueType::Float, f(1.0), 0x3f7f_ffff, 1));
        assert!(!values_match(ValueType::Float, f(1.0), 0x3f7f_fffe, 1));
        // across zero: the smallest denormals on both sides are 2 ulp apart
        assert!(values_match(ValueType::Float, 1, 0x8000_0001, 2));
        assert!(!values_match(ValueType::Float, 1, 0x8000_0001, 1));
        assert!(values_match(
            ValueType::Float,
            f(f32::MAX),
            f(f32::INFINITY),
            1
        ));
    }

    #[test]
    fn double_and_integer_comparison() {
        let d = |x: f64| x.to_bits();
        assert!(values_match(ValueType::Double, d(0.0), d(-0.0), 0));
        assert!(values_match(ValueType::Double, d(1.0), d(1.0) + 3, 3));
        assert!(!values_match(ValueType::Double, d(1.0), d(1.0) + 4, 3));
        assert!(!values_match(ValueType::Uint, 0, 0x8000_0000, 5));
        assert!(!values_match(ValueType::Int64, 1, 1 << 32, 0));
    }

    #[test]
    fn formatting() {
        assert_eq!(format_list(ValueType::Uint, &[2, 4]), "(2, 4)");
        assert_eq!(format_list(ValueType::Int, &[u32::MAX as u64]), "(-1)");
        assert_eq!(
            format_list(ValueType::Float, &[0x3f80_0000, 0x7fc0_0000]),
            "(1.0, nan (0x7fc00000))"
        );
        assert_eq!(format_value(ValueType::Hex, 10), "0x0000000a");
        assert_eq!(
            words_to_values(ValueType::Uint64, &[2, 1]),
            vec![0x1_0000_0002]
        );
    }
}
