//! 64-bit instructions: doubles and 64-bit integers held in channel pairs
//! (a register's xy is one value and zw another, low word first). Sources
//! are read as two-component vectors of `double`, `uint64_t` or `int64_t`
//! (an `OpBitcast` of the four words keeps exactly that layout), computed
//! on, and written back with the machine's write-mask rules for pairs
//! (`tgsi-exec`'s `alu.rs`): unary, ternary and widening opcodes write a
//! pair whose two mask bits are both set, binary and shift opcodes a pair
//! with either bit set (both words), comparisons their booleans to x
//! (from xy) and z (from zw), and narrowing opcodes their two results to x
//! (from xy) and y (from zw), where the mask enables them
//! (`PairShape::word_channels`).
//!
//! The machine's results are kept where SPIR-V leaves them open: the
//! saturating conversions to integers (NaN gives 0), division by zero,
//! shift counts modulo 64, DMIN/DMAX on zeros and NaNs, DSQRT/DRSQ at and
//! below zero, DSSG and DFRACEXP on zeros, infinities and NaNs, DMAD
//! unfused. DLDEXP is written with exact steps and one rounding (GLSL's `Ldexp` is undefined
//! where the result overflows).

use super::Error;
use super::module::Translator;
use rspirv::spirv::{Capability, GlslStd450Op, Word};
use tgsi_ir::ir::{DstOperand, Instruction};
use tgsi_ir::opcode::{Channels, Opcode, OperandType, PairShape};

type R = Result<Word, Error>;

/// The 64-bit scalar and two-component types, and the 32-bit
/// two-component ones that widening and narrowing use.
#[derive(Clone, Copy)]
pub(crate) struct WideTypes {
    pub f64: Word,
    pub u64: Word,
    pub i64: Word,
    /// `dvec2`, `u64vec2`, `i64vec2`
    pub d2: Word,
    pub q2: Word,
    pub s2: Word,
    /// `vec2`, `uvec2`, `ivec2`, `bvec2`
    pub f2: Word,
    pub u2: Word,
    pub i2: Word,
    pub b2: Word,
}

impl Translator<'_> {
    /// The 64-bit types (declared, with the `Float64` and `Int64`
    /// capabilities, by the first 64-bit instruction).
    pub(crate) fn wide_types(&mut self) -> WideTypes {
        if let Some(w) = self.wide {
            return w;
        }
        self.b.capability(Capability::Float64);
        self.b.capability(Capability::Int64);
        let f64_ = self.b.type_float(64, None);
        let u64_ = self.b.type_int(64, 0);
        let i64_ = self.b.type_int(64, 1);
        let w = WideTypes {
            f64: f64_,
            u64: u64_,
            i64: i64_,
            d2: self.b.type_vector(f64_, 2),
            q2: self.b.type_vector(u64_, 2),
            s2: self.b.type_vector(i64_, 2),
            f2: self.b.type_vector(self.t.f32, 2),
            u2: self.b.type_vector(self.t.u32, 2),
            i2: self.b.type_vector(self.t.i32, 2),
            b2: self.b.type_vector(self.t.bool, 2),
        };
        self.wide = Some(w);
        w
    }

    /// A constant vector of type `ty` (any vector type the translator
    /// uses) with every component's bits `bits` (truncated to 32 bits for
    /// the 32-bit types).
    pub(crate) fn const_like(&mut self, ty: Word, bits: u64) -> Word {
        if [self.t.f4, self.t.u4, self.t.i4].contains(&ty) {
            return self.splat_bits(ty, bits as u32);
        }
        let w = self.wide_types();
        let (scalar, wide) = match ty {
            t if t == w.d2 => (w.f64, true),
            t if t == w.q2 => (w.u64, true),
            t if t == w.s2 => (w.i64, true),
            t if t == w.f2 => (self.t.f32, false),
            t if t == w.i2 => (self.t.i32, false),
            _ => (self.t.u32, false),
        };
        let c = if wide {
            self.b.constant_bit64(scalar, bits)
        } else {
            self.b.constant_bit32(scalar, bits as u32)
        };
        self.b.constant_composite(ty, [c, c])
    }

    /// The double, 64-bit unsigned and boolean vector types of `n`
    /// components (2: the pair types).
    pub(crate) fn f64_vector_types(&mut self, n: u32) -> (Word, Word, Word) {
        let w = self.wide_types();
        if n == 2 {
            return (w.d2, w.q2, w.b2);
        }
        (
            self.b.type_vector(w.f64, n),
            self.b.type_vector(w.u64, n),
            self.b.type_vector(self.t.bool, n),
        )
    }

    /// The boolean vector type with as many components as `ty`.
    pub(crate) fn bool_like(&self, ty: Word) -> Word {
        match self.wide {
            Some(w) if [w.d2, w.q2, w.s2, w.f2, w.u2, w.i2].contains(&ty) => w.b2,
            _ => self.t.b4,
        }
    }

    /// The unsigned vector type of the same shape and width as `ty`.
    pub(crate) fn bits_like(&self, ty: Word) -> Word {
        match self.wide {
            Some(w) if [w.d2, w.q2, w.s2].contains(&ty) => w.q2,
            Some(w) if [w.f2, w.u2, w.i2].contains(&ty) => w.u2,
            _ => self.t.u4,
        }
    }

    /// The two-component 64-bit vector type of operand type `ty`.
    fn pair_type(&mut self, ty: OperandType) -> Word {
        let w = self.wide_types();
        match ty {
            OperandType::Int64 => w.s2,
            OperandType::Uint64 => w.q2,
            _ => w.d2,
        }
    }

    /// The two-component 32-bit vector type of operand type `ty`.
    fn narrow_type(&mut self, ty: OperandType) -> Word {
        let w = self.wide_types();
        match ty {
            OperandType::Int => w.i2,
            OperandType::Uint => w.u2,
            _ => w.f2,
        }
    }

    /// Source `src` as two 64-bit values of type `ty` (its swizzled xy and
    /// zw), with its absolute value and negation in that type (doubles: the
    /// sign bit cleared, flipped; integers: two's complement).
    fn fetch_pairs(&mut self, src: &tgsi_ir::ir::SrcOperand, ty: OperandType) -> R {
        let mut bits = self.fetch_bits(src)?;
        let u4 = self.t.u4;
        if ty == OperandType::Double && (src.absolute || src.negate) {
            let high = |v: u32| [0, v, 0, v];
            if src.absolute {
                let m = high(0x7fff_ffff).map(|v| if v == 0 { u32::MAX } else { v });
                let m = self.u4_const(m);
                bits = sp!(self, self.b.bitwise_and(u4, None, bits, m))?;
            }
            if src.negate {
                let m = self.u4_const(high(0x8000_0000));
                bits = sp!(self, self.b.bitwise_xor(u4, None, bits, m))?;
            }
        }
        let ty2 = self.pair_type(ty);
        let mut v = sp!(self, self.b.bitcast(ty2, None, bits))?;
        if ty != OperandType::Double {
            let s2 = self.wide_types().s2;
            if src.absolute {
                v = self.abs64(v, ty2)?;
            }
            if src.negate {
                let s = self.recast(v, ty2, s2)?;
                let n = sp!(self, self.b.s_negate(s2, None, s))?;
                v = self.recast(n, s2, ty2)?;
            }
        }
        Ok(v)
    }

    /// `v` (of type `from`) as type `to`: a bitcast when they differ.
    pub(crate) fn recast(&mut self, v: Word, from: Word, to: Word) -> Result<Word, Error> {
        if from == to {
            Ok(v)
        } else {
            sp!(self, self.b.bitcast(to, None, v))
        }
    }

    /// A constant `uvec4`.
    fn u4_const(&mut self, words: [u32; 4]) -> Word {
        let cs: Vec<Word> = words.iter().map(|&w| self.c_u32(w)).collect();
        let u4 = self.t.u4;
        self.b.constant_composite(u4, cs)
    }

    /// `|v|` of a 64-bit integer vector of type `ty` (wrapping: `|MIN|`
    /// is MIN).
    fn abs64(&mut self, v: Word, ty: Word) -> R {
        let w = self.wide_types();
        let s = self.recast(v, ty, w.s2)?;
        let zero = self.const_like(w.s2, 0);
        let neg = sp!(self, self.b.s_less_than(w.b2, None, s, zero))?;
        let n = sp!(self, self.b.s_negate(w.s2, None, s))?;
        let r = self.pick(w.s2, neg, n, s)?;
        self.recast(r, w.s2, ty)
    }

    /// One instruction whose channels are 64-bit pairs, or `None` for any
    /// other.
    pub(crate) fn wide_instruction(&mut self, inst: &Instruction) -> Result<Option<()>, Error> {
        let op = inst.opcode;
        let info = op.info();
        let Channels::Pair64(shape) = info.channels else {
            return Ok(None);
        };
        let dst = inst
            .dst
            .first()
            .ok_or_else(|| self.fail(format!("{op} has no destination")))?;
        let mask = dst.write_mask.bits();
        let both = [mask & 0b0011 == 0b0011, mask & 0b1100 == 0b1100];
        let any = [mask & 0b0011 != 0, mask & 0b1100 != 0];
        // the result vector's type (a `dvec2` exactly for double results)
        let result_ty = self.pair_type(info.dst_type);
        match shape {
            PairShape::Unary | PairShape::Binary | PairShape::Ternary => {
                let mut s = Vec::with_capacity(inst.src.len());
                for (src, ty) in inst.src.iter().zip(info.src_types) {
                    s.push(self.fetch_pairs(src, *ty)?);
                }
                let v = self.alu64(op, &s)?;
                let pairs = if shape == PairShape::Binary {
                    any
                } else {
                    both
                };
                self.store_pairs(inst, dst, (v, result_ty), pairs)?;
            }
            PairShape::Shift => {
                let a = self.fetch_pairs(&inst.src[0], info.src_types[0])?;
                // the count as a 32-bit integer operand (its modifiers
                // applied as the opcode table types it), src1.x for xy and
                // src1.y for zw
                let n = self.fetch(&inst.src[1], info.src_types[1])?;
                let u4 = self.t.u4;
                let n = if info.src_types[1] == OperandType::Uint {
                    n
                } else {
                    sp!(self, self.b.bitcast(u4, None, n))?
                };
                let u2 = self.wide_types().u2;
                let v = if op == Opcode::DLDEXP {
                    // the exponents: src1.x for xy, src1.z for zw
                    let n = sp!(self, self.b.vector_shuffle(u2, None, n, n, [0, 2]))?;
                    self.ldexp64(a, n)?
                } else {
                    let n = sp!(self, self.b.vector_shuffle(u2, None, n, n, [0, 1]))?;
                    self.shift64(op, a, n)?
                };
                self.store_pairs(inst, dst, (v, result_ty), any)?;
            }
            PairShape::Compare => {
                let a = self.fetch_pairs(&inst.src[0], info.src_types[0])?;
                let b = self.fetch_pairs(&inst.src[1], info.src_types[1])?;
                let c = self.compare64(op, a, b)?;
                let (slots, written) = word_slots(PairShape::Compare, mask);
                let u2 = self.wide_types().u2;
                self.store_narrow(inst, dst, (c, u2), written, slots)?;
            }
            PairShape::Widen => {
                let ty = info.src_types[0];
                let x = self.fetch(&inst.src[0], ty)?;
                let ty2 = self.narrow_type(ty);
                let x = sp!(self, self.b.vector_shuffle(ty2, None, x, x, [0, 1]))?;
                let v = self.widen(op, x)?;
                self.store_pairs(inst, dst, (v, result_ty), both)?;
            }
            PairShape::Narrow => {
                let (slots, written) = word_slots(PairShape::Narrow, mask);
                let a = self.fetch_pairs(&inst.src[0], info.src_types[0])?;
                let v = self.narrow(op, a)?;
                self.store_narrow(inst, dst, v, written, slots)?;
            }
            PairShape::FracExp => self.frac_exp(inst, dst, both)?,
        }
        Ok(Some(()))
    }

    /// Writes the 64-bit pairs `pairs` of `v` (of type `ty`; both words of
    /// each),
    /// saturated as doubles when the instruction asks.
    fn store_pairs(
        &mut self,
        inst: &Instruction,
        dst: &DstOperand,
        (v, ty): (Word, Word),
        pairs: [bool; 2],
    ) -> Result<(), Error> {
        let w = self.wide_types();
        let mut v = v;
        if inst.saturate {
            let d = self.recast(v, ty, w.d2)?;
            let (zero, one) = (
                self.const_like(w.d2, 0),
                self.const_like(w.d2, 1f64.to_bits()),
            );
            let above = sp!(self, self.b.f_ord_greater_than(w.b2, None, d, zero))?;
            let below_one = sp!(self, self.b.f_ord_less_than(w.b2, None, d, one))?;
            let r = self.pick(w.d2, below_one, d, one)?;
            v = self.pick(w.d2, above, r, zero)?;
        }
        let u4 = self.t.u4;
        let bits = sp!(self, self.b.bitcast(u4, None, v))?;
        let chans = (pairs[0] as u8 * 0b0011) | (pairs[1] as u8 * 0b1100);
        self.store_channels(dst, bits, chans)
    }

    /// Writes the two 32-bit results `v` (a two-component vector of type
    /// `ty`) to the
    /// channels `slots` (those of `present`), flushed (D2F under
    /// Direct3D's rules) and saturated as floats when asked.
    fn store_narrow(
        &mut self,
        inst: &Instruction,
        dst: &DstOperand,
        (v, ty): (Word, Word),
        present: [bool; 2],
        slots: [u32; 2],
    ) -> Result<(), Error> {
        let (u4, f4) = (self.t.u4, self.t.f4);
        let lanes: Vec<u32> = (0..4)
            .map(|c| if slots[1] == c && present[1] { 1 } else { 0 })
            .collect();
        let u2 = self.wide_types().u2;
        let v = if ty == u2 {
            v
        } else {
            sp!(self, self.b.bitcast(u2, None, v))?
        };
        let mut bits = sp!(self, self.b.vector_shuffle(u4, None, v, v, lanes))?;
        let chans = (0..2)
            .filter(|&p| present[p])
            .fold(0u8, |m, p| m | 1 << slots[p]);
        let flush = inst.opcode.direct3d_flush().1 && self.options.direct3d;
        if flush || inst.saturate {
            let mut f = sp!(self, self.b.bitcast(f4, None, bits))?;
            if flush {
                f = self.flush(f)?;
            }
            if inst.saturate {
                f = self.saturate(f)?;
            }
            bits = sp!(self, self.b.bitcast(u4, None, f))?;
        }
        self.store_channels(dst, bits, chans)
    }

    /// DLDEXP: each double of `x` (a `dvec2`) times 2^n (`n` the raw
    /// `int` exponents, a `uvec2`), rounded once as the machine's `scalbn`:
    /// the significand m (from `Frexp`, denormals scaled first) times 2^a,
    /// exact, then times 2^b, with a + b the result's exponent E (clamped
    /// to ±1100, past which every result is 0 or infinite): a normal
    /// result takes a = min(E, 1023) (the second product exact, or an
    /// overflow to infinity), a denormal one a = E + 600 and b = -600 (the
    /// one rounding in the last product). Zeros and infinities are
    /// themselves, NaNs quieted. (GLSL's `Ldexp` is undefined where the
    /// result overflows.)
    fn ldexp64(&mut self, x: Word, n: Word) -> Result<Word, Error> {
        let w = self.wide_types();
        let (d2, i2, b2, q2) = (w.d2, w.i2, w.b2, w.q2);
        let n = sp!(self, self.b.bitcast(i2, None, n))?;
        let limit = |t: &mut Self, v: i32| t.const_like(i2, v as u32 as u64);
        // denormals scaled by 2^54 first (lavapipe's Frexp does not
        // normalize them)
        let ax = self.gl(d2, GlslStd450Op::FAbs, &[x])?;
        let smallest = self.const_like(d2, f64::MIN_POSITIVE.to_bits());
        let tiny = sp!(self, self.b.f_ord_less_than(b2, None, ax, smallest))?;
        let scale = self.const_like(d2, 2f64.powi(54).to_bits());
        let scaled = self.fmul(d2, x, scale)?;
        let x_in = self.pick(d2, tiny, scaled, x)?;
        let st = self.b.type_struct([d2, i2]);
        let fe = self.gl(st, GlslStd450Op::FrexpStruct, &[x_in])?;
        let m = sp!(self, self.b.composite_extract(d2, None, fe, [0]))?;
        let ex = sp!(self, self.b.composite_extract(i2, None, fe, [1]))?;
        let (c54, c0) = (limit(self, 54), limit(self, 0));
        let shift = self.pick(i2, tiny, c54, c0)?;
        let ex = sp!(self, self.b.i_sub(i2, None, ex, shift))?;
        // E = ex + n, n clamped first so that the sum cannot wrap
        let (lo, hi) = (limit(self, -1100), limit(self, 1100));
        let (nlo, nhi) = (limit(self, -4000), limit(self, 4000));
        let n = self.gl(i2, GlslStd450Op::SClamp, &[n, nlo, nhi])?;
        let e = sp!(self, self.b.i_add(i2, None, ex, n))?;
        let e = self.gl(i2, GlslStd450Op::SClamp, &[e, lo, hi])?;
        let normal_floor = limit(self, -1021);
        let normal = sp!(self, self.b.s_greater_than_equal(b2, None, e, normal_floor))?;
        let top = limit(self, 1023);
        let a_normal = self.gl(i2, GlslStd450Op::SMin, &[e, top])?;
        let c600 = limit(self, 600);
        let a_tiny = sp!(self, self.b.i_add(i2, None, e, c600))?;
        let a = self.pick(i2, normal, a_normal, a_tiny)?;
        let b = sp!(self, self.b.i_sub(i2, None, e, a))?;
        let pow2 = |t: &mut Self, k: Word| -> Result<Word, Error> {
            // 2^k from its bits: (k + 1023) << 52, for k in -1022..=1023
            let bias = limit(t, 1023);
            let biased = sp!(t, t.b.i_add(i2, None, k, bias))?;
            let wide = sp!(t, t.b.s_convert(w.s2, None, biased))?;
            let wide = sp!(t, t.b.bitcast(q2, None, wide))?;
            let c52 = t.const_like(q2, 52);
            let bits = sp!(t, t.b.shift_left_logical(q2, None, wide, c52))?;
            sp!(t, t.b.bitcast(d2, None, bits))
        };
        let (pa, pb) = (pow2(self, a)?, pow2(self, b)?);
        let t = self.fmul(d2, m, pa)?;
        let r = self.fmul(d2, t, pb)?;
        // zeros and infinities as they are, NaNs quieted
        let zero = self.const_like(d2, 0);
        let is_zero = sp!(self, self.b.f_ord_equal(b2, None, x, zero))?;
        let is_inf = sp!(self, self.b.is_inf(b2, None, x))?;
        let is_nan = sp!(self, self.b.is_nan(b2, None, x))?;
        let keep = sp!(self, self.b.logical_or(b2, None, is_zero, is_inf))?;
        let r = self.pick(d2, keep, x, r)?;
        let bits = sp!(self, self.b.bitcast(q2, None, x))?;
        let quiet = self.const_like(q2, 0x0008_0000_0000_0000);
        let quieted = sp!(self, self.b.bitwise_or(q2, None, bits, quiet))?;
        let quieted = sp!(self, self.b.bitcast(d2, None, quieted))?;
        self.pick(d2, is_nan, quieted, r)
    }

    /// DFRACEXP: the significand of src.xy to both pairs of dst0, its
    /// exponent to every channel of dst1; zeros, infinities and NaNs give
    /// themselves and exponent 0.
    fn frac_exp(
        &mut self,
        inst: &Instruction,
        dst: &DstOperand,
        pairs: [bool; 2],
    ) -> Result<(), Error> {
        let w = self.wide_types();
        let a = self.fetch_pairs(&inst.src[0], OperandType::Double)?;
        let x = sp!(self, self.b.composite_extract(w.f64, None, a, [0]))?;
        // denormals scaled by 2^54 first (a device may flush them in Frexp)
        let bool_ = self.t.bool;
        let ax = self.gl(w.f64, GlslStd450Op::FAbs, &[x])?;
        let smallest = self.b.constant_bit64(w.f64, f64::MIN_POSITIVE.to_bits());
        let tiny = sp!(self, self.b.f_ord_less_than(bool_, None, ax, smallest))?;
        let scale = self.b.constant_bit64(w.f64, 2f64.powi(54).to_bits());
        let scaled = self.fmul(w.f64, x, scale)?;
        let x_in = self.pick(w.f64, tiny, scaled, x)?;
        let st = self.b.type_struct([w.f64, self.t.i32]);
        let fe = self.gl(st, GlslStd450Op::FrexpStruct, &[x_in])?;
        let sig = sp!(self, self.b.composite_extract(w.f64, None, fe, [0]))?;
        let exp = sp!(self, self.b.composite_extract(self.t.i32, None, fe, [1]))?;
        let (c54, c0) = (self.c_i32(54), self.c_i32(0));
        let shift = self.pick(self.t.i32, tiny, c54, c0)?;
        let exp = sp!(self, self.b.i_sub(self.t.i32, None, exp, shift))?;
        let zero = self.b.constant_bit64(w.f64, 0);
        let is_zero = sp!(self, self.b.f_ord_equal(bool_, None, x, zero))?;
        let is_inf = sp!(self, self.b.is_inf(bool_, None, x))?;
        let is_nan = sp!(self, self.b.is_nan(bool_, None, x))?;
        let odd = sp!(self, self.b.logical_or(bool_, None, is_inf, is_nan))?;
        let special = sp!(self, self.b.logical_or(bool_, None, odd, is_zero))?;
        let sig = self.pick(w.f64, special, x, sig)?;
        let zero_i = self.c_i32(0);
        let exp = self.pick(self.t.i32, special, zero_i, exp)?;
        let v = sp!(self, self.b.composite_construct(w.d2, None, [sig, sig]))?;
        self.store_pairs(inst, dst, (v, w.d2), pairs)?;
        let i4 = self.t.i4;
        let e = self.splat(i4, exp);
        match inst.dst.get(1) {
            Some(d1) => self.store(d1, e, 0xF),
            None => Err(self.fail("DFRACEXP needs two destinations")),
        }
    }
}

/// The channel each pair of a compare or narrowing conversion writes
/// ([`PairShape::word_channels`]) and whether it writes one.
fn word_slots(shape: PairShape, mask: u8) -> ([u32; 2], [bool; 2]) {
    let c = shape.word_channels(mask);
    (c.map(|c| c.unwrap_or(0) as u32), c.map(|c| c.is_some()))
}
