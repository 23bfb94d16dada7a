//! The packing opcodes: PK2H and UP2H (two float32 values to the halves of
//! a word and back), PK2US/UP2US (unorm16), PK4UB/UP4UB (unorm8) and
//! PK4B/UP4B (snorm8). The conversion to half is written with integer
//! operations (GLSL's `PackHalf2x16` leaves its rounding to the device): to
//! nearest even for TGSI, toward zero (saturating finite values at the
//! largest half) under Direct3D's rules, NaNs keeping the top of their
//! payload, as the machine's `ops::pk2h` and `ops::pk2h_toward_zero` do.
//! The normalized packings scale in double precision, one rounding to
//! nearest even (NaN gives 0), as `ops::pk2us` ... do; the unpackings
//! divide (correctly rounded).

use super::Error;
use super::module::Translator;
use super::wide_ops::Rounding;
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
                // half to float is exact, written in integer code (x, z
                // from the low half, y, w from the high one)
                let x = sp!(self, self.b.composite_extract(u32_, None, s[0], [0]))?;
                let w = self.splat(u4, x);
                let shifts: Vec<Word> = [0, 16, 0, 16].iter().map(|&k| self.c_u32(k)).collect();
                let sh = self.b.constant_composite(u4, shifts);
                let h = sp!(self, self.b.shift_right_logical(u4, None, w, sh))?;
                let low16 = self.u4c(0xffff);
                let h = sp!(self, self.b.bitwise_and(u4, None, h, low16))?;
                let v = self.half_to_float(h)?;
                Ok(Some(sp!(self, self.b.bitcast(f4, None, v))?))
            }
            Opcode::PK2US | Opcode::PK4UB | Opcode::PK4B => {
                let v = self.pack_normalized(op, s[0])?;
                Ok(Some(sp!(self, self.b.bitcast(f4, None, v))?))
            }
            Opcode::UP2US | Opcode::UP4UB | Opcode::UP4B => {
                let bits = sp!(self, self.b.bitcast(u4, None, s[0]))?;
                let x = sp!(self, self.b.composite_extract(u32_, None, bits, [0]))?;
                Ok(Some(self.unpack_normalized(op, x)?))
            }
            _ => Ok(None),
        }
    }

    /// PK2US, PK4UB, PK4B: the channels (two or four) clamped, scaled in
    /// double precision and rounded to nearest even, NaN giving 0, packed
    /// low channel first; the word replicated.
    fn pack_normalized(&mut self, op: Opcode, v: Word) -> R {
        let (f4, u4, u32_, b4) = (self.t.f4, self.t.u4, self.t.u32, self.t.b4);
        let (lo, max, width, count) = match op {
            Opcode::PK2US => (0.0f32, 65535.0, 16, 2),
            Opcode::PK4UB => (0.0, 255.0, 8, 4),
            _ => (-1.0, 127.0, 8, 4),
        };
        let nan = sp!(self, self.b.is_nan(b4, None, v))?;
        let zero = self.splat_bits(f4, 0);
        let v = self.pick(f4, nan, zero, v)?;
        let (l, h) = (
            self.splat_bits(f4, lo.to_bits()),
            self.splat_bits(f4, 1f32.to_bits()),
        );
        let c = self.gl(f4, GlslStd450Op::FClamp, &[v, l, h])?;
        let f64_ = self.wide_types().f64;
        let d4 = self.b.type_vector(f64_, 4);
        let d = sp!(self, self.b.f_convert(d4, None, c))?;
        let m = self.b.constant_bit64(f64_, f64::to_bits(max));
        let m4 = self.b.constant_composite(d4, [m, m, m, m]);
        let scaled = self.fmul(d4, d, m4)?;
        let r = self.round64(4, scaled, Rounding::NearestEven)?;
        let i4 = self.t.i4;
        let n = sp!(self, self.b.convert_f_to_s(i4, None, r))?;
        let n = sp!(self, self.b.bitcast(u4, None, n))?;
        let mask = self.u4c((1 << width) - 1);
        let n = sp!(self, self.b.bitwise_and(u4, None, n, mask))?;
        let mut word = sp!(self, self.b.composite_extract(u32_, None, n, [0]))?;
        for k in 1..count {
            let part = sp!(self, self.b.composite_extract(u32_, None, n, [k]))?;
            let shift = self.c_u32(width * k);
            let part = sp!(self, self.b.shift_left_logical(u32_, None, part, shift))?;
            word = sp!(self, self.b.bitwise_or(u32_, None, word, part))?;
        }
        Ok(self.splat(u4, word))
    }

    /// UP2US (x, z from the low half, y, w from the high one), UP4UB and
    /// UP4B (byte k to channel k): each field divided by its scale,
    /// UP4B's at least -1.
    fn unpack_normalized(&mut self, op: Opcode, x: Word) -> R {
        let (f4, u4, i4) = (self.t.f4, self.t.u4, self.t.i4);
        let w = self.splat(u4, x);
        let (shifts, width, scale): ([u32; 4], u32, f32) = match op {
            Opcode::UP2US => ([0, 16, 0, 16], 16, 65535.0),
            Opcode::UP4UB => ([0, 8, 16, 24], 8, 255.0),
            _ => ([0, 8, 16, 24], 8, 127.0),
        };
        let signed = op == Opcode::UP4B;
        // the field at the top of the word, then down (arithmetically for
        // the signed bytes)
        let ups: Vec<Word> = shifts.iter().map(|s| self.c_u32(32 - width - s)).collect();
        let up = self.b.constant_composite(u4, ups);
        let top = sp!(self, self.b.shift_left_logical(u4, None, w, up))?;
        let down = self.u4c(32 - width);
        let f = if signed {
            let t = sp!(self, self.b.bitcast(i4, None, top))?;
            let v = sp!(self, self.b.shift_right_arithmetic(i4, None, t, down))?;
            sp!(self, self.b.convert_s_to_f(f4, None, v))?
        } else {
            let v = sp!(self, self.b.shift_right_logical(u4, None, top, down))?;
            sp!(self, self.b.convert_u_to_f(f4, None, v))?
        };
        let sc = self.splat_bits(f4, scale.to_bits());
        let r = sp!(self, self.b.f_div(f4, None, f, sc))?;
        if signed {
            let minus1 = self.splat_bits(f4, (-1f32).to_bits());
            return self.gl(f4, GlslStd450Op::FMax, &[r, minus1]);
        }
        Ok(r)
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

    /// Half bits (in the low 16 bits of each channel) to float32 bits:
    /// exact, denormal halves normalized, a NaN quiet with its payload on
    /// top (the machine's `half` conversion).
    fn half_to_float(&mut self, h: Word) -> R {
        let (u4, f4, b4) = (self.t.u4, self.t.f4, self.t.b4);
        let (sixteen, ten, thirteen) = (self.u4c(16), self.u4c(10), self.u4c(13));
        let sign_bit = self.u4c(0x8000);
        let sign = sp!(self, self.b.bitwise_and(u4, None, h, sign_bit))?;
        let sign = sp!(self, self.b.shift_left_logical(u4, None, sign, sixteen))?;
        let e = sp!(self, self.b.shift_right_logical(u4, None, h, ten))?;
        let c31 = self.u4c(31);
        let exp = sp!(self, self.b.bitwise_and(u4, None, e, c31))?;
        let man_mask = self.u4c(0x3ff);
        let man = sp!(self, self.b.bitwise_and(u4, None, h, man_mask))?;
        let m13 = sp!(self, self.b.shift_left_logical(u4, None, man, thirteen))?;
        // normal: rebias the exponent
        let c112 = self.u4c(112);
        let fe = sp!(self, self.b.i_add(u4, None, exp, c112))?;
        let twenty3 = self.u4c(23);
        let fe = sp!(self, self.b.shift_left_logical(u4, None, fe, twenty3))?;
        let normal = sp!(self, self.b.bitwise_or(u4, None, fe, m13))?;
        // denormal (and zero): man × 2^-24, exact in float32
        let mf = sp!(self, self.b.convert_u_to_f(f4, None, man))?;
        let tiny = self.splat_bits(f4, 0x3380_0000);
        let d = sp!(self, self.b.f_mul(f4, None, mf, tiny))?;
        let d = self.no_contraction(d);
        let denormal = sp!(self, self.b.bitcast(u4, None, d))?;
        // infinity and NaN (quiet, payload kept)
        let zero = self.u4c(0);
        let has_man = sp!(self, self.b.i_not_equal(b4, None, man, zero))?;
        let (inf, qnan) = (self.u4c(0x7f80_0000), self.u4c(0x7fc0_0000));
        let top = self.pick(u4, has_man, qnan, inf)?;
        let special = sp!(self, self.b.bitwise_or(u4, None, top, m13))?;
        let is_den = sp!(self, self.b.i_equal(b4, None, exp, zero))?;
        let is_special = sp!(self, self.b.i_equal(b4, None, exp, c31))?;
        let v = self.pick(u4, is_den, denormal, normal)?;
        let v = self.pick(u4, is_special, special, v)?;
        sp!(self, self.b.bitwise_or(u4, None, v, sign))
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
