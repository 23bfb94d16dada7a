//! The token encoder: IR → `tgsi_token` words, bit for bit as Mesa 22.3 lays
//! them out (header, processor, then one token per statement in order).

use super::{
    EncodeError, MAX_TEX_OFFSETS, TOKEN_DECLARATION, TOKEN_IMMEDIATE, TOKEN_INSTRUCTION,
    TOKEN_PROPERTY,
};
use tgsi_ir::enums::{File, ProcessorNumbering};
use tgsi_ir::ir::*;
use tgsi_ir::opcode::OpFlags;

/// Encodes a shader as Mesa's token words (header included).
pub fn encode(shader: &Shader, numbering: ProcessorNumbering) -> Result<Vec<u32>, EncodeError> {
    let mut words = vec![0, shader.processor.number(numbering)];
    for (statement, stmt) in shader.statements.iter().enumerate() {
        let mut token = Token {
            words: Vec::new(),
            statement,
        };
        match stmt {
            Statement::Property(p) => token.property(p)?,
            Statement::Declaration(d) => token.declaration(d)?,
            Statement::Immediate(i) => token.immediate(i)?,
            Statement::Instruction(i) => token.instruction(i)?,
        }
        words.extend(token.words);
    }
    let body = words.len() - 2;
    if body >= 1 << 24 {
        return Err(EncodeError {
            statement: shader.statements.len().saturating_sub(1),
            message: format!(
                "the program body has {body} words, more than the 24-bit BodySize can count"
            ),
        });
    }
    words[0] = 2 | (body as u32) << 8;
    Ok(words)
}

/// The words of one statement being built, with the statement index for errors.
struct Token {
    words: Vec<u32>,
    statement: usize,
}

impl Token {
    fn error(&self, message: String) -> EncodeError {
        EncodeError {
            statement: self.statement,
            message,
        }
    }

    /// Checks that `value` fits an unsigned field of `width` bits.
    fn unsigned(&self, value: u64, width: u32, what: &str) -> Result<u32, EncodeError> {
        if value >> width != 0 {
            return Err(self.error(format!("{what} {value} does not fit its {width}-bit field")));
        }
        Ok(value as u32)
    }

    /// Checks that `value` fits a signed field of `width` bits; returns the masked bits.
    fn signed(&self, value: i64, width: u32, what: &str) -> Result<u32, EncodeError> {
        let min = -(1i64 << (width - 1));
        let max = (1i64 << (width - 1)) - 1;
        if value < min || value > max {
            return Err(self.error(format!(
                "{what} {value} does not fit its {width}-bit signed field ({min}..={max})"
            )));
        }
        Ok((value as u32) & ((1u64 << width) - 1) as u32)
    }

    /// Writes the first word's `NrTokens` field (all the token's words) once
    /// the token is complete.
    fn finish_nr_tokens(&mut self, width: u32) -> Result<(), EncodeError> {
        self.write_nr_tokens(self.words.len(), width)
    }

    fn write_nr_tokens(&mut self, count: usize, width: u32) -> Result<(), EncodeError> {
        let n = self.unsigned(count as u64, width, "the token's word count")?;
        self.words[0] |= n << 4;
        Ok(())
    }

    fn property(&mut self, p: &Property) -> Result<(), EncodeError> {
        self.words.push(TOKEN_PROPERTY | (p.name as u32) << 12);
        self.words.push(p.value);
        self.finish_nr_tokens(8)
    }

    fn immediate(&mut self, imm: &Immediate) -> Result<(), EncodeError> {
        if imm.ty.is_64bit() && !imm.words.len().is_multiple_of(2) {
            return Err(self.error(format!(
                "a {} immediate needs an even number of words, it has {}",
                imm.ty,
                imm.words.len()
            )));
        }
        self.words.push(TOKEN_IMMEDIATE | (imm.ty as u32) << 18);
        self.words.extend_from_slice(&imm.words);
        self.finish_nr_tokens(14)
    }

    fn declaration(&mut self, d: &Declaration) -> Result<(), EncodeError> {
        let mut head = TOKEN_DECLARATION
            | (d.file as u32) << 12
            | (d.usage_mask.bits() as u32) << 16
            | (d.dimension.is_some() as u32) << 20
            | (d.semantic.is_some() as u32) << 21
            | (d.interp.is_some() as u32) << 22
            | (d.invariant as u32) << 23
            | (d.local as u32) << 24
            | (d.array_id.is_some() as u32) << 25
            | (d.atomic as u32) << 26;
        head |= (d.mem_type as u32) << 27;
        self.words.push(head);
        let first = self.unsigned(d.first as u64, 16, "declaration range start")?;
        let last = self.unsigned(d.last as u64, 16, "declaration range end")?;
        self.words.push(first | last << 16);
        if let Some(dim) = d.dimension {
            let dim = self.unsigned(dim as u64, 16, "declaration dimension")?;
            self.words.push(dim);
        }
        if let Some(interp) = &d.interp {
            let wrap = self.unsigned(interp.cylindrical_wrap as u64, 4, "cylindrical wrap")?;
            self.words
                .push(interp.mode as u32 | (interp.location as u32) << 4 | wrap << 6);
        }
        if let Some(sem) = &d.semantic {
            let index = self.unsigned(sem.index as u64, 16, "semantic index")?;
            let mut word = sem.name as u32 | index << 8;
            for (i, stream) in sem.streams.iter().enumerate() {
                word |= self.unsigned(*stream as u64, 2, "vertex stream")? << (24 + 2 * i);
            }
            self.words.push(word);
        }
        match (d.file == File::Image, &d.image) {
            (true, Some(image)) => {
                let format = self.unsigned(image.format.0 as u64, 10, "image format")?;
                self.words.push(
                    image.target as u32
                        | (image.raw as u32) << 8
                        | (image.writable as u32) << 9
                        | format << 10,
                );
            }
            (true, None) => {
                return Err(
                    self.error("an IMAGE declaration needs its image target and format".into())
                );
            }
            (false, Some(_)) => {
                return Err(self.error(format!(
                    "a {} declaration cannot carry image information",
                    d.file
                )));
            }
            (false, None) => {}
        }
        match (d.file == File::SamplerView, &d.sampler_view) {
            (true, Some(view)) => {
                let mut word = view.target as u32;
                for (i, rt) in view.return_types.iter().enumerate() {
                    word |= (*rt as u32) << (8 + 6 * i);
                }
                self.words.push(word);
            }
            (true, None) => {
                return Err(
                    self.error("an SVIEW declaration needs its target and return types".into())
                );
            }
            (false, Some(_)) => {
                return Err(self.error(format!(
                    "a {} declaration cannot carry sampler-view information",
                    d.file
                )));
            }
            (false, None) => {}
        }
        if let Some(id) = d.array_id {
            let id = self.unsigned(id as u64, 10, "ARRAY id")?;
            self.words.push(id);
        }
        self.finish_nr_tokens(8)
    }

    fn instruction(&mut self, inst: &Instruction) -> Result<(), EncodeError> {
        let info = inst.opcode.info();
        if info.flags.contains(OpFlags::GAP) {
            return Err(self.error(format!(
                "opcode slot {} ({}) is unused",
                inst.opcode as u8, info.name
            )));
        }
        if inst.dst.len() != info.num_dst as usize || inst.src.len() != info.num_src as usize {
            return Err(self.error(format!(
                "{} takes {} destination(s) and {} source(s), the instruction has {} and {}",
                info.name,
                info.num_dst,
                info.num_src,
                inst.dst.len(),
                inst.src.len()
            )));
        }
        self.words.push(
            TOKEN_INSTRUCTION
                | (inst.opcode as u32) << 12
                | (inst.saturate as u32) << 20
                | (inst.dst.len() as u32) << 21
                | (inst.src.len() as u32) << 23
                | (inst.label.is_some() as u32) << 27
                | (inst.texture.is_some() as u32) << 28
                | (inst.memory.is_some() as u32) << 29
                | (inst.precise as u32) << 30,
        );
        if let Some(label) = inst.label {
            let label = self.unsigned(label as u64, 24, "label")?;
            self.words.push(label);
        }
        if let Some(tex) = &inst.texture {
            if tex.offsets.len() > MAX_TEX_OFFSETS {
                return Err(self.error(format!(
                    "{} texel offsets given, at most {MAX_TEX_OFFSETS} are allowed",
                    tex.offsets.len()
                )));
            }
            let return_type = self.unsigned(tex.return_type as u64, 3, "texture return type")?;
            self.words
                .push(tex.target as u32 | (tex.offsets.len() as u32) << 8 | return_type << 12);
            for off in &tex.offsets {
                let index = self.signed(off.index as i64, 16, "texel offset index")?;
                let [x, y, z] = off.swizzle;
                self.words.push(
                    index
                        | (off.file as u32) << 16
                        | (x as u32) << 20
                        | (y as u32) << 22
                        | (z as u32) << 24,
                );
            }
        }
        if let Some(mem) = &inst.memory {
            let format = self.unsigned(mem.format.0 as u64, 10, "memory format")?;
            self.words
                .push(mem.qualifier.bits() as u32 | (mem.target as u32) << 4 | format << 12);
        }
        for dst in &inst.dst {
            let reg = &dst.reg;
            let index = self.signed(reg.index.offset as i64, 16, "register index")?;
            self.words.push(
                reg.file as u32
                    | (dst.write_mask.bits() as u32) << 4
                    | (reg.index.indirect.is_some() as u32) << 8
                    | (reg.dimension.is_some() as u32) << 9
                    | index << 10,
            );
            self.register_tail(reg)?;
        }
        for src in &inst.src {
            let reg = &src.reg;
            let index = self.signed(reg.index.offset as i64, 16, "register index")?;
            let mut word = reg.file as u32
                | (reg.index.indirect.is_some() as u32) << 4
                | (reg.dimension.is_some() as u32) << 5
                | index << 6;
            for (i, c) in src.swizzle.0.iter().enumerate() {
                word |= (*c as u32) << (22 + 2 * i);
            }
            word |= (src.absolute as u32) << 30 | (src.negate as u32) << 31;
            self.words.push(word);
            self.register_tail(reg)?;
        }
        // Mesa counts an instruction's words without its first one.
        self.write_nr_tokens(self.words.len() - 1, 8)
    }

    /// The words after a register word: indirect, dimension, dimension indirect.
    fn register_tail(&mut self, reg: &Register) -> Result<(), EncodeError> {
        if let Some(ind) = &reg.index.indirect {
            self.indirect(ind)?;
        }
        if let Some(dim) = &reg.dimension {
            let index = self.signed(dim.offset as i64, 16, "dimension index")?;
            self.words.push(dim.indirect.is_some() as u32 | index << 16);
            if let Some(ind) = &dim.indirect {
                self.indirect(ind)?;
            }
        }
        Ok(())
    }

    fn indirect(&mut self, ind: &IndirectAddr) -> Result<(), EncodeError> {
        let index = self.signed(ind.index as i64, 16, "indirect register index")?;
        let array_id = self.unsigned(ind.array_id as u64, 10, "indirect ARRAY id")?;
        self.words
            .push(ind.file as u32 | index << 4 | (ind.component as u32) << 20 | array_id << 22);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tgsi_ir::enums::*;
    use tgsi_ir::opcode::Opcode;

    /// `11_geometry.tgsi`'s first statements, against Mesa 22.3's words.
    #[test]
    fn matches_mesa_words() {
        let mut s = Shader::new(Processor::Geometry);
        s.statements.push(Statement::Property(Property {
            name: PropertyName::GsInputPrimitive,
            value: 4,
        }));
        let mut input = Declaration::new(File::Input, 0, 0);
        input.semantic = Some(Semantic {
            name: SemanticName::Position,
            index: 0,
            streams: [0; 4],
        });
        s.statements.push(Statement::Declaration(input));
        let mut out1 = Declaration::new(File::Output, 1, 1);
        out1.usage_mask = WriteMask::X | WriteMask::Y;
        out1.semantic = Some(Semantic {
            name: SemanticName::Generic,
            index: 0,
            streams: [0; 4],
        });
        s.statements.push(Statement::Declaration(out1));
        s.statements.push(Statement::Immediate(Immediate {
            ty: ImmType::Uint32,
            words: vec![0, 1036831949, 0, 0],
        }));
        let mut src = SrcOperand::new(Register::new(File::Input, 0));
        src.reg.dimension = Some(Index::direct(0));
        let mov = Instruction::new(
            Opcode::MOV,
            vec![DstOperand {
                reg: Register::new(File::Output, 0),
                write_mask: WriteMask::XYZW,
            }],
            vec![src],
        );
        s.statements.push(Statement::Instruction(mov));
        s.statements.push(Statement::Instruction(Instruction::new(
            Opcode::END,
            vec![],
            vec![],
        )));
        let words = encode(&s, ProcessorNumbering::Mesa22).unwrap();
        assert_eq!(
            words,
            vec![
                0x1202, 3, 0x23, 4, 0x002f2030, 0, 0, 0x00233030, 0x00010001, 5, 0x00040051, 0,
                0x3dcccccd, 0, 0, 0x00a01032, 0xf3, 0x39000022, 0, 0x00075002
            ]
        );
    }

    #[test]
    fn out_of_range_values_are_errors() {
        let mut s = Shader::new(Processor::Vertex);
        s.statements.push(Statement::Declaration(Declaration::new(
            File::Temp,
            0,
            70000,
        )));
        let err = encode(&s, ProcessorNumbering::Mesa22).unwrap_err();
        assert_eq!(err.statement, 0);
        assert!(err.message.contains("70000"), "{err}");
        let mut s = Shader::new(Processor::Vertex);
        s.statements.push(Statement::Instruction(Instruction::new(
            Opcode::MOV,
            vec![DstOperand {
                reg: Register::new(File::Temp, -40000),
                write_mask: WriteMask::XYZW,
            }],
            vec![SrcOperand::new(Register::new(File::Temp, 0))],
        )));
        assert!(
            encode(&s, ProcessorNumbering::Mesa22)
                .unwrap_err()
                .message
                .contains("-40000")
        );
        let mut s = Shader::new(Processor::Vertex);
        s.statements.push(Statement::Instruction(Instruction::new(
            Opcode::MOV,
            vec![],
            vec![],
        )));
        assert!(
            encode(&s, ProcessorNumbering::Mesa22)
                .unwrap_err()
                .message
                .contains("takes 1")
        );
    }
}
