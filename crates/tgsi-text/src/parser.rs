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
    cur: Cursor<'a, Token>,
    shader: Shader,
    map: SourceMap,
    implied_array_size: u32,
    num_immediates: u32,
    /// Operand spans of the statement being parsed.
    operand_spans: Vec<Span>,
    reported_stray_cr: bool,
}

/// How the next token reads in a message, and the span to point at.
fn describe_next(cur: &Cursor<'_, Token>) -> (String, Span) {
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

impl<'a> std::ops::Deref for Parser<'a> {
    type Target = Cursor<'a, Token>;
    fn deref(&self) -> &Self::Target {
        &self.cur
    }
}

impl std::ops::DerefMut for Parser<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.cur
    }
}

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
                self.parse_immediate().map(Statement::Immediate)
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

    // ----- numbers ------------------------------------------------------

    /// An unsigned decimal integer no larger than `max`.
    fn parse_uint(&mut self, what: &str, max: u64) -> PResult<(u64, Span)> {
        let t = self.peek();
        if t.kind != TokenKind::Number || !self.text(t).bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.expected(what));
        }
        self.bump();
        let text = self.text(t);
        match text.parse::<u64>() {
            Ok(v) if v <= max => Ok((v, t.span)),
            _ => Err(self.error(
                Diagnostic::error(format!(
                    "{} `{text}` is out of range",
                    without_article(what)
                ))
                .with_primary(t.span, format!("must be at most {max}")),
            )),
        }
    }

    /// A decimal integer with an optional sign written right before its digits.
    fn parse_signed(&mut self, what: &str, min: i64, max: i64) -> PResult<(i64, Span)> {
        let start = self.peek().span.start;
        let negative = match self.peek().kind {
            TokenKind::Minus | TokenKind::Plus => {
                let sign = self.peek();
                let digits = self.peek_at(1);
                // Mesa wants the digits right after the sign; `ADDR[0].x + 3`
                // (as old shaders wrote it) is just as clear.
                if digits.kind != TokenKind::Number || digits.line_start {
                    self.bump();
                    return Err(self.expected(&format!("the digits of {what}")));
                }
                self.bump();
                sign.kind == TokenKind::Minus
            }
            _ => false,
        };
        let (v, span) = self.parse_uint(what, i64::MAX as u64)?;
        let v = if negative { -(v as i64) } else { v as i64 };
        let span = Span::new(start, span.end);
        if v < min || v > max {
            let text = &self.src[span.start..span.end];
            return Err(self.error(
                Diagnostic::error(format!(
                    "{} `{}` is out of range",
                    without_article(what),
                    text
                ))
                .with_primary(span, format!("must be between {min} and {max}")),
            ));
        }
        Ok((v, span))
    }

    // ----- names --------------------------------------------------------

    /// A register file name.
    fn parse_file(&mut self) -> PResult<(File, Span)> {
        let t = self.peek();
        if t.kind != TokenKind::Ident {
            let err = self.expected("a register file");
            if t.kind == TokenKind::Number
                && !t.line_start
                && let Some(d) = self.diags.last_mut()
            {
                d.notes.push(
                    "TGSI has no literal operands: declare the value with `IMM` and use `IMM[n]`"
                        .into(),
                );
            }
            return Err(err);
        }
        let word = self.text(t);
        if let Some(f) = File::from_name(word) {
            self.bump();
            return Ok((f, t.span));
        }
        let mut d = Diagnostic::error(format!("unknown register file `{word}`"));
        if let Some(replacement) = removed_file(word) {
            d = Diagnostic::error(format!("the `{word}` register file was removed from TGSI"))
                .with_primary(t.span, "removed register file")
                .with_note(format!("help: {replacement}"));
        } else {
            d = d.with_primary(t.span, "expected a register file");
            d = with_suggestion(d, word, File::ALL.iter().map(|f| f.name()));
            d = d.with_note(format!(
                "register files are {}",
                join_names(File::ALL.iter().map(|f| f.name()))
            ));
        }
        Err(self.error(d))
    }

    /// A word (identifier or digit-led word such as `2D`).
    fn parse_word(&mut self, what: &str) -> PResult<(&'a str, Span)> {
        let t = self.peek();
        if !matches!(t.kind, TokenKind::Ident | TokenKind::Number) {
            return Err(self.expected(what));
        }
        self.bump();
        Ok((self.text(t), t.span))
    }

    fn parse_texture_target(&mut self) -> PResult<TextureTarget> {
        let (word, span) = self.parse_word("a texture target")?;
        match TextureTarget::from_name(word) {
            Some(t) => Ok(t),
            None => {
                let d = Diagnostic::error(format!("unknown texture target `{word}`"))
                    .with_primary(span, "expected a texture target");
                let d = with_suggestion(d, word, TextureTarget::ALL.iter().map(|t| t.name()));
                let d = d.with_note(format!(
                    "texture targets are {}",
                    join_names(TextureTarget::ALL.iter().map(|t| t.name()))
                ));
                Err(self.error(d))
            }
        }
    }

    /// An unknown word where an image format (or, for memory operands, also a
    /// qualifier or texture target) was expected.
    fn unknown_format(&mut self, word: &str, span: Span, what: &str, memory: bool) -> Reported {
        let d = Diagnostic::error(format!("expected {what}, found `{word}`"))
            .with_primary(span, format!("not {what}"));
        let formats = tgsi_ir::format_names::PIPE_FORMAT_NAMES.iter().copied();
        let d = if memory {
            let qualifiers = MemQualifier::NAMES.iter().map(|(_, n)| *n);
            let targets = TextureTarget::ALL.iter().map(|t| t.name());
            let d = with_suggestion(d, word, qualifiers.clone().chain(targets).chain(formats));
            d.with_note(format!(
                "memory operands are qualifiers ({}), texture targets and full `PIPE_FORMAT_*` names",
                join_names(qualifiers)
            ))
        } else {
            with_suggestion(d, word, formats)
        };
        self.error(d)
    }

    // ----- registers ----------------------------------------------------

    /// The inside of a register bracket and its `]` (the `[` is consumed), then
    /// an optional `(array id)`.
    fn parse_bracket(&mut self) -> PResult<Index> {
        let t = self.peek();
        let mut index = if t.kind == TokenKind::Ident {
            let (file, _) = self.parse_file()?;
            self.expect(TokenKind::LBracket, "`[`")?;
            let (reg, _) = self.parse_uint("an address register index", 32767)?;
            self.expect(TokenKind::RBracket, "`]`")?;
            let mut component = Component::X;
            if self.eat(TokenKind::Dot).is_some() {
                let (word, span) = self.parse_word("an address component `x`, `y`, `z` or `w`")?;
                let mut chars = word.chars();
                match (chars.next().and_then(Component::from_letter), chars.next()) {
                    (Some(c), None) => component = c,
                    _ => {
                        return Err(self.error(
                            Diagnostic::error(format!("expected one address component `x`, `y`, `z` or `w`, found `{word}`"))
                                .with_primary(span, "an indirect index reads a single component"),
                        ));
                    }
                }
            }
            let mut offset = 0;
            if matches!(self.peek().kind, TokenKind::Plus | TokenKind::Minus) {
                offset = self.parse_signed("an index offset", -32768, 32767)?.0 as i32;
            }
            Index {
                offset,
                indirect: Some(IndirectAddr {
                    file,
                    index: reg as i32,
                    component,
                    array_id: 0,
                }),
            }
        } else if t.kind == TokenKind::Number {
            let (v, _) = self.parse_uint("a register index", 32767)?;
            Index::direct(v as i32)
        } else if t.kind == TokenKind::Minus {
            return Err(self.error(
                Diagnostic::error("expected a register index, found `-`")
                    .with_primary(t.span, "register indices cannot be negative")
                    .with_note("a negative offset needs an address register: `TEMP[ADDR[0].x-1]`"),
            ));
        } else {
            return Err(self.expected("a register index"));
        };
        self.expect(TokenKind::RBracket, "`]`")?;
        if self.eat(TokenKind::LParen).is_some() {
            let (id, _) = self.parse_uint("an array id", 1023)?;
            self.expect(TokenKind::RParen, "`)`")?;
            // Mesa keeps the array id only on indirect accesses.
            if let Some(ind) = &mut index.indirect {
                ind.array_id = id as u32;
            }
        }
        Ok(index)
    }

    /// `FILE[..]` with an optional second bracket.
    fn parse_register(&mut self) -> PResult<Register> {
        let (file, _) = self.parse_file()?;
        self.expect(TokenKind::LBracket, "`[`")?;
        let first = self.parse_bracket()?;
        if self.eat(TokenKind::LBracket).is_some() {
            let second = self.parse_bracket()?;
            return Ok(Register {
                file,
                index: second,
                dimension: Some(first),
            });
        }
        Ok(Register {
            file,
            index: first,
            dimension: None,
        })
    }

    /// After the `.`: letters of `xyzw`, each once, in order.
    fn parse_mask_letters(&mut self, what: &str) -> PResult<WriteMask> {
        let (word, span) = self.parse_word(what)?;
        let mut mask = WriteMask::empty();
        let mut last: Option<Component> = None;
        for (i, ch) in word.char_indices() {
            let at = Span::new(span.start + i, span.start + i + ch.len_utf8());
            let Some(c) = Component::from_letter(ch) else {
                return Err(self.error(
                    Diagnostic::error(format!("expected {what}, found `{word}`"))
                        .with_primary(at, format!("`{ch}` is not one of x, y, z, w")),
                ));
            };
            if let Some(l) = last.filter(|l| *l >= c) {
                return Err(self.error(
                    Diagnostic::error(format!(
                        "{} `{word}` is not in xyzw order",
                        without_article(what)
                    ))
                    .with_primary(
                        at,
                        if l == c {
                            format!("`{ch}` is repeated")
                        } else {
                            format!("`{ch}` cannot follow `{}`", l.letter())
                        },
                    )
                    .with_note(format!(
                        "write the letters in x, y, z, w order, each at most once: `.{}`",
                        ordered_mask(word)
                    )),
                ));
            }
            last = Some(c);
            mask |= WriteMask::from_bits_truncate(1 << c as u8);
        }
        Ok(mask)
    }

    fn parse_dst(&mut self) -> PResult<DstOperand> {
        let start = self.peek().span.start;
        let reg = self.parse_register()?;
        let mut write_mask = WriteMask::XYZW;
        if self.eat(TokenKind::Dot).is_some() {
            write_mask = self.parse_mask_letters("a writemask")?;
        }
        self.operand_spans.push(Span::new(start, self.prev_end()));
        Ok(DstOperand { reg, write_mask })
    }

    /// After the `.`: 4 swizzle letters (or 1, replicated); `count` is 4 for
    /// sources and 3 for texel offsets.
    fn parse_swizzle_letters(&mut self, count: usize) -> PResult<Vec<Component>> {
        let (word, span) = self.parse_word("a swizzle")?;
        let mut comps = Vec::new();
        for (i, ch) in word.char_indices() {
            match Component::from_letter(ch) {
                Some(c) => comps.push(c),
                None => {
                    let at = Span::new(span.start + i, span.start + i + ch.len_utf8());
                    return Err(self.error(
                        Diagnostic::error(format!("bad swizzle `{word}`"))
                            .with_primary(at, format!("`{ch}` is not one of x, y, z, w"))
                            .with_note("swizzles use the letters x, y, z and w (not r, g, b, a)"),
                    ));
                }
            }
        }
        match comps.len() {
            1 => Ok(vec![comps[0]; count]),
            n if n == count => Ok(comps),
            n => Err(self.error(
                Diagnostic::error(format!(
                    "swizzle `{word}` has {n} letters, expected 1 or {count}"
                ))
                .with_primary(span, format!("expected 1 or {count} letters")),
            )),
        }
    }

    fn parse_src(&mut self) -> PResult<SrcOperand> {
        let start = self.peek().span.start;
        let negate = self.eat(TokenKind::Minus).is_some();
        let open = self.eat(TokenKind::Pipe);
        if open.is_some() && self.at(TokenKind::Minus) {
            let t = self.peek();
            return Err(self.error(
                Diagnostic::error("negation must come before `|`")
                    .with_primary(t.span, "`-` inside `|...|`")
                    .with_note(
                        "write `-|TEMP[0]|`: the absolute value is taken first, then negated",
                    ),
            ));
        }
        let reg = self.parse_register()?;
        let mut src = SrcOperand::new(reg);
        src.negate = negate;
        src.absolute = open.is_some();
        if self.eat(TokenKind::Dot).is_some() {
            let c = self.parse_swizzle_letters(4)?;
            src.swizzle = Swizzle([c[0], c[1], c[2], c[3]]);
        }
        if let Some(open) = open
            && self.eat(TokenKind::Pipe).is_none()
        {
            let (found, span) = self.describe_next();
            return Err(self.error(
                Diagnostic::error(format!(
                    "expected `|` to close the absolute value, found {found}"
                ))
                .with_primary(span, "expected `|`")
                .with_secondary(open.span, "opened here"),
            ));
        }
        self.operand_spans.push(Span::new(start, self.prev_end()));
        Ok(src)
    }

    fn parse_texoffset(&mut self) -> PResult<TexOffset> {
        let (file, _) = self.parse_file()?;
        self.expect(TokenKind::LBracket, "`[`")?;
        let index = self.parse_bracket()?;
        let mut swizzle = [Component::X; 3];
        if self.eat(TokenKind::Dot).is_some() {
            let c = self.parse_swizzle_letters(3)?;
            swizzle = [c[0], c[1], c[2]];
        }
        Ok(TexOffset {
            file,
            index: index.offset,
            swizzle,
        })
    }

    // ----- instructions -------------------------------------------------

    fn parse_instruction(&mut self, after_label: bool) -> PResult<Instruction> {
        let t = self.peek();
        if t.kind != TokenKind::Ident {
            return Err(self.expected("an opcode"));
        }
        let word = self.text(t);
        let Some((opcode, saturate, precise)) = lookup_opcode(word) else {
            return Err(self.unknown_opcode(t, after_label));
        };
        self.bump();
        let info = opcode.info();
        let mut inst = Instruction::new(opcode, Vec::new(), Vec::new());
        inst.saturate = saturate;
        inst.precise = precise;
        let num_dst = info.num_dst as usize;
        let num_src = info.num_src as usize;
        let has_target = info.flags.contains(OpFlags::TEX);
        let total = num_dst + num_src + usize::from(has_target);
        for i in 0..total {
            if i > 0 && self.eat(TokenKind::Comma).is_none() {
                let err = self.expected("`,`");
                self.note_operand_count(opcode);
                return Err(err);
            }
            if i == 0 && !self.operand_may_follow() {
                let err = self.expected("an operand");
                self.note_operand_count(opcode);
                if matches!(opcode, Opcode::EMIT | Opcode::ENDPRIM)
                    && let Some(d) = self.diags.last_mut()
                {
                    d.notes.push(format!(
                        "help: old shaders wrote `{}` alone; it now names the stream: `{} IMM[n].xxxx` with IMM[n].x = 0",
                        opcode.name(),
                        opcode.name()
                    ));
                }
                return Err(err);
            }
            if i < num_dst {
                let d = self.parse_dst()?;
                inst.dst.push(d);
            } else if i < num_dst + num_src {
                let s = self.parse_src()?;
                inst.src.push(s);
            } else {
                let target = self.parse_texture_target()?;
                if let Some(tex) = &mut inst.texture {
                    tex.target = target;
                }
            }
        }
        if inst.texture.is_some() {
            while self.at(TokenKind::Comma) {
                let next = self.peek_at(1);
                let is_file =
                    next.kind == TokenKind::Ident && File::from_name(self.text(next)).is_some();
                if inst.memory.is_some() && !is_file {
                    break;
                }
                let count = inst.texture.as_ref().map_or(0, |t| t.offsets.len());
                if count == 4 {
                    let t = self.peek();
                    return Err(self.error(
                        Diagnostic::error("too many texel offsets")
                            .with_primary(t.span, "a fifth offset")
                            .with_note("an instruction takes at most 4 texel offsets"),
                    ));
                }
                self.bump();
                let off = self.parse_texoffset()?;
                if let Some(tex) = &mut inst.texture {
                    tex.offsets.push(off);
                }
            }
        }
        if let Some(mut mem) = inst.memory {
            while self.eat(TokenKind::Comma).is_some() {
                let (word, span) =
                    self.parse_word("a memory qualifier, texture target or format")?;
                if let Some((q, _)) = MemQualifier::NAMES
                    .iter()
                    .find(|(_, n)| n.eq_ignore_ascii_case(word))
                {
                    mem.qualifier |= *q;
                } else if let Some(t) = TextureTarget::from_name(word) {
                    mem.target = t;
                } else if let Some(f) = PipeFormat::from_name(word) {
                    mem.format = f;
                } else {
                    return Err(self.unknown_format(
                        word,
                        span,
                        "a memory qualifier, texture target or format",
                        true,
                    ));
                }
            }
            inst.memory = Some(mem);
        }
        if let Some(colon) = self.eat(TokenKind::Colon) {
            if !info.flags.contains(OpFlags::BRANCH) {
                let branches: Vec<&str> = OPCODES
                    .iter()
                    .filter(|i| i.flags.contains(OpFlags::BRANCH))
                    .map(|i| i.name)
                    .collect();
                return Err(self.error(
                    Diagnostic::error(format!("`{}` cannot take a label", opcode.name()))
                        .with_primary(colon.span, "label on a non-branch opcode")
                        .with_note(format!(
                            "only {} take a `:label`",
                            join_names(branches.into_iter())
                        )),
                ));
            }
            let (label, _) = self.parse_uint("a label (an instruction number)", (1 << 24) - 1)?;
            inst.label = Some(label as u32);
        }
        let next = self.peek();
        if next.kind == TokenKind::Comma && !next.line_start {
            let err = self.error(
                Diagnostic::error(format!("too many operands for `{}`", opcode.name()))
                    .with_primary(next.span, "unexpected `,` after the last operand"),
            );
            self.note_operand_count(opcode);
            return Err(err);
        }
        Ok(inst)
    }

    /// True unless the first operand is missing: statements may span lines as
    /// in Mesa, but on a new line only a register (or `-`, `|`) continues one.
    fn operand_may_follow(&self) -> bool {
        let t = self.peek();
        match t.kind {
            TokenKind::Eof => false,
            _ if !t.line_start => true,
            TokenKind::Minus | TokenKind::Pipe => true,
            TokenKind::Ident => File::from_name(self.text(t)).is_some(),
            _ => false,
        }
    }

    /// Adds to the last error how many operands `opcode` takes.
    fn note_operand_count(&mut self, opcode: Opcode) {
        let info = opcode.info();
        let mut parts = Vec::new();
        if info.num_dst > 0 {
            parts.push(plural(info.num_dst as usize, "destination"));
        }
        if info.num_src > 0 {
            parts.push(plural(info.num_src as usize, "source"));
        }
        if info.flags.contains(OpFlags::TEX) {
            parts.push("a texture target".to_string());
        }
        let what = if parts.is_empty() {
            "no operands".to_string()
        } else {
            parts.join(", ")
        };
        if let Some(d) = self.diags.last_mut() {
            d.notes.push(format!("`{}` takes {what}", opcode.name()));
        }
    }

    fn unknown_opcode(&mut self, t: Token, after_label: bool) -> Reported {
        let word = self.text(t);
        let base = strip_suffixes(word).0;
        if let Some(replacement) = removed_opcode(base) {
            return self.error(
                Diagnostic::error(format!(
                    "the `{}` opcode was removed from TGSI",
                    base.to_ascii_uppercase()
                ))
                .with_primary(t.span, "removed opcode")
                .with_note(format!("help: {replacement}")),
            );
        }
        if !after_label && !t.line_start {
            return self.error(
                Diagnostic::error(format!("expected end of line, found `{word}`"))
                    .with_primary(t.span, "unexpected text after the end of the statement"),
            );
        }
        let what = if after_label {
            "an opcode after the instruction number"
        } else {
            "an opcode, `DCL`, `IMM` or `PROPERTY`"
        };
        let mut d = Diagnostic::error(format!("unknown opcode `{word}`"))
            .with_primary(t.span, format!("expected {what}"));
        let names = OPCODES
            .iter()
            .filter(|i| !i.flags.contains(OpFlags::GAP))
            .map(|i| i.name);
        d = with_suggestion(d, base, names);
        self.error(d)
    }

    // ----- declarations -------------------------------------------------

    /// `first[..last]` or empty (implied size) inside a declaration bracket, and the `]`.
    fn parse_dcl_range(&mut self) -> PResult<(u32, u32)> {
        if let Some(close) = self.eat(TokenKind::RBracket) {
            if self.implied_array_size == 0 {
                return Err(self.error(
                    Diagnostic::error("empty brackets `[]` need an implied array size")
                        .with_primary(Span::new(close.span.start.saturating_sub(1), close.span.end), "no size known")
                        .with_note("`[]` is only allowed for GS inputs after `PROPERTY GS_INPUT_PRIMITIVE`, and in TCS/TES"),
                ));
            }
            return Ok((0, self.implied_array_size - 1));
        }
        let (first, _) = self.parse_uint("a register index", 65535)?;
        let mut last = first;
        if self.eat(TokenKind::DotDot).is_some() {
            last = self.parse_uint("the last register index", 65535)?.0;
        }
        if !self.at(TokenKind::RBracket) {
            return Err(self.expected("`]` or `..`"));
        }
        self.bump();
        Ok((first as u32, last as u32))
    }

    /// True when the next tokens are `,` and the word `word`.
    fn at_comma_word(&self, word: &str) -> bool {
        self.peek().kind == TokenKind::Comma && self.at_word(1, word)
    }

    /// When the next tokens are `,` and a word for which `f` gives a value,
    /// consumes both and returns the value.
    fn eat_comma_name<T>(&mut self, f: impl Fn(&str) -> Option<T>) -> Option<T> {
        if self.peek().kind != TokenKind::Comma {
            return None;
        }
        let t = self.peek_at(1);
        if !matches!(t.kind, TokenKind::Ident | TokenKind::Number) {
            return None;
        }
        let v = f(self.text(t))?;
        self.bump();
        self.bump();
        Some(v)
    }

    fn parse_declaration(&mut self) -> PResult<Declaration> {
        let start = self.peek().span.start;
        let (file, _) = self.parse_file()?;
        self.expect(TokenKind::LBracket, "`[`")?;
        let mut range = self.parse_dcl_range()?;
        let mut dimension = None;
        if self.eat(TokenKind::LBracket).is_some() {
            let second = self.parse_dcl_range()?;
            let p = self.shader.processor;
            let is_in = file == File::Input;
            let is_out = file == File::Output;
            let vertex_bracket = match p {
                Processor::Geometry | Processor::TessEval => is_in,
                Processor::TessCtrl => is_in || is_out,
                _ => false,
            };
            if !vertex_bracket {
                dimension = Some(range.0);
            }
            range = second;
        }
        let mut decl = Declaration::new(file, range.0, range.1);
        decl.dimension = dimension;
        if self.eat(TokenKind::Dot).is_some() {
            decl.usage_mask = self.parse_mask_letters("a usage mask")?;
        }
        self.operand_spans.push(Span::new(start, self.prev_end()));
        match file {
            File::Image => {
                decl.image = Some(ImageDecl {
                    target: TextureTarget::Buffer,
                    format: PipeFormat::NONE,
                    raw: false,
                    writable: false,
                })
            }
            File::SamplerView => {
                decl.sampler_view = Some(SamplerViewDecl {
                    target: TextureTarget::Buffer,
                    return_types: [ReturnType::Unorm; 4],
                })
            }
            _ => {}
        }

        // 1. ARRAY(id)
        if self.at_comma_word("ARRAY") {
            self.bump();
            self.bump();
            self.expect(TokenKind::LParen, "`(`")?;
            let (id, _) = self.parse_signed("an array id", 0, 1023)?;
            self.expect(TokenKind::RParen, "`)`")?;
            decl.array_id = Some(id as u32);
        }

        // 2. the file-specific part
        match file {
            File::Image if self.at(TokenKind::Comma) => {
                self.bump();
                let target = self.parse_texture_target()?;
                let mut image = ImageDecl {
                    target,
                    format: PipeFormat::NONE,
                    raw: false,
                    writable: false,
                };
                loop {
                    if self.at_comma_word("RAW") {
                        image.raw = true;
                    } else if self.at_comma_word("WR") {
                        image.writable = true;
                    } else if let Some(f) = self.eat_comma_name(PipeFormat::from_name) {
                        image.format = f;
                        continue;
                    } else if self.at(TokenKind::Comma)
                        && self
                            .text(self.peek_at(1))
                            .to_ascii_uppercase()
                            .starts_with("PIPE_FORMAT_")
                    {
                        self.bump();
                        let (word, span) = self.parse_word("an image format")?;
                        return Err(self.unknown_format(word, span, "an image format", false));
                    } else {
                        break;
                    }
                    self.bump();
                    self.bump();
                }
                decl.image = Some(image);
            }
            File::SamplerView if self.at(TokenKind::Comma) => {
                self.bump();
                let target = self.parse_texture_target()?;
                self.expect(TokenKind::Comma, "`,` and a return type")?;
                let first = self.parse_return_type()?;
                let mut types = vec![first];
                while types.len() < 4 {
                    match self.eat_comma_name(ReturnType::from_name) {
                        Some(t) => types.push(t),
                        None => break,
                    }
                }
                let return_types = if types.len() == 4 {
                    [types[0], types[1], types[2], types[3]]
                } else {
                    [first; 4]
                };
                decl.sampler_view = Some(SamplerViewDecl {
                    target,
                    return_types,
                });
            }
            File::Buffer => {
                if self.at_comma_word("ATOMIC") {
                    self.bump();
                    self.bump();
                    decl.atomic = true;
                }
            }
            File::Memory => {
                if let Some(m) = self.eat_comma_name(MemType::from_name) {
                    decl.mem_type = m;
                }
            }
            File::Image | File::SamplerView => {}
            _ => {
                if self.at_comma_word("LOCAL") {
                    self.bump();
                    self.bump();
                    decl.local = true;
                }
                if let Some(name) = self.eat_comma_name(SemanticName::from_name) {
                    let mut index = 0;
                    if self.eat(TokenKind::LBracket).is_some() {
                        index = self.parse_uint("a semantic index", 65535)?.0 as u32;
                        self.expect(TokenKind::RBracket, "`]`")?;
                    }
                    decl.semantic = Some(Semantic {
                        name,
                        index,
                        streams: [0; 4],
                    });
                }
            }
        }

        // 3. STREAM(a, b, c, d) on GS outputs
        if file == File::Output
            && self.shader.processor == Processor::Geometry
            && self.at_comma_word("STREAM")
        {
            self.bump();
            self.bump();
            self.expect(TokenKind::LParen, "`(`")?;
            let mut streams = [0u8; 4];
            for (i, s) in streams.iter_mut().enumerate() {
                if i > 0 {
                    self.expect(TokenKind::Comma, "`,`")?;
                }
                *s = self.parse_uint("a stream number", 3)?.0 as u8;
            }
            self.expect(TokenKind::RParen, "`)`")?;
            // Mesa writes streams only as part of a semantic token.
            if let Some(sem) = &mut decl.semantic {
                sem.streams = streams;
            }
        }

        // 4.-6. interpolation mode, location, cylindrical wrap, INVARIANT
        if let Some(mode) = self.eat_comma_name(InterpMode::from_name) {
            decl.interp = Some(Interp {
                mode,
                location: InterpLocation::Center,
                cylindrical_wrap: 0,
            });
        }
        if let Some(location) = self.eat_comma_name(InterpLocation::from_name) {
            // Without a mode keyword Mesa emits no interpolation token.
            if let Some(interp) = &mut decl.interp {
                interp.location = location;
            }
        }
        if decl.interp.is_some()
            && let Some(wrap) = self.eat_comma_name(parse_cylwrap)
            && let Some(interp) = &mut decl.interp
        {
            interp.cylindrical_wrap = wrap;
        }
        if self.at_comma_word("INVARIANT") {
            self.bump();
            self.bump();
            decl.invariant = true;
        }
        if self.at(TokenKind::Comma) {
            self.bump();
            return Err(self.bad_attribute(file));
        }
        Ok(decl)
    }

    fn parse_return_type(&mut self) -> PResult<ReturnType> {
        let (word, span) = self.parse_word("a return type")?;
        ReturnType::from_name(word).ok_or_else(|| {
            let d = Diagnostic::error(format!("unknown return type `{word}`"))
                .with_primary(span, "expected a return type");
            let d = with_suggestion(d, word, ReturnType::ALL.iter().map(|t| t.name()));
            self.error(d.with_note("return types are `UNORM`, `SNORM`, `SINT`, `UINT` and `FLOAT`"))
        })
    }

    /// The error for a `, word` no step of the declaration grammar took.
    fn bad_attribute(&mut self, file: File) -> Reported {
        let t = self.peek();
        if !matches!(t.kind, TokenKind::Ident | TokenKind::Number) {
            return self.expected("a declaration attribute");
        }
        let word = self.text(t);
        let order = "attributes come in the order ARRAY, LOCAL, semantic, STREAM, interpolation, location, INVARIANT";
        let known = word.eq_ignore_ascii_case("ARRAY")
            || word.eq_ignore_ascii_case("LOCAL")
            || word.eq_ignore_ascii_case("STREAM")
            || SemanticName::from_name(word).is_some()
            || InterpMode::from_name(word).is_some()
            || InterpLocation::from_name(word).is_some()
            || parse_cylwrap(word).is_some();
        if known {
            return self.error(
                Diagnostic::error(format!("`{word}` is out of place in this declaration"))
                    .with_primary(t.span, "unexpected here")
                    .with_note(order)
                    .with_note(match file {
                        File::Image => "IMAGE declarations take a texture target, then RAW, WR and a format",
                        File::SamplerView => "SVIEW declarations take a texture target and return types",
                        File::Buffer => "BUFFER declarations take only ATOMIC",
                        File::Memory => "MEMORY declarations take only GLOBAL, SHARED, PRIVATE or INPUT",
                        _ => "a semantic comes right after ARRAY and LOCAL; STREAM is only for GS outputs; CYLWRAP only after an interpolation mode",
                    }),
            );
        }
        let semantic = SemanticName::ALL.iter().map(|s| s.name());
        let interp = InterpMode::ALL
            .iter()
            .map(|s| s.name())
            .chain(InterpLocation::ALL.iter().map(|s| s.name()));
        let all = semantic
            .chain(interp)
            .chain(["INVARIANT", "LOCAL", "ARRAY"]);
        let suggestion = nearest(word, all);
        let mut d = Diagnostic::error(format!(
            "expected a semantic, interpolation mode, location or `INVARIANT`, found `{word}`"
        ))
        .with_primary(t.span, "unknown declaration attribute");
        if let Some(s) = suggestion {
            d = d.with_note(format!("help: did you mean `{s}`?"));
        }
        self.error(d)
    }

    // ----- immediates ---------------------------------------------------

    fn parse_immediate(&mut self) -> PResult<Immediate> {
        if let Some(open) = self.eat(TokenKind::LBracket) {
            let (n, span) = self.parse_uint("an immediate index", u32::MAX as u64)?;
            if n != self.num_immediates as u64 {
                let expected = self.num_immediates;
                return Err(self.error(
                    Diagnostic::error(format!(
                        "immediate index {n} is out of order: expected `IMM[{expected}]`"
                    ))
                    .with_primary(span, format!("this is immediate number {expected}"))
                    .with_secondary(open.span, "immediates are numbered in order from 0"),
                ));
            }
            self.expect(TokenKind::RBracket, "`]`")?;
        }
        let (word, span) = self.parse_word("an immediate type")?;
        let Some(ty) = ImmType::from_name(word) else {
            let d = Diagnostic::error(format!("unknown immediate type `{word}`"))
                .with_primary(span, "expected an immediate type");
            let d = with_suggestion(d, word, ImmType::ALL.iter().map(|t| t.name()));
            return Err(self.error(
                d.with_note("immediate types are FLT32, UINT32, INT32, FLT64, UINT64 and INT64"),
            ));
        };
        let open = self.expect(TokenKind::LBrace, "`{`")?;
        let mut words = Vec::with_capacity(4);
        let wanted = if ty.is_64bit() { 2 } else { 4 };
        let mut count = 0;
        loop {
            if count == 0 && self.at(TokenKind::RBrace) {
                break;
            }
            let (text, span) = self.parse_value_text()?;
            let result = match ty {
                ImmType::Flt32 => numbers::parse_flt32(text).map(|w| vec![w]),
                ImmType::Uint32 => numbers::parse_uint32(text).map(|w| vec![w]),
                ImmType::Int32 => numbers::parse_int32(text).map(|w| vec![w]),
                ImmType::Flt64 => numbers::parse_flt64(text).map(|(l, h)| vec![l, h]),
                ImmType::Int64 => numbers::parse_int64(text).map(|(l, h)| vec![l, h]),
                ImmType::Uint64 => numbers::parse_uint64(text).map(|(l, h)| vec![l, h]),
            };
            match result {
                Ok(w) => {
                    if count < wanted {
                        words.extend(w);
                    }
                }
                Err(msg) => {
                    return Err(self.error(
                        Diagnostic::error(format!("invalid {ty} value: {msg}"))
                            .with_primary(span, format!("expected a value of type {ty}")),
                    ));
                }
            }
            count += 1;
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        if !self.at(TokenKind::RBrace) {
            let (found, span) = self.describe_next();
            return Err(self.error(
                Diagnostic::error(format!("expected `,` or `}}`, found {found}"))
                    .with_primary(span, "expected `}`")
                    .with_secondary(open.span, "immediate opened here"),
            ));
        }
        let close = self.bump();
        if count != wanted {
            return Err(self.error(
                Diagnostic::error(format!(
                    "{ty} immediates take {wanted} values, found {count}"
                ))
                .with_primary(
                    Span::new(open.span.start, close.span.end),
                    format!("expected {wanted} values"),
                ),
            ));
        }
        self.num_immediates += 1;
        Ok(Immediate { ty, words })
    }

    /// The text of one immediate value: a number or `inf`/`nan` word, with a
    /// sign written right before it.
    fn parse_value_text(&mut self) -> PResult<(&'a str, Span)> {
        let first = self.peek();
        let mut start = first.span.start;
        if matches!(first.kind, TokenKind::Minus | TokenKind::Plus) {
            let next = self.peek_at(1);
            if next.span.start != first.span.end
                || !matches!(next.kind, TokenKind::Number | TokenKind::Ident)
            {
                self.bump();
                return Err(self.expected("a number right after the sign"));
            }
            self.bump();
            start = first.span.start;
        }
        let t = self.peek();
        if !matches!(t.kind, TokenKind::Number | TokenKind::Ident) {
            return Err(self.expected("a number"));
        }
        self.bump();
        let span = Span::new(start, t.span.end);
        Ok((&self.src[span.start..span.end], span))
    }

    // ----- properties ---------------------------------------------------

    fn parse_property(&mut self) -> PResult<Property> {
        let (word, span) = self.parse_word("a property name")?;
        let Some(name) = PropertyName::from_name_or_alias(word) else {
            let d = Diagnostic::error(format!("unknown property `{word}`"))
                .with_primary(span, "not a property name");
            let d = with_suggestion(d, word, PropertyName::ALL.iter().map(|p| p.name()));
            return Err(self.error(d));
        };
        let value = match name {
            PropertyName::GsInputPrimitive | PropertyName::GsOutputPrimitive => self
                .parse_enum_value(
                    "a primitive name",
                    Primitive::ALL
                        .iter()
                        .map(|p| (p.name(), *p as u32))
                        .collect(),
                )?,
            PropertyName::FsCoordOrigin => self.parse_enum_value(
                "`UPPER_LEFT` or `LOWER_LEFT`",
                vec![("UPPER_LEFT", 0), ("LOWER_LEFT", 1)],
            )?,
            PropertyName::FsCoordPixelCenter => self.parse_enum_value(
                "`HALF_INTEGER` or `INTEGER`",
                vec![("HALF_INTEGER", 0), ("INTEGER", 1)],
            )?,
            PropertyName::NextShader => self.parse_enum_value(
                "a shader stage name",
                Processor::ALL
                    .iter()
                    .map(|p| (p.name(), p.number(ProcessorNumbering::Mesa22)))
                    .collect(),
            )?,
            _ => {
                self.parse_uint("an unsigned integer value", u32::MAX as u64)?
                    .0 as u32
            }
        };
        if name == PropertyName::GsInputPrimitive && self.shader.processor == Processor::Geometry {
            self.implied_array_size =
                Primitive::from_u32(value).map_or(0, |p| p.vertices_per_primitive());
        }
        Ok(Property { name, value })
    }

    /// A name from `names` or (as the dumper prints unknown values) a number.
    fn parse_enum_value(&mut self, what: &str, names: Vec<(&'static str, u32)>) -> PResult<u32> {
        let t = self.peek();
        if t.kind == TokenKind::Number {
            return Ok(self.parse_uint(what, u32::MAX as u64)?.0 as u32);
        }
        let (word, span) = self.parse_word(what)?;
        if let Some((_, v)) = names.iter().find(|(n, _)| n.eq_ignore_ascii_case(word)) {
            return Ok(*v);
        }
        let d = Diagnostic::error(format!("expected {what}, found `{word}`"))
            .with_primary(span, format!("expected {what}"));
        let d = with_suggestion(d, word, names.iter().map(|(n, _)| *n));
        Err(self.error(d))
    }
}

/// `CYLWRAP_` + a subset of XYZW letters.
fn parse_cylwrap(word: &str) -> Option<u8> {
    let upper = word.to_ascii_uppercase();
    let letters = upper.strip_prefix("CYLWRAP_")?;
    let mut bits = 0u8;
    for ch in letters.chars() {
        bits |= 1 << Component::from_letter(ch)? as u8;
    }
    (bits != 0).then_some(bits)
}

/// Splits `_SAT`, `_PRECISE` and `_SAT_PRECISE` off an opcode word.
fn strip_suffixes(word: &str) -> (&str, bool, bool) {
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
fn lookup_opcode(word: &str) -> Option<(Opcode, bool, bool)> {
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

fn with_suggestion<'n>(
    d: Diagnostic,
    word: &str,
    names: impl IntoIterator<Item = &'n str>,
) -> Diagnostic {
    match nearest(word, names) {
        Some(s) => d.with_note(format!("help: did you mean `{s}`?")),
        None => d,
    }
}

fn join_names<'n>(names: impl Iterator<Item = &'n str>) -> String {
    names
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "a register index" -> "register index"
fn without_article(what: &str) -> &str {
    what.strip_prefix("an ")
        .or_else(|| what.strip_prefix("a "))
        .unwrap_or(what)
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The letters of a mask word that are x, y, z, w, in order, each once.
fn ordered_mask(word: &str) -> String {
    let lower = word.to_ascii_lowercase();
    "xyzw".chars().filter(|c| lower.contains(*c)).collect()
}

fn describe_token(src: &str, t: Token) -> String {
    match t.kind {
        TokenKind::Eof => "end of file".into(),
        TokenKind::StrayCr => "a carriage return".into(),
        _ => {
            let text = t.text(src);
            let short: String = text.chars().take(40).collect();
            format!("`{short}`")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(src: &str) -> Shader {
        match parse(src) {
            Ok((s, _)) => s,
            Err(d) => panic!("{}", d.render("test.tgsi", src)),
        }
    }

    fn err(src: &str) -> String {
        match parse(src) {
            Ok(_) => panic!("expected an error for {src:?}"),
            Err(d) => d.render("test.tgsi", src),
        }
    }

    fn first_inst(s: &Shader) -> &Instruction {
        s.instructions().next().unwrap()
    }

    fn first_decl(s: &Shader) -> &Declaration {
        s.declarations().next().unwrap()
    }

    fn corpus_files(sub: &str) -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/fixtures/corpus")
            .join(sub);
        let mut out = Vec::new();
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "tgsi") {
                    out.push(p);
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn every_accepted_and_generated_corpus_file_parses() {
        let mut files = corpus_files("accepted");
        files.extend(corpus_files("mesa-generated"));
        assert!(
            files.len() >= 300,
            "corpus not found: {} files",
            files.len()
        );
        let mut failures = Vec::new();
        for f in &files {
            let src = std::fs::read_to_string(f).unwrap();
            if let Err(d) = parse(&src) {
                failures.push(d.render(&f.display().to_string(), &src));
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {} failed:\n{}",
            failures.len(),
            files.len(),
            failures.join("\n")
        );
    }

    #[test]
    fn every_legacy_corpus_file_parses_or_has_located_errors() {
        let files = corpus_files("legacy");
        assert!(files.len() >= 90, "legacy corpus not found");
        for f in &files {
            let src = std::fs::read_to_string(f).unwrap();
            if let Err(d) = parse(&src) {
                assert!(!d.0.is_empty());
                for diag in &d.0 {
                    assert!(diag.primary.is_some(), "{}: {}", f.display(), diag.message);
                }
            }
        }
    }

    #[test]
    fn header_and_processors() {
        assert_eq!(ok("FRAG\nEND\n").processor, Processor::Fragment);
        assert_eq!(ok("tess_ctrl END").processor, Processor::TessCtrl);
        assert_eq!(ok("FRAG1.1\nEND\n").processor, Processor::Fragment);
        assert!(err("DCL IN[0]\nEND\n").contains("missing header"));
        assert!(err("FRAGG\nEND\n").contains("did you mean `FRAG`"));
    }

    #[test]
    fn instruction_numbers_and_labels() {
        let s = ok(
            "FRAG\n  0: UIF TEMP[0].xxxx :2\n  1:   KILL\n  2: ENDIF\n  3: BGNLOOP :0\n 4: ENDLOOP :0\n 5: END\n",
        );
        let insts: Vec<&Instruction> = s.instructions().collect();
        assert_eq!(insts.len(), 6);
        assert_eq!(insts[0].label, Some(2));
        assert_eq!(insts[3].label, Some(0));
        assert_eq!(insts[2].label, None);
        assert!(err("FRAG\nENDIF :3\n").contains("cannot take a label"));
    }

    #[test]
    fn operands_modifiers_and_swizzles() {
        let s =
            ok("FRAG\nMAD_SAT TEMP[1].xy, TEMP[0].xyxy, CONST[0][ADDR[0].x+1].wzyx, -|IMM[0].x|\n");
        let i = first_inst(&s);
        assert!(i.saturate && !i.precise);
        assert_eq!(i.dst[0].write_mask, WriteMask::X | WriteMask::Y);
        let c = &i.src[1];
        assert_eq!(c.reg.dimension, Some(Index::direct(0)));
        let ind = c.reg.index.indirect.unwrap();
        assert_eq!(
            (ind.file, ind.index, ind.component, c.reg.index.offset),
            (File::Address, 0, Component::X, 1)
        );
        assert_eq!(
            c.swizzle.0,
            [Component::W, Component::Z, Component::Y, Component::X]
        );
        let m = &i.src[2];
        assert!(m.negate && m.absolute);
        assert_eq!(m.swizzle, Swizzle::replicate(Component::X));
    }

    #[test]
    fn indirect_with_array_id_and_negative_offset() {
        let s = ok("FRAG\nMOV TEMP[ADDR[0].y -2](3), TEMP[ADDR[0].x + 3]\n");
        assert_eq!(first_inst(&s).src[0].reg.index.offset, 3);
        let d = &first_inst(&s).dst[0];
        assert_eq!(d.reg.index.offset, -2);
        let ind = d.reg.index.indirect.unwrap();
        assert_eq!((ind.component, ind.array_id), (Component::Y, 3));
    }

    #[test]
    fn precise_suffixes() {
        let s = ok(
            "FRAG\nMUL_SAT_PRECISE TEMP[0], TEMP[1], TEMP[2]\nADD_PRECISE TEMP[0], TEMP[1], TEMP[2]\n",
        );
        let insts: Vec<&Instruction> = s.instructions().collect();
        assert!(insts[0].saturate && insts[0].precise);
        assert!(!insts[1].saturate && insts[1].precise);
        assert!(
            err("FRAG\nADD_PRECISE_SAT TEMP[0], TEMP[1], TEMP[2]\n").contains("unknown opcode")
        );
    }

    #[test]
    fn texture_and_sample_tokens() {
        let s = ok(
            "FRAG\nTXF TEMP[5], TEMP[6], SAMP[0], 2D_ARRAY, IMM[3].xyz\nSAMPLE TEMP[4], TEMP[1], SVIEW[0], SAMP[0], IMM[3].xyz\n",
        );
        let insts: Vec<&Instruction> = s.instructions().collect();
        let t = insts[0].texture.as_ref().unwrap();
        assert_eq!(t.target, TextureTarget::Array2D);
        assert_eq!(t.offsets.len(), 1);
        assert_eq!(t.return_type, 5);
        let t = insts[1].texture.as_ref().unwrap();
        assert_eq!(t.target, TextureTarget::Unknown);
        assert_eq!(
            t.offsets[0].swizzle,
            [Component::X, Component::Y, Component::Z]
        );
        assert!(err("FRAG\nTEX TEMP[0], IN[0], SAMP[0], 2DD\n").contains("did you mean `2D`"));
    }

    #[test]
    fn memory_tokens() {
        let s = ok(
            "COMP\nSTORE IMAGE[0].xyzw, TEMP[1].xyyy, TEMP[2], 2D, PIPE_FORMAT_R32_UINT, COHERENT\nATOMFADD TEMP[0], BUFFER[0], TEMP[1], TEMP[2]\nBARRIER\n",
        );
        let insts: Vec<&Instruction> = s.instructions().collect();
        let m = insts[0].memory.unwrap();
        assert_eq!(m.target, TextureTarget::Tex2D);
        assert_eq!(
            m.format,
            PipeFormat::from_name("PIPE_FORMAT_R32_UINT").unwrap()
        );
        assert_eq!(m.qualifier, MemQualifier::COHERENT);
        assert!(insts[1].memory.is_none());
        assert!(insts[2].memory.is_some());
    }

    #[test]
    fn vertex_inputs_keep_their_attributes() {
        let s = ok("VERT\nDCL IN[0], POSITION\n");
        assert_eq!(
            first_decl(&s).semantic.unwrap().name,
            SemanticName::Position
        );
    }

    #[test]
    fn declarations_basic() {
        let s = ok(
            "FRAG\nDCL IN[0].xy, GENERIC[3], PERSPECTIVE, CENTROID\nDCL TEMP[0..7], ARRAY(2), LOCAL\nDCL CONST[1][0..15]\nDCL IN[1], POSITION, CENTROID\nDCL OUT[0], COLOR, INVARIANT\n",
        );
        let d: Vec<&Declaration> = s.declarations().collect();
        assert_eq!(d[0].usage_mask, WriteMask::X | WriteMask::Y);
        assert_eq!(d[0].semantic.unwrap().index, 3);
        assert_eq!(d[0].interp.unwrap().location, InterpLocation::Centroid);
        assert_eq!(
            (d[1].first, d[1].last, d[1].array_id, d[1].local),
            (0, 7, Some(2), true)
        );
        assert_eq!((d[2].dimension, d[2].first, d[2].last), (Some(1), 0, 15));
        assert_eq!(
            d[3].interp, None,
            "LOCATION without INTERP emits no interp token"
        );
        assert!(d[4].invariant);
    }

    #[test]
    fn geometry_and_tessellation_brackets() {
        let s = ok(
            "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nDCL IN[][0], POSITION\nDCL IN[3][1]\nDCL IN[]\nDCL OUT[0], POSITION, STREAM(1, 0, 2, 3)\n",
        );
        let d: Vec<&Declaration> = s.declarations().collect();
        assert_eq!((d[0].first, d[0].last, d[0].dimension), (0, 0, None));
        assert_eq!((d[1].first, d[1].dimension), (1, None));
        assert_eq!((d[2].first, d[2].last), (0, 2));
        assert_eq!(d[3].semantic.unwrap().streams, [1, 0, 2, 3]);
        let s = ok("TESS_CTRL\nDCL OUT[][5], GENERIC[0]\nDCL IN[]\n");
        let d: Vec<&Declaration> = s.declarations().collect();
        assert_eq!((d[0].first, d[0].dimension), (5, None));
        assert_eq!(d[1].last, 31);
        assert!(err("FRAG\nDCL IN[]\n").contains("implied array size"));
    }

    #[test]
    fn resource_declarations() {
        let s = ok(
            "COMP\nDCL SVIEW[0], 2D, FLOAT\nDCL SVIEW[1], 3D, UINT, SINT\nDCL SVIEW[2], 2D, FLOAT, UINT, SINT, UNORM\nDCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR\nDCL BUFFER[0], ATOMIC\nDCL MEMORY[0], SHARED\nDCL HWATOMIC[0][1..3], ARRAY(1)\nDCL SVIEW[3]\n",
        );
        let d: Vec<&Declaration> = s.declarations().collect();
        assert_eq!(
            d[0].sampler_view.unwrap().return_types,
            [ReturnType::Float; 4]
        );
        assert_eq!(
            d[1].sampler_view.unwrap().return_types,
            [ReturnType::Uint; 4]
        );
        assert_eq!(
            d[2].sampler_view.unwrap().return_types,
            [
                ReturnType::Float,
                ReturnType::Uint,
                ReturnType::Sint,
                ReturnType::Unorm
            ]
        );
        let img = d[3].image.unwrap();
        assert!(img.writable && !img.raw && img.target == TextureTarget::Tex2D);
        assert!(d[4].atomic);
        assert_eq!(d[5].mem_type, MemType::Shared);
        assert_eq!(
            (d[6].dimension, d[6].first, d[6].last, d[6].array_id),
            (Some(0), 1, 3, Some(1))
        );
        assert_eq!(d[7].sampler_view.unwrap().target, TextureTarget::Buffer);
    }

    #[test]
    fn immediates_of_every_type() {
        let s = ok(
            "FRAG\nIMM[0] FLT32 { 0.5, 1.0, 0x00000000, -2.5e1}\nIMM[1] UINT32 {7, 0, 4294967295, 1}\nIMM[2] FLT64 {1.5, -0.25}\nIMM INT64 {-1, 0x10}\nIMM[4] UINT64 {18446744073709551615, 0}\nIMM[5] INT32 {-2147483648, 0, 1, -1}\n",
        );
        let imms: Vec<&Immediate> = s.immediates().collect();
        assert_eq!(
            imms[0].words,
            [0x3f00_0000, 0x3f80_0000, 0, (-25.0f32).to_bits()]
        );
        assert_eq!(imms[1].words, [7, 0, u32::MAX, 1]);
        let b = 1.5f64.to_bits();
        assert_eq!(imms[2].words[..2], [b as u32, (b >> 32) as u32]);
        assert_eq!(imms[3].words, [u32::MAX, u32::MAX, 0x10, 0]);
        assert_eq!(imms[4].words, [u32::MAX, u32::MAX, 0, 0]);
        assert_eq!(imms[5].words, [0x8000_0000, 0, 1, u32::MAX]);
        assert!(err("FRAG\nIMM[1] FLT32 {0, 0, 0, 0}\n").contains("out of order"));
        assert!(err("FRAG\nIMM INT64 {010, 0}\n").contains("octal"));
        assert!(err("FRAG\nIMM FLT32 {0, 0, 0}\n").contains("take 4 values"));
    }

    #[test]
    fn properties() {
        let s = ok(
            "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nPROPERTY GS_OUTPUT_PRIMITIVE 5\nPROPERTY NEXT_SHADER FRAG\nPROPERTY FS_COORD_ORIGIN LOWER_LEFT\nPROPERTY GS_MAX_OUTPUT_VERTICES 6\n",
        );
        let p: Vec<&Property> = s.properties().collect();
        assert_eq!(p[0].value, Primitive::Triangles as u32);
        assert_eq!(p[1].value, 5);
        assert_eq!(p[2].value, 4);
        assert_eq!(p[3].value, 1);
        assert_eq!(p[4].value, 6);
        assert!(err("FRAG\nPROPERTY FS_COORD_ORIGINN 1\n").contains("did you mean"));
    }

    #[test]
    fn free_form_statements_like_mesa() {
        let s = ok("FRAG DCL TEMP[0] MOV TEMP[0],\n  TEMP[0] END");
        assert_eq!(s.statements.len(), 3);
        let s = ok(
            "FRAG\nMOV\n TEMP[0], TEMP[0]\nIMM FLT32 {1,\n 2, 3,\n 4}\nTEX TEMP[0], TEMP[0], SAMP[0],\n 2D\nEND\n",
        );
        assert_eq!(s.statements.len(), 4);
    }

    #[test]
    fn friendly_extensions() {
        let s = ok("FRAG ; a comment\r\nMOV TEMP[0], TEMP[1].y ; another\r\nEND\r\n");
        assert_eq!(
            first_inst(&s).src[0].swizzle,
            Swizzle::replicate(Component::Y)
        );
        assert!(err("FRAG\rEND\n").contains("carriage return"));
    }

    #[test]
    fn every_error_is_reported_and_spans_are_kept() {
        let src = "FRAG\nMOV TEMP[0], FOO[0]\nMOVV TEMP[0], TEMP[1]\nADD TEMP[0].yx, TEMP[0], TEMP[1]\nEND\n";
        let Err(d) = parse(src) else { panic!() };
        assert_eq!(d.0.len(), 3);
        assert!(d.0.iter().all(|d| d.primary.is_some()));
        let (_, map) = parse("FRAG\nMOV TEMP[0].x, -TEMP[1]\n").unwrap();
        assert_eq!(map.statements.len(), 1);
        assert_eq!(map.operands[0], [Span::new(9, 18), Span::new(20, 28)]);
    }

    #[test]
    fn overflow_is_an_error() {
        assert!(err("FRAG\nMOV TEMP[99999999999999999999], TEMP[0]\n").contains("out of range"));
        assert!(err("FRAG\nMOV TEMP[40000], TEMP[0]\n").contains("out of range"));
        assert!(err("FRAG\nIMM UINT32 {4294967296, 0, 0, 0}\n").contains("32 bits"));
    }

    #[test]
    fn legacy_constructs_are_named() {
        assert!(err("FRAG\nSUB TEMP[0], TEMP[1], TEMP[2]\n").contains("`ADD`"));
        assert!(err("FRAG\nDCL RES[0], 2D, FLOAT\n").contains("SVIEW"));
        assert!(err("COMP\n#define x TEMP[0]\n").contains("preprocessor"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Arbitrary text never panics and every error has a span.
        #[test]
        fn arbitrary_text_never_panics(src in "\\PC{0,200}") {
            if let Err(d) = parse(&src) {
                proptest::prop_assert!(d.0.iter().all(|d| d.primary.is_some()));
                let _ = d.render("p.tgsi", &src);
            }
        }

        /// Shuffled TGSI words (the likely garbage) never panic either.
        #[test]
        fn tgsi_word_soup_never_panics(words in proptest::collection::vec(proptest::sample::select(vec![
            "FRAG", "GEOM", "DCL", "IMM", "PROPERTY", "MOV", "TEX", "STORE", "UIF", "ENDIF", "TEMP", "IN", "SVIEW",
            "IMAGE", "[", "]", "(", ")", "{", "}", ",", ":", ".", "..", "|", "-", "+", "0", "1", "99999999999",
            "0x3f800000", "1.5e-3", "2D", "xyzw", "x", "FLT32", "INT64", "010", "ADDR", "ARRAY", "\n", "\r", ";", "#",
            "GS_INPUT_PRIMITIVE", "TRIANGLES", "PIPE_FORMAT_R32_UINT", "COHERENT", "STREAM", "é",
        ]), 0..60)) {
            for src in [words.join(" "), words.concat()] {
                if let Err(d) = parse(&src) {
                    proptest::prop_assert!(d.0.iter().all(|d| d.primary.is_some()));
                    let _ = d.render("p.tgsi", &src);
                }
            }
        }
    }

    #[test]
    fn never_panics_on_garbage() {
        let inputs = [
            "",
            "\0",
            "FRAG",
            "FRAG\n[[[[[[",
            "FRAG\nMOV",
            "FRAG\nIMM[",
            "FRAG\nDCL",
            "FRAG\nDCL SVIEW[0], 2D,",
            "FRAG\nMOV TEMP[ADDR[",
            "FRAG\nIMM FLT64 {0x",
            "\u{feff}FRAG",
            "FRAG\n-|",
            "FRAG\nTEX TEMP[0], IN[0], SAMP[0], 2D, IN[0], IN[0], IN[0], IN[0], IN[0]",
        ];
        for i in inputs {
            let _ = parse(i);
        }
        let long = "FRAG\n".to_string() + &"x\n".repeat(100_000);
        let Err(d) = parse(&long) else { panic!() };
        assert_eq!(d.0.len(), MAX_ERRORS + 1);
        assert!(d.0.iter().all(|d| d.primary.is_some()));
    }
}
