//! The assembler: TGSI text → IR ([`parse`]).
//!
//! It accepts everything Mesa 22.3's `tgsi_text_translate` accepts and builds
//! the IR of exactly the tokens Mesa would build (free-form statements that
//! may share or span lines, `N:` instruction numbers discarded, the first
//! bracket of GS/TES inputs and TCS inputs/outputs discarded, SVIEW return
//! types replicated from the first one, INTERP only with a mode keyword,
//! memory tokens for opcodes flagged MEMORY, texture tokens by opcode flags).
//!
//! Where it is friendlier than Mesa without changing any meaning:
//! * `;` comments, CRLF line ends, every error of the file in one run (each
//!   statement recovers at the next line), "did you mean" suggestions;
//! * one-letter source swizzles (`.x` = `.xxxx`, also for texel offsets);
//! * `FRAG1.1`-style versioned headers of old shaders mean the plain stage;
//! * whitespace between the sign and the digits of an indirect offset
//!   (`ADDR[0].x + 3`, as old shaders wrote it);
//! * no whitespace needed where Mesa wants it between tokens (`IMM[0]FLT32`);
//! * numeric values for enum-valued properties (the dumper prints unknown
//!   values as numbers), the `MUL_ZERO_WINS` spelling, `CYLWRAP_*` after the
//!   interpolation (the dumper prints it), `0X`/short `0x` raw floats;
//! * semantics and interpolation on vertex-shader inputs are kept (Mesa
//!   refuses them);
//! * `DCL SVIEW[n], target, a, b, c, d` keeps four different return types
//!   (Mesa replicates the first even then; one, two or three types are
//!   replicated from the first exactly as Mesa does);
//! * a texel-offset list stops at a word that is not a register file, so
//!   memory qualifiers may follow it.
//!
//! Where it is stricter: numbers that overflow their binary field (register
//! indices 16-bit, ranges 16-bit unsigned, array ids 10 bits, labels 24 bits,
//! streams 2 bits, immediates their type) are errors instead of wrapping, a
//! leading-zero (octal) INT64/UINT64 literal is an error, and negative UINT64.
//!
//! Legacy syntax: removed opcodes (ABS, SUB, KIL, XPD, ...) and register files
//! (RES, IMMX, TEMPX, ...) and C preprocessor lines are errors that name the
//! construct and say what to write instead; a missing header is an error.

use crate::cursor::{Cursor, PResult, Reported};
use crate::lexer::{Token, TokenKind, tokenize};
use crate::names::{nearest, removed_file, removed_opcode};
use crate::numbers;
use tgsi_ir::diag::{Diagnostic, Diagnostics};
use tgsi_ir::enums::*;
use tgsi_ir::ir::*;
use tgsi_ir::opcode::{OPCODES, OpFlags, Opcode};

pub use tgsi_ir::diag::MAX_ERRORS;

/// Parses TGSI text, reporting every error found.
pub fn parse(source: &str) -> Result<(Shader, SourceMap), Diagnostics> {
    let mut parser = Parser::new(source);
    parser.parse_program();
    if parser.diags.is_empty() {
        Ok((parser.shader, parser.map))
    } else {
        Err(Diagnostics(parser.cur.diags))
    }
}

/// The parser: the shared token cursor (which it dereferences to) and what
/// it builds.
struct Parser<'a> {
    cur: Cursor<'a, TokenKind>,
    shader: Shader,
    map: SourceMap,
    implied_array_size: u32,
    num_immediates: u32,
    /// Operand spans of the statement being parsed.
    operand_spans: Vec<Span>,
    reported_stray_cr: bool,
}

/// How the next token reads in a message, and the span to point at.
fn describe_next(cur: &Cursor<'_, TokenKind>) -> (String, Span) {
    let t = cur.peek();
    if t.kind == TokenKind::Eof {
        return ("end of file".into(), t.span);
    }
    if t.line_start && cur.pos > 0 {
        let end = cur.prev_end();
        return ("end of line".into(), Span::new(end, end));
    }
    (describe_token(cur.src, t), t.span)
}

crate::derefs_to_cursor!(Parser, TokenKind);

const STAGE_NAMES: &str = "`VERT`, `FRAG`, `GEOM`, `TESS_CTRL`, `TESS_EVAL` or `COMP`";

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Parser<'a> {
        Parser {
            cur: Cursor::new(src, tokenize(src), describe_next),
            shader: Shader::new(Processor::Fragment),
            map: SourceMap::default(),
            implied_array_size: 0,
            num_immediates: 0,
            operand_spans: Vec::new(),
            reported_stray_cr: false,
        }
    }

    // ----- token access -------------------------------------------------

    /// True when the next token is a word equal (case-insensitively) to `word`.
    fn at_word(&self, n: usize, word: &str) -> bool {
        let t = self.peek_at(n);
        matches!(t.kind, TokenKind::Ident | TokenKind::Number)
            && self.text(t).eq_ignore_ascii_case(word)
    }

    // ----- diagnostics --------------------------------------------------

    /// Skips to the first token of the next line (at least one token past `start`).
    fn recover(&mut self, start: usize) {
        if self.pos <= start {
            self.pos = start;
            self.bump();
        }
        loop {
            while !self.peek().line_start {
                self.bump();
            }
            if self.can_start_statement() {
                return;
            }
            self.bump();
        }
    }

    /// True when the next token could begin a statement (or is the end).
    fn can_start_statement(&self) -> bool {
        let t = self.peek();
        match t.kind {
            TokenKind::Ident | TokenKind::Hash | TokenKind::Eof | TokenKind::StrayCr => true,
            TokenKind::Number => self.peek_at(1).kind == TokenKind::Colon,
            _ => false,
        }
    }

    // ----- program ------------------------------------------------------

    fn parse_program(&mut self) {
        self.parse_header();
        match self.shader.processor {
            Processor::TessCtrl | Processor::TessEval => self.implied_array_size = 32,
            _ => {}
        }
        while !self.at(TokenKind::Eof) && self.diags.len() <= MAX_ERRORS {
            let start = self.pos;
            let stmt_start = self.peek().span.start;
            self.operand_spans.clear();
            match self.parse_statement() {
                Ok(stmt) => {
                    let end = self.prev_end();
                    self.shader.statements.push(stmt);
                    self.map.statements.push(Span::new(stmt_start, end));
                    self.map
                        .operands
                        .push(std::mem::take(&mut self.operand_spans));
                }
                Err(Reported) => self.recover(start),
            }
        }
    }

    fn parse_header(&mut self) {
        let t = self.peek();
        if t.kind == TokenKind::Ident {
            let word = self.text(t);
            if let Some(p) = Processor::from_name(word) {
                self.bump();
                self.shader.processor = p;
                return;
            }
            // Old versioned headers: `FRAG1.1`, `VERT1.1`.
            let stage = word.trim_end_matches(|c: char| c.is_ascii_digit());
            if stage.len() < word.len()
                && let Some(p) = Processor::from_name(stage)
            {
                self.bump();
                let next = self.peek();
                if next.kind == TokenKind::Number
                    && next.span.start == t.span.end
                    && self.text(next).starts_with('.')
                {
                    self.bump();
                }
                self.shader.processor = p;
                return;
            }
            let starts_statement = word.eq_ignore_ascii_case("DCL")
                || word.eq_ignore_ascii_case("IMM")
                || word.eq_ignore_ascii_case("PROPERTY")
                || lookup_opcode(word).is_some();
            if starts_statement {
                self.push(
                    Diagnostic::error(format!(
                        "missing header: expected {STAGE_NAMES} before the first statement"
                    ))
                    .with_primary(t.span, "the first statement comes before any header")
                    .with_note(
                        "a TGSI shader starts with its stage, e.g. `FRAG` on the first line",
                    ),
                );
                return;
            }
            let mut d =
                Diagnostic::error(format!("unknown header `{word}`: expected {STAGE_NAMES}"))
                    .with_primary(t.span, "not a shader stage");
            if let Some(s) = nearest(word, Processor::ALL.iter().map(|p| p.name())) {
                d = d.with_note(format!("help: did you mean `{s}`?"));
            }
            self.push(d);
            self.recover(self.pos);
            return;
        }
        let (found, span) = self.describe_next();
        self.push(
            Diagnostic::error(format!(
                "missing header: expected {STAGE_NAMES}, found {found}"
            ))
            .with_primary(span, "expected the shader stage"),
        );
        if !self.at(TokenKind::Eof) {
            self.recover(self.pos);
        }
    }

    fn parse_statement(&mut self) -> PResult<Statement> {
        let t = self.peek();
        match t.kind {
            TokenKind::Number if self.peek_at(1).kind == TokenKind::Colon => {
                self.bump();
                self.bump();
                self.parse_instruction(true).map(Statement::Instruction)
            }
            TokenKind::Ident if self.at_word(0, "DCL") => {
                self.bump();
                self.parse_declaration().map(Statement::Declaration)
            }
            TokenKind::Ident if self.at_word(0, "IMM") => {
                self.bump();
                let position = self.num_immediates;
                let parsed = self.parse_immediate();
                // a bad immediate still takes its number: the next is not
                // reported out of order because of it
                self.num_immediates = position + 1;
                parsed.map(Statement::Immediate)
            }
            TokenKind::Ident if self.at_word(0, "PROPERTY") => {
                self.bump();
                self.parse_property().map(Statement::Property)
            }
            TokenKind::Ident => self.parse_instruction(false).map(Statement::Instruction),
            TokenKind::Hash => {
                let end = self.line_end(t.span.start);
                Err(self.error(
                    Diagnostic::error("C preprocessor directives are not TGSI")
                        .with_primary(Span::new(t.span.start, end), "preprocessor line")
                        .with_note("this looks like a shader template; run it through the C preprocessor first"),
                ))
            }
            TokenKind::StrayCr => {
                self.bump();
                if self.reported_stray_cr {
                    return Err(Reported);
                }
                self.reported_stray_cr = true;
                Err(self.error(
                    Diagnostic::error("carriage return without a line feed")
                        .with_primary(t.span, "lone `\\r`")
                        .with_note("use LF or CRLF line ends (further lone carriage returns are not reported)"),
                ))
            }
            _ => {
                if !t.line_start {
                    let (found, span) = self.describe_next();
                    return Err(self.error(
                        Diagnostic::error(format!("expected end of line, found {found}"))
                            .with_primary(span, "unexpected text after the end of the statement"),
                    ));
                }
                let found = describe_token(self.src, t);
                Err(self.error(
                    Diagnostic::error(format!(
                        "expected a declaration, immediate, property or instruction, found {found}"
                    ))
                    .with_primary(t.span, "not the start of a statement"),
                ))
            }
        }
    }

    fn line_end(&self, from: usize) -> usize {
        self.src[from..]
            .find(['\n', '\r'])
            .map_or(self.src.len(), |i| from + i)
    }
}

/// `CYLWRAP_` + a subset of XYZW letters.
pub(super) fn parse_cylwrap(word: &str) -> Option<u8> {
    let upper = word.to_ascii_uppercase();
    let letters = upper.strip_prefix("CYLWRAP_")?;
    let mut bits = 0u8;
    for ch in letters.chars() {
        bits |= 1 << Component::from_letter(ch)? as u8;
    }
    (bits != 0).then_some(bits)
}

/// Splits `_SAT`, `_PRECISE` and `_SAT_PRECISE` off an opcode word.
pub(super) fn strip_suffixes(word: &str) -> (&str, bool, bool) {
    let upper = word.to_ascii_uppercase();
    for (suffix, sat, precise) in [
        ("_SAT_PRECISE", true, true),
        ("_PRECISE", false, true),
        ("_SAT", true, false),
    ] {
        if upper.ends_with(suffix) && word.len() > suffix.len() {
            return (&word[..word.len() - suffix.len()], sat, precise);
        }
    }
    (word, false, false)
}

/// The opcode a word names (gap slots `UNKnn` included, as Mesa accepts
/// them), with its `_SAT` and `_PRECISE` flags.
pub(super) fn lookup_opcode(word: &str) -> Option<(Opcode, bool, bool)> {
    let find = |name: &str| {
        OPCODES
            .iter()
            .find(|i| i.name.eq_ignore_ascii_case(name))
            .map(|i| i.opcode)
    };
    if let Some(op) = find(word) {
        return Some((op, false, false));
    }
    let (base, sat, precise) = strip_suffixes(word);
    if sat || precise {
        return find(base).map(|op| (op, sat, precise));
    }
    None
}

pub(super) fn with_suggestion<'n>(
    d: Diagnostic,
    word: &str,
    names: impl IntoIterator<Item = &'n str>,
) -> Diagnostic {
    match nearest(word, names) {
        Some(s) => d.with_note(format!("help: did you mean `{s}`?")),
        None => d,
    }
}

pub(super) fn join_names<'n>(names: impl Iterator<Item = &'n str>) -> String {
    names
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "a register index" -> "register index"
pub(super) fn without_article(what: &str) -> &str {
    what.strip_prefix("an ")
        .or_else(|| what.strip_prefix("a "))
        .unwrap_or(what)
}

pub(super) fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The letters of a mask word that are x, y, z, w, in order, each once.
pub(super) fn ordered_mask(word: &str) -> String {
    let lower = word.to_ascii_lowercase();
    "xyzw".chars().filter(|c| lower.contains(*c)).collect()
}

pub(super) fn describe_token(src: &str, t: Token) -> String {
    match t.kind {
        TokenKind::Eof => "end of file".into(),
        TokenKind::StrayCr => "a carriage return".into(),
        _ => {
            format!("`{}`", tgsi_ir::diag::shown(t.text(src)))
        }
    }
}

mod declarations;
mod immediates;
mod instructions;
mod operands;
#[cfg(test)]
mod tests;
