//! Addressing and filtering: wrap modes, nearest and bilinear filtering,
//! the min/mag choice, depth compare, gather, texel offsets, arrays, 3D,
//! projection, RECT and border colours.

use super::*;
use crate::texture::sample::wrap_index;

#[test]
fn wrap_index_per_mode() {
    // n = 4; indices -5..=8
    let idx: Vec<i64> = (-5..=8).collect();
    let run = |m: Wrap| -> Vec<Option<i64>> { idx.iter().map(|&i| wrap_index(m, i, 4)).collect() };
    let s = |v: &[i64]| -> Vec<Option<i64>> {
        v.iter()
            .map(|&x| if x < 0 { None } else { Some(x) })
            .collect()
    };
    // repeat: i mod 4
    assert_eq!(
        run(Wrap::Repeat),
        s(&[3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0])
    );
    assert_eq!(
        run(Wrap::ClampToEdge),
        s(&[0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3])
    );
    assert_eq!(run(Wrap::Clamp), run(Wrap::ClampToEdge));
    assert_eq!(
        run(Wrap::ClampToBorder),
        s(&[-1, -1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, -1])
    );
    // mirror: period 8, k >= 4 -> 7 - k: ... -5 -> 3, -4 -> 3, -3 -> 2, -2 -> 1, -1 -> 0, 4 -> 3, 7 -> 0, 8 -> 0
    assert_eq!(
        run(Wrap::MirrorRepeat),
        s(&[3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0])
    );
    // mirror once: -1-i for negatives, then clamp to 3
    assert_eq!(
        run(Wrap::MirrorClampToEdge),
        s(&[3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3])
    );
    assert_eq!(
        run(Wrap::MirrorClampToBorder),
        s(&[-1, 3, 2, 1, 0, 0, 1, 2, 3, -1, -1, -1, -1, -1])
    );
}

/// 1D texture of 4 texels r = 10, 20, 30, 40.
fn line4() -> Texture {
    tex_r(T::Tex1D, [4, 1, 1], 1, &[&[10.0, 20.0, 30.0, 40.0]])
}

#[test]
fn wrap_modes_end_to_end() {
    let n = Filter::Nearest;
    let r = |w: Wrap, s: f32| {
        let mut smp = sampler(w, n, n, MipFilter::None);
        smp.border = [99.0f32, 0.0, 0.0, 0.0].map(f32::to_bits);
        Rig::new(line4(), smp).sample_r(T::Tex1D, [s, 0.0, 0.0, 0.0])
    };
    // s = 1.125 -> u = 4.5 -> i = 4
    assert_eq!(r(Wrap::Repeat, 1.125), 10.0);
    assert_eq!(r(Wrap::ClampToEdge, 1.125), 40.0);
    assert_eq!(r(Wrap::ClampToBorder, 1.125), 99.0);
    assert_eq!(r(Wrap::MirrorRepeat, 1.125), 40.0);
    assert_eq!(r(Wrap::MirrorClampToBorder, 1.125), 99.0);
    // s = -0.125 -> u = -0.5 -> i = -1
    assert_eq!(r(Wrap::Repeat, -0.125), 40.0);
    assert_eq!(r(Wrap::MirrorRepeat, -0.125), 10.0);
    assert_eq!(r(Wrap::MirrorClampToEdge, -0.125), 10.0);
    // s = -0.3: mirror once of u = -1.2 -> i = -2 -> 1
    assert_eq!(r(Wrap::MirrorClampToEdge, -0.3), 20.0);
    // GL MIRROR_CLAMP nearest: |u| = 1.2 -> 1
    assert_eq!(r(Wrap::MirrorClamp, -0.3), 20.0);
    // GL MIRROR_CLAMP linear at s = 1: |u| = 4 -> x = 3.5 -> texel 3 and the border, weight 1/2:
    // 40 + 0.5 * (0 - 40) = 20
    let smp = sampler(
        Wrap::MirrorClamp,
        Filter::Linear,
        Filter::Linear,
        MipFilter::None,
    );
    assert_eq!(
        Rig::new(line4(), smp).sample_r(T::Tex1D, [1.0, 0.0, 0.0, 0.0]),
        20.0
    );
}

#[test]
fn bilinear() {
    let lin = Filter::Linear;
    let rig = Rig::new(
        quad2(),
        sampler(Wrap::ClampToEdge, lin, lin, MipFilter::None),
    );
    // centre: u = v = 1 -> x = 0.5: lerp(lerp(0,1,.5), lerp(2,3,.5), .5) = 1.5
    assert_eq!(rig.sample_r(T::Tex2D, [0.5, 0.5, 0.0, 0.0]), 1.5);
    // u = 0.5 -> x = 0, weight 0: texel (0,0)
    assert_eq!(rig.sample_r(T::Tex2D, [0.25, 0.25, 0.0, 0.0]), 0.0);
    // u = 0.75 -> a = 0.25; v = 1 -> b = 0.5: lerp(0.25, 2.25, 0.5) = 1.25
    assert_eq!(rig.sample_r(T::Tex2D, [0.375, 0.5, 0.0, 0.0]), 1.25);
    // clamp to edge at (0, 0): both taps clamp to texel 0
    assert_eq!(rig.sample_r(T::Tex2D, [0.0, 0.0, 0.0, 0.0]), 0.0);
    // repeat at (0, 0): i0 = -1 -> 1, i1 = 0, a = b = 0.5:
    // row j0 = 1: lerp(3, 2, .5) = 2.5; row j1 = 0: lerp(1, 0, .5) = 0.5; -> 1.5
    let rig = Rig::new(quad2(), sampler(Wrap::Repeat, lin, lin, MipFilter::None));
    assert_eq!(rig.sample_r(T::Tex2D, [0.0, 0.0, 0.0, 0.0]), 1.5);
    // border (0.5 in r) with linear at (0, 0.25): x = -0.5 -> i0 = -1 (border), a = 0.5; v = 0.5 -> b = 0
    let mut smp = sampler(Wrap::ClampToBorder, lin, lin, MipFilter::None);
    smp.border = [0.5f32, 0.0, 0.0, 0.0].map(f32::to_bits);
    let rig = Rig::new(quad2(), smp);
    assert_eq!(rig.sample_r(T::Tex2D, [0.0, 0.25, 0.0, 0.0]), 0.25);
}

#[test]
fn mag_min_choice() {
    // min = linear, mag = nearest: SAMPLE_L lod 0 -> mag (nearest), lod 0.5 -> min (linear)
    // (one level, so both read level 0) at (0.375, 0.5):
    // nearest: u = 0.75 -> 0, v = 1 -> 1: texel (0,1) = 2; linear: 1.25 (see bilinear)
    let rig = Rig::new(
        quad2(),
        sampler(
            Wrap::ClampToEdge,
            Filter::Linear,
            Filter::Nearest,
            MipFilter::None,
        ),
    );
    let c = splat([0.375, 0.5, 0.0, 0.0]);
    let at = |lod: f32| {
        lane_f(
            &rig.run(Opcode::SAMPLE_L, T::Tex2D, &[c, splat([lod; 4])]),
            0,
        )[0]
    };
    assert_eq!(at(0.0), 2.0);
    assert_eq!(at(0.5), 1.25);
}

#[test]
fn compare_functions() {
    // one depth texel 0.5; reference 0.25 / 0.5 / 0.75
    let mut t = Texture::new(T::Tex2D, Format::Z32Float, [1, 1, 1], 1, 1, 1).unwrap();
    t.set_texel(0, 0, 0, 0, 0, [0.5f32.to_bits(), 0, 0, 0])
        .unwrap();
    let funcs = [
        (CompareFunc::Never, [0.0, 0.0, 0.0]),
        (CompareFunc::Less, [1.0, 0.0, 0.0]),
        (CompareFunc::Equal, [0.0, 1.0, 0.0]),
        (CompareFunc::LessEqual, [1.0, 1.0, 0.0]),
        (CompareFunc::Greater, [0.0, 0.0, 1.0]),
        (CompareFunc::NotEqual, [1.0, 0.0, 1.0]),
        (CompareFunc::GreaterEqual, [0.0, 1.0, 1.0]),
        (CompareFunc::Always, [1.0, 1.0, 1.0]),
    ];
    for (func, want) in funcs {
        let rig = Rig::new(
            t.clone(),
            Sampler {
                compare: Some(func),
                ..Sampler::default()
            },
        );
        for (k, r) in [0.25f32, 0.5, 0.75].iter().enumerate() {
            let out = rig.run(
                Opcode::SAMPLE_C,
                T::Tex2D,
                &[splat([0.5; 4]), splat([*r; 4])],
            );
            let v = want[k];
            assert_eq!(lane_f(&out, 0), [v, v, v, 1.0], "{func:?} ref {r}");
            // legacy TEX on SHADOW2D: reference in .z
            let out = rig.run(Opcode::TEX, T::Shadow2D, &[splat([0.5, 0.5, *r, 0.0])]);
            assert_eq!(lane_f(&out, 0)[0], v, "TEX {func:?} ref {r}");
        }
    }
    // UNORM depth clamps the reference: Z16 texel 1.0, ref 1.5 -> 1.0 == 1.0
    let mut z = Texture::new(T::Tex2D, Format::Z16Unorm, [1, 1, 1], 1, 1, 1).unwrap();
    z.set_texel(0, 0, 0, 0, 0, [1.0f32.to_bits(), 0, 0, 0])
        .unwrap();
    let eq = Sampler {
        compare: Some(CompareFunc::Equal),
        ..Sampler::default()
    };
    let out = Rig::new(z, eq).run(
        Opcode::SAMPLE_C,
        T::Tex2D,
        &[splat([0.5; 4]), splat([1.5; 4])],
    );
    assert_eq!(lane_f(&out, 0)[0], 1.0);
    // float depth does not: Z32F texel 1.0, ref 1.5 -> not equal
    let mut zf = Texture::new(T::Tex2D, Format::Z32Float, [1, 1, 1], 1, 1, 1).unwrap();
    zf.set_texel(0, 0, 0, 0, 0, [1.0f32.to_bits(), 0, 0, 0])
        .unwrap();
    let out = Rig::new(zf, eq).run(
        Opcode::SAMPLE_C,
        T::Tex2D,
        &[splat([0.5; 4]), splat([1.5; 4])],
    );
    assert_eq!(lane_f(&out, 0)[0], 0.0);
    // compare per texel, then filter: texels 0.2, 0.8, ref 0.5 LEQUAL -> 0, 1 -> 0.5
    let mut d = Texture::new(T::Tex1D, Format::Z32Float, [2, 1, 1], 1, 1, 1).unwrap();
    d.set_texel(0, 0, 0, 0, 0, [0.2f32.to_bits(), 0, 0, 0])
        .unwrap();
    d.set_texel(0, 1, 0, 0, 0, [0.8f32.to_bits(), 0, 0, 0])
        .unwrap();
    let s = Sampler {
        compare: Some(CompareFunc::LessEqual),
        ..sampler(
            Wrap::ClampToEdge,
            Filter::Linear,
            Filter::Linear,
            MipFilter::None,
        )
    };
    let out = Rig::new(d, s).run(
        Opcode::SAMPLE_C,
        T::Tex1D,
        &[splat([0.5; 4]), splat([0.5; 4])],
    );
    assert_eq!(lane_f(&out, 0), [0.5, 0.5, 0.5, 1.0]);
}

#[test]
fn gather_order_and_component() {
    let rig = Rig::new(quad2(), Sampler::default());
    // centre: i0 = j0 = 0, i1 = j1 = 1: x = (0,1) = 2, y = (1,1) = 3, z = (1,0) = 1, w = (0,0) = 0
    let out = rig.run(Opcode::GATHER4, T::Tex2D, &[splat([0.5; 4])]);
    assert_eq!(lane_f(&out, 0), [2.0, 3.0, 1.0, 0.0]);
    // TG4 component 1 (g = 10 r)
    let out = rig.run(
        Opcode::TG4,
        T::Tex2D,
        &[splat([0.5; 4]), splat_u([1, 0, 0, 0])],
    );
    assert_eq!(lane_f(&out, 0), [20.0, 30.0, 10.0, 0.0]);
    // GATHER4 with the SAMP operand swizzled .yyyy gathers g (= 10 r) too
    let rig_g = Rig {
        gather_component: 1,
        ..Rig::new(quad2(), Sampler::default())
    };
    let out = rig_g.run(Opcode::GATHER4, T::Tex2D, &[splat([0.5; 4])]);
    assert_eq!(lane_f(&out, 0), [20.0, 30.0, 10.0, 0.0]);
    // the SVIEW swizzle permutes the gathered vector (wzyx)
    let out = rig.run_swizzled(Opcode::GATHER4, T::Tex2D, &[splat([0.5; 4])], [3, 2, 1, 0]);
    assert_eq!(lane_f(&out, 0), [0.0, 1.0, 3.0, 2.0]);
    // gather with offsets (1, 0) at (0.25, 0.25): u = 0.5 + 1 -> x = 1: i0 = 1, i1 = 2 -> clamp 1
    let mut off = [[0u32; LANES]; 4];
    off[0] = [1; LANES];
    let out = rig.run_offset(Opcode::GATHER4, T::Tex2D, &[splat([0.25; 4])], &off);
    assert_eq!(lane_f(&out, 0), [3.0, 3.0, 1.0, 1.0]);
}

#[test]
fn texel_offsets() {
    let rig = Rig::new(line4(), Sampler::default());
    let mut off = [[0u32; LANES]; 4];
    // s = 0.125 -> u = 0.5 (texel 0) + 2 -> texel 2
    off[0] = [2; LANES];
    let out = rig.run_offset(Opcode::SAMPLE, T::Tex1D, &[splat([0.125; 4])], &off);
    assert_eq!(lane_f(&out, 0)[0], 30.0);
    // -3: u = -2.5 -> floor -3 -> clamp to edge 0
    off[0] = [(-3i32) as u32; LANES];
    let out = rig.run_offset(Opcode::SAMPLE, T::Tex1D, &[splat([0.125; 4])], &off);
    assert_eq!(lane_f(&out, 0)[0], 10.0);
}

#[test]
fn arrays_3d_projection_rect() {
    // 1x1 2D array, layers 0, 1, 2: layer = clamp(round-half-even(c))
    let t = tex_r(T::Array2D, [1, 1, 1], 3, &[&[0.0, 1.0, 2.0]]);
    let rig = Rig::new(t, Sampler::default());
    for (c, want) in [
        (1.5, 2.0),
        (0.5, 0.0),
        (2.5, 2.0),
        (1.4, 1.0),
        (7.0, 2.0),
        (-3.0, 0.0),
    ] {
        assert_eq!(
            rig.sample_r(T::Array2D, [0.5, 0.5, c, 0.0]),
            want,
            "layer {c}"
        );
    }
    // 2x2x2 3D of values 0..7, trilinear at the centre: the mean 3.5
    let t = tex_r(
        T::Tex3D,
        [2, 2, 2],
        1,
        &[&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]],
    );
    let lin = Filter::Linear;
    let rig = Rig::new(t, sampler(Wrap::ClampToEdge, lin, lin, MipFilter::None));
    assert_eq!(rig.sample_r(T::Tex3D, [0.5, 0.5, 0.5, 0.0]), 3.5);
    // TXP divides by w: (0.5, 0.5, 0, 2) -> (0.25, 0.25): nearest texel (0, 0) = 0
    let rig = Rig::new(quad2(), Sampler::default());
    let out = rig.run(Opcode::TXP, T::Tex2D, &[splat([1.5, 1.5, 0.0, 2.0])]);
    assert_eq!(lane_f(&out, 0)[0], 3.0); // (0.75, 0.75) -> texel (1, 1)
    // RECT: texel units: (1.5, 0.5) -> texel (1, 0) = 1
    let r = tex_r(T::Rect, [2, 2, 1], 1, &[&[0.0, 1.0, 2.0, 3.0]]);
    let rig = Rig::new(r, Sampler::default());
    let out = rig.run(Opcode::TEX, T::Rect, &[splat([1.5, 0.5, 0.0, 0.0])]);
    assert_eq!(lane_f(&out, 0)[0], 1.0);
    // TXB2 / TXL2 read the bias / lod from src1.x
    let rig = Rig::new(
        mips(),
        sampler(
            Wrap::ClampToEdge,
            Filter::Nearest,
            Filter::Nearest,
            MipFilter::Nearest,
        ),
    );
    let out = rig.run(
        Opcode::TXL2,
        T::Tex2D,
        &[splat([0.5; 4]), splat([2.0, 0.0, 0.0, 0.0])],
    );
    assert_eq!(lane_f(&out, 0)[0], 4.0);
    let out = rig.run(Opcode::TXL, T::Tex2D, &[splat([0.5, 0.5, 0.0, 1.0])]);
    assert_eq!(lane_f(&out, 0)[0], 2.0);
}

#[test]
fn border_is_clamped_for_unorm_and_integer_raw() {
    let t = Texture::new(T::Tex2D, Format::Rgba8Unorm, [1, 1, 1], 1, 1, 1).unwrap();
    let mut s = sampler(
        Wrap::ClampToBorder,
        Filter::Nearest,
        Filter::Nearest,
        MipFilter::None,
    );
    s.border = [2.0f32, -1.0, 0.5, 1.0].map(f32::to_bits);
    let out = Rig::new(t, s).run(Opcode::SAMPLE, T::Tex2D, &[splat([2.0; 4])]);
    assert_eq!(lane_f(&out, 0), [1.0, 0.0, 0.5, 1.0]);
    let t = Texture::new(T::Tex2D, Format::Rgba32Uint, [1, 1, 1], 1, 1, 1).unwrap();
    s.border = [7, 8, 9, 10];
    let out = Rig::new(t, s).run(Opcode::SAMPLE, T::Tex2D, &[splat([2.0; 4])]);
    assert_eq!([out[0][0], out[1][0], out[2][0], out[3][0]], [7, 8, 9, 10]);
}

#[test]
fn rect_resource_is_unnormalized_and_lodq_needs_no_reference() {
    // a RECT texture read through a 2D-declared view still takes texel units:
    // (1.5, 1.5) -> texel (1, 1) = 3
    let r = tex_r(T::Rect, [2, 2, 1], 1, &[&[0.0, 1.0, 2.0, 3.0]]);
    let rig = Rig::new(r, Sampler::default());
    assert_eq!(rig.sample_r(T::Tex2D, [1.5, 1.5, 0.0, 0.0]), 3.0);
    // LODQ on SHADOWCUBEARRAY: no reference is read; vertex stage -> (0, 0)
    let faces: Vec<f32> = vec![0.0; 24];
    let c = tex_r(T::CubeArray, [2, 2, 1], 6, &[&faces]);
    let rig = Rig::new(c, Sampler::default());
    let out = rig.run(
        Opcode::LODQ,
        T::ShadowCubeArray,
        &[splat([1.0, 0.0, 0.0, 0.0])],
    );
    assert_eq!(lane_f(&out, 0), [0.0; 4]);
}
