//! The compiled engine's newer templates against the interpreter (and the
//! definitions): the transcendental short forms, the per-channel and
//! packing opcodes, indirect operands, the 64-bit integer divisions,
//! DLDEXP, DFRACEXP, atomics and RESQ.

use crate::tests::{
    both, cached_loop_matches, dispatch, lanes_give, outputs_agree, run_groups, same_words,
};
use tgsi_exec::{Limits, Program, Resources};

/// Runs `groups` work groups of 64 on both engines with BUFFER[0] the
/// pairs `xy` (x then y, a lane's two words) and a zeroed BUFFER[1] of 16
/// bytes a lane: that buffer as the interpreter and as the compiled engine
/// leave it.
fn run_pairs(
    (interp, jit): (&Program, &Program),
    xy: &[(f32, f32)],
    groups: usize,
) -> (Vec<u8>, Vec<u8>) {
    let input: Vec<u8> = xy
        .iter()
        .flat_map(|(x, y)| [x.to_le_bytes(), y.to_le_bytes()])
        .flatten()
        .collect();
    let run = |p: &Program| {
        let buffers = vec![input.clone(), vec![0; groups * 64 * 16]];
        run_groups(p, buffers, groups).swap_remove(1)
    };
    (run(interp), run(jit))
}

/// The program [`run_pairs`] runs around `body`: groups of 64, lane i's
/// pair in TEMP[1].xy (from BUFFER[0], 8 bytes a lane), TEMP[2] stored to
/// BUFFER[1] (16 bytes a lane) after `body`; TEMP[0].x the lane, TEMP[3]
/// free, IMM[0].w one, and `imm1` the program's other immediates.
fn pairs_program(imm1: &str, body: &str) -> String {
    format!(
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
         DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..3]\n\
         IMM[0] UINT32 {{8, 64, 16, 1}}\n{imm1}\
         UMAD TEMP[0].x, SV[1].xxxx, IMM[0].yyyy, SV[0].xxxx\n\
         UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].xxxx\n\
         LOAD TEMP[1].xy, BUFFER[0], TEMP[0].yyyy\n\
         {body}\
         UMUL TEMP[0].z, TEMP[0].xxxx, IMM[0].zzzz\n\
         STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[2]\n\
         END\n"
    )
}

/// EX2, LG2 and POW compile inline (`Emitter::exp_log`): every lane as the
/// definition (`math::ex2_f32`, `lg2_f32`, `pow_f32`) and as the
/// interpreter gives it, with source modifiers and lanes an IF switches
/// off, in rows wholly inside the short forms and rows with a lane outside
/// them (zero and negative bases, subnormals, infinities, NaNs, exponents
/// past f32's range), which take the row kernel.
#[test]
fn ex2_lg2_and_pow_inline_give_the_definitions_bits() {
    let src = pairs_program(
        "",
        "EX2 TEMP[2].x, TEMP[1].xxxx\n\
         LG2 TEMP[2].y, |TEMP[1].xxxx|\n\
         POW TEMP[2].z, TEMP[1].xxxx, TEMP[1].yyyy\n\
         AND TEMP[3].x, TEMP[0].xxxx, IMM[0].wwww\n\
         UIF TEMP[3].xxxx\n\
           POW TEMP[2].w, |TEMP[1].xxxx|, -TEMP[1].yyyy\n\
         ENDIF\n",
    );
    let Some((interp, jit)) = both(&src) else {
        return;
    };
    const GROUPS: usize = 64;
    let mut rng = tgsi_ir::rng::Rng(0xe2_0000_5eed_0001);
    let edges = tgsi_ir::rng::EDGE_F32;
    // rows of 16 lanes: inside the short forms, near their ends, with
    // edge values, and with any bits
    let mut pair = |i: usize| -> (f32, f32) {
        match (i / 16) % 6 {
            // inside, but 0^0 (and 0^-0) in one lane each
            5 if i % 16 == 3 => (0.0, 0.0),
            5 if i % 16 == 11 => (0.0, -0.0),
            0 | 5 => (
                rng.uniform(1e-3, 50.0) as f32,
                rng.uniform(-8.0, 8.0) as f32,
            ),
            1 => (
                rng.uniform(-126.0, 128.0) as f32,
                rng.uniform(0.0, 200.0) as f32,
            ),
            2 => (
                rng.uniform(0.0, 2.0) as f32,
                rng.uniform(-300.0, 300.0) as f32,
            ),
            3 => (
                f32::from_bits(edges[i % edges.len()]),
                f32::from_bits(edges[(i / 3) % edges.len()]),
            ),
            _ => (
                f32::from_bits(rng.next() as u32),
                f32::from_bits(rng.next() as u32),
            ),
        }
    };
    let xy: Vec<(f32, f32)> = (0..GROUPS * 64).map(&mut pair).collect();
    let (want, got) = run_pairs((&interp, &jit), &xy, GROUPS);
    use tgsi_exec::math::{ex2_f32, lg2_f32, pow_f32};
    let expect = |i: usize| {
        let ((x, y), odd) = (xy[i], i % 2 == 1);
        [
            ex2_f32(x).to_bits(),
            lg2_f32(x.abs()).to_bits(),
            pow_f32(x, y).to_bits(),
            if odd {
                pow_f32(x.abs(), -y).to_bits()
            } else {
                0
            },
        ]
    };
    let inputs = |i: usize| format!("x = {:e}, y = {:e}", xy[i].0, xy[i].1);
    lanes_give(&want, &got, xy.len(), expect, inputs);
}

/// POW by a constant exponent (`Emitter::pow_plain` converts it to
/// doubles once for both halves of the row): every lane as the definition
/// and the interpreter give it, for exponents from an immediate with and
/// without a modifier (one of them so large that bases near 1 reach
/// f32's ends) and bases from tiny to large, edge values among them (the
/// rows with a zero, negative, infinite or NaN base take the row kernel);
/// and LIT of an immediate.
#[test]
fn pow_by_a_constant_exponent_gives_the_definitions_bits() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..3]\n\
        IMM[0] UINT32 {4, 64, 16, 0}\nIMM[1] FLT32 {2.5, 0.75, 37.0, 3000000.0}\nIMM[2] FLT32 {0.5, 0.25, 0.0, 1.5}\n\
        0: UMAD TEMP[0].x, SV[1].xxxx, IMM[0].yyyy, SV[0].xxxx\n\
        1: UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].xxxx\n\
        2: LOAD TEMP[1].x, BUFFER[0], TEMP[0].yyyy\n\
        3: POW TEMP[2].x, TEMP[1].xxxx, IMM[1].xxxx\n\
        4: POW TEMP[2].y, TEMP[1].xxxx, -IMM[1].yyyy\n\
        5: POW TEMP[2].z, |TEMP[1].xxxx|, IMM[1].zzzz\n\
        6: POW TEMP[2].w, TEMP[1].xxxx, IMM[1].wwww\n\
        7: LIT TEMP[3], IMM[2]\n\
        8: ADD TEMP[2].w, TEMP[2].wwww, TEMP[3].zzzz\n\
        9: UMUL TEMP[0].z, TEMP[0].xxxx, IMM[0].zzzz\n\
        10: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[2]\n\
        11: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    const GROUPS: usize = 32;
    let mut rng = tgsi_ir::rng::Rng(0xe2_0000_5eed_0002);
    let edges = tgsi_ir::rng::EDGE_F32;
    let mut base = |i: usize| -> f32 {
        match (i / 16) % 5 {
            0 => rng.uniform(1e-3, 50.0) as f32,
            1 => rng.uniform(0.999, 1.001) as f32,
            2 => rng.uniform(0.0, 1.0) as f32,
            3 => f32::from_bits(edges[i % edges.len()]),
            _ => f32::from_bits(rng.next() as u32),
        }
    };
    let xs: Vec<f32> = (0..GROUPS * 64).map(&mut base).collect();
    let input: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    let run = |p: &Program| {
        let buffers = vec![input.clone(), vec![0; GROUPS * 64 * 16]];
        run_groups(p, buffers, GROUPS).swap_remove(1)
    };
    let (want, got) = (run(&interp), run(&jit));
    use tgsi_exec::math::pow_f32;
    let lit_z = pow_f32(0.25, 1.5);
    let expect = |i: usize| {
        let x = xs[i];
        [
            pow_f32(x, 2.5).to_bits(),
            pow_f32(x, -0.75).to_bits(),
            pow_f32(x.abs(), 37.0).to_bits(),
            (pow_f32(x, 3_000_000.0) + lit_z).to_bits(),
        ]
    };
    let inputs = |i: usize| format!("x = {:e}", xs[i]);
    lanes_give(&want, &got, xs.len(), expect, inputs);
}

/// POW by whole exponents up to 64 (`Emitter::pow_squaring_half`, the
/// products of `math::pow_by_squaring`): every lane as the definition and
/// the interpreter give it, for exponents per lane (rows all whole, rows
/// that mix whole and other exponents, which take the row kernel, and
/// rows with −0 and ±64), constant ones of both signs, and LIT's
/// exponent; bases from tiny to huge, so that products overflow and
/// underflow, and edge values.
#[test]
fn pow_by_a_whole_exponent_gives_the_definitions_bits() {
    let src = pairs_program(
        "IMM[1] FLT32 {48.0, 3.0, 0.0, 1.0}\n",
        "POW TEMP[2].x, TEMP[1].xxxx, TEMP[1].yyyy\n\
         POW TEMP[2].y, TEMP[1].xxxx, IMM[1].xxxx\n\
         POW TEMP[2].z, |TEMP[1].xxxx|, -IMM[1].yyyy\n\
         MOV TEMP[3].x, IMM[1].wwww\n\
         MOV TEMP[3].y, TEMP[1].xxxx\n\
         MOV TEMP[3].w, IMM[1].xxxx\n\
         LIT TEMP[3], TEMP[3]\n\
         MOV TEMP[2].w, TEMP[3].zzzz\n",
    );
    let Some((interp, jit)) = both(&src) else {
        return;
    };
    const GROUPS: usize = 32;
    let mut rng = tgsi_ir::rng::Rng(0xe2_0000_5eed_0064);
    let edges = tgsi_ir::rng::EDGE_F32;
    let whole = |rng: &mut tgsi_ir::rng::Rng| (rng.next() % 129) as f32 - 64.0;
    let mut pair = |i: usize| -> (f32, f32) {
        let x = match (i / 16) % 4 {
            0 => rng.uniform(1e-3, 50.0) as f32,
            1 => rng.uniform(0.0, 2.0) as f32,
            2 => f32::from_bits(edges[i % edges.len()]),
            _ => f32::from_bits(rng.next() as u32 & 0x7fff_ffff),
        };
        let y = match (i / 64) % 3 {
            0 => whole(&mut rng),
            1 if i.is_multiple_of(3) => rng.uniform(-64.0, 64.0) as f32,
            1 => whole(&mut rng),
            _ => [-0.0, 64.0, -64.0, 1.0][i % 4],
        };
        (x, y)
    };
    let xy: Vec<(f32, f32)> = (0..GROUPS * 64).map(&mut pair).collect();
    let (want, got) = run_pairs((&interp, &jit), &xy, GROUPS);
    use tgsi_exec::math::pow_f32;
    let expect = |i: usize| {
        let (x, y) = xy[i];
        [
            pow_f32(x, y).to_bits(),
            pow_f32(x, 48.0).to_bits(),
            pow_f32(x.abs(), -3.0).to_bits(),
            pow_f32(x.max(0.0), 48.0).to_bits(),
        ]
    };
    let inputs = |i: usize| format!("x = {:e}, y = {:e}", xy[i].0, xy[i].1);
    lanes_give(&want, &got, xy.len(), expect, inputs);
}

/// LIT, EXP, LOG, DST, PK2H, UP2H, ARR and BFI inline give the
/// interpreter's bits: on rows of well-behaved values (LIT, EXP and LOG on
/// their short forms) and on rows of edge values and random words, where a
/// lane outside the short forms sends the batch to the handler.
#[test]
fn per_channel_and_packing_templates_give_the_interpreters_bits() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..8]\n\
        IMM[0] UINT32 {16, 64, 32, 96}\n\
        0: UMAD TEMP[0].x, SV[1].xxxx, IMM[0].yyyy, SV[0].xxxx\n\
        1: UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].zzzz\n\
        2: LOAD TEMP[1], BUFFER[0], TEMP[0].yyyy\n\
        3: UADD TEMP[0].z, TEMP[0].yyyy, IMM[0].xxxx\n\
        4: LOAD TEMP[2], BUFFER[0], TEMP[0].zzzz\n\
        5: LIT TEMP[3], TEMP[1]\n\
        6: EXP TEMP[4], TEMP[1].yyyy\n\
        7: LOG TEMP[5], -TEMP[2].xxxx\n\
        8: DST TEMP[6], TEMP[1], |TEMP[2]|\n\
        9: PK2H TEMP[7].x, TEMP[1].wyzx\n\
        10: ARR TEMP[7].y, TEMP[2].wwww\n\
        11: BFI TEMP[7].zw, TEMP[1].xxxy, TEMP[2].zzzw, TEMP[2].yyyy, TEMP[1].zzzz\n\
        12: UP2H TEMP[8], TEMP[2].zzzz\n\
        13: UMUL TEMP[0].w, TEMP[0].xxxx, IMM[0].wwww\n\
        14: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        15: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        16: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        17: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        18: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[5]\n\
        19: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        20: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[6]\n\
        21: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        22: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[7]\n\
        23: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        24: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[8]\n\
        25: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    assert_eq!(jit.compiled().map(|f| f.called), Some(0));
    const GROUPS: usize = 16;
    let edges = tgsi_ir::rng::EDGE_F32;
    let mut rng = tgsi_ir::rng::Rng(0x05be_c1a1_5eed);
    let f = |v: f64| (v as f32).to_bits();
    // eight words per lane (TEMP[1], TEMP[2]); odd groups well-behaved
    let words: Vec<u32> = (0..GROUPS * 64 * 8)
        .map(|i| {
            let (group, word) = (i / (64 * 8), i % 8);
            if group % 2 == 1 {
                match word {
                    0 => f(rng.uniform(-1.0, 1.0)),
                    1 => f(rng.uniform(-120.0, 120.0)),
                    2 => rng.below(34) as u32,
                    3 => f(rng.uniform(-200.0, 200.0)),
                    4 => f(rng.uniform(1e-3, 1e3)),
                    5 => rng.below(40) as u32,
                    6 => rng.next() as u32,
                    _ => f(rng.uniform(-1000.0, 1000.0)),
                }
            } else {
                match i % 3 {
                    0 => edges[rng.below(edges.len() as u64) as usize],
                    1 => [0, 1, 31, 32, 33, 0x7c00_7e01, 0xfc00_0001][rng.below(7) as usize],
                    _ => rng.next() as u32,
                }
            }
        })
        .collect();
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    outputs_agree((&interp, &jit), &input, GROUPS, GROUPS * 64 * 96, 24);
}

/// Indirect register operands inline: reads through an address per lane
/// (inside the range, below it, past it, far past it), with modifiers and
/// in a template of several sources, and writes through one under a
/// divergent UIF (only active lanes inside the range write): the
/// interpreter's registers, lane for lane.
#[test]
fn indirect_register_operands_compile_inline() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 32\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0..7]\nDCL ADDR[0]\n\
        IMM[0] UINT32 {12, 3, 1, 128}\nIMM[1] INT32 {-6, 5, 2147483647, -2147483647}\nIMM[2] FLT32 {1.5, -2.0, 0.25, 3.0}\nIMM[3] UINT32 {16, 0, 0, 0}\n\
        0: MOV TEMP[0], SV[0].xxxx\n\
        1: I2F TEMP[1], SV[0].xxxx\n\
        2: MUL TEMP[2], TEMP[1], IMM[2]\n\
        3: ADD TEMP[3], TEMP[2].yzwx, IMM[2].wzyx\n\
        4: UADD TEMP[4], SV[0].xxxx, IMM[0].yyyy\n\
        5: XOR TEMP[5], TEMP[4], IMM[0].wwww\n\
        6: MOV TEMP[6], IMM[2]\n\
        7: UADD TEMP[7].x, SV[0].xxxx, IMM[1].xxxx\n\
        8: AND TEMP[7].y, SV[0].xxxx, IMM[0].zzzz\n\
        9: UARL ADDR[0].x, TEMP[7].xxxx\n\
        10: UADD TEMP[7].z, SV[0].xxxx, IMM[1].zzzz\n\
        11: UARL ADDR[0].y, TEMP[7].zzzz\n\
        12: MOV TEMP[7].w, IMM[1].wwww\n\
        13: UARL ADDR[0].z, TEMP[7].wwww\n\
        14: MOV TEMP[1].x, TEMP[ADDR[0].x+3].yyyy\n\
        15: ADD TEMP[1].y, -TEMP[ADDR[0].x+1].xxxx, |TEMP[ADDR[0].x+2].zzzz|\n\
        16: MAD TEMP[1].zw, TEMP[ADDR[0].x+4], TEMP[2], TEMP[ADDR[0].x].wwzz\n\
        17: MOV TEMP[2].x, TEMP[ADDR[0].y+1].xxxx\n\
        18: MOV TEMP[2].y, TEMP[ADDR[0].z].xxxx\n\
        19: UIF TEMP[7].yyyy\n\
        20:   MOV TEMP[ADDR[0].x+5].xw, IMM[2].zzyy\n\
        21: ENDIF\n\
        22: DP3 TEMP[ADDR[0].x+6].y, TEMP[3], TEMP[ADDR[0].x+3]\n\
        23: UMUL TEMP[7].x, SV[0].xxxx, IMM[0].wwww\n\
        24: STORE BUFFER[0], TEMP[7].xxxx, TEMP[0]\n\
        25: UADD TEMP[7].x, TEMP[7].xxxx, IMM[3].xxxx\n\
        26: STORE BUFFER[0], TEMP[7].xxxx, TEMP[1]\n\
        27: UADD TEMP[7].x, TEMP[7].xxxx, IMM[3].xxxx\n\
        28: STORE BUFFER[0], TEMP[7].xxxx, TEMP[2]\n\
        29: UADD TEMP[7].x, TEMP[7].xxxx, IMM[3].xxxx\n\
        30: STORE BUFFER[0], TEMP[7].xxxx, TEMP[3]\n\
        31: UADD TEMP[7].x, TEMP[7].xxxx, IMM[3].xxxx\n\
        32: STORE BUFFER[0], TEMP[7].xxxx, TEMP[4]\n\
        33: UADD TEMP[7].x, TEMP[7].xxxx, IMM[3].xxxx\n\
        34: STORE BUFFER[0], TEMP[7].xxxx, TEMP[5]\n\
        35: UADD TEMP[7].x, TEMP[7].xxxx, IMM[3].xxxx\n\
        36: STORE BUFFER[0], TEMP[7].xxxx, TEMP[6]\n\
        37: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    assert_eq!(jit.compiled().map(|f| f.called), Some(0));
    let bufs = vec![vec![0u8; 32 * 128]];
    let want = dispatch(&interp, &bufs, 1_000_000);
    assert!(want.0.is_ok(), "{:?}", want.0);
    assert_eq!(want, dispatch(&jit, &bufs, 1_000_000));
}

/// Indirect constant slots inline: per-lane slots inside buffer 0, in its
/// last, partly filled slot (10 words: channels z and w of slot 2 read 0),
/// below and past it, and in buffer 1 and a missing buffer 2; in a loop
/// that changes the address register (kept in the loop's registers): the
/// interpreter's words.
#[test]
fn indirect_constant_slots_compile_inline() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 32\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL CONST[0][0..3]\nDCL CONST[1][0..3]\nDCL CONST[2][0..3]\nDCL TEMP[0..4]\nDCL ADDR[0]\n\
        IMM[0] UINT32 {7, 64, 16, 1}\nIMM[1] INT32 {-3, 0, 0, 0}\n\
        0: UADD TEMP[0].x, SV[0].xxxx, IMM[1].xxxx\n\
        1: UARL ADDR[0].x, TEMP[0].xxxx\n\
        2: MOV TEMP[1], CONST[0][ADDR[0].x]\n\
        3: ADD TEMP[2], CONST[0][ADDR[0].x+1].wzyx, -CONST[1][ADDR[0].x+2]\n\
        4: MOV TEMP[3], CONST[2][ADDR[0].x+3]\n\
        5: MOV TEMP[4], IMM[1].yyyy\n\
        6: BGNLOOP\n\
        7:   UADD TEMP[4].x, TEMP[4].xxxx, IMM[0].wwww\n\
        8:   UARL ADDR[0].x, TEMP[4].xxxx\n\
        9:   UADD TEMP[4].y, TEMP[4].yyyy, CONST[0][ADDR[0].x-1].zzzz\n\
        10:  USGE TEMP[4].z, TEMP[4].xxxx, IMM[0].xxxx\n\
        11:  UIF TEMP[4].zzzz\n\
        12:    BRK\n\
        13:  ENDIF\n\
        14: ENDLOOP\n\
        15: UMUL TEMP[0].y, SV[0].xxxx, IMM[0].yyyy\n\
        16: STORE BUFFER[0], TEMP[0].yyyy, TEMP[1]\n\
        17: UADD TEMP[0].y, TEMP[0].yyyy, IMM[0].zzzz\n\
        18: STORE BUFFER[0], TEMP[0].yyyy, TEMP[2]\n\
        19: UADD TEMP[0].y, TEMP[0].yyyy, IMM[0].zzzz\n\
        20: STORE BUFFER[0], TEMP[0].yyyy, TEMP[3]\n\
        21: UADD TEMP[0].y, TEMP[0].yyyy, IMM[0].zzzz\n\
        22: STORE BUFFER[0], TEMP[0].yyyy, TEMP[4]\n\
        23: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    let figures = jit.compiled().expect("compiled");
    assert_eq!(figures.called, 0);
    assert_eq!(figures.cached_loops, 1);
    let run = |p: &Program| {
        let mut res = Resources {
            constants: vec![
                (1..=10).map(|w| (w as f32).to_bits()).collect(),
                (0..16).map(|w| (w as f32 * -0.5).to_bits()).collect(),
            ],
            buffers: vec![vec![0; 32 * 64]],
            ..Resources::default()
        };
        p.dispatch_stats(&mut res, [1, 1, 1], &Limits::default())
            .unwrap();
        res.buffers.swap_remove(0)
    };
    let want = run(&interp);
    same_words(&want, &run(&jit), 16, "BUFFER[0]");
    // thread 5 reads slot 2 of buffer 0: words 9, 10, then zeros
    let w = |i: usize| {
        f32::from_bits(u32::from_le_bytes(
            want[4 * i..4 * i + 4].try_into().unwrap(),
        ))
    };
    assert_eq!([w(80), w(81), w(82), w(83)], [9.0, 10.0, 0.0, 0.0]);
}

/// DLDEXP inline (`vscalefpd`) gives the interpreter's bits: edge doubles
/// (NaNs of both kinds, infinities, zeros, subnormals, the largest finite)
/// and random ones scaled by counts into and past the subnormal range, by
/// huge and by the extreme counts, with the counts of pair zw in z.
#[test]
fn dldexp_inline_gives_the_interpreters_bits() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..3]\n\
        IMM[0] UINT32 {16, 64, 32, 0}\n\
        0: UMAD TEMP[0].x, SV[1].xxxx, IMM[0].yyyy, SV[0].xxxx\n\
        1: UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].zzzz\n\
        2: LOAD TEMP[1], BUFFER[0], TEMP[0].yyyy\n\
        3: UADD TEMP[0].z, TEMP[0].yyyy, IMM[0].xxxx\n\
        4: LOAD TEMP[2], BUFFER[0], TEMP[0].zzzz\n\
        5: DLDEXP TEMP[3], TEMP[1], TEMP[2]\n\
        6: UMUL TEMP[0].w, TEMP[0].xxxx, IMM[0].xxxx\n\
        7: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        8: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    assert_eq!(jit.compiled().map(|f| f.called), Some(0));
    const GROUPS: usize = 8;
    let edges: [u64; 10] = [
        0x7ff0_0000_0000_0001, // signaling NaN
        0xfff8_0000_0000_1234,
        0x7ff0_0000_0000_0000,
        0x8000_0000_0000_0000,
        0x0000_0000_0000_0001,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x3ff8_0000_0000_0001,
        0xbfff_ffff_ffff_ffff,
    ];
    let counts: [i32; 12] = [
        0,
        -1,
        -1074,
        -1075,
        -1076,
        -1022,
        -1023,
        1023,
        2100,
        -2100,
        i32::MIN,
        i32::MAX,
    ];
    let mut rng = tgsi_ir::rng::Rng(0x00d1_de4e_5eed);
    let mut words = Vec::new();
    for _ in 0..GROUPS * 64 {
        let x = |rng: &mut tgsi_ir::rng::Rng| match rng.below(3) {
            0 => edges[rng.below(edges.len() as u64) as usize],
            _ => rng.next(),
        };
        let n = |rng: &mut tgsi_ir::rng::Rng| match rng.below(3) {
            0 => counts[rng.below(counts.len() as u64) as usize] as u32,
            _ => (rng.below(4400) as i32 - 2200) as u32,
        };
        let (a, b) = (x(&mut rng), x(&mut rng));
        words.extend([a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32]);
        words.extend([n(&mut rng), 0, n(&mut rng), 0]);
    }
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    outputs_agree((&interp, &jit), &input, GROUPS, GROUPS * 64 * 16, 4);
}

/// U64DIV, I64DIV, U64MOD and I64MOD inline (a scalar division per lane)
/// give the interpreter's bits: divisors 0, 1, -1 with dividends 0,
/// `i64::MIN`, `i64::MAX`, `u64::MAX` and random words, with source
/// modifiers, in lanes an IF switches off too.
#[test]
fn divisions_of_64_bit_integers_give_the_interpreters_bits() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..5]\n\
        IMM[0] UINT32 {16, 64, 32, 1}\n\
        0: UMAD TEMP[0].x, SV[1].xxxx, IMM[0].yyyy, SV[0].xxxx\n\
        1: UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].zzzz\n\
        2: LOAD TEMP[1], BUFFER[0], TEMP[0].yyyy\n\
        3: UADD TEMP[0].z, TEMP[0].yyyy, IMM[0].xxxx\n\
        4: LOAD TEMP[2], BUFFER[0], TEMP[0].zzzz\n\
        5: U64DIV TEMP[3].xy, TEMP[1].xyxy, TEMP[2].xyxy\n\
        6: I64DIV TEMP[3].zw, TEMP[1].zwzw, -TEMP[2].zwzw\n\
        7: U64MOD TEMP[4].xy, TEMP[1].zwzw, TEMP[2].zwzw\n\
        8: I64MOD TEMP[4].zw, TEMP[1].xyxy, TEMP[2].xyxy\n\
        9: MOV TEMP[5], IMM[0].wwww\n\
        10: AND TEMP[0].w, TEMP[0].xxxx, IMM[0].wwww\n\
        11: UIF TEMP[0].wwww\n\
        12:   I64DIV TEMP[5].xy, TEMP[1].xyxy, TEMP[2].zwzw\n\
        13:   U64MOD TEMP[5].zw, |TEMP[1].zwzw|, TEMP[2].xyxy\n\
        14: ENDIF\n\
        15: UMUL TEMP[0].w, TEMP[0].xxxx, IMM[0].yyyy\n\
        16: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        17: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        18: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        19: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        20: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[5]\n\
        21: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    assert_eq!(jit.compiled().map(|f| f.called), Some(0));
    const GROUPS: usize = 8;
    let edges: [u64; 8] = [
        0,
        1,
        u64::MAX,
        1 << 63,
        i64::MAX as u64,
        7,
        (-7i64) as u64,
        0x1_0000_0000,
    ];
    let mut rng = tgsi_ir::rng::Rng(0x6464_d1f5_5eed);
    // 64-bit values, low word first
    let input: Vec<u8> = (0..GROUPS * 64 * 4)
        .map(|_| match rng.below(3) {
            0 => edges[rng.below(edges.len() as u64) as usize],
            1 => rng.next() >> rng.below(64),
            _ => rng.next(),
        })
        .flat_map(u64::to_le_bytes)
        .collect();
    outputs_agree((&interp, &jit), &input, GROUPS, GROUPS * 64 * 64, 16);
}

/// The buffer and shared-memory atomics inline: every kind, lanes of a
/// work group hitting the same words (the old words each lane gets follow
/// the lane order), lanes past the end (0, nothing written), per-lane
/// operands rich in edge values (NaN for ATOMFADD, wrapping limits):
/// the interpreter's old words and final memory.
#[test]
fn atomics_compile_inline() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL BUFFER[2]\nDCL MEMORY[0], SHARED\nDCL TEMP[0..3]\n\
        IMM[0] UINT32 {7, 4, 64, 4}\nIMM[1] UINT32 {16, 0, 0, 0}\n\
        0: AND TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\n\
        1: UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].yyyy\n\
        2: UMUL TEMP[0].z, SV[0].xxxx, IMM[0].zzzz\n\
        3: LOAD TEMP[1], BUFFER[1], TEMP[0].zzzz\n\
        4: UMUL TEMP[0].w, SV[0].xxxx, IMM[0].wwww\n\
        5: UADD TEMP[2].x, TEMP[0].yyyy, TEMP[0].wwww\n\
        6: ATOMUADD TEMP[3].x, BUFFER[0], TEMP[0].yyyy, TEMP[1].x\n\
        7: ATOMXCHG TEMP[3].y, BUFFER[0], TEMP[2].xxxx, TEMP[1].y\n\
        8: ATOMAND TEMP[3].z, BUFFER[0], TEMP[0].yyyy, TEMP[1].z\n\
        9: ATOMOR TEMP[3].w, BUFFER[0], TEMP[2].xxxx, TEMP[1].w\n\
        10: STORE BUFFER[2], TEMP[0].zzzz, TEMP[3]\n\
        11: UADD TEMP[0].z, TEMP[0].zzzz, IMM[1].xxxx\n\
        12: ATOMXOR TEMP[3].x, BUFFER[0], TEMP[0].yyyy, TEMP[1].x\n\
        13: ATOMUMIN TEMP[3].y, BUFFER[0], TEMP[2].xxxx, TEMP[1].y\n\
        14: ATOMUMAX TEMP[3].z, BUFFER[0], TEMP[0].yyyy, TEMP[1].z\n\
        15: ATOMIMIN TEMP[3].w, BUFFER[0], TEMP[2].xxxx, TEMP[1].w\n\
        16: STORE BUFFER[2], TEMP[0].zzzz, TEMP[3]\n\
        17: UADD TEMP[0].z, TEMP[0].zzzz, IMM[1].xxxx\n\
        18: ATOMIMAX TEMP[3].x, BUFFER[0], TEMP[0].yyyy, TEMP[1].x\n\
        19: ATOMFADD TEMP[3].y, BUFFER[0], TEMP[0].yyyy, TEMP[1].y\n\
        20: ATOMINC_WRAP TEMP[3].z, BUFFER[0], TEMP[0].yyyy, TEMP[1].z\n\
        21: ATOMDEC_WRAP TEMP[3].w, BUFFER[0], TEMP[0].yyyy, TEMP[1].w\n\
        22: STORE BUFFER[2], TEMP[0].zzzz, TEMP[3]\n\
        23: UADD TEMP[0].z, TEMP[0].zzzz, IMM[1].xxxx\n\
        24: ATOMCAS TEMP[3].x, BUFFER[0], TEMP[0].yyyy, TEMP[1].xxxx, TEMP[1].yyyy\n\
        25: ATOMUADD TEMP[3].y, MEMORY[0], TEMP[0].yyyy, TEMP[1].zzzz\n\
        26: ATOMIMAX TEMP[3].z, MEMORY[0], TEMP[2].xxxx, TEMP[1].wwww\n\
        27: LOAD TEMP[3].w, MEMORY[0], TEMP[0].yyyy\n\
        28: STORE BUFFER[2], TEMP[0].zzzz, TEMP[3]\n\
        29: END\n\
        ";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    assert_eq!(jit.compiled().map(|f| f.called), Some(0));
    let edges = tgsi_ir::rng::EDGE_F32;
    let mut rng = tgsi_ir::rng::Rng(0x0a70_1c00_5eed);
    let operands: Vec<u8> = (0..64 * 16)
        .map(|i| match i % 3 {
            // thread 11's ATOMFADD adds a NaN of another payload to word
            // 3's NaN: the first operand's wins
            _ if i == 11 * 16 + 1 => 0xffc0_0001,
            0 => edges[rng.below(edges.len() as u64) as usize],
            1 => rng.below(12) as u32,
            _ => rng.next() as u32,
        })
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let memory: Vec<u8> = (0..8u32)
        .map(|w| [5, 0, u32::MAX, 0x7fc0_0000, 3, 1 << 31, 7, 1][w as usize])
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let run = |p: &Program| {
        let buffers = vec![memory.clone(), operands.clone(), vec![0; 64 * 64]];
        run_groups(p, buffers, 1)
    };
    let (want, got) = (run(&interp), run(&jit));
    same_words(&want[0], &got[0], 1, "BUFFER[0]");
    same_words(&want[2], &got[2], 16, "BUFFER[2]");
}

/// RESQ of buffers (of 10 and 512 bytes) inline: the interpreter's
/// lengths in x and zeros in y, z, w; an unbound buffer its error.
#[test]
fn buffer_sizes_compile_inline() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 16\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL BUFFER[2]\nDCL TEMP[0..2]\n\
        IMM[0] UINT32 {16, 32, 0, 0}\n\
        0: MOV TEMP[1], IMM[0].xxxx\n\
        1: MOV TEMP[2], IMM[0].xxxx\n\
        2: RESQ TEMP[1].xzw, BUFFER[0]\n\
        3: RESQ TEMP[2].x, BUFFER[2]\n\
        4: RESQ TEMP[2].yw, BUFFER[1]\n\
        5: UMUL TEMP[0].x, SV[0].xxxx, IMM[0].yyyy\n\
        6: STORE BUFFER[2], TEMP[0].xxxx, TEMP[1]\n\
        7: UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n\
        8: STORE BUFFER[2], TEMP[0].xxxx, TEMP[2]\n\
        9: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    assert_eq!(jit.compiled().map(|f| f.called), Some(0));
    let run = |p: &Program, buffers: Vec<Vec<u8>>| {
        let mut res = Resources {
            buffers,
            ..Resources::default()
        };
        let r = p
            .dispatch_stats(&mut res, [1, 1, 1], &Limits::default())
            .map(|_| ())
            .map_err(|e| e.message);
        (r, res.buffers)
    };
    let bufs = vec![vec![0; 10], vec![0; 4], vec![0; 16 * 32]];
    let want = run(&interp, bufs.clone());
    assert!(want.0.is_ok(), "{:?}", want.0);
    assert_eq!(want, run(&jit, bufs));
    let w = |i: usize| u32::from_le_bytes(want.1[2][4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(
        (0..8).map(w).collect::<Vec<_>>(),
        [10, 16, 0, 0, 512, 0, 16, 0]
    );
    // BUFFER[1] missing: the same error
    let short = vec![vec![0; 10]];
    let want = run(&interp, short.clone());
    assert!(want.0.is_err());
    assert_eq!(want, run(&jit, short));
}

/// DFRACEXP inline: significands and exponents of edge doubles (zeros,
/// subnormals, infinities, NaNs of both kinds, powers of two, the largest
/// finite) and random ones, to one or both pairs and to exponent
/// channels, also when the two destinations are one register: the
/// interpreter's words.
#[test]
fn dfracexp_inline_gives_the_interpreters_bits() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..4]\n\
        IMM[0] UINT32 {16, 64, 48, 7}\n\
        0: UMAD TEMP[0].x, SV[1].xxxx, IMM[0].yyyy, SV[0].xxxx\n\
        1: UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].xxxx\n\
        2: LOAD TEMP[1], BUFFER[0], TEMP[0].yyyy\n\
        3: MOV TEMP[2], IMM[0].wwww\n\
        4: MOV TEMP[3], IMM[0].wwww\n\
        5: DFRACEXP TEMP[2], TEMP[3].xz, TEMP[1].xyxy\n\
        6: MOV TEMP[4], TEMP[1]\n\
        7: DFRACEXP TEMP[4].zw, TEMP[4].yw, -TEMP[1].zwzw\n\
        8: UMUL TEMP[0].w, TEMP[0].xxxx, IMM[0].zzzz\n\
        9: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[2]\n\
        10: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        11: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[3]\n\
        12: UADD TEMP[0].w, TEMP[0].wwww, IMM[0].xxxx\n\
        13: STORE BUFFER[1].xyzw, TEMP[0].wwww, TEMP[4]\n\
        14: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    assert_eq!(jit.compiled().map(|f| f.called), Some(0));
    const GROUPS: usize = 8;
    let edges: [u64; 11] = [
        0,
        0x8000_0000_0000_0000,
        1,
        0x800f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0xfff8_0000_0000_0042,
    ];
    let mut rng = tgsi_ir::rng::Rng(0x0dfe_0e9b_5eed);
    let input: Vec<u8> = (0..GROUPS * 64 * 2)
        .map(|_| match rng.below(2) {
            0 => edges[rng.below(edges.len() as u64) as usize],
            _ => rng.next(),
        })
        .flat_map(u64::to_le_bytes)
        .collect();
    outputs_agree((&interp, &jit), &input, GROUPS, GROUPS * 64 * 48, 12);
}

/// DFRACEXP in a loop whose register cache holds its second destination:
/// as 32-bit rows read after the loop, and as a 64-bit pair a compare
/// reads in the loop (the exponent's stores into that pair take the
/// template's scratch registers): the interpreter's words. (Found by
/// `tgsi fuzz`, seeds 0x6686a1 and 0x666c4a, reduced.)
#[test]
fn dfracexp_second_destination_in_a_cached_loop() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 16\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0..4]\n\
        IMM[0] UINT32 {0, 1, 5, 32}\nIMM[1] FLT64 {-6.5, 1536.0}\n\
        0: MOV TEMP[1], SV[0].xxxx\n\
        1: I2D TEMP[2], TEMP[1].xxxx\n\
        2: MOV TEMP[0], IMM[0].xxxx\n\
        3: BGNLOOP\n\
        4:   UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\n\
        5:   USGE TEMP[0].y, TEMP[0].xxxx, IMM[0].zzzz\n\
        6:   UIF TEMP[0].yyyy\n\
        7:     BRK\n\
        8:   ENDIF\n\
        9:   U64SLT TEMP[3].x, TEMP[1].xwzy, -|TEMP[2]|\n\
        10:  DFRACEXP TEMP[4].zw, TEMP[2].xyzw, |TEMP[2].zwzw|\n\
        11:  DADD TEMP[2].zw, TEMP[2].zwzw, IMM[1].zwzw\n\
        12: ENDLOOP\n\
        13: UMUL TEMP[0].z, SV[0].xxxx, IMM[0].wwww\n\
        14: STORE BUFFER[0], TEMP[0].zzzz, TEMP[2]\n\
        15: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].wwww\n\
        16: STORE BUFFER[0], TEMP[0].zzzz, TEMP[3]\n\
        17: END\n";
    cached_loop_matches(src, 16 * 64 + 64);
}

/// The constant words and buffer entries a thread's context keeps from
/// batch to batch are those of the run's own resources: constants changed
/// in place between two dispatches of one compiled program (the same
/// memory, new words) and another buffer are read by the second one.
#[test]
fn each_dispatch_reads_its_own_constants_and_buffers() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 16\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\n\
        DCL BUFFER[0]\n\
        DCL CONST[0][0..1]\n\
        DCL TEMP[0..1]\n\
        IMM[0] UINT32 {4, 0, 0, 0}\n\
        0: UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\n\
        1: UADD TEMP[1].x, CONST[0][0].xxxx, CONST[0][1].yyyy\n\
        2: STORE BUFFER[0].x, TEMP[0].xxxx, TEMP[1].xxxx\n\
        3: END\n";
    let Some((_, jit)) = both(src) else {
        return;
    };
    let mut res = Resources {
        constants: vec![vec![5, 0, 0, 0, 0, 100, 0, 0]],
        buffers: vec![vec![0u8; 16 * 4]],
        ..Resources::default()
    };
    let word = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    jit.dispatch_stats(&mut res, [1, 1, 1], &Limits::default())
        .unwrap();
    assert_eq!(word(&res.buffers[0], 3), 105);
    res.constants[0][0] = 7;
    res.constants[0][5] = 1000;
    res.buffers = vec![vec![0u8; 16 * 4]];
    jit.dispatch_stats(&mut res, [1, 1, 1], &Limits::default())
        .unwrap();
    assert_eq!(word(&res.buffers[0], 3), 1007);
}

/// Straight runs of arithmetic keep their rows in registers between
/// instructions: at the top of the program (every lane), inside an IF
/// (some lanes: the others keep the register's earlier words), around an
/// inline POW whose fallback lanes call the row kernel, and up to a STORE,
/// the interpreter's words.
#[test]
fn straight_runs_in_registers_give_the_interpreters_bits() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 16\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0..4]\n\
        IMM[0] UINT32 {3, 64, 16, 0}\nIMM[1] FLT32 {0.5, 1.5, -2.0, 100.0}\n\
        0: U2F TEMP[0], SV[0].xxxx\n\
        1: MUL TEMP[1], TEMP[0], IMM[1].xyzw\n\
        2: ADD TEMP[1].xy, TEMP[1], TEMP[0].wzyx\n\
        3: DP3 TEMP[2].x, TEMP[1], TEMP[1]\n\
        4: MAD TEMP[1].zw, TEMP[2].xxxx, IMM[1].xxxx, TEMP[1].xyxy\n\
        5: AND TEMP[3].x, SV[0].xxxx, IMM[0].xxxx\n\
        6: UIF TEMP[3].xxxx\n\
        7:   MUL TEMP[1].x, TEMP[1].xxxx, TEMP[2].xxxx\n\
        8:   POW TEMP[1].y, |TEMP[1].yyyy|, IMM[1].xxxx\n\
        9:   POW TEMP[2].y, TEMP[1].zzzz, IMM[1].zzzz\n\
        10:  ADD TEMP[1].zw, TEMP[1], TEMP[2].yyyy\n\
        11: ENDIF\n\
        12: UMUL TEMP[4].x, SV[0].xxxx, IMM[0].yyyy\n\
        13: STORE BUFFER[0], TEMP[4].xxxx, TEMP[1]\n\
        14: UADD TEMP[4].x, TEMP[4].xxxx, IMM[0].zzzz\n\
        15: STORE BUFFER[0], TEMP[4].xxxx, TEMP[2]\n\
        16: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    let figures = jit.compiled().expect("compiled");
    assert!(figures.cached_runs >= 2, "{figures}");
    let bufs = vec![vec![0u8; 16 * 64]];
    let want = dispatch(&interp, &bufs, 1_000_000);
    let got = dispatch(&jit, &bufs, 1_000_000);
    assert!(want.0.is_ok(), "{:?}", want.0);
    assert_eq!(got.0, want.0);
    assert!(want.1[0].iter().any(|b| *b != 0));
    assert_eq!(got.1, want.1);
}

/// Results written straight into the registers that hold their rows
/// (`Emitter::direct_row`: the last step under the execution mask) and
/// MIN/MAX by an immediate in one `vminps`/`vmaxps`: every lane as the
/// interpreter gives it, for edge values (NaN, ±0, infinities, subnormals)
/// at the top and inside an IF (the other lanes keep their words), with
/// both zeros as the immediate (MIN by +0 and MAX by -0 keep the full
/// rule), the immediate first or second, and channels that read a channel
/// the same instruction writes before them (`.yx` swizzles: those go
/// through the result registers).
#[test]
fn direct_writes_and_min_max_by_immediates_give_the_interpreters_bits() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
        DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\nDCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..5]\n\
        IMM[0] UINT32 {64, 16, 1, 48}\nIMM[1] FLT32 {0.0, -0.0, 1.5, -2.0}\n\
        0: UMAD TEMP[0].x, SV[1].xxxx, IMM[0].xxxx, SV[0].xxxx\n\
        1: UMUL TEMP[0].y, TEMP[0].xxxx, IMM[0].yyyy\n\
        2: LOAD TEMP[1], BUFFER[0], TEMP[0].yyyy\n\
        3: MAX TEMP[2].x, TEMP[1].xxxx, IMM[1].xxxx\n\
        4: MAX TEMP[2].y, IMM[1].yyyy, TEMP[1].yyyy\n\
        5: MIN TEMP[2].z, TEMP[1].zzzz, IMM[1].yyyy\n\
        6: MIN TEMP[2].w, IMM[1].xxxx, TEMP[1].wwww\n\
        7: MAX TEMP[3].x, IMM[1].zzzz, TEMP[1].yyyy\n\
        8: MIN TEMP[3].y, TEMP[1].zzzz, IMM[1].wwww\n\
        9: MUL TEMP[3].zw, TEMP[1].xyyy, TEMP[1].yyyx\n\
        10: ADD TEMP[4].xy, TEMP[1].xyxx, IMM[1].zwzw\n\
        11: MUL TEMP[4].xy, TEMP[4].yxxx, TEMP[4].xyxx\n\
        12: DP3 TEMP[4].z, TEMP[1], TEMP[4]\n\
        13: RSQ TEMP[4].w, |TEMP[4].zzzz|\n\
        14: AND TEMP[5].x, TEMP[0].xxxx, IMM[0].zzzz\n\
        15: UIF TEMP[5].xxxx\n\
        16:   MAD TEMP[1].xy, TEMP[1].yxxx, IMM[1].zzzz, TEMP[1].xyyy\n\
        17:   MAX TEMP[1].z, TEMP[1].zzzz, IMM[1].zzzz\n\
        18:   DP2 TEMP[1].w, TEMP[1].xyyy, TEMP[1].zwww\n\
        19: ENDIF\n\
        20: UMUL TEMP[0].z, TEMP[0].xxxx, IMM[0].wwww\n\
        21: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[1]\n\
        22: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].yyyy\n\
        23: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[2]\n\
        24: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].yyyy\n\
        25: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[3]\n\
        26: UADD TEMP[0].z, TEMP[0].zzzz, IMM[0].yyyy\n\
        27: STORE BUFFER[1].xyzw, TEMP[0].zzzz, TEMP[4]\n\
        28: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    let figures = jit.compiled().expect("compiled");
    assert!(figures.cached_runs >= 1, "{figures}");
    const GROUPS: usize = 8;
    let edges = tgsi_ir::rng::EDGE_F32;
    let mut rng = tgsi_ir::rng::Rng(0xd1_7ec7_5eed_0001);
    let input: Vec<u8> = (0..GROUPS * 64 * 4)
        .map(|i| match (i / 64) % 3 {
            0 => edges[(i * 7 + i / 4) % edges.len()],
            1 => (rng.uniform(-4.0, 4.0) as f32).to_bits(),
            _ => rng.next() as u32,
        })
        .flat_map(u32::to_le_bytes)
        .collect();
    outputs_agree((&interp, &jit), &input, GROUPS, GROUPS * 64 * 64, 16);
}

/// A straight run that ends the program keeps the TEMP rows it writes
/// before reading them out of memory altogether (`Slot::fresh`: neither
/// loaded nor written back), while a row read before its first write is
/// loaded (TEMP[2]: zero from the reset), also around the row kernel the
/// POW calls for its negative bases (the cache stored and reloaded about
/// the call): the words of every pixel over a target whose right and
/// bottom batches are partial, batch after batch through the same
/// registers, are the interpreter's.
#[test]
fn rows_written_first_in_a_last_run_give_the_interpreters_bits() {
    let src = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0..3]\n\
        IMM[0] FLT32 {0.5, 2.0, -1.0, 3.0}\n\
        0: MUL TEMP[0].xy, IN[0].xyyy, IMM[0].yzzz\n\
        1: ADD TEMP[1].x, TEMP[0].xxxx, TEMP[0].yyyy\n\
        2: ADD TEMP[2].x, TEMP[2].xxxx, IMM[0].xxxx\n\
        3: MAD TEMP[1].y, TEMP[1].xxxx, TEMP[2].xxxx, IN[0].xxxx\n\
        4: POW TEMP[3].x, TEMP[1].yyyy, IMM[0].xxxx\n\
        5: MUL TEMP[0].z, TEMP[3].xxxx, TEMP[1].xxxx\n\
        6: DP3 TEMP[3].y, TEMP[0].xyzz, TEMP[1].xyxx\n\
        7: ADD TEMP[0].w, TEMP[3].yyyy, TEMP[2].xxxx\n\
        8: MOV OUT[0], TEMP[0]\n\
        9: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    let figures = jit.compiled().expect("compiled");
    assert!(figures.cached_runs >= 1, "{figures}");
    let shade = |p: &Program| {
        let draw = tgsi_exec::Draw::full_quad(22, 18);
        p.shade(&mut Resources::default(), &draw, 1, &Limits::default())
            .expect("the shader runs")
            .0
    };
    let (want, got) = (shade(&interp), shade(&jit));
    assert!(want.iter().flatten().any(|w| w.iter().any(|&b| b != 0)));
    assert!(want == got, "the compiled engine's pixels differ");
}
