//! The named enumerations of the SM4/SM5 token format, each defined once with
//! its binary value, its fxc spelling and the other spellings an assembler
//! accepts (vkd3d-shader's, mostly): program types, register files, resource
//! dimensions and return types, interpolation modes, system values, sampler
//! and constant-buffer modes, primitives and topologies, tessellator
//! settings, minimum precisions, operand modifiers, custom-data classes, and
//! the flag sets (global flags, sync flags, UAV flags) with their names.

use bitflags::bitflags;

/// A Direct3D enumeration ([`tgsi_ir::name_table`] with `u32` values:
/// the fxc spelling, then the other spellings an assembler accepts) with its
/// number and case-sensitive lookup by any spelling.
macro_rules! d3d_enum {
    ($(#[$meta:meta])* $name:ident { $($body:tt)* }) => {
        tgsi_ir::name_table!(u32; $(#[$meta])* $name { $($body)* });

        impl $name {
            /// The binary number.
            pub fn number(self) -> u32 {
                self as u32
            }
            /// The value spelled `s` (fxc spelling or an alias; case-sensitive).
            pub fn from_name(s: &str) -> Option<Self> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.name() == s || v.aliases().contains(&s))
            }
        }
    };
}
pub(crate) use d3d_enum;

d3d_enum! {
    /// Program type of the version token (bits 16-31); the name is the
    /// prefix of the listing's version line.
    ProgramType {
        Pixel = 0 "ps",
        Vertex = 1 "vs",
        Geometry = 2 "gs",
        Hull = 3 "hs",
        Domain = 4 "ds",
        Compute = 5 "cs",
        /// A shader library (`lib_4_0` …), also the functions inside one.
        Library = 0xFFF0 "lib",
    }
}

d3d_enum! {
    /// Operand type: the register file, named by its printed prefix.
    /// (`l` is both the 32-bit immediate `l(...)` and a label `l#`.)
    RegisterFile {
        Temp = 0 "r",
        Input = 1 "v",
        Output = 2 "o",
        IndexableTemp = 3 "x",
        Immediate32 = 4 "l",
        Immediate64 = 5 "d",
        Sampler = 6 "s",
        Resource = 7 "t",
        ConstantBuffer = 8 "cb",
        ImmediateConstantBuffer = 9 "icb",
        Label = 10 "l",
        InputPrimitiveId = 11 "vPrim",
        OutputDepth = 12 "oDepth",
        Null = 13 "null",
        Rasterizer = 14 "rasterizer",
        OutputCoverageMask = 15 "oMask",
        Stream = 16 "m",
        FunctionBody = 17 "fb",
        FunctionTable = 18 "ft",
        Interface = 19 "fp",
        FunctionInput = 20 "fi",
        FunctionOutput = 21 "fo",
        OutputControlPointId = 22 "vOutputControlPointID",
        InputForkInstanceId = 23 "vForkInstanceID" ["vForkInstanceId"],
        InputJoinInstanceId = 24 "vJoinInstanceID" ["vJoinInstanceId"],
        InputControlPoint = 25 "vicp",
        OutputControlPoint = 26 "vocp",
        InputPatchConstant = 27 "vpc",
        InputDomainPoint = 28 "vDomain",
        ThisPointer = 29 "this",
        UnorderedAccessView = 30 "u",
        ThreadGroupSharedMemory = 31 "g",
        InputThreadId = 32 "vThreadID",
        InputThreadGroupId = 33 "vThreadGroupID",
        InputThreadIdInGroup = 34 "vThreadIDInGroup",
        InputCoverageMask = 35 "vCoverage",
        InputThreadIdInGroupFlattened = 36 "vThreadIDInGroupFlattened",
        InputGsInstanceId = 37 "vGSInstanceID",
        OutputDepthGreaterEqual = 38 "oDepthGE",
        OutputDepthLessEqual = 39 "oDepthLE",
        CycleCounter = 40 "vCycleCounter",
        OutputStencilRef = 41 "oStencilRef",
        InnerCoverage = 42 "vInnerCoverage",
    }
}

impl RegisterFile {
    /// Resource-like files that SM5.1 binds by range (`T0[2:6]`, `CB0[0:0][4]`):
    /// printed with an upper-case prefix in SM5.1 programs.
    pub fn is_range_bound(self) -> bool {
        matches!(
            self,
            Self::Resource | Self::Sampler | Self::UnorderedAccessView | Self::ConstantBuffer
        )
    }
    /// Files that hold immediate values after the operand token.
    pub fn is_immediate(self) -> bool {
        matches!(self, Self::Immediate32 | Self::Immediate64)
    }
}

d3d_enum! {
    /// Resource dimension (declaration controls and the extended opcode token).
    ResourceDimension {
        Unknown = 0 "unknown",
        Buffer = 1 "buffer",
        Texture1D = 2 "texture1d",
        Texture2D = 3 "texture2d",
        Texture2DMS = 4 "texture2dms",
        Texture3D = 5 "texture3d",
        TextureCube = 6 "texturecube",
        Texture1DArray = 7 "texture1darray",
        Texture2DArray = 8 "texture2darray",
        Texture2DMSArray = 9 "texture2dmsarray",
        TextureCubeArray = 10 "texturecubearray",
        RawBuffer = 11 "raw_buffer" ["rawbuffer"],
        StructuredBuffer = 12 "structured_buffer",
    }
}

impl ResourceDimension {
    /// Multisampled dimensions carry a sample count in `dcl_resource`.
    pub fn is_multisampled(self) -> bool {
        matches!(self, Self::Texture2DMS | Self::Texture2DMSArray)
    }
}

d3d_enum! {
    /// Resource return type, 4 bits per component.
    ReturnType {
        Unorm = 1 "unorm",
        Snorm = 2 "snorm",
        Sint = 3 "sint" ["int"],
        Uint = 4 "uint",
        Float = 5 "float",
        Mixed = 6 "mixed",
        Double = 7 "double",
        Continued = 8 "<continued>" ["continued"],
        Unused = 9 "<unused>" ["unused"],
    }
}

d3d_enum! {
    /// Pixel-shader input interpolation (`dcl_input_ps*` controls, bits 11-14).
    Interpolation {
        Undefined = 0 "undefined",
        Constant = 1 "constant",
        Linear = 2 "linear",
        LinearCentroid = 3 "linear centroid",
        LinearNoPerspective = 4 "linear noperspective",
        LinearNoPerspectiveCentroid = 5 "linear noperspective centroid",
        LinearSample = 6 "linear sample",
        LinearNoPerspectiveSample = 7 "linear noperspective sample",
    }
}

d3d_enum! {
    /// System-value name token of `dcl_*_sgv` / `dcl_*_siv`.
    SystemValue {
        Undefined = 0 "undefined",
        Position = 1 "position",
        ClipDistance = 2 "clip_distance",
        CullDistance = 3 "cull_distance",
        RenderTargetArrayIndex = 4 "rendertarget_array_index" ["render_target_array_index"],
        ViewportArrayIndex = 5 "viewport_array_index",
        VertexId = 6 "vertex_id",
        PrimitiveId = 7 "primitive_id",
        InstanceId = 8 "instance_id",
        IsFrontFace = 9 "is_front_face",
        SampleIndex = 10 "sampleIndex" ["sample_index"],
        FinalQuadUeq0EdgeTessFactor = 11 "finalQuadUeq0EdgeTessFactor",
        FinalQuadVeq0EdgeTessFactor = 12 "finalQuadVeq0EdgeTessFactor",
        FinalQuadUeq1EdgeTessFactor = 13 "finalQuadUeq1EdgeTessFactor",
        FinalQuadVeq1EdgeTessFactor = 14 "finalQuadVeq1EdgeTessFactor",
        FinalQuadUInsideTessFactor = 15 "finalQuadUInsideTessFactor",
        FinalQuadVInsideTessFactor = 16 "finalQuadVInsideTessFactor",
        FinalTriUeq0EdgeTessFactor = 17 "finalTriUeq0EdgeTessFactor",
        FinalTriVeq0EdgeTessFactor = 18 "finalTriVeq0EdgeTessFactor",
        FinalTriWeq0EdgeTessFactor = 19 "finalTriWeq0EdgeTessFactor",
        FinalTriInsideTessFactor = 20 "finalTriInsideTessFactor",
        FinalLineDetailTessFactor = 21 "finalLineDetailTessFactor",
        FinalLineDensityTessFactor = 22 "finalLineDensityTessFactor",
    }
}

d3d_enum! {
    /// `dcl_sampler` mode (controls bits 11-14).
    SamplerMode {
        Default = 0 "mode_default",
        Comparison = 1 "mode_comparison",
        Mono = 2 "mode_mono",
    }
}

d3d_enum! {
    /// `dcl_constantbuffer` access pattern (controls bit 11).
    ConstantBufferAccess {
        ImmediateIndexed = 0 "immediateIndexed",
        DynamicIndexed = 1 "dynamicIndexed",
    }
}

d3d_enum! {
    /// `dcl_inputprimitive` (controls bits 11-16).
    InputPrimitive {
        Undefined = 0 "undefined",
        Point = 1 "point",
        Line = 2 "line",
        Triangle = 3 "triangle",
        LineAdj = 6 "lineadj",
        TriangleAdj = 7 "triangleadj",
        Patch1 = 8 "patch1",
        Patch2 = 9 "patch2",
        Patch3 = 10 "patch3",
        Patch4 = 11 "patch4",
        Patch5 = 12 "patch5",
        Patch6 = 13 "patch6",
        Patch7 = 14 "patch7",
        Patch8 = 15 "patch8",
        Patch9 = 16 "patch9",
        Patch10 = 17 "patch10",
        Patch11 = 18 "patch11",
        Patch12 = 19 "patch12",
        Patch13 = 20 "patch13",
        Patch14 = 21 "patch14",
        Patch15 = 22 "patch15",
        Patch16 = 23 "patch16",
        Patch17 = 24 "patch17",
        Patch18 = 25 "patch18",
        Patch19 = 26 "patch19",
        Patch20 = 27 "patch20",
        Patch21 = 28 "patch21",
        Patch22 = 29 "patch22",
        Patch23 = 30 "patch23",
        Patch24 = 31 "patch24",
        Patch25 = 32 "patch25",
        Patch26 = 33 "patch26",
        Patch27 = 34 "patch27",
        Patch28 = 35 "patch28",
        Patch29 = 36 "patch29",
        Patch30 = 37 "patch30",
        Patch31 = 38 "patch31",
        Patch32 = 39 "patch32",
    }
}

d3d_enum! {
    /// `dcl_outputtopology` (controls bits 11-17).
    PrimitiveTopology {
        Undefined = 0 "undefined",
        PointList = 1 "pointlist",
        LineList = 2 "linelist",
        LineStrip = 3 "linestrip",
        TriangleList = 4 "trianglelist",
        TriangleStrip = 5 "trianglestrip",
        LineListAdj = 10 "linelistadj",
        LineStripAdj = 11 "linestripadj",
        TriangleListAdj = 12 "trianglelistadj",
        TriangleStripAdj = 13 "trianglestripadj",
    }
}

d3d_enum! {
    /// `dcl_tessellator_domain` (controls bits 11-12).
    TessellatorDomain {
        Undefined = 0 "domain_undefined",
        Isoline = 1 "domain_isoline",
        Triangle = 2 "domain_tri",
        Quad = 3 "domain_quad",
    }
}

d3d_enum! {
    /// `dcl_tessellator_partitioning` (controls bits 11-13).
    TessellatorPartitioning {
        Undefined = 0 "partitioning_undefined",
        Integer = 1 "partitioning_integer",
        Pow2 = 2 "partitioning_pow2",
        FractionalOdd = 3 "partitioning_fractional_odd",
        FractionalEven = 4 "partitioning_fractional_even",
    }
}

d3d_enum! {
    /// `dcl_tessellator_output_primitive` (controls bits 11-13).
    TessellatorOutputPrimitive {
        Undefined = 0 "output_undefined",
        Point = 1 "output_point",
        Line = 2 "output_line",
        TriangleCw = 3 "output_triangle_cw",
        TriangleCcw = 4 "output_triangle_ccw",
    }
}

d3d_enum! {
    /// Minimum precision of an operand (extended operand token bits 14-16),
    /// printed `{min16f}` and, between differently-precise operands of one
    /// instruction, `{def32 as min16f}`.
    MinPrecision {
        Default = 0 "def32",
        Float16 = 1 "min16f",
        Float2_8 = 2 "min2_8f" ["min10f"],
        Sint16 = 4 "min16i",
        Uint16 = 5 "min16u",
    }
}

d3d_enum! {
    /// Source modifier of the extended operand token (bits 6-13).
    OperandModifier {
        None = 0 "none",
        Neg = 1 "neg",
        Abs = 2 "abs",
        AbsNeg = 3 "absneg",
    }
}

d3d_enum! {
    /// Class of a `customdata` block (opcode token bits 11-31).
    CustomDataClass {
        Comment = 0 "comment",
        DebugInfo = 1 "debuginfo",
        Opaque = 2 "opaque",
        ImmediateConstantBuffer = 3 "dcl_immediateConstantBuffer",
        ShaderMessage = 4 "shader_message",
        ClipPlaneConstantMappingsForDx9 = 5 "dx9_clip_plane_constant_mappings",
    }
}

d3d_enum! {
    /// Return type of `resinfo` (bits 11-12) and `sampleinfo` (bit 11):
    /// printed as a suffix after the type list.
    InfoReturnType {
        Float = 0 "",
        RcpFloat = 1 "_rcpFloat",
        Uint = 2 "_uint",
    }
}

d3d_enum! {
    /// The boolean test of conditional instructions (bit 18).
    Test {
        Zero = 0 "_z",
        NonZero = 1 "_nz",
    }
}

d3d_enum! {
    /// Type of an extended opcode token (bits 0-5).
    ExtendedOpcodeType {
        Empty = 0 "empty",
        SampleControls = 1 "sample_controls",
        ResourceDim = 2 "resource_dim",
        ResourceReturnType = 3 "resource_return_type",
    }
}

d3d_enum! {
    /// Type of an extended operand token (bits 0-5).
    ExtendedOperandType {
        Empty = 0 "empty",
        Modifier = 1 "modifier",
    }
}

d3d_enum! {
    /// How an operand index is stored (operand token bits 22-30, 3 bits each).
    IndexRepresentation {
        Immediate32 = 0 "imm32",
        Immediate64 = 1 "imm64",
        Relative = 2 "relative",
        Immediate32PlusRelative = 3 "imm32+relative",
        Immediate64PlusRelative = 4 "imm64+relative",
    }
}

/// Info-queue message IDs of the debug-layer shader messages
/// (`customdata` class 4), with the instruction name fxc prints.
pub const SHADER_MESSAGE_NAMES: &[(u32, &str)] =
    &[(0x0020_0102, "printf"), (0x0020_0103, "errorf")];

/// Shader-message string format: 0 plain ANSI text, 1 printf-style.
pub const SHADER_MESSAGE_FORMAT_PRINTF: u32 = 1;

/// Defines a flag set (bit number and printed name of each flag) as a
/// `bitflags` type and the table of its names, in printing order (the order
/// the flags are listed in).
macro_rules! flag_set {
    ($(#[$($meta:tt)*])* $name:ident; $(#[$names_meta:meta])* $names:ident {
        $($(#[$($fmeta:tt)*])* $flag:ident = $bit:literal $text:literal,)*
    }) => {
        bitflags! {
            $(#[$($meta)*])*
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $name: u32 {
                $($(#[$($fmeta)*])* const $flag = 1 << $bit;)*
            }
        }

        $(#[$names_meta])*
        pub const $names: &[($name, &str)] = &[$(($name::$flag, $text),)*];
    };
}

flag_set! {
    /// `dcl_globalFlags` bits (shifted down from opcode bits 11-19).
    GlobalFlags;
    /// The printed names of the global flags, in printing order (joined by ` | `).
    GLOBAL_FLAG_NAMES {
        REFACTORING_ALLOWED = 0 "refactoringAllowed",
        ENABLE_DOUBLE_PRECISION_FLOAT_OPS = 1 "enableDoublePrecisionFloatOps",
        FORCE_EARLY_DEPTH_STENCIL = 2 "forceEarlyDepthStencil",
        ENABLE_RAW_AND_STRUCTURED_BUFFERS = 3 "enableRawAndStructuredBuffers",
        SKIP_OPTIMIZATION = 4 "skipOptimization",
        ENABLE_MINIMUM_PRECISION = 5 "enableMinimumPrecision",
        ENABLE_11_1_DOUBLE_EXTENSIONS = 6 "enable11_1DoubleExtensions",
        ENABLE_11_1_SHADER_EXTENSIONS = 7 "enable11_1ShaderExtensions",
        ALL_RESOURCES_BOUND = 8 "allResourcesBound",
    }
}

flag_set! {
    /// `sync` flags (shifted down from opcode bits 11-14).
    SyncFlags;
    /// The suffixes of the sync flags, in the order fxc appends them.
    SYNC_FLAG_NAMES {
        /// UAV fence, global scope
        UAV_MEMORY_GLOBAL = 3 "_uglobal",
        /// UAV fence, group scope
        UAV_MEMORY_GROUP = 2 "_ugroup",
        /// thread-group shared memory fence
        THREAD_GROUP_SHARED_MEMORY = 1 "_g",
        /// thread-group barrier
        THREADS_IN_GROUP = 0 "_t",
    }
}

flag_set! {
    /// UAV declaration flags (opcode bit 16 globally coherent, bit 17
    /// rasterizer ordered, bit 23 hidden counter), stored shifted to bits 0-2.
    UavFlags;
    /// The suffixes of the UAV flags, in printing order.
    UAV_FLAG_NAMES {
        GLOBALLY_COHERENT = 0 "_glc",
        ORDER_PRESERVING_COUNTER = 2 "_opc",
        RASTERIZER_ORDERED = 1 "_rov",
    }
}

/// Component letters, by component number.
pub const COMPONENT_NAMES: [char; 4] = ['x', 'y', 'z', 'w'];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_names_and_aliases_round_trip() {
        assert_eq!(ProgramType::from_u32(0xFFF0), Some(ProgramType::Library));
        assert_eq!(ProgramType::Library.name(), "lib");
        assert_eq!(
            RegisterFile::from_u32(23),
            Some(RegisterFile::InputForkInstanceId)
        );
        assert_eq!(
            RegisterFile::from_name("vForkInstanceId"),
            Some(RegisterFile::InputForkInstanceId)
        );
        assert_eq!(ReturnType::from_name("int"), Some(ReturnType::Sint));
        assert_eq!(ReturnType::Continued.name(), "<continued>");
        assert_eq!(
            SystemValue::from_u32(10).map(|v| v.name()),
            Some("sampleIndex")
        );
        assert_eq!(InputPrimitive::from_u32(39), Some(InputPrimitive::Patch32));
        assert_eq!(InputPrimitive::from_u32(4), None);
        assert_eq!(MinPrecision::from_u32(3), None);
        for v in RegisterFile::ALL {
            assert_eq!(RegisterFile::from_u32(v.number()), Some(*v));
        }
    }

    #[test]
    fn flag_name_tables_cover_every_flag_once() {
        let all: GlobalFlags = GLOBAL_FLAG_NAMES
            .iter()
            .fold(GlobalFlags::empty(), |a, (f, _)| a | *f);
        assert_eq!(all, GlobalFlags::all());
        let sync: SyncFlags = SYNC_FLAG_NAMES
            .iter()
            .fold(SyncFlags::empty(), |a, (f, _)| a | *f);
        assert_eq!(sync, SyncFlags::all());
        let uav: UavFlags = UAV_FLAG_NAMES
            .iter()
            .fold(UavFlags::empty(), |a, (f, _)| a | *f);
        assert_eq!(uav, UavFlags::all());
    }
}
