//! `tgsi run` and `tgsi test`: executing shaders.

use anyhow::{Result, bail};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct RunArgs {
    /// Shader to run (TGSI text)
    pub shader: PathBuf,
}

pub fn run(args: &RunArgs) -> Result<ExitCode> {
    bail!(
        "{}: `tgsi run` is not available in this build yet",
        args.shader.display()
    )
}

pub fn test(paths: &[PathBuf], _threads: usize) -> Result<ExitCode> {
    bail!(
        "`tgsi test` is not available in this build yet ({} paths given)",
        paths.len()
    )
}
