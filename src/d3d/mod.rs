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
//! * [`lexer`], [`literal`], [`parse`] – fxc/vkd3d listing text → IR (the
//!   assembler's front half); [`assemble`] – a listing → a DXBC container
//!   (signatures from the header tables or the declarations, `SFI0`);
//! * [`source_map`] – where each instruction came from (text spans or byte
//!   ranges), for diagnostics after decoding or assembling;
//! * [`blob`] – bounds-checked little-endian reads and the 0xAB-padding
//!   writer the chunk codecs share;
//! * [`container`] – the DXBC header, chunk table and checksum;
//! * [`signature`], [`rdef`], [`stat`], [`sfi0`], [`ifce`], [`library`] –
//!   the chunk codecs (decode, encode byte for byte, print fxc's sections);
//! * [`effect`] – the shader containers inside `fx_*` effects;
//! * [`listing`] – the fxc listing driver (header, footer, library layout)
//!   around the program and level-9 printers;
//! * [`info`] – the summary behind `tgsi info FILE.dxbc`.

pub mod assemble;
pub mod blob;
pub mod container;
pub mod decode;
pub mod effect;
pub mod encode;
pub mod enums;
pub mod error;
pub mod ifce;
pub mod info;
pub mod ir;
pub mod lexer;
pub mod library;
pub mod listing;
pub mod literal;
pub mod opcode;
pub mod parse;
pub mod print;
pub mod rdef;
pub mod sfi0;
pub mod signature;
pub mod source_map;
pub mod stat;

pub use assemble::{assemble, assemble_listing, Assembly};
pub use decode::decode_program;
pub use encode::{encode_program, encode_program_bytes, EncodeError};
pub use error::DecodeError;
pub use ir::Program;
pub use parse::{parse_listing, parse_program, ParsedProgram};
pub use print::{print_program, print_program_with, PrintOptions};
