//! Small shaders translated and, where `spirv-val` is installed, validated
//! for Vulkan 1.2.

use super::*;

/// Runs `spirv-val` on a module (its disassembly `asm` in the failure),
/// saying so when the validator is not installed.
fn validate(words: &[u32], asm: &str) {
    match spirv_val(words) {
        None => eprintln!("SKIPPED: spirv-val is not installed (apt-get install spirv-tools)"),
        Some(r) => r.unwrap_or_else(|e| panic!("{e}\n{asm}")),
    }
}

fn translate(text: &str) -> Result<Vec<u32>, Error> {
    let (shader, _) = tgsi_text::parse(text).expect("the test shader parses");
    to_spirv(&shader, &Options::default())
}

const FLOW: &str = "COMP
PROPERTY CS_FIXED_BLOCK_WIDTH 8
PROPERTY CS_FIXED_BLOCK_HEIGHT 1
PROPERTY CS_FIXED_BLOCK_DEPTH 1
DCL SV[0], THREAD_ID
DCL BUFFER[0]
DCL MEMORY[0], SHARED
DCL TEMP[0..3]
DCL ADDR[0]
IMM[0] UINT32 {0, 1, 2, 4}
IMM[1] FLT32 {0.5, 1.0, -2.0, 3.0}
  0: USLT TEMP[0].x, SV[0].xxxx, IMM[0].zzzz
  1: UIF TEMP[0].xxxx
  2:   MOV TEMP[1].x, IMM[0].yyyy
  3: ELSE
  4:   MAD TEMP[1].y, IMM[1].xxxx, IMM[1].yyyy, -IMM[1].zzzz
  5: ENDIF
  6: BGNLOOP
  7:   UADD TEMP[2].x, TEMP[2].xxxx, IMM[0].yyyy
  8:   USEQ TEMP[0].y, TEMP[2].xxxx, IMM[0].zzzz
  9:   UIF TEMP[0].yyyy
 10:     CONT
 11:   ENDIF
 12:   USGE TEMP[0].z, TEMP[2].xxxx, IMM[0].wwww
 13:   UIF TEMP[0].zzzz
 14:     BRK
 15:   ENDIF
 16: ENDLOOP
 17: UARL ADDR[0].x, SV[0].xxxx
 18: MOV TEMP[ADDR[0].x].w, IMM[1].wwww
 19: F2I TEMP[3].x, IMM[1].zzzz
 20: UDIV TEMP[3].y, TEMP[2].xxxx, SV[0].xxxx
 21: DP3 TEMP[3].z, IMM[1], IMM[1]
 22: UMUL TEMP[0].w, SV[0].xxxx, IMM[0].wwww
 23: STORE BUFFER[0].xy, TEMP[0].wwww, TEMP[3]
 24: STORE MEMORY[0].x, TEMP[0].wwww, TEMP[2].xxxx
 25: BARRIER
 26: LOAD TEMP[1].z, MEMORY[0].xxxx, IMM[0].xxxx
 27: ATOMUADD TEMP[1].w, BUFFER[0], IMM[0].xxxx, IMM[0].yyyy
 28: END
";

#[test]
fn a_compute_shader_with_flow_memory_and_atomics_is_valid() {
    let words = translate(FLOW).expect("translates");
    let asm = disassemble(&words).unwrap();
    assert!(asm.contains("OpLoopMerge"), "{asm}");
    assert!(asm.contains("OpAtomicIAdd"), "{asm}");
    assert!(asm.contains("OpControlBarrier"), "{asm}");
    assert!(asm.contains("NoContraction"), "{asm}");
    validate(&words, &asm);
}

#[test]
fn what_is_not_translated_is_refused_by_name() {
    let tes = "TESS_EVAL\n  0: END\n";
    let e = translate(tes).unwrap_err();
    assert!(
        e.message
            .contains("a TESS_EVAL shader without TES_PRIM_MODE"),
        "{e}"
    );
}

/// Every 64-bit opcode (doubles, 64-bit integers and the conversions)
/// translates to a valid module using `Float64` and `Int64`.
#[test]
fn every_64_bit_opcode_is_valid() {
    use tgsi_ir::opcode::{Channels, OPCODES};
    let mut text = String::from(
        "COMP\nDCL TEMP[0..3]\nIMM[0] FLT64 {1.5, -2.0}\nIMM[1] UINT32 {3, 4, 5, 6}\n",
    );
    let mut n = 0;
    for info in OPCODES.iter() {
        if !matches!(info.channels, Channels::Pair64(_)) {
            continue;
        }
        let dsts = if info.num_dst == 2 {
            "TEMP[1], TEMP[2].x"
        } else {
            "TEMP[1].xyzw"
        };
        let srcs: Vec<&str> = (0..info.num_src)
            .map(|k| if k == 0 { "-TEMP[0].zwxy" } else { "IMM[0]" })
            .collect();
        text.push_str(&format!("{n:3}: MOV TEMP[0], IMM[{}]\n", n % 2));
        text.push_str(&format!(
            "{:3}: {} {dsts}, {}\n",
            n + 1,
            info.name,
            srcs.join(", ")
        ));
        n += 2;
    }
    text.push_str(&format!("{n:3}: END\n"));
    assert!(n > 100, "{n}");
    let words = translate(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let asm = disassemble(&words).unwrap();
    assert!(asm.contains("OpCapability Float64") && asm.contains("OpCapability Int64"));
    validate(&words, &asm);
}

/// A subroutine is a function of its own (registers shared as private
/// module variables, RET inside a branch returning to the caller), and a
/// geometry shader emits on two streams: both validate.
#[test]
fn subroutines_and_geometry_shaders_are_valid() {
    let cal = "COMP\nDCL TEMP[0..1]\nIMM[0] UINT32 {1, 2, 0, 0}\n  0: CAL :3\n  1: CAL :3\n  2: END\n  3: BGNSUB\n  4: UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n  5: USEQ TEMP[1].x, TEMP[0].xxxx, IMM[0].yyyy\n  6: UIF TEMP[1].xxxx\n  7: RET\n  8: ENDIF\n  9: MOV TEMP[0].y, TEMP[0].xxxx\n 10: RET\n 11: ENDSUB\n";
    let gs = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nPROPERTY GS_OUTPUT_PRIMITIVE TRIANGLE_STRIP\nPROPERTY GS_MAX_OUTPUT_VERTICES 6\nDCL IN[][0], POSITION\nDCL IN[][1], GENERIC[0]\nDCL SV[0], PRIM_ID\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nIMM[0] UINT32 {0, 1, 0, 0}\n  0: MOV OUT[0], IN[0][0]\n  1: MOV OUT[1], IN[2][1]\n  2: EMIT IMM[0].xxxx\n  3: ENDPRIM IMM[0].xxxx\n  4: EMIT IMM[0].yyyy\n  5: END\n";
    for (text, must) in [(cal, "OpFunctionCall"), (gs, "OpEmitStreamVertex")] {
        let words = translate(text).expect("translates");
        let asm = disassemble(&words).unwrap();
        assert!(asm.contains(must), "{asm}");
        validate(&words, &asm);
    }
}

/// A subroutine that can call itself again (directly or through another)
/// is refused, naming the CAL; a chain of calls without a cycle is not.
#[test]
fn recursive_subroutines_are_refused() {
    let head = "COMP\nDCL TEMP[0]\n  0: CAL :2\n  1: END\n";
    let direct = format!("{head}  2: BGNSUB\n  3: CAL :2\n  4: ENDSUB\n");
    let mutual = format!(
        "{head}  2: BGNSUB\n  3: CAL :5\n  4: ENDSUB\n  5: BGNSUB\n  6: CAL :2\n  7: ENDSUB\n"
    );
    for (text, at) in [(&direct, 3), (&mutual, 6)] {
        let e = translate(text).expect_err("recursion refused");
        let msg = e.to_string();
        assert!(msg.contains("SPIR-V allows no recursion"), "{msg}");
        assert!(msg.contains(&format!("instruction {at}")), "{msg}");
    }
    let chain = format!(
        "{head}  2: BGNSUB\n  3: CAL :5\n  4: ENDSUB\n  5: BGNSUB\n  6: MOV TEMP[0], TEMP[0]\n  7: ENDSUB\n"
    );
    let words = translate(&chain).expect("a chain translates");
    let asm = disassemble(&words).unwrap();
    validate(&words, &asm);
}

#[test]
fn vertex_and_fragment_shaders_with_their_interfaces_are_valid() {
    let vs = "VERT
DCL IN[0]
DCL IN[1]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[3]
DCL SV[0], VERTEXID
  0: MOV OUT[0], IN[0]
  1: U2F OUT[1].x, SV[0].xxxx
  2: MOV OUT[1].yzw, IN[1]
  3: END
";
    let fs = "FRAG
DCL IN[0], POSITION, LINEAR
DCL IN[1], GENERIC[3], PERSPECTIVE
DCL IN[2], FACE, CONSTANT
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SVIEW[0], 2D, FLOAT
DCL TEMP[0]
IMM[0] FLT32 {0.5, 0.0, 0.0, 0.0}
  0: SAMPLE TEMP[0], IN[1], SVIEW[0], SAMP[0]
  1: KILL_IF -IN[2].xxxx
  2: ADD TEMP[0].x, TEMP[0].xxxx, DDX(IN[0].xxxx)
  3: MOV OUT[0], TEMP[0]
  4: END
";
    for (name, text) in [
        ("vs", vs),
        ("fs", fs.replace("DDX(IN[0].xxxx)", "IN[0].xxxx").as_str()),
    ] {
        let words = translate(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let asm = disassemble(&words).unwrap();
        if let Some(r) = spirv_val(&words) {
            r.unwrap_or_else(|e| panic!("{name}: {e}\n{asm}"));
        }
    }
}

#[test]
fn the_layout_names_every_descriptor() {
    let (shader, _) = tgsi_text::parse(FLOW).unwrap();
    let l = layout(&shader);
    assert_eq!(l.len(), 1);
    assert_eq!(
        (l[0].file, l[0].index, l[0].set, l[0].binding),
        (File::Buffer, 0, 0, 32)
    );
}

/// A tessellation-control shader (per-vertex and patch outputs, levels,
/// an indirect control point, a barrier) and an evaluation shader (patch
/// inputs, TESSCOORD, per-vertex inputs) are valid.
#[test]
fn tessellation_shaders_are_valid() {
    let tcs = "TESS_CTRL\nPROPERTY TCS_VERTICES_OUT 3\nDCL SV[0], INVOCATIONID\nDCL SV[1], PRIM_ID\nDCL IN[][0], POSITION\nDCL IN[][1], GENERIC[0]\nDCL OUT[0], TESSOUTER\nDCL OUT[1], TESSINNER\nDCL OUT[2], PATCH[0]\nDCL OUT[][3], POSITION\nDCL OUT[][4], GENERIC[0]\nDCL TEMP[0]\nDCL CONST[0][0..1]\n  0: MOV OUT[SV[0].x][3], IN[SV[0].x][0]\n  1: MOV OUT[SV[0].x][4], IN[SV[0].x][1]\n  2: BARRIER\n  3: MOV OUT[0], CONST[0][0]\n  4: MOV OUT[1].xy, CONST[0][1]\n  5: ADD TEMP[0], OUT[0][3], OUT[2][3]\n  6: MOV OUT[2], TEMP[0]\n  7: END\n";
    let tes = "TESS_EVAL\nPROPERTY TES_PRIM_MODE 4\nPROPERTY TES_SPACING 1\nPROPERTY TES_VERTEX_ORDER_CW 1\nDCL SV[0], TESSCOORD\nDCL SV[1], TESSOUTER\nDCL IN[][0], POSITION\nDCL IN[][1], GENERIC[0]\nDCL IN[2], PATCH[0]\nDCL IN[3], TESSINNER\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0..1]\n  0: MUL TEMP[0], IN[0][0], SV[0].xxxx\n  1: MAD TEMP[0], IN[1][0], SV[0].yyyy, TEMP[0]\n  2: MAD TEMP[0], IN[2][0], SV[0].zzzz, TEMP[0]\n  3: ADD TEMP[1], IN[2], IN[3]\n  4: ADD OUT[1], TEMP[1], SV[1]\n  5: MOV OUT[0], TEMP[0]\n  6: END\n";
    for (text, must) in [(tcs, "TessellationControl"), (tes, "SpacingFractionalEven")] {
        let words = translate(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let asm = disassemble(&words).unwrap();
        assert!(asm.contains(must), "{asm}");
        validate(&words, &asm);
    }
}

/// ATOMINC_WRAP, ATOMDEC_WRAP and ATOMFADD (compare-exchange loops) on a
/// buffer and on shared memory are valid.
#[test]
fn wrapping_and_float_atomics_are_valid() {
    let text = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 4\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL BUFFER[0]\nDCL MEMORY[0], SHARED\nDCL TEMP[0]\nIMM[0] UINT32 {0, 5, 4, 0}\n  0: ATOMINC_WRAP TEMP[0].x, BUFFER[0], IMM[0].xxxx, IMM[0].yyyy\n  1: ATOMDEC_WRAP TEMP[0].y, MEMORY[0], IMM[0].xxxx, IMM[0].yyyy\n  2: ATOMFADD TEMP[0].z, BUFFER[0], IMM[0].zzzz, IMM[0].yyyy\n  3: END\n";
    let words = translate(text).unwrap_or_else(|e| panic!("{e}"));
    let asm = disassemble(&words).unwrap();
    assert_eq!(asm.matches("OpAtomicCompareExchange").count(), 3, "{asm}");
    validate(&words, &asm);
}

/// The cube-array forms TEX2 (a depth compare with the reference in the
/// second operand), TXB2 and TXL2, TG4 with an immediate component, and
/// the level-of-detail queries LODQ and LOD are valid.
#[test]
fn cube_array_sampling_gathers_and_lod_queries_are_valid() {
    let fs = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SAMP[1]\nDCL SAMP[2]\nDCL SVIEW[0], CUBEARRAY, FLOAT\nDCL SVIEW[1], SHADOWCUBEARRAY, FLOAT\nDCL SVIEW[2], 2D, FLOAT\nDCL TEMP[0..3]\nIMM[0] UINT32 {2, 0, 0, 0}\n  0: TXL2 TEMP[0], IN[0], IN[0].xxxx, SAMP[0], CUBEARRAY\n  1: TXB2 TEMP[1], IN[0], IN[0].yyyy, SAMP[0], CUBEARRAY\n  2: TEX2 TEMP[2], IN[0], IN[0].zzzz, SAMP[1], SHADOWCUBEARRAY\n  3: TG4 TEMP[3], IN[0], IMM[0].xxxx, SAMP[2], 2D\n  4: ADD TEMP[0], TEMP[0], TEMP[1]\n  5: ADD TEMP[0], TEMP[0], TEMP[2]\n  6: ADD TEMP[0], TEMP[0], TEMP[3]\n  7: LODQ TEMP[1], IN[0], SAMP[2], 2D\n  8: ADD OUT[0], TEMP[0], TEMP[1]\n  9: END\n";
    let words = translate(fs).unwrap_or_else(|e| panic!("{e}"));
    let asm = disassemble(&words).unwrap();
    for must in [
        "OpImageGather",
        "OpImageQueryLod",
        "OpImageSampleDrefImplicitLod",
    ] {
        assert!(asm.contains(must), "{must}\n{asm}");
    }
    validate(&words, &asm);
}

#[test]
fn a_lower_left_origin_reads_the_target_height_from_a_specialization_constant() {
    let fs = "FRAG
PROPERTY FS_COORD_ORIGIN LOWER_LEFT
PROPERTY FS_COORD_PIXEL_CENTER INTEGER
DCL IN[0], POSITION, LINEAR
DCL OUT[0], COLOR
  0: MOV OUT[0], IN[0]
  1: END
";
    let words = translate(fs).expect("translates");
    let asm = disassemble(&words).unwrap();
    assert!(
        asm.contains(&format!("SpecId {}", TARGET_HEIGHT_SPEC_ID)),
        "{asm}"
    );
    assert!(asm.contains("OpSpecConstant"), "{asm}");
    // height - y, then the integer centres' half pixel off x and y
    assert_eq!(asm.matches("OpFSub").count(), 3, "{asm}");
    validate(&words, &asm);
    // the upper-left, half-pixel default needs neither
    let plain = fs.replace("PROPERTY FS_COORD_ORIGIN LOWER_LEFT\n", "");
    let plain = plain.replace("PROPERTY FS_COORD_PIXEL_CENTER INTEGER\n", "");
    let asm = disassemble(&translate(&plain).unwrap()).unwrap();
    assert!(
        !asm.contains("OpSpecConstant") && !asm.contains("OpFSub"),
        "{asm}"
    );
}

#[test]
fn demote_and_read_helper_use_the_demote_extension() {
    let fs = "FRAG
DCL IN[0], POSITION, LINEAR
DCL OUT[0], COLOR
DCL TEMP[0]
IMM[0] FLT32 {1.0, 0.0, 0.0, 0.0}
  0: FSLT TEMP[0].x, IN[0].xxxx, IMM[0].xxxx
  1: UIF TEMP[0].xxxx
  2:   DEMOTE
  3: ENDIF
  4: READ_HELPER TEMP[0].y
  5: MOV OUT[0], TEMP[0]
  6: END
";
    let words = translate(fs).expect("translates");
    let asm = disassemble(&words).unwrap();
    assert!(asm.contains("SPV_EXT_demote_to_helper_invocation"), "{asm}");
    assert!(asm.contains("OpDemoteToHelperInvocation"), "{asm}");
    assert!(asm.contains("OpIsHelperInvocationEXT"), "{asm}");
    validate(&words, &asm);
    // a device without the feature: refused by name
    let (shader, _) = tgsi_text::parse(fs).unwrap();
    let options = Options {
        refuse_demote: true,
        ..Options::default()
    };
    let e = to_spirv(&shader, &options).unwrap_err();
    assert!(e.message.contains("DEMOTE needs the device feature"), "{e}");
}

#[test]
fn the_inter_lane_opcodes_are_subgroup_operations() {
    let cs = "COMP
PROPERTY CS_FIXED_BLOCK_WIDTH 16
PROPERTY CS_FIXED_BLOCK_HEIGHT 1
PROPERTY CS_FIXED_BLOCK_DEPTH 1
DCL SV[0], THREAD_ID
DCL BUFFER[0]
DCL TEMP[0..1]
IMM[0] UINT32 {1, 3, 0, 0}
  0: AND TEMP[0], SV[0].xxxx, IMM[0].xxxx
  1: VOTE_ANY TEMP[1].x, TEMP[0].xxxx
  2: VOTE_ALL TEMP[1].y, TEMP[0].xxxx
  3: VOTE_EQ TEMP[1].z, TEMP[0].xxxx
  4: BALLOT TEMP[1].xy, TEMP[0].xxxx
  5: READ_FIRST TEMP[1].z, SV[0].xxxx
  6: READ_INVOC TEMP[1].w, SV[0].xxxx, IMM[0].yyyy
  7: STORE BUFFER[0].xyzw, IMM[0].zzzz, TEMP[1]
  8: END
";
    let words = translate(cs).expect("translates");
    let asm = disassemble(&words).unwrap();
    for op in [
        "OpGroupNonUniformAny",
        "OpGroupNonUniformAll ",
        "OpGroupNonUniformAllEqual",
        "OpGroupNonUniformBallot",
        "OpGroupNonUniformBroadcastFirst",
        "OpGroupNonUniformBroadcast ",
    ] {
        assert!(asm.contains(op), "{op}\n{asm}");
    }
    validate(&words, &asm);
}

#[test]
fn multisampled_textures_are_fetched_and_queried() {
    let fs = "FRAG
DCL IN[0], GENERIC[0], CONSTANT
DCL OUT[0], COLOR
DCL SVIEW[0], 2D_MSAA, FLOAT
DCL TEMP[0..2]
IMM[0] INT32 {1, 2, 0, 3}
  0: SAMPLE_I_MS TEMP[0], IMM[0], SVIEW[0], IMM[0].wwww
  1: SAMPLE_INFO TEMP[1], SVIEW[0], IMM[0].xxxx
  2: SAMPLE_POS TEMP[2], SVIEW[0], IMM[0].yyyy
  3: SVIEWINFO TEMP[1].yzw, IMM[0].zzzz, SVIEW[0]
  4: SAMPLE_POS TEMP[2].zw, TEMP[0], IMM[0].xxxx
  5: ADD TEMP[0], TEMP[0], TEMP[2]
  6: MOV OUT[0], TEMP[0]
  7: END
";
    let words = translate(fs).expect("translates");
    let asm = disassemble(&words).unwrap();
    assert!(asm.contains("OpImageQuerySamples"), "{asm}");
    assert!(asm.contains("Sample %"), "{asm}");
    assert!(
        asm.contains(&format!("SpecId {}", TARGET_SAMPLES_SPEC_ID)),
        "{asm}"
    );
    validate(&words, &asm);
}

#[test]
fn an_indirect_resource_index_switches_over_the_declared_resources() {
    let cs = "COMP
PROPERTY CS_FIXED_BLOCK_WIDTH 4
PROPERTY CS_FIXED_BLOCK_HEIGHT 1
PROPERTY CS_FIXED_BLOCK_DEPTH 1
DCL SV[0], THREAD_ID
DCL BUFFER[0..2]
DCL SVIEW[0..1], 2D, FLOAT
DCL SAMP[0]
DCL TEMP[0..1]
DCL ADDR[0]
IMM[0] UINT32 {0, 4, 0, 0}
  0: UARL ADDR[0].x, SV[0].xxxx
  1: SAMPLE_L TEMP[0], IMM[0].xxxx, SVIEW[ADDR[0].x], SAMP[0], IMM[0].xxxx
  2: STORE BUFFER[ADDR[0].x+1].x, IMM[0].xxxx, TEMP[0].xxxx
  3: END
";
    let words = translate(cs).expect("translates");
    let asm = disassemble(&words).unwrap();
    assert_eq!(asm.matches("OpSwitch").count(), 2, "{asm}");
    validate(&words, &asm);
}

#[test]
fn amd_user_data_is_a_push_constant_block() {
    let cs = "COMP
PROPERTY CS_FIXED_BLOCK_WIDTH 1
PROPERTY CS_FIXED_BLOCK_HEIGHT 1
PROPERTY CS_FIXED_BLOCK_DEPTH 1
DCL SV[0], CS_USER_DATA_AMD
DCL BUFFER[0]
IMM[0] UINT32 {0, 0, 0, 0}
  0: STORE BUFFER[0].xyzw, IMM[0].xxxx, SV[0]
  1: END
";
    let words = translate(cs).expect("translates");
    let asm = disassemble(&words).unwrap();
    assert!(asm.contains("PushConstant"), "{asm}");
    validate(&words, &asm);
    let (shader, _) = tgsi_text::parse(cs).unwrap();
    assert_eq!(push_constants(&shader).len(), 1);
}

#[test]
fn a_texture_sampled_with_and_without_a_compare_is_one_image() {
    let fs = "FRAG
DCL IN[0], GENERIC[0], LINEAR
DCL OUT[0], COLOR
DCL SAMP[0]
DCL TEMP[0..1]
  0: TEX TEMP[0], IN[0], SAMP[0], 2D_ARRAY
  1: TEX TEMP[1], IN[0], SAMP[0], SHADOW2D_ARRAY
  2: ADD OUT[0], TEMP[0], TEMP[1]
  3: END
";
    let words = translate(fs).expect("translates");
    let asm = disassemble(&words).unwrap();
    assert!(asm.contains("OpImageSampleDrefImplicitLod"), "{asm}");
    assert!(asm.contains("OpImageSampleImplicitLod"), "{asm}");
    validate(&words, &asm);
    let (shader, _) = tgsi_text::parse(fs).unwrap();
    assert_eq!(sampler_uses(&shader), vec![(0, false), (0, true)]);
}

/// A hull shader's patch values count down from location 31 and its
/// per-vertex ones up from 0: PATCH[0..20] beside GENERIC[0..10] make a
/// valid module, and a PATCH value meeting a GENERIC one at a location is
/// refused naming both.
#[test]
fn patch_values_count_down_from_the_last_tessellation_location() {
    let tcs = |generic: u32, patch: u32| {
        format!(
            "TESS_CTRL\nPROPERTY TCS_VERTICES_OUT 3\nDCL IN[][0], POSITION\nDCL SV[0], INVOCATIONID\n\
             DCL OUT[][0], POSITION\nDCL OUT[][1], GENERIC[{generic}]\nDCL OUT[2], TESSOUTER\n\
             DCL OUT[3], TESSINNER\nDCL OUT[4], PATCH[0]\nDCL OUT[5], PATCH[{patch}]\n\
             IMM[0] FLT32 {{1.0, 2.0, 0.0, 0.0}}\n\
             0: MOV OUT[SV[0].x][0], IN[SV[0].x][0]\n1: MOV OUT[SV[0].x][1], IN[SV[0].x][0]\n\
             2: MOV OUT[2], IMM[0].xxxx\n3: MOV OUT[3], IMM[0].xxxx\n4: MOV OUT[4], IMM[0].yyyy\n\
             5: MOV OUT[5], IMM[0].xyxy\n6: END\n"
        )
    };
    let words = translate(&tcs(10, 20)).unwrap();
    let asm = disassemble(&words).unwrap();
    assert!(
        asm.contains("Location 31") && asm.contains("Location 11"),
        "{asm}"
    );
    validate(&words, &asm);
    let (shader, _) = tgsi_text::parse(&tcs(10, 20)).unwrap();
    assert_eq!(tessellation_locations_reached(&shader), 32);
    let e = translate(&tcs(10, 21)).unwrap_err();
    assert!(
        e.message
            .contains("PATCH[21] and GENERIC[10] both take tessellation location 10")
            || e.message
                .contains("GENERIC[10] and PATCH[21] both take tessellation location 10"),
        "{e}"
    );
}

/// Sixteen clip distances in four `CLIPDIST` registers (as fxc declares
/// them) are one array of 16; a device's limits refuse them by name.
#[test]
fn sixteen_clip_distances_are_one_array_and_device_limits_refuse_them() {
    let vs = "VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL OUT[1..4], CLIPDIST
  0: MOV OUT[0], IN[0]
  1: MOV OUT[1], IN[0]
  2: MOV OUT[2], IN[0]
  3: MOV OUT[3], IN[0]
  4: MOV OUT[4].xyw, IN[0]
  5: END
";
    let words = translate(vs).expect("translates");
    let asm = disassemble(&words).unwrap();
    // an array whose length is a constant 16
    let sixteen: Vec<&str> = asm
        .lines()
        .filter(|l| l.contains("OpConstant") && l.ends_with(" 16"))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        asm.lines()
            .any(|l| l.contains("OpTypeArray")
                && sixteen.iter().any(|c| l.ends_with(&format!(" {c}")))),
        "{asm}"
    );
    assert!(asm.contains("BuiltIn ClipDistance"), "{asm}");
    validate(&words, &asm);
    let (shader, _) = tgsi_text::parse(vs).unwrap();
    let options = Options {
        distance_limits: Some(DistanceLimits {
            clip: 8,
            cull: 8,
            combined: 8,
        }),
        ..Options::default()
    };
    let e = to_spirv(&shader, &options).unwrap_err();
    assert!(
        e.message
            .contains("16 clip and 0 cull distances: the device takes at most 8 clip"),
        "{e}"
    );
}
