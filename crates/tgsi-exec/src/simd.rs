//! The interpreter's one module with `unsafe`, behind a safe API: work
//! built a second time for AVX-512 (F/DQ/BW/VL) and chosen at run time.
//!
//! * The row kernels of `math.rs` (SIN, COS, EX2, LG2, POW over 16-lane
//!   rows): each function runs the wide build and returns true, or returns
//!   false without running anything on a CPU without AVX-512 (and on other
//!   architectures), and the caller runs the portable build.
//! * [`wide`]: any [`Kernel`] (the texture engine's batch lookups) inlined
//!   into a function compiled for AVX-512, or run as it is without it.
//! * Hand-written intrinsics, each the same steps as a portable path that
//!   runs where the CPU lacks AVX-512: [`step_codes`] and [`srgb8_texels`]
//!   (an RGBA8 sRGB target's codes by one table lookup per colour row, a whole
//!   batch's texels packed), [`rgba8_bilinear`] (one level's bilinear RGBA8
//!   lookups with the coordinates, indices and lerps in registers), and the
//!   rasterizer's tile kernels [`tile_cover`] and [`depth_tile`] (one
//!   sample per pixel: a 4x4 tile's coverage by the stepped edge functions
//!   as a lane mask, its early D32_FLOAT depth test on the tile's rows),
//!   and [`perspective_inputs`] (a batch's perspective fragment inputs
//!   from one primitive's planes, 16 lanes in two registers of f64).
//! * [`Row16`] (`simd/row16.rs`): 16 f32 lanes in a register, made only
//!   with an [`Avx512`] proof, for code written once over a row type (the
//!   pipeline's blending) and run through [`wide`].
//! * [`AlignedRegs`]: a batch's registers on 64-byte boundaries (a row's
//!   wide access never straddles two cache lines).
//! * [`prefetch`]: a cache hint (the rasterizer's vertex projection reads
//!   the vertices a few ahead).
//!
//! The first two are the same Rust source in both builds, inlined into a
//! function compiled with more target features: every operation is an
//! IEEE operation or an explicit fused multiply-add (`mul_add`), which give
//! the same bits at any vector width, and Rust never contracts or reorders
//! floating-point operations on its own, so the results are bit-identical;
//! the test below checks the row kernels on 2^22 inputs of every class
//! (`tgsi bench ulp` on every f32 input). The hand-written kernels take the
//! portable steps' operations in the portable order (IEEE add, multiply,
//! divide, floor, conversions; MAXPS/MINPS where `f32::clamp` keeps a NaN)
//! and are tested against them: the texture tests the bilinear lookups
//! against the per-lane path, the format tests the sRGB texels against the
//! one-texel encoder, the rasterizer's tests the tile kernels against the
//! per-sample edge tests and the per-lane depth test, the interpolation
//! test the perspective inputs against their lane-by-lane steps.

/// A row of 16 lanes (raw f32 bits).
type Row = [u32; 16];

#[cfg(target_arch = "x86_64")]
#[path = "simd/row16.rs"]
mod row16;
#[cfg(target_arch = "x86_64")]
pub use row16::{Row16, Texels16};

#[path = "simd/depth4.rs"]
mod depth4;
pub use depth4::depth_tile_4x;
#[path = "simd/transpose.rs"]
mod transpose;
pub use transpose::{lanes_to_rows, rows_to_lanes, rows_to_strided, strided_to_rows};
#[path = "simd/aligned.rs"]
mod aligned;
pub use aligned::AlignedRegs;
#[path = "simd/planes.rs"]
mod planes;
pub use planes::{PerspectiveInput, perspective_inputs};
#[path = "simd/scatter.rs"]
mod scatter;
pub use scatter::scatter_texels;

/// Proof that this CPU runs the AVX-512 builds (F/DQ/BW/VL): made only by
/// [`Avx512::detect`], it lets code make [`Row16`] values.
#[derive(Clone, Copy, Debug)]
pub struct Avx512(());

impl Avx512 {
    /// The proof, where the CPU has AVX-512 (never on other
    /// architectures).
    #[inline]
    pub fn detect() -> Option<Avx512> {
        imp::available().then_some(Avx512(()))
    }
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::super as math;
    use super::Row;
    use std::sync::atomic::{AtomicU8, Ordering};

    /// What [`available`] found (0: not checked yet, 1: no, 2: yes).
    static STATE: AtomicU8 = AtomicU8::new(0);

    /// Whether this CPU runs the AVX-512 builds, checked once; inlined into
    /// every row function (one load and compare per row).
    #[inline(always)]
    pub fn available() -> bool {
        match STATE.load(Ordering::Relaxed) {
            0 => detect(),
            s => s == 2,
        }
    }

    /// The first [`available`]: asks the CPU and records the answer.
    #[cold]
    #[inline(never)]
    fn detect() -> bool {
        let yes = is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl");
        STATE.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
        yes
    }

    /// `$call`, a call of a function compiled for AVX-512 F/DQ/BW/VL, run
    /// when [`available`] (true), or false without running it.
    macro_rules! if_available {
        ($call:expr) => {{
            if available() {
                // SAFETY: the called function needs only the CPU features it
                // is compiled for, and `available()` has confirmed this CPU
                // has them.
                unsafe { $call };
                true
            } else {
                false
            }
        }};
    }

    /// Declares `pub fn NAME(args) -> bool`, running `PORTABLE(args)` compiled
    /// for AVX-512 (`WIDE`) when [`available`].
    macro_rules! wide {
        ($($name:ident / $wide:ident = $portable:path, ($($a:ident: $t:ty),+), $out:ident;)+) => {$(
            #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
            fn $wide($($a: $t),+, $out: &mut Row) {
                $portable($($a),+, $out)
            }

            #[inline]
            pub fn $name($($a: $t),+, $out: &mut Row) -> bool {
                if_available!($wide($($a),+, $out))
            }
        )+};
    }

    wide! {
        sin / sin_wide = math::sin_lanes_portable, (x: &Row), out;
        cos / cos_wide = math::cos_lanes_portable, (x: &Row), out;
        ex2 / ex2_wide = math::ex2_lanes_portable, (x: &Row), out;
        lg2 / lg2_wide = math::lg2_lanes_portable, (x: &Row), out;
        pow / pow_wide = math::pow_lanes_portable, (x: &Row, y: &Row), out;
    }

    /// Declares `pub fn NAME(x: &[Row], out: &mut [Row]) -> bool`: `PORTABLE`
    /// on each row (as many as the shorter slice has), the loop compiled for
    /// AVX-512 (`WIDE`) when [`available`].
    macro_rules! wide_rows {
        ($($name:ident / $wide:ident = $portable:path;)+) => {$(
            #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
            fn $wide(x: &[Row], out: &mut [Row]) {
                for (a, o) in x.iter().zip(out) {
                    $portable(a, o)
                }
            }

            #[inline]
            pub fn $name(x: &[Row], out: &mut [Row]) -> bool {
                if_available!($wide(x, out))
            }
        )+};
    }

    wide_rows! {
        sin_rows / sin_rows_wide = math::sin_lanes_portable;
        cos_rows / cos_rows_wide = math::cos_lanes_portable;
    }

    /// [`super::wide`]: the kernel inlined into a function compiled for
    /// AVX-512.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn wide_call<K: super::Kernel>(k: K) -> K::Out {
        k.run()
    }

    /// [`super::wide`].
    #[inline(always)]
    pub fn wide<K: super::Kernel>(k: K) -> K::Out {
        if !available() {
            return k.run();
        }
        // SAFETY: as in `wide!`: the CPU has the features `wide_call` is
        // compiled for.
        unsafe { wide_call(k) }
    }

    /// The step codes of one row of f32 bits (see [`super::step_codes`]).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn step_code_row(
        v: std::arch::x86_64::__m512i,
        entries: &[u32; super::STEP_TOPS],
    ) -> std::arch::x86_64::__m512i {
        use std::arch::x86_64::*;
        let one = _mm512_set1_epi32(1.0f32.to_bits() as i32);
        // positive, not zero, not NaN: bits − 1 below +inf's (unsigned)
        let in_range = _mm512_cmplt_epu32_mask(
            _mm512_sub_epi32(v, _mm512_set1_epi32(1)),
            _mm512_set1_epi32(f32::INFINITY.to_bits() as i32),
        );
        // at most 1.0; 0 (code 0) elsewhere
        let bits = _mm512_maskz_min_epu32(in_range, v, one);
        let top = _mm512_srli_epi32::<16>(bits);
        // SAFETY: `top` is at most 1.0's top half, 0x3f80, and `entries`
        // has STEP_TOPS = 0x3f81 words: every read is inside it.
        let entry = unsafe { gather_words(top, entries.as_ptr().cast()) };
        let first = _mm512_and_si512(entry, _mm512_set1_epi32(0xff));
        // the step inside this value of the top bits, if any, passed when
        // the low halves are at or above its low half
        let has_step = _mm512_test_epi32_mask(entry, _mm512_set1_epi32(0x100));
        let low = _mm512_and_si512(bits, _mm512_set1_epi32(0xffff));
        let passed = _mm512_mask_cmpge_epu32_mask(has_step, low, _mm512_srli_epi32::<16>(entry));
        _mm512_mask_add_epi32(first, passed, first, _mm512_set1_epi32(1))
    }

    /// [`super::step_codes`] with one table lookup per row.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn step_codes_wide(x: &Row, entries: &[u32; super::STEP_TOPS], out: &mut Row) {
        use std::arch::x86_64::*;
        // SAFETY: `x` is 64 readable bytes (an unaligned load).
        let v = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
        let code = step_code_row(v, entries);
        // SAFETY: `out` is 64 writable bytes (an unaligned store).
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), code) };
    }

    /// The UNORM8 codes of one row of f32 bits: clamped to [0, 1] (NaN to
    /// 0), then 255·a + 1.5·2^23 in one fused multiply-add: the exact sum
    /// rounded once, and with the sum in [2^23, 2^24) a unit in the last
    /// place is 1, so that rounding takes 255·a to the nearest integer,
    /// ties to even, in the low bits: the portable path's code (the exact
    /// product in f64 rounded the same way), on one register instead of two.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn unorm8_code_row(v: std::arch::x86_64::__m512i) -> std::arch::x86_64::__m512i {
        use std::arch::x86_64::*;
        let a = _mm512_min_ps(
            _mm512_max_ps(_mm512_castsi512_ps(v), _mm512_setzero_ps()),
            _mm512_set1_ps(1.0),
        );
        const MAGIC: f32 = 12_582_912.0; // 1.5·2^23
        let sum = _mm512_fmadd_ps(a, _mm512_set1_ps(255.0), _mm512_set1_ps(MAGIC));
        _mm512_sub_epi32(
            _mm512_castps_si512(sum),
            _mm512_set1_epi32(MAGIC.to_bits() as i32),
        )
    }

    /// [`super::unorm8_texels`]: the four rows' UNORM8 codes, packed.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn unorm8_texels_wide(rows: &[Row; 4], out: &mut Row) {
        use std::arch::x86_64::*;
        // SAFETY: each row is 64 readable bytes (unaligned loads).
        let v = rows
            .each_ref()
            .map(|r| unsafe { _mm512_loadu_si512(r.as_ptr().cast()) });
        let word = rgba8_texel_words(v, None);
        // SAFETY: `out` is 64 writable bytes (an unaligned store).
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), word) };
    }

    /// [`super::unorm8_texels`]: false (nothing written) without AVX-512.
    #[inline]
    pub fn unorm8_texels(rows: &[Row; 4], out: &mut Row) -> bool {
        if_available!(unorm8_texels_wide(rows, out))
    }

    /// [`super::srgb8_texels`]: the three colour rows' step codes (their
    /// gathers side by side) and alpha's UNORM8 code, packed.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn srgb8_texels_wide(rows: &[Row; 4], entries: &[u32; super::STEP_TOPS], out: &mut Row) {
        use std::arch::x86_64::*;
        // SAFETY: each row is 64 readable bytes (unaligned loads).
        let v = rows
            .each_ref()
            .map(|r| unsafe { _mm512_loadu_si512(r.as_ptr().cast()) });
        let word = rgba8_texel_words(v, Some(entries));
        // SAFETY: `out` is 64 writable bytes (an unaligned store).
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), word) };
    }

    /// [`super::srgb8_texels`]: false (nothing written) without AVX-512.
    #[inline]
    pub fn srgb8_texels(rows: &[Row; 4], entries: &[u32; super::STEP_TOPS], out: &mut Row) -> bool {
        if_available!(srgb8_texels_wide(rows, entries, out))
    }

    /// [`super::rgba8_decode`]: each channel's bytes, through `srgb`'s
    /// table by a gather (colour channels) or divided by 255.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn rgba8_decode_wide(texels: &Row, srgb: Option<&[f32; 256]>, out: &mut [[f32; 16]; 4]) {
        use std::arch::x86_64::*;
        // SAFETY: `texels` is 64 readable bytes (an unaligned load).
        let w = unsafe { _mm512_loadu_si512(texels.as_ptr().cast()) };
        rgba8_decode_words(w, srgb, out)
    }

    /// [`super::rgba8_decode_pairs`]: the eight pairs loaded one by one
    /// (each a load of the bytes as they were stored) into one register.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn rgba8_decode_pairs_wide(
        pairs: [&[u8; 8]; 8],
        srgb: Option<&[f32; 256]>,
        out: &mut [[f32; 16]; 4],
    ) {
        rgba8_decode_words(rgba8_pair_words(pairs), srgb, out)
    }

    /// 16 RGBA8 texels given as eight pairs of neighbours (`pairs[p]`:
    /// lanes 2p and 2p + 1) as words in a register, each pair loaded as
    /// it was stored.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) fn rgba8_pair_words(pairs: [&[u8; 8]; 8]) -> std::arch::x86_64::__m512i {
        use std::arch::x86_64::*;
        let q = |i: usize| i64::from_le_bytes(*pairs[i]);
        _mm512_setr_epi64(q(0), q(1), q(2), q(3), q(4), q(5), q(6), q(7))
    }

    /// [`super::rgba8_decode_pairs`]: false (nothing written) without
    /// AVX-512.
    #[inline]
    pub fn rgba8_decode_pairs(
        pairs: [&[u8; 8]; 8],
        srgb: Option<&[f32; 256]>,
        out: &mut [[f32; 16]; 4],
    ) -> bool {
        if_available!(rgba8_decode_pairs_wide(pairs, srgb, out))
    }

    /// The 16 words at `base + 4 * index[l]`, by two 8-lane gathers.
    /// (A 16-lane gather takes its lane mask in a mask register that the
    /// compiler fills with `kxnorw` from whatever mask register it picks:
    /// where a compare wrote that register from the last gather's result,
    /// each gather waited for the one before it, two to three times
    /// slower on an AMD Zen 5; the 8-lane form's all-ones vector mask
    /// depends on nothing.)
    ///
    /// # Safety
    ///
    /// The CPU has the features enabled here, and every
    /// `base + 4 * index[l]` (index signed) is 4 readable bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) unsafe fn gather_words(
        index: std::arch::x86_64::__m512i,
        base: *const i32,
    ) -> std::arch::x86_64::__m512i {
        use std::arch::x86_64::*;
        // SAFETY: the caller's promise, for each half's eight lanes.
        let (lo, hi) = unsafe {
            (
                _mm256_i32gather_epi32::<4>(base, _mm512_castsi512_si256(index)),
                _mm256_i32gather_epi32::<4>(base, _mm512_extracti64x4_epi64::<1>(index)),
            )
        };
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
    }

    /// [`gather_words`] of a table of floats.
    ///
    /// # Safety
    ///
    /// As [`gather_words`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) unsafe fn gather_floats(
        index: std::arch::x86_64::__m512i,
        table: *const f32,
    ) -> std::arch::x86_64::__m512 {
        use std::arch::x86_64::*;
        // SAFETY: the caller's promise.
        _mm512_castsi512_ps(unsafe { gather_words(index, table.cast()) })
    }

    /// `byte / 255` of each lane's byte (0-255), rounded once, as the
    /// UNORM8 decode gives it (`texture::bilinear::unorm8`: a multiply by
    /// the reciprocal corrected by two fused multiply-adds, exact for every
    /// byte; no division).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) fn unorm8_row(byte: std::arch::x86_64::__m512i) -> std::arch::x86_64::__m512 {
        use std::arch::x86_64::*;
        let v = _mm512_cvtepi32_ps(byte);
        let r = _mm512_set1_ps(1.0 / 255.0);
        let q = _mm512_mul_ps(v, r);
        let e = _mm512_fmadd_ps(
            _mm512_xor_ps(q, _mm512_set1_ps(-0.0)),
            _mm512_set1_ps(255.0),
            v,
        );
        _mm512_fmadd_ps(e, r, q)
    }

    /// The decode of 16 RGBA8 texels held as words in `w`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn rgba8_decode_words(
        w: std::arch::x86_64::__m512i,
        srgb: Option<&[f32; 256]>,
        out: &mut [[f32; 16]; 4],
    ) {
        use std::arch::x86_64::*;
        let channels = rgba8_decode_channels(w, srgb);
        for (row, v) in out.iter_mut().zip(channels) {
            // SAFETY: `row` is 64 writable bytes (an unaligned store).
            unsafe { _mm512_storeu_ps(row.as_mut_ptr(), v) };
        }
    }

    /// The channel rows of 16 RGBA8 texels held as words in `w`: each
    /// channel's bytes through `srgb`'s table by a gather (colour
    /// channels) or as UNORM8 ([`unorm8_row`]).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) fn rgba8_decode_channels(
        w: std::arch::x86_64::__m512i,
        srgb: Option<&[f32; 256]>,
    ) -> [std::arch::x86_64::__m512; 4] {
        use std::arch::x86_64::*;
        let channel = |c: i32| {
            let shift = _mm512_set1_epi32(8 * c);
            let byte = _mm512_and_si512(_mm512_srlv_epi32(w, shift), _mm512_set1_epi32(0xff));
            match srgb {
                // SAFETY: each index is a byte, and the table has 256 entries.
                Some(table) if c < 3 => unsafe { gather_floats(byte, table.as_ptr()) },
                _ => unorm8_row(byte),
            }
        };
        [channel(0), channel(1), channel(2), channel(3)]
    }

    /// The RGBA8 texels (one little-endian word per lane) of four channel
    /// rows: UNORM8 codes ([`unorm8_code_row`]), or for the colour
    /// channels the step codes of `steps` ([`step_code_row`]), packed
    /// r | g << 8 | b << 16 | a << 24.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) fn rgba8_texel_words(
        v: [std::arch::x86_64::__m512i; 4],
        steps: Option<&[u32; super::STEP_TOPS]>,
    ) -> std::arch::x86_64::__m512i {
        use std::arch::x86_64::*;
        let [r, g, b] = match steps {
            Some(entries) => [
                step_code_row(v[0], entries),
                step_code_row(v[1], entries),
                step_code_row(v[2], entries),
            ],
            None => [
                unorm8_code_row(v[0]),
                unorm8_code_row(v[1]),
                unorm8_code_row(v[2]),
            ],
        };
        let a = unorm8_code_row(v[3]);
        _mm512_or_si512(
            _mm512_or_si512(r, _mm512_slli_epi32::<8>(g)),
            _mm512_or_si512(_mm512_slli_epi32::<16>(b), _mm512_slli_epi32::<24>(a)),
        )
    }

    /// [`super::rgba8_decode`]: false (nothing written) without AVX-512.
    #[inline]
    pub fn rgba8_decode(texels: &Row, srgb: Option<&[f32; 256]>, out: &mut [[f32; 16]; 4]) -> bool {
        if_available!(rgba8_decode_wide(texels, srgb, out))
    }

    /// Word indices of two channels' rows among 16 RGBA16F texels held
    /// in two registers (texel j's channel c is word 4j + c of the pair):
    /// channel `c0` of texels 0..15, then channel `c1`.
    const fn channel_words(c0: u16, c1: u16) -> [u16; 32] {
        let mut w = [0u16; 32];
        let mut j = 0;
        while j < 16 {
            w[j] = 4 * j as u16 + c0;
            w[16 + j] = 4 * j as u16 + c1;
            j += 1;
        }
        w
    }

    /// Word indices of texels `first..first + 8` (four words each: r g b a)
    /// among the rows r | g (words 0..31) and b | a (words 32..63).
    const fn texel_words(first: u16) -> [u16; 32] {
        let mut w = [0u16; 32];
        let mut k = 0;
        while k < 32 {
            let (j, c) = (first + k as u16 / 4, k as u16 % 4);
            w[k] = 16 * c + j;
            k += 1;
        }
        w
    }

    static RG_WORDS: [u16; 32] = channel_words(0, 1);
    static BA_WORDS: [u16; 32] = channel_words(2, 3);
    static LOW_TEXELS: [u16; 32] = texel_words(0);
    static HIGH_TEXELS: [u16; 32] = texel_words(8);

    /// [`super::rgba16f_decode`]: the halves regrouped by channel with two
    /// word permutes, then converted.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn rgba16f_decode_wide(texels: &[[u8; 8]; 16], out: &mut [[f32; 16]; 4]) {
        use std::arch::x86_64::*;
        let bytes = texels.as_flattened();
        // SAFETY: `bytes` is 128 readable bytes, two unaligned 64-byte
        // loads.
        let (lo, hi) = unsafe {
            (
                _mm512_loadu_si512(bytes.as_ptr().cast()),
                _mm512_loadu_si512(bytes[64..].as_ptr().cast()),
            )
        };
        rgba16f_decode_halves(lo, hi, out)
    }

    /// [`super::rgba16f_decode_pairs`]: the eight pairs loaded one by one
    /// (each a load of the bytes as they were stored) into two registers.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn rgba16f_decode_pairs_wide(pairs: [&[u8; 16]; 8], out: &mut [[f32; 16]; 4]) {
        let [lo, hi] = rgba16f_pair_halves(pairs);
        rgba16f_decode_halves(lo, hi, out)
    }

    /// 16 RGBA16F texels given as eight pairs of neighbours (`pairs[p]`:
    /// lanes 2p and 2p + 1) in two registers (texels 0-7, then 8-15),
    /// each pair loaded as it was stored.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) fn rgba16f_pair_halves(pairs: [&[u8; 16]; 8]) -> [std::arch::x86_64::__m512i; 2] {
        use std::arch::x86_64::*;
        // SAFETY: each pair is 16 readable bytes (an unaligned load).
        let pair = |i: usize| unsafe { _mm_loadu_si128(pairs[i].as_ptr().cast()) };
        let four = |i: usize| {
            let a = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(pair(i)), pair(i + 1));
            let b = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(pair(i + 2)), pair(i + 3));
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(a), b)
        };
        [four(0), four(4)]
    }

    /// [`super::rgba16f_decode_pairs`]: false (nothing written) without
    /// AVX-512.
    #[inline]
    pub fn rgba16f_decode_pairs(pairs: [&[u8; 16]; 8], out: &mut [[f32; 16]; 4]) -> bool {
        if_available!(rgba16f_decode_pairs_wide(pairs, out))
    }

    /// The decode of 16 RGBA16F texels held in two registers (texels 0-7
    /// in `lo`, 8-15 in `hi`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn rgba16f_decode_halves(
        lo: std::arch::x86_64::__m512i,
        hi: std::arch::x86_64::__m512i,
        out: &mut [[f32; 16]; 4],
    ) {
        use std::arch::x86_64::*;
        for (row, v) in out.iter_mut().zip(rgba16f_channels(lo, hi)) {
            // SAFETY: `row` is 64 writable bytes (an unaligned store).
            unsafe { _mm512_storeu_ps(row.as_mut_ptr(), v) };
        }
    }

    /// The channel rows of 16 RGBA16F texels held in two registers
    /// (texels 0-7 in `lo`, 8-15 in `hi`): the halves regrouped by channel
    /// with two word permutes, then converted.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) fn rgba16f_channels(
        lo: std::arch::x86_64::__m512i,
        hi: std::arch::x86_64::__m512i,
    ) -> [std::arch::x86_64::__m512; 4] {
        use std::arch::x86_64::*;
        // SAFETY: each table is 64 readable bytes.
        let (rg, ba) = unsafe {
            (
                _mm512_loadu_si512(RG_WORDS.as_ptr().cast()),
                _mm512_loadu_si512(BA_WORDS.as_ptr().cast()),
            )
        };
        let rg = _mm512_permutex2var_epi16(lo, rg, hi);
        let ba = _mm512_permutex2var_epi16(lo, ba, hi);
        [
            _mm512_cvtph_ps(_mm512_castsi512_si256(rg)),
            _mm512_cvtph_ps(_mm512_extracti64x4_epi64::<1>(rg)),
            _mm512_cvtph_ps(_mm512_castsi512_si256(ba)),
            _mm512_cvtph_ps(_mm512_extracti64x4_epi64::<1>(ba)),
        ]
    }

    /// The two registers of 16 RGBA16F texels (texels 0-7, then 8-15) of
    /// four channel rows: each converted (round to nearest even), the
    /// halves regrouped by texel with two word permutes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) fn rgba16f_texel_halves(
        v: [std::arch::x86_64::__m512; 4],
    ) -> [std::arch::x86_64::__m512i; 2] {
        use std::arch::x86_64::*;
        const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
        let h = [
            _mm512_cvtps_ph::<NEAREST>(v[0]),
            _mm512_cvtps_ph::<NEAREST>(v[1]),
            _mm512_cvtps_ph::<NEAREST>(v[2]),
            _mm512_cvtps_ph::<NEAREST>(v[3]),
        ];
        let rg = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(h[0]), h[1]);
        let ba = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(h[2]), h[3]);
        // SAFETY: each table is 64 readable bytes.
        let (low, high) = unsafe {
            (
                _mm512_loadu_si512(LOW_TEXELS.as_ptr().cast()),
                _mm512_loadu_si512(HIGH_TEXELS.as_ptr().cast()),
            )
        };
        [
            _mm512_permutex2var_epi16(rg, low, ba),
            _mm512_permutex2var_epi16(rg, high, ba),
        ]
    }

    /// [`super::rgba16f_decode`]: false (nothing written) without AVX-512.
    #[inline]
    pub fn rgba16f_decode(texels: &[[u8; 8]; 16], out: &mut [[f32; 16]; 4]) -> bool {
        if_available!(rgba16f_decode_wide(texels, out))
    }

    /// [`super::rgba16f_encode`]: each row converted (round to nearest
    /// even), the halves regrouped by texel with two word permutes.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn rgba16f_encode_wide(rows: &[Row; 4], out: &mut [[u8; 8]; 16]) {
        use std::arch::x86_64::*;
        // SAFETY: each row is 64 readable bytes (unaligned loads).
        let v = rows
            .each_ref()
            .map(|r| unsafe { _mm512_loadu_ps(r.as_ptr().cast()) });
        let [lo, hi] = rgba16f_texel_halves(v);
        let bytes = out.as_flattened_mut();
        // SAFETY: `bytes` is 128 writable bytes, two unaligned stores.
        unsafe {
            _mm512_storeu_si512(bytes.as_mut_ptr().cast(), lo);
            _mm512_storeu_si512(bytes[64..].as_mut_ptr().cast(), hi);
        }
    }

    /// [`super::rgba16f_encode`]: false (nothing written) without AVX-512.
    #[inline]
    pub fn rgba16f_encode(rows: &[Row; 4], out: &mut [[u8; 8]; 16]) -> bool {
        if_available!(rgba16f_encode_wide(rows, out))
    }

    /// [`super::step_codes`]: false (nothing written) without AVX-512.
    #[inline]
    pub fn step_codes(x: &Row, entries: &[u32; super::STEP_TOPS], out: &mut Row) -> bool {
        if_available!(step_codes_wide(x, entries, out))
    }

    /// [`super::rgba8_bilinear`] once its input is checked.
    #[inline]
    pub fn rgba8_bilinear(
        k: &super::Rgba8Bilinear,
        coord: [&Row; 2],
        offset: [&Row; 2],
        out: &mut [[f32; 16]; 4],
    ) -> bool {
        if_available!(super::bilinear::run(k, coord, offset, out))
    }
}

#[cfg(target_arch = "x86_64")]
mod bilinear {
    use super::{AxisWrap, Rgba8Bilinear, Row};
    use std::arch::x86_64::*;

    /// Two 16-lane f32 rows `x + a * (y - x)` (not fused), `x` where `a` is 0.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn lerp(x: __m512, y: __m512, a: __m512) -> __m512 {
        let r = _mm512_add_ps(x, _mm512_mul_ps(a, _mm512_sub_ps(y, x)));
        let zero = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(a, _mm512_setzero_ps());
        _mm512_mask_blend_ps(zero, r, x)
    }

    /// NaN to +0, then clamped to ±2^24 (the sample core's `sanitize`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn sanitize(u: __m512) -> __m512 {
        let limit = 16_777_216.0f32;
        let ordered = _mm512_cmp_ps_mask::<_CMP_ORD_Q>(u, u);
        let u = _mm512_maskz_mov_ps(ordered, u);
        let u = _mm512_max_ps(u, _mm512_set1_ps(-limit));
        _mm512_min_ps(u, _mm512_set1_ps(limit))
    }

    /// One axis: the two wrapped indices and the second one's weight.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn axis(
        c: &Row,
        offset: &Row,
        n: u32,
        scale: f32,
        wrap: AxisWrap,
    ) -> (__m512i, __m512i, __m512) {
        // SAFETY: `c` and `offset` are 64 readable bytes (unaligned loads).
        let (c, off) = unsafe {
            (
                _mm512_loadu_ps(c.as_ptr().cast()),
                _mm512_loadu_si512(offset.as_ptr().cast()),
            )
        };
        let t = _mm512_mul_ps(sanitize(c), _mm512_set1_ps(scale));
        let u = sanitize(_mm512_add_ps(t, _mm512_cvtepi32_ps(off)));
        let x = _mm512_sub_ps(u, _mm512_set1_ps(0.5));
        let f = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(x);
        let w = _mm512_sub_ps(x, f);
        // f is an integer of magnitude at most 2^24
        let i0 = _mm512_cvttps_epi32(f);
        let i1 = _mm512_add_epi32(i0, _mm512_set1_epi32(1));
        let last = _mm512_set1_epi32(n as i32 - 1);
        let wrapped = |i: __m512i| match wrap {
            AxisWrap::RepeatPow2 => _mm512_and_si512(i, last),
            AxisWrap::Clamp => _mm512_min_epi32(_mm512_max_epi32(i, _mm512_setzero_si512()), last),
        };
        (wrapped(i0), wrapped(i1), w)
    }

    /// Channel `SHIFT / 8` of four taps' words, decoded and filtered.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    fn channel<const SHIFT: u32>(
        words: &[__m512i; 4],
        srgb: Option<&[f32; 256]>,
        wx: __m512,
        wy: __m512,
    ) -> __m512 {
        let byte =
            |w: __m512i| _mm512_and_si512(_mm512_srli_epi32::<SHIFT>(w), _mm512_set1_epi32(0xff));
        let decode = |w: __m512i| match srgb {
            // SAFETY: each index is a byte, and the table has 256 entries.
            Some(table) => unsafe { super::imp::gather_floats(byte(w), table.as_ptr()) },
            None => super::imp::unorm8_row(byte(w)),
        };
        let t = words.map(decode);
        let r0 = lerp(t[0], t[1], wx);
        let r1 = lerp(t[2], t[3], wx);
        lerp(r0, r1, wy)
    }

    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) fn run(
        k: &Rgba8Bilinear,
        coord: [&Row; 2],
        offset: [&Row; 2],
        out: &mut [[f32; 16]; 4],
    ) {
        let (x0, x1, wx) = axis(coord[0], offset[0], k.size[0], k.scale[0], k.wrap[0]);
        let (y0, y1, wy) = axis(coord[1], offset[1], k.size[1], k.scale[1], k.wrap[1]);
        let w = _mm512_set1_epi32(k.size[0] as i32);
        let zh = _mm512_set1_epi32(k.slice_rows as i32);
        let row0 = _mm512_mullo_epi32(_mm512_add_epi32(zh, y0), w);
        let row1 = _mm512_mullo_epi32(_mm512_add_epi32(zh, y1), w);
        let top = _mm512_set1_epi32(k.texels.len() as i32 - 1);
        let at = |i: __m512i| _mm512_min_epu32(i, top);
        let index = [
            at(_mm512_add_epi32(row0, x0)),
            at(_mm512_add_epi32(row0, x1)),
            at(_mm512_add_epi32(row1, x0)),
            at(_mm512_add_epi32(row1, x1)),
        ];
        let base = k.texels.as_ptr().cast::<i32>();
        // SAFETY: every index is at most `top`, the last texel (below 2^31,
        // so a signed 32-bit index), and each texel is 4 readable bytes.
        let words = index.map(|i| unsafe { super::imp::gather_words(i, base) });
        let rows = [
            channel::<0>(&words, k.srgb, wx, wy),
            channel::<8>(&words, k.srgb, wx, wy),
            channel::<16>(&words, k.srgb, wx, wy),
            channel::<24>(&words, None, wx, wy),
        ];
        for (o, r) in out.iter_mut().zip(rows) {
            // SAFETY: `o` is 64 writable bytes (an unaligned store).
            unsafe { _mm512_storeu_ps(o.as_mut_ptr(), r) };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod tiles {
    use super::{
        DepthCompare, DepthTile, LANE_OF_ROW, ROW_OF_LANE, TILE_DX, TILE_DX_HALVES, TILE_DY,
        TILE_DY_HALVES,
    };
    use std::arch::x86_64::*;

    /// [`super::tile_cover`]: each edge's 16 steps made in two registers
    /// of 8 from its slopes; `b` the box relative to the tile.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) fn cover(slopes: [[i64; 2]; 3], t: [i64; 3], b: [i32; 4]) -> u16 {
        // SAFETY: the tables are 64 readable bytes each.
        let (dx, dy) = unsafe {
            (
                _mm512_loadu_si512(TILE_DX.as_ptr().cast()),
                _mm512_loadu_si512(TILE_DY.as_ptr().cast()),
            )
        };
        let mut mask = _mm512_cmpge_epi32_mask(dx, _mm512_set1_epi32(b[0]))
            & _mm512_cmpge_epi32_mask(dy, _mm512_set1_epi32(b[1]))
            & _mm512_cmple_epi32_mask(dx, _mm512_set1_epi32(b[2]))
            & _mm512_cmple_epi32_mask(dy, _mm512_set1_epi32(b[3]));
        // SAFETY: the tables are 64 readable bytes each.
        let [dx_one, dx_two, dy_one] = super::LOWER_OFFSET_BITS
            .each_ref()
            .map(|m| unsafe { _mm512_loadu_si512(m.as_ptr().cast()) });
        for k in 0..3 {
            let tk = _mm512_set1_epi64(t[k]);
            let sx = _mm512_set1_epi64(slopes[k][0]);
            let sy = _mm512_set1_epi64(slopes[k][1]);
            // lanes 0..8: dx·sx + dy·sy as sx, 2·sx and sy kept where the
            // lane's offset has that bit, summed
            let lower = _mm512_add_epi64(
                _mm512_add_epi64(
                    _mm512_and_si512(sx, dx_one),
                    _mm512_and_si512(_mm512_add_epi64(sx, sx), dx_two),
                ),
                _mm512_and_si512(sy, dy_one),
            );
            // lanes 8..16 are the same lanes two rows down
            let upper = _mm512_add_epi64(lower, _mm512_add_epi64(sy, sy));
            let low = _mm512_cmpge_epi64_mask(lower, tk) as u16;
            let high = _mm512_cmpge_epi64_mask(upper, tk) as u16;
            mask &= low | high << 8;
        }
        mask
    }

    /// [`super::depth_tile`] once its cells are known to be inside `stored`.
    ///
    /// # Safety
    /// The CPU has the features the function is compiled for, and
    /// `first + 3 * pitch + 3` is below `stored.len()` and 2^31.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) unsafe fn depth(
        d: &DepthTile,
        origin: [u32; 2],
        covered: u16,
        stored: &mut [u32],
        first: usize,
        pitch: usize,
    ) -> u16 {
        // the 16 depths: f64 plane steps on two halves, rounded to f32; a
        // lane's coordinates are the origin's plus its offset, exact sums
        // of integers (adds, not conversions: those take two µops, one on
        // the shuffle port, on Intel's cores)
        let x0 = _mm512_set1_pd(f64::from(origin[0]));
        let y0 = _mm512_set1_pd(f64::from(origin[1]));
        let depth_of = |upper: usize| {
            // SAFETY: the tables are 64 readable bytes each.
            let (dx, dy) = unsafe {
                (
                    _mm512_loadu_pd(TILE_DX_HALVES[upper].as_ptr()),
                    _mm512_loadu_pd(TILE_DY_HALVES[upper].as_ptr()),
                )
            };
            let x = _mm512_add_pd(_mm512_add_pd(x0, dx), _mm512_set1_pd(d.offset[0]));
            let y = _mm512_add_pd(_mm512_add_pd(y0, dy), _mm512_set1_pd(d.offset[1]));
            // `fragment::plane64`'s fused steps
            let v = _mm512_fmadd_pd(_mm512_set1_pd(d.plane[1]), x, _mm512_set1_pd(d.plane[0]));
            let v = _mm512_fmadd_pd(_mm512_set1_pd(d.plane[2]), y, v);
            _mm512_cvtpd_ps(v)
        };
        let z = _mm512_insertf32x8::<1>(_mm512_castps256_ps512(depth_of(0)), depth_of(1));
        // clamped as f32::clamp does: NaN kept (MAXPS/MINPS return their
        // second operand when one is NaN or both are zeros)
        let z = _mm512_max_ps(_mm512_set1_ps(d.range[0]), z);
        let z = _mm512_min_ps(_mm512_set1_ps(d.range[1]), z);
        // the tile's cells row by row (row dy at positions 4 dy..4 dy + 3),
        // in lane order by one permutation, and back
        let base = stored.as_mut_ptr().wrapping_add(first);
        let row = |dy: usize| base.wrapping_add(dy * pitch);
        // SAFETY: row dy's four cells end at first + dy * pitch + 3, inside
        // `stored` (the caller's contract).
        let old = unsafe {
            let r = |dy: usize| _mm_loadu_si128(row(dy).cast_const().cast());
            let lo = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(r(0)), r(1));
            let hi = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(r(2)), r(3));
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
        };
        // SAFETY: the tables are 64 readable bytes each.
        let (to_lanes, to_rows) = unsafe {
            (
                _mm512_loadu_si512(ROW_OF_LANE.as_ptr().cast()),
                _mm512_loadu_si512(LANE_OF_ROW.as_ptr().cast()),
            )
        };
        let old = _mm512_castsi512_ps(_mm512_permutexvar_epi32(to_lanes, old));
        let pass = match d.compare {
            DepthCompare::Less => _mm512_cmp_ps_mask::<_CMP_LT_OQ>(z, old),
            DepthCompare::LessEqual => _mm512_cmp_ps_mask::<_CMP_LE_OQ>(z, old),
            DepthCompare::Greater => _mm512_cmp_ps_mask::<_CMP_GT_OQ>(z, old),
            DepthCompare::GreaterEqual => _mm512_cmp_ps_mask::<_CMP_GE_OQ>(z, old),
        };
        let ok = pass & covered;
        if d.write && ok != 0 {
            // every cell of the rows written back, the failing ones with the
            // value just read: a whole store, which a later read of the row
            // takes straight from the store (a masked store makes it wait)
            let new = _mm512_mask_blend_ps(ok, old, z);
            let new = _mm512_permutexvar_epi32(to_rows, _mm512_castps_si512(new));
            let part = |k: i32| match k {
                0 => _mm512_castsi512_si128(new),
                1 => _mm512_extracti32x4_epi32::<1>(new),
                2 => _mm512_extracti32x4_epi32::<2>(new),
                _ => _mm512_extracti32x4_epi32::<3>(new),
            };
            for dy in 0..4 {
                // SAFETY: as the loads (the caller's contract: inside
                // `stored`, which this call borrows mutably).
                unsafe { _mm_storeu_si128(row(dy).cast(), part(dy as i32)) };
            }
        }
        ok
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    use super::Row;

    pub fn available() -> bool {
        false
    }
    pub fn sin(_: &Row, _: &mut Row) -> bool {
        false
    }
    pub fn cos(_: &Row, _: &mut Row) -> bool {
        false
    }
    pub fn ex2(_: &Row, _: &mut Row) -> bool {
        false
    }
    pub fn lg2(_: &Row, _: &mut Row) -> bool {
        false
    }
    pub fn pow(_: &Row, _: &Row, _: &mut Row) -> bool {
        false
    }
    pub fn sin_rows(_: &[Row], _: &mut [Row]) -> bool {
        false
    }
    pub fn wide<K: super::Kernel>(k: K) -> K::Out {
        k.run()
    }
    pub fn step_codes(_: &Row, _: &[u32; super::STEP_TOPS], _: &mut Row) -> bool {
        false
    }
    pub fn srgb8_texels(_: &[Row; 4], _: &[u32; super::STEP_TOPS], _: &mut Row) -> bool {
        false
    }
    pub fn rgba8_bilinear(
        _: &super::Rgba8Bilinear,
        _: [&Row; 2],
        _: [&Row; 2],
        _: &mut [[f32; 16]; 4],
    ) -> bool {
        false
    }
    pub fn rgba8_decode(_: &Row, _: Option<&[f32; 256]>, _: &mut [[f32; 16]; 4]) -> bool {
        false
    }
    pub fn rgba8_decode_pairs(
        _: [&[u8; 8]; 8],
        _: Option<&[f32; 256]>,
        _: &mut [[f32; 16]; 4],
    ) -> bool {
        false
    }
    pub fn unorm8_texels(_: &[Row; 4], _: &mut Row) -> bool {
        false
    }
    pub fn rgba16f_decode(_: &[[u8; 8]; 16], _: &mut [[f32; 16]; 4]) -> bool {
        false
    }
    pub fn rgba16f_decode_pairs(_: [&[u8; 16]; 8], _: &mut [[f32; 16]; 4]) -> bool {
        false
    }
    pub fn rgba16f_encode(_: &[Row; 4], _: &mut [[u8; 8]; 16]) -> bool {
        false
    }
    pub fn cos_rows(_: &[Row], _: &mut [Row]) -> bool {
        false
    }
}

pub use imp::{available, cos, cos_rows, ex2, lg2, pow, sin, sin_rows};

/// A piece of 16-lane work that [`wide`] can build for AVX-512: `run`
/// must be `#[inline(always)]` (and what it calls, for the build to reach
/// it), so that it is compiled inside the wide function.
pub trait Kernel {
    type Out;
    fn run(self) -> Self::Out;
}

/// Runs `k`, inlined into a function compiled for AVX-512 where the CPU has
/// it: 16-lane rows then fit one register each. The same source gives the
/// same bits at any width (see above), so the caller sees no difference
/// but speed.
#[inline(always)]
pub fn wide<K: Kernel>(k: K) -> K::Out {
    imp::wide(k)
}

/// The values of the top 16 bits of the floats in [0, 1] (0 to 1.0's
/// 0x3f80): the length of a step table's entries.
pub const STEP_TOPS: usize = 0x3f81;

/// The 8-bit codes (one per lane, in the low byte of a word) of a
/// non-decreasing conversion given as step entries (`texture::format`'s
/// `CodeSteps` whose values of the top 16 bits each hold at most one
/// step): code 0 for NaN and x ≤ 0, x taken as at most 1, then the entry
/// of x's top 16 bits: its code (bits 0-7) plus one if it has a step
/// inside (bit 8) whose low 16 bits (bits 16-31) x's low 16 bits reach.
/// Returns false, writing nothing, where the CPU lacks AVX-512; the caller
/// then steps lane by lane.
pub fn step_codes(x: &Row, entries: &[u32; STEP_TOPS], out: &mut Row) -> bool {
    imp::step_codes(x, entries, out)
}

/// The RGBA8 sRGB texels (little-endian words) of 16 lanes' float channels
/// (`rows[c][l]`, raw bits): the colour channels' step codes as
/// [`step_codes`] gives them, alpha's UNORM8 code (clamped to [0, 1], NaN
/// to 0, times 255 rounded to nearest even), packed r | g << 8 | b << 16 |
/// a << 24. False, writing nothing, where the CPU lacks AVX-512.
pub fn srgb8_texels(rows: &[Row; 4], entries: &[u32; STEP_TOPS], out: &mut Row) -> bool {
    imp::srgb8_texels(rows, entries, out)
}

/// The float channels of 16 RGBA8 texels (little-endian words) as rows
/// (`out[c][l]`: channel c of texel l): the colour channels through
/// `srgb`'s table when given, every other channel `byte / 255` (rounded
/// once, without a division: see `texture::bilinear::unorm8`). False, writing nothing, where the CPU lacks AVX-512.
pub fn rgba8_decode(texels: &Row, srgb: Option<&[f32; 256]>, out: &mut [[f32; 16]; 4]) -> bool {
    imp::rgba8_decode(texels, srgb, out)
}

/// [`rgba8_decode`] of the texels of four 2x2 quads given as their rows of
/// two texels: `pairs[2q]` holds lanes 4q and 4q + 1 (quad q's top row),
/// `pairs[2q + 1]` lanes 4q + 2 and 4q + 3 (its bottom row), as a batch
/// orders its lanes. False, writing nothing, where the CPU lacks AVX-512.
pub fn rgba8_decode_pairs(
    pairs: [&[u8; 8]; 8],
    srgb: Option<&[f32; 256]>,
    out: &mut [[f32; 16]; 4],
) -> bool {
    imp::rgba8_decode_pairs(pairs, srgb, out)
}

/// The RGBA8 UNORM texels (little-endian words) of 16 lanes' float
/// channels (`rows[c][l]`, raw bits): each channel clamped to [0, 1] (NaN
/// to 0), times 255 rounded to nearest even, packed r | g << 8 | b << 16 |
/// a << 24. False, writing nothing, where the CPU lacks AVX-512.
pub fn unorm8_texels(rows: &[Row; 4], out: &mut Row) -> bool {
    imp::unorm8_texels(rows, out)
}

/// The float channels of 16 RGBA16F texels as rows (`out[c][l]`: channel
/// c of texel l; every half is exactly an f32). False, writing nothing,
/// where the CPU lacks AVX-512.
pub fn rgba16f_decode(texels: &[[u8; 8]; 16], out: &mut [[f32; 16]; 4]) -> bool {
    imp::rgba16f_decode(texels, out)
}

/// [`rgba16f_decode`] of the texels of four 2x2 quads given as their rows
/// of two texels (`pairs[2q]`: lanes 4q and 4q + 1, `pairs[2q + 1]`: lanes
/// 4q + 2 and 4q + 3). False, writing nothing, where the CPU lacks AVX-512.
pub fn rgba16f_decode_pairs(pairs: [&[u8; 16]; 8], out: &mut [[f32; 16]; 4]) -> bool {
    imp::rgba16f_decode_pairs(pairs, out)
}

/// The RGBA16F texels of 16 lanes' float channels (`rows[c][l]`, raw
/// bits): each channel rounded to the nearest half, ties to even (the
/// conversion instruction's NaN and overflow rules, which F16C also
/// applies). False, writing nothing, where the CPU lacks AVX-512.
pub fn rgba16f_encode(rows: &[Row; 4], out: &mut [[u8; 8]; 16]) -> bool {
    imp::rgba16f_encode(rows, out)
}

/// How an axis of [`Rgba8Bilinear`] wraps its texel indices.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AxisWrap {
    /// REPEAT on a power-of-two size: the index masked by size − 1.
    RepeatPow2,
    /// CLAMP / CLAMP_TO_EDGE: the index clamped to [0, size − 1].
    Clamp,
}

/// One level of a 2D RGBA8 (UNORM or sRGB) view and how a batch samples
/// it bilinearly: what the texture engine's batch path computes for one
/// level, with wraps that never read the border.
#[derive(Clone, Copy)]
pub struct Rgba8Bilinear<'a> {
    /// The level's texels; every one of them is there (the level is
    /// complete) and there are at most 2^31.
    pub texels: &'a [[u8; 4]],
    /// Width and height (each at most 2^24).
    pub size: [u32; 2],
    /// The slice's first texel row, `slice * height` (wrapping).
    pub slice_rows: u32,
    /// The coordinates' scale: the size (normalized) or 1.
    pub scale: [f32; 2],
    pub wrap: [AxisWrap; 2],
    /// The sRGB decode table of the colour channels (None: UNORM8).
    pub srgb: Option<&'a [f32; 256]>,
}

/// The bilinear lookups of the 16 lanes at coordinates `coord` (s, t as
/// f32 bits) with integer texel offsets `offset`, into the raw channel rows
/// `out` (r, g, b, a): the same f32 steps as the batch path's portable
/// code, so the same bits. False, writing nothing, where the CPU lacks
/// AVX-512 or `k` is outside what it takes (see [`Rgba8Bilinear`]).
pub fn rgba8_bilinear(
    k: &Rgba8Bilinear,
    coord: [&Row; 2],
    offset: [&Row; 2],
    out: &mut [[f32; 16]; 4],
) -> bool {
    rgba8_bilinear_fits(k) && imp::rgba8_bilinear(k, coord, offset, out)
}

/// Whether [`rgba8_bilinear`] takes `k`: some texels and at most 2^31,
/// sides of 1 to 2^24 texels, REPEAT only on powers of two.
pub fn rgba8_bilinear_fits(k: &Rgba8Bilinear) -> bool {
    !k.texels.is_empty()
        && k.texels.len() <= 1 << 31
        && k.size.iter().all(|&n| (1..=1 << 24).contains(&n))
        && (0..2).all(|a| k.wrap[a] != AxisWrap::RepeatPow2 || k.size[a].is_power_of_two())
}

/// Lane `l`'s place in a 4x4 tile's rows (`4 * dy + dx`), and the lane at
/// each place.
const ROW_OF_LANE: [i32; 16] = [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15];
const LANE_OF_ROW: [i32; 16] = [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15];

/// Lane `l`'s pixel offset in a 4x4 tile (`fragment::lane_offset`).
const TILE_DX: [i32; 16] = [0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3];
const TILE_DY: [i32; 16] = [0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3];

/// [`TILE_DX`] and [`TILE_DY`] as f64, lanes 0..8 and 8..16 (the depth
/// kernel's halves).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
static TILE_DX_HALVES: [[f64; 8]; 2] = [halves_of(&TILE_DX, 0), halves_of(&TILE_DX, 8)];
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
static TILE_DY_HALVES: [[f64; 8]; 2] = [halves_of(&TILE_DY, 0), halves_of(&TILE_DY, 8)];

/// Lanes `from..from + 8` of `offsets` as f64.
const fn halves_of(offsets: &[i32; 16], from: usize) -> [f64; 8] {
    let mut lanes = [0.0; 8];
    let mut l = 0;
    while l < 8 {
        lanes[l] = offsets[from + l] as f64;
        l += 1;
    }
    lanes
}

/// Lanes 0..8 of a tile whose offset dx has bit 0, dx bit 1 and dy bit
/// 0 set (all ones) or not (0): the cover kernel makes each edge's steps
/// `dx·sx + dy·sy` as the sum of sx, 2·sx and sy kept in those lanes,
/// the same wrapping sums as the products, with no 64-bit multiplication
/// (`vpmullq`: one µop on AMD's Zen 4, three with a 15-cycle latency on
/// Intel's cores since Skylake-SP).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
static LOWER_OFFSET_BITS: [[i64; 8]; 3] = [
    lower_lanes_with(&TILE_DX, 1),
    lower_lanes_with(&TILE_DX, 2),
    lower_lanes_with(&TILE_DY, 1),
];

/// All ones in the lanes 0..8 whose `offsets` have `bit` set, else 0.
const fn lower_lanes_with(offsets: &[i32; 16], bit: i32) -> [i64; 8] {
    let mut lanes = [0; 8];
    let mut l = 0;
    while l < 8 {
        if offsets[l] & bit != 0 {
            lanes[l] = -1;
        }
        l += 1;
    }
    lanes
}

// The cover kernel's steps (`LOWER_OFFSET_BITS`) take lanes 0..8 to have
// offsets below 4 and lanes 8..16 to be those lanes two rows down.
const _: () = {
    let mut l = 0;
    while l < 8 {
        assert!(TILE_DX[l] >= 0 && TILE_DX[l] < 4 && TILE_DY[l] >= 0 && TILE_DY[l] < 2);
        assert!(TILE_DX[l + 8] == TILE_DX[l] && TILE_DY[l + 8] == TILE_DY[l] + 2);
        l += 1;
    }
};

/// Asks the CPU to bring the cache line holding `value` closer (a hint:
/// nothing else happens, on other architectures nothing at all).
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of every x86-64 CPU; a prefetch reads nothing
    // and never faults, and `value` is a valid reference besides.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// [`prefetch`] of every cache line of `items` (for a pass over a long
/// array that will reach them soon: on the Intel Xeon measured, arrays
/// streamed from memory arrive faster asked for ahead than by the
/// processor's own guesses).
#[inline(always)]
pub fn prefetch_lines<T>(items: &[T]) {
    let step = (64 / std::mem::size_of::<T>().max(1)).max(1);
    items.iter().step_by(step).for_each(prefetch);
}

/// The lanes of a 4x4 tile one sample per pixel covers: bit `l` set where
/// lane `l`'s pixel, `origin` plus its offset (dx, dy) in the tile, is
/// inside the box `bbox` (x0, y0, x1, y1, inclusive) and, for each of a
/// triangle's three edges k, the lane's step `dx·slopes[k][0] +
/// dy·slopes[k][1]` reaches `t[k]` (the rasterizer's stepped edge
/// functions; the products and their sum wrap as i64).
#[inline]
pub fn tile_cover(slopes: [[i64; 2]; 3], t: [i64; 3], origin: [i64; 2], bbox: [i64; 4]) -> u16 {
    // the box relative to the tile (clamped: a box far from the tile
    // stays outside it), each lane's pixel offset against it
    let rel = |v: i64, o: i64| (v - o).clamp(-8, 8) as i32;
    let b = [
        rel(bbox[0], origin[0]),
        rel(bbox[1], origin[1]),
        rel(bbox[2], origin[0]),
        rel(bbox[3], origin[1]),
    ];
    #[cfg(target_arch = "x86_64")]
    if imp::available() {
        // SAFETY: as in `wide!`: the CPU has the features the function is
        // compiled for.
        return unsafe { tiles::cover(slopes, t, b) };
    }
    tile_cover_by_lanes(slopes, t, b)
}

/// [`tile_cover`] lane by lane, `b` the box relative to the tile.
fn tile_cover_by_lanes(slopes: [[i64; 2]; 3], t: [i64; 3], b: [i32; 4]) -> u16 {
    let mut mask = 0u16;
    for l in 0..16 {
        let (dx, dy) = (TILE_DX[l], TILE_DY[l]);
        let inside = dx >= b[0] && dy >= b[1] && dx <= b[2] && dy <= b[3];
        let passes = (0..3).all(|k| tile_step(slopes[k], l) >= t[k]);
        mask |= u16::from(inside && passes) << l;
    }
    mask
}

/// Lane `l`'s step of an edge of `slopes` (its offset in the tile times
/// the slopes, wrapping as [`tile_cover`]'s kernel does).
#[inline(always)]
pub fn tile_step([sx, sy]: [i64; 2], l: usize) -> i64 {
    let (dx, dy) = (i64::from(TILE_DX[l]), i64::from(TILE_DY[l]));
    dx.wrapping_mul(sx).wrapping_add(dy.wrapping_mul(sy))
}

/// The depth compares [`depth_tile`] takes (of D32_FLOAT values, as floats).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DepthCompare {
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

/// The early depth test of a primitive's 4x4 tiles on a D32_FLOAT target,
/// one sample per pixel: in the tile at (x0, y0), lane `l`'s depth is
/// `plane` at pixel (x0 + dx, y0 + dy) plus `offset` (the f64 steps
/// `p0 + p1 x + p2 y`, then rounded to f32), clamped to `range` (NaN kept),
/// compared with its cell. Made once per primitive (the kernel's loads of
/// it then find it in the caches, not in stores still in flight).
pub struct DepthTile {
    pub plane: [f64; 3],
    pub offset: [f64; 2],
    pub range: [f32; 2],
    pub compare: DepthCompare,
    pub write: bool,
}

/// The lanes of `covered` in the tile at `origin` whose depth passes
/// [`DepthTile`]'s test against `stored` (lane `l` at cell `first + dy *
/// pitch + dx`), the passing depths written when `write` (the tile's
/// other cells, and on a row's end the cells its 4-cell rows reach past
/// it, written back with the values read). None, with nothing done,
/// without AVX-512 or when a cell of the tile is past `stored` (or past
/// 2^31).
pub fn depth_tile(
    d: &DepthTile,
    origin: [u32; 2],
    covered: u16,
    stored: &mut [u32],
    first: usize,
    pitch: usize,
) -> Option<u16> {
    tile_rows_inside(stored.len(), first, pitch, 4)?;
    #[cfg(target_arch = "x86_64")]
    if imp::available() {
        // SAFETY: as in `wide!`; and every cell of the tile is inside `stored`.
        return Some(unsafe { tiles::depth(d, origin, covered, stored, first, pitch) });
    }
    let _ = covered;
    None
}

/// Some when a tile's four rows of `row_cells` cells from `first`,
/// `pitch` apart, lie inside `len` cells and below 2^31 (the depth
/// kernels' 32-bit offsets).
fn tile_rows_inside(len: usize, first: usize, pitch: usize, row_cells: usize) -> Option<()> {
    let last = first
        .checked_add(pitch.checked_mul(3)?)?
        .checked_add(row_cells - 1)?;
    (last < len && last <= i32::MAX as usize).then_some(())
}

#[cfg(test)]
mod tests {
    use super::super as math;
    use super::Row;
    use tgsi_ir::rng::Rng;

    /// A row of the kind `round` picks: raw bit patterns (every class: NaN,
    /// inf, subnormal, huge), arguments where shaders live, the f32
    /// neighbours of multiples of π/2, rows of close arguments, ordinary
    /// positive operands, each of them sometimes with an edge value.
    fn row(rng: &mut Rng, round: usize) -> Row {
        let base = rng.uniform(-1e4, 1e4);
        let mut x: Row = std::array::from_fn(|l| match round % 6 {
            0 => rng.next() as u32,
            1 => (rng.uniform(-600.0, 600.0) as f32).to_bits(),
            2 => {
                let k = (rng.next() % (1 << 21)) as f64;
                let c = (k * std::f64::consts::FRAC_PI_2) as f32;
                (c.to_bits() as i32 + (rng.next() % 5) as i32 - 2) as u32
            }
            3 => ((base + l as f64 * 1e-3) as f32).to_bits(),
            4 => (rng.uniform(-2e6, 2e6) as f32).to_bits(),
            _ => {
                let m = 2f64.powf(rng.uniform(-126.0, 127.0));
                ((rng.uniform(0.5, 1.0) * m) as f32).to_bits()
            }
        });
        if round % 5 == 1 {
            let edges = tgsi_ir::rng::EDGE_F32;
            x[round % 16] = edges[(round / 5) % edges.len()];
        }
        x
    }

    /// The tile cover kernel gives the lane-by-lane masks, for slopes and
    /// thresholds anywhere in i64 (the steps wrap) and boxes around the
    /// tile.
    #[test]
    fn tile_cover_kernel_matches_the_lanes() {
        if !super::imp::available() {
            eprintln!("no AVX-512 on this CPU: nothing to compare");
            return;
        }
        let mut rng = Rng(0x7c0e_0000_0000_0031);
        let value = |rng: &mut Rng| match rng.below(6) {
            0 => rng.next() as i64,
            1 => [i64::MIN, i64::MAX, i64::MIN / 3, i64::MAX / 3][rng.below(4) as usize],
            2 => (rng.next() as i64) >> rng.below(64),
            _ => rng.below(1 << 16) as i64 - (1 << 15),
        };
        let mut seen = [false; 2];
        for _ in 0..200_000 {
            let slopes = std::array::from_fn(|_| [value(&mut rng), value(&mut rng)]);
            let t = std::array::from_fn(|_| value(&mut rng));
            let b = std::array::from_fn(|_| rng.below(12) as i32 - 6);
            let want = super::tile_cover_by_lanes(slopes, t, b);
            // SAFETY: the CPU has AVX-512 (checked above).
            let got = unsafe { super::tiles::cover(slopes, t, b) };
            assert_eq!(got, want, "slopes {slopes:?}, t {t:?}, box {b:?}");
            seen[usize::from(want != 0)] = true;
        }
        assert_eq!(seen, [true, true]);
    }

    /// The AVX-512 builds give the portable builds' bits on 2^22 lanes of
    /// every class (per function), and EX2 also on its ordinary range.
    #[test]
    fn wide_kernels_match_the_portable_ones_bit_for_bit() {
        if !super::available() {
            eprintln!("no AVX-512 on this CPU: nothing to compare");
            return;
        }
        type Unary = (&'static str, fn(&Row, &mut Row) -> bool, fn(&Row, &mut Row));
        let unary: [Unary; 4] = [
            ("sin", super::sin, math::sin_lanes_portable),
            ("cos", super::cos, math::cos_lanes_portable),
            ("ex2", super::ex2, math::ex2_lanes_portable),
            ("lg2", super::lg2, math::lg2_lanes_portable),
        ];
        let mut rng = Rng(0x5eed_0123_4567_89ab);
        let (mut a, mut b) = ([0u32; 16], [0u32; 16]);
        for round in 0..1 << 18 {
            let x = row(&mut rng, round);
            for (name, wide, portable) in &unary {
                assert!(wide(&x, &mut a));
                portable(&x, &mut b);
                assert_eq!(a, b, "{name} on {x:08x?}");
            }
            let e: Row = std::array::from_fn(|_| (rng.uniform(-130.0, 130.0) as f32).to_bits());
            assert!(super::ex2(&e, &mut a));
            math::ex2_lanes_portable(&e, &mut b);
            assert_eq!(a, b, "ex2 on {e:08x?}");
            let y = row(&mut rng, round / 6 * 6 + 1);
            assert!(super::pow(&x, &y, &mut a));
            math::pow_lanes_portable(&x, &y, &mut b);
            assert_eq!(a, b, "pow on {x:08x?} {y:08x?}");
        }
    }
}
