//! `tgsi bench mesh`: the torus scene of `examples/scene/` (its shaders,
//! matrices, lights and sRGB mipmapped checker texture) drawn through the
//! pipeline into a W×(3W/4) target. The workloads:
//!
//! * the bundled torus (64×32 segments, 4096 triangles) and a dense one
//!   made here (256×128, 65536 triangles): sRGB target, d32f depth test,
//!   back faces culled;
//! * the bundled torus at 4 samples per pixel, resolved in each frame;
//! * tiny triangles: a 1024×512 torus (1,048,576 triangles of a pixel or
//!   less: setup-bound);
//! * fill rate: 8 overlapping quads that each cover the target, alpha
//!   blended, no depth test, into RGBA8 and into RGBA16F;
//! * facets: `examples/facets/` through all five stages (the octahedron's
//!   8 faces as patches tessellated 8 times, pushed onto a sphere, each
//!   triangle shrunk by the geometry shader), lit by the scene's fragment
//!   shader.
//!
//! Frames per second, triangles per second and fragment-shader lanes per
//! second for each thread count; the image must be the same bits for every
//! count.
//!
//! The peer: with `--peer` the llvmpipe figure comes from `meshbench` in
//! the peer folder (`peers/build/` of the repository or `$TGSI_PEER_DIR`,
//! see [`super::peers::peer_dir`]; `peers/mesa-gl/build.sh` builds it), or
//! from the program `TGSI_PEER_MESH` names instead. Either takes
//! `--mesh FILE.obj --texture FILE.png --size WxH --frames N --out FILE.png
//! --const N=float:...` (the constant buffers of the scene) and the options
//! of the workload's target and state (`--samples`, `--format`, `--depth`,
//! `--blend`, `--cull`, `--front`, `--stages`), draws the same scene with GLSL twins of the
//! shaders and prints a line with `median SECONDS s per frame`. It runs
//! with `LP_NUM_THREADS` 1 and 2 in three rounds between ours (see
//! `mesh_peer.rs`), and its picture is compared with ours pixel by pixel.

use super::args::BenchArgs;
use super::mesh_peer::{PEER_ROUNDS, PeerRun};
use crate::cli::render_mesh::{
    MeshStats, StageShader, Stages, draw_mesh, draw_mesh_stages, mesh_input, mesh_state,
    new_target, resolve, resolve_into,
};
use anyhow::{Result, anyhow, bail};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use tgsi::enums::Processor;
use tgsi::exec::{Limits, Resources, Stats};
use tgsi::image_io::{decode_png, texture_from_image};
use tgsi::mesh_io::{Mesh, parse_obj};
use tgsi::pipeline::{
    BlendFactor, BlendOp, ClearOnLoad, CullMode, DepthFormat, DepthTarget, FrontFace, RenderState,
};
use tgsi::texture::{Filter, Format, MipFilter, Sampler, Texture, Wrap};

const VERTEX_SHADER: &str = include_str!("../../../examples/scene/torus_vs.tgsi");
const FRAGMENT_SHADER: &str = include_str!("../../../examples/scene/torus_fs.tgsi");
const TORUS_OBJ: &str = include_str!("../../../examples/meshes/torus.obj");
pub(super) const CHECKER_PNG: &[u8] = include_bytes!("../../../examples/textures/checker.png");
const OCTAHEDRON_OBJ: &str = include_str!("../../../examples/meshes/octahedron.obj");
const FACETS_VS: &str = include_str!("../../../examples/facets/sphere_vs.tgsi");
const FACETS_TCS: &str = include_str!("../../../examples/facets/sphere_tcs.tgsi");
const FACETS_TES: &str = include_str!("../../../examples/facets/sphere_tes.tgsi");
const FACETS_GS: &str = include_str!("../../../examples/facets/shrink_gs.tgsi");

/// Every tessellation factor `sphere_tcs.tgsi` writes.
const FACETS_FACTOR: f32 = 8.0;

/// The triangles the tessellator makes of one facets patch (a triangle
/// domain, integer partitioning, every factor [`FACETS_FACTOR`]: 96).
fn facets_triangles_per_patch() -> usize {
    use tgsi::pipeline::tessellator::{
        Domain, OutputPrimitive, Partitioning, Settings, tessellate,
    };
    let settings = Settings::new(
        Domain::Triangle,
        Partitioning::Integer,
        OutputPrimitive::TriangleCcw,
    );
    tessellate(&settings, &[FACETS_FACTOR; 3], &[FACETS_FACTOR]).map_or(0, |t| t.indices.len() / 3)
}

/// The constant buffers of `examples/scene/README.md` (`--const` syntax).
pub(super) const SCENE_CONSTANTS: [&str; 4] = [
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

/// The bundled octahedron with one vertex per face corner (position,
/// texture coordinate, a zero normal: the facets shaders read none), as
/// OBJ text whose faces name one index thrice (`f k/k/k`), which the peer
/// reads.
pub fn facets_obj() -> Result<String> {
    use std::fmt::Write;
    let m = parse_obj(OCTAHEDRON_OBJ).map_err(|e| anyhow!("bundled octahedron.obj: {e}"))?;
    let mut s = String::from("# the octahedron of examples/meshes, a vertex per corner\n");
    for &k in &m.indices {
        let v = &m.vertices[k as usize];
        let [x, y, z] = v.position;
        let [u, t] = v.texcoord;
        let _ = writeln!(s, "v {x} {y} {z}\nvt {u} {t}\nvn 0 0 0");
    }
    for f in 0..m.indices.len() / 3 {
        let k = 3 * f + 1;
        let _ = writeln!(s, "f {k}/{k}/{k} {0}/{0}/{0} {1}/{1}/{1}", k + 1, k + 2);
    }
    Ok(s)
}

fn compile(name: &str, text: &str) -> Result<StageShader> {
    let (shader, _) = tgsi::assemble(text).map_err(|d| anyhow!("bundled {name}: {d}"))?;
    let program = tgsi::jit::compile(&shader, tgsi::exec::Numerics::Ieee)
        .map_err(|e| anyhow!("bundled {name}: {e}"))?;
    Ok(StageShader {
        name: name.into(),
        shader,
        program,
        d3d: None,
        source: None,
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

/// How a workload draws: the target's format and samples per pixel, the
/// depth test, blending and culling.
#[derive(Clone, Copy, Debug)]
pub(super) struct DrawSetup {
    /// Short format name (`rgba8_srgb`, `rgba8`, `rgba16f`).
    format: &'static str,
    samples: u32,
    depth: bool,
    /// SRC_ALPHA, ONE_MINUS_SRC_ALPHA for colour and alpha.
    blend: bool,
    cull: CullMode,
    front: FrontFace,
    /// `examples/facets/`'s stages instead of the scene's vertex shader.
    facets: bool,
}

impl DrawSetup {
    /// The scene as `examples/scene` draws it.
    const SCENE: DrawSetup = DrawSetup {
        format: "rgba8_srgb",
        samples: 1,
        depth: true,
        blend: false,
        cull: CullMode::Back,
        front: FrontFace::CounterClockwise,
        facets: false,
    };

    /// `examples/facets/`: the sphere's tessellated triangles come out
    /// clockwise on screen.
    const FACETS: DrawSetup = DrawSetup {
        front: FrontFace::Clockwise,
        facets: true,
        ..DrawSetup::SCENE
    };

    /// Overlapping layers blended over each other.
    fn fill(format: &'static str) -> DrawSetup {
        DrawSetup {
            format,
            depth: false,
            blend: true,
            cull: CullMode::None,
            ..DrawSetup::SCENE
        }
    }

    fn state(&self) -> RenderState {
        let mut state = mesh_state(self.depth, self.cull, self.front);
        if self.blend {
            let b = &mut state.blend[0];
            b.enabled = true;
            (b.src, b.dst, b.op) = (
                BlendFactor::SrcAlpha,
                BlendFactor::InvSrcAlpha,
                BlendOp::Add,
            );
            (b.src_alpha, b.dst_alpha, b.op_alpha) = (b.src, b.dst, b.op);
        }
        state
    }

    /// The peer's options for the same target and state.
    pub(super) fn peer_args(&self) -> Vec<String> {
        let format = match self.format {
            "rgba8_srgb" => "srgb8",
            other => other,
        };
        [
            ("--samples", self.samples.to_string()),
            ("--format", format.to_string()),
            ("--depth", if self.depth { "less" } else { "none" }.into()),
            ("--blend", if self.blend { "alpha" } else { "none" }.into()),
            (
                "--cull",
                if self.cull == CullMode::Back {
                    "back"
                } else {
                    "none"
                }
                .into(),
            ),
            (
                "--front",
                if self.front == FrontFace::Clockwise {
                    "cw"
                } else {
                    "ccw"
                }
                .into(),
            ),
            (
                "--stages",
                if self.facets { "facets" } else { "scene" }.into(),
            ),
        ]
        .into_iter()
        .flat_map(|(k, v)| [k.to_string(), v])
        .collect()
    }
}

/// One workload of the benchmark: a mesh and how it is drawn.
pub(super) struct Workload {
    label: String,
    pub(super) obj: String,
    mesh: Mesh,
    pub(super) setup: DrawSetup,
}

impl Workload {
    /// The triangles a frame rasterizes (the facets' after tessellation).
    pub(super) fn triangles(&self) -> usize {
        let input = self.mesh.indices.len() / 3;
        if self.setup.facets {
            input * facets_triangles_per_patch()
        } else {
            input
        }
    }
}

/// The shaders of a frame: the scene's, and the facets' five stages.
struct Frame<'a> {
    vs: &'a StageShader,
    fs: &'a StageShader,
    facets: &'a Stages,
}

impl Frame<'_> {
    /// The vertex shader of `w`'s draw.
    fn vertex_shader(&self, w: &Workload) -> Result<&StageShader> {
        if !w.setup.facets {
            return Ok(self.vs);
        }
        self.facets
            .get(Processor::Vertex)
            .ok_or_else(|| anyhow!("the facets stages have no vertex shader"))
    }
}

/// The compiled shaders a [`Frame`] borrows.
struct Shaders {
    vs: StageShader,
    fs: StageShader,
    facets: Stages,
}

impl Shaders {
    /// The scene's and the facets' shaders, compiled.
    fn compile() -> Result<Shaders> {
        Ok(Shaders {
            vs: compile("torus_vs.tgsi", VERTEX_SHADER)?,
            fs: compile("torus_fs.tgsi", FRAGMENT_SHADER)?,
            facets: facets_stages()?,
        })
    }

    fn frame(&self) -> Frame<'_> {
        Frame {
            vs: &self.vs,
            fs: &self.fs,
            facets: &self.facets,
        }
    }
}

/// The facets' stages: `examples/facets/` and the scene's fragment shader.
fn facets_stages() -> Result<Stages> {
    let stages = [
        (Processor::Vertex, "sphere_vs.tgsi", FACETS_VS),
        (Processor::TessCtrl, "sphere_tcs.tgsi", FACETS_TCS),
        (Processor::TessEval, "sphere_tes.tgsi", FACETS_TES),
        (Processor::Geometry, "shrink_gs.tgsi", FACETS_GS),
        (Processor::Fragment, "torus_fs.tgsi", FRAGMENT_SHADER),
    ];
    let stages = stages
        .into_iter()
        .map(|(p, name, text)| Ok((p, compile(name, text)?)))
        .collect::<Result<Vec<_>>>()?;
    Ok(Stages { stages })
}

/// A workload's targets.
struct Targets {
    color: Texture,
    depth: Option<DepthTarget>,
    /// The one-sample target a multisampled colour target is resolved into.
    resolved: Option<Texture>,
}

impl Targets {
    /// The frame's clears, made by the draw as it reaches each band of
    /// rows: the colour target to [`CLEAR`], the depth target to 1.0 and
    /// its stencil (where the format has one) to 0.
    fn clears(&self) -> ClearOnLoad {
        let mut clear = ClearOnLoad::default();
        clear.colors[0] = Some(CLEAR);
        if let Some(d) = &self.depth {
            clear.depth = Some(1.0);
            clear.stencil = d.format.has_stencil().then_some(0);
        }
        clear
    }

    fn new(setup: &DrawSetup, width: u32, height: u32) -> Result<Targets> {
        let format = Format::from_short_name(setup.format)
            .ok_or_else(|| anyhow!("no texel format {}", setup.format))?;
        let color = new_target(format, width, height, setup.samples)?;
        let depth = if setup.depth {
            let d = DepthTarget::new(DepthFormat::D32Float, width, height, setup.samples);
            Some(d.map_err(|e| anyhow!("{e}"))?)
        } else {
            None
        };
        let resolved = if setup.samples > 1 {
            Some(new_target(format, width, height, 1)?)
        } else {
            None
        };
        Ok(Targets {
            color,
            depth,
            resolved,
        })
    }

    /// The picture as RGBA8 rows (resolved, converted to 8 bits per channel
    /// as OpenGL reads a target back), for the comparisons.
    fn picture(&self) -> Result<Vec<u8>> {
        let t = resolve(&self.color)?;
        let level = t.levels.first().cloned().unwrap_or_default();
        if t.format.bytes_per_texel() == 4 {
            return Ok(level);
        }
        let bpt = t.format.bytes_per_texel();
        Ok(level
            .chunks_exact(bpt)
            .flat_map(|texel| {
                t.format.decode(texel).map(|w| {
                    let v = f32::from_bits(w);
                    let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
                    (v * 255.0).round_ties_even() as u8
                })
            })
            .collect())
    }
}

impl Frame<'_> {
    /// Clears the targets, draws and, with several samples, resolves (as
    /// the peer does within its frame).
    fn draw(
        &self,
        w: &Workload,
        input: &tgsi::pipeline::VertexInput,
        res: &mut Resources,
        targets: &mut Targets,
        limits: &Limits,
    ) -> Result<MeshStats> {
        let state = RenderState {
            clear: targets.clears(),
            ..w.setup.state()
        };
        let stats = if w.setup.facets {
            // every stage's lanes, counted as the fragment's
            let all = draw_mesh_stages(
                self.facets,
                input,
                &w.mesh,
                res,
                &state,
                std::slice::from_mut(&mut targets.color),
                targets.depth.as_mut(),
                limits,
            )?;
            MeshStats {
                vertex: Stats::default(),
                fragment: all,
            }
        } else {
            draw_mesh(
                self.vs,
                self.fs,
                input,
                &w.mesh,
                res,
                &state,
                std::slice::from_mut(&mut targets.color),
                targets.depth.as_mut(),
                limits,
            )?
        };
        if let Some(r) = targets.resolved.as_mut() {
            resolve_into(&targets.color, r, limits.threads)?;
            std::hint::black_box(&r.levels);
        }
        Ok(stats)
    }
}

/// `layers` squares, each 40 units on a side, square to the scene camera's
/// line of sight through the origin and stacked 0.3 apart towards the
/// camera (each covers the whole target), as OBJ text: normals towards the
/// camera, texture coordinates 0..8.
pub fn layers_obj(layers: u32) -> String {
    use std::fmt::Write;
    // the eye of examples/scene (CONST[3][1]), looking at the origin
    let eye = [0.0f64, 2.4, 4.4];
    let len = (eye[0] * eye[0] + eye[1] * eye[1] + eye[2] * eye[2]).sqrt();
    let back = eye.map(|v| v / len);
    // right = up × back, up' = back × right
    let right = {
        let r = [back[2], 0.0, -back[0]];
        let l = (r[0] * r[0] + r[2] * r[2]).sqrt();
        r.map(|v| v / l)
    };
    let up = [
        back[1] * right[2] - back[2] * right[1],
        back[2] * right[0] - back[0] * right[2],
        back[0] * right[1] - back[1] * right[0],
    ];
    let mut s = format!("# {layers} squares facing the scene camera\n");
    for k in 0..layers {
        let d = 0.3 * f64::from(k);
        for (u, v) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let p: [f64; 3] =
                std::array::from_fn(|c| back[c] * d + (right[c] * u + up[c] * v) * 20.0);
            let f = |v: f64| v as f32;
            let _ = writeln!(
                s,
                "v {:?} {:?} {:?}\nvt {:?} {:?}\nvn {:?} {:?} {:?}",
                f(p[0]),
                f(p[1]),
                f(p[2]),
                f(4.0 * (u + 1.0)),
                f(4.0 * (v + 1.0)),
                f(back[0]),
                f(back[1]),
                f(back[2])
            );
        }
        let b = 4 * k + 1;
        let _ = writeln!(
            s,
            "f {b}/{b}/{b} {}/{}/{} {}/{}/{} {}/{}/{}",
            b + 1,
            b + 1,
            b + 1,
            b + 2,
            b + 2,
            b + 2,
            b + 3,
            b + 3,
            b + 3
        );
    }
    s
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The workloads whose name contains `only` (all without it), their
/// meshes made and parsed.
fn workloads(only: Option<&str>) -> Result<Vec<Workload>> {
    let scene = DrawSetup::SCENE;
    // (name, mesh, setup); meshes are made only for the workloads chosen
    type MakeObj = fn() -> Result<String>;
    let specs: [(&str, MakeObj, DrawSetup); 7] = [
        ("torus 64x32", || Ok(TORUS_OBJ.to_string()), scene),
        ("torus 256x128", || Ok(torus_obj(256, 128)), scene),
        (
            "torus 64x32, 4x MSAA (resolved in the frame)",
            || Ok(TORUS_OBJ.to_string()),
            DrawSetup {
                samples: 4,
                ..scene
            },
        ),
        (
            "tiny triangles: torus 1024x512",
            || Ok(torus_obj(1024, 512)),
            scene,
        ),
        (
            "fill rate: 8 blended layers, RGBA8",
            || Ok(layers_obj(8)),
            DrawSetup::fill("rgba8"),
        ),
        (
            "fill rate: 8 blended layers, RGBA16F",
            || Ok(layers_obj(8)),
            DrawSetup::fill("rgba16f"),
        ),
        (
            "facets: octahedron patches tessellated x8, shrunk by a geometry shader",
            facets_obj,
            DrawSetup::FACETS,
        ),
    ];
    // A name given whole picks that workload alone.
    let exact = only.is_some_and(|o| specs.iter().any(|(label, ..)| *label == o));
    let mut workloads = Vec::new();
    for (label, make, setup) in specs {
        if only.is_some_and(|o| {
            if exact {
                label != o
            } else {
                !label.contains(o)
            }
        }) {
            continue;
        }
        let obj = make()?;
        let mesh = parse_obj(&obj).map_err(|e| anyhow!("{label}: {e}"))?;
        workloads.push(Workload {
            label: label.into(),
            obj,
            mesh,
            setup,
        });
    }
    if workloads.is_empty() {
        bail!(
            "--scene {}: no workload's name contains it",
            only.unwrap_or("")
        );
    }
    Ok(workloads)
}

/// One thread count's frames of a workload.
struct Run {
    threads: usize,
    limits: Limits,
    res: Resources,
    targets: Targets,
    /// What the first frame ran.
    stats: MeshStats,
    /// Each round's median seconds per frame.
    medians: Vec<f64>,
    /// The fastest frame.
    best: f64,
}

impl Run {
    /// Prints the median of the rounds' medians and the rates; returns it.
    fn report(&mut self, w: &Workload) -> f64 {
        let (best, rounds) = (self.best, self.medians.len());
        let med = median(&mut self.medians);
        let rounds = if rounds > 1 {
            format!(", median of {rounds} rounds")
        } else {
            String::new()
        };
        let stats = &self.stats;
        let lanes = if w.setup.facets {
            format!(
                "{:.2} M shader lanes/s ({} lanes per frame in the five stages, fragments in 2x2 quads with helpers)",
                stats.fragment.invocations as f64 / med / 1e6,
                stats.fragment.invocations
            )
        } else {
            format!(
                "{:.2} M fragment-shader lanes/s ({} lanes per frame, 2x2 quads with helpers; {} vertex-shader invocations)",
                stats.fragment.invocations as f64 / med / 1e6,
                stats.fragment.invocations,
                stats.vertex.invocations
            )
        };
        println!(
            "  tgsi, {} thread(s): median {med:.4} s per frame (best {best:.4}{rounds}) = {:.2} frames/s, {:.3} M triangles/s, {lanes}",
            self.threads,
            1.0 / med,
            w.triangles() as f64 / med / 1e6,
        );
        med
    }
}

pub fn bench_mesh(args: &BenchArgs) -> Result<ExitCode> {
    if args.size < 4 || args.size > 8192 {
        bail!("--size must be 4 to 8192 pixels (the target is SIZE x 3*SIZE/4)");
    }
    if args.reps == 0 {
        bail!("--reps must be at least 1");
    }
    let (width, height) = (args.size, args.size * 3 / 4);
    let shaders = Shaders::compile()?;
    let frame = shaders.frame();
    let workloads = workloads(args.scene.as_deref())?;
    let peer = if args.peer {
        Some(match std::env::var_os(PEER_ENV) {
            Some(exe) => Ok(PathBuf::from(exe)),
            None => super::peers::peer_program("meshbench", "peers/mesa-gl/build.sh"),
        })
    } else {
        None
    };
    println!(
        "workload Mesh: examples/scene (lit, textured, trilinear) at {width}x{height}; {} timed frames per thread count",
        args.reps
    );
    for w in &workloads {
        let triangles = w.triangles();
        let s = &w.setup;
        let stages = if s.facets {
            format!(
                " ({} patches of 3 control points through all five stages)",
                w.mesh.indices.len() / 3
            )
        } else {
            String::new()
        };
        println!(
            "{}: {triangles} triangles{stages}, {} vertices; {} target, {} sample(s), {}, {}, {} faces culled",
            w.label,
            w.mesh.vertices.len(),
            s.format,
            s.samples,
            if s.depth {
                "d32f depth less"
            } else {
                "no depth"
            },
            if s.blend {
                "alpha blending"
            } else {
                "no blending"
            },
            if s.cull == CullMode::Back {
                "back"
            } else {
                "no"
            },
        );
        let input = mesh_input(&w.mesh, frame.vertex_shader(w)?)?;
        // each thread count's first frame: the pictures must agree
        let mut first: Option<(usize, Vec<u8>)> = None;
        let mut runs = Vec::new();
        for &threads in &args.threads {
            let limits = Limits {
                threads: threads.max(1),
                max_instructions: u64::MAX,
                max_dispatch_instructions: u64::MAX,
                max_draw_instructions: u64::MAX,
                ..Limits::default()
            };
            let mut res = scene_resources()?;
            let mut targets = Targets::new(s, width, height)?;
            let stats = frame.draw(w, &input, &mut res, &mut targets, &limits)?;
            let image = targets.picture()?;
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
            runs.push(Run {
                threads,
                limits,
                res,
                targets,
                stats,
                medians: Vec::new(),
                best: f64::INFINITY,
            });
        }
        // with the peer, the frames in rounds: each thread count's, then the
        // peer's at 1 and 2 threads, and again, so that both see the machine
        // alike while its speed drifts
        let mut peer_run = match &peer {
            Some(Ok(exe)) => match PeerRun::new(exe, w, width, height) {
                Ok(p) => Some(p),
                Err(e) => {
                    println!("  llvmpipe: skipped: {e:#}");
                    None
                }
            },
            _ => None,
        };
        let rounds = if peer_run.is_some() { PEER_ROUNDS } else { 1 };
        for _ in 0..rounds {
            for run in &mut runs {
                let mut times = Vec::with_capacity(args.reps);
                for _ in 0..args.reps {
                    let start = Instant::now();
                    frame.draw(w, &input, &mut run.res, &mut run.targets, &run.limits)?;
                    times.push(start.elapsed().as_secs_f64());
                }
                run.best = times.iter().copied().fold(run.best, f64::min);
                run.medians.push(median(&mut times));
            }
            if let Some(p) = &mut peer_run
                && let Err(e) = p.round(args.reps)
            {
                println!("  llvmpipe: skipped: {e:#}");
                peer_run = None;
            }
        }
        let mut ours: Vec<(usize, f64)> = Vec::new();
        for run in &mut runs {
            let med = run.report(w);
            ours.push((run.threads, med));
        }
        if let Some(p) = peer_run {
            let image = first.map(|(_, img)| img).unwrap_or_default();
            if let Err(e) = p.report(w, &ours, &image) {
                println!("  llvmpipe: skipped: {e:#}");
            }
        }
    }
    if let Some(Err(e)) = &peer {
        println!("llvmpipe: skipped: {e:#} ({PEER_ENV} may name another mesh peer)");
    }
    Ok(ExitCode::SUCCESS)
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
        let shaders = Shaders::compile().unwrap();
        let (frame, vs) = (shaders.frame(), &shaders.vs);
        let run = |w: &Workload, threads: usize| {
            let input = mesh_input(&w.mesh, vs).unwrap();
            let mut targets = Targets::new(&w.setup, 64, 48).unwrap();
            // what a last frame left: the frame's clears must undo it (a
            // depth of 0 passes no fragment)
            targets.color.levels[0].fill(0x5A);
            if let Some(d) = targets.depth.as_mut() {
                d.depth.fill(0);
            }
            let limits = Limits {
                threads,
                ..Limits::default()
            };
            let mut res = scene_resources().unwrap();
            let stats = frame
                .draw(w, &input, &mut res, &mut targets, &limits)
                .unwrap();
            (targets.picture().unwrap(), stats.fragment.invocations)
        };
        let torus = |setup| Workload {
            label: "t".into(),
            obj: String::new(),
            mesh: parse_obj(TORUS_OBJ).unwrap(),
            setup,
        };
        let scene = torus(DrawSetup::SCENE);
        let (one, lanes) = run(&scene, 1);
        assert!(lanes > 0);
        // The centre of the hole shows the clear colour; the ring does not.
        let px = |img: &[u8], x: usize, y: usize| img[(y * 64 + x) * 4..][..4].to_vec();
        assert_ne!(px(&one, 32, 24), px(&one, 14, 24));
        assert_eq!(run(&scene, 2).0, one);
        // 4 samples: resolved to the same size, the same bits on 2 threads
        let msaa = torus(DrawSetup {
            samples: 4,
            ..DrawSetup::SCENE
        });
        let (four, _) = run(&msaa, 1);
        assert_eq!(four.len(), one.len());
        assert_eq!(run(&msaa, 2).0, four);
    }

    /// The facets through all five stages: the octahedron written a
    /// vertex per corner (as the peer reads it) draws the bits of the
    /// bundled one, the sphere in the middle and the clear colour in the
    /// corner, the same on two threads.
    #[test]
    fn the_facets_draw_the_bundled_octahedron_on_any_thread_count() {
        let shaders = Shaders::compile().unwrap();
        let frame = shaders.frame();
        let run = |obj: &str, threads: usize| {
            let w = Workload {
                label: "facets".into(),
                obj: String::new(),
                mesh: parse_obj(obj).unwrap(),
                setup: DrawSetup::FACETS,
            };
            // concentric rings at factor 8 = 2·4: 6·4² triangles a patch
            assert_eq!(w.triangles(), 8 * 96);
            let input = mesh_input(&w.mesh, frame.vertex_shader(&w).unwrap()).unwrap();
            let mut targets = Targets::new(&w.setup, 64, 48).unwrap();
            // what a last frame left: the frame's clears must undo it (a
            // depth of 0 passes no fragment)
            targets.color.levels[0].fill(0x5A);
            if let Some(d) = targets.depth.as_mut() {
                d.depth.fill(0);
            }
            let limits = Limits {
                threads,
                ..Limits::default()
            };
            let mut res = scene_resources().unwrap();
            let stats = frame
                .draw(&w, &input, &mut res, &mut targets, &limits)
                .unwrap();
            assert!(stats.fragment.invocations > 0);
            targets.picture().unwrap()
        };
        let obj = facets_obj().unwrap();
        let mesh = parse_obj(&obj).unwrap();
        assert_eq!((mesh.vertices.len(), mesh.indices.len()), (24, 24));
        let one = run(&obj, 1);
        assert_eq!(run(OCTAHEDRON_OBJ, 1), one);
        assert_eq!(run(&obj, 2), one);
        let px = |x: usize, y: usize| one[(y * 64 + x) * 4..][..4].to_vec();
        let clear = px(0, 0);
        assert!(
            (20..44).any(|x| px(x, 24) != clear),
            "no sphere in the middle row"
        );
    }

    /// The fill layers cover the whole target: every pixel is shaded 8
    /// times and blended (RGBA8 and RGBA16F agree within a step).
    #[test]
    fn the_fill_layers_cover_the_target() {
        let shaders = Shaders::compile().unwrap();
        let (frame, vs) = (shaders.frame(), &shaders.vs);
        let mut pictures = Vec::new();
        for format in ["rgba8", "rgba16f"] {
            let w = Workload {
                label: "fill".into(),
                obj: String::new(),
                mesh: parse_obj(&layers_obj(8)).unwrap(),
                setup: DrawSetup::fill(format),
            };
            let input = mesh_input(&w.mesh, vs).unwrap();
            let mut targets = Targets::new(&w.setup, 64, 48).unwrap();
            let stats = frame
                .draw(
                    &w,
                    &input,
                    &mut scene_resources().unwrap(),
                    &mut targets,
                    &Limits::default(),
                )
                .unwrap();
            // every layer covers every pixel (lanes: plus the helpers of
            // the quads on each square's diagonal)
            let lanes = stats.fragment.invocations;
            assert!((8 * 64 * 48..9 * 64 * 48).contains(&lanes), "{lanes}");
            pictures.push(targets.picture().unwrap());
        }
        let worst = pictures[0]
            .iter()
            .zip(&pictures[1])
            .map(|(a, b)| a.abs_diff(*b))
            .max();
        assert!(worst.is_some_and(|d| d <= 1), "{worst:?}");
    }
}
