//! `tgsi`: Gallium's TGSI shader instruction set as real software.
//!
//! The pipeline, one module per stage:
//!
//! * [`opcode`] – the one opcode table every other module derives from;
//! * [`enums`], [`ir`] – the intermediate representation of a whole shader;
//! * [`text`] – the assembler (text → IR) and the canonical printer (IR → text);
//! * [`tokens`] – Mesa's binary `tgsi_token` stream (IR ↔ words);
//! * [`validate`] – structural and semantic checks with source spans;
//! * [`exec`] – the SoA machine that runs shaders over many lanes at once;
//! * [`texture`] – texel formats, textures, samplers, every sampling opcode and images;
//! * [`shader_test`] – the `.shader_test` runner behind `tgsi test`;
//! * [`d3d`] – Direct3D SM4/SM5 bytecode: DXBC containers, tokens, listings, assembler;
//! * [`diag`] – diagnostics and their rustc-like rendering.

pub mod d3d;
pub mod diag;
pub mod enums;
pub mod exec;
pub mod format_names;
pub mod image_io;
pub mod ir;
pub mod jit;
pub mod opcode;
pub mod shader_test;
pub mod text;
pub mod texture;
pub mod tokens;
pub mod validate;

pub use diag::{Diagnostic, Diagnostics};
pub use ir::Shader;

/// Assembles TGSI text and validates it: every error of both stages at once.
pub fn assemble(source: &str) -> Result<(ir::Shader, ir::SourceMap), Diagnostics> {
    let (shader, map) = text::parse(source)?;
    let diags = validate::validate(&shader, Some(&map));
    if diags.has_errors() {
        return Err(diags);
    }
    Ok((shader, map))
}
