//! The `.shader_test` runner behind `tgsi test`: parses test files (the
//! format, its sections and commands and what is supported, are documented
//! in `docs/shader_test.md`), assembles their shaders (TGSI, or Direct3D
//! SM4/SM5 assembly and DXBC lowered to TGSI, see `d3d.rs`), runs them on
//! the [`tgsi_exec`] machine and compares probed values.
//!
//! Counting: every `[test]` section is one test (it passes when all its
//! probes pass). A `[<stage> shader fail]` section that no `expect error`
//! looks at is a test of its own (passes when the shader is rejected). A
//! shader that does not assemble outside a `fail` section fails the tests
//! that use it, or is one failed test when nothing uses it. A file that cannot
//! be read or parsed is one failed test.
//!
//! State: a `[test]` sees the sections above it. Each test starts from the
//! declared buffer, image and constant contents and cleared render targets;
//! `uniform` writes and render state persist into later tests (as in vkd3d);
//! within one test, commands see each other's effects.
//!
//! Drawing: `draw quad` renders the fragment shader into the `[render
//! target N]`s (or one rgba32f target) that pixel, rect and all probes read
//! (`targets.rs`); `draw` and `draw indexed` run [`tgsi_pipeline`] (vertex
//! input, the tessellation and geometry stages when declared, clipping,
//! rasterization, depth/stencil and blending, [`tgsi_pipeline::draw_with`]) into the
//! same targets and the `[depth target]`; `[texture N]`, `[image N]` and
//! `[sampler N]` become the machine's resources (`textures.rs`); a Direct3D
//! shader gets them by register number through its lowering's bindings
//! (`d3d.rs`).
//!
//! Skipped (never passed, never failed): tests under an unknown or unmet
//! `[require]` line; `draw quad` under depth, stencil, blend, viewport or
//! scissor state; tests whose shader uses bindless opcodes.
//!
//! Beyond the contract: trailing blank and `#`/`%` lines at the end of a
//! shader body are not part of the shader, so comments may precede the next
//! header; `probe buffer` takes an optional `ulp U`; `shader model` takes
//! `<`, `<=`, `==`, `>=`, `>` and the runner offers 5.1; `expect error`
//! matches TEXT case-insensitively, and a TEXT in double quotes means the
//! text between them; `fail` sections are judged by the assembler and
//! validator only (never run); pixel probes take `r`/`rg`/`rgb` kinds.

pub mod d3d;
mod error;
mod parse;
mod qualifiers;
mod report;
mod run;
mod targets;
mod textures;
mod trace;
pub mod values;
mod vulkan;

pub use parse::{
    AddressMode, Attribute, Command, Compare, CompareFunc, Expected, Filter, LevelData, ParseError,
    RenderState, RenderTargetSection, Requirement, SamplerSection, Section, ShaderLanguage,
    ShaderSection, Stage, TestFile, TestSection, TextureFormat, TextureSection, TextureTarget,
    VertexData, format_from_word, parse_file,
};
pub use qualifiers::SHADER_MODEL;
pub use run::{FileReport, Outcome, RunConfig, Summary, TestResult, TraceRequest, run_file};
pub use textures::{sampler_from_section, target_of, texture_from_section};
pub use values::ValueType;
pub use vulkan::test_device;

use std::io::Write;
use std::path::{Path, PathBuf};

/// Parses and runs one file's text. Parse errors become one failed test.
pub fn run_source(name: &str, source: &str, config: &RunConfig) -> FileReport {
    match parse_file(name, source) {
        // an empty file (or one of comments) tests nothing: not a pass
        Ok(file) if file.sections.is_empty() => FileReport::failure(
            name,
            1,
            format!("{name}:1: the file holds no section: no shader and no test"),
        ),
        Ok(file) => run_file(&file, config),
        Err(e) => FileReport::failure(
            name,
            e.line,
            format!("{name}:{}:{}: {}", e.line, e.column, e.message),
        ),
    }
}

/// The files a path stands for: a file itself, or the `*.shader_test` files
/// under a directory (its subdirectories included, each directory read once
/// however many links lead to it), sorted by path.
pub fn expand_path(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    let mut seen = std::collections::HashSet::new();
    while let Some(dir) = dirs.pop() {
        if !seen.insert(std::fs::canonicalize(&dir)?) {
            continue;
        }
        for entry in std::fs::read_dir(&dir)? {
            let p = entry?.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "shader_test") {
                files.push(p);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Most failure messages printed for one test (a test of many failing
/// probes prints these and a count of the rest).
pub const MAX_MESSAGES_PER_TEST: usize = 100;

/// Writes the messages of a report: every failure, and skips when verbose.
pub fn write_report(
    report: &FileReport,
    config: &RunConfig,
    out: &mut impl Write,
) -> std::io::Result<()> {
    for r in &report.results {
        match &r.outcome {
            Outcome::Passed => {}
            Outcome::Failed(messages) => {
                for m in messages.iter().take(MAX_MESSAGES_PER_TEST) {
                    writeln!(out, "{}", m.trim_end())?;
                }
                if let Some(more) = messages.len().checked_sub(MAX_MESSAGES_PER_TEST)
                    && more > 0
                {
                    writeln!(
                        out,
                        "({more} more failure message(s) of this test not shown)"
                    )?;
                }
            }
            Outcome::Skipped(why) => {
                if config.verbose {
                    writeln!(out, "{}:{}: skipped: {}", report.name, r.line, why)?;
                }
            }
        }
    }
    Ok(())
}

/// Runs every file (directories: their `*.shader_test` files), prints each
/// failure and then the summary line `N passed, M failed[, K skipped]`.
pub fn run_paths<P: AsRef<Path>>(paths: &[P], config: &RunConfig, out: &mut impl Write) -> Summary {
    let mut summary = Summary::default();
    for path in paths {
        let path = path.as_ref();
        let files = match expand_path(path) {
            Ok(f) if f.is_empty() => {
                // a directory with no tests (a mistyped one, say) is not a pass
                let report = FileReport::failure(
                    &path.display().to_string(),
                    0,
                    format!(
                        "{}: the directory holds no .shader_test file",
                        path.display()
                    ),
                );
                let _ = write_report(&report, config, out);
                summary.add(report.summary());
                continue;
            }
            Ok(f) => f,
            Err(e) => {
                let report = FileReport::failure(
                    &path.display().to_string(),
                    0,
                    format!("{}: cannot read: {e}", path.display()),
                );
                let _ = write_report(&report, config, out);
                summary.add(report.summary());
                continue;
            }
        };
        for file in files {
            let name = file.display().to_string();
            let report = match std::fs::read(&file) {
                Ok(bytes) => match std::str::from_utf8(&bytes) {
                    Ok(text) => run_source(&name, text, config),
                    Err(e) => {
                        let at = e.valid_up_to();
                        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
                        FileReport::failure(
                            &name,
                            line,
                            format!("{name}:{line}: byte {at}: the file is not valid UTF-8 text"),
                        )
                    }
                },
                Err(e) => FileReport::failure(&name, 0, format!("{name}: cannot read: {e}")),
            };
            let _ = write_report(&report, config, out);
            summary.add(report.summary());
        }
    }
    let _ = writeln!(out, "{summary}");
    summary
}

#[cfg(test)]
mod tests;
