//! The SM4/SM5 assembler front half: listing text → [`Program`] (and a
//! [`SourceMap`] of where every instruction and operand came from).
//!
//! It reads what fxc (`/Fc`, `/Fh`, D3DDisassemble) and vkd3d-shader print:
//!
//! * a `//` header, blank lines, `#line` lines, the `/Fh` wrapper (`#if 0`
//!   … `#endif` and the `const BYTE g_x[] = {…};` array, which is skipped),
//!   the indented Direct3D 9 sub-listings of level-9 shaders, and `//`
//!   comments at the end of any line;
//! * the version line (`ps_5_0`, `lib_4_0`, `vs_4_0_level_9_1`);
//! * one declaration or instruction per line (`dcl_immediateConstantBuffer`
//!   may span lines), spelled as [`crate::print`] prints them:
//!   suffixes in any order (`_sat`, `_z`/`_nz`, sync flags, `_uint`,
//!   `_aoffimmi(u,v,w)`, `_indexable(dim[, stride=N])`, return-type lists),
//!   operands with modifiers, indices, swizzles, min-precision annotations
//!   and the printer's explicit markers (`{components=…}`, `{ext}`,
//!   `{nonuniform}`, `{extended=…}`, `{trailing=…}`, `[precise(…)]`);
//! * vkd3d's spellings as aliases (from the opcode and enum tables), and the
//!   all-lower-case form of fxc's mixed-case words (`emitthencut`,
//!   `dcl_globalflags`, `sampleindex`).
//!
//! Immediates are encoded as spelled (see [`crate::literal`]); the
//! component field of every operand comes from
//! [`crate::print::implied_components`], the rule the printer follows,
//! so a printed program parses back to the same IR.
//!
//! Not read: the `{payload=…}` form the printer falls back to for an
//! instruction whose operands do not match its opcode's table row (Rust
//! debug output; the decoder never produces such an instruction).
//!
//! Every error of the input is reported in one run (each statement recovers
//! at the next line), each with a span, what was expected and what was
//! found. Only what the token format cannot hold or what is not the grammar
//! is an error here; semantic rules belong to the validator.

use crate::encode::encode_program;
use crate::enums::{
    COMPONENT_NAMES, ConstantBufferAccess, CustomDataClass, GLOBAL_FLAG_NAMES, GlobalFlags,
    InfoReturnType, InputPrimitive, Interpolation, MinPrecision, OperandModifier,
    PrimitiveTopology, ProgramType, RegisterFile, ResourceDimension, ReturnType,
    SHADER_MESSAGE_FORMAT_PRINTF, SHADER_MESSAGE_NAMES, SYNC_FLAG_NAMES, SamplerMode, SystemValue,
    TessellatorDomain, TessellatorOutputPrimitive, TessellatorPartitioning, Test, UAV_FLAG_NAMES,
    UavFlags,
};
use crate::ir::{
    CbAccessControl, Components, ConstantBufferRange, Controls, CustomData, ExtendedOpcode, Index,
    InfoReturnControl, InputPrimitiveControl, Instruction, InterpolationControl, Operand, Payload,
    Program, ResourceDimensionControl, SamplerModeControl, ShaderMessage, TessDomainControl,
    TessOutputControl, TessPartitioningControl, TestControl, TopologyControl, Version,
    component_numbers, mask_from_letters,
};
use crate::lexer::{Token, TokenKind, tokenize};
use crate::literal::{self, Literal};
use crate::opcode::{OPCODES, OpFlags, Opcode, OpcodeInfo, Role};
use crate::print::{ComponentContext, implied_components};
use crate::source_map::{InstructionSource, SourceKind, SourceMap};
use tgsi_ir::diag::{Diagnostic, Diagnostics};
use tgsi_ir::ir::Span;
use tgsi_text::cursor::{Cursor, PResult, Reported};
use tgsi_text::names::nearest;

pub use tgsi_ir::diag::MAX_ERRORS;

/// Deepest nesting of relative indices accepted (as in the decoder).
pub const MAX_RELATIVE_DEPTH: usize = crate::decode::MAX_RELATIVE_DEPTH;

/// One program of a listing.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedProgram {
    pub program: Program,
    pub map: SourceMap,
    /// the text before the version line, back to the end of the previous
    /// program (the `//` header with the signature tables)
    pub header: Span,
}

/// Parses a listing that holds one program.
pub fn parse_program(text: &str) -> Result<(Program, SourceMap), Diagnostics> {
    let mut programs = parse_listing(text)?;
    if programs.len() > 1 {
        let second = &programs[1];
        return Err(Diagnostics(vec![
            Diagnostic::error(format!(
                "expected one program, the listing holds {} (a library listing: parse it with `parse_listing`)",
                programs.len()
            ))
            .with_primary(second.map.version, "a second program starts here"),
        ]));
    }
    let p = programs.remove(0);
    Ok((p.program, p.map))
}

/// Parses a listing of one or more programs (a library listing holds one
/// per function), reporting every error found.
pub fn parse_listing(text: &str) -> Result<Vec<ParsedProgram>, Diagnostics> {
    use super::sniff::{ListingKind, direct3d9_error, effect_listing_error, listing_kind};
    match listing_kind(text) {
        Some(ListingKind::Effect { at }) => {
            return Err(Diagnostics(vec![effect_listing_error(text, at)]));
        }
        Some(ListingKind::Direct3D9 { at }) => {
            return Err(Diagnostics(vec![direct3d9_error(text, at)]));
        }
        _ => {}
    }
    let mut parser = Parser::new(text);
    parser.run();
    if parser.diags.is_empty() && parser.programs.is_empty() {
        let end = text.len();
        parser.diags.push(
            Diagnostic::error("missing version line: the listing holds no program")
                .with_primary(Span::new(end, end), format!("expected {VERSION_EXAMPLES}")),
        );
    }
    if parser.diags.is_empty() {
        Ok(parser.programs)
    } else {
        Err(Diagnostics(parser.cur.diags))
    }
}

const VERSION_EXAMPLES: &str = "a version line such as `ps_5_0`, `vs_4_0` or `cs_5_0`";

/// A program being parsed.
struct Open {
    program: Program,
    map: SourceMap,
    header: Span,
}

/// The parser: the shared token cursor (which it dereferences to) and the
/// programs it builds.
struct Parser<'a> {
    cur: Cursor<'a, TokenKind>,
    programs: Vec<ParsedProgram>,
    current: Option<Open>,
    /// where the header of the next program starts
    header_start: usize,
    /// the input is not SM4/SM5 assembly: stop after the first error
    stop: bool,
    /// operand spans of the statement being parsed
    operand_spans: Vec<Span>,
    /// parsing the register of a `dcl_constantbuffer` (upper-case names)
    upper_declaration: bool,
    /// parsing an operand that a fourth bracket may follow (the size of a
    /// `dcl_constantbuffer`, the call site of `fcall`)
    glued_bracket: bool,
    /// the last top-level operand's components came from its form alone
    /// (no letters, no marker): they follow its index count
    implied_default: bool,
}

/// The parts of a mnemonic after its base name.
#[derive(Clone)]
enum Piece<'a> {
    /// one `_`-separated suffix word
    Word(&'a str, Span),
    /// a parenthesised group: its comma-separated items (trimmed text, span)
    Group(Vec<(&'a str, Span)>, Span),
}

/// A resolved mnemonic.
enum Mnemonic {
    Op {
        opcode: Opcode,
        controls: Controls,
        extended: Vec<ExtendedOpcode>,
    },
    ShaderMessage {
        message_id: u32,
        format: u32,
    },
    ImmediateConstantBuffer,
}

/// How the next token reads in a message, and the span to point at.
fn describe_next(cur: &Cursor<'_, TokenKind>) -> (String, Span) {
    let t = cur.peek();
    match t.kind {
        TokenKind::Eof => ("end of file".into(), t.span),
        TokenKind::Newline => {
            let end = cur.prev_end();
            ("end of line".into(), Span::new(end, end))
        }
        _ => (format!("`{}`", short(cur.text(t))), t.span),
    }
}

tgsi_text::derefs_to_cursor!(Parser, TokenKind);

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Parser<'a> {
        Parser {
            cur: Cursor::new(src, tokenize(src), describe_next),
            programs: Vec::new(),
            current: None,
            header_start: 0,
            stop: false,
            operand_spans: Vec::new(),
            upper_declaration: false,
            glued_bracket: false,
            implied_default: false,
        }
    }

    // ----- token access -------------------------------------------------

    fn at_word(&self, n: usize, word: &str) -> bool {
        let t = self.peek_at(n);
        t.kind == TokenKind::Ident && self.text(t) == word
    }

    fn at_line_end(&self) -> bool {
        matches!(self.peek().kind, TokenKind::Newline | TokenKind::Eof)
    }

    // ----- diagnostics --------------------------------------------------

    /// Skips the rest of a failed statement: up to and including the end of
    /// its line, or up to a line start past `start` (a block that ran into
    /// the next statement).
    fn recover(&mut self, start: usize) {
        if self.pos <= start {
            self.pos = start;
            self.bump();
        }
        loop {
            let t = self.peek();
            match t.kind {
                TokenKind::Eof => return,
                TokenKind::Newline => {
                    self.bump();
                    return;
                }
                _ if t.line_start => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    // ----- listing structure --------------------------------------------

    fn run(&mut self) {
        while !self.stop && self.diags.len() <= MAX_ERRORS {
            let t = self.peek();
            let start = self.pos;
            match t.kind {
                TokenKind::Eof => break,
                TokenKind::Newline => {
                    self.bump();
                }
                TokenKind::Directive => self.directive(t),
                TokenKind::Ident if t.line_start && self.text(t) == "const" => self.byte_array(),
                TokenKind::Ident if t.line_start && t.indented && is_dx9_version(self.text(t)) => {
                    self.skip_indented_block()
                }
                TokenKind::Ident if t.line_start && is_version_shaped(self.text(t)) => {
                    if self.version_line().is_err() {
                        self.recover(start);
                    }
                }
                _ => {
                    if self.statement().is_err() {
                        self.recover(start);
                    }
                }
            }
        }
        self.close_program();
    }

    fn directive(&mut self, t: Token) {
        self.bump();
        let text = self.text(t);
        let body = text[1..].trim_start();
        let word: String = body
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        match word.as_str() {
            "line" | "endif" => {}
            "if" if body[2..].trim() == "0" => {}
            _ => {
                self.push(
                    Diagnostic::error(format!("preprocessor directive `{}` in an SM4/SM5 listing", short(text)))
                        .with_primary(t.span, "not SM4/SM5 assembly")
                        .with_note("only `#line`, and the `#if 0` … `#endif` wrapper of fxc's /Fh headers, are accepted"),
                );
            }
        }
    }

    /// Skips the `const BYTE g_x[] = { … };` array of an fxc /Fh header.
    fn byte_array(&mut self) {
        let start = self.bump();
        loop {
            let t = self.bump();
            match t.kind {
                TokenKind::Semicolon => return,
                TokenKind::Eof => {
                    self.push(
                        Diagnostic::error(
                            "unterminated byte array: expected `};`, found end of file",
                        )
                        .with_primary(start.span, "the array of an fxc /Fh header starts here"),
                    );
                    return;
                }
                _ => {}
            }
        }
    }

    /// Skips an indented Direct3D 9 sub-listing (level-9 shaders): every
    /// line up to the next one that starts at column 0.
    fn skip_indented_block(&mut self) {
        loop {
            let t = self.peek();
            match t.kind {
                TokenKind::Eof => return,
                _ if t.line_start && !t.indented && t.kind != TokenKind::Newline => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn close_program(&mut self) {
        if let Some(open) = self.current.take() {
            self.programs.push(ParsedProgram {
                program: open.program,
                map: open.map,
                header: open.header,
            });
        }
    }

    fn version_line(&mut self) -> PResult<()> {
        let t = self.bump();
        let word = self.text(t);
        let version = parse_version(word).map_err(|(message, note)| {
            let mut d = Diagnostic::error(message).with_primary(t.span, "not an SM4/SM5 version");
            if let Some(note) = note {
                d = d.with_note(note);
            }
            self.stop = self.current.is_none();
            self.error(d)
        })?;
        self.close_program();
        self.current = Some(Open {
            program: Program {
                version,
                instructions: Vec::new(),
            },
            map: SourceMap {
                kind: SourceKind::Text,
                version: t.span,
                instructions: Vec::new(),
            },
            header: Span::new(self.header_start, t.span.start),
        });
        self.end_of_line("the version line")
    }

    /// Makes sure a program is open before a statement: reports a missing
    /// version line once and opens a placeholder to keep checking, or stops
    /// when the first word is not SM4/SM5 assembly at all.
    fn ensure_program(&mut self, first: Token) -> PResult<()> {
        if self.current.is_some() {
            return Ok(());
        }
        let word = self.text(first);
        if first.kind == TokenKind::Ident && is_known_mnemonic(word) {
            self.push(
                Diagnostic::error(format!("missing version line before `{}`", short(word)))
                    .with_primary(
                        first.span,
                        "the first instruction comes before any version line",
                    )
                    .with_note(format!("an SM4/SM5 listing starts with {VERSION_EXAMPLES}")),
            );
            self.current = Some(Open {
                program: Program {
                    version: Version {
                        program_type: ProgramType::Pixel,
                        major: 5,
                        minor: 0,
                    },
                    instructions: Vec::new(),
                },
                map: SourceMap {
                    kind: SourceKind::Text,
                    version: Span::new(0, 0),
                    instructions: Vec::new(),
                },
                header: Span::new(0, 0),
            });
            return Ok(());
        }
        let mut d = Diagnostic::error(format!(
            "expected {VERSION_EXAMPLES}, found `{}`",
            short(word)
        ))
        .with_primary(first.span, "not SM4/SM5 assembly");
        if matches!(
            word,
            "VERT" | "FRAG" | "GEOM" | "TESS_CTRL" | "TESS_EVAL" | "COMP"
        ) {
            d = d.with_note("this looks like TGSI text; the TGSI assembler reads it");
        } else {
            d = d.with_note("an SM4/SM5 listing is `//` comments, then the version line, then one instruction per line");
        }
        self.stop = true;
        Err(self.error(d))
    }

    fn end_of_line(&mut self, what: &str) -> PResult<()> {
        if self.at_line_end() {
            return Ok(());
        }
        let (found, span) = self.describe_next();
        Err(self.error(
            Diagnostic::error(format!(
                "expected the end of the line after {what}, found {found}"
            ))
            .with_primary(span, "unexpected text"),
        ))
    }

    // ----- statements ---------------------------------------------------

    fn statement(&mut self) -> PResult<()> {
        let first = self.peek();
        if first.kind != TokenKind::Ident {
            if self.current.is_none() {
                return self.ensure_program(first);
            }
            return Err(self.expected("an instruction or declaration"));
        }
        self.ensure_program(first)?;
        self.operand_spans.clear();
        let (mnemonic, mnemonic_span) = self.mnemonic()?;
        let version = self
            .current
            .as_ref()
            .map(|o| o.program.version)
            .unwrap_or(Version {
                program_type: ProgramType::Pixel,
                major: 5,
                minor: 0,
            });
        let mut inst = match mnemonic {
            Mnemonic::ImmediateConstantBuffer => {
                let data = self.immediate_constant_buffer(mnemonic_span)?;
                custom(CustomData::ImmediateConstantBuffer(data))
            }
            Mnemonic::ShaderMessage { message_id, format } => {
                let m = self.shader_message(message_id, format)?;
                custom(CustomData::ShaderMessage(m))
            }
            Mnemonic::Op {
                opcode: Opcode::CustomData,
                ..
            } => self.custom_data()?,
            Mnemonic::Op {
                opcode,
                controls,
                extended,
            } => {
                let mut inst = Instruction::new(opcode, Vec::new());
                inst.controls = controls;
                inst.extended = extended;
                if opcode.is_declaration() {
                    self.declaration(&mut inst)?;
                    if self.at(TokenKind::LBrace) && self.at_word(1, "extended") {
                        inst.extended = self.extended_tokens()?;
                    }
                } else {
                    self.instruction_operands(&mut inst)?;
                }
                inst.trailing = inst.fxc_trailing();
                if self.at(TokenKind::LBrace) && self.at_word(1, "trailing") {
                    inst.trailing = self.trailing_marker()?;
                }
                inst
            }
        };
        if let Payload::CustomData(_) = inst.payload {
            inst.trailing = Vec::new();
        }
        self.end_of_line(&format!(
            "`{}`",
            short(&self.src[mnemonic_span.start..mnemonic_span.end])
        ))?;
        let span = Span::new(first.span.start, self.prev_end());
        // the instruction must fit the token format on its own
        let single = Program {
            version,
            instructions: vec![inst],
        };
        if let Err(e) = encode_program(&single) {
            return Err(self.error(
                Diagnostic::error(format!("this instruction cannot be encoded: {}", e.message))
                    .with_primary(span, "does not fit the SM4/SM5 token format"),
            ));
        }
        let inst = single.instructions.into_iter().next().ok_or(Reported)?;
        let source = InstructionSource {
            span,
            mnemonic: mnemonic_span,
            operands: std::mem::take(&mut self.operand_spans),
        };
        if let Some(open) = self.current.as_mut() {
            open.program.instructions.push(inst);
            open.map.instructions.push(source);
            self.header_start = span.end;
        }
        Ok(())
    }

    // ----- mnemonics ----------------------------------------------------

    // ----- operands -----------------------------------------------------

    // ----- declarations -------------------------------------------------

    // ----- custom data --------------------------------------------------
}

fn short(text: &str) -> String {
    tgsi_ir::diag::shown(text)
}

/// A value of a table enum spelled `word`: the fxc spelling, an alias, or
/// the all-lower-case form of either.
pub fn named<T: Copy>(
    word: &str,
    all: &'static [T],
    name: fn(T) -> &'static str,
    aliases: fn(T) -> &'static [&'static str],
) -> Option<T> {
    all.iter()
        .copied()
        .find(|&v| name(v) == word || aliases(v).contains(&word))
        .or_else(|| {
            if word.bytes().any(|b| b.is_ascii_uppercase()) {
                return None;
            }
            all.iter().copied().find(|&v| {
                name(v).eq_ignore_ascii_case(word)
                    || aliases(v).iter().any(|a| a.eq_ignore_ascii_case(word))
            })
        })
}

/// True for words shaped like a version (`ps_5_0`, `vs_2_x`, `lib_4_0_level_9_1`).
fn is_version_shaped(word: &str) -> bool {
    let mut parts = word.split('_');
    let stage = parts.next().unwrap_or("");
    let major = parts.next().unwrap_or("");
    let minor = parts.next().unwrap_or("");
    matches!(
        stage,
        "vs" | "ps" | "gs" | "hs" | "ds" | "cs" | "lib" | "fx" | "tx"
    ) && !major.is_empty()
        && major.bytes().all(|b| b.is_ascii_digit())
        && (minor == "x" || (!minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit())))
}

/// Direct3D 9 versions, which start the indented sub-listings of level-9 shaders.
fn is_dx9_version(word: &str) -> bool {
    let dx9 =
        |w: &str| is_version_shaped(w) && matches!(w.split('_').nth(1), Some("1" | "2" | "3"));
    // A level-9 library function's DX9 sections: `lib_4_0_vs_2_0`, `lib_4_0_ps_2_0`.
    let library_dx9 = ["lib_4_0_vs_", "lib_4_0_ps_"].iter().any(|p| {
        word.strip_prefix(p)
            .is_some_and(|rest| dx9(&format!("vs_{rest}")))
    });
    dx9(word) || library_dx9
}

/// The version of a version line, or why it is not SM4/SM5 (and a note).
fn parse_version(word: &str) -> Result<Version, (String, Option<String>)> {
    let parts: Vec<&str> = word.split('_').collect();
    let stage = parts[0];
    let bad = |m: String, note: Option<&str>| Err((m, note.map(str::to_string)));
    let program_type = match stage {
        "fx" => {
            return bad(
                format!("`{word}` is an effect; effects are not SM4/SM5 programs"),
                None,
            );
        }
        "tx" => {
            return bad(
                format!("`{word}` is a texture shader, not an SM4/SM5 program"),
                None,
            );
        }
        _ => match ProgramType::from_name(stage) {
            Some(t) => t,
            None => return bad(format!("unknown shader stage `{stage}`"), None),
        },
    };
    let major: u32 = parts.get(1).and_then(|m| m.parse().ok()).unwrap_or(0);
    let minor: u32 = parts
        .get(2)
        .and_then(|m| m.parse().ok())
        .unwrap_or(u32::MAX);
    if major < 4 {
        return bad(
            format!("`{word}` is Direct3D 9 assembly, not SM4/SM5"),
            Some("this assembler reads shader models 4.0 to 5.1"),
        );
    }
    if major > 5 {
        return bad(
            format!("`{word}` is shader model {major}, which is DXIL, not SM4/SM5 tokens"),
            Some("this assembler reads shader models 4.0 to 5.1"),
        );
    }
    if minor > 15 {
        return bad(
            format!("bad minor version in `{word}`"),
            Some("a version is `stage_major_minor`, e.g. `ps_5_0`"),
        );
    }
    // level-9 targets (`ps_4_0_level_9_1`, `lib_4_0_level_9_1_vs_only`)
    // are SM4.0 programs
    let rest = &parts[3..];
    let level9 = match rest {
        [] => true,
        ["level", "9", n, tail @ ..] => {
            n.bytes().all(|b| b.is_ascii_digit())
                && matches!(tail, [] | ["vs", "only"] | ["ps", "only"])
        }
        _ => false,
    };
    if !level9 {
        return bad(
            format!("unknown version suffix in `{word}`"),
            Some("only `_level_9_N` follows the version"),
        );
    }
    Ok(Version {
        program_type,
        major: major as u8,
        minor: minor as u8,
    })
}

mod custom_data;
mod declarations;
mod mnemonics;
mod operands;
#[cfg(test)]
mod tests;

use custom_data::custom;
use declarations::parse_return_types;
#[cfg(test)]
use mnemonics::suffix_note;
use mnemonics::{extended_marker, is_known_mnemonic};
