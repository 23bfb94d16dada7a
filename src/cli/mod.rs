//! Command-line definitions (clap) and dispatch to the verbs.

mod bench;
mod input;
mod mathbench;
mod render;
mod render_args;
mod run;
mod textverbs;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
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
    /// Assemble and validate TGSI text files. Exit status 0 when every file is
    /// valid, 1 when any is not; every error goes to stderr with file, line,
    /// column and the offending line.
    Check {
        /// TGSI text files (`-` reads standard input)
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a shader in the canonical `tgsi_dump` layout (lossless: floats whose
    /// `%10.4f` form would lose bits print as hex bit patterns).
    Fmt {
        /// TGSI text file (`-` reads standard input)
        file: PathBuf,
        /// Print nothing; exit 1 when the file is not already canonical
        #[arg(long, conflicts_with = "output")]
        check: bool,
        /// Write the canonical text to this file instead of standard output
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Assemble TGSI text to Mesa's binary `tgsi_token` stream (little-endian
    /// 32-bit words).
    Asm {
        /// TGSI text file (`-` reads standard input)
        file: PathBuf,
        /// Output file for the binary words (`-` writes standard output)
        #[arg(short, long)]
        output: PathBuf,
        /// Processor numbering of the header token
        #[arg(long, value_enum, default_value_t = Numbering::Mesa22)]
        numbering: Numbering,
    },
    /// Decode a binary `tgsi_token` stream (little-endian 32-bit words) and print
    /// it as canonical TGSI text.
    Dis {
        /// Binary token file (`-` reads standard input)
        file: PathBuf,
        /// Processor numbering of the header token
        #[arg(long, value_enum, default_value_t = Numbering::Mesa22)]
        numbering: Numbering,
        /// Write the text to this file instead of standard output
        #[arg(short, long)]
        output: Option<PathBuf>,
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
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Also print every skipped test with the reason
        #[arg(short, long)]
        verbose: bool,
    },
    /// Render a fragment shader over a full-target quad into a PNG file
    /// (textures from PNG files, samplers and constants from the command line).
    Render(render::RenderArgs),
    /// Measure the machine against the peer workloads (see `tgsi bench --help`).
    Bench(bench::BenchArgs),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.verb {
        Verb::Check { files } => textverbs::check(&files),
        Verb::Fmt {
            file,
            check,
            output,
        } => textverbs::fmt(&file, check, output.as_deref()),
        Verb::Asm {
            file,
            output,
            numbering,
        } => textverbs::asm(&file, &output, numbering.into()),
        Verb::Dis {
            file,
            numbering,
            output,
        } => textverbs::dis(&file, numbering.into(), output.as_deref()),
        Verb::Run(args) => run::run(&args),
        Verb::Test {
            paths,
            threads,
            verbose,
        } => run::test(&paths, threads, verbose),
        Verb::Render(args) => render::render(&args),
        Verb::Bench(args) => bench::bench(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
