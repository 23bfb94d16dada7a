//! `[vertex data]`: the header line naming the attributes (`IN[n]` or
//! Direct3D semantics) and the rows of values.

use super::words::parse_type;
use super::{Attribute, Line, ParseError, VertexData, is_comment_or_blank};
use crate::values::{ValueType, push_words, split_values};

pub(super) fn parse_vertex_data(line: usize, body: &[Line<'_>]) -> Result<VertexData, ParseError> {
    let mut content = body.iter().filter(|l| !is_comment_or_blank(l.text));
    let Some(head) = content.next() else {
        return Err(ParseError::new(
            line,
            "[vertex data] needs a header line naming its attributes, e.g. `IN[0] IN[1]:uint`",
        ));
    };
    let mut attributes = Vec::new();
    for word in head.text.split_whitespace() {
        let (name, ty) = match word.split_once(':') {
            Some((n, t)) => {
                let (ty, vector) = parse_type(head.number, Some(t))?;
                if ty.is_64bit() || vector {
                    return Err(ParseError::new(
                        head.number,
                        format!("attribute type `{t}` is not a 32-bit scalar type"),
                    ));
                }
                (n, ty)
            }
            None => (word, ValueType::Float),
        };
        let attribute = parse_attribute(head.number, name)?;
        if attributes.iter().any(|(a, _)| *a == attribute) {
            return Err(ParseError::new(
                head.number,
                format!("attribute {attribute} is named twice"),
            ));
        }
        attributes.push((attribute, ty));
    }
    let mut rows = Vec::new();
    for l in content {
        let words: Vec<&str> = split_values(l.text).collect();
        if words.len() != attributes.len() * 4 {
            return Err(ParseError::new(
                l.number,
                format!(
                    "expected {} values (4 per attribute), found {}",
                    attributes.len() * 4,
                    words.len()
                ),
            ));
        }
        let mut row = Vec::with_capacity(attributes.len());
        for (a, (_, ty)) in attributes.iter().enumerate() {
            let mut w = Vec::with_capacity(4);
            push_words(*ty, &words[a * 4..a * 4 + 4], &mut w)
                .map_err(|e| ParseError::new(l.number, e))?;
            row.push([w[0], w[1], w[2], w[3]]);
        }
        rows.push(row);
    }
    Ok(VertexData { attributes, rows })
}

/// `IN[n]` (n < 64), or a Direct3D semantic name with an optional index
/// (`POSITION`, `TEXCOORD1`, `SV_Position`).
fn parse_attribute(line: usize, name: &str) -> Result<Attribute, ParseError> {
    if let Some(inner) = name
        .strip_prefix("IN[")
        .or_else(|| name.strip_prefix("in["))
        .and_then(|r| r.strip_suffix(']'))
    {
        return inner
            .parse::<u32>()
            .ok()
            .filter(|n| *n < 64)
            .map(Attribute::Input)
            .ok_or_else(|| {
                ParseError::new(
                    line,
                    format!("expected an attribute `IN[n]` (n < 64), found `{name}`"),
                )
            });
    }
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (stem, index) = name.split_at(name.len() - digits);
    let valid = stem
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let index = if index.is_empty() {
        Some(0)
    } else {
        index.parse::<u32>().ok()
    };
    match index {
        Some(index) if valid => Ok(Attribute::Semantic(stem.to_ascii_uppercase(), index)),
        _ => Err(ParseError::new(
            line,
            format!(
                "expected an attribute `IN[n]` or a Direct3D input name such as `POSITION` or `TEXCOORD0`, found `{name}`"
            ),
        )),
    }
}
