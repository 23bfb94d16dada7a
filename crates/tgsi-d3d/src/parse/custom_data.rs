//! Custom data: the immediate constant buffer, shader messages
//! (`printf`, `errorf`), comments and opaque blocks, and the printer's
//! extended and trailing markers.

use super::*;

impl<'a> Parser<'a> {
    /// Newlines inside a `{ … }` block; a new statement or the end of the
    /// file before the block closes is an error.
    pub(super) fn block_newlines(&mut self, open: Span, what: &str) -> PResult<()> {
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

    pub(super) fn immediate_constant_buffer(&mut self, mnemonic: Span) -> PResult<Vec<u32>> {
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
                let row = Span::new(row_open.span.start, self.prev_end());
                return Err(self.error(
                    Diagnostic::error(format!(
                        "an immediate constant buffer row holds at most 4 values, found {count}"
                    ))
                    .with_primary(row, "too many values"),
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

    pub(super) fn imm32_value(&mut self) -> PResult<u32> {
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
    pub(super) fn custom_data(&mut self) -> PResult<Instruction> {
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
    pub(super) fn shader_message(
        &mut self,
        message_id: u32,
        format: u32,
    ) -> PResult<ShaderMessage> {
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
    pub(super) fn extended_tokens(&mut self) -> PResult<Vec<ExtendedOpcode>> {
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
    pub(super) fn trailing_marker(&mut self) -> PResult<Vec<u32>> {
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

pub(super) fn custom(data: CustomData) -> Instruction {
    let mut inst = Instruction::new(Opcode::CustomData, Vec::new());
    inst.payload = Payload::CustomData(data);
    inst
}

/// The inverse of [`crate::print::escape_message`]; errors give the
/// byte offset of the bad escape in `text`.
pub(super) fn unescape(text: &str) -> Result<Vec<u8>, (usize, String)> {
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
