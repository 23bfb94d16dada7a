//! Parsing `.shader_test` text into a [`TestFile`]: sections in file order,
//! every directive checked for syntax, every error naming its line.
//!
//! This module owns the file's structure: splitting it into lines and
//! sections, [`parse_file`], and the dispatch of each section header to its
//! parser. The parts live beside it:
//!
//! - `types.rs`: the data of sections (shaders, requirements, textures,
//!   samplers, vertex data, render targets);
//! - `words.rs`: the small pieces every parser shares (indices, numbers,
//!   parentheses, typed values);
//! - `shaders.rs` and `requirements.rs`: `[<stage> shader ...]` and
//!   `[require]`;
//! - `resources.rs`: `[buffer N]`, `[texture N]`, `[image N]`, `[sampler N]`;
//! - `targets.rs`: `[render target N]` and `[depth target]`;
//! - `vertices.rs`: `[vertex data]`;
//! - `commands.rs`: the commands of `[test]`; `state.rs` the render-state
//!   commands, `probes.rs` the probes.

mod commands;
mod memory;
mod probes;
mod requirements;
mod resources;
mod shaders;
mod state;
mod targets;
mod types;
mod vertices;
mod words;

pub use super::error::ParseError;
pub use commands::{Command, Expected};
pub use state::RenderState;
// `RenderState::change` is a `StateChange`: it keeps its path `parse::StateChange`
// even where no module names it.
#[allow(unused_imports)]
pub use state::StateChange;
pub use types::{
    AddressMode, Attribute, Compare, CompareFunc, Filter, LevelData, RenderTargetSection,
    Requirement, SamplerSection, ShaderLanguage, ShaderSection, Stage, TextureFormat,
    TextureSection, TextureTarget, VertexData, format_from_word,
};

use super::values::split_values;
use commands::parse_command;
use requirements::parse_requirement;
use resources::{parse_buffer, parse_sampler, parse_texture};
use shaders::{parse_shader_header, shader_body};
use targets::{parse_depth_target, parse_render_target};
use vertices::parse_vertex_data;
use words::{parse_index, parse_typed_line, parse_u32};

/// A `[test]` section.
#[derive(Clone, Debug, PartialEq)]
pub struct TestSection {
    pub line: usize,
    /// Commands with their lines.
    pub commands: Vec<(usize, Command)>,
}

/// One section of a file.
#[derive(Clone, Debug, PartialEq)]
pub enum Section {
    Require(Vec<(usize, Requirement)>),
    Shader(ShaderSection),
    Constant {
        index: u32,
        words: Vec<u32>,
    },
    Buffer {
        index: u32,
        size: Option<u64>,
        words: Vec<u32>,
    },
    Texture(TextureSection),
    Sampler(SamplerSection),
    VertexData(VertexData),
    /// `[index data]`.
    IndexData(Vec<u32>),
    RenderTarget(RenderTargetSection),
    /// `[depth target]`: the format word (`d32f`, `d24s8`, `d16`) and size.
    DepthTarget {
        format: String,
        size: [u32; 2],
    },
    Test(TestSection),
}

/// A parsed `.shader_test` file.
#[derive(Clone, Debug, PartialEq)]
pub struct TestFile {
    /// The name used in messages (normally the path).
    pub name: String,
    pub source: String,
    /// Sections in file order, with their header lines.
    pub sections: Vec<(usize, Section)>,
}

/// Most data given for a buffer, constant buffer or texture (bytes / texels).
const MAX_SIZE: u64 = 1 << 28;
/// Largest `size` of a buffer (bytes): one resource holds at most 1 GiB.
const MAX_BUFFER_BYTES: u64 = 1 << 30;
/// Largest resource index.
const MAX_INDEX: u32 = 4096;

/// One line of the file.
struct Line<'a> {
    number: usize,
    offset: usize,
    text: &'a str,
}

fn split_lines(source: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut offset = 0;
    for (i, raw) in source.split_inclusive('\n').enumerate() {
        let text = raw.strip_suffix('\n').unwrap_or(raw);
        let text = text.strip_suffix('\r').unwrap_or(text);
        out.push(Line {
            number: i + 1,
            offset,
            text,
        });
        offset += raw.len();
    }
    out
}

fn is_comment_or_blank(text: &str) -> bool {
    let t = text.trim_start();
    t.is_empty() || t.starts_with('%') || t.starts_with('#')
}

fn header_of(text: &str) -> Option<&str> {
    let t = text.trim();
    t.strip_prefix('[')?.strip_suffix(']').map(str::trim)
}

/// Parses a whole `.shader_test` file. `name` is used in messages.
pub fn parse_file(name: &str, source: &str) -> Result<TestFile, ParseError> {
    parse_lines(name, source).map_err(|e| e.locate(source))
}

fn parse_lines(name: &str, source: &str) -> Result<TestFile, ParseError> {
    let lines = split_lines(source);
    let mut sections = Vec::new();
    let mut i = 0;
    // Content before the first header may only be comments and blank lines.
    while i < lines.len() && header_of(lines[i].text).is_none() {
        if !is_comment_or_blank(lines[i].text) {
            return Err(ParseError::new(
                lines[i].number,
                "expected a section header such as `[test]`",
            ));
        }
        i += 1;
    }
    let mut memory = memory::ResourceBytes::default();
    while i < lines.len() {
        let header_line = &lines[i];
        let header = header_of(header_line.text)
            .unwrap_or_default()
            .to_ascii_lowercase();
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && header_of(lines[end].text).is_none() {
            end += 1;
        }
        let body = &lines[start..end];
        let section = parse_section(header_line.number, &header, body, source)?;
        memory.section(header_line.number, &section)?;
        sections.push((header_line.number, section));
        i = end;
    }
    Ok(TestFile {
        name: name.to_string(),
        source: source.to_string(),
        sections,
    })
}

fn parse_section(
    line: usize,
    header: &str,
    body: &[Line<'_>],
    source: &str,
) -> Result<Section, ParseError> {
    let words: Vec<&str> = header.split_whitespace().collect();
    let content = || body.iter().filter(|l| !is_comment_or_blank(l.text));
    match words.as_slice() {
        ["require"] => {
            let mut reqs = Vec::new();
            for l in content() {
                reqs.push((l.number, parse_requirement(l.text)));
            }
            Ok(Section::Require(reqs))
        }
        _ if words.contains(&"shader") => {
            let at = words.iter().position(|w| *w == "shader").unwrap_or(0);
            let (modifiers, must_fail) =
                super::qualifiers::shader_modifiers(line, &words[at + 1..])?;
            parse_shader_header(line, &words[..at], &modifiers).map(|(stage, language, fail)| {
                Section::Shader(shader_body(
                    stage,
                    language,
                    fail || must_fail,
                    line,
                    body,
                    source,
                ))
            })
        }
        ["constant", n] => {
            let index = parse_index(line, Some(n), "a constant buffer index")?;
            let mut words = Vec::new();
            for l in content() {
                words.extend(parse_typed_line(l.number, l.text)?);
                check_size(l.number, words.len() as u64 * 4)?;
            }
            Ok(Section::Constant { index, words })
        }
        ["buffer", n] => parse_buffer(line, n, body),
        ["texture", n] => parse_texture(line, n, false, body).map(Section::Texture),
        ["image", n] => parse_texture(line, n, true, body).map(Section::Texture),
        ["sampler", n] => parse_sampler(line, n, body).map(Section::Sampler),
        ["vertex", "data"] => parse_vertex_data(line, body).map(Section::VertexData),
        ["index", "data"] => {
            let mut indices = Vec::new();
            for l in content() {
                for w in split_values(l.text) {
                    indices.push(parse_u32(l.number, Some(w), "a vertex index")?);
                }
                check_size(l.number, indices.len() as u64 * 4)?;
            }
            Ok(Section::IndexData(indices))
        }
        ["render", "target", n] => parse_render_target(line, n, body).map(Section::RenderTarget),
        ["depth", "target"] => parse_depth_target(body),
        ["test"] => {
            let mut commands = Vec::new();
            for l in content() {
                if let Some(text) = super::qualifiers::test_line(l.number, l.text)? {
                    commands.push((l.number, parse_command(l.number, text)?));
                }
            }
            Ok(Section::Test(TestSection { line, commands }))
        }
        _ => Err(ParseError::new(
            line,
            format!("unknown section `[{header}]`"),
        )),
    }
}

/// A buffer's `size`: at most [`MAX_BUFFER_BYTES`].
fn check_buffer_size(line: usize, bytes: u64) -> Result<(), ParseError> {
    if bytes > MAX_BUFFER_BYTES {
        return Err(ParseError::new(
            line,
            format!(
                "a buffer of {bytes} bytes is more than the runner's limit of {MAX_BUFFER_BYTES} (1 GiB)"
            ),
        ));
    }
    Ok(())
}

fn check_size(line: usize, bytes: u64) -> Result<(), ParseError> {
    if bytes > MAX_SIZE {
        return Err(ParseError::new(
            line,
            format!("{bytes} bytes is more than the runner's limit of {MAX_SIZE}"),
        ));
    }
    Ok(())
}
