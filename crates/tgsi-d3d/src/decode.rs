//! SHDR/SHEX payload → [`Program`]: the strict token-stream decoder.
//!
//! Every length is checked against what remains before it is used, nothing is
//! allocated from a length field before that check, bits the format leaves
//! undefined must be zero, and every error names the payload-relative byte
//! offset of the offending dword and what was expected there.

use crate::enums::{
    CustomDataClass, ExtendedOpcodeType, ExtendedOperandType, IndexRepresentation, MinPrecision,
    OperandModifier, ProgramType, RegisterFile, ResourceDimension, ReturnType, SystemValue,
};
use crate::error::DecodeError;
use crate::ir::{
    Components, ConstantBufferRange, Controls, CustomData, ExtendedOpcode, Index, Instruction,
    Operand, Payload, Program, ShaderMessage, Version,
};
use crate::opcode::{CONTROL_FIELDS, OpFlags, Opcode, OpcodeInfo, PayloadKind, bits, control_bits};

/// Deepest nesting of relative indices accepted (fxc writes one level).
pub const MAX_RELATIVE_DEPTH: usize = 4;

/// Decodes a SHDR or SHEX chunk payload (version token, length token,
/// instructions). Offsets in errors are relative to the payload start.
pub fn decode_program(payload: &[u8]) -> Result<Program, DecodeError> {
    if payload.len() < 8 {
        return Err(DecodeError::at(
            0,
            format!(
                "expected the version and length tokens (8 bytes), found {} bytes",
                payload.len()
            ),
        ));
    }
    if !payload.len().is_multiple_of(4) {
        return Err(DecodeError::at(
            payload.len() & !3,
            format!(
                "program size {} is not a multiple of 4 bytes",
                payload.len()
            ),
        ));
    }
    let words = Words { bytes: payload };
    let version_token = words.get(0);
    let version = decode_version(version_token)?;
    let length = words.get(1) as usize;
    let available = payload.len() / 4;
    if length != available {
        return Err(DecodeError::at(
            4,
            format!("length token says {length} dword(s), the program holds {available}"),
        ));
    }
    let mut instructions = Vec::new();
    let mut pos = 2;
    while pos < length {
        let (inst, next) = decode_instruction(&words, pos, length)?;
        instructions.push(inst);
        pos = next;
    }
    Ok(Program {
        version,
        instructions,
    })
}

fn decode_version(token: u32) -> Result<Version, DecodeError> {
    if token & 0xFF00 != 0 {
        return Err(DecodeError::at(
            0,
            format!("version token 0x{token:08x}: bits 8-15 must be zero"),
        ));
    }
    let (program_type, major, minor) = bits::version_fields(token);
    let program_type = ProgramType::from_u32(program_type).ok_or_else(|| {
        DecodeError::at(
            0,
            format!("version token 0x{token:08x}: unknown program type 0x{program_type:x}"),
        )
    })?;
    Ok(Version {
        program_type,
        major: major as u8,
        minor: minor as u8,
    })
}

/// The payload as little-endian dwords; every access is bounds-checked by the
/// cursor before it is made.
struct Words<'a> {
    bytes: &'a [u8],
}

impl Words<'_> {
    /// Dword `i`; callers check `i` against the length first.
    fn get(&self, i: usize) -> u32 {
        let b = &self.bytes[i * 4..i * 4 + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

/// A read position inside one instruction (`end` = one past its last dword).
struct Cursor<'a, 'b> {
    words: &'b Words<'a>,
    pos: usize,
    end: usize,
}

impl Cursor<'_, '_> {
    fn offset(&self) -> usize {
        self.pos * 4
    }
    fn remaining(&self) -> usize {
        self.end - self.pos
    }
    fn err(&self, message: impl Into<String>) -> DecodeError {
        DecodeError::at(self.offset(), message)
    }
    fn next(&mut self, what: &str) -> Result<u32, DecodeError> {
        if self.pos >= self.end {
            return Err(self.err(format!("expected {what}, but the instruction ends here")));
        }
        let v = self.words.get(self.pos);
        self.pos += 1;
        Ok(v)
    }
}

fn decode_instruction(
    words: &Words,
    start: usize,
    length: usize,
) -> Result<(Instruction, usize), DecodeError> {
    let token = words.get(start);
    let at = start * 4;
    let number = bits::opcode_number(token);
    let opcode = Opcode::from_u32(number).ok_or_else(|| {
        DecodeError::at(
            at,
            format!("unknown opcode 0x{number:x} (opcode token 0x{token:08x})"),
        )
    })?;
    let info = opcode.info();
    if info.flags.contains(OpFlags::RESERVED) {
        return Err(DecodeError::at(
            at,
            format!("opcode 0x{number:x} is reserved"),
        ));
    }
    if info.flags.contains(OpFlags::CUSTOM_DATA) {
        return decode_custom_data(words, start, length);
    }
    let inst_len = bits::instruction_length(token);
    if inst_len == 0 {
        return Err(DecodeError::at(
            at,
            format!("{}: instruction length 0", info.name),
        ));
    }
    if inst_len > length - start {
        return Err(DecodeError::at(
            at,
            format!(
                "{}: instruction length {inst_len} dwords, only {} remain",
                info.name,
                length - start
            ),
        ));
    }
    let controls = decode_controls(token, info, at)?;
    let mut cur = Cursor {
        words,
        pos: start + 1,
        end: start + inst_len,
    };
    let mut extended = Vec::new();
    let mut more = token & bits::EXTENDED != 0;
    while more {
        let ext_at = cur.offset();
        let ext = cur.next("an extended opcode token")?;
        more = ext & bits::EXTENDED != 0;
        extended.push(decode_extended_opcode(ext, ext_at)?);
    }
    let mut payload = Payload::None;
    if info.payload == PayloadKind::CallSite {
        payload = Payload::CallSite(cur.next("the function call-site index")?);
    }
    let mut operands = Vec::with_capacity(info.operands.len());
    for _ in info.operands {
        operands.push(decode_operand(&mut cur, 0)?);
    }
    if info.payload != PayloadKind::CallSite {
        payload = decode_payload(&mut cur, info)?;
    }
    // dwords the length covers beyond the operands and payload (fxc leaves
    // one after some sample_*_s ops); kept exactly
    let trailing = read_rest(&mut cur);
    Ok((
        Instruction {
            opcode,
            controls,
            extended,
            operands,
            payload,
            trailing,
        },
        start + inst_len,
    ))
}

fn decode_controls(token: u32, info: &OpcodeInfo, at: usize) -> Result<Controls, DecodeError> {
    let used = control_bits(info.flags);
    let stray = token & bits::CONTROLS_MASK & !used;
    if stray != 0 {
        return Err(DecodeError::at(
            at,
            format!(
                "{}: opcode token 0x{token:08x} sets control bits 0x{stray:08x} the opcode does not define",
                info.name
            ),
        ));
    }
    let mut controls = Controls::default();
    for field in CONTROL_FIELDS
        .iter()
        .filter(|f| info.flags.contains(f.flag))
    {
        let value = (token >> field.shift) & ((1 << field.width) - 1);
        controls.set_field(field.flag, value).ok_or_else(|| {
            DecodeError::at(
                at,
                format!(
                    "{}: undefined value {value} in control bits {}-{}",
                    info.name,
                    field.shift,
                    field.shift + field.width - 1
                ),
            )
        })?;
    }
    Ok(controls)
}

fn decode_extended_opcode(token: u32, at: usize) -> Result<ExtendedOpcode, DecodeError> {
    let err = |m: String| DecodeError::at(at, format!("extended opcode token 0x{token:08x}: {m}"));
    let kind = ExtendedOpcodeType::from_u32(token & 0x3F);
    let body = token & 0x7FFF_FFC0;
    match kind {
        Some(ExtendedOpcodeType::SampleControls) => {
            if body & !0x001F_FE00 != 0 {
                return Err(err("reserved bits set in sample controls".into()));
            }
            let offset = |shift: u32| (((token >> shift) & 0xF) as i8) << 4 >> 4;
            Ok(ExtendedOpcode::SampleControls {
                offsets: [offset(9), offset(13), offset(17)],
            })
        }
        Some(ExtendedOpcodeType::ResourceDim) => {
            if body & !0x007F_FFC0 != 0 {
                return Err(err("reserved bits set in resource dimension".into()));
            }
            let dim = (token >> 6) & 0x1F;
            let dimension = ResourceDimension::from_u32(dim)
                .ok_or_else(|| err(format!("unknown resource dimension {dim}")))?;
            Ok(ExtendedOpcode::ResourceDim {
                dimension,
                stride: ((token >> 11) & 0xFFF) as u16,
            })
        }
        Some(ExtendedOpcodeType::ResourceReturnType) => {
            if body & !0x003F_FFC0 != 0 {
                return Err(err("reserved bits set in resource return type".into()));
            }
            let types = return_types((token >> 6) & 0xFFFF).map_err(err)?;
            Ok(ExtendedOpcode::ResourceReturnType(types))
        }
        _ => Err(err(format!(
            "unknown extended opcode type {}",
            token & 0x3F
        ))),
    }
}

/// Four return types, 4 bits each from bit 0.
fn return_types(bits: u32) -> Result<[ReturnType; 4], String> {
    let mut out = [ReturnType::Float; 4];
    for (i, slot) in out.iter_mut().enumerate() {
        let v = (bits >> (4 * i)) & 0xF;
        *slot = ReturnType::from_u32(v)
            .ok_or_else(|| format!("undefined return type {v} for component {i}"))?;
    }
    Ok(out)
}

fn decode_operand(cur: &mut Cursor, depth: usize) -> Result<Operand, DecodeError> {
    let at = cur.offset();
    let token = cur.next("an operand token")?;
    let err = |m: String| DecodeError::at(at, format!("operand token 0x{token:08x}: {m}"));
    let selection = (token >> 2) & 0x3FF;
    let components = match token & 3 {
        0 | 1 if selection != 0 => {
            return Err(err(
                "component selection bits set on a 0- or 1-component operand".into(),
            ));
        }
        0 => Components::None,
        1 => Components::One,
        2 => match (token >> 2) & 3 {
            0 if token & 0xF00 == 0 => Components::Mask(((token >> 4) & 0xF) as u8),
            1 => Components::Swizzle([
                ((token >> 4) & 3) as u8,
                ((token >> 6) & 3) as u8,
                ((token >> 8) & 3) as u8,
                ((token >> 10) & 3) as u8,
            ]),
            2 if token & 0xFC0 == 0 => Components::Select(((token >> 4) & 3) as u8),
            3 => return Err(err("undefined component selection mode 3".into())),
            _ => {
                return Err(err(
                    "stray bits above the component mask or selected component".into(),
                ));
            }
        },
        _ => {
            return Err(err(
                "N-component operands (component count 3) are not supported".into(),
            ));
        }
    };
    let file_number = (token >> 12) & 0xFF;
    let file = RegisterFile::from_u32(file_number)
        .ok_or_else(|| err(format!("unknown operand type {file_number}")))?;
    let dims = ((token >> 20) & 3) as usize;
    let mut representations = [IndexRepresentation::Immediate32; 3];
    for (k, slot) in representations.iter_mut().enumerate() {
        let rep = (token >> (22 + 3 * k)) & 7;
        if k >= dims {
            if rep != 0 {
                return Err(err(format!(
                    "index {k} representation set beyond the {dims} indices"
                )));
            }
            continue;
        }
        *slot = IndexRepresentation::from_u32(rep)
            .ok_or_else(|| err(format!("undefined representation {rep} for index {k}")))?;
    }
    let mut operand = Operand {
        file,
        components,
        indices: Vec::with_capacity(dims),
        modifier: OperandModifier::None,
        min_precision: MinPrecision::Default,
        non_uniform: false,
        force_extended: false,
        values: Vec::new(),
    };
    if token & 0x8000_0000 != 0 {
        let ext_at = cur.offset();
        let ext = cur.next("an extended operand token")?;
        let ext_err =
            |m: &str| DecodeError::at(ext_at, format!("extended operand token 0x{ext:08x}: {m}"));
        if ExtendedOperandType::from_u32(ext & 0x3F) != Some(ExtendedOperandType::Modifier) {
            return Err(ext_err("only the modifier type (1) is defined"));
        }
        if ext & 0x7FFC_0000 != 0 {
            return Err(ext_err("reserved bits 18-30 set"));
        }
        if ext & 0x8000_0000 != 0 {
            return Err(ext_err("a second extended operand token is not defined"));
        }
        operand.modifier = OperandModifier::from_u32((ext >> 6) & 0xFF)
            .ok_or_else(|| ext_err("undefined operand modifier"))?;
        operand.min_precision = MinPrecision::from_u32((ext >> 14) & 7)
            .ok_or_else(|| ext_err("undefined minimum precision"))?;
        operand.non_uniform = ext & (1 << 17) != 0;
        operand.force_extended = !(operand.modifier != OperandModifier::None
            || operand.min_precision != MinPrecision::Default
            || operand.non_uniform);
    }
    for rep in representations.iter().take(dims) {
        let index = match rep {
            IndexRepresentation::Immediate32 => Index::Imm32(cur.next("a 32-bit index")?),
            IndexRepresentation::Immediate64 => Index::Imm64(read_u64_hi_lo(cur)?),
            IndexRepresentation::Relative => Index::Relative(Box::new(relative(cur, depth)?)),
            IndexRepresentation::Immediate32PlusRelative => {
                let imm = cur.next("a 32-bit index")?;
                Index::Imm32Relative(imm, Box::new(relative(cur, depth)?))
            }
            IndexRepresentation::Immediate64PlusRelative => {
                let imm = read_u64_hi_lo(cur)?;
                Index::Imm64Relative(imm, Box::new(relative(cur, depth)?))
            }
        };
        operand.indices.push(index);
    }
    let count = match (file, components) {
        (RegisterFile::Immediate32, Components::One) => 1,
        (
            RegisterFile::Immediate32,
            Components::Mask(_) | Components::Swizzle(_) | Components::Select(_),
        ) => 4,
        (RegisterFile::Immediate64, Components::One) => 2,
        (
            RegisterFile::Immediate64,
            Components::Mask(_) | Components::Swizzle(_) | Components::Select(_),
        ) => 4,
        (RegisterFile::Immediate32 | RegisterFile::Immediate64, Components::None) => {
            return Err(err("an immediate needs 1 or 4 components".into()));
        }
        _ => 0,
    };
    if count > cur.remaining() {
        return Err(cur.err(format!(
            "expected {count} immediate dwords, the instruction has {} left",
            cur.remaining()
        )));
    }
    for _ in 0..count {
        operand.values.push(cur.next("an immediate value")?);
    }
    Ok(operand)
}

fn relative(cur: &mut Cursor, depth: usize) -> Result<Operand, DecodeError> {
    if depth >= MAX_RELATIVE_DEPTH {
        return Err(cur.err(format!(
            "relative indices nested deeper than {MAX_RELATIVE_DEPTH} levels"
        )));
    }
    decode_operand(cur, depth + 1)
}

/// A 64-bit index: high dword first (the token-format header's order).
fn read_u64_hi_lo(cur: &mut Cursor) -> Result<u64, DecodeError> {
    let hi = cur.next("the high dword of a 64-bit index")?;
    let lo = cur.next("the low dword of a 64-bit index")?;
    Ok(((hi as u64) << 32) | lo as u64)
}

fn decode_payload(cur: &mut Cursor, info: &OpcodeInfo) -> Result<Payload, DecodeError> {
    let name = info.name;
    let optional = |cur: &mut Cursor, what: &str| -> Result<Option<u32>, DecodeError> {
        if cur.remaining() > 0 {
            Ok(Some(cur.next(what)?))
        } else {
            Ok(None)
        }
    };
    Ok(match info.payload {
        PayloadKind::None | PayloadKind::CallSite | PayloadKind::CustomData => Payload::None,
        PayloadKind::ReturnTypes => {
            let at = cur.offset();
            let bits = cur.next("the return-type dword")?;
            if bits & 0xFFFF_0000 != 0 {
                return Err(DecodeError::at(
                    at,
                    format!("{name}: return-type dword 0x{bits:08x} sets bits 16-31"),
                ));
            }
            let types =
                return_types(bits).map_err(|m| DecodeError::at(at, format!("{name}: {m}")))?;
            Payload::ReturnTypes {
                types,
                space: optional(cur, "the register space")?,
            }
        }
        PayloadKind::ConstantBuffer => match cur.remaining() {
            0 => Payload::ConstantBuffer(None),
            _ => {
                let size = cur.next("the constant buffer size")?;
                let space = cur.next("the register space")?;
                Payload::ConstantBuffer(Some(ConstantBufferRange { size, space }))
            }
        },
        PayloadKind::Space => Payload::Space(optional(cur, "the register space")?),
        PayloadKind::Structured => {
            let stride = cur.next("the structure stride")?;
            Payload::Structured {
                stride,
                space: optional(cur, "the register space")?,
            }
        }
        PayloadKind::Count => Payload::Count(cur.next("a count")?),
        PayloadKind::Name => {
            let at = cur.offset();
            let v = cur.next("a system-value name")?;
            Payload::Name(
                SystemValue::from_u32(v).ok_or_else(|| {
                    DecodeError::at(at, format!("{name}: unknown system value {v}"))
                })?,
            )
        }
        PayloadKind::IndexableTemp => Payload::IndexableTemp {
            register: cur.next("the indexable temp's register")?,
            count: cur.next("the indexable temp's register count")?,
            components: cur.next("the indexable temp's component count")?,
        },
        PayloadKind::TgsmStructured => Payload::TgsmStructured {
            stride: cur.next("the structure stride")?,
            count: cur.next("the structure count")?,
        },
        PayloadKind::FunctionTable => {
            let index = cur.next("the function table index")?;
            let count = cur.next("the function body count")? as usize;
            if count != cur.remaining() {
                return Err(cur.err(format!(
                    "{name}: {count} function bodies announced, {} dwords follow",
                    cur.remaining()
                )));
            }
            let mut bodies = Vec::with_capacity(count);
            for _ in 0..count {
                bodies.push(cur.next("a function body index")?);
            }
            Payload::FunctionTable { index, bodies }
        }
        PayloadKind::Interface => {
            let index = cur.next("the interface index")?;
            let call_sites = cur.next("the call-site count")?;
            let packed = cur.next("the array size and table count")?;
            let count = (packed & 0xFFFF) as usize;
            if count != cur.remaining() {
                return Err(cur.err(format!(
                    "{name}: {count} function tables announced, {} dwords follow",
                    cur.remaining()
                )));
            }
            let mut tables = Vec::with_capacity(count);
            for _ in 0..count {
                tables.push(cur.next("a function table index")?);
            }
            Payload::Interface {
                index,
                call_sites,
                array_size: (packed >> 16) as u16,
                tables,
            }
        }
        PayloadKind::Float => Payload::Float(cur.next("a float")?),
        PayloadKind::ThreadGroup => Payload::ThreadGroup([
            cur.next("the thread-group x size")?,
            cur.next("the thread-group y size")?,
            cur.next("the thread-group z size")?,
        ]),
    })
}

fn decode_custom_data(
    words: &Words,
    start: usize,
    length: usize,
) -> Result<(Instruction, usize), DecodeError> {
    let at = start * 4;
    let token = words.get(start);
    let class = bits::custom_data_class(token);
    if start + 1 >= length {
        return Err(DecodeError::at(
            at + 4,
            "customdata: expected its length dword, the program ends",
        ));
    }
    let total = words.get(start + 1) as usize;
    if total < 2 || total > length - start {
        return Err(DecodeError::at(
            at + 4,
            format!(
                "customdata: length {total} dwords, expected 2 to {}",
                length - start
            ),
        ));
    }
    let mut cur = Cursor {
        words,
        pos: start + 2,
        end: start + total,
    };
    let data = if class == CustomDataClass::ImmediateConstantBuffer.number() {
        CustomData::ImmediateConstantBuffer(read_rest(&mut cur))
    } else if class == CustomDataClass::ShaderMessage.number() {
        CustomData::ShaderMessage(decode_shader_message(&mut cur)?)
    } else {
        CustomData::Other {
            class,
            data: read_rest(&mut cur),
        }
    };
    let mut inst = Instruction::new(Opcode::CustomData, Vec::new());
    inst.payload = Payload::CustomData(data);
    Ok((inst, start + total))
}

/// The rest of the cursor's range (its length was checked against the program).
fn read_rest(cur: &mut Cursor) -> Vec<u32> {
    let out = (cur.pos..cur.end).map(|i| cur.words.get(i)).collect();
    cur.pos = cur.end;
    out
}

fn decode_shader_message(cur: &mut Cursor) -> Result<ShaderMessage, DecodeError> {
    let message_id = cur.next("the shader message id")?;
    let format = cur.next("the shader message format")?;
    let text_len = cur.next("the format string length")? as usize;
    let operand_count = cur.next("the operand count")? as usize;
    let dwords_at = cur.offset();
    let operand_dwords = cur.next("the operand dword count")? as usize;
    if operand_dwords > cur.remaining() {
        return Err(DecodeError::at(
            dwords_at,
            format!(
                "shader message: {operand_dwords} operand dwords, {} remain",
                cur.remaining()
            ),
        ));
    }
    if operand_count > operand_dwords {
        return Err(DecodeError::at(
            dwords_at,
            format!(
                "shader message: {operand_count} operands cannot fit in {operand_dwords} dwords"
            ),
        ));
    }
    let mut operands = Vec::with_capacity(operand_count);
    let outer_end = cur.end;
    cur.end = cur.pos + operand_dwords;
    for _ in 0..operand_count {
        operands.push(decode_operand(cur, 0)?);
    }
    if cur.remaining() != 0 {
        return Err(cur.err(format!(
            "shader message: {} operand dwords left after {operand_count} operands",
            cur.remaining()
        )));
    }
    cur.end = outer_end;
    let string_at = cur.offset();
    let string_dwords = cur.remaining();
    if text_len / 4 + 1 != string_dwords {
        return Err(DecodeError::at(
            string_at,
            format!(
                "shader message: a {text_len}-byte string needs {} dwords, {string_dwords} remain",
                text_len / 4 + 1
            ),
        ));
    }
    let bytes = crate::blob::le_bytes(&read_rest(cur));
    if bytes[text_len..].iter().any(|&b| b != 0) {
        return Err(DecodeError::at(
            string_at + text_len,
            "shader message: the string must end in NUL bytes up to the dword boundary",
        ));
    }
    Ok(ShaderMessage {
        message_id,
        format,
        text: bytes[..text_len].to_vec(),
        operands,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enums::Test;
    use proptest::prelude::Strategy;

    use crate::blob::le_bytes as bytes;

    /// Whatever decodes must re-encode to the same words and print.
    fn check_canonical(words: &[u32]) {
        let bytes = bytes(words);
        if let Ok(p) = decode_program(&bytes) {
            let again = crate::encode::encode_program(&p).expect("a decoded program encodes");
            assert_eq!(
                again, words,
                "decoded {words:08x?} but re-encoded differently"
            );
            let _ = crate::print::print_program(&p);
        }
    }

    /// One instruction with a valid length field and `body` after its token.
    fn instruction(token: u32, body: &[u32]) -> Vec<u32> {
        let len = (body.len() + 1).min(127) as u32;
        let mut w = vec![(token & 0x80FF_FFFF) | (len << 24)];
        w.extend(&body[..len as usize - 1]);
        w
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
            let _ = decode_program(&bytes);
        }

        #[test]
        fn random_instructions_never_panic_and_decode_canonically(
            version in 0u32..0x60,
            insts in proptest::collection::vec(
                (0u32..0xEB, proptest::prelude::any::<u32>(),
                 proptest::collection::vec(
                     proptest::prop_oneof![
                         0u32..16,
                         proptest::prelude::any::<u32>(),
                         // plausible operand tokens: register files 0-42, 0-3 indices
                         (0u32..0x1000, 0u32..43, 0u32..4, 0u32..8).prop_map(|(c, f, d, r)| c | (f << 12) | (d << 20) | (r << 22)),
                     ],
                     0..12)),
                0..8),
        ) {
            let mut words = vec![version, 0];
            for (op, controls, body) in &insts {
                let token = op | (controls & 0x80FF_F800);
                words.extend(instruction(token, body));
            }
            words[1] = words.len() as u32;
            check_canonical(&words);
        }
    }

    #[test]
    fn decodes_the_ps_div_example() {
        let p = decode_program(&bytes(&crate::test_words::PS_DIV)).unwrap();
        assert_eq!(p.version.program_type, ProgramType::Pixel);
        assert_eq!((p.version.major, p.version.minor), (5, 0));
        assert_eq!(p.instructions.len(), 6);
        let div = &p.instructions[3];
        assert_eq!(div.opcode, Opcode::Div);
        assert_eq!(div.operands[0].components, Components::Mask(1));
        assert_eq!(
            div.operands[1].indices,
            vec![Index::Imm32(0), Index::Imm32(0)]
        );
        assert_eq!(div.operands[2].components, Components::Select(0));
        assert_eq!(p.instructions[4].operands[1].values, vec![0; 4]);
    }

    #[test]
    fn errors_name_the_offset() {
        let e = decode_program(&bytes(&[0x50, 3, 0x0200_003e])).unwrap_err();
        assert_eq!(e.offset, 8);
        assert!(e.message.contains("length 2"), "{e}");
        let e = decode_program(&bytes(&[0x50, 3, 0x0000_00eb])).unwrap_err();
        assert!(e.message.contains("unknown opcode"), "{e}");
        let e = decode_program(&bytes(&[0x50, 3, 0x0100_006b])).unwrap_err();
        assert!(e.message.contains("reserved"), "{e}");
        let e = decode_program(&bytes(&[0x50, 4])).unwrap_err();
        assert_eq!(e.offset, 4);
        let e = decode_program(&[1, 2, 3]).unwrap_err();
        assert_eq!(e.offset, 0);
        // ret with the saturate bit: not a control of ret
        let e = decode_program(&bytes(&[0x50, 3, 0x0100_203e])).unwrap_err();
        assert!(e.message.contains("control bits"), "{e}");
        // if_nz decodes its test bit
        let p = decode_program(&bytes(&[0x50, 5, 0x0304_001f, 0x0010_000a, 0])).unwrap();
        assert_eq!(p.instructions[0].controls.test.0, Test::NonZero);
    }
}
