//! The SM4/SM5 assembler against the fxc corpus in `tests/fixtures/d3d`.
//!
//! For every non-effect listing with its blob beside it (`.o`, or `.dxbc` in
//! `mesa-d3d1x`):
//!
//! * every program block (a version line at column 0 to the line before
//!   `// Approximately N instruction slots used`; one per function in a
//!   library) assembles to exactly the words of the corresponding SHDR/SHEX
//!   chunk (chunks in file order, `LIBF` containers recursed);
//! * every program chunk decodes, prints (with exact floats), and parses
//!   back to the same IR.
//!
//! fxc prints floats with `%f`, so a listing may round a constant (1/3 as
//! `0.333333`) to text that reads back to other bits; a program whose
//! assembled words differ from the chunk only where both print the same
//! listing is counted apart and listed, not failed. Every other failure is
//! listed per file with the first differing dword and both instructions
//! printed, then the test fails.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tgsi::d3d::print::{PrintOptions, print_instruction, print_program_with};
use tgsi::d3d::source_map::SourceMap;
use tgsi::d3d::{Program, decode_program, encode_program, parse_program};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/d3d")
}

fn listings(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            listings(&p, out);
        } else if p.extension().is_some_and(|e| e == "asm") {
            out.push(p);
        }
    }
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    let s = b.get(off..off.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// A program chunk and the RDEF creator string of its container.
struct Chunk<'a> {
    payload: &'a [u8],
    creator: String,
}

fn rdef_creator(chunks: &[(&[u8; 4], &[u8])]) -> Option<String> {
    let (_, rdef) = chunks.iter().find(|(tag, _)| *tag == b"RDEF")?;
    let off = u32_at(rdef, 24)? as usize;
    let tail = rdef.get(off..)?;
    let end = tail.iter().position(|&b| b == 0)?;
    Some(String::from_utf8_lossy(&tail[..end]).into_owned())
}

/// Test-only DXBC walk: SHDR/SHEX chunks in file order, LIBF payloads recursed.
fn program_chunks<'a>(
    blob: &'a [u8],
    inherited: &str,
    out: &mut Vec<Chunk<'a>>,
) -> Result<(), String> {
    if blob.get(..4) != Some(b"DXBC") {
        return Err("not a DXBC container".into());
    }
    let count = u32_at(blob, 28).ok_or("truncated header")? as usize;
    let mut chunks = Vec::new();
    for i in 0..count {
        let off = u32_at(blob, 32 + 4 * i).ok_or("truncated chunk table")? as usize;
        let tag: &[u8; 4] = blob
            .get(off..off + 4)
            .and_then(|t| t.try_into().ok())
            .ok_or("chunk tag out of range")?;
        let size = u32_at(blob, off + 4).ok_or("chunk size out of range")? as usize;
        let payload = blob
            .get(off + 8..off + 8 + size)
            .ok_or("chunk payload out of range")?;
        chunks.push((tag, payload));
    }
    let creator = rdef_creator(&chunks).unwrap_or_else(|| inherited.to_string());
    for (tag, payload) in chunks {
        match tag {
            b"SHDR" | b"SHEX" => out.push(Chunk {
                payload,
                creator: creator.clone(),
            }),
            b"LIBF" => program_chunks(payload, &creator, out)?,
            _ => {}
        }
    }
    Ok(())
}

fn is_version_line(line: &str) -> bool {
    let b = line.as_bytes();
    let stage = ["vs_", "ps_", "gs_", "hs_", "ds_", "cs_", "lib_"]
        .iter()
        .find(|p| line.starts_with(*p));
    let Some(stage) = stage else { return false };
    let rest = &b[stage.len()..];
    rest.len() >= 3 && rest[0].is_ascii_digit() && rest[1] == b'_' && rest[2].is_ascii_digit()
}

/// The program blocks of a listing, each as its text (comments and `#line`
/// lines included: the assembler must skip them itself).
fn program_blocks(text: &str) -> Vec<String> {
    let mut blocks: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        if is_version_line(line) {
            blocks.push(String::new());
            open = true;
        } else if line.starts_with("// Approximately") {
            open = false;
        }
        if open && let Some(b) = blocks.last_mut() {
            b.push_str(line);
            b.push('\n');
        }
    }
    blocks
}

fn words_of(payload: &[u8]) -> Vec<u32> {
    payload
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The instruction holding dword `at` of a payload, printed (or a note).
fn instruction_at(words: &[u32], at: usize, options: &PrintOptions) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let map = SourceMap::from_payload(&bytes, 0);
    let Some(k) = map
        .instructions
        .iter()
        .position(|i| i.span.start <= at * 4 && at * 4 < i.span.end)
    else {
        return if at < 2 {
            "<version/length token>".into()
        } else {
            "<no instruction>".into()
        };
    };
    let span = map.instructions[k].span;
    let one = [words[0], (span.end - span.start) as u32 / 4 + 2];
    let mut single: Vec<u8> = one.iter().flat_map(|w| w.to_le_bytes()).collect();
    single.extend_from_slice(&bytes[span.start..span.end]);
    match decode_program(&single) {
        Ok(p) => format!(
            "#{k}: {}",
            print_instruction(&p.instructions[0], p.version, options)
        ),
        Err(e) => format!("#{k}: <does not decode: {e}>"),
    }
}

/// The first difference between the assembled and the expected words.
fn first_difference(got: &[u32], want: &[u32], options: &PrintOptions) -> String {
    let at = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    format!(
        "dword {at}: got {:08x?}, expected {:08x?}\n      assembled: {}\n      expected:  {}",
        got.get(at),
        want.get(at),
        instruction_at(got, at, options),
        instruction_at(want, at, options)
    )
}

#[derive(Default)]
struct Tally {
    files: usize,
    effects_skipped: usize,
    files_clean: usize,
    blocks: usize,
    assembled_identical: usize,
    chunks: usize,
    round_trips: usize,
    round_trips_fxc: usize,
    /// programs whose listing rounds a float so that it reads back to other bits
    assembled_lossy: Vec<String>,
}

fn check_file(asm: &Path, tally: &mut Tally) -> Vec<String> {
    let mut problems = Vec::new();
    let text = match std::fs::read_to_string(asm) {
        Ok(t) => t,
        Err(e) => return vec![format!("read: {e}")],
    };
    let Some(blob_path) = [asm.with_extension("o"), asm.with_extension("dxbc")]
        .into_iter()
        .find(|p| p.exists())
    else {
        return vec!["no blob beside the listing".into()];
    };
    let blob = match std::fs::read(&blob_path) {
        Ok(b) => b,
        Err(e) => return vec![format!("read blob: {e}")],
    };
    let mut chunks = Vec::new();
    if let Err(e) = program_chunks(&blob, "", &mut chunks) {
        return vec![e];
    }
    let blocks = program_blocks(&text);
    tally.blocks += blocks.len();
    tally.chunks += chunks.len();
    if chunks.len() != blocks.len() {
        problems.push(format!(
            "{} program chunks, {} listing blocks",
            chunks.len(),
            blocks.len()
        ));
    }
    for (n, (chunk, block)) in chunks.iter().zip(&blocks).enumerate() {
        let options = PrintOptions::for_creator(&chunk.creator);
        let want = words_of(chunk.payload);
        // the listing block assembles to the chunk's words
        match parse_program(block) {
            Ok((program, _)) => match encode_program(&program) {
                Ok(got) if got == want => tally.assembled_identical += 1,
                Ok(got) => {
                    let difference =
                        format!("program {n}: {}", first_difference(&got, &want, &options));
                    // a float whose `%f` text fxc rounded: the listing holds
                    // the same text for both programs, so no assembler can
                    // tell them apart
                    let same_text = decode_program(chunk.payload).is_ok_and(|d| {
                        print_program_with(&d, &options) == print_program_with(&program, &options)
                    });
                    if same_text {
                        tally.assembled_lossy.push(format!(
                            "{}: {difference}",
                            asm.strip_prefix(corpus_dir()).unwrap_or(asm).display()
                        ));
                    } else {
                        problems.push(difference);
                    }
                }
                Err(e) => problems.push(format!("program {n}: encode: {e}")),
            },
            Err(d) => {
                let rendered = d.render(&format!("program {n}"), block);
                let first: String = rendered
                    .lines()
                    .take(6)
                    .collect::<Vec<_>>()
                    .join("\n      ");
                problems.push(format!(
                    "program {n}: {} errors, first:\n      {first}",
                    d.0.len()
                ));
            }
        }
        // decode → print → parse gives back the decoded IR
        let decoded: Program = match decode_program(chunk.payload) {
            Ok(p) => p,
            Err(e) => {
                problems.push(format!("program {n}: decode: {e}"));
                continue;
            }
        };
        // fxc's spelling loses the bits of some floats; count those apart
        let fxc_text = print_program_with(&decoded, &options);
        if parse_program(&fxc_text).is_ok_and(|(p, _)| p == decoded) {
            tally.round_trips_fxc += 1;
        }
        let printed = print_program_with(
            &decoded,
            &PrintOptions {
                exact_floats: true,
                ..options
            },
        );
        match parse_program(&printed) {
            Ok((p, _)) if p == decoded => tally.round_trips += 1,
            Ok((p, _)) => {
                let k = p
                    .instructions
                    .iter()
                    .zip(&decoded.instructions)
                    .position(|(a, b)| a != b)
                    .unwrap_or(p.instructions.len().min(decoded.instructions.len()));
                let line = printed.lines().nth(k + 1).unwrap_or("<end>");
                problems.push(format!(
                    "program {n}: print→parse differs at instruction {k}: `{line}`\n      parsed:  {:?}\n      decoded: {:?}",
                    p.instructions.get(k),
                    decoded.instructions.get(k)
                ));
            }
            Err(d) => {
                let rendered = d.render("printed", &printed);
                let first: String = rendered
                    .lines()
                    .take(6)
                    .collect::<Vec<_>>()
                    .join("\n      ");
                problems.push(format!(
                    "program {n}: printed listing does not parse:\n      {first}"
                ));
            }
        }
    }
    problems
}

#[test]
fn corpus_listings_assemble_to_their_program_chunks() {
    let dir = corpus_dir();
    let mut files = Vec::new();
    listings(&dir, &mut files);
    assert!(!files.is_empty(), "no listings under {}", dir.display());
    let mut tally = Tally::default();
    let mut report = String::new();
    for asm in &files {
        let text = std::fs::read_to_string(asm).unwrap_or_default();
        if text.contains("// FX Version: fx_") {
            tally.effects_skipped += 1;
            continue;
        }
        tally.files += 1;
        let problems = check_file(asm, &mut tally);
        if problems.is_empty() {
            tally.files_clean += 1;
        } else {
            let rel = asm.strip_prefix(&dir).unwrap_or(asm);
            let _ = writeln!(report, "  {}:", rel.display());
            for p in problems {
                let _ = writeln!(report, "    {p}");
            }
        }
    }
    let summary = format!(
        "{} listings ({} effects skipped), {} without problems; {} program blocks: {} assemble to identical words, {} differ only in floats fxc's listing rounded; {} program chunks: {} print→parse round trips ({} with fxc's lossy float spelling)",
        tally.files,
        tally.effects_skipped,
        tally.files_clean,
        tally.blocks,
        tally.assembled_identical,
        tally.assembled_lossy.len(),
        tally.chunks,
        tally.round_trips,
        tally.round_trips_fxc
    );
    let lossy = tally.assembled_lossy.join("\n  ");
    if tally.files_clean != tally.files {
        panic!(
            "{} listings with problems:\n{report}rounded floats:\n  {lossy}\n{summary}",
            tally.files - tally.files_clean
        );
    }
    println!("rounded floats (the listing's text cannot hold their bits):\n  {lossy}\n{summary}");
}
