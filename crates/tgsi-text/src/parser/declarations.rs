//! `DCL` statements: register ranges with their semantics, interpolation,
//! arrays and the resource declarations.

use super::*;

impl<'a> Parser<'a> {
    // ----- declarations -------------------------------------------------

    /// `first[..last]` or empty (implied size) inside a declaration bracket, and the `]`.
    pub(super) fn parse_dcl_range(&mut self) -> PResult<(u32, u32)> {
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
    pub(super) fn at_comma_word(&self, word: &str) -> bool {
        self.peek().kind == TokenKind::Comma && self.at_word(1, word)
    }

    /// When the next tokens are `,` and a word for which `f` gives a value,
    /// consumes both and returns the value.
    pub(super) fn eat_comma_name<T>(&mut self, f: impl Fn(&str) -> Option<T>) -> Option<T> {
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

    pub(super) fn parse_declaration(&mut self) -> PResult<Declaration> {
        let mut decl = self.declared_range()?;
        let file = decl.file;
        self.array_id(&mut decl)?;
        // the file-specific part
        match file {
            File::Image if self.at(TokenKind::Comma) => decl.image = Some(self.image_attributes()?),
            File::SamplerView if self.at(TokenKind::Comma) => {
                decl.sampler_view = Some(self.sampler_view_attributes()?)
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
            _ => self.local_and_semantic(&mut decl)?,
        }
        self.streams(&mut decl)?;
        self.interpolation_and_invariance(&mut decl);
        if self.at(TokenKind::Comma) {
            self.bump();
            return Err(self.bad_attribute(file));
        }
        Ok(decl)
    }

    /// `FILE[first..last]` (with a leading dimension bracket where one
    /// belongs) and `.mask`, with the defaults of image and view files.
    fn declared_range(&mut self) -> PResult<Declaration> {
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
        Ok(decl)
    }

    /// 1. `, ARRAY(id)`
    fn array_id(&mut self, decl: &mut Declaration) -> PResult<()> {
        if self.at_comma_word("ARRAY") {
            self.bump();
            self.bump();
            self.expect(TokenKind::LParen, "`(`")?;
            let (id, _) = self.parse_signed("an array id", 0, 1023)?;
            self.expect(TokenKind::RParen, "`)`")?;
            decl.array_id = Some(id as u32);
        }
        Ok(())
    }

    /// 2. `, target[, RAW][, WR][, format]` of an IMAGE.
    fn image_attributes(&mut self) -> PResult<ImageDecl> {
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
        Ok(image)
    }

    /// 2. `, target, type[, type, type, type]` of an SVIEW.
    fn sampler_view_attributes(&mut self) -> PResult<SamplerViewDecl> {
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
        Ok(SamplerViewDecl {
            target,
            return_types,
        })
    }

    /// 2. `, LOCAL` and the semantic `, NAME[index]` of the other files.
    fn local_and_semantic(&mut self, decl: &mut Declaration) -> PResult<()> {
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
        Ok(())
    }

    /// 3. `, STREAM(a, b, c, d)` on GS outputs.
    fn streams(&mut self, decl: &mut Declaration) -> PResult<()> {
        let file = decl.file;
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
        Ok(())
    }

    /// 4.-6. interpolation mode, location, cylindrical wrap, INVARIANT.
    fn interpolation_and_invariance(&mut self, decl: &mut Declaration) {
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
    }

    pub(super) fn parse_return_type(&mut self) -> PResult<ReturnType> {
        let (word, span) = self.parse_word("a return type")?;
        ReturnType::from_name(word).ok_or_else(|| {
            let d = Diagnostic::error(format!("unknown return type `{word}`"))
                .with_primary(span, "expected a return type");
            let d = with_suggestion(d, word, ReturnType::ALL.iter().map(|t| t.name()));
            self.error(d.with_note("return types are `UNORM`, `SNORM`, `SINT`, `UINT` and `FLOAT`"))
        })
    }

    /// The error for a `, word` no step of the declaration grammar took.
    pub(super) fn bad_attribute(&mut self, file: File) -> Reported {
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
}
