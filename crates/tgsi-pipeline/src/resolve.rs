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
            average_16(e, samples, d, s);
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

/// [`average_samples`] of 16 RGBA8 pixels: `dst` their 64 bytes, `src`
/// their samples' 64 × `samples`.
fn average_16(e: Rgba8Encoder, samples: usize, dst: &mut [u8], src: &[u8]) {
    let mut sum = [[0f64; 16]; 4];
    for k in 0..samples {
        let texels: [u32; 16] = std::array::from_fn(|l| {
            let at = 4 * (l * samples + k);
            src.get(at..at + 4)
                .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        });
        let rows = e.decode_lanes(&texels);
        for (sum, row) in sum.iter_mut().zip(&rows) {
            for (s, v) in sum.iter_mut().zip(row) {
                *s += f64::from(*v);
            }
        }
    }
    let average = sum.map(|row| row.map(|v| ((v / samples as f64) as f32).to_bits()));
    dst.copy_from_slice(e.encode_lanes(&average).as_flattened());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The batch path against the texel one over random samples, on both
    /// RGBA8 formats, 2, 4 and 8 samples, rows whose length is not a
    /// multiple of 16; RGBA16F (texel path only) for the rule itself.
    #[test]
    fn batches_of_16_pixels_give_the_texel_averages() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut byte = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        };
        for format in [Format::Rgba8Srgb, Format::Rgba8Unorm, Format::Rgba16Float] {
            let bpt = format.bytes_per_texel();
            for samples in [2usize, 4, 8] {
                let pixels = 37;
                let src: Vec<u8> = (0..pixels * samples * bpt).map(|_| byte()).collect();
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
