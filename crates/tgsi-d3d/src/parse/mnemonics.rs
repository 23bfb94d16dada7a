//! Mnemonics: the opcode name with its suffixes in any order (`_sat`,
//! tests, sync and UAV flags, return types, `_aoffimmi`, `_indexable`,
//! resource types), the extended opcode tokens they stand for, and the
//! messages naming what an opcode accepts.

use super::*;

impl<'a> Parser<'a> {
    /// Reads one suffix piece at the cursor (`_word…` or a `(…)` group) into
    /// `pieces`; false, reading nothing, if the next token is neither.
    pub(super) fn suffix_piece(&mut self, pieces: &mut Vec<Piece<'a>>) -> PResult<bool> {
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
    pub(super) fn mnemonic(&mut self) -> PResult<(Mnemonic, Span)> {
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
    pub(super) fn group(&mut self) -> PResult<(Vec<(&'a str, Span)>, Span)> {
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

    pub(super) fn resolve(
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

    pub(super) fn no_pieces(&mut self, base: &str, pieces: &[Piece<'a>]) -> PResult<()> {
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

    pub(super) fn unsigned_item(&mut self, (text, span): (&str, Span)) -> PResult<u32> {
        literal::unsigned(text).map_err(|m| {
            self.error(
                Diagnostic::error(format!("expected an unsigned integer: {m}"))
                    .with_primary(span, "expected a number"),
            )
        })
    }
}

/// Splits `_a_b` (starting at byte `at`) into suffix words.
pub(super) fn split_words<'a>(text: &'a str, at: usize, out: &mut Vec<Piece<'a>>) {
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

/// The opcode spelled `word` (fxc name, alias, or their lower-case form).
pub(super) fn lookup_opcode(word: &str) -> Option<Opcode> {
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
pub(super) fn is_known_mnemonic(word: &str) -> bool {
    let special = SHADER_MESSAGE_NAMES.iter().any(|(_, n)| *n == word)
        || matches!(word, "dcl_immediateConstantBuffer" | "shader_message");
    special
        || word
            .match_indices('_')
            .map(|(i, _)| i)
            .chain(std::iter::once(word.len()))
            .any(|end| lookup_opcode(&word[..end]).is_some())
}

/// What a parenthesised group after a mnemonic holds.
pub(super) fn classify_group(
    items: &[(&str, Span)],
    span: Span,
) -> Result<ExtendedOpcode, Diagnostic> {
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
pub(super) fn suffixes(
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
pub(super) fn match_extended(
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
pub(super) fn extended_marker(pieces: &[Piece]) -> Result<Vec<ExtendedOpcode>, Diagnostic> {
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

pub(super) fn accepted_suffixes(info: &OpcodeInfo) -> String {
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
pub(super) fn suffix_note(info: &OpcodeInfo) -> String {
    let list = accepted_suffixes(info);
    if list == "no suffixes" {
        format!("`{}` takes no suffixes", info.name)
    } else {
        format!("`{}` takes: {list}", info.name)
    }
}
