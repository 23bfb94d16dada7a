//! Every SM4/SM5 program of the fxc corpus: decode, re-encode to the same
//! words, and print exactly fxc's listing of it.
//!
//! For each `.asm` listing (effects excepted) the blob beside it (`.o`, or
//! `.dxbc` in `mesa-d3d1x`) is walked for SHDR/SHEX chunks in file order,
//! recursing into the DXBC containers that libraries keep in `LIBF` chunks.
//! The listing is cut into program blocks: from a version line at column 0 to
//! the line before `// Approximately N instruction slots used`; `/Zi` listings
//! lose their `#line` lines, blank lines, comment lines and trailing comments.

use std::fmt::Write as _;
use std::path::Path;

use tgsi::d3d::blob::le_words;
use tgsi::d3d::print::{PrintOptions, print_program_with};
use tgsi::d3d::{decode_program, encode_program, program_chunks};

mod common;

/// The program blocks of a listing, each as its lines.
fn program_blocks(text: &str) -> Vec<Vec<String>> {
    let debug = text.lines().any(|l| l.starts_with("#line"));
    let mut blocks: Vec<Vec<String>> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        if common::is_version_line(line) {
            blocks.push(vec![line.to_string()]);
            open = true;
            continue;
        }
        if !open {
            continue;
        }
        if line.starts_with("// Approximately") {
            open = false;
            continue;
        }
        let mut line = line.to_string();
        if debug {
            if line.starts_with("#line") || line.is_empty() || line.starts_with("//") {
                continue;
            }
            if let Some(p) = line.find("  // ") {
                line.truncate(p);
            }
        }
        if let Some(b) = blocks.last_mut() {
            b.push(line);
        }
    }
    blocks
}

#[derive(Default)]
struct Tally {
    files: usize,
    effects_skipped: usize,
    files_identical: usize,
    programs: usize,
    decoded: usize,
    round_trips: usize,
    printed: usize,
}

/// Checks one listing; returns the first problem found, if any.
fn check_file(asm: &Path, tally: &mut Tally) -> Result<(), String> {
    let text = std::fs::read_to_string(asm).map_err(|e| format!("read: {e}"))?;
    let blob_path = [asm.with_extension("o"), asm.with_extension("dxbc")]
        .into_iter()
        .find(|p| p.exists())
        .ok_or("no blob beside the listing")?;
    let blob = std::fs::read(&blob_path).map_err(|e| format!("read blob: {e}"))?;
    let chunks = program_chunks(&blob).map_err(|e| e.to_string())?;
    let blocks = program_blocks(&text);
    tally.programs += chunks.len();
    let mut first_problem = None;
    if chunks.len() != blocks.len() {
        first_problem = Some(format!(
            "{} program chunks, {} listing blocks",
            chunks.len(),
            blocks.len()
        ));
    }
    for (n, (chunk, block)) in chunks.iter().zip(&blocks).enumerate() {
        let program = match decode_program(&chunk.payload) {
            Ok(p) => p,
            Err(e) => {
                first_problem.get_or_insert(format!("program {n}: decode: {e}"));
                continue;
            }
        };
        tally.decoded += 1;
        let words = le_words(&chunk.payload);
        match encode_program(&program) {
            Ok(w) if w == words => tally.round_trips += 1,
            Ok(w) => {
                let at = w
                    .iter()
                    .zip(&words)
                    .position(|(a, b)| a != b)
                    .unwrap_or(w.len().min(words.len()));
                first_problem.get_or_insert(format!(
                    "program {n}: re-encoded words differ at dword {at} (byte 0x{:x}): got {:08x?}, expected {:08x?}",
                    at * 4,
                    w.get(at),
                    words.get(at)
                ));
            }
            Err(e) => {
                first_problem.get_or_insert(format!("program {n}: encode: {e}"));
            }
        }
        let options = PrintOptions::for_creator(&chunk.creator);
        let printed = print_program_with(&program, &options);
        let got: Vec<&str> = printed.lines().collect();
        if got == *block {
            tally.printed += 1;
        } else {
            let line = got
                .iter()
                .zip(block)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(block.len()));
            first_problem.get_or_insert(format!(
                "program {n}: listing line {}:\n      expected: {:?}\n      got:      {:?}",
                line + 1,
                block
                    .get(line)
                    .map(String::as_str)
                    .unwrap_or("<end of block>"),
                got.get(line).copied().unwrap_or("<end of output>"),
            ));
        }
    }
    match first_problem {
        Some(p) => Err(p),
        None => Ok(()),
    }
}

#[test]
fn corpus_programs_decode_encode_and_print_like_fxc() {
    let dir = common::corpus_root();
    let files = common::corpus_files(common::LISTINGS);
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
        match check_file(asm, &mut tally) {
            Ok(()) => tally.files_identical += 1,
            Err(problem) => {
                let rel = asm.strip_prefix(&dir).unwrap_or(asm);
                let _ = writeln!(report, "  {}: {problem}", rel.display());
            }
        }
    }
    let summary = format!(
        "{} listings ({} effects skipped): {} fully identical; {} programs: {} decode, {} re-encode to the same words, {} print identically",
        tally.files,
        tally.effects_skipped,
        tally.files_identical,
        tally.programs,
        tally.decoded,
        tally.round_trips,
        tally.printed
    );
    if tally.files_identical != tally.files {
        panic!(
            "{} failing listings:\n{report}{summary}",
            tally.files - tally.files_identical
        );
    }
    println!("{summary}");
}

/// Decodes `words` if it can; whatever decodes must re-encode to the same
/// words and print without panicking. Returns whether it decoded.
fn decodes_canonically(words: &[u32]) -> bool {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    match decode_program(&bytes) {
        Ok(p) => {
            let again = encode_program(&p).expect("a decoded program encodes");
            assert_eq!(
                again, words,
                "accepted a program it does not re-encode exactly"
            );
            let _ = print_program_with(&p, &PrintOptions::default());
            true
        }
        Err(e) => {
            assert!(
                e.offset <= bytes.len(),
                "error offset {} beyond {} bytes",
                e.offset,
                bytes.len()
            );
            false
        }
    }
}

#[test]
fn truncated_and_mutated_corpus_programs_never_panic() {
    let files = common::corpus_files(common::LISTINGS);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let (mut tried, mut accepted) = (0usize, 0usize);
    for asm in &files {
        let Some(blob) = [asm.with_extension("o"), asm.with_extension("dxbc")]
            .into_iter()
            .find_map(|p| std::fs::read(p).ok())
        else {
            continue;
        };
        let Ok(chunks) = program_chunks(&blob) else {
            continue;
        };
        for chunk in chunks {
            let words = le_words(&chunk.payload);
            // truncations, with the length token patched so decoding reaches the cut
            let step = (words.len() / 24).max(1);
            for cut in (0..words.len()).step_by(step) {
                let mut w = words[..cut].to_vec();
                if cut >= 2 {
                    w[1] = cut as u32;
                }
                decodes_canonically(&w);
                let _ = decode_program(&chunk.payload[..(cut * 4).saturating_sub(1)]);
                tried += 1;
            }
            // single-bit flips after the version and length tokens
            for _ in 0..24 {
                if words.len() <= 2 {
                    break;
                }
                let mut w = words.clone();
                let r = next();
                let at = 2 + (r as usize >> 8) % (w.len() - 2);
                w[at] ^= 1 << (r & 31);
                accepted += decodes_canonically(&w) as usize;
                tried += 1;
            }
        }
    }
    assert!(tried > 1000, "only {tried} variants tried");
    assert!(
        accepted > 100,
        "only {accepted} mutated programs decoded: the property is barely exercised"
    );
}
