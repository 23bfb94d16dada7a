//! The texture engine: texel formats, resources (textures and images), views,
//! samplers, every TGSI sampling opcode with Direct3D 11 semantics, and
//! image load/store/atomics. Pure: it knows nothing of the machine beyond
//! [`LANES`] and the register layout [`Reg`]. Semantics and choices are in
//! `docs/textures.md`.
//!
//! * [`mod@format`] – [`Format`], decode/encode;
//! * [`resource`] – [`Texture`] storage and its level layout;
//! * [`sample`] – the sampling core (addressing, filtering, LOD, cube maps, compare, gather);
//! * `bilinear` – the same bilinear lookups over a batch of lanes for 2D RGBA8 (UNORM, sRGB) and RGBA32F views;
//! * [`exec`] – [`execute`], the adapter the machine calls for texture opcodes (and
//!   [`execute_per_lane`], the same on the per-lane path only);
//! * [`image`] – [`SharedImage`] and [`image_op`].

#![allow(clippy::needless_range_loop)] // channel loops index parallel arrays

mod bilinear;
pub mod exec;
pub mod format;
pub mod image;
pub mod linear;
pub mod resource;
pub mod sample;

#[cfg(test)]
mod tests;

pub use crate::ground::LANES;
pub use exec::{TexInputs, execute, execute_per_lane};
pub use format::Format;
pub use image::{SharedImage, image_op};
pub use resource::{MAX_TEXTURE_BYTES, Texture};
use tgsi_ir::enums::{ReturnType, TextureTarget};
use tgsi_ir::opcode::Opcode;

/// One register value: four channel rows (x, y, z, w) of [`LANES`] words.
pub type Reg = [[u32; LANES]; 4];

/// A component selector of a view swizzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Swizzle {
    #[default]
    R,
    G,
    B,
    A,
    Zero,
    One,
}

impl Swizzle {
    /// The texel component this selector takes (r, g, b, a: 0-3); None for
    /// the constants 0 and 1.
    #[inline(always)]
    pub fn component(self) -> Option<usize> {
        match self {
            Swizzle::R => Some(0),
            Swizzle::G => Some(1),
            Swizzle::B => Some(2),
            Swizzle::A => Some(3),
            Swizzle::Zero | Swizzle::One => None,
        }
    }
}

/// A sampler view: which part of a resource a shader sees, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct View {
    /// Reinterpretation of the texels (same bytes per texel as the resource).
    pub format: Option<Format>,
    pub first_level: u32,
    /// Clamped to the resource's last level (`u32::MAX` = all).
    pub last_level: u32,
    pub first_layer: u32,
    /// Clamped to the resource's last layer (`u32::MAX` = all).
    pub last_layer: u32,
    pub swizzle: [Swizzle; 4],
}

impl View {
    /// The whole resource with the identity swizzle.
    pub fn full() -> View {
        View {
            format: None,
            first_level: 0,
            last_level: u32::MAX,
            first_layer: 0,
            last_layer: u32::MAX,
            swizzle: [Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A],
        }
    }
}

impl Default for View {
    fn default() -> View {
        View::full()
    }
}

/// Texture addressing mode of one axis (Gallium's `PIPE_TEX_WRAP_*` order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wrap {
    Repeat,
    /// Direct3D CLAMP: the same as [`Wrap::ClampToEdge`].
    Clamp,
    ClampToEdge,
    ClampToBorder,
    MirrorRepeat,
    /// GL legacy MIRROR_CLAMP: |coordinate| clamped to [0, 1] with GL_CLAMP's
    /// meaning (linear taps past the edge read the border colour).
    MirrorClamp,
    /// Direct3D MIRROR_ONCE: mirror once, then clamp to the edge.
    MirrorClampToEdge,
    MirrorClampToBorder,
}

/// Texel filter (minification or magnification).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    Nearest,
    Linear,
}

/// Mipmap filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MipFilter {
    None,
    Nearest,
    Linear,
}

/// Depth-compare function: the test is `reference FUNC texel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareFunc {
    Never,
    Less,
    Equal,
    LessEqual,
    Greater,
    NotEqual,
    GreaterEqual,
    Always,
}

impl CompareFunc {
    /// The lower-case name shader_test files and `tgsi render --sampler`
    /// spell it with (`never`, `less`, `equal`, `less_equal`, `greater`,
    /// `not_equal`, `greater_equal`, `always`).
    pub fn from_word(w: &str) -> Option<CompareFunc> {
        Some(match w {
            "never" => CompareFunc::Never,
            "less" => CompareFunc::Less,
            "equal" => CompareFunc::Equal,
            "less_equal" => CompareFunc::LessEqual,
            "greater" => CompareFunc::Greater,
            "not_equal" => CompareFunc::NotEqual,
            "greater_equal" => CompareFunc::GreaterEqual,
            "always" => CompareFunc::Always,
            _ => return None,
        })
    }

    /// `reference FUNC texel` (ordered compares: false on NaN, except NotEqual and Always).
    pub fn test(self, reference: f32, texel: f32) -> bool {
        match self {
            CompareFunc::Never => false,
            CompareFunc::Less => reference < texel,
            CompareFunc::Equal => reference == texel,
            CompareFunc::LessEqual => reference <= texel,
            CompareFunc::Greater => reference > texel,
            CompareFunc::NotEqual => reference != texel,
            CompareFunc::GreaterEqual => reference >= texel,
            CompareFunc::Always => true,
        }
    }
}

/// Sampler state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    /// Addressing of s, t, r.
    pub wrap: [Wrap; 3],
    pub min: Filter,
    pub mag: Filter,
    pub mip: MipFilter,
    pub lod_bias: f32,
    pub min_lod: f32,
    pub max_lod: f32,
    pub compare: Option<CompareFunc>,
    /// Border colour bits, read as floats or integers as the format's values are.
    pub border: [u32; 4],
    pub normalized: bool,
    pub seamless_cube: bool,
    /// Accepted; filtering is isotropic (see docs/textures.md).
    pub max_anisotropy: u32,
}

impl Sampler {
    /// The shader_test.md defaults ([`Sampler::default`]).
    pub const DEFAULT: Sampler = Sampler {
        wrap: [Wrap::ClampToEdge; 3],
        min: Filter::Nearest,
        mag: Filter::Nearest,
        mip: MipFilter::None,
        lod_bias: 0.0,
        min_lod: 0.0,
        max_lod: 1000.0,
        compare: None,
        border: [0; 4],
        normalized: true,
        seamless_cube: true,
        max_anisotropy: 1,
    };
}

impl Default for Sampler {
    /// The shader_test.md defaults.
    fn default() -> Sampler {
        Sampler::DEFAULT
    }
}

/// What the shader can reach: resources, views and samplers by index. A
/// missing view or sampler index means the default one; a missing texture
/// reads as zeros.
#[derive(Clone, Copy)]
pub struct Bindings<'a> {
    pub textures: &'a [Option<Texture>],
    pub views: &'a [View],
    pub samplers: &'a [Sampler],
    pub images: &'a [SharedImage],
    /// Linear-light copies of sRGB RGBA8 textures that compiled code may
    /// sample instead (none: every sample decodes its taps).
    pub linear: Option<&'a linear::LinearCopies>,
}

/// One texture instruction as the machine hands it over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexOp {
    pub opcode: Opcode,
    /// From the instruction's texture token, or the DCL SVIEW target for the SAMPLE family.
    pub target: TextureTarget,
    /// Swizzle of the SVIEW operand (applied to the result of SVIEW opcodes).
    pub resource_swizzle: [u8; 4],
    /// GATHER4: the channel to gather (0-3), the sampler operand's first swizzle
    /// selector (Direct3D's `gather4 ..., s#.c`). TG4 reads it from src1 instead.
    pub gather_component: u8,
    /// The DCL SVIEW return type, if any.
    pub return_type: Option<ReturnType>,
    /// Lanes are 2x2 quads: implicit LOD from derivatives.
    pub fragment: bool,
}

/// The coordinate shape of a target: dimensionality and flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dim {
    Buffer,
    D1,
    D2,
    D3,
    Cube,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub dim: Dim,
    pub array: bool,
    pub msaa: bool,
    pub shadow: bool,
    pub rect: bool,
}

impl Shape {
    /// The shape of a target (`None` for UNKNOWN).
    pub fn of(t: TextureTarget) -> Option<Shape> {
        use TextureTarget as T;
        let s = |dim, array, msaa, shadow, rect| {
            Some(Shape {
                dim,
                array,
                msaa,
                shadow,
                rect,
            })
        };
        match t {
            T::Buffer => s(Dim::Buffer, false, false, false, false),
            T::Tex1D => s(Dim::D1, false, false, false, false),
            T::Tex2D => s(Dim::D2, false, false, false, false),
            T::Tex3D => s(Dim::D3, false, false, false, false),
            T::Cube => s(Dim::Cube, false, false, false, false),
            T::Rect => s(Dim::D2, false, false, false, true),
            T::Shadow1D => s(Dim::D1, false, false, true, false),
            T::Shadow2D => s(Dim::D2, false, false, true, false),
            T::ShadowRect => s(Dim::D2, false, false, true, true),
            T::Array1D => s(Dim::D1, true, false, false, false),
            T::Array2D => s(Dim::D2, true, false, false, false),
            T::Shadow1DArray => s(Dim::D1, true, false, true, false),
            T::Shadow2DArray => s(Dim::D2, true, false, true, false),
            T::ShadowCube => s(Dim::Cube, false, false, true, false),
            T::Msaa2D => s(Dim::D2, false, true, false, false),
            T::Msaa2DArray => s(Dim::D2, true, true, false, false),
            T::CubeArray => s(Dim::Cube, true, false, false, false),
            T::ShadowCubeArray => s(Dim::Cube, true, false, true, false),
            T::Unknown => None,
        }
    }

    /// Number of coordinates addressing texels (layer excluded).
    pub fn coords(self) -> usize {
        match self.dim {
            Dim::Buffer | Dim::D1 => 1,
            Dim::D2 => 2,
            Dim::D3 | Dim::Cube => 3,
        }
    }
}
