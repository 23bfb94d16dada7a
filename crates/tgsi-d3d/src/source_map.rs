//! Where each instruction of a decoded or assembled SM4/SM5 program came
//! from, so that the validator (and anything after it) can point at it: byte
//! ranges in the listing text for assembled programs, byte ranges in the file
//! for decoded ones.

use tgsi_ir::ir::Span;

/// What the spans of a [`SourceMap`] count bytes of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// byte ranges in the assembly text (rendered as file:line:column)
    Text,
    /// byte ranges in the binary file (rendered as byte offsets)
    Binary,
}

/// The source of one instruction (declarations and custom data included).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstructionSource {
    /// the whole instruction (its line, or its tokens)
    pub span: Span,
    /// the mnemonic with its suffixes (the opcode token for binary input)
    pub mnemonic: Span,
    /// each operand in order; may be empty when not known (then point at
    /// `span`)
    pub operands: Vec<Span>,
}

/// The sources of a program's instructions, in instruction order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceMap {
    pub kind: SourceKind,
    /// where the version line / version token is
    pub version: Span,
    pub instructions: Vec<InstructionSource>,
}

impl SourceMap {
    /// The span of operand `operand` of instruction `instruction`, falling
    /// back to the instruction's span when operand spans are not known.
    pub fn operand(&self, instruction: usize, operand: usize) -> Option<Span> {
        let inst = self.instructions.get(instruction)?;
        Some(inst.operands.get(operand).copied().unwrap_or(inst.span))
    }

    /// Instruction-level spans of a SHDR/SHEX payload found by walking the
    /// length fields of its opcode tokens (bits 24-30; `customdata`, opcode
    /// 0x35, keeps its length in the next dword), shifted by `base`, the
    /// payload's offset in the file. Stops quietly at the first length that
    /// does not fit: the decoder reports that error.
    pub fn from_payload(payload: &[u8], base: usize) -> SourceMap {
        let word = |i: usize| -> Option<u32> {
            let b = payload.get(i * 4..i * 4 + 4)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let total = (payload.len() / 4).min(word(1).unwrap_or(0) as usize);
        let mut instructions = Vec::new();
        let mut at = 2;
        while at < total {
            let Some(token) = word(at) else { break };
            let mut len = ((token >> 24) & 0x7f) as usize;
            if token & 0x7ff == 0x35 {
                len = word(at + 1).unwrap_or(0) as usize;
            }
            if len == 0 || at + len > total {
                break;
            }
            let start = base + at * 4;
            instructions.push(InstructionSource {
                span: Span::new(start, start + len * 4),
                mnemonic: Span::new(start, start + 4),
                operands: Vec::new(),
            });
            at += len;
        }
        SourceMap {
            kind: SourceKind::Binary,
            version: Span::new(base, base + 8.min(payload.len())),
            instructions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::blob::le_bytes as bytes;

    #[test]
    fn payload_walk_finds_each_instruction_and_custom_data() {
        // ps_5_0, 9 dwords: dcl_globalFlags (1), customdata class 3 of 4
        // dwords (length in the next dword), ret (1); then a trailing dword
        // beyond the length token that must be ignored.
        let p = bytes(&[
            0x50,
            7,
            0x0100_086a,
            0x0000_1835,
            4,
            0,
            0,
            0x0100_003e,
            0xdead,
        ]);
        let map = SourceMap::from_payload(&p, 100);
        let spans: Vec<_> = map
            .instructions
            .iter()
            .map(|i| (i.span.start, i.span.end))
            .collect();
        assert_eq!(spans, vec![(108, 112), (112, 128)]);
        assert_eq!(map.kind, SourceKind::Binary);
    }

    #[test]
    fn payload_walk_stops_at_a_bad_length() {
        let p = bytes(&[0x50, 4, 0x0500_003e, 0]);
        assert!(SourceMap::from_payload(&p, 0).instructions.is_empty());
        assert!(SourceMap::from_payload(&[1, 2], 0).instructions.is_empty());
    }
}
