//! The Direct3D side of the language verbs: `dis` and `check` of DXBC
//! blobs, `tgsi info`, and `tgsi lower` (SM4/SM5 → TGSI text).

use super::input::{Format, detect_format, display_name, read_bytes, write_bytes};
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use tgsi::d3d::container::{ChecksumStatus, checksum_hex, checksum_status};

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
            Ok(ChecksumStatus::Valid) => {}
            Ok(ChecksumStatus::Mismatch { expected, stored }) => {
                eprintln!(
                    "error: {name}: byte offset 4 (0x4): checksum mismatch: expected {}, stored {}",
                    checksum_hex(&expected),
                    checksum_hex(&stored)
                );
                ok = false;
            }
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
    match tgsi::d3d::program_chunks(bytes) {
        Ok(programs) => {
            for p in programs {
                if let Err(e) = tgsi::d3d::decode_program(&p.payload) {
                    eprintln!("error: {name}: {}", e.shifted(p.offset));
                    ok = false;
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
/// (libraries hold several); true when all is well.
pub fn check_assembly(bytes: &[u8], name: &str) -> Result<bool> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{name}: byte {}: the file is not valid UTF-8 text",
            e.valid_up_to()
        )
    })?;
    match tgsi::d3d::parse_listing(text) {
        Ok(_) => Ok(true),
        Err(diags) => {
            eprint!("{}", diags.render(name, text));
            Ok(false)
        }
    }
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
                         signatures: &tgsi::d3d::lower::Signatures|
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
                eprintln!("error: {name}: {label}: {e}");
                false
            }
        }
    };
    match from.unwrap_or_else(|| detect_format(&bytes, Format::Tgsi)) {
        Format::Dxbc => match tgsi::d3d::lower::container_programs(&bytes) {
            Ok(programs) => {
                for (k, p) in programs.iter().enumerate() {
                    match tgsi::d3d::decode_program(&p.payload) {
                        Ok(program) => {
                            ok &= lower_one(
                                format!("program {k} (byte offset {})", p.offset),
                                &program,
                                &p.signatures,
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
                        ok &= lower_one(format!("program {k}"), &p.program, &signatures);
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
                "error: {name}: `tgsi lower` takes a DXBC blob or SM4/SM5 assembly, this is {other:?}"
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
