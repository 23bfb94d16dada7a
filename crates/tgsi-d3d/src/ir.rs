//! An SM4/SM5 program as plain data, independent of the DXBC container: the
//! version, and every declaration, instruction and custom-data block in token
//! order.
//!
//! The IR is canonical: every bit of the token stream lives in a field, and
//! the encoder rebuilds the exact words from it. Derived fields (lengths,
//! counts, "extended" bits) are not stored. Where the bytes may hold something
//! a listing does not normally show, the IR keeps it and the printer marks it
//! (see [`crate::print`]):
//!
//! * [`Operand::components`] keeps the exact component field (none, one, mask,
//!   swizzle, select-1) even where fxc's listing shows nothing;
//! * [`Operand::force_extended`] keeps an extended operand token that carries
//!   no modifier, precision or non-uniform bit;
//! * index representations (32/64-bit, relative, immediate + relative) are
//!   kept as written, including a relative index with an immediate part of 0;
//! * [`Instruction::trailing`] keeps dwords the instruction length covers
//!   after its operands (fxc writes one after some `sample_*_s` and
//!   `samplepos` instructions: [`Instruction::fxc_trailing`] is the rule);
//! * immediates keep their bits; fxc's `%f` text does not always determine
//!   them (see `PrintOptions::exact_floats`).

use crate::enums::{
    COMPONENT_NAMES, ConstantBufferAccess, CustomDataClass, GlobalFlags, InfoReturnType,
    InputPrimitive, Interpolation, MinPrecision, OperandModifier, PrimitiveTopology, ProgramType,
    RegisterFile, ResourceDimension, ReturnType, SamplerMode, SyncFlags, SystemValue,
    TessellatorDomain, TessellatorOutputPrimitive, TessellatorPartitioning, Test, UavFlags,
};
use crate::opcode::{OpFlags, Opcode};

/// Shader version: program type and model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Version {
    pub program_type: ProgramType,
    pub major: u8,
    pub minor: u8,
}

impl Version {
    /// True for shader model 5.1 and later (range-bound resources, spaces).
    pub fn is_sm51(self) -> bool {
        (self.major, self.minor) >= (5, 1)
    }
}

/// A whole program: the contents of a SHDR or SHEX chunk.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub version: Version,
    pub instructions: Vec<Instruction>,
}

/// One declaration, instruction or custom-data block.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    pub opcode: Opcode,
    /// the opcode-token control fields the opcode uses (the rest stay default)
    pub controls: Controls,
    /// extended opcode tokens, in token order
    pub extended: Vec<ExtendedOpcode>,
    /// operands, in token order (for `customdata`, none: see the payload)
    pub operands: Vec<Operand>,
    /// the non-operand dwords (declaration payloads, call sites, custom data)
    pub payload: Payload,
    /// dwords after the operands and payload that the length field still
    /// covers (fxc leaves one after some `sample_*_s` ops: see
    /// [`Instruction::fxc_trailing`])
    pub trailing: Vec<u32>,
}

impl Instruction {
    /// An instruction with default controls, no extended tokens and no payload.
    pub fn new(opcode: Opcode, operands: Vec<Operand>) -> Instruction {
        Instruction {
            opcode,
            controls: Controls::default(),
            extended: Vec::new(),
            operands,
            payload: Payload::None,
            trailing: Vec::new(),
        }
    }

    /// The trailing dwords fxc writes after this instruction: the sampling
    /// ops with a residency-feedback destination (`sample_l_s` …
    /// `sample_c_cl_s`) reserve a slot for texel offsets, and when they have
    /// no `_aoffimmi` token on a resource that could take one (not a cube)
    /// the slot stays at the end of the instruction (0, or 0x2000 for
    /// `sample_d_cl_s`); `samplepos` on a texture (not `rasterizer`) ends in
    /// one 0. Every such instruction of the corpus follows this.
    pub fn fxc_trailing(&self) -> Vec<u32> {
        if self.opcode == Opcode::SamplePos {
            let texture = self
                .operands
                .get(1)
                .is_some_and(|o| o.file == RegisterFile::Resource);
            return if texture && self.extended.is_empty() {
                vec![0]
            } else {
                Vec::new()
            };
        }
        let value = match self.opcode {
            Opcode::SampleDClampS => 0x2000,
            Opcode::SampleLS
            | Opcode::SampleCLzS
            | Opcode::SampleClampS
            | Opcode::SampleBClampS
            | Opcode::SampleCClampS => 0,
            _ => return Vec::new(),
        };
        let mut offsets = false;
        let mut cube = false;
        for ext in &self.extended {
            match ext {
                ExtendedOpcode::SampleControls { .. } => offsets = true,
                ExtendedOpcode::ResourceDim { dimension, .. } => {
                    cube = matches!(
                        dimension,
                        ResourceDimension::TextureCube | ResourceDimension::TextureCubeArray
                    )
                }
                ExtendedOpcode::ResourceReturnType(_) => {}
            }
        }
        if offsets || cube {
            Vec::new()
        } else {
            vec![value]
        }
    }
}

/// The opcode-token control fields (bits 11-23). Only the fields named by the
/// opcode's flags are meaningful; the others stay at their defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Controls {
    pub saturate: bool,
    /// precise mask, bit 0 = x … bit 3 = w
    pub precise: u8,
    pub test: TestControl,
    pub info_return: InfoReturnControl,
    pub sync: SyncFlags,
    pub resource_dimension: ResourceDimensionControl,
    pub sample_count: u8,
    pub cb_access: CbAccessControl,
    pub sampler_mode: SamplerModeControl,
    pub interpolation: InterpolationControl,
    pub global_flags: GlobalFlags,
    pub input_primitive: InputPrimitiveControl,
    pub output_topology: TopologyControl,
    pub control_point_count: u8,
    pub tess_domain: TessDomainControl,
    pub tess_partitioning: TessPartitioningControl,
    pub tess_output_primitive: TessOutputControl,
    pub interface_dynamic: bool,
    pub uav: UavFlags,
}

/// Wraps an enum so that [`Controls`] can derive `Default` (the zero value).
macro_rules! control_enum {
    ($wrapper:ident, $inner:ident, $zero:ident) => {
        #[doc = concat!("A [`", stringify!($inner), "`] control, default `", stringify!($zero), "`.")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $wrapper(pub $inner);
        impl Default for $wrapper {
            fn default() -> Self {
                $wrapper($inner::$zero)
            }
        }
    };
}

control_enum!(TestControl, Test, Zero);
control_enum!(InfoReturnControl, InfoReturnType, Float);
control_enum!(ResourceDimensionControl, ResourceDimension, Unknown);
control_enum!(CbAccessControl, ConstantBufferAccess, ImmediateIndexed);
control_enum!(SamplerModeControl, SamplerMode, Default);
control_enum!(InterpolationControl, Interpolation, Undefined);
control_enum!(InputPrimitiveControl, InputPrimitive, Undefined);
control_enum!(TopologyControl, PrimitiveTopology, Undefined);
control_enum!(TessDomainControl, TessellatorDomain, Undefined);
control_enum!(TessPartitioningControl, TessellatorPartitioning, Undefined);
control_enum!(TessOutputControl, TessellatorOutputPrimitive, Undefined);

impl Controls {
    /// The raw value of the control field named by `flag` (one of the
    /// control flags of [`OpFlags`]).
    pub fn field(&self, flag: OpFlags) -> u32 {
        match flag {
            f if f == OpFlags::SATURATE => self.saturate as u32,
            f if f == OpFlags::PRECISE => self.precise as u32,
            f if f == OpFlags::TEST => self.test.0.number(),
            f if f == OpFlags::RESINFO_RETURN => self.info_return.0.number(),
            f if f == OpFlags::SAMPLEINFO_RETURN => {
                (self.info_return.0 == InfoReturnType::Uint) as u32
            }
            f if f == OpFlags::SYNC => self.sync.bits(),
            f if f == OpFlags::RESOURCE_DIM => self.resource_dimension.0.number(),
            f if f == OpFlags::SAMPLE_COUNT => self.sample_count as u32,
            f if f == OpFlags::CB_ACCESS => self.cb_access.0.number(),
            f if f == OpFlags::SAMPLER_MODE => self.sampler_mode.0.number(),
            f if f == OpFlags::INTERPOLATION => self.interpolation.0.number(),
            f if f == OpFlags::GLOBAL_FLAGS => self.global_flags.bits(),
            f if f == OpFlags::INPUT_PRIMITIVE => self.input_primitive.0.number(),
            f if f == OpFlags::OUTPUT_TOPOLOGY => self.output_topology.0.number(),
            f if f == OpFlags::CONTROL_POINT_COUNT => self.control_point_count as u32,
            f if f == OpFlags::TESS_DOMAIN => self.tess_domain.0.number(),
            f if f == OpFlags::TESS_PARTITIONING => self.tess_partitioning.0.number(),
            f if f == OpFlags::TESS_OUTPUT_PRIMITIVE => self.tess_output_primitive.0.number(),
            f if f == OpFlags::INTERFACE_DYNAMIC => self.interface_dynamic as u32,
            f if f == OpFlags::UAV_COHERENT => {
                self.uav.contains(UavFlags::GLOBALLY_COHERENT) as u32
            }
            f if f == OpFlags::UAV_RASTERIZER_ORDERED => {
                self.uav.contains(UavFlags::RASTERIZER_ORDERED) as u32
            }
            f if f == OpFlags::UAV_COUNTER => {
                self.uav.contains(UavFlags::ORDER_PRESERVING_COUNTER) as u32
            }
            _ => 0,
        }
    }

    /// Sets the control field named by `flag` from its raw value; `None` if
    /// the value names nothing (an undefined enum value).
    pub fn set_field(&mut self, flag: OpFlags, v: u32) -> Option<()> {
        match flag {
            f if f == OpFlags::SATURATE => self.saturate = v != 0,
            f if f == OpFlags::PRECISE => self.precise = v as u8,
            f if f == OpFlags::TEST => self.test = TestControl(Test::from_u32(v)?),
            f if f == OpFlags::RESINFO_RETURN => {
                self.info_return = InfoReturnControl(InfoReturnType::from_u32(v)?)
            }
            f if f == OpFlags::SAMPLEINFO_RETURN => {
                self.info_return = InfoReturnControl(if v == 0 {
                    InfoReturnType::Float
                } else {
                    InfoReturnType::Uint
                })
            }
            f if f == OpFlags::SYNC => self.sync = SyncFlags::from_bits(v)?,
            f if f == OpFlags::RESOURCE_DIM => {
                self.resource_dimension = ResourceDimensionControl(ResourceDimension::from_u32(v)?)
            }
            f if f == OpFlags::SAMPLE_COUNT => self.sample_count = v as u8,
            f if f == OpFlags::CB_ACCESS => {
                self.cb_access = CbAccessControl(ConstantBufferAccess::from_u32(v)?)
            }
            f if f == OpFlags::SAMPLER_MODE => {
                self.sampler_mode = SamplerModeControl(SamplerMode::from_u32(v)?)
            }
            f if f == OpFlags::INTERPOLATION => {
                self.interpolation = InterpolationControl(Interpolation::from_u32(v)?)
            }
            f if f == OpFlags::GLOBAL_FLAGS => self.global_flags = GlobalFlags::from_bits(v)?,
            f if f == OpFlags::INPUT_PRIMITIVE => {
                self.input_primitive = InputPrimitiveControl(InputPrimitive::from_u32(v)?)
            }
            f if f == OpFlags::OUTPUT_TOPOLOGY => {
                self.output_topology = TopologyControl(PrimitiveTopology::from_u32(v)?)
            }
            f if f == OpFlags::CONTROL_POINT_COUNT => self.control_point_count = v as u8,
            f if f == OpFlags::TESS_DOMAIN => {
                self.tess_domain = TessDomainControl(TessellatorDomain::from_u32(v)?)
            }
            f if f == OpFlags::TESS_PARTITIONING => {
                self.tess_partitioning =
                    TessPartitioningControl(TessellatorPartitioning::from_u32(v)?)
            }
            f if f == OpFlags::TESS_OUTPUT_PRIMITIVE => {
                self.tess_output_primitive =
                    TessOutputControl(TessellatorOutputPrimitive::from_u32(v)?)
            }
            f if f == OpFlags::INTERFACE_DYNAMIC => self.interface_dynamic = v != 0,
            f if f == OpFlags::UAV_COHERENT => self.uav.set(UavFlags::GLOBALLY_COHERENT, v != 0),
            f if f == OpFlags::UAV_RASTERIZER_ORDERED => {
                self.uav.set(UavFlags::RASTERIZER_ORDERED, v != 0)
            }
            f if f == OpFlags::UAV_COUNTER => {
                self.uav.set(UavFlags::ORDER_PRESERVING_COUNTER, v != 0)
            }
            _ => return None,
        }
        Some(())
    }
}

/// An extended opcode token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExtendedOpcode {
    /// immediate texel offsets `_aoffimmi(u,v,w)`, each -8..=7
    SampleControls { offsets: [i8; 3] },
    /// `_indexable(dim[, stride=N])`
    ResourceDim {
        dimension: ResourceDimension,
        stride: u16,
    },
    /// `(t,t,t,t)`
    ResourceReturnType([ReturnType; 4]),
}

/// The component field of an operand token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Components {
    /// no components (samplers, labels, some system values)
    None,
    /// one component (scalar)
    One,
    /// four components, write mask (bit 0 = x … bit 3 = w)
    Mask(u8),
    /// four components, swizzle (component number for x, y, z, w)
    Swizzle([u8; 4]),
    /// four components, one selected component
    Select(u8),
}

impl Components {
    /// The identity swizzle `.xyzw`.
    pub const XYZW: Components = Components::Swizzle([0, 1, 2, 3]);

    /// The `xyzw` letters of the field's natural suffix: a mask's letters,
    /// a swizzle's four, the selected one; none for a one-component or
    /// component-less register.
    pub fn letters(self) -> String {
        let letter = |c: u8| COMPONENT_NAMES[usize::from(c & 3)];
        match self {
            Components::Mask(m) => mask_letters(m),
            Components::Swizzle(s) => s.iter().map(|&c| letter(c)).collect(),
            Components::Select(c) => letter(c).to_string(),
            Components::None | Components::One => String::new(),
        }
    }
}

/// The component numbers of `xyzw` letters; `None` if any other character
/// is among them.
pub fn component_numbers(letters: &str) -> Option<Vec<u8>> {
    letters
        .chars()
        .map(|c| {
            COMPONENT_NAMES
                .iter()
                .position(|&n| n == c)
                .map(|p| p as u8)
        })
        .collect()
}

/// The mask (bit 0 = x) of `xyzw` letters in increasing order (`xz`;
/// `Some(0)` for none); `None` for other text.
pub fn mask_from_letters(letters: &str) -> Option<u8> {
    let numbers = component_numbers(letters)?;
    if !numbers.windows(2).all(|w| w[0] < w[1]) {
        return None;
    }
    Some(numbers.iter().fold(0, |m, &c| m | (1 << c)))
}

/// The `xyzw` letters of a component mask (bit 0 = x), in order.
pub fn mask_letters(mask: u8) -> String {
    (0..4)
        .filter(|c| mask & (1 << c) != 0)
        .map(|c| COMPONENT_NAMES[c])
        .collect()
}

/// One index of an operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Index {
    Imm32(u32),
    Imm64(u64),
    /// `[r0.x + 0]` with no immediate part stored
    Relative(Box<Operand>),
    /// `[r0.x + N]`
    Imm32Relative(u32, Box<Operand>),
    /// `[r0.x + N]` with a 64-bit immediate part
    Imm64Relative(u64, Box<Operand>),
}

impl Index {
    /// The immediate part (0 when only relative).
    pub fn immediate(&self) -> u64 {
        match self {
            Index::Imm32(v) | Index::Imm32Relative(v, _) => *v as u64,
            Index::Imm64(v) | Index::Imm64Relative(v, _) => *v,
            Index::Relative(_) => 0,
        }
    }
    /// The relative register, if any.
    pub fn relative(&self) -> Option<&Operand> {
        match self {
            Index::Relative(r) | Index::Imm32Relative(_, r) | Index::Imm64Relative(_, r) => Some(r),
            _ => None,
        }
    }
}

/// An operand: register file, indices, component selection, modifiers and,
/// for `l(...)`/`d(...)`, the immediate values.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub file: RegisterFile,
    pub components: Components,
    /// 0 to 3 indices
    pub indices: Vec<Index>,
    pub modifier: OperandModifier,
    pub min_precision: MinPrecision,
    /// SM5.1 non-uniform index
    pub non_uniform: bool,
    /// write an extended operand token even though it carries nothing
    pub force_extended: bool,
    /// immediate dwords: 1 or 4 for `l(...)`, 2 or 4 for `d(...)` (low dword
    /// of each double first); empty for every other file
    pub values: Vec<u32>,
}

impl Operand {
    /// A register operand with the given components and immediate indices.
    pub fn register(file: RegisterFile, indices: &[u32], components: Components) -> Operand {
        Operand {
            file,
            components,
            indices: indices.iter().map(|&i| Index::Imm32(i)).collect(),
            modifier: OperandModifier::None,
            min_precision: MinPrecision::Default,
            non_uniform: false,
            force_extended: false,
            values: Vec::new(),
        }
    }

    /// A 32-bit immediate `l(...)` with 1 or 4 values.
    pub fn imm32(values: &[u32]) -> Operand {
        let components = if values.len() == 1 {
            Components::One
        } else {
            Components::Mask(0)
        };
        Operand {
            values: values.to_vec(),
            ..Operand::register(RegisterFile::Immediate32, &[], components)
        }
    }

    /// A 64-bit immediate `d(...)` with 1 or 2 values.
    pub fn imm64(values: &[u64]) -> Operand {
        let components = if values.len() == 1 {
            Components::One
        } else {
            Components::Mask(0)
        };
        Operand {
            values: values
                .iter()
                .flat_map(|&v| [v as u32, (v >> 32) as u32])
                .collect(),
            ..Operand::register(RegisterFile::Immediate64, &[], components)
        }
    }

    /// True if the extended operand token must be written.
    pub fn needs_extended(&self) -> bool {
        self.force_extended
            || self.modifier != OperandModifier::None
            || self.min_precision != MinPrecision::Default
            || self.non_uniform
    }
}

/// SM5.1 constant-buffer range data: declared size in vectors, register space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstantBufferRange {
    pub size: u32,
    pub space: u32,
}

/// The non-operand dwords of an instruction (shape given by the opcode's
/// [`crate::opcode::PayloadKind`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    None,
    /// `dcl_resource`, `dcl_uav_typed`: return types and the SM5.1 space
    ReturnTypes {
        types: [ReturnType; 4],
        space: Option<u32>,
    },
    /// `dcl_constantbuffer`: SM5.1 size and space
    ConstantBuffer(Option<ConstantBufferRange>),
    /// `dcl_sampler`, `dcl_uav_raw`, `dcl_resource_raw`: SM5.1 space
    Space(Option<u32>),
    /// `dcl_resource_structured`, `dcl_uav_structured`
    Structured {
        stride: u32,
        space: Option<u32>,
    },
    /// counts and indices: `dcl_temps`, `dcl_maxout`, `dcl_indexrange`,
    /// `dcl_function_body`, `dcl_tgsm_raw`, `dcl_gsinstances`, phase instance counts
    Count(u32),
    /// `dcl_*_sgv` / `dcl_*_siv`
    Name(SystemValue),
    /// `dcl_indexableTemp x#[count], components`
    IndexableTemp {
        register: u32,
        count: u32,
        components: u32,
    },
    /// `dcl_tgsm_structured g#, stride, count`
    TgsmStructured {
        stride: u32,
        count: u32,
    },
    /// `dcl_function_table ft# = {fb…}`
    FunctionTable {
        index: u32,
        bodies: Vec<u32>,
    },
    /// `dcl_interface fp#[array_size][call_sites] = {ft…}`
    Interface {
        index: u32,
        call_sites: u32,
        array_size: u16,
        tables: Vec<u32>,
    },
    /// `dcl_hs_max_tessfactor`: the float's bits
    Float(u32),
    /// `dcl_thread_group x, y, z`
    ThreadGroup([u32; 3]),
    /// `fcall`: the call-site index (printed as the last index of `fp#[i][j]`)
    CallSite(u32),
    CustomData(CustomData),
}

/// A `customdata` block.
#[derive(Clone, Debug, PartialEq)]
pub enum CustomData {
    /// `dcl_immediateConstantBuffer`: the data dwords (4 per vector)
    ImmediateConstantBuffer(Vec<u32>),
    /// debug-layer `printf` / `errorf`
    ShaderMessage(ShaderMessage),
    /// any other class, kept as its data dwords
    Other { class: u32, data: Vec<u32> },
}

impl CustomData {
    /// The class number.
    pub fn class(&self) -> u32 {
        match self {
            CustomData::ImmediateConstantBuffer(_) => {
                CustomDataClass::ImmediateConstantBuffer.number()
            }
            CustomData::ShaderMessage(_) => CustomDataClass::ShaderMessage.number(),
            CustomData::Other { class, .. } => *class,
        }
    }
}

/// A debug-layer shader message (custom data class 4).
#[derive(Clone, Debug, PartialEq)]
pub struct ShaderMessage {
    /// info-queue message id (0x00200102 printf, 0x00200103 errorf)
    pub message_id: u32,
    /// 0 plain text, 1 printf-style
    pub format: u32,
    /// the format string's bytes, without the terminating NUL
    pub text: Vec<u8>,
    pub operands: Vec<Operand>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::CONTROL_FIELDS;

    #[test]
    fn component_letters_follow_the_field() {
        assert_eq!(mask_letters(0b1010), "yw");
        assert_eq!(Components::Mask(0b0111).letters(), "xyz");
        assert_eq!(Components::Swizzle([3, 2, 1, 0]).letters(), "wzyx");
        assert_eq!(Components::Select(2).letters(), "z");
        assert_eq!(Components::One.letters(), "");
        assert_eq!(component_numbers("wzx"), Some(vec![3, 2, 0]));
        assert_eq!(component_numbers("xq"), None);
        assert_eq!(mask_from_letters("xz"), Some(0b0101));
        assert_eq!(mask_from_letters(""), Some(0));
        assert_eq!(mask_from_letters("yx"), None);
    }

    #[test]
    fn every_control_field_round_trips_through_set_and_get() {
        for f in CONTROL_FIELDS {
            let mut c = Controls::default();
            assert_eq!(c.field(f.flag), 0, "{:?} defaults to 0", f.flag);
            // 1 is a defined value of every field
            assert_eq!(c.set_field(f.flag, 1), Some(()), "{:?}", f.flag);
            assert_eq!(c.field(f.flag), 1, "{:?}", f.flag);
        }
        let mut c = Controls::default();
        assert_eq!(c.set_field(OpFlags::TESS_DOMAIN, 3), Some(()));
        assert_eq!(c.tess_domain.0, TessellatorDomain::Quad);
        assert_eq!(c.set_field(OpFlags::INPUT_PRIMITIVE, 4), None);
    }

    #[test]
    fn helpers_build_canonical_operands() {
        let l = Operand::imm32(&[1, 2, 3, 4]);
        assert_eq!(l.components, Components::Mask(0));
        assert!(!l.needs_extended());
        let d = Operand::imm64(&[0x4012_0000_0000_0000]);
        assert_eq!(d.values, vec![0, 0x4012_0000]);
        let mut r = Operand::register(RegisterFile::Temp, &[0], Components::Select(0));
        r.modifier = OperandModifier::Neg;
        assert!(r.needs_extended());
        assert!(
            Version {
                program_type: ProgramType::Pixel,
                major: 5,
                minor: 1
            }
            .is_sm51()
        );
    }
}
