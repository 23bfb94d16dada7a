//! Texel formats and resources: the UNORM/SNORM, integer, half and small
//! float and sRGB conversions, format and compare-function names, and
//! resource limits and level layout.

use super::*;
use crate::texture::format::{
    f32_to_small_float, least_with_code, linear_to_srgb, linear_to_srgb_curve, small_float_to_f32,
    srgb_to_linear,
};
use tgsi_ir::enums::PipeFormat;

#[test]
fn unorm_snorm_rules() {
    // 0.5 * 255 = 127.5 -> ties to even -> 128 (the only tie an f32 can hit for 8 bits);
    // one ulp below 0.5 gives 127.49999 -> 127
    assert_eq!(
        Format::R8Unorm.encode([0.5f32.to_bits(), 0, 0, 0]),
        vec![128]
    );
    assert_eq!(
        Format::R8Unorm.encode([(0.5f32.to_bits() - 1), 0, 0, 0]),
        vec![127]
    );
    // clamp and NaN -> 0
    assert_eq!(
        Format::R8Unorm.encode([2.0f32.to_bits(), 0, 0, 0]),
        vec![255]
    );
    assert_eq!(
        Format::R8Unorm.encode([f32::NAN.to_bits(), 0, 0, 0]),
        vec![0]
    );
    // decode is the exact quotient rounded once
    assert_eq!(f32::from_bits(Format::R8Unorm.decode(&[51])[0]), 0.2);
    // SNORM: -1 -> -127 (0x81); 0x80 (-128) reads -1; 0x7f reads 1
    assert_eq!(
        Format::R8Snorm.encode([(-1.0f32).to_bits(), 0, 0, 0]),
        vec![0x81]
    );
    assert_eq!(f32::from_bits(Format::R8Snorm.decode(&[0x80])[0]), -1.0);
    assert_eq!(f32::from_bits(Format::R8Snorm.decode(&[0x7f])[0]), 1.0);
    assert_eq!(
        f32::from_bits(Format::R16Snorm.decode(&[0x01, 0xc0])[0]),
        -16383.0 / 32767.0
    );
    // the UNORM8 table is the exact quotient
    for v in 0..=255u8 {
        let q = crate::texture::format::unorm_to_float(v as u32, 8);
        assert_eq!(Format::R8Unorm.decode(&[v])[0], q.to_bits());
        assert_eq!(q, (v as f64 / 255.0) as f32);
    }
    // every 8- and 16-bit UNORM code survives decode -> encode
    for v in 0..=255u8 {
        assert_eq!(
            Format::R8Unorm.encode(Format::R8Unorm.decode(&[v])),
            vec![v]
        );
        assert_eq!(
            Format::R8Snorm.encode(Format::R8Snorm.decode(&[v])),
            vec![if v == 0x80 { 0x81 } else { v }]
        );
    }
    for v in (0..=65535u16).step_by(7) {
        let b = v.to_le_bytes();
        assert_eq!(
            Format::R16Unorm.encode(Format::R16Unorm.decode(&b)),
            b.to_vec()
        );
    }
}

#[test]
fn integer_saturation_and_missing_channels() {
    assert_eq!(Format::R8Uint.encode([300, 0, 0, 0]), vec![255]);
    assert_eq!(
        Format::R8Sint.encode([(-200i32) as u32, 0, 0, 0]),
        vec![0x80]
    );
    assert_eq!(Format::R16Sint.decode(&[0xff, 0xff]), [u32::MAX, 0, 0, 1]);
    assert_eq!(
        Format::Rg32Float.decode(&[0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]),
        [0x3f80_0000, 0x4000_0000, 0, 0x3f80_0000]
    );
    // BGRA stores b, g, r, a
    assert_eq!(
        Format::Bgra8Unorm.encode([1.0f32, 0.0, 0.0, 1.0].map(f32::to_bits)),
        vec![0, 0, 255, 255]
    );
    // 10-10-10-2: r = 1023, g = 511.5 -> 512, b = 0, a = 3
    let w = u32::from_le_bytes(
        Format::Rgb10a2Unorm
            .encode([1.0f32, 0.5, 0.0, 1.0].map(f32::to_bits))
            .try_into()
            .unwrap(),
    );
    assert_eq!(w, 1023 | (512 << 10) | (3 << 30));
    assert_eq!(
        Format::Z16Unorm.decode(&[0xff, 0xff]),
        [1.0f32.to_bits(), 0, 0, 1.0f32.to_bits()]
    );
}

#[test]
fn half_and_small_floats() {
    // 1.5 = 0x3e00 in binary16
    assert_eq!(
        Format::R16Float.encode([1.5f32.to_bits(), 0, 0, 0]),
        vec![0x00, 0x3e]
    );
    // float11: 1.0 = exponent 15, mantissa 0 -> 15 << 6 = 960
    assert_eq!(f32_to_small_float(1.0, 6), 960);
    assert_eq!(small_float_to_f32(960, 6), 1.0);
    // smallest denormal float10: 1/32 * 2^-14
    assert_eq!(small_float_to_f32(1, 5), 2f32.powi(-19));
    assert_eq!(f32_to_small_float(-3.0, 6), 0);
    assert_eq!(f32_to_small_float(1e10, 5), 31 << 5);
    // 1 + 1/128 sits halfway between float11 codes 960 and 961: ties to even -> 960
    assert_eq!(f32_to_small_float(1.0 + 1.0 / 128.0, 6), 960);
    assert_eq!(f32_to_small_float(1.0 + 3.0 / 128.0, 6), 962);
    // every finite code survives decode -> encode
    for m in [5u32, 6] {
        for v in 0..(31u32 << m) {
            assert_eq!(
                f32_to_small_float(small_float_to_f32(v, m), m),
                v,
                "m {m} code {v}"
            );
        }
    }
}

#[test]
fn srgb_curve() {
    assert_eq!(srgb_to_linear(0), 0.0);
    assert_eq!(srgb_to_linear(255), 1.0);
    // code 10: 10/255 = 0.0392 <= 0.04045 -> linear part: 10/255/12.92
    assert_eq!(srgb_to_linear(10), (10.0f64 / 255.0 / 12.92) as f32);
    // 0.5 linear: 1.055 * 0.5^(1/2.4) - 0.055 = 0.73536 -> * 255 = 187.52 -> 188
    assert_eq!(linear_to_srgb(0.5), 188);
    for v in 0..=255u8 {
        assert_eq!(linear_to_srgb(srgb_to_linear(v)), v);
    }
    // alpha stays linear
    assert_eq!(
        Format::Rgba8Srgb.decode(&[0, 0, 0, 51])[3],
        0.2f32.to_bits()
    );
}

/// The step-table encode gives the curve's code: around every step (the
/// step and the float below it), at the edges and specials, and over a
/// spread of floats in and out of [0, 1].
#[test]
fn srgb_encode_table_matches_the_curve() {
    let check = |f: f32| {
        assert_eq!(
            linear_to_srgb(f),
            linear_to_srgb_curve(f),
            "{f:e} ({:#x})",
            f.to_bits()
        )
    };
    for f in [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        -1.0,
        1.0,
        2.0,
        f32::MIN_POSITIVE,
        1e-45,
        0.0031308,
        f32::MAX,
    ] {
        check(f);
    }
    let mut seen = 0u32;
    for code in 1..=255u8 {
        // the least float of each code: bisection below its decode
        let b = least_with_code(linear_to_srgb_curve, code, srgb_to_linear(code).to_bits());
        check(f32::from_bits(b));
        check(f32::from_bits(b - 1));
        assert_eq!(linear_to_srgb(f32::from_bits(b)), code);
        assert_eq!(linear_to_srgb(f32::from_bits(b - 1)), code - 1);
        seen += 1;
    }
    assert_eq!(seen, 255);
    let mut x = 0x9e37_79b9u32;
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        // mostly [0, 1.5), some anywhere
        let f = if x & 7 == 0 {
            f32::from_bits(x)
        } else {
            f32::from_bits(x % 0x3fc0_0000)
        };
        check(f);
    }
}

#[test]
fn names() {
    for n in [
        "rgba32f",
        "rgba32ui",
        "rgba32i",
        "r32f",
        "r32ui",
        "r32i",
        "rg32f",
        "rgba8",
        "rgba8_srgb",
        "r8",
        "rgba16f",
    ] {
        let f = Format::from_short_name(n).unwrap_or_else(|| panic!("{n}"));
        assert_eq!(f.short_name(), n);
    }
    assert_eq!(
        Format::from_short_name("RGBA32F"),
        Some(Format::Rgba32Float)
    );
    assert_eq!(
        Format::from_short_name("PIPE_FORMAT_B8G8R8A8_SRGB"),
        Some(Format::Bgra8Srgb)
    );
    assert_eq!(
        Format::from_short_name("r11g11b10f"),
        Some(Format::Rg11b10Float)
    );
    for f in Format::ALL {
        let p = f.to_pipe();
        assert_ne!(p, PipeFormat::NONE, "{f}");
        assert_eq!(Format::from_pipe(p), Some(*f));
    }
    assert_eq!(Format::Rgb16Float.bytes_per_texel(), 6);
}

#[test]
fn compare_functions_are_named_by_their_lower_case_words() {
    use crate::texture::CompareFunc as C;
    let words = [
        ("never", C::Never),
        ("less", C::Less),
        ("equal", C::Equal),
        ("less_equal", C::LessEqual),
        ("greater", C::Greater),
        ("not_equal", C::NotEqual),
        ("greater_equal", C::GreaterEqual),
        ("always", C::Always),
    ];
    for (w, f) in words {
        assert_eq!(C::from_word(w), Some(f), "{w}");
    }
    assert_eq!(C::from_word("LESS"), None);
    assert_eq!(C::from_word("lequal"), None);
}

#[test]
fn resource_limits_and_layout() {
    // 32768^2 texels * 16 bytes = 16 GiB > 1 GiB
    assert!(
        Texture::new(T::Tex2D, Format::Rgba32Float, [32768, 32768, 1], 1, 1, 1)
            .unwrap_err()
            .contains("limit")
    );
    assert!(Texture::new(T::Cube, Format::R8Unorm, [4, 2, 1], 6, 1, 1).is_err());
    assert!(Texture::new(T::Tex2D, Format::R8Unorm, [4, 4, 1], 1, 4, 1).is_err()); // 4x4 has 3 levels
    assert!(Texture::new(T::Tex2D, Format::R8Unorm, [4, 4, 1], 1, 1, 4).is_err()); // not MSAA
    let t = Texture::new(T::Tex2D, Format::R8Unorm, [5, 3, 1], 1, 3, 1).unwrap();
    assert_eq!(t.level_dims(1), (2, 1, 1));
    assert_eq!(t.level_dims(2), (1, 1, 1));
    assert_eq!(t.levels[0].len(), 15);
    // 2D array given as [w, h, layers]
    let a = Texture::new(T::Array2D, Format::R8Unorm, [2, 2, 3], 1, 1, 1).unwrap();
    assert_eq!((a.layers, a.depth), (3, 1));
    let c = Texture::new(T::Cube, Format::R8Unorm, [2, 2, 1], 1, 1, 1).unwrap();
    assert_eq!(c.layers, 6);
    // texel offset: ((z*h + y)*w + x)*samples + s
    let m = Texture::new(T::Msaa2D, Format::R32Uint, [3, 2, 1], 1, 1, 4).unwrap();
    assert_eq!(
        m.texel_offset(0, 1, 1, 0, 2),
        Some(((3 + 1) * 4 + 2) * 4) // z = 0, y = 1, w = 3, x = 1, 4 samples, sample 2, 4 bytes
    );
    assert_eq!(m.texel_offset(0, 3, 0, 0, 0), None);
}

/// The 16-lane RGBA16F conversions give the bytes of `encode_into` and the
/// words of `decode` on edge values (NaNs, infinities, overflow past
/// 65504, halves' denormals and ties) and random words.
#[test]
fn rgba16f_lanes_give_the_bytes_of_encode_into_and_decode() {
    use crate::texture::format::{rgba16f_decode_lanes, rgba16f_encode_lanes};
    let mut rng = tgsi_ir::rng::Rng(0x16f_1a4e5);
    let edges = tgsi_ir::rng::EDGE_F32;
    let special = [
        65504.0f32,
        65520.0,
        65519.99,
        6.1e-5,
        5.96e-8,
        2.98e-8,
        1.0 + 1.0 / 2048.0,
    ];
    for round in 0..2000 {
        let rows: [[u32; 16]; 4] = std::array::from_fn(|c| {
            std::array::from_fn(|l| match (round + c + l) % 4 {
                0 => edges[rng.below(edges.len() as u64) as usize],
                1 => {
                    special[rng.below(special.len() as u64) as usize].to_bits()
                        ^ ((rng.next() as u32) & 0x8000_0000)
                }
                2 => (rng.uniform(-70000.0, 70000.0) as f32).to_bits(),
                _ => rng.next() as u32,
            })
        });
        let lanes = rgba16f_encode_lanes(&rows);
        for l in 0..16 {
            let one: [u32; 4] = std::array::from_fn(|c| rows[c][l]);
            let mut want = [0u8; 8];
            Format::Rgba16Float.encode_into(one, &mut want);
            assert_eq!(lanes[l], want, "{one:08x?}");
        }
        let texels: [[u8; 8]; 16] = std::array::from_fn(|_| (rng.next()).to_le_bytes());
        let decoded = rgba16f_decode_lanes(&texels);
        for (l, t) in texels.iter().enumerate() {
            let one: [u32; 4] = std::array::from_fn(|c| decoded[c][l].to_bits());
            assert_eq!(one, Format::Rgba16Float.decode(t), "{t:?}");
        }
    }
}

/// The RGBA8 encoder gives the bytes of the general encoder and of
/// `encode_direct3d_into` on edge values and random words (one texel, and
/// 16 lanes side by side), and the decode
/// fast paths the general decoder's words, for UNORM and sRGB; other
/// formats have no encoder.
#[test]
fn rgba8_encoder_gives_the_bytes_of_encode_into() {
    use crate::texture::format::Rgba8Encoder;
    let mut rng = tgsi_ir::rng::Rng(0x5ab_0e7c_0de5);
    let edges = tgsi_ir::rng::EDGE_F32;
    for format in [Format::Rgba8Unorm, Format::Rgba8Srgb] {
        let e = Rgba8Encoder::of(format).expect("an RGBA8 encoder");
        for i in 0..20_000 {
            let v: [u32; 4] = std::array::from_fn(|c| match (i + c) % 3 {
                0 => edges[rng.below(edges.len() as u64) as usize],
                1 => (rng.uniform(-0.25, 1.25) as f32).to_bits(),
                _ => rng.next() as u32,
            });
            let (mut plain, mut d3d) = ([0u8; 4], [0u8; 4]);
            format.encode_into_general(v, &mut plain);
            format.encode_direct3d_into(v, &mut d3d);
            assert_eq!(e.encode(v), plain, "{format:?} {v:x?}");
            assert_eq!(plain, d3d, "{format:?} {v:x?}");
            // the 16-lane form: this value in lane i % 16, others around it
            let mut rows = [[0u32; 16]; 4];
            for (c, row) in rows.iter_mut().enumerate() {
                *row = std::array::from_fn(|_| rng.next() as u32);
                row[i % 16] = v[c];
            }
            let lanes = e.encode_lanes(&rows);
            for l in 0..16 {
                let one = std::array::from_fn(|c| rows[c][l]);
                assert_eq!(lanes[l], e.encode(one), "{format:?} {one:x?}");
            }
            // and back: 16 texels side by side, as the decoder reads each
            let texels: [u32; 16] = std::array::from_fn(|_| rng.next() as u32);
            let decoded = e.decode_lanes(&texels);
            for (l, t) in texels.iter().enumerate() {
                let one: [u32; 4] = std::array::from_fn(|c| decoded[c][l].to_bits());
                assert_eq!(one, format.decode(&t.to_le_bytes()), "{format:?} {t:08x}");
            }
            let texel = (rng.next() as u32).to_le_bytes();
            assert_eq!(
                format.decode(&texel),
                format.decode_general(&texel),
                "{format:?} {texel:?}"
            );
        }
    }
    assert!(Rgba8Encoder::of(Format::Bgra8Unorm).is_none());
}

/// The 16-lane UNORM8 encode (where the CPU has AVX-512, one fused
/// multiply-add per row) gives the one-texel codes (the exact product in
/// f64) at the floats around every halfway point between two codes, at the
/// one exact tie (0.5, 127.5 to even 128), at both ends of every value of
/// the top 16 bits of [0, 1], and outside [0, 1] (NaN, infinities,
/// negative zero, above 1).
#[test]
fn unorm8_lanes_match_the_texel_encode_around_every_halfway_point() {
    use crate::texture::format::Rgba8Encoder;
    let e = Rgba8Encoder::of(Format::Rgba8Unorm).expect("an RGBA8 encoder");
    let mut values = vec![0.5f32.to_bits()];
    for k in 0..255u32 {
        let half = ((f64::from(k) + 0.5) / 255.0) as f32;
        values.extend((half.to_bits() - 4)..=(half.to_bits() + 4));
    }
    for top in 0..=(1.0f32.to_bits() >> 16) {
        values.extend([top << 16, (top << 16) | 0xffff]);
    }
    values.extend(tgsi_ir::rng::EDGE_F32);
    let mut seen = [false; 256];
    for chunk in values.chunks(16) {
        let mut rows = [[0u32; 16]; 4];
        for (l, &v) in chunk.iter().enumerate() {
            // the value in every row, rotated so each row sees it
            for (c, row) in rows.iter_mut().enumerate() {
                row[(l + c) % 16] = v;
            }
        }
        let lanes = e.encode_lanes(&rows);
        for l in 0..16 {
            let one = std::array::from_fn(|c| rows[c][l]);
            assert_eq!(lanes[l], e.encode(one), "{one:x?}");
            seen[usize::from(lanes[l][0])] = true;
        }
    }
    assert!(seen.iter().all(|s| *s), "every code met");
    assert_eq!(e.encode([0.5f32.to_bits(); 4]), [128; 4], "ties to even");
}

/// The 16-lane sRGB encode (one table lookup per colour row where the CPU has
/// AVX-512) gives the one-texel codes around every step of the table (the
/// step, the float below and above it) and at both ends of every value of
/// the top 16 bits.
#[test]
fn srgb8_lanes_match_the_texel_encode_around_every_step() {
    use crate::texture::format::Rgba8Encoder;
    let e = Rgba8Encoder::of(Format::Rgba8Srgb).expect("an RGBA8 encoder");
    let mut values = Vec::new();
    for code in 1..=255u8 {
        let step = least_with_code(linear_to_srgb_curve, code, 1.0f32.to_bits());
        values.extend([step - 1, step, step + 1]);
    }
    for top in 0..=(1.0f32.to_bits() >> 16) {
        values.extend([top << 16, (top << 16) | 0xffff]);
    }
    for chunk in values.chunks(16) {
        let mut rows = [[0u32; 16]; 4];
        for (l, &v) in chunk.iter().enumerate() {
            // the value in each colour row, rotated so every row sees it
            for (c, row) in rows.iter_mut().enumerate().take(3) {
                row[(l + c) % 16] = v;
            }
        }
        let lanes = e.encode_lanes(&rows);
        for l in 0..16 {
            let one = std::array::from_fn(|c| rows[c][l]);
            assert_eq!(lanes[l], e.encode(one), "{one:x?}");
        }
    }
}

/// The RGBA8 UNORM encoder (a step table) gives `float_to_unorm`'s code
/// around every rounding boundary (k + 0.5) / 255 and at every k / 255.
#[test]
fn unorm8_steps_match_the_rounding_around_every_boundary() {
    use crate::texture::format::{Rgba8Encoder, float_to_unorm};
    let e = Rgba8Encoder::of(Format::Rgba8Unorm).expect("an RGBA8 encoder");
    for k in 0..=255u32 {
        for centre in [(k as f64 + 0.5) / 255.0, k as f64 / 255.0] {
            let bits = (centre as f32).to_bits() as i64;
            for d in -3..=3i64 {
                let f = f32::from_bits((bits + d).max(0) as u32);
                let want = float_to_unorm(f, 8) as u8;
                assert_eq!(e.encode([f.to_bits(); 4]), [want; 4], "{f:e}");
            }
        }
    }
}

/// The side-by-side decode of RGBA8 UNORM and sRGB texels (16 words at
/// once, and four quads' rows of two texels) gives `Format::decode`'s
/// floats for every byte in every channel.
#[test]
fn rgba8_lanes_decode_every_byte_as_one_texel_does() {
    use crate::texture::format::Rgba8Encoder;
    for format in [Format::Rgba8Unorm, Format::Rgba8Srgb] {
        let e = Rgba8Encoder::of(format).expect("an RGBA8 encoder");
        for first in (0..=255u32).step_by(16) {
            // lane l: byte first + l in red, rotated through the others
            let texels: [u32; 16] = std::array::from_fn(|l| {
                let b = first + l as u32;
                b | (255 - b) << 8 | (b ^ 0x5a) << 16 | ((b * 7) & 0xff) << 24
            });
            let bytes = texels.map(u32::to_le_bytes);
            let pairs: [[u8; 8]; 8] =
                std::array::from_fn(|i| std::array::from_fn(|k| bytes[2 * i + k / 4][k % 4]));
            let wide = e.decode_lanes(&texels);
            let paired = e.decode_pairs(std::array::from_fn(|i| &pairs[i]));
            for l in 0..16 {
                let one = format.decode(&bytes[l]);
                for c in 0..4 {
                    assert_eq!(wide[c][l].to_bits(), one[c], "{format:?} {:#x}", texels[l]);
                    assert_eq!(paired[c][l].to_bits(), one[c], "{format:?} pairs");
                }
            }
        }
    }
}
