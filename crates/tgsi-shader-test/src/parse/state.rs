//! Render-state commands (`viewport`, `scissor`, `cull`, `front`, `depth`,
//! `stencil`, `blend`): the [`RenderState`] each one sets and its parser.

use super::ParseError;
use super::words::{no_more, parse_index, parse_u32, parse_values, take_parens};
use crate::values::ValueType;
use tgsi_pipeline::state as ps;

/// A render-state command: what it changes.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderState {
    pub change: StateChange,
}

/// The change one render-state command makes.
#[derive(Clone, Debug, PartialEq)]
pub enum StateChange {
    Viewport(tgsi_pipeline::Viewport),
    /// `scissor off` is None.
    Scissor(Option<tgsi_pipeline::Rect>),
    Cull(tgsi_pipeline::CullMode),
    Front(tgsi_pipeline::FrontFace),
    /// `depth FUNC` / `depth off`.
    Depth(Option<tgsi_pipeline::CompareFunc>),
    DepthWrite(bool),
    /// `stencil ...` / `stencil off`.
    Stencil(Option<tgsi_pipeline::StencilState>),
    /// `blend N ...` / `blend N off`.
    Blend(u32, Option<tgsi_pipeline::BlendState>),
    BlendFactor([f32; 4]),
}

impl StateChange {
    /// Applies the change to the pipeline's state.
    pub fn apply(&self, s: &mut tgsi_pipeline::RenderState) {
        match self {
            StateChange::Viewport(v) => s.viewport = Some(*v),
            StateChange::Scissor(r) => s.scissor = *r,
            StateChange::Cull(c) => s.cull = *c,
            StateChange::Front(f) => s.front = *f,
            StateChange::Depth(None) => s.depth.enabled = false,
            StateChange::Depth(Some(f)) => {
                s.depth.enabled = true;
                s.depth.func = *f;
            }
            StateChange::DepthWrite(w) => s.depth.write = *w,
            StateChange::Stencil(None) => s.stencil.enabled = false,
            StateChange::Stencil(Some(st)) => s.stencil = *st,
            StateChange::Blend(n, b) => {
                if let Some(slot) = s.blend.get_mut(*n as usize) {
                    let mask = slot.write_mask;
                    *slot = b.unwrap_or_default();
                    slot.write_mask = mask;
                }
            }
            StateChange::BlendFactor(k) => s.blend_factor = *k,
        }
    }
}

/// A word of one of the pipeline's name tables.
fn named<T: Copy>(
    line: usize,
    w: Option<&str>,
    from_name: fn(&str) -> Option<T>,
    names: String,
    what: &str,
) -> Result<T, ParseError> {
    w.and_then(from_name).ok_or_else(|| {
        ParseError::new(
            line,
            format!(
                "expected {what} ({names}), found `{}`",
                w.unwrap_or("end of line")
            ),
        )
    })
}

/// Four or six numbers in parentheses (`viewport`, `scissor`, `blend factor`).
fn parse_float_tuple(
    line: usize,
    text: &str,
    what: &str,
    counts: &[usize],
) -> Result<Vec<f32>, ParseError> {
    let (inner, tail) = take_parens(line, text, what)?;
    no_more(line, tail.split_whitespace())?;
    let v = parse_values(line, ValueType::Float, &inner)?;
    if !counts.contains(&v.len()) {
        return Err(ParseError::new(
            line,
            format!("{what} takes {counts:?} numbers, found {}", v.len()),
        ));
    }
    Ok(v.iter().map(|b| f32::from_bits(*b as u32)).collect())
}

fn parse_u8(line: usize, w: Option<&str>, what: &str) -> Result<u8, ParseError> {
    let v = parse_u32(line, w, what)?;
    u8::try_from(v).map_err(|_| ParseError::new(line, format!("{what} {v} is above 255")))
}

/// The render-state commands.
pub(super) fn parse_state(line: usize, verb: &str, rest: &str) -> Result<RenderState, ParseError> {
    match verb {
        "viewport" => parse_viewport(line, rest),
        "scissor" => parse_scissor(line, rest),
        "cull" => parse_cull(line, rest),
        "front" => parse_front(line, rest),
        "depth" => parse_depth(line, rest),
        "stencil" => parse_stencil(line, rest),
        _ => parse_blend(line, rest),
    }
}

/// The command's state.
fn state(change: StateChange) -> RenderState {
    RenderState { change }
}

/// `viewport (X, Y, W, H[, MIN_DEPTH, MAX_DEPTH])`.
fn parse_viewport(line: usize, rest: &str) -> Result<RenderState, ParseError> {
    let v = parse_float_tuple(line, rest, "the viewport", &[4, 6])?;
    // Direct3D 11's bounds (D3D11_VIEWPORT): sizes not negative, depths 0..1
    let problem = if v.iter().any(|x| !x.is_finite()) {
        Some("its numbers must be finite")
    } else if v[2] < 0.0 || v[3] < 0.0 {
        Some("its width and height must not be negative")
    } else if v[4..].iter().any(|d| !(0.0..=1.0).contains(d)) {
        Some("its depths must be from 0 to 1")
    } else {
        None
    };
    if let Some(problem) = problem {
        return Err(ParseError::new(
            line,
            format!("the viewport {v:?}: {problem}"),
        ));
    }
    let vp = ps::Viewport {
        x: v[0],
        y: v[1],
        width: v[2],
        height: v[3],
        min_depth: v.get(4).copied().unwrap_or(0.0),
        max_depth: v.get(5).copied().unwrap_or(1.0),
    };
    Ok(state(StateChange::Viewport(vp)))
}

/// `scissor (X, Y, W, H)`, `scissor off`.
fn parse_scissor(line: usize, rest: &str) -> Result<RenderState, ParseError> {
    if rest.trim() == "off" {
        return Ok(state(StateChange::Scissor(None)));
    }
    let v = parse_float_tuple(line, rest, "the scissor rectangle", &[4])?;
    if v.iter().any(|x| !x.is_finite()) {
        return Err(ParseError::new(
            line,
            format!("the scissor rectangle {v:?}: its numbers must be finite"),
        ));
    }
    let r = ps::Rect {
        x: v[0] as i64,
        y: v[1] as i64,
        width: v[2] as i64,
        height: v[3] as i64,
    };
    Ok(state(StateChange::Scissor(Some(r))))
}

/// `cull MODE`.
fn parse_cull(line: usize, rest: &str) -> Result<RenderState, ParseError> {
    let mut it = rest.split_whitespace();
    let c = named(
        line,
        it.next(),
        ps::CullMode::from_name,
        ps::CullMode::names(),
        "a cull mode",
    )?;
    no_more(line, it)?;
    Ok(state(StateChange::Cull(c)))
}

/// `front WINDING`.
fn parse_front(line: usize, rest: &str) -> Result<RenderState, ParseError> {
    let mut it = rest.split_whitespace();
    let f = named(
        line,
        it.next(),
        ps::FrontFace::from_name,
        ps::FrontFace::names(),
        "a winding",
    )?;
    no_more(line, it)?;
    Ok(state(StateChange::Front(f)))
}

/// `depth FUNC`, `depth off`, `depth write on|off`.
fn parse_depth(line: usize, rest: &str) -> Result<RenderState, ParseError> {
    let mut it = rest.split_whitespace();
    match it.next() {
        Some("off") => {
            no_more(line, it)?;
            Ok(state(StateChange::Depth(None)))
        }
        Some("write") => {
            let on = match it.next() {
                Some("on") => true,
                Some("off") => false,
                w => {
                    return Err(ParseError::new(
                        line,
                        format!("expected on or off, found `{}`", w.unwrap_or("end of line")),
                    ));
                }
            };
            no_more(line, it)?;
            Ok(state(StateChange::DepthWrite(on)))
        }
        w => {
            let f = named(
                line,
                w,
                ps::CompareFunc::from_name,
                ps::CompareFunc::names(),
                "a depth function or `off`",
            )?;
            no_more(line, it)?;
            Ok(state(StateChange::Depth(Some(f))))
        }
    }
}

/// `stencil FUNC REF [READ_MASK WRITE_MASK] [FAIL DEPTH_FAIL PASS]`,
/// `stencil off`: both faces alike.
fn parse_stencil(line: usize, rest: &str) -> Result<RenderState, ParseError> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    if words == ["off"] {
        return Ok(state(StateChange::Stencil(None)));
    }
    let func = named(
        line,
        words.first().copied(),
        ps::CompareFunc::from_name,
        ps::CompareFunc::names(),
        "a stencil function or `off`",
    )?;
    if !matches!(words.len(), 2 | 4 | 5 | 7) {
        return Err(ParseError::new(
            line,
            "expected `stencil FUNC REF [READ_MASK WRITE_MASK] [FAIL DEPTH_FAIL PASS]`",
        ));
    }
    let reference = parse_u8(line, Some(words[1]), "a stencil reference")?;
    let masked = matches!(words.len(), 4 | 7);
    let (read_mask, write_mask) = if masked {
        (
            parse_u8(line, Some(words[2]), "a stencil mask")?,
            parse_u8(line, Some(words[3]), "a stencil mask")?,
        )
    } else {
        (0xff, 0xff)
    };
    let ops = stencil_ops(line, &words[if masked { 4 } else { 2 }..])?;
    let face = ps::StencilFace {
        func,
        fail: ops[0],
        depth_fail: ops[1],
        pass: ops[2],
    };
    Ok(state(StateChange::Stencil(Some(ps::StencilState {
        enabled: true,
        reference,
        read_mask,
        write_mask,
        front: face,
        back: face,
    }))))
}

/// The fail, depth-fail and pass operations of `stencil` (`keep` when not
/// given).
fn stencil_ops(line: usize, op_words: &[&str]) -> Result<[ps::StencilOp; 3], ParseError> {
    let mut ops = [ps::StencilOp::Keep; 3];
    for (k, w) in op_words.iter().enumerate() {
        ops[k] = named(
            line,
            Some(w),
            ps::StencilOp::from_name,
            ps::StencilOp::names(),
            "a stencil operation",
        )?;
    }
    Ok(ops)
}

/// `blend factor (r, g, b, a)`, `blend N off`,
/// `blend N SRC DST OP [SRC_A DST_A OP_A]`.
fn parse_blend(line: usize, rest: &str) -> Result<RenderState, ParseError> {
    let mut it = rest.split_whitespace();
    let first = it.next();
    if first == Some("factor") {
        let after = rest.trim_start().strip_prefix("factor").unwrap_or_default();
        let v = parse_float_tuple(line, after, "the blend factor", &[4])?;
        return Ok(state(StateChange::BlendFactor([v[0], v[1], v[2], v[3]])));
    }
    let n = parse_index(line, first, "a render target index or `factor`")?;
    if n as usize >= tgsi_exec::MAX_TARGETS {
        return Err(ParseError::new(
            line,
            format!("render target {n} is out of range (0 to 7)"),
        ));
    }
    let words: Vec<&str> = it.collect();
    if words == ["off"] {
        return Ok(state(StateChange::Blend(n, None)));
    }
    if words.len() != 3 && words.len() != 6 {
        return Err(ParseError::new(
            line,
            "expected `blend N off` or `blend N SRC DST OP [SRC_A DST_A OP_A]`",
        ));
    }
    let blend = blend_state(line, &words)?;
    Ok(state(StateChange::Blend(n, Some(blend))))
}

/// The factors and operations of `blend N`: three words for colour, then
/// three for alpha (when absent, alpha follows colour).
fn blend_state(line: usize, words: &[&str]) -> Result<ps::BlendState, ParseError> {
    let mut triples = Vec::new();
    for triple in words.chunks(3) {
        let f = |w: &str| {
            named(
                line,
                Some(w),
                ps::BlendFactor::from_name,
                ps::BlendFactor::names(),
                "a blend factor",
            )
        };
        triples.push((
            f(triple[0])?,
            f(triple[1])?,
            named(
                line,
                Some(triple[2]),
                ps::BlendOp::from_name,
                ps::BlendOp::names(),
                "a blend operation",
            )?,
        ));
    }
    let (src, dst, op) = triples[0];
    let (src_alpha, dst_alpha, op_alpha) =
        triples
            .get(1)
            .copied()
            .unwrap_or((src.for_alpha(), dst.for_alpha(), op));
    Ok(ps::BlendState {
        enabled: true,
        src,
        dst,
        op,
        src_alpha,
        dst_alpha,
        op_alpha,
        write_mask: 0xF,
    })
}
