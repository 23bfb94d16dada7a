//! The 64-bit templates: double and 64-bit integer channel pairs as native
//! 64-bit lanes.

use super::*;

impl Emitter<'_> {
    /// Pair `p` of source `s` as 64-bit lanes (lanes 0..8, lanes 8..16):
    /// the loop cache's registers when it holds them (unmodified), else
    /// built in `lo`, `hi`. Returns the registers.
    pub(super) fn fetch_pair(
        &mut self,
        lo: u32,
        hi: u32,
        s: &Src,
        p: usize,
    ) -> Result<(u32, u32), EmitError> {
        let (ty, abs, neg) = match s.modifier {
            Modifier::Apply { ty, abs, neg } => (ty, abs, neg),
            Modifier::None => (OperandType::Untyped, false, false),
        };
        let integer = matches!(ty, OperandType::Int64 | OperandType::Uint64);
        let (x, y) = if let SrcKind::Reg(r) = s.kind
            && let Some(q) = aligned_pair(s, p)
            && let Some(sl) = self.slot(Key::Pair(r, q))
        {
            let (a, b) = sl.halves();
            if !abs && !neg {
                return Ok((a, b));
            }
            if !integer {
                for (src, dst) in [(a, lo), (b, hi)] {
                    let bc = |p: i32| qword_bcst(rbx + pool_off(p));
                    let mut from = src;
                    if abs {
                        self.a.vpandq(zmm(dst), zmm(from), bc(pool::D_ABS))?;
                        from = dst;
                    }
                    if neg {
                        self.a.vpxorq(zmm(dst), zmm(from), bc(pool::D_SIGN))?;
                    }
                }
                return Ok((lo, hi));
            }
            (a, b)
        } else {
            let x = self.fetch(4, s, 2 * p, true)?;
            let y = self.fetch(5, s, 2 * p + 1, true)?;
            let a = &mut self.a;
            a.vmovdqu32(zmm(lo), zmmword_ptr(rbx + off::PERM))?;
            a.vpermi2d(zmm(lo), zmm(x), zmm(y))?;
            a.vmovdqu32(zmm(hi), zmmword_ptr(rbx + off::PERM + 64))?;
            a.vpermi2d(zmm(hi), zmm(x), zmm(y))?;
            if !integer || !(abs || neg) {
                return Ok((lo, hi));
            }
            (lo, hi)
        };
        // a 64-bit integer's wrapping abs and negation on the joined
        // lanes (`ops::modify64`): -v = !v + 1
        let all_ones = qword_bcst(rbx + pool_off(pool::ALL_ONES));
        for (src, dst) in [(x, lo), (y, hi)] {
            let a = &mut self.a;
            let mut from = src;
            if abs {
                a.vpabsq(zmm(dst), zmm(from))?;
                from = dst;
            }
            if neg {
                a.vpternlogq(zmm(dst), zmm(from), zmm(from), 0x55)?;
                a.vpsubq(zmm(dst), zmm(dst), all_ones)?;
            }
        }
        Ok((lo, hi))
    }

    pub(super) fn pair(&mut self, inst: &Inst, op: Op64, n: usize, both: bool) -> R {
        if op.to_words() {
            return self.pair_to_words(inst, op);
        }
        let m = inst.dst[0].mask;
        let pairs = pairs_of(m, both);
        let shift = op.shifts();
        // One pair written to a pair the loop cache holds: the op writes it
        // directly under the exec masks (its sources are all read by then).
        let direct = match inst.dst[0].kind {
            DstKind::Reg(r) if pairs[0] != pairs[1] && !inst.saturate && op != Op64::I64neg => self
                .slot(Key::Pair(r, u8::from(pairs[1])))
                .map(|sl| (sl, self.pair_local(r, usize::from(pairs[1])))),
            _ => None,
        };
        for p in 0..2 {
            if !pairs[p] {
                continue;
            }
            // sources in (8,9), (10,11), (12,13) unless cached; result of
            // pair p in (2p, 2p+1), or in the cached destination
            let srcs = if shift || op.widens() { 1 } else { n };
            let mut regs = [(8, 9), (10, 11), (12, 13)];
            if op.widens() {
                // source channel p as 32-bit lanes: lanes 0..8 in its low
                // half, 8..16 moved to ymm5's (regs[0]: ymm registers)
                let r = self.fetch(6, &inst.src[0], p, false)?;
                self.a.vextracti32x8(ymm(5), zmm(r), 1)?;
                regs[0] = (r, 5);
            }
            for k in (0..srcs).filter(|_| !op.widens()) {
                regs[k] = self.fetch_pair(8 + 2 * k as u32, 9 + 2 * k as u32, &inst.src[k], p)?;
            }
            let count = (shift && op != Op64::Dldexp)
                .then(|| self.immediate_word(&inst.src[1], p))
                .flatten();
            if let Some(n) = count {
                // an immediate count: the shift by its constant (the count is masked to 0..63)
                for h in 0..2 {
                    let (x, o) = (
                        zmm(if h == 0 { regs[0].0 } else { regs[0].1 }),
                        Self::pair_out(direct, p, h),
                    );
                    let n = n & 63;
                    match op {
                        Op64::U64shl => self.a.vpsllq(o, x, n)?,
                        Op64::U64shr => self.a.vpsrlq(o, x, n)?,
                        _ => self.a.vpsraq(o, x, n)?,
                    }
                    if inst.saturate {
                        self.saturate64(2 * p as u32 + h)?;
                    }
                }
            } else if op == Op64::Dldexp {
                // the count (x for the xy pair, z for zw) as doubles, exact
                let n = self.fetch(6, &inst.src[1], op.count_channel(p), false)?;
                let a = &mut self.a;
                a.vextracti32x8(ymm(5), zmm(n), 1)?;
                a.vcvtdq2pd(zmm(10), ymm(n))?;
                a.vcvtdq2pd(zmm(11), ymm(5))?;
                regs[1] = (10, 11);
            } else if shift {
                // the count: src1 channel p (x for the xy pair, y for zw)
                let n = self.fetch(6, &inst.src[1], p, false)?;
                let a = &mut self.a;
                a.vpandd(zmm(6), zmm(n), dword_bcst(rbx + pool_off(pool::MASK63)))?;
                a.vextracti32x8(ymm(5), zmm(6), 1)?;
                a.vpmovzxdq(zmm(10), ymm(6))?;
                a.vpmovzxdq(zmm(11), ymm(5))?;
                regs[1] = (10, 11);
            }
            for h in 0..2usize {
                if count.is_some() {
                    break;
                }
                let pick = |r: (u32, u32)| zmm(if h == 0 { r.0 } else { r.1 });
                let (x, y, z) = (pick(regs[0]), pick(regs[1]), pick(regs[2]));
                // a widening's 8 source lanes
                let w = ymm(if h == 0 { regs[0].0 } else { regs[0].1 });
                let o = Self::pair_out(direct, p, h as u32);
                if op.builds_int64() {
                    self.int64_result(op, o, x, w)?;
                } else {
                    half_op(&mut self.a, op, o, x, y, z, w)?;
                }
                if inst.saturate {
                    self.saturate64(2 * p as u32 + h as u32)?;
                }
            }
        }
        // every source read: store the pairs
        for p in 0..2 {
            if !pairs[p] || direct.is_some() {
                continue;
            }
            let (rlo, rhi) = (2 * p as u32, 2 * p as u32 + 1);
            let cached = match inst.dst[0].kind {
                DstKind::Reg(r) => self.slot(Key::Pair(r, p as u8)),
                _ => None,
            };
            if let Some(sl) = cached {
                let (lo, hi) = sl.halves();
                self.a.vmovdqa64(zmm(lo).k1(), zmm(rlo))?;
                self.a.vmovdqa64(zmm(hi).k4(), zmm(rhi))?;
                continue;
            }
            // back to rows: low words → zmm12, high words → zmm13
            let a = &mut self.a;
            a.vmovdqu32(zmm(12), zmmword_ptr(rbx + off::PERM + 128))?;
            a.vpermi2d(zmm(12), zmm(rlo), zmm(rhi))?;
            a.vmovdqu32(zmm(13), zmmword_ptr(rbx + off::PERM + 192))?;
            a.vpermi2d(zmm(13), zmm(rlo), zmm(rhi))?;
            self.store(inst, 2 * p, 12)?;
            self.store(inst, 2 * p + 1, 13)?;
        }
        Ok(())
    }

    /// A 64-bit op with a 32-bit result per pair (a compare: the two
    /// halves' masks joined into one 16-lane mask as 0 / !0 words; a
    /// narrowing: each half converted to 8 words), into the channels
    /// [`word_channels`] gives, both computed before either is stored (a
    /// source may read the channel the other pair writes).
    fn pair_to_words(&mut self, inst: &Inst, op: Op64) -> R {
        let channels = word_channels(op, inst.dst[0].mask);
        for p in 0..2 {
            if channels[p].is_none() {
                continue;
            }
            let out = 12 + p as u32;
            let x = self.fetch_pair(8, 9, &inst.src[0], p)?;
            if !op.compares() {
                self.narrow(op, x, out)?;
                continue;
            }
            let y = self.fetch_pair(10, 11, &inst.src[1], p)?;
            let a = &mut self.a;
            for (k, (u, v)) in [(k2, (x.0, y.0)), (k3, (x.1, y.1))] {
                match op {
                    Op64::DCmp(pred) => a.vcmppd(k, zmm(u), zmm(v), pred)?,
                    Op64::ICmp64(true, pred) => a.vpcmpq(k, zmm(u), zmm(v), pred)?,
                    Op64::ICmp64(false, pred) => a.vpcmpuq(k, zmm(u), zmm(v), pred)?,
                    _ => return Err("not a 64-bit compare".into()),
                }
            }
            // lanes 0..8 from k2, 8..16 from k3
            a.kunpckbw(k2, k3, k2)?;
            a.vpmovm2d(zmm(out), k2)?;
        }
        for p in 0..2 {
            if let Some(c) = channels[p] {
                self.store(inst, c, 12 + p as u32)?;
            }
        }
        Ok(())
    }

    /// D2F, D2I or D2U of the pair in `x` (lanes 0..8, 8..16) into the
    /// 16 words of `out` (zmm7 scratch): D2F rounds to nearest even and
    /// quiets a NaN keeping its sign and top payload bits (`vcvtpd2ps`, as
    /// `ops::d2f`); D2I and D2U truncate, saturating, NaN to 0 (the
    /// conversions' out-of-range result fixed where it is not that).
    fn narrow(&mut self, op: Op64, x: (u32, u32), out: u32) -> R {
        let bc = |p: i32| qword_bcst(rbx + pool_off(p));
        let (lo, hi) = (zmm(x.0), zmm(x.1));
        let a = &mut self.a;
        // the two halves converted, then joined
        match op {
            Op64::D2f => {
                a.vcvtpd2ps(ymm(out), lo)?;
                a.vcvtpd2ps(ymm(7), hi)?;
            }
            Op64::D2i => {
                a.vcvttpd2dq(ymm(out), lo)?;
                a.vcvttpd2dq(ymm(7), hi)?;
            }
            Op64::D2u => {
                a.vcvttpd2udq(ymm(out), lo)?;
                a.vcvttpd2udq(ymm(7), hi)?;
            }
            // one rounding to nearest even, as `ops::i642f`/`u642f`
            Op64::I642f => {
                a.vcvtqq2ps(ymm(out), lo)?;
                a.vcvtqq2ps(ymm(7), hi)?;
            }
            Op64::U642f => {
                a.vcvtuqq2ps(ymm(out), lo)?;
                a.vcvtuqq2ps(ymm(7), hi)?;
            }
            _ => return Err("not a narrowing".into()),
        }
        a.vinserti32x8(zmm(out), zmm(out), ymm(7), 1)?;
        let o = zmm(out);
        // the lanes where `pred` holds of the halves against `v` (or
        // themselves), as one 16-lane mask in k2
        let lanes = |a: &mut CodeAssembler, pred: i32, v: Option<i32>| -> A {
            match v {
                Some(p) => {
                    a.vcmppd(k2, lo, bc(p), pred)?;
                    a.vcmppd(k3, hi, bc(p), pred)?;
                }
                None => {
                    a.vcmppd(k2, lo, lo, pred)?;
                    a.vcmppd(k3, hi, hi, pred)?;
                }
            }
            a.kunpckbw(k2, k3, k2)
        };
        match op {
            Op64::D2i => {
                // 0x80000000 for NaN and out of range: i32::MAX from 2^31
                // up, 0 for NaN
                lanes(a, GE_OQ, Some(pool::D_TWO_31))?;
                a.vpbroadcastd(o.k2(), dword_ptr(rbx + pool_off(pool::ABS)))?;
                lanes(a, UNORD_Q, None)?;
                a.vpxord(o.k2(), o, o)?;
            }
            Op64::D2u => {
                // 0xFFFFFFFF for NaN and out of range: 0 for NaN and from
                // -1 down
                lanes(a, NGT_UQ, Some(pool::D_MINUS_ONE))?;
                a.vpxord(o.k2(), o, o)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The 64-bit integer results built in zmm6/zmm7 and moved to `o`
    /// (which may carry the exec mask): D2I64, D2U64 of the doubles in `x`,
    /// F2I64, F2U64 of the 8 floats in `w` (truncating, saturating, NaN to 0:
    /// the conversions' out-of-range result fixed where it is not the
    /// machine's), I64SSG of `x` (`(x >> 63) | (-x >>> 63)`).
    fn int64_result(
        &mut self,
        op: Op64,
        o: AsmRegisterZmm,
        x: AsmRegisterZmm,
        w: AsmRegisterYmm,
    ) -> A {
        let a = &mut self.a;
        let (t, u) = (zmm(7), zmm(6));
        if op == Op64::I64ssg {
            a.vpxorq(t, t, t)?;
            a.vpsubq(t, t, x)?;
            a.vpsrlq(t, t, 63)?;
            a.vpsraq(u, x, 63)?;
            a.vporq(t, t, u)?;
            return a.vmovdqa64(o, t);
        }
        // the truncation, then the lanes whose source is NaN or out of
        // range set as the machine saturates: signed, i64::MAX from 2^63
        // up and 0 for NaN; unsigned, 0 for NaN and from -1 down (the
        // conversion already gives all ones past 2^64)
        let from_floats = matches!(op, Op64::F2i64 | Op64::F2u64);
        let signed = matches!(op, Op64::D2i64 | Op64::F2i64);
        match (from_floats, signed) {
            (false, true) => a.vcvttpd2qq(t, x)?,
            (false, false) => a.vcvttpd2uqq(t, x)?,
            (true, true) => a.vcvttps2qq(t, w)?,
            (true, false) => a.vcvttps2uqq(t, w)?,
        }
        // k2: the source lanes where `pred` holds against `bound` (or themselves)
        let lanes = |a: &mut CodeAssembler, pred: i32, bound: Option<(i32, i32)>| -> A {
            match (from_floats, bound) {
                (false, Some((_, d))) => a.vcmppd(k2, x, qword_bcst(rbx + pool_off(d)), pred),
                (false, None) => a.vcmppd(k2, x, x, pred),
                (true, Some((f, _))) => a.vcmpps(k2, w, dword_bcst(rbx + pool_off(f)), pred),
                (true, None) => a.vcmpps(k2, w, w, pred),
            }
        };
        if signed {
            lanes(a, GE_OQ, Some((pool::TWO_63, pool::D_TWO_63)))?;
            a.vpbroadcastq(t.k2(), qword_ptr(rbx + pool_off(pool::D_ABS)))?;
            lanes(a, UNORD_Q, None)?;
        } else {
            lanes(a, NGT_UQ, Some((pool::MINUS_ONE, pool::D_MINUS_ONE)))?;
        }
        a.vpxorq(t.k2(), t, t)?;
        a.vmovdqa64(o, t)
    }

    /// Where half `h` of pair `p`'s result goes: the cached destination
    /// pair when [`Emitter::pair`] writes it directly, under the exec masks
    /// (k1 for lanes 0..8, k4 for 8..16) unless the pair is segment-local
    /// (then every lane: see [`segment_local`]), else scratch `2p + h`.
    pub(super) fn pair_out(direct: Option<(Slot, bool)>, p: usize, h: u32) -> AsmRegisterZmm {
        match direct.map(|(sl, local)| (sl.halves(), local)) {
            Some(((lo, _), true)) if h == 0 => zmm(lo),
            Some(((_, hi), true)) => zmm(hi),
            Some(((lo, _), false)) if h == 0 => zmm(lo).k1(),
            Some(((_, hi), false)) => zmm(hi).k4(),
            None => zmm(2 * p as u32 + h),
        }
    }

    /// Whether both channels of pair `q` of register `r` are segment-local.
    pub(super) fn pair_local(&self, r: u32, q: usize) -> bool {
        let temp = self.code.temp;
        (r >= temp.base && r < temp.base + temp.len)
            && self.local[(r - temp.base) as usize][2 * q..2 * q + 2]
                .iter()
                .all(|&l| l)
    }
}

/// DMIN / DMAX of `x` and `y` into `o` (which may carry the exec mask):
/// `vminpd`/`vmaxpd` give `y` when either is NaN or both are equal, so `x`
/// where only `y` is NaN, and `x | y` (min) or `x & y` (max) where equal
/// (the same bits, or zeros whose sign the rule picks). `o` is written
/// only through masks that are subsets of its own, so a masked `o` keeps
/// its other lanes.
fn double_min_max(
    a: &mut CodeAssembler,
    min: bool,
    o: AsmRegisterZmm,
    x: AsmRegisterZmm,
    y: AsmRegisterZmm,
) -> A {
    // the result in zmm7 first: `o` may be masked, and the fix-ups below
    // use k2 of their own
    let t = zmm(7);
    if min {
        a.vminpd(t, x, y)?;
    } else {
        a.vmaxpd(t, x, y)?;
    }
    a.vcmppd(k2, x, x, ORD_Q)?;
    a.vcmppd(k2.k2(), y, y, UNORD_Q)?;
    a.vmovdqa64(t.k2(), x)?;
    a.vcmppd(k2, x, y, EQ_OQ)?;
    if min {
        a.vporq(t.k2(), x, y)?;
    } else {
        a.vpandq(t.k2(), x, y)?;
    }
    a.vmovdqa64(o, t)
}

/// One half of U64DIV, I64DIV, U64MOD, I64MOD (`ops::u64div` ...): a
/// scalar `div`/`idiv` per lane through the context's scratch rows, by 1
/// where the divisor is 0 (then the machine's result: 0 for I64DIV, all
/// ones for the others) and where I64 `MIN / -1` would trap (by 1 its
/// quotient MIN and remainder 0 are the wrapping results); built in zmm7
/// (zmm6 scratch), as `o` may be `x`.
fn divide64(
    a: &mut CodeAssembler,
    signed: bool,
    rem: bool,
    o: AsmRegisterZmm,
    x: AsmRegisterZmm,
    y: AsmRegisterZmm,
) -> A {
    let bc = |p: i32| qword_bcst(rbx + pool_off(p));
    let row = |k: i32, j: i32| rbx + off::SCRATCH + 64 * k + 8 * j;
    let (d, one) = (zmm(7), zmm(6));
    a.vpternlogq(one, one, one, 0xFF)?;
    a.vpsrlq(one, one, 63)?;
    a.vmovdqa64(d, y)?;
    a.vptestnmq(k2, y, y)?;
    a.vmovdqa64(d.k2(), one)?;
    if signed {
        a.vpcmpeqq(k3, y, bc(pool::ALL_ONES))?;
        a.vpcmpeqq(k3.k3(), x, bc(pool::D_SIGN))?;
        a.vmovdqa64(d.k3(), one)?;
    }
    a.vmovdqu64(zmmword_ptr(row(0, 0)), x)?;
    a.vmovdqu64(zmmword_ptr(row(1, 0)), d)?;
    for j in 0..8 {
        a.mov(rax, qword_ptr(row(0, j)))?;
        if signed {
            a.cqo()?;
            a.idiv(qword_ptr(row(1, j)))?;
        } else {
            a.xor(edx, edx)?;
            a.div(qword_ptr(row(1, j)))?;
        }
        a.mov(qword_ptr(row(2, j)), if rem { rdx } else { rax })?;
    }
    a.vmovdqu64(d, zmmword_ptr(row(2, 0)))?;
    if signed && !rem {
        a.vpxorq(d.k2(), d, d)?;
    } else {
        a.vpternlogq(d.k2(), d, d, 0xFF)?;
    }
    a.vmovdqa64(o, d)
}

/// One half (8 lanes) of a 64-bit template: `o = op(x, y, z)` (`w`: a
/// widening's 8 source words); the ops with a word per pair and those
/// with a 64-bit integer result built apart ([`Emitter::int64_result`])
/// emit nothing here.
fn half_op(
    a: &mut CodeAssembler,
    op: Op64,
    o: AsmRegisterZmm,
    x: AsmRegisterZmm,
    y: AsmRegisterZmm,
    z: AsmRegisterZmm,
    w: AsmRegisterYmm,
) -> A {
    let bc = |p: i32| qword_bcst(rbx + pool_off(p));
    match op {
        Op64::Dadd => a.vaddpd(o, x, y),
        Op64::Dmul => a.vmulpd(o, x, y),
        Op64::Ddiv => a.vdivpd(o, x, y),
        Op64::Dmad => a.vmulpd(zmm(7), x, y).and_then(|_| a.vaddpd(o, zmm(7), z)),
        Op64::Dabs => a.vpandq(o, x, bc(pool::D_ABS)),
        Op64::Dneg => a.vpxorq(o, x, bc(pool::D_SIGN)),
        Op64::U64add => a.vpaddq(o, x, y),
        Op64::U64mul => a.vpmullq(o, x, y),
        Op64::I64neg => a.vpxorq(o, o, o).and_then(|_| a.vpsubq(o, o, x)),
        Op64::U64shl => a.vpsllvq(o, x, y),
        // x · 2^y, rounded once; a NaN comes back quiet with its payload,
        // as `ops::dldexp`
        Op64::Dldexp => a.vscalefpd(o, x, y),
        Op64::U64shr => a.vpsrlvq(o, x, y),
        Op64::I64shr => a.vpsravq(o, x, y),
        Op64::I2d => a.vcvtdq2pd(o, w),
        Op64::U2d => a.vcvtudq2pd(o, w),
        // quiets a NaN keeping its sign and payload (shifted up), as ops::f2d
        Op64::F2d => a.vcvtps2pd(o, w),
        Op64::I2i64 => a.vpmovsxdq(o, w),
        Op64::U2i64 => a.vpmovzxdq(o, w),
        Op64::I642d => a.vcvtqq2pd(o, x),
        Op64::U642d => a.vcvtuqq2pd(o, x),
        Op64::Drcp => a
            .vbroadcastsd(zmm(7), qword_ptr(rbx + pool_off(pool::D_ONE)))
            .and_then(|_| a.vdivpd(o, zmm(7), x)),
        Op64::Dsqrt => a.vsqrtpd(o, x),
        Op64::Drsq => a
            .vsqrtpd(zmm(7), x)
            .and_then(|_| a.vbroadcastsd(zmm(6), qword_ptr(rbx + pool_off(pool::D_ONE))))
            .and_then(|_| a.vdivpd(o, zmm(6), zmm(7))),
        // floor's NaN is quieted, and x - NaN keeps x's (quieted) bits
        Op64::Dfrac => a
            .vrndscalepd(zmm(7), x, 1)
            .and_then(|_| a.vsubpd(o, x, zmm(7))),
        Op64::I64abs => a.vpabsq(o, x),
        Op64::I64min => a.vpminsq(o, x, y),
        Op64::I64max => a.vpmaxsq(o, x, y),
        Op64::U64min => a.vpminuq(o, x, y),
        Op64::U64max => a.vpmaxuq(o, x, y),
        Op64::Dmin | Op64::Dmax => double_min_max(a, op == Op64::Dmin, o, x, y),
        Op64::Div64(signed, rem) => divide64(a, signed, rem, o, x, y),
        Op64::Dround(mode) => {
            // NaN keeps its bits (the interpreter's rounding
            // does not quiet it); built in zmm7, as `o` may be `x`
            a.vrndscalepd(zmm(7), x, mode)?;
            a.vcmppd(k2, x, x, UNORD_Q)?;
            a.vmovdqa64(zmm(7).k2(), x)?;
            a.vmovdqa64(o, zmm(7))
        }
        Op64::Mov64 => a.vmovdqa64(o, x),
        // ops with words per pair return early (pair_to_words),
        // the 64-bit integer results are built above
        Op64::DCmp(_)
        | Op64::ICmp64(..)
        | Op64::D2f
        | Op64::D2i
        | Op64::D2u
        | Op64::I642f
        | Op64::U642f
        | Op64::D2i64
        | Op64::D2u64
        | Op64::F2i64
        | Op64::F2u64
        | Op64::I64ssg => Ok(()),
        Op64::Not64 => a.vpternlogq(o, x, x, 0x55),
        Op64::And64 => a.vpandq(o, x, y),
        Op64::Or64 => a.vporq(o, x, y),
        Op64::Xor64 => a.vpxorq(o, x, y),
    }
}
