//! Tests of the texture engine. Expected values are derived by hand from
//! the rules in docs/textures.md; each test says how.

use super::exec::sample_position;
use super::format::{
    f32_to_small_float, linear_to_srgb, linear_to_srgb_curve, small_float_to_f32, srgb_to_linear,
};
use super::sample::{cube_face, wrap_index};
use super::*;
use tgsi_ir::enums::{PipeFormat, TextureTarget as T};

const ALL: u16 = 0xFFFF;

fn splat(v: [f32; 4]) -> Reg {
    let mut r = [[0u32; LANES]; 4];
    for c in 0..4 {
        r[c] = [v[c].to_bits(); LANES];
    }
    r
}

fn splat_u(v: [u32; 4]) -> Reg {
    let mut r = [[0u32; LANES]; 4];
    for c in 0..4 {
        r[c] = [v[c]; LANES];
    }
    r
}

fn lane_f(r: &Reg, l: usize) -> [f32; 4] {
    [0, 1, 2, 3].map(|c| f32::from_bits(r[c][l]))
}

/// A texture of r32f (or any float format) with level data given as one value per texel (in r; g = 10 r).
fn tex_r(target: T, size: [u32; 3], layers: u32, levels: &[&[f32]]) -> Texture {
    let mut t = Texture::new(
        target,
        Format::Rgba32Float,
        size,
        layers,
        levels.len() as u32,
        1,
    )
    .unwrap();
    for (k, data) in levels.iter().enumerate() {
        let (w, h, d) = t.level_dims(k as u32);
        let mut i = 0;
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    let v = data[i];
                    t.set_texel(
                        k as u32,
                        x,
                        y,
                        z,
                        0,
                        [v, 10.0 * v, 0.0, 1.0].map(f32::to_bits),
                    )
                    .unwrap();
                    i += 1;
                }
            }
        }
    }
    t
}

struct Rig {
    textures: Vec<Option<Texture>>,
    views: Vec<View>,
    samplers: Vec<Sampler>,
    /// GATHER4's channel (the SAMP operand's swizzle selector).
    gather_component: u8,
}

impl Rig {
    fn new(t: Texture, s: Sampler) -> Rig {
        Rig {
            textures: vec![Some(t)],
            views: vec![View::default()],
            samplers: vec![s],
            gather_component: 0,
        }
    }
    fn run_full(
        &self,
        op: Opcode,
        target: T,
        srcs: &[Reg],
        offsets: &Reg,
        fragment: bool,
        swz: [u8; 4],
    ) -> Result<Reg, String> {
        let b = Bindings {
            textures: &self.textures,
            views: &self.views,
            samplers: &self.samplers,
            images: &[],
        };
        let op = TexOp {
            opcode: op,
            target,
            resource_swizzle: swz,
            gather_component: self.gather_component,
            return_type: None,
            fragment,
        };
        let mut out = [[0xdead_beefu32; LANES]; 4];
        let inputs = TexInputs {
            srcs,
            sview: &[0; LANES],
            sampler: &[0; LANES],
            offsets,
            active: ALL,
        };
        execute(&b, &op, &inputs, &mut out)?;
        Ok(out)
    }
    fn run(&self, op: Opcode, target: T, srcs: &[Reg]) -> Reg {
        self.run_full(op, target, srcs, &[[0; LANES]; 4], false, [0, 1, 2, 3])
            .unwrap()
    }
    /// `run` with texel offsets.
    fn run_offset(&self, op: Opcode, target: T, srcs: &[Reg], offsets: &Reg) -> Reg {
        self.run_full(op, target, srcs, offsets, false, [0, 1, 2, 3])
            .unwrap()
    }
    /// `run` in the fragment stage (implicit LOD from quad derivatives).
    fn run_fragment(&self, op: Opcode, target: T, srcs: &[Reg]) -> Reg {
        self.run_full(op, target, srcs, &[[0; LANES]; 4], true, [0, 1, 2, 3])
            .unwrap()
    }
    /// `run` with a resource (SVIEW/SAMP operand) swizzle.
    fn run_swizzled(&self, op: Opcode, target: T, srcs: &[Reg], swz: [u8; 4]) -> Reg {
        self.run_full(op, target, srcs, &[[0; LANES]; 4], false, swz)
            .unwrap()
    }
    /// Lane 0's (r) of SAMPLE at coordinate c.
    fn sample_r(&self, target: T, c: [f32; 4]) -> f32 {
        lane_f(&self.run(Opcode::SAMPLE, target, &[splat(c)]), 0)[0]
    }
}

fn sampler(wrap: Wrap, min: Filter, mag: Filter, mip: MipFilter) -> Sampler {
    Sampler {
        wrap: [wrap; 3],
        min,
        mag,
        mip,
        ..Sampler::default()
    }
}

// ---------------------------------------------------------------- formats

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
        let q = super::format::unorm_to_float(v as u32, 8);
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
        let (mut lo, mut b) = (0u32, srgb_to_linear(code).to_bits());
        while lo < b {
            let mid = lo + (b - lo) / 2;
            if linear_to_srgb_curve(f32::from_bits(mid)) >= code {
                b = mid;
            } else {
                lo = mid + 1;
            }
        }
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

// ------------------------------------------------------------ resources

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

// ------------------------------------------------------------ addressing

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

/// 2x2 texture r = [[0, 1], [2, 3]] (row 0 first).
fn quad2() -> Texture {
    tex_r(T::Tex2D, [2, 2, 1], 1, &[&[0.0, 1.0, 2.0, 3.0]])
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

/// 4x4 texture, levels of constant value 1, 2, 4.
fn mips() -> Texture {
    tex_r(T::Tex2D, [4, 4, 1], 1, &[&[1.0; 16], &[2.0; 4], &[4.0]])
}

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

/// A 2x2 cube whose face f is the constant 10 f.
fn cube() -> Texture {
    let faces: Vec<f32> = (0..6).flat_map(|f| [10.0 * f as f32; 4]).collect();
    tex_r(T::Cube, [2, 2, 1], 6, &[&faces])
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

// ----------------------------------------------------------------- images

fn image(fmt: Format, w: u32) -> SharedImage {
    SharedImage::from_texture(&Texture::new(T::Tex1D, fmt, [w, 1, 1], 1, 1, 1).unwrap())
}

fn iop(img: &SharedImage, op: Opcode, srcs: &[Reg], mask: u8, active: u16) -> Reg {
    let mut out = [[0u32; LANES]; 4];
    image_op(
        img,
        op,
        T::Tex1D,
        img.layout.format,
        srcs,
        mask,
        active,
        &mut out,
    )
    .unwrap();
    out
}

#[test]
fn image_atomics_in_lane_order() {
    let img = image(Format::R32Uint, 4);
    // lanes 0 and 1 add 5 at x = 1: lane 0 sees 0, lane 1 sees 5; final 10
    let out = iop(
        &img,
        Opcode::ATOMUADD,
        &[splat_u([1, 0, 0, 0]), splat_u([5, 0, 0, 0])],
        1,
        0b11,
    );
    assert_eq!((out[0][0], out[0][1], out[3][1]), (0, 5, 5));
    // out of range: returns 0, writes nothing
    let out = iop(
        &img,
        Opcode::ATOMUADD,
        &[splat_u([4, 0, 0, 0]), splat_u([5, 0, 0, 0])],
        1,
        1,
    );
    assert_eq!(out[0][0], 0);
    let t = img.to_texture();
    assert_eq!(t.texel(0, 1, 0, 0, 0)[0], 10);
    assert_eq!(t.levels[0].iter().map(|&b| b as u32).sum::<u32>(), 10);
    // CAS: old 10 == 10 -> 3; second lane sees 3 != 10 -> keeps 3
    let out = iop(
        &img,
        Opcode::ATOMCAS,
        &[
            splat_u([1, 0, 0, 0]),
            splat_u([10, 0, 0, 0]),
            splat_u([3, 0, 0, 0]),
        ],
        1,
        0b11,
    );
    assert_eq!((out[0][0], out[0][1]), (10, 3));
    // INC_WRAP with v = 3 on old 3: n = 4 > 3 -> 0; DEC_WRAP v = 5 on old 0 -> 0, then 0 again
    iop(
        &img,
        Opcode::ATOMINC_WRAP,
        &[splat_u([1, 0, 0, 0]), splat_u([3, 0, 0, 0])],
        1,
        1,
    );
    assert_eq!(img.to_texture().texel(0, 1, 0, 0, 0)[0], 0);
    iop(
        &img,
        Opcode::ATOMXCHG,
        &[splat_u([1, 0, 0, 0]), splat_u([2, 0, 0, 0])],
        1,
        1,
    );
    iop(
        &img,
        Opcode::ATOMDEC_WRAP,
        &[splat_u([1, 0, 0, 0]), splat_u([5, 0, 0, 0])],
        1,
        1,
    );
    assert_eq!(img.to_texture().texel(0, 1, 0, 0, 0)[0], 1);
    let s = (-4i32) as u32;
    iop(
        &img,
        Opcode::ATOMIMIN,
        &[splat_u([1, 0, 0, 0]), splat_u([s, 0, 0, 0])],
        1,
        1,
    );
    assert_eq!(img.to_texture().texel(0, 1, 0, 0, 0)[0], s);
    iop(
        &img,
        Opcode::ATOMUMIN,
        &[splat_u([1, 0, 0, 0]), splat_u([9, 0, 0, 0])],
        1,
        1,
    );
    assert_eq!(img.to_texture().texel(0, 1, 0, 0, 0)[0], 9);
    // atomics on a non-R32 format are refused
    let rgba = image(Format::Rgba8Unorm, 2);
    let mut out = [[0u32; LANES]; 4];
    assert!(
        image_op(
            &rgba,
            Opcode::ATOMUADD,
            T::Tex1D,
            rgba.layout.format,
            &[splat_u([0; 4]), splat_u([0; 4])],
            1,
            1,
            &mut out
        )
        .is_err()
    );
}

#[test]
fn image_load_store_bounds_and_formats() {
    let img = image(Format::Rgba8Unorm, 2);
    // full store of (1, 0.5, 0, 1) at x = 1 -> bytes 255, 128, 0, 255
    iop(
        &img,
        Opcode::STORE,
        &[splat_u([1, 0, 0, 0]), splat([1.0, 0.5, 0.0, 1.0])],
        0xF,
        1,
    );
    // masked store of .y only at x = 1 with 0.2 -> byte 51
    iop(
        &img,
        Opcode::STORE,
        &[splat_u([1, 0, 0, 0]), splat([0.0, 0.2, 0.0, 0.0])],
        0b10,
        1,
    );
    // out-of-range store dropped
    iop(
        &img,
        Opcode::STORE,
        &[splat_u([2, 0, 0, 0]), splat([1.0; 4])],
        0xF,
        1,
    );
    let t = img.to_texture();
    assert_eq!(t.levels[0], vec![0, 0, 0, 0, 255, 51, 0, 255]);
    let out = iop(&img, Opcode::LOAD, &[splat_u([1, 0, 0, 0])], 0xF, 1);
    assert_eq!(lane_f(&out, 0), [1.0, 0.2, 0.0, 1.0]);
    let out = iop(&img, Opcode::LOAD, &[splat_u([7, 0, 0, 0])], 0xF, 1);
    assert_eq!(lane_f(&out, 0), [0.0; 4]);
    // a 1-byte format: writes touch only their byte
    let r8 = image(Format::R8Uint, 5);
    iop(
        &r8,
        Opcode::STORE,
        &[splat_u([3, 0, 0, 0]), splat_u([300, 0, 0, 0])],
        0xF,
        1,
    );
    assert_eq!(r8.to_texture().levels[0], vec![0, 0, 0, 255, 0]);
    let out = iop(&r8, Opcode::RESQ, &[], 0xF, 1);
    assert_eq!([out[0][0], out[1][0], out[2][0], out[3][0]], [5, 0, 0, 1]);
    let mut back = Texture::new(T::Tex1D, Format::R8Uint, [5, 1, 1], 1, 1, 1).unwrap();
    r8.write_back(&mut back);
    assert_eq!(back.levels[0][3], 255);
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

#[test]
fn arbitrary_inputs_never_panic() {
    use Opcode as O;
    let targets = [
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
    let ops = [
        O::TEX,
        O::TXP,
        O::TXB,
        O::TXL,
        O::TXD,
        O::TEX2,
        O::TXB2,
        O::TXL2,
        O::TEX_LZ,
        O::TXF,
        O::TXF_LZ,
        O::TXQ,
        O::TXQS,
        O::TG4,
        O::LODQ,
        O::SAMPLE,
        O::SAMPLE_B,
        O::SAMPLE_C,
        O::SAMPLE_C_LZ,
        O::SAMPLE_D,
        O::SAMPLE_L,
        O::SAMPLE_I,
        O::SAMPLE_I_MS,
        O::GATHER4,
        O::SVIEWINFO,
        O::SAMPLE_POS,
        O::SAMPLE_INFO,
        O::LOD,
    ];
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
        let mut samplers = Vec::new();
        for _ in 0..3 {
            let w = |r: &mut Rng| wraps[(r.next() % 8) as usize];
            samplers.push(Sampler {
                wrap: [w(&mut rng), w(&mut rng), w(&mut rng)],
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
                mip: [MipFilter::None, MipFilter::Nearest, MipFilter::Linear]
                    [(rng.next() % 3) as usize],
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
            });
        }
        let mut views = vec![View::default(); 2];
        if rng.next().is_multiple_of(2) {
            views[0].first_level = rng.next() % 3;
            views[0].last_level = rng.next() % 4;
            views[1].first_layer = rng.next() % 7;
            views[1].last_layer = rng.next() % 8;
        }
        let b = Bindings {
            textures: &textures,
            views: &views,
            samplers: &samplers,
            images: &[],
        };
        let op = TexOp {
            opcode: ops[round % ops.len()],
            target: if rng.next().is_multiple_of(2) {
                T::Unknown
            } else {
                targets[(rng.next() as usize) % targets.len()]
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
        ok += execute(&b, &op, &inputs, &mut out).is_ok() as u32;
    }
    assert!(ok > 5000, "only {ok} of the random instructions ran");
    // images: every opcode, random addresses and formats
    let img = image(Format::R32Uint, 3);
    let img8 = image(Format::Rgb8Unorm, 3);
    let iops = [
        O::LOAD,
        O::STORE,
        O::RESQ,
        O::ATOMUADD,
        O::ATOMXCHG,
        O::ATOMCAS,
        O::ATOMAND,
        O::ATOMOR,
        O::ATOMXOR,
        O::ATOMUMIN,
        O::ATOMUMAX,
        O::ATOMIMIN,
        O::ATOMIMAX,
        O::ATOMFADD,
        O::ATOMINC_WRAP,
        O::ATOMDEC_WRAP,
    ];
    for round in 0..2000 {
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
        let which = if round % 2 == 0 { &img } else { &img8 };
        let t = targets[(rng.next() as usize) % targets.len()];
        let fmt = [
            Format::R32Uint,
            Format::Rgba8Unorm,
            Format::Rgb8Unorm,
            Format::R32Float,
        ][(rng.next() % 4) as usize];
        let mut out = [[0u32; LANES]; 4];
        let _ = image_op(
            which,
            iops[round % iops.len()],
            t,
            fmt,
            &srcs,
            (rng.next() % 16) as u8,
            rng.next() as u16,
            &mut out,
        );
    }
}

#[test]
fn seamless_edge_taps_land_on_the_nearest_texel_of_the_cube() {
    // For every tap one texel past an edge of every face (n = 4), the
    // mapped texel must be the texel whose centre direction is angularly
    // nearest to the tap's direction, among all 6 * n * n texels.
    use super::sample::{cube_dir, cube_neighbor};
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

#[test]
fn compare_functions_are_named_by_their_lower_case_words() {
    use super::CompareFunc as C;
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
        1 + rng.below(super::resource::full_chain(w, h, 1) as u64) as u32
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
    use super::sample::{Bound, Lookup};
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
/// infinite).
#[test]
fn batch_bilinear_matches_general_path() {
    use super::exec::execute_with;
    use Opcode as O;
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
    let targets = [T::Tex2D, T::Array2D, T::Rect];
    let mips = [MipFilter::None, MipFilter::Nearest, MipFilter::Linear];
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
        let layers = tex.layers;
        let levels = tex.levels.len() as u32;
        let mut samplers = Vec::new();
        for _ in 0..2 {
            let mut s = Sampler::default();
            for a in 0..3 {
                s.wrap[a] = wraps[rng.below(8) as usize];
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
            samplers.push(s);
        }
        let textures = vec![Some(tex)];
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
        let views = vec![view];
        let b = Bindings {
            textures: &textures,
            views: &views,
            samplers: &samplers,
            images: &[],
        };
        let norm = target != T::Rect;
        for _ in 0..150 {
            let mut c0 = [[0u32; LANES]; 4];
            let mut c1 = [[0u32; LANES]; 4];
            let mut offsets = [[0u32; LANES]; 4];
            for l in 0..LANES {
                c0[0][l] = rng.coord(w, norm).to_bits();
                c0[1][l] = rng.coord(h, norm).to_bits();
                c0[2][l] = (rng.below(layers as u64 + 2) as f32 - 1.0).to_bits();
                c0[3][l] = (rng.below(9) as f32 * 0.75 - 2.0).to_bits();
                c1[0][l] = (rng.below(13) as f32 * 0.5 - 2.0).to_bits();
                for a in 0..2 {
                    offsets[a][l] = (rng.below(17) as i32 - 8) as u32;
                }
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
            let r1 = execute_with(&b, &op, &inputs, &mut fast, true);
            let r2 = execute_with(&b, &op, &inputs, &mut general, false);
            assert_eq!(r1, r2);
            assert_eq!(
                fast, general,
                "{fmt} {target:?} {w}x{h}x{layers}, {levels} levels, {opcode:?} fragment {fragment}, samplers {samplers:?}, lanes {samp:?}, active {active:#x}, coords {c0:?}"
            );
            let s = &samplers[samp[0] as usize];
            if samp.iter().all(|&i| i == samp[0]) && s.mag == Filter::Linear {
                batched += 1;
            }
        }
    }
    // most instructions took the batch path
    assert!(batched > 120 * 150 / 2, "{batched}");
}

/// The batch path's UNORM8 decode (a reciprocal multiply corrected by two
/// FMAs) gives the bits of the decode table, `byte / 255` rounded once,
/// for every byte.
#[test]
fn unorm8_by_reciprocal_is_exact() {
    for b in 0..=255u8 {
        assert_eq!(
            super::bilinear::unorm8(b as f32).to_bits(),
            super::format::UNORM8[b as usize].to_bits(),
            "{b}"
        );
    }
}
