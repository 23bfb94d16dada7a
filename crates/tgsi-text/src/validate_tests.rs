//! Tests of the validator (the IR crate's): on shaders built by hand (IR),
//! so that each check is tested independently of the parser, and on
//! assembled text and the corpus.

use tgsi_ir::diag::{Diagnostics, Severity};
use tgsi_ir::enums::{File, Primitive, Processor, PropertyName, TextureTarget};
use tgsi_ir::ir::*;
use tgsi_ir::opcode::Opcode;
use tgsi_ir::validate::validate;

fn dcl(file: File, first: u32, last: u32) -> Statement {
    Statement::Declaration(Declaration::new(file, first, last))
}

fn imm(words: &[u32]) -> Statement {
    Statement::Immediate(Immediate {
        ty: tgsi_ir::enums::ImmType::Flt32,
        words: words.to_vec(),
    })
}

fn prop(name: PropertyName, value: u32) -> Statement {
    Statement::Property(Property { name, value })
}

fn d(file: File, index: i32) -> DstOperand {
    DstOperand {
        reg: Register::new(file, index),
        write_mask: WriteMask::XYZW,
    }
}

fn dm(file: File, index: i32, write_mask: WriteMask) -> DstOperand {
    DstOperand {
        reg: Register::new(file, index),
        write_mask,
    }
}

fn s(file: File, index: i32) -> SrcOperand {
    SrcOperand::new(Register::new(file, index))
}

fn op(opcode: Opcode, dst: Vec<DstOperand>, src: Vec<SrcOperand>) -> Statement {
    Statement::Instruction(Instruction::new(opcode, dst, src))
}

fn labelled(opcode: Opcode, src: Vec<SrcOperand>, label: u32) -> Statement {
    let mut i = Instruction::new(opcode, vec![], src);
    i.label = Some(label);
    Statement::Instruction(i)
}

fn end() -> Statement {
    op(Opcode::END, vec![], vec![])
}

fn shader(processor: Processor, statements: Vec<Statement>) -> Shader {
    Shader {
        processor,
        statements,
    }
}

/// A fragment shader with IN[0], OUT[0], TEMP[0..3] and one immediate,
/// followed by `body` and END.
fn frag(body: Vec<Statement>) -> Shader {
    let mut st = vec![
        dcl(File::Input, 0, 0),
        dcl(File::Output, 0, 0),
        dcl(File::Temp, 0, 3),
        imm(&[0, 0, 0, 0]),
    ];
    st.extend(body);
    st.push(end());
    shader(Processor::Fragment, st)
}

fn errors(d: &Diagnostics) -> Vec<&str> {
    d.0.iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.as_str())
        .collect()
}

fn warnings(d: &Diagnostics) -> Vec<&str> {
    d.0.iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.message.as_str())
        .collect()
}

#[track_caller]
fn assert_clean(sh: &Shader) {
    let d = validate(sh, None);
    assert!(d.0.is_empty(), "expected no diagnostics, got {d:#?}");
}

#[track_caller]
fn assert_error(sh: &Shader, needle: &str) {
    let d = validate(sh, None);
    assert!(
        errors(&d).iter().any(|m| m.contains(needle)),
        "expected an error containing {needle:?}, got {d:#?}"
    );
}

#[track_caller]
fn assert_warning_only(sh: &Shader, needle: &str) {
    let d = validate(sh, None);
    assert!(!d.has_errors(), "expected no errors, got {d:#?}");
    assert!(
        warnings(&d).iter().any(|m| m.contains(needle)),
        "expected a warning containing {needle:?}, got {d:#?}"
    );
}

#[test]
fn minimal_shader_is_clean() {
    assert_clean(&frag(vec![op(
        Opcode::MOV,
        vec![d(File::Output, 0)],
        vec![s(File::Input, 0)],
    )]));
}

#[test]
fn undeclared_register_names_the_instruction() {
    let sh = frag(vec![op(
        Opcode::MOV,
        vec![d(File::Output, 0)],
        vec![s(File::Temp, 7)],
    )]);
    let d = validate(&sh, None);
    assert_eq!(errors(&d).len(), 1, "{d:#?}");
    let msg = errors(&d)[0];
    assert!(msg.contains("instruction 0 (MOV, src 0)"), "{msg}");
    assert!(msg.contains("TEMP[7] is not declared"), "{msg}");
    assert!(d.0[0].notes.iter().any(|n| n.contains("TEMP[0..3]")));
}

#[test]
fn spans_come_from_the_source_map() {
    let sh = frag(vec![op(
        Opcode::MOV,
        vec![d(File::Output, 0)],
        vec![s(File::Temp, 7)],
    )]);
    let n = sh.statements.len();
    let mut map = SourceMap {
        statements: (0..n).map(|i| Span::new(i * 100, i * 100 + 50)).collect(),
        operands: vec![Vec::new(); n],
    };
    map.operands[4] = vec![Span::new(404, 410), Span::new(412, 419)];
    let d = validate(&sh, Some(&map));
    assert_eq!(d.0.len(), 1, "{d:#?}");
    assert_eq!(d.0[0].primary.as_ref().unwrap().span, Span::new(412, 419));
    assert_eq!(d.0[0].message, "TEMP[7] is not declared");
}

#[test]
fn immediates_are_counted() {
    assert_error(
        &frag(vec![op(
            Opcode::MOV,
            vec![d(File::Output, 0)],
            vec![s(File::Immediate, 1)],
        )]),
        "IMM[1] does not exist",
    );
    assert_error(&frag(vec![imm(&[])]), "1 to 4 words");
}

#[test]
fn two_dimensional_constants_need_their_buffer() {
    let mut c = Declaration::new(File::Const, 0, 3);
    c.dimension = Some(1);
    let mut reg = Register::new(File::Const, 2);
    reg.dimension = Some(Index::direct(1));
    let good = frag(vec![
        Statement::Declaration(c.clone()),
        op(
            Opcode::MOV,
            vec![d(File::Output, 0)],
            vec![SrcOperand::new(reg)],
        ),
    ]);
    // the declaration comes after the immediate but before any instruction
    assert_clean(&good);
    reg.dimension = Some(Index::direct(2));
    let bad = frag(vec![
        Statement::Declaration(c),
        op(
            Opcode::MOV,
            vec![d(File::Output, 0)],
            vec![SrcOperand::new(reg)],
        ),
    ]);
    assert_error(&bad, "no CONST[2][..] register is declared");
}

#[test]
fn indirect_access_needs_declared_address_and_array() {
    let mut reg = Register::new(File::Temp, 0);
    reg.index.indirect = Some(IndirectAddr {
        file: File::Address,
        index: 0,
        component: Component::X,
        array_id: 0,
    });
    let sh = frag(vec![op(
        Opcode::MOV,
        vec![d(File::Output, 0)],
        vec![SrcOperand::new(reg)],
    )]);
    assert_error(&sh, "ADDR[0] is not declared");

    reg.index.indirect.as_mut().unwrap().array_id = 2;
    let mut arr = Declaration::new(File::Temp, 4, 7);
    arr.array_id = Some(1);
    let sh = frag(vec![
        dcl(File::Address, 0, 0),
        Statement::Declaration(arr),
        op(
            Opcode::MOV,
            vec![d(File::Output, 0)],
            vec![SrcOperand::new(reg)],
        ),
    ]);
    assert_error(&sh, "ARRAY(2) of TEMP is not declared");

    reg.index.indirect.as_mut().unwrap().array_id = 1;
    reg.index.offset = 4;
    let mut arr = Declaration::new(File::Temp, 4, 7);
    arr.array_id = Some(1);
    let sh = frag(vec![
        dcl(File::Address, 0, 0),
        Statement::Declaration(arr),
        op(
            Opcode::MOV,
            vec![d(File::Output, 0)],
            vec![SrcOperand::new(reg)],
        ),
    ]);
    assert_clean(&sh);
}

/// Mesa splits a `dvec` varying into two declarations of one register with
/// disjoint masks, and its dumper prints the pair without masks; both forms
/// validate, a real conflict does not.
#[test]
fn one_register_split_into_two_declarations() {
    let text = |decls: &str| {
        format!(
            "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n{decls}IMM[0] FLT32 {{1.0, 2.0, 3.0, 4.0}}\n\
             0: MOV OUT[0], IN[0]\n1: MOV OUT[2].xy, IMM[0].xyxy\n2: MOV OUT[2].zw, IMM[0].zwzw\n3: END\n"
        )
    };
    for ok in [
        "DCL OUT[2], GENERIC[1]\nDCL OUT[2], GENERIC[1]\n",
        "DCL OUT[2].xy, GENERIC[1]\nDCL OUT[2].zw, GENERIC[1]\n",
    ] {
        let (sh, _) = crate::assemble(&text(ok)).unwrap_or_else(|d| panic!("{ok}: {d:?}"));
        assert_clean(&sh);
    }
    for (bad, why) in [
        (
            "DCL OUT[2], GENERIC[1]\nDCL OUT[2], GENERIC[2]\n",
            "semantic index",
        ),
        (
            "DCL OUT[2], GENERIC[1]\nDCL OUT[2], COLOR[1]\n",
            "semantic name",
        ),
        (
            "DCL OUT[2].xy, GENERIC[1]\nDCL OUT[2].yz, GENERIC[1]\n",
            "overlapping masks",
        ),
        (
            "DCL OUT[2].xy, GENERIC[1]\nDCL OUT[2], GENERIC[1]\n",
            "a mask against all",
        ),
        (
            "DCL OUT[2..3], GENERIC[1]\nDCL OUT[2], GENERIC[1]\n",
            "different ranges",
        ),
    ] {
        let (shader, _) = crate::parse(&text(bad)).unwrap_or_else(|d| panic!("{why}: {d:?}"));
        assert_error(&shader, "OUT[2] is declared more than once");
    }
}

#[test]
fn overlapping_declarations_are_reported() {
    let sh = frag(vec![dcl(File::Temp, 2, 5)]);
    assert_error(&sh, "TEMP[2] is declared more than once");
    assert_clean(&frag(vec![dcl(File::Temp, 4, 5)]));
    let mut a = Declaration::new(File::Temp, 4, 5);
    a.array_id = Some(1);
    let mut b = Declaration::new(File::Temp, 6, 7);
    b.array_id = Some(1);
    assert_error(
        &frag(vec![Statement::Declaration(a), Statement::Declaration(b)]),
        "ARRAY(1) of TEMP is declared twice",
    );
}

#[test]
fn declarations_after_instructions_are_errors_properties_are_not() {
    let sh = frag(vec![
        op(
            Opcode::MOV,
            vec![d(File::Output, 0)],
            vec![s(File::Input, 0)],
        ),
        dcl(File::Temp, 9, 9),
    ]);
    assert_error(&sh, "declaration after the first instruction");
    let sh = frag(vec![
        op(
            Opcode::MOV,
            vec![d(File::Output, 0)],
            vec![s(File::Input, 0)],
        ),
        prop(PropertyName::FsCoordOrigin, 1),
    ]);
    assert_clean(&sh);
}

#[test]
fn operand_counts_come_from_the_table() {
    let sh = frag(vec![op(
        Opcode::ADD,
        vec![d(File::Output, 0)],
        vec![s(File::Input, 0)],
    )]);
    assert_error(
        &sh,
        "ADD takes 1 destination and 2 sources, found 1 destination and 1 source",
    );
}

#[test]
fn read_only_files_cannot_be_written() {
    for file in [File::Input, File::Const, File::Immediate, File::SystemValue] {
        let sh = frag(vec![op(
            Opcode::MOV,
            vec![d(file, 0)],
            vec![s(File::Input, 0)],
        )]);
        assert_error(&sh, "cannot write");
    }
    let sh = frag(vec![op(
        Opcode::MOV,
        vec![d(File::Null, 0)],
        vec![s(File::Input, 0)],
    )]);
    assert_clean(&sh);
}

#[test]
fn empty_writemask_is_an_error() {
    let sh = frag(vec![op(
        Opcode::MOV,
        vec![dm(File::Output, 0, WriteMask::empty())],
        vec![s(File::Input, 0)],
    )]);
    assert_error(&sh, "writemask is empty");
}

#[test]
fn sixty_four_bit_writemasks_take_whole_pairs() {
    let dadd = |mask| {
        frag(vec![op(
            Opcode::DADD,
            vec![dm(File::Temp, 0, mask)],
            vec![s(File::Temp, 1), s(File::Temp, 2)],
        )])
    };
    assert_error(&dadd(WriteMask::X), "splits a pair");
    assert_error(&dadd(WriteMask::X | WriteMask::Z), "splits a pair");
    assert_clean(&dadd(WriteMask::X | WriteMask::Y));
    assert_clean(&dadd(WriteMask::XYZW));
    // compares write one channel per pair: .x is what Mesa emits
    let dslt = |mask| {
        frag(vec![op(
            Opcode::DSLT,
            vec![dm(File::Temp, 0, mask)],
            vec![s(File::Temp, 1), s(File::Temp, 2)],
        )])
    };
    assert_clean(&dslt(WriteMask::X));
    assert_warning_only(
        &dslt(WriteMask::X | WriteMask::Y),
        "one 32-bit result per pair",
    );
}

#[test]
fn resource_operands_must_name_resources() {
    let mut sh = frag(vec![dcl(File::Sampler, 0, 0)]);
    let mut tex = Instruction::new(
        Opcode::TEX,
        vec![d(File::Temp, 0)],
        vec![s(File::Input, 0), s(File::Sampler, 0)],
    );
    tex.texture.as_mut().unwrap().target = TextureTarget::Tex2D;
    sh.statements
        .insert(sh.statements.len() - 1, Statement::Instruction(tex.clone()));
    assert_clean(&sh);

    let mut no_target = sh.clone();
    let n = no_target.statements.len();
    if let Statement::Instruction(i) = &mut no_target.statements[n - 2] {
        i.texture.as_mut().unwrap().target = TextureTarget::Unknown;
    }
    assert_error(&no_target, "TEX needs a texture target");

    let mut wrong = sh.clone();
    if let Statement::Instruction(i) = &mut wrong.statements[n - 2] {
        i.src[1] = s(File::Temp, 0);
    }
    assert_error(&wrong, "source 1 must be a SAMP resource");

    let mut as_value = sh.clone();
    if let Statement::Instruction(i) = &mut as_value.statements[n - 2] {
        i.src[0] = s(File::Sampler, 0);
    }
    assert_error(&as_value, "source 0 must be a value register");

    let store = frag(vec![op(
        Opcode::STORE,
        vec![d(File::Temp, 0)],
        vec![s(File::Temp, 1), s(File::Temp, 2)],
    )]);
    assert_error(&store, "STORE stores to a BUFFER, IMAGE or MEMORY resource");
}

#[test]
fn memory_index_mismatch_is_only_a_warning() {
    let mut mem = Declaration::new(File::Memory, 1, 1);
    mem.mem_type = tgsi_ir::enums::MemType::Shared;
    let sh = shader(
        Processor::Compute,
        vec![
            Statement::Declaration(mem),
            dcl(File::Temp, 0, 1),
            op(
                Opcode::LOAD,
                vec![d(File::Temp, 0)],
                vec![s(File::Memory, 0), s(File::Temp, 1)],
            ),
            end(),
        ],
    );
    assert_warning_only(&sh, "MEMORY[0] is not declared");
    let mut twice = sh.clone();
    let load = twice.statements[2].clone();
    twice.statements.insert(2, load);
    assert_eq!(
        validate(&twice, None).0.len(),
        1,
        "one warning per register"
    );
}

#[test]
fn block_structure() {
    let iff = |label| labelled(Opcode::IF, vec![s(File::Input, 0)], label);
    let bare = |o| op(o, vec![], vec![]);
    // 0: IF :1  1: ELSE  2: ENDIF
    assert_clean(&frag(vec![iff(1), bare(Opcode::ELSE), bare(Opcode::ENDIF)]));
    assert_error(&frag(vec![bare(Opcode::ENDIF)]), "ENDIF without IF");
    assert_error(&frag(vec![iff(0)]), "IF is never closed");
    assert_error(
        &frag(vec![
            iff(0),
            bare(Opcode::ELSE),
            bare(Opcode::ELSE),
            bare(Opcode::ENDIF),
        ]),
        "a second ELSE",
    );
    assert_error(
        &frag(vec![bare(Opcode::BGNLOOP), iff(0), bare(Opcode::ENDLOOP)]),
        "IF is not closed before the ENDLOOP",
    );
    assert_error(
        &frag(vec![bare(Opcode::BRK)]),
        "BRK outside a loop or switch",
    );
    assert_clean(&frag(vec![
        bare(Opcode::BGNLOOP),
        iff(0),
        bare(Opcode::BRK),
        bare(Opcode::ENDIF),
        bare(Opcode::CONT),
        bare(Opcode::ENDLOOP),
    ]));
    let switch = |body: Vec<Statement>| {
        let mut v = vec![op(Opcode::SWITCH, vec![], vec![s(File::Immediate, 0)])];
        v.extend(body);
        v.push(bare(Opcode::ENDSWITCH));
        frag(v)
    };
    let case = || op(Opcode::CASE, vec![], vec![s(File::Immediate, 0)]);
    assert_clean(&switch(vec![
        case(),
        bare(Opcode::BRK),
        bare(Opcode::DEFAULT),
        bare(Opcode::BRK),
    ]));
    assert_error(
        &switch(vec![bare(Opcode::DEFAULT), bare(Opcode::DEFAULT)]),
        "a second DEFAULT",
    );
    assert_error(
        &switch(vec![case(), bare(Opcode::CONT)]),
        "CONT outside a loop",
    );
    assert_error(&frag(vec![case()]), "CASE outside a SWITCH");
}

#[test]
fn end_must_be_there_once_at_top_level() {
    let mut sh = frag(vec![]);
    sh.statements.pop();
    assert_error(&sh, "missing END");
    assert_error(&frag(vec![end()]), "a second END");
    assert_error(
        &frag(vec![
            op(Opcode::BGNLOOP, vec![], vec![]),
            end(),
            op(Opcode::ENDLOOP, vec![], vec![]),
        ]),
        "END inside an open BGNLOOP",
    );
    assert_error(&shader(Processor::Fragment, vec![]), "missing END");
}

#[test]
fn subroutines_and_calls() {
    let bare = |o| op(o, vec![], vec![]);
    let cal = |label| {
        let mut i = Instruction::new(Opcode::CAL, vec![], vec![]);
        i.label = Some(label);
        Statement::Instruction(i)
    };
    // 0: CAL :2  1: END  2: BGNSUB  3: RET  4: ENDSUB
    let good = shader(
        Processor::Vertex,
        vec![
            cal(2),
            end(),
            bare(Opcode::BGNSUB),
            bare(Opcode::RET),
            bare(Opcode::ENDSUB),
        ],
    );
    assert_clean(&good);
    let mut bad = good.clone();
    bad.statements[0] = cal(3);
    assert_error(&bad, "CAL label :3 names a RET, not a BGNSUB");
    bad.statements[0] = cal(9);
    assert_error(&bad, "beyond the last instruction");
    let mut nested = good.clone();
    nested.statements.insert(2, bare(Opcode::BGNLOOP));
    nested.statements.push(bare(Opcode::ENDLOOP));
    assert_error(&nested, "BGNSUB inside an open BGNLOOP");
}

#[test]
fn branch_labels() {
    let iff = |label| labelled(Opcode::UIF, vec![s(File::Input, 0)], label);
    let bare = |o| op(o, vec![], vec![]);
    // instructions: 0 UIF, 1 ENDIF, 2 END
    assert_clean(&frag(vec![iff(1), bare(Opcode::ENDIF)]));
    assert_clean(&frag(vec![iff(0), bare(Opcode::ENDIF)]));
    assert_warning_only(
        &frag(vec![iff(2), bare(Opcode::ENDIF)]),
        "does not name its ELSE/ENDIF",
    );
    assert_error(
        &frag(vec![iff(3), bare(Opcode::ENDIF)]),
        "beyond the last instruction",
    );
    assert_error(
        &frag(vec![labelled(Opcode::MOV, vec![], 0)]),
        "MOV takes no label",
    );
}

#[test]
fn stage_only_opcodes() {
    let vert = |o: Opcode, dst: Vec<DstOperand>, src: Vec<SrcOperand>| {
        shader(
            Processor::Vertex,
            vec![
                dcl(File::Input, 0, 0),
                dcl(File::Temp, 0, 0),
                op(o, dst, src),
                end(),
            ],
        )
    };
    assert_error(
        &vert(Opcode::KILL, vec![], vec![]),
        "only in fragment shaders",
    );
    assert_error(
        &vert(Opcode::EMIT, vec![], vec![s(File::Input, 0)]),
        "only in geometry shaders",
    );
    assert_error(&vert(Opcode::BARRIER, vec![], vec![]), "BARRIER");
    assert_warning_only(
        &vert(Opcode::DDX, vec![d(File::Temp, 0)], vec![s(File::Input, 0)]),
        "outside a fragment shader",
    );
}

#[test]
fn properties_belong_to_their_stage() {
    assert_error(
        &frag(vec![prop(
            PropertyName::GsInputPrimitive,
            Primitive::Triangles as u32,
        )]),
        "configures GEOM shaders",
    );
    let tcs = shader(
        Processor::TessCtrl,
        vec![prop(PropertyName::TcsVerticesOut, 40), end()],
    );
    assert_error(&tcs, "TCS_VERTICES_OUT is 1 to 32");
    assert_warning_only(
        &frag(vec![
            prop(PropertyName::FsCoordOrigin, 0),
            prop(PropertyName::FsCoordOrigin, 1),
        ]),
        "set twice",
    );
}

#[test]
fn geometry_inputs_are_per_vertex() {
    let mut input = Register::new(File::Input, 0);
    input.dimension = Some(Index::direct(2));
    let gs = |vertex: i32| {
        let mut r = input;
        r.dimension = Some(Index::direct(vertex));
        shader(
            Processor::Geometry,
            vec![
                prop(PropertyName::GsInputPrimitive, Primitive::Triangles as u32),
                prop(
                    PropertyName::GsOutputPrimitive,
                    Primitive::TriangleStrip as u32,
                ),
                dcl(File::Input, 0, 0),
                dcl(File::Output, 0, 0),
                op(
                    Opcode::MOV,
                    vec![d(File::Output, 0)],
                    vec![SrcOperand::new(r)],
                ),
                end(),
            ],
        )
    };
    assert_clean(&gs(2));
    assert_error(&gs(3), "vertex index 3 is out of range");
}

#[test]
fn all_errors_are_reported_at_once() {
    let sh = frag(vec![
        op(Opcode::MOV, vec![d(File::Input, 0)], vec![s(File::Temp, 9)]),
        op(Opcode::BRK, vec![], vec![]),
        op(Opcode::ENDIF, vec![], vec![]),
    ]);
    let d = validate(&sh, None);
    assert!(errors(&d).len() >= 4, "{d:#?}");
}

/// Every `.tgsi` file under `dir` (recursively), sorted.
fn tgsi_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "tgsi") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The real shaders of the corpus (Mesa's tests and tools, what Mesa makes of
/// GLSL, virgl's wire form, softpipe's internal shaders) must all validate
/// without errors; this lists every error of every file that fails.
#[test]
fn corpus_shaders_validate_without_errors() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/corpus");
    let mut files = tgsi_files(&root.join("accepted"));
    files.extend(tgsi_files(&root.join("mesa-generated")));
    assert!(
        files.len() >= 300,
        "corpus not found under {}",
        root.display()
    );
    let mut failures = Vec::new();
    let mut parse_failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("corpus file reads");
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        match crate::parse(&text) {
            Err(d) => parse_failures.push(format!("{name}: {d}")),
            Ok((shader, map)) => {
                let d = validate(&shader, Some(&map));
                if d.has_errors() {
                    failures.push(d.render(&name, &text));
                } else if !d.0.is_empty() {
                    // warnings are allowed; show them with --nocapture
                    println!("{}", d.render(&name, &text));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} corpus shaders fail validation:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        parse_failures.is_empty(),
        "{} corpus shaders do not parse:\n{}",
        parse_failures.len(),
        parse_failures.join("\n")
    );
}

/// Parses `src` and validates it with its source map: (message, text under
/// the primary span) of every error.
fn text_errors(src: &str) -> Vec<(String, String)> {
    let (shader, map) = match crate::parse(src) {
        Ok(x) => x,
        Err(d) => panic!("test shader does not parse: {d}\n{src}"),
    };
    validate(&shader, Some(&map))
        .0
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let under = d
                .primary
                .as_ref()
                .map(|l| src[l.span.start..l.span.end].to_string())
                .unwrap_or_default();
            (d.message, under)
        })
        .collect()
}

#[track_caller]
fn assert_text_error(src: &str, message: &str, under: &str) {
    let errs = text_errors(src);
    assert!(
        errs.iter()
            .any(|(m, u)| m.contains(message) && u.trim() == under),
        "expected an error containing {message:?} at {under:?}, got {errs:#?}"
    );
}

#[test]
fn text_undeclared_operand_points_at_the_operand() {
    let src = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\n  0: MOV OUT[0], TEMP[1].xxxx\n  1: END\n";
    assert_text_error(src, "TEMP[1] is not declared", "TEMP[1].xxxx");
}

#[test]
fn text_checks_each_report_at_their_statement() {
    let head =
        "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\nIMM[0] FLT32 { 0.0, 1.0, 0.0, 0.0 }\n";
    let with = |body: &str| format!("{head}{body}");
    assert_text_error(
        &with("DADD TEMP[0].x, TEMP[1], TEMP[1]\nEND\n"),
        "splits a pair",
        "TEMP[0].x",
    );
    assert_text_error(
        &with("MOV IN[0], TEMP[1]\nEND\n"),
        "cannot write IN[0]",
        "IN[0]",
    );
    assert_text_error(
        &with("MOV TEMP[0], IMM[3]\nEND\n"),
        "IMM[3] does not exist",
        "IMM[3]",
    );
    assert_text_error(&with("ENDIF\nEND\n"), "ENDIF without IF", "ENDIF");
    assert_text_error(
        &with("UIF TEMP[0].xxxx :1\nEND\n"),
        "UIF is never closed",
        "UIF TEMP[0].xxxx :1",
    );
    assert_text_error(
        &with("MOV TEMP[0], IN[0]\n"),
        "missing END",
        "MOV TEMP[0], IN[0]",
    );
    assert_text_error(
        &with("BGNLOOP\nEND\nENDLOOP\n"),
        "END inside an open BGNLOOP",
        "END",
    );
    assert_text_error(
        &with("MOV TEMP[0], IN[0]\nDCL TEMP[5]\nEND\n"),
        "declaration after the first instruction",
        "DCL TEMP[5]",
    );
    assert_text_error(
        &with("EMIT IMM[0].xxxx\nEND\n"),
        "only in geometry shaders",
        "EMIT IMM[0].xxxx",
    );
    // every problem at once
    let errs = text_errors(&with("MOV IN[0], TEMP[7]\nBRK\nCASE IMM[0].xxxx\n"));
    assert_eq!(errs.len(), 5, "{errs:#?}");
}

#[test]
fn text_geometry_shader_vertices() {
    let gs = |v: u32| {
        format!(
            "GEOM\nPROPERTY GS_INPUT_PRIMITIVE LINES\nPROPERTY GS_OUTPUT_PRIMITIVE LINE_STRIP\n\
             PROPERTY GS_MAX_OUTPUT_VERTICES 2\nDCL IN[][0], POSITION\nDCL OUT[0], POSITION\n\
             IMM[0] UINT32 {{ 0, 0, 0, 0 }}\nMOV OUT[0], IN[{v}][0]\nEMIT IMM[0].xxxx\nEND\n"
        )
    };
    assert!(text_errors(&gs(1)).is_empty(), "{:#?}", text_errors(&gs(1)));
    assert_text_error(&gs(2), "vertex index 2 is out of range", "IN[2][0]");
}

#[test]
fn a_register_file_past_the_machines_size_is_a_warning() {
    let with_temps = |last| {
        shader(
            Processor::Compute,
            vec![
                dcl(File::Temp, 0, last),
                dcl(File::Output, 4090, 4095),
                end(),
            ],
        )
    };
    assert_clean(&with_temps(4095));
    assert_warning_only(&with_temps(4096), "TEMP[0..4096] needs 4097 entries");
    assert_warning_only(&with_temps(65_535), "machine runs at most 4096 entries");
}

#[test]
fn nesting_and_block_sizes_past_the_machines_are_warnings() {
    let nested = |n: usize| {
        let text = format!(
            "COMP\n{}{}END\n",
            "BGNLOOP\n".repeat(n),
            "ENDLOOP\n".repeat(n)
        );
        crate::parse(&text).unwrap().0
    };
    assert_clean(&nested(64));
    assert_warning_only(
        &nested(65),
        "blocks nested 65 deep: the machine runs at most 64",
    );
    let block = |w: u32| {
        let text = format!(
            "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH {w}\nPROPERTY CS_FIXED_BLOCK_HEIGHT 2\nEND\n"
        );
        crate::parse(&text).unwrap().0
    };
    assert_clean(&block(32768));
    assert_warning_only(&block(32769), "a block of 32769x2x1 = 65538 invocations");
    // the END counts: 262,143 NOPs and END run, one more NOP does not
    let long = |nops: usize| {
        crate::parse(&format!("COMP\n{}END\n", "NOP\n".repeat(nops)))
            .unwrap()
            .0
    };
    let immediates = |n: usize| {
        let imms: String = (0..n)
            .map(|k| format!("IMM[{k}] UINT32 {{{k}, 0, 0, 0}}\n"))
            .collect();
        crate::parse(&format!("COMP\n{imms}END\n")).unwrap().0
    };
    assert_clean(&immediates(4096));
    assert_warning_only(
        &immediates(4097),
        "the shader has 4097 immediates (IMM[0..4096]): the machine runs at most 4096 entries",
    );
    assert_clean(&long((1 << 18) - 1));
    assert_warning_only(
        &long(1 << 18),
        "the program has 262145 instructions: the machine runs at most 262144",
    );
}

/// SAMPLE-family opcodes sample any view but a buffer or a multisampled
/// one, SAMPLE_I and SAMPLE_I_MS fetch from any but a cube: known from a
/// directly indexed view's declaration, reported at the view.
#[test]
fn sampled_and_fetched_views_have_targets_that_allow_it() {
    let program = |target: &str, body: &str| {
        format!(
            "COMP\nDCL SVIEW[0], {target}, FLOAT\nDCL SAMP[0]\nDCL TEMP[0]\n\
             IMM[0] UINT32 {{0, 0, 0, 0}}\n{body}\nEND\n"
        )
    };
    let sample = "SAMPLE TEMP[0], IMM[0], SVIEW[0], SAMP[0]";
    let fetch = "SAMPLE_I TEMP[0], IMM[0], SVIEW[0]";
    for target in ["BUFFER", "2D_MSAA", "2D_ARRAY_MSAA"] {
        assert_text_error(
            &program(target, sample),
            &format!("SAMPLE cannot sample SVIEW[0], declared {target}"),
            "SVIEW[0]",
        );
        assert!(text_errors(&program(target, fetch)).is_empty(), "{target}");
    }
    for target in ["CUBE", "CUBEARRAY", "SHADOWCUBE"] {
        assert_text_error(
            &program(target, fetch),
            &format!("SAMPLE_I cannot fetch from SVIEW[0], declared {target}"),
            "SVIEW[0]",
        );
        assert!(text_errors(&program(target, sample)).is_empty(), "{target}");
    }
    for target in ["2D", "3D", "1D_ARRAY"] {
        assert!(text_errors(&program(target, sample)).is_empty(), "{target}");
        assert!(text_errors(&program(target, fetch)).is_empty(), "{target}");
    }
}
