//! Arithmetic, integer, bit, conversion and double-precision instructions.
//!
//! One TGSI opcode where TGSI has the same operation (the [`SIMPLE`]
//! table); otherwise an expansion (per-component scalar ops, two
//! destinations, bit-field masking, firstbit direction, carry/borrow,
//! half-float packing, masked SAD, double compares and dmovc).

use super::ctx::{Ctx, Result};
use super::emit::{XYZW, dst, select, src};
use crate::ir::{Instruction as D3dInst, Operand};
use crate::opcode::{Opcode as D, OperandKind};
use tgsi_ir::ir::{DstOperand, Register, SrcOperand};
use tgsi_ir::opcode::Opcode as T;

/// D3D opcodes that are one TGSI opcode with the same operands.
pub const SIMPLE: &[(D, T)] = &[
    (D::Add, T::ADD),
    (D::And, T::AND),
    (D::Div, T::DIV),
    (D::Dp2, T::DP2),
    (D::Dp3, T::DP3),
    (D::Dp4, T::DP4),
    (D::Eq, T::FSEQ),
    (D::Ge, T::FSGE),
    (D::Lt, T::FSLT),
    (D::Ne, T::FSNE),
    (D::Frc, T::FRC),
    (D::Ftoi, T::F2I),
    (D::Ftou, T::F2U),
    (D::Itof, T::I2F),
    (D::Utof, T::U2F),
    (D::Iadd, T::UADD),
    (D::Ieq, T::USEQ),
    (D::Ige, T::ISGE),
    (D::Ilt, T::ISLT),
    (D::Ine, T::USNE),
    (D::Ult, T::USLT),
    (D::Uge, T::USGE),
    (D::Imad, T::UMAD),
    (D::Umad, T::UMAD),
    (D::Imax, T::IMAX),
    (D::Imin, T::IMIN),
    (D::Umax, T::UMAX),
    (D::Umin, T::UMIN),
    (D::Ineg, T::INEG),
    (D::Ishl, T::SHL),
    (D::Ishr, T::ISHR),
    (D::Ushr, T::USHR),
    (D::Not, T::NOT),
    (D::Or, T::OR),
    (D::Xor, T::XOR),
    (D::Mad, T::MAD),
    (D::Min, T::MIN),
    (D::Max, T::MAX),
    (D::Mov, T::MOV),
    (D::Movc, T::UCMP),
    (D::Mul, T::MUL),
    (D::RoundNe, T::ROUND),
    (D::RoundNi, T::FLR),
    (D::RoundPi, T::CEIL),
    (D::RoundZ, T::TRUNC),
    (D::DerivRtx, T::DDX),
    (D::DerivRty, T::DDY),
    (D::DerivRtxCoarse, T::DDX),
    (D::DerivRtyCoarse, T::DDY),
    (D::DerivRtxFine, T::DDX_FINE),
    (D::DerivRtyFine, T::DDY_FINE),
    (D::Countbits, T::POPC),
    (D::FirstbitLo, T::LSB),
    (D::Bfrev, T::BREV),
    (D::Dadd, T::DADD),
    (D::Dmax, T::DMAX),
    (D::Dmin, T::DMIN),
    (D::Dmul, T::DMUL),
    (D::Ddiv, T::DDIV),
    (D::Dfma, T::DFMA),
    (D::Drcp, T::DRCP),
    (D::Ftod, T::F2D),
    (D::Itod, T::I2D),
    (D::Utod, T::U2D),
];

/// D3D per-component ops that TGSI computes from `.x` and replicates.
pub const PER_COMPONENT: &[(D, T)] = &[
    (D::Exp, T::EX2),
    (D::Log, T::LG2),
    (D::Rsq, T::RSQ),
    (D::Sqrt, T::SQRT),
    (D::Rcp, T::RCP),
];

/// The operand kinds of an instruction's operands, from the D3D table.
pub fn kinds(inst: &D3dInst) -> Vec<OperandKind> {
    inst.opcode.info().operands.iter().map(|o| o.kind).collect()
}

impl Ctx<'_> {
    /// Lowers an ALU instruction; false when `inst` is not one.
    pub fn alu(&mut self, inst: &D3dInst) -> Result<bool> {
        let sat = inst.controls.saturate;
        if let Some(&(_, t)) = SIMPLE.iter().find(|(d, _)| *d == inst.opcode) {
            self.simple(inst, t, sat)?;
            return Ok(true);
        }
        if let Some(&(_, t)) = PER_COMPONENT.iter().find(|(d, _)| *d == inst.opcode) {
            self.per_component(inst, t, sat)?;
            return Ok(true);
        }
        match inst.opcode {
            D::Sincos => self.sincos(inst, sat)?,
            D::Imul => self.two_results(inst, T::IMUL_HI, T::UMUL)?,
            D::Umul => self.two_results(inst, T::UMUL_HI, T::UMUL)?,
            D::Udiv => self.two_results(inst, T::UDIV, T::UMOD)?,
            D::Uaddc => self.carry(inst, false)?,
            D::Usubb => self.carry(inst, true)?,
            D::Swapc => self.swapc(inst, sat)?,
            D::FirstbitHi => self.firstbit_high(inst, T::UMSB)?,
            D::FirstbitShi => self.firstbit_high(inst, T::IMSB)?,
            D::Ubfe => self.bitfield_extract(inst, T::UBFE)?,
            D::Ibfe => self.bitfield_extract(inst, T::IBFE)?,
            D::Bfi => self.bitfield_insert(inst)?,
            D::F32ToF16 => self.f32_to_f16(inst)?,
            D::F16ToF32 => self.f16_to_f32(inst, sat)?,
            D::Msad => self.msad(inst)?,
            D::Dtof => self.double_narrow(inst, T::D2F, sat)?,
            D::Dtoi => self.double_narrow(inst, T::D2I, sat)?,
            D::Dtou => self.double_narrow(inst, T::D2U, sat)?,
            D::Deq => self.double_compare(inst, T::DSEQ)?,
            D::Dge => self.double_compare(inst, T::DSGE)?,
            D::Dlt => self.double_compare(inst, T::DSLT)?,
            D::Dne => self.double_compare(inst, T::DSNE)?,
            D::Dmov => self.dmov(inst, sat)?,
            D::Dmovc => self.dmovc(inst, sat)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Reads source operand `n` of `inst` for source `slot` of `t`.
    pub fn source(&mut self, inst: &D3dInst, n: usize, t: T, slot: usize) -> Result<SrcOperand> {
        let kind = kinds(inst)
            .get(n)
            .copied()
            .ok_or_else(|| self.fail(format!("operand {n} missing")))?;
        let op = inst
            .operands
            .get(n)
            .ok_or_else(|| self.fail(format!("operand {n} missing")))?;
        self.read_for(op, kind, t, slot)
    }

    /// Operand `n` of `inst`.
    pub fn operand<'i>(&self, inst: &'i D3dInst, n: usize) -> Result<&'i Operand> {
        inst.operands
            .get(n)
            .ok_or_else(|| self.fail(format!("operand {n} missing")))
    }

    /// `t dst, src...` with the D3D operands in order.
    fn simple(&mut self, inst: &D3dInst, t: T, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let n = inst.operands.len();
        let mut srcs = Vec::with_capacity(n - 1);
        for k in 1..n {
            srcs.push(self.source(inst, k, t, k - 1)?);
        }
        self.em.op_sat(t, sat, vec![d], srcs);
        Ok(())
    }

    /// A source copied to a scratch temporary when writing `dsts` could
    /// change it before every destination is written.
    fn stable(&mut self, s: SrcOperand, src_op: &Operand, dsts: &[&Operand]) -> SrcOperand {
        if dsts.iter().any(|d| Ctx::overlaps(d, &[src_op])) {
            let t = self.em.scratch();
            self.em.mov(dst(t, 0xF), s, false);
            src(t, XYZW)
        } else {
            s
        }
    }

    /// One TGSI scalar op per written component (`dst.c = t(src.c)`).
    fn per_component(&mut self, inst: &D3dInst, t: T, sat: bool) -> Result<()> {
        let src_op = self.operand(inst, 1)?;
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let s = self.source(inst, 1, t, 0)?;
        let s = self.stable(s, src_op, &[&inst.operands[0]]);
        self.scalar_each(t, d, &s, sat);
        Ok(())
    }

    /// sincos: SIN and COS per component; either destination may be `null`.
    fn sincos(&mut self, inst: &D3dInst, sat: bool) -> Result<()> {
        let src_op = self.operand(inst, 2)?;
        let d_sin = self.write(self.operand(inst, 0)?)?;
        let d_cos = self.write(self.operand(inst, 1)?)?;
        let s = self.source(inst, 2, T::SIN, 0)?;
        let s = self.stable(s, src_op, &[&inst.operands[0], &inst.operands[1]]);
        if let Some(d) = d_sin {
            self.scalar_each(T::SIN, d, &s, sat);
        }
        if let Some(d) = d_cos {
            self.scalar_each(T::COS, d, &s, sat);
        }
        Ok(())
    }

    fn scalar_each(&mut self, t: T, d: DstOperand, s: &SrcOperand, sat: bool) {
        for c in 0..4u8 {
            if d.write_mask.bits() & (1 << c) != 0 {
                let mut one = d;
                one.write_mask = super::emit::mask(1 << c);
                self.em.op_sat(t, sat, vec![one], vec![select(s, c)]);
            }
        }
    }

    /// imul/umul/udiv: two results from the same two sources; either
    /// destination may be `null`.
    fn two_results(&mut self, inst: &D3dInst, first: T, second: T) -> Result<()> {
        let d0 = self.write(self.operand(inst, 0)?)?;
        let d1 = self.write(self.operand(inst, 1)?)?;
        let a = self.source(inst, 2, first, 0)?;
        let b = self.source(inst, 3, first, 1)?;
        let (a2, b2) = (
            self.source(inst, 2, second, 0)?,
            self.source(inst, 3, second, 1)?,
        );
        match (d0, d1) {
            (Some(d0), Some(d1)) => {
                let clash =
                    Ctx::overlaps(&inst.operands[0], &[&inst.operands[2], &inst.operands[3]]);
                if clash {
                    let t = self.em.scratch();
                    self.em
                        .op(first, vec![dst(t, d0.write_mask.bits())], vec![a, b]);
                    self.em.op(second, vec![d1], vec![a2, b2]);
                    self.em.mov(d0, src(t, XYZW), false);
                } else {
                    self.em.op(first, vec![d0], vec![a, b]);
                    self.em.op(second, vec![d1], vec![a2, b2]);
                }
            }
            (Some(d0), None) => self.em.op(first, vec![d0], vec![a, b]),
            (None, Some(d1)) => self.em.op(second, vec![d1], vec![a2, b2]),
            (None, None) => {}
        }
        Ok(())
    }

    /// uaddc (sum, carry) / usubb (difference, borrow); carry and borrow
    /// are 1 or 0.
    fn carry(&mut self, inst: &D3dInst, sub: bool) -> Result<()> {
        let d0 = self.write(self.operand(inst, 0)?)?;
        let d1 = self.write(self.operand(inst, 1)?)?;
        let a = self.source(inst, 2, T::UADD, 0)?;
        let b = self.source(inst, 3, T::UADD, 1)?;
        let result = self.em.scratch();
        let flag = self.em.scratch();
        if sub {
            let nb = self.em.scratch();
            self.em.op(T::INEG, vec![dst(nb, 0xF)], vec![b]);
            self.em
                .op(T::UADD, vec![dst(result, 0xF)], vec![a, src(nb, XYZW)]);
            // borrow = a < b
            self.em.op(T::USLT, vec![dst(flag, 0xF)], vec![a, b]);
        } else {
            self.em.op(T::UADD, vec![dst(result, 0xF)], vec![a, b]);
            // carry = (a + b) < a
            self.em
                .op(T::USLT, vec![dst(flag, 0xF)], vec![src(result, XYZW), a]);
        }
        if let Some(d1) = d1 {
            let one = self.em.imm_u(1);
            self.em.op(T::AND, vec![d1], vec![src(flag, XYZW), one]);
        }
        if let Some(d0) = d0 {
            self.em.mov(d0, src(result, XYZW), false);
        }
        Ok(())
    }

    /// swapc: dst0 = cond ? src2 : src1, dst1 = cond ? src1 : src2.
    fn swapc(&mut self, inst: &D3dInst, sat: bool) -> Result<()> {
        let d0 = self.write(self.operand(inst, 0)?)?;
        let d1 = self.write(self.operand(inst, 1)?)?;
        let c = self.source(inst, 2, T::UCMP, 0)?;
        let a = self.source(inst, 3, T::UCMP, 1)?;
        let b = self.source(inst, 4, T::UCMP, 2)?;
        let t0 = self.em.scratch();
        let t1 = self.em.scratch();
        self.em.op(T::UCMP, vec![dst(t0, 0xF)], vec![c, b, a]);
        self.em.op(T::UCMP, vec![dst(t1, 0xF)], vec![c, a, b]);
        if let Some(d0) = d0 {
            self.em.mov(d0, src(t0, XYZW), sat);
        }
        if let Some(d1) = d1 {
            self.em.mov(d1, src(t1, XYZW), sat);
        }
        Ok(())
    }

    /// firstbit_hi/_shi count from the most significant bit: 31 - msb, and
    /// ~0 where TGSI's UMSB/IMSB give -1.
    fn firstbit_high(&mut self, inst: &D3dInst, msb: T) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let x = self.source(inst, 1, msb, 0)?;
        let m = self.em.scratch();
        let from_top = self.em.scratch();
        let none = self.em.scratch();
        self.em.op(msb, vec![dst(m, 0xF)], vec![x]);
        let k31 = self.em.imm_u(31);
        let mut neg_m = src(m, XYZW);
        neg_m.negate = true;
        self.em
            .op(T::UADD, vec![dst(from_top, 0xF)], vec![k31, neg_m]);
        let zero = self.em.imm_u(0);
        self.em
            .op(T::ISLT, vec![dst(none, 0xF)], vec![src(m, XYZW), zero]);
        self.em.op(
            T::UCMP,
            vec![d],
            vec![src(none, XYZW), src(m, XYZW), src(from_top, XYZW)],
        );
        Ok(())
    }

    /// ubfe/ibfe width, offset, value: D3D masks the width to 5 bits
    /// (width 32 extracts nothing); TGSI's UBFE/IBFE take (value, offset,
    /// bits) with the same offset masking and the same "past bit 31"
    /// rule (docs/numerics.md), but bits = 32 would extract everything.
    fn bitfield_extract(&mut self, inst: &D3dInst, t: T) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let width = self.source(inst, 1, T::AND, 0)?;
        let offset = self.source(inst, 2, t, 1)?;
        let value = self.source(inst, 3, t, 0)?;
        let w = self.em.scratch();
        let k31 = self.em.imm_u(31);
        self.em.op(T::AND, vec![dst(w, 0xF)], vec![width, k31]);
        self.em.op(t, vec![d], vec![value, offset, src(w, XYZW)]);
        Ok(())
    }

    /// bfi width, offset, insert, base → BFI(base, insert, offset, width & 31).
    fn bitfield_insert(&mut self, inst: &D3dInst) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let width = self.source(inst, 1, T::AND, 0)?;
        let offset = self.source(inst, 2, T::BFI, 2)?;
        let insert = self.source(inst, 3, T::BFI, 1)?;
        let base = self.source(inst, 4, T::BFI, 0)?;
        let w = self.em.scratch();
        let k31 = self.em.imm_u(31);
        self.em.op(T::AND, vec![dst(w, 0xF)], vec![width, k31]);
        self.em
            .op(T::BFI, vec![d], vec![base, insert, offset, src(w, XYZW)]);
        Ok(())
    }

    /// f32tof16: PK2H of the component (its half in both halves), then the
    /// low 16 bits.
    fn f32_to_f16(&mut self, inst: &D3dInst) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let s = self.source(inst, 1, T::PK2H, 0)?;
        let t = self.em.scratch();
        let m = d.write_mask.bits();
        for c in 0..4u8 {
            if m & (1 << c) != 0 {
                self.em
                    .op(T::PK2H, vec![dst(t, 1 << c)], vec![select(&s, c)]);
            }
        }
        let low = self.em.imm_u(0xFFFF);
        self.em.op(T::AND, vec![d], vec![src(t, XYZW), low]);
        Ok(())
    }

    /// f16tof32: UP2H puts the low half's value in x and z; two scratch
    /// registers collect the four components, two MOVs place them.
    fn f16_to_f32(&mut self, inst: &D3dInst, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let s = self.source(inst, 1, T::UP2H, 0)?;
        let lo = self.em.scratch();
        let hi = self.em.scratch();
        let m = d.write_mask.bits();
        // component c of the result: c = 0 → lo.x, 1 → lo.z, 2 → hi.x, 3 → hi.z
        for c in 0..4u8 {
            if m & (1 << c) != 0 {
                let (r, chan) = match c {
                    0 => (lo, 0),
                    1 => (lo, 2),
                    2 => (hi, 0),
                    _ => (hi, 2),
                };
                self.em
                    .op(T::UP2H, vec![dst(r, 1 << chan)], vec![select(&s, c)]);
            }
        }
        if m & 3 != 0 {
            let mut d01 = d;
            d01.write_mask = super::emit::mask(m & 3);
            self.em.mov(d01, src(lo, [0, 2, 0, 2]), sat);
        }
        if m & 12 != 0 {
            let mut d23 = d;
            d23.write_mask = super::emit::mask(m & 12);
            self.em.mov(d23, src(hi, [0, 0, 0, 2]), sat);
        }
        Ok(())
    }

    /// msad ref, src, accum: accum + Σ over the 4 bytes whose reference byte
    /// is not 0 of |ref byte - src byte|.
    fn msad(&mut self, inst: &D3dInst) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let r = self.source(inst, 1, T::UBFE, 0)?;
        let s = self.source(inst, 2, T::UBFE, 0)?;
        let acc_in = self.source(inst, 3, T::UADD, 0)?;
        let acc = self.em.scratch();
        let rb = self.em.scratch();
        let sb = self.em.scratch();
        let diff = self.em.scratch();
        let keep = self.em.scratch();
        self.em.mov(dst(acc, 0xF), acc_in, false);
        let eight = self.em.imm_u(8);
        let zero = self.em.imm_u(0);
        for byte in 0..4u32 {
            let off = self.em.imm_u(8 * byte);
            self.em.op(T::UBFE, vec![dst(rb, 0xF)], vec![r, off, eight]);
            self.em.op(T::UBFE, vec![dst(sb, 0xF)], vec![s, off, eight]);
            let mut neg = src(sb, XYZW);
            neg.negate = true;
            self.em
                .op(T::UADD, vec![dst(diff, 0xF)], vec![src(rb, XYZW), neg]);
            self.em
                .op(T::IABS, vec![dst(diff, 0xF)], vec![src(diff, XYZW)]);
            self.em
                .op(T::USNE, vec![dst(keep, 0xF)], vec![src(rb, XYZW), zero]);
            self.em.op(
                T::AND,
                vec![dst(diff, 0xF)],
                vec![src(diff, XYZW), src(keep, XYZW)],
            );
            self.em.op(
                T::UADD,
                vec![dst(acc, 0xF)],
                vec![src(acc, XYZW), src(diff, XYZW)],
            );
        }
        self.em.mov(d, src(acc, XYZW), false);
        Ok(())
    }

    /// deq/dge/dlt/dne: TGSI writes slot 0's result to x and slot 1's to z;
    /// D3D to the first and second enabled destination components.
    fn double_compare(&mut self, inst: &D3dInst, t: T) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let a = self.source(inst, 1, t, 0)?;
        let b = self.source(inst, 2, t, 1)?;
        let r = self.em.scratch();
        self.em.op(t, vec![dst(r, 0x5)], vec![a, b]);
        self.move_in_order(d, r, [0, 2], "a double compare")
    }

    /// Moves the two results in channels `slots` of scratch register `r` to
    /// the enabled components of `d` in order (Direct3D's placement of a
    /// double compare's or conversion's one or two results).
    fn move_in_order(
        &mut self,
        d: DstOperand,
        r: Register,
        slots: [u8; 2],
        what: &str,
    ) -> Result<()> {
        let m = d.write_mask.bits();
        let mut swz = [0u8; 4];
        let mut nth = 0;
        for (c, s) in swz.iter_mut().enumerate() {
            if m & (1 << c) != 0 {
                *s = slots[nth.min(1)];
                nth += 1;
            }
        }
        if nth > 2 {
            return Err(self.fail(format!("{what} writes at most two components")));
        }
        self.em.mov(d, src(r, swz), false);
        Ok(())
    }

    /// dtof/dtoi/dtou: Direct3D writes the source's one or two doubles to
    /// the written components in order; the TGSI conversion writes its xy
    /// result to x and its zw result to y. Into `.x` or `.xy` directly,
    /// else into a scratch register's xy and moved from there.
    fn double_narrow(&mut self, inst: &D3dInst, t: T, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let a = self.source(inst, 1, t, 0)?;
        let m = d.write_mask.bits();
        if m == 0x1 || m == 0x3 {
            self.em.op_sat(t, sat, vec![d], vec![a]);
            return Ok(());
        }
        let r = self.em.scratch();
        self.em.op_sat(t, sat, vec![dst(r, 0x3)], vec![a]);
        self.move_in_order(d, r, [0, 1], "a double conversion")
    }

    /// Saturates a double result in `t` into `d`: DMAX(x, x) is x (NaN
    /// stays NaN) and `_SAT` clamps it as a double.
    fn double_saturate(&mut self, d: DstOperand, t: SrcOperand) {
        self.em.op_sat(T::DMAX, true, vec![d], vec![t, t]);
    }

    /// dmov: a bit copy, or DABS/DNEG for the modifiers (they act on the
    /// double's sign bit).
    fn dmov(&mut self, inst: &D3dInst, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let v = self.double_value(inst, 1)?;
        if sat {
            self.double_saturate(d, v);
        } else {
            self.em.mov(d, v, false);
        }
        Ok(())
    }

    /// dmovc: slot 0 (dst.xy) tests the first 32-bit component of the
    /// condition after its swizzle, slot 1 (dst.zw) the second; any bit set
    /// is true; the doubles move unchanged (their modifiers first). One
    /// UCMP with the condition swizzled to (c0, c0, c1, c1).
    fn dmovc(&mut self, inst: &D3dInst, sat: bool) -> Result<()> {
        let Some(d) = self.write(self.operand(inst, 0)?)? else {
            return Ok(());
        };
        let c = self.source(inst, 1, T::UCMP, 0)?;
        let a = self.double_value(inst, 2)?;
        let b = self.double_value(inst, 3)?;
        let cond = super::emit::reswizzle(&c, [0, 0, 1, 1]);
        if sat {
            let t = self.em.scratch();
            self.em.op(T::UCMP, vec![dst(t, 0xF)], vec![cond, a, b]);
            self.double_saturate(d, src(t, XYZW));
        } else {
            self.em.op(T::UCMP, vec![d], vec![cond, a, b]);
        }
        Ok(())
    }

    /// A double source with its modifiers applied (DABS/DNEG into a scratch
    /// register), for an opcode that moves bits.
    fn double_value(&mut self, inst: &D3dInst, n: usize) -> Result<SrcOperand> {
        let op = self.operand(inst, n)?;
        let s = self.read_as(
            op,
            OperandKind::Double,
            tgsi_ir::opcode::OperandType::Double,
        )?;
        if !s.negate && !s.absolute {
            return Ok(s);
        }
        let t = self.em.scratch();
        let mut cur = s;
        cur.negate = false;
        cur.absolute = false;
        if s.absolute {
            self.em.op(T::DABS, vec![dst(t, 0xF)], vec![cur]);
            cur = src(t, XYZW);
        }
        if s.negate {
            self.em.op(T::DNEG, vec![dst(t, 0xF)], vec![cur]);
        }
        Ok(src(t, XYZW))
    }
}
