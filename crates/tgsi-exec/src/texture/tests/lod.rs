//! LOD and mipmaps: level selection with biases and clamps, implicit LOD
//! from quads, explicit gradients, and the LOD queries.

use super::*;

#[test]
fn mip_selection_bias_and_clamps() {
    let n = Filter::Nearest;
    let c = splat([0.5, 0.5, 0.0, 0.0]);
    let l = |s: Sampler, lod: f32| -> f32 {
        let rig = Rig::new(mips(), s);
        lane_f(
            &rig.run(Opcode::SAMPLE_L, T::Tex2D, &[c, splat([lod; 4])]),
            0,
        )[0]
    };
    let nearest = sampler(Wrap::ClampToEdge, n, n, MipFilter::Nearest);
    let linear = sampler(Wrap::ClampToEdge, n, n, MipFilter::Linear);
    let none = sampler(Wrap::ClampToEdge, n, n, MipFilter::None);
    // nearest mip = floor(lod + 0.5)
    assert_eq!(l(nearest, 0.4), 1.0);
    assert_eq!(l(nearest, 0.5), 2.0);
    assert_eq!(l(nearest, 1.6), 4.0);
    assert_eq!(l(nearest, 9.0), 4.0); // clamped to the last level
    // linear: 1 + 0.25 * (2 - 1); 2 + 0.5 * (4 - 2)
    assert_eq!(l(linear, 0.25), 1.25);
    assert_eq!(l(linear, 1.5), 3.0);
    assert_eq!(l(linear, 7.0), 4.0);
    assert_eq!(l(none, 2.0), 1.0);
    // sampler bias is added to the explicit lod; then min/max clamps
    assert_eq!(
        l(
            Sampler {
                lod_bias: 1.0,
                ..nearest
            },
            0.0
        ),
        2.0
    );
    assert_eq!(
        l(
            Sampler {
                max_lod: 1.0,
                ..nearest
            },
            2.0
        ),
        2.0
    );
    assert_eq!(
        l(
            Sampler {
                min_lod: 2.0,
                ..nearest
            },
            0.0
        ),
        4.0
    );
    // SAMPLE_B outside the fragment stage: lambda 0 + bias 1 -> level 1
    let rig = Rig::new(mips(), nearest);
    assert_eq!(
        lane_f(
            &rig.run(Opcode::SAMPLE_B, T::Tex2D, &[c, splat([1.0; 4])]),
            0
        )[0],
        2.0
    );
    // SAMPLE_C_LZ / TEX_LZ ignore the sampler bias: level 0
    let rig = Rig::new(
        mips(),
        Sampler {
            lod_bias: 2.0,
            ..nearest
        },
    );
    assert_eq!(lane_f(&rig.run(Opcode::TEX_LZ, T::Tex2D, &[c]), 0)[0], 1.0);
    // view levels: first_level 1 -> lod 0 reads level 1; last_level 1 caps lod 5 at level 1
    let mut rig = Rig::new(mips(), nearest);
    rig.views[0].first_level = 1;
    assert_eq!(
        lane_f(
            &rig.run(Opcode::SAMPLE_L, T::Tex2D, &[c, splat([0.0; 4])]),
            0
        )[0],
        2.0
    );
    rig.views[0] = View {
        last_level: 1,
        ..View::default()
    };
    assert_eq!(
        lane_f(
            &rig.run(Opcode::SAMPLE_L, T::Tex2D, &[c, splat([5.0; 4])]),
            0
        )[0],
        2.0
    );
}

#[test]
fn implicit_lod_from_quads() {
    // quad lanes TL, TR, BL, BR; ddx = TR - TL, ddy = BL - TL.
    // ddx.s = 0.5 on a 4-wide level 0 = 2 texels, ddy.t = 0.25 = 1 texel: rho = 2, lambda = 1
    let mut c = splat([0.1, 0.1, 0.0, 0.0]);
    for q in 0..4 {
        c[0][4 * q + 1] = 0.6f32.to_bits();
        c[1][4 * q + 2] = 0.35f32.to_bits();
    }
    let n = Filter::Nearest;
    let rig = Rig::new(mips(), sampler(Wrap::ClampToEdge, n, n, MipFilter::Nearest));
    let out = rig.run_fragment(Opcode::SAMPLE, T::Tex2D, &[c]);
    for l in 0..LANES {
        assert_eq!(lane_f(&out, l)[0], 2.0, "lane {l}");
    }
    // outside the fragment stage: LOD 0
    let out = rig.run(Opcode::SAMPLE, T::Tex2D, &[c]);
    assert_eq!(lane_f(&out, 0)[0], 1.0);
    // diagonal ddx (0.25, 0.25) = (1, 1) texels: |ddx| = sqrt 2 -> lambda 0.5;
    // ddy 0: linear mip -> 1 + 0.5 * (2 - 1) = 1.5; LOD query x = 0.5, y = 0.5
    let mut c = splat([0.1, 0.1, 0.0, 0.0]);
    for q in 0..4 {
        c[0][4 * q + 1] = 0.35f32.to_bits();
        c[1][4 * q + 1] = 0.35f32.to_bits();
    }
    let rig = Rig::new(mips(), sampler(Wrap::ClampToEdge, n, n, MipFilter::Linear));
    let out = rig.run_fragment(Opcode::SAMPLE, T::Tex2D, &[c]);
    let lambda = libm::log2f((2.0f32 * (0.35f32 - 0.1) * 4.0 * ((0.35f32 - 0.1) * 4.0)).sqrt());
    let expect = 1.0 + lambda * (2.0 - 1.0);
    assert_eq!(lane_f(&out, 0)[0], expect);
    assert!((expect - 1.5).abs() < 1e-6);
    let q = rig.run_fragment(Opcode::LOD, T::Tex2D, &[c]);
    assert_eq!(lane_f(&q, 3), [lambda, lambda, 0.0, 0.0]);
}

#[test]
fn one_filter_without_mips_reads_level_0_and_lod_queries_keep_lambda() {
    // the quads of implicit_lod_from_quads: lambda = 1; with min = mag and mip
    // NONE every LOD reads level 0 (value 1); a LOD query still reports the
    // unclamped lambda (1) and level 0 (mip NONE)
    let mut c = splat([0.1, 0.1, 0.0, 0.0]);
    for q in 0..4 {
        c[0][4 * q + 1] = 0.6f32.to_bits();
        c[1][4 * q + 2] = 0.35f32.to_bits();
    }
    for f in [Filter::Nearest, Filter::Linear] {
        let rig = Rig::new(mips(), sampler(Wrap::ClampToEdge, f, f, MipFilter::None));
        let out = rig.run_fragment(Opcode::SAMPLE, T::Tex2D, &[c]);
        for l in 0..LANES {
            assert_eq!(lane_f(&out, l)[0], 1.0, "{f:?} lane {l}");
        }
        let q = rig.run_fragment(Opcode::LOD, T::Tex2D, &[c]);
        assert_eq!(lane_f(&q, 0)[..2], [0.0, 1.0], "{f:?}");
    }
}

#[test]
fn lod_query_clamps() {
    // vertex stage: lambda 0; sampler bias 3.5 -> unclamped 3.5; 3 levels -> x = 2 (linear mip)
    let n = Filter::Nearest;
    let rig = Rig::new(
        mips(),
        Sampler {
            lod_bias: 3.5,
            ..sampler(Wrap::ClampToEdge, n, n, MipFilter::Linear)
        },
    );
    let q = rig.run(Opcode::LODQ, T::Tex2D, &[splat([0.5; 4])]);
    assert_eq!(lane_f(&q, 0), [2.0, 3.5, 0.0, 0.0]);
    let rig = Rig::new(
        mips(),
        Sampler {
            lod_bias: 1.5,
            ..sampler(Wrap::ClampToEdge, n, n, MipFilter::Nearest)
        },
    );
    let q = rig.run(Opcode::LODQ, T::Tex2D, &[splat([0.5; 4])]);
    assert_eq!(lane_f(&q, 0), [2.0, 1.5, 0.0, 0.0]); // nearest: floor(1.5 + 0.5)
}

#[test]
fn explicit_gradients_and_srgb_filtering() {
    // SAMPLE_D / TXD: ddx = (0.5, 0) on a 4-wide level 0 = 2 texels, ddy = 0:
    // rho = 2, lambda = 1 -> nearest mip level 1 = 2.0
    let n = Filter::Nearest;
    let rig = Rig::new(mips(), sampler(Wrap::ClampToEdge, n, n, MipFilter::Nearest));
    let c = splat([0.5; 4]);
    let dx = splat([0.5, 0.0, 0.0, 0.0]);
    let dy = splat([0.0; 4]);
    let out = rig.run(Opcode::SAMPLE_D, T::Tex2D, &[c, dx, dy]);
    assert_eq!(lane_f(&out, 0)[0], 2.0);
    let out = rig.run(Opcode::TXD, T::Tex2D, &[c, dx, dy]);
    assert_eq!(lane_f(&out, 0)[0], 2.0);
    // ddy = (0, 1) = 4 texels dominates: lambda 2 -> level 2 = 4.0
    let out = rig.run(
        Opcode::SAMPLE_D,
        T::Tex2D,
        &[c, dx, splat([0.0, 1.0, 0.0, 0.0])],
    );
    assert_eq!(lane_f(&out, 0)[0], 4.0);
    // sRGB is decoded before filtering: codes 0 and 255 -> linear 0 and 1 -> mean 0.5
    // (filtering the codes first would give decode(127.5) ~ 0.21)
    let mut t = Texture::new(T::Tex1D, Format::Rgba8Srgb, [2, 1, 1], 1, 1, 1).unwrap();
    t.levels[0] = vec![0, 0, 0, 255, 255, 255, 255, 255];
    let lin = Filter::Linear;
    let rig = Rig::new(t, sampler(Wrap::ClampToEdge, lin, lin, MipFilter::None));
    let out = rig.run(Opcode::SAMPLE, T::Tex1D, &[splat([0.5; 4])]);
    assert_eq!(lane_f(&out, 0), [0.5, 0.5, 0.5, 1.0]);
}
