//! PK2H and UP2H: two float32 values to the two halves of a word and
//! back. The conversion to half is written with integer operations (GLSL's
//! `PackHalf2x16` leaves its rounding to the device): to nearest even for
//! TGSI, toward zero (saturating finite values at the largest half) under
//! Direct3D's rules, NaNs keeping the top of their payload, as the
//! machine's `ops::pk2h` and `ops::pk2h_toward_zero` do.

use super::Error;
use super::module::Translator;
use rspirv::spirv::{GlslStd450Op, Word};
use tgsi_ir::opcode::Opcode;

type R = Result<Word, Error>;

impl Translator<'_> {
    /// PK2H or UP2H on sources `s`; `None` for the other opcodes.
    pub(crate) fn pack_op(&mut self, op: Opcode, s: &[Word]) -> Result<Option<Word>, Error> {
        let (f4, u4, u32_) = (self.t.f4, self.t.u4, self.t.u32);
        match op {
            Opcode::PK2H => {
                let bits = sp!(self, self.b.bitcast(u4, None, s[0]))?;
                let h = if self.options.direct3d {
                    self.half_toward_zero(bits)?
                } else {
                    self.half_nearest(bits)?
                };
                let lo = sp!(self, self.b.composite_extract(u32_, None, h, [0]))?;
                let hi = sp!(self, self.b.composite_extract(u32_, None, h, [1]))?;
                let sixteen = self.c_u32(16);
                let hi = sp!(self, self.b.shift_left_logical(u32_, None, hi, sixteen))?;
                let w = sp!(self, self.b.bitwise_or(u32_, None, lo, hi))?;
                let v = self.splat(u4, w);
                Ok(Some(sp!(self, self.b.bitcast(f4, None, v))?))
            }
            Opcode::UP2H => {
                // half to float is exact: (low, high, low, high)
                let x = sp!(self, self.b.composite_extract(u32_, None, s[0], [0]))?;
                let f2 = self.b.type_vector(self.t.f32, 2);
                let v = self.gl(f2, GlslStd450Op::UnpackHalf2x16, &[x])?;
                Ok(Some(sp!(
                    self,
                    self.b.vector_shuffle(f4, None, v, v, [0, 1, 0, 1])
                )?))
            }
            _ => Ok(None),
        }
    }

    /// `c` splat as a `uvec4`.
    fn u4c(&mut self, c: u32) -> Word {
        let u4 = self.t.u4;
        self.splat_bits(u4, c)
    }

    /// Float32 bits to half bits, to nearest even, per channel: overflow
    /// gives infinity, NaN a quiet NaN with the payload's top bits.
    fn half_nearest(&mut self, bits: Word) -> R {
        let (u4, f4, b4) = (self.t.u4, self.t.f4, self.t.b4);
        let sign_mask = self.u4c(0x8000_0000);
        let sign = sp!(self, self.b.bitwise_and(u4, None, bits, sign_mask))?;
        let f = sp!(self, self.b.bitwise_xor(u4, None, bits, sign))?;
        // NaN, infinity and overflow
        let inf = self.u4c(0x7f80_0000);
        let is_nan = sp!(self, self.b.u_greater_than(b4, None, f, inf))?;
        let top = self.u4c(0x4780_0000);
        let big = sp!(self, self.b.u_greater_than_equal(b4, None, f, top))?;
        let man_mask = self.u4c(0x007f_ffff);
        let man = sp!(self, self.b.bitwise_and(u4, None, f, man_mask))?;
        let thirteen = self.u4c(13);
        let payload = sp!(self, self.b.shift_right_logical(u4, None, man, thirteen))?;
        let quiet = self.u4c(0x7e00);
        let nan = sp!(self, self.b.bitwise_or(u4, None, quiet, payload))?;
        let infinity = self.u4c(0x7c00);
        let o_big = self.pick(u4, is_nan, nan, infinity)?;
        // below the normal halves: add 0.5 so the float adder rounds the
        // value to a multiple of 2^-24, whose bits are the half's
        let small_top = self.u4c(0x3880_0000);
        let small = sp!(self, self.b.u_less_than(b4, None, f, small_top))?;
        let magic = self.u4c(0x3f00_0000);
        let ff = sp!(self, self.b.bitcast(f4, None, f))?;
        let mf = sp!(self, self.b.bitcast(f4, None, magic))?;
        let sum = self.fadd(f4, ff, mf)?;
        let sum = sp!(self, self.b.bitcast(u4, None, sum))?;
        let o_small = sp!(self, self.b.i_sub(u4, None, sum, magic))?;
        // normal halves: rebias, round half to even on bit 13
        let one = self.u4c(1);
        let odd = sp!(self, self.b.shift_right_logical(u4, None, f, thirteen))?;
        let odd = sp!(self, self.b.bitwise_and(u4, None, odd, one))?;
        let rebias = self.u4c(0xc800_0fff);
        let t = sp!(self, self.b.i_add(u4, None, f, rebias))?;
        let t = sp!(self, self.b.i_add(u4, None, t, odd))?;
        let o_norm = sp!(self, self.b.shift_right_logical(u4, None, t, thirteen))?;
        let o = self.pick(u4, small, o_small, o_norm)?;
        let o = self.pick(u4, big, o_big, o)?;
        let sixteen = self.u4c(16);
        let s16 = sp!(self, self.b.shift_right_logical(u4, None, sign, sixteen))?;
        sp!(self, self.b.bitwise_or(u4, None, o, s16))
    }

    /// Float32 bits to half bits toward zero (Direct3D): finite values past
    /// the half range give the largest finite half, float32 denormals a
    /// zero, infinities stay, NaN becomes 0x7e00.
    fn half_toward_zero(&mut self, bits: Word) -> R {
        let (u4, b4) = (self.t.u4, self.t.b4);
        let (sixteen, thirteen, twenty3) = (self.u4c(16), self.u4c(13), self.u4c(23));
        let s = sp!(self, self.b.shift_right_logical(u4, None, bits, sixteen))?;
        let sign_mask = self.u4c(0x8000);
        let sign = sp!(self, self.b.bitwise_and(u4, None, s, sign_mask))?;
        let e = sp!(self, self.b.shift_right_logical(u4, None, bits, twenty3))?;
        let ff = self.u4c(0xff);
        let exp = sp!(self, self.b.bitwise_and(u4, None, e, ff))?;
        let man_mask = self.u4c(0x007f_ffff);
        let man = sp!(self, self.b.bitwise_and(u4, None, bits, man_mask))?;
        let zero = self.u4c(0);
        // denormal halves: the 24-bit significand shifted right by 126 - exp
        let c126 = self.u4c(126);
        let shift = sp!(self, self.b.i_sub(u4, None, c126, exp))?;
        let c31 = self.u4c(31);
        let far = sp!(self, self.b.u_greater_than(b4, None, shift, c31))?;
        let shift = self.pick(u4, far, c31, shift)?;
        let implicit = self.u4c(0x80_0000);
        let sig = sp!(self, self.b.bitwise_or(u4, None, man, implicit))?;
        let den = sp!(self, self.b.shift_right_logical(u4, None, sig, shift))?;
        let den = self.pick(u4, far, zero, den)?;
        // normal halves: rebias the exponent, cut the significand
        let c112 = self.u4c(112);
        let he = sp!(self, self.b.i_sub(u4, None, exp, c112))?;
        let ten = self.u4c(10);
        let he = sp!(self, self.b.shift_left_logical(u4, None, he, ten))?;
        let hm = sp!(self, self.b.shift_right_logical(u4, None, man, thirteen))?;
        let norm = sp!(self, self.b.bitwise_or(u4, None, he, hm))?;
        let is_norm = sp!(self, self.b.u_greater_than(b4, None, exp, c112))?;
        let o = self.pick(u4, is_norm, norm, den)?;
        let c143 = self.u4c(143);
        let sat = sp!(self, self.b.u_greater_than_equal(b4, None, exp, c143))?;
        let largest = self.u4c(0x7bff);
        let o = self.pick(u4, sat, largest, o)?;
        let is_zero = sp!(self, self.b.i_equal(b4, None, exp, zero))?;
        let o = self.pick(u4, is_zero, zero, o)?;
        let is_special = sp!(self, self.b.i_equal(b4, None, exp, ff))?;
        let has_man = sp!(self, self.b.i_not_equal(b4, None, man, zero))?;
        let (nan, inf) = (self.u4c(0x7e00), self.u4c(0x7c00));
        let special = self.pick(u4, has_man, nan, inf)?;
        let o = self.pick(u4, is_special, special, o)?;
        sp!(self, self.b.bitwise_or(u4, None, o, sign))
    }
}
