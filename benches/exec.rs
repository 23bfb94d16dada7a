//! Machine throughput on the fp64/int64/SSBO benchmark shader
//! (`benches/data/12_fp64_int64_ssbo.tgsi`, what Mesa makes of a GLSL
//! compute shader: a 64-iteration loop of double and 64-bit integer
//! arithmetic per invocation), counted in lane-instructions
//! (instructions executed × live lanes of the batch), on one thread and on
//! every core.

use divan::counter::ItemsCount;
use divan::{Bencher, black_box};
use tgsi::exec::{Limits, Program, Resources};

fn main() {
    divan::main();
}

const INVOCATIONS: usize = 1 << 16;

fn setup() -> (Program, Resources, [u32; 3]) {
    let text = include_str!("data/12_fp64_int64_ssbo.tgsi");
    let (shader, _) = tgsi::assemble(text).unwrap_or_else(|e| panic!("{e}"));
    let program =
        tgsi::jit::compile(&shader, tgsi::exec::Numerics::Ieee).unwrap_or_else(|e| panic!("{e}"));
    let buffer: Vec<u8> = (0..INVOCATIONS as u64)
        .flat_map(|i| (i as f64).to_bits().to_le_bytes())
        .collect();
    let res = Resources {
        constants: vec![vec![64, 0, 0, 0]],
        buffers: vec![buffer.clone(), buffer],
        ..Resources::default()
    };
    let groups = [(INVOCATIONS / 64) as u32, 1, 1];
    (program, res, groups)
}

#[divan::bench(args = [1, 0])]
fn fp64_int64_ssbo(bencher: Bencher, threads: usize) {
    let (program, res, groups) = setup();
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    };
    let limits = Limits {
        threads,
        ..Limits::default()
    };
    let lane_instructions = program
        .dispatch_stats(&mut res.clone(), groups, &limits)
        .expect("dispatch")
        .lane_instructions;
    bencher
        .counter(ItemsCount::new(lane_instructions))
        .with_inputs(|| res.clone())
        .bench_local_refs(|r| {
            program
                .dispatch(black_box(r), groups, &limits)
                .expect("dispatch")
        });
}
