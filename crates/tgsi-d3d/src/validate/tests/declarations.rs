//! The declaration table: each declaration against the Direct3D 11 limits
//! and its stage (temps, constant buffers, samplers, resources, UAVs, shared
//! memory, thread groups, geometry and hull-shader declarations, inputs and
//! outputs, global flags, index ranges, the immediate constant buffer,
//! function tables), duplicates and the declarations a stage needs.

use super::*;

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
        At::Inst(2),
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
