//! The compiled engine against the interpreter: fixed programs for the
//! budget, errors and flow control.

use super::*;
use tgsi_exec::{Limits, Numerics, Program, Resources};

pub(crate) fn both(src: &str) -> Option<(Program, Program)> {
    let (s, _) = tgsi_text::assemble(src).unwrap_or_else(|e| panic!("assemble failed: {e}\n{src}"));
    let interp = crate::compile_engine(&s, Numerics::Ieee, Engine::Interp).unwrap();
    let jit = crate::compile_engine(&s, Numerics::Ieee, Engine::Jit).unwrap();
    if !cpu_supported() {
        assert_eq!(Engine::of(&jit), Engine::Interp);
        assert!(jit.fallback_reason().is_some());
        return None;
    }
    assert_eq!(
        Engine::of(&jit),
        Engine::Jit,
        "not compiled: {:?}",
        jit.fallback_reason()
    );
    Some((interp, jit))
}

pub(crate) fn dispatch(
    p: &Program,
    buffers: &[Vec<u8>],
    max: u64,
) -> (Result<u64, String>, Vec<Vec<u8>>) {
    let mut res = Resources {
        constants: vec![vec![5, 0, 0, 0]],
        buffers: buffers.to_vec(),
        ..Resources::default()
    };
    let limits = Limits {
        max_instructions: max,
        ..Limits::default()
    };
    let r = p
        .dispatch_stats(&mut res, [2, 1, 1], &limits)
        .map(|s| s.batch_instructions)
        .map_err(|e| format!("{:?} {}", e.instruction, e.message));
    (r, res.buffers)
}

/// Dispatches `src` (two groups) with both engines on `bufs`: both finish
/// and leave the same buffers, which are returned (None without AVX-512).
pub(crate) fn agreed(src: &str, bufs: Vec<Vec<u8>>) -> Option<Vec<Vec<u8>>> {
    let (interp, jit) = both(src)?;
    let want = dispatch(&interp, &bufs, 1_000_000);
    assert!(want.0.is_ok(), "{:?}", want.0);
    assert_eq!(want, dispatch(&jit, &bufs, 1_000_000));
    Some(want.1)
}

/// Word `i` of a buffer.
pub(crate) fn word(buf: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(buf[4 * i..4 * i + 4].try_into().unwrap())
}

/// Dispatches `groups` work groups of `p` with `buffers` bound; the buffers after.
pub(crate) fn run_groups(p: &Program, buffers: Vec<Vec<u8>>, groups: usize) -> Vec<Vec<u8>> {
    let mut res = Resources {
        buffers,
        ..Resources::default()
    };
    p.dispatch_stats(&mut res, [groups as u32, 1, 1], &Limits::default())
        .unwrap();
    res.buffers
}

const LOOP: &str = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 20\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
    DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL CONST[0][0]\nDCL TEMP[0..3]\nIMM[0] UINT32 {0, 1, 4, 3}\n\
    0: UMUL TEMP[0].x, SV[0].xxxx, IMM[0].zzzz\n\
    1: MOV TEMP[1].x, IMM[0].xxxx\n\
    2: BGNLOOP\n\
    3:   USGE TEMP[2].x, TEMP[1].xxxx, SV[0].xxxx\n\
    4:   UIF TEMP[2].xxxx\n\
    5:     BRK\n\
    6:   ENDIF\n\
    7:   UADD TEMP[1].x, TEMP[1].xxxx, IMM[0].yyyy\n\
    8:   STORE BUFFER[0].x, TEMP[0].xxxx, TEMP[1].xxxx\n\
    9: ENDLOOP\n\
    10: END\n";

#[test]
fn divergent_loop_with_stores_matches_the_interpreter() {
    let Some(got) = agreed(LOOP, vec![vec![0u8; 40 * 4]]) else {
        return;
    };
    // thread i of each group counts to i (both groups write the same words)
    let w = |i: usize| word(&got[0], i);
    assert_eq!((w(0), w(7), w(19), w(20)), (0, 7, 19, 0));
}

#[test]
fn budget_stops_at_the_same_instruction_with_the_same_memory() {
    let Some((interp, jit)) = both(LOOP) else {
        return;
    };
    let bufs = vec![vec![0u8; 40 * 4]];
    // the budget counts per batch: the longest batch (lanes up to 15) runs
    // 6 + 16 * 7 + 4 instructions
    let longest = 6 + 16 * 7 + 4;
    for max in [
        1,
        2,
        5,
        9,
        10,
        11,
        17,
        18,
        19,
        40,
        77,
        100,
        101,
        longest - 1,
    ] {
        let want = dispatch(&interp, &bufs, max);
        let got = dispatch(&jit, &bufs, max);
        assert!(want.0.is_err(), "budget {max} should stop the run");
        assert_eq!(want, got, "budget {max}");
    }
}

#[test]
fn unbound_buffer_is_the_same_error() {
    let Some((interp, jit)) = both(LOOP) else {
        return;
    };
    let want = dispatch(&interp, &[], 1000);
    let got = dispatch(&jit, &[], 1000);
    assert!(
        want.0
            .as_ref()
            .unwrap_err()
            .contains("BUFFER[0] is not bound")
    );
    assert_eq!(want, got);
}

/// Subroutines called from the main program, from a loop, from a
/// divergent IF and from another subroutine, with RETs under divergent IFs
/// and inside a loop: every batch's memory and instruction count match the
/// interpreter's, and so does the budget error at every budget.
const CALLS: &str = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 24\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
    DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0..3]\nIMM[0] UINT32 {0, 1, 4, 3}\nIMM[1] UINT32 {5, 2, 7, 96}\n\
    0: UMUL TEMP[0].x, SV[0].xxxx, IMM[0].zzzz\n\
    1: MOV TEMP[1], IMM[0].xxxx\n\
    2: CAL :24\n\
    3: BGNLOOP\n\
    4:   USGE TEMP[2].x, TEMP[1].yyyy, IMM[0].wwww\n\
    5:   UIF TEMP[2].xxxx\n\
    6:     BRK\n\
    7:   ENDIF\n\
    8:   UADD TEMP[1].y, TEMP[1].yyyy, IMM[0].yyyy\n\
    9:   CAL :35\n\
    10: ENDLOOP\n\
    11: AND TEMP[2].y, SV[0].xxxx, IMM[0].yyyy\n\
    12: UIF TEMP[2].yyyy\n\
    13:   CAL :35\n\
    14: ELSE\n\
    15:   CAL :24\n\
    16: ENDIF\n\
    17: STORE BUFFER[0].x, TEMP[0].xxxx, TEMP[1].xxxx\n\
    18: UADD TEMP[0].y, TEMP[0].xxxx, IMM[1].wwww\n\
    19: STORE BUFFER[0].xyzw, TEMP[0].yyyy, TEMP[1]\n\
    20: END\n\
    21: BGNSUB\n\
    22:   UADD TEMP[1].w, TEMP[1].wwww, IMM[1].xxxx\n\
    23: ENDSUB\n\
    24: BGNSUB\n\
    25:   UADD TEMP[1].x, TEMP[1].xxxx, IMM[0].yyyy\n\
    26:   USLT TEMP[2].z, SV[0].xxxx, IMM[1].zzzz\n\
    27:   UIF TEMP[2].zzzz\n\
    28:     RET\n\
    29:   ENDIF\n\
    30:   UADD TEMP[1].x, TEMP[1].xxxx, IMM[1].yyyy\n\
    31:   CAL :21\n\
    32:   RET\n\
    33:   UADD TEMP[1].x, TEMP[1].xxxx, IMM[1].xxxx\n\
    34: ENDSUB\n\
    35: BGNSUB\n\
    36:   MOV TEMP[3].x, IMM[0].xxxx\n\
    37:   BGNLOOP\n\
    38:     UADD TEMP[3].x, TEMP[3].xxxx, IMM[0].yyyy\n\
    39:     UADD TEMP[1].z, TEMP[1].zzzz, TEMP[3].xxxx\n\
    40:     USGE TEMP[2].w, TEMP[3].xxxx, SV[0].xxxx\n\
    41:     UIF TEMP[2].wwww\n\
    42:       RET\n\
    43:     ENDIF\n\
    44:   ENDLOOP\n\
    45: ENDSUB\n";

#[test]
fn subroutine_calls_compile_and_match_the_interpreter() {
    let Some((interp, jit)) = both(CALLS) else {
        return;
    };
    let bufs = vec![vec![0u8; 2 * 24 * 16 + 96 * 4]];
    let want = dispatch(&interp, &bufs, 1_000_000);
    assert!(want.0.is_ok(), "{:?}", want.0);
    assert_eq!(want, dispatch(&jit, &bufs, 1_000_000));
    let w = |i: usize| u32::from_le_bytes(want.1[0][4 * i..4 * i + 4].try_into().unwrap());
    // thread 0: RET at once (x = 1), three loop calls and the IF's ELSE (x = 2)
    assert_eq!(w(0), 2);
    // thread 8: both adds and the nested call each time (x = 3 + 3)
    assert_eq!(w(8 * 4), 6);
    for max in [1, 3, 4, 5, 12, 25, 26, 40, 41, 60, 100, 150, 200, 300] {
        let want = dispatch(&interp, &bufs, max);
        assert!(want.0.is_err(), "budget {max} should stop the run");
        assert_eq!(want, dispatch(&jit, &bufs, max), "budget {max}");
    }
}

#[test]
fn recursive_calls_run_in_the_interpreter_and_say_why() {
    let src = "COMP\nDCL TEMP[0]\n0: CAL :2\n1: END\n2: BGNSUB\n3: CAL :2\n4: RET\n5: ENDSUB\n";
    let (s, _) = tgsi_text::assemble(src).unwrap();
    let p = crate::compile_engine(&s, Numerics::Ieee, Engine::Jit).unwrap();
    assert_eq!(Engine::of(&p), Engine::Interp);
    let why = p.fallback_reason().unwrap();
    assert!(
        why.contains("recursive") || why.contains("AVX-512"),
        "{why}"
    );
}

#[test]
fn a_program_too_large_to_compile_runs_in_the_interpreter() {
    let nops = |n: usize| format!("COMP\n{}END\n", "NOP\n".repeat(n));
    let (s, _) = tgsi_text::assemble(&nops(crate::MAX_COMPILED_INSTRUCTIONS)).unwrap();
    let p = crate::compile_engine(&s, Numerics::Ieee, Engine::Jit).unwrap();
    let why = p.fallback_reason().unwrap();
    assert!(
        why.contains("65537 instructions: the compiled engine takes programs of at most 65536")
            || why.contains("AVX-512"),
        "{why}"
    );
    p.dispatch(&mut Resources::default(), [1, 1, 1], &Limits::default())
        .unwrap();
}

/// fxc's shared-memory tree reduction (as TGSI): BARRIER before a loop and
/// inside it, under a divergent UIF, over work groups of 8 batches.
const REDUCTION: &str = include_str!("../../../benches/data/ThreadGroupSharedMem.tgsi");

#[test]
fn barriers_stop_and_resume_compiled_batches_like_the_interpreter() {
    let Some((interp, jit)) = both(REDUCTION) else {
        return;
    };
    let input: Vec<u8> = (0..256u32)
        .flat_map(|i| (i as f32 * 0.25 - 7.0).to_bits().to_le_bytes())
        .collect();
    let bufs = vec![input];
    let want = dispatch(&interp, &bufs, 1_000_000);
    let got = dispatch(&jit, &bufs, 1_000_000);
    assert!(want.0.is_ok());
    assert_eq!(want, got);
    // the sum of group 0's 128 inputs lands in word 0
    let sum = f32::from_bits(u32::from_le_bytes(got.1[0][..4].try_into().unwrap()));
    assert_eq!(sum, (0..128).map(|i| i as f32 * 0.25 - 7.0).sum::<f32>());
    // a budget running out between two barriers: the same error and memory
    for max in [3, 6, 7, 40, 90, 200] {
        assert_eq!(
            dispatch(&interp, &bufs, max),
            dispatch(&jit, &bufs, max),
            "budget {max}"
        );
    }
    // groups of 100: the last batch of each has 4 live lanes, so the
    // batches stopped at a barrier hold different masks and frames
    let ragged = REDUCTION.replace("CS_FIXED_BLOCK_WIDTH 128", "CS_FIXED_BLOCK_WIDTH 100");
    let Some((interp, jit)) = both(&ragged) else {
        return;
    };
    let want = dispatch(&interp, &bufs, 1_000_000);
    assert!(want.0.is_ok());
    assert_eq!(want, dispatch(&jit, &bufs, 1_000_000));
}

/// A BARRIER inside two divergent UIFs, then ELSE: each batch resumes with
/// its own frames (the outer condition saved by the inner UIF differs from
/// batch to batch), and a batch with no lane in the outer UIF never stops.
const NESTED_BARRIER: &str = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
    DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL MEMORY[0], SHARED\nDCL TEMP[0..3]\nIMM[0] UINT32 {40, 1, 3, 4}\n\
    0: SHL TEMP[0].x, SV[0].xxxx, IMM[0].zzzz\n\
    1: USLT TEMP[1].x, SV[0].xxxx, IMM[0].xxxx\n\
    2: AND TEMP[1].y, SV[0].xxxx, IMM[0].yyyy\n\
    3: MOV TEMP[2].xy, SV[0].xxxx\n\
    4: UIF TEMP[1].xxxx\n\
    5:   UIF TEMP[1].yyyy\n\
    6:     STORE MEMORY[0].x, TEMP[0].xxxx, TEMP[2].xxxx\n\
    7:     BARRIER\n\
    8:     UADD TEMP[2].x, TEMP[2].xxxx, IMM[0].wwww\n\
    9:   ELSE\n\
    10:    UADD TEMP[2].x, TEMP[2].xxxx, IMM[0].yyyy\n\
    11:  ENDIF\n\
    12: ENDIF\n\
    13: LOAD TEMP[3].x, MEMORY[0], TEMP[0].xxxx\n\
    14: MOV TEMP[2].y, TEMP[3].xxxx\n\
    15: STORE BUFFER[0].xy, TEMP[0].xxxx, TEMP[2]\n\
    16: END\n";

#[test]
fn barriers_inside_divergent_ifs_resume_with_each_batchs_frames() {
    let Some(got) = agreed(NESTED_BARRIER, vec![vec![0u8; 64 * 8]]) else {
        return;
    };
    let w = |i: usize| word(&got[0], i);
    // thread 41 (not < 40) keeps its id; 42 too; 39 (odd) stored and adds 4;
    // 38 (even) adds 1
    assert_eq!(
        [w(2 * 41), w(2 * 42), w(2 * 39), w(2 * 38)],
        [41, 42, 43, 39]
    );
    assert_eq!(w(2 * 39 + 1), 39);
}

#[test]
fn engine_names_round_trip() {
    for (e, name) in Engine::ALL {
        assert_eq!(Engine::parse(name), Some(e));
        assert_eq!(e.name(), name);
    }
    assert_eq!(Engine::parse("JIT"), Some(Engine::Jit));
    assert_eq!(Engine::parse("llvm"), None);
}

#[test]
fn stores_whose_lanes_overlap_keep_the_interpreters_lane_order() {
    // lane l writes .xy at word l * k (k = 1: each lane's y is the next lane's x),
    // at decreasing and at unaligned addresses too
    for (addr, k) in [("UMUL", 4), ("UMUL", 8), ("UMUL", 2), ("down", 4)] {
        let make = if addr == "down" {
            // 60*4 - tid*4: decreasing
            "UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\nINEG TEMP[0].x, TEMP[0].xxxx\nUADD TEMP[0].x, TEMP[0].xxxx, IMM[0].zzzz\n".to_string()
        } else {
            format!(
                "UMUL TEMP[0].x, SV[0].xxxx, IMM[0].{}\n",
                if k == 4 {
                    "xxxx"
                } else if k == 8 {
                    "yyyy"
                } else {
                    "wwww"
                }
            )
        };
        let src = format!(
            "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 20\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
             DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0..1]\nIMM[0] UINT32 {{4, 8, 240, 2}}\n\
             {make}UADD TEMP[1].x, SV[0].xxxx, IMM[0].yyyy\nMOV TEMP[1].y, SV[0].xxxx\n\
             STORE BUFFER[0].xy, TEMP[0].xxxx, TEMP[1]\nLOAD TEMP[1].xy, BUFFER[0], TEMP[0].xxxx\n\
             UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\nSTORE BUFFER[0].xy, TEMP[0].xxxx, TEMP[1].yxyy\nEND\n"
        );
        let Some((interp, jit)) = both(&src) else {
            return;
        };
        let bufs = vec![vec![0u8; 70 * 4]];
        let want = dispatch(&interp, &bufs, 1_000_000);
        assert!(want.0.is_ok(), "{want:?}");
        assert_eq!(want, dispatch(&jit, &bufs, 1_000_000), "{addr} {k}");
    }
}

/// A loop whose 64-bit pairs stay in vector registers as 64-bit lanes:
/// bitwise ops on whole pairs (XOR/AND/OR/NOT/MOV, aligned or not, whole
/// or partial masks) and 64-bit shifts by immediate counts (0, 33, masked
/// 69 → 5, 63) run on the 64-bit lanes and must give the interpreter's bits.
const PAIR_LOOP: &str = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 20\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
    DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL CONST[0][0]\nDCL TEMP[0..6]\n\
    IMM[0] UINT32 {0, 1, 32, 3}\nIMM[1] UINT32 {33, 69, 63, 0}\nIMM[2] UINT32 {2654435769, 2246822519, 3266489917, 668265263}\nIMM[3] UINT32 {16, 0, 0, 0}\n\
    0: UMUL TEMP[0].x, SV[0].xxxx, IMM[0].zzzz\n\
    1: MOV TEMP[1].x, IMM[0].xxxx\n\
    2: UMUL TEMP[2], SV[0].xxxx, IMM[2]\n\
    3: MOV TEMP[3], IMM[2].wzyx\n\
    4: BGNLOOP\n\
    5:   USGE TEMP[4].x, TEMP[1].xxxx, IMM[0].wwww\n\
    6:   UIF TEMP[4].xxxx\n\
    7:     BRK\n\
    8:   ENDIF\n\
    9:   U64MUL TEMP[2].xy, TEMP[2].xyxy, IMM[2].xyxy\n\
    10:  U64ADD TEMP[3].xy, TEMP[3].xyxy, TEMP[2].zwzw\n\
    11:  U64SHR TEMP[5].xy, TEMP[2].xyxy, IMM[1].xxxx\n\
    12:  XOR TEMP[2].xy, TEMP[2].xyxy, TEMP[5].xyxy\n\
    13:  I64SHR TEMP[5].zw, TEMP[3].xyxy, IMM[1].yyyy\n\
    14:  U64SHL TEMP[6].xy, TEMP[3].zwzw, IMM[1].zzzz\n\
    15:  U64SHR TEMP[6].zw, TEMP[2].zwzw, IMM[1].wwww\n\
    16:  AND TEMP[3].xyzw, TEMP[3].zwxy, TEMP[5].xyzw\n\
    17:  OR TEMP[2].zw, TEMP[2].xyxy, TEMP[6].zwzw\n\
    18:  NOT TEMP[5].xy, TEMP[6].xyxy\n\
    19:  XOR TEMP[6].xy, TEMP[5].yxyx, TEMP[3].xyxy\n\
    20:  MOV TEMP[3].zw, TEMP[6].xyxy\n\
    21:  XOR TEMP[5].x, TEMP[5].xxxx, TEMP[2].yyyy\n\
    22:  U64ADD TEMP[2].zw, TEMP[2].zwzw, TEMP[5].xyxy\n\
    23:  UADD TEMP[1].x, TEMP[1].xxxx, IMM[0].yyyy\n\
    24: ENDLOOP\n\
    25: STORE BUFFER[0], TEMP[0].xxxx, TEMP[2]\n\
    26: UADD TEMP[0].x, TEMP[0].xxxx, IMM[3].xxxx\n\
    27: STORE BUFFER[0], TEMP[0].xxxx, TEMP[3]\n\
    28: END\n";

#[test]
fn pairs_kept_as_64_bit_lanes_match_the_interpreter() {
    cached_loop_matches(PAIR_LOOP, 20 * 32);
}

/// Runs `src` (one work group, one loop) on both engines over a zeroed
/// `bytes`-byte BUFFER[0]: the compiled engine keeps the loop in registers,
/// the run stores something, and both engines leave the same buffer.
pub(crate) fn cached_loop_matches(src: &str, bytes: usize) {
    let Some((interp, jit)) = both(src) else {
        return;
    };
    assert!(jit.compiled().is_some_and(|c| c.cached_loops == 1));
    let bufs = vec![vec![0u8; bytes]];
    let want = dispatch(&interp, &bufs, 1_000_000);
    let got = dispatch(&jit, &bufs, 1_000_000);
    assert!(want.0.is_ok());
    assert!(want.1[0].iter().any(|&b| b != 0));
    assert_eq!(want, got);
}

/// Shared memory LOAD/STORE compiled inline at the edge of a 64-byte
/// shared memory: the last word, one past it, a word straddling the end,
/// unaligned addresses (the handler) and far out of range.
#[test]
fn shared_memory_edges_match_the_interpreter() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 16\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL MEMORY[0], SHARED\nDCL TEMP[0..2]\n\
        IMM[0] UINT32 {4, 7, 48, 5}\n\
        0: UMAD TEMP[0].x, SV[0].xxxx, IMM[0].xxxx, IMM[0].zzzz\n\
        1: UADD TEMP[1], SV[0].xxxx, IMM[0]\n\
        2: STORE MEMORY[0].x, TEMP[0].xxxx, TEMP[1].xxxx\n\
        3: UMUL TEMP[0].y, SV[0].xxxx, IMM[0].yyyy\n\
        4: STORE MEMORY[0].x, TEMP[0].yyyy, TEMP[1].wwww\n\
        5: LOAD TEMP[2], MEMORY[0], TEMP[0].xxxx\n\
        6: LOAD TEMP[1].xy, MEMORY[0], TEMP[0].yyyy\n\
        7: UMUL TEMP[0].z, SV[0].xxxx, IMM[0].zzzz\n\
        8: STORE BUFFER[0].xyzw, TEMP[0].zzzz, TEMP[2]\n\
        9: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].zzzz\n\
        10: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].zzzz\n\
        11: STORE BUFFER[0].xy, TEMP[0].zzzz, TEMP[1]\n\
        12: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    let run = |p: &Program| {
        let mut res = Resources {
            buffers: vec![vec![0u8; 16 * 48 * 3]],
            ..Resources::default()
        };
        let limits = Limits {
            shared_memory_bytes: 64,
            ..Limits::default()
        };
        let r = p
            .dispatch_stats(&mut res, [1, 1, 1], &limits)
            .map(|s| s.batch_instructions);
        (r.map_err(|e| e.message), res.buffers)
    };
    let want = run(&interp);
    assert!(want.0.is_ok());
    assert!(want.1[0].iter().any(|&b| b != 0));
    assert_eq!(want, run(&jit));
}

/// SIN and COS compile inline (`Emitter::trig`): every lane as the
/// definition (`math::sin_f32`, `cos_f32`) and as the interpreter gives it,
/// with source modifiers, lanes an IF switches off, rows all inside the
/// inline path and rows with lanes beyond it (|x| ≥ 1024, ±inf, NaNs),
/// which take the row kernel.
#[test]
fn sin_and_cos_inline_give_the_definitions_bits() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..3]\n\
        IMM[0] UINT32 {4, 64, 16, 1}\n\
        0: UMAD TEMP[0].x, SV[1].xxxx, IMM[0].yyyy, SV[0].xxxx\n\
        1: UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].xxxx\n\
        2: LOAD TEMP[1].x, BUFFER[0], TEMP[0].yyyy\n\
        3: SIN TEMP[2].x, TEMP[1].xxxx\n\
        4: COS TEMP[2].y, -TEMP[1].xxxx\n\
        5: AND TEMP[3].x, TEMP[0].xxxx, IMM[0].wwww\n\
        6: UIF TEMP[3].xxxx\n\
        7:   SIN TEMP[2].z, |TEMP[1].xxxx|\n\
        8:   COS TEMP[2].w, TEMP[1].xxxx\n\
        9: ENDIF\n\
        10: UMUL TEMP[0].z, TEMP[0].xxxx, IMM[0].zzzz\n\
        11: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[2]\n\
        12: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    const GROUPS: usize = 64;
    let mut rng = tgsi_ir::rng::Rng(0x51c0_5eed_0000_0001);
    let edges = tgsi_ir::rng::EDGE_F32;
    let xs: Vec<f32> = (0..GROUPS * 64)
        .map(|i| match (i / 16) % 5 {
            // rows wholly inside the inline path
            0 => rng.uniform(-1000.0, 1000.0) as f32,
            1 => rng.uniform(-1100.0, 1100.0) as f32,
            2 => {
                let k = (rng.next() % 700) as f64;
                let c = (k * std::f64::consts::FRAC_PI_2) as f32;
                f32::from_bits((c.to_bits() as i32 + (rng.next() % 5) as i32 - 2) as u32)
            }
            3 => f32::from_bits(edges[i % edges.len()]),
            _ => f32::from_bits(rng.next() as u32),
        })
        .collect();
    let input: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    let run = |p: &Program| {
        let buffers = vec![input.clone(), vec![0; GROUPS * 64 * 16]];
        run_groups(p, buffers, GROUPS).swap_remove(1)
    };
    let (want, got) = (run(&interp), run(&jit));
    use tgsi_exec::math::{cos_f32, sin_f32};
    let expect = |i: usize| {
        let (x, odd) = (xs[i], i % 2 == 1);
        [
            sin_f32(x).to_bits(),
            cos_f32(-x).to_bits(),
            if odd { sin_f32(x.abs()).to_bits() } else { 0 },
            if odd { cos_f32(x).to_bits() } else { 0 },
        ]
    };
    lanes_give(&want, &got, xs.len(), expect, |i| {
        format!("x = {:e}", xs[i])
    });
}

/// Asserts that lane i's four words in `want` (the interpreter's) and in
/// `got` (the compiled engine's) are `expect(i)`, naming the engine, the
/// lane, the channel and `inputs(i)`.
pub(crate) fn lanes_give(
    want: &[u8],
    got: &[u8],
    lanes: usize,
    expect: impl Fn(usize) -> [u32; 4],
    inputs: impl Fn(usize) -> String,
) {
    let word = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    for i in 0..lanes {
        for (c, e) in expect(i).into_iter().enumerate() {
            for (engine, words) in [("interpreter", want), ("compiled", got)] {
                assert_eq!(
                    word(words, 4 * i + c),
                    e,
                    "{engine}, lane {i} channel {c}, {}",
                    inputs(i)
                );
            }
        }
    }
}

/// Runs `groups` work groups on the interpreter and the compiled engine
/// with BUFFER[0] = `input` and a zeroed BUFFER[1] of `out_bytes`, and
/// asserts that they leave the same words there (`per_lane` words a lane).
pub(crate) fn outputs_agree(
    (interp, jit): (&Program, &Program),
    input: &[u8],
    groups: usize,
    out_bytes: usize,
    per_lane: usize,
) {
    let run = |p: &Program| {
        let buffers = vec![input.to_vec(), vec![0; out_bytes]];
        run_groups(p, buffers, groups).swap_remove(1)
    };
    same_words(&run(interp), &run(jit), per_lane, "BUFFER[1]");
}

/// Pairs a loop writes with every lane (no merge: `segment_local`) only
/// where the lanes outside the exec mask are never read: TEMP[3] is written
/// before it is read in each iteration; TEMP[1] is read before it is
/// written and TEMP[2], TEMP[4] after the loop, so lanes that left the loop
/// early must keep their values there.
#[test]
fn pairs_written_whole_only_where_masked_lanes_are_dead() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0..5]\n\
        IMM[0] UINT32 {0, 1, 24, 15}\nIMM[1] UINT32 {0, 1072693248, 7, 0}\nIMM[2] UINT32 {8, 16, 0, 0}\n\
        0: MOV TEMP[0].x, IMM[0].xxxx\n\
        1: AND TEMP[0].y, SV[0].xxxx, IMM[0].wwww\n\
        2: MOV TEMP[1].xy, IMM[0].xxxx\n\
        3: MOV TEMP[2].xy, IMM[0].xxxx\n\
        4: MOV TEMP[4].xy, IMM[0].xxxx\n\
        5: BGNLOOP\n\
        6:   USGE TEMP[5].x, TEMP[0].xxxx, TEMP[0].yyyy\n\
        7:   UIF TEMP[5].xxxx\n\
        8:     BRK\n\
        9:   ENDIF\n\
        10:  DADD TEMP[1].xy, TEMP[1].xyxy, IMM[1].xyxy\n\
        11:  U64MUL TEMP[3].xy, TEMP[1].xyxy, IMM[1].zwzw\n\
        12:  U64ADD TEMP[2].xy, TEMP[3].xyxy, TEMP[2].xyxy\n\
        13:  U64ADD TEMP[4].xy, TEMP[3].xyxy, TEMP[1].xyxy\n\
        14:  UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\n\
        15: ENDLOOP\n\
        16: UMUL TEMP[0].z, SV[0].xxxx, IMM[0].zzzz\n\
        17: STORE BUFFER[0].xy, TEMP[0].zzzz, TEMP[1]\n\
        18: UADD TEMP[0].w, TEMP[0].zzzz, IMM[2].xxxx\n\
        19: STORE BUFFER[0].xy, TEMP[0].wwww, TEMP[4]\n\
        20: UADD TEMP[0].w, TEMP[0].zzzz, IMM[2].yyyy\n\
        21: STORE BUFFER[0].xy, TEMP[0].wwww, TEMP[2]\n\
        22: END\n";
    let Some(got) = agreed(src, vec![vec![0u8; 64 * 24]]) else {
        return;
    };
    // thread t ran t % 16 iterations: TEMP[1] = (t % 16) as f64
    let word = |i: usize| word(&got[0], i);
    for t in [0usize, 5, 15, 17] {
        let x = f64::from_bits(u64::from(word(6 * t)) | u64::from(word(6 * t + 1)) << 32);
        assert_eq!(x, (t % 16) as f64, "thread {t}");
    }
}

/// A row written outside the register cache that the next instruction
/// reads is stored whole, its lanes outside the execution mask merged in
/// from the row (a masked store would hold up the next load): inside a
/// divergent UIF the lanes that skip it keep the value from before.
#[test]
fn rows_stored_whole_for_the_next_instruction_keep_their_inactive_lanes() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 32\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0..2]\n\
        IMM[0] UINT32 {4, 7, 2, 128}\n\
        0: MOV TEMP[0].x, IMM[0].yyyy\n\
        1: AND TEMP[1].x, SV[0].xxxx, IMM[0].zzzz\n\
        2: UIF TEMP[1].xxxx\n\
        3:   UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\n\
        4:   STORE BUFFER[0].x, TEMP[0].xxxx, SV[0].xxxx\n\
        5: ENDIF\n\
        6: UMUL TEMP[2].x, SV[0].xxxx, IMM[0].xxxx\n\
        7: UADD TEMP[2].x, TEMP[2].xxxx, IMM[0].wwww\n\
        8: STORE BUFFER[0].x, TEMP[2].xxxx, TEMP[0].xxxx\n\
        9: END\n";
    let Some(got) = agreed(src, vec![vec![0u8; 64 * 4]]) else {
        return;
    };
    let word = |i: usize| word(&got[0], i);
    for t in 0..32 {
        let inside = t & 2 != 0;
        assert_eq!(
            word(32 + t),
            if inside { 4 * t as u32 } else { 7 },
            "thread {t}"
        );
        if inside {
            assert_eq!(word(t), t as u32, "thread {t}");
        }
    }
}

/// Direct3D's numeric rules inline: float sources read with denormals as
/// zeros of their sign and float results written the same way, in the
/// component, scalar and row templates (ADD, MUL, MAD with a modifier,
/// SQRT, SIN, EX2), lane by lane as the interpreter gives them.
#[test]
fn direct3d_denormal_flushing_compiles_inline() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..3]\n\
        IMM[0] UINT32 {4, 32, 16, 0}\nIMM[1] FLT32 {0.5, 0.25, 1.0, -1.0}\n\
        0: UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\n\
        1: LOAD TEMP[1].x, BUFFER[0], TEMP[0].xxxx\n\
        2: XOR TEMP[0].y, SV[0].xxxx, IMM[0].yyyy\n\
        3: UMUL TEMP[0].y, TEMP[0].yyyy, IMM[0].xxxx\n\
        4: LOAD TEMP[1].y, BUFFER[0], TEMP[0].yyyy\n\
        5: ADD TEMP[2].x, TEMP[1].xxxx, TEMP[1].yyyy\n\
        6: MUL TEMP[2].y, TEMP[1].xxxx, IMM[1].xxxx\n\
        7: MAD TEMP[2].z, -TEMP[1].yyyy, IMM[1].yyyy, TEMP[1].xxxx\n\
        8: SQRT TEMP[2].w, |TEMP[1].xxxx|\n\
        9: SIN TEMP[3].x, TEMP[1].xxxx\n\
        10: EX2 TEMP[3].y, TEMP[1].yyyy\n\
        11: MUL TEMP[3].z, TEMP[1].yyyy, IMM[1].zzzz\n\
        12: MOV TEMP[3].w, TEMP[1].yyyy\n\
        13: UMUL TEMP[0].z, SV[0].xxxx, IMM[0].yyyy\n\
        14: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[2]\n\
        15: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].zzzz\n\
        16: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[3]\n\
        17: END\n";
    let (s, _) = tgsi_text::assemble(src).unwrap();
    let interp = crate::compile_engine(&s, Numerics::Direct3D, Engine::Interp).unwrap();
    let jit = crate::compile_engine(&s, Numerics::Direct3D, Engine::Jit).unwrap();
    if !cpu_supported() {
        return;
    }
    assert_eq!(Engine::of(&jit), Engine::Jit, "{:?}", jit.fallback_reason());
    // denormals of both signs, the smallest normals, values whose halves and
    // quarters are denormal, zeros, ordinary numbers, NaN and infinity
    let words: Vec<u32> = (0..64u32)
        .map(|i| match i % 8 {
            0 => 0x0000_0001 + i * 0x1_1111,
            1 => 0x8000_0003 + i * 0x2_0001,
            2 => 0x0080_0000,
            3 => 0x8080_0000 + i,
            4 => 0x0100_0000 + i * 7,
            5 => (i as f32 * 0.37 - 3.0).to_bits(),
            6 => [0, 0x8000_0000, 0x7fc0_0000, 0xff80_0000][(i / 8 % 4) as usize],
            _ => 0x007f_ffff,
        })
        .collect();
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let run = |p: &Program| {
        let mut res = Resources {
            buffers: vec![input.clone(), vec![0; 64 * 32]],
            ..Resources::default()
        };
        p.dispatch_stats(&mut res, [1, 1, 1], &Limits::default())
            .unwrap();
        res.buffers.swap_remove(1)
    };
    let (want, got) = (run(&interp), run(&jit));
    assert_eq!(want, got);
    // thread 0: x = 2^-149 (denormal, read as 0): MUL 0.5 gives +0, SQRT 0
    let word = |i: usize| u32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!((word(1), word(3)), (0, 0));
    // thread 2: x = 2^-126, x·0.5 is denormal, written as +0
    assert_eq!(word(8 * 2 + 1), 0);
    // MOV copies bits (not a float operation): thread 6 ^ 32 reads word 7
    // (LOAD into .y takes the second word at its address), 0x007fffff
    assert_eq!(word(8 * (6 ^ 32) + 7), 0x007f_ffff);
}

/// Every opcode of the table is compiled by a template, a row kernel or
/// flow control, or is declared to run through the interpreter's handler;
/// a declaration never covers an opcode that has a template.
#[cfg(all(feature = "jit", target_arch = "x86_64"))]
#[test]
fn every_opcode_has_a_template_or_a_declared_fallback() {
    use super::emit::{compiled_as, declared_fallback};
    use tgsi_ir::opcode::Opcode;
    let (mut undeclared, mut stale) = (Vec::new(), Vec::new());
    for op in (0..=u8::MAX).filter_map(Opcode::from_u8) {
        match (compiled_as(op), declared_fallback(op)) {
            ("handler", false) => undeclared.push(op.name()),
            ("template" | "row kernel", true) => stale.push(op.name()),
            _ => {}
        }
    }
    assert!(
        undeclared.is_empty(),
        "opcodes with neither a template nor a declared fallback: {}",
        undeclared.join(" ")
    );
    assert!(
        stale.is_empty(),
        "declared fallbacks that have a template: {}",
        stale.join(" ")
    );
}

/// docs/jit.md lists exactly the opcodes that have an inline template.
#[cfg(all(feature = "jit", target_arch = "x86_64"))]
#[test]
fn the_docs_list_exactly_the_inline_templates() {
    use super::emit::compiled_as;
    use std::collections::BTreeSet;
    use tgsi_ir::opcode::Opcode;
    let doc = include_str!("../../../docs/jit.md");
    let start = doc
        .find("**Inline templates**")
        .expect("the docs' template list");
    let end = start + doc[start..].find("`_SAT`").expect("the end of the list");
    let listed: BTreeSet<&str> = doc[start..end]
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
        .filter(|w| Opcode::from_name(w).is_some())
        .collect();
    let templates: BTreeSet<&str> = (0..=u8::MAX)
        .filter_map(Opcode::from_u8)
        .filter(|&op| compiled_as(op) == "template")
        .map(Opcode::name)
        .collect();
    assert_eq!(listed, templates, "docs/jit.md's inline templates");
}

/// Every template computes an opcode of the machine's semantics table, with
/// the table's shape and source count (the template follows that row's
/// scalar function; the differential tests and the fuzzer check the bits).
#[cfg(all(feature = "jit", target_arch = "x86_64"))]
#[test]
fn templates_agree_with_the_semantics_table() {
    use super::emit::template_shape;
    use tgsi_exec::semantics::{LaneShape, lane_op};
    use tgsi_ir::opcode::Opcode;
    let mut wrong = Vec::new();
    for op in (0..=u8::MAX).filter_map(Opcode::from_u8) {
        let Some((kind, n)) = template_shape(op) else {
            continue;
        };
        let apart = kind == 'f' && op == Opcode::DFRACEXP && lane_op(op).is_none();
        let agrees = apart
            || lane_op(op).is_some_and(|l| match (kind, l.shape) {
                ('c', LaneShape::Component(m))
                | ('s', LaneShape::Scalar(m))
                | ('x', LaneShape::Special(m)) => m as usize == n,
                ('k', LaneShape::Pack) | ('u', LaneShape::Unpack) => n == 1,
                // DFRACEXP's two destinations keep it out of the lane table
                // (the machine runs it apart, `alu::dfracexp`)
                ('f', _) => false,
                ('p', LaneShape::Pair(_)) => l.shape.sources() as usize == n,
                ('d', LaneShape::Dot(_)) => l.shape.sources() as usize == n,
                _ => false,
            });
        if !agrees {
            wrong.push(format!(
                "{op}: template ({kind}, {n}), table {:?}",
                lane_op(op)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// MIN, MAX, the dot products, ARL, F2I, F2U, SSG, ISSG, IMUL_HI, UMUL_HI,
/// LRP, FMA, UDIV, UMOD, IDIV and MOD inline give the interpreter's bits on edge values (NaNs of
/// both kinds, signed zeros, denormals, infinities, the ends of the integer
/// ranges) and random words, with source modifiers.
#[test]
fn float_and_integer_templates_give_the_interpreters_bits() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL BUFFER[2]\nDCL TEMP[0..4]\n\
        IMM[0] UINT32 {16, 64, 32, 0}\n\
        0: UMAD TEMP[0].x, SV[1].xxxx, IMM[0].yyyy, SV[0].xxxx\n\
        1: UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].zzzz\n\
        2: LOAD TEMP[1], BUFFER[0], TEMP[0].yyyy\n\
        3: UADD TEMP[0].z, TEMP[0].yyyy, IMM[0].xxxx\n\
        4: LOAD TEMP[2], BUFFER[0], TEMP[0].zzzz\n\
        5: MIN TEMP[3].x, TEMP[1].xxxx, TEMP[2].xxxx\n\
        6: MAX TEMP[3].y, TEMP[1].yyyy, -TEMP[2].yyyy\n\
        7: DP3 TEMP[3].z, TEMP[1], TEMP[2]\n\
        8: DP4 TEMP[3].w, TEMP[1].wzyx, |TEMP[2]|\n\
        9: DP2 TEMP[4].x, TEMP[1].zwxx, TEMP[2]\n\
        10: MIN TEMP[4].y, TEMP[2].zzzz, TEMP[1].wwww\n\
        11: MAX TEMP[4].zw, TEMP[2].wwzz, TEMP[1].zzww\n\
        12: STORE BUFFER[1].xyzw, TEMP[0].yyyy, TEMP[3]\n\
        13: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[4]\n\
        14: ARL TEMP[3].x, TEMP[1].xxxx\n\
        15: F2I TEMP[3].y, TEMP[1].yyyy\n\
        16: F2U TEMP[3].z, -TEMP[1].zzzz\n\
        17: SSG TEMP[3].w, TEMP[2].xxxx\n\
        18: ISSG TEMP[4].x, TEMP[2].yyyy\n\
        19: IMUL_HI TEMP[4].y, TEMP[1].wwww, TEMP[2].zzzz\n\
        20: UMUL_HI TEMP[4].z, TEMP[2].wwww, TEMP[1].xxxx\n\
        21: LRP TEMP[4].w, TEMP[1].yyyy, TEMP[2].xxxx, TEMP[2].wwww\n\
        22: UMUL TEMP[0].w, TEMP[0].xxxx, IMM[0].yyyy\n\
        23: STORE BUFFER[2].xyzw, TEMP[0].wwww, TEMP[3]\n\
        24: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        25: STORE BUFFER[2].xyzw, TEMP[0].wwww, TEMP[4]\n\
        26: FMA TEMP[3], TEMP[1], TEMP[2].yzwx, TEMP[1].wzyx\n\
        27: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        28: STORE BUFFER[2].xyzw, TEMP[0].wwww, TEMP[3]\n\
        29: UDIV TEMP[3].x, TEMP[1].xxxx, TEMP[2].yyyy\n\
        30: UMOD TEMP[3].y, TEMP[2].zzzz, TEMP[1].wwww\n\
        31: IDIV TEMP[3].z, TEMP[1].yyyy, TEMP[2].wwww\n\
        32: MOD TEMP[3].w, TEMP[2].xxxx, TEMP[1].zzzz\n\
        33: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        34: STORE BUFFER[2].xyzw, TEMP[0].wwww, TEMP[3]\n\
        35: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    const GROUPS: usize = 16;
    let edges = tgsi_ir::rng::EDGE_F32;
    let mut rng = tgsi_ir::rng::Rng(0xd07_0000_5eed);
    const INTS: [u32; 10] = [
        0x8000_0000,
        0x7fff_ffff,
        0xffff_ffff,
        1,
        0,
        7,
        0x4f00_0000, // 2^31
        0xcf00_0000, // -2^31
        0x4f80_0000, // 2^32
        0x4effffff,  // the float below 2^31
    ];
    let words: Vec<u32> = (0..GROUPS * 64 * 8)
        .map(|i| match i % 4 {
            0 | 1 => edges[rng.below(edges.len() as u64) as usize],
            2 => INTS[rng.below(INTS.len() as u64) as usize],
            _ => rng.next() as u32,
        })
        .collect();
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let run = |p: &Program| {
        let buffers = vec![
            input.clone(),
            vec![0; GROUPS * 64 * 32],
            vec![0; GROUPS * 64 * 64],
        ];
        run_groups(p, buffers, GROUPS)
    };
    let (want, got) = (run(&interp), run(&jit));
    assert_eq!(jit.compiled().map(|f| f.called), Some(0));
    // words per lane: 8 in BUFFER[1], 16 in BUFFER[2]
    for (k, per_lane) in [(1, 8), (2, 16)] {
        same_words(&want[k], &got[k], per_lane, &format!("BUFFER[{k}]"));
    }
}

/// Asserts that two buffers hold the same words, naming the first that
/// differs by its lane (`per_lane` words each) and word.
pub(crate) fn same_words(want: &[u8], got: &[u8], per_lane: usize, what: &str) {
    assert_eq!(want.len(), got.len(), "{what}: lengths");
    for (i, (w, g)) in want.chunks(4).zip(got.chunks(4)).enumerate() {
        let (lane, word) = (i / per_lane, i % per_lane);
        assert_eq!(w, g, "{what} word {i} (lane {lane}, word {word})");
    }
}

/// The program of [`pair_templates_give_the_interpreters_bits_on_edge_pairs`].
const PAIR_TEMPLATES: &str = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..6]\n\
        IMM[0] UINT32 {16, 64, 32, 560}\n\
        0: UMAD TEMP[0].x, SV[1].xxxx, IMM[0].yyyy, SV[0].xxxx\n\
        1: UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].zzzz\n\
        2: LOAD TEMP[1], BUFFER[0], TEMP[0].yyyy\n\
        3: UADD TEMP[0].z, TEMP[0].yyyy, IMM[0].xxxx\n\
        4: LOAD TEMP[2], BUFFER[0], TEMP[0].zzzz\n\
        5: DMIN TEMP[3].xy, TEMP[1].xyxy, TEMP[2].zwzw\n\
        6: DMAX TEMP[3].zw, TEMP[1].zwzw, -TEMP[2].xyxy\n\
        7: I64MIN TEMP[4].xy, TEMP[1].zwzw, TEMP[2].xyxy\n\
        8: I64MAX TEMP[4].zw, TEMP[2].zwzw, TEMP[1].xyxy\n\
        9: U64MIN TEMP[5].xy, TEMP[1].xyxy, TEMP[2].xyxy\n\
        10: U64MAX TEMP[5].zw, TEMP[1].zwzw, TEMP[2].zwzw\n\
        11: I64ABS TEMP[6], TEMP[2]\n\
        12: UMUL TEMP[0].w, TEMP[0].xxxx, IMM[0].wwww\n\
        13: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        14: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        15: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        16: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        17: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[5]\n\
        18: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        19: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[6]\n\
        20: DFLR TEMP[3].xy, TEMP[1].xyxy\n\
        21: DCEIL TEMP[3].zw, -TEMP[1].zwzw\n\
        22: DTRUNC TEMP[4].xy, |TEMP[2].xyxy|\n\
        23: DROUND TEMP[4].zw, TEMP[2].zwzw\n\
        24: DMIN TEMP[5].xy, TEMP[5].xyxy, TEMP[1].xyxy\n\
        25: DFLR TEMP[5].zw, TEMP[5].zwzw\n\
        26: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        27: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        28: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        29: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        30: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        31: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[5]\n\
        32: I2D TEMP[3], TEMP[1].xyxy\n\
        33: U2D TEMP[4], TEMP[1].zwzw\n\
        34: F2D TEMP[5], -TEMP[2].yxxx\n\
        35: I2I64 TEMP[6].xy, TEMP[2].zzzz\n\
        36: U2I64 TEMP[6].zw, TEMP[1].wwww\n\
        37: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        38: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        39: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        40: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        41: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        42: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[5]\n\
        43: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        44: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[6]\n\
        45: MOV TEMP[3], TEMP[2]\n\
        46: DSLT TEMP[3].xz, TEMP[1], TEMP[2]\n\
        47: MOV TEMP[4], TEMP[1]\n\
        48: DSGE TEMP[4].yw, TEMP[1].zwxy, -TEMP[2]\n\
        49: MOV TEMP[5], TEMP[2]\n\
        50: DSEQ TEMP[5].x, TEMP[1], TEMP[1].zwzw\n\
        51: DSNE TEMP[5].zw, TEMP[2], TEMP[1]\n\
        52: MOV TEMP[6], TEMP[1]\n\
        53: U64SEQ TEMP[6].xy, TEMP[1], TEMP[2].zwxy\n\
        54: U64SNE TEMP[6].w, TEMP[1], TEMP[2]\n\
        55: U64SLT TEMP[3].y, TEMP[1].zwzw, TEMP[2]\n\
        56: U64SGE TEMP[4].x, TEMP[2], TEMP[1]\n\
        57: I64SLT TEMP[5].y, TEMP[1].zwzw, TEMP[2]\n\
        58: I64SGE TEMP[6].z, TEMP[2].xyxy, TEMP[1]\n\
        59: DSLT TEMP[4].yw, TEMP[4].xyyy, -TEMP[2]\n\
        60: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        61: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        62: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        63: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        64: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        65: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[5]\n\
        66: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        67: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[6]\n\
        68: MOV TEMP[5], TEMP[1]\n\
        69: D2F TEMP[5].yz, TEMP[2]\n\
        70: MOV TEMP[6], TEMP[2]\n\
        71: D2I TEMP[6].xw, -TEMP[1].zwxy\n\
        72: MOV TEMP[3], TEMP[1]\n\
        73: D2U TEMP[3].w, TEMP[2].zwzw\n\
        74: D2U TEMP[3].xy, |TEMP[1]|\n\
        75: D2F TEMP[4].xy, TEMP[4].zwxx\n\
        76: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        77: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        78: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        79: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        80: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        81: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[5]\n\
        82: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        83: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[6]\n\
        84: I642D TEMP[3], TEMP[1]\n\
        85: U642D TEMP[4], TEMP[2].zwxy\n\
        86: D2I64 TEMP[5], -TEMP[1]\n\
        87: MOV TEMP[6], TEMP[1]\n\
        88: D2U64 TEMP[6].zw, TEMP[2].xyxy\n\
        89: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        90: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        91: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        92: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        93: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        94: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[5]\n\
        95: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        96: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[6]\n\
        97: F2I64 TEMP[3], TEMP[1].xyxy\n\
        98: F2U64 TEMP[4], -TEMP[2].zwzw\n\
        99: I64SSG TEMP[5], TEMP[1]\n\
        100: MOV TEMP[6], TEMP[2]\n\
        101: I642F TEMP[6].xy, TEMP[2]\n\
        102: U642F TEMP[6].w, TEMP[1].zwzw\n\
        103: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        104: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        105: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        106: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        107: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        108: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[5]\n\
        109: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        110: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[6]\n\
        111: DRCP TEMP[3], TEMP[1]\n\
        112: DSQRT TEMP[4], TEMP[2]\n\
        113: DRSQ TEMP[5], -TEMP[1].zwxy\n\
        114: DFRAC TEMP[6], TEMP[2].zwxy\n\
        115: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        116: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        117: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        118: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        119: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        120: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[5]\n\
        121: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        122: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[6]\n\
        123: U64ADD TEMP[3], -TEMP[1], |TEMP[2]|\n\
        124: I64MIN TEMP[4], -|TEMP[1].zwxy|, TEMP[2]\n\
        125: I2D TEMP[5], -TEMP[1].xyxy\n\
        126: U64SLT TEMP[6].xz, -TEMP[2], TEMP[1]\n\
        127: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        128: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        129: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        130: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        131: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        132: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[5]\n\
        133: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        134: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[6]\n\
        135: END\n";

/// The 64-bit min/max, abs, rounding, reciprocal, square root, fraction,
/// widening, narrowing and compare templates, with 64-bit integer sources'
/// abs and negation, give the interpreter's bits on edge pairs (quiet and
/// signalling NaNs of both signs, signed zeros, denormals, infinities,
/// halves and the 2^52 edge, the ends of the signed and unsigned ranges)
/// and random words, with source modifiers: each compare's boolean in x
/// or z, each narrowed word in x or y (where the mask enables them), the
/// other channels kept, both pairs read before
/// either is written, and only the masked channel pairs written.
#[test]
fn pair_templates_give_the_interpreters_bits_on_edge_pairs() {
    let src = PAIR_TEMPLATES;
    let Some((interp, jit)) = both(src) else {
        return;
    };
    const GROUPS: usize = 16;
    let mut rng = tgsi_ir::rng::Rng(0x64_0000_5eed);
    const EDGES: [u64; 32] = [
        0x5f00_0000_df00_0000, // words: ±2^63 as floats
        0x5f80_0000_bf80_0000, // words: 2^64 and -1 as floats
        0x0020_0000_0000_0001, // 2^53 + 1 (rounds to a double)
        0x7fff_ffff_ffff_fe00, // rounds up to 2^63 as a double
        0x41df_ffff_ffc0_0000, // 2^31 - 1
        0x41e0_0000_0000_0000, // 2^31
        0xc1e0_0000_0020_0000, // -(2^31 + 1)
        0x41ef_ffff_ffe0_0000, // 2^32 - 1
        0xbfef_ffff_ffff_ffff, // just above -1
        0x7fa0_0001_ff80_0001, // words: signalling float NaNs of both signs
        0x7ff8_0000_0000_0000, // quiet NaN
        0xfff8_0000_0000_0001, // negative quiet NaN with a payload
        0x7ff0_0000_0000_0001, // signalling NaN
        0x7ff0_0000_0000_0000, // +inf
        0xfff0_0000_0000_0000, // -inf
        0,
        0x8000_0000_0000_0000, // -0, i64::MIN
        1,                     // least denormal
        0x800f_ffff_ffff_ffff, // negative denormal
        0x3ff0_0000_0000_0000, // 1
        0xbfe0_0000_0000_0000, // -0.5
        0x3fe0_0000_0000_0000, // 0.5
        0x3ff8_0000_0000_0000, // 1.5
        0xc004_0000_0000_0000, // -2.5
        0x4330_0000_0000_0000, // 2^52
        0x432f_ffff_ffff_ffff, // below 2^52
        0xc330_0000_0000_0001, // -(2^52 + 2)
        0x7fef_ffff_ffff_ffff, // the largest double
        0x7fff_ffff_ffff_ffff, // i64::MAX (a NaN)
        0xffff_ffff_ffff_ffff, // u64::MAX, -1
        0x0000_0000_ffff_ffff,
        0x0000_0001_0000_0000,
    ];
    let pairs: Vec<u64> = (0..GROUPS * 64 * 4)
        .map(|i| match i % 3 {
            0 | 1 => EDGES[rng.below(EDGES.len() as u64) as usize],
            _ => rng.next(),
        })
        .collect();
    let input: Vec<u8> = pairs.iter().flat_map(|w| w.to_le_bytes()).collect();
    let run = |p: &Program| {
        let buffers = vec![input.clone(), vec![0; GROUPS * 64 * 560]];
        run_groups(p, buffers, GROUPS)
    };
    let (want, got) = (run(&interp), run(&jit));
    assert_eq!(jit.compiled().map(|f| f.called), Some(0));
    assert!(want[1].iter().any(|&b| b != 0));
    // 140 words per lane (35 stores of 4 words)
    same_words(&want[1], &got[1], 140, "BUFFER[1]");
}

/// LSB, UMSB, IMSB, POPC, BREV, IBFE and UBFE inline give the
/// interpreter's bits on 0, -1, the ends of the ranges, single bits, field
/// offsets and widths at 0, 31, 32 and past the word, and random words;
/// integer sources' abs and negation (wrapping) read inline; LDEXP of any
/// float by exponents at and past the ends of the range.
#[test]
fn bit_count_templates_give_the_interpreters_bits() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..3]\n\
        IMM[0] UINT32 {16, 64, 96, 0}\n\
        IMM[1] UINT32 {0, 32, 28, 8}\n\
        0: UMAD TEMP[0].x, SV[1].xxxx, IMM[0].yyyy, SV[0].xxxx\n\
        1: UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].xxxx\n\
        2: LOAD TEMP[1], BUFFER[0], TEMP[0].yyyy\n\
        3: LSB TEMP[2].x, TEMP[1].xxxx\n\
        4: UMSB TEMP[2].y, TEMP[1].yyyy\n\
        5: IMSB TEMP[2].z, TEMP[1].zzzz\n\
        6: POPC TEMP[2].w, TEMP[1].wwww\n\
        7: UMUL TEMP[0].z, TEMP[0].xxxx, IMM[0].zzzz\n\
        8: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[2]\n\
        9: LSB TEMP[3].x, TEMP[1].wwww\n\
        10: UMSB TEMP[3].y, TEMP[1].zzzz\n\
        11: IMSB TEMP[3].z, TEMP[1].yyyy\n\
        12: POPC TEMP[3].w, TEMP[1].xxxx\n\
        13: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].xxxx\n\
        14: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[3]\n\
        15: BREV TEMP[2].x, TEMP[1].yyyy\n\
        16: IBFE TEMP[2].y, TEMP[1].xxxx, TEMP[1].zzzz, TEMP[1].wwww\n\
        17: UBFE TEMP[2].z, TEMP[1].yyyy, TEMP[1].wwww, TEMP[1].zzzz\n\
        18: IBFE TEMP[2].w, TEMP[1].zzzz, IMM[1].xxxx, IMM[1].yyyy\n\
        19: UBFE TEMP[3].x, TEMP[1].wwww, IMM[1].zzzz, IMM[1].wwww\n\
        20: IBFE TEMP[3].y, TEMP[1].wwww, IMM[1].zzzz, IMM[1].wwww\n\
        21: UBFE TEMP[3].z, TEMP[1].xxxx, IMM[1].wwww, TEMP[1].yyyy\n\
        22: IBFE TEMP[3].w, TEMP[1].yyyy, TEMP[1].xxxx, IMM[1].wwww\n\
        23: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].xxxx\n\
        24: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[2]\n\
        25: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].xxxx\n\
        26: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[3]\n\
        27: UADD TEMP[2].x, -TEMP[1].xxxx, TEMP[1].yyyy\n\
        28: IMAX TEMP[2].y, |TEMP[1].zzzz|, -TEMP[1].wwww\n\
        29: UMUL TEMP[2].z, -|TEMP[1].yyyy|, TEMP[1].xxxx\n\
        30: I2F TEMP[2].w, -TEMP[1].zzzz\n\
        31: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].xxxx\n\
        32: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[2]\n\
        33: LDEXP TEMP[3].x, TEMP[1].xxxx, TEMP[1].yyyy\n\
        34: LDEXP TEMP[3].y, TEMP[1].zzzz, -TEMP[1].wwww\n\
        35: LDEXP TEMP[3].z, TEMP[1].yyyy, IMM[1].wwww\n\
        36: LDEXP TEMP[3].w, TEMP[1].wwww, TEMP[1].xxxx\n\
        37: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].xxxx\n\
        38: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[3]\n\
        39: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    const GROUPS: usize = 8;
    const EDGES: [u32; 14] = [
        0,
        32,
        31,
        16,
        33,
        0xffff_ffff,
        0x8000_0000,
        0x7fff_ffff,
        1,
        0x8000_0001,
        0x0001_0000,
        0xfffe_ffff,
        0x5555_5555,
        0xaaaa_aaaa,
    ];
    let mut rng = tgsi_ir::rng::Rng(0xb175_5eed);
    let words: Vec<u32> = (0..GROUPS * 64 * 4)
        .map(|i| {
            if i % 2 == 0 {
                EDGES[rng.below(EDGES.len() as u64) as usize]
            } else {
                // a random word with a random count of its top bits cleared
                (rng.next() as u32) >> rng.below(32)
            }
        })
        .collect();
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let run = |p: &Program| run_groups(p, vec![input.clone(), vec![0; GROUPS * 64 * 96]], GROUPS);
    let (want, got) = (run(&interp), run(&jit));
    assert_eq!(jit.compiled().map(|f| f.called), Some(0));
    assert!(want[1].iter().any(|&b| b != 0));
    same_words(&want[1], &got[1], 24, "BUFFER[1]");
}

/// A loop the compiled engine keeps in registers, with the newer 64-bit
/// and bit templates inside a divergent IF: a widening written straight
/// into a cached pair under the mask, a compare and a narrowing into
/// single channels, 64-bit and 32-bit integer modifiers read from cached
/// registers: the interpreter's bits.
const NEW_PAIRS_LOOP: &str = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 20\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
    DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0..7]\n\
    IMM[0] UINT32 {0, 1, 16, 5}\nIMM[1] UINT32 {2654435769, 2246822519, 3266489917, 668265263}\nIMM[2] UINT32 {64, 0, 0, 0}\n\
    0: UMUL TEMP[0].x, SV[0].xxxx, IMM[2].xxxx\n\
    1: MOV TEMP[1].x, IMM[0].xxxx\n\
    2: UMUL TEMP[2], SV[0].xxxx, IMM[1]\n\
    3: MOV TEMP[3], IMM[1].wzyx\n\
    4: AND TEMP[7].x, SV[0].xxxx, IMM[0].yyyy\n\
    5: MOV TEMP[5], IMM[0].xxxx\n\
    6: MOV TEMP[6], IMM[0].xxxx\n\
    7: BGNLOOP\n\
    8:   USGE TEMP[4].x, TEMP[1].xxxx, IMM[0].wwww\n\
    9:   UIF TEMP[4].xxxx\n\
    10:    BRK\n\
    11:  ENDIF\n\
    12:  U64ADD TEMP[2].xy, -TEMP[2].xyxy, TEMP[3].zwzw\n\
    13:  I64MIN TEMP[3].zw, |TEMP[2].xyxy|, TEMP[3].xyxy\n\
    14:  UIF TEMP[7].xxxx\n\
    15:    I2D TEMP[5].xy, TEMP[2].xxxx\n\
    16:    U64SLT TEMP[6].x, TEMP[2].xyxy, TEMP[3].zwzw\n\
    17:  ENDIF\n\
    18:  D2F TEMP[6].y, TEMP[5].xyxy\n\
    19:  POPC TEMP[6].z, TEMP[2].yyyy\n\
    20:  UADD TEMP[3].x, TEMP[3].xxxx, -TEMP[6].zzzz\n\
    21:  DFRAC TEMP[5].zw, TEMP[5].xyxy\n\
    22:  DSGE TEMP[6].w, TEMP[5].zwzw, TEMP[5].xyxy\n\
    23:  UADD TEMP[1].x, TEMP[1].xxxx, IMM[0].yyyy\n\
    24: ENDLOOP\n\
    25: STORE BUFFER[0], TEMP[0].xxxx, TEMP[2]\n\
    26: UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].zzzz\n\
    27: STORE BUFFER[0], TEMP[0].xxxx, TEMP[3]\n\
    28: UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].zzzz\n\
    29: STORE BUFFER[0], TEMP[0].xxxx, TEMP[5]\n\
    30: UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].zzzz\n\
    31: STORE BUFFER[0], TEMP[0].xxxx, TEMP[6]\n\
    32: END\n";

#[test]
fn newer_templates_in_a_cached_loop_match_the_interpreter() {
    cached_loop_matches(NEW_PAIRS_LOOP, 20 * 64);
}
