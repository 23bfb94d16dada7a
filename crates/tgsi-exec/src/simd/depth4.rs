//! The early depth test of a 4x4 tile with four samples per pixel
//! (AVX-512): a tile row's four pixels keep their samples side by side, so
//! each row is 16 cells in one register ([`depth_tile_4x`]).

use super::DepthTile;

/// [`super::depth_tile`] with four samples per pixel at `offsets` (from the
/// pixel's corner; [`DepthTile::offset`] is not used): sample s of pixel
/// (x0 + dx, y0 + dy) is bit 16 dy + 4 dx + s of `covered` and of the
/// result, at cell `first + dy * pitch + 4 * dx + s` of `stored`. None,
/// with nothing done, without AVX-512 or when a cell of the tile is past
/// `stored` (or past 2^31).
pub fn depth_tile_4x(
    d: &DepthTile,
    offsets: &[[f64; 2]; 4],
    origin: [u32; 2],
    covered: u64,
    stored: &mut [u32],
    first: usize,
    pitch: usize,
) -> Option<u64> {
    super::tile_rows_inside(stored.len(), first, pitch, 16)?;
    #[cfg(target_arch = "x86_64")]
    if super::imp::available() {
        // SAFETY: as in `wide!`; and every cell of the tile is inside `stored`.
        return Some(unsafe { kernel::depth4(d, offsets, origin, covered, stored, first, pitch) });
    }
    let _ = (d, offsets, origin, covered);
    None
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use super::super::{DepthCompare, DepthTile};
    use std::arch::x86_64::*;

    /// Lane j of a tile row: pixel `j / 4` of the row, sample `j % 4`.
    const PIXEL_OF_LANE: [f64; 8] = [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];

    /// [`super::super::depth_tile_4x`] once its cells are known to be inside `stored`.
    ///
    /// # Safety
    /// The CPU has the features the function is compiled for, and
    /// `first + 3 * pitch + 15` is below `stored.len()` and 2^31.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) unsafe fn depth4(
        d: &DepthTile,
        offsets: &[[f64; 2]; 4],
        origin: [u32; 2],
        covered: u64,
        stored: &mut [u32],
        first: usize,
        pitch: usize,
    ) -> u64 {
        // each half-row's eight samples: pixel dx of the half plus the
        // sample's offset, as `x as f64 + offset` (one rounding, as the
        // scalar position)
        // SAFETY: the table is 64 readable bytes.
        let pixel = unsafe { _mm512_loadu_pd(PIXEL_OF_LANE.as_ptr()) };
        let sample = |axis: usize| {
            let o = offsets.map(|o| o[axis]);
            _mm512_setr_pd(o[0], o[1], o[2], o[3], o[0], o[1], o[2], o[3])
        };
        let (ox, oy) = (sample(0), sample(1));
        let mut passed = 0u64;
        for dy in 0..4 {
            let y = (origin[1] + dy as u32) as f64;
            let depth_of = |half: u32| {
                // pixel x of each lane: exact integers in f64
                let x0 = _mm512_set1_pd((origin[0] + 2 * half) as f64);
                let x = _mm512_add_pd(_mm512_add_pd(x0, pixel), ox);
                let y = _mm512_add_pd(_mm512_set1_pd(y), oy);
                // `fragment::plane64`'s fused steps, rounded to f32
                let v = _mm512_fmadd_pd(_mm512_set1_pd(d.plane[1]), x, _mm512_set1_pd(d.plane[0]));
                let v = _mm512_fmadd_pd(_mm512_set1_pd(d.plane[2]), y, v);
                _mm512_cvtpd_ps(v)
            };
            let z = _mm512_insertf32x8::<1>(_mm512_castps256_ps512(depth_of(0)), depth_of(1));
            // clamped as f32::clamp does: NaN kept (as `super::super::tiles::depth`)
            let z = _mm512_max_ps(_mm512_set1_ps(d.range[0]), z);
            let z = _mm512_min_ps(_mm512_set1_ps(d.range[1]), z);
            let row = stored.as_mut_ptr().wrapping_add(first + dy * pitch);
            // SAFETY: the row's 16 cells end at first + dy * pitch + 15,
            // inside `stored` (the caller's contract).
            let old = unsafe { _mm512_loadu_ps(row.cast_const().cast()) };
            let pass = match d.compare {
                DepthCompare::Less => _mm512_cmp_ps_mask::<_CMP_LT_OQ>(z, old),
                DepthCompare::LessEqual => _mm512_cmp_ps_mask::<_CMP_LE_OQ>(z, old),
                DepthCompare::Greater => _mm512_cmp_ps_mask::<_CMP_GT_OQ>(z, old),
                DepthCompare::GreaterEqual => _mm512_cmp_ps_mask::<_CMP_GE_OQ>(z, old),
            };
            let ok = pass & (covered >> (16 * dy)) as u16;
            if d.write && ok != 0 {
                // the whole row written back, the failing cells with the
                // values just read (see `super::super::tiles::depth`)
                let new = _mm512_mask_blend_ps(ok, old, z);
                // SAFETY: as the load (`stored` is borrowed mutably).
                unsafe { _mm512_storeu_ps(row.cast(), new) };
            }
            passed |= u64::from(ok) << (16 * dy);
        }
        passed
    }
}
