//! Whole programs: well-formed ones of each stage validate cleanly, and
//! every diagnostic points where it should, with the synthetic spans,
//! without a source map (the message names the instruction), with a binary
//! map, and with the assembler's text spans.

use super::*;

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

#[test]
fn too_many_temps_are_reported_at_the_declaration_that_goes_past_the_limit() {
    let text = "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_temps 2\ndcl_indexableTemp x0[4000], 4\ndcl_indexableTemp x1[100], 4\nret\n";
    let d = validate_text(text);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_reported(
        text,
        &d[0],
        "4102 temporary registers",
        "dcl_indexableTemp x1[100], 4",
    );
}
