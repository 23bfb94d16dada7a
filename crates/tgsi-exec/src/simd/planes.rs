//! The perspective interpolation of a batch whose quads all read one
//! primitive: the 16 pixel centres and each input plane in f64, eight
//! lanes to a register ([`perspective_inputs`]), and the same steps lane by
//! lane ([`perspective_portable`]).

use super::Row;

/// A perspective input of a batch whose quads all read one primitive.
#[derive(Clone, Copy)]
pub struct PerspectiveInput<'a> {
    /// Its register (an index into the batch's registers).
    pub reg: usize,
    /// The channels to write (bit c: channel c); the others keep their words.
    pub reads: u8,
    /// The value/w planes, by channel.
    pub planes: &'a [[f64; 3]; 4],
    /// The 1/w plane.
    pub inv_w: &'a [f64; 3],
}

impl PerspectiveInput<'_> {
    /// No channel of register 0 (a filler).
    pub const EMPTY: PerspectiveInput<'static> = PerspectiveInput {
        reg: 0,
        reads: 0,
        planes: &[[0.0; 3]; 4],
        inv_w: &[0.0; 3],
    };
}

/// Whether two planes hold the same bits.
#[inline(always)]
fn same_plane(a: &[f64; 3], b: &[f64; 3]) -> bool {
    (0..3).all(|k| a[k].to_bits() == b[k].to_bits())
}

/// The plane's value at (x, y): [`crate::fragment::plane64`].
#[inline(always)]
fn plane_at(p: &[f64; 3], x: f64, y: f64) -> f64 {
    crate::fragment::plane64(p, x, y)
}

/// Writes the read channels of `inputs` at the pixel centres of a batch
/// whose quads all read one primitive (quad q's first pixel `pixel[0][4q]`,
/// `pixel[1][4q]`, lane 4q + i one pixel right of it for odd i, one row
/// down for i ≥ 2, as a batch lays them out): channel c of lane l is
/// `(plane_c(x, y) * w) as f32` with `w = 1 / inv_w(x, y)` at the lane's
/// pixel centre, every step in f64.
/// Inputs in a row with the same 1/w plane share their w. (Where two NaN
/// operands meet, which needs a NaN or infinite 1/w plane that clipping
/// keeps out, the result is a NaN of either.)
pub fn perspective_inputs(
    pixel: &[Row; 2],
    inputs: &[PerspectiveInput<'_>],
    regs: &mut [[Row; 4]],
) {
    #[cfg(target_arch = "x86_64")]
    if super::imp::available() {
        // SAFETY: as in `wide!`: the CPU has the features the function is
        // compiled for.
        return unsafe { kernel::perspective(pixel, inputs, regs) };
    }
    perspective_portable(pixel, inputs, regs)
}

/// [`perspective_inputs`] lane by lane.
fn perspective_portable(pixel: &[Row; 2], inputs: &[PerspectiveInput<'_>], regs: &mut [[Row; 4]]) {
    let point = |l: usize| {
        let [x, y] = [0, 1].map(|axis| pixel[axis][l & !3] as f64 + 0.5);
        (x + (l & 1) as f64, y + (l >> 1 & 1) as f64)
    };
    let mut w = [0f64; 16];
    let mut w_of: Option<&[f64; 3]> = None;
    for input in inputs {
        if !w_of.is_some_and(|p| same_plane(p, input.inv_w)) {
            w = std::array::from_fn(|l| {
                let (x, y) = point(l);
                1.0 / plane_at(input.inv_w, x, y)
            });
            w_of = Some(input.inv_w);
        }
        let Some(reg) = regs.get_mut(input.reg) else {
            continue;
        };
        for (c, row) in reg.iter_mut().enumerate() {
            if input.reads & (1 << c) != 0 {
                *row = std::array::from_fn(|l| {
                    let (x, y) = point(l);
                    crate::fragment::interpolated((plane_at(&input.planes[c], x, y) * w[l]) as f32)
                });
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use super::{PerspectiveInput, Row};
    use std::arch::x86_64::*;

    /// [`super::perspective_inputs`].
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) fn perspective(
        pixel: &[Row; 2],
        inputs: &[PerspectiveInput<'_>],
        regs: &mut [[Row; 4]],
    ) {
        // each half's pixel centres (quads 2h and 2h + 1): the quads' first
        // pixels (read one by one: a wide read would wait for the words'
        // stores) plus the lanes' offsets plus 0.5, exact in f64
        let centre = |axis: usize, h: usize| {
            let (a, b) = (pixel[axis][8 * h] as i32, pixel[axis][8 * h + 4] as i32);
            let lanes = match axis {
                0 => _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1),
                _ => _mm256_setr_epi32(0, 0, 1, 1, 0, 0, 1, 1),
            };
            let base = _mm256_setr_epi32(a, a, a, a, b, b, b, b);
            let p = _mm512_cvtepu32_pd(_mm256_add_epi32(base, lanes));
            _mm512_add_pd(p, _mm512_set1_pd(0.5))
        };
        let xs = [centre(0, 0), centre(0, 1)];
        let ys = [centre(1, 0), centre(1, 1)];
        // p0 + p1 x + p2 y by `super::plane_at`'s fused steps
        let at = |p: &[f64; 3], h: usize| {
            let v = _mm512_fmadd_pd(_mm512_set1_pd(p[1]), xs[h], _mm512_set1_pd(p[0]));
            _mm512_fmadd_pd(_mm512_set1_pd(p[2]), ys[h], v)
        };
        let mut w = [_mm512_setzero_pd(); 2];
        let mut w_of: Option<&[f64; 3]> = None;
        for input in inputs {
            if !w_of.is_some_and(|p| super::same_plane(p, input.inv_w)) {
                w = [0, 1].map(|h| _mm512_div_pd(_mm512_set1_pd(1.0), at(input.inv_w, h)));
                w_of = Some(input.inv_w);
            }
            let Some(reg) = regs.get_mut(input.reg) else {
                continue;
            };
            for (c, row) in reg.iter_mut().enumerate() {
                if input.reads & (1 << c) == 0 {
                    continue;
                }
                let half = |h: usize| _mm512_cvtpd_ps(_mm512_mul_pd(at(&input.planes[c], h), w[h]));
                let all = _mm512_insertf32x8::<1>(_mm512_castps256_ps512(half(0)), half(1));
                // a NaN lane as the one quiet NaN (`fragment::ONE_NAN`)
                let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(all, all);
                let one_nan = _mm512_set1_ps(f32::from_bits(crate::fragment::ONE_NAN));
                let all = _mm512_mask_blend_ps(nan, all, one_nan);
                // SAFETY: `row` is 64 writable bytes (an unaligned store).
                unsafe { _mm512_storeu_ps(row.as_mut_ptr().cast(), all) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Row;
    use tgsi_ir::rng::Rng;

    /// The AVX-512 perspective inputs give the portable path's bits: value
    /// planes of every size and class (zeros, infinities, NaN, subnormals,
    /// terms that cancel), 1/w planes crossing zero, inputs sharing a 1/w
    /// plane or not, quads anywhere on a large target.
    #[test]
    fn perspective_inputs_match_the_portable_path_bit_for_bit() {
        if !super::super::available() {
            eprintln!("no AVX-512 on this CPU: nothing to compare");
            return;
        }
        let mut rng = Rng(0x91a4_e5b0_77c3_0d21);
        let edges = [
            0.0,
            -0.0,
            f64::INFINITY,
            -f64::INFINITY,
            f64::NAN,
            1e-310,
            -1e300,
        ];
        for round in 0..1 << 12 {
            let origins: [[u32; 2]; 4] =
                std::array::from_fn(|_| std::array::from_fn(|_| (rng.next() % 32768) as u32));
            let [x, y] = origins[0].map(|v| v as f64 + 0.5);
            let plane = |rng: &mut Rng| -> [f64; 3] {
                let mut p: [f64; 3] = std::array::from_fn(|_| match rng.next() % 8 {
                    0 => edges[(rng.next() % edges.len() as u64) as usize],
                    1 => f64::from_bits(rng.next()),
                    _ => rng.uniform(-1e3, 1e3) * 2f64.powf(rng.uniform(-40.0, 40.0)),
                });
                if round % 2 == 1 {
                    p[0] = p[0] * 1e-9 - (p[1] * x + p[2] * y);
                }
                p
            };
            let planes: [[[f64; 3]; 4]; 3] =
                std::array::from_fn(|_| std::array::from_fn(|_| plane(&mut rng)));
            // 1/w planes mostly finite, now and then NaN or infinite (two
            // NaNs then meet: every NaN lane reads as the one quiet NaN)
            let inv_w: [[f64; 3]; 2] = std::array::from_fn(|_| {
                std::array::from_fn(|_| match rng.next() % 16 {
                    0 => edges[(rng.next() % edges.len() as u64) as usize],
                    _ => rng.uniform(-1.0, 1.0) * 2f64.powf(rng.uniform(-20.0, 0.0)),
                })
            });
            let pick = |rng: &mut Rng, n: u64| (rng.next() % n) as usize;
            let inputs: Vec<super::PerspectiveInput<'_>> = (0..3)
                .map(|k| super::PerspectiveInput {
                    reg: k + pick(&mut rng, 2),
                    reads: pick(&mut rng, 16) as u8,
                    planes: &planes[k],
                    // the 1/w plane of the input before it or another
                    inv_w: &inv_w[pick(&mut rng, 2)],
                })
                .collect();
            let fresh: Vec<[Row; 4]> = (0..5)
                .map(|_| std::array::from_fn(|_| std::array::from_fn(|_| rng.next() as u32)))
                .collect();
            let (mut wide, mut portable) = (fresh.clone(), fresh);
            let pixel: [Row; 2] = std::array::from_fn(|axis| {
                std::array::from_fn(|l| origins[l / 4][axis] + [l & 1, l >> 1 & 1][axis] as u32)
            });
            super::perspective_inputs(&pixel, &inputs, &mut wide);
            super::perspective_portable(&pixel, &inputs, &mut portable);
            assert_eq!(wide, portable, "round {round}: origins {origins:?}");
            for (k, input) in inputs.iter().enumerate() {
                for c in (0..4).filter(|c| input.reads & (1 << c) != 0) {
                    let row = &wide[input.reg][c];
                    let nan = |w: &u32| f32::from_bits(*w).is_nan();
                    assert!(
                        row.iter()
                            .filter(|w| nan(w))
                            .all(|w| *w == crate::fragment::ONE_NAN),
                        "round {round}: input {k} channel {c}: {row:x?}"
                    );
                }
            }
        }
    }
}
