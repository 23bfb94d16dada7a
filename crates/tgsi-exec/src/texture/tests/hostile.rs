//! Hostile inputs: unbound textures, inactive lanes, missing operands,
//! refused fetches, and random instructions (every texture and image
//! opcode over random targets, bindings, samplers and operands) that may
//! fail but never panic.

use super::*;

#[test]
fn unbound_and_inactive_lanes() {
    let rig = Rig {
        textures: vec![None],
        views: vec![],
        samplers: vec![],
        gather_component: 0,
    };
    let out = rig.run(Opcode::SAMPLE, T::Tex2D, &[splat([0.5; 4])]);
    assert_eq!(lane_f(&out, 0), [0.0; 4]);
    // inactive lanes untouched
    let rig = Rig::new(quad2(), Sampler::default());
    let b = Bindings {
        textures: &rig.textures,
        views: &rig.views,
        samplers: &rig.samplers,
        images: &[],
        linear: None,
    };
    let op = TexOp {
        opcode: Opcode::SAMPLE,
        target: T::Tex2D,
        resource_swizzle: [0, 1, 2, 3],
        gather_component: 0,
        return_type: None,
        fragment: false,
    };
    let mut out = [[7u32; LANES]; 4];
    let inputs = TexInputs {
        srcs: &[splat([0.9; 4])],
        sview: &[0; LANES],
        sampler: &[0; LANES],
        offsets: &[[0; LANES]; 4],
        active: 0b10,
    };
    execute(&b, &op, &inputs, &mut out).unwrap();
    assert_eq!(out[0][0], 7);
    assert_eq!(f32::from_bits(out[0][1]), 3.0);
    // a missing operand is an error, not a panic
    assert!(
        rig.run_full(
            Opcode::SAMPLE_L,
            T::Tex2D,
            &[splat([0.5; 4])],
            &[[0; LANES]; 4],
            false,
            [0, 1, 2, 3]
        )
        .is_err()
    );
    // a cube fetch is refused
    assert!(
        rig.run_full(
            Opcode::SAMPLE_I,
            T::Cube,
            &[splat_u([0; 4])],
            &[[0; LANES]; 4],
            false,
            [0, 1, 2, 3]
        )
        .is_err()
    );
}

/// Deterministic pseudo-random words (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    /// A float that is often special: NaN, +-inf, huge, negative, in range.
    fn float(&mut self) -> u32 {
        match self.next() % 8 {
            0 => f32::NAN.to_bits(),
            1 => f32::INFINITY.to_bits(),
            2 => f32::NEG_INFINITY.to_bits(),
            3 => self.next(),
            4 => (self.next() as f32 * 1e3).to_bits(),
            _ => ((self.next() % 4096) as f32 / 1024.0 - 1.5).to_bits(),
        }
    }
}

/// Every texture target, UNKNOWN included.
const TARGETS: [T; 19] = [
    T::Buffer,
    T::Tex1D,
    T::Tex2D,
    T::Tex3D,
    T::Cube,
    T::Rect,
    T::Shadow1D,
    T::Shadow2D,
    T::ShadowRect,
    T::Array1D,
    T::Array2D,
    T::Shadow1DArray,
    T::Shadow2DArray,
    T::ShadowCube,
    T::Msaa2D,
    T::Msaa2DArray,
    T::CubeArray,
    T::ShadowCubeArray,
    T::Unknown,
];

/// Every texture opcode the texture unit executes.
const TEXTURE_OPS: [Opcode; 28] = [
    Opcode::TEX,
    Opcode::TXP,
    Opcode::TXB,
    Opcode::TXL,
    Opcode::TXD,
    Opcode::TEX2,
    Opcode::TXB2,
    Opcode::TXL2,
    Opcode::TEX_LZ,
    Opcode::TXF,
    Opcode::TXF_LZ,
    Opcode::TXQ,
    Opcode::TXQS,
    Opcode::TG4,
    Opcode::LODQ,
    Opcode::SAMPLE,
    Opcode::SAMPLE_B,
    Opcode::SAMPLE_C,
    Opcode::SAMPLE_C_LZ,
    Opcode::SAMPLE_D,
    Opcode::SAMPLE_L,
    Opcode::SAMPLE_I,
    Opcode::SAMPLE_I_MS,
    Opcode::GATHER4,
    Opcode::SVIEWINFO,
    Opcode::SAMPLE_POS,
    Opcode::SAMPLE_INFO,
    Opcode::LOD,
];

/// Every image opcode.
const IMAGE_OPS: [Opcode; 16] = [
    Opcode::LOAD,
    Opcode::STORE,
    Opcode::RESQ,
    Opcode::ATOMUADD,
    Opcode::ATOMXCHG,
    Opcode::ATOMCAS,
    Opcode::ATOMAND,
    Opcode::ATOMOR,
    Opcode::ATOMXOR,
    Opcode::ATOMUMIN,
    Opcode::ATOMUMAX,
    Opcode::ATOMIMIN,
    Opcode::ATOMIMAX,
    Opcode::ATOMFADD,
    Opcode::ATOMINC_WRAP,
    Opcode::ATOMDEC_WRAP,
];

#[test]
fn arbitrary_inputs_never_panic() {
    let textures = vec![
        Some(mips()),
        Some(cube()),
        Some(tex_r(T::Tex3D, [2, 2, 2], 1, &[&[0.0; 8], &[1.0]])),
        Some(tex_r(T::Array2D, [2, 1, 1], 3, &[&[0.0; 6]])),
        Some(Texture::new(T::Msaa2D, Format::R32Uint, [2, 2, 1], 1, 1, 4).unwrap()),
        Some(Texture::new(T::Tex2D, Format::Z16Unorm, [3, 3, 1], 1, 2, 1).unwrap()),
        Some(Texture::new(T::Buffer, Format::Rgba8Uint, [5, 1, 1], 1, 1, 1).unwrap()),
        None,
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut ok = 0;
    for round in 0..20000 {
        ok += random_texture_instruction(&mut rng, &textures, round) as u32;
    }
    assert!(ok > 5000, "only {ok} of the random instructions ran");
    // images: every opcode, random addresses and formats
    let img = image(Format::R32Uint, 3);
    let img8 = image(Format::Rgb8Unorm, 3);
    for round in 0..2000 {
        let which = if round % 2 == 0 { &img } else { &img8 };
        random_image_instruction(&mut rng, which, round);
    }
}

/// Runs texture opcode `round` (of [`TEXTURE_OPS`]) over `textures` with
/// random samplers, views, target, swizzles, operands, offsets, bindings
/// and mask: true when it ran without an error (it must never panic).
fn random_texture_instruction(rng: &mut Rng, textures: &[Option<Texture>], round: usize) -> bool {
    let mut samplers = Vec::new();
    for _ in 0..3 {
        samplers.push(random_sampler(rng));
    }
    let mut views = vec![View::default(); 2];
    if rng.next().is_multiple_of(2) {
        views[0].first_level = rng.next() % 3;
        views[0].last_level = rng.next() % 4;
        views[1].first_layer = rng.next() % 7;
        views[1].last_layer = rng.next() % 8;
    }
    let b = Bindings {
        textures,
        views: &views,
        samplers: &samplers,
        images: &[],
        linear: None,
    };
    let op = TexOp {
        opcode: TEXTURE_OPS[round % TEXTURE_OPS.len()],
        target: if rng.next().is_multiple_of(2) {
            T::Unknown
        } else {
            TARGETS[(rng.next() as usize) % TARGETS.len()]
        },
        resource_swizzle: [0, 1, 2, 3].map(|_| (rng.next() % 4) as u8),
        gather_component: (rng.next() % 4) as u8,
        return_type: None,
        fragment: rng.next().is_multiple_of(2),
    };
    let mut srcs = vec![[[0u32; LANES]; 4]; if rng.next().is_multiple_of(8) { 1 } else { 3 }];
    for s in srcs.iter_mut() {
        for row in s.iter_mut() {
            for v in row.iter_mut() {
                *v = if rng.next().is_multiple_of(3) {
                    rng.next() % 8
                } else {
                    rng.float()
                };
            }
        }
    }
    let mut offsets = [[0u32; LANES]; 4];
    for row in offsets.iter_mut() {
        for v in row.iter_mut() {
            *v = (rng.next() % 17).wrapping_sub(8);
        }
    }
    let tex_idx = rng.next() % 9;
    let sview = [0u32; LANES].map(|_| {
        if rng.next().is_multiple_of(8) {
            rng.next() % 9
        } else {
            tex_idx
        }
    });
    let samp = [0u32; LANES].map(|_| rng.next() % 4);
    let mut out = [[0u32; LANES]; 4];
    let active = rng.next() as u16;
    let inputs = TexInputs {
        srcs: &srcs,
        sview: &sview,
        sampler: &samp,
        offsets: &offsets,
        active,
    };
    execute(&b, &op, &inputs, &mut out).is_ok()
}

/// A sampler of random wrap modes, filters, LOD bias and range, compare,
/// border colour, coordinate units, seams and anisotropy.
fn random_sampler(rng: &mut Rng) -> Sampler {
    let w = |r: &mut Rng| WRAPS[(r.next() % 8) as usize];
    Sampler {
        wrap: [w(rng), w(rng), w(rng)],
        min: if rng.next().is_multiple_of(2) {
            Filter::Nearest
        } else {
            Filter::Linear
        },
        mag: if rng.next().is_multiple_of(2) {
            Filter::Nearest
        } else {
            Filter::Linear
        },
        mip: [MipFilter::None, MipFilter::Nearest, MipFilter::Linear][(rng.next() % 3) as usize],
        lod_bias: f32::from_bits(rng.float()),
        min_lod: f32::from_bits(rng.float()),
        max_lod: f32::from_bits(rng.float()),
        compare: if rng.next().is_multiple_of(2) {
            Some(CompareFunc::LessEqual)
        } else {
            None
        },
        border: [rng.float(), rng.next(), rng.float(), rng.next()],
        normalized: !rng.next().is_multiple_of(4),
        seamless_cube: rng.next().is_multiple_of(2),
        max_anisotropy: rng.next() % 17,
    }
}

/// Runs image opcode `round` (of [`IMAGE_OPS`]) on `img` with random
/// operands, target, format, write mask and lanes (any result but a panic).
fn random_image_instruction(rng: &mut Rng, img: &SharedImage, round: usize) {
    let mut srcs = vec![[[0u32; LANES]; 4]; (rng.next() % 4) as usize];
    for s in srcs.iter_mut() {
        for row in s.iter_mut() {
            for v in row.iter_mut() {
                *v = if rng.next().is_multiple_of(2) {
                    rng.next() % 4
                } else {
                    rng.next()
                };
            }
        }
    }
    let t = TARGETS[(rng.next() as usize) % TARGETS.len()];
    let fmt = [
        Format::R32Uint,
        Format::Rgba8Unorm,
        Format::Rgb8Unorm,
        Format::R32Float,
    ][(rng.next() % 4) as usize];
    let mut out = [[0u32; LANES]; 4];
    let _ = image_op(
        img,
        IMAGE_OPS[round % IMAGE_OPS.len()],
        t,
        fmt,
        &srcs,
        (rng.next() % 16) as u8,
        rng.next() as u16,
        &mut out,
    );
}
