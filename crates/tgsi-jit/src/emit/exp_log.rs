//! EX2, LG2 and POW inline: the short forms of the interpreter's kernels
//! (`math::ex2_plain`, `log2_normal`, `pow_plain`) step for step, from
//! the same constants (`native::exp_log_pool`), so the same bits; a row
//! with an active lane outside the short form (`ex2_is_plain`,
//! `lg2_is_plain`, `pow_is_plain` false) runs the whole row kernel, as the
//! interpreter's row does.

use super::*;
use pool::exp_log as w;

/// A 32-bit word of the exp/log constants, broadcast.
fn c32(word: i32) -> AsmMemoryOperand {
    dword_bcst(rbx + pool_off(pool::EXP_LOG + word))
}

/// A 64-bit word of the exp/log constants, broadcast.
fn c64(word: i32) -> AsmMemoryOperand {
    qword_bcst(rbx + pool_off(pool::EXP_LOG + word))
}

impl Emitter<'_> {
    /// EX2, LG2 or POW of channel x of the sources into zmm0, then stored
    /// to every enabled channel.
    pub(super) fn exp_log(&mut self, i: usize, inst: &Inst, k: RowKernel) -> R {
        let next = self.labels[i + 1];
        self.a.kortestw(k1, k1)?;
        self.a.jz(next)?;
        let x = self.fetch(4, &inst.src[0], 0, false)?;
        let y = if k == RowKernel::Pow {
            Some(self.fetch(5, &inst.src[1], 0, false)?)
        } else {
            None
        };
        match (k, y) {
            (RowKernel::Ex2, _) => self.ex2_plain(x, 0)?,
            (RowKernel::Lg2, _) => self.lg2_plain(x, 0)?,
            (RowKernel::Pow, Some(y)) => {
                let uniform_y = self.is_uniform(&inst.src[1]);
                self.pow_plain(x, y, uniform_y)?
            }
            _ => return Err("no inline form of this row kernel".into()),
        }
        self.row_kernel_where_k3(k, x, y)?;
        Ok(self.replicate(inst)?)
    }

    /// `math::ex2_plain` of zmm `x` into zmm `o` (zmm6-13 scratch), and
    /// k3 = the active lanes outside its range.
    pub(super) fn ex2_plain(&mut self, x: u32, o: u32) -> A {
        let [t, k, f, hi, one, lo, p, ff] = [6, 7, 8, 9, 10, 11, 12, 13].map(zmm);
        let (x, o) = (zmm(x), zmm(o));
        let a = &mut self.a;
        // t = x + magic, k = round(x), f = x − k (exact)
        a.vaddps(t, x, c32(w::MAGIC))?;
        a.vsubps(k, t, c32(w::MAGIC))?;
        a.vsubps(f, x, k)?;
        // hi = f·ln2_hi + 1, lo = f·ln2_lo + (f·ln2_hi + (1 − hi))
        a.vbroadcastss(one, dword_ptr(rbx + pool_off(pool::ONE)))?;
        a.vmovaps(hi, one)?;
        a.vfmadd231ps(hi, f, c32(w::LN2_HI))?;
        a.vsubps(lo, one, hi)?;
        a.vfmadd231ps(lo, f, c32(w::LN2_HI))?;
        a.vfmadd231ps(lo, f, c32(w::LN2_LO))?;
        // p(f) by Horner from the highest coefficient
        a.vbroadcastss(
            p,
            dword_ptr(rbx + pool_off(pool::EXP_LOG + w::EX2_COEF + 4)),
        )?;
        for j in (0..4).rev() {
            a.vfmadd213ps(p, f, c32(w::EX2_COEF + j))?;
        }
        // hi + (f²·p + lo), then 2^k added to the exponent field
        a.vmulps(ff, f, f)?;
        a.vfmadd213ps(ff, p, lo)?;
        a.vaddps(o, hi, ff)?;
        a.vpsubd(t, t, c32(w::MAGIC))?;
        a.vpslld(t, t, 23)?;
        a.vpaddd(o, o, t)?;
        // outside the short form: not (low < x < high), NaN included
        a.vcmpps(k2.k1(), x, c32(w::EX2_LOW), GT_OQ)?;
        a.vcmpps(k2.k2(), x, c32(w::EX2_HIGH), LT_OQ)?;
        a.kandnw(k3, k2, k1)
    }

    /// `math::log2_normal` (bias 0) of zmm `x` into zmm `o` (zmm6-13, 15
    /// and 31 scratch), and k3 = the active lanes that are not positive,
    /// normal and finite.
    pub(super) fn lg2_plain(&mut self, x: u32, o: u32) -> A {
        let [e, m, ef, one, f, d, d_lo, s, r, h] = [6, 7, 8, 9, 10, 11, 12, 13, 15, 31].map(zmm);
        let (x, o) = (zmm(x), zmm(o));
        let a = &mut self.a;
        // e = (bits − √½'s bits) >> 23 (arithmetic), m = bits − e·2^23
        a.vpsubd(e, x, c32(w::SQRT_HALF))?;
        a.vpsrad(e, e, 23)?;
        a.vpslld(m, e, 23)?;
        a.vpsubd(m, x, m)?;
        a.vcvtdq2ps(ef, e)?;
        // f = m − 1, d = m + 1, d_lo = m − (d − 1), s = f / d
        a.vbroadcastss(one, dword_ptr(rbx + pool_off(pool::ONE)))?;
        a.vsubps(f, m, one)?;
        a.vaddps(d, m, one)?;
        a.vsubps(d_lo, d, one)?;
        a.vsubps(d_lo, m, d_lo)?;
        a.vdivps(s, f, d)?;
        // rem = −s·d_lo + (−s·d + f); s_lo = rem·(−s/2 + 1/2), in r
        a.vmovaps(r, f)?;
        a.vfnmadd231ps(r, s, d)?;
        a.vfnmadd231ps(r, s, d_lo)?;
        a.vbroadcastss(h, dword_ptr(rbx + pool_off(pool::EXP_LOG + w::HALF)))?;
        a.vfmadd231ps(h, s, c32(w::NEG_HALF))?;
        a.vmulps(r, r, h)?;
        // z = s², q = (c2·z + c1)·z + c0
        let (z, q, p, pl, low, lo) = (h, d_lo, d, f, m, e);
        a.vmulps(z, s, s)?;
        a.vbroadcastss(
            q,
            dword_ptr(rbx + pool_off(pool::EXP_LOG + w::LG2_COEF + 2)),
        )?;
        a.vfmadd213ps(q, z, c32(w::LG2_COEF + 1))?;
        a.vfmadd213ps(q, z, c32(w::LG2_COEF))?;
        // p = hi·s, p_lo = (hi·s − p) then lo·s + (hi·s_lo + p_lo)
        a.vmulps(p, s, c32(w::TWO_OVER_LN2_HI))?;
        a.vmovaps(pl, p)?;
        a.vfmsub231ps(pl, s, c32(w::TWO_OVER_LN2_HI))?;
        a.vfmadd231ps(pl, r, c32(w::TWO_OVER_LN2_HI))?;
        a.vfmadd231ps(pl, s, c32(w::TWO_OVER_LN2_LO))?;
        // low = s·z·q + p_lo; hi = e + p, lo = (e − hi) + p; hi + (lo + low)
        a.vmulps(low, s, z)?;
        a.vfmadd213ps(low, q, pl)?;
        a.vaddps(o, ef, p)?;
        a.vsubps(lo, ef, o)?;
        a.vaddps(lo, lo, p)?;
        a.vaddps(lo, lo, low)?;
        a.vaddps(o, o, lo)?;
        // outside the short form: bits at or above +inf's (negative, NaN,
        // inf) or no exponent (zero, subnormal)
        a.vpcmpud(k2.k1(), x, dword_bcst(rbx + pool_off(pool::EXP)), P_LT)?;
        a.vptestmd(k2.k2(), x, dword_bcst(rbx + pool_off(pool::EXP)))?;
        a.kandnw(k3, k2, k1)
    }

    /// `math::pow_plain` of zmm `x` and `y` into zmm0 (zmm1-3, 6-15 and
    /// 31 scratch, k5 and k6 too), and k3 = the active lanes outside it.
    /// A row whose active exponents are all `math::pow_squares` squares,
    /// one where none is takes the logarithm; a row of both kinds is left
    /// to the row kernel (k3 = every active lane). `uniform_y`: y is the
    /// same in every lane (a constant or an immediate), converted to
    /// doubles once, its bits tested by branches when it squares.
    pub(super) fn pow_plain(&mut self, x: u32, y: u32, uniform_y: bool) -> A {
        let (mut squaring, mut logarithm) = (self.a.create_label(), self.a.create_label());
        let (mut join, mut done) = (self.a.create_label(), self.a.create_label());
        let (ay, whole) = (zmm(2), zmm(3));
        let a = &mut self.a;
        // k5 = the lanes whose |y| is a whole number up to the limit
        a.vpandd(ay, zmm(y), dword_bcst(rbx + pool_off(pool::ABS)))?;
        a.vrndscaleps(whole, ay, 0x0b)?;
        a.vcmpps(k5, whole, ay, EQ_OQ)?;
        a.vcmpps(k5.k5(), ay, c32(w::SQUARING_MAX), LE_OQ)?;
        a.kandnw(k6, k5, k1)?;
        a.kortestw(k6, k6)?;
        a.jz(squaring)?;
        a.kandw(k6, k5, k1)?;
        a.kortestw(k6, k6)?;
        a.jz(logarithm)?;
        a.kmovw(k3, k1)?;
        a.jmp(done)?;
        a.set_label(&mut logarithm)?;
        for half in 0..2 {
            self.pow_plain_half(x, y, half, uniform_y)?;
        }
        self.a.jmp(join)?;
        self.a.set_label(&mut squaring)?;
        self.a.vcvttps2dq(zmm(14), ay)?;
        if uniform_y {
            self.a.vmovd(eax, xmm(14))?;
        }
        for half in 0..2 {
            if uniform_y {
                self.pow_squaring_uniform_half(x, y, half)?;
            } else {
                self.pow_squaring_half(x, y, half)?;
            }
        }
        self.a.set_label(&mut join)?;
        self.a.vinsertf32x8(zmm(0), zmm(0), ymm(1), 1)?;
        self.pow_lanes_off_path(x, y)?;
        self.a.set_label(&mut done)?;
        self.a.zero_bytes()
    }

    /// Lanes `8·half..` of the f32 zmm `v` as doubles into zmm `into`
    /// (ymm3 scratch).
    fn half_to_doubles(&mut self, v: u32, half: u32, into: u32) -> A {
        if half == 0 {
            return self.a.vcvtps2pd(zmm(into), ymm(v));
        }
        self.a.vextractf32x8(ymm(3), zmm(v), 1)?;
        self.a.vcvtps2pd(zmm(into), ymm(3))
    }

    /// [`Self::pow_squaring_half`] for an exponent the same in every lane,
    /// |y| in eax: the bits tested by branches, so that only the
    /// products and squarings y needs are made (the same values: a skipped
    /// product is by 1, a skipped squaring is never used).
    fn pow_squaring_uniform_half(&mut self, x: u32, y: u32, half: u32) -> A {
        let [power, product, one] = [6, 7, 9].map(zmm);
        let d_one = || qword_ptr(rbx + pool_off(pool::D_ONE));
        let mut end = self.a.create_label();
        self.half_to_doubles(x, half, 6)?;
        let a = &mut self.a;
        a.vbroadcastsd(product, d_one())?;
        for bit in 0..7 {
            if bit > 0 {
                // no bit left from here on
                a.cmp(eax, 1 << bit)?;
                a.jb(end)?;
                a.vmulpd(power, power, power)?;
            }
            let mut clear = a.create_label();
            a.test(eax, 1 << bit)?;
            a.jz(clear)?;
            a.vmulpd(product, product, power)?;
            a.set_label(&mut clear)?;
            a.zero_bytes()?;
        }
        a.set_label(&mut end)?;
        a.zero_bytes()?;
        // y < 0: the reciprocal
        let mut positive = a.create_label();
        a.vcmpps(k6, zmm(y), dword_bcst(rbx + pool_off(pool::ZERO)), LT_OQ)?;
        a.kortestw(k6, k6)?;
        a.jz(positive)?;
        a.vbroadcastsd(one, d_one())?;
        a.vdivpd(product, one, product)?;
        a.set_label(&mut positive)?;
        a.vcvtpd2ps(ymm(half), product)
    }

    /// `math::pow_by_squaring` of lanes `8·half..` of zmm `x` and `y`
    /// into ymm `half` (0: ymm0, 1: ymm1), |y| as integers in zmm14: the
    /// same products in the same order (the lanes whose bit is clear
    /// keep theirs under a mask), and the reciprocal for y < 0.
    fn pow_squaring_half(&mut self, x: u32, y: u32, half: u32) -> A {
        let [power, product, bits, one] = [6, 7, 8, 9].map(zmm);
        let d_one = || qword_ptr(rbx + pool_off(pool::D_ONE));
        self.half_to_doubles(x, half, 6)?;
        let a = &mut self.a;
        a.vbroadcastsd(product, d_one())?;
        a.vmovdqa32(bits, zmm(14))?;
        for bit in 0..7 {
            if bit > 0 {
                a.vmulpd(power, power, power)?;
                a.vpsrld(bits, bits, 1)?;
            }
            a.vptestmd(k6, bits, dword_bcst(rbx + pool_off(pool::INT1)))?;
            if half == 1 {
                a.kshiftrw(k6, k6, 8)?;
            }
            a.vmulpd(product.k6(), product, power)?;
        }
        a.vcmpps(k6, zmm(y), dword_bcst(rbx + pool_off(pool::ZERO)), LT_OQ)?;
        if half == 1 {
            a.kshiftrw(k6, k6, 8)?;
        }
        a.vbroadcastsd(one, d_one())?;
        a.vdivpd(product.k6(), one, product)?;
        a.vcvtpd2ps(ymm(half), product)
    }

    /// `math::pow_plain` of lanes `8·half..` of zmm `x` and `y` into ymm
    /// `half` (0: ymm0, 1: ymm1), in doubles. Where the steps differ from
    /// the kernel's, they give the same values: the exponent by an
    /// arithmetic shift and `vcvtqq2pd` (exact for these small integers),
    /// round(t) by `vrndscalepd` to nearest even (the magic sum's value
    /// for |t| ≤ 1000), and p·2^k by `vscalefpd` (exact: the product is a
    /// normal double for |k| ≤ 1000).
    fn pow_plain_half(&mut self, x: u32, y: u32, half: u32, uniform_y: bool) -> A {
        let [xd, e, m, ef, f, d, z, q, wv, yd, r, p] =
            [2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 15, 31].map(zmm);
        self.half_to_doubles(x, half, 2)?;
        if half == 0 || !uniform_y {
            self.half_to_doubles(y, half, 13)?;
        }
        let a = &mut self.a;
        // log2: e = (bits − √½'s bits) >> 52 (arithmetic), m = bits − e·2^52
        a.vpsubq(e, xd, c64(w::D_SQRT_HALF))?;
        a.vpsraq(e, e, 52)?;
        a.vpsllq(m, e, 52)?;
        a.vpsubq(m, xd, m)?;
        a.vcvtqq2pd(ef, e)?;
        // s = (m − 1)/(m + 1), z = s², q(z) by Horner
        let one = qword_bcst(rbx + pool_off(pool::D_ONE));
        a.vsubpd(f, m, one)?;
        a.vaddpd(d, m, one)?;
        a.vdivpd(f, f, d)?;
        let s = f;
        a.vmulpd(z, s, s)?;
        a.vbroadcastsd(
            q,
            qword_ptr(rbx + pool_off(pool::EXP_LOG + w::D_LOG2_COEF + 6)),
        )?;
        for j in (0..3).rev() {
            a.vfmadd213pd(q, z, c64(w::D_LOG2_COEF + 2 * j))?;
        }
        // lg = e + ((2/ln 2)·s + s·z·q); −∞ for a zero base
        a.vmulpd(wv, s, z)?;
        a.vmulpd(wv, wv, q)?;
        a.vfmadd231pd(wv, s, c64(w::D_TWO_OVER_LN2))?;
        a.vaddpd(wv, ef, wv)?;
        a.vcmppd(k2, xd, qword_bcst(rbx + pool_off(pool::D_ZERO)), EQ_OQ)?;
        a.vbroadcastsd(
            wv.k2(),
            qword_ptr(rbx + pool_off(pool::EXP_LOG + w::D_NEG_INF)),
        )?;
        // t = y·lg clamped; k = round(t) (to nearest even), r = t − k
        let (t, k) = (wv, e);
        a.vmulpd(t, yd, wv)?;
        a.vmaxpd(t, t, c64(w::D_LOW))?;
        a.vminpd(t, t, c64(w::D_HIGH))?;
        a.vrndscalepd(k, t, 8)?;
        a.vsubpd(r, t, k)?;
        // 1 + r·p(r), times 2^k
        a.vbroadcastsd(
            p,
            qword_ptr(rbx + pool_off(pool::EXP_LOG + w::D_EXP2_COEF + 10)),
        )?;
        for j in (0..5).rev() {
            a.vfmadd213pd(p, r, c64(w::D_EXP2_COEF + 2 * j))?;
        }
        a.vfmadd213pd(p, r, one)?;
        a.vscalefpd(p, p, k)?;
        a.vcvtpd2ps(ymm(half), p)
    }

    /// k3 = the active lanes outside POW's short form: x not +0 or
    /// positive and finite, y not finite, or both zero.
    fn pow_lanes_off_path(&mut self, x: u32, y: u32) -> A {
        let (x, ya) = (zmm(x), zmm(2));
        let exp = || dword_bcst(rbx + pool_off(pool::EXP));
        let a = &mut self.a;
        a.vpcmpud(k2.k1(), x, exp(), P_LT)?;
        a.vpandd(ya, zmm(y), dword_bcst(rbx + pool_off(pool::ABS)))?;
        a.vpcmpud(k2.k2(), ya, exp(), P_LT)?;
        a.vptestnmd(k3.k2(), x, x)?;
        a.vptestnmd(k3.k3(), ya, ya)?;
        a.kandnw(k2, k3, k2)?;
        a.kandnw(k3, k2, k1)
    }

    /// When k3 has a lane: the whole row by the interpreter's row kernel
    /// `k` (x in zmm `x`, POW's y in zmm `y`) into zmm0.
    pub(super) fn row_kernel_where_k3(&mut self, k: RowKernel, x: u32, y: Option<u32>) -> A {
        let mut done = self.a.create_label();
        self.a.kortestw(k3, k3)?;
        self.a.jz(done)?;
        self.a.vmovdqu32(zmmword_ptr(rbx + off::SCRATCH), zmm(x))?;
        if let Some(y) = y {
            self.a
                .vmovdqu32(zmmword_ptr(rbx + off::SCRATCH + 64), zmm(y))?;
        }
        self.cache_store(false)?;
        self.call(row_callback as *const () as usize as u64, k as u64)?;
        self.cache_load(false)?;
        self.a
            .vmovdqu32(zmm(0), zmmword_ptr(rbx + off::SCRATCH + 128))?;
        self.a.set_label(&mut done)?;
        self.a.zero_bytes()
    }
}
