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
