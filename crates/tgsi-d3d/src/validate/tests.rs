//! One minimal program per check, built with the IR constructors, asserting
//! the message and where it points (synthetic spans: instruction `i` covers
//! bytes `100·i .. 100·i + 90`, its mnemonic the first 5 of them, its operand `k` bytes `100·i + 10 + 10·k ..
//! 100·i + 18 + 10·k`).

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

// ---- valid programs -------------------------------------------------------

#[test]
fn well_formed_programs_of_each_stage_are_clean() {
    clean(&ps(vec![mov(o(0, "xyzw"), lit(&[0, 0, 0, 0]))]));
    clean(&cs(
        vec![dcl_uav_raw(0)],
        vec![inst(
            Opcode::StoreRaw,
            vec![u(0, "xy"), lit(&[0]), rs(0, "xyxx")],
        )],
    ));
    clean(&gs(vec![], vec![simple(Opcode::Emit), simple(Opcode::Cut)]));
    let mut fork = vec![
        hs_phase(Opcode::HsForkPhase),
        dcl_input(reg(
            RegisterFile::InputForkInstanceId,
            &[],
            Components::None,
        )),
    ];
    fork.push(with_payload(
        inst(Opcode::DclOutputSiv, vec![o(0, "x")]),
        Payload::Name(SystemValue::FinalTriUeq0EdgeTessFactor),
    ));
    fork.push(dcl_temps(1));
    fork.push(mov(
        r(0, "x"),
        reg(
            RegisterFile::InputForkInstanceId,
            &[],
            Components::Select(0),
        ),
    ));
    fork.push(mov(o(0, "x"), lit(&[0])));
    fork.push(ret());
    clean(&hs(fork));
}

#[test]
fn without_a_source_map_messages_name_the_instruction() {
    let p = ps(vec![mov(r(9, "x"), lit(&[0]))]);
    let diags = validate(&p, None).0;
    assert_eq!(diags.len(), 1);
    assert!(diags[0].primary.is_none());
    assert!(
        diags[0]
            .message
            .starts_with("instruction 2 (`mov`), operand 0: `r9` is out of range"),
        "{}",
        diags[0].message
    );
}

#[test]
fn binary_source_maps_point_at_the_instruction_tokens() {
    // ps_5_0: dcl_temps 1; mov r1.x, l(0); ret — `r1` is out of range
    let words: [u32; 10] = [
        0x50,
        10,
        0x0200_0068,
        1,
        0x0500_0036,
        0x0010_0012,
        1,
        0x0000_4001,
        0,
        0x0100_003e,
    ];
    let bytes = crate::blob::le_bytes(&words);
    let p = crate::decode_program(&bytes).expect("decodes");
    let map = SourceMap::from_payload(&bytes, 0x40);
    let diags = validate(&p, Some(&map)).0;
    assert_eq!(diags.len(), 1, "{}", listing(&diags));
    // the `mov` is dwords 4..9 of the payload
    assert_eq!(
        diags[0].primary.as_ref().map(|p| p.span),
        Some(Span::new(0x40 + 16, 0x40 + 36))
    );
}

#[test]
fn operand_text_spells_operands_like_a_listing() {
    assert_eq!(operand_text(&neg(rs(0, "xy"))), "-r0.xyyy");
    assert_eq!(operand_text(&abs(rs(1, "z"))), "|r1.z|");
    assert_eq!(
        operand_text(&reg(RegisterFile::ConstantBuffer, &[0, 3], swz("x"))),
        "cb0[3].x"
    );
    let v = rel(
        reg(RegisterFile::Input, &[0, 2], swz("xyzw")),
        0,
        0,
        rs(1, "x"),
    );
    assert_eq!(operand_text(&v), "v[r1.x + 0][2].xyzw");
    assert_eq!(
        operand_text(&reg(RegisterFile::ImmediateConstantBuffer, &[4], swz("x"))),
        "icb[4].x"
    );
}

// ---- layout ----------------------------------------------------------------

#[test]
fn declarations_come_before_the_first_instruction() {
    let p = ps(vec![mov(r(0, "x"), lit(&[0])), dcl_output(1, "x")]);
    let d = expect(
        &p,
        "declaration `dcl_output` after the first instruction of the program",
        At::Inst(3),
    );
    assert_eq!(d.secondary[0].span, span_of(At::Inst(2)));
}

#[test]
fn hull_shaders_start_with_hs_decls_and_order_their_phases() {
    let mut all = hs_head();
    all.remove(0);
    expect(
        &program(ProgramType::Hull, 5, 0, all),
        "a hull shader starts with `hs_decls`",
        At::Inst(0),
    );

    let p = hs(vec![
        hs_phase(Opcode::HsJoinPhase),
        ret(),
        hs_phase(Opcode::HsForkPhase),
        ret(),
    ]);
    expect(&p, "`hs_fork_phase` after a join phase", At::Inst(9));
    let p = hs(vec![
        hs_phase(Opcode::HsForkPhase),
        ret(),
        hs_phase(Opcode::HsControlPointPhase),
        ret(),
    ]);
    expect(
        &p,
        "`hs_control_point_phase` after a fork or join phase",
        At::Inst(9),
    );
    let p = hs(vec![
        hs_phase(Opcode::HsControlPointPhase),
        ret(),
        hs_phase(Opcode::HsControlPointPhase),
        ret(),
    ]);
    expect(&p, "`hs_control_point_phase` appears twice", At::Inst(9));
    let p = hs(vec![ret()]);
    expect(&p, "`ret` in the `hs_decls` section", At::Inst(7));
}

#[test]
fn hull_shader_phases_have_their_own_declaration_sections() {
    // a dcl_temps after code in the first phase is an error; in the next phase it is not
    let p = hs(vec![
        hs_phase(Opcode::HsForkPhase),
        ret(),
        dcl_temps(1),
        hs_phase(Opcode::HsForkPhase),
        dcl_temps(1),
        mov(r(0, "x"), lit(&[0])),
        ret(),
    ]);
    expect(
        &p,
        "declaration `dcl_temps` after the first instruction of the hs_fork_phase",
        At::Inst(9),
    );
    // temps of one phase do not reach the next
    let p = hs(vec![
        hs_phase(Opcode::HsForkPhase),
        dcl_temps(1),
        ret(),
        hs_phase(Opcode::HsForkPhase),
        mov(r(0, "x"), lit(&[0])),
        ret(),
    ]);
    expect(&p, "no `dcl_temps`", At::Op(11, 0));
}

#[test]
fn blocks_must_be_closed_and_matched() {
    let c = || cond(Opcode::If, rs(0, "x"));
    expect(
        &ps(vec![c()]),
        "`if` is not closed: expected `endif` before the end of the program",
        At::Inst(2),
    );
    expect(
        &ps(vec![simple(Opcode::EndIf)]),
        "`endif` without an open `if`",
        At::Inst(2),
    );
    expect(
        &ps(vec![simple(Opcode::Else)]),
        "`else` without an open `if`",
        At::Inst(2),
    );
    let p = ps(vec![
        c(),
        simple(Opcode::Else),
        simple(Opcode::Else),
        simple(Opcode::EndIf),
    ]);
    expect(&p, "second `else` for one `if`", At::Inst(4));
    let p = ps(vec![simple(Opcode::Loop), c(), simple(Opcode::EndLoop)]);
    expect(&p, "`if` is not closed before the `endloop`", At::Inst(3));
    clean(&ps(vec![
        simple(Opcode::Loop),
        c(),
        simple(Opcode::Break),
        simple(Opcode::EndIf),
        simple(Opcode::EndLoop),
    ]));
}

#[test]
fn switch_labels_stand_directly_inside_a_switch() {
    let sw = || inst(Opcode::Switch, vec![rs(0, "x")]);
    expect(&ps(vec![case(1)]), "`case` outside a `switch`", At::Inst(2));
    let p = ps(vec![
        sw(),
        mov(r(0, "x"), lit(&[0])),
        case(1),
        simple(Opcode::Break),
        simple(Opcode::EndSwitch),
    ]);
    expect(
        &p,
        "`mov` stands in a `switch` before its first `case`",
        At::Inst(3),
    );
    let p = ps(vec![
        sw(),
        case(1),
        cond(Opcode::If, rs(0, "y")),
        case(2),
        simple(Opcode::EndIf),
        simple(Opcode::EndSwitch),
    ]);
    expect_among(
        &p,
        "`case` must stand directly inside a `switch`, but a `if` is open",
        At::Inst(5),
    );
}

#[test]
fn switch_cases_fall_through_only_from_empty_labels() {
    let sw = || inst(Opcode::Switch, vec![rs(0, "x")]);
    // two empty labels share code: fine
    let shared = vec![
        sw(),
        case(1),
        simple(Opcode::Default),
        mov(r(0, "x"), lit(&[0])),
        simple(Opcode::Break),
        simple(Opcode::EndSwitch),
    ];
    clean(&ps(shared));
    // code without break falls into `case 2`
    let p = ps(vec![
        sw(),
        case(1),
        mov(r(0, "x"), lit(&[0])),
        case(2),
        simple(Opcode::Break),
        simple(Opcode::EndSwitch),
    ]);
    let d = expect(&p, "code falls through into `case`", At::Inst(5));
    assert!(d.notes[0].contains("only empty labels share code"));
}

/// Whether a case's code reaches the next label is a question of
/// reachability: each body below ends in a shape fxc emits and is
/// accepted; each `case 2` is preceded by a body of `body` then the label.
#[test]
fn switch_fall_through_is_decided_by_reachability() {
    let sw = || inst(Opcode::Switch, vec![rs(0, "x")]);
    let run = |body: Vec<Instruction>| {
        let mut all = vec![sw(), case(1)];
        all.extend(body);
        all.extend([case(2), simple(Opcode::Break), simple(Opcode::EndSwitch)]);
        ps(all)
    };
    let brk = || simple(Opcode::Break);
    let mov0 = || mov(r(0, "x"), lit(&[0]));
    let accepted: Vec<(&str, Vec<Instruction>)> = vec![
        ("ret", vec![mov0(), ret()]),
        ("retc", vec![mov0(), cond(Opcode::Retc, rs(0, "y"))]),
        ("breakc", vec![cond(Opcode::Breakc, rs(0, "y"))]),
        ("discard", vec![cond(Opcode::Discard, rs(0, "y"))]),
        (
            "both arms of an if break",
            vec![
                cond(Opcode::If, rs(0, "y")),
                mov0(),
                brk(),
                simple(Opcode::Else),
                brk(),
                simple(Opcode::EndIf),
            ],
        ),
        (
            "one arm of an if breaks",
            vec![cond(Opcode::If, rs(0, "y")), brk(), simple(Opcode::EndIf)],
        ),
        (
            "a loop that never exits",
            vec![simple(Opcode::Loop), mov0(), simple(Opcode::EndLoop)],
        ),
        (
            "a nested switch, then break",
            vec![
                sw(),
                case(7),
                brk(),
                simple(Opcode::Default),
                mov0(),
                brk(),
                simple(Opcode::EndSwitch),
                brk(),
            ],
        ),
        (
            "a loop whose break is inside a nested switch",
            vec![
                simple(Opcode::Loop),
                sw(),
                simple(Opcode::Default),
                brk(),
                simple(Opcode::EndSwitch),
                simple(Opcode::EndLoop),
            ],
        ),
    ];
    for (_what, body) in accepted {
        clean(&run(body));
    }
    let refused: Vec<(&str, Vec<Instruction>)> = vec![
        (
            "an if whose arms fall through",
            vec![
                cond(Opcode::If, rs(0, "y")),
                brk(),
                simple(Opcode::EndIf),
                mov0(),
            ],
        ),
        (
            "a loop that breaks",
            vec![simple(Opcode::Loop), brk(), simple(Opcode::EndLoop)],
        ),
        (
            "a nested switch",
            vec![
                sw(),
                simple(Opcode::Default),
                brk(),
                simple(Opcode::EndSwitch),
            ],
        ),
        (
            "if/else with one arm of plain code",
            vec![
                cond(Opcode::If, rs(0, "y")),
                mov0(),
                simple(Opcode::Else),
                mov0(),
                simple(Opcode::EndIf),
            ],
        ),
    ];
    for (what, body) in refused {
        let n = body.len() + 4;
        let p = run(body);
        let d = expect(&p, "code falls through into `case`", At::Inst(n));
        assert!(!d.message.is_empty(), "{what}");
    }
}

#[test]
fn switch_labels_are_unique() {
    let sw = || inst(Opcode::Switch, vec![rs(0, "x")]);
    let p = ps(vec![
        sw(),
        case(1),
        simple(Opcode::Break),
        case(1),
        simple(Opcode::Break),
        simple(Opcode::EndSwitch),
    ]);
    let d = expect(&p, "a second `case 1` in one `switch`", At::Inst(5));
    assert_eq!(d.secondary[0].span, span_of(At::Inst(3)));
    let p = ps(vec![
        sw(),
        simple(Opcode::Default),
        simple(Opcode::Break),
        simple(Opcode::Default),
        simple(Opcode::Break),
        simple(Opcode::EndSwitch),
    ]);
    expect(&p, "a second `default` in one `switch`", At::Inst(5));
}

#[test]
fn break_and_continue_need_a_loop_or_switch() {
    expect(
        &ps(vec![simple(Opcode::Break)]),
        "`break` outside a `loop` or `switch`",
        At::Inst(2),
    );
    expect(
        &ps(vec![cond(Opcode::Breakc, rs(0, "x"))]),
        "`breakc` outside a `loop` or `switch`",
        At::Inst(2),
    );
    let p = ps(vec![
        inst(Opcode::Switch, vec![rs(0, "x")]),
        case(0),
        simple(Opcode::Continue),
        simple(Opcode::EndSwitch),
    ]);
    expect(&p, "`continue` outside a `loop`", At::Inst(4));
    clean(&ps(vec![
        simple(Opcode::Loop),
        cond(Opcode::Continuec, rs(0, "x")),
        simple(Opcode::Break),
        simple(Opcode::EndLoop),
    ]));
}

#[test]
fn blocks_nest_at_most_64_deep() {
    let mut body = vec![simple(Opcode::Loop); 65];
    body.push(simple(Opcode::Break));
    body.extend(vec![simple(Opcode::EndLoop); 65]);
    expect(&ps(body), "blocks nest 65 deep; at most 64", At::Inst(66));
    let mut body = vec![simple(Opcode::Loop); 64];
    body.push(simple(Opcode::Break));
    body.extend(vec![simple(Opcode::EndLoop); 64]);
    clean(&ps(body));
}

#[test]
fn subroutines_are_labelled_called_and_separated_by_ret() {
    let label = |n: u32| {
        inst(
            Opcode::Label,
            vec![reg(RegisterFile::Label, &[n], Components::None)],
        )
    };
    let call = |n: u32| {
        inst(
            Opcode::Call,
            vec![reg(RegisterFile::Label, &[n], Components::None)],
        )
    };
    clean(&ps(vec![call(0), ret(), label(0)]));
    expect(
        &ps(vec![call(1), ret(), label(0)]),
        "`call` calls `l1`, which no `label` defines",
        At::Op(2, 0),
    );
    let p = ps(vec![call(0), ret(), label(0), ret(), label(0)]);
    expect(&p, "label `l0` is defined twice", At::Op(6, 0));
    let p = ps(vec![mov(r(0, "x"), lit(&[0])), label(0)]);
    expect(
        &p,
        "`mov` is followed by a `label`: a label stands directly after a `ret`",
        At::Inst(2),
    );
    let p = ps(vec![
        simple(Opcode::Loop),
        ret(),
        label(0),
        simple(Opcode::EndLoop),
    ]);
    expect_among(
        &p,
        "`loop` is not closed: expected `endloop` before the `label`",
        At::Inst(2),
    );
}

// ---- declarations -------------------------------------------------------------

#[test]
fn temps_are_declared_once_and_within_limits() {
    let d = expect(
        &ps_decls(vec![dcl_temps(1)], vec![]),
        "`dcl_temps` appears twice in one section",
        At::Inst(2),
    );
    assert_eq!(d.secondary[0].span, span_of(At::Inst(1)));
    let p = program(ProgramType::Pixel, 5, 0, vec![dcl_temps(5000), ret()]);
    expect(
        &p,
        "`dcl_temps 5000` exceeds the limit of 4096",
        At::Inst(0),
    );
}

#[test]
fn indexable_temps_have_one_to_four_components_and_share_the_temp_limit() {
    let x = |reg: u32, count: u32, components: u32| {
        with_payload(
            simple(Opcode::DclIndexableTemp),
            Payload::IndexableTemp {
                register: reg,
                count,
                components,
            },
        )
    };
    expect(
        &ps_decls(vec![x(0, 4, 5)], vec![]),
        "`x0` has 5 components; expected 1 to 4",
        At::Inst(2),
    );
    expect(
        &ps_decls(vec![x(0, 4, 4), x(0, 2, 4)], vec![]),
        "`x0` is declared twice",
        At::Inst(3),
    );
    expect(
        &ps_decls(vec![x(0, 4093, 4)], vec![]),
        "4097 temporary registers (`r#` and `x#`) in one section exceed",
        At::Inst(0),
    );
}

#[test]
fn constant_buffers_fit_the_slots_and_size() {
    expect(
        &ps_decls(vec![dcl_cb(14, 1, false)], vec![]),
        "`cb14` is out of range: the slots are cb0 to cb13",
        At::Op(2, 0),
    );
    expect(
        &ps_decls(vec![dcl_cb(0, 5000, false)], vec![]),
        "5000 vectors exceeds the limit of 4096",
        At::Op(2, 0),
    );
    expect(
        &ps_decls(vec![dcl_cb(0, 1, false), dcl_cb(0, 2, false)], vec![]),
        "`cb0` is declared twice",
        At::Op(3, 0),
    );
}

#[test]
fn samplers_fit_the_slots_and_mono_belongs_to_pixel_shaders() {
    expect(
        &ps_decls(vec![dcl_sampler(16, SamplerMode::Default)], vec![]),
        "sampler `s16` is out of range",
        At::Op(2, 0),
    );
    let p = program(
        ProgramType::Vertex,
        5,
        0,
        vec![dcl_sampler(0, SamplerMode::Mono), ret()],
    );
    expect(
        &p,
        "`mode_mono` samplers exist only in pixel shaders, not in a vertex shader",
        At::Inst(0),
    );
}

#[test]
fn resources_have_a_valid_dimension_slot_and_sample_count() {
    expect(
        &ps_decls(
            vec![dcl_resource(128, ResourceDimension::Texture2D)],
            vec![],
        ),
        "`t128` is out of range",
        At::Op(2, 0),
    );
    expect(
        &ps_decls(vec![dcl_resource(0, ResourceDimension::RawBuffer)], vec![]),
        "dimension `raw_buffer`",
        At::Inst(2),
    );
    let p = ps_decls(
        vec![with_controls(
            dcl_resource(0, ResourceDimension::Texture2D),
            |c| c.sample_count = 4,
        )],
        vec![],
    );
    expect(
        &p,
        "a sample count (4) on a `texture2d` resource",
        At::Inst(2),
    );
    let p = program(
        ProgramType::Pixel,
        4,
        0,
        vec![dcl_resource(0, ResourceDimension::TextureCubeArray), ret()],
    );
    expect(&p, "cube-map arrays need shader model 4.1", At::Inst(0));
    expect(
        &ps_decls(vec![dcl_resource_raw(0), dcl_resource_raw(0)], vec![]),
        "`t0` is declared twice",
        At::Op(3, 0),
    );
}

#[test]
fn structure_strides_are_multiples_of_four_up_to_2048() {
    expect(
        &cs(vec![dcl_uav_structured(0, 6)], vec![]),
        "structure stride 6",
        At::Inst(2),
    );
    expect(
        &cs(vec![dcl_uav_structured(0, 4096)], vec![]),
        "structure stride 4096",
        At::Inst(2),
    );
}

#[test]
fn uavs_fit_the_slots_and_dimensions() {
    expect(
        &cs(vec![dcl_uav_raw(64)], vec![]),
        "UAV `u64` is out of range",
        At::Op(2, 0),
    );
    expect(
        &cs(
            vec![dcl_uav_typed(0, ResourceDimension::TextureCube)],
            vec![],
        ),
        "a typed UAV is a buffer or a 1D, 2D or 3D",
        At::Inst(2),
    );
    let p = program(
        ProgramType::Compute,
        4,
        0,
        vec![
            dcl_thread_group(8, 8, 1),
            dcl_uav_raw(0),
            dcl_uav_raw(1),
            ret(),
        ],
    );
    expect(&p, "a second UAV in a `cs_4_x` shader", At::Inst(2));
}

#[test]
fn shared_memory_fits_32k_or_16k_on_cs_4_x() {
    let tgsm_raw = |n: u32, bytes: u32| {
        with_payload(
            inst(
                Opcode::DclTgsmRaw,
                vec![reg(
                    RegisterFile::ThreadGroupSharedMemory,
                    &[n],
                    Components::None,
                )],
            ),
            Payload::Count(bytes),
        )
    };
    let d = expect(
        &cs(vec![tgsm_raw(0, 16384), tgsm_raw(1, 16388)], vec![]),
        "shared memory totals 32772 bytes, over the limit of 32768",
        At::Inst(3),
    );
    assert!(d.is_error());
    let p = program(
        ProgramType::Compute,
        4,
        0,
        vec![dcl_thread_group(8, 8, 1), tgsm_raw(0, 16388), ret()],
    );
    expect(&p, "over the limit of 16384", At::Inst(1));
    expect(
        &cs(vec![tgsm_raw(0, 6)], vec![]),
        "shared memory of 6 bytes",
        At::Inst(2),
    );
}

#[test]
fn thread_groups_fit_the_model_limits() {
    let cs_with = |major: u8, size: [u32; 3]| {
        program(
            ProgramType::Compute,
            major,
            0,
            vec![dcl_thread_group(size[0], size[1], size[2]), ret()],
        )
    };
    expect(
        &cs_with(5, [32, 32, 2]),
        "thread group 32×32×2 (2048 threads) exceeds the cs_5_0 limits",
        At::Inst(0),
    );
    expect(&cs_with(5, [1, 1, 65]), "z ≤ 64", At::Inst(0));
    expect(
        &cs_with(4, [8, 8, 2]),
        "exceeds the cs_4_x limits: x and y ≤ 768, z ≤ 1",
        At::Inst(0),
    );
    expect(&cs_with(4, [769, 1, 1]), "cs_4_x limits", At::Inst(0));
    expect(
        &cs_with(5, [0, 1, 1]),
        "has an empty dimension",
        At::Inst(0),
    );
    clean(&cs_with(4, [768, 1, 1]));
    clean(&cs_with(5, [1024, 1, 1]));
    // Found by the d3d_decode fuzzer: the total of three u32 sizes must not
    // overflow.
    expect(
        &cs_with(5, [u32::MAX, u32::MAX, u32::MAX]),
        "exceeds the cs_5_0 limits",
        At::Inst(0),
    );
    let p = program(ProgramType::Compute, 5, 0, vec![ret()]);
    expect(
        &p,
        "a compute shader must declare its thread-group size (`dcl_thread_group`)",
        At::Prog,
    );
}

#[test]
fn geometry_shaders_declare_topology_and_limits() {
    let p = program(ProgramType::Geometry, 5, 0, vec![ret()]);
    let diags = diagnostics(&p);
    assert_eq!(diags.len(), 3, "{}", listing(&diags));
    assert!(
        diags
            .iter()
            .all(|d| d.primary.as_ref().map(|p| p.span) == Some(span_of(At::Prog)))
    );
    assert!(
        diags[0]
            .message
            .contains("must declare its input primitive (`dcl_inputprimitive`)")
    );
    let mut p = gs(vec![], vec![]);
    p.instructions[2] = count(Opcode::DclMaxOutputVertexCount, 1025);
    expect(
        &p,
        "`dcl_maxout 1025` exceeds the limit of 1024",
        At::Inst(2),
    );
    expect(
        &gs(vec![count(Opcode::DclGsInstanceCount, 33)], vec![]),
        "`dcl_gsinstances 33`: expected 1 to 32",
        At::Inst(4),
    );
    let mut p = gs(vec![], vec![]);
    p.instructions[1].controls.output_topology.0 = PrimitiveTopology::TriangleList;
    expect(
        &p,
        "`dcl_outputtopology trianglelist`: expected pointlist, linestrip or trianglestrip",
        At::Inst(1),
    );
    let stream = |m: u32| {
        inst(
            Opcode::DclStream,
            vec![reg(RegisterFile::Stream, &[m], Components::None)],
        )
    };
    expect(
        &gs(vec![stream(4)], vec![]),
        "stream `m4` is out of range",
        At::Op(4, 0),
    );
}

#[test]
fn hull_shader_declarations_fit_their_ranges_and_phases() {
    let mut p = hs(vec![]);
    p.instructions[1].controls.control_point_count = 33;
    expect(
        &p,
        "`dcl_input_control_point_count 33`: expected 1 to 32",
        At::Inst(1),
    );
    let mut p = hs(vec![]);
    p.instructions[6].payload = Payload::Float(65.0f32.to_bits());
    expect(
        &p,
        "`dcl_hs_max_tessfactor` 65: expected 1.0 to 64.0",
        At::Inst(6),
    );
    let p = hs(vec![
        hs_phase(Opcode::HsJoinPhase),
        count(Opcode::DclHsForkPhaseInstanceCount, 2),
        ret(),
    ]);
    expect(
        &p,
        "`dcl_hs_fork_phase_instance_count` outside an `hs_fork_phase`",
        At::Inst(8),
    );
    let mut all = hs_head();
    all.remove(3);
    let p = program(ProgramType::Hull, 5, 0, all);
    expect(
        &p,
        "a hull shader must declare its tessellator domain",
        At::Prog,
    );
}

#[test]
fn inputs_and_outputs_are_declared_in_their_stage_and_range() {
    let p = program(ProgramType::Pixel, 5, 0, vec![dcl_output(8, "xyzw"), ret()]);
    expect(
        &p,
        "`o8` is out of range: a pixel shader has 8 of them",
        At::Op(0, 0),
    );
    let p = program(
        ProgramType::Vertex,
        5,
        0,
        vec![dcl_input(reg(RegisterFile::Input, &[32], mask("x"))), ret()],
    );
    expect(&p, "`v32` is out of range", At::Op(0, 0));
    let p = program(ProgramType::Pixel, 5, 0, vec![dcl_input(o(0, "x")), ret()]);
    expect(
        &p,
        "`dcl_input` declares `o`, which is not an input register",
        At::Op(0, 0),
    );
    let p = program(
        ProgramType::Pixel,
        5,
        0,
        vec![
            dcl_input(reg(RegisterFile::InputThreadId, &[], mask("xyz"))),
            ret(),
        ],
    );
    expect(
        &p,
        "a pixel shader has no `vThreadID` register",
        At::Op(0, 0),
    );
    expect(
        &ps_decls(vec![dcl_output(0, "x")], vec![]),
        "`o0.x` is declared twice in one section",
        At::Op(2, 0),
    );
    let p = ps_decls(
        vec![dcl_input_ps(0, "xy", Interpolation::Undefined)],
        vec![],
    );
    expect(
        &p,
        "a pixel-shader input without an interpolation mode",
        At::Inst(2),
    );
    let p = program(
        ProgramType::Pixel,
        4,
        0,
        vec![dcl_input_ps(0, "xy", Interpolation::LinearSample), ret()],
    );
    expect(
        &p,
        "`linear sample` interpolation needs shader model 4.1",
        At::Inst(0),
    );
}

#[test]
fn global_flags_are_declared_once_for_their_stage_and_model() {
    let p = ps_decls(
        vec![
            dcl_flags(GlobalFlags::REFACTORING_ALLOWED),
            dcl_flags(GlobalFlags::REFACTORING_ALLOWED),
        ],
        vec![],
    );
    expect(&p, "`dcl_globalFlags` appears twice", At::Inst(3));
    let p = program(
        ProgramType::Vertex,
        5,
        0,
        vec![dcl_flags(GlobalFlags::FORCE_EARLY_DEPTH_STENCIL), ret()],
    );
    expect(
        &p,
        "`forceEarlyDepthStencil` applies to pixel shaders, not to a vertex shader",
        At::Inst(0),
    );
    let p = program(
        ProgramType::Pixel,
        4,
        0,
        vec![
            dcl_flags(GlobalFlags::ENABLE_DOUBLE_PRECISION_FLOAT_OPS),
            ret(),
        ],
    );
    expect(&p, "global flags of shader model 5", At::Inst(0));
}

#[test]
fn index_ranges_cover_input_or_output_registers() {
    let range = |op: Operand, n: u32| {
        with_payload(inst(Opcode::DclIndexRange, vec![op]), Payload::Count(n))
    };
    expect(
        &ps_decls(vec![range(o(0, "xyzw"), 0)], vec![]),
        "`dcl_indexrange` of 0 registers",
        At::Inst(2),
    );
    expect(
        &ps_decls(vec![range(o(30, "xyzw"), 4)], vec![]),
        "index range `o30` + 4 ends past register 31",
        At::Inst(2),
    );
    expect(
        &ps_decls(vec![range(r(0, "x"), 2)], vec![]),
        "`dcl_indexrange` on `r`",
        At::Op(2, 0),
    );
}

#[test]
fn one_immediate_constant_buffer_of_at_most_4096_vectors() {
    expect(
        &ps_decls(vec![dcl_icb(2), dcl_icb(2)], vec![]),
        "a second immediate constant buffer",
        At::Inst(3),
    );
    expect(
        &ps_decls(vec![dcl_icb(4097)], vec![]),
        "4097 vectors exceeds the limit of 4096",
        At::Inst(2),
    );
}

#[test]
fn function_tables_and_bodies_are_declared_and_defined() {
    let table = with_payload(
        simple(Opcode::DclFunctionTable),
        Payload::FunctionTable {
            index: 0,
            bodies: vec![3],
        },
    );
    expect(
        &ps_decls(vec![table], vec![]),
        "function table `ft0` names `fb3`, which no `dcl_function_body` declares",
        At::Inst(2),
    );
    let p = ps_decls(vec![count(Opcode::DclFunctionBody, 0)], vec![]);
    expect(
        &p,
        "function body `fb0` is declared but no `label fb0` defines it",
        At::Inst(2),
    );
    let body = inst(
        Opcode::Label,
        vec![reg(RegisterFile::FunctionBody, &[0], Components::None)],
    );
    let mut p = ps_decls(vec![count(Opcode::DclFunctionBody, 0)], vec![]);
    p.instructions.push(body);
    p.instructions.push(ret());
    clean(&p);
}

// ---- availability ---------------------------------------------------------------

#[test]
fn only_sm4_and_sm5_models_and_tessellation_from_5_0() {
    expect(
        &program(ProgramType::Pixel, 3, 0, vec![ret()]),
        "shader model 3.0 is not an SM4/SM5 model",
        At::Prog,
    );
    expect_among(
        &program(ProgramType::Domain, 4, 1, vec![ret()]),
        "domain shaders need shader model 5.0, found 4.1",
        At::Prog,
    );
}

#[test]
fn reserved_opcodes_and_malformed_payloads_are_rejected() {
    expect(
        &ps(vec![simple(Opcode::Reserved6b)]),
        "opcode 0x6b is reserved",
        At::Mn(2),
    );
    expect(
        &ps(vec![with_payload(
            mov(r(0, "x"), lit(&[0])),
            Payload::Count(1),
        )]),
        "`mov` carries a payload of the wrong shape",
        At::Inst(2),
    );
}

#[test]
fn opcodes_need_their_shader_model() {
    let p4 = |body: Vec<Instruction>| {
        let mut all = vec![dcl_output(0, "xyzw"), dcl_temps(2)];
        all.extend(body);
        all.push(ret());
        program(ProgramType::Pixel, 4, 0, all)
    };
    expect(
        &p4(vec![inst(Opcode::Rcp, vec![r(0, "x"), rs(0, "x")])]),
        "`rcp` needs shader model 5.0, this program is 4.0",
        At::Mn(2),
    );
    let lod = inst(Opcode::Lod, vec![r(0, "x"), rs(0, "xy"), t(0), s(0)]);
    let mut p = p4(vec![lod]);
    p.instructions
        .insert(2, dcl_resource(0, ResourceDimension::Texture2D));
    p.instructions
        .insert(3, dcl_sampler(0, SamplerMode::Default));
    expect(&p, "`lod` needs shader model 4.1", At::Mn(4));
}

#[test]
fn raw_and_structured_buffers_in_4_x_need_the_global_flag_or_cs_4_x() {
    let load = inst(Opcode::LdRaw, vec![r(0, "x"), lit(&[0]), t(0)]);
    let p = program(
        ProgramType::Pixel,
        4,
        0,
        vec![dcl_resource_raw(0), dcl_temps(1), load.clone(), ret()],
    );
    expect_among(
        &p,
        "`ld_raw` in a 4.0 shader needs the `enableRawAndStructuredBuffers` global flag",
        At::Mn(2),
    );
    expect_among(&p, "`dcl_resource_raw` in a 4.0 shader needs", At::Mn(0));
    let p = program(
        ProgramType::Pixel,
        4,
        0,
        vec![
            dcl_flags(GlobalFlags::ENABLE_RAW_AND_STRUCTURED_BUFFERS),
            dcl_resource_raw(0),
            dcl_temps(1),
            load.clone(),
            ret(),
        ],
    );
    clean(&p);
    let p = program(
        ProgramType::Compute,
        4,
        0,
        vec![
            dcl_thread_group(8, 1, 1),
            dcl_resource_raw(0),
            dcl_uav_raw(0),
            dcl_temps(1),
            load,
            inst(Opcode::StoreRaw, vec![u(0, "x"), lit(&[0]), rs(0, "x")]),
            ret(),
        ],
    );
    clean(&p);
    let p = program(
        ProgramType::Compute,
        4,
        0,
        vec![
            dcl_thread_group(8, 1, 1),
            dcl_uav_typed(0, ResourceDimension::Buffer),
            ret(),
        ],
    );
    expect(
        &p,
        "`dcl_uav_typed` needs shader model 5.0, this program is 4.0",
        At::Mn(1),
    );
}

#[test]
fn double_and_11_1_opcodes_need_their_global_flags() {
    let dadd = inst(Opcode::Dadd, vec![r(0, "xy"), rs(0, "xyzw"), rs(1, "xyzw")]);
    expect(
        &ps(vec![dadd.clone()]),
        "`dadd` needs the global flag `enableDoublePrecisionFloatOps`",
        At::Mn(2),
    );
    clean(&ps_decls(
        vec![dcl_flags(GlobalFlags::ENABLE_DOUBLE_PRECISION_FLOAT_OPS)],
        vec![dadd],
    ));
    let ddiv = inst(Opcode::Ddiv, vec![r(0, "xy"), rs(0, "xyzw"), rs(1, "xyzw")]);
    let p = ps_decls(
        vec![dcl_flags(GlobalFlags::ENABLE_DOUBLE_PRECISION_FLOAT_OPS)],
        vec![ddiv.clone()],
    );
    expect(
        &p,
        "`ddiv` needs the global flag `enable11_1DoubleExtensions`",
        At::Mn(3),
    );
    expect(
        &ps(vec![ddiv]),
        "flags `enableDoublePrecisionFloatOps` and `enable11_1DoubleExtensions`",
        At::Mn(2),
    );
    let msad = inst(
        Opcode::Msad,
        vec![r(0, "x"), rs(0, "x"), rs(1, "x"), rs(2, "x")],
    );
    expect(
        &ps(vec![msad]),
        "`msad` needs the global flag `enable11_1ShaderExtensions`",
        At::Mn(2),
    );
}

#[test]
fn stage_only_opcodes_stay_in_their_stage() {
    let vs_prog = |body: Vec<Instruction>| {
        let mut all = vec![dcl_temps(1)];
        all.extend(body);
        all.push(ret());
        program(ProgramType::Vertex, 5, 0, all)
    };
    expect(
        &vs_prog(vec![cond(Opcode::Discard, rs(0, "x"))]),
        "`discard` is not available in a vertex shader: only in pixel shaders",
        At::Mn(1),
    );
    expect(
        &ps(vec![simple(Opcode::Emit)]),
        "`emit` is not available in a pixel shader: only in geometry shaders",
        At::Mn(2),
    );
    let deriv = inst(Opcode::DerivRtx, vec![r(0, "x"), rs(0, "x")]);
    expect(
        &cs(vec![], vec![deriv]),
        "`deriv_rtx` is not available in a compute shader",
        At::Mn(2),
    );
    let p = program(
        ProgramType::Vertex,
        5,
        0,
        vec![
            with_payload(
                simple(Opcode::DclThreadGroup),
                Payload::ThreadGroup([1, 1, 1]),
            ),
            ret(),
        ],
    );
    expect(
        &p,
        "`dcl_thread_group` is not available in a vertex shader: only in compute shaders",
        At::Mn(0),
    );
    // libraries may hold any stage's code
    let mut lib = ps(vec![cond(Opcode::Discard, rs(0, "x"))]);
    lib.version.program_type = ProgramType::Library;
    clean(&lib);
}

#[test]
fn minimum_precision_needs_its_global_flag() {
    let mut src = rs(0, "x");
    src.min_precision = crate::enums::MinPrecision::Float16;
    expect(
        &ps(vec![mov(r(1, "x"), src)]),
        "minimum-precision operands without the `enableMinimumPrecision` global flag",
        At::Mn(2),
    );
}

#[test]
fn control_fields_the_opcode_lacks_stay_unset() {
    let iadd = with_controls(
        inst(Opcode::Iadd, vec![r(0, "x"), rs(0, "x"), rs(1, "x")]),
        |c| c.saturate = true,
    );
    expect(
        &ps(vec![iadd]),
        "`iadd` has no `_sat`, but one is set",
        At::Mn(2),
    );
    let add = with_controls(
        inst(Opcode::Add, vec![r(0, "x"), rs(0, "x"), rs(1, "x")]),
        |c| c.test = TestControl(Test::NonZero),
    );
    expect(
        &ps(vec![add]),
        "`add` has no `_z`/`_nz` test, but one is set",
        At::Mn(2),
    );
}

#[test]
fn operand_counts_follow_the_table() {
    expect(
        &ps(vec![inst(Opcode::Add, vec![r(0, "x"), rs(0, "x")])]),
        "`add` takes 3 operands, found 2",
        At::Inst(2),
    );
}

// ---- operands -------------------------------------------------------------------

#[test]
fn destinations_are_writable_masked_registers() {
    let p = ps_decls(
        vec![dcl_cb(0, 1, false)],
        vec![mov(
            reg(RegisterFile::ConstantBuffer, &[0, 0], mask("x")),
            lit(&[0]),
        )],
    );
    expect(
        &p,
        "operand 0 of `mov` is written, but `cb0[0].x` cannot be written",
        At::Op(3, 0),
    );
    expect(
        &ps(vec![mov(neg(r(0, "x")), lit(&[0]))]),
        "a destination cannot carry a source modifier",
        At::Op(2, 0),
    );
    expect(
        &ps(vec![mov(
            reg(RegisterFile::Temp, &[0], Components::Mask(0)),
            lit(&[0]),
        )]),
        "`r0` writes no component",
        At::Op(2, 0),
    );
    expect(
        &ps(vec![mov(rs(0, "xy"), lit(&[0]))]),
        "destination `r0.xyyy` has a swizzle",
        At::Op(2, 0),
    );
}

#[test]
fn sources_are_readable_and_select_components() {
    expect(
        &ps(vec![mov(
            r(0, "x"),
            reg(RegisterFile::Output, &[0], swz("x")),
        )]),
        "but `o0.x` cannot be read",
        At::Op(2, 1),
    );
    expect(
        &ps(vec![mov(r(0, "x"), r(1, "x"))]),
        "source `r1.x` has a write mask",
        At::Op(2, 1),
    );
    let p = ps(vec![cond(Opcode::If, rs(0, "xyzw")), simple(Opcode::EndIf)]);
    expect(
        &p,
        "operand 0 of `if` must select one component (`.x`, `.y` …), found `r0.xyzw`",
        At::Op(2, 0),
    );
    let d = Operand::imm64(&[0x3ff0_0000_0000_0000]);
    expect(
        &ps(vec![inst(Opcode::Add, vec![r(0, "x"), rs(0, "x"), d])]),
        "reads 32-bit values, found a 64-bit immediate",
        At::Op(2, 2),
    );
}

#[test]
fn source_modifiers_follow_the_operand_type() {
    clean(&ps(vec![inst(
        Opcode::Iadd,
        vec![r(0, "x"), neg(rs(0, "x")), rs(1, "x")],
    )]));
    clean(&ps(vec![inst(
        Opcode::Add,
        vec![r(0, "x"), abs(rs(0, "x")), neg(rs(1, "x"))],
    )]));
    let p = ps(vec![inst(
        Opcode::Iadd,
        vec![r(0, "x"), abs(rs(0, "x")), rs(1, "x")],
    )]);
    expect(
        &p,
        "`|…|` on `|r0.x|`: `iadd` reads this operand as an integer",
        At::Op(2, 1),
    );
    let p = ps(vec![inst(
        Opcode::Ult,
        vec![r(0, "x"), neg(rs(0, "x")), rs(1, "x")],
    )]);
    expect(
        &p,
        "`-` on `-r0.x`: `ult` reads this operand as an unsigned integer",
        At::Op(2, 1),
    );
}

#[test]
fn registers_exist_only_in_their_stage_and_phase() {
    let tid = reg(RegisterFile::InputThreadId, &[], swz("x"));
    expect(
        &ps(vec![mov(r(0, "x"), tid)]),
        "a pixel shader has no `vThreadID` register",
        At::Op(2, 1),
    );
    let fork_id = reg(
        RegisterFile::InputForkInstanceId,
        &[],
        Components::Select(0),
    );
    let p = hs(vec![
        hs_phase(Opcode::HsControlPointPhase),
        dcl_input(reg(
            RegisterFile::InputForkInstanceId,
            &[],
            Components::None,
        )),
        dcl_temps(1),
        mov(r(0, "x"), fork_id),
        ret(),
    ]);
    let diags = diagnostics(&p);
    assert!(
        diags.iter().all(|d| d
            .message
            .contains("`vForkInstanceID` exists only in hs_fork_phase")),
        "{}",
        listing(&diags)
    );
    assert_eq!(diags.len(), 2);
    assert_eq!(
        diags[1].primary.as_ref().map(|p| p.span),
        Some(span_of(At::Op(10, 1)))
    );
}

#[test]
fn temps_are_declared_and_not_indexed() {
    let p = program(
        ProgramType::Pixel,
        5,
        0,
        vec![mov(r(0, "x"), lit(&[0])), ret()],
    );
    expect(
        &p,
        "`r0.x` is used but no `dcl_temps` declares temporary registers",
        At::Op(0, 0),
    );
    expect(
        &ps(vec![mov(r(4, "x"), lit(&[0]))]),
        "`r4` is out of range: `dcl_temps 4` declares r0 to r3",
        At::Op(2, 0),
    );
    let p = ps(vec![mov(r(0, "x"), rel(rs(1, "x"), 0, 0, rs(2, "x")))]);
    expect(
        &p,
        "temporary registers cannot be indexed relatively",
        At::Op(2, 1),
    );
}

#[test]
fn indexable_temps_are_declared_with_enough_registers_and_components() {
    let dcl = with_payload(
        simple(Opcode::DclIndexableTemp),
        Payload::IndexableTemp {
            register: 0,
            count: 4,
            components: 2,
        },
    );
    let x = |i: u32, c: Components| reg(RegisterFile::IndexableTemp, &[0, i], c);
    clean(&ps_decls(
        vec![dcl.clone()],
        vec![mov(x(3, mask("xy")), lit(&[0]))],
    ));
    expect(
        &ps(vec![mov(x(0, mask("x")), lit(&[0]))]),
        "`x0` is used but no `dcl_indexableTemp` declares it",
        At::Op(2, 0),
    );
    expect(
        &ps_decls(vec![dcl.clone()], vec![mov(x(4, mask("x")), lit(&[0]))]),
        "`x0[4].x` is out of range: `x0` has 4 registers",
        At::Op(3, 0),
    );
    expect(
        &ps_decls(vec![dcl.clone()], vec![mov(x(1, mask("xz")), lit(&[0]))]),
        "uses component `.z` outside the declaration (`x0` has 2 components)",
        At::Op(3, 0),
    );
    let relative = rel(x(0, swz("x")), 1, 1, rs(0, "xy"));
    expect(
        &ps_decls(vec![dcl], vec![mov(r(0, "x"), relative)]),
        "relative index `r0.xyyy` must select one component",
        At::Op(3, 1),
    );
}

#[test]
fn inputs_are_read_inside_their_declared_components() {
    let p = ps_decls(
        vec![dcl_input_ps(1, "xy", Interpolation::Linear)],
        vec![mov(r(0, "xyz"), vs(1, "xyz"))],
    );
    expect(
        &p,
        "`v1.xyzz` uses component `.z` outside the declaration (declared `.xy`)",
        At::Op(3, 1),
    );
    expect(
        &ps(vec![mov(r(0, "x"), vs(2, "x"))]),
        "`v2` is used but not declared (expected `dcl_input`)",
        At::Op(2, 1),
    );
    let p = ps(vec![
        mov(o(0, "xyzw"), lit(&[0, 0, 0, 0])),
        mov(reg(RegisterFile::Output, &[1], mask("x")), lit(&[0])),
    ]);
    expect(
        &p,
        "`o1` is used but not declared (expected `dcl_output`)",
        At::Op(3, 0),
    );
    let p = ps_decls(
        vec![dcl_output(1, "xy")],
        vec![mov(o(1, "xyz"), lit(&[0, 0, 0, 0]))],
    );
    expect(
        &p,
        "`o1.xyz` uses component `.z` outside the declaration (declared `.xy`)",
        At::Op(3, 0),
    );
}

#[test]
fn relative_io_access_needs_an_index_range() {
    let write = mov(rel(o(0, "x"), 0, 0, rs(0, "x")), lit(&[0]));
    expect(
        &ps(vec![write.clone()]),
        "is indexed relatively, but no `dcl_indexrange` covers `o0`",
        At::Op(2, 0),
    );
    let range = with_payload(
        inst(Opcode::DclIndexRange, vec![o(0, "xyzw")]),
        Payload::Count(1),
    );
    clean(&ps_decls(vec![range], vec![write]));
}

#[test]
fn per_vertex_inputs_stay_within_the_primitive() {
    let dcl = dcl_input(reg(RegisterFile::Input, &[3, 0], mask("xyzw")));
    let p = gs(
        vec![dcl.clone()],
        vec![mov(r(0, "x"), reg(RegisterFile::Input, &[2, 0], swz("x")))],
    );
    clean(&p);
    let p = gs(
        vec![dcl],
        vec![mov(r(0, "x"), reg(RegisterFile::Input, &[3, 0], swz("x")))],
    );
    expect(
        &p,
        "`v[3][0].x`: vertex 3 is out of range, the input has 3",
        At::Op(5, 1),
    );
}

#[test]
fn constant_buffer_reads_are_declared_in_range_and_indexed_as_declared() {
    let cb = |i: u32| reg(RegisterFile::ConstantBuffer, &[0, i], swz("x"));
    expect(
        &ps(vec![mov(r(0, "x"), cb(0))]),
        "`cb0[0].x` reads constant buffer 0, which no `dcl_constantbuffer` declares",
        At::Op(2, 1),
    );
    let d = expect(
        &ps_decls(vec![dcl_cb(0, 2, false)], vec![mov(r(0, "x"), cb(2))]),
        "`cb0[2].x` is out of range: `cb0` has 2 vectors",
        At::Op(3, 1),
    );
    assert_eq!(d.secondary[0].span, span_of(At::Inst(2)));
    let dynamic = rel(cb(1), 1, 1, rs(0, "x"));
    expect(
        &ps_decls(
            vec![dcl_cb(0, 2, false)],
            vec![mov(r(0, "x"), dynamic.clone())],
        ),
        "but `cb0` is declared `immediateIndexed`",
        At::Op(3, 1),
    );
    clean(&ps_decls(
        vec![dcl_cb(0, 2, true)],
        vec![mov(r(0, "x"), dynamic)],
    ));
}

#[test]
fn immediate_constant_buffer_reads_stay_in_range() {
    let icb = |i: u32| reg(RegisterFile::ImmediateConstantBuffer, &[i], swz("x"));
    expect(
        &ps(vec![mov(r(0, "x"), icb(0))]),
        "the program has no `dcl_immediateConstantBuffer`",
        At::Op(2, 1),
    );
    expect(
        &ps_decls(vec![dcl_icb(2)], vec![mov(r(0, "x"), icb(2))]),
        "`icb[2].x` is out of range: the immediate constant buffer has 2 vectors",
        At::Op(3, 1),
    );
}

#[test]
fn system_registers_need_their_declaration() {
    let tid = reg(RegisterFile::InputThreadId, &[], swz("x"));
    expect(
        &cs(vec![], vec![mov(r(0, "x"), tid.clone())]),
        "`vThreadID` is used but not declared (expected `dcl_input vThreadID`)",
        At::Op(2, 1),
    );
    clean(&cs(
        vec![dcl_input(reg(
            RegisterFile::InputThreadId,
            &[],
            mask("xyz"),
        ))],
        vec![mov(r(0, "x"), tid)],
    ));
    let depth = reg(RegisterFile::OutputDepth, &[], Components::One);
    expect(
        &ps(vec![mov(depth, lit(&[0]))]),
        "`oDepth` is used but not declared (expected `dcl_output oDepth`)",
        At::Op(2, 0),
    );
}

#[test]
fn resource_operands_name_the_right_file_and_declaration() {
    let sample = |res: Operand| inst(Opcode::Sample, vec![r(0, "xyzw"), rs(0, "xy"), res, s(0)]);
    let decls = || {
        vec![
            dcl_resource(0, ResourceDimension::Texture2D),
            dcl_sampler(0, SamplerMode::Default),
        ]
    };
    clean(&ps_decls(decls(), vec![sample(t(0))]));
    expect(
        &ps_decls(
            decls(),
            vec![sample(reg(
                RegisterFile::UnorderedAccessView,
                &[0],
                swz("xyzw"),
            ))],
        ),
        "`sample` takes a resource here (`t`), found `u0.xyzw`",
        At::Op(4, 2),
    );
    expect(
        &ps_decls(decls(), vec![sample(t(1))]),
        "`t1` is used but not declared",
        At::Op(4, 2),
    );
    let load = inst(Opcode::LdRaw, vec![r(0, "x"), lit(&[0]), t(0)]);
    let d = expect(
        &ps_decls(decls(), vec![load]),
        "`ld_raw` works on raw resources, but `t0` is declared as a typed texture2d",
        At::Op(4, 2),
    );
    assert_eq!(d.secondary[0].span, span_of(At::Inst(2)));
    let p = ps_decls(
        vec![dcl_resource(0, ResourceDimension::Texture2D)],
        vec![
            mov(r(0, "x"), lit(&[0])),
            inst(
                Opcode::Resinfo,
                vec![r(0, "x"), lit(&[0]), rel(t(0), 0, 0, rs(0, "x"))],
            ),
        ],
    );
    expect(
        &p,
        "resources cannot be indexed relatively before shader model 5.1",
        At::Op(4, 2),
    );
    let tgsm = reg(RegisterFile::ThreadGroupSharedMemory, &[0], mask("x"));
    expect(
        &ps(vec![inst(
            Opcode::StoreRaw,
            vec![tgsm, lit(&[0]), rs(0, "x")],
        )]),
        "a pixel shader has no `g` register",
        At::Op(2, 0),
    );
}

#[test]
fn resource_instructions_need_their_documented_dimensions() {
    let sample = inst(Opcode::Sample, vec![r(0, "xyzw"), rs(0, "xy"), t(0), s(0)]);
    let decls = |dim| vec![dcl_resource(0, dim), dcl_sampler(0, SamplerMode::Default)];
    expect(
        &ps_decls(decls(ResourceDimension::Buffer), vec![sample]),
        "`sample` needs a texture that is neither a buffer nor multisampled",
        At::Op(4, 2),
    );
    let ldms = inst(
        Opcode::LdMs,
        vec![r(0, "xyzw"), rs(0, "xy"), t(0), lit(&[0])],
    );
    expect(
        &ps_decls(decls(ResourceDimension::Texture2D), vec![ldms]),
        "`ldms` needs a multisampled texture, but `t0` is a texture2d",
        At::Op(4, 2),
    );
    let gather = inst(
        Opcode::Gather4Po,
        vec![
            r(0, "xyzw"),
            rs(0, "xy"),
            rs(1, "xy"),
            t(0),
            reg(RegisterFile::Sampler, &[0], swz("x")),
        ],
    );
    expect(
        &ps_decls(decls(ResourceDimension::TextureCube), vec![gather]),
        "`gather4_po` needs a 2D texture (or array)",
        At::Op(4, 3),
    );
    let resinfo = inst(Opcode::Resinfo, vec![r(0, "xyzw"), lit(&[0]), t(0)]);
    expect(
        &ps_decls(decls(ResourceDimension::Buffer), vec![resinfo]),
        "`resinfo` needs a texture (not a buffer)",
        At::Op(4, 2),
    );
    let bufinfo = inst(Opcode::BufInfo, vec![r(0, "x"), t(0)]);
    expect(
        &ps_decls(decls(ResourceDimension::Texture2D), vec![bufinfo]),
        "`bufinfo` needs a buffer",
        At::Op(4, 1),
    );
}

#[test]
fn indexable_tokens_repeat_the_declaration() {
    let mut load = inst(Opcode::Ld, vec![r(0, "xyzw"), rs(0, "xyzw"), t(0)]);
    load.extended.push(ExtendedOpcode::ResourceDim {
        dimension: ResourceDimension::Texture3D,
        stride: 0,
    });
    let p = ps_decls(
        vec![dcl_resource(0, ResourceDimension::Texture2D)],
        vec![load],
    );
    expect(
        &p,
        "`_indexable(texture3d)` does not match `t0`, declared as a typed texture2d",
        At::Inst(3),
    );
}

#[test]
fn samplers_are_declared_in_the_mode_the_instruction_needs() {
    let decls = |mode| {
        vec![
            dcl_resource(0, ResourceDimension::Texture2D),
            dcl_sampler(0, mode),
        ]
    };
    let sample = inst(Opcode::Sample, vec![r(0, "xyzw"), rs(0, "xy"), t(0), s(0)]);
    let sample_c = inst(
        Opcode::SampleC,
        vec![
            r(0, "x"),
            rs(0, "xy"),
            reg(RegisterFile::Resource, &[0], swz("xxxx")),
            s(0),
            rs(1, "x"),
        ],
    );
    clean(&ps_decls(
        decls(SamplerMode::Comparison),
        vec![sample_c.clone()],
    ));
    expect(
        &ps_decls(decls(SamplerMode::Comparison), vec![sample.clone()]),
        "sampler `s0` is declared `mode_comparison`, which serves only the comparison ops",
        At::Op(4, 3),
    );
    expect(
        &ps_decls(decls(SamplerMode::Default), vec![sample_c]),
        "sampler `s0` is not declared `mode_comparison`",
        At::Op(4, 3),
    );
    expect(
        &ps_decls(decls(SamplerMode::Mono), vec![sample.clone()]),
        "`mode_mono`, which serves only `sample_l`",
        At::Op(4, 3),
    );
    expect(
        &ps_decls(
            vec![dcl_resource(0, ResourceDimension::Texture2D)],
            vec![sample.clone()],
        ),
        "`s0` is used but no `dcl_sampler` declares it",
        At::Op(3, 3),
    );
    let wrong = inst(Opcode::Sample, vec![r(0, "xyzw"), rs(0, "xy"), t(0), t(0)]);
    expect(
        &ps_decls(decls(SamplerMode::Default), vec![wrong]),
        "`sample` takes a sampler `s#` here, found `t0.xyzw`",
        At::Op(4, 3),
    );
}

#[test]
fn sample_c_reads_the_red_channel_of_its_resource() {
    let decls = vec![
        dcl_resource(0, ResourceDimension::Texture2D),
        dcl_sampler(0, SamplerMode::Comparison),
    ];
    let sample_c = inst(
        Opcode::SampleC,
        vec![r(0, "x"), rs(0, "xy"), t(0), s(0), rs(1, "x")],
    );
    expect(
        &ps_decls(decls, vec![sample_c]),
        "the resource takes the `.r` swizzle (`t.xxxx`), found `t0.xyzw`",
        At::Op(4, 2),
    );
}

#[test]
fn labels_streams_and_interfaces_are_declared() {
    let call = inst(
        Opcode::Call,
        vec![reg(RegisterFile::FunctionBody, &[0], Components::None)],
    );
    expect_among(
        &ps(vec![call]),
        "`call` takes a label `l#`, found `fb0`",
        At::Op(2, 0),
    );
    let body = inst(
        Opcode::Label,
        vec![reg(RegisterFile::FunctionBody, &[2], Components::None)],
    );
    let mut p = ps(vec![]);
    p.instructions.push(body);
    p.instructions.push(ret());
    expect(
        &p,
        "`label fb2` defines a function body that no `dcl_function_body` declares",
        At::Op(3, 0),
    );
    let emit = inst(
        Opcode::EmitStream,
        vec![reg(RegisterFile::Stream, &[1], Components::None)],
    );
    expect(
        &gs(vec![], vec![emit]),
        "stream `m1` is used but no `dcl_stream` declares it",
        At::Op(4, 0),
    );
    let fcall = with_payload(
        inst(
            Opcode::InterfaceCall,
            vec![reg(RegisterFile::Interface, &[0, 0], Components::None)],
        ),
        Payload::CallSite(0),
    );
    expect(
        &ps(vec![fcall]),
        "interface `fp0` is used but no `dcl_interface` declares it",
        At::Op(2, 0),
    );
}

#[test]
fn extended_opcode_tokens_belong_to_resource_instructions() {
    let mut add = inst(Opcode::Add, vec![r(0, "x"), rs(0, "x"), rs(1, "x")]);
    add.extended
        .push(ExtendedOpcode::SampleControls { offsets: [1, 0, 0] });
    expect(&ps(vec![add]), "`add` takes no SampleControls", At::Mn(2));
    let mut load = inst(Opcode::Ld, vec![r(0, "xyzw"), rs(0, "xyzw"), t(0)]);
    load.extended
        .push(ExtendedOpcode::SampleControls { offsets: [9, 0, 0] });
    let p = ps_decls(
        vec![dcl_resource(0, ResourceDimension::Texture2D)],
        vec![load],
    );
    expect(
        &p,
        "`_aoffimmi(9,0,0)`: offsets range from -8 to 7",
        At::Mn(3),
    );
}

// ---- documented constraints ----------------------------------------------------------

fn doubles(body: Vec<Instruction>) -> Program {
    ps_decls(
        vec![dcl_flags(
            GlobalFlags::ENABLE_DOUBLE_PRECISION_FLOAT_OPS
                | GlobalFlags::ENABLE_11_1_DOUBLE_EXTENSIONS,
        )],
        body,
    )
}

#[test]
fn dmovc_masks_and_swizzles_follow_its_reference_page() {
    let dmovc = |d: &str, c: &str, a: &str, b: &str| {
        inst(Opcode::Dmovc, vec![r(0, d), rs(1, c), rs(2, a), rs(3, b)])
    };
    clean(&doubles(vec![
        dmovc("xy", "xxxx", "xyzw", "zwxy"),
        dmovc("zw", "yzxw", "xyxy", "zwzw"),
        dmovc("xyzw", "x", "xyzw", "xyzw"),
    ]));
    let d = expect(
        &doubles(vec![dmovc("xyz", "xxxx", "xyzw", "xyzw")]),
        "`dmovc` writes doubles: the valid masks are .xy, .zw and .xyzw, found `.xyz`",
        At::Op(3, 0),
    );
    assert_eq!(
        d.primary.as_ref().map(|p| p.message.as_str()),
        Some("expected .xy, .zw or .xyzw")
    );
    expect(
        &doubles(vec![dmovc("y", "xxxx", "xyzw", "xyzw")]),
        "found `.y`",
        At::Op(3, 0),
    );
    expect(
        &doubles(vec![dmovc("xy", "xxxx", "xxyy", "xyzw")]),
        "`dmovc` reads doubles: the valid swizzles are .xyzw, .xyxy, .zwxy and .zwzw, found `r2.xxyy`",
        At::Op(3, 2),
    );
    expect(
        &doubles(vec![dmovc("xy", "xxxx", "xyzw", "yzwx")]),
        "found `r3.yzwx`",
        At::Op(3, 3),
    );
}

#[test]
fn double_comparisons_and_conversions_write_one_or_two_components() {
    let two = |op: Opcode, d: &str| inst(op, vec![r(0, d), rs(1, "xyzw"), rs(2, "zwzw")]);
    clean(&doubles(vec![
        two(Opcode::Deq, "z"),
        two(Opcode::Dlt, "xw"),
        two(Opcode::Dne, "y"),
    ]));
    expect(
        &doubles(vec![two(Opcode::Dge, "xyz")]),
        "`dge` writes one 32-bit result per double: expected one or two components, found `.xyz`",
        At::Op(3, 0),
    );
    let conv = |op: Opcode, d: &str, s: &str| inst(op, vec![r(0, d), rs(1, s)]);
    clean(&doubles(vec![
        conv(Opcode::Dtof, "xy", "xyzw"),
        conv(Opcode::Dtoi, "w", "zwzw"),
        conv(Opcode::Dtou, "yz", "xyxy"),
    ]));
    expect(
        &doubles(vec![conv(Opcode::Dtof, "xyzw", "xyzw")]),
        "`dtof` writes one 32-bit result per double",
        At::Op(3, 0),
    );
    expect(
        &doubles(vec![conv(Opcode::Dtoi, "x", "x")]),
        "`dtoi` reads doubles",
        At::Op(3, 1),
    );
    // 32-bit → double: a double destination, any 32-bit swizzle
    clean(&doubles(vec![
        conv(Opcode::Ftod, "zw", "yyyy"),
        conv(Opcode::Itod, "xyzw", "xy"),
        conv(Opcode::Utod, "xy", "w"),
    ]));
    expect(
        &doubles(vec![conv(Opcode::Utod, "xyz", "xy")]),
        "`utod` writes doubles",
        At::Op(3, 0),
    );
    expect(
        &doubles(vec![conv(Opcode::Ftod, "x", "x")]),
        "`ftod` writes doubles",
        At::Op(3, 0),
    );
}

#[test]
fn every_double_alu_op_uses_pairs() {
    for op in [
        Opcode::Dadd,
        Opcode::Dmul,
        Opcode::Dmax,
        Opcode::Dmin,
        Opcode::Ddiv,
    ] {
        let p = doubles(vec![inst(
            op,
            vec![r(0, "xy"), rs(1, "xyzw"), rs(2, "zyxw")],
        )]);
        expect(&p, "reads doubles", At::Op(3, 2));
    }
    let p = doubles(vec![inst(
        Opcode::Dfma,
        vec![r(0, "xw"), rs(1, "xyzw"), rs(2, "xyzw"), rs(3, "xyzw")],
    )]);
    expect(&p, "`dfma` writes doubles", At::Op(3, 0));
    let p = doubles(vec![inst(Opcode::Drcp, vec![r(0, "zw"), rs(1, "y")])]);
    expect(&p, "`drcp` reads doubles", At::Op(3, 1));
    let p = doubles(vec![inst(
        Opcode::Dmov,
        vec![r(0, "xyzw"), Operand::imm64(&[0x4012_0000_0000_0000, 0])],
    )]);
    clean(&p);
}

#[test]
fn stores_write_a_prefix_of_components() {
    let store = |m: &str| inst(Opcode::StoreRaw, vec![u(0, m), lit(&[0]), rs(0, "xyzw")]);
    clean(&cs(
        vec![dcl_uav_raw(0)],
        vec![store("x"), store("xy"), store("xyz"), store("xyzw")],
    ));
    expect(
        &cs(vec![dcl_uav_raw(0)], vec![store("xz")]),
        "`store_raw` writes a prefix of components: expected the mask .x, .xy, .xyz or .xyzw, found `.xz`",
        At::Op(3, 0),
    );
    let store = inst(
        Opcode::StoreStructured,
        vec![u(0, "yz"), lit(&[0]), lit(&[0]), rs(0, "xyzw")],
    );
    expect(
        &cs(vec![dcl_uav_structured(0, 16)], vec![store]),
        "`store_structured` writes a prefix of components",
        At::Op(3, 0),
    );
}

#[test]
fn swapc_writes_two_different_registers() {
    let swapc = |a: Operand, b: Operand| {
        inst(
            Opcode::Swapc,
            vec![a, b, rs(0, "xyzw"), rs(1, "xyzw"), rs(2, "xyzw")],
        )
    };
    clean(&ps(vec![swapc(r(0, "xy"), r(1, "zw"))]));
    expect(
        &ps(vec![swapc(null(), r(1, "xy"))]),
        "`swapc` writes both destinations; `null` is not allowed",
        At::Op(2, 0),
    );
    let d = expect(
        &ps(vec![swapc(r(1, "x"), r(1, "y"))]),
        "`swapc` destinations must be different registers, both are `r1`",
        At::Op(2, 1),
    );
    assert_eq!(d.secondary[0].span, span_of(At::Op(2, 0)));
}

#[test]
fn sync_flags_follow_the_stage() {
    let sync = |f: SyncFlags| with_controls(simple(Opcode::Sync), |c| c.sync = f);
    clean(&cs(
        vec![],
        vec![sync(
            SyncFlags::THREAD_GROUP_SHARED_MEMORY | SyncFlags::THREADS_IN_GROUP,
        )],
    ));
    clean(&ps(vec![sync(SyncFlags::UAV_MEMORY_GLOBAL)]));
    expect(
        &ps(vec![sync(SyncFlags::THREAD_GROUP_SHARED_MEMORY)]),
        "only `sync_uglobal` is allowed in a pixel shader",
        At::Mn(2),
    );
    expect(
        &cs(vec![], vec![sync(SyncFlags::THREADS_IN_GROUP)]),
        "a compute-shader `sync` needs a fence",
        At::Mn(2),
    );
    expect(
        &cs(
            vec![],
            vec![sync(
                SyncFlags::UAV_MEMORY_GLOBAL | SyncFlags::UAV_MEMORY_GROUP,
            )],
        ),
        "both `_uglobal` and `_ugroup`",
        At::Mn(2),
    );
}

#[test]
fn case_takes_a_literal() {
    let p = ps(vec![
        inst(Opcode::Switch, vec![rs(0, "x")]),
        inst(Opcode::Case, vec![rs(1, "x")]),
        simple(Opcode::Break),
        simple(Opcode::EndSwitch),
    ]);
    expect(
        &p,
        "`case` takes a 32-bit literal `l(n)`, found `r1.x`",
        At::Op(3, 0),
    );
}

#[test]
fn one_component_operands_of_the_table() {
    let decls = vec![dcl_uav_raw(0)];
    let atomic = inst(Opcode::AtomicIadd, vec![u(0, "x"), lit(&[0]), rs(0, "xy")]);
    expect(
        &cs(decls.clone(), vec![atomic]),
        "operand 2 of `atomic_iadd` must select one component",
        At::Op(3, 2),
    );
    let imm = inst(
        Opcode::ImmAtomicIadd,
        vec![r(0, "xy"), u(0, "x"), lit(&[0]), rs(0, "x")],
    );
    expect(
        &cs(decls, vec![imm]),
        "operand 0 of `imm_atomic_iadd` writes one component, found the mask `.xy`",
        At::Op(3, 0),
    );
}

#[test]
fn null_stands_for_one_of_two_results() {
    clean(&ps(vec![inst(
        Opcode::Sincos,
        vec![null(), r(0, "x"), rs(1, "x")],
    )]));
    clean(&ps(vec![inst(
        Opcode::Imul,
        vec![null(), r(0, "x"), rs(1, "x"), rs(2, "x")],
    )]));
    clean(&ps(vec![inst(
        Opcode::Udiv,
        vec![r(0, "x"), null(), rs(1, "x"), rs(2, "x")],
    )]));
    let p = ps(vec![inst(
        Opcode::Add,
        vec![null(), rs(0, "x"), rs(1, "x")],
    )]);
    expect(
        &p,
        "`add` has one result; `null` only stands for one of two results",
        At::Op(2, 0),
    );
}

#[test]
fn sm51_resources_are_used_inside_their_declared_range() {
    let decl = with_payload(
        with_controls(
            inst(
                Opcode::DclResource,
                vec![reg(RegisterFile::Resource, &[0, 2, 6], Components::None)],
            ),
            |c| c.resource_dimension = ResourceDimensionControl(ResourceDimension::Texture2D),
        ),
        Payload::ReturnTypes {
            types: [ReturnType::Float; 4],
            space: Some(0),
        },
    );
    let load = |at: u32| {
        inst(
            Opcode::Ld,
            vec![
                r(0, "xyzw"),
                rs(0, "xyzw"),
                reg(RegisterFile::Resource, &[0, at], swz("xyzw")),
            ],
        )
    };
    let mut p = ps_decls(vec![decl.clone()], vec![load(6)]);
    p.version.minor = 1;
    clean(&p);
    let mut p = ps_decls(vec![decl.clone()], vec![load(7)]);
    p.version.minor = 1;
    expect(
        &p,
        "`t0[7].xyzw` lies outside the declared range T0[2:6]",
        At::Op(3, 2),
    );
    // relative indices are allowed from 5.1 on
    let dynamic = inst(
        Opcode::Ld,
        vec![
            r(0, "xyzw"),
            rs(0, "xyzw"),
            rel(
                reg(RegisterFile::Resource, &[0, 2], swz("xyzw")),
                1,
                2,
                rs(1, "x"),
            ),
        ],
    );
    let mut p = ps_decls(vec![decl], vec![dynamic]);
    p.version.minor = 1;
    clean(&p);
}

// ---- through the assembler: text spans ----------------------------------------

/// Assembles `text` and validates it with the assembler's source map.
fn validate_text(text: &str) -> Vec<Diagnostic> {
    let (program, map) = crate::parse_program(text).expect("the listing assembles");
    validate(&program, Some(&map)).0
}

/// `d` says `message` (part of its text) and its primary span covers `at`
/// in `text`.
fn assert_reported(text: &str, d: &Diagnostic, message: &str, at: &str) {
    assert!(d.message.contains(message), "{}", d.message);
    let span = d.primary.as_ref().expect("a primary span").span;
    assert_eq!(&text[span.start..span.end], at);
}

#[test]
fn assembled_dmovc_reports_the_seed_rules_at_the_operand() {
    let text = "ps_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps
dcl_constantbuffer cb0[1], immediateIndexed
dcl_output o0.xyzw
dcl_temps 2
dlt r0.x, d(1.000000l, 0.000000l), cb0[0].xyxy
dmovc r1.xyz, r0.xxxx, cb0[0].xyzw, d(4.500000l, 4.500000l)
dmovc r1.xyzw, r0.xxxx, cb0[0].yxwz, d(4.500000l, 4.500000l)
mov o0.xyzw, r1.xyzw
ret
";
    let diags = validate_text(text);
    assert_eq!(diags.len(), 2, "{}", listing(&diags));
    assert_reported(
        text,
        &diags[0],
        "the valid masks are .xy, .zw and .xyzw, found `.xyz`",
        "r1.xyz",
    );
    assert_reported(
        text,
        &diags[1],
        "the valid swizzles are .xyzw, .xyxy, .zwxy and .zwzw, found `cb0[0].yxwz`",
        "cb0[0].yxwz",
    );
    let rendered = Diagnostics(diags).render("dmovc.asm", text);
    assert!(rendered.contains("dmovc.asm:7:7"), "{rendered}");
    assert!(rendered.contains("dmovc.asm:8:25"), "{rendered}");
}

#[test]
fn assembled_programs_point_at_instructions_and_mnemonics() {
    let text = "vs_4_0
dcl_temps 1
rcp r0.x, r0.x
if_nz r0.xyzw
endif
ret
";
    let diags = validate_text(text);
    assert_eq!(diags.len(), 2, "{}", listing(&diags));
    assert_reported(
        text,
        &diags[0],
        "`rcp` needs shader model 5.0, this program is 4.0",
        "rcp",
    );
    assert_reported(
        text,
        &diags[1],
        "operand 0 of `if` must select one component",
        "r0.xyzw",
    );
}

#[test]
fn relative_indices_are_readable_registers() {
    let range = with_payload(
        inst(Opcode::DclIndexRange, vec![o(0, "xyzw")]),
        Payload::Count(1),
    );
    let write = mov(
        rel(o(0, "x"), 0, 0, reg(RegisterFile::Output, &[1], swz("x"))),
        lit(&[0]),
    );
    expect(
        &ps_decls(vec![range], vec![write]),
        "relative index `o1.x` is not a readable register",
        At::Op(3, 0),
    );
}

#[test]
fn a_label_needs_a_main_program_before_it() {
    let label = inst(
        Opcode::Label,
        vec![reg(RegisterFile::Label, &[0], Components::None)],
    );
    let p = program(ProgramType::Pixel, 5, 0, vec![label, ret()]);
    expect(&p, "a `label` with no main program before it", At::Inst(0));
}
