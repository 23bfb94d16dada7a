//! What each 64-bit opcode computes on two-component vectors (the pairs
//! of [`super::wide`]): one function per pair shape, each a match on the
//! opcode.

use super::Error;
use super::module::Translator;
use super::ops::Saturation;
use rspirv::spirv::{GlslStd450Op, Word};
use tgsi_ir::opcode::Opcode;

type R = Result<Word, Error>;

/// How [`Translator::round64`] rounds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rounding {
    NearestEven,
    Truncate,
}

impl Translator<'_> {
    /// A unary, binary or ternary 64-bit opcode on sources `s` (vectors of
    /// the types the opcode table gives them).
    pub(crate) fn alu64(&mut self, op: Opcode, s: &[Word]) -> R {
        use Opcode as O;
        let w = self.wide_types();
        let d2 = w.d2;
        Ok(match op {
            O::DABS | O::DNEG => {
                let bits = sp!(self, self.b.bitcast(w.q2, None, s[0]))?;
                let r = if op == O::DABS {
                    let m = self.const_like(w.q2, !(1u64 << 63));
                    sp!(self, self.b.bitwise_and(w.q2, None, bits, m))?
                } else {
                    let m = self.const_like(w.q2, 1u64 << 63);
                    sp!(self, self.b.bitwise_xor(w.q2, None, bits, m))?
                };
                sp!(self, self.b.bitcast(d2, None, r))?
            }
            O::DADD => self.fadd(d2, s[0], s[1])?,
            O::DMUL => self.fmul(d2, s[0], s[1])?,
            O::DDIV => sp!(self, self.b.f_div(d2, None, s[0], s[1]))?,
            O::DMAD => {
                let m = self.fmul(d2, s[0], s[1])?;
                self.fadd(d2, m, s[2])?
            }
            O::DFMA => self.gl(d2, GlslStd450Op::Fma, &[s[0], s[1], s[2]])?,
            O::DMIN | O::DMAX => self.min_max(d2, op == O::DMIN, s[0], s[1])?,
            O::DRCP => {
                let one = self.const_like(d2, 1f64.to_bits());
                sp!(self, self.b.f_div(d2, None, one, s[0]))?
            }
            O::DSQRT => self.sqrt64(s[0])?,
            O::DRSQ => {
                let r = self.sqrt64(s[0])?;
                let one = self.const_like(d2, 1f64.to_bits());
                sp!(self, self.b.f_div(d2, None, one, r))?
            }
            O::DFRAC => {
                let fl = self.gl(d2, GlslStd450Op::Floor, &[s[0]])?;
                let r = sp!(self, self.b.f_sub(d2, None, s[0], fl))?;
                self.no_contraction(r)
            }
            O::DTRUNC => self.round64(2, s[0], Rounding::Truncate)?,
            O::DCEIL => self.gl(d2, GlslStd450Op::Ceil, &[s[0]])?,
            O::DFLR => self.gl(d2, GlslStd450Op::Floor, &[s[0]])?,
            O::DROUND => self.round64(2, s[0], Rounding::NearestEven)?,
            // the sign bit over 1.0 where x is a nonzero number: written
            // with bit operations, so that no optimizer turns it into a
            // sign function that gives -0 for -0
            O::DSSG => {
                let zero = self.const_like(d2, 0);
                let nonzero = sp!(self, self.b.f_ord_not_equal(w.b2, None, s[0], zero))?;
                let bits = sp!(self, self.b.bitcast(w.q2, None, s[0]))?;
                let sign = self.const_like(w.q2, 1 << 63);
                let sign = sp!(self, self.b.bitwise_and(w.q2, None, bits, sign))?;
                let one = self.const_like(w.q2, 1f64.to_bits());
                let r = sp!(self, self.b.bitwise_or(w.q2, None, sign, one))?;
                let zero = self.const_like(w.q2, 0);
                let r = self.pick(w.q2, nonzero, r, zero)?;
                sp!(self, self.b.bitcast(d2, None, r))?
            }
            O::I64SSG => {
                let zero = self.const_like(w.s2, 0);
                let above = sp!(self, self.b.s_greater_than(w.b2, None, s[0], zero))?;
                let below = sp!(self, self.b.s_less_than(w.b2, None, s[0], zero))?;
                self.sign_of(w.s2, above, below, [1, u64::MAX])?
            }
            O::I64ABS => {
                let zero = self.const_like(w.s2, 0);
                let neg = sp!(self, self.b.s_less_than(w.b2, None, s[0], zero))?;
                let n = sp!(self, self.b.s_negate(w.s2, None, s[0]))?;
                self.pick(w.s2, neg, n, s[0])?
            }
            O::I64NEG => sp!(self, self.b.s_negate(w.s2, None, s[0]))?,
            O::D2U64 => self.float_to_int_saturated(s[0], d2, w.q2, Saturation::U64_FROM_F64)?,
            O::D2I64 => self.float_to_int_saturated(s[0], d2, w.s2, Saturation::I64_FROM_F64)?,
            O::U642D => sp!(self, self.b.convert_u_to_f(d2, None, s[0]))?,
            O::I642D => sp!(self, self.b.convert_s_to_f(d2, None, s[0]))?,
            O::U64ADD => sp!(self, self.b.i_add(w.q2, None, s[0], s[1]))?,
            O::U64MUL => sp!(self, self.b.i_mul(w.q2, None, s[0], s[1]))?,
            O::U64DIV | O::U64MOD => self.divide(op, w.q2, s[0], s[1])?,
            O::I64DIV | O::I64MOD => self.divide(op, w.s2, s[0], s[1])?,
            O::I64MIN => self.gl(w.s2, GlslStd450Op::SMin, &[s[0], s[1]])?,
            O::I64MAX => self.gl(w.s2, GlslStd450Op::SMax, &[s[0], s[1]])?,
            O::U64MIN => self.gl(w.q2, GlslStd450Op::UMin, &[s[0], s[1]])?,
            O::U64MAX => self.gl(w.q2, GlslStd450Op::UMax, &[s[0], s[1]])?,
            other => return Err(self.fail(format!("{other} is not translated to SPIR-V yet"))),
        })
    }

    /// `x`, a vector of `n` doubles, rounded to an integer by IEEE
    /// additions alone: |x| below 2^52 is rounded to nearest even by adding
    /// and taking away 2^52 (where the spacing of doubles is 1), truncation
    /// takes one away where that went up, and x's sign bit goes back on, so
    /// -0.3 gives -0; NaNs, infinities and larger magnitudes (already
    /// integers) are x itself. GLSL's `RoundEven` and `Trunc` on doubles
    /// are not used: lavapipe built for a CPU without AVX-512 rounds ties
    /// down in the first and keeps fractions above 2^31 in the second, and
    /// drops the sign of a zero result in both.
    pub(crate) fn round64(&mut self, n: u32, x: Word, how: Rounding) -> R {
        let w = self.wide_types();
        let (dty, uty, bty) = self.f64_vector_types(n);
        let mut splat = |t: Word, scalar: Word, bits: u64| {
            let c = self.b.constant_bit64(scalar, bits);
            self.b.constant_composite(t, vec![c; n as usize])
        };
        let sign = splat(uty, w.u64, 1 << 63);
        let keep = splat(uty, w.u64, !(1 << 63));
        let big = splat(dty, w.f64, 4503599627370496f64.to_bits());
        let one = splat(dty, w.f64, 1f64.to_bits());
        let bits = sp!(self, self.b.bitcast(uty, None, x))?;
        let magnitude = sp!(self, self.b.bitwise_and(uty, None, bits, keep))?;
        let magnitude = sp!(self, self.b.bitcast(dty, None, magnitude))?;
        let up = sp!(self, self.b.f_add(dty, None, magnitude, big))?;
        let up = self.no_contraction(up);
        let mut r = sp!(self, self.b.f_sub(dty, None, up, big))?;
        r = self.no_contraction(r);
        if how == Rounding::Truncate {
            let over = sp!(self, self.b.f_ord_greater_than(bty, None, r, magnitude))?;
            let less = sp!(self, self.b.f_sub(dty, None, r, one))?;
            let less = self.no_contraction(less);
            r = self.pick(dty, over, less, r)?;
        }
        let r_bits = sp!(self, self.b.bitcast(uty, None, r))?;
        let x_sign = sp!(self, self.b.bitwise_and(uty, None, bits, sign))?;
        let signed = sp!(self, self.b.bitwise_or(uty, None, r_bits, x_sign))?;
        let signed = sp!(self, self.b.bitcast(dty, None, signed))?;
        let small = sp!(self, self.b.f_ord_less_than(bty, None, magnitude, big))?;
        self.pick(dty, small, signed, x)
    }

    /// `above ? signs[0] : below ? signs[1] : 0` of vector type `ty`.
    fn sign_of(&mut self, ty: Word, above: Word, below: Word, signs: [u64; 2]) -> R {
        let (plus, minus, zero) = (
            self.const_like(ty, signs[0]),
            self.const_like(ty, signs[1]),
            self.const_like(ty, 0),
        );
        let r = self.pick(ty, below, minus, zero)?;
        self.pick(ty, above, plus, r)
    }

    /// DSQRT with the machine's results where GLSL leaves `Sqrt`
    /// undefined: below zero the default NaN of its host (x86's, sign
    /// set), and each zero itself.
    fn sqrt64(&mut self, x: Word) -> R {
        let w = self.wide_types();
        let r = self.gl(w.d2, GlslStd450Op::Sqrt, &[x])?;
        let zero = self.const_like(w.d2, 0);
        let nan = self.const_like(w.d2, 0xfff8_0000_0000_0000);
        let negative = sp!(self, self.b.f_ord_less_than(w.b2, None, x, zero))?;
        let is_zero = sp!(self, self.b.f_ord_equal(w.b2, None, x, zero))?;
        let r = self.pick(w.d2, negative, nan, r)?;
        self.pick(w.d2, is_zero, x, r)
    }

    /// U64SHL, I64SHR, U64SHR: `a` shifted by the 32-bit counts `n`
    /// (modulo 64).
    pub(crate) fn shift64(&mut self, op: Opcode, a: Word, n: Word) -> R {
        let w = self.wide_types();
        let m = self.const_like(w.u2, 63);
        let n = sp!(self, self.b.bitwise_and(w.u2, None, n, m))?;
        let n = sp!(self, self.b.u_convert(w.q2, None, n))?;
        Ok(match op {
            Opcode::U64SHL => sp!(self, self.b.shift_left_logical(w.q2, None, a, n))?,
            Opcode::I64SHR => sp!(self, self.b.shift_right_arithmetic(w.s2, None, a, n))?,
            Opcode::U64SHR => sp!(self, self.b.shift_right_logical(w.q2, None, a, n))?,
            other => return Err(self.fail(format!("{other} is not translated to SPIR-V yet"))),
        })
    }

    /// A 64-bit comparison: `~0` or 0 per pair, as a `uvec2`.
    pub(crate) fn compare64(&mut self, op: Opcode, a: Word, b: Word) -> R {
        use Opcode as O;
        let w = self.wide_types();
        let b2 = w.b2;
        let c = match op {
            O::DSLT => sp!(self, self.b.f_ord_less_than(b2, None, a, b))?,
            O::DSGE => sp!(self, self.b.f_ord_greater_than_equal(b2, None, a, b))?,
            O::DSEQ => sp!(self, self.b.f_ord_equal(b2, None, a, b))?,
            O::DSNE => sp!(self, self.b.f_unord_not_equal(b2, None, a, b))?,
            O::U64SEQ => sp!(self, self.b.i_equal(b2, None, a, b))?,
            O::U64SNE => sp!(self, self.b.i_not_equal(b2, None, a, b))?,
            O::U64SLT => sp!(self, self.b.u_less_than(b2, None, a, b))?,
            O::U64SGE => sp!(self, self.b.u_greater_than_equal(b2, None, a, b))?,
            O::I64SLT => sp!(self, self.b.s_less_than(b2, None, a, b))?,
            O::I64SGE => sp!(self, self.b.s_greater_than_equal(b2, None, a, b))?,
            other => return Err(self.fail(format!("{other} is not translated to SPIR-V yet"))),
        };
        let (ones, zero) = (self.const_like(w.u2, u64::MAX), self.const_like(w.u2, 0));
        self.pick(w.u2, c, ones, zero)
    }

    /// A conversion from two 32-bit values `x` to two 64-bit ones.
    pub(crate) fn widen(&mut self, op: Opcode, x: Word) -> R {
        use Opcode as O;
        let w = self.wide_types();
        Ok(match op {
            O::F2D => sp!(self, self.b.f_convert(w.d2, None, x))?,
            O::I2D => sp!(self, self.b.convert_s_to_f(w.d2, None, x))?,
            O::U2D => sp!(self, self.b.convert_u_to_f(w.d2, None, x))?,
            O::F2U64 => self.float_to_int_saturated(x, w.f2, w.q2, Saturation::U64_FROM_F32)?,
            O::F2I64 => self.float_to_int_saturated(x, w.f2, w.s2, Saturation::I64_FROM_F32)?,
            O::U2I64 => sp!(self, self.b.u_convert(w.q2, None, x))?,
            O::I2I64 => sp!(self, self.b.s_convert(w.s2, None, x))?,
            other => return Err(self.fail(format!("{other} is not translated to SPIR-V yet"))),
        })
    }

    /// A conversion from two 64-bit values `a` to two 32-bit ones, and
    /// their vector type.
    pub(crate) fn narrow(&mut self, op: Opcode, a: Word) -> Result<(Word, Word), Error> {
        use Opcode as O;
        let w = self.wide_types();
        Ok(match op {
            O::D2F => (sp!(self, self.b.f_convert(w.f2, None, a))?, w.f2),
            O::D2I => (
                self.float_to_int_saturated(a, w.d2, w.i2, Saturation::I32_FROM_F64)?,
                w.i2,
            ),
            O::D2U => (
                self.float_to_int_saturated(a, w.d2, w.u2, Saturation::U32_FROM_F64)?,
                w.u2,
            ),
            O::U642F => (sp!(self, self.b.convert_u_to_f(w.f2, None, a))?, w.f2),
            O::I642F => (sp!(self, self.b.convert_s_to_f(w.f2, None, a))?, w.f2),
            other => return Err(self.fail(format!("{other} is not translated to SPIR-V yet"))),
        })
    }
}
