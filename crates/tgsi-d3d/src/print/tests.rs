//! The printer's tests: each declaration, operand form and instruction
//! suffix decoded from its words (which must re-encode to the same words) and
//! printed exactly as fxc prints it; the markers for what fxc's rules cannot
//! show; the number, message and creator-string helpers.

use super::*;

use crate::decode::decode_program;
use crate::encode::encode_program;

/// Decodes `body` (instructions after a version token), checks that it
/// re-encodes to the same words, and returns its listing without the
/// version line.
fn listing_with(version: u32, body: &[u32], options: &PrintOptions) -> String {
    let mut words = vec![version, body.len() as u32 + 2];
    words.extend(body);
    let bytes = crate::blob::le_bytes(&words);
    let program = decode_program(&bytes).unwrap_or_else(|e| panic!("decode {body:08x?}: {e}"));
    assert_eq!(
        encode_program(&program).unwrap(),
        words,
        "re-encoding {body:08x?}"
    );
    let text = print_program_with(&program, options);
    let (_, rest) = text.split_once('\n').unwrap();
    rest.strip_suffix('\n').unwrap().to_string()
}

fn listing(body: &[u32]) -> String {
    listing_with(0x50, body, &PrintOptions::default())
}

/// Asserts that each body (in a `ps_5_0` program) prints as its text.
#[track_caller]
fn assert_listings(cases: &[(&[u32], &str)]) {
    for (body, text) in cases {
        assert_eq!(listing(body), *text, "{body:08x?}");
    }
}

/// Global flags.
const GLOBAL_FLAGS_DECLARATIONS: &[(&[u32], &str)] = &[
    (&[0x0100_086a], "dcl_globalFlags refactoringAllowed"),
    (
        &[0x0100_186a],
        "dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps",
    ),
];

/// Constant buffers, samplers, resources, UAVs and shared memory.
const BINDING_DECLARATIONS: &[(&[u32], &str)] = &[
    (
        &[0x0400_0059, 0x0020_8e46, 0, 2],
        "dcl_constantbuffer CB0[2], immediateIndexed",
    ),
    (
        &[0x0400_0859, 0x0020_8e46, 3, 14],
        "dcl_constantbuffer CB3[14], dynamicIndexed",
    ),
    (
        &[0x0300_005a, 0x0010_6000, 1],
        "dcl_sampler s1, mode_default",
    ),
    (
        &[0x0300_085a, 0x0010_6000, 0],
        "dcl_sampler s0, mode_comparison",
    ),
    (
        &[0x0400_1858, 0x0010_7000, 0, 0x5555],
        "dcl_resource_texture2d (float,float,float,float) t0",
    ),
    (
        &[0x0408_2058, 0x0010_7000, 1, 0x5555],
        "dcl_resource_texture2dms(8) (float,float,float,float) t1",
    ),
    (
        &[0x0400_1858, 0x0010_7000, 36, 0x9987],
        "dcl_resource_texture2d (double,<continued>,<unused>,<unused>) t36",
    ),
    (&[0x0300_00a1, 0x0010_7000, 0], "dcl_resource_raw t0"),
    (
        &[0x0400_00a2, 0x0010_7000, 0, 16],
        "dcl_resource_structured t0, 16",
    ),
    (
        &[0x0401_189c, 0x0011_e000, 0, 0x5555],
        "dcl_uav_typed_texture2d_glc (float,float,float,float) u0",
    ),
    (
        &[0x0402_089c, 0x0011_e000, 2, 0x4444],
        "dcl_uav_typed_buffer_rov (uint,uint,uint,uint) u2",
    ),
    (&[0x0300_009d, 0x0011_e000, 1], "dcl_uav_raw u1"),
    (
        &[0x0480_009e, 0x0011_e000, 0, 16],
        "dcl_uav_structured_opc u0, 16",
    ),
    (&[0x0400_009f, 0x0011_f000, 0, 4], "dcl_tgsm_raw g0, 4"),
    (
        &[0x0500_00a0, 0x0011_f000, 1, 8, 3],
        "dcl_tgsm_structured g1, 8, 3",
    ),
];

/// Inputs, outputs, temps and index ranges.
const REGISTER_DECLARATIONS: &[(&[u32], &str)] = &[
    (&[0x0300_005f, 0x0010_1072, 0], "dcl_input v0.xyz"),
    (&[0x0200_005f, 0x0001_7000], "dcl_input vForkInstanceID"),
    (&[0x0200_005f, 0x0002_3001], "dcl_input vCoverage"),
    (&[0x0400_005f, 0x0020_10f2, 3, 0], "dcl_input v[3][0].xyzw"),
    (
        &[0x0400_0060, 0x0010_1012, 1, 6],
        "dcl_input_sgv v1.x, vertex_id",
    ),
    (
        &[0x0500_0061, 0x0020_10f2, 3, 0, 1],
        "dcl_input_siv v[3][0].xyzw, position",
    ),
    (&[0x0300_1062, 0x0010_1032, 1], "dcl_input_ps linear v1.xy"),
    (
        &[0x0300_2862, 0x0010_10f2, 2],
        "dcl_input_ps linear noperspective centroid v2.xyzw",
    ),
    (
        &[0x0400_0863, 0x0010_1012, 0, 7],
        "dcl_input_ps_sgv constant v0.x, primitive_id",
    ),
    (
        &[0x0400_3864, 0x0010_10f2, 7, 1],
        "dcl_input_ps_siv linear noperspective sample v7.xyzw, position",
    ),
    (&[0x0300_0065, 0x0010_20f2, 0], "dcl_output o0.xyzw"),
    (&[0x0200_0065, 0x0000_c001], "dcl_output oDepth"),
    (&[0x0200_0065, 0x0000_f000], "dcl_output oMask"),
    (
        &[0x0400_0066, 0x0010_2012, 1, 7],
        "dcl_output_sgv o1.x, primitive_id",
    ),
    (
        &[0x0400_0067, 0x0010_2012, 0, 0x11],
        "dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor",
    ),
    (&[0x0200_0068, 2], "dcl_temps 2"),
    (&[0x0400_0069, 0, 12, 4], "dcl_indexableTemp x0[12], 4"),
    (&[0x0400_005b, 0x0010_2012, 0, 3], "dcl_indexrange o0.x 3"),
];

/// Geometry-shader declarations.
const GEOMETRY_DECLARATIONS: &[(&[u32], &str)] = &[
    (&[0x0100_185d], "dcl_inputprimitive triangle "),
    (&[0x0100_285c], "dcl_outputtopology trianglestrip "),
    (&[0x0200_005e, 3], "dcl_maxout 3"),
    (&[0x0300_008f, 0x0011_0000, 0], "dcl_stream m0"),
    (&[0x0200_00ce, 4], "dcl_gsinstances 4"),
];

/// Function bodies, function tables and interfaces.
const LINKAGE_DECLARATIONS: &[(&[u32], &str)] = &[
    (&[0x0200_0090, 0], "dcl_function_body fb0"),
    (
        &[0x0500_0091, 0, 2, 0, 2],
        "dcl_function_table ft0 = {fb0, fb2}",
    ),
    (
        &[0x0600_0092, 0, 6, 0x0001_0002, 0, 1],
        "dcl_interface fp0[1][6] = {ft0, ft1}",
    ),
    (
        &[0x0600_0892, 3, 1, 0x0003_0002, 6, 7],
        "dcl_interface_dynamicindexed fp3[3][1] = {ft6, ft7}",
    ),
];

/// Hull-shader and compute declarations, the hull-shader phases.
const HULL_AND_COMPUTE_DECLARATIONS: &[(&[u32], &str)] = &[
    (&[0x0100_1893], "dcl_input_control_point_count 3"),
    (&[0x0100_8094], "dcl_output_control_point_count 16"),
    (&[0x0100_1095], "dcl_tessellator_domain domain_tri"),
    (
        &[0x0100_2096],
        "dcl_tessellator_partitioning partitioning_fractional_even",
    ),
    (
        &[0x0100_1897],
        "dcl_tessellator_output_primitive output_triangle_cw",
    ),
    (
        &[0x0200_0098, 0x4280_0000],
        "dcl_hs_max_tessfactor l(64.000000)",
    ),
    (&[0x0200_0099, 4], "dcl_hs_fork_phase_instance_count 4"),
    (&[0x0200_009a, 2], "dcl_hs_join_phase_instance_count 2"),
    (&[0x0400_009b, 64, 1, 1], "dcl_thread_group 64, 1, 1"),
    (&[0x0100_0071], "hs_decls "),
    (&[0x0100_0073], "hs_fork_phase "),
];

/// Custom data: the immediate constant buffer and other classes.
const CUSTOM_DATA_DECLARATIONS: &[(&[u32], &str)] = &[
    (
        &[0x0000_1835, 10, 0x3f80_0000, 0, 0, 0, 0x4100_0000, 0, 0, 0],
        "dcl_immediateConstantBuffer { { 1.000000, 0, 0, 0},\n                              { 8.000000, 0, 0, 0} }",
    ),
    (
        &[0x0000_0035, 4, 1, 2],
        "customdata comment { 0x00000001, 0x00000002 }",
    ),
];

#[test]
fn declarations_print_like_fxc() {
    assert_listings(GLOBAL_FLAGS_DECLARATIONS);
    assert_listings(BINDING_DECLARATIONS);
    assert_listings(REGISTER_DECLARATIONS);
    assert_listings(GEOMETRY_DECLARATIONS);
    assert_listings(LINKAGE_DECLARATIONS);
    assert_listings(HULL_AND_COMPUTE_DECLARATIONS);
    assert_listings(CUSTOM_DATA_DECLARATIONS);
}

#[test]
fn fxc_9_spells_constant_buffer_declarations_in_lower_case() {
    let old = PrintOptions::for_creator("Microsoft (R) HLSL Shader Compiler 9.29.952.3111");
    let text = listing_with(0x50, &[0x0400_0059, 0x0020_8e46, 0, 9], &old);
    assert_eq!(text, "dcl_constantbuffer cb0[9], immediateIndexed");
}

#[test]
fn sm51_declarations_show_ranges_and_spaces() {
    let cases: &[(&[u32], &str)] = &[
        (
            &[0x0700_0859, 0x0030_8e46, 0, 0, 3, 2, 0],
            "dcl_constantbuffer CB0[0:3][2], dynamicIndexed, space=0",
        ),
        (
            &[0x0600_005a, 0x0030_6e46, 2, 10, u32::MAX, 2],
            "dcl_sampler S2[10:*], mode_default, space=2",
        ),
        (
            &[0x0700_1858, 0x0030_7e46, 0, 2, 6, 0x5555, 0],
            "dcl_resource_texture2d (float,float,float,float) T0[2:6], space=0",
        ),
        (
            &[0x0702_009e, 0x0031_ee46, 2, 2, 2, 32, 0],
            "dcl_uav_structured_rov U2[2:2], 32, space=0",
        ),
        (
            &[
                0x0b00_0045,
                0x0010_00f2,
                2,
                0x0010_1046,
                1,
                0x0020_7e46,
                0,
                3,
                0x0020_6000,
                0,
                0,
            ],
            "sample r2.xyzw, v1.xyxx, T0[3].xyzw, S0[0]",
        ),
    ];
    for (body, text) in cases {
        assert_eq!(
            listing_with(0x51, body, &PrintOptions::default()),
            *text,
            "{body:08x?}"
        );
    }
}

/// Masks, swizzles, select-1, 2-D constant buffers.
const COMPONENT_OPERANDS: &[(&[u32], &str)] = &[
    (
        &[
            0x0900_000e,
            0x0010_2012,
            0,
            0x0020_800a,
            0,
            0,
            0x0020_800a,
            0,
            1,
        ],
        "div o0.x, cb0[0].x, cb0[1].x",
    ),
    (
        &[0x0500_0036, 0x0010_00f2, 0, 0x0010_0246, 1],
        "mov r0.xyzw, r1.xyzx",
    ),
];

/// Immediates: typeless `mov` without spaces, float `add` with spaces.
const IMMEDIATE_OPERANDS: &[(&[u32], &str)] = &[
    (
        &[
            0x0800_0036,
            0x0010_20e2,
            0,
            0x0000_4002,
            0,
            0,
            0,
            0x3f80_0000,
        ],
        "mov o0.yzw, l(0,0,0,1.000000)",
    ),
    (
        &[
            0x0a00_0000,
            0x0010_00f2,
            0,
            0x0010_0e46,
            0,
            0x0000_4002,
            0x3f80_0000,
            0,
            0x3f00_0000,
            0,
        ],
        "add r0.xyzw, r0.xyzw, l(1.000000, 0.000000, 0.500000, 0.000000)",
    ),
    (
        &[
            0x0700_0001,
            0x0010_0012,
            0,
            0x0010_000a,
            0,
            0x0000_4001,
            0x3f80_0000,
        ],
        "and r0.x, r0.x, l(0x3f800000)",
    ),
    (
        &[
            0x0700_001e,
            0x0010_0012,
            0,
            0x0010_000a,
            0,
            0x0000_4001,
            u32::MAX,
        ],
        "iadd r0.x, r0.x, l(-1)",
    ),
    (
        &[
            0x0800_00c7,
            0x0010_0032,
            0,
            0x0000_5002,
            0,
            0x3ff0_0000,
            0,
            0,
        ],
        "dmov r0.xy, d(1.000000l, 0.000000l)",
    ),
];

/// Modifiers and minimum precision.
const MODIFIED_OPERANDS: &[(&[u32], &str)] = &[
    (
        &[0x0600_0036, 0x0010_0012, 0, 0x8010_000a, 0x41, 1],
        "mov r0.x, -r1.x",
    ),
    (
        &[0x0600_0036, 0x0010_0012, 0, 0x8010_002a, 0x81, 3],
        "mov r0.x, |r3.z|",
    ),
    (
        &[0x0600_0036, 0x0010_0012, 0, 0x8010_000a, 0xc1, 0],
        "mov r0.x, -|r0.x|",
    ),
    (
        &[
            0x0900_0000,
            0x0010_0012,
            2,
            0x8010_000a,
            0x4001,
            0,
            0x8010_000a,
            0x8001,
            1,
        ],
        "add r2.x, r0.x {min16f as def32}, r1.x {min2_8f as def32}",
    ),
    (
        &[0x0600_002b, 0x0010_0022, 2, 0x8010_000a, 0x0001_0001, 3],
        "itof r2.y, r3.x {min16i}",
    ),
];

/// Relative indices: relative only, immediate plus relative, 2-D inputs.
const RELATIVE_OPERANDS: &[(&[u32], &str)] = &[
    (
        &[0x0700_0036, 0x0090_2012, 0x0010_000a, 0, 0x0020_802a, 0, 8],
        "mov o[r0.x + 0].x, cb0[8].z",
    ),
    (
        &[
            0x0a00_0000,
            0x0010_00f2,
            1,
            0x0010_0e46,
            1,
            0x0620_8e46,
            0,
            5,
            0x0010_000a,
            2,
        ],
        "add r1.xyzw, r1.xyzw, cb0[r2.x + 5].xyzw",
    ),
    (
        &[0x0600_0036, 0x0010_0012, 0, 0x0020_100a, 0, 5],
        "mov r0.x, v[0][5].x",
    ),
    (
        &[0x0600_0036, 0x0010_0012, 0, 0x0090_900a, 0x0010_003a, 4],
        "mov r0.x, icb[r4.w + 0].x",
    ),
];

/// Registers without components.
const COMPONENTLESS_OPERANDS: &[(&[u32], &str)] = &[
    (
        &[0x0400_0056, 0x0010_0022, 0, 0x0000_b001],
        "utof r0.y, vPrim",
    ),
    (
        &[0x0400_0036, 0x0000_c001, 0x0000_4001, 0x3e4c_cccd],
        "mov oDepth, l(0.200000)",
    ),
    (
        &[0x0400_006f, 0x0010_0042, 0, 0x0000_e00a],
        "sampleinfo r0.z, rasterizer.x",
    ),
    (
        &[
            0x0800_0026,
            0x0000_d000,
            0x0010_0082,
            0,
            0x0010_000a,
            0,
            0x0010_001a,
            0,
        ],
        "imul null, r0.w, r0.x, r0.y",
    ),
    (&[0x0300_0075, 0x0011_0000, 0], "emit_stream m0"),
    (&[0x0300_002c, 0x0011_1000, 1], "label fb1"),
    (&[0x0500_0078, 2, 0x0021_3000, 0, 0], "fcall fp0[0][2]"),
];

#[test]
fn operand_forms_print_like_fxc() {
    assert_listings(COMPONENT_OPERANDS);
    assert_listings(IMMEDIATE_OPERANDS);
    assert_listings(MODIFIED_OPERANDS);
    assert_listings(RELATIVE_OPERANDS);
    assert_listings(COMPONENTLESS_OPERANDS);
}

#[test]
fn instruction_suffixes_print_like_fxc() {
    let sample = [
        0x8c00_0045,
        0x8000_0201 | (2 << 13),
        0x8000_00c2,
        0x0015_5543,
        0x0010_00f2,
        0,
        0x0010_1046,
        1,
        0x0010_7e46,
        0,
        0x0010_6000,
        0,
    ];
    // _aoffimmi(1,2,0) then _indexable(texture2d) then the type list
    let expected = "sample_aoffimmi_indexable(1,2,0)(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, t0.xyzw, s0";
    assert_eq!(listing(&sample), expected);
    let resinfo = [
        0x8900_103d,
        0x8000_00c2,
        0x0015_5543,
        0x0010_00f2,
        1,
        0x0000_4001,
        0,
        0x0010_7e46,
        0,
    ];
    assert_eq!(
        listing(&resinfo),
        "resinfo_indexable(texture2d)(float,float,float,float)_uint r1.xyzw, l(0), t0.xyzw"
    );
    let structured = [
        0x8b00_00a7,
        0x8000_8302,
        0x0019_9983,
        0x0010_0012,
        0,
        0x0010_000a,
        0,
        0x0000_4001,
        0,
        0x0010_7006,
        0,
    ];
    assert_eq!(
        listing(&structured),
        "ld_structured_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) r0.x, r0.x, l(0), t0.xxxx"
    );
    assert_eq!(listing(&[0x0100_18be]), "sync_g_t");
    assert_eq!(listing(&[0x0100_50be]), "sync_uglobal_g");
    assert_eq!(
        listing(&[0x0700_2010, 0x0010_2012, 0, 0x0010_0246, 0, 0x0010_0246, 0]),
        "dp3_sat o0.x, r0.xyzx, r0.xyzx"
    );
    assert_eq!(
        listing(&[0x0300_000d | 0x0004_0000, 0x0010_000a, 0]),
        "discard_nz r0.x"
    );
    assert_eq!(
        listing(&[
            0x0300_001f | 0x0004_0000,
            0x0010_000a,
            0,
            0x0100_003e,
            0x0100_0015
        ]),
        "if_nz r0.x\n  ret \nendif "
    );
    assert_eq!(
        listing(&[
            0x0300_004c,
            0x0010_000a,
            0,
            0x0300_0006,
            0x0000_4001,
            1,
            0x0100_0002,
            0x0100_0017
        ]),
        "switch r0.x\n  case l(1)\n  break \nendswitch "
    );
    // precise masks (vkd3d's spelling; fxc never shows them)
    assert_eq!(
        listing(&[0x0508_0036, 0x0010_0012, 0, 0x0010_000a, 1]),
        "mov [precise(x)] r0.x, r1.x"
    );
}

#[test]
fn shader_messages_print_like_fxc() {
    assert_eq!(
        listing(&crate::test_words::PRINTF),
        "printf \"%0 is fine!\", r10.z"
    );
    let errorf = [0x0000_2035, 0x08, 0x0020_0103, 1, 2, 0, 0, 0x0000_0a41];
    assert_eq!(listing(&errorf), "errorf \"A\\n\"");
}

#[test]
fn departures_from_fxc_rules_are_marked() {
    // immediate 0 plus relative: not fxc's relative-only form
    assert_eq!(
        listing(&[0x0700_0036, 0x0010_0012, 0, 0x00d0_100a, 0, 0x0010_000a, 0]),
        "mov r0.x, v[0 + r0.x].x"
    );
    // an empty extended operand token
    assert_eq!(
        listing(&[0x0600_0036, 0x0010_0012, 0, 0x8010_000a, 1, 1]),
        "mov r0.x, r1.x {ext}"
    );
    // a destination with a swizzle, a source with a one-letter mask
    assert_eq!(
        listing(&[0x0500_0036, 0x0010_0e46, 0, 0x0010_0012, 1]),
        "mov r0 {swizzle=xyzw}, r1 {mask=x}"
    );
    // a destination swizzle that cannot be a mask needs no marker
    assert_eq!(
        listing(&[0x0500_0036, 0x0010_00e6, 0, 0x0010_000a, 1]),
        "mov r0.zwxx, r1.x"
    );
    // a sampler with one component
    assert_eq!(
        listing(&[0x0300_005a, 0x0010_6001, 0]),
        "dcl_sampler s0 {components=1}, mode_default"
    );
    // trailing dwords fxc would not write
    assert_eq!(listing(&[0x0200_003e, 7]), "ret  {trailing=0x00000007}");
    // indices on an immediate
    assert_eq!(
        listing(&[0x0600_0036, 0x0010_0012, 0, 0x0010_4001, 3, 1]),
        "mov r0.x, l(1)[3]"
    );
}

#[test]
fn exact_floats_print_digits_that_read_back() {
    let exact = PrintOptions {
        exact_floats: true,
        ..PrintOptions::default()
    };
    let body = [0x0500_0036, 0x0010_0012, 0, 0x0000_4001, 0x3eaa_aaab];
    assert_eq!(listing(&body), "mov r0.x, l(0.333333)");
    assert_eq!(listing_with(0x50, &body, &exact), "mov r0.x, l(0.33333334)");
}

#[test]
fn numbers_print_like_fxc() {
    assert_eq!(format_f32(0x3f80_0000), "1.000000");
    assert_eq!(format_f32(0x3d93_a92a), "0.072100");
    assert_eq!(format_f32(0x8000_0000), "-0.000000");
    assert_eq!(format_f32(0x7f80_0000), "1.#INF00");
    assert_eq!(format_int(0xFFFF_FFFF), "-1");
    assert_eq!(format_int(2222), "2222");
    assert_eq!(format_int(0x3f80_0000), "0x3f800000");
    assert_eq!(format_int(0xFFFF), "0x0000ffff");
    assert_eq!(format_typeless(0, false), "0");
    assert_eq!(format_typeless(32, false), "32");
    assert_eq!(format_typeless(0x3f28_f5c3, false), "0.660000");
    assert_eq!(format_f64(0x4012_0000_0000_0000), "4.500000");
    assert_eq!(format_f32_with(0x3eaa_aaab, false), "0.333333");
    assert_eq!(format_f32_with(0x3eaa_aaab, true), "0.33333334");
    assert_eq!(format_f32_with(0x3dcc_cccd, true), "0.100000");
    assert_eq!(
        format_f32_with(0x0000_0001, true),
        "0.000000000000000000000000000000000000000000001"
    );
    assert_eq!(format_f32_with(0x7FC0_0001, true), "0x7fc00001");
    assert_eq!(format_f32_with(0xFFC0_0000, true), "-1.#IND00");
    assert_eq!(format_f32_with(0x4f80_0000, true), "4294967296.000000");
    assert_eq!(
        format_f64_with(0x3ff0_0000_0000_0001, true),
        "1.0000000000000002"
    );
    assert_eq!(float_literal_bits("-0.000000"), Some(0x8000_0000));
    assert_eq!(float_literal_bits("0x3f800000"), Some(0x3f80_0000));
    assert_eq!(float_literal_bits("nan"), None);
    assert_eq!(
        immediate32(&[0, 0, 0, 0x3f80_0000], OperandKind::Typeless, false),
        "l(0,0,0,1.000000)"
    );
    assert_eq!(
        immediate32(&[0, 0x3f80_0000], OperandKind::Float, false),
        "l(0.000000, 1.000000)"
    );
    assert_eq!(
        immediate64(&[0, 0x3ff0_0000, 0, 0], false),
        "d(1.000000l, 0.000000l)"
    );
}

#[test]
fn messages_escape_like_fxc() {
    assert_eq!(
        escape_message(b"a \"q\" \\ \n\t\x08"),
        "a \"q\" \\\\ \\n\\t\\b"
    );
}

#[test]
fn creator_strings_pick_the_cb_spelling() {
    assert!(
        !PrintOptions::for_creator("Microsoft (R) HLSL Shader Compiler 9.29.952.3111")
            .uppercase_constant_buffer_declarations
    );
    assert!(
        PrintOptions::for_creator("Microsoft (R) HLSL Shader Compiler 10.1")
            .uppercase_constant_buffer_declarations
    );
    assert!(PrintOptions::for_creator("").uppercase_constant_buffer_declarations);
}

#[test]
fn implied_components_follow_role_and_file() {
    let ctx = |file, role| ComponentContext {
        file,
        role,
        index_count: 1,
        printed_values: 0,
    };
    let src = ctx(RegisterFile::Temp, Role::Src);
    assert_eq!(
        implied_components(&src, "xyzx"),
        Some(Components::Swizzle([0, 1, 2, 0]))
    );
    assert_eq!(implied_components(&src, "y"), Some(Components::Select(1)));
    assert_eq!(implied_components(&src, "xy"), Some(Components::Mask(3)));
    let dst = ctx(RegisterFile::Temp, Role::Dst);
    assert_eq!(
        implied_components(&dst, "xyzw"),
        Some(Components::Mask(0xF))
    );
    assert_eq!(implied_components(&dst, "yx"), None);
    assert_eq!(
        implied_components(&ctx(RegisterFile::OutputDepth, Role::Dst), ""),
        Some(Components::One)
    );
    assert_eq!(
        implied_components(&ctx(RegisterFile::Sampler, Role::Src), ""),
        Some(Components::None)
    );
    assert_eq!(
        implied_components(&ctx(RegisterFile::ConstantBuffer, Role::Decl), ""),
        Some(Components::XYZW)
    );
}
