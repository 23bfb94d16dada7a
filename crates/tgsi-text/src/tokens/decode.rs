//! The token decoder: any `&[u32]` → IR or an error naming the word offset.
//!
//! Every read is bounds-checked against the current token (whose extent
//! `NrTokens` gives, itself checked against the stream), every loop is bounded
//! by the input length, and every field is checked (padding zero, enumerated
//! values known), so bad input is an error and never a panic.

use super::{
    DecodeError, MAX_TEX_OFFSETS, TOKEN_DECLARATION, TOKEN_IMMEDIATE, TOKEN_INSTRUCTION,
    TOKEN_PROPERTY, field, signed_field,
};
use tgsi_ir::enums::*;
use tgsi_ir::ir::*;
use tgsi_ir::opcode::{OpFlags, Opcode};

/// Decodes a whole token stream (header included).
pub fn decode(words: &[u32], numbering: ProcessorNumbering) -> Result<Shader, DecodeError> {
    let Some(&header) = words.first() else {
        return Err(err(0, "empty stream: expected the header word".into()));
    };
    let header_size = field(header, 0, 8);
    if header_size != 2 {
        return Err(err(0, format!("HeaderSize is {header_size}, expected 2")));
    }
    let body_size = field(header, 8, 24) as usize;
    if words.len() < 2 {
        return Err(err(1, "the stream ends before the processor word".into()));
    }
    if body_size != words.len() - 2 {
        return Err(err(
            0,
            format!(
                "BodySize says {body_size} words follow the header, but the stream has {}",
                words.len() - 2
            ),
        ));
    }
    let processor_word = words[1];
    let number = field(processor_word, 0, 4);
    let processor = Processor::from_number(number, numbering).ok_or_else(|| {
        err(
            1,
            format!("unknown processor number {number} ({numbering:?} numbering)"),
        )
    })?;
    padding(processor_word, 1, 4, "processor")?;

    let mut shader = Shader::new(processor);
    let mut pos = 2;
    while pos < words.len() {
        let head = words[pos];
        let mut token = match field(head, 0, 4) {
            TOKEN_IMMEDIATE => TokenReader::new(words, pos, field(head, 4, 14) as usize)?,
            TOKEN_DECLARATION | TOKEN_PROPERTY => {
                TokenReader::new(words, pos, field(head, 4, 8) as usize)?
            }
            // Mesa counts an instruction's words without its first one.
            TOKEN_INSTRUCTION => TokenReader::new(words, pos, field(head, 4, 8) as usize + 1)?,
            other => {
                return Err(err(
                    pos,
                    format!("unknown token type {other} (expected 0..=3) in word 0x{head:08x}"),
                ));
            }
        };
        let statement = match field(head, 0, 4) {
            TOKEN_DECLARATION => Statement::Declaration(token.declaration()?),
            TOKEN_IMMEDIATE => Statement::Immediate(token.immediate()?),
            TOKEN_INSTRUCTION => Statement::Instruction(token.instruction()?),
            _ => Statement::Property(token.property()?),
        };
        token.finish()?;
        shader.statements.push(statement);
        pos = token.end;
    }
    Ok(shader)
}

fn err(word: usize, message: String) -> DecodeError {
    DecodeError { word, message }
}

/// Checks that bits `lo..32` of the word at `offset` are zero.
fn padding(word: u32, offset: usize, lo: u32, what: &str) -> Result<(), DecodeError> {
    if field(word, lo, 32 - lo) != 0 {
        return Err(err(
            offset,
            format!("padding bits {lo}..31 of the {what} word 0x{word:08x} are not zero"),
        ));
    }
    Ok(())
}

/// Looks a field value up in an enumeration, or reports it.
fn known<T>(value: Option<T>, offset: usize, raw: u32, what: &str) -> Result<T, DecodeError> {
    value.ok_or_else(|| err(offset, format!("unknown {what} {raw}")))
}

fn file(raw: u32, offset: usize) -> Result<File, DecodeError> {
    known(File::from_u32(raw), offset, raw, "register file")
}

fn target(raw: u32, offset: usize) -> Result<TextureTarget, DecodeError> {
    known(TextureTarget::from_u32(raw), offset, raw, "texture target")
}

fn format(raw: u32, offset: usize) -> Result<PipeFormat, DecodeError> {
    let format = PipeFormat(raw as u16);
    known(format.name().map(|_| format), offset, raw, "pipe format")
}

/// One token: the words `start..end` that its `NrTokens` claims.
struct TokenReader<'a> {
    words: &'a [u32],
    start: usize,
    end: usize,
    pos: usize,
}

impl<'a> TokenReader<'a> {
    fn new(words: &'a [u32], start: usize, nr_tokens: usize) -> Result<Self, DecodeError> {
        if nr_tokens == 0 {
            return Err(err(
                start,
                "NrTokens is 0; a token has at least its own word".into(),
            ));
        }
        let left = words.len() - start;
        if nr_tokens > left {
            return Err(err(
                start,
                format!("NrTokens {nr_tokens} runs past the end of the stream ({left} words left)"),
            ));
        }
        Ok(TokenReader {
            words,
            start,
            end: start + nr_tokens,
            pos: start,
        })
    }

    /// The next word of the token and its offset.
    fn next(&mut self, what: &str) -> Result<(u32, usize), DecodeError> {
        if self.pos >= self.end {
            return Err(err(
                self.start,
                format!(
                    "NrTokens {} is too small: the token needs its {what} word at offset {}",
                    self.end - self.start,
                    self.pos
                ),
            ));
        }
        let offset = self.pos;
        self.pos += 1;
        Ok((self.words[offset], offset))
    }

    /// Checks that the token used exactly the words `NrTokens` gave it.
    fn finish(&self) -> Result<(), DecodeError> {
        if self.pos != self.end {
            return Err(err(
                self.start,
                format!(
                    "NrTokens says {} words but the token's flags call for {}",
                    self.end - self.start,
                    self.pos - self.start
                ),
            ));
        }
        Ok(())
    }

    fn property(&mut self) -> Result<Property, DecodeError> {
        let (head, at) = self.next("property")?;
        let raw = field(head, 12, 8);
        let name = known(PropertyName::from_u32(raw), at, raw, "property name")?;
        padding(head, at, 20, "property")?;
        let values = self.end - self.start - 1;
        if values != 1 {
            return Err(err(
                at,
                format!("a property carries exactly one value word, this one has {values}"),
            ));
        }
        let (value, _) = self.next("property value")?;
        Ok(Property { name, value })
    }

    fn immediate(&mut self) -> Result<Immediate, DecodeError> {
        let (head, at) = self.next("immediate")?;
        let raw = field(head, 18, 4);
        let ty = known(ImmType::from_u32(raw), at, raw, "immediate data type")?;
        padding(head, at, 22, "immediate")?;
        let count = self.end - self.start - 1;
        if ty.is_64bit() && !count.is_multiple_of(2) {
            return Err(err(
                at,
                format!("a {ty} immediate needs an even number of data words, it has {count}"),
            ));
        }
        let words = self.words[self.start + 1..self.end].to_vec();
        self.pos = self.end;
        Ok(Immediate { ty, words })
    }

    fn declaration(&mut self) -> Result<Declaration, DecodeError> {
        let (head, at) = self.next("declaration")?;
        let file = file(field(head, 12, 4), at)?;
        let bit = |n: u32| field(head, n, 1) != 0;
        padding(head, at, 29, "declaration")?;
        let (range, _) = self.next("declaration range")?;
        let mut decl = Declaration::new(file, field(range, 0, 16), field(range, 16, 16));
        decl.usage_mask = WriteMask::from_bits_truncate(field(head, 16, 4) as u8);
        decl.invariant = bit(23);
        decl.local = bit(24);
        decl.atomic = bit(26);
        decl.mem_type = known(
            MemType::from_u32(field(head, 27, 2)),
            at,
            field(head, 27, 2),
            "memory type",
        )?;
        if bit(20) {
            let (dim, at) = self.next("declaration dimension")?;
            padding(dim, at, 16, "declaration dimension")?;
            decl.dimension = Some(field(dim, 0, 16));
        }
        if bit(22) {
            let (word, at) = self.next("declaration interpolation")?;
            let mode = known(
                InterpMode::from_u32(field(word, 0, 4)),
                at,
                field(word, 0, 4),
                "interpolation mode",
            )?;
            let location = known(
                InterpLocation::from_u32(field(word, 4, 2)),
                at,
                field(word, 4, 2),
                "interpolation location",
            )?;
            padding(word, at, 10, "declaration interpolation")?;
            decl.interp = Some(Interp {
                mode,
                location,
                cylindrical_wrap: field(word, 6, 4) as u8,
            });
        }
        if bit(21) {
            let (word, at) = self.next("declaration semantic")?;
            let name = known(
                SemanticName::from_u32(field(word, 0, 8)),
                at,
                field(word, 0, 8),
                "semantic name",
            )?;
            let streams = [0, 1, 2, 3].map(|i| field(word, 24 + 2 * i, 2) as u8);
            decl.semantic = Some(Semantic {
                name,
                index: field(word, 8, 16),
                streams,
            });
        }
        if file == File::Image {
            let (word, at) = self.next("declaration image")?;
            let target = target(field(word, 0, 8), at)?;
            let format = format(field(word, 10, 10), at)?;
            padding(word, at, 20, "declaration image")?;
            decl.image = Some(ImageDecl {
                target,
                format,
                raw: field(word, 8, 1) != 0,
                writable: field(word, 9, 1) != 0,
            });
        }
        if file == File::SamplerView {
            let (word, at) = self.next("declaration sampler view")?;
            let target = target(field(word, 0, 8), at)?;
            let mut return_types = [ReturnType::Unorm; 4];
            for (i, rt) in return_types.iter_mut().enumerate() {
                let raw = field(word, 8 + 6 * i as u32, 6);
                *rt = known(
                    ReturnType::from_u32(raw),
                    at,
                    raw,
                    "sampler-view return type",
                )?;
            }
            decl.sampler_view = Some(SamplerViewDecl {
                target,
                return_types,
            });
        }
        if bit(25) {
            let (word, at) = self.next("declaration array")?;
            padding(word, at, 10, "declaration array")?;
            decl.array_id = Some(field(word, 0, 10));
        }
        Ok(decl)
    }

    fn instruction(&mut self) -> Result<Instruction, DecodeError> {
        let (head, at) = self.next("instruction")?;
        let raw = field(head, 12, 8);
        let opcode = Opcode::from_u8(raw as u8)
            .filter(|op| !op.flags().contains(OpFlags::GAP))
            .ok_or_else(|| err(at, format!("unknown opcode {raw}")))?;
        padding(head, at, 31, "instruction")?;
        let info = opcode.info();
        let num_dst = field(head, 21, 2);
        let num_src = field(head, 23, 4);
        if num_dst != info.num_dst as u32 || num_src != info.num_src as u32 {
            return Err(err(
                at,
                format!(
                    "{} takes {} destination(s) and {} source(s), the token says {num_dst} and {num_src}",
                    info.name, info.num_dst, info.num_src
                ),
            ));
        }
        let bit = |n: u32| field(head, n, 1) != 0;
        let mut inst = Instruction {
            opcode,
            saturate: bit(20),
            precise: bit(30),
            dst: Vec::new(),
            src: Vec::new(),
            label: None,
            texture: None,
            memory: None,
        };
        if bit(27) {
            let (word, at) = self.next("instruction label")?;
            padding(word, at, 24, "instruction label")?;
            inst.label = Some(field(word, 0, 24));
        }
        if bit(28) {
            let (word, at) = self.next("instruction texture")?;
            let target = target(field(word, 0, 8), at)?;
            let count = field(word, 8, 4) as usize;
            if count > MAX_TEX_OFFSETS {
                return Err(err(
                    at,
                    format!("{count} texel offsets, at most {MAX_TEX_OFFSETS} are allowed"),
                ));
            }
            padding(word, at, 15, "instruction texture")?;
            let mut offsets = Vec::with_capacity(count);
            for _ in 0..count {
                let (word, at) = self.next("texel offset")?;
                padding(word, at, 26, "texel offset")?;
                offsets.push(TexOffset {
                    file: file(field(word, 16, 4), at)?,
                    index: signed_field(word, 0, 16),
                    swizzle: [20, 22, 24].map(|lo| Component::from_u32(field(word, lo, 2))),
                });
            }
            inst.texture = Some(TextureInfo {
                target,
                return_type: field(word, 12, 3) as u8,
                offsets,
            });
        }
        if bit(29) {
            let (word, at) = self.next("instruction memory")?;
            let target = target(field(word, 4, 8), at)?;
            let format = format(field(word, 12, 10), at)?;
            padding(word, at, 22, "instruction memory")?;
            inst.memory = Some(MemoryInfo {
                qualifier: MemQualifier::from_bits_truncate(field(word, 0, 4) as u8),
                target,
                format,
            });
        }
        for _ in 0..num_dst {
            let (word, at) = self.next("destination register")?;
            padding(word, at, 26, "destination register")?;
            let reg = self.register_tail(
                file(field(word, 0, 4), at)?,
                signed_field(word, 10, 16),
                field(word, 8, 1) != 0,
                field(word, 9, 1) != 0,
            )?;
            inst.dst.push(DstOperand {
                reg,
                write_mask: WriteMask::from_bits_truncate(field(word, 4, 4) as u8),
            });
        }
        for _ in 0..num_src {
            let (word, at) = self.next("source register")?;
            let reg = self.register_tail(
                file(field(word, 0, 4), at)?,
                signed_field(word, 6, 16),
                field(word, 4, 1) != 0,
                field(word, 5, 1) != 0,
            )?;
            inst.src.push(SrcOperand {
                reg,
                swizzle: Swizzle(
                    [22, 24, 26, 28].map(|lo| Component::from_u32(field(word, lo, 2))),
                ),
                absolute: field(word, 30, 1) != 0,
                negate: field(word, 31, 1) != 0,
            });
        }
        Ok(inst)
    }

    /// Reads the indirect, dimension and dimension-indirect words of a register.
    fn register_tail(
        &mut self,
        file: File,
        offset: i32,
        indirect: bool,
        dimension: bool,
    ) -> Result<Register, DecodeError> {
        let index = Index {
            offset,
            indirect: if indirect {
                Some(self.indirect()?)
            } else {
                None
            },
        };
        let dimension = if dimension {
            let (word, at) = self.next("register dimension")?;
            if field(word, 1, 1) != 0 {
                return Err(err(
                    at,
                    "a dimension with a dimension of its own (only two are allowed)".into(),
                ));
            }
            if field(word, 2, 14) != 0 {
                return Err(err(
                    at,
                    format!(
                        "padding bits 2..15 of the register dimension word 0x{word:08x} are not zero"
                    ),
                ));
            }
            let indirect = if field(word, 0, 1) != 0 {
                Some(self.indirect()?)
            } else {
                None
            };
            Some(Index {
                offset: signed_field(word, 16, 16),
                indirect,
            })
        } else {
            None
        };
        Ok(Register {
            file,
            index,
            dimension,
        })
    }

    fn indirect(&mut self) -> Result<IndirectAddr, DecodeError> {
        let (word, at) = self.next("indirect register")?;
        Ok(IndirectAddr {
            file: file(field(word, 0, 4), at)?,
            index: signed_field(word, 4, 16),
            component: Component::from_u32(field(word, 20, 2)),
            array_id: field(word, 22, 10),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::encode;

    const GEOMETRY_WORDS: [u32; 20] = [
        0x1202, 3, 0x23, 4, 0x002f2030, 0, 0, 0x00233030, 0x00010001, 5, 0x00040051, 0, 0x3dcccccd,
        0, 0, 0x00a01032, 0xf3, 0x39000022, 0, 0x00075002,
    ];

    #[test]
    fn decodes_and_re_encodes_mesa_words() {
        let shader = decode(&GEOMETRY_WORDS, ProcessorNumbering::Mesa22).unwrap();
        assert_eq!(shader.processor, Processor::Geometry);
        assert_eq!(shader.statements.len(), 6);
        assert_eq!(
            encode(&shader, ProcessorNumbering::Mesa22).unwrap(),
            GEOMETRY_WORDS
        );
        let text = crate::print(&shader);
        assert!(text.contains("DCL IN[][0], POSITION\n"), "{text}");
        assert!(text.contains("  0: MOV OUT[0], IN[0][0]\n"), "{text}");
    }

    #[test]
    fn malformed_streams_name_the_word() {
        let decode22 = |w: &[u32]| decode(w, ProcessorNumbering::Mesa22).unwrap_err();
        assert_eq!(decode22(&[]).word, 0);
        assert!(decode22(&GEOMETRY_WORDS[..19]).message.contains("BodySize"));
        let mut w = GEOMETRY_WORDS;
        w[2] = 0x2f; // property with NrTokens 2, type 15
        assert_eq!(decode22(&w).word, 2);
        let mut w = GEOMETRY_WORDS;
        w[19] = 0x00075ff2; // END with NrTokens 0xff
        let e = decode22(&w);
        assert_eq!(e.word, 19);
        assert!(e.message.contains("past the end"), "{e}");
        let mut w = GEOMETRY_WORDS;
        w[15] = 0x00a01042; // MOV with NrTokens 4 (one too many)
        let e = decode22(&w);
        assert_eq!(e.word, 15);
        let mut w = GEOMETRY_WORDS;
        w[15] = 0x00c01032; // MOV claiming 2 dsts
        assert!(decode22(&w).message.contains("takes 1"));
        let mut w = GEOMETRY_WORDS;
        w[18] = 2; // dimension of a dimension
        let e = decode22(&w);
        assert_eq!(e.word, 18);
        assert!(e.to_string().starts_with("word 18: "), "{e}");
        let mut w = GEOMETRY_WORDS;
        w[1] = 9;
        assert_eq!(decode22(&w).word, 1);
        let mut w = GEOMETRY_WORDS;
        w[19] = 0x000fc002; // opcode 252
        assert!(decode22(&w).message.contains("unknown opcode 252"));
    }

    /// Wraps body words in a header and a FRAG processor word.
    fn program(body: &[u32]) -> Vec<u32> {
        let mut w = vec![2 | (body.len() as u32) << 8, 4];
        w.extend_from_slice(body);
        w
    }

    #[test]
    fn every_optional_declaration_word_survives() {
        let mut s = Shader::new(Processor::Fragment);
        let mut input = Declaration::new(File::Input, 1, 3);
        input.dimension = Some(2);
        input.interp = Some(Interp {
            mode: InterpMode::Linear,
            location: InterpLocation::Sample,
            cylindrical_wrap: 5,
        });
        input.semantic = Some(Semantic {
            name: SemanticName::TexCoord,
            index: 7,
            streams: [1, 2, 3, 0],
        });
        input.array_id = Some(1023);
        input.invariant = true;
        input.local = true;
        s.statements.push(Statement::Declaration(input));
        let mut image = Declaration::new(File::Image, 0, 0);
        image.image = Some(ImageDecl {
            target: TextureTarget::Array2D,
            format: PipeFormat(13),
            raw: true,
            writable: false,
        });
        s.statements.push(Statement::Declaration(image));
        let mut view = Declaration::new(File::SamplerView, 0, 0);
        view.sampler_view = Some(SamplerViewDecl {
            target: TextureTarget::Cube,
            return_types: [
                ReturnType::Sint,
                ReturnType::Uint,
                ReturnType::Float,
                ReturnType::Snorm,
            ],
        });
        s.statements.push(Statement::Declaration(view));
        let mut mem = Declaration::new(File::Memory, 0, 0);
        mem.mem_type = MemType::Input;
        s.statements.push(Statement::Declaration(mem));
        s.statements.push(Statement::Immediate(Immediate {
            ty: ImmType::Int64,
            words: vec![1, 2, 3, 4],
        }));
        let words = encode(&s, ProcessorNumbering::Mesa22).unwrap();
        assert_eq!(decode(&words, ProcessorNumbering::Mesa22).unwrap(), s);
        let words21 = encode(&s, ProcessorNumbering::Mesa21).unwrap();
        assert_eq!(words21[1], 1);
        assert_eq!(decode(&words21, ProcessorNumbering::Mesa21).unwrap(), s);
    }

    #[test]
    fn strict_about_counts_and_padding() {
        let decode22 = |w: &[u32]| decode(w, ProcessorNumbering::Mesa22).unwrap_err();
        // A property with two values.
        let e = decode22(&program(&[0x33, 1, 2]));
        assert_eq!(e.word, 2);
        assert!(e.message.contains("exactly one value"), "{e}");
        // A UINT64 immediate with three data words.
        let e = decode22(&program(&[0x0010_0041, 1, 2, 3]));
        assert!(e.message.contains("even number"), "{e}");
        // An immediate of data type 9.
        assert!(
            decode22(&program(&[0x0024_0011, 0]))
                .message
                .contains("data type 9")
        );
        // A TEMP declaration with a padding bit set.
        let e = decode22(&program(&[0x8000_4020, 0]));
        assert!(e.message.contains("padding"), "{e}");
        // A declaration of register file 15.
        assert!(
            decode22(&program(&[0x0000_f020, 0]))
                .message
                .contains("register file 15")
        );
        // A declaration whose NrTokens leaves out its semantic word.
        let e = decode22(&program(&[0x0020_4020, 0]));
        assert!(e.message.contains("semantic"), "{e}");
        // Trailing words after the last token are not covered by BodySize.
        let mut w = program(&[0x33, 1]);
        w.push(0);
        assert!(decode22(&w).message.contains("BodySize"));
        // The processor word's padding.
        let mut w = program(&[]);
        w[1] = 0x14;
        assert_eq!(decode22(&w).word, 1);
    }
}
