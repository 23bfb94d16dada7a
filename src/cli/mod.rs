//! Command-line definitions (clap) and dispatch to the verbs.

mod bench;
mod d3dverbs;
mod debug;
mod debug_history;
mod debug_view;
mod input;
mod render;
mod render_args;
mod render_mesh;
mod run;
mod textverbs;
mod translate;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "tgsi",
    version,
    about = "Gallium TGSI as real software: assemble, validate, format, encode, decode, run and test shaders"
)]
struct Cli {
    #[command(subcommand)]
    verb: Verb,
    /// Which engine runs shaders (run, test, render, bench): the compiled
    /// AVX-512 engine where it can run (`auto`), it alone with the
    /// interpreter for what it does not compile (`jit`), or the interpreter
    /// (`interp`). Default: the environment variable TGSI_ENGINE, else auto
    #[arg(long, global = true, value_enum)]
    engine: Option<EngineArg>,
    /// The Vulkan device of `--engine vulkan`, `bench --vulkan` and `fuzz
    /// --vulkan`: its number in the loader's list or a part of its name.
    /// Default: the environment variable TGSI_VULKAN_DEVICE, else the
    /// first device
    #[arg(long, global = true, value_name = "N|NAME")]
    device: Option<String>,
}

/// `--engine` values (the names of [`tgsi::jit::Engine::ALL`]).
#[derive(Clone, Copy, Debug, ValueEnum)]
enum EngineArg {
    Auto,
    Jit,
    Interp,
    /// The shader translated to SPIR-V and run on a Vulkan device
    /// (`tgsi run` of compute and vertex shaders, `tgsi render` of quads
    /// and meshes, and `tgsi test`: dispatches and draws; `--device` picks
    /// the device)
    Vulkan,
}

/// `--engine vulkan` (or `TGSI_ENGINE=vulkan`) was asked for.
static VULKAN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `--device`, when given.
static DEVICE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Opens the Vulkan device `--device` names (else `TGSI_VULKAN_DEVICE`,
/// else the first one).
pub(crate) fn open_vulkan_device() -> anyhow::Result<tgsi::vulkan::Device> {
    let want = DEVICE
        .get()
        .cloned()
        .or_else(|| std::env::var("TGSI_VULKAN_DEVICE").ok());
    tgsi::vulkan::Device::open(want.as_deref()).map_err(|e| anyhow::anyhow!("{e}"))
}

/// True when shaders run on a Vulkan device (`--engine vulkan`, `TGSI_ENGINE=vulkan`).
pub(crate) fn vulkan_engine() -> bool {
    VULKAN.load(std::sync::atomic::Ordering::Relaxed)
        || std::env::var("TGSI_ENGINE").is_ok_and(|v| v.eq_ignore_ascii_case("vulkan"))
}

/// Processor-token numbering of the binary format.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum Numbering {
    /// Mesa 22.3 and newer (MESA_SHADER_* order: VERT 0, TESS_CTRL 1, TESS_EVAL 2, GEOM 3, FRAG 4, COMP 5)
    #[default]
    Mesa22,
    /// Mesa 21 and older (PIPE_SHADER_* order: VERT 0, FRAG 1, GEOM 2, TESS_CTRL 3, TESS_EVAL 4, COMP 5)
    Mesa21,
}

impl From<Numbering> for tgsi::enums::ProcessorNumbering {
    fn from(n: Numbering) -> Self {
        match n {
            Numbering::Mesa22 => tgsi::enums::ProcessorNumbering::Mesa22,
            Numbering::Mesa21 => tgsi::enums::ProcessorNumbering::Mesa21,
        }
    }
}

#[derive(Subcommand)]
enum Verb {
    /// Assemble or decode shaders and validate them (TGSI, SM4/SM5 assembly, DXBC)
    ///
    /// Each file's format is told from its contents: the `DXBC` magic is a
    /// Direct3D blob, a first line such as `ps_5_0` (after `//` comments) is
    /// SM4/SM5 assembly as fxc prints it (vkd3d's spellings accepted), anything
    /// else TGSI text; `--from` forces one. Exit status 0 when every file is
    /// valid, 1 when any is not. Every error goes to stderr: file, line, column
    /// and the offending line for text, the byte offset for binary input. A
    /// DXBC blob is checked whole: its checksum, every chunk fxc's listing
    /// shows, and every program (library functions and an effect's shaders
    /// included), decoded and validated.
    Check {
        /// Shader files (`-` reads standard input)
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Read every file as this format instead of telling it from its contents
        #[arg(long, value_enum)]
        from: Option<input::Format>,
    },
    /// Print a shader's text in its canonical form (TGSI or SM4/SM5 assembly)
    ///
    /// TGSI prints in the `tgsi_dump` layout, losslessly (floats whose
    /// `%10.4f` form would lose bits print as hex bit patterns). SM4/SM5
    /// assembly prints each program in fxc 10.1's spelling with lossless float
    /// immediates (`0.33333334` where fxc's `%f` would print `0.333333`), the
    /// `//` comments around the programs kept as they are.
    Fmt {
        /// TGSI or SM assembly text file (`-` reads standard input)
        file: PathBuf,
        /// Print nothing; exit 1 when the file is not already canonical
        #[arg(long, conflicts_with = "output")]
        check: bool,
        /// Write the canonical text to this file instead of standard output
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Read the file as this format (`tgsi` or `sm-asm`) instead of telling it from its contents
        #[arg(long, value_enum)]
        from: Option<input::Format>,
    },
    /// Assemble TGSI text to tokens, or SM4/SM5 assembly to a DXBC container
    ///
    /// TGSI text becomes Mesa's binary `tgsi_token` stream (little-endian
    /// 32-bit words). SM4/SM5 assembly (fxc's listing, or vkd3d's spellings)
    /// is validated and becomes a DXBC container: the SHDR/SHEX program chunk,
    /// the signature chunks from the listing's signature tables (or from the
    /// declarations when it has none), SFI0 for the optional features used, and
    /// a valid checksum. fxc prints floats with `%f`, which loses bits: such a
    /// float assembles to the nearest value of its text.
    /// A library listing becomes LIBH + one LIBF (LFS0 + program) per function; no RDEF, STAT or Aon9.
    Asm {
        /// TGSI or SM assembly text file (`-` reads standard input)
        file: PathBuf,
        /// Output file (`-` writes standard output)
        #[arg(short, long)]
        output: PathBuf,
        /// Processor numbering of the TGSI header token
        #[arg(long, value_enum, default_value_t = Numbering::Mesa22)]
        numbering: Numbering,
        /// Read the file as this format (`tgsi` or `sm-asm`) instead of telling it from its contents
        #[arg(long, value_enum)]
        from: Option<input::Format>,
    },
    /// Decode a binary shader to text: a DXBC blob as fxc's listing, TGSI tokens as TGSI text
    ///
    /// A DXBC blob (`DXBC` magic) prints exactly as fxc lists it: the header
    /// comments (compiler, required features, buffer definitions, resource
    /// bindings, signatures, tessellator notes, interfaces), the level-9 (DX9)
    /// sections, the program and the instruction-slot footer; libraries per
    /// function; effects as the shaders they embed. A checksum mismatch does
    /// not stop the listing (`tgsi check` reports it). Anything else is read
    /// as a `tgsi_token` stream (little-endian 32-bit words) and printed as
    /// canonical TGSI text.
    Dis {
        /// Binary token file or DXBC blob (`-` reads standard input)
        file: PathBuf,
        /// Processor numbering of the TGSI header token
        #[arg(long, value_enum, default_value_t = Numbering::Mesa22)]
        numbering: Numbering,
        /// Write the text to this file instead of standard output
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Read the file as this format (`tokens` or `dxbc`) instead of telling it from its contents
        #[arg(long, value_enum)]
        from: Option<input::Format>,
    },
    /// Summarise a DXBC blob: chunks, checksum, model, flags, signatures, bindings
    ///
    /// Lists the chunks with offsets and sizes, the checksum status, the
    /// shader model and type, global flags and required features (SFI0), the
    /// signatures, resource bindings and constant buffers (RDEF) and the STAT
    /// counters; libraries per function, effects per embedded shader.
    Info {
        /// DXBC blob (`-` reads standard input)
        file: PathBuf,
        /// Print JSON for scripts instead of text
        #[arg(long)]
        json: bool,
    },
    /// Lower Direct3D SM4/SM5 programs to TGSI text (`; <d3d instruction>` comments)
    ///
    /// Every program of a DXBC blob (library functions and an effect's shaders
    /// included) or of an fxc-style assembly listing. Each group of TGSI lines follows a
    /// `; <d3d instruction>` comment naming the instruction it came from;
    /// the text reads back with `tgsi check`. Several programs print one
    /// after the other (each after a `; program K` line), or with `-o OUT`
    /// go to `STEM.K.EXT`. Exit status 1 when any program cannot be lowered.
    Lower {
        /// DXBC blob or SM4/SM5 assembly (`-` reads standard input)
        file: PathBuf,
        /// Write the TGSI text to this file instead of standard output
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Read the file as this format (`dxbc` or `sm-asm`) instead of
        /// telling it from the contents
        #[arg(long, value_enum)]
        from: Option<input::Format>,
    },
    /// Run a compute or vertex shader and print every output and buffer exactly.
    Run(run::RunArgs),
    /// Run `.shader_test` files (or every `.shader_test` under the given
    /// directories) and print `N passed, M failed[, K skipped]`. Exit status 0
    /// only when nothing failed.
    Test {
        /// `.shader_test` files or directories
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Worker threads for each dispatch and draw
        #[arg(long, default_value_t = 1, value_parser = thread_count)]
        threads: usize,
        /// Also print every skipped test with the reason
        #[arg(short, long)]
        verbose: bool,
    },
    /// Render a fragment shader over a full-target quad, or an OBJ mesh with a
    /// vertex and a fragment shader (`--vertex`, `--mesh`), into a PNG file
    /// (textures from PNG files, samplers and constants from the command line).
    Render(render::RenderArgs),
    /// Follow one invocation through its program: a compute thread, a
    /// vertex, a pixel's fragment, a geometry or tessellation invocation
    ///
    /// The job runs as `tgsi run` or `tgsi render` would run it (or as the
    /// N-th dispatch or draw of a `.shader_test` file with --test N), on one
    /// thread; the chosen invocation's stage runs in the interpreter with a
    /// recorder. A Direct3D program is shown in SM4/SM5 terms (its
    /// instructions, lines and registers), never the lowered TGSI. `--json`
    /// prints the trace as JSON Lines (docs/debugging.md); on a terminal a
    /// full-screen view opens (step, step back, breakpoints, run to the
    /// first NaN or infinity, watches); otherwise commands are read from
    /// standard input, one a line (`help` lists them).
    Debug(Box<debug::DebugArgs>),
    /// Translate a shader to SPIR-V for Vulkan (TGSI text or tokens, SM4/SM5 assembly, DXBC)
    ///
    /// Writes a SPIR-V 1.5 module for Vulkan 1.2 (`--to spirv`, the
    /// binary; `--to spirv-asm`, its assembly), or with `--layout` the
    /// descriptor set and binding of every resource the shader uses
    /// (docs/spirv.md). Compute shaders are translated; what the translator
    /// does not write yet is refused with an error naming the instruction.
    Translate(translate::TranslateArgs),
    /// Measure the machine against the peer workloads (see `tgsi bench --help`).
    Bench(bench::BenchArgs),
    /// Differential fuzzing of the compiled engine against the interpreter:
    /// random shaders (ALU, integer, 64-bit, double, conversion, flow
    /// control, memory) on random inputs (NaN, ±inf, -0, denormals), every
    /// output bit compared; with --draws, random draws. Exit status 1 when
    /// any case differs.
    Fuzz {
        /// How long to run, in seconds
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// First case number (cases are numbered seeds; decimal, or hex
        /// with 0x as the findings print them)
        #[arg(long, default_value_t = 1, value_parser = case_number)]
        seed: u64,
        /// Stop after this many cases (0: no limit)
        #[arg(long, default_value_t = 0)]
        cases: u64,
        /// Print the shader of case N (to reproduce a finding) and exit
        #[arg(long, value_name = "N", value_parser = case_number)]
        show: Option<u64>,
        /// Run this shader file with the inputs of case --seed (to reduce a finding)
        #[arg(long, value_name = "PATH", conflicts_with = "show")]
        file: Option<PathBuf>,
        /// Fuzz draws instead: random triangles, render states, targets,
        /// textures and fragment shaders, the interpreter on 1 thread against
        /// the compiled engine on 3 (the interpreter on 3 where the CPU
        /// lacks AVX-512), every byte of the targets compared
        #[arg(long, conflicts_with = "file")]
        draws: bool,
        /// Fuzz the SPIR-V translation instead: random compute shaders of
        /// exact operations translated and run on a Vulkan device
        /// (lavapipe) against the interpreter, every output word compared
        #[arg(long, conflicts_with = "draws")]
        vulkan: bool,
    },
}

/// With `--engine jit` (or `TGSI_ENGINE=jit`), says on stderr when the
/// interpreter runs the shader instead, and why (the opcode or construct).
pub(crate) fn engine_note(name: &str, program: &tgsi::exec::Program) {
    if tgsi::jit::Engine::default_engine() == tgsi::jit::Engine::Jit
        && let Some(why) = program.fallback_reason()
    {
        eprintln!("{name}: note: the interpreter runs this shader: {why}");
    }
}

/// `tgsi fuzz --file`: one shader with the inputs of case `seed`.
fn fuzz_file(path: &std::path::Path, seed: u64, vulkan: bool) -> anyhow::Result<ExitCode> {
    use tgsi_tools::fuzz::Verdict;
    let text = std::fs::read_to_string(path)?;
    let verdict = if vulkan {
        let d = open_vulkan_device()?;
        tgsi_tools::vulkan_fuzz::check_text(&d, &text, seed)
    } else {
        tgsi_tools::fuzz::check_text(&text, seed)
    };
    Ok(match verdict {
        Verdict::Same => {
            println!("identical");
            ExitCode::SUCCESS
        }
        Verdict::NotCompiled(w) => {
            println!("not compiled: {w}");
            ExitCode::SUCCESS
        }
        Verdict::Invalid(why) => {
            println!("invalid shader: {why}");
            ExitCode::from(2)
        }
        Verdict::Differ(d) => {
            let head: Vec<&str> = d.lines().take(4).collect();
            println!("{}", head.join("\n"));
            ExitCode::from(1)
        }
        Verdict::BudgetBound(what) => {
            println!("stopped by one batching only: {what}");
            ExitCode::SUCCESS
        }
    })
}

/// `tgsi fuzz`: runs the differential fuzzer, printing every difference.
fn fuzz(
    seconds: u64,
    seed: u64,
    cases: u64,
    draws: bool,
    vulkan: bool,
) -> anyhow::Result<ExitCode> {
    let device = if vulkan {
        let d = open_vulkan_device()?;
        eprintln!("fuzzing the SPIR-V translation on {}", d.name());
        Some(d)
    } else if tgsi::jit::cpu_supported() {
        None
    } else if draws {
        eprintln!(
            "note: the compiled engine cannot run on this machine (it needs x86-64 with AVX-512): \
             each draw is compared between the interpreter on 1 thread and on 3, and with one \
             tile per batch"
        );
        None
    } else {
        anyhow::bail!("the compiled engine cannot run on this machine (needs x86-64 with AVX-512)");
    };
    let start = std::time::Instant::now();
    let limit = std::time::Duration::from_secs(seconds);
    let mut last_print = std::time::Instant::now();
    let check = |seed: u64| match &device {
        Some(d) => tgsi_tools::vulkan_fuzz::check(d, seed),
        None if draws => tgsi_tools::draw_fuzz::check(seed),
        None => tgsi_tools::fuzz::check(seed),
    };
    let tally = tgsi_tools::fuzz::run(
        seed,
        check,
        |t| {
            let done = t.cases();
            if last_print.elapsed().as_secs() >= 30 {
                last_print = std::time::Instant::now();
                eprintln!(
                    "{:.0} s: {done} cases, {} identical, {} not compiled, {} invalid, {} stopped by one batching only, {} differ",
                    start.elapsed().as_secs_f64(),
                    t.same,
                    t.not_compiled,
                    t.invalid,
                    t.budget_bound,
                    t.differ
                );
            }
            start.elapsed() < limit && (cases == 0 || done < cases)
        },
        |d| println!("{d}"),
    );
    println!(
        "fuzz: {} cases in {:.1} s from seed {seed}: {} identical, {} not compiled (interpreter only), {} invalid (generator), {} stopped at the per-batch instruction budget by one batching only, {} differ",
        tally.cases(),
        start.elapsed().as_secs_f64(),
        tally.same,
        tally.not_compiled,
        tally.invalid,
        tally.budget_bound,
        tally.differ
    );
    Ok(if tally.differ == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A count of threads: a whole number, at least 1.
pub(crate) fn thread_count(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("a thread count is at least 1, found `0`".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "expected a thread count (1, 2, ...), found `{text}`"
        )),
    }
}

/// A fuzzer case number: decimal, or hexadecimal after `0x` (the form
/// the findings print).
fn case_number(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.map_err(|_| format!("expected a case number (42 or 0x2a), found `{text}`"))
}

impl Verb {
    /// The files a verb reads and the one it writes, for the check that
    /// it would not write over what it reads.
    fn reads_and_writes(&self) -> Option<(Vec<&Path>, &Path)> {
        match self {
            Verb::Fmt {
                file,
                output: Some(out),
                ..
            }
            | Verb::Dis {
                file,
                output: Some(out),
                ..
            }
            | Verb::Lower {
                file,
                output: Some(out),
                ..
            }
            | Verb::Asm {
                file, output: out, ..
            } => Some((vec![file.as_path()], out.as_path())),
            Verb::Translate(a) => Some((vec![a.file.as_path()], a.output.as_deref()?)),
            Verb::Render(a) => {
                let mut reads = vec![a.shader.as_path()];
                reads.extend(a.vertex.as_deref());
                reads.extend(a.mesh.as_deref());
                reads.extend(a.geometry.as_deref());
                reads.extend(a.tess_ctrl.as_deref());
                reads.extend(a.tess_eval.as_deref());
                reads.extend(a.data.as_deref());
                Some((reads, a.output.as_path()))
            }
            _ => None,
        }
    }
}

/// The input `output` would overwrite, if it is one of `reads` (standard
/// output overwrites nothing).
fn overwritten<'a>(reads: &[&'a Path], output: &Path) -> Option<&'a Path> {
    if output == Path::new("-") {
        return None;
    }
    let out = std::fs::canonicalize(output).ok()?;
    reads
        .iter()
        .copied()
        .find(|r| std::fs::canonicalize(r).is_ok_and(|r| r == out))
}

/// `TGSI_ENGINE`, when set, names an engine.
fn check_engine_variable() -> Result<(), String> {
    match std::env::var("TGSI_ENGINE") {
        Ok(v)
            if !["auto", "jit", "interp", "vulkan"]
                .iter()
                .any(|e| e.eq_ignore_ascii_case(v.trim())) =>
        {
            Err(format!(
                "TGSI_ENGINE=`{v}`: expected auto, jit, interp or vulkan"
            ))
        }
        _ => Ok(()),
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.engine.is_none()
        && let Err(e) = check_engine_variable()
    {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    if let Some((reads, output)) = cli.verb.reads_and_writes()
        && let Some(input) = overwritten(&reads, output)
    {
        eprintln!(
            "error: -o {}: that is the input {}; writing there would lose it",
            output.display(),
            input.display()
        );
        return ExitCode::from(2);
    }
    if let Some(d) = &cli.device {
        let _ = DEVICE.set(d.clone());
    }
    match cli.engine {
        Some(EngineArg::Auto) => tgsi::jit::Engine::set_default(tgsi::jit::Engine::Auto),
        Some(EngineArg::Jit) => tgsi::jit::Engine::set_default(tgsi::jit::Engine::Jit),
        Some(EngineArg::Interp) => tgsi::jit::Engine::set_default(tgsi::jit::Engine::Interp),
        Some(EngineArg::Vulkan) => VULKAN.store(true, std::sync::atomic::Ordering::Relaxed),
        None => {}
    }
    let vulkan_verb = matches!(
        cli.verb,
        Verb::Run(_) | Verb::Fuzz { .. } | Verb::Test { .. } | Verb::Render(_)
    );
    if vulkan_engine() && !vulkan_verb {
        eprintln!(
            "error: the Vulkan engine runs `tgsi run` (compute and vertex shaders), `tgsi render` and `tgsi test`; use --engine auto|jit|interp here"
        );
        return ExitCode::from(2);
    }
    let result = match cli.verb {
        Verb::Check { files, from } => textverbs::check(&files, from),
        Verb::Fmt {
            file,
            check,
            output,
            from,
        } => textverbs::fmt(&file, check, output.as_deref(), from),
        Verb::Asm {
            file,
            output,
            numbering,
            from,
        } => textverbs::asm(&file, &output, numbering.into(), from),
        Verb::Dis {
            file,
            numbering,
            output,
            from,
        } => textverbs::dis(&file, numbering.into(), output.as_deref(), from),
        Verb::Info { file, json } => d3dverbs::info(&file, json),
        Verb::Lower { file, output, from } => d3dverbs::lower(&file, output.as_deref(), from),
        Verb::Run(args) => run::run(&args),
        Verb::Test {
            paths,
            threads,
            verbose,
        } => run::test(&paths, threads, verbose),
        Verb::Render(args) => render::render(&args),
        Verb::Debug(args) => debug::debug(&args),
        Verb::Translate(args) => translate::translate(&args),
        Verb::Bench(args) => bench::bench(&args),
        Verb::Fuzz {
            show: Some(n),
            draws,
            vulkan,
            ..
        } => {
            if vulkan {
                print!("{}", tgsi_tools::vulkan_fuzz::generate(n).text);
            } else if draws {
                let case = tgsi_tools::draw_fuzz::generate(n);
                print!("{}{}", case.vertex, case.fragment);
            } else {
                print!("{}", tgsi_tools::fuzz::generate(n).text);
            }
            Ok(ExitCode::SUCCESS)
        }
        Verb::Fuzz {
            seed,
            file: Some(path),
            vulkan,
            ..
        } => fuzz_file(&path, seed, vulkan),
        Verb::Fuzz {
            seconds,
            seed,
            cases,
            show: None,
            file: None,
            draws,
            vulkan,
        } => fuzz(seconds, seed, cases, draws, vulkan),
    };
    match result {
        Ok(code) => code,
        // a reader that stopped reading (`tgsi run ... | head`) ends the
        // output, not in an error
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
