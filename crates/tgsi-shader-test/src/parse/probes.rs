//! The `probe` commands: pixels, rectangles and whole render targets, depth
//! and stencil, images, buffers and vertex outputs.

use super::words::{
    first_word, no_more, parse_f32, parse_index, parse_type, parse_u32, parse_u32_list, parse_ulp,
    parse_values, take_parens,
};
use super::{Command, Expected, ParseError};
use crate::values::ValueType;

pub(super) fn parse_probe(line: usize, rest: &str) -> Result<Command, ParseError> {
    let (target, r) = probe_target(line, rest.trim_start())?;
    if r.starts_with('(') {
        return probe_pixel(line, target.unwrap_or(0), r);
    }
    let (kind, after) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
    match kind {
        "rect" => {
            let (inner, tail) = take_parens(line, after, "the rectangle")?;
            let v = parse_u32_list(line, &inner, "a rectangle", 4..=4)?;
            Ok(Command::ProbeRect {
                target: target.unwrap_or(0),
                rect: Some([v[0], v[1], v[2], v[3]]),
                expected: parse_pixel_expected(line, &tail)?,
            })
        }
        "all" => Ok(Command::ProbeRect {
            target: target.unwrap_or(0),
            rect: None,
            expected: parse_pixel_expected(line, after)?,
        }),
        _ if target.is_some() => Err(ParseError::new(
            line,
            format!("expected `(X, Y)`, `rect` or `all` after `probe rt N`, found `{kind}`"),
        )),
        "depth" | "stencil" => probe_depth_stencil(line, kind == "stencil", after),
        "image" => probe_image(line, after),
        "buffer" => probe_buffer(line, after),
        "vertex" => probe_vertex(line, after),
        other => Err(ParseError::new(
            line,
            format!(
                "unknown probe `{other}` (expected `(X, Y)`, rect, all, rt, buffer, image, vertex, depth or stencil)"
            ),
        )),
    }
}

/// An optional `rt N` (vkd3d also spells it `rtv N`) at the start of `r`:
/// the target it names and the text after it.
fn probe_target(line: usize, r: &str) -> Result<(Option<u32>, &str), ParseError> {
    let Some(after) = ["rtv", "rt"]
        .iter()
        .find_map(|p| r.strip_prefix(p))
        .filter(|a| a.starts_with(char::is_whitespace))
    else {
        return Ok((None, r));
    };
    let after = after.trim_start();
    let (n, tail) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
    let n = parse_index(line, Some(n), "a render target index")?;
    if n >= 8 {
        return Err(ParseError::new(
            line,
            format!("render target {n} is out of range (0 to 7)"),
        ));
    }
    Ok((Some(n), tail.trim_start()))
}

/// `probe [rt N] (X, Y) KIND (...)`, or vkd3d's rectangle
/// `probe [rt N] (X, Y, W, H) KIND (...)`.
fn probe_pixel(line: usize, target: u32, r: &str) -> Result<Command, ParseError> {
    let (inner, tail) = take_parens(line, r, "the pixel")?;
    let xy = parse_u32_list(line, &inner, "a pixel or a rectangle", 2..=4)?;
    if xy.len() == 4 {
        // vkd3d's `probe (X, Y, W, H) KIND (...)`: a rectangle
        return Ok(Command::ProbeRect {
            target,
            rect: Some([xy[0], xy[1], xy[2], xy[3]]),
            expected: parse_pixel_expected(line, &tail)?,
        });
    }
    if xy.len() != 2 {
        return Err(ParseError::new(
            line,
            "a probe takes a pixel (X, Y) or a rectangle (X, Y, W, H)",
        ));
    }
    Ok(Command::ProbePixel {
        target,
        x: xy[0],
        y: xy[1],
        expected: parse_pixel_expected(line, &tail)?,
    })
}

/// `probe depth (X, Y) (d) [ulp U]`, `probe stencil (X, Y) S`.
fn probe_depth_stencil(line: usize, stencil: bool, after: &str) -> Result<Command, ParseError> {
    let (inner, tail) = take_parens(line, after, "the pixel")?;
    let xy = parse_u32_list(line, &inner, "a pixel", 2..=2)?;
    let (value, ulp) = if stencil {
        let mut it = tail.split_whitespace();
        let v = parse_u32(line, it.next(), "a stencil value")?;
        no_more(line, it)?;
        (u64::from(v), 0)
    } else {
        let (d, tail) = take_parens(line, &tail, "the expected depth")?;
        let d = parse_f32(line, Some(d.trim()), "a depth")?;
        (
            u64::from(d.to_bits()),
            parse_ulp(line, &tail, ValueType::Float)?.unwrap_or(0),
        )
    };
    Ok(Command::ProbeDepthStencil {
        stencil,
        x: xy[0],
        y: xy[1],
        value,
        ulp,
    })
}

/// `probe image N (X[, Y[, Z]]) KIND (...)`: the expected values, and their
/// text for the runner to re-read for an integer image.
fn probe_image(line: usize, after: &str) -> Result<Command, ParseError> {
    let (n, tail) = after
        .trim_start()
        .split_once(char::is_whitespace)
        .unwrap_or((after.trim(), ""));
    let index = parse_index(line, Some(n), "an image index")?;
    let (inner, tail) = take_parens(line, tail, "the texel coordinates")?;
    let coords = parse_u32_list(line, &inner, "a texel coordinate", 1..=3)?;
    let expected = parse_pixel_expected(line, &tail)?;
    let after_kind = tail
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let (values_text, _) = take_parens(line, after_kind, "the expected colour")?;
    Ok(Command::ProbeImage {
        index,
        coords,
        expected,
        values_text,
    })
}

/// `probe buffer N TYPE OFFSET (values...) [ulp U]`.
fn probe_buffer(line: usize, after: &str) -> Result<Command, ParseError> {
    let mut it = after.split_whitespace();
    let index = parse_index(line, it.next(), "a buffer index")?;
    let (ty, _) = parse_type(line, it.next())?;
    let offset = parse_u32(line, it.next(), "a byte offset")? as u64;
    // The rest starts at the `(`.
    let Some(open) = after.find('(') else {
        return Err(ParseError::new(
            line,
            "expected `(` starting the expected values",
        ));
    };
    let head_words = after[..open].split_whitespace().count();
    if head_words != 3 {
        return Err(ParseError::new(
            line,
            "expected `probe buffer N TYPE OFFSET (values...)`",
        ));
    }
    let (inner, tail) = take_parens(line, &after[open..], "the expected values")?;
    let values = parse_values(line, ty, &inner)?;
    if values.is_empty() {
        return Err(ParseError::new(line, "expected at least one value"));
    }
    let ulp = parse_ulp(line, &tail, ty)?;
    Ok(Command::ProbeBuffer {
        index,
        offset,
        expected: Expected {
            value_type: ty,
            values,
            ulp,
        },
    })
}

/// `probe vertex V OUT[K] TYPE (v0, v1, v2, v3) [ulp U]`.
fn probe_vertex(line: usize, after: &str) -> Result<Command, ParseError> {
    let mut it = after.split_whitespace();
    let vertex = parse_u32(line, it.next(), "a vertex index")?;
    let out = it.next().unwrap_or_default();
    let output = out
        .strip_prefix("OUT[")
        .or_else(|| out.strip_prefix("out["))
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|n| n.parse::<u32>().ok())
        .ok_or_else(|| {
            ParseError::new(line, format!("expected an output `OUT[k]`, found `{out}`"))
        })?;
    let (ty, _) = parse_type(line, it.next())?;
    let Some(open) = after.find('(') else {
        return Err(ParseError::new(
            line,
            "expected `(` starting the expected values",
        ));
    };
    if after[..open].split_whitespace().count() != 3 {
        return Err(ParseError::new(
            line,
            "expected `probe vertex V OUT[K] TYPE (v0, v1, v2, v3)`",
        ));
    }
    let (inner, tail) = take_parens(line, &after[open..], "the expected values")?;
    let values = parse_values(line, ty, &inner)?;
    let want = 4 / ty.words_per_value();
    if values.len() != want {
        return Err(ParseError::new(
            line,
            format!(
                "expected {want} `{}` values for one output, found {}",
                ty.word(),
                values.len()
            ),
        ));
    }
    let ulp = parse_ulp(line, &tail, ty)?;
    Ok(Command::ProbeVertex {
        vertex,
        output,
        expected: Expected {
            value_type: ty,
            values,
            ulp,
        },
    })
}

/// `KIND (v, ...) [ulp U]` of a pixel probe: `rgba` (floats), `rgbaui`
/// (unsigned), `rgbai` (signed); also `r`, `rg`, `rgb` and their `ui`/`i`
/// forms, which compare the first 1 to 3 channels. A bare number after the
/// parentheses is taken as `ulp` (vkd3d's spelling).
fn parse_pixel_expected(line: usize, text: &str) -> Result<Expected, ParseError> {
    let t = text.trim_start();
    let kind = t
        .split(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or_default();
    let (channels, value_type) = match kind {
        "r" => (1, ValueType::Float),
        "rg" => (2, ValueType::Float),
        "rgb" => (3, ValueType::Float),
        "rgba" => (4, ValueType::Float),
        "rui" => (1, ValueType::Uint),
        "rgui" => (2, ValueType::Uint),
        "rgbui" => (3, ValueType::Uint),
        "rgbaui" => (4, ValueType::Uint),
        "ri" => (1, ValueType::Int),
        "rgi" => (2, ValueType::Int),
        "rgbi" => (3, ValueType::Int),
        "rgbai" => (4, ValueType::Int),
        _ => {
            return Err(ParseError::new(
                line,
                format!(
                    "expected `rgba`, `rgbaui` or `rgbai`, found `{}`",
                    first_word(t)
                ),
            ));
        }
    };
    let (inner, tail) = take_parens(line, &t[kind.len()..], "the expected colour")?;
    let values = parse_values(line, value_type, &inner)?;
    if values.len() != channels {
        return Err(ParseError::new(
            line,
            format!(
                "`{kind}` takes {channels} colour value(s), found {}",
                values.len()
            ),
        ));
    }
    let tail = tail.trim();
    let ulp = match tail.parse::<u64>() {
        Ok(u) if value_type == ValueType::Float => Some(u),
        _ => parse_ulp(line, tail, value_type)?,
    };
    Ok(Expected {
        value_type,
        values,
        ulp,
    })
}
