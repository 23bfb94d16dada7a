//! The TGSI side of the lowering: the instruction list being built (each
//! instruction tagged with the D3D instruction it came from), the immediate
//! pool, scratch temporaries and address registers, and small constructors
//! for TGSI operands.
//!
//! Scratch temporaries live only inside the expansion of one D3D
//! instruction; they get placeholder indices from [`SCRATCH_BASE`] up that
//! [`super::finish`] moves behind every other temporary once the total is
//! known. Immediate-constant-buffer rows likewise use placeholder IMM
//! indices from [`ICB_BASE`] up, moved behind the immediate pool (so that
//! an index past the end of the buffer reads beyond the IMM file: 0).

use tgsi_ir::enums::{File, ImmType};
use tgsi_ir::ir::{
    Component, DstOperand, IndirectAddr, Instruction, Register, SrcOperand, Swizzle, WriteMask,
};
use tgsi_ir::opcode::Opcode;

/// First placeholder index of a scratch temporary.
pub const SCRATCH_BASE: i32 = 1 << 24;
/// First placeholder index of an immediate-constant-buffer row.
pub const ICB_BASE: i32 = 1 << 24;

/// The immediates of the shader, each four words of one type. Scalars are
/// packed into partly filled vectors of their type.
#[derive(Default, Debug)]
pub struct ImmPool {
    pub entries: Vec<(ImmType, Vec<u32>)>,
}

impl ImmPool {
    /// The immediate and component holding `value` as `ty`.
    pub fn scalar(&mut self, ty: ImmType, value: u32) -> (u32, u8) {
        for (i, (t, words)) in self.entries.iter().enumerate() {
            if *t == ty
                && let Some(c) = words.iter().position(|w| *w == value)
            {
                return (i as u32, c as u8);
            }
        }
        if let Some((i, (_, words))) = self
            .entries
            .iter_mut()
            .enumerate()
            .find(|(_, (t, w))| *t == ty && w.len() < 4)
        {
            words.push(value);
            return (i as u32, (words.len() - 1) as u8);
        }
        self.entries.push((ty, vec![value]));
        (self.entries.len() as u32 - 1, 0)
    }

    /// The immediate holding exactly `words` (x, y, z, w) as `ty`.
    pub fn vector(&mut self, ty: ImmType, words: [u32; 4]) -> u32 {
        if let Some(i) = self
            .entries
            .iter()
            .position(|(t, w)| *t == ty && w.as_slice() == words)
        {
            return i as u32;
        }
        self.entries.push((ty, words.to_vec()));
        self.entries.len() as u32 - 1
    }

    /// The final four words of every immediate (scalar vectors padded with
    /// their first value).
    pub fn finish(&self) -> Vec<(ImmType, Vec<u32>)> {
        self.entries
            .iter()
            .map(|(t, w)| {
                let mut w = w.clone();
                let first = w[0];
                w.resize(4, first);
                (*t, w)
            })
            .collect()
    }
}

/// A swizzle from component numbers.
pub fn swizzle(s: [u8; 4]) -> Swizzle {
    Swizzle(s.map(|c| Component::from_u32(c as u32)))
}

/// A write mask from its bits.
pub fn mask(bits: u8) -> WriteMask {
    WriteMask::from_bits_truncate(bits & 15)
}

/// A direct register.
pub fn reg(file: File, index: i32) -> Register {
    Register::new(file, index)
}

/// A source reading `reg` with swizzle `s`.
pub fn src(reg: Register, s: [u8; 4]) -> SrcOperand {
    SrcOperand {
        swizzle: swizzle(s),
        ..SrcOperand::new(reg)
    }
}

/// A source reading one component of `reg` in all four channels.
pub fn scalar_src(reg: Register, c: u8) -> SrcOperand {
    src(reg, [c; 4])
}

/// A destination writing the components `bits` of `reg`.
pub fn dst(reg: Register, bits: u8) -> DstOperand {
    DstOperand {
        reg,
        write_mask: mask(bits),
    }
}

/// The same source with another swizzle applied on top of its own:
/// channel c reads what channel `s[c]` of `op` read.
pub fn reswizzle(op: &SrcOperand, s: [u8; 4]) -> SrcOperand {
    let mut out = *op;
    out.swizzle = Swizzle(s.map(|c| op.swizzle.get(c as usize & 3)));
    out
}

/// The same source with the channel `c` of its swizzle in all four channels.
pub fn select(op: &SrcOperand, c: u8) -> SrcOperand {
    reswizzle(op, [c; 4])
}

/// Identity swizzle.
pub const XYZW: [u8; 4] = [0, 1, 2, 3];

/// The origin of TGSI code the lowering added that no Direct3D
/// instruction stands for (the hull shader's phase scheduling): past every
/// instruction index.
pub const NO_ORIGIN: usize = usize::MAX;

/// The instruction list under construction.
#[derive(Default, Debug)]
pub struct Emitter {
    pub insts: Vec<Instruction>,
    /// Per instruction: the D3D instruction index it came from.
    pub origins: Vec<usize>,
    /// The D3D instruction being lowered.
    pub cur: usize,
    pub imms: ImmPool,
    scratch_next: u32,
    pub scratch_max: u32,
    addr_next: u32,
    pub addr_max: u32,
    /// Mark what is emitted as precise (the D3D instruction is).
    pub precise: bool,
    /// The D3D destinations written so far and their TGSI registers.
    pub dests: Vec<super::D3dDest>,
}

impl Emitter {
    /// Starts lowering D3D instruction `index`: scratch registers and
    /// address registers of the previous one are free again.
    pub fn begin(&mut self, index: usize) {
        self.cur = index;
        self.scratch_next = 0;
        self.addr_next = 0;
        self.precise = false;
    }

    /// Marks what follows as code the lowering added that no Direct3D
    /// instruction stands for (its origin is [`NO_ORIGIN`]), keeping the
    /// scratch registers in use.
    pub fn added(&mut self) {
        self.cur = NO_ORIGIN;
    }

    /// Appends an instruction.
    pub fn push(&mut self, mut inst: Instruction) {
        inst.precise |= self.precise;
        self.insts.push(inst);
        self.origins.push(self.cur);
    }

    /// Appends `op dst, srcs...`.
    pub fn op(&mut self, op: Opcode, dst: Vec<DstOperand>, src: Vec<SrcOperand>) {
        self.push(Instruction::new(op, dst, src));
    }

    /// Appends `op` with saturation.
    pub fn op_sat(&mut self, op: Opcode, sat: bool, dst: Vec<DstOperand>, src: Vec<SrcOperand>) {
        let mut i = Instruction::new(op, dst, src);
        i.saturate = sat;
        self.push(i);
    }

    /// A fresh scratch temporary (a placeholder index).
    pub fn scratch(&mut self) -> Register {
        let n = self.scratch_next;
        self.scratch_next += 1;
        self.scratch_max = self.scratch_max.max(self.scratch_next);
        reg(File::Temp, SCRATCH_BASE + n as i32)
    }

    /// A fresh address register of this instruction.
    pub fn addr(&mut self) -> u32 {
        let n = self.addr_next;
        self.addr_next += 1;
        self.addr_max = self.addr_max.max(self.addr_next);
        n
    }

    /// Loads `value` (an integer) into a fresh address register and returns
    /// the indirect reference to it.
    pub fn load_addr(&mut self, value: SrcOperand, array_id: u32) -> IndirectAddr {
        let a = self.addr();
        self.op(
            Opcode::UARL,
            vec![dst(reg(File::Address, a as i32), 1)],
            vec![value],
        );
        IndirectAddr {
            file: File::Address,
            index: a as i32,
            component: Component::X,
            array_id,
        }
    }

    /// The word an unmodified immediate operand reads (its `.x` channel
    /// after the swizzle), None for other operands.
    pub fn word_of(&self, s: &SrcOperand) -> Option<u32> {
        if s.reg.file != File::Immediate || s.negate || s.absolute || s.reg.index.indirect.is_some()
        {
            return None;
        }
        let (_, words) = self
            .imms
            .entries
            .get(usize::try_from(s.reg.index.offset).ok()?)?;
        words.get(s.swizzle.0[0] as usize).copied()
    }

    /// A uint immediate in all four channels.
    pub fn imm_u(&mut self, v: u32) -> SrcOperand {
        let (i, c) = self.imms.scalar(ImmType::Uint32, v);
        scalar_src(reg(File::Immediate, i as i32), c)
    }

    /// A float immediate in all four channels.
    pub fn imm_f(&mut self, v: f32) -> SrcOperand {
        let (i, c) = self.imms.scalar(ImmType::Flt32, v.to_bits());
        scalar_src(reg(File::Immediate, i as i32), c)
    }

    /// A vector immediate of `ty` with the identity swizzle.
    pub fn imm_vec(&mut self, ty: ImmType, words: [u32; 4]) -> SrcOperand {
        if words.iter().all(|w| *w == words[0]) {
            let (i, c) = self.imms.scalar(ty, words[0]);
            return scalar_src(reg(File::Immediate, i as i32), c);
        }
        let i = self.imms.vector(ty, words);
        src(reg(File::Immediate, i as i32), XYZW)
    }

    /// A double immediate (two words per value) with the identity swizzle.
    pub fn imm_f64(&mut self, v: f64) -> SrcOperand {
        let b = v.to_bits();
        let (lo, hi) = (b as u32, (b >> 32) as u32);
        let i = self.imms.vector(ImmType::Uint32, [lo, hi, lo, hi]);
        src(reg(File::Immediate, i as i32), XYZW)
    }

    /// `MOV dst, src` (with saturation).
    pub fn mov(&mut self, d: DstOperand, s: SrcOperand, sat: bool) {
        self.op_sat(Opcode::MOV, sat, vec![d], vec![s]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_pack_into_shared_vectors() {
        let mut pool = ImmPool::default();
        assert_eq!(pool.scalar(ImmType::Uint32, 7), (0, 0));
        assert_eq!(pool.scalar(ImmType::Uint32, 9), (0, 1));
        assert_eq!(pool.scalar(ImmType::Uint32, 7), (0, 0));
        assert_eq!(pool.scalar(ImmType::Flt32, 7), (1, 0));
        assert_eq!(pool.vector(ImmType::Uint32, [1, 2, 3, 4]), 2);
        // the full vector is searched for scalars too
        assert_eq!(pool.scalar(ImmType::Uint32, 3), (2, 2));
        let done = pool.finish();
        assert_eq!(done[0].1, vec![7, 9, 7, 7]);
    }

    #[test]
    fn reswizzle_composes() {
        let s = src(reg(File::Temp, 0), [3, 2, 1, 0]);
        let r = reswizzle(&s, [1, 1, 0, 0]);
        assert_eq!(r.swizzle, swizzle([2, 2, 3, 3]));
        assert_eq!(select(&s, 0).swizzle, swizzle([3; 4]));
    }
}
