//! Machine tests: control flow with per-lane divergence, indirect addressing,
//! barriers, atomics, memory bounds, budgets, vertex batches, threads.

use super::*;

/// Parses and compiles a test program (the exec test modules share it).
pub(super) fn prog(src: &str) -> Program {
    let (s, _) = tgsi_text::parse(src).unwrap_or_else(|e| panic!("parse failed: {e}\n{src}"));
    Program::compile(&s).unwrap_or_else(|e| panic!("compile failed: {e}"))
}

/// The error compiling a test program that must not compile.
pub(super) fn compile_err(src: &str) -> ExecError {
    let (s, _) = tgsi_text::parse(src).unwrap_or_else(|e| panic!("parse failed: {e}\n{src}"));
    match Program::compile(&s) {
        Ok(_) => panic!("compile unexpectedly succeeded"),
        Err(e) => e,
    }
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Runs a compute shader with `buffers` (as words) and returns them afterwards.
fn run(
    src: &str,
    groups: [u32; 3],
    buffers: Vec<Vec<u32>>,
    consts: Vec<Vec<u32>>,
) -> Vec<Vec<u32>> {
    let p = prog(src);
    let mut res = Resources {
        constants: consts,
        buffers: buffers.iter().map(|b| bytes(b)).collect(),
        ..Resources::default()
    };
    p.dispatch(&mut res, groups, &Limits::default())
        .unwrap_or_else(|e| panic!("dispatch failed: {e}"));
    res.buffers.iter().map(|b| words(b)).collect()
}

/// A compute shader header: block of `n`, SV[0] = THREAD_ID, TEMP[0].x = tid,
/// TEMP[1].x = tid * 4 (byte address).
fn cs(n: u32, decls: &str, body: &str) -> String {
    format!(
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH {n}\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
         DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..9]\n\
         IMM[0] UINT32 {{4, 1, 2, 3}}\n{decls}\
         MOV TEMP[0].x, SV[0].xxxx\nUMUL TEMP[1].x, TEMP[0].xxxx, IMM[0].xxxx\n{body}END\n"
    )
}

#[test]
fn doubles_every_word_like_the_format_example() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 4\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0..1]\nIMM[0] UINT32 {4, 0, 0, 0}\n\
        0: UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\n\
        1: LOAD TEMP[1].x, BUFFER[0], TEMP[0].xxxx\n\
        2: UADD TEMP[1].x, TEMP[1].xxxx, TEMP[1].xxxx\n\
        3: STORE BUFFER[0].x, TEMP[0].xxxx, TEMP[1].xxxx\n\
        4: END\n";
    let out = run(src, [1, 1, 1], vec![vec![1, 2, 3, 4]], vec![]);
    assert_eq!(out[0], vec![2, 4, 6, 8]);
}

#[test]
fn nested_loop_and_if_diverge_per_lane() {
    // acc = sum over i < tid of (i odd ? i : 2*i), over 40 invocations (3 batches).
    let body = "MOV TEMP[2].x, IMM[1].xxxx\nMOV TEMP[3].x, IMM[1].xxxx\n\
        BGNLOOP\n\
          ISGE TEMP[4].x, TEMP[2].xxxx, TEMP[0].xxxx\n\
          UIF TEMP[4].xxxx\n BRK\n ENDIF\n\
          AND TEMP[5].x, TEMP[2].xxxx, IMM[0].yyyy\n\
          UIF TEMP[5].xxxx\n UADD TEMP[3].x, TEMP[3].xxxx, TEMP[2].xxxx\n\
          ELSE\n UADD TEMP[3].x, TEMP[3].xxxx, TEMP[2].xxxx\n UADD TEMP[3].x, TEMP[3].xxxx, TEMP[2].xxxx\n ENDIF\n\
          UADD TEMP[2].x, TEMP[2].xxxx, IMM[0].yyyy\n\
        ENDLOOP\n\
        STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[3].xxxx\n";
    let src = cs(40, "IMM[1] UINT32 {0, 0, 0, 0}\n", body);
    let out = run(&src, [1, 1, 1], vec![vec![0; 40], vec![]], vec![]);
    for t in 0..40u32 {
        let want: u32 = (0..t).map(|i| if i % 2 == 1 { i } else { 2 * i }).sum();
        assert_eq!(out[0][t as usize], want, "lane {t}");
    }
}

#[test]
fn cont_skips_rest_of_iteration_per_lane() {
    // acc = number of i < 10 with i != tid % 10 ... computed with CONT.
    let body = "MOV TEMP[2].x, IMM[1].xxxx\nMOV TEMP[3].x, IMM[1].xxxx\nUMOD TEMP[6].x, TEMP[0].xxxx, IMM[1].yyyy\n\
        BGNLOOP\n\
          USGE TEMP[4].x, TEMP[2].xxxx, IMM[1].yyyy\n\
          UIF TEMP[4].xxxx\n BRK\n ENDIF\n\
          UADD TEMP[2].x, TEMP[2].xxxx, IMM[0].yyyy\n\
          USEQ TEMP[5].x, TEMP[2].xxxx, TEMP[6].xxxx\n\
          UIF TEMP[5].xxxx\n CONT\n ENDIF\n\
          UADD TEMP[3].x, TEMP[3].xxxx, TEMP[2].xxxx\n\
        ENDLOOP\n\
        STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[3].xxxx\n";
    let src = cs(20, "IMM[1] UINT32 {0, 10, 0, 0}\n", body);
    let out = run(&src, [1, 1, 1], vec![vec![0; 20], vec![]], vec![]);
    for t in 0..20u32 {
        let want: u32 = (1..=10).filter(|i| *i != t % 10).sum();
        assert_eq!(out[0][t as usize], want, "lane {t}");
    }
}

#[test]
fn switch_with_default_in_the_middle_fall_through_and_brk_in_if() {
    let body = "AND TEMP[2].x, TEMP[0].xxxx, IMM[1].wwww\nMOV TEMP[3].x, IMM[1].xxxx\n\
        SWITCH TEMP[2].xxxx\n\
        CASE IMM[1].xxxx\n UADD TEMP[3].x, TEMP[3].xxxx, IMM[2].xxxx\n BRK\n\
        DEFAULT\n UADD TEMP[3].x, TEMP[3].xxxx, IMM[2].yyyy\n\
        CASE IMM[0].yyyy\n UADD TEMP[3].x, TEMP[3].xxxx, IMM[0].yyyy\n\
          USGE TEMP[4].x, TEMP[0].xxxx, IMM[2].wwww\n UIF TEMP[4].xxxx\n BRK\n ENDIF\n\
          UADD TEMP[3].x, TEMP[3].xxxx, IMM[2].zzzz\n\
        CASE IMM[0].zzzz\n UADD TEMP[3].x, TEMP[3].xxxx, IMM[1].yyyy\n BRK\n\
        ENDSWITCH\n\
        STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[3].xxxx\n";
    let src = cs(
        16,
        "IMM[1] UINT32 {0, 5, 0, 3}\nIMM[2] UINT32 {10, 100, 1000, 8}\n",
        body,
    );
    let out = run(&src, [1, 1, 1], vec![vec![0; 16], vec![]], vec![]);
    for t in 0..16u32 {
        let want = match t % 4 {
            0 => 10,
            1 if t >= 8 => 1,
            1 => 1 + 1000 + 5,
            2 => 5,
            _ if t >= 8 => 100 + 1,
            _ => 100 + 1 + 1000 + 5,
        };
        assert_eq!(out[0][t as usize], want, "lane {t}");
    }
}

#[test]
fn call_ret_and_ret_in_main() {
    // sub: r = r * 2, but lanes with tid >= 8 return early after +1.
    // main: lanes with odd tid RET before storing.
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 16\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0..5]\nIMM[0] UINT32 {4, 1, 8, 2}\n\
        0: MOV TEMP[0].x, SV[0].xxxx\n\
        1: UMUL TEMP[1].x, TEMP[0].xxxx, IMM[0].xxxx\n\
        2: UADD TEMP[2].x, TEMP[0].xxxx, IMM[0].xxxx\n\
        3: CAL :9\n\
        4: AND TEMP[3].x, TEMP[0].xxxx, IMM[0].yyyy\n\
        5: UIF TEMP[3].xxxx\n\
        6:   RET\n\
        7: ENDIF\n\
        8: STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[2].xxxx\n\
        9: END\n\
        10: BGNSUB\n\
        11:   USGE TEMP[4].x, TEMP[0].xxxx, IMM[0].zzzz\n\
        12:   UIF TEMP[4].xxxx\n\
        13:     UADD TEMP[2].x, TEMP[2].xxxx, IMM[0].yyyy\n\
        14:     RET\n\
        15:   ENDIF\n\
        16:   UMUL TEMP[2].x, TEMP[2].xxxx, IMM[0].wwww\n\
        17: ENDSUB\n";
    // The label of CAL must point at the BGNSUB: instruction 10.
    let src = src.replace("CAL :9", "CAL :10");
    let out = run(&src, [1, 1, 1], vec![vec![0xAA; 16]], vec![]);
    for t in 0..16u32 {
        let want = if t % 2 == 1 {
            0xAA
        } else if t >= 8 {
            t + 4 + 1
        } else {
            (t + 4) * 2
        };
        assert_eq!(out[0][t as usize], want, "lane {t}");
    }
}

#[test]
fn indirect_addressing_is_per_lane_for_sources_and_destinations() {
    // TEMP[4..7] is ARRAY(1) holding 10, 20, 30, 40. Lane t writes t+100 into
    // element ADDR = t (in range only for t < 4, other writes dropped), then
    // reads element t + 1 and element t.
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 16\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..3]\nDCL TEMP[4..7], ARRAY(1)\nDCL ADDR[0..1]\n\
        IMM[0] UINT32 {4, 1, 100, 0}\nIMM[1] UINT32 {10, 20, 30, 40}\n\
        MOV TEMP[0].x, SV[0].xxxx\n\
        UMUL TEMP[1].x, TEMP[0].xxxx, IMM[0].xxxx\n\
        MOV TEMP[4].x, IMM[1].xxxx\nMOV TEMP[5].x, IMM[1].yyyy\nMOV TEMP[6].x, IMM[1].zzzz\nMOV TEMP[7].x, IMM[1].wwww\n\
        UARL ADDR[0].x, TEMP[0].xxxx\n\
        UADD TEMP[2].x, TEMP[0].xxxx, IMM[0].yyyy\n\
        UARL ADDR[1].x, TEMP[2].xxxx\n\
        UADD TEMP[3].x, TEMP[0].xxxx, IMM[0].zzzz\n\
        MOV TEMP[ADDR[0].x+4](1).x, TEMP[3].xxxx\n\
        MOV TEMP[2].x, TEMP[ADDR[1].x+4](1).xxxx\n\
        STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[2].xxxx\n\
        MOV TEMP[2].x, TEMP[ADDR[0].x+4](1).xxxx\n\
        STORE BUFFER[1].x, TEMP[1].xxxx, TEMP[2].xxxx\n\
        END\n";
    let out = run(src, [1, 1, 1], vec![vec![0xAA; 16], vec![0xAA; 16]], vec![]);
    // Registers are per invocation: lane t changed only its own element t;
    // indices beyond the array read 0.
    for t in 0..16u32 {
        let original = |k: u32| if k < 4 { 10 * (k + 1) } else { 0 };
        assert_eq!(
            out[0][t as usize],
            original(t + 1),
            "read of element t+1, lane {t}"
        );
        let written = if t < 4 { 100 + t } else { 0 };
        assert_eq!(out[1][t as usize], written, "read of element t, lane {t}");
    }
}

#[test]
fn barrier_makes_every_shared_write_visible() {
    let n = 64;
    let body = "STORE MEMORY[0].x, TEMP[1].xxxx, TEMP[0].xxxx\n\
        BARRIER\n\
        USUB_PLACEHOLDER\n\
        LOAD TEMP[3].x, MEMORY[0], TEMP[2].xxxx\n\
        STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[3].xxxx\n";
    // address of element n-1-t: (n-1)*4 - t*4 = 252 + (-(t*4))
    let body = body.replace(
        "USUB_PLACEHOLDER",
        "UADD TEMP[2].x, IMM[1].xxxx, -TEMP[1].xxxx",
    );
    let src = cs(
        n,
        "DCL MEMORY[0], SHARED\nIMM[1] UINT32 {252, 0, 0, 0}\n",
        &body,
    );
    let out = run(&src, [2, 1, 1], vec![vec![0; n as usize], vec![]], vec![]);
    for t in 0..n {
        assert_eq!(out[0][t as usize], n - 1 - t, "invocation {t}");
    }
}

#[test]
fn atomics_from_many_lanes_in_lane_order() {
    // Every invocation adds 1 to word 0 of BUFFER[0] and records the old
    // value; also a shared-memory UMAX of tid, read back after a barrier.
    let body = "ATOMUADD TEMP[2].x, BUFFER[0], IMM[1].xxxx, IMM[0].yyyy\n\
        STORE BUFFER[1].x, TEMP[1].xxxx, TEMP[2].xxxx\n\
        ATOMUMAX TEMP[3].x, MEMORY[0], IMM[1].xxxx, TEMP[0].xxxx\n\
        BARRIER\n\
        LOAD TEMP[4].x, MEMORY[0], IMM[1].xxxx\n\
        UADD TEMP[5].x, TEMP[1].xxxx, IMM[1].yyyy\n\
        STORE BUFFER[1].x, TEMP[5].xxxx, TEMP[4].xxxx\n";
    let src = cs(
        40,
        "DCL MEMORY[0], SHARED\nIMM[1] UINT32 {0, 160, 0, 0}\n",
        body,
    );
    let out = run(&src, [1, 1, 1], vec![vec![0; 1], vec![0; 80]], vec![]);
    assert_eq!(out[0][0], 40);
    for t in 0..40usize {
        assert_eq!(out[1][t], t as u32, "old value seen by invocation {t}");
        assert_eq!(out[1][40 + t], 39, "shared max seen by invocation {t}");
    }
}

#[test]
fn atomic_cas_and_threads_give_the_same_totals() {
    let src = cs(
        16,
        "",
        "ATOMUADD TEMP[2].x, BUFFER[0], IMM[0].xxxx, IMM[0].yyyy\n",
    );
    let p = prog(&src);
    for threads in [1, 2, 3] {
        let mut res = Resources {
            constants: vec![],
            buffers: vec![vec![0; 4 * 4], vec![]],
            ..Resources::default()
        };
        let limits = Limits {
            threads,
            ..Limits::default()
        };
        let stats = p.dispatch_stats(&mut res, [5, 2, 1], &limits).unwrap();
        let w = words(&res.buffers[0]);
        assert_eq!(w, vec![0, 160, 0, 0], "threads {threads}");
        assert_eq!(stats.invocations, 160);
    }
    let cas = cs(
        16,
        "IMM[1] UINT32 {0, 7, 0, 0}\n",
        "ATOMCAS TEMP[2].x, BUFFER[0], IMM[1].xxxx, IMM[1].xxxx, TEMP[0].xxxx\nSTORE BUFFER[1].x, TEMP[1].xxxx, TEMP[2].xxxx\n",
    );
    let out = run(&cas, [1, 1, 1], vec![vec![0], vec![9; 16]], vec![]);
    // Lane 0 swaps 0 → 0 (tid 0), so every lane sees old 0 and stores its tid... only
    // while the word is 0: lane 0 stores 0, lane 1 sees 0 and stores 1, lane 2 sees 1 ≠ 0.
    assert_eq!(out[0][0], 1);
    assert_eq!(&out[1][..3], &[0, 0, 1]);
    assert!(out[1][3..].iter().all(|&v| v == 1));
}

#[test]
fn out_of_range_memory_and_constants_read_zero_and_drop_writes() {
    let body = "LOAD TEMP[2], BUFFER[0], IMM[1].xxxx\n\
        STORE BUFFER[1].xyzw, TEMP[1].xxxx, TEMP[2]\n\
        STORE BUFFER[0].x, IMM[1].xxxx, TEMP[0].xxxx\n\
        STORE BUFFER[0].x, IMM[1].yyyy, TEMP[0].xxxx\n\
        LOAD TEMP[3].x, MEMORY[0], IMM[1].yyyy\n\
        STORE MEMORY[0].x, IMM[1].yyyy, TEMP[0].xxxx\n\
        MOV TEMP[4].x, CONST[0][100].xxxx\n\
        MOV TEMP[4].y, CONST[0][0].yyyy\n\
        MOV TEMP[4].z, CONST[3][0].xxxx\n\
        MOV TEMP[4].w, TEMP[3].xxxx\n\
        STORE BUFFER[1].xyzw, IMM[1].zzzz, TEMP[4]\n";
    let src = cs(
        1,
        "DCL MEMORY[0], SHARED\nDCL CONST[0][0..100]\nDCL CONST[3][0]\nIMM[1] UINT32 {6, 4294967292, 16, 0}\n",
        body,
    );
    // BUFFER[0] has 8 bytes: a LOAD of 4 words at byte 6 reads only out-of-range words
    // except none; all zero.
    let out = run(
        &src,
        [1, 1, 1],
        vec![vec![0x11111111, 0x22222222], vec![0xAA; 8]],
        vec![vec![1, 2, 3, 4]],
    );
    assert_eq!(
        out[0],
        vec![0x11111111, 0x22222222],
        "out-of-range stores are dropped"
    );
    assert_eq!(
        &out[1][..4],
        &[0, 0, 0, 0],
        "LOAD beyond the end reads zeros"
    );
    assert_eq!(
        &out[1][4..8],
        &[0, 2, 0, 0],
        "CONST beyond its buffer / unbound buffer read 0"
    );
}

#[test]
fn unaligned_load_reads_across_words() {
    let src = cs(
        1,
        "IMM[1] UINT32 {2, 0, 0, 0}\n",
        "LOAD TEMP[2].x, BUFFER[0], IMM[1].xxxx\nSTORE BUFFER[1].x, TEMP[1].xxxx, TEMP[2].xxxx\n",
    );
    let out = run(
        &src,
        [1, 1, 1],
        vec![vec![0x44332211, 0x88776655], vec![0]],
        vec![],
    );
    assert_eq!(out[1][0], 0x66554433);
}

#[test]
fn budget_exhaustion_names_the_instruction() {
    let src = "COMP\nDCL TEMP[0]\nIMM[0] UINT32 {1, 0, 0, 0}\n0: BGNLOOP\n1: UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n2: ENDLOOP\n3: END\n";
    let p = prog(src);
    let mut res = Resources::default();
    let limits = Limits {
        max_instructions: 1000,
        ..Limits::default()
    };
    let e = p.dispatch(&mut res, [1, 1, 1], &limits).unwrap_err();
    assert!(
        e.message
            .contains("instruction budget of 1000 exhausted at instruction"),
        "{}",
        e.message
    );
    assert!(e.instruction.is_some());
    // A loop whose lanes all break ends even when the budget is generous.
    let ok = "COMP\nDCL TEMP[0]\n0: BGNLOOP\n1: BRK\n2: ENDLOOP\n3: END\n";
    prog(ok)
        .dispatch(&mut Resources::default(), [1, 1, 1], &limits)
        .unwrap();
}

#[test]
fn a_dispatch_sums_its_batches_instructions_against_its_budget() {
    // three instructions per batch (MOV, UADD, END), four batches
    let straight = prog(
        "COMP\nDCL TEMP[0]\nIMM[0] UINT32 {1, 0, 0, 0}\nMOV TEMP[0].x, IMM[0].xxxx\nUADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\nEND\n",
    );
    // group 0 loops 1,000 times (about 4,000 instructions), the others stop
    let skewed = prog(
        "COMP\nDCL SV[0], BLOCK_ID\nDCL TEMP[0..1]\nIMM[0] UINT32 {1, 1000, 0, 0}\n\
         MOV TEMP[0].x, IMM[0].zzzz\nUSEQ TEMP[1].x, SV[0].xxxx, IMM[0].zzzz\nUIF TEMP[1].xxxx\n\
         BGNLOOP\nUADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\nUSGE TEMP[1].y, TEMP[0].xxxx, IMM[0].yyyy\n\
         UIF TEMP[1].yyyy\nBRK\nENDIF\nENDLOOP\nENDIF\nEND\n",
    );
    for threads in [1, 2] {
        let limits = |total| Limits {
            max_dispatch_instructions: total,
            threads,
            ..Limits::default()
        };
        let run = |p: &Program, groups, total| {
            p.dispatch(&mut Resources::default(), groups, &limits(total))
        };
        run(&straight, [2, 2, 1], 12).unwrap();
        let e = run(&straight, [2, 2, 1], 11).unwrap_err();
        assert_eq!(
            e.message,
            "the dispatch ran more than its budget of 11 instructions (summed over its batches; --dispatch-budget)"
        );
        let e = run(&straight, [2, 2, 1], 3).unwrap_err();
        assert!(
            e.message.contains("runs 4 batches") && e.message.contains("budget of 3"),
            "{}",
            e.message
        );
        // one busy group among idle ones: the sum counts, not a share
        let stats = skewed
            .dispatch_stats(&mut Resources::default(), [8, 1, 1], &limits(u64::MAX))
            .unwrap();
        run(&skewed, [8, 1, 1], stats.batch_instructions).unwrap();
        let e = run(&skewed, [8, 1, 1], stats.batch_instructions - 1).unwrap_err();
        assert!(
            e.message.contains("ran more than its budget"),
            "{}",
            e.message
        );
    }
}

/// Sizes a caller or a shader chooses are refused with an error, not an
/// allocation that aborts or a product that wraps to nothing.
#[test]
fn huge_sizes_are_refused_not_wrapped_or_allocated() {
    // 2^22 x 2^22 x 2^20 = 2^64 invocations, which wrapped to 0 (a dispatch
    // that ran nothing)
    let p = prog(
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 4194304\nPROPERTY CS_FIXED_BLOCK_HEIGHT 4194304\n\
         PROPERTY CS_FIXED_BLOCK_DEPTH 1048576\nEND\n",
    );
    let e = p
        .dispatch(&mut Resources::default(), [1, 1, 1], &Limits::default())
        .unwrap_err();
    assert!(
        e.message
            .contains(&format!("= {} invocations exceeds", u64::MAX)),
        "{}",
        e.message
    );
    let shared = prog(
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nDCL MEMORY[0], SHARED\nDCL TEMP[0]\n\
         IMM[0] UINT32 {0, 0, 0, 0}\nSTORE MEMORY[0].x, IMM[0].xxxx, IMM[0].xxxx\nEND\n",
    );
    let huge = Limits {
        shared_memory_bytes: usize::MAX / 2,
        ..Limits::default()
    };
    let e = shared
        .dispatch(&mut Resources::default(), [1, 1, 1], &huge)
        .unwrap_err();
    assert!(e.message.contains("shared memory of"), "{}", e.message);
    // a vertex shader with no outputs still keeps a row per vertex
    let e = prog("VERT\nEND\n")
        .run_vertices(&mut Resources::default(), &[], 1 << 40, &Limits::default())
        .unwrap_err();
    assert!(e.message.contains("exceeds"), "{}", e.message);
    let e = prog("FRAG\nDCL OUT[0], COLOR\nEND\n")
        .shade(
            &mut Resources::default(),
            &fragment::Draw::full_quad(1, 1),
            1 << 60,
            &Limits::default(),
        )
        .unwrap_err();
    assert!(e.message.contains("the limit is 2 GiB"), "{}", e.message);
}

#[test]
fn work_groups_are_at_most_65535_per_dimension() {
    let p = prog("COMP\nEND\n");
    for groups in [[65_536, 1, 1], [1, 65_536, 1], [1, 1, u32::MAX]] {
        let e = p
            .dispatch(&mut Resources::default(), groups, &Limits::default())
            .unwrap_err();
        assert!(
            e.message.contains("at most 65535 per dimension"),
            "{}",
            e.message
        );
    }
    p.dispatch(
        &mut Resources::default(),
        [65_535, 1, 1],
        &Limits::default(),
    )
    .unwrap();
    p.dispatch(&mut Resources::default(), [0, 0, 0], &Limits::default())
        .unwrap();
}
#[test]
fn blocks_nest_at_most_64_deep_and_programs_are_bounded() {
    let nested = |n: usize| {
        format!(
            "COMP\n{}{}END\n",
            "BGNLOOP\nBRK\n".repeat(n),
            "ENDLOOP\n".repeat(n)
        )
    };
    let mut res = Resources::default();
    prog(&nested(64))
        .dispatch(&mut res, [1, 1, 1], &Limits::default())
        .unwrap();
    let e = compile_err(&nested(65));
    assert!(
        e.message
            .contains("instruction 128 (BGNLOOP): blocks nested 65 deep: at most 64"),
        "{}",
        e.message
    );
    let nops = "NOP\n".repeat(decode::MAX_PROGRAM_INSTRUCTIONS);
    let e = compile_err(&format!("COMP\n{nops}END\n"));
    assert!(
        e.message
            .contains("262145 instructions; the machine runs at most 262144"),
        "{}",
        e.message
    );
}

#[test]
fn recursion_hits_the_depth_limit_with_an_error() {
    let src = "COMP\n0: CAL :2\n1: END\n2: BGNSUB\n3: CAL :2\n4: ENDSUB\n";
    let e = prog(src)
        .dispatch(&mut Resources::default(), [1, 1, 1], &Limits::default())
        .unwrap_err();
    assert!(e.message.contains("nested deeper"), "{}", e.message);
}

#[test]
fn unsupported_opcodes_and_bad_structure_are_compile_errors() {
    let e = compile_err("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nFBFETCH OUT[0], OUT[0]\nEND\n");
    assert!(
        e.message.contains("FBFETCH") && e.message.contains("not supported"),
        "{}",
        e.message
    );
    let e = compile_err("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDDX OUT[0], IN[0]\nEND\n");
    assert!(
        e.message.contains("DDX") && e.message.contains("fragment stage"),
        "{}",
        e.message
    );
    // EMIT runs in GEOM shaders only (stage_tests.rs runs them)
    let e = compile_err("COMP\nIMM[0] UINT32 {0, 0, 0, 0}\nEMIT IMM[0].xxxx\nEND\n");
    assert!(
        e.message.contains("EMIT") && e.message.contains("GEOM"),
        "{}",
        e.message
    );
    let e = compile_err("COMP\nBRK\nEND\n");
    assert!(e.message.contains("BRK outside"), "{}", e.message);
    let e = compile_err("COMP\nDCL TEMP[0]\nUIF TEMP[0].xxxx\nEND\n");
    assert!(e.message.contains("IF without ENDIF"), "{}", e.message);
}

#[test]
fn a_vertex_runs_output_is_bounded_before_it_is_made() {
    let p = prog("VERT\nDCL OUT[0..4]\nEND\n");
    // 2^24 vertices of five outputs: 1.25 GiB, refused before any is made
    let e = p
        .run_vertices(&mut Resources::default(), &[], 1 << 24, &Limits::default())
        .unwrap_err();
    assert!(
        e.message.contains(
            "the vertex shader's output (83886080 registers of 16 bytes) exceeds 1073741824 bytes"
        ),
        "{}",
        e.message
    );
    let ids = vec![[0u32, 0]; 1 << 24];
    let rows = VertexRows::Flat {
        words: &[],
        stride: 0,
        count: ids.len(),
    };
    let e = p
        .run_vertex_rows(
            &mut Resources::default(),
            rows,
            &ids,
            &Limits::default(),
            Vec::new(),
        )
        .unwrap_err();
    assert!(
        e.message.contains("exceeds 1073741824 bytes"),
        "{}",
        e.message
    );
}

#[test]
fn vertices_run_in_batches_with_vertex_id() {
    let src = "VERT\nDCL IN[0]\nDCL SV[0], VERTEXID\nDCL SV[1], INSTANCEID\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
        MOV OUT[0], IN[0]\nMOV OUT[1].x, SV[0].xxxx\nMOV OUT[1].y, SV[1].xxxx\nUADD OUT[1].z, IN[0].xxxx, SV[0].xxxx\nMOV OUT[1].w, IN[0].wwww\nEND\n";
    let p = prog(src);
    let inputs: Vec<Vec<[u32; 4]>> = (0..37u32).map(|v| vec![[v * 10, 1, 2, v]]).collect();
    let out = p
        .run_vertices(&mut Resources::default(), &inputs, 37, &Limits::default())
        .unwrap();
    assert_eq!(out.len(), 37);
    for (v, o) in out.iter().enumerate() {
        let v = v as u32;
        assert_eq!(o[0], [v * 10, 1, 2, v]);
        assert_eq!(o[1], [v, 0, v * 11, v]);
    }
}

#[test]
fn system_values_of_a_3d_dispatch() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 3\nPROPERTY CS_FIXED_BLOCK_HEIGHT 2\nPROPERTY CS_FIXED_BLOCK_DEPTH 2\n\
        DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL SV[2], BLOCK_SIZE\nDCL SV[3], GRID_SIZE\nDCL BUFFER[0]\nDCL TEMP[0..3]\n\
        IMM[0] UINT32 {3, 6, 12, 16}\n\
        UMAD TEMP[0].x, SV[0].yyyy, IMM[0].xxxx, SV[0].xxxx\nUMAD TEMP[0].x, SV[0].zzzz, IMM[0].yyyy, TEMP[0].xxxx\n\
        UMAD TEMP[1].x, SV[1].yyyy, SV[3].xxxx, SV[1].xxxx\nUMUL TEMP[1].x, TEMP[1].xxxx, IMM[0].zzzz\nUADD TEMP[0].x, TEMP[0].xxxx, TEMP[1].xxxx\n\
        UMUL TEMP[2].x, TEMP[0].xxxx, IMM[0].wwww\n\
        MOV TEMP[3].xy, SV[1].xyxy\nMOV TEMP[3].zw, SV[2].xzxz\n\
        STORE BUFFER[0].xyzw, TEMP[2].xxxx, TEMP[3]\nEND\n";
    // UMAD is needed from ops; the rest is plain moves.
    let out = run(src, [2, 2, 1], vec![vec![0; 4 * 48]], vec![]);
    for g in 0..4u32 {
        for t in 0..12u32 {
            let i = (g * 12 + t) as usize * 4;
            assert_eq!(
                &out[0][i..i + 4],
                &[g % 2, g / 2, 3, 2],
                "group {g} thread {t}"
            );
        }
    }
}

#[test]
fn fp64_int64_ssbo_benchmark_shader_matches_a_scalar_model() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../benches/data/12_fp64_int64_ssbo.tgsi"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        panic!("benchmark shader missing: {path}");
    };
    let p = prog(&text);
    let n = 200usize; // 4 groups of 64, the last partly beyond the buffers
    let x0: Vec<u64> = (0..n).map(|i| (i as f64 * 0.25 - 3.0).to_bits()).collect();
    let y0: Vec<u64> = (0..n)
        .map(|i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let b = |v: &[u64]| v.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    let mut res = Resources {
        constants: vec![vec![64, 0, 0, 0]],
        buffers: vec![b(&x0), b(&y0)],
        ..Resources::default()
    };
    p.dispatch(&mut res, [4, 1, 1], &Limits::default()).unwrap();
    let one = 1.0f64.to_bits();
    let half = 0.5f64.to_bits();
    let k = ((1072693248u64) << 32) | 450359963;
    let (m, a) = (
        (1481765933u64 << 32) | 1284865837,
        (335903614u64 << 32) | 4150755663,
    );
    for i in 0..n {
        let (mut x, mut y) = (x0[i], y0[i]);
        for _ in 0..64 {
            let t = ops::ddiv(half, ops::dadd(x, one));
            x = ops::dmad(x, k, t);
            let z = ops::u64add(ops::u64mul(y, m), a);
            y = z ^ ops::u64shr(z, 33);
        }
        let got_x = u64::from_le_bytes(res.buffers[0][i * 8..i * 8 + 8].try_into().unwrap());
        let got_y = u64::from_le_bytes(res.buffers[1][i * 8..i * 8 + 8].try_into().unwrap());
        assert_eq!((got_x, got_y), (x, y), "invocation {i}");
    }
}

#[test]
fn direct3d_numerics_flush_arithmetic_but_not_moves() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
               PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL BUFFER[0]\nDCL CONST[0][0]\nDCL TEMP[0..1]\n\
               IMM[0] UINT32 {0, 16, 32, 0}\nIMM[1] FLT32 {0.5, 1.0, 0.0, 0.0}\n\
               ADD TEMP[0], CONST[0][0], IMM[0].xxxx\n\
               MUL TEMP[0].z, CONST[0][0].zzzz, IMM[1].xxxx\n\
               STORE BUFFER[0].xyzw, IMM[0].xxxx, TEMP[0]\n\
               MOV TEMP[1], CONST[0][0]\n\
               STORE BUFFER[0].xyzw, IMM[0].yyyy, TEMP[1]\n\
               PK2H TEMP[1].x, CONST[0][0].wwww\n\
               FSEQ TEMP[1].y, CONST[0][0].xxxx, IMM[0].xxxx\n\
               STORE BUFFER[0].xy, IMM[0].zzzz, TEMP[1]\nEND\n";
    let (shader, _) = tgsi_text::parse(src).unwrap();
    // 2^-149, the largest negative denormal, 2^-126, 65520.0
    let consts = vec![vec![1, 0x807f_ffff, 0x0080_0000, 65520f32.to_bits()]];
    let run_with = |numerics| {
        let p = Program::compile_with(&shader, numerics).unwrap();
        let mut res = Resources {
            constants: consts.clone(),
            buffers: vec![vec![0; 40]],
            ..Resources::default()
        };
        p.dispatch(&mut res, [1, 1, 1], &Limits::default()).unwrap();
        words(&res.buffers[0])
    };
    let ieee = run_with(Numerics::Ieee);
    assert_eq!(ieee[..4], [1, 0x807f_ffff, 0x0040_0000, 65520f32.to_bits()]);
    // PK2H rounds 65520 to nearest: infinity; 2^-149 == 0 is false.
    assert_eq!(ieee[8..10], [0x7c00 | 0x7c00 << 16, 0]);
    let d3d = run_with(Numerics::Direct3D);
    // Denormal inputs read as +-0 (+-0 + 0 = +0); 2^-126 * 0.5 flushes to 0.
    assert_eq!(d3d[..4], [0, 0, 0, 65520f32.to_bits()]);
    // MOV keeps the bits under both rules.
    assert_eq!(d3d[4..8], ieee[4..8]);
    assert_eq!(d3d[4..8], consts[0][..]);
    // PK2H rounds toward zero and saturates: 65504 = 0x7bff; 2^-149 == 0.
    assert_eq!(d3d[8..10], [0x7bff | 0x7bff << 16, u32::MAX]);
}

/// Many vertex invocations run on several threads give the outputs,
/// statistics and error of one thread; a shader that writes memory runs
/// on one thread.
#[test]
fn vertex_invocations_on_threads_are_those_of_one_thread() {
    let src = "VERT\nDCL IN[0]\nDCL SV[0], VERTEXID\nDCL OUT[0], POSITION\nDCL TEMP[0]\n\
        IMM[0] FLT32 {0.5, 3.0, 0.0, 0.0}\n\
        0: U2F TEMP[0].x, SV[0].xxxx\n\
        1: MAD OUT[0], IN[0], IMM[0].xxxx, TEMP[0].xxxx\n\
        2: END\n";
    let p = prog(src);
    let n = 10_000;
    let inputs: Vec<[u32; 4]> = (0..n as u32)
        .map(|v| [v, v ^ 0x3f80_0000, 7, v * 3])
        .collect();
    let ids: Vec<[u32; 2]> = (0..n as u32).map(|v| [v, 0]).collect();
    let run = |threads: usize, max: u64| {
        let limits = Limits {
            threads,
            max_instructions: max,
            ..Limits::default()
        };
        p.run_vertex_invocations(
            &mut Resources::default(),
            &inputs,
            1,
            &ids,
            &limits,
            Vec::new(),
        )
        .map(|(o, s)| (o, s.batch_instructions, s.invocations))
        .map_err(|e| e.message)
    };
    let one = run(1, u64::MAX).unwrap();
    assert_eq!(one.0.len(), n);
    // OUT[0].x of vertex v: v's word as a float times 0.5, plus v
    let x = |v: u32| (f32::from_bits(v) * 0.5 + v as f32).to_bits();
    assert_eq!(one.0[9_999][0], x(9_999));
    assert_eq!(run(3, u64::MAX), Ok(one.clone()));
    assert_eq!(run(2, u64::MAX), Ok(one));
    // a budget too small for any batch: the same first error
    assert_eq!(run(3, 1), run(1, 1));
    assert!(run(1, 1).is_err());
    assert_eq!(p.vertex_chunks(n, 3).len(), 2);
    let writer = prog(
        "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL BUFFER[0]\nIMM[0] UINT32 {0, 0, 0, 0}\n\
         0: STORE BUFFER[0].x, IMM[0].xxxx, IN[0].xxxx\n1: MOV OUT[0], IN[0]\n2: END\n",
    );
    assert_eq!(writer.vertex_chunks(n, 3).len(), 1);
}

/// A batch reset clears what can be read before it is written: a TEMP read
/// before the prefix wrote it, one written only after flow, one written
/// only in part, an OUT not wholly written, registers an indirect access
/// can reach; it leaves those the straight-line prefix wrote first and
/// TEMPs nothing touches.
#[test]
fn resets_clear_what_can_be_read_unwritten() {
    let src = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\n\
        DCL TEMP[0..6]\nDCL TEMP[7..8], ARRAY(1)\nDCL ADDR[0]\nIMM[0] FLT32 {1.0, 0.0, 0.0, 0.0}\n\
        0: MOV TEMP[0].xy, IN[0]\n\
        1: MOV TEMP[0].zw, TEMP[0].xxxy\n\
        2: ADD TEMP[1], TEMP[1], IN[0]\n\
        3: MOV TEMP[2].xy, IN[0]\n\
        4: MUL TEMP[4].xy, TEMP[2].xyxx, TEMP[2].xyxy\n\
        5: MOV TEMP[4].zw, IMM[0].xxxx\n\
        6: MOV OUT[0], TEMP[0]\n\
        7: MOV OUT[1].xyz, TEMP[4]\n\
        8: ARL ADDR[0].x, IMM[0].xxxx\n\
        9: MOV TEMP[ADDR[0].x+7](1), TEMP[0]\n\
       10: IF TEMP[0].xxxx\n\
       11: MOV TEMP[5], TEMP[2]\n\
       12: MOV TEMP[3], TEMP[5]\n\
       13: ENDIF\n\
       14: END\n";
    let p = prog(src);
    let code = p.code();
    let temp = |i: u32| code.temp.base + i;
    let out = |i: u32| code.output.base + i;
    // TEMP[0]: x, y then z, w before any read; TEMP[4]: wholly, read after
    assert!(!code.resets(temp(0)), "{:?}", code.reset);
    assert!(!code.resets(temp(4)), "{:?}", code.reset);
    // TEMP[1] read before written; TEMP[2] written in part and read after
    // the prefix; TEMP[3], TEMP[5] written only after flow
    for t in [1, 2, 3, 5] {
        assert!(code.resets(temp(t)), "TEMP[{t}]: {:?}", code.reset);
    }
    // TEMP[6]: nothing touches it
    assert!(!code.resets(temp(6)), "{:?}", code.reset);
    // the array an indirect write reaches
    assert!(
        code.resets(temp(7)) && code.resets(temp(8)),
        "{:?}",
        code.reset
    );
    assert!(!code.resets(out(0)), "{:?}", code.reset);
    assert!(code.resets(out(1)), "{:?}", code.reset);
    // the stage fills a fragment program's declared inputs; address
    // registers are always cleared, a vertex program's inputs too
    assert!(!code.resets(code.input.base) && code.resets(code.addr.base));
    let vs = prog("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n0: MOV OUT[0], IN[0]\n1: END\n");
    assert!(vs.code().resets(vs.code().input.base));
    assert!(!vs.code().resets(vs.code().output.base));
    // only a tessellation control program has a patch store to clear
    assert_eq!((code.patch.len, vs.code().patch.len), (0, 0));
    let tcs = prog(
        "TESS_CTRL\nPROPERTY TCS_VERTICES_OUT 3\nDCL IN[][0], POSITION\nDCL OUT[][0], POSITION\n\
         DCL SV[0], INVOCATIONID\n0: MOV OUT[SV[0].x][0], IN[SV[0].x][0]\n1: END\n",
    );
    assert!(tcs.code().patch.len > 0 && tcs.code().resets(tcs.code().patch.base));
}

/// A writemask is not what an instruction writes: D2F with .xyzw writes
/// only .x and .y, so .z still reads zero in every batch, though the same
/// thread's earlier batch wrote it later in the program (a batch reset
/// that took the mask for the written channels kept that word).
#[test]
fn a_narrowing_write_leaves_its_other_channels_unwritten() {
    let body = "D2F TEMP[3], TEMP[5]\n\
        MOV TEMP[6].x, TEMP[3].zzzz\n\
        MOV TEMP[3].z, IMM[1].xxxx\n\
        STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[6].xxxx\n";
    let src = cs(48, "IMM[1] UINT32 {7, 0, 0, 0}\n", body);
    let out = run(&src, [1, 1, 1], vec![vec![u32::MAX; 48], vec![]], vec![]);
    assert_eq!(out[0], vec![0; 48]);
    let code = prog(&src);
    assert!(
        code.code().resets(code.code().temp.base + 3),
        "{:?}",
        code.code().reset
    );
}

/// A TEMP written only under a condition reads zero in the batches whose
/// lanes skip the write, though an earlier batch of the same thread wrote it.
#[test]
fn a_conditional_write_leaves_no_value_for_the_next_batch() {
    // lanes < 16 (the first batch) write 7; every lane stores the register
    let body = "USLT TEMP[2].x, TEMP[0].xxxx, IMM[1].xxxx\n\
        UIF TEMP[2].xxxx\n MOV TEMP[3].x, IMM[1].yyyy\n ENDIF\n\
        STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[3].xxxx\n";
    let src = cs(48, "IMM[1] UINT32 {16, 7, 0, 0}\n", body);
    let out = run(&src, [1, 1, 1], vec![vec![u32::MAX; 48], vec![]], vec![]);
    for (t, v) in out[0].iter().enumerate() {
        assert_eq!(*v, if t < 16 { 7 } else { 0 }, "invocation {t}");
    }
}

/// A program that never jumps back visits at most its length per batch;
/// one with a loop or a call has no such bound.
#[test]
fn most_visited_bounds_only_programs_that_never_jump_back() {
    let straight = prog(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
         IF IN[0].xxxx\n MOV TEMP[0], IN[0]\nELSE\n ADD TEMP[0], IN[0], IN[0]\nENDIF\n\
         MOV OUT[0], TEMP[0]\nEND\n",
    );
    assert_eq!(straight.code().most_visited(), Some(7));
    let looping = prog(
        "FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
         BGNLOOP\n BRK\nENDLOOP\nMOV OUT[0], TEMP[0]\nEND\n",
    );
    assert_eq!(looping.code().most_visited(), None);
    let calling = prog(
        "FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
         CAL :4\nMOV OUT[0], TEMP[0]\nEND\nBGNSUB\n MOV TEMP[0], TEMP[0]\n RET\nENDSUB\n",
    );
    assert_eq!(calling.code().most_visited(), None);
}
