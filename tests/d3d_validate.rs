//! Every program of the fxc corpus validates without a diagnostic: fxc's
//! output is valid Direct3D bytecode, so any diagnostic here is a validator
//! bug.
//!
//! Each DXBC blob under `tests/fixtures/d3d` (`.o`, `.dxbc`) is walked for
//! SHDR/SHEX chunks, recursing into the containers that libraries keep in
//! `LIBF` chunks; effects (no DXBC container, or an `FX10` chunk) are
//! skipped. Diagnostics point at byte ranges of the blob
//! ([`SourceMap::from_payload`]).

mod common;

use tgsi::d3d::enums::RegisterFile;
use tgsi::d3d::ir::{Operand, Program};
use tgsi::d3d::listing::is_effect;
use tgsi::d3d::opcode::Opcode;
use tgsi::d3d::source_map::SourceMap;
use tgsi::d3d::{
    DecodeError, ProgramChunk, decode_program, parse_listing, program_chunks, validate,
};

/// The program chunks of a blob, `None` for an effect (the last test
/// checks the shaders effects embed).
fn programs_of(blob: &[u8]) -> Option<Result<Vec<ProgramChunk>, DecodeError>> {
    if is_effect(blob) {
        None
    } else {
        Some(program_chunks(blob))
    }
}

#[test]
fn every_corpus_program_validates_without_diagnostics() {
    let files = common::corpus_files(common::BLOBS);
    assert!(
        files.len() > 200,
        "expected the corpus under tests/fixtures/d3d, found {} blobs",
        files.len()
    );
    let (mut programs, mut effects, mut clean) = (0, 0, 0);
    let mut problems = Vec::new();
    for path in &files {
        let blob = std::fs::read(path).expect("read blob");
        let name = common::relative(path);
        let chunks = match programs_of(&blob) {
            Some(Ok(c)) => c,
            None => {
                effects += 1;
                continue;
            }
            Some(Err(e)) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        for (n, chunk) in chunks.iter().enumerate() {
            programs += 1;
            let program = match decode_program(&chunk.payload) {
                Ok(p) => p,
                Err(e) => {
                    problems.push(format!(
                        "{name} program {n}: decode: {}",
                        e.shifted(chunk.offset)
                    ));
                    continue;
                }
            };
            let map = SourceMap::from_payload(&chunk.payload, chunk.offset);
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

/// Every program chunk of the corpus, decoded, with its name.
fn corpus_programs() -> Vec<(String, Program, Vec<u8>)> {
    let files = common::corpus_files(common::BLOBS);
    let mut out = Vec::new();
    for path in &files {
        let blob = std::fs::read(path).expect("read blob");
        let name = common::relative(path);
        if let Some(Ok(chunks)) = programs_of(&blob) {
            for (n, chunk) in chunks.into_iter().enumerate() {
                if let Ok(p) = decode_program(&chunk.payload) {
                    out.push((format!("{name} program {n}"), p, chunk.payload));
                }
            }
        }
    }
    out
}

/// True if `op` (or a relative index inside it) names register `n` of `file`.
fn names(op: &Operand, file: RegisterFile, n: u64) -> bool {
    (op.file == file
        && op
            .indices
            .first()
            .is_some_and(|i| i.relative().is_none() && i.immediate() == n))
        || op
            .indices
            .iter()
            .any(|i| i.relative().is_some_and(|r| names(r, file, n)))
}

/// Removing the declaration of a register the program uses is always
/// reported: the checks are not vacuous on real programs.
#[test]
fn removing_a_used_declaration_is_always_reported() {
    let mut removed = 0;
    let mut missed = Vec::new();
    for (name, program, _) in corpus_programs() {
        for (i, inst) in program.instructions.iter().enumerate() {
            let target = match inst.opcode {
                Opcode::DclTemps => Some((RegisterFile::Temp, 0, true)),
                Opcode::DclConstantBuffer
                | Opcode::DclResource
                | Opcode::DclResourceRaw
                | Opcode::DclResourceStructured
                | Opcode::DclSampler
                | Opcode::DclUavTyped
                | Opcode::DclUavRaw
                | Opcode::DclUavStructured
                | Opcode::DclTgsmRaw
                | Opcode::DclTgsmStructured => {
                    let op = &inst.operands[0];
                    Some((op.file, op.indices[0].immediate(), false))
                }
                _ => None,
            };
            let Some((file, n, any_index)) = target else {
                continue;
            };
            let used = program.instructions.iter().enumerate().any(|(k, other)| {
                k != i
                    && !other.opcode.is_declaration()
                    && other.operands.iter().any(|op| {
                        if any_index {
                            names_file(op, file)
                        } else {
                            names(op, file, n)
                        }
                    })
            });
            if !used {
                continue;
            }
            let mut cut = program.clone();
            cut.instructions.remove(i);
            removed += 1;
            if validate(&cut, None).0.is_empty() {
                missed.push(format!(
                    "{name}: removing `{}` (instruction {i}) went unnoticed",
                    inst.opcode.name()
                ));
            }
        }
    }
    eprintln!("{removed} used declarations removed one at a time, each reported");
    assert!(
        removed > 500,
        "expected many used declarations in the corpus, found {removed}"
    );
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// True if `op` (or a relative index inside it) is a register of `file`.
fn names_file(op: &Operand, file: RegisterFile) -> bool {
    op.file == file
        || op
            .indices
            .iter()
            .any(|i| i.relative().is_some_and(|r| names_file(r, file)))
}

/// Damaged programs (up to 150 dwords spread over each corpus program, each
/// in turn with a few bits flipped) either fail to decode or validate without panicking.
#[test]
fn damaged_programs_never_panic_the_validator() {
    let mut validated = 0;
    let mut seed = 0x2545_f491_u32;
    for (_, _, payload) in corpus_programs().into_iter().take(120) {
        let dwords = payload.len() / 4;
        let step = (dwords / 150).max(1);
        for at in (2..dwords).step_by(step) {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let mut bytes = payload.clone();
            let flip = (seed & 0x00ff_ffff).to_le_bytes();
            for (b, f) in bytes[at * 4..at * 4 + 4].iter_mut().zip(flip) {
                *b ^= f;
            }
            if let Ok(program) = decode_program(&bytes) {
                let map = SourceMap::from_payload(&bytes, 0);
                let _ = validate(&program, Some(&map));
                let _ = validate(&program, None);
                validated += 1;
            }
        }
    }
    assert!(
        validated > 1000,
        "expected many damaged programs to decode, found {validated}"
    );
}

/// The same programs assembled from fxc's listings validate without a
/// diagnostic too (text source maps this time).
#[test]
fn every_corpus_listing_assembles_and_validates() {
    let files = common::corpus_files(common::BLOBS);
    let (mut programs, mut level9, mut problems) = (0, 0, Vec::new());
    for blob_path in &files {
        let blob = std::fs::read(blob_path).expect("read blob");
        if !matches!(programs_of(&blob), Some(Ok(_))) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(blob_path.with_extension("asm")) else {
            continue;
        };
        let name = common::relative(blob_path);
        let parsed = match parse_listing(&text) {
            Ok(p) => p,
            // libraries for feature level 9 list Direct3D 9 programs
            // (`lib_4_0_vs_2_0` …) the SM4/SM5 assembler does not read
            Err(_) if level9_listing(&text) => {
                level9 += 1;
                continue;
            }
            Err(e) => {
                problems.push(format!("{name}: does not assemble: {e}"));
                continue;
            }
        };
        for p in parsed {
            programs += 1;
            let diags = validate(&p.program, Some(&p.map));
            if !diags.0.is_empty() {
                problems.push(format!("{name}:\n{}", diags.render(&name, &text)));
            }
        }
    }
    eprintln!("{programs} assembled programs validated, {level9} level-9 library listings skipped");
    for p in problems.iter().take(20) {
        eprintln!("{p}");
    }
    assert!(
        problems.is_empty(),
        "{} listings with problems",
        problems.len()
    );
    assert!(
        programs >= 240,
        "expected 240+ assembled programs, found {programs}"
    );
    assert!(level9 <= 12, "{level9} level-9 library listings skipped");
}

/// True for a listing with a Direct3D 9 program (`vs_2_0`, `lib_4_0_ps_2_x` …).
fn level9_listing(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        ["vs_2_", "ps_2_", "lib_4_0_vs_2_", "lib_4_0_ps_2_"]
            .iter()
            .any(|p| l.starts_with(p))
    })
}

/// The shaders that fxc effects embed (found with the library's
/// [`program_chunks`]) validate without a diagnostic too.
#[test]
fn shaders_embedded_in_effects_validate_without_diagnostics() {
    let files = common::corpus_files(common::BLOBS);
    let (mut programs, mut problems) = (0, Vec::new());
    for path in &files {
        let blob = std::fs::read(path).expect("read blob");
        if !is_effect(&blob) {
            continue;
        }
        let name = common::relative(path);
        let Ok(chunks) = program_chunks(&blob) else {
            problems.push(format!("{name}: the effect's shaders cannot be found"));
            continue;
        };
        for chunk in chunks {
            let Ok(program) = decode_program(&chunk.payload) else {
                problems.push(format!(
                    "{name}: a shader at 0x{:x} does not decode",
                    chunk.offset
                ));
                continue;
            };
            programs += 1;
            let map = SourceMap::from_payload(&chunk.payload, chunk.offset);
            for d in validate(&program, Some(&map)).0 {
                problems.push(format!("{name}: {}", d.message));
            }
        }
    }
    eprintln!("{programs} shaders embedded in effects validated");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        programs >= 80,
        "expected 80+ embedded shaders, found {programs}"
    );
}
