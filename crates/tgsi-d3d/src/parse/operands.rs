//! Operands: modifiers, register files and indices (relative ones
//! included), swizzles and masks, immediates, min-precision annotations
//! and the printer's explicit markers.

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn instruction_operands(&mut self, inst: &mut Instruction) -> PResult<()> {
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
    pub(super) fn pop_glued(&self, op: &mut Operand, role: Role) -> Option<Index> {
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
    pub(super) fn call_site(&mut self, inst: &mut Instruction) -> PResult<u32> {
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

    pub(super) fn precise(&mut self, info: &OpcodeInfo) -> PResult<u8> {
        let open = self.bump();
        self.bump();
        let mut mask = 0xF;
        if self.eat(TokenKind::LParen).is_some() {
            let t = self.expect(TokenKind::Ident, "component letters")?;
            mask = match mask_from_letters(self.text(t)) {
                Some(m) if m != 0 => m,
                _ => {
                    let letters = self.text(t);
                    return Err(self.error(
                        Diagnostic::error(format!("bad precise mask `{letters}`"))
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
    pub(super) fn operand(&mut self, role: Role, depth: usize) -> PResult<(Operand, Span)> {
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

    pub(super) fn bad_letters(&mut self, role: Role, text: &str, span: Span) -> Reported {
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
    pub(super) fn annotation(&mut self, op: &mut Operand) -> PResult<Option<(Components, Span)>> {
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

    pub(super) fn unknown_name<'n>(
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
    pub(super) fn operand_core(
        &mut self,
        depth: usize,
    ) -> PResult<(Operand, Option<(&'a str, Span)>, usize)> {
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

    pub(super) fn bad_literal(&mut self, message: String, span: Span) -> Reported {
        self.error(
            Diagnostic::error(format!("bad immediate: {message}"))
                .with_primary(span, "cannot be encoded"),
        )
    }

    pub(super) fn register(&mut self, t: Token, depth: usize) -> PResult<Operand> {
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
    pub(super) fn brackets(&mut self, op: &mut Operand, depth: usize) -> PResult<()> {
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
    pub(super) fn index(&mut self, depth: usize) -> PResult<Vec<Index>> {
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

    pub(super) fn relative(&mut self, depth: usize) -> PResult<Operand> {
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
    pub(super) fn index_number(&mut self) -> PResult<(u64, bool, Span)> {
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

    pub(super) fn narrow(&mut self, n: u64, wide: bool, span: Span) -> PResult<u32> {
        if wide || n > u32::MAX as u64 {
            return Err(self.error(
                Diagnostic::error(format!("index {n} does not fit 32 bits"))
                    .with_primary(span, "write a 64-bit index as `Nl`"),
            ));
        }
        Ok(n as u32)
    }

    pub(super) fn number_u32(&mut self, what: &str) -> PResult<u32> {
        let t = self.peek();
        if t.kind != TokenKind::Number {
            return Err(self.expected(what));
        }
        self.bump();
        literal::unsigned(self.text(t)).map_err(|m| {
            let found = tgsi_ir::diag::shown(self.text(t));
            self.error(
                Diagnostic::error(format!("expected {what}, found `{found}`: {m}"))
                    .with_primary(t.span, format!("expected {what}")),
            )
        })
    }

    /// A number that must fit `bits` bits.
    pub(super) fn number_bits(&mut self, what: &str, bits: u32) -> PResult<u32> {
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
}

pub(super) fn role_name(role: Role) -> &'static str {
    match role {
        Role::Dst => "dst",
        Role::Src => "src",
        Role::Decl => "register",
    }
}

/// The register file named by a register word's letters (`r`, `cb`, `CB`,
/// `vThreadID`, …); `l` followed by a number is a label.
///
/// With `any_upper` (the register a `dcl_constantbuffer` declares, which
/// fxc 10 prints upper-case whatever its file) every file's upper-case
/// name is accepted; otherwise only the range-bound files' (`T0`, `CB1`).
pub(super) fn lookup_file(prefix: &str, any_upper: bool) -> Option<RegisterFile> {
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
pub(super) fn padded_swizzle(role: Role, text: &str) -> Option<Components> {
    let nums = component_numbers(text)?;
    if role != Role::Src || !(2..=3).contains(&nums.len()) {
        return None;
    }
    let mut s = [nums[nums.len() - 1]; 4];
    s[..nums.len()].copy_from_slice(&nums);
    Some(Components::Swizzle(s))
}
