//! The machine: runs a shader over many lanes at once (SoA, execution masks).
//!
//! Placeholder API; the implementation lands behind these signatures.

pub mod math;
pub mod ops;

use crate::ir::Shader;

/// Lanes executed together.
pub const LANES: usize = 16;

/// Bounds that keep hostile shaders finite.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Instructions one invocation batch may execute before it is stopped.
    pub max_instructions: u64,
    /// Bytes of shared (MEMORY SHARED) storage per work group.
    pub shared_memory_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_instructions: 10_000_000, shared_memory_bytes: 32 * 1024 }
    }
}

/// Everything a shader reads or writes besides its registers.
#[derive(Clone, Debug, Default)]
pub struct Resources {
    /// `CONST[n]`: 32-bit words of constant buffer n (4 words per vec4 slot).
    pub constants: Vec<Vec<u32>>,
    /// `BUFFER[n]`: raw bytes.
    pub buffers: Vec<Vec<u8>>,
}

/// An execution error, naming the instruction where it happened.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExecError {
    /// Index of the instruction, when one is to blame.
    pub instruction: Option<usize>,
    pub message: String,
}

/// A shader prepared for execution.
pub struct Program {
    _shader: Shader,
}

impl Program {
    /// Pre-decodes a (validated) shader.
    pub fn compile(shader: &Shader) -> Result<Program, ExecError> {
        Ok(Program { _shader: shader.clone() })
    }

    /// Runs a compute shader over `groups` work groups (block size from its properties).
    pub fn dispatch(&self, _res: &mut Resources, _groups: [u32; 3], _limits: &Limits) -> Result<(), ExecError> {
        Err(ExecError { instruction: None, message: "the machine is not written yet".into() })
    }

    /// Runs a vertex shader on `count` vertices. `inputs[v][i]` is input `IN[i]` of
    /// vertex v as four raw words. Returns `outputs[v][k]` = `OUT[k]` of vertex v.
    pub fn run_vertices(
        &self,
        _res: &mut Resources,
        _inputs: &[Vec<[u32; 4]>],
        _count: usize,
        _limits: &Limits,
    ) -> Result<Vec<Vec<[u32; 4]>>, ExecError> {
        Err(ExecError { instruction: None, message: "the machine is not written yet".into() })
    }
}
