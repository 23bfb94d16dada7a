//! A trace as JSON Lines, as the trace contract (`docs/debugging.md`)
//! defines it: a `start` line, one `step` line per step, an `end` line.

use super::{NamedWrite, Selector, Status, Target, Trace, TraceStep};
use std::io::{self, Write};

/// A JSON string literal.
fn string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// A float as a JSON number (shortest text that reads back to the same
/// value), or `null` for NaN and infinities.
fn number32(v: f32) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "null".to_string()
    }
}

fn number64(v: f64) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "null".to_string()
    }
}

fn list(v: &[u32]) -> String {
    let items: Vec<String> = v.iter().map(u32::to_string).collect();
    format!("[{}]", items.join(","))
}

/// The `invocation` object: the selector's numbers (for a pixel, the
/// primitive that was found).
fn invocation(t: &Trace) -> String {
    match t.selector {
        Selector::Thread { group, thread } => {
            format!(
                "{{\"group\":{},\"thread\":{}}}",
                list(&group),
                list(&thread)
            )
        }
        Selector::Vertex { vertex, instance } => {
            format!("{{\"vertex\":{vertex},\"instance\":{instance}}}")
        }
        Selector::Pixel { x, y, sample, .. } => {
            let primitive = match t.identity {
                super::Identity::Fragment { primitive, .. } => primitive,
                _ => 0,
            };
            format!("{{\"pixel\":[{x},{y}],\"sample\":{sample},\"primitive\":{primitive}}}")
        }
        Selector::Primitive {
            primitive,
            invocation,
        } => format!("{{\"primitive\":{primitive},\"invocation\":{invocation}}}"),
        Selector::Domain {
            primitive,
            coord,
            w,
        } => {
            // w as given, else the point's (1 - u - v on triangles)
            let w = w.unwrap_or(match t.identity {
                super::Identity::Domain { coord, .. } => coord[2],
                _ => 0.0,
            });
            format!(
                "{{\"primitive\":{primitive},\"invocation\":0,\"domain\":[{},{},{}]}}",
                number32(coord[0]),
                number32(coord[1]),
                number32(w)
            )
        }
    }
}

fn hex32(w: u32) -> String {
    format!("\"0x{w:08x}\"")
}

fn write_object(w: &NamedWrite) -> String {
    let word = w.word;
    match &w.target {
        Target::Reg(reg) => {
            let mut o = format!(
                "{{\"reg\":{},\"u32\":{},\"f32\":{}",
                string(reg),
                hex32(word),
                number32(f32::from_bits(word))
            );
            if let Some(v) = w.wide {
                o.push_str(&format!(
                    ",\"u64\":\"0x{v:016x}\",\"f64\":{}",
                    number64(f64::from_bits(v))
                ));
            }
            o.push('}');
            o
        }
        Target::Memory { mem, offset } => format!(
            "{{\"mem\":{},\"offset\":{offset},\"u32\":{}}}",
            string(mem),
            hex32(word)
        ),
        Target::Image { mem, coord } => {
            let texel = w.texel.as_deref().unwrap_or(&[]);
            let words: Vec<String> = texel.iter().map(|x| hex32(*x)).collect();
            format!(
                "{{\"mem\":{},\"coord\":{},\"u32s\":[{}]}}",
                string(mem),
                list(coord),
                words.join(",")
            )
        }
    }
}

/// One `step` line (without the newline).
pub fn write_json_step(t: &Trace, k: usize, step: &TraceStep) -> String {
    let inst = t.instruction(step);
    let writes: Vec<String> = step.writes.iter().map(write_object).collect();
    format!(
        "{{\"kind\":\"step\",\"step\":{k},\"pc\":{},\"line\":{},\"text\":{},\"writes\":[{}]}}",
        inst.pc,
        inst.line,
        string(&inst.text),
        writes.join(",")
    )
}

/// The whole trace as JSON Lines.
pub fn write_json(t: &Trace, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "{{\"kind\":\"start\",\"source\":\"{}\",\"stage\":\"{}\",\"file\":{},\"invocation\":{}}}",
        t.language.name(),
        t.stage,
        string(&t.file),
        invocation(t)
    )?;
    for (k, step) in t.steps.iter().enumerate() {
        writeln!(out, "{}", write_json_step(t, k, step))?;
    }
    let status = match &t.status {
        Status::Ok => "\"ok\"".to_string(),
        Status::Killed => "\"killed\"".to_string(),
        Status::Budget => "\"budget\"".to_string(),
        Status::Error(m) => format!("\"error\",\"message\":{}", string(m)),
    };
    writeln!(
        out,
        "{{\"kind\":\"end\",\"steps\":{},\"status\":{status}}}",
        t.steps.len()
    )
}
