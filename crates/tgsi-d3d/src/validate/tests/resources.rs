//! Resource, UAV, sampler, label, stream and interface operands: the right
//! register file, a declaration of the right kind, dimension and mode, the
//! `.r` swizzle of `sample_c`, the `_indexable` and other extended tokens,
//! and SM5.1 ranges.

use super::*;

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
