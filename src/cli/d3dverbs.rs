//! The Direct3D side of the language verbs: `dis` and `check` of DXBC
//! blobs, `asm`, `fmt` and `check` of SM4/SM5 assembly, `tgsi info`, and
//! `tgsi lower` (SM4/SM5 → TGSI text).

use super::input::{Format, display_name, pick_format, read_bytes, text_of, write_bytes};
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use tgsi::d3d::container::{ChecksumStatus, checksum_hex, checksum_status};
use tgsi::d3d::sniff::{ListingKind, listing_kind};
use tgsi::d3d::source_map::SourceMap;

/// `tgsi dis FILE.dxbc`: fxc's listing.
pub fn dis(bytes: &[u8], name: &str, output: Option<&Path>) -> Result<ExitCode> {
    match tgsi::d3d::disassemble(bytes) {
        Ok(text) => {
            write_bytes(output.unwrap_or(Path::new("-")), text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {name}: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// `tgsi check` of a DXBC blob: the container (with its checksum), every
/// chunk the listing decodes, and every program; true when all is well.
pub fn check(bytes: &[u8], name: &str) -> bool {
    let mut ok = true;
    if !tgsi::d3d::effect::is_raw_effect(bytes) {
        match checksum_status(bytes) {
            Ok(status) => ok &= checksum_ok(name, status, 0, "the blob"),
            Err(e) => {
                eprintln!("error: {name}: {e}");
                return false;
            }
        }
    }
    if let Err(e) = tgsi::d3d::disassemble(bytes) {
        eprintln!("error: {name}: {e}");
        return false;
    }
    for (at, problem) in tgsi::d3d::effect::framing_problems(bytes) {
        eprintln!("error: {name}: byte offset {at} ({at:#x}): {problem}");
        ok = false;
    }
    // a library's functions and an effect's shaders are signed one by one
    for (offset, nested) in tgsi::d3d::nested_containers(bytes).unwrap_or_default() {
        if let Ok(status) = checksum_status(nested) {
            let what = format!("the container nested at byte offset {offset}");
            ok &= checksum_ok(name, status, offset, &what);
        }
    }
    match tgsi::d3d::program_chunks(bytes) {
        Ok(programs) => {
            for p in programs {
                match tgsi::d3d::decode_program(&p.payload) {
                    Ok(program) => {
                        let map = SourceMap::from_payload(&p.payload, p.offset);
                        let diags = tgsi::d3d::validate(&program, Some(&map));
                        eprint!("{}", diags.render_binary(name));
                        ok &= !diags.has_errors();
                    }
                    Err(e) => {
                        eprintln!("error: {name}: {}", e.shifted(p.offset));
                        ok = false;
                    }
                }
            }
        }
        Err(e) => {
            eprintln!("error: {name}: {e}");
            ok = false;
        }
    }
    ok
}

/// Reports the checksum of `what` (a container at byte `offset`); false
/// when it does not match its bytes. An all-zero checksum (tools that do
/// not sign write zeros) is accepted with a warning, as `run` and the
/// `.shader_test` runner accept it.
fn checksum_ok(name: &str, status: ChecksumStatus, offset: usize, what: &str) -> bool {
    let at = offset + 4;
    match status {
        ChecksumStatus::Valid => true,
        ChecksumStatus::Mismatch { expected, stored } if stored == [0; 4] => {
            eprintln!(
                "warning: {name}: byte offset {at} ({at:#x}): the checksum of {what} is all zero (not signed; its bytes hash to {})",
                checksum_hex(&expected)
            );
            true
        }
        ChecksumStatus::Mismatch { expected, stored } => {
            eprintln!(
                "error: {name}: byte offset {at} ({at:#x}): checksum mismatch of {what}: expected {}, stored {}",
                checksum_hex(&expected),
                checksum_hex(&stored)
            );
            false
        }
    }
}

/// Where instruction `i` of a decoded program is: `byte offset N (0xN)`.
pub fn binary_place(map: &SourceMap, i: usize) -> Option<String> {
    let start = map.instructions.get(i)?.span.start;
    Some(format!("byte offset {start} ({start:#x})"))
}

/// Where instruction `i` of an assembled program is: `LINE:COLUMN`.
fn text_place(text: &str, map: &SourceMap, i: usize) -> Option<String> {
    let (line, column) = tgsi::diag::line_col(text, map.instructions.get(i)?.span.start);
    Some(format!("{line}:{column}"))
}

/// `tgsi info FILE.dxbc [--json]`.
pub fn info(file: &Path, json: bool) -> Result<ExitCode> {
    let bytes = read_bytes(file)?;
    let name = display_name(file);
    match tgsi::d3d::info::info(&bytes) {
        Ok(info) => {
            let text = if json {
                format!("{:#}\n", info.to_json())
            } else {
                info.to_text()
            };
            write_bytes(Path::new("-"), text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {name}: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// `tgsi check` of SM4/SM5 assembly: every program of the listing parses
/// (libraries hold several) and validates; true when all is well.
pub fn check_assembly(bytes: &[u8], name: &str) -> Result<bool> {
    let text = text_of(bytes, name)?;
    match tgsi::d3d::parse_listing(text) {
        Ok(programs) => {
            let mut ok = true;
            for p in programs {
                let diags = tgsi::d3d::validate(&p.program, Some(&p.map));
                eprint!("{}", diags.render(name, text));
                ok &= !diags.has_errors();
            }
            Ok(ok)
        }
        Err(diags) => {
            eprint!("{}", diags.render(name, text));
            Ok(false)
        }
    }
}

/// `tgsi asm FILE.asm -o OUT.dxbc`: a validated program in a DXBC container
/// (signature chunks from the listing's tables or the declarations, a valid
/// checksum).
pub fn asm(bytes: &[u8], name: &str, output: &Path) -> Result<ExitCode> {
    let text = text_of(bytes, name)?;
    match tgsi::d3d::assemble(text) {
        Ok((container, _)) => {
            write_bytes(output, &container)?;
            if let Some(ListingKind::Level9First { level9 }) = listing_kind(text) {
                let (line, column) = tgsi::diag::line_col(text, level9);
                eprintln!(
                    "note: {name}:{line}:{column}: the level-9 (Direct3D 9) program is not rebuilt: {} holds the SM4 program without the `Aon9` chunk",
                    output.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(diags) => {
            eprint!("{}", diags.render(name, text));
            Ok(ExitCode::from(1))
        }
    }
}

/// The canonical form of an SM assembly listing: each program printed in
/// fxc 10.1's spelling with lossless floats (`0.33333334` where `%f` would
/// lose bits), the `//` comments around the programs kept as they are; or
/// `None` once the errors are printed.
pub fn canonical_assembly(bytes: &[u8], name: &str) -> Result<Option<String>> {
    let text = text_of(bytes, name)?;
    let programs = match tgsi::d3d::parse_listing(text) {
        Ok(p) => p,
        Err(diags) => {
            eprint!("{}", diags.render(name, text));
            return Ok(None);
        }
    };
    let options = tgsi::d3d::PrintOptions {
        exact_floats: true,
        ..tgsi::d3d::PrintOptions::default()
    };
    let mut out = String::new();
    let mut rest = 0;
    for p in &programs {
        out.push_str(&text[p.header.start..p.header.end]);
        out.push_str(&tgsi::d3d::print_program_with(&p.program, &options));
        let last = p.map.instructions.last().map_or(p.map.version, |i| i.span);
        rest = text[last.end..]
            .find('\n')
            .map_or(text.len(), |nl| last.end + nl + 1);
    }
    out.push_str(&text[rest..]);
    Ok(Some(out))
}

/// One lowered program of `tgsi lower`: where it came from and its text.
struct LoweredText {
    label: String,
    text: String,
}

/// `tgsi lower FILE [-o OUT]`: every SM4/SM5 program of a DXBC blob (library
/// functions and an effect's shaders included) or of an assembly listing,
/// lowered to TGSI text with `; <d3d instruction>` comments. Several
/// programs go to standard output one after the other, each after a
/// `; program K` comment line, or with `-o` to `OUT` (one program) or
/// `STEM.K.EXT` (several).
pub fn lower(file: &Path, output: Option<&Path>, from: Option<Format>) -> Result<ExitCode> {
    let bytes = read_bytes(file)?;
    let name = display_name(file);
    let mut ok = true;
    let mut done: Vec<LoweredText> = Vec::new();
    let mut lower_one = |label: String,
                         program: &tgsi::d3d::Program,
                         signatures: &tgsi::d3d::lower::Signatures,
                         at: &dyn Fn(usize) -> Option<String>|
     -> bool {
        match tgsi::d3d::lower::lower(program, signatures) {
            Ok(l) => {
                done.push(LoweredText {
                    label,
                    text: l.to_text(program),
                });
                true
            }
            Err(e) => {
                let place = e.instruction.and_then(at);
                eprintln!(
                    "error: {}: {e}",
                    place.unwrap_or_else(|| format!("{name}: {label}"))
                );
                false
            }
        }
    };
    let format = pick_format(from, &bytes, &name, Format::Tgsi)?;
    // lowered only once valid: the errors `check` gives, where it gives them
    let valid = match format {
        Format::Dxbc => check(&bytes, &name),
        Format::SmAsm => check_assembly(&bytes, &name)?,
        _ => true,
    };
    if !valid {
        return Ok(ExitCode::from(1));
    }
    match format {
        Format::Dxbc => match tgsi::d3d::lower::container_programs(&bytes) {
            Ok(programs) => {
                for (k, p) in programs.iter().enumerate() {
                    match tgsi::d3d::decode_program(&p.payload) {
                        Ok(program) => {
                            let map = SourceMap::from_payload(&p.payload, p.offset);
                            ok &= lower_one(
                                format!("program {k} (byte offset {})", p.offset),
                                &program,
                                &p.signatures,
                                &|i| Some(format!("{name}: {}", binary_place(&map, i)?)),
                            )
                        }
                        Err(e) => {
                            eprintln!("error: {name}: {}", e.shifted(p.offset));
                            ok = false;
                        }
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {name}: {e}");
                return Ok(ExitCode::from(1));
            }
        },
        Format::SmAsm => {
            let text = std::str::from_utf8(&bytes).map_err(|e| {
                anyhow::anyhow!(
                    "{name}: byte {}: the file is not valid UTF-8 text",
                    e.valid_up_to()
                )
            })?;
            match tgsi::d3d::parse_listing(text) {
                Ok(programs) => {
                    for (k, p) in programs.iter().enumerate() {
                        let header = text.get(p.header.start..p.header.end).unwrap_or("");
                        let signatures = tgsi::d3d::lower::Signatures::from_listing_header(
                            header,
                            p.program.version.program_type,
                        )
                        .unwrap_or_else(|| {
                            tgsi::d3d::lower::Signatures::from_declarations(&p.program)
                        });
                        ok &= lower_one(format!("program {k}"), &p.program, &signatures, &|i| {
                            Some(format!("{name}:{}", text_place(text, &p.map, i)?))
                        });
                    }
                }
                Err(diags) => {
                    eprint!("{}", diags.render(&name, text));
                    return Ok(ExitCode::from(1));
                }
            }
        }
        other => {
            eprintln!(
                "error: {name}: `tgsi lower` takes a DXBC blob or SM4/SM5 assembly, this is {}",
                other.describe()
            );
            return Ok(ExitCode::from(1));
        }
    }
    let several = done.len() > 1;
    match output {
        Some(out) if several => {
            let stem = out.file_stem().and_then(|s| s.to_str()).unwrap_or("out");
            let ext = out.extension().and_then(|s| s.to_str()).unwrap_or("tgsi");
            for (k, l) in done.iter().enumerate() {
                let path = out.with_file_name(format!("{stem}.{k}.{ext}"));
                write_bytes(&path, l.text.as_bytes())?;
            }
        }
        _ => {
            let mut all = String::new();
            for l in &done {
                if several {
                    all.push_str(&format!("; {}\n", l.label));
                }
                all.push_str(&l.text);
            }
            write_bytes(output.unwrap_or(Path::new("-")), all.as_bytes())?;
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
