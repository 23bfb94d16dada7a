//! The named enumerations of TGSI: shader stages, register files, semantics,
//! texture targets, return types, interpolation, memory types, properties,
//! immediate types and primitives, each with its binary number and its text
//! spelling (Mesa 22.3's name tables).

use crate::format_names::PIPE_FORMAT_NAMES;

/// The part of a named enumeration both instruction sets share: a fieldless
/// enum of representation `$repr` whose discriminant is the binary value,
/// with every value in table order (`ALL`), lookup by number, its text
/// spelling (also its `Display`) and other accepted spellings (`[...]` after
/// the name; none when absent). The TGSI (`named_enum`) and Direct3D
/// front end's (`d3d_enum`) tables add their own name lookup.
#[macro_export]
macro_rules! name_table {
    ($repr:ty; $(#[$meta:meta])* $name:ident {
        $($(#[$vmeta:meta])* $variant:ident = $num:literal $text:literal $([$($alias:literal),*])?,)*
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr($repr)]
        pub enum $name {
            $($(#[$vmeta])* $variant = $num,)*
        }

        impl $name {
            /// Every value, in table order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The value with this binary number.
            pub fn from_u32(n: u32) -> Option<Self> {
                match n {
                    $($num => Some($name::$variant),)*
                    _ => None,
                }
            }
            /// The text spelling.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }
            /// Other spellings a parser accepts.
            pub fn aliases(self) -> &'static [&'static str] {
                match self {
                    $($name::$variant => &[$($($alias),*)?],)*
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub use name_table;

/// A TGSI enumeration ([`name_table`] with `u8` values) with
/// case-insensitive lookup by name.
macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident { $($body:tt)* }) => {
        name_table!(u8; $(#[$meta])* $name { $($body)* });

        impl $name {
            /// Case-insensitive lookup of a text spelling.
            pub fn from_name(s: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.name().eq_ignore_ascii_case(s))
            }
        }
    };
}

named_enum! {
    /// Shader stage, in the order of the text header names. The binary number
    /// depends on the numbering (see [`ProcessorNumbering`]).
    Processor {
        Vertex = 0 "VERT",
        TessCtrl = 1 "TESS_CTRL",
        TessEval = 2 "TESS_EVAL",
        Geometry = 3 "GEOM",
        Fragment = 4 "FRAG",
        Compute = 5 "COMP",
    }
}

/// How the processor token numbers shader stages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProcessorNumbering {
    /// `MESA_SHADER_*` order, as Mesa 22.3 (Debian 12) and newer write it:
    /// VERT 0, TESS_CTRL 1, TESS_EVAL 2, GEOM 3, FRAG 4, COMP 5.
    #[default]
    Mesa22,
    /// `PIPE_SHADER_*` order of Mesa 21 and older: VERT 0, FRAG 1, GEOM 2,
    /// TESS_CTRL 3, TESS_EVAL 4, COMP 5.
    Mesa21,
}

impl Processor {
    /// The number written in the processor token.
    pub fn number(self, numbering: ProcessorNumbering) -> u32 {
        match numbering {
            ProcessorNumbering::Mesa22 => self as u32,
            ProcessorNumbering::Mesa21 => match self {
                Processor::Vertex => 0,
                Processor::Fragment => 1,
                Processor::Geometry => 2,
                Processor::TessCtrl => 3,
                Processor::TessEval => 4,
                Processor::Compute => 5,
            },
        }
    }
    /// The stage a processor-token number stands for.
    pub fn from_number(n: u32, numbering: ProcessorNumbering) -> Option<Self> {
        Self::ALL.iter().copied().find(|p| p.number(numbering) == n)
    }
}

named_enum! {
    /// Register file.
    File {
        Null = 0 "NULL",
        Const = 1 "CONST",
        Input = 2 "IN",
        Output = 3 "OUT",
        Temp = 4 "TEMP",
        Sampler = 5 "SAMP",
        Address = 6 "ADDR",
        Immediate = 7 "IMM",
        SystemValue = 8 "SV",
        Image = 9 "IMAGE",
        SamplerView = 10 "SVIEW",
        Buffer = 11 "BUFFER",
        Memory = 12 "MEMORY",
        ConstBuf = 13 "CONSTBUF",
        HwAtomic = 14 "HWATOMIC",
    }
}

named_enum! {
    /// Declaration semantic name (Mesa 22.3 numbering).
    SemanticName {
        Position = 0 "POSITION",
        Color = 1 "COLOR",
        BColor = 2 "BCOLOR",
        Fog = 3 "FOG",
        PSize = 4 "PSIZE",
        Generic = 5 "GENERIC",
        Normal = 6 "NORMAL",
        Face = 7 "FACE",
        EdgeFlag = 8 "EDGEFLAG",
        PrimId = 9 "PRIM_ID",
        InstanceId = 10 "INSTANCEID",
        VertexId = 11 "VERTEXID",
        Stencil = 12 "STENCIL",
        ClipDist = 13 "CLIPDIST",
        ClipVertex = 14 "CLIPVERTEX",
        GridSize = 15 "GRID_SIZE",
        BlockId = 16 "BLOCK_ID",
        BlockSize = 17 "BLOCK_SIZE",
        ThreadId = 18 "THREAD_ID",
        TexCoord = 19 "TEXCOORD",
        PCoord = 20 "PCOORD",
        ViewportIndex = 21 "VIEWPORT_INDEX",
        Layer = 22 "LAYER",
        SampleId = 23 "SAMPLEID",
        SamplePos = 24 "SAMPLEPOS",
        SampleMask = 25 "SAMPLEMASK",
        InvocationId = 26 "INVOCATIONID",
        VertexIdNoBase = 27 "VERTEXID_NOBASE",
        BaseVertex = 28 "BASEVERTEX",
        Patch = 29 "PATCH",
        TessCoord = 30 "TESSCOORD",
        TessOuter = 31 "TESSOUTER",
        TessInner = 32 "TESSINNER",
        VerticesIn = 33 "VERTICESIN",
        HelperInvocation = 34 "HELPER_INVOCATION",
        BaseInstance = 35 "BASEINSTANCE",
        DrawId = 36 "DRAWID",
        WorkDim = 37 "WORK_DIM",
        SubgroupSize = 38 "SUBGROUP_SIZE",
        SubgroupInvocation = 39 "SUBGROUP_INVOCATION",
        SubgroupEqMask = 40 "SUBGROUP_EQ_MASK",
        SubgroupGeMask = 41 "SUBGROUP_GE_MASK",
        SubgroupGtMask = 42 "SUBGROUP_GT_MASK",
        SubgroupLeMask = 43 "SUBGROUP_LE_MASK",
        SubgroupLtMask = 44 "SUBGROUP_LT_MASK",
        CsUserDataAmd = 45 "CS_USER_DATA_AMD",
        ViewportMask = 46 "VIEWPORT_MASK",
    }
}

impl SemanticName {
    /// A fragment varying of this semantic declared without an
    /// interpolation mode is flat; a colour is perspective (how the
    /// machine's pipeline and the SPIR-V back end both link it).
    pub fn flat_when_undeclared(self) -> bool {
        self != SemanticName::Color
    }
    /// Semantics whose index the dumper always prints, even when it is 0.
    pub fn always_prints_index(self) -> bool {
        matches!(self, SemanticName::Generic | SemanticName::TexCoord)
    }
    /// Per-patch semantics of tessellation shaders (declared without a vertex bracket).
    pub fn is_patch(self) -> bool {
        matches!(
            self,
            SemanticName::Patch
                | SemanticName::TessInner
                | SemanticName::TessOuter
                | SemanticName::PrimId
        )
    }
}

named_enum! {
    /// Texture target.
    TextureTarget {
        Buffer = 0 "BUFFER",
        Tex1D = 1 "1D",
        Tex2D = 2 "2D",
        Tex3D = 3 "3D",
        Cube = 4 "CUBE",
        Rect = 5 "RECT",
        Shadow1D = 6 "SHADOW1D",
        Shadow2D = 7 "SHADOW2D",
        ShadowRect = 8 "SHADOWRECT",
        Array1D = 9 "1D_ARRAY",
        Array2D = 10 "2D_ARRAY",
        Shadow1DArray = 11 "SHADOW1D_ARRAY",
        Shadow2DArray = 12 "SHADOW2D_ARRAY",
        ShadowCube = 13 "SHADOWCUBE",
        Msaa2D = 14 "2D_MSAA",
        Msaa2DArray = 15 "2D_ARRAY_MSAA",
        CubeArray = 16 "CUBEARRAY",
        ShadowCubeArray = 17 "SHADOWCUBEARRAY",
        Unknown = 18 "UNKNOWN",
    }
}

impl TextureTarget {
    /// True for the SHADOW* targets.
    pub fn is_shadow(self) -> bool {
        matches!(
            self,
            Self::Shadow1D
                | Self::Shadow2D
                | Self::ShadowRect
                | Self::Shadow1DArray
                | Self::Shadow2DArray
                | Self::ShadowCube
                | Self::ShadowCubeArray
        )
    }
}

named_enum! {
    /// Sampler-view return type.
    ReturnType {
        Unorm = 0 "UNORM",
        Snorm = 1 "SNORM",
        Sint = 2 "SINT",
        Uint = 3 "UINT",
        Float = 4 "FLOAT",
    }
}

named_enum! {
    /// Interpolation mode of a fragment input.
    InterpMode {
        Constant = 0 "CONSTANT",
        Linear = 1 "LINEAR",
        Perspective = 2 "PERSPECTIVE",
        Color = 3 "COLOR",
    }
}

named_enum! {
    /// Where within the pixel an input is interpolated.
    InterpLocation {
        Center = 0 "CENTER",
        Centroid = 1 "CENTROID",
        Sample = 2 "SAMPLE",
    }
}

named_enum! {
    /// The kind of memory a `MEMORY` declaration names.
    MemType {
        Global = 0 "GLOBAL",
        Shared = 1 "SHARED",
        Private = 2 "PRIVATE",
        Input = 3 "INPUT",
    }
}

named_enum! {
    /// Data type of an immediate.
    ImmType {
        Flt32 = 0 "FLT32",
        Uint32 = 1 "UINT32",
        Int32 = 2 "INT32",
        Flt64 = 3 "FLT64",
        Uint64 = 4 "UINT64",
        Int64 = 5 "INT64",
    }
}

impl ImmType {
    /// True for the types whose values take two words each.
    pub fn is_64bit(self) -> bool {
        matches!(self, ImmType::Flt64 | ImmType::Uint64 | ImmType::Int64)
    }
}

named_enum! {
    /// Property name (Mesa 22.3 numbering; 23 was called MUL_ZERO_WINS before).
    PropertyName {
        GsInputPrimitive = 0 "GS_INPUT_PRIMITIVE",
        GsOutputPrimitive = 1 "GS_OUTPUT_PRIMITIVE",
        GsMaxOutputVertices = 2 "GS_MAX_OUTPUT_VERTICES",
        FsCoordOrigin = 3 "FS_COORD_ORIGIN",
        FsCoordPixelCenter = 4 "FS_COORD_PIXEL_CENTER",
        FsColor0WritesAllCbufs = 5 "FS_COLOR0_WRITES_ALL_CBUFS",
        FsDepthLayout = 6 "FS_DEPTH_LAYOUT",
        VsProhibitUcps = 7 "VS_PROHIBIT_UCPS",
        GsInvocations = 8 "GS_INVOCATIONS",
        VsWindowSpacePosition = 9 "VS_WINDOW_SPACE_POSITION",
        TcsVerticesOut = 10 "TCS_VERTICES_OUT",
        TesPrimMode = 11 "TES_PRIM_MODE",
        TesSpacing = 12 "TES_SPACING",
        TesVertexOrderCw = 13 "TES_VERTEX_ORDER_CW",
        TesPointMode = 14 "TES_POINT_MODE",
        NumClipdistEnabled = 15 "NUM_CLIPDIST_ENABLED",
        NumCulldistEnabled = 16 "NUM_CULLDIST_ENABLED",
        FsEarlyDepthStencil = 17 "FS_EARLY_DEPTH_STENCIL",
        FsPostDepthCoverage = 18 "FS_POST_DEPTH_COVERAGE",
        NextShader = 19 "NEXT_SHADER",
        CsFixedBlockWidth = 20 "CS_FIXED_BLOCK_WIDTH",
        CsFixedBlockHeight = 21 "CS_FIXED_BLOCK_HEIGHT",
        CsFixedBlockDepth = 22 "CS_FIXED_BLOCK_DEPTH",
        LegacyMathRules = 23 "LEGACY_MATH_RULES",
        VsBlitSgprsAmd = 24 "VS_BLIT_SGPRS_AMD",
        CsUserDataComponentsAmd = 25 "CS_USER_DATA_COMPONENTS_AMD",
        LayerViewportRelative = 26 "LAYER_VIEWPORT_RELATIVE",
        FsBlendEquationAdvanced = 27 "FS_BLEND_EQUATION_ADVANCED",
        SeparableProgram = 28 "SEPARABLE_PROGRAM",
    }
}

impl PropertyName {
    /// Looks a property up by name, also accepting older spellings.
    pub fn from_name_or_alias(s: &str) -> Option<Self> {
        if s.eq_ignore_ascii_case("MUL_ZERO_WINS") {
            return Some(PropertyName::LegacyMathRules);
        }
        Self::from_name(s)
    }
}

named_enum! {
    /// Primitive type (values of the GS primitive properties).
    Primitive {
        Points = 0 "POINTS",
        Lines = 1 "LINES",
        LineLoop = 2 "LINE_LOOP",
        LineStrip = 3 "LINE_STRIP",
        Triangles = 4 "TRIANGLES",
        TriangleStrip = 5 "TRIANGLE_STRIP",
        TriangleFan = 6 "TRIANGLE_FAN",
        Quads = 7 "QUADS",
        QuadStrip = 8 "QUAD_STRIP",
        Polygon = 9 "POLYGON",
        LinesAdjacency = 10 "LINES_ADJACENCY",
        LineStripAdjacency = 11 "LINE_STRIP_ADJACENCY",
        TrianglesAdjacency = 12 "TRIANGLES_ADJACENCY",
        TriangleStripAdjacency = 13 "TRIANGLE_STRIP_ADJACENCY",
        Patches = 14 "PATCHES",
    }
}

impl Primitive {
    /// Vertices per input primitive of a geometry shader (the implied array size).
    pub fn vertices_per_primitive(self) -> u32 {
        match self {
            Primitive::Points => 1,
            Primitive::Lines | Primitive::LineLoop | Primitive::LineStrip => 2,
            Primitive::Triangles | Primitive::TriangleStrip | Primitive::TriangleFan => 3,
            Primitive::Quads | Primitive::QuadStrip => 4,
            Primitive::LinesAdjacency | Primitive::LineStripAdjacency => 4,
            Primitive::TrianglesAdjacency | Primitive::TriangleStripAdjacency => 6,
            Primitive::Polygon | Primitive::Patches => 0,
        }
    }
}

/// A Gallium `pipe_format` (10-bit field) by its Mesa 22.3 number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PipeFormat(pub u16);

impl PipeFormat {
    pub const NONE: PipeFormat = PipeFormat(0);

    /// The full `PIPE_FORMAT_*` name, if the number is a known format.
    pub fn name(self) -> Option<&'static str> {
        PIPE_FORMAT_NAMES.get(self.0 as usize).copied()
    }
    /// Looks a format up by its full name (case-insensitive).
    pub fn from_name(s: &str) -> Option<Self> {
        PIPE_FORMAT_NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(s))
            .map(|i| PipeFormat(i as u16))
    }
}

impl std::fmt::Display for PipeFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "{}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_numberings() {
        assert_eq!(Processor::Fragment.number(ProcessorNumbering::Mesa22), 4);
        assert_eq!(Processor::Fragment.number(ProcessorNumbering::Mesa21), 1);
        for p in Processor::ALL {
            for n in [ProcessorNumbering::Mesa21, ProcessorNumbering::Mesa22] {
                assert_eq!(Processor::from_number(p.number(n), n), Some(*p));
            }
        }
    }

    #[test]
    fn names_round_trip() {
        assert_eq!(File::from_name("sview"), Some(File::SamplerView));
        assert_eq!(
            TextureTarget::from_name("shadowcubearray"),
            Some(TextureTarget::ShadowCubeArray)
        );
        assert_eq!(
            PropertyName::from_name_or_alias("MUL_ZERO_WINS"),
            Some(PropertyName::LegacyMathRules)
        );
        let f = PipeFormat::from_name("PIPE_FORMAT_R32G32B32A32_FLOAT").unwrap();
        assert_eq!(f.name(), Some("PIPE_FORMAT_R32G32B32A32_FLOAT"));
        assert_eq!(PipeFormat::NONE.name(), Some("PIPE_FORMAT_NONE"));
    }
}
