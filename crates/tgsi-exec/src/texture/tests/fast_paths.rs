//! The fast paths against the general ones, bit for bit: the sampling
//! core's 2D path, the encode and decode fast paths, and the batch
//! bilinear path of whole instructions (over random textures and hostile
//! coordinates), and the batch path's UNORM8 decode.

use super::*;

/// A random `w`×`h` texture of `target`: random layers (arrays) and levels
/// (not RECT), random bytes, and now and then a level whose bytes end early
/// (texels past them read zeros).
fn random_texture(rng: &mut Xs, fmt: Format, target: T, w: u32, h: u32) -> Texture {
    let layers = if target == T::Array2D {
        1 + rng.below(4) as u32
    } else {
        1
    };
    let levels = if target == T::Rect {
        1
    } else {
        1 + rng.below(crate::texture::resource::full_chain(w, h, 1) as u64) as u32
    };
    let mut tex = Texture::new(target, fmt, [w, h, 1], layers, levels, 1).unwrap();
    for lv in tex.levels.iter_mut() {
        for b in lv.iter_mut() {
            *b = rng.next() as u8;
        }
        if rng.below(10) == 0 {
            let keep = rng.below(lv.len() as u64 + 1) as usize;
            lv.truncate(keep);
        }
    }
    tex
}

/// A small deterministic generator for the differential tests (xorshift64*).
struct Xs(u64);

impl Xs {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A coordinate that is often special: out of range, negative, NaN,
    /// infinite, huge, tiny, or exactly on a texel edge or centre of `n`.
    fn coord(&mut self, n: u32, normalized: bool) -> f32 {
        let scale = if normalized { 1.0 / n as f32 } else { 1.0 };
        match self.below(12) {
            0 => f32::NAN,
            1 => [f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -f32::MAX][self.below(4) as usize],
            2 => f32::from_bits(self.next() as u32),
            3 => (self.below(4 * n as u64 + 1) as f32 - 2.0 * n as f32) * scale,
            4 => (self.below(4 * n as u64 + 1) as f32 - 2.0 * n as f32 + 0.5) * scale,
            5 => [0.0, -0.0, 1e-30, -1e-30, 1.0, -1.0][self.below(6) as usize],
            6 => (self.below(1 << 26) as f32 - 33_554_432.0) * scale,
            _ => {
                let x = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
                (x * 6.0 - 2.5) * n as f32 * scale
            }
        }
    }
}

/// The 2D fast path of the sampling core returns the same bits as the
/// general path for every wrap, filter, offset, size (including non powers
/// of two), layer, level and float/norm format, on random texel bytes
/// (including NaN and infinite floats) and random or special coordinates.
#[test]
fn sample_2d_fast_path_matches_general_path() {
    use crate::texture::sample::{Bound, Lookup};
    let wraps = [
        Wrap::Repeat,
        Wrap::Clamp,
        Wrap::ClampToEdge,
        Wrap::ClampToBorder,
        Wrap::MirrorRepeat,
        Wrap::MirrorClamp,
        Wrap::MirrorClampToEdge,
        Wrap::MirrorClampToBorder,
    ];
    let formats = [
        Format::Rgba8Unorm,
        Format::R8Unorm,
        Format::Rgba32Float,
        Format::Rgba16Float,
        Format::Rg16Snorm,
        Format::Bgra8Srgb,
        Format::Rgb10a2Unorm,
        Format::Rg11b10Float,
        Format::R32Float,
    ];
    let targets = [T::Tex2D, T::Array2D, T::Rect];
    let mut rng = Xs(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for round in 0..60 {
        let fmt = formats[round % formats.len()];
        let target = targets[round % targets.len()];
        let w = 1 + rng.below(if round % 4 == 0 { 3 } else { 37 }) as u32;
        let h = 1 + rng.below(if round % 5 == 0 { 2 } else { 29 }) as u32;
        let tex = random_texture(&mut rng, fmt, target, w, h);
        let layers = tex.layers;
        let view = View::default();
        let bd = Bound::resolve(&tex, &view, target).unwrap();
        for _ in 0..400 {
            let mut s = Sampler::default();
            for a in 0..3 {
                s.wrap[a] = wraps[rng.below(8) as usize];
            }
            s.normalized = rng.below(4) != 0;
            for c in 0..4 {
                s.border[c] = match rng.below(3) {
                    0 => rng.next() as u32,
                    1 => f32::NAN.to_bits(),
                    _ => (rng.below(5) as f32 * 0.5 - 1.0).to_bits(),
                };
            }
            let rel = rng.below(bd.nlevels as u64) as u32;
            let (lw, lh, _) = bd.dims(rel);
            let norm = s.normalized && target != T::Rect;
            let q = Lookup {
                coord: [rng.coord(lw, norm), rng.coord(lh, norm), 0.0],
                layer: match rng.below(4) {
                    0 => f32::NAN,
                    1 => rng.coord(layers, false),
                    _ => rng.below(layers as u64 + 2) as f32 - 1.0 + 0.5 * rng.below(2) as f32,
                },
                offset: [
                    rng.below(17) as i32 - 8,
                    rng.below(17) as i32 - 8,
                    rng.below(17) as i32 - 8,
                ],
            };
            for filter in [Filter::Nearest, Filter::Linear] {
                let fast = bd.sample_level_2d(&s, &q, rel, filter);
                let general = bd.sample_level_general(&s, &q, rel, filter, None);
                assert_eq!(
                    fast, general,
                    "{fmt} {target:?} {w}x{h}x{layers} level {rel} {filter:?} {s:?} {q:?}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 60 * 400 * 2);
}

/// The rgba8 (UNORM, sRGB) / rgba32 encode fast paths write the same bytes as the general
/// encoder, for random bits (NaN, infinities, out of range) and for short
/// output slices.
#[test]
fn encode_fast_paths_match_general_encoder() {
    let mut rng = Xs(0x1234_5678_9abc_def1);
    let specials = [
        f32::NAN.to_bits(),
        f32::INFINITY.to_bits(),
        f32::NEG_INFINITY.to_bits(),
        0.5f32.to_bits(),
        (0.5f32 / 255.0).to_bits(),
        (1.5f32 / 255.0).to_bits(),
        (-0.0f32).to_bits(),
        1.0f32.to_bits(),
        2.0f32.to_bits(),
    ];
    for fmt in [
        Format::Rgba8Unorm,
        Format::Rgba8Srgb,
        Format::Rgba32Float,
        Format::Rgba32Uint,
        Format::Rgba32Sint,
        Format::Rgba16Float,
    ] {
        for i in 0..20_000 {
            let v = [0; 4].map(|_| match rng.below(3) {
                0 => specials[rng.below(specials.len() as u64) as usize],
                1 => ((rng.next() >> 40) as f32 / (1u64 << 24) as f32).to_bits(),
                _ => rng.next() as u32,
            });
            let len = if i % 7 == 0 {
                rng.below(17) as usize
            } else {
                fmt.bytes_per_texel()
            };
            let mut fast = vec![0xa5u8; len];
            let mut general = vec![0xa5u8; len];
            fmt.encode_into(v, &mut fast);
            fmt.encode_into_general(v, &mut general);
            assert_eq!(fast, general, "{fmt} {v:x?} into {len} bytes");
            // and the decode fast paths read back what the general decoder does
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            assert_eq!(
                fmt.decode(&bytes),
                fmt.decode_general(&bytes),
                "{fmt} {bytes:x?}"
            );
        }
    }
}

/// The batch bilinear path (2D RGBA8 UNORM / sRGB / RGBA32F views, linear
/// min and mag) gives the same bits as the per-lane general path for whole
/// instructions: every wrap mode on power-of-two and other sizes,
/// normalized and texel coordinates, offsets, array layers, RECT, views of
/// some levels and layers with a swizzle, SVIEW swizzles, mip
/// NONE/NEAREST/LINEAR with explicit, biased, projective, gradient and
/// implicit LODs, partial masks, lanes split over two samplers, random
/// texel bytes (NaN and infinite floats included), level data cut short,
/// and random or special coordinates (edges, negative, huge, NaN,
/// infinite), scattered or every lane close to one point.
#[test]
fn batch_bilinear_matches_general_path() {
    let targets = [T::Tex2D, T::Array2D, T::Rect];
    let mut rng = Xs(0x0123_4567_89ab_cdef);
    let mut batched = 0;
    for round in 0..120 {
        let fmt = [Format::Rgba8Unorm, Format::Rgba32Float, Format::Rgba8Srgb][round % 3];
        let target = targets[round / 2 % targets.len()];
        let pow2 = round % 4 == 0;
        let size = |r: &mut Xs, n: u64| {
            if pow2 {
                1 << r.below(6)
            } else {
                1 + r.below(n) as u32
            }
        };
        let (w, h) = (size(&mut rng, 37), size(&mut rng, 29));
        let tex = random_texture(&mut rng, fmt, target, w, h);
        batched += instructions_match(&mut rng, tex, fmt, target, false, 150);
    }
    // most instructions took the batch path
    assert!(batched > 120 * 150 / 2, "{batched}");
}

/// Batches whose lanes are close together (magnified blocks) on 2D RGBA8
/// levels of 8 to 64 texels a side: the batch path gives the general
/// path's bits at the level's edges, repeats away, over spreads of a few
/// texels, with partial masks and every wrap.
#[test]
fn magnified_blocks_match_general_path() {
    let mut rng = Xs(0x007e_57b1_0c0f_1a7e);
    for round in 0..48 {
        let fmt = [Format::Rgba8Srgb, Format::Rgba8Unorm][round % 2];
        let target = [T::Tex2D, T::Rect][round / 2 % 2];
        let size = |r: &mut Xs| {
            if round % 3 != 0 {
                8 << r.below(4)
            } else {
                8 + r.below(57) as u32
            }
        };
        let (w, h) = (size(&mut rng), size(&mut rng));
        let tex = random_texture(&mut rng, fmt, target, w, h);
        instructions_match(&mut rng, tex, fmt, target, true, 800);
    }
}

/// `count` random instructions on `tex` (of format `fmt` and target
/// `target`) through a random view and two random samplers, each checked
/// by [`batch_instruction_matches`] (every batch's lanes close together
/// when `close`); how many took the batch path.
fn instructions_match(
    rng: &mut Xs,
    tex: Texture,
    fmt: Format,
    target: T,
    close: bool,
    count: usize,
) -> usize {
    let size = [tex.width, tex.height];
    let (layers, levels) = (tex.layers, tex.levels.len() as u32);
    let samplers = vec![batch_sampler(rng), batch_sampler(rng)];
    let textures = vec![Some(tex)];
    let views = vec![random_view(rng, levels, layers)];
    let case = BatchCase {
        b: Bindings {
            textures: &textures,
            views: &views,
            samplers: &samplers,
            images: &[],
            linear: None,
        },
        fmt,
        target,
        size,
        layers,
        levels,
        close,
    };
    (0..count)
        .filter(|_| batch_instruction_matches(rng, &case))
        .count()
}

/// One texture of [`batch_bilinear_matches_general_path`] with its view
/// and samplers bound.
struct BatchCase<'a> {
    b: Bindings<'a>,
    fmt: Format,
    target: T,
    /// width and height of level 0
    size: [u32; 2],
    layers: u32,
    levels: u32,
    /// every batch's lanes close together
    close: bool,
}

/// A sampler the batch path mostly covers: linear min, mostly linear mag,
/// random wraps, mip filter, units, LOD bias and border colour.
fn batch_sampler(rng: &mut Xs) -> Sampler {
    let mips = [MipFilter::None, MipFilter::Nearest, MipFilter::Linear];
    let mut s = Sampler::default();
    for a in 0..3 {
        s.wrap[a] = WRAPS[rng.below(8) as usize];
    }
    s.min = Filter::Linear;
    s.mag = if rng.below(8) == 0 {
        Filter::Nearest
    } else {
        Filter::Linear
    };
    s.mip = mips[rng.below(3) as usize];
    s.normalized = rng.below(4) != 0;
    s.lod_bias = rng.below(5) as f32 * 0.5 - 1.0;
    for c in 0..4 {
        s.border[c] = match rng.below(3) {
            0 => rng.next() as u32,
            1 => f32::NAN.to_bits(),
            _ => (rng.below(5) as f32 * 0.5 - 1.0).to_bits(),
        };
    }
    s
}

/// The whole texture, or now and then a view of some of its `levels` and
/// `layers` with a random swizzle.
fn random_view(rng: &mut Xs, levels: u32, layers: u32) -> View {
    let mut view = View::default();
    if rng.below(3) == 0 {
        let sw = [
            Swizzle::R,
            Swizzle::G,
            Swizzle::B,
            Swizzle::A,
            Swizzle::Zero,
            Swizzle::One,
        ];
        view.swizzle = std::array::from_fn(|_| sw[rng.below(6) as usize]);
        view.first_level = rng.below(levels as u64) as u32;
        view.last_level = view.first_level + rng.below(3) as u32;
        view.first_layer = rng.below(layers as u64) as u32;
        view.last_layer = view.first_layer + rng.below(3) as u32;
    }
    view
}

/// One random instruction on `case` run on the batch and the per-lane
/// paths, which must give the same result and the same bits; true when
/// its lanes use one sampler with a linear mag filter (so that the batch
/// path took it).
fn batch_instruction_matches(rng: &mut Xs, case: &BatchCase) -> bool {
    use crate::texture::exec::execute_with;
    use Opcode as O;
    let BatchCase {
        fmt,
        target,
        size: [w, h],
        layers,
        levels,
        ..
    } = *case;
    let (mut c0, c1, offsets) = batch_coords(rng, case);
    let (opcode, fragment) = [
        (O::SAMPLE, false),
        (O::SAMPLE, true),
        (O::SAMPLE_L, false),
        (O::TXL, false),
        (O::TEX, true),
        (O::TXP, true),
        (O::TXP, false),
        (O::SAMPLE_B, true),
        (O::TXD, false),
    ][rng.below(9) as usize];
    // TXP's w: near 1, or anything
    for l in 0..LANES {
        if opcode == O::TXP && rng.below(4) != 0 {
            c0[3][l] = (1.0 + rng.below(5) as f32 * 0.25).to_bits();
        }
    }
    let samp: [u32; LANES] = if rng.below(6) == 0 {
        std::array::from_fn(|_| rng.below(2) as u32)
    } else {
        [rng.below(2) as u32; LANES]
    };
    let active = match rng.below(3) {
        0 => ALL,
        1 => rng.next() as u16,
        _ => 1 << rng.below(16),
    };
    let resource_swizzle = if rng.below(3) == 0 {
        std::array::from_fn(|_| rng.below(4) as u8)
    } else {
        [0, 1, 2, 3]
    };
    let op = TexOp {
        opcode,
        target,
        resource_swizzle,
        gather_component: 0,
        return_type: None,
        fragment,
    };
    // TXD's gradients (src1, src2): small or large
    let mut c2 = [[0u32; LANES]; 4];
    for l in 0..LANES {
        c2[0][l] = (rng.below(9) as f32 * 0.125 - 0.5).to_bits();
        c2[1][l] = (rng.below(9) as f32 * 0.0625).to_bits();
    }
    let srcs = [c0, c1, c2];
    let inputs = TexInputs {
        srcs: &srcs,
        sview: &[0; LANES],
        sampler: &samp,
        offsets: &offsets,
        active,
    };
    let mut fast = [[0xdead_beefu32; LANES]; 4];
    let mut general = fast;
    let r1 = execute_with(&case.b, &op, &inputs, &mut fast, true);
    let r2 = execute_with(&case.b, &op, &inputs, &mut general, false);
    assert_eq!(r1, r2);
    let samplers = case.b.samplers;
    assert_eq!(
        fast, general,
        "{fmt} {target:?} {w}x{h}x{layers}, {levels} levels, {opcode:?} fragment {fragment}, samplers {samplers:?}, lanes {samp:?}, active {active:#x}, coords {c0:?}"
    );
    let s = &samplers[samp[0] as usize];
    samp.iter().all(|&i| i == samp[0]) && s.mag == Filter::Linear
}

/// Random coordinates (`c0`: s, t, layer and a LOD, bias or projection
/// w), `c1` (an explicit LOD or bias in x) and texel offsets for the
/// lanes, with quads of close coordinates now and then (implicit LODs).
fn batch_coords(rng: &mut Xs, case: &BatchCase) -> (Reg, Reg, Reg) {
    let [w, h] = case.size;
    let norm = case.target != T::Rect;
    let mut c0 = [[0u32; LANES]; 4];
    let mut c1 = [[0u32; LANES]; 4];
    let mut offsets = [[0u32; LANES]; 4];
    for l in 0..LANES {
        c0[0][l] = rng.coord(w, norm).to_bits();
        c0[1][l] = rng.coord(h, norm).to_bits();
        c0[2][l] = (rng.below(case.layers as u64 + 2) as f32 - 1.0).to_bits();
        c0[3][l] = (rng.below(9) as f32 * 0.75 - 2.0).to_bits();
        c1[0][l] = (rng.below(13) as f32 * 0.5 - 2.0).to_bits();
        for a in 0..2 {
            offsets[a][l] = (rng.below(17) as i32 - 8) as u32;
        }
    }
    // now and then every lane close to one point (a magnified block):
    // spread over up to a few texels, at edges and repeats away, one
    // offset for all
    if case.close || rng.below(3) == 0 {
        let offset = [rng.below(3) as u32, rng.below(3) as u32].map(|o| o.wrapping_sub(1));
        for a in 0..2 {
            let spread = [0.5f32, 1.5, 2.5, 6.5, 9.0][rng.below(5) as usize];
            let n = [w, h][a];
            let unit = if norm { 1.0 / n as f32 } else { 1.0 };
            let base = match rng.below(3) {
                0 => rng.coord(n, norm),
                // an edge of the level, some repeats away
                1 => (rng.below(7) as f32 - 3.0) * n as f32 * unit,
                _ => (rng.below(4 * n as u64) as f32 - n as f32) * unit,
            };
            for l in 0..LANES {
                let jitter = (rng.next() >> 40) as f32 / (1u64 << 24) as f32;
                c0[a][l] = (base + jitter * spread * unit).to_bits();
                offsets[a][l] = offset[a];
            }
        }
        return (c0, c1, offsets);
    }
    // quads of close coordinates now and then (implicit LODs)
    if rng.below(2) == 0 {
        for l in 0..LANES {
            let q = l & !3;
            for a in 0..2 {
                let base = f32::from_bits(c0[a][q]);
                c0[a][l] = (base + (l & 3) as f32 * 0.01).to_bits();
            }
        }
    }
    (c0, c1, offsets)
}

/// The batch path's UNORM8 decode (a reciprocal multiply corrected by two
/// FMAs) gives the bits of the decode table, `byte / 255` rounded once,
/// for every byte.
#[test]
fn unorm8_by_reciprocal_is_exact() {
    for b in 0..=255u8 {
        assert_eq!(
            crate::texture::bilinear::unorm8(b as f32).to_bits(),
            crate::texture::format::UNORM8[b as usize].to_bits(),
            "{b}"
        );
    }
}

/// The four-lane log2 gives `libm::log2f`'s bits: over a sweep of every
/// 61st float bit pattern (both signs, zeros, subnormals, infinities and
/// NaNs among them) and around 1.
#[test]
fn log2f_lanes_is_libm_log2f() {
    use crate::texture::sample::log2f_lanes;
    let mut bits = (0..=u32::MAX).step_by(61).chain(0x3f7f_ff00..0x3f80_0100);
    loop {
        let x: [f32; 4] = std::array::from_fn(|_| f32::from_bits(bits.next().unwrap_or(0)));
        let got = log2f_lanes(x);
        for l in 0..4 {
            let want = libm::log2f(x[l]);
            assert!(
                got[l].to_bits() == want.to_bits() || got[l].is_nan() && want.is_nan(),
                "log2({:e} = {:#x}): {} against {}",
                x[l],
                x[l].to_bits(),
                got[l],
                want
            );
        }
        if x[3].to_bits() == 0 && x[0].to_bits() == 0 {
            break;
        }
    }
}

/// A batch's four quad lambdas side by side are [`Bound::lambda`]'s, on
/// 2D, array and RECT views, normalized and not, over random coordinates
/// (tiny, huge, NaN and infinite derivatives among them); other views
/// have none.
#[test]
fn quad_lambdas_are_the_lambda_of_each_quad() {
    use crate::texture::sample::Bound;
    let mut rng = Xs(0x01a4_bda5);
    for (target, w, h) in [(T::Tex2D, 64, 32), (T::Array2D, 7, 300), (T::Rect, 33, 5)] {
        let tex = random_texture(&mut rng, Format::Rgba8Unorm, target, w, h);
        let bd = Bound::resolve(&tex, &View::default(), target).unwrap();
        for round in 0..4000 {
            let s = Sampler {
                normalized: round % 3 != 0,
                ..Sampler::default()
            };
            let mut c = [[0u32; LANES]; 4];
            for row in c.iter_mut().take(2) {
                for v in row.iter_mut() {
                    *v = match rng.below(12) {
                        0 => f32::NAN.to_bits(),
                        1 => f32::INFINITY.to_bits(),
                        2 => (rng.below(1000) as f32 * 1e-30).to_bits(),
                        3 => rng.next() as u32,
                        _ => (rng.below(1 << 20) as f32 / 65536.0).to_bits(),
                    };
                }
            }
            let got = bd.quad_lambdas_2d(&s, &c).expect("a 2D view");
            for q in 0..4 {
                let f = |a: usize, l: usize| f32::from_bits(c[a][4 * q + l]);
                let coord = [f(0, 0), f(1, 0), 0.0];
                let ddx = [f(0, 1) - f(0, 0), f(1, 1) - f(1, 0), 0.0];
                let ddy = [f(0, 2) - f(0, 0), f(1, 2) - f(1, 0), 0.0];
                let want = bd.lambda(&s, coord, ddx, ddy);
                assert!(
                    got[q].to_bits() == want.to_bits() || got[q].is_nan() && want.is_nan(),
                    "{target:?} quad {q}: {} against {want}",
                    got[q]
                );
            }
        }
    }
    let tex = random_texture(&mut rng, Format::Rgba8Unorm, T::Tex3D, 4, 4);
    let bd = Bound::resolve(&tex, &View::default(), T::Tex3D).unwrap();
    assert!(
        bd.quad_lambdas_2d(&Sampler::default(), &[[0; LANES]; 4])
            .is_none()
    );
}

/// Fragment TEX on a mipmapped texture whose quads step by about one texel
/// (derivative lengths just under, at and just over 1, so LODs at and
/// around 0), under biases and minimum LODs of both signs: the batch path
/// (which leaves out the lambdas when every quad magnifies) gives the
/// per-lane path's bits.
#[test]
fn magnified_quads_match_the_general_path() {
    use crate::texture::exec::execute_with;
    let mut rng = Xs(0x5eed_1e55_0dd5_a11e);
    let mut tex = Texture::new(T::Tex2D, Format::Rgba8Srgb, [16, 16, 1], 1, 5, 1).unwrap();
    for lv in tex.levels.iter_mut() {
        for b in lv.iter_mut() {
            *b = rng.next() as u8;
        }
    }
    let textures = vec![Some(tex)];
    let views = vec![View::default()];
    let steps = [
        1.0 / 16.0,
        0.999 / 16.0,
        1.001 / 16.0,
        f32::from_bits((1.0f32 / 16.0).to_bits() + 1),
        f32::from_bits((1.0f32 / 16.0).to_bits() - 1),
        0.5 / 16.0,
        3.0 / 16.0,
    ];
    let mut compared = 0;
    for (k, &step) in steps.iter().enumerate() {
        for (bias, min_lod) in [
            (0.0, 0.0),
            (-0.5, 0.0),
            (0.25, 0.0),
            (0.0, 0.5),
            (-1.0, -1.0),
        ] {
            // both derivatives alike, and each one alone deciding
            for [ax, ay] in [[1.0f32, 1.0], [1.0, 0.25], [0.25, 1.0]] {
                for mip in [MipFilter::Linear, MipFilter::Nearest] {
                    let s = Sampler {
                        min: Filter::Linear,
                        mag: Filter::Linear,
                        mip,
                        lod_bias: bias,
                        min_lod,
                        ..Sampler::default()
                    };
                    let samplers = vec![s];
                    let b = Bindings {
                        textures: &textures,
                        views: &views,
                        samplers: &samplers,
                        images: &[],
                        linear: None,
                    };
                    let mut c0 = [[0u32; LANES]; 4];
                    for l in 0..LANES {
                        let (dx, dy) = ((l & 1) as f32, ((l >> 1) & 1) as f32);
                        // every quad at its own place; quad 3 now and then steeper
                        let q = (l / 4) as f32;
                        let st = if l / 4 == 3 && k % 2 == 1 {
                            step * 2.0
                        } else {
                            step
                        };
                        c0[0][l] = (0.1 + 0.2 * q + dx * st * ax).to_bits();
                        c0[1][l] = (0.3 + 0.1 * q + dy * st * ay).to_bits();
                    }
                    let op = TexOp {
                        opcode: Opcode::TEX,
                        target: T::Tex2D,
                        resource_swizzle: [0, 1, 2, 3],
                        gather_component: 0,
                        return_type: None,
                        fragment: true,
                    };
                    let srcs = [c0];
                    let inputs = TexInputs {
                        srcs: &srcs,
                        sview: &[0; LANES],
                        sampler: &[0; LANES],
                        offsets: &[[0; LANES]; 4],
                        active: ALL,
                    };
                    let mut fast = [[0u32; LANES]; 4];
                    let mut general = fast;
                    execute_with(&b, &op, &inputs, &mut fast, true).unwrap();
                    execute_with(&b, &op, &inputs, &mut general, false).unwrap();
                    assert_eq!(
                        fast, general,
                        "step {step} ({ax}, {ay}), bias {bias}, min LOD {min_lod}, {mip:?}"
                    );
                    compared += 1;
                }
            }
        }
    }
    assert_eq!(compared, steps.len() * 30);
}
