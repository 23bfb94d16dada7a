//! `tgsi render`: runs a fragment shader over every pixel of a render target
//! (the `draw quad` inputs of `.shader_test`: GENERIC[0] = (u, v, 0, 1) at
//! the pixel centre, POSITION = window coordinates), or with `--vertex` and
//! `--mesh` draws an OBJ mesh through the pipeline
//! ([`super::render_mesh`]), and writes the target as an 8-bit RGBA PNG. Textures come from PNG files, samplers from
//! `--sampler` strings (see [`super::render_args`]), constants from
//! `--const`. The shader may be TGSI text, SM4/SM5 assembly or a DXBC blob:
//! a Direct3D pixel shader is lowered to TGSI, `--const N` is cbN,
//! `--texture N` tN and `--sampler N` sN, its first TEXCOORD input gets
//! (u, v, 0, 1) and SV_Target0 goes to the image.

use super::input::{read_data_file, write_bytes};
use super::render_args::{SAMPLER_HELP, TextureSpec, parse_sampler, parse_size, parse_texture};
use super::render_mesh::{self as mesh, ShaderFile, StageShader, Stages};
use anyhow::{Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tgsi::enums::Processor;
use tgsi::exec::{Draw, Limits, ProgressHook, Resources};
use tgsi::image_io::{
    Rgba8Image, encode_png, load_png, save_png, target_to_image, texture_from_image,
};
use tgsi::pipeline::{CullMode, DepthTarget, FrontFace};
use tgsi::shader_test::{Section, sampler_from_section, texture_from_section};
use tgsi::texture::{Format, Sampler, Texture};

/// `--help` of `--mesh`.
const MESH_HELP: &str = "Wavefront OBJ mesh to draw with --vertex (positions, normals, texture \
coordinates; polygons become triangle fans; missing normals are computed, missing texture \
coordinates are (0, 0)). Each vertex feeds the vertex shader IN[0] = position (x, y, z, 1), \
IN[1] = normal (x, y, z, 0), IN[2] = texture coordinate (u, v, 0, 1); a Direct3D vertex shader \
gets them by input-signature name: POSITION, NORMAL, TEXCOORD0. The faces are one indexed \
triangle list drawn with Direct3D 11's rules (clip space 0 <= z <= w, y up; the target's \
top-left pixel is (-1, 1)); the vertex shader's outputs reach the fragment shader's inputs \
by semantic. Both shaders read the same --const, --texture, --sampler and --data resources";

#[derive(clap::Args)]
pub struct RenderArgs {
    /// Fragment shader (TGSI text, SM4/SM5 assembly or a DXBC blob; `-` for
    /// standard input); it writes COLOR[0] (Direct3D: SV_Target0)
    pub shader: PathBuf,
    /// Output PNG file (8-bit RGBA; `-` writes standard output)
    #[arg(short, long)]
    pub output: PathBuf,
    /// Vertex shader of a mesh draw (TGSI, SM4/SM5 assembly or DXBC); needs --mesh
    #[arg(long, value_name = "SHADER", requires = "mesh")]
    pub vertex: Option<PathBuf>,
    #[arg(long, value_name = "FILE.obj", requires = "vertex", help = MESH_HELP)]
    pub mesh: Option<PathBuf>,
    /// Mesh draws: a geometry shader between the vertex (or tessellation)
    /// stage and the rasterizer; it receives triangles
    #[arg(long, value_name = "SHADER", requires = "mesh")]
    pub geometry: Option<PathBuf>,
    /// Mesh draws: a tess-control (hull) shader; each mesh triangle becomes
    /// a patch of 3 control points. Needs --tess-eval
    #[arg(long = "tess-ctrl", value_name = "SHADER", requires = "tess_eval")]
    pub tess_ctrl: Option<PathBuf>,
    /// Mesh draws: a tess-eval (domain) shader, after --tess-ctrl and the
    /// fixed-function tessellator
    #[arg(long = "tess-eval", value_name = "SHADER", requires = "tess_ctrl")]
    pub tess_eval: Option<PathBuf>,
    /// Mesh draws: a depth target of this format, cleared to 1.0; the depth
    /// test is `less` with writes. Without it there is no depth test
    #[arg(long, value_name = "d32f|d24s8|d16", value_parser = mesh::depth_format, requires = "mesh")]
    pub depth: Option<tgsi::pipeline::DepthFormat>,
    /// Mesh draws: which faces are culled
    #[arg(long, value_name = "none|front|back", default_value = "none", value_parser = cull_mode, requires = "mesh")]
    pub cull: CullMode,
    /// Mesh draws: the winding of front faces as seen on the picture;
    /// Direct3D's default is cw, OpenGL's ccw
    #[arg(long, value_name = "cw|ccw", default_value = "cw", value_parser = front_face, requires = "mesh")]
    pub front: FrontFace,
    /// Mesh draws: samples per pixel (1, 2, 4, 8 or 16; standard sample
    /// positions), resolved to one (the average) in the PNG
    #[arg(long, value_name = "N", default_value = "1", value_parser = mesh::sample_count, requires = "mesh")]
    pub samples: u32,
    /// Colour the target holds before drawing: R,G,B,A (or R,G,B, alpha 1),
    /// linear floats
    #[arg(long, value_name = "R,G,B,A", default_value = "0,0,0,0", value_parser = mesh::parse_clear)]
    pub clear: [f32; 4],
    /// Render target size
    #[arg(long, default_value = "512x512", value_name = "WxH")]
    pub size: String,
    /// Texture behind SVIEW[N] (and SAMP[N] for TEX/TXB/...): a PNG file of any
    /// colour type and depth, loaded as 2D RGBA8 UNORM; `:srgb` reads it as
    /// sRGB (decoded to linear when sampled), `:mips` builds the full mip chain
    /// with a 2x2 box filter. Repeatable.
    #[arg(long = "texture", value_name = "N=FILE.png[:srgb][:mips]")]
    pub textures: Vec<String>,
    #[arg(long = "sampler", value_name = "N=ITEM,...", help = SAMPLER_HELP)]
    pub samplers: Vec<String>,
    /// Constant buffer contents: `N=TYPE:v,v,...` (TYPE float, uint, int, double,
    /// uint64, int64, hex); CONST[i] is buffer 0. Repeatable.
    #[arg(long = "const", value_name = "N=TYPE:VALUES")]
    pub constants: Vec<String>,
    /// Data file in the `.shader_test` section syntax: `[constant N]`,
    /// `[texture N]`, `[image N]` and `[sampler N]` sections (every target and
    /// texel format that `.shader_test` files offer), applied before the
    /// `--const`, `--texture` and `--sampler` options
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Render into an sRGB target (rgba8_srgb): the shader's linear colours are
    /// sRGB-encoded; without it the target is rgba32f and colours are clamped
    /// to [0, 1] and rounded to 8 bits as they are
    #[arg(long)]
    pub srgb: bool,
    /// Worker threads (default: one per core); the picture is the same with any count
    #[arg(long, value_parser = super::thread_count)]
    pub threads: Option<usize>,
    /// Instruction budget per 16-lane batch
    #[arg(long, default_value_t = Limits::default().max_instructions)]
    pub budget: u64,
    /// Instruction budget of a whole draw: the instructions of all its
    /// 16-lane batches, every stage, summed
    #[arg(long, default_value_t = Limits::default().max_draw_instructions)]
    pub draw_budget: u64,
    /// No progress bar
    #[arg(long, short)]
    pub quiet: bool,
}

/// A 2D RGBA8 texture from a PNG file (level 0), with its mip chain if asked.
pub fn load_texture(spec: &TextureSpec) -> Result<Texture> {
    let img = load_png(&spec.path).map_err(|e| anyhow!("--texture {}: {e}", spec.index))?;
    texture_from_image(&img, spec.srgb, spec.mips)
        .map_err(|e| anyhow!("--texture {} ({}): {e}", spec.index, spec.path.display()))
}

fn slot<T: Clone>(v: &mut Vec<T>, index: usize, fill: T) -> &mut T {
    if v.len() <= index {
        v.resize(index + 1, fill);
    }
    &mut v[index]
}

/// Fills `res` from a data file's `[constant N]`, `[texture N]`, `[image N]`
/// and `[sampler N]` sections.
fn load_data(path: &Path, res: &mut Resources) -> Result<()> {
    let (name, file) = read_data_file(path)?;
    for (line, section) in &file.sections {
        match section {
            Section::Constant { index, words } => {
                *slot(&mut res.constants, *index as usize, Vec::new()) = words.clone()
            }
            Section::Texture(t) => {
                let tex = texture_from_section(t).map_err(|e| anyhow!("{name}:{line}: {e}"))?;
                let list = if t.image {
                    &mut res.images
                } else {
                    &mut res.textures
                };
                *slot(list, t.index as usize, None) = Some(tex);
            }
            Section::Sampler(s) => {
                *slot(&mut res.samplers, s.index as usize, Sampler::default()) =
                    sampler_from_section(s)
            }
            _ => bail!(
                "{name}:{line}: only [constant N], [texture N], [image N] and [sampler N] sections belong in a render data file"
            ),
        }
    }
    Ok(())
}

/// A progress bar on stderr that appears only once a render has taken half a
/// second, and only when stderr is a terminal.
struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    shown: Mutex<bool>,
}

impl Progress {
    fn new(rows: u64, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(rows), ProgressDrawTarget::hidden());
            if let Ok(style) = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} rows, eta {eta}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        Progress {
            bar,
            start: Instant::now(),
            shown: Mutex::new(false),
        }
    }
    fn update(&self, done: u64) {
        let Some(bar) = &self.bar else { return };
        if self.start.elapsed() >= Duration::from_millis(500)
            && let Ok(mut shown) = self.shown.lock()
            && !*shown
        {
            *shown = true;
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        bar.set_position(done);
    }
    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

pub(super) fn cull_mode(text: &str) -> Result<CullMode> {
    mesh::parse_named(text, "--cull", CullMode::ALL)
}

pub(super) fn front_face(text: &str) -> Result<FrontFace> {
    mesh::parse_named(text, "--front", FrontFace::ALL)
}

/// The shader files of the command, in pipeline order: the one place that
/// says which option names which stage.
pub(super) fn shader_files(args: &RenderArgs) -> Vec<ShaderFile<'_>> {
    let mut files = Vec::new();
    if let Some(path) = &args.vertex {
        files.push(ShaderFile {
            expects: "--vertex takes vertex shaders",
            path,
            processor: Processor::Vertex,
        });
    }
    let stages = [
        (
            &args.tess_ctrl,
            "--tess-ctrl takes tess-control (hull) shaders",
            Processor::TessCtrl,
        ),
        (
            &args.tess_eval,
            "--tess-eval takes tess-eval (domain) shaders",
            Processor::TessEval,
        ),
        (
            &args.geometry,
            "--geometry takes geometry shaders",
            Processor::Geometry,
        ),
    ];
    for (path, expects, processor) in stages {
        if let Some(path) = path {
            files.push(ShaderFile {
                expects,
                path,
                processor,
            });
        }
    }
    files.push(ShaderFile {
        expects: "`tgsi render` runs fragment (pixel) shaders",
        path: &args.shader,
        processor: Processor::Fragment,
    });
    files
}

/// Most bytes of texels the `--texture` files hold in all (each is also
/// held to 67,108,864 pixels as it is read).
const MAX_TEXTURE_BYTES_IN_ALL: usize = 1 << 30;

/// The resources of `--data`, `--const`, `--texture` and `--sampler`.
fn resources(args: &RenderArgs) -> Result<Resources> {
    let mut res = Resources::default();
    if let Some(data) = &args.data {
        load_data(data, &mut res)?;
    }
    for spec in &args.constants {
        let (i, words) = super::run::parse_typed(spec, "--const")?;
        if i >= 4096 {
            bail!("--const `{spec}`: index {i} is too large (at most 4095)");
        }
        *slot(&mut res.constants, i, Vec::new()) = words;
    }
    let mut texel_bytes = 0usize;
    for text in &args.textures {
        let spec = parse_texture(text)?;
        let tex = load_texture(&spec)?;
        texel_bytes += tex.levels.iter().map(Vec::len).sum::<usize>();
        if texel_bytes > MAX_TEXTURE_BYTES_IN_ALL {
            bail!(
                "--texture `{text}`: the textures given hold {texel_bytes} bytes of texels in all; at most 1 GiB"
            );
        }
        *slot(&mut res.textures, spec.index, None) = Some(tex);
    }
    for spec in &args.samplers {
        let s = parse_sampler(spec)?;
        let index = s.index as usize;
        *slot(&mut res.samplers, index, Sampler::default()) = sampler_from_section(&s);
    }
    Ok(res)
}

pub fn render(args: &RenderArgs) -> Result<ExitCode> {
    let Some(stages) = Stages::load(&shader_files(args))? else {
        return Ok(ExitCode::from(1));
    };
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let targets = draw_stages(args, &stages, threads)?;
    let resolved = mesh::resolve_on(&targets[0], threads)?;
    let img = target_to_image(&resolved).map_err(|e| anyhow!("{e}"))?;
    write_png(&args.output, &img)?;
    Ok(ExitCode::SUCCESS)
}

/// Draws what `args` say with `stages` on `threads` threads: the fragment
/// shader over the target, or the mesh through every stage. The targets
/// after the draw.
pub(super) fn draw_stages(
    args: &RenderArgs,
    stages: &Stages,
    threads: usize,
) -> Result<Vec<Texture>> {
    let (width, height) = parse_size(&args.size)?;
    let fragment = stages
        .get(Processor::Fragment)
        .ok_or_else(|| anyhow!("no fragment shader"))?;
    // Read the mesh before the textures: its errors come first.
    let loaded_mesh = args.mesh.as_deref().map(mesh::load_mesh).transpose()?;
    let mut res = resources(args)?;
    let format_name = if args.srgb { "rgba8_srgb" } else { "rgba32f" };
    let format = Format::from_short_name(format_name)
        .ok_or_else(|| anyhow!("no render target format `{format_name}`"))?;
    let samples = if loaded_mesh.is_some() {
        args.samples
    } else {
        1
    };
    let mut target = mesh::new_target(format, width, height, samples)?;
    mesh::clear_target(&mut target, args.clear);
    let mut targets = vec![target];
    let limits = Limits {
        threads: threads.max(1),
        max_instructions: args.budget,
        max_draw_instructions: args.draw_budget,
        ..Limits::default()
    };
    match (&loaded_mesh, stages.get(Processor::Vertex)) {
        (Some(m), Some(vertex)) if super::vulkan_engine() => {
            let mut depth = args
                .depth
                .map(|f| DepthTarget::new(f, width, height, samples))
                .transpose()
                .map_err(|e| anyhow!("--depth: {e}"))?;
            let state = mesh::mesh_state(depth.is_some(), args.cull, args.front);
            let rows = mesh::mesh_rows(m, vertex)?;
            let draw = MeshOnDevice {
                stages,
                rows: &rows,
                indices: &m.indices,
                state: &state,
            };
            draw.run(&mut res, &mut targets, depth.as_mut())?;
        }
        (Some(m), Some(vertex)) => {
            let input = mesh::mesh_input(m, vertex)?;
            let mut depth = args
                .depth
                .map(|f| DepthTarget::new(f, width, height, samples))
                .transpose()
                .map_err(|e| anyhow!("--depth: {e}"))?;
            let state = mesh::mesh_state(depth.is_some(), args.cull, args.front);
            let progress = std::sync::Arc::new(Progress::new(u64::from(height), args.quiet));
            let bar = progress.clone();
            let limits = Limits {
                progress: ProgressHook::new(move |done, _| bar.update(done)),
                ..limits
            };
            let drawn = mesh::draw_mesh_stages(
                stages,
                &input,
                m,
                &mut res,
                &state,
                &mut targets,
                depth.as_mut(),
                &limits,
            );
            progress.finish();
            drawn?;
        }
        _ => draw_quad(fragment, &mut res, &mut targets, &limits, args.quiet)?,
    }
    Ok(targets)
}

/// The fragment shader over a full-target quad, with a progress bar.
fn draw_quad(
    fragment: &StageShader,
    res: &mut Resources,
    targets: &mut [Texture],
    limits: &Limits,
    quiet: bool,
) -> Result<()> {
    let (width, height) = (targets[0].width, targets[0].height);
    let draw = match &fragment.d3d {
        Some(d) => d.quad(width, height),
        None => Draw::full_quad(width, height),
    };
    if super::vulkan_engine() {
        return draw_quad_on_vulkan(fragment, &draw, res, targets);
    }
    let progress = Progress::new(u64::from(height), quiet);
    let result = fragment.bind(res, |r| {
        fragment
            .program
            .draw_with_progress(r, &draw, targets, limits, &|done, _| {
                progress.update(u64::from(done))
            })
    });
    progress.finish();
    result.map_err(|e| fragment.run_error(&e))?;
    Ok(())
}

/// `render --engine vulkan`: the fragment shader translated to SPIR-V and
/// drawn over the whole target on the Vulkan device. Linear filtering and sRGB decoding are
/// done the device's way here (a picture, not a comparison: the device's
/// texel weights have fewer bits than the machine's, `docs/spirv.md`).
fn draw_quad_on_vulkan(
    fragment: &StageShader,
    draw: &Draw,
    res: &mut Resources,
    targets: &mut [Texture],
) -> Result<()> {
    let mut device = super::open_vulkan_device()?;
    device.allow_device_sampling();
    eprintln!(
        "{}: note: drawn on the Vulkan device {}",
        fragment.name,
        device.name()
    );
    let mut q = tgsi::vulkan::QuadDraw {
        fragment: &fragment.shader,
        direct3d: fragment.d3d.is_some(),
        varyings: tgsi::vulkan::QuadDraw::varyings_of(draw),
        targets,
        timeout_ms: 600_000,
    };
    fragment
        .bind(res, |r| device.draw_quad(&mut q, r))
        .map_err(|e| anyhow!("{}: {e}", fragment.name))
}

/// `render --engine vulkan` of a mesh: its triangles (patches of three
/// control points with tessellation) through every stage on the device.
struct MeshOnDevice<'a> {
    stages: &'a Stages,
    rows: &'a [Vec<[u32; 4]>],
    indices: &'a [u32],
    state: &'a tgsi::pipeline::RenderState,
}

impl MeshOnDevice<'_> {
    fn run(
        &self,
        res: &mut Resources,
        targets: &mut [Texture],
        depth: Option<&mut DepthTarget>,
    ) -> Result<()> {
        let stage = |p| self.stages.get(p);
        let (Some(vs), Some(fs)) = (stage(Processor::Vertex), stage(Processor::Fragment)) else {
            bail!("a mesh draw needs a vertex and a fragment shader");
        };
        let mut device = super::open_vulkan_device()?;
        device.allow_device_sampling();
        eprintln!(
            "note: the mesh is drawn on the Vulkan device {}",
            device.name()
        );
        let tessellation = match (stage(Processor::TessCtrl), stage(Processor::TessEval)) {
            (Some(c), Some(e)) => Some(tgsi::vulkan::TessStages {
                control: &c.shader,
                eval: &e.shader,
                direct3d: c.d3d.is_some(),
                settings: c
                    .d3d
                    .as_ref()
                    .and_then(tgsi::pipeline::StageInterface::tessellator_settings)
                    .and_then(Result::ok),
                patch_vertices: 3,
            }),
            _ => None,
        };
        let gs = stage(Processor::Geometry);
        let mut request = tgsi::vulkan::DrawRequest {
            vertex: &vs.shader,
            geometry: gs.map(|g| (&g.shader, g.d3d.is_some())),
            fragment: &fs.shader,
            direct3d: (vs.d3d.is_some(), fs.d3d.is_some()),
            rows: self.rows,
            topology: tgsi::pipeline::BasicTopology::TriangleList,
            tessellation,
            count: self.indices.len() as u32,
            instances: 1,
            indices: Some(self.indices),
            state: self.state,
            targets,
            depth,
            timeout_ms: 600_000,
        };
        // every stage's registers where it reads them, then the draw
        let bound: Vec<&StageShader> = self.stages.stages.iter().map(|(_, s)| s).collect();
        bind_all(&bound, res, &mut |r| device.draw(&mut request, r))
            .map_err(|e| anyhow!("mesh draw on Vulkan: {e}"))
    }
}

/// Runs `f` with `res` bound where every shader of `shaders` reads it.
fn bind_all<T>(
    shaders: &[&StageShader],
    res: &mut Resources,
    f: &mut dyn FnMut(&mut Resources) -> T,
) -> T {
    match shaders.split_first() {
        Some((first, rest)) => first.bind(res, |r| bind_all(rest, r, f)),
        None => f(res),
    }
}

/// Writes the PNG to a file, or to standard output for `-`.
fn write_png(path: &Path, img: &Rgba8Image) -> Result<()> {
    if path == Path::new("-") {
        let bytes = encode_png(img).map_err(|e| anyhow!("{e}"))?;
        return write_bytes(path, &bytes);
    }
    save_png(path, img).map_err(|e| anyhow!("{e}"))
}
