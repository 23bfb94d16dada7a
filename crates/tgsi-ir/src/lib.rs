//! The ground floor of TGSI: what every front end produces and every engine
//! consumes.
//!
//! * [`opcode`] – the one opcode table every other layer derives from;
//! * [`enums`], [`ir`] – the intermediate representation of a whole shader
//!   ([`format_names`]: Mesa's `PIPE_FORMAT_*` names);
//! * [`validate`] – structural and semantic checks with source spans;
//! * [`diag`] – diagnostics and their rustc-like rendering;
//! * [`tess`] – the fixed-function tessellator's settings;
//! * [`rng`] – the reproducible inputs of the randomized tests and the fuzzer.

pub mod diag;
pub mod enums;
pub mod format_names;
pub mod ir;
pub mod opcode;
pub mod rng;
pub mod samples;
pub mod tess;
pub mod validate;

pub use diag::{Diagnostic, Diagnostics};
pub use ir::Shader;
