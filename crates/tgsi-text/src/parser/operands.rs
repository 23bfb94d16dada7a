//! Numbers, names, registers and operands: the pieces every statement is
//! made of.

use super::*;

impl<'a> Parser<'a> {
    // ----- numbers ------------------------------------------------------

    /// An unsigned decimal integer no larger than `max`.
    pub(super) fn parse_uint(&mut self, what: &str, max: u64) -> PResult<(u64, Span)> {
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
    pub(super) fn parse_signed(&mut self, what: &str, min: i64, max: i64) -> PResult<(i64, Span)> {
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
    pub(super) fn parse_file(&mut self) -> PResult<(File, Span)> {
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
    pub(super) fn parse_word(&mut self, what: &str) -> PResult<(&'a str, Span)> {
        let t = self.peek();
        if !matches!(t.kind, TokenKind::Ident | TokenKind::Number) {
            return Err(self.expected(what));
        }
        self.bump();
        Ok((self.text(t), t.span))
    }

    pub(super) fn parse_texture_target(&mut self) -> PResult<TextureTarget> {
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
    pub(super) fn unknown_format(
        &mut self,
        word: &str,
        span: Span,
        what: &str,
        memory: bool,
    ) -> Reported {
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
    pub(super) fn parse_bracket(&mut self) -> PResult<Index> {
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
    pub(super) fn parse_register(&mut self) -> PResult<Register> {
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
    pub(super) fn parse_mask_letters(&mut self, what: &str) -> PResult<WriteMask> {
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

    pub(super) fn parse_dst(&mut self) -> PResult<DstOperand> {
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
    pub(super) fn parse_swizzle_letters(&mut self, count: usize) -> PResult<Vec<Component>> {
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

    pub(super) fn parse_src(&mut self) -> PResult<SrcOperand> {
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

    pub(super) fn parse_texoffset(&mut self) -> PResult<TexOffset> {
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
}
