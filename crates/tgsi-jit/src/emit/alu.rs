//! The 32-bit templates: per-component and replicated-scalar operations,
//! Direct3D's denormal flushing, the row kernels and the inline SIN/COS.

use super::*;

impl Emitter<'_> {
    pub(super) fn comp(&mut self, inst: &Inst, op: Op32, n: usize) -> R {
        if let Some(wide) = self.bitwise_on_pairs(inst, op, n) {
            return self.pair(inst, wide, n, true);
        }
        let m = inst.dst[0].mask;
        let mut written = 0u8;
        for c in 0..4 {
            if m & (1 << c) == 0 {
                continue;
            }
            let mut regs = [4, 5, 6, 15];
            for k in 0..n {
                regs[k] = self.fetch([4, 5, 6, 15][k], &inst.src[k], c, false)?;
            }
            // a fourth source (BFI's) in zmm15
            if n == 4 && regs[3] != 15 {
                self.a.vmovdqa32(zmm(15), zmm(regs[3]))?;
            }
            let src = [regs[0], regs[1], regs[2]];
            let direct = self.direct_row(inst, c);
            let out = direct.map_or(zmm(c as u32), |z| zmm(z).k1());
            let done = match (op, self.constant_operand_of_min_max(inst, op, c)) {
                (Op32::Min, Some(k)) => self
                    .a
                    .vminps(out, zmm(src[1 - k]), zmm(src[k]))
                    .map(|_| true)?,
                (Op32::Max, Some(k)) => self
                    .a
                    .vmaxps(out, zmm(src[1 - k]), zmm(src[k]))
                    .map(|_| true)?,
                _ => self.op32_single(op, out, src)?,
            };
            match (done, direct) {
                (true, Some(_)) => written |= 1 << c,
                (true, None) => {}
                (false, _) => self.op32(op, c as u32, src)?,
            }
        }
        Ok(self.finish32_except(inst, written, |c| c as u32)?)
    }

    /// The cache register of channel `c` of `inst`'s destination when the
    /// instruction's last step may write its result there directly, under
    /// the execution mask: a plain register row the active loop keeps in a
    /// register, no saturation or flushing, and no later channel of the
    /// instruction reading the row (it must see the value from before).
    pub(super) fn direct_row(&self, inst: &Inst, c: usize) -> Option<u32> {
        let DstKind::Reg(reg) = inst.dst[0].kind else {
            return None;
        };
        if inst.flush || inst.saturate || self.slot(Key::Pair(reg, c as u8 / 2)).is_some() {
            return None;
        }
        let later = inst.dst[0].mask & !((2u8 << c) - 1);
        let reads_c_later =
            |s: &Src| (0..4).any(|l| later & (1 << l) != 0 && (s.swz[l] & 3) as usize == c);
        for s in &inst.src {
            match s.kind {
                SrcKind::Reg(r) if r == reg && reads_c_later(s) => return None,
                SrcKind::RegIndirect { .. } => return None,
                _ => {}
            }
        }
        self.cached(Key::Row(reg, c as u8))
    }

    /// For MIN/MAX: which source (0 or 1) is an unmodified immediate that
    /// makes `vminps`/`vmaxps` with it second the whole rule. Those give
    /// their second operand where either is NaN or both are equal; with a
    /// non-NaN constant second that is minNum/maxNum, equal values have
    /// equal bits, and of the zeros only MIN's +0 and MAX's -0 would take
    /// the wrong sign (`min(-0, +0)` is -0, `max(-0, +0)` +0).
    fn constant_operand_of_min_max(&self, inst: &Inst, op: Op32, c: usize) -> Option<usize> {
        let wrong_zero = match op {
            Op32::Min => 0.0f32,
            Op32::Max => -0.0f32,
            _ => return None,
        };
        (0..2).rev().find(|&k| {
            let s = &inst.src[k];
            self.immediate_word(s, c).is_some_and(|w| {
                !s.flush && !f32::from_bits(w).is_nan() && w != wrong_zero.to_bits()
            })
        })
    }

    /// The 64-bit form of a bitwise op whose destination pairs the loop
    /// cache holds as 64-bit lanes, when its channels line up with those
    /// pairs (whole pairs written, no saturation, no source modifiers):
    /// XOR of two `.xy` pairs into a `.xy` pair is one XOR of 64-bit lanes.
    pub(super) fn bitwise_on_pairs(&self, inst: &Inst, op: Op32, n: usize) -> Option<Op64> {
        let wide = match op {
            Op32::Mov => Op64::Mov64,
            Op32::Not => Op64::Not64,
            Op32::And => Op64::And64,
            Op32::Or => Op64::Or64,
            Op32::Xor => Op64::Xor64,
            _ => return None,
        };
        let m = inst.dst[0].mask;
        let DstKind::Reg(r) = inst.dst[0].kind else {
            return None;
        };
        let whole = [m & 3, m & 12]
            .iter()
            .zip([3, 12])
            .all(|(&h, f)| h == 0 || h == f);
        let unmodified = inst.src[..n]
            .iter()
            .all(|s| matches!(s.modifier, Modifier::None));
        let cached = (0..2)
            .filter(|&p| m & (3 << (2 * p)) != 0)
            .all(|p| self.slot(Key::Pair(r, p as u8)).is_some());
        (whole && unmodified && cached && !inst.saturate && m != 0).then_some(wide)
    }

    /// True for a source that is the same in every lane: a direct
    /// constant or an immediate (modifiers apply alike to every lane).
    pub(super) fn is_uniform(&self, s: &Src) -> bool {
        let imm = self.code.imm;
        match s.kind {
            SrcKind::Const { .. } => true,
            SrcKind::Reg(r) => r >= imm.base && r < imm.base + imm.len,
            _ => false,
        }
    }

    /// The compile-time value of channel `c` of an unmodified immediate source.
    pub(super) fn immediate_word(&self, s: &Src, c: usize) -> Option<u32> {
        let imm = self.code.imm;
        match (s.kind, s.modifier) {
            (SrcKind::Reg(r), Modifier::None) if r >= imm.base && r < imm.base + imm.len => self
                .code
                .imm_words
                .get((r - imm.base) as usize)
                .map(|w| w[(s.swz[c] & 3) as usize]),
            _ => None,
        }
    }

    /// Saturates and stores the result rows (`zreg(c)` holds channel c).
    pub(super) fn finish32(&mut self, inst: &Inst, zreg: impl Fn(usize) -> u32) -> A {
        self.finish32_except(inst, 0, zreg)
    }

    /// [`Self::finish32`] but for the channels in `written`, already in
    /// their place ([`Self::direct_row`]).
    fn finish32_except(&mut self, inst: &Inst, written: u8, zreg: impl Fn(usize) -> u32) -> A {
        let m = inst.dst[0].mask & !written;
        for c in 0..4 {
            if m & (1 << c) != 0 {
                let mut z = zreg(c);
                if inst.flush {
                    if z != c as u32 {
                        self.a.vmovdqa32(zmm(c as u32), zmm(z))?;
                        z = c as u32;
                    }
                    self.flush32(z)?;
                }
                if inst.saturate && z == c as u32 {
                    self.saturate32(z)?;
                }
                self.store(inst, c, z)?;
            }
        }
        Ok(())
    }

    /// Float32 denormals of zmm `z` to the zero of their sign (Direct3D's
    /// rule, `ops::flush_denormal`): lanes whose exponent field is 0 keep
    /// only their sign bit.
    pub(super) fn flush32(&mut self, z: u32) -> A {
        let a = &mut self.a;
        a.vptestnmd(k7, zmm(z), dword_bcst(rbx + pool_off(pool::EXP)))?;
        a.vpandd(zmm(z).k7(), zmm(z), dword_bcst(rbx + pool_off(pool::SIGN)))
    }

    /// The operations whose last step alone writes the result, so that it
    /// may write a masked destination register directly (`o`, e.g. a
    /// cache register under k1; the steps before write only zmm7 and zmm8):
    /// `o = op(zmm(src[0]), zmm(src[1]), zmm(src[2]))`, true; false for any
    /// other operation, nothing emitted.
    pub(super) fn op32_single(
        &mut self,
        op: Op32,
        o: AsmRegisterZmm,
        src: [u32; 3],
    ) -> Result<bool, IcedError> {
        let a = &mut self.a;
        let (x, y, z) = (zmm(src[0]), zmm(src[1]), zmm(src[2]));
        let bc = |p: i32| dword_bcst(rbx + pool_off(p));
        match op {
            Op32::Mov => a.vmovdqa32(o, x)?,
            Op32::Frc => {
                a.vrndscaleps(zmm(7), x, 1)?;
                a.vsubps(o, x, zmm(7))?
            }
            Op32::I2f => a.vcvtdq2ps(o, x)?,
            Op32::U2f => a.vcvtudq2ps(o, x)?,
            Op32::Not => a.vpternlogd(o, x, x, 0x55)?,
            Op32::Iabs => a.vpabsd(o, x)?,
            Op32::Add => a.vaddps(o, x, y)?,
            Op32::Mul => a.vmulps(o, x, y)?,
            Op32::Div => a.vdivps(o, x, y)?,
            Op32::Shl | Op32::Ishr | Op32::Ushr => {
                let n = zmm(7);
                a.vpandd(n, y, bc(pool::MASK31))?;
                match op {
                    Op32::Shl => a.vpsllvd(o, x, n)?,
                    Op32::Ishr => a.vpsravd(o, x, n)?,
                    _ => a.vpsrlvd(o, x, n)?,
                }
            }
            Op32::And => a.vpandd(o, x, y)?,
            Op32::Or => a.vpord(o, x, y)?,
            Op32::Xor => a.vpxord(o, x, y)?,
            Op32::Uadd => a.vpaddd(o, x, y)?,
            Op32::Umul => a.vpmulld(o, x, y)?,
            Op32::Imax => a.vpmaxsd(o, x, y)?,
            Op32::Imin => a.vpminsd(o, x, y)?,
            Op32::Umax => a.vpmaxud(o, x, y)?,
            Op32::Umin => a.vpminud(o, x, y)?,
            // a NaN comes back quiet, as `ops::ldexp`
            Op32::Ldexp => {
                a.vcvtdq2ps(zmm(7), y)?;
                a.vscalefps(o, x, zmm(7))?
            }
            Op32::Mad => {
                a.vmulps(zmm(7), x, y)?;
                a.vaddps(o, zmm(7), z)?
            }
            Op32::Umad => {
                a.vpmulld(zmm(7), x, y)?;
                a.vpaddd(o, zmm(7), z)?
            }
            Op32::Rcp => {
                a.vpbroadcastd(zmm(7), dword_ptr(rbx + pool_off(pool::ONE)))?;
                a.vdivps(o, zmm(7), x)?
            }
            Op32::Sqrt => a.vsqrtps(o, x)?,
            Op32::Rsq => {
                a.vsqrtps(zmm(8), x)?;
                a.vpbroadcastd(zmm(7), dword_ptr(rbx + pool_off(pool::ONE)))?;
                a.vdivps(o, zmm(7), zmm(8))?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `zmm(d) = op(zmm(src[0]), zmm(src[1]), zmm(src[2]))`; sources are never written.
    pub(super) fn op32(&mut self, op: Op32, d: u32, src: [u32; 3]) -> A {
        if self.op32_single(op, zmm(d), src)? {
            return Ok(());
        }
        let a = &mut self.a;
        let (x, y, z, o) = (zmm(src[0]), zmm(src[1]), zmm(src[2]), zmm(d));
        let bc = |p: i32| dword_bcst(rbx + pool_off(p));
        match op {
            Op32::Round(mode) => {
                // NaN keeps its bits (the interpreter's rounding does not quiet it)
                a.vrndscaleps(o, x, mode)?;
                a.vcmpps(k2, x, x, UNORD_Q)?;
                a.vmovdqa32(o.k2(), x)
            }
            Op32::Ineg => {
                a.vpxord(o, o, o)?;
                a.vpsubd(o, o, x)
            }
            Op32::Arl | Op32::F2i => self.truncate(op == Op32::Arl, d, src),
            // floor(x + 0.5), the addition rounded in f32 (`ops::arr`)
            Op32::Arr => {
                let half = dword_bcst(rbx + pool_off(pool::EXP_LOG + pool::exp_log::HALF));
                a.vaddps(zmm(8), x, half)?;
                self.truncate(true, d, [8, 8, 8])
            }
            // the fourth source in zmm15 (`comp`)
            Op32::Bfi => self.bit_field_insert(d, [src[0], src[1], src[2], 15]),
            Op32::F2u => {
                // out of range above: u32::MAX; not above 0 (NaN too): 0
                a.vcvttps2udq(o, x)?;
                a.vcmpps(k2, x, bc(pool::ZERO), NGT_UQ)?;
                a.vpxord(o.k2(), o, o)
            }
            Op32::Ssg => {
                a.vpxord(o, o, o)?;
                a.vcmpps(k2, x, bc(pool::ZERO), GT_OQ)?;
                a.vpbroadcastd(o.k2(), dword_ptr(rbx + pool_off(pool::ONE)))?;
                a.vcmpps(k2, x, bc(pool::ZERO), LT_OQ)?;
                a.vpbroadcastd(o.k2(), dword_ptr(rbx + pool_off(pool::MINUS_ONE)))
            }
            Op32::Issg => {
                // (x >> 31) | ((0 - x) >>> 31): -1, 0 or 1 (i32::MIN: -1)
                a.vpxord(zmm(7), zmm(7), zmm(7))?;
                a.vpsubd(zmm(7), zmm(7), x)?;
                a.vpsrld(zmm(7), zmm(7), 31)?;
                a.vpsrad(o, x, 31)?;
                a.vpord(o, o, zmm(7))
            }
            Op32::Lsb | Op32::Umsb | Op32::Imsb | Op32::Popc | Op32::Brev => {
                self.bit_op(op, d, src)
            }
            Op32::Bfe(signed) => self.bit_field_extract(signed, d, src),
            Op32::MulHi(signed) => self.mul_hi(signed, d, src),
            Op32::Lrp => {
                // add(mul(a, b), mul(sub(1, a), c)): the NaN of each step is
                // the host's (first NaN operand quieted, else the default)
                a.vpbroadcastd(zmm(7), dword_ptr(rbx + pool_off(pool::ONE)))?;
                a.vsubps(zmm(7), zmm(7), x)?;
                a.vmulps(zmm(7), zmm(7), z)?;
                a.vmulps(o, x, y)?;
                a.vaddps(o, o, zmm(7))
            }
            Op32::Fma => self.fma32(d, src),
            // emitted by `op32_single` above
            Op32::Mov
            | Op32::Frc
            | Op32::I2f
            | Op32::U2f
            | Op32::Not
            | Op32::Iabs
            | Op32::Add
            | Op32::Mul
            | Op32::Div
            | Op32::Shl
            | Op32::Ishr
            | Op32::Ushr
            | Op32::And
            | Op32::Or
            | Op32::Xor
            | Op32::Uadd
            | Op32::Umul
            | Op32::Imax
            | Op32::Imin
            | Op32::Umax
            | Op32::Umin
            | Op32::Ldexp
            | Op32::Mad
            | Op32::Umad
            | Op32::Rcp
            | Op32::Sqrt
            | Op32::Rsq => Ok(()),
            Op32::IntDiv(signed, rem) => self.int_div(signed, rem, d, src),
            Op32::Min | Op32::Max => self.min_max(op == Op32::Min, d, src),
            Op32::ICmp(signed, p) => {
                if signed {
                    a.vpcmpd(k2, x, y, p)?;
                } else {
                    a.vpcmpud(k2, x, y, p)?;
                }
                a.vpmovm2d(o, k2)
            }
            Op32::FCmp(p) => {
                a.vcmpps(k2, x, y, p)?;
                a.vpmovm2d(o, k2)
            }
            Op32::SCmp(p) => {
                a.vcmpps(k2, x, y, p)?;
                a.vpmovm2d(o, k2)?;
                a.vpandd(o, o, bc(pool::ONE))
            }
            Op32::Ucmp => {
                a.vptestmd(k2, x, x)?;
                a.vmovdqa32(o, z)?;
                a.vmovdqa32(o.k2(), y)
            }
            Op32::Cmp => {
                a.vcmpps(k2, x, bc(pool::ZERO), LT_OQ)?;
                a.vmovdqa32(o, z)?;
                a.vmovdqa32(o.k2(), y)
            }
        }
    }

    /// MIN / MAX: minNum / maxNum with the signed-zero rule.
    fn min_max(&mut self, min: bool, d: u32, src: [u32; 3]) -> A {
        let a = &mut self.a;
        let (x, y, o) = (zmm(src[0]), zmm(src[1]), zmm(d));
        // vminps/vmaxps give y when either is NaN or both are equal:
        // x where only y is NaN, x | y (min) or x & y (max) where
        // equal (the same bits, or zeros whose sign the rule picks)
        if min {
            a.vminps(o, x, y)?;
        } else {
            a.vmaxps(o, x, y)?;
        }
        a.vcmpps(k2, x, x, ORD_Q)?;
        a.vcmpps(k2.k2(), y, y, UNORD_Q)?;
        a.vmovdqa32(o.k2(), x)?;
        a.vcmpps(k2, x, y, EQ_OQ)?;
        if min {
            a.vpord(o.k2(), x, y)
        } else {
            a.vpandd(o.k2(), x, y)
        }
    }

    /// LSB, UMSB, IMSB (`vplzcntd`: 31 - the leading zeros, -1 for 0),
    /// POPC (bit sums) and BREV (bit swaps and a rotate) of `src[0]` into
    /// `d` (zmm7 scratch).
    fn bit_op(&mut self, op: Op32, d: u32, src: [u32; 3]) -> A {
        let a = &mut self.a;
        let (x, o, t) = (zmm(src[0]), zmm(d), zmm(7));
        let m = |k: i32| dword_bcst(rbx + pool_off(pool::BIT_MASKS + k));
        match op {
            Op32::Lsb | Op32::Umsb | Op32::Imsb => {
                match op {
                    // the lowest set bit alone: x & -x
                    Op32::Lsb => {
                        a.vpxord(t, t, t)?;
                        a.vpsubd(t, t, x)?;
                        a.vpandd(t, t, x)?;
                    }
                    // the bits that differ from the sign bit
                    Op32::Imsb => {
                        a.vpsrad(t, x, 31)?;
                        a.vpxord(t, t, x)?;
                    }
                    _ => a.vmovdqa32(t, x)?,
                }
                // 31 - lzcnt: the bit's index, and -1 for 0 (lzcnt 32)
                a.vplzcntd(t, t)?;
                a.vpbroadcastd(o, dword_ptr(rbx + pool_off(pool::MASK31)))?;
                a.vpsubd(o, o, t)
            }
            Op32::Popc => {
                // bit sums of 2, 4, 8 bits, then the bytes summed by a multiply
                a.vpsrld(t, x, 1)?;
                a.vpandd(t, t, m(0))?;
                a.vpsubd(o, x, t)?;
                a.vpsrld(t, o, 2)?;
                a.vpandd(t, t, m(1))?;
                a.vpandd(o, o, m(1))?;
                a.vpaddd(o, o, t)?;
                a.vpsrld(t, o, 4)?;
                a.vpaddd(o, o, t)?;
                a.vpandd(o, o, m(2))?;
                a.vpmulld(o, o, m(3))?;
                a.vpsrld(o, o, 24)
            }
            Op32::Brev => {
                // swap bits, pairs, nibbles, bytes, then the halves
                a.vmovdqa32(o, x)?;
                for (k, n) in [(0, 1), (1, 2), (2, 4), (4, 8)] {
                    a.vpsrld(t, o, n)?;
                    a.vpandd(t, t, m(k))?;
                    a.vpandd(o, o, m(k))?;
                    a.vpslld(o, o, n)?;
                    a.vpord(o, o, t)?;
                }
                a.vprold(o, o, 16)
            }
            _ => Ok(()),
        }
    }

    /// IBFE (`signed`) / UBFE of `src` (value, offset, bits) into `d`, as
    /// `ops::ibfe`: the field `(a << (32 - offset - bits)) >> (32 - bits)`
    /// where it ends below bit 32, else `a >> offset`; 0 for 0 bits (after
    /// masking with 31); `a` itself for 32 bits at offset 0 (zmm7-13 scratch).
    fn bit_field_extract(&mut self, signed: bool, d: u32, src: [u32; 3]) -> A {
        let a = &mut self.a;
        let (x, y, z, o) = (zmm(src[0]), zmm(src[1]), zmm(src[2]), zmm(d));
        let bc = |p: i32| dword_bcst(rbx + pool_off(p));
        let (offset, bits, sum) = (zmm(8), zmm(9), zmm(10));
        let (field, up, down, whole) = (zmm(12), zmm(11), zmm(13), zmm(7));
        a.vpandd(offset, y, bc(pool::MASK31))?;
        a.vpandd(bits, z, bc(pool::MASK31))?;
        a.vpaddd(sum, offset, bits)?;
        a.vpbroadcastd(up, dword_ptr(rbx + pool_off(pool::THIRTY_TWO)))?;
        a.vpsubd(down, up, bits)?;
        a.vpsubd(up, up, sum)?;
        a.vpsllvd(field, x, up)?;
        if signed {
            a.vpsravd(field, field, down)?;
            a.vpsravd(whole, x, offset)?;
        } else {
            a.vpsrlvd(field, field, down)?;
            a.vpsrlvd(whole, x, offset)?;
        }
        // the field where it ends below bit 32, else the value shifted down
        a.vmovdqa32(o, whole)?;
        a.vpcmpud(k2, sum, bc(pool::THIRTY_TWO), P_LT)?;
        a.vmovdqa32(o.k2(), field)?;
        a.vptestnmd(k2, bits, bits)?;
        a.vpxord(o.k2(), o, o)?;
        a.vpcmpud(k2, z, bc(pool::THIRTY_TWO), P_EQ)?;
        a.vptestnmd(k2.k2(), offset, offset)?;
        a.vmovdqa32(o.k2(), x)
    }

    /// BFI (base, insert, offset, bits) into `d`, as `ops::bfi`: the
    /// insert shifted by the offset under the mask of `bits` ones there,
    /// the base elsewhere; the insert itself for 32 bits (zmm7-11 scratch).
    fn bit_field_insert(&mut self, d: u32, src: [u32; 4]) -> A {
        let a = &mut self.a;
        let [base, insert, offset, bits] = src.map(zmm);
        let bc = |p: i32| dword_bcst(rbx + pool_off(p));
        let (off, n, one, mask, shifted) = (zmm(7), zmm(8), zmm(9), zmm(10), zmm(11));
        a.vpandd(off, offset, bc(pool::MASK31))?;
        a.vpandd(n, bits, bc(pool::MASK31))?;
        a.vpbroadcastd(one, dword_ptr(rbx + pool_off(pool::INT1)))?;
        a.vpsllvd(mask, one, n)?;
        a.vpsubd(mask, mask, one)?;
        a.vpsllvd(mask, mask, off)?;
        a.vpsllvd(shifted, insert, off)?;
        // mask ? shifted : base, bit by bit
        a.vmovdqa32(zmm(d), mask)?;
        a.vpternlogd(zmm(d), shifted, base, 0xCA)?;
        a.vpcmpud(k2, bits, bc(pool::THIRTY_TWO), P_EQ)?;
        a.vmovdqa32(zmm(d).k2(), insert)
    }

    /// `(int)floor(x)` (ARL) or the truncation (F2I) to i32, saturating,
    /// NaN → 0: `vcvttps2dq` gives 0x80000000 for NaN and out of range.
    fn truncate(&mut self, floor: bool, d: u32, src: [u32; 3]) -> A {
        let a = &mut self.a;
        let (x, o) = (zmm(src[0]), zmm(d));
        let bc = |p: i32| dword_bcst(rbx + pool_off(p));
        // vcvttps2dq gives 0x80000000 for NaN and out of range:
        // i32::MAX from 2^31 up, 0 for NaN
        if floor {
            a.vrndscaleps(zmm(7), x, 1)?;
            a.vcvttps2dq(o, zmm(7))?;
            a.vcmpps(k2, zmm(7), bc(pool::TWO_31), GE_OQ)?;
        } else {
            a.vcvttps2dq(o, x)?;
            a.vcmpps(k2, x, bc(pool::TWO_31), GE_OQ)?;
        }
        a.vpbroadcastd(o.k2(), dword_ptr(rbx + pool_off(pool::ABS)))?;
        a.vcmpps(k2, x, x, UNORD_Q)?;
        a.vpxord(o.k2(), o, o)
    }

    /// The high 32 bits of the 64-bit products (IMUL_HI, UMUL_HI).
    fn mul_hi(&mut self, signed: bool, d: u32, src: [u32; 3]) -> A {
        let a = &mut self.a;
        let (x, y, o) = (zmm(src[0]), zmm(src[1]), zmm(d));
        // even lanes' 64-bit products (high words moved down), then
        // the odd lanes' (their high words already in place)
        let (lo, hi) = (zmm(7), zmm(8));
        a.vpsrlq(zmm(9), x, 32)?;
        a.vpsrlq(zmm(10), y, 32)?;
        if signed {
            a.vpmuldq(lo, x, y)?;
            a.vpmuldq(hi, zmm(9), zmm(10))?;
        } else {
            a.vpmuludq(lo, x, y)?;
            a.vpmuludq(hi, zmm(9), zmm(10))?;
        }
        a.vpsrlq(o, lo, 32)?;
        a.kmovw(k2, word_ptr(rbx + pool_off(pool::ODD_LANES)))?;
        a.vmovdqa32(o.k2(), hi)
    }

    /// FMA with the machine's NaN rule.
    fn fma32(&mut self, d: u32, src: [u32; 3]) -> A {
        let a = &mut self.a;
        let (x, y, z, o) = (zmm(src[0]), zmm(src[1]), zmm(src[2]), zmm(d));
        let bc = |p: i32| dword_bcst(rbx + pool_off(p));
        a.vmovaps(o, x)?;
        a.vfmadd213ps(o, y, z)?;
        // NaN results: the first NaN operand (a, b, c) quieted, else
        // the default NaN, whatever operand order the host follows
        let mut done = a.create_label();
        a.vcmpps(k2, o, o, UNORD_Q)?;
        a.kortestw(k2, k2)?;
        a.jz(done)?;
        a.vpbroadcastd(zmm(7), dword_ptr(rbx + pool_off(pool::DEFAULT_NAN)))?;
        for src in [z, y, x] {
            a.vcmpps(k3.k2(), src, src, UNORD_Q)?;
            a.vpord(zmm(7).k3(), src, bc(pool::QUIET))?;
        }
        a.vmovdqa32(o.k2(), zmm(7))?;
        a.set_label(&mut done)?;
        a.zero_bytes()
    }

    /// UDIV, UMOD, IDIV, MOD through doubles.
    fn int_div(&mut self, signed: bool, rem: bool, d: u32, src: [u32; 3]) -> A {
        let a = &mut self.a;
        let (x, y, o) = (zmm(src[0]), zmm(src[1]), zmm(d));
        // each half of 8 lanes as doubles (exact), divided; the
        // truncated quotient of two 32-bit integers is exact (its
        // rounding error is below the gap to the next integer)
        let (xa, xb, ya, yb) = (zmm(7), zmm(8), zmm(9), zmm(10));
        a.vextracti32x8(ymm(11), x, 1)?;
        a.vextracti32x8(ymm(12), y, 1)?;
        if signed {
            a.vcvtdq2pd(xa, ymm(src[0]))?;
            a.vcvtdq2pd(xb, ymm(11))?;
            a.vcvtdq2pd(ya, ymm(src[1]))?;
            a.vcvtdq2pd(yb, ymm(12))?;
        } else {
            a.vcvtudq2pd(xa, ymm(src[0]))?;
            a.vcvtudq2pd(xb, ymm(11))?;
            a.vcvtudq2pd(ya, ymm(src[1]))?;
            a.vcvtudq2pd(yb, ymm(12))?;
        }
        a.vdivpd(xa, xa, ya)?;
        a.vdivpd(xb, xb, yb)?;
        if signed {
            // i32::MIN / -1 = 2^31 gives 0x80000000: i32::MIN, as wrapping
            a.vcvttpd2dq(ymm(11), xa)?;
            a.vcvttpd2dq(ymm(12), xb)?;
        } else {
            a.vcvttpd2udq(ymm(11), xa)?;
            a.vcvttpd2udq(ymm(12), xb)?;
        }
        a.vinserti32x8(o, zmm(11), ymm(12), 1)?;
        if rem {
            // x − q·y (wrapping: i32::MIN % −1 = 0)
            a.vpmulld(o, o, y)?;
            a.vpsubd(o, x, o)?;
        }
        // by zero: 0 for IDIV, all ones for the others
        a.vptestnmd(k2, y, y)?;
        if signed && !rem {
            a.vpxord(o.k2(), o, o)
        } else {
            a.vpternlogd(o.k2(), o, o, 0xFF)
        }
    }

    /// DP2/DP3/DP4: products and sums rounded one by one, in channel order
    /// (`ops::dp3`), replicated.
    pub(super) fn dot(&mut self, inst: &Inst, n: usize) -> R {
        let direct = self.lone_direct_row(inst);
        for c in 0..n {
            let x = self.fetch(4, &inst.src[0], c, false)?;
            let y = self.fetch(5, &inst.src[1], c, false)?;
            if c == 0 {
                self.a.vmulps(zmm(0), zmm(x), zmm(y))?;
            } else {
                let sum = match direct {
                    Some(z) if c + 1 == n => zmm(z).k1(),
                    _ => zmm(0),
                };
                self.a.vmulps(zmm(7), zmm(x), zmm(y))?;
                self.a.vaddps(sum, zmm(0), zmm(7))?;
            }
        }
        if direct.is_some() {
            return Ok(());
        }
        Ok(self.replicate(inst)?)
    }

    pub(super) fn scalar(&mut self, inst: &Inst, op: Op32) -> R {
        let x = self.fetch(4, &inst.src[0], 0, false)?;
        if let Some(z) = self.lone_direct_row(inst)
            && self.op32_single(op, zmm(z).k1(), [x, 5, 6])?
        {
            return Ok(());
        }
        self.op32(op, 0, [x, 5, 6])?;
        Ok(self.replicate(inst)?)
    }

    /// [`Self::direct_row`] of an instruction that writes one channel.
    fn lone_direct_row(&self, inst: &Inst) -> Option<u32> {
        let m = inst.dst[0].mask;
        (m.count_ones() == 1)
            .then(|| self.direct_row(inst, m.trailing_zeros() as usize))
            .flatten()
    }

    /// Stores zmm0 (denormals flushed and saturated when asked) to every
    /// enabled channel.
    pub(super) fn replicate(&mut self, inst: &Inst) -> A {
        if inst.flush {
            self.flush32(0)?;
        }
        if inst.saturate {
            self.saturate32(0)?;
        }
        for c in 0..4 {
            if inst.dst[0].mask & (1 << c) != 0 {
                self.store(inst, c, 0)?;
            }
        }
        Ok(())
    }

    /// The transcendental opcodes: SIN/COS ([`Self::trig`]), EX2, LG2
    /// and POW ([`Self::exp_log`]).
    pub(super) fn row_kernel(&mut self, i: usize, inst: &Inst, k: RowKernel) -> R {
        if matches!(k, RowKernel::Sin | RowKernel::Cos) {
            return self.trig(inst, k);
        }
        self.exp_log(i, inst, k)
    }

    /// SIN/COS inline: `math::trig_near`'s steps, one for one, on 16 lanes
    /// (the same operations in the same order, so the same bits), and the
    /// row kernel through the interpreter's path when an active lane is
    /// beyond that path (|x| ≥ 1024, ±inf, NaN).
    pub(super) fn trig(&mut self, inst: &Inst, k: RowKernel) -> R {
        let x = self.fetch(4, &inst.src[0], 0, false)?;
        use pool::trig as w;
        let phase = i32::from(k == RowKernel::Cos);
        let c = |w: i32| dword_bcst(rbx + pool_off(pool::TRIG + w));
        let (magic, two_over_pi, p1) = (c(w::MAGIC + phase), c(w::TWO_OVER_PI), c(w::P1));
        let (two_d1, two_d2, neg_half, two) =
            (c(w::TWO_D1), c(w::TWO_D2), c(w::NEG_HALF), c(w::TWO));
        let (sin_coef, cos_coef, limit) = (w::SIN_COEF, w::COS_COEF, c(w::LIMIT));
        let [t, q, r1, w2, hi, lo2, z, p, cq, zz, one, xabs] =
            [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13].map(zmm);
        let a = &mut self.a;
        // t = x·(2/π) + magic (the quadrant in its low bits), q = t − magic
        a.vbroadcastss(t, dword_ptr(rbx + pool_off(pool::TRIG + w::MAGIC + phase)))?;
        a.vfmadd231ps(t, zmm(x), two_over_pi)?;
        a.vsubps(q, t, magic)?;
        // r1 = x − q·P1 (exact), w2 = 2·q·D1 (exact), hi = r1 − w2/2
        a.vmovaps(r1, zmm(x))?;
        a.vfnmadd231ps(r1, q, p1)?;
        a.vmulps(w2, q, two_d1)?;
        a.vmovaps(hi, r1)?;
        a.vfmadd231ps(hi, w2, neg_half)?;
        // lo2 = −2·lo by Fast2Sum, then + 2·q·D2
        a.vsubps(lo2, hi, r1)?;
        a.vfmadd132ps(lo2, w2, two)?;
        a.vfmadd231ps(lo2, q, two_d2)?;
        a.vmulps(z, hi, hi)?;
        // sine: hi − (lo2 − hi·z·2p(z))/2, into zmm0
        a.vbroadcastss(p, dword_ptr(rbx + pool_off(pool::TRIG + sin_coef + 2)))?;
        a.vfmadd213ps(p, z, c(sin_coef + 1))?;
        a.vfmadd213ps(p, z, c(sin_coef))?;
        a.vmulps(zmm(0), hi, z)?;
        a.vfnmadd213ps(zmm(0), p, lo2)?;
        a.vfmadd132ps(zmm(0), hi, neg_half)?;
        // cosine: 1 − (hi² − hi·lo2 + z²·(−2c(z)))/2
        a.vbroadcastss(cq, dword_ptr(rbx + pool_off(pool::TRIG + cos_coef + 2)))?;
        a.vfmadd213ps(cq, z, c(cos_coef + 1))?;
        a.vfmadd213ps(cq, z, c(cos_coef))?;
        a.vmulps(zz, z, z)?;
        a.vmulps(zz, zz, cq)?;
        a.vfnmadd231ps(zz, hi, lo2)?;
        a.vfmadd231ps(zz, hi, hi)?;
        a.vbroadcastss(one, dword_ptr(rbx + pool_off(pool::ONE)))?;
        a.vfmadd132ps(zz, one, neg_half)?;
        // odd quadrant: the cosine; quadrant bit 1: negated
        a.vptestmd(k2, t, dword_bcst(rbx + pool_off(pool::INT1)))?;
        a.vmovaps(zmm(0).k2(), zz)?;
        a.vpslld(t, t, 30)?;
        a.vpternlogd(zmm(0), t, dword_bcst(rbx + pool_off(pool::SIGN)), 0x78)?;
        // an active lane beyond the path: the whole row by the row kernel
        a.vpandd(xabs, zmm(x), dword_bcst(rbx + pool_off(pool::ABS)))?;
        a.vcmpps(k3.k1(), xabs, limit, NLT_UQ)?;
        self.row_kernel_where_k3(k, x, None)?;
        Ok(self.replicate(inst)?)
    }
}
