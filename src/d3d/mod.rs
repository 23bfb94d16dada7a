//! Direct3D 10/11 shader bytecode: the DXBC container, the SM4/SM5 token
//! stream, fxc-style listings and the SM assembler.
//!
//! The layout mirrors the TGSI side of the crate:
//!
//! * [`error`] – the decode error every binary reader returns (a byte offset
//!   into the file and what was expected there);
//! * [`source_map`] – where each instruction came from (text spans or byte
//!   ranges), for diagnostics after decoding or assembling;
//! * [`level9`] – the Direct3D 9 programs of `Aon9`/`XNAP`/`XNAS` chunks
//!   (feature level 9 targets) and the header sections fxc lists them in.

pub mod error;
pub mod level9;
pub mod source_map;

pub use error::DecodeError;
