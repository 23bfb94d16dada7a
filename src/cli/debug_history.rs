//! `tgsi debug ... --pixel X,Y --history`: every fragment that reached a
//! pixel, in draw order: its draw and primitive, whether its shader ran to
//! the end or discarded it, its outputs, and for each sample the
//! depth/stencil test and the colours before and after (RenderDoc's pixel
//! history). The draw then tests and merges fragment by fragment after
//! shading, so fragments an early depth test would have dropped are listed
//! with the test they fail.

use super::debug::{DebugArgs, is_test_file, run_draw, run_test, test_number};
use super::input::display_name;
use anyhow::{Result, bail};
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use tgsi::debug::{Selector, Source, Status, Tracer};
use tgsi::enums::Processor;
use tgsi::exec::trace::{ANY_SAMPLE, HistoryEvent, MergeEvent};
use tgsi::shader_test::TraceRequest;

pub fn history(args: &DebugArgs, selector: Selector) -> Result<ExitCode> {
    let Selector::Pixel { x, y, .. } = selector else {
        bail!("--history follows a pixel: give --pixel X,Y");
    };
    let selector = Selector::Pixel {
        x,
        y,
        sample: ANY_SAMPLE,
        primitive: None,
    };
    let tracer = Arc::new(Tracer::with_history(selector));
    let (source, ran) = if is_test_file(args) {
        let n = test_number(args, &display_name(&args.file))?;
        let (source, ran, _) = run_test(args, TraceRequest::history(n, tracer.clone()))?;
        (source, ran)
    } else {
        match run_draw(args, Some(Processor::Fragment), &tracer)? {
            Some(done) => done,
            None => return Ok(ExitCode::from(1)),
        }
    };
    let events = tracer.take_history();
    if events.is_empty() {
        ran?;
        bail!("{}: no fragment reached pixel ({x}, {y})", source.name);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if args.json {
        write_json(&source, selector, &events, &mut out)
    } else {
        write_text(&source, selector, x, y, &events, &mut out)
    };
    match written.and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        r => r.map(|_| ExitCode::SUCCESS).map_err(Into::into),
    }
}

fn status_word(s: &Status) -> String {
    match s {
        Status::Ok => "ok".into(),
        Status::Killed => "killed".into(),
        Status::Budget => "budget".into(),
        Status::Error(m) => format!("error: {m}"),
    }
}

fn words(v: &[u32; 4]) -> String {
    let parts: Vec<String> = v
        .iter()
        .map(|w| format!("{:?}", f32::from_bits(*w)))
        .collect();
    format!("({})", parts.join(", "))
}

fn merge_text(e: &MergeEvent) -> String {
    let mut t = format!("  sample {}:", e.sample);
    match e.depth_test {
        Some((true, d, stored)) => t.push_str(&format!(
            " depth/stencil test passed (depth {d:?}, stored {stored:?})"
        )),
        Some((false, d, stored)) => {
            return format!(
                "{t} depth/stencil test failed (depth {d:?}, stored {stored:?}): nothing written"
            );
        }
        None => t.push_str(" no depth test"),
    }
    for (n, before, after) in &e.colors {
        t.push_str(&format!(
            "; target {n}: {} -> {}",
            words(before),
            words(after)
        ));
    }
    if e.colors.is_empty() {
        t.push_str("; no colour written");
    }
    t
}

fn write_text(
    source: &Source,
    selector: Selector,
    x: u32,
    y: u32,
    events: &[HistoryEvent],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let shaded = events
        .iter()
        .filter(|e| matches!(e, HistoryEvent::Shaded { .. }))
        .count();
    writeln!(out, "pixel ({x}, {y}): {shaded} fragment(s) in draw order")?;
    for e in events {
        match e {
            HistoryEvent::Shaded { draw, trace } => {
                let t = source.trace(trace.clone(), selector);
                let primitive = match t.identity {
                    tgsi::debug::Identity::Fragment { primitive, .. } => primitive,
                    _ => 0,
                };
                let what = match &t.status {
                    Status::Killed => "discarded by the shader".to_string(),
                    s => format!("shaded ({})", status_word(s)),
                };
                writeln!(
                    out,
                    "draw {draw}, primitive {primitive}: {what} in {} steps",
                    t.steps.len()
                )?;
                if t.status != Status::Killed {
                    let outs: Vec<String> = t
                        .outputs
                        .iter()
                        .map(|v| format!("{} = {:?}", v.name, f32::from_bits(v.word)))
                        .collect();
                    writeln!(out, "  outputs: {}", outs.join(", "))?;
                }
            }
            HistoryEvent::Merged(m) => writeln!(out, "{}", merge_text(m))?,
        }
    }
    Ok(())
}

fn hex(v: &[u32; 4]) -> String {
    let parts: Vec<String> = v.iter().map(|w| format!("\"0x{w:08x}\"")).collect();
    format!("[{}]", parts.join(","))
}

fn float(v: f32) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "null".into()
    }
}

fn write_json(
    source: &Source,
    selector: Selector,
    events: &[HistoryEvent],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for e in events {
        match e {
            HistoryEvent::Shaded { draw, trace } => {
                let t = source.trace(trace.clone(), selector);
                let (primitive, samples) = match t.identity {
                    tgsi::debug::Identity::Fragment {
                        primitive, samples, ..
                    } => (primitive, samples),
                    _ => (0, 0),
                };
                let status = match &t.status {
                    Status::Error(m) => format!("\"error\",\"message\":{}", serde_json::json!(m)),
                    s => format!("\"{}\"", status_word(s)),
                };
                let outputs: Vec<String> = t
                    .outputs
                    .iter()
                    .map(|v| {
                        format!(
                            "{{\"reg\":\"{}\",\"u32\":\"0x{:08x}\",\"f32\":{}}}",
                            v.name,
                            v.word,
                            float(f32::from_bits(v.word))
                        )
                    })
                    .collect();
                writeln!(
                    out,
                    "{{\"kind\":\"fragment\",\"draw\":{draw},\"primitive\":{primitive},\"coverage\":{samples},\"steps\":{},\"status\":{status},\"outputs\":[{}]}}",
                    t.steps.len(),
                    outputs.join(",")
                )?;
            }
            HistoryEvent::Merged(m) => {
                let depth = match m.depth_test {
                    Some((passed, d, stored)) => format!(
                        "{{\"passed\":{passed},\"depth\":{},\"stored\":{}}}",
                        float(d),
                        float(stored)
                    ),
                    None => "null".into(),
                };
                let targets: Vec<String> = m
                    .colors
                    .iter()
                    .map(|(n, b, a)| {
                        format!(
                            "{{\"target\":{n},\"before\":{},\"after\":{}}}",
                            hex(b),
                            hex(a)
                        )
                    })
                    .collect();
                writeln!(
                    out,
                    "{{\"kind\":\"sample\",\"draw\":{},\"primitive\":{},\"sample\":{},\"depth_test\":{depth},\"targets\":[{}]}}",
                    m.draw,
                    m.primitive,
                    m.sample,
                    targets.join(",")
                )?;
            }
        }
    }
    Ok(())
}
