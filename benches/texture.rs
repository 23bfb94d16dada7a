//! Bilinear sampling throughput: one TEX instruction over 16-lane batches
//! of a 2D texture (256x256 RGBA8 UNORM, RGBA32F or RGBA8 sRGB, linear
//! min/mag, no mips, REPEAT), random coordinates in [-0.5, 1.5). Counted in
//! lane-samples. `bilinear_tex` goes through `tgsi::texture::execute` (what
//! the machine calls: the batched path); `per_lane_tex` through
//! `execute_per_lane`, every lane on the general path (`Bound::sample`),
//! which is how every lane was sampled before the batched path: the ratio
//! of the two medians is the batched path's speed-up.

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

fn texture(format: Format) -> Texture {
    let mut t =
        Texture::new(TextureTarget::Tex2D, format, [256, 256, 1], 1, 1, 1).expect("bench texture");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for b in t.levels[0].iter_mut() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *b = (state >> 24) as u8;
    }
    // RGBA32F: keep the floats finite (random bytes would give NaNs)
    if format == Format::Rgba32Float {
        for w in t.levels[0].chunks_exact_mut(4) {
            w[3] &= 0x3f;
        }
    }
    t
}

fn coords() -> Vec<Reg> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ((state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 0.5).to_bits()
    };
    (0..BATCHES)
        .map(|_| {
            let mut r = [[0u32; LANES]; 4];
            let [s, t, ..] = &mut r;
            for (s, t) in s.iter_mut().zip(t.iter_mut()) {
                *s = next();
                *t = next();
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
    run(bencher, format, execute);
}

#[divan::bench(args = FORMATS)]
fn per_lane_tex(bencher: Bencher, format: &str) {
    run(bencher, format, execute_per_lane);
}

fn run(bencher: Bencher, format: &str, entry: Entry) {
    let format = Format::from_short_name(format).expect("format");
    let textures = vec![Some(texture(format))];
    let views = vec![View::default()];
    let samplers = vec![Sampler {
        wrap: [Wrap::Repeat; 3],
        min: Filter::Linear,
        mag: Filter::Linear,
        mip: MipFilter::None,
        ..Sampler::default()
    }];
    let b = Bindings {
        textures: &textures,
        views: &views,
        samplers: &samplers,
        images: &[],
    };
    let op = TexOp {
        opcode: Opcode::TEX,
        target: TextureTarget::Tex2D,
        resource_swizzle: [0, 1, 2, 3],
        gather_component: 0,
        return_type: None,
        fragment: false,
    };
    let coords = coords();
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
