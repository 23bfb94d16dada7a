//! A batch's texels written to their pixels in one step: each written
//! lane's `N` bytes at its own byte offset, a batch row's two lanes (a
//! quad's row, neighbours in memory) by one AVX-512 store under their two
//! bits ([`scatter_texels`]), with no branch on which lanes are written.

/// Writes `texels[l]` at byte offset `offsets[l]` of `bytes` for each lane
/// `l` set in `writes`, lane after lane (of two lanes at one offset, the
/// later one's bytes stay). False, with nothing written, when a written
/// lane's texel would not lie wholly inside `bytes`, when a written odd
/// lane's texel does not start right after its even neighbour's
/// (`offsets[2p + 1] = offsets[2p] + N`, as a quad's row lies), for
/// texels of other than 4 or 8 bytes, or where the CPU lacks AVX-512: the
/// caller then writes them itself.
#[inline]
pub fn scatter_texels<const N: usize>(
    bytes: &mut [u8],
    offsets: &[u64; 16],
    texels: &[[u8; N]; 16],
    writes: u16,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if super::imp::available() && (N == 4 || N == 8) {
        // SAFETY: as in `wide!`: the CPU has the features the function is
        // compiled for.
        return unsafe { kernel::scatter(bytes, offsets, texels.as_flattened(), N, writes) };
    }
    let _ = (bytes, offsets, texels, writes);
    false
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use std::arch::x86_64::*;

    /// [`super::scatter_texels`] of `n`-byte texels (4 or 8), `flat` the
    /// 16 texels one after another.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
    pub(super) fn scatter(
        bytes: &mut [u8],
        offsets: &[u64; 16],
        flat: &[u8],
        n: usize,
        writes: u16,
    ) -> bool {
        let Some(last) = bytes.len().checked_sub(n) else {
            return writes == 0;
        };
        if flat.len() != 16 * n {
            return false;
        }
        // SAFETY: `offsets` is 128 readable bytes (unaligned loads).
        let (lo, hi) = unsafe {
            (
                _mm512_loadu_si512(offsets.as_ptr().cast()),
                _mm512_loadu_si512(offsets[8..].as_ptr().cast()),
            )
        };
        // every written lane's texel inside: its offset at most `last`
        let limit = _mm512_set1_epi64(last as i64);
        let inside = u16::from(_mm512_cmple_epu64_mask(lo, limit))
            | u16::from(_mm512_cmple_epu64_mask(hi, limit)) << 8;
        if writes & !inside != 0 {
            return false;
        }
        // each pair of lanes 2p, 2p + 1 (a quad's row) stored from lane
        // 2p's offset under its two bits: lane 2p + 1 written must be the
        // texel right after lane 2p's
        let step = _mm512_set1_epi64(n as i64);
        let even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
        let odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
        let starts = _mm512_permutex2var_epi64(lo, even, hi);
        let nexts = _mm512_permutex2var_epi64(lo, odd, hi);
        let adjacent = _mm512_cmpeq_epi64_mask(_mm512_add_epi64(starts, step), nexts);
        let odd_writes = (0..8).fold(0u8, |m, p| m | (((writes >> (2 * p + 1)) & 1) as u8) << p);
        if odd_writes & !adjacent != 0 {
            return false;
        }
        let base = bytes.as_mut_ptr();
        for p in 0..8 {
            let pair = (writes >> (2 * p) & 3) as u8;
            // (a pair with no lane written stores nothing: its start may
            // lie outside `bytes`, so its address is made by wrapping)
            let at = base.wrapping_add(offsets[2 * p] as usize);
            let texels = flat[2 * p * n..2 * (p + 1) * n].as_ptr();
            // SAFETY: `texels` is 2n readable bytes (an unaligned load of
            // 8 or 16); the store writes only the pair's written lanes,
            // each n bytes at its own offset (lane 2p + 1's right after
            // lane 2p's), inside `bytes`, which nothing else borrows.
            unsafe {
                if n == 4 {
                    let pair_texels = _mm_loadl_epi64(texels.cast());
                    _mm_mask_storeu_epi32(at.cast(), pair, pair_texels);
                } else {
                    let pair_texels = _mm_loadu_si128(texels.cast());
                    _mm_mask_storeu_epi64(at.cast(), pair, pair_texels);
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::scatter_texels;
    use tgsi_ir::rng::Rng;

    /// The texels `scatter_texels` writes, lane after lane in plain code.
    fn by_lanes<const N: usize>(
        bytes: &mut [u8],
        offsets: &[u64; 16],
        texels: &[[u8; N]; 16],
        writes: u16,
    ) -> bool {
        let inside = |l: usize| {
            offsets[l]
                .checked_add(N as u64)
                .is_some_and(|e| e <= bytes.len() as u64)
        };
        let apart = |l: usize| l % 2 == 1 && offsets[l - 1].wrapping_add(N as u64) != offsets[l];
        if (0..16).any(|l| writes >> l & 1 != 0 && (!inside(l) || apart(l))) {
            return false;
        }
        for l in (0..16).filter(|l| writes >> l & 1 != 0) {
            let o = offsets[l] as usize;
            bytes[o..o + N].copy_from_slice(&texels[l]);
        }
        true
    }

    fn check<const N: usize>(rng: &mut Rng) -> bool {
        let len = rng.below(200) as usize;
        let mut offsets: [u64; 16] = std::array::from_fn(|_| match rng.below(8) {
            // past the end, at the end and far beyond
            0 => len as u64 - (len as u64).min(rng.below(2 * N as u64)),
            1 => u64::MAX - rng.below(4),
            _ => rng.below(len as u64 + 1),
        });
        // most odd lanes right after their even neighbours, as in a batch
        for p in 0..8 {
            if rng.below(8) != 0 {
                offsets[2 * p + 1] = offsets[2 * p].wrapping_add(N as u64);
            }
        }
        let texels: [[u8; N]; 16] =
            std::array::from_fn(|_| std::array::from_fn(|_| rng.below(256) as u8));
        let writes = rng.below(1 << 16) as u16;
        let start: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        let (mut got, mut want) = (start.clone(), start.clone());
        let wrote = scatter_texels(&mut got, &offsets, &texels, writes);
        if !wrote {
            assert_eq!(got, start, "nothing written when it declines");
        }
        if super::super::imp::available() {
            assert_eq!(wrote, by_lanes(&mut want, &offsets, &texels, writes));
            assert_eq!(got, want, "offsets {offsets:?}, writes {writes:#06x}");
        }
        wrote
    }

    /// Random offsets (inside, overlapping, at and past the end, pairs of
    /// neighbours or not), random lane masks: the bytes of plain
    /// lane-by-lane writes, the later lane winning where two meet, and
    /// nothing written where a written lane falls outside or away from its
    /// neighbour.
    #[test]
    fn scattered_texels_are_the_lanes_written_in_order() {
        let mut rng = Rng(0x5ca7_7e25_0000_0001);
        let mut wrote = 0;
        for _ in 0..3000 {
            wrote += u32::from(check::<4>(&mut rng)) + u32::from(check::<8>(&mut rng));
        }
        // (enough of them taken, where the CPU has AVX-512)
        assert!(
            wrote > 300 || !super::super::imp::available(),
            "{wrote} taken"
        );
    }
}
