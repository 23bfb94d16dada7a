//! Registers and value operands: writable destinations and readable
//! sources, their masks, swizzles and modifiers, the stage and phase of each
//! register file, and the declaration and range of each register read or
//! written (temps, indexable temps, inputs and outputs, constant buffers,
//! the immediate constant buffer, system registers).

use super::*;

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
