//! `tgsi bench mesh`: the torus scene of `examples/scene/` (its shaders,
//! matrices, lights and sRGB mipmapped checker texture) drawn through the
//! pipeline into a W×(3W/4) sRGB target with a d32f depth target, back
//! faces culled: the bundled torus (64×32 segments, 4096 triangles) and a
//! dense one made here (256×128 segments, 65536 triangles). Frames per
//! second, triangles per second and fragment-shader lanes per second for
//! each thread count; the image must be the same bits for every count.
//!
//! The peer: with `--peer` the llvmpipe figure comes from `meshbench` in
//! the peer folder (`peers/build/` of the repository or `$TGSI_PEER_DIR`,
//! see [`super::peers::peer_dir`]; `peers/mesa-gl/build.sh` builds it), or
//! from the program `TGSI_PEER_MESH` names instead. Either takes
//! `--mesh FILE.obj --texture FILE.png --size WxH --frames N --out FILE.png
//! --const N=float:...` (the constant buffers of the scene), draws the same
//! scene with GLSL twins of the shaders and prints a line with
//! `median SECONDS s per frame`. It runs with `LP_NUM_THREADS` 1 and 2,
//! and its picture is compared with ours pixel by pixel.

use super::args::BenchArgs;
use crate::cli::render_mesh::{
    MeshStats, StageShader, clear_target, draw_mesh, mesh_input, mesh_state, new_target,
};
use anyhow::{Context, Result, anyhow, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;
use tgsi::exec::{Limits, Resources};
use tgsi::image_io::{Rgba8Image, decode_png, load_png, texture_from_image};
use tgsi::mesh_io::{Mesh, parse_obj};
use tgsi::pipeline::{CullMode, DepthFormat, DepthTarget, FrontFace, RenderState};
use tgsi::texture::{Filter, Format, MipFilter, Sampler, Texture, Wrap};

const VERTEX_SHADER: &str = include_str!("../../../examples/scene/torus_vs.tgsi");
const FRAGMENT_SHADER: &str = include_str!("../../../examples/scene/torus_fs.tgsi");
const TORUS_OBJ: &str = include_str!("../../../examples/meshes/torus.obj");
const CHECKER_PNG: &[u8] = include_bytes!("../../../examples/textures/checker.png");

/// The constant buffers of `examples/scene/README.md` (`--const` syntax).
const SCENE_CONSTANTS: [&str; 4] = [
    "0=float:0.81721,0.149774,-0.556539,0,-0.331861,0.91178,-0.241922,0,0.471207,0.382394,0.79482,0,0,0,0,1",
    "1=float:1,0,0,0,0,0.873689,-0.486486,0.043684,0,0.486486,0.873689,-5.011795,0,0,0,1",
    "2=float:2.178158,0,0,0,0,2.904211,0,0,0,0,-1.111111,-1.111111,0,0,-1,0",
    "3=float:-0.428353,0.771035,0.471188,0,0,2.4,4.4,1,1,0.92,0.8,48,0.05,0.055,0.07,0,0.8,0.78,0.7,0,0.784465,-0.196116,-0.588348,0,0.12,0.2,0.4,0,0.35,0.45,0.7,3",
];

/// The scene's clear colour (linear).
const CLEAR: [f32; 4] = [0.02, 0.025, 0.035, 1.0];

/// The environment variable naming the llvmpipe mesh program.
pub const PEER_ENV: &str = "TGSI_PEER_MESH";

/// A torus around the y axis (major radius 1, minor 0.4) of `n` × `m`
/// quads as OBJ text, laid out as `examples/meshes/make_torus.py` writes
/// it (positions, texture coordinates and normals per grid point, the seam
/// duplicated, faces counter-clockwise seen from outside). Numbers are
/// printed so that they read back as the same f32 in any correct parser.
pub fn torus_obj(n: u32, m: u32) -> String {
    use std::f64::consts::TAU;
    use std::fmt::Write;
    let (big, small) = (1.0f64, 0.4f64);
    let mut s = format!("# torus: major radius 1, minor radius 0.4, {n} x {m} segments\n");
    for i in 0..=n {
        let a = TAU * f64::from(i) / f64::from(n);
        for j in 0..=m {
            let b = TAU * f64::from(j) / f64::from(m);
            let ring = big + small * b.cos();
            let f = |v: f64| v as f32;
            let _ = writeln!(
                s,
                "v {:?} {:?} {:?}\nvt {:?} {:?}\nvn {:?} {:?} {:?}",
                f(ring * a.cos()),
                f(small * b.sin()),
                f(ring * a.sin()),
                f(f64::from(i) / f64::from(n)),
                f(f64::from(j) / f64::from(m)),
                f(b.cos() * a.cos()),
                f(b.sin()),
                f(b.cos() * a.sin())
            );
        }
    }
    let k = |i: u32, j: u32| i * (m + 1) + j + 1;
    for i in 0..n {
        for j in 0..m {
            let (a, b, c, d) = (k(i, j), k(i + 1, j), k(i + 1, j + 1), k(i, j + 1));
            let _ = writeln!(s, "f {a}/{a}/{a} {d}/{d}/{d} {c}/{c}/{c} {b}/{b}/{b}");
        }
    }
    s
}

fn compile(name: &str, text: &str) -> Result<StageShader> {
    let (shader, _) = tgsi::assemble(text).map_err(|d| anyhow!("bundled {name}: {d}"))?;
    let program = tgsi::jit::compile(&shader, tgsi::exec::Numerics::Ieee)
        .map_err(|e| anyhow!("bundled {name}: {e}"))?;
    Ok(StageShader {
        name: name.into(),
        program,
        d3d: None,
    })
}

/// The scene's resources: constants, the sRGB mipmapped checker texture and
/// a trilinear repeating sampler.
fn scene_resources() -> Result<Resources> {
    let mut res = Resources::default();
    for spec in SCENE_CONSTANTS {
        let (i, words) = crate::cli::run::parse_typed(spec, "scene constant")?;
        if res.constants.len() <= i {
            res.constants.resize(i + 1, Vec::new());
        }
        res.constants[i] = words;
    }
    let img = decode_png(CHECKER_PNG).map_err(|e| anyhow!("bundled checker.png: {e}"))?;
    let tex = texture_from_image(&img, true, true).map_err(|e| anyhow!("checker texture: {e}"))?;
    res.textures = vec![Some(tex)];
    res.samplers = vec![Sampler {
        wrap: [Wrap::Repeat; 3],
        min: Filter::Linear,
        mag: Filter::Linear,
        mip: MipFilter::Linear,
        ..Sampler::default()
    }];
    Ok(res)
}

/// One mesh of the benchmark.
struct Workload {
    label: String,
    obj: String,
    mesh: Mesh,
}

/// The shaders and state of a frame.
struct Frame<'a> {
    vs: &'a StageShader,
    fs: &'a StageShader,
    state: RenderState,
}

impl Frame<'_> {
    /// Clears the targets and draws: `target`'s bytes are then the PNG's
    /// RGBA (sRGB-encoded).
    fn draw(
        &self,
        w: &Workload,
        input: &tgsi::pipeline::VertexInput,
        res: &mut Resources,
        target: &mut Texture,
        depth: &mut DepthTarget,
        limits: &Limits,
    ) -> Result<MeshStats> {
        clear_target(target, CLEAR);
        depth.clear(1.0, Some(0));
        draw_mesh(
            self.vs,
            self.fs,
            input,
            &w.mesh,
            res,
            &self.state,
            std::slice::from_mut(target),
            Some(depth),
            limits,
        )
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn bench_mesh(args: &BenchArgs) -> Result<ExitCode> {
    if args.size < 4 || args.size > 8192 {
        bail!("--size must be 4 to 8192 pixels (the target is SIZE x 3*SIZE/4)");
    }
    if args.reps == 0 {
        bail!("--reps must be at least 1");
    }
    let (width, height) = (args.size, args.size * 3 / 4);
    let vs = compile("torus_vs.tgsi", VERTEX_SHADER)?;
    let fs = compile("torus_fs.tgsi", FRAGMENT_SHADER)?;
    let frame = Frame {
        vs: &vs,
        fs: &fs,
        state: mesh_state(true, CullMode::Back, FrontFace::CounterClockwise),
    };
    let dense = torus_obj(256, 128);
    let mut workloads = Vec::new();
    for (label, obj) in [
        ("torus 64x32", TORUS_OBJ.to_string()),
        ("torus 256x128", dense),
    ] {
        let mesh = parse_obj(&obj).map_err(|e| anyhow!("{label}: {e}"))?;
        workloads.push(Workload {
            label: label.into(),
            obj,
            mesh,
        });
    }
    let format = Format::from_short_name("rgba8_srgb").ok_or_else(|| anyhow!("no rgba8_srgb"))?;
    let peer = if args.peer {
        Some(match std::env::var_os(PEER_ENV) {
            Some(exe) => Ok(PathBuf::from(exe)),
            None => super::peers::peer_program("meshbench", "peers/mesa-gl/build.sh"),
        })
    } else {
        None
    };
    println!(
        "workload Mesh: examples/scene (lit, textured, sRGB, trilinear) at {width}x{height}, d32f depth less, back faces culled; {} timed frames per thread count",
        args.reps
    );
    for w in &workloads {
        let triangles = w.mesh.indices.len() / 3;
        println!(
            "{}: {triangles} triangles, {} vertices",
            w.label,
            w.mesh.vertices.len()
        );
        let input = mesh_input(&w.mesh, &vs)?;
        let mut first: Option<(usize, Vec<u8>)> = None;
        let mut ours: Vec<(usize, f64)> = Vec::new();
        for &threads in &args.threads {
            let limits = Limits {
                threads: threads.max(1),
                max_instructions: u64::MAX,
                ..Limits::default()
            };
            let mut res = scene_resources()?;
            let mut target = new_target(format, width, height, 1)?;
            let mut depth = DepthTarget::new(DepthFormat::D32Float, width, height, 1)
                .map_err(|e| anyhow!("{e}"))?;
            let stats = frame.draw(w, &input, &mut res, &mut target, &mut depth, &limits)?;
            let image = target.levels.first().cloned().unwrap_or_default();
            match &first {
                None => first = Some((threads, image)),
                Some((t0, img0)) if *img0 != image => {
                    bail!(
                        "{}: the image differs between {t0} and {threads} thread(s)",
                        w.label
                    )
                }
                Some(_) => {}
            }
            let mut times = Vec::with_capacity(args.reps);
            for _ in 0..args.reps {
                let start = Instant::now();
                frame.draw(w, &input, &mut res, &mut target, &mut depth, &limits)?;
                times.push(start.elapsed().as_secs_f64());
            }
            let best = times.iter().copied().fold(f64::INFINITY, f64::min);
            let med = median(&mut times);
            println!(
                "  tgsi, {threads} thread(s): median {med:.4} s per frame (best {best:.4}) = {:.2} frames/s, {:.3} M triangles/s, {:.2} M fragment-shader lanes/s ({} lanes per frame, 2x2 quads with helpers; {} vertex-shader invocations)",
                1.0 / med,
                triangles as f64 / med / 1e6,
                stats.fragment.invocations as f64 / med / 1e6,
                stats.fragment.invocations,
                stats.vertex.invocations
            );
            ours.push((threads, med));
        }
        if let Some(Ok(exe)) = &peer {
            let image = first.map(|(_, img)| img).unwrap_or_default();
            if let Err(e) = run_peer(exe, w, width, height, args.reps, &ours, &image) {
                println!("  llvmpipe: skipped: {e:#}");
            }
        }
    }
    if let Some(Err(e)) = &peer {
        println!("llvmpipe: skipped: {e:#} ({PEER_ENV} may name another mesh peer)");
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the peer program with 1 and 2 llvmpipe threads, prints its times,
/// the ratios and the agreement of its picture with `ours` (RGBA8 rows).
fn run_peer(
    exe: &Path,
    w: &Workload,
    width: u32,
    height: u32,
    reps: usize,
    ours: &[(usize, f64)],
    image: &[u8],
) -> Result<()> {
    let dir = std::env::temp_dir().join(format!("tgsi-bench-mesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let obj = dir.join("mesh.obj");
    let tex = dir.join("checker.png");
    let out = dir.join("llvmpipe.png");
    std::fs::write(&obj, &w.obj)?;
    std::fs::write(&tex, CHECKER_PNG)?;
    let result = (|| -> Result<()> {
        for threads in [1usize, 2] {
            let mut cmd = Command::new(exe);
            cmd.arg("--mesh")
                .arg(&obj)
                .arg("--texture")
                .arg(&tex)
                .arg("--size")
                .arg(format!("{width}x{height}"))
                .arg("--frames")
                .arg(reps.max(3).to_string())
                .arg("--out")
                .arg(&out);
            for c in SCENE_CONSTANTS {
                cmd.arg("--const").arg(c);
            }
            cmd.env("LIBGL_ALWAYS_SOFTWARE", "1")
                .env("GALLIUM_DRIVER", "llvmpipe")
                .env("LP_NUM_THREADS", threads.to_string());
            let run = cmd
                .output()
                .with_context(|| format!("running {}", exe.display()))?;
            let text = String::from_utf8_lossy(&run.stdout);
            let seconds = text
                .lines()
                .filter(|l| l.contains("s per frame"))
                .find_map(|l| {
                    let words: Vec<&str> = l.split_whitespace().collect();
                    let k = words.iter().position(|w| *w == "median")?;
                    words.get(k + 1)?.parse::<f64>().ok()
                })
                .ok_or_else(|| {
                    anyhow!(
                        "{} printed no `median S s per frame` line: {text}{}",
                        exe.display(),
                        String::from_utf8_lossy(&run.stderr)
                    )
                })?;
            let triangles = w.mesh.indices.len() / 3;
            let ratios: Vec<String> = ours
                .iter()
                .map(|(t, med)| format!("llvmpipe {threads}T / tgsi {t}T = {:.1}", med / seconds))
                .collect();
            println!(
                "  llvmpipe, {threads} thread(s): median {seconds:.5} s per frame = {:.1} frames/s, {:.3} M triangles/s; speed {}",
                1.0 / seconds,
                triangles as f64 / seconds / 1e6,
                ratios.join(", ")
            );
        }
        let theirs = load_png(&out).map_err(|e| anyhow!("the peer's picture: {e}"))?;
        println!("  {}", agreement(image, &theirs));
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Pixels whose largest channel difference exceeds 0, 1, 2, 4, 8 and 32
/// (of 255).
fn agreement(ours: &[u8], theirs: &Rgba8Image) -> String {
    if ours.len() != theirs.pixels.len() {
        return format!(
            "image vs llvmpipe: sizes differ ({} and {} bytes)",
            ours.len(),
            theirs.pixels.len()
        );
    }
    let diffs: Vec<u8> = ours
        .chunks_exact(4)
        .zip(theirs.pixels.chunks_exact(4))
        .map(|(a, b)| (0..4).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0))
        .collect();
    let over = |t: u8| diffs.iter().filter(|d| **d > t).count();
    format!(
        "image vs llvmpipe: {} pixels; differing by more than 0/255: {}, 1/255: {}, 2/255: {}, 4/255: {}, 8/255: {}, 32/255: {}",
        diffs.len(),
        over(0),
        over(1),
        over(2),
        over(4),
        over(8),
        over(32)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_torus_is_the_bundled_one_at_64_by_32() {
        let ours = parse_obj(&torus_obj(64, 32)).unwrap();
        let bundled = parse_obj(TORUS_OBJ).unwrap();
        assert_eq!(ours.indices, bundled.indices);
        assert_eq!(ours.vertices.len(), bundled.vertices.len());
        // make_torus.py prints 6 decimals; ours keeps every bit of the f32.
        for (a, b) in ours.vertices.iter().zip(&bundled.vertices) {
            for c in 0..3 {
                assert!((a.position[c] - b.position[c]).abs() < 1e-6);
                assert!((a.normal[c] - b.normal[c]).abs() < 1e-6);
            }
        }
        let dense = parse_obj(&torus_obj(256, 128)).unwrap();
        assert_eq!(dense.indices.len(), 256 * 128 * 6);
    }

    #[test]
    fn the_scene_draws_the_same_bits_on_two_threads() {
        let vs = compile("vs", VERTEX_SHADER).unwrap();
        let fs = compile("fs", FRAGMENT_SHADER).unwrap();
        let frame = Frame {
            vs: &vs,
            fs: &fs,
            state: mesh_state(true, CullMode::Back, FrontFace::CounterClockwise),
        };
        let mesh = parse_obj(TORUS_OBJ).unwrap();
        let w = Workload {
            label: "t".into(),
            obj: String::new(),
            mesh,
        };
        let input = mesh_input(&w.mesh, &vs).unwrap();
        let format = Format::from_short_name("rgba8_srgb").unwrap();
        let run = |threads: usize| {
            let mut target = new_target(format, 64, 48, 1).unwrap();
            let mut depth = DepthTarget::new(DepthFormat::D32Float, 64, 48, 1).unwrap();
            let limits = Limits {
                threads,
                ..Limits::default()
            };
            let stats = frame
                .draw(
                    &w,
                    &input,
                    &mut scene_resources().unwrap(),
                    &mut target,
                    &mut depth,
                    &limits,
                )
                .unwrap();
            (target.levels.remove(0), stats.fragment.invocations)
        };
        let (one, lanes) = run(1);
        assert!(lanes > 0);
        // The centre of the hole shows the clear colour; the ring does not.
        let px = |img: &[u8], x: usize, y: usize| img[(y * 64 + x) * 4..][..4].to_vec();
        assert_ne!(px(&one, 32, 24), px(&one, 14, 24));
        assert_eq!(run(2).0, one);
    }
}
