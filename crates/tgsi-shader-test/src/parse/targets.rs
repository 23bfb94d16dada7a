//! `[render target N]` and `[depth target]`: their format, size and
//! sample count.

use super::words::{no_more, parse_format, parse_index, parse_u32, parse_u32_list, take_parens};
use super::{Line, ParseError, RenderTargetSection, Section, TextureFormat, is_comment_or_blank};

/// The `size (W, H)` line of a target section.
fn parse_target_size(line: usize, text: &str) -> Result<[u32; 2], ParseError> {
    let rest = text.trim_start().strip_prefix("size").unwrap_or_default();
    let (inner, tail) = take_parens(line, rest, "the size")?;
    no_more(line, tail.split_whitespace())?;
    let v = parse_u32_list(line, &inner, "a target size", 2..=2)?;
    if v[0] == 0 || v[1] == 0 || u64::from(v[0]) * u64::from(v[1]) > 1 << 24 {
        return Err(ParseError::new(
            line,
            "a target must be 1×1 to 4096×4096 pixels",
        ));
    }
    Ok([v[0], v[1]])
}

pub(super) fn parse_render_target(
    line: usize,
    n: &str,
    body: &[Line<'_>],
) -> Result<RenderTargetSection, ParseError> {
    let mut rt = RenderTargetSection {
        index: parse_index(line, Some(n), "a render target index")?,
        format: TextureFormat::Rgba32Float,
        size: [64, 64],
        samples: 1,
    };
    if rt.index >= 8 {
        return Err(ParseError::new(
            line,
            format!("render target {} is out of range (0 to 7)", rt.index),
        ));
    }
    for l in body.iter().filter(|l| !is_comment_or_blank(l.text)) {
        let mut it = l.text.split_whitespace();
        match it.next().unwrap_or_default() {
            "format" => {
                rt.format = parse_format(l.number, it.next().unwrap_or_default())?;
                no_more(l.number, it)?;
                if rt.format.is_depth() {
                    return Err(ParseError::new(
                        l.number,
                        "a depth format belongs in [depth target]",
                    ));
                }
            }
            "size" => rt.size = parse_target_size(l.number, l.text)?,
            "samples" => {
                let n = parse_u32(l.number, it.next(), "a sample count")?;
                no_more(l.number, it)?;
                if !matches!(n, 1 | 2 | 4 | 8 | 16) {
                    return Err(ParseError::new(
                        l.number,
                        format!("{n} samples per pixel (expected 1, 2, 4, 8 or 16)"),
                    ));
                }
                rt.samples = n;
            }
            other => {
                return Err(ParseError::new(
                    l.number,
                    format!(
                        "unknown render target setting `{other}` (expected format, size or samples)"
                    ),
                ));
            }
        }
    }
    Ok(rt)
}

pub(super) fn parse_depth_target(body: &[Line<'_>]) -> Result<Section, ParseError> {
    let mut format = "d32f".to_string();
    let mut size = [64, 64];
    for l in body.iter().filter(|l| !is_comment_or_blank(l.text)) {
        let mut it = l.text.split_whitespace();
        match it.next().unwrap_or_default() {
            "format" => {
                let w = it.next().unwrap_or_default();
                if !matches!(w, "d32f" | "d24s8" | "d16") {
                    return Err(ParseError::new(
                        l.number,
                        format!("unknown depth format `{w}` (expected d32f, d24s8 or d16)"),
                    ));
                }
                format = w.to_string();
                no_more(l.number, it)?;
            }
            "size" => size = parse_target_size(l.number, l.text)?,
            other => {
                return Err(ParseError::new(
                    l.number,
                    format!("unknown depth target setting `{other}` (expected format or size)"),
                ));
            }
        }
    }
    Ok(Section::DepthTarget { format, size })
}
