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
use tgsi_ir::diag::{Diagnostic, Diagnostics, push_limited};
use tgsi_ir::ir::Span;
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
        Err(Diagnostics(parser.diags))
    }
}

const VERSION_EXAMPLES: &str = "a version line such as `ps_5_0`, `vs_4_0` or `cs_5_0`";

/// The error was recorded in `Parser::diags`; the caller recovers.
struct Reported;

type PResult<T> = Result<T, Reported>;

/// A program being parsed.
struct Open {
    program: Program,
    map: SourceMap,
    header: Span,
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    diags: Vec<Diagnostic>,
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

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Parser<'a> {
        Parser {
            src,
            toks: tokenize(src),
            pos: 0,
            diags: Vec::new(),
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

    fn peek(&self) -> Token {
        self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn peek_at(&self, n: usize) -> Token {
        self.toks[(self.pos + n).min(self.toks.len() - 1)]
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        if t.kind != TokenKind::Eof {
            self.pos += 1;
        }
        t
    }

    fn text(&self, t: Token) -> &'a str {
        t.text(self.src)
    }

    fn at(&self, kind: TokenKind) -> bool {
        self.peek().kind == kind
    }

    fn eat(&mut self, kind: TokenKind) -> Option<Token> {
        if self.at(kind) {
            Some(self.bump())
        } else {
            None
        }
    }

    fn at_word(&self, n: usize, word: &str) -> bool {
        let t = self.peek_at(n);
        t.kind == TokenKind::Ident && self.text(t) == word
    }

    fn prev_end(&self) -> usize {
        if self.pos == 0 {
            0
        } else {
            self.toks[self.pos - 1].span.end
        }
    }

    fn at_line_end(&self) -> bool {
        matches!(self.peek().kind, TokenKind::Newline | TokenKind::Eof)
    }

    // ----- diagnostics --------------------------------------------------

    fn push(&mut self, d: Diagnostic) {
        push_limited(&mut self.diags, d);
    }

    fn error(&mut self, d: Diagnostic) -> Reported {
        self.push(d);
        Reported
    }

    /// How the next token reads in a message, and the span to point at.
    fn describe_next(&self) -> (String, Span) {
        let t = self.peek();
        match t.kind {
            TokenKind::Eof => ("end of file".into(), t.span),
            TokenKind::Newline => {
                let end = self.prev_end();
                ("end of line".into(), Span::new(end, end))
            }
            _ => (format!("`{}`", short(self.text(t))), t.span),
        }
    }

    /// "expected X, found Y" at the next token.
    fn expected(&mut self, what: &str) -> Reported {
        let (found, span) = self.describe_next();
        self.error(
            Diagnostic::error(format!("expected {what}, found {found}"))
                .with_primary(span, format!("expected {what}")),
        )
    }

    fn expect(&mut self, kind: TokenKind, what: &str) -> PResult<Token> {
        match self.eat(kind) {
            Some(t) => Ok(t),
            None => Err(self.expected(what)),
        }
    }

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

    /// Reads one suffix piece at the cursor (`_word…` or a `(…)` group) into
    /// `pieces`; false, reading nothing, if the next token is neither.
    fn suffix_piece(&mut self, pieces: &mut Vec<Piece<'a>>) -> PResult<bool> {
        let t = self.peek();
        match t.kind {
            TokenKind::Ident if self.text(t).starts_with('_') => {
                self.bump();
                split_words(self.text(t), t.span.start, pieces);
            }
            TokenKind::LParen => {
                let (items, span) = self.group()?;
                pieces.push(Piece::Group(items, span));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Reads the mnemonic with its glued-on suffixes and groups and resolves it.
    fn mnemonic(&mut self) -> PResult<(Mnemonic, Span)> {
        let first = self.bump();
        let base = self.text(first);
        let mut pieces: Vec<Piece<'a>> = Vec::new();
        let mut end = first.span.end;
        while self.peek().span.start == end && self.suffix_piece(&mut pieces)? {
            end = self.prev_end();
        }
        let span = Span::new(first.span.start, end);
        let m = self.resolve(base, first.span, &pieces)?;
        Ok((m, span))
    }

    /// A parenthesised, comma-separated group; items as trimmed source text.
    fn group(&mut self) -> PResult<(Vec<(&'a str, Span)>, Span)> {
        let open = self.bump();
        let mut items = Vec::new();
        let mut item_start: Option<Token> = None;
        let mut item_end = open.span.end;
        loop {
            let t = self.peek();
            match t.kind {
                TokenKind::RParen | TokenKind::Comma => {
                    self.bump();
                    match item_start {
                        Some(s) => {
                            let sp = Span::new(s.span.start, item_end);
                            items.push((self.src[sp.start..sp.end].trim(), sp));
                        }
                        None => {
                            let sp = Span::new(t.span.start, t.span.start);
                            items.push(("", sp));
                        }
                    }
                    item_start = None;
                    if t.kind == TokenKind::RParen {
                        if items.len() == 1 && items[0].0.is_empty() {
                            items.clear();
                        }
                        return Ok((items, Span::new(open.span.start, t.span.end)));
                    }
                }
                TokenKind::Newline | TokenKind::Eof | TokenKind::LParen => {
                    let (found, span) = self.describe_next();
                    return Err(self.error(
                        Diagnostic::error(format!("expected `)`, found {found}"))
                            .with_primary(span, "expected `)`")
                            .with_secondary(open.span, "unclosed `(`"),
                    ));
                }
                _ => {
                    self.bump();
                    item_start.get_or_insert(t);
                    item_end = t.span.end;
                }
            }
        }
    }

    fn resolve(
        &mut self,
        base: &'a str,
        base_span: Span,
        pieces: &[Piece<'a>],
    ) -> PResult<Mnemonic> {
        // words that are not opcodes of the table
        if base == "dcl_immediateConstantBuffer" || base == "dcl_immediateconstantbuffer" {
            self.no_pieces(base, pieces)?;
            return Ok(Mnemonic::ImmediateConstantBuffer);
        }
        if let Some((id, _)) = SHADER_MESSAGE_NAMES.iter().find(|(_, n)| *n == base) {
            self.no_pieces(base, pieces)?;
            return Ok(Mnemonic::ShaderMessage {
                message_id: *id,
                format: SHADER_MESSAGE_FORMAT_PRINTF,
            });
        }
        if base == "shader_message" {
            return match pieces {
                [Piece::Group(items, _)] if items.len() == 2 => {
                    let id = self.unsigned_item(items[0])?;
                    let format = self.unsigned_item(items[1])?;
                    Ok(Mnemonic::ShaderMessage {
                        message_id: id,
                        format,
                    })
                }
                _ => Err(self.error(
                    Diagnostic::error("expected `shader_message(ID, FORMAT) \"…\"`")
                        .with_primary(base_span, "needs its message id and format in parentheses"),
                )),
            };
        }
        // the longest prefix (at `_` boundaries) that names an opcode and
        // whose remaining words are suffixes of it
        let mut candidates: Vec<(Opcode, usize)> = Vec::new();
        let boundaries = base
            .match_indices('_')
            .map(|(i, _)| i)
            .chain(std::iter::once(base.len()));
        let mut ends: Vec<usize> = boundaries.collect();
        ends.reverse();
        for end in ends {
            if let Some(op) = lookup_opcode(&base[..end]) {
                candidates.push((op, end));
            }
        }
        if candidates.is_empty() {
            let names = OPCODES
                .iter()
                .filter(|i| !i.flags.contains(OpFlags::RESERVED))
                .flat_map(|i| std::iter::once(i.name).chain(i.aliases.iter().copied()))
                .chain(SHADER_MESSAGE_NAMES.iter().map(|(_, n)| *n))
                .chain(["dcl_immediateConstantBuffer", "shader_message"]);
            let mut d = Diagnostic::error(format!("unknown instruction `{}`", short(base)))
                .with_primary(base_span, "expected an SM4/SM5 instruction or declaration");
            if let Some(s) = nearest(base, names) {
                d = d.with_note(format!("help: did you mean `{s}`?"));
            }
            return Err(self.error(d));
        }
        let mut first_error = None;
        for (opcode, end) in candidates {
            let mut all: Vec<Piece<'a>> = Vec::new();
            split_words(&base[end..], base_span.start + end, &mut all);
            all.extend(pieces.iter().cloned());
            match suffixes(opcode.info(), &all, base_span) {
                Ok((controls, extended)) => {
                    return Ok(Mnemonic::Op {
                        opcode,
                        controls,
                        extended,
                    });
                }
                Err(d) => {
                    first_error.get_or_insert(d);
                }
            }
        }
        Err(self.error(
            first_error
                .unwrap_or_else(|| Diagnostic::error("bad mnemonic").with_primary(base_span, "")),
        ))
    }

    fn no_pieces(&mut self, base: &str, pieces: &[Piece<'a>]) -> PResult<()> {
        match pieces.first() {
            None => Ok(()),
            Some(Piece::Word(w, s)) => Err(self.error(
                Diagnostic::error(format!("`_{w}` is not a suffix of `{base}`"))
                    .with_primary(*s, "unexpected suffix"),
            )),
            Some(Piece::Group(_, s)) => Err(self.error(
                Diagnostic::error(format!("`{base}` takes no parenthesised arguments"))
                    .with_primary(*s, "unexpected arguments"),
            )),
        }
    }

    fn unsigned_item(&mut self, (text, span): (&str, Span)) -> PResult<u32> {
        literal::unsigned(text).map_err(|m| {
            self.error(
                Diagnostic::error(format!("expected an unsigned integer: {m}"))
                    .with_primary(span, "expected a number"),
            )
        })
    }

    // ----- operands -----------------------------------------------------

    fn instruction_operands(&mut self, inst: &mut Instruction) -> PResult<()> {
        let info = inst.opcode.info();
        if self.at(TokenKind::LBracket) && self.at_word(1, "precise") {
            inst.controls.precise = self.precise(info)?;
        }
        let specs = info.operands;
        for (k, spec) in specs.iter().enumerate() {
            if k > 0 && self.eat(TokenKind::Comma).is_none() || k == 0 && self.at_line_end() {
                let (found, span) = self.describe_next();
                let list: Vec<&str> = specs.iter().map(|s| role_name(s.role)).collect();
                return Err(self.error(
                    Diagnostic::error(format!(
                        "`{}` takes {} operand{} ({}), found {found} after {k}",
                        info.name,
                        specs.len(),
                        if specs.len() == 1 { "" } else { "s" },
                        list.join(", ")
                    ))
                    .with_primary(
                        span,
                        format!("expected operand {} ({})", k + 1, role_name(spec.role)),
                    ),
                ));
            }
            self.glued_bracket = inst.opcode == Opcode::InterfaceCall;
            let parsed = self.operand(spec.role, 0);
            self.glued_bracket = false;
            let (op, span) = parsed?;
            self.operand_spans.push(span);
            inst.operands.push(op);
        }
        if inst.opcode == Opcode::InterfaceCall {
            inst.payload = Payload::CallSite(self.call_site(inst)?);
        }
        if self.at(TokenKind::Comma) {
            let t = self.peek();
            return Err(self.error(
                Diagnostic::error(format!(
                    "too many operands: `{}` takes {}",
                    info.name,
                    specs.len()
                ))
                .with_primary(t.span, "unexpected operand after the last one"),
            ));
        }
        Ok(())
    }

    /// Takes the bracket glued to the end of the last top-level operand (a
    /// call site or constant buffer size) off its indices; components that
    /// came from the operand's form follow the new index count.
    fn pop_glued(&self, op: &mut Operand, role: Role) -> Option<Index> {
        let index = op.indices.pop()?;
        if self.implied_default {
            let ctx = ComponentContext {
                file: op.file,
                role,
                index_count: op.indices.len(),
                printed_values: 0,
            };
            op.components = implied_components(&ctx, "").unwrap_or(op.components);
        }
        Some(index)
    }

    /// `fcall fp0[0][1]`: the last bracket is the call site.
    fn call_site(&mut self, inst: &mut Instruction) -> PResult<u32> {
        if self.at(TokenKind::LBracket) {
            self.bump();
            let n = self.number_u32("a call-site index")?;
            self.expect(TokenKind::RBracket, "`]`")?;
            return Ok(n);
        }
        let span = self.operand_spans.last().copied().unwrap_or_default();
        let popped = match inst.operands.first_mut() {
            Some(op) => self.pop_glued(op, Role::Src),
            None => None,
        };
        match popped {
            Some(Index::Imm32(n)) => Ok(n),
            _ => Err(self.error(
                Diagnostic::error("`fcall` needs an interface and a call site: `fcall fp0[0][1]`")
                    .with_primary(span, "expected `fp#[array index][call site]`"),
            )),
        }
    }

    fn precise(&mut self, info: &OpcodeInfo) -> PResult<u8> {
        let open = self.bump();
        self.bump();
        let mut mask = 0xF;
        if self.eat(TokenKind::LParen).is_some() {
            let t = self.expect(TokenKind::Ident, "component letters")?;
            mask = match mask_from_letters(self.text(t)) {
                Some(m) if m != 0 => m,
                _ => {
                    return Err(self.error(
                        Diagnostic::error(format!("bad precise mask `{}`", self.text(t)))
                            .with_primary(t.span, "expected components in order x, y, z, w"),
                    ));
                }
            };
            self.expect(TokenKind::RParen, "`)`")?;
        }
        let close = self.expect(TokenKind::RBracket, "`]`")?;
        if !info.flags.contains(OpFlags::PRECISE) {
            return Err(self.error(
                Diagnostic::error(format!("`{}` has no precise mask", info.name)).with_primary(
                    Span::new(open.span.start, close.span.end),
                    "cannot be encoded on this opcode",
                ),
            ));
        }
        Ok(mask)
    }

    /// An operand: modifiers, register or immediate, component letters and
    /// annotations. `role` decides what the letters mean.
    fn operand(&mut self, role: Role, depth: usize) -> PResult<(Operand, Span)> {
        let start = self.peek().span.start;
        let neg = self.eat(TokenKind::Minus).is_some();
        let abs = self.eat(TokenKind::Pipe);
        let (mut op, letters, printed_values) = self.operand_core(depth)?;
        if let Some(open) = abs
            && self.eat(TokenKind::Pipe).is_none()
        {
            let (found, span) = self.describe_next();
            return Err(self.error(
                Diagnostic::error(format!(
                    "expected `|` closing the absolute value, found {found}"
                ))
                .with_primary(span, "expected `|`")
                .with_secondary(open.span, "opened here"),
            ));
        }
        op.modifier = match (neg, abs.is_some()) {
            (false, false) => OperandModifier::None,
            (true, false) => OperandModifier::Neg,
            (false, true) => OperandModifier::Abs,
            (true, true) => OperandModifier::AbsNeg,
        };
        let mut marker: Option<(Components, Span)> = None;
        while self.at(TokenKind::LBrace)
            && !self.at_word(1, "trailing")
            && !self.at_word(1, "extended")
        {
            if let Some(m) = self.annotation(&mut op)? {
                marker = Some(m);
            }
        }
        let ctx = ComponentContext {
            file: op.file,
            role,
            index_count: op.indices.len(),
            printed_values,
        };
        if depth == 0 {
            self.implied_default = marker.is_none() && letters.is_none();
        }
        op.components = match (marker, &letters) {
            (Some((_, span)), Some((_, lspan))) => {
                return Err(self.error(
                    Diagnostic::error(
                        "an operand has either `.xyzw` letters or a component marker, not both",
                    )
                    .with_primary(span, "component marker")
                    .with_secondary(*lspan, "letters"),
                ));
            }
            (Some((c, _)), None) => c,
            (None, None) => implied_components(&ctx, "").unwrap_or(Components::None),
            (None, Some((text, span))) => match implied_components(&ctx, text) {
                Some(c) => c,
                None => match padded_swizzle(role, text) {
                    Some(c) => c,
                    None => return Err(self.bad_letters(role, text, *span)),
                },
            },
        };
        let span = Span::new(start, self.prev_end());
        if op.indices.len() > 3 && !(depth == 0 && self.glued_bracket) {
            return Err(self.error(
                Diagnostic::error("an operand holds at most 3 indices")
                    .with_primary(span, "one index too many"),
            ));
        }
        if op.file.is_immediate() {
            let dwords = match (op.file, op.components) {
                (_, Components::None) => 0,
                (RegisterFile::Immediate32, Components::One) => 1,
                (RegisterFile::Immediate64, Components::One) => 2,
                _ => 4,
            };
            if dwords != op.values.len() {
                let what = if op.file == RegisterFile::Immediate32 {
                    "an `l(…)` immediate holds 1 or 4 values"
                } else {
                    "a `d(…)` immediate holds 1 or 2 doubles"
                };
                return Err(self.error(
                    Diagnostic::error(format!("{what}, found {}", printed_values))
                        .with_primary(span, "cannot be encoded"),
                ));
            }
        }
        Ok((op, span))
    }

    fn bad_letters(&mut self, role: Role, text: &str, span: Span) -> Reported {
        let d = if !text.chars().all(|c| COMPONENT_NAMES.contains(&c)) || text.len() > 4 {
            Diagnostic::error(format!("bad component letters `.{text}`"))
                .with_primary(span, "expected 1 to 4 of x, y, z, w")
        } else if role == Role::Src {
            Diagnostic::error(format!("bad swizzle `.{text}`"))
                .with_primary(span, "expected 1 or 4 letters")
        } else {
            Diagnostic::error(format!("bad write mask `.{text}`")).with_primary(
                span,
                "a mask names each component at most once, in order x, y, z, w",
            )
        };
        self.error(d)
    }

    /// `{min16f}`, `{min16f as def32}`, `{nonuniform}`, `{ext}` and the
    /// component markers; returns a component marker.
    fn annotation(&mut self, op: &mut Operand) -> PResult<Option<(Components, Span)>> {
        let open = self.bump();
        let word_tok = self.expect(TokenKind::Ident, "an annotation such as `min16f`")?;
        let word = self.text(word_tok);
        let mut marker = None;
        if let Some(p) = named(
            word,
            MinPrecision::ALL,
            MinPrecision::name,
            MinPrecision::aliases,
        ) {
            op.min_precision = p;
            if self.at_word(0, "as") {
                self.bump();
                let t = self.expect(TokenKind::Ident, "a precision after `as`")?;
                if named(
                    self.text(t),
                    MinPrecision::ALL,
                    MinPrecision::name,
                    MinPrecision::aliases,
                )
                .is_none()
                {
                    return Err(self.unknown_name(
                        "precision",
                        t,
                        MinPrecision::ALL.iter().map(|p| p.name()),
                    ));
                }
            }
        } else {
            match word {
                "nonuniform" => op.non_uniform = true,
                "ext" => op.force_extended = true,
                "components" | "mask" | "swizzle" | "select" => {
                    self.expect(TokenKind::Equals, "`=`")?;
                    let value = if self.at(TokenKind::RBrace) {
                        None
                    } else {
                        Some(self.bump())
                    };
                    let text = value.map(|t| self.text(t)).unwrap_or("");
                    let span = value.map(|t| t.span).unwrap_or(word_tok.span);
                    let c = match word {
                        "components" if text == "none" => Some(Components::None),
                        "components" if text == "1" => Some(Components::One),
                        "mask" => mask_from_letters(text).map(Components::Mask),
                        "swizzle" => component_numbers(text)
                            .filter(|l| l.len() == 4)
                            .map(|l| Components::Swizzle([l[0], l[1], l[2], l[3]])),
                        "select" => component_numbers(text)
                            .filter(|l| l.len() == 1)
                            .map(|l| Components::Select(l[0])),
                        _ => None,
                    };
                    match c {
                        Some(c) => marker = Some((c, Span::new(open.span.start, span.end))),
                        None => {
                            return Err(self.error(
                                Diagnostic::error(format!(
                                    "bad component marker `{{{word}={text}}}`"
                                ))
                                .with_primary(
                                    span,
                                    "expected `none`/`1`, a mask, 4 swizzle letters or 1 letter",
                                ),
                            ));
                        }
                    }
                }
                _ => {
                    let known = MinPrecision::ALL.iter().map(|p| p.name()).chain([
                        "nonuniform",
                        "ext",
                        "components",
                        "mask",
                        "swizzle",
                        "select",
                    ]);
                    return Err(self.unknown_name("operand annotation", word_tok, known));
                }
            }
        }
        self.expect(TokenKind::RBrace, "`}`")?;
        Ok(marker)
    }

    fn unknown_name<'n>(
        &mut self,
        what: &str,
        t: Token,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Reported {
        let text = self.text(t);
        let mut d = Diagnostic::error(format!("unknown {what} `{}`", short(text)))
            .with_primary(t.span, format!("not a known {what}"));
        if let Some(s) = nearest(text, names) {
            d = d.with_note(format!("help: did you mean `{s}`?"));
        }
        self.error(d)
    }

    /// The register or immediate with its indices and `.letters`; the
    /// operand's components are filled in by the caller.
    #[allow(clippy::type_complexity)]
    fn operand_core(&mut self, depth: usize) -> PResult<(Operand, Option<(&'a str, Span)>, usize)> {
        let t = self.peek();
        if t.kind != TokenKind::Ident {
            return Err(
                self.expected("an operand (a register such as `r0.x` or an immediate `l(…)`)")
            );
        }
        let word = self.text(t);
        let next = self.peek_at(1);
        let mut printed_values = 0;
        let mut op = if (word == "l" || word == "d")
            && next.kind == TokenKind::LParen
            && next.span.start == t.span.end
        {
            self.bump();
            self.bump();
            let mut values = Vec::new();
            loop {
                let negative = self.eat(TokenKind::Minus).is_some();
                let v = self.peek();
                if !matches!(v.kind, TokenKind::Number | TokenKind::Ident) {
                    return Err(self.expected("a number"));
                }
                self.bump();
                let lit = Literal {
                    negative,
                    text: self.text(v),
                };
                if word == "l" {
                    let bits = literal::imm32(lit).map_err(|m| self.bad_literal(m, v.span))?;
                    values.push(bits);
                } else {
                    let bits = literal::imm64(lit).map_err(|m| self.bad_literal(m, v.span))?;
                    values.push(bits as u32);
                    values.push((bits >> 32) as u32);
                }
                printed_values += 1;
                if self.eat(TokenKind::Comma).is_some() {
                    continue;
                }
                self.expect(TokenKind::RParen, "`,` or `)`")?;
                break;
            }
            let file = if word == "l" {
                RegisterFile::Immediate32
            } else {
                RegisterFile::Immediate64
            };
            let mut op = Operand {
                values,
                ..Operand::register(file, &[], Components::None)
            };
            // indices, which fxc never writes on an immediate
            self.brackets(&mut op, depth)?;
            op
        } else {
            self.bump();
            self.register(t, depth)?
        };
        let mut letters = None;
        if self.at(TokenKind::Dot) {
            self.bump();
            let l = self.expect(TokenKind::Ident, "component letters such as `xyzw`")?;
            letters = Some((self.text(l), l.span));
        }
        if op.file.is_immediate() && op.values.is_empty() {
            op.components = Components::None;
        }
        Ok((op, letters, printed_values))
    }

    fn bad_literal(&mut self, message: String, span: Span) -> Reported {
        self.error(
            Diagnostic::error(format!("bad immediate: {message}"))
                .with_primary(span, "cannot be encoded"),
        )
    }

    fn register(&mut self, t: Token, depth: usize) -> PResult<Operand> {
        let word = self.text(t);
        let digits_at = word.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, digits) = word.split_at(digits_at);
        let Some(file) = lookup_file(prefix, depth == 0 && self.upper_declaration) else {
            let names = RegisterFile::ALL
                .iter()
                .filter(|f| !f.is_immediate())
                .map(|f| f.name());
            let mut d = Diagnostic::error(format!("unknown register `{}`", short(word)))
                .with_primary(
                    t.span,
                    "expected a register such as `r0`, `v1`, `cb0[2]` or `l(…)`",
                );
            if let Some(s) = nearest(prefix, names) {
                d = d.with_note(format!("help: did you mean `{s}{digits}`?"));
            }
            return Err(self.error(d));
        };
        let mut op = Operand::register(file, &[], Components::None);
        if !digits.is_empty() {
            let n = literal::unsigned(digits).map_err(|m| {
                self.error(
                    Diagnostic::error(format!("register index out of range: {m}"))
                        .with_primary(t.span, "an index is a 32-bit number"),
                )
            })?;
            op.indices.push(Index::Imm32(n));
        }
        self.brackets(&mut op, depth)?;
        Ok(op)
    }

    /// The `[…]` indices after a register or an immediate.
    fn brackets(&mut self, op: &mut Operand, depth: usize) -> PResult<()> {
        while self.at(TokenKind::LBracket) {
            let open = self.bump();
            let mut got = self.index(depth)?;
            op.indices.append(&mut got);
            let close = self.expect(TokenKind::RBracket, "`]`")?;
            // a constant-buffer size or a call site may be glued on
            let limit = if depth == 0 && self.glued_bracket {
                4
            } else {
                3
            };
            if op.indices.len() > limit {
                return Err(self.error(
                    Diagnostic::error("an operand holds at most 3 indices").with_primary(
                        Span::new(open.span.start, close.span.end),
                        "one index too many",
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The inside of one `[…]`: a number (`5`, `5l`), a range (`2:6`, `0:*`),
    /// or a relative index (`r0.x + 3`, `0 + r0.x`, `r0.x + 3l`).
    fn index(&mut self, depth: usize) -> PResult<Vec<Index>> {
        if self.at(TokenKind::Number) {
            let (n, wide, span) = self.index_number()?;
            if self.eat(TokenKind::Colon).is_some() {
                let hi = if self.eat(TokenKind::Star).is_some() {
                    u32::MAX
                } else {
                    self.number_u32("the end of the range")?
                };
                return Ok(vec![
                    Index::Imm32(self.narrow(n, wide, span)?),
                    Index::Imm32(hi),
                ]);
            }
            if self.eat(TokenKind::Plus).is_some() {
                let rel = Box::new(self.relative(depth)?);
                return Ok(vec![if wide {
                    Index::Imm64Relative(n, rel)
                } else {
                    Index::Imm32Relative(self.narrow(n, wide, span)?, rel)
                }]);
            }
            return Ok(vec![if wide {
                Index::Imm64(n)
            } else {
                Index::Imm32(self.narrow(n, wide, span)?)
            }]);
        }
        let rel = Box::new(self.relative(depth)?);
        if self.eat(TokenKind::Plus).is_none() {
            return Ok(vec![Index::Relative(rel)]);
        }
        let (n, wide, span) = self.index_number()?;
        Ok(vec![match (n, wide) {
            (0, false) => Index::Relative(rel),
            (_, false) => Index::Imm32Relative(self.narrow(n, wide, span)?, rel),
            (_, true) => Index::Imm64Relative(n, rel),
        }])
    }

    fn relative(&mut self, depth: usize) -> PResult<Operand> {
        if depth >= MAX_RELATIVE_DEPTH {
            let (_, span) = self.describe_next();
            return Err(self.error(
                Diagnostic::error(format!(
                    "relative indices nested deeper than {MAX_RELATIVE_DEPTH} levels"
                ))
                .with_primary(span, "too deep"),
            ));
        }
        let (op, _) = self.operand(Role::Src, depth + 1)?;
        Ok(op)
    }

    /// An index number: its value, whether it had the 64-bit `l` suffix.
    fn index_number(&mut self) -> PResult<(u64, bool, Span)> {
        let t = self.peek();
        if t.kind != TokenKind::Number {
            return Err(self.expected("an index"));
        }
        self.bump();
        let text = self.text(t);
        let (digits, wide) = match text.strip_suffix('l') {
            Some(d) => (d, true),
            None => (text, false),
        };
        let value = if digits.bytes().all(|b| b.is_ascii_digit()) {
            digits.parse::<u64>().ok()
        } else if let Some(h) = digits.strip_prefix("0x") {
            u64::from_str_radix(h, 16).ok()
        } else {
            None
        };
        match value {
            Some(v) => Ok((v, wide, t.span)),
            None => Err(self.error(
                Diagnostic::error(format!("bad index `{}`", short(text))).with_primary(
                    t.span,
                    "expected an unsigned index (64-bit ones end in `l`)",
                ),
            )),
        }
    }

    fn narrow(&mut self, n: u64, wide: bool, span: Span) -> PResult<u32> {
        if wide || n > u32::MAX as u64 {
            return Err(self.error(
                Diagnostic::error(format!("index {n} does not fit 32 bits"))
                    .with_primary(span, "write a 64-bit index as `Nl`"),
            ));
        }
        Ok(n as u32)
    }

    fn number_u32(&mut self, what: &str) -> PResult<u32> {
        let t = self.peek();
        if t.kind != TokenKind::Number {
            return Err(self.expected(what));
        }
        self.bump();
        literal::unsigned(self.text(t)).map_err(|m| {
            self.error(
                Diagnostic::error(format!("bad {what}: {m}"))
                    .with_primary(t.span, format!("expected {what}")),
            )
        })
    }

    /// A number that must fit `bits` bits.
    fn number_bits(&mut self, what: &str, bits: u32) -> PResult<u32> {
        let t = self.peek();
        let n = self.number_u32(what)?;
        if bits < 32 && n >= 1 << bits {
            return Err(self.error(
                Diagnostic::error(format!(
                    "{what} {n} is too big: the token field holds {bits} bits (0 to {})",
                    (1u32 << bits) - 1
                ))
                .with_primary(t.span, "out of range"),
            ));
        }
        Ok(n)
    }

    // ----- declarations -------------------------------------------------

    fn decl_operand(&mut self) -> PResult<Operand> {
        let (op, span) = self.operand(Role::Decl, 0)?;
        self.operand_spans.push(span);
        Ok(op)
    }

    fn comma(&mut self) -> PResult<()> {
        self.expect(TokenKind::Comma, "`,`").map(|_| ())
    }

    /// `, space=N` (SM5.1), if present.
    fn space(&mut self) -> PResult<Option<u32>> {
        if self.at(TokenKind::Comma) && self.at_word(1, "space") {
            self.bump();
            self.bump();
            self.expect(TokenKind::Equals, "`=`")?;
            return self.number_u32("a register space").map(Some);
        }
        Ok(None)
    }

    fn return_types(&mut self) -> PResult<[ReturnType; 4]> {
        if !self.at(TokenKind::LParen) {
            return Err(self.expected("a return-type list such as `(float,float,float,float)`"));
        }
        let (items, _) = self.group()?;
        parse_return_types(&items).map_err(|d| self.error(d))
    }

    fn enum_word<T: Copy>(
        &mut self,
        what: &str,
        all: &'static [T],
        name: fn(T) -> &'static str,
        aliases: fn(T) -> &'static [&'static str],
    ) -> PResult<T> {
        let t = self.peek();
        if t.kind != TokenKind::Ident {
            return Err(self.expected(what));
        }
        self.bump();
        match named(self.text(t), all, name, aliases) {
            Some(v) => Ok(v),
            None => Err(self.unknown_name(what, t, all.iter().map(|v| name(*v)))),
        }
    }

    fn system_value(&mut self) -> PResult<SystemValue> {
        self.comma()?;
        self.enum_word(
            "system value",
            SystemValue::ALL,
            SystemValue::name,
            SystemValue::aliases,
        )
    }

    /// `linear noperspective centroid` … before a pixel-shader input (none = undefined).
    fn interpolation(&mut self) -> PResult<Interpolation> {
        const WORDS: [&str; 6] = [
            "constant",
            "linear",
            "centroid",
            "noperspective",
            "sample",
            "undefined",
        ];
        let first = self.peek();
        let mut words = Vec::new();
        while self.peek().kind == TokenKind::Ident && WORDS.contains(&self.text(self.peek())) {
            let t = self.bump();
            words.push(self.text(t));
        }
        if words.is_empty() {
            return Ok(Interpolation::Undefined);
        }
        let joined = words.join(" ");
        Interpolation::from_name(&joined).ok_or_else(|| {
            self.error(
                Diagnostic::error(format!("unknown interpolation mode `{joined}`"))
                    .with_primary(
                        Span::new(first.span.start, self.prev_end()),
                        "not an interpolation mode",
                    )
                    .with_note("modes: constant, linear [noperspective] [centroid | sample]"),
            )
        })
    }

    /// The register number of a `fb#` / `ft#` / `fp#` / `x#` word.
    fn numbered(&mut self, prefix: &str) -> PResult<u32> {
        let t = self.peek();
        let text = if t.kind == TokenKind::Ident {
            self.text(t)
        } else {
            ""
        };
        match text.strip_prefix(prefix).map(literal::unsigned) {
            Some(Ok(n)) => {
                self.bump();
                Ok(n)
            }
            _ => Err(self.expected(&format!("`{prefix}#`"))),
        }
    }

    /// `{a#, b#, …}` of function tables and interfaces.
    fn numbered_list(&mut self, prefix: &str) -> PResult<Vec<u32>> {
        self.expect(TokenKind::Equals, "`=`")?;
        self.expect(TokenKind::LBrace, "`{`")?;
        let mut out = Vec::new();
        if self.eat(TokenKind::RBrace).is_some() {
            return Ok(out);
        }
        loop {
            out.push(self.numbered(prefix)?);
            if self.eat(TokenKind::Comma).is_some() {
                continue;
            }
            self.expect(TokenKind::RBrace, "`,` or `}`")?;
            return Ok(out);
        }
    }

    fn declaration(&mut self, inst: &mut Instruction) -> PResult<()> {
        let opcode = inst.opcode;
        let c = &mut inst.controls;
        let mut operands = Vec::new();
        let payload = match opcode {
            Opcode::DclResource | Opcode::DclUavTyped => {
                let types = self.return_types()?;
                operands.push(self.decl_operand()?);
                Payload::ReturnTypes {
                    types,
                    space: self.space()?,
                }
            }
            Opcode::DclUavRaw | Opcode::DclResourceRaw => {
                operands.push(self.decl_operand()?);
                Payload::Space(self.space()?)
            }
            Opcode::DclUavStructured | Opcode::DclResourceStructured => {
                operands.push(self.decl_operand()?);
                self.comma()?;
                let stride = self.number_u32("a structure stride")?;
                Payload::Structured {
                    stride,
                    space: self.space()?,
                }
            }
            Opcode::DclConstantBuffer => {
                self.upper_declaration = true;
                self.glued_bracket = true;
                let op = self.decl_operand();
                self.upper_declaration = false;
                self.glued_bracket = false;
                let mut op = op?;
                // the SM5.1 size: glued to the register (`CB0[0:3][2]`, read
                // as its last index) or after its annotations
                let mut size = None;
                if self.at(TokenKind::LBracket) {
                    let open = self.bump();
                    size = Some((self.number_u32("a constant buffer size")?, open.span));
                    self.expect(TokenKind::RBracket, "`]`")?;
                }
                self.comma()?;
                c.cb_access = CbAccessControl(self.enum_word(
                    "constant buffer access pattern",
                    ConstantBufferAccess::ALL,
                    ConstantBufferAccess::name,
                    ConstantBufferAccess::aliases,
                )?);
                let space = self.space()?;
                if let (Some((_, span)), None) = (size, space) {
                    return Err(self.error(
                        Diagnostic::error("a constant buffer size goes with a register space: `CB0[0:0][4], immediateIndexed, space=0`")
                            .with_primary(span, "size without `space=`"),
                    ));
                }
                let range = match space {
                    None => None,
                    Some(space) => match size
                        .map(|(n, _)| Index::Imm32(n))
                        .or_else(|| self.pop_glued(&mut op, Role::Decl))
                    {
                        Some(Index::Imm32(size)) => Some(ConstantBufferRange { size, space }),
                        _ => {
                            let span = self.operand_spans.last().copied().unwrap_or_default();
                            return Err(self.error(
                                Diagnostic::error("an SM5.1 constant buffer declaration needs its size: `CB0[0:0][4], immediateIndexed, space=0`")
                                    .with_primary(span, "expected `[size]` after the range"),
                            ));
                        }
                    },
                };
                operands.push(op);
                Payload::ConstantBuffer(range)
            }
            Opcode::DclSampler => {
                operands.push(self.decl_operand()?);
                self.comma()?;
                c.sampler_mode = SamplerModeControl(self.enum_word(
                    "sampler mode",
                    SamplerMode::ALL,
                    SamplerMode::name,
                    SamplerMode::aliases,
                )?);
                Payload::Space(self.space()?)
            }
            Opcode::DclIndexRange => {
                operands.push(self.decl_operand()?);
                self.eat(TokenKind::Comma);
                Payload::Count(self.number_u32("a register count")?)
            }
            Opcode::DclGsOutputPrimitiveTopology => {
                c.output_topology = TopologyControl(self.enum_word(
                    "output topology",
                    PrimitiveTopology::ALL,
                    PrimitiveTopology::name,
                    PrimitiveTopology::aliases,
                )?);
                Payload::None
            }
            Opcode::DclGsInputPrimitive => {
                c.input_primitive = InputPrimitiveControl(self.enum_word(
                    "input primitive",
                    InputPrimitive::ALL,
                    InputPrimitive::name,
                    InputPrimitive::aliases,
                )?);
                Payload::None
            }
            Opcode::DclInput | Opcode::DclOutput | Opcode::DclStream => {
                operands.push(self.decl_operand()?);
                Payload::None
            }
            Opcode::DclInputSgv
            | Opcode::DclInputSiv
            | Opcode::DclOutputSgv
            | Opcode::DclOutputSiv => {
                operands.push(self.decl_operand()?);
                Payload::Name(self.system_value()?)
            }
            Opcode::DclInputPs => {
                c.interpolation = InterpolationControl(self.interpolation()?);
                operands.push(self.decl_operand()?);
                Payload::None
            }
            Opcode::DclInputPsSgv | Opcode::DclInputPsSiv => {
                c.interpolation = InterpolationControl(self.interpolation()?);
                operands.push(self.decl_operand()?);
                Payload::Name(self.system_value()?)
            }
            Opcode::DclIndexableTemp => {
                let register = self.numbered("x")?;
                self.expect(TokenKind::LBracket, "`[`")?;
                let count = self.number_u32("a register count")?;
                self.expect(TokenKind::RBracket, "`]`")?;
                self.comma()?;
                let components = self.number_u32("a component count")?;
                Payload::IndexableTemp {
                    register,
                    count,
                    components,
                }
            }
            Opcode::DclGlobalFlags => {
                let mut flags = GlobalFlags::empty();
                while !self.at_line_end() && !self.at(TokenKind::LBrace) {
                    if !flags.is_empty() || self.at(TokenKind::Pipe) {
                        self.expect(TokenKind::Pipe, "`|`")?;
                    }
                    let t = self.expect(TokenKind::Ident, "a global flag")?;
                    let word = self.text(t);
                    match GLOBAL_FLAG_NAMES
                        .iter()
                        .find(|(_, n)| *n == word || (n.to_ascii_lowercase() == word))
                    {
                        Some((f, _)) => flags |= *f,
                        None => {
                            return Err(self.unknown_name(
                                "global flag",
                                t,
                                GLOBAL_FLAG_NAMES.iter().map(|(_, n)| *n),
                            ));
                        }
                    }
                }
                c.global_flags = flags;
                Payload::None
            }
            Opcode::DclFunctionBody => Payload::Count(self.numbered("fb")?),
            Opcode::DclFunctionTable => {
                let index = self.numbered("ft")?;
                let bodies = self.numbered_list("fb")?;
                Payload::FunctionTable { index, bodies }
            }
            Opcode::DclInterface => {
                let index = self.numbered("fp")?;
                self.expect(TokenKind::LBracket, "`[`")?;
                let array_size = self.number_bits("an interface array size", 16)? as u16;
                self.expect(TokenKind::RBracket, "`]`")?;
                self.expect(TokenKind::LBracket, "`[`")?;
                let call_sites = self.number_u32("a call-site count")?;
                self.expect(TokenKind::RBracket, "`]`")?;
                let tables = self.numbered_list("ft")?;
                Payload::Interface {
                    index,
                    call_sites,
                    array_size,
                    tables,
                }
            }
            Opcode::DclInputControlPointCount | Opcode::DclOutputControlPointCount => {
                c.control_point_count = self.number_bits("a control point count", 6)? as u8;
                Payload::None
            }
            Opcode::DclTessDomain => {
                c.tess_domain = TessDomainControl(self.enum_word(
                    "tessellator domain",
                    TessellatorDomain::ALL,
                    TessellatorDomain::name,
                    TessellatorDomain::aliases,
                )?);
                Payload::None
            }
            Opcode::DclTessPartitioning => {
                c.tess_partitioning = TessPartitioningControl(self.enum_word(
                    "tessellator partitioning",
                    TessellatorPartitioning::ALL,
                    TessellatorPartitioning::name,
                    TessellatorPartitioning::aliases,
                )?);
                Payload::None
            }
            Opcode::DclTessOutputPrimitive => {
                c.tess_output_primitive = TessOutputControl(self.enum_word(
                    "tessellator output primitive",
                    TessellatorOutputPrimitive::ALL,
                    TessellatorOutputPrimitive::name,
                    TessellatorOutputPrimitive::aliases,
                )?);
                Payload::None
            }
            Opcode::DclHsMaxTessFactor => {
                let (op, _) = self.operand(Role::Src, 0)?;
                match (op.file, op.values.as_slice()) {
                    (RegisterFile::Immediate32, [bits]) => Payload::Float(*bits),
                    _ => {
                        let span = Span::new(
                            self.operand_spans.last().map_or(0, |s| s.start),
                            self.prev_end(),
                        );
                        return Err(self.error(
                            Diagnostic::error(
                                "`dcl_hs_max_tessfactor` takes one float: `l(64.000000)`",
                            )
                            .with_primary(span, "expected `l(value)`"),
                        ));
                    }
                }
            }
            Opcode::DclThreadGroup => {
                let x = self.number_u32("the thread-group x size")?;
                self.comma()?;
                let y = self.number_u32("the thread-group y size")?;
                self.comma()?;
                let z = self.number_u32("the thread-group z size")?;
                Payload::ThreadGroup([x, y, z])
            }
            Opcode::DclTgsmRaw => {
                operands.push(self.decl_operand()?);
                self.comma()?;
                Payload::Count(self.number_u32("a byte count")?)
            }
            Opcode::DclTgsmStructured => {
                operands.push(self.decl_operand()?);
                self.comma()?;
                let stride = self.number_u32("a structure stride")?;
                self.comma()?;
                let count = self.number_u32("a structure count")?;
                Payload::TgsmStructured { stride, count }
            }
            // dcl_temps, dcl_maxout, phase instance counts, dcl_gsinstances
            _ => Payload::Count(self.number_u32("a count")?),
        };
        inst.operands = operands;
        inst.payload = payload;
        Ok(())
    }

    // ----- custom data --------------------------------------------------

    /// Newlines inside a `{ … }` block; a new statement or the end of the
    /// file before the block closes is an error.
    fn block_newlines(&mut self, open: Span, what: &str) -> PResult<()> {
        while self.at(TokenKind::Newline) {
            self.bump();
        }
        let t = self.peek();
        let runs_into_statement =
            t.kind == TokenKind::Ident && t.line_start && !matches!(self.text(t), "inf" | "nan");
        if t.kind == TokenKind::Eof || runs_into_statement {
            let found = if t.kind == TokenKind::Eof {
                "end of file".to_string()
            } else {
                format!("`{}`", short(self.text(t)))
            };
            return Err(self.error(
                Diagnostic::error(format!("unterminated {what}: expected `}}`, found {found}"))
                    .with_primary(open, "this `{` is never closed")
                    .with_secondary(t.span, "the block ends here"),
            ));
        }
        Ok(())
    }

    fn immediate_constant_buffer(&mut self, mnemonic: Span) -> PResult<Vec<u32>> {
        let open = self.expect(TokenKind::LBrace, "`{`")?.span;
        let what = "`dcl_immediateConstantBuffer` block";
        let mut data = Vec::new();
        self.block_newlines(open, what)?;
        if self.eat(TokenKind::RBrace).is_some() {
            return Ok(data);
        }
        loop {
            self.block_newlines(open, what)?;
            let row_open = self.expect(TokenKind::LBrace, "`{` starting a row of four values")?;
            let mut count = 0;
            loop {
                self.block_newlines(open, what)?;
                data.push(self.imm32_value()?);
                count += 1;
                self.block_newlines(open, what)?;
                if self.eat(TokenKind::Comma).is_some() {
                    continue;
                }
                self.expect(TokenKind::RBrace, "`,` or `}`")?;
                break;
            }
            if count > 4 {
                return Err(self.error(
                    Diagnostic::error(format!(
                        "an immediate constant buffer row holds at most 4 values, found {count}"
                    ))
                    .with_primary(
                        Span::new(row_open.span.start, self.prev_end()),
                        "too many values",
                    ),
                ));
            }
            self.block_newlines(open, what)?;
            if self.eat(TokenKind::Comma).is_some() {
                continue;
            }
            if self.eat(TokenKind::RBrace).is_some() {
                break;
            }
            return Err(self.expected("`,` or `}`"));
        }
        let _ = mnemonic;
        Ok(data)
    }

    fn imm32_value(&mut self) -> PResult<u32> {
        let negative = self.eat(TokenKind::Minus).is_some();
        let v = self.peek();
        if !matches!(v.kind, TokenKind::Number | TokenKind::Ident) {
            return Err(self.expected("a number"));
        }
        self.bump();
        literal::imm32(Literal {
            negative,
            text: self.text(v),
        })
        .map_err(|m| self.bad_literal(m, v.span))
    }

    /// `customdata CLASS { 0x…, … }`.
    fn custom_data(&mut self) -> PResult<Instruction> {
        let t = self.peek();
        let class = match t.kind {
            TokenKind::Number => self.number_u32("a custom-data class")?,
            TokenKind::Ident => self
                .enum_word(
                    "custom-data class",
                    CustomDataClass::ALL,
                    CustomDataClass::name,
                    CustomDataClass::aliases,
                )?
                .number(),
            _ => return Err(self.expected("a custom-data class such as `comment` or `opaque`")),
        };
        let open = self.expect(TokenKind::LBrace, "`{`")?.span;
        let what = "`customdata` block";
        let mut data = Vec::new();
        self.block_newlines(open, what)?;
        if self.eat(TokenKind::RBrace).is_none() {
            loop {
                self.block_newlines(open, what)?;
                data.push(self.imm32_value()?);
                self.block_newlines(open, what)?;
                if self.eat(TokenKind::Comma).is_some() {
                    continue;
                }
                self.expect(TokenKind::RBrace, "`,` or `}`")?;
                break;
            }
        }
        let body = if class == CustomDataClass::ImmediateConstantBuffer.number() {
            CustomData::ImmediateConstantBuffer(data)
        } else if class == CustomDataClass::ShaderMessage.number() {
            return Err(self.error(
                Diagnostic::error("a shader message is written `printf \"…\"`, `errorf \"…\"` or `shader_message(ID, FORMAT) \"…\"`")
                    .with_primary(t.span, "class 4 is a shader message"),
            ));
        } else {
            CustomData::Other { class, data }
        };
        Ok(custom(body))
    }

    /// `"format", operands…` of `printf` / `errorf` / `shader_message`.
    fn shader_message(&mut self, message_id: u32, format: u32) -> PResult<ShaderMessage> {
        let t = self.peek();
        let text = match t.kind {
            TokenKind::String => {
                self.bump();
                let raw = self.text(t);
                unescape(&raw[1..raw.len() - 1]).map_err(|(offset, m)| {
                    let at = t.span.start + 1 + offset;
                    self.error(
                        Diagnostic::error(m).with_primary(Span::new(at, at + 2), "bad escape"),
                    )
                })?
            }
            TokenKind::UnterminatedString => {
                return Err(self.error(
                    Diagnostic::error(
                        "unterminated string: expected `\"` before the end of the line",
                    )
                    .with_primary(t.span, "this string is never closed"),
                ));
            }
            _ => return Err(self.expected("a quoted format string")),
        };
        let mut operands = Vec::new();
        while self.eat(TokenKind::Comma).is_some() {
            let (op, span) = self.operand(Role::Src, 0)?;
            self.operand_spans.push(span);
            operands.push(op);
        }
        Ok(ShaderMessage {
            message_id,
            format,
            text,
            operands,
        })
    }

    /// ` {extended=_aoffimmi(1,0,0)(float,…)}` after a declaration.
    fn extended_tokens(&mut self) -> PResult<Vec<ExtendedOpcode>> {
        let open = self.bump();
        self.bump();
        self.expect(TokenKind::Equals, "`=`")?;
        let mut pieces: Vec<Piece<'a>> = Vec::new();
        while self.eat(TokenKind::RBrace).is_none() {
            if !self.suffix_piece(&mut pieces)? {
                return Err(self.expected("`_aoffimmi`, `_indexable`, `(…)` or `}`"));
            }
        }
        extended_marker(&pieces)
            .map_err(|d| self.error(d.with_secondary(open.span, "in this marker")))
    }

    /// ` {trailing=0x…, …}`: the dwords after an instruction's operands.
    fn trailing_marker(&mut self) -> PResult<Vec<u32>> {
        self.bump();
        self.bump();
        self.expect(TokenKind::Equals, "`=`")?;
        let mut out = Vec::new();
        if self.eat(TokenKind::RBrace).is_some() {
            return Ok(out);
        }
        loop {
            out.push(self.imm32_value()?);
            if self.eat(TokenKind::Comma).is_some() {
                continue;
            }
            self.expect(TokenKind::RBrace, "`,` or `}`")?;
            return Ok(out);
        }
    }
}

fn custom(data: CustomData) -> Instruction {
    let mut inst = Instruction::new(Opcode::CustomData, Vec::new());
    inst.payload = Payload::CustomData(data);
    inst
}

/// Splits `_a_b` (starting at byte `at`) into suffix words.
fn split_words<'a>(text: &'a str, at: usize, out: &mut Vec<Piece<'a>>) {
    // (start, end) of each non-empty `_`-separated part
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut offset = 0;
    for part in text.split('_') {
        if !part.is_empty() {
            parts.push((offset, offset + part.len()));
        }
        offset += part.len() + 1;
    }
    let mut k = 0;
    while k < parts.len() {
        let (start, mut end) = parts[k];
        // the two-word resource dimensions stay one word
        if matches!(&text[start..end], "raw" | "structured")
            && parts
                .get(k + 1)
                .is_some_and(|&(s, e)| s == end + 1 && &text[s..e] == "buffer")
        {
            end = parts[k + 1].1;
            k += 1;
        }
        out.push(Piece::Word(
            &text[start..end],
            Span::new((at + start).saturating_sub(1), at + end),
        ));
        k += 1;
    }
}

fn short(text: &str) -> String {
    text.chars().take(40).collect()
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Dst => "dst",
        Role::Src => "src",
        Role::Decl => "register",
    }
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

/// The opcode spelled `word` (fxc name, alias, or their lower-case form).
fn lookup_opcode(word: &str) -> Option<Opcode> {
    if let Some(op) = Opcode::from_name(word) {
        return Some(op);
    }
    if word.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    OPCODES
        .iter()
        .filter(|i| !i.flags.contains(OpFlags::RESERVED))
        .find(|i| {
            i.name.eq_ignore_ascii_case(word)
                || i.aliases.iter().any(|a| a.eq_ignore_ascii_case(word))
        })
        .map(|i| i.opcode)
}

/// True if some prefix of `word` names an instruction (for the missing
/// version line message).
fn is_known_mnemonic(word: &str) -> bool {
    let special = SHADER_MESSAGE_NAMES.iter().any(|(_, n)| *n == word)
        || matches!(word, "dcl_immediateConstantBuffer" | "shader_message");
    special
        || word
            .match_indices('_')
            .map(|(i, _)| i)
            .chain(std::iter::once(word.len()))
            .any(|end| lookup_opcode(&word[..end]).is_some())
}

/// The register file named by a register word's letters (`r`, `cb`, `CB`,
/// `vThreadID`, …); `l` followed by a number is a label.
///
/// With `any_upper` (the register a `dcl_constantbuffer` declares, which
/// fxc 10 prints upper-case whatever its file) every file's upper-case
/// name is accepted; otherwise only the range-bound files' (`T0`, `CB1`).
fn lookup_file(prefix: &str, any_upper: bool) -> Option<RegisterFile> {
    if prefix == "l" || (any_upper && prefix == "L") {
        return Some(RegisterFile::Label);
    }
    let file = named(
        prefix,
        RegisterFile::ALL,
        RegisterFile::name,
        RegisterFile::aliases,
    )
    .or_else(|| {
        RegisterFile::ALL
            .iter()
            .copied()
            .find(|f| (any_upper || f.is_range_bound()) && f.name().to_ascii_uppercase() == prefix)
    })?;
    if file.is_immediate() {
        None
    } else {
        Some(file)
    }
}

/// A 2- or 3-letter source swizzle padded with its last letter, as fxc does
/// (`.yx` is `.yxxx`).
fn padded_swizzle(role: Role, text: &str) -> Option<Components> {
    let nums = component_numbers(text)?;
    if role != Role::Src || !(2..=3).contains(&nums.len()) {
        return None;
    }
    let mut s = [nums[nums.len() - 1]; 4];
    s[..nums.len()].copy_from_slice(&nums);
    Some(Components::Swizzle(s))
}

/// `(t,t,t,t)`.
fn parse_return_types(items: &[(&str, Span)]) -> Result<[ReturnType; 4], Diagnostic> {
    if items.len() != 4 {
        let span = match (items.first(), items.last()) {
            (Some(a), Some(b)) => Span::new(a.1.start, b.1.end),
            _ => Span::default(),
        };
        return Err(Diagnostic::error(format!(
            "a return-type list names 4 types, found {}",
            items.len()
        ))
        .with_primary(span, "expected `(t,t,t,t)`"));
    }
    let mut out = [ReturnType::Float; 4];
    for (slot, (text, span)) in out.iter_mut().zip(items) {
        *slot = named(text, ReturnType::ALL, ReturnType::name, ReturnType::aliases).ok_or_else(
            || {
                let mut d = Diagnostic::error(format!("unknown return type `{}`", short(text)))
                    .with_primary(*span, "not a return type");
                if let Some(s) = nearest(text, ReturnType::ALL.iter().map(|t| t.name())) {
                    d = d.with_note(format!("help: did you mean `{s}`?"));
                }
                d
            },
        )?;
    }
    Ok(out)
}

/// What a parenthesised group after a mnemonic holds.
fn classify_group(items: &[(&str, Span)], span: Span) -> Result<ExtendedOpcode, Diagnostic> {
    let texts: Vec<&str> = items.iter().map(|i| i.0).collect();
    if items.len() == 3
        && texts.iter().all(|t| {
            t.trim_start_matches('-')
                .bytes()
                .all(|b| b.is_ascii_digit())
                && !t.is_empty()
        })
    {
        let mut offsets = [0i8; 3];
        for (slot, (text, s)) in offsets.iter_mut().zip(items) {
            let v: i64 = text.parse().unwrap_or(i64::MAX);
            if !(-8..=7).contains(&v) {
                return Err(Diagnostic::error(format!(
                    "texel offset {text} does not fit the 4-bit field (-8 to 7)"
                ))
                .with_primary(*s, "out of range"));
            }
            *slot = v as i8;
        }
        return Ok(ExtendedOpcode::SampleControls { offsets });
    }
    if items.len() == 4 {
        return parse_return_types(items).map(ExtendedOpcode::ResourceReturnType);
    }
    if let Some(dimension) = texts.first().and_then(|t| {
        named(
            t,
            ResourceDimension::ALL,
            ResourceDimension::name,
            ResourceDimension::aliases,
        )
    }) {
        let stride = match items.get(1) {
            None if items.len() == 1 => 0,
            Some((text, s)) if items.len() == 2 => {
                let value = text
                    .strip_prefix("stride")
                    .map(|r| r.trim_start())
                    .and_then(|r| r.strip_prefix('='))
                    .map(str::trim);
                match value.map(literal::unsigned) {
                    Some(Ok(n)) if n <= 0xFFF => n as u16,
                    Some(Ok(n)) => {
                        return Err(Diagnostic::error(format!(
                            "structure stride {n} does not fit the 12-bit field (0 to 4095)"
                        ))
                        .with_primary(*s, "out of range"));
                    }
                    _ => {
                        return Err(Diagnostic::error(format!(
                            "expected `stride=N`, found `{}`",
                            short(text)
                        ))
                        .with_primary(*s, "expected `stride=N`"));
                    }
                }
            }
            _ => {
                return Err(
                    Diagnostic::error("`(dimension[, stride=N])` takes at most two items")
                        .with_primary(span, "too many items"),
                );
            }
        };
        return Ok(ExtendedOpcode::ResourceDim { dimension, stride });
    }
    Err(Diagnostic::error(format!(
        "unknown suffix arguments `({})`",
        short(&texts.join(","))
    ))
    .with_primary(
        span,
        "expected `(u,v,w)` texel offsets, `(dimension[, stride=N])` or `(t,t,t,t)` return types",
    ))
}

/// Applies the suffix words and groups of a mnemonic to `info`'s controls
/// and extended tokens.
fn suffixes(
    info: &OpcodeInfo,
    pieces: &[Piece],
    base_span: Span,
) -> Result<(Controls, Vec<ExtendedOpcode>), Diagnostic> {
    let flags = info.flags;
    let mut c = Controls::default();
    let mut seen: Vec<&str> = Vec::new();
    let mut test = None;
    let mut ext_names: Vec<(&str, Span)> = Vec::new();
    let mut groups: Vec<(ExtendedOpcode, Span)> = Vec::new();
    let mut dimension_seen = false;
    let mut sample_group = false;
    let declaration = flags.contains(OpFlags::DECLARATION);
    for piece in pieces {
        let (word, span) = match piece {
            Piece::Word(w, s) => (*w, *s),
            Piece::Group(items, span) => {
                if info.opcode == Opcode::DclResource && dimension_seen && !sample_group {
                    sample_group = true;
                    let n = match items.as_slice() {
                        [(text, s)] => literal::unsigned(text).map_err(|m| {
                            Diagnostic::error(format!("bad sample count: {m}"))
                                .with_primary(*s, "expected a number")
                        })?,
                        _ => {
                            return Err(Diagnostic::error("expected a sample count `(N)`")
                                .with_primary(*span, "expected one number"));
                        }
                    };
                    if n > 127 {
                        return Err(Diagnostic::error(format!(
                            "sample count {n} is too big: the token field holds 7 bits (0 to 127)"
                        ))
                        .with_primary(*span, "out of range"));
                    }
                    c.sample_count = n as u8;
                    continue;
                }
                if declaration || flags.contains(OpFlags::CUSTOM_DATA) {
                    return Err(Diagnostic::error(format!(
                        "`{}` takes no parenthesised suffix here",
                        info.name
                    ))
                    .with_primary(*span, "unexpected arguments"));
                }
                groups.push((classify_group(items, *span)?, *span));
                continue;
            }
        };
        let duplicate = seen.contains(&word) && word != "aoffimmi" && word != "indexable";
        if duplicate {
            return Err(Diagnostic::error(format!("suffix `_{word}` given twice"))
                .with_primary(span, "repeated suffix"));
        }
        seen.push(word);
        let mut handled = true;
        if flags.contains(OpFlags::TEST) && (word == "z" || word == "nz") {
            if test.is_some() {
                return Err(Diagnostic::error("`_z` and `_nz` exclude each other")
                    .with_primary(span, "second test"));
            }
            test = Some(if word == "z" {
                Test::Zero
            } else {
                Test::NonZero
            });
        } else if flags.contains(OpFlags::SATURATE) && word == "sat" {
            c.saturate = true;
        } else if let Some((f, _)) = SYNC_FLAG_NAMES
            .iter()
            .find(|(_, n)| n[1..] == *word)
            .filter(|_| flags.contains(OpFlags::SYNC))
        {
            c.sync |= *f;
        } else if flags.intersects(OpFlags::RESINFO_RETURN | OpFlags::SAMPLEINFO_RETURN)
            && word == "uint"
        {
            c.info_return = InfoReturnControl(InfoReturnType::Uint);
        } else if flags.contains(OpFlags::RESINFO_RETURN)
            && (word == "rcpFloat" || word == "rcpfloat")
        {
            c.info_return = InfoReturnControl(InfoReturnType::RcpFloat);
        } else if flags.contains(OpFlags::RESOURCE_DIM)
            && !dimension_seen
            && let Some(d) = named(
                word,
                ResourceDimension::ALL,
                ResourceDimension::name,
                ResourceDimension::aliases,
            )
        {
            c.resource_dimension = ResourceDimensionControl(d);
            dimension_seen = true;
        } else if let Some((f, _)) = UAV_FLAG_NAMES.iter().find(|(_, n)| n[1..] == *word) {
            let allowed = match *f {
                UavFlags::GLOBALLY_COHERENT => flags.contains(OpFlags::UAV_COHERENT),
                UavFlags::RASTERIZER_ORDERED => flags.contains(OpFlags::UAV_RASTERIZER_ORDERED),
                _ => flags.contains(OpFlags::UAV_COUNTER),
            };
            if allowed {
                c.uav |= *f;
            } else {
                handled = false;
            }
        } else if flags.contains(OpFlags::INTERFACE_DYNAMIC) && word == "dynamicindexed" {
            c.interface_dynamic = true;
        } else if !declaration
            && !flags.contains(OpFlags::CUSTOM_DATA)
            && (word == "aoffimmi" || word == "indexable")
        {
            ext_names.push((word, span));
        } else {
            handled = false;
        }
        if !handled {
            return Err(
                Diagnostic::error(format!("`_{word}` is not a suffix of `{}`", info.name))
                    .with_primary(span, "unknown suffix")
                    .with_note(suffix_note(info)),
            );
        }
    }
    if flags.contains(OpFlags::TEST) {
        match test {
            Some(t) => c.test = TestControl(t),
            None => {
                return Err(Diagnostic::error(format!(
                    "`{}` needs a test suffix: `{0}_nz` (non-zero) or `{0}_z` (zero)",
                    info.name
                ))
                .with_primary(base_span, "missing `_z` or `_nz`"));
            }
        }
    }
    if flags.contains(OpFlags::RESOURCE_DIM) && !dimension_seen {
        return Err(Diagnostic::error(format!(
            "`{}` needs a resource dimension suffix, e.g. `{0}_texture2d`",
            info.name
        ))
        .with_primary(base_span, "missing dimension"));
    }
    Ok((c, match_extended(&ext_names, groups)?))
}

/// The extended opcode tokens of `_aoffimmi`/`_indexable` names and their
/// parenthesised groups (in token order; a return-type list has no name).
fn match_extended(
    ext_names: &[(&str, Span)],
    groups: Vec<(ExtendedOpcode, Span)>,
) -> Result<Vec<ExtendedOpcode>, Diagnostic> {
    // the named extended tokens must match the groups that need a name
    let named_groups: Vec<(&ExtendedOpcode, Span)> = groups
        .iter()
        .filter(|(g, _)| !matches!(g, ExtendedOpcode::ResourceReturnType(_)))
        .map(|(g, s)| (g, *s))
        .collect();
    for (k, (name, span)) in ext_names.iter().enumerate() {
        let wanted = match named_groups.get(k) {
            Some((ExtendedOpcode::SampleControls { .. }, _)) => "aoffimmi",
            Some((ExtendedOpcode::ResourceDim { .. }, _)) => "indexable",
            _ => "",
        };
        if wanted != *name {
            let needs = if *name == "aoffimmi" {
                "`(u,v,w)` texel offsets"
            } else {
                "`(dimension)`"
            };
            return Err(Diagnostic::error(format!(
                "`_{name}` needs its arguments {needs}, in suffix order"
            ))
            .with_primary(*span, "arguments missing or out of order"));
        }
    }
    if let Some((_, span)) = named_groups.get(ext_names.len()) {
        return Err(Diagnostic::error(
            "these arguments belong to a `_aoffimmi` or `_indexable` suffix that is missing",
        )
        .with_primary(*span, "no suffix names them"));
    }
    Ok(groups.into_iter().map(|(g, _)| g).collect())
}

/// The extended opcode tokens of a `{extended=_aoffimmi(1,0,0)}` marker
/// (the printer's form for a declaration that carries them).
fn extended_marker(pieces: &[Piece]) -> Result<Vec<ExtendedOpcode>, Diagnostic> {
    let mut names = Vec::new();
    let mut groups = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Word(w, span) if *w == "aoffimmi" || *w == "indexable" => {
                names.push((*w, *span))
            }
            Piece::Word(w, span) => {
                return Err(
                    Diagnostic::error(format!("`_{w}` is not an extended opcode token"))
                        .with_primary(*span, "expected `_aoffimmi` or `_indexable`"),
                );
            }
            Piece::Group(items, span) => groups.push((classify_group(items, *span)?, *span)),
        }
    }
    match_extended(&names, groups)
}

fn accepted_suffixes(info: &OpcodeInfo) -> String {
    let f = info.flags;
    let mut list: Vec<String> = Vec::new();
    let spelled = |names: &mut dyn Iterator<Item = &str>, between: &str| {
        names
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(between)
    };
    if f.contains(OpFlags::TEST) {
        list.push(spelled(&mut Test::ALL.iter().map(|t| t.name()), "/"));
    }
    if f.contains(OpFlags::SATURATE) {
        list.push("`_sat`".into());
    }
    if f.contains(OpFlags::SYNC) {
        list.push(spelled(&mut SYNC_FLAG_NAMES.iter().map(|(_, n)| *n), ", "));
    }
    if f.contains(OpFlags::RESINFO_RETURN) {
        list.push("`_uint`, `_rcpFloat`".into());
    } else if f.contains(OpFlags::SAMPLEINFO_RETURN) {
        list.push("`_uint`".into());
    }
    if f.contains(OpFlags::RESOURCE_DIM) {
        list.push("a resource dimension (`_texture2d`, `_buffer`, …)".into());
    }
    if f.contains(OpFlags::UAV_COHERENT) {
        list.push("`_glc`".into());
    }
    if f.contains(OpFlags::UAV_RASTERIZER_ORDERED) {
        list.push("`_rov`".into());
    }
    if f.contains(OpFlags::UAV_COUNTER) {
        list.push("`_opc`".into());
    }
    if f.contains(OpFlags::INTERFACE_DYNAMIC) {
        list.push("`_dynamicindexed`".into());
    }
    let reads_resource = info
        .operands
        .iter()
        .any(|o| o.kind == crate::opcode::OperandKind::Resource);
    if reads_resource && !f.intersects(OpFlags::DECLARATION | OpFlags::CUSTOM_DATA) {
        list.push("`_aoffimmi(u,v,w)`, `_indexable(dim)`, `(t,t,t,t)`".into());
    }
    if list.is_empty() {
        "no suffixes".into()
    } else {
        list.join(", ")
    }
}

/// The note of an unknown suffix.
fn suffix_note(info: &OpcodeInfo) -> String {
    let list = accepted_suffixes(info);
    if list == "no suffixes" {
        format!("`{}` takes no suffixes", info.name)
    } else {
        format!("`{}` takes: {list}", info.name)
    }
}

/// The inverse of [`crate::print::escape_message`]; errors give the
/// byte offset of the bad escape in `text`.
fn unescape(text: &str) -> Result<Vec<u8>, (usize, String)> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let Some(&e) = bytes.get(i + 1) else {
            return Err((i, "a `\\` at the end of a string escapes nothing".into()));
        };
        let v = match e {
            b'\\' => b'\\',
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'a' => 0x07,
            b'b' => 0x08,
            b'v' => 0x0B,
            b'f' => 0x0C,
            b'"' => b'"',
            b'x' => {
                let hex = text
                    .get(i + 2..i + 4)
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(v) => {
                        out.push(v);
                        i += 4;
                        continue;
                    }
                    None => return Err((i, "`\\x` needs two hexadecimal digits".into())),
                }
            }
            _ => return Err((i, format!("unknown escape `\\{}`", e as char))),
        };
        out.push(v);
        i += 2;
    }
    Ok(out)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::print::print_program;

    fn ok(src: &str) -> Program {
        match parse_program(src) {
            Ok((p, _)) => p,
            Err(d) => panic!("{}", d.render("test.asm", src)),
        }
    }

    fn err(src: &str) -> String {
        match parse_program(src) {
            Ok(_) => panic!("expected an error for {src:?}"),
            Err(d) => d.render("test.asm", src),
        }
    }

    #[test]
    fn parses_the_ps_div_example_to_its_words() {
        let p = ok(
            "ps_5_0\ndcl_globalFlags refactoringAllowed\ndcl_constantbuffer CB0[2], immediateIndexed\ndcl_output o0.xyzw\ndiv o0.x, cb0[0].x, cb0[1].x\nmov o0.yzw, l(0,0,0,0)\nret \n",
        );
        let words = encode_program(&p).unwrap();
        assert_eq!(words, crate::test_words::PS_DIV);
    }

    #[test]
    fn suffix_notes_spell_the_table_names() {
        assert_eq!(
            suffix_note(Opcode::Sync.info()),
            "`sync` takes: `_uglobal`, `_ugroup`, `_g`, `_t`"
        );
        assert_eq!(
            suffix_note(Opcode::Breakc.info()),
            "`breakc` takes: `_z`/`_nz`"
        );
    }

    #[test]
    fn suffixes_and_extended_tokens() {
        let p = ok(
            "ps_5_0\nsample_c_lz_aoffimmi_indexable(-1,-1,0)(texture2d)(float,float,float,float) r9.xyzw, r1.xyxx, t1.xyzw, s2, r0.x\nresinfo_indexable(texture2d)(float,float,float,float)_uint r0.xy, l(0), t0.xyzw\nsync_uglobal_g_t\nif_nz r0.x\nendif\nld_structured_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) r0.x, r0.x, l(0), t0.xxxx\n",
        );
        let s = &p.instructions[0];
        assert_eq!(s.opcode, Opcode::SampleCLz);
        assert_eq!(
            s.extended,
            vec![
                ExtendedOpcode::SampleControls {
                    offsets: [-1, -1, 0]
                },
                ExtendedOpcode::ResourceDim {
                    dimension: ResourceDimension::Texture2D,
                    stride: 0
                },
                ExtendedOpcode::ResourceReturnType([ReturnType::Float; 4]),
            ]
        );
        assert_eq!(s.operands[4].components, Components::Select(0));
        assert_eq!(
            p.instructions[1].controls.info_return.0,
            InfoReturnType::Uint
        );
        assert_eq!(
            p.instructions[2].controls.sync,
            crate::enums::SyncFlags::all() - crate::enums::SyncFlags::UAV_MEMORY_GROUP
        );
        assert_eq!(p.instructions[3].controls.test.0, Test::NonZero);
        assert_eq!(
            p.instructions[5].extended[0],
            ExtendedOpcode::ResourceDim {
                dimension: ResourceDimension::StructuredBuffer,
                stride: 16
            }
        );
    }

    #[test]
    fn operands_indices_and_annotations() {
        let p = ok(
            "hs_5_0\nmov o[r0.x + 0].x, cb0[8].z\nadd r0.x, -|r1.y|, x0[r1.x + 2].x\nmov r0.x {min16f}, v[0][3].x {def32 as min16f}\nmov r0.xy, icb[r2.w + 0].xyxx\n",
        );
        let mov = &p.instructions[0];
        assert!(
            matches!(&mov.operands[0].indices[0], Index::Relative(r) if r.file == RegisterFile::Temp)
        );
        let add = &p.instructions[1];
        assert_eq!(add.operands[1].modifier, OperandModifier::AbsNeg);
        assert!(matches!(
            &add.operands[2].indices[1],
            Index::Imm32Relative(2, _)
        ));
        assert_eq!(
            p.instructions[2].operands[0].min_precision,
            MinPrecision::Float16
        );
        assert_eq!(
            p.instructions[2].operands[1].indices,
            vec![Index::Imm32(0), Index::Imm32(3)]
        );
        assert_eq!(
            p.instructions[3].operands[1].file,
            RegisterFile::ImmediateConstantBuffer
        );
    }

    #[test]
    fn declarations_round_trip_through_the_printer() {
        let src = "ps_5_1\n\
dcl_globalFlags refactoringAllowed | enableMinimumPrecision\n\
dcl_constantbuffer CB2[2:*][1], dynamicIndexed, space=3\n\
dcl_sampler S1[0:4], mode_comparison, space=2\n\
dcl_resource_texture2dms(8) (float,float,float,float) T0[2:6], space=0\n\
dcl_resource_structured T1[1:1], 16, space=0\n\
dcl_uav_structured_glc_opc U0[0:0], 4, space=0\n\
dcl_uav_typed_texture2d_rov (unorm,unorm,unorm,unorm) U4[3:7], space=2\n\
dcl_input_ps_siv linear noperspective sample v7.xyzw, position\n\
dcl_input_ps constant v0.x {min16f}\n\
dcl_input vCoverage\n\
dcl_output oDepth\n\
dcl_indexableTemp x0[12], 4\n\
dcl_immediateConstantBuffer { { 1.000000, 0, 0, 0},\n                              { 0, 1.000000, -1, 0x80000000} }\n\
dcl_temps 3\n\
mov oDepth, l(0.500000)\n\
ret \n";
        let p = ok(src);
        let printed = print_program(&p);
        assert_eq!(ok(&printed), p, "{printed}");
        assert_eq!(printed, src);
    }

    #[test]
    fn hull_geometry_and_interfaces() {
        let src = "hs_5_0\nhs_decls \ndcl_input_control_point_count 3\ndcl_tessellator_domain domain_tri\ndcl_tessellator_partitioning partitioning_fractional_even\ndcl_tessellator_output_primitive output_triangle_cw\ndcl_hs_max_tessfactor l(64.000000)\ndcl_function_body fb0\ndcl_function_table ft0 = {fb0}\ndcl_interface_dynamicindexed fp0[1][1] = {ft0}\nhs_fork_phase \ndcl_hs_fork_phase_instance_count 3\ndcl_input vForkInstanceID\ndcl_indexrange o0.x 3\nfcall fp0[0][0]\nret \nlabel fb0\nmov r2.xy, this[0].yxyy\nret \n";
        let p = ok(src);
        assert_eq!(print_program(&p), src);
        let gs = "gs_5_0\ndcl_inputprimitive triangle \ndcl_outputtopology trianglestrip \ndcl_stream m0\ndcl_maxout 3\ndcl_gsinstances 4\nemit_stream m0\ncut_stream m0\nret \n";
        assert_eq!(print_program(&ok(gs)), gs);
    }

    #[test]
    fn fxc_header_wrapper_comments_and_messages() {
        let src = "#if 0\n//\n// Generated by fxc\n//\ncs_5_0\ndcl_thread_group 1, 1, 1\n#line 3 \"a.hlsl\"\nprintf \"a \"q\" %d\\n\", r0.x  // r0.x <- v\nerrorf \"x\"\nret \n// Approximately 1 instruction slots used\n#endif\n\nconst BYTE g_CS[] =\n{\n     68,  88, 66, 67\n};\n";
        let p = ok(src);
        match &p.instructions[1].payload {
            Payload::CustomData(CustomData::ShaderMessage(m)) => {
                assert_eq!(m.text, b"a \"q\" %d\n");
                assert_eq!(m.operands.len(), 1);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn vkd3d_and_lower_case_spellings() {
        let p = ok(
            "ps_4_1\ndcl_input_ps_siv linear v0.x, sample_index\nld2dms r0.xyzw, v0.xyzw, t0.xyzw, l(0)\nemitthencut\nsample_info r0.x, rasterizer\nmov r0.x, l(1.00000000e+00)\n",
        );
        assert_eq!(p.instructions[1].opcode, Opcode::LdMs);
        assert_eq!(p.instructions[2].opcode, Opcode::EmitThenCut);
        assert_eq!(p.instructions[4].operands[1].values, vec![0x3f80_0000]);
        assert_eq!(
            p.instructions[0].payload,
            Payload::Name(SystemValue::SampleIndex)
        );
    }

    #[test]
    fn errors_name_what_was_expected() {
        let e = err("ps_5_0\nmove r0.x, r1.x\nadd r0.x, r1.x\nmov r0.yx, r1.x\n");
        assert!(e.contains("unknown instruction `move`"), "{e}");
        assert!(e.contains("did you mean `mov`"), "{e}");
        assert!(e.contains("`add` takes 3 operands"), "{e}");
        assert!(e.contains("bad write mask `.yx`"), "{e}");
        assert!(err("mov r0.x, r1.x\n").contains("missing version line"));
        assert!(err("FRAG\nDCL IN[0]\n").contains("TGSI"));
        assert!(err("ps_2_0\nmov r0, c0\n").contains("Direct3D 9"));
        assert!(
            err("ps_5_0\nsample_aoffimmi(9,0,0) r0.xyzw, v0.xyxx, t0.xyzw, s0\n")
                .contains("-8 to 7")
        );
        assert!(
            err("ps_5_0\ndcl_immediateConstantBuffer { { 1, 2, 3, 4},\nret \n")
                .contains("unterminated")
        );
        assert!(err("ps_5_0\nif r0.x\n").contains("test suffix"));
        assert!(err("ps_5_0\nand_sat r0.x, r0.x, r0.x\n").contains("not a suffix"));
    }

    /// Programs the printer marks (bits fxc never shows) read back exactly.
    #[test]
    fn immediates_read_back_their_indices() {
        let p = ok("ps_5_0\nmov r0.x, l(1)[3]\nmov r0.xy, d(1.000000l)[r1.x + 2][4l]\n");
        assert_eq!(p.instructions[0].operands[1].indices, vec![Index::Imm32(3)]);
        let d = &p.instructions[1].operands[1];
        assert_eq!(d.values, vec![0, 0x3ff0_0000]);
        assert!(matches!(d.indices[0], Index::Imm32Relative(2, _)));
        assert_eq!(d.indices[1], Index::Imm64(4));
        assert_eq!(
            print_program(&p),
            "ps_5_0\nmov r0.x, l(1)[3]\nmov r0.xy, d(1.000000l)[r1.x + 2][4l]\n"
        );
        assert!(err("ps_5_0\nmov r0.x, l(1)[1][2][3][4]\n").contains("at most 3 indices"));
    }

    #[test]
    fn printer_markers_read_back_to_the_same_ir() {
        use crate::print::{PrintOptions, print_program_with};
        let v = Version {
            program_type: ProgramType::Pixel,
            major: 5,
            minor: 0,
        };
        let r = |i: u32, c: Components| Operand::register(RegisterFile::Temp, &[i], c);
        let mut odd_components = Instruction::new(
            Opcode::Add,
            vec![
                r(0, Components::Swizzle([0, 1, 2, 3])),
                r(1, Components::None),
                r(2, Components::One),
            ],
        );
        odd_components.controls.precise = 0b0101;
        odd_components.controls.saturate = true;
        let mut ext = r(3, Components::Select(2));
        ext.force_extended = true;
        ext.non_uniform = true;
        let mut wide = r(4, Components::XYZW);
        wide.indices = vec![
            Index::Imm64(5),
            Index::Imm32Relative(0, Box::new(r(0, Components::Select(1)))),
        ];
        wide.indices.truncate(2);
        wide.file = RegisterFile::IndexableTemp;
        let mut rel64 = r(0, Components::Select(0));
        rel64.file = RegisterFile::IndexableTemp;
        rel64.indices = vec![
            Index::Imm32(1),
            Index::Imm64Relative(7, Box::new(r(2, Components::Select(3)))),
        ];
        let mov = Instruction::new(Opcode::Mov, vec![r(5, Components::Mask(0)), ext]);
        let movc = Instruction::new(
            Opcode::Movc,
            vec![
                r(6, Components::Mask(0xF)),
                wide,
                rel64,
                Operand::imm32(&[0x7fc0_0001, 1, 0x3eaa_aaab, 0x8000_0000]),
            ],
        );
        let mut trailing = Instruction::new(
            Opcode::Mov,
            vec![r(0, Components::Mask(1)), Operand::imm32(&[0x0000_0001])],
        );
        trailing.trailing = vec![0xdead_beef, 0];
        let mut dmov = Instruction::new(
            Opcode::Dmov,
            vec![
                r(0, Components::Mask(3)),
                Operand::imm64(&[0x3fd5_5555_5555_5555]),
            ],
        );
        dmov.controls.precise = 0xF;
        let comment = custom(CustomData::Other {
            class: 0,
            data: vec![1, 2, 0xFFFF_FFFF],
        });
        let message = custom(CustomData::ShaderMessage(ShaderMessage {
            message_id: 0x0020_0105,
            format: 0,
            text: b"q\"\\\x01\xff end".to_vec(),
            operands: vec![Operand::imm32(&[0x3f80_0000]), r(1, Components::Select(0))],
        }));
        let icb = custom(CustomData::ImmediateConstantBuffer(vec![
            0x3eaa_aaab,
            7,
            0xFFFF_FFFF,
            0x0000_0001,
            0x4000_0000,
        ]));
        let mut resource = Instruction::new(
            Opcode::DclResource,
            vec![Operand::register(
                RegisterFile::Resource,
                &[0],
                Components::None,
            )],
        );
        resource.controls.resource_dimension =
            ResourceDimensionControl(ResourceDimension::Texture2D);
        resource.payload = Payload::ReturnTypes {
            types: [ReturnType::Float; 4],
            space: None,
        };
        resource.extended = vec![
            ExtendedOpcode::ResourceReturnType([ReturnType::Uint; 4]),
            ExtendedOpcode::SampleControls {
                offsets: [1, -8, 7],
            },
        ];
        let program = Program {
            version: v,
            instructions: vec![
                odd_components,
                mov,
                movc,
                trailing,
                dmov,
                comment,
                message,
                icb,
                resource,
            ],
        };
        let text = print_program_with(
            &program,
            &PrintOptions {
                exact_floats: true,
                ..PrintOptions::default()
            },
        );
        let back = ok(&text);
        for (a, b) in back.instructions.iter().zip(&program.instructions) {
            assert_eq!(a, b, "{text}");
        }
        assert_eq!(back, program, "{text}");
        assert!(
            text.contains("{components=1}")
                && text.contains("{ext}")
                && text.contains("{extended=")
                && text.contains("{trailing="),
            "{text}"
        );
    }

    #[test]
    fn source_map_points_at_mnemonics_and_operands() {
        let src = "ps_5_0\n  add_sat r0.x, -r1.x, l(1.000000) // c\nret \n";
        let (_, map) = parse_program(src).unwrap();
        assert_eq!(map.kind, SourceKind::Text);
        assert_eq!(&src[map.version.start..map.version.end], "ps_5_0");
        let add = &map.instructions[0];
        assert_eq!(
            &src[add.span.start..add.span.end],
            "add_sat r0.x, -r1.x, l(1.000000)"
        );
        assert_eq!(&src[add.mnemonic.start..add.mnemonic.end], "add_sat");
        let ops: Vec<&str> = add.operands.iter().map(|s| &src[s.start..s.end]).collect();
        assert_eq!(ops, vec!["r0.x", "-r1.x", "l(1.000000)"]);
        assert_eq!(map.instructions.len(), 2);
    }

    #[test]
    fn version_lines() {
        assert_eq!(
            parse_version("lib_4_0_level_9_1_vs_only").map(|v| v.program_type),
            Ok(ProgramType::Library)
        );
        assert!(parse_version("ps_6_0").is_err());
        assert!(parse_version("fx_5_0").is_err());
        assert!(is_dx9_version("ps_2_x"));
        assert!(!is_version_shaped("hs_decls"));
        // Windows line ends
        assert_eq!(
            ok("ps_5_0\r\ndcl_temps 1\r\nret \r\n").instructions.len(),
            2
        );
        let programs = parse_listing("lib_4_0\nret \n// Approximately 1\nlib_4_0\nret \n").unwrap();
        assert_eq!(programs.len(), 2);
        assert_eq!(programs[1].header, Span::new(11, 32));
    }
}
