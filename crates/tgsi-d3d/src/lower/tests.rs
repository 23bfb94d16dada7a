//! Unit tests of the lowering: each tricky expansion is assembled from SM5
//! text, lowered, validated and RUN on the machine as a compute shader
//! (inputs in cb0, results stored to the raw UAV u0), and its result bits
//! are compared with values derived by hand from Microsoft's instruction
//! reference pages (the derivation is in the comments).

use super::*;
use tgsi_exec::{Limits, Program as Machine, Resources};

/// Runs `body` (SM5 assembly, after the declarations) with cb0 = `cb`
/// (words, 4 per vector) and returns the first `n` words of u0.
fn run(body: &str, cb: &[u32], n: usize) -> Vec<u32> {
    let text = format!(
        "cs_5_0\ndcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps\n\
         dcl_constantbuffer CB0[16], immediateIndexed\ndcl_uav_raw u0\ndcl_temps 8\n\
         dcl_thread_group 1, 1, 1\n{body}ret \n"
    );
    let (program, _) =
        crate::parse_program(&text).unwrap_or_else(|d| panic!("{}", d.render("test.asm", &text)));
    let lowered =
        lower(&program, &Signatures::from_declarations(&program)).unwrap_or_else(|e| panic!("{e}"));
    let diags = tgsi_ir::validate::validate(&lowered.shader, None);
    assert!(!diags.has_errors(), "{}", diags.render("lowered", ""));
    let tgsi = lowered.to_text(&program);
    tgsi_text::assemble(&tgsi).unwrap_or_else(|d| panic!("{}\n{tgsi}", d.render("lowered", &tgsi)));
    let machine = Machine::compile(&lowered.shader).unwrap_or_else(|e| panic!("{e}\n{tgsi}"));
    let mut constants = cb.to_vec();
    constants.resize(64, 0);
    let mut res = Resources {
        constants: vec![constants],
        buffers: vec![vec![0u8; 4 * n.max(4)]],
        ..Resources::default()
    };
    machine
        .dispatch(&mut res, [1, 1, 1], &Limits::default())
        .unwrap_or_else(|e| panic!("{e}\n{tgsi}"));
    res.buffers[0]
        .chunks(4)
        .take(n)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

fn f(v: f32) -> u32 {
    v.to_bits()
}

fn split(d: u64) -> [u32; 2] {
    [d as u32, (d >> 32) as u32]
}

/// dmovc, per the reference page: dest.xy takes the first double of src1
/// (after its swizzle) if the FIRST 32-bit component of src0 after its
/// swizzle has any bit set, else the first double of src2; dest.zw the
/// same with the SECOND component and the second doubles. Without
/// modifiers the bits move unchanged; neg/abs act on the doubles.
#[test]
fn dmovc_takes_slot_conditions_from_the_first_two_swizzled_components() {
    let a0: u64 = 0x7FF4_0000_0000_0001; // a signalling NaN: must move bit for bit
    let a1: u64 = 2.5f64.to_bits();
    let b0: u64 = (-1.0f64).to_bits();
    let b1: u64 = 0x0000_0000_0000_0001; // the smallest subnormal
    let [a0l, a0h] = split(a0);
    let [a1l, a1h] = split(a1);
    let [b0l, b0h] = split(b0);
    let [b1l, b1h] = split(b1);
    // cb0[0] = conditions (0x80000000, 0, NaN bits, 0); cb0[1] = (a0, a1); cb0[2] = (b0, b1)
    let cb = [
        0x8000_0000,
        0,
        0x7FC0_0000,
        0,
        a0l,
        a0h,
        a1l,
        a1h,
        b0l,
        b0h,
        b1l,
        b1h,
    ];
    let body = "\
mov r0.xyzw, l(9, 9, 9, 9)
dmovc r0.xyzw, cb0[0].xyzw, cb0[1].xyzw, cb0[2].xyzw
store_raw u0.xyzw, l(0), r0.xyzw
mov r1.xyzw, l(9, 9, 9, 9)
dmovc r1.xyzw, cb0[0].zxxx, cb0[1].xyzw, cb0[2].xyzw
store_raw u0.xyzw, l(16), r1.xyzw
mov r2.xyzw, l(9, 9, 9, 9)
dmovc r2.zw, cb0[0].yxxx, cb0[1].xyzw, cb0[2].zwxy
store_raw u0.xyzw, l(32), r2.xyzw
mov r3.xyzw, l(9, 9, 9, 9)
dmovc r3.xy, cb0[0].y, cb0[1].zwxy, cb0[2].zwxy
store_raw u0.xyzw, l(48), r3.xyzw
dmovc r4.xyzw, cb0[0].xxxx, -cb0[2].xyzw, cb0[1].xyzw
store_raw u0.xyzw, l(64), r4.xyzw
dmovc r5.xyzw, cb0[0].yyyy, cb0[1].xyzw, |cb0[2].xyzw|
store_raw u0.xyzw, l(80), r5.xyzw
";
    let out = run(body, &cb, 24);
    // 1: slot 0 tests c0 = 0x80000000 (a bit is set) → a0; slot 1 tests
    //    c1 = 0 → b1.
    assert_eq!(out[0..4], [a0l, a0h, b1l, b1h]);
    // 2: swizzle .zx: slot 0 tests c2 (NaN bits, set) → a0; slot 1 tests
    //    c0 (set) → a1.
    assert_eq!(out[4..8], [a0l, a0h, a1l, a1h]);
    // 3: mask .zw only; the condition's second component after .yx is c0
    //    (set) → the second double of src1 = a1; x, y keep 9.
    assert_eq!(out[8..12], [9, 9, a1l, a1h]);
    // 4: mask .xy; condition .y → c1 = 0 (false) → the first double of
    //    src2 after .zwxy = b1; z, w keep 9.
    assert_eq!(out[12..16], [b1l, b1h, 9, 9]);
    // 5: c0 set in both slots → -src1 = -(b0, b1): the double sign bit
    //    (bit 31 of the high word) flips, the low word stays.
    assert_eq!(
        out[16..20],
        [b0l, b0h ^ 0x8000_0000, b1l, b1h ^ 0x8000_0000]
    );
    // 6: c1 = 0 in both slots → |src2| = |(b0, b1)|: -1.0 → 1.0, b1 unchanged.
    assert_eq!(out[20..24], [b0l, b0h & 0x7FFF_FFFF, b1l, b1h]);
}

/// ftoi / ftou (reference pages): truncate toward zero; NaN → 0; values
/// beyond the range (and ±INF) clamp to INT_MIN / INT_MAX, or 0 /
/// 0xFFFFFFFF for ftou.
#[test]
fn ftoi_and_ftou_truncate_clamp_and_map_nan_to_zero() {
    let cb = [
        f(2147483648.0),
        f(-2147483904.0),
        0x7FC0_0000,
        f(-0.9),
        f(1.9),
        f(f32::INFINITY),
        f(f32::NEG_INFINITY),
        f(-2147483648.0),
        f(-1.0),
        f(4294967296.0),
        f(3.0e9),
        0xFFC0_0000,
    ];
    let body = "\
ftoi r0.xyzw, cb0[0].xyzw
ftoi r1.xyzw, cb0[1].xyzw
ftou r2.xyzw, cb0[2].xyzw
ftou r3.xy, -cb0[0].zwzz
store_raw u0.xyzw, l(0), r0.xyzw
store_raw u0.xyzw, l(16), r1.xyzw
store_raw u0.xyzw, l(32), r2.xyzw
store_raw u0.xy, l(48), r3.xyxx
";
    let out = run(body, &cb, 14);
    // 2^31 is beyond INT_MAX → 0x7FFFFFFF; -2147483904 below INT_MIN →
    // 0x80000000; NaN → 0; -0.9 truncates to 0.
    assert_eq!(out[0..4], [0x7FFF_FFFF, 0x8000_0000, 0, 0]);
    // 1.9 → 1; +INF → INT_MAX; -INF → INT_MIN; -2^31 is exact.
    assert_eq!(out[4..8], [1, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0000]);
    // ftou: -1.0 → 0; 2^32 → 0xFFFFFFFF; 3e9 exact; NaN → 0.
    assert_eq!(out[8..12], [0, 0xFFFF_FFFF, 3_000_000_000, 0]);
    // the negate applies before the conversion: -(NaN) → 0, -(-0.9) = 0.9 → 0
    assert_eq!(out[12..14], [0, 0]);
}

/// firstbit_hi: the first set bit counted from the MSB, 0xFFFFFFFF for 0;
/// firstbit_shi: the first bit that differs from the sign bit counted from
/// the MSB, 0xFFFFFFFF for 0 and -1.
#[test]
fn firstbit_hi_counts_from_the_top() {
    let cb = [
        0,
        1,
        0x8000_0000,
        0x0001_0000, //
        0xFFFF_FFFF,
        0,
        0xFFFF_FFFE,
        0x0000_FFFF, //
        0x8000_0000,
        0x7FFF_FFFF,
        0,
        0,
    ];
    let body = "\
firstbit_hi r0.xyzw, cb0[0].xyzw
firstbit_shi r1.xyzw, cb0[1].xyzw
firstbit_shi r2.xy, cb0[2].xyxx
firstbit_lo r3.xy, cb0[0].xwxx
store_raw u0.xyzw, l(0), r0.xyzw
store_raw u0.xyzw, l(16), r1.xyzw
store_raw u0.xy, l(32), r2.xyxx
store_raw u0.xy, l(40), r3.xyxx
";
    let out = run(body, &cb, 12);
    // 0 → ~0; 1 (bit 0) → 31; 0x80000000 (bit 31) → 0; 0x10000 (bit 16) → 15
    assert_eq!(out[0..4], [u32::MAX, 31, 0, 15]);
    // -1 and 0 → ~0; -2 = ...1110: bit 0 differs from the sign → 31;
    // 0xFFFF: bit 15 is the highest set (sign 0) → 16
    assert_eq!(out[4..8], [u32::MAX, u32::MAX, 31, 16]);
    // INT_MIN = 1000...: bit 30 differs → 1; INT_MAX: bit 30 → 1
    assert_eq!(out[8..10], [1, 1]);
    // firstbit_lo counts from the LSB: 0 → ~0, 0x10000 → 16
    assert_eq!(out[10..12], [u32::MAX, 16]);
}

/// ubfe/ibfe (reference pages): width = src0 & 31, offset = src1 & 31;
/// width 0 → 0; width + offset < 32 → the field; otherwise src2 >> offset
/// (logical for ubfe, arithmetic for ibfe). bfi: width and offset masked,
/// bitmask = (((1 << width) - 1) << offset) & 0xFFFFFFFF,
/// dest = ((src2 << offset) & bitmask) | (src3 & ~bitmask).
#[test]
fn bitfield_extract_and_insert_follow_the_d3d_masking_rules() {
    let cb = [
        0x1234_5678,
        0xF000_0000,
        0x0000_0F80,
        0x8000_0000, //
        0xFFFF_FFFF,
        0xAB,
        0,
        0x5,
    ];
    let body = "\
ubfe r0.x, l(8), l(4), cb0[0].x
ubfe r0.y, l(0), l(4), cb0[0].x
ubfe r0.z, l(32), l(0), cb0[0].x
ubfe r0.w, l(8), l(28), cb0[0].y
ubfe r1.x, l(40), l(36), cb0[0].x
ibfe r1.y, l(8), l(4), cb0[0].z
ibfe r1.z, l(8), l(28), cb0[0].w
ibfe r1.w, l(0), l(0), cb0[0].w
bfi r2.x, l(8), l(4), cb0[1].y, cb0[1].x
bfi r2.y, l(32), l(4), cb0[1].y, cb0[1].x
bfi r2.z, l(8), l(28), l(255), cb0[1].z
bfi r2.w, l(4), l(36), cb0[1].w, cb0[1].z
store_raw u0.xyzw, l(0), r0.xyzw
store_raw u0.xyzw, l(16), r1.xyzw
store_raw u0.xyzw, l(32), r2.xyzw
";
    let out = run(body, &cb, 12);
    // (0x12345678 >> 4) & 0xFF = 0x67; width 0 → 0; width 32 & 31 = 0 → 0;
    // 8 + 28 >= 32 → 0xF0000000 >> 28 = 0xF
    assert_eq!(out[0..4], [0x67, 0, 0, 0xF]);
    // 40 & 31 = 8, 36 & 31 = 4 → 0x67; bits 4..11 of 0xF80 = 0xF8 → -8;
    // 8 + 28 >= 32 → 0x80000000 >> 28 arithmetic = 0xFFFFFFF8; width 0 → 0
    assert_eq!(out[4..8], [0x67, 0xFFFF_FFF8, 0xFFFF_FFF8, 0]);
    // mask 0xFF0: 0xAB0 | 0xFFFFF00F = 0xFFFFFABF; width 32 & 31 = 0 → mask
    // 0 → the base; mask = 0xFF << 28 cut to 32 bits = 0xF0000000 → 0xF0000000;
    // offset 36 & 31 = 4 → 0x5 << 4 = 0x50
    assert_eq!(out[8..12], [0xFFFF_FABF, 0xFFFF_FFFF, 0xF000_0000, 0x50]);
}

/// udiv (reference page): quotient and remainder; division by 0 gives
/// 0xFFFFFFFF in both; either destination may be null. imul/umul: high and
/// low 32 bits of the 64-bit product.
#[test]
fn udiv_imul_and_umul_write_either_destination() {
    let cb = [7, 0, 2, 0xFFFF_FFFF];
    let body = "\
udiv r0.x, r0.y, cb0[0].x, cb0[0].y
udiv r0.z, r0.w, cb0[0].x, cb0[0].z
udiv null, r1.x, cb0[0].x, cb0[0].z
udiv r1.y, null, cb0[0].x, cb0[0].y
imul r1.z, r1.w, cb0[0].w, cb0[0].z
umul r2.x, r2.y, cb0[0].w, cb0[0].z
mov r3.xy, l(7, 3, 0, 0)
udiv r3.x, r3.y, r3.x, r3.y
store_raw u0.xyzw, l(0), r0.xyzw
store_raw u0.xyzw, l(16), r1.xyzw
store_raw u0.xy, l(32), r2.xyxx
store_raw u0.xy, l(40), r3.xyxx
";
    let out = run(body, &cb, 12);
    // 7 / 0 → ~0, ~0; 7 / 2 → 3 remainder 1
    assert_eq!(out[0..4], [u32::MAX, u32::MAX, 3, 1]);
    // remainder only: 1; quotient only of 7 / 0: ~0;
    // signed -1 * 2 = -2 → high 0xFFFFFFFF, low 0xFFFFFFFE
    assert_eq!(out[4..8], [1, u32::MAX, 0xFFFF_FFFF, 0xFFFF_FFFE]);
    // unsigned 0xFFFFFFFF * 2 = 0x1_FFFFFFFE → high 1, low 0xFFFFFFFE
    assert_eq!(out[8..10], [1, 0xFFFF_FFFE]);
    // destinations that are also sources: 7 / 3 = 2 remainder 1
    assert_eq!(out[10..12], [2, 1]);
}

/// swapc (reference page): dst0 = src0 ? src2 : src1 and
/// dst1 = src0 ? src1 : src2, per component, any bit set is true.
/// movc: dest = src0 ? src1 : src2; 0xFFFFFFFF (a NaN) and 0x80000000
/// (-0.0) are true, only 0 is false.
#[test]
fn swapc_and_movc_test_any_bit() {
    let cb = [
        0,
        0xFFFF_FFFF,
        0x8000_0000,
        5, //
        10,
        11,
        12,
        13, //
        20,
        21,
        22,
        23,
    ];
    let body = "\
swapc r0.xyzw, r1.xyzw, cb0[0].xyzw, cb0[1].xyzw, cb0[2].xyzw
movc r2.xyzw, cb0[0].xyzw, cb0[1].xyzw, cb0[2].xyzw
mov r3.xyzw, cb0[1].xyzw
mov r4.xyzw, cb0[2].xyzw
swapc r3.xyzw, r4.xyzw, cb0[0].xyzw, r3.xyzw, r4.xyzw
store_raw u0.xyzw, l(0), r0.xyzw
store_raw u0.xyzw, l(16), r1.xyzw
store_raw u0.xyzw, l(32), r2.xyzw
store_raw u0.xyzw, l(48), r3.xyzw
store_raw u0.xyzw, l(64), r4.xyzw
";
    let out = run(body, &cb, 20);
    assert_eq!(out[0..4], [10, 21, 22, 23]);
    assert_eq!(out[4..8], [20, 11, 12, 13]);
    assert_eq!(out[8..12], [20, 11, 12, 13]);
    // the same with destinations that are its sources
    assert_eq!(out[12..16], [10, 21, 22, 23]);
    assert_eq!(out[16..20], [20, 11, 12, 13]);
}

/// sincos (reference page): dest sin and dest cos, either may be null;
/// sin(0) = 0, sin(-0) = -0, cos(0) = 1 exactly. A destination that is the
/// source must not change what the other result reads.
#[test]
fn sincos_with_null_destinations() {
    let cb = [0, 0x8000_0000, 0, 0];
    let body = "\
mov r0.xyzw, l(7, 7, 7, 7)
mov r1.xyzw, l(7, 7, 7, 7)
sincos null, r0.xy, cb0[0].xyxx
sincos r1.xy, null, cb0[0].xyxx
mov r2.x, l(0)
sincos r2.x, r2.y, r2.x
store_raw u0.xyzw, l(0), r0.xyzw
store_raw u0.xyzw, l(16), r1.xyzw
store_raw u0.xy, l(32), r2.xyxx
";
    let out = run(body, &cb, 10);
    assert_eq!(out[0..4], [f(1.0), f(1.0), 7, 7]);
    assert_eq!(out[4..8], [0, 0x8000_0000, 7, 7]);
    // cos read the source before sin overwrote it
    assert_eq!(out[8..10], [0, f(1.0)]);
}

/// uaddc/usubb (reference pages): sum/difference and a carry/borrow of 1
/// or 0. f32tof16 puts the half in the low 16 bits; f16tof32 converts the
/// low 16 bits.
#[test]
fn carry_borrow_and_half_conversions() {
    let cb = [
        0xFFFF_FFFF,
        1,
        3,
        5,
        f(1.0),
        f(-2.0),
        f(65504.0),
        f(1.0e6),
        0x3C00,
        0xFFFF_C000,
        0x7C00,
        0x0001,
    ];
    let body = "\
uaddc r0.xy, r0.zw, cb0[0].xzxz, cb0[0].yyyy
usubb r1.xy, r1.zw, cb0[0].zwzw, cb0[0].wzwz
f32tof16 r2.xyzw, cb0[1].xyzw
f16tof32 r3.xyzw, cb0[2].xyzw
store_raw u0.xyzw, l(0), r0.xyzw
store_raw u0.xyzw, l(16), r1.xyzw
store_raw u0.xyzw, l(32), r2.xyzw
store_raw u0.xyzw, l(48), r3.xyzw
";
    let out = run(body, &cb, 16);
    // each destination component c comes from source component c:
    // x: ~0 + 1 = 0, y: 3 + 1 = 4; the carries of z (= x) and w (= y): 1, 0
    assert_eq!(out[0..4], [0, 4, 1, 0]);
    // x: 3 - 5 = -2, y: 5 - 3 = 2; the borrows of z (3 < 5) and w (5 < 3): 1, 0
    assert_eq!(out[4..8], [0xFFFF_FFFE, 2, 1, 0]);
    // 1.0 → 0x3C00, -2.0 → 0xC000, 65504 (largest half) → 0x7BFF,
    // 1e6 overflows to +INF 0x7C00
    assert_eq!(out[8..12], [0x3C00, 0xC000, 0x7BFF, 0x7C00]);
    // 0x3C00 → 1.0; only the low half of 0xFFFFC000 counts → -2.0;
    // 0x7C00 → +INF; 0x0001 → the smallest half subnormal 2^-24
    assert_eq!(
        out[12..16],
        [f(1.0), f(-2.0), f(f32::INFINITY), f(2f32.powi(-24))]
    );
}

/// Double compares and dtof write the result of slot 0 to the first
/// enabled component and of slot 1 to the second (through a scratch
/// register: the TGSI opcodes write x/z and x/y); ftod fills .xy from the
/// first source component and .zw from the second.
#[test]
fn double_compares_and_conversions_remap_slots() {
    let [a0l, a0h] = split(1.5f64.to_bits());
    let [a1l, a1h] = split(f64::NAN.to_bits());
    let cb = [a0l, a0h, a1l, a1h, f(0.25), f(-3.0), 0, 0];
    let body = "\
mov r0.xyzw, l(9, 9, 9, 9)
deq r0.z, cb0[0].xyxy, cb0[0].xyxy
dne r0.yw, cb0[0].xyzw, cb0[0].xyzw
dtof r1.zw, cb0[0].xyzw
ftod r2.xyzw, cb0[1].xyxx
store_raw u0.xyzw, l(0), r0.xyzw
store_raw u0.zw, l(16), r1.xxzw
store_raw u0.xyzw, l(32), r2.xyzw
";
    let out = run(body, &cb, 12);
    // deq r0.z from slot 0 (1.5 == 1.5); dne r0.y from slot 0 (false),
    // r0.w from slot 1 (NaN != NaN is true)
    assert_eq!(out[0..4], [9, 0, u32::MAX, u32::MAX]);
    // dtof: z ← 1.5, w ← NaN
    assert_eq!(out[6], f(1.5));
    assert!(f32::from_bits(out[7]).is_nan());
    let [l0, h0] = split(0.25f64.to_bits());
    let [l1, h1] = split((-3.0f64).to_bits());
    assert_eq!(out[8..12], [l0, h0, l1, h1]);
}

/// Control flow with integer tests: if_z / breakc_nz / continuec / switch
/// with an empty case falling through / retc; and a subroutine.
#[test]
fn control_flow_uses_integer_tests() {
    let cb = [0x8000_0000, 0, 3, 0];
    let body = "\
mov r0.xyzw, l(0, 0, 0, 0)
if_z cb0[0].y
  mov r0.x, l(1)
endif
if_z cb0[0].x
  mov r0.x, l(2)
else
  iadd r0.x, r0.x, l(10)
endif
mov r1.x, l(0)
loop
  uge r1.y, r1.x, cb0[0].z
  breakc_nz r1.y
  iadd r1.x, r1.x, l(1)
  ieq r1.z, r1.x, l(2)
  continuec_nz r1.z
  iadd r0.y, r0.y, l(100)
endloop
switch cb0[0].z
  case l(2)
  case l(3)
  mov r0.z, l(23)
  break
  default
  mov r0.z, l(99)
  break
endswitch
call l0
store_raw u0.xyzw, l(0), r0.xyzw
retc_nz cb0[0].x
store_raw u0.x, l(0), l(5)
ret
label l0
mov r0.w, l(77)
ret
";
    let text_body = body.trim_end_matches("ret\n");
    let out = run(text_body, &cb, 4);
    // if_z 0 → taken (1); if_z 0x80000000 → not taken (any bit set) → 11;
    // the loop counts 1..3 and skips the add at 2 → 200; case 3 shares
    // case 2's body; the subroutine writes 77; retc_nz leaves before the
    // second store
    assert_eq!(out, vec![11, 200, 23, 77]);
}

/// Switch bodies as fxc writes them, lowered and run for every selector:
/// a body ending in `if ... break ... else ... break ... endif`, a nested
/// switch whose case ends in an `if` that breaks (its other lanes fall
/// through into the inner default, as in C), a `breakc` that lets the
/// code fall through into `default`, and a `retc` ending a body.
#[test]
fn switch_bodies_fall_through_where_reachable() {
    let body = "\
mov r0.x, l(0)
switch cb0[0].x
  case l(0)
  if_nz cb0[0].y
    iadd r0.x, r0.x, l(1)
    break
  else
    iadd r0.x, r0.x, l(2)
    break
  endif
  case l(1)
  switch cb0[0].y
    case l(1)
    iadd r0.x, r0.x, l(20)
    if_z cb0[0].z
      break
    endif
    default
    iadd r0.x, r0.x, l(30)
    break
  endswitch
  iadd r0.x, r0.x, l(300)
  break
  case l(2)
  iadd r0.x, r0.x, l(100)
  breakc_z cb0[0].z
  default
  iadd r0.x, r0.x, l(1000)
  break
  case l(3)
  store_raw u0.x, l(0), l(7)
  retc_nz cb0[0].z
  case l(4)
  iadd r0.x, r0.x, l(40000)
  break
endswitch
store_raw u0.x, l(0), r0.x
";
    // (selector, y, z) -> r0.x, derived case by case from the C semantics
    let cases: [([u32; 3], u32); 10] = [
        ([0, 1, 0], 1),
        ([0, 0, 0], 2),
        ([1, 1, 0], 320),
        ([1, 1, 1], 350),
        ([1, 5, 0], 330),
        ([2, 0, 0], 100),
        ([2, 0, 1], 1100),
        ([9, 0, 0], 1000),
        ([3, 0, 1], 7),
        ([3, 0, 0], 40000),
    ];
    for ([x, y, z], want) in cases {
        let out = run(body, &[x, y, z, 0], 1);
        assert_eq!(out, vec![want], "selector {x}, y {y}, z {z}");
    }
}

/// The immediate constant buffer and indexable temps with relative
/// indices.
#[test]
fn relative_indexing_into_icb_and_indexable_temps() {
    let cb = [2, 1, 0, 0];
    let body = "\
dcl_immediateConstantBuffer { { 10, 11, 12, 13},
                              { 20, 21, 22, 23},
                              { 30, 31, 32, 33} }
dcl_indexableTemp x0[4], 4
mov x0[0].xyzw, l(0, 1, 2, 3)
mov x0[1].xyzw, l(4, 5, 6, 7)
mov x0[2].xyzw, l(8, 9, 10, 11)
mov r0.x, cb0[0].x
mov r1.xyzw, icb[r0.x + 0].xyzw
mov r0.y, cb0[0].y
mov r2.xyzw, x0[r0.y + 1].wzyx
mov x0[r0.y + 0].x, l(99)
mov r3.x, x0[1].x
store_raw u0.xyzw, l(0), r1.xyzw
store_raw u0.xyzw, l(16), r2.xyzw
store_raw u0.x, l(32), r3.x
";
    let out = run(body, &cb, 9);
    assert_eq!(out[0..4], [30, 31, 32, 33]);
    assert_eq!(out[4..8], [11, 10, 9, 8]);
    assert_eq!(out[8], 99);
}

/// Structured and raw buffer addressing, shared memory regions, atomics
/// returning the old value, and the UAV counter of append buffers.
#[test]
fn structured_addresses_shared_memory_atomics_and_counters() {
    let body = "\
dcl_uav_structured u1, 12
dcl_tgsm_raw g0, 16
dcl_tgsm_structured g1, 8, 2
store_structured u1.xyz, l(2), l(4), l(7, 8, 9, 0)
ld_structured r0.xyzw, l(2), l(0), u1.zyxw
store_raw g0.x, l(0), l(5)
store_structured g1.xy, l(1), l(0), l(6, 7, 0, 0)
ld_raw r1.x, l(0), g0.xxxx
ld_structured r1.yz, l(1), l(0), g1.xxyx
imm_atomic_iadd r1.w, u1, l(2, 4, 0, 0), l(10)
imm_atomic_alloc r2.x, u1
imm_atomic_alloc r2.y, u1
imm_atomic_consume r2.z, u1
ld_structured r2.w, l(2), l(4), u1.xxxx
store_raw u0.xyzw, l(0), r0.xyzw
store_raw u0.xyzw, l(16), r1.xyzw
store_raw u0.xyzw, l(32), r2.xyzw
";
    // u1 (structured, stride 12) is BUFFER[1]; its counter another BUFFER
    let text = format!(
        "cs_5_0\ndcl_globalFlags refactoringAllowed\ndcl_uav_raw u0\ndcl_temps 8\n\
         dcl_thread_group 1, 1, 1\n{body}ret \n"
    );
    let (program, _) =
        crate::parse_program(&text).unwrap_or_else(|d| panic!("{}", d.render("test.asm", &text)));
    let lowered = lower(&program, &Signatures::from_declarations(&program)).unwrap();
    let counter = lowered
        .bindings
        .iter()
        .find(|b| matches!(b.slot, D3dSlot::UavCounter { register: 1, .. }))
        .expect("a counter binding")
        .index as usize;
    let machine = Machine::compile(&lowered.shader).unwrap();
    let mut res = Resources {
        buffers: vec![vec![0u8; 64]; counter + 1],
        ..Resources::default()
    };
    res.buffers[1] = vec![0u8; 48];
    res.buffers[counter] = 5u32.to_le_bytes().to_vec();
    machine
        .dispatch(&mut res, [1, 1, 1], &Limits::default())
        .unwrap();
    let w = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    let out: Vec<u32> = (0..12).map(|i| w(&res.buffers[0], i)).collect();
    // element 2 at 2 * 12 + 4 = byte 28: words 7, 8, 9 land at dwords 7..9;
    // ld_structured from offset 0 of element 2 (dword 6) reads (0, 7, 8, 9),
    // swizzled .zyxw → (8, 7, 0, 9)
    assert_eq!(out[0..4], [8, 7, 0, 9]);
    // g0 and g1 are separate regions; the atomic returns the old 7
    assert_eq!(out[4..8], [5, 6, 7, 7]);
    // the counter starts at 5: alloc returns 5 then 6 (count 7);
    // consume returns the count after the decrement, 6; the add made 17
    assert_eq!(out[8..12], [5, 6, 6, 17]);
    assert_eq!(w(&res.buffers[counter], 0), 6);
}

/// A structured address with a power-of-two stride and a literal 0
/// offset is a shift, another one a multiply-add, one of two literals an
/// immediate; an address computed again into the same register with
/// nothing changed between is computed once; the loads read the same words.
#[test]
fn structured_addresses_are_shifts_where_they_can_and_computed_once() {
    let text = "cs_5_0\ndcl_globalFlags refactoringAllowed\ndcl_uav_raw u0\n\
        dcl_uav_structured u1, 4\ndcl_uav_structured u2, 12\ndcl_temps 2\n\
        dcl_thread_group 1, 1, 1\n\
        mov r1.x, l(1)\n\
        ld_structured r0.x, r1.x, l(0), u1.xxxx\n\
        ld_structured r0.y, r1.x, l(0), u1.xxxx\n\
        ld_structured r0.z, r1.x, l(4), u2.xxxx\n\
        ld_structured r0.w, l(2), l(4), u1.xxxx\n\
        store_raw u0.xyzw, l(0), r0.xyzw\nret \n";
    let (program, _) = crate::parse_program(text).unwrap();
    let lowered = lower(&program, &Signatures::from_declarations(&program)).unwrap();
    let tgsi = lowered.to_text(&program);
    let count = |op: &str| tgsi.lines().filter(|l| l.contains(op)).count();
    // one SHL for the two identical u1 loads, a UMAD for stride 12 with
    // the offset 4, nothing for element 2 + 4 bytes (the immediate 12)
    assert_eq!((count(": SHL "), count(": UMAD ")), (1, 1), "{tgsi}");
    assert_eq!(lowered.origins.len(), count(": "), "{tgsi}");
    let machine = Machine::compile(&lowered.shader).unwrap();
    let words = |n: u32| {
        (0..n)
            .flat_map(|w| (100 + w).to_le_bytes())
            .collect::<Vec<u8>>()
    };
    let mut res = Resources {
        buffers: vec![vec![0u8; 16], words(4), words(12)],
        ..Resources::default()
    };
    machine
        .dispatch(&mut res, [1, 1, 1], &Limits::default())
        .unwrap();
    let w = |i: usize| u32::from_le_bytes(res.buffers[0][4 * i..4 * i + 4].try_into().unwrap());
    // u1 element 1 = word 1; u2 element 1 + 4 bytes = word 4; u1 element 2
    // + 4 bytes = word 3
    assert_eq!([w(0), w(1), w(2), w(3)], [101, 101, 104, 103]);
}

/// The structured address of a thread ID is shifted into a register of its
/// own, and a shift an earlier one dominates (before a loop, before an
/// if) is dropped; one inside an if does not serve what follows the if.
#[test]
fn system_value_addresses_are_shifted_once_where_an_earlier_shift_dominates() {
    let text = "cs_5_0\ndcl_uav_raw u0\ndcl_uav_structured u1, 4\n\
        dcl_input vThreadIDInGroup.x\ndcl_temps 2\ndcl_thread_group 2, 1, 1\n\
        mov r0.x, l(7)\n\
        if_z vThreadIDInGroup.x\n\
        ld_structured r0.x, vThreadIDInGroup.x, l(0), u1.xxxx\n\
        endif\n\
        ld_structured r0.y, vThreadIDInGroup.x, l(0), u1.xxxx\n\
        loop\n\
        ld_structured r0.z, vThreadIDInGroup.x, l(0), u1.xxxx\n\
        break\n\
        endloop\n\
        ld_structured r0.w, vThreadIDInGroup.x, l(0), u1.xxxx\n\
        ishl r1.x, vThreadIDInGroup.x, l(4)\n\
        store_raw u0.xyzw, r1.x, r0.xyzw\nret \n";
    let (program, _) = crate::parse_program(text).unwrap();
    let lowered = lower(&program, &Signatures::from_declarations(&program)).unwrap();
    let tgsi = lowered.to_text(&program);
    // (instruction lines: "n: OPCODE ...", indented by nesting)
    let shifts: Vec<&str> = tgsi
        .lines()
        .filter_map(|l| l.split_once(": ").map(|(_, op)| op.trim_start()))
        .filter(|op| op.starts_with("SHL "))
        .collect();
    // the address shifts (by 2): the one in the if, the one after it; the
    // loop's and the last one are dropped; the ishl (by 4) stays
    assert_eq!(shifts.len(), 3, "{tgsi}");
    assert_eq!(shifts[0], shifts[1], "{tgsi}");
    assert_ne!(shifts[1], shifts[2], "{tgsi}");
    assert_eq!(
        lowered.origins.len(),
        tgsi.lines().filter(|l| l.contains(": ")).count()
    );
    let machine = Machine::compile(&lowered.shader).unwrap();
    let mut res = Resources {
        buffers: vec![
            vec![0u8; 32],
            (0..2u32).flat_map(|w| (100 + w).to_le_bytes()).collect(),
        ],
        ..Resources::default()
    };
    machine
        .dispatch(&mut res, [1, 1, 1], &Limits::default())
        .unwrap();
    let w = |i: usize| u32::from_le_bytes(res.buffers[0][4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(
        (0..8).map(w).collect::<Vec<_>>(),
        [100, 100, 100, 100, 7, 101, 101, 101]
    );
}

#[test]
fn errors_name_the_instruction() {
    let text = "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nmov r3.x, l(0)\nret \n";
    let (program, _) = crate::parse_program(text).unwrap();
    let e = lower(&program, &Signatures::default()).unwrap_err();
    assert_eq!(e.instruction, Some(2));
    assert!(e.message.contains("r3"), "{e}");
    assert!(e.to_string().contains("mov r3.x"), "{e}");
}

#[test]
fn the_text_carries_the_d3d_instructions_as_comments() {
    let text = "vs_4_0\ndcl_input v0.xyzw\ndcl_output_siv o0.xyzw, position\nrsq o0.xy, v0.xyxx\nmov o0.zw, v0.zzzw\nret \n";
    let (program, _) = crate::parse_program(text).unwrap();
    let l = lower(&program, &Signatures::from_declarations(&program)).unwrap();
    let out = l.to_text(&program);
    assert!(out.contains("; rsq o0.xy, v0.xyxx\n"), "{out}");
    assert!(out.contains("RSQ OUT[0].x, IN[0].xxxx"), "{out}");
    assert!(out.contains("RSQ OUT[0].y, IN[0].yyyy"), "{out}");
    // dcl_input 0, dcl_output_siv 1, rsq 2, mov 3, ret 4
    assert_eq!(l.origins, vec![2, 2, 3, 4]);
    let (shader, _) = tgsi_text::assemble(&out).unwrap();
    assert_eq!(shader, l.shader);
}

/// docs/d3d-lowering.md has one row for every opcode of the D3D table.
#[test]
fn the_lowering_document_covers_every_opcode() {
    let doc = include_str!("../../../../docs/d3d-lowering.md");
    for info in crate::opcode::OPCODES.iter() {
        if info.flags.contains(crate::opcode::OpFlags::RESERVED) {
            continue;
        }
        let row = format!("| `{}` |", info.name);
        assert!(doc.contains(&row), "no row for {}", info.name);
    }
}

/// Lowers SM text (a whole program) and compiles it for the machine.
fn machine_for(text: &str) -> (Lowered, Machine) {
    let (program, _) =
        crate::parse_program(text).unwrap_or_else(|d| panic!("{}", d.render("test.asm", text)));
    let lowered =
        lower(&program, &Signatures::from_declarations(&program)).unwrap_or_else(|e| panic!("{e}"));
    let diags = tgsi_ir::validate::validate(&lowered.shader, None);
    assert!(!diags.has_errors(), "{}", diags.render("lowered", ""));
    let machine = Machine::compile(&lowered.shader).unwrap();
    (lowered, machine)
}

/// vThreadID = group id × group size + thread id in the group;
/// vThreadIDInGroupFlattened = z·sx·sy + y·sx + x.
#[test]
fn compute_thread_ids_are_computed_from_the_group_size() {
    let text = "cs_5_0\ndcl_globalFlags refactoringAllowed\ndcl_uav_raw u0\n\
        dcl_input vThreadGroupID.x\ndcl_input vThreadIDInGroupFlattened\ndcl_input vThreadID.xy\n\
        dcl_temps 2\ndcl_thread_group 4, 2, 1\n\
        imad r0.x, vThreadGroupID.x, l(8), vThreadIDInGroupFlattened.x\n\
        ishl r0.x, r0.x, l(3)\n\
        mov r1.xy, vThreadID.xyxx\n\
        store_raw u0.xy, r0.x, r1.xyxx\nret \n";
    let (_, machine) = machine_for(text);
    let mut res = Resources {
        buffers: vec![vec![0u8; 16 * 8]],
        ..Resources::default()
    };
    machine
        .dispatch(&mut res, [2, 1, 1], &Limits::default())
        .unwrap();
    let w = |i: usize| u32::from_le_bytes(res.buffers[0][4 * i..4 * i + 4].try_into().unwrap());
    // thread (x, y) of group g sits at g·8 + y·4 + x and has
    // vThreadID = (g·4 + x, y)
    for g in 0..2u32 {
        for y in 0..2u32 {
            for x in 0..4u32 {
                let slot = (g * 8 + y * 4 + x) as usize;
                assert_eq!(
                    (w(2 * slot), w(2 * slot + 1)),
                    (g * 4 + x, y),
                    "g {g} y {y} x {x}"
                );
            }
        }
    }
}

/// SV_IsFrontFace is ~0 for front faces and 0 for back faces (TGSI's FACE
/// is +1.0 / -1.0); oDepth lands in the POSITION output's z.
#[test]
fn front_face_is_an_integer_boolean_and_depth_is_flushed() {
    let text = "ps_5_0\ndcl_globalFlags refactoringAllowed\n\
        dcl_input_ps_sgv constant v0.x, is_front_face\ndcl_output o0.xyzw\ndcl_output oDepth\n\
        mov o0.xyzw, v0.xxxx\nmov oDepth, l(0.250000)\nret \n";
    let (lowered, machine) = machine_for(text);
    let tgsi = tgsi_text::print(&lowered.shader);
    assert!(tgsi.contains("FACE, CONSTANT"), "{tgsi}");
    assert!(tgsi.contains("POSITION"), "{tgsi}");
    for (front, want) in [(true, u32::MAX), (false, 0)] {
        let mut draw = tgsi_exec::Draw::full_quad(2, 2);
        draw.front_face = front;
        let (colors, _) = machine
            .shade(&mut Resources::default(), &draw, 1, &Limits::default())
            .unwrap();
        assert!(colors[0].iter().all(|p| *p == [want; 4]), "{colors:?}");
    }
    let depth = lowered
        .outputs
        .iter()
        .find(|o| o.d3d_file == crate::enums::RegisterFile::OutputDepth)
        .expect("oDepth mapped");
    assert_eq!(
        (depth.file, depth.component),
        (tgsi_ir::enums::File::Output, 2)
    );
}

/// The signature tables of a listing header read back as the container's.
#[test]
fn listing_headers_give_the_container_signatures() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/d3d/dxdecompiler/3Dmigoto/"
    );
    for name in ["hull", "signatures_ps_0", "signatures_gs"] {
        let text = std::fs::read_to_string(format!("{dir}{name}.asm")).unwrap();
        let blob = std::fs::read(format!("{dir}{name}.o")).unwrap();
        let container = crate::container::Container::parse(&blob).unwrap();
        let want = Signatures::from_container(&container).unwrap();
        let parsed = crate::parse_listing(&text).unwrap();
        let header = &text[parsed[0].header.start..parsed[0].header.end];
        let got = Signatures::from_listing_header(header, parsed[0].program.version.program_type)
            .expect("tables");
        let key = |v: &[SignatureElement]| -> Vec<(String, u32, u32, u8)> {
            v.iter()
                .map(|e| {
                    (
                        e.semantic_name.clone(),
                        e.semantic_index,
                        e.register,
                        e.mask,
                    )
                })
                .collect()
        };
        assert_eq!(key(&got.inputs), key(&want.inputs), "{name}");
        assert_eq!(key(&got.outputs), key(&want.outputs), "{name}");
        assert_eq!(
            key(&got.patch_constants),
            key(&want.patch_constants),
            "{name}"
        );
    }
}

/// resinfo (reference page): (width, height, depth or array size, mip
/// count) of the mip in src0, float by default, `_uint` as integers,
/// `_rcpFloat` with 1/size for the sizes; the resource swizzle applies
/// before the mask; a mip out of range gives sizes 0 and the mip count.
/// bufinfo: structures of a structured buffer. ld out of range: 0.
#[test]
fn resource_queries_and_loads() {
    let text = "cs_5_0\ndcl_globalFlags refactoringAllowed\n\
        dcl_resource_texture2d (float,float,float,float) t0\n\
        dcl_resource_structured t1, 12\n\
        dcl_uav_raw u0\ndcl_temps 6\ndcl_thread_group 1, 1, 1\n\
        resinfo_indexable(texture2d)(float,float,float,float) r0.xyzw, l(0), t0.xyzw\n\
        resinfo_indexable(texture2d)(float,float,float,float)_uint r1.xyzw, l(1), t0.wzyx\n\
        resinfo_indexable(texture2d)(float,float,float,float)_rcpFloat r2.xyzw, l(0), t0.xyzw\n\
        resinfo_indexable(texture2d)(float,float,float,float)_uint r3.xyzw, l(9), t0.xyzw\n\
        bufinfo r4.x, t1.xxxx\n\
        ld_indexable(texture2d)(float,float,float,float) r5.xyzw, l(8, 0, 0, 0), t0.xyzw\n\
        store_raw u0.xyzw, l(0), r0.xyzw\nstore_raw u0.xyzw, l(16), r1.xyzw\n\
        store_raw u0.xyzw, l(32), r2.xyzw\nstore_raw u0.xyzw, l(48), r3.xyzw\n\
        store_raw u0.x, l(64), r4.x\nstore_raw u0.xyzw, l(68), r5.xyzw\nret \n";
    let (lowered, machine) = machine_for(text);
    let t1 = lowered
        .bindings
        .iter()
        .find(|b| matches!(b.slot, D3dSlot::Texture { register: 1, .. }))
        .unwrap()
        .index as usize;
    let mut tex = tgsi_exec::texture::Texture::new(
        tgsi_ir::enums::TextureTarget::Tex2D,
        tgsi_exec::texture::Format::Rgba32Float,
        [8, 4, 1],
        1,
        4,
        1,
    )
    .unwrap();
    for level in &mut tex.levels {
        level.fill(0x3F);
    }
    let mut res = Resources {
        buffers: vec![vec![0u8; 128]; t1 + 1],
        textures: vec![Some(tex)],
        ..Resources::default()
    };
    res.buffers[t1] = vec![0u8; 12 * 5];
    machine
        .dispatch(&mut res, [1, 1, 1], &Limits::default())
        .unwrap();
    let w = |i: usize| u32::from_le_bytes(res.buffers[0][4 * i..4 * i + 4].try_into().unwrap());
    // 8x4, 4 mips: (8, 4, 0, 4) as floats
    assert_eq!([w(0), w(1), w(2), w(3)], [f(8.0), f(4.0), 0, f(4.0)]);
    // mip 1 is 4x2, swizzled .wzyx: (4 mips, 0, 2, 4)
    assert_eq!([w(4), w(5), w(6), w(7)], [4, 0, 2, 4]);
    // 1/8, 1/4; z is not a size of a 2D texture (set to 0, not inverted:
    // "nor to values set to 0 and thus not returned"); the mip count stays
    assert_eq!([w(8), w(9), w(10), w(11)], [f(0.125), f(0.25), 0, f(4.0)]);
    // mip 9 does not exist: sizes 0, still 4 mips
    assert_eq!([w(12), w(13), w(14), w(15)], [0, 0, 0, 4]);
    // 60 bytes / 12-byte structures = 5
    assert_eq!(w(16), 5);
    // x = 8 is beyond the 8-texel width: all four components 0
    assert_eq!([w(17), w(18), w(19), w(20)], [0, 0, 0, 0]);
}

/// Sampling: `_aoffimmi` offsets are texel offsets; the resource swizzle
/// permutes the fetched vector; gather4 returns (i0, j1), (i1, j1),
/// (i1, j0), (i0, j0) of the bilinear footprint; gather4_c compares the
/// reference with each (`reference LESS texel` here) through TG4 on the
/// combined slot.
#[test]
fn sampling_offsets_swizzles_and_gathers() {
    let text = "cs_5_0\ndcl_globalFlags refactoringAllowed\n\
        dcl_sampler s0, mode_default\ndcl_sampler s1, mode_comparison\n\
        dcl_resource_texture2d (float,float,float,float) t0\n\
        dcl_uav_raw u0\ndcl_temps 4\ndcl_thread_group 1, 1, 1\n\
        sample_l_aoffimmi_indexable(1,0,0)(texture2d)(float,float,float,float) r0.xyzw, l(0.375, 0.625, 0, 0), t0.yxzw, s0, l(0)\n\
        ld_aoffimmi_indexable(0,1,0)(texture2d)(float,float,float,float) r1.xyzw, l(1, 1, 0, 0), t0.xyzw\n\
        gather4_indexable(texture2d)(float,float,float,float) r2.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0.x\n\
        gather4_c_indexable(texture2d)(float,float,float,float) r3.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s1.x, l(15.0)\n\
        store_raw u0.xyzw, l(0), r0.xyzw\nstore_raw u0.xyzw, l(16), r1.xyzw\n\
        store_raw u0.xyzw, l(32), r2.xyzw\nstore_raw u0.xyzw, l(48), r3.xyzw\nret \n";
    let (lowered, machine) = machine_for(text);
    let combined = lowered
        .bindings
        .iter()
        .find(|b| {
            matches!(
                b.slot,
                D3dSlot::TextureWithSampler {
                    texture: 0,
                    sampler: 1
                }
            )
        })
        .expect("a combined slot")
        .index as usize;
    // texel (x, y) = (x + 10 y, 100 + x, 0, 1)
    let mut tex = tgsi_exec::texture::Texture::new(
        tgsi_ir::enums::TextureTarget::Tex2D,
        tgsi_exec::texture::Format::Rgba32Float,
        [4, 4, 1],
        1,
        1,
        1,
    )
    .unwrap();
    for y in 0..4u32 {
        for x in 0..4u32 {
            let texel = [(x + 10 * y) as f32, (100 + x) as f32, 0.0, 1.0];
            let at = ((y * 4 + x) * 16) as usize;
            for (k, v) in texel.iter().enumerate() {
                tex.levels[0][at + 4 * k..at + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    let compare = tgsi_exec::texture::Sampler {
        compare: Some(tgsi_exec::texture::CompareFunc::Less),
        ..Default::default()
    };
    let mut textures = vec![None; combined + 1];
    textures[0] = Some(tex.clone());
    textures[combined] = Some(tex);
    let mut samplers = vec![tgsi_exec::texture::Sampler::default(); combined + 1];
    samplers[combined] = compare;
    samplers[1] = compare;
    let mut res = Resources {
        buffers: vec![vec![0u8; 64]],
        textures,
        samplers,
        ..Resources::default()
    };
    machine
        .dispatch(&mut res, [1, 1, 1], &Limits::default())
        .unwrap();
    let w = |i: usize| {
        f32::from_bits(u32::from_le_bytes(
            res.buffers[0][4 * i..4 * i + 4].try_into().unwrap(),
        ))
    };
    // (0.375, 0.625) on 4x4 is texel (1, 2); offset (1, 0) → (2, 2) =
    // (22, 102, 0, 1); the swizzle .yxzw puts 102 first
    assert_eq!([w(0), w(1), w(2), w(3)], [102.0, 22.0, 0.0, 1.0]);
    // ld (1, 1) with offset (0, 1) → texel (1, 2)
    assert_eq!([w(4), w(5), w(6), w(7)], [21.0, 101.0, 0.0, 1.0]);
    // footprint at (0.5, 0.5): i0 = j0 = 1, i1 = j1 = 2 → red of
    // (1, 2), (2, 2), (2, 1), (1, 1)
    assert_eq!([w(8), w(9), w(10), w(11)], [21.0, 22.0, 12.0, 11.0]);
    // 15 < 21, 15 < 22, 15 < 12, 15 < 11
    assert_eq!([w(12), w(13), w(14), w(15)], [1.0, 1.0, 0.0, 0.0]);
}

/// fcall: the interface slot's selector (row k of the interface constant
/// buffer, x) picks the function table; the call site picks the body.
#[test]
fn interface_calls_switch_over_the_function_tables() {
    let text = "cs_5_0\ndcl_globalFlags refactoringAllowed\n\
        dcl_function_body fb0\ndcl_function_body fb1\ndcl_function_body fb2\ndcl_function_body fb3\n\
        dcl_function_table ft0 = {fb0, fb1}\ndcl_function_table ft1 = {fb2, fb3}\n\
        dcl_interface fp0[1][2] = {ft0, ft1}\n\
        dcl_uav_raw u0\ndcl_temps 2\ndcl_thread_group 1, 1, 1\n\
        mov r0.xy, l(0, 0, 0, 0)\nfcall fp0[0][0]\nfcall fp0[0][1]\n\
        store_raw u0.xy, l(0), r0.xyxx\nret \n\
        label fb0\nmov r0.x, l(10)\nret \nlabel fb1\nmov r0.y, l(11)\nret \n\
        label fb2\nmov r0.x, l(20)\nret \nlabel fb3\nmov r0.y, l(21)\nret \n";
    let (lowered, machine) = machine_for(text);
    let b = lowered
        .bindings
        .iter()
        .find(|b| matches!(b.slot, D3dSlot::Interfaces { slots: 1 }))
        .expect("an interface binding");
    for (selector, want) in [(0u32, [10u32, 11]), (1, [20, 21])] {
        let mut constants = vec![Vec::new(); b.index as usize + 1];
        constants[b.index as usize] = vec![selector, 0, 0, 0, 0, 0, 0, 0];
        let mut res = Resources {
            constants,
            buffers: vec![vec![0u8; 8]],
            ..Resources::default()
        };
        machine
            .dispatch(&mut res, [1, 1, 1], &Limits::default())
            .unwrap();
        let w = |i: usize| u32::from_le_bytes(res.buffers[0][4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!([w(0), w(1)], want, "selector {selector}");
    }
}

/// msad: per component, accum + Σ over the four bytes of |ref - src|,
/// skipping the bytes where the reference is 0. The msad4 reference page
/// works this example: reference 0xA100B2C3 against source 0xD7B0C372 with
/// accum 1 gives 1 + |0xD7-0xA1| + 0 (the 0x00 byte is masked) +
/// |0xC3-0xB2| + |0x72-0xC3| = 1 + 54 + 0 + 17 + 81 = 153; against
/// 0xA3D7B0C3 with accum 2 it gives 2 + 2 + 0 + 2 + 0 = 6.
#[test]
fn msad_skips_the_zero_reference_bytes() {
    let cb = [0xA100_B2C3, 0xD7B0_C372, 0xA3D7_B0C3, 0, 1, 2, 0, 0];
    let body = "\
msad r0.xy, cb0[0].xxxx, cb0[0].yzyy, cb0[1].xyxx
store_raw u0.xy, l(0), r0.xyxx
";
    assert_eq!(run(body, &cb, 2), vec![153, 6]);
}

#[test]
fn hull_declarations_map_to_tessellator_settings() {
    use crate::enums::{TessellatorDomain, TessellatorOutputPrimitive, TessellatorPartitioning};
    use tgsi_ir::tess::{Domain, OutputPrimitive, Partitioning, Settings};
    let hull = Tessellator {
        domain: Some(TessellatorDomain::Quad),
        partitioning: Some(TessellatorPartitioning::FractionalOdd),
        output_primitive: Some(TessellatorOutputPrimitive::TriangleCcw),
        max_tessfactor: None,
        input_control_points: 4,
        output_control_points: 4,
    };
    assert_eq!(
        hull.settings(),
        Ok(Settings::new(
            Domain::Quad,
            Partitioning::FractionalOdd,
            OutputPrimitive::TriangleCcw
        ))
    );
    let undefined = [
        (
            Tessellator {
                domain: Some(TessellatorDomain::Undefined),
                ..hull
            },
            "domain",
        ),
        (
            Tessellator {
                partitioning: None,
                ..hull
            },
            "partitioning",
        ),
        (
            Tessellator {
                output_primitive: Some(TessellatorOutputPrimitive::Undefined),
                ..hull
            },
            "output primitive",
        ),
    ];
    for (t, what) in undefined {
        assert_eq!(
            t.settings(),
            Err(format!("the tessellator {what} is undefined"))
        );
    }
}
