//! The disassembler: IR → canonical `tgsi_dump` text (placeholder).
use crate::ir::Shader;

/// Prints a shader in the canonical dump layout.
pub fn print(shader: &Shader) -> String {
    format!("{}\n", shader.processor)
}
