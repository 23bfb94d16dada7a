//! `tgsi render`: runs a fragment shader over every pixel of a render target
//! (the `draw quad` inputs of `.shader_test`: GENERIC[0] = (u, v, 0, 1) at
//! the pixel centre, POSITION = window coordinates) and writes the target as
//! an 8-bit RGBA PNG. Textures come from PNG files, samplers from
//! `--sampler` strings (see [`super::render_args`]), constants from
//! `--const`. The shader may be TGSI text, SM4/SM5 assembly or a DXBC blob:
//! a Direct3D pixel shader is lowered to TGSI, `--const N` is cbN,
//! `--texture N` tN and `--sampler N` sN, its first TEXCOORD input gets
//! (u, v, 0, 1) and SV_Target0 goes to the image.

use super::input::{load_runnable, read_data_file, write_bytes};
use super::render_args::{SAMPLER_HELP, TextureSpec, parse_sampler, parse_size, parse_texture};
use anyhow::{Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tgsi::enums::{Processor, TextureTarget};
use tgsi::exec::{Draw, Limits, Program, Resources};
use tgsi::image_io::{
    Rgba8Image, encode_png, load_png, save_png, target_to_image, texture_from_image,
};
use tgsi::shader_test::{Section, sampler_from_section, texture_from_section};
use tgsi::texture::{Format, Sampler, Texture};

#[derive(clap::Args)]
pub struct RenderArgs {
    /// Fragment shader (TGSI text, SM4/SM5 assembly or a DXBC blob; `-` for
    /// standard input); it writes COLOR[0] (Direct3D: SV_Target0)
    pub shader: PathBuf,
    /// Output PNG file (8-bit RGBA; `-` writes standard output)
    #[arg(short, long)]
    pub output: PathBuf,
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
    /// Worker threads (default: one per core)
    #[arg(long)]
    pub threads: Option<usize>,
    /// Instruction budget per 16-lane batch
    #[arg(long, default_value_t = Limits::default().max_instructions)]
    pub budget: u64,
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

pub fn render(args: &RenderArgs) -> Result<ExitCode> {
    let (width, height) = parse_size(&args.size)?;
    let Some(loaded) = load_runnable(&args.shader)? else {
        return Ok(ExitCode::from(1));
    };
    let (name, shader) = (&loaded.name, &loaded.shader);
    if shader.processor != Processor::Fragment {
        bail!(
            "{name}: `tgsi render` runs fragment (pixel) shaders; this is a {} shader",
            shader.processor
        );
    }
    let numerics = if loaded.d3d.is_some() {
        tgsi::exec::Numerics::Direct3D
    } else {
        tgsi::exec::Numerics::Ieee
    };
    let program = Program::compile_with(shader, numerics).map_err(|e| anyhow!("{name}: {e}"))?;
    super::engine_note(name, &program);
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
    for spec in &args.textures {
        let spec = parse_texture(spec)?;
        let tex = load_texture(&spec)?;
        *slot(&mut res.textures, spec.index, None) = Some(tex);
    }
    for spec in &args.samplers {
        let s = parse_sampler(spec)?;
        let index = s.index as usize;
        *slot(&mut res.samplers, index, Sampler::default()) = sampler_from_section(&s);
    }
    let format_name = if args.srgb { "rgba8_srgb" } else { "rgba32f" };
    let format = Format::from_short_name(format_name)
        .ok_or_else(|| anyhow!("no render target format `{format_name}`"))?;
    let target = Texture::new(TextureTarget::Tex2D, format, [width, height, 1], 1, 1, 1)
        .map_err(|e| anyhow!("render target {width}x{height}: {e}"))?;
    let mut targets = vec![target];
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let limits = Limits {
        threads: threads.max(1),
        max_instructions: args.budget,
        ..Limits::default()
    };
    let draw = match &loaded.d3d {
        Some(d) => d.quad(width, height),
        None => Draw::full_quad(width, height),
    };
    let progress = Progress::new(u64::from(height), args.quiet);
    let mut run = |res: &mut Resources| {
        program.draw_with_progress(res, &draw, &mut targets, &limits, &|done, _| {
            progress.update(u64::from(done))
        })
    };
    let result = match &loaded.d3d {
        Some(d) => d.bind(&mut res, run),
        None => run(&mut res),
    };
    progress.finish();
    result.map_err(|e| anyhow!("{name}: {e}"))?;
    let img = target_to_image(&targets[0]).map_err(|e| anyhow!("{e}"))?;
    write_png(&args.output, &img)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the PNG to a file, or to standard output for `-`.
fn write_png(path: &Path, img: &Rgba8Image) -> Result<()> {
    if path == Path::new("-") {
        let bytes = encode_png(img).map_err(|e| anyhow!("{e}"))?;
        return write_bytes(path, &bytes);
    }
    save_png(path, img).map_err(|e| anyhow!("{e}"))
}
