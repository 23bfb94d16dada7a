//! `dcl_*` declarations: their operands and the words, numbers and
//! lists each declaration carries.

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn decl_operand(&mut self) -> PResult<Operand> {
        let (op, span) = self.operand(Role::Decl, 0)?;
        self.operand_spans.push(span);
        Ok(op)
    }

    pub(super) fn comma(&mut self) -> PResult<()> {
        self.expect(TokenKind::Comma, "`,`").map(|_| ())
    }

    /// `, space=N` (SM5.1), if present.
    pub(super) fn space(&mut self) -> PResult<Option<u32>> {
        if self.at(TokenKind::Comma) && self.at_word(1, "space") {
            self.bump();
            self.bump();
            self.expect(TokenKind::Equals, "`=`")?;
            return self.number_u32("a register space").map(Some);
        }
        Ok(None)
    }

    pub(super) fn return_types(&mut self) -> PResult<[ReturnType; 4]> {
        if !self.at(TokenKind::LParen) {
            return Err(self.expected("a return-type list such as `(float,float,float,float)`"));
        }
        let (items, _) = self.group()?;
        parse_return_types(&items).map_err(|d| self.error(d))
    }

    pub(super) fn enum_word<T: Copy>(
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

    pub(super) fn system_value(&mut self) -> PResult<SystemValue> {
        self.comma()?;
        self.enum_word(
            "system value",
            SystemValue::ALL,
            SystemValue::name,
            SystemValue::aliases,
        )
    }

    /// `linear noperspective centroid` … before a pixel-shader input (none = undefined).
    pub(super) fn interpolation(&mut self) -> PResult<Interpolation> {
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
        let words_span = Span::new(first.span.start, self.prev_end());
        Interpolation::from_name(&joined).ok_or_else(|| {
            self.error(
                Diagnostic::error(format!("unknown interpolation mode `{joined}`"))
                    .with_primary(words_span, "not an interpolation mode")
                    .with_note("modes: constant, linear [noperspective] [centroid | sample]"),
            )
        })
    }

    /// The register number of a `fb#` / `ft#` / `fp#` / `x#` word.
    pub(super) fn numbered(&mut self, prefix: &str) -> PResult<u32> {
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
    pub(super) fn numbered_list(&mut self, prefix: &str) -> PResult<Vec<u32>> {
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

    pub(super) fn declaration(&mut self, inst: &mut Instruction) -> PResult<()> {
        let opcode = inst.opcode;
        let c = &mut inst.controls;
        let mut operands = Vec::new();
        let payload = if opcode == Opcode::DclConstantBuffer {
            self.constant_buffer_declaration(c, &mut operands)?
        } else if let Some(p) = self.resource_declaration(opcode, c, &mut operands)? {
            p
        } else if let Some(p) = self.register_declaration(opcode, c, &mut operands)? {
            p
        } else if let Some(p) = self.stage_declaration(opcode, c)? {
            p
        } else if let Some(p) = self.program_declaration(opcode, c)? {
            p
        } else {
            // dcl_temps, dcl_maxout, phase instance counts, dcl_gsinstances
            Payload::Count(self.number_u32("a count")?)
        };
        inst.operands = operands;
        inst.payload = payload;
        Ok(())
    }

    /// `dcl_constantbuffer CBn[size], access[, space=n]` (the SM5.1 form with
    /// its size glued to the register or after it).
    fn constant_buffer_declaration(
        &mut self,
        c: &mut Controls,
        operands: &mut Vec<Operand>,
    ) -> PResult<Payload> {
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
        Ok(Payload::ConstantBuffer(range))
    }

    /// Shader resources, UAVs, samplers and shared memory.
    fn resource_declaration(
        &mut self,
        opcode: Opcode,
        c: &mut Controls,
        operands: &mut Vec<Operand>,
    ) -> PResult<Option<Payload>> {
        Ok(Some(match opcode {
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
            _ => return Ok(None),
        }))
    }

    /// Inputs, outputs, index ranges and indexable temps.
    fn register_declaration(
        &mut self,
        opcode: Opcode,
        c: &mut Controls,
        operands: &mut Vec<Operand>,
    ) -> PResult<Option<Payload>> {
        Ok(Some(match opcode {
            Opcode::DclIndexRange => {
                operands.push(self.decl_operand()?);
                self.eat(TokenKind::Comma);
                Payload::Count(self.number_u32("a register count")?)
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
            _ => return Ok(None),
        }))
    }

    /// The stage's primitives, control points, tessellator settings and thread group.
    fn stage_declaration(&mut self, opcode: Opcode, c: &mut Controls) -> PResult<Option<Payload>> {
        Ok(Some(match opcode {
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
            _ => return Ok(None),
        }))
    }

    /// Global flags, function bodies and tables, interfaces.
    fn program_declaration(
        &mut self,
        opcode: Opcode,
        c: &mut Controls,
    ) -> PResult<Option<Payload>> {
        Ok(Some(match opcode {
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
            _ => return Ok(None),
        }))
    }
}

/// `(t,t,t,t)`.
pub(super) fn parse_return_types(items: &[(&str, Span)]) -> Result<[ReturnType; 4], Diagnostic> {
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
