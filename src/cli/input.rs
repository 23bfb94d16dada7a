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
    Ok(text_of(&bytes, &display_name(path))?.to_string())
}

/// The bytes of the input `name` as UTF-8 text; invalid UTF-8 is an error
/// naming the byte offset.
pub fn text_of<'a>(bytes: &'a [u8], name: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        anyhow!(
            "{name}: byte {}: the file is not valid UTF-8 text",
            e.valid_up_to()
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

/// A shader to run: TGSI, or a Direct3D program lowered to TGSI.
pub struct RunnableShader {
    pub name: String,
    pub shader: tgsi::Shader,
    /// The lowering of a Direct3D program (bindings, input/output maps).
    pub d3d: Option<tgsi::shader_test::d3d::D3dShader>,
}

/// Reads a shader to run: TGSI text, SM4/SM5 assembly or a DXBC blob (told
/// apart by [`detect_format`]); a Direct3D program is validated and lowered.
/// `None` once the diagnostics are printed to stderr.
pub fn load_runnable(path: &Path) -> Result<Option<RunnableShader>> {
    use tgsi::shader_test::d3d::{BuildError, D3dShader, check_assembly, check_container};
    let bytes = read_bytes(path)?;
    let name = display_name(path);
    let text = std::str::from_utf8(&bytes).ok();
    let checked = match detect_format(&bytes, Format::Tgsi) {
        Format::Dxbc => check_container(&bytes, &name),
        Format::SmAsm => check_assembly(text.unwrap_or_default()),
        _ => {
            let text = text_of(&bytes, &name)?;
            return Ok(match tgsi::assemble(text) {
                Ok((shader, _)) => Some(RunnableShader {
                    name,
                    shader,
                    d3d: None,
                }),
                Err(diags) => {
                    eprint!("{}", diags.render(&name, text));
                    None
                }
            });
        }
    };
    let lowered = checked.and_then(D3dShader::lower);
    match lowered {
        Ok(d3d) => Ok(Some(RunnableShader {
            name,
            shader: d3d.lowered.shader.clone(),
            d3d: Some(d3d),
        })),
        Err(BuildError::Text(diags)) => {
            eprint!("{}", diags.render(&name, text.unwrap_or_default()));
            Ok(None)
        }
        Err(BuildError::Message(m)) => {
            eprint!("{m}");
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

/// What an input file holds, decided from its bytes or forced with `--from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// TGSI text
    Tgsi,
    /// Mesa's binary `tgsi_token` words
    Tokens,
    /// a DXBC container (or a raw `fx_5_0` effect)
    Dxbc,
    /// SM4/SM5 assembly as fxc prints it (vkd3d's spellings accepted)
    #[value(name = "sm-asm")]
    SmAsm,
}

/// The format of `bytes`: the `DXBC` magic (or a raw effect) is DXBC; text
/// whose first line that is not blank, a `//` comment or a preprocessor line
/// (`#if 0`, `#line`) is a shader-model version (`ps_5_0`, `vs_4_0_level_9_1`,
/// `lib_4_0`, `fx_5_0`) is SM assembly; anything else is `otherwise` (TGSI
/// text for the text verbs, TGSI tokens for `dis`).
pub fn detect_format(bytes: &[u8], otherwise: Format) -> Format {
    if bytes.starts_with(b"DXBC") || tgsi::d3d::effect::is_raw_effect(bytes) {
        return Format::Dxbc;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) if tgsi::shader_test::d3d::is_assembly(text) => Format::SmAsm,
        _ => otherwise,
    }
}

#[cfg(test)]
mod tests {
    use super::{Format, detect_format};

    #[test]
    fn formats_are_told_apart_by_their_first_bytes() {
        assert_eq!(detect_format(b"DXBC\0\0", Format::Tgsi), Format::Dxbc);
        let sm = b"//\n// Generated by fxc\n//\nps_5_0\ndcl_temps 1\n";
        assert_eq!(detect_format(sm, Format::Tgsi), Format::SmAsm);
        assert_eq!(
            detect_format(b"#if 0\nvs_4_0_level_9_1\n", Format::Tgsi),
            Format::SmAsm
        );
        assert_eq!(detect_format(b"FRAG\nEND\n", Format::Tgsi), Format::Tgsi);
        assert_eq!(
            detect_format(&[1, 0, 0, 0, 0xff, 0xfe], Format::Tokens),
            Format::Tokens
        );
        assert_eq!(detect_format(b"ps_x_0\n", Format::Tgsi), Format::Tgsi);
    }
}
