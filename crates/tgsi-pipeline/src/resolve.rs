//! The multisample resolve: each pixel of a one-sample target the average
//! of a multisampled target's samples of it.
//!
//! Each sample is decoded to floats (the target format's `decode`), the
//! samples of a pixel are summed in f64 in sample order, the sum is divided
//! by the sample count and rounded once to f32, and the result is encoded
//! (`encode_into`). RGBA8 UNORM and sRGB targets take 16 pixels at a time
//! through the batch conversions ([`Rgba8Encoder::decode_lanes`],
//! [`Rgba8Encoder::encode_lanes`]: the same bits as the texel ones), every
//! other format and the last pixels of a row of them one pixel at a time.
//! Sixteen RGBA8 pixels whose samples are each one texel (most of a
//! picture: inside the triangles and outside them all) take that texel,
//! which is what the average gives: the sum of n equal values divided by n
//! is the value, and these formats' texels encode back from their decoded
//! values (checked once for every code).

use std::sync::OnceLock;
use tgsi_exec::texture::Format;
use tgsi_exec::texture::format::Rgba8Encoder;

/// Writes into `dst` (one-sample texels of `format`) the average of each
/// pixel's `samples` texels in `src`, where a pixel's samples lie side by
/// side. Pixels past the end of either slice are left out.
pub fn average_samples(format: Format, samples: usize, dst: &mut [u8], src: &[u8]) {
    let bpt = format.bytes_per_texel();
    if samples == 0 || bpt == 0 {
        return;
    }
    let mut done = 0;
    if let Some(e) = Rgba8Encoder::of(format) {
        let pixels = (dst.len() / 4).min(src.len() / (4 * samples));
        done = pixels / 16 * 16;
        let dst = dst[..done * 4].chunks_exact_mut(64);
        for (d, s) in dst.zip(src.chunks_exact(64 * samples)) {
            average_16(format, e, samples, d, s);
        }
    }
    let rest = dst
        .get_mut(done * bpt..)
        .unwrap_or_default()
        .chunks_exact_mut(bpt);
    let texels = src
        .get(done * bpt * samples..)
        .unwrap_or_default()
        .chunks_exact(bpt * samples);
    for (d, texels) in rest.zip(texels) {
        let mut sum = [0f64; 4];
        for texel in texels.chunks_exact(bpt) {
            let v = format.decode(texel);
            for c in 0..4 {
                sum[c] += f64::from(f32::from_bits(v[c]));
            }
        }
        let average = sum.map(|v| ((v / samples as f64) as f32).to_bits());
        format.encode_into(average, d);
    }
}

/// Whether an RGBA8 format's texels come back unchanged from their
/// decode and encode (every code of every channel; checked once per
/// format): then a pixel whose samples are one texel resolves to it.
fn round_trips(format: Format, e: Rgba8Encoder) -> bool {
    static SRGB: OnceLock<bool> = OnceLock::new();
    static UNORM: OnceLock<bool> = OnceLock::new();
    let cell = if format == Format::Rgba8Srgb {
        &SRGB
    } else {
        &UNORM
    };
    *cell.get_or_init(|| {
        (0..16u32).all(|batch| {
            let texels: [u32; 16] = std::array::from_fn(|l| (16 * batch + l as u32) * 0x0101_0101);
            let rows = e.decode_lanes(&texels).map(|row| row.map(f32::to_bits));
            let back = e.encode_lanes(&rows).map(u32::from_le_bytes);
            back == texels
        })
    })
}

/// Whether each pixel's `samples` texels (4 bytes each, side by side) in
/// `src` are one texel: every word compared with its pixel's first and
/// the differences gathered without a branch per texel (four samples in
/// a fixed block the compiler turns into vector compares).
fn samples_agree(src: &[u8], samples: usize) -> bool {
    let word = |b: &[u8; 4]| u32::from_le_bytes(*b);
    if samples == 4
        && let Some(block) = src.first_chunk::<256>()
    {
        let (texels, _) = block.as_chunks::<4>();
        let mut diff = 0;
        for pixel in texels.chunks_exact(4) {
            let first = word(&pixel[0]);
            diff |= pixel.iter().fold(0, |d, t| d | (word(t) ^ first));
        }
        return diff == 0;
    }
    src.chunks_exact(4 * samples).all(|p| {
        let (texels, _) = p.as_chunks::<4>();
        texels.iter().all(|t| t == &texels[0])
    })
}

/// [`average_samples`] of 16 RGBA8 pixels: `dst` their 64 bytes, `src`
/// their samples' 64 × `samples`.
fn average_16(format: Format, e: Rgba8Encoder, samples: usize, dst: &mut [u8], src: &[u8]) {
    let word = |l: usize, k: usize| {
        let at = 4 * (l * samples + k);
        src.get(at..at + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    // every pixel's samples one texel (inside the triangles and outside
    // them all): the average is that texel's value, which encodes back to it
    let pixels = src.chunks_exact(4 * samples);
    let uniform = pixels.len() == 16 && samples_agree(src, samples);
    if uniform && round_trips(format, e) {
        for (d, p) in dst.chunks_exact_mut(4).zip(pixels) {
            d.copy_from_slice(&p[..4]);
        }
        return;
    }
    let mut sum = [[0f64; 16]; 4];
    for k in 0..samples {
        let texels: [u32; 16] = std::array::from_fn(|l| word(l, k));
        let rows = e.decode_lanes(&texels);
        for (sum, row) in sum.iter_mut().zip(&rows) {
            for (s, v) in sum.iter_mut().zip(row) {
                *s += f64::from(*v);
            }
        }
    }
    // a power of two divides exactly as its reciprocal multiplies
    let n = samples as f64;
    let scale = 1.0 / n;
    let average = if samples.is_power_of_two() {
        sum.map(|row| row.map(|v| ((v * scale) as f32).to_bits()))
    } else {
        sum.map(|row| row.map(|v| ((v / n) as f32).to_bits()))
    };
    dst.copy_from_slice(e.encode_lanes(&average).as_flattened());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The batch path against the texel one, on both RGBA8 formats, 2, 3,
    /// 4 and 8 samples, rows whose length is not a multiple of 16, over
    /// random samples, over pixels whose samples are one texel (the
    /// shortcut) and over such pixels with one sample changed; RGBA16F
    /// (texel path only) for the rule itself.
    #[test]
    fn batches_of_16_pixels_give_the_texel_averages() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut byte = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        };
        assert!(round_trips(
            Format::Rgba8Srgb,
            Rgba8Encoder::of(Format::Rgba8Srgb).unwrap()
        ));
        assert!(round_trips(
            Format::Rgba8Unorm,
            Rgba8Encoder::of(Format::Rgba8Unorm).unwrap()
        ));
        for format in [Format::Rgba8Srgb, Format::Rgba8Unorm, Format::Rgba16Float] {
            let bpt = format.bytes_per_texel();
            for samples in [2usize, 3, 4, 8] {
                let pixels = 37;
                let random: Vec<u8> = (0..pixels * samples * bpt).map(|_| byte()).collect();
                // each pixel's samples a copy of its first
                let mut uniform = random.clone();
                for p in 0..pixels {
                    for s in 1..samples {
                        let (first, at) = (p * samples * bpt, (p * samples + s) * bpt);
                        uniform.copy_within(first..first + bpt, at);
                    }
                }
                let mut one_off = uniform.clone();
                one_off[(5 * samples + 1) * bpt] ^= 0x40;
                for src in [random, uniform, one_off] {
                    let mut got = vec![0u8; pixels * bpt];
                    average_samples(format, samples, &mut got, &src);
                    for p in 0..pixels {
                        let mut sum = [0f64; 4];
                        for s in 0..samples {
                            let at = (p * samples + s) * bpt;
                            let v = format.decode(&src[at..at + bpt]);
                            for c in 0..4 {
                                sum[c] += f64::from(f32::from_bits(v[c]));
                            }
                        }
                        let mut want = vec![0u8; bpt];
                        let average = sum.map(|v| ((v / samples as f64) as f32).to_bits());
                        format.encode_into(average, &mut want);
                        assert_eq!(
                            got[p * bpt..(p + 1) * bpt],
                            want[..],
                            "{format:?}, {samples} samples, pixel {p}"
                        );
                    }
                }
            }
        }
    }
}
