//! The commands of a `[test]` section: their data ([`Command`], the
//! [`Expected`] values of probes), the dispatch of a command line by its
//! verb, and `uniform`, `dispatch`, `draw`, `clear`, `run vertices` and
//! `expect error`. Render state is parsed in `state.rs`, probes in
//! `probes.rs`.

use super::probes::parse_probe;
use super::state::parse_state;
use super::words::{
    no_more, parse_f32, parse_index, parse_typed_line, parse_u32, parse_values, take_parens,
};
use super::{MAX_INDEX, ParseError, RenderState};
use crate::values::ValueType;

/// What a probe compares against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub value_type: ValueType,
    /// Values (64-bit patterns; 32-bit types in the low half).
    pub values: Vec<u64>,
    /// `ulp U` when given (floats then compare within U units in the
    /// last place, a normalized target's pixel too, not within 1/255).
    pub ulp: Option<u64>,
}

/// One command of a `[test]` section.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Uniform {
        slot: u32,
        words: Vec<u32>,
    },
    Dispatch([u32; 3]),
    /// `draw quad [W H]` (`size` when given).
    DrawQuad {
        size: Option<[u32; 2]>,
    },
    /// `draw [indexed] TOPOLOGY N [instances K]`: the drawing pipeline
    /// (`topology` as [`tgsi_pipeline::Topology`] prints it).
    Draw {
        indexed: bool,
        topology: String,
        vertices: u32,
        instances: u32,
    },
    /// `clear rt N (r, g, b, a)` (float bits).
    ClearTarget {
        target: u32,
        color: [u32; 4],
    },
    /// `clear depth D [stencil S]`.
    ClearDepth {
        /// Float bits.
        depth: u32,
        stencil: Option<u32>,
    },
    /// `viewport`, `scissor`, `cull`, `front`, `depth`, `stencil`, `blend`.
    State(RenderState),
    RunVertices(u32),
    /// `probe [rt N] (X, Y) KIND (...)`.
    ProbePixel {
        target: u32,
        x: u32,
        y: u32,
        expected: Expected,
    },
    /// `probe [rt N] rect (X, Y, W, H) KIND (...)` (`rect` = x, y, w, h) or
    /// `probe [rt N] all KIND (...)` (`rect` = None).
    ProbeRect {
        target: u32,
        rect: Option<[u32; 4]>,
        expected: Expected,
    },
    /// `probe depth (X, Y) (d) [ulp U]` / `probe stencil (X, Y) S`.
    ProbeDepthStencil {
        stencil: bool,
        x: u32,
        y: u32,
        value: u64,
        ulp: u64,
    },
    ProbeBuffer {
        index: u32,
        offset: u64,
        expected: Expected,
    },
    ProbeImage {
        index: u32,
        coords: Vec<u32>,
        /// `rgba` (and `r`, `rg`, `rgb`) values are read as floats; the
        /// runner re-reads `values_text` as integers when the image has an
        /// integer format. `rgbaui`/`rgbai` (and the shorter forms) compare
        /// the texel's words.
        expected: Expected,
        /// The text between the parentheses after the kind.
        values_text: String,
    },
    ProbeVertex {
        vertex: u32,
        output: u32,
        expected: Expected,
    },
    ExpectError(String),
}

impl Command {
    /// True for commands that need fragment shading, textures or images.
    pub fn needs_rendering(&self) -> bool {
        matches!(
            self,
            Command::DrawQuad { .. }
                | Command::Draw { .. }
                | Command::ClearTarget { .. }
                | Command::ProbePixel { .. }
                | Command::ProbeRect { .. }
                | Command::ProbeImage { .. }
        )
    }
}

pub(super) fn parse_command(line: usize, text: &str) -> Result<Command, ParseError> {
    let (verb, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let mut words = rest.split_whitespace();
    match verb {
        "uniform" => {
            let slot = parse_u32(line, words.next(), "a vec4 slot")?;
            if slot >= MAX_INDEX * 16 {
                return Err(ParseError::new(line, format!("slot {slot} is too large")));
            }
            let rest = rest.trim_start();
            let after_slot = rest
                .split_once(char::is_whitespace)
                .map(|(_, r)| r)
                .unwrap_or("");
            if after_slot.trim().is_empty() {
                return Err(ParseError::new(
                    line,
                    "expected a value type and values after the slot",
                ));
            }
            let words = parse_typed_line(line, after_slot)?;
            if words.is_empty() {
                return Err(ParseError::new(
                    line,
                    "expected values after the value type",
                ));
            }
            Ok(Command::Uniform { slot, words })
        }
        "dispatch" => {
            let mut g = [0u32; 3];
            for (k, what) in ["X", "Y", "Z"].iter().enumerate() {
                g[k] = parse_u32(line, words.next(), &format!("a group count {what}"))?;
            }
            no_more(line, words)?;
            Ok(Command::Dispatch(g))
        }
        "draw" => parse_draw(line, rest),
        "clear" => parse_clear(line, rest),
        "viewport" | "scissor" | "cull" | "front" | "depth" | "stencil" | "blend" => {
            parse_state(line, verb, rest).map(Command::State)
        }
        "run" => {
            match words.next() {
                Some("vertices") => {}
                other => {
                    return Err(ParseError::new(
                        line,
                        format!(
                            "expected `run vertices N`, found `run {}`",
                            other.unwrap_or("")
                        ),
                    ));
                }
            }
            let n = parse_u32(line, words.next(), "a vertex count")?;
            no_more(line, words)?;
            if n > 1 << 20 {
                return Err(ParseError::new(line, "too many vertices (limit 1048576)"));
            }
            Ok(Command::RunVertices(n))
        }
        "probe" => parse_probe(line, rest),
        "expect" => {
            let r = rest.trim_start();
            let Some(msg) = r.strip_prefix("error") else {
                return Err(ParseError::new(line, "expected `expect error TEXT`"));
            };
            if !msg.is_empty() && !msg.starts_with(char::is_whitespace) {
                return Err(ParseError::new(line, "expected `expect error TEXT`"));
            }
            let msg = msg.trim();
            // A quoted TEXT means the text between the quotes.
            let msg = msg
                .strip_prefix('"')
                .and_then(|m| m.strip_suffix('"'))
                .unwrap_or(msg);
            Ok(Command::ExpectError(msg.to_string()))
        }
        other => Err(ParseError::new(
            line,
            format!(
                "unknown command `{other}` (expected uniform, dispatch, draw, clear, viewport, scissor, cull, front, depth, stencil, blend, run vertices, probe or expect error)"
            ),
        )),
    }
}

/// `draw quad [W H]`, `draw [indexed] TOPOLOGY N [instances K]`.
fn parse_draw(line: usize, rest: &str) -> Result<Command, ParseError> {
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    if words.first() == Some(&"quad") {
        let mut it = words[1..].iter().copied();
        let size = match it.next() {
            None => None,
            Some(w) => {
                let w = parse_u32(line, Some(w), "a width")?;
                let h = parse_u32(line, it.next(), "a height")?;
                no_more(line, it)?;
                if w == 0 || h == 0 || u64::from(w) * u64::from(h) > 1 << 24 {
                    return Err(ParseError::new(
                        line,
                        "the render target must be 1×1 to 4096×4096 pixels",
                    ));
                }
                Some([w, h])
            }
        };
        return Ok(Command::DrawQuad { size });
    }
    let indexed = words.first() == Some(&"indexed");
    if indexed {
        words.remove(0);
    }
    if words.is_empty() {
        return Err(ParseError::new(
            line,
            "expected `draw quad`, `draw TOPOLOGY N` or `draw indexed TOPOLOGY N`",
        ));
    }
    let (topology, used) =
        tgsi_pipeline::Topology::parse_words(&words).map_err(|e| ParseError::new(line, e))?;
    let topology = topology.to_string();
    let mut it = words[used..].iter().copied();
    let vertices = parse_u32(line, it.next(), "a vertex count")?;
    let instances = match it.next() {
        None => 1,
        Some("instances") => parse_u32(line, it.next(), "an instance count")?,
        Some(w) => {
            return Err(ParseError::new(
                line,
                format!("expected `instances K` or end of line, found `{w}`"),
            ));
        }
    };
    no_more(line, it)?;
    Ok(Command::Draw {
        indexed,
        topology,
        vertices,
        instances,
    })
}

/// `clear rt N (r, g, b, a)`, `clear depth D [stencil S]`.
fn parse_clear(line: usize, rest: &str) -> Result<Command, ParseError> {
    let r = rest.trim_start();
    let (what, after) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
    match what {
        "rt" => {
            let after = after.trim_start();
            let (n, tail) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
            let target = parse_index(line, Some(n), "a render target index")?;
            if target >= 8 {
                return Err(ParseError::new(
                    line,
                    format!("render target {target} is out of range (0 to 7)"),
                ));
            }
            let (inner, tail) = take_parens(line, tail, "the clear colour")?;
            no_more(line, tail.split_whitespace())?;
            let v = parse_values(line, ValueType::Float, &inner)?;
            if v.len() != 4 {
                return Err(ParseError::new(
                    line,
                    format!("expected 4 colour values, found {}", v.len()),
                ));
            }
            Ok(Command::ClearTarget {
                target,
                color: [v[0] as u32, v[1] as u32, v[2] as u32, v[3] as u32],
            })
        }
        "depth" => {
            let mut it = after.split_whitespace();
            let depth = parse_f32(line, it.next(), "a depth")?;
            let stencil = match it.next() {
                None => None,
                Some("stencil") => Some(parse_u32(line, it.next(), "a stencil value")?),
                Some(w) => {
                    return Err(ParseError::new(
                        line,
                        format!("expected `stencil S` or end of line, found `{w}`"),
                    ));
                }
            };
            no_more(line, it)?;
            Ok(Command::ClearDepth {
                depth: depth.to_bits(),
                stencil,
            })
        }
        _ => Err(ParseError::new(
            line,
            format!("expected `clear rt N (r, g, b, a)` or `clear depth D`, found `clear {r}`"),
        )),
    }
}
