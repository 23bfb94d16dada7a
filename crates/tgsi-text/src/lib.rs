//! The TGSI front end: the assembler (text → IR) and the canonical printer
//! (IR → text), and Mesa's binary `tgsi_token` stream ([`tokens`], IR ↔ words).

pub mod cursor;
pub mod lexer;
pub mod names;
pub mod numbers;
pub mod parser;
pub mod printer;
pub mod tokens;

#[cfg(test)]
mod validate_tests;

pub use parser::parse;
pub use printer::print;

/// Assembles TGSI text and validates it: every error of both stages at once.
pub fn assemble(
    source: &str,
) -> Result<(tgsi_ir::Shader, tgsi_ir::ir::SourceMap), tgsi_ir::Diagnostics> {
    let (shader, map) = parse(source)?;
    let diags = tgsi_ir::validate::validate(&shader, Some(&map));
    if diags.has_errors() {
        return Err(diags);
    }
    Ok((shader, map))
}
