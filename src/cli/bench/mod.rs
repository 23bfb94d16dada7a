//! `tgsi bench`: throughput of the machine on the peer workloads, and the
//! same work on Mesa's peers measured in the same run.
//!
//! * `compute`: `12_fp64_int64_ssbo.tgsi` (doubles and 64-bit integers) over N
//!   invocations, the work of `peerbench compute N REPS ITERS`;
//! * `alu`: the sin/cos loop of `01_loop_sin_tex` as a compute shader, for the
//!   time per lane-instruction against Mesa's bare tgsi_exec (`tgsi_run --bench`);
//! * `frag`: `01_loop_sin_tex.tgsi` itself as a fragment shader over a
//!   SIZE x SIZE RGBA8 target (a full-target quad, GENERIC[0] = the pixel's
//!   (u, v)), sampling a 256x256 RGBA8 texture bilinearly with REPEAT, the
//!   work of `peerbench frag SIZE FRAMES ITERS`; fragments per second. With
//!   `--peer` the image is also compared with llvmpipe's readback;
//! * `d3d`: a Direct3D compute shader beside its TGSI twin, see
//!   [`d3d`];
//! * `ulp` and `math`: the accuracy (exhaustive) and the speed of the
//!   transcendental kernels, see [`math`];
//! * `mesh`: the torus scene of `examples/scene/` drawn through the
//!   pipeline, see [`mesh`] (its llvmpipe peer is `meshbench`
//!   from `peers/mesa-gl/build.sh`, or a program named by `TGSI_PEER_MESH`).
//!
//! With `--peer`, Mesa's machines run the same work and the ratios are
//! printed: the programs that `peers/mesa-tgsi/build.sh` and
//! `peers/mesa-gl/build.sh` build into `peers/build/` of the repository (or
//! into `$TGSI_PEER_DIR`), see `peers/README.md`.

mod args;
mod d3d;
mod mad;
mod math;
mod mesh;
mod mesh_peer;
mod peers;
mod translate;
mod vulkan;

use anyhow::{Context, Result, anyhow, bail};
pub use args::{BenchArgs, Workload};
use peers::peer_program;
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::Instant;
use tgsi::enums::TextureTarget;
use tgsi::exec::{Draw, Limits, Program, Resources, Stats};
use tgsi::jit::Engine;
use tgsi::texture::{Filter, Format, MipFilter, Sampler, Texture, Wrap};

const FP64_SHADER: &str = include_str!("../../../benches/data/12_fp64_int64_ssbo.tgsi");
const ALU_SHADER: &str = include_str!("../../../benches/data/alu_loop.tgsi");
const FRAG_SHADER: &str = include_str!("../../../benches/data/01_loop_sin_tex.tgsi");
const MAD_SHADER: &str = include_str!("../../../benches/data/mad_chain.tgsi");

fn resources(workload: Workload, n: usize, iters: u32) -> Resources {
    let mut res = Resources {
        constants: vec![vec![iters, 0, 0, 0]],
        ..Resources::default()
    };
    match workload {
        Workload::Compute => {
            let d: Vec<u8> = (0..n)
                .flat_map(|i| (i as f64 * 0.001).to_le_bytes())
                .collect();
            let u: Vec<u8> = (0..n)
                .flat_map(|i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15).to_le_bytes())
                .collect();
            res.buffers = vec![d, u];
        }
        _ => res.buffers = vec![vec![0; 8 * n]],
    }
    res
}

/// `tgsi bench compile`: `Program::compile` time of every corpus shader,
/// pre-decoding only (interp) and pre-decoding plus machine code (jit).
fn bench_compile(reps: usize) -> Result<ExitCode> {
    use tgsi::exec::Numerics;
    use tgsi::jit::Engine;
    let dirs = [
        "tests/fixtures/mesa_exec/corpus",
        "tests/fixtures/mesa_exec/ops",
        "examples",
        "benches/data",
    ];
    let mut files: Vec<PathBuf> = Vec::new();
    for d in dirs {
        if let Ok(rd) = std::fs::read_dir(d) {
            files.extend(
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "tgsi")),
            );
        }
    }
    files.sort();
    if files.is_empty() {
        bail!("no corpus shader found (run from the repository root)");
    }
    let time = |shader: &tgsi::ir::Shader, engine: Engine| -> Option<(f64, Program)> {
        let mut t = Vec::with_capacity(reps);
        let mut last = None;
        for _ in 0..reps {
            let start = Instant::now();
            let p = tgsi::jit::compile_engine(shader, Numerics::Ieee, engine).ok()?;
            t.push(start.elapsed().as_secs_f64() * 1e3);
            last = Some(p);
        }
        Some((median(&mut t), last?))
    };
    let (mut interp_ms, mut jit_ms) = (Vec::new(), Vec::new());
    let mut worst = (0.0f64, String::new());
    // over the compiled programs: inline and called instructions, the
    // called ones by opcode
    let (mut inline, mut called, mut sampled) = (0usize, 0usize, 0usize);
    let mut by_opcode: std::collections::BTreeMap<&str, usize> = Default::default();
    println!(
        "shader: interp (decode) ms, jit (decode + machine code) ms, what the jit does; median of {reps}"
    );
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let Ok((shader, _)) = tgsi::assemble(&text) else {
            continue;
        };
        let (Some((ti, _)), Some((tj, p))) =
            (time(&shader, Engine::Interp), time(&shader, Engine::Jit))
        else {
            println!("{}: not runnable by the machine", f.display());
            continue;
        };
        if let Some(c) = p.compiled() {
            (inline, called) = (inline + c.inlined, called + c.called);
            for i in tgsi::jit::handler_calls(&p) {
                *by_opcode.entry(p.code().insts[i].op.name()).or_default() += 1;
            }
            sampled += tgsi::jit::inline_samples(&p).len();
        }
        let what = match (p.compiled(), p.fallback_reason()) {
            (Some(c), _) => format!(
                "{} instructions inline, {} through the interpreter's handlers, {} bytes",
                c.inlined, c.called, c.code_bytes
            ),
            (None, Some(why)) => format!("interpreter: {why}"),
            (None, None) => "interpreter".to_string(),
        };
        println!("{}: {ti:.3} ms, {tj:.3} ms, {what}", f.display());
        if tj > worst.0 {
            worst = (tj, f.display().to_string());
        }
        interp_ms.push(ti);
        jit_ms.push(tj);
    }
    let n = jit_ms.len();
    println!(
        "{n} shaders: interp median {:.3} ms; jit median {:.3} ms, worst {:.3} ms ({})",
        median(&mut interp_ms),
        median(&mut jit_ms),
        worst.0,
        worst.1
    );
    if inline + called > 0 {
        let list: Vec<String> = by_opcode
            .iter()
            .map(|(op, n)| format!("{op} {n}"))
            .collect();
        println!(
            "compiled programs: {inline} instructions inline, {called} through the interpreter's handlers ({:.1} % inline); handler calls by opcode: {}",
            100.0 * inline as f64 / (inline + called) as f64,
            list.join(", ")
        );
        println!(
            "of the inline ones, {sampled} texture instructions sample in the compiled code where their view and batch allow (2D and 2D array views of RGBA8 or RGBA32F, or of another filterable format through a draw's decoded copy; LINEAR or NEAREST filters; a batch whose lanes read one level or two), by the handler otherwise"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Says which engine runs the bundled shader (and why not the compiled one).
fn print_engine(program: &Program) {
    match program.fallback_reason() {
        Some(why) => println!("engine: {} ({why})", Engine::of(program).name()),
        None => match program.compiled() {
            Some(c) => println!("engine: {} ({c})", Engine::of(program).name()),
            None => println!("engine: {}", Engine::of(program).name()),
        },
    }
}

/// Checks the compute workload against a scalar model of the same loop.
fn verify_compute(res: &Resources, n: usize, iters: u32) -> Result<()> {
    let mut bad = 0usize;
    for i in 0..n {
        let mut x = i as f64 * 0.001;
        let mut h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for _ in 0..iters {
            x = x * 1.0000001 + 0.5 / (x + 1.0);
            h = h
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            h ^= h >> 33;
        }
        let got_x = f64::from_le_bytes(res.buffers[0][8 * i..8 * i + 8].try_into()?);
        let got_h = u64::from_le_bytes(res.buffers[1][8 * i..8 * i + 8].try_into()?);
        if got_x.to_bits() != x.to_bits() || got_h != h {
            bad += 1;
        }
    }
    if bad > 0 {
        bail!("verification failed: {bad} of {n} invocations differ from the scalar model");
    }
    println!("verified: all {n} invocations bit-identical to the scalar model (doubles and u64)");
    Ok(())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

struct Measured {
    threads: usize,
    median: f64,
    stats: Stats,
}

pub fn bench(args: &BenchArgs) -> Result<ExitCode> {
    if args.vulkan && !matches!(args.workload, Workload::Compute | Workload::Frag) {
        bail!("--vulkan runs the compute and frag workloads");
    }
    let source = match args.workload {
        Workload::Compute => FP64_SHADER,
        Workload::Alu => ALU_SHADER,
        Workload::Mad => MAD_SHADER,
        Workload::Frag => return bench_frag(args),
        Workload::Ulp => {
            let threads = args.threads.iter().copied().max().unwrap_or(1);
            return math::ulp(args.func, threads, args.pow_samples);
        }
        Workload::Math => return math::speed(args.func, args.reps),
        Workload::D3d => return d3d::bench_d3d(args),
        Workload::Mesh => return mesh::bench_mesh(args),
        Workload::Compile => return bench_compile(args.reps.max(1)),
        Workload::Translate => return translate::bench_translate(args.reps.max(1)),
    };
    let (shader, _) = tgsi::assemble(source).map_err(|d| anyhow!("bundled shader: {d}"))?;
    let program = tgsi::jit::compile(&shader, tgsi::exec::Numerics::Ieee)
        .map_err(|e| anyhow!("bundled shader: {e}"))?;
    if args.invocations == 0 || !args.invocations.is_multiple_of(64) {
        bail!("--invocations must be a positive multiple of 64 (the block size)");
    }
    if args.reps == 0 {
        bail!("--reps must be at least 1");
    }
    let n = args.invocations as usize;
    let groups = [args.invocations / 64, 1, 1];
    let mut machine_result = None;
    println!(
        "workload {:?}: {n} invocations, {} iterations, {} timed dispatches per thread count",
        args.workload, args.iters, args.reps
    );
    print_engine(&program);
    let mut results = Vec::new();
    for &threads in &args.threads {
        let limits = Limits {
            threads: threads.max(1),
            max_instructions: u64::MAX,
            max_dispatch_instructions: u64::MAX,
            ..Limits::default()
        };
        let mut res = resources(args.workload, n, args.iters);
        let stats = program
            .dispatch_stats(&mut res, groups, &limits)
            .map_err(|e| anyhow!("{e}"))?;
        if args.workload == Workload::Compute && threads == args.threads[0] {
            verify_compute(&res, n, args.iters)?;
            machine_result = Some(res);
        }
        let mut times = Vec::with_capacity(args.reps);
        for _ in 0..args.reps {
            let mut res = resources(args.workload, n, args.iters);
            let start = Instant::now();
            program
                .dispatch_stats(&mut res, groups, &limits)
                .map_err(|e| anyhow!("{e}"))?;
            times.push(start.elapsed().as_secs_f64());
        }
        let best = times.iter().copied().fold(f64::INFINITY, f64::min);
        let med = median(&mut times);
        let per_lane = med * 1e9 * threads.max(1) as f64 / stats.lane_instructions as f64;
        println!(
            "tgsi, {threads} thread(s): best {best:.4} s, median {med:.4} s = {:.4} M invocations/s (median); {} lane-instructions per dispatch, {per_lane:.3} ns per lane-instruction per thread",
            n as f64 / med / 1e6,
            stats.lane_instructions
        );
        if args.workload == Workload::Mad {
            let mads = n as f64 * args.iters as f64 * mad::MADS_PER_ITERATION as f64;
            println!(
                "  {:.3} G lane-MAD/s = {:.2} G per thread",
                mads / med / 1e9,
                mads / med / 1e9 / threads.max(1) as f64
            );
        }
        results.push(Measured {
            threads,
            median: med,
            stats,
        });
    }
    if args.workload == Workload::Mad {
        let peak = mad::fma_peak();
        let single = results.iter().find(|m| m.threads == 1).or(results.first());
        if let Some(m) = single {
            let mads = n as f64 * args.iters as f64 * mad::MADS_PER_ITERATION as f64;
            let rate = mads / m.median / m.threads.max(1) as f64;
            println!(
                "host FMA peak, 1 thread (8 x 16 independent f32 mul_add chains): {:.2} G lane-FMA/s; the shader's MADs reach {:.1}% of it per thread",
                peak / 1e9,
                100.0 * rate / peak
            );
        }
    }
    if args.peer {
        run_peers(args, &results)?;
    }
    if let (true, Some(machine)) = (args.vulkan, &machine_result) {
        let ours: Vec<(usize, f64)> = results.iter().map(|m| (m.threads, m.median)).collect();
        let fresh = || resources(args.workload, n, args.iters);
        vulkan::compute(&shader, groups, args.reps, fresh, machine, &ours)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Mesa's bare tgsi_exec on one quad of the same shader: ns per quad-run.
fn tgsi_exec_ns_per_quad(source: &str, workload: Workload, iters: u32, runs: u64) -> Result<f64> {
    let exe = peer_program("tgsi_run", "peers/mesa-tgsi/build.sh")?;
    let dir = std::env::temp_dir().join(format!("tgsi-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let shader = dir.join("shader.tgsi");
    std::fs::write(&shader, source)?;
    let mut spec = String::new();
    for lane in 0..4 {
        spec += &format!("SVN THREAD_ID lane {lane} {lane}u 0u 0u 0u\n");
    }
    spec += &format!("SVN BLOCK_ID 0u 0u 0u 0u\nCONST[0][0] {iters}i 0 0 0\n");
    match workload {
        Workload::Compute => {
            spec += "BUF[0] 32\nBUF[1] 32\nBUFW[0] 0";
            for i in 0..4 {
                let b = (i as f64 * 0.001).to_bits();
                spec += &format!(" 0x{:x} 0x{:x}", b as u32, b >> 32);
            }
            spec += "\nBUFW[1] 0";
            for i in 0..4u64 {
                let b = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                spec += &format!(" 0x{:x} 0x{:x}", b as u32, b >> 32);
            }
            spec += "\n";
        }
        _ => spec += "BUF[0] 32\n",
    }
    let spec_path = dir.join("spec.txt");
    std::fs::write(&spec_path, spec)?;
    let out = Command::new(&exe)
        .arg(&shader)
        .arg(&spec_path)
        .arg("--bench")
        .arg(runs.to_string())
        .output()
        .context("running tgsi_run")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("BENCH"))
        .ok_or_else(|| anyhow!("tgsi_run printed no BENCH line: {text}"))?;
    let ns: f64 = line
        .split("= ")
        .nth(1)
        .and_then(|s| s.split(" ns").next())
        .and_then(|s| s.trim().parse().ok())
        .ok_or_else(|| anyhow!("cannot read tgsi_run's BENCH line: {line}"))?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(ns)
}

/// One `peerbench compute N REPS ITERS` (or `frag SIZE FRAMES ITERS`) run:
/// best and median work items (invocations, fragments) per second.
fn peerbench(
    driver: &str,
    threads: Option<usize>,
    verb: &str,
    n: u32,
    reps: usize,
    iters: u32,
    dump: Option<&std::path::Path>,
) -> Result<(f64, f64)> {
    let exe = peer_program("peerbench", "peers/mesa-gl/build.sh")?;
    let mut cmd = Command::new(&exe);
    cmd.args([verb, &n.to_string(), &reps.to_string(), &iters.to_string()]);
    cmd.env("LIBGL_ALWAYS_SOFTWARE", "1")
        .env("GALLIUM_DRIVER", driver);
    if let Some(t) = threads {
        cmd.env("LP_NUM_THREADS", t.to_string());
    }
    if let Some(d) = dump {
        cmd.env("PEERBENCH_DUMP", d);
    }
    let out = cmd.output().context("running peerbench")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("throughput"))
        .ok_or_else(|| {
            anyhow!(
                "peerbench ({driver}) printed no throughput line: {text}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        })?;
    let nums: Vec<f64> = line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    match nums[..] {
        [best, med, ..] => Ok((best, med)),
        _ => bail!("cannot read peerbench's line: {line}"),
    }
}

fn run_peers(args: &BenchArgs, ours: &[Measured]) -> Result<()> {
    let Some(first) = ours.first() else {
        return Ok(());
    };
    let single = ours.iter().find(|m| m.threads == 1).unwrap_or(first);
    let ours_ns =
        single.median * 1e9 * single.threads as f64 / single.stats.lane_instructions as f64;
    let per_invocation = single.stats.lane_instructions as f64 / single.stats.invocations as f64;
    let source = match args.workload {
        Workload::Compute => FP64_SHADER,
        _ => ALU_SHADER,
    };
    let runs = (2e8 / (per_invocation * 4.0 * 8.0)).clamp(100.0, 1e6) as u64;
    match tgsi_exec_ns_per_quad(source, args.workload, args.iters, runs) {
        Ok(ns) => {
            let mesa = ns / (per_invocation * 4.0);
            println!(
                "Mesa tgsi_exec (tgsi_run --bench {runs}): {ns:.1} ns per quad-run = {mesa:.3} ns per lane-instruction ({per_invocation:.0} instructions per invocation); tgsi is {:.1}x faster per lane on one thread",
                mesa / ours_ns
            );
        }
        Err(e) => println!("Mesa tgsi_exec: skipped: {e:#}"),
    }
    if args.workload != Workload::Compute {
        return Ok(());
    }
    let peers: [(&str, &str, Option<usize>, usize); 3] = [
        ("softpipe", "softpipe", None, 1),
        ("llvmpipe, 1 thread", "llvmpipe", Some(1), args.reps),
        ("llvmpipe, 2 threads", "llvmpipe", Some(2), args.reps),
    ];
    for (label, driver, threads, reps) in peers {
        match peerbench(
            driver,
            threads,
            "compute",
            args.invocations,
            reps,
            args.iters,
            None,
        ) {
            Ok((best, med)) => {
                let ratios: Vec<String> = ours
                    .iter()
                    .map(|m| {
                        format!(
                            "tgsi {}T / {label} = {:.2}",
                            m.threads,
                            (args.invocations as f64 / m.median) / med
                        )
                    })
                    .collect();
                println!(
                    "{label}: best {:.4} M inv/s, median {:.4} M inv/s; {}",
                    best / 1e6,
                    med / 1e6,
                    ratios.join(", ")
                );
            }
            Err(e) => println!("{label}: skipped: {e:#}"),
        }
    }
    Ok(())
}

/// The texture of `peerbench frag`: 256x256 RGBA8 UNORM, texel i = x + 256 y
/// is (i & 255, (i >> 8) & 255, (7 i) & 255, 255); one level.
fn frag_texture() -> Result<Texture> {
    let format = Format::from_short_name("rgba8").ok_or_else(|| anyhow!("no rgba8 format"))?;
    let mut tex = Texture::new(TextureTarget::Tex2D, format, [256, 256, 1], 1, 1, 1)
        .map_err(|e| anyhow!("bench texture: {e}"))?;
    let level = tex
        .levels
        .first_mut()
        .ok_or_else(|| anyhow!("bench texture has no level"))?;
    for (i, texel) in level.chunks_exact_mut(4).enumerate() {
        texel.copy_from_slice(&[
            (i & 255) as u8,
            ((i >> 8) & 255) as u8,
            ((7 * i) & 255) as u8,
            255,
        ]);
    }
    Ok(tex)
}

/// The resources of the frag workload: the texture behind SVIEW[0]/SAMP[0],
/// a bilinear REPEAT sampler without mips, CONST[0][0].x = ITERS (integer).
fn frag_resources(iters: u32) -> Result<Resources> {
    Ok(Resources {
        constants: vec![vec![iters, 0, 0, 0]],
        textures: vec![Some(frag_texture()?)],
        samplers: vec![Sampler {
            wrap: [Wrap::Repeat; 3],
            min: Filter::Linear,
            mag: Filter::Linear,
            mip: MipFilter::None,
            ..Sampler::default()
        }],
        ..Resources::default()
    })
}

/// A 64-bit FNV-1a hash of the target's bytes: the same for every thread count.
fn checksum(t: &Texture) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for level in &t.levels {
        for &b in level {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn bench_frag(args: &BenchArgs) -> Result<ExitCode> {
    let (shader, _) = tgsi::assemble(FRAG_SHADER).map_err(|d| anyhow!("bundled shader: {d}"))?;
    let program = tgsi::jit::compile(&shader, tgsi::exec::Numerics::Ieee)
        .map_err(|e| anyhow!("bundled shader: {e}"))?;
    print_engine(&program);
    if args.size == 0 || args.size > 8192 {
        bail!("--size must be 1 to 8192 pixels");
    }
    if args.reps == 0 {
        bail!("--reps must be at least 1");
    }
    let size = args.size;
    let frags = f64::from(size) * f64::from(size);
    let format = Format::from_short_name("rgba8").ok_or_else(|| anyhow!("no rgba8 format"))?;
    let new_target = || {
        Texture::new(TextureTarget::Tex2D, format, [size, size, 1], 1, 1, 1)
            .map_err(|e| anyhow!("render target: {e}"))
    };
    let draw = Draw::full_quad(size, size);
    println!(
        "workload Frag: {size}x{size} RGBA8 target, {} iterations, 256x256 RGBA8 texture (bilinear, repeat), {} timed frames per thread count",
        args.iters, args.reps
    );
    let mut results: Vec<(usize, f64)> = Vec::new();
    let mut seconds: Vec<(usize, f64)> = Vec::new();
    let mut first_sum: Option<(usize, u64)> = None;
    let mut image: Option<Vec<u8>> = None;
    for &threads in &args.threads {
        let limits = Limits {
            threads: threads.max(1),
            max_instructions: u64::MAX,
            max_dispatch_instructions: u64::MAX,
            max_draw_instructions: u64::MAX,
            ..Limits::default()
        };
        let mut res = frag_resources(args.iters)?;
        let mut targets = vec![new_target()?];
        let stats = program
            .draw(&mut res, &draw, &mut targets, &limits)
            .map_err(|e| anyhow!("{e}"))?;
        let sum = checksum(&targets[0]);
        if image.is_none() {
            image = targets[0].levels.first().cloned();
        }
        match first_sum {
            None => first_sum = Some((threads, sum)),
            Some((t0, s0)) if s0 != sum => bail!(
                "the image differs between {t0} and {threads} thread(s) (checksums {s0:016x} and {sum:016x})"
            ),
            Some(_) => {}
        }
        let mut times = Vec::with_capacity(args.reps);
        for _ in 0..args.reps {
            let start = Instant::now();
            program
                .draw(&mut res, &draw, &mut targets, &limits)
                .map_err(|e| anyhow!("{e}"))?;
            times.push(start.elapsed().as_secs_f64());
        }
        let best = times.iter().copied().fold(f64::INFINITY, f64::min);
        let med = median(&mut times);
        let per_lane = med * 1e9 * threads.max(1) as f64 / stats.lane_instructions.max(1) as f64;
        println!(
            "tgsi, {threads} thread(s): best {best:.4} s, median {med:.4} s per frame = {:.4} M fragments/s (median); {} lane-instructions per frame, {per_lane:.3} ns per lane-instruction per thread; image checksum {sum:016x}",
            frags / med / 1e6,
            stats.lane_instructions
        );
        results.push((threads, frags / med));
        seconds.push((threads, med));
    }
    if let (true, Some(ours)) = (args.vulkan, &image) {
        let mut res = frag_resources(args.iters)?;
        vulkan::frag(
            &shader,
            &draw,
            args.reps,
            &mut res,
            new_target()?,
            ours,
            &seconds,
        )?;
    }
    if args.peer {
        // softpipe takes seconds per frame: a few frames give a steady median.
        let peers: [(&str, &str, Option<usize>, usize); 3] = [
            ("softpipe", "softpipe", None, 3),
            ("llvmpipe, 1 thread", "llvmpipe", Some(1), 20),
            ("llvmpipe, 2 threads", "llvmpipe", Some(2), 20),
        ];
        let dump_path =
            std::env::temp_dir().join(format!("tgsi-bench-frag-{}.rgba", std::process::id()));
        for (label, driver, threads, frames) in peers {
            let dump = (driver == "llvmpipe" && threads == Some(1)).then_some(dump_path.as_path());
            match peerbench(driver, threads, "frag", size, frames, args.iters, dump) {
                Ok((best, med)) => {
                    let ratios: Vec<String> = results
                        .iter()
                        .map(|(t, ours)| format!("tgsi {t}T / {label} = {:.3}", ours / med))
                        .collect();
                    println!(
                        "{label} (peerbench frag {size} {frames} {}): best {:.4} M fragments/s, median {:.4} M fragments/s; {}",
                        args.iters,
                        best / 1e6,
                        med / 1e6,
                        ratios.join(", ")
                    );
                }
                Err(e) => println!("{label}: skipped: {e:#}"),
            }
        }
        if let (Ok(theirs), Some(ours)) = (std::fs::read(&dump_path), &image) {
            println!("{}", agreement(ours, &theirs, "llvmpipe (1 thread)"));
        }
        let _ = std::fs::remove_file(&dump_path);
    }
    Ok(ExitCode::SUCCESS)
}

/// How close the RGBA8 image is to llvmpipe's readback of the same frame
/// (`PEERBENCH_DUMP`: rows in memory order, which is the same order here:
/// row 0 holds the smallest v in both).
fn agreement(ours: &[u8], theirs: &[u8], peer: &str) -> String {
    if ours.len() != theirs.len() {
        return format!(
            "image vs {peer}: sizes differ ({} and {} bytes)",
            ours.len(),
            theirs.len()
        );
    }
    let mut close = 0usize;
    let mut max = 0u8;
    let mut sum = 0u64;
    for (a, b) in ours.iter().zip(theirs) {
        let d = a.abs_diff(*b);
        close += usize::from(d <= 1);
        max = max.max(d);
        sum += u64::from(d);
    }
    let n = ours.len().max(1);
    format!(
        "image vs {peer}: {:.4}% of channels within 1/255, mean difference {:.4}/255, largest {max}/255 (SIN/COS differ in the last bits, the loop amplifies that, and FRC turns 0.9999 against 1.0001 into 255 against 0)",
        100.0 * close as f64 / n as f64,
        sum as f64 / n as f64
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_agreement_counts_channels() {
        // Differences 1, 0, 255, 0: three of four within 1/255, mean 64.
        let text = agreement(&[0, 10, 255, 7], &[1, 10, 0, 7], "llvmpipe");
        assert!(text.contains("75.0000% of channels"), "{text}");
        assert!(
            text.contains("mean difference 64.0000/255, largest 255/255"),
            "{text}"
        );
        assert!(agreement(&[0], &[0, 0], "llvmpipe").contains("sizes differ"));
    }

    #[test]
    fn frag_workload_matches_peerbench() {
        let res = frag_resources(64).unwrap();
        assert_eq!(res.constants, vec![vec![64, 0, 0, 0]]);
        let tex = res.textures[0].as_ref().unwrap();
        assert_eq!((tex.width, tex.height, tex.levels.len()), (256, 256, 1));
        // Texel (3, 2): i = 3 + 256 * 2 = 515 -> (3, 2, 7 * 515 mod 256 = 21, 255).
        let o = 515 * 4;
        assert_eq!(&tex.levels[0][o..o + 4], &[3, 2, 21, 255]);
        // Texel (255, 255): i = 65535 -> (255, 255, 458745 mod 256 = 249, 255).
        let o = 65535 * 4;
        assert_eq!(&tex.levels[0][o..o + 4], &[255, 255, 249, 255]);
        let s = res.samplers[0];
        assert_eq!(s.wrap[..2], [Wrap::Repeat, Wrap::Repeat]);
        assert_eq!(
            (s.min, s.mag, s.mip),
            (Filter::Linear, Filter::Linear, MipFilter::None)
        );
        // The bundled shader is the corpus one and declares what the workload binds.
        let (shader, _) = tgsi::assemble(FRAG_SHADER).unwrap();
        assert_eq!(shader.processor, tgsi::enums::Processor::Fragment);
    }
}
