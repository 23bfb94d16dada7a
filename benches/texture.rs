//! Bilinear sampling throughput: one TEX instruction over 16-lane batches
//! of a 2D texture (256x256 RGBA8 UNORM, RGBA32F or RGBA8 sRGB, linear
//! min/mag, no mips, REPEAT), random coordinates in [-0.5, 1.5). Counted in
//! lane-samples. `bilinear_tex` goes through `tgsi::texture::execute` (what
//! the machine calls: the batched path); `per_lane_tex` through
//! `execute_per_lane`, every lane on the general path (`Bound::sample`),
//! which is how every lane was sampled before the batched path: the ratio
//! of the two medians is the batched path's speed-up. `trilinear_tex` and
//! `trilinear_per_lane_tex`: the same with a full mip chain, mip LINEAR and
//! implicit LODs from 2x2 quads (fragment stage).

use divan::counter::ItemsCount;
use divan::{Bencher, black_box};
use tgsi::enums::TextureTarget;
use tgsi::opcode::Opcode;
use tgsi::texture::{
    Bindings, Filter, Format, LANES, MipFilter, Reg, Sampler, TexInputs, TexOp, Texture, View,
    Wrap, execute, execute_per_lane,
};

fn main() {
    divan::main();
}

/// Batches per measured iteration.
const BATCHES: usize = 256;

/// A 256x256 texture of random texels with `levels` levels.
fn texture(format: Format, levels: u32) -> Texture {
    let mut t = Texture::new(TextureTarget::Tex2D, format, [256, 256, 1], 1, levels, 1)
        .expect("bench texture");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for level in t.levels.iter_mut() {
        for b in level.iter_mut() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *b = (state >> 24) as u8;
        }
        // RGBA32F: keep the floats finite (random bytes would give NaNs)
        if format == Format::Rgba32Float {
            for w in level.chunks_exact_mut(4) {
                w[3] &= 0x3f;
            }
        }
    }
    t
}

/// Random coordinates in [-0.5, 1.5); with `quads`, each 2x2 quad of lanes
/// spans 1 to 8 texels from a random corner (implicit LODs 0 to 3).
fn coords(quads: bool) -> Vec<Reg> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 0.5
    };
    (0..BATCHES)
        .map(|_| {
            let mut r = [[0u32; LANES]; 4];
            for l in 0..LANES {
                if !quads {
                    r[0][l] = next().to_bits();
                    r[1][l] = next().to_bits();
                } else if l % 4 == 0 {
                    let (s, t) = (next(), next());
                    let step = (1.0 + (next() + 0.5) * 3.5) / 256.0;
                    for k in 0..4 {
                        r[0][l + k] = (s + (k & 1) as f32 * step).to_bits();
                        r[1][l + k] = (t + (k >> 1) as f32 * step).to_bits();
                    }
                }
            }
            r
        })
        .collect()
}

/// The texture entry point under test (`execute` or `execute_per_lane`).
type Entry = fn(&Bindings, &TexOp, &TexInputs, &mut Reg) -> Result<(), String>;

/// Formats measured (short names).
const FORMATS: [&str; 3] = ["rgba8", "rgba32f", "rgba8_srgb"];

#[divan::bench(args = FORMATS)]
fn bilinear_tex(bencher: Bencher, format: &str) {
    run(bencher, format, false, execute);
}

#[divan::bench(args = FORMATS)]
fn per_lane_tex(bencher: Bencher, format: &str) {
    run(bencher, format, false, execute_per_lane);
}

/// Fragment-stage TEX with mip LINEAR over a full chain: implicit LODs
/// from the quads, two levels blended.
#[divan::bench(args = FORMATS)]
fn trilinear_tex(bencher: Bencher, format: &str) {
    run(bencher, format, true, execute);
}

#[divan::bench(args = FORMATS)]
fn trilinear_per_lane_tex(bencher: Bencher, format: &str) {
    run(bencher, format, true, execute_per_lane);
}

fn run(bencher: Bencher, format: &str, mipmapped: bool, entry: Entry) {
    let format = Format::from_short_name(format).expect("format");
    let levels = if mipmapped { 9 } else { 1 };
    let textures = vec![Some(texture(format, levels))];
    let views = vec![View::default()];
    let samplers = vec![Sampler {
        wrap: [Wrap::Repeat; 3],
        min: Filter::Linear,
        mag: Filter::Linear,
        mip: if mipmapped {
            MipFilter::Linear
        } else {
            MipFilter::None
        },
        ..Sampler::default()
    }];
    let b = Bindings {
        textures: &textures,
        views: &views,
        samplers: &samplers,
        images: &[],
        linear: None,
    };
    let op = TexOp {
        opcode: Opcode::TEX,
        target: TextureTarget::Tex2D,
        resource_swizzle: [0, 1, 2, 3],
        gather_component: 0,
        return_type: None,
        fragment: mipmapped,
    };
    let coords = coords(mipmapped);
    let offsets = [[0u32; LANES]; 4];
    bencher
        .counter(ItemsCount::new(BATCHES * LANES))
        .bench_local(|| {
            let mut out = [[0u32; LANES]; 4];
            for c in &coords {
                let srcs = [*c];
                let inputs = TexInputs {
                    srcs: &srcs,
                    sview: &[0; LANES],
                    sampler: &[0; LANES],
                    offsets: &offsets,
                    active: 0xffff,
                };
                entry(&b, &op, black_box(&inputs), &mut out).expect("sample");
                black_box(&out);
            }
        });
}
