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
    /// TGSI text as written, for errors placed in it.
    pub source: Option<TextSource>,
}

/// TGSI text as the user wrote it: where each instruction is, for run
/// errors (and, as a draw stage's interface, for errors of a draw).
pub struct TextSource {
    name: String,
    /// Per instruction, its (line, column).
    places: Vec<(usize, usize)>,
}

impl TextSource {
    pub fn new(
        name: &str,
        text: &str,
        shader: &tgsi::Shader,
        map: &tgsi::ir::SourceMap,
    ) -> TextSource {
        let lines = tgsi::diag::LineIndex::new(text);
        let places = (shader.statements.iter().zip(&map.statements))
            .filter(|(s, _)| matches!(s, tgsi::ir::Statement::Instruction(_)))
            .map(|(_, span)| lines.line_col(text, span.start))
            .collect();
        TextSource {
            name: name.to_string(),
            places,
        }
    }

    /// The line and column of the instruction an error names.
    fn place(&self, e: &tgsi::exec::ExecError) -> Option<(usize, usize)> {
        self.places.get(e.instruction?).copied()
    }
}

impl tgsi::pipeline::StageInterface for TextSource {
    fn with_resources(
        &self,
        res: &mut tgsi::exec::Resources,
        run: &mut dyn FnMut(&mut tgsi::exec::Resources),
    ) {
        run(res)
    }
    fn source_of(&self, e: &tgsi::exec::ExecError) -> Option<String> {
        let (line, column) = self.place(e)?;
        Some(format!("{}:{line}:{column}", self.name))
    }
}

/// `NAME:LINE:COLUMN: MESSAGE` for a run error that names an instruction
/// of TGSI text; `NAME: MESSAGE` otherwise (a Direct3D program's errors
/// name its own instruction in the message).
pub fn run_error(
    name: &str,
    source: Option<&TextSource>,
    e: &tgsi::exec::ExecError,
) -> anyhow::Error {
    match source.and_then(|s| s.place(e)) {
        Some((line, column)) => anyhow!("{name}:{line}:{column}: {e}"),
        None => anyhow!("{name}: {e}"),
    }
}

impl RunnableShader {
    /// [`run_error`] of this shader.
    pub fn run_error(&self, e: &tgsi::exec::ExecError) -> anyhow::Error {
        run_error(&self.name, self.source.as_ref(), e)
    }
}

/// A shader of Mesa's `tgsi_token` words, decoded and validated; `None`
/// once the diagnostics are printed.
fn load_tokens(bytes: &[u8], name: String) -> Result<Option<RunnableShader>> {
    Ok(
        check_tokens(bytes, &name, false).map(|shader| RunnableShader {
            name,
            shader,
            d3d: None,
            source: None,
        }),
    )
}

/// Decodes and validates Mesa's `tgsi_token` words, printing what is
/// wrong (and the warnings when `warnings`); the shader when it is valid.
pub fn check_tokens(bytes: &[u8], name: &str, warnings: bool) -> Option<tgsi::Shader> {
    let decoded = tgsi::tokens::bytes_to_words(bytes)
        .and_then(|w| tgsi::tokens::decode(&w, tgsi::enums::ProcessorNumbering::Mesa22));
    let shader = match decoded {
        Ok(shader) => shader,
        Err(e) => {
            eprintln!("error: {name}: {e}");
            return None;
        }
    };
    let diags = tgsi::validate::validate(&shader, None);
    if warnings || diags.has_errors() {
        eprint!("{}", diags.render(name, &tgsi::text::print(&shader)));
    }
    (!diags.has_errors()).then_some(shader)
}

/// Reads a shader to run: TGSI text, SM4/SM5 assembly or a DXBC blob (told
/// apart by [`detect_format`]); a Direct3D program is validated and lowered.
/// `None` once the diagnostics are printed to stderr.
pub fn load_runnable(path: &Path) -> Result<Option<RunnableShader>> {
    use tgsi::shader_test::d3d::{BuildError, D3dShader, check_assembly, check_container};
    let bytes = read_bytes(path)?;
    let name = display_name(path);
    let text = std::str::from_utf8(&bytes).ok();
    let checked = match detect_format(&bytes, &name, Format::Tgsi)? {
        Format::Dxbc => check_container(&bytes, &name),
        Format::SmAsm => check_assembly(text.unwrap_or_default()),
        Format::Tokens => return load_tokens(&bytes, name),
        Format::Tgsi => {
            let text = text_of(&bytes, &name)?;
            return Ok(match tgsi::assemble(text) {
                Ok((shader, map)) => Some(RunnableShader {
                    source: Some(TextSource::new(&name, text, &shader, &map)),
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
            source: None,
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
        .map_err(|e| anyhow!("{name}:{}:{}: {}", e.line, e.column, e.message))?;
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

impl Format {
    /// What the format is, as a message names it.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Tgsi => "TGSI text",
            Format::Tokens => "binary TGSI tokens",
            Format::Dxbc => "a DXBC container",
            Format::SmAsm => "SM4/SM5 assembly",
        }
    }
}

/// File extensions under which compiled Direct3D shaders are kept (fxc's
/// `/Fo` output, `.cso` of Visual Studio, effects, the corpus's `.o`).
const DXBC_EXTENSIONS: [&str; 7] = ["dxbc", "cso", "fxo", "o", "vso", "pso", "dxo"];

/// The format of the input `name`, forced by `--from` or else told from its
/// bytes by [`detect_format`].
pub fn pick_format(
    from: Option<Format>,
    bytes: &[u8],
    name: &str,
    otherwise: Format,
) -> Result<Format> {
    match from {
        Some(format) => Ok(format),
        None => detect_format(bytes, name, otherwise),
    }
}

/// The format of `bytes`: the `DXBC` magic (or a raw effect) is DXBC; text
/// that is one of fxc's listings (its first statement past blank, `//` and
/// preprocessor lines a shader-model version, a level-9 listing, an effect
/// listing) is SM assembly; anything else is `otherwise` (TGSI text for the
/// text verbs, TGSI tokens for `dis`). Bytes that cannot be any of them are
/// an error that names the format the file's extension promises and what is
/// wrong with it, at its byte offset: a `.dxbc` (`.cso`, `.fxo`, `.o` ...)
/// without the `DXBC` magic, an empty file, binary bytes where text is due.
pub fn detect_format(bytes: &[u8], name: &str, otherwise: Format) -> Result<Format> {
    use tgsi::sniff::Kind;
    let kind = tgsi::sniff::kind_of(bytes);
    match kind {
        Some(Kind::Dxbc) => return Ok(Format::Dxbc),
        Some(Kind::SmAsm) => return Ok(Format::SmAsm),
        _ => {}
    }
    let extension = Path::new(name)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if extension
        .as_deref()
        .is_some_and(|e| DXBC_EXTENSIONS.contains(&e))
    {
        return Err(anyhow!("{name}: byte 0: {}", not_a_container(bytes)));
    }
    match kind {
        Some(Kind::Tokens) => return Ok(Format::Tokens),
        Some(Kind::Tgsi) => return Ok(Format::Tgsi),
        _ => {}
    }
    if bytes.is_empty() {
        let expected = match otherwise {
            Format::Tokens => "TGSI tokens or a DXBC container",
            _ => "a TGSI shader (`VERT`, `FRAG`, `COMP` ...), SM4/SM5 assembly or a DXBC container",
        };
        return Err(anyhow!("{name}: byte 0: empty file: expected {expected}"));
    }
    // text named as SM4/SM5 assembly gets the assembler's error, which
    // points at its version line
    if otherwise != Format::Tokens
        && extension.as_deref() == Some("asm")
        && std::str::from_utf8(bytes).is_ok()
    {
        return Ok(Format::SmAsm);
    }
    if otherwise != Format::Tokens
        && let Err(e) = std::str::from_utf8(bytes)
    {
        return Err(anyhow!(
            "{name}: byte {}: the file is neither UTF-8 text (a TGSI shader or SM4/SM5 assembly) nor a DXBC container (it starts with {}, not `DXBC`)",
            e.valid_up_to(),
            show_bytes(&bytes[..bytes.len().min(4)])
        ));
    }
    Ok(otherwise)
}

/// What is wrong with `bytes` as a DXBC container, whose first 4 bytes are
/// `DXBC`.
fn not_a_container(bytes: &[u8]) -> String {
    match bytes.len() {
        0 => "empty file: expected a DXBC container, which starts with the 4 bytes `DXBC`".into(),
        n @ 1..4 => format!(
            "not a DXBC container: the file is {n} byte{} long ({}), and a container starts with the 4 bytes `DXBC`",
            if n == 1 { "" } else { "s" },
            show_bytes(bytes)
        ),
        _ => format!(
            "not a DXBC container: the first 4 bytes are {}, expected `DXBC`",
            show_bytes(&bytes[..4])
        ),
    }
}

/// Bytes in hex and as escaped ASCII: `7f 45 4c 46 ("\x7fELF")`.
fn show_bytes(bytes: &[u8]) -> String {
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{} (\"{}\")", hex.join(" "), bytes.escape_ascii())
}

#[cfg(test)]
mod tests {
    use super::{Format, detect_format};

    #[test]
    fn formats_are_told_apart_by_their_first_bytes() {
        let detect = |bytes: &[u8], otherwise| detect_format(bytes, "in", otherwise).unwrap();
        assert_eq!(detect(b"DXBC\0\0", Format::Tgsi), Format::Dxbc);
        let sm = b"//\n// Generated by fxc\n//\nps_5_0\ndcl_temps 1\n";
        assert_eq!(detect(sm, Format::Tgsi), Format::SmAsm);
        assert_eq!(
            detect(b"#if 0\nvs_4_0_level_9_1\n", Format::Tgsi),
            Format::SmAsm
        );
        let level9 = b"// Level9 shader bytecode:\n    ps_2_x\n    mov oC0, c0\nps_4_0\nret\n";
        assert_eq!(detect(level9, Format::Tgsi), Format::SmAsm);
        assert_eq!(detect(b"FRAG\nEND\n", Format::Tgsi), Format::Tgsi);
        assert_eq!(
            detect(&[1, 0, 0, 0, 0xff, 0xfe], Format::Tokens),
            Format::Tokens
        );
        // a version line gone wrong, or a file named .asm, is assembly (whose
        // assembler points at the line); TGSI without its header stays TGSI
        assert_eq!(detect(b"ps_x_0\n", Format::Tgsi), Format::SmAsm);
        assert_eq!(detect(b"// c\nPS5_0\nret\n", Format::Tgsi), Format::SmAsm);
        assert_eq!(
            detect_format(b"mov r0, r1\n", "x.asm", Format::Tgsi).unwrap(),
            Format::SmAsm
        );
        assert_eq!(detect(b"DCL IN[0]\nEND\n", Format::Tgsi), Format::Tgsi);
        // text and tokens are told apart whatever the verb expects
        assert_eq!(detect(b"  COMP\nEND\n", Format::Tokens), Format::Tgsi);
        let tokens = [2, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0];
        assert_eq!(detect(&tokens, Format::Tgsi), Format::Tokens);
        assert_eq!(detect(&tokens[..11], Format::Tgsi), Format::Tgsi);
    }

    #[test]
    fn bytes_that_are_no_format_name_the_one_the_extension_promises() {
        let error = |bytes: &[u8], name: &str, otherwise| {
            detect_format(bytes, name, otherwise)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error(b"\x7fELF\x02\x01", "a.dxbc", Format::Tgsi),
            "a.dxbc: byte 0: not a DXBC container: the first 4 bytes are 7f 45 4c 46 (\"\\x7fELF\"), expected `DXBC`"
        );
        assert_eq!(
            error(b"", "shader.cso", Format::Tokens),
            "shader.cso: byte 0: empty file: expected a DXBC container, which starts with the 4 bytes `DXBC`"
        );
        assert!(
            error(b"DX", "x.fxo", Format::Tgsi)
                .contains("the file is 2 bytes long (44 58 (\"DX\"))")
        );
        // text that is no listing, under a DXBC name
        assert!(error(b"FRAG\nEND\n", "x.dxbc", Format::Tgsi).contains("expected `DXBC`"));
        assert_eq!(
            error(b"", "x.tgsi", Format::Tgsi),
            "x.tgsi: byte 0: empty file: expected a TGSI shader (`VERT`, `FRAG`, `COMP` ...), SM4/SM5 assembly or a DXBC container"
        );
        let random = [0x12, 0x9c, 0xff, 0x00, 0x41];
        assert_eq!(
            error(&random, "x.bin", Format::Tgsi),
            "x.bin: byte 1: the file is neither UTF-8 text (a TGSI shader or SM4/SM5 assembly) nor a DXBC container (it starts with 12 9c ff 00 (\"\\x12\\x9c\\xff\\x00\"), not `DXBC`)"
        );
        // a listing stays a listing whatever its name; tokens are binary
        assert_eq!(
            detect_format(b"ps_5_0\nret\n", "x.dxbc", Format::Tgsi).unwrap(),
            Format::SmAsm
        );
        assert_eq!(
            detect_format(&random, "x.bin", Format::Tokens).unwrap(),
            Format::Tokens
        );
    }

    /// Each instruction's place, found through the line index, is the one
    /// counted from the start (comments, blank lines, characters of more
    /// than one byte and indentation before it).
    #[test]
    fn instruction_places_follow_the_text() {
        let text = "COMP\n; ünïcödé comment\nDCL TEMP[0]\n\n  MOV TEMP[0].x, TEMP[0].xxxx\nBGNLOOP\n    ; é\n   BRK\nENDLOOP\nEND\n";
        let (shader, map) = tgsi::assemble(text).unwrap();
        let source = super::TextSource::new("t.tgsi", text, &shader, &map);
        let expected: Vec<(usize, usize)> = (shader.statements.iter().zip(&map.statements))
            .filter(|(s, _)| matches!(s, tgsi::ir::Statement::Instruction(_)))
            .map(|(_, span)| tgsi::diag::line_col(text, span.start))
            .collect();
        assert_eq!(source.places, expected);
        assert_eq!(expected, [(5, 3), (6, 1), (8, 4), (9, 1), (10, 1)]);
    }
}
