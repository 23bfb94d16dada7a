//! TGSI text: the assembler (text → IR) and the canonical printer (IR → text).

pub mod lexer;
pub mod names;
pub mod numbers;
pub mod parser;
pub mod printer;

pub use parser::parse;
pub use printer::print;
