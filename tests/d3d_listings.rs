//! The DXBC corpus (fxc-compiled blobs beside fxc's own listings): every
//! container parses, every decoded chunk encodes back to the same bytes,
//! checksums verify, and the listing driver reproduces fxc's text byte for
//! byte. The program and level-9 parts of each listing are supplied by
//! stand-in printers that return the expected text cut out of the listing
//! itself, so the comparison covers exactly what the driver writes.

use std::cell::Cell;
use std::path::PathBuf;

use tgsi::d3d::DecodeError;
use tgsi::d3d::container::{ChecksumStatus, Container, checksum_status, tags};
use tgsi::d3d::effect::embedded_shaders;
use tgsi::d3d::ifce::Interfaces;
use tgsi::d3d::library::{LibraryHeader, ParameterSignature};
use tgsi::d3d::listing::{ListingOptions, Printers, disassemble_with, is_effect};
use tgsi::d3d::rdef::Rdef;
use tgsi::d3d::sfi0::Sfi0;
use tgsi::d3d::signature::{Signature, SignatureKind};
use tgsi::d3d::stat::Stat;

mod common;

/// Blobs whose stored checksum the standard algorithm does not reproduce
/// (debug-layer shaders, see the corpus README).
const CHECKSUM_EXCEPTIONS: [&str; 2] = [
    "dxdecompiler/3Dmigoto/debug.o",
    "dxdecompiler/FxDis/test_PS.o",
];

/// Every blob of the corpus with its path relative to the root.
fn blobs() -> Vec<(String, PathBuf)> {
    common::corpus_files(common::BLOBS)
        .into_iter()
        .map(|p| (common::relative(&p), p))
        .collect()
}

/// The parts of an fxc listing the driver does not write itself.
struct Expected {
    /// Program blocks (version line to last instruction), in order.
    programs: Vec<String>,
    /// The level-9 block before each program, if any.
    level9: Vec<Option<String>>,
    /// fxc 9.29's command line.
    command_line: Option<String>,
}

const LEVEL9_HEADINGS: [&str; 6] = [
    "// Constant buffer to DX9 shader constant mappings:",
    "// Runtime generated constant mappings:",
    "// Sampler/Resource to DX9 shader sampler mappings:",
    "// Level9 shader bytecode:",
    "// XNA Prepass shader bytecode:",
    "// XNA shader bytecode:",
];

fn is_version_line(line: &str) -> bool {
    let token = line.trim_end();
    ["vs_", "ps_", "gs_", "hs_", "ds_", "cs_", "lib_"]
        .iter()
        .any(|p| token.starts_with(p))
        && token
            .as_bytes()
            .get(token.find('_').unwrap_or(0) + 1)
            .is_some_and(u8::is_ascii_digit)
}

fn split_expected(text: &str) -> Expected {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut programs = Vec::new();
    let mut level9 = Vec::new();
    let mut command_line = None;
    let mut segment_start = 0;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if command_line.is_none() && line.starts_with("//   fxc ") {
            command_line = Some(
                line["//   ".len()..]
                    .trim_end_matches(['\n', '\r'])
                    .to_string(),
            );
        }
        if is_version_line(line) {
            let start = i;
            while i < lines.len() && !lines[i].starts_with("// Approximately ") {
                i += 1;
            }
            programs.push(lines[start..i].concat());
            let heading = (segment_start..start)
                .find(|&k| LEVEL9_HEADINGS.iter().any(|h| lines[k].trim_end() == *h));
            level9.push(heading.map(|k| lines[k.saturating_sub(1)..start].concat()));
            segment_start = i;
            continue;
        }
        i += 1;
    }
    Expected {
        programs,
        level9,
        command_line,
    }
}

/// The first line where `got` and `want` differ, for the failure report.
fn first_difference(got: &str, want: &str) -> String {
    let g: Vec<&str> = got.split('\n').collect();
    let w: Vec<&str> = want.split('\n').collect();
    for k in 0..g.len().max(w.len()) {
        let (a, b) = (g.get(k), w.get(k));
        if a != b {
            return format!(
                "line {}:\n      fxc: {:?}\n      got: {:?}",
                k + 1,
                b.copied().unwrap_or("<end>"),
                a.copied().unwrap_or("<end>")
            );
        }
    }
    "identical lines, different bytes".to_string()
}

#[test]
fn listings_match_fxc_byte_for_byte() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for (rel, path) in blobs() {
        let asm = path.with_extension("asm");
        let Ok(want) = std::fs::read_to_string(&asm) else {
            continue;
        };
        let blob = std::fs::read(&path).unwrap();
        if is_effect(&blob) {
            continue;
        }
        compared += 1;
        let expected = split_expected(&want);
        let next_program = Cell::new(0usize);
        let next_level9 = Cell::new(0usize);
        let program = |_: &[u8], _: &str| -> Result<String, DecodeError> {
            let k = next_program.get();
            next_program.set(k + 1);
            expected
                .programs
                .get(k)
                .cloned()
                .ok_or_else(|| DecodeError::at(0, format!("listing has no program block {k}")))
        };
        let level9 = |_: &Container| -> Result<Option<String>, DecodeError> {
            let k = next_level9.get();
            next_level9.set(k + 1);
            Ok(expected.level9.get(k).cloned().flatten())
        };
        let options = ListingOptions {
            command_line: expected.command_line.clone(),
        };
        match disassemble_with(
            &blob,
            &Printers {
                program: &program,
                level9: &level9,
            },
            &options,
        ) {
            Ok(got) if got == want => {}
            Ok(got) => failures.push(format!("{rel}: {}", first_difference(&got, &want))),
            Err(e) => failures.push(format!("{rel}: error {e}")),
        }
    }
    for f in &failures {
        eprintln!("MISMATCH {f}");
    }
    eprintln!(
        "{} of {compared} non-effect listings identical",
        compared - failures.len()
    );
    assert!(
        compared > 150,
        "corpus not found under {}",
        common::corpus_root().display()
    );
    assert!(failures.is_empty(), "{} listings differ", failures.len());
}

/// Re-encodes every chunk this crate decodes (recursing into library
/// functions) and returns the mismatches.
fn check_chunks(
    where_: &str,
    c: &Container,
    bytes: &[u8],
    problems: &mut Vec<String>,
    counts: &mut [usize; 2],
) {
    // The rewritten container holds the computed checksum; compare it
    // whole when the original's checksum verifies, else past the checksum.
    let rewritten = c.to_bytes();
    let verifies = checksum_status(bytes).is_ok_and(|s| s == ChecksumStatus::Valid);
    let same = if verifies {
        rewritten == bytes
    } else {
        rewritten[20..] == bytes[20..]
    };
    if !same {
        problems.push(format!(
            "{where_}: container does not rewrite to the same bytes"
        ));
    }
    for chunk in &c.chunks {
        let tag = chunk.tag;
        let encoded: Option<Result<Vec<u8>, DecodeError>> =
            if let Some(kind) = SignatureKind::from_tag(tag) {
                Some(Signature::parse(kind, &chunk.data).map(|s| s.to_bytes()))
            } else if tag == tags::RDEF {
                Some(Rdef::parse(&chunk.data).map(|r| r.to_bytes()))
            } else if tag == tags::STAT {
                Some(Stat::parse(&chunk.data).map(|s| s.to_bytes()))
            } else if tag == tags::SFI0 {
                Some(Sfi0::parse(&chunk.data).map(|s| s.to_bytes()))
            } else if tag == tags::IFCE {
                Some(Interfaces::parse(&chunk.data).map(|s| s.to_bytes()))
            } else if tag == tags::LIBH {
                Some(LibraryHeader::parse(&chunk.data).map(|s| s.to_bytes()))
            } else if tag == tags::LFS0 {
                Some(ParameterSignature::parse(&chunk.data).map(|s| s.to_bytes()))
            } else if tag == tags::LIBF {
                match Container::parse(&chunk.data) {
                    Ok(nested) => {
                        check_chunks(
                            &format!("{where_}/LIBF@{}", chunk.payload_offset),
                            &nested,
                            &chunk.data,
                            problems,
                            counts,
                        );
                        None
                    }
                    Err(e) => Some(Err(e)),
                }
            } else {
                None
            };
        match encoded {
            Some(Ok(b)) if b == chunk.data => counts[0] += 1,
            Some(Ok(b)) => {
                counts[1] += 1;
                let at = b
                    .iter()
                    .zip(&chunk.data)
                    .position(|(x, y)| x != y)
                    .unwrap_or(b.len().min(chunk.data.len()));
                problems.push(format!(
                    "{where_}: {tag} re-encodes differently ({} vs {} bytes, first difference at payload byte {at})",
                    b.len(),
                    chunk.data.len()
                ));
            }
            Some(Err(e)) => {
                counts[1] += 1;
                problems.push(format!(
                    "{where_}: {tag} does not decode: {}",
                    e.shifted(chunk.payload_offset)
                ));
            }
            None => {}
        }
    }
}

#[test]
fn every_blob_parses_and_every_decoded_chunk_reencodes() {
    let mut problems = Vec::new();
    let mut counts = [0usize; 2];
    let mut containers = 0;
    for (rel, path) in blobs() {
        let blob = std::fs::read(&path).unwrap();
        match tgsi::d3d::info::info(&blob) {
            Ok(i) => {
                let j = i.to_json();
                let want = if rel.contains("Library") {
                    "library"
                } else if is_effect(&blob) {
                    "effect"
                } else {
                    "shader"
                };
                if !j["kind"].as_str().unwrap_or("").ends_with(want) {
                    problems.push(format!("{rel}: info says {} (expected {want})", j["kind"]));
                }
                if want == "library" && j["nested"][0]["function"].as_str().is_none() {
                    problems.push(format!("{rel}: info names no library function"));
                }
                let listed_shaders = std::fs::read_to_string(path.with_extension("asm"))
                    .map(|t| t.contains("asm {"))
                    .unwrap_or(false);
                if want == "effect" && i.nested.is_empty() == listed_shaders {
                    problems.push(format!(
                        "{rel}: info finds {} embedded shaders, the listing shows {}",
                        i.nested.len(),
                        if listed_shaders { "some" } else { "none" }
                    ));
                }
            }
            Err(e) => problems.push(format!("{rel}: info fails: {e}")),
        }
        let mut found: Vec<(String, &[u8])> = Vec::new();
        if tgsi::d3d::effect::is_raw_effect(&blob) {
            for s in embedded_shaders(&blob) {
                found.push((format!("{rel}@{}", s.offset), s.bytes));
            }
        } else {
            found.push((rel.clone(), &blob));
            for s in embedded_shaders(&blob) {
                found.push((format!("{rel}@{}", s.offset), s.bytes));
            }
        }
        for (name, bytes) in found {
            match Container::parse(bytes) {
                Ok(c) => {
                    containers += 1;
                    check_chunks(&name, &c, bytes, &mut problems, &mut counts);
                }
                Err(e) => problems.push(format!("{name}: does not parse: {e}")),
            }
        }
    }
    for p in &problems {
        eprintln!("PROBLEM {p}");
    }
    eprintln!(
        "{containers} containers, {} decoded chunks re-encode identically, {} do not",
        counts[0], counts[1]
    );
    assert!(containers > 200);
    assert!(problems.is_empty(), "{} problems", problems.len());
}

#[test]
fn checksums_verify_except_the_debug_layer_blobs() {
    let mut bad = Vec::new();
    let mut verified = 0;
    for (rel, path) in blobs() {
        let blob = std::fs::read(&path).unwrap();
        if tgsi::d3d::effect::is_raw_effect(&blob) {
            continue;
        }
        match checksum_status(&blob).unwrap() {
            ChecksumStatus::Valid => {
                assert!(
                    !CHECKSUM_EXCEPTIONS.contains(&rel.as_str()),
                    "{rel} now verifies"
                );
                verified += 1;
            }
            ChecksumStatus::Mismatch { .. } if CHECKSUM_EXCEPTIONS.contains(&rel.as_str()) => {
                assert!(
                    Container::parse_verified(&blob)
                        .unwrap_err()
                        .message
                        .starts_with("checksum mismatch")
                );
            }
            ChecksumStatus::Mismatch { expected, stored } => {
                bad.push(format!("{rel}: {expected:08x?} vs {stored:08x?}"))
            }
        }
    }
    eprintln!("{verified} checksums verify");
    assert!(verified > 200);
    assert!(bad.is_empty(), "{bad:#?}");
}

/// A small deterministic generator for the mutation test.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// Runs every decoder and the listing driver over `bytes`; they may fail
/// but must not panic.
fn decode_everything(bytes: &[u8]) {
    let program = |_: &[u8], _: &str| -> Result<String, DecodeError> { Ok(String::new()) };
    let level9 = |_: &Container| -> Result<Option<String>, DecodeError> { Ok(None) };
    let _ = disassemble_with(
        bytes,
        &Printers {
            program: &program,
            level9: &level9,
        },
        &ListingOptions::default(),
    );
    let _ = tgsi::d3d::info::info(bytes);
    if let Ok(c) = Container::parse(bytes) {
        let mut problems = Vec::new();
        let mut counts = [0usize; 2];
        check_chunks("mutant", &c, bytes, &mut problems, &mut counts);
    }
}

#[test]
fn mutated_blobs_never_panic() {
    let mut rng = Lcg(0x5eed);
    let specials = [
        0u32,
        1,
        0xffff,
        0x7fff_ffff,
        0xffff_ffff,
        0x8000_0000,
        24,
        36,
    ];
    for (_, path) in blobs() {
        let blob = std::fs::read(&path).unwrap();
        for _ in 0..4 {
            let cut = (rng.next() as usize) % blob.len().max(1);
            decode_everything(&blob[..cut]);
        }
        let Ok(c) = Container::parse(&blob) else {
            continue;
        };
        for chunk in &c.chunks {
            for _ in 0..12 {
                let mut m = blob.clone();
                if chunk.data.len() < 4 {
                    continue;
                }
                let word = (rng.next() as usize) % (chunk.data.len() / 4);
                let at = chunk.payload_offset + 4 * word;
                let pick = rng.next() as usize;
                let v = if pick.is_multiple_of(3) {
                    rng.next() as u32
                } else {
                    specials[pick % specials.len()]
                };
                m[at..at + 4].copy_from_slice(&v.to_le_bytes());
                decode_everything(&m);
            }
        }
    }
}

/// The signature tables the listing prints parse back (row by row) into
/// signatures that encode to the chunk's bytes: the listing loses nothing
/// the assembler needs.
#[test]
fn signature_tables_parse_back_to_the_same_chunks() {
    use tgsi::d3d::listing::ProgramFacts;
    use tgsi::d3d::signature::{SignatureElement, StageForTable, TableStyle};
    let mut checked = 0;
    let mut problems = Vec::new();
    for (rel, path) in blobs() {
        let blob = std::fs::read(&path).unwrap();
        let Ok(c) = Container::parse(&blob) else {
            continue;
        };
        let stage = match c
            .program()
            .and_then(|p| ProgramFacts::scan(&p.data).ok())
            .map(|f| f.program_type)
        {
            Some(0) => StageForTable::Pixel,
            Some(3) => StageForTable::Hull,
            _ => StageForTable::Other,
        };
        for chunk in &c.chunks {
            let Some(kind) = SignatureKind::from_tag(chunk.tag) else {
                continue;
            };
            let sig = Signature::parse(kind, &chunk.data).unwrap();
            let table = sig.listing_table(stage, TableStyle::Fxc930);
            let mut rebuilt = Signature::new(kind);
            for row in table.lines().skip(2).filter(|l| *l != "//") {
                match SignatureElement::from_listing_row(row, 0, kind, stage) {
                    Ok(e) => rebuilt.elements.push(e),
                    Err(d) => problems.push(format!("{rel} {}: {row:?}: {}", chunk.tag, d.message)),
                }
            }
            if rebuilt.to_bytes() != chunk.data {
                problems.push(format!(
                    "{rel} {}: rebuilt from its table, encodes differently",
                    chunk.tag
                ));
            }
            checked += 1;
        }
    }
    for p in &problems {
        eprintln!("PROBLEM {p}");
    }
    assert!(checked > 300, "{checked}");
    assert!(problems.is_empty(), "{} problems", problems.len());
}

/// The shader listings inside fxc's effect listings (`VertexShader = asm {
/// ... }` blocks, indented) are ordinary shader listings of the containers
/// the effect embeds: each block must equal the listing of one of them.
#[test]
fn effect_shader_blocks_match_their_embedded_containers() {
    let mut blocks_total = 0;
    let mut matched = 0;
    let mut failures = Vec::new();
    for (rel, path) in blobs() {
        let Ok(want) = std::fs::read_to_string(path.with_extension("asm")) else {
            continue;
        };
        let blob = std::fs::read(&path).unwrap();
        if !is_effect(&blob) {
            continue;
        }
        let shaders = embedded_shaders(&blob);
        let lines: Vec<&str> = want.split_inclusive('\n').collect();
        let mut i = 0;
        while i < lines.len() {
            if !lines[i].trim_end().ends_with("asm {") {
                i += 1;
                continue;
            }
            i += 1;
            let Some(first) = lines.get(i) else { break };
            let indent = first.len() - first.trim_start().len();
            let mut block = String::new();
            while i < lines.len() {
                let l = lines[i];
                let body = if l.len() > indent {
                    &l[indent..]
                } else {
                    l.trim_start_matches(' ')
                };
                block.push_str(body);
                i += 1;
                if body.starts_with("// Approximately ") {
                    break;
                }
            }
            blocks_total += 1;
            let expected = split_expected(&block);
            let mut found = false;
            for s in &shaders {
                let next = Cell::new(0usize);
                let program = |_: &[u8], _: &str| -> Result<String, DecodeError> {
                    let k = next.get();
                    next.set(k + 1);
                    Ok(expected.programs.get(k).cloned().unwrap_or_default())
                };
                let level9 = |_: &Container| -> Result<Option<String>, DecodeError> { Ok(None) };
                let got = disassemble_with(
                    s.bytes,
                    &Printers {
                        program: &program,
                        level9: &level9,
                    },
                    &ListingOptions::default(),
                );
                if got.as_deref() == Ok(block.as_str()) {
                    found = true;
                    break;
                }
            }
            if found {
                matched += 1;
            } else {
                let first = shaders.first().map(|s| {
                    let program = |_: &[u8], _: &str| -> Result<String, DecodeError> {
                        Ok(expected.programs.first().cloned().unwrap_or_default())
                    };
                    let level9 =
                        |_: &Container| -> Result<Option<String>, DecodeError> { Ok(None) };
                    disassemble_with(
                        s.bytes,
                        &Printers {
                            program: &program,
                            level9: &level9,
                        },
                        &ListingOptions::default(),
                    )
                    .unwrap_or_default()
                });
                failures.push(format!("{rel} block {blocks_total}: no embedded shader lists as\n{}\n--- first candidate:\n{}", block.lines().take(12).collect::<Vec<_>>().join("\n"), first.unwrap_or_default().lines().take(12).collect::<Vec<_>>().join("\n")));
            }
        }
    }
    for f in failures.iter().take(5) {
        eprintln!("MISMATCH {f}");
    }
    eprintln!(
        "{matched} of {blocks_total} effect shader blocks match an embedded container's listing"
    );
    assert!(blocks_total > 20);
    assert!(
        failures.is_empty(),
        "{} effect shader blocks differ",
        failures.len()
    );
}
