//! `tgsi debug`: follows one invocation (a compute thread, a vertex, a
//! pixel's fragment, a primitive's geometry or tessellation invocation)
//! through its program, in the program's own language. The job runs as
//! `tgsi run` or `tgsi render` would run it (or as the N-th dispatch or draw
//! of a `.shader_test` file), on one thread, with the chosen stage in the
//! interpreter and a recorder on the chosen lane ([`tgsi::debug`]). The
//! trace prints as JSON Lines (`--json`), opens in the terminal view
//! ([`super::debug_view`]), or answers commands read from standard input.

use super::debug_view::Session;
use super::input::{RunnableShader, display_name, read_bytes, read_data_file};
use super::render::{RenderArgs, draw_stages, shader_files};
use super::render_mesh::{self as mesh, Stages};
use super::run::{RunArgs, execute, parse_three};
use anyhow::{Context, Result, anyhow, bail};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use tgsi::debug::{Selector, Source, Trace, Tracer};
use tgsi::enums::Processor;
use tgsi::exec::Limits;
use tgsi::pipeline::{CullMode, FrontFace};
use tgsi::shader_test::{RunConfig, Stage, TraceRequest};

/// `--stage` values: the stage `--primitive` follows.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum StageArg {
    Geometry,
    TessCtrl,
    TessEval,
}

#[derive(clap::Args)]
pub struct DebugArgs {
    /// The shader (TGSI text or tokens, SM4/SM5 assembly or DXBC) run as
    /// `tgsi run` (compute, vertex) or `tgsi render` (fragment) runs it, or
    /// a `.shader_test` file with --test N
    pub file: PathBuf,
    /// `.shader_test`: follow the N-th dispatch or draw command of the file
    /// (`dispatch`, `run vertices`, `draw quad`, `draw arrays`, `draw
    /// indexed`, counted from 1)
    #[arg(long, value_name = "N")]
    pub test: Option<usize>,
    /// Compute: the thread with this local id (in the work group --group)
    #[arg(long, value_name = "X,Y,Z")]
    pub thread: Option<String>,
    /// Compute: the work group of --thread
    #[arg(long, value_name = "X,Y,Z", default_value = "0,0,0")]
    pub group: String,
    /// Vertex: the invocation for vertex N (its VERTEXID). Given a file
    /// instead of a number: the vertex shader of a mesh draw, as in `tgsi
    /// render --vertex`
    #[arg(long = "vertex", value_name = "N|SHADER")]
    pub vertex: Vec<String>,
    /// Vertex: the instance of --vertex
    #[arg(long, default_value_t = 0)]
    pub instance: u32,
    /// Fragment: the fragment at this pixel of the last primitive that
    /// covered it (--primitive picks another)
    #[arg(long, value_name = "X,Y")]
    pub pixel: Option<String>,
    /// Fragment: the sample of --pixel
    #[arg(long, default_value_t = 0)]
    pub sample: u32,
    /// Geometry, tess-control, tess-eval: the invocation for primitive
    /// (patch) P; with --pixel, the primitive whose fragment to follow
    #[arg(long, value_name = "P")]
    pub primitive: Option<u32>,
    /// Geometry and tess-control: the invocation of --primitive
    #[arg(long, default_value_t = 0)]
    pub invocation: u32,
    /// Tess-eval: the domain point of --primitive
    #[arg(long, value_name = "U,V[,W]")]
    pub domain: Option<String>,
    /// The stage --primitive follows (default: tess-eval with --domain,
    /// else geometry when there is one, else tess-ctrl)
    #[arg(long, value_enum)]
    pub stage: Option<StageArg>,
    /// Print the trace as JSON Lines (the trace contract)
    #[arg(long)]
    pub json: bool,
    /// With --pixel: list every fragment that reached the pixel in draw
    /// order (for a .shader_test file, over its commands 1 to --test N):
    /// primitive, sample, depth/stencil test, the shader's outputs, the
    /// colours before and after, or why it was discarded
    #[arg(long, requires = "pixel")]
    pub history: bool,
    /// Instruction budget per 16-lane batch
    #[arg(long, default_value_t = Limits::default().max_instructions)]
    pub budget: u64,
    /// Instruction budget of a whole compute dispatch: the instructions of
    /// all its 16-lane batches summed
    #[arg(long, default_value_t = Limits::default().max_dispatch_instructions)]
    pub dispatch_budget: u64,
    /// Instruction budget of a whole draw: the instructions of all its
    /// 16-lane batches, every stage, summed
    #[arg(long, default_value_t = Limits::default().max_draw_instructions)]
    pub draw_budget: u64,

    /// `tgsi run`'s inputs (`--const` and `--data` also feed `tgsi render`'s draws)
    #[command(flatten)]
    pub run: super::run::RunInputs,

    // ---- `tgsi render`'s inputs ----------------------------------------------
    /// Render target size
    #[arg(long, default_value = "512x512", value_name = "WxH")]
    pub size: String,
    /// OBJ mesh to draw with the --vertex shader (as `tgsi render --mesh`)
    #[arg(long, value_name = "FILE.obj")]
    pub mesh: Option<PathBuf>,
    /// Mesh draws: geometry shader
    #[arg(long, value_name = "SHADER")]
    pub geometry: Option<PathBuf>,
    /// Mesh draws: tess-control (hull) shader
    #[arg(long = "tess-ctrl", value_name = "SHADER")]
    pub tess_ctrl: Option<PathBuf>,
    /// Mesh draws: tess-eval (domain) shader
    #[arg(long = "tess-eval", value_name = "SHADER")]
    pub tess_eval: Option<PathBuf>,
    /// Mesh draws: depth target format (test `less` with writes)
    #[arg(long, value_name = "d32f|d24s8|d16", value_parser = mesh::depth_format)]
    pub depth: Option<tgsi::pipeline::DepthFormat>,
    /// Mesh draws: culled faces
    #[arg(long, value_name = "none|front|back", default_value = "none", value_parser = super::render::cull_mode)]
    pub cull: CullMode,
    /// Mesh draws: winding of front faces
    #[arg(long, value_name = "cw|ccw", default_value = "cw", value_parser = super::render::front_face)]
    pub front: FrontFace,
    /// Mesh draws: samples per pixel
    #[arg(long, value_name = "N", default_value = "1", value_parser = mesh::sample_count)]
    pub samples: u32,
    /// Clear colour R,G,B[,A]
    #[arg(long, value_name = "R,G,B,A", default_value = "0,0,0,0", value_parser = mesh::parse_clear)]
    pub clear: [f32; 4],
    /// Texture `N=FILE.png[:srgb][:mips]` (as `tgsi render`)
    #[arg(long = "texture", value_name = "N=FILE.png[:srgb][:mips]")]
    pub textures: Vec<String>,
    /// Sampler `N=ITEM,...` (as `tgsi render`)
    #[arg(long = "sampler", value_name = "N=ITEM,...")]
    pub samplers: Vec<String>,
    /// Render into an sRGB target
    #[arg(long)]
    pub srgb: bool,
}

/// Which stage a selector follows; `None` for `--primitive` alone
/// (geometry or tess-control, told by what the job has).
fn selector(args: &DebugArgs) -> Result<(Selector, Option<Processor>)> {
    // a --vertex that is no number names the vertex shader of a mesh draw
    if let Some(v) =
        (args.vertex.iter()).find(|v| v.trim().parse::<u32>().is_err() && !Path::new(v).exists())
    {
        bail!("--vertex `{v}`: neither a vertex number nor a vertex shader file that exists");
    }
    let vertex: Vec<u32> = args
        .vertex
        .iter()
        .filter_map(|v| v.trim().parse::<u32>().ok())
        .collect();
    let given = [
        args.thread.is_some(),
        !vertex.is_empty(),
        args.pixel.is_some(),
        args.primitive.is_some() && args.pixel.is_none(),
    ];
    match given.iter().filter(|g| **g).count() {
        0 => bail!(
            "tell which invocation to follow: --thread X,Y,Z, --vertex N, --pixel X,Y or --primitive P"
        ),
        1 => {}
        _ => bail!("give one selector: --thread, --vertex, --pixel or --primitive"),
    }
    if vertex.len() > 1 {
        bail!("--vertex: give one vertex number");
    }
    if let Some(t) = &args.thread {
        let thread = parse_three(t, "--thread")?;
        let group = parse_three(&args.group, "--group")?;
        return Ok((Selector::Thread { group, thread }, Some(Processor::Compute)));
    }
    if let Some(&v) = vertex.first() {
        let s = Selector::Vertex {
            vertex: v,
            instance: args.instance,
        };
        return Ok((s, Some(Processor::Vertex)));
    }
    if let Some(p) = &args.pixel {
        let xy: Vec<u32> = p
            .split(',')
            .map(|s| s.trim().parse())
            .collect::<Result<_, _>>()
            .map_err(|_| anyhow!("--pixel `{p}`: expected X,Y"))?;
        let [x, y] = xy[..] else {
            bail!("--pixel `{p}`: expected two numbers X,Y")
        };
        if !is_test_file(args) {
            if args.sample >= args.samples {
                bail!(
                    "--sample {}: the target has {} sample(s) per pixel (--samples), numbered from 0",
                    args.sample,
                    args.samples
                );
            }
            let (width, height) = super::render_args::parse_size(&args.size)?;
            if x >= width || y >= height {
                bail!("--pixel `{p}`: outside the {width}x{height} target (--size)");
            }
        }
        let s = Selector::Pixel {
            x,
            y,
            sample: args.sample,
            primitive: args.primitive,
        };
        return Ok((s, Some(Processor::Fragment)));
    }
    let primitive = args.primitive.unwrap_or(0);
    if let Some(d) = &args.domain {
        let v: Vec<f32> = d
            .split(',')
            .map(|s| s.trim().parse())
            .collect::<Result<_, _>>()
            .map_err(|_| anyhow!("--domain `{d}`: expected U,V[,W]"))?;
        let (coord, w) = match v[..] {
            [u, v] => ([u, v], None),
            [u, v, w] => ([u, v], Some(w)),
            _ => bail!("--domain `{d}`: expected two or three numbers U,V[,W]"),
        };
        return Ok((
            Selector::Domain {
                primitive,
                coord,
                w,
            },
            Some(Processor::TessEval),
        ));
    }
    let stage = args.stage.map(|s| match s {
        StageArg::Geometry => Processor::Geometry,
        StageArg::TessCtrl => Processor::TessCtrl,
        StageArg::TessEval => Processor::TessEval,
    });
    if stage == Some(Processor::TessEval) {
        bail!("--stage tess-eval needs --domain U,V[,W] to pick the invocation");
    }
    let s = Selector::Primitive {
        primitive,
        invocation: args.invocation,
    };
    Ok((s, stage))
}

pub fn debug(args: &DebugArgs) -> Result<ExitCode> {
    if let (Some(n), false) = (args.test, is_test_file(args)) {
        bail!(
            "--test {n}: picks a command of a .shader_test file; {} is a shader",
            args.file.display()
        );
    }
    let (selector, stage) = selector(args)?;
    if args.history {
        return super::debug_history::history(args, selector);
    }
    let is_test = is_test_file(args);
    let trace = if is_test {
        trace_test(args, selector, stage)?
    } else {
        trace_shader(args, selector, stage)?
    };
    let Some(trace) = trace else {
        return Ok(ExitCode::from(1));
    };
    let stdout = std::io::stdout();
    if args.json {
        let mut out = std::io::BufWriter::new(stdout.lock());
        let shown = tgsi::debug::write_json(&trace, &mut out).and_then(|_| out.flush());
        return quiet_pipe(shown);
    }
    let mut session = Session::new(trace);
    if matches!(selector, Selector::Thread { .. }) {
        // the work group's other threads, on demand (`thread X,Y,Z`)
        session.retrace = Some(Box::new(move |sel| {
            let t = if is_test {
                trace_test(args, sel, stage)
            } else {
                trace_shader(args, sel, stage)
            };
            match t {
                Ok(Some(t)) => Ok(t),
                Ok(None) => Err("the shader did not load".into()),
                Err(e) => Err(format!("{e:#}")),
            }
        }));
    }
    if stdout.is_terminal() && std::io::stdin().is_terminal() {
        return super::debug_view::interactive(session).map(|_| ExitCode::SUCCESS);
    }
    let stdin = std::io::stdin();
    quiet_pipe(super::debug_view::commands(
        session,
        &mut stdin.lock(),
        &mut stdout.lock(),
    ))
}

/// Success, also when the reader stopped early (`| head`).
fn quiet_pipe(shown: std::io::Result<()>) -> Result<ExitCode> {
    match shown {
        // a reader that stops early (`| head`) is not an error
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        r => r.map(|_| ExitCode::SUCCESS).map_err(Into::into),
    }
}

/// True for a `.shader_test` file.
pub(super) fn is_test_file(args: &DebugArgs) -> bool {
    args.file.extension().is_some_and(|e| e == "shader_test")
}

/// The job's `tgsi run` arguments.
fn run_args(args: &DebugArgs) -> RunArgs {
    RunArgs {
        shader: args.file.clone(),
        io: args.run.clone(),
        json: false,
        threads: 1,
        budget: args.budget,
        dispatch_budget: args.dispatch_budget,
    }
}

/// The job's `tgsi render` arguments.
pub(super) fn render_args(args: &DebugArgs) -> RenderArgs {
    let vertex = args
        .vertex
        .iter()
        .find(|v| v.trim().parse::<u32>().is_err())
        .map(PathBuf::from);
    RenderArgs {
        shader: args.file.clone(),
        output: PathBuf::from("-"),
        vertex,
        mesh: args.mesh.clone(),
        geometry: args.geometry.clone(),
        tess_ctrl: args.tess_ctrl.clone(),
        tess_eval: args.tess_eval.clone(),
        depth: args.depth,
        cull: args.cull,
        front: args.front,
        samples: args.samples,
        clear: args.clear,
        size: args.size.clone(),
        textures: args.textures.clone(),
        samplers: args.samplers.clone(),
        constants: args.run.constants.clone(),
        data: args.run.data.clone(),
        srgb: args.srgb,
        threads: Some(1),
        budget: args.budget,
        draw_budget: args.draw_budget,
        quiet: true,
    }
}

/// Reads a shader to debug; `None` once its errors are printed.
fn load_source(path: &Path) -> Result<Option<Source>> {
    let bytes = read_bytes(path)?;
    let name = display_name(path);
    match Source::from_bytes(&name, &bytes) {
        Ok(s) => Ok(Some(s)),
        Err(e) => {
            eprint!("{e}");
            if !e.ends_with('\n') {
                eprintln!();
            }
            Ok(None)
        }
    }
}

/// The trace of `tracer`'s record, or the error of a run that found nothing.
fn finish(
    source: &Source,
    tracer: &Tracer,
    selector: Selector,
    ran: Result<()>,
) -> Result<Option<Trace>> {
    match tracer.take() {
        Some(rec) => Ok(Some(source.trace(rec, selector))),
        None => {
            ran?;
            bail!("{}: {}", source.name, tgsi::debug::not_found(selector))
        }
    }
}

/// A shader file run as `tgsi run` or drawn as `tgsi render` draws.
fn trace_shader(
    args: &DebugArgs,
    selector: Selector,
    stage: Option<Processor>,
) -> Result<Option<Trace>> {
    let Some(primary) = load_source(&args.file)? else {
        return Ok(None);
    };
    let processor = primary.shader().processor;
    let runnable = matches!(processor, Processor::Compute | Processor::Vertex);
    if runnable && args.mesh.is_none() {
        if stage != Some(processor) {
            bail!(
                "{}: this is a {processor} shader; the selector follows a {} invocation",
                primary.name,
                stage.map_or("geometry or tess-control".to_string(), |s| s.to_string())
            );
        }
        let tracer = Arc::new(Tracer::new(selector));
        let program = primary
            .program(&tracer)
            .map_err(|e| anyhow!("{}: {e}", primary.name))?;
        if let Selector::Thread { group, thread } = selector {
            // a thread outside the block or the dispatch: say so before running
            let groups = parse_three(&args.run.groups, "--groups")?;
            let block = program.block_size();
            let inside = |v: [u32; 3], n: [u32; 3]| v.iter().zip(n).all(|(a, b)| *a < b.max(1));
            if !inside(thread, block) || !inside(group, groups) {
                bail!("{}: {}", primary.name, tgsi::debug::not_found(selector));
            }
        }
        let loaded = RunnableShader {
            name: primary.name.clone(),
            shader: primary.shader().clone(),
            d3d: primary.d3d().cloned(),
            source: None,
        };
        let ran = execute(&run_args(args), &loaded, &program).map(|_| ());
        return finish(&primary, &tracer, selector, ran);
    }
    let tracer = Arc::new(Tracer::new(selector));
    let Some((source, ran)) = run_draw(args, stage, &tracer)? else {
        return Ok(None);
    };
    finish(&source, &tracer, selector, ran)
}

/// Draws as `tgsi render` would, on one thread, with the shader of
/// `stage` (`None`: geometry when there is one, else tess-ctrl) compiled
/// for the interpreter with `tracer` attached. That shader's source and
/// how the draw went; `None` once a file's errors are printed.
pub(super) fn run_draw(
    args: &DebugArgs,
    stage: Option<Processor>,
    tracer: &Arc<Tracer>,
) -> Result<Option<(Source, Result<()>)>> {
    let render = render_args(args);
    let Some(mut stages) = Stages::load(&shader_files(&render))? else {
        return Ok(None);
    };
    let stage = match stage {
        Some(s) => s,
        None if stages.get(Processor::Geometry).is_some() => Processor::Geometry,
        None => Processor::TessCtrl,
    };
    let path = traced_file(&render, stage)?;
    let Some(source) = load_source(&path)? else {
        return Ok(None);
    };
    let program = source
        .program(tracer)
        .map_err(|e| anyhow!("{}: {e}", source.name))?;
    let slot = stages
        .stages
        .iter_mut()
        .find(|(p, _)| *p == stage)
        .ok_or_else(|| anyhow!("the draw has no {stage} shader"))?;
    slot.1.program = program;
    let ran = draw_stages(&render, &stages, 1).map(|_| ());
    Ok(Some((source, ran)))
}

/// The file of the stage a selector follows in a draw.
fn traced_file(render: &RenderArgs, stage: Processor) -> Result<PathBuf> {
    let (file, option) = match stage {
        Processor::Fragment => (Some(&render.shader), "the shader"),
        Processor::Vertex => (render.vertex.as_ref(), "--vertex SHADER (with --mesh)"),
        Processor::Geometry => (render.geometry.as_ref(), "--geometry SHADER"),
        Processor::TessCtrl => (render.tess_ctrl.as_ref(), "--tess-ctrl SHADER"),
        Processor::TessEval => (render.tess_eval.as_ref(), "--tess-eval SHADER"),
        Processor::Compute => (None, "a compute shader run without --mesh"),
    };
    file.cloned().ok_or_else(|| {
        anyhow!("the selector follows a {stage} invocation: the draw needs {option}")
    })
}

fn stage_of(p: Processor) -> Stage {
    match p {
        Processor::Vertex => Stage::Vertex,
        Processor::Fragment => Stage::Fragment,
        Processor::Geometry => Stage::Geometry,
        Processor::TessCtrl => Stage::TessControl,
        Processor::TessEval => Stage::TessEval,
        Processor::Compute => Stage::Compute,
    }
}

/// `--test N`, which a `.shader_test` file needs.
pub(super) fn test_number(args: &DebugArgs, name: &str) -> Result<usize> {
    args.test.ok_or_else(|| {
        anyhow!("{name}: a .shader_test file needs --test N (its N-th dispatch or draw command)")
    })
}

/// The N-th dispatch or draw of a `.shader_test` file.
fn trace_test(
    args: &DebugArgs,
    selector: Selector,
    stage: Option<Processor>,
) -> Result<Option<Trace>> {
    let (name, file) = read_data_file(&args.file)?;
    let n = test_number(args, &name)?;
    let has = |st: Stage| {
        file.sections
            .iter()
            .any(|(_, s)| matches!(s, tgsi::shader_test::Section::Shader(sh) if sh.stage == st))
    };
    let stage = match stage {
        Some(s) => stage_of(s),
        None if has(Stage::Geometry) => Stage::Geometry,
        None => Stage::TessControl,
    };
    let tracer = Arc::new(Tracer::new(selector));
    let request = TraceRequest::new(n, stage, tracer.clone());
    let (source, ran, line) = run_test(args, request)?;
    finish(&source, &tracer, selector, ran)
        .with_context(|| format!("{name}:{line}: the command of --test {n}"))
}

/// Runs a `.shader_test` file with `request`: the source of the shader the
/// request's command ran, how the run went, and the command's line.
pub(super) fn run_test(
    args: &DebugArgs,
    request: TraceRequest,
) -> Result<(Source, Result<()>, usize)> {
    let (name, file) = read_data_file(&args.file)?;
    let n = request.command;
    if n == 0 {
        bail!("{name}: --test 0: commands are counted from 1");
    }
    let request = Arc::new(request);
    let config = RunConfig {
        limits: Limits {
            threads: 1,
            max_instructions: args.budget,
            max_dispatch_instructions: args.dispatch_budget,
            max_draw_instructions: args.draw_budget,
            ..Limits::default()
        },
        verbose: false,
        trace: Some(request.clone()),
        vulkan: None,
    };
    let report = tgsi::shader_test::run_file(&file, &config);
    let found = request
        .found
        .lock()
        .map_err(|_| anyhow!("the run's record is poisoned"))?
        .take();
    let Some((section, line)) = found else {
        let not_run = request
            .not_run
            .lock()
            .map_err(|_| anyhow!("the run's record is poisoned"))?
            .take();
        if let Some((line, why)) = not_run {
            bail!("{name}:{line}: --test {n}: the command did not run: {why}");
        }
        if request.commands_seen() < n {
            bail!(
                "{name}: --test {n}: the file has {} dispatch or draw command(s)",
                request.commands_seen()
            );
        }
        bail!(
            "{name}: --test {n}: no [{} shader] is set for that command",
            request.stage.name()
        );
    };
    let source = section_source(&name, &file.source, &section)?;
    let failures: Vec<String> = report
        .results
        .iter()
        .filter_map(|r| match &r.outcome {
            tgsi::shader_test::Outcome::Failed(m) => Some(m.join("\n")),
            _ => None,
        })
        .collect();
    let ran = if failures.is_empty() {
        Ok(())
    } else {
        Err(anyhow!("{}", failures.join("\n")))
    };
    Ok((source, ran, line))
}

/// The shader of a `.shader_test` section, its lines counted in the file.
fn section_source(
    name: &str,
    file_text: &str,
    section: &tgsi::shader_test::ShaderSection,
) -> Result<Source> {
    use tgsi::shader_test::ShaderLanguage;
    let offset = tgsi::diag::line_col(file_text, section.body_offset).0 as u32 - 1;
    let body = &section.body;
    let source = match section.language {
        ShaderLanguage::DxbcTpfHex => {
            let words = tgsi::shader_test::d3d::parse_hex(body).map_err(|(line, column, e)| {
                anyhow!("{name}:{}:{column}: {e}", offset as usize + line)
            })?;
            Source::from_dxbc(name, &words.bytes)
        }
        _ if tgsi::shader_test::d3d::is_assembly(body) => {
            Source::from_d3d_assembly(name, body, offset)
        }
        _ => Source::from_tgsi_text(name, body, offset),
    };
    source.map_err(|e| anyhow!("{e}"))
}
