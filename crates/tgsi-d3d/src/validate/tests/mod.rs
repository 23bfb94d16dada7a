//! One minimal program per check, built with the IR constructors, asserting
//! the message and where it points (synthetic spans: instruction `i` covers
//! bytes `100·i .. 100·i + 90`, its mnemonic the first 5 of them, its operand `k` bytes `100·i + 10 + 10·k ..
//! 100·i + 18 + 10·k`).
//!
//! This module holds the shared helpers (program builders, the synthetic
//! source map, `expect`/`expect_among`/`clean`); the tests live in one file
//! per subject:
//!
//! * `reporting` – clean programs of each stage and where diagnostics point;
//! * `layout` – sections, blocks, `switch` and subroutines;
//! * `declarations` – the declaration table and its limits;
//! * `availability` – shader models, stages, global flags, control fields;
//! * `operands` – value operands and the registers they name;
//! * `resources` – resource, sampler, label, stream and interface operands;
//! * `documented` – the constraints of single reference pages.

mod availability;
mod declarations;
mod documented;
mod layout;
mod operands;
mod reporting;
mod resources;

use super::*;
use crate::enums::{
    ConstantBufferAccess, GlobalFlags, InputPrimitive, Interpolation, PrimitiveTopology,
    ProgramType, ResourceDimension, ReturnType, SamplerMode, SyncFlags, SystemValue,
    TessellatorDomain, TessellatorOutputPrimitive, TessellatorPartitioning, Test,
};
use crate::ir::{
    CbAccessControl, Controls, CustomData, ExtendedOpcode, Instruction, InterpolationControl,
    Operand, Payload, ResourceDimensionControl, SamplerModeControl, TestControl, Version,
};
use crate::opcode::Opcode;
use crate::source_map::{InstructionSource, SourceKind};

// ---- building programs -------------------------------------------------

fn program(t: ProgramType, major: u8, minor: u8, instructions: Vec<Instruction>) -> Program {
    Program {
        version: Version {
            program_type: t,
            major,
            minor,
        },
        instructions,
    }
}

fn comps_mask(letters: &str) -> u8 {
    letters
        .chars()
        .fold(0, |m, c| m | 1 << "xyzw".find(c).expect("component letter"))
}

fn mask(letters: &str) -> Components {
    Components::Mask(comps_mask(letters))
}

/// `.x` is select-1; longer swizzles pad with their last letter like fxc.
fn swz(letters: &str) -> Components {
    let c: Vec<u8> = letters
        .chars()
        .map(|c| "xyzw".find(c).expect("component letter") as u8)
        .collect();
    if c.len() == 1 {
        return Components::Select(c[0]);
    }
    let last = *c.last().expect("letters");
    Components::Swizzle([
        c[0],
        *c.get(1).unwrap_or(&last),
        *c.get(2).unwrap_or(&last),
        *c.get(3).unwrap_or(&last),
    ])
}

fn reg(file: RegisterFile, idx: &[u32], c: Components) -> Operand {
    Operand::register(file, idx, c)
}
fn r(n: u32, m: &str) -> Operand {
    reg(RegisterFile::Temp, &[n], mask(m))
}
fn rs(n: u32, s: &str) -> Operand {
    reg(RegisterFile::Temp, &[n], swz(s))
}
fn o(n: u32, m: &str) -> Operand {
    reg(RegisterFile::Output, &[n], mask(m))
}
fn vs(n: u32, s: &str) -> Operand {
    reg(RegisterFile::Input, &[n], swz(s))
}
fn lit(values: &[u32]) -> Operand {
    Operand::imm32(values)
}
fn t(n: u32) -> Operand {
    reg(RegisterFile::Resource, &[n], swz("xyzw"))
}
fn s(n: u32) -> Operand {
    reg(RegisterFile::Sampler, &[n], Components::None)
}
fn u(n: u32, m: &str) -> Operand {
    reg(RegisterFile::UnorderedAccessView, &[n], mask(m))
}
fn null() -> Operand {
    reg(RegisterFile::Null, &[], Components::None)
}
fn neg(mut op: Operand) -> Operand {
    op.modifier = OperandModifier::Neg;
    op
}
fn abs(mut op: Operand) -> Operand {
    op.modifier = OperandModifier::Abs;
    op
}
fn rel(mut op: Operand, k: usize, base: u32, r: Operand) -> Operand {
    op.indices[k] = Index::Imm32Relative(base, Box::new(r));
    op
}

fn inst(opcode: Opcode, operands: Vec<Operand>) -> Instruction {
    Instruction::new(opcode, operands)
}
fn with_payload(mut i: Instruction, payload: Payload) -> Instruction {
    i.payload = payload;
    i
}
fn with_controls(mut i: Instruction, f: impl FnOnce(&mut Controls)) -> Instruction {
    f(&mut i.controls);
    i
}
fn mov(d: Operand, s: Operand) -> Instruction {
    inst(Opcode::Mov, vec![d, s])
}
fn ret() -> Instruction {
    inst(Opcode::Ret, vec![])
}
fn simple(opcode: Opcode) -> Instruction {
    inst(opcode, vec![])
}
fn cond(opcode: Opcode, c: Operand) -> Instruction {
    with_controls(inst(opcode, vec![c]), |c| {
        c.test = TestControl(Test::NonZero)
    })
}
fn case(n: u32) -> Instruction {
    inst(Opcode::Case, vec![lit(&[n])])
}
fn count(opcode: Opcode, n: u32) -> Instruction {
    with_payload(inst(opcode, vec![]), Payload::Count(n))
}
fn dcl_temps(n: u32) -> Instruction {
    count(Opcode::DclTemps, n)
}
fn dcl_output(n: u32, m: &str) -> Instruction {
    inst(Opcode::DclOutput, vec![o(n, m)])
}
fn dcl_input(op: Operand) -> Instruction {
    inst(Opcode::DclInput, vec![op])
}
fn dcl_input_ps(n: u32, m: &str, mode: Interpolation) -> Instruction {
    with_controls(
        inst(
            Opcode::DclInputPs,
            vec![reg(RegisterFile::Input, &[n], mask(m))],
        ),
        |c| c.interpolation = InterpolationControl(mode),
    )
}
fn dcl_cb(slot: u32, size: u32, dynamic: bool) -> Instruction {
    let i = inst(
        Opcode::DclConstantBuffer,
        vec![reg(
            RegisterFile::ConstantBuffer,
            &[slot, size],
            Components::XYZW,
        )],
    );
    with_payload(
        with_controls(i, |c| {
            if dynamic {
                c.cb_access = CbAccessControl(ConstantBufferAccess::DynamicIndexed)
            }
        }),
        Payload::ConstantBuffer(None),
    )
}
fn dcl_sampler(n: u32, mode: SamplerMode) -> Instruction {
    with_payload(
        with_controls(inst(Opcode::DclSampler, vec![s(n)]), |c| {
            c.sampler_mode = SamplerModeControl(mode)
        }),
        Payload::Space(None),
    )
}
fn dcl_resource(n: u32, dim: ResourceDimension) -> Instruction {
    let i = inst(
        Opcode::DclResource,
        vec![reg(RegisterFile::Resource, &[n], Components::None)],
    );
    with_payload(
        with_controls(i, |c| c.resource_dimension = ResourceDimensionControl(dim)),
        Payload::ReturnTypes {
            types: [ReturnType::Float; 4],
            space: None,
        },
    )
}
fn dcl_resource_raw(n: u32) -> Instruction {
    with_payload(
        inst(
            Opcode::DclResourceRaw,
            vec![reg(RegisterFile::Resource, &[n], Components::None)],
        ),
        Payload::Space(None),
    )
}
fn dcl_uav_typed(n: u32, dim: ResourceDimension) -> Instruction {
    let i = inst(
        Opcode::DclUavTyped,
        vec![reg(
            RegisterFile::UnorderedAccessView,
            &[n],
            Components::None,
        )],
    );
    with_payload(
        with_controls(i, |c| c.resource_dimension = ResourceDimensionControl(dim)),
        Payload::ReturnTypes {
            types: [ReturnType::Uint; 4],
            space: None,
        },
    )
}
fn dcl_uav_raw(n: u32) -> Instruction {
    with_payload(
        inst(
            Opcode::DclUavRaw,
            vec![reg(
                RegisterFile::UnorderedAccessView,
                &[n],
                Components::None,
            )],
        ),
        Payload::Space(None),
    )
}
fn dcl_uav_structured(n: u32, stride: u32) -> Instruction {
    with_payload(
        inst(
            Opcode::DclUavStructured,
            vec![reg(
                RegisterFile::UnorderedAccessView,
                &[n],
                Components::None,
            )],
        ),
        Payload::Structured {
            stride,
            space: None,
        },
    )
}
fn dcl_thread_group(x: u32, y: u32, z: u32) -> Instruction {
    with_payload(
        inst(Opcode::DclThreadGroup, vec![]),
        Payload::ThreadGroup([x, y, z]),
    )
}
fn dcl_flags(flags: GlobalFlags) -> Instruction {
    with_controls(inst(Opcode::DclGlobalFlags, vec![]), |c| {
        c.global_flags = flags
    })
}
fn hs_phase(opcode: Opcode) -> Instruction {
    simple(opcode)
}
fn dcl_icb(vectors: usize) -> Instruction {
    with_payload(
        simple(Opcode::CustomData),
        Payload::CustomData(CustomData::ImmediateConstantBuffer(vec![0; vectors * 4])),
    )
}

/// A pixel shader: `dcl_output o0.xyzw`, `dcl_temps 4`, the body, `ret`.
/// The body starts at instruction 2.
fn ps(body: Vec<Instruction>) -> Program {
    ps_decls(vec![], body)
}

/// Like [`ps`] with extra declarations after the two standard ones; the
/// body starts at instruction `2 + decls.len()`.
fn ps_decls(decls: Vec<Instruction>, body: Vec<Instruction>) -> Program {
    let mut all = vec![dcl_output(0, "xyzw"), dcl_temps(4)];
    all.extend(decls);
    all.extend(body);
    all.push(ret());
    program(ProgramType::Pixel, 5, 0, all)
}

/// A cs_5_0 with `dcl_thread_group 8, 8, 1`, `dcl_temps 4`, declarations,
/// body, `ret`.
fn cs(decls: Vec<Instruction>, body: Vec<Instruction>) -> Program {
    let mut all = vec![dcl_thread_group(8, 8, 1), dcl_temps(4)];
    all.extend(decls);
    all.extend(body);
    all.push(ret());
    program(ProgramType::Compute, 5, 0, all)
}

/// A geometry shader with its required declarations (4 instructions).
fn gs(decls: Vec<Instruction>, body: Vec<Instruction>) -> Program {
    let mut all = vec![
        with_controls(simple(Opcode::DclGsInputPrimitive), |c| {
            c.input_primitive.0 = InputPrimitive::Triangle
        }),
        with_controls(simple(Opcode::DclGsOutputPrimitiveTopology), |c| {
            c.output_topology.0 = PrimitiveTopology::TriangleStrip
        }),
        count(Opcode::DclMaxOutputVertexCount, 3),
        dcl_temps(2),
    ];
    all.extend(decls);
    all.extend(body);
    all.push(ret());
    program(ProgramType::Geometry, 5, 0, all)
}

/// The hull-shader global section (7 instructions, from `hs_decls`).
fn hs_head() -> Vec<Instruction> {
    vec![
        hs_phase(Opcode::HsDecls),
        with_controls(simple(Opcode::DclInputControlPointCount), |c| {
            c.control_point_count = 3
        }),
        with_controls(simple(Opcode::DclOutputControlPointCount), |c| {
            c.control_point_count = 3
        }),
        with_controls(simple(Opcode::DclTessDomain), |c| {
            c.tess_domain.0 = TessellatorDomain::Triangle
        }),
        with_controls(simple(Opcode::DclTessPartitioning), |c| {
            c.tess_partitioning.0 = TessellatorPartitioning::Integer
        }),
        with_controls(simple(Opcode::DclTessOutputPrimitive), |c| {
            c.tess_output_primitive.0 = TessellatorOutputPrimitive::TriangleCw
        }),
        with_payload(
            simple(Opcode::DclHsMaxTessFactor),
            Payload::Float(64.0f32.to_bits()),
        ),
    ]
}

fn hs(rest: Vec<Instruction>) -> Program {
    let mut all = hs_head();
    all.extend(rest);
    program(ProgramType::Hull, 5, 0, all)
}

// ---- checking ------------------------------------------------------------

/// Where a diagnostic should point.
#[derive(Clone, Copy, Debug)]
enum At {
    Prog,
    Inst(usize),
    /// the mnemonic
    Mn(usize),
    Op(usize, usize),
}

fn span_of(at: At) -> Span {
    match at {
        At::Prog => Span::new(0, 6),
        At::Inst(i) => Span::new(100 * i + 100, 100 * i + 190),
        At::Mn(i) => Span::new(100 * i + 100, 100 * i + 105),
        At::Op(i, k) => Span::new(100 * i + 110 + 10 * k, 100 * i + 118 + 10 * k),
    }
}

/// A text source map with the synthetic spans.
fn map_for(p: &Program) -> SourceMap {
    SourceMap {
        kind: SourceKind::Text,
        version: span_of(At::Prog),
        instructions: (0..p.instructions.len())
            .map(|i| InstructionSource {
                span: span_of(At::Inst(i)),
                mnemonic: span_of(At::Mn(i)),
                operands: (0..p.instructions[i].operands.len())
                    .map(|k| span_of(At::Op(i, k)))
                    .collect(),
            })
            .collect(),
    }
}

fn diagnostics(p: &Program) -> Vec<Diagnostic> {
    validate(p, Some(&map_for(p))).0
}

fn listing(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| format!("  {} @{:?}", d.message, d.primary.as_ref().map(|p| p.span)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Exactly one diagnostic: an error whose message contains `needle`,
/// pointing at `at`.
#[track_caller]
fn expect(p: &Program, needle: &str, at: At) -> Diagnostic {
    let diags = diagnostics(p);
    assert_eq!(
        diags.len(),
        1,
        "expected one diagnostic containing {needle:?}, found:\n{}",
        listing(&diags)
    );
    let d = diags.into_iter().next().expect("one");
    assert!(d.is_error());
    assert!(
        d.message.contains(needle),
        "expected {needle:?} in {:?}",
        d.message
    );
    assert_eq!(
        d.primary.as_ref().map(|p| p.span),
        Some(span_of(at)),
        "{}",
        d.message
    );
    d
}

/// Some diagnostic contains `needle` and points at `at` (others may exist).
#[track_caller]
fn expect_among(p: &Program, needle: &str, at: At) {
    let diags = diagnostics(p);
    assert!(
        diags.iter().any(|d| d.message.contains(needle)
            && d.primary.as_ref().map(|p| p.span) == Some(span_of(at))),
        "expected {needle:?} at {at:?}, found:\n{}",
        listing(&diags)
    );
}

#[track_caller]
fn clean(p: &Program) {
    let diags = diagnostics(p);
    assert!(
        diags.is_empty(),
        "expected no diagnostics, found:\n{}",
        listing(&diags)
    );
}
