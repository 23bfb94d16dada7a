//! Cube maps: face selection, seams and corners, seamless edge taps, and
//! LOD on face coordinates.

use super::*;
use crate::texture::sample::cube_face;

#[test]
fn cube_face_selection() {
    assert_eq!(cube_face([1.0, 0.0, 0.0]), (0, 0.5, 0.5));
    // +X: sc = -z, tc = -y: (1, 0.5, -0.5) -> s = (0.5 + 1)/2, t = (-0.5 + 1)/2
    assert_eq!(cube_face([1.0, 0.5, -0.5]), (0, 0.75, 0.25));
    assert_eq!(cube_face([-2.0, 0.0, 0.0]).0, 1);
    assert_eq!(cube_face([0.0, 1.0, 0.0]).0, 2);
    assert_eq!(cube_face([0.0, -1.0, 0.0]).0, 3);
    assert_eq!(cube_face([0.0, 0.0, 1.0]).0, 4);
    assert_eq!(cube_face([0.0, 0.0, -1.0]).0, 5);
    // +Z: sc = x, tc = -y
    assert_eq!(cube_face([0.5, 0.5, 1.0]), (4, 0.75, 0.25));
    // ties: x over y over z
    assert_eq!(cube_face([1.0, 1.0, 1.0]).0, 0);
    assert_eq!(cube_face([0.0, -1.0, 1.0]).0, 3);
    assert_eq!(cube_face([-1.0, 1.0, 0.0]).0, 1);
}

#[test]
fn cube_seams_and_corners() {
    let lin = Filter::Linear;
    let s = sampler(Wrap::ClampToEdge, lin, lin, MipFilter::None);
    // (1, 0, -0.75) on +X: s = (0.75 + 1)/2 = 0.875 -> u = 1.75, x = 1.25: i0 = 1, i1 = 2 (past the
    // edge sc = +1, i.e. towards -z: face -Z = 50), a = 0.25; t = 0.5 -> both rows alike.
    // 0 + 0.25 * (50 - 0) = 12.5
    let rig = Rig::new(cube(), s);
    assert_eq!(rig.sample_r(T::Cube, [1.0, 0.0, -0.75, 0.0]), 12.5);
    // without seamless filtering the tap clamps to the face: 0
    let rig2 = Rig::new(
        cube(),
        Sampler {
            seamless_cube: false,
            ..s
        },
    );
    assert_eq!(rig2.sample_r(T::Cube, [1.0, 0.0, -0.75, 0.0]), 0.0);
    // corner: (1, -0.75, -0.75): a = b = 0.25, taps (1,1) = +X 0, (2,1) = -Z 50,
    // (1,2) = past tc = +1 (towards -y): -Y 30, (2,2) = corner = (0 + 50 + 30) / 3
    let corner = (0.0f32 + 50.0 + 30.0) / 3.0;
    let r0 = 0.0f32 + 0.25 * (50.0 - 0.0);
    let r1 = 30.0f32 + 0.25 * (corner - 30.0);
    let want = r0 + 0.25 * (r1 - r0);
    assert_eq!(rig.sample_r(T::Cube, [1.0, -0.75, -0.75, 0.0]), want);
    // a 2D-array view of the cube: layer 4 is +Z (40)
    let rig4 = Rig::new(cube(), Sampler::default());
    let out = rig4.run(Opcode::SAMPLE_I, T::Array2D, &[splat_u([1, 1, 4, 0])]);
    assert_eq!(lane_f(&out, 0)[0], 40.0);
    // nearest picks the face texel: -Y centre
    let rig3 = Rig::new(cube(), Sampler::default());
    assert_eq!(rig3.sample_r(T::Cube, [0.1, -1.0, 0.2, 0.0]), 30.0);
}

#[test]
fn seamless_edge_taps_land_on_the_nearest_texel_of_the_cube() {
    // For every tap one texel past an edge of every face (n = 4), the
    // mapped texel must be the texel whose centre direction is angularly
    // nearest to the tap's direction, among all 6 * n * n texels.
    use crate::texture::sample::{cube_dir, cube_neighbor};
    let n = 4i64;
    let unit = |d: [i64; 3]| {
        let v = d.map(|c| c as f64);
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / l)
    };
    let mut checked = 0;
    for face in 0..6u32 {
        for k in 0..n {
            for (i, j) in [(-1, k), (n, k), (k, -1), (k, n)] {
                let d = unit(cube_dir(face, i, j, n));
                let mut best = (f64::MIN, (0u32, 0i64, 0i64));
                for f in 0..6u32 {
                    for y in 0..n {
                        for x in 0..n {
                            let e = unit(cube_dir(f, x, y, n));
                            let dot = d[0] * e[0] + d[1] * e[1] + d[2] * e[2];
                            if dot > best.0 + 1e-12 {
                                best = (dot, (f, x, y));
                            }
                        }
                    }
                }
                assert_eq!(
                    cube_neighbor(face, i, j, n),
                    best.1,
                    "face {face} tap ({i}, {j})"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 6 * 4 * 4);
}

#[test]
fn cube_lod_uses_face_coordinates() {
    // 4x4 cube, level 0 = 1, level 1 = 2. Direction (1, 0, 0) on +X, s = (-z / x + 1) / 2.
    // ddx = (0, 0, -1): s(c + ddx) = (1 + 1) / 2 = 1, s(c) = 0.5 -> 0.5 * 4 = 2 texels,
    // lambda = 1 -> level 1. ddx = (0, 0, -0.5): 0.25 * 4 = 1 texel, lambda 0 -> level 0.
    let t = tex_r(T::Cube, [4, 4, 1], 6, &[&[1.0; 96], &[2.0; 24]]);
    let n = Filter::Nearest;
    let rig = Rig::new(t, sampler(Wrap::ClampToEdge, n, n, MipFilter::Nearest));
    let c = splat([1.0, 0.0, 0.0, 0.0]);
    let zero = splat([0.0; 4]);
    let out = rig.run(
        Opcode::SAMPLE_D,
        T::Cube,
        &[c, splat([0.0, 0.0, -1.0, 0.0]), zero],
    );
    assert_eq!(lane_f(&out, 0)[0], 2.0);
    let out = rig.run(
        Opcode::SAMPLE_D,
        T::Cube,
        &[c, splat([0.0, 0.0, -0.5, 0.0]), zero],
    );
    assert_eq!(lane_f(&out, 0)[0], 1.0);
}
