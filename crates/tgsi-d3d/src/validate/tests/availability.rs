//! Whether an instruction exists here: shader models, the stage, the global
//! flags an opcode needs, control fields it lacks and its operand count.

use super::*;

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
