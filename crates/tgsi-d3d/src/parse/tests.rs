//! The listing parser's tests: every construct, fxc's and vkd3d's
//! spellings, the printer's markers read back, and the errors.

use super::*;
use crate::print::print_program;

fn ok(src: &str) -> Program {
    match parse_program(src) {
        Ok((p, _)) => p,
        Err(d) => panic!("{}", d.render("test.asm", src)),
    }
}

fn err(src: &str) -> String {
    match parse_program(src) {
        Ok(_) => panic!("expected an error for {src:?}"),
        Err(d) => d.render("test.asm", src),
    }
}

#[test]
fn parses_the_ps_div_example_to_its_words() {
    let p = ok(
        "ps_5_0\ndcl_globalFlags refactoringAllowed\ndcl_constantbuffer CB0[2], immediateIndexed\ndcl_output o0.xyzw\ndiv o0.x, cb0[0].x, cb0[1].x\nmov o0.yzw, l(0,0,0,0)\nret \n",
    );
    let words = encode_program(&p).unwrap();
    assert_eq!(words, crate::test_words::PS_DIV);
}

#[test]
fn suffix_notes_spell_the_table_names() {
    assert_eq!(
        suffix_note(Opcode::Sync.info()),
        "`sync` takes: `_uglobal`, `_ugroup`, `_g`, `_t`"
    );
    assert_eq!(
        suffix_note(Opcode::Breakc.info()),
        "`breakc` takes: `_z`/`_nz`"
    );
}

#[test]
fn suffixes_and_extended_tokens() {
    let p = ok(
        "ps_5_0\nsample_c_lz_aoffimmi_indexable(-1,-1,0)(texture2d)(float,float,float,float) r9.xyzw, r1.xyxx, t1.xyzw, s2, r0.x\nresinfo_indexable(texture2d)(float,float,float,float)_uint r0.xy, l(0), t0.xyzw\nsync_uglobal_g_t\nif_nz r0.x\nendif\nld_structured_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) r0.x, r0.x, l(0), t0.xxxx\n",
    );
    let s = &p.instructions[0];
    assert_eq!(s.opcode, Opcode::SampleCLz);
    assert_eq!(
        s.extended,
        vec![
            ExtendedOpcode::SampleControls {
                offsets: [-1, -1, 0]
            },
            ExtendedOpcode::ResourceDim {
                dimension: ResourceDimension::Texture2D,
                stride: 0
            },
            ExtendedOpcode::ResourceReturnType([ReturnType::Float; 4]),
        ]
    );
    assert_eq!(s.operands[4].components, Components::Select(0));
    assert_eq!(
        p.instructions[1].controls.info_return.0,
        InfoReturnType::Uint
    );
    assert_eq!(
        p.instructions[2].controls.sync,
        crate::enums::SyncFlags::all() - crate::enums::SyncFlags::UAV_MEMORY_GROUP
    );
    assert_eq!(p.instructions[3].controls.test.0, Test::NonZero);
    assert_eq!(
        p.instructions[5].extended[0],
        ExtendedOpcode::ResourceDim {
            dimension: ResourceDimension::StructuredBuffer,
            stride: 16
        }
    );
}

#[test]
fn operands_indices_and_annotations() {
    let p = ok(
        "hs_5_0\nmov o[r0.x + 0].x, cb0[8].z\nadd r0.x, -|r1.y|, x0[r1.x + 2].x\nmov r0.x {min16f}, v[0][3].x {def32 as min16f}\nmov r0.xy, icb[r2.w + 0].xyxx\n",
    );
    let mov = &p.instructions[0];
    assert!(
        matches!(&mov.operands[0].indices[0], Index::Relative(r) if r.file == RegisterFile::Temp)
    );
    let add = &p.instructions[1];
    assert_eq!(add.operands[1].modifier, OperandModifier::AbsNeg);
    assert!(matches!(
        &add.operands[2].indices[1],
        Index::Imm32Relative(2, _)
    ));
    assert_eq!(
        p.instructions[2].operands[0].min_precision,
        MinPrecision::Float16
    );
    assert_eq!(
        p.instructions[2].operands[1].indices,
        vec![Index::Imm32(0), Index::Imm32(3)]
    );
    assert_eq!(
        p.instructions[3].operands[1].file,
        RegisterFile::ImmediateConstantBuffer
    );
}

#[test]
fn declarations_round_trip_through_the_printer() {
    let src = "ps_5_1\n\
dcl_globalFlags refactoringAllowed | enableMinimumPrecision\n\
dcl_constantbuffer CB2[2:*][1], dynamicIndexed, space=3\n\
dcl_sampler S1[0:4], mode_comparison, space=2\n\
dcl_resource_texture2dms(8) (float,float,float,float) T0[2:6], space=0\n\
dcl_resource_structured T1[1:1], 16, space=0\n\
dcl_uav_structured_glc_opc U0[0:0], 4, space=0\n\
dcl_uav_typed_texture2d_rov (unorm,unorm,unorm,unorm) U4[3:7], space=2\n\
dcl_input_ps_siv linear noperspective sample v7.xyzw, position\n\
dcl_input_ps constant v0.x {min16f}\n\
dcl_input vCoverage\n\
dcl_output oDepth\n\
dcl_indexableTemp x0[12], 4\n\
dcl_immediateConstantBuffer { { 1.000000, 0, 0, 0},\n                              { 0, 1.000000, -1, 0x80000000} }\n\
dcl_temps 3\n\
mov oDepth, l(0.500000)\n\
ret \n";
    let p = ok(src);
    let printed = print_program(&p);
    assert_eq!(ok(&printed), p, "{printed}");
    assert_eq!(printed, src);
}

#[test]
fn hull_geometry_and_interfaces() {
    let src = "hs_5_0\nhs_decls \ndcl_input_control_point_count 3\ndcl_tessellator_domain domain_tri\ndcl_tessellator_partitioning partitioning_fractional_even\ndcl_tessellator_output_primitive output_triangle_cw\ndcl_hs_max_tessfactor l(64.000000)\ndcl_function_body fb0\ndcl_function_table ft0 = {fb0}\ndcl_interface_dynamicindexed fp0[1][1] = {ft0}\nhs_fork_phase \ndcl_hs_fork_phase_instance_count 3\ndcl_input vForkInstanceID\ndcl_indexrange o0.x 3\nfcall fp0[0][0]\nret \nlabel fb0\nmov r2.xy, this[0].yxyy\nret \n";
    let p = ok(src);
    assert_eq!(print_program(&p), src);
    let gs = "gs_5_0\ndcl_inputprimitive triangle \ndcl_outputtopology trianglestrip \ndcl_stream m0\ndcl_maxout 3\ndcl_gsinstances 4\nemit_stream m0\ncut_stream m0\nret \n";
    assert_eq!(print_program(&ok(gs)), gs);
}

#[test]
fn fxc_header_wrapper_comments_and_messages() {
    let src = "#if 0\n//\n// Generated by fxc\n//\ncs_5_0\ndcl_thread_group 1, 1, 1\n#line 3 \"a.hlsl\"\nprintf \"a \"q\" %d\\n\", r0.x  // r0.x <- v\nerrorf \"x\"\nret \n// Approximately 1 instruction slots used\n#endif\n\nconst BYTE g_CS[] =\n{\n     68,  88, 66, 67\n};\n";
    let p = ok(src);
    match &p.instructions[1].payload {
        Payload::CustomData(CustomData::ShaderMessage(m)) => {
            assert_eq!(m.text, b"a \"q\" %d\n");
            assert_eq!(m.operands.len(), 1);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn vkd3d_and_lower_case_spellings() {
    let p = ok(
        "ps_4_1\ndcl_input_ps_siv linear v0.x, sample_index\nld2dms r0.xyzw, v0.xyzw, t0.xyzw, l(0)\nemitthencut\nsample_info r0.x, rasterizer\nmov r0.x, l(1.00000000e+00)\n",
    );
    assert_eq!(p.instructions[1].opcode, Opcode::LdMs);
    assert_eq!(p.instructions[2].opcode, Opcode::EmitThenCut);
    assert_eq!(p.instructions[4].operands[1].values, vec![0x3f80_0000]);
    assert_eq!(
        p.instructions[0].payload,
        Payload::Name(SystemValue::SampleIndex)
    );
}

#[test]
fn errors_name_what_was_expected() {
    let e = err("ps_5_0\nmove r0.x, r1.x\nadd r0.x, r1.x\nmov r0.yx, r1.x\n");
    assert!(e.contains("unknown instruction `move`"), "{e}");
    assert!(e.contains("did you mean `mov`"), "{e}");
    assert!(e.contains("`add` takes 3 operands"), "{e}");
    assert!(e.contains("bad write mask `.yx`"), "{e}");
    assert!(err("mov r0.x, r1.x\n").contains("missing version line"));
    assert!(err("FRAG\nDCL IN[0]\n").contains("TGSI"));
    assert!(err("ps_2_0\nmov r0, c0\n").contains("Direct3D 9"));
    assert!(
        err("ps_5_0\nsample_aoffimmi(9,0,0) r0.xyzw, v0.xyxx, t0.xyzw, s0\n").contains("-8 to 7")
    );
    assert!(
        err("ps_5_0\ndcl_immediateConstantBuffer { { 1, 2, 3, 4},\nret \n")
            .contains("unterminated")
    );
    assert!(err("ps_5_0\nif r0.x\n").contains("test suffix"));
    assert!(err("ps_5_0\nand_sat r0.x, r0.x, r0.x\n").contains("not a suffix"));
}

/// Programs the printer marks (bits fxc never shows) read back exactly.
#[test]
fn immediates_read_back_their_indices() {
    let p = ok("ps_5_0\nmov r0.x, l(1)[3]\nmov r0.xy, d(1.000000l)[r1.x + 2][4l]\n");
    assert_eq!(p.instructions[0].operands[1].indices, vec![Index::Imm32(3)]);
    let d = &p.instructions[1].operands[1];
    assert_eq!(d.values, vec![0, 0x3ff0_0000]);
    assert!(matches!(d.indices[0], Index::Imm32Relative(2, _)));
    assert_eq!(d.indices[1], Index::Imm64(4));
    assert_eq!(
        print_program(&p),
        "ps_5_0\nmov r0.x, l(1)[3]\nmov r0.xy, d(1.000000l)[r1.x + 2][4l]\n"
    );
    assert!(err("ps_5_0\nmov r0.x, l(1)[1][2][3][4]\n").contains("at most 3 indices"));
}

#[test]
fn printer_markers_read_back_to_the_same_ir() {
    use crate::print::{PrintOptions, print_program_with};
    let v = Version {
        program_type: ProgramType::Pixel,
        major: 5,
        minor: 0,
    };
    let r = |i: u32, c: Components| Operand::register(RegisterFile::Temp, &[i], c);
    let mut odd_components = Instruction::new(
        Opcode::Add,
        vec![
            r(0, Components::Swizzle([0, 1, 2, 3])),
            r(1, Components::None),
            r(2, Components::One),
        ],
    );
    odd_components.controls.precise = 0b0101;
    odd_components.controls.saturate = true;
    let mut ext = r(3, Components::Select(2));
    ext.force_extended = true;
    ext.non_uniform = true;
    let mut wide = r(4, Components::XYZW);
    wide.indices = vec![
        Index::Imm64(5),
        Index::Imm32Relative(0, Box::new(r(0, Components::Select(1)))),
    ];
    wide.indices.truncate(2);
    wide.file = RegisterFile::IndexableTemp;
    let mut rel64 = r(0, Components::Select(0));
    rel64.file = RegisterFile::IndexableTemp;
    rel64.indices = vec![
        Index::Imm32(1),
        Index::Imm64Relative(7, Box::new(r(2, Components::Select(3)))),
    ];
    let mov = Instruction::new(Opcode::Mov, vec![r(5, Components::Mask(0)), ext]);
    let movc = Instruction::new(
        Opcode::Movc,
        vec![
            r(6, Components::Mask(0xF)),
            wide,
            rel64,
            Operand::imm32(&[0x7fc0_0001, 1, 0x3eaa_aaab, 0x8000_0000]),
        ],
    );
    let mut trailing = Instruction::new(
        Opcode::Mov,
        vec![r(0, Components::Mask(1)), Operand::imm32(&[0x0000_0001])],
    );
    trailing.trailing = vec![0xdead_beef, 0];
    let mut dmov = Instruction::new(
        Opcode::Dmov,
        vec![
            r(0, Components::Mask(3)),
            Operand::imm64(&[0x3fd5_5555_5555_5555]),
        ],
    );
    dmov.controls.precise = 0xF;
    let comment = custom(CustomData::Other {
        class: 0,
        data: vec![1, 2, 0xFFFF_FFFF],
    });
    let message = custom(CustomData::ShaderMessage(ShaderMessage {
        message_id: 0x0020_0105,
        format: 0,
        text: b"q\"\\\x01\xff end".to_vec(),
        operands: vec![Operand::imm32(&[0x3f80_0000]), r(1, Components::Select(0))],
    }));
    let icb = custom(CustomData::ImmediateConstantBuffer(vec![
        0x3eaa_aaab,
        7,
        0xFFFF_FFFF,
        0x0000_0001,
        0x4000_0000,
    ]));
    let mut resource = Instruction::new(
        Opcode::DclResource,
        vec![Operand::register(
            RegisterFile::Resource,
            &[0],
            Components::None,
        )],
    );
    resource.controls.resource_dimension = ResourceDimensionControl(ResourceDimension::Texture2D);
    resource.payload = Payload::ReturnTypes {
        types: [ReturnType::Float; 4],
        space: None,
    };
    resource.extended = vec![
        ExtendedOpcode::ResourceReturnType([ReturnType::Uint; 4]),
        ExtendedOpcode::SampleControls {
            offsets: [1, -8, 7],
        },
    ];
    let program = Program {
        version: v,
        instructions: vec![
            odd_components,
            mov,
            movc,
            trailing,
            dmov,
            comment,
            message,
            icb,
            resource,
        ],
    };
    let text = print_program_with(
        &program,
        &PrintOptions {
            exact_floats: true,
            ..PrintOptions::default()
        },
    );
    let back = ok(&text);
    for (a, b) in back.instructions.iter().zip(&program.instructions) {
        assert_eq!(a, b, "{text}");
    }
    assert_eq!(back, program, "{text}");
    assert!(
        text.contains("{components=1}")
            && text.contains("{ext}")
            && text.contains("{extended=")
            && text.contains("{trailing="),
        "{text}"
    );
}

#[test]
fn source_map_points_at_mnemonics_and_operands() {
    let src = "ps_5_0\n  add_sat r0.x, -r1.x, l(1.000000) // c\nret \n";
    let (_, map) = parse_program(src).unwrap();
    assert_eq!(map.kind, SourceKind::Text);
    assert_eq!(&src[map.version.start..map.version.end], "ps_5_0");
    let add = &map.instructions[0];
    assert_eq!(
        &src[add.span.start..add.span.end],
        "add_sat r0.x, -r1.x, l(1.000000)"
    );
    assert_eq!(&src[add.mnemonic.start..add.mnemonic.end], "add_sat");
    let ops: Vec<&str> = add.operands.iter().map(|s| &src[s.start..s.end]).collect();
    assert_eq!(ops, vec!["r0.x", "-r1.x", "l(1.000000)"]);
    assert_eq!(map.instructions.len(), 2);
}

#[test]
fn version_lines() {
    assert_eq!(
        parse_version("lib_4_0_level_9_1_vs_only").map(|v| v.program_type),
        Ok(ProgramType::Library)
    );
    assert!(parse_version("ps_6_0").is_err());
    assert!(parse_version("fx_5_0").is_err());
    assert!(is_dx9_version("ps_2_x"));
    assert!(!is_version_shaped("hs_decls"));
    // Windows line ends
    assert_eq!(
        ok("ps_5_0\r\ndcl_temps 1\r\nret \r\n").instructions.len(),
        2
    );
    let programs = parse_listing("lib_4_0\nret \n// Approximately 1\nlib_4_0\nret \n").unwrap();
    assert_eq!(programs.len(), 2);
    assert_eq!(programs[1].header, Span::new(11, 32));
}
