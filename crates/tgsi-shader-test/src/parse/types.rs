//! The data of sections: shader stages and languages, `[require]` lines,
//! textures and images, samplers, vertex data and render targets.

use crate::values::ValueType;

/// Formats of textures, images and render targets: the texture module's.
pub use tgsi_exec::texture::Format as TextureFormat;

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
    pub(super) fn from_words(words: &[&str]) -> Option<Stage> {
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
    pub(super) fn from_word(w: &str) -> Option<TextureTarget> {
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
    pub(super) fn dims(self) -> usize {
        match self {
            TextureTarget::D1 | TextureTarget::Buffer => 1,
            TextureTarget::D2
            | TextureTarget::Cube
            | TextureTarget::Rect
            | TextureTarget::D1Array => 2,
            TextureTarget::D3 | TextureTarget::D2Array | TextureTarget::CubeArray => 3,
        }
    }
    /// Texels of mip level `level` for a resource of `size` (saturating:
    /// a size no resource can have counts as `u64::MAX`).
    pub(super) fn texels(self, size: [u32; 3], level: u32) -> u64 {
        let m = |v: u32| u64::from((v >> level).max(1));
        let [w, h, d] = [m(size[0]), m(size[1]), m(size[2])];
        let (layers, layers6) = (u64::from(size[1]), u64::from(size[2]));
        match self {
            TextureTarget::D1 | TextureTarget::Buffer => w,
            TextureTarget::D2 | TextureTarget::Rect => w.saturating_mul(h),
            TextureTarget::D3 => w.saturating_mul(h).saturating_mul(d),
            TextureTarget::Cube => w.saturating_mul(h).saturating_mul(6),
            TextureTarget::D1Array => w.saturating_mul(layers),
            TextureTarget::D2Array | TextureTarget::CubeArray => {
                w.saturating_mul(h).saturating_mul(layers6)
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
