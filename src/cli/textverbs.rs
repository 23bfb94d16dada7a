//! `tgsi check`, `fmt`, `asm` and `dis`: the language verbs, for TGSI and,
//! through [`super::d3dverbs`], for Direct3D bytecode and assembly.

use super::d3dverbs;
use super::input::{
    Format, assemble_file, check_tokens, display_name, pick_format, read_bytes, text_of,
    write_bytes,
};
use anyhow::{Result, anyhow};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tgsi::enums::ProcessorNumbering;

pub fn check(files: &[PathBuf], from: Option<Format>) -> Result<ExitCode> {
    let mut all_valid = true;
    for file in files {
        let valid = match check_one(file, from) {
            Ok(valid) => valid,
            Err(e) => {
                eprintln!("error: {e:#}");
                false
            }
        };
        all_valid &= valid;
    }
    Ok(if all_valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

pub fn fmt(
    file: &Path,
    check: bool,
    output: Option<&Path>,
    from: Option<Format>,
) -> Result<ExitCode> {
    let bytes = read_bytes(file)?;
    let name = display_name(file);
    let canonical = match pick_format(from, &bytes, &name, Format::Tgsi)? {
        Format::SmAsm => match d3dverbs::canonical_assembly(&bytes, &name)? {
            Some(text) => text,
            None => return Ok(ExitCode::from(1)),
        },
        Format::Tgsi => {
            let text = text_of(&bytes, &name)?;
            match tgsi::assemble(text) {
                Ok((shader, _)) => tgsi::text::print(&shader),
                Err(diags) => {
                    eprint!("{}", diags.render(&name, text));
                    return Ok(ExitCode::from(1));
                }
            }
        }
        other => {
            eprintln!(
                "error: {name}: `fmt` formats text (TGSI or SM assembly), not {} (try `tgsi dis`)",
                other.describe()
            );
            return Ok(ExitCode::from(1));
        }
    };
    let text = text_of(&bytes, &name)?;
    if check {
        if canonical == text {
            return Ok(ExitCode::SUCCESS);
        }
        let line = first_difference_line(text, &canonical);
        eprintln!("{name}:{line}: not in canonical form (run `tgsi fmt {name}` to see it)");
        return Ok(ExitCode::from(1));
    }
    write_bytes(output.unwrap_or(Path::new("-")), canonical.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Checks one file of any format; false once its errors are printed.
fn check_one(file: &Path, from: Option<Format>) -> Result<bool> {
    let bytes = read_bytes(file)?;
    let name = display_name(file);
    match pick_format(from, &bytes, &name, Format::Tgsi)? {
        Format::Dxbc => Ok(d3dverbs::check(&bytes, &name)),
        Format::SmAsm => d3dverbs::check_assembly(&bytes, &name),
        Format::Tokens => Ok(check_tokens(&bytes, &name, true).is_some()),
        Format::Tgsi => {
            // parse errors, or every error and warning of the validator
            let text = text_of(&bytes, &name)?;
            let diags = match tgsi::text::parse(text) {
                Ok((shader, map)) => tgsi::validate::validate(&shader, Some(&map)),
                Err(diags) => diags,
            };
            eprint!("{}", diags.render(&name, text));
            Ok(!diags.has_errors())
        }
    }
}

/// 1-based number of the first line where two texts differ.
fn first_difference_line(a: &str, b: &str) -> usize {
    let mut a_lines = a.split_inclusive('\n');
    let mut b_lines = b.split_inclusive('\n');
    let mut n = 1;
    loop {
        match (a_lines.next(), b_lines.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            (None, None) => return n,
            _ => return n,
        }
    }
}

pub fn asm(
    file: &Path,
    output: &Path,
    numbering: ProcessorNumbering,
    from: Option<Format>,
) -> Result<ExitCode> {
    let bytes = read_bytes(file)?;
    let name = display_name(file);
    match pick_format(from, &bytes, &name, Format::Tgsi)? {
        Format::SmAsm => return d3dverbs::asm(&bytes, &name, output),
        Format::Tgsi => {}
        other => {
            eprintln!(
                "error: {}: `asm` assembles text (TGSI or SM assembly), not {}",
                display_name(file),
                other.describe()
            );
            return Ok(ExitCode::from(1));
        }
    }
    let Some((_, shader)) = assemble_file(file)? else {
        return Ok(ExitCode::from(1));
    };
    let words = tgsi::tokens::encode(&shader, numbering)
        .map_err(|e| anyhow!("{}: cannot encode: {e}", display_name(file)))?;
    write_bytes(output, &tgsi::tokens::words_to_bytes(&words))?;
    Ok(ExitCode::SUCCESS)
}

pub fn dis(
    file: &Path,
    numbering: ProcessorNumbering,
    output: Option<&Path>,
    from: Option<Format>,
) -> Result<ExitCode> {
    let bytes = read_bytes(file)?;
    let name = display_name(file);
    match pick_format(from, &bytes, &name, Format::Tokens)? {
        Format::Dxbc => return d3dverbs::dis(&bytes, &name, output),
        Format::Tokens => {}
        other => {
            eprintln!(
                "error: {name}: `dis` reads binary input (TGSI tokens or DXBC); this is {} text (try `tgsi fmt`)",
                if other == Format::SmAsm {
                    "SM assembly"
                } else {
                    "TGSI"
                }
            );
            return Ok(ExitCode::from(1));
        }
    }
    let words = match tgsi::tokens::bytes_to_words(&bytes) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {name}: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let shader = match tgsi::tokens::decode(&words, numbering) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {name}: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    write_bytes(
        output.unwrap_or(Path::new("-")),
        tgsi::text::print(&shader).as_bytes(),
    )?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::first_difference_line;

    #[test]
    fn difference_line() {
        assert_eq!(first_difference_line("a\nb\n", "a\nc\n"), 2);
        assert_eq!(first_difference_line("a\n", "a\nb\n"), 2);
    }
}
