//! The legacy multiply rule of `PROPERTY LEGACY_MATH_RULES` (tgsi.rst: "the
//! MUL TGSI operation (FP32 multiplication) will return 0 if either of the
//! operands are equal to 0. That means that 0 * Inf = 0"; the rule applies
//! to MAD, FMA, DP2, DP3, DP4, DST, LOG and LRP as well). A product with a
//! ±0 factor is +0, whatever the other factor (inf and NaN included); every
//! other step is the opcode's usual one, in its usual order.

use super::*;

/// An opcode under the rule: its semantic function, by its shape.
#[derive(Clone, Copy)]
pub enum LegacyOp {
    /// Per component, two sources.
    Comp2(fn(u32, u32) -> u32),
    /// Per component, three sources.
    Comp3(fn(u32, u32, u32) -> u32),
    /// A dot product of the channels in the mask, replicated.
    Dot(u8, fn([u32; 4], [u32; 4]) -> u32),
    /// Each channel its own formula, one source.
    Special1(fn([u32; 4]) -> [u32; 4]),
    /// Each channel its own formula, two sources.
    Special2(fn([u32; 4], [u32; 4]) -> [u32; 4]),
}

/// The opcodes whose float32 products follow the rule, and how each is
/// computed under it; None for every other opcode.
pub fn of(op: tgsi_ir::opcode::Opcode) -> Option<LegacyOp> {
    use LegacyOp::*;
    use tgsi_ir::opcode::Opcode as O;
    Some(match op {
        O::MUL => Comp2(mul),
        O::MAD => Comp3(mad),
        O::FMA => Comp3(fma),
        O::LRP => Comp3(lrp),
        O::DP2 => Dot(0b0011, dp2),
        O::DP3 => Dot(0b0111, dp3),
        O::DP4 => Dot(0b1111, dp4),
        O::DST => Special2(dst),
        O::LOG => Special1(log),
        _ => return None,
    })
}

/// `a·b`, +0 when either factor is ±0.
#[inline]
fn product(a: f32, b: f32) -> f32 {
    if a == 0.0 || b == 0.0 {
        0.0
    } else {
        mul_f32::<Ruled>(a, b)
    }
}

/// MUL.
pub fn mul(a: u32, b: u32) -> u32 {
    product(fl(a), fl(b)).to_bits()
}

/// MAD: the product, then the sum.
pub fn mad(a: u32, b: u32, c: u32) -> u32 {
    add_f32::<Ruled>(product(fl(a), fl(b)), fl(c)).to_bits()
}

/// FMA: fused, one rounding; with a ±0 factor the product is +0 and the
/// result is `+0 + c`.
pub fn fma(a: u32, b: u32, c: u32) -> u32 {
    let (x, y) = (fl(a), fl(b));
    if x == 0.0 || y == 0.0 {
        add_f32::<Ruled>(0.0, fl(c)).to_bits()
    } else {
        super::fma(a, b, c)
    }
}

/// LRP: `s0·s1 + (1 − s0)·s2`, both products under the rule.
pub fn lrp(a: u32, b: u32, c: u32) -> u32 {
    let s0 = fl(a);
    let one_minus = sub_f32::<Ruled>(1.0, s0);
    add_f32::<Ruled>(product(s0, fl(b)), product(one_minus, fl(c))).to_bits()
}

/// DP2..DP4: the products under the rule, summed in order x, y, z, w.
fn dot(a: [u32; 4], b: [u32; 4], n: usize) -> u32 {
    let mut s = product(fl(a[0]), fl(b[0]));
    for c in 1..n {
        s = add_f32::<Ruled>(s, product(fl(a[c]), fl(b[c])));
    }
    s.to_bits()
}

pub fn dp2(a: [u32; 4], b: [u32; 4]) -> u32 {
    dot(a, b, 2)
}

pub fn dp3(a: [u32; 4], b: [u32; 4]) -> u32 {
    dot(a, b, 3)
}

pub fn dp4(a: [u32; 4], b: [u32; 4]) -> u32 {
    dot(a, b, 4)
}

/// DST: y = s0.y · s1.y under the rule.
pub fn dst(a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
    let mut out = super::dst(a, b);
    out[1] = product(fl(a[1]), fl(b[1])).to_bits();
    out
}

/// LOG: y is the product `|s.x| · 2^-floor(log2 |s.x|)`, which the
/// usual LOG computes as a quotient: under the rule it is +0 where
/// `|s.x|` is 0 (the other factor +inf) or +inf (the other factor 0).
pub fn log(a: [u32; 4]) -> [u32; 4] {
    let mut out = super::log(a);
    let t = fl(a[0]).abs();
    if t == 0.0 || t == f32::INFINITY {
        out[1] = 0.0f32.to_bits();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    /// A ±0 factor gives +0 against inf and NaN; every other product is the
    /// usual one, bit for bit.
    #[test]
    fn a_zero_factor_wins() {
        let inf = f32::INFINITY;
        for zero in [0.0f32, -0.0] {
            for other in [inf, -inf, f32::NAN, 5.0, -0.0] {
                assert_eq!(mul(f(zero), f(other)), 0, "{zero} * {other}");
                assert_eq!(mul(f(other), f(zero)), 0, "{other} * {zero}");
            }
        }
        assert_eq!(mad(f(0.0), f(inf), f(2.0)), f(2.0));
        assert_eq!(fma(f(inf), f(-0.0), f(-0.0)), f(0.0), "+0 + -0");
        assert_eq!(lrp(f(0.0), f(inf), f(3.0)), f(3.0));
        assert_eq!(lrp(f(1.0), f(4.0), f(inf)), f(4.0), "(1 - 1) * inf");
        assert_eq!(
            dp3([f(0.0), f(1.0), f(2.0), 0], [f(inf), f(3.0), f(4.0), 0]),
            f(11.0)
        );
        assert_eq!(dst([0, f(0.0), 7, 8], [0, f(inf), 9, 10])[1], 0);
        assert_eq!(log([f(0.0); 4])[1], 0);
        assert_eq!(log([f(inf); 4])[1], 0);
        for (a, b) in [(3.0f32, 1.5), (-2.0, 1e-30), (1e30, 1e30), (inf, 2.0)] {
            assert_eq!(mul(f(a), f(b)), super::super::mul(f(a), f(b)));
            assert_eq!(
                mad(f(a), f(b), f(1.0)),
                super::super::mad(f(a), f(b), f(1.0))
            );
            assert_eq!(
                fma(f(a), f(b), f(1.0)),
                super::super::fma(f(a), f(b), f(1.0))
            );
        }
        assert_eq!(log([f(8.0); 4]), super::super::log([f(8.0); 4]));
    }
}
