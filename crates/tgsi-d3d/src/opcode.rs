//! The one opcode table of the SM4/SM5 token format.
//!
//! Every opcode number 0x00–0xEA is one row: number, fxc mnemonic, other
//! accepted spellings (vkd3d-shader's), the first shader model that has it,
//! its operand list (role and the type each operand is read or written as),
//! its flags (declaration, custom data, which opcode-token control fields it
//! uses, how the listing indents around it) and the shape of the non-operand
//! dwords it carries. The decoder, encoder, printer, assembler, validator and
//! the TGSI lowering all derive from this table; none repeats a name or an
//! operand list.
//!
//! Operand types follow fxc's listing: they decide how an immediate operand is
//! printed (`l(1.000000)` for float, `l(-1)`/`l(0x3f800000)` for integers,
//! per-component guessing for the typeless `mov`/`movc`/`swapc` data).

use bitflags::bitflags;

use crate::enums::ProgramType;

/// Whether an operand is written, read, or declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// written (destination)
    Dst,
    /// read (source)
    Src,
    /// the register a declaration declares
    Decl,
}

/// What an operand holds, as the instruction reads or writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    Float,
    Int,
    Uint,
    /// 64-bit floats in component pairs
    Double,
    /// bits moved without interpretation (`mov`, `movc`, `swapc` data, loads)
    Typeless,
    /// a resource read by a load/sample/info op: `t#`, `u#`, `g#` or `rasterizer`
    Resource,
    /// a sampler `s#`
    Sampler,
    /// memory written by a store or an atomic: `u#` or `g#`
    Memory,
    /// a label `l#` or function body `fb#`
    Label,
    /// a geometry-shader stream `m#`
    Stream,
    /// an interface `fp#[i][j]`
    Interface,
    /// the register a declaration names
    Declared,
}

impl OperandKind {
    /// True for the value kinds: everything an ALU reads or writes (not a
    /// resource, sampler, memory, label, stream, interface or declared
    /// register).
    pub fn is_value(self) -> bool {
        matches!(
            self,
            Self::Float | Self::Int | Self::Uint | Self::Double | Self::Typeless
        )
    }
    /// True for the value types whose immediates print as integers.
    pub fn is_integer(self) -> bool {
        matches!(self, Self::Int | Self::Uint)
    }
    /// The class used to compare minimum precisions of a source with its
    /// destination (`{min16f as def32}` only between operands of one class).
    pub fn precision_class(self) -> u8 {
        match self {
            Self::Int | Self::Uint => 1,
            _ => 0,
        }
    }
}

/// One operand slot of an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OperandSpec {
    pub role: Role,
    pub kind: OperandKind,
}

impl OperandSpec {
    const fn new(role: Role, kind: OperandKind) -> OperandSpec {
        OperandSpec { role, kind }
    }
}

// Short names of the operand slots used by the table rows.
const DF: OperandSpec = OperandSpec::new(Role::Dst, OperandKind::Float);
const DI: OperandSpec = OperandSpec::new(Role::Dst, OperandKind::Int);
const DU: OperandSpec = OperandSpec::new(Role::Dst, OperandKind::Uint);
const DD: OperandSpec = OperandSpec::new(Role::Dst, OperandKind::Double);
const DA: OperandSpec = OperandSpec::new(Role::Dst, OperandKind::Typeless);
const SF: OperandSpec = OperandSpec::new(Role::Src, OperandKind::Float);
const SI: OperandSpec = OperandSpec::new(Role::Src, OperandKind::Int);
const SU: OperandSpec = OperandSpec::new(Role::Src, OperandKind::Uint);
const SD: OperandSpec = OperandSpec::new(Role::Src, OperandKind::Double);
const SA: OperandSpec = OperandSpec::new(Role::Src, OperandKind::Typeless);
const RES: OperandSpec = OperandSpec::new(Role::Src, OperandKind::Resource);
const SMP: OperandSpec = OperandSpec::new(Role::Src, OperandKind::Sampler);
const MEM: OperandSpec = OperandSpec::new(Role::Dst, OperandKind::Memory);
const LBL: OperandSpec = OperandSpec::new(Role::Src, OperandKind::Label);
const STM: OperandSpec = OperandSpec::new(Role::Src, OperandKind::Stream);
const IFC: OperandSpec = OperandSpec::new(Role::Src, OperandKind::Interface);
const DCL: OperandSpec = OperandSpec::new(Role::Decl, OperandKind::Declared);

/// The first shader model (and Direct3D feature) that has an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShaderModel {
    Sm4_0,
    Sm4_1,
    Sm5_0,
    /// SM5.0 with the Direct3D 11.1 debug-layer additions
    Sm5_0Debug11_1,
    /// SM5.0 with the Direct3D 11.1 double-precision extensions
    Sm5_0DoubleExtensions11_1,
    /// SM5.0 with the Direct3D 11.1 shader extensions
    Sm5_0ShaderExtensions11_1,
    /// SM5.0 with Direct3D 11.2 tiled resources
    Sm5_0TiledResources11_2,
    /// not an opcode
    Reserved,
}

impl ShaderModel {
    /// (major, minor) of the shader model.
    pub fn version(self) -> (u8, u8) {
        match self {
            Self::Sm4_0 => (4, 0),
            Self::Sm4_1 => (4, 1),
            _ => (5, 0),
        }
    }
}

bitflags! {
    /// Opcode flags: kind of row, opcode-token control fields used, listing layout.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct OpFlags: u64 {
        /// a declaration (`dcl_*`)
        const DECLARATION = 1 << 0;
        /// `customdata`: length in the second dword, class in bits 11-31
        const CUSTOM_DATA = 1 << 1;
        /// an unused opcode number
        const RESERVED = 1 << 2;
        /// hull-shader phase marker (`hs_decls`, `hs_fork_phase` …)
        const PHASE = 1 << 3;
        /// the listing indents the lines after it
        const INDENT = 1 << 4;
        /// the listing dedents it and the lines after it
        const DEDENT = 1 << 5;
        /// fxc prints this opcode's float immediates as integers (gather4_po family)
        const FXC_INTEGER_IMMEDIATES = 1 << 6;

        /// bit 13: `_sat`
        const SATURATE = 1 << 16;
        /// bits 19-22: precise mask
        const PRECISE = 1 << 17;
        /// bit 18: `_z` / `_nz`
        const TEST = 1 << 18;
        /// bits 11-12: resinfo return type
        const RESINFO_RETURN = 1 << 19;
        /// bit 11: sampleinfo return type
        const SAMPLEINFO_RETURN = 1 << 20;
        /// bits 11-14: sync flags
        const SYNC = 1 << 21;
        /// bits 11-15: resource dimension
        const RESOURCE_DIM = 1 << 22;
        /// bits 16-22: sample count
        const SAMPLE_COUNT = 1 << 23;
        /// bit 11: constant buffer access pattern
        const CB_ACCESS = 1 << 24;
        /// bits 11-14: sampler mode
        const SAMPLER_MODE = 1 << 25;
        /// bits 11-14: interpolation mode
        const INTERPOLATION = 1 << 26;
        /// bits 11-19: global flags
        const GLOBAL_FLAGS = 1 << 27;
        /// bits 11-16: GS input primitive
        const INPUT_PRIMITIVE = 1 << 28;
        /// bits 11-17: GS output topology
        const OUTPUT_TOPOLOGY = 1 << 29;
        /// bits 11-16: control point count
        const CONTROL_POINT_COUNT = 1 << 30;
        /// bits 11-12: tessellator domain
        const TESS_DOMAIN = 1 << 31;
        /// bits 11-13: tessellator partitioning
        const TESS_PARTITIONING = 1 << 32;
        /// bits 11-13: tessellator output primitive
        const TESS_OUTPUT_PRIMITIVE = 1 << 33;
        /// bit 11: interface is dynamically indexed
        const INTERFACE_DYNAMIC = 1 << 34;
        /// bit 16: UAV globally coherent (`_glc`)
        const UAV_COHERENT = 1 << 35;
        /// bit 17: UAV rasterizer ordered (`_rov`)
        const UAV_RASTERIZER_ORDERED = 1 << 36;
        /// bit 23: UAV hidden counter (`_opc`)
        const UAV_COUNTER = 1 << 37;

        // Validator facts (from each instruction's Microsoft reference page).

        /// Only the stages named by the `STAGE_*` flags may use the opcode; an
        /// opcode with none of them is available in every stage (and every
        /// opcode in a library).
        const STAGE_VS = 1 << 38;
        const STAGE_HS = 1 << 39;
        const STAGE_DS = 1 << 40;
        const STAGE_GS = 1 << 41;
        const STAGE_PS = 1 << 42;
        const STAGE_CS = 1 << 43;
        /// the resource / memory operand may be an SRV `t#`
        const RES_SRV = 1 << 44;
        /// … a UAV `u#`
        const RES_UAV = 1 << 45;
        /// … thread-group shared memory `g#`
        const RES_TGSM = 1 << 46;
        /// … the `rasterizer`
        const RES_RASTERIZER = 1 << 47;
        /// … declared typed (`dcl_resource`, `dcl_uav_typed`)
        const RES_TYPED = 1 << 48;
        /// … declared raw (`dcl_resource_raw`, `dcl_uav_raw`, `dcl_tgsm_raw`)
        const RES_RAW = 1 << 49;
        /// … declared structured (`dcl_*_structured`)
        const RES_STRUCTURED = 1 << 50;
        /// the sampler must be declared `mode_comparison` (and a comparison
        /// sampler serves only these opcodes)
        const COMPARISON_SAMPLER = 1 << 51;
        /// an SM5.0 opcode that `cs_4_0`/`cs_4_1` also have (compute shaders
        /// on Direct3D 10.x hardware)
        const CS_4X = 1 << 52;
        /// an SM5.0 opcode that every 4.x stage has for raw and structured
        /// buffers when `enableRawAndStructuredBuffers` is set (and `cs_4_x`
        /// always)
        const RAW_STRUCTURED_4X = 1 << 53;
        /// operand 0 … 7 must be one component: a source `.select_component`
        /// (or a one-value immediate), a destination a one-component mask
        const SCALAR0 = 1 << 54;
        const SCALAR1 = 1 << 55;
        const SCALAR2 = 1 << 56;
        const SCALAR3 = 1 << 57;
        const SCALAR4 = 1 << 58;
        const SCALAR5 = 1 << 59;
        const SCALAR6 = 1 << 60;
        const SCALAR7 = 1 << 61;
    }
}

/// Where one opcode-token control field lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlField {
    /// the flag of the opcodes that use it
    pub flag: OpFlags,
    /// first bit in the opcode token
    pub shift: u32,
    /// width in bits
    pub width: u32,
}

impl ControlField {
    const fn new(flag: OpFlags, shift: u32, width: u32) -> ControlField {
        ControlField { flag, shift, width }
    }
}

/// Every opcode-token control field (flag, first bit, width). Bits of an opcode token that no field of
/// its opcode covers must be zero.
pub const CONTROL_FIELDS: &[ControlField] = &[
    ControlField::new(OpFlags::SATURATE, 13, 1),
    ControlField::new(OpFlags::PRECISE, 19, 4),
    ControlField::new(OpFlags::TEST, 18, 1),
    ControlField::new(OpFlags::RESINFO_RETURN, 11, 2),
    ControlField::new(OpFlags::SAMPLEINFO_RETURN, 11, 1),
    ControlField::new(OpFlags::SYNC, 11, 4),
    ControlField::new(OpFlags::RESOURCE_DIM, 11, 5),
    ControlField::new(OpFlags::SAMPLE_COUNT, 16, 7),
    ControlField::new(OpFlags::CB_ACCESS, 11, 1),
    ControlField::new(OpFlags::SAMPLER_MODE, 11, 4),
    ControlField::new(OpFlags::INTERPOLATION, 11, 4),
    ControlField::new(OpFlags::GLOBAL_FLAGS, 11, 9),
    ControlField::new(OpFlags::INPUT_PRIMITIVE, 11, 6),
    ControlField::new(OpFlags::OUTPUT_TOPOLOGY, 11, 7),
    ControlField::new(OpFlags::CONTROL_POINT_COUNT, 11, 6),
    ControlField::new(OpFlags::TESS_DOMAIN, 11, 2),
    ControlField::new(OpFlags::TESS_PARTITIONING, 11, 3),
    ControlField::new(OpFlags::TESS_OUTPUT_PRIMITIVE, 11, 3),
    ControlField::new(OpFlags::INTERFACE_DYNAMIC, 11, 1),
    ControlField::new(OpFlags::UAV_COHERENT, 16, 1),
    ControlField::new(OpFlags::UAV_RASTERIZER_ORDERED, 17, 1),
    ControlField::new(OpFlags::UAV_COUNTER, 23, 1),
];

/// The non-operand dwords an opcode carries, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PayloadKind {
    /// none
    None,
    /// after the operand: a return-type dword, then the SM5.1 space dword if
    /// the instruction is long enough (`dcl_resource`, `dcl_uav_typed`)
    ReturnTypes,
    /// after the operand: SM5.1 size and space dwords, if present
    ConstantBuffer,
    /// after the operand: the SM5.1 space dword, if present
    Space,
    /// after the operand: stride, then the SM5.1 space dword if present
    Structured,
    /// one dword (after the operand, if any): a count or an index
    Count,
    /// after the operand: a system-value name
    Name,
    /// register index, register count, component count
    IndexableTemp,
    /// after the operand: stride and structure count
    TgsmStructured,
    /// table index, body count, body indices
    FunctionTable,
    /// interface index, call-site count, array size and table count, table indices
    Interface,
    /// one float dword
    Float,
    /// three dwords
    ThreadGroup,
    /// before the operand: the function call-site index
    CallSite,
    /// a whole `customdata` block
    CustomData,
}

/// Static facts about one opcode: one row of the table.
#[derive(Clone, Copy, Debug)]
pub struct OpcodeInfo {
    pub opcode: Opcode,
    /// fxc mnemonic (the base name, before suffixes)
    pub name: &'static str,
    /// other accepted spellings
    pub aliases: &'static [&'static str],
    pub model: ShaderModel,
    /// operand slots, in token order
    pub operands: &'static [OperandSpec],
    pub flags: OpFlags,
    pub payload: PayloadKind,
}

impl OpcodeInfo {
    /// Number of destination operands (including written memory).
    pub fn num_dst(&self) -> usize {
        self.operands.iter().filter(|o| o.role == Role::Dst).count()
    }
    /// Number of source operands.
    pub fn num_src(&self) -> usize {
        self.operands.iter().filter(|o| o.role == Role::Src).count()
    }
    /// True if a program of this type may use the opcode (the `STAGE_*`
    /// flags; libraries may use every opcode).
    pub fn allows_stage(&self, program: ProgramType) -> bool {
        let stages = self.flags & STAGE_FLAGS;
        let stage = match program {
            ProgramType::Vertex => OpFlags::STAGE_VS,
            ProgramType::Hull => OpFlags::STAGE_HS,
            ProgramType::Domain => OpFlags::STAGE_DS,
            ProgramType::Geometry => OpFlags::STAGE_GS,
            ProgramType::Pixel => OpFlags::STAGE_PS,
            ProgramType::Compute => OpFlags::STAGE_CS,
            ProgramType::Library => return true,
        };
        stages.is_empty() || stages.contains(stage)
    }
    /// True if operand `slot` must be a single component (`SCALAR0`…`SCALAR7`).
    pub fn is_scalar_operand(&self, slot: usize) -> bool {
        SCALAR_FLAGS
            .get(slot)
            .is_some_and(|f| self.flags.contains(*f))
    }
    /// True for the double-precision opcodes (an operand read or written as doubles).
    pub fn is_double(&self) -> bool {
        self.operands.iter().any(|o| o.kind == OperandKind::Double)
    }
}

/// Every `STAGE_*` flag.
pub const STAGE_FLAGS: OpFlags = OpFlags::STAGE_VS
    .union(OpFlags::STAGE_HS)
    .union(OpFlags::STAGE_DS)
    .union(OpFlags::STAGE_GS)
    .union(OpFlags::STAGE_PS)
    .union(OpFlags::STAGE_CS);

/// `SCALAR0` … `SCALAR7`, by operand slot.
pub const SCALAR_FLAGS: [OpFlags; 8] = [
    OpFlags::SCALAR0,
    OpFlags::SCALAR1,
    OpFlags::SCALAR2,
    OpFlags::SCALAR3,
    OpFlags::SCALAR4,
    OpFlags::SCALAR5,
    OpFlags::SCALAR6,
    OpFlags::SCALAR7,
];

macro_rules! opcode_table {
    ($($num:literal $id:ident $name:literal [$($alias:literal),*] $model:ident
        [$($op:ident)*] [$($flag:ident)*] $payload:ident;)*) => {
        /// An SM4/SM5 opcode; the discriminant is its number (opcode token bits 0-10).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Opcode {
            $($id = $num,)*
        }

        /// The table, indexed by opcode number.
        pub static OPCODES: [OpcodeInfo; OPCODE_COUNT] = [
            $(OpcodeInfo {
                opcode: Opcode::$id,
                name: $name,
                aliases: &[$($alias),*],
                model: ShaderModel::$model,
                operands: &[$($op),*],
                flags: OpFlags::from_bits_truncate(0 $(| OpFlags::$flag.bits())*),
                payload: PayloadKind::$payload,
            },)*
        ];

        impl Opcode {
            /// The opcode with this number (0x00–0xEA, reserved numbers included).
            pub fn from_u32(n: u32) -> Option<Opcode> {
                match n {
                    $($num => Some(Opcode::$id),)*
                    _ => None,
                }
            }
        }
    };
}

/// Number of opcode numbers in the table (0x00–0xEA).
pub const OPCODE_COUNT: usize = 0xEB;

impl Opcode {
    /// The table row.
    pub fn info(self) -> &'static OpcodeInfo {
        &OPCODES[self as usize]
    }
    /// The opcode number.
    pub fn number(self) -> u32 {
        self as u32
    }
    /// The fxc mnemonic.
    pub fn name(self) -> &'static str {
        self.info().name
    }
    /// The opcode spelled `s` (fxc mnemonic or an alias), reserved rows excluded.
    pub fn from_name(s: &str) -> Option<Opcode> {
        OPCODES
            .iter()
            .find(|i| {
                !i.flags.contains(OpFlags::RESERVED) && (i.name == s || i.aliases.contains(&s))
            })
            .map(|i| i.opcode)
    }
    /// True for declarations (`dcl_*`, custom data excluded).
    pub fn is_declaration(self) -> bool {
        self.info().flags.contains(OpFlags::DECLARATION)
    }
    /// True for the declarations of input registers (`dcl_input*`).
    pub fn declares_input(self) -> bool {
        matches!(
            self,
            Opcode::DclInput
                | Opcode::DclInputSgv
                | Opcode::DclInputSiv
                | Opcode::DclInputPs
                | Opcode::DclInputPsSgv
                | Opcode::DclInputPsSiv
        )
    }
    /// True for the declarations of output registers (`dcl_output*`).
    pub fn declares_output(self) -> bool {
        matches!(
            self,
            Opcode::DclOutput | Opcode::DclOutputSgv | Opcode::DclOutputSiv
        )
    }
}

opcode_table! {
    0x00 Add "add" [] Sm4_0 [DF SF SF] [SATURATE PRECISE] None;
    0x01 And "and" [] Sm4_0 [DU SU SU] [PRECISE] None;
    0x02 Break "break" [] Sm4_0 [] [] None;
    0x03 Breakc "breakc" ["breakp"] Sm4_0 [SU] [TEST SCALAR0] None;
    0x04 Call "call" [] Sm4_0 [LBL] [] None;
    0x05 Callc "callc" [] Sm4_0 [SU LBL] [TEST SCALAR0] None;
    0x06 Case "case" [] Sm4_0 [SI] [SCALAR0] None;
    0x07 Continue "continue" [] Sm4_0 [] [] None;
    0x08 Continuec "continuec" [] Sm4_0 [SU] [TEST SCALAR0] None;
    0x09 Cut "cut" [] Sm4_0 [] [STAGE_GS] None;
    0x0a Default "default" [] Sm4_0 [] [] None;
    0x0b DerivRtx "deriv_rtx" ["dsx"] Sm4_0 [DF SF] [SATURATE PRECISE STAGE_PS] None;
    0x0c DerivRty "deriv_rty" ["dsy"] Sm4_0 [DF SF] [SATURATE PRECISE STAGE_PS] None;
    0x0d Discard "discard" ["texkill"] Sm4_0 [SU] [TEST STAGE_PS SCALAR0] None;
    0x0e Div "div" [] Sm4_0 [DF SF SF] [SATURATE PRECISE] None;
    0x0f Dp2 "dp2" [] Sm4_0 [DF SF SF] [SATURATE PRECISE] None;
    0x10 Dp3 "dp3" [] Sm4_0 [DF SF SF] [SATURATE PRECISE] None;
    0x11 Dp4 "dp4" [] Sm4_0 [DF SF SF] [SATURATE PRECISE] None;
    0x12 Else "else" [] Sm4_0 [] [INDENT DEDENT] None;
    0x13 Emit "emit" [] Sm4_0 [] [STAGE_GS] None;
    0x14 EmitThenCut "emitThenCut" ["emit_then_cut", "emitthencut"] Sm4_0 [] [STAGE_GS] None;
    0x15 EndIf "endif" [] Sm4_0 [] [DEDENT] None;
    0x16 EndLoop "endloop" [] Sm4_0 [] [DEDENT] None;
    0x17 EndSwitch "endswitch" [] Sm4_0 [] [DEDENT] None;
    0x18 Eq "eq" [] Sm4_0 [DU SF SF] [PRECISE] None;
    0x19 Exp "exp" [] Sm4_0 [DF SF] [SATURATE PRECISE] None;
    0x1a Frc "frc" [] Sm4_0 [DF SF] [SATURATE PRECISE] None;
    0x1b Ftoi "ftoi" [] Sm4_0 [DI SF] [PRECISE] None;
    0x1c Ftou "ftou" [] Sm4_0 [DU SF] [PRECISE] None;
    0x1d Ge "ge" [] Sm4_0 [DU SF SF] [PRECISE] None;
    0x1e Iadd "iadd" [] Sm4_0 [DI SI SI] [PRECISE] None;
    0x1f If "if" [] Sm4_0 [SU] [TEST INDENT SCALAR0] None;
    0x20 Ieq "ieq" [] Sm4_0 [DU SI SI] [PRECISE] None;
    0x21 Ige "ige" [] Sm4_0 [DU SI SI] [PRECISE] None;
    0x22 Ilt "ilt" [] Sm4_0 [DU SI SI] [PRECISE] None;
    0x23 Imad "imad" [] Sm4_0 [DI SI SI SI] [PRECISE] None;
    0x24 Imax "imax" [] Sm4_0 [DI SI SI] [PRECISE] None;
    0x25 Imin "imin" [] Sm4_0 [DI SI SI] [PRECISE] None;
    0x26 Imul "imul" [] Sm4_0 [DI DI SI SI] [PRECISE] None;
    0x27 Ine "ine" [] Sm4_0 [DU SI SI] [PRECISE] None;
    0x28 Ineg "ineg" [] Sm4_0 [DI SI] [PRECISE] None;
    0x29 Ishl "ishl" [] Sm4_0 [DI SI SU] [PRECISE] None;
    0x2a Ishr "ishr" [] Sm4_0 [DI SI SU] [PRECISE] None;
    0x2b Itof "itof" [] Sm4_0 [DF SI] [SATURATE PRECISE] None;
    0x2c Label "label" [] Sm4_0 [LBL] [] None;
    0x2d Ld "ld" [] Sm4_0 [DA SI RES] [SATURATE PRECISE RES_SRV RES_TYPED] None;
    0x2e LdMs "ldms" ["ld2dms", "ld_ms"] Sm4_0 [DA SI RES SI] [SATURATE PRECISE RES_SRV RES_TYPED SCALAR3] None;
    0x2f Log "log" [] Sm4_0 [DF SF] [SATURATE PRECISE] None;
    0x30 Loop "loop" [] Sm4_0 [] [INDENT] None;
    0x31 Lt "lt" [] Sm4_0 [DU SF SF] [PRECISE] None;
    0x32 Mad "mad" [] Sm4_0 [DF SF SF SF] [SATURATE PRECISE] None;
    0x33 Min "min" [] Sm4_0 [DF SF SF] [SATURATE PRECISE] None;
    0x34 Max "max" [] Sm4_0 [DF SF SF] [SATURATE PRECISE] None;
    0x35 CustomData "customdata" [] Sm4_0 [] [CUSTOM_DATA] CustomData;
    0x36 Mov "mov" [] Sm4_0 [DA SA] [SATURATE PRECISE] None;
    0x37 Movc "movc" [] Sm4_0 [DA SU SA SA] [SATURATE PRECISE] None;
    0x38 Mul "mul" [] Sm4_0 [DF SF SF] [SATURATE PRECISE] None;
    0x39 Ne "ne" [] Sm4_0 [DU SF SF] [PRECISE] None;
    0x3a Nop "nop" [] Sm4_0 [] [] None;
    0x3b Not "not" [] Sm4_0 [DU SU] [PRECISE] None;
    0x3c Or "or" [] Sm4_0 [DU SU SU] [PRECISE] None;
    0x3d Resinfo "resinfo" [] Sm4_0 [DA SU RES] [SATURATE PRECISE RESINFO_RETURN RES_SRV RES_UAV RES_TYPED SCALAR1] None;
    0x3e Ret "ret" [] Sm4_0 [] [] None;
    0x3f Retc "retc" ["retp"] Sm4_0 [SU] [TEST SCALAR0] None;
    0x40 RoundNe "round_ne" [] Sm4_0 [DF SF] [SATURATE PRECISE] None;
    0x41 RoundNi "round_ni" [] Sm4_0 [DF SF] [SATURATE PRECISE] None;
    0x42 RoundPi "round_pi" [] Sm4_0 [DF SF] [SATURATE PRECISE] None;
    0x43 RoundZ "round_z" [] Sm4_0 [DF SF] [SATURATE PRECISE] None;
    0x44 Rsq "rsq" [] Sm4_0 [DF SF] [SATURATE PRECISE] None;
    0x45 Sample "sample" [] Sm4_0 [DF SF RES SMP] [SATURATE PRECISE STAGE_PS RES_SRV RES_TYPED] None;
    0x46 SampleC "sample_c" [] Sm4_0 [DF SF RES SMP SF] [SATURATE PRECISE STAGE_PS RES_SRV RES_TYPED COMPARISON_SAMPLER SCALAR4] None;
    0x47 SampleCLz "sample_c_lz" [] Sm4_0 [DF SF RES SMP SF] [SATURATE PRECISE RES_SRV RES_TYPED COMPARISON_SAMPLER SCALAR4] None;
    0x48 SampleL "sample_l" ["sample_lod"] Sm4_0 [DF SF RES SMP SF] [SATURATE PRECISE RES_SRV RES_TYPED SCALAR4] None;
    0x49 SampleD "sample_d" ["sample_grad"] Sm4_0 [DF SF RES SMP SF SF] [SATURATE PRECISE RES_SRV RES_TYPED] None;
    0x4a SampleB "sample_b" [] Sm4_0 [DF SF RES SMP SF] [SATURATE PRECISE STAGE_PS RES_SRV RES_TYPED SCALAR4] None;
    0x4b Sqrt "sqrt" [] Sm4_0 [DF SF] [SATURATE PRECISE] None;
    0x4c Switch "switch" [] Sm4_0 [SI] [INDENT SCALAR0] None;
    0x4d Sincos "sincos" [] Sm4_0 [DF DF SF] [SATURATE PRECISE] None;
    0x4e Udiv "udiv" [] Sm4_0 [DU DU SU SU] [PRECISE] None;
    0x4f Ult "ult" [] Sm4_0 [DU SU SU] [PRECISE] None;
    0x50 Uge "uge" [] Sm4_0 [DU SU SU] [PRECISE] None;
    0x51 Umul "umul" [] Sm4_0 [DU DU SU SU] [PRECISE] None;
    0x52 Umad "umad" [] Sm4_0 [DU SU SU SU] [PRECISE] None;
    0x53 Umax "umax" [] Sm4_0 [DU SU SU] [PRECISE] None;
    0x54 Umin "umin" [] Sm4_0 [DU SU SU] [PRECISE] None;
    0x55 Ushr "ushr" [] Sm4_0 [DU SU SU] [PRECISE] None;
    0x56 Utof "utof" [] Sm4_0 [DF SU] [SATURATE PRECISE] None;
    0x57 Xor "xor" [] Sm4_0 [DU SU SU] [PRECISE] None;
    0x58 DclResource "dcl_resource" [] Sm4_0 [DCL] [DECLARATION RESOURCE_DIM SAMPLE_COUNT] ReturnTypes;
    0x59 DclConstantBuffer "dcl_constantbuffer" [] Sm4_0 [DCL] [DECLARATION CB_ACCESS] ConstantBuffer;
    0x5a DclSampler "dcl_sampler" [] Sm4_0 [DCL] [DECLARATION SAMPLER_MODE] Space;
    0x5b DclIndexRange "dcl_indexrange" ["dcl_index_range", "dcl_indexRange"] Sm4_0 [DCL] [DECLARATION] Count;
    0x5c DclGsOutputPrimitiveTopology "dcl_outputtopology" ["dcl_output_topology"] Sm4_0 [] [DECLARATION OUTPUT_TOPOLOGY STAGE_GS] None;
    0x5d DclGsInputPrimitive "dcl_inputprimitive" ["dcl_input_primitive"] Sm4_0 [] [DECLARATION INPUT_PRIMITIVE STAGE_GS] None;
    0x5e DclMaxOutputVertexCount "dcl_maxout" ["dcl_vertices_out"] Sm4_0 [] [DECLARATION STAGE_GS] Count;
    0x5f DclInput "dcl_input" [] Sm4_0 [DCL] [DECLARATION] None;
    0x60 DclInputSgv "dcl_input_sgv" [] Sm4_0 [DCL] [DECLARATION STAGE_VS STAGE_HS STAGE_DS STAGE_GS] Name;
    0x61 DclInputSiv "dcl_input_siv" [] Sm4_0 [DCL] [DECLARATION STAGE_VS STAGE_HS STAGE_DS STAGE_GS] Name;
    0x62 DclInputPs "dcl_input_ps" [] Sm4_0 [DCL] [DECLARATION INTERPOLATION STAGE_PS] None;
    0x63 DclInputPsSgv "dcl_input_ps_sgv" [] Sm4_0 [DCL] [DECLARATION INTERPOLATION STAGE_PS] Name;
    0x64 DclInputPsSiv "dcl_input_ps_siv" [] Sm4_0 [DCL] [DECLARATION INTERPOLATION STAGE_PS] Name;
    0x65 DclOutput "dcl_output" [] Sm4_0 [DCL] [DECLARATION] None;
    0x66 DclOutputSgv "dcl_output_sgv" [] Sm4_0 [DCL] [DECLARATION] Name;
    0x67 DclOutputSiv "dcl_output_siv" [] Sm4_0 [DCL] [DECLARATION] Name;
    0x68 DclTemps "dcl_temps" [] Sm4_0 [] [DECLARATION] Count;
    0x69 DclIndexableTemp "dcl_indexableTemp" ["dcl_indexable_temp"] Sm4_0 [] [DECLARATION] IndexableTemp;
    0x6a DclGlobalFlags "dcl_globalFlags" ["dcl_global_flags"] Sm4_0 [] [DECLARATION GLOBAL_FLAGS] None;
    0x6b Reserved6b "reserved_0x6b" [] Reserved [] [RESERVED] None;
    0x6c Lod "lod" [] Sm4_1 [DF SF RES SMP] [SATURATE PRECISE STAGE_PS RES_SRV RES_TYPED] None;
    0x6d Gather4 "gather4" [] Sm4_1 [DF SF RES SMP] [SATURATE PRECISE RES_SRV RES_TYPED] None;
    0x6e SamplePos "samplepos" ["sample_pos"] Sm4_1 [DF RES SU] [SATURATE PRECISE RES_SRV RES_RASTERIZER RES_TYPED SCALAR2] None;
    0x6f SampleInfo "sampleinfo" ["sample_info"] Sm4_1 [DA RES] [SATURATE PRECISE SAMPLEINFO_RETURN RES_SRV RES_RASTERIZER RES_TYPED] None;
    0x70 Reserved70 "reserved_0x70" [] Reserved [] [RESERVED] None;
    0x71 HsDecls "hs_decls" [] Sm5_0 [] [PHASE STAGE_HS] None;
    0x72 HsControlPointPhase "hs_control_point_phase" [] Sm5_0 [] [PHASE STAGE_HS] None;
    0x73 HsForkPhase "hs_fork_phase" [] Sm5_0 [] [PHASE STAGE_HS] None;
    0x74 HsJoinPhase "hs_join_phase" [] Sm5_0 [] [PHASE STAGE_HS] None;
    0x75 EmitStream "emit_stream" [] Sm5_0 [STM] [STAGE_GS] None;
    0x76 CutStream "cut_stream" [] Sm5_0 [STM] [STAGE_GS] None;
    0x77 EmitThenCutStream "emitThenCut_stream" ["emit_then_cut_stream", "emitthencut_stream"] Sm5_0 [STM] [STAGE_GS] None;
    0x78 InterfaceCall "fcall" ["interface_call"] Sm5_0 [IFC] [] CallSite;
    0x79 BufInfo "bufinfo" [] Sm5_0 [DU RES] [PRECISE RES_SRV RES_UAV RES_TYPED RES_RAW RES_STRUCTURED RAW_STRUCTURED_4X] None;
    0x7a DerivRtxCoarse "deriv_rtx_coarse" ["dsx_coarse"] Sm5_0 [DF SF] [SATURATE PRECISE STAGE_PS] None;
    0x7b DerivRtxFine "deriv_rtx_fine" ["dsx_fine"] Sm5_0 [DF SF] [SATURATE PRECISE STAGE_PS] None;
    0x7c DerivRtyCoarse "deriv_rty_coarse" ["dsy_coarse"] Sm5_0 [DF SF] [SATURATE PRECISE STAGE_PS] None;
    0x7d DerivRtyFine "deriv_rty_fine" ["dsy_fine"] Sm5_0 [DF SF] [SATURATE PRECISE STAGE_PS] None;
    0x7e Gather4C "gather4_c" [] Sm5_0 [DF SF RES SMP SF] [SATURATE PRECISE RES_SRV RES_TYPED COMPARISON_SAMPLER SCALAR4] None;
    0x7f Gather4Po "gather4_po" [] Sm5_0 [DF SF SI RES SMP] [SATURATE PRECISE FXC_INTEGER_IMMEDIATES RES_SRV RES_TYPED] None;
    0x80 Gather4PoC "gather4_po_c" [] Sm5_0 [DF SF SI RES SMP SF] [SATURATE PRECISE FXC_INTEGER_IMMEDIATES RES_SRV RES_TYPED COMPARISON_SAMPLER SCALAR5] None;
    0x81 Rcp "rcp" [] Sm5_0 [DF SF] [SATURATE PRECISE] None;
    0x82 F32ToF16 "f32tof16" [] Sm5_0 [DU SF] [PRECISE] None;
    0x83 F16ToF32 "f16tof32" [] Sm5_0 [DF SU] [SATURATE PRECISE] None;
    0x84 Uaddc "uaddc" [] Sm5_0 [DU DU SU SU] [PRECISE] None;
    0x85 Usubb "usubb" [] Sm5_0 [DU DU SU SU] [PRECISE] None;
    0x86 Countbits "countbits" [] Sm5_0 [DU SU] [PRECISE] None;
    0x87 FirstbitHi "firstbit_hi" [] Sm5_0 [DU SU] [PRECISE] None;
    0x88 FirstbitLo "firstbit_lo" [] Sm5_0 [DU SU] [PRECISE] None;
    0x89 FirstbitShi "firstbit_shi" [] Sm5_0 [DU SI] [PRECISE] None;
    0x8a Ubfe "ubfe" [] Sm5_0 [DU SU SU SU] [PRECISE] None;
    0x8b Ibfe "ibfe" [] Sm5_0 [DI SU SU SI] [PRECISE] None;
    0x8c Bfi "bfi" [] Sm5_0 [DU SU SU SU SU] [PRECISE] None;
    0x8d Bfrev "bfrev" [] Sm5_0 [DU SU] [PRECISE] None;
    0x8e Swapc "swapc" [] Sm5_0 [DA DA SU SA SA] [SATURATE PRECISE] None;
    0x8f DclStream "dcl_stream" [] Sm5_0 [DCL] [DECLARATION STAGE_GS] None;
    0x90 DclFunctionBody "dcl_function_body" [] Sm5_0 [] [DECLARATION] Count;
    0x91 DclFunctionTable "dcl_function_table" [] Sm5_0 [] [DECLARATION] FunctionTable;
    0x92 DclInterface "dcl_interface" [] Sm5_0 [] [DECLARATION INTERFACE_DYNAMIC] Interface;
    0x93 DclInputControlPointCount "dcl_input_control_point_count" [] Sm5_0 [] [DECLARATION CONTROL_POINT_COUNT STAGE_HS STAGE_DS] None;
    0x94 DclOutputControlPointCount "dcl_output_control_point_count" [] Sm5_0 [] [DECLARATION CONTROL_POINT_COUNT STAGE_HS] None;
    0x95 DclTessDomain "dcl_tessellator_domain" [] Sm5_0 [] [DECLARATION TESS_DOMAIN STAGE_HS STAGE_DS] None;
    0x96 DclTessPartitioning "dcl_tessellator_partitioning" [] Sm5_0 [] [DECLARATION TESS_PARTITIONING STAGE_HS] None;
    0x97 DclTessOutputPrimitive "dcl_tessellator_output_primitive" [] Sm5_0 [] [DECLARATION TESS_OUTPUT_PRIMITIVE STAGE_HS] None;
    0x98 DclHsMaxTessFactor "dcl_hs_max_tessfactor" [] Sm5_0 [] [DECLARATION STAGE_HS] Float;
    0x99 DclHsForkPhaseInstanceCount "dcl_hs_fork_phase_instance_count" [] Sm5_0 [] [DECLARATION STAGE_HS] Count;
    0x9a DclHsJoinPhaseInstanceCount "dcl_hs_join_phase_instance_count" [] Sm5_0 [] [DECLARATION STAGE_HS] Count;
    0x9b DclThreadGroup "dcl_thread_group" [] Sm5_0 [] [DECLARATION STAGE_CS CS_4X] ThreadGroup;
    0x9c DclUavTyped "dcl_uav_typed" [] Sm5_0 [DCL] [DECLARATION RESOURCE_DIM UAV_COHERENT UAV_RASTERIZER_ORDERED] ReturnTypes;
    0x9d DclUavRaw "dcl_uav_raw" [] Sm5_0 [DCL] [DECLARATION UAV_COHERENT UAV_RASTERIZER_ORDERED UAV_COUNTER CS_4X] Space;
    0x9e DclUavStructured "dcl_uav_structured" [] Sm5_0 [DCL] [DECLARATION UAV_COHERENT UAV_RASTERIZER_ORDERED UAV_COUNTER CS_4X] Structured;
    0x9f DclTgsmRaw "dcl_tgsm_raw" [] Sm5_0 [DCL] [DECLARATION STAGE_CS CS_4X] Count;
    0xa0 DclTgsmStructured "dcl_tgsm_structured" [] Sm5_0 [DCL] [DECLARATION STAGE_CS CS_4X] TgsmStructured;
    0xa1 DclResourceRaw "dcl_resource_raw" [] Sm5_0 [DCL] [DECLARATION RAW_STRUCTURED_4X] Space;
    0xa2 DclResourceStructured "dcl_resource_structured" [] Sm5_0 [DCL] [DECLARATION RAW_STRUCTURED_4X] Structured;
    0xa3 LdUavTyped "ld_uav_typed" [] Sm5_0 [DA SU RES] [SATURATE PRECISE RES_UAV RES_TYPED] None;
    0xa4 StoreUavTyped "store_uav_typed" [] Sm5_0 [MEM SU SA] [RES_UAV RES_TYPED] None;
    0xa5 LdRaw "ld_raw" [] Sm5_0 [DA SU RES] [SATURATE PRECISE RES_SRV RES_UAV RES_TGSM RES_RAW RAW_STRUCTURED_4X SCALAR1] None;
    0xa6 StoreRaw "store_raw" [] Sm5_0 [MEM SU SA] [RES_UAV RES_TGSM RES_RAW CS_4X SCALAR1] None;
    0xa7 LdStructured "ld_structured" [] Sm5_0 [DA SU SU RES] [SATURATE PRECISE RES_SRV RES_UAV RES_TGSM RES_STRUCTURED RAW_STRUCTURED_4X SCALAR1 SCALAR2] None;
    0xa8 StoreStructured "store_structured" [] Sm5_0 [MEM SU SU SA] [RES_UAV RES_TGSM RES_STRUCTURED CS_4X SCALAR1 SCALAR2] None;
    0xa9 AtomicAnd "atomic_and" [] Sm5_0 [MEM SU SU] [RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR2] None;
    0xaa AtomicOr "atomic_or" [] Sm5_0 [MEM SU SU] [RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR2] None;
    0xab AtomicXor "atomic_xor" [] Sm5_0 [MEM SU SU] [RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR2] None;
    0xac AtomicCmpStore "atomic_cmp_store" [] Sm5_0 [MEM SU SU SU] [RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR2 SCALAR3] None;
    0xad AtomicIadd "atomic_iadd" [] Sm5_0 [MEM SU SI] [RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR2] None;
    0xae AtomicImax "atomic_imax" [] Sm5_0 [MEM SU SI] [RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR2] None;
    0xaf AtomicImin "atomic_imin" [] Sm5_0 [MEM SU SI] [RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR2] None;
    0xb0 AtomicUmax "atomic_umax" [] Sm5_0 [MEM SU SU] [RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR2] None;
    0xb1 AtomicUmin "atomic_umin" [] Sm5_0 [MEM SU SU] [RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR2] None;
    0xb2 ImmAtomicAlloc "imm_atomic_alloc" [] Sm5_0 [DU MEM] [PRECISE RES_UAV RES_STRUCTURED SCALAR0] None;
    0xb3 ImmAtomicConsume "imm_atomic_consume" [] Sm5_0 [DU MEM] [PRECISE RES_UAV RES_STRUCTURED SCALAR0] None;
    0xb4 ImmAtomicIadd "imm_atomic_iadd" [] Sm5_0 [DI MEM SU SI] [PRECISE RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR0 SCALAR3] None;
    0xb5 ImmAtomicAnd "imm_atomic_and" [] Sm5_0 [DU MEM SU SU] [PRECISE RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR0 SCALAR3] None;
    0xb6 ImmAtomicOr "imm_atomic_or" [] Sm5_0 [DU MEM SU SU] [PRECISE RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR0 SCALAR3] None;
    0xb7 ImmAtomicXor "imm_atomic_xor" [] Sm5_0 [DU MEM SU SU] [PRECISE RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR0 SCALAR3] None;
    0xb8 ImmAtomicExch "imm_atomic_exch" [] Sm5_0 [DU MEM SU SU] [PRECISE RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR0 SCALAR3] None;
    0xb9 ImmAtomicCmpExch "imm_atomic_cmp_exch" [] Sm5_0 [DU MEM SU SU SU] [PRECISE RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR0 SCALAR3 SCALAR4] None;
    0xba ImmAtomicImax "imm_atomic_imax" [] Sm5_0 [DI MEM SU SI] [PRECISE RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR0 SCALAR3] None;
    0xbb ImmAtomicImin "imm_atomic_imin" [] Sm5_0 [DI MEM SU SI] [PRECISE RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR0 SCALAR3] None;
    0xbc ImmAtomicUmax "imm_atomic_umax" [] Sm5_0 [DU MEM SU SU] [PRECISE RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR0 SCALAR3] None;
    0xbd ImmAtomicUmin "imm_atomic_umin" [] Sm5_0 [DU MEM SU SU] [PRECISE RES_UAV RES_TGSM RES_TYPED RES_RAW RES_STRUCTURED SCALAR0 SCALAR3] None;
    0xbe Sync "sync" [] Sm5_0 [] [SYNC CS_4X] None;
    0xbf Dadd "dadd" [] Sm5_0 [DD SD SD] [SATURATE PRECISE] None;
    0xc0 Dmax "dmax" [] Sm5_0 [DD SD SD] [SATURATE PRECISE] None;
    0xc1 Dmin "dmin" [] Sm5_0 [DD SD SD] [SATURATE PRECISE] None;
    0xc2 Dmul "dmul" [] Sm5_0 [DD SD SD] [SATURATE PRECISE] None;
    0xc3 Deq "deq" [] Sm5_0 [DU SD SD] [PRECISE] None;
    0xc4 Dge "dge" [] Sm5_0 [DU SD SD] [PRECISE] None;
    0xc5 Dlt "dlt" [] Sm5_0 [DU SD SD] [PRECISE] None;
    0xc6 Dne "dne" [] Sm5_0 [DU SD SD] [PRECISE] None;
    0xc7 Dmov "dmov" [] Sm5_0 [DD SD] [SATURATE PRECISE] None;
    0xc8 Dmovc "dmovc" [] Sm5_0 [DD SU SD SD] [SATURATE PRECISE] None;
    0xc9 Dtof "dtof" [] Sm5_0 [DF SD] [SATURATE PRECISE] None;
    0xca Ftod "ftod" [] Sm5_0 [DD SF] [SATURATE PRECISE] None;
    0xcb EvalSnapped "eval_snapped" [] Sm5_0 [DF SF SI] [SATURATE PRECISE STAGE_PS] None;
    0xcc EvalSampleIndex "eval_sample_index" [] Sm5_0 [DF SF SI] [SATURATE PRECISE STAGE_PS SCALAR2] None;
    0xcd EvalCentroid "eval_centroid" [] Sm5_0 [DF SF] [SATURATE PRECISE STAGE_PS] None;
    0xce DclGsInstanceCount "dcl_gsinstances" ["dcl_gs_instances"] Sm5_0 [] [DECLARATION STAGE_GS] Count;
    0xcf Abort "abort" [] Sm5_0Debug11_1 [] [] None;
    0xd0 DebugBreak "debug_break" ["debugbreak"] Sm5_0Debug11_1 [] [] None;
    0xd1 ReservedD1 "reserved_0xd1" [] Reserved [] [RESERVED] None;
    0xd2 Ddiv "ddiv" [] Sm5_0DoubleExtensions11_1 [DD SD SD] [SATURATE PRECISE] None;
    0xd3 Dfma "dfma" [] Sm5_0DoubleExtensions11_1 [DD SD SD SD] [SATURATE PRECISE] None;
    0xd4 Drcp "drcp" [] Sm5_0DoubleExtensions11_1 [DD SD] [SATURATE PRECISE] None;
    0xd5 Msad "msad" [] Sm5_0ShaderExtensions11_1 [DU SU SU SU] [PRECISE] None;
    0xd6 Dtoi "dtoi" [] Sm5_0DoubleExtensions11_1 [DI SD] [PRECISE] None;
    0xd7 Dtou "dtou" [] Sm5_0DoubleExtensions11_1 [DU SD] [PRECISE] None;
    0xd8 Itod "itod" [] Sm5_0DoubleExtensions11_1 [DD SI] [SATURATE PRECISE] None;
    0xd9 Utod "utod" [] Sm5_0DoubleExtensions11_1 [DD SU] [SATURATE PRECISE] None;
    0xda ReservedDa "reserved_0xda" [] Reserved [] [RESERVED] None;
    0xdb Gather4S "gather4_s" ["gather4_feedback"] Sm5_0TiledResources11_2 [DF DU SF RES SMP] [SATURATE PRECISE RES_SRV RES_TYPED] None;
    0xdc Gather4CS "gather4_c_s" ["gather4_c_feedback"] Sm5_0TiledResources11_2 [DF DU SF RES SMP SF] [SATURATE PRECISE RES_SRV RES_TYPED COMPARISON_SAMPLER SCALAR5] None;
    0xdd Gather4PoS "gather4_po_s" ["gather4_po_feedback"] Sm5_0TiledResources11_2 [DF DU SF SI RES SMP] [SATURATE PRECISE FXC_INTEGER_IMMEDIATES RES_SRV RES_TYPED] None;
    0xde Gather4PoCS "gather4_po_c_s" ["gather4_po_c_feedback"] Sm5_0TiledResources11_2 [DF DU SF SI RES SMP SF] [SATURATE PRECISE FXC_INTEGER_IMMEDIATES RES_SRV RES_TYPED COMPARISON_SAMPLER SCALAR6] None;
    0xdf LdS "ld_s" ["ld_feedback"] Sm5_0TiledResources11_2 [DA DU SI RES] [SATURATE PRECISE RES_SRV RES_TYPED] None;
    0xe0 LdMsS "ldms_s" ["ld2dms_s", "ld2dms_feedback"] Sm5_0TiledResources11_2 [DA DU SI RES SI] [SATURATE PRECISE RES_SRV RES_TYPED SCALAR4] None;
    0xe1 LdUavTypedS "ld_uav_typed_s" ["ld_uav_typed_feedback"] Sm5_0TiledResources11_2 [DA DU SU RES] [SATURATE PRECISE RES_UAV RES_TYPED] None;
    0xe2 LdRawS "ld_raw_s" ["ld_raw_feedback"] Sm5_0TiledResources11_2 [DA DU SU RES] [SATURATE PRECISE RES_SRV RES_UAV RES_TGSM RES_RAW SCALAR2] None;
    0xe3 LdStructuredS "ld_structured_s" ["ld_structured_feedback"] Sm5_0TiledResources11_2 [DA DU SU SU RES] [SATURATE PRECISE RES_SRV RES_UAV RES_TGSM RES_STRUCTURED SCALAR2 SCALAR3] None;
    0xe4 SampleLS "sample_l_s" ["sample_l_feedback"] Sm5_0TiledResources11_2 [DF DU SF RES SMP SF] [SATURATE PRECISE RES_SRV RES_TYPED SCALAR5] None;
    0xe5 SampleCLzS "sample_c_lz_s" ["sample_c_lz_feedback"] Sm5_0TiledResources11_2 [DF DU SF RES SMP SF] [SATURATE PRECISE RES_SRV RES_TYPED COMPARISON_SAMPLER SCALAR5] None;
    0xe6 SampleClampS "sample_cl_s" ["sample_clamp_feedback"] Sm5_0TiledResources11_2 [DF DU SF RES SMP SF] [SATURATE PRECISE STAGE_PS RES_SRV RES_TYPED SCALAR5] None;
    0xe7 SampleBClampS "sample_b_cl_s" ["sample_b_clamp_feedback"] Sm5_0TiledResources11_2 [DF DU SF RES SMP SF SF] [SATURATE PRECISE STAGE_PS RES_SRV RES_TYPED SCALAR5 SCALAR6] None;
    0xe8 SampleDClampS "sample_d_cl_s" ["sample_d_clamp_feedback"] Sm5_0TiledResources11_2 [DF DU SF RES SMP SF SF SF] [SATURATE PRECISE RES_SRV RES_TYPED SCALAR7] None;
    0xe9 SampleCClampS "sample_c_cl_s" ["sample_c_clamp_feedback"] Sm5_0TiledResources11_2 [DF DU SF RES SMP SF SF] [SATURATE PRECISE STAGE_PS RES_SRV RES_TYPED COMPARISON_SAMPLER SCALAR5 SCALAR6] None;
    0xea CheckAccessFullyMapped "check_access_fully_mapped" [] Sm5_0TiledResources11_2 [DU SU] [PRECISE] None;
}

/// The fixed fields of the version token and of an opcode token, shared by
/// the decoder, the encoder and the listing driver's quick token walk.
pub mod bits {
    /// Opcode token bits 0-10: the opcode number.
    pub const OPCODE_MASK: u32 = 0x7FF;
    /// Opcode token bits 11-23 hold the control fields (see
    /// [`super::CONTROL_FIELDS`]); a `customdata` token keeps its class in
    /// bits 11-31.
    pub const CONTROLS_SHIFT: u32 = 11;
    /// Opcode token bits 11-23.
    pub const CONTROLS_MASK: u32 = 0x00FF_F800;
    /// Opcode token bits 24-30: the instruction length in dwords.
    pub const LENGTH_SHIFT: u32 = 24;
    /// Bit 31 of opcode and extended opcode tokens: an extended opcode token
    /// follows.
    pub const EXTENDED: u32 = 0x8000_0000;

    /// The opcode number of an opcode token.
    pub fn opcode_number(token: u32) -> u32 {
        token & OPCODE_MASK
    }
    /// The instruction length (dwords) of an opcode token (`customdata`
    /// stores its length in the next dword instead).
    pub fn instruction_length(token: u32) -> usize {
        ((token >> LENGTH_SHIFT) & 0x7F) as usize
    }
    /// Bits 11-23 of an opcode token, shifted down.
    pub fn controls(token: u32) -> u32 {
        (token & CONTROLS_MASK) >> CONTROLS_SHIFT
    }
    /// The class of a `customdata` token (bits 11-31).
    pub fn custom_data_class(token: u32) -> u32 {
        token >> CONTROLS_SHIFT
    }
    /// `(program type, major, minor)` of a version token (bits 16-31, 4-7,
    /// 0-3).
    pub fn version_fields(token: u32) -> (u32, u32, u32) {
        (token >> 16, (token >> 4) & 0xF, token & 0xF)
    }
    /// The version token of `(program type, major, minor)`.
    pub fn version_token(program_type: u32, major: u32, minor: u32) -> u32 {
        (program_type << 16) | (major << 4) | minor
    }
}

/// Bits 11-23 of an opcode token that the given flags' control fields cover.
pub fn control_bits(flags: OpFlags) -> u32 {
    CONTROL_FIELDS
        .iter()
        .filter(|f| flags.contains(f.flag))
        .fold(0, |acc, f| acc | (((1u32 << f.width) - 1) << f.shift))
}

/// True if the largest value of every control-field enum fits its bit width.
#[cfg(test)]
fn control_enums_fit() -> bool {
    use crate::enums::{
        ConstantBufferAccess, InfoReturnType, InputPrimitive, Interpolation, PrimitiveTopology,
        ResourceDimension, SamplerMode, TessellatorDomain, TessellatorOutputPrimitive,
        TessellatorPartitioning, Test,
    };
    // each enum's largest number must fit the width of its field
    let fits = |n: u32, flag: OpFlags| {
        CONTROL_FIELDS
            .iter()
            .find(|f| f.flag == flag)
            .is_some_and(|f| n < (1 << f.width))
    };
    fits(InfoReturnType::Uint.number(), OpFlags::RESINFO_RETURN)
        && fits(
            ResourceDimension::StructuredBuffer.number(),
            OpFlags::RESOURCE_DIM,
        )
        && fits(
            ConstantBufferAccess::DynamicIndexed.number(),
            OpFlags::CB_ACCESS,
        )
        && fits(SamplerMode::Mono.number(), OpFlags::SAMPLER_MODE)
        && fits(
            Interpolation::LinearNoPerspectiveSample.number(),
            OpFlags::INTERPOLATION,
        )
        && fits(InputPrimitive::Patch32.number(), OpFlags::INPUT_PRIMITIVE)
        && fits(
            PrimitiveTopology::TriangleStripAdj.number(),
            OpFlags::OUTPUT_TOPOLOGY,
        )
        && fits(TessellatorDomain::Quad.number(), OpFlags::TESS_DOMAIN)
        && fits(
            TessellatorPartitioning::FractionalEven.number(),
            OpFlags::TESS_PARTITIONING,
        )
        && fits(
            TessellatorOutputPrimitive::TriangleCcw.number(),
            OpFlags::TESS_OUTPUT_PRIMITIVE,
        )
        && fits(Test::NonZero.number(), OpFlags::TEST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_sits_at_its_number() {
        for (n, info) in OPCODES.iter().enumerate() {
            assert_eq!(info.opcode as usize, n, "row {n} holds {:?}", info.opcode);
            assert_eq!(Opcode::from_u32(n as u32), Some(info.opcode));
        }
        assert_eq!(Opcode::from_u32(0xEB), None);
        assert_eq!(Opcode::from_u32(0x7FF), None);
    }

    #[test]
    fn reserved_numbers_are_marked() {
        let reserved: Vec<u32> = OPCODES
            .iter()
            .filter(|i| i.flags.contains(OpFlags::RESERVED))
            .map(|i| i.opcode.number())
            .collect();
        assert_eq!(reserved, vec![0x6b, 0x70, 0xd1, 0xda]);
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for info in OPCODES.iter() {
            assert!(seen.insert(info.name), "duplicate name {}", info.name);
            for a in info.aliases {
                assert!(seen.insert(a), "duplicate alias {a}");
            }
        }
        assert_eq!(Opcode::from_name("ldms"), Some(Opcode::LdMs));
        assert_eq!(Opcode::from_name("ld2dms"), Some(Opcode::LdMs));
        assert_eq!(Opcode::from_name("reserved_0x6b"), None);
    }

    #[test]
    fn control_fields_do_not_overlap_within_an_opcode() {
        for info in OPCODES.iter() {
            let mut used = 0u32;
            for f in CONTROL_FIELDS
                .iter()
                .filter(|f| info.flags.contains(f.flag))
            {
                let bits = ((1u32 << f.width) - 1) << f.shift;
                assert_eq!(used & bits, 0, "{} has overlapping controls", info.name);
                assert!(f.shift >= 11 && f.shift + f.width <= 24);
                used |= bits;
            }
        }
        assert!(control_enums_fit());
        assert_eq!(control_bits(Opcode::Add.info().flags), 0x0078_2000);
    }

    #[test]
    fn validator_facts_fit_the_operand_lists() {
        let resource_flags = OpFlags::RES_SRV
            | OpFlags::RES_UAV
            | OpFlags::RES_TGSM
            | OpFlags::RES_RASTERIZER
            | OpFlags::RES_TYPED
            | OpFlags::RES_RAW
            | OpFlags::RES_STRUCTURED;
        for info in OPCODES.iter() {
            let has = |k: OperandKind| info.operands.iter().any(|o| o.kind == k);
            let accesses = has(OperandKind::Resource) || has(OperandKind::Memory);
            // a resource operand names both its files and its declaration kinds
            assert_eq!(
                info.flags.intersects(resource_flags),
                accesses,
                "{}",
                info.name
            );
            if accesses {
                let files = OpFlags::RES_SRV
                    | OpFlags::RES_UAV
                    | OpFlags::RES_TGSM
                    | OpFlags::RES_RASTERIZER;
                let kinds = OpFlags::RES_TYPED | OpFlags::RES_RAW | OpFlags::RES_STRUCTURED;
                assert!(
                    info.flags.intersects(files) && info.flags.intersects(kinds),
                    "{}",
                    info.name
                );
            }
            if info.flags.contains(OpFlags::COMPARISON_SAMPLER) {
                assert!(has(OperandKind::Sampler), "{}", info.name);
            }
            for (slot, flag) in SCALAR_FLAGS.iter().enumerate() {
                if info.flags.contains(*flag) {
                    assert!(slot < info.operands.len(), "{} SCALAR{slot}", info.name);
                }
            }
        }
        assert!(Opcode::Sample.info().allows_stage(ProgramType::Pixel));
        assert!(!Opcode::Sample.info().allows_stage(ProgramType::Vertex));
        assert!(Opcode::Sample.info().allows_stage(ProgramType::Library));
        assert!(
            Opcode::DclTessDomain
                .info()
                .allows_stage(ProgramType::Domain)
        );
        assert!(
            !Opcode::DclTessDomain
                .info()
                .allows_stage(ProgramType::Geometry)
        );
        assert!(Opcode::Mov.info().allows_stage(ProgramType::Compute));
        assert!(Opcode::If.info().is_scalar_operand(0));
        assert!(!Opcode::Mov.info().is_scalar_operand(1));
        assert!(Opcode::Dmovc.info().is_double() && !Opcode::Movc.info().is_double());
    }

    #[test]
    fn operand_lists_match_the_reference_shapes() {
        assert_eq!(Opcode::Imul.info().num_dst(), 2);
        assert_eq!(Opcode::Imul.info().num_src(), 2);
        assert_eq!(Opcode::SampleDClampS.info().operands.len(), 8);
        assert_eq!(Opcode::StoreStructured.info().operands[0], MEM);
        assert!(Opcode::DclResource.is_declaration());
        assert!(!Opcode::CustomData.is_declaration());
        assert!(Opcode::DclInputPsSiv.declares_input() && !Opcode::DclInputPsSiv.declares_output());
        assert!(Opcode::DclOutputSgv.declares_output() && !Opcode::DclStream.declares_output());
        assert!(OperandKind::Typeless.is_value() && !OperandKind::Resource.is_value());
    }
}
