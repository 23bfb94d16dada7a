//! The small pieces every section and command parser shares: indices and
//! numbers, the end of a line, parenthesised lists, value types and typed
//! values, `ulp` tails.

use super::{MAX_INDEX, ParseError, TextureFormat, format_from_word};
use crate::values::{ValueType, parse_words, split_values};

pub(super) fn parse_index(line: usize, word: Option<&str>, what: &str) -> Result<u32, ParseError> {
    let w = word.ok_or_else(|| ParseError::new(line, format!("expected {what}")))?;
    let v: u32 = w
        .parse()
        .map_err(|_| ParseError::new(line, format!("expected {what}, found `{w}`")))?;
    if v >= MAX_INDEX {
        return Err(ParseError::new(
            line,
            format!("{what} {v} is too large (limit {MAX_INDEX})"),
        ));
    }
    Ok(v)
}

pub(super) fn parse_u32(line: usize, word: Option<&str>, what: &str) -> Result<u32, ParseError> {
    let w = word.ok_or_else(|| ParseError::new(line, format!("expected {what}")))?;
    let parsed = match w.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => w.parse().ok(),
    };
    parsed.ok_or_else(|| {
        let digits = w.strip_prefix("0x").unwrap_or(w);
        let whole = !digits.is_empty() && digits.chars().all(|c| c.is_ascii_hexdigit());
        let why = if whole && (w.starts_with("0x") || w.chars().all(|c| c.is_ascii_digit())) {
            " (larger than 4294967295)"
        } else {
            ""
        };
        ParseError::new(line, format!("expected {what}, found `{w}`{why}"))
    })
}

pub(super) fn parse_format(line: usize, w: &str) -> Result<TextureFormat, ParseError> {
    format_from_word(w).ok_or_else(|| {
        ParseError::new(
            line,
            format!(
                "unknown format `{w}` (expected a texel format such as rgba32f, rgba32ui, rgba32i, r32f, r32ui, r32i, rg32f, rgba8, rgba8_srgb, r8 or rgba16f)"
            ),
        )
    })
}

pub(super) fn parse_f32(line: usize, word: Option<&str>, what: &str) -> Result<f32, ParseError> {
    let w = word.ok_or_else(|| ParseError::new(line, format!("expected {what}")))?;
    w.parse()
        .map_err(|_| ParseError::new(line, format!("expected {what}, found `{w}`")))
}

pub(super) fn no_more<'a>(
    line: usize,
    mut words: impl Iterator<Item = &'a str>,
) -> Result<(), ParseError> {
    match words.next() {
        Some(w) => Err(ParseError::new(
            line,
            format!("unexpected `{w}` at the end of the line"),
        )),
        None => Ok(()),
    }
}

/// Splits `(a, b, c) rest` into the parenthesised text and the rest.
pub(super) fn take_parens(
    line: usize,
    text: &str,
    what: &str,
) -> Result<(String, String), ParseError> {
    let t = text.trim_start();
    let Some(inner) = t.strip_prefix('(') else {
        return Err(ParseError::new(
            line,
            format!("expected `(` starting {what}, found `{}`", first_word(t)),
        ));
    };
    let Some(close) = inner.find(')') else {
        return Err(ParseError::new(line, format!("missing `)` after {what}")));
    };
    Ok((inner[..close].to_string(), inner[close + 1..].to_string()))
}

pub(super) fn first_word(t: &str) -> &str {
    let w = t.split_whitespace().next().unwrap_or("");
    if w.is_empty() { "end of line" } else { w }
}

/// Parses an optional `ulp U` tail.
pub(super) fn parse_ulp(
    line: usize,
    rest: &str,
    value_type: ValueType,
) -> Result<Option<u64>, ParseError> {
    let mut words = rest.split_whitespace();
    match words.next() {
        None => Ok(None),
        Some("ulp") => {
            let w = words
                .next()
                .ok_or_else(|| ParseError::new(line, "expected a number after `ulp`"))?;
            let u: u64 = w.parse().map_err(|_| {
                ParseError::new(line, format!("expected a number after `ulp`, found `{w}`"))
            })?;
            if !value_type.is_float() {
                return Err(ParseError::new(
                    line,
                    format!(
                        "`ulp` applies to float and double probes, not `{}`",
                        value_type.word()
                    ),
                ));
            }
            no_more(line, words)?;
            Ok(Some(u))
        }
        Some(w) => Err(ParseError::new(
            line,
            format!("expected `ulp` or end of line, found `{w}`"),
        )),
    }
}

pub(super) fn parse_values(line: usize, ty: ValueType, text: &str) -> Result<Vec<u64>, ParseError> {
    split_values(text)
        .map(|w| crate::values::parse_value(ty, w).map_err(|e| ParseError::new(line, e)))
        .collect()
}

pub(super) fn parse_type(line: usize, word: Option<&str>) -> Result<(ValueType, bool), ParseError> {
    let w = word.ok_or_else(|| ParseError::new(line, "expected a value type"))?;
    ValueType::from_word(w).ok_or_else(|| {
        ParseError::new(line, format!("unknown value type `{w}` (expected float, uint, int, double, uint64, int64, hex, float4, uint4 or int4)"))
    })
}

/// Parses `TYPE v v ...` into words.
pub(super) fn parse_typed_line(line: usize, text: &str) -> Result<Vec<u32>, ParseError> {
    let t = text.trim();
    let (ty_word, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let (ty, vector) = parse_type(line, Some(ty_word))?;
    let words = parse_words(ty, rest).map_err(|e| ParseError::new(line, e))?;
    if vector && words.len() % 4 != 0 {
        return Err(ParseError::new(
            line,
            format!(
                "`{ty_word}` takes a multiple of 4 values, found {}",
                words.len()
            ),
        ));
    }
    Ok(words)
}

pub(super) fn parse_u32_list(
    line: usize,
    inner: &str,
    what: &str,
    counts: std::ops::RangeInclusive<usize>,
) -> Result<Vec<u32>, ParseError> {
    let words: Vec<&str> = split_values(inner).collect();
    if !counts.contains(&words.len()) {
        return Err(ParseError::new(
            line,
            format!(
                "{what} takes {} to {} numbers, found {}",
                counts.start(),
                counts.end(),
                words.len()
            ),
        ));
    }
    words
        .iter()
        .map(|w| parse_u32(line, Some(w), "a coordinate"))
        .collect()
}
