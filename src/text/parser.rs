//! The assembler: TGSI text → IR (placeholder until the parser lands).
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Shader, SourceMap};

/// Parses TGSI text, reporting every error found.
pub fn parse(_source: &str) -> Result<(Shader, SourceMap), Diagnostics> {
    Err(Diagnostics(vec![Diagnostic::error("the assembler is not written yet")]))
}
