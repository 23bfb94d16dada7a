//! `tgsi bench`: throughput of the machine on the peer workloads.

use anyhow::{Result, bail};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct BenchArgs {}

pub fn bench(_args: &BenchArgs) -> Result<ExitCode> {
    bail!("`tgsi bench` is not available in this build yet")
}
