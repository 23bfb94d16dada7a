//! Tests of the texture engine. Expected values are derived by hand from
//! the rules in docs/textures.md; each test says how. This module holds
//! the shared helpers (register splats, small textures, the [`Rig`] that
//! runs one instruction); the tests are in its submodules by subject.

mod cube;
mod fast_paths;
mod fetch;
mod formats;
mod hostile;
mod images;
mod lod;
mod sampling;

use super::*;
use tgsi_ir::enums::TextureTarget as T;

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
            linear: None,
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

/// 2x2 texture r = [[0, 1], [2, 3]] (row 0 first).
fn quad2() -> Texture {
    tex_r(T::Tex2D, [2, 2, 1], 1, &[&[0.0, 1.0, 2.0, 3.0]])
}

/// 4x4 texture, levels of constant value 1, 2, 4.
fn mips() -> Texture {
    tex_r(T::Tex2D, [4, 4, 1], 1, &[&[1.0; 16], &[2.0; 4], &[4.0]])
}

/// A 2x2 cube whose face f is the constant 10 f.
fn cube() -> Texture {
    let faces: Vec<f32> = (0..6).flat_map(|f| [10.0 * f as f32; 4]).collect();
    tex_r(T::Cube, [2, 2, 1], 6, &[&faces])
}

/// A 1D image of `w` texels of `fmt`, all zero.
fn image(fmt: Format, w: u32) -> SharedImage {
    SharedImage::from_texture(&Texture::new(T::Tex1D, fmt, [w, 1, 1], 1, 1, 1).unwrap())
}

/// Every wrap mode.
const WRAPS: [Wrap; 8] = [
    Wrap::Repeat,
    Wrap::Clamp,
    Wrap::ClampToEdge,
    Wrap::ClampToBorder,
    Wrap::MirrorRepeat,
    Wrap::MirrorClamp,
    Wrap::MirrorClampToEdge,
    Wrap::MirrorClampToBorder,
];
