//! The validator (placeholder until it lands).
use crate::diag::Diagnostics;
use crate::ir::{Shader, SourceMap};

/// Checks a shader; returns every problem found.
pub fn validate(_shader: &Shader, _map: Option<&SourceMap>) -> Diagnostics {
    Diagnostics::default()
}
