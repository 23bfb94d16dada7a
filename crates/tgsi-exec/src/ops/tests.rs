//! Tests of the semantic functions: values worked out by hand, the NaN
//! rule, and properties over random inputs.

/// The NaN rule: the first NaN operand (quieted), else the default NaN;
/// the same in both operand orders' own terms, and for doubles.
#[test]
fn nan_results_follow_operand_order() {
    let (qa, qb, sa) = (0x7fc0_0001u32, 0xffc0_0002u32, 0x7f80_0003u32);
    assert_eq!(add(qa, qb), qa);
    assert_eq!(add(qb, qa), qb);
    assert_eq!(mul(sa, qb), sa | 0x0040_0000);
    assert_eq!(mul(F32_ONE, sa), sa | 0x0040_0000);
    assert_eq!(add(0x7f80_0000, 0xff80_0000), DEFAULT_NAN_F32); // inf - inf
    assert_eq!(mul(0, 0x7f80_0000), DEFAULT_NAN_F32); // 0 * inf
    assert_eq!(sqrt(F32_MINUS_ONE), DEFAULT_NAN_F32);
    // MAD: the product's NaN first, then c's
    assert_eq!(mad(F32_ONE, qb, qa), qb);
    assert_eq!(mad(F32_ONE, F32_ONE, qa), qa);
    // DP4 sums its products in order x, y, z, w
    let a = [F32_ONE, qa, sa, 0x4000_0000];
    let b = [qb, 0xffc0_0000, F32_ONE, 0xffa0_0000];
    assert_eq!(dp4(a, b), qb);
    assert_eq!(
        dp4([a[3], a[2], a[1], a[0]], [b[3], b[2], b[1], b[0]]),
        0xffe0_0000
    );
    let (da, db_) = (0x7ff8_0000_0000_0001u64, 0xfff8_0000_0000_0002u64);
    assert_eq!(dadd(da, db_), da);
    assert_eq!(dmul(db_, da), db_);
    assert_eq!(
        dadd(0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000),
        DEFAULT_NAN_F64
    );
    assert_eq!(f2d(0xffa0_0001), 0xfffc_0000_2000_0000);
    assert_eq!(d2f(0xfff4_0000_2000_0000), 0xffe0_0001);
}
#[test]
fn halves_toward_zero_saturate_and_keep_specials() {
    let h = |f: f32| f32_to_half_toward_zero(f.to_bits());
    assert_eq!(h(1.0), 0x3c00);
    assert_eq!(h(1.0009), 0x3c00); // nearest would be 0x3c01
    assert_eq!(h(0.5), 0x3800);
    assert_eq!(h(0.33333334), 0x3555);
    assert_eq!(h(2f32.powi(-14)), 0x0400); // the smallest normal half
    assert_eq!(h(-65519.0), 0xfbff); // nearest would be -infinity
    assert_eq!(h(1e30), 0x7bff);
    assert_eq!(h(f32::INFINITY), 0x7c00);
    assert_eq!(h(f32::NEG_INFINITY), 0xfc00);
    assert_eq!(h(f32::NAN) & 0x7fff, 0x7e00);
    assert_eq!(h(-0.0), 0x8000);
    // Half denormals: 2^-15 = 512 units of 2^-24; 3 * 2^-25 truncates to 1 unit.
    assert_eq!(h(2f32.powi(-15)), 0x0200);
    assert_eq!(h(3.0 * 2f32.powi(-25)), 0x0001);
    assert_eq!(h(2f32.powi(-25)), 0);
    assert_eq!(h(f32::from_bits(0x8000_0001)), 0x8000);
    assert_eq!(flush_denormal(0x807f_ffff), 0x8000_0000);
    assert_eq!(flush_denormal(0x0080_0000), 0x0080_0000);
}

use super::*;

const NAN: u32 = 0x7fc0_0000;
const INF: u32 = 0x7f80_0000;
const NINF: u32 = 0xff80_0000;
const NZERO: u32 = 0x8000_0000;
const MIN_DENORM: u32 = 1;
const IMIN: u32 = i32::MIN as u32;
const IMAX: u32 = i32::MAX as u32;

fn f(x: f32) -> u32 {
    x.to_bits()
}
fn d(x: f64) -> u64 {
    x.to_bits()
}
fn i(x: i32) -> u32 {
    x as u32
}
fn is_nan(bits: u32) -> bool {
    fl(bits).is_nan()
}
fn is_dnan(bits: u64) -> bool {
    db(bits).is_nan()
}
fn v4(a: [f32; 4]) -> [u32; 4] {
    a.map(f32::to_bits)
}

#[test]
fn address_loads() {
    assert_eq!(arl(f(1.5)), 1);
    assert_eq!(arl(f(-1.5)), i(-2));
    assert_eq!(arl(f(-0.0)), 0);
    assert_eq!(arl(NAN), 0);
    assert_eq!(arl(f(1e10)), IMAX);
    assert_eq!(arl(NINF), IMIN);
    assert_eq!(arr(f(2.5)), 3);
    assert_eq!(arr(f(-2.5)), i(-2));
    assert_eq!(arr(f(-2.6)), i(-3));
    // 0.49999997 + 0.5 rounds to 1.0 in f32 first (as Mesa)
    assert_eq!(arr(f(0.499_999_97)), 1);
    assert_eq!(arr(NAN), 0);
    assert_eq!(arr(INF), IMAX);
    assert_eq!(uarl(0xdead_beef), 0xdead_beef);
}

#[test]
fn basic_arithmetic() {
    assert_eq!(add(f(1.0), f(2.0)), f(3.0));
    assert!(is_nan(add(INF, NINF)));
    assert_eq!(add(f(-0.0), f(-0.0)), NZERO);
    assert_eq!(add(f(0.0), f(-0.0)), 0);
    assert_eq!(mul(f(3.0), f(-0.5)), f(-1.5));
    assert!(is_nan(mul(0, INF)));
    assert_eq!(mul(f(-2.0), 0), NZERO);
    assert_eq!(div(f(1.0), 0), INF);
    assert_eq!(div(f(-1.0), 0), NINF);
    assert_eq!(div(f(1.0), NZERO), NINF);
    assert!(is_nan(div(0, 0)));
    assert_eq!(div(f(1.0), f(3.0)), f(1.0 / 3.0));
    // denormals are kept, not flushed
    assert_eq!(add(MIN_DENORM, MIN_DENORM), 2);
    assert_eq!(mul(0x0080_0000, f(0.5)), 0x0040_0000);
    // 2^-150 is a tie between 0 and 2^-149: to even (0)
    assert_eq!(mul(MIN_DENORM, f(0.5)), 0);
    assert_eq!(mul(3, f(0.5)), 2);
}

#[test]
fn min_max_nan_and_zero_rules() {
    assert_eq!(min(f(1.0), f(2.0)), f(1.0));
    assert_eq!(max(f(1.0), f(2.0)), f(2.0));
    assert_eq!(min(NAN, f(2.0)), f(2.0));
    assert_eq!(min(f(2.0), NAN), f(2.0));
    assert_eq!(max(NAN, f(-2.0)), f(-2.0));
    assert_eq!(max(f(-2.0), NAN), f(-2.0));
    assert_eq!(min(0x7fc0_0001, 0x7fc0_0002), 0x7fc0_0002);
    assert_eq!(min(0, NZERO), NZERO);
    assert_eq!(min(NZERO, 0), NZERO);
    assert_eq!(max(0, NZERO), 0);
    assert_eq!(max(NZERO, 0), 0);
    assert_eq!(max(NINF, f(3.0)), f(3.0));
    assert_eq!(min(NINF, f(3.0)), NINF);
    assert_eq!(min(MIN_DENORM, 0), 0);
    assert_eq!(max(MIN_DENORM, 0), MIN_DENORM);
}

#[test]
fn float_compares() {
    let one = F32_ONE;
    assert_eq!(slt(f(1.0), f(2.0)), one);
    assert_eq!(slt(f(2.0), f(1.0)), 0);
    assert_eq!(sge(f(2.0), f(2.0)), one);
    assert_eq!(sgt(f(2.0), f(2.0)), 0);
    assert_eq!(sle(f(2.0), f(2.0)), one);
    assert_eq!(seq(0, NZERO), one);
    assert_eq!(sne(0, NZERO), 0);
    for op in [slt, sge, seq, sgt, sle] {
        assert_eq!(op(NAN, f(1.0)), 0);
        assert_eq!(op(f(1.0), NAN), 0);
        assert_eq!(op(NAN, NAN), 0);
    }
    assert_eq!(sne(NAN, NAN), one);
    assert_eq!(sne(NAN, f(1.0)), one);
    assert_eq!(fslt(f(-1.0), 0), !0);
    assert_eq!(fsge(f(-1.0), 0), 0);
    assert_eq!(fseq(0, NZERO), !0);
    assert_eq!(fsne(f(1.0), f(1.0)), 0);
    for op in [fslt, fsge, fseq] {
        assert_eq!(op(NAN, 0), 0);
        assert_eq!(op(0, NAN), 0);
    }
    assert_eq!(fsne(NAN, 0), !0);
    assert_eq!(fslt(NINF, f(-1e38)), !0);
}

/// (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: the 2^-24 is lost when the product is
/// rounded, and kept by a fused operation.
#[test]
fn mad_is_unfused_fma_is_fused() {
    let a = f(1.0 + 2f32.powi(-12));
    let c = f(-(1.0 + 2f32.powi(-11)));
    assert_eq!(mad(a, a, c), 0);
    assert_eq!(fma(a, a, c), f(2f32.powi(-24)));
    assert_eq!(mad(f(2.0), f(3.0), f(1.0)), f(7.0));
    assert!(is_nan(fma(INF, 0, f(1.0))));
    assert!(is_nan(mad(INF, 0, f(1.0))));
    assert_eq!(fma(f(2.0), f(3.0), f(1.0)), f(7.0));
}

#[test]
fn lrp_uses_the_spec_formula() {
    assert_eq!(lrp(f(0.5), f(2.0), f(4.0)), f(3.0));
    assert_eq!(lrp(f(0.0), f(2.0), f(4.0)), f(4.0));
    assert_eq!(lrp(f(1.0), f(2.0), f(4.0)), f(2.0));
    // s0*s1 + (1-s0)*s2 = 1e-8 exactly; Mesa's s0*(s1-s2)+s2 gives 0
    assert_eq!(lrp(f(1.0), f(1e-8), f(1.0)), f(1e-8));
    assert!(is_nan(lrp(f(1.0), f(1.0), INF)));
}

#[test]
fn rounding_family() {
    assert_eq!(frc(f(1.25)), f(0.25));
    assert_eq!(frc(f(-1.25)), f(0.75));
    assert_eq!(frc(f(-1e-10)), f(1.0));
    assert_eq!(frc(f(-0.0)), 0);
    assert!(is_nan(frc(INF)));
    assert!(is_nan(frc(NAN)));
    assert_eq!(flr(f(-0.5)), f(-1.0));
    assert_eq!(flr(f(2.99)), f(2.0));
    assert_eq!(ceil(f(-0.5)), NZERO);
    assert_eq!(ceil(f(1.01)), f(2.0));
    assert_eq!(trunc(f(-1.7)), f(-1.0));
    assert_eq!(trunc(f(-0.3)), NZERO);
    assert_eq!(round(f(2.5)), f(2.0));
    assert_eq!(round(f(3.5)), f(4.0));
    assert_eq!(round(f(-2.5)), f(-2.0));
    assert_eq!(round(f(-0.4)), NZERO);
    assert_eq!(round(f(0.500_000_06)), f(1.0));
    assert_eq!(round(INF), INF);
    assert_eq!(flr(MIN_DENORM), 0);
    assert_eq!(ceil(MIN_DENORM), f(1.0));
    for op in [flr, ceil, trunc, round] {
        assert!(is_nan(op(NAN)));
        assert_eq!(op(NINF), NINF);
    }
}

/// The library-free rounding helpers against std on the hard cases:
/// zeros, halves, values around 2^23 / 2^52, the largest finite values.
#[test]
fn rounding_helpers_edge_cases() {
    let big = 8_388_608.0f32;
    let xs = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999997,
        -0.49999997,
        0.99999994,
        -0.99999994,
        1.0,
        -1.0,
        big - 0.5,
        -(big - 0.5),
        big,
        -big,
        big + 1.0,
        4_194_304.5,
        -4_194_304.5,
        f32::MAX,
        f32::MIN,
        1e-45,
        -1e-45,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    for x in xs {
        assert_eq!(floor_f32(x).to_bits(), x.floor().to_bits(), "floor {x}");
        assert_eq!(ceil_f32(x).to_bits(), x.ceil().to_bits(), "ceil {x}");
        assert_eq!(trunc_f32(x).to_bits(), x.trunc().to_bits(), "trunc {x}");
        assert_eq!(
            round_even_f32(x).to_bits(),
            x.round_ties_even().to_bits(),
            "round {x}"
        );
        let y = x as f64 * 2f64.powi(29); // same shapes around 2^52
        for z in [x as f64, y, y + 0.5, y - 0.5] {
            assert_eq!(floor_f64(z).to_bits(), z.floor().to_bits(), "dfloor {z}");
            assert_eq!(ceil_f64(z).to_bits(), z.ceil().to_bits(), "dceil {z}");
            assert_eq!(trunc_f64(z).to_bits(), z.trunc().to_bits(), "dtrunc {z}");
            assert_eq!(
                round_even_f64(z).to_bits(),
                z.round_ties_even().to_bits(),
                "dround {z}"
            );
        }
    }
    assert!(floor_f32(f32::NAN).is_nan() && round_even_f64(f64::NAN).is_nan());
}

#[test]
fn cmp_and_ssg() {
    let (p, q) = (0x7f80_0001, 0x1234_5678);
    assert_eq!(cmp(f(-1.0), p, q), p);
    assert_eq!(cmp(NZERO, p, q), q);
    assert_eq!(cmp(NAN, p, q), q);
    assert_eq!(cmp(NINF, p, q), p);
    assert_eq!(cmp(0x8000_0001, p, q), p); // negative denormal
    assert_eq!(ssg(f(5.0)), F32_ONE);
    assert_eq!(ssg(f(-5.0)), F32_MINUS_ONE);
    assert_eq!(ssg(NZERO), 0);
    assert_eq!(ssg(NAN), 0);
    assert_eq!(ssg(NINF), F32_MINUS_ONE);
    assert_eq!(ssg(MIN_DENORM), F32_ONE);
}

#[test]
fn ldexp_rounds_once() {
    assert_eq!(ldexp(f(1.0), 3), f(8.0));
    assert_eq!(ldexp(f(3.0), i(-1)), f(1.5));
    assert_eq!(ldexp(f(1.0), i(-149)), MIN_DENORM);
    assert_eq!(ldexp(f(1.0), i(-150)), 0); // tie → even
    assert_eq!(ldexp(f(3.0), i(-150)), 2); // 1.5 ulp → tie → even (2)
    assert_eq!(ldexp(0x00c0_0000, i(-1)), 0x0060_0000);
    assert_eq!(ldexp(f(1.0), 128), INF);
    assert_eq!(ldexp(f(-1.0), 128), NINF);
    assert_eq!(ldexp(f(1.0), IMIN), 0);
    assert_eq!(ldexp(f(-1.0), IMIN), NZERO);
    assert_eq!(ldexp(f(1.0), IMAX), INF);
    assert_eq!(ldexp(MIN_DENORM, 149 + 127), f(2f32.powi(127)));
    assert_eq!(ldexp(INF, i(-1000)), INF);
    assert_eq!(ldexp(0, 1000), 0);
    assert!(is_nan(ldexp(NAN, 1)));
}

#[test]
fn conversions_32() {
    assert_eq!(i2f(i(-1)), f(-1.0));
    assert_eq!(i2f(IMIN), f(-2147483648.0));
    assert_eq!(i2f(16_777_217), f(16_777_216.0));
    assert_eq!(i2f(16_777_219), f(16_777_220.0));
    assert_eq!(u2f(u32::MAX), f(4_294_967_296.0));
    assert_eq!(u2f(0x8000_0000), f(2_147_483_648.0));
    assert_eq!(f2i(NAN), 0);
    assert_eq!(f2i(INF), IMAX);
    assert_eq!(f2i(NINF), IMIN);
    assert_eq!(f2i(f(-1.9)), i(-1));
    assert_eq!(f2i(f(3e9)), IMAX);
    assert_eq!(f2i(f(-3e9)), IMIN);
    assert_eq!(f2i(f(-2147483648.0)), IMIN);
    assert_eq!(f2i(NZERO), 0);
    assert_eq!(f2u(f(-1.5)), 0);
    assert_eq!(f2u(f(3e9)), 3_000_000_000);
    assert_eq!(f2u(f(5e9)), u32::MAX);
    assert_eq!(f2u(NAN), 0);
    assert_eq!(f2u(INF), u32::MAX);
    assert_eq!(f2u(f(4_294_967_040.0)), 4_294_967_040);
}

#[test]
fn bitwise_and_shifts() {
    assert_eq!(not(0), u32::MAX);
    assert_eq!(and(0xf0f0, 0xff00), 0xf000);
    assert_eq!(or(0xf0f0, 0xff00), 0xfff0);
    assert_eq!(xor(0xf0f0, 0xff00), 0x0ff0);
    assert_eq!(shl(1, 33), 2);
    assert_eq!(shl(3, u32::MAX), 0x8000_0000);
    assert_eq!(shl(7, 32), 7);
    assert_eq!(ushr(0x8000_0000, 31), 1);
    assert_eq!(ushr(0x8000_0000, 32), 0x8000_0000);
    assert_eq!(ishr(0x8000_0000, 31), u32::MAX);
    assert_eq!(ishr(0x8000_0000, 32), 0x8000_0000);
    assert_eq!(ishr(0x8000_0000, 63), u32::MAX);
    assert_eq!(ishr(0x4000_0000, 30), 1);
}

#[test]
fn integer_arithmetic() {
    assert_eq!(uadd(u32::MAX, 2), 1);
    assert_eq!(umul(0x1_0001, 0x1_0001), 0x0002_0001);
    assert_eq!(umad(0x8000_0000, 2, 5), 5);
    assert_eq!(imul_hi(i(-1), i(-1)), 0);
    assert_eq!(imul_hi(IMIN, IMIN), 0x4000_0000);
    assert_eq!(imul_hi(i(-2), 3), u32::MAX);
    assert_eq!(imul_hi(IMAX, IMAX), 0x3fff_ffff);
    assert_eq!(umul_hi(u32::MAX, u32::MAX), 0xffff_fffe);
    assert_eq!(umul_hi(0x8000_0000, 2), 1);
    assert_eq!(idiv(7, i(-2)), i(-3));
    assert_eq!(idiv(i(-7), 2), i(-3));
    assert_eq!(idiv(5, 0), 0);
    assert_eq!(idiv(IMIN, i(-1)), IMIN);
    assert_eq!(udiv(7, 2), 3);
    assert_eq!(udiv(7, 0), u32::MAX);
    assert_eq!(udiv(u32::MAX, 1), u32::MAX);
    assert_eq!(umod(7, 0), u32::MAX);
    assert_eq!(umod(7, 4), 3);
    assert_eq!(mod_signed(i(-7), 2), i(-1));
    assert_eq!(mod_signed(7, i(-2)), 1);
    assert_eq!(mod_signed(7, 0), u32::MAX);
    assert_eq!(mod_signed(IMIN, i(-1)), 0);
    assert_eq!(imax(i(-1), 1), 1);
    assert_eq!(imin(i(-1), 1), i(-1));
    assert_eq!(umax(u32::MAX, 1), u32::MAX);
    assert_eq!(umin(u32::MAX, 1), 1);
    assert_eq!(isge(i(-1), 1), 0);
    assert_eq!(islt(i(-1), 1), !0);
    assert_eq!(usge(u32::MAX, 1), !0);
    assert_eq!(uslt(u32::MAX, 1), 0);
    assert_eq!(useq(5, 5), !0);
    assert_eq!(usne(5, 5), 0);
    assert_eq!(ineg(IMIN), IMIN);
    assert_eq!(ineg(1), u32::MAX);
    assert_eq!(iabs(IMIN), IMIN);
    assert_eq!(iabs(i(-5)), 5);
    assert_eq!(issg(i(-5)), u32::MAX);
    assert_eq!(issg(0), 0);
    assert_eq!(issg(IMAX), 1);
    assert_eq!(ucmp(0, 1, 2), 2);
    assert_eq!(ucmp(0x8000_0000, 1, 2), 1); // -0.0 bits are not zero
}

#[test]
fn bitfield_extract() {
    assert_eq!(ubfe(0xabcd_1234, 4, 8), 0x23);
    assert_eq!(ibfe(0x0000_00f0, 4, 4), u32::MAX);
    assert_eq!(ibfe(0x0000_0070, 4, 4), 7);
    assert_eq!(ubfe(0xabcd_1234, 0, 32), 0xabcd_1234);
    assert_eq!(ibfe(0xabcd_1234, 0, 32), 0xabcd_1234);
    assert_eq!(ubfe(0xabcd_1234, 4, 32), 0); // bits & 31 = 0
    assert_eq!(ubfe(0xabcd_1234, 0, 0), 0);
    assert_eq!(ibfe(0xffff_ffff, 3, 0), 0);
    assert_eq!(ubfe(0x8000_0000, 28, 8), 8); // runs past bit 31
    assert_eq!(ibfe(0x8000_0000, 28, 8), 0xffff_fff8);
    assert_eq!(ubfe(0xabcd_1234, 36, 8), 0x23); // offset & 31
    assert_eq!(ubfe(0b10, 1, 33), 1); // bits & 31
    assert_eq!(ubfe(0xabcd_1234, 31, 1), 1);
    assert_eq!(ibfe(0xabcd_1234, 31, 1), u32::MAX);
    assert_eq!(ubfe(0xabcd_1234, 0, 31), 0x2bcd_1234);
    assert_eq!(ibfe(0x4000_0000, 0, 31), 0xc000_0000);
}

#[test]
fn bitfield_insert() {
    assert_eq!(bfi(0xffff_ffff, 0, 4, 8), 0xffff_f00f);
    assert_eq!(bfi(0x1234_5678, 0xdead_beef, 0, 32), 0xdead_beef);
    assert_eq!(bfi(0x1234_5678, 0xdead_beef, 5, 32), 0xdead_beef);
    assert_eq!(bfi(0, 0xff, 28, 8), 0xf000_0000);
    assert_eq!(bfi(0x1234_5678, 0xffff_ffff, 9, 0), 0x1234_5678);
    assert_eq!(bfi(0, 0xff, 36, 4), 0xf0); // offset & 31
    assert_eq!(bfi(0, 0xff, 0, 33), 1); // bits & 31
    assert_eq!(bfi(0, 1, 31, 1), 0x8000_0000);
}

#[test]
fn bit_counts() {
    assert_eq!(brev(1), 0x8000_0000);
    assert_eq!(brev(0x0000_00f1), 0x8f00_0000);
    assert_eq!(popc(u32::MAX), 32);
    assert_eq!(popc(0), 0);
    assert_eq!(popc(0x8000_0101), 3);
    assert_eq!(lsb(0), u32::MAX);
    assert_eq!(lsb(0x8000_0000), 31);
    assert_eq!(lsb(12), 2);
    assert_eq!(umsb(0), u32::MAX);
    assert_eq!(umsb(1), 0);
    assert_eq!(umsb(u32::MAX), 31);
    assert_eq!(imsb(0), u32::MAX);
    assert_eq!(imsb(u32::MAX), u32::MAX);
    assert_eq!(imsb(1), 0);
    assert_eq!(imsb(i(-2)), 0);
    assert_eq!(imsb(IMIN), 30);
    assert_eq!(imsb(IMAX), 30);
    assert_eq!(imsb(0x100), 8);
}

#[test]
fn scalar_ops() {
    assert_eq!(rcp(0), INF);
    assert_eq!(rcp(NZERO), NINF);
    assert_eq!(rcp(f(2.0)), f(0.5));
    assert_eq!(rcp(INF), 0);
    assert_eq!(rcp(MIN_DENORM), INF); // 2^149 overflows
    assert_eq!(rsq(f(4.0)), f(0.5));
    assert!(is_nan(rsq(f(-1.0))));
    assert_eq!(rsq(0), INF);
    assert_eq!(rsq(NZERO), NINF);
    assert_eq!(rsq(INF), 0);
    assert_eq!(sqrt(NZERO), NZERO);
    assert!(is_nan(sqrt(f(-1.0))));
    assert_eq!(sqrt(f(2.0)), f(std::f32::consts::SQRT_2));
    assert_eq!(sqrt(INF), INF);
    assert_eq!(ex2(f(3.0)), f(8.0));
    assert_eq!(ex2(NINF), 0);
    assert_eq!(lg2(f(8.0)), f(3.0));
    assert_eq!(lg2(0), NINF);
    assert!(is_nan(lg2(f(-1.0))));
    assert_eq!(pow(f(2.0), f(10.0)), f(1024.0));
    assert_eq!(pow(NAN, 0), F32_ONE);
    assert_eq!(sin(0), 0);
    assert_eq!(cos(0), F32_ONE);
    assert!(is_nan(sin(INF)));
}

/// RSQ is `1/sqrt(x)` with two roundings: measured against the exact value
/// over random positive floats (all binades, subnormals included).
#[test]
fn rsq_accuracy() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut worst = 0.0f64;
    for _ in 0..1_000_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let x = ((state >> 32) as u32) % 0x7f80_0000 + 1;
        let want = 1.0 / (fl(x) as f64).sqrt();
        let got = fl(rsq(x)) as f64;
        let ulp = 2f64.powi(want.log2().floor() as i32 - 23);
        worst = worst.max((got - want).abs() / ulp);
    }
    eprintln!("rsq max {worst:.3} ulp");
    assert!(worst <= 1.5, "rsq {worst} ulp");
    assert!(
        worst > 0.5,
        "rsq is not correctly rounded, the bound must bite"
    );
}

#[test]
fn dot_products_are_ordered_and_unfused() {
    let a = v4([1.0, 2.0, 3.0, 4.0]);
    let b = v4([5.0, 6.0, 7.0, 8.0]);
    assert_eq!(dp2(a, b), f(17.0));
    assert_eq!(dp3(a, b), f(38.0));
    assert_eq!(dp4(a, b), f(70.0));
    // order x, y, z, w: (1e30 + 1) - 1e30 = 0
    let big = v4([1e30, 1.0, -1e30, 0.0]);
    let ones = v4([1.0, 1.0, 1.0, 1.0]);
    assert_eq!(dp3(big, ones), 0);
    assert_eq!(dp4(big, ones), 0);
    // unfused: the first product is rounded before the add
    let e = 1.0 + 2f32.powi(-12);
    let x = v4([e, 1.0, 0.0, 0.0]);
    let y = v4([e, -(1.0 + 2f32.powi(-11)), 0.0, 0.0]);
    assert_eq!(dp2(x, y), 0);
    assert!(is_nan(dp2(
        v4([f32::INFINITY, 0.0, 0.0, 0.0]),
        v4([0.0, 1.0, 0.0, 0.0])
    )));
    // w ignored by DP3
    assert_eq!(dp3(v4([0.0, 0.0, 0.0, f32::NAN]), ones), 0);
}

#[test]
fn half_packing() {
    assert_eq!(pk2h(v4([1.0, -2.0, 9.0, 9.0])), 0xc000_3c00);
    assert_eq!(pk2h([NAN, 0, 0, 0]) & 0x7c00, 0x7c00);
    assert_ne!(pk2h([NAN, 0, 0, 0]) & 0x03ff, 0);
    assert_eq!(pk2h(v4([65520.0, -65520.0, 0.0, 0.0])), 0xfc00_7c00);
    assert_eq!(pk2h(v4([65504.0, 0.0, 0.0, 0.0])), 0x7bff);
    // ties to even: 1 + 2^-11 → 1.0; 1 + 3·2^-11 → 1 + 2^-9
    assert_eq!(
        pk2h(v4([
            1.0 + 2f32.powi(-11),
            1.0 + 3.0 * 2f32.powi(-11),
            0.0,
            0.0
        ])),
        0x3c02_3c00
    );
    assert_eq!(pk2h(v4([2f32.powi(-24), -0.0, 0.0, 0.0])), 0x8000_0001);
    assert_eq!(up2h(0xc000_3c00), v4([1.0, -2.0, 1.0, -2.0]));
    assert_eq!(
        up2h(0x7c00_0001),
        v4([2f32.powi(-24), f32::INFINITY, 2f32.powi(-24), f32::INFINITY])
    );
    assert!(up2h(0x7e00).iter().all(|&c| c == 0 || is_nan(c)));
    assert!(is_nan(up2h(0x7e00)[0]));
}

#[test]
fn norm_packing() {
    // 0.5 * 65535 = 32767.5 → ties to even 32768
    assert_eq!(pk2us(v4([0.5, 1.0, 0.0, 0.0])), 0xffff_8000);
    assert_eq!(pk2us([NAN, f(-1.0), 0, 0]), 0);
    assert_eq!(pk2us(v4([2.0, f32::INFINITY, 0.0, 0.0])), u32::MAX);
    assert_eq!(pk4ub([0, F32_ONE, f(0.5), NAN]), 0x0080_ff00);
    assert_eq!(pk4ub(v4([-1.0, 1.5, 1.0 / 255.0, 0.0])), 0x0001_ff00);
    assert_eq!(pk4b(v4([1.0, -1.0, 0.5, -2.0])), 0x8140_817f);
    assert_eq!(
        pk4b([NAN, f(-0.5), f(0.0), f(f32::NEG_INFINITY)]),
        0x8100_c000
    );
    assert_eq!(up2us(0xffff_0000), v4([0.0, 1.0, 0.0, 1.0]));
    assert_eq!(
        up2us(0x0000_8000),
        v4([32768.0 / 65535.0, 0.0, 32768.0 / 65535.0, 0.0])
    );
    assert_eq!(
        up4ub(0xff80_0001),
        v4([1.0 / 255.0, 0.0, 128.0 / 255.0, 1.0])
    );
    assert_eq!(up4b(0x8081_7f00), v4([0.0, 1.0, -1.0, -1.0]));
    assert_eq!(
        up4b(0x0000_c040),
        v4([64.0 / 127.0, -64.0 / 127.0, 0.0, 0.0])
    );
    // round trips of every representable byte
    for v in 0..=255u32 {
        assert_eq!(pk4ub(up4ub(v * 0x0101_0101)), v * 0x0101_0101);
        if v != 0x80 {
            assert_eq!(pk4b(up4b(v * 0x0101_0101)), v * 0x0101_0101);
        }
    }
    for v in [0u32, 1, 0x7fff, 0x8000, 0xfffe, 0xffff] {
        assert_eq!(pk2us(up2us(v | v << 16)), v | v << 16);
    }
}

#[test]
fn lit_exp_log_dst() {
    assert_eq!(lit(v4([2.0, 3.0, 7.0, 2.0])), v4([1.0, 2.0, 9.0, 1.0]));
    assert_eq!(lit(v4([-1.0, 3.0, 7.0, 2.0])), v4([1.0, 0.0, 0.0, 1.0]));
    assert_eq!(lit(v4([1.0, -5.0, 7.0, 2.0])), v4([1.0, 1.0, 0.0, 1.0]));
    assert_eq!(
        lit(v4([1.0, 2.0, 0.0, 200.0])),
        v4([1.0, 1.0, f32::INFINITY, 1.0])
    );
    assert_eq!(lit(v4([1.0, 2.0, 0.0, -200.0]))[2], 0x0020_0000);
    assert_eq!(lit(v4([1.0, 0.0, 0.0, 0.0])), v4([1.0, 1.0, 1.0, 1.0]));
    assert_eq!(lit([NAN, f(2.0), 0, f(2.0)]), v4([1.0, 0.0, 0.0, 1.0]));
    // NaN exponent clamps to 128 (min first, as Mesa): 3.7^128 overflows
    assert_eq!(lit([F32_ONE, f(3.7), 0, NAN])[2], INF);
    assert_eq!(lit([F32_ONE, f(0.5), 0, NAN])[2], 0x0020_0000); // 2^-128, subnormal
    assert_eq!(
        exp(v4([2.5, 9.0, 9.0, 9.0])),
        v4([4.0, 0.5, 2f32.powf(2.5), 1.0])
    );
    assert_eq!(
        exp(v4([-1.5, 0.0, 0.0, 0.0])),
        v4([0.25, 0.5, math::ex2_f32(-1.5), 1.0])
    );
    assert_eq!(log(v4([8.0, 0.0, 0.0, 0.0])), v4([3.0, 1.0, 3.0, 1.0]));
    let l = log(v4([-10.0, 0.0, 0.0, 0.0]));
    assert_eq!(l[0], f(3.0));
    assert_eq!(l[1], f(1.25));
    assert_eq!(l[2], f(math::lg2_f32(10.0)));
    let z = log([0, 0, 0, 0]);
    assert_eq!((z[0], z[2], z[3]), (NINF, NINF, F32_ONE));
    assert!(is_nan(z[1]));
    assert_eq!(
        dst(v4([9.0, 2.0, 3.0, 9.0]), v4([9.0, 4.0, 9.0, 5.0])),
        v4([1.0, 8.0, 3.0, 5.0])
    );
}

#[test]
fn double_arithmetic() {
    assert_eq!(dadd(d(1.5), d(2.25)), d(3.75));
    assert_eq!(dmul(d(-3.0), d(0.5)), d(-1.5));
    assert_eq!(ddiv(d(1.0), d(0.0)), d(f64::INFINITY));
    assert_eq!(ddiv(d(-1.0), d(0.0)), d(f64::NEG_INFINITY));
    assert!(is_dnan(ddiv(0, 0)));
    assert_eq!(ddiv(d(1.0), d(3.0)), d(1.0 / 3.0));
    assert_eq!(dadd(1, 1), 2); // denormals kept
    // (1 + 2^-27)^2 = 1 + 2^-26 + 2^-54
    let a = d(1.0 + 2f64.powi(-27));
    let c = d(-(1.0 + 2f64.powi(-26)));
    assert_eq!(dmad(a, a, c), 0);
    assert_eq!(dfma(a, a, c), d(2f64.powi(-54)));
    assert_eq!(dmax(d(f64::NAN), d(-2.0)), d(-2.0));
    assert_eq!(dmin(d(-2.0), d(f64::NAN)), d(-2.0));
    assert_eq!(dmin(0, d(-0.0)), d(-0.0));
    assert_eq!(dmax(d(-0.0), 0), 0);
    assert_eq!(dmin(d(1.0), d(2.0)), d(1.0));
    assert_eq!(dmax(d(1.0), d(2.0)), d(2.0));
}

#[test]
fn double_unary() {
    assert_eq!(dabs(d(-0.0)), 0);
    assert_eq!(dabs(0xfff8_0000_0000_0001), 0x7ff8_0000_0000_0001);
    assert_eq!(dabs(d(-2.0)), d(2.0));
    assert_eq!(dneg(0), d(-0.0));
    assert_eq!(dneg(d(2.0)), d(-2.0));
    assert_eq!(drcp(d(-0.0)), d(f64::NEG_INFINITY));
    assert_eq!(drcp(d(4.0)), d(0.25));
    assert!(is_dnan(dsqrt(d(-1.0))));
    assert_eq!(dsqrt(d(-0.0)), d(-0.0));
    assert_eq!(dsqrt(d(2.0)), d(std::f64::consts::SQRT_2));
    assert_eq!(drsq(d(-0.0)), d(f64::NEG_INFINITY));
    assert_eq!(drsq(0), d(f64::INFINITY));
    assert_eq!(drsq(d(4.0)), d(0.5));
    assert!(is_dnan(drsq(d(-4.0))));
    assert_eq!(dfrac(d(-1.25)), d(0.75));
    assert!(is_dnan(dfrac(d(f64::INFINITY))));
    assert_eq!(dflr(d(-0.5)), d(-1.0));
    assert_eq!(dceil(d(-0.5)), d(-0.0));
    assert_eq!(dtrunc(d(-1.7)), d(-1.0));
    assert_eq!(dround(d(2.5)), d(2.0));
    assert_eq!(dround(d(-3.5)), d(-4.0));
    assert_eq!(dround(d(-0.4)), d(-0.0));
    assert_eq!(dssg(d(-3.0)), d(-1.0));
    assert_eq!(dssg(d(1e-310)), d(1.0));
    assert_eq!(dssg(d(-0.0)), 0);
    assert_eq!(dssg(d(f64::NAN)), 0);
}

#[test]
fn double_compares() {
    assert_eq!(dslt(d(1.0), d(2.0)), !0);
    assert_eq!(dsge(d(1.0), d(2.0)), 0);
    assert_eq!(dseq(0, d(-0.0)), !0);
    assert_eq!(dsne(0, d(-0.0)), 0);
    let nan = d(f64::NAN);
    for op in [dslt, dsge, dseq] {
        assert_eq!(op(nan, 0), 0);
        assert_eq!(op(0, nan), 0);
    }
    assert_eq!(dsne(nan, nan), !0);
}

#[test]
fn double_exponents() {
    assert_eq!(dldexp(d(1.0), 10), d(1024.0));
    assert_eq!(dldexp(d(1.0), i(-1074)), 1);
    assert_eq!(dldexp(d(1.0), i(-1075)), 0);
    assert_eq!(dldexp(d(3.0), i(-1075)), 2);
    assert_eq!(dldexp(d(1.0), 1024), d(f64::INFINITY));
    assert_eq!(dldexp(d(1.0), IMIN), 0);
    assert_eq!(dldexp(d(-1.0), IMAX), d(f64::NEG_INFINITY));
    assert_eq!(dldexp(1, 1074 + 1023), d(2f64.powi(1023)));
    assert_eq!(dfracexp(d(8.0)), (d(0.5), 4));
    assert_eq!(dfracexp(d(-3.0)), (d(-0.75), 2));
    assert_eq!(dfracexp(d(0.3)), (d(0.6), i(-1)));
    assert_eq!(dfracexp(0), (0, 0));
    assert_eq!(dfracexp(d(-0.0)), (d(-0.0), 0));
    assert_eq!(dfracexp(d(f64::NEG_INFINITY)), (d(f64::NEG_INFINITY), 0));
    let (n, e) = dfracexp(0x7ff8_0000_0000_0001);
    assert_eq!((n, e), (0x7ff8_0000_0000_0001, 0));
    assert_eq!(dfracexp(1), (d(0.5), i(-1073)));
}

#[test]
fn double_conversions() {
    assert!(is_dnan(f2d(NAN)));
    assert_eq!(f2d(MIN_DENORM), d(2f64.powi(-149)));
    assert_eq!(f2d(NINF), d(f64::NEG_INFINITY));
    assert_eq!(i2d(i(-1)), d(-1.0));
    assert_eq!(i2d(IMIN), d(-2147483648.0));
    assert_eq!(u2d(u32::MAX), d(4294967295.0));
    assert_eq!(d2f(d(1e300)), INF);
    assert_eq!(d2f(d(-1e300)), NINF);
    assert_eq!(d2f(d(1.0 + 2f64.powi(-24))), f(1.0)); // tie → even
    assert_eq!(d2f(d(1.0 + 3.0 * 2f64.powi(-24))), f(1.0 + 2f32.powi(-22)));
    assert_eq!(d2f(d(1e-300)), 0);
    assert_eq!(d2f(d(2f64.powi(-149))), MIN_DENORM);
    assert!(is_nan(d2f(d(f64::NAN))));
    assert_eq!(d2i(d(f64::NAN)), 0);
    assert_eq!(d2i(d(-3e9)), IMIN);
    assert_eq!(d2i(d(3e9)), IMAX);
    assert_eq!(d2i(d(-1.5)), i(-1));
    assert_eq!(d2i(d(2147483647.9)), IMAX);
    assert_eq!(d2u(d(-1.5)), 0);
    assert_eq!(d2u(d(5e9)), u32::MAX);
    assert_eq!(d2u(d(4294967295.9)), u32::MAX);
    assert_eq!(d2u(d(f64::NAN)), 0);
    assert_eq!(d2u(d(3e9)), 3_000_000_000);
}

#[test]
fn int64_arithmetic() {
    const MIN: u64 = i64::MIN as u64;
    const MAX: u64 = i64::MAX as u64;
    let m1 = u64::MAX; // -1
    assert_eq!(i64abs(MIN), MIN);
    assert_eq!(i64abs(m1), 1);
    assert_eq!(i64neg(1), m1);
    assert_eq!(i64neg(MIN), MIN);
    assert_eq!(i64ssg(-5i64 as u64), m1);
    assert_eq!(i64ssg(0), 0);
    assert_eq!(i64ssg(MAX), 1);
    // carry across the 32-bit channel boundary
    assert_eq!(u64add(0xffff_ffff, 1), 0x1_0000_0000);
    assert_eq!(u64add(u64::MAX, 1), 0);
    assert_eq!(u64mul(0xffff_ffff, 0xffff_ffff), 0xffff_fffe_0000_0001);
    assert_eq!(u64mul(1 << 63, 2), 0);
    assert_eq!(u64div(7, 0), u64::MAX);
    assert_eq!(u64div(u64::MAX, 0x1_0000_0000), 0xffff_ffff);
    assert_eq!(u64mod(7, 0), u64::MAX);
    assert_eq!(u64mod(u64::MAX, 10), 5);
    assert_eq!(i64div(MIN, m1), MIN);
    assert_eq!(i64div(7, 0), 0);
    assert_eq!(i64div(-7i64 as u64, 2), -3i64 as u64);
    assert_eq!(i64mod(MIN, m1), 0);
    assert_eq!(i64mod(-7i64 as u64, 2), m1);
    assert_eq!(i64mod(7, 0), m1);
    assert_eq!(i64min(m1, 1), m1);
    assert_eq!(u64min(m1, 1), 1);
    assert_eq!(i64max(m1, 1), 1);
    assert_eq!(u64max(m1, 1), m1);
    assert_eq!(u64seq(5, 5), !0);
    assert_eq!(u64sne(5, 5 | 1 << 32), !0);
    assert_eq!(u64slt(1, m1), !0);
    assert_eq!(i64slt(1, m1), 0);
    assert_eq!(u64sge(1, m1), 0);
    assert_eq!(i64sge(1, m1), !0);
    assert_eq!(u64shl(0xdead_beef, 32), 0xdead_beef_0000_0000);
    assert_eq!(u64shl(3, 64), 3);
    assert_eq!(u64shl(3, 65), 6);
    assert_eq!(u64shl(3, 63), 1 << 63);
    assert_eq!(i64shr(MIN, 63), m1);
    assert_eq!(i64shr(MIN, 64), MIN);
    assert_eq!(u64shr(MIN, 63), 1);
    assert_eq!(u64shr(0xdead_beef_0000_0000, 32), 0xdead_beef);
    assert_eq!(u64shr(MIN, 127), 1);
}

#[test]
fn int64_conversions() {
    assert_eq!(f2u64(f(-1.0)), 0);
    assert_eq!(f2u64(INF), u64::MAX);
    assert_eq!(f2u64(NAN), 0);
    assert_eq!(f2u64(f(2f32.powi(40))), 1 << 40);
    assert_eq!(f2u64(f(2f32.powi(64))), u64::MAX);
    assert_eq!(f2i64(NINF), i64::MIN as u64);
    assert_eq!(f2i64(f(1e19)), i64::MAX as u64);
    assert_eq!(f2i64(f(-1.5)), -1i64 as u64);
    assert_eq!(f2i64(NAN), 0);
    assert_eq!(u2i64(0xffff_ffff), 0xffff_ffff);
    assert_eq!(i2i64(0xffff_ffff), u64::MAX);
    assert_eq!(i2i64(IMAX), IMAX as u64);
    assert_eq!(d2u64(d(1.8e19)), 18_000_000_000_000_000_000);
    assert_eq!(d2u64(d(2e19)), u64::MAX);
    assert_eq!(d2u64(d(-0.9)), 0);
    assert_eq!(d2i64(d(f64::NAN)), 0);
    assert_eq!(d2i64(d(-1e19)), i64::MIN as u64);
    assert_eq!(d2i64(d(-2.9)), -2i64 as u64);
    assert_eq!(u642d(u64::MAX), d(18446744073709551616.0));
    assert_eq!(u642d((1 << 53) + 1), d(9007199254740992.0));
    assert_eq!(i642d(u64::MAX), d(-1.0));
    assert_eq!(i642d(i64::MIN as u64), d(-9223372036854775808.0));
    assert_eq!(u642f((1 << 24) + 1), f(16777216.0));
    assert_eq!(u642f(u64::MAX), f(18446744073709551616.0));
    // a single rounding: via f64 this would tie and round down to 2^60
    let x = (1u64 << 60) + (1 << 36) + 1;
    assert_eq!(u642f(x), f(2f32.powi(60) + 2f32.powi(37)));
    assert_eq!(i642f(x.wrapping_neg()), f(-(2f32.powi(60) + 2f32.powi(37))));
    assert_eq!(i642f(u64::MAX), f(-1.0));
}

#[test]
fn source_modifiers() {
    use OperandType::*;
    assert_eq!(modify(f(-1.0), Float, true, false), f(1.0));
    assert_eq!(modify(f(1.0), Float, true, true), f(-1.0));
    assert_eq!(modify(f(-1.0), Float, true, true), f(-1.0));
    assert_eq!(modify(f(1.0), Float, false, true), f(-1.0));
    assert_eq!(modify(0, Float, false, true), NZERO);
    assert_eq!(modify(NAN, Float, false, true), 0xffc0_0000);
    assert_eq!(modify(0xffc0_0001, Untyped, true, false), 0x7fc0_0001);
    assert_eq!(modify(5, Untyped, false, false), 5);
    assert_eq!(modify(5, Int, false, true), i(-5));
    assert_eq!(modify(i(-5), Int, true, false), 5);
    assert_eq!(modify(i(-5), Int, true, true), i(-5));
    assert_eq!(modify(IMIN, Int, false, true), IMIN);
    assert_eq!(modify(IMIN, Int, true, false), IMIN);
    assert_eq!(modify(1, Uint, false, true), u32::MAX);
    assert_eq!(modify(0x8000_0001, Double, true, true), 0x8000_0001);
    assert_eq!(modify64(d(-0.0), Double, true, false), 0);
    assert_eq!(modify64(d(2.0), Double, true, true), d(-2.0));
    assert_eq!(modify64(d(2.0), Double, false, true), d(-2.0));
    assert_eq!(modify64(1, Int64, false, true), u64::MAX);
    assert_eq!(modify64(u64::MAX, Int64, true, false), 1);
    assert_eq!(
        modify64(i64::MIN as u64, Uint64, true, false),
        i64::MIN as u64
    );
    assert_eq!(modify64(5, Uint64, false, true), 5u64.wrapping_neg());
    assert_eq!(modify64(u64::MAX, Float, true, true), u64::MAX);
}

#[test]
fn saturate() {
    assert_eq!(saturate_f32(NAN), 0);
    assert_eq!(saturate_f32(0xffc0_0000), 0);
    assert_eq!(saturate_f32(NZERO), 0);
    assert_eq!(saturate_f32(f(-1.0)), 0);
    assert_eq!(saturate_f32(NINF), 0);
    assert_eq!(saturate_f32(f(0.5)), f(0.5));
    assert_eq!(saturate_f32(f(2.0)), F32_ONE);
    assert_eq!(saturate_f32(INF), F32_ONE);
    assert_eq!(saturate_f32(F32_ONE), F32_ONE);
    assert_eq!(saturate_f32(MIN_DENORM), MIN_DENORM);
    assert_eq!(saturate_f64(d(f64::NAN)), 0);
    assert_eq!(saturate_f64(d(-0.0)), 0);
    assert_eq!(saturate_f64(d(0.25)), d(0.25));
    assert_eq!(saturate_f64(d(7.0)), F64_ONE);
    assert_eq!(saturate_f64(d(f64::INFINITY)), F64_ONE);
    assert_eq!(saturate_f64(1), 1);
}

#[test]
fn atomics() {
    use Opcode::*;
    let v = |op, old, value| atomic_new_value(op, old, value, 0);
    assert_eq!(v(ATOMUADD, u32::MAX, 2), 1);
    assert_eq!(v(ATOMXCHG, 7, 9), 9);
    assert_eq!(atomic_new_value(ATOMCAS, 7, 7, 42), 42);
    assert_eq!(atomic_new_value(ATOMCAS, 7, 8, 42), 7);
    assert_eq!(v(ATOMAND, 0b1100, 0b1010), 0b1000);
    assert_eq!(v(ATOMOR, 0b1100, 0b1010), 0b1110);
    assert_eq!(v(ATOMXOR, 0b1100, 0b1010), 0b0110);
    assert_eq!(v(ATOMUMIN, u32::MAX, 1), 1);
    assert_eq!(v(ATOMUMAX, u32::MAX, 1), u32::MAX);
    assert_eq!(v(ATOMIMIN, u32::MAX, 1), u32::MAX);
    assert_eq!(v(ATOMIMAX, u32::MAX, 1), 1);
    assert_eq!(v(ATOMFADD, f(1.5), f(2.25)), f(3.75));
    assert!(is_nan(v(ATOMFADD, INF, NINF)));
    assert_eq!(v(ATOMINC_WRAP, 3, 5), 4);
    assert_eq!(v(ATOMINC_WRAP, 4, 5), 5);
    assert_eq!(v(ATOMINC_WRAP, 5, 5), 0);
    assert_eq!(v(ATOMINC_WRAP, u32::MAX, u32::MAX), 0);
    assert_eq!(v(ATOMINC_WRAP, 0, 0), 0);
    assert_eq!(v(ATOMDEC_WRAP, 3, 5), 2);
    assert_eq!(v(ATOMDEC_WRAP, 0, 5), 0);
    assert_eq!(v(ATOMDEC_WRAP, 5, 5), 0);
    assert_eq!(v(ATOMDEC_WRAP, 1, 5), 0);
    assert_eq!(v(ATOMDEC_WRAP, 9, 5), 0);
    assert_eq!(v(ADD, 11, 5), 11);
}

mod props {
    use super::super::*;
    use proptest::prelude::*;

    /// Equal bits, or a NaN input (payloads are the host's business: a
    /// signaling NaN may pass through quieted or not).
    fn same_or_both_nan(got: u64, want: u64, nan_in_nan_out: bool) -> bool {
        got == want || nan_in_nan_out
    }

    /// Reference bitfield extract, bit by bit.
    fn extract_ref(v: u32, offset: u32, bits: u32, signed: bool) -> u32 {
        let mut r: i64 = 0;
        for k in 0..bits {
            r |= (((v >> (offset + k)) & 1) as i64) << k;
        }
        if signed && bits > 0 && (r >> (bits - 1)) & 1 == 1 {
            r -= 1 << bits;
        }
        r as u32
    }

    proptest! {
        #[test]
        fn wrapping_arithmetic(a: u32, b: u32, c: u32) {
            prop_assert_eq!(uadd(a, b) as u64, (a as u64 + b as u64) % (1 << 32));
            prop_assert_eq!(umul(a, b) as u128, (a as u128 * b as u128) % (1 << 32));
            prop_assert_eq!(umad(a, b, c) as u128, (a as u128 * b as u128 + c as u128) % (1 << 32));
            prop_assert_eq!(umul_hi(a, b) as u128, (a as u128 * b as u128) >> 32);
            let p = a as i32 as i128 * b as i32 as i128;
            prop_assert_eq!(imul_hi(a, b) as i32 as i128, p.div_euclid(1 << 32));
            prop_assert_eq!(ineg(a) as i32 as i64, (-(a as i32 as i64)) as i32 as i64);
        }

        #[test]
        fn division(a: u32, b: u32) {
            let (x, y) = (a as i32 as i64, b as i32 as i64);
            let q = if y == 0 { 0 } else { (x / y) as i32 };
            prop_assert_eq!(idiv(a, b) as i32, q);
            let r = if y == 0 { -1 } else { (x % y) as i32 };
            prop_assert_eq!(mod_signed(a, b) as i32, r);
            prop_assert_eq!(udiv(a, b), match b { 0 => u32::MAX, _ => a / b });
            prop_assert_eq!(umod(a, b), if b == 0 { u32::MAX } else { a % b });
        }

        #[test]
        fn shifts(a: u32, n: u32) {
            let k = n % 32;
            prop_assert_eq!(shl(a, n) as u64, (a as u64 * (1u64 << k)) % (1 << 32));
            prop_assert_eq!(ushr(a, n) as u64, a as u64 / (1u64 << k));
            prop_assert_eq!(ishr(a, n) as i32 as i64, (a as i32 as i64).div_euclid(1 << k));
        }

        #[test]
        fn bitfields(v: u32, base: u32, offset in 0u32..32, bits in 0u32..=32) {
            prop_assume!(offset + bits <= 32);
            // defined region of the spec
            if bits < 32 {
                prop_assert_eq!(ubfe(v, offset, bits), extract_ref(v, offset, bits, false));
                prop_assert_eq!(ibfe(v, offset, bits), extract_ref(v, offset, bits, true));
            } else {
                prop_assert_eq!(ubfe(v, 0, 32), v);
                prop_assert_eq!(ibfe(v, 0, 32), v);
            }
            let r = bfi(base, v, offset, bits);
            for k in 0..32 {
                let inside = k >= offset && k < offset + bits;
                let want = if inside { (v >> (k - offset)) & 1 } else { (base >> k) & 1 };
                prop_assert_eq!((r >> k) & 1, want);
            }
        }

        #[test]
        fn bit_scans(a: u32) {
            let lowest = (0..32).find(|&k| (a >> k) & 1 == 1).map_or(u32::MAX, |k| k);
            let highest = (0..32).rev().find(|&k| (a >> k) & 1 == 1).map_or(u32::MAX, |k| k);
            prop_assert_eq!(lsb(a), lowest);
            prop_assert_eq!(umsb(a), highest);
            let sign = a >> 31;
            let differing = (0..31).rev().find(|&k| (a >> k) & 1 != sign).map_or(u32::MAX, |k| k);
            prop_assert_eq!(imsb(a), differing);
            prop_assert_eq!(popc(a), (0..32).filter(|&k| (a >> k) & 1 == 1).count() as u32);
        }

        #[test]
        fn int64_against_i128(a: u64, b: u64, n: u32) {
            let (x, y) = (a as i64 as i128, b as i64 as i128);
            prop_assert_eq!(u64add(a, b) as u128, (a as u128 + b as u128) % (1 << 64));
            prop_assert_eq!(u64mul(a, b) as u128, (a as u128 * b as u128) % (1 << 64));
            prop_assert_eq!(i64div(a, b) as i64 as i128, if y == 0 { 0 } else { (x / y) as i64 as i128 });
            prop_assert_eq!(i64mod(a, b) as i64 as i128, if y == 0 { -1 } else { x % y });
            prop_assert_eq!(u64div(a, b), match b { 0 => u64::MAX, _ => a / b });
            prop_assert_eq!(u64mod(a, b), if b == 0 { u64::MAX } else { a % b });
            prop_assert_eq!(i64min(a, b) as i64 as i128, x.min(y));
            prop_assert_eq!(i64max(a, b) as i64 as i128, x.max(y));
            prop_assert_eq!(i64slt(a, b) == !0, x < y);
            prop_assert_eq!(u64slt(a, b) == !0, a < b);
            let k = n % 64;
            prop_assert_eq!(u64shl(a, n) as u128, (a as u128 * (1u128 << k)) % (1 << 64));
            prop_assert_eq!(u64shr(a, n) as u128, a as u128 / (1u128 << k));
            prop_assert_eq!(i64shr(a, n) as i64 as i128, x.div_euclid(1i128 << k));
            prop_assert_eq!(i64abs(a) as i64 as i128, if x == i64::MIN as i128 { x } else { x.abs() });
        }

        #[test]
        fn float_to_int_saturates(bits: u32) {
            let x = f32::from_bits(bits) as f64;
            let t = x.trunc();
            let want_i = if x.is_nan() { 0 } else { t.clamp(i32::MIN as f64, i32::MAX as f64) as i64 };
            prop_assert_eq!(f2i(bits) as i32 as i64, want_i);
            let want_u = if x.is_nan() { 0 } else { t.clamp(0.0, u32::MAX as f64) as i64 };
            prop_assert_eq!(f2u(bits) as i64, want_u);
            prop_assert_eq!(d2i(x.to_bits()), f2i(bits));
            prop_assert_eq!(d2u(x.to_bits()), f2u(bits));
            prop_assert_eq!(d2i64(x.to_bits()), f2i64(bits));
            prop_assert_eq!(d2u64(x.to_bits()), f2u64(bits));
        }

        #[test]
        fn rounding_helpers_match_std(a: u32, b: u64, small in -1.0e7f32..1.0e7f32) {
            for x in [f32::from_bits(a), small, small / 1024.0] {
                prop_assert!(same_or_both_nan(floor_f32(x).to_bits() as u64, x.floor().to_bits() as u64, x.is_nan() && floor_f32(x).is_nan()), "floor {}", x);
                prop_assert!(same_or_both_nan(ceil_f32(x).to_bits() as u64, x.ceil().to_bits() as u64, x.is_nan() && ceil_f32(x).is_nan()), "ceil {}", x);
                prop_assert!(same_or_both_nan(trunc_f32(x).to_bits() as u64, x.trunc().to_bits() as u64, x.is_nan() && trunc_f32(x).is_nan()), "trunc {}", x);
                let (r, want) = (round_even_f32(x), x.round_ties_even());
                prop_assert!(r.to_bits() == want.to_bits() || (r.is_nan() && want.is_nan()), "round {}", x);
            }
            for x in [f64::from_bits(b), small as f64 * 1e9, small as f64 / 7.0] {
                prop_assert!(same_or_both_nan(floor_f64(x).to_bits(), x.floor().to_bits(), x.is_nan() && floor_f64(x).is_nan()), "dfloor {}", x);
                prop_assert!(same_or_both_nan(ceil_f64(x).to_bits(), x.ceil().to_bits(), x.is_nan() && ceil_f64(x).is_nan()), "dceil {}", x);
                prop_assert!(same_or_both_nan(trunc_f64(x).to_bits(), x.trunc().to_bits(), x.is_nan() && trunc_f64(x).is_nan()), "dtrunc {}", x);
                let (r, want) = (round_even_f64(x), x.round_ties_even());
                prop_assert!(r.to_bits() == want.to_bits() || (r.is_nan() && want.is_nan()), "dround {}", x);
            }
        }

        #[test]
        fn min_max_agree_with_order(a: u32, b: u32) {
            let (x, y) = (f32::from_bits(a), f32::from_bits(b));
            let lo = f32::from_bits(min(a, b));
            let hi = f32::from_bits(max(a, b));
            if !x.is_nan() && !y.is_nan() {
                prop_assert!(lo <= x && lo <= y && (lo == x || lo == y));
                prop_assert!(hi >= x && hi >= y && (hi == x || hi == y));
                prop_assert_eq!(min(a, b), min(b, a));
                prop_assert_eq!(max(a, b), max(b, a));
                prop_assert_eq!(dmin(d_of(a), d_of(b)), f2d(min(a, b)));
                prop_assert_eq!(dmax(d_of(a), d_of(b)), f2d(max(a, b)));
            }
        }
    }

    fn d_of(a: u32) -> u64 {
        f2d(a)
    }
}
