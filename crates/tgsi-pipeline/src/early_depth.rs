//! The depth/stencil test before shading of a tile's samples: where a
//! tile's cells are in a band's depth rows ([`TileRows`], [`SampledTile`]),
//! and the test of several samples per pixel, sample by sample or (four
//! samples) by the AVX-512 tile kernel.

use super::merge::DepthStencilTest;
use super::raster::SamplePattern;
use tgsi_exec::fragment::plane64;

/// Where a 4x4 tile's pixels are in a band's depth rows (one sample per pixel).
#[derive(Clone, Copy)]
pub(crate) struct TileRows {
    pub x0: u32,
    pub y0: u32,
    /// The cell of the tile's top-left pixel and the cells per row.
    pub first: usize,
    pub pitch: usize,
}

impl TileRows {
    pub fn of(x0: u32, y0: u32, y_lo: i64, pitch: usize) -> TileRows {
        TileRows {
            x0,
            y0,
            first: (y0 as i64 - y_lo) as usize * pitch + x0 as usize,
            pitch,
        }
    }
}

/// A tile of a band with several samples per pixel: its cells (`rows`
/// counts one per pixel; pixel (x, y)'s samples are the `samples` cells
/// from `x * samples` of its row) and their positions.
pub(crate) struct SampledTile<'a> {
    /// (By reference: a copy of the rows just made would read their
    /// words back before their stores reached the cache.)
    pub rows: &'a TileRows,
    pub pattern: &'a SamplePattern,
    pub samples: usize,
}

impl SampledTile<'_> {
    /// The cell of the first sample of lane `l`'s pixel.
    fn pixel_cell(&self, l: usize) -> usize {
        let (dx, dy) = tgsi_exec::fragment::lane_offset(l);
        let r = &self.rows;
        r.first - r.x0 as usize + dy as usize * r.pitch + (r.x0 + dx) as usize * self.samples
    }
}

/// The depth/stencil test before shading of one tile's covered samples,
/// sample by sample: lane l's sample s (bit s of `coverage[l]`) at its
/// position on a primitive's depth `plane` (as the draw's `sample_depth`), of
/// a `front` face or not, its bit cleared when the test fails.
pub(crate) fn early_test_each_sample(
    test: &DepthStencilTest,
    tile: &SampledTile<'_>,
    (plane, front): (&[f64; 3], bool),
    coverage: &mut [u32; 16],
    zs: &mut [u32],
    ss: &mut [u8],
) {
    let (x0, y0) = (tile.rows.x0, tile.rows.y0);
    for (l, cov) in coverage.iter_mut().enumerate() {
        if *cov == 0 {
            continue;
        }
        let (dx, dy) = tgsi_exec::fragment::lane_offset(l);
        let base = tile.pixel_cell(l);
        for s in 0..tile.samples {
            let (px, py) = tile.pattern.position(x0 + dx, y0 + dy, s);
            let depth = plane64(plane, px, py) as f32;
            if *cov & (1 << s) != 0
                && !test.test(depth, front, &mut zs[base + s], &mut ss[base + s])
            {
                *cov &= !(1 << s);
            }
        }
    }
}

/// [`early_test_each_sample`] by the tile kernel with four samples per
/// pixel ([`tgsi_exec::tiles::depth_tile_4x`], the same outcome); false,
/// with nothing done, where the kernel does not run.
pub(crate) fn early_test_four_samples(
    d: &tgsi_exec::tiles::DepthTile,
    tile: &SampledTile<'_>,
    coverage: &mut [u32; 16],
    zs: &mut [u32],
) -> bool {
    if tile.samples != 4 {
        return false;
    }
    let offsets = std::array::from_fn(|s| {
        let (x, y) = tile.pattern.position(0, 0, s);
        [x, y]
    });
    // lane l's samples at bits 16 dy + 4 dx of the kernel's mask
    let bit = |l: usize| {
        let (dx, dy) = tgsi_exec::fragment::lane_offset(l);
        16 * dy + 4 * dx
    };
    let covered = (0..16).fold(0u64, |m, l| m | u64::from(coverage[l] & 0xF) << bit(l));
    let origin = [tile.rows.x0, tile.rows.y0];
    let (first, pitch) = (tile.pixel_cell(0), tile.rows.pitch);
    let Some(passed) =
        tgsi_exec::tiles::depth_tile_4x(d, &offsets, origin, covered, zs, first, pitch)
    else {
        return false;
    };
    for (l, cov) in coverage.iter_mut().enumerate() {
        *cov = (passed >> bit(l)) as u32 & 0xF;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::CompareFunc;

    /// The early test of a tile's four samples per pixel by the kernel
    /// gives the coverage and depths of the test sample by sample, for
    /// tiles anywhere in a band (the cells of a pixel's samples side by
    /// side), random coverage, planes and stored depths, each compare the
    /// kernel takes, with and without writes.
    #[test]
    fn four_sample_early_test_is_the_sample_by_sample_test() {
        let mut rng = tgsi_ir::rng::Rng(0xea51_0004);
        let pattern = SamplePattern::new(4);
        let (width, band_rows) = (64usize, 8usize);
        let mut compared = 0;
        for func in [CompareFunc::Less, CompareFunc::GreaterEqual] {
            for write in [true, false] {
                let test = DepthStencilTest::d32_float(func, write, 1.0);
                for _ in 0..100 {
                    let y_lo = 4 * rng.below(10) as i64;
                    let (x0, y0) = (
                        4 * rng.below(15) as u32,
                        y_lo as u32 + 4 * rng.below(2) as u32,
                    );
                    let plane = [
                        rng.uniform(0.0, 1.0),
                        rng.uniform(-0.02, 0.02),
                        rng.uniform(-0.02, 0.02),
                    ];
                    let d = tgsi_exec::tiles::DepthTile {
                        plane,
                        offset: [0.5, 0.5],
                        range: [0.0, 1.0],
                        compare: test.tile_compare().unwrap(),
                        write,
                    };
                    let row_pitch = width * 4;
                    let stored: Vec<u32> = (0..row_pitch * band_rows)
                        .map(|_| (rng.uniform(0.0, 1.0) as f32).to_bits())
                        .collect();
                    let coverage: [u32; 16] = std::array::from_fn(|_| rng.below(16) as u32);
                    let rows = TileRows::of(x0, y0, y_lo, row_pitch);
                    let tile = SampledTile {
                        rows: &rows,
                        pattern: &pattern,
                        samples: 4,
                    };
                    let (mut kz, mut kc) = (stored.clone(), coverage);
                    if !early_test_four_samples(&d, &tile, &mut kc, &mut kz) {
                        return; // no AVX-512
                    }
                    let (mut sz, mut sc) = (stored.clone(), coverage);
                    let mut ss = vec![0u8; stored.len()];
                    early_test_each_sample(&test, &tile, (&plane, true), &mut sc, &mut sz, &mut ss);
                    assert_eq!(
                        kc, sc,
                        "{func:?} write {write} tile ({x0}, {y0}) band {y_lo}"
                    );
                    assert!(kz == sz, "{func:?} write {write}: depths differ");
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 400);
    }
}
