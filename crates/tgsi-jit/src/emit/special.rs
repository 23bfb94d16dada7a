//! The opcodes whose channels each have their own formula (LIT, EXP, LOG,
//! DST) and the half-float packing (PK2H, UP2H), inline. LIT, EXP and LOG
//! use the short forms of EX2, LG2 and POW (`emit/exp_log.rs`); a batch
//! with an active lane outside them runs the instruction by the
//! interpreter's handler instead, so every lane gets the definition's bits.

use super::*;
use pool::exp_log as w;

/// An opcode with a template of its own per channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Special {
    Lit,
    Exp,
    Log,
    Dst,
    Pk2h,
    Up2h,
    /// DFRACEXP: the significand to a pair destination, the exponent to
    /// a second, 32-bit one.
    Dfracexp,
}

impl Special {
    pub(super) fn of(op: Opcode) -> Option<Special> {
        Some(match op {
            Opcode::LIT => Special::Lit,
            Opcode::EXP => Special::Exp,
            Opcode::LOG => Special::Log,
            Opcode::DST => Special::Dst,
            Opcode::PK2H => Special::Pk2h,
            Opcode::UP2H => Special::Up2h,
            Opcode::DFRACEXP => Special::Dfracexp,
            _ => return None,
        })
    }

    /// The (source, channel) pairs the template reads.
    pub(super) fn reads(self) -> &'static [(usize, usize)] {
        match self {
            Special::Lit => &[(0, 0), (0, 1), (0, 3)],
            Special::Exp | Special::Log | Special::Up2h => &[(0, 0)],
            Special::Dfracexp => &[(0, 0), (0, 1)],
            Special::Dst => &[(0, 1), (1, 1), (0, 2), (1, 3)],
            Special::Pk2h => &[(0, 0), (0, 1)],
        }
    }

    /// Sources.
    #[cfg(test)]
    pub(super) fn sources(self) -> usize {
        if self == Special::Dst { 2 } else { 1 }
    }
}

impl Emitter<'_> {
    pub(super) fn special(&mut self, i: usize, inst: &Inst, op: Special) -> R {
        match op {
            Special::Dfracexp => return self.dfracexp(inst),
            Special::Dst => self.dst(inst)?,
            Special::Up2h => self.up2h(inst)?,
            Special::Pk2h => {
                self.pk2h(inst)?;
                return Ok(self.replicate(inst)?);
            }
            Special::Exp => self.exp(inst)?,
            Special::Log => self.log(inst)?,
            Special::Lit => self.lit(inst)?,
        }
        if matches!(op, Special::Exp | Special::Log | Special::Lit) {
            self.handler_where_k3(i)?;
        }
        Ok(self.finish32(inst, |c| c as u32)?)
    }

    /// zmm `z` = 1.0 in every lane.
    fn ones(&mut self, z: u32) -> A {
        self.a
            .vbroadcastss(zmm(z), dword_ptr(rbx + pool_off(pool::ONE)))
    }

    /// zmm `z` = channel `c` of source `k` (a copy).
    fn channel_into(&mut self, z: u32, inst: &Inst, k: usize, c: usize) -> R {
        let got = self.fetch(z, &inst.src[k], c, false)?;
        if got != z {
            self.a.vmovdqa32(zmm(z), zmm(got))?;
        }
        Ok(())
    }

    /// DST: (1, a.y · b.y, a.z, b.w) into zmm0-3.
    fn dst(&mut self, inst: &Inst) -> R {
        let a = self.fetch(4, &inst.src[0], 1, false)?;
        let b = self.fetch(5, &inst.src[1], 1, false)?;
        self.op32(Op32::Mul, 1, [a, b, 6])?;
        self.channel_into(2, inst, 0, 2)?;
        self.channel_into(3, inst, 1, 3)?;
        self.ones(0)?;
        Ok(())
    }

    /// UP2H: the halves of x's low and high 16 bits as floats, into
    /// (x, y, z, w) = (low, high, low, high).
    fn up2h(&mut self, inst: &Inst) -> R {
        let x = self.fetch(4, &inst.src[0], 0, false)?;
        let a = &mut self.a;
        a.vpmovdw(ymm(6), zmm(x))?;
        a.vcvtph2ps(zmm(0), ymm(6))?;
        a.vpsrld(zmm(7), zmm(x), 16)?;
        a.vpmovdw(ymm(7), zmm(7))?;
        a.vcvtph2ps(zmm(1), ymm(7))?;
        a.vmovdqa32(zmm(2), zmm(0))?;
        a.vmovdqa32(zmm(3), zmm(1))?;
        Ok(())
    }

    /// PK2H (TGSI's rounding: to nearest even): half(x) | half(y) << 16
    /// into zmm0.
    fn pk2h(&mut self, inst: &Inst) -> R {
        let x = self.fetch(4, &inst.src[0], 0, false)?;
        let y = self.fetch(5, &inst.src[0], 1, false)?;
        let a = &mut self.a;
        a.vcvtps2ph(ymm(6), zmm(x), 0)?;
        a.vcvtps2ph(ymm(7), zmm(y), 0)?;
        a.vpmovzxwd(zmm(0), ymm(6))?;
        a.vpmovzxwd(zmm(7), ymm(7))?;
        a.vpslld(zmm(7), zmm(7), 16)?;
        a.vpord(zmm(0), zmm(0), zmm(7))?;
        Ok(())
    }

    /// EXP: (2^floor(s), s − floor(s), 2^s, 1) into zmm0-3; k3 = the
    /// active lanes outside EX2's short form (either of the two).
    fn exp(&mut self, inst: &Inst) -> R {
        let s = self.fetch(4, &inst.src[0], 0, false)?;
        self.ex2_plain(s, 2)?;
        self.a.kmovw(k5, k3)?;
        self.op32(Op32::Round(1), 5, [s, 6, 6])?;
        self.a.vsubps(zmm(1), zmm(s), zmm(5))?;
        self.ex2_plain(5, 0)?;
        self.a.korw(k3, k3, k5)?;
        self.ones(3)?;
        Ok(())
    }

    /// LOG: t = |s|, (floor(log2 t), t / 2^floor(log2 t), log2 t, 1) into
    /// zmm0-3; k3 = the active lanes outside LG2's or EX2's short form.
    fn log(&mut self, inst: &Inst) -> R {
        let s = self.fetch(4, &inst.src[0], 0, false)?;
        let t = 14;
        self.a
            .vpandd(zmm(t), zmm(s), dword_bcst(rbx + pool_off(pool::ABS)))?;
        self.lg2_plain(t, 2)?;
        self.a.kmovw(k5, k3)?;
        self.op32(Op32::Round(1), 0, [2, 6, 6])?;
        self.ex2_plain(0, 5)?;
        self.a.korw(k3, k3, k5)?;
        self.a.vdivps(zmm(1), zmm(t), zmm(5))?;
        self.ones(3)?;
        Ok(())
    }

    /// LIT into zmm0-3: x and w 1, y `max(s.x, 0)`, z the power
    /// `pow(max(s.y, 0), clamp(s.w))` where s.x > 0, else 0; k3 = the
    /// active lanes with s.x > 0 outside POW's short form.
    fn lit(&mut self, inst: &Inst) -> R {
        let lim = |word: i32| dword_ptr(rbx + pool_off(pool::EXP_LOG + word));
        // base = max(s.y, 0) into zmm5
        let sy = self.fetch(4, &inst.src[0], 1, false)?;
        self.a.vpxord(zmm(6), zmm(6), zmm(6))?;
        self.op32(Op32::Max, 5, [sy, 6, 6])?;
        // exponent = max(min(s.w, 128), −128) into zmm4
        let sw = self.fetch(4, &inst.src[0], 3, false)?;
        self.a.vbroadcastss(zmm(7), lim(w::LIT_HIGH))?;
        self.op32(Op32::Min, 8, [sw, 7, 7])?;
        self.a.vbroadcastss(zmm(7), lim(w::LIT_LOW))?;
        self.op32(Op32::Max, 4, [8, 7, 7])?;
        let uniform_y = self.is_uniform(&inst.src[0]);
        self.pow_plain(5, 4, uniform_y)?;
        // z = the power where s.x > 0, else 0; y = max(s.x, 0)
        let sx = self.fetch(4, &inst.src[0], 0, false)?;
        let a = &mut self.a;
        a.vcmpps(k2, zmm(sx), dword_bcst(rbx + pool_off(pool::ZERO)), GT_OQ)?;
        a.kandw(k3, k3, k2)?;
        a.vpxord(zmm(2), zmm(2), zmm(2))?;
        a.vmovdqa32(zmm(2).k2(), zmm(0))?;
        a.vpxord(zmm(6), zmm(6), zmm(6))?;
        self.op32(Op32::Max, 1, [sx, 6, 6])?;
        self.ones(0)?;
        self.ones(3)?;
        Ok(())
    }

    /// DFRACEXP: the significand of the double in source pair xy
    /// (`vgetmantpd` into [1/2, 1) with its sign) to every pair the
    /// writemask names, its exponent (`vgetexppd` + 1) to every channel of
    /// the second destination; zeros, infinities and NaNs keep their bits
    /// with exponent 0, as `ops::dfracexp`.
    fn dfracexp(&mut self, inst: &Inst) -> R {
        let (lo, hi) = self.fetch_pair(8, 9, &inst.src[0], 0)?;
        let a = &mut self.a;
        for (h, x) in [lo, hi].into_iter().enumerate() {
            let (sig, e) = (zmm(h as u32), 10 + h as u32);
            a.vgetmantpd(sig, zmm(x), 2)?;
            a.vgetexppd(zmm(e), zmm(x))?;
            a.vcvttpd2dq(ymm(e), zmm(e))?;
            a.vpaddd(ymm(e), ymm(e), dword_bcst(rbx + pool_off(pool::INT1)))?;
            // ±0, ±inf, NaN: the value itself, exponent 0
            a.vfpclasspd(k2, zmm(x), 0x9F)?;
            a.vmovdqa64(sig.k2(), zmm(x))?;
            a.vpxord(ymm(e).k2(), ymm(e), ymm(e))?;
        }
        // in zmm2: the stores take zmm12-15 and zmm31 as scratch
        a.vinserti32x8(zmm(2), zmm(10), ymm(11), 1)?;
        // the pairs (low words → zmm12, high words → zmm13), then the exponents
        let pairs = pairs_of(inst.dst[0].mask, true);
        for p in (0..2).filter(|&p| pairs[p]) {
            let a = &mut self.a;
            a.vmovdqu32(zmm(12), zmmword_ptr(rbx + off::PERM + 128))?;
            a.vpermi2d(zmm(12), zmm(0), zmm(1))?;
            a.vmovdqu32(zmm(13), zmmword_ptr(rbx + off::PERM + 192))?;
            a.vpermi2d(zmm(13), zmm(0), zmm(1))?;
            self.store(inst, 2 * p, 12)?;
            self.store(inst, 2 * p + 1, 13)?;
        }
        for c in (0..4).filter(|c| inst.dst[1].mask & (1 << c) != 0) {
            self.store_to(inst.dst[1].kind, c, 2)?;
        }
        Ok(())
    }

    /// When k3 has a lane: instruction `i` by the interpreter's handler
    /// (which writes its destination), then on to the next instruction.
    pub(super) fn handler_where_k3(&mut self, i: usize) -> A {
        let mut inline = self.a.create_label();
        self.a.kortestw(k3, k3)?;
        self.a.jz(inline)?;
        self.cache_store(false)?;
        self.call(step_callback as *const () as usize as u64, i as u64)?;
        self.a.test(eax, eax)?;
        self.a.jnz(self.callback_status)?;
        self.a.mov(r12, qword_ptr(rbx + off::REGS))?;
        self.update_exec()?;
        self.cache_load(false)?;
        self.a.jmp(self.labels[i + 1])?;
        self.a.set_label(&mut inline)?;
        self.a.zero_bytes()
    }
}
