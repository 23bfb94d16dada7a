//! TEX and SAMPLE inline: a fragment instruction the interpreter runs by
//! its planned batch path (`texture::exec::run_planned`: one source, a
//! direct view and sampler, no offset) samples one level of an RGBA8 view
//! bilinearly with the steps of the texture engine's AVX-512 kernel
//! (`math::simd`'s bilinear kernel), so the same bits. What the level is
//! comes from this run's bindings through the instruction's entry in
//! [`Ctx::tex`](super::super::native::Ctx) (`tgsi_exec::inline_bilinear`);
//! without an entry, or for a batch with an active quad that is not
//! magnified (when the view has more than one level to read), the
//! instruction runs by the interpreter's handler.

use super::*;
use crate::native::off::tex as t;

impl Emitter<'_> {
    /// Instruction `i` of plan [`Plan::Tex`] with entry `slot`: the result
    /// in zmm0-3 (r, g, b, a), stored through the writemask.
    pub(super) fn tex(&mut self, i: usize, inst: &Inst, slot: u8) -> R {
        let e = off::TEX + slot as i32 * off::TEX_SIZE;
        let mut handler = self.a.create_label();
        let mut kernel = self.a.create_label();
        let mut done = self.a.create_label();
        self.a.cmp(qword_ptr(rbx + e + t::TEXELS), 0)?;
        self.a.je(handler)?;
        let s = self.fetch(4, &inst.src[0], 0, false)?;
        let tc = self.fetch(5, &inst.src[0], 1, false)?;
        self.a.cmp(dword_ptr(rbx + e + t::SINGLE_LEVEL), 0)?;
        self.a.jne(kernel)?;
        self.magnified(s, tc, e, handler)?;
        self.a.set_label(&mut kernel)?;
        self.bilinear(s, tc, e)?;
        self.a.kxorw(k3, k3, k3)?;
        self.a.jmp(done)?;
        self.a.set_label(&mut handler)?;
        self.a.kxnorw(k3, k3, k3)?;
        self.a.set_label(&mut done)?;
        self.handler_where_k3(i)?;
        Ok(self.finish32(inst, |c| c as u32)?)
    }

    /// Jumps to `handler` unless every quad with an active lane is
    /// magnified (`Bound::magnified_quads`): per lane, d = (c − c at the
    /// quad's top-left lane) · scale on s and t, and d_s² + d_t² ≤ 1 at the
    /// top-right and bottom-left lanes (the sum `0 + a + b` of the rule is
    /// `a + b`: a square is +0, positive or NaN).
    fn magnified(&mut self, s: u32, tc: u32, e: i32, handler: CodeLabel) -> A {
        let a = &mut self.a;
        a.vmovdqu32(zmm(6), zmmword_ptr(rbx + pool_off(pool::LANE_NUMBERS)))?;
        a.vpbroadcastd(zmm(7), dword_ptr(rbx + pool_off(pool::MASK3)))?;
        a.vpandnd(zmm(6), zmm(7), zmm(6))?;
        for (c, d, scale) in [(s, 7, t::SCALE), (tc, 8, t::SCALE + 4)] {
            a.vpermd(zmm(d), zmm(6), zmm(c))?;
            a.vsubps(zmm(d), zmm(c), zmm(d))?;
            a.vmulps(zmm(d), zmm(d), dword_bcst(rbx + e + scale))?;
            a.vmulps(zmm(d), zmm(d), zmm(d))?;
        }
        a.vaddps(zmm(7), zmm(7), zmm(8))?;
        a.vcmpps(k2, zmm(7), dword_bcst(rbx + e + t::ONE), LE_OQ)?;
        // the top-right and bottom-left lanes of the quads with an active lane
        a.kmovw(eax, k2)?;
        a.kmovw(ecx, k1)?;
        a.mov(edx, ecx)?;
        a.shr(edx, 1)?;
        a.or(ecx, edx)?;
        a.mov(edx, ecx)?;
        a.shr(edx, 2)?;
        a.or(ecx, edx)?;
        a.and(ecx, 0x1111)?;
        a.imul_3(ecx, ecx, 6)?;
        a.and(eax, ecx)?;
        a.cmp(eax, ecx)?;
        a.jne(handler)
    }

    /// One axis of the kernel from coordinate zmm `c`: the wrapped texel
    /// indices into zmm `i0`, `i1` and the second one's weight into `w`
    /// (zmm12, zmm13 scratch); `axis` 0 (s) or 1 (t).
    fn tex_axis(&mut self, c: u32, axis: i32, e: i32, [i0, i1, w]: [u32; 3]) -> A {
        let f = |field: i32| dword_bcst(rbx + e + field + 4 * axis);
        let g = |field: i32| dword_bcst(rbx + e + field);
        let (u, fl) = (zmm(12), zmm(13));
        let a = &mut self.a;
        // NaN to +0, clamped to ±2^24; times the scale; plus the offset (0)
        // and the same again
        a.vcmpps(k2, zmm(c), zmm(c), ORD_Q)?;
        a.vmovaps(u.k2().z(), zmm(c))?;
        for pass in 0..2 {
            if pass == 1 {
                a.vcmpps(k2, u, u, ORD_Q)?;
                a.vmovaps(u.k2().z(), u)?;
            }
            a.vmaxps(u, u, g(t::LIMIT + 4))?;
            a.vminps(u, u, g(t::LIMIT))?;
            if pass == 0 {
                a.vmulps(u, u, f(t::SCALE))?;
                a.vaddps(u, u, dword_bcst(rbx + pool_off(pool::ZERO)))?;
            }
        }
        // x = u − 0.5, its floor, the weight x − floor and the two indices
        a.vsubps(u, u, g(t::HALF))?;
        a.vrndscaleps(fl, u, 9)?;
        a.vsubps(zmm(w), u, fl)?;
        a.vcvttps2dq(zmm(i0), fl)?;
        a.vpaddd(zmm(i1), zmm(i0), dword_bcst(rbx + pool_off(pool::INT1)))?;
        for i in [i0, i1] {
            a.vpandd(zmm(i), zmm(i), f(t::WRAP_AND))?;
            a.vpmaxsd(zmm(i), zmm(i), dword_bcst(rbx + pool_off(pool::ZERO)))?;
            a.vpminsd(zmm(i), zmm(i), f(t::LAST))?;
        }
        Ok(())
    }

    /// The bilinear kernel of the level in entry `e` at coordinates zmm `s`
    /// and `tc`: r, g, b, a into zmm0-3 (zmm4-15, k2, k5, k6, rax, rdx
    /// scratch).
    fn bilinear(&mut self, s: u32, tc: u32, e: i32) -> A {
        self.tex_axis(s, 0, e, [6, 7, 8])?;
        self.tex_axis(tc, 1, e, [9, 10, 11])?;
        let g = |field: i32| dword_bcst(rbx + e + field);
        let a = &mut self.a;
        // the taps' texel indices (00, 10, 01, 11), clamped to the last texel
        for row in [9, 10] {
            a.vpaddd(zmm(row), zmm(row), g(t::SLICE_ROWS))?;
            a.vpmulld(zmm(row), zmm(row), g(t::WIDTH))?;
        }
        for (k, (row, x)) in [(9, 6), (9, 7), (10, 6), (10, 7)].into_iter().enumerate() {
            let idx = zmm(12 + k as u32);
            a.vpaddd(idx, zmm(row), zmm(x))?;
            a.vpminud(idx, idx, g(t::TOP))?;
        }
        // the taps' words into zmm4-7
        a.mov(rax, qword_ptr(rbx + e + t::TEXELS))?;
        for k in 0..4u32 {
            a.kxnorw(k2, k2, k2)?;
            a.vpxord(zmm(4 + k), zmm(4 + k), zmm(4 + k))?;
            a.vpgatherdd(zmm(4 + k).k2(), ptr(rax + zmm(12 + k) * 4))?;
        }
        a.vcmpps(k5, zmm(8), dword_bcst(rbx + pool_off(pool::ZERO)), EQ_OQ)?;
        a.vcmpps(k6, zmm(11), dword_bcst(rbx + pool_off(pool::ZERO)), EQ_OQ)?;
        a.mov(rdx, qword_ptr(rbx + e + t::SRGB))?;
        for c in 0..4u32 {
            if c < 3 {
                let mut unorm = a.create_label();
                let mut decoded = a.create_label();
                a.test(rdx, rdx)?;
                a.jz(unorm)?;
                for k in 0..4u32 {
                    tap_byte(a, c, k, e)?;
                    a.kxnorw(k2, k2, k2)?;
                    a.vpxord(zmm(12 + k), zmm(12 + k), zmm(12 + k))?;
                    a.vgatherdps(zmm(12 + k).k2(), ptr(rdx + zmm(9) * 4))?;
                }
                a.jmp(decoded)?;
                a.set_label(&mut unorm)?;
                unorm_taps(a, c, e)?;
                a.set_label(&mut decoded)?;
            } else {
                unorm_taps(a, c, e)?;
            }
            // lerp(t00, t10, wx), lerp(t01, t11, wx), then on y
            lerp(a, 9, [12, 13], 8, k5)?;
            lerp(a, 10, [14, 15], 8, k5)?;
            lerp(a, c, [9, 10], 11, k6)?;
        }
        Ok(())
    }
}

/// zmm9 = byte `c` of tap `k`'s words (zmm4 + k).
fn tap_byte(a: &mut CodeAssembler, c: u32, k: u32, e: i32) -> A {
    if c == 0 {
        a.vpandd(zmm(9), zmm(4 + k), dword_bcst(rbx + e + t::BYTE))
    } else {
        a.vpsrld(zmm(9), zmm(4 + k), 8 * c)?;
        a.vpandd(zmm(9), zmm(9), dword_bcst(rbx + e + t::BYTE))
    }
}

/// zmm12-15 = byte `c` of each tap as UNORM8: `v / 255` by the corrected
/// reciprocal (q = v · (1/255), then `fma(−q, 255, v) · (1/255) + q`
/// fused), exact.
fn unorm_taps(a: &mut CodeAssembler, c: u32, e: i32) -> A {
    for k in 0..4u32 {
        let out = zmm(12 + k);
        tap_byte(a, c, k, e)?;
        a.vcvtdq2ps(zmm(9), zmm(9))?;
        a.vmulps(zmm(10), zmm(9), dword_bcst(rbx + e + t::RCP255))?;
        a.vbroadcastss(out, dword_ptr(rbx + e + t::C255))?;
        a.vfnmadd213ps(out, zmm(10), zmm(9))?;
        a.vfmadd231ps(zmm(10), out, dword_bcst(rbx + e + t::RCP255))?;
        a.vmovaps(out, zmm(10))?;
    }
    Ok(())
}

/// zmm `d` = x + w · (y − x) (not fused), x where the weight is 0 (mask
/// `zero`), for `[x, y]` and weight zmm `w`.
fn lerp(a: &mut CodeAssembler, d: u32, [x, y]: [u32; 2], w: u32, zero: AsmRegisterK) -> A {
    a.vsubps(zmm(d), zmm(y), zmm(x))?;
    a.vmulps(zmm(d), zmm(w), zmm(d))?;
    a.vaddps(zmm(d), zmm(x), zmm(d))?;
    let masked = if zero == k5 { zmm(d).k5() } else { zmm(d).k6() };
    a.vmovaps(masked, zmm(x))
}
