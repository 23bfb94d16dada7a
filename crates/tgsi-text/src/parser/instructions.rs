//! Instructions: opcode, suffixes, operands, texture and memory tokens,
//! labels, and the errors for removed opcodes.

use super::*;

impl<'a> Parser<'a> {
    // ----- instructions -------------------------------------------------

    pub(super) fn parse_instruction(&mut self, after_label: bool) -> PResult<Instruction> {
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
    pub(super) fn operand_may_follow(&self) -> bool {
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
    pub(super) fn note_operand_count(&mut self, opcode: Opcode) {
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

    pub(super) fn unknown_opcode(&mut self, t: Token, after_label: bool) -> Reported {
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
}
