//! [`Row16`]: 16 f32 lanes in one AVX-512 register, for lane-by-lane
//! code written once over a row type (the pipeline's blending) that runs
//! inlined into a function compiled for AVX-512 ([`super::wide`]).

use super::Avx512;
use std::arch::x86_64::*;

/// 16 f32 lanes in one AVX-512 register. A value is made only from an
/// [`Avx512`] proof or from another `Row16`, so each of its methods runs
/// on a CPU with AVX-512 F/DQ/BW/VL. Every operation is one IEEE
/// operation per lane (no contraction), the same bits as the scalar
/// operation it names; inlined into code compiled for AVX-512 (inside a
/// [`super::Kernel`] run by [`super::wide`]) each is an instruction or
/// two.
#[derive(Clone, Copy)]
pub struct Row16(__m512);

impl Row16 {
    /// The lanes of `row`.
    #[inline(always)]
    pub fn load(_: Avx512, row: &[f32; 16]) -> Row16 {
        // SAFETY: the proof says the CPU has AVX-512F; `row` is 64
        // readable bytes (an unaligned load).
        Row16(unsafe { _mm512_loadu_ps(row.as_ptr()) })
    }

    /// The lanes whose bits `row` holds.
    #[inline(always)]
    pub fn load_bits(_: Avx512, row: &[u32; 16]) -> Row16 {
        // SAFETY: as in `load`.
        Row16(unsafe { _mm512_loadu_ps(row.as_ptr().cast()) })
    }

    /// Four rows of lanes given by their bits (a colour's channels).
    #[inline(always)]
    pub fn load_rows_bits(cpu: Avx512, rows: &[[u32; 16]; 4]) -> [Row16; 4] {
        // (no `map`: its closure may stay out of line, outside the
        // AVX-512 code this is inlined into)
        [
            Row16::load_bits(cpu, &rows[0]),
            Row16::load_bits(cpu, &rows[1]),
            Row16::load_bits(cpu, &rows[2]),
            Row16::load_bits(cpu, &rows[3]),
        ]
    }

    /// The lanes' bits.
    #[inline(always)]
    pub fn to_bits(self) -> [u32; 16] {
        let mut out = [0u32; 16];
        // SAFETY: a Row16 exists only where the CPU has AVX-512F; `out` is
        // 64 writable bytes (an unaligned store).
        unsafe { _mm512_storeu_ps(out.as_mut_ptr().cast(), self.0) };
        out
    }

    /// `v` in every lane.
    #[inline(always)]
    pub fn splat(self, v: f32) -> Row16 {
        // SAFETY: `self` exists only where the CPU has AVX-512F.
        Row16(unsafe { _mm512_set1_ps(v) })
    }

    /// Per lane `o` where it is below `self` or `self` is NaN, else `self`
    /// (so the number where one is NaN, and `self` where they are equal:
    /// -0 and +0 included).
    #[inline(always)]
    pub fn min_num(self, o: Row16) -> Row16 {
        // SAFETY: `self` exists only where the CPU has AVX-512F. MINPS
        // gives its second operand (`self`) unless the first is below it.
        self.or_where_nan(unsafe { _mm512_min_ps(o.0, self.0) }, o.0)
    }

    /// Per lane `o` where it is above `self` or `self` is NaN, else `self`.
    #[inline(always)]
    pub fn max_num(self, o: Row16) -> Row16 {
        // SAFETY: as in `min_num`, with MAXPS.
        self.or_where_nan(unsafe { _mm512_max_ps(o.0, self.0) }, o.0)
    }

    /// `v` in the lanes that hold a NaN, the others kept.
    #[inline(always)]
    pub fn nan_as(self, v: f32) -> Row16 {
        // SAFETY: `self` exists only where the CPU has AVX-512F.
        self.or_where_nan(self.0, unsafe { _mm512_set1_ps(v) })
    }

    /// `value`, with `nan_lanes` in the lanes where `self` is NaN.
    #[inline(always)]
    fn or_where_nan(self, value: __m512, nan_lanes: __m512) -> Row16 {
        // SAFETY: `self` exists only where the CPU has AVX-512F.
        unsafe {
            let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(self.0, self.0);
            Row16(_mm512_mask_blend_ps(nan, value, nan_lanes))
        }
    }

    /// `f32::clamp(lo, hi)` per lane (a NaN stays; -0 stays -0 at lo 0).
    #[inline(always)]
    pub fn clamp(self, lo: f32, hi: f32) -> Row16 {
        // SAFETY: `self` exists only where the CPU has AVX-512F. MAXPS and
        // MINPS give their second operand (the lane) where it is NaN or
        // equal to the bound, as `f32::clamp` keeps it.
        unsafe {
            let v = _mm512_max_ps(_mm512_set1_ps(lo), self.0);
            Row16(_mm512_min_ps(_mm512_set1_ps(hi), v))
        }
    }
}

/// Lane by lane `+`, `-` and `*` (one IEEE operation each).
macro_rules! lanewise {
    ($($op:ident $f:ident $intrinsic:ident;)+) => {$(
        impl std::ops::$op for Row16 {
            type Output = Row16;

            #[inline(always)]
            fn $f(self, o: Row16) -> Row16 {
                // SAFETY: `self` exists only where the CPU has AVX-512F.
                Row16(unsafe { $intrinsic(self.0, o.0) })
            }
        }
    )+};
}

lanewise! {
    Add add _mm512_add_ps;
    Sub sub _mm512_sub_ps;
    Mul mul _mm512_mul_ps;
}

/// 16 RGBA8 texels in a register, one little-endian word per lane (made
/// from [`Row16`] channel rows by [`Row16::rgba8_texels`]).
#[derive(Clone, Copy)]
pub struct Texels16(__m512i);

impl Row16 {
    /// The channel rows of 16 RGBA8 texels given as eight pairs of
    /// neighbours (`pairs[p]`: lanes 2p and 2p + 1): the colour channels
    /// through `srgb`'s table where it is given, the others as UNORM8 —
    /// the bits of `simd::rgba8_decode_pairs`.
    #[inline(always)]
    pub fn rgba8_decode_pairs(
        _: Avx512,
        pairs: [&[u8; 8]; 8],
        srgb: Option<&[f32; 256]>,
    ) -> [Row16; 4] {
        // SAFETY: the proof says the CPU has AVX-512 F/DQ/BW/VL, all that
        // the called functions are compiled for.
        let [r, g, b, a] = unsafe {
            let w = super::imp::rgba8_pair_words(pairs);
            super::imp::rgba8_decode_channels(w, srgb)
        };
        [Row16(r), Row16(g), Row16(b), Row16(a)]
    }

    /// The RGBA8 texels of four channel rows: UNORM8 codes, or for the
    /// colour channels the step codes of `steps` (an sRGB target's step
    /// entries) — the bits of `simd::unorm8_texels` / `srgb8_texels`.
    #[inline(always)]
    pub fn rgba8_texels(rows: [Row16; 4], steps: Option<&[u32; super::STEP_TOPS]>) -> Texels16 {
        let [r, g, b, a] = rows;
        // SAFETY: a Row16 exists only where the CPU has AVX-512 F/DQ/BW/VL,
        // all that the called function is compiled for.
        Texels16(unsafe {
            super::imp::rgba8_texel_words(
                [
                    _mm512_castps_si512(r.0),
                    _mm512_castps_si512(g.0),
                    _mm512_castps_si512(b.0),
                    _mm512_castps_si512(a.0),
                ],
                steps,
            )
        })
    }
}

impl Row16 {
    /// The channel rows of 16 RGBA16F texels given as eight pairs of
    /// neighbours (`pairs[p]`: lanes 2p and 2p + 1) — the bits of
    /// `simd::rgba16f_decode_pairs`.
    #[inline(always)]
    pub fn rgba16f_decode_pairs(_: Avx512, pairs: [&[u8; 16]; 8]) -> [Row16; 4] {
        // SAFETY: the proof says the CPU has AVX-512 F/DQ/BW/VL, all that
        // the called functions are compiled for.
        let [r, g, b, a] = unsafe {
            let [lo, hi] = super::imp::rgba16f_pair_halves(pairs);
            super::imp::rgba16f_channels(lo, hi)
        };
        [Row16(r), Row16(g), Row16(b), Row16(a)]
    }

    /// The RGBA16F texels of four channel rows (round to nearest even) as
    /// eight pairs of neighbours (pair p: lanes 2p and 2p + 1, 16 bytes) —
    /// the bits of `simd::rgba16f_encode`.
    #[inline(always)]
    pub fn rgba16f_texel_pairs(rows: [Row16; 4]) -> [[u8; 16]; 8] {
        let [r, g, b, a] = rows;
        let mut out = [[0u8; 16]; 8];
        let bytes = out.as_flattened_mut();
        // SAFETY: a Row16 exists only where the CPU has AVX-512 F/DQ/BW/VL,
        // all that the called function needs; `bytes` is 128 writable
        // bytes (two unaligned stores).
        unsafe {
            let [lo, hi] = super::imp::rgba16f_texel_halves([r.0, g.0, b.0, a.0]);
            _mm512_storeu_si512(bytes.as_mut_ptr().cast(), lo);
            _mm512_storeu_si512(bytes[64..].as_mut_ptr().cast(), hi);
        }
        out
    }
}

impl Texels16 {
    /// The texels as eight pairs of neighbours (pair p: lanes 2p and
    /// 2p + 1, 8 bytes).
    #[inline(always)]
    pub fn pairs(self) -> [[u8; 8]; 8] {
        let mut out = [[0u8; 8]; 8];
        // SAFETY: a Texels16 exists only where the CPU has AVX-512F; `out`
        // is 64 writable bytes (an unaligned store).
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), self.0) };
        out
    }
}
