//! Reading the files the verbs take (`-` is standard input): raw bytes,
//! UTF-8 text, TGSI shaders (assembled, diagnostics printed) and data files
//! in the `.shader_test` section syntax.

use anyhow::{Context, Result, anyhow};
use std::io::{Read, Write};
use std::path::Path;

/// The display name of an input path.
pub fn display_name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads a whole file, or standard input for `-`.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let mut data = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .read_to_end(&mut data)
            .context("reading standard input")?;
    } else {
        data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    }
    Ok(data)
}

/// Reads a text file; invalid UTF-8 is an error naming the byte offset.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = read_bytes(path)?;
    String::from_utf8(bytes).map_err(|e| {
        anyhow!(
            "{}: byte {}: the file is not valid UTF-8 text",
            display_name(path),
            e.utf8_error().valid_up_to()
        )
    })
}

/// Reads and assembles (and validates) a TGSI text shader: its display name
/// and the shader, or `None` once its diagnostics are printed to stderr.
pub fn assemble_file(path: &Path) -> Result<Option<(String, tgsi::Shader)>> {
    let text = read_text(path)?;
    let name = display_name(path);
    match tgsi::assemble(&text) {
        Ok((shader, _)) => Ok(Some((name, shader))),
        Err(diags) => {
            eprint!("{}", diags.render(&name, &text));
            Ok(None)
        }
    }
}

/// Reads and parses a data file in the `.shader_test` section syntax: its
/// display name and sections (a parse error names the file and line).
pub fn read_data_file(path: &Path) -> Result<(String, tgsi::shader_test::TestFile)> {
    let name = display_name(path);
    let text = read_text(path)?;
    let file = tgsi::shader_test::parse_file(&name, &text)
        .map_err(|e| anyhow!("{name}:{}: {}", e.line, e.message))?;
    Ok((name, file))
}

/// Writes to a file, or standard output for `-`.
pub fn write_bytes(path: &Path, data: &[u8]) -> Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(data)?;
        out.flush()?;
    } else {
        std::fs::write(path, data).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
