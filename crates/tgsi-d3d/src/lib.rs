//! Direct3D 10/11 shader bytecode: the DXBC container, the SM4/SM5 token
//! stream, fxc-style listings and the SM assembler.
//!
//! The layout mirrors the TGSI side of the crate:
//!
//! * [`opcode`] – the one opcode table (0x00–0xEA) everything else derives from;
//! * [`enums`] – the named enumerations and flag sets of the token format;
//! * [`ir`] – a program as plain data (version, instructions, operands);
//! * [`decode`] / [`encode`] – SHDR/SHEX payload ↔ IR, exact in both directions;
//! * [`mod@print`] – IR → fxc's listing text of the program;
//! * [`sniff`] – which of fxc's listings a text is (program, level-9,
//!   effect);
//! * [`lexer`], [`literal`], [`parse`] – the SM4/SM5 assembler: listing text
//!   (fxc's and vkd3d's spellings) → IR with a [`source_map::SourceMap`];
//!   [`mod@assemble`] – a listing → a DXBC container (signatures from the header
//!   tables or the declarations, the program chunk, `SFI0`);
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
//!   around the program and level-9 printers; [`disassemble`] wires this
//!   crate's printers into it;
//! * [`info`] – the summary behind `tgsi info FILE.dxbc`;
//! * [`mod@validate`] – every structural and semantic problem of a program
//!   (declarations, model and stage limits, blocks, operands, the constraints
//!   of the per-instruction reference pages);
//! * [`lower`] – SM4/SM5 programs to TGSI shaders (`tgsi lower`).

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
pub mod level9;
pub mod lexer;
pub mod library;
pub mod listing;
pub mod literal;
pub mod lower;
pub mod opcode;
pub mod parse;
pub mod print;
pub mod rdef;
pub mod sfi0;
pub mod signature;
pub mod sniff;
pub mod source_map;
pub mod stat;
#[cfg(test)]
mod test_words;
pub mod validate;

pub use assemble::{Assembly, assemble, assemble_listing};
pub use decode::decode_program;
pub use encode::{EncodeError, encode_program, encode_program_bytes};
pub use error::DecodeError;
pub use ir::Program;
pub use parse::{ParsedProgram, parse_listing, parse_program};
pub use print::{PrintOptions, print_program, print_program_with};
pub use validate::validate;

use container::Container;

/// fxc's listing of a DXBC blob (`fxc /Fc`): the `//` header, the level-9
/// sections, the program and the footer, byte for byte as fxc prints it for
/// every blob of the corpus. Effects list the shaders they embed.
pub fn disassemble(blob: &[u8]) -> Result<String, DecodeError> {
    disassemble_with(blob, &listing::ListingOptions::default())
}

/// [`disassemble`] with the facts a blob does not carry (fxc 9.29's command
/// line).
pub fn disassemble_with(
    blob: &[u8],
    options: &listing::ListingOptions,
) -> Result<String, DecodeError> {
    listing::disassemble_with(blob, &printers(), options)
}

/// The listing of one program chunk payload, spelled as the fxc that wrote
/// `creator` (the RDEF creator string; empty for the newest spelling).
pub fn program_listing(payload: &[u8], creator: &str) -> Result<String, DecodeError> {
    let program = decode_program(payload)?;
    Ok(print_program_with(
        &program,
        &PrintOptions::for_creator(creator),
    ))
}

/// The level-9 sections of a container, if it has any, with the `//` line
/// that separates them from the signature tables before them.
fn level9_listing(container: &Container) -> Result<Option<String>, DecodeError> {
    Ok(level9::level9_sections(container)?.map(|text| format!("//\n{text}")))
}

fn printers() -> listing::Printers<'static> {
    listing::Printers {
        program: &program_listing,
        level9: &level9_listing,
    }
}

/// A SHDR/SHEX chunk found in a blob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramChunk {
    /// the chunk payload (version token onwards)
    pub payload: Vec<u8>,
    /// byte offset of the payload in the outermost blob
    pub offset: usize,
    /// the RDEF creator string of its container (inherited by a library
    /// function's container that has none)
    pub creator: String,
}

/// Every program of a blob in file order: the container's own, each library
/// function's (nested containers in `LIBF` chunks), and each shader an
/// effect embeds.
pub fn program_chunks(blob: &[u8]) -> Result<Vec<ProgramChunk>, DecodeError> {
    let mut out = Vec::new();
    visit_programs(blob, &mut |_, chunk, offset, creator| {
        out.push(ProgramChunk {
            payload: chunk.data.clone(),
            offset,
            creator: creator.to_string(),
        });
        Ok(())
    })?;
    Ok(out)
}

/// A visitor of [`visit_programs`]: the container holding the program, its
/// SHDR/SHEX chunk, the payload's byte offset in the outermost blob, and the
/// RDEF creator string that applies.
pub type ProgramVisitor<'a> =
    dyn FnMut(&Container, &container::Chunk, usize, &str) -> Result<(), DecodeError> + 'a;

/// Calls `visit` for every program of a blob in file order, walking library
/// functions (nested containers in `LIBF` chunks) and an effect's embedded
/// shaders, nesting bounded; the one walk behind [`program_chunks`] and
/// [`lower::container_programs`].
pub fn visit_programs(blob: &[u8], visit: &mut ProgramVisitor<'_>) -> Result<(), DecodeError> {
    walk_programs(
        blob,
        0,
        "",
        0,
        &mut Visitors {
            visit,
            nested: None,
        },
    )
}

/// Every container nested in a blob (a library's functions, an effect's
/// shaders, at any depth), with its byte offset in the blob, in file order:
/// what has a checksum of its own.
pub fn nested_containers(blob: &[u8]) -> Result<Vec<(usize, &[u8])>, DecodeError> {
    let mut out = Vec::new();
    let mut nested = |bytes: &[u8], offset: usize| out.push((offset, bytes.len()));
    walk_programs(
        blob,
        0,
        "",
        0,
        &mut Visitors {
            visit: &mut |_, _, _, _| Ok(()),
            nested: Some(&mut nested),
        },
    )?;
    // a nested container's bytes are the blob's at its offset
    Ok(out
        .into_iter()
        .filter_map(|(offset, len)| Some((offset, blob.get(offset..offset + len)?)))
        .collect())
}

/// Told each nested container's bytes and byte offset.
type NestedVisitor<'v> = dyn FnMut(&[u8], usize) + 'v;

/// What a walk over a blob's programs calls: `visit` for each program,
/// `nested` for each nested container.
struct Visitors<'v, 'a> {
    visit: &'v mut ProgramVisitor<'a>,
    nested: Option<&'v mut NestedVisitor<'v>>,
}

fn walk_programs(
    blob: &[u8],
    base: usize,
    inherited: &str,
    depth: usize,
    visitors: &mut Visitors<'_, '_>,
) -> Result<(), DecodeError> {
    listing::check_nesting(depth, base)?;
    if listing::is_effect(blob) {
        for shader in effect::embedded_shaders(blob) {
            walk_programs(
                shader.bytes,
                base + shader.offset,
                inherited,
                depth + 1,
                visitors,
            )?;
        }
        return Ok(());
    }
    if depth > 0
        && let Some(nested) = visitors.nested.as_mut()
    {
        nested(blob, base);
    }
    let container = Container::parse(blob).map_err(|e| e.shifted(base))?;
    let creator = match container.chunk(container::tags::RDEF) {
        Some(chunk) => {
            rdef::Rdef::parse(&chunk.data)
                .map_err(|e| e.shifted(base + chunk.payload_offset))?
                .creator
        }
        None => inherited.to_string(),
    };
    for chunk in &container.chunks {
        if chunk.tag == container::tags::SHDR || chunk.tag == container::tags::SHEX {
            (visitors.visit)(&container, chunk, base + chunk.payload_offset, &creator)
                .map_err(|e| e.shifted(base))?;
        } else if chunk.tag == container::tags::LIBF {
            walk_programs(
                &chunk.data,
                base + chunk.payload_offset,
                &creator,
                depth + 1,
                visitors,
            )?;
        }
    }
    Ok(())
}
