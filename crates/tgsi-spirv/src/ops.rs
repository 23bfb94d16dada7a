//! Arithmetic instructions: each opcode's sources fetched as the opcode
//! table types them, its result computed on whole vectors (scalar opcodes
//! on `.x`, replicated), saturated when asked and stored through the write
//! mask. The machine's results are kept where SPIR-V leaves them
//! undefined: float-to-integer conversions saturate (NaN gives 0),
//! division by zero gives the machine's values, shift counts are taken
//! modulo 32, MAD and the dot products are not fused.

use super::Error;
use super::module::Translator;
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, GlslStd450Op, Word};
use tgsi_ir::ir::Instruction;
use tgsi_ir::opcode::{Channels, Opcode};

type R = Result<Word, Error>;

impl Translator<'_> {
    /// One instruction that is not control flow.
    pub(crate) fn instruction(&mut self, inst: &Instruction) -> Result<(), Error> {
        let op = inst.opcode;
        if let Some(done) = self.indirect_resource(inst)? {
            return Ok(done);
        }
        let (flush_sources, flush_result) = op.direct3d_flush();
        self.flush_sources = flush_sources && self.options.direct3d;
        if let Some(done) = self.memory_instruction(inst)? {
            return Ok(done);
        }
        if let Some(done) = self.texture_instruction(inst)? {
            return Ok(done);
        }
        if let Some(done) = self.geometry_instruction(inst)? {
            return Ok(done);
        }
        if matches!(op, Opcode::KILL | Opcode::KILL_IF) {
            return self.kill(inst);
        }
        if matches!(op, Opcode::DEMOTE | Opcode::READ_HELPER) {
            return self.helper_op(inst);
        }
        if let Some(done) = self.lane_instruction(inst)? {
            return Ok(done);
        }
        if matches!(
            op,
            Opcode::INTERP_CENTROID | Opcode::INTERP_SAMPLE | Opcode::INTERP_OFFSET
        ) {
            return self.interpolate(inst);
        }
        if let Some(done) = self.wide_instruction(inst)? {
            return Ok(done);
        }
        let info = op.info();
        let mut srcs = Vec::with_capacity(inst.src.len());
        for (s, ty) in inst.src.iter().zip(info.src_types) {
            srcs.push(self.fetch(s, *ty)?);
        }
        let mut v = self.alu(op, &srcs)?;
        if info.channels == Channels::Scalar {
            let ty = self.vec_of(info.dst_type)?;
            v = self
                .b
                .vector_shuffle(ty, None, v, v, [0, 0, 0, 0])
                .map_err(|e| self.fail(e.to_string()))?;
        }
        let float_result = self.vec_of(info.dst_type)? == self.t.f4;
        if float_result && flush_result && self.options.direct3d {
            v = self.flush(v)?;
        }
        if inst.saturate && self.vec_of(info.dst_type)? == self.t.f4 {
            v = self.saturate(v)?;
        }
        self.store_result(inst, v)
    }

    /// A float vector clamped to [0, 1] (NaN gives 0).
    pub(crate) fn saturate(&mut self, v: Word) -> R {
        let f4 = self.t.f4;
        let (zero, one) = (self.c_f32(0.0), self.c_f32(1.0));
        let (z, o) = (self.splat(f4, zero), self.splat(f4, one));
        let lo = self.gl(f4, GlslStd450Op::NMax, &[v, z])?;
        self.gl(f4, GlslStd450Op::NMin, &[lo, o])
    }

    /// KILL (the invocation ends) and KILL_IF (when a channel of the
    /// source is below 0).
    fn kill(&mut self, inst: &Instruction) -> Result<(), Error> {
        if self.shader.processor != tgsi_ir::enums::Processor::Fragment {
            return Err(self.fail(format!("{} outside a fragment shader", inst.opcode)));
        }
        if inst.opcode == Opcode::KILL {
            sp!(self, self.b.kill())?;
            sp!(self, self.b.begin_block(None))?;
            return Ok(());
        }
        let src = inst
            .src
            .first()
            .ok_or_else(|| self.fail("KILL_IF without a source"))?;
        let v = self.fetch(src, tgsi_ir::opcode::OperandType::Float)?;
        let (f4, b4, bool_) = (self.t.f4, self.t.b4, self.t.bool);
        let zero = self.splat_bits(f4, 0);
        let below = sp!(self, self.b.f_ord_less_than(b4, None, v, zero))?;
        let any = sp!(self, self.b.any(bool_, None, below))?;
        let (then, merge) = (self.b.id(), self.b.id());
        sp!(
            self,
            self.b
                .selection_merge(merge, rspirv::spirv::SelectionControl::NONE)
        )?;
        sp!(self, self.b.branch_conditional(any, then, merge, []))?;
        sp!(self, self.b.begin_block(Some(then)))?;
        sp!(self, self.b.kill())?;
        sp!(self, self.b.begin_block(Some(merge)))?;
        Ok(())
    }

    /// DEMOTE (`OpDemoteToHelperInvocation`: the invocation goes on as a
    /// helper, its outputs and stores dropped) and READ_HELPER (~0 in a
    /// helper invocation, demoted or not, else 0), through
    /// `SPV_EXT_demote_to_helper_invocation`.
    fn helper_op(&mut self, inst: &Instruction) -> Result<(), Error> {
        let op = inst.opcode;
        if self.shader.processor != tgsi_ir::enums::Processor::Fragment {
            return Err(self.fail(format!("{op} outside a fragment shader")));
        }
        if self.options.refuse_demote {
            return Err(self.fail(format!(
                "{op} needs the device feature shaderDemoteToHelperInvocation"
            )));
        }
        if op == Opcode::READ_HELPER && self.options.refuse_read_helper {
            return Err(self.fail(
                "READ_HELPER is refused for this device: the helper flags its lanes see of the other lanes of a quad are not theirs",
            ));
        }
        if !self.demote_declared {
            self.b.extension("SPV_EXT_demote_to_helper_invocation");
            self.b
                .capability(rspirv::spirv::Capability::DemoteToHelperInvocation);
            self.demote_declared = true;
        }
        if op == Opcode::DEMOTE {
            // (rspirv's builder takes it for a block terminator; it is not)
            let demote = rspirv::dr::Instruction::new(
                rspirv::spirv::Op::DemoteToHelperInvocation,
                None,
                None,
                vec![],
            );
            return sp!(
                self,
                self.b
                    .insert_into_block(rspirv::dr::InsertPoint::End, demote)
            );
        }
        let (bool_, b4, u4) = (self.t.bool, self.t.b4, self.t.u4);
        // (with demotion the `HelperInvocation` input may not follow it)
        let helper = sp!(self, self.b.is_helper_invocation_ext(bool_, None))?;
        let all = sp!(
            self,
            self.b
                .composite_construct(b4, None, [helper, helper, helper, helper])
        )?;
        let (ones, zeros) = (self.splat_bits(u4, u32::MAX), self.splat_bits(u4, 0));
        let v = self.pick(u4, all, ones, zeros)?;
        self.store_result(inst, v)
    }

    /// A GLSL.std.450 instruction.
    pub(crate) fn gl(&mut self, ty: Word, op: GlslStd450Op, args: &[Word]) -> R {
        let g = self.glsl;
        let ops: Vec<Operand> = args.iter().map(|a| Operand::IdRef(*a)).collect();
        self.b
            .ext_inst(ty, None, g, op as u32, ops)
            .map_err(|e| self.fail(e.to_string()))
    }

    /// `cond ? a : b` per channel.
    pub(crate) fn pick(&mut self, ty: Word, cond: Word, a: Word, b: Word) -> R {
        self.b
            .select(ty, None, cond, a, b)
            .map_err(|e| self.fail(e.to_string()))
    }

    /// `r` (a function of |x|) with IEEE's results where `x` is a zero or
    /// negative: NaN below zero, and `at_zero` for both zeros.
    fn below_zero(&mut self, r: Word, x: Word, at_zero: Special) -> R {
        let (f4, u4, b4) = (self.t.f4, self.t.u4, self.t.b4);
        let zero = self.splat_bits(f4, 0);
        let is_zero = sp!(self, self.b.f_ord_equal(b4, None, x, zero))?;
        let negative = sp!(self, self.b.f_ord_less_than(b4, None, x, zero))?;
        let nan = self.splat_bits(f4, 0x7fc0_0000);
        let zero_result = match at_zero {
            Special::Itself => x,
            Special::MinusInfinity => self.splat_bits(f4, 0xff80_0000),
            Special::SignedInfinity => {
                // the sign of x on an infinity
                let bits = sp!(self, self.b.bitcast(u4, None, x))?;
                let sign = self.c_u32(0x8000_0000);
                let sign4 = self.splat(u4, sign);
                let s = sp!(self, self.b.bitwise_and(u4, None, bits, sign4))?;
                let inf = self.c_u32(0x7f80_0000);
                let inf4 = self.splat(u4, inf);
                let v = sp!(self, self.b.bitwise_or(u4, None, s, inf4))?;
                sp!(self, self.b.bitcast(f4, None, v))?
            }
        };
        let r = self.pick(f4, negative, nan, r)?;
        self.pick(f4, is_zero, zero_result, r)
    }

    /// A mask vector: `~0` where `cond`, else 0.
    fn mask(&mut self, cond: Word) -> R {
        let u4 = self.t.u4;
        let (ones, zero) = (self.c_u32(u32::MAX), self.c_u32(0));
        let (o, z) = (self.splat(u4, ones), self.splat(u4, zero));
        self.pick(u4, cond, o, z)
    }

    /// 1.0 where `cond`, else 0.0.
    fn unit(&mut self, cond: Word) -> R {
        let f4 = self.t.f4;
        let (one, zero) = (self.c_f32(1.0), self.c_f32(0.0));
        let (o, z) = (self.splat(f4, one), self.splat(f4, zero));
        self.pick(f4, cond, o, z)
    }

    pub(crate) fn no_contraction(&mut self, id: Word) -> Word {
        self.b.decorate(id, Decoration::NoContraction, []);
        id
    }

    /// `a × b` of float vectors (or scalars) of type `ty`, unfused, with
    /// the machine's NaN rule.
    pub(crate) fn fmul(&mut self, ty: Word, a: Word, b: Word) -> R {
        let r = self
            .b
            .f_mul(ty, None, a, b)
            .map_err(|e| self.fail(e.to_string()))?;
        let r = self.no_contraction(r);
        self.first_nan(ty, [a, b], r)
    }

    /// `a + b` of float vectors (or scalars) of type `ty`, unfused, with
    /// IEEE's sign of an exact zero sum (`a == -b`) written in code: -0
    /// only when both operands are -0 (their sign bits AND-ed), because a
    /// device may fold `x + 0.0` into `x` even under
    /// `SignedZeroInfNanPreserve` (lavapipe does, turning -0 + 0 into -0).
    /// A sum that is zero only because a denormal result was flushed keeps
    /// the device's sign. A NaN sum is the first NaN operand made quiet,
    /// the machine's rule, whatever operand order the device picks.
    pub(crate) fn fadd(&mut self, ty: Word, a: Word, b: Word) -> R {
        let r = sp!(self, self.b.f_add(ty, None, a, b))?;
        let r = self.no_contraction(r);
        let (uty, bty, _) = self.nan_shape(ty);
        let wide = ty != self.t.f32 && uty != self.t.u4;
        let sign = if ty == self.t.f32 {
            self.c_u32(0x8000_0000)
        } else if wide {
            self.const_like(uty, 1 << 63)
        } else {
            self.const_like(uty, 0x8000_0000)
        };
        let zero = if ty == self.t.f32 {
            self.b.constant_bit32(ty, 0)
        } else {
            self.const_like(ty, 0)
        };
        // exact: the operands cancel (infinities give NaN, kept) and the
        // sum is zero
        let minus_b = sp!(self, self.b.f_negate(ty, None, b))?;
        let cancel = sp!(self, self.b.f_ord_equal(bty, None, a, minus_b))?;
        let zero_sum = sp!(self, self.b.f_ord_equal(bty, None, r, zero))?;
        let is_zero = sp!(self, self.b.logical_and(bty, None, cancel, zero_sum))?;
        let ab = sp!(self, self.b.bitcast(uty, None, a))?;
        let bb = sp!(self, self.b.bitcast(uty, None, b))?;
        let both = sp!(self, self.b.bitwise_and(uty, None, ab, bb))?;
        let signed = sp!(self, self.b.bitwise_and(uty, None, both, sign))?;
        let signed = sp!(self, self.b.bitcast(ty, None, signed))?;
        let r = self.pick(ty, is_zero, signed, r)?;
        self.first_nan(ty, [a, b], r)
    }

    /// `r`, the result of a commutative operation on `operands`, or where
    /// one is NaN the first NaN operand made quiet: the machine's NaN rule,
    /// written out because a device may swap the operands (lavapipe built
    /// for a CPU without AVX-512 returns the second of two NaN doubles in
    /// additions and products).
    fn first_nan(&mut self, ty: Word, operands: [Word; 2], r: Word) -> R {
        let (uty, bty, quiet) = self.nan_shape(ty);
        let mut r = r;
        for operand in operands.into_iter().rev() {
            let nan = sp!(self, self.b.is_nan(bty, None, operand))?;
            let bits = sp!(self, self.b.bitcast(uty, None, operand))?;
            let q = sp!(self, self.b.bitwise_or(uty, None, bits, quiet))?;
            let q = sp!(self, self.b.bitcast(ty, None, q))?;
            r = self.pick(ty, nan, q, r)?;
        }
        Ok(r)
    }

    /// For float type `ty` (f32 or f64, a scalar or a vector): its unsigned
    /// type of the same shape, its boolean type and the quiet bit in every
    /// component.
    fn nan_shape(&mut self, ty: Word) -> (Word, Word, Word) {
        if ty == self.t.f32 {
            return (self.t.u32, self.t.bool, self.c_u32(0x0040_0000));
        }
        if ty == self.t.f4 {
            return (
                self.t.u4,
                self.t.b4,
                self.splat_bits(self.t.u4, 0x0040_0000),
            );
        }
        let w = self.wide_types();
        if ty == w.f64 {
            return (w.u64, self.t.bool, self.b.constant_bit64(w.u64, 1 << 51));
        }
        if ty == w.f2 {
            return (w.u2, w.b2, self.const_like(w.u2, 0x0040_0000));
        }
        // dvec2 or dvec4
        let n = if ty == w.d2 { 2 } else { 4 };
        let (_, uty, bty) = self.f64_vector_types(n);
        let q = self.b.constant_bit64(w.u64, 1 << 51);
        (
            uty,
            bty,
            self.b.constant_composite(uty, vec![q; n as usize]),
        )
    }

    /// A splat constant of vector type `ty` from bits `v`.
    pub(crate) fn splat_bits(&mut self, ty: Word, v: u32) -> Word {
        let scalar = if ty == self.t.f4 {
            self.t.f32
        } else if ty == self.t.i4 {
            self.t.i32
        } else {
            self.t.u32
        };
        let c = self.b.constant_bit32(scalar, v);
        self.splat(ty, c)
    }

    /// The result vector of an arithmetic opcode (before saturation).
    fn alu(&mut self, op: Opcode, s: &[Word]) -> R {
        use Opcode as O;
        let (f4, b4) = (self.t.f4, self.t.b4);
        Ok(match op {
            O::MOV => s[0],
            O::ADD => self.fadd(f4, s[0], s[1])?,
            O::MUL => self.fmul(f4, s[0], s[1])?,
            O::MAD => {
                let m = self.fmul(f4, s[0], s[1])?;
                self.fadd(f4, m, s[2])?
            }
            O::DIV => sp!(self, self.b.f_div(f4, None, s[0], s[1]))?,
            O::MIN | O::MAX => self.min_max(f4, op == O::MIN, s[0], s[1])?,
            O::SLT
            | O::SGE
            | O::SEQ
            | O::SNE
            | O::SLE
            | O::SGT
            | O::FSLT
            | O::FSGE
            | O::FSEQ
            | O::FSNE => {
                let c = match op {
                    O::SLE => sp!(self, self.b.f_ord_less_than_equal(b4, None, s[0], s[1]))?,
                    O::SGT => sp!(self, self.b.f_ord_greater_than(b4, None, s[0], s[1]))?,
                    O::SLT | O::FSLT => sp!(self, self.b.f_ord_less_than(b4, None, s[0], s[1]))?,
                    O::SGE | O::FSGE => {
                        sp!(self, self.b.f_ord_greater_than_equal(b4, None, s[0], s[1]))?
                    }
                    O::SEQ | O::FSEQ => sp!(self, self.b.f_ord_equal(b4, None, s[0], s[1]))?,
                    _ => sp!(self, self.b.f_unord_not_equal(b4, None, s[0], s[1]))?,
                };
                if matches!(op, O::SLT | O::SGE | O::SEQ | O::SNE | O::SLE | O::SGT) {
                    self.unit(c)?
                } else {
                    self.mask(c)?
                }
            }
            O::DP2 | O::DP3 | O::DP4 => self.dot(op, s)?,
            O::RCP => {
                let one = self.splat_bits(f4, 1.0f32.to_bits());
                sp!(self, self.b.f_div(f4, None, one, s[0]))?
            }
            // GLSL leaves these undefined at and below zero: the machine's
            // IEEE results are selected there (docs/numerics.md)
            O::RSQ => {
                let a = self.gl(f4, GlslStd450Op::FAbs, &[s[0]])?;
                let r = self.gl(f4, GlslStd450Op::InverseSqrt, &[a])?;
                self.below_zero(r, s[0], Special::SignedInfinity)?
            }
            O::SQRT => {
                let a = self.gl(f4, GlslStd450Op::FAbs, &[s[0]])?;
                let r = self.gl(f4, GlslStd450Op::Sqrt, &[a])?;
                self.below_zero(r, s[0], Special::Itself)?
            }
            O::EX2 => self.gl(f4, GlslStd450Op::Exp2, &[s[0]])?,
            O::LG2 => {
                let a = self.gl(f4, GlslStd450Op::FAbs, &[s[0]])?;
                let r = self.gl(f4, GlslStd450Op::Log2, &[a])?;
                self.below_zero(r, s[0], Special::MinusInfinity)?
            }
            O::POW => self.gl(f4, GlslStd450Op::Pow, &[s[0], s[1]])?,
            O::SIN => self.gl(f4, GlslStd450Op::Sin, &[s[0]])?,
            O::COS => self.gl(f4, GlslStd450Op::Cos, &[s[0]])?,
            O::FLR => self.gl(f4, GlslStd450Op::Floor, &[s[0]])?,
            O::CEIL => self.gl(f4, GlslStd450Op::Ceil, &[s[0]])?,
            O::TRUNC => self.gl(f4, GlslStd450Op::Trunc, &[s[0]])?,
            O::ROUND => self.gl(f4, GlslStd450Op::RoundEven, &[s[0]])?,
            O::FRC => {
                let fl = self.gl(f4, GlslStd450Op::Floor, &[s[0]])?;
                let r = sp!(self, self.b.f_sub(f4, None, s[0], fl))?;
                self.no_contraction(r)
            }
            O::SSG => self.gl(f4, GlslStd450Op::FSign, &[s[0]])?,
            O::LRP => {
                let one = self.splat_bits(f4, 1.0f32.to_bits());
                let inv = sp!(self, self.b.f_sub(f4, None, one, s[0]))?;
                let inv = self.no_contraction(inv);
                let a = self.fmul(f4, s[0], s[1])?;
                let b = self.fmul(f4, inv, s[2])?;
                self.fadd(f4, a, b)?
            }
            O::CMP => {
                let zero = self.splat_bits(f4, 0);
                let c = sp!(self, self.b.f_ord_less_than(b4, None, s[0], zero))?;
                self.pick(f4, c, s[1], s[2])?
            }
            O::F2I | O::ARL => {
                let x = if op == O::ARL {
                    self.gl(f4, GlslStd450Op::Floor, &[s[0]])?
                } else {
                    s[0]
                };
                self.float_to_int(x, true)?
            }
            O::F2U => self.float_to_int(s[0], false)?,
            O::ARR => {
                // floor(x + 0.5), saturating
                let half = self.splat_bits(f4, 0.5f32.to_bits());
                let t = self.fadd(f4, s[0], half)?;
                let f = self.gl(f4, GlslStd450Op::Floor, &[t])?;
                self.float_to_int(f, true)?
            }
            O::FMA => self.gl(f4, GlslStd450Op::Fma, &[s[0], s[1], s[2]])?,
            O::LDEXP => self.ldexp(s[0], s[1])?,
            O::I2F => sp!(self, self.b.convert_s_to_f(f4, None, s[0]))?,
            O::U2F => sp!(self, self.b.convert_u_to_f(f4, None, s[0]))?,
            O::UARL => s[0],
            O::DDX | O::DDY | O::DDX_FINE | O::DDY_FINE => self.derivative(op, s[0])?,
            O::LIT | O::EXP | O::LOG | O::DST => self.legacy(op, s)?,
            O::PK2H | O::UP2H | O::PK2US | O::UP2US | O::PK4B | O::UP4B | O::PK4UB | O::UP4UB => {
                match self.pack_op(op, s)? {
                    Some(v) => v,
                    None => {
                        return Err(self.fail(format!("{op} is not translated to SPIR-V yet")));
                    }
                }
            }
            _ => return self.integer(op, s),
        })
    }

    /// LDEXP rounded once, as the machine's: the float widened to a
    /// double (exact), scaled there by 2^e with e clamped to ±400 (exact:
    /// no double overflows or underflows, and past ±400 every float is 0
    /// or infinite anyway), and narrowed with one rounding. (GLSL's
    /// `Ldexp` on floats is undefined where the result overflows.)
    fn ldexp(&mut self, x: Word, e: Word) -> R {
        let (f4, i4) = (self.t.f4, self.t.i4);
        let w = self.wide_types();
        let d4 = self.b.type_vector(w.f64, 4);
        let wide = sp!(self, self.b.f_convert(d4, None, x))?;
        let lo = self.splat_bits(i4, (-400i32) as u32);
        let hi = self.splat_bits(i4, 400);
        let e = self.gl(i4, GlslStd450Op::SClamp, &[e, lo, hi])?;
        let scaled = self.gl(d4, GlslStd450Op::Ldexp, &[wide, e])?;
        sp!(self, self.b.f_convert(f4, None, scaled))
    }

    /// DDX/DDY are coarse as the machine computes them: the quad's
    /// top-right (bottom-left) value minus its top-left one in every lane.
    /// SPIR-V's OpDPdx and OpDPdxCoarse let a device compute them finely,
    /// so the quad's values are read with quad broadcasts; DDX_FINE and
    /// DDY_FINE are `OpDPdxFine` / `OpDPdyFine`.
    fn derivative(&mut self, op: Opcode, x: Word) -> R {
        use Opcode as O;
        let f4 = self.t.f4;
        if matches!(op, O::DDX_FINE | O::DDY_FINE) {
            self.b
                .capability(rspirv::spirv::Capability::DerivativeControl);
            return if op == O::DDX_FINE {
                sp!(self, self.b.d_pdx_fine(f4, None, x))
            } else {
                sp!(self, self.b.d_pdy_fine(f4, None, x))
            };
        }
        self.b
            .capability(rspirv::spirv::Capability::GroupNonUniform);
        self.b
            .capability(rspirv::spirv::Capability::GroupNonUniformQuad);
        let scope = self.c_u32(rspirv::spirv::Scope::Subgroup as u32);
        let (tl, other) = (self.c_u32(0), self.c_u32(if op == O::DDX { 1 } else { 2 }));
        let a = sp!(
            self,
            self.b
                .group_non_uniform_quad_broadcast(f4, None, scope, x, tl)
        )?;
        let b = sp!(
            self,
            self.b
                .group_non_uniform_quad_broadcast(f4, None, scope, x, other)
        )?;
        let d = sp!(self, self.b.f_sub(f4, None, b, a))?;
        Ok(self.no_contraction(d))
    }

    /// LIT, EXP, LOG and DST, each channel its own formula (the machine's
    /// `ops::lit` ...): LIT clamps with MIN/MAX's NaN rule, its power and
    /// EXP's and LOG's powers and logarithms are POW, EX2 and LG2.
    fn legacy(&mut self, op: Opcode, s: &[Word]) -> R {
        use Opcode as O;
        let (f4, f32_) = (self.t.f4, self.t.f32);
        let one = self.c_f32(1.0);
        let lane = |t: &mut Self, v: Word, c: u32| -> R {
            let x = sp!(t, t.b.composite_extract(f32_, None, v, [c]))?;
            Ok(t.splat(f4, x))
        };
        let pick_x = |t: &mut Self, v: Word| sp!(t, t.b.composite_extract(f32_, None, v, [0]));
        let [x, y, z] = match op {
            O::LIT => {
                let zero = self.splat_bits(f4, 0);
                let sx = lane(self, s[0], 0)?;
                let y = self.min_max(f4, false, sx, zero)?;
                let sy = lane(self, s[0], 1)?;
                let base = self.min_max(f4, false, sy, zero)?;
                let sw = lane(self, s[0], 3)?;
                let hi = self.splat_bits(f4, 128f32.to_bits());
                let lo = self.splat_bits(f4, (-128f32).to_bits());
                let e = self.min_max(f4, true, sw, hi)?;
                let e = self.min_max(f4, false, e, lo)?;
                let p = self.gl(f4, GlslStd450Op::Pow, &[base, e])?;
                let lit = sp!(self, self.b.f_ord_greater_than(self.t.b4, None, sx, zero))?;
                let z = self.pick(f4, lit, p, zero)?;
                [one, pick_x(self, y)?, pick_x(self, z)?]
            }
            O::EXP => {
                let sx = lane(self, s[0], 0)?;
                let f = self.gl(f4, GlslStd450Op::Floor, &[sx])?;
                let x = self.gl(f4, GlslStd450Op::Exp2, &[f])?;
                let y = sp!(self, self.b.f_sub(f4, None, sx, f))?;
                let y = self.no_contraction(y);
                let z = self.gl(f4, GlslStd450Op::Exp2, &[sx])?;
                [pick_x(self, x)?, pick_x(self, y)?, pick_x(self, z)?]
            }
            O::LOG => {
                let sx = lane(self, s[0], 0)?;
                let t = self.gl(f4, GlslStd450Op::FAbs, &[sx])?;
                let l = self.gl(f4, GlslStd450Op::Log2, &[t])?;
                let z = self.below_zero(l, t, Special::MinusInfinity)?;
                let x = self.gl(f4, GlslStd450Op::Floor, &[z])?;
                let p = self.gl(f4, GlslStd450Op::Exp2, &[x])?;
                let y = sp!(self, self.b.f_div(f4, None, t, p))?;
                [pick_x(self, x)?, pick_x(self, y)?, pick_x(self, z)?]
            }
            _ => {
                // DST
                let y = self.fmul(f4, s[0], s[1])?;
                let y = sp!(self, self.b.composite_extract(f32_, None, y, [1]))?;
                let z = sp!(self, self.b.composite_extract(f32_, None, s[0], [2]))?;
                let w = sp!(self, self.b.composite_extract(f32_, None, s[1], [3]))?;
                return sp!(self, self.b.composite_construct(f4, None, [one, y, z, w]));
            }
        };
        sp!(self, self.b.composite_construct(f4, None, [x, y, z, one]))
    }

    /// MIN and MAX (and DMIN/DMAX on `fty`, a vector of doubles):
    /// minNum/maxNum (a NaN loses to a number; of two NaNs the second
    /// wins), and between zeros of both signs the machine's rule: MIN gives
    /// -0, MAX +0 (the bits of the two OR-ed, AND-ed), which SPIR-V's
    /// NMin/NMax leave open.
    pub(crate) fn min_max(&mut self, fty: Word, min: bool, a: Word, b: Word) -> R {
        let (uty, bty) = (self.bits_like(fty), self.bool_like(fty));
        let op = if min {
            GlslStd450Op::NMin
        } else {
            GlslStd450Op::NMax
        };
        let r = self.gl(fty, op, &[a, b])?;
        let ab = sp!(self, self.b.bitcast(uty, None, a))?;
        let bb = sp!(self, self.b.bitcast(uty, None, b))?;
        let either = sp!(self, self.b.bitwise_or(uty, None, ab, bb))?;
        let magnitude = if fty == self.t.f4 {
            0x7fff_ffff
        } else {
            !(1u64 << 63)
        };
        let magnitude = self.const_like(uty, magnitude);
        let m = sp!(self, self.b.bitwise_and(uty, None, either, magnitude))?;
        let zero = self.const_like(uty, 0);
        let zeros = sp!(self, self.b.i_equal(bty, None, m, zero))?;
        let joined = if min {
            either
        } else {
            sp!(self, self.b.bitwise_and(uty, None, ab, bb))?
        };
        let joined = sp!(self, self.b.bitcast(fty, None, joined))?;
        let r = self.pick(fty, zeros, joined, r)?;
        // a NaN first operand gives the second (two NaNs: the second)
        let nan = sp!(self, self.b.is_nan(bty, None, a))?;
        self.pick(fty, nan, b, r)
    }

    /// DP2/DP3/DP4: products and sums rounded in channel order.
    fn dot(&mut self, op: Opcode, s: &[Word]) -> R {
        let f32_ = self.t.f32;
        let n = match op {
            Opcode::DP2 => 2,
            Opcode::DP3 => 3,
            _ => 4,
        };
        let mut sum = None;
        for c in 0..n {
            let a = self
                .b
                .composite_extract(f32_, None, s[0], [c])
                .map_err(|e| self.fail(e.to_string()))?;
            let b = self
                .b
                .composite_extract(f32_, None, s[1], [c])
                .map_err(|e| self.fail(e.to_string()))?;
            let p = self.fmul(f32_, a, b)?;
            sum = Some(match sum {
                None => p,
                Some(acc) => self.fadd(f32_, acc, p)?,
            });
        }
        let v = sum.expect("at least two channels");
        let f4 = self.t.f4;
        Ok(self.splat(f4, v))
    }

    /// Truncation to a 32-bit integer that saturates, NaN giving 0
    /// (`signed`: F2I, else F2U).
    pub(crate) fn float_to_int(&mut self, x: Word, signed: bool) -> R {
        let limits = if signed {
            Saturation::I32_FROM_F32
        } else {
            Saturation::U32_FROM_F32
        };
        let rty = if signed { self.t.i4 } else { self.t.u4 };
        self.float_to_int_saturated(x, self.t.f4, rty, limits)
    }

    /// Truncation of `x` (a float vector of type `fty`) to the integer
    /// vector type `rty` that saturates as `limits` say, NaN giving 0.
    pub(crate) fn float_to_int_saturated(
        &mut self,
        x: Word,
        fty: Word,
        rty: Word,
        limits: Saturation,
    ) -> R {
        let bty = self.bool_like(fty);
        let nan = sp!(self, self.b.is_nan(bty, None, x))?;
        let zero = self.const_like(fty, 0);
        let x = self.pick(fty, nan, zero, x)?;
        let float_bits = |v: f64| {
            if fty == self.t.f4 || self.wide.is_some_and(|w| w.f2 == fty) {
                (v as f32).to_bits() as u64
            } else {
                v.to_bits()
            }
        };
        let (lo, hi, limit) = (
            float_bits(limits.low),
            float_bits(limits.high),
            float_bits(limits.limit),
        );
        let (l, h, lim) = (
            self.const_like(fty, lo),
            self.const_like(fty, hi),
            self.const_like(fty, limit),
        );
        let c = self.gl(fty, GlslStd450Op::FClamp, &[x, l, h])?;
        let over = sp!(self, self.b.f_ord_greater_than_equal(bty, None, x, lim))?;
        let conv = if limits.signed {
            sp!(self, self.b.convert_f_to_s(rty, None, c))?
        } else {
            sp!(self, self.b.convert_f_to_u(rty, None, c))?
        };
        let topv = self.const_like(rty, limits.top);
        self.pick(rty, over, topv, conv)
    }

    /// 32-bit integer opcodes.
    fn integer(&mut self, op: Opcode, s: &[Word]) -> R {
        use Opcode as O;
        let (i4, u4, b4) = (self.t.i4, self.t.u4, self.t.b4);
        // the vector type of the opcode's result
        let ty = self.vec_of(op.info().dst_type)?;
        Ok(match op {
            O::UADD => sp!(self, self.b.i_add(ty, None, s[0], s[1]))?,
            O::UMUL => sp!(self, self.b.i_mul(ty, None, s[0], s[1]))?,
            O::UMAD => {
                let m = sp!(self, self.b.i_mul(ty, None, s[0], s[1]))?;
                sp!(self, self.b.i_add(ty, None, m, s[2]))?
            }
            O::IMUL_HI | O::UMUL_HI => {
                let pair = self.b.type_struct([ty, ty]);
                let r = if op == O::IMUL_HI {
                    sp!(self, self.b.s_mul_extended(pair, None, s[0], s[1]))?
                } else {
                    sp!(self, self.b.u_mul_extended(pair, None, s[0], s[1]))?
                };
                sp!(self, self.b.composite_extract(ty, None, r, [1]))?
            }
            O::AND => sp!(self, self.b.bitwise_and(ty, None, s[0], s[1]))?,
            O::OR => sp!(self, self.b.bitwise_or(ty, None, s[0], s[1]))?,
            O::XOR => sp!(self, self.b.bitwise_xor(ty, None, s[0], s[1]))?,
            O::NOT => sp!(self, self.b.not(ty, None, s[0]))?,
            O::SHL | O::ISHR | O::USHR => {
                let m = self.splat_bits(u4, 31);
                let n = sp!(self, self.b.bitcast(u4, None, s[1]))?;
                let n = sp!(self, self.b.bitwise_and(u4, None, n, m))?;
                match op {
                    O::SHL => sp!(self, self.b.shift_left_logical(ty, None, s[0], n))?,
                    O::ISHR => sp!(self, self.b.shift_right_arithmetic(ty, None, s[0], n))?,
                    _ => sp!(self, self.b.shift_right_logical(ty, None, s[0], n))?,
                }
            }
            O::INEG => sp!(self, self.b.s_negate(ty, None, s[0]))?,
            O::IABS => self.gl(i4, GlslStd450Op::SAbs, &[s[0]])?,
            O::ISSG => self.gl(i4, GlslStd450Op::SSign, &[s[0]])?,
            O::IMIN => self.gl(i4, GlslStd450Op::SMin, &[s[0], s[1]])?,
            O::IMAX => self.gl(i4, GlslStd450Op::SMax, &[s[0], s[1]])?,
            O::UMIN => self.gl(u4, GlslStd450Op::UMin, &[s[0], s[1]])?,
            O::UMAX => self.gl(u4, GlslStd450Op::UMax, &[s[0], s[1]])?,
            O::USEQ | O::USNE | O::USLT | O::USGE | O::ISLT | O::ISGE => {
                let c = match op {
                    O::USEQ => sp!(self, self.b.i_equal(b4, None, s[0], s[1]))?,
                    O::USNE => sp!(self, self.b.i_not_equal(b4, None, s[0], s[1]))?,
                    O::USLT => sp!(self, self.b.u_less_than(b4, None, s[0], s[1]))?,
                    O::USGE => sp!(self, self.b.u_greater_than_equal(b4, None, s[0], s[1]))?,
                    O::ISLT => sp!(self, self.b.s_less_than(b4, None, s[0], s[1]))?,
                    _ => sp!(self, self.b.s_greater_than_equal(b4, None, s[0], s[1]))?,
                };
                self.mask(c)?
            }
            O::UDIV | O::UMOD | O::IDIV | O::MOD => self.divide(op, ty, s[0], s[1])?,
            O::BREV => sp!(self, self.b.bit_reverse(ty, None, s[0]))?,
            O::POPC => sp!(self, self.b.bit_count(ty, None, s[0]))?,
            O::LSB => self.gl(ty, GlslStd450Op::FindILsb, &[s[0]])?,
            O::UMSB => self.gl(ty, GlslStd450Op::FindUMsb, &[s[0]])?,
            O::IMSB => self.gl(ty, GlslStd450Op::FindSMsb, &[s[0]])?,
            O::UBFE | O::IBFE => self.bit_extract(op == O::IBFE, ty, s)?,
            O::BFI => self.bit_insert(ty, s)?,
            O::UCMP => {
                let bits = sp!(self, self.b.bitcast(u4, None, s[0]))?;
                let zero = self.splat_bits(u4, 0);
                let c = sp!(self, self.b.i_not_equal(b4, None, bits, zero))?;
                self.pick(self.t.f4, c, s[1], s[2])?
            }
            other => {
                return Err(self.fail(format!("{other} is not translated to SPIR-V yet")));
            }
        })
    }

    /// UBFE/IBFE with the machine's results where SPIR-V's bit-field
    /// extraction is undefined: offset taken modulo 32, a width of 32 at
    /// offset 0 gives the value, a width of 0 gives 0, a field running past
    /// bit 31 is the value shifted right by the offset.
    fn bit_extract(&mut self, signed: bool, ty: Word, s: &[Word]) -> R {
        let (u4, b4) = (self.t.u4, self.t.b4);
        let (c31, c32, c0) = (
            self.splat_bits(u4, 31),
            self.splat_bits(u4, 32),
            self.splat_bits(u4, 0),
        );
        let b = sp!(self, self.b.bitcast(u4, None, s[1]))?;
        let c = sp!(self, self.b.bitcast(u4, None, s[2]))?;
        let offset = sp!(self, self.b.bitwise_and(u4, None, b, c31))?;
        let bits = sp!(self, self.b.bitwise_and(u4, None, c, c31))?;
        let end = sp!(self, self.b.i_add(u4, None, bits, offset))?;
        let fits = sp!(self, self.b.u_less_than(b4, None, end, c32))?;
        let no_bits = sp!(self, self.b.i_equal(b4, None, bits, c0))?;
        let left = sp!(self, self.b.i_sub(u4, None, c32, end))?;
        let left = self.pick(u4, fits, left, c0)?;
        let right = sp!(self, self.b.i_sub(u4, None, c32, bits))?;
        let right = self.pick(u4, no_bits, c0, right)?;
        let up = sp!(self, self.b.shift_left_logical(ty, None, s[0], left))?;
        let (field, shifted) = if signed {
            (
                sp!(self, self.b.shift_right_arithmetic(ty, None, up, right))?,
                sp!(self, self.b.shift_right_arithmetic(ty, None, s[0], offset))?,
            )
        } else {
            (
                sp!(self, self.b.shift_right_logical(ty, None, up, right))?,
                sp!(self, self.b.shift_right_logical(ty, None, s[0], offset))?,
            )
        };
        let zero = self.splat_bits(ty, 0);
        let r = self.pick(ty, fits, field, shifted)?;
        let r = self.pick(ty, no_bits, zero, r)?;
        let whole_w = sp!(self, self.b.i_equal(b4, None, c, c32))?;
        let at0 = sp!(self, self.b.i_equal(b4, None, offset, c0))?;
        let whole = sp!(self, self.b.logical_and(b4, None, whole_w, at0))?;
        self.pick(ty, whole, s[0], r)
    }

    /// BFI: `b`'s low `d` bits into `a` at offset `c` (both modulo 32; a
    /// width of 32 gives `b`).
    fn bit_insert(&mut self, ty: Word, s: &[Word]) -> R {
        let (u4, b4) = (self.t.u4, self.t.b4);
        let (c31, c32, one) = (
            self.splat_bits(u4, 31),
            self.splat_bits(u4, 32),
            self.splat_bits(u4, 1),
        );
        let [a, b, c, d] =
            [s[0], s[1], s[2], s[3]].map(|x| self.b.bitcast(u4, None, x).expect("in a block"));
        let offset = sp!(self, self.b.bitwise_and(u4, None, c, c31))?;
        let bits = sp!(self, self.b.bitwise_and(u4, None, d, c31))?;
        let top = sp!(self, self.b.shift_left_logical(u4, None, one, bits))?;
        let low = sp!(self, self.b.i_sub(u4, None, top, one))?;
        let mask = sp!(self, self.b.shift_left_logical(u4, None, low, offset))?;
        let moved = sp!(self, self.b.shift_left_logical(u4, None, b, offset))?;
        let moved = sp!(self, self.b.bitwise_and(u4, None, moved, mask))?;
        let keep = sp!(self, self.b.not(u4, None, mask))?;
        let kept = sp!(self, self.b.bitwise_and(u4, None, a, keep))?;
        let r = sp!(self, self.b.bitwise_or(u4, None, moved, kept))?;
        let whole = sp!(self, self.b.i_equal(b4, None, d, c32))?;
        let r = self.pick(u4, whole, b, r)?;
        sp!(self, self.b.bitcast(ty, None, r))
    }

    /// UDIV, UMOD, IDIV, MOD (and their 64-bit twins on 64-bit vectors
    /// `ty`) with the machine's results where SPIR-V's are undefined: by 0,
    /// the unsigned ones and MOD give `~0` and IDIV 0; `MIN / -1` wraps and
    /// `MIN % -1` is 0.
    pub(crate) fn divide(&mut self, op: Opcode, ty: Word, a: Word, b: Word) -> R {
        use Opcode as O;
        let bty = self.bool_like(ty);
        let (zero, one, minus1) = (
            self.const_like(ty, 0),
            self.const_like(ty, 1),
            self.const_like(ty, u64::MAX),
        );
        let by_zero = sp!(self, self.b.i_equal(bty, None, b, zero))?;
        // a divisor that is never 0 (or -1 for the signed ones)
        let mut safe = self.pick(ty, by_zero, one, b)?;
        let signed = matches!(op, O::IDIV | O::MOD | O::I64DIV | O::I64MOD);
        let quotient = matches!(op, O::UDIV | O::IDIV | O::U64DIV | O::I64DIV);
        let by_minus1 = if signed {
            let m = sp!(self, self.b.i_equal(bty, None, b, minus1))?;
            safe = self.pick(ty, m, one, safe)?;
            Some(m)
        } else {
            None
        };
        let q = match (signed, quotient) {
            (false, true) => sp!(self, self.b.u_div(ty, None, a, safe))?,
            (false, false) => sp!(self, self.b.u_mod(ty, None, a, safe))?,
            (true, true) => sp!(self, self.b.s_div(ty, None, a, safe))?,
            (true, false) => sp!(self, self.b.s_rem(ty, None, a, safe))?,
        };
        let q = match (quotient, by_minus1) {
            (true, Some(m)) => {
                let neg = sp!(self, self.b.s_negate(ty, None, a))?;
                self.pick(ty, m, neg, q)?
            }
            (false, Some(m)) => self.pick(ty, m, zero, q)?,
            _ => q,
        };
        let on_zero = if signed && quotient { zero } else { minus1 };
        self.pick(ty, by_zero, on_zero, q)
    }
}

/// The range of a saturating float-to-integer conversion: values are
/// clamped to `[low, high]` (the largest float below the integer type's
/// limit) and those at or above `limit` give `top`.
#[derive(Clone, Copy)]
pub(crate) struct Saturation {
    pub signed: bool,
    pub low: f64,
    pub high: f64,
    pub limit: f64,
    pub top: u64,
}

impl Saturation {
    pub(crate) const I32_FROM_F64: Saturation = Saturation {
        signed: true,
        low: -2147483648.0,
        high: 2147483647.0,
        limit: 2147483648.0,
        top: i32::MAX as u64,
    };
    pub(crate) const U32_FROM_F64: Saturation = Saturation {
        signed: false,
        low: 0.0,
        high: 4294967295.0,
        limit: 4294967296.0,
        top: u32::MAX as u64,
    };
    /// 2^63 - 2^39, the largest float below 2^63.
    pub(crate) const I64_FROM_F32: Saturation = Saturation {
        signed: true,
        low: -9223372036854775808.0,
        high: 9223371487098961920.0,
        limit: 9223372036854775808.0,
        top: i64::MAX as u64,
    };
    /// 2^64 - 2^40, the largest float below 2^64.
    pub(crate) const U64_FROM_F32: Saturation = Saturation {
        signed: false,
        low: 0.0,
        high: 18446742974197923840.0,
        limit: 18446744073709551616.0,
        top: u64::MAX,
    };
    /// 2^63 - 2^10, the largest double below 2^63.
    pub(crate) const I64_FROM_F64: Saturation = Saturation {
        signed: true,
        low: -9223372036854775808.0,
        high: 9223372036854774784.0,
        limit: 9223372036854775808.0,
        top: i64::MAX as u64,
    };
    /// 2^64 - 2^11, the largest double below 2^64.
    pub(crate) const U64_FROM_F64: Saturation = Saturation {
        signed: false,
        low: 0.0,
        high: 18446744073709549568.0,
        limit: 18446744073709551616.0,
        top: u64::MAX,
    };
    const I32_FROM_F32: Saturation = Saturation {
        signed: true,
        low: -2147483648.0,
        high: 2147483520.0,
        limit: 2147483648.0,
        top: i32::MAX as u64,
    };
    const U32_FROM_F32: Saturation = Saturation {
        signed: false,
        low: 0.0,
        high: 4294967040.0,
        limit: 4294967296.0,
        top: u32::MAX as u64,
    };
}

/// What [`Translator::below_zero`] gives at ±0.
#[derive(Clone, Copy)]
enum Special {
    /// x itself (sqrt(±0) = ±0).
    Itself,
    /// -inf (log2(±0)).
    MinusInfinity,
    /// ∞ with the sign of x (1/sqrt(±0)).
    SignedInfinity,
}
