//! Conformance over the bundled TGSI corpus (`tests/fixtures/corpus`): every shader of `accepted/` and
//! `mesa-generated/**` assembles, validates, prints to a fixed point, encodes
//! to exactly Mesa 22.3's token words (the fixtures under
//! `tests/fixtures/tokens/`, made by `regenerate.sh`) and decodes back to the
//! same IR; Mesa's own dumps print back byte for byte, and everything prints
//! like Mesa's `tgsi_dump` of the same tokens (the `.dump` fixtures) except
//! where the printer is deliberately lossless; `legacy/` never panics.
//!
//! Each test checks every file and then lists all failing files with their
//! first difference, so one run shows the whole picture.

use std::path::{Path, PathBuf};
use tgsi::enums::{InterpMode, ProcessorNumbering};
use tgsi::tokens::{decode, encode};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/corpus");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tokens");

/// The folders whose shaders Mesa accepts, relative to the corpus.
const ACCEPTED_FOLDERS: [&str; 4] = [
    "accepted",
    "mesa-generated",
    "mesa-generated/virgl",
    "mesa-generated/internal",
];

/// Folders holding Mesa's own `tgsi_dump` output (virgl's hex-float form excluded).
const MESA_DUMP_FOLDERS: [&str; 2] = ["mesa-generated", "mesa-generated/internal"];

struct CorpusFile {
    /// e.g. `accepted/foo.tgsi`
    name: String,
    text: String,
    /// Mesa's words for it.
    words: Vec<u32>,
}

fn tgsi_files(folder: &str) -> Vec<PathBuf> {
    let dir = Path::new(CORPUS).join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tgsi"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .tgsi files in {}", dir.display());
    files
}

fn parse_words(text: &str, name: &str) -> Vec<u32> {
    text.split_whitespace()
        .map(|w| {
            u32::from_str_radix(w, 16)
                .unwrap_or_else(|e| panic!("{name}: bad fixture word {w:?}: {e}"))
        })
        .collect()
}

fn load(folders: &[&str]) -> Vec<CorpusFile> {
    let mut out = Vec::new();
    for folder in folders {
        for path in tgsi_files(folder) {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let name = format!("{folder}/{stem}.tgsi");
            let fixture = Path::new(FIXTURES)
                .join(folder)
                .join(format!("{stem}.words"));
            let words = std::fs::read_to_string(&fixture).unwrap_or_else(|e| {
                panic!(
                    "{name}: no fixture {} ({e}); run regenerate.sh",
                    fixture.display()
                )
            });
            out.push(CorpusFile {
                text: std::fs::read_to_string(&path).unwrap(),
                words: parse_words(&words, &name),
                name,
            });
        }
    }
    out
}

/// The first differing line of two texts, for failure reports.
fn text_difference(expected: &str, got: &str) -> String {
    let (mut e, mut g) = (expected.lines(), got.lines());
    for line in 1.. {
        match (e.next(), g.next()) {
            (None, None) => return "texts differ only in line endings".into(),
            (a, b) if a == b => continue,
            (a, b) => return format!("line {line}: expected {a:?}, got {b:?}"),
        }
    }
    unreachable!()
}

/// The first differing word of two streams, for failure reports.
fn word_difference(expected: &[u32], got: &[u32]) -> String {
    match expected.iter().zip(got).position(|(a, b)| a != b) {
        Some(i) => format!("word {i}: expected {:08x}, got {:08x}", expected[i], got[i]),
        None => format!(
            "lengths differ: expected {} words, got {}",
            expected.len(),
            got.len()
        ),
    }
}

fn report(what: &str, failures: &[String], total: usize) {
    assert!(
        failures.is_empty(),
        "{what}: {} of {total} files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Mesa's words decode, and encode back to themselves (no parser involved).
#[test]
fn mesa_words_decode_and_encode_back() {
    let files = load(&ACCEPTED_FOLDERS);
    let mut failures = Vec::new();
    for f in &files {
        match decode(&f.words, ProcessorNumbering::Mesa22) {
            Err(e) => failures.push(format!("{}: decode: {e}", f.name)),
            Ok(shader) => match encode(&shader, ProcessorNumbering::Mesa22) {
                Err(e) => failures.push(format!("{}: encode: {e}", f.name)),
                Ok(w) if w != f.words => {
                    failures.push(format!("{}: {}", f.name, word_difference(&f.words, &w)))
                }
                Ok(_) => {}
            },
        }
    }
    report("decode/encode of Mesa's words", &failures, files.len());
}

/// Mesa's own dumps print back byte for byte from Mesa's tokens.
#[test]
fn mesa_dumps_print_back_byte_for_byte() {
    let files = load(&MESA_DUMP_FOLDERS);
    let mut failures = Vec::new();
    for f in &files {
        match decode(&f.words, ProcessorNumbering::Mesa22) {
            Err(e) => failures.push(format!("{}: decode: {e}", f.name)),
            Ok(shader) => {
                let printed = tgsi::text::print(&shader);
                if printed != f.text {
                    failures.push(format!(
                        "{}: {}",
                        f.name,
                        text_difference(&f.text, &printed)
                    ));
                }
            }
        }
    }
    report("printing Mesa's dumps", &failures, files.len());
}

/// Our print of Mesa's tokens equals Mesa's own dump of them, line by line, but
/// for the printer's two lossless choices: a float whose `%10.4f` form would
/// not read back prints as hex bits, and the interpolation mode also shows
/// outside fragment inputs.
#[test]
fn printing_matches_mesa_dump_of_the_same_tokens() {
    let files = load(&ACCEPTED_FOLDERS);
    let mut failures = Vec::new();
    for f in &files {
        let dump_path =
            Path::new(FIXTURES).join(format!("{}.dump", f.name.trim_end_matches(".tgsi")));
        let mesa = std::fs::read_to_string(&dump_path)
            .unwrap_or_else(|e| panic!("{}: {e}", dump_path.display()));
        let shader = match decode(&f.words, ProcessorNumbering::Mesa22) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{}: decode: {e}", f.name));
                continue;
            }
        };
        let ours = tgsi::text::print(&shader);
        let (mesa_lines, our_lines): (Vec<&str>, Vec<&str>) =
            (mesa.lines().collect(), ours.lines().collect());
        if mesa_lines.len() != our_lines.len() {
            failures.push(format!(
                "{}: {} lines, Mesa's dump has {}",
                f.name,
                our_lines.len(),
                mesa_lines.len()
            ));
            continue;
        }
        if let Some((n, (m, o))) = mesa_lines
            .iter()
            .zip(&our_lines)
            .enumerate()
            .find(|(_, (m, o))| !same_but_lossless(m, o))
        {
            failures.push(format!(
                "{}: line {}: Mesa {m:?}, ours {o:?}",
                f.name,
                n + 1
            ));
        }
    }
    report("printing like tgsi_dump", &failures, files.len());
}

/// True when our line is Mesa's, or differs only by a lossless choice.
fn same_but_lossless(mesa: &str, ours: &str) -> bool {
    if mesa == ours {
        return true;
    }
    if let (Some((m_head, m_values)), Some((o_head, o_values))) =
        (mesa.split_once('{'), ours.split_once('{'))
        && m_head == o_head
        && m_head.starts_with("IMM[")
        && m_head.contains("FLT32")
    {
        let m: Vec<&str> = m_values.trim_end_matches('}').split(", ").collect();
        let o: Vec<&str> = o_values.trim_end_matches('}').split(", ").collect();
        return m.len() == o.len()
            && m.iter().zip(&o).all(|(m, o)| {
                m == o
                    || o.strip_prefix("0x")
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .is_some_and(|bits| {
                            let value = f32::from_bits(bits);
                            // Mesa's %10.4f of the same bits (C prints nan/inf in lower case).
                            let c_text = if value.is_nan() {
                                format!(
                                    "{:>10}",
                                    if value.is_sign_negative() {
                                        "-nan"
                                    } else {
                                        "nan"
                                    }
                                )
                            } else if value.is_infinite() {
                                format!("{:>10}", if value > 0.0 { "inf" } else { "-inf" })
                            } else {
                                format!("{value:10.4}")
                            };
                            c_text == *m
                        })
            });
    }
    if mesa.starts_with("DCL ") {
        return InterpMode::ALL.iter().any(|mode| {
            let extra = format!(", {}", mode.name());
            ours.match_indices(&extra).any(|(at, _)| {
                let without = format!("{}{}", &ours[..at], &ours[at + extra.len()..]);
                without == mesa
            })
        });
    }
    false
}

/// The full pipeline: assemble, validate, print fixed point, encode == Mesa, decode == IR.
#[test]
fn corpus_assembles_prints_and_encodes_like_mesa() {
    let files = load(&ACCEPTED_FOLDERS);
    let mut failures = Vec::new();
    for f in &files {
        if let Err(problem) = check_pipeline(f) {
            failures.push(format!("{}: {problem}", f.name));
        }
    }
    report("assemble/print/encode", &failures, files.len());
}

fn check_pipeline(f: &CorpusFile) -> Result<(), String> {
    let (shader, _) =
        tgsi::assemble(&f.text).map_err(|d| format!("assemble: {}", first_line(&d.to_string())))?;
    let printed = tgsi::text::print(&shader);
    let (reparsed, _) = tgsi::text::parse(&printed)
        .map_err(|d| format!("parse of printed text: {}", first_line(&d.to_string())))?;
    if reparsed != shader {
        return Err(format!("parse(print(x)) != x; printed text:\n{printed}"));
    }
    let again = tgsi::text::print(&reparsed);
    if again != printed {
        return Err(format!(
            "print is not a fixed point: {}",
            text_difference(&printed, &again)
        ));
    }
    let words = encode(&shader, ProcessorNumbering::Mesa22).map_err(|e| format!("encode: {e}"))?;
    if words != f.words {
        return Err(format!(
            "tokens differ from Mesa's: {}",
            word_difference(&f.words, &words)
        ));
    }
    let decoded = decode(&words, ProcessorNumbering::Mesa22).map_err(|e| format!("decode: {e}"))?;
    if decoded != shader {
        return Err("decode(encode(x)) != x".into());
    }
    Ok(())
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// Shaders Mesa 22.3 refuses: the assembler may accept or refuse them, but never panics.
#[test]
fn legacy_shaders_never_panic() {
    let files = tgsi_files("legacy");
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let outcome = std::panic::catch_unwind(|| {
            if let Ok((shader, _)) = tgsi::text::parse(&text) {
                // Whatever is accepted must also print and encode without panicking.
                let _ = tgsi::text::print(&shader);
                let _ = encode(&shader, ProcessorNumbering::Mesa22);
            }
        });
        if outcome.is_err() {
            failures.push(format!("{}: panicked", path.display()));
        }
    }
    report("legacy", &failures, files.len());
}
