//! Every program of the fxc corpus validates without a diagnostic: fxc's
//! output is valid Direct3D bytecode, so any diagnostic here is a validator
//! bug.
//!
//! Each DXBC blob under `tests/fixtures/d3d` (`.o`, `.dxbc`) is walked for
//! SHDR/SHEX chunks, recursing into the containers that libraries keep in
//! `LIBF` chunks; effects (no DXBC container, or an `FX10` chunk) are
//! skipped. Diagnostics point at byte ranges of the blob
//! ([`SourceMap::from_payload`]).

use std::path::{Path, PathBuf};

use tgsi::d3d::source_map::SourceMap;
use tgsi::d3d::{decode_program, validate};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/d3d")
}

fn blobs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            blobs(&p, out);
        } else if p.extension().is_some_and(|e| e == "o" || e == "dxbc") {
            out.push(p);
        }
    }
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    let s = b.get(off..off.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// A program chunk: its payload and the payload's offset in the file.
struct Chunk<'a> {
    payload: &'a [u8],
    base: usize,
}

/// What a container holds.
enum Container<'a> {
    Programs(Vec<Chunk<'a>>),
    Effect,
}

/// Test-only DXBC walk: SHDR/SHEX chunks in file order, LIBF payloads
/// recursed; `base` is the container's offset in the file.
fn walk<'a>(blob: &'a [u8], base: usize, out: &mut Vec<Chunk<'a>>) -> Result<bool, String> {
    if blob.get(..4) != Some(b"DXBC") {
        return Ok(false);
    }
    let count = u32_at(blob, 28).ok_or("truncated header")? as usize;
    if count > blob.len() / 4 {
        return Err(format!("chunk count {count} does not fit the blob"));
    }
    for i in 0..count {
        let off = u32_at(blob, 32 + 4 * i).ok_or("truncated chunk table")? as usize;
        let tag = blob.get(off..off + 4).ok_or("chunk tag out of range")?;
        let size = u32_at(blob, off + 4).ok_or("chunk size out of range")? as usize;
        let payload = blob
            .get(off + 8..off + 8 + size)
            .ok_or("chunk payload out of range")?;
        match tag {
            b"SHDR" | b"SHEX" => out.push(Chunk {
                payload,
                base: base + off + 8,
            }),
            b"LIBF" => {
                walk(payload, base + off + 8, out)?;
            }
            b"FX10" => return Ok(false),
            _ => {}
        }
    }
    Ok(true)
}

fn containers(blob: &[u8]) -> Result<Container<'_>, String> {
    let mut chunks = Vec::new();
    if walk(blob, 0, &mut chunks)? {
        Ok(Container::Programs(chunks))
    } else {
        Ok(Container::Effect)
    }
}

#[test]
fn every_corpus_program_validates_without_diagnostics() {
    let mut files = Vec::new();
    blobs(&fixtures(), &mut files);
    assert!(
        files.len() > 200,
        "expected the corpus under tests/fixtures/d3d, found {} blobs",
        files.len()
    );
    let (mut programs, mut effects, mut clean) = (0, 0, 0);
    let mut problems = Vec::new();
    for path in &files {
        let blob = std::fs::read(path).expect("read blob");
        let name = path
            .strip_prefix(fixtures())
            .unwrap_or(path)
            .display()
            .to_string();
        let chunks = match containers(&blob) {
            Ok(Container::Programs(c)) => c,
            Ok(Container::Effect) => {
                effects += 1;
                continue;
            }
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        for (n, chunk) in chunks.iter().enumerate() {
            programs += 1;
            let program = match decode_program(chunk.payload) {
                Ok(p) => p,
                Err(e) => {
                    problems.push(format!(
                        "{name} program {n}: decode: {}",
                        e.shifted(chunk.base)
                    ));
                    continue;
                }
            };
            let map = SourceMap::from_payload(chunk.payload, chunk.base);
            let diags = validate(&program, Some(&map));
            if diags.0.is_empty() {
                clean += 1;
            }
            for d in &diags.0 {
                let at = d
                    .primary
                    .as_ref()
                    .map_or(String::new(), |p| format!(" @0x{:x}", p.span.start));
                let which = d
                    .primary
                    .as_ref()
                    .and_then(|p| {
                        map.instructions
                            .iter()
                            .position(|s| s.span == p.span || s.span.start == p.span.start)
                    })
                    .map_or(String::new(), |k| {
                        format!(
                            " [{}]",
                            tgsi::d3d::print::print_instruction(
                                &program.instructions[k],
                                program.version,
                                &Default::default()
                            )
                        )
                    });
                problems.push(format!(
                    "{name} program {n} ({}_{}_{}){at}{which}: {}",
                    program.version.program_type,
                    program.version.major,
                    program.version.minor,
                    d.message
                ));
            }
        }
    }
    eprintln!(
        "{} blobs: {programs} programs, {clean} without diagnostics, {effects} effects skipped",
        files.len()
    );
    for p in problems.iter().take(300) {
        eprintln!("  {p}");
    }
    assert!(
        problems.is_empty(),
        "{} diagnostics on fxc output (first above)",
        problems.len()
    );
    assert!(
        programs > 300,
        "expected the corpus's 300+ programs, found {programs}"
    );
}
