//! Direct3D 10/11 shader bytecode: the DXBC container, the SM4/SM5 token
//! stream, fxc-style listings and the SM assembler.
//!
//! The layout mirrors the TGSI side of the crate:
//!
//! * [`error`] – the decode error every binary reader returns (a byte offset
//!   into the file and what was expected there);
//! * [`source_map`] – where each instruction came from (text spans or byte
//!   ranges), for diagnostics after decoding or assembling;
//! * [`blob`] – bounds-checked little-endian reads and the 0xAB-padding
//!   writer the chunk codecs share;
//! * [`container`] – the DXBC header, chunk table and checksum;
//! * [`signature`], [`rdef`], [`stat`], [`sfi0`], [`ifce`], [`library`] –
//!   the chunk codecs (decode, encode byte for byte, print fxc's sections);
//! * [`level9`] – the Direct3D 9 programs of `Aon9`/`XNAP`/`XNAS` chunks
//!   (feature level 9 targets) and the header sections fxc lists them in;
//! * [`effect`] – the shader containers inside `fx_*` effects;
//! * [`listing`] – the fxc listing driver (header, footer, library layout)
//!   around the program and level-9 printers;
//! * [`info`] – the summary behind `tgsi info FILE.dxbc`.

pub mod blob;
pub mod container;
pub mod effect;
pub mod error;
pub mod ifce;
pub mod info;
pub mod level9;
pub mod library;
pub mod listing;
pub mod rdef;
pub mod sfi0;
pub mod signature;
pub mod source_map;
pub mod stat;

pub use error::DecodeError;
