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

/// [`lanes_to_rows`] of lanes read in place: lane l's four channels are
/// the little-endian words of the 16 bytes at `bytes[l * stride..]`. None
/// when the last lane's bytes are not all inside `bytes`.
pub fn strided_to_rows(bytes: &[u8], stride: usize) -> Option<[[u32; 16]; 4]> {
    let last = stride.checked_mul(15)?;
    bytes.get(last..last.checked_add(16)?)?;
    #[cfg(target_arch = "x86_64")]
    if super::imp::available() {
        // SAFETY: as in `wide!`; lane l's 16 bytes start at l * stride ≤
        // 15 * stride and end inside `bytes` (checked above).
        return Some(unsafe { kernel::strided_to_rows(bytes, stride) });
    }
    let word = |l: usize, c: usize| {
        let at = l * stride + 4 * c;
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
    };
    Some(std::array::from_fn(|c| std::array::from_fn(|l| word(l, c))))
}

/// [`rows_to_lanes`] written in place: lane l's four channels into
/// `out[l * stride]`. False (and nothing written) when the last lane's
/// place is past the end of `out`.
pub fn rows_to_strided(rows: &[[u32; 16]; 4], out: &mut [[u32; 4]], stride: usize) -> bool {
    if stride.checked_mul(15).is_none_or(|last| last >= out.len()) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if super::imp::available() {
        // SAFETY: as in `wide!`; lane l's place l * stride ≤ 15 * stride is
        // inside `out` (checked above).
        unsafe { kernel::rows_to_strided(rows, out, stride) };
        return true;
    }
    for l in 0..16 {
        out[l * stride] = std::array::from_fn(|c| rows[c][l]);
    }
    true
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
        // SAFETY: as above.
        let words = unsafe { store4(groups_to_rows(z)) };
        std::array::from_fn(|c| words[16 * c..16 * c + 16].try_into().expect("16 words"))
    }

    /// The rows of four registers that each hold four lanes (register k
    /// lanes 4k..4k + 4, lane 4k + i's channel c at 4i + c).
    #[target_feature(enable = "avx512f")]
    fn groups_to_rows(z: [__m512i; 4]) -> [__m512i; 4] {
        std::array::from_fn(|c| {
            // lanes 0..8 (from registers 0, 1) and 8..16 (2, 3) in the low
            // halves, then the two low halves side by side
            let pick = table(|p| 4 * (p % 8) + c as i32);
            let low = _mm512_permutex2var_epi32(z[0], pick, z[1]);
            let high = _mm512_permutex2var_epi32(z[2], pick, z[3]);
            _mm512_shuffle_i64x2::<0b01_00_01_00>(low, high)
        })
    }

    /// [`super::rows_to_lanes`]: [`rows_to_strided`] at a stride of one.
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn rows_to_lanes(rows: &[[u32; 16]; 4]) -> [[u32; 4]; 16] {
        let mut lanes = [[0u32; 4]; 16];
        // SAFETY: the CPU has AVX-512F (this function's contract), and
        // `lanes` holds 16 > 15 elements.
        unsafe { rows_to_strided(rows, &mut lanes, 1) };
        lanes
    }

    /// [`super::strided_to_rows`]: each lane's 16 bytes loaded into its
    /// place in a group of four, then the groups turned into rows.
    ///
    /// # Safety
    /// The CPU has AVX-512F, and `bytes` holds `15 * stride + 16` bytes.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn strided_to_rows(bytes: &[u8], stride: usize) -> [[u32; 16]; 4] {
        let base = bytes.as_ptr();
        // SAFETY: lane l's 16 bytes at l * stride are inside `bytes` (the
        // caller's promise; unaligned loads).
        let lane = |l: usize| unsafe { _mm_loadu_si128(base.add(l * stride).cast()) };
        let groups = std::array::from_fn(|k| {
            let g = _mm512_castsi128_si512(lane(4 * k));
            let g = _mm512_inserti32x4::<1>(g, lane(4 * k + 1));
            let g = _mm512_inserti32x4::<2>(g, lane(4 * k + 2));
            _mm512_inserti32x4::<3>(g, lane(4 * k + 3))
        });
        // SAFETY: the CPU has AVX-512F (this function's contract).
        let words = unsafe { store4(groups_to_rows(groups)) };
        std::array::from_fn(|c| words[16 * c..16 * c + 16].try_into().expect("16 words"))
    }

    /// [`super::rows_to_strided`]: a 4×4 transpose in each 16-byte part
    /// of the rows by two rounds of unpacks, after which register i holds
    /// lane 4j + i's four channels in its part j; each part is stored
    /// straight to its lane's place. (Intel's cores store a part of a
    /// register without a shuffle, which permutes across parts and
    /// extracts into registers would take, all on one port.)
    ///
    /// # Safety
    /// The CPU has AVX-512F, and `out` holds more than `15 * stride`
    /// elements.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn rows_to_strided(
        rows: &[[u32; 16]; 4],
        out: &mut [[u32; 4]],
        stride: usize,
    ) {
        // SAFETY: the CPU has AVX-512F (this function's contract).
        let [r0, r1, r2, r3] = unsafe { load4(rows.as_flattened().try_into().expect("64 words")) };
        // part j: channels 0, 1 (and 2, 3) of lanes 4j, 4j + 1 and of
        // lanes 4j + 2, 4j + 3, interleaved
        let low01 = _mm512_unpacklo_epi32(r0, r1);
        let high01 = _mm512_unpackhi_epi32(r0, r1);
        let low23 = _mm512_unpacklo_epi32(r2, r3);
        let high23 = _mm512_unpackhi_epi32(r2, r3);
        let lanes = [
            _mm512_unpacklo_epi64(low01, low23),
            _mm512_unpackhi_epi64(low01, low23),
            _mm512_unpacklo_epi64(high01, high23),
            _mm512_unpackhi_epi64(high01, high23),
        ];
        let base = out.as_mut_ptr();
        for (i, v) in lanes.into_iter().enumerate() {
            let parts = [
                _mm512_castsi512_si128(v),
                _mm512_extracti32x4_epi32::<1>(v),
                _mm512_extracti32x4_epi32::<2>(v),
                _mm512_extracti32x4_epi32::<3>(v),
            ];
            for (j, part) in parts.into_iter().enumerate() {
                // SAFETY: lane 4j + i's place (4j + i) * stride is inside
                // `out` (the caller's promise), 16 writable bytes.
                unsafe { _mm_storeu_si128(base.add((4 * j + i) * stride).cast(), part) };
            }
        }
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

    /// The in-place forms read and write each lane at its stride, and
    /// refuse a slice too short for the last lane.
    #[test]
    fn strided_forms_read_and_write_each_lane_in_place() {
        for stride in [1usize, 2, 3, 5] {
            let slots: Vec<[u32; 4]> = (0..16 * stride + 1)
                .map(|s| std::array::from_fn(|c| (1000 * s + c) as u32))
                .collect();
            let bytes: Vec<u8> = slots
                .iter()
                .flatten()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            let rows = strided_to_rows(&bytes[16..], 16 * stride).expect("long enough");
            for l in 0..16 {
                assert_eq!(
                    std::array::from_fn(|c| rows[c][l]),
                    slots[1 + l * stride],
                    "stride {stride}, lane {l}"
                );
            }
            let end = 16 * (15 * stride + 1);
            assert!(strided_to_rows(&bytes[..end - 1], 16 * stride).is_none());
            assert!(strided_to_rows(&bytes[..end], 16 * stride).is_some());
            let mut out = vec![[7u32; 4]; 16 * stride + 1];
            assert!(rows_to_strided(&rows, &mut out[1..], stride));
            for (s, slot) in out.iter().enumerate() {
                let want = if s >= 1 && (s - 1) % stride == 0 {
                    slots[s]
                } else {
                    [7; 4]
                };
                assert_eq!(*slot, want, "stride {stride}, slot {s}");
            }
            assert!(!rows_to_strided(&rows, &mut out[..15 * stride], stride));
        }
    }
}
