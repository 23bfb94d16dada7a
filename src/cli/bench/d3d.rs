//! `tgsi bench d3d`: a Direct3D workload beside the same work in TGSI.
//!
//! The Direct3D side is a corpus blob as fxc compiled it
//! (`benches/data/ThreadGroupSharedMem.o`: a cs_5_0 tree reduction of 128
//! floats per group through thread-group shared memory), decoded,
//! validated, lowered and run under Direct3D's numeric rules; the TGSI side
//! is the same reduction written by hand (`ThreadGroupSharedMem.tgsi`). Both
//! run over the same input; the group sums must be identical (checked with
//! one thread, where the order of the groups is fixed: the Direct3D
//! program writes each sum over an element another group reads).

use super::args::BenchArgs;
use anyhow::{Result, anyhow, bail};
use std::process::ExitCode;
use std::time::Instant;
use tgsi::exec::{Limits, Numerics, Program, Resources, Stats};
use tgsi::shader_test::d3d::{D3dShader, check_container};

const D3D_BLOB: &[u8] = include_bytes!("../../../benches/data/ThreadGroupSharedMem.o");
const TGSI_TWIN: &str = include_str!("../../../benches/data/ThreadGroupSharedMem.tgsi");
const GROUP: u32 = 128;

/// The input: element i is (i mod 1000) / 4, exact in float32 and in every
/// partial sum of a group.
fn input(n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| ((i % 1000) as f32 * 0.25).to_le_bytes())
        .collect()
}

struct Side {
    name: &'static str,
    program: Program,
    d3d: Option<D3dShader>,
}

impl Side {
    fn run(&self, res: &mut Resources, groups: u32, limits: &Limits) -> Result<Stats> {
        let go = |res: &mut Resources| {
            self.program
                .dispatch_stats(res, [groups, 1, 1], limits)
                .map_err(|e| anyhow!("{}: {e}", self.name))
        };
        match &self.d3d {
            Some(d) => d.bind(res, go),
            None => go(res),
        }
    }
}

fn sides() -> Result<[Side; 2]> {
    let checked = check_container(D3D_BLOB, "ThreadGroupSharedMem.o")
        .map_err(|e| anyhow!("bundled Direct3D shader: {e:?}"))?;
    let d3d = D3dShader::lower(checked).map_err(|e| anyhow!("bundled Direct3D shader: {e:?}"))?;
    let program = tgsi::jit::compile(&d3d.lowered.shader, Numerics::Direct3D)
        .map_err(|e| anyhow!("bundled Direct3D shader: {e}"))?;
    let (shader, _) = tgsi::assemble(TGSI_TWIN).map_err(|d| anyhow!("bundled TGSI shader: {d}"))?;
    let twin = tgsi::jit::compile(&shader, Numerics::Ieee)
        .map_err(|e| anyhow!("bundled TGSI shader: {e}"))?;
    Ok([
        Side {
            name: "Direct3D (fxc blob, lowered)",
            program,
            d3d: Some(d3d),
        },
        Side {
            name: "TGSI (hand-written twin)",
            program: twin,
            d3d: None,
        },
    ])
}

pub fn bench_d3d(args: &BenchArgs) -> Result<ExitCode> {
    if args.invocations == 0 || !args.invocations.is_multiple_of(GROUP) {
        bail!("--invocations must be a positive multiple of {GROUP} (the group size)");
    }
    if args.reps == 0 {
        bail!("--reps must be at least 1");
    }
    let n = args.invocations as usize;
    let groups = args.invocations / GROUP;
    let sides = sides()?;
    let fresh = || Resources {
        buffers: vec![input(n)],
        ..Resources::default()
    };
    // Same bits: one thread, so the groups run in order on both sides.
    let serial = Limits {
        max_instructions: u64::MAX,
        max_dispatch_instructions: u64::MAX,
        ..Limits::default()
    };
    let mut outs = Vec::new();
    for s in &sides {
        let mut res = fresh();
        s.run(&mut res, groups, &serial)?;
        outs.push(res.buffers.swap_remove(0));
    }
    if outs[0] != outs[1] {
        bail!("the Direct3D program and its TGSI twin disagree on the group sums");
    }
    println!(
        "workload d3d: {n} invocations ({groups} groups of {GROUP}), {} timed dispatches per thread count; the two programs' outputs are identical",
        args.reps
    );
    let mut medians = Vec::new();
    for &threads in &args.threads {
        let limits = Limits {
            threads: threads.max(1),
            ..serial.clone()
        };
        for s in &sides {
            let stats = s.run(&mut fresh(), groups, &limits)?;
            let mut times = Vec::with_capacity(args.reps);
            for _ in 0..args.reps {
                let mut res = fresh();
                let start = Instant::now();
                s.run(&mut res, groups, &limits)?;
                times.push(start.elapsed().as_secs_f64());
            }
            times.sort_by(f64::total_cmp);
            let med = times[times.len() / 2];
            println!(
                "{}, {threads} thread(s): best {:.4} s, median {med:.4} s = {:.3} M invocations/s; {} lane-instructions per dispatch",
                s.name,
                times[0],
                n as f64 / med / 1e6,
                stats.lane_instructions
            );
            medians.push((threads, med));
        }
    }
    for pair in medians.chunks(2) {
        if let [(threads, d3d), (_, twin)] = pair {
            println!(
                "{threads} thread(s): Direct3D runs at {:.2}x the speed of its TGSI twin",
                twin / d3d
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
