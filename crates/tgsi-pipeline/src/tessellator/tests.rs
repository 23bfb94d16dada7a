//! Tessellator tests: point positions and indices derived by hand from the
//! fixed-point rules (each test says how), then properties over many factor
//! sets of every domain, partitioning and output.

use super::*;

fn settings(d: Domain, p: Partitioning, o: OutputPrimitive) -> Settings {
    Settings::new(d, p, o)
}

fn uv(t: &Tessellation) -> Vec<(f32, f32)> {
    t.points.iter().map(|p| (p[0], p[1])).collect()
}

const F: fn(u32) -> f32 = |fixed| fixed as f32 / 65536.0;

#[test]
fn reciprocal_table_is_rounded_inverse() {
    // the reference's table: 1/3 = 0x5555, 1/6 = 0x2aab (10922.67 rounds
    // up), 1/7 = 0x2492, 1/63 = 0x410, 1/64 = 0x400
    assert_eq!(RECIPROCALS[1], 0x10000);
    assert_eq!(RECIPROCALS[3], 0x5555);
    assert_eq!(RECIPROCALS[6], 0x2aab);
    assert_eq!(RECIPROCALS[7], 0x2492);
    assert_eq!(RECIPROCALS[33], 0x7c2);
    assert_eq!(RECIPROCALS[63], 0x410);
    assert_eq!(RECIPROCALS[64], 0x400);
}

#[test]
fn split_order_is_a_permutation() {
    let mut seen = [false; 33];
    for &p in &SPLIT_ORDER {
        assert!(!seen[p as usize]);
        seen[p as usize] = true;
    }
}

#[test]
fn fixed_conversion_rounds_to_nearest_even() {
    assert_eq!(float_to_fixed(1.0), 0x10000);
    // 2^-17 is half a unit: ties to even (0); 3 * 2^-17 rounds to 2 units
    assert_eq!(float_to_fixed(1.0 / 131072.0), 0);
    assert_eq!(float_to_fixed(3.0 / 131072.0), 2);
    assert_eq!(float_to_fixed(f32::NAN), 0);
    assert_eq!(float_to_fixed(-3.0), 0);
}

#[test]
fn culled_patches() {
    let s = settings(
        Domain::Quad,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
    );
    assert!(tessellate(&s, &[1.0, 0.0, 1.0, 1.0], &[1.0, 1.0]).is_none());
    assert!(tessellate(&s, &[1.0, 1.0, f32::NAN, 1.0], &[1.0, 1.0]).is_none());
    assert!(tessellate(&s, &[1.0, 1.0, 1.0, -2.0], &[1.0, 1.0]).is_none());
    // a NaN inner factor is not culled: it clamps to the lower bound
    assert!(tessellate(&s, &[1.0; 4], &[f32::NAN, 1.0]).is_some());
    let t = settings(
        Domain::Triangle,
        Partitioning::FractionalOdd,
        OutputPrimitive::Point,
    );
    assert!(
        tessellate(&t, &[1.0, 1.0], &[1.0]).is_none(),
        "missing outer factor is 0"
    );
    let i = settings(
        Domain::Isoline,
        Partitioning::Integer,
        OutputPrimitive::Line,
    );
    assert!(tessellate(&i, &[0.0, 4.0], &[]).is_none());
    assert!(tessellate(&i, &[4.0, f32::NAN], &[]).is_none());
}

#[test]
fn tri_all_ones_is_the_patch_itself() {
    // all factors 1: the three corners v = 1, w = 1, u = 1 and one triangle
    let cw = settings(
        Domain::Triangle,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
    );
    let t = tessellate(&cw, &[1.0, 1.0, 1.0], &[1.0]).unwrap();
    assert_eq!(
        t.points,
        vec![[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    );
    assert_eq!(t.indices, vec![0, 1, 2]);
    let ccw = settings(
        Domain::Triangle,
        Partitioning::Pow2,
        OutputPrimitive::TriangleCcw,
    );
    assert_eq!(
        tessellate(&ccw, &[0.5, 1.0, 1.0], &[0.2]).unwrap().indices,
        vec![0, 2, 1]
    );
}

#[test]
fn quad_integer_two_is_a_three_by_three_grid() {
    // Factor 2 (even): half factor 1.0, one point per half edge, the middle
    // point snapped to 0.5. The outer ring runs clockwise from (0, 1): down
    // u = 0 (reversed), along v = 0, up u = 1, back along v = 1 (reversed);
    // the even inner factors leave a one-point middle row (0.5, 0.5).
    let s = settings(
        Domain::Quad,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
    );
    let t = tessellate(&s, &[2.0; 4], &[2.0, 2.0]).unwrap();
    assert_eq!(
        uv(&t),
        vec![
            (0.0, 1.0),
            (0.0, 0.5),
            (0.0, 0.0),
            (0.5, 0.0),
            (1.0, 0.0),
            (1.0, 0.5),
            (1.0, 1.0),
            (0.5, 1.0),
            (0.5, 0.5),
        ]
    );
    assert_eq!(t.indices.len(), 8 * 3);
    assert!(t.points.iter().all(|p| p[2] == 0.0));
}

#[test]
fn quad_outer_one_inner_two_is_a_fan_around_the_centre() {
    // Outer factors 1 (odd, two points per edge): the corners (0,1), (0,0),
    // (1,0), (1,1). Inner 2 (even): one inner point (0.5, 0.5), index 4.
    // Each edge's transition stitch has an odd outside (0 half points after
    // the parity adjustment) and an even inside (1): only the "triangle
    // pointing inside" (i, o, o+1). Edge 2 runs with the inverted middle row
    // (4 -> 8 - 4 = 4), edge 3 also maps its last outer point back to 0.
    let s = settings(
        Domain::Quad,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
    );
    let t = tessellate(&s, &[1.0; 4], &[2.0, 2.0]).unwrap();
    assert_eq!(
        uv(&t),
        vec![(0.0, 1.0), (0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.5, 0.5)]
    );
    assert_eq!(t.indices, vec![4, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0]);
    let ccw = settings(
        Domain::Quad,
        Partitioning::Integer,
        OutputPrimitive::TriangleCcw,
    );
    let t = tessellate(&ccw, &[1.0; 4], &[2.0, 2.0]).unwrap();
    assert_eq!(t.indices, vec![4, 1, 0, 4, 2, 1, 4, 3, 2, 4, 0, 3]);
}

#[test]
fn tri_integer_two() {
    // Factor 2 on every edge: three points per edge (the middle at 0.5),
    // outer ring v = 1 -> w = 1 -> u = 1, and (inner 2, even) the centre
    // (0x5555, 0x5555) in fixed point. Each edge stitches two triangles to
    // the centre; the last edge wraps its last outer point to point 0.
    let s = settings(
        Domain::Triangle,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
    );
    let t = tessellate(&s, &[2.0; 3], &[2.0]).unwrap();
    let third = F(0x5555);
    assert_eq!(
        t.points,
        vec![
            [0.0, 1.0, 0.0],
            [0.0, 0.5, 0.5],
            [0.0, 0.0, 1.0],
            [0.5, 0.0, 0.5],
            [1.0, 0.0, 0.0],
            [0.5, 0.5, 0.0],
            [third, third, 1.0 - third - third],
        ]
    );
    assert_eq!(
        t.indices,
        vec![0, 1, 6, 1, 2, 6, 2, 3, 6, 3, 4, 6, 4, 5, 6, 5, 0, 6]
    );
}

#[test]
fn isoline_integer_three() {
    // Detail 3 (odd): half factor 1.5 + 0.5 = 2, three segments with the
    // reciprocal 0x5555; the point 2 mirrors point 1: 1 - 0x5555 = 0xaaab.
    // Density 2: two lines at v = 0 and v = 0.5 (no line at v = 1).
    let s = settings(
        Domain::Isoline,
        Partitioning::Integer,
        OutputPrimitive::Line,
    );
    let t = tessellate(&s, &[2.0, 3.0], &[]).unwrap();
    let us = [0.0, F(0x5555), F(0xaaab), 1.0];
    let expected: Vec<(f32, f32)> = [0.0, 0.5]
        .iter()
        .flat_map(|&v| us.iter().map(move |&u| (u, v)))
        .collect();
    assert_eq!(uv(&t), expected);
    assert_eq!(t.indices, vec![0, 1, 1, 2, 2, 3, 4, 5, 5, 6, 6, 7]);
    assert_eq!(t.primitive, OutputPrimitive::Line);
    // a triangle output on the isoline domain gives the same lines
    let tri = settings(
        Domain::Isoline,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
    );
    let t2 = tessellate(&tri, &[2.0, 3.0], &[]).unwrap();
    assert_eq!(
        (t2.indices, t2.primitive),
        (t.indices, OutputPrimitive::Line)
    );
    let pts = settings(
        Domain::Isoline,
        Partitioning::Integer,
        OutputPrimitive::Point,
    );
    assert_eq!(
        tessellate(&pts, &[2.0, 3.0], &[]).unwrap().indices,
        (0..8).collect::<Vec<_>>()
    );
}

#[test]
fn isoline_fractional_even_three() {
    // Even factor 3: half factor 1.5, floor 1 (2 segments, reciprocal
    // 0x8000), ceil 2 (4 segments, 0x4000), fraction 0.5. Point 1 lerps
    // 0.5 and 0.25 half way: 0.375; point 2 is the middle; 3 and 4 mirror.
    let s = settings(
        Domain::Isoline,
        Partitioning::FractionalEven,
        OutputPrimitive::Point,
    );
    let t = tessellate(&s, &[1.0, 3.0], &[]).unwrap();
    let us: Vec<f32> = t.points.iter().map(|p| p[0]).collect();
    assert_eq!(us, vec![0.0, 0.375, 0.5, 0.625, 1.0]);
    assert!(t.points.iter().all(|p| p[1] == 0.0));
}

#[test]
fn isoline_fractional_odd_two() {
    // Odd factor 2: half factor 1 + 0.5 = 1.5, floor 1 (1 segment), ceil 2
    // (3 segments, 0x5555), fraction 0.5, split point 0 (floor is 1), so
    // point 1 lerps 0 and 0x5555: (0x5555 * 0x8000 + 0x8000) >> 16 = 0x2aab.
    let s = settings(
        Domain::Isoline,
        Partitioning::FractionalOdd,
        OutputPrimitive::Point,
    );
    let t = tessellate(&s, &[1.0, 2.0], &[]).unwrap();
    let us: Vec<f32> = t.points.iter().map(|p| p[0]).collect();
    assert_eq!(us, vec![0.0, F(0x2aab), F(0xd555), 1.0]);
    // the density is rounded up as an integer: 1.5 -> 2 lines
    let t = tessellate(&s, &[1.5, 2.0], &[]).unwrap();
    assert_eq!(t.points.len(), 8);
    assert_eq!(t.points[4][1], 0.5);
}

#[test]
fn factors_clamp_per_partitioning() {
    // fractional_even clamps up to 2: outer 0.5 gives the factor-2 edge
    let s = settings(
        Domain::Isoline,
        Partitioning::FractionalEven,
        OutputPrimitive::Point,
    );
    let t = tessellate(&s, &[1.0, 0.5], &[]).unwrap();
    assert_eq!(t.points.len(), 3);
    // integer clamps to 64: 1000 gives 65 points per line
    let s = settings(
        Domain::Isoline,
        Partitioning::Integer,
        OutputPrimitive::Point,
    );
    assert_eq!(
        tessellate(&s, &[1.0, 1000.0], &[]).unwrap().points.len(),
        65
    );
    // fractional_odd clamps to 63: 63 segments, 64 points
    let s = settings(
        Domain::Isoline,
        Partitioning::FractionalOdd,
        OutputPrimitive::Point,
    );
    assert_eq!(
        tessellate(&s, &[1.0, 1000.0], &[]).unwrap().points.len(),
        64
    );
    // the line density clamps to 64 lines whatever the partitioning
    assert_eq!(
        tessellate(&s, &[1e9, 1.0], &[]).unwrap().points.len(),
        64 * 2
    );
    // pow2 behaves as integer: 3 stays 3 (rounding to a power of two is the
    // hull shader's business)
    let s = settings(Domain::Isoline, Partitioning::Pow2, OutputPrimitive::Point);
    assert_eq!(tessellate(&s, &[1.0, 2.5], &[]).unwrap().points.len(), 4);
}

// ---- properties --------------------------------------------------------------

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    fn factor(&mut self) -> f32 {
        match self.next() % 8 {
            0 => (self.next() % 66) as f32,
            1 => 1.0,
            _ => (self.next() % 6600) as f32 / 100.0 + 0.01,
        }
    }
}

const PARTITIONINGS: [Partitioning; 4] = [
    Partitioning::Integer,
    Partitioning::Pow2,
    Partitioning::FractionalOdd,
    Partitioning::FractionalEven,
];

/// Checks what holds for every tessellation; returns the triangle count.
fn check(t: &Tessellation, domain: Domain, what: &str) -> usize {
    for p in &t.points {
        assert!(
            (0.0..=1.0).contains(&p[0]) && (0.0..=1.0).contains(&p[1]),
            "{what}: {p:?}"
        );
        if domain == Domain::Triangle {
            assert!(p[2] >= 0.0 && p[0] + p[1] + p[2] == 1.0, "{what}: {p:?}");
        }
    }
    let n = t.vertices_per_primitive();
    assert_eq!(t.indices.len() % n, 0, "{what}");
    assert!(
        t.indices.iter().all(|&i| (i as usize) < t.points.len()),
        "{what}"
    );
    if n != 3 {
        return 0;
    }
    // Every triangle turns the output's way (or is degenerate), every point
    // is used, and the triangles tile the domain: their areas add up to it.
    let sign = if t.primitive == OutputPrimitive::TriangleCw {
        1.0
    } else {
        -1.0
    };
    let mut used = vec![false; t.points.len()];
    let mut area = 0.0f64;
    for tri in t.indices.chunks(3) {
        let [a, b, c] = [0, 1, 2].map(|k| t.points[tri[k] as usize]);
        let cross = (b[0] as f64 - a[0] as f64) * (c[1] as f64 - a[1] as f64)
            - (b[1] as f64 - a[1] as f64) * (c[0] as f64 - a[0] as f64);
        assert!(
            cross * sign > -1e-12,
            "{what}: triangle {tri:?} turns the wrong way ({cross})"
        );
        area += cross.abs() / 2.0;
        for &i in tri {
            used[i as usize] = true;
        }
    }
    assert!(used.iter().all(|&u| u), "{what}: a point no triangle uses");
    let expected = if domain == Domain::Triangle { 0.5 } else { 1.0 };
    assert!((area - expected).abs() < 1e-6, "{what}: area {area}");
    t.indices.len() / 3
}

#[test]
fn random_factor_sets_keep_every_property() {
    let mut rng = Lcg(0x5eed);
    for round in 0..400 {
        for &p in &PARTITIONINGS {
            for (d, o) in [
                (Domain::Quad, OutputPrimitive::TriangleCw),
                (Domain::Quad, OutputPrimitive::TriangleCcw),
                (Domain::Triangle, OutputPrimitive::TriangleCw),
                (Domain::Triangle, OutputPrimitive::TriangleCcw),
                (Domain::Quad, OutputPrimitive::Point),
                (Domain::Triangle, OutputPrimitive::Line),
                (Domain::Isoline, OutputPrimitive::Line),
            ] {
                let outer: Vec<f32> = (0..4).map(|_| rng.factor()).collect();
                let inner: Vec<f32> = (0..2).map(|_| rng.factor()).collect();
                let s = settings(d, p, o);
                let what = format!("round {round} {d:?} {p:?} {o:?} {outer:?} {inner:?}");
                match tessellate(&s, &outer, &inner) {
                    None => assert!(outer[..s.outer_count()].iter().any(|&x| x <= 0.0), "{what}"),
                    Some(t) => {
                        check(&t, d, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn integer_uniform_counts_follow_the_formulas() {
    // Uniform integer factor n. Quad: an (n+1) x (n+1) grid of points and
    // 2n^2 triangles. Tri (concentric rings of n, n-2, ... segments per
    // edge): n = 2m gives 3m(m+1) + 1 points and 6m^2 triangles; n = 2m+1
    // gives 3(m+1)^2 points and 6m(m+1) + 1 triangles (the centre one).
    // Isoline: density d lines of n + 1 points, n segments each.
    for n in 1..=64u32 {
        let f = n as f32;
        let quad = settings(
            Domain::Quad,
            Partitioning::Integer,
            OutputPrimitive::TriangleCw,
        );
        let t = tessellate(&quad, &[f; 4], &[f, f]).unwrap();
        assert_eq!(t.points.len() as u32, (n + 1) * (n + 1), "quad {n}");
        assert_eq!(
            check(&t, Domain::Quad, "quad") as u32,
            2 * n * n,
            "quad {n}"
        );

        let tri = settings(
            Domain::Triangle,
            Partitioning::Integer,
            OutputPrimitive::TriangleCcw,
        );
        let t = tessellate(&tri, &[f; 3], &[f]).unwrap();
        let m = n / 2;
        let (points, tris) = if n % 2 == 0 {
            (3 * m * (m + 1) + 1, 6 * m * m)
        } else {
            (3 * (m + 1) * (m + 1), 6 * m * (m + 1) + 1)
        };
        assert_eq!(t.points.len() as u32, points, "tri {n}");
        assert_eq!(check(&t, Domain::Triangle, "tri") as u32, tris, "tri {n}");

        let iso = settings(
            Domain::Isoline,
            Partitioning::Integer,
            OutputPrimitive::Line,
        );
        let d = (n % 7) + 1;
        let t = tessellate(&iso, &[d as f32, f], &[]).unwrap();
        assert_eq!(t.points.len() as u32, d * (n + 1));
        assert_eq!(t.indices.len() as u32, d * n * 2);
    }
}

#[test]
fn fractional_points_are_symmetric() {
    // The half edges mirror each other: u and 1 - u both appear on an
    // isoline (the mirrored half is computed as ONE - position).
    let mut rng = Lcg(7);
    for &p in &[Partitioning::FractionalOdd, Partitioning::FractionalEven] {
        let s = settings(Domain::Isoline, p, OutputPrimitive::Point);
        for _ in 0..200 {
            let detail = rng.factor().max(0.01);
            let t = tessellate(&s, &[1.0, detail], &[]).unwrap();
            let us: Vec<f32> = t.points.iter().map(|q| q[0]).collect();
            let mut mirrored: Vec<f32> = us.iter().rev().map(|u| 1.0 - u).collect();
            mirrored
                .iter_mut()
                .for_each(|u| *u = (*u * 65536.0).round() / 65536.0);
            assert_eq!(us, mirrored, "{p:?} {detail}");
            assert!(us.windows(2).all(|w| w[0] < w[1]), "{p:?} {detail}: {us:?}");
        }
    }
}
