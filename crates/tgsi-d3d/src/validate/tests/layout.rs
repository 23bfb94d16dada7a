//! Sections and blocks: declarations before the first instruction, the
//! hull-shader phases and their sections, `if`/`loop`/`switch` blocks and
//! their labels, switch fall-through, `break`/`continue`, the nesting limit
//! and subroutines.

use super::*;

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
