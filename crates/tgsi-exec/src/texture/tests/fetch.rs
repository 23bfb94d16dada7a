//! Fetches and queries: SAMPLE_I/TXF ranges, levels and swizzles,
//! multisample fetches, sample counts and positions, and size queries.

use super::*;
use crate::texture::exec::sample_position;

#[test]
fn sample_i_ranges_levels_and_swizzles() {
    // 2x2 level 0 = [[0,1],[2,3]], 1x1 level 1 = 7
    let t = tex_r(T::Tex2D, [2, 2, 1], 1, &[&[0.0, 1.0, 2.0, 3.0], &[7.0]]);
    let rig = Rig::new(t, Sampler::default());
    let ld = |a: [u32; 4]| lane_f(&rig.run(Opcode::SAMPLE_I, T::Tex2D, &[splat_u(a)]), 0);
    assert_eq!(ld([1, 1, 0, 0]), [3.0, 30.0, 0.0, 1.0]);
    assert_eq!(ld([0, 0, 0, 1]), [7.0, 70.0, 0.0, 1.0]);
    // out of range address or level: 0 in all components
    assert_eq!(ld([2, 0, 0, 0]), [0.0; 4]);
    assert_eq!(ld([0, 2, 0, 0]), [0.0; 4]);
    assert_eq!(ld([1, 0, 0, 1]), [0.0; 4]);
    assert_eq!(ld([0, 0, 0, 2]), [0.0; 4]);
    assert_eq!(ld([u32::MAX, 0, 0, 0]), [0.0; 4]);
    // TXF: the same rule
    let out = rig.run(Opcode::TXF, T::Tex2D, &[splat_u([5, 0, 0, 0])]);
    assert_eq!(lane_f(&out, 0), [0.0; 4]);
    // an offset of -1 from x = 0 wraps (unsigned) out of range
    let mut off = [[0u32; LANES]; 4];
    off[0] = [u32::MAX; LANES];
    let out = rig.run_offset(Opcode::SAMPLE_I, T::Tex2D, &[splat_u([0, 0, 0, 0])], &off);
    assert_eq!(lane_f(&out, 0), [0.0; 4]);
    let out = rig.run_offset(Opcode::SAMPLE_I, T::Tex2D, &[splat_u([1, 1, 0, 0])], &off);
    assert_eq!(lane_f(&out, 0)[0], 2.0);
    // view swizzle (G, R, 0, 1) first, then the SVIEW operand swizzle wzyx:
    // texel (1, 10, 0, 1) -> (10, 1, 0, 1) -> (1, 0, 1, 10)
    let mut rig = rig;
    rig.views[0].swizzle = [Swizzle::G, Swizzle::R, Swizzle::Zero, Swizzle::One];
    let out = rig.run_swizzled(
        Opcode::SAMPLE_I,
        T::Tex2D,
        &[splat_u([1, 0, 0, 0])],
        [3, 2, 1, 0],
    );
    assert_eq!(lane_f(&out, 0), [1.0, 0.0, 1.0, 10.0]);
    // out of range stays all 0 even through a One swizzle
    let out = rig.run_swizzled(
        Opcode::SAMPLE_I,
        T::Tex2D,
        &[splat_u([9, 0, 0, 0])],
        [3, 2, 1, 0],
    );
    assert_eq!(lane_f(&out, 0), [0.0; 4]);
}

#[test]
fn msaa_fetch_and_queries() {
    let mut t = Texture::new(T::Msaa2D, Format::R32Uint, [2, 1, 1], 1, 1, 4).unwrap();
    for s in 0..4 {
        t.set_texel(0, 1, 0, 0, s, [100 + s, 0, 0, 0]).unwrap();
    }
    let rig = Rig::new(t, Sampler::default());
    let out = rig.run(
        Opcode::SAMPLE_I_MS,
        T::Msaa2D,
        &[splat_u([1, 0, 0, 0]), splat_u([2, 0, 0, 0])],
    );
    assert_eq!(out[0][0], 102);
    let out = rig.run(Opcode::TXF, T::Msaa2D, &[splat_u([1, 0, 0, 3])]);
    assert_eq!(out[0][0], 103);
    let out = rig.run(
        Opcode::SAMPLE_I_MS,
        T::Msaa2D,
        &[splat_u([1, 0, 0, 0]), splat_u([4, 0, 0, 0])],
    );
    assert_eq!(out[0][0], 0);
    let out = rig.run(Opcode::TXQS, T::Msaa2D, &[]);
    assert_eq!(out[0][0], 4);
    let out = rig.run(Opcode::SAMPLE_INFO, T::Msaa2D, &[splat_u([0; 4])]);
    assert_eq!(out[0][0], 4); // an integer (tgsi.rst)
    // D3D 4x pattern sample 1 = (6, -2)/16 from the centre -> (0.875, 0.375)
    let out = rig.run(Opcode::SAMPLE_POS, T::Msaa2D, &[splat_u([1, 0, 0, 0])]);
    assert_eq!(lane_f(&out, 0), [0.875, 0.375, 0.0, 0.0]);
    assert_eq!(
        sample_position(8, 7),
        Some((7.0 / 16.0 + 0.5, -7.0 / 16.0 + 0.5))
    );
    assert_eq!(sample_position(4, 4), None);
}

#[test]
fn size_queries() {
    let t = Texture::new(T::Tex2D, Format::R8Unorm, [8, 4, 1], 1, 3, 1).unwrap();
    let rig = Rig::new(t, Sampler::default());
    let q = |op, lvl| {
        rig.run(op, T::Tex2D, &[splat_u([lvl, 0, 0, 0])])
            .map(|r| r[0])
    };
    assert_eq!(q(Opcode::SVIEWINFO, 1), [4, 2, 0, 3]);
    assert_eq!(q(Opcode::TXQ, 2), [2, 1, 0, 3]);
    // out of range level: sizes 0, level count kept
    assert_eq!(q(Opcode::SVIEWINFO, 3), [0, 0, 0, 3]);
    let a = Texture::new(T::Array1D, Format::R8Unorm, [8, 5, 1], 1, 1, 1).unwrap();
    let rig = Rig::new(a, Sampler::default());
    assert_eq!(
        rig.run(Opcode::TXQ, T::Array1D, &[splat_u([0; 4])])
            .map(|r| r[0]),
        [8, 5, 0, 1]
    );
}
