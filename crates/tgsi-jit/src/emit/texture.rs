//! TEX and SAMPLE inline: a fragment instruction the interpreter runs by
//! its planned batch path (`texture::exec::run_planned`: one source, a
//! direct view and sampler, no offset), or lane by lane for NEAREST
//! filters, and a TXL or SAMPLE_L of any stage (its LOD operand in place
//! of the derivatives: [`Emitter::explicit`]), samples the levels of an
//! RGBA8 or RGBA32F view (2D, or a 2D array: [`Emitter::layers`]) itself
//! with the
//! steps of the texture engine (for RGBA8 bilinear, its AVX-512 kernel's
//! steps in `math::simd`), so the same bits. What the levels are comes
//! from this run's bindings through the instruction's entry in
//! [`Ctx::tex`](super::super::native::Ctx) (`tgsi_exec::inline_bilinear`).
//!
//! A batch whose active quads are all magnified reads the first level. A
//! mipmapped view's other batches take their LODs as the interpreter does
//! (`texture::exec::quad_lods`: per quad `log2f` of its larger derivative
//! length, plus the bias, clamped) and their levels as `mip_levels` picks
//! them; when every active lane reads one level k, the kernel runs on level
//! k, and again on level k + 1 for the lanes that blend the two. Without an
//! entry, and for a batch whose lanes read different levels (or whose LOD
//! needs `log2f`'s special cases: a subnormal or NaN length), the
//! instruction runs by the interpreter's handler.
//!
//! The common path (a magnified or single-level batch of a bilinear RGBA8
//! view without a mirror wrap) runs straight through; every other case is
//! emitted after the function's end ([`Cold`]) and jumped to.

use super::*;
use crate::native::log2f;
use crate::native::off::tex as t;
use tgsi_ir::enums::TextureTarget;

/// The register holding the address of the level the kernel reads (a
/// scratch register of the generated code: [`Emitter::magnified`] uses it
/// too, before it is set).
const LEVEL: AsmRegister64 = rcx;

/// The rare path of a sampled instruction ([`Emitter::cold_sample`]:
/// every batch but a magnified or single-level one of the common path, a
/// bilinear RGBA8 level without a mirror), emitted after the function's
/// end ([`Emitter::emit_cold`]) and reached by a jump to `entry` with the
/// registers as they were there; it goes on at `inline` (or to `kernel`,
/// to `handler` when the interpreter must run it).
pub(super) struct Cold {
    entry: CodeLabel,
    coords: [u32; 2],
    e: i32,
    array: bool,
    kernel: CodeLabel,
    inline: CodeLabel,
    handler: CodeLabel,
}

impl Emitter<'_> {
    /// Instruction `i` of plan [`Plan::Tex`] with entry `slot`: the result
    /// in zmm0-3 (r, g, b, a), stored through the writemask.
    pub(super) fn tex(&mut self, i: usize, inst: &Inst, slot: u8) -> R {
        let e = off::TEX + slot as i32 * off::TEX_SIZE;
        let mut handler = self.a.create_label();
        let mut kernel = self.a.create_label();
        let minified = self.a.create_label();
        let mut inline = self.a.create_label();
        let mut done = self.a.create_label();
        self.a.cmp(qword_ptr(rbx + e + t::LEVELS + t::TEXELS), 0)?;
        self.a.je(handler)?;
        let mut first_level = self.a.create_label();
        let s = self.fetch(4, &inst.src[0], 0, false)?;
        let tc = self.fetch(5, &inst.src[0], 1, false)?;
        // a target that may be a 2D array (the view's when the instruction
        // names none): each lane's layer; an array entry for another
        // target goes to the handler
        let target = self.code.tex.get(inst.aux as usize).map(|t| t.target);
        self.tex_array = matches!(
            target,
            Some(TextureTarget::Array2D | TextureTarget::Unknown)
        );
        if self.tex_array {
            self.layers(inst, e)?;
        } else {
            self.a.cmp(dword_ptr(rbx + e + t::LAYERS), 0)?;
            self.a.jne(handler)?;
        }
        let fragment = self.code.processor == Processor::Fragment;
        if let Some(lod) = explicit_lod(inst, fragment) {
            let lod = match lod {
                Lod::Operand(src, c) => self.fetch(6, &inst.src[src], c, false)?,
                Lod::Zero => {
                    self.a.vpxord(zmm(6), zmm(6), zmm(6))?;
                    6
                }
            };
            self.explicit([s, tc], lod, e, [inline, handler])?;
        } else {
            // (the common path: a bilinear RGBA8 level without a mirror; the
            // flags send every other entry to the cold code)
            self.a.cmp(dword_ptr(rbx + e + t::PLAIN_SINGLE), 0)?;
            self.a.jne(first_level)?;
            self.a.cmp(dword_ptr(rbx + e + t::PLAIN_MAGNIFY), 0)?;
            self.a.je(minified)?;
            self.magnified(s, tc, e, minified)?;
            self.a.set_label(&mut first_level)?;
            self.a.lea(LEVEL, qword_ptr(rbx + e + t::LEVELS))?;
            self.a.set_label(&mut kernel)?;
            self.bilinear([s, tc], e, handler, false)?;
            self.cold.push(Cold {
                entry: minified,
                coords: [s, tc],
                e,
                array: self.tex_array,
                kernel,
                inline,
                handler,
            });
        }
        self.a.set_label(&mut inline)?;
        self.select_channels(e)?;
        self.a.kxorw(k3, k3, k3)?;
        self.a.jmp(done)?;
        self.a.set_label(&mut handler)?;
        self.a.kxnorw(k3, k3, k3)?;
        self.a.set_label(&mut done)?;
        self.handler_where_k3(i)?;
        Ok(self.finish32(inst, |c| c as u32)?)
    }

    /// The result channels of entry `e` from the filtered rows in zmm0-3
    /// when the view's swizzle or the SVIEW operand's reorders them or
    /// puts 0.0 or 1.0 in their place (`TexEntry::select`; zmm4, rax
    /// scratch).
    fn select_channels(&mut self, e: i32) -> A {
        let mut plain = self.a.create_label();
        let a = &mut self.a;
        a.cmp(dword_ptr(rbx + e + t::SWIZZLED), 0)?;
        a.je(plain)?;
        for c in 0..4u32 {
            a.vmovups(zmmword_ptr(rbx + off::TEX_ROWS + 64 * c as i32), zmm(c))?;
        }
        a.vpxord(zmm(4), zmm(4), zmm(4))?;
        a.vmovups(zmmword_ptr(rbx + off::TEX_ROWS + 64 * 4), zmm(4))?;
        a.vbroadcastss(zmm(4), dword_ptr(rbx + e + t::ONE))?;
        a.vmovups(zmmword_ptr(rbx + off::TEX_ROWS + 64 * 5), zmm(4))?;
        for c in 0..4u32 {
            a.mov(eax, dword_ptr(rbx + e + t::SELECT + 4 * c as i32))?;
            a.vmovups(zmm(c), zmmword_ptr(rbx + rax + off::TEX_ROWS))?;
        }
        a.set_label(&mut plain)?;
        a.zero_bytes()
    }

    /// A 2D array entry's layer of each lane into the context's
    /// `tex_rows[7]` (skipped for another entry): the third coordinate of
    /// source 0, NaN as 0, rounded to nearest even, clamped to the view's
    /// layers (`Bound::slices`) (zmm7, k2 scratch).
    fn layers(&mut self, inst: &Inst, e: i32) -> R {
        let r = self.fetch(7, &inst.src[0], 2, false)?;
        let mut none = self.a.create_label();
        let a = &mut self.a;
        a.cmp(dword_ptr(rbx + e + t::LAYERS), 0)?;
        a.je(none)?;
        a.vcmpps(k2, zmm(r), zmm(r), ORD_Q)?;
        a.vmovaps(zmm(7).k2().z(), zmm(r))?;
        a.vrndscaleps(zmm(7), zmm(7), 8)?;
        a.vmaxps(zmm(7), zmm(7), dword_bcst(rbx + pool_off(pool::ZERO)))?;
        a.vminps(zmm(7), zmm(7), dword_bcst(rbx + e + t::LAYER_TOP))?;
        a.vcvttps2dq(zmm(7), zmm(7))?;
        a.vmovdqu32(zmmword_ptr(rbx + off::TEX_ROWS + 64 * 7), zmm(7))?;
        a.set_label(&mut none)?;
        Ok(a.zero_bytes()?)
    }

    /// When the sample may read a 2D array, zmm `z` = each lane's layer
    /// times the level's height for an array entry, 0 otherwise (the lanes'
    /// rows past `slice_rows`), and true; false (nothing emitted) for a
    /// sample that reads no array.
    fn layer_rows(&mut self, z: u32, e: i32) -> Result<bool, IcedError> {
        if !self.tex_array {
            return Ok(false);
        }
        let a = &mut self.a;
        a.vpxord(zmm(z), zmm(z), zmm(z))?;
        let mut none = a.create_label();
        a.cmp(dword_ptr(rbx + e + t::LAYERS), 0)?;
        a.je(none)?;
        a.vmovdqu32(zmm(z), zmmword_ptr(rbx + off::TEX_ROWS + 64 * 7))?;
        a.vpmulld(zmm(z), zmm(z), dword_bcst(LEVEL + t::HEIGHT))?;
        a.set_label(&mut none)?;
        a.zero_bytes()?;
        Ok(true)
    }

    /// Emits the rare path `cold` (after the function's end).
    pub(super) fn emit_cold(&mut self, cold: Cold) -> A {
        self.tex_array = cold.array;
        place(&mut self.a, cold.entry)?;
        self.cold_sample(
            cold.coords,
            cold.e,
            [cold.kernel, cold.inline, cold.handler],
        )
    }

    /// The batches the common path of entry `e` leaves (coordinates zmm
    /// `coords`): an entry of another kind (NEAREST filters, RGBA32F
    /// texels, a mirror: [`Self::lookup`]) reads level 0 when it has one
    /// level or its quads are magnified; every other batch takes its levels
    /// ([`Self::minified`]). Then on at `inline`.
    fn cold_sample(
        &mut self,
        coords: [u32; 2],
        e: i32,
        [kernel, inline, handler]: [CodeLabel; 3],
    ) -> A {
        let mut levels = self.a.create_label();
        let mut first_level = self.a.create_label();
        self.a.cmp(dword_ptr(rbx + e + t::GENERAL), 0)?;
        self.a.je(levels)?;
        self.a.cmp(dword_ptr(rbx + e + t::SINGLE_LEVEL), 0)?;
        self.a.jne(first_level)?;
        self.a.cmp(dword_ptr(rbx + e + t::MAGNIFY), 0)?;
        self.a.je(levels)?;
        self.magnified(coords[0], coords[1], e, levels)?;
        self.a.set_label(&mut first_level)?;
        self.a.lea(LEVEL, qword_ptr(rbx + e + t::LEVELS))?;
        self.lookup(coords, e, handler)?;
        self.a.jmp(inline)?;
        self.a.set_label(&mut levels)?;
        self.minified(coords, e, kernel, handler)?;
        self.a.jmp(inline)
    }

    /// A batch whose quads are not all magnified (entry `e`, coordinates
    /// zmm `coords`): to `handler` without the levels' description, else
    /// its levels; one lookup when no lane blends two levels (the common
    /// path's at `kernel` for its entries), else a lookup of each and the
    /// blend (the coordinates kept in the context's `tex_rows[5..7]`
    /// across the first).
    fn minified(&mut self, [s, tc]: [u32; 2], e: i32, kernel: CodeLabel, handler: CodeLabel) -> A {
        self.a.cmp(dword_ptr(rbx + e + t::MIP), 0)?;
        self.a.je(handler)?;
        self.level_of_batch(s, tc, e, handler)?;
        self.at_levels([s, tc], e, Some(kernel), handler)
    }

    /// A TXL or SAMPLE_L at coordinates zmm `coords` with each lane's LOD
    /// operand in zmm `lod` (entry `e`): a view read at one level reads
    /// it; otherwise the LODs plus the sampler's bias, clamped to its range
    /// (`LodMode::Explicit`), pick the levels as for TEX
    /// ([`Self::level_of_lods`], [`Self::at_levels`]); then on at `inline`,
    /// or at `handler` for the batches it takes.
    fn explicit(
        &mut self,
        coords: [u32; 2],
        lod: u32,
        e: i32,
        [inline, handler]: [CodeLabel; 2],
    ) -> A {
        let mut first_level = self.a.create_label();
        self.a.cmp(dword_ptr(rbx + e + t::SINGLE_LEVEL), 0)?;
        self.a.jne(first_level)?;
        self.a.cmp(dword_ptr(rbx + e + t::MIP), 0)?;
        self.a.je(handler)?;
        // (Rust's `max` and `min` of a NaN and a number give the number,
        // as MAXPS and MINPS do with the NaN first)
        let a = &mut self.a;
        a.vaddps(zmm(10), zmm(lod), dword_bcst(rbx + e + t::BIAS))?;
        a.vmaxps(zmm(10), zmm(10), dword_bcst(rbx + e + t::MIN_LOD))?;
        a.vminps(zmm(10), zmm(10), dword_bcst(rbx + e + t::MAX_LOD))?;
        self.level_of_lods(e, handler)?;
        self.at_levels(coords, e, None, handler)?;
        self.a.jmp(inline)?;
        self.a.set_label(&mut first_level)?;
        self.a.lea(LEVEL, qword_ptr(rbx + e + t::LEVELS))?;
        self.lookup(coords, e, handler)?;
        self.a.jmp(inline)
    }

    /// The lookups of a batch whose level [`Self::level_of_batch`] or
    /// [`Self::level_of_lods`] chose: one (the common path's at `kernel`
    /// for its entries, when given) when no lane blends, else a lookup of
    /// each level and the blend.
    fn at_levels(
        &mut self,
        [s, tc]: [u32; 2],
        e: i32,
        kernel: Option<CodeLabel>,
        handler: CodeLabel,
    ) -> A {
        // no lane blends: one level
        let mut blend = self.a.create_label();
        let mut done = self.a.create_label();
        self.a.kortestw(k5, k5)?;
        self.a.jnz(blend)?;
        if let Some(kernel) = kernel {
            self.a.cmp(dword_ptr(rbx + e + t::GENERAL), 0)?;
            self.a.je(kernel)?;
        }
        self.lookup([s, tc], e, handler)?;
        self.a.jmp(done)?;
        self.a.set_label(&mut blend)?;
        self.a
            .vmovdqu32(zmmword_ptr(rbx + off::TEX_ROWS + 64 * 5), zmm(s))?;
        self.a
            .vmovdqu32(zmmword_ptr(rbx + off::TEX_ROWS + 64 * 6), zmm(tc))?;
        self.lookup([s, tc], e, handler)?;
        for c in 0..4 {
            self.a.vmovdqu32(
                zmmword_ptr(rbx + off::TEX_ROWS + 64 * (c + 1)),
                zmm(c as u32),
            )?;
        }
        self.a
            .vmovdqu32(zmm(4), zmmword_ptr(rbx + off::TEX_ROWS + 64 * 5))?;
        self.a
            .vmovdqu32(zmm(5), zmmword_ptr(rbx + off::TEX_ROWS + 64 * 6))?;
        self.a.add(LEVEL, t::LEVEL_SIZE)?;
        self.lookup([4, 5], e, handler)?;
        self.blend_levels(handler)?;
        self.a.set_label(&mut done)?;
        self.a.zero_bytes()
    }

    /// zmm7 = per lane, d_s² + d_t² with d = (c − c at the quad's top-left
    /// lane) · the first level's scale on s and t (at a quad's top-right
    /// lane: the squared length of its x derivative in texels; at its
    /// bottom-left lane: of its y derivative; `Bound::quad_squared_lengths`,
    /// whose sum `0 + a + b` is `a + b`: a square is +0, positive or NaN);
    /// zmm6 = each lane's quad's top-left lane number (zmm8 scratch).
    fn quad_squares(&mut self, s: u32, tc: u32, e: i32) -> A {
        let a = &mut self.a;
        a.vmovdqu32(zmm(6), zmmword_ptr(rbx + pool_off(pool::LANE_NUMBERS)))?;
        a.vpbroadcastd(zmm(7), dword_ptr(rbx + pool_off(pool::MASK3)))?;
        a.vpandnd(zmm(6), zmm(7), zmm(6))?;
        for (c, d, scale) in [(s, 7, t::SCALE), (tc, 8, t::SCALE + 4)] {
            a.vpermd(zmm(d), zmm(6), zmm(c))?;
            a.vsubps(zmm(d), zmm(c), zmm(d))?;
            a.vmulps(zmm(d), zmm(d), dword_bcst(rbx + e + t::LEVELS + scale))?;
            a.vmulps(zmm(d), zmm(d), zmm(d))?;
        }
        a.vaddps(zmm(7), zmm(7), zmm(8))
    }

    /// Jumps to `to` unless every quad with an active lane is magnified
    /// (`Bound::magnified_quads`): both squared lengths of
    /// [`Self::quad_squares`] at most 1.
    fn magnified(&mut self, s: u32, tc: u32, e: i32, to: CodeLabel) -> A {
        self.quad_squares(s, tc, e)?;
        let a = &mut self.a;
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
        a.jne(to)
    }

    /// The level every active lane reads (`texture::exec::quad_lods` and
    /// `mip_levels`): [`LEVEL`] pointed at it, k5 = the active lanes that
    /// blend it with the next level, their weights in the context's
    /// `tex_rows[0]`; jumps to `handler` when the active lanes read
    /// different levels or a quad's length is not a number `log2f` takes
    /// by its steps (zmm6-15, k2, k3, rax scratch).
    fn level_of_batch(&mut self, s: u32, tc: u32, e: i32, handler: CodeLabel) -> A {
        self.quad_squares(s, tc, e)?;
        let a = &mut self.a;
        let w = |k: usize| dword_bcst(rbx + e + t::LOG2F + 4 * k as i32);
        let pool_word = |p: i32| dword_bcst(rbx + pool_off(p));
        // rho: the larger square root of the quad's two squared lengths
        // (f32::max: a NaN first operand gives the second; a NaN second
        // goes to the handler below)
        a.vsqrtps(zmm(7), zmm(7))?;
        a.vpaddd(zmm(8), zmm(6), pool_word(pool::INT1))?;
        a.vpermd(zmm(8), zmm(8), zmm(7))?;
        a.vpaddd(zmm(9), zmm(6), pool_word(pool::INT1 + 1))?;
        a.vpermd(zmm(9), zmm(9), zmm(7))?;
        a.vmaxps(zmm(7), zmm(8), zmm(9))?;
        // positive normal, +0 or +inf in every active lane
        a.vpsubd(zmm(8), zmm(7), w(log2f::MIN_NORMAL))?;
        a.vpcmpud(k2, zmm(8), w(log2f::NORMAL_SPAN), P_LT)?;
        a.vpcmpeqd(k3, zmm(7), pool_word(pool::ZERO))?;
        a.korw(k2, k2, k3)?;
        a.vpcmpeqd(k3, zmm(7), pool_word(pool::EXP))?;
        a.korw(k2, k2, k3)?;
        a.kandnw(k3, k2, k1)?;
        a.kortestw(k3, k3)?;
        a.jnz(handler)?;
        log2f_steps(a, e)?;
        // log2f's own cases: 1 → +0, +0 → −inf, +inf → +inf
        a.vpxord(zmm(11), zmm(11), zmm(11))?;
        a.vpcmpeqd(k2, zmm(7), pool_word(pool::ONE))?;
        a.vmovaps(zmm(10).k2(), zmm(11))?;
        a.vpcmpeqd(k2, zmm(7), pool_word(pool::ZERO))?;
        a.vbroadcastss(
            zmm(11),
            dword_ptr(rbx + e + t::LOG2F + 4 * log2f::NEG_INF as i32),
        )?;
        a.vmovaps(zmm(10).k2(), zmm(11))?;
        a.vpcmpeqd(k2, zmm(7), pool_word(pool::EXP))?;
        a.vmovaps(zmm(10).k2(), zmm(7))?;
        // lod = clamp(lambda + 0 + bias) (neither bound NaN, the bias finite)
        a.vaddps(zmm(10), zmm(10), pool_word(pool::ZERO))?;
        a.vaddps(zmm(10), zmm(10), dword_bcst(rbx + e + t::BIAS))?;
        a.vmaxps(zmm(10), zmm(10), dword_bcst(rbx + e + t::MIN_LOD))?;
        a.vminps(zmm(10), zmm(10), dword_bcst(rbx + e + t::MAX_LOD))?;
        self.level_of_lods(e, handler)
    }

    /// From the clamped LODs in zmm10 (never NaN): [`LEVEL`] pointed at
    /// the level every active lane reads, k5 = the active lanes that blend
    /// it with the next level, their weights in the context's
    /// `tex_rows[0]`; jumps to `handler` when the active lanes read
    /// different levels (zmm11-13, k2, k3, rax scratch).
    fn level_of_lods(&mut self, e: i32, handler: CodeLabel) -> A {
        let a = &mut self.a;
        mip_levels(a, e)?;
        // one level for every active lane: the first active lane's
        a.vpcompressd(zmm(12).k1().z(), zmm(11))?;
        a.vpbroadcastd(zmm(12), xmm(12))?;
        a.vpcmpd(k3.k1(), zmm(11), zmm(12), P_NE)?;
        a.kortestw(k3, k3)?;
        a.jnz(handler)?;
        a.kandw(k5, k5, k1)?;
        a.vmovd(eax, xmm(12))?;
        a.imul_3(eax, eax, t::LEVEL_SIZE)?;
        a.lea(LEVEL, qword_ptr(rbx + rax + e + t::LEVELS))?;
        a.vmovdqu32(zmmword_ptr(rbx + off::TEX_ROWS), zmm(13))?;
        a.kmovw(word_ptr(rbx + off::TEX_BLEND), k5)
    }

    /// zmm0-3 = the first level's channels (`tex_rows[1..5]`) blended
    /// towards the next level's (zmm0-3) by the weights (`tex_rows[0]`) in
    /// the blending lanes: `x + w · (y − x)`, not fused (the texels are
    /// finite or infinite, the weights not 0: `texture::sample::lerp`);
    /// a NaN in an active lane jumps to `handler`.
    fn blend_levels(&mut self, handler: CodeLabel) -> A {
        let a = &mut self.a;
        a.kmovw(k5, word_ptr(rbx + off::TEX_BLEND))?;
        a.vmovdqu32(zmm(6), zmmword_ptr(rbx + off::TEX_ROWS))?;
        for c in 0..4u32 {
            a.vmovdqu32(
                zmm(7),
                zmmword_ptr(rbx + off::TEX_ROWS + 64 * (c as i32 + 1)),
            )?;
            a.vsubps(zmm(8), zmm(c), zmm(7))?;
            a.vmulps(zmm(8), zmm(6), zmm(8))?;
            a.vaddps(zmm(8), zmm(7), zmm(8))?;
            a.vmovaps(zmm(7).k5(), zmm(8))?;
            a.vmovaps(zmm(c), zmm(7))?;
        }
        // (RGBA32F: infinite texels of one sign on both levels give NaN
        // here, where the interpreter's lerp follows the NaN rule)
        nan_to(a, handler)
    }

    /// zmm12 = coordinate zmm `c` in texels on `axis` (0: s, 1: t): NaN to
    /// +0, clamped to ±2^24, times the level's scale, plus the offset (0),
    /// and the same again (`sanitize`) (k2 scratch).
    fn tex_coord(&mut self, c: u32, axis: i32, e: i32) -> A {
        let g = |field: i32| dword_bcst(rbx + e + field);
        let u = zmm(12);
        let a = &mut self.a;
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
                a.vmulps(u, u, dword_bcst(LEVEL + t::SCALE + 4 * axis))?;
                a.vaddps(u, u, dword_bcst(rbx + pool_off(pool::ZERO)))?;
            }
        }
        Ok(())
    }

    /// The texel index zmm `i` wrapped on `axis` of entry `e`
    /// (`wrap_index` of the wraps the kernel takes, by the level's
    /// [`TexLevel`](crate::native::TexLevel) words: REPEAT on a power of
    /// two masks it, the clamps clamp it; with `general`, for an entry with
    /// a mirror or a remainder, [`Self::mirror_wrap`]) (zmm12-15 scratch).
    fn wrap_index(&mut self, i: u32, axis: i32, e: i32, general: bool) -> A {
        let f = |field: i32| dword_bcst(LEVEL + field + 4 * axis);
        let mut mirror = self.a.create_label();
        let mut wrapped = self.a.create_label();
        self.a.vpandd(zmm(i), zmm(i), f(t::WRAP_AND))?;
        if general {
            self.a.cmp(dword_ptr(rbx + e + t::MIRROR), 0)?;
            self.a.jne(mirror)?;
        }
        self.a
            .vpmaxsd(zmm(i), zmm(i), dword_bcst(rbx + pool_off(pool::ZERO)))?;
        self.a.vpminsd(zmm(i), zmm(i), f(t::LAST))?;
        if general {
            self.a.jmp(wrapped)?;
            self.a.set_label(&mut mirror)?;
            self.mirror_wrap(i, axis)?;
            self.a.set_label(&mut wrapped)?;
            self.a.zero_bytes()?;
        }
        Ok(())
    }

    /// The masked index zmm `i` on `axis` wrapped by the level's words
    /// with a mirror or a remainder: REPEAT and MIRROR_REPEAT on a size
    /// that is not a power of two take the remainder ([`remainder`]),
    /// MIRROR_CLAMP_TO_EDGE folds a negative index (`i ^ (i >> 31)` where
    /// `fold` is all ones), the clamp, then MIRROR_REPEAT mirrors the second
    /// half of its period (the unsigned minimum of i and `mirror_top − i`)
    /// (zmm12-15 scratch).
    fn mirror_wrap(&mut self, i: u32, axis: i32) -> A {
        let f = |field: i32| dword_bcst(LEVEL + field + 4 * axis);
        let a = &mut self.a;
        let mut kept = a.create_label();
        a.cmp(dword_ptr(LEVEL + t::MODULUS + 4 * axis), 0)?;
        a.je(kept)?;
        remainder(a, i, f(t::MODULUS))?;
        a.set_label(&mut kept)?;
        a.vpsrad(zmm(13), zmm(i), 31)?;
        a.vpandd(zmm(13), zmm(13), f(t::FOLD))?;
        a.vpxord(zmm(i), zmm(i), zmm(13))?;
        a.vpmaxsd(zmm(i), zmm(i), dword_bcst(rbx + pool_off(pool::ZERO)))?;
        a.vpminsd(zmm(i), zmm(i), f(t::LAST))?;
        a.vpbroadcastd(zmm(13), dword_ptr(LEVEL + t::MIRROR_TOP + 4 * axis))?;
        a.vpsubd(zmm(13), zmm(13), zmm(i))?;
        a.vpminud(zmm(i), zmm(i), zmm(13))
    }

    /// One axis of the kernel from coordinate zmm `c`: the wrapped texel
    /// indices into zmm `i0`, `i1` and the second one's weight into `w`
    /// (zmm12, zmm13 scratch); `axis` 0 (s) or 1 (t).
    fn tex_axis(&mut self, c: u32, axis: i32, e: i32, [i0, i1, w]: [u32; 3], general: bool) -> A {
        self.tex_coord(c, axis, e)?;
        let (u, fl) = (zmm(12), zmm(13));
        let a = &mut self.a;
        // x = u − 0.5, its floor, the weight x − floor and the two indices
        a.vsubps(u, u, dword_bcst(rbx + e + t::HALF))?;
        a.vrndscaleps(fl, u, 9)?;
        a.vsubps(zmm(w), u, fl)?;
        a.vcvttps2dq(zmm(i0), fl)?;
        a.vpaddd(zmm(i1), zmm(i0), dword_bcst(rbx + pool_off(pool::INT1)))?;
        self.wrap_index(i0, axis, e, general)?;
        self.wrap_index(i1, axis, e, general)
    }

    /// The level at [`LEVEL`] sampled at coordinates zmm `coords` by the
    /// entry's filter, of any kind the entries take: [`Self::bilinear`] or
    /// [`Self::nearest`], RGBA8 or RGBA32F, mirror wraps or not.
    fn lookup(&mut self, coords: [u32; 2], e: i32, handler: CodeLabel) -> A {
        let mut nearest = self.a.create_label();
        let mut done = self.a.create_label();
        self.a.cmp(dword_ptr(rbx + e + t::NEAREST), 0)?;
        self.a.jne(nearest)?;
        self.bilinear(coords, e, handler, true)?;
        self.a.jmp(done)?;
        self.a.set_label(&mut nearest)?;
        self.nearest(coords, e)?;
        self.a.set_label(&mut done)?;
        self.a.zero_bytes()
    }

    /// The texel at ⌊u⌋, ⌊v⌋ of the level at [`LEVEL`] (entry `e`),
    /// decoded, at coordinates zmm `s` and `tc` (`Bound::sample_level_2d`'s
    /// NEAREST filter: the coordinates as the bilinear kernel takes them,
    /// the wrapped indices, the texel's channels as the batch path decodes
    /// them; RGBA32F words as they are): r, g, b, a into zmm0-3 (zmm4-13,
    /// k2, rax, rdx scratch).
    fn nearest(&mut self, [s, tc]: [u32; 2], e: i32) -> A {
        for (c, axis, i) in [(s, 0, 6), (tc, 1, 7)] {
            self.tex_coord(c, axis, e)?;
            self.a.vrndscaleps(zmm(13), zmm(12), 9)?;
            self.a.vcvttps2dq(zmm(i), zmm(13))?;
            self.wrap_index(i, axis, e, true)?;
        }
        let layered = self.layer_rows(13, e)?;
        let level = |field: i32| dword_bcst(LEVEL + field);
        let a = &mut self.a;
        a.vpaddd(zmm(7), zmm(7), level(t::SLICE_ROWS))?;
        if layered {
            a.vpaddd(zmm(7), zmm(7), zmm(13))?;
        }
        a.vpmulld(zmm(7), zmm(7), level(t::WIDTH))?;
        a.vpaddd(zmm(12), zmm(7), zmm(6))?;
        a.vpminud(zmm(12), zmm(12), level(t::TOP))?;
        a.mov(rax, qword_ptr(LEVEL + t::TEXELS))?;
        let mut rgba8 = a.create_label();
        let mut decoded = a.create_label();
        a.cmp(dword_ptr(rbx + e + t::FLOAT), 0)?;
        a.je(rgba8)?;
        a.vpslld(zmm(12), zmm(12), 2)?;
        for c in 0..4u32 {
            all_lanes_k2(a)?;
            a.vpxord(zmm(c), zmm(c), zmm(c))?;
            a.vpgatherdd(zmm(c).k2(), ptr(rax + zmm(12) * 4 + 4 * c as i32))?;
        }
        a.jmp(decoded)?;
        a.set_label(&mut rgba8)?;
        all_lanes_k2(a)?;
        a.vpxord(zmm(4), zmm(4), zmm(4))?;
        a.vpgatherdd(zmm(4).k2(), ptr(rax + zmm(12) * 4))?;
        a.mov(rdx, qword_ptr(rbx + e + t::SRGB))?;
        for c in 0..4u32 {
            tap_byte(a, c, 0, e)?;
            if c == 3 {
                // alpha: UNORM8 in both
                unorm_byte(a, c, e)?;
                continue;
            }
            let mut unorm = a.create_label();
            let mut done = a.create_label();
            a.test(rdx, rdx)?;
            a.jz(unorm)?;
            all_lanes_k2(a)?;
            a.vpxord(zmm(c), zmm(c), zmm(c))?;
            a.vgatherdps(zmm(c).k2(), ptr(rdx + zmm(9) * 4))?;
            a.jmp(done)?;
            a.set_label(&mut unorm)?;
            unorm_byte(a, c, e)?;
            a.set_label(&mut done)?;
        }
        a.set_label(&mut decoded)?;
        a.zero_bytes()
    }

    /// The bilinear kernel of the level at [`LEVEL`] (entry `e`) at
    /// coordinates zmm `s` and `tc`: r, g, b, a into zmm0-3 (zmm4-15, zmm31, k2,
    /// k3, k5, k6, rax, rdx scratch); an RGBA32F result that is NaN in an
    /// active lane jumps to `handler` (the interpreter's lerp then follows
    /// the NaN rule). RGBA32F texels and mirror wraps only with `general`
    /// (else an RGBA8 level whose wraps have no mirror).
    fn bilinear(&mut self, [s, tc]: [u32; 2], e: i32, handler: CodeLabel, general: bool) -> A {
        self.tex_axis(s, 0, e, [6, 7, 8], general)?;
        self.tex_axis(tc, 1, e, [9, 10, 11], general)?;
        let layered = self.layer_rows(12, e)?;
        let level = |field: i32| dword_bcst(LEVEL + field);
        let a = &mut self.a;
        // the taps' texel indices (00, 10, 01, 11), clamped to the last texel
        for row in [9, 10] {
            a.vpaddd(zmm(row), zmm(row), level(t::SLICE_ROWS))?;
            if layered {
                a.vpaddd(zmm(row), zmm(row), zmm(12))?;
            }
            a.vpmulld(zmm(row), zmm(row), level(t::WIDTH))?;
        }
        for (k, (row, x)) in [(9, 6), (9, 7), (10, 6), (10, 7)].into_iter().enumerate() {
            let idx = zmm(12 + k as u32);
            a.vpaddd(idx, zmm(row), zmm(x))?;
            a.vpminud(idx, idx, level(t::TOP))?;
        }
        a.mov(rax, qword_ptr(LEVEL + t::TEXELS))?;
        a.vcmpps(k5, zmm(8), dword_bcst(rbx + pool_off(pool::ZERO)), EQ_OQ)?;
        a.vcmpps(k6, zmm(11), dword_bcst(rbx + pool_off(pool::ZERO)), EQ_OQ)?;
        let mut float = a.create_label();
        let mut filtered = a.create_label();
        if general {
            a.cmp(dword_ptr(rbx + e + t::FLOAT), 0)?;
            a.jne(float)?;
        }
        // the taps' words into zmm4-7
        for k in 0..4u32 {
            all_lanes_k2(a)?;
            a.vpxord(zmm(4 + k), zmm(4 + k), zmm(4 + k))?;
            a.vpgatherdd(zmm(4 + k).k2(), ptr(rax + zmm(12 + k) * 4))?;
        }
        a.mov(rdx, qword_ptr(rbx + e + t::SRGB))?;
        for c in 0..4u32 {
            if c < 3 {
                let mut unorm = a.create_label();
                let mut decoded = a.create_label();
                a.test(rdx, rdx)?;
                a.jz(unorm)?;
                for k in 0..4u32 {
                    tap_byte(a, c, k, e)?;
                    all_lanes_k2(a)?;
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
        if general {
            a.jmp(filtered)?;
            a.set_label(&mut float)?;
            float_taps(a, handler)?;
            a.set_label(&mut filtered)?;
            a.zero_bytes()?;
        }
        Ok(())
    }
}

/// Where the LOD of an instruction sampled at an explicit LOD comes from.
enum Lod {
    /// A TXL's or SAMPLE_L's operand: (source, channel).
    Operand(usize, usize),
    /// A TEX or SAMPLE outside the fragment stage: 0, plus the bias as for
    /// an operand.
    Zero,
}

/// The explicit LOD of `inst`; None for the instructions that take their
/// LOD from the quads.
fn explicit_lod(inst: &Inst, fragment: bool) -> Option<Lod> {
    match inst.op {
        Opcode::TXL => Some(Lod::Operand(0, 3)),
        Opcode::SAMPLE_L => Some(Lod::Operand(1, 0)),
        Opcode::TEX | Opcode::SAMPLE if !fragment => Some(Lod::Zero),
        _ => None,
    }
}

/// zmm `i` = each lane's `rem_euclid` of the modulus `m` (a broadcast
/// word, 1 to 2^25), for indices of at most 2^25 in magnitude: in f64 the
/// index and its quotient by m are exact or correctly rounded, and a
/// quotient that is not an integer stays more than an ulp from the next
/// one, so its floor is the integer quotient; the index minus the quotient
/// times m (fused, exact) is the remainder (zmm12-15 scratch).
fn remainder(a: &mut CodeAssembler, i: u32, m: AsmMemoryOperand) -> A {
    a.vcvtudq2pd(zmm(15), m)?;
    for half in 0..2u32 {
        let (index, out) = (ymm(13), ymm(12 + half));
        if half == 0 {
            a.vcvtdq2pd(zmm(13), ymm(i))?;
        } else {
            a.vextracti32x8(index, zmm(i), 1)?;
            a.vcvtdq2pd(zmm(13), index)?;
        }
        a.vdivpd(zmm(14), zmm(13), zmm(15))?;
        a.vrndscalepd(zmm(14), zmm(14), 9)?;
        a.vfnmadd231pd(zmm(13), zmm(14), zmm(15))?;
        a.vcvtpd2dq(out, zmm(13))?;
    }
    a.vinserti32x8(zmm(i), zmm(12), ymm(13), 1)
}

/// The RGBA32F taps at the texel indices in zmm12-15 filtered into zmm0-3
/// by the weights in zmm8 (s) and zmm11 (t), k5 and k6 their zero lanes
/// (`Bound::rgba32f_rows`: each tap's channel c the word 4 · index + c,
/// the same lerps as RGBA8); jumps to `handler` when an active lane's
/// result is NaN (zmm4-7, zmm9, zmm10, zmm12-15, zmm31, rdx, k2, k3
/// scratch). Each lane's texels are read with plain loads and transposed
/// into channel rows: where in every lane each row's second tap is the
/// texel after its first (no wrap or clamp between them), one 32-byte
/// load reads both ([`paired_row`]), else one 16-byte load per tap
/// ([`float_tap`]). On an AMD Zen 5 a tap took 35 cycles through 64-bit
/// gathers, 19 by its own loads, and a row's two taps 24 by the paired
/// loads.
fn float_taps(a: &mut CodeAssembler, handler: CodeLabel) -> A {
    // each index counted in 64-bit words, two to a texel, kept in the
    // context to be read lane by lane
    for k in 0..4u32 {
        a.vpslld(zmm(12 + k), zmm(12 + k), 1)?;
        a.vmovdqu32(
            zmmword_ptr(rbx + off::TAP_INDEX + 64 * k as i32),
            zmm(12 + k),
        )?;
    }
    let mut apart = a.create_label();
    let mut filtered = a.create_label();
    let next_texel = dword_bcst(rbx + pool_off(pool::INT1 + 1));
    a.vpaddd(zmm(9), zmm(12), next_texel)?;
    a.vpcmpd(k2, zmm(9), zmm(13), P_NE)?;
    a.vpaddd(zmm(9), zmm(14), next_texel)?;
    a.vpcmpd(k3, zmm(9), zmm(15), P_NE)?;
    a.kortestw(k2, k3)?;
    a.jnz(apart)?;
    // each row's two taps lerped on s (into the second's registers), then
    // the rows on t (the registers chosen so that no output overwrites a
    // row still to be read)
    let row0 = paired_row(a, 0, [[0, 1, 2, 3, 4], [5, 6, 7, 9, 10]], 1)?;
    let row1 = paired_row(a, 2, [[0, 2, 3, 4, 6], [9, 12, 13, 14, 15]], 2)?;
    for c in 0..4 {
        lerp(a, c as u32, [row0[c], row1[c]], 11, k6)?;
    }
    a.jmp(filtered)?;
    a.set_label(&mut apart)?;
    // taps 00 and 10 (the first row), taps 01 and 11 (the second), then
    // the rows on t
    let row0 = float_row(a, 0, [[0, 1, 2, 3, 4], [5, 6, 7, 9, 10]])?;
    let row1 = float_row(a, 2, [[0, 1, 2, 3, 4], [12, 13, 14, 15, 31]])?;
    for c in 0..4 {
        lerp(a, c as u32, [row0[c], row1[c]], 11, k6)?;
    }
    a.set_label(&mut filtered)?;
    nan_to(a, handler)
}

/// The filtered row of taps `k` and `k + 1` read one 16-byte texel at a
/// time ([`float_tap`], into `regs[0]` and `regs[1]`), lerped on s into the
/// second tap's registers, which it returns.
fn float_row(a: &mut CodeAssembler, k: i32, regs: [[u32; 5]; 2]) -> Result<[u32; 4], IcedError> {
    let first = float_tap(a, k, regs[0])?;
    let second = float_tap(a, k + 1, regs[1])?;
    for c in 0..4 {
        lerp(a, second[c], [first[c], second[c]], 8, k5)?;
    }
    Ok(second)
}

/// Tap `k`'s texels (indices in 64-bit words at `tap_index[k]`) as four
/// channel rows in five registers `regs`: returns the registers of r, g,
/// b and a (rdx scratch). Register q of the first four holds lanes q,
/// q + 4, q + 8, q + 12 (a texel per 128-bit block), so that the two
/// rounds of unpacks leave each channel's lanes in order.
fn float_tap(a: &mut CodeAssembler, k: i32, regs: [u32; 5]) -> Result<[u32; 4], IcedError> {
    let [q0, q1, q2, q3, _] = regs;
    for (q, r) in [q0, q1, q2, q3].into_iter().enumerate() {
        for block in 0..4 {
            let lane = 4 * block + q as i32;
            a.mov(edx, dword_ptr(rbx + off::TAP_INDEX + 64 * k + 4 * lane))?;
            let texel = ptr(rax + rdx * 8);
            if block == 0 {
                a.vmovups(xmm(r), texel)?;
            } else {
                a.vinsertf32x4(zmm(r), zmm(r), texel, block)?;
            }
        }
    }
    unpack_channels(a, regs)
}

/// The filtered row of taps `k` and `k + 1` (indices in 64-bit words at
/// `tap_index[k]`; tap k + 1 the next texel in every lane): each lane's
/// two texels in one 32-byte load, in two groups of five registers
/// `groups` (the first four of a group hold lanes i and i + 4, i = 0..3,
/// of the group's eight), the groups' channels unpacked, then each
/// channel's two taps picked from the groups by 128-bit block shuffles and
/// lerped on s; `spare` is a register free once the groups are unpacked
/// (such as the first group's second, which [`unpack_channels`] frees).
/// Returns the row's channel registers (rdx scratch).
fn paired_row(
    a: &mut CodeAssembler,
    k: i32,
    groups: [[u32; 5]; 2],
    mut spare: u32,
) -> Result<[u32; 4], IcedError> {
    for (g, regs) in groups.iter().enumerate() {
        for (i, &r) in regs[..4].iter().enumerate() {
            for half in 0..2 {
                let lane = 8 * g as i32 + i as i32 + 4 * half;
                a.mov(edx, dword_ptr(rbx + off::TAP_INDEX + 64 * k + 4 * lane))?;
                let texels = ptr(rax + rdx * 8);
                if half == 0 {
                    a.vmovups(ymm(r), texels)?;
                } else {
                    a.vinsertf32x8(zmm(r), zmm(r), texels, 1)?;
                }
            }
        }
    }
    // per channel, blocks 0-3 of the first group: the first tap of lanes
    // 0-3, the second tap of lanes 0-3, the first of 4-7, the second of
    // 4-7; of the second group: lanes 8-15 likewise
    let low = unpack_channels(a, groups[0])?;
    let high = unpack_channels(a, groups[1])?;
    let mut row = [0u32; 4];
    for c in 0..4 {
        let (first, second) = (low[c], spare);
        a.vshuff32x4(zmm(second), zmm(low[c]), zmm(high[c]), 0xDD)?;
        a.vshuff32x4(zmm(first), zmm(low[c]), zmm(high[c]), 0x88)?;
        spare = high[c];
        lerp(a, second, [first, second], 8, k5)?;
        row[c] = second;
    }
    Ok(row)
}

/// Four registers `regs[..4]`, each with a texel (r g b a) per 128-bit
/// block, unpacked through the fifth into channel rows: per block, the
/// channel of the four registers' texels in register order. Returns the
/// registers of r, g, b and a (the second register is left free).
fn unpack_channels(a: &mut CodeAssembler, regs: [u32; 5]) -> Result<[u32; 4], IcedError> {
    let [q0, q1, q2, q3, x] = regs;
    a.vunpcklps(zmm(x), zmm(q0), zmm(q1))?; // r0 r1 g0 g1
    a.vunpckhps(zmm(q1), zmm(q0), zmm(q1))?; // b0 b1 a0 a1
    a.vunpcklps(zmm(q0), zmm(q2), zmm(q3))?; // r2 r3 g2 g3
    a.vunpckhps(zmm(q3), zmm(q2), zmm(q3))?; // b2 b3 a2 a3
    a.vunpcklpd(zmm(q2), zmm(x), zmm(q0))?; // r0 r1 r2 r3
    a.vunpckhpd(zmm(x), zmm(x), zmm(q0))?; // g
    a.vunpcklpd(zmm(q0), zmm(q1), zmm(q3))?; // b
    a.vunpckhpd(zmm(q3), zmm(q1), zmm(q3))?; // a
    Ok([q2, x, q0, q3])
}

/// k2 = every lane, the mask of a gather that reads all 16: made from k0,
/// which no generated code writes (made from k2, which a gather clears as
/// it completes, each gather would wait for the one before).
fn all_lanes_k2(a: &mut CodeAssembler) -> A {
    a.kxnorw(k2, k0, k0)
}

/// Jumps to `to` when zmm0-3 hold a NaN in an active lane (k2, k3 scratch).
fn nan_to(a: &mut CodeAssembler, to: CodeLabel) -> A {
    a.vcmpps(k2, zmm(0), zmm(1), UNORD_Q)?;
    a.vcmpps(k3, zmm(2), zmm(3), UNORD_Q)?;
    a.korw(k2, k2, k3)?;
    a.kandw(k2, k2, k1)?;
    a.kortestw(k2, k2)?;
    a.jnz(to)
}

/// zmm10 = `libm::log2f` of zmm7 by its steps for positive normal values
/// (`texture::sample::log2f_lanes`: the same f32 operations in the same
/// order, none fused), from the entry's `log2f` words (zmm8, zmm9,
/// zmm11-15 scratch).
fn log2f_steps(a: &mut CodeAssembler, e: i32) -> A {
    let w = |k: usize| dword_bcst(rbx + e + t::LOG2F + 4 * k as i32);
    let one = dword_bcst(rbx + pool_off(pool::ONE));
    // the exponent k from √½ up, and the mantissa m in [√½, √2)
    a.vpaddd(zmm(8), zmm(7), w(log2f::REDUCE))?;
    a.vpsrld(zmm(9), zmm(8), 23)?;
    a.vpsubd(zmm(9), zmm(9), w(log2f::BIAS))?;
    a.vcvtdq2ps(zmm(9), zmm(9))?;
    a.vpandd(zmm(8), zmm(8), w(log2f::MANTISSA))?;
    a.vpaddd(zmm(8), zmm(8), w(log2f::SQRT_HALF))?;
    // f = m − 1, s = f / (2 + f), z = s², w = z²
    a.vsubps(zmm(8), zmm(8), one)?;
    a.vaddps(zmm(10), zmm(8), w(log2f::TWO))?;
    a.vdivps(zmm(10), zmm(8), zmm(10))?;
    a.vmulps(zmm(11), zmm(10), zmm(10))?;
    a.vmulps(zmm(12), zmm(11), zmm(11))?;
    // r = z · (LG1 + w · LG3) + w · (LG2 + w · LG4)
    a.vmulps(zmm(13), zmm(12), w(log2f::LG + 3))?;
    a.vaddps(zmm(13), zmm(13), w(log2f::LG + 1))?;
    a.vmulps(zmm(13), zmm(12), zmm(13))?;
    a.vmulps(zmm(14), zmm(12), w(log2f::LG + 2))?;
    a.vaddps(zmm(14), zmm(14), w(log2f::LG))?;
    a.vmulps(zmm(14), zmm(11), zmm(14))?;
    a.vaddps(zmm(13), zmm(14), zmm(13))?;
    // hfsq = 0.5 · f · f, hi = (f − hfsq) cut to its high bits
    a.vmulps(zmm(14), zmm(8), dword_bcst(rbx + e + t::HALF))?;
    a.vmulps(zmm(14), zmm(14), zmm(8))?;
    a.vsubps(zmm(15), zmm(8), zmm(14))?;
    a.vpandd(zmm(15), zmm(15), w(log2f::HI_MASK))?;
    // lo = f − hi − hfsq + s · (hfsq + r)
    a.vaddps(zmm(13), zmm(14), zmm(13))?;
    a.vmulps(zmm(13), zmm(10), zmm(13))?;
    a.vsubps(zmm(8), zmm(8), zmm(15))?;
    a.vsubps(zmm(8), zmm(8), zmm(14))?;
    a.vaddps(zmm(8), zmm(8), zmm(13))?;
    // (lo + hi) · IVLN2LO + lo · IVLN2HI + hi · IVLN2HI + k
    a.vaddps(zmm(10), zmm(8), zmm(15))?;
    a.vmulps(zmm(10), zmm(10), w(log2f::IVLN2_LO))?;
    a.vmulps(zmm(8), zmm(8), w(log2f::IVLN2_HI))?;
    a.vaddps(zmm(10), zmm(10), zmm(8))?;
    a.vmulps(zmm(15), zmm(15), w(log2f::IVLN2_HI))?;
    a.vaddps(zmm(10), zmm(10), zmm(15))?;
    a.vaddps(zmm(10), zmm(10), zmm(9))
}

/// From the LODs in zmm10 (never NaN): zmm11 = each lane's level, zmm13 =
/// the next level's weight, k5 = the lanes that blend (`mip_levels`: mip
/// LINEAR reads level ⌊lod⌋ and blends by its fraction below the last
/// level; NEAREST reads ⌊lod + 0.5⌋ up to the last; a LOD of at most 0
/// reads level 0) (k2, k3 scratch).
fn mip_levels(a: &mut CodeAssembler, e: i32) -> A {
    let mut linear = a.create_label();
    let mut picked = a.create_label();
    let zero = || dword_bcst(rbx + pool_off(pool::ZERO));
    let last = dword_bcst(rbx + e + t::LAST_LEVEL);
    a.vcmpps(k2, zmm(10), zero(), GT_OQ)?;
    a.cmp(dword_ptr(rbx + e + t::MIP), 2)?;
    a.jne(linear)?;
    a.vaddps(zmm(11), zmm(10), dword_bcst(rbx + e + t::HALF))?;
    a.vrndscaleps(zmm(11), zmm(11), 9)?;
    a.vminps(zmm(11), zmm(11), last)?;
    a.kxorw(k5, k5, k5)?;
    a.jmp(picked)?;
    a.set_label(&mut linear)?;
    a.vrndscaleps(zmm(11), zmm(10), 9)?;
    a.vcmpps(k3, zmm(11), last, LT_OQ)?;
    a.kandw(k3, k3, k2)?;
    a.vsubps(zmm(13), zmm(10), zmm(11))?;
    a.vcmpps(k5, zmm(13), zero(), NEQ_UQ)?;
    a.kandw(k5, k5, k3)?;
    a.vminps(zmm(11), zmm(11), last)?;
    a.set_label(&mut picked)?;
    a.vmovaps(zmm(11).k2().z(), zmm(11))?;
    a.vcvttps2dq(zmm(11), zmm(11))
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
        tap_byte(a, c, k, e)?;
        unorm_byte(a, 12 + k, e)?;
    }
    Ok(())
}

/// zmm `out` = the bytes in zmm9 as UNORM8, exactly `v / 255` (see
/// [`unorm_taps`]) (zmm9, zmm10 scratch).
fn unorm_byte(a: &mut CodeAssembler, out: u32, e: i32) -> A {
    let out = zmm(out);
    a.vcvtdq2ps(zmm(9), zmm(9))?;
    a.vmulps(zmm(10), zmm(9), dword_bcst(rbx + e + t::RCP255))?;
    a.vbroadcastss(out, dword_ptr(rbx + e + t::C255))?;
    a.vfnmadd213ps(out, zmm(10), zmm(9))?;
    a.vfmadd231ps(zmm(10), out, dword_bcst(rbx + e + t::RCP255))?;
    a.vmovaps(out, zmm(10))
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
