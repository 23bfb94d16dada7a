//! Direct3D 10/11 shader bytecode: the DXBC container, the SM4/SM5 token
//! stream, fxc-style listings and the SM assembler.
//!
//! The layout mirrors the TGSI side of the crate:
//!
//! * [`error`] – the decode error every binary reader returns (a byte offset
//!   into the file and what was expected there);
//! * [`opcode`] – the one opcode table (0x00–0xEA) everything else derives from;
//! * [`enums`] – the named enumerations and flag sets of the token format;
//! * [`ir`] – a program as plain data (version, instructions, operands);
//! * [`decode`] / [`encode`] – SHDR/SHEX payload ↔ IR, exact in both directions;
//! * [`print`] – IR → fxc's listing text;
//! * [`source_map`] – where each instruction came from (text spans or byte
//!   ranges), for diagnostics after decoding or assembling;
//! * [`validate`] – every structural and semantic problem of a program
//!   (declarations, model and stage limits, blocks, operands, the constraints
//!   of the per-instruction reference pages).

pub mod decode;
pub mod encode;
pub mod enums;
pub mod error;
pub mod ir;
pub mod opcode;
pub mod print;
pub mod source_map;
pub mod validate;

pub use decode::decode_program;
pub use encode::{encode_program, encode_program_bytes, EncodeError};
pub use error::DecodeError;
pub use ir::Program;
pub use print::{print_program, print_program_with, PrintOptions};
pub use validate::validate;
