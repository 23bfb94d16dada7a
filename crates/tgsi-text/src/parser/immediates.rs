//! `IMM` and `PROPERTY` statements.

use super::*;

impl<'a> Parser<'a> {
    // ----- immediates ---------------------------------------------------

    pub(super) fn parse_immediate(&mut self) -> PResult<Immediate> {
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
        Ok(Immediate { ty, words })
    }

    /// The text of one immediate value: a number or `inf`/`nan` word, with a
    /// sign written right before it.
    pub(super) fn parse_value_text(&mut self) -> PResult<(&'a str, Span)> {
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

    pub(super) fn parse_property(&mut self) -> PResult<Property> {
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
    pub(super) fn parse_enum_value(
        &mut self,
        what: &str,
        names: Vec<(&'static str, u32)>,
    ) -> PResult<u32> {
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
