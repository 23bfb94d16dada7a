//! [`Program`] → SHDR/SHEX payload words: the exact inverse of
//! [`crate::decode`]. Lengths, counts and "extended" bits are derived
//! here; an IR that cannot be written (a field out of its bit range, an
//! instruction longer than 127 dwords, operands or payload that do not match
//! the opcode's table row) is an [`EncodeError`], never a panic.

use std::fmt;

use crate::blob::{le_bytes, le_words};

use crate::enums::{CustomDataClass, RegisterFile, ReturnType};
use crate::ir::{
    Components, CustomData, ExtendedOpcode, Index, Instruction, Operand, Payload, Program,
    ShaderMessage,
};
use crate::opcode::{CONTROL_FIELDS, OpFlags, Opcode, OpcodeInfo, PayloadKind, bits};

/// Why a program could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError {
    /// index of the offending instruction in [`Program::instructions`]
    pub instruction: usize,
    pub message: String,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "instruction {}: {}", self.instruction, self.message)
    }
}

impl std::error::Error for EncodeError {}

/// Longest instruction the 7-bit length field can describe.
pub const MAX_INSTRUCTION_DWORDS: usize = 127;

/// Encodes a program as SHDR/SHEX payload dwords.
pub fn encode_program(program: &Program) -> Result<Vec<u32>, EncodeError> {
    let v = program.version;
    if v.major > 15 || v.minor > 15 {
        return Err(EncodeError {
            instruction: 0,
            message: format!("version {}.{} does not fit 4-bit fields", v.major, v.minor),
        });
    }
    let mut out = vec![
        bits::version_token(v.program_type.number(), v.major.into(), v.minor.into()),
        0,
    ];
    for (i, inst) in program.instructions.iter().enumerate() {
        encode_instruction(inst, &mut out).map_err(|message| EncodeError {
            instruction: i,
            message,
        })?;
    }
    out[1] = out.len() as u32;
    Ok(out)
}

/// Encodes a program as SHDR/SHEX payload bytes (little-endian dwords).
pub fn encode_program_bytes(program: &Program) -> Result<Vec<u8>, EncodeError> {
    Ok(le_bytes(&encode_program(program)?))
}

fn encode_instruction(inst: &Instruction, out: &mut Vec<u32>) -> Result<(), String> {
    let info = inst.opcode.info();
    if info.flags.contains(OpFlags::RESERVED) {
        return Err(format!("opcode 0x{:x} is reserved", inst.opcode.number()));
    }
    if info.flags.contains(OpFlags::CUSTOM_DATA) {
        return match &inst.payload {
            Payload::CustomData(data) => encode_custom_data(data, out),
            other => Err(format!(
                "customdata needs a custom-data payload, has {other:?}"
            )),
        };
    }
    let start = out.len();
    let mut token = inst.opcode.number();
    for field in CONTROL_FIELDS
        .iter()
        .filter(|f| info.flags.contains(f.flag))
    {
        let v = inst.controls.field(field.flag);
        if v >= 1 << field.width {
            return Err(format!(
                "{}: control value {v} does not fit {} bits",
                info.name, field.width
            ));
        }
        token |= v << field.shift;
    }
    if !inst.extended.is_empty() {
        token |= bits::EXTENDED;
    }
    out.push(token);
    for (k, ext) in inst.extended.iter().enumerate() {
        let more = if k + 1 < inst.extended.len() {
            bits::EXTENDED
        } else {
            0
        };
        out.push(encode_extended_opcode(ext)? | more);
    }
    if inst.operands.len() != info.operands.len() {
        return Err(format!(
            "{} takes {} operands, has {}",
            info.name,
            info.operands.len(),
            inst.operands.len()
        ));
    }
    if let (PayloadKind::CallSite, Payload::CallSite(site)) = (info.payload, &inst.payload) {
        out.push(*site);
    }
    for op in &inst.operands {
        encode_operand(op, out, 0)?;
    }
    encode_payload(info, &inst.payload, out)?;
    out.extend(&inst.trailing);
    let len = out.len() - start;
    if len > MAX_INSTRUCTION_DWORDS {
        return Err(format!(
            "{}: {len} dwords, longer than {MAX_INSTRUCTION_DWORDS}",
            info.name
        ));
    }
    out[start] |= (len as u32) << bits::LENGTH_SHIFT;
    Ok(())
}

fn encode_extended_opcode(ext: &ExtendedOpcode) -> Result<u32, String> {
    Ok(match *ext {
        ExtendedOpcode::SampleControls { offsets } => {
            let mut t = 1;
            for (k, &o) in offsets.iter().enumerate() {
                if !(-8..=7).contains(&o) {
                    return Err(format!("texel offset {o} outside -8..7"));
                }
                t |= ((o as u32) & 0xF) << (9 + 4 * k);
            }
            t
        }
        ExtendedOpcode::ResourceDim { dimension, stride } => {
            if stride > 0xFFF {
                return Err(format!("structure stride {stride} does not fit 12 bits"));
            }
            2 | (dimension.number() << 6) | ((stride as u32) << 11)
        }
        ExtendedOpcode::ResourceReturnType(types) => 3 | (pack_return_types(&types) << 6),
    })
}

fn pack_return_types(types: &[ReturnType; 4]) -> u32 {
    types
        .iter()
        .enumerate()
        .fold(0, |acc, (i, t)| acc | (t.number() << (4 * i)))
}

/// Number of immediate dwords an operand must carry.
fn immediate_dwords(op: &Operand) -> Result<usize, String> {
    let four = matches!(
        op.components,
        Components::Mask(_) | Components::Swizzle(_) | Components::Select(_)
    );
    Ok(match (op.file, op.components) {
        (RegisterFile::Immediate32, Components::One) => 1,
        (RegisterFile::Immediate64, Components::One) => 2,
        (RegisterFile::Immediate32 | RegisterFile::Immediate64, _) if four => 4,
        (RegisterFile::Immediate32 | RegisterFile::Immediate64, _) => {
            return Err("an immediate needs 1 or 4 components".into());
        }
        _ => 0,
    })
}

fn encode_operand(op: &Operand, out: &mut Vec<u32>, depth: usize) -> Result<(), String> {
    if depth > crate::decode::MAX_RELATIVE_DEPTH {
        return Err("relative indices nested too deeply".into());
    }
    if op.indices.len() > 3 {
        return Err(format!("{} indices, at most 3", op.indices.len()));
    }
    let mut token = match op.components {
        Components::None => 0,
        Components::One => 1,
        Components::Mask(m) => {
            if m > 0xF {
                return Err(format!("write mask 0x{m:x} wider than 4 bits"));
            }
            2 | ((m as u32) << 4)
        }
        Components::Swizzle(s) => {
            if s.iter().any(|&c| c > 3) {
                return Err(format!("swizzle {s:?} names a component above w"));
            }
            2 | (1 << 2)
                | ((s[0] as u32) << 4)
                | ((s[1] as u32) << 6)
                | ((s[2] as u32) << 8)
                | ((s[3] as u32) << 10)
        }
        Components::Select(c) => {
            if c > 3 {
                return Err(format!("selected component {c} above w"));
            }
            2 | (2 << 2) | ((c as u32) << 4)
        }
    };
    token |= op.file.number() << 12;
    token |= (op.indices.len() as u32) << 20;
    for (k, index) in op.indices.iter().enumerate() {
        let rep = match index {
            Index::Imm32(_) => 0,
            Index::Imm64(_) => 1,
            Index::Relative(_) => 2,
            Index::Imm32Relative(..) => 3,
            Index::Imm64Relative(..) => 4,
        };
        token |= rep << (22 + 3 * k);
    }
    let extended = op.needs_extended();
    if extended {
        token |= 0x8000_0000;
    }
    out.push(token);
    if extended {
        out.push(
            1 | (op.modifier.number() << 6)
                | (op.min_precision.number() << 14)
                | ((op.non_uniform as u32) << 17),
        );
    }
    for index in &op.indices {
        match index {
            Index::Imm32(v) => out.push(*v),
            Index::Imm64(v) => out.extend([(*v >> 32) as u32, *v as u32]),
            Index::Relative(r) => encode_operand(r, out, depth + 1)?,
            Index::Imm32Relative(v, r) => {
                out.push(*v);
                encode_operand(r, out, depth + 1)?;
            }
            Index::Imm64Relative(v, r) => {
                out.extend([(*v >> 32) as u32, *v as u32]);
                encode_operand(r, out, depth + 1)?;
            }
        }
    }
    let want = immediate_dwords(op)?;
    if op.values.len() != want {
        return Err(format!(
            "operand {} carries {} immediate dwords, needs {want}",
            op.file.name(),
            op.values.len()
        ));
    }
    out.extend(&op.values);
    Ok(())
}

fn encode_payload(info: &OpcodeInfo, payload: &Payload, out: &mut Vec<u32>) -> Result<(), String> {
    let mismatch = || {
        format!(
            "{}: payload {payload:?} does not fit its {:?} layout",
            info.name, info.payload
        )
    };
    match (info.payload, payload) {
        (PayloadKind::None, Payload::None) | (PayloadKind::CallSite, Payload::CallSite(_)) => {}
        (PayloadKind::ReturnTypes, Payload::ReturnTypes { types, space }) => {
            out.push(pack_return_types(types));
            out.extend(space);
        }
        (PayloadKind::ConstantBuffer, Payload::ConstantBuffer(range)) => {
            if let Some(r) = range {
                out.extend([r.size, r.space]);
            }
        }
        (PayloadKind::Space, Payload::Space(space)) => out.extend(space),
        (PayloadKind::Structured, Payload::Structured { stride, space }) => {
            out.push(*stride);
            out.extend(space);
        }
        (PayloadKind::Count, Payload::Count(n)) => out.push(*n),
        (PayloadKind::Name, Payload::Name(name)) => out.push(name.number()),
        (
            PayloadKind::IndexableTemp,
            Payload::IndexableTemp {
                register,
                count,
                components,
            },
        ) => {
            out.extend([*register, *count, *components]);
        }
        (PayloadKind::TgsmStructured, Payload::TgsmStructured { stride, count }) => {
            out.extend([*stride, *count]);
        }
        (PayloadKind::FunctionTable, Payload::FunctionTable { index, bodies }) => {
            out.extend([*index, bodies.len() as u32]);
            out.extend(bodies);
        }
        (
            PayloadKind::Interface,
            Payload::Interface {
                index,
                call_sites,
                array_size,
                tables,
            },
        ) => {
            if tables.len() > 0xFFFF {
                return Err(format!(
                    "{}: {} function tables, at most 65535",
                    info.name,
                    tables.len()
                ));
            }
            out.extend([
                *index,
                *call_sites,
                ((*array_size as u32) << 16) | tables.len() as u32,
            ]);
            out.extend(tables);
        }
        (PayloadKind::Float, Payload::Float(bits)) => out.push(*bits),
        (PayloadKind::ThreadGroup, Payload::ThreadGroup(xyz)) => out.extend(xyz),
        _ => return Err(mismatch()),
    }
    Ok(())
}

fn encode_custom_data(data: &CustomData, out: &mut Vec<u32>) -> Result<(), String> {
    let class = data.class();
    if class >= 1 << 21 {
        return Err(format!("customdata class {class} does not fit 21 bits"));
    }
    let start = out.len();
    out.push(Opcode::CustomData.number() | (class << bits::CONTROLS_SHIFT));
    out.push(0);
    match data {
        CustomData::ImmediateConstantBuffer(values) => out.extend(values),
        CustomData::Other { data, .. } => {
            if class == CustomDataClass::ShaderMessage.number() {
                return Err("class 4 custom data must be a ShaderMessage".into());
            }
            out.extend(data)
        }
        CustomData::ShaderMessage(m) => encode_shader_message(m, out)?,
    }
    let total = out.len() - start;
    out[start + 1] =
        u32::try_from(total).map_err(|_| "customdata longer than 2^32 dwords".to_string())?;
    Ok(())
}

fn encode_shader_message(m: &ShaderMessage, out: &mut Vec<u32>) -> Result<(), String> {
    out.extend([
        m.message_id,
        m.format,
        m.text.len() as u32,
        m.operands.len() as u32,
        0,
    ]);
    let count_at = out.len() - 1;
    let operands_start = out.len();
    for op in &m.operands {
        encode_operand(op, out, 0)?;
    }
    out[count_at] = (out.len() - operands_start) as u32;
    let mut bytes = m.text.clone();
    bytes.resize(m.text.len() / 4 * 4 + 4, 0);
    out.extend(le_words(&bytes));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::decode_program;
    use crate::enums::{OperandModifier, ProgramType};
    use crate::ir::Version;
    use crate::opcode::Opcode;

    fn program(instructions: Vec<Instruction>) -> Program {
        Program {
            version: Version {
                program_type: ProgramType::Pixel,
                major: 5,
                minor: 0,
            },
            instructions,
        }
    }

    #[test]
    fn encodes_lengths_and_extended_bits() {
        let mut neg = Operand::register(RegisterFile::Temp, &[0], Components::Select(0));
        neg.modifier = OperandModifier::Neg;
        let dst = Operand::register(RegisterFile::Temp, &[1], Components::Mask(1));
        let p = program(vec![
            Instruction::new(Opcode::Mov, vec![dst, neg]),
            Instruction::new(Opcode::Ret, vec![]),
        ]);
        let w = encode_program(&p).unwrap();
        assert_eq!(
            w,
            vec![
                0x50,
                9,
                0x0600_0036,
                0x0010_0012,
                1,
                0x8010_000a,
                0x41,
                0,
                0x0100_003e
            ]
        );
        let bytes = le_bytes(&w);
        assert_eq!(decode_program(&bytes).unwrap(), p);
    }

    #[test]
    fn refuses_what_the_format_cannot_hold() {
        let p = program(vec![Instruction::new(Opcode::Mov, vec![])]);
        let e = encode_program(&p).unwrap_err();
        assert!(e.message.contains("takes 2 operands"), "{e}");
        let mut i = Instruction::new(Opcode::DclTemps, vec![]);
        i.payload = Payload::Count(4);
        let mut bad = i.clone();
        bad.payload = Payload::Name(crate::enums::SystemValue::Position);
        assert!(encode_program(&program(vec![i])).is_ok());
        assert!(encode_program(&program(vec![bad])).is_err());
        let mut l = Operand::imm32(&[1, 2, 3, 4]);
        l.values.pop();
        let dst = Operand::register(RegisterFile::Temp, &[0], Components::Mask(0xF));
        let e = encode_program(&program(vec![Instruction::new(Opcode::Mov, vec![dst, l])]))
            .unwrap_err();
        assert!(e.message.contains("needs 4"), "{e}");
    }

    #[test]
    fn shader_messages_pad_their_string() {
        let mut inst = Instruction::new(Opcode::CustomData, vec![]);
        inst.payload = Payload::CustomData(CustomData::ShaderMessage(ShaderMessage {
            message_id: 0x0020_0102,
            format: 1,
            text: b"%0 is fine!".to_vec(),
            operands: vec![Operand::register(
                RegisterFile::Temp,
                &[10],
                Components::Select(2),
            )],
        }));
        let w = encode_program(&program(vec![inst])).unwrap();
        assert_eq!(&w[2..], &crate::test_words::PRINTF);
    }
}
