//! TEX and SAMPLE sampled inline against the interpreter: fragment shaders
//! over whole targets with RGBA8 textures, magnified and minified, every
//! wrap the inline path takes and some it does not, swizzles, divergent
//! lanes and hostile coordinates. Every word must be the interpreter's.

use super::*;
use crate::tests::both;
use tgsi_exec::texture::{Filter, Format, MipFilter, Sampler, Swizzle, Texture, View, Wrap};
use tgsi_exec::{Draw, Limits, Resources};
use tgsi_ir::enums::TextureTarget;

/// A `size` x `size` 2D texture of `format` with `levels` levels of
/// pseudo-random bytes.
fn texture(format: Format, size: u32, levels: u32, seed: u32) -> Texture {
    texture_of(format, [size, size], levels, seed)
}

/// [`texture`] of `w` x `h` texels.
fn texture_of(format: Format, [w, h]: [u32; 2], levels: u32, seed: u32) -> Texture {
    let mut tex = Texture::new(TextureTarget::Tex2D, format, [w, h, 1], 1, levels, 1)
        .expect("a small 2D texture");
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    for level in &mut tex.levels {
        for b in level.iter_mut() {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *b = (x >> 8) as u8;
        }
    }
    tex
}

fn sampler(wrap: Wrap, mip: MipFilter) -> Sampler {
    Sampler {
        wrap: [wrap; 3],
        min: Filter::Linear,
        mag: Filter::Linear,
        mip,
        ..Sampler::default()
    }
}

/// The words `p` writes over a 24 x 20 target whose GENERIC[0] is
/// (x, y) · `scale` + `origin` (per pixel), with `tex`, `view` and `s` bound
/// at slot 0; run with and without linear copies of sRGB textures
/// (`Limits::linear_copies`), which must give the same words.
fn shade(p: &Program, tex: &Texture, view: View, s: Sampler, scale: f32, origin: f32) -> Words {
    let [copied, decoded] =
        [true, false].map(|copies| shade_copies(p, tex, view, s, [scale, origin], copies));
    assert!(copied == decoded, "linear copies change the words");
    copied
}

/// [`shade`] with decoded copies of the textures (`Limits::linear_copies`)
/// or without.
fn shade_copies(
    p: &Program,
    tex: &Texture,
    view: View,
    s: Sampler,
    [scale, origin]: [f32; 2],
    linear_copies: bool,
) -> Words {
    let mut draw = Draw::full_quad(24, 20);
    draw.varyings[0].plane = [
        [origin, scale, 0.0],
        [origin * 0.5, 0.0, scale],
        [0.25, scale, scale],
        [1.0, 0.0, 0.0],
    ];
    let mut res = Resources {
        textures: vec![Some(tex.clone())],
        views: vec![view],
        samplers: vec![s],
        ..Resources::default()
    };
    let limits = Limits {
        linear_copies,
        ..Limits::default()
    };
    let (words, _) = p
        .shade(&mut res, &draw, 1, &limits)
        .expect("the shader runs");
    words
}

/// The words a shader writes per target ([`shade`]).
type Words = Vec<Vec<[u32; 4]>>;

/// [`shade`] by the interpreter `interp` and the compiled code `jit`, and
/// how many instructions the compiled code handed to the interpreter.
fn shade_both(
    interp: &Program,
    jit: &Program,
    tex: &Texture,
    view: View,
    s: Sampler,
    scale: f32,
    origin: f32,
) -> (Words, Words, u64) {
    let want = shade(interp, tex, view, s, scale, origin);
    let (got, steps) = handler_steps(|| shade(jit, tex, view, s, scale, origin));
    (want, got, steps)
}

/// Compiles `src` both ways, checks the compiled code samples inline (no
/// handler calls), and compares the two over `cases` (texture, view,
/// sampler, coordinate scale and origin).
fn check(src: &str, cases: &[(Texture, View, Sampler, f32, f32)]) {
    let Some((interp, jit)) = both(src) else {
        return;
    };
    assert_eq!(handler_calls(&jit), Vec::<usize>::new(), "{src}");
    for (k, (tex, view, s, scale, origin)) in cases.iter().enumerate() {
        let want = shade(&interp, tex, *view, *s, *scale, *origin);
        let got = shade(&jit, tex, *view, *s, *scale, *origin);
        let first = want
            .iter()
            .flatten()
            .zip(got.iter().flatten())
            .position(|(w, g)| w != g);
        let shown = first.map(|i| {
            let w = want.iter().flatten().nth(i);
            let g = got.iter().flatten().nth(i);
            format!("word {i}: {w:x?} against {g:x?}")
        });
        assert!(want == got, "case {k} differs ({shown:?}):\n{src}");
    }
}

const PLAIN: &str = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
    DCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0..1]\n\
    0: MUL TEMP[0], IN[0], IN[0].wwww\n\
    1: TEX TEMP[1], TEMP[0], SAMP[0], 2D\n\
    2: ADD OUT[0], TEMP[1], TEMP[0]\n\
    3: END\n";

/// Every wrap the inline path takes (on power-of-two sizes).
const INLINE_WRAPS: [Wrap; 5] = [
    Wrap::Repeat,
    Wrap::Clamp,
    Wrap::ClampToEdge,
    Wrap::MirrorRepeat,
    Wrap::MirrorClampToEdge,
];

/// Every combination the inline path takes (sRGB, UNORM; every wrap of
/// [`INLINE_WRAPS`]; one level, mipmapped, magnified and minified; REPEAT
/// on a size that is not a power of two).
fn cases() -> Vec<(Texture, View, Sampler, f32, f32)> {
    let mut out = Vec::new();
    for (n, format) in [Format::Rgba8Srgb, Format::Rgba8Unorm]
        .into_iter()
        .enumerate()
    {
        for wrap in INLINE_WRAPS {
            for (levels, mip) in [(1, MipFilter::None), (5, MipFilter::Linear)] {
                let tex = texture(format, 16, levels, n as u32 * 7 + levels);
                let s = sampler(wrap, mip);
                // magnified (a texel over several pixels), around and past
                // the edges; minified
                for (scale, origin) in [(0.011, 0.02), (0.013, -0.4), (0.004, 0.97), (0.5, 0.1)] {
                    out.push((tex.clone(), View::full(), s, scale, origin));
                }
            }
        }
    }
    // a side that is not a power of two: REPEAT by the index's remainder
    let odd = Texture::new(
        TextureTarget::Tex2D,
        Format::Rgba8Srgb,
        [12, 12, 1],
        1,
        1,
        1,
    )
    .unwrap();
    out.push((
        odd,
        View::full(),
        sampler(Wrap::Repeat, MipFilter::None),
        0.02,
        0.1,
    ));
    out
}

#[test]
fn tex_of_rgba8_levels_matches_the_interpreter() {
    check(PLAIN, &cases());
}

#[test]
fn inline_samples_lists_the_planned_texture_instructions() {
    let Some((interp, jit)) = both(PLAIN) else {
        return;
    };
    assert_eq!(inline_samples(&jit), vec![1]);
    assert_eq!(inline_samples(&interp), Vec::<usize>::new());
    // an offset, a compute shader: not planned, the handler
    let offset = PLAIN.replace(
        "1: TEX TEMP[1], TEMP[0], SAMP[0], 2D",
        "1: TEX TEMP[1], TEMP[0], SAMP[0], 2D, IMM[0].xyz",
    );
    let offset = offset.replace(
        "DCL TEMP[0..1]\n",
        "DCL TEMP[0..1]\nIMM[0] INT32 {1, 0, 0, 0}\n",
    );
    if let Some((_, jit)) = both(&offset) {
        assert_eq!(inline_samples(&jit), Vec::<usize>::new());
        assert_eq!(handler_calls(&jit), vec![1]);
    }
}

#[test]
fn sample_with_swizzles_matches_the_interpreter() {
    // the resource operand's swizzle and the view's, every component (0.0
    // and 1.0 too), over the natively decoded formats and one read through
    // its decoded copy: the same bits, and the RGBA8 views sampled inline
    // (`shade` also runs without copies; the random RGBA32F texels hold
    // NaNs, whose batches go to the handler)
    let src = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
        DCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0..1]\n\
        0: SAMPLE TEMP[0], IN[0], SVIEW[0], SAMP[0]\n\
        1: SAMPLE TEMP[1], IN[0], SVIEW[0].yxwz, SAMP[0]\n\
        2: MAD OUT[0], TEMP[0], TEMP[1], IN[0]\n\
        3: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    use Swizzle::*;
    let swizzles = [
        [B, One, R, Zero],
        [A, A, G, R],
        [Zero, Zero, One, One],
        [R, G, B, A],
        [G, B, A, Zero],
    ];
    let s = sampler(Wrap::Repeat, MipFilter::Linear);
    let rgba8 = [Format::Rgba8Unorm, Format::Rgba8Srgb];
    for format in rgba8
        .into_iter()
        .chain([Format::Rgba32Float, Format::Rg16Unorm])
    {
        let tex = texture(format, 32, 6, 3);
        for swizzle in swizzles {
            let view = View {
                swizzle,
                ..View::full()
            };
            // magnified (the first level read: no handler) and minified
            for (scale, origin) in [(0.01, 0.3), (0.2, 0.3)] {
                let (want, got, steps) = shade_both(&interp, &jit, &tex, view, s, scale, origin);
                assert!(want == got, "{format:?} {swizzle:?} {scale}");
                if scale < 0.1 && rgba8.contains(&format) {
                    assert_eq!(steps, 0, "{format:?} {swizzle:?}");
                }
            }
        }
    }
}

#[test]
fn divergent_and_hostile_lanes_match_the_interpreter() {
    // TEX under UIF (the even columns: every quad half on), a NaN
    // coordinate in column 7 (its batches are not magnified), saturated
    // and written to two channels; then coordinates that are NaN, infinite
    // or past 2^24 in every lane (magnified: their derivatives are 0 or
    // the level is the only one)
    let src = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL IN[1], POSITION, LINEAR\n\
        DCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0..2]\n\
        IMM[0] FLT32 {7.5, 0.5, 0.0, 0.0}\n\
        0: MUL TEMP[2].x, IN[1].xxxx, IMM[0].yyyy\n\
        1: FRC TEMP[2].x, TEMP[2].xxxx\n\
        2: FSLT TEMP[2].y, TEMP[2].xxxx, IMM[0].yyyy\n\
        3: ADD TEMP[2].z, IN[1].xxxx, -IMM[0].xxxx\n\
        4: RCP TEMP[2].z, TEMP[2].zzzz\n\
        5: MUL TEMP[2].z, TEMP[2].zzzz, IMM[0].zzzz\n\
        6: ADD TEMP[0], IN[0], TEMP[2].zzzz\n\
        7: MOV TEMP[1], IMM[0].zzzz\n\
        8: UIF TEMP[2].yyyy\n\
        9:   TEX_SAT TEMP[1].xz, TEMP[0], SAMP[0], 2D\n\
        10: ENDIF\n\
        11: ADD OUT[0], TEMP[1], TEMP[0]\n\
        12: END\n";
    let mut all = cases();
    for (format, levels, mip) in [
        (Format::Rgba8Srgb, 1, MipFilter::None),
        (Format::Rgba8Unorm, 5, MipFilter::Nearest),
    ] {
        let tex = texture(format, 16, levels, 11);
        for wrap in [Wrap::Repeat, Wrap::ClampToEdge, Wrap::MirrorRepeat] {
            for origin in [f32::NAN, 3e7, -5e9, f32::NEG_INFINITY, 1e-30] {
                all.push((tex.clone(), View::full(), sampler(wrap, mip), 0.0, origin));
            }
        }
    }
    check(src, &all);
}

/// How many instructions the compiled code of this thread handed to the
/// interpreter while `f` ran.
fn handler_steps<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = crate::native::HANDLER_STEPS.with(|n| n.get());
    let out = f();
    (out, crate::native::HANDLER_STEPS.with(|n| n.get()) - before)
}

/// Minified batches whose lanes all read one level (or one level and the
/// next) sample inline: mip LINEAR and NEAREST, sRGB and UNORM, every wrap
/// the kernel takes, LODs between levels, on a level exactly, past the
/// last level, raised by the bias, held by the LOD range (a minimum above
/// 0: no magnification test at all), the same words as the interpreter
/// and no instruction handed to it.
#[test]
fn minified_batches_sample_inline_with_the_interpreters_bits() {
    let Some((interp, jit)) = both(PLAIN) else {
        return;
    };
    let mut cases = 0;
    for (n, format) in [Format::Rgba8Srgb, Format::Rgba8Unorm]
        .into_iter()
        .enumerate()
    {
        for wrap in INLINE_WRAPS {
            for mip in [MipFilter::Linear, MipFilter::Nearest] {
                let tex = texture(format, 32, 6, 5 + n as u32);
                for (bias, min_lod, max_lod) in [
                    (0.0, -1000.0, 1000.0),
                    (0.7, -1000.0, 1000.0),
                    (-0.4, 1.25, 3.5),
                    (0.0, 0.0, 2.0),
                ] {
                    let s = Sampler {
                        lod_bias: bias,
                        min_lod,
                        max_lod,
                        ..sampler(wrap, mip)
                    };
                    // derivatives of 0.03 to 3 times the side: LODs from
                    // magnified through each level to past the last (the
                    // scale 0.125: exactly level 2)
                    for (scale, origin) in [
                        (0.05, 0.3),
                        (0.125, -0.2),
                        (0.3, 0.1),
                        (1.7, 0.6),
                        (3.0, 2.5),
                    ] {
                        let (want, got, steps) =
                            shade_both(&interp, &jit, &tex, View::full(), s, scale, origin);
                        assert!(
                            want == got,
                            "{format:?} {wrap:?} {mip:?} {bias} {min_lod} {max_lod} {scale}"
                        );
                        assert_eq!(
                            steps, 0,
                            "{format:?} {wrap:?} {mip:?} {bias} {min_lod} {max_lod} {scale}"
                        );
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 2 * 5 * 2 * 4 * 5);
}

/// Batches whose lanes read different levels (coordinates squared: the
/// derivatives grow across the target) go to the interpreter and give its
/// words; the batches of one level stay inline.
#[test]
fn batches_of_several_levels_match_the_interpreter() {
    let src = PLAIN.replace(
        "0: MUL TEMP[0], IN[0], IN[0].wwww",
        "0: MUL TEMP[0], IN[0], IN[0]",
    );
    let Some((interp, jit)) = both(&src) else {
        return;
    };
    let tex = texture(Format::Rgba8Srgb, 64, 7, 9);
    let mut handed = 0;
    for mip in [MipFilter::Linear, MipFilter::Nearest] {
        let s = sampler(Wrap::Repeat, mip);
        for (scale, origin) in [(0.05, 0.0), (0.2, 0.5), (0.11, 1.5)] {
            let (want, got, steps) =
                shade_both(&interp, &jit, &tex, View::full(), s, scale, origin);
            assert!(want == got, "{mip:?} {scale} {origin}");
            handed += steps;
        }
    }
    assert!(handed > 0, "some batches read several levels");
}

/// A `size` x `size` RGBA32F texture with `levels` levels: values in
/// [−2, 2) (`tame`), or every word pseudo-random bits (NaN, infinities,
/// huge and subnormal values among them).
fn float_texture(size: u32, levels: u32, seed: u32, tame: bool) -> Texture {
    float_texture_of([size, size], levels, seed, tame)
}

/// A texture of `format`: [`float_texture_of`] (seed `seeds[0]`, `tame`)
/// for RGBA32F, else [`texture_of`] (seed `seeds[1]`).
fn texture_in(format: Format, size: [u32; 2], levels: u32, seeds: [u32; 2], tame: bool) -> Texture {
    match format {
        Format::Rgba32Float => float_texture_of(size, levels, seeds[0], tame),
        _ => texture_of(format, size, levels, seeds[1]),
    }
}

/// [`float_texture`] of `w` x `h` texels.
fn float_texture_of([w, h]: [u32; 2], levels: u32, seed: u32, tame: bool) -> Texture {
    let mut tex = texture_of(Format::Rgba8Unorm, [w, h], levels, seed);
    let mut float = Texture::new(
        TextureTarget::Tex2D,
        Format::Rgba32Float,
        [w, h, 1],
        1,
        levels,
        1,
    )
    .expect("a small 2D texture");
    let mut x = seed.wrapping_mul(2_246_822_519) | 1;
    for (out, bytes) in float.levels.iter_mut().zip(&mut tex.levels) {
        for (word, b) in out.as_chunks_mut::<4>().0.iter_mut().zip(bytes.iter()) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let v = if tame {
                (x >> 8) as f32 / (1 << 22) as f32 - 2.0 + *b as f32 / 65536.0
            } else {
                f32::from_bits(x)
            };
            *word = v.to_le_bytes();
        }
    }
    float
}

/// RGBA32F views sample inline, magnified and minified, one level and
/// mipmapped, every wrap the kernel takes, with the interpreter's words;
/// texels of every class (NaN and infinite ones among them) give its
/// words too, the batches with a NaN result by its handler.
#[test]
fn rgba32f_samples_inline_with_the_interpreters_bits() {
    let Some((interp, jit)) = both(PLAIN) else {
        return;
    };
    for tame in [true, false] {
        for wrap in INLINE_WRAPS {
            for (levels, mip) in [
                (1, MipFilter::None),
                (5, MipFilter::Linear),
                (5, MipFilter::Nearest),
            ] {
                let tex = float_texture(16, levels, 3 + levels, tame);
                let s = sampler(wrap, mip);
                for (scale, origin) in [(0.011, 0.02), (0.013, -0.4), (0.3, 0.1), (1.7, 0.6)] {
                    let (want, got, steps) =
                        shade_both(&interp, &jit, &tex, View::full(), s, scale, origin);
                    assert!(want == got, "{tame} {wrap:?} {mip:?} {scale} {origin}");
                    if tame {
                        assert_eq!(steps, 0, "{wrap:?} {mip:?} {scale} {origin}");
                    }
                }
            }
        }
    }
    // red +inf everywhere: inf − inf in the lerps, NaN results, which the
    // interpreter's batch path gives its general path (the NaN rule)
    let mut tex = float_texture(16, 1, 7, true);
    for texel in tex.levels[0].as_chunks_mut::<16>().0 {
        texel[..4].copy_from_slice(&f32::INFINITY.to_le_bytes());
    }
    let s = sampler(Wrap::Repeat, MipFilter::None);
    let (want, got, steps) = shade_both(&interp, &jit, &tex, View::full(), s, 0.013, 0.1);
    assert!(want == got, "infinite texels");
    // (as the interpreter's batch path hands its NaN lanes on)
    assert!(steps > 0, "NaN results go to the handler");
}

/// NEAREST min and mag filters (which the interpreter runs lane by lane)
/// sample inline too: one texel per lane at every level choice, RGBA8
/// (sRGB, UNORM) and RGBA32F (texels of every class: read as they are),
/// every wrap the kernel takes, with the interpreter's words and nothing
/// handed to it.
#[test]
fn nearest_filters_sample_inline_with_the_interpreters_bits() {
    let Some((interp, jit)) = both(PLAIN) else {
        return;
    };
    let mut cases = 0;
    for format in [Format::Rgba8Srgb, Format::Rgba8Unorm, Format::Rgba32Float] {
        for wrap in INLINE_WRAPS {
            for (levels, mip) in [
                (1, MipFilter::None),
                (5, MipFilter::Nearest),
                (5, MipFilter::Linear),
            ] {
                let tex = texture_in(format, [16, 16], levels, [13, 17], false);
                let s = Sampler {
                    min: Filter::Nearest,
                    mag: Filter::Nearest,
                    ..sampler(wrap, mip)
                };
                for (scale, origin) in [
                    (0.011, 0.02),
                    (0.013, -0.4),
                    (0.004, 0.97),
                    (0.3, 0.1),
                    (1.7, 0.6),
                ] {
                    let (want, got, steps) =
                        shade_both(&interp, &jit, &tex, View::full(), s, scale, origin);
                    assert!(want == got, "{format:?} {wrap:?} {mip:?} {scale} {origin}");
                    // (mip LINEAR blends two levels of RGBA32F texels of
                    // every class: NaN results go to the handler)
                    if !(format == Format::Rgba32Float && mip == MipFilter::Linear) {
                        assert_eq!(steps, 0, "{format:?} {wrap:?} {mip:?} {scale} {origin}");
                    }
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 3 * 5 * 3 * 5);
}

/// REPEAT and MIRROR_REPEAT on sides that are not powers of two sample
/// inline by the indices' remainders, with the interpreter's words: RGBA8
/// (sRGB, UNORM) and RGBA32F, bilinear and NEAREST, one level and
/// mipmapped (every level's own side), magnified and minified, around
/// the origin, far from it and past the coordinate clamp (2^24).
#[test]
fn sides_that_are_not_powers_of_two_wrap_inline_with_the_interpreters_bits() {
    let Some((interp, jit)) = both(PLAIN) else {
        return;
    };
    let mut cases = 0;
    for format in [Format::Rgba8Srgb, Format::Rgba8Unorm, Format::Rgba32Float] {
        for (size, levels, mip) in [
            ([12, 10], 1, MipFilter::None),
            ([12, 10], 4, MipFilter::Linear),
            ([3, 5], 1, MipFilter::None),
            ([24, 6], 5, MipFilter::Nearest),
        ] {
            let tex = texture_in(format, size, levels, [5, 9], true);
            for wrap in [Wrap::Repeat, Wrap::MirrorRepeat] {
                for filter in [Filter::Linear, Filter::Nearest] {
                    let s = Sampler {
                        min: filter,
                        mag: filter,
                        ..sampler(wrap, mip)
                    };
                    for (scale, origin) in [
                        (0.011, 0.02),
                        (0.013, -0.4),
                        (0.3, 0.1),
                        (1.7, -37.3),
                        (0.5, 3.0e6),
                    ] {
                        let (want, got, steps) =
                            shade_both(&interp, &jit, &tex, View::full(), s, scale, origin);
                        let case = format!("{format:?} {size:?} {levels} {wrap:?} {filter:?}");
                        assert!(want == got, "{case} {scale} {origin}");
                        assert_eq!(steps, 0, "{case} {scale} {origin}");
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 3 * 4 * 2 * 2 * 5);
}

/// Views that start past the first level, end before the last or read
/// the texels as another format of the same size, and coordinates in
/// texels (`normalized` false), sample inline with the interpreter's
/// words.
#[test]
fn views_and_texel_coordinates_sample_inline_with_the_interpreters_bits() {
    let Some((interp, jit)) = both(PLAIN) else {
        return;
    };
    let tex = texture(Format::Rgba8Unorm, 32, 6, 21);
    let views = [
        View {
            first_level: 1,
            ..View::full()
        },
        View {
            first_level: 2,
            last_level: 3,
            ..View::full()
        },
        View {
            format: Some(Format::Rgba8Srgb),
            ..View::full()
        },
    ];
    for view in views {
        for normalized in [true, false] {
            for mip in [MipFilter::Linear, MipFilter::Nearest] {
                let s = Sampler {
                    normalized,
                    ..sampler(Wrap::Repeat, mip)
                };
                // (texel coordinates: the same footprints as normalized
                // ones times the side)
                let unit = if normalized { 1.0 } else { 16.0 };
                for (scale, origin) in [(0.013, -0.4), (0.3, 0.1), (1.7, 0.6)] {
                    let (scale, origin) = (scale * unit, origin * unit);
                    let (want, got, steps) =
                        shade_both(&interp, &jit, &tex, view, s, scale, origin);
                    assert!(want == got, "{view:?} {normalized} {mip:?} {scale}");
                    assert_eq!(steps, 0, "{view:?} {normalized} {mip:?} {scale}");
                }
            }
        }
    }
}

/// An entry's flags send exactly the views of another kind (NEAREST
/// filters, RGBA32F texels, a mirror or remainder wrap on any of its levels) to the
/// cold code: a mipmapped bilinear RGBA8 view with REPEAT or CLAMP keeps
/// the common path, whatever its number of levels.
#[test]
fn only_views_of_another_kind_leave_the_common_path() {
    use crate::native::TexEntry;
    use tgsi_exec::texture::exec::{
        AxisWrap, InlineBilinear, InlineLevel, InlineLods, InlineWrap, MAX_INLINE_LEVELS,
    };
    let texels = [0u8; 64];
    let level = |wrap: InlineWrap, texel_bytes: u32| InlineLevel {
        texels: &texels,
        texel_bytes,
        size: [4, 4],
        slice_rows: 0,
        scale: [4.0, 4.0],
        wrap: [wrap, InlineWrap::Kernel(AxisWrap::Clamp)],
    };
    let repeat = InlineWrap::Kernel(AxisWrap::RepeatPow2);
    let entry = |count: u32, last: InlineWrap, nearest: bool, float: bool| {
        let bytes = if float { 16 } else { 4 };
        let mut levels = [level(repeat, bytes); MAX_INLINE_LEVELS];
        levels[count as usize - 1] = level(last, bytes);
        TexEntry::of(Some(InlineBilinear {
            first: levels[0],
            srgb: None,
            nearest,
            layers: 0,
            explicit: false,
            single_level: false,
            may_magnify: true,
            lods: Some(InlineLods {
                nearest: false,
                bias: 0.0,
                min_lod: -1000.0,
                max_lod: 1000.0,
                count,
                levels,
            }),
            select: [0, 1, 2, 3],
        }))
    };
    for count in [2, 3, 16] {
        let plain = entry(count, repeat, false, false);
        assert_eq!(
            (plain.general, plain.plain_magnify),
            (0, 1),
            "{count} levels"
        );
        for (last, nearest, float) in [
            (InlineWrap::MirrorRepeatPow2, false, false),
            (InlineWrap::MirrorClampToEdge, false, false),
            (InlineWrap::RepeatAny, false, false),
            (InlineWrap::MirrorRepeatAny, false, false),
            (repeat, true, false),
            (repeat, false, true),
        ] {
            let other = entry(count, last, nearest, float);
            assert_eq!(
                (other.general, other.plain_magnify, other.plain_single),
                (1, 0, 0),
                "{count} levels, {last:?} {nearest} {float}"
            );
        }
    }
}

/// A TEX inside a SWITCH's CASE whose batches blend two levels keeps the
/// SWITCH's selector (the blend's rows sit beside it in the context).
#[test]
fn blended_samples_inside_a_switch_match_the_interpreter() {
    let src = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
        DCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0..2]\n\
        IMM[0] UINT32 {0, 1, 2, 3}\nIMM[1] FLT32 {0.25, 0.5, 0.0, 0.0}\n\
        0: F2U TEMP[2].x, IN[0].xxxx\n\
        1: AND TEMP[2].x, TEMP[2].xxxx, IMM[0].wwww\n\
        2: MOV TEMP[1], IMM[1].zzzz\n\
        3: SWITCH TEMP[2].xxxx\n\
        4: CASE IMM[0].xxxx\n\
        5:   TEX TEMP[1], IN[0], SAMP[0], 2D\n\
        6:   BRK\n\
        7: CASE IMM[0].yyyy\n\
        8:   MOV TEMP[1], IMM[1].xxxx\n\
        9:   BRK\n\
        10: DEFAULT\n\
        11:   MOV TEMP[1], IMM[1].yyyy\n\
        12:   BRK\n\
        13: ENDSWITCH\n\
        14: ADD OUT[0], TEMP[1], IN[0]\n\
        15: END\n";
    let Some((interp, jit)) = both(src) else {
        return;
    };
    let tex = texture(Format::Rgba8Unorm, 32, 6, 23);
    let s = sampler(Wrap::Repeat, MipFilter::Linear);
    // (coordinates of 0.3 per pixel: LODs between levels, and F2U of the
    // coordinate picks the CASE column by column)
    for (scale, origin) in [(0.3, 0.1), (1.7, 0.6)] {
        let want = shade(&interp, &tex, View::full(), s, scale, origin);
        let got = shade(&jit, &tex, View::full(), s, scale, origin);
        assert!(want == got, "{scale} {origin}");
    }
}

/// A fragment shader sampling `GENERIC[0]` (times its w) by `op` (TXL or
/// SAMPLE_L) at the LOD in `lod` (a source operand: an IMM or an input).
fn explicit_shader(op: &str, lod: &str) -> String {
    let sample = match op {
        "TXL" => "2: TXL TEMP[1], TEMP[0], SAMP[0], 2D\n".to_string(),
        _ => "2: SAMPLE_L TEMP[1], TEMP[0], SVIEW[0], SAMP[0], TEMP[0].wwww\n".to_string(),
    };
    format!(
        "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
         DCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0..1]\n\
         IMM[0] FLT32 {{0.0, 0.5, 1.0, 2.75}}\nIMM[1] FLT32 {{-3.0, 9.0, 0.0, 0.0}}\n\
         IMM[2] UINT32 {{2143289344, 0, 0, 0}}\n\
         0: MUL TEMP[0], IN[0], IN[0].wwww\n1: MOV TEMP[0].w, {lod}\n{sample}\
         3: ADD OUT[0], TEMP[1], TEMP[0]\n4: END\n"
    )
}

/// TXL and SAMPLE_L sample inline with the interpreter's words: each
/// lane's LOD operand plus the bias, clamped to the sampler's range, picks
/// the levels (mip LINEAR, NEAREST and NONE; between levels, on one, below
/// 0, past the last, NaN; raised by the bias, held by the range), RGBA8
/// (sRGB, UNORM) and RGBA32F views, magnified and minified coordinates;
/// no instruction goes to the handler when the lanes share their LOD.
/// A LOD that differs between lanes gives the interpreter's words too.
#[test]
fn explicit_lods_sample_inline_with_the_interpreters_bits() {
    let lods = [
        "IMM[0].xxxx",
        "IMM[0].yyyy",
        "IMM[0].zzzz",
        "IMM[0].wwww",
        "IMM[1].xxxx",
        "IMM[1].yyyy",
        "IMM[2].xxxx",
    ];
    let samplers = |mip| {
        let s = sampler(Wrap::Repeat, mip);
        [
            s,
            Sampler {
                lod_bias: 0.75,
                ..s
            },
            Sampler {
                min_lod: 1.0,
                max_lod: 2.0,
                ..sampler(Wrap::ClampToEdge, mip)
            },
        ]
    };
    let mut cases = 0;
    for op in ["TXL", "SAMPLE_L"] {
        for lod in lods {
            let Some((interp, jit)) = both(&explicit_shader(op, lod)) else {
                return;
            };
            assert_eq!(inline_samples(&jit), vec![2], "{op} {lod}");
            for format in [Format::Rgba8Srgb, Format::Rgba8Unorm, Format::Rgba32Float] {
                for mip in [MipFilter::Linear, MipFilter::Nearest, MipFilter::None] {
                    let tex = texture_in(format, [16, 16], 5, [19, 23], true);
                    for s in samplers(mip) {
                        for (scale, origin) in [(0.011, 0.02), (0.3, -0.4)] {
                            let (want, got, steps) =
                                shade_both(&interp, &jit, &tex, View::full(), s, scale, origin);
                            let case = format!("{op} {lod} {format:?} {mip:?} {s:?} {scale}");
                            assert!(want == got, "{case}");
                            assert_eq!(steps, 0, "{case}");
                            cases += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(cases, 2 * 7 * 3 * 3 * 3 * 2);
    // a LOD per lane (the input's z: 0.25 + 0.3 (x + y)): the words of the
    // interpreter, batches of several levels by its handler
    for op in ["TXL", "SAMPLE_L"] {
        let Some((interp, jit)) = both(&explicit_shader(op, "IN[0].zzzz")) else {
            return;
        };
        let tex = texture(Format::Rgba8Srgb, 16, 5, 29);
        let s = sampler(Wrap::Repeat, MipFilter::Linear);
        let (want, got, _) = shade_both(&interp, &jit, &tex, View::full(), s, 0.3, 0.1);
        assert!(want == got, "{op} per-lane LOD");
    }
}

/// A compute shader's SAMPLE_L and TXL (any stage may sample at an
/// explicit LOD), and its TEX and SAMPLE (at LOD 0 plus the bias outside
/// the fragment stage), run inline with the interpreter's words: each
/// thread samples at its own coordinates, the results stored to a buffer;
/// with and without a bias.
#[test]
fn explicit_lods_outside_the_fragment_stage_sample_inline() {
    for (op, lod) in [
        ("SAMPLE_L", "1.5"),
        ("TXL", "0.25"),
        ("SAMPLE_L", "-1.0"),
        ("TEX", "7.0"),
        ("SAMPLE", "7.0"),
    ] {
        let sample = match op {
            "TXL" => "5: TXL TEMP[1], TEMP[0], SAMP[0], 2D\n",
            "TEX" => "5: TEX TEMP[1], TEMP[0], SAMP[0], 2D\n",
            "SAMPLE" => "5: SAMPLE TEMP[1], TEMP[0], SVIEW[0], SAMP[0]\n",
            _ => "5: SAMPLE_L TEMP[1], TEMP[0], SVIEW[0], SAMP[0], TEMP[0].wwww\n",
        };
        let src = format!(
            "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 32\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
             PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\n\
             DCL BUFFER[0]\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0..2]\n\
             IMM[0] FLT32 {{0.037, 0.11, {lod}, 0.5}}\nIMM[1] UINT32 {{4, 16, 32, 0}}\n\
             0: UMAD TEMP[2].x, SV[1].xxxx, IMM[1].zzzz, SV[0].xxxx\n\
             1: U2F TEMP[0].x, TEMP[2].xxxx\n\
             2: MUL TEMP[0].xy, TEMP[0].xxxx, IMM[0].xyyy\n\
             3: MOV TEMP[0].z, IMM[0].wwww\n\
             4: MOV TEMP[0].w, IMM[0].zzzz\n{sample}\
             6: UMUL TEMP[2].x, TEMP[2].xxxx, IMM[1].yyyy\n\
             7: STORE BUFFER[0].xyzw, TEMP[2].xxxx, TEMP[1]\n8: END\n"
        );
        let Some((interp, jit)) = both(&src) else {
            return;
        };
        assert_eq!(inline_samples(&jit), vec![5], "{op}");
        for lod_bias in [0.0, 1.25] {
            let run = |p: &Program| {
                let mut res = Resources {
                    buffers: vec![vec![0; 64 * 16]],
                    textures: vec![Some(texture(Format::Rgba8Srgb, 16, 5, 31))],
                    views: vec![View::full()],
                    samplers: vec![Sampler {
                        lod_bias,
                        ..sampler(Wrap::Repeat, MipFilter::Linear)
                    }],
                    ..Resources::default()
                };
                p.dispatch_stats(&mut res, [2, 1, 1], &Limits::default())
                    .expect("the shader runs");
                res.buffers
            };
            let want = run(&interp);
            let (got, steps) = handler_steps(|| run(&jit));
            assert!(want == got, "{op} {lod} {lod_bias}");
            assert_eq!(steps, 0, "{op} {lod} {lod_bias}");
            assert!(want[0].iter().any(|b| *b != 0), "{op}: something sampled");
        }
    }
}

/// A 2D array texture of `w` x `h` texels, `layers` layers and a full mip
/// chain of pseudo-random texels (RGBA32F: values in [−2, 2)).
fn array_texture(format: Format, [w, h]: [u32; 2], layers: u32, seed: u32) -> Texture {
    let levels = tgsi_exec::texture::resource::full_chain(w, h, 1);
    let mut tex = Texture::new(TextureTarget::Array2D, format, [w, h, 1], layers, levels, 1)
        .expect("a small 2D array");
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    for level in &mut tex.levels {
        let words = level.as_chunks_mut::<4>().0;
        for word in words {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *word = match format {
                Format::Rgba32Float => ((x >> 8) as f32 / (1 << 22) as f32 - 2.0).to_le_bytes(),
                _ => x.to_le_bytes(),
            };
        }
    }
    tex
}

/// 2D array views sample inline with the interpreter's words: each lane's
/// layer its third coordinate rounded to nearest even and clamped to the
/// view's layers (NaN: layer 0), by TEX at per-pixel layers and at fixed
/// ones (below 0, halves, past the last, NaN), and by TXL; RGBA8 (sRGB,
/// UNORM) and RGBA32F, sides that are and are not powers of two,
/// magnified and minified, no instruction handed to the interpreter when
/// the lanes share a level.
#[test]
fn arrays_sample_inline_with_the_interpreters_bits() {
    let layer_of = [
        "IN[0].zzzz",
        "IMM[0].xxxx",
        "IMM[0].yyyy",
        "IMM[0].zzzz",
        "IMM[0].wwww",
        "IMM[1].xxxx",
        "IMM[1].yyyy",
    ];
    let mut cases = 0;
    for op in ["TEX", "TXL"] {
        for layer in layer_of {
            let src = format!(
                "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
                 DCL SVIEW[0], 2D_ARRAY, FLOAT\nDCL TEMP[0..1]\n\
                 IMM[0] FLT32 {{-1.0, 0.5, 1.5, 2.5}}\nIMM[1] FLT32 {{7.0, 0.0, 0.0, 1.25}}\n\
                 IMM[2] UINT32 {{2143289344, 0, 0, 0}}\n\
                 0: MUL TEMP[0], IN[0], IN[0].wwww\n1: MOV TEMP[0].z, {layer}\n\
                 2: MOV TEMP[0].w, IMM[1].wwww\n\
                 3: {op} TEMP[1], TEMP[0], SAMP[0], 2D_ARRAY\n\
                 4: ADD OUT[0], TEMP[1], TEMP[0]\n5: END\n"
            );
            let Some((interp, jit)) = both(&src) else {
                return;
            };
            assert_eq!(inline_samples(&jit), vec![3], "{op} {layer}");
            for format in [Format::Rgba8Srgb, Format::Rgba8Unorm, Format::Rgba32Float] {
                for (size, layers) in [([16, 16], 3), ([12, 10], 4)] {
                    let tex = array_texture(format, size, layers, 37);
                    for (wrap, mip) in [
                        (Wrap::Repeat, MipFilter::Linear),
                        (Wrap::ClampToEdge, MipFilter::Nearest),
                    ] {
                        let s = sampler(wrap, mip);
                        for (scale, origin) in [(0.011, 0.02), (0.3, -0.4)] {
                            let (want, got, steps) =
                                shade_both(&interp, &jit, &tex, View::full(), s, scale, origin);
                            let case = format!("{op} {layer} {format:?} {size:?} {mip:?} {scale}");
                            assert!(want == got, "{case}");
                            // (per-pixel coordinates: TEX's batches of
                            // several levels go to the handler)
                            if op == "TXL" || scale < 0.1 {
                                assert_eq!(steps, 0, "{case}");
                            }
                            cases += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(cases, 2 * 7 * 3 * 2 * 2 * 2);
    // the NaN layer: layer 0
    let src = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
        DCL SVIEW[0], 2D_ARRAY, FLOAT\nDCL TEMP[0..1]\nIMM[0] UINT32 {2143289344, 0, 0, 0}\n\
        0: MOV TEMP[0], IN[0]\n1: MOV TEMP[0].z, IMM[0].xxxx\n\
        2: TEX TEMP[1], TEMP[0], SAMP[0], 2D_ARRAY\n3: MOV OUT[0], TEMP[1]\n4: END\n";
    if let Some((interp, jit)) = both(src) {
        let tex = array_texture(Format::Rgba8Unorm, [16, 16], 3, 41);
        let s = sampler(Wrap::Repeat, MipFilter::None);
        let (want, got, steps) = shade_both(&interp, &jit, &tex, View::full(), s, 0.011, 0.02);
        assert!(want == got && steps == 0, "a NaN layer");
    }
}

/// Every filterable format the compiled code does not decode itself
/// (R8 ... RGBA16, SNORM, half and single floats, RGB10A2, R11G11B10F,
/// depth) samples inline from the draw's decoded copy with the
/// interpreter's words: bilinear and NEAREST, one level and mipmapped,
/// magnified and minified; none of a UNORM or SNORM format's batches goes
/// to the handler (float texels of random bits may be NaN: those batches
/// do, as the batch path's NaN lanes do).
#[test]
fn other_formats_sample_inline_from_their_copies() {
    let Some((interp, jit)) = both(PLAIN) else {
        return;
    };
    let native = [Format::Rgba8Unorm, Format::Rgba8Srgb, Format::Rgba32Float];
    let formats: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .filter(|f| !f.is_integer() && !native.contains(f))
        .collect();
    assert!(formats.len() > 10, "{formats:?}");
    for format in formats {
        for (levels, mip) in [(1, MipFilter::None), (5, MipFilter::Linear)] {
            let tex = texture(format, 16, levels, 43);
            for filter in [Filter::Linear, Filter::Nearest] {
                let s = Sampler {
                    min: filter,
                    mag: filter,
                    ..sampler(Wrap::Repeat, mip)
                };
                for (scale, origin) in [(0.011, 0.02), (0.3, -0.4)] {
                    let case = format!("{format:?} {levels} {filter:?} {scale}");
                    // (with and without copies: the same words)
                    let want = shade(&interp, &tex, View::full(), s, scale, origin);
                    assert!(
                        want == shade(&jit, &tex, View::full(), s, scale, origin),
                        "{case}"
                    );
                    let (got, steps) = handler_steps(|| {
                        shade_copies(&jit, &tex, View::full(), s, [scale, origin], true)
                    });
                    assert!(want == got, "{case}");
                    let float = format.num_class() == tgsi_exec::texture::format::NumClass::Float;
                    if !float {
                        assert_eq!(steps, 0, "{case}");
                    }
                }
            }
        }
    }
}
