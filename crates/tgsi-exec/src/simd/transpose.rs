//! A register turned between its rows (a channel's 16 lanes side by side,
//! as the machine keeps it) and its lanes (each lane's four channels side
//! by side, as vertices arrive and leave the vertex stage): AVX-512
//! permutes, the same words moved as by the plain loops.

/// The register whose row c holds `lanes[l][c]` in lane l.
pub fn lanes_to_rows(lanes: &[[u32; 4]; 16]) -> [[u32; 16]; 4] {
    #[cfg(target_arch = "x86_64")]
    if super::imp::available() {
        // SAFETY: as in `wide!`: the CPU has the features the kernel is
        // compiled for.
        return unsafe { kernel::lanes_to_rows(lanes) };
    }
    std::array::from_fn(|c| std::array::from_fn(|l| lanes[l][c]))
}

/// Each lane's four channels of the register `rows` ([`lanes_to_rows`]
/// undone).
pub fn rows_to_lanes(rows: &[[u32; 16]; 4]) -> [[u32; 4]; 16] {
    #[cfg(target_arch = "x86_64")]
    if super::imp::available() {
        // SAFETY: as in `wide!`.
        return unsafe { kernel::rows_to_lanes(rows) };
    }
    std::array::from_fn(|l| std::array::from_fn(|c| rows[c][l]))
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use std::arch::x86_64::*;

    /// Four 64-byte registers from 64 words.
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn load4(words: &[u32; 64]) -> [__m512i; 4] {
        // SAFETY: each load reads 64 bytes inside `words` (unaligned loads).
        std::array::from_fn(|k| unsafe { _mm512_loadu_si512(words[16 * k..].as_ptr().cast()) })
    }

    /// Four 64-byte registers into 64 words.
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn store4(regs: [__m512i; 4]) -> [u32; 64] {
        let mut words = [0u32; 64];
        for (k, r) in regs.into_iter().enumerate() {
            // SAFETY: each store writes 64 bytes inside `words`.
            unsafe { _mm512_storeu_si512(words[16 * k..].as_mut_ptr().cast(), r) };
        }
        words
    }

    /// A permute table: position p takes element `f(p)` of the pair of
    /// registers (0..16 the first, 16..32 the second).
    #[target_feature(enable = "avx512f")]
    fn table(f: impl Fn(i32) -> i32) -> __m512i {
        let t: [i32; 16] = std::array::from_fn(|p| f(p as i32));
        // SAFETY: 64 readable bytes.
        unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
    }

    /// [`super::lanes_to_rows`].
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn lanes_to_rows(lanes: &[[u32; 4]; 16]) -> [[u32; 16]; 4] {
        // register k holds lanes 4k..4k + 4, lane 4k + i's channel c at 4i + c
        // SAFETY: the CPU has AVX-512F (this function's contract).
        let z = unsafe { load4(lanes.as_flattened().try_into().expect("64 words")) };
        let rows = std::array::from_fn(|c| {
            // lanes 0..8 (from registers 0, 1) and 8..16 (2, 3) in the low
            // halves, then the two low halves side by side
            let pick = table(|p| 4 * (p % 8) + c as i32);
            let low = _mm512_permutex2var_epi32(z[0], pick, z[1]);
            let high = _mm512_permutex2var_epi32(z[2], pick, z[3]);
            _mm512_shuffle_i64x2::<0b01_00_01_00>(low, high)
        });
        // SAFETY: as above.
        let words = unsafe { store4(rows) };
        std::array::from_fn(|c| words[16 * c..16 * c + 16].try_into().expect("16 words"))
    }

    /// [`super::rows_to_lanes`].
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn rows_to_lanes(rows: &[[u32; 16]; 4]) -> [[u32; 4]; 16] {
        // SAFETY: the CPU has AVX-512F (this function's contract).
        let r = unsafe { load4(rows.as_flattened().try_into().expect("64 words")) };
        let groups = std::array::from_fn(|k| {
            // position 4i + c of group k is lane 4k + i of row c: channels
            // 0, 1 from rows 0, 1 and channels 2, 3 from rows 2, 3
            let lane = |p: i32| 4 * k as i32 + p / 4;
            let pick = table(|p| lane(p) + if p % 2 == 1 { 16 } else { 0 });
            let even = _mm512_permutex2var_epi32(r[0], pick, r[1]);
            let odd = _mm512_permutex2var_epi32(r[2], pick, r[3]);
            _mm512_mask_blend_epi32(0xcccc, even, odd)
        });
        // SAFETY: as above.
        let words = unsafe { store4(groups) };
        std::array::from_fn(|l| words[4 * l..4 * l + 4].try_into().expect("4 words"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ways_move_each_word_to_its_place() {
        let lanes: [[u32; 4]; 16] =
            std::array::from_fn(|l| std::array::from_fn(|c| (100 * l + c) as u32));
        let rows = lanes_to_rows(&lanes);
        for l in 0..16 {
            for c in 0..4 {
                assert_eq!(rows[c][l], lanes[l][c], "lane {l} channel {c}");
            }
        }
        assert_eq!(rows_to_lanes(&rows), lanes);
    }
}
