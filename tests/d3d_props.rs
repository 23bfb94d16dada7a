//! Property tests of the Direct3D SM4/SM5 token codec, printer and assembler.
//!
//! The strategies build random programs as IR, driven by the opcode table
//! (`tgsi::d3d::opcode::OPCODES`): every non-reserved row can be drawn, with
//! the operand slots, control fields (every value `Controls::set_field`
//! accepts) and payload shape its row gives. Operands draw a register file
//! that suits the slot's role and kind (or, less often, any file), the
//! file's usual number of indices (sometimes 0–3) in every representation
//! (32/64-bit immediate, relative with nested operands down to the
//! decoder's depth limit, immediate + relative), every component field
//! (mask, swizzle, select-1, one, none), modifiers, minimum precisions, the
//! non-uniform bit and empty extended operand tokens. Immediates carry
//! float/double bit patterns that stress the printer (NaN payloads,
//! infinities, denormals, -0, values `%f` rounds). Instructions carry
//! extended opcode tokens and, now and then, trailing dwords; custom data
//! covers immediate constant buffers, shader messages and the other
//! classes. Programs are either scrambled (any instruction anywhere) or
//! shaped like fxc's (declarations, body, `ret`; hull shaders in phases),
//! of every program type (library included) and SM4.0/4.1/5.0/5.1, with
//! SM5.1 operand shapes (ranges, spaces) now and then in other models, and
//! for the codec alone now and then any other 4-bit version.
//! "Valid" means what the encoder accepts and the decoder gives back (the
//! bytes' grammar), not what a runtime would accept.
//!
//! Properties:
//! 1. encode → decode gives the same IR, and encode → decode → encode the
//!    same words;
//! 2. print (exact floats) → parse gives the same IR, for every program
//!    outside the listing's documented limitations ([`known_limitation`]);
//! 3. random bytes, mutated encodings and mutated listings never make the
//!    decoder, the printer or the assembler panic; whatever decodes encodes
//!    back to the very same words and, outside the limitations, prints and
//!    parses back to the same IR; whatever assembles encodes.
//!
//! `strategies_reach_every_table_row_and_form` samples the strategies with
//! a fixed seed and checks that every table row and form is drawn.
//!
//! `PROPTEST_CASES=N` runs N cases per property instead of 256.

use std::collections::{BTreeSet, HashMap};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::{Union, ValueTree};
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use tgsi::d3d::decode::MAX_RELATIVE_DEPTH;
use tgsi::d3d::enums::{
    CustomDataClass, MinPrecision, OperandModifier, ProgramType, RegisterFile, ResourceDimension,
    ReturnType, SystemValue,
};
use tgsi::d3d::ir::{
    Components, ConstantBufferRange, Controls, CustomData, ExtendedOpcode, Index, Instruction,
    Operand, Payload, Program, ShaderMessage, Version,
};
use tgsi::d3d::opcode::{
    CONTROL_FIELDS, OPCODES, OpFlags, Opcode, OperandKind, OperandSpec, PayloadKind, Role,
};
use tgsi::d3d::print::{ComponentContext, implied_components};
use tgsi::d3d::{PrintOptions, decode_program, encode_program, parse_program, print_program_with};

// ----- configuration ------------------------------------------------------

/// Cases per property: enough to reach every table row several times (see
/// `strategies_reach_every_table_row_and_form`) while the file stays at a
/// few seconds in a debug build.
const CASES: u32 = 256;

/// `cases` per property, or `PROPTEST_CASES` from the environment (for
/// longer runs).
fn config(cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/d3d_props.txt",
        ))),
        ..Config::default()
    }
}

/// How a program is drawn.
#[derive(Clone, Copy, Debug)]
struct Cfg {
    /// operand shapes of SM5.1 (range-bound registers with one more index,
    /// declarations with ranges and spaces); usually the program's version
    sm51: bool,
}

// ----- numbers --------------------------------------------------------------

/// Float bit patterns that stress a printer: signed zeros, infinities, NaNs
/// with and without payloads (quiet, signalling, x86 indefinite, all ones),
/// denormals, the extremes, and values `%f` rounds (1/3, 0.1, 1e-7).
const SPECIAL_F32: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0xffff_ffff,
    0x7fff_ffff,
    0x7f80_0001,
    0xff80_0001,
    0x7fc0_0001,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x3eaa_aaab,
    0x3dcc_cccd,
    0x33d6_bf95,
    0x4b00_0001,
    0x4e6e_6b28,
];

/// The same classes as doubles.
const SPECIAL_F64: &[u64] = &[
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0000,
    0xffff_ffff_ffff_ffff,
    0x7ff0_0000_0000_0001,
    0x7ff8_0000_0000_0001,
    0x0000_0000_0000_0001,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x7fef_ffff_ffff_ffff,
    0x3fd5_5555_5555_5555,
    0x3fb9_9999_9999_999a,
];

fn f32_bits() -> impl Strategy<Value = u32> + Clone {
    prop_oneof![
        3 => select(SPECIAL_F32),
        2 => (-12000i32..12000).prop_map(|v| v as u32),
        2 => (-1.0e6f32..1.0e6).prop_map(f32::to_bits),
        2 => any::<u32>(),
    ]
}

fn f64_bits() -> impl Strategy<Value = u64> + Clone {
    prop_oneof![
        5 => select(SPECIAL_F64),
        2 => (-1.0e6f64..1.0e6).prop_map(f64::to_bits),
        2 => any::<u64>(),
    ]
}

/// A count or register number: small mostly, any 32-bit value sometimes.
fn number() -> impl Strategy<Value = u32> + Clone {
    prop_oneof![4 => 0u32..64, 1 => any::<u32>()]
}

// ----- register files -------------------------------------------------------

/// The input registers that stand alone (system values, thread ids, …).
const SYSTEM_INPUTS: &[RegisterFile] = &[
    RegisterFile::InputPrimitiveId,
    RegisterFile::OutputControlPointId,
    RegisterFile::InputForkInstanceId,
    RegisterFile::InputJoinInstanceId,
    RegisterFile::InputDomainPoint,
    RegisterFile::InputThreadId,
    RegisterFile::InputThreadGroupId,
    RegisterFile::InputThreadIdInGroup,
    RegisterFile::InputCoverageMask,
    RegisterFile::InputThreadIdInGroupFlattened,
    RegisterFile::InputGsInstanceId,
    RegisterFile::CycleCounter,
    RegisterFile::InnerCoverage,
];

const SCALAR_OUTPUTS: &[RegisterFile] = &[
    RegisterFile::OutputDepth,
    RegisterFile::OutputDepthGreaterEqual,
    RegisterFile::OutputDepthLessEqual,
    RegisterFile::OutputStencilRef,
    RegisterFile::OutputCoverageMask,
];

/// The files a declaration's operand names, by the declaration.
fn declared_files(op: Opcode) -> Vec<(u32, RegisterFile)> {
    use RegisterFile as F;
    let one = |f| vec![(1, f)];
    match op {
        Opcode::DclResource | Opcode::DclResourceRaw | Opcode::DclResourceStructured => {
            one(F::Resource)
        }
        Opcode::DclUavTyped | Opcode::DclUavRaw | Opcode::DclUavStructured => {
            one(F::UnorderedAccessView)
        }
        Opcode::DclConstantBuffer => one(F::ConstantBuffer),
        Opcode::DclSampler => one(F::Sampler),
        Opcode::DclTgsmRaw | Opcode::DclTgsmStructured => one(F::ThreadGroupSharedMemory),
        Opcode::DclStream => one(F::Stream),
        Opcode::DclOutput | Opcode::DclOutputSgv | Opcode::DclOutputSiv => {
            let mut v = vec![(12, F::Output), (2, F::OutputControlPoint)];
            v.extend(SCALAR_OUTPUTS.iter().map(|&f| (1, f)));
            v
        }
        Opcode::DclIndexRange => vec![
            (4, F::Input),
            (4, F::Output),
            (1, F::InputControlPoint),
            (1, F::InputPatchConstant),
        ],
        _ => {
            let mut v = vec![
                (16, F::Input),
                (2, F::InputControlPoint),
                (2, F::OutputControlPoint),
                (2, F::InputPatchConstant),
            ];
            v.extend(SYSTEM_INPUTS.iter().map(|&f| (1, f)));
            v
        }
    }
}

/// The register files that suit slot `spec` of `op`, weighted (operands
/// draw any other file too, less often: see [`Operands::top`]).
fn files_for(op: Opcode, spec: OperandSpec) -> Vec<(u32, RegisterFile)> {
    use RegisterFile as F;
    match (spec.role, spec.kind) {
        (Role::Decl, _) | (_, OperandKind::Declared) => declared_files(op),
        (_, OperandKind::Memory) => {
            vec![(3, F::UnorderedAccessView), (2, F::ThreadGroupSharedMemory)]
        }
        (Role::Dst, _) => {
            let mut v = vec![
                (24, F::Temp),
                (8, F::Output),
                (3, F::IndexableTemp),
                (3, F::Null),
                (1, F::OutputControlPoint),
            ];
            v.extend(SCALAR_OUTPUTS.iter().map(|&f| (1, f)));
            v
        }
        (Role::Src, OperandKind::Resource) => vec![
            (6, F::Resource),
            (2, F::UnorderedAccessView),
            (1, F::ThreadGroupSharedMemory),
            (1, F::Rasterizer),
        ],
        (Role::Src, OperandKind::Sampler) => vec![(1, F::Sampler)],
        (Role::Src, OperandKind::Label) => vec![(3, F::Label), (1, F::FunctionBody)],
        (Role::Src, OperandKind::Stream) => vec![(1, F::Stream)],
        (Role::Src, OperandKind::Interface) => vec![(3, F::Interface), (1, F::ThisPointer)],
        (Role::Src, kind) => {
            let mut v = vec![
                (30, F::Temp),
                (10, F::Input),
                (10, F::ConstantBuffer),
                (3, F::ImmediateConstantBuffer),
                (3, F::IndexableTemp),
                (2, F::InputControlPoint),
                (2, F::OutputControlPoint),
                (2, F::InputPatchConstant),
                (1, F::FunctionInput),
                (1, F::FunctionOutput),
            ];
            v.extend(SYSTEM_INPUTS.iter().map(|&f| (1, f)));
            if kind == OperandKind::Double {
                v.push((12, F::Immediate64));
                v.push((1, F::Immediate32));
            } else {
                v.push((12, F::Immediate32));
                v.push((1, F::Immediate64));
            }
            v
        }
    }
}

/// How many indices a register of `file` usually has.
fn natural_index_count(file: RegisterFile, role: Role, cfg: Cfg) -> usize {
    use RegisterFile as F;
    let base = match file {
        F::Temp
        | F::Input
        | F::Output
        | F::Sampler
        | F::Resource
        | F::UnorderedAccessView
        | F::ThreadGroupSharedMemory
        | F::Label
        | F::FunctionBody
        | F::FunctionTable
        | F::Stream
        | F::ImmediateConstantBuffer
        | F::FunctionInput
        | F::FunctionOutput
        | F::ThisPointer
        | F::InputPatchConstant => 1,
        F::ConstantBuffer
        | F::IndexableTemp
        | F::InputControlPoint
        | F::OutputControlPoint
        | F::Interface => 2,
        _ => 0,
    };
    match (cfg.sm51 && file.is_range_bound(), role) {
        (true, Role::Decl) => 3,
        (true, _) => base + 1,
        _ => base,
    }
}

// ----- operands -------------------------------------------------------------

fn swizzle() -> impl Strategy<Value = Components> + Clone {
    prop::array::uniform4(0u8..4).prop_map(Components::Swizzle)
}

/// Any component field the token can hold.
fn any_components() -> impl Strategy<Value = Components> + Clone {
    prop_oneof![
        Just(Components::None),
        Just(Components::One),
        (0u8..16).prop_map(Components::Mask),
        swizzle(),
        (0u8..4).prop_map(Components::Select),
    ]
}

/// A four-component field (what an immediate of 4 values may carry).
fn four_components() -> impl Strategy<Value = Components> + Clone {
    prop_oneof![
        (0u8..16).prop_map(Components::Mask),
        swizzle(),
        (0u8..4).prop_map(Components::Select),
    ]
}

/// How a register operand's component field is chosen; resolved once its
/// file and index count are known.
#[derive(Clone, Copy, Debug)]
enum ComponentsChoice {
    /// what the printed form implies without letters
    Implied,
    /// a mask (destinations, declarations) or swizzle/select-1 (sources)
    Written(Components),
    /// any field, which the printer marks explicitly where it departs
    Any(Components),
}

impl ComponentsChoice {
    fn resolve(self, file: RegisterFile, role: Role, index_count: usize) -> Components {
        match self {
            ComponentsChoice::Implied => {
                let ctx = ComponentContext {
                    file,
                    role,
                    index_count,
                    printed_values: 0,
                };
                implied_components(&ctx, "").unwrap_or(Components::None)
            }
            ComponentsChoice::Written(c) | ComponentsChoice::Any(c) => c,
        }
    }
}

fn components_choice(role: Role) -> BoxedStrategy<ComponentsChoice> {
    let written = match role {
        Role::Src => {
            prop_oneof![3 => swizzle(), 2 => (0u8..4).prop_map(Components::Select)].boxed()
        }
        Role::Dst | Role::Decl => {
            prop_oneof![3 => (1u8..16).prop_map(Components::Mask), 1 => Just(Components::Mask(0xF))]
                .boxed()
        }
    };
    prop_oneof![
        3 => Just(ComponentsChoice::Implied),
        4 => written.prop_map(ComponentsChoice::Written),
        1 => any_components().prop_map(ComponentsChoice::Any),
    ]
    .boxed()
}

/// Modifier, minimum precision, non-uniform bit and an empty extended token.
fn extension(role: Role) -> impl Strategy<Value = (OperandModifier, MinPrecision, bool, bool)> {
    let modifier = if role == Role::Src {
        prop_oneof![6 => Just(OperandModifier::None), 1 => select(OperandModifier::ALL)].boxed()
    } else {
        prop_oneof![16 => Just(OperandModifier::None), 1 => select(OperandModifier::ALL)].boxed()
    };
    let precision =
        prop_oneof![8 => Just(MinPrecision::Default), 1 => select(MinPrecision::ALL)].boxed();
    (
        modifier,
        precision,
        prop::bool::weighted(0.05),
        prop::bool::weighted(0.05),
    )
}

fn apply_extension(op: &mut Operand, ext: (OperandModifier, MinPrecision, bool, bool)) {
    let (modifier, precision, non_uniform, force) = ext;
    op.modifier = modifier;
    op.min_precision = precision;
    op.non_uniform = non_uniform;
    // the decoder sets `force_extended` only for an extended token that
    // carries nothing else
    op.force_extended = force && !op.needs_extended();
}

/// Operand strategies of one configuration, prebuilt for every relative
/// depth, role and register file and shared by all instructions.
///
/// No `prop_flat_map`: the file is picked by a `Union` (which draws only
/// the branch it picks) over strategies that each know their file, so that
/// shrinking simplifies an operand in place instead of redrawing it, and
/// nothing is drawn that the operand does not use.
#[derive(Clone)]
struct Operands {
    cfg: Cfg,
    /// `by_file[d][(role, file)]`: an operand of `file` at relative depth `d`
    by_file: Vec<HashMap<(Role, RegisterFile), BoxedStrategy<Operand>>>,
}

const ROLES: [Role; 3] = [Role::Src, Role::Dst, Role::Decl];

impl Operands {
    fn new(cfg: Cfg) -> Operands {
        use RegisterFile as F;
        let imm32 = prop_oneof![6 => 0u32..32, 1 => any::<u32>()];
        let imm64 = prop_oneof![1 => 0u64..32, 1 => any::<u64>()];
        let mut by_file = Vec::new();
        // deepest first: below the decoder's depth limit an index has no
        // relative part
        let mut index = prop_oneof![
            8 => imm32.clone().prop_map(Index::Imm32),
            1 => imm64.clone().prop_map(Index::Imm64),
        ]
        .boxed();
        for depth in (0..=MAX_RELATIVE_DEPTH).rev() {
            let roles: &[Role] = if depth == 0 { &ROLES } else { &[Role::Src] };
            let mut map = HashMap::new();
            for &role in roles {
                for &file in RegisterFile::ALL {
                    let s = if file.is_immediate() {
                        immediate(file, role, index.clone())
                    } else {
                        register(file, role, cfg, index.clone())
                    };
                    map.insert((role, file), s);
                }
            }
            by_file.insert(0, map);
            if depth == 0 {
                break;
            }
            // the index of an operand one level up: its relative register is
            // one of this level's operands
            let this = Operands {
                cfg,
                by_file: by_file.clone(),
            };
            let relative = this.pick(
                0,
                Role::Src,
                &[
                    (6, F::Temp),
                    (2, F::IndexableTemp),
                    (1, F::Input),
                    (1, F::ConstantBuffer),
                    (1, F::Immediate32),
                ],
            );
            index = prop_oneof![
                32 => imm32.clone().prop_map(Index::Imm32),
                2 => imm64.clone().prop_map(Index::Imm64),
                3 => relative.clone().prop_map(|r| Index::Relative(Box::new(r))),
                3 => (imm32.clone(), relative.clone()).prop_map(|(n, r)| Index::Imm32Relative(n, Box::new(r))),
                1 => (imm64.clone(), relative).prop_map(|(n, r)| Index::Imm64Relative(n, Box::new(r))),
            ]
            .boxed();
        }
        Operands { cfg, by_file }
    }

    /// An operand at `depth` of one of `files` (weight 12), or of any
    /// register file (weight 1).
    fn pick(
        &self,
        depth: usize,
        role: Role,
        files: &[(u32, RegisterFile)],
    ) -> BoxedStrategy<Operand> {
        let map = &self.by_file[depth];
        let natural = Union::new_weighted(
            files
                .iter()
                .map(|&(w, f)| (w, map[&(role, f)].clone()))
                .collect(),
        );
        let any = Union::new(
            RegisterFile::ALL
                .iter()
                .filter(|f| !f.is_immediate())
                .map(|&f| map[&(role, f)].clone()),
        );
        prop_oneof![12 => natural, 1 => any].boxed()
    }

    /// An operand of an instruction in `role`, of one of `files` mostly.
    fn top(&self, role: Role, files: &[(u32, RegisterFile)]) -> BoxedStrategy<Operand> {
        self.pick(0, role, files)
    }
}

/// A register operand of `file` in `role`, its indices drawn from `index`:
/// usually as many as the file has in a listing, sometimes 0 to 3.
fn register(
    file: RegisterFile,
    role: Role,
    cfg: Cfg,
    index: BoxedStrategy<Index>,
) -> BoxedStrategy<Operand> {
    let n = natural_index_count(file, role, cfg);
    // an SM5.1 range declaration: `T0[2:6]`, `S1[0:*]` (any index form
    // when the count is drawn at random)
    let range = role == Role::Decl && file.is_range_bound() && n == 3;
    let bound = prop_oneof![8 => 0u32..32, 1 => Just(u32::MAX), 1 => any::<u32>()];
    let natural = if range {
        vec(bound.prop_map(Index::Imm32), 3).boxed()
    } else {
        vec(index.clone(), n).boxed()
    };
    let indices = prop_oneof![6 => natural, 1 => vec(index, 0..=3)];
    (indices, components_choice(role), extension(role))
        .prop_map(move |(indices, choice, ext)| {
            let mut op = Operand::register(file, &[], choice.resolve(file, role, indices.len()));
            op.indices = indices;
            apply_extension(&mut op, ext);
            op
        })
        .boxed()
}

/// An `l(…)` or `d(…)` immediate: one value, or four components (usually
/// the empty mask fxc writes, sometimes another four-component field), now
/// and then with indices (which fxc never writes: `l(1)[3]`).
fn immediate(
    file: RegisterFile,
    role: Role,
    index: BoxedStrategy<Index>,
) -> BoxedStrategy<Operand> {
    let one = if file == RegisterFile::Immediate64 {
        vec(f64_bits(), 1).boxed()
    } else {
        vec(f32_bits().prop_map(u64::from), 1).boxed()
    };
    let four = if file == RegisterFile::Immediate64 {
        vec(f64_bits(), 2).boxed()
    } else {
        vec(f32_bits().prop_map(u64::from), 4).boxed()
    };
    let values = prop_oneof![
        4 => one.prop_map(|v| (Components::One, v)),
        4 => four.clone().prop_map(|v| (Components::Mask(0), v)),
        1 => (four_components(), four),
    ];
    let indices = prop_oneof![12 => Just(Vec::new()), 1 => vec(index, 1..=3)];
    (values, indices, extension(role))
        .prop_map(move |((components, values), indices, ext)| {
            let mut op = Operand::register(file, &[], components);
            op.indices = indices;
            op.values = if file == RegisterFile::Immediate64 {
                values
                    .iter()
                    .flat_map(|&d| [d as u32, (d >> 32) as u32])
                    .collect()
            } else {
                values.iter().map(|&v| v as u32).collect()
            };
            apply_extension(&mut op, ext);
            op
        })
        .boxed()
}

// ----- instructions ---------------------------------------------------------

/// The opcode-token control fields of an opcode: every field its flags name,
/// each drawn from the values `Controls::set_field` accepts.
fn controls(flags: OpFlags) -> BoxedStrategy<Controls> {
    let fields: Vec<(OpFlags, Vec<u32>)> = CONTROL_FIELDS
        .iter()
        .filter(|f| flags.contains(f.flag))
        .map(|f| {
            let values = (0..1u32 << f.width)
                .filter(|&v| Controls::default().set_field(f.flag, v).is_some())
                .collect();
            (f.flag, values)
        })
        .collect();
    let draws: Vec<BoxedStrategy<u32>> = fields
        .iter()
        .map(|(_, values)| select(values.clone()).boxed())
        .collect();
    draws
        .prop_map(move |values| {
            let mut c = Controls::default();
            for ((flag, _), v) in fields.iter().zip(values) {
                c.set_field(*flag, v);
            }
            c
        })
        .boxed()
}

fn extended_opcode() -> impl Strategy<Value = ExtendedOpcode> + Clone {
    prop_oneof![
        prop::array::uniform3(-8i8..=7)
            .prop_map(|offsets| ExtendedOpcode::SampleControls { offsets }),
        (
            select(ResourceDimension::ALL),
            prop_oneof![3 => Just(0u16), 1 => 0u16..=0xFFF]
        )
            .prop_map(|(dimension, stride)| ExtendedOpcode::ResourceDim { dimension, stride }),
        prop::array::uniform4(select(ReturnType::ALL)).prop_map(ExtendedOpcode::ResourceReturnType),
    ]
}

/// An SM5.1 register space: present in SM5.1-shaped declarations, sometimes
/// present or absent against the shape.
fn space(cfg: Cfg) -> BoxedStrategy<Option<u32>> {
    if cfg.sm51 {
        prop_oneof![6 => number().prop_map(Some), 1 => Just(None)].boxed()
    } else {
        prop_oneof![6 => Just(None), 1 => number().prop_map(Some)].boxed()
    }
}

/// The payload of a (non-custom-data) instruction, by its row's shape.
fn payload(kind: PayloadKind, cfg: Cfg) -> BoxedStrategy<Payload> {
    match kind {
        PayloadKind::None | PayloadKind::CustomData => Just(Payload::None).boxed(),
        PayloadKind::ReturnTypes => (prop::array::uniform4(select(ReturnType::ALL)), space(cfg))
            .prop_map(|(types, space)| Payload::ReturnTypes { types, space })
            .boxed(),
        PayloadKind::ConstantBuffer => (number(), space(cfg))
            .prop_map(|(size, space)| {
                Payload::ConstantBuffer(space.map(|space| ConstantBufferRange { size, space }))
            })
            .boxed(),
        PayloadKind::Space => space(cfg).prop_map(Payload::Space).boxed(),
        PayloadKind::Structured => (number(), space(cfg))
            .prop_map(|(stride, space)| Payload::Structured { stride, space })
            .boxed(),
        PayloadKind::Count => number().prop_map(Payload::Count).boxed(),
        PayloadKind::Name => select(SystemValue::ALL).prop_map(Payload::Name).boxed(),
        PayloadKind::IndexableTemp => (number(), number(), number())
            .prop_map(|(register, count, components)| Payload::IndexableTemp {
                register,
                count,
                components,
            })
            .boxed(),
        PayloadKind::TgsmStructured => (number(), number())
            .prop_map(|(stride, count)| Payload::TgsmStructured { stride, count })
            .boxed(),
        PayloadKind::FunctionTable => (number(), vec(number(), 0..6))
            .prop_map(|(index, bodies)| Payload::FunctionTable { index, bodies })
            .boxed(),
        PayloadKind::Interface => (
            number(),
            number(),
            prop_oneof![3 => 0u16..8, 1 => any::<u16>()],
            vec(number(), 0..6),
        )
            .prop_map(
                |(index, call_sites, array_size, tables)| Payload::Interface {
                    index,
                    call_sites,
                    array_size,
                    tables,
                },
            )
            .boxed(),
        PayloadKind::Float => f32_bits().prop_map(Payload::Float).boxed(),
        PayloadKind::ThreadGroup => prop::array::uniform3(number())
            .prop_map(Payload::ThreadGroup)
            .boxed(),
        PayloadKind::CallSite => number().prop_map(Payload::CallSite).boxed(),
    }
}

/// Whether dwords after this payload read back as trailing dwords: not after
/// an optional part left out (the decoder would read them as that part), nor
/// after the counted lists of function tables and interfaces.
fn trailing_allowed(payload: &Payload) -> bool {
    !matches!(
        payload,
        Payload::ReturnTypes { space: None, .. }
            | Payload::ConstantBuffer(None)
            | Payload::Space(None)
            | Payload::Structured { space: None, .. }
            | Payload::FunctionTable { .. }
            | Payload::Interface { .. }
    )
}

const SHADER_MESSAGE_IDS: &[u32] = &[0x0020_0102, 0x0020_0103];

fn shader_message(operands: &Operands) -> BoxedStrategy<ShaderMessage> {
    let text = prop_oneof![
        3 => "[ -~]{0,24}".prop_map(String::into_bytes),
        1 => vec(any::<u8>(), 0..24),
    ];
    let typeless = OperandSpec {
        role: Role::Src,
        kind: OperandKind::Typeless,
    };
    let operand = operands.top(Role::Src, &files_for(Opcode::Mov, typeless));
    (
        prop_oneof![4 => select(SHADER_MESSAGE_IDS), 1 => any::<u32>()],
        prop_oneof![4 => Just(1u32), 1 => Just(0u32), 1 => any::<u32>()],
        text,
        vec(operand, 0..4),
    )
        .prop_map(|(message_id, format, text, operands)| ShaderMessage {
            message_id,
            format,
            text,
            operands,
        })
        .boxed()
}

fn custom_data(operands: &Operands) -> BoxedStrategy<CustomData> {
    let other_class = prop_oneof![
        6 => select(vec![
            CustomDataClass::Comment.number(),
            CustomDataClass::DebugInfo.number(),
            CustomDataClass::Opaque.number(),
            CustomDataClass::ClipPlaneConstantMappingsForDx9.number(),
        ]),
        1 => 6u32..1 << 21,
    ];
    prop_oneof![
        3 => vec(f32_bits(), 0..=20).prop_map(CustomData::ImmediateConstantBuffer),
        2 => shader_message(operands).prop_map(CustomData::ShaderMessage),
        2 => (other_class, vec(any::<u32>(), 0..8))
            .prop_map(|(class, data)| CustomData::Other { class, data }),
    ]
    .boxed()
}

/// Why the listing of a program the encoder accepts cannot assemble back
/// to it, or `None`. One documented limitation remains: the assembler reads
/// SM4/SM5 versions only (4.x and 5.x: `ps_3_0` is Direct3D 9 assembly,
/// `ps_6_0` DXIL) though the version token holds any 4-bit major and minor.
///
/// (Four others of the first version of this test are gone: indices on
/// immediates, SM5.1 range declarations with non-immediate bounds, `fcall`
/// on a 3-index operand, sized `dcl_constantbuffer` on an operand with no
/// or three indices.)
fn known_limitation(p: &Program) -> Option<&'static str> {
    if !(4..=5).contains(&p.version.major) {
        return Some("a version other than 4.x or 5.x");
    }
    None
}

/// True if the instruction fits the token format (at most 127 dwords).
fn encodes(inst: &Instruction) -> bool {
    let p = Program {
        version: Version {
            program_type: ProgramType::Pixel,
            major: 5,
            minor: 0,
        },
        instructions: vec![inst.clone()],
    };
    encode_program(&p).is_ok()
}

/// One instruction of opcode `op`, shaped by its table row.
fn instruction(op: Opcode, regs: &Operands) -> BoxedStrategy<Instruction> {
    let cfg = regs.cfg;
    let info = op.info();
    if info.flags.contains(OpFlags::CUSTOM_DATA) {
        return custom_data(regs)
            .prop_map(|data| {
                let mut inst = Instruction::new(Opcode::CustomData, Vec::new());
                inst.payload = Payload::CustomData(data);
                inst
            })
            .boxed();
    }
    let operands: Vec<BoxedStrategy<Operand>> = info
        .operands
        .iter()
        .map(|&spec| regs.top(spec.role, &files_for(op, spec)))
        .collect();
    let extended = if info.flags.contains(OpFlags::DECLARATION) {
        prop_oneof![16 => Just(Vec::new()), 1 => vec(extended_opcode(), 1..=2)].boxed()
    } else {
        prop_oneof![5 => Just(Vec::new()), 2 => vec(extended_opcode(), 1..=3)].boxed()
    };
    let trailing = prop_oneof![12 => Just(None), 1 => vec(any::<u32>(), 0..=2).prop_map(Some)];
    (
        controls(info.flags),
        extended,
        operands,
        payload(info.payload, cfg),
        trailing,
    )
        .prop_map(move |(controls, extended, operands, payload, trailing)| {
            let mut inst = Instruction {
                opcode: op,
                controls,
                extended,
                operands,
                payload,
                trailing: Vec::new(),
            };
            inst.trailing = match trailing {
                Some(t) if trailing_allowed(&inst.payload) => t,
                _ => inst.fxc_trailing(),
            };
            inst
        })
        .prop_filter("longer than 127 dwords", encodes)
        .boxed()
}

fn opcodes_where(keep: impl Fn(&tgsi::d3d::opcode::OpcodeInfo) -> bool) -> Vec<Opcode> {
    OPCODES
        .iter()
        .filter(|i| !i.flags.contains(OpFlags::RESERVED) && keep(i))
        .map(|i| i.opcode)
        .collect()
}

/// Instructions of one configuration: any opcode of the table (reserved
/// rows excluded), declarations, custom data and the rest. A choice among
/// prebuilt per-opcode strategies (not a `prop_flat_map` over the opcode),
/// so that shrinking keeps the opcode while it simplifies the operands.
#[derive(Clone)]
struct Instructions {
    any: BoxedStrategy<Instruction>,
    declaration: BoxedStrategy<Instruction>,
    custom: BoxedStrategy<Instruction>,
    body: BoxedStrategy<Instruction>,
}

impl Instructions {
    fn new(cfg: Cfg) -> Instructions {
        let regs = Operands::new(cfg);
        let by_opcode: Vec<(Opcode, BoxedStrategy<Instruction>)> = opcodes_where(|_| true)
            .into_iter()
            .map(|op| (op, instruction(op, &regs)))
            .collect();
        let choose = |keep: &dyn Fn(&OpFlags) -> bool| {
            Union::new(
                by_opcode
                    .iter()
                    .filter(|(op, _)| keep(&op.info().flags))
                    .map(|(_, s)| s.clone()),
            )
            .boxed()
        };
        Instructions {
            any: choose(&|_| true),
            declaration: choose(&|f| f.contains(OpFlags::DECLARATION)),
            custom: choose(&|f| f.contains(OpFlags::CUSTOM_DATA)),
            body: choose(&|f| {
                !f.intersects(OpFlags::DECLARATION | OpFlags::PHASE | OpFlags::CUSTOM_DATA)
            }),
        }
    }
}

// ----- programs -------------------------------------------------------------

/// A version (every program type, SM4.0/4.1/5.0/5.1, and for the codec
/// alone now and then any other) and the operand shapes to draw: usually
/// the version's, sometimes the other model's.
fn version_and_cfg(printable: bool) -> BoxedStrategy<(Version, Cfg)> {
    let model = if printable {
        select(vec![(4u8, 0u8), (4, 1), (5, 0), (5, 1)]).boxed()
    } else {
        prop_oneof![
            16 => select(vec![(4u8, 0u8), (4, 1), (5, 0), (5, 1)]),
            1 => (0u8..16, 0u8..16),
        ]
        .boxed()
    };
    (select(ProgramType::ALL), model, prop::bool::weighted(0.1))
        .prop_map(move |(program_type, (major, minor), against)| {
            let version = Version {
                program_type,
                major,
                minor,
            };
            let cfg = Cfg {
                sm51: version.is_sm51() != against,
            };
            (version, cfg)
        })
        .boxed()
}

/// Any instructions in any order.
fn scrambled_program(version: Version, set: &Instructions) -> BoxedStrategy<Program> {
    vec(set.any.clone(), 0..10)
        .prop_map(move |instructions| Program {
            version,
            instructions,
        })
        .boxed()
}

/// Declarations, a custom-data block now and then (where fxc puts its
/// immediate constant buffer), then a body ending in `ret`; hull shaders as
/// `hs_decls` and a sequence of phases, each with its own declarations and
/// body.
fn shaped_program(version: Version, set: &Instructions) -> BoxedStrategy<Program> {
    let hull = version.program_type == ProgramType::Hull;
    let phases = opcodes_where(|i| i.flags.contains(OpFlags::PHASE));
    let set = set.clone();
    let part = move |len: std::ops::Range<usize>| {
        // one vector, sorted afterwards, so that shrinking deletes whole
        // instructions before it simplifies the one that fails
        vec(
            prop_oneof![
                3 => set.declaration.clone(),
                1 => set.custom.clone(),
                6 => set.body.clone(),
            ],
            len,
        )
        .prop_map(|mut part| {
            part.sort_by_key(|i| match i.opcode {
                op if op.is_declaration() => 0,
                Opcode::CustomData => 1,
                _ => 2,
            });
            part
        })
    };
    let phase = (select(phases), part(0..6));
    (part(0..12), vec(phase, if hull { 0..4 } else { 0..1 }))
        .prop_map(move |(main, phases)| {
            let ret = || Instruction::new(Opcode::Ret, Vec::new());
            let mut instructions = Vec::new();
            if hull {
                instructions.push(Instruction::new(Opcode::HsDecls, Vec::new()));
            }
            instructions.extend(main);
            instructions.push(ret());
            for (marker, part) in phases {
                instructions.push(Instruction::new(marker, Vec::new()));
                instructions.extend(part);
                instructions.push(ret());
            }
            Program {
                version,
                instructions,
            }
        })
        .boxed()
}

/// A random valid program (`printable`: of a version the assembler reads),
/// scrambled or shaped like fxc's. The instruction strategies are built
/// once for each operand shape; only the choice of version is a
/// `prop_flat_map`.
fn program(printable: bool) -> BoxedStrategy<Program> {
    let sets = [false, true].map(|sm51| Instructions::new(Cfg { sm51 }));
    (version_and_cfg(printable), any::<bool>())
        .prop_flat_map(move |((version, cfg), shaped)| {
            let set = &sets[cfg.sm51 as usize];
            if shaped {
                shaped_program(version, set)
            } else {
                scrambled_program(version, set)
            }
        })
        .boxed()
}

// ----- helpers --------------------------------------------------------------

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

const EXACT: PrintOptions = PrintOptions {
    uppercase_constant_buffer_declarations: true,
    exact_floats: true,
};

fn numbered(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| format!("{:4} | {l}\n", i + 1))
        .collect()
}

/// Where two programs first differ, for failure messages: the field of the
/// first differing instruction, or its first differing operand.
fn first_difference(a: &Program, b: &Program) -> String {
    if a.version != b.version {
        return format!("version {:?} vs {:?}", a.version, b.version);
    }
    for (i, (x, y)) in a.instructions.iter().zip(&b.instructions).enumerate() {
        let at = format!("instruction {i} ({})", x.opcode.name());
        if x.opcode != y.opcode {
            return format!("{at}: opcode {:?} vs {:?}", x.opcode, y.opcode);
        }
        if x.controls != y.controls {
            return format!("{at}: controls\n  {:?}\n  {:?}", x.controls, y.controls);
        }
        if x.extended != y.extended {
            return format!("{at}: extended {:?} vs {:?}", x.extended, y.extended);
        }
        if x.payload != y.payload {
            return format!("{at}: payload {:?} vs {:?}", x.payload, y.payload);
        }
        if x.trailing != y.trailing {
            return format!("{at}: trailing {:?} vs {:?}", x.trailing, y.trailing);
        }
        if x.operands.len() != y.operands.len() {
            return format!(
                "{at}: {} vs {} operands",
                x.operands.len(),
                y.operands.len()
            );
        }
        if let Some((k, (p, q))) = x
            .operands
            .iter()
            .zip(&y.operands)
            .enumerate()
            .find(|(_, (p, q))| p != q)
        {
            return format!("{at}, operand {k}:\n  {p:?}\n  {q:?}");
        }
    }
    format!(
        "{} vs {} instructions",
        a.instructions.len(),
        b.instructions.len()
    )
}

/// A mutation of a word stream.
#[derive(Clone, Debug)]
enum Mutation {
    FlipBit(usize, u32),
    SetWord(usize, u32),
    Insert(usize, u32),
    Delete(usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 0u32..32).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        2 => (any::<usize>(), prop_oneof![0u32..16, any::<u32>()]).prop_map(|(i, v)| Mutation::SetWord(i, v)),
        1 => (any::<usize>(), any::<u32>()).prop_map(|(i, v)| Mutation::Insert(i, v)),
        1 => any::<usize>().prop_map(Mutation::Delete),
        1 => any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(words: &mut Vec<u32>, m: &Mutation) {
    let n = words.len().max(1);
    match *m {
        Mutation::FlipBit(i, b) if !words.is_empty() => words[i % n] ^= 1 << b,
        Mutation::SetWord(i, v) if !words.is_empty() => words[i % n] = v,
        Mutation::Insert(i, v) => words.insert(i % (words.len() + 1), v),
        Mutation::Delete(i) if !words.is_empty() => {
            words.remove(i % n);
        }
        Mutation::Truncate(i) => words.truncate(i % n),
        _ => {}
    }
}

/// Decodes `bytes`; whatever decodes must encode to the same bytes, print
/// with both float options, and its exact listing must assemble.
fn check_decodes_canonically(bytes: &[u8]) -> Result<(), TestCaseError> {
    let Ok(p) = decode_program(bytes) else {
        return Ok(());
    };
    let again = encode_program(&p).map_err(|e| {
        TestCaseError::fail(format!("a decoded program does not encode: {e}\n{p:?}"))
    })?;
    prop_assert_eq!(words_to_bytes(&again), bytes, "decoded {:?}", p);
    let _ = print_program_with(&p, &PrintOptions::default());
    let text = print_program_with(&p, &EXACT);
    // property 2 over what the decoder makes of hostile bytes
    match (parse_program(&text), known_limitation(&p)) {
        (Ok((q, _)), None) => prop_assert!(
            q == p,
            "print → parse changed a decoded program: {}\nlisting:\n{}",
            first_difference(&p, &q),
            numbered(&text)
        ),
        (Err(d), None) => {
            return Err(TestCaseError::fail(format!(
                "the listing of a decoded program does not assemble:\n{}\n{}",
                numbered(&text),
                d.render("decoded.asm", &text)
            )));
        }
        // assembling never panics; what assembles encodes
        (Ok((q, _)), Some(_)) => prop_assert!(encode_program(&q).is_ok()),
        (Err(_), Some(_)) => {}
    }
    Ok(())
}

// ----- properties -----------------------------------------------------------

proptest! {
    #![proptest_config(config(CASES))]

    /// Property 1: encode → decode is the identity on the IR, and
    /// encode → decode → encode gives the same words.
    #[test]
    fn encode_then_decode_gives_the_same_program(p in program(false)) {
        let words = encode_program(&p)
            .map_err(|e| TestCaseError::fail(format!("the encoder refused a generated program: {e}")))?;
        let decoded = decode_program(&words_to_bytes(&words))
            .map_err(|e| TestCaseError::fail(format!("decode of encoded words failed: {e}\nwords {words:08x?}")))?;
        prop_assert!(decoded == p, "decode(encode(p)) != p: {}", first_difference(&p, &decoded));
        let again = encode_program(&decoded)
            .map_err(|e| TestCaseError::fail(format!("re-encoding failed: {e}")))?;
        prop_assert_eq!(again, words);
    }

    /// Property 2: the exact-float listing assembles back to the same IR.
    #[test]
    fn print_then_parse_gives_the_same_program(p in program(true), fxc10 in any::<bool>()) {
        prop_assert_eq!(known_limitation(&p), None);
        let options = PrintOptions {
            uppercase_constant_buffer_declarations: fxc10,
            exact_floats: true,
        };
        let text = print_program_with(&p, &options);
        let parsed = match parse_program(&text) {
            Ok((q, _)) => q,
            Err(d) => {
                return Err(TestCaseError::fail(format!(
                    "the listing does not assemble:\n{}\n{}",
                    numbered(&text),
                    d.render("generated.asm", &text)
                )));
            }
        };
        prop_assert!(
            parsed == p,
            "print → parse changed the program: {}\nlisting:\n{}",
            first_difference(&p, &parsed),
            numbered(&text)
        );
    }

    /// Property 3a: random bytes never panic the decoder; whatever decodes
    /// is canonical and prints.
    #[test]
    fn random_bytes_never_panic(
        head in prop_oneof![Just(None), (0u32..6, 0u32..0x60).prop_map(Some)],
        mut bytes in vec(any::<u8>(), 0..512),
    ) {
        // a plausible version and length token half of the time, so that
        // the instruction decoder is reached
        if let Some((kind, version)) = head {
            bytes.truncate(bytes.len() / 4 * 4);
            let mut out = words_to_bytes(&[(kind << 16) | version, (bytes.len() / 4 + 2) as u32]);
            out.append(&mut bytes);
            bytes = out;
        }
        check_decodes_canonically(&bytes)?;
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_program(&text);
    }

    /// Property 3b: mutated encodings of random programs never panic the
    /// decoder, and what decodes is canonical, prints and assembles.
    #[test]
    fn mutated_programs_never_panic(p in program(false), mutations in vec(mutation(), 1..4)) {
        let mut words = encode_program(&p).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for m in &mutations {
            mutate(&mut words, m);
        }
        check_decodes_canonically(&words_to_bytes(&words))?;
    }

    /// Property 3c: mutated listings never panic the assembler; what
    /// assembles encodes, and (outside the limitations) prints and parses
    /// back to the same IR.
    #[test]
    fn mutated_listings_never_panic(
        p in program(true),
        edits in vec((any::<usize>(), 0usize..8, "[ -~\n]{0,6}|[\\[\\](){},.|+-]|l\\(|[0-9]+|\\{[a-z]+=?"), 1..6),
    ) {
        let mut text = print_program_with(&p, &EXACT).into_bytes();
        for (at, delete, insert) in &edits {
            let at = at % (text.len() + 1);
            let end = (at + delete).min(text.len());
            text.splice(at..end, insert.bytes());
        }
        let text = String::from_utf8_lossy(&text);
        if let Ok((q, _)) = parse_program(&text) {
            prop_assert!(encode_program(&q).is_ok(), "assembled but does not encode:\n{}", text);
            // what the assembler makes of it is a program like any other
            if known_limitation(&q).is_none() {
                let again = print_program_with(&q, &EXACT);
                match parse_program(&again) {
                    Ok((r, _)) => prop_assert!(
                        r == q,
                        "print → parse changed an assembled program: {}\nassembled:\n{}\nprinted:\n{}",
                        first_difference(&q, &r),
                        numbered(&text),
                        numbered(&again)
                    ),
                    Err(d) => {
                        return Err(TestCaseError::fail(format!(
                            "an assembled program's listing does not assemble:\n{}\n{}",
                            numbered(&again),
                            d.render("again.asm", &again)
                        )));
                    }
                }
            }
        }
    }
}

// ----- coverage of the strategies ------------------------------------------

/// What a set of programs exercises.
#[derive(Default)]
struct Coverage {
    opcodes: BTreeSet<u32>,
    files: BTreeSet<u32>,
    index_forms: BTreeSet<&'static str>,
    components: BTreeSet<&'static str>,
    modifiers: BTreeSet<u32>,
    precisions: BTreeSet<u32>,
    flags: BTreeSet<&'static str>,
    /// shifts of the control fields drawn with a non-zero value
    controls: BTreeSet<u32>,
    floats: BTreeSet<&'static str>,
    extended: BTreeSet<&'static str>,
    payloads: BTreeSet<String>,
    custom: BTreeSet<u32>,
    versions: BTreeSet<(u32, u8, u8)>,
    max_depth: usize,
    trailing: bool,
}

impl Coverage {
    fn operand(&mut self, op: &Operand, depth: usize) {
        self.files.insert(op.file.number());
        self.max_depth = self.max_depth.max(depth);
        self.components.insert(match op.components {
            Components::None => "none",
            Components::One => "one",
            Components::Mask(_) => "mask",
            Components::Swizzle(_) => "swizzle",
            Components::Select(_) => "select",
        });
        self.modifiers.insert(op.modifier.number());
        match op.file {
            RegisterFile::Immediate32 => op.values.iter().for_each(|&v| self.f32(v)),
            RegisterFile::Immediate64 => op
                .values
                .chunks(2)
                .for_each(|p| self.f64(p[0] as u64 | (p[1] as u64) << 32)),
            _ => {}
        }
        self.precisions.insert(op.min_precision.number());
        if op.non_uniform {
            self.flags.insert("nonuniform");
        }
        if op.force_extended {
            self.flags.insert("empty extended operand");
        }
        if op.file.is_immediate() && !op.indices.is_empty() {
            self.flags.insert("immediate with indices");
        }
        self.index_forms.insert(match op.indices.len() {
            0 => "0-d",
            1 => "1-d",
            2 => "2-d",
            _ => "3-d",
        });
        for index in &op.indices {
            self.index_forms.insert(match index {
                Index::Imm32(_) => "imm32",
                Index::Imm64(_) => "imm64",
                Index::Relative(_) => "relative",
                Index::Imm32Relative(..) => "imm32+relative",
                Index::Imm64Relative(..) => "imm64+relative",
            });
            if let Some(r) = index.relative() {
                self.operand(r, depth + 1);
            }
        }
    }

    fn f32(&mut self, bits: u32) {
        let v = f32::from_bits(bits);
        self.floats.insert(match () {
            _ if v.is_nan() && bits & 0x003f_ffff != 0 => "f32 NaN with payload",
            _ if v.is_nan() => "f32 NaN",
            _ if v.is_infinite() => "f32 inf",
            _ if v.is_subnormal() => "f32 denormal",
            _ if bits == 0x8000_0000 => "f32 -0",
            _ => "f32",
        });
    }

    fn f64(&mut self, bits: u64) {
        let v = f64::from_bits(bits);
        self.floats.insert(match () {
            _ if v.is_nan() => "f64 NaN",
            _ if v.is_infinite() => "f64 inf",
            _ if v.is_subnormal() => "f64 denormal",
            _ if bits == 1 << 63 => "f64 -0",
            _ => "f64",
        });
    }

    fn program(&mut self, p: &Program) {
        let v = p.version;
        self.versions
            .insert((v.program_type.number(), v.major, v.minor));
        for inst in &p.instructions {
            self.opcodes.insert(inst.opcode.number());
            let flags = inst.opcode.info().flags;
            for f in CONTROL_FIELDS.iter().filter(|f| flags.contains(f.flag)) {
                if inst.controls.field(f.flag) != 0 {
                    self.controls.insert(f.flag.bits().trailing_zeros());
                }
            }
            for e in &inst.extended {
                self.extended.insert(match e {
                    ExtendedOpcode::SampleControls { .. } => "offsets",
                    ExtendedOpcode::ResourceDim { stride: 0, .. } => "dim",
                    ExtendedOpcode::ResourceDim { .. } => "dim+stride",
                    ExtendedOpcode::ResourceReturnType(_) => "return types",
                });
            }
            for op in &inst.operands {
                self.operand(op, 0);
            }
            let shape = format!("{:?}", inst.payload);
            let shape = shape
                .split(['(', ' ', '{'])
                .next()
                .unwrap_or("")
                .to_string();
            self.payloads.insert(shape);
            match &inst.payload {
                Payload::Float(bits) => self.f32(*bits),
                Payload::CustomData(CustomData::ImmediateConstantBuffer(values)) => {
                    values.iter().for_each(|&v| self.f32(v))
                }
                _ => {}
            }
            if let Payload::CustomData(d) = &inst.payload {
                self.custom.insert(d.class());
                if let CustomData::ShaderMessage(m) = d {
                    for op in &m.operands {
                        self.operand(op, 0);
                    }
                }
            }
            if !inst.trailing.is_empty() && inst.trailing != inst.fxc_trailing() {
                self.trailing = true;
            }
        }
    }
}

/// The strategies reach every opcode of the table, every control field (set
/// to a non-zero value), every register file, index representation and
/// dimension, component form, modifier, precision, the non-uniform bit,
/// empty extended operand tokens, indexed immediates, every class of float immediate, extended
/// opcode token, payload shape, custom-data kind, program type and shader
/// model (sampled with a fixed seed).
#[test]
fn strategies_reach_every_table_row_and_form() {
    let mut runner = TestRunner::deterministic();
    let mut cov = Coverage::default();
    for printable in [false, true] {
        let strategy = program(printable);
        for _ in 0..CASES {
            let p = strategy
                .new_tree(&mut runner)
                .expect("the program strategy draws")
                .current();
            cov.program(&p);
        }
    }
    let missing: Vec<&str> = OPCODES
        .iter()
        .filter(|i| {
            !i.flags.contains(OpFlags::RESERVED) && !cov.opcodes.contains(&i.opcode.number())
        })
        .map(|i| i.name)
        .collect();
    assert!(missing.is_empty(), "opcodes never drawn: {missing:?}");
    let files: Vec<&str> = RegisterFile::ALL
        .iter()
        .filter(|f| !cov.files.contains(&f.number()))
        .map(|f| f.name())
        .collect();
    assert!(files.is_empty(), "register files never drawn: {files:?}");
    assert_eq!(cov.index_forms.len(), 9, "{:?}", cov.index_forms);
    assert_eq!(cov.components.len(), 5, "{:?}", cov.components);
    assert_eq!(cov.modifiers.len(), OperandModifier::ALL.len());
    assert_eq!(cov.precisions.len(), MinPrecision::ALL.len());
    assert_eq!(cov.flags.len(), 3, "{:?}", cov.flags);
    let controls: Vec<OpFlags> = CONTROL_FIELDS
        .iter()
        .filter(|f| !cov.controls.contains(&f.flag.bits().trailing_zeros()))
        .map(|f| f.flag)
        .collect();
    assert!(
        controls.is_empty(),
        "control fields never set: {controls:?}"
    );
    assert_eq!(cov.floats.len(), 11, "{:?}", cov.floats);
    assert_eq!(cov.extended.len(), 4, "{:?}", cov.extended);
    assert!(
        cov.max_depth >= 2,
        "relative nesting reached {}",
        cov.max_depth
    );
    assert!(cov.trailing, "no non-fxc trailing dwords drawn");
    let kinds: BTreeSet<&str> = [
        "None",
        "ReturnTypes",
        "ConstantBuffer",
        "Space",
        "Structured",
        "Count",
        "Name",
        "IndexableTemp",
        "TgsmStructured",
        "FunctionTable",
        "Interface",
        "Float",
        "ThreadGroup",
        "CallSite",
        "CustomData",
    ]
    .into_iter()
    .collect();
    let drawn: BTreeSet<&str> = cov.payloads.iter().map(String::as_str).collect();
    assert_eq!(drawn, kinds);
    for class in [0, 1, 2, 3, 4, 5] {
        assert!(cov.custom.contains(&class), "custom data class {class}");
    }
    for &t in ProgramType::ALL {
        for (major, minor) in [(4, 0), (4, 1), (5, 0), (5, 1)] {
            let v = (t.number(), major, minor);
            assert!(cov.versions.contains(&v), "version {v:?} never drawn");
        }
    }
    assert!(
        cov.versions
            .iter()
            .any(|&(_, major, _)| !(4..=5).contains(&major)),
        "no version outside 4.x/5.x drawn"
    );
}
