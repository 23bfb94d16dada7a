//! Parsing `.shader_test` text into a [`TestFile`]: sections in file order,
//! every directive checked for syntax, every error naming its line.

use super::values::{ValueType, parse_words, push_words, split_values};
use tgsi_exec::texture::format::NumClass;

/// Formats of textures, images and render targets: the texture module's.
pub use tgsi_exec::texture::Format as TextureFormat;

pub use super::error::ParseError;

/// A shader stage named by a section header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Vertex,
    Fragment,
    Geometry,
    /// `tess control` (Direct3D's hull shader).
    TessControl,
    /// `tess eval` (Direct3D's domain shader).
    TessEval,
    Compute,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
            Stage::Geometry => "geometry",
            Stage::TessControl => "tess control",
            Stage::TessEval => "tess eval",
            Stage::Compute => "compute",
        }
    }

    /// The stage a header names with the words before `shader`.
    fn from_words(words: &[&str]) -> Option<Stage> {
        Some(match words {
            ["compute"] => Stage::Compute,
            ["vertex"] => Stage::Vertex,
            ["fragment"] | ["pixel"] => Stage::Fragment,
            ["geometry"] => Stage::Geometry,
            ["tess", "control"] | ["hull"] => Stage::TessControl,
            ["tess", "eval"] | ["domain"] => Stage::TessEval,
            _ => return None,
        })
    }
}

/// The language of a shader section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderLanguage {
    Tgsi,
    D3dAsm,
    DxbcTpfHex,
}

/// One `[<stage> shader ...]` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderSection {
    pub stage: Stage,
    pub language: ShaderLanguage,
    /// `fail`: the shader must be rejected.
    pub fail: bool,
    /// Line of the header.
    pub line: usize,
    /// The body text (trailing blank and comment-only lines removed).
    pub body: String,
    /// Byte offset of the body in the file, to place diagnostics.
    pub body_offset: usize,
}

/// A comparison in `shader model OP X`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    Less,
    LessEqual,
    Equal,
    GreaterEqual,
    Greater,
}

/// One capability line of `[require]`.
#[derive(Clone, Debug, PartialEq)]
pub enum Requirement {
    /// `shader model OP MAJOR.MINOR`, the model as major*10+minor.
    ShaderModel(Compare, u32),
    Doubles,
    Int64,
    /// A line the runner does not know: tests under it are skipped.
    Unknown(String),
}

/// Texture targets of `[texture N]` / `[image N]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureTarget {
    D1,
    D2,
    D3,
    Cube,
    D1Array,
    D2Array,
    CubeArray,
    Rect,
    Buffer,
}

impl TextureTarget {
    fn from_word(w: &str) -> Option<TextureTarget> {
        Some(match w {
            "1d" => TextureTarget::D1,
            "2d" => TextureTarget::D2,
            "3d" => TextureTarget::D3,
            "cube" => TextureTarget::Cube,
            "1d_array" => TextureTarget::D1Array,
            "2d_array" => TextureTarget::D2Array,
            "cube_array" => TextureTarget::CubeArray,
            "rect" => TextureTarget::Rect,
            "buffer" => TextureTarget::Buffer,
            _ => return None,
        })
    }
    /// How many numbers `size (...)` may meaningfully hold.
    fn dims(self) -> usize {
        match self {
            TextureTarget::D1 | TextureTarget::Buffer => 1,
            TextureTarget::D2
            | TextureTarget::Cube
            | TextureTarget::Rect
            | TextureTarget::D1Array => 2,
            TextureTarget::D3 | TextureTarget::D2Array | TextureTarget::CubeArray => 3,
        }
    }
    /// Texels of mip level `level` for a resource of `size`.
    fn texels(self, size: [u32; 3], level: u32) -> u64 {
        let m = |v: u32| u64::from((v >> level).max(1));
        match self {
            TextureTarget::D1 | TextureTarget::Buffer => m(size[0]),
            TextureTarget::D2 | TextureTarget::Rect => m(size[0]) * m(size[1]),
            TextureTarget::D3 => m(size[0]) * m(size[1]) * m(size[2]),
            TextureTarget::Cube => m(size[0]) * m(size[1]) * 6,
            TextureTarget::D1Array => m(size[0]) * u64::from(size[1]),
            TextureTarget::D2Array | TextureTarget::CubeArray => {
                m(size[0]) * m(size[1]) * u64::from(size[2])
            }
        }
    }
}

/// The texel format a `format` word names: every format of the texture
/// module by its short name (`rgba32f`, `rgba8`, `rgba8_srgb`, `r16f`,
/// `rgb10a2`, `r11g11b10f`, ...), by its Gallium name (with or without
/// `PIPE_FORMAT_`), or in the DXGI-like spelling with `-`
/// (`r32g32b32a32-float`, `r8g8b8a8-unorm`).
pub fn format_from_word(w: &str) -> Option<TextureFormat> {
    TextureFormat::from_short_name(w).or_else(|| {
        w.contains('-')
            .then(|| TextureFormat::from_short_name(&w.replace('-', "_")))
            .flatten()
    })
}

/// The value type of bare numbers in texel data of `format`.
fn default_type(format: TextureFormat) -> ValueType {
    match format.num_class() {
        NumClass::Uint => ValueType::Uint,
        NumClass::Sint => ValueType::Int,
        _ => ValueType::Float,
    }
}

/// Texel data of one mip level: the value type used and the words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelData {
    pub value_type: ValueType,
    pub words: Vec<u32>,
}

/// `[texture N]` or `[image N]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureSection {
    pub index: u32,
    pub image: bool,
    pub target: TextureTarget,
    pub format: TextureFormat,
    /// Width, height, depth or layers (unused ones 1).
    pub size: [u32; 3],
    pub levels: u32,
    pub data: Vec<LevelData>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    Nearest,
    Linear,
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    Wrap,
    Clamp,
    Border,
    Mirror,
    MirrorOnce,
}

impl AddressMode {
    /// The mode a shader_test `address` word names (`wrap`, `clamp`,
    /// `border`, `mirror`, `mirror_once`).
    pub fn from_word(w: &str) -> Option<AddressMode> {
        Some(match w {
            "wrap" => AddressMode::Wrap,
            "clamp" => AddressMode::Clamp,
            "border" => AddressMode::Border,
            "mirror" => AddressMode::Mirror,
            "mirror_once" => AddressMode::MirrorOnce,
            _ => return None,
        })
    }
}

/// The depth-compare function of a `[sampler N]` section is the machine's own.
pub use tgsi_exec::texture::CompareFunc;

/// `[sampler N]` state.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplerSection {
    pub index: u32,
    pub min_filter: Filter,
    pub mag_filter: Filter,
    pub mip_filter: Filter,
    pub address: [AddressMode; 3],
    pub border: [f32; 4],
    pub compare: Option<CompareFunc>,
    pub lod_bias: f32,
    pub min_lod: f32,
    pub max_lod: f32,
    pub normalized_coords: bool,
}

impl SamplerSection {
    /// The defaults of the contract.
    pub fn new(index: u32) -> SamplerSection {
        SamplerSection {
            index,
            min_filter: Filter::Nearest,
            mag_filter: Filter::Nearest,
            mip_filter: Filter::None,
            address: [AddressMode::Clamp; 3],
            border: [0.0; 4],
            compare: None,
            lod_bias: 0.0,
            min_lod: 0.0,
            max_lod: 1000.0,
            normalized_coords: true,
        }
    }
}

/// An attribute named by the header line of `[vertex data]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attribute {
    /// `IN[n]`: the TGSI input register (for a Direct3D vertex shader, `v#`).
    Input(u32),
    /// A Direct3D input-signature element: `POSITION`, `TEXCOORD1`, ... as
    /// (semantic name in upper case, semantic index = the trailing digits).
    Semantic(String, u32),
}

impl std::fmt::Display for Attribute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Attribute::Input(n) => write!(f, "IN[{n}]"),
            Attribute::Semantic(name, index) => write!(f, "{name}{index}"),
        }
    }
}

/// `[vertex data]`: the attributes of each vertex, four words each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexData {
    pub attributes: Vec<(Attribute, ValueType)>,
    /// `rows[v][a]` = attribute `a` (in header order) of vertex v.
    pub rows: Vec<Vec<[u32; 4]>>,
}

/// What a probe compares against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub value_type: ValueType,
    /// Values (64-bit patterns; 32-bit types in the low half).
    pub values: Vec<u64>,
    pub ulp: u64,
}

/// One command of a `[test]` section.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Uniform {
        slot: u32,
        words: Vec<u32>,
    },
    Dispatch([u32; 3]),
    /// `draw quad [W H]` (`size` when given).
    DrawQuad {
        size: Option<[u32; 2]>,
    },
    /// `draw [indexed] TOPOLOGY N [instances K]`: the drawing pipeline
    /// (`topology` as [`tgsi_pipeline::Topology`] prints it).
    Draw {
        indexed: bool,
        topology: String,
        vertices: u32,
        instances: u32,
    },
    /// `clear rt N (r, g, b, a)` (float bits).
    ClearTarget {
        target: u32,
        color: [u32; 4],
    },
    /// `clear depth D [stencil S]`.
    ClearDepth {
        /// Float bits.
        depth: u32,
        stencil: Option<u32>,
    },
    /// `viewport`, `scissor`, `cull`, `front`, `depth`, `stencil`, `blend`.
    State(RenderState),
    RunVertices(u32),
    /// `probe [rt N] (X, Y) KIND (...)`.
    ProbePixel {
        target: u32,
        x: u32,
        y: u32,
        expected: Expected,
    },
    /// `probe [rt N] rect (X, Y, W, H) KIND (...)` (`rect` = x, y, w, h) or
    /// `probe [rt N] all KIND (...)` (`rect` = None).
    ProbeRect {
        target: u32,
        rect: Option<[u32; 4]>,
        expected: Expected,
    },
    /// `probe depth (X, Y) (d) [ulp U]` / `probe stencil (X, Y) S`.
    ProbeDepthStencil {
        stencil: bool,
        x: u32,
        y: u32,
        value: u64,
        ulp: u64,
    },
    ProbeBuffer {
        index: u32,
        offset: u64,
        expected: Expected,
    },
    ProbeImage {
        index: u32,
        coords: Vec<u32>,
        /// `rgba` (and `r`, `rg`, `rgb`) values are read as floats; the
        /// runner re-reads `values_text` as integers when the image has an
        /// integer format. `rgbaui`/`rgbai` (and the shorter forms) compare
        /// the texel's words.
        expected: Expected,
        /// The text between the parentheses after the kind.
        values_text: String,
    },
    ProbeVertex {
        vertex: u32,
        output: u32,
        expected: Expected,
    },
    ExpectError(String),
}

impl Command {
    /// True for commands that need fragment shading, textures or images.
    pub fn needs_rendering(&self) -> bool {
        matches!(
            self,
            Command::DrawQuad { .. }
                | Command::Draw { .. }
                | Command::ClearTarget { .. }
                | Command::ProbePixel { .. }
                | Command::ProbeRect { .. }
                | Command::ProbeImage { .. }
        )
    }
}

/// A render-state command: what it changes, and whether the state after
/// it changes what `draw quad` writes (the runner skips a `draw quad`
/// while depth, stencil, blending, a viewport or a scissor rectangle is on).
#[derive(Clone, Debug, PartialEq)]
pub struct RenderState {
    /// `depth`, `stencil`, `blend N`, `viewport`, `scissor`, `cull`,
    /// `front`, `depth write`, `blend factor`.
    pub key: String,
    /// The state after the command changes what `draw quad` writes.
    pub active: bool,
    pub change: StateChange,
}

/// The change one render-state command makes.
#[derive(Clone, Debug, PartialEq)]
pub enum StateChange {
    Viewport(tgsi_pipeline::Viewport),
    /// `scissor off` is None.
    Scissor(Option<tgsi_pipeline::Rect>),
    Cull(tgsi_pipeline::CullMode),
    Front(tgsi_pipeline::FrontFace),
    /// `depth FUNC` / `depth off`.
    Depth(Option<tgsi_pipeline::CompareFunc>),
    DepthWrite(bool),
    /// `stencil ...` / `stencil off`.
    Stencil(Option<tgsi_pipeline::StencilState>),
    /// `blend N ...` / `blend N off`.
    Blend(u32, Option<tgsi_pipeline::BlendState>),
    BlendFactor([f32; 4]),
}

impl StateChange {
    /// Applies the change to the pipeline's state.
    pub fn apply(&self, s: &mut tgsi_pipeline::RenderState) {
        match self {
            StateChange::Viewport(v) => s.viewport = Some(*v),
            StateChange::Scissor(r) => s.scissor = *r,
            StateChange::Cull(c) => s.cull = *c,
            StateChange::Front(f) => s.front = *f,
            StateChange::Depth(None) => s.depth.enabled = false,
            StateChange::Depth(Some(f)) => {
                s.depth.enabled = true;
                s.depth.func = *f;
            }
            StateChange::DepthWrite(w) => s.depth.write = *w,
            StateChange::Stencil(None) => s.stencil.enabled = false,
            StateChange::Stencil(Some(st)) => s.stencil = *st,
            StateChange::Blend(n, b) => {
                if let Some(slot) = s.blend.get_mut(*n as usize) {
                    let mask = slot.write_mask;
                    *slot = b.unwrap_or_default();
                    slot.write_mask = mask;
                }
            }
            StateChange::BlendFactor(k) => s.blend_factor = *k,
        }
    }
}

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

/// `[render target N]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderTargetSection {
    pub index: u32,
    /// Default `rgba32f`.
    pub format: TextureFormat,
    /// Default 64×64.
    pub size: [u32; 2],
    /// `samples S` (1, 2, 4, 8 or 16; default 1): a multisampled target.
    pub samples: u32,
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

/// Largest buffer, constant buffer or texture the runner accepts (bytes / texels).
const MAX_SIZE: u64 = 1 << 28;
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

fn parse_index(line: usize, word: Option<&str>, what: &str) -> Result<u32, ParseError> {
    let w = word.ok_or_else(|| ParseError::new(line, format!("expected {what}")))?;
    let v: u32 = w
        .parse()
        .map_err(|_| ParseError::new(line, format!("expected {what}, found `{w}`")))?;
    if v >= MAX_INDEX {
        return Err(ParseError::new(
            line,
            format!("{what} {v} is too large (limit {MAX_INDEX})"),
        ));
    }
    Ok(v)
}

fn parse_u32(line: usize, word: Option<&str>, what: &str) -> Result<u32, ParseError> {
    let w = word.ok_or_else(|| ParseError::new(line, format!("expected {what}")))?;
    let parsed = match w.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => w.parse().ok(),
    };
    parsed.ok_or_else(|| ParseError::new(line, format!("expected {what}, found `{w}`")))
}

fn parse_format(line: usize, w: &str) -> Result<TextureFormat, ParseError> {
    format_from_word(w).ok_or_else(|| {
        ParseError::new(
            line,
            format!(
                "unknown format `{w}` (expected a texel format such as rgba32f, rgba32ui, rgba32i, r32f, r32ui, r32i, rg32f, rgba8, rgba8_srgb, r8 or rgba16f)"
            ),
        )
    })
}

fn parse_f32(line: usize, word: Option<&str>, what: &str) -> Result<f32, ParseError> {
    let w = word.ok_or_else(|| ParseError::new(line, format!("expected {what}")))?;
    w.parse()
        .map_err(|_| ParseError::new(line, format!("expected {what}, found `{w}`")))
}

fn no_more<'a>(line: usize, mut words: impl Iterator<Item = &'a str>) -> Result<(), ParseError> {
    match words.next() {
        Some(w) => Err(ParseError::new(
            line,
            format!("unexpected `{w}` at the end of the line"),
        )),
        None => Ok(()),
    }
}

/// Splits `(a, b, c) rest` into the parenthesised text and the rest.
fn take_parens(line: usize, text: &str, what: &str) -> Result<(String, String), ParseError> {
    let t = text.trim_start();
    let Some(inner) = t.strip_prefix('(') else {
        return Err(ParseError::new(
            line,
            format!("expected `(` starting {what}, found `{}`", first_word(t)),
        ));
    };
    let Some(close) = inner.find(')') else {
        return Err(ParseError::new(line, format!("missing `)` after {what}")));
    };
    Ok((inner[..close].to_string(), inner[close + 1..].to_string()))
}

fn first_word(t: &str) -> &str {
    let w = t.split_whitespace().next().unwrap_or("");
    if w.is_empty() { "end of line" } else { w }
}

/// Parses an optional `ulp U` tail.
fn parse_ulp(line: usize, rest: &str, value_type: ValueType) -> Result<u64, ParseError> {
    let mut words = rest.split_whitespace();
    match words.next() {
        None => Ok(0),
        Some("ulp") => {
            let w = words
                .next()
                .ok_or_else(|| ParseError::new(line, "expected a number after `ulp`"))?;
            let u: u64 = w.parse().map_err(|_| {
                ParseError::new(line, format!("expected a number after `ulp`, found `{w}`"))
            })?;
            if !value_type.is_float() {
                return Err(ParseError::new(
                    line,
                    format!(
                        "`ulp` applies to float and double probes, not `{}`",
                        value_type.word()
                    ),
                ));
            }
            no_more(line, words)?;
            Ok(u)
        }
        Some(w) => Err(ParseError::new(
            line,
            format!("expected `ulp` or end of line, found `{w}`"),
        )),
    }
}

fn parse_values(line: usize, ty: ValueType, text: &str) -> Result<Vec<u64>, ParseError> {
    split_values(text)
        .map(|w| super::values::parse_value(ty, w).map_err(|e| ParseError::new(line, e)))
        .collect()
}

fn parse_type(line: usize, word: Option<&str>) -> Result<(ValueType, bool), ParseError> {
    let w = word.ok_or_else(|| ParseError::new(line, "expected a value type"))?;
    ValueType::from_word(w).ok_or_else(|| {
        ParseError::new(line, format!("unknown value type `{w}` (expected float, uint, int, double, uint64, int64, hex, float4, uint4 or int4)"))
    })
}

/// Parses `TYPE v v ...` into words.
fn parse_typed_line(line: usize, text: &str) -> Result<Vec<u32>, ParseError> {
    let t = text.trim();
    let (ty_word, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let (ty, vector) = parse_type(line, Some(ty_word))?;
    let words = parse_words(ty, rest).map_err(|e| ParseError::new(line, e))?;
    if vector && words.len() % 4 != 0 {
        return Err(ParseError::new(
            line,
            format!(
                "`{ty_word}` takes a multiple of 4 values, found {}",
                words.len()
            ),
        ));
    }
    Ok(words)
}

/// Parses a whole `.shader_test` file. `name` is used in messages.
pub fn parse_file(name: &str, source: &str) -> Result<TestFile, ParseError> {
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

fn check_size(line: usize, bytes: u64) -> Result<(), ParseError> {
    if bytes > MAX_SIZE {
        return Err(ParseError::new(
            line,
            format!("{bytes} bytes is more than the runner's limit of {MAX_SIZE}"),
        ));
    }
    Ok(())
}

fn parse_shader_header(
    line: usize,
    stage: &[&str],
    modifiers: &[&str],
) -> Result<(Stage, ShaderLanguage, bool), ParseError> {
    let stage = Stage::from_words(stage).ok_or_else(|| {
        ParseError::new(
            line,
            format!(
                "unknown shader stage `{}` (expected compute, vertex, fragment, pixel, geometry, tess control, hull, tess eval or domain)",
                stage.join(" ")
            ),
        )
    })?;
    let mut language = ShaderLanguage::Tgsi;
    let mut fail = false;
    for m in modifiers {
        match *m {
            "fail" if !fail => fail = true,
            "d3d-asm" if language == ShaderLanguage::Tgsi && !fail => {
                language = ShaderLanguage::D3dAsm
            }
            "dxbc-tpf-hex" if language == ShaderLanguage::Tgsi && !fail => {
                language = ShaderLanguage::DxbcTpfHex
            }
            other => {
                return Err(ParseError::new(
                    line,
                    format!(
                        "unexpected `{other}` in a shader header (expected `d3d-asm` or `dxbc-tpf-hex`, then optionally `fail`)"
                    ),
                ));
            }
        }
    }
    Ok((stage, language, fail))
}

/// The shader text: every line of the body, except trailing blank and
/// comment-only lines (so comments may precede the next header).
fn shader_body(
    stage: Stage,
    language: ShaderLanguage,
    fail: bool,
    line: usize,
    body: &[Line<'_>],
    source: &str,
) -> ShaderSection {
    let mut last = body.len();
    while last > 0 && is_comment_or_blank(body[last - 1].text) {
        last -= 1;
    }
    let (body_offset, text) = match body.first() {
        Some(first) if last > 0 => {
            let end = body[last - 1].offset + body[last - 1].text.len();
            (first.offset, format!("{}\n", &source[first.offset..end]))
        }
        Some(first) => (first.offset, String::new()),
        None => (source.len(), String::new()),
    };
    ShaderSection {
        stage,
        language,
        fail,
        line,
        body: text,
        body_offset,
    }
}

fn parse_requirement(text: &str) -> Requirement {
    let words: Vec<String> = text
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["doubles"] | ["double"] | ["float64"] => Requirement::Doubles,
        ["int64"] => Requirement::Int64,
        ["shader", "model", op, version] => {
            let cmp = match *op {
                "<" => Compare::Less,
                "<=" => Compare::LessEqual,
                "==" | "=" => Compare::Equal,
                ">=" => Compare::GreaterEqual,
                ">" => Compare::Greater,
                _ => return Requirement::Unknown(text.trim().to_string()),
            };
            match parse_model(version) {
                Some(model) => Requirement::ShaderModel(cmp, model),
                None => Requirement::Unknown(text.trim().to_string()),
            }
        }
        _ => Requirement::Unknown(text.trim().to_string()),
    }
}

/// `5.1` → 51.
fn parse_model(v: &str) -> Option<u32> {
    let (major, minor) = v.split_once('.').unwrap_or((v, "0"));
    let major: u32 = major.parse().ok()?;
    let minor: u32 = minor.parse().ok()?;
    (minor < 10 && major < 100).then_some(major * 10 + minor)
}

fn parse_buffer(line: usize, n: &str, body: &[Line<'_>]) -> Result<Section, ParseError> {
    let index = parse_index(line, Some(n), "a buffer index")?;
    let mut size = None;
    let mut words = Vec::new();
    for l in body.iter().filter(|l| !is_comment_or_blank(l.text)) {
        let mut it = l.text.split_whitespace();
        if it.clone().next() == Some("size") {
            it.next();
            if size.is_some() || !words.is_empty() {
                return Err(ParseError::new(
                    l.number,
                    "`size` must be the first line of a [buffer] section",
                ));
            }
            let bytes = parse_u32(l.number, it.next(), "a size in bytes")? as u64;
            no_more(l.number, it)?;
            check_size(l.number, bytes)?;
            size = Some(bytes);
            continue;
        }
        words.extend(parse_typed_line(l.number, l.text)?);
        let bytes = words.len() as u64 * 4;
        check_size(l.number, bytes)?;
        if let Some(s) = size.filter(|s| bytes > *s) {
            return Err(ParseError::new(
                l.number,
                format!("the contents ({bytes} bytes) exceed the buffer size ({s} bytes)"),
            ));
        }
    }
    Ok(Section::Buffer { index, size, words })
}

/// The `size (W, H)` line of a target section.
fn parse_target_size(line: usize, text: &str) -> Result<[u32; 2], ParseError> {
    let rest = text.trim_start().strip_prefix("size").unwrap_or_default();
    let (inner, tail) = take_parens(line, rest, "the size")?;
    no_more(line, tail.split_whitespace())?;
    let v = parse_u32_list(line, &inner, "a target size", 2..=2)?;
    if v[0] == 0 || v[1] == 0 || u64::from(v[0]) * u64::from(v[1]) > 1 << 24 {
        return Err(ParseError::new(
            line,
            "a target must be 1×1 to 4096×4096 pixels",
        ));
    }
    Ok([v[0], v[1]])
}

fn parse_render_target(
    line: usize,
    n: &str,
    body: &[Line<'_>],
) -> Result<RenderTargetSection, ParseError> {
    let mut rt = RenderTargetSection {
        index: parse_index(line, Some(n), "a render target index")?,
        format: TextureFormat::Rgba32Float,
        size: [64, 64],
        samples: 1,
    };
    if rt.index >= 8 {
        return Err(ParseError::new(
            line,
            format!("render target {} is out of range (0 to 7)", rt.index),
        ));
    }
    for l in body.iter().filter(|l| !is_comment_or_blank(l.text)) {
        let mut it = l.text.split_whitespace();
        match it.next().unwrap_or_default() {
            "format" => {
                rt.format = parse_format(l.number, it.next().unwrap_or_default())?;
                no_more(l.number, it)?;
                if rt.format.is_depth() {
                    return Err(ParseError::new(
                        l.number,
                        "a depth format belongs in [depth target]",
                    ));
                }
            }
            "size" => rt.size = parse_target_size(l.number, l.text)?,
            "samples" => {
                let n = parse_u32(l.number, it.next(), "a sample count")?;
                no_more(l.number, it)?;
                if !matches!(n, 1 | 2 | 4 | 8 | 16) {
                    return Err(ParseError::new(
                        l.number,
                        format!("{n} samples per pixel (expected 1, 2, 4, 8 or 16)"),
                    ));
                }
                rt.samples = n;
            }
            other => {
                return Err(ParseError::new(
                    l.number,
                    format!(
                        "unknown render target setting `{other}` (expected format, size or samples)"
                    ),
                ));
            }
        }
    }
    Ok(rt)
}

fn parse_depth_target(body: &[Line<'_>]) -> Result<Section, ParseError> {
    let mut format = "d32f".to_string();
    let mut size = [64, 64];
    for l in body.iter().filter(|l| !is_comment_or_blank(l.text)) {
        let mut it = l.text.split_whitespace();
        match it.next().unwrap_or_default() {
            "format" => {
                let w = it.next().unwrap_or_default();
                if !matches!(w, "d32f" | "d24s8" | "d16") {
                    return Err(ParseError::new(
                        l.number,
                        format!("unknown depth format `{w}` (expected d32f, d24s8 or d16)"),
                    ));
                }
                format = w.to_string();
                no_more(l.number, it)?;
            }
            "size" => size = parse_target_size(l.number, l.text)?,
            other => {
                return Err(ParseError::new(
                    l.number,
                    format!("unknown depth target setting `{other}` (expected format or size)"),
                ));
            }
        }
    }
    Ok(Section::DepthTarget { format, size })
}

fn parse_texture(
    line: usize,
    n: &str,
    image: bool,
    body: &[Line<'_>],
) -> Result<TextureSection, ParseError> {
    let what = if image {
        "an image index"
    } else {
        "a texture index"
    };
    let index = parse_index(line, Some(n), what)?;
    let mut target = None;
    let mut format = None;
    let mut size: Option<[u32; 3]> = None;
    let mut levels = None;
    let mut data: Vec<LevelData> = Vec::new();
    let mut level = 0u32;
    let mut data_started = false;
    for l in body.iter().filter(|l| !is_comment_or_blank(l.text)) {
        let mut it = l.text.split_whitespace();
        let first = it.clone().next().unwrap_or_default();
        let setting = matches!(first, "target" | "format" | "size" | "levels");
        if setting && data_started {
            return Err(ParseError::new(
                l.number,
                format!("`{first}` must come before the texel data"),
            ));
        }
        match first {
            "target" => {
                it.next();
                let w = it.next().unwrap_or_default();
                target = Some(TextureTarget::from_word(w).ok_or_else(|| {
                    ParseError::new(l.number, format!("unknown target `{w}` (expected 1d, 2d, 3d, cube, 1d_array, 2d_array, cube_array, rect or buffer)"))
                })?);
                no_more(l.number, it)?;
            }
            "format" => {
                it.next();
                let w = it.next().unwrap_or_default();
                format = Some(parse_format(l.number, w)?);
                no_more(l.number, it)?;
            }
            "size" => {
                let rest = l.text.trim_start().strip_prefix("size").unwrap_or_default();
                let (inner, tail) = take_parens(l.number, rest, "the size")?;
                no_more(l.number, tail.split_whitespace())?;
                let dims: Vec<&str> = split_values(&inner).collect();
                if dims.is_empty() || dims.len() > 3 {
                    return Err(ParseError::new(l.number, "`size` takes 1 to 3 numbers"));
                }
                let mut s = [1u32; 3];
                for (k, d) in dims.iter().enumerate() {
                    s[k] = parse_u32(l.number, Some(d), "a dimension")?;
                    if s[k] == 0 {
                        return Err(ParseError::new(l.number, "a dimension must be at least 1"));
                    }
                }
                size = Some(s);
            }
            "levels" => {
                it.next();
                let v = parse_u32(l.number, it.next(), "a number of levels")?;
                no_more(l.number, it)?;
                if v == 0 || v > 16 {
                    return Err(ParseError::new(l.number, "`levels` must be 1 to 16"));
                }
                levels = Some(v);
            }
            "level" => {
                it.next();
                let k = parse_u32(l.number, it.next(), "a level number")?;
                no_more(l.number, it)?;
                if k < level || (k == level && data_started) {
                    return Err(ParseError::new(
                        l.number,
                        "levels must be given in increasing order",
                    ));
                }
                level = k;
                data_started = true;
            }
            _ => {
                data_started = true;
                let fmt = format
                    .ok_or_else(|| ParseError::new(l.number, "texel data before `format`"))?;
                let t = l.text.trim();
                let (ty, rest) = match t
                    .split_once(char::is_whitespace)
                    .map(|(a, b)| (ValueType::from_word(a), b))
                {
                    Some((Some((ty, _)), rest)) => (ty, rest),
                    _ if ValueType::from_word(t).is_some() => (
                        ValueType::from_word(t)
                            .unwrap_or((ValueType::Float, false))
                            .0,
                        "",
                    ),
                    _ => (default_type(fmt), t),
                };
                if ty.is_64bit() {
                    return Err(ParseError::new(
                        l.number,
                        "texel data take 32-bit values (float, uint, int or hex)",
                    ));
                }
                while data.len() <= level as usize {
                    data.push(LevelData {
                        value_type: ty,
                        words: Vec::new(),
                    });
                }
                let entry = &mut data[level as usize];
                if entry.value_type != ty && !entry.words.is_empty() {
                    return Err(ParseError::new(
                        l.number,
                        "texel data of one level must use one value type",
                    ));
                }
                entry.value_type = ty;
                let words: Vec<&str> = split_values(rest).collect();
                push_words(ty, &words, &mut entry.words)
                    .map_err(|e| ParseError::new(l.number, e))?;
            }
        }
    }
    let target = target.ok_or_else(|| ParseError::new(line, "missing `target` line"))?;
    let format = format.ok_or_else(|| ParseError::new(line, "missing `format` line"))?;
    let size = size.ok_or_else(|| ParseError::new(line, "missing `size` line"))?;
    for (k, extra) in size.iter().enumerate().skip(target.dims()) {
        if *extra != 1 {
            return Err(ParseError::new(
                line,
                format!(
                    "this target has {} dimension(s); size component {} must be 1",
                    target.dims(),
                    k + 1
                ),
            ));
        }
    }
    if matches!(target, TextureTarget::Cube | TextureTarget::CubeArray) && size[0] != size[1] {
        return Err(ParseError::new(line, "cube faces must be square"));
    }
    if target == TextureTarget::CubeArray && size[2] % 6 != 0 {
        return Err(ParseError::new(
            line,
            "a cube array's layer count must be a multiple of 6",
        ));
    }
    let levels = levels.unwrap_or(1);
    let largest = match target {
        TextureTarget::D1 | TextureTarget::D1Array | TextureTarget::Buffer => size[0],
        TextureTarget::D3 => size[0].max(size[1]).max(size[2]),
        _ => size[0].max(size[1]),
    };
    if levels > 32 - largest.leading_zeros() {
        return Err(ParseError::new(
            line,
            format!("{levels} levels is more than a {largest}-texel resource has"),
        ));
    }
    if data.len() > levels as usize {
        return Err(ParseError::new(
            line,
            format!(
                "texel data given for level {} but the resource has {levels} level(s)",
                data.len() - 1
            ),
        ));
    }
    for (k, d) in data.iter().enumerate() {
        let texels = target.texels(size, k as u32);
        let components = format.channels() as u64;
        check_size(line, texels * components * 4)?;
        let allowed = texels * components;
        if d.words.len() as u64 > allowed {
            return Err(ParseError::new(
                line,
                format!(
                    "level {k} holds {allowed} components but {} values were given",
                    d.words.len()
                ),
            ));
        }
    }
    Ok(TextureSection {
        index,
        image,
        target,
        format,
        size,
        levels,
        data,
    })
}

fn parse_filter(line: usize, w: Option<&str>, mip: bool) -> Result<Filter, ParseError> {
    match w {
        Some("nearest") => Ok(Filter::Nearest),
        Some("linear") => Ok(Filter::Linear),
        Some("none") if mip => Ok(Filter::None),
        other => Err(ParseError::new(
            line,
            format!(
                "expected {}, found `{}`",
                if mip {
                    "nearest, linear or none"
                } else {
                    "nearest or linear"
                },
                other.unwrap_or("end of line")
            ),
        )),
    }
}

fn parse_sampler(line: usize, n: &str, body: &[Line<'_>]) -> Result<SamplerSection, ParseError> {
    let mut s = SamplerSection::new(parse_index(line, Some(n), "a sampler index")?);
    for l in body.iter().filter(|l| !is_comment_or_blank(l.text)) {
        let ln = l.number;
        let mut it = l.text.split_whitespace();
        let key = it.next().unwrap_or_default();
        match key {
            "filter" => {
                s.min_filter = parse_filter(ln, it.next(), false)?;
                s.mag_filter = parse_filter(ln, it.next(), false)?;
                s.mip_filter = parse_filter(ln, it.next(), true)?;
                no_more(ln, it)?;
            }
            "address" => {
                let modes: Vec<&str> = it.collect();
                if modes.is_empty() || modes.len() > 3 {
                    return Err(ParseError::new(ln, "`address` takes 1 to 3 modes (U V W)"));
                }
                for (k, m) in modes.iter().enumerate() {
                    s.address[k] = AddressMode::from_word(m).ok_or_else(|| {
                        ParseError::new(
                            ln,
                            format!(
                                "unknown address mode `{m}` (expected wrap, clamp, border, mirror or mirror_once)"
                            ),
                        )
                    })?;
                }
            }
            "border" => {
                let rest = l
                    .text
                    .trim_start()
                    .strip_prefix("border")
                    .unwrap_or_default();
                let (inner, tail) = take_parens(ln, rest, "the border colour")?;
                no_more(ln, tail.split_whitespace())?;
                let vals: Vec<&str> = split_values(&inner).collect();
                if vals.len() != 4 {
                    return Err(ParseError::new(
                        ln,
                        format!("`border` takes 4 values, found {}", vals.len()),
                    ));
                }
                for (k, v) in vals.iter().enumerate() {
                    s.border[k] = parse_f32(ln, Some(v), "a float")?;
                }
            }
            "compare" => {
                let w = it.next().unwrap_or_default();
                s.compare = Some(CompareFunc::from_word(w).ok_or_else(|| {
                    ParseError::new(ln, format!("unknown compare function `{w}`"))
                })?);
                no_more(ln, it)?;
            }
            "lod_bias" | "min_lod" | "max_lod" => {
                let v = parse_f32(ln, it.next(), "a float")?;
                no_more(ln, it)?;
                match key {
                    "lod_bias" => s.lod_bias = v,
                    "min_lod" => s.min_lod = v,
                    _ => s.max_lod = v,
                }
            }
            "normalized_coords" => {
                s.normalized_coords = match it.next() {
                    Some("true") => true,
                    Some("false") => false,
                    other => {
                        return Err(ParseError::new(
                            ln,
                            format!(
                                "expected true or false, found `{}`",
                                other.unwrap_or("end of line")
                            ),
                        ));
                    }
                };
                no_more(ln, it)?;
            }
            other => {
                return Err(ParseError::new(
                    ln,
                    format!("unknown sampler setting `{other}`"),
                ));
            }
        }
    }
    Ok(s)
}

fn parse_vertex_data(line: usize, body: &[Line<'_>]) -> Result<VertexData, ParseError> {
    let mut content = body.iter().filter(|l| !is_comment_or_blank(l.text));
    let Some(head) = content.next() else {
        return Err(ParseError::new(
            line,
            "[vertex data] needs a header line naming its attributes, e.g. `IN[0] IN[1]:uint`",
        ));
    };
    let mut attributes = Vec::new();
    for word in head.text.split_whitespace() {
        let (name, ty) = match word.split_once(':') {
            Some((n, t)) => {
                let (ty, vector) = parse_type(head.number, Some(t))?;
                if ty.is_64bit() || vector {
                    return Err(ParseError::new(
                        head.number,
                        format!("attribute type `{t}` is not a 32-bit scalar type"),
                    ));
                }
                (n, ty)
            }
            None => (word, ValueType::Float),
        };
        let attribute = parse_attribute(head.number, name)?;
        if attributes.iter().any(|(a, _)| *a == attribute) {
            return Err(ParseError::new(
                head.number,
                format!("attribute {attribute} is named twice"),
            ));
        }
        attributes.push((attribute, ty));
    }
    let mut rows = Vec::new();
    for l in content {
        let words: Vec<&str> = split_values(l.text).collect();
        if words.len() != attributes.len() * 4 {
            return Err(ParseError::new(
                l.number,
                format!(
                    "expected {} values (4 per attribute), found {}",
                    attributes.len() * 4,
                    words.len()
                ),
            ));
        }
        let mut row = Vec::with_capacity(attributes.len());
        for (a, (_, ty)) in attributes.iter().enumerate() {
            let mut w = Vec::with_capacity(4);
            push_words(*ty, &words[a * 4..a * 4 + 4], &mut w)
                .map_err(|e| ParseError::new(l.number, e))?;
            row.push([w[0], w[1], w[2], w[3]]);
        }
        rows.push(row);
    }
    Ok(VertexData { attributes, rows })
}

/// `IN[n]` (n < 64), or a Direct3D semantic name with an optional index
/// (`POSITION`, `TEXCOORD1`, `SV_Position`).
fn parse_attribute(line: usize, name: &str) -> Result<Attribute, ParseError> {
    if let Some(inner) = name
        .strip_prefix("IN[")
        .or_else(|| name.strip_prefix("in["))
        .and_then(|r| r.strip_suffix(']'))
    {
        return inner
            .parse::<u32>()
            .ok()
            .filter(|n| *n < 64)
            .map(Attribute::Input)
            .ok_or_else(|| {
                ParseError::new(
                    line,
                    format!("expected an attribute `IN[n]` (n < 64), found `{name}`"),
                )
            });
    }
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (stem, index) = name.split_at(name.len() - digits);
    let valid = stem
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let index = if index.is_empty() {
        Some(0)
    } else {
        index.parse::<u32>().ok()
    };
    match index {
        Some(index) if valid => Ok(Attribute::Semantic(stem.to_ascii_uppercase(), index)),
        _ => Err(ParseError::new(
            line,
            format!(
                "expected an attribute `IN[n]` or a Direct3D input name such as `POSITION` or `TEXCOORD0`, found `{name}`"
            ),
        )),
    }
}

/// `KIND (v, ...) [ulp U]` of a pixel probe: `rgba` (floats), `rgbaui`
/// (unsigned), `rgbai` (signed); also `r`, `rg`, `rgb` and their `ui`/`i`
/// forms, which compare the first 1 to 3 channels. A bare number after the
/// parentheses is taken as `ulp` (vkd3d's spelling).
fn parse_pixel_expected(line: usize, text: &str) -> Result<Expected, ParseError> {
    let t = text.trim_start();
    let kind = t
        .split(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or_default();
    let (channels, value_type) = match kind {
        "r" => (1, ValueType::Float),
        "rg" => (2, ValueType::Float),
        "rgb" => (3, ValueType::Float),
        "rgba" => (4, ValueType::Float),
        "rui" => (1, ValueType::Uint),
        "rgui" => (2, ValueType::Uint),
        "rgbui" => (3, ValueType::Uint),
        "rgbaui" => (4, ValueType::Uint),
        "ri" => (1, ValueType::Int),
        "rgi" => (2, ValueType::Int),
        "rgbi" => (3, ValueType::Int),
        "rgbai" => (4, ValueType::Int),
        _ => {
            return Err(ParseError::new(
                line,
                format!(
                    "expected `rgba`, `rgbaui` or `rgbai`, found `{}`",
                    first_word(t)
                ),
            ));
        }
    };
    let (inner, tail) = take_parens(line, &t[kind.len()..], "the expected colour")?;
    let values = parse_values(line, value_type, &inner)?;
    if values.len() != channels {
        return Err(ParseError::new(
            line,
            format!(
                "`{kind}` takes {channels} colour value(s), found {}",
                values.len()
            ),
        ));
    }
    let tail = tail.trim();
    let ulp = match tail.parse::<u64>() {
        Ok(u) if value_type == ValueType::Float => u,
        _ => parse_ulp(line, tail, value_type)?,
    };
    Ok(Expected {
        value_type,
        values,
        ulp,
    })
}

/// `draw quad [W H]`, `draw [indexed] TOPOLOGY N [instances K]`.
fn parse_draw(line: usize, rest: &str) -> Result<Command, ParseError> {
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    if words.first() == Some(&"quad") {
        let mut it = words[1..].iter().copied();
        let size = match it.next() {
            None => None,
            Some(w) => {
                let w = parse_u32(line, Some(w), "a width")?;
                let h = parse_u32(line, it.next(), "a height")?;
                no_more(line, it)?;
                if w == 0 || h == 0 || u64::from(w) * u64::from(h) > 1 << 24 {
                    return Err(ParseError::new(
                        line,
                        "the render target must be 1×1 to 4096×4096 pixels",
                    ));
                }
                Some([w, h])
            }
        };
        return Ok(Command::DrawQuad { size });
    }
    let indexed = words.first() == Some(&"indexed");
    if indexed {
        words.remove(0);
    }
    if words.is_empty() {
        return Err(ParseError::new(
            line,
            "expected `draw quad`, `draw TOPOLOGY N` or `draw indexed TOPOLOGY N`",
        ));
    }
    let (topology, used) =
        tgsi_pipeline::Topology::parse_words(&words).map_err(|e| ParseError::new(line, e))?;
    let topology = topology.to_string();
    let mut it = words[used..].iter().copied();
    let vertices = parse_u32(line, it.next(), "a vertex count")?;
    let instances = match it.next() {
        None => 1,
        Some("instances") => parse_u32(line, it.next(), "an instance count")?,
        Some(w) => {
            return Err(ParseError::new(
                line,
                format!("expected `instances K` or end of line, found `{w}`"),
            ));
        }
    };
    no_more(line, it)?;
    Ok(Command::Draw {
        indexed,
        topology,
        vertices,
        instances,
    })
}

/// `clear rt N (r, g, b, a)`, `clear depth D [stencil S]`.
fn parse_clear(line: usize, rest: &str) -> Result<Command, ParseError> {
    let r = rest.trim_start();
    let (what, after) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
    match what {
        "rt" => {
            let after = after.trim_start();
            let (n, tail) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
            let target = parse_index(line, Some(n), "a render target index")?;
            if target >= 8 {
                return Err(ParseError::new(
                    line,
                    format!("render target {target} is out of range (0 to 7)"),
                ));
            }
            let (inner, tail) = take_parens(line, tail, "the clear colour")?;
            no_more(line, tail.split_whitespace())?;
            let v = parse_values(line, ValueType::Float, &inner)?;
            if v.len() != 4 {
                return Err(ParseError::new(
                    line,
                    format!("expected 4 colour values, found {}", v.len()),
                ));
            }
            Ok(Command::ClearTarget {
                target,
                color: [v[0] as u32, v[1] as u32, v[2] as u32, v[3] as u32],
            })
        }
        "depth" => {
            let mut it = after.split_whitespace();
            let depth = parse_f32(line, it.next(), "a depth")?;
            let stencil = match it.next() {
                None => None,
                Some("stencil") => Some(parse_u32(line, it.next(), "a stencil value")?),
                Some(w) => {
                    return Err(ParseError::new(
                        line,
                        format!("expected `stencil S` or end of line, found `{w}`"),
                    ));
                }
            };
            no_more(line, it)?;
            Ok(Command::ClearDepth {
                depth: depth.to_bits(),
                stencil,
            })
        }
        _ => Err(ParseError::new(
            line,
            format!("expected `clear rt N (r, g, b, a)` or `clear depth D`, found `clear {r}`"),
        )),
    }
}

/// A word of one of the pipeline's name tables.
fn named<T: Copy>(
    line: usize,
    w: Option<&str>,
    from_name: fn(&str) -> Option<T>,
    names: String,
    what: &str,
) -> Result<T, ParseError> {
    w.and_then(from_name).ok_or_else(|| {
        ParseError::new(
            line,
            format!(
                "expected {what} ({names}), found `{}`",
                w.unwrap_or("end of line")
            ),
        )
    })
}

/// Four or six numbers in parentheses (`viewport`, `scissor`, `blend factor`).
fn parse_float_tuple(
    line: usize,
    text: &str,
    what: &str,
    counts: &[usize],
) -> Result<Vec<f32>, ParseError> {
    let (inner, tail) = take_parens(line, text, what)?;
    no_more(line, tail.split_whitespace())?;
    let v = parse_values(line, ValueType::Float, &inner)?;
    if !counts.contains(&v.len()) {
        return Err(ParseError::new(
            line,
            format!("{what} takes {counts:?} numbers, found {}", v.len()),
        ));
    }
    Ok(v.iter().map(|b| f32::from_bits(*b as u32)).collect())
}

fn parse_u8(line: usize, w: Option<&str>, what: &str) -> Result<u8, ParseError> {
    let v = parse_u32(line, w, what)?;
    u8::try_from(v).map_err(|_| ParseError::new(line, format!("{what} {v} is above 255")))
}

/// The render-state commands.
fn parse_state(line: usize, verb: &str, rest: &str) -> Result<RenderState, ParseError> {
    use tgsi_pipeline::state as ps;
    let mut it = rest.split_whitespace();
    let state = |key: &str, active: bool, change: StateChange| RenderState {
        key: key.to_string(),
        active,
        change,
    };
    match verb {
        "viewport" => {
            let v = parse_float_tuple(line, rest, "the viewport", &[4, 6])?;
            let vp = ps::Viewport {
                x: v[0],
                y: v[1],
                width: v[2],
                height: v[3],
                min_depth: v.get(4).copied().unwrap_or(0.0),
                max_depth: v.get(5).copied().unwrap_or(1.0),
            };
            Ok(state("viewport", true, StateChange::Viewport(vp)))
        }
        "scissor" => {
            if rest.trim() == "off" {
                return Ok(state("scissor", false, StateChange::Scissor(None)));
            }
            let v = parse_float_tuple(line, rest, "the scissor rectangle", &[4])?;
            let r = ps::Rect {
                x: v[0] as i64,
                y: v[1] as i64,
                width: v[2] as i64,
                height: v[3] as i64,
            };
            Ok(state("scissor", true, StateChange::Scissor(Some(r))))
        }
        "cull" => {
            let c = named(
                line,
                it.next(),
                ps::CullMode::from_name,
                ps::CullMode::names(),
                "a cull mode",
            )?;
            no_more(line, it)?;
            Ok(state("cull", false, StateChange::Cull(c)))
        }
        "front" => {
            let f = named(
                line,
                it.next(),
                ps::FrontFace::from_name,
                ps::FrontFace::names(),
                "a winding",
            )?;
            no_more(line, it)?;
            Ok(state("front", false, StateChange::Front(f)))
        }
        "depth" => match it.next() {
            Some("off") => {
                no_more(line, it)?;
                Ok(state("depth", false, StateChange::Depth(None)))
            }
            Some("write") => {
                let on = match it.next() {
                    Some("on") => true,
                    Some("off") => false,
                    w => {
                        return Err(ParseError::new(
                            line,
                            format!("expected on or off, found `{}`", w.unwrap_or("end of line")),
                        ));
                    }
                };
                no_more(line, it)?;
                Ok(state("depth write", false, StateChange::DepthWrite(on)))
            }
            w => {
                let f = named(
                    line,
                    w,
                    ps::CompareFunc::from_name,
                    ps::CompareFunc::names(),
                    "a depth function or `off`",
                )?;
                no_more(line, it)?;
                Ok(state("depth", true, StateChange::Depth(Some(f))))
            }
        },
        "stencil" => {
            let words: Vec<&str> = it.collect();
            if words == ["off"] {
                return Ok(state("stencil", false, StateChange::Stencil(None)));
            }
            let func = named(
                line,
                words.first().copied(),
                ps::CompareFunc::from_name,
                ps::CompareFunc::names(),
                "a stencil function or `off`",
            )?;
            if !matches!(words.len(), 2 | 4 | 5 | 7) {
                return Err(ParseError::new(
                    line,
                    "expected `stencil FUNC REF [READ_MASK WRITE_MASK] [FAIL DEPTH_FAIL PASS]`",
                ));
            }
            let reference = parse_u8(line, Some(words[1]), "a stencil reference")?;
            let masked = matches!(words.len(), 4 | 7);
            let (read_mask, write_mask) = if masked {
                (
                    parse_u8(line, Some(words[2]), "a stencil mask")?,
                    parse_u8(line, Some(words[3]), "a stencil mask")?,
                )
            } else {
                (0xff, 0xff)
            };
            let op_words = &words[if masked { 4 } else { 2 }..];
            let mut ops = [ps::StencilOp::Keep; 3];
            for (k, w) in op_words.iter().enumerate() {
                ops[k] = named(
                    line,
                    Some(w),
                    ps::StencilOp::from_name,
                    ps::StencilOp::names(),
                    "a stencil operation",
                )?;
            }
            let face = ps::StencilFace {
                func,
                fail: ops[0],
                depth_fail: ops[1],
                pass: ops[2],
            };
            Ok(state(
                "stencil",
                true,
                StateChange::Stencil(Some(ps::StencilState {
                    enabled: true,
                    reference,
                    read_mask,
                    write_mask,
                    front: face,
                    back: face,
                })),
            ))
        }
        _ => {
            let first = it.next();
            if first == Some("factor") {
                let after = rest.trim_start().strip_prefix("factor").unwrap_or_default();
                let v = parse_float_tuple(line, after, "the blend factor", &[4])?;
                return Ok(state(
                    "blend factor",
                    false,
                    StateChange::BlendFactor([v[0], v[1], v[2], v[3]]),
                ));
            }
            let n = parse_index(line, first, "a render target index or `factor`")?;
            if n as usize >= tgsi_exec::MAX_TARGETS {
                return Err(ParseError::new(
                    line,
                    format!("render target {n} is out of range (0 to 7)"),
                ));
            }
            let key = format!("blend {n}");
            let words: Vec<&str> = it.collect();
            if words == ["off"] {
                return Ok(state(&key, false, StateChange::Blend(n, None)));
            }
            if words.len() != 3 && words.len() != 6 {
                return Err(ParseError::new(
                    line,
                    "expected `blend N off` or `blend N SRC DST OP [SRC_A DST_A OP_A]`",
                ));
            }
            let mut triples = Vec::new();
            for triple in words.chunks(3) {
                let f = |w: &str| {
                    named(
                        line,
                        Some(w),
                        ps::BlendFactor::from_name,
                        ps::BlendFactor::names(),
                        "a blend factor",
                    )
                };
                triples.push((
                    f(triple[0])?,
                    f(triple[1])?,
                    named(
                        line,
                        Some(triple[2]),
                        ps::BlendOp::from_name,
                        ps::BlendOp::names(),
                        "a blend operation",
                    )?,
                ));
            }
            let (src, dst, op) = triples[0];
            let (src_alpha, dst_alpha, op_alpha) =
                triples
                    .get(1)
                    .copied()
                    .unwrap_or((src.for_alpha(), dst.for_alpha(), op));
            Ok(state(
                &key,
                true,
                StateChange::Blend(
                    n,
                    Some(ps::BlendState {
                        enabled: true,
                        src,
                        dst,
                        op,
                        src_alpha,
                        dst_alpha,
                        op_alpha,
                        write_mask: 0xF,
                    }),
                ),
            ))
        }
    }
}

fn parse_u32_list(
    line: usize,
    inner: &str,
    what: &str,
    counts: std::ops::RangeInclusive<usize>,
) -> Result<Vec<u32>, ParseError> {
    let words: Vec<&str> = split_values(inner).collect();
    if !counts.contains(&words.len()) {
        return Err(ParseError::new(
            line,
            format!(
                "{what} takes {} to {} numbers, found {}",
                counts.start(),
                counts.end(),
                words.len()
            ),
        ));
    }
    words
        .iter()
        .map(|w| parse_u32(line, Some(w), "a coordinate"))
        .collect()
}

fn parse_command(line: usize, text: &str) -> Result<Command, ParseError> {
    let (verb, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let mut words = rest.split_whitespace();
    match verb {
        "uniform" => {
            let slot = parse_u32(line, words.next(), "a vec4 slot")?;
            if slot >= MAX_INDEX * 16 {
                return Err(ParseError::new(line, format!("slot {slot} is too large")));
            }
            let rest = rest.trim_start();
            let after_slot = rest
                .split_once(char::is_whitespace)
                .map(|(_, r)| r)
                .unwrap_or("");
            if after_slot.trim().is_empty() {
                return Err(ParseError::new(
                    line,
                    "expected a value type and values after the slot",
                ));
            }
            let words = parse_typed_line(line, after_slot)?;
            Ok(Command::Uniform { slot, words })
        }
        "dispatch" => {
            let mut g = [0u32; 3];
            for (k, what) in ["X", "Y", "Z"].iter().enumerate() {
                g[k] = parse_u32(line, words.next(), &format!("a group count {what}"))?;
            }
            no_more(line, words)?;
            Ok(Command::Dispatch(g))
        }
        "draw" => parse_draw(line, rest),
        "clear" => parse_clear(line, rest),
        "viewport" | "scissor" | "cull" | "front" | "depth" | "stencil" | "blend" => {
            parse_state(line, verb, rest).map(Command::State)
        }
        "run" => {
            match words.next() {
                Some("vertices") => {}
                other => {
                    return Err(ParseError::new(
                        line,
                        format!(
                            "expected `run vertices N`, found `run {}`",
                            other.unwrap_or("")
                        ),
                    ));
                }
            }
            let n = parse_u32(line, words.next(), "a vertex count")?;
            no_more(line, words)?;
            if n > 1 << 20 {
                return Err(ParseError::new(line, "too many vertices (limit 1048576)"));
            }
            Ok(Command::RunVertices(n))
        }
        "probe" => parse_probe(line, rest),
        "expect" => {
            let r = rest.trim_start();
            let Some(msg) = r.strip_prefix("error") else {
                return Err(ParseError::new(line, "expected `expect error TEXT`"));
            };
            if !msg.is_empty() && !msg.starts_with(char::is_whitespace) {
                return Err(ParseError::new(line, "expected `expect error TEXT`"));
            }
            let msg = msg.trim();
            // A quoted TEXT means the text between the quotes.
            let msg = msg
                .strip_prefix('"')
                .and_then(|m| m.strip_suffix('"'))
                .unwrap_or(msg);
            Ok(Command::ExpectError(msg.to_string()))
        }
        other => Err(ParseError::new(
            line,
            format!(
                "unknown command `{other}` (expected uniform, dispatch, draw, clear, viewport, scissor, cull, front, depth, stencil, blend, run vertices, probe or expect error)"
            ),
        )),
    }
}

fn parse_probe(line: usize, rest: &str) -> Result<Command, ParseError> {
    let mut r = rest.trim_start();
    let mut target = None;
    // `rt N` (vkd3d also spells it `rtv N`)
    if let Some(after) = ["rtv", "rt"]
        .iter()
        .find_map(|p| r.strip_prefix(p))
        .filter(|a| a.starts_with(char::is_whitespace))
    {
        let after = after.trim_start();
        let (n, tail) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
        let n = parse_index(line, Some(n), "a render target index")?;
        if n >= 8 {
            return Err(ParseError::new(
                line,
                format!("render target {n} is out of range (0 to 7)"),
            ));
        }
        target = Some(n);
        r = tail.trim_start();
    }
    if r.starts_with('(') {
        let (inner, tail) = take_parens(line, r, "the pixel")?;
        let xy = parse_u32_list(line, &inner, "a pixel or a rectangle", 2..=4)?;
        if xy.len() == 4 {
            // vkd3d's `probe (X, Y, W, H) KIND (...)`: a rectangle
            return Ok(Command::ProbeRect {
                target: target.unwrap_or(0),
                rect: Some([xy[0], xy[1], xy[2], xy[3]]),
                expected: parse_pixel_expected(line, &tail)?,
            });
        }
        if xy.len() != 2 {
            return Err(ParseError::new(
                line,
                "a probe takes a pixel (X, Y) or a rectangle (X, Y, W, H)",
            ));
        }
        return Ok(Command::ProbePixel {
            target: target.unwrap_or(0),
            x: xy[0],
            y: xy[1],
            expected: parse_pixel_expected(line, &tail)?,
        });
    }
    let (kind, after) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
    match kind {
        "rect" => {
            let (inner, tail) = take_parens(line, after, "the rectangle")?;
            let v = parse_u32_list(line, &inner, "a rectangle", 4..=4)?;
            Ok(Command::ProbeRect {
                target: target.unwrap_or(0),
                rect: Some([v[0], v[1], v[2], v[3]]),
                expected: parse_pixel_expected(line, &tail)?,
            })
        }
        "all" => Ok(Command::ProbeRect {
            target: target.unwrap_or(0),
            rect: None,
            expected: parse_pixel_expected(line, after)?,
        }),
        _ if target.is_some() => Err(ParseError::new(
            line,
            format!("expected `(X, Y)`, `rect` or `all` after `probe rt N`, found `{kind}`"),
        )),
        "depth" | "stencil" => {
            let stencil = kind == "stencil";
            let (inner, tail) = take_parens(line, after, "the pixel")?;
            let xy = parse_u32_list(line, &inner, "a pixel", 2..=2)?;
            let (value, ulp) = if stencil {
                let mut it = tail.split_whitespace();
                let v = parse_u32(line, it.next(), "a stencil value")?;
                no_more(line, it)?;
                (u64::from(v), 0)
            } else {
                let (d, tail) = take_parens(line, &tail, "the expected depth")?;
                let d = parse_f32(line, Some(d.trim()), "a depth")?;
                (
                    u64::from(d.to_bits()),
                    parse_ulp(line, &tail, ValueType::Float)?,
                )
            };
            Ok(Command::ProbeDepthStencil {
                stencil,
                x: xy[0],
                y: xy[1],
                value,
                ulp,
            })
        }
        "image" => {
            let (n, tail) = after
                .trim_start()
                .split_once(char::is_whitespace)
                .unwrap_or((after.trim(), ""));
            let index = parse_index(line, Some(n), "an image index")?;
            let (inner, tail) = take_parens(line, tail, "the texel coordinates")?;
            let coords = parse_u32_list(line, &inner, "a texel coordinate", 1..=3)?;
            let expected = parse_pixel_expected(line, &tail)?;
            let after_kind = tail
                .trim_start()
                .trim_start_matches(|c: char| c.is_ascii_alphabetic());
            let (values_text, _) = take_parens(line, after_kind, "the expected colour")?;
            Ok(Command::ProbeImage {
                index,
                coords,
                expected,
                values_text,
            })
        }
        "buffer" => {
            let mut it = after.split_whitespace();
            let index = parse_index(line, it.next(), "a buffer index")?;
            let (ty, _) = parse_type(line, it.next())?;
            let offset = parse_u32(line, it.next(), "a byte offset")? as u64;
            // The rest starts at the `(`.
            let Some(open) = after.find('(') else {
                return Err(ParseError::new(
                    line,
                    "expected `(` starting the expected values",
                ));
            };
            let head_words = after[..open].split_whitespace().count();
            if head_words != 3 {
                return Err(ParseError::new(
                    line,
                    "expected `probe buffer N TYPE OFFSET (values...)`",
                ));
            }
            let (inner, tail) = take_parens(line, &after[open..], "the expected values")?;
            let values = parse_values(line, ty, &inner)?;
            if values.is_empty() {
                return Err(ParseError::new(line, "expected at least one value"));
            }
            let ulp = parse_ulp(line, &tail, ty)?;
            Ok(Command::ProbeBuffer {
                index,
                offset,
                expected: Expected {
                    value_type: ty,
                    values,
                    ulp,
                },
            })
        }
        "vertex" => {
            let mut it = after.split_whitespace();
            let vertex = parse_u32(line, it.next(), "a vertex index")?;
            let out = it.next().unwrap_or_default();
            let output = out
                .strip_prefix("OUT[")
                .or_else(|| out.strip_prefix("out["))
                .and_then(|r| r.strip_suffix(']'))
                .and_then(|n| n.parse::<u32>().ok())
                .ok_or_else(|| {
                    ParseError::new(line, format!("expected an output `OUT[k]`, found `{out}`"))
                })?;
            let (ty, _) = parse_type(line, it.next())?;
            let Some(open) = after.find('(') else {
                return Err(ParseError::new(
                    line,
                    "expected `(` starting the expected values",
                ));
            };
            if after[..open].split_whitespace().count() != 3 {
                return Err(ParseError::new(
                    line,
                    "expected `probe vertex V OUT[K] TYPE (v0, v1, v2, v3)`",
                ));
            }
            let (inner, tail) = take_parens(line, &after[open..], "the expected values")?;
            let values = parse_values(line, ty, &inner)?;
            let want = 4 / ty.words_per_value();
            if values.len() != want {
                return Err(ParseError::new(
                    line,
                    format!(
                        "expected {want} `{}` values for one output, found {}",
                        ty.word(),
                        values.len()
                    ),
                ));
            }
            let ulp = parse_ulp(line, &tail, ty)?;
            Ok(Command::ProbeVertex {
                vertex,
                output,
                expected: Expected {
                    value_type: ty,
                    values,
                    ulp,
                },
            })
        }
        other => Err(ParseError::new(
            line,
            format!(
                "unknown probe `{other}` (expected `(X, Y)`, rect, all, rt, buffer, image, vertex, depth or stencil)"
            ),
        )),
    }
}
