//! The engine interface: what the machine asks of code compiled for one
//! program by an engine that lives above it (the compiled engine, `jit`),
//! and nothing else. The interpreter knows neither which engine compiled the
//! code nor when one is chosen: a [`Program`](super::Program) holding
//! compiled code hands every batch to it, one without runs the interpreter.

use super::ExecError;
use super::decode::Code;
use super::machine::{Batch, Env, Stop};

/// The figures of compiled code, for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompiledFigures {
    /// Instructions inlined as machine code.
    pub inlined: usize,
    /// Instructions run through the interpreter's handler.
    pub called: usize,
    /// Loops whose most used rows and constants stay in vector registers.
    pub cached_loops: usize,
    /// Straight runs of inline instructions whose rows used more than once
    /// stay in vector registers.
    pub cached_runs: usize,
    /// Bytes of machine code.
    pub code_bytes: usize,
}

impl std::fmt::Display for CompiledFigures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Compiled {{ {} bytes, {} inlined, {} called, {} cached loops, {} cached runs }}",
            self.code_bytes, self.inlined, self.called, self.cached_loops, self.cached_runs
        )
    }
}

/// A program's code as an engine compiled it.
pub trait CompiledCode: Send + Sync + std::fmt::Debug {
    /// Runs a batch from its first instruction (the batch has just been
    /// reset; its registers, inputs and system values are set), or from the
    /// BARRIER it stopped at, to its end or its next BARRIER, with exactly
    /// the interpreter's results.
    fn run(
        &self,
        batch: &mut Batch,
        code: &Code,
        env: &Env,
        shared: &mut [u32],
    ) -> Result<Stop, ExecError>;

    /// What was compiled.
    fn figures(&self) -> CompiledFigures;
}
